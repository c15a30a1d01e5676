"""Run-time selection from release databases, as applications get it (gputune::runtime)."""

import json
import os
import warnings

from . import _core


def select(spec_or_kernel, db, *, device_name=None, cc=None, sm_count=None, strict=False,
           **problem):
    """The config a release database gives ``spec_or_kernel`` at ``problem`` values.

    ``spec_or_kernel`` is a spec file or shipped spec's name, or a kernel's name as the release
    database stores it; ``db`` a release file or a list of them (the user's first). Without a
    GPU, describe one: ``device_name="NVIDIA H100 80GB HBM3", cc="9.0", sm_count=132``.

    Returns the same record as ``gputune select --json``: ``config``, ``tier`` (override,
    exact, nearest_problem, same_family, model, default), ``distance``, ``predicted_ms``,
    ``layer``, ``problem``, ``launches`` and ``explanation``. Bad input (a missing, foreign or
    newer file, ...) is a RuntimeWarning and the default tier, or an error with ``strict``.

        gputune.select("spaces/sgemm.yaml", db="sgemm.gtrel", m=3000, n=3000, k=1000)
    """
    dbs = [db] if isinstance(db, (str, os.PathLike)) else list(db)
    raw = _core.select(os.fspath(spec_or_kernel), [(k, str(v)) for k, v in problem.items()],
                       [os.fspath(d) for d in dbs], device_name or "",
                       "" if cc is None else str(cc), int(sm_count or 0), bool(strict))
    for warning in raw["warnings"]:
        warnings.warn(warning, RuntimeWarning, stacklevel=2)
    return json.loads(raw["json"])
