"""The command line and the Python API are two faces of one session (gputune/session.h): the
same replayed search gives the same records, options and replay rule in both."""

import json
import os
import subprocess

import pytest

import gputune

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RECORDING = os.path.join(REPO, "db", "recordings", "transpose_n_4096_NVIDIA_H200.csv")
# The spec the recording was made with (db/recordings/README.md).
RECORDED_SPEC = os.path.join(REPO, "db", "recordings", "spaces-f402b6b", "spaces",
                             "transpose.yaml")
CLI = os.environ.get("GPUTUNE_CLI", os.path.join(REPO, "build", "gputune"))

needs_cli = pytest.mark.skipif(not os.access(CLI, os.X_OK),
                               reason="no gputune program at %s (GPUTUNE_CLI)" % CLI)


def cli(*args):
    done = subprocess.run([CLI] + list(args), capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr


@needs_cli
def test_a_replayed_search_gives_the_clis_records(tmp_path):
    options = ["--strategy", "random", "--seed", "3", "--budget", "30", "--top", "1000000"]
    rc, out, err = cli("search", "--replay", RECORDING, "--json", "-q", *options)
    assert rc == 0, err
    expected = json.loads(out)
    r = gputune.search(replay=RECORDING, strategy="random", seed=3, budget=30, progress=False)
    assert r.records == expected["results"] + expected["failed"]
    assert r.device["name"] == expected["device"]["name"]
    assert set(r.record) == set(expected["search"])
    for key in ("strategy", "seed", "evaluated", "reused", "interrupted", "gpus"):
        assert r.record[key] == expected["search"][key], key
    assert r.db is None  # a replay without db= stores nothing, as on the command line


@needs_cli
def test_one_replay_rule(tmp_path):
    db = str(tmp_path / "replayed.db")
    r = gputune.search(replay=RECORDING, db=db, strategy="random", seed=3, budget=10,
                       progress=False)
    assert r.db == db
    # A database replays the workload its spec names, from both front ends.
    again = gputune.search(RECORDED_SPEC, set={"n": 4096}, replay=db, strategy="random", seed=3,
                           budget=10, progress=False)
    rc, out, err = cli("search", RECORDED_SPEC, "--set", "n=4096", "--replay", db, "--strategy",
                       "random", "--seed", "3", "--budget", "10", "--json", "-q", "--top",
                       "1000000")
    assert rc == 0, err
    expected = json.loads(out)
    assert again.records == expected["results"] + expected["failed"]
    # ... and a database without a spec is refused by both, with one message.
    with pytest.raises(gputune.UsageError, match="give the SPEC") as caught:
        gputune.search(replay=db, progress=False)
    rc, _, err = cli("search", "--replay", db)
    assert rc == 64 and str(caught.value) in err


@needs_cli
def test_a_second_size_is_pruned_by_the_first_in_both(tmp_path):
    db = str(tmp_path / "prior.db")
    other = RECORDING.replace("n_4096", "n_8192")
    gputune.search(replay=other, db=db, progress=False)
    r = gputune.search(replay=RECORDING, db=str(tmp_path / "python.db"), progress=False)
    assert r.prior_pruning is None  # no prior data there: nothing changes
    import shutil
    shutil.copy(db, tmp_path / "cli.db")
    pruned = gputune.search(replay=RECORDING, db=db, progress=False)
    assert pruned.prior_pruning["prior_workloads"] == 1
    assert 0 < pruned.prior_pruning["pruned"] < pruned.prior_pruning["considered"]
    assert pruned.record["evaluated"] + pruned.prior_pruning["pruned"] <= \
        pruned.prior_pruning["considered"] + 1
    rc, out, err = cli("search", "--replay", RECORDING, "--db", str(tmp_path / "cli.db"),
                       "--json", "-q")
    assert rc == 0, err
    assert json.loads(out)["prior_pruning"]["pruned"] == pruned.prior_pruning["pruned"]
    whole = gputune.search(replay=RECORDING, db=str(tmp_path / "cli.db"), no_prune=True,
                           force=True, progress=False)
    assert whole.prior_pruning["pruned"] == 0
    assert whole.prior_pruning["skipped"] == "--no-prune"
    assert whole.record["evaluated"] > pruned.record["evaluated"]


def test_every_search_option_is_reachable():
    import inspect
    python = set(inspect.signature(gputune.search).parameters)
    # gputune search's options, as Python spells them (top is the table's length only).
    for option in ("spec", "set", "db", "strategy", "budget", "seed", "force", "no_prior",
                   "no_prune", "prune_above", "replay", "device", "jobs", "cache_dir", "no_cache", "timeout_floor",
                   "timeout_factor", "warm_cache", "max_seconds", "fast", "sampling", "compile_only",
                   "arch", "profiler", "check", "atol", "rtol", "progress"):
        assert option in python, option


@needs_cli
def test_a_changed_check_is_the_clis(tmp_path):
    options = ["--set", "n=4096", "--budget", "5"]
    rc, out, err = cli("search", RECORDED_SPEC, "--replay", RECORDING, "--json", "-q",
                       "--check", "baseline", "--atol", "0.5", *options)
    assert rc == 0, err
    assert json.loads(out)["check_override"]["given"] == "--check baseline --atol 0.5"
    r = gputune.search(RECORDED_SPEC, set={"n": 4096}, replay=RECORDING, budget=5,
                       check="baseline", atol=0.5, progress=False)
    assert r.check_override == "--check baseline --atol 0.5"
    assert r.outputs_checked
    with pytest.warns(UserWarning, match="NOT checked"):
        r = gputune.search(RECORDED_SPEC, set={"n": 4096}, replay=RECORDING, budget=5,
                           check="none", progress=False)
    assert not r.outputs_checked and r.check_override == "--check none"
    with pytest.raises(gputune.UsageError, match="check=maybe: expected none"):
        gputune.search(RECORDED_SPEC, set={"n": 4096}, replay=RECORDING, check="maybe",
                       progress=False)


def test_watchdog_and_timing_options_are_checked_by_the_core(repo):
    spec = os.path.join(repo, "spaces", "transpose.yaml")
    with pytest.raises(gputune.UsageError, match="timeout_floor=") as caught:
        gputune.search(spec, timeout_floor=0, no_cache=True, progress=False)
    assert "--timeout-floor" not in str(caught.value)


def test_an_unknown_profiler_is_refused_with_the_choices(repo):
    spec = os.path.join(repo, "spaces", "transpose.yaml")
    with pytest.raises(gputune.UsageError, match="expected cupti, ncu or auto"):
        gputune.search(spec, strategy="bottleneck", profiler="nvprof", no_cache=True,
                       progress=False)


def _t1_with_default_outside_values(repo, tmp_path):
    """tests/formats/scaled_sum.json with TILE's Default 3, which is not among its Values."""
    import shutil
    formats = os.path.join(repo, "tests", "formats")
    with open(os.path.join(formats, "scaled_sum.json")) as f:
        text = f.read()
    assert '"Default": 1\n' in text
    t1 = tmp_path / "scaled_sum.json"
    t1.write_text(text.replace('"Default": 1\n', '"Default": 3\n', 1))
    shutil.copy(os.path.join(formats, "scaled_sum.cu"), tmp_path / "scaled_sum.cu")
    return str(t1)


@needs_cli
def test_a_specs_warning_reaches_both_front_ends_once(repo, tmp_path):
    import warnings
    t1 = _t1_with_default_outside_values(repo, tmp_path)
    rc, _, err = cli("search", t1, "--compile-only", "--arch", "sm_90", "-j", "2", "-q")
    assert rc == 0, err
    lines = [line for line in err.splitlines() if line.startswith("gputune: warning: ")]
    assert len(lines) == 1 and "'TILE' Default 3 is not among its Values" in lines[0], err
    for call in (lambda: gputune.search(t1, compile_only=True, arch="sm_90", jobs=2,
                                        progress=False),
                 lambda: gputune.transforms(t1)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        said = [str(w.message) for w in caught if str(w.message).startswith("gputune: ")]
        assert said == [lines[0].replace("gputune: warning: ", "gputune: ")], said
