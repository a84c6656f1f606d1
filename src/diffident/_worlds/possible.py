"""Possible worlds and exact sensitive ranges (Mathematics page, sections 1 and 6)."""


import math

import numpy as np

from .._kernels import queries
from .._numerics import dd as _dd
from .._numerics import grouping as _grouping
from .._numerics import validate as _validate
from .._numerics.shared_docs import shared_docs
from .._typing import CandidatesLike, FloatArray, IntArray, QueryLike, RealArrayLike
from .sets import (
    Domain,
    count_text,
    setup,
)

__all__ = ["Domain", "world_values", "sensitive_range", "contributions"]

_CHUNK = 1 << 16  # worlds per enumeration batch


def enumerate_worlds(qy, k, cands, kn, max_worlds, reduce=None):
    """Evaluate the query on every world, batch by batch; returns (values,
    counts), or the running (min, max) with ``reduce='range'``.
    """
    if cands.real:
        raise ValueError("a real interval has infinitely many worlds: world values cannot be enumerated")
    total = cands.n_worlds(k)
    if total > max_worlds:
        raise ValueError(
            f"{count_text(total)} possible worlds exceed max_worlds={max_worlds}: raise max_worlds to enumerate them"
        )
    state = np.arange(k, dtype=np.int64) if not cands.repeat else np.zeros(k, np.int64)
    S = np.empty((min(_CHUNK, total), k))
    parts_v, parts_c = [], []
    lo, hi = np.inf, -np.inf
    while state[0] >= 0:
        w = queries.fill_combinations(cands.vals, state, cands.repeat, S)
        vals = kn.values(qy, S[:w])
        if reduce == "range":
            lo, hi = min(lo, vals.min()), max(hi, vals.max())
        else:
            v, c = _grouping.group_counts(vals)
            parts_v.append(v)
            parts_c.append(c)
    if reduce == "range":
        return lo, hi
    if len(parts_v) == 1:
        return parts_v[0], parts_c[0]
    return _grouping.group_counts(np.concatenate(parts_v), np.concatenate(parts_c))


@shared_docs
def world_values(query: QueryLike, *, known: RealArrayLike, candidates: CandidatesLike, k: int = 1, ddof: int = 0,
                 q: float = 0.5,
                 max_worlds: int = 10**8) -> tuple[FloatArray, IntArray]:
    """The query's distinct values over every possible world ``known + S``, with counts.

    Parameters
    ----------
    %(query)s
    %(known)s
    candidates : array_like or Domain
        The candidate individuals' values (a multiset), or a `Domain`.
    %(k_unknown)s
    %(ddof)s
    %(q)s
    max_worlds : int, optional
        Refuse to enumerate more worlds than this (default 10**8).

    Returns
    -------
    values : ndarray of float64
        Distinct query values, ascending.
    counts : ndarray of int64 (float64 beyond 2**53)
        Number of worlds with each value; they sum to the number of worlds.

    Raises
    ------
    ValueError
        For bad values or arguments, a real interval, more than
        ``max_worlds`` worlds, or a callable that returns NaN or infinity.
    TypeError
        For a query that is neither a name nor a callable or returns a
        non-number, or arguments that are not numbers.

    See Also
    --------
    sensitive_range : The spread of these values, without enumerating.
    worst_case_risk : The exact risk over the worlds returned.

    Examples
    --------
    >>> import diffident as di
    >>> v, c = di.world_values("median", known=[1, 3], candidates=[2, 4, 5, 6, 7, 8,
    ...                                                            9, 10])
    >>> v.tolist(), c.tolist()                 # the paper's toy example
    ([2.0, 3.0], [1, 7])
    """
    qy, k, cands, kn = setup(query, known, candidates, k, ddof, q)
    max_worlds = _validate.integer("max_worlds", max_worlds)
    worlds: tuple[FloatArray, IntArray] = world_values_of(qy, k, cands, kn, max_worlds)
    return worlds


def world_values_of(qy, k, cands, kn, max_worlds):
    """`world_values` of validated world-set parts (`setup`)."""
    if qy.code in (queries.SUM, queries.MEAN) and k > 1:
        grid = sum_grid(cands)
        if grid is not None and (grid[1] in _BINARY_STEPS or cands.n_worlds(k) > max_worlds):
            return _sum_multiplicities(qy, k, cands, kn, grid)
    return enumerate_worlds(qy, k, cands, kn, max_worlds)


_DP_CELLS = 2 * 10**9  # work bound (values x layers x sums) of the subset-sum DP


_BINARY_STEPS = (1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 1024.0)  # exact in binary


def sum_grid(cands):
    """(offsets, scale, base) when the candidates lie on a grid of step
    1 / scale (integers, halves, cents, ...): value = base + offset / scale
    (exactly for a power-of-two scale, to the decimals' rounding otherwise);
    None when they do not (or the DP would be too large).
    """
    if cands.real:
        return None
    vals = cands.vals
    for scale in _BINARY_STEPS + (10.0, 100.0, 1000.0, 10**4, 10**6):
        with np.errstate(over="ignore", invalid="ignore"):  # huge values: no grid (inf fails the test)
            ints = np.round(vals * scale)
        if np.all(ints / scale == vals) and np.all(np.abs(ints) < 2.0**52):
            base = ints[0]
            return ints - base, scale, base
    return None


def _sum_multiplicities(qy, k, cands, kn, grid):
    """Sum or mean over k-subsets (k-multisets for a Domain) by the exact
    subset-sum dynamic programme of the Mathematics page, eq. 8.1.
    """
    from .._kernels.subsets import multiset_sums, subset_sums

    offs, scale, base = grid
    distinct, first, mult = _grouping.distinct(np.ascontiguousarray(offs))
    width = int(distinct[-1]) * k + 1
    work = distinct.size * k * (1 if cands.repeat else k) * width
    if work > _DP_CELLS:
        raise ValueError(f"the subset-sum table ({distinct.size} values, k = {k}, {width} sums) is too large")
    table = np.zeros((k + 1, width))
    if cands.repeat:
        multiset_sums(distinct, k, table)
    else:
        binom = np.array([[float(math.comb(int(n), a)) for a in range(k + 1)] for n in mult])
        subset_sums(distinct, binom, k, table)
    counts = table[k]
    if not np.all(np.isfinite(counts)):
        raise ValueError("more than 1e308 possible worlds: the counts overflow float64")
    s = np.flatnonzero(counts)
    # world sums: known + k base values + offset sum, exactly, then the query
    S = (base * k + s.astype(np.float64)) / scale
    rows = np.zeros((s.size, k))
    rows[:, 0] = S  # a row whose sum is the unknown part's sum
    vals = kn.values(qy, rows)  # known + (S, 0, ..., 0): the sum, or the mean over n + k
    exact = counts[s]
    # distinct exact sums that round to one float (a known part of 1e16):
    # one world value, their counts added (the values ascend with the sums)
    head = np.flatnonzero(np.r_[True, vals[1:] != vals[:-1]])
    if head.size < vals.size:
        vals, exact = vals[head], np.add.reduceat(exact, head)
    ints = exact.astype(np.int64) if exact.max() < 2.0**53 else exact
    return vals, ints


def named_spread(qy, k, cands, kn):
    """max - min of a named query over every world, in closed form."""
    if qy.code == queries.COUNT:
        return 0.0
    if qy.code in (queries.SUM, queries.MEAN):
        # f(top) - f(bottom) = (sum(top) - sum(bottom)) / N, rounded once: the
        # same for every known part of the same size (exact ties)
        top, bottom = cands.extremes(0, k), cands.extremes(k, k)
        spread = _dd_sum_difference(top, bottom)
        return spread / (kn.n + k) if qy.code == queries.MEAN else spread
    if qy.monotone:
        rows = np.stack([cands.extremes(k, k), cands.extremes(0, k)])
        lo, hi = kn.values(qy, rows)
        with np.errstate(over="ignore"):  # a range beyond the float range: inf
            return hi - lo
    if k == 1 and kn.n:
        sums = np.array([kn.st[0]]), np.array([kn.st[1]])
        m = (sums[0] + sums[1]) / kn.n
        lo, hi = np.array([cands.lo]), np.array([cands.hi])
        near = nearest(cands, np.array([np.nan]), np.clip(m, lo, hi))
        return float(var_range_k1(qy, kn.n, sums, lo, hi, near, lambda v: kn.values(qy, v[:, None]))[0])
    # var and std: the maximum at j smallest + (k - j) largest (convexity),
    # the minimum at k candidates contiguous in sorted order
    top = kn.values(qy, np.stack([cands.extremes(j, k) for j in range(k + 1)])).max()
    return top - kn.values(qy, min_var_rows(k, cands, kn)).min()


def var_range_k1(qy, n, sums, lo, hi, near, evaluate):
    """The range of var (or std) over one added candidate v, for known parts
    of n values with sums ``sums`` (double-double arrays (hi, lo)): var(v)
    is a parabola in v with its minimum at the mean m, so the range is
    var(v1) - var(v2) for v1 the end farther from m and v2 the candidate
    nearest it (``near``: the candidates just below and above), and the
    difference is formed factored,
    ``(v1 - v2) (v1 + v2 - 2 m) n / (N (N - ddof))`` with N = n + 1, the
    second factor in double-double: no cancellation of two large variances
    (values near 1e15 whose variances differ by 1e-15 of themselves lost
    every digit), nor of two candidates on either side of m.  For std,
    ``(var(v1) - var(v2)) / (std(v1) + std(v2))``, the stds from
    ``evaluate(v)``.
    """
    sh, sl = sums
    m = (sh + sl) / n
    v1 = np.where(m - lo > hi - m, lo, hi)
    below, above = near[:, 0], near[:, 1]
    v2 = np.where(np.abs(below - m) <= np.abs(above - m), below, above)
    N = float(n + 1)
    with np.errstate(over="ignore", invalid="ignore"):
        ah, al = _dd.two_sum(v1, v2)
        bh, bl = _dd.div(2.0 * sh, 2.0 * sl, np.full(sh.shape, float(n)), np.zeros(sh.shape))
        th, tl = _dd.add(ah, al, -bh, -bl)
        d = (v1 - v2) * (th + tl) * (float(n) / (N * (N - qy.ddof)))
    d = np.maximum(np.where(np.isnan(d), 0.0, d), 0.0)
    if qy.code == queries.VAR:
        return d
    s12 = evaluate(v1) + evaluate(v2)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(s12 > 0.0, d / s12, 0.0)


def _dd_sum_difference(a, b):
    """sum(a) - sum(b) rounded once (exact double-double accumulation)."""
    st = np.empty(6)
    queries.known_stats(np.concatenate([a, -b]), 0.0, st)
    return st[0] + st[1]


def min_var_rows(k, cands, kn):
    """Candidate rows for the smallest variance: contiguous windows."""
    target = (kn.st[0] + kn.st[1]) / kn.n if kn.n else cands.lo
    if cands.domain is None:
        vals = cands.vals
        starts = np.arange(vals.size - k + 1)
        return vals[starts[:, None] + np.arange(k)[None, :]]
    dom = cands.domain
    lo, hi = cands.lo, cands.hi
    t = min(max(target, lo), hi)
    if dom.step is None:
        return np.full((1, k), t)
    rows = []
    if dom.integer:
        base = math.floor(t)
        for v in range(int(base) - 2, int(base) + 3):
            for a in range(k + 1):  # a copies of v, k - a copies of v + 1
                row = [float(v)] * a + [float(v + 1)] * (k - a)
                if row[0] >= lo and row[-1] <= hi:
                    rows.append(row)
    else:  # the same windows on the grid's indices (the variance scales by step**2)
        last = dom.size - 1
        base = int(dom._index_below(t))
        idx = np.arange(max(base - 2, 0), min(base + 3, last) + 1, dtype=np.int64)
        pts = dom._points(idx)
        for j in range(idx.size - 1):
            for a in range(k + 1):  # a copies of a point, k - a copies of the next
                rows.append([pts[j]] * a + [pts[j + 1]] * (k - a))
    rows.append([lo] * k)
    rows.append([hi] * k)
    return np.array(rows)


@shared_docs
def sensitive_range(query: QueryLike, *, known: RealArrayLike, candidates: CandidatesLike, k: int = 1, ddof: int = 0,
                    q: float = 0.5,
                    max_worlds: int = 10**8) -> float:
    """The sensitive range S(f): the largest difference of the query between two possible worlds.

    Parameters
    ----------
    %(query)s
    %(known)s
    candidates : array_like or Domain
        The candidate individuals' values (a multiset), or a `Domain`.
    %(k_unknown)s
    %(ddof)s
    %(q)s
    max_worlds : int, optional
        Refuse to enumerate more worlds than this (callables; default 10**8).

    Returns
    -------
    float
        S(f) >= 0.

    Raises
    ------
    ValueError
        As for `world_values`, and for a callable over a real interval.
    TypeError
        As for `world_values`.

    See Also
    --------
    dataset_sensitive_range : The largest S(f) over every known part of a data set.
    contributions : Each candidate's share of S(f), k = 1.
    scale_for_rho : The paper's scale for this S(f).

    Examples
    --------
    >>> import diffident as di
    >>> U_minus_known = [2, 4, 5, 6, 7, 8, 9, 10]     # paper sec. 4
    >>> round(di.sensitive_range("mean", known=[1, 3], candidates=U_minus_known),
    ...       12)
    2.666666666667
    >>> di.sensitive_range("median", known=[1, 3], candidates=U_minus_known)
    1.0
    """
    qy, k, cands, kn = setup(query, known, candidates, k, ddof, q)
    max_worlds = _validate.integer("max_worlds", max_worlds)
    if qy.named:
        return float(named_spread(qy, k, cands, kn))
    lo, hi = enumerate_worlds(qy, k, cands, kn, max_worlds, reduce="range")
    return float(hi - lo)


@shared_docs
def contributions(query: QueryLike, *, known: RealArrayLike, candidates: CandidatesLike, ddof: int = 0,
                  q: float = 0.5) -> FloatArray:
    """Each candidate's contribution C_f(i) with one unknown individual (paper sec. 3.4).

    Parameters
    ----------
    %(query)s
    %(known)s
    candidates : array_like or Domain
        The candidate individuals' values, or an integer or stepped `Domain`.
    %(ddof)s
    %(q)s

    Returns
    -------
    ndarray of float64
        One value per candidate, in the order given; their maximum is
        `sensitive_range` with k = 1.

    Raises
    ------
    ValueError
        As for `world_values`, and for a real interval.
    TypeError
        As for `world_values`.

    See Also
    --------
    sensitive_range : The largest contribution, for any k.

    Examples
    --------
    >>> import diffident as di
    >>> di.contributions("max", known=[1.0, 5.0], candidates=[0.0, 2.0,
    ...                                                       9.0]).tolist()
    [4.0, 4.0, 4.0]
    """
    qy, k, cands, kn = setup(query, known, candidates, 1, ddof, q)
    if cands.real:
        raise ValueError("a real interval has infinitely many candidates: contributions cannot be listed")
    f = kn.values(qy, cands.vals[:, None])
    n = f.size
    if n == 1:
        return np.zeros(1)
    order = np.argsort(f, kind="stable")
    lo1, lo2 = f[order[0]], f[order[1]]
    hi1, hi2 = f[order[-1]], f[order[-2]]
    idx = np.arange(n)
    other_min = np.where(idx == order[0], lo2, lo1)
    other_max = np.where(idx == order[-1], hi2, hi1)
    with np.errstate(over="ignore"):  # a range beyond the float range: inf
        c: FloatArray = np.maximum(f - other_min, other_max - f)
    if cands.order is None:
        return c
    out = np.empty(n)
    out[cands.order] = c
    return out


def nearest(cands, removed, t):
    """The candidates just below and above t (per removed value)."""
    dom = cands.domain
    if dom is not None:
        if dom.step is None:
            return np.stack([t, t], axis=1)
        if dom.integer:
            a = np.floor(t)
            return np.stack([a, np.minimum(a + 1.0, cands.hi)], axis=1)
        i = dom._index_below(t)
        return np.stack([dom._points(i), dom._points(np.minimum(i + 1, dom.size - 1))], axis=1)
    vals = cands.vals
    if vals.size == 0:  # the removed individual is the only candidate
        return np.stack([removed, removed], axis=1)
    p = np.searchsorted(vals, t)
    below = np.where(p > 0, vals[np.clip(p - 1, 0, vals.size - 1)], -np.inf)
    above = np.where(p < vals.size, vals[np.clip(p, 0, vals.size - 1)], np.inf)
    # the removed individual is a candidate too (U minus D')
    below = np.where((removed <= t) & (removed > below), removed, below)
    above = np.where((removed >= t) & (removed < above), removed, above)
    # t beyond every candidate: the nearest one on the other side
    below = np.where(np.isinf(below), above, below)
    above = np.where(np.isinf(above), below, above)
    return np.stack([below, above], axis=1)
