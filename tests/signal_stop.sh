#!/bin/sh
# Sends a signal to a running proxy run once it is in its timestep loop, and checks that it stops at a step
# boundary with the expected exit code and a results file marked incomplete. Usage:
#   signal_stop.sh SIGNAL TARGET CODE RESULTS_FILE -- COMMAND...
# TARGET: "self" signals COMMAND's process (hexcontract itself, or mpirun), "children" its child processes
# (the ranks that mpirun started). CODE: the exit code, or "nonzero". COMMAND must print progress lines
# ("hexcontract: step ...", run.progress > 0) and run far longer than the test.
set -u
sig=$1
target=$2
code=$3
results=$4
shift 4
[ "$1" = "--" ] && shift
log=$(mktemp)
trap 'rm -f "$log"' EXIT
rm -f "$results" "$results".tmp.*
"$@" >"$log" 2>&1 &
pid=$!
# Wait (at most 60 s) until the run is stepping.
i=0
until grep -q "hexcontract: step" "$log"; do
  i=$((i + 1))
  if [ "$i" -gt 600 ] || ! kill -0 "$pid" 2>/dev/null; then
    cat "$log"
    echo "signal_stop.sh: the run did not reach its timestep loop"
    kill -KILL "$pid" 2>/dev/null
    exit 1
  fi
  sleep 0.1
done
if [ "$target" = children ]; then
  pids=$(pgrep -P "$pid")
  [ -n "$pids" ] || { echo "signal_stop.sh: $pid has no child processes"; kill -KILL "$pid"; exit 1; }
else
  pids=$pid
fi
echo "signal_stop.sh: sending SIG$sig to $pids"
kill -"$sig" $pids
# It must stop within 30 s (one step, the results file).
i=0
while kill -0 "$pid" 2>/dev/null; do
  i=$((i + 1))
  if [ "$i" -gt 300 ]; then
    cat "$log"
    echo "signal_stop.sh: still running 30 s after the signal"
    kill -KILL "$pid"
    exit 1
  fi
  sleep 0.1
done
wait "$pid"
got=$?
grep -v "^hexcontract: step" "$log" | tail -n 20
fail=0
if [ "$code" = nonzero ] && [ "$got" = 0 ] || [ "$code" != nonzero ] && [ "$got" != "$code" ]; then
  echo "signal_stop.sh: exit code $got, expected $code"
  fail=1
fi
if ! grep -q "^status: incomplete" "$results" 2>/dev/null; then
  echo "signal_stop.sh: $results is missing or not marked 'status: incomplete'"
  fail=1
elif ! grep -Eq "^  timed_steps: [0-9]+" "$results" || ! grep -q "^stopped_by: SIG$sig" "$results"; then
  echo "signal_stop.sh: $results lacks timed_steps or 'stopped_by: SIG$sig'"
  fail=1
fi
for f in "$results".tmp.*; do
  [ -e "$f" ] && { echo "signal_stop.sh: $f was left behind"; fail=1; }
done
[ "$fail" = 0 ] && echo "signal_stop.sh: ok (exit $got, $(grep -E '^  timed_steps' "$results" | tr -d ' '))"
exit "$fail"
