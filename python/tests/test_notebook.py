"""The example notebook runs from top to bottom, so it cannot rot: with nbclient (and
ipykernel) as a notebook, else its code cells in order as a script. Without a GPU it compiles
every variant and replays the recording beside it; with one it tunes for real."""

import json
import os
import shutil

import pytest

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "examples")
NOTEBOOK = os.path.join(EXAMPLES, "tune_in_notebook.ipynb")
RECORDING = os.path.join(EXAMPLES, "tune_in_notebook.recording.csv")


def _workdir(tmp_path):
    if os.path.exists(RECORDING):
        shutil.copy(RECORDING, tmp_path)
    return str(tmp_path)


def _have_nbclient():
    try:
        import ipykernel  # noqa: F401
        import nbclient  # noqa: F401
        import nbformat  # noqa: F401
        return True
    except ImportError:
        return False


@pytest.mark.skipif(not _have_nbclient(), reason="nbclient, nbformat or ipykernel missing")
def test_notebook_executes(tmp_path):
    import nbformat
    from nbclient import NotebookClient
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": _workdir(tmp_path)}}).execute()
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    text = json.dumps([o for o in outputs])
    assert "compile_only" in text or "registers" in text
    if os.path.exists(RECORDING):
        assert "image/png" in text  # the plots were drawn


def test_notebook_code_runs_as_a_script(tmp_path, monkeypatch):
    """The same cells without Jupyter (where nbclient is missing, e.g. on the GPU machine)."""
    with open(NOTEBOOK) as f:
        nb = json.load(f)
    monkeypatch.chdir(_workdir(tmp_path))
    scope = {"__name__": "__notebook__"}
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
            exec(compile(source, "tune_in_notebook.ipynb", "exec"), scope)
    assert scope["compiled"].df.status.eq("ok").all()
    if os.path.exists(RECORDING) or scope["gputune"].gpus():
        assert scope["results"].best is not None
