"""The Python API on the CPU: errors, compile-only runs, replayed searches into a database,
DataFrames and plots. Nothing here needs a GPU."""

import json
import os
import re
import warnings

import numpy as np
import pytest

import gputune
from scale_kernel import SOURCE, tune_kwargs


def test_imports_without_a_gpu():
    assert isinstance(gputune.gpus(), list)
    assert "random" in gputune.strategies()
    assert issubclass(gputune.SpecError, gputune.Error)
    assert gputune.SpecError.code == "spec"


def test_spec_errors_carry_file_line_column(tmp_path):
    spec = tmp_path / "bad.yaml"
    (tmp_path / "k.cu").write_text('extern "C" __global__ void k(float* out) {}\n')
    spec.write_text("kernel: {source: k.cu, name: k}\n"
                    "arguments:\n"
                    "  - {name: out, type: float32, count: 16, output: true}\n"
                    "launch: {block: [T], grid: [1]}\n"
                    "parameters: {T: [32]}\n"
                    "constraints: [T %% 2 == 0]\n")
    with pytest.raises(gputune.SpecError) as caught:
        gputune.search(str(spec), compile_only=True, progress=False)
    message = str(caught.value)
    assert re.match(re.escape(str(spec)) + r":6:\d+: ", message), message
    assert caught.value.code == "spec"
    assert isinstance(caught.value, gputune.Error)


def test_usage_errors(repo):
    spec = os.path.join(repo, "spaces", "transpose.yaml")
    with pytest.raises(gputune.UsageError, match="'m' is not a problem value"):
        gputune.search(spec, set={"m": 3}, compile_only=True, progress=False)
    with pytest.raises(gputune.UsageError, match="budget 3 parsecs"):
        gputune.search(spec, budget="3 parsecs", replay="nothing.csv", progress=False)
    with pytest.raises(gputune.IoError):
        gputune.search("no-such-spec-anywhere", compile_only=True)
    with pytest.raises(gputune.IoError, match="no such database"):
        gputune.load("no-such.db")


def test_tune_errors_point_into_the_generated_spec(tmp_path):
    x, kwargs = tune_kwargs(constraints=["THREADS %% 64 == 0"], compile_only=True,
                            workdir=str(tmp_path))
    with pytest.raises(gputune.SpecError) as caught:
        gputune.tune(**kwargs)
    message = str(caught.value)
    assert message.startswith(str(tmp_path / "scale.yaml") + ":"), message
    assert "in the spec tune() wrote" in message and "THREADS %% 64" in message

    _, kwargs = tune_kwargs(outputs=["nope"], compile_only=True)
    with pytest.raises(gputune.UsageError, match="'nope', which is not an argument"):
        gputune.tune(**kwargs)
    _, kwargs = tune_kwargs(reference=[np.zeros(3)], compile_only=True)
    with pytest.raises(gputune.UsageError, match="reference for 'out' has 3 elements"):
        gputune.tune(**kwargs)
    _, kwargs = tune_kwargs(compile_only=True)
    kwargs["args"]["x"] = np.zeros(4, np.complex64)
    with pytest.raises(gputune.UsageError, match="complex64 is not supported"):
        gputune.tune(**kwargs)


def test_compile_only_compiles_every_variant():
    _, kwargs = tune_kwargs(params={"THREADS": [64, 128], "ITEMS": [1, 4], "BROKEN": [0, 1]},
                            compile_only=True, arch="sm_90")
    r = gputune.tune(**kwargs)
    assert r.kind == "compile_only"
    df = r.df
    assert len(df) == 8
    assert list(df.columns[:4]) == ["config_index", "THREADS", "ITEMS", "BROKEN"]
    assert set(df[df.BROKEN == 0].status) == {"ok"}
    assert set(df[df.BROKEN == 1].status) == {"compile_error"}
    assert (df[df.BROKEN == 0].registers > 0).all()
    assert "this does not compile" in df[df.BROKEN == 1].message.iloc[0]
    assert len(r.history) == 8
    with pytest.raises(gputune.UsageError, match="no times"):
        r.plot_progress()


def test_signature_names_list_arguments():
    x, kwargs = tune_kwargs(compile_only=True)
    args = kwargs.pop("args")
    kwargs["args"] = [args["out"], args["x"], args["a"], args["n"]]
    r = gputune.tune(**kwargs)
    assert [a["name"] for a in r.spec["arguments"]] == ["out", "x", "a", "n"]
    assert r.spec["arguments"][0]["output"]


def test_interrupt_keeps_what_was_done():
    calls = []

    def progress(p):
        calls.append(p["done"])
        if len(calls) == 3:
            raise KeyboardInterrupt

    # One compile worker: a pool as wide as the GPU host's 16 cores finishes all 9 variants
    # before the interrupt lands, which tells nothing about stopping early.
    _, kwargs = tune_kwargs(compile_only=True, progress=progress, jobs=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = gputune.tune(**kwargs)
    assert r.interrupted
    assert 1 <= len(r.df) < 9
    assert any("interrupted" in str(w.message) for w in caught)

    def failing(p):
        raise ValueError("from the callback")

    _, kwargs = tune_kwargs(compile_only=True, progress=failing)
    with pytest.raises(ValueError, match="from the callback"):
        gputune.tune(**kwargs)


def write_synthetic_recording(results, path):
    """A made-up recording of the compiled variants (test data, not GPU measurements)."""
    info = results.spec
    lines = ["# gputune recording v1", "# origin: synthetic",
             "# spec_path: " + info["path"], "# spec_hash: " + info["spec_hash"],
             "# source_hash: " + info["source_hash"], "# kernel_name: scale",
             "# problem: " + results.problem["problem_json"], "# gpu: Synthetic GPU",
             "# gpu_uuid: GPU-0", "# compute_capability: 9.0", "# sm_count: 132",
             "# l2_bytes: 52428800", "# memory_bytes: 85899345920", "# driver: 13000",
             "# nvrtc: 13.0", "# baseline_index: %d" % results.problem["baseline_index"],
             "# copy_bandwidth_gbs: 3000", "# recorded_at: 2025-01-01T00:00:00Z", "# commit: ",
             "config_index,config,status,median_ms,samples,compile_ms,registers,shared_bytes,"
             "spill_bytes,message"]
    for row in results.records:
        config = row["config"]
        config_text = json.dumps({k: config[k] for k in results.parameters}, separators=(",", ":"))
        t = 0.01 * (1 + abs(config["THREADS"] - 128) / 64) / config["ITEMS"] ** 0.5
        samples = ";".join(repr(t * (1 + 0.01 * k)) for k in range(5))
        lines.append('%d,"%s",ok,%r,%s,100,%d,0,0,' % (
            row["index"], config_text.replace('"', '""'), t, samples, row["registers"]))
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture
def replayed(tmp_path):
    x, kwargs = tune_kwargs(compile_only=True)
    compiled = gputune.tune(**kwargs)
    recording = tmp_path / "scale.csv"
    write_synthetic_recording(compiled, recording)
    db = tmp_path / "replayed.db"
    _, kwargs = tune_kwargs(replay=str(recording), db=str(db), strategy="random", budget=6,
                            seed=1)
    return gputune.tune(**kwargs), db


def test_replayed_search_fills_a_database(replayed):
    r, db = replayed
    assert r.kind == "search" and not r.interrupted
    assert r.device["name"] == "Synthetic GPU"
    df = r.df
    assert set(df.status) == {"ok"}
    assert len(df) >= 6  # the budget's evaluations plus the baseline
    assert df.median_ms.is_monotonic_increasing  # fastest first
    assert "gbs" in df and (df.gbs > 0).all()  # from bytes="8 * n"
    assert r.best == {"THREADS": int(df.THREADS.iloc[0]), "ITEMS": int(df.ITEMS.iloc[0])}
    assert r.best_ms == pytest.approx(df.median_ms.iloc[0])
    h = r.history
    assert list(h.evaluation) == list(range(1, len(h) + 1))
    assert h.best_so_far_ms.is_monotonic_decreasing
    assert h.elapsed_s.is_monotonic_increasing


def test_load_reads_what_the_store_wrote(replayed, tmp_path):
    r, db = replayed
    listing = gputune.workloads(str(db))
    assert len(listing) == 1 and listing.device[0] == "Synthetic GPU"
    stored = gputune.load(str(db))
    assert stored.kind == "stored"
    assert len(stored.df) == len(r.df)
    assert stored.best == r.best
    assert list(stored.df.columns[:3]) == ["config_index", "THREADS", "ITEMS"]
    assert (stored.history.evaluation.diff().dropna() == 1).all()
    assert stored.history.elapsed_s.iloc[0] == 0
    # The recording round trip: export, replay into another database.
    again = stored.export_recording(str(tmp_path / "again.csv"))
    assert os.path.exists(again)


def test_plots_return_figures(replayed):
    from matplotlib.figure import Figure
    r, _ = replayed
    for fig in (r.plot_progress(), r.plot_progress(x="time"), r.plot_parameter(),
                r.plot_parameter("ITEMS"), r.plot_heatmap("THREADS", "ITEMS")):
        assert isinstance(fig, Figure)
        fig.savefig(os.devnull, format="png")
    with pytest.raises(gputune.UsageError):
        r.plot_heatmap("THREADS", "NOPE")
    assert "best" in r._repr_html_()


def test_shipped_spec_search_by_name_with_replay_of_the_wrong_problem(replayed, tmp_path):
    r, db = replayed
    # The transpose spec's space is not the recording's: refused with the reason.
    with pytest.raises(gputune.UsageError, match="recorded at"):
        gputune.search("transpose", set={"n": 1024}, replay=str(tmp_path / "scale.csv"),
                       db=str(tmp_path / "other.db"), progress=False)
