#!/bin/sh
# Runs a command and checks its exit code and that its output (stdout and stderr) matches a regex. Usage:
#   expect.sh CODE REGEX [--file PATH [--file-match REGEX]] [--not REGEX] [--skip-if CODE2 REGEX2] -- COMMAND...
# --not REGEX: the output must not match REGEX.
# --file PATH: the command must write PATH; it is deleted first, so that a file left by an earlier run
#   cannot stand in for it. --file-match REGEX: PATH must also hold a line matching REGEX.
# --skip-if CODE2 REGEX2: a run that exits with CODE2 (not CODE) and prints something matching REGEX2 is
#   reported "skipped" (exit 77): a GPU test on a machine without a GPU. The exit code is looked at first, so a
#   run that fails otherwise is a failure whatever it prints.
set -u
code=$1
regex=$2
shift 2
file=""
file_match=""
skip_code=""
skip=""
not=""
while [ "$1" != "--" ]; do
  case "$1" in
    --file) file=$2 && shift 2 ;;
    --file-match) file_match=$2 && shift 2 ;;
    --not) not=$2 && shift 2 ;;
    --skip-if) skip_code=$2 && skip=$3 && shift 3 ;;
    *) echo "expect.sh: unknown option $1" && exit 2 ;;
  esac
done
shift
if [ -n "$file" ]; then
  rm -f "$file" || exit 1
fi
out=$("$@" 2>&1)
got=$?
echo "$out"
if [ "$got" != "$code" ]; then
  if [ -n "$skip" ] && [ "$got" = "$skip_code" ] && printf '%s\n' "$out" | grep -Eq -- "$skip"; then
    echo "expect.sh: SKIPPED (exit $got and the output matches '$skip')"
    exit 77
  fi
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
if [ -n "$file_match" ] && ! grep -Eq -- "$file_match" "$file"; then
  echo "expect.sh: $file has no line matching '$file_match': $*"
  exit 1
fi
echo "expect.sh: ok (exit $got, output matches${file:+, $file written}${file_match:+ and matches})"
