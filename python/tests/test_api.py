"""The Python API on the CPU: errors, compile-only runs, replayed searches into a database,
DataFrames and plots. Nothing here needs a GPU."""

import json
import os
import re
import tempfile
import warnings

import numpy as np
import pytest

import gputune
from scale_kernel import SOURCE, tune_kwargs


def test_imports_without_a_gpu():
    assert isinstance(gputune.gpus(), list)
    assert "random" in gputune.strategies()
    assert issubclass(gputune.SpecError, gputune.Error)
    assert gputune.SpecError.code == 65 and gputune.SpecError.name == "spec"
    assert gputune.UsageError.code == 64 and gputune.NoGpuError.code == 69


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
    assert caught.value.code == 65 and isinstance(caught.value.code, int)
    assert isinstance(caught.value, gputune.Error)


def test_usage_errors(repo):
    spec = os.path.join(repo, "spaces", "transpose.yaml")
    with pytest.raises(gputune.UsageError, match="'m' is not a problem value"):
        gputune.search(spec, set={"m": 3}, compile_only=True, progress=False)
    # In Python's spelling: the keyword the caller gave, not the command line's --budget.
    with pytest.raises(gputune.UsageError, match="budget=3 parsecs") as caught:
        gputune.search(spec, budget="3 parsecs", replay="nothing.csv", progress=False)
    assert "--budget" not in str(caught.value)
    assert caught.value.code == 64
    with pytest.raises(gputune.IoError):
        gputune.search("no-such-spec-anywhere", compile_only=True)
    with pytest.raises(gputune.IoError, match="no such database"):
        gputune.load("no-such.db")


def test_no_gpu_error_names_the_python_keyword(repo):
    if gputune.gpus():
        pytest.skip("a GPU is here: the search runs")
    spec = os.path.join(repo, "spaces", "transpose.yaml")
    with pytest.raises(gputune.NoGpuError, match="compile_only=True") as caught:
        gputune.search(spec, budget=1, progress=False)
    assert "--compile-only" not in str(caught.value)
    assert caught.value.code == 69 and caught.value.name == "no-gpu"


def test_tune_errors_name_the_argument_they_came_from(tmp_path):
    # tune() writes no spec: its errors name tune()'s argument instead of a line of YAML.
    x, kwargs = tune_kwargs(constraints=["THREADS > 0", "THREADS %% 64 == 0"],
                            compile_only=True, workdir=str(tmp_path))
    with pytest.warns(DeprecationWarning, match="workdir is ignored"):
        with pytest.raises(gputune.SpecError) as caught:
            gputune.tune(**kwargs)
    message = str(caught.value)
    assert message.startswith("tune(): constraints[1]: "), message
    assert "THREADS %% 64" in message
    assert os.listdir(tmp_path) == []

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


def test_tune_arguments_are_checked_against_the_kernels_parameters():
    # scale(float* out, const float* x, float a, int n): a count or a kind that does not fit,
    # or an array whose bytes are not the kernel's element type, is a TypeError before anything
    # compiles; a scalar of another type is a warning.
    _, kwargs = tune_kwargs(compile_only=True)
    del kwargs["args"]["a"]
    with pytest.raises(TypeError, match=r"takes 4 parameters .* passes 3 arguments \(out, x, n\)"):
        gputune.tune(**kwargs)
    _, kwargs = tune_kwargs(compile_only=True)
    kwargs["args"]["extra"] = np.int32(1)
    with pytest.raises(gputune.ArgumentError, match="passes 5 arguments"):
        gputune.tune(**kwargs)
    _, kwargs = tune_kwargs(compile_only=True)
    kwargs["args"]["x"] = kwargs["args"]["x"].astype(np.float64)
    with pytest.raises(TypeError, match="argument 'x' holds float64.*points to float32"):
        gputune.tune(**kwargs)
    _, kwargs = tune_kwargs(compile_only=True)
    kwargs["args"]["a"] = np.full(4, 2.5, np.float32)
    with pytest.raises(gputune.SpecError, match="argument 'a' is a buffer"):
        gputune.tune(**kwargs)
    _, kwargs = tune_kwargs(compile_only=True, arch="sm_90")
    kwargs["args"]["n"] = gputune.Arg("n", type="int64")
    with pytest.warns(UserWarning, match="argument 'n' is int64"):
        gputune.tune(**kwargs)
    # strict=True, as the command line's --strict: the warning stops the tuning.
    with pytest.raises(gputune.ArgumentError, match="argument 'n' is int64.*strict=True") \
            as caught:
        gputune.tune(**kwargs, strict=True)
    assert caught.value.code == 65


def test_search_strict_makes_a_type_that_differs_an_error(tmp_path):
    # A YAML spec whose scalar is int64 for the kernel's int: a warning; with strict=True (the
    # command line's --strict, from the same table of search options) an ArgumentError.
    (tmp_path / "k.cu").write_text(
        'extern "C" __global__ void k(float* out, int n) {\n'
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  if (i < n) out[i] = 1.0f;\n}\n")
    (tmp_path / "spec.yaml").write_text(
        "kernel: {source: k.cu, name: k}\n"
        "problem: {n: 1024}\n"
        "arguments:\n"
        "  - {name: out, type: float32, count: n, output: true}\n"
        "  - {name: n, type: int64, value: n}\n"
        "launch: {block: [B], grid: [ceil(n / B)]}\n"
        "parameters: {B: [64, 128]}\n")
    spec = str(tmp_path / "spec.yaml")
    with pytest.warns(UserWarning, match="argument 'n' is int64"):
        gputune.search(spec, compile_only=True, arch="sm_90", progress=False)
    with pytest.raises(gputune.ArgumentError, match="argument 'n' is int64.*strict=True"):
        gputune.search(spec, compile_only=True, arch="sm_90", strict=True, progress=False)


def test_tune_errors_name_params_expressions_and_launch_dimensions():
    def message(**extra):
        _, kwargs = tune_kwargs(compile_only=True, **extra)
        with pytest.raises(gputune.SpecError) as caught:
            gputune.tune(**kwargs)
        return str(caught.value)

    got = message(grid=["ceil(n / 64)", "X"])
    assert got.startswith("tune(): grid[1]: undefined name 'X' in launch grid[1]"), got
    got = message(params={"THREADS": [64, 128, 64], "ITEMS": [1]})
    assert got.startswith("tune(): params['THREADS']: parameter 'THREADS' lists 64 twice"), got
    got = message(params={"THREADS": [], "ITEMS": [1]})
    assert got.startswith("tune(): params['THREADS']: "), got
    got = message(transforms={"block_ordr": ["row"]})
    assert got.startswith("tune(): transforms['block_ordr']: unknown transform"), got
    got = message(block=["THREADS / 3"])
    assert got.startswith("tune(): block[0]: block[0] = THREADS / 3 is 21.3"), got
    got = message(problem={"n": "m * 2"})
    assert got.startswith("tune(): problem['n']: undefined name 'm'"), got
    got = message(bytes="8 * q")
    assert got.startswith("tune(): bytes: undefined name 'q' in metrics bytes"), got
    got = message(baseline={"THREADS": 96})
    assert got.startswith("tune(): baseline"), got
    assert "96 is not among its values" in got
    got = message(name="scal")
    assert got.startswith("tune(): name: kernel 'scal' is not a __global__ function"), got
    got = message(rtol=-1)
    assert got.startswith("tune(): check rtol is negative"), got


def test_tune_writes_no_file(tmp_path, monkeypatch):
    temp, work = tmp_path / "tmp", tmp_path / "work"
    temp.mkdir()
    work.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr(tempfile, "tempdir", None)  # gettempdir() reads TMPDIR again
    monkeypatch.chdir(work)
    # The module cache is its own option (a folder of compiled modules): off here.
    _, kwargs = tune_kwargs(compile_only=True, arch="sm_90", cache=False)
    r = gputune.tune(**kwargs)
    assert set(r.df.status) == {"ok"}
    assert r.spec["path"] == "tune:scale" and r.spec["kernel_path"] == "tune:scale.cu"
    assert os.listdir(temp) == [] and os.listdir(work) == []


def test_tune_includes_headers_from_the_working_folder(tmp_path, monkeypatch):
    # The source has no folder of its own: quoted includes are found where Python runs.
    (tmp_path / "with").mkdir()
    (tmp_path / "without").mkdir()
    (tmp_path / "with" / "helper.cuh").write_text("#define HELPER 1\n")
    _, kwargs = tune_kwargs(compile_only=True, arch="sm_90", cache=False,
                            params={"THREADS": [64], "ITEMS": [1]})
    kwargs["source"] = '#include "helper.cuh"\n' + SOURCE
    monkeypatch.chdir(tmp_path / "with")
    assert list(gputune.tune(**kwargs).df.status) == ["ok"]
    monkeypatch.chdir(tmp_path / "without")
    r = gputune.tune(**kwargs)
    assert list(r.df.status) == ["compile_error"]
    assert 'cannot open source file "helper.cuh"' in r.df.message.iloc[0]


def test_same_inputs_same_workload_other_data_another(tmp_path):
    x, kwargs = tune_kwargs(compile_only=True)
    first = gputune.tune(**kwargs)
    again = gputune.tune(**tune_kwargs(compile_only=True)[1])
    assert again.spec["spec_hash"] == first.spec["spec_hash"]
    other_args = dict(kwargs["args"], x=x + 1)
    other = gputune.tune(**dict(kwargs, args=other_args))
    assert other.spec["spec_hash"] != first.spec["spec_hash"]
    with_reference = gputune.tune(**dict(kwargs, reference=[np.float32(2.5) * x]))
    assert with_reference.spec["spec_hash"] not in (first.spec["spec_hash"],
                                                    other.spec["spec_hash"])
    assert with_reference.spec["source_hash"] == first.spec["source_hash"]

    # Replayed into a database: a rerun with the same inputs measures nothing again, other
    # data is another workload, measured anew but for what the first one's results prune.
    recording = tmp_path / "scale.csv"
    write_synthetic_recording(first, recording)
    db = str(tmp_path / "reuse.db")
    _, kwargs = tune_kwargs(replay=str(recording), db=db)
    r = gputune.tune(**kwargs)
    assert r.record["evaluated"] == 9
    rerun = gputune.tune(**tune_kwargs(replay=str(recording), db=db)[1])
    assert rerun.record["evaluated"] == 0 and rerun.workload == r.workload
    moved = gputune.tune(**dict(kwargs, args=dict(kwargs["args"], x=x + 1)))
    assert moved.workload != r.workload
    assert moved.record["evaluated"] + moved.prior_pruning["pruned"] == 9
    assert len(gputune.workloads(db)) == 2


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


def test_progress_names_the_phase():
    phases = []
    _, kwargs = tune_kwargs(compile_only=True, progress=lambda p: phases.append(p["phase"]))
    gputune.tune(**kwargs)
    assert phases and set(phases) == {"compiling"}


def test_builtin_progress_starts_before_the_total_is_known(capsys):
    from gputune.progress import _Progress
    progress = _Progress("tune scale", True)
    step = {"phase": "starting", "total": 0, "done": 0, "failed": 0, "best_ms": 0,
            "elapsed_s": 0}
    progress(step)  # no total yet: a tqdm bar then has no truth value
    progress(dict(step, phase="measuring", total=9, done=3, best_ms=0.5))
    progress.close()
    assert "measuring" in capsys.readouterr().err


def test_oversize_blocks_are_pruned_before_compiling():
    _, kwargs = tune_kwargs(compile_only=True,
                            params={"THREADS": [256, 512, 1024, 2048], "ITEMS": [1, 2, 4]})
    r = gputune.tune(**kwargs)
    assert len(r.df) == 9, "THREADS=2048 is over the 1024 threads a block may have"


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


def test_a_recording_without_hash_lines_replays_only_when_asked(repo, tmp_path):
    """Nothing ties such a recording to its spec: the front ends refuse it alike unless the
    caller names the risk (--replay-unverified, replay_unverified=True)."""
    shipped = os.path.join(repo, "db", "recordings", "transpose_n_4096_NVIDIA_H200.csv")
    lines = []
    with open(shipped) as f:
        text = f.read()
    for line in text.splitlines():
        if line.startswith("# spec_path: "):
            line = "# spec_path: " + os.path.join(repo, line[len("# spec_path: "):])
        if not line.startswith(("# spec_hash:", "# measurement_hash:")):
            lines.append(line)
    recording = tmp_path / "unhashed.csv"
    recording.write_text("\n".join(lines) + "\n")
    with pytest.raises(gputune.UsageError, match="replay_unverified=True") as caught:
        gputune.search(replay=recording, strategy="random", budget=3, progress=False)
    assert "--replay-unverified" not in str(caught.value)
    assert "in Python" not in str(caught.value)
    r = gputune.search(replay=recording, strategy="random", budget=3, progress=False,
                       replay_unverified=True)
    assert r.kind == "search" and len(r.df) >= 3


def test_replayed_search_fills_a_database(replayed):
    r, db = replayed
    assert r.kind == "search" and not r.interrupted
    assert r.device["name"] == "Synthetic GPU"
    df = r.df
    assert set(df.status) == {"ok"}
    assert len(df) >= 6  # the budget's evaluations plus the baseline
    # Fastest first; variants that racing cut short come after every full measurement.
    full = df[df.cut_short == 0]
    assert full.median_ms.is_monotonic_increasing
    assert (df.cut_short.iloc[len(full):] == 1).all()
    assert "gbs" in df and (df.gbs > 0).all()  # from bytes="8 * n"
    assert r.best == {"THREADS": int(df.THREADS.iloc[0]), "ITEMS": int(df.ITEMS.iloc[0])}
    assert r.best_ms == pytest.approx(df.median_ms.iloc[0])
    h = r.history
    assert list(h.evaluation) == list(range(1, len(h) + 1))
    assert h.best_so_far_ms.is_monotonic_decreasing
    assert h.elapsed_s.is_monotonic_increasing


def test_stored_text_that_is_not_utf8_reads_replaced(replayed, tmp_path):
    """A database from elsewhere may hold names that are not UTF-8: they read with U+FFFD,
    as the command line's JSON writes them (a UnicodeDecodeError before)."""
    import shutil
    import sqlite3
    _, db = replayed
    copy = tmp_path / "foreign.db"
    shutil.copy(db, copy)
    with sqlite3.connect(copy) as connection:
        connection.execute("UPDATE devices SET name = CAST(x'4e5649444941ff' AS TEXT)")
        connection.execute("UPDATE specs SET path = CAST(x'2f746d702f6361e92e79616d6c' AS TEXT)")
    listing = gputune.workloads(str(copy))
    assert list(listing.device) == ["NVIDIA\ufffd"]
    assert list(listing.spec) == ["/tmp/ca\ufffd.yaml"]
    assert gputune.load(str(copy)).device["name"] == "NVIDIA\ufffd"


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


def test_tune_check_none_and_what_check_takes():
    _, kwargs = tune_kwargs(compile_only=True, check="none")
    gputune.tune(**kwargs)  # builds and compiles: check: none is a spec like any other
    _, kwargs = tune_kwargs(compile_only=True, check=lambda outputs: True)
    gputune.tune(**kwargs)  # a function is a check: compiling does not call it
    _, kwargs = tune_kwargs(compile_only=True, check="off")
    with pytest.raises(gputune.UsageError, match="expected 'none'"):
        gputune.tune(**kwargs)
    _, kwargs = tune_kwargs(compile_only=True, check="baseline")
    gputune.tune(**kwargs)  # the default, said as search() and --check say it
    _, kwargs = tune_kwargs(compile_only=True, check="baseline", reference=[np.zeros(3)])
    with pytest.raises(gputune.UsageError, match="check='baseline' compares with the baseline"):
        gputune.tune(**kwargs)


def test_tune_check_function_misuse_is_refused_before_anything_runs():
    x, kwargs = tune_kwargs(compile_only=True, check=lambda outputs: True,
                            reference=[np.float32(2.5) * np.arange(4)])
    with pytest.raises(gputune.UsageError, match="two checks"):
        gputune.tune(**kwargs)
    _, kwargs = tune_kwargs(compile_only=True, check=lambda: True)
    with pytest.raises(gputune.UsageError, match="takes no arguments"):
        gputune.tune(**kwargs)


def test_the_check_functions_name_is_part_of_the_identity():
    def close(outputs):
        return True

    def other(outputs):
        return True

    plain = gputune.tune(**tune_kwargs(compile_only=True)[1])
    first = gputune.tune(**tune_kwargs(compile_only=True, check=close)[1])
    again = gputune.tune(**tune_kwargs(compile_only=True, check=close)[1])
    renamed = gputune.tune(**tune_kwargs(compile_only=True, check=other)[1])
    assert first.spec["spec_hash"] == again.spec["spec_hash"]
    assert len({plain.spec["spec_hash"], first.spec["spec_hash"],
                renamed.spec["spec_hash"]}) == 3


def _bytes(array):
    return np.ascontiguousarray(array).tobytes()


def test_check_function_sees_shaped_read_only_arrays_and_gives_a_verdict():
    """The bridge a search calls (_core._call_check), on arrays given here: no GPU."""
    from gputune import _core
    from gputune.tuning import _check_function
    out = np.arange(6, dtype=np.float32)
    x = np.arange(6, dtype=np.int32)
    seen = {}

    def both(outputs, inputs):
        seen.update(outputs=outputs, inputs=inputs)
        return bool(np.all(outputs["out"].ravel() == inputs["x"].ravel()))

    judge = _check_function(both, {"out": (2, 3)}, {"x": (3, 2)})
    outputs = [("out", "float32", _bytes(out))]
    inputs = [("x", "int32", _bytes(x))]
    assert _core._call_check(judge, outputs, inputs) == ""
    assert seen["outputs"]["out"].shape == (2, 3) and seen["outputs"]["out"].dtype == np.float32
    assert seen["inputs"]["x"].shape == (3, 2) and seen["inputs"]["x"].dtype == np.int32
    assert not seen["outputs"]["out"].flags.writeable
    kept = seen["outputs"]["out"]
    assert kept[1, 2] == 5  # the array keeps its bytes after the call

    wrong = [("out", "float32", _bytes(out + 1))]
    assert _core._call_check(judge, wrong, inputs) == "check both returned False"

    def asserts(outputs):  # one argument: the outputs only; None passes
        np.testing.assert_allclose(outputs["out"], np.arange(6))

    judge = _check_function(asserts, {}, {})
    assert _core._call_check(judge, outputs, inputs) == ""
    message = _core._call_check(judge, wrong, inputs)
    assert message.startswith("check asserts raised AssertionError: ") and "6 / 6" in message

    def undecided(outputs):
        return outputs["out"] == 0

    judge = _check_function(undecided, {}, {})
    with pytest.raises(gputune.UsageError, match="returned a ndarray for config"):
        _core._call_check(judge, outputs, inputs)

    def interrupted(outputs):
        raise KeyboardInterrupt

    judge = _check_function(interrupted, {}, {})
    with pytest.raises(KeyboardInterrupt):
        _core._call_check(judge, outputs, inputs)


def test_a_replay_does_not_call_the_check_function_and_says_so(tmp_path):
    calls = []

    def check(outputs):
        calls.append(1)
        return False

    compiled = gputune.tune(**tune_kwargs(compile_only=True, check=check)[1])
    recording = tmp_path / "scale.csv"
    write_synthetic_recording(compiled, recording)
    with pytest.warns(UserWarning, match="a replay cannot run the check function"):
        r = gputune.tune(**tune_kwargs(replay=str(recording), check=check)[1])
    assert not calls
    assert set(r.df.status) == {"ok"}, "the stored statuses"


def test_results_of_an_unchecked_search_say_so():
    from gputune.results import Results
    report = {"outputs_checked": False, "warning": "outputs NOT checked (check: none)",
              "results": [], "failed": []}
    with pytest.warns(UserWarning, match="outputs NOT checked"):
        results = Results("search", {"report": json.dumps(report)})
    assert results.outputs_checked is False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        checked = Results("search", {"report": json.dumps({"results": [], "failed": []})})
    assert checked.outputs_checked is True


CONSTANT_SOURCE = r"""
__constant__ float weights[8];
__global__ void weigh(float* out, const float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] * weights[i % 8];
}
"""


def test_tune_fills_a_constant_symbol_from_numpy(tmp_path):
    n = 1000
    common = dict(source=CONSTANT_SOURCE, name="weigh", params={"THREADS": [64, 128]},
                  block=["THREADS"], grid=["ceil(n / THREADS)"], problem={"n": n},
                  compile_only=True, arch="sm_90", cache=False, db=str(tmp_path / "c.db"),
                  progress=False)
    w = np.arange(8, dtype=np.float32)
    x = np.ones(n, np.float32)
    out = gputune.Out(np.empty(n, np.float32))
    # As a dict (order free) and in a list, where it takes no place in the kernel's signature.
    r = gputune.tune(args={"weights": gputune.Constant(w), "out": out, "x": x, "n": "n"},
                     **common)
    assert set(r.df.status) == {"ok"}
    r = gputune.tune(args=[out, gputune.Constant(w, name="weights"), x, "n"], **common)
    assert set(r.df.status) == {"ok"}
    constants = [a for a in r.spec["arguments"] if a["constant"]]
    assert [(a["name"], a["symbol"], a["has_data"]) for a in constants] == [
        ("weights", "weights", True)]
    with pytest.raises(gputune.SpecError, match="no __constant__ variable 'weight'"):
        gputune.tune(args={"out": out, "x": x, "n": "n", "weight": gputune.Constant(w)},
                     **common)
    with pytest.raises(gputune.UsageError, match="needs name= or symbol="):
        gputune.tune(args=[out, gputune.Constant(w), x, "n"], **common)
    with pytest.raises(gputune.UsageError, match="must be a numpy array"):
        gputune.tune(args={"out": out, "x": x, "n": "n", "weights": gputune.Constant(2.0)},
                     **common)


DEFINES_SOURCE = r"""
extern "C" __global__ void fill(float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < LENGTH) out[i] = PER_BLOCK;
}
"""


def test_tune_defines_reach_the_kernel(tmp_path):
    n = 1000
    common = dict(source=DEFINES_SOURCE, name="fill", params={"THREADS": [64, 128]},
                  args={"out": gputune.Out(np.empty(n, np.float32))}, block=["THREADS"],
                  grid=["ceil(n / THREADS)"], problem={"n": n}, compile_only=True, arch="sm_90",
                  cache=False, db=str(tmp_path / "d.db"), progress=False)
    without = gputune.tune(**common)
    assert set(without.df.status) == {"compile_error"}
    r = gputune.tune(defines={"LENGTH": "n", "PER_BLOCK": "THREADS * 2"}, **common)
    assert set(r.df.status) == {"ok"} and len(r.df) == 2
    assert r.spec["defines"] == [("LENGTH", "n"), ("PER_BLOCK", "THREADS * 2")]
    assert r.spec["spec_hash"] != without.spec["spec_hash"]
    with pytest.raises(gputune.SpecError, match=r"tune\(\): defines\['THREADS'\]: define "
                                                r"'THREADS' has the name of a parameter"):
        gputune.tune(defines={"LENGTH": "n", "PER_BLOCK": 1, "THREADS": 64}, **common)
    with pytest.raises(gputune.SpecError, match="define 'LENGTH'"):
        gputune.tune(defines={"LENGTH": "m", "PER_BLOCK": 1}, **common)
    with pytest.raises(gputune.UsageError, match="defines must be a dict"):
        gputune.tune(defines=[("LENGTH", "n")], **common)
