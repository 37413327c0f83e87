#!/bin/sh
# Installs the Debian packages hexcontract needs (when missing), then configures and builds it into
# build/ of the source tree. Extra CMake arguments come from HC_CMAKE_ARGS, e.g.
#   HC_CMAKE_ARGS="-DHC_ENABLE_CUDA=OFF" run_scripts/setup.sh
set -eu
cd "$(dirname "$0")/.."

pkgs="cmake make gcc g++ pkg-config git libopenmpi-dev openmpi-bin libyaml-dev libcmocka-dev gnuplot-nox python3 python3-numpy python3-vtk9"
# The fuzz targets (HC_ENABLE_FUZZ, off by default) need clang and libFuzzer; the default build does not.
case "${HC_CMAKE_ARGS:-}" in
  *HC_ENABLE_FUZZ=ON*) pkgs="$pkgs clang libclang-rt-dev" CC=${CC:-clang} && export CC ;;
esac
# The intrepid2 backend (HC_ENABLE_INTREPID2, AUTO by default) needs Trilinos' Intrepid2 and the -dev packages
# its CMake package includes (Debian 12: 13.2, Kokkos Serial only); where the distribution has none of them
# the build goes on without that backend.
optional=""
case "${HC_CMAKE_ARGS:-}" in
  *HC_ENABLE_INTREPID2=OFF*) ;;
  *) optional="libtrilinos-intrepid2-dev libtrilinos-kokkos-dev libtrilinos-kokkos-kernels-dev libtrilinos-sacado-dev
       libtrilinos-shards-dev libtrilinos-teuchos-dev" ;;
esac
# Mesh files (issue 17), each optional on its own: the Gmsh reader (HC_ENABLE_GMSH, AUTO: libgmsh-dev) and the gmsh
# program that run_scripts/mesh.sh runs, the Exodus II reader (HC_ENABLE_EXODUS, AUTO: libexodusii-dev), METIS for
# partitioning file meshes (libmetis-dev), PT-Scotch for partitioning them in parallel with every rank reading its
# own part (HC_ENABLE_PTSCOTCH, AUTO: libptscotch-dev, built with Debian's Open MPI), and meshio, which tests read meshes back with (python3-meshio). A package
# the distribution lacks is skipped with a message; the build goes on without that part.
each=""
case "${HC_CMAKE_ARGS:-}" in
  *HC_ENABLE_GMSH=OFF*) ;;
  *) each="$each libgmsh-dev gmsh" ;;
esac
case "${HC_CMAKE_ARGS:-}" in
  *HC_ENABLE_EXODUS=OFF*) ;;
  *) each="$each libexodusii-dev" ;;
esac
each="$each libmetis-dev python3-meshio"
case "${HC_CMAKE_ARGS:-}" in
  *HC_ENABLE_PTSCOTCH=OFF*) ;;
  *) each="$each libptscotch-dev" ;;
esac
if command -v dpkg-query >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"; }
  missing=""
  for p in $pkgs; do
    installed "$p" || missing="$missing $p"
  done
  missing_optional=""
  for p in $optional; do
    installed "$p" || missing_optional="$missing_optional $p"
  done
  missing_each=""
  for p in $each; do
    installed "$p" || missing_each="$missing_each $p"
  done
  if [ -n "$missing$missing_optional$missing_each" ]; then
    $sudo apt-get update -qq
  fi
  # All of them or none: Intrepid2's CMake package fails without the others.
  absent=""
  for p in $missing_optional; do
    apt-cache policy "$p" 2>/dev/null | grep -q 'Candidate: [0-9]' || absent="$absent $p"
  done
  if [ -z "$absent" ]; then
    missing="$missing$missing_optional"
  else
    echo "setup: no package$absent here; building without the intrepid2 backend"
  fi
  for p in $missing_each; do
    if apt-cache policy "$p" 2>/dev/null | grep -q 'Candidate: [0-9]'; then
      missing="$missing $p"
    else
      echo "setup: no package $p here; building without what needs it"
    fi
  done
  if [ -n "$missing" ]; then
    echo "setup: installing Debian packages:$missing"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
  fi
else
  echo "setup: not a Debian/Ubuntu system; make sure these (or your system's equivalents) are installed:"
  echo "  $pkgs"
  echo "and, optionally:$each"
fi

# nvcc is often installed off PATH: CMake finds /usr/local/cuda by itself (HC_ENABLE_CUDA=AUTO).
# shellcheck disable=SC2086
cmake -S . -B build ${HC_CMAKE_ARGS:-}
cmake --build build -j "$(nproc 2>/dev/null || echo 2)"
echo "setup: built build/hexcontract"
