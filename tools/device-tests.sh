#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, after tools/device-bundle.sh built .device
# here and the device tool carried it: every test binary (GPU and CPU ones), logs in $OUT.
# Exits non-zero if any test binary failed. Arguments name the binaries to run (default: all),
# e.g. only the GPU ones: tools/device-tests.sh $(cd tests/gpu && ls *_test.cpp | sed 's/.cpp$//')
set -uo pipefail
source "$(dirname "$0")/device-env.sh"
# The device tool brings back few files from $OUT, so the logs are joined into one.
out="${OUT:-/tmp/gputune-device-tests}"
logs=$(mktemp -d)
mkdir -p "$out"

{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv
  ldd .device/bin/gputune | grep -E 'not found|nvrtc|muparser|stdc' || true
  # The HDF5 reader and what it needs, staged beside it where the bundle's build made it.
  if [ -f .device/bin/libgputune_hdf5.so ]; then
    ldd .device/bin/libgputune_hdf5.so | grep -E 'not found|hdf5' || true
  fi
} 2>&1 | tee "$out/environment.txt"

failed=()
summary=()
binaries=()
if [ "$#" -gt 0 ]; then
  for name in "$@"; do binaries+=(".device/bin/$name"); done
else
  binaries=(.device/bin/*_test)
fi
for test in "${binaries[@]}"; do
  name=$(basename "$test")
  # One process per test case, as ctest runs them: a test that forks GPU workers needs a
  # process that has not initialised CUDA, which an earlier test in the same binary may have.
  cases=$("$test" --gtest_list_tests 2>/dev/null | awk '/^[^ ]/ {suite = $1} /^  / {print suite $1}')
  : >"$logs/$name.log"
  rc=0
  for case in $cases; do
    # A hung kernel must not eat the whole lease.
    timeout "${TEST_TIMEOUT:-150}" "$test" --gtest_color=no --gtest_filter="$case" \
      >>"$logs/$name.log" 2>&1 || rc=1
  done
  { echo "===== $name (rc $rc)"; cat "$logs/$name.log"; } >>"$out/tests.log"
  counts=$(grep -E '^\[ +(PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?[,.]' "$logs/$name.log" |
           sed -E 's/^\[ +([A-Z]+) +\] ([0-9]+) .*/\1 \2/' |
           awk '{n[$1] += $2} END {for (k in n) printf "%s %d ", k, n[k]}')
  summary+=("$(printf '%-28s rc=%-3s %s' "$name" "$rc" "$counts")")
  if [ "$rc" -ne 0 ]; then failed+=("$name"); fi
done

# Failures in full, then the figures the GPU tests print, then one line per binary.
for name in "${failed[@]}"; do
  echo "=== $name"
  grep -E -A3 '\[  FAILED  \]|Failure$' "$logs/$name.log" | head -40
done
cat "$logs"/*.log | grep -E '^(GPU 0|copy bandwidth|transpose n=)' || true
printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
if [ "${#failed[@]}" -ne 0 ]; then
  echo "FAILED: ${failed[*]}"
  exit 1
fi
echo "all test binaries passed"
