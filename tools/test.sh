#!/usr/bin/env bash
# The test command: installs what is missing, builds, runs every test. GPU tests (label gpu)
# run where a GPU is present and are reported as skipped elsewhere. Then the fuzz targets, each
# for FUZZ_SECONDS (10) over its corpus (tools/fuzz.sh, docs/reliability.md), the Python
# bindings' tests (tools/test-python.sh) and the Kernel Tuner comparison's (tools/test-kt.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
bash tools/build.sh
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j "$(nproc)"
bash tools/fuzz.sh
bash tools/test-python.sh
bash tools/test-kt.sh
