#!/bin/sh
# SPDX-License-Identifier: MIT
# Build the Go peer with Debian's golang-go, offline (no modules).
# Usage: build.sh OUTDIR   -> OUTDIR/peer-go
set -eu
[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
mkdir -p "$1"
out=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
GO111MODULE=off GOFLAGS= GOCACHE="$out/go-cache" go build -o "$out/peer-go" main.go
echo "built $out/peer-go"
