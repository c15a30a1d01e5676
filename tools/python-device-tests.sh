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
cp -r spaces kernels mod/gputune/  # as an installed package holds them
# The engine's shared library beside _core, where $ORIGIN finds it, as pip installs it.
cp lib/libgputune_engine.so mod/gputune/
g++ -O1 -shared -fPIC -std=c++17 $(python3 -m pybind11 --includes) -Iinclude -Ipython/src \
  python/src/gputune/_core*.cpp -Wl,--whole-archive libgputune_core.a -Wl,--no-whole-archive \
  mod/gputune/libgputune_engine.so lib/libyaml-cpp.so.0.7 lib/libsqlite3.so.0 \
  lib/libmuparser.so.2 "$nvrtc" -ldl -lpthread \
  -Wl,-rpath,'$ORIGIN'":$PWD/lib:$(dirname "$nvrtc")" -o "mod/gputune/_core$suffix"
export PYTHONPATH="$PWD/mod" GPUTUNE_SPACES="$PWD/spaces" PYTHONUNBUFFERED=1
export GPUTUNE_EXPORT_DIR="$out" GPUTUNE_EXPORT_RECORDING="$out/tune_in_notebook.recording.csv"
# The toolkit's NVRTC (and its builtins) first, as tools/device-tests.sh does: the image's Python
# environment carries other CUDA libraries.
export LD_LIBRARY_PATH="$(dirname "$nvrtc")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
  g++ --version | head -1
  python3 -c 'import sys, pybind11; print(sys.version.split()[0], "pybind11", pybind11.__version__)'
  echo "nvrtc: $nvrtc"
  ldd "mod/gputune/_core$suffix" | grep -E 'nvrtc|engine|zstd|stdc|yaml|sqlite|muparser|gomp|not found'
  # One compile outside pytest first, so that a crash in NVRTC or the core shows where it is.
  python3 -X faulthandler -c 'import gputune, sys; sys.path.insert(0, "python/tests")
from scale_kernel import tune_kwargs
_, kw = tune_kwargs(params={"THREADS": [64], "ITEMS": [1]}, compile_only=True)
df = gputune.tune(**kw).df
print("one variant compiled:", df.status.tolist(), "registers:", df.registers.tolist())' || echo "sanity compile failed: rc $?"
} 2>&1 | tee "$out/environment.txt"
cd python
python3 -m pytest -rs -v -p no:cacheprovider tests 2>&1 | tee "$out/pytest.log"
exit "${PIPESTATUS[0]}"
