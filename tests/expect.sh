#!/bin/sh
# Runs a command and checks its exit code and that its output (stdout and stderr) matches a regex,
# and optionally that a file exists afterwards. Usage:
#   expect.sh CODE REGEX [--file PATH] -- COMMAND...
set -u
code=$1
regex=$2
shift 2
file=""
if [ "$1" = "--file" ]; then
  file=$2
  shift 2
fi
[ "$1" = "--" ] && shift
out=$("$@" 2>&1)
got=$?
echo "$out"
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
