#!/usr/bin/env bash
# On the GPU machine, after tools/build.sh; about 5 minutes on an H100. Issue 13's measured
# part: records the SGEMM (1024^3) and transpose (n=4096) spaces with hardware counters (a
# quick exhaustive search, then ncu on the fastest variants and a spread of the rest, within a
# time limit per space), replays bottleneck, model (cold) and random search over 20 seeds
# (evaluations to 95% of the best), and measures what profiling costs a live
# `--strategy bottleneck` search. Appends to bench/RESULTS.md (GPU, date, commit); the
# recordings are left in $OUT (or the work folder it prints).
#   tools/bottleneck-bench.sh
set -uo pipefail
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="${CUDA_HOME:-/usr/local/cuda}/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
bin="${BUILD_DIR:-build}"
work="${OUT:-$(mktemp -d)}"
mkdir -p "$work"
db="$work/bottleneck.db"
rm -f "$db" "$work/live.db"
commit=$(cat .device/COMMIT 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
measure_s="${MEASURE_S:-75}"   # exhaustive search of one space, at most
profile_s="${PROFILE_S:-45}"   # ncu on its variants, at most
live_s="${LIVE_S:-45}"         # the live bottleneck search
echo "work folder: $work"

# Configs of a stored workload as NAME=VALUE,... lines: the 12 fastest, then every 8th.
configs() {
  "$bin/gputune" search "spaces/$1.yaml" $2 --db "$db" --top 100000 --json 2>/dev/null |
    python3 -c '
import json, sys
rows = [r for r in json.load(sys.stdin)["results"] if r.get("status") == "ok"]
rows.sort(key=lambda r: r["median_ms"])
picked = rows[:12] + rows[12::8]
for r in picked:
    print(",".join(f"{k}={v}" for k, v in r["config"].items()))'
}

for item in "sgemm:m=1024,n=1024,k=1024" "transpose:n=4096"; do
  spec="${item%%:*}"
  sets=""
  IFS=',' read -ra pairs <<<"${item#*:}"
  for pair in "${pairs[@]}"; do sets+=" --set $pair"; done
  echo "== $spec$sets: measuring (at most $measure_s s)"
  timeout -s INT "$measure_s" "$bin/gputune" search "spaces/$spec.yaml" $sets --strategy brute_force \
    --fast --db "$db" --top 1 2>/dev/null | tail -3
  echo "== $spec$sets: profiling (at most $profile_s s)"
  end=$((SECONDS + profile_s))
  profiled=0
  while read -r config; do
    left=$((end - SECONDS))
    [ "$left" -le 5 ] && break
    if timeout "$left" "$bin/gputune" analyze "$spec" $sets --config "$config" --db "$db" \
      --timeout "$left" >/dev/null 2>"$work/analyze.err"; then
      profiled=$((profiled + 1))
    else
      echo "   no counters for $config: $(tail -1 "$work/analyze.err")"
      grep -q "ERR_NVGPUCTRPERM\|not found" "$work/analyze.err" && break
    fi
  done < <(configs "$spec" "$sets")
  echo "   $profiled variants profiled"
done

mkdir -p "$work/recordings"
"$bin/gputune" export --db "$db" --out "$work/recordings" --commit "$commit"

echo "== live search with --strategy bottleneck (transpose n=8192, $live_s s)"
live=$("$bin/gputune" search spaces/transpose.yaml --strategy bottleneck --budget "${live_s}s" \
  --db "$work/live.db" --top 1 2>&1 >/dev/null | grep '^profiling' || echo "profiling: no line")
echo "   $live"

echo "== replay: random, model (cold), bottleneck over 20 seeds"
timeout 240 "$bin/gputune_strategy_bench" --seeds 20 --cap 100 \
  --strategies random,model,bottleneck "$work"/recordings/*.csv
{
  echo
  echo "Issue 13 on $gpu ($(date -u '+%Y-%m-%d %H:%M UTC'), commit $commit): recordings above"
  echo "made by tools/bottleneck-bench.sh (exhaustive --fast search, ncu on the 12 fastest"
  echo "variants and every 8th of the rest). The bottleneck rows' last column gives the profiling"
  echo "share of the recorded time in replay. Live \`gputune search transpose --strategy"
  echo "bottleneck --budget ${live_s}s\`: $live"
} >>bench/RESULTS.md
echo "appended to bench/RESULTS.md"
