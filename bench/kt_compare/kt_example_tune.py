"""Runs one of Kernel Tuner's own example scripts as it is, and stops after its first
tune_kernel call (examples such as expdist tune a second kernel with the first one's best).

Two modes:

  --capture FILE: no GPU and no Kernel Tuner needed. A stand-in kernel_tuner records the
      arguments of the first tune_kernel call (kernel name and source, problem size, argument
      arrays (dtype, size, range), tunable parameters, restrictions, grid divisors, constant
      memory, answer) to FILE as JSON, for kt_examples.py to write the same search as a
      gputune spec.
  --cache FILE --result FILE: the real Kernel Tuner runs that call, with the cupy backend
      (the example's own lang is pycuda, which the GPU machine lacks) and a cache file that
      holds every config as it is evaluated (run.py reads a search stopped at its limit), and
      a JSON summary at the end.

    python3 kt_example_tune.py EXAMPLE.py (--capture FILE | --cache FILE --result FILE)
"""

import argparse
import inspect
import json
import os
import runpy
import sys
import time
import types
from pathlib import Path

started = time.perf_counter()


class Stop(Exception):
    """Ends the example after its first tune_kernel call."""


def describe(value):
    """An argument as JSON: arrays by dtype, size and value range; numbers as they are."""
    import numpy

    if isinstance(value, numpy.ndarray):
        flat = value.ravel()
        finite = flat[numpy.isfinite(flat)] if flat.dtype.kind == "f" else flat
        return {
            "array": True,
            "dtype": str(flat.dtype),
            "count": int(flat.size),
            "min": float(finite.min()) if finite.size else 0.0,
            "max": float(finite.max()) if finite.size else 0.0,
            "zeros": bool(not flat.any()),
        }
    if isinstance(value, numpy.generic):
        return {"array": False, "dtype": str(value.dtype), "value": value.item()}
    if isinstance(value, bool):
        return {"array": False, "dtype": "int32", "value": int(value)}
    if isinstance(value, int):
        return {"array": False, "dtype": "int32", "value": value}
    if isinstance(value, float):
        return {"array": False, "dtype": "float32", "value": value}
    return {"unsupported": type(value).__name__}


def bound_arguments(real_signature, args, kwargs):
    bound = real_signature.bind(*args, **kwargs)
    bound.apply_defaults()
    return dict(bound.arguments)


def capture(call, path):
    """The first tune_kernel call, as JSON."""
    source = call["kernel_source"]
    if isinstance(source, (list, tuple)):
        source = source[0]
    if isinstance(source, str) and os.path.isfile(source):
        source_path, source = os.path.abspath(source), Path(source).read_text()
    else:
        source_path = None
    restrictions = call.get("restrictions")
    if restrictions is not None and not isinstance(restrictions, (list, tuple)):
        restrictions = [restrictions]
    answer = call.get("answer")
    out = {
        "kernel_name": call["kernel_name"],
        "kernel_source": source if isinstance(source, str) else None,
        "kernel_source_path": source_path,
        "problem_size": [
            p.item() if hasattr(p, "item") else p
            for p in (
                call["problem_size"]
                if isinstance(call["problem_size"], (list, tuple))
                else [call["problem_size"]]
            )
        ],
        "arguments": [describe(a) for a in call["arguments"]],
        "tune_params": {k: list(v) for k, v in call["tune_params"].items()},
        "restrictions": [r if isinstance(r, str) else None for r in (restrictions or [])],
        "grid_div": [call.get("grid_div_x"), call.get("grid_div_y"), call.get("grid_div_z")],
        "block_size_names": call.get("block_size_names"),
        "cmem_args": {k: describe(v) for k, v in (call.get("cmem_args") or {}).items()},
        "smem_args": bool(call.get("smem_args")),
        "texmem_args": bool(call.get("texmem_args")),
        "answer": None if answer is None else [a is not None for a in answer],
        "verify": call.get("verify") is not None,
        "atol": call.get("atol"),
        "compiler_options": call.get("compiler_options"),
        "defines": call.get("defines"),
        "iterations": call.get("iterations"),
    }
    Path(path).write_text(json.dumps(out, indent=1, default=str))


def stand_in_kernel_tuner(on_call):
    """A kernel_tuner module whose tune_kernel hands its arguments to on_call, for machines
    without Kernel Tuner (capturing needs neither it nor a GPU)."""
    module = types.ModuleType("kernel_tuner")
    util = types.ModuleType("kernel_tuner.util")

    def tune_kernel(kernel_name, kernel_source, problem_size, arguments, tune_params,
                    grid_div_x=None, grid_div_y=None, grid_div_z=None, restrictions=None,
                    answer=None, atol=1e-6, verify=None, verbose=False, lang=None, device=0,
                    platform=0, smem_args=None, cmem_args=None, texmem_args=None, compiler=None,
                    compiler_options=None, defines=None, log=None, iterations=7,
                    block_size_names=None, quiet=False, strategy=None, strategy_options=None,
                    cache=None, metrics=None, simulation_mode=False, observers=None,
                    objective=None, objective_higher_is_better=None):
        on_call(dict(locals()))

    module.tune_kernel = tune_kernel
    module.util = util
    # What else an example imports from them (helpers it calls after tuning, never reached).
    util.__getattr__ = lambda name: (lambda *a, **k: None)
    module.__getattr__ = lambda name: (lambda *a, **k: None)
    module.__version__ = "stand-in"
    sys.modules["kernel_tuner"] = module
    sys.modules["kernel_tuner.util"] = util


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("example", help="a Kernel Tuner example script (examples/cuda/*.py)")
    parser.add_argument("--capture", help="write the first tune_kernel call here; run nothing")
    parser.add_argument("--cache", help="Kernel Tuner's cache file (fresh)")
    parser.add_argument("--result", help="JSON summary written at the end")
    args = parser.parse_args()
    example = Path(args.example).resolve()
    os.chdir(example.parent)  # the examples open their kernels by relative name
    sys.path.insert(0, str(example.parent))
    phases = {"start": time.perf_counter() - started}

    if args.capture:
        def on_call(call):
            capture(call, args.capture)
            raise Stop

        stand_in_kernel_tuner(on_call)
    else:
        if not (args.cache and args.result):
            parser.error("give --capture FILE, or --cache FILE and --result FILE")
        t0 = time.perf_counter()
        import kernel_tuner

        phases["import"] = time.perf_counter() - t0
        real = kernel_tuner.tune_kernel
        signature = inspect.signature(real)

        def tuned(*call_args, **call_kwargs):
            call = bound_arguments(signature, call_args, call_kwargs)
            call.update(lang="cupy", cache=args.cache, quiet=True, verbose=False)
            phases["example_before_tune"] = time.perf_counter() - started - sum(phases.values())
            t1 = time.perf_counter()
            results, env = real(**call)
            phases["tune_kernel"] = time.perf_counter() - t1
            ok = [r for r in results if isinstance(r.get("time"), (int, float))]
            best = min(ok, key=lambda r: r["time"]) if ok else None
            names = list(call["tune_params"])
            Path(args.result).write_text(json.dumps({
                "kernel_tuner": kernel_tuner.__version__,
                "evaluated": len(results),
                "valid": len(ok),
                "best": {"config": {k: best[k] for k in names}, "time_ms": best["time"]}
                if best else None,
                "phases_s": phases,
                "device_name": env.get("device_name"),
                "iterations": env.get("iterations"),
            }, indent=1, default=str))
            raise Stop

        kernel_tuner.tune_kernel = tuned
    try:
        runpy.run_path(str(example), run_name="__main__")
    except Stop:
        return 0
    sys.exit(f"{example.name}: tune_kernel was never called")


if __name__ == "__main__":
    sys.exit(main())
