"""tune(): a kernel written in the notebook, its numpy inputs and expected outputs, tuned with
no spec file. The spec is written as YAML for now, so the loader checks it as it checks a file.
"""

import hashlib
import json
import os
import re
import tempfile

import numpy as np

from . import _core
from ._errors import SpecError, UsageError
from .session import number_text as _number_text
from .session import run as _run


class Arg:
    """A kernel argument with its details spelt out.

    value: a numpy array (a buffer), a number or an expression string (a scalar). output: the
    buffer is an output (checked, never read). type: the scalar type ("int32", "float32", ...)
    for numbers and expressions. name: the argument's name (else from ``args`` or the kernel).
    """

    def __init__(self, value, *, output=False, type=None, name=None):
        self.value = value
        self.output = output
        self.type = type
        self.name = name


def Out(value, **kwargs):
    """Marks an output buffer: ``Out(np.empty(n, np.float32))``."""
    return Arg(value, output=True, **kwargs)


_DTYPES = {np.dtype(np.int8): "int8", np.dtype(np.int16): "int16", np.dtype(np.int32): "int32",
           np.dtype(np.int64): "int64", np.dtype(np.uint8): "uint8",
           np.dtype(np.uint16): "uint16", np.dtype(np.uint32): "uint32",
           np.dtype(np.uint64): "uint64", np.dtype(np.float32): "float32",
           np.dtype(np.float64): "float64"}


def _type_of(dtype, what):
    dtype = np.dtype(dtype)
    native = dtype.newbyteorder("=")
    if native not in _DTYPES:
        raise UsageError("%s: dtype %s is not supported; expected one of: %s" % (
            what, dtype, ", ".join(_DTYPES.values())))
    return _DTYPES[native]


def _kernel_parameters(source, name):
    """The parameter names of __global__ `name` in the source, found textually ([] if unsure)."""
    base = name.split("<")[0].strip().split("::")[-1]
    for match in re.finditer(r"__global__[^;{]*?\b%s\s*\(" % re.escape(base), source):
        depth, i, start = 1, match.end(), match.end()
        while i < len(source) and depth:
            depth += {"(": 1, ")": -1}.get(source[i], 0)
            i += 1
        text = source[start:i - 1]
        parts, depth, current = [], 0, ""
        for c in text:
            if c in "<([":
                depth += 1
            elif c in ">)]":
                depth -= 1
            if c == "," and depth == 0:
                parts.append(current)
                current = ""
            else:
                current += c
        if current.strip():
            parts.append(current)
        names = []
        for part in parts:
            part = part.split("=")[0]
            words = re.findall(r"[A-Za-z_]\w*", part)
            if not words:
                return []
            names.append(words[-1])
        return names
    return []


def _yaml_text(text):
    return json.dumps(str(text))


def _yaml_value(v):
    if isinstance(v, (bool, np.bool_)):
        return "1" if v else "0"
    if isinstance(v, (int, np.integer, float, np.floating)):
        return _number_text(v)
    return json.dumps(str(v))  # quoted: a symbol


def _digest(data):
    return hashlib.blake2b(data, digest_size=8).hexdigest()


def tune(source, name, *, params, args, block, grid, constraints=(), transforms=None,
         outputs=None, reference=None, baseline=None, problem=None, shared_bytes=None,
         rtol=1e-5, atol=1e-6, bytes=None, flops=None, options=(), macros=True,
         description=None, db=None, strategy=None, budget=None, seed=None, force=None,
         no_prior=None, device=None, warm_cache=None, max_seconds=None, fast=None,
         timeout_floor=None, timeout_factor=None, compile_only=None, arch=None, replay=None,
         jobs=None, cache=True, cache_dir=None, no_cache=None, workdir=None, progress=True):
    """Tunes a kernel given as source text, with numpy arrays as its inputs: no spec file.

    source: the CUDA source (or the path of a .cu file); name: the __global__ function, or a
    name expression such as "transpose<TILE>". params: {"TILE": [16, 32]} (each becomes
    -DTILE=...). args: the kernel's arguments in order, as a dict {name: value} or a list
    (names from the kernel's signature); a value is a numpy array (an input buffer),
    gputune.Out(array) (an output), a number or an expression string (a scalar), or a
    gputune.Arg. outputs: names of outputs (instead of Out). block, grid: 1 to 3 expressions
    of problem values and parameters. reference: the expected outputs (a list in output order,
    or {name: array}); without it, the baseline config's outputs are the reference.
    problem: named values for expressions ({"n": 1024}). The rest are spec keys (constraints,
    transforms, baseline, shared_bytes, rtol/atol, bytes/flops metrics, options, macros) or
    search() options, with search()'s meanings and defaults.

    The spec written for the kernel (YAML and .cu, under ``workdir``, by default a temporary
    folder) keys the database: its text includes a hash of the input and reference data, so
    seed random inputs to let a rerun reuse what is stored.
    """
    if isinstance(source, os.PathLike) or (isinstance(source, str) and "\n" not in source and
                                          source.endswith(".cu") and os.path.isfile(source)):
        with open(source) as f:
            source = f.read()
    if not isinstance(source, str) or "__global__" not in source:
        raise UsageError("tune(): source must be CUDA source text defining a __global__ "
                         "function (or the path of a .cu file)")
    if not isinstance(params, dict) or not params:
        raise UsageError("tune(): params must be a non-empty dict, e.g. {'TILE': [16, 32]}")

    # Arguments: names, kinds, types.
    if isinstance(args, dict):
        items = list(args.items())
    else:
        signature = _kernel_parameters(source, name)
        items = []
        for i, value in enumerate(args):
            arg_name = value.name if isinstance(value, Arg) and value.name else (
                signature[i] if i < len(signature) else "arg%d" % i)
            items.append((arg_name, value))
    outputs = list(outputs or [])
    known = [n for n, _ in items]
    for out in outputs:
        if out not in known:
            raise UsageError("tune(): outputs names '%s', which is not an argument; expected "
                             "one of: %s" % (out, ", ".join(known)))
    arguments = []  # (name, yaml line, input array or None, is_output, dtype)
    data_digests = []
    for arg_name, value in items:
        arg = value if isinstance(value, Arg) else Arg(value)
        is_output = arg.output or arg_name in outputs
        what = "argument '%s'" % arg_name
        if isinstance(arg.value, np.ndarray):
            array = arg.value
            type_name = _type_of(arg.type or array.dtype, what)
            if array.size == 0:
                raise UsageError("%s: the array is empty" % what)
            line = "{name: %s, type: %s, count: %d%s}" % (arg_name, type_name, array.size,
                                                         ", output: true" if is_output else "")
            if is_output:
                arguments.append((arg_name, line, None, True, np.dtype(type_name), array.size))
            else:
                data = np.ascontiguousarray(array, dtype=np.dtype(type_name))
                data_digests.append("%s=%s" % (arg_name, _digest(data.tobytes())))
                arguments.append((arg_name, line, data, False, np.dtype(type_name), array.size))
        else:
            if is_output:
                raise UsageError("%s: an output must be a numpy array (its shape and dtype "
                                 "size the buffer)" % what)
            v = arg.value
            if isinstance(v, np.generic):
                type_name = _type_of(arg.type or v.dtype, what)
                text = _number_text(v.item())
            elif isinstance(v, (bool, int)):
                type_name, text = arg.type or "int32", _number_text(v)
            elif isinstance(v, float):
                type_name, text = arg.type or "float32", repr(v)
            elif isinstance(v, str):
                type_name, text = arg.type or "int32", v
            else:
                raise UsageError("%s: %r is neither a numpy array, a number nor an expression "
                                 "string" % (what, type(v).__name__))
            line = "{name: %s, type: %s, value: %s}" % (arg_name, type_name, _yaml_text(text))
            arguments.append((arg_name, line, None, False, None, None))
    output_names = [a[0] for a in arguments if a[3]]
    if not output_names:
        raise UsageError("tune(): no argument is an output; mark one with gputune.Out(array) "
                         "or outputs=['name']")

    # References, one per output.
    references = {}
    if reference is not None:
        if isinstance(reference, np.ndarray):
            reference = [reference]
        if not isinstance(reference, dict):
            reference = list(reference)
            if len(reference) != len(output_names):
                raise UsageError("tune(): %d reference arrays for %d outputs (%s); expected one "
                                 "per output, in order, or {name: array}" % (
                                     len(reference), len(output_names), ", ".join(output_names)))
            reference = dict(zip(output_names, reference))
        for out, expected in reference.items():
            match = [a for a in arguments if a[0] == out and a[3]]
            if not match:
                raise UsageError("tune(): reference for '%s', which is not an output; expected "
                                 "one of: %s" % (out, ", ".join(output_names)))
            _, _, _, _, dtype, count = match[0]
            expected = np.ascontiguousarray(expected, dtype=dtype)
            if expected.size != count:
                raise UsageError("tune(): the reference for '%s' has %d elements; the output "
                                 "has %d" % (out, expected.size, count))
            references[out] = expected
            data_digests.append("%s=%s" % (out, _digest(expected.tobytes())))

    # The spec, as YAML, so that the loader checks it exactly as it checks a file.
    base = re.sub(r"\W", "_", name.split("<")[0].strip().split("::")[-1]) or "kernel"
    lines = ["# written by gputune.tune()"]
    if data_digests:
        lines.append("# data: " + " ".join(data_digests))
    if description:
        lines.append("description: " + _yaml_text(description))
    lines += ["kernel:", "  source: %s.cu" % base, "  name: " + _yaml_text(name)]
    if options:
        lines.append("  options: [%s]" % ", ".join(_yaml_text(o) for o in options))
    if not macros:
        lines.append("  macros: false")
    if problem:
        lines.append("problem:")
        for key, value in problem.items():
            lines.append("  %s: %s" % (key, _yaml_text(_number_text(value))))
    lines.append("arguments:")
    lines += ["  - " + a[1] for a in arguments]
    lines.append("launch:")
    for key, dims in (("block", block), ("grid", grid)):
        if isinstance(dims, (str, int)):
            dims = [dims]
        lines.append("  %s: [%s]" % (key, ", ".join(_yaml_text(_number_text(d)) for d in dims)))
    if shared_bytes is not None:
        lines.append("  shared_bytes: " + _yaml_text(_number_text(shared_bytes)))
    for section, values in (("parameters", params), ("transforms", transforms)):
        if not values:
            continue
        lines.append(section + ":")
        for key, vals in values.items():
            if not isinstance(vals, (list, tuple, range, np.ndarray)):
                vals = [vals]
            lines.append("  %s: [%s]" % (key, ", ".join(_yaml_value(v) for v in vals)))
    if constraints:
        if isinstance(constraints, str):
            constraints = [constraints]
        lines.append("constraints:")
        lines += ["  - " + _yaml_text(c) for c in constraints]
    if baseline:
        lines.append("baseline:")
        lines += ["  %s: %s" % (k, _yaml_value(v)) for k, v in baseline.items()]
    lines.append("check: {rtol: %s, atol: %s}" % (repr(float(rtol)), repr(float(atol))))
    if bytes is not None or flops is not None:
        lines.append("metrics:")
        if bytes is not None:
            lines.append("  bytes: " + _yaml_text(_number_text(bytes)))
        if flops is not None:
            lines.append("  flops: " + _yaml_text(_number_text(flops)))
    text = "\n".join(lines) + "\n"

    folder = workdir or os.path.join(tempfile.gettempdir(), "gputune-tune", "%s-%s" % (
        base, _digest((text + source).encode())))
    os.makedirs(folder, exist_ok=True)
    spec_path = os.path.join(folder, base + ".yaml")
    with open(os.path.join(folder, base + ".cu"), "w") as f:
        f.write(source)
    with open(spec_path, "w") as f:
        f.write(text)
    try:
        spec_obj = _core.parse_spec(text, spec_path)
    except SpecError as e:
        raise SpecError(_explain(str(e), spec_path, text)) from None
    for arg_name, _, data, is_output, _, _ in arguments:
        if data is not None:
            spec_obj.set_data(arg_name, data)
    for out, expected in references.items():
        spec_obj.set_reference(out, expected)
    return _run(spec_obj, db=db, strategy=strategy, budget=budget, seed=seed, force=force,
                no_prior=no_prior, device=device, jobs=jobs, cache=cache, cache_dir=cache_dir,
                no_cache=no_cache, timeout_floor=timeout_floor, timeout_factor=timeout_factor,
                warm_cache=warm_cache, max_seconds=max_seconds, fast=fast,
                compile_only=compile_only, arch=arch, replay=replay, progress=progress,
                what=("compile " if compile_only else "tune ") + base)


def _explain(message, spec_path, text):
    """A loader error about the generated spec, with the line it points at."""
    match = re.match(re.escape(spec_path) + r":(\d+):(\d+): ", message)
    if not match:
        return message
    line = int(match.group(1))
    source_lines = text.split("\n")
    if 1 <= line <= len(source_lines):
        message += "\n  in the spec tune() wrote (%s), line %d: %s" % (
            spec_path, line, source_lines[line - 1].strip())
    return message
