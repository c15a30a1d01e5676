#!/usr/bin/env bash
# Builds the fuzz targets (tests/fuzz, clang-19 with libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer) into ${FUZZ_BUILD_DIR:-build-fuzz} and runs each over its corpus
# (tests/fuzz/corpus/<target>, kept in the repository) for FUZZ_SECONDS seconds (default 10, what
# the test command spends). Fails on any crash, leak, sanitizer report, timeout, or a reader
# that breaks its contract (tests/fuzz/fuzz_contract.h). Longer: FUZZ_SECONDS=3600 tools/fuzz.sh;
# one target: tools/fuzz.sh release_fuzz. New inputs go to $FUZZ_BUILD_DIR/corpus/<target>, crashes
# to $FUZZ_BUILD_DIR/artifacts/ (reproduce: build-fuzz/<target> FILE). Prints one line per target
# for docs/reliability.md: runs (inputs executed), corpus size, crashes.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${FUZZ_BUILD_DIR:-build-fuzz}"
seconds="${FUZZ_SECONDS:-10}"
cxx="$(command -v clang++-19 || true)"
if [ -z "$cxx" ] || [ ! -f /usr/lib/llvm-19/lib/clang/19/lib/linux/libclang_rt.fuzzer-x86_64.a ]; then
  echo "fuzz: needs clang-19 and libclang-rt-19-dev (tools/install-deps.sh installs them)" >&2
  exit 69
fi
# The engine library of the main build (tools/build.sh), linked as it is.
engine="$(pwd)/${BUILD_DIR:-build}/libgputune_engine.so"
if [ ! -f "$engine" ]; then
  echo "fuzz: needs $engine: build gputune first (tools/build.sh)" >&2
  exit 69
fi
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S tests/fuzz -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" \
  -DGPUTUNE_ENGINE_LIBRARY="$engine" \
  -DCMAKE_C_COMPILER="${cxx%++-19}-19" -DCUDAToolkit_ROOT="${CUDA_HOME:-/usr/local/cuda}" \
  "${launcher[@]}" >/dev/null
ninja -C "$build" -j "$(nproc)" >/dev/null
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for source in tests/fuzz/*_fuzz.cpp; do targets+=("$(basename "$source" .cpp)"); done
fi
mkdir -p "$build/artifacts"
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
failed=0
printf '%-20s %10s %8s %8s\n' target runs corpus result
for target in "${targets[@]}"; do
  seeds="tests/fuzz/corpus/${target%_fuzz}"
  work="$build/corpus/${target%_fuzz}"
  mkdir -p "$work"
  log="$build/$target.log"
  # -rss_limit_mb: a reader must not take more than this for any input; -timeout: nor longer.
  if "$build/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
      -print_final_stats=1 -artifact_prefix="$build/artifacts/$target-" "$work" "$seeds" \
      >"$log" 2>&1; then
    result=ok
  else
    result=FAILED
    failed=1
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  printf '%-20s %10s %8s %8s\n' "$target" "$runs" "$(ls "$work" | wc -l)" "$result"
  if [ "$result" != ok ]; then
    grep -E 'ERROR|contract broken|runtime error|SUMMARY|Test unit written' "$log" | head -20 >&2
  fi
done
exit "$failed"
