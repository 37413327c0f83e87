#!/bin/sh
# Runs a command that must fail: checks its exit code, that its output matches a regex, that it ended within
# a time limit (no rank left waiting), and that no results file (nor a temporary one) was left. Usage:
#   failure.sh CODE REGEX RESULTS_FILE SECONDS -- COMMAND...
set -u
code=$1
regex=$2
results=$3
limit=$4
shift 4
[ "$1" = "--" ] && shift
rm -f "$results" "$results".tmp.*
start=$(date +%s)
out=$("$@" 2>&1)
got=$?
elapsed=$(($(date +%s) - start))
echo "$out"
fail=0
if [ "$got" != "$code" ]; then
  echo "failure.sh: exit code $got, expected $code"
  fail=1
fi
if ! printf '%s\n' "$out" | grep -Eq -- "$regex"; then
  echo "failure.sh: the output does not match '$regex'"
  fail=1
fi
if [ "$elapsed" -gt "$limit" ]; then
  echo "failure.sh: took $elapsed s, more than $limit s"
  fail=1
fi
for f in "$results" "$results".tmp.*; do
  if [ -e "$f" ]; then
    echo "failure.sh: $f was left behind"
    fail=1
  fi
done
[ "$fail" = 0 ] && echo "failure.sh: ok (exit $got in $elapsed s, output matches, no results file)"
exit "$fail"
