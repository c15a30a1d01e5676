#!/usr/bin/env bash
# Issue 29's loop-fusion measurement, on the GPU machine: bench/engine/stencil_chain.yaml (three
# naive smoothing passes) searched whole at each size (brute force, every config measured), and
# the best of each `fuse` value against the best unfused config of the same run. Appends a
# section to bench/RESULTS.md (GPU, date, commit) and leaves it, the database and each search's
# JSON in $OUT (or the work folder it prints).
#   source tools/device-env.sh && tools/fusion-bench.sh       # after tools/device-bundle.sh
#   SIZES="4096 8192" tools/fusion-bench.sh                     # other square sizes
# On an H100 about 20 seconds a size.
set -uo pipefail
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="${CUDA_HOME:-/usr/local/cuda}/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
bin="${BUILD_DIR:-build}"
work="${OUT:-$(mktemp -d)}"
mkdir -p "$work"
spec=bench/engine/stencil_chain.yaml
commit=$(cat .device/COMMIT 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)
section="$work/RESULTS-fusion.md"
echo "work folder: $work"
{
  echo
  echo "## $(date -u '+%Y-%m-%d %H:%M UTC') loop fusion: the three-pass chain fused against the best unfused (issue 29)"
  echo
  echo "\`tools/fusion-bench.sh\`, commit $commit: \`$spec\` searched whole at each size"
  echo "(\`gputune search --strategy brute_force --no-prune\`), the best of each \`fuse\` value."
  echo
} >"$section"
status=0
for n in ${SIZES:-8192 16384}; do
  echo "== ${n} x ${n}"
  "$bin/gputune" search "$spec" --set nx="$n" --set ny="$n" --strategy brute_force --no-prune \
    --json --top 1000000 --db "$work/fusion.db" >"$work/fusion_$n.json" 2>"$work/fusion_$n.err" ||
    { status=1; tail -3 "$work/fusion_$n.err"; continue; }
  python3 bench/fusion_table.py "$work/fusion_$n.json" "$n" >>"$section" || status=1
done
cat "$section"
cat "$section" >>bench/RESULTS.md
echo "appended to bench/RESULTS.md (and in $section)"
exit $status
