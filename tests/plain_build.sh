#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's example built as a user outside our CMake builds it: plain
# clang against include/, the generated wasync/config.h and libwasync.a,
# with no -D; then run, natively or as a WASI 0.2 component under jco.
# Usage: tests/plain_build.sh native|wasip2 BUILD_DIR [CFLAGS...]
# (CFLAGS: the build's own, e.g. its sanitizers, which its library needs.)
set -euo pipefail
host=$1 build=$(cd "$2" && pwd)
shift 2
src=$(cd "$(dirname "$0")/.." && pwd)
out=$build/plain_build
mkdir -p "$out"
# The example is the README's first C block.
awk '/^```c$/ { f = 1; next } /^```$/ { if (f) exit } f' "$src/README.md" >"$out/readme.c"
flags=(-std=c11 -Wall -Wextra -Werror -I"$src/include" -I"$build/include")
case $host in
native)
  clang-19 "${flags[@]}" "$@" "$out/readme.c" "$build/libwasync.a" -lpthread -luring -o "$out/readme"
  run=("$out/readme")
  ;;
wasip2)
  clang-19 --target=wasm32-wasi --sysroot=/usr -O2 "${flags[@]}" "$@" "$out/readme.c" "$build/libwasync.a" \
    -nostartfiles -Wl,--undefined=cabi_realloc -o "$out/readme.wasm"
  node "$src/scripts/component.mjs" --wit "$build/wit" "$out/readme.wasm" "$out/readme.component.wasm" command command
  run=(node "$src/node_modules/@bytecodealliance/jco/dist/jco.js" run "$out/readme.component.wasm")
  ;;
*)
  echo "usage: $0 native|wasip2 BUILD_DIR [CFLAGS...]" >&2
  exit 2
  ;;
esac
got=$("${run[@]}")
want=$'tick 0\ntick 1\ntick 2'
if [ "$got" != "$want" ]; then
  printf 'plain build (%s): expected\n%s\ngot\n%s\n' "$host" "$want" "$got"
  exit 1
fi
echo "plain build ($host): ok"
