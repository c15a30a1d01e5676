"""gputune against Kernel Tuner on Kernel Tuner's own examples, as they are (issue 31).

For each example script (examples/cuda/*.py of Kernel Tuner's repository): its first
tune_kernel call is captured without a GPU (kt_example_tune.py --capture), written as a gputune
spec over the same kernel source, parameters, restrictions, problem size, grid divisors,
argument types and sizes and constant memory, and then, one after the other, each its own
process under the same time limit: `gputune search --strategy brute_force --json` on that spec,
and the example script itself under the real Kernel Tuner (kt_example_tune.py: cupy backend,
a cache file, stopped after that first call). Whole-process wall time, variants per second, and
gputune's best time over Kernel Tuner's.

What differs, and is said in the results: the input data (gputune fills arrays on the GPU with
uniform random numbers over the example's value range, or zeros where the example's are
zeros; Kernel Tuner gets the example's own NumPy arrays), and the checks (gputune checks the
outputs the example's answer names against its baseline, within the example's atol, and none
where the example gives no answer or its own verify function; Kernel Tuner does what the
example asks).

    python3 kt_examples.py --examples DIR --gputune .device/bin/gputune [--budget-s 420]
        [--only matmul,expdist] [--out $OUT]
    python3 kt_examples.py --examples DIR --dry-run    # capture and translate only (no GPU)

Run it on the GPU machine through `bash bench/kt_compare/run.sh examples` (README.md beside this
file).
"""

import argparse
import itertools
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import run  # noqa: E402  (run_limited, read_kt_cache, agreement, environment, ...)

# The examples compared by default: their first tune_kernel call is a GPU-bound search (long
# kernels: matmul, expdist, convolution, reduction) or a short one for contrast (stencil).
EXAMPLES = ["matmul", "expdist", "convolution", "reduction", "stencil"]
DIMENSIONS = "xyz"
GPUTUNE_TYPES = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                 "float32", "float64"}


class Unsupported(Exception):
    pass


def capture(example, work):
    path = work / f"{example.stem}.capture.json"
    done = subprocess.run(
        [sys.executable, str(HERE / "kt_example_tune.py"), str(example), "--capture", str(path)],
        capture_output=True, text=True, timeout=600)
    if done.returncode != 0 or not path.exists():
        raise Unsupported(f"capture failed: {(done.stderr or done.stdout)[-400:]}")
    return json.loads(path.read_text())


def divisors(capture, d):
    """The parameters that divide the problem size in dimension d, as Kernel Tuner reads them:
    grid_div_x/y/z, by default the block size's own parameter where it is tuned."""
    names = capture.get("block_size_names") or ["block_size_x", "block_size_y", "block_size_z"]
    given = capture["grid_div"][d]
    if given is None:
        return [names[d]] if names[d] in capture["tune_params"] else []
    return list(given)


def first_valid(capture):
    """The first config of the product that keeps every restriction: the baseline."""
    params = capture["tune_params"]
    restrictions = [r for r in capture["restrictions"] if r]
    for values in itertools.product(*params.values()):
        config = dict(zip(params, values))
        if all(eval(r, {"__builtins__": {}}, dict(config)) for r in restrictions):
            return config
    raise Unsupported("no config keeps the restrictions")


def yaml_value(v):
    return json.dumps(v)


def spec_text(capture, source):
    """The captured search as a gputune spec (YAML) over `source` (the kernel file)."""
    if None in capture["restrictions"]:
        raise Unsupported("a restriction is a Python function")
    if capture["smem_args"] or capture["texmem_args"]:
        raise Unsupported("dynamic shared or texture memory arguments")
    params = capture["tune_params"]
    names = capture.get("block_size_names") or ["block_size_x", "block_size_y", "block_size_z"]
    problem, sizes = {}, []
    for d, size in enumerate(capture["problem_size"][:3]):
        if isinstance(size, (int, float)):
            problem[f"p{DIMENSIONS[d]}"] = int(size)
            sizes.append(f"p{DIMENSIONS[d]}")
        elif isinstance(size, str) and size in params:
            sizes.append(size)
        else:
            raise Unsupported(f"problem size {size!r}")
    block, grid = [], []
    for d in range(3):
        block.append(names[d] if names[d] in params else ("256" if d == 0 else "1"))
        if d < len(sizes):
            div = " * ".join(divisors(capture, d)) or "1"
            grid.append(f"ceil({sizes[d]} / ({div}))")
        else:
            grid.append("1")
    lines = [f"kernel: {{source: {json.dumps(str(source))}, name: {capture['kernel_name']}"]
    # What Kernel Tuner defines besides the parameters: the block and grid sizes, the problem
    # size, and kernel_tuner itself.
    defines = {"kernel_tuner": "1"}
    for d in range(3):
        if names[d] not in params:
            defines[names[d]] = block[d]
        defines[f"grid_size_{DIMENSIONS[d]}"] = grid[d]
        if d < len(sizes):
            defines[f"problem_size_{DIMENSIONS[d]}"] = sizes[d]
    lines[0] += ", defines: {" + ", ".join(f"{k}: {yaml_value(v)}" for k, v in defines.items())
    lines[0] += "}}"
    if capture.get("compiler_options"):
        lines.append("options: " + json.dumps(list(capture["compiler_options"])))
    if problem:
        lines.append("problem: {" + ", ".join(f"{k}: {v}" for k, v in problem.items()) + "}")
    answer = capture.get("answer")
    checked = answer is not None and not capture.get("verify")
    lines.append("arguments:")
    for i, a in enumerate(capture["arguments"]):
        if "unsupported" in a:
            raise Unsupported(f"argument {i} is a {a['unsupported']}")
        if a["dtype"] not in GPUTUNE_TYPES:
            raise Unsupported(f"argument {i} has dtype {a['dtype']}")
        if not a["array"]:
            lines.append(f"  - {{name: arg{i}, type: {a['dtype']}, value: {a['value']}}}")
            continue
        output = checked and i < len(answer) and answer[i]
        fill = "zeros" if a["zeros"] else (
            f"random, range: [{a['min']!r}, {a['max'] + max(abs(a['max']) * 1e-6, 1e-6)!r}], "
            f"seed: {i + 1}")
        lines.append(f"  - {{name: arg{i}, type: {a['dtype']}, count: {a['count']}, "
                     + ("output: true}" if output else f"fill: {fill}}}"))
    for name, a in capture["cmem_args"].items():
        fill = "zeros" if a.get("zeros") else (
            f"random, range: [{a['min']!r}, {a['max'] + 1e-6!r}], seed: 99")
        lines.append(f"  - {{name: {name}, type: {a['dtype']}, count: {a['count']}, "
                     f"constant: true, fill: {fill}}}")
    lines.append("launch: {block: [" + ", ".join(block) + "], grid: [" + ", ".join(grid) + "]}")
    lines.append("parameters:")
    for k, v in params.items():
        lines.append(f"  {k}: {json.dumps(v)}")
    restrictions = [r for r in capture["restrictions"] if r]
    if restrictions:
        lines.append("constraints:")
        for r in restrictions:
            lines.append(f"  - {json.dumps(r)}")
    lines.append("baseline: " + json.dumps(first_valid(capture)))
    atol = capture.get("atol") or 1e-6
    lines.append(f"check: {{rtol: 0, atol: {atol!r}}}" if checked else "check: none")
    return "\n".join(lines) + "\n"


class Example:
    """What run.run_gputune needs of a compared space."""

    def __init__(self, path, capture, spec_path):
        self.name = path.stem
        self.path = path
        self.capture = capture
        self.spec_path = spec_path
        self.problem_overrides = {}
        self.kt = {"parameters": list(capture["tune_params"]),
                   "tune_params": capture["tune_params"]}


def plan(args, work):
    examples, left_out = [], []
    wanted = args.only.split(",") if args.only else EXAMPLES
    specs = work / "specs"
    specs.mkdir(parents=True, exist_ok=True)
    for name in wanted:
        path = Path(args.examples) / f"{name}.py"
        if not path.exists():
            left_out.append({"space": name, "why": f"no {path}"})
            continue
        try:
            c = capture(path, work)
            source = c["kernel_source_path"]
            if not source:
                source = specs / f"{name}.cu"
                source.write_text(c["kernel_source"])
            spec = specs / f"{name}.yaml"
            spec.write_text(spec_text(c, source))
        except Unsupported as e:
            left_out.append({"space": name, "why": str(e)})
            continue
        examples.append(Example(path, c, spec))
    if args.gputune:
        counts = run.gputune_counts(args.gputune, specs)
        for e in examples:
            e.configs = counts.get(str(e.spec_path.resolve()))
    return examples, left_out


def run_kernel_tuner(example, limit_s, work):
    cache = work / f"{example.name}.kt-cache.json"
    result_path = work / f"{example.name}.kt.json"
    command = [sys.executable, str(HERE / "kt_example_tune.py"), str(example.path), "--cache",
               str(cache), "--result", str(result_path)]
    env = {**os.environ, "CUPY_CACHE_DIR": str(work / f"cupy-{example.name}"),
           "PYTHONUNBUFFERED": "1"}
    rc, wall, hit = run.run_limited(command, limit_s, env=env, interrupt=signal.SIGKILL,
                                    grace_s=10)
    result = {"rc": rc, "wall_s": wall, "time_limit_hit": hit, "limit_s": limit_s}
    if result_path.exists():
        result.update(json.loads(result_path.read_text()))
    names = example.kt["parameters"]
    entries = run.read_kt_cache(cache, names)
    ok = [(c, t) for c, t in entries if t is not None]
    result["evaluated"] = len(entries)
    result["valid"] = len(ok)
    result["best"] = None
    if ok:
        config, t = min(ok, key=lambda e: e[1])
        result["best"] = {"config": config, "time_ms": t}
    return result, {run.config_key(c, names): t for c, t in ok}


def markdown(env, mode, rows, left_out, args):
    lines = [
        f"## {env['date_utc']}, Kernel Tuner's own examples side by side (issue 31), commit "
        f"{env['commit']}",
        "",
        f"{env['gpu']}, {env['cores']} cores, Python {env['python']}. Each example's first "
        "`tune_kernel` call, as the example script makes it: Kernel Tuner runs the script "
        "itself (cupy backend instead of the example's pycuda, brute force, the example's "
        "iterations); gputune runs a spec written from that call (same kernel source, "
        "parameters, restrictions, problem size, grid divisors, argument types and sizes, "
        f"constant memory): `search --strategy brute_force --json`, timing mode {mode}, fresh "
        "database and module cache. Whole-process wall time, each tool its own process, one "
        f"after the other under the same limit (`kt_examples.py --budget-s {args.budget_s:g}`). "
        "Inputs: the example's NumPy arrays for Kernel Tuner, uniform random over their range "
        "(zeros where theirs are) for gputune. Best agreement: gputune's best time over Kernel "
        "Tuner's (whole space where both finished, else the configs both evaluated).",
        "",
        "| example | configs | KT evaluated | KT variants/s | gputune evaluated | gputune "
        "variants/s | speed-up | best agreement (gputune / KT) | gputune GPU idle | checks |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        g, kt = r["gputune"], r["kernel_tuner"]
        kt_rate = kt.get("evaluated", 0) / kt["wall_s"] if kt.get("wall_s") else 0
        g_rate = g.get("evaluated", 0) / g["wall_s"] if g.get("wall_s") else 0
        idle = g.get("gpu_idle_share")
        ratio, basis = r["agreement"], r["agreement_basis"]
        cells = [
            r["example"], r["configs"],
            f"{kt.get('evaluated', 0)}{' (time limit)' if kt.get('time_limit_hit') else ''}",
            f"{kt_rate:.2f}",
            f"{g.get('evaluated', 0)}{' (time limit)' if g.get('time_limit_hit') else ''}",
            f"{g_rate:.2f}",
            f"{g_rate / kt_rate:.2f}x" if kt_rate > 0 else "-",
            f"{ratio:.3f} ({basis})" if ratio else basis,
            "-" if idle is None else f"{100 * idle:.0f}%",
            r["checks"],
        ]
        lines.append("| " + " | ".join(map(str, cells)) + " |")
    lines += ["", "Best configs:", ""]
    for r in rows:
        for tool in ("gputune", "kernel_tuner"):
            best = r[tool].get("best")
            if best:
                cfg = " ".join(f"{k}={v}" for k, v in best["config"].items())
                lines.append(f"- {r['example']}, {tool}: {cfg}, {best['time_ms']:.4f} ms")
    if left_out:
        lines += ["", "Left out:", ""]
        lines += [f"- {item['space']}: {item['why']}" for item in left_out]
    lines.append("")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", required=True,
                        help="Kernel Tuner's examples/cuda folder (bench/kt_compare/README.md)")
    parser.add_argument("--gputune", help="the gputune binary (e.g. .device/bin/gputune)")
    parser.add_argument("--out", default=os.environ.get("OUT", "/tmp/kt-examples"))
    parser.add_argument("--budget-s", type=float, default=420,
                        help="wall time for all searches together, shared out equally (420)")
    parser.add_argument("--hard-stop-s", type=float, default=500,
                        help="no search runs past this many seconds after the first starts")
    parser.add_argument("--only", default="", help="comma-separated example names")
    parser.add_argument("--gputune-arg", action="append", default=[],
                        help="an extra argument for gputune search (repeat)")
    parser.add_argument("--dry-run", action="store_true",
                        help="capture and translate only, print the specs (no GPU)")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="kt-examples-"))
    examples, left_out = plan(args, work)
    for e in examples:
        run.log(f"{e.name}: {getattr(e, 'configs', '?')} configs ({e.spec_path})")
    for item in left_out:
        run.log(f"{item['space']}: left out, {item['why']}")
    if args.dry_run:
        for e in examples:
            print(f"# {e.name}\n{e.spec_path.read_text()}")
        return 0
    if not args.gputune:
        parser.error("--gputune is required (the binary to compare)")
    env = run.environment(args)
    mode = run.sampling_mode(args.gputune)
    rows = []
    start = time.perf_counter()
    hard_stop = start + args.hard_stop_s
    for i, e in enumerate(examples):
        left = max(0.0, start + args.budget_s - time.perf_counter())
        share = max(20.0, left / (len(examples) - i))
        share = min(share, (hard_stop - time.perf_counter()) / 2)
        if share < 5:
            left_out.append({"space": e.name, "why": "not run: past the hard stop"})
            continue
        run.log(f"== {e.name}: {getattr(e, 'configs', '?')} configs, {share:.0f} s each")
        g, g_times = run.run_gputune(args, e, e.spec_path, share, work)
        run.log(f"  gputune: {g.get('evaluated')} in {g['wall_s']:.1f} s")
        kt, kt_times = run_kernel_tuner(e, min(share, hard_stop - time.perf_counter()), work)
        run.log(f"  Kernel Tuner: {kt.get('evaluated')} in {kt['wall_s']:.1f} s")
        ratio, basis = run.agreement(g, kt, g_times, kt_times)
        c = e.capture
        checks = ("gputune: the answer's outputs against its baseline; KT: the answer"
                  if c.get("answer") is not None and not c.get("verify") else
                  "gputune: none; KT: the example's verify" if c.get("verify") else "none in either")
        rows.append({"example": e.name, "configs": getattr(e, "configs", None),
                     "gputune": g, "kernel_tuner": kt, "agreement": ratio,
                     "agreement_basis": basis, "checks": checks,
                     "iterations": c.get("iterations")})
        raw = {"environment": env, "gputune_mode": mode, "rows": rows, "left_out": left_out}
        (out / "kt_examples.json").write_text(json.dumps(raw, indent=1, default=str))
        (out / "kt_examples.md").write_text(markdown(env, mode, rows, left_out, args))
    section = markdown(env, mode, rows, left_out, args)
    (out / "kt_examples.md").write_text(section)
    print(section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
