# Helpers shared by the shell tests, sourced after setting hc_test_name (the name failures are reported under).

# fail MESSAGE: reports the failure and ends the test.
fail() {
  echo "$hc_test_name: FAILED: $*"
  exit 1
}

# run CODE REGEX CMD...: CMD must exit with CODE and print something matching REGEX.
run() {
  want=$1
  regex=$2
  shift 2
  out=$("$@" 2>&1)
  got=$?
  echo "$out"
  [ "$got" = "$want" ] || fail "exit code $got, expected $want: $*"
  printf '%s\n' "$out" | grep -Eq -- "$regex" || fail "the output does not match '$regex': $*"
}
