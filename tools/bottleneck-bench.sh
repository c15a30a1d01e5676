#!/usr/bin/env bash
# On the GPU machine, after tools/build.sh; at most about 9 minutes on an H100. Issue 13's
# measured part: records the SGEMM (1024^3) and transpose (n=4096) spaces with hardware
# counters (an exhaustive --fast search, then `gputune analyze --configs`: the 40 fastest
# measured variants, then the rest in a seeded random order, a batch of them per ncu run,
# within a time limit per space), replays
# bottleneck, model (cold) and random search over 20 seeds (evaluations to 95% of the best),
# and measures what profiling costs a live `--strategy bottleneck` search. Appends to
# bench/RESULTS.md (GPU, date, commit); the database, the analyze tables and the recordings
# are left in $OUT (or the work folder it prints).
#   tools/bottleneck-bench.sh
#   MEASURE_S=100 PROFILE_S=120 LIVE_S=60 REPLAY_S=60 BATCH=64 tools/bottleneck-bench.sh
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
measure_s="${MEASURE_S:-100}"  # exhaustive search of one space, at most
profile_s="${PROFILE_S:-120}"  # gputune analyze on its variants, at most
live_s="${LIVE_S:-60}"         # the live bottleneck search (its first profile needs 50 s)
replay_s="${REPLAY_S:-60}"     # the replay benchmark
batch="${BATCH:-64}"           # variants per ncu run
echo "work folder: $work"
summary=""

for item in "sgemm:m=1024,n=1024,k=1024" "transpose:n=4096"; do
  spec="${item%%:*}"
  sets=""
  IFS=',' read -ra pairs <<<"${item#*:}"
  for pair in "${pairs[@]}"; do sets+=" --set $pair"; done
  echo "== $spec$sets: measuring (at most $measure_s s)"
  timeout -s INT -k 20 "$measure_s" "$bin/gputune" search "spaces/$spec.yaml" $sets \
    --strategy brute_force --budget none --fast --db "$db" --top 1 2>/dev/null | tail -3
  # What a replayed strategy profiles is the best of each batch, early batches' too: so the 40
  # fastest variants come first, then every other measured one (cut short or not) in a seeded
  # random order, so that whatever the time limit leaves profiled is a fair sample of the rest.
  "$bin/gputune" search "spaces/$spec.yaml" $sets --db "$db" --top 100000 --json 2>/dev/null |
    python3 -c '
import json, random, sys
rows = [r for r in json.load(sys.stdin)["results"] if r.get("status") == "ok"]
rows.sort(key=lambda r: r["median_ms"])
rest = rows[40:]
random.Random(13).shuffle(rest)
for r in rows[:40] + rest:
    print(",".join(f"{k}={v}" for k, v in r["config"].items()))' >"$work/$spec.configs"
  echo "== $spec$sets: profiling $(wc -l <"$work/$spec.configs") measured variants, the fastest" \
    "first (at most $profile_s s, $batch per ncu run)"
  # SIGINT at the limit, to gputune alone (--foreground: a second signal would abort it): analyze
  # stops after the variant in flight and keeps what it stored.
  timeout --foreground -s INT -k 30 "$profile_s" "$bin/gputune" analyze "$spec" $sets \
    --configs "$work/$spec.configs" --db "$db" --batch "$batch" --timeout 60 \
    >"$work/$spec.analyze.txt" 2>"$work/$spec.analyze.err"
  grep -v '^profiled ' "$work/$spec.analyze.err" | tail -3 | sed 's/^/   /'
  line=$(grep '^gputune analyze: .* variants profiled' "$work/$spec.analyze.err" | tail -1)
  profiled=$(sed -n 's/^gputune analyze: \([0-9]*\) of \([0-9]*\) variants profiled.*/\1 of \2/p' \
    <<<"$line")
  rate=$(sed -n 's/.*, \([0-9.]*\) variants\/s.*/\1/p' <<<"$line")
  echo "   $spec: counters for ${profiled:-0 of ?} variants, ${rate:-0} variants/s"
  summary+="$spec: counters for ${profiled:-0 of ?} measured variants (${rate:-0} variants/s); "
done

mkdir -p "$work/recordings"
"$bin/gputune" export --db "$db" --out "$work/recordings" --commit "$commit"

# A space that takes longer than the live budget to measure (transpose measures whole in 3 s).
echo "== live search with --strategy bottleneck (sgemm 2048^3, $live_s s)"
live=$(timeout -s INT -k 30 $((live_s + 60)) "$bin/gputune" search spaces/sgemm.yaml \
  --set m=2048 --set n=2048 --set k=2048 \
  --strategy bottleneck --budget "${live_s}s" --db "$work/live.db" --top 1 2>&1 >/dev/null |
  grep '^profiling' || echo "profiling: no line")
echo "   $live"

echo "== replay: random, model (cold), bottleneck over 20 seeds"
timeout "$replay_s" "$bin/gputune_strategy_bench" --seeds 20 --cap 100 \
  --strategies random,model,bottleneck "$work"/recordings/*.csv
{
  echo
  echo "Issue 13 on $gpu ($(date -u '+%Y-%m-%d %H:%M UTC'), commit $commit): recordings above"
  echo "made by tools/bottleneck-bench.sh (exhaustive --fast search, then \`gputune analyze --configs\`"
  echo "on the 40 fastest and a random order of the rest, for at most ${profile_s} s per space, $batch"
  echo "variants per ncu run: $summary). The"
  echo "bottleneck rows' last column gives the profiling"
  echo "share of the recorded time in replay. Live \`gputune search sgemm --set m=n=k=2048 --strategy"
  echo "bottleneck --budget ${live_s}s\`: $live"
} >>bench/RESULTS.md
echo "appended to bench/RESULTS.md"
