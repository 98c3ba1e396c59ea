#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The native HTTP server against nginx (and tokio+hyper when built): each
# serves a hello on loopback with one thread (wasync: one runtime,
# examples/http_hello.c under WASYNC_LISTEN, on epoll and on io_uring; nginx: one worker, its own
# config and port, `return 200 "hello"`; hyper: current_thread), and
# `wrk -t1 -c50 -d5s` loads it, RUNS times interleaved (5 by default).
# Prints the medians of requests/s (and their spread, lowest to highest)
# and of wrk's latency percentiles, and each server's requests/s over
# nginx's. WORKERS=N adds the example on a many-threads runtime of N
# workers (WASYNC_WORKERS) and gives nginx N workers; THREADS and CONNS
# are wrk's -t and -c (1 and 50).
#
# Usage: [WORKERS=N] [THREADS=T] [CONNS=C] bench/http/run.sh BUILD_DIR [HYPER_BIN]
set -euo pipefail
build=${1:?usage: bench/http/run.sh BUILD_DIR [HYPER_BIN]}
hyper=${2:-}
runs=${RUNS:-5}
secs=${SECONDS_EACH:-5}
workers=${WORKERS:-}
threads=${THREADS:-1}
conns=${CONNS:-50}

command -v wrk >/dev/null || { echo "bench/http: wrk missing (scripts/deps.sh bench)" >&2; exit 1; }
. "$(dirname "$0")/nginx.sh"

# A free port of the kernel's choosing.
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# Waits until something answers on port $1.
ready() {
  for _ in $(seq 100); do
    curl -sf -o /dev/null "http://127.0.0.1:$1/" && return 0
    sleep 0.05
  done
  echo "bench/http: nothing answers on port $1" >&2
  return 1
}

declare -A url=()
order=()

# wasync: the example, one runtime on one thread, on each native reactor
for be in epoll uring; do
  name=wasync; [ $be = epoll ] || name=wasync-$be
  p=$(port)
  WASYNC_BACKEND=$be WASYNC_LISTEN=127.0.0.1:$p "$build/examples/http_hello" >/dev/null &
  pids+=($!)
  ready "$p"
  url[$name]=http://127.0.0.1:$p/
  order+=($name)
done

# wasync on many threads: the same example, WORKERS workers
if [ -n "$workers" ]; then
  name=wasync-mt$workers
  p=$(port)
  WASYNC_WORKERS=$workers WASYNC_LISTEN=127.0.0.1:$p "$build/examples/http_hello" >/dev/null &
  pids+=($!)
  ready "$p"
  url[$name]=http://127.0.0.1:$p/
  order+=($name)
fi

# nginx: one worker (WORKERS), a config and prefix of its own
p=$(port)
nginx_start "$tmp/nginx" "${workers:-1}" 1024 "  server {
    listen 127.0.0.1:$p;
    location / { return 200 \"hello\"; }
  }"
ready "$p"
url[nginx]=http://127.0.0.1:$p/
order+=(nginx)

if [ -n "$hyper" ]; then
  p=$(port)
  "$hyper" "$p" &
  pids+=($!)
  ready "$p"
  url[hyper]=http://127.0.0.1:$p/
  order+=(hyper)
fi

# wrk's latency in µs ("1.23ms" -> 1230)
us() { awk '{v=$1; if (v ~ /us$/) {sub(/us$/,"",v); print v} else if (v ~ /ms$/) {sub(/ms$/,"",v); print v*1000} else {sub(/s$/,"",v); print v*1000000}}'; }

for ((r = 0; r < runs; r++)); do
  for s in "${order[@]}"; do
    out=$(wrk -t"$threads" -c"$conns" -d"${secs}s" --latency "${url[$s]}")
    awk '/^Requests\/sec/ {print $2}' <<<"$out" >>"$tmp/$s.rps"
    awk '$1 == "50%" {print $2}' <<<"$out" | us >>"$tmp/$s.p50"
    awk '$1 == "99%" {print $2}' <<<"$out" | us >>"$tmp/$s.p99"
    grep -q "Non-2xx\|Socket errors" <<<"$out" && { echo "bench/http: $s: $(grep 'Non-2xx\|Socket errors' <<<"$out")" >&2; }
  done
done

echo
echo "HTTP/1.1 hello on loopback, one thread each${workers:+ (wasync-mt$workers and nginx: $workers)}, wrk -t$threads -c$conns -d${secs}s, median of $runs runs"
printf '%-13s %10s %19s %9s %9s %12s\n' server req/s "req/s min-max" p50_us p99_us vs_nginx
base=$(median <"$tmp/nginx.rps")
for s in "${order[@]}"; do
  rps=$(median <"$tmp/$s.rps")
  spread=$(sort -g "$tmp/$s.rps" | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%.0f-%.0f", lo, hi}')
  printf '%-13s %10.0f %19s %9.0f %9.0f %12.2f\n' "$s" "$rps" "$spread" "$(median <"$tmp/$s.p50")" \
    "$(median <"$tmp/$s.p99")" "$(awk -v a="$rps" -v b="$base" 'BEGIN {print a / b}')"
done
