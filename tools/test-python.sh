#!/usr/bin/env bash
# The Python bindings' tests: `pip install ./python` into a virtual environment beside the C++
# build (the extension's build folder is kept there too, so a rerun only rebuilds what changed),
# then pytest in python/tests: the API on the CPU, the example notebook, and GPU tests (marker
# gpu) that are reported as skipped where there is no GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${BUILD_DIR:-build}"
case "$build" in /*) ;; *) build="$PWD/$build" ;; esac
venv="$build/python-venv"
if [ ! -x "$venv/bin/python" ]; then
  "${PYTHON:-python3}" -m venv "$venv"
fi
pip=("$venv/bin/python" -m pip -q --disable-pip-version-check)
"${pip[@]}" install scikit-build-core pybind11
# The core and engine the C++ build compiled are linked, not compiled a second time
# (python/CMakeLists.txt, GPUTUNE_CORE_BUILD), where that build has them.
core=()
if [ -f "$build/libgputune_core_archive.a" ] && [ -f "$build/libgputune_engine.so" ]; then
  core=(-C "cmake.define.GPUTUNE_CORE_BUILD=$build")
  echo "test-python: installing the package, linking the core built in $build" >&2
else
  echo "test-python: installing the package, compiling the core (about 10 minutes on two" \
    "cores; bash tools/build.sh first makes it a link)" >&2
fi
started=$SECONDS
# No build isolation: the build tools above are reused, and so is the CMake build folder.
CMAKE_BUILD_PARALLEL_LEVEL="${JOBS:-$(nproc)}" "${pip[@]}" install --no-build-isolation \
  -C build-dir="$build/python" "${core[@]}" "./python[test,progress]"
echo "test-python: installed in $((SECONDS - started)) s" >&2
# The command line beside the module, for the tests that compare the two front ends.
if [ -x "$build/gputune" ]; then export GPUTUNE_CLI="${GPUTUNE_CLI:-$build/gputune}"; fi
cd python
rc=0
"$venv/bin/python" -m pytest -q -rs "$@" || rc=$?
if [ "$rc" -eq 5 ]; then  # no tests collected: nothing failed
  rc=0
fi
exit "$rc"
