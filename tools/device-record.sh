#!/usr/bin/env bash
# Runs on the GPU machine (carry .device): exhaustive searches of the given spaces at the given
# problem values, exported as text recordings (issue 5's replayed spaces) into $OUT as one tar.
#   tools/device-record.sh "transpose:n=8192 transpose:n=4096 gemv:m=8192,n=8192 ..."
set -uo pipefail
export LD_LIBRARY_PATH="${CUDA_HOME:-/usr/local/cuda}/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
out="${OUT:-/tmp/gputune-record}"
db="$(mktemp -d)/record.db"  # only the tar comes back: the device tool returns few files
commit=$(cat .device/COMMIT 2>/dev/null || echo unknown)
mkdir -p "$out/recordings"
for item in $1; do
  spec="${item%%:*}"
  sets=()
  IFS=',' read -ra pairs <<<"${item#*:}"
  for pair in "${pairs[@]}"; do sets+=(--set "$pair"); done
  echo "== $spec ${sets[*]}"
  # SIGTERM at the time limit stops the search after the variant in flight; what was
  # measured is exported all the same.
  timeout "${RECORD_TIMEOUT:-600}" .device/bin/gputune search "spaces/$spec.yaml" "${sets[@]}" \
    --strategy brute_force \
    --db "$db" --top 3 ${RECORD_OPTIONS:-} 2>"$out/recordings/$spec-$(echo "${item#*:}" | tr ",=" "__").log" | tail -8
done
.device/bin/gputune export --db "$db" --out "$out/recordings" --commit "$commit"
tar -C "$out" -cf "$out/recordings.tar" recordings && rm -rf "$out/recordings"
