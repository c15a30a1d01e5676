"""Plots of gputune Results with matplotlib. Each function returns a matplotlib Figure (made
without pyplot, so a notebook shows it once: as the cell's value)."""

import math

import numpy as np


def _figure_class():
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError("gputune's plots need matplotlib: pip install matplotlib (or "
                          "pip install 'gputune[plots]')") from None
    return Figure


def _axes(ax, figsize=(6, 4)):
    if ax is not None:
        return ax.figure, ax
    fig = _figure_class()(figsize=figsize, layout="constrained")
    return fig, fig.subplots()


def _time_label(results):
    return "median time (ms)"


def _require_times(results):
    if "median_ms" not in results.df:
        from ._errors import UsageError
        raise UsageError("these results hold no times (%s); plot their DataFrame instead, e.g. "
                         "r.df.plot.bar(y='registers')" % results.kind)


def best_so_far(results, x="evaluations", ax=None):
    """Best correct time so far against evaluations (x="evaluations") or wall time (x="time").

    A live search's times are those of the step that completed each evaluation; a stored
    workload's come from the database, to the second."""
    if x not in ("evaluations", "time"):
        from ._errors import UsageError
        raise UsageError("x=%r: expected 'evaluations' or 'time'" % (x,))
    _require_times(results)
    history = results.history
    fig, ax = _axes(ax)
    if history.empty or "best_so_far_ms" not in history:
        ax.set_title("nothing evaluated")
        return fig
    xs = history["evaluation"] if x == "evaluations" else history["elapsed_s"]
    ok = history["status"] == "ok"
    ax.scatter(xs[ok], history["median_ms"][ok], s=10, alpha=0.4, label="each variant")
    failed = ~ok
    if failed.any():
        low = history["median_ms"][ok].min() if ok.any() else 1.0
        ax.scatter(xs[failed], [low] * int(failed.sum()), marker="x", s=12, color="tab:red",
                   alpha=0.6, label="failed")
    ax.step(xs, history["best_so_far_ms"], where="post", color="tab:orange", label="best so far")
    ax.set_xlabel("evaluations" if x == "evaluations" else "wall time (s)")
    ax.set_ylabel(_time_label(results))
    if ok.any() and history["median_ms"][ok].max() > 4 * history["median_ms"][ok].min():
        ax.set_yscale("log")
    ax.legend(loc="upper right")
    ax.set_title("best so far: %.4g ms" % history["best_so_far_ms"].min())
    return fig


def _ordered_values(results, name, column):
    dims = {d[0]: d[1] for d in (results.problem or {}).get("dimensions", [])}
    if name in dims:
        return [v for v in dims[name] if (column == v).any()]
    values = list(dict.fromkeys(column.dropna().tolist()))
    try:
        return sorted(values)
    except TypeError:
        return values


def time_vs_parameter(results, name=None, ax=None):
    """Median time of every correct variant against each value of a parameter; with name=None
    one panel per parameter. The line follows the best time at each value."""
    _require_times(results)
    names = [name] if name else list(results.parameters)
    ok = results.ok
    if ax is not None and len(names) == 1:
        fig, axes = ax.figure, [ax]
    else:
        columns = min(3, max(1, len(names)))
        rows = max(1, math.ceil(len(names) / columns))
        fig = _figure_class()(figsize=(4 * columns, 3.2 * rows), layout="constrained")
        axes = list(np.atleast_1d(fig.subplots(rows, columns, squeeze=False)).ravel())
        for extra in axes[len(names):]:
            extra.set_visible(False)
    for axis, param in zip(axes, names):
        if param not in results.df:
            from ._errors import UsageError
            raise UsageError("no parameter '%s'; expected one of: %s" % (
                param, ", ".join(results.parameters)))
        values = _ordered_values(results, param, results.df[param])
        position = {v: i for i, v in enumerate(values)}
        if len(ok):
            xs = ok[param].map(position)
            jitter = (np.random.default_rng(0).random(len(ok)) - 0.5) * 0.15
            axis.scatter(xs + jitter, ok["median_ms"], s=10, alpha=0.5)
            best = ok.groupby(param)["median_ms"].min()
            axis.plot([position[v] for v in values if v in best.index],
                      [best[v] for v in values if v in best.index], color="tab:orange",
                      marker="o", label="best")
            if ok["median_ms"].max() > 4 * ok["median_ms"].min():
                axis.set_yscale("log")
        axis.set_xticks(range(len(values)))
        axis.set_xticklabels([str(v) for v in values])
        axis.set_xlabel(param)
        axis.set_ylabel(_time_label(results))
    return fig


def heatmap(results, x, y, ax=None):
    """Best median time over the other parameters for each (x, y) pair of values."""
    _require_times(results)
    df = results.df
    for param in (x, y):
        if param not in df:
            from ._errors import UsageError
            raise UsageError("no parameter '%s'; expected one of: %s" % (
                param, ", ".join(results.parameters)))
    fig, ax = _axes(ax, figsize=(1.2 + 0.9 * max(3, df[x].nunique()),
                                 1.0 + 0.6 * max(3, df[y].nunique())))
    xs = _ordered_values(results, x, df[x])
    ys = _ordered_values(results, y, df[y])
    grid = np.full((len(ys), len(xs)), np.nan)
    ok = results.ok
    if len(ok):
        best = ok.groupby([y, x])["median_ms"].min()
        for (vy, vx), value in best.items():
            grid[ys.index(vy), xs.index(vx)] = value
    image = ax.imshow(grid, cmap="viridis_r", aspect="auto")
    fig.colorbar(image, ax=ax, label="best median time (ms)")
    ax.set_xticks(range(len(xs)))
    ax.set_xticklabels([str(v) for v in xs])
    ax.set_yticks(range(len(ys)))
    ax.set_yticklabels([str(v) for v in ys])
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    finite = grid[np.isfinite(grid)]
    for i in range(len(ys)):
        for j in range(len(xs)):
            if np.isfinite(grid[i, j]):
                dark = finite.size and grid[i, j] > np.median(finite)
                ax.text(j, i, "%.3g" % grid[i, j], ha="center", va="center", fontsize=8,
                        color="white" if dark else "black")
            else:
                ax.text(j, i, "-", ha="center", va="center", fontsize=8, color="gray")
    return fig


# The stall reasons drawn: the largest few of any variant shown.
_TOP_STALLS = 5


def bottleneck(pairs, ax=None):
    """Where the time goes for each (label, Analysis) pair, side by side: the top stall reasons
    as shares of all stalls, and DRAM, memory-system, issue-slot and busiest-pipe throughput as
    shares of peak. A pair without counters is named in the title and left out."""
    shown = [(label, a) for label, a in pairs if a.profiled]
    missing = [label for label, a in pairs if not a.profiled]
    if ax is not None:
        fig, axes = ax[0].figure, list(ax)
    else:
        fig = _figure_class()(figsize=(11, 4), layout="constrained")
        axes = list(fig.subplots(1, 2))
    stalls, throughput = axes
    reasons = []
    for _, a in shown:
        for reason, share in list(a.stall_shares.items())[:_TOP_STALLS]:
            if share > 0 and reason not in reasons:
                reasons.append(reason)
    reasons.sort(key=lambda r: -max(a.stall_shares.get(r, 0) for _, a in shown))
    width = 0.8 / max(1, len(shown))
    positions = np.arange(len(reasons))
    for i, (label, a) in enumerate(shown):
        shares = [100 * a.stall_shares.get(r, 0) for r in reasons]
        stalls.barh(positions + i * width, shares, height=width, label=label)
    stalls.set_yticks(positions + width * (len(shown) - 1) / 2)
    stalls.set_yticklabels(reasons)
    stalls.invert_yaxis()
    stalls.set_xlabel("share of stalls (%)")
    stalls.set_title("top stall reasons")

    categories = ["DRAM", "memory system", "issue slots", "busiest pipe"]
    positions = np.arange(len(categories))
    for i, (label, a) in enumerate(shown):
        pipe = [name for name in a.throughput if name.startswith("pipe ")]
        values = [a.throughput.get("DRAM", 0), a.throughput.get("memory system", 0),
                  a.throughput.get("issue slots", 0), a.throughput[pipe[0]] if pipe else 0]
        bars = throughput.bar(positions + i * width, values, width=width, label=label)
        if pipe:  # which pipe is busiest differs between variants
            throughput.annotate(pipe[0][len("pipe "):], (bars[-1].get_x() + width / 2,
                                                         values[-1]),
                                ha="center", va="bottom", fontsize=8)
    throughput.set_xticks(positions + width * (len(shown) - 1) / 2)
    throughput.set_xticklabels(categories)
    throughput.set_ylim(0, 105)
    throughput.set_ylabel("% of peak")
    throughput.set_title("throughput")
    if shown:
        throughput.legend(loc="upper right", fontsize=8)
    verdicts = "; ".join("%s: %s" % (label, a.step) for label, a in shown)
    if missing:
        verdicts += ("; " if verdicts else "") + ", ".join(missing) + ": no counters stored"
    fig.suptitle("where the time goes (%s)" % verdicts, fontsize=10)
    return fig
