"""gputune from Python: tune CUDA kernels, inspect and plot the results in a notebook.

    import gputune
    r = gputune.search("spaces/transpose.yaml", set={"n": 4096}, strategy="random", budget=100)
    r.df            # one row per variant (pandas)
    r.best          # the fastest correct config, as a dict
    r.plot_progress()

    r = gputune.tune(source=CUDA_TEXT, name="scale", params={"THREADS": [128, 256, 512]},
                     args={"out": gputune.Out(np.empty(n, np.float32)), "x": x, "n": n},
                     block=["THREADS"], grid=["ceil(n / THREADS)"], problem={"n": n},
                     reference=[2 * x])

Without a GPU: ``compile_only=True`` compiles every variant with NVRTC (``arch="sm_90"``), and
``replay="recording.csv"`` (or a database) answers a search from recorded results.

Ctrl-C (a notebook's interrupt) stops a search after the variant in flight. Everything measured
so far is in the database; search() and tune() then return the partial Results, with
``interrupted`` set (run the same call again to resume). Errors raise gputune.Error subclasses
(SpecError, UsageError, NoGpuError, ...) with the CLI's messages; ``.code`` is the error code.
"""

import hashlib
import json
import math
import os
import re
import sys
import tempfile
import warnings
from datetime import datetime

import numpy as np

from ._errors import (CudaError, DbError, Error, InternalError, IoError, NoGpuError, NvrtcError,
                      SpecError, UsageError)
from . import _core

__all__ = ["search", "tune", "load", "workloads", "gpus", "Results", "Arg", "Out", "Error",
           "SpecError", "UsageError", "NoGpuError", "CudaError", "NvrtcError", "DbError",
           "IoError", "InternalError", "strategies"]
__version__ = "0.1.0"


def gpus():
    """The GPUs the driver sees, as dicts; empty without a driver or a GPU."""
    return _core.list_gpus()


def strategies():
    """Names of the search strategies."""
    return list(_core.strategy_names())


# ---------------------------------------------------------------------------------------------
# Progress


class _Progress:
    """A tqdm bar when tqdm is installed, else one rewritten line on stderr."""

    def __init__(self, what, enabled):
        self.what = what
        self.enabled = enabled
        self.bar = None
        self.last_line = 0.0

    def __call__(self, p):
        if not self.enabled:
            return
        best = ""
        if p["best_ms"] > 0:
            best = "best %.4g ms" % p["best_ms"]
        if self.bar is None:
            self.bar = _tqdm(total=p["total"], desc=self.what, unit="variant") or False
        if self.bar:
            self.bar.total = p["total"]
            self.bar.n = p["done"]
            self.bar.set_postfix_str(("%d failed " % p["failed"] if p["failed"] else "") + best,
                                     refresh=False)
            self.bar.refresh()
        else:
            line = "\r%s %d/%d  %s%s  %.0fs" % (self.what, p["done"], p["total"],
                                             "%d failed  " % p["failed"] if p["failed"] else "",
                                             best, p["elapsed_s"])
            sys.stderr.write(line)
            sys.stderr.flush()
            self.last_line = len(line)

    def close(self):
        if self.bar:
            self.bar.close()
        elif self.bar is False:
            sys.stderr.write("\n")


def _tqdm(**kwargs):
    """A tqdm bar: the notebook widget where ipywidgets is installed, else text; None without
    tqdm."""
    try:
        import ipywidgets  # noqa: F401
        from tqdm.auto import tqdm
    except ImportError:
        try:
            from tqdm import tqdm
        except ImportError:
            return None
    return tqdm(**kwargs)


def _progress_for(progress, what):
    if callable(progress):
        return progress, None
    bar = _Progress(what, bool(progress))
    return bar, bar


# ---------------------------------------------------------------------------------------------
# Results


def _config(text):
    return json.loads(text) if text else {}


def _parse_time(text):
    try:
        return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ")
    except (TypeError, ValueError):
        return None


class Results:
    """What a search, a compile-only run or a database holds for one workload.

    ``df`` has one row per variant (its latest attempt): the parameters as columns, then
    status, median_ms, spread, samples, gbs / bandwidth_share / gflops (from the spec's metrics),
    speedup (over the baseline), registers, shared_bytes, spill_bytes, compile_ms, message.
    ``history`` has one row per evaluation in order, with elapsed_s and best_so_far_ms.
    """

    def __init__(self, kind, raw, db=None, history=None, parameters=None):
        self.kind = kind                      # "search", "compile_only" or "stored"
        self.db = db
        self.workload = raw.get("workload")
        self.device = raw.get("device")
        self.copy_bandwidth_gbs = raw.get("copy_bandwidth_gbs", 0.0)
        self.interrupted = bool(raw.get("interrupted", False))
        self.record = raw.get("record")
        self.problem = raw.get("problem")
        self.spec = raw.get("spec")
        self.arch = raw.get("arch")
        self._rows = raw.get("rows", [])
        self._baseline = raw.get("baseline")
        self._history = history if history is not None else []
        self._parameters = parameters
        self._df = None

    # The names of the parameters and transforms, in the spec's order.
    @property
    def parameters(self):
        if self._parameters is None:
            if self.problem:
                self._parameters = [d[0] for d in self.problem["dimensions"]]
            else:
                names = []
                for row in self._rows + self._history:
                    for name in _config(row["config"]):
                        if name not in names:
                            names.append(name)
                self._parameters = names
        return self._parameters

    def _frame(self, rows, extra_first=()):
        import pandas as pd
        records = []
        for row in rows:
            record = {k: row[k] for k in extra_first if k in row}
            record["config_index"] = row["config_index"]
            config = _config(row["config"])
            for name in self.parameters:
                record[name] = config.get(name)
            for key in ("status", "median_ms", "spread", "samples", "gbs", "bandwidth_share",
                        "gflops", "speedup", "registers", "shared_bytes", "spill_bytes",
                        "compile_ms", "message"):
                if key in row:
                    record[key] = row[key]
            records.append(record)
        frame = pd.DataFrame.from_records(records)
        if frame.empty:
            frame = pd.DataFrame(columns=list(extra_first) + ["config_index"] + self.parameters +
                                 ["status", "median_ms"])
        if self.kind == "compile_only":  # nothing was timed
            frame = frame.drop(columns=[k for k in ("median_ms", "spread", "samples")
                                        if k in frame])
        for key in ("gbs", "bandwidth_share", "gflops", "speedup"):
            if key in frame and frame[key].fillna(0).eq(0).all():
                frame = frame.drop(columns=key)  # the spec gives no such metric
        return frame

    @property
    def df(self):
        """One row per variant, fastest correct ones first, then the failures."""
        if self._df is None:
            self._df = self._frame(self._rows)
        return self._df

    def to_dataframe(self):
        return self.df.copy()

    @property
    def history(self):
        """One row per evaluation in the order they ran: elapsed_s and best_so_far_ms too."""
        frame = self._frame(self._history, extra_first=("evaluation", "elapsed_s"))
        if "median_ms" in frame:
            ok = frame["status"].eq("ok") & frame["median_ms"].notna()
            frame["best_so_far_ms"] = frame["median_ms"].where(ok).cummin().ffill()
        return frame

    @property
    def ok(self):
        """The rows whose status is ok."""
        return self.df[self.df["status"] == "ok"] if len(self.df) else self.df

    def _best_row(self):
        for row in self._rows:  # the report lists correct variants fastest first
            if row["status"] == "ok" and not math.isnan(row["median_ms"]):
                return row
        return None

    @property
    def best(self):
        """The fastest correct config as a dict (None when nothing was timed)."""
        row = self._best_row()
        return _config(row["config"]) if row else None

    @property
    def best_ms(self):
        row = self._best_row()
        return row["median_ms"] if row else None

    @property
    def baseline(self):
        """The baseline's config and median time (None when unknown)."""
        if not self._baseline:
            return None
        return {"config": _config(self._baseline["config"]),
                "status": self._baseline["status"], "median_ms": self._baseline["median_ms"]}

    @property
    def speedup(self):
        """Baseline median over the best median (None when either is missing)."""
        base, best = self.baseline, self.best_ms
        if not base or not best or base["status"] != "ok" or not base["median_ms"] > 0:
            return None
        return base["median_ms"] / best

    def export_recording(self, path):
        """Writes the workload's measurements as a recording that replay= can answer from."""
        if self.db is None or self.workload is None:
            raise UsageError("only stored results (a search or load()) can be exported")
        _core.export_recording(self.db, self.workload, os.fspath(path))
        return path

    # Plots (matplotlib; each returns a Figure).
    def plot_progress(self, x="evaluations", ax=None):
        """Best time so far against evaluations (x="evaluations") or wall time (x="time")."""
        from . import plots
        return plots.best_so_far(self, x=x, ax=ax)

    def plot_parameter(self, name=None, ax=None):
        """Median time against each value of a parameter (every parameter when name is None)."""
        from . import plots
        return plots.time_vs_parameter(self, name=name, ax=ax)

    def plot_heatmap(self, x, y, ax=None):
        """The best median time for each pair of values of two parameters."""
        from . import plots
        return plots.heatmap(self, x, y, ax=ax)

    def summary(self):
        counts = {}
        for row in self._rows:
            counts[row["status"]] = counts.get(row["status"], 0) + 1
        where = self.device["name"] if self.device else (self.arch or "")
        title = (self.problem or {}).get("title") or (self.spec or {}).get("path", "")
        lines = ["%s (%s) on %s: %d variants, %s" % (
            self.kind, title, where, len(self._rows),
            ", ".join("%d %s" % (n, s) for s, n in sorted(counts.items())))]
        if self.best is not None:
            line = "best %.4g ms: %s" % (self.best_ms, self.best)
            if self.speedup:
                line += " (%.2fx the baseline)" % self.speedup
            lines.append(line)
        if self.interrupted:
            lines.append("interrupted: run the same call again to resume")
        return "\n".join(lines)

    def __repr__(self):
        return "<gputune.Results %s>" % self.summary().replace("\n", "; ")

    def _repr_html_(self):
        import html
        head = "<br>".join(html.escape(line) for line in self.summary().split("\n"))
        return "<p>%s</p>%s" % (head, self.df.head(10).to_html(max_cols=30))


def _search_history(raw):
    """This search's evaluations in order, each at the time its batch completed."""
    events = raw.get("events", [])
    history = []

    def elapsed_at(done):
        for count, seconds in events:
            if count >= done:
                return seconds
        return events[-1][1] if events else float("nan")

    evaluated = raw.get("evaluated", raw.get("rows") if "arch" in raw else [])
    if raw.get("baseline") and "arch" not in raw:
        history.append(dict(raw["baseline"], evaluation=1, elapsed_s=0.0))
    for i, row in enumerate(evaluated):
        history.append(dict(row, evaluation=len(history) + 1, elapsed_s=elapsed_at(i + 1)))
    return history


def _stored_history(attempts):
    history = []
    start = None
    for i, row in enumerate(attempts):
        t = _parse_time(row.get("created_at"))
        if start is None and t is not None:
            start = t
        elapsed = (t - start).total_seconds() if t is not None and start is not None else math.nan
        history.append(dict(row, evaluation=i + 1, elapsed_s=elapsed))
    return history


# ---------------------------------------------------------------------------------------------
# Running a spec


def _overrides(values):
    if not values:
        return []
    if isinstance(values, dict):
        values = values.items()
    return [(str(k), _number_text(v)) for k, v in values]


def _number_text(v):
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    return str(v)


def _budget(budget):
    """(evaluations, seconds) for the core; (None, None) leaves the spec's budget."""
    if budget is None:
        return None, None
    if isinstance(budget, bool):
        raise UsageError("budget %r: expected a number of evaluations (100) or a time "
                         "(90s, 10m, 2h)" % (budget,))
    if isinstance(budget, (int, np.integer)) and budget > 0:
        return int(budget), 0.0
    parsed = _core.parse_budget(str(budget)) if isinstance(budget, str) else None
    if parsed is None:
        raise UsageError("budget %s: expected a number of evaluations (100) or a time "
                         "(90s, 10m, 2h)" % (budget,))
    return parsed[0], parsed[1]


def _devices(device):
    if isinstance(device, str) and device == "all":
        found = [g["ordinal"] for g in gpus()]
        if not found:
            raise NoGpuError("device='all': no GPU found; use compile_only=True or replay=")
        return found
    if isinstance(device, (int, np.integer)):
        return [int(device)]
    return [int(d) for d in device]


def _cache(cache):
    if cache is True or cache is None:
        return ""  # the default folder
    if cache is False:
        return "off"
    return os.fspath(cache)


def _run(spec, *, db, strategy, budget, seed, force, device, warm_cache, max_seconds,
         compile_only, arch, replay, jobs, cache, progress, what):
    callback, bar = _progress_for(progress, what)
    try:
        if compile_only:
            raw = _core.compile_only(spec, arch=arch, jobs=jobs or 0, cache=_cache(cache),
                                     progress=callback)
        else:
            evaluations, seconds = _budget(budget)
            raw = _core.search(spec, db=os.fspath(db), strategy=strategy or "",
                               budget_evaluations=evaluations, budget_seconds=seconds,
                               seed=seed, force=force, devices=_devices(device),
                               warm_cache=warm_cache, max_seconds=max_seconds,
                               replay=os.fspath(replay) if replay else "", jobs=jobs or 0,
                               cache=_cache(cache), progress=callback)
    finally:
        if bar is not None:
            bar.close()
    results = Results("compile_only" if compile_only else "search", raw,
                      db=None if compile_only else os.fspath(db), history=_search_history(raw))
    if results.interrupted:
        warnings.warn("gputune: interrupted; what was measured is stored, and the same call "
                      "resumes", stacklevel=3)
    return results


def search(spec=None, *, set=None, strategy=None, budget=None, seed=None, force=False,
           db="gputune.db", device=0, warm_cache=False, max_seconds=1.0, compile_only=False,
           arch="sm_90", replay=None, jobs=None, cache=True, progress=True):
    """Tunes a spec file (or a shipped spec's name), as ``gputune search`` does.

    set: problem values to override ({"n": 4096}). strategy, budget (100 evaluations or
    "10m"), seed: as on the command line; None keeps the spec's. compile_only: only compile
    every variant for ``arch`` (no GPU needed). replay: a recording (CSV) or a database to
    answer from instead of the GPU; with spec=None, the recording's own spec. device: a GPU
    ordinal, a list of them (identical GPUs) or "all". jobs: compile workers (None: one per
    hardware thread); cache: the compiled-module cache (True: the default folder, False: none,
    or a folder). progress: True (a bar), False, or a function called with a dict after each
    step.
    """
    if spec is None:
        if not replay or _is_sqlite(replay):
            raise UsageError("search(): give a spec (a YAML file or a shipped spec's name), "
                             "or replay= a recording to take the spec from")
        spec_obj = _core.recording_spec(os.fspath(replay))
    else:
        spec_obj = _core.load_spec(_core.resolve_spec(os.fspath(spec)), _overrides(set))
    return _run(spec_obj, db=db, strategy=strategy, budget=budget, seed=seed, force=force,
                device=device, warm_cache=warm_cache, max_seconds=max_seconds,
                compile_only=compile_only, arch=arch, replay=replay, jobs=jobs, cache=cache,
                progress=progress, what="compile" if compile_only else "search")


def _is_sqlite(path):
    try:
        with open(path, "rb") as f:
            return f.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


# ---------------------------------------------------------------------------------------------
# Stored results


def workloads(db="gputune.db"):
    """Every workload in a database with its best variant, as a DataFrame."""
    import pandas as pd
    rows = []
    for w in _core.workloads(os.fspath(db)):
        best = w["best"]
        base = w["baseline"]
        speedup = None
        if best and base and base["status"] == "ok":
            speedup = base["median_ms"] / best["median_ms"]
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
        spec_obj = _core.load_spec(_core.resolve_spec(os.fspath(spec)), _overrides(set))
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
    return Results("stored", raw, db=db, history=_stored_history(raw["history"]))


# ---------------------------------------------------------------------------------------------
# Tuning a kernel written in the notebook


class Arg:
    """A kernel argument with its details spelt out.

    value: a numpy array (a buffer), a number or an expression string (a scalar). output: the
    buffer is an output (checked, never read). type: the scalar type ("int32", "float32", ...)
    for numbers and expressions. name: the argument's name (else from ``args`` or the kernel).
    """

    def __init__(self, value, *, output=False, type=None, name=None):
        self.value = value
        self.output = output
        self.type = type
        self.name = name


def Out(value, **kwargs):
    """Marks an output buffer: ``Out(np.empty(n, np.float32))``."""
    return Arg(value, output=True, **kwargs)


_DTYPES = {np.dtype(np.int8): "int8", np.dtype(np.int16): "int16", np.dtype(np.int32): "int32",
           np.dtype(np.int64): "int64", np.dtype(np.uint8): "uint8",
           np.dtype(np.uint16): "uint16", np.dtype(np.uint32): "uint32",
           np.dtype(np.uint64): "uint64", np.dtype(np.float32): "float32",
           np.dtype(np.float64): "float64"}


def _type_of(dtype, what):
    dtype = np.dtype(dtype)
    native = dtype.newbyteorder("=")
    if native not in _DTYPES:
        raise UsageError("%s: dtype %s is not supported; expected one of: %s" % (
            what, dtype, ", ".join(_DTYPES.values())))
    return _DTYPES[native]


def _kernel_parameters(source, name):
    """The parameter names of __global__ `name` in the source, found textually ([] if unsure)."""
    base = name.split("<")[0].strip().split("::")[-1]
    for match in re.finditer(r"__global__[^;{]*?\b%s\s*\(" % re.escape(base), source):
        depth, i, start = 1, match.end(), match.end()
        while i < len(source) and depth:
            depth += {"(": 1, ")": -1}.get(source[i], 0)
            i += 1
        text = source[start:i - 1]
        parts, depth, current = [], 0, ""
        for c in text:
            if c in "<([":
                depth += 1
            elif c in ">)]":
                depth -= 1
            if c == "," and depth == 0:
                parts.append(current)
                current = ""
            else:
                current += c
        if current.strip():
            parts.append(current)
        names = []
        for part in parts:
            part = part.split("=")[0]
            words = re.findall(r"[A-Za-z_]\w*", part)
            if not words:
                return []
            names.append(words[-1])
        return names
    return []


def _yaml_text(text):
    return json.dumps(str(text))


def _yaml_value(v):
    if isinstance(v, (bool, np.bool_)):
        return "1" if v else "0"
    if isinstance(v, (int, np.integer, float, np.floating)):
        return _number_text(v)
    return json.dumps(str(v))  # quoted: a symbol


def _digest(data):
    return hashlib.blake2b(data, digest_size=8).hexdigest()


def tune(source, name, *, params, args, block, grid, constraints=(), transforms=None,
         outputs=None, reference=None, baseline=None, problem=None, shared_bytes=None,
         rtol=1e-5, atol=1e-6, bytes=None, flops=None, options=(), macros=True,
         description=None, db="gputune.db", strategy=None, budget=None, seed=None, force=False,
         device=0, warm_cache=False, max_seconds=1.0, compile_only=False, arch="sm_90",
         replay=None, jobs=None, cache=True, workdir=None, progress=True):
    """Tunes a kernel given as source text, with numpy arrays as its inputs: no spec file.

    source: the CUDA source (or the path of a .cu file); name: the __global__ function, or a
    name expression such as "transpose<TILE>". params: {"TILE": [16, 32]} (each becomes
    -DTILE=...). args: the kernel's arguments in order, as a dict {name: value} or a list
    (names from the kernel's signature); a value is a numpy array (an input buffer),
    gputune.Out(array) (an output), a number or an expression string (a scalar), or a
    gputune.Arg. outputs: names of outputs (instead of Out). block, grid: 1 to 3 expressions
    of problem values and parameters. reference: the expected outputs (a list in output order,
    or {name: array}); without it, the baseline config's outputs are the reference.
    problem: named values for expressions ({"n": 1024}). The rest are spec keys (constraints,
    transforms, baseline, shared_bytes, rtol/atol, bytes/flops metrics, options, macros) or
    search() options.

    The spec written for the kernel (YAML and .cu, under ``workdir``, by default a temporary
    folder) keys the database: its text includes a hash of the input and reference data, so
    seed random inputs to let a rerun reuse what is stored.
    """
    if isinstance(source, os.PathLike) or (isinstance(source, str) and "\n" not in source and
                                          source.endswith(".cu") and os.path.isfile(source)):
        with open(source) as f:
            source = f.read()
    if not isinstance(source, str) or "__global__" not in source:
        raise UsageError("tune(): source must be CUDA source text defining a __global__ "
                         "function (or the path of a .cu file)")
    if not isinstance(params, dict) or not params:
        raise UsageError("tune(): params must be a non-empty dict, e.g. {'TILE': [16, 32]}")

    # Arguments: names, kinds, types.
    if isinstance(args, dict):
        items = list(args.items())
    else:
        signature = _kernel_parameters(source, name)
        items = []
        for i, value in enumerate(args):
            arg_name = value.name if isinstance(value, Arg) and value.name else (
                signature[i] if i < len(signature) else "arg%d" % i)
            items.append((arg_name, value))
    outputs = list(outputs or [])
    known = [n for n, _ in items]
    for out in outputs:
        if out not in known:
            raise UsageError("tune(): outputs names '%s', which is not an argument; expected "
                             "one of: %s" % (out, ", ".join(known)))
    arguments = []  # (name, yaml line, input array or None, is_output, dtype)
    data_digests = []
    for arg_name, value in items:
        arg = value if isinstance(value, Arg) else Arg(value)
        is_output = arg.output or arg_name in outputs
        what = "argument '%s'" % arg_name
        if isinstance(arg.value, np.ndarray):
            array = arg.value
            type_name = _type_of(arg.type or array.dtype, what)
            if array.size == 0:
                raise UsageError("%s: the array is empty" % what)
            line = "{name: %s, type: %s, count: %d%s}" % (arg_name, type_name, array.size,
                                                         ", output: true" if is_output else "")
            if is_output:
                arguments.append((arg_name, line, None, True, np.dtype(type_name), array.size))
            else:
                data = np.ascontiguousarray(array, dtype=np.dtype(type_name))
                data_digests.append("%s=%s" % (arg_name, _digest(data.tobytes())))
                arguments.append((arg_name, line, data, False, np.dtype(type_name), array.size))
        else:
            if is_output:
                raise UsageError("%s: an output must be a numpy array (its shape and dtype "
                                 "size the buffer)" % what)
            v = arg.value
            if isinstance(v, np.generic):
                type_name = _type_of(arg.type or v.dtype, what)
                text = _number_text(v.item())
            elif isinstance(v, (bool, int)):
                type_name, text = arg.type or "int32", _number_text(v)
            elif isinstance(v, float):
                type_name, text = arg.type or "float32", repr(v)
            elif isinstance(v, str):
                type_name, text = arg.type or "int32", v
            else:
                raise UsageError("%s: %r is neither a numpy array, a number nor an expression "
                                 "string" % (what, type(v).__name__))
            line = "{name: %s, type: %s, value: %s}" % (arg_name, type_name, _yaml_text(text))
            arguments.append((arg_name, line, None, False, None, None))
    output_names = [a[0] for a in arguments if a[3]]
    if not output_names:
        raise UsageError("tune(): no argument is an output; mark one with gputune.Out(array) "
                         "or outputs=['name']")

    # References, one per output.
    references = {}
    if reference is not None:
        if isinstance(reference, np.ndarray):
            reference = [reference]
        if not isinstance(reference, dict):
            reference = list(reference)
            if len(reference) != len(output_names):
                raise UsageError("tune(): %d reference arrays for %d outputs (%s); expected one "
                                 "per output, in order, or {name: array}" % (
                                     len(reference), len(output_names), ", ".join(output_names)))
            reference = dict(zip(output_names, reference))
        for out, expected in reference.items():
            match = [a for a in arguments if a[0] == out and a[3]]
            if not match:
                raise UsageError("tune(): reference for '%s', which is not an output; expected "
                                 "one of: %s" % (out, ", ".join(output_names)))
            _, _, _, _, dtype, count = match[0]
            expected = np.ascontiguousarray(expected, dtype=dtype)
            if expected.size != count:
                raise UsageError("tune(): the reference for '%s' has %d elements; the output "
                                 "has %d" % (out, expected.size, count))
            references[out] = expected
            data_digests.append("%s=%s" % (out, _digest(expected.tobytes())))

    # The spec, as YAML, so that the loader checks it exactly as it checks a file.
    base = re.sub(r"\W", "_", name.split("<")[0].strip().split("::")[-1]) or "kernel"
    lines = ["# written by gputune.tune()"]
    if data_digests:
        lines.append("# data: " + " ".join(data_digests))
    if description:
        lines.append("description: " + _yaml_text(description))
    lines += ["kernel:", "  source: %s.cu" % base, "  name: " + _yaml_text(name)]
    if options:
        lines.append("  options: [%s]" % ", ".join(_yaml_text(o) for o in options))
    if not macros:
        lines.append("  macros: false")
    if problem:
        lines.append("problem:")
        for key, value in problem.items():
            lines.append("  %s: %s" % (key, _yaml_text(_number_text(value))))
    lines.append("arguments:")
    lines += ["  - " + a[1] for a in arguments]
    lines.append("launch:")
    for key, dims in (("block", block), ("grid", grid)):
        if isinstance(dims, (str, int)):
            dims = [dims]
        lines.append("  %s: [%s]" % (key, ", ".join(_yaml_text(_number_text(d)) for d in dims)))
    if shared_bytes is not None:
        lines.append("  shared_bytes: " + _yaml_text(_number_text(shared_bytes)))
    for section, values in (("parameters", params), ("transforms", transforms)):
        if not values:
            continue
        lines.append(section + ":")
        for key, vals in values.items():
            if not isinstance(vals, (list, tuple, range, np.ndarray)):
                vals = [vals]
            lines.append("  %s: [%s]" % (key, ", ".join(_yaml_value(v) for v in vals)))
    if constraints:
        if isinstance(constraints, str):
            constraints = [constraints]
        lines.append("constraints:")
        lines += ["  - " + _yaml_text(c) for c in constraints]
    if baseline:
        lines.append("baseline:")
        lines += ["  %s: %s" % (k, _yaml_value(v)) for k, v in baseline.items()]
    lines.append("check: {rtol: %s, atol: %s}" % (repr(float(rtol)), repr(float(atol))))
    if bytes is not None or flops is not None:
        lines.append("metrics:")
        if bytes is not None:
            lines.append("  bytes: " + _yaml_text(_number_text(bytes)))
        if flops is not None:
            lines.append("  flops: " + _yaml_text(_number_text(flops)))
    text = "\n".join(lines) + "\n"

    folder = workdir or os.path.join(tempfile.gettempdir(), "gputune-tune", "%s-%s" % (
        base, _digest((text + source).encode())))
    os.makedirs(folder, exist_ok=True)
    spec_path = os.path.join(folder, base + ".yaml")
    with open(os.path.join(folder, base + ".cu"), "w") as f:
        f.write(source)
    with open(spec_path, "w") as f:
        f.write(text)
    try:
        spec_obj = _core.parse_spec(text, spec_path)
    except SpecError as e:
        raise SpecError(_explain(str(e), spec_path, text)) from None
    for arg_name, _, data, is_output, _, _ in arguments:
        if data is not None:
            spec_obj.set_data(arg_name, data)
    for out, expected in references.items():
        spec_obj.set_reference(out, expected)
    return _run(spec_obj, db=db, strategy=strategy, budget=budget, seed=seed, force=force,
                device=device, warm_cache=warm_cache, max_seconds=max_seconds,
                compile_only=compile_only, arch=arch, replay=replay, jobs=jobs, cache=cache,
                progress=progress, what=("compile " if compile_only else "tune ") + base)


def _explain(message, spec_path, text):
    """A loader error about the generated spec, with the line it points at."""
    match = re.match(re.escape(spec_path) + r":(\d+):(\d+): ", message)
    if not match:
        return message
    line = int(match.group(1))
    source_lines = text.split("\n")
    if 1 <= line <= len(source_lines):
        message += "\n  in the spec tune() wrote (%s), line %d: %s" % (
            spec_path, line, source_lines[line - 1].strip())
    return message
