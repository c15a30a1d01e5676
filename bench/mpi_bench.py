#!/usr/bin/env python3
"""gputune search --mpi in replay, with ranks that take real time (--replay-real-time: each
variant takes as long as the recording says it took to compile and measure).

Measures (1) evaluations per second with 1, 2, 4 and 8 ranks, and (2) how many evaluations a
model-guided search needs to come within 95% of the best variant when it proposes batches sized
to 8 ranks' GPUs, against the same search in one process (batches of 4). Appends the figures to
bench/RESULTS.md. Needs Open MPI's mpirun; ranks beyond the cores run oversubscribed, which is
fine here because a replay rank mostly sleeps.

  python3 bench/mpi_bench.py [--gputune build/gputune] [--quick]
"""
import argparse
import csv
import datetime
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RECORDING = os.path.join(ROOT, "db/recordings/transpose_n_4096_NVIDIA_H200.csv")
MODEL_RECORDING = os.path.join(ROOT, "db/recordings/stencil_nx_4096_ny_4096_NVIDIA_H200.csv")
MPIRUN = ["mpirun", "--oversubscribe", "--enable-recovery"]
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
TIMEOUT_S = 240  # per run: the whole script stays within about 15 minutes


def search(gputune, ranks, recording, strategy, budget, seed, db, real_time=True):
    """Runs one search; returns its wall time in seconds."""
    args = [gputune, "search", "--replay", recording, "--strategy", strategy, "--budget",
            str(budget), "--seed", str(seed), "--db", db, "-q"]
    if real_time:
        args.append("--replay-real-time")
    if ranks:
        args = MPIRUN + ["-n", str(ranks)] + args + ["--mpi"]
    start = time.monotonic()
    subprocess.run(args, check=True, env=ENV, stdout=subprocess.DEVNULL, timeout=TIMEOUT_S)
    return time.monotonic() - start


def medians_in_order(db):
    """The medians of the ok attempts, in the order they were stored."""
    with sqlite3.connect(db) as c:
        return [r[0] for r in c.execute(
            "SELECT m.median_ms FROM measurements m WHERE m.status = 'ok' "
            "AND m.median_ms IS NOT NULL ORDER BY m.id")]


def search_record(db):
    """The search's own count and wall time (from its start, after the ranks called in)."""
    with sqlite3.connect(db) as c:
        return c.execute("SELECT evaluated, wall_s FROM searches ORDER BY id DESC").fetchone()


def best_of_recording(recording):
    best = None
    with open(recording) as f:
        lines = [l for l in f if not l.startswith("#")]
    for row in csv.DictReader(lines):
        if row["status"] == "ok" and row["median_ms"]:
            value = float(row["median_ms"])
            best = value if best is None else min(best, value)
    return best


def evaluations_to(db, target_ms):
    """Evaluations (every attempt, failures too) until one within 95% of the best."""
    with sqlite3.connect(db) as c:
        rows = list(c.execute("SELECT status, median_ms FROM measurements ORDER BY id"))
    for i, (status, median) in enumerate(rows, 1):
        if status == "ok" and median is not None and median <= target_ms:
            return i
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gputune", default=os.path.join(ROOT, "build/gputune"))
    parser.add_argument("--quick", action="store_true", help="fewer evaluations and seeds")
    options = parser.parse_args()
    budget = 48 if options.quick else 96
    seeds = [1, 2] if options.quick else [1, 2, 3, 4, 5]
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        lines.append("| ranks | evaluations | mpirun wall s | search wall s | evaluations/s "
                     "(search) | speed-up |")
        lines.append("|---:|---:|---:|---:|---:|---:|")
        base = None
        for ranks in (1, 2, 4, 8):
            db = os.path.join(tmp, "scale%d.db" % ranks)
            wall = search(options.gputune, ranks, RECORDING, "random", budget, 1, db)
            evaluated, search_wall = search_record(db)
            rate = evaluated / search_wall
            base = base or rate
            lines.append("| %d | %d | %.1f | %.1f | %.1f | %.2fx |" % (
                ranks, evaluated, wall, search_wall, rate, rate / base))
        lines.append("")
        target = best_of_recording(MODEL_RECORDING) / 0.95
        lines.append("Model strategy, evaluations until a variant within 95%% of the recording's "
                     "best (%.4f ms), budget %d, seeds %s:" % (target * 0.95, budget * 2, seeds))
        lines.append("")
        lines.append("| search | per seed | median |")
        lines.append("|---|---|---:|")
        for label, ranks in (("one process, batches of 4", 0), ("8 ranks, batches of 16", 8)):
            found = []
            for seed in seeds:
                db = os.path.join(tmp, "model%d_%d.db" % (ranks, seed))
                search(options.gputune, ranks, MODEL_RECORDING, "model", budget * 2, seed, db,
                       real_time=ranks > 0)
                found.append(evaluations_to(db, target))
            reached = [f for f in found if f is not None]
            median = "%g" % statistics.median(reached) if reached else "not reached"
            lines.append("| %s | %s | %s |" % (label, ", ".join(
                str(f) if f is not None else "-" for f in found), median))
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    section = ["", "## Search across MPI ranks (issue 15), replayed with real-time ranks",
               "", "%s, commit %s, %d CPU cores (ranks beyond them oversubscribed); "
               "`python3 bench/mpi_bench.py%s`. Each replay rank stands for one GPU and takes as "
               "long as the recording says compiling and measuring took (%s)." % (
                   now, commit, os.cpu_count(), " --quick" if options.quick else "",
                   os.path.basename(RECORDING)), ""] + lines + [""]
    with open(os.path.join(ROOT, "bench/RESULTS.md"), "a") as out:
        out.write("\n".join(section))
    print("\n".join(section))


if __name__ == "__main__":
    sys.exit(main())
