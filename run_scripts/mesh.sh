#!/usr/bin/env bash
# mesh.sh: generates a shipped mesh (inputs/meshes/*.geo) at a chosen refinement with the gmsh program.
set -u

usage() {
  cat <<'EOF'
Usage: run_scripts/mesh.sh MESH [options]

Generates MESH from its Gmsh script in inputs/meshes with the gmsh program (Debian: gmsh), at a
refinement chosen by --n or by a target cell count, and writes DIR/MESH-CELLS.msh.

  MESH                 box                unit cube, n^3 8-node hexahedra (n cells per edge; default 4)
                       pipe               annulus 0.5 <= r <= 1, height 1, curved 27-node hexahedra,
                                          432 n^3 cells (default n 1)
                       lbracket           L-bracket, 8-node hexahedra in three transfinite blocks,
                                          768 n^3 cells (default n 1)
                       mixed-orientation  box.geo's cube, n^3 cells (default n 6), each cell's nodes
                                          renumbered by one of the 24 rotations of the reference cube
                                          (inputs/meshes/reorient.py; needs python3)
Options:
  --n N                the .geo's refinement parameter n (a positive integer)
  --cells C            instead of --n: the n whose cell count is nearest to C
  --format F           msh41 (default) or msh22; mixed-orientation writes msh41 only
  --binary             binary instead of ASCII (msh41 and msh22)
  --out DIR            output directory (default: the current one); created if missing
  --gmsh PATH          the gmsh program (default: gmsh on PATH)
  -h, --help           this text

Examples: run_scripts/mesh.sh box --n 100 --binary --out /tmp/meshes    (1,000,000 cells)
          run_scripts/mesh.sh pipe --cells 100000                     (n 6: 93,312 cells)
Exit code: 0 when the mesh was written; 1 when gmsh or the reorientation failed (its output is shown);
2 for bad usage.
EOF
}

die() {
  echo "mesh.sh: $*" >&2
  exit 2
}

here=$(cd "$(dirname "$0")" && pwd)
geo_dir=$here/../inputs/meshes
mesh=""
n=""
cells=""
format=msh41
binary=0
out=.
gmsh=gmsh
while [ $# -gt 0 ]; do
  case $1 in
    -h | --help) usage; exit 0 ;;
    --n) [ $# -ge 2 ] || die "--n needs a value"; n=$2; shift 2 ;;
    --cells) [ $# -ge 2 ] || die "--cells needs a value"; cells=$2; shift 2 ;;
    --format) [ $# -ge 2 ] || die "--format needs a value"; format=$2; shift 2 ;;
    --binary) binary=1; shift ;;
    --out) [ $# -ge 2 ] || die "--out needs a value"; out=$2; shift 2 ;;
    --gmsh) [ $# -ge 2 ] || die "--gmsh needs a value"; gmsh=$2; shift 2 ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) [ -z "$mesh" ] || die "one mesh at a time: got '$mesh' and '$1'"; mesh=$1; shift ;;
  esac
done
[ -n "$mesh" ] || { usage >&2; exit 2; }
# Cells of the mesh at refinement n: base * n^3.
case $mesh in
  box) geo=box.geo; base=1; default_n=4 ;;
  pipe) geo=pipe.geo; base=432; default_n=1 ;;
  lbracket) geo=lbracket.geo; base=768; default_n=1 ;;
  mixed-orientation) geo=box.geo; base=1; default_n=6 ;;
  *) die "unknown mesh '$mesh': box, pipe, lbracket or mixed-orientation" ;;
esac
case $format in
  msh41 | msh22) ;;
  *) die "--format must be msh41 or msh22, got '$format'" ;;
esac
if [ "$mesh" = mixed-orientation ] && { [ "$format" != msh41 ] || [ "$binary" = 1 ]; }; then
  die "mixed-orientation is written as Gmsh 4.1 ASCII only (no --binary, no --format msh22)"
fi
[ -z "$n" ] || [ -z "$cells" ] || die "give --n or --cells, not both"
if [ -n "$cells" ]; then
  [[ $cells =~ ^[1-9][0-9]*$ ]] || die "--cells must be a positive integer, got '$cells'"
  n=$(awk -v c="$cells" -v b="$base" 'BEGIN { n = int((c / b) ^ (1 / 3) + 0.5); if (n < 1) n = 1; print n }')
fi
[ -n "$n" ] || n=$default_n
[[ $n =~ ^[1-9][0-9]*$ ]] || die "--n must be a positive integer, got '$n'"
command -v "$gmsh" >/dev/null 2>&1 || die "no gmsh program '$gmsh' (Debian: apt-get install gmsh; or --gmsh PATH)"
[ -f "$geo_dir/$geo" ] || die "no $geo_dir/$geo (run this script from a hexcontract checkout)"
mkdir -p "$out" || die "cannot create the output directory '$out'"
total=$((base * n * n * n))
file=$out/$mesh-$total.msh
log=$(mktemp)
trap 'rm -f "$log" "$out/.$mesh-$total.msh22"' EXIT
run_gmsh() {
  # -setnumber n overrides the .geo's DefineConstant; -bin writes binary.
  if ! "$gmsh" -3 -setnumber n "$n" -format "$1" $([ "$binary" = 1 ] && echo -bin) "$geo_dir/$geo" -o "$2" >"$log" 2>&1; then
    echo "mesh.sh: gmsh failed on $geo with n = $n:" >&2
    tail -20 "$log" >&2
    exit 1
  fi
}
echo "mesh.sh: $mesh, n = $n: $total cells -> $file"
if [ "$mesh" = mixed-orientation ]; then
  run_gmsh msh22 "$out/.$mesh-$total.msh22" # ASCII: --binary was refused above
  command -v python3 >/dev/null 2>&1 || die "mixed-orientation needs python3 for inputs/meshes/reorient.py"
  python3 "$geo_dir/reorient.py" "$out/.$mesh-$total.msh22" "$file" || { echo "mesh.sh: reorient.py failed" >&2; exit 1; }
else
  run_gmsh "$format" "$file"
fi
echo "mesh.sh: wrote $file ($(wc -c <"$file") bytes)"
