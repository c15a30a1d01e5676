#!/usr/bin/env bash
# Runs on the GPU machine from .pybundle (see tools/python-device-bundle.sh): builds
# gputune._core for that machine's Python against the prebuilt core, then runs python/tests
# (the gpu-marked ones included). Logs and the notebook's recording go to $OUT.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-/tmp/gputune-python-tests}"
mkdir -p "$out" mod/gputune
cuda="${CUDA_HOME:-/usr/local/cuda}"
nvrtc=$(ls "$cuda"/lib64/libnvrtc.so* "$cuda"/targets/x86_64-linux/lib/libnvrtc.so* 2>/dev/null |
        grep -v alt | head -1)
suffix=$(python3 -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
cp python/src/gputune/*.py mod/gputune/
g++ -O1 -shared -fPIC -std=c++17 $(python3 -m pybind11 --includes) -Iinclude \
  python/src/gputune/_core.cpp libgputune_core.a lib/libyaml-cpp.so.0.7 lib/libsqlite3.so.0 \
  lib/libmuparser.so.2 "$nvrtc" -ldl -lpthread -Wl,-rpath,"$PWD/lib:$(dirname "$nvrtc")" \
  -o "mod/gputune/_core$suffix"
export PYTHONPATH="$PWD/mod" GPUTUNE_SPACES="$PWD/spaces" PYTHONUNBUFFERED=1
export GPUTUNE_EXPORT_DIR="$out" GPUTUNE_EXPORT_RECORDING="$out/tune_in_notebook.recording.csv"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
cd python
python3 -m pytest -rs -v -s -p no:cacheprovider tests 2>&1 | tee "$out/pytest.log"
exit "${PIPESTATUS[0]}"
