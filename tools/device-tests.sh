#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, after tools/device-bundle.sh built .device
# here and the device tool carried it: every test binary (GPU and CPU ones), logs in $OUT.
# Exits non-zero if any test binary failed.
set -uo pipefail
export GPUTUNE_SOURCE_DIR="$PWD"
export GPUTUNE_BINARY="$PWD/.device/bin/gputune"
cuda="${CUDA_HOME:-/usr/local/cuda}"
export LD_LIBRARY_PATH="$cuda/lib64:$cuda/targets/x86_64-linux/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
out="${OUT:-/tmp/gputune-device-tests}"
mkdir -p "$out"

{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv
  ldd .device/bin/gputune | grep -E 'not found|nvrtc|muparser|stdc' || true
} 2>&1 | tee "$out/environment.txt"

failed=()
summary=()
for test in .device/bin/*_test; do
  name=$(basename "$test")
  "$test" --gtest_color=no --gtest_output="xml:$out/$name.xml" >"$out/$name.log" 2>&1
  rc=$?
  counts=$(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/$name.log" | grep -v '\] .*\.' |
           tr -s ' ' | tr '\n' ' ')
  summary+=("$(printf '%-28s rc=%-3s %s' "$name" "$rc" "$counts")")
  if [ "$rc" -ne 0 ]; then failed+=("$name"); fi
done

# Failures in full, then the figures the GPU tests print, then one line per binary.
for name in "${failed[@]}"; do
  echo "=== $name"
  grep -E '\[  FAILED  \]|Failure|error|Expected|Which is|actual' "$out/$name.log" | head -40
done
cat "$out"/*_test.log | grep -E '^(GPU 0|copy bandwidth|transpose n=)' || true
printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
if [ "${#failed[@]}" -ne 0 ]; then
  echo "FAILED: ${failed[*]}"
  exit 1
fi
echo "all test binaries passed"
