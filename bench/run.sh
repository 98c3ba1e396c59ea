#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make bench: builds the peers (libuv from Debian, tokio current_thread from
# Debian's crates, offline; for the many-threads tables tokio multi_thread
# and Go), runs every workload on every peer RUNS times
# (interleaved, so drift hits all peers alike), and prints medians, ratios
# against tokio, peak RSS, and instructions per operation under callgrind;
# then the RSS per live sleeping task (a million); the many-threads tables
# and the CPU-bound demo's scaling from 1 to 2 workers; the 10,000-connection
# TCP echo on epoll and on io_uring beside tokio and libuv; the native HTTP
# server against nginx and hyper (bench/http/run.sh), and the HTTP client's
# download and upload against the curl command line (bench/http/transfer.sh); then the JS host, and
# WASI 0.3 beside 0.2 (the backends' guest cost per event natively; sleeps
# and HTTP under jco and under wasmtime, one table each: wall time, host
# calls), and http_hello against the host floor on 0.2 and 0.3, under jco
# (jco serve, preview3-shim) and under wasmtime serve, the floor on
# wit-bindgen's bindings beside it.
#
# Usage: bench/run.sh BUILD_DIR     (RUNS=5 by default)
set -euo pipefail
build=${1:?usage: bench/run.sh BUILD_DIR}
runs=${RUNS:-5}
here=$(cd "$(dirname "$0")" && pwd)
peers="$build/peers"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# (without libuv1-dev the libuv peer's rows are left out, said so)
libuv=libuv
bench/peers/libuv/build.sh "$peers" >"$tmp/libuv.log" 2>&1 || {
  libuv=
  echo "bench: the libuv peer did not build (its log: tail below); its rows are left out" >&2
  tail -5 "$tmp/libuv.log" >&2
}
bench/peers/tokio/build.sh "$peers" >"$tmp/cargo.log" 2>&1 || { cat "$tmp/cargo.log"; exit 1; }
bench/peers/go/build.sh "$peers" >/dev/null

declare -A bin=([wasync]="$build/bench/wasync-bench" [tokio]="$peers/peer-tokio" [libuv]="$peers/peer-libuv"
  [go]="$peers/peer-go")
order=(wasync tokio $libuv)
workloads=("spawn_join 1000000" "yield_pingpong 1000000" "timers 100000 100")

# field NAME LINE: the value of NAME=... in a result line
field() { tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p"; }
median() { sort -g | awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

for w in "${workloads[@]}"; do
  name=${w%% *}
  for ((r = 0; r < runs; r++)); do
    for p in "${order[@]}"; do
      ${bin[$p]} $w >>"$tmp/$p.$name"
    done
  done
done

# Instructions per operation: wasync counts only its measured region (client
# requests); the peers are counted as the difference between two sizes, which
# cancels their start-up cost.
refs() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null | sed -n 's/.*refs: *//p' | tr -d ,; }
instr() {
  local p=$1 name=$2 n1=20000 n2=120000
  if [ "$p" = wasync ]; then
    awk -v a="$(refs --collect-atstart=no "${bin[$p]}" "$name" $n2)" -v n=$n2 'BEGIN {printf "%.0f", a / n}'
  else
    awk -v a="$(refs "${bin[$p]}" "$name" $n1)" -v b="$(refs "${bin[$p]}" "$name" $n2)" -v n=$((n2 - n1)) \
      'BEGIN {printf "%.0f", (b - a) / n}'
  fi
}

have_valgrind=1
command -v valgrind >/dev/null || have_valgrind=0

printf '\n%-15s %-7s %12s %9s %11s %14s %9s\n' workload peer "ns/op(med)" "vs tokio" "maxrss_kb" "over_ideal_ms" "instr/op"
for w in "${workloads[@]}"; do
  name=${w%% *}
  tokio_ns=$(while read -r l; do field ns_per_op "$l"; done <"$tmp/tokio.$name" | median)
  for p in "${order[@]}"; do
    ns=$(while read -r l; do field ns_per_op "$l"; done <"$tmp/$p.$name" | median)
    rss=$(while read -r l; do field maxrss_kb "$l"; done <"$tmp/$p.$name" | median)
    over=-
    [ "$name" = timers ] && over=$(while read -r l; do field over_ideal_ms "$l"; done <"$tmp/$p.$name" | median)
    ins=-
    [ "$name" != timers ] && [ $have_valgrind = 1 ] && ins=$(instr "$p" "$name")
    ratio=$(awk -v a="$ns" -v b="$tokio_ns" 'BEGIN {printf "%.2f", a / b}')
    printf '%-15s %-7s %12.1f %9s %11.0f %14s %9s\n' "$name" "$p" "$ns" "$ratio" "$rss" "$over" "$ins"
  done
done
echo
echo "medians of $runs runs; RSS ratio wasync/tokio for timers: $(
  w=$(while read -r l; do field maxrss_kb "$l"; done <"$tmp/wasync.timers" | median)
  t=$(while read -r l; do field maxrss_kb "$l"; done <"$tmp/tokio.timers" | median)
  awk -v a="$w" -v b="$t" 'BEGIN {printf "%.2f", a / b}')"

# The trace's cost (wasync/trace.h): spawn_join and yield_pingpong traced to
# /dev/null (WASYNC_TRACE) beside untraced, and the time per event: the
# difference per operation over the events per operation (every event of a
# trace to a file: the tasks' slices and instants, the host waits). Off, it
# costs a spawn one instruction, a timer's arm and fire a test each
# (callgrind).
echo
printf '%-26s %12s %12s %11s %12s\n' "trace (WASYNC_TRACE)" "off ns/op" "on ns/op" "events/op" "ns/event"
for w in "spawn_join 200000" "yield_pingpong 200000"; do
  name=${w%% *}
  for ((r = 0; r < runs; r++)); do
    ${bin[wasync]} $w >>"$tmp/trace_off.$name"
    WASYNC_TRACE=/dev/null ${bin[wasync]} $w >>"$tmp/trace_on.$name"
  done
  off=$(while read -r l; do field ns_per_op "$l"; done <"$tmp/trace_off.$name" | median)
  on=$(while read -r l; do field ns_per_op "$l"; done <"$tmp/trace_on.$name" | median)
  WASYNC_TRACE="$tmp/trace.json" ${bin[wasync]} "$name" 20000 >/dev/null
  per=$(awk -v e="$(grep -c '"ph"' "$tmp/trace.json")" 'BEGIN {printf "%.1f", e / 20000}')
  printf '%-26s %12.1f %12.1f %11s %12.0f\n' "$name" "$off" "$on" "$per" "$(awk -v a="$on" -v b="$off" -v e="$per" 'BEGIN {print (a - b) / e}')"
done

# Memory per live task: a million tasks asleep until one deadline, the peak
# RSS they add once all have armed their timers, divided among them; beside
# tokio's tasks, Go's goroutines, and libuv's bare timers (no task: the
# floor of a sleep's memory). The peers' tasks are due a minute on, and a
# run ends once measured: arming a million takes them longer than wasync's
# 500 ms.
for ((r = 0; r < runs; r++)); do
  for p in wasync tokio go $libuv; do ${bin[$p]} sleepers 1000000 >>"$tmp/sleepers.$p"; done
done
declare -A rss=()
for p in wasync tokio go $libuv; do
  rss[$p]=$(while read -r l; do field rss_per_task "$l"; done <"$tmp/sleepers.$p" | median)
done
echo
printf '%-26s %16s %9s\n' "sleepers 1000000" "B/task(med)" "vs tokio"
for p in wasync tokio go $libuv; do
  printf '%-26s %16.1f %9s\n' "$p" "${rss[$p]}" "$(awk -v a="${rss[$p]}" -v t="${rss[tokio]}" 'BEGIN {printf "%.2f", a / t}')"
done

# The many-threads runtime on 1 and 2 workers, against tokio multi_thread
# and Go (GOMAXPROCS) with 2, the local executor's workload first (the cost
# of thread safety): mt_spawn (spawn_join), mt_pingpong (yield_pingpong
# through shared channels: the runtime may keep both tasks on one worker)
# and mt_yield (yield_many). cpu/wall: how many threads were busy.
# mt_table TITLE UNIT CONFIG...: medians of each "PEER WORKLOAD ARGS..."
mt_table() {
  local title=$1 unit=$2 c p w rest ops ns cpu wall
  shift 2
  echo
  printf '%-34s %12s %10s %9s\n' "$title" "$unit(med)" "ns/op" "cpu/wall"
  for c in "$@"; do
    read -r p w rest <<<"$c"
    for ((r = 0; r < runs; r++)); do ${bin[$p]} $w $rest; done >"$tmp/mt"
    ops=$(while read -r l; do field ops_per_s "$l"; done <"$tmp/mt" | median)
    ns=$(while read -r l; do field ns_per_op "$l"; done <"$tmp/mt" | median)
    cpu=- # the local executor runs on the calling thread
    if grep -q cpu_ms= "$tmp/mt"; then
      cpu=$(while read -r l; do field cpu_ms "$l"; done <"$tmp/mt" | median)
      wall=$(while read -r l; do field wall_ms "$l"; done <"$tmp/mt" | median)
      cpu=$(awk -v a="$cpu" -v b="$wall" 'BEGIN {printf "%.2f", a / b}')
    fi
    printf '%-34s %12.0f %10.1f %9s\n' "$p $w $rest" "$ops" "$ns" "$cpu"
  done
}
mt_table "mt_spawn 1000000" tasks/s "wasync spawn_join 1000000" "wasync mt_spawn 1000000 1" "wasync mt_spawn 1000000 2" \
  "tokio mt_spawn 1000000 2" "go mt_spawn 1000000 2"
mt_table "mt_pingpong 200000" trips/s "wasync yield_pingpong 200000" "wasync mt_pingpong 200000 1" "wasync mt_pingpong 200000 2" \
  "tokio mt_pingpong 200000 2" "go mt_pingpong 200000 2"
mt_table "mt_yield 1000 1000" yields/s "wasync yield_many 1000 1000" "wasync mt_yield 1000 1000 1" "wasync mt_yield 1000 1000 2" \
  "tokio mt_yield 1000 1000 2" "go mt_yield 1000 1000 2"

# Scaling on CPU-bound work: examples/workers.c (four tasks of 5 x 200 ms
# of their thread's CPU time) on 1 and on 2 workers, beside the same on
# tokio multi_thread and Go (mt_workers); the machine's load beside it.
echo
printf '%-28s %10s %10s %9s\n' "workers (examples/workers.c)" "1 worker" "2 workers" scaling
"$build/examples/workers" | awk '
  /^-- total/ { t[++n] = $3 }
  END { printf "%-28s %9.2fs %9.2fs %8.2fx\n", "wasync", t[1], t[2], t[1] / t[2] }'
for p in tokio go; do
  a=$(field wall_ms "$(${bin[$p]} mt_workers 1)")
  b=$(field wall_ms "$(${bin[$p]} mt_workers 2)")
  awk -v p=$p -v a="$a" -v b="$b" 'BEGIN { printf "%-28s %9.2fs %9.2fs %8.2fx\n", p, a / 1e3, b / 1e3, a / b }'
done
echo "(one run each; load $(cut -d' ' -f1 /proc/loadavg))"

# The 10,000-connection TCP echo (bench/soak.c tcp: every connection open
# at once, both ends in one process, then 10 KiB each way in 1 KiB writes,
# every byte checked) on each native reactor, epoll and io_uring
# (WASYNC_BACKEND), beside the same workload and the same clients on tokio
# (current_thread, the local executor's peer, and multi_thread on 2
# workers) and on libuv (bench/peers/tokio/src/tcp_echo.rs,
# bench/peers/libuv/tcp_echo.c), runs interleaved: connections set up per
# second, the echo's time (median, and the runs' spread) and throughput, CPU,
# the echo's time against tokio current_thread's; instructions per
# connection under callgrind (2,000 minus 500 connections, which cancels the
# start-up; user space only, the byte checks included: not the kernel's
# share). Every row runs the same count: as many as the file limit allows
# (two descriptors a connection), 10,000 when it can be raised that far.
conns=10000
nofile=$(ulimit -Hn)
[ "$nofile" = unlimited ] || [ "$nofile" -gt $((2 * conns + 64)) ] && nofile=$((2 * conns + 64))
[ "$(ulimit -Sn)" != unlimited ] && [ "$(ulimit -Sn)" -lt "$nofile" ] && ulimit -Sn "$nofile"
[ $((2 * conns + 64)) -le "$nofile" ] || conns=$(((nofile - 64) / 2))
echo_rows=(epoll uring tokio tokio-mt $libuv)
declare -A echo_name=([epoll]="wasync epoll" [uring]="wasync io_uring" [tokio]="tokio current_thread"
  [tokio-mt]="tokio multi_thread 2" [libuv]=libuv)
# echo_run ROW N [WRAPPER...]: the soak's tcp scenario of N connections on
# ROW (through WRAPPER: refs)
echo_run() {
  local row=$1 n=$2
  shift 2
  case $row in
  epoll | uring) WASYNC_BACKEND=$row "$@" "$build/bench/wasync-soak" tcp "$n" ;;
  tokio) "$@" "${bin[tokio]}" tcp_echo "$n" ;;
  tokio-mt) "$@" "${bin[tokio]}" mt_tcp_echo "$n" 2 ;;
  libuv) "$@" "${bin[libuv]}" tcp_echo "$n" ;;
  esac
}
for ((r = 0; r < runs; r++)); do
  for row in "${echo_rows[@]}"; do
    if ! echo_run $row $conns >"$tmp/echo.out" 2>&1; then
      echo "bench: the tcp echo on ${echo_name[$row]} failed (its output: tail below)" >&2
      tail -3 "$tmp/echo.out" >&2
      continue
    fi
    awk -v row=$row '
      /connect \+ accept all/ { c = $(NF - 1); sub(/\(/, "", c) }
      /echo 10 KiB each/ { e = $(NF - 3); m = $(NF - 1); sub(/\(/, "", m) }
      /CPU user \/ system/ { u = $(NF - 3) + $(NF - 1) }
      END { print row, c, e, m, u }' "$tmp/echo.out" >>"$tmp/echo"
  done
done
# echo_col ROW N: the median of column N of its runs; echo_span ROW N: their
# least and greatest
echo_col() { awk -v row="$1" -v n="$2" '$1 == row { print $n }' "$tmp/echo" | median; }
echo_span() { awk -v row="$1" -v n="$2" '$1 == row { print $n }' "$tmp/echo" | sort -g | sed -n '1p;$p' | paste -sd-; }
echo
printf '%-22s %11s %10s %13s %10s %7s %9s %11s\n' "tcp echo $conns (soak.c)" "conn/s(med)" "echo_s(med)" "echo_s spread" \
  "MB/s(med)" cpu_s "vs tokio" "instr/conn"
tokio_s=$(echo_col tokio 3)
for row in "${echo_rows[@]}"; do
  grep -q "^$row " "$tmp/echo" 2>/dev/null || { printf '%-22s (no run)\n' "${echo_name[$row]}"; continue; }
  ins=-
  if [ $have_valgrind = 1 ]; then
    a=$(echo_run $row 500 refs)
    b=$(echo_run $row 2000 refs)
    ins=$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.0f", (b - a) / 1500}')
  fi
  vs=-
  [ -n "$tokio_s" ] && vs=$(awk -v a="$(echo_col $row 3)" -v b="$tokio_s" 'BEGIN {printf "%.2f", a / b}')
  printf '%-22s %11.0f %10.3f %13s %10.1f %7.2f %9s %11s\n' "${echo_name[$row]}" "$(echo_col $row 2)" "$(echo_col $row 3)" \
    "$(echo_span $row 3)" "$(echo_col $row 4)" "$(echo_col $row 5)" "$vs" "$ins"
done
echo "(medians of $runs interleaved runs; vs tokio: the echo's time over tokio current_thread's, goal <= 0.80; load $(
  cut -d' ' -f1-3 /proc/loadavg))"

# The native HTTP server: examples/http_hello.c against nginx (one worker)
# and hyper (tokio current_thread, from crates.io: bench/peers/hyper; left
# out if it does not build), wrk -t1 -c50 on loopback (bench/http/run.sh).
hyper=""
bench/peers/hyper/build.sh "$peers" >"$tmp/hyper.log" 2>&1 && hyper=$peers/peer-hyper ||
  echo "bench: the hyper peer did not build (its log: tail below); the HTTP table goes without it" >&2
[ -n "$hyper" ] || tail -5 "$tmp/hyper.log" >&2
RUNS=$runs bench/http/run.sh "$build" $hyper

# The HTTP client: a 1 GiB body down from nginx and up to it, through
# http.h in 64 KiB reads and by the curl command line, interleaved
# (bench/http/transfer.sh), with instructions per KiB under callgrind.
RUNS=$runs CALLGRIND=$have_valgrind bench/http/transfer.sh "$build"

# The JS host: awaits and timers against plain JavaScript in the same Node
# process, and the size of the minimal program after wasm-opt -Oz.
cmake --preset js >/dev/null
cmake --build --preset js >/dev/null
echo
node bench/js/run.mjs build/js/tests/js/bench_js.wasm "$runs"
wasm-opt -Oz build/js/tests/js/minimal.wasm -o "$tmp/minimal.wasm"
echo "minimal.wasm (one sleep, one fetch, one exported async function): $(stat -c %s "$tmp/minimal.wasm") bytes after wasm-opt -Oz"

# The WASI 0.2 backend: guest instructions per wakeup with K idle pollables,
# its persistent set against a rebuild-every-wait poller (bench/wasip2); the
# WASI 0.3 backend's per event dispatch beside it (bench/wasip3).
bench/wasip2/run.sh "$build/wasip2"
bench/wasip3/run.sh "$build/wasip3" "$build/wasip2/wasip2-wakeup"

# WASI 0.3 beside 0.2, under jco (preview3-shim against preview2-shim) and
# under wasmtime (the CLI make test installs, scripts/deps.sh), the
# components built from one source for each: 10,000 concurrent sleeps
# against the ideal time and the host calls they cost, then HTTP.
for p in wasip2 wasip3; do cmake --preset $p >/dev/null; done
cmake --build --preset wasip2 --target wasync_sleeps wasync_http_server wasync_http_hello wasync_http_floor >/dev/null
cmake --build --preset wasip3 --target wasync_sleeps wasync_p3_http_server wasync_p3_http_hello wasync_p3_http_floor \
  >/dev/null
wasmtime=$(sed -n 's/^WASYNC_WASMTIME:FILEPATH=//p' build/wasip3/CMakeCache.txt)
[ -x "$wasmtime" ] || wasmtime=
# (what tests/wasmtime.cmake grants a 0.3 component; a 0.2 one needs less)
wasmtime_flags="-S inherit-env -S inherit-network -S allow-ip-name-lookup -S http -S p3 -W component-model-async"
hosts=("0.2 jco" "0.3 jco")
[ -n "$wasmtime" ] && hosts+=("0.2 wasmtime" "0.3 wasmtime")
for ((r = 0; r < runs; r++)); do
  node node_modules/@bytecodealliance/jco/dist/jco.js run build/wasip2/tests/wasip2/sleeps.component.wasm \
    >>"$tmp/sleeps.0.2 jco" || true
  node scripts/run-p3.mjs build/wasip3/tests/wasip3/sleeps.component.wasm build/wasip3/tests/wasip3/sleeps.bench \
    >>"$tmp/sleeps.0.3 jco" || true
  if [ -n "$wasmtime" ]; then
    "$wasmtime" run $wasmtime_flags build/wasip2/tests/wasip2/sleeps.component.wasm >>"$tmp/sleeps.0.2 wasmtime" || true
    "$wasmtime" run $wasmtime_flags build/wasip3/tests/wasip3/sleeps.component.wasm >>"$tmp/sleeps.0.3 wasmtime" || true
  fi
done
echo
echo "10,000 concurrent sleeps of 0 to 100 ms, median of $runs runs (calls: the backend's host calls)"
printf '%-16s %9s %9s %9s %14s\n' host wall_ms ratio calls calls/sleep
declare -A sl=()
for h in "${hosts[@]}"; do
  for f in wall_ms ratio calls calls_per_sleep; do
    sl[$h.$f]=$(while read -r l; do field $f "$l"; done <"$tmp/sleeps.$h" | median)
  done
  printf '%-16s %9s %9s %9s %14s\n' "$h" "${sl[$h.wall_ms]}" "${sl[$h.ratio]}" "${sl[$h.calls]}" "${sl[$h.calls_per_sleep]}"
done
# sleeps_ratio NAME A B: the row of A's figures over B's
sleeps_ratio() {
  printf '%-16s %9s %9s %9s %14s\n' "$1" \
    "$(awk -v a="${sl[$2.wall_ms]}" -v b="${sl[$3.wall_ms]}" 'BEGIN {printf "%.2f", a / b}')" - \
    "$(awk -v a="${sl[$2.calls]}" -v b="${sl[$3.calls]}" 'BEGIN {printf "%.2f", a / b}')" -
}
sleeps_ratio "0.3/0.2 jco" "0.3 jco" "0.2 jco"
if [ -n "$wasmtime" ]; then
  sleeps_ratio "0.3/0.2 wasmtime" "0.3 wasmtime" "0.2 wasmtime"
  sleeps_ratio "0.2 wasmtime/jco" "0.2 wasmtime" "0.2 jco"
  sleeps_ratio "0.3 wasmtime/jco" "0.3 wasmtime" "0.3 jco"
fi

# HTTP (tests/wasip2/http_server.c on both): hello and a 64 KiB echo,
# 1,000 requests 50 at a time, 0.2 under jco serve and 0.3 under
# preview3-shim's HttpServer, and both under wasmtime serve, interleaved
# rounds.
WASYNC_WASMTIME=$wasmtime WASYNC_WASMTIME_FLAGS=$wasmtime_flags node bench/wasip2/http_load.mjs \
  build/wasip2/tests/wasip2/http_server.component.wasm build/wasip3/tests/wasip3/p3_http_server.component.wasm "$runs"

# http_hello (examples/http_hello.c) against the host floor
# (bench/wasip2/floor.c: the same answer, no runtime), 15 interleaved
# rounds of 1,000 requests 50 at a time: req/s, p50/p99, host calls per
# request, and the ratio; on WASI 0.3 the floor is bench/wasip3/floor.c
# (its async export by hand). Under jco (jco serve; preview3-shim's
# HttpServer, the host calls every call into the host: run-p3.mjs
# --trace), then under wasmtime serve.
floor2=(build/wasip2/tests/wasip2/http_floor.component.wasm build/wasip2/tests/wasip2/http_hello.component.wasm 15)
floor3=(--p3 build/wasip3/tests/wasip3/p3_http_floor.component.wasm build/wasip3/tests/wasip3/p3_http_hello.component.wasm 15)
# The hand bindings against wit-bindgen's: the floor on each
# (bench/wasip2/floor_gen.c, bench/wasip3/floor_gen.c) and http_hello,
# release builds: host calls per request and the core module after
# wasm-opt -Oz (bench/wasip2/bindings.mjs), under jco, then wasmtime serve.
for p in wasip2-release wasip3-release; do cmake --preset $p >/dev/null; done
cmake --build --preset wasip2-release --target wasync_http_floor_gen wasync_http_hello >/dev/null
cmake --build --preset wasip3-release --target wasync_p3_http_floor_gen wasync_p3_http_hello >/dev/null
b2=build/wasip2-release/tests/wasip2 b3=build/wasip3-release/tests/wasip3
bind2=("$b2/http_floor.component.wasm" "$b2/http_floor_gen.component.wasm" "$b2/http_hello.component.wasm")
bind3=(--p3 "$b3/p3_http_floor.component.wasm" "$b3/p3_http_floor_gen.component.wasm" "$b3/p3_http_hello.component.wasm")
node bench/wasip2/http_floor.mjs "${floor2[@]}"
node bench/wasip2/http_floor.mjs "${floor3[@]}"
node bench/wasip2/bindings.mjs "${bind2[@]}"
node bench/wasip2/bindings.mjs "${bind3[@]}"
if [ -n "$wasmtime" ]; then
  # (wasmtime serve's defaults, as users deploy: tests/wasip2/runner.mjs)
  export WASYNC_RUNNER=wasmtime WASYNC_WASMTIME=$wasmtime WASYNC_WASMTIME_FLAGS=$wasmtime_flags WASYNC_WASMTIME_SERVE=defaults
  node bench/wasip2/http_floor.mjs "${floor2[@]}"
  node bench/wasip2/http_floor.mjs "${floor3[@]}"
  node bench/wasip2/bindings.mjs "${bind2[@]}"
  node bench/wasip2/bindings.mjs "${bind3[@]}"
fi
