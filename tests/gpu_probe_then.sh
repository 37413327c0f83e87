#!/bin/sh
# Runs a one-cell proxy run on the cuda backend, and COMMAND only when that succeeded: a comparison of GPU
# results files is then a real one (a missing file fails it), and on a machine without a GPU the probe's exit
# code 3 and its "no usable CUDA device" make expect.sh --skip-if report the test skipped. Usage:
#   gpu_probe_then.sh HEXCONTRACT OUTPUT_DIR -- COMMAND...
set -u
exe=$1
dir=$2
shift 2
[ "$1" = "--" ] && shift
"$exe" --set run.backend=cuda --set mesh.cells=1,1,1 --set run.steps=1 --set run.warmup=0 --set output.dir="$dir" \
  --set output.results=gpu_probe.yaml || exit $?
exec "$@"
