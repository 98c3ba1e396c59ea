#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# examples/graceful_shutdown.c natively: a connection's line is echoed;
# then SIGNAL (INT or TERM) to the process: the connection reads "bye",
# the server prints "SIGNAL: draining" and "drained", and exits 0.
#   tests/graceful_shutdown.sh PROGRAM SIGNAL [WORKERS]
set -u
prog=$1 sig=$2 workers=${3:-0}
out=$(mktemp)
fail() {
  echo "FAIL: $*"
  cat "$out"
  kill -9 "$pid" 2>/dev/null
  rm -f "$out"
  exit 1
}
"$prog" 0 "$workers" >"$out" 2>&1 &
pid=$!
for _ in $(seq 200); do
  grep -q listening "$out" && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.05
done
port=$(awk '/listening/ {print $2}' "$out")
[ -n "$port" ] || fail "no port"
exec 3<>"/dev/tcp/127.0.0.1/$port" || fail "no connection"
echo hello >&3
read -r -t 10 line <&3
[ "$line" = hello ] || fail "echoed '$line'"
kill -"$sig" "$pid"
read -r -t 10 line <&3
[ "$line" = bye ] || fail "after SIG$sig: '$line'"
exec 3>&-
wait "$pid"
rc=$?
[ "$rc" -eq 0 ] || fail "exit status $rc"
grep -qx "SIG$sig: draining" "$out" || fail "no 'SIG$sig: draining'"
grep -qx "drained" "$out" || fail "no 'drained'"
rm -f "$out"
echo "graceful_shutdown SIG$sig, $workers workers: ok"
