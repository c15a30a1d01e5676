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
