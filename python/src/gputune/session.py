"""Searches and stored results: the Python face of the C++ session (gputune/session.h), which
the command line uses too. Options mean what ``gputune search``'s options mean; an option left
as None takes the command line's default, from the one place the core keeps them."""

import json
import os
import warnings

import numpy as np

from . import _core
from ._errors import DbError, UsageError
from .progress import progress_for
from .results import Results, _config, search_history, stored_history


def gpus():
    """The GPUs the driver sees, as dicts; empty without a driver or a GPU."""
    return _core.list_gpus()


def specs():
    """The specs shipped with gputune (and those in $GPUTUNE_SPACES), as ``gputune list --json``
    gives them: a dict each with name, path, description, variants (valid configs, and
    variants_estimated where counted from a sample) and product (the whole space), or an error
    saying why the spec does not load. A name is what search(), best() and load() take."""
    return _core.shipped_specs()


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


def _cache_options(cache):
    """cache=: True (the default folder), False (none) or a folder."""
    if cache is False:
        return {"no_cache": True}
    if cache not in (True, None):
        return {"cache_dir": os.fspath(cache)}
    return {}


def search_options():
    """Every option of ``gputune search`` as search() and tune() take it (a dash becomes an
    underscore), with its help: one table in the core serves both front ends."""
    return {name.replace("-", "_"): help for name, _, _, help in _core.search_options()}


def _request(spec, set, db, options):
    """A _core.SearchRequest: each option's text set by its command-line name, so that the core
    checks it as it checks ``gputune search``'s (None: the default, False: a flag left off)."""
    takes_value = {name: bool(value) for name, value, _, _ in _core.search_options()}
    request = _core.SearchRequest()
    if isinstance(spec, _core.Spec):
        request.inline_spec = spec
    elif spec is not None:
        request.spec = os.fspath(spec)
    request.overrides = _overrides(set)
    if db is not None:
        request.db = os.fspath(db)
    for name, value in options.items():
        option = name.replace("_", "-")
        if option not in takes_value:
            raise UsageError("no search option %r; expected one of: %s" % (
                name, ", ".join(sorted(search_options()))))
        if value is None or (value is False and not takes_value[option]):
            continue
        if not takes_value[option]:
            if value is not True:
                raise UsageError("search(): %s=%r: expected True or False" % (name, value))
            request.set(option)
        elif option == "budget":
            request.set(option, _budget(value))
        else:
            request.set(option, number_text(os.fspath(value) if isinstance(value, os.PathLike)
                                            else value))
    return request


def run(spec, *, set=None, db=None, device=None, cache=True, progress=True, what="search",
        judge=None, **options):
    """One search through the core; the arguments are search()'s. judge: tune()'s judge of
    each variant's outputs (tuning._check_function)."""
    if device is not None:
        options.update(_device_options(device))
    options.update({k: v for k, v in _cache_options(cache).items() if k not in options or
                    options[k] is None})
    request = _request(spec, set, db, options)
    callback, bar = progress_for(progress, what)
    try:
        raw = _core.search(request, progress=callback, check=judge)
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


def search(spec=None, *, set=None, db=None, device=None, cache=True, progress=True, **options):
    """Tunes a spec file (or a shipped spec's name), as ``gputune search`` does.

    Every option of ``gputune search`` is a keyword here, with the same meaning, default and
    checks (a dash becomes an underscore: ``no_prior=True``, ``max_seconds=0.2``); None keeps
    the default, and ``gputune.search_options()`` lists them with their help. set: problem
    values to override ({"n": 4096}). strategy, budget (100 evaluations, "10m", "none"), seed:
    None keeps the spec's. compile_only: only compile every variant for ``arch`` (no GPU
    needed). replay: a recording (CSV) or a database to answer from instead of the GPU; a
    recording carries its spec (spec=None uses it), a database needs the spec. db: None stores
    in gputune.db, or, with replay, nowhere. device: a GPU ordinal, a list of them (identical
    GPUs) or "all". cache: the compiled-module cache (True: the default folder, False: none, or
    a folder; also cache_dir= and no_cache=). progress: True (a bar), False, or a function
    called with a dict after each step.
    """
    return run(spec, set=set, db=db, device=device, cache=cache, progress=progress,
               what="compile" if options.get("compile_only") else "search", **options)


def _search_signature():
    """search()'s signature with every option of the core's table, for help() and editors."""
    import inspect
    keyword = inspect.Parameter.KEYWORD_ONLY
    parameters = [inspect.Parameter("spec", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                    default=None)]
    fixed = [("set", None), ("db", None), ("device", None), ("cache", True)]
    parameters += [inspect.Parameter(name, keyword, default=value) for name, value in fixed]
    parameters += [inspect.Parameter(name, keyword, default=None)
                   for name in search_options() if name not in dict(fixed)]
    parameters.append(inspect.Parameter("progress", keyword, default=True))
    return inspect.Signature(parameters)


search.__signature__ = _search_signature()


# Stored results


def workloads(db="gputune.db"):
    """Every workload in a database with its best variant, as a DataFrame."""
    import pandas as pd
    rows = []
    for w in _core.workloads(os.fspath(db)):
        best = w.get("best")
        rows.append({"workload": w["workload"], "spec": w["spec"], "kernel": w["kernel"],
                     "problem": json.dumps(w["problem"], separators=(",", ":")),
                     "device": w["device"]["name"], "attempts": w["attempts"], "ok": w["ok"],
                     "best_ms": best["median_ms"] if best else None,
                     "best": _config(best["config"]) if best else None,
                     "speedup": w.get("speedup"), "created_at": w["created_at"]})
    return pd.DataFrame.from_records(rows, columns=[
        "workload", "spec", "kernel", "problem", "device", "attempts", "ok", "best_ms", "best",
        "speedup", "created_at"])


def best(spec, *, set=None, db="gputune.db"):
    """The fastest correct variant stored for ``spec`` at its problem values, per GPU, as
    ``gputune best --json`` gives it: one workload record each (its ``best`` is a result record,
    as search's rows are), the same shape as ``gputune show --json``'s."""
    spec_obj = open_spec(spec, set)
    found = [w for w in _core.workloads(os.fspath(db), spec_obj) if "best" in w]
    if not found:
        raise DbError("nothing measured for %s in %s: %s" % (
            spec_obj.problem()["title"], os.fspath(db),
            _core.why_nothing_measured(os.fspath(db), spec_obj)))
    return found


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
                    w["workload"], w["spec"], json.dumps(w["problem"], separators=(",", ":")),
                    w["device"]["name"]) for w in found)))
        workload = found[-1]["workload"]
    raw = _core.load_workload(db, int(workload), spec_obj)
    return Results("stored", raw, db=db, history=stored_history(raw["history"]),
                   parameters=raw.get("parameters") or None, spec_object=spec_obj)


