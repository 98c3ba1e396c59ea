#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# wasync as a user outside the repository gets it: an optimised build of
# host HOST installed to a prefix in a temporary folder, and programs built
# there against it. The native and JS builds are BUILD_DIR (the release and
# js presets); a WASI host's is its release preset (HOST-release), built
# here, library only. Each program reports a misuse: the call returns
# WA_EMISUSE, its report goes to stderr, and the program goes on, on every
# host and build.
#   native: one with `pkg-config --cflags --libs wasync`, one with
#           find_package(wasync) and wasync::wasync, both run; a project that
#           adds the source tree with add_subdirectory (and has a target
#           `hello`) builds only the library of ours.
#   wasip1: a module built with the installed toolchain file, run by the
#           installed scripts/wasi1.mjs (node:wasi).
#   wasip2: a component of the user's own WIT world, made by the installed
#           wasync_component(), run under jco; and one made by
#           wasync_component() right after add_subdirectory.
#   wasip3: a command-p3 component made by the installed
#           wasync_component(), run by the installed scripts/run-p3.mjs
#           from the user's project (its own node_modules), once with main
#           returning non-zero: status 1 and nothing but the program's words;
#           and, given WASYNC_WIT_BINDGEN and WASYNC_WAC, two components of
#           a world of the user's (tests/wasip3/kinds) bound by the
#           installed wasync_bindings and composed by wasync_compose.
# A WASI host's program runs under wasmtime instead when the test is told
# so (WASYNC_RUNNER=wasmtime: NAME_wasmtime, tests/wasmtime.cmake).
#   js:     a module that calls printf, made by the installed
#           wasync_js_module(), run in Node by the installed glue imported
#           as the package @wasync/js, whose parts are not exported.
# Usage: tests/consume.sh native|wasip1|wasip2|wasip3|js BUILD_DIR
set -euo pipefail
host=$1 build=$(cd "$2" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
if [[ $host == wasip* ]]; then
  build=$tmp/lib
  cmake -S "$src" -B "$build" --preset "$host-release" -DWASYNC_BUILD_TESTS=OFF -DWASYNC_BUILD_EXAMPLES=OFF \
    -DWASYNC_BUILD_BENCH=OFF -DWASYNC_NODE_MODULES="$src/node_modules" >"$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
  cmake --build "$build" >"$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
fi
cmake --install "$build" --prefix "$prefix" >/dev/null
# configure and build the project in folder $1 (more -D in the rest)
project() {
  local dir=$1
  shift
  cmake -S "$dir" -B "$dir/build" -G Ninja -DCMAKE_C_COMPILER=clang-19 -DCMAKE_PREFIX_PATH="$prefix" "$@" >"$tmp/log" 2>&1 ||
    { cat "$tmp/log"; exit 1; }
  cmake --build "$dir/build" >"$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
}
expect() { # $1: what ran, $2: its output, $3: the output wanted
  if [ "$2" != "$3" ]; then
    printf '%s: expected\n%s\ngot\n%s\n' "$1" "$3" "$2"
    exit 1
  fi
  echo "$1: ok"
}
wasm() { echo "-DCMAKE_TOOLCHAIN_FILE=$prefix/share/wasync/cmake/wasm32.cmake"; }
# Runs the user's WASI program $1 with the arguments after it: on the
# host's runner (the installed ones for 0.1 and 0.3, from the user's
# project), or under wasmtime when the test is its wasmtime twin
# (tests/wasmtime.cmake).
run_app() {
  local file=$1
  shift
  if [ "${WASYNC_RUNNER:-}" = wasmtime ]; then
    # shellcheck disable=SC2086 # (the flags are words)
    "$WASYNC_WASMTIME" run $WASYNC_WASMTIME_FLAGS "$file" "$@"
    return
  fi
  case $host in
  wasip1) node --no-warnings "$prefix/share/wasync/scripts/wasi1.mjs" "$file" "$@" ;;
  wasip2) node "$src/node_modules/@bytecodealliance/jco/dist/jco.js" run "$file" "$@" ;;
  wasip3) (cd "$tmp/app" && node "$prefix/share/wasync/scripts/run-p3.mjs" "$file" ${1+--} "$@") ;;
  esac
}
# the user's CMakeLists.txt: app.c made into app with the installed
# package, then the line $1 (what the host's programs need)
cmakelists() {
  cat >"$tmp/app/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(app C)
find_package(wasync 0.1 REQUIRED)
add_executable(app app.c)
$1
CMAKE
}

# A program of the user's: a task sleeps, then prints; then a misuse (a
# handle dropped twice), reported and returned. With an argument, main
# returns 3.
mkdir -p "$tmp/app"
cat >"$tmp/app/app.c" <<'C'
#include <stdio.h>
#include "wasync.h"

typedef struct { WA_CORO; wa_sleep sleep; } app;

WA_ASYNC(app, a, cx)
{
    WA_BEGIN(a, cx);
    WA_TRY(wa_sleep_init(&a->sleep, WA_MS(10)));
    printf("wasync %s on %s\n", WASYNC_VERSION_STRING, WASYNC_HOST);
    WA_END();
}

int main(int argc, char **argv) {
    (void)argv;
    wa_rt *rt;
    if (wa_rt_new(&rt) < 0) return 1;
    app a = {0};
    int rc = wa_block_on(rt, app_init(&a));
    wa_rt_free(rt);
    printf("then: %s\n", wa_strerror(wa_join_drop(NULL)));
    fflush(stdout);
    return rc < 0 || argc > 1 ? 3 : 0;
}
C
version=$(sed -n 's/^#define WASYNC_VERSION_STRING "\(.*\)"$/\1/p' "$src/include/wasync/version.h")
# what app prints on host $1
said() { printf 'wasync %s on %s\nthen: API misuse' "$version" "$1"; }
# the report app's misuse gives, on stderr ($1: the file)
reported() {
  grep -q 'wasync: misuse: wa_join_drop: ' "$1" || { echo "no misuse report in:"; cat "$1"; exit 1; }
}

case $host in
native)
  # shellcheck disable=SC2046 # (the flags are words)
  clang-19 -std=c11 -Wall -Werror "$tmp/app/app.c" -o "$tmp/app/pc" \
    $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs wasync)
  expect pkg-config "$("$tmp/app/pc" 2>"$tmp/err")" "$(said native)"
  reported "$tmp/err"

  cmakelists "target_link_libraries(app PRIVATE wasync::wasync)"
  project "$tmp/app"
  expect find_package "$("$tmp/app/build/app" 2>/dev/null)" "$(said native)"

  # Our tests and examples have targets named like a user's (hello,
  # demo): none may be built, nor any test registered.
  mkdir -p "$tmp/sub"
  cp "$tmp/app/app.c" "$tmp/sub/hello.c"
  cat >"$tmp/sub/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(sub C)
enable_testing()
add_subdirectory("$src" wasync)
add_executable(hello hello.c)
add_executable(demo hello.c)
target_link_libraries(hello PRIVATE wasync::wasync)
target_link_libraries(demo PRIVATE wasync::wasync)
CMAKE
  project "$tmp/sub"
  expect add_subdirectory "$("$tmp/sub/build/hello" 2>/dev/null)" "$(said native)"
  ours=$(cd "$tmp/sub/build/wasync" && find . -type f -perm -u+x | sort)
  expect "add_subdirectory builds nothing else" "$ours" ""
  expect "add_subdirectory adds no test" "$(cd "$tmp/sub/build" && ctest -N | tail -1)" "Total Tests: 0"
  ;;
wasip2)
  mkdir -p "$tmp/app/wit" "$tmp/app/greet"
  cat >"$tmp/app/wit/app.wit" <<'WIT'
package user:app;

// The user's world: ours, and an interface of another package of theirs.
world app {
  include wasync:host/command;
  import user:greet/names;
}
WIT
  cat >"$tmp/app/greet/greet.wit" <<'WIT'
package user:greet;

interface names {
  default-name: func() -> string;
}
WIT
  cmakelists "wasync_component(app app command WIT wit greet)"
  project "$tmp/app" "$(wasm)" -DWASYNC_NODE_MODULES="$src/node_modules"
  # (the world's own import is unused by app.c: wit-component drops it)
  expect "component of the world app" "$(run_app "$tmp/app/build/app.component.wasm" 2>"$tmp/err")" "$(said wasip2)"
  reported "$tmp/err"
  # wasync_component() right after add_subdirectory, of one of our worlds
  mkdir -p "$tmp/sub"
  cp "$tmp/app/app.c" "$tmp/sub/app.c"
  cat >"$tmp/sub/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(sub C)
add_subdirectory("$src" wasync)
add_executable(app app.c)
wasync_component(app command command)
CMAKE
  project "$tmp/sub" -DCMAKE_TOOLCHAIN_FILE="$src/cmake/wasm32.cmake" -DWASYNC_HOST=wasip2 \
    -DWASYNC_NODE_MODULES="$src/node_modules"
  expect "component after add_subdirectory" "$(run_app "$tmp/sub/build/app.component.wasm" 2>/dev/null)" "$(said wasip2)"
  ;;
wasip1)
  cmakelists "target_link_libraries(app PRIVATE wasync::wasync)"
  project "$tmp/app" "$(wasm)"
  expect "WASI 0.1 module" "$(run_app "$tmp/app/build/app" 2>"$tmp/err")" "$(said wasip1)"
  reported "$tmp/err"
  ;;
wasip3)
  cmakelists "wasync_component(app command-p3 reactor)"
  # The user's project has its own node_modules (here, ours linked).
  ln -s "$src/node_modules" "$tmp/app/node_modules"
  project "$tmp/app" "$(wasm)"
  expect "WASI 0.3 component" "$(run_app "$tmp/app/build/app.component.wasm" 2>"$tmp/err")" "$(said wasip3)"
  reported "$tmp/err"
  status=0
  out=$(run_app "$tmp/app/build/app.component.wasm" fail 2>"$tmp/err") || status=$?
  expect "main returning 3: the output" "$out" "$(said wasip3)"
  expect "main returning 3: the status" "$status" 1
  expect "main returning 3: stderr" "$(grep -v 'wasync: misuse' "$tmp/err" || true)" ""
  # a world of the user's bound by the installed wasync_bindings, its two
  # components composed by wasync_compose (tests/wasip3/kinds, copied)
  if [ -n "${WASYNC_WIT_BINDGEN:-}" ] && [ -n "${WASYNC_WAC:-}" ]; then
    mkdir -p "$tmp/kinds/t/kinds"
    cp "$src"/tests/wasip3/kinds/* "$tmp/kinds/t/kinds/"
    cp "$src/tests/check.h" "$tmp/kinds/" # (user.c includes ../../check.h)
    ln -s "$src/node_modules" "$tmp/kinds/node_modules"
    cat >"$tmp/kinds/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(kinds C)
find_package(wasync 0.1 REQUIRED)
add_executable(provider t/kinds/provider.c)
wasync_bindings(provider provider t/kinds)
wasync_component(provider reactor-p3 reactor)
add_executable(user t/kinds/user.c)
wasync_bindings(user user t/kinds)
wasync_component(user command-p3 reactor)
wasync_compose(composed user provider)
CMAKE
    project "$tmp/kinds" "$(wasm)" -DWASYNC_WIT_BINDGEN="$WASYNC_WIT_BINDGEN" -DWASYNC_WAC="$WASYNC_WAC"
    expect "composed components of the user's world" \
      "$(cd "$tmp/kinds" && run_app "$tmp/kinds/build/composed.component.wasm" 2>&1 | tail -1 | sed 's/^[0-9]* passed, //')" \
      "0 failed"
  fi
  ;;
js)
  cat >"$tmp/app/app.c" <<'C'
#include <stdio.h>
#include "wasync.h"

__attribute__((export_name("hello"))) int hello(int n)
{
    char buf[64];
    snprintf(buf, sizeof buf, "wasync %s on %s", WASYNC_VERSION_STRING, WASYNC_HOST);
    printf("%s: %d\n", buf, n);
    printf("then: %s\n", wa_strerror(wa_join_drop(NULL)));
    return 0;
}
C
  cmakelists "wasync_js_module(app)"
  project "$tmp/app" "$(wasm)"
  mkdir -p "$tmp/app/node_modules/@wasync"
  ln -s "$prefix/share/wasync/js" "$tmp/app/node_modules/@wasync/js"
  cat >"$tmp/app/run.mjs" <<'JS'
import { readFile } from 'node:fs/promises';
import { instantiate } from '@wasync/js';
const rt = await instantiate(readFile(process.argv[2]));
rt.call('hello', 7);
rt.close();
JS
  expect "JS module" "$(node "$tmp/app/run.mjs" "$tmp/app/build/app.wasm" 2>"$tmp/err")" \
    "$(printf 'wasync %s on js: 7\nthen: API misuse' "$version")"
  reported "$tmp/err"
  # ...and the package's parts are not its API: only the entry is exported.
  cat >"$tmp/app/part.mjs" <<'JS'
try {
  await import('@wasync/js/ops.mjs');
  console.log('exported');
} catch (e) {
  console.log(e.code);
}
JS
  expect "a part of @wasync/js" "$(node "$tmp/app/part.mjs")" "ERR_PACKAGE_PATH_NOT_EXPORTED"
  ;;
*)
  echo "usage: $0 native|wasip1|wasip2|wasip3|js BUILD_DIR" >&2
  exit 2
  ;;
esac
