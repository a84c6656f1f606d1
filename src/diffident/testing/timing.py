"""Timing and reporting helpers shared by the benchmark scripts."""

from __future__ import annotations

import os
import platform
import time

import numpy as np

__all__ = ["best_time", "rel_diff", "machine_info", "fmt_t", "fmt_n"]


def best_time(fn, repeat=5, budget=5.0, warmup=True):
    """(best seconds, last result) of ``fn()`` over up to ``repeat`` timed runs."""
    out = fn() if warmup else None
    best = np.inf
    spent = 0.0
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        out = fn()
        dt = time.perf_counter() - t0
        best = min(best, dt)
        spent += dt
        if spent >= budget:
            break
    return best, out


def rel_diff(a, b):
    """The largest relative difference of ``a`` from the reference ``b`` (a float)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    denom = np.maximum(np.abs(b), np.finfo(np.float64).tiny)
    return float(np.max(np.abs(a - b) / denom))


def machine_info():
    """The CPU, thread settings and library versions, as a dict."""
    import numba
    import scipy

    import diffident

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:
        affinity = None
    layer: str
    try:
        layer = numba.threading_layer()  # type: ignore[attr-defined]  # not in numba's exports
    except ValueError:  # no parallel region has run yet
        layer = "n/a"
    return dict(cpu=cpu, cpu_count=os.cpu_count(), cpu_affinity=affinity,
                numba_threads=numba.get_num_threads(), numba_threading_layer=layer,
                python=platform.python_version(), numpy=np.__version__,
                numba=numba.__version__, scipy=scipy.__version__,
                diffident=getattr(diffident, "__version__", "?"),
                platform=platform.platform())


def fmt_n(n):
    """A size in short scientific notation: 20000 gives ``'2e4'``."""
    return f"{n:.0e}".replace("e+0", "e").replace("e+", "e")


def fmt_t(t):
    """A duration in seconds in a readable unit, like ``'4.56 ms'`` (None: ``'-'``)."""
    if t is None:
        return "-"
    if t >= 100:
        return f"{t:.0f} s"
    if t >= 1:
        return f"{t:.2f} s"
    if t >= 1e-3:
        return f"{t * 1e3:.2f} ms"
    return f"{t * 1e6:.1f} us"
