#!/usr/bin/env bash
# Stages what the GPU machine needs to build and test the Python bindings into .pybundle: the
# core as a static library built here (that machine lacks the yaml-cpp/SQLite headers), the
# shared libraries it may lack (the engine's libgputune_engine.so among them), and the headers,
# Python sources, specs, kernels and the tests' recordings and fixtures, all of one commit (the
# working tree may hold others' half-written changes; a core and headers of
# different commits crash). Carry .pybundle with the device tool and run
# .pybundle/tools/python-device-tests.sh there.
#   REV=<commit, default HEAD> JOBS=<build jobs, default 1> tools/python-device-bundle.sh
set -euo pipefail
cd "$(dirname "$0")/.."
rev=$(git rev-parse "${REV:-HEAD}")
build=build-pybundle
if [ "$(cat "$build/REV" 2>/dev/null)" != "$rev" ]; then
  rm -rf "$build/source" "$build/REV"
  mkdir -p "$build/source"
  git archive "$rev" | tar -x -C "$build/source"
  cmake -S "$build/source" -B "$build/core" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DGPUTUNE_TESTS=OFF -DCUDAToolkit_ROOT="${CUDA_HOME:-/usr/local/cuda}" \
    $(command -v ccache >/dev/null && echo -DCMAKE_CXX_COMPILER_LAUNCHER=ccache) >/dev/null
  ninja -C "$build/core" -j "${JOBS:-1}" gputune_core_archive gputune_engine
  echo "$rev" > "$build/REV"
fi
core="$build/core/libgputune_core_archive.a"
rm -rf .pybundle
mkdir -p .pybundle/lib
# The Python tests read recordings and the test suite's fixtures and formats besides.
git archive "$rev" include python spaces kernels db/recordings tests/fixtures tests/formats \
  tools/python-device-tests.sh | tar -x -C .pybundle
cp "$core" .pybundle/libgputune_core.a
# The transformation engine, a shared library of its own (Clang inside, src/engine/CMakeLists.txt):
# the core calls it, so gputune._core loads it from beside itself, as in an installed package.
cp "$build/core/libgputune_engine.so" .pybundle/lib/
for lib in libyaml-cpp.so.0.7 libsqlite3.so.0 libmuparser.so.2; do
  cp -L "$(ldconfig -p | awk -v l="$lib" '$1 == l {print $NF; exit}')" .pybundle/lib/
done
grep -qx '/.pybundle/' .git/info/exclude || echo '/.pybundle/' >> .git/info/exclude
du -sh .pybundle >&2
