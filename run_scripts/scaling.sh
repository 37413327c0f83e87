#!/usr/bin/env bash
# scaling.sh: runs a weak or strong scaling sweep of hexcontract over rank counts, then writes its report.
set -u

usage() {
  cat <<'EOF'
Usage: run_scripts/scaling.sh weak|strong [options]

Runs hexcontract once per rank count with the site's MPI launcher, one results file and one log per
run in the output directory, stops at the first failing run, and ends with `hexcontract report DIR`
(report.md, report.csv and PNG plots in DIR).

  weak                 cells per rank fixed: mesh.sizing=per-rank, default deck inputs/weak.yaml
  strong               global mesh fixed: mesh.sizing=global, default deck inputs/strong.yaml

Options:
  --ranks "1 2 4 8 16" rank counts, in any order (default "1 2 4")
  --deck FILE          the deck (default inputs/weak.yaml or inputs/strong.yaml)
  --backend NAME       serial, openmp, cuda or intrepid2 (--set run.backend=NAME; default: the deck's)
  --threads N          OpenMP threads per rank (OMP_NUM_THREADS); default: $OMP_NUM_THREADS, else 1
  --launcher "CMD"     how to start N ranks: CMD is followed by "-np N" unless it holds {np}, which
                       is replaced by N, e.g. --launcher "srun -n {np} --gpus-per-task=1"; {nodes} is
                       replaced by the nodes N ranks fill (N / --ranks-per-node, rounded up).
                       Default: mpirun (with Open MPI: --allow-run-as-root as root, --oversubscribe
                       when N is larger than the cores)
  --ranks-per-node R   ranks per node, for {nodes} in the launcher (default 1)
  --out DIR            output directory (default scaling-weak-YYYYmmdd-HHMMSS); it must not hold
                       results files (*.yaml) already
  --set key=value      deck override, repeatable (--set mesh.cells=8 --set run.steps=5 for a quick demo)
  --exe PATH           the hexcontract binary (default: $HEXCONTRACT, else build/hexcontract of this
                       checkout, else bin/hexcontract of the installation this script is part of, else
                       hexcontract on PATH)
  --dry-run            print the commands without running them
  -h, --help           this text

Files in DIR: run_npN.yaml (results), run_npN.log (everything the run printed), report.*.
Exit code: 0 when every run and the report succeeded; a failing run's exit code (1 failed check or
runtime error, 2 bad input, 3 out of memory) after a message with the command and its log's tail;
2 for bad usage of this script.
EOF
}

die() {
  echo "scaling.sh: error: $*" >&2
  exit 2
}

root=$(cd "$(dirname "$0")/.." && pwd)
mode=""
ranks="1 2 4"
deck=""
backend=""
threads=""
rpn=1
launcher=""
out=""
exe="${HEXCONTRACT:-}"
dry=0
sets=()

while [ $# -gt 0 ]; do
  case "$1" in
    -h | --help) usage; exit 0 ;;
    weak | strong) [ -z "$mode" ] || die "give weak or strong once (got $mode and $1)"; mode=$1 ;;
    --ranks | --deck | --backend | --threads | --ranks-per-node | --launcher | --out | --set | --exe)
      [ $# -ge 2 ] || die "$1 needs a value (see --help)"
      case "$1" in
        --ranks) ranks=$2 ;;
        --deck) deck=$2 ;;
        --backend) backend=$2 ;;
        --threads) threads=$2 ;;
        --ranks-per-node) rpn=$2 ;;
        --launcher) launcher=$2 ;;
        --out) out=$2 ;;
        --set)
          case "$2" in mesh.sizing=*) die "--set $2: mesh.sizing is what weak (per-rank) or strong (global) sets" ;; esac
          sets+=(--set "$2") ;;
        --exe) exe=$2 ;;
      esac
      shift ;;
    --ranks=* | --deck=* | --backend=* | --threads=* | --ranks-per-node=* | --launcher=* | --out=* | --set=* | --exe=*)
      set -- "${1%%=*}" "${1#*=}" "${@:2}"
      continue ;;
    --dry-run) dry=1 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
  shift
done

[ -n "$mode" ] || die "say weak or strong: run_scripts/scaling.sh weak --ranks \"1 2 4\" (see --help)"
[ -n "$deck" ] || deck="$root/inputs/$mode.yaml"
sizing=global
[ "$mode" = weak ] && sizing=per-rank
[ -f "$deck" ] || die "--deck $deck: no such file"
for n in $ranks; do
  case "$n" in
    '' | *[!0-9]* | 0*) die "--ranks \"$ranks\": '$n' is not a positive integer" ;;
  esac
done
# Rank counts in increasing order, each once.
ranks=$(printf '%s\n' $ranks | sort -n -u | tr '\n' ' ')
[ -n "${ranks// /}" ] || die "--ranks is empty; give rank counts, e.g. --ranks \"1 2 4\""
case "$rpn" in '' | *[!0-9]* | 0*) die "--ranks-per-node $rpn: not a positive integer" ;; esac
if [ -n "$threads" ]; then
  case "$threads" in '' | *[!0-9]* | 0*) die "--threads $threads: not a positive integer" ;; esac
  export OMP_NUM_THREADS=$threads
elif [ -z "${OMP_NUM_THREADS:-}" ]; then
  export OMP_NUM_THREADS=1
fi

if [ -z "$exe" ]; then
  if [ -x "$root/build/hexcontract" ]; then
    exe="$root/build/hexcontract"
  elif [ -x "$root/../../bin/hexcontract" ] && [ -f "$root/inputs/weak.yaml" ]; then
    # Installed: this script is P/share/hexcontract/run_scripts/scaling.sh and the binary P/bin/hexcontract.
    exe=$(cd "$root/../../bin" && pwd)/hexcontract
  elif command -v hexcontract >/dev/null 2>&1; then
    exe=$(command -v hexcontract)
  else
    die "no hexcontract binary: build it (run_scripts/setup.sh) or name it with --exe PATH"
  fi
fi
[ -x "$exe" ] || die "--exe $exe: not an executable"

[ -n "$out" ] || out="scaling-$mode-$(date -u +%Y%m%d-%H%M%S)"
if [ "$dry" = 0 ]; then
  mkdir -p "$out" || die "--out $out: cannot create the directory"
  existing=$(find "$out" -maxdepth 1 -type f \( -name '*.yaml' -o -name '*.yml' \) | head -3 | tr '\n' ' ')
  [ -z "$existing" ] || die "--out $out already holds results files ($existing...); a report reads every one of them, so choose another --out or remove them"
fi
outabs=$(cd "$out" 2>/dev/null && pwd || echo "$out")

cores=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
openmpi=0
if [ -z "$launcher" ]; then
  command -v mpirun >/dev/null 2>&1 || die "mpirun not found; install MPI or name the launcher with --launcher"
  mpirun --version 2>/dev/null | grep -qi "open mpi\|open-mpi\|openrte" && openmpi=1
fi

# The launch command of n ranks, in the array cmd.
launch() {
  local n=$1
  cmd=()
  if [ -n "$launcher" ]; then
    local word
    # The launcher is split into words like a shell command line (no quoting inside it).
    local nodes=$(((n + rpn - 1) / rpn))
    for word in $launcher; do
      word=${word//\{np\}/$n}
      cmd+=("${word//\{nodes\}/$nodes}")
    done
    case "$launcher" in *"{np}"*) ;; *) cmd+=(-np "$n") ;; esac
  else
    cmd=(mpirun)
    if [ "$openmpi" = 1 ]; then
      [ "$(id -u)" = 0 ] && cmd+=(--allow-run-as-root)
      [ "$n" -gt "$cores" ] && cmd+=(--oversubscribe)
    fi
    cmd+=(-np "$n")
  fi
  cmd+=("$exe" "$deck" ${sets[@]+"${sets[@]}"})
  [ -n "$backend" ] && cmd+=(--set "run.backend=$backend")
  cmd+=(--set "mesh.sizing=$sizing")
  # Last, so that they win over any --set: one results file per run, in the output directory.
  cmd+=(--set "output.dir=$outabs" --set "output.results=run_np$n.yaml" --set output.summary=true)
}

quote() {
  local q="" a
  for a in "$@"; do q+=" $(printf '%q' "$a")"; done
  echo "${q# }"
}

nruns=$(echo $ranks | wc -w)
echo "scaling.sh: $mode scaling over ranks $ranks($nruns runs) with $(basename "$deck"), $OMP_NUM_THREADS OpenMP thread(s) per rank, $cores cores here; results in $out"
i=0
for n in $ranks; do
  i=$((i + 1))
  launch "$n"
  log="$out/run_np$n.log"
  if [ "$dry" = 1 ]; then
    echo "$(quote "${cmd[@]}") > $log 2>&1"
    continue
  fi
  printf 'scaling.sh: run %d/%d on %d rank%s ... ' "$i" "$nruns" "$n" "$([ "$n" = 1 ] || echo s)"
  start=$(date +%s)
  { echo "# $(quote "${cmd[@]}")"; echo "# OMP_NUM_THREADS=$OMP_NUM_THREADS, started $(date -u +%Y-%m-%dT%H:%M:%SZ)"; } > "$log"
  "${cmd[@]}" >> "$log" 2>&1 < /dev/null
  rc=$?
  secs=$(($(date +%s) - start))
  if [ "$rc" != 0 ]; then
    echo "FAILED"
    {
      echo "scaling.sh: error: the run on $n rank(s) failed with exit code $rc after ${secs} s:"
      echo "  $(quote "${cmd[@]}")"
      grep -m 3 'error:' "$log" | sed 's/^/  /'
      echo "last lines of $log:"
      tail -n 15 "$log" | sed 's/^/  | /'
      echo "scaling.sh: stopped; the runs before it are in $out (hexcontract report $out reports them)"
    } >&2
    exit "$rc"
  fi
  step=$(grep -m1 '^time per step:' "$log" | sed 's/^time per step: \([^ ]*\) s avg.*/\1/')
  echo "done in ${secs} s${step:+, $step s per step}"
done
[ "$dry" = 1 ] && { echo "$(quote "$exe" report "$out")"; exit 0; }

"$exe" report "$out"
rc=$?
[ "$rc" = 0 ] || echo "scaling.sh: error: hexcontract report $out failed with exit code $rc" >&2
exit "$rc"
