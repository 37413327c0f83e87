#!/bin/sh
# hexcontract --version: the build, the backends built in (each with its runtime's version), the CUDA runtime and
# driver (or that there is no driver or device), and the MPI library, whose version must be the one mpirun
# reports, and the mesh readers built in. Usage: test_version.sh HEXCONTRACT HAVE_OPENMP HAVE_CUDA VERSION [HAVE_INTREPID2
# [HAVE_GMSH HAVE_EXODUS]]
set -u
exe=$1
have_openmp=$2
have_cuda=$3
version=$4
have_intrepid2=${5:-0}
have_gmsh=${6:-0}
have_exodus=${7:-0}
fail=0
out=$("$exe" --version 2>&1)
rc=$?
printf '%s\n' "$out"
[ "$rc" = 0 ] || { echo "test_version: FAILED: exit code $rc"; fail=1; }

has() {
  printf '%s\n' "$out" | grep -Eq -- "$1" || { echo "test_version: FAILED: no line matches: $1"; fail=1; }
}

has "^hexcontract $version \(git [^,]+, [A-Za-z]+ build, .+\)\$"
backends="serial"
[ "$have_openmp" = 1 ] && backends="$backends openmp"
[ "$have_cuda" = 1 ] && backends="$backends cuda"
[ "$have_intrepid2" = 1 ] && backends="$backends intrepid2"
has "^backends: $backends\$"
has "^  serial    "
if [ "$have_openmp" = 1 ]; then
  has "^  openmp    .*; OpenMP [0-9]\.[0-9] \(_OPENMP 20[0-9]{4}\), [1-9][0-9]* threads?\$"
else
  has "^  openmp    not built into this binary\$"
fi
if [ "$have_cuda" = 1 ]; then
  has "^  cuda      .*; CUDA runtime [1-9][0-9]*\.[0-9]+, driver (none, no device \(no NVIDIA driver found\)|[1-9][0-9]*\.[0-9]+, ([0-9]+ devices?|no usable device \(.+\)))\$"
  has "^CUDA compiler: NVIDIA [0-9.]+, architectures .+\$"
else
  has "^  cuda      not built into this binary\$"
fi
if [ "$have_intrepid2" = 1 ]; then
  has "^  intrepid2 .*; Trilinos [0-9]+\.[0-9]+, Kokkos [0-9]+\.[0-9]+\.[0-9]+ \(Serial\)\$"
else
  has "^  intrepid2 not built into this binary\$"
fi
readers=""
[ "$have_gmsh" = 1 ] && readers="$readers gmsh"
[ "$have_exodus" = 1 ] && readers="$readers exodus"
has "^mesh readers:${readers:- none}\$"
if [ "$have_gmsh" = 1 ]; then
  has "^  gmsh      Gmsh \.msh 4\.1 and 2\.2, ASCII and binary \(Gmsh C API [0-9]+\.[0-9]+\.[0-9]+\)\$"
else
  has "^  gmsh      not built into this binary \(HC_ENABLE_GMSH\)\$"
fi
if [ "$have_exodus" = 1 ]; then
  has "^  exodus    Exodus II \.exo and \.e \(Exodus II API [0-9]+\.[0-9]+\)\$"
else
  has "^  exodus    not built into this binary \(HC_ENABLE_EXODUS\)\$"
fi
has "^MPI: .*[0-9]+\.[0-9]+"
# The MPI line names the library that mpirun belongs to, at its version.
if command -v mpirun >/dev/null 2>&1; then
  mpi_version=$(mpirun --version 2>/dev/null | grep -Eo '[0-9]+\.[0-9]+(\.[0-9]+)?' | head -1)
  if [ -n "$mpi_version" ]; then
    printf '%s\n' "$out" | grep '^MPI: ' | grep -q -- "$mpi_version" ||
      { echo "test_version: FAILED: the MPI line does not name version $mpi_version (mpirun --version)"; fail=1; }
  fi
fi
[ "$fail" = 0 ] && echo "test_version: passed"
exit "$fail"
