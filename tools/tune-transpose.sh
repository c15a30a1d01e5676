#!/usr/bin/env bash
# The main job: installs what is missing, builds, and tunes the shipped transpose space.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
bash tools/build.sh
exec "${BUILD_DIR:-build}"/gputune search spaces/transpose.yaml "$@"
