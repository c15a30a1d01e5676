"""Searches and stored results: the Python face of the C++ session (gputune/session.h), which
the command line uses too. Options mean what ``gputune search``'s options mean; an option left
as None takes the command line's default, from the one place the core keeps them."""

import os
import warnings

import numpy as np

from . import _core
from ._errors import UsageError
from .progress import progress_for
from .results import Results, _config, search_history, stored_history


def gpus():
    """The GPUs the driver sees, as dicts; empty without a driver or a GPU."""
    return _core.list_gpus()


def strategies():
    """Names of the search strategies."""
    return list(_core.strategy_names())


def warn_all(messages, stacklevel=3):
    """What the core returned for the user (an outcome's or a spec's warnings), each raised
    with warnings.warn; stacklevel as warnings.warn's, counted from the caller."""
    for message in messages:
        warnings.warn("gputune: " + message, stacklevel=stacklevel)


def open_spec(spec, set=None):
    """A spec file or a shipped spec's name at problem values `set`, as a _core.Spec; what
    reading it noticed is raised as warnings."""
    spec_obj = _core.open_spec(os.fspath(spec), _overrides(set))
    warn_all(spec_obj.warnings, stacklevel=4)
    return spec_obj


def _overrides(values):
    if not values:
        return []
    if isinstance(values, dict):
        values = values.items()
    return [(str(k), number_text(v)) for k, v in values]


def number_text(v):
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    return str(v)


def _budget(budget):
    """--budget's text: evaluations (100) or a time ("10m"); the core checks it."""
    if isinstance(budget, bool):
        raise UsageError("budget %r: expected a number of evaluations (100) or a time "
                         "(90s, 10m, 2h)" % (budget,))
    if isinstance(budget, (int, np.integer)):
        return str(int(budget))
    return str(budget)


def _device_options(device):
    """device= as --device N or --devices LIST|all."""
    if isinstance(device, str):
        return {"devices": device}
    if isinstance(device, (int, np.integer)):
        return {"device": int(device)}
    return {"devices": ",".join(str(int(d)) for d in device)}


def _cache_options(cache, cache_dir, no_cache):
    options = {}
    if cache is False or no_cache:
        options["use_cache"] = False
    elif cache not in (True, None):
        options["cache_dir"] = os.fspath(cache)
    if cache_dir is not None:
        options["cache_dir"] = os.fspath(cache_dir)
    return options


def run(spec, *, set=None, db=None, strategy=None, budget=None, seed=None, force=None,
        no_prior=None, device=None, jobs=None, cache=True, cache_dir=None, no_cache=None,
        timeout_floor=None, timeout_factor=None, warm_cache=None, max_seconds=None, fast=None,
        sampling=None, compile_only=None, arch=None, replay=None, shard=None, profiler=None,
        progress=True, what="search", check=None):
    """One search through the core; the arguments are search()'s. check: tune()'s judge of
    each variant's outputs (tuning._check_function)."""
    options = {"strategy": strategy, "seed": seed, "force": force, "jobs": jobs,
               "timeout_floor": timeout_floor, "timeout_factor": timeout_factor,
               "warm_cache": warm_cache, "max_seconds": max_seconds, "fast": fast,
               "sampling": sampling, "compile_only": compile_only, "arch": arch, "shard": shard,
               "profiler": profiler}
    options = {k: v for k, v in options.items() if v is not None}
    if no_prior is not None:
        options["use_prior"] = not no_prior
    if db is not None:
        options["db"] = os.fspath(db)
    if budget is not None:
        options["budget"] = _budget(budget)
    if replay is not None:
        options["replay"] = os.fspath(replay)
    if device is not None:
        options.update(_device_options(device))
    options.update(_cache_options(cache, cache_dir, no_cache))
    if isinstance(spec, (str, os.PathLike)):
        spec = os.fspath(spec)
    callback, bar = progress_for(progress, what)
    try:
        raw = _core.search(spec, overrides=_overrides(set), progress=callback, check=check,
                           **options)
    finally:
        if bar is not None:
            bar.close()
    warn_all(raw["warnings"], stacklevel=4)
    kind = "compile_only" if "arch" in raw else "search"
    results = Results(kind, raw, db=raw.get("db"), history=search_history(raw))
    if results.interrupted:
        warnings.warn("gputune: interrupted; what was measured is stored, and the same call "
                      "resumes", stacklevel=3)
    return results


def search(spec=None, *, set=None, strategy=None, budget=None, seed=None, force=None,
           no_prior=None, db=None, device=None, warm_cache=None, max_seconds=None, fast=None,
           sampling=None, timeout_floor=None, timeout_factor=None, compile_only=None, arch=None,
           replay=None, jobs=None, cache=True, cache_dir=None, no_cache=None, shard=None,
           profiler=None, progress=True):
    """Tunes a spec file (or a shipped spec's name), as ``gputune search`` does.

    Every option of ``gputune search`` is here with the same meaning and default (None: the
    command line's default). set: problem values to override ({"n": 4096}). strategy, budget
    (100 evaluations, "10m", "none"), seed: None keeps the spec's. compile_only: only compile
    every variant for ``arch`` (no GPU needed). replay: a recording (CSV) or a database to
    answer from instead of the GPU; a recording carries its spec (spec=None uses it), a
    database needs the spec. db: None stores in gputune.db, or, with replay, nowhere.
    device: a GPU ordinal, a list of them (identical GPUs) or "all". jobs: compile workers
    (None: one per CPU this process may use); cache: the compiled-module cache (True: the default
    folder, False: none, or a folder; also cache_dir= and no_cache=). timeout_floor,
    timeout_factor: the watchdog; warm_cache, max_seconds, fast: timing; sampling: "race"
    (the default: stop timing variants that cannot win, then re-measure the top few) or
    "full" (time every variant in full). no_prior: do not learn from the kernel's other
    workloads. shard: "K/N", only configs whose index is K mod N (brute force; gputune plan,
    docs/cluster.md). profiler: where strategy="bottleneck" takes counters: "cupti" (in the
    GPU worker), "ncu" or "auto" (the default: CUPTI, else ncu). progress: True (a bar),
    False, or a function called with a dict after each step.
    """
    return run(spec, set=set, db=db, strategy=strategy, budget=budget, seed=seed, force=force,
               no_prior=no_prior, device=device, jobs=jobs, cache=cache, cache_dir=cache_dir,
               no_cache=no_cache, timeout_floor=timeout_floor, timeout_factor=timeout_factor,
               warm_cache=warm_cache, max_seconds=max_seconds, fast=fast, sampling=sampling,
               compile_only=compile_only, arch=arch, replay=replay, shard=shard,
               profiler=profiler, progress=progress,
               what="compile" if compile_only else "search")


# Stored results


def workloads(db="gputune.db"):
    """Every workload in a database with its best variant, as a DataFrame."""
    import pandas as pd
    rows = []
    for w in _core.workloads(os.fspath(db)):
        best = w["best"]
        speedup = w["speedup"] or None  # the core's rule, as gputune show prints it
        rows.append({"workload": w["id"], "spec": w["spec_path"], "kernel": w["kernel_name"],
                     "problem": w["problem_json"], "device": w["device"]["name"],
                     "attempts": w["attempts"], "ok": w["ok"],
                     "best_ms": best["median_ms"] if best else None,
                     "best": _config(best["config"]) if best else None,
                     "speedup": speedup, "created_at": w["created_at"]})
    return pd.DataFrame.from_records(rows, columns=[
        "workload", "spec", "kernel", "problem", "device", "attempts", "ok", "best_ms", "best",
        "speedup", "created_at"])


def load(db="gputune.db", spec=None, *, set=None, workload=None, device=None):
    """Stored results of one workload, without running anything.

    spec (+ set): the workload of that spec at those problem values (with the spec's metrics);
    where several GPUs measured it, ``device`` picks one by a part of its name, else the latest.
    workload: a workload id (see workloads()). Neither: the database's only workload.
    """
    db = os.fspath(db)
    spec_obj = None
    if spec is not None:
        spec_obj = open_spec(spec, set)
    elif isinstance(set, dict) and set:
        raise UsageError("load(): set= needs spec=")
    return _load(db, spec_obj, workload, device)


def _load(db, spec_obj, workload, device):
    if workload is None:
        found = _core.workloads(db, spec_obj)
        if device is not None:
            found = [w for w in found if device.lower() in w["device"]["name"].lower()]
        if not found:
            what = spec_obj.problem()["title"] if spec_obj is not None else "anything"
            raise UsageError("%s: nothing stored for %s" % (db, what))
        if spec_obj is None and len(found) > 1:
            raise UsageError("%s holds %d workloads (%s); pick one with workload= or spec=" % (
                db, len(found), ", ".join("#%d %s %s on %s" % (
                    w["id"], w["spec_path"], w["problem_json"], w["device"]["name"])
                    for w in found)))
        workload = found[-1]["id"]
    raw = _core.load_workload(db, int(workload), spec_obj)
    return Results("stored", raw, db=db, history=stored_history(raw["history"]),
                   parameters=raw.get("parameters") or None, spec_object=spec_obj)


