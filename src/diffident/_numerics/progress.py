"""Progress and notices on standard error, for work the caller asked to hear about."""

import contextlib
import contextvars
import sys
import time
from typing import Any

__all__ = ["Progress", "compile_notice", "notice", "tick", "COMPILING"]

#: What `compile_notice` says.
COMPILING = "diffident: compiling kernels (first run only, ~10 s)..."

_clock = time.monotonic  # (tests replace it)
_open_bar: list[Any] = [None]  # the stream whose last line is an unfinished bar
# the Progress that `tick` reports to (inside `Progress.active`; one per
# thread: a Dask task's sweep reports to its own)
_active: contextvars.ContextVar[Any] = contextvars.ContextVar("diffident_progress", default=None)


def tick(detail=None):
    """Work inside a step is still moving (``detail``: what it is at, or a
    callable giving that text): the active `Progress` writes a line when its
    interval has passed.  Costs one clock reading when one is active, else
    nothing; the evaluators call it once per pass.
    """
    bar = _active.get()
    if bar is not None:
        bar.heartbeat(detail)


def _isatty(stream):
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def notice(message, stream=None):
    """Write one line on ``stream`` (default: the current standard error),
    on a line of its own when a bar is being drawn there.
    """
    stream = sys.stderr if stream is None else stream
    if _open_bar[0] is stream:
        stream.write("\n")
        _open_bar[0] = None
    stream.write(message + "\n")
    stream.flush()


class Progress:
    """Progress through ``total`` steps of ``what`` (counted in ``unit``)."""

    def __init__(self, total, what, unit, enabled, stream=None, clock=None, interval=10.0):
        self.total, self.what, self.unit, self.done = total, what, unit, 0
        self.enabled = bool(enabled) and total > 0
        self.stream = sys.stderr if stream is None else stream
        self.tty = self.enabled and _isatty(self.stream)
        self.clock, self.interval = clock or _clock, float(interval)
        self.start = self.last = self.clock() if self.enabled else 0.0
        self.lines = 0
        self.label = ""

    @contextlib.contextmanager
    def active(self):
        """Within the block, `tick` reports to this Progress."""
        token = _active.set(self if self.enabled else None)
        try:
            yield self
        finally:
            _active.reset(token)

    def heartbeat(self, detail=None):
        """Inside a step: where ``interval`` seconds have passed since the
        last line (on a terminal, one second since the last redraw), say
        which step is running, and ``detail``, and for how long.
        """
        now = self.clock()
        if now - self.last < (1.0 if self.tty else self.interval):
            return
        self.last = now
        if callable(detail):
            detail = detail()
        inside = f"{self.label}{': ' + detail if detail else ''}"
        if self.tty:
            self._bar(f"{inside} ({now - self.start:.0f} s)")
            return
        self.lines += 1
        finished = max(self.done - 1, 0)
        pct = int(100 * finished / self.total)
        notice(f"diffident: {self.what} {finished}/{self.total} {self.unit} ({pct}%), in {inside}, "
               f"{now - self.start:.0f} s elapsed", self.stream)

    def step(self, label):
        """Start the next step, ``label`` naming it (shown in the bar)."""
        self.done += 1
        self.label = label
        if not self.enabled:
            return
        if self.tty:
            self._bar(label)
            return
        now = self.clock()
        if now - self.last >= self.interval:
            self.last = now
            self._line(self.done - 1, now)

    def close(self):
        """The work is over: the last line, where lines were written."""
        if self.enabled and not self.tty and self.lines:
            self._line(self.done, self.clock())
        if self.tty and _open_bar[0] is self.stream:
            self.stream.write("\n")
            self.stream.flush()
            _open_bar[0] = None

    def _line(self, finished, now):
        self.lines += 1
        pct = int(100 * finished / self.total)
        notice(f"diffident: {self.what} {finished}/{self.total} {self.unit} ({pct}%), "
               f"{now - self.start:.0f} s elapsed", self.stream)

    def _bar(self, label):
        width = 30
        fill = int(width * self.done / self.total)
        self.stream.write(f"\r[{'#' * fill}{'.' * (width - fill)}] {self.done}/{self.total} {label[:60]:60s}")
        _open_bar[0] = self.stream  # (`close` ends the line)
        self.stream.flush()


@contextlib.contextmanager
def compile_notice(stream=None):
    """Within the block, say `COMPILING` once on ``stream`` (default: the
    standard error of the moment) when Numba starts compiling one of this
    package's kernels: Numba signals a compilation only when its disk cache
    has no usable entry, so a warm cache says nothing.
    """
    from numba.core import event

    said: list[bool] = []

    class _Listener(event.Listener):
        def on_start(self, ev):
            func = getattr(ev.data.get("dispatcher"), "py_func", None)
            if not said and getattr(func, "__module__", "").startswith("diffident."):
                said.append(True)
                notice(COMPILING, stream)

        def on_end(self, ev):
            pass

    with event.install_listener("numba:compile", _Listener()):
        yield
