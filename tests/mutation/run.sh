#!/bin/sh
# The mutation check: each patch of tests/mutation/*.patch plants one bug; the suite must fail on it ("killed").
# For each patch: copy the source tree (a git checkout) to a scratch directory (only files whose content changed
# are copied, so the scratch build is incremental), apply the patch, build (CUDA off), run the suite in two stages with
# --stop-on-failure: the unit tests, then every other default test. Reports killed / SURVIVED / BROKEN (does not
# apply or build) per patch, and exits 1 if any patch survived or is broken, 2 if the unpatched tree fails.
# Usage:
#   tests/mutation/run.sh [--work DIR] [--jobs N] [--labels "REGEX"] [PATCH...]
# --work DIR: scratch directory (default: build-mutation/ beside the sources), kept between runs to build
#   incrementally. --jobs N: build and ctest parallelism (default 2). --labels REGEX: run only the tests whose
#   labels match (ctest -L) after the unit stage, e.g. "app" to show what the app-level tests catch alone.
#   PATCH: patches to run (default: every tests/mutation/*.patch).
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$src/build-mutation
jobs=2
labels=""
while [ $# -gt 0 ]; do
  case "$1" in
    --work) work=$2 && shift 2 ;;
    --jobs) jobs=$2 && shift 2 ;;
    --labels) labels=$2 && shift 2 ;;
    --help | -h) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' && exit 0 ;;
    --*) echo "run.sh: unknown option $1" >&2 && exit 2 ;;
    *) break ;;
  esac
done
if [ $# -eq 0 ]; then
  set -- "$src"/tests/mutation/*.patch
fi
mkdir -p "$work" || exit 2
work=$(cd "$work" && pwd)
tree=$work/src
build=$work/build
log=$work/logs
report=$work/report.txt
mkdir -p "$tree" "$log"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# The tree as it is in the checkout: its tracked and untracked, not ignored files (git ls-files), each copied only
# when its content differs, without keeping times: a file that a patch changed and that was restored since keeps
# its newer time, so make rebuilds it.
sync_tree() {
  (cd "$src" && git ls-files --cached --others --exclude-standard -z) | (
    cd "$src" || exit 1
    xargs -0 sh -c 'for f; do [ -f "$f" ] || continue; cmp -s "$f" "$0/$f" && continue; mkdir -p "$0/$(dirname "$f")" && cp "$f" "$0/$f" || exit 1; done' "$tree"
  )
}

build_tree() {
  if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$tree" -B "$build" -DHC_ENABLE_CUDA=OFF -DHC_NIGHTLY_TESTS=OFF -DHC_WARNINGS_AS_ERRORS=OFF >"$1" 2>&1 ||
      return 1
  fi
  cmake --build "$build" -j "$jobs" >>"$1" 2>&1
}

# Runs the suite; prints the first failing test's name (empty when every test passed).
run_suite() {
  out=$1
  : >"$out"
  rm -f "$build/Testing/Temporary/LastTestsFailed.log"
  ctest --test-dir "$build" -L unit -j "$jobs" --stop-on-failure --timeout 300 >>"$out" 2>&1
  if [ ! -s "$build/Testing/Temporary/LastTestsFailed.log" ]; then
    if [ -n "$labels" ]; then
      ctest --test-dir "$build" -L "$labels" -LE unit -j "$jobs" --stop-on-failure --timeout 300 >>"$out" 2>&1
    else
      ctest --test-dir "$build" -LE "unit|nightly" -j "$jobs" --stop-on-failure --timeout 300 >>"$out" 2>&1
    fi
  fi
  if [ -s "$build/Testing/Temporary/LastTestsFailed.log" ]; then
    head -1 "$build/Testing/Temporary/LastTestsFailed.log" | cut -d: -f2
  fi
}

start=$(date +%s)
echo "mutation check of $src: $# patches, scratch $work (host $(hostname), $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ))" |
  tee "$report"
sync_tree || exit 2
if ! build_tree "$log/baseline.build.log"; then
  echo "the unpatched tree does not build: $log/baseline.build.log" | tee -a "$report"
  exit 2
fi
failed=$(run_suite "$log/baseline.test.log")
if [ -n "$failed" ]; then
  echo "the unpatched tree fails $failed ($log/baseline.test.log): fix that first" | tee -a "$report"
  exit 2
fi
echo "unpatched tree: builds, every test passes ($(($(date +%s) - start)) s)" | tee -a "$report"

killed=0
survived=0
broken=0
for patch in "$@"; do
  name=$(basename "$patch" .patch)
  t0=$(date +%s)
  if ! (cd "$tree" && patch -p1 --batch --quiet <"$patch" >"$log/$name.patch.log" 2>&1); then
    echo "BROKEN    $name: does not apply ($log/$name.patch.log)" | tee -a "$report"
    broken=$((broken + 1))
    sync_tree
    continue
  fi
  if ! build_tree "$log/$name.build.log"; then
    echo "BROKEN    $name: does not build ($log/$name.build.log)" | tee -a "$report"
    broken=$((broken + 1))
  else
    failed=$(run_suite "$log/$name.test.log")
    if [ -n "$failed" ]; then
      echo "killed    $name: by $failed ($(($(date +%s) - t0)) s)" | tee -a "$report"
      killed=$((killed + 1))
    else
      echo "SURVIVED  $name: every test passed ($(($(date +%s) - t0)) s, $log/$name.test.log)" | tee -a "$report"
      survived=$((survived + 1))
    fi
  fi
  # Undo the patch (the files get a new time, so the next build recompiles them), then check the tree is back.
  (cd "$tree" && patch -p1 -R --batch --quiet <"$patch" >>"$log/$name.patch.log" 2>&1)
  sync_tree
done
total=$((killed + survived + broken))
echo "$killed of $total killed, $survived survived, $broken broken ($(($(date +%s) - start)) s)" | tee -a "$report"
[ "$survived" = 0 ] && [ "$broken" = 0 ]
