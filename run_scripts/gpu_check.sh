#!/bin/sh
# The GPU acceptance check: builds hexcontract with the CUDA backend for the GPU of this machine, runs the
# whole test suite (the gpu tests included), then runs the CUDA conformance suites (contractions and
# cell data) under compute-sanitizer's memcheck and racecheck. Exits non-zero if anything fails.
#   run_scripts/gpu_check.sh [BUILD_DIR]      (default: build-gpu)
# Set CUDA_ARCH to override the architecture (default: the first GPU's, from nvidia-smi, else 90).
set -eu
cd "$(dirname "$0")/.."
build=${1:-build-gpu}
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "gpu_check: no NVIDIA GPU here (nvidia-smi finds none)" >&2
  exit 1
fi
arch=${CUDA_ARCH:-$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d '.')}
arch=${arch:-90}
nvidia-smi -L
echo "gpu_check: building $build for sm_$arch"
cmake -S . -B "$build" -DHC_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="$arch" -DHC_WARNINGS_AS_ERRORS=ON >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null
echo "gpu_check: the test suite"
ctest --test-dir "$build" -j 8 --output-on-failure
sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)
if [ -z "$sanitizer" ]; then
  echo "gpu_check: compute-sanitizer not found (it ships with the CUDA toolkit)" >&2
  exit 1
fi
status=0
for tool in memcheck racecheck; do
  for t in test_contract test_celldata; do
    echo "gpu_check: compute-sanitizer --tool $tool $t cuda"
    # racecheck is slow: it runs the edge-case shapes only (HC_TEST_QUICK), memcheck runs everything.
    quick=0
    [ "$tool" = racecheck ] && quick=1
    if ! HC_TEST_QUICK=$quick "$sanitizer" --tool "$tool" --error-exitcode 1 "$build/tests/$t" cuda \
      >"$build/sanitizer_${tool}_$t.log" 2>&1; then
      echo "gpu_check: $tool found problems in $t (see $build/sanitizer_${tool}_$t.log):" >&2
      tail -30 "$build/sanitizer_${tool}_$t.log" >&2
      status=1
    else
      tail -1 "$build/sanitizer_${tool}_$t.log"
    fi
  done
done
[ $status -eq 0 ] && echo "gpu_check: all passed"
exit $status
