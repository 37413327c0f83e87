#!/bin/sh
# Output and input paths of every subcommand: checked before any work, regular files only, never blocking,
# no two outputs (nor an output and the deck) the same file. Usage:
#   test_outputs.sh CASE HEXCONTRACT MPIEXEC SOURCE_DIR WORK_DIR
# Each case runs in WORK_DIR/CASE; see the case list below. The CTest timeout (short) catches a command
# that blocks on a FIFO or runs its whole workload before finding a bad output.
set -u
case_name=$1
exe=$2
mpiexec=$3
src=$4
work=$5/$case_name
backend=${HC_TEST_RUN_BACKEND:-serial}
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1

hc_test_name="test_outputs.sh $case_name"
. "$src/tests/lib.sh"

# A small run; a long one where the test shows that nothing ran before the refusal.
small="--set run.backend=$backend --set mesh.cells=4,3,3 --set run.steps=1 --set output.summary=false"
long="--set run.backend=$backend --set mesh.cells=6,5,4 --set run.steps=100000000 --set output.summary=false"
printf 'run:\n  steps: 1\n' >deck.yaml

case $case_name in
  early)
    # A CSV in a missing directory: refused before the 1e8 steps, not after them.
    run 2 "--set output.csv=nodir/x.csv: the CSV file: cannot write 'nodir/x.csv': directory 'nodir' does not exist" \
      "$exe" $long --set output.csv=nodir/x.csv
    [ ! -e hexcontract-results.yaml ] || fail "a results file was written"
    ;;
  early_mpi)
    # The same on 3 ranks: rank 0 decides, every rank exits 2 together.
    run 2 "the CSV file: cannot write" "$mpiexec" -n 3 "$exe" $long --set output.csv=nodir/x.csv
    ;;
  dir)
    # output.dir is created when missing (not its parents); a file in its place is refused.
    run 0 "" "$exe" $small --set output.dir=new
    [ -f new/hexcontract-results.yaml ] || fail "output.dir was not created"
    run 2 "cannot create directory 'a/b'" "$exe" $long --set output.dir=a/b
    : >plain
    run 2 "'plain' exists and is a regular file, not a directory" "$exe" $long --set output.dir=plain
    # An absolute output.results is the file itself, whatever output.dir says; the VTK files go beside it.
    mkdir abs
    run 0 "" "$exe" $small --set output.dir=new --set output.results="$work/abs/r.yaml" --set output.vtk=true
    [ -f abs/r.yaml ] && [ -f abs/r.pvtu ] && [ -f abs/r_r0.vtu ] || fail "the absolute results path was not used: $(ls -R)"
    [ ! -e "new/$work" ] || fail "the absolute results path was taken as relative to output.dir"
    run 2 "the results file: cannot write '$work/nodir/r.yaml': directory '$work/nodir' does not exist" \
      "$exe" $long --set output.results="$work/nodir/r.yaml"
    ;;
  fifo)
    # FIFOs as the CSV, the results file and the deck: refused at once, left as they are.
    mkfifo f.csv f.yaml d.yaml
    run 2 "f.csv' is a FIFO \(named pipe\), not a regular file" "$exe" $long --set output.csv=f.csv
    run 2 "f.yaml' is a FIFO \(named pipe\), not a regular file" "$exe" $long --set output.results=f.yaml
    run 2 "d.yaml: the deck is a FIFO \(named pipe\), not a regular file" "$exe" d.yaml $small
    [ -p f.csv ] && [ -p f.yaml ] || fail "a FIFO was replaced"
    ;;
  link)
    # The results file through a symbolic link is refused (the link and its target stay); the CSV is
    # appended to the file its link points to (documented), the link stays; a dangling link is refused.
    echo keep >target.yaml
    ln -s target.yaml results.yaml
    run 2 "results.yaml' is a symbolic link" "$exe" $long --set output.results=results.yaml
    [ -L results.yaml ] && [ "$(cat target.yaml)" = keep ] || fail "the link or its target changed"
    ln -s rows.csv sweep.csv
    : >rows.csv
    run 0 "" "$exe" $small --set output.csv=sweep.csv
    run 0 "" "$exe" $small --set output.csv=sweep.csv
    [ -L sweep.csv ] || fail "the CSV link was replaced"
    [ "$(wc -l <rows.csv)" = 3 ] || fail "rows.csv should hold a header and 2 rows: $(cat rows.csv)"
    ln -s nowhere/x.csv dangling.csv
    run 2 "dangling.csv' is a symbolic link to a file that cannot be used" "$exe" $long --set output.csv=dangling.csv
    ;;
  csv_dir)
    # A directory as the CSV: bad input (exit 2), not out of memory (exit 3).
    mkdir d
    run 2 "the CSV file: 'd' is a directory, not a regular file" "$exe" $long --set output.csv=d
    ;;
  same_file)
    # Two outputs naming one file, however spelt, or by a hard link; an output naming the deck.
    run 2 "the results file '\./out\.yaml' and the CSV file '$work/out\.yaml' are the same file" \
      "$exe" $long --set output.results=out.yaml --set output.csv="$work/out.yaml"
    : >one.yaml
    ln one.yaml two.csv
    run 2 "are the same file" "$exe" $long --set output.results=one.yaml --set output.csv=two.csv
    cp deck.yaml keep.yaml
    run 2 "deck.yaml:.*the results file '\./deck\.yaml' is the deck 'deck\.yaml' itself" \
      "$exe" deck.yaml $long --set output.results=deck.yaml
    run 2 "the CSV file 'deck\.yaml' is the deck" "$exe" deck.yaml $long --set output.csv=deck.yaml
    cmp deck.yaml keep.yaml || fail "the deck was changed"
    run 2 "the --dump file '\./dump_DataDataScalar_out\.npy' and the results file" \
      "$exe" $long --dump 1 --set output.results=dump_DataDataScalar_out.npy
    ;;
  bench)
    # bench --out: a FIFO among its files, or a file in place of the directory, refused before the cases.
    mkdir out
    mkfifo out/bench.csv
    run 2 "option --out out: 'out/bench.csv' is a FIFO" "$exe" bench --backend serial --cells 10 --shapes 8,8 \
      --kernel DataDataScalar --out out
    [ -p out/bench.csv ] || fail "the FIFO was replaced"
    : >file
    run 2 "option --out file: 'file' exists and is a regular file, not a directory" "$exe" bench --backend serial \
      --cells 10 --shapes 8,8 --kernel DataDataScalar --out file
    ;;
  report)
    # report --out: a FIFO in place of report.gp.log (gnuplot's log) or report.md; a missing directory is
    # created (once the sweep is accepted), but not a missing parent.
    mkdir out
    mkfifo out/report.gp.log
    run 2 "--out out: 'out/report.gp.log' is a FIFO" "$exe" report "$src/tests/data/results/weak" --out out
    run 0 "wrote nodir/report.md" "$exe" report "$src/tests/data/results/weak" --out nodir
    [ -f nodir/report.md ] || fail "report --out nodir wrote no nodir/report.md"
    run 2 "--out nodir2/sub: cannot create directory 'nodir2/sub'" "$exe" report "$src/tests/data/results/weak" \
      --out nodir2/sub
    ;;
  contract)
    # contract: a FIFO as input or output, and an output that is one of its inputs.
    run 0 "" "$exe" $small --dump 2 --set kernels.enabled=DataDataScalar
    mkfifo in.npy out.npy
    run 2 "in.npy: the array is a FIFO" "$exe" contract --kernel DataDataScalar --left in.npy \
      --right dump_DataDataScalar_right.npy --out o.npy
    run 2 "option --out out.npy: 'out.npy' is a FIFO" "$exe" contract --kernel DataDataScalar \
      --left dump_DataDataScalar_left.npy --right dump_DataDataScalar_right.npy --out out.npy
    cp dump_DataDataScalar_left.npy keep.npy
    run 2 "it is also an input" "$exe" contract --kernel DataDataScalar --left dump_DataDataScalar_left.npy \
      --right dump_DataDataScalar_right.npy --out ./dump_DataDataScalar_left.npy
    cmp keep.npy dump_DataDataScalar_left.npy || fail "the input was replaced"
    ;;
  vtk)
    # The VTK files (output.vtk): a FIFO, a directory or a symbolic link in place of any of them, in any set
    # of a series, is refused before the run and left as it was; then a run writes them all.
    mkfifo hexcontract-results_r0.vtu
    run 2 "--set output.vtk=true: the VTK piece '\./hexcontract-results_r0\.vtu' is a FIFO \(named pipe\), not a regular file" \
      "$exe" $long --set output.vtk=true
    [ -p hexcontract-results_r0.vtu ] || fail "the FIFO was replaced"
    rm hexcontract-results_r0.vtu
    mkdir out
    mkdir out/r_7.pvtu
    run 2 "--set output.vtk_every=3: the VTK parallel file 'out/r_7\.pvtu' is a directory" \
      "$exe" $long --set run.steps=7 --set output.dir=out --set output.results=r.yaml --set output.vtk=true \
      --set output.vtk_every=3
    rmdir out/r_7.pvtu
    echo keep >target.pvd
    ln -s ../target.pvd out/r.pvd
    run 2 "the VTK collection 'out/r\.pvd' is a symbolic link" "$exe" $long --set run.steps=7 --set output.dir=out \
      --set output.results=r.yaml --set output.vtk=true --set output.vtk_every=3
    [ -L out/r.pvd ] && [ "$(cat target.pvd)" = keep ] || fail "the link or its target changed"
    rm out/r.pvd
    run 0 "" "$exe" $small --set run.steps=7 --set output.dir=out --set output.results=r.yaml --set output.vtk=true \
      --set output.vtk_every=3
    for f in r.pvd r_3.pvtu r_3_r0.vtu r_6.pvtu r_6_r0.vtu r_7.pvtu r_7_r0.vtu; do
      [ -f "out/$f" ] || fail "out/$f was not written"
    done
    [ ! -e out/r.pvtu ] && [ ! -e out/r_1.pvtu ] || fail "a set was written at a step that is not a multiple of 3"
    ;;
  vtk_same)
    # Another output that is one of the VTK files, named otherwise or by a hard link.
    run 2 "the CSV file '$work/hexcontract-results\.pvtu' and the VTK parallel file '\./hexcontract-results\.pvtu' are the same file" \
      "$exe" $long --set output.vtk=true --set output.csv="$work/hexcontract-results.pvtu"
    mkdir out
    : >out/r_2_r0.vtu
    ln out/r_2_r0.vtu rows.csv
    run 2 "the CSV file 'rows\.csv' and the VTK piece 'out/r_2_r0\.vtu' are the same file" "$exe" $long --set run.steps=2 \
      --set output.dir=out --set output.results=r.yaml --set output.vtk=true --set output.vtk_every=1 \
      --set output.csv=rows.csv
    # A results name with directories puts the VTK files there too: the CSV as one of them in another spelling.
    mkdir -p out/sub
    run 2 "the CSV file 'out/\.\./out/sub/r\.pvd' and the VTK collection 'out/sub/r\.pvd' are the same file" \
      "$exe" $long --set output.dir=out --set output.results=sub/r.yaml --set output.vtk=true \
      --set run.steps=20 --set output.vtk_every=5 --set output.csv=out/../out/sub/r.pvd
    ;;
  vtk_mpi)
    # On 2 ranks every rank's piece is checked: a FIFO as rank 1's, refused by every rank at once.
    mkfifo hexcontract-results_r1.vtu
    run 2 "the VTK piece '\./hexcontract-results_r1\.vtu' is a FIFO" "$mpiexec" -n 2 "$exe" $long --set output.vtk=true
    [ -p hexcontract-results_r1.vtu ] || fail "the FIFO was replaced"
    ;;
  *)
    fail "unknown case"
    ;;
esac
echo "test_outputs.sh $case_name: ok"
