#!/bin/sh
# Checks hexcontract report and run_scripts/scaling.sh end to end. Usage:
#   test_report.sh CASE HEXCONTRACT SOURCE_DIR WORK_DIR
# CASE: weak | strong (fixture sweeps: files written, efficiency computed right), mixed, cells, schema,
# duplicate, empty, missing_dir, no_gnuplot, scaling_weak, scaling_fails, bad_times, out_created.
set -u
case_name=$1
exe=$2
src=$3
work=$4/$case_name
data=$src/tests/data/results
rm -rf "$work"
mkdir -p "$work/in" "$work/out"

hc_test_name="test_report.sh $case_name"
. "$src/tests/lib.sh"

# The value of a top-level-indented key in a results file: "  seconds_per_step: 0.0123" -> 0.0123.
value() { grep -m1 "^  $2: " "$1" | sed "s/^  $2: //"; }

# Efficiency in report.csv (column 13) against the one computed here from the results files.
check_efficiency() {
  mode=$1
  dir=$2
  t1=$(value "$dir/run_np1.yaml" seconds_per_step)
  for np in 2 3; do
    tn=$(value "$dir/run_np$np.yaml" seconds_per_step)
    got=$(grep "^\"run_np$np.yaml\"," "$work/out/report.csv" | cut -d, -f13)
    [ -n "$got" ] || fail "no row for run_np$np.yaml in report.csv"
    awk -v m="$mode" -v t1="$t1" -v tn="$tn" -v n="$np" -v got="$got" 'BEGIN {
      want = (m == "weak") ? t1 / tn : t1 / (tn * n);
      d = got - want; if (d < 0) d = -d;
      printf("%s efficiency on %d ranks: report %s, computed %.6f\n", m, n, got, want);
      exit (d <= 1e-6 + 1e-5 * want) ? 0 : 1 }' || fail "efficiency of run_np$np.yaml"
    pct=$(awk -v g="$got" 'BEGIN { printf("%.1f%%", 100 * g) }')
    grep -q "^| $np | .* | $pct | " "$work/out/report.md" || fail "report.md has no row for $np ranks with $pct"
  done
}

case "$case_name" in
  weak | strong)
    run 0 "$case_name scaling, 3 runs" "$exe" report "$data/$case_name" --out "$work/out"
    # The plots need gnuplot (run_scripts/setup.sh installs it); without it the report says so instead, and
    # this test checks the rest and then reports itself skipped (exit 77), loudly, rather than passing.
    plots="efficiency.png phases.png throughput.png"
    no_plots=""
    command -v "${HC_GNUPLOT:-gnuplot}" >/dev/null 2>&1 || plots="" no_plots=1
    for f in report.md report.csv report.dat report.gp $plots; do
      [ -s "$work/out/$f" ] || fail "$f was not written"
    done
    [ "$(wc -l < "$work/out/report.csv")" = 4 ] || fail "report.csv should have a header and 3 rows"
    grep -q "^# hexcontract $case_name scaling report" "$work/out/report.md" || fail "report.md title"
    grep -q "Halo traffic model" "$work/out/report.md" || fail "report.md has no halo model"
    if grep -q "(differs)" "$work/out/report.md"; then fail "the halo model disagrees with the decomposition"; fi
    ls "$work/out" | grep -q '\.tmp' && fail "temporary files were left behind"
    check_efficiency "$case_name" "$data/$case_name"
    # These files predate the roofline section: its column says n/a.
    grep -q "^| 2 | .* | n/a | [0-9]*/[0-9]* passed |$" "$work/out/report.md" || fail "report.md: no n/a roofline for 2 ranks"
    if [ -n "$no_plots" ]; then
      echo "test_report.sh $case_name: SKIPPED: gnuplot was not found, so the PNG plots were not checked (install gnuplot-nox)"
      exit 77
    fi
    ;;
  mixed)
    cp "$data/weak/run_np1.yaml" "$data/mixed/serial_np2.yaml" "$work/in/"
    run 2 "mixed sweep: .*run_np1.yaml and .*serial_np2.yaml differ in run.backend \(openmp against serial\)" \
      "$exe" report "$work/in"
    [ ! -e "$work/in/report.md" ] || fail "a refused sweep wrote report.md"
    ;;
  cells)
    cp "$data/weak/run_np1.yaml" "$work/in/"
    sed 's/^    cells: \[4, 4, 3\]/    cells: [5, 4, 3]/' "$data/weak/run_np2.yaml" > "$work/in/run_np2.yaml"
    run 2 "mixed sweep: .*run_np1.yaml and .*run_np2.yaml differ in mesh.cells" "$exe" report "$work/in"
    ;;
  schema)
    cp "$data/weak/run_np1.yaml" "$work/in/"
    sed 's|^schema: hexcontract-results/1|schema: hexcontract-results/2|' "$data/weak/run_np2.yaml" > "$work/in/run_np2.yaml"
    run 2 "run_np2.yaml:1:9: unknown schema 'hexcontract-results/2'" "$exe" report "$work/in"
    printf 'mesh:\n  order: 2\n' > "$work/in/run_np2.yaml"
    run 2 "run_np2.yaml: not a results file: it has no .schema. key" "$exe" report "$work/in"
    ;;
  duplicate)
    cp "$data/weak/run_np2.yaml" "$work/in/a.yaml"
    cp "$data/weak/run_np2.yaml" "$work/in/b.yaml"
    run 2 "two runs on 2 ranks: .*a.yaml and .*b.yaml" "$exe" report "$work/in"
    ;;
  empty)
    run 2 "no results files \(\*.yaml\) in this directory" "$exe" report "$work/in"
    run 2 "report needs a directory" "$exe" report
    run 2 "unknown option '--frob'" "$exe" report "$work/in" --frob
    ;;
  missing_dir)
    run 2 "nonexistent: cannot open the directory" "$exe" report "$work/nonexistent"
    ;;
  no_gnuplot)
    HC_GNUPLOT=$work/no-such-gnuplot
    export HC_GNUPLOT
    run 0 "PNGs skipped: gnuplot was not found" \
      "$exe" report "$data/weak" --out "$work/out"
    for f in report.md report.csv report.dat report.gp; do [ -s "$work/out/$f" ] || fail "$f was not written"; done
    ls "$work/out" | grep -q '\.png' && fail "PNGs were written without gnuplot"
    grep -q "PNGs skipped" "$work/out/report.md" || fail "report.md does not say that the PNGs were skipped"
    ;;
  scaling_weak)
    run 0 "weak scaling, 2 runs" "$src/run_scripts/scaling.sh" weak --ranks "1 2" --exe "$exe" --out "$work/out" \
      ${HC_TEST_RUN_BACKEND:+--backend "$HC_TEST_RUN_BACKEND"} \
      --set mesh.cells=4,4,3 --set run.steps=2 --set checks.samples=8
    for f in run_np1.yaml run_np2.yaml run_np1.log run_np2.log report.md report.csv; do
      [ -s "$work/out/$f" ] || fail "$f was not written"
    done
    grep -q "^| 2 | " "$work/out/report.md" || fail "report.md has no 2-rank row"
    # The step's % of roofline of each run (roofline.phases.step.percent) in report.md and report.csv.
    for np in 1 2; do
      want=$(sed -n '/^roofline:/,/^[a-z]/p' "$work/out/run_np$np.yaml" | grep -m1 "^    step: " |
        sed 's/.*percent: \([^,}]*\).*/\1/')
      [ -n "$want" ] || fail "run_np$np.yaml has no roofline.phases.step.percent"
      pct=$(awk -v w="$want" 'BEGIN { printf("%.1f%%", w) }')
      grep -q "^| $np | .* | $pct | [0-9]*/[0-9]* passed |$" "$work/out/report.md" ||
        fail "report.md: no $pct of roofline for $np ranks"
      got=$(grep "^\"run_np$np.yaml\"," "$work/out/report.csv" | awk -F, '{ print $NF }')
      awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; if (d < 0) d = -d; exit (g > 0 && d <= 1e-5 * w) ? 0 : 1 }' ||
        fail "report.csv: step_roofline_pct $got, the results file says $want"
    done
    run 0 "Usage: run_scripts/scaling.sh weak\|strong" "$src/run_scripts/scaling.sh" --help
    run 2 "already holds results files" "$src/run_scripts/scaling.sh" weak --ranks 1 --exe "$exe" --out "$work/out"
    ;;
  scaling_fails)
    run 2 "the run on 2 rank\(s\) failed with exit code 2.*" "$src/run_scripts/scaling.sh" strong --ranks "2 4" \
      --exe "$exe" --out "$work/out" --set mesh.order=7
    out=$("$src/run_scripts/scaling.sh" strong --ranks "2 4" --exe "$exe" --out "$work/out2" --set mesh.order=7 2>&1)
    printf '%s\n' "$out" | grep -q "mesh.order must be an integer 1..4, got 7" || fail "the run's error is not shown"
    printf '%s\n' "$out" | grep -q "run 2/2" && fail "the sweep went on after a failing run"
    run 2 "'x' is not a positive integer" "$src/run_scripts/scaling.sh" weak --ranks "1 x" --exe "$exe"
    ;;
    bad_times)
    # A time or rate that the report divides by must be finite and > 0 (phases >= 0): each refused with
    # exit 2, naming the file, line:column and key, and no report written.
    for edit in "s/^  seconds_per_step: .*/  seconds_per_step: 0/;seconds_per_step" \
      "s/^  cell_steps_per_second: .*/  cell_steps_per_second: -5.0/;cell_steps_per_second" \
      "s/^  total_seconds: .*/  total_seconds: .inf/;timers.total_seconds" \
      "s/^  timed_steps: .*/  timed_steps: 0/;timers.timed_steps" \
            "s/^  step: {min: \([^,]*\), avg: [^,]*,/  step: {min: \1, avg: .nan,/;timers.step.avg" \
      "s/^  halo: {min: [^,]*,/  halo: {min: -1.0e-06,/;timers.halo.min"; do
      script=${edit%;*}
      key=${edit##*;}
      rm -rf "$work/in" "$work/out"
      mkdir -p "$work/in"
      cp "$data/weak/run_np1.yaml" "$work/in/"
      sed "$script" "$data/weak/run_np2.yaml" > "$work/in/run_np2.yaml"
      cmp -s "$data/weak/run_np2.yaml" "$work/in/run_np2.yaml" && fail "the edit '$script' changed nothing"
      run 2 "run_np2.yaml:[0-9]+:[0-9]+: [a-z_.]*$key must be " "$exe" report "$work/in" --out "$work/out"
      [ ! -e "$work/out" ] || fail "a refused sweep created its --out directory"
    done
    # A phase that took no time (transfer on a CPU backend) is fine.
    run 0 "weak scaling, 3 runs" "$exe" report "$data/weak" --out "$work/ok"
    ;;
  out_created)
    # report --out creates its directory as bench --out does; a parent that is missing or a file is refused.
    run 0 "weak scaling, 3 runs" "$exe" report "$data/weak" --out "$work/new"
    [ -s "$work/new/report.md" ] || fail "report.md was not written into the new --out directory"
    run 2 "--out .*missing/new: cannot create directory '.*missing/new'" "$exe" report "$data/weak" --out "$work/missing/new"
    touch "$work/file"
    run 2 "--out .*file: '.*file' exists and is a regular file, not a directory" "$exe" report "$data/weak" --out "$work/file"
    ;;
  *)
    fail "unknown case"
    ;;
esac
echo "test_report.sh $case_name: ok"
