#!/usr/bin/env bash
# Evaluation-engine throughput on the GPU machine (after tools/device-bundle.sh; carry .device):
# variants compiled, checked and timed per second, parallel (cold and warm module cache) against
# sequential (--jobs 1 --no-cache), default and --fast timing. Logs and databases in $OUT.
#   SPACES="spec ..." (default: the shipped transpose space, and .device/bench/transpose60.yaml,
#   the 60-variant transpose space of issue 4, when tools/device-bundle.sh staged it)
set -uo pipefail
cuda="${CUDA_HOME:-/usr/local/cuda}"
export LD_LIBRARY_PATH="$cuda/lib64:$cuda/targets/x86_64-linux/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
out="${OUT:-/tmp/gputune-engine-bench}"
mkdir -p "$out"
bin=.device/bin/gputune
jobs="${JOBS:-$(nproc)}"
cache=$(mktemp -d)
spaces="${SPACES:-}"
if [ -z "$spaces" ]; then
  [ -f .device/bench/transpose60.yaml ] && spaces=".device/bench/transpose60.yaml"
  spaces="$spaces spaces/transpose.yaml"
fi

{
  date -u
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  echo "cores: $(nproc), jobs: $jobs, commit: $(cat .device/COMMIT 2>/dev/null || echo unknown)"
} | tee "$out/bench-environment.txt"

# name spec extra-options...
run() {
  local name=$1 spec=$2
  shift 2
  local start end
  start=$(date +%s.%N)
  "$bin" search "$spec" --db "$out/$name.db" --json --top 1 -q "$@" >"$out/$name.json" \
    2>"$out/$name.err"
  local rc=$?
  end=$(date +%s.%N)
  python3 - "$out/$name.json" "$name" "$rc" "$start" "$end" <<'EOF' | tee -a "$out/bench.txt"
import json, sys
path, name, rc, start, end = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5])
try:
    r = json.load(open(path))
except Exception as e:
    print(f"{name}: rc={rc}, no report ({e})")
    sys.exit()
s = r["search"]
best = r["results"][0] if r["results"] else {}
print(f"{name}: rc={rc} measured={s['evaluated']} wall={s['wall_s']:.2f}s "
      f"rate={s['measured_per_s']:.1f}/s process={end - start:.2f}s "
      f"check={s['check_s']:.2f}s time={s['time_s']:.2f}s other={s['overhead_s']:.2f}s "
      f"compile={s['compile_s']:.2f}s jobs={s['jobs']} cache_hits={s['cache_hits']} "
      f"restarts={s['worker_restarts']} counts={r['status_counts']} "
      f"best={json.dumps(best.get('config'))} {best.get('median_ms', 0):.4f}ms")
EOF
}

for spec in $spaces; do
  tag=$(basename "$spec" .yaml)
  rm -rf "$cache"/*
  run "$tag-cold" "$spec" --jobs "$jobs" --cache-dir "$cache"
  run "$tag-warm" "$spec" --jobs "$jobs" --cache-dir "$cache"
  run "$tag-fast-warm" "$spec" --jobs "$jobs" --cache-dir "$cache" --fast
  rm -rf "$cache"/*
  run "$tag-fast-cold" "$spec" --jobs "$jobs" --cache-dir "$cache" --fast
  run "$tag-sequential" "$spec" --jobs 1 --no-cache
  run "$tag-fast-sequential" "$spec" --jobs 1 --no-cache --fast
done
rm -rf "$cache"
