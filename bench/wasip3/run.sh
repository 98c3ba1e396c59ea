#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/wasip3/run.sh [OUT_DIR] [WASIP2_WAKEUP]: the guest-side cost of one
# event dispatch on WASI 0.3: the wasip3 backend and the subtask futures under
# the real runtime, natively against a fake 0.3 host (fake_host.c, linked in
# place of src/host/wasip3/builtins.c). Builds with clang-19 -O2 and prints,
# per workload, callgrind instructions per dispatch (exact; the fake host's
# own work is not counted), the host calls per dispatch and ns per dispatch
# (median of RUNS=5 runs), beside the 0.2 backend's per wakeup under the
# runtime (bench/wasip2's ours-exec, K idle pollables) when WASIP2_WAKEUP, the
# binary bench/wasip2/run.sh built, is given.
#
# Workloads: a wakeup of one of K waiting subtasks (K = 1, 100, 10000), and
# one timer expiry (a 1 ms sleep in a loop; the fake clock moves). M=10000
# dispatches per measurement; CALLGRIND=0 skips the instruction counts.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-${TMPDIR:-/tmp}/wasip3-bench}
p2=${2:-}
runs=${RUNS:-5}
m=${M:-10000}
cc=${CC:-clang-19}
flags=(-O2 -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-missing-field-initializers
  -I"$root/include")
mkdir -p "$out"
rm -f "$out"/res.*

# The real backend (which is the default one), the subtask future and the
# rest of the library (as bench/wasip2/run.sh: fake_host.c is the host),
# with a native build's config header.
"$root/bench/config.sh" "$out/include"
src=("$root"/src/core/*.c "$root"/src/threads/*.c "$root"/src/sync/*.c "$root/src/io/stream.c" "$root/src/io/pipe.c"
  "$root/src/reactor/regs.c" "$root/src/host/wasip3/reactor.c" "$root/src/host/wasip3/subtask.c"
  "$root/src/reactor/sim.c" "$root/src/reactor/log_stderr.c" "$root/src/host/posix/trace_sink.c")
$cc "${flags[@]}" -I"$out/include" "$here/dispatch.c" "$here/fake_host.c" "${src[@]}" -o "$out/wasip3-dispatch"
bin=$out/wasip3-dispatch

field() { tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p"; }
median() { sort -g | awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
ir() {
  valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
    sed -n 's/.*refs: *//p' | tr -d ,
}
have_cg=1
{ [ "${CALLGRIND:-1}" = 0 ] || ! command -v valgrind >/dev/null; } && have_cg=0

# name | 0.3 arguments | 0.2 arguments (or none)
work=("subtask K=1|subtask 1 $m|ours-exec 1 $m" "subtask K=100|subtask 100 $m|ours-exec 100 $m"
  "subtask K=10000|subtask 10000 $m|ours-exec 10000 $m" "timer expiry|timer $m|")
for ((r = 0; r < runs; r++)); do
  for i in "${!work[@]}"; do
    IFS='|' read -r _ a3 a2 <<<"${work[$i]}"
    "$bin" $a3 >>"$out/res.3.$i"
    [ -n "$p2" ] && [ -n "$a2" ] && "$p2" $a2 >>"$out/res.2.$i"
  done
done

echo
echo "WASI 0.3: one event dispatch (backend wait + tick), M=$m, against a fake host; beside it the 0.2 backend's wakeup with K idle pollables"
echo "(Ir: guest instructions per dispatch; calls: host calls per dispatch, async-lowered/I-O call/wait/poll/join/drop/now)"
printf '%-16s | %9s %-15s %8s | %9s %-9s %8s\n' workload "0.3 Ir" "0.3 calls" "0.3 ns" "0.2 Ir" "0.2 calls" "0.2 ns"
for i in "${!work[@]}"; do
  IFS='|' read -r name a3 a2 <<<"${work[$i]}"
  l=$(head -1 "$out/res.3.$i")
  calls3=$(printf '%g/%g/%g/%g/%g/%g/%g' "$(field async_per_op "$l")" "$(field io_per_op "$l")" \
    "$(field waits_per_op "$l")" "$(field polls_per_op "$l")" "$(field joins_per_op "$l")" \
    "$(field drops_per_op "$l")" "$(field nows_per_op "$l")")
  ns3=$(while read -r x; do field ns_per_op "$x"; done <"$out/res.3.$i" | median)
  ir3=-
  [ $have_cg = 1 ] && ir3=$(awk -v a="$(ir "$bin" $a3)" -v n="$m" 'BEGIN {printf "%.1f", a / n}')
  ir2=- calls2=- ns2=-
  if [ -n "$p2" ] && [ -n "$a2" ]; then
    l=$(head -1 "$out/res.2.$i")
    calls2=$(printf '%g/%g/%g/%g' "$(field polls_per_op "$l")" "$(field subscribes_per_op "$l")" \
      "$(field drops_per_op "$l")" "$(field nows_per_op "$l")")
    ns2=$(while read -r x; do field ns_per_op "$x"; done <"$out/res.2.$i" | median)
    [ $have_cg = 1 ] && ir2=$(awk -v a="$(ir "$p2" $a2)" -v n="$m" 'BEGIN {printf "%.1f", a / n}')
  fi
  printf '%-16s | %9s %-15s %8s | %9s %-9s %8s\n' "$name" "$ir3" "$calls3" "$ns3" "$ir2" "$calls2" "$ns2"
done
echo "(0.2 calls: poll/subscribe/drop/now; 0.2 has no timer-expiry workload: its wakeup bench keeps one timer an hour away)"
