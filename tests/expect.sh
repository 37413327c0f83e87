#!/bin/sh
# Runs a command and checks its exit code and that its output (stdout and stderr) matches a regex,
# and optionally that a file exists afterwards. With --skip-if, output matching that regex makes the
# test report "skipped" (exit 77) instead: a GPU test on a machine without a GPU. Usage:
#   expect.sh CODE REGEX [--file PATH] [--skip-if REGEX] -- COMMAND...
set -u
code=$1
regex=$2
shift 2
file=""
skip=""
while [ "$1" = "--file" ] || [ "$1" = "--skip-if" ]; do
  if [ "$1" = "--file" ]; then file=$2; else skip=$2; fi
  shift 2
done
[ "$1" = "--" ] && shift
out=$("$@" 2>&1)
got=$?
echo "$out"
if [ -n "$skip" ] && printf '%s\n' "$out" | grep -Eq -- "$skip"; then
  echo "expect.sh: skipped (the output matches '$skip')"
  exit 77
fi
if [ "$got" != "$code" ]; then
  echo "expect.sh: exit code $got, expected $code: $*"
  exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq -- "$regex"; then
  echo "expect.sh: the output does not match '$regex': $*"
  exit 1
fi
if [ -n "$file" ] && [ ! -f "$file" ]; then
  echo "expect.sh: $file was not written: $*"
  exit 1
fi
echo "expect.sh: ok (exit $got, output matches)"
