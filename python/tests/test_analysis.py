"""Why a variant is slow, from Python, on the CPU: counters a replayed recording put in a
database, read back as gputune analyze's report, a DataFrame and a plot. Nothing here needs a
GPU; the counters are made up (test data, not GPU measurements)."""

import json
import sys
import warnings

import pytest

import gputune
from scale_kernel import tune_kwargs
from test_api import write_synthetic_recording

BEST = {"THREADS": 128, "ITEMS": 4}  # the fastest in write_synthetic_recording's time function

_COMMON = {
    "device__attribute_compute_capability_major": 9,
    "device__attribute_compute_capability_minor": 0,
    "device__attribute_max_warps_per_multiprocessor": 64,
    "sm__maximum_warps_per_active_cycle_pct": 100,
    "launch__occupancy_limit_registers": 4,
    "launch__occupancy_limit_warps": 8,
    "smsp__inst_executed.sum": 1e6,
    "smsp__sass_inst_executed_op_global_ld.sum": 1e4,
    "smsp__sass_inst_executed_op_global_st.sum": 1e4,
    "smsp__sass_inst_executed_op_shared_ld.sum": 0,
    "smsp__sass_inst_executed_op_shared_st.sum": 0,
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum": 0,
    "gpu__time_duration.sum": 38112,
}

# The baseline: memory bound (DRAM at 88% of peak), waiting on loads.
BASELINE_COUNTERS = dict(_COMMON, **{
    "sm__warps_active.avg.pct_of_peak_sustained_active": 90,
    "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed": 88,
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed": 89,
    "smsp__issue_active.avg.pct_of_peak_sustained_active": 12,
    "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active": 10,
    "smsp__warps_eligible.avg.per_cycle_active": 0.3,
    "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio": 20,
    "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio": 4,
    "smsp__average_warps_issue_stalled_selected_per_issue_active.ratio": 1,
})

# The best: instruction bound (issue slots 78% busy, the FMA pipe the busiest).
BEST_COUNTERS = dict(_COMMON, **{
    "sm__warps_active.avg.pct_of_peak_sustained_active": 60,
    "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed": 30,
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed": 45,
    "smsp__issue_active.avg.pct_of_peak_sustained_active": 78,
    "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active": 74,
    "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active": 30,
    "smsp__warps_eligible.avg.per_cycle_active": 2.5,
    "smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio": 1.5,
    "smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio": 1,
    "smsp__average_warps_issue_stalled_selected_per_issue_active.ratio": 1,
})


def append_counters(path, counters_by_index):
    lines = ["# counters", "config_index,source,profile_s,metric,value"]
    for index, counters in counters_by_index.items():
        for metric, value in sorted(counters.items()):
            lines.append("%d,ncu,2.5,%s,%r" % (index, metric, float(value)))
    with open(path, "a") as out:
        out.write("\n".join(lines) + "\n")


@pytest.fixture
def profiled(tmp_path):
    _, kwargs = tune_kwargs(compile_only=True)
    compiled = gputune.tune(**kwargs)
    recording = tmp_path / "scale.csv"
    write_synthetic_recording(compiled, recording)
    best = [row["index"] for row in compiled.records
            if (json.loads(row["config"]) if isinstance(row["config"], str) else row["config"])
            == BEST][0]
    append_counters(recording, {compiled.problem["baseline_index"]: BASELINE_COUNTERS,
                                best: BEST_COUNTERS})
    db = tmp_path / "replayed.db"
    _, kwargs = tune_kwargs(replay=str(recording), db=str(db), strategy="brute_force")
    return gputune.tune(**kwargs), db


def test_the_best_variants_report_and_counters(profiled):
    r, _ = profiled
    assert r.best == BEST
    a = r.analysis()
    assert isinstance(a, gputune.Analysis) and a.profiled and a.stored
    assert a.config == BEST
    assert a.step == "instructions"
    assert a.report.startswith("Variant THREADS=128 ITEMS=4 (stored ncu counters)\n")
    assert "1. Global memory" in a.report and "Verdict (instructions)" in a.report
    assert r.bottleneck_report() == a.report == str(a)
    df = r.counters()
    assert list(df.columns) == ["metric", "value", "unit", "step"]
    assert len(df) == len(BEST_COUNTERS)
    dram = df[df.metric == "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"].iloc[0]
    assert (dram.value, dram.unit, dram.step) == (30, "%", "global memory")
    stall = df[df.metric.str.contains("math_pipe_throttle")].iloc[0]
    assert stall.step == "execution dependency"
    assert a.stall_shares["math_pipe_throttle"] == pytest.approx(1.5 / 3.5)
    assert a.throughput["DRAM"] == 30 and a.throughput["pipe fma"] == 74


def test_the_baseline_and_a_config_by_its_values(profiled):
    r, _ = profiled
    base = r.analysis("baseline")
    assert base.step == "global memory" and "memory bound" in base.verdict
    assert r.analysis(BEST).report == r.analysis().report
    assert r.analysis(r.df.config_index.iloc[0]).config == r.best


def test_stored_results_read_the_same_counters(profiled):
    r, db = profiled
    stored = gputune.load(str(db))

    # Loaded results name the config in stored key order and, without the tune() spec, no knobs.
    def body(report):
        return [line for line in report.splitlines()
                if not line.startswith("Variant ") and not line.startswith("(")]

    assert body(stored.bottleneck_report()) == body(r.bottleneck_report())
    assert stored.analysis("baseline").step == "global memory"


def test_without_counters_the_message_says_how_to_take_them(profiled):
    r, _ = profiled
    config = {"THREADS": 256, "ITEMS": 2}  # neither the baseline nor the best: no counters
    a = r.analysis(config)
    assert not a.profiled and a.report == ""
    assert "no counters stored for" in a.message
    assert "gputune analyze" in a.message and "--config" in a.message
    assert "gputune.analyze(" in a.message
    assert r.bottleneck_report(config) == a.message
    with pytest.warns(UserWarning, match="no counters stored"):
        df = r.counters(config)
    assert df.empty and list(df.columns) == ["metric", "value", "unit", "step"]
    with pytest.raises(gputune.UsageError, match="no counters stored"):
        r.plot_bottleneck(config)


def test_configs_that_name_no_single_variant_are_refused(profiled):
    r, _ = profiled
    with pytest.raises(gputune.UsageError, match="not a parameter"):
        r.analysis({"NOPE": 1})
    with pytest.raises(gputune.UsageError, match="give every parameter"):
        r.analysis({"THREADS": 64})
    with pytest.raises(gputune.UsageError, match="expected None"):
        r.analysis([64, 1])


def test_results_stored_nowhere_have_no_counters(tmp_path):
    _, kwargs = tune_kwargs(compile_only=True)
    compiled = gputune.tune(**kwargs)
    with pytest.raises(gputune.UsageError, match="compile-only"):
        compiled.analysis()
    recording = tmp_path / "scale.csv"
    write_synthetic_recording(compiled, recording)
    _, kwargs = tune_kwargs(replay=str(recording), strategy="random", budget=3)
    with pytest.raises(gputune.UsageError, match="replay with db="):
        gputune.tune(**kwargs).analysis()


def test_bottleneck_plot_puts_the_best_beside_the_baseline(profiled):
    pytest.importorskip("matplotlib")
    import os
    from matplotlib.figure import Figure
    r, _ = profiled
    fig = r.plot_bottleneck()
    assert isinstance(fig, Figure)
    stalls, throughput = fig.axes[:2]
    assert [t.get_text() for t in throughput.get_xticklabels()] == [
        "DRAM", "memory system", "issue slots", "busiest pipe"]
    assert {t.get_text() for t in stalls.get_yticklabels()} >= {
        "long_scoreboard", "math_pipe_throttle"}
    assert [t.get_text() for t in throughput.get_legend().get_texts()] == ["best", "baseline"]
    assert "best: instructions" in fig._suptitle.get_text()
    fig.savefig(os.devnull, format="png")
    alone = r.plot_bottleneck(against=None)
    assert [t.get_text() for t in alone.axes[1].get_legend().get_texts()] == ["best"]
    # A variant without counters is named, not drawn.
    partial = r.plot_bottleneck(against={"THREADS": 256, "ITEMS": 2})
    assert "no counters stored" in partial._suptitle.get_text()
    partial.savefig(os.devnull, format="png")
    assert isinstance(r.analysis().plot(against=r.analysis("baseline")), Figure)


def test_plots_without_matplotlib_say_how_to_get_it(profiled, monkeypatch):
    r, _ = profiled
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(ImportError, match="pip install matplotlib"):
        r.plot_bottleneck()


def test_analyze_without_a_profiler_says_why(tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a = gputune.analyze("transpose", set={"n": 1024}, config={"SHARED": 1, "PAD": 1},
                            ncu=str(tmp_path / "no-such-ncu"), db=str(tmp_path / "a.db"))
    assert not a.profiled and a.message
    assert any(a.message in str(w.message) for w in caught)
    assert a.config["PAD"] == 1
    with pytest.raises(gputune.UsageError, match="one of config="):
        gputune.analyze("transpose", config={"PAD": 1}, best=True)
    with pytest.raises(gputune.UsageError, match="not a parameter"):
        gputune.analyze("transpose", set={"n": 1024}, config={"NOPE": 1},
                        db=str(tmp_path / "a.db"))
