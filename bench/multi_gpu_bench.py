#!/usr/bin/env python3
"""One search on several GPUs of one host: MPI ranks (one per GPU) and --devices all, against one
GPU, in the same call. Needs a machine with 2 or more identical GPUs and Open MPI's mpirun.

For each strategy (brute force over the whole space, then the model-guided one) it runs the
modes asked for (--modes, default one,mpi,all):
  one    gputune search SPEC --devices 0
  mpi    mpirun --enable-recovery --bind-to none -n G gputune search SPEC --mpi --devices local
  all    gputune search SPEC --devices all
  one-k  one process on the first C/G CPUs only (taskset): one host of C/G CPUs and one GPU
  split  G MPI ranks, rank r on CPUs [r C/G, (r+1) C/G) only: G such hosts, each compiling on
         its own CPUs (what ranks on several hosts do; compare with one-k)
each into its own database, module cache and compute cache (NVRTC's: every run compiles cold,
with the same number of compiler processes in all), unless --warm: then every variant is
compiled once beforehand into a module cache that each run starts from a copy of, so that
compilation costs nothing and the GPUs bound the search (with --search-arg --sampling
--search-arg full: every variant timed in full). It records: variants per second, evaluations
until a variant within 95% of the best (the one-GPU brute-force best), the best found against
that one, what the search says bounds it, database lock errors on stderr, and PRAGMA
integrity_check. Writes section.md and runs.json under --out (two files) and appends the
section to bench/RESULTS.md.

  python3 bench/multi_gpu_bench.py [--gputune build/gputune] [--spec sgemm] [--model-budget 150]
      [--modes one,mpi,all,one-k,split] [--warm] [--budget N] [--search-arg ARG ...]
"""
import argparse
import datetime
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
LOCK_ERRORS = re.compile(r"database is locked|SQLITE_BUSY|database is busy|database table is locked",
                         re.IGNORECASE)


def gpu_names():
    out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                         capture_output=True, text=True, check=True).stdout
    return [line.strip() for line in out.splitlines() if line.strip()]


def warm_cache(args):
    """Every variant compiled once into a module cache (--warm); each run starts from a copy."""
    cache = os.path.join(tempfile.gettempdir(), "gputune_multi_gpu_cache", "warm")
    shutil.rmtree(cache, ignore_errors=True)
    arch = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
                          capture_output=True, text=True).stdout.split()
    arch = "sm_" + arch[0].replace(".", "") if arch else "sm_90"
    command = [args.gputune, "search", args.spec, "--compile-only", "--arch", arch,
               "--cache-dir", cache, "-q"]
    for item in args.set:
        command += ["--set", item]
    start = time.monotonic()
    subprocess.run(command, env=ENV, capture_output=True, text=True, timeout=args.timeout)
    print(f"warm: every variant compiled for {arch} in {time.monotonic() - start:.1f} s",
          flush=True)
    return cache


def cpu_ranges(parts):
    """This process's CPUs dealt into `parts` equal consecutive sets (taskset lists)."""
    cpus = sorted(os.sched_getaffinity(0))
    k = max(1, len(cpus) // parts)
    return [",".join(map(str, cpus[i * k:(i + 1) * k])) for i in range(parts)]


def run_search(args, mode, strategy, budget, out_dir, gpus):
    name = f"{mode}_{strategy}"
    # Out of --out as well: what comes back from the GPU machine is section.md and runs.json.
    db = os.path.join(tempfile.gettempdir(), "gputune_multi_gpu_cache", name + ".db")
    os.makedirs(os.path.dirname(db), exist_ok=True)
    # Out of --out, which may be carried back: a cold SGEMM cache holds over a thousand modules.
    cache = os.path.join(tempfile.gettempdir(), "gputune_multi_gpu_cache", name)
    shutil.rmtree(cache, ignore_errors=True)
    if args.warm_cache:
        shutil.copytree(args.warm_cache, cache)
    # NVRTC (CUDA 12.9+) keeps cubins in the driver's compute cache: without a fresh one, every
    # run after the first would find the variants compiled.
    compute_cache = cache + ".compute"
    shutil.rmtree(compute_cache, ignore_errors=True)
    env = dict(ENV, CUDA_CACHE_PATH=compute_cache)
    for path in (db, db + "-wal", db + "-shm"):
        if os.path.exists(path):
            os.remove(path)
    cpus = len(os.sched_getaffinity(0))
    # --replay: a dry run of this script on a machine without GPUs (a fake nvidia-smi on PATH).
    what = ["--replay", args.replay, "--replay-real-time"] if args.replay else [args.spec]
    search = [args.gputune, "search"] + what + ["--strategy", strategy, "--budget", str(budget),
              "--seed", str(args.seed), "--db", db, "--cache-dir", cache, "--json", "-q"]
    for item in args.set:
        search += ["--set", item]
    search += args.search_arg
    ranges = cpu_ranges(gpus)
    if mode == "one":
        command = search + ["--devices", "0", "--jobs", str(cpus)]
    elif mode == "all":
        command = search + ["--devices", "all", "--jobs", str(cpus)]
    elif mode == "one-k":  # one host of C/G CPUs: compilers as many as its CPUs (the default)
        command = ["taskset", "-c", ranges[0]] + search + ["--devices", "0"]
    elif mode == "split":  # rank r on its own CPUs, as if on a host of its own
        pick = ('ranges=(' + " ".join(ranges) + '); '
                'exec taskset -c "${ranges[${OMPI_COMM_WORLD_LOCAL_RANK:-0}]}" "$@"')
        command = (["mpirun", "--enable-recovery", "--bind-to", "none", "-n", str(gpus),
                    "bash", "-c", pick, "rank"] + search + ["--mpi", "--devices", "local"])
    else:  # each rank compiles with its share of the host's CPUs (the default under --mpi)
        command = (["mpirun", "--enable-recovery", "--bind-to", "none", "-n", str(gpus)] + search
                   + ["--mpi", "--devices", "local"])
    start = time.monotonic()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=args.timeout)
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        # Ctrl-C at the time limit: every gputune process stops after the variant in flight and
        # the search prints its report, so that a search cut short still gives its rate.
        os.killpg(proc.pid, signal.SIGINT)
        try:
            stdout, stderr = proc.communicate(timeout=30)
            rc = f"stopped at {args.timeout:g} s"
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            stdout, stderr = proc.communicate()
            rc = "killed"
    wall = time.monotonic() - start
    shutil.rmtree(cache, ignore_errors=True)
    shutil.rmtree(compute_cache, ignore_errors=True)
    result = {"mode": mode, "strategy": strategy, "rc": rc, "wall": wall,
              "stderr_tail": stderr[-3000:],
              "lock_errors": len(LOCK_ERRORS.findall(stderr))}
    try:
        report = json.loads(stdout)
        result["search"] = report["search"]
        result["bound"] = report.get("bound")
        result["status_counts"] = report.get("status_counts")
    except (ValueError, KeyError):
        result["search"] = None
    if os.path.exists(db):
        with sqlite3.connect(db) as c:
            result["integrity"] = c.execute("PRAGMA integrity_check").fetchone()[0]
            # Each variant once, in the order it was first stored, with its latest median.
            rows = c.execute("SELECT variant_id, status, median_ms FROM measurements ORDER BY id")
            first, latest = [], {}
            for variant, status, median in rows:
                if variant not in latest:
                    first.append(variant)
                latest[variant] = median if status == "ok" else None
            result["order"] = [latest[v] for v in first]
            oks = [m for m in result["order"] if m is not None]
            result["best"] = min(oks) if oks else None
    else:
        result["integrity"] = "no database"
        result["order"], result["best"] = [], None
    print(f"{name}: rc={rc} wall={wall:.1f}s variants={len(result['order'])} best={result['best']} "
          f"integrity={result['integrity']} lock_errors={result['lock_errors']}", flush=True)
    return result


def evaluations_to(order, target):
    for i, median in enumerate(order):
        if median is not None and median <= target:
            return i + 1
    return None


def commit():
    path = os.path.join(ROOT, ".device", "COMMIT")
    if os.path.exists(path):
        return open(path).read().strip()
    return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip()


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gputune", default=os.path.join(ROOT, "build", "gputune"))
    parser.add_argument("--spec", default="sgemm")
    parser.add_argument("--set", action="append", default=[], help="problem values, as search's")
    parser.add_argument("--model-budget", type=int, default=150)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=300, help="seconds per search")
    parser.add_argument("--strategies", default="brute_force,model")
    parser.add_argument("--out", default="/tmp/multi_gpu_bench")
    parser.add_argument("--results", default=os.path.join(ROOT, "bench", "RESULTS.md"))
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--one-gpu", action="store_true",
                        help="on a machine with one GPU: one process against one MPI rank")
    parser.add_argument("--replay", help=argparse.SUPPRESS)
    parser.add_argument("--modes", default="one,mpi,all",
                        help="one, mpi, all, one-k, split (comma-separated; module docstring)")
    parser.add_argument("--warm", action="store_true",
                        help="compile every variant beforehand: the GPUs bound the search")
    parser.add_argument("--budget", default="none", help="brute force's budget (default none)")
    parser.add_argument("--search-arg", action="append", default=[],
                        help="an extra argument for every gputune search (repeat)")
    args = parser.parse_args()

    names = gpu_names()
    if not names:
        sys.exit("multi_gpu_bench: no GPU")
    if len(names) < 2 and not args.one_gpu:
        sys.exit(f"multi_gpu_bench: needs 2 or more GPUs, found {len(names)} (--one-gpu: compare "
                 "one process with one MPI rank, the cost of the MPI path)")
    if len(set(names)) != 1:
        sys.exit(f"multi_gpu_bench: needs identical GPUs, found {names}")
    gpus = len(names)
    os.makedirs(args.out, exist_ok=True)
    args.warm_cache = warm_cache(args) if args.warm and not args.replay else None
    modes = [m for m in args.modes.split(",") if gpus > 1 or m not in ("all", "split")]
    runs = []
    for strategy in args.strategies.split(","):
        budget = args.budget if strategy == "brute_force" else args.model_budget
        for mode in modes:
            runs.append(run_search(args, mode, strategy, budget, args.out, gpus))
            # Everything so far, in one file: a call stopped from outside keeps what it ran.
            with open(os.path.join(args.out, "runs.json"), "w") as f:
                json.dump(runs, f, indent=1, default=str)

    reference = next((r for r in runs if r["mode"] == "one" and r["strategy"] == "brute_force"
                      and r["best"]), None)
    best = reference["best"] if reference else min(r["best"] for r in runs if r["best"])
    # Speed-ups against one GPU: one-k and split against one-k (hosts of C/G CPUs).
    base = {(r["strategy"], r["mode"] in ("one-k", "split")): r for r in runs
            if r["mode"] in ("one", "one-k")}
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    title = (f"## Several GPUs of one host (issues 16 and 31): {gpus} x {names[0]}, {args.spec}"
             if gpus > 1 else f"## The MPI path on one GPU (issue 16): {names[0]}, {args.spec}")
    lines = [
        title + f"{' ' + ' '.join(args.set) if args.set else ''}",
        "",
        f"{when}, commit {commit()}, {len(os.sched_getaffinity(0))} CPUs; "
        f"`python3 bench/multi_gpu_bench.py --spec {args.spec}"
        f"{''.join(' --set ' + s for s in args.set)} --model-budget {args.model_budget}`. "
        "one: `--devices 0`; mpi: `mpirun --enable-recovery --bind-to none -n "
        f"{gpus} ... --mpi --devices local` (one rank per GPU); all: `--devices all` in one "
        "process. Every run compiles cold (its own module cache and NVRTC compute cache) with "
        f"one compiler process per CPU in all"
        f"{'; every variant compiled beforehand (--warm)' if args.warm else ''}"
        f"{'; search arguments ' + ' '.join(args.search_arg) if args.search_arg else ''}. "
        "one-k: one process on the first C/G CPUs (taskset); split: G MPI ranks, each on its own "
        f"C/G CPUs (speed-ups of both against one-k). Best: "
        f"{'the one-GPU brute-force best' if reference else 'the best of these runs'} "
        f"({best:.4f} ms); 95% of it: {best / 0.95:.4f} ms.",
        "",
        "| strategy | run | variants | wall s | variants/s (search) | variants/s (wall) | speed-up "
        "| evals to 95% | best / one-GPU best | bound | lock errors | integrity | rc |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---|---|",
    ]
    for r in runs:
        search = r["search"] or {}
        rate = search.get("measured_per_s")
        one = base.get((r["strategy"], r["mode"] in ("one-k", "split")), {}).get("search") or {}
        bound = (r.get("bound") or {}).get("text", "-")
        speedup = (f"{rate / one['measured_per_s']:.2f}x"
                   if rate and one.get("measured_per_s") else "-")
        evals = evaluations_to(r["order"], best / 0.95)
        ratio = f"{r['best'] / best:.4f}" if r["best"] else "-"
        lines.append(
            f"| {r['strategy']} | {r['mode']} | {len(r['order'])} | {r['wall']:.1f} | "
            f"{rate:.2f} | {len(r['order']) / r['wall']:.2f} | {speedup} | {evals or '-'} | "
            f"{ratio} | {bound} | {r['lock_errors']} | {r['integrity']} | {r['rc']} |"
            if rate else
            f"| {r['strategy']} | {r['mode']} | {len(r['order'])} | {r['wall']:.1f} | - | - | - | "
            f"{evals or '-'} | {ratio} | {bound} | {r['lock_errors']} | {r['integrity']} | "
            f"{r['rc']} |")
    lines.append("")
    text = "\n".join(lines)
    print(text)
    with open(os.path.join(args.out, "section.md"), "w") as f:
        f.write(text + "\n")
    if not args.no_write:
        with open(args.results, "a") as f:
            f.write("\n" + text + "\n")
    agree = all(r["best"] and r["best"] <= best * 1.01 for r in runs
                if r["strategy"] == "brute_force")
    clean = all(r["lock_errors"] == 0 and r["integrity"] == "ok"
                and (r["rc"] == 0 or str(r["rc"]).startswith("stopped")) for r in runs)
    return 0 if agree and clean else 1


if __name__ == "__main__":
    sys.exit(main())
