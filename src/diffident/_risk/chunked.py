"""Out-of-core evaluation (Mathematics page, section 8) over world values given
in chunks; results equal the in-memory functions' (docs/algorithms/risk.md).
"""

from collections.abc import Iterable, Iterator
from typing import Any

import numba
import numpy as np

from .._kernels import evidence, worstcase
from .._numerics import validate as _validate
from .._numerics.grouping import chunk_groups
from .._numerics.shared_docs import shared_docs
from .._typing import AnyNoise, FloatOrArray, RealArrayLike
from .._worlds.values import (
    check_scaling,
    energy_factor,
    scaling_exponent,
    too_small,
    weight_shrink,
)
from .worst_case import RISK_SHIFT, inverse_scales, scale_down_up, spread_exponent

__all__ = ["chunked_log_evidence", "chunked_disclosure_risk", "chunked_worst_case_risk", "iter_chunks"]


def iter_chunks(values: Any, *, chunk_size: int = 1 << 20, counts: Any = None) -> Iterator[tuple[Any, Any]]:
    """Split an array into (values, counts) chunks for the chunked functions.

    Parameters
    ----------
    values : array_like
        World values (any object with ``len`` and slicing).
    chunk_size : int, optional
        Values per chunk, >= 1 (default 2**20).
    counts : array_like, optional
        Multiplicities, sliced alongside.

    Yields
    ------
    tuple
        ``(values[a:b], counts[a:b])``, or ``(values[a:b], None)``.

    Raises
    ------
    ValueError
        If chunk_size is below 1 (when the iteration starts).
    TypeError
        If values has no ``len``, or chunk_size is not an integer.

    See Also
    --------
    chunked_log_evidence : One consumer of the chunks.
    chunked_worst_case_risk : Another, for sorted values.

    Examples
    --------
    >>> import numpy as np, diffident as di
    >>> [len(v) for v, _ in di.iter_chunks(np.arange(10.0), chunk_size=4)]
    [4, 4, 2]
    """
    n = len(values)
    size = _validate.integer("chunk_size", chunk_size)
    for a in range(0, n, size):
        yield (values[a:a + size], None if counts is None else counts[a:a + size])


def validated_chunk(item, name, g=None):
    """A chunk's finite values (on the lattice of spacing ``g``, if given) and its counts."""
    v, c = (item if isinstance(item, tuple) else (item, None))
    f = _validate.values_1d(name, v)
    if g is not None:
        _validate.lattice(name, f, g, coords=False)
    if c is None:
        return np.ascontiguousarray(f), None
    return np.ascontiguousarray(f), _validate.counts(c, f.size)


def points(response, scale, noise, granularity=1.0):
    """Validated, broadcast points: (shape, responses, scales, gauss, g)."""
    gauss, g = _validate.lattice_noise(noise, granularity)
    R = _validate.finite("response", response)
    if g is not None:
        _validate.lattice("response", R, g, coords=False)
    lam = _validate.positive_scale("scale", scale)
    shape = np.broadcast_shapes(R.shape, lam.shape)
    return shape, _validate.flat(R, shape), _validate.flat(lam, shape), gauss, g


class EvidenceSums:
    """Per-point shifted sums ``(D, DL, G, S)`` of the log-evidence, folded chunk by chunk."""

    def __init__(self, R, lam, gauss, k=None):
        if k is None:
            k = self._exponent(R, lam, 0.0)
        self.R, self.lam, self.gauss = R, lam, gauss
        n = R.size
        self.D, self.DL, self.G, self.S = np.full(n, np.inf), np.zeros(n), np.full(n, -np.inf), np.zeros(n)
        self._at(k)

    @staticmethod
    def _exponent(R, lam, vmax):
        top = max(float(np.abs(R).max()) if R.size else 0.0, vmax)
        smin = float(lam.min()) if lam.size else 1.0
        k = scaling_exponent(top, smin)
        if k is None:
            raise too_small("scale", smin, top)
        return k

    def _at(self, k):
        if k < 0:
            self._check(k, 0.0, self.R)
        self.k = k
        self.Rk = np.ldexp(self.R, k)
        self.c = energy_factor(self.lam, k, self.gauss)

    def _check(self, k, reach, *arrays):
        smin = float(self.lam.min()) if self.lam.size else 1.0
        top = float(np.abs(self.R).max()) if self.R.size else 0.0
        check_scaling(k, smin, top + reach, self.gauss, *arrays)

    def rescale(self, k):
        """Re-express the sums for the scaling 2**k (k below the current)."""
        if k < self.k:
            # the distances' low parts, in the values' units, rounded too
            fin = self.D[np.isfinite(self.D)]
            reach = float(np.ldexp(fin.max(), -self.k)) if fin.size else 0.0
            self._check(k, reach, np.ldexp(self.DL, -self.k))
            self.D = np.ldexp(self.D, k - self.k)
            self.DL = np.ldexp(self.DL, k - self.k)
            self._at(k)

    def fold(self, f, lw, weighted, exact, buf):
        """Fold the finite values ``f`` (log weights ``lw``) into the sums."""
        saved = (self.D.copy(), self.DL.copy(), self.G.copy(), self.S.copy())
        self._fold(f, lw, weighted, exact, buf)
        if np.isnan(self.S).any():  # a distance overflowed: scale further down, fold again
            self.D, self.DL, self.G, self.S = saved
            self.rescale(self._exponent(self.R, self.lam, float(np.abs(f).max())))
            self._fold(f, lw, weighted, exact, buf)

    def _fold(self, f, lw, weighted, exact, buf):
        if self.k < 0:
            self._check(self.k, float(np.abs(f).max()) if f.size else 0.0, f)
        with np.errstate(over="ignore"):  # (an overflowing distance is reported: rescaled)
            fk = np.ldexp(f, self.k) if self.k else f
        nw = buf.shape[0]
        args = (fk, lw, weighted, exact, self.gauss, self.Rk, self.c, self.D, self.DL, self.G, self.S, buf)
        if self.R.size >= nw:
            evidence.merge_chunk(*args)
        else:  # few points: threads share the chunk
            evidence.merge_chunk_spans(*args, np.empty((nw, 4)))

    def merge(self, other):
        """Merge another state of the same points into this one."""
        k = min(self.k, other.k)
        self.rescale(k)
        other.rescale(k)
        evidence.merge_triple_arrays(self.D, self.DL, self.G, self.S, other.D, other.DL, other.G, other.S,
                               self.c, self.gauss)

    def finish(self, fw=None, pw=None):
        """The log-evidence at each point, and (given a world's value and weight) its posterior."""
        if not np.all(self.S > 0):
            raise ValueError("counts give every world zero weight")
        n = self.R.size
        logev = np.empty(n)
        risk = np.empty(n if fw is not None else 1)
        if fw is None:
            evidence.finish_triples(self.D, self.DL, self.G, self.S, self.Rk, self.c, self.gauss, np.zeros(n),
                                    np.zeros(n), False, False, logev, risk)
        else:
            with np.errstate(divide="ignore"):
                lpw = np.full(n, np.log(pw))
            evidence.finish_triples(self.D, self.DL, self.G, self.S, self.Rk, self.c, self.gauss,
                                    np.full(n, np.ldexp(fw, self.k)), lpw, True, False, logev, risk)
        return logev, risk

    def stack(self):
        """The state as one array (for a Dask task's result)."""
        return np.stack([self.D, self.DL, self.G, self.S, np.full(self.R.size, float(self.k))])

    @classmethod
    def unstack(cls, a, R, lam, gauss):
        st = cls(R, lam, gauss, k=int(a[4, 0]) if a.shape[1] else 0)
        st.D, st.DL, st.G, st.S = (a[i].copy() for i in range(4))
        return st


def _fold_all(chunks, response, scale, noise, granularity, exact=False, world_value=None):
    """Validate, broadcast, and fold every chunk into per-point sums."""
    shape, Rf, lam, gauss, g = points(response, scale, noise, granularity)
    if world_value is not None and g is not None:
        _validate.lattice("world_value", world_value, g, coords=False)
    st = EvidenceSums(Rf, lam, gauss)
    buf = np.empty((numba.get_num_threads(), evidence.BUF + 8))
    seen = False
    for i, item in enumerate(chunks):
        f, c = validated_chunk(item, f"values (chunk {i})", g)
        lw = np.log(c, where=c > 0, out=np.full(c.size, -np.inf)) if c is not None else np.empty(0)
        st.fold(f, lw, c is not None, exact, buf)
        seen = True
    if not seen:
        raise ValueError("chunks must hold at least one value")
    return shape, st


@shared_docs
def chunked_log_evidence(chunks: Iterable[Any], *, response: RealArrayLike, scale: RealArrayLike,
                         noise: AnyNoise = "laplace", granularity: float = 1.0) -> FloatOrArray:
    """`log_evidence` over world values given in chunks.

    Parameters
    ----------
    chunks : iterable
        Arrays of world values, or ``(values, counts)`` pairs; read once, in order.
    %(response)s
    %(scale)s
    %(noise)s
    %(granularity)s

    Returns
    -------
    float or ndarray
        The log-evidence, shape ``broadcast(response, scale)``.

    Raises
    ------
    ValueError
        For no chunks, bad chunks, counts, responses, scales, noise or lattice.
    TypeError
        If an argument is not real numbers (a string, a bool, complex values).

    See Also
    --------
    log_evidence : The in-memory function.
    diffident.dask.log_evidence : The same on a Dask array.

    Examples
    --------
    >>> import numpy as np, diffident as di
    >>> v = np.random.default_rng(0).normal(size=10_000)
    >>> a = di.chunked_log_evidence(di.iter_chunks(v, chunk_size=999),
    ...                             response=0.3, scale=0.5)
    >>> b = di.log_evidence(v, response=0.3, scale=0.5)
    >>> bool(np.isclose(a, b, rtol=1e-13))
    True
    """
    shape, st = _fold_all(chunks, response, scale, noise, granularity)
    logev, _ = st.finish()
    return _validate.ret(logev.reshape(shape), len(shape) == 0)


@shared_docs
def chunked_disclosure_risk(chunks: Iterable[Any], *, response: RealArrayLike, scale: RealArrayLike, world_value: float,
                            world_weight: float = 1.0, noise: AnyNoise = "laplace",
                            granularity: float = 1.0) -> FloatOrArray:
    """`disclosure_risk` out of core: the posterior of one world, given by its value.

    Parameters
    ----------
    chunks : iterable
        Arrays of world values, or ``(values, counts)`` pairs; read once, in order.
    %(response)s
    %(scale)s
    world_value : float
        The query value of the world whose posterior is wanted.
    world_weight : float, optional
        Its prior weight on the scale of the chunks' counts (default 1).
    %(noise)s
    %(granularity)s

    Returns
    -------
    float or ndarray
        The posterior, shape ``broadcast(response, scale)``.

    Raises
    ------
    ValueError
        As for `chunked_log_evidence`, or a bad world_value or world_weight.
    TypeError
        If an argument is not real numbers (a string, a bool, complex values).

    See Also
    --------
    disclosure_risk : The in-memory function, with the world by index.

    Examples
    --------
    >>> import numpy as np, diffident as di
    >>> v = np.random.default_rng(0).normal(size=10_000)
    >>> p = di.chunked_disclosure_risk(di.iter_chunks(v, chunk_size=999),
    ...     response=0.3, scale=0.5, world_value=v[7])
    >>> q = di.disclosure_risk(v, response=0.3, scale=0.5, world=7)
    >>> bool(np.isclose(p, q, rtol=1e-13))
    True
    """
    fw = float(_validate.finite("world_value", world_value))
    pw = float(_validate.in_range("world_weight", world_weight, 0.0, np.inf, hi_open=True))
    shape, st = _fold_all(chunks, response, scale, noise, granularity, exact=True, world_value=fw)
    _, out = st.finish(fw, pw)
    return _validate.ret(out.reshape(shape), len(shape) == 0)


def chunked_worst_case_risk(chunks: Iterable[Any], *, scale: RealArrayLike) -> FloatOrArray:
    """`worst_case_risk` over sorted world values given in chunks.

    Parameters
    ----------
    chunks : sequence
        Arrays of values (or ``(values, counts)`` pairs), sorted across chunks.
    scale : array_like
        Laplace scale(s), >= 0 (0 and ``inf`` allowed).

    Returns
    -------
    float or ndarray
        The worst-case risk, shape of ``scale``.

    Raises
    ------
    ValueError
        For unsorted values, no or empty chunks, bad values, counts or scales.
    TypeError
        If an argument is not real numbers (a string, a bool, complex values).

    See Also
    --------
    worst_case_risk : The in-memory function.
    diffident.dask.worst_case_risk : The same on a sorted Dask array.

    Examples
    --------
    >>> import numpy as np, diffident as di
    >>> v = np.sort(np.random.default_rng(0).normal(size=10_000))
    >>> parts = [v[a:a + 1000] for a in range(0, v.size, 1000)]
    >>> whole = di.worst_case_risk(v, scale=0.1)
    >>> bool(di.chunked_worst_case_risk(parts, scale=0.1) == whole)
    True
    """
    lam = _validate.scale_or_limit("scale", scale)
    groups = []
    last = -np.inf
    for i, item in enumerate(chunks):
        f, c = validated_chunk(item, f"values (chunk {i})")
        if f[0] < last or np.any(f[1:] < f[:-1]):
            raise ValueError(f"values must be sorted ascending across the chunks (chunk {i} is not)")
        last = f[-1]
        groups.append((f, c))
    if not groups:
        raise ValueError("chunks must hold at least one value")
    plan = tie_plan([chunk_ends(f, c) for f, c in groups])
    # scaled by the power of two of the in-memory path (its spread: the
    # first and last values of positive weight), so as to agree bit for bit
    ends = [e for e in (_live_ends(f, c) for f, c in groups) if e is not None]
    k = spread_exponent(ends[0][0], ends[-1][1]) if ends else 0

    def min_gap():  # the smallest gap between values of positive weight, scaled
        fs = np.concatenate([chunk_groups(f, c, p)[0] for (f, c), p in zip(groups, plan, strict=True)])
        return np.diff(np.ldexp(fs, k)).min() if fs.size > 1 else np.inf

    inv = inverse_scales(lam, k, min_gap)
    # counts whose sum would overflow: scaled by the in-memory power of two
    cmax = max((float(c.max()) if c is not None else 1.0) for f, c in groups if f.size)
    nlive = sum((int(np.count_nonzero(c > 0)) if c is not None else f.size) for f, c in groups)
    shrink = weight_shrink(cmax, nlive)
    # huge totals: S / P formed 2**t times smaller, as in memory where a
    # risk falls below the normal range (the same bits)
    t = RISK_SHIFT if shrink < 1.0 else 0
    best = _worst_chunks([(f, c, p) for (f, c), p in zip(groups, plan, strict=True)], inv, k, shrink, t)
    if best is None:
        raise ValueError("counts give every world zero weight")
    with np.errstate(divide="ignore"):
        out = np.minimum(scale_down_up(1.0 / best, t) if t else 1.0 / best, 1.0)
    return _validate.ret(out.reshape(lam.shape), lam.ndim == 0)


def chunk_ends(f, c):
    """A sorted chunk's (first value, its run's weight, last value, its run's weight, one run?)."""
    if f.size == 0:
        return None
    a = int(np.searchsorted(f, f[0], "right"))
    b = int(np.searchsorted(f, f[-1], "left"))
    if c is None:
        return f[0], float(a), f[-1], float(f.size - b), a == f.size
    return f[0], float(c[:a].sum()), f[-1], float(c[b:].sum()), a == f.size


def tie_plan(ends):
    """Per chunk (drop its first group, weight to add to its last): ties across chunks are one group."""
    plan = [[False, 0.0] for _ in ends]
    owner = None
    value = None
    for i, e in enumerate(ends):
        if e is None:
            continue
        first, lead, lastv, _, single = e
        if owner is not None and first == value:
            plan[i][0] = True
            plan[owner][1] += lead
            if single:
                continue
        owner = i
        value = lastv
    return plan


def _live_ends(f, c):
    """A sorted chunk's first and last values of positive weight (None if none)."""
    if f.size == 0:
        return None
    if c is None:
        return f[0], f[-1]
    live = np.flatnonzero(c > 0)
    return (f[live[0]], f[live[-1]]) if live.size else None


def _worst_chunks(items, inv, k=0, shrink=1.0, t=0):
    """The smallest S/P per scale over (values, counts, plan) chunks; None if no positive weight."""
    ns = inv.size
    F = np.zeros((ns, worstcase.NF))
    starts = []
    g0 = 0
    for f, c, p in items:  # forwards: the state before each chunk
        fs, W = chunk_groups(f, c, p, k)
        W = W * shrink
        starts.append((g0, F.copy()))
        if fs.size:
            E, A, LK = worst_case_work(fs.size, g0)
            worstcase.chunk_forward(fs, W, g0, inv, F, E, A, LK)
            g0 += fs.size
    best = np.full(ns, np.inf)
    Bs = np.zeros((ns, worstcase.NB))
    Bs[:, 1] = 1.0
    last = True
    for (f, c, p), (g0, Fi) in zip(reversed(items), reversed(starts), strict=True):
        fs, W = chunk_groups(f, c, p, k)
        if fs.size == 0:
            continue
        W = W * shrink
        E, A, LK = worst_case_work(fs.size, g0)
        invP = np.full(fs.size, np.ldexp(1.0 / shrink, -t))
        worstcase.chunk_worst(fs, W, invP, g0, inv, Fi, Bs, last, best, E, A, LK, np.empty(worstcase.NF))
        last = False
    return None if last else best


def worst_case_work(n, g0):
    return np.empty(n), np.empty(n), np.empty((max(1, worstcase.n_links(g0, n)), 3))
