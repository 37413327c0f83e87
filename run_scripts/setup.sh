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
if command -v dpkg-query >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  missing=""
  for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
  done
  if [ -n "$missing" ]; then
    echo "setup: installing Debian packages:$missing"
    sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
  fi
else
  echo "setup: not a Debian/Ubuntu system; make sure these (or your system's equivalents) are installed:"
  echo "  $pkgs"
fi

# nvcc is often installed off PATH: CMake finds /usr/local/cuda by itself (HC_ENABLE_CUDA=AUTO).
# shellcheck disable=SC2086
cmake -S . -B build ${HC_CMAKE_ARGS:-}
cmake --build build -j "$(nproc 2>/dev/null || echo 2)"
echo "setup: built build/hexcontract"
