#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds the hyper peer from crates.io, the versions of Cargo.lock.
# Usage: build.sh OUTDIR   -> OUTDIR/peer-hyper
set -eu
[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
mkdir -p "$1"
out=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
cargo=${CARGO:-}
if [ -z "$cargo" ]; then
    for c in "$(command -v cargo || true)" "${HOME:-/root}/.cargo/bin/cargo" /usr/bin/cargo; do
        if [ -n "$c" ] && [ -x "$c" ]; then cargo=$c; break; fi
    done
fi
[ -n "$cargo" ] || { echo "build.sh: cargo not found (set CARGO=...)" >&2; exit 1; }
cd "$here"
CARGO_TARGET_DIR="$out/hyper-target" "$cargo" build --release --locked
cp "$out/hyper-target/release/peer-hyper" "$out/peer-hyper"
echo "built $out/peer-hyper"
