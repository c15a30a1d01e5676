"""Results of a search, a compile-only run or a database, as pandas frames and plots.

A result record (``Results.records``) is what ``gputune search --json`` writes for a variant:
index, config, status, median_ms / spread / samples (when timed), compile_ms, registers,
shared_bytes, spill_bytes, message, and gbs / copy_bandwidth_share / gflops / speedup where
known. The C++ core writes them for both front ends, so they cannot drift apart.
"""

import json
import math
import numbers
import os
import warnings
from datetime import datetime

from . import _core
from ._errors import UsageError

# DataFrame column <- record field, for the fields whose names differ.
_COLUMN_FIELDS = {"config_index": "index", "bandwidth_share": "copy_bandwidth_share"}


def _config(config):
    if isinstance(config, dict):
        return config
    return json.loads(config) if config else {}


def _field(row, column, default=None):
    return row.get(_COLUMN_FIELDS.get(column, column), default)


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

    def __init__(self, kind, raw, db=None, history=None, parameters=None, spec_object=None):
        self.kind = kind                      # "search", "compile_only" or "stored"
        self.db = db
        # The spec measured (a _core.Spec), which names the knobs of an analysis's verdict.
        self._spec_object = spec_object if spec_object is not None else raw.get("spec_object")
        report = json.loads(raw["report"]) if "report" in raw else {}
        self.workload = raw.get("workload")
        self.device = raw.get("device")
        self.copy_bandwidth_gbs = raw.get("copy_bandwidth_gbs", 0.0)
        self.interrupted = bool(raw.get("interrupted", False))
        self.record = report.get("search")    # the search's own figures, as the CLI's JSON
        # Configs left out before compiling ({"reason", "configs"} each: a device limit, or the
        # cost model fit on the kernel's other workloads), and how that prior data pruned
        # (docs/pruning.md); None where the database held no prior data.
        self.pruned = report.get("pruned", [])
        self.prior_pruning = report.get("prior_pruning")
        self.problem = raw.get("problem")
        self.spec = raw.get("spec")
        self.arch = raw.get("arch")
        self._rows = report.get("results", []) + report.get("failed", []) if report else \
            raw.get("rows", [])
        self._baseline = report.get("baseline")
        # False under check: none: the times are of outputs nobody checked.
        self.outputs_checked = bool(report.get("outputs_checked", True))
        # The check as search(check=, atol=, rtol=) changed it ("--atol 0.01"), else None.
        self.check_override = (report.get("check_override") or {}).get("given")
        if not self.outputs_checked:
            warnings.warn("gputune: outputs NOT checked (check: none)", stacklevel=2)
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
            record["config_index"] = _field(row, "config_index")
            config = _config(row["config"])
            for name in self.parameters:
                record[name] = config.get(name)
            for key in ("status", "median_ms", "spread", "samples", "gbs", "bandwidth_share",
                        "gflops", "speedup", "registers", "shared_bytes", "spill_bytes",
                        "compile_ms", "cut_short", "final_rounds"):
                value = _field(row, key)
                if value is not None:
                    record[key] = value
            # The records leave out an empty message; the frame keeps the column.
            record["message"] = _field(row, "message", "")
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
        """One row per variant, fastest correct ones first (those that racing cut short, column
        cut_short, after every full measurement), then the failures."""
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

    @property
    def records(self):
        """One dict per variant as ``gputune search --json`` writes it (results, then failed)."""
        return [dict(row) for row in self._rows]

    def _best_row(self):
        for row in self._rows:  # the report lists correct variants fastest first
            if row["status"] == "ok" and not math.isnan(row.get("median_ms", math.nan)):
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
                "status": self._baseline["status"],
                "median_ms": self._baseline.get("median_ms", math.nan)}

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

    # Why a variant is slow, from the counters stored with it (gputune analyze, --strategy
    # bottleneck, or a replay of a recording that carries counters).
    def _config_index(self, config):
        if config is None or config == "best":
            row = self._best_row()
            if row is None:
                raise UsageError("no correct variant was timed, so there is no best; pass "
                                 "config= (a dict of parameter values)")
            return row["index"]
        if config == "baseline":
            if not self._baseline:
                raise UsageError("these results have no baseline; pass config=")
            return self._baseline["index"]
        if isinstance(config, numbers.Integral) and not isinstance(config, bool):
            return int(config)
        if not isinstance(config, dict):
            raise UsageError("config=%r: expected None (the best), 'best', 'baseline', a dict of "
                             "parameter values or a config_index" % (config,))
        unknown = [name for name in config if name not in self.parameters]
        if unknown:
            raise UsageError("config names %s, not a parameter; expected some of: %s" % (
                ", ".join(repr(u) for u in unknown), ", ".join(self.parameters)))
        matches = [row for row in self._rows
                   if all(_config(row["config"]).get(k) == v for k, v in config.items())]
        if not matches:
            raise UsageError("no measured variant has %s; pick one of r.df's rows" % (config,))
        if len(matches) > 1:
            raise UsageError("%d measured variants have %s; give every parameter (%s)" % (
                len(matches), config, ", ".join(self.parameters)))
        return matches[0]["index"]

    def analysis(self, config=None):
        """The bottleneck method on the stored counters of a config (None or "best": the
        fastest correct one; "baseline"; a dict of parameter values; a config_index), as a
        gputune.Analysis. Without counters its ``profiled`` is False and ``message`` says how
        to take them (gputune analyze --config, gputune.analyze(), --strategy bottleneck)."""
        from .analysis import Analysis
        if self.kind == "compile_only":
            raise UsageError("compile-only results hold no measurements, so no counters")
        if self.db is None or self.workload is None:
            raise UsageError("these results are stored nowhere (a replay without db=), nor are "
                             "their counters; replay with db= to keep them")
        return Analysis(_core.stored_analysis(self.db, int(self.workload),
                                              int(self._config_index(config)),
                                              self._spec_object))

    def bottleneck_report(self, config=None):
        """The text gputune analyze prints for a config (default: the best), from its stored
        counters; without counters, what to run to take them."""
        return str(self.analysis(config))

    def counters(self, config=None):
        """The stored counters of a config (default: the best) as a DataFrame: metric, value,
        unit, step. Empty, with a warning saying how to take them, when there are none."""
        found = self.analysis(config)
        if not found.profiled:
            warnings.warn("gputune: " + found.message, stacklevel=2)
        return found.counters

    def plot_bottleneck(self, config=None, against="baseline"):
        """Where the time goes, from stored counters: the top stall reasons as shares of all
        stalls and the throughputs (DRAM, memory system, issue slots, busiest pipe) as shares of
        peak, for config (default: the best) beside ``against`` (default: the baseline; None:
        alone)."""
        from . import plots
        chosen = self.analysis(config)
        if not chosen.profiled:
            raise UsageError(chosen.message)
        pairs = [("best" if config is None else _label(chosen.config), chosen)]
        if against is not None:
            other = self.analysis(against)
            if other.config != chosen.config:
                label = against if isinstance(against, str) else _label(other.config)
                pairs.append((label, other))
        return plots.bottleneck(pairs)

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


def _label(config):
    return " ".join("%s=%s" % item for item in config.items())


def search_history(raw):
    """This search's evaluations in order, each at the time its batch completed."""
    events = raw.get("events", [])
    history = []

    def elapsed_at(done):
        for count, seconds in events:
            if count >= done:
                return seconds
        return events[-1][1] if events else float("nan")

    evaluated = raw.get("evaluated", raw.get("rows") if "arch" in raw else [])
    baseline = json.loads(raw["report"]).get("baseline") if "report" in raw else None
    if baseline and "arch" not in raw:
        history.append(dict(baseline, evaluation=1, elapsed_s=0.0))
    for i, row in enumerate(evaluated):
        history.append(dict(row, evaluation=len(history) + 1, elapsed_s=elapsed_at(i + 1)))
    return history


def stored_history(attempts):
    history = []
    start = None
    for i, row in enumerate(attempts):
        t = _parse_time(row.get("created_at"))
        if start is None and t is not None:
            start = t
        elapsed = (t - start).total_seconds() if t is not None and start is not None else math.nan
        history.append(dict(row, evaluation=i + 1, elapsed_s=elapsed))
    return history
