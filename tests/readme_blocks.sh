#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every C block of README.md compiles as it is, and links: plain clang
# against include/, the build's wasync/config.h and libwasync.a (the first
# block is also run, by tests/plain_build.sh). A block whose first line is
# the comment /* fragment */ is a piece of a program, shown, not compiled.
# Usage: tests/readme_blocks.sh BUILD_DIR [CFLAGS...]
set -euo pipefail
build=$(cd "$1" && pwd)
shift
src=$(cd "$(dirname "$0")/.." && pwd)
out=$build/readme_blocks
rm -rf "$out" && mkdir -p "$out"
# block N of the README in $out/N.c
awk -v out="$out" '/^```c$/ { n++; f = out "/" n ".c"; printf "" >f; next }
  /^```$/ { f = "" } f { print >f }' "$src/README.md"
compiled=0
for c in "$out"/*.c; do
  [ -e "$c" ] || break
  if [ "$(head -1 "$c")" = "/* fragment */" ]; then
    echo "readme block $(basename "$c" .c): a fragment, skipped"
    continue
  fi
  clang-19 -std=c11 -Wall -Wextra -Werror -I"$src/include" -I"$build/include" "$@" \
    "$c" "$build/libwasync.a" -lpthread -lcurl -luring -o "${c%.c}"
  echo "readme block $(basename "$c" .c): compiled"
  compiled=$((compiled + 1))
done
[ "$compiled" -gt 0 ] || { echo "readme blocks: no C block compiled" >&2; exit 1; }
