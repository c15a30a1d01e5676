"""CPU checks of the Kernel Tuner comparison (tools/test-kt.sh runs them): every space's
translation builds tune_kernel's arguments, and Kernel Tuner's own search-space construction
counts as many configs as gputune does for the same derived spec."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))

import kt_spaces  # noqa: E402
import run  # noqa: E402

kernel_tuner = pytest.importorskip("kernel_tuner")


def gputune_binary():
    path = os.environ.get("GPUTUNE_BINARY") or str(
        ROOT / os.environ.get("BUILD_DIR", "build") / "gputune"
    )
    if not Path(path).is_file():
        pytest.skip(f"no gputune binary at {path} (build it, or set GPUTUNE_BINARY)")
    return path


SPACES = kt_spaces.space_paths(ROOT)


def test_every_space_is_compared_or_said_why():
    names = {p.stem for p in SPACES}
    assert {"transpose", "gemv", "reduce", "stencil", "sgemm", "stencil_chain"} <= names
    assert {"point_in_polygon", "reduce_two_stage"} <= names
    for path in SPACES:
        try:
            kt_spaces.translate(path)
        except kt_spaces.Unsupported as e:
            assert "launches" in str(e), f"{path.stem}: {e}"


@pytest.mark.parametrize("path", SPACES, ids=[p.stem for p in SPACES])
def test_kernel_tuner_counts_what_gputune_counts(path, tmp_path):
    try:
        tr = kt_spaces.translate(path)
    except kt_spaces.Unsupported:
        pytest.skip("left out of the comparison (test_every_space_is_compared_or_said_why)")
    derived = tr.write_derived(tmp_path)
    counts = run.gputune_counts(gputune_binary(), tmp_path)
    expected = counts[str(derived.resolve())]
    assert expected, f"gputune could not read the derived spec {derived}"
    functions = kt_spaces.misparsed_restrictions(tr)
    size, space = kt_spaces.kernel_tuner_space_size(tr, as_functions=functions)
    assert size == expected
    # Every config Kernel Tuner builds launches what gputune's spec says.
    kwargs = kt_spaces.tune_kernel_arguments(tr, with_arrays=False, as_functions=functions)
    launch = tr.derived["launch"]
    for config in space.list[:: max(1, size // 25)]:
        params = dict(zip(kwargs["tune_params"], config))
        grid = kwargs["problem_size"](params)
        assert len(grid) == len(launch["grid"]) and all(g > 0 for g in grid)
        block = [params[n] for n in kwargs["block_size_names"]]
        assert 1 <= np.prod(block) <= 1024
        if "smem_args" in kwargs:
            assert 0 < kwargs["smem_args"]["size"](params) <= 48 * 1024


def test_derived_spec_fixes_what_kernel_tuner_cannot_express():
    tr = kt_spaces.translate(ROOT / "spaces/sgemm.yaml")
    assert tr.derived["transforms"] == {"block_order": ["row"], "max_registers": [0]}
    assert tr.derived["constraints"][-1].endswith("<= 49152")
    assert len(tr.left_out) == 3
    assert Path(tr.derived["kernel"]["source"]).is_absolute()


def test_a_problem_value_reaches_both_tools():
    tr = kt_spaces.translate(ROOT / "spaces/transpose.yaml", {"n": "4096"})
    assert tr.problem == {"n": 4096}
    kwargs = kt_spaces.tune_kernel_arguments(tr, with_arrays=False)
    params = {"TILE": 32, "TALL": 1}
    assert kwargs["problem_size"](params) == (128, 128)
    with pytest.raises(kt_spaces.Unsupported, match="not a problem value"):
        kt_spaces.translate(ROOT / "spaces/transpose.yaml", {"m": "1"})


def test_expressions_translate_with_muparser_precedence():
    py, names = kt_spaces.to_python("!SHARED == 1 || (A ^ 2 >= 4 && !(B == 0))", {"n": 8})
    assert names == {"SHARED", "A", "B"}
    for shared in (0, 1):
        for a in (1, 2):
            for b in (0, 1):
                expect = int(not shared) == 1 or (a**2 >= 4 and not b == 0)
                assert kt_spaces.evaluate(py, {"SHARED": shared, "A": a, "B": b}) == expect
    assert kt_spaces.evaluate(kt_spaces.to_python("ceil(n / 3) + round(2.5)", {"n": 8})[0], {}) == 6
    with pytest.raises(kt_spaces.Unsupported):
        kt_spaces.to_python("A ? 1 : 2")


def test_fills_are_the_specs_kinds_and_ranges():
    a = kt_spaces.fill(
        {"type": "float32", "count": 1000, "fill": "random", "seed": 5, "range": [-1, 1]}
    )
    assert a.dtype == np.float32 and -1 <= a.min() < 0 < a.max() < 1
    assert (kt_spaces.fill({"type": "int32", "count": 4, "output": True}) == 0).all()
    assert kt_spaces.fill({"type": "uint32", "count": 3, "fill": "iota"}).tolist() == [0, 1, 2]
    assert kt_spaces.fill({"type": "int64", "value": 7}) == np.int64(7)


def test_a_cut_off_cache_file_is_read(tmp_path):
    cache = tmp_path / "c.json"
    cache.write_text(
        '{\n"device_name": "X",\n"tune_params_keys": ["A"],\n"cache": {'
        '\n"1": {"A": 1, "block_size_x": 32, "time": 0.5},'
        '\n"2": {"A": 2, "block_size_x": 32, "time": "CompilationFailedConfig"},'
        '\n"3": {"A": 3, "block_'
    )
    entries = run.read_kt_cache(cache, ["A", "block_size_x"])
    assert entries == [({"A": 1, "block_size_x": 32}, 0.5), ({"A": 2, "block_size_x": 32}, None)]


FAKE_GPUTUNE = """\
import json, subprocess, sys, time
real, args = {real!r}, sys.argv[1:]
if args[0] == "list" or "--help" in args:
    sys.exit(subprocess.call([real] + args))
time.sleep({sleep})
config = {{"BLOCK": 256, "PPT": 1, "UNROLL": 1, "TILE": 0}}
print(json.dumps({{"search": {{"evaluated": 3, "wall_s": 0.1, "interrupted": False}},
                  "results": [{{"config": config, "median_ms": 1.0}}],
                  "status_counts": {{"ok": 3}}}}))
"""

FAKE_KT = """\
import argparse, json, time
p = argparse.ArgumentParser()
p.add_argument("spec"); p.add_argument("--cache"); p.add_argument("--result")
p.add_argument("--as-functions"); p.add_argument("--set", action="append")
a = p.parse_args()
with open(a.cache, "w") as f:
    f.write('{{\\n"cache": {{')
    for i, t in enumerate([2.0, 0.8]):
        c = {{"BLOCK": 256, "PPT": 1, "UNROLL": 1 + i, "TILE": 0, "block_size_x": 256, "time": t}}
        f.write("\\n" + json.dumps({{str(i): c}})[1:-1] + ",")
        f.flush()
time.sleep({sleep})
"""


def test_run_end_to_end_with_stand_ins(tmp_path):
    """run.py's whole path on the CPU: stand-ins for gputune's search and for Kernel Tuner (the
    latter past its time limit, so it is killed and its cache file read)."""
    real = gputune_binary()
    fake_g = tmp_path / "gputune"
    fake_g.write_text("#!" + sys.executable + "\n" + FAKE_GPUTUNE.format(real=real, sleep=0))
    fake_g.chmod(0o755)
    fake_kt = tmp_path / "kt.py"
    fake_kt.write_text(FAKE_KT.format(sleep=30))
    results = tmp_path / "RESULTS.md"
    out = tmp_path / "out"
    proc = subprocess.run(
        [
            sys.executable,
            str(HERE / "run.py"),
            "--gputune",
            str(fake_g),
            "--out",
            str(out),
            "--spaces",
            "point_in_polygon,stencil_chain",
            "--budget-s",
            "1",
            "--min-limit-s",
            "3",
            "--kt-script",
            str(fake_kt),
            "--results",
            str(results),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    raw = json.loads((out / "kt_compare.json").read_text())
    (row,) = raw["spaces"]
    assert row["space"] == "point_in_polygon" and row["configs"] == 152
    assert row["kernel_tuner"]["time_limit_hit"] and row["kernel_tuner"]["evaluated"] == 2
    assert row["kernel_tuner"]["best"]["time_ms"] == 0.8
    assert row["gputune"]["evaluated"] == 3 and not row["gputune"]["time_limit_hit"]
    assert raw["left_out"][0]["space"] == "stencil_chain"
    section = results.read_text()
    assert "| point_in_polygon | 152 | 2 (time limit) |" in section
    assert "stencil_chain: left out, 4 launches" in section
    assert section == "\n" + (out / "kt_compare.md").read_text()


@pytest.mark.parametrize("path", SPACES, ids=[p.stem for p in SPACES])
def test_kernel_tuner_source_compiles(path, tmp_path):
    """The source Kernel Tuner compiles (its #defines before the kernel) for the first and last
    config of its space, with its compile options; nvcc stands in for cupy's NVRTC here."""
    import shutil

    from kernel_tuner import util

    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    if not Path(nvcc).exists():
        pytest.skip("no nvcc")
    try:
        tr = kt_spaces.translate(path)
    except kt_spaces.Unsupported:
        pytest.skip("left out of the comparison")
    functions = kt_spaces.misparsed_restrictions(tr)
    _, space = kt_spaces.kernel_tuner_space_size(tr, as_functions=functions)
    kwargs = kt_spaces.tune_kernel_arguments(tr, with_arrays=False, as_functions=functions)
    names = list(kwargs["block_size_names"])
    util.append_default_block_size_names(names)  # as tune_kernel does
    source = Path(kwargs["kernel_source"]).read_text()
    for config in (space.list[0], space.list[-1]):
        params = dict(zip(kwargs["tune_params"], config))
        threads = util.get_thread_block_dimensions(params, names)
        grid = kwargs["problem_size"](params)
        _, text = util.prepare_kernel_string(
            kwargs["kernel_name"], source, params, grid, threads, names, "CUPY", None
        )
        cu = tmp_path / "kernel.cu"
        cu.write_text(text)
        options = [o.replace("--include-path=", "-I") for o in kwargs["compiler_options"]]
        options = [o.replace("--std=", "-std=") for o in options]
        proc = subprocess.run(
            [nvcc, "-arch=sm_90", "-cubin", "-o", str(tmp_path / "k.cubin"), *options, str(cu)],
            capture_output=True,
            text=True,
        )
        assert proc.returncode == 0, f"{params}: {proc.stderr[-2000:]}"


@pytest.mark.parametrize("path", SPACES, ids=[p.stem for p in SPACES])
def test_kt_tune_runs_kernel_tuner_through_a_stand_in_cupy(path, tmp_path):
    """kt_tune.py runs Kernel Tuner's real tune_kernel over the whole space, with CuPy stood in
    (stand_in/): every launch must pass the kernel's argument count, a valid block and grid and
    at most 48 KiB of dynamic shared memory, and the constant symbol must exist. Problem values
    are made small: only the arrays' sizes depend on them here."""
    try:
        tr = kt_spaces.translate(path)
    except kt_spaces.Unsupported:
        pytest.skip("left out of the comparison")
    small = [f"--set={k}=256" for k in tr.problem]
    functions = ",".join(map(str, kt_spaces.misparsed_restrictions(tr)))
    cache, result = tmp_path / "cache.json", tmp_path / "result.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE / "stand_in")] + sys.path)}
    proc = subprocess.run(
        [
            sys.executable,
            str(HERE / "kt_tune.py"),
            str(path),
            "--cache",
            str(cache),
            "--result",
            str(result),
            "--as-functions",
            functions,
            *small,
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = json.loads(result.read_text())
    size, _ = kt_spaces.kernel_tuner_space_size(
        tr, as_functions=kt_spaces.misparsed_restrictions(tr)
    )
    assert summary["evaluated"] == summary["valid"] == size
    assert summary["best"]["time_ms"] == 1.0 and summary["device_name"] == "Stand-in GPU"
    entries = run.read_kt_cache(cache, list(tr.kt["tune_params"]))
    assert len(entries) == size and all(t == 1.0 for _, t in entries)


# An example script written the way Kernel Tuner's own examples are (kt_examples.py compares
# those, which are not in this repository): a kernel file, NumPy arguments, tune_kernel.
EXAMPLE_KERNEL = """
__constant__ float weights[4];
__global__ void scale(float *out, const float *in, int n) {
  int i = blockIdx.x * block_size_x * tile + threadIdx.x;
  for (int t = 0; t < tile; t++, i += block_size_x) {
    if (i < n) out[i] = in[i] * weights[t % 4] + grid_size_x;
  }
}
"""
EXAMPLE_SCRIPT = """
import numpy
from collections import OrderedDict
from kernel_tuner import tune_kernel
from kernel_tuner.util import get_best_config

def tune():
    n = numpy.int32(100000)
    out = numpy.zeros(n).astype(numpy.float32)
    x = numpy.random.rand(n).astype(numpy.float32) + 1
    tune_params = OrderedDict(block_size_x=[32, 64, 128, 2048], tile=[1, 2, 4])
    results, env = tune_kernel("scale", "scale.cu", n, [out, x, n], tune_params,
                               grid_div_x=["block_size_x", "tile"],
                               restrictions=["block_size_x * tile >= 64"],
                               cmem_args={"weights": numpy.ones(4).astype(numpy.float32)},
                               answer=[x, None, None], atol=1e-3, iterations=9)
    get_best_config(results, "time")  # after tuning: never reached by the capture

if __name__ == "__main__":
    tune()
"""


def test_an_example_script_becomes_a_gputune_spec(tmp_path):
    import kt_examples

    (tmp_path / "scale.cu").write_text(EXAMPLE_KERNEL)
    (tmp_path / "scale.py").write_text(EXAMPLE_SCRIPT)
    capture = kt_examples.capture(tmp_path / "scale.py", tmp_path)
    assert capture["kernel_name"] == "scale"
    assert capture["problem_size"] == [100000]
    assert capture["answer"] == [True, False, False]
    assert capture["iterations"] == 9
    assert capture["arguments"][1]["min"] >= 1 and capture["arguments"][2]["value"] == 100000
    text = kt_examples.spec_text(capture, tmp_path / "scale.cu")
    assert "check: {rtol: 0, atol: 0.001}" in text
    assert "output: true" in text and "constant: true" in text
    assert 'baseline: {"block_size_x": 32, "tile": 2}' in text
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "scale.yaml").write_text(text)
    counts = run.gputune_counts(gputune_binary(), tmp_path / "specs")
    # 4 x 3 configs, 1 with fewer than 64 elements a block, 3 with blocks over 1024 threads.
    assert counts[str((tmp_path / "specs" / "scale.yaml").resolve())] == 8
    done = subprocess.run([gputune_binary(), "search", str(tmp_path / "specs" / "scale.yaml"),
                           "--compile-only", "--arch", "sm_90", "-q", "-j", "1"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
