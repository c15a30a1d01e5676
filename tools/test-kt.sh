#!/usr/bin/env bash
# The Kernel Tuner comparison's CPU tests (bench/kt_compare): Kernel Tuner 1.5.0 and what its
# search-space code needs, in a virtual environment beside the C++ build, then pytest. Needs
# the gputune binary of that build (tools/build.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${BUILD_DIR:-build}"
case "$build" in /*) ;; *) build="$PWD/$build" ;; esac
venv="$build/kt-venv"
if [ ! -x "$venv/bin/python" ]; then
  "${PYTHON:-python3}" -m venv "$venv"
fi
pip=("$venv/bin/python" -m pip -q --disable-pip-version-check)
if ! "$venv/bin/python" -c 'import kernel_tuner, constraint, yaml, pytest' 2>/dev/null; then
  # Only what tune_kernel's import and its search-space construction need: the rest of Kernel
  # Tuner's requirements (pymoo, scikit-learn, scipy, pandas) serve other strategies.
  "${pip[@]}" install --no-deps kernel_tuner==1.5.0
  "${pip[@]}" install python-constraint2 xmltodict jsonschema numpy packaging pyyaml pytest
fi
export GPUTUNE_BINARY="${GPUTUNE_BINARY:-$build/gputune}"
exec "$venv/bin/python" -m pytest -q -rs bench/kt_compare "$@"
