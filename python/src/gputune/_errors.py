"""gputune's exceptions: one per error code of the C++ core (gputune::ErrorCode).

The messages are the CLI's: a spec error starts with ``file:line:column:``, or for tune() with
the argument it came from (``tune(): grid[1]:``).
"""


class Error(Exception):
    """A gputune setup or usage error. ``code`` is the core's error code name."""

    code = "internal"


class SpecError(Error):
    """The spec (or what tune() was given) is wrong: the message says where and why."""

    code = "spec"


class ArgumentError(SpecError, TypeError):
    """The arguments do not fit the kernel's parameters: their count, a scalar for a pointer or
    an array for a scalar, an array whose element type is not the one the kernel reads."""


class UsageError(Error, ValueError):
    """An argument is wrong (unknown strategy, bad budget, unknown problem value, ...)."""

    code = "usage"


class NoGpuError(Error):
    """No CUDA driver or no GPU: use compile_only=True or replay=... instead."""

    code = "no-gpu"


class CudaError(Error):
    code = "cuda"


class NvrtcError(Error):
    code = "nvrtc"


class DbError(Error):
    code = "db"


class IoError(Error, OSError):
    code = "io"


class InternalError(Error):
    code = "internal"


_BY_CODE = {cls.code: cls for cls in (SpecError, UsageError, NoGpuError, CudaError, NvrtcError,
                                      DbError, IoError, InternalError)}


def error_class(code):
    """The exception class for a core error code name (used by the C++ translator)."""
    return _BY_CODE.get(code, Error)
