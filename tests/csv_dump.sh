#!/bin/sh
# output.csv and --dump end to end. Two runs append two rows under one header to a fresh CSV file, whose fields
# are checked against the runs; the dumped left and right arrays of every kernel, contracted again by
# `hexcontract contract` on the same (serial) backend, give the dumped output bit for bit. Usage:
#   csv_dump.sh HEXCONTRACT DIR
set -u
exe=$1
dir=$2
csv=$dir/sweep.csv
fail() {
  echo "csv_dump.sh: FAILED: $*"
  exit 1
}
mkdir -p "$dir" || fail "cannot create $dir"
rm -f "$csv" "$dir"/dump_*.npy "$dir"/redo_*.npy
small="--set run.backend=serial --set mesh.cells=6,5,4 --set run.steps=2 --set output.dir=$dir --set output.csv=$csv"
# shellcheck disable=SC2086
"$exe" $small --dump 2 --set output.results=csv1.yaml || fail "the first run exited $?"
# shellcheck disable=SC2086
"$exe" $small --set run.precision=float --set output.results=csv2.yaml || fail "the second run exited $?"
[ -f "$csv" ] || fail "$csv was not written"
cat "$csv"
[ "$(wc -l <"$csv")" = 3 ] || fail "$csv should hold a header and 2 rows"
awk -F, 'NR == 1 { n = NF; for (i = 1; i <= NF; i++) col[$i] = i; next }
  function want(name, value) {
    if (!(name in col)) { print "no column " name; bad = 1; return }
    if ($col[name] != value) { print "row " NR - 1 ": " name " is " $col[name] ", expected " value; bad = 1 }
  }
  {
    if (NF != n) { print "row " NR - 1 " has " NF " fields, the header " n; bad = 1 }
    want("backend", "serial"); want("precision", NR == 2 ? "double" : "float"); want("ranks", 1)
    want("global_cells", 120); want("steps", 2); want("status", "passed")
    if (!($col["step_s_avg"] > 0) || !($col["cell_steps_per_s"] > 0)) { print "row " NR - 1 ": no timings"; bad = 1 }
  }
  END { exit bad }' "$csv" || fail "the CSV rows do not describe the runs"
n=0
for k in DataDataScalar DataDataVector DataDataTensor DataFieldScalar DataFieldVector DataFieldTensor \
  FieldFieldScalar FieldFieldVector FieldFieldTensor; do
  for a in left right out; do [ -s "$dir/dump_${k}_$a.npy" ] || fail "dump_${k}_$a.npy was not written"; done
  "$exe" contract --backend serial --kernel "$k" --left "$dir/dump_${k}_left.npy" --right "$dir/dump_${k}_right.npy" \
    --out "$dir/redo_$k.npy" || fail "contract on the dumped arrays of $k exited $?"
  cmp "$dir/redo_$k.npy" "$dir/dump_${k}_out.npy" || fail "the dumped output of $k is not the contraction of its dumped inputs"
  n=$((n + 1))
done
echo "csv_dump.sh: ok (2 CSV rows checked; $n kernels' dumps recontracted and equal)"
