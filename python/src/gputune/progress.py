"""Progress of a search, naming its phase (allocating and filling inputs, baseline, compiling,
measuring): a tqdm bar when tqdm is installed, else one rewritten line on stderr, or the
caller's own function."""

import sys


class _Progress:
    """A tqdm bar when tqdm is installed, else one rewritten line on stderr."""

    def __init__(self, what, enabled):
        self.what = what
        self.enabled = enabled
        self.bar = None
        self.phase = None

    def __call__(self, p):
        if not self.enabled:
            return
        phase = p.get("phase", "")
        best = ""
        if p["best_ms"] > 0:
            best = "best %.4g ms" % p["best_ms"]
        failed = "%d failed " % p["failed"] if p["failed"] else ""
        if self.bar is None:
            bar = _tqdm(total=p["total"] or None, desc=self._desc(phase), unit="variant")
            self.bar = False if bar is None else bar
        # Identity, not truth: a tqdm bar without a total yet has no truth value.
        if self.bar is not False:
            if phase != self.phase:
                self.bar.set_description_str(self._desc(phase), refresh=False)
            self.bar.total = p["total"] or None
            self.bar.n = p["done"]
            self.bar.set_postfix_str(failed + best, refresh=False)
            self.bar.refresh()
        else:
            count = " %d/%d" % (p["done"], p["total"]) if p["total"] else ""
            line = "\r\033[K%s%s  %s%s  %.0fs" % (self._desc(phase), count, failed, best,
                                                 p["elapsed_s"])
            sys.stderr.write(line)
            sys.stderr.flush()
        self.phase = phase

    def _desc(self, phase):
        return "%s: %s" % (self.what, phase) if phase else self.what

    def close(self):
        if self.bar is not None and self.bar is not False:
            self.bar.close()
        elif self.bar is False:
            sys.stderr.write("\n")


def _tqdm(**kwargs):
    """A tqdm bar: the notebook widget where ipywidgets is installed, else text; None without
    tqdm."""
    try:
        import ipywidgets  # noqa: F401
        from tqdm.auto import tqdm
    except ImportError:
        try:
            from tqdm import tqdm
        except ImportError:
            return None
    return tqdm(**kwargs)


def progress_for(progress, what):
    """(the function the core calls, the bar to close afterwards or None)."""
    if callable(progress):
        return progress, None
    bar = _Progress(what, bool(progress))
    return bar, bar
