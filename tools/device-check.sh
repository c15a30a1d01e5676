#!/usr/bin/env bash
# One device call's worth of checks after a change to GPU code: the GPU tests (and the CPU tests
# named in $CPU_TESTS), a T1 file's HDF5 input read through the bundle's HDF5 reader, the Python
# bindings' tests if .pybundle was carried, and a short transpose search whose report gives
# throughput and the best variant's share of copy bandwidth.
# Carry .device (tools/device-bundle.sh) and optionally .pybundle (tools/python-device-bundle.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
# Everything lands in one tarball: the device tool brings back few files.
out=$(mktemp -d)/device-check
mkdir -p "$out"
trap 'tar -czf "${OUT:-/tmp}/device-check.tar.gz" -C "$(dirname "$out")" device-check' EXIT
gpu_tests=$(cd tests/gpu && ls *_test.cpp | sed 's/\.cpp$//')
rc=0
OUT="$out" bash tools/device-tests.sh $gpu_tests ${CPU_TESTS:-} || rc=1
if [ -f .device/bin/libgputune_hdf5.so ]; then
  echo "=== a T1 file's BinaryHDF fill, read by the bundle's HDF5 reader"
  bash tools/device-hdf5-check.sh 2>&1 | tee "$out/hdf5.txt" | tail -n 3 || rc=1
fi
export LD_LIBRARY_PATH="${CUDA_HOME:-/usr/local/cuda}/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "=== transpose search (random, 60 evaluations, 16 compile jobs)"
.device/bin/gputune search spaces/transpose.yaml --set n=8192 --strategy random --budget 60 \
  --seed 1 --jobs 16 --top 3 --db "$out/transpose.db" 2>/dev/null | tee "$out/transpose.txt" || rc=1
if [ -x .device/bin/gputune_fill_bench ]; then
  echo "=== filling 800M random float32 inputs on the host ($(nproc) threads)"
  .device/bin/gputune_fill_bench 800000000 "$(nproc)" 2>&1 | tee "$out/fill.txt" || rc=1
fi
if [ -d .pybundle ]; then
  echo "=== Python tests"
  (cd .pybundle && OUT="$out/python" timeout 300 bash tools/python-device-tests.sh) >"$out/python.log" 2>&1 || rc=1
  tail -n 15 "$out/python.log"
fi
exit $rc
