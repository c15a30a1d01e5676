#!/usr/bin/env bash
# Runs on the GPU machine (carry .device): exhaustive searches of the given spaces at the given
# problem values, exported as text recordings (issue 5's replayed spaces) into $OUT as one tar.
# A space is a shipped spec's name (spaces/NAME.yaml) or a spec's path from the repository root.
#   tools/device-record.sh "transpose:n=8192 transpose:n=4096 gemv:m=8192,n=8192 ..."
#   tools/device-record.sh "bench/kt_compare/kt_specs/pnpoly.yaml:n=1000000 ..."
set -uo pipefail
cd "$(dirname "$0")/.."
source tools/device-env.sh
out="${OUT:-/tmp/gputune-record}"
db="$(mktemp -d)/record.db"  # only the tar comes back: the device tool returns few files
commit=$(cat .device/COMMIT 2>/dev/null || echo unknown)
mkdir -p "$out/recordings"
for item in $1; do
  spec="${item%%:*}"
  case "$spec" in *.yaml | *.json) path="$spec" ;; *) path="spaces/$spec.yaml" ;; esac
  name=$(basename "$path" | sed 's/\.[a-z]*$//')
  sets=()
  IFS=',' read -ra pairs <<<"${item#*:}"
  for pair in "${pairs[@]}"; do sets+=(--set "$pair"); done
  echo "== $path ${sets[*]}"
  # SIGTERM at the time limit stops the search after the variant in flight; what was
  # measured is exported all the same. --no-prune: a recording is the whole space, though the
  # database holds the kernel's other sizes.
  timeout "${RECORD_TIMEOUT:-600}" .device/bin/gputune search "$path" "${sets[@]}" \
    --strategy brute_force --no-prune \
    --db "$db" --top 3 ${RECORD_OPTIONS:-} \
    2>"$out/recordings/$name-$(echo "${item#*:}" | tr ",=" "__").log" | tail -8
done
.device/bin/gputune export --db "$db" --out "$out/recordings" --commit "$commit"
tar -C "$out" -cf "$out/recordings.tar" recordings && rm -rf "$out/recordings"
