"""The transformation engine's knobs from Python: gputune.transforms() and gputune.source()
agree with ``gputune transforms`` and ``gputune source`` (tests/fixtures/engine)."""

import json
import os
import subprocess

import pytest

import gputune

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIXTURES = os.path.join(REPO, "tests", "fixtures", "engine")
CLI = os.environ.get("GPUTUNE_CLI", os.path.join(REPO, "build", "gputune"))
needs_cli = pytest.mark.skipif(not os.access(CLI, os.X_OK),
                               reason="no gputune program at %s (GPUTUNE_CLI)" % CLI)


def fixture(name):
    return os.path.join(FIXTURES, name)


def test_transforms_lists_the_specs_knobs_then_the_engines_others():
    report = gputune.transforms(fixture("vector_add_int.yaml"))
    names = [t["name"] for t in report["transforms"]]
    assert names[:4] == ["thread_merge_x", "merge_layout", "block_merge_x", "launch_bounds"]
    assert {"unroll", "thread_merge_y", "pad_shared"} <= set(names[4:])
    bounds = report["transforms"][3]
    assert bounds["applies"] and bounds["listed"] and bounds["engine"]
    assert [v["value"] for v in bounds["values"] if v["legal"]] == [0, 2]
    assert bounds["places"][0]["file"].endswith("vector_add_int.cu")


def test_transforms_say_where_the_engine_cannot_parse():
    report = gputune.transforms(fixture("byte_distance_int.yaml"))
    assert ("byte_distance_int.cu:6:21: error: use of undeclared identifier '__vabsdiffu4'"
            in report["note"])


def test_source_gives_the_variants_kernel_file_and_its_diff():
    source = gputune.source(fixture("vector_add_int.yaml"), config={"launch_bounds": 2})
    assert "__global__ void __launch_bounds__(256, 2) vector_add(" in source
    diff = gputune.source(fixture("vector_add_int.yaml"), config={"launch_bounds": 2}, diff=True)
    assert diff.startswith("--- " + fixture("vector_add_int.cu") + "\n")
    assert "\n+__global__ void __launch_bounds__(256, 2) vector_add(" in diff
    assert gputune.source(fixture("vector_add_int.yaml"), diff=True) == ""  # the baseline


def test_variant_source_has_the_merged_launches():
    variant = gputune.variant_source(fixture("stencil2d_int.yaml"),
                                     config={"block_merge_x": 2, "block_merge_y": 3})
    launch = variant["launches"][0]
    assert launch["block"] == [64, 24, 1]
    assert launch["grid"] == [16, 22, 1]
    assert launch["trailing_arguments"] == [32, 65]


def test_a_variant_is_chosen_one_way():
    with pytest.raises(gputune.UsageError, match="give one"):
        gputune.variant_source(fixture("vector_add_int.yaml"), config={}, index=0)
    with pytest.raises(gputune.UsageError, match="is not a config"):
        gputune.variant_source(fixture("vector_add_int.yaml"), index=24)


@needs_cli
def test_the_command_line_says_the_same():
    done = subprocess.run([CLI, "transforms", fixture("matmul_int.yaml"), "--json"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == gputune.transforms(fixture("matmul_int.yaml"))
    done = subprocess.run([CLI, "source", fixture("vector_add_int.yaml"), "--config",
                           '{"launch_bounds": 2}', "--json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == gputune.variant_source(fixture("vector_add_int.yaml"),
                                                             config={"launch_bounds": 2})


def test_every_option_of_the_engines_commands_is_reachable():
    import inspect
    # gputune transforms' and gputune source's options, as Python spells them (--json is the
    # dict variant_source() returns).
    assert {"spec", "set"} <= set(inspect.signature(gputune.transforms).parameters)
    for function in (gputune.source, gputune.variant_source):
        options = set(inspect.signature(function).parameters)
        assert {"spec", "set", "config", "index", "best", "db"} <= options, function
    assert "diff" in inspect.signature(gputune.source).parameters
