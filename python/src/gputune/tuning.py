"""tune(): a kernel written in the notebook, its numpy inputs and expected outputs, tuned with
no spec file: the spec is built in memory (_core.build_spec) and checked as a file's would be.
"""

import hashlib
import inspect
import json
import os
import re
import warnings

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
    constant: the array fills the module's ``__constant__`` symbol of that name (or ``symbol``)
    instead of being passed to the kernel.
    """

    def __init__(self, value, *, output=False, type=None, name=None, constant=False,
                 symbol=None):
        self.value = value
        self.output = output
        self.type = type
        self.name = name
        self.constant = constant
        self.symbol = symbol


def Constant(value, **kwargs):
    """A ``__constant__`` symbol's contents, not a kernel parameter: ``Constant(filter)`` fills
    the symbol named as the argument (``symbol=`` names another) before every run."""
    return Arg(value, constant=True, **kwargs)


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


def _value(v):
    """A parameter or baseline value as plain Python: numpy scalars become numbers."""
    return v.item() if isinstance(v, np.generic) else v


def _expression(v):
    """An expression's text: a number as the core writes it, or the string itself."""
    return _number_text(_value(v))


def _digest(data):
    return hashlib.blake2b(data, digest_size=8).hexdigest()


def _positional_parameters(function):
    """How many positional arguments a function takes (2 for *args or when unknown)."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return 2
    count = 0
    for p in parameters:
        if p.kind == p.VAR_POSITIONAL:
            return 2
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            count += 1
    return count


def _check_function(check, output_shapes, input_shapes):
    """tune()'s check= as the core calls it: judge(outputs, inputs, config) over dicts of flat
    read-only numpy arrays returns "" when the outputs are right, else why not (the variant is
    then a wrong_answer with that message). What the user's function raises that is no
    Exception (KeyboardInterrupt), or a result that is no verdict, ends the search."""
    name = getattr(check, "__name__", type(check).__name__)
    takes = _positional_parameters(check)
    if takes == 0:
        raise UsageError("tune(): check %s takes no arguments; expected a function of the "
                         "outputs, check(outputs) or check(outputs, inputs), each a dict of "
                         "numpy arrays by argument name" % name)

    def shaped(arrays, shapes):
        return {k: v.reshape(shapes[k]) if k in shapes else v for k, v in arrays.items()}

    def judge(outputs, inputs, config):
        outputs = shaped(outputs, output_shapes)
        try:
            if takes >= 2:
                verdict = check(outputs, shaped(inputs, input_shapes))
            else:
                verdict = check(outputs)
        except Exception as e:
            text = str(e).strip()
            return "check %s raised %s%s" % (name, type(e).__name__, ": " + text if text else "")
        if verdict is None:  # a check that only asserts
            return ""
        if isinstance(verdict, (bool, np.bool_)):
            return "" if verdict else "check %s returned False" % name
        raise UsageError("tune(): check %s returned a %s for config %s; expected True or False "
                         "(or None from a check that only asserts)" % (
                             name, type(verdict).__name__, config))

    return judge


def tune(source, name, *, params, args, block, grid, constraints=(), transforms=None,
         outputs=None, reference=None, baseline=None, problem=None, shared_bytes=None,
         rtol=1e-5, atol=1e-6, check=None, bytes=None, flops=None, options=(), macros=True,
         defines=None, description=None, db=None, strategy=None, budget=None, seed=None, force=None,
         no_prior=None, no_prune=None, prune_above=None, device=None, warm_cache=None,
         max_seconds=None, fast=None, sampling=None, timeout_floor=None, timeout_factor=None,
         compile_only=None, arch=None, replay=None,
         jobs=None, cache=True, cache_dir=None, no_cache=None, workdir=None, progress=True,
         replay_unverified=None, **search_options):
    """Tunes a kernel given as source text, with numpy arrays as its inputs: no spec file.

    source: the CUDA source (or the path of a .cu file); name: the __global__ function, or a
    name expression such as "transpose<TILE>". params: {"TILE": [16, 32]} (each becomes
    -DTILE=...). args: the kernel's arguments in order, as a dict {name: value} or a list
    (names from the kernel's signature); a value is a numpy array (an input buffer),
    gputune.Out(array) (an output), a number or an expression string (a scalar), or a
    gputune.Arg. outputs: names of outputs (instead of Out). block, grid: 1 to 3 expressions
    of problem values and parameters. reference: the expected outputs (a list in output order,
    or {name: array}); without it, the baseline config's outputs are the reference.
    problem: named values for expressions ({"n": 1024}). check="none" times variants without
    checking their outputs (the results say so: ``outputs_checked`` is False); check="baseline"
    compares them with the baseline's (the default without reference=); check=function
    judges each variant's outputs instead of a reference (Kernel Tuner's verify=):
    ``check(outputs)`` or ``check(outputs, inputs)``, each a dict of read-only numpy arrays by
    argument name, shaped as given, returns True or False, or raises (an assert): False or an
    exception makes the variant a wrong_answer with that message, the baseline included. The
    outputs cross from the GPU worker for every variant (see the README for the cost); the
    function's name is part of the spec's identity, and a replay cannot call it. defines:
    {"N": "n", "BLOCKS": "ceil(n / TILE)"}, each -DNAME=value for every variant, the value an
    expression of problem values and parameters (for kernels that #define their sizes). The
    rest are spec keys (constraints, transforms, baseline, shared_bytes, rtol/atol, bytes/flops
    metrics, options, macros) or search() options, with search()'s meanings and defaults.

    The spec is built in memory; nothing is written but the database. What keys the database
    is a canonical text of these arguments with a hash of the input and reference data, so
    seed random inputs to let a rerun reuse what is stored. The source has no folder of its
    own: its quoted #includes are found in the working directory. workdir is ignored
    (deprecated).
    """
    if workdir is not None:
        warnings.warn("tune(): workdir is ignored: tune() writes no files", DeprecationWarning,
                      stacklevel=2)
    if isinstance(source, os.PathLike) or (isinstance(source, str) and "\n" not in source and
                                          source.endswith(".cu") and os.path.isfile(source)):
        with open(source) as f:
            source = f.read()
    if not isinstance(source, str) or "__global__" not in source:
        raise UsageError("tune(): source must be CUDA source text defining a __global__ "
                         "function (or the path of a .cu file)")
    check_function = check if callable(check) else None
    if check_function is not None:
        check = None
        if reference is not None:
            raise UsageError("tune(): check= a function and reference= arrays are two checks; "
                             "expected one of them (the function may compare with the arrays "
                             "itself)")
    elif check == "baseline":  # search()'s and --check's word for the default
        if reference is not None:
            raise UsageError("tune(): check='baseline' compares with the baseline's outputs and "
                             "reference= gives others; expected one of them")
        check = None
    elif check is not None and check != "none":
        raise UsageError("tune(): check=%r is not a check; expected 'none' (time without "
                         "checking), 'baseline' (compare with the baseline's outputs, the "
                         "default), a function of the outputs, or nothing" % (check,))
    if not isinstance(params, dict) or not params:
        raise UsageError("tune(): params must be a non-empty dict, e.g. {'TILE': [16, 32]}")

    # Arguments: names, kinds, types.
    if isinstance(args, dict):
        items = list(args.items())
    else:
        signature = _kernel_parameters(source, name)
        items = []
        position = 0  # in the kernel's signature, which constant arguments are not part of
        for value in args:
            if isinstance(value, Arg) and value.constant:
                arg_name = value.name or value.symbol
                if not arg_name:
                    raise UsageError("tune(): a constant argument in a list of args needs "
                                     "name= or symbol= (it is no kernel parameter to name it)")
            else:
                arg_name = value.name if isinstance(value, Arg) and value.name else (
                    signature[position] if position < len(signature) else "arg%d" % position)
                position += 1
            items.append((arg_name, value))
    outputs = list(outputs or [])
    known = [n for n, _ in items]
    for out in outputs:
        if out not in known:
            raise UsageError("tune(): outputs names '%s', which is not an argument; expected "
                             "one of: %s" % (out, ", ".join(known)))
    arguments = []  # the spec's, as plain data
    inputs = {}  # name: the input array
    buffers = {}  # output name: (dtype, count)
    output_shapes = {}  # output name: the shape of the array given
    data_digests = {}
    for arg_name, value in items:
        arg = value if isinstance(value, Arg) else Arg(value)
        is_output = arg.output or arg_name in outputs
        what = "argument '%s'" % arg_name
        if isinstance(arg.value, np.ndarray):
            array = arg.value
            type_name = _type_of(arg.type or array.dtype, what)
            if array.size == 0:
                raise UsageError("%s: the array is empty" % what)
            entry = {"name": arg_name, "type": type_name, "count": str(array.size),
                     "output": bool(is_output)}
            if arg.constant:
                entry.update(constant=True, symbol=arg.symbol)
            arguments.append(entry)
            if is_output:
                buffers[arg_name] = (np.dtype(type_name), array.size)
                output_shapes[arg_name] = array.shape
            else:
                data = np.ascontiguousarray(array, dtype=np.dtype(type_name))
                data_digests[arg_name] = _digest(data.tobytes())
                inputs[arg_name] = data
        else:
            if arg.constant:
                raise UsageError("%s: a constant argument must be a numpy array (its contents "
                                 "fill the __constant__ symbol)" % what)
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
            arguments.append({"name": arg_name, "type": type_name, "value": text})
    output_names = list(buffers)
    if not output_names and check != "none":
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
            if out not in buffers:
                raise UsageError("tune(): reference for '%s', which is not an output; expected "
                                 "one of: %s" % (out, ", ".join(output_names)))
            dtype, count = buffers[out]
            expected = np.ascontiguousarray(expected, dtype=dtype)
            if expected.size != count:
                raise UsageError("tune(): the reference for '%s' has %d elements; the output "
                                 "has %d" % (out, expected.size, count))
            references[out] = expected
            data_digests["reference " + out] = _digest(expected.tobytes())

    # The spec's parts, named as tune()'s arguments: the core's messages name them.
    def dims(values):
        if isinstance(values, (str, int, np.integer)):
            values = [values]
        return [_expression(d) for d in values]

    def values_of(table):
        rows = []
        for key, vals in (table or {}).items():
            if not isinstance(vals, (list, tuple, range, np.ndarray)):
                vals = [vals]
            rows.append([key, [_value(v) for v in vals]])
        return rows

    if isinstance(constraints, str):
        constraints = [constraints]
    parts = {
        "name": name, "description": description, "options": list(options),
        "macros": bool(macros),
        "problem": [[key, _expression(value)] for key, value in (problem or {}).items()],
        "args": arguments, "block": dims(block), "grid": dims(grid),
        "shared_bytes": None if shared_bytes is None else _expression(shared_bytes),
        "params": values_of(params), "transforms": values_of(transforms),
        "constraints": [str(c) for c in constraints],
        "baseline": [[key, _value(v)] for key, v in (baseline or {}).items()],
        "rtol": float(rtol), "atol": float(atol),
        "bytes": None if bytes is None else _expression(bytes),
        "flops": None if flops is None else _expression(flops),
    }
    # Only when given, so that earlier tune() calls keep their identity.
    if check is not None:
        parts["check"] = check
    if defines:
        if not isinstance(defines, dict):
            raise UsageError("tune(): defines must be a dict {name: expression}, e.g. "
                             "{'N': 'n'}")
        parts["defines"] = [[str(key), _expression(value)] for key, value in defines.items()]
    # The spec's identity (its text): everything above and the data's digests, canonical, so
    # that the same inputs find what is stored and other inputs do not. The source is keyed
    # apart (its own hash).
    identity = {"spec": parts, "data": data_digests}
    judge = None
    if check_function is not None:
        # Results judged by another function are not these: a new workload.
        identity["check_function"] = getattr(check_function, "__qualname__",
                                             type(check_function).__name__)
        judge = _check_function(check_function, output_shapes,
                                {k: v.shape for k, v in inputs.items()})
    text = "# gputune.tune() v1\n" + json.dumps(identity, sort_keys=True, indent=1,
                                                 default=repr) + "\n"
    base = re.sub(r"\W", "_", name.split("<")[0].strip().split("::")[-1]) or "kernel"
    parts.update(origin="tune()", path="tune:" + base, kernel_path="tune:%s.cu" % base,
                 source=source, text=text)
    try:
        spec_obj = _core.build_spec(parts)
    except SpecError as e:
        message = str(e)
        raise SpecError(message if message.startswith("tune()") else "tune(): " + message) \
            from None
    for arg_name, data in inputs.items():
        spec_obj.set_data(arg_name, data)
    for out, expected in references.items():
        spec_obj.set_reference(out, expected)
    return _run(spec_obj, db=db, strategy=strategy, budget=budget, seed=seed, force=force,
                no_prior=no_prior, no_prune=no_prune, prune_above=prune_above, device=device,
                jobs=jobs, cache=cache, cache_dir=cache_dir,
                no_cache=no_cache, timeout_floor=timeout_floor, timeout_factor=timeout_factor,
                warm_cache=warm_cache, max_seconds=max_seconds, fast=fast, sampling=sampling,
                compile_only=compile_only, arch=arch, replay=replay,
                replay_unverified=replay_unverified, progress=progress,
                what=("compile " if compile_only else "tune ") + base, judge=judge,
                **search_options)
