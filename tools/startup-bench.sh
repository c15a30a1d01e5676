#!/usr/bin/env bash
# Runs on the GPU machine from the device bundle (tools/device-bundle.sh; builds nothing): time
# from process start to the first launch with a release's embedded code against compiling with
# NVRTC (bench/startup_bench.cpp, fresh processes), and the run-time lookup benchmark. Appends a
# dated section to bench/RESULTS.md and copies it to $OUT. Takes well under 2 minutes.
#   tools/startup-bench.sh [RUNS]        (default 10 processes of each kind per kernel)
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10}
if [ -f .device/bin.tar.xz ] && [ ! -d .device/bin ]; then tar -C .device -xJf .device/bin.tar.xz; fi
bin=.device/bin
cuda="${CUDA_HOME:-/usr/local/cuda}"
export LD_LIBRARY_PATH="$cuda/lib64:$cuda/targets/x86_64-linux/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export GPUTUNE_SPACES="$PWD/spaces"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
case "$gpu" in
  *H200*) release=db/releases/h200.gtrel ;;
  *) release=db/releases/h100.gtrel ;;
esac
commit=$(cat .device/COMMIT 2>/dev/null || git rev-parse --short HEAD)
rows=()
for case in "spaces/sgemm.yaml --set m=1536 --set n=1536 --set k=1536" \
  "spaces/transpose.yaml --set n=3000"; do
  # shellcheck disable=SC2086
  line=$(timeout 50 "$bin/gputune_startup_bench" --release "$release" --spec $case --runs "$runs" \
    | tee /dev/stderr | grep '^| ') || line="| $case | failed or over 50 s | | | | | | |"
  rows+=("$line")
done
lookup=$(timeout 20 "$bin/gputune_runtime_bench" 2>&1 | tee /dev/stderr | grep '^| ' | head -1)
[ -n "$lookup" ] || lookup="failed"
section=$(mktemp)
{
  echo
  echo "## $(date -u '+%Y-%m-%d %H:%M') UTC, start-up: embedded code against NVRTC (issue 11), commit $commit"
  echo
  echo "$gpu, driver $driver, \`tools/startup-bench.sh\` from the device bundle, release $release."
  echo "Each figure is the median over $runs fresh processes: process start, driver initialisation,"
  echo "context, selection, code, one launch of every launch of the config, synchronize; without the"
  echo "benchmark's own argument set-up (reading the spec, zeroed buffers), timed apart since an"
  echo "application has its own. NVRTC compiles the same config without the module cache. The last"
  echo "columns are the child's time from its buffers being ready to the launches' end; the NVRTC"
  echo "median may come from NVRTC's own cache of earlier processes, the first NVRTC process's"
  echo "figure not (on a machine that never compiled this config before)."
  echo
  echo "| spec | problem | embedded code | NVRTC | NVRTC / embedded | code and launch, embedded | code and launch, NVRTC | code and launch, first NVRTC process | processes |"
  echo "|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "Run-time lookup (\`gputune_runtime_bench\`):"
  echo
  echo "$lookup"
} > "$section"
cat "$section" >> bench/RESULTS.md
if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  cp "$section" "$OUT/startup-section.md"
  cp bench/RESULTS.md "$OUT/"
fi
cat "$section"
