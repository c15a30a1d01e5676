#!/usr/bin/env python3
"""What each knob is worth around the best variant of a whole-space recording (issue 29's
ablation table): for every parameter, the best config with that parameter turned back to the
baseline's value (off), or, where the best already has the baseline's value, turned to each
other value (on), and the time of that config against the best's.

    python3 bench/engine_ablation.py RECORDING.csv [...]    # gputune export --db DB --out DIR

Writes one markdown table per recording to stdout. A ratio above 1 means the change makes the
variant slower, i.e. the knob as the best has it pays that much. Times of variants cut short by
racing are lower bounds (marked >=); a config outside the recording (invalid, pruned or never
measured) or one that failed says so.
"""
import csv
import json
import math
import sys


def read_recording(path):
    meta, rows = {}, []
    with open(path, newline="") as f:
        lines = []
        for line in f:
            if line.startswith("#"):
                key, _, value = line[1:].strip().partition(": ")
                meta[key] = value
            else:
                lines.append(line)
    for row in csv.DictReader(lines):
        rows.append(row)
    return meta, rows


def key_of(config):
    return json.dumps(config, sort_keys=True)


def time_of(row):
    if row is None:
        return None
    try:
        value = float(row["median_ms"])
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def describe(row, best_ms):
    if row is None:
        return "not in the space measured", ""
    if row["status"] != "ok":
        return row["status"], ""
    ms = time_of(row)
    if ms is None:
        return "no time", ""
    bound = ">=" if row.get("cut_short", "0") not in ("", "0") else ""
    return f"{bound}{ms / best_ms:.2f}x", f"{ms:.4f}"


def table(path):
    meta, rows = read_recording(path)
    by_config = {key_of(json.loads(r["config"])): r for r in rows}
    ok = [r for r in rows if r["status"] == "ok" and time_of(r) is not None]
    if not ok:
        return f"{path}: no variant ran correctly\n"
    best = min(ok, key=time_of)
    best_ms = time_of(best)
    best_config = json.loads(best["config"])
    baseline = next((r for r in rows if r["config_index"] == meta.get("baseline_index")), None)
    baseline_config = json.loads(baseline["config"]) if baseline else {}
    values = {}
    for r in rows:
        for name, value in json.loads(r["config"]).items():
            values.setdefault(name, [])
            if value not in values[name]:
                values[name].append(value)
    out = [
        f"### {meta.get('kernel_name', path)} {meta.get('problem', '')}, {meta.get('gpu', '')}",
        "",
        f"Best: `{' '.join(f'{k}={v}' for k, v in best_config.items())}`, {best_ms:.4f} ms"
        + (f"; the naive kernel (baseline) {time_of(baseline) / best_ms:.2f}x slower"
           if time_of(baseline) else ""),
        "",
        "| knob | best's value | changed to | time / best's | ms |",
        "|---|---|---|---|---|",
    ]
    for name, best_value in best_config.items():
        off = baseline_config.get(name)
        targets = [off] if off is not None and off != best_value else [
            v for v in values[name] if v != best_value]
        for value in targets:
            changed = dict(best_config, **{name: value})
            ratio, ms = describe(by_config.get(key_of(changed)), best_ms)
            direction = " (off)" if value == off else ""
            out.append(f"| {name} | {best_value} | {value}{direction} | {ratio} | {ms} |")
    return "\n".join(out) + "\n"


def main(paths):
    if not paths:
        print(__doc__, file=sys.stderr)
        return 64
    print("\n".join(table(p) for p in paths))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
