import os

import pytest

try:
    import matplotlib
    matplotlib.use("Agg")  # plots in tests render off screen
except ImportError:
    pass

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def pytest_collection_modifyitems(config, items):
    import gputune
    if gputune.gpus():
        return
    skip = pytest.mark.skip(reason="no GPU (gputune.gpus() is empty)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def repo():
    return REPO
