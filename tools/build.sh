#!/usr/bin/env bash
# Configures and builds gputune and its tests into ${BUILD_DIR:-build}.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${BUILD_DIR:-build}"
cuda="${CUDA_HOME:-/usr/local/cuda}"
launcher=()
# ccache, where installed, makes rebuilds in other worktrees and clean clones cheap.
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(cd .. && pwd)}"
fi
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" \
  -DCUDAToolkit_ROOT="$cuda" "${launcher[@]}" "$@" >/dev/null
ninja -C "$build" -j "$(nproc)"
