#!/usr/bin/env bash
# Runs every T1 file of files.txt as it is (bench/t1_suites/suites/, from fetch.sh) and writes
# one summary row per file to $OUT/t1_suites.md: runs (with its best) or refused (with the
# reason gputune gave). Bounded: BUDGET evaluations (20) and TIMEOUT seconds (300) per file.
#   bash bench/t1_suites/run.sh                 # on a GPU: gputune search FILE --budget N
#   MODE=compile-only bash bench/t1_suites/run.sh   # anywhere: --compile-only --arch sm_90
# GPUTUNE (build/gputune), OUT (a temporary folder), BUDGET, TIMEOUT change the defaults. Each
# file's stdout and stderr are kept in $OUT/logs/, its results in $OUT/t1_suites.db.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
gputune="$(realpath "${GPUTUNE:-$here/../../build/gputune}")"
out="${OUT:-$(mktemp -d)}"
mode="${MODE:-search}"
budget="${BUDGET:-20}"
limit="${TIMEOUT:-300}"
suites="$here/suites"
[ -d "$suites" ] || { echo "run.sh: no $suites: run bench/t1_suites/fetch.sh first" >&2; exit 66; }
mkdir -p "$out/logs"
summary="$out/t1_suites.md"
{
  echo "| T1 file | gputune plan | gputune search ($mode, budget $budget) |"
  echo "|---|---|---|"
} > "$summary"
# The first line of what gputune said, without the file's own path (the table names it).
said() { grep -v '^\s*$' "$1" | grep -v 'stopping after' | head -n "${2:-1}" | tr '\n' ' ' |
         sed "s|$suites/||g; s/|/\\\\|/g" | cut -c1-400; }
grep -v '^#' "$here/files.txt" | while read -r file; do
  [ -n "$file" ] || continue
  path="$suites/$file"
  log="$out/logs/$(echo "$file" | tr '/' '_')"
  if [ ! -f "$path" ]; then
    echo "| $file | not fetched | not fetched |" >> "$summary"
    continue
  fi
  if "$gputune" plan "$path" > "$log.plan" 2>&1; then plan="ok"; else plan="exit $?: $(said "$log.plan")"; fi
  if [ "$mode" = compile-only ]; then
    args=(--compile-only --arch sm_90)
  else
    args=(--db "$out/t1_suites.db" --json)
  fi
  (cd "$(dirname "$path")" && timeout -s INT "$limit" "$gputune" search "$path" "${args[@]}" \
     --budget "$budget" -q > "$log.out" 2> "$log.err")
  rc=$?
  if [ $rc -eq 0 ] && [ "$mode" = compile-only ]; then
    result="runs: $(said "$log.out" 3)"
  elif [ $rc -eq 0 ]; then
    result="runs: $(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
rows = r.get("results", [])
ok = [x for x in rows if x.get("status") == "ok"]
best = min(ok, key=lambda x: x.get("median_ms", 1e30)) if ok else None
print("%d evaluated, %d ok%s" % (len(rows), len(ok),
      ", best %.4g ms at %s" % (best["median_ms"], json.dumps(best["config"])) if best else ""))
' "$log.out" 2>/dev/null || echo "unreadable report")"
  elif [ $rc -eq 1 ]; then
    result="runs, variants fail to compile (exit 1): $(said "$log.out" 2)"
  elif [ $rc -eq 124 ] || [ $rc -eq 130 ]; then
    result="stopped at the ${limit} s limit (exit $rc): $(said "$log.out")"
  else
    result="refused (exit $rc): $(said "$log.err")"
  fi
  warnings="$(grep -c '^gputune: warning' "$log.err" 2>/dev/null || true)"
  [ "${warnings:-0}" -gt 0 ] && result="$result ($warnings warnings in logs/)"
  echo "| $file | $plan | $result |" >> "$summary"
  echo "run.sh: $file: $result" >&2
done
echo "run.sh: wrote $summary" >&2
