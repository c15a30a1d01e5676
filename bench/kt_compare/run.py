"""gputune against Kernel Tuner 1.5.0, side by side on one GPU (issue 14).

For every shipped space (spaces/*.yaml) and the benchmark spaces (bench/spaces/*.yaml): one
`gputune search --strategy brute_force` and one Kernel Tuner brute-force search (cupy backend,
kt_tune.py), each its own process with a time limit, on the same derived spec (kt_spaces.py:
what Kernel Tuner cannot express is fixed or left out, and said so). Whole-process wall time,
variants evaluated, variants per second, best time and config of each; a Markdown section for
bench/RESULTS.md and the raw JSON under --out.

Run it on the GPU machine through bench/kt_compare/run.sh (README.md beside this file).
"""

import argparse
import datetime
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import kt_spaces  # noqa: E402

ROOT = HERE.parent.parent


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def gputune_counts(gputune, folder):
    """Space sizes (valid configs, device limits applied) of the specs in `folder`, by resolved
    path, from `gputune list --json` (no GPU needed)."""
    env = {**os.environ, "GPUTUNE_SPACES": str(folder)}
    out = subprocess.run(
        [gputune, "list", "--json"], env=env, capture_output=True, text=True, check=True
    )
    return {str(Path(r["path"]).resolve()): r.get("variants") for r in json.loads(out.stdout)}


def sampling_mode(gputune):
    """gputune's default timing mode, as its --help states it."""
    text = subprocess.run([gputune, "search", "--help"], capture_output=True, text=True).stdout
    if "--sampling" in text:
        default = text.split("--sampling", 1)[1].split("\n", 1)[0]
        value = default.split("(=", 1)[1].split(")", 1)[0] if "(=" in default else "?"
        return f"default (--sampling {value})"
    return "default (adaptive full sampling; this build has no --sampling)"


def run_limited(command, limit_s, env=None, stdout=None, interrupt=signal.SIGINT, grace_s=20):
    """Runs `command` for at most limit_s seconds: then `interrupt` to the process itself (gputune
    stops after the variant in flight and prints its report), and SIGKILL to its whole process
    group after grace_s. Returns (exit code, whole-process wall seconds, limit hit)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        command, env=env, stdout=stdout, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    hit = False
    try:
        _, err = proc.communicate(timeout=limit_s)
    except subprocess.TimeoutExpired:
        hit = True
        os.kill(proc.pid, interrupt)
        try:
            _, err = proc.communicate(timeout=grace_s)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            _, err = proc.communicate()
    wall = time.perf_counter() - start
    if proc.returncode not in (0, 130) or hit:
        log(f"  rc={proc.returncode}{' (time limit)' if hit else ''}: {(err or '')[-600:]}")
    return proc.returncode, wall, hit


def _json_object(text):
    """The object text opens: an entry line closed by '}' ("...},") or, the last entry of a
    finished search, followed by the cache's own closing '}' ("...}}")."""
    try:
        return json.loads(text + "}")
    except json.JSONDecodeError:
        return json.JSONDecoder().raw_decode(text)[0]


def read_kt_cache(path, names):
    """Configs in a Kernel Tuner cache file, finished or cut off: [(config, time_ms or None)]."""
    if not Path(path).exists():
        return []
    out = []
    for line in Path(path).read_text().splitlines():
        line = line.strip().rstrip(",")
        if not line.startswith('"') or ": {" not in line:
            continue
        try:
            entry = next(iter(_json_object("{" + line).values()))
        except (json.JSONDecodeError, StopIteration):
            continue  # the line being written when the process was stopped
        if not isinstance(entry, dict) or "time" not in entry:
            continue
        t = entry["time"]
        out.append(
            (
                {k: entry[k] for k in names if k in entry},
                float(t) if isinstance(t, (int, float)) else None,
            )
        )
    return out


def config_key(config, names):
    return json.dumps({k: config[k] for k in names}, sort_keys=True)


def run_gputune(args, tr, spec, limit_s, work):
    db = work / f"{tr.name}.db"
    command = [
        args.gputune,
        "search",
        str(spec),
        "--strategy",
        "brute_force",
        "--db",
        str(db),
        "--json",
        "-q",
        "--cache-dir",
        str(work / f"modules-{tr.name}"),
    ]
    for k, v in tr.problem_overrides.items():
        command += ["--set", f"{k}={v}"]
    command += args.gputune_arg
    json_path = work / f"{tr.name}.gputune.json"
    with open(json_path, "w") as out:
        rc, wall, hit = run_limited(command, limit_s, stdout=out)
    result = {
        "command": " ".join(command),
        "rc": rc,
        "wall_s": wall,
        "time_limit_hit": hit,
        "limit_s": limit_s,
    }
    try:
        report = json.loads(json_path.read_text())
    except (json.JSONDecodeError, OSError) as e:
        result["error"] = f"no report: {e}"
        return result, {}
    s = report.get("search", {})
    rows = report.get("results", [])
    result.update(
        {
            "evaluated": s.get("evaluated", 0),
            "internal_wall_s": s.get("wall_s"),
            "interrupted": s.get("interrupted"),
            "gpu_idle_share": s.get("gpu_idle_share"),
            "measuring_s": s.get("measuring_s"),
            "status_counts": report.get("status_counts"),
            "best": (
                {"config": rows[0]["config"], "time_ms": rows[0]["median_ms"]} if rows else None
            ),
        }
    )
    names = tr.kt["parameters"]
    times = {
        config_key(r["config"], names): r["median_ms"]
        for r in rows
        if all(n in r["config"] for n in names)
    }
    return result, times


def run_kernel_tuner(args, tr, functions, limit_s, work):
    cache = work / f"{tr.name}.kt-cache.json"
    result_path = work / f"{tr.name}.kt.json"
    command = [
        sys.executable,
        args.kt_script,
        str(tr.spec_path),
        "--cache",
        str(cache),
        "--result",
        str(result_path),
        "--as-functions",
        ",".join(map(str, functions)),
    ]
    for k, v in tr.problem_overrides.items():
        command += ["--set", f"{k}={v}"]
    env = {**os.environ, "CUPY_CACHE_DIR": str(work / f"cupy-{tr.name}"), "PYTHONUNBUFFERED": "1"}
    rc, wall, hit = run_limited(command, limit_s, env=env, interrupt=signal.SIGKILL, grace_s=10)
    result = {
        "command": " ".join(command),
        "rc": rc,
        "wall_s": wall,
        "time_limit_hit": hit,
        "limit_s": limit_s,
        "restrictions_as_functions": functions,
    }
    if result_path.exists():
        result.update(json.loads(result_path.read_text()))
    names = tr.kt["parameters"]
    entries = read_kt_cache(cache, list(tr.kt["tune_params"]))
    ok = [(c, t) for c, t in entries if t is not None]
    result["evaluated"] = len(entries)
    result["valid"] = len(ok)
    if ok:
        config, t = min(ok, key=lambda e: e[1])
        result["best"] = {"config": {k: config[k] for k in names}, "time_ms": t}
    else:
        result["best"] = None
    return result, {config_key(c, names): t for c, t in ok}


def agreement(g, kt, g_times, kt_times):
    """gputune's best time over Kernel Tuner's: over both whole searches where both finished,
    else over the configs both evaluated (says which)."""
    if not g.get("best") or not kt.get("best"):
        return None, "no best"
    if not g["time_limit_hit"] and not kt["time_limit_hit"]:
        return g["best"]["time_ms"] / kt["best"]["time_ms"], "whole space"
    common = set(g_times) & set(kt_times)
    if not common:
        return None, "no config evaluated by both"
    return (
        min(g_times[c] for c in common) / min(kt_times[c] for c in common),
        f"{len(common)} configs both evaluated",
    )


def environment(args):
    def cmd(c):
        try:
            return subprocess.run(c, capture_output=True, text=True, timeout=30).stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            return ""

    commit = ""
    bundle = ROOT / ".device/COMMIT"
    if bundle.exists():
        commit = bundle.read_text().strip()
    commit = commit or cmd(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"]) or "unknown"
    return {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "gpu": cmd(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"])
        or "unknown",
        "cores": os.cpu_count(),
        "commit": commit,
        "python": sys.version.split()[0],
    }


def plan(args, work):
    """The spaces, derived specs and their counts; no GPU needed."""
    spaces, left_out = [], []
    wanted = set(args.spaces.split(",")) if args.spaces else None
    overrides = {}
    for item in args.set:
        space, _, pair = item.partition(":")
        k, _, v = pair.partition("=")
        overrides.setdefault(space, {})[k] = v
    derived_dir = work / "derived"
    derived_dir.mkdir(parents=True, exist_ok=True)
    for path in kt_spaces.space_paths(args.root):
        if wanted and path.stem not in wanted:
            continue
        try:
            tr = kt_spaces.translate(path, overrides.get(path.stem, {}))
        except kt_spaces.Unsupported as e:
            left_out.append({"space": path.stem, "why": str(e)})
            continue
        tr.problem_overrides = overrides.get(path.stem, {})
        tr.derived_path = tr.write_derived(derived_dir)
        spaces.append(tr)
    if args.gputune:
        derived = gputune_counts(args.gputune, derived_dir)
        original = {}
        for folder in sorted({str(tr.spec_path.parent) for tr in spaces}):
            original.update(gputune_counts(args.gputune, folder))
        for tr in spaces:
            tr.gputune_count = derived.get(str(tr.derived_path.resolve()))
            tr.original_count = original.get(str(tr.spec_path))
    try:
        import kernel_tuner  # noqa: F401

        for tr in spaces:
            tr.functions = kt_spaces.misparsed_restrictions(tr)
            tr.kt_count = kt_spaces.kernel_tuner_space_size(tr, as_functions=tr.functions)[0]
    except ImportError:
        log("kernel_tuner is not importable: no Kernel Tuner counts, no Kernel Tuner runs")
        for tr in spaces:
            tr.functions, tr.kt_count = [], None
    return spaces, left_out


def _limit_mark(result):
    return " (time limit)" if result.get("time_limit_hit") else ""


def markdown(env, mode, rows, left_out, args):
    lines = [
        f"## {env['date_utc']}, side by side with Kernel Tuner 1.5.0 (issue 14), commit "
        f"{env['commit']}",
        "",
        f"{env['gpu']}, {env['cores']} cores, Python {env['python']}. Each tool is its own "
        "process (whole-process wall time, start-up, input fill and search-space construction "
        "included), brute force over the same derived spec, one after the other, gputune "
        f"first, each under a time limit (`run.py --budget-s {args.budget_s:g}`). gputune: "
        f"`search --strategy brute_force --json`, timing mode {mode}, fresh database and module "
        "cache, outputs checked against the baseline. Kernel Tuner: `tune_kernel` with "
        "`lang='cupy'`, brute force, 7 iterations, `answer=None` (no output check), fresh "
        "CuPy kernel cache. Best agreement is gputune's best time over Kernel Tuner's (a "
        "median over an adaptive sample count, L2 flushed, against a mean of 7 warm runs).",
        "",
        "| space | configs | KT evaluated | KT variants/s | gputune evaluated | gputune variants/s "
        "| speed-up | best agreement (gputune / KT) | gputune GPU idle |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    totals = {"kt_n": 0, "kt_s": 0.0, "g_n": 0, "g_s": 0.0}
    for r in rows:
        g, kt = r["gputune"], r["kernel_tuner"]
        kt_rate = kt.get("evaluated", 0) / kt["wall_s"] if kt.get("wall_s") else 0
        g_rate = g.get("evaluated", 0) / g["wall_s"] if g.get("wall_s") else 0
        totals["kt_n"] += kt.get("evaluated", 0)
        totals["kt_s"] += kt.get("wall_s", 0)
        totals["g_n"] += g.get("evaluated", 0)
        totals["g_s"] += g.get("wall_s", 0)
        ratio, basis = r["agreement"], r["agreement_basis"]
        idle = g.get("gpu_idle_share")
        cells = [
            r["space"],
            r["configs"],
            f"{kt.get('evaluated', 0)}{_limit_mark(kt)}",
            f"{kt_rate:.2f}",
            f"{g.get('evaluated', 0)}{_limit_mark(g)}",
            f"{g_rate:.2f}",
            f"{g_rate / kt_rate:.2f}x" if kt_rate > 0 else "-",
            f"{ratio:.3f} ({basis})" if ratio else basis,
            "-" if idle is None else f"{100 * idle:.0f}%",
        ]
        lines.append("| " + " | ".join(map(str, cells)) + " |")
    if totals["kt_s"] > 0 and totals["g_s"] > 0 and totals["kt_n"] > 0:
        kt_rate, g_rate = totals["kt_n"] / totals["kt_s"], totals["g_n"] / totals["g_s"]
        lines.append(
            f"| all | | {totals['kt_n']} | {kt_rate:.2f} | {totals['g_n']} | "
            f"{g_rate:.2f} | {g_rate / kt_rate:.2f}x | | |"
        )
    lines.append("")
    lines.append("Best configs:")
    lines.append("")
    for r in rows:
        for tool in ("gputune", "kernel_tuner"):
            best = r[tool].get("best")
            if best:
                cfg = " ".join(f"{k}={v}" for k, v in best["config"].items())
                lines.append(f"- {r['space']}, {tool}: {cfg}, {best['time_ms']:.4f} ms")
    lines.append("")
    lines.append("Left out or changed, in both tools:")
    lines.append("")
    for item in left_out:
        lines.append(f"- {item['space']}: left out, {item['why']}")
    for r in rows:
        for why in r["left_out"]:
            lines.append(
                f"- {r['space']}: {why} ({r['original_configs']} configs in the "
                f"shipped space, {r['configs']} compared)"
            )
        if r["restrictions_as_functions"]:
            lines.append(
                f"- {r['space']}: Kernel Tuner got restrictions "
                f"{r['restrictions_as_functions']} as functions: its string parser "
                "(python-constraint2) admits the wrong configs for them"
            )
    lines.append("")
    lines.append(
        "Problem values: "
        + "; ".join(
            f"{r['space']} " + " ".join(f"{k}={v}" for k, v in r["problem"].items()) for r in rows
        )
        + "."
    )
    lines.append("")
    return "\n".join(lines)


def write_results(out, env, mode, rows, left_out, args):
    raw = {
        "environment": env,
        "gputune_mode": mode,
        "budget_s": args.budget_s,
        "left_out": left_out,
        "spaces": rows,
    }
    (out / "kt_compare.json").write_text(json.dumps(raw, indent=1, default=str))
    section = markdown(env, mode, rows, left_out, args)
    (out / "kt_compare.md").write_text(section)
    return section


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=str(ROOT), help="repository root (spaces/, bench/)")
    parser.add_argument(
        "--gputune", default=None, help="the gputune binary (e.g. .device/bin/gputune)"
    )
    parser.add_argument(
        "--out",
        default=os.environ.get("OUT", "/tmp/kt-compare"),
        help="raw JSON and the Markdown section go here (default: $OUT)",
    )
    parser.add_argument(
        "--results",
        default=None,
        help="also append the Markdown section to this file (bench/RESULTS.md)",
    )
    parser.add_argument(
        "--budget-s",
        type=float,
        default=420,
        help="wall time for all searches together, shared out by configs (420)",
    )
    parser.add_argument(
        "--hard-stop-s",
        type=float,
        default=500,
        help="no search runs past this many seconds after the first starts (500)",
    )
    parser.add_argument(
        "--min-limit-s",
        type=float,
        default=25,
        help="the least time limit a tool gets for one space (25)",
    )
    parser.add_argument("--spaces", default="", help="comma-separated space names (default: all)")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="SPACE:NAME=VALUE",
        help="a problem value for one space, for both tools",
    )
    parser.add_argument(
        "--gputune-arg",
        action="append",
        default=[],
        help="an extra argument for gputune search (repeat), e.g. --fast",
    )
    parser.add_argument("--kt-script", default=str(HERE / "kt_tune.py"), help=argparse.SUPPRESS)
    parser.add_argument(
        "--dry-run", action="store_true", help="only translate, count and print the plan (no GPU)"
    )
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="kt-compare-"))

    spaces, left_out = plan(args, work)
    weights = {
        tr.name: max(1, getattr(tr, "gputune_count", None) or tr.kt_count or 1) for tr in spaces
    }
    total = sum(weights.values())
    log(f"{'space':18} {'original':>8} {'gputune':>8} {'KT':>6} {'limit s':>7}  left out")
    for tr in spaces:
        # The time limit both tools share for this space if every space before it used its own.
        limit = max(args.min_limit_s, args.budget_s * weights[tr.name] / total)
        log(
            f"{tr.name:18} {str(getattr(tr, 'original_count', '?')):>8} "
            f"{str(getattr(tr, 'gputune_count', '?')):>8} {str(tr.kt_count):>6} {limit:7.0f}  "
            f"{'; '.join(tr.left_out) or '-'}"
        )
    for item in left_out:
        log(f"{item['space']:18} left out: {item['why']}")
    if args.dry_run:
        return 0
    if not args.gputune:
        parser.error("--gputune is required (the binary to compare)")

    env = environment(args)
    mode = sampling_mode(args.gputune)
    log(f"{env['gpu']}, commit {env['commit']}, gputune timing mode: {mode}")
    rows, remaining, deadline = [], dict(weights), time.perf_counter() + args.budget_s
    # Past the budget, spaces still get their least limit, but never past the hard stop: the
    # device tool's command limit (600 s) must leave time to return what was written.
    hard_stop = time.perf_counter() + args.hard_stop_s
    section = write_results(out, env, mode, rows, left_out, args)
    for tr in spaces:
        # Each space gets the budget left in proportion to its configs; Kernel Tuner gets what
        # gputune left of it (at least half).
        left = max(0.0, deadline - time.perf_counter())
        share = max(args.min_limit_s, left * weights[tr.name] / sum(remaining.values()))
        share = min(share, (hard_stop - time.perf_counter()) / 2)
        del remaining[tr.name]
        if hard_stop - time.perf_counter() < 2:
            log(f"== {tr.name}: not run, past the hard stop (--hard-stop-s {args.hard_stop_s:g})")
            left_out.append({"space": tr.name, "why": "not run: past run.py's hard stop"})
            continue
        log(f"== {tr.name}: {tr.gputune_count} configs, {share:.0f} s")
        g, g_times = run_gputune(args, tr, tr.derived_path, share, work)
        log(f"  gputune: {g.get('evaluated')} in {g['wall_s']:.1f} s")
        kt_limit = max(args.min_limit_s, share - g["wall_s"], share / 2)
        kt_limit = min(kt_limit, hard_stop - time.perf_counter())
        kt, kt_times = run_kernel_tuner(args, tr, tr.functions, kt_limit, work)
        log(f"  Kernel Tuner: {kt.get('evaluated')} in {kt['wall_s']:.1f} s")
        ratio, basis = agreement(g, kt, g_times, kt_times)
        rows.append(
            {
                "space": tr.name,
                "configs": tr.gputune_count,
                "kt_configs": tr.kt_count,
                "original_configs": tr.original_count,
                "problem": tr.problem,
                "left_out": tr.left_out,
                "restrictions_as_functions": tr.functions,
                "gputune": g,
                "kernel_tuner": kt,
                "agreement": ratio,
                "agreement_basis": basis,
            }
        )
        shutil.rmtree(work / f"cupy-{tr.name}", ignore_errors=True)
        shutil.rmtree(work / f"modules-{tr.name}", ignore_errors=True)
        # Written after every space: a run stopped from outside keeps what it measured.
        write_results(out, env, mode, rows, left_out, args)

    section = write_results(out, env, mode, rows, left_out, args)
    if args.results:
        with open(args.results, "a") as f:
            f.write("\n" + section)
    print(section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
