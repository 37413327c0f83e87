#!/bin/sh
# Installs the build into a fresh prefix and uses it from outside: the files are where the README says,
# an outside CMake project (tests/install) finds the package and links hexcontract::kernels, the same
# program builds through pkg-config, and both call a contraction and check its numbers; the installed
# binary and scaling.sh run. Usage: test_install.sh BUILD_DIR SOURCE_DIR WORK_DIR C_COMPILER
set -u
build=$1
src=$2
work=$3
cc=$4
prefix=$work/prefix

fail() {
  echo "test_install: FAILED: $*"
  exit 1
}

rm -rf "$work"
mkdir -p "$work" || fail "cannot create $work"
cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 || { cat "$work/install.log"; fail "cmake --install"; }

libdir=$(dirname "$(find "$prefix" -name libhexcontract_kernels.a | head -1)")
if [ -z "$libdir" ] || [ "$libdir" = . ]; then fail "no libhexcontract_kernels.a under $prefix"; fi
for f in bin/hexcontract share/hexcontract/inputs/default.yaml share/hexcontract/inputs/weak.yaml \
  share/hexcontract/inputs/README.md share/hexcontract/run_scripts/scaling.sh share/hexcontract/run_scripts/mesh.sh \
  share/hexcontract/inputs/meshes/box.geo share/hexcontract/inputs/meshes/pipe.msh \
  share/hexcontract/run_scripts/slurm/scaling.sbatch include/hexcontract/hc_config.h \
  include/hexcontract/kernels/hc_kernels.h include/hexcontract/kernels/base/hc_error.h share/doc/hexcontract/LICENSE \
  share/doc/hexcontract/kernels/README.md; do
  [ -e "$prefix/$f" ] || fail "$f is not installed"
done
[ -f "$libdir/cmake/hexcontract/hexcontractConfig.cmake" ] || fail "no CMake package in $libdir/cmake/hexcontract"
[ -f "$libdir/pkgconfig/hexcontract.pc" ] || fail "no $libdir/pkgconfig/hexcontract.pc"

# The CMake package, from a project that knows nothing of the source tree.
cmake -S "$src/tests/install" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
  >"$work/consumer.log" 2>&1 || { cat "$work/consumer.log"; fail "configuring tests/install against $prefix"; }
cmake --build "$work/consumer" >>"$work/consumer.log" 2>&1 || { cat "$work/consumer.log"; fail "building tests/install"; }
"$work/consumer/consumer" || fail "the find_package consumer"

# pkg-config.
flags=$(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs hexcontract) || fail "pkg-config hexcontract"
echo "test_install: pkg-config --cflags --libs hexcontract: $flags"
# shellcheck disable=SC2086
"$cc" -o "$work/consumer_pc" "$src/tests/install/consumer.c" $flags || fail "building through pkg-config"
"$work/consumer_pc" || fail "the pkg-config consumer"

# The installed application and script: the binary runs, scaling.sh finds it and the installed decks.
"$prefix/bin/hexcontract" --version || fail "bin/hexcontract --version"
out=$(cd "$work" && "$prefix/share/hexcontract/run_scripts/scaling.sh" weak --ranks 2 --dry-run --out dry 2>&1) ||
  fail "installed scaling.sh --dry-run: $out"
echo "$out"
echo "$out" | grep -q "$prefix/bin/hexcontract $prefix/share/hexcontract/inputs/weak.yaml" ||
  fail "installed scaling.sh does not run the installed binary on the installed deck"
echo "test_install: passed"
