#!/bin/sh
# What hexcontract says and where: errors after the lines they refer to when stdout and stderr go to one
# file, a failing one-rank run without Open MPI's internal notes, a closed stdout, the checks table, the
# CUDA backend on a machine without an NVIDIA driver. Usage:
#   messages.sh CASE HEXCONTRACT WORK_DIR
# CASE: error_order | one_rank_fails | closed_stdout | checks_table | demo_help | no_driver
set -u
case_name=$1
exe=$2
work=$3/$case_name
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1
backend=${HC_TEST_RUN_BACKEND:-serial}
small="--set run.backend=$backend --set mesh.cells=4,3,3 --set run.steps=2 --set output.dir=$work"

fail() {
  echo "messages.sh $case_name: FAILED: $*"
  exit 1
}

# line_of REGEX FILE: the number of the first line matching REGEX (0 if none).
line_of() { grep -n -E -m1 -- "$1" "$2" | cut -d: -f1 | grep . || echo 0; }

# Open MPI's own notes, which a one-rank run that ends through MPI_Finalize never prints.
mpi_notes='MPI_ABORT|MPI_Abort|PMIx|PMIX|prterun|mpirun has exited|ORTE_ERROR_LOG|exiting improperly|orterun'

case "$case_name" in
  error_order)
    # bench with a result made wrong on purpose: its error comes after the summary and the files written,
    # also with both streams in one file (stdout is buffered there, stderr is not).
    HC_BENCH_TEST_PERTURB=auto "$exe" bench --backend serial --kernel DataDataScalar --shapes 8,8 --cells 20 \
      --memory-gb 0.001 --repeat 3 --out "$work/bench" > both.txt 2>&1
    code=$?
    cat both.txt
    [ "$code" = 1 ] || fail "exit code $code, expected 1"
    err=$(line_of 'hexcontract: error: .*disagreed' both.txt)
    [ "$err" -gt 0 ] || fail "no error line"
    for before in '^Summary' 'cases in' '^wrote .*bench.csv'; do
      at=$(line_of "$before" both.txt)
      [ "$at" -gt 0 ] || fail "no line matching '$before'"
      [ "$at" -lt "$err" ] || fail "the error (line $err) comes before '$before' (line $at)"
    done
    # The proxy run: a failed self-check is said after the checks table and the results line.
    "$exe" $small --set checks.tolerance_factor=1e-30 --set output.results=fails.yaml > run.txt 2>&1
    code=$?
    cat run.txt
    [ "$code" = 1 ] || fail "a failing check gave exit code $code, expected 1"
    err=$(line_of 'error: a self-check failed' run.txt)
    at=$(line_of '^results: ' run.txt)
    [ "$err" -gt 0 ] && [ "$at" -gt 0 ] && [ "$at" -lt "$err" ] || fail "the check error is not after 'results:'"
    ;;
  one_rank_fails)
    # A failure on the only rank: its message after the lines before it, the documented exit code, and none
    # of Open MPI's notes (MPI_Abort, or an exit without MPI_Finalize).
    for spec in "rank=0,phase=step,step=2,kind=runtime 1 runtime failure at step 2" \
      "rank=0,phase=setup,kind=alloc 3 out of host memory while setting up" \
      "rank=0,phase=checks,kind=input 2 bad input found late in the self-checks" \
      "rank=0,phase=results,kind=alloc 3 out of host memory while writing the results file"; do
      set -- $spec
      inject=$1
      want=$2
      shift 2
      msg=$*
      rm -f "$work/inject.yaml"
      HC_INJECT_FAILURE=$inject "$exe" $small --set output.results=inject.yaml > out.txt 2>&1
      code=$?
      cat out.txt
      [ "$code" = "$want" ] || fail "HC_INJECT_FAILURE=$inject: exit code $code, expected $want"
      err=$(line_of "error on rank 0: $msg" out.txt)
      [ "$err" -gt 0 ] || fail "HC_INJECT_FAILURE=$inject: no message '$msg'"
      [ "$(line_of '^steps: ' out.txt)" -lt "$err" ] || fail "HC_INJECT_FAILURE=$inject: the error is not after the header"
      if grep -E -q -- "$mpi_notes" out.txt; then fail "HC_INJECT_FAILURE=$inject: Open MPI's notes in the output"; fi
      [ ! -e "$work/inject.yaml" ] || fail "HC_INJECT_FAILURE=$inject: a results file was written"
    done
    ;;
  closed_stdout)
    # stdout a pipe whose reader has gone (hexcontract ... | head -1): no SIGPIPE death; the run writes its
    # results file, says on stderr that output was lost, and exits with its own code. The child gets the
    # default SIGPIPE action whatever the test harness set (env --default-signal, coreutils 8.31).
    sigdfl=""
    env --default-signal=PIPE true 2>/dev/null && sigdfl="env --default-signal=PIPE"
    closed() { # closed OUT_STDERR CMD...
      errf=$1
      shift
      rm -f fifo
      mkfifo fifo || fail "mkfifo"
      head -c 0 < fifo &
      reader=$!
      exec 3> fifo
      wait "$reader" # the reader has exited: every write to fd 3 is EPIPE
      $sigdfl "$@" >&3 2> "$errf"
      code=$?
      exec 3>&-
      cat "$errf"
      return $code
    }
    closed run.err "$exe" $small --set output.results=closed.yaml
    code=$?
    [ "$code" = 0 ] || fail "the run with a closed stdout exited $code, expected 0"
    [ -s "$work/closed.yaml" ] || fail "no results file after a run with a closed stdout"
    grep -q '^status: passed' "$work/closed.yaml" || fail "the results file does not say passed"
    grep -q 'warning: standard output could not be written.*closed.yaml' run.err || fail "no warning on stderr"
    closed bench.err "$exe" bench --backend serial --kernel DataDataScalar --shapes 8,8 --cells 20 --memory-gb 0.001 \
      --repeat 3 --out "$work/bench"
    code=$?
    [ "$code" = 0 ] || fail "bench with a closed stdout exited $code, expected 0"
    [ -s "$work/bench/bench.yaml" ] || fail "no bench.yaml after a bench with a closed stdout"
    grep -q 'warning: standard output could not be written' bench.err || fail "no warning from bench on stderr"
    ;;
  checks_table)
    # Columns aligned whatever the names' lengths (zero_row_sum:FieldFieldVector is the longest), and the
    # value and expected value printed to the digits that read back as the results file's doubles.
    "$exe" $small --set output.results=table.yaml > out.txt 2>&1 || fail "the run failed"
    cat out.txt
    sed -n '/^checks /,/^$/p' out.txt | grep '^  ' > table.txt
    [ "$(wc -l < table.txt)" -ge 6 ] || fail "no checks table"
    grep -q 'zero_row_sum:FieldFieldVector' table.txt || fail "no long check name in the table"
    for word in ' value ' ' expected ' ' tolerance ' ' ('; do
      n=$(awk -v w="$word" '{ print index($0, w) }' table.txt | sort -u | wc -l)
      [ "$n" = 1 ] || fail "column '$word' is not aligned"
    done
    # Printed value and expected against the results file (a shortest round-trip form there).
    awk 'FNR == NR { name = $1; for (i = 1; i <= NF; i++) { if ($i == "value") v[name] = $(i + 1); if ($i == "expected") e[name] = $(i + 1) } next }
            /^[a-z]/ { in_checks = $1 == "checks:"; cur = ""; next }
      in_checks && /^  [a-zA-Z_:]+:$/ { cur = $1; sub(/:$/, "", cur); next }
      cur != "" && $1 == "value:" { if (!(cur in v) || v[cur] + 0 != $2 + 0) { print cur ": value " v[cur] " != " $2; bad = 1 } seen++ }
      cur != "" && $1 == "expected:" { if (!(cur in e) || e[cur] + 0 != $2 + 0) { print cur ": expected " e[cur] " != " $2; bad = 1 } }
      END { if (seen < 6) { print "only " seen " checks compared"; bad = 1 } exit bad }' table.txt "$work/table.yaml" ||
      fail "printed values differ from the results file's"
    ;;
  demo_help)
    "$exe" demo --help > out.txt 2>&1 || fail "demo --help failed"
    cat out.txt
    grep -q '^Usage: hexcontract demo \[--backend NAME\] \[--cells N\]$' out.txt || fail "wrong usage line"
    grep -q '^Exit codes: 0 ' out.txt || fail "no exit codes"
    for code in 1 2 3; do grep -q "[;:] $code " out.txt || fail "exit code $code not listed"; done
    ;;
  no_driver)
    # The CUDA backend without an NVIDIA driver (libcuda.so.1 not loadable) says so, not "driver version is
    # insufficient"; with a driver, no such claim. Detected here independently of the program.
    have_driver=0
    if /sbin/ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then have_driver=1; fi
    for d in $(echo "${LD_LIBRARY_PATH:-}" | tr ':' ' '); do [ -e "$d/libcuda.so.1" ] && have_driver=1; done
    "$exe" demo --backend cuda --cells 10 > out.txt 2>&1
    code=$?
    cat out.txt
    if [ "$have_driver" = 0 ]; then
      [ "$code" = 3 ] || fail "no driver: exit code $code, expected 3"
      grep -q 'no usable CUDA device: no NVIDIA driver found (libcuda.so.1' out.txt || fail "no driver not named"
      if grep -q 'insufficient' out.txt; then fail "no driver reported as an insufficient driver"; fi
      "$exe" $small --set run.backend=cuda > run.txt 2>&1
      code=$?
      cat run.txt
      [ "$code" = 3 ] || fail "the run without a driver: exit code $code, expected 3"
      grep -q 'error on rank 0: no usable CUDA device: no NVIDIA driver found' run.txt || fail "the run does not say it"
    else
      echo "messages.sh: libcuda.so.1 is present: checking that no missing driver is claimed"
      if grep -q 'no NVIDIA driver found' out.txt; then fail "a driver is present but said missing"; fi
      [ "$code" = 0 ] || grep -q 'no usable CUDA device: ' out.txt || fail "exit code $code without a reason"
    fi
    ;;
  *)
    fail "unknown case"
    ;;
esac
echo "messages.sh $case_name: ok"
