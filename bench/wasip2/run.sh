#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/wasip2/run.sh [OUT_DIR]: the guest-side cost of one wakeup with K
# idle pollables registered (K = 10, 1000, 10000), for the wasip2 backend's
# persistent pollable set and for a rebuild-every-wait baseline (naive.c),
# natively against a fake host (fake_host.c, linked in place of
# src/host/wasip2/io.c). Builds with clang-19 -O2 and prints, per K:
# callgrind instructions per wakeup (exact; the fake host's own work is not
# counted), their growth against K = 10, the host calls per wakeup, and ns
# per wakeup (median of RUNS=5 runs; includes the fake host's O(1) work).
#
# Rows: "ours" and "naive" are driven the same minimal way (wait, poll the
# woken future, await again); "exec" is the backend under the real runtime
# (wait + wa_rt_tick, the woken task re-awaits). Second table: the same with
# one timer pending (the runtime's deadline). M=10000 wakeups per
# measurement; CALLGRIND=0 skips the instruction counts.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-${TMPDIR:-/tmp}/wasip2-bench}
runs=${RUNS:-5}
m=${M:-10000}
cc=${CC:-clang-19}
ks=(10 1000 10000)
variants=(ours naive ours-exec)
flags=(-O2 -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-missing-field-initializers
  -I"$root/include")
mkdir -p "$out"
rm -f "$out"/res.*

# The real backend (which is the default one) and the rest of the library
# (not epoll.c, io.c or cabi.c: fake_host.c is the host).
src=("$root"/src/core/*.c "$root"/src/threads/*.c "$root"/src/sync/*.c "$root/src/host/wasip2/reactor.c" "$root/src/reactor/regs.c"
  "$root/src/reactor/sim.c" "$root/src/reactor/log_stderr.c" "$root/src/host/posix/trace_sink.c")
"$root/bench/config.sh" "$out/include" # (a native build's config header)
$cc "${flags[@]}" -I"$out/include" "$here/wakeup.c" "$here/fake_host.c" "$here/naive.c" "${src[@]}" -o "$out/wasip2-wakeup"
bin=$out/wasip2-wakeup

field() { tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p"; }
median() { sort -g | awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
ir() {
  valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
    sed -n 's/.*refs: *//p' | tr -d ,
}
have_cg=1
{ [ "${CALLGRIND:-1}" = 0 ] || ! command -v valgrind >/dev/null; } && have_cg=0

fail=0
for timer in "" timer; do
  # wall time: interleaved runs, so drift hits every variant alike
  for ((r = 0; r < runs; r++)); do
    for k in "${ks[@]}"; do
      for v in "${variants[@]}"; do
        "$bin" "$v" "$k" "$m" $timer >>"$out/res.$v.$k.${timer:-none}"
      done
    done
  done
  declare -A irs=() ns=() calls=()
  for k in "${ks[@]}"; do
    for v in "${variants[@]}"; do
      f=$out/res.$v.$k.${timer:-none}
      ns[$v.$k]=$(while read -r l; do field ns_per_op "$l"; done <"$f" | median)
      l=$(head -1 "$f")
      calls[$v.$k]=$(printf '%g/%g/%g/%g' "$(field polls_per_op "$l")" "$(field subscribes_per_op "$l")" \
        "$(field drops_per_op "$l")" "$(field nows_per_op "$l")")
      irs[$v.$k]=-
      [ $have_cg = 1 ] && irs[$v.$k]=$(awk -v a="$(ir "$bin" "$v" "$k" "$m" $timer)" -v n="$m" 'BEGIN {printf "%.1f", a / n}')
    done
  done
  ratio() { [ "${irs[$1.$2]}" = - ] && echo - || awk -v a="${irs[$1.$2]}" -v b="${irs[$1.10]}" 'BEGIN {printf "%.2f", a / b}'; }

  echo
  echo "wakeups with K idle pollables registered, ${timer:+one timer pending, }M=$m (Ir: guest instructions per wakeup; calls: host calls per wakeup, poll/subscribe/drop/now)"
  printf '%6s | %9s %10s %9s | %9s %10s %9s | %-9s %-9s %-9s | %8s %8s %8s\n' K "ours Ir" "naive Ir" "exec Ir" \
    "ours K/10" "naive K/10" "exec K/10" "ours" "naive" "exec" "ours ns" "naive ns" "exec ns"
  for k in "${ks[@]}"; do
    printf '%6s | %9s %10s %9s | %9s %10s %9s | %-9s %-9s %-9s | %8s %8s %8s\n' "$k" \
      "${irs[ours.$k]}" "${irs[naive.$k]}" "${irs[ours-exec.$k]}" \
      "$(ratio ours "$k")" "$(ratio naive "$k")" "$(ratio ours-exec "$k")" \
      "${calls[ours.$k]}" "${calls[naive.$k]}" "${calls[ours-exec.$k]}" \
      "${ns[ours.$k]}" "${ns[naive.$k]}" "${ns[ours-exec.$k]}"
  done
  if [ $have_cg = 1 ]; then
    awk -v o="$(ratio ours 10000)" -v e="$(ratio ours-exec 10000)" \
      -v a="${irs[naive.1000]}" -v b="${irs[naive.10000]}" -v c="${irs[naive.10]}" 'BEGIN {
        printf "ours at K=10000 vs K=10: %.2fx (exec %.2fx), limit 2x: %s; naive: +%.1f Ir per idle pollable per wakeup (K 1000 -> 10000), K=10000/K=1000 = %.2f\n",
          o, e, (o <= 2 && e <= 2) ? "met" : "NOT MET", (b - a) / 9000, b / a }'
    awk -v o="$(ratio ours 10000)" -v e="$(ratio ours-exec 10000)" 'BEGIN {exit !(o <= 2 && e <= 2)}' || fail=1
  fi
done
exit $fail
