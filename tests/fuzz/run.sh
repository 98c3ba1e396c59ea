#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs every fuzzer (tests/fuzz/fuzz_*.c) for SECONDS each (default 300),
# one after another, in the fuzz preset's build (BUILD, default build/fuzz):
# from its corpus and what earlier runs found (BUILD/tests/fuzz/NAME.found/).
# Prints a line per fuzzer; on a crash, a leak or a failed check, the end of
# its log and the input that did it (BUILD/tests/fuzz/NAME-crash-*); fails
# if any did.
# Usage: tests/fuzz/run.sh [SECONDS [BUILD]]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-300} build=${2:-build/fuzz}
cmake --preset fuzz -B "$build" >/dev/null
cmake --build "$build" --target wasync_fuzzers
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
dir=$build/tests/fuzz
failed=()
for source in tests/fuzz/fuzz_*.c; do
  fuzzer=$(basename "$source" .c)
  mkdir -p "$dir/$fuzzer.found"
  log=$dir/$fuzzer.log
  if "$dir/$fuzzer" -max_total_time="$seconds" -timeout=10 -print_final_stats=1 \
      -artifact_prefix="$dir/$fuzzer-" "$dir/$fuzzer.found" "tests/fuzz/corpus/${fuzzer#fuzz_}" >"$log" 2>&1; then
    echo "$fuzzer: $(grep -m1 '^Done' "$log"); $(grep -m1 DONE "$log" | sed 's/.*DONE *//')"
  else
    echo "$fuzzer: FAILED (log: $log)"
    tail -n 40 "$log"
    failed+=("$fuzzer")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: ${failed[*]} failed; keep the input in tests/fuzz/corpus/NAME/ once fixed" >&2
  exit 1
fi
