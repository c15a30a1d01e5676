"""A gputune spec as Kernel Tuner 1.5.0 sees it: the same kernel source, parameters (as macros),
constraints, block and grid, arguments, constant and dynamic shared memory, compile options.

What Kernel Tuner cannot express is either fixed in a derived spec that both tools then search
(generic transforms, dynamic shared memory beyond 48 KiB), or the space is left out (several
launches per config). `Translation.left_out` says what, in words, for the results file.

Needs PyYAML and NumPy; Kernel Tuner itself only where `tune_kernel_arguments` is called.
"""

import itertools
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

# Kernel Tuner's cupy backend launches without raising the function's dynamic shared memory
# limit, so a launch past the default 48 KiB fails with an error Kernel Tuner does not skip.
DEFAULT_DYNAMIC_SHARED_LIMIT = 48 * 1024

_TOKEN = re.compile(
    r"\s*(?:(?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|(?P<name>[A-Za-z_]\w*)|"
    r"(?P<op>&&|\|\||==|!=|<=|>=|\*\*|//|[-+*/%^()<>!,\[\]]))"
)
_KEYWORDS = {"and", "or", "not", "in"}


def _muparser_round(x):
    return math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)


FUNCTIONS = {
    "ceil": math.ceil,
    "floor": math.floor,
    "round": _muparser_round,
    "min": min,
    "max": max,
    "abs": abs,
    "sqrt": math.sqrt,
    "log2": math.log2,
    "exp": math.exp,
    "log": math.log,
}


class Unsupported(Exception):
    """The spec uses something Kernel Tuner 1.5.0 cannot express."""


def tokens(text):
    out, pos, text = [], 0, str(text)
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if not m:
            raise Unsupported(
                f"expression '{text}': cannot translate '{text[pos:].strip()}' to Python"
            )
        out.append((m.lastgroup, m.group(m.lastgroup)))
        pos = m.end()
    return out


def _operand_end(toks, i):
    """Index one past the operand starting at toks[i] (for the prefix operator '!')."""
    kind, tok = toks[i]
    if tok in ("!", "-", "+") and kind == "op":
        return _operand_end(toks, i + 1)
    if kind == "name" and i + 1 < len(toks) and toks[i + 1][1] == "(":
        i += 1
        kind, tok = toks[i]
    if tok in ("(", "["):
        depth = 0
        for j in range(i, len(toks)):
            if toks[j][1] in ("(", "["):
                depth += 1
            elif toks[j][1] in (")", "]"):
                depth -= 1
                if depth == 0:
                    return j + 1
        raise Unsupported("unbalanced parentheses")
    return i + 1


def to_python(text, constants=None):
    """A muparser expression (gputune's) as Python text, and the free names it uses.

    `constants` (problem values, fixed transforms) are written in as literals. muparser's
    prefix '!' binds tighter than comparisons, Python's 'not' looser: '!x' becomes '(not x)'.
    """
    constants = constants or {}
    toks = tokens(text)

    def render(lo, hi, names):
        out, i = [], lo
        while i < hi:
            kind, tok = toks[i]
            if kind == "op" and tok == "!":
                end = _operand_end(toks, i + 1)
                out.append("(not " + render(i + 1, end, names) + ")")
                i = end
                continue
            if kind == "op":
                out.append({"&&": "and", "||": "or", "^": "**"}.get(tok, tok))
            elif kind == "number":
                out.append(tok)
            elif tok in _KEYWORDS or tok in FUNCTIONS and i + 1 < hi and toks[i + 1][1] == "(":
                out.append(tok)
            elif tok in constants:
                out.append(repr(constants[tok]))
            else:
                names.add(tok)
                out.append(tok)
            i += 1
        return " ".join(out)

    names = set()
    return render(0, len(toks), names), names


def evaluate(python_text, values):
    return eval(python_text, {"__builtins__": {}, **FUNCTIONS}, dict(values))


def _integral(value, what):
    if isinstance(value, bool) or abs(value - round(value)) > 1e-9:
        raise Unsupported(f"{what} is {value}, expected an integer")
    return int(round(value))


@dataclass
class Translation:
    """One space, as both tools will search it."""

    name: str
    spec_path: Path  # the original spec
    derived: dict  # the derived spec's YAML document (kernel source made absolute)
    problem: dict  # problem values, after --set overrides
    left_out: list = field(default_factory=list)  # what the derived spec fixed or excluded
    kt: dict = field(default_factory=dict)  # the pieces of tune_kernel's arguments (no arrays)

    def write_derived(self, folder):
        path = Path(folder) / f"{self.name}.yaml"
        path.write_text(yaml.safe_dump(self.derived, sort_keys=False, width=1000))
        return path


def _problem_values(doc, overrides):
    values, raw = {}, dict(doc.get("problem") or {})
    for name, text in overrides.items():
        if name not in raw:
            raise Unsupported(f"--set {name}: not a problem value of this spec ({', '.join(raw)})")
        raw[name] = text
    for name, text in raw.items():
        py, used = to_python(text, values)
        if used:
            raise Unsupported(f"problem value {name} = {text} uses unknown names {sorted(used)}")
        value = evaluate(py, {})
        values[name] = int(value) if float(value).is_integer() else value
    return values


def translate(spec_path, overrides=None, name=None):
    """Reads a gputune spec and derives what both tools search; raises Unsupported for a space
    Kernel Tuner cannot run at all (the message says why)."""
    spec_path = Path(spec_path).resolve()
    doc = yaml.safe_load(spec_path.read_text())
    name = name or spec_path.stem
    if "launches" in doc:
        raise Unsupported(
            f"{len(doc['launches'])} launches per config (timed together by gputune); "
            "Kernel Tuner times one kernel launch per config"
        )
    kernel = dict(doc["kernel"])
    if kernel.get("macros") is False:
        raise Unsupported("parameters are not macros (kernel: macros: false)")
    problem = _problem_values(doc, overrides or {})
    derived = dict(doc)
    kernel["source"] = str((spec_path.parent / kernel["source"]).resolve())
    derived["kernel"] = kernel
    left_out = []

    # Generic transforms: fixed to the baseline's value.
    baseline = dict(doc.get("baseline") or {})
    fixed = {}
    transforms = dict(doc.get("transforms") or {})
    for t, values in transforms.items():
        value = baseline.get(t, values[0])
        fixed[t] = value
        if len(values) > 1:
            left_out.append(
                f"transform {t} fixed to {value} (of {', '.join(map(str, values))}): Kernel Tuner "
                "has no per-config block remapping or compile flags"
            )
        transforms[t] = [value]
    if transforms:
        derived["transforms"] = transforms

    launch = doc["launch"]
    constraints = list(doc.get("constraints") or [])
    shared = launch.get("shared_bytes")
    if shared is not None:
        extra = f"{shared} <= {DEFAULT_DYNAMIC_SHARED_LIMIT}"
        constraints.append(extra)
        left_out.append(
            f"configs with more than 48 KiB of dynamic shared memory ({shared}): Kernel Tuner's "
            "cupy backend launches without raising the kernel's limit"
        )
    derived["constraints"] = constraints

    kt = _kernel_tuner_pieces(doc, kernel, problem, fixed, constraints, launch)
    return Translation(name, spec_path, derived, problem, left_out, kt)


def _kernel_tuner_pieces(doc, kernel, problem, fixed, constraints, launch):
    parameters = {p: list(v) for p, v in (doc.get("parameters") or {}).items()}
    constants = {**problem, **fixed}
    restrictions = []
    for c in constraints:
        py, used = to_python(c, constants)
        unknown = used - set(parameters)
        if unknown:
            raise Unsupported(f"constraint '{c}' uses {sorted(unknown)}, not parameters")
        restrictions.append({"text": py, "params": sorted(used)})

    # Block: a dimension that is one parameter is named in block_size_names; any other
    # expression becomes a derived parameter block_size_<d> tied to it by a restriction, so
    # Kernel Tuner launches the same block and prunes past its thread limit as usual.
    tune_params = dict(parameters)
    block_names = []
    for d, expr in zip("xyz", launch["block"]):
        py, used = to_python(expr, constants)
        if py in parameters:
            block_names.append(py)
            continue
        derived_name = f"block_size_{d}"
        if derived_name in parameters or (used - set(parameters)):
            raise Unsupported(f"block dimension {expr} cannot be a Kernel Tuner block size")
        values = set()
        used = sorted(used)
        for combo in itertools.product(*(parameters[u] for u in used)):
            v = evaluate(py, dict(zip(used, combo)))
            if v > 0 and float(v).is_integer():
                values.add(int(v))
        tune_params[derived_name] = sorted(values)
        if used:
            restrictions.append(
                {"text": f"{derived_name} == {py}", "params": used + [derived_name]}
            )
        block_names.append(derived_name)

    grid = []
    for expr in launch["grid"]:
        py, used = to_python(expr, constants)
        if used - set(parameters):
            raise Unsupported(f"grid dimension {expr} uses unknown names")
        grid.append(py)
    shared = launch.get("shared_bytes")
    shared_py = to_python(shared, constants)[0] if shared is not None else None

    options = ["--std=c++17", f"--include-path={Path(kernel['source']).parent}"]
    options += list(kernel.get("options") or [])
    for dname, text in (kernel.get("defines") or {}).items():
        py, used = to_python(text, constants)
        if used:
            raise Unsupported(f"define {dname} = {text} depends on parameters")
        value = evaluate(py, {})
        options.append(f"-D{dname}={int(value) if float(value).is_integer() else value}")

    arguments, cmem = [], {}
    for a in doc["arguments"]:
        desc = dict(a)
        if "count" in a:
            py, used = to_python(a["count"], constants)
            if used:
                raise Unsupported(
                    f"argument {a['name']}: count {a['count']} is not a problem value"
                )
            desc["count"] = _integral(evaluate(py, {}), f"count of {a['name']}")
        else:
            py, used = to_python(a["value"], constants)
            if used:
                raise Unsupported(
                    f"argument {a['name']}: scalar {a['value']} depends on parameters"
                )
            desc["value"] = evaluate(py, {})
        if a.get("constant"):
            cmem[a.get("symbol", a["name"])] = desc
        else:
            arguments.append(desc)

    return {
        "kernel_name": kernel["name"],
        "kernel_source": kernel["source"],
        "tune_params": tune_params,
        "parameters": list(parameters),  # the spec's own; tune_params may add block sizes
        "restrictions": restrictions,
        "block_size_names": block_names,
        "grid": grid,
        "shared_bytes": shared_py,
        "compiler_options": options,
        "arguments": arguments,
        "cmem_args": cmem,
    }


def fill(desc, rng_seed_offset=0):
    """A NumPy array (or scalar) with the argument's fill, the way a Kernel Tuner user writes it:
    the same kind, range and seed, NumPy's generator (not gputune's bytes)."""
    import numpy as np

    dtype = np.dtype(desc.get("type", "float32"))
    if "value" in desc:
        return dtype.type(desc["value"])
    count = desc["count"]
    kind = desc.get("fill")
    if desc.get("output") and kind is None or desc.get("scratch") or kind == "zeros":
        return np.zeros(count, dtype=dtype)
    if kind == "constant":
        return np.full(count, desc["fill_value"], dtype=dtype)
    if kind == "iota":
        return np.arange(count, dtype=dtype)
    low, high = desc.get("range", [0, 1])
    rng = np.random.default_rng(int(desc.get("seed", 0)) + rng_seed_offset)
    if dtype.kind == "f":
        out = rng.random(count, dtype=np.float32 if dtype == np.float32 else np.float64)
        out *= high - low
        out += low
        return out.astype(dtype, copy=False)
    return np.floor(low + (high - low) * rng.random(count)).astype(dtype)


def _function_restriction(text, names):
    from constraint import FunctionConstraint

    def holds(*values):
        return bool(evaluate(text, dict(zip(names, values))))

    return FunctionConstraint(holds)


def tune_kernel_arguments(translation, with_arrays=True, as_functions=()):
    """Keyword arguments for kernel_tuner.tune_kernel (cupy backend, brute force). Restrictions
    are strings, as Kernel Tuner users write them, except those whose indices are in
    `as_functions` (see misparsed_restrictions): python-constraint functions over every
    parameter, the form Kernel Tuner passes through unparsed."""
    kt = translation.kt
    grid = kt["grid"]
    names = list(kt["tune_params"])
    restrictions = [
        _function_restriction(r["text"], names) if i in as_functions else r["text"]
        for i, r in enumerate(kt["restrictions"])
    ]

    def problem_size(p):
        return tuple(_integral(evaluate(g, p), f"grid {g}") for g in grid)

    kwargs = {
        "kernel_name": kt["kernel_name"],
        "kernel_source": kt["kernel_source"],
        "problem_size": problem_size,
        "arguments": [fill(a) for a in kt["arguments"]] if with_arrays else [],
        "tune_params": {k: list(v) for k, v in kt["tune_params"].items()},
        "grid_div_x": [],
        "grid_div_y": [],
        "grid_div_z": [],
        "restrictions": restrictions,
        "answer": None,
        "lang": "cupy",
        "compiler_options": list(kt["compiler_options"]),
        "block_size_names": list(kt["block_size_names"]),
        "strategy": "brute_force",
    }
    if kt["shared_bytes"] is not None:
        shared = kt["shared_bytes"]
        kwargs["smem_args"] = {"size": lambda p: _integral(evaluate(shared, p), "shared_bytes")}
    if kt["cmem_args"]:
        kwargs["cmem_args"] = (
            {s: fill(d) for s, d in kt["cmem_args"].items()} if with_arrays else {}
        )
    return kwargs


def misparsed_restrictions(translation, limit=2_000_000):
    """Indices of the restrictions that Kernel Tuner's string parser (python-constraint2) gets
    wrong: for each one alone, over the parameters it uses, the configs it admits are counted
    by Kernel Tuner's Searchspace and by evaluating the expression directly. python-constraint2
    2.9.0 turns 'x == a / b * c / d' into a product constraint that admits too few."""
    from kernel_tuner.searchspace import Searchspace

    tune_params = translation.kt["tune_params"]
    wrong = []
    for i, r in enumerate(translation.kt["restrictions"]):
        params = {p: tune_params[p] for p in r["params"]}
        if not params or math.prod(len(v) for v in params.values()) > limit:
            continue
        direct = sum(
            1
            for combo in itertools.product(*params.values())
            if evaluate(r["text"], dict(zip(params, combo)))
        )
        if Searchspace(params, [r["text"]], 1 << 30).size != direct:
            wrong.append(i)
    return wrong


def kernel_tuner_space_size(translation, max_threads=1024, as_functions=None):
    """The number of configs Kernel Tuner's own search-space construction finds (as tune_kernel
    builds it: Searchspace(tune_params, restrictions, max_threads))."""
    from kernel_tuner.searchspace import Searchspace

    if as_functions is None:
        as_functions = misparsed_restrictions(translation)
    kwargs = tune_kernel_arguments(translation, with_arrays=False, as_functions=as_functions)
    space = Searchspace(kwargs["tune_params"], kwargs["restrictions"], max_threads)
    return space.size, space


def space_paths(root):
    """Every shipped space and the benchmark spaces, in the order the comparison runs them."""
    root = Path(root)
    return sorted((root / "spaces").glob("*.yaml")) + sorted((root / "bench/spaces").glob("*.yaml"))
