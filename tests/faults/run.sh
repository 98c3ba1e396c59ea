#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Allocation-failure injection, SQLite style: runs every native test binary
# and example of a WASYNC_FAULT_INJECTION build (preset faults: ASan, UBSan,
# LSan) once per allocation N that the library makes, that allocation
# failing (WASYNC_FAIL_AT=N). Each run must end cleanly: exit 0, or a test's
# "N passed, N failed" with exit 1, or an example's exit 1. Anything else
# is a CRASH (a signal, a sanitizer or misuse report), a HANG (the time
# limit) or a LEAK (LeakSanitizer).
#
#   tests/faults/run.sh [-j JOBS] [--full] [--repeat] BUILD [NAME[:N]]...
#
# By default each binary is sampled: every allocation when it makes at most
# $FAULTS_SAMPLE (300), else the first 50 and the rest spread evenly over
# the others; fewer (60 at least) for a binary so slow that they would take
# more than $FAULTS_SECONDS (60) of the jobs' time. --full tries them all. --repeat fails every allocation from
# N on, not only N (SQLite's persistent faults). NAMEs (test_sync, demo...)
# choose the binaries; NAME:N runs that one case and shows its output, to
# reproduce. Prints a table per binary; exits 1 if any run was not OK. The
# logs of those runs stay in BUILD/faults/.
set -uo pipefail

jobs=$(nproc)
full=0
while [ $# -gt 0 ]; do
  case "$1" in
    -j) jobs=$2; shift 2 ;;
    -j*) jobs=${1#-j}; shift ;;
    --full) full=1; shift ;;
    --repeat) export WASYNC_FAIL_REPEAT=1; shift ;;
    -*) set -- ;; # (the usage)
    *) break ;;
  esac
done
[ $# -ge 1 ] || { sed -n '2,18s/^# \{0,1\}//p' "$0" >&2; exit 2; }
build=$(cd "$1" && pwd)
shift
sample=${FAULTS_SAMPLE:-300}
budget=${FAULTS_SECONDS:-60}
logs=$build/faults
mkdir -p "$logs"

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:disable_coredump=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export WASYNC_BUILD=$build WASYNC_LOGS=$logs

# The binaries: every test, and the examples that end on their own.
all=()
for t in "$build"/tests/test_*; do
  [ -x "$t" ] && all+=("$(basename "$t")")
done
all+=(demo offload stdio_copy tcp_echo udp_echo)

# Runs binary $1 with allocation $2 failing (0: none), its output in $3;
# prints its exit status.
run_case() {
  local name=$1 n=$2 log=$3 limit=${4:-60}
  local env=(env WASYNC_FAIL_AT="$n" WASYNC_FAIL_COUNT=1)
  case "$name" in
    demo | offload) timeout -k 2 "$limit" "${env[@]}" "$WASYNC_BUILD/examples/$name" >"$log" 2>&1 ;;
    stdio_copy)
      # pipes both ways: the fds are registered with epoll
      timeout -k 2 "$limit" bash -c 'head -c 1000000 "$1" | "${@:2}" "$1" | cat >/dev/null; exit "${PIPESTATUS[1]}"' \
        _ "$WASYNC_BUILD/examples/stdio_copy" "${env[@]}" >"$log" 2>&1 ;;
    tcp_echo | udp_echo)
      # serves one connection (one datagram): a client sends a line and
      # reads it back, trying again (a few times) if the server dropped it
      timeout -k 2 "$limit" bash -c '
        proto=$1; shift
        out=$(mktemp); "$@" 0 1 >"$out" & pid=$!
        for _ in $(seq 200); do
          grep -q listening "$out" && break
          kill -0 "$pid" 2>/dev/null || break
          sleep 0.05
        done
        port=$(awk "/listening/ {print \$2}" "$out"); rm -f "$out"
        for _ in 1 2 3; do
          [ -n "$port" ] && exec 3<>"/dev/$proto/127.0.0.1/$port" || break
          echo hello >&3
          line=$(timeout 5 head -c 6 <&3) # (one read: a datagram whole)
          exec 3>&-
          [ "$line" = hello ] && break
          sleep 0.1
        done
        wait "$pid"' _ "${name%_echo}" "${env[@]}" "$WASYNC_BUILD/examples/$name" >"$log" 2>&1 ;;
    *) timeout -k 2 "$limit" "${env[@]}" "$WASYNC_BUILD/tests/$name" >"$log" 2>&1 ;;
  esac
  echo $?
}

# OK, CRASH, HANG or LEAK, from a run's exit status and output.
classify() {
  local name=$1 rc=$2 log=$3
  if grep -q "ERROR: LeakSanitizer" "$log"; then
    echo LEAK
  elif grep -qE "ERROR: AddressSanitizer|runtime error:|wasync: misuse" "$log"; then
    echo CRASH
  elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    echo HANG
  elif [ "$rc" = 0 ]; then
    echo OK
  elif [ "$rc" = 1 ] && { [[ $name != test_* ]] || grep -qE "^[0-9]+ passed, [0-9]+ failed$" "$log"; }; then
    echo OK
  else
    echo CRASH
  fi
}

# One case, for xargs: prints "name n class"; keeps the log if not OK.
one() {
  local name=$1 n=$2 limit=$3 log=$WASYNC_LOGS/$1.$2.log
  local rc class
  rc=$(run_case "$name" "$n" "$log" "$limit")
  class=$(classify "$name" "$rc" "$log")
  [ "$class" = OK ] && rm -f "$log"
  echo "$name $n $class"
}
export -f run_case classify one

# How many allocations $1 makes, and how long it takes (milliseconds).
measure() {
  local log=$logs/$1.count.log t0 t1 rc
  t0=$(date +%s%N)
  rc=$(run_case "$1" 0 "$log" 300)
  t1=$(date +%s%N)
  local count
  count=$(sed -n 's/^wasync-faults: \([0-9]*\) allocations$/\1/p' "$log" | tail -1)
  if [ "$rc" != 0 ] || [ -z "$count" ]; then
    echo "$1: fails without any fault (exit $rc), see $log" >&2
    return 1
  fi
  rm -f "$log"
  echo "$count $(((t1 - t0) / 1000000 + 1))"
}

# The allocations to fail out of $1, of a binary that runs for $2 ms.
choose() {
  local count=$1 n=$((budget * 1000 * jobs / $2))
  ((n < 60)) && n=60
  ((n > sample)) && n=$sample
  if [ "$full" = 1 ] || [ "$count" -le "$n" ]; then
    seq 1 "$count"
  else
    seq 1 50
    awk -v c="$count" -v k=$((n - 50)) 'BEGIN { for (i = 1; i <= k; i++) print 50 + int(i * (c - 50) / k) }'
  fi
}

# In a function, read whole before it runs: a long run (--full) is not
# thrown by an edit of this file meanwhile.
main() {
  # NAME:N: one case, its output shown.
  if [ $# -eq 1 ] && [[ $1 == *:* ]]; then
    name=${1%%:*} n=${1##*:}
    log=$logs/$name.$n.log
    rc=$(WASYNC_FAIL_TRACE=1 run_case "$name" "$n" "$log" 300)
    cat "$log"
    class=$(classify "$name" "$rc" "$log")
    echo "$name $n: exit $rc, $class"
    [ "$class" = OK ]
    exit
  fi

  names=("$@")
  [ ${#names[@]} -gt 0 ] || names=("${all[@]}")
  results=$logs/results
  : >"$results"
  status=0
  printf '%-14s %6s %6s %6s %6s %6s %6s %7s\n' binary allocs runs ok crash hang leak seconds
  for name in "${names[@]}"; do
    m=$(measure "$name") || { status=1; continue; }
    read -r count ms <<<"$m"
    t0=$(date +%s)
    choose "$count" "$ms" | sed "s/^/$name /; s/\$/ $((ms / 100 + 10))/" |
      xargs -P "$jobs" -n 3 bash -c 'one "$@"' _ >"$logs/$name.results"
    t1=$(date +%s)
    cat "$logs/$name.results" >>"$results"
    awk -v name="$name" -v count="$count" -v secs=$((t1 - t0)) '
      { runs++; n[$3]++ }
      END { printf "%-14s %6d %6d %6d %6d %6d %6d %7d\n", name, count, runs, n["OK"], n["CRASH"], n["HANG"], n["LEAK"], secs }' \
      "$logs/$name.results"
  done
  if grep -v ' OK$' "$results" | sort -k1,1 -k2,2n >"$logs/failures"; [ -s "$logs/failures" ]; then
    status=1
    echo "not OK (logs in $logs/NAME.N.log; rerun one with: $0 $build NAME:N):"
    sed 's/^/  /' "$logs/failures"
  fi
  exit $status
}

main "$@"
