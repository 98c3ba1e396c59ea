#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The HTTP client's throughput natively against the curl command line:
# a body of SIZE bytes (1 GiB) from one nginx worker on loopback (a sparse
# file, sent from the page cache), read through http.h in 64 KiB reads
# (bench/http/transfer.c) and by `curl -o /dev/null`; and SIZE bytes
# POSTed to it (nginx drops them) from a stream in memory and by
# `curl -T` from a file in the page cache. RUNS rounds (5), interleaved:
# the medians of MB/s with their spread (lowest to highest), wasync's
# over curl's, and the client's CPU seconds (user + system: steadier than
# wall time on a loaded machine). CALLGRIND=1 adds each client's
# instructions per KiB on a 64 MiB body (wasync's transfer alone; curl's
# process on 64 MiB less on 1 MiB, which cancels its start): mostly the
# bytes copied in user space, as valgrind counts a rep movsb per byte.
#
# Usage: [RUNS=N] [SIZE=BYTES] [CALLGRIND=1] bench/http/transfer.sh BUILD_DIR
set -euo pipefail
build=${1:?usage: bench/http/transfer.sh BUILD_DIR}
runs=${RUNS:-5}
size=${SIZE:-1073741824}

. "$(dirname "$0")/nginx.sh"
client="$build/bench/wasync-transfer"

p=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
chmod 755 "$tmp" # (nginx's worker is another user)
mkdir -p "$tmp/www"
truncate -s "$size" "$tmp/www/body"
truncate -s $((64 << 20)) "$tmp/www/small"
truncate -s $((1 << 20)) "$tmp/www/tiny"
nginx_start "$tmp/nginx" 1 64 "  sendfile on;
  server {
    listen 127.0.0.1:$p;
    root $tmp/www;
    location /up { client_max_body_size 0; return 200 \"ok\"; }
  }"
for _ in $(seq 100); do
  curl -sf -o /dev/null "http://127.0.0.1:$p/small" && break
  sleep 0.05
done
get=http://127.0.0.1:$p/body up=http://127.0.0.1:$p/up
cat "$tmp/www/body" >/dev/null # (in the page cache before the first run)

spread() { sort -g | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%.0f-%.0f", lo, hi}'; }
# run NAME CMD...: CMD's MB/s into NAME (wasync prints mb_per_s=, curl its
# bytes/s with -w), its CPU seconds into NAME.cpu
TIMEFORMAT='%U %S'
run() {
  local name=$1
  shift
  { time "$@" >"$tmp/out"; } 2>"$tmp/time"
  if grep -q mb_per_s= "$tmp/out"; then
    sed -n 's/.*mb_per_s=\([0-9.]*\).*/\1/p' "$tmp/out"
  else
    awk '{printf "%.1f\n", $1 / 1e6}' "$tmp/out"
  fi >>"$tmp/$name"
  awk '{print $1 + $2}' "$tmp/time" >>"$tmp/$name.cpu"
}
for ((r = 0; r < runs; r++)); do
  run down.wasync "$client" get "$get"
  run down.curl curl -fsS -o /dev/null -w '%{speed_download}' "$get"
  run up.wasync "$client" put "$up" "$size"
  run up.curl curl -fsS -o /dev/null -w '%{speed_upload}' -T "$tmp/www/body" -X POST "$up"
done

# Instructions per KiB under callgrind, on the small body: wasync's
# transfer (its region); curl's process, less its run on the tiny body.
refs() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null | sed -n 's/.*refs: *//p' | tr -d ,; }
per_kib() { awk -v a="$1" -v k="$2" 'BEGIN {printf "%.0f", a / k}'; }
declare -A instr=([down.wasync]=- [down.curl]=- [up.wasync]=- [up.curl]=-)
if [ "${CALLGRIND:-0}" = 1 ] && command -v valgrind >/dev/null; then
  at=http://127.0.0.1:$p
  instr[down.wasync]=$(per_kib "$(refs --collect-atstart=no "$client" get "$at/small")" $((64 << 10)))
  instr[down.curl]=$(per_kib $(($(refs curl -fsS -o /dev/null "$at/small") - $(refs curl -fsS -o /dev/null "$at/tiny"))) \
    $((63 << 10)))
  instr[up.wasync]=$(per_kib "$(refs --collect-atstart=no "$client" put "$up" $((64 << 20)))" $((64 << 10)))
  instr[up.curl]=$(per_kib $(($(refs curl -fsS -o /dev/null -T "$tmp/www/small" -X POST "$up") -
    $(refs curl -fsS -o /dev/null -T "$tmp/www/tiny" -X POST "$up"))) $((63 << 10)))
fi

echo
echo "HTTP client: $(awk -v b="$size" 'BEGIN {printf "%.0f MiB", b / 1048576}') down from and up to nginx (one worker) on loopback, wasync in 64 KiB reads, median of $runs runs (load $(cut -d' ' -f1 /proc/loadavg))"
printf '%-16s %10s %17s %9s %9s %11s\n' transfer "MB/s" "MB/s min-max" vs_curl cpu_s "instr/KiB"
for dir in down up; do
  base=$(median <"$tmp/$dir.curl")
  for c in wasync curl; do
    v=$(median <"$tmp/$dir.$c")
    printf '%-16s %10.0f %17s %9.2f %9.2f %11s\n' "$dir $c" "$v" "$(spread <"$tmp/$dir.$c")" \
      "$(awk -v a="$v" -v b="$base" 'BEGIN {print a / b}')" "$(median <"$tmp/$dir.$c.cpu")" "${instr[$dir.$c]}"
  done
done
