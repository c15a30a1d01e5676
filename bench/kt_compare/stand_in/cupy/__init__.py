"""A stand-in for the few CuPy calls Kernel Tuner's cupy backend makes, for CPU tests only
(test_kt_compare.py puts this folder first on PYTHONPATH). Nothing runs: a launch checks what a
GPU would refuse (its argument count against the kernel's signature, block size, dynamic shared
memory, grid) and raises as CuPy would, and every launch "takes" 1 ms."""

import re

import numpy as np

from . import cuda  # noqa: F401


class ndarray:
    def __init__(self, shape, dtype=np.float32, memptr=None):
        self.shape, self.dtype, self.memptr = shape, np.dtype(dtype), memptr

    def __setitem__(self, key, value):
        if self.memptr is not None:
            self.memptr.written = np.asarray(value)


def array(host):
    out = ndarray(host.shape, host.dtype)
    out.host = host
    return out


def asarray(value):
    return value


class _Symbol:
    written = None


class _Function:
    def __init__(self, code, name):
        signature = re.search(r"__global__\s+void\s+" + re.escape(name) + r"\s*\(([^)]*)\)", code)
        if not signature:
            raise RuntimeError(f"no __global__ function {name} in the source")
        self.arity = len([p for p in signature.group(1).split(",") if p.strip()])
        self.num_regs = 32

    def __call__(self, grid, block, args, stream=None, shared_mem=0):
        if len(args) != self.arity:
            raise RuntimeError(f"{len(args)} arguments for a kernel of {self.arity} parameters")
        if np.prod(block) > 1024 or min(block) < 1 or min(grid) < 1:
            raise RuntimeError(f"CUDA_ERROR_INVALID_VALUE: block {block}, grid {grid}")
        if shared_mem > 48 * 1024:
            raise RuntimeError(f"CUDA_ERROR_INVALID_VALUE: {shared_mem} bytes of dynamic shared")


class RawModule:
    def __init__(self, code, options=(), name_expressions=()):
        self.code, self.options, self.symbols = code, options, {}

    def get_function(self, name):
        return _Function(self.code, name)

    def get_global(self, name):
        if not re.search(r"__constant__[^;]*\b" + re.escape(name) + r"\b", self.code):
            raise RuntimeError(f"no __constant__ {name}")
        return self.symbols.setdefault(name, _Symbol())
