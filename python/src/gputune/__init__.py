"""gputune from Python: tune CUDA kernels, inspect and plot the results in a notebook.

    import gputune
    r = gputune.search("spaces/transpose.yaml", set={"n": 4096}, strategy="random", budget=100)
    r.df            # one row per variant (pandas)
    r.best          # the fastest correct config, as a dict
    r.plot_progress()
    r.bottleneck_report()   # why the best is slow, from counters stored with it
    r.plot_bottleneck()     # where the time goes: the best against the baseline

    r = gputune.tune(source=CUDA_TEXT, name="scale", params={"THREADS": [128, 256, 512]},
                     args={"out": gputune.Out(np.empty(n, np.float32)), "x": x, "n": n},
                     block=["THREADS"], grid=["ceil(n / THREADS)"], problem={"n": n},
                     reference=[2 * x])

Every other command of the command line is here too: ``best``, ``workloads`` (show), ``specs``
(list), ``analyze``, ``transforms``, ``source``, ``select``, ``release`` (and ``release_dump``),
``merge``, ``import_kernel_tuner`` (import kt-cache), ``export`` (recordings, or T4 with
``format="t4"``) and ``plan``; those that have ``--json`` return what it writes.

Without a GPU: ``compile_only=True`` compiles every variant with NVRTC (``arch="sm_90"``), and
``replay="recording.csv"`` (or a database, given the spec) answers a search from recorded
results.

Ctrl-C (a notebook's interrupt) stops a search after the variant in flight. Everything measured
so far is in the database; search() and tune() then return the partial Results, with
``interrupted`` set (run the same call again to resume). Errors raise gputune.Error subclasses
(SpecError, UsageError, NoGpuError, ...) with the CLI's messages in Python's spelling
(``compile_only=True`` where the CLI says ``--compile-only``); ``.code`` is the CLI's exit code
(an int: 64 usage, 65 spec, 69 no GPU, ...), ``.name`` the error's name ("usage").
"""

from ._errors import (ArgumentError, CudaError, DbError, Error, InternalError, IoError,
                      NoGpuError, NvrtcError, SpecError, UsageError)
from .analysis import Analysis, analyze
from .commands import export, import_kernel_tuner, merge, plan, release, release_dump
from .engine import source, transforms, variant_source
from .results import Results
from .select import select
from .session import best, gpus, load, search, search_options, specs, strategies, workloads
from .tuning import Arg, Constant, Out, tune

__all__ = ["search", "tune", "select", "load", "workloads", "best", "gpus", "Results", "Arg",
           "Constant", "Out", "analyze", "Analysis", "Error",
           "SpecError", "ArgumentError", "UsageError", "NoGpuError", "CudaError", "NvrtcError", "DbError",
           "IoError", "InternalError", "strategies", "search_options", "transforms", "source",
           "variant_source", "release", "release_dump", "merge", "import_kernel_tuner", "export",
           "plan", "specs"]
__version__ = "0.1.0"
