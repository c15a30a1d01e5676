#!/usr/bin/env bash
# Builds the shipped release database of this machine's GPU (docs/release-format.md): searches
# every shipped spec in spaces/ over a grid of problem sizes into one results database, then
# `gputune release` writes db/releases/<gpu>.gtrel and its text dump, with sm_90 cubins and PTX.
# With --held-out, searches the sizes between the grid points instead (exhaustively, sgemm with a
# large budget) into db/held-out/<gpu>.db, for the selection-quality benchmark.
#
# Runs on the GPU machine from the repository root with the device bundle (tools/device-bundle.sh
# builds .device; the device tool carries it), or anywhere with GPUTUNE=path/to/gputune. What it
# writes is also copied to $OUT when set (the device tool brings back only $OUT).
#
# Time (estimated, not yet measured): about 6 minutes on one H100 with the defaults. Every search
# uses --fast (at most 0.1 s of timing per variant; bench/RESULTS.md measured 113 variants/s on
# transpose n=8192 with it): 1613 brute-force variants per size over five specs, 5 sizes each,
# at roughly 60 to 110 variants/s, about 250 s; sgemm 60 model-guided evaluations at 5 sizes,
# about 75 s; about 1.5 s to start each of the 30 searches; the release's compiles (PTX and
# cubins, the cubins mostly from the module cache) under 40 s. --held-out: about 5 minutes. Every
# search is capped by --budget-seconds and the whole run by --max-total-seconds: the searches
# left share what remains, so the run ends in time even on a slower GPU.
set -uo pipefail
cd "$(dirname "$0")/.."

usage() {
  cat <<'USAGE'
tools/ship-releases.sh [options]

  --gpu NAME               name of the outputs (default: from nvidia-smi, e.g. h100, h200)
  --specs "A B"            only these shipped specs (default: all in spaces/)
  --held-out               search the held-out sizes into db/held-out/<gpu>.db; no release
  --budget-seconds S       time cap of one search (default 40)
  --max-seconds S          timing of one variant, passed to gputune search (default 0.1)
  --sgemm-budget N         sgemm evaluations per size (default 60; 400 with --held-out)
  --max-total-seconds S    the whole run, searches and release (default 540)
  --jobs N                 compiler processes (default: one per core)
  -h, --help               this help
USAGE
}

gpu=""
specs=""
held_out=0
budget_seconds=40
max_seconds=0.1
sgemm_budget=""
max_total=540
jobs=$(nproc)
while [ $# -gt 0 ]; do
  case "$1" in
    --gpu) gpu="$2"; shift 2 ;;
    --specs) specs="$2"; shift 2 ;;
    --held-out) held_out=1; shift ;;
    --budget-seconds) budget_seconds="$2"; shift 2 ;;
    --max-seconds) max_seconds="$2"; shift 2 ;;
    --sgemm-budget) sgemm_budget="$2"; shift 2 ;;
    --max-total-seconds) max_total="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "ship-releases.sh: unknown argument '$1'; see --help" >&2; exit 64 ;;
  esac
done
[ -n "$sgemm_budget" ] || sgemm_budget=$([ "$held_out" = 1 ] && echo 400 || echo 60)

if [ -z "${GPUTUNE:-}" ]; then
  if [ -f .device/bin.tar.xz ] && [ ! -d .device/bin ]; then tar -C .device -xJf .device/bin.tar.xz; fi
  GPUTUNE="$PWD/.device/bin/gputune"
fi
if [ ! -x "$GPUTUNE" ]; then
  echo "ship-releases.sh: no gputune at $GPUTUNE; build the bundle (tools/device-bundle.sh) or set GPUTUNE" >&2
  exit 69
fi
cuda="${CUDA_HOME:-/usr/local/cuda}"
export LD_LIBRARY_PATH="$cuda/lib64:$cuda/targets/x86_64-linux/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export GPUTUNE_SPACES="$PWD/spaces"

if [ -z "$gpu" ]; then
  name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
  # "NVIDIA H100 80GB HBM3" -> h100; anything else -> its name in lower case, dashes for spaces.
  gpu=$(echo "$name" | grep -oE '\b[A-Z][0-9]{2,4}\b' | head -n 1 | tr 'A-Z' 'a-z')
  [ -n "$gpu" ] || gpu=$(echo "$name" | tr 'A-Z ' 'a-z-' | tr -cd 'a-z0-9-')
  [ -n "$gpu" ] || { echo "ship-releases.sh: no GPU found (nvidia-smi); pass --gpu NAME" >&2; exit 69; }
fi
[ -n "$specs" ] || specs=$(cd spaces && ls *.yaml | sed 's/\.yaml$//' | tr '\n' ' ')

# Problem sizes per spec: the grid spans factors of 2 to 4 per step, so that sizes between its
# points are a real test of the run time's nearest-problem and model tiers; the held-out sizes
# lie between them, one of them off any power of two.
sizes() {  # spec, grid|held-out -> one --set argument per line
  local spec=$1 kind=$2 list
  case "$spec/$kind" in
    transpose/grid) list="n=512 n=1024 n=2048 n=4096 n=8192" ;;
    transpose/held-out) list="n=768 n=1536 n=3000 n=6144" ;;
    stencil/grid|stencil_chain/grid) list="nx=512,ny=512 nx=1024,ny=1024 nx=2048,ny=2048 nx=4096,ny=4096 nx=8192,ny=8192" ;;
    stencil/held-out|stencil_chain/held-out) list="nx=768,ny=768 nx=1536,ny=1536 nx=3000,ny=3000 nx=6144,ny=6144" ;;
    gemv/grid) list="m=1024,n=1024 m=2048,n=2048 m=4096,n=4096 m=8192,n=8192 m=16384,n=16384" ;;
    gemv/held-out) list="m=1536,n=1536 m=3000,n=3000 m=6144,n=6144 m=12288,n=12288" ;;
    reduce/grid) list="n=1048576 n=4194304 n=16777216 n=67108864 n=268435456" ;;
    reduce/held-out) list="n=2097152 n=8388608 n=33554432 n=150000000" ;;
    sgemm/grid) list="m=256,n=256,k=256 m=512,n=512,k=512 m=1024,n=1024,k=1024 m=2048,n=2048,k=2048 m=4096,n=4096,k=4096" ;;
    sgemm/held-out) list="m=768,n=768,k=768 m=1536,n=1536,k=1536 m=3000,n=3000,k=3000" ;;
    *) echo "ship-releases.sh: no $kind sizes for spec '$spec'; add them to sizes()" >&2; return 1 ;;
  esac
  echo "$list" | tr ' ' '\n'
}

kind=$([ "$held_out" = 1 ] && echo held-out || echo grid)
if [ "$held_out" = 1 ]; then
  db="db/held-out/$gpu.db"
else
  db="db/results/$gpu.db"
fi
release="db/releases/$gpu.gtrel"
logs="$(mktemp -d)/logs-$gpu-$kind"  # a tarball of them goes to $OUT
mkdir -p "$(dirname "$db")" db/releases "$logs"
rm -f "$db" "$db-wal" "$db-shm"

jobs_list=()
for spec in $specs; do
  for set in $(sizes "$spec" "$kind") ; do jobs_list+=("$spec $set"); done
done
start=$(date +%s)
# Leave time for the release itself (compiling the kept configs) after the searches.
reserve=$([ "$held_out" = 1 ] && echo 10 || echo 60)
failed=0
i=0
for job in "${jobs_list[@]}"; do
  read -r spec set <<<"$job"
  left=$(( ${#jobs_list[@]} - i ))
  i=$((i + 1))
  elapsed=$(( $(date +%s) - start ))
  remaining=$(( max_total - reserve - elapsed ))
  if [ "$remaining" -le 5 ]; then
    echo "ship-releases.sh: out of time (--max-total-seconds $max_total): skipping $spec $set" >&2
    failed=1
    continue
  fi
  share=$(( remaining / left ))
  cap=$budget_seconds
  [ "$share" -lt "$cap" ] && cap=$share
  if [ "$spec" = sgemm ]; then
    # The model-guided budget counts evaluations; the time cap still bounds it.
    args=(--strategy model --budget "$sgemm_budget")
    limit=$(( cap * 2 ))
  else
    args=(--strategy brute_force --budget "${cap}s")
    limit=$(( cap + 30 ))
  fi
  t0=$(date +%s)
  timeout "$limit" "$GPUTUNE" search "spaces/$spec.yaml" --set "$set" --db "$db" "${args[@]}" \
    --seed 1 --fast --max-seconds "$max_seconds" --jobs "$jobs" --top 1 --quiet \
    >"$logs/$spec-$set.log" 2>&1
  rc=$?
  # 1: some variants failed to compile or check, as expected in a space with limits.
  if [ "$rc" -gt 1 ]; then
    echo "ship-releases.sh: $spec $set failed (exit $rc): $(tail -n 2 "$logs/$spec-$set.log")" >&2
    failed=1
  fi
  best=$(grep -m 1 -E '^ *1 ' "$logs/$spec-$set.log" | tr -s ' ' | cut -c1-100)
  printf '%-14s %-22s %4ss  %s\n' "$spec" "$set" "$(( $(date +%s) - t0 ))" "$best"
done

if [ "$held_out" = 0 ]; then
  commit=$(cat .device/COMMIT 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo "")
  "$GPUTUNE" release "$db" -o "$release" --embed sm_90 --force --commit "$commit" --jobs "$jobs" \
    || failed=1
fi
echo "ship-releases.sh: $(( $(date +%s) - start )) s in all"

if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT/db/releases" "$OUT/$(dirname "$db")"
  cp "$db" "$OUT/$db"
  if [ "$held_out" = 0 ] && [ -f "$release" ]; then cp "$release" "$release.txt" "$OUT/db/releases/"; fi
  tar -czf "$OUT/ship-logs-$gpu-$kind.tar.gz" -C "$(dirname "$logs")" "$(basename "$logs")"
fi
exit $failed
