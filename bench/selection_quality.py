#!/usr/bin/env python3
"""Selection quality of a release database at held-out problem sizes (issue 11's benchmark).

For every workload of a held-out results database (sizes that are not in the release, searched
exhaustively or with a large budget by `tools/ship-releases.sh --held-out`), compares the best
time measured there with the time of the config that each method picks:

  selected   what `gputune select` answers from the release database (any tier)
  nearest    the release's best at the nearest stored problem (log-ratio distance), same device
  common     the config that is best at the most stored problem points (Kernel Tuner's fallback)
  baseline   the spec's baseline

A picked config that the held-out search did not measure is timed here with a one-config copy of
the spec (same problem, same GPU, same run), so every ratio is measured. With --no-gpu (a machine
without one) selection describes the held-out database's GPU instead, and such a config is
reported as "unmeasured" and left out of the summary. Prints a Markdown table and a summary
(median and worst of best/picked per method, 1.0 = the best).

Usage: bench/selection_quality.py --release R.gtrel --held-out H.db [--gputune BIN] [--out F.md]
                                  [--no-gpu]
"""
import argparse
import datetime
import json
import math
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile

import yaml


def canonical(config):
    """A config as comparable text: numbers as floats, keys sorted."""
    out = {}
    for k, v in config.items():
        out[k] = float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v
    return json.dumps(out, sort_keys=True)


def log_distance(a, b):
    return math.sqrt(sum(math.log(float(a[k]) / float(b[k])) ** 2 for k in a if k in b))


def held_out_workloads(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = db.execute(
        "SELECT w.id, s.path, s.kernel_name, w.problem_json, d.name, w.baseline_index, "
        "d.cc_major, d.cc_minor, d.sm_count "
        "FROM workloads w JOIN specs s ON s.id = w.spec_id JOIN devices d ON d.id = w.device_id")
    workloads = []
    for wid, spec_path, kernel, problem_json, device, baseline_index, cc_major, cc_minor, \
            sm_count in rows:
        times = {}
        for config_json, median in db.execute(
                "SELECT v.config_json, m.median_ms FROM variants v JOIN measurements m "
                "ON m.variant_id = v.id WHERE v.workload_id = ? AND m.status = 'ok' "
                "AND m.median_ms IS NOT NULL", (wid,)):
            key = canonical(json.loads(config_json))
            times[key] = min(median, times.get(key, math.inf))
        workloads.append(dict(spec=spec_path, kernel=kernel, problem=json.loads(problem_json),
                              device=device, cc=f"{cc_major}.{cc_minor}", sm_count=sm_count,
                              times=times))
    return workloads


def release_tables(path):
    db = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
    kernels = {kid: (name, json.loads(spec)) for kid, name, spec in
               db.execute("SELECT id, name, spec_json FROM kernels")}
    best = {}  # (kernel name, device name) -> [(problem, config)]
    for kid, device, problem_json, config_json in db.execute(
            "SELECT c.kernel_id, d.name, c.problem_json, g.config_json FROM choices c "
            "JOIN devices d ON d.id = c.device_id JOIN configs g ON g.id = c.config_id "
            "WHERE c.rank = 0"):
        best.setdefault((kernels[kid][0], device), []).append(
            (json.loads(problem_json), json.loads(config_json)))
    baselines = {name: spec["baseline"] for name, spec in kernels.values()}
    return best, baselines


def select(gputune, spec, problem, release, described=None):
    """`described`: the held-out workload, whose GPU is described instead of using GPU 0."""
    sets = [f"{k}={v}" for k, v in problem.items()]
    cmd = [gputune, "select", spec, "--db", release, "--json"]
    if described:
        cmd += ["--device-name", described["device"], "--cc", described["cc"],
                "--sm-count", str(described["sm_count"])]
    for s in sets:
        cmd += ["--set", s]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {out.stderr.strip()}")
    answer = json.loads(out.stdout)
    return answer["config"], answer["tier"]


def time_config(gputune, spec_path, problem, config, workdir):
    """Times one config with a one-point copy of the spec; returns its median in ms or None."""
    spec = yaml.safe_load(open(spec_path))
    base = os.path.dirname(os.path.abspath(spec_path))
    spec["kernel"]["source"] = os.path.join(base, spec["kernel"]["source"])
    for section in ("parameters", "transforms"):
        if section in spec:
            spec[section] = {k: [config[k]] for k in spec[section]}
    spec.pop("constraints", None)
    spec["baseline"] = config
    spec["search"] = {"strategy": "brute_force"}
    path = os.path.join(workdir, f"one_{abs(hash(canonical(config) + str(problem)))}.yaml")
    yaml.safe_dump(spec, open(path, "w"), sort_keys=False)
    db = path + ".db"
    cmd = [gputune, "search", path, "--db", db, "--json", "--quiet"]
    for k, v in problem.items():
        cmd += ["--set", f"{k}={v}"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        return None
    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT median_ms FROM measurements WHERE status = 'ok'").fetchone()
    return row[0] if row else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--release", required=True)
    ap.add_argument("--held-out", required=True)
    ap.add_argument("--gputune", default=".device/bin/gputune")
    ap.add_argument("--out", help="also write the Markdown here")
    ap.add_argument("--no-gpu", action="store_true",
                    help="describe the held-out GPU instead of using one; configs the held-out "
                    "search did not measure are reported as unmeasured, not timed")
    args = ap.parse_args()

    best_by_kernel, baselines = release_tables(args.release)
    rows, ratios = [], {m: [] for m in ("selected", "nearest", "common", "baseline")}
    workdir = tempfile.mkdtemp(prefix="selection-quality-")
    for w in held_out_workloads(args.held_out):
        if not w["times"]:
            continue
        best_ms = min(w["times"].values())
        stored = best_by_kernel.get((w["kernel"], w["device"]), [])
        picks = {}
        picks["selected"], tier = select(args.gputune, w["spec"], w["problem"], args.release,
                                         w if args.no_gpu else None)
        if stored:
            picks["nearest"] = min(stored, key=lambda pc: log_distance(w["problem"], pc[0]))[1]
            counts = {}
            for _, config in stored:
                counts[canonical(config)] = counts.get(canonical(config), 0) + 1
            common_key = max(sorted(counts), key=lambda k: counts[k])
            picks["common"] = json.loads(common_key)
        picks["baseline"] = baselines.get(w["kernel"])
        cells = []
        for method in ("selected", "nearest", "common", "baseline"):
            config = picks.get(method)
            if config is None:
                cells.append("-")
                continue
            ms = w["times"].get(canonical(config))
            measured_here = ms is None
            if measured_here and args.no_gpu:
                cells.append("unmeasured")
                continue
            if measured_here:
                ms = time_config(args.gputune, w["spec"], w["problem"], config, workdir)
            if ms is None:
                cells.append("failed")
                continue
            ratio = best_ms / ms
            ratios[method].append(ratio)
            cells.append(f"{ratio:.3f}{'*' if measured_here else ''}")
        problem = " ".join(f"{k}={v}" for k, v in w["problem"].items())
        rows.append(f"| {w['kernel']} | {problem} | {w['device']} | {tier} | " +
                    " | ".join(cells) + f" | {len(w['times'])} |")

    # The device bundle names the commit its binaries were built from; a copied tree's git may not.
    if os.path.exists(".device/COMMIT"):
        commit = open(".device/COMMIT").read().strip()
    else:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True).stdout.strip()
    lines = [f"Selection quality at held-out sizes ({datetime.date.today()}, commit {commit}): "
             "best time at the size / time of the picked config (1.000 = the best; * = timed "
             "by this script, not by the held-out search; unmeasured: the held-out search did not "
             "measure it and --no-gpu left it out).", "",
             "| kernel | held-out problem | GPU | tier | selected | nearest best | most common "
             "| baseline | configs measured |", "|---|---|---|---|---|---|---|---|---|"]
    lines += rows
    lines += ["", "| method | median | worst | n |", "|---|---|---|---|"]
    for method, values in ratios.items():
        if values:
            lines.append(f"| {method} | {statistics.median(values):.3f} | {min(values):.3f} | "
                         f"{len(values)} |")
    text = "\n".join(lines)
    print(text)
    if args.out:
        open(args.out, "w").write(text + "\n")


if __name__ == "__main__":
    sys.exit(main())
