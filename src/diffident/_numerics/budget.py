"""Memory and time budgets of the work that grows with the data."""

import math
import re
from collections import OrderedDict
from dataclasses import dataclass

import numba
import numpy as np

from .._kernels import worstcase

__all__ = ["BLOCK_BYTES", "DEFAULT_MAX_MEMORY", "DEFAULT_MAX_SECONDS", "Estimate", "estimate", "parse_memory",
           "set_bytes", "Held", "nbytes", "OverBudget",
           "OverBudgetWarning", "cell_estimate", "over_text"]

#: The default memory budget of a sweep cell (bytes): 2 GiB.
DEFAULT_MAX_MEMORY = 2 * 2**30
#: The default time budget of a sweep cell (estimated seconds).
DEFAULT_MAX_SECONDS = 600.0

_WORLD_BYTES = 160  # a world set as evaluated: values, groups, counts, weights, the sort's records
#: Work memory allowed for the worst-case evaluator's blocked kernel.
BLOCK_BYTES = 1 << 28
_SETS_AT_ONCE = 3  # the reference, the set being checked, and one being built
_NS_PASS = 3.0  # ns per world and scale, one worst-case pass (both threads)
_NS_CERTIFICATE = 6.0  # ns per world and removal, the var/std dominance certificate (both threads)
_NS_BUILD = 200.0  # ns per world, building one D''s worlds, their groups and evaluator (serial)
_PASSES = 6  # worst-case passes per rho: search, confirmation, failing end, certificate, bound


class OverBudget(ValueError):
    """Sweep cells over their memory or time budget, refused before any work.

    The message names each cell, its worlds and its estimate, and what to
    do: a smaller domain, fewer rho, a larger budget, or
    ``skip_expensive=True``.  A `ValueError`.

    See Also
    --------
    diffident.sweep : Its ``max_memory``, ``max_seconds`` and ``skip_expensive``.

    Examples
    --------
    >>> import numpy as np, diffident as di
    >>> try:
    ...     di.sweep({"x": np.arange(8.0)}, queries=["std"], rho=[0.1],
    ...              domains={"x": (0, 10**6)}, max_memory="100M")
    ... except di.OverBudget as e:
    ...     print(str(e).splitlines()[1])
      column 'x', std, n=8: 1,000,001 worlds (given domain
      Domain(0, 1000000, integer=True)): 1.22 GB, about ... s
    """


class OverBudgetWarning(UserWarning):
    """Sweep cells over their budget, written as rows with status "over budget".

    Issued by `sweep` with ``skip_expensive=True``; the message names each
    cell.

    See Also
    --------
    OverBudget : The refusal, without ``skip_expensive``.

    Examples
    --------
    >>> import warnings, numpy as np, diffident as di
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     t = di.sweep({"x": np.arange(8.0)}, queries=["std"], rho=[0.1],
    ...                  domains={"x": (0, 10**6)}, max_memory="100M",
    ...                  skip_expensive=True)
    >>> t["status"].tolist(), w[0].category.__name__
    (['over budget'], 'OverBudgetWarning')
    """


def set_bytes(m):
    """Bytes one world set of ``m`` worlds holds while it is evaluated:
    its arrays and the evaluator's work memory (a row of 128 bytes per
    value and thread where that fits in `BLOCK_BYTES`, else chunks of
    8192 values and a few bytes per value).
    """
    nw = numba.get_num_threads()
    row = 2 * worstcase.BLOCK * 8  # one value's row of the blocked kernel's Z
    rows = nw * row * m
    return _WORLD_BYTES * m + (rows if rows <= BLOCK_BYTES else nw * (worstcase.CHUNK * row + 4 * m))


@dataclass(frozen=True)
class Estimate:
    """A cell's estimated peak memory (bytes) and time (seconds)."""

    memory: float
    seconds: float

    def text(self):
        """The estimate as words: ``"1.2 GB, about 40 s"``."""
        return f"{memory_text(self.memory)}, about {seconds_text(self.seconds)}"


def estimate(m, removals, n_rho, *, certificate=False, tight=True, every_rho=False):
    """The peak memory and time of one sweep cell."""
    m, removals, n_rho = float(m), float(removals), float(n_rho)
    sets = _SETS_AT_ONCE if tight and removals > 1 else 1
    memory = sets * set_bytes(m) + 8 * 64 * n_rho
    if certificate and tight and removals > 1:
        memory += 4 * numba.get_num_threads() * 8 * m  # its offsets and work rows
    ns = (_PASSES if tight else 1) * n_rho * m * _NS_PASS
    if tight and removals > 1:
        checked = removals - 1.0 if every_rho else min(removals - 1.0, 4.0)
        ns += (removals - 1.0) * m * _NS_BUILD + checked * n_rho * m * _NS_PASS
        if certificate:
            ns += removals * m * _NS_CERTIFICATE
    return Estimate(memory, ns * 1e-9)


def cell_estimate(q_name, distinct, m, k, pairs, tight):
    """The `Estimate` of a sweep cell: query ``q_name`` (a name or a
    callable) on data with ``distinct`` values, m worlds, k rho, the
    (noise, risk) ``pairs``, and whether the tight calibration is asked.
    """
    distinct = float(distinct)
    shift = q_name in ("sum", "mean")
    moments = not isinstance(q_name, str) or q_name in ("var", "std")  # (a callable: every removal too)
    removals = 1.0 if shift else distinct if moments else min(distinct, 4.0)
    est = estimate(m, removals, k, certificate=moments, tight=tight)
    every = any(rk == "expected" and not (shift and nz.startswith("discrete")) for nz, rk in pairs)
    if every and tight:  # (its checks: every distinct D' at every rho)
        extra = estimate(m, distinct, k, every_rho=True)
        est = Estimate(max(est.memory, extra.memory), est.seconds + extra.seconds)
    return est


def over_text(over, domain_of, memory, seconds, refused):
    """The refusal (or, skipped, the warning) of a sweep with cells over
    their budget: each cell, its counts and estimate, and what to do.
    """
    what = "refused before any work" if refused else "written as rows with status 'over budget'"
    lines = [f"sweep: {len(over)} cell{'s' if len(over) > 1 else ''} over budget (max_memory "
             f"{memory_text(memory)}, max_seconds {seconds_text(seconds)} per cell), {what}:"]
    for (name, n, q_name), est in over.items():
        dom, source = domain_of[name]
        lines.append(f"  column {name!r}, {q_name}, n={n}: {float(dom.size):,.0f} worlds ({source} domain "
                     f"{dom!r}): {est.text()}")
    lines.append("Declare a smaller domain or a coarser step (domains= / --domain COLUMN=LO:HI:STEP), sweep fewer "
                 "rho, queries or columns, raise max_memory or max_seconds (--max-memory, --max-seconds), or run "
                 "the Dask backend (diffident.dask.sweep: one column per worker)" +
                 (", or turn such cells into rows with status 'over budget' (skip_expensive=True, "
                  "--skip-expensive)." if refused else "."))
    return "\n".join(lines)


_UNITS = {"": 1, "b": 1, "k": 2**10, "kb": 2**10, "kib": 2**10, "m": 2**20, "mb": 2**20, "mib": 2**20,
          "g": 2**30, "gb": 2**30, "gib": 2**30, "t": 2**40, "tb": 2**40, "tib": 2**40}


def parse_memory(name, value):
    """A memory budget in bytes from an int, a float or a text such as
    ``"2G"``, ``"512MB"`` or ``"1.5GiB"`` (units of 1024); a ValueError
    naming ``name`` for anything else, zero or negative.
    """
    if isinstance(value, bool):
        raise TypeError(f"{name} must be a number of bytes or a text such as '2G', got {value!r}")
    if isinstance(value, str):
        hit = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([a-zA-Z]*)\s*", value)
        unit = hit.group(2).lower() if hit else None
        if hit is None or unit not in _UNITS:
            raise ValueError(f"{name} must be a number of bytes or a text such as '2G', '512M' or '1.5GiB', "
                             f"got {value!r}")
        number = float(hit.group(1)) * _UNITS[unit]
    elif isinstance(value, (int, float)):
        number = float(value)
    else:
        raise TypeError(f"{name} must be a number of bytes or a text such as '2G', got {type(value).__name__}")
    if not math.isfinite(number) or number <= 0:
        raise ValueError(f"{name} must be a positive, finite number of bytes, got {value!r}")
    return int(number)


def parse_seconds(name, value):
    """A time budget in seconds: a positive number, or None or inf for none."""
    if value is None:
        return math.inf
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number of seconds or None, got {value!r}")
    if math.isnan(value) or value <= 0:
        raise ValueError(f"{name} must be a positive number of seconds (or None: no limit), got {value!r}")
    return float(value)


def memory_text(b):
    """Bytes as words: ``"512 MB"``, ``"1.5 GB"`` (units of 1024)."""
    for unit, size in (("TB", 2**40), ("GB", 2**30), ("MB", 2**20), ("kB", 2**10)):
        if b >= size:
            return f"{b / size:.3g} {unit}"
    return f"{b:.0f} B"


def seconds_text(s):
    """Seconds as words: ``"40 s"``, ``"12 min"``, ``"3.5 h"``."""
    if s < 120:
        return f"{s:.2g} s" if s < 10 else f"{s:.0f} s"
    if s < 7200:
        return f"{s / 60:.0f} min"
    return f"{s / 3600:.3g} h"


def nbytes(obj, depth=5):
    """The bytes of the NumPy arrays ``obj`` holds: itself, the items of a
    tuple or list, an object's attributes, down to ``depth`` levels (views
    counted at their own size, a bound from above).
    """
    if isinstance(obj, np.ndarray):
        return obj.nbytes
    if depth == 0:
        return 0
    if isinstance(obj, (tuple, list)):
        return sum(nbytes(x, depth - 1) for x in obj)
    attrs = getattr(obj, "__dict__", None)
    return sum(nbytes(x, depth - 1) for x in attrs.values()) if attrs else 0


class Held:
    """Values kept for reuse within ``budget`` bytes of arrays: the least
    recently used go first, pinned ones never.  A value's size is measured
    again when it is asked for and at the next request for another (an
    evaluator allocates its work arrays at its first call, after it is
    handed out).
    """

    def __init__(self, budget):
        self.budget = budget
        self.items = OrderedDict()  # key -> [value, bytes, pinned]
        self.bytes = 0
        self.last = None

    def _measure(self, item):
        size = nbytes(item[0])
        self.bytes += size - item[1]
        item[1] = size

    def get(self, key, make, pinned=False):
        """The value of ``key``, made by ``make()`` if it is not held."""
        if self.last in self.items and self.last != key:
            self._measure(self.items[self.last])
        item = self.items.get(key)
        if item is None:
            item = self.items[key] = [make(), 0, pinned]
        else:
            self.items.move_to_end(key)
            item[2] = item[2] or pinned
        self._measure(item)
        if self.bytes > self.budget:
            for old in [k for k, v in self.items.items() if not v[2] and k != key]:
                self.bytes -= self.items.pop(old)[1]
                if self.bytes <= self.budget:
                    break
        self.last = key
        return item[0]
