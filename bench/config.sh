#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/config.sh DIR: writes DIR/wasync/config.h for a native build, as
# cmake/config.cmake does, for the bench scripts that compile the library's
# sources themselves (bench/wasip2/run.sh, bench/wasip3/run.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$1/wasync"
sed -e 's/@WASYNC_CONFIG_HOST@/native/' -e 's/@WASYNC_CONFIG_HOST_UPPER@/NATIVE/' "$root/cmake/config.h.in" >"$1/wasync/config.h"
