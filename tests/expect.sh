#!/bin/sh
# Runs a command and checks its exit code and that its output (stdout and stderr) matches a regex,
# and optionally that a file exists afterwards and that the output does not match another regex (--not).
# With --skip-if, output matching that regex makes the test report "skipped" (exit 77) instead: a GPU test
# on a machine without a GPU. Usage:
#   expect.sh CODE REGEX [--file PATH] [--not REGEX] [--skip-if REGEX] -- COMMAND...
set -u
code=$1
regex=$2
shift 2
file=""
skip=""
not=""
while [ "$1" = "--file" ] || [ "$1" = "--skip-if" ] || [ "$1" = "--not" ]; do
  case "$1" in
    --file) file=$2 ;;
    --not) not=$2 ;;
    *) skip=$2 ;;
  esac
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
if [ -n "$not" ] && printf '%s\n' "$out" | grep -Eq -- "$not"; then
  echo "expect.sh: the output matches '$not', which it must not: $*"
  exit 1
fi
if [ -n "$file" ] && [ ! -f "$file" ]; then
  echo "expect.sh: $file was not written: $*"
  exit 1
fi
echo "expect.sh: ok (exit $got, output matches)"
