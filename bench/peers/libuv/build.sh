#!/bin/sh
# SPDX-License-Identifier: MIT
# Build the libuv peer (needs libuv1-dev).  Usage: build.sh OUTDIR -> OUTDIR/peer-libuv
set -eu
[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$1"
${CC:-cc} -O2 -Wall -Wextra -o "$1/peer-libuv" "$here/peer_uv.c" "$here/tcp_echo.c" -luv
echo "built $1/peer-libuv"
