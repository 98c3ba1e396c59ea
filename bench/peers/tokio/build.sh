#!/bin/sh
# SPDX-License-Identifier: MIT
# Build the tokio peer offline against Debian's crate registry.
# Usage: build.sh OUTDIR   -> OUTDIR/peer-tokio
set -eu
[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
mkdir -p "$1"
out=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)

# rustup installs cargo in ~/.cargo/bin, which is often not on PATH in
# non-login shells; Debian's cargo package installs /usr/bin/cargo.
cargo=${CARGO:-}
if [ -z "$cargo" ]; then
    for c in "$(command -v cargo || true)" "${HOME:-/root}/.cargo/bin/cargo" /root/.cargo/bin/cargo /usr/bin/cargo; do
        if [ -n "$c" ] && [ -x "$c" ]; then cargo=$c; break; fi
    done
fi
[ -n "$cargo" ] || { echo "build.sh: cargo not found (set CARGO=...)" >&2; exit 1; }

# cargo reads .cargo/config.toml (the offline Debian source) from the cwd.
cd "$here"
CARGO_TARGET_DIR="$out/tokio-target" "$cargo" build --release --offline
cp "$out/tokio-target/release/peer-tokio" "$out/peer-tokio"
echo "built $out/peer-tokio"
