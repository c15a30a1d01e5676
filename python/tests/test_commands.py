"""The command line's commands from Python (every one; best, list, release, merge, import
kt-cache, export and plan compared here) and search's options: each gives what the command
gives, in the same JSON shape, through the same session code; each test compares the two front
ends."""

import json
import os
import re
import subprocess

import pytest

import gputune

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RECORDING = os.path.join(REPO, "db", "recordings", "transpose_n_4096_NVIDIA_H200.csv")
# The spec the recording was made with (db/recordings/README.md).
RECORDED_SPEC = os.path.join(REPO, "db", "recordings", "spaces-f402b6b", "spaces",
                             "transpose.yaml")
FORMATS = os.path.join(REPO, "tests", "formats")
CLI = os.environ.get("GPUTUNE_CLI", os.path.join(REPO, "build", "gputune"))

pytestmark = pytest.mark.skipif(not os.access(CLI, os.X_OK),
                                reason="no gputune program at %s (GPUTUNE_CLI)" % CLI)


def cli(*args):
    done = subprocess.run([CLI] + [str(a) for a in args], capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr


def cli_json(*args):
    rc, out, err = cli(*args)
    assert rc == 0, err
    return json.loads(out)


def replayed(db, seed):
    gputune.search(replay=RECORDING, db=str(db), strategy="random", seed=seed, budget=12,
                   progress=False)
    return str(db)


# Each command of `gputune --help` and the Python function that does what it does. A new
# command fails test_every_command_is_reachable_from_python until it is here (and in Python).
# Not listed by --help, so not here: profile-launch, which ncu runs in a process of its own.
PYTHON_OF_COMMAND = {
    "search": "search", "best": "best", "transforms": "transforms", "source": "source",
    "show": "workloads", "analyze": "analyze", "list": "specs", "export": "export",
    "import": "import_kernel_tuner", "release": "release", "select": "select", "plan": "plan",
    "merge": "merge",
}


def test_every_command_is_reachable_from_python():
    rc, out, err = cli("--help")
    assert rc == 0, err
    listed = out.split("commands:\n", 1)[1].split("\n\n", 1)[0]
    commands = set(re.findall(r"^  ([a-z][a-z-]*)", listed, re.MULTILINE))
    assert {"search", "release", "merge"} <= commands, listed
    assert commands == set(PYTHON_OF_COMMAND)
    for command, name in PYTHON_OF_COMMAND.items():
        assert callable(getattr(gputune, name, None)), (command, name)
        assert name in gputune.__all__, name


def test_specs_gives_the_clis_list():
    # The same specs, wherever each front end finds them (an installed package holds its own).
    def rows(specs):
        return sorted((s["name"], s.get("variants"), s.get("product"), s.get("error"))
                      for s in specs)
    by_cli = cli_json("list", "--json")
    by_python = gputune.specs()
    assert rows(by_python) == rows(by_cli)
    transpose = [s for s in by_python if s["name"] == "transpose"]
    assert transpose and transpose[0]["variants"] > 0 and "error" not in transpose[0]


def test_every_search_option_of_the_command_line_is_a_python_option():
    rc, out, err = cli("search", "--help")
    assert rc == 0, err
    cli_options = set(re.findall(r"^ {1,4}(?:-\w \[ )?--([a-z][a-z-]*)", out, re.MULTILINE))
    # What only the command line has (its output) and what Python takes as arguments of its own.
    own = {"spec", "set", "db", "json", "help", "top", "quiet", "warnings"}
    python = {name.replace("_", "-") for name in gputune.search_options()}
    assert cli_options - own == python
    assert {"jobs", "no-prior", "max-seconds", "shard", "mpi"} <= python


def test_a_search_option_is_checked_once_for_both(tmp_path):
    spec = os.path.join(REPO, "spaces", "transpose.yaml")
    rc, _, err = cli("search", spec, "--jobs", "0", "--compile-only")
    with pytest.raises(gputune.UsageError) as caught:
        gputune.search(spec, jobs=0, compile_only=True, progress=False)
    # One check, one message: Python's spells the option as the keyword it was given.
    assert rc == 64 and caught.value.code == 64 and "--jobs 0" in err
    assert str(caught.value).startswith("jobs=0: ")
    assert str(caught.value).replace("jobs=0", "--jobs 0") in err
    with pytest.raises(gputune.UsageError, match="no search option 'jobz'"):
        gputune.search(spec, jobz=2, progress=False)


def test_show_best_and_python_give_one_workload_shape(tmp_path):
    db = replayed(tmp_path / "r.db", 3)
    shown = cli_json("show", "--db", db, "--json")
    assert shown == gputune._core.workloads(db)
    (w,) = shown
    assert w["best"]["config"] and w["device"]["name"] and w["problem"] == {"n": 4096}
    best = cli_json("best", RECORDED_SPEC, "--set", "n=4096", "--db", db, "--json")
    assert best == gputune.best(RECORDED_SPEC, set={"n": 4096}, db=db) == shown
    listing = gputune.workloads(db)
    assert listing.best_ms[0] == w["best"]["median_ms"] and listing.workload[0] == w["workload"]
    # Nothing at another size: the error names the size that was measured, as the CLI's does.
    with pytest.raises(gputune.DbError, match="measured at n=4096, not at n=2048"):
        gputune.best(RECORDED_SPEC, set={"n": 2048}, db=db)


def test_merge_gives_the_clis_counts(tmp_path):
    a, b = replayed(tmp_path / "a.db", 3), replayed(tmp_path / "b.db", 4)
    by_cli = cli_json("merge", tmp_path / "cli.db", a, b, "--json")
    by_python = gputune.merge(tmp_path / "py.db", [a, b])
    assert by_python == by_cli and by_python[0]["workloads_added"] == 1
    assert cli_json("show", "--db", tmp_path / "cli.db", "--json")[0]["ok"] == \
        gputune.workloads(tmp_path / "py.db").ok[0]


def test_import_kernel_tuner_and_t4_export_give_the_clis(tmp_path):
    cache, spec = os.path.join(FORMATS, "kt_cache.json"), os.path.join(FORMATS, "scaled_sum.json")
    by_cli = cli_json("import", "kt-cache", cache, "--spec", spec, "--db", tmp_path / "cli.db",
                      "--json")
    by_python = gputune.import_kernel_tuner(cache, spec, db=tmp_path / "py.db")
    assert by_python == by_cli
    assert (by_python["ok"], by_python["failures"], by_python["outside"]) == (3, 1, 2)
    db = str(tmp_path / "py.db")
    files = cli_json("export", "--format", "t4", "--db", db, "--out", tmp_path / "cli", "--json")
    written = gputune.export(db, tmp_path / "py", format="t4")
    assert [dict(f, path=os.path.basename(f["path"])) for f in written] == \
        [dict(f, path=os.path.basename(f["path"])) for f in files]
    for mine, theirs in zip(written, files):
        with open(mine["path"]) as m, open(theirs["path"]) as t:
            assert json.load(m) == json.load(t)
    with pytest.raises(gputune.UsageError, match="expected recording or t4"):
        gputune.export(db, tmp_path / "x", format="csv")


def test_plan_gives_the_clis_shards():
    specs = [os.path.join(REPO, "spaces", name + ".yaml") for name in ("transpose", "reduce")]
    by_cli = cli_json("plan", *specs, "--sweep", "n=1024,2048", "--shards", "3",
                      "--search-options=--fast", "--json")
    by_python = gputune.plan(specs, sweep={"n": [1024, 2048]}, shards=3,
                             search_options="--fast")
    assert by_python == by_cli and len(by_python) == 3
    assert sum(len(shard["workloads"]) for shard in by_python) == 4


def test_release_gives_the_clis_release(tmp_path):
    db = replayed(tmp_path / "r.db", 3)
    by_cli = cli_json("release", db, "-o", tmp_path / "cli.gtrel", "--no-code", "--json")
    heard = []
    by_python = gputune.release(db, tmp_path / "py.gtrel", no_code=True, progress=heard.append)
    assert {k: v for k, v in by_python.items() if k not in ("output", "dump")} == \
        {k: v for k, v in by_cli.items() if k not in ("output", "dump")}
    assert by_python["choices"] >= 1 and by_python["code"] == 0
    # The same choices, whichever front end wrote them (the dump's header names the file's
    # creation time).
    def choices(path):
        return [line for line in gputune.release_dump(path).splitlines()
                if not line.startswith("#") and "created_at" not in line]
    assert choices(by_python["output"]) == choices(by_cli["output"])
    with pytest.raises(gputune.UsageError, match="embed and no_code=True exclude each other"):
        gputune.release(db, tmp_path / "x.gtrel", embed="sm_90", no_code=True)
    with pytest.raises(gputune.UsageError, match="top=0") as caught:
        gputune.release(db, tmp_path / "x.gtrel", top=0, no_code=True)
    assert "--" not in str(caught.value)
