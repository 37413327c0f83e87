#!/bin/sh
# run_scripts/mesh.sh: --help, its refusals (exit 2 with the reason), and small refinements of every shipped mesh
# read back by test_meshfile info. Usage: test_mesh_sh.sh SOURCE_DIR TEST_MESHFILE OUT_DIR
set -u
src=$1
reader=$2
out=$3
fail=0
mesh=$src/run_scripts/mesh.sh
rm -rf "$out" && mkdir -p "$out"
"$mesh" --help | grep -q "^Usage: run_scripts/mesh.sh MESH" || { echo "test_mesh_sh: FAILED: --help"; fail=1; }
refuse() {
  expect=$1
  shift
  msg=$("$mesh" "$@" 2>&1)
  rc=$?
  if [ "$rc" != 2 ] || ! printf '%s\n' "$msg" | grep -q -- "$expect"; then
    echo "test_mesh_sh: FAILED: mesh.sh $*: exit $rc, '$msg' (expected 2 and '$expect')"
    fail=1
  fi
}
refuse "unknown mesh 'sphere'" sphere
refuse "--n must be a positive integer, got '0'" box --n 0
refuse "--cells must be a positive integer" box --cells 1e6
refuse "give --n or --cells, not both" box --n 2 --cells 8
refuse "--format must be msh41 or msh22" box --format vtk
refuse "mixed-orientation is written as Gmsh 4.1 ASCII only" mixed-orientation --binary
refuse "unknown option '--refine'" box --refine 2
refuse "no gmsh program" box --gmsh /nonexistent/gmsh
# Each mesh at a small refinement, in each format, read back with its cell count.
check() {
  file=$1
  cells=$2
  kind=$3
  line=$("$reader" info "$file" 2>&1 | head -1)
  printf '%s\n' "$line"
  printf '%s\n' "$line" | grep -q ": gmsh, $cells cells of $kind nodes" ||
    { echo "test_mesh_sh: FAILED: $file: expected $cells cells of $kind nodes"; fail=1; }
}
"$mesh" box --n 3 --out "$out" >/dev/null && check "$out/box-27.msh" 27 8
"$mesh" box --n 2 --binary --format msh22 --out "$out/b22" >/dev/null && check "$out/b22/box-8.msh" 8 8
"$mesh" pipe --cells 3000 --binary --out "$out" >/dev/null && check "$out/pipe-3456.msh" 3456 27
"$mesh" lbracket --n 1 --format msh22 --out "$out" >/dev/null && check "$out/lbracket-768.msh" 768 8
"$mesh" mixed-orientation --n 3 --out "$out" >/dev/null && check "$out/mixed-orientation-27.msh" 27 8
[ "$fail" = 0 ] && echo "test_mesh_sh: passed"
exit "$fail"
