"""The transformation engine's knobs of a spec (docs/engine.md): what each can do with the
kernel (``gputune transforms``) and a variant's rewritten kernel file (``gputune source``)."""

import json
import os

from . import _core
from ._errors import UsageError
from .session import open_spec as _spec


def transforms(spec, *, set=None):
    """Each transform of the spec, then each knob of the engine it does not list, as dicts:
    name, engine, listed, applies, reason (the engine's verdict), places (file, line, column,
    text of the statements it changes or that stop it), values (value, legal, why),
    remedies, summary. The report's ``note`` says where the engine cannot parse the kernel."""
    return json.loads(_core.transforms(_spec(spec, set)))


def variant_source(spec, *, set=None, config=None, index=None, best=False, db="gputune.db"):
    """A variant as it is compiled, as a dict: config, index, file, source (the kernel file
    after the engine's rewrite), changed, diff (unified, against the kernel file), prelude,
    compile_options, launches (kernel, block, grid, trailing_arguments), refusal (why the
    engine cannot rewrite it), pruned (why the space leaves it out), device (with best).

    config: a dict of values (the rest at the baseline's); index: a config index; best: the
    best variant stored in db. None of them: the baseline."""
    if sum(x is not None and x is not False for x in (config, index, best or None)) > 1:
        raise UsageError("variant_source(): config=, index= and best= choose the variant; "
                         "give one")
    text = json.dumps(config) if config is not None else ""
    return json.loads(_core.variant_source(_spec(spec, set), config=text, index=index,
                                           best_db=os.fspath(db) if best else ""))


def source(spec, *, set=None, config=None, index=None, best=False, db="gputune.db",
           diff=False):
    """The variant's kernel file after the engine's rewrite (a unified diff against the kernel
    file with diff=True), as ``gputune source`` prints it. Raises UsageError where the engine
    cannot rewrite the kernel for the config, with the engine's reason."""
    variant = variant_source(spec, set=set, config=config, index=index, best=best, db=db)
    if variant["refusal"]:
        raise UsageError("the engine cannot rewrite the kernel for %s: %s" % (
            json.dumps(variant["config"]), variant["refusal"]))
    return variant["diff"] if diff else variant["source"]
