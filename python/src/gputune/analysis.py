"""Why a variant is slow: the bottleneck method on hardware counters (docs/bottleneck.md).

``gputune.analyze(spec, config=...)`` profiles one variant with Nsight Compute, as ``gputune
analyze`` does; ``Results.analysis(config)`` reads the counters a database already holds.
Both return an ``Analysis``.
"""

import os
import warnings

from . import _core
from ._errors import UsageError

COUNTER_COLUMNS = ["metric", "value", "unit", "step"]


class Analysis:
    """The bottleneck method on one variant's counters.

    ``profiled`` is False when there are no counters; ``message`` then says why and how to
    take them. ``report`` is the text ``gputune analyze`` prints: the four steps with their
    numbers, the verdict and the knobs of the space that address it. ``step``, ``verdict``,
    ``knobs`` ({remedy: [parameters]}). ``counters`` is a DataFrame: metric, value (ncu's base
    unit), unit, step (of the method that reads it). ``stall_shares`` (reason -> share of all
    stalls, largest first) and ``throughput`` (DRAM, memory system, issue slots and the busiest
    pipe, in % of peak) are what ``plot()`` draws.
    """

    def __init__(self, raw):
        self.profiled = bool(raw["profiled"])
        self.message = raw["message"]
        self.config = raw["config"]
        self.report = raw["report"]
        self.step = raw["step"]
        self.verdict = raw["verdict"]
        self.knobs = {remedy: list(knobs) for remedy, knobs in raw["knobs"]}
        self.stall_shares = dict(raw["stall_shares"])
        self.throughput = dict(raw["throughput_pct"])
        self.profile_s = raw["profile_s"]
        self.stored = bool(raw["stored"])
        self.source = raw["source"]
        self._counter_rows = [tuple(row) for row in raw["counters"]]

    @property
    def counters(self):
        """One row per counter: metric, value, unit, step (empty without counters)."""
        import pandas as pd
        return pd.DataFrame.from_records(self._counter_rows, columns=COUNTER_COLUMNS)

    def plot(self, against=None, labels=("this variant", "other"), ax=None):
        """Where the time goes (stall reasons, throughput shares), beside another Analysis."""
        from . import plots
        pairs = [(labels[0], self)]
        if against is not None:
            pairs.append((labels[1], against))
        return plots.bottleneck(pairs, ax=ax)

    def __str__(self):
        return self.report if self.profiled else self.message

    def __repr__(self):
        if not self.profiled:
            return "<gputune.Analysis %s: no counters>" % (self.config,)
        return "<gputune.Analysis %s: %s: %s>" % (self.config, self.step, self.verdict)

    def _repr_html_(self):
        import html
        return "<pre>%s</pre>" % html.escape(str(self))


def _config_text(config):
    if isinstance(config, str):
        return config
    if not isinstance(config, dict):
        raise UsageError("config=%r: expected a dict of parameter values ({'TILE': 32}) or "
                         "'TILE=32,PAD=1'" % (config,))
    from .session import number_text
    return ",".join("%s=%s" % (name, number_text(value)) for name, value in config.items())


def analyze(spec, *, config=None, best=False, baseline=False, set=None, db=None, device=None,
            timeout=None, ncu=None, profiler=None):
    """Profiles one variant with Nsight Compute and walks the bottleneck method, as
    ``gputune analyze`` does; returns an Analysis.

    config: the variant ({"TILE": 32, "PAD": 1} or "TILE=32,PAD=1"; the rest from the
    baseline); best=True: the workload's best stored variant; neither: the baseline. The
    counters are stored in db (default gputune.db) when it holds a search of this workload.
    ncu: its path (default $GPUTUNE_NCU, PATH, $CUDA_HOME/bin). ncu runs the ``gputune``
    program, which must be on PATH. Without ncu, without permission to read counters, or when
    the variant crashes or hangs (timeout, 120 s), the Analysis has no counters and its message
    says why (also given as a warning). profiler="cupti": CUPTI's range profiler in a GPU
    worker instead, as searches profile (quicker; no branch-target counts).
    """
    from .session import _overrides, warn_all
    if sum(bool(x) for x in (config is not None, best, baseline)) > 1:
        raise UsageError("analyze(): give one of config=, best=True and baseline=True")
    defaults = {"device": device, "timeout": timeout, "ncu": ncu, "profiler": profiler}
    options = {k: v for k, v in defaults.items() if v is not None}
    if db is not None:
        options["db"] = os.fspath(db)
    raw = _core.analyze(os.fspath(spec), overrides=_overrides(set),
                        config="" if config is None else _config_text(config), best=best,
                        **options)
    warn_all(raw["warnings"])
    result = Analysis(raw)
    if not result.profiled:
        warnings.warn("gputune: " + result.message, stacklevel=2)
    return result
