"""One Kernel Tuner 1.5.0 brute-force search of a gputune spec, as its own process (run.py times
the whole process). Every evaluated config goes to the cache file as Kernel Tuner writes it, so
run.py can read a search it stopped at its time limit; a finished search also writes --result.

    python3 kt_tune.py SPEC --cache FILE --result FILE [--set n=4096 ...] [--as-functions 3,7]
"""

import argparse
import json
import sys
import time
from pathlib import Path

started = time.perf_counter()
sys.path.insert(0, str(Path(__file__).resolve().parent))

import kt_spaces  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("spec", help="the gputune spec (YAML), translated as kt_spaces does")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a problem value, as gputune search --set",
    )
    parser.add_argument("--cache", required=True, help="Kernel Tuner's cache file (fresh)")
    parser.add_argument("--result", required=True, help="JSON summary written at the end")
    parser.add_argument(
        "--as-functions",
        default="",
        help="indices of restrictions to pass as functions (run.py finds them)",
    )
    parser.add_argument("--iterations", type=int, default=7, help="Kernel Tuner's default: 7")
    args = parser.parse_args()
    overrides = dict(item.split("=", 1) for item in args.set)
    functions = {int(i) for i in args.as_functions.split(",") if i}

    t0 = time.perf_counter()
    import kernel_tuner

    imported = time.perf_counter()
    translation = kt_spaces.translate(args.spec, overrides)
    kwargs = kt_spaces.tune_kernel_arguments(translation, as_functions=functions)
    filled = time.perf_counter()
    results, env = kernel_tuner.tune_kernel(
        **kwargs, cache=args.cache, quiet=True, iterations=args.iterations
    )
    tuned = time.perf_counter()
    ok = [r for r in results if isinstance(r.get("time"), (int, float))]
    best = min(ok, key=lambda r: r["time"]) if ok else None
    names = list(translation.kt["tune_params"])
    summary = {
        "kernel_tuner": kernel_tuner.__version__,
        "evaluated": len(results),
        "valid": len(ok),
        "best": {"config": {k: best[k] for k in names}, "time_ms": best["time"]} if best else None,
        "phases_s": {
            "start": t0 - started,
            "import": imported - t0,
            "arguments": filled - imported,
            "tune_kernel": tuned - filled,
        },
        "device_name": env.get("device_name"),
        "iterations": env.get("iterations"),
    }
    Path(args.result).write_text(json.dumps(summary, indent=1, default=str))


if __name__ == "__main__":
    main()
