#!/usr/bin/env bash
# gputune against Kernel Tuner 1.5.0 on the GPU machine, from the repository root, with .device
# (tools/device-bundle.sh) and .whl (Kernel Tuner's wheels, bench/kt_compare/README.md) carried.
# Arguments go to run.py (--budget-s, --spaces, --set SPACE:NAME=VALUE, --gputune-arg ...).
# Writes $OUT/kt_compare.md (the section for bench/RESULTS.md), $OUT/kt_compare.json and
# $OUT/kt_compare.log.
#   run.sh examples [--only matmul,expdist] [--budget-s S]: Kernel Tuner's own examples instead
# (kt_examples.py; .kt_examples carried, staged by stage_examples.sh): $OUT/kt_examples.md,
# .json and .log.
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-/tmp/kt-compare}"
mkdir -p "$out"
if [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 1
  export PYTHONPATH="/tmp/site${PYTHONPATH:+:$PYTHONPATH}"
fi
if [ -f .device/bin.tar.xz ] && [ ! -x .device/bin/gputune ]; then
  tar -C .device -xJf .device/bin.tar.xz --wildcards bin/gputune 'bin/lib*'
fi
cuda="${CUDA_HOME:-/usr/local/cuda}"
lib="$cuda/lib64:$cuda/targets/x86_64-linux/lib"
export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONUNBUFFERED=1
python3 -c 'import kernel_tuner as k, cupy as c; print("kernel_tuner", k.__version__,
                                                     "cupy", c.__version__)' || exit 1
if [ "${1:-}" = examples ]; then
  shift
  python3 bench/kt_compare/kt_examples.py --examples .kt_examples/cuda \
    --gputune .device/bin/gputune --out "$out" "$@" 2>&1 | tee "$out/kt_examples.log"
else
  python3 bench/kt_compare/run.py --gputune .device/bin/gputune --out "$out" "$@" 2>&1 |
    tee "$out/kt_compare.log"
fi
