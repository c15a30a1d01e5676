#!/usr/bin/env bash
# Stages Kernel Tuner's own examples (examples/cuda of its repository) in .kt_examples/cuda,
# which git ignores and the device tool carries (carry: [".device", ".whl", ".kt_examples"]),
# for `bench/kt_compare/run.sh examples`. They are other people's code: read and run, never
# committed here.
#   bash bench/kt_compare/stage_examples.sh KERNEL_TUNER_CHECKOUT   (a clone, or a bare mirror)
set -euo pipefail
cd "$(dirname "$0")/../.."
src="${1:?usage: stage_examples.sh KERNEL_TUNER_CHECKOUT}"
rm -rf .kt_examples
mkdir -p .kt_examples
if [ -d "$src/examples/cuda" ]; then
  cp -r "$src/examples/cuda" .kt_examples/
else
  git -C "$src" archive HEAD examples/cuda | tar -x -C .kt_examples --strip-components=1
fi
echo "staged $(ls .kt_examples/cuda | wc -l) files from $src" \
  "($(git -C "$src" log -1 --format='%h %cd' 2>/dev/null || echo 'not a git checkout'))"
