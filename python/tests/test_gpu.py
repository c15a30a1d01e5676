"""On a GPU: a notebook-style tuning end to end (numpy inputs, a numpy reference), and a shipped
spec. Skipped, visibly, without a GPU."""

import os

import numpy as np
import pytest

import gputune
from scale_kernel import tune_kwargs

pytestmark = pytest.mark.gpu


def test_tune_a_notebook_kernel_end_to_end(tmp_path):
    db = str(tmp_path / "tune.db")
    x, kwargs = tune_kwargs(db=db)
    kwargs["reference"] = [np.float32(2.5) * x]
    r = gputune.tune(**kwargs)
    df = r.df
    print(r.summary())
    print(df.drop(columns=["message"]).to_string())
    assert len(df) == 9
    assert set(df.status) == {"ok"}, df[["THREADS", "ITEMS", "status", "message"]]
    assert (df.median_ms > 0).all() and (df.gbs > 0).all()
    assert r.best is not None and r.device["name"]
    assert len(r.history) == 9 + 1  # the baseline, then every variant

    # A rerun measures nothing again; load() sees the same.
    again = gputune.tune(**kwargs)
    assert again.record["evaluated"] == 0
    assert gputune.load(db).best == r.best

    export = os.environ.get("GPUTUNE_EXPORT_DIR")
    if export:
        r.export_recording(os.path.join(export, "scale.recording.csv"))

    # A reference that no variant matches: the baseline fails its check.
    kwargs["reference"] = [np.float32(2.5) * x + 1]
    kwargs["db"] = str(tmp_path / "wrong.db")
    with pytest.raises(gputune.SpecError, match="wrong_answer"):
        gputune.tune(**kwargs)


def test_shipped_spec(tmp_path):
    r = gputune.search("transpose", set={"n": 1024}, strategy="random", budget=8, seed=2,
                       db=str(tmp_path / "t.db"), progress=False)
    assert len(r.df) >= 8
    assert r.best is not None
    fig = r.plot_heatmap("TILE", "MERGE_Y")
    assert fig is not None


CHECKED_SOURCE = r"""
extern "C" __global__ void scale_checked(float* out, const float* x, float a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + (WRONG && i == n / 2 ? 1.0f : 0.0f);
}
"""


def test_tune_with_a_check_function(tmp_path):
    """A function judges the outputs: WRONG 1 is a wrong answer with its message, the baseline
    included; the arrays come shaped as given."""
    x = np.random.default_rng(3).random((256, 256), dtype=np.float32)
    calls = []

    def close(outputs, inputs):
        calls.append(1)
        assert outputs["out"].shape == (256, 256) and inputs["x"].shape == (256, 256)
        np.testing.assert_allclose(outputs["out"], 2.5 * inputs["x"], rtol=1e-6)

    kwargs = dict(source=CHECKED_SOURCE, name="scale_checked",
                  params={"THREADS": [64, 128], "WRONG": [0, 1]},
                  args={"out": gputune.Out(np.empty_like(x)), "x": x, "a": np.float32(2.5),
                        "n": "n"},
                  block=["THREADS"], grid=["ceil(n / THREADS)"], problem={"n": x.size},
                  check=close, db=str(tmp_path / "check.db"), fast=True, progress=False)
    r = gputune.tune(**kwargs)
    df = r.df
    print(df.drop(columns=["message"]).to_string())
    assert len(calls) == 4, "each variant once, the baseline included"
    assert set(df[df.WRONG == 0].status) == {"ok"}, df[["THREADS", "WRONG", "status", "message"]]
    wrong = df[df.WRONG == 1]
    assert set(wrong.status) == {"wrong_answer"}
    assert all(m.startswith("check close raised AssertionError") for m in wrong.message)

    # A wrong baseline is judged like any variant: stored as a wrong answer, no error.
    def right(outputs):
        return bool(np.allclose(outputs["out"], 2.5 * x, rtol=1e-6))

    r = gputune.tune(**dict(kwargs, check=right, baseline={"THREADS": 64, "WRONG": 1},
                            db=str(tmp_path / "baseline.db")))
    assert r.best is not None and r.best["WRONG"] == 0
    assert set(r.df[r.df.WRONG == 1].message) == {"check right returned False"}
