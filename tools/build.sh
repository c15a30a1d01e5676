#!/usr/bin/env bash
# Configures and builds gputune and its tests into ${BUILD_DIR:-build}.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${BUILD_DIR:-build}"
cuda="${CUDA_HOME:-/usr/local/cuda}"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" \
  -DCUDAToolkit_ROOT="$cuda" "$@" >/dev/null
ninja -C "$build" -j "$(nproc)"
