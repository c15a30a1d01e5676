"""gputune's exceptions: one per error code of the C++ core (gputune::ErrorCode).

The messages are the core's, in Python's spelling: where the command line would name an option
(``--compile-only``, ``--budget 50``) they name the keyword (``compile_only=True``,
``budget=50``). A spec error starts with ``file:line:column:``, or for tune() with the argument
it came from (``tune(): grid[1]:``). ``code`` is the exit code the command line gives for the
same error (64 usage, 65 spec, ...); ``name`` is the core's name of the error code.
"""


class Error(Exception):
    """A gputune setup or usage error. ``code``: the command line's exit code for it; ``name``:
    the core's error code name."""

    code = 70
    name = "internal"


class SpecError(Error):
    """The spec (or what tune() was given) is wrong: the message says where and why."""

    code = 65
    name = "spec"


class ArgumentError(SpecError, TypeError):
    """The arguments do not fit the kernel's parameters: their count, a scalar for a pointer or
    an array for a scalar, an array whose element type is not the one the kernel reads."""


class UsageError(Error, ValueError):
    """An argument is wrong (unknown strategy, bad budget, unknown problem value, ...)."""

    code = 64
    name = "usage"


class NoGpuError(Error):
    """No CUDA driver or no GPU: use compile_only=True or replay=... instead."""

    code = 69
    name = "no-gpu"


class CudaError(Error):
    code = 70
    name = "cuda"


class NvrtcError(Error):
    code = 70
    name = "nvrtc"


class DbError(Error):
    code = 73
    name = "db"


class IoError(Error, OSError):
    code = 74
    name = "io"


class InternalError(Error):
    code = 70
    name = "internal"


_BY_NAME = {cls.name: cls for cls in (SpecError, UsageError, NoGpuError, CudaError, NvrtcError,
                                      DbError, IoError, InternalError)}


def error_class(name):
    """The exception class for a core error code name (used by the C++ translator)."""
    return _BY_NAME.get(name, Error)
