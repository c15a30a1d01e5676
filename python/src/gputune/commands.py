"""The command line's other commands from Python: release, merge, import kt-cache, export
(recordings and T4) and plan. Each builds the session's own request and returns what the
command writes with --json, so a notebook can ship what it tuned without the command line."""

import os
import sys

from . import _core
from ._errors import DbError
from .session import _overrides, number_text, open_spec, warn_all


def _paths(items):
    if isinstance(items, (str, os.PathLike)):
        return [os.fspath(items)]
    return [os.fspath(item) for item in items]


def release(databases, output, *, spec=None, embed=None, no_code=False, top=5, kernel=None,
            force=False, commit="", jobs=None, cache=True, progress=True):
    """Builds a release database (``gputune release DB... -o OUTPUT``): per kernel, GPU and
    problem point, the best config and those within its noise (at most ``top``), with compiled
    code for ``embed`` ("sm_90,sm_80"; None: the GPUs measured) unless ``no_code``. spec: spec
    files whose kernel sources to compile (default: those the databases recorded); kernel: only
    these kernel names. cache: the module cache (True, False or a folder). progress: True
    prints the command's progress lines on stderr, a function hears each line, False none;
    its warnings are raised as warnings either way. Returns ``gputune release --json``'s
    summary: output, dump (the text dump beside it), kernels, devices, problems, choices,
    configs, code, code_targets."""
    request = _core.ReleaseRequest()
    request.databases = _paths(databases)
    request.output = os.fspath(output)
    request.specs = [] if spec is None else _paths(spec)
    request.embed = embed or ""
    request.no_code = bool(no_code)
    request.top = int(top)
    request.kernels = [] if kernel is None else ([kernel] if isinstance(kernel, str)
                                                  else list(kernel))
    request.force = bool(force)
    request.commit = commit
    if jobs is not None:
        request.jobs = int(jobs)
    if cache is False:
        request.use_cache = False
    elif cache is not True:
        request.cache_dir = os.fspath(cache)

    def say(line):
        if line.startswith("warning: "):
            warn_all([line[len("warning: "):]], stacklevel=4)
        elif callable(progress):
            progress(line)
        elif progress:
            print(line, file=sys.stderr)

    return _core.release(request, say)


def release_dump(path):
    """The text dump of a release database (``gputune release --dump PATH``)."""
    return _core.release_dump(os.fspath(path))


def merge(output, inputs):
    """Merges result databases into ``output`` (``gputune merge OUT IN...``), created if
    missing; returns what each input brought, as ``gputune merge --json`` lists it."""
    merged = _core.merge(os.fspath(output), _paths(inputs))
    warn_all(merged["warnings"])
    return merged["result"]


def import_kernel_tuner(file, spec, *, set=None, db="gputune.db", cc=None, sm_count=None):
    """Stores a Kernel Tuner cache file or store_results output as prior data for ``spec``'s
    kernel at its problem values (``gputune import kt-cache FILE --spec SPEC``); returns
    ``gputune import kt-cache --json``'s record: workload, ok, failures, unchanged, outside,
    defaulted, gpu, releasable. Importing the same file again stores nothing new. ``cc`` ("9.0")
    and ``sm_count`` (132) name the GPU it was measured on, so that release() can ship the
    results (a file that holds Kernel Tuner's environment gives them itself)."""
    imported = _core.import_kernel_tuner(os.fspath(file), open_spec(spec, set), os.fspath(db),
                                         "" if cc is None else str(cc),
                                         0 if sm_count is None else int(sm_count))
    warn_all(imported["warnings"])
    return imported["result"]


def export(db="gputune.db", out=".", *, workload=None, format="recording", commit=""):
    """Writes a database's workloads (or one) into the folder ``out`` (``gputune export``):
    text recordings that ``search(replay=...)`` answers from, or with ``format="t4"`` T4
    results (SPEC_PROBLEM_GPU.t4.json, named as recordings are, with a "workload" member naming
    kernel, problem and GPU). Returns ``gputune export --json``'s list of the files written:
    path, workload, attempts, ok."""
    written = _core.export(os.fspath(db), os.fspath(out),
                           None if workload is None else int(workload), format, commit)
    if not written:
        raise DbError("gputune export: no workload to export in %s" % os.fspath(db))
    return written


def plan(specs, *, set=None, sweep=None, shards=1, db="shard-{K}.db", search_options=""):
    """The shards of a tuning campaign (``gputune plan SPEC...``): each spec at each
    combination of the ``sweep`` values ({"n": [1024, 2048]}) is a workload, dealt to the
    shards in turn; a single workload is split by config index. Returns ``gputune plan
    --json``'s list: shard, of, db, workloads (spec, set, title, configs) and commands."""
    request = _core.CampaignRequest()
    request.specs = _paths(specs)
    request.overrides = _overrides(set)
    request.sweeps = [(str(name), [number_text(v) for v in values])
                      for name, values in (sweep or {}).items()]
    request.shards = int(shards)
    request.db_pattern = db
    request.search_options = search_options
    return _core.plan(request)
