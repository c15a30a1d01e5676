#!/usr/bin/env bash
# Runs on the GPU machine, carrying .device (tools/device-bundle.sh) and .kt_examples
# (bench/kt_compare/stage_examples.sh): whole-space recordings of Kernel Tuner's example
# kernels through our specs (bench/kt_compare/kt_specs/README.md), for the pruning benchmark.
# Writes $OUT/recordings.tar (the recordings and each search's log) and $OUT/section.md (what
# was recorded, for bench/RESULTS.md). Each search is cut at RECORD_TIMEOUT seconds (90): the
# whole call stays under 9 minutes.
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-/tmp/kt-record}"
mkdir -p "$out"
if [ ! -f .kt_examples/cuda/pnpoly.cu ]; then
  echo "record_examples: stage Kernel Tuner's examples first (stage_examples.sh)" >&2
  exit 66
fi
specs=bench/kt_compare/kt_specs
items="$specs/convolution.yaml:fh=3,fw=3 $specs/convolution.yaml:fh=5,fw=5"
items="$items $specs/convolution.yaml:fh=7,fw=7"
items="$items $specs/pnpoly.yaml:n=1000000 $specs/pnpoly.yaml:n=4000000"
start=$(date +%s)
RECORD_TIMEOUT="${RECORD_TIMEOUT:-90}" bash tools/device-record.sh "${ITEMS:-$items}" |
  tee "$out/record.log"
{
  echo "## $(date -u '+%Y-%m-%d %H:%M UTC'), whole-space recordings of Kernel Tuner's example kernels (issue 31), binaries $(cat .device/COMMIT 2>/dev/null)"
  echo
  echo "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1),"
  echo "$(nproc) cores. \`bash bench/kt_compare/record_examples.sh\` (\`tools/device-record.sh\`,"
  echo "brute force, --no-prune, default timing, each search cut at ${RECORD_TIMEOUT:-90} s),"
  echo "$(($(date +%s) - start)) s in all; recordings in db/recordings/kt/. Per search, its report's last lines:"
  echo
  echo '```'
  cat "$out/record.log"
  echo '```'
} >"$out/section.md"
