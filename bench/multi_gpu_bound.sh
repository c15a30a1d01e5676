#!/usr/bin/env bash
# Issue 31's measurement of more GPUs, in one device call on a machine of 2 or 4 GPUs (carry
# .device, built with Open MPI by tools/device-bundle.sh), under 9 minutes:
#   1. GPU-bound: SGEMM 4096^3, brute force over the first GPU_BUDGET (600) configs, every
#      variant compiled beforehand (--warm) and timed in full (--sampling full): one GPU, MPI
#      ranks (one per GPU) and --devices all. Goal: 1.8x on two GPUs, 3.4x on four.
#   2. Compile-bound: the same space cold, BUDGET (400) variants: one GPU on a C/G share of the
#      CPUs (one-k) against G MPI ranks each compiling on its own share (split), as ranks on G
#      hosts of C/G CPUs would.
# A search past GPU_TIMEOUT_S (150) or COMPILE_TIMEOUT_S (90) is stopped with Ctrl-C and still
# reports its rate.
# Writes $OUT/gpu_bound/{section.md,runs.json}, $OUT/compile_bound/{section.md,runs.json} and
# $OUT/section.md (both sections, for bench/RESULTS.md).
set -uo pipefail
cd "$(dirname "$0")/.."
source tools/device-env.sh
out="${OUT:-/tmp/multi-gpu-bound}"
size="${SIZE:-4096}"
common=(--gputune .device/bin/gputune --spec sgemm --set "m=$size" --set "n=$size"
  --set "k=$size" --strategies brute_force --no-write)
python3 bench/multi_gpu_bench.py "${common[@]}" --modes one,mpi,all --warm \
  --budget "${GPU_BUDGET:-600}" --search-arg=--sampling --search-arg=full \
  --timeout "${GPU_TIMEOUT_S:-150}" \
  --out "$out/gpu_bound"
rc=$?
python3 bench/multi_gpu_bench.py "${common[@]}" --modes one-k,split --budget "${BUDGET:-400}" \
  --timeout "${COMPILE_TIMEOUT_S:-90}" --out "$out/compile_bound" || rc=1
cat "$out/gpu_bound/section.md" "$out/compile_bound/section.md" >"$out/section.md" 2>/dev/null
exit $rc
