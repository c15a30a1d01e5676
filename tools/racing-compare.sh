#!/usr/bin/env bash
# Racing against full sampling on the GPU: for each shipped space, the same brute-force
# evaluations (the first N configs) timed in full, then twice with racing (the default), each
# into its own database. Prints, per space, variants per second of each run, and whether each
# racing winner is the full-sampling best or within 1% of it (its median in the full run).
# Usage: tools/racing-compare.sh [N=120] [space ...]; results under ${OUT:-/tmp/racing-compare}.
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-120}"
shift || true
spaces=("$@")
[ ${#spaces[@]} -gt 0 ] || spaces=(transpose stencil stencil_chain reduce gemv sgemm)
out="${OUT:-/tmp/racing-compare}"
mkdir -p "$out"
rm -f "$out"/*.db
for space in "${spaces[@]}"; do
  common=(--strategy brute_force --budget "$n" --json -q)
  build/gputune search "$space" "${common[@]}" --sampling full --db "$out/$space.full.db" \
    >"$out/$space.full.json"
  for run in 1 2; do
    build/gputune search "$space" "${common[@]}" --db "$out/$space.race$run.db" \
      >"$out/$space.race$run.json"
  done
done
python3 - "$out" "${spaces[@]}" <<'PY'
import json, sys
out, spaces = sys.argv[1], sys.argv[2:]
print("| space | full var/s | race var/s | speedup | race 1 best / full best | race 2 | same |")
print("|---|---|---|---|---|---|---|")
ok = True
for s in spaces:
    full = json.load(open(f"{out}/{s}.full.json"))
    races = [json.load(open(f"{out}/{s}.race{r}.json")) for r in (1, 2)]
    by_config = {json.dumps(r["config"], sort_keys=True): r["median_ms"] for r in full["results"]}
    best = full["results"][0]["median_ms"]
    ratios = [by_config[json.dumps(r["results"][0]["config"], sort_keys=True)] / best
              for r in races]
    same = races[0]["results"][0]["config"] == races[1]["results"][0]["config"]
    ok = ok and all(x <= 1.01 for x in ratios)
    fr = full["search"]["measured_per_s"]
    rr = races[0]["search"]["measured_per_s"]
    print(f"| {s} | {fr:.1f} | {rr:.1f} | {rr / fr:.2f}x | {ratios[0]:.4f} | {ratios[1]:.4f} | "
          f"{'yes' if same else 'no'} |")
sys.exit(0 if ok else 1)
PY
