#!/usr/bin/env bash
# Installs what gputune needs to build and test on Debian 12 / Ubuntu, skipping what is there.
# The CUDA toolkit itself (NVRTC, cuda.h) is expected in /usr/local/cuda or $CUDA_HOME.
set -euo pipefail
# libopenmpi-dev and openmpi-bin: gputune search --mpi and its tests (optional: tests skip without mpirun).
# libclang-19-dev and llvm-19-dev: the transformation engine links Clang's and LLVM's static
# archives into libgputune_engine.so (src/engine/CMakeLists.txt); zlib and zstd are what they need.
# libhdf5-dev: libgputune_hdf5.so, the reader of T1 BinaryHDF fills (src/hdf5; built only where
# pkg-config finds HDF5, opened at run time, so gputune itself and the GPU host do without it).
# clang-19 and libclang-rt-19-dev: the fuzz targets (tests/fuzz, tools/fuzz.sh): libFuzzer with
# AddressSanitizer and UndefinedBehaviorSanitizer.
packages=(g++ cmake ninja-build pkg-config libyaml-cpp-dev libboost-program-options-dev
          libsqlite3-dev libeigen3-dev libmuparser-dev nlohmann-json3-dev libgtest-dev
          python3-dev python3-venv libopenmpi-dev openmpi-bin
          libclang-19-dev llvm-19-dev zlib1g-dev libzstd-dev clang-19 libclang-rt-19-dev
          libhdf5-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}" >&2
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
cuda="${CUDA_HOME:-/usr/local/cuda}"
if [ ! -f "$cuda/include/nvrtc.h" ]; then
  echo "install-deps: no CUDA toolkit in $cuda (need nvrtc.h and libnvrtc); install it or set CUDA_HOME" >&2
  exit 69
fi
