#!/bin/sh
# SPDX-License-Identifier: MIT
# Checks a Promela model with spin: generates the verifier, compiles it and
# runs it exhaustively (-DSAFETY: assertions and invalid end states). Fails
# on any error. Usage: run.sh MODEL.pml [CC]
set -eu
model=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cc=${2:-cc}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
spin -a "$model" >/dev/null
"$cc" -O1 -DSAFETY -o pan pan.c
./pan -m100000 >out.txt || true
cat out.txt
grep -q "errors: 0" out.txt && ! grep -q "max search depth too small" out.txt
