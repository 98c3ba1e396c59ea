#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/timerq/run.sh [OUT_DIR]: builds the heap and wheel drivers with
# clang-19 -O2, checks both against the model (check.c), runs every workload
# RUNS times (11 by default; interleaved, so drift hits both alike), and
# prints the median ns/op, callgrind instructions per op (CALLGRIND=0 skips
# them) and the code size of each queue for x86-64 and wasm32.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-${TMPDIR:-/tmp}/timerq}
runs=${RUNS:-11}
cc=${CC:-clang-19}
size=${SIZE:-llvm-size-19}
impls=(heap wheel)
workloads=("insert_fire 100000" "insert_fire 1000000" "insert_fire_ms 100000" "insert_cancel 100000" "churn 100000" "next_deadline 100000")
flags=(-O2 -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes)
mkdir -p "$out"
rm -f "$out"/res.*

def() { if [ "$1" = wheel ]; then echo -DTQ_WHEEL; fi; }
for i in "${impls[@]}"; do
  $cc "${flags[@]}" $(def "$i") "$here/timerq_bench.c" "$here/$i.c" -o "$out/timerq-bench-$i"
  $cc "${flags[@]}" $(def "$i") "$here/check.c" "$here/$i.c" -o "$out/timerq-check-$i"
  "$out/timerq-check-$i"
done

# field NAME LINE: the value of NAME=... in a result line
field() { tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p"; }
median() { sort -g | awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
key() { tr ' ' . <<<"$1"; }

for ((r = 0; r < runs; r++)); do
  for w in "${workloads[@]}"; do
    for i in "${impls[@]}"; do
      "$out/timerq-bench-$i" $w >>"$out/res.$i.$(key "$w")"
    done
  done
done

# Both builds do the same work: fired timers and the order-blind checksum of
# (timer, firing ms) must agree (next_deadline's sum is of the answers,
# which differ by design: exact ns against the ms bucket).
for w in "${workloads[@]}"; do
  [ "${w%% *}" = next_deadline ] && continue
  a=$(head -1 "$out/res.heap.$(key "$w")") b=$(head -1 "$out/res.wheel.$(key "$w")")
  if [ "$(field checksum "$a") $(field fired "$a")" != "$(field checksum "$b") $(field fired "$b")" ]; then
    echo "mismatch on $w:"$'\n'"$a"$'\n'"$b" >&2
    exit 1
  fi
done

# Instructions in the timed region only (client requests), per operation.
ir() {
  valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
    sed -n 's/.*refs: *//p' | tr -d ,
}

printf '\n%-22s %12s %12s %8s %11s %11s\n' workload "heap ns/op" "wheel ns/op" "speedup" "heap Ir/op" "wheel Ir/op"
for w in "${workloads[@]}"; do
  n=${w##* }
  declare -A ns=() irs=()
  for i in "${impls[@]}"; do
    ns[$i]=$(while read -r l; do field ns_per_op "$l"; done <"$out/res.$i.$(key "$w")" | median)
    irs[$i]=-
    if [ "${CALLGRIND:-1}" != 0 ] && command -v valgrind >/dev/null; then
      irs[$i]=$(awk -v a="$(ir "$out/timerq-bench-$i" $w)" -v n="$n" 'BEGIN {printf "%.0f", a / n}')
    fi
  done
  printf '%-22s %12.1f %12.1f %7.2fx %11s %11s\n' "$w" "${ns[heap]}" "${ns[wheel]}" \
    "$(awk -v h="${ns[heap]}" -v w="${ns[wheel]}" 'BEGIN {print h / w}')" "${irs[heap]}" "${irs[wheel]}"
done

# Code size of the queue alone. There is no wasm libc here: a stub header
# declares the two allocator calls the heap makes.
mkdir -p "$out/wasm-include"
printf '#include <stddef.h>\nvoid *realloc(void *, size_t);\nvoid free(void *);\n' >"$out/wasm-include/stdlib.h"
code() { $cc "$@" -o "$out/size.o" && $size -A "$out/size.o" | awk '$1 == ".text" || $1 == "CODE" {print $2}'; }
printf '\n%-6s %14s %14s %14s %14s %11s\n' impl "x86-64 -O2" "x86-64 -Os" "wasm32 -O2" "wasm32 -Os" "entry bytes"
for i in "${impls[@]}"; do
  printf '%-6s %14s %14s %14s %14s %11s\n' "$i" \
    "$(code -O2 -c "$here/$i.c")" "$(code -Os -c "$here/$i.c")" \
    "$(code --target=wasm32 -nostdlib -isystem "$out/wasm-include" -O2 -c "$here/$i.c")" \
    "$(code --target=wasm32 -nostdlib -isystem "$out/wasm-include" -Os -c "$here/$i.c")" \
    "$(field entry_bytes "$(head -1 "$out/res.$i.insert_fire.100000")")"
done
