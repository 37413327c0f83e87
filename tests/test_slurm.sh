#!/bin/bash
# The Slurm path of the scaling study, without Slurm: scaling.sh --dry-run with an srun launcher, and the batch
# template run_scripts/slurm/scaling.sbatch in dry-run mode under a made-up allocation (2 nodes x 4 ranks,
# 4 GPUs and 8 cores per rank). Usage: test_slurm.sh HEXCONTRACT SOURCE_DIR WORK_DIR
set -u
exe=$1
src=$2
work=$3
fail=0
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

# has TEXT LINE_REGEX: some line of TEXT matches the extended regex.
has() {
  if ! printf '%s\n' "$1" | grep -Eq -- "$2"; then
    echo "test_slurm: FAILED: no line matches: $2"
    fail=1
  fi
}
# run CODE COMMAND...: runs it, keeps its output in $out, prints it, and checks its exit code.
run() {
  local want=$1
  shift
  out=$("$@" 2>&1)
  local rc=$?
  printf '%s\n' "$out"
  [ "$rc" = "$want" ] || { echo "test_slurm: FAILED: exit code $rc, not $want: $*"; fail=1; }
}
hasnt() {
  if printf '%s\n' "$1" | grep -Eq -- "$2"; then
    echo "test_slurm: FAILED: a line matches: $2"
    fail=1
  fi
}

# 1. scaling.sh: {np} and {nodes} are filled in per rank count; no run happens and nothing is written.
run 0 "$src/run_scripts/scaling.sh" strong --ranks "6 1 3 12" --ranks-per-node 4 --exe "$exe" --out dry1 --dry-run \
  --launcher "srun -N {nodes} -n {np} --gpus-per-node=4" --set run.steps=2
has "$out" "^srun -N 1 -n 1 --gpus-per-node=4 $exe $src/inputs/strong.yaml --set run.steps=2 --set mesh.sizing=global --set output.dir=dry1 --set output.results=run_np1.yaml --set output.summary=true > dry1/run_np1.log 2>&1\$"
has "$out" "^srun -N 1 -n 3 .* --set output.results=run_np3.yaml "
has "$out" "^srun -N 2 -n 6 .* --set output.results=run_np6.yaml "
has "$out" "^srun -N 3 -n 12 .* --set output.results=run_np12.yaml "
has "$out" "^$exe report dry1\$"
[ "$(printf '%s\n' "$out" | grep -c '^srun ')" = 4 ] || { echo "test_slurm: FAILED: not 4 srun lines"; fail=1; }
hasnt "$out" "mpirun|-np "
[ ! -e dry1 ] || { echo "test_slurm: FAILED: the dry run created dry1"; fail=1; }

# 2. A bad --ranks-per-node is refused.
run 2 "$src/run_scripts/scaling.sh" weak --ranks-per-node 0 --exe "$exe" --dry-run
has "$out" "ranks-per-node 0: not a positive integer"

# 3. The batch template under a made-up allocation, with MPS: ranks 1 2 4 8 on 1, 1, 1 and 2 nodes, the node's
# GPUs, 8 cores per rank bound to cores, 8 OpenMP threads per rank, MPS started and stopped on both nodes.
run 0 env SLURM_JOB_NUM_NODES=2 SLURM_NTASKS_PER_NODE=4 SLURM_GPUS_PER_NODE=h100:4 SLURM_CPUS_PER_TASK=8 \
  SLURM_JOB_ID=4242 HC_DRY_RUN=1 HC_MPS=1 HC_SOURCE_DIR="$src" HC_EXE="$exe" HC_SET="run.steps=3" \
  bash "$src/run_scripts/slurm/scaling.sbatch"
has "$out" "^srun --nodes=2 --ntasks-per-node=1 --overlap bash -c .*nvidia-cuda-mps-control\\\\ -d"
has "$out" "^srun --nodes=2 --ntasks-per-node=1 --overlap bash -c echo.*quit.*nvidia-cuda-mps-control"
has "$out" "weak scaling over ranks 1 2 4 8 \(4 runs\).* 8 OpenMP thread\(s\) per rank"
for pair in 1:1 1:2 1:4 2:8; do
  has "$out" "^srun --nodes=${pair%%:*} --ntasks=${pair##*:} --ntasks-per-node=4 --cpus-per-task=8 --cpu-bind=cores --distribution=block:block --gpus-per-node=4 $exe $src/inputs/weak.yaml --set run.steps=3 --set run.backend=cuda --set mesh.sizing=per-rank --set output.dir=scaling-weak-4242 --set output.results=run_np${pair##*:}.yaml"
done
[ ! -e scaling-weak-4242 ] || { echo "test_slurm: FAILED: the dry run created its output directory"; fail=1; }

# 4. Strong mode and chosen rank counts; no MPS lines without HC_MPS.
run 0 env SLURM_JOB_NUM_NODES=4 SLURM_NTASKS_PER_NODE=2 SLURM_CPUS_PER_TASK=4 HC_MODE=strong HC_RANKS="2 8" \
  HC_DRY_RUN=1 HC_SOURCE_DIR="$src" HC_EXE="$exe" bash "$src/run_scripts/slurm/scaling.sbatch"
has "$out" "^srun --nodes=1 --ntasks=2 --ntasks-per-node=2 --cpus-per-task=4 .*--gpus-per-node=2 $exe $src/inputs/strong.yaml .*--set mesh.sizing=global"
has "$out" "^srun --nodes=4 --ntasks=8 "
hasnt "$out" "mps"

# 5. CPU nodes: no GPUs asked for.
run 0 env SLURM_JOB_NUM_NODES=1 SLURM_NTASKS_PER_NODE=16 HC_GPUS_PER_NODE=0 HC_BACKEND=openmp HC_RANKS="16" \
  HC_DRY_RUN=1 HC_SOURCE_DIR="$src" HC_EXE="$exe" bash "$src/run_scripts/slurm/scaling.sbatch"
has "$out" "^srun --nodes=1 --ntasks=16 --ntasks-per-node=16 --cpus-per-task=1 --cpu-bind=cores --distribution=block:block $exe .*--set run.backend=openmp"
hasnt "$out" "gpus"

[ "$fail" = 0 ] && echo "test_slurm: passed"
exit "$fail"
