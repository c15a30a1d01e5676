"""gputune.select() and `gputune select --json` give the same answer from one release file."""

import json
import os
import sqlite3
import subprocess

import pytest

import gputune

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CLI = os.environ.get("GPUTUNE_CLI", os.path.join(REPO, "build", "gputune"))
H100 = dict(device_name="NVIDIA H100", cc="9.0", sm_count=132)

SPEC = {"problem": {"n": 8192},
        "parameters": {"TILE": [16, 32, 64], "VEC": [1, 2, 4]},
        "constraints": ["n % TILE == 0"],
        "launch": [{"kernel": "transpose", "block": ["TILE / VEC", "TILE"],
                    "grid": ["ceil(n / TILE)", "ceil(n / TILE)"]}],
        "baseline": {"TILE": 32, "VEC": 1}}


def release_file(path):
    """A release database written table by table (docs/release-format.md)."""
    db = sqlite3.connect(path)
    db.executescript("""
PRAGMA application_id = 1196708421; PRAGMA user_version = 1;
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE kernels (id INTEGER PRIMARY KEY, name TEXT, source_hash TEXT, space_hash TEXT,
  spec_json TEXT);
CREATE TABLE devices (id INTEGER PRIMARY KEY, name TEXT, cc_major INTEGER, cc_minor INTEGER,
  sm_count INTEGER, toolchain TEXT);
CREATE TABLE configs (id INTEGER PRIMARY KEY, kernel_id INTEGER, config_json TEXT,
  is_baseline INTEGER);
CREATE TABLE choices (kernel_id INTEGER, device_id INTEGER, problem_json TEXT, rank INTEGER,
  config_id INTEGER, median_ms REAL, spread REAL, speedup_over_baseline REAL,
  margin_to_runner_up REAL, registers INTEGER, shared_bytes INTEGER, provenance TEXT);
CREATE TABLE observations (kernel_id INTEGER, device_id INTEGER, problem_json TEXT,
  config_json TEXT, median_ms REAL);
CREATE TABLE overrides (kernel TEXT, device_name TEXT, problem_json TEXT, config_json TEXT);
""")
    # A name that is no shipped spec's: a shipped spec's name is selected with its source hash.
    db.execute("INSERT INTO kernels VALUES (1, 'tiled_transpose', 'x', 'y', ?)",
               (json.dumps(SPEC),))
    db.execute("INSERT INTO devices VALUES (1, 'NVIDIA H100', 9, 0, 132, '13.0')")
    db.execute("INSERT INTO configs VALUES (1, 1, '{\"TILE\":32,\"VEC\":1}', 1)")
    db.execute("INSERT INTO configs VALUES (2, 1, '{\"TILE\":64,\"VEC\":4}', 0)")
    db.execute("INSERT INTO choices VALUES (1, 1, '{\"n\":4096}', 0, 2, 0.1, 0.01, 2.0, 0.05,"
               " 32, 0, 'test')")
    db.commit()
    db.close()
    return path


def test_select_answers_with_tier_config_and_geometry(tmp_path):
    db = release_file(str(tmp_path / "r.gtrel"))
    exact = gputune.select("tiled_transpose", db=db, n=4096, **H100)
    assert exact["tier"] == "exact"
    assert exact["config"] == {"TILE": 64, "VEC": 4}
    assert exact["launches"][0]["grid"] == [64, 64, 1]
    nearest = gputune.select("tiled_transpose", db=[db], n=6144, **H100)
    assert nearest["tier"] == "nearest_problem"
    assert "exact:" in nearest["explanation"]
    missed = gputune.select("tiled_transpose", db=db, n=6000, **H100)  # 64 and 32 divide not
    assert missed["tier"] == "default"


def test_bad_input_warns_or_raises_in_strict_mode(tmp_path):
    with pytest.warns(RuntimeWarning, match="not found"):
        answer = gputune.select("tiled_transpose", db=str(tmp_path / "none.gtrel"), n=4096,
                                **H100)
    assert answer["tier"] == "default"
    with pytest.raises(gputune.Error, match="not found"):
        gputune.select("tiled_transpose", db=str(tmp_path / "none.gtrel"), strict=True, **H100)
    # In Python's spelling: the keywords select() takes, not the command line's options.
    with pytest.raises(gputune.UsageError, match="needs device_name, cc and sm_count together") \
            as caught:
        gputune.select("tiled_transpose", db=str(tmp_path / "none.gtrel"), device_name="X")
    assert "--" not in str(caught.value)


@pytest.mark.skipif(not os.access(CLI, os.X_OK), reason="no gputune program at %s" % CLI)
def test_python_and_the_cli_agree(tmp_path):
    db = release_file(str(tmp_path / "r.gtrel"))
    for n in (4096, 5000, 6144, 12288):
        done = subprocess.run([CLI, "select", "tiled_transpose", "--set", "n=%d" % n, "--db", db,
                               "--device-name", "NVIDIA H100", "--cc", "9.0", "--sm-count",
                               "132", "--json"], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == gputune.select("tiled_transpose", db=db, n=n, **H100)
