"""Progress of a search: a tqdm bar when tqdm is installed, else one rewritten line on stderr,
or the caller's own function."""

import sys


class _Progress:
    """A tqdm bar when tqdm is installed, else one rewritten line on stderr."""

    def __init__(self, what, enabled):
        self.what = what
        self.enabled = enabled
        self.bar = None
        self.last_line = 0.0

    def __call__(self, p):
        if not self.enabled:
            return
        best = ""
        if p["best_ms"] > 0:
            best = "best %.4g ms" % p["best_ms"]
        if self.bar is None:
            self.bar = _tqdm(total=p["total"], desc=self.what, unit="variant") or False
        if self.bar:
            self.bar.total = p["total"]
            self.bar.n = p["done"]
            self.bar.set_postfix_str(("%d failed " % p["failed"] if p["failed"] else "") + best,
                                     refresh=False)
            self.bar.refresh()
        else:
            line = "\r%s %d/%d  %s%s  %.0fs" % (self.what, p["done"], p["total"],
                                             "%d failed  " % p["failed"] if p["failed"] else "",
                                             best, p["elapsed_s"])
            sys.stderr.write(line)
            sys.stderr.flush()
            self.last_line = len(line)

    def close(self):
        if self.bar:
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

