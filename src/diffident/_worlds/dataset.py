"""The sensitive range and the worlds over every D' = D minus k
individuals: `dataset_sensitive_range` and its cores, shared with
`dataset_tight_scale` and the sweep (`dataset_setup`, the distinct removed
multisets).
"""

import itertools
from typing import Literal, overload

import numpy as np

from .._kernels import queries
from .._numerics import grouping as _grouping
from .._numerics import validate as _validate
from .._numerics.shared_docs import shared_docs
from .._typing import CandidatesLike, IntArray, QueryLike, RealArrayLike
from .possible import enumerate_worlds, min_var_rows, named_spread, nearest, var_range_k1
from .sets import (
    Candidates,
    Known,
    Query,
    check_k,
    check_magnitudes,
)


@overload
def dataset_sensitive_range(query: QueryLike, *, data: RealArrayLike, candidates: CandidatesLike, k: int = 1,
                            ddof: int = 0, q: float = 0.5, max_worlds: int = 10**8
                            ,
                            return_removed: Literal[False] = False) -> float: ...


@overload
def dataset_sensitive_range(query: QueryLike, *, data: RealArrayLike, candidates: CandidatesLike, k: int = 1,
                            ddof: int = 0, q: float = 0.5, max_worlds: int = 10**8
                            ,
                            return_removed: Literal[True]) -> tuple[float, IntArray]: ...


@shared_docs
def dataset_sensitive_range(query: QueryLike, *, data: RealArrayLike, candidates: CandidatesLike, k: int = 1,
                            ddof: int = 0, q: float = 0.5,
                            return_removed: bool = False, max_worlds: int = 10**8
                            ) -> float | tuple[float, IntArray]:
    """The sensitive range over every known part D' = data minus k individuals (paper sec. 5).

    Parameters
    ----------
    %(query)s
    %(data)s
    candidates : array_like or Domain
        U minus D (possibly empty), or a `Domain` that holds every value of the data.
    %(k_unknown)s
    %(ddof)s
    %(q)s
    return_removed : bool, optional
        Also return which removals attain the maximum (default False).
    max_worlds : int, optional
        Refuse more worlds, or distinct removals, than this (default 10**8).

    Returns
    -------
    S : float
        The largest S(f) over every D'.
    removed : ndarray of int64
        Only with ``return_removed``: the sorted indices into ``data`` of
        every attaining removal (one row of k per removal for k > 1).

    Raises
    ------
    ValueError
        As for `sensitive_range`; for bad data, data outside the Domain, or
        more than ``max_worlds`` worlds or removals.
    TypeError
        As for `sensitive_range`, or a ``return_removed`` that is not a bool.

    See Also
    --------
    sensitive_range : S(f) for one known part.
    sweep : This range, the calibrations and the risks over a grid.

    Examples
    --------
    >>> import diffident as di
    >>> di.dataset_sensitive_range("median", data=[1, 2, 3, 9],
    ...                            candidates=di.Domain(0, 10))
    4.0
    >>> S, removed = di.dataset_sensitive_range(
    ...     "median", data=[1, 2, 3, 9], candidates=di.Domain(0, 10),
    ...     return_removed=True)
    >>> removed.tolist()
    [1, 2]
    """
    qy, k, x, cands, return_removed, max_worlds = dataset_setup(query, data, candidates, k, ddof, q,
                                                                return_removed, max_worlds)
    out: float | tuple[float, IntArray] = dataset_sensitive_range_of(qy, k, x, cands, return_removed, max_worlds)
    return out


def dataset_sensitive_range_of(qy, k, x, cands, return_removed, max_worlds, order=None):
    """`dataset_sensitive_range` of validated parts (`dataset_setup`);
    ``order``, the stable argsort of ``x``, when the caller has it.
    """
    if order is None:
        order = np.argsort(x, kind="stable")
    xs = np.ascontiguousarray(x[order])
    if k == 1 and qy.named:
        S_by, first, counts = dataset_k1(qy, xs, cands)
    else:
        S_by, first, counts, combos = _dataset_general(qy, k, xs, cands, max_worlds)
    best = float(S_by.max())
    if not return_removed:
        return best
    hit = _attaining(qy, k, S_by, xs, first, counts, cands, combos if not (k == 1 and qy.named) else None)
    if k == 1:  # every individual of an attaining value class
        groups = hit if qy.named else [combos[g][0] for g in hit]
        idx = np.concatenate([order[first[g]:first[g] + counts[g]] for g in groups])
        return best, np.sort(idx).astype(np.int64)
    rows = []
    for g in hit:
        rows.extend(index_rows(combos[g], first, counts, order))
    return best, np.array(sorted(rows), dtype=np.int64).reshape(-1, k)


def dataset_setup(query, data, candidates, k, ddof, q, return_removed, max_worlds):
    """The validated arguments of the functions over every D' = data minus k
    individuals: (query, k, data, candidates, return_removed, max_worlds).
    """
    qy = Query(query, q, ddof)
    k = check_k(k)
    return_removed = _validate.flag("return_removed", return_removed)
    max_worlds = _validate.integer("max_worlds", max_worlds)
    x, cands = data_setup(data, candidates)
    query_setup(qy, k, x, cands)
    return qy, k, x, cands, return_removed, max_worlds


def data_setup(data, candidates):
    """``(data, candidates)`` validated: a non-empty 1-d finite float64
    array and the `Candidates` (possibly empty), every value of the data on
    the candidates' Domain where they are one.
    """
    x = _validate.finite("data", data)
    if x.ndim != 1 or x.size == 0:
        raise ValueError(f"data must be a non-empty one-dimensional array, got shape {x.shape}")
    # U minus D may be empty: the removed individuals are then the only
    # candidates, one world per D'
    cands = Candidates(candidates, allow_empty=True)
    off = ~cands.domain._on_grid(x) if cands.domain is not None else None
    if off is not None and off.any():
        raise ValueError(f"data must lie in {cands.domain!r}, got {float(x[off][0])!r}")
    return x, cands


def query_setup(qy, k, x, cands):
    """Check a `Query` and k against validated data and candidates: k at
    most the data's size, enough values for the query, magnitudes its
    arithmetic can hold.
    """
    if k > x.size:
        raise ValueError(f"k = {k} exceeds the number of individuals in data ({x.size})")
    if x.size < qy.min_size():  # every world has as many values as the data
        raise ValueError(f"data has {x.size} values: too few for {qy.name} with ddof={qy.ddof}")
    check_magnitudes(qy, x.size, ("data", x), ("candidates", cands))


def _attaining(qy, k, S_by, xs, first, counts, cands, combos):
    """The removals whose spread is the largest, ties decided exactly."""
    best = S_by.max()
    if combos is None:
        mag = _magnitude(qy, xs, cands)
    else:
        mag = np.abs(S_by).max()
    with np.errstate(over="ignore", invalid="ignore"):  # near the float maximum: inf (every removal near)
        tol = 64.0 * np.spacing(mag) + 4.0 * np.spacing(best)
    near = np.flatnonzero(S_by >= best - tol)
    if near.size == 1 or np.all(S_by[near] == best) or not qy.named:
        return np.flatnonzero(S_by == best)
    fs = xs[first]
    exact = []
    for g in near:
        removed = [g] * k if combos is None else list(combos[g])
        keep = counts.copy()
        for r in removed:
            keep[r] -= 1
        known = np.repeat(fs, keep)
        rem_vals = fs[removed]
        cand = cands if cands.domain is not None else cands.with_values(rem_vals)
        exact.append(_exact_spread(qy, k, cand, known))
    top = max(exact)
    return near[[e == top for e in exact]]


def _magnitude(qy, xs, cands):
    """A bound on the size of the query's values (for rounding tolerances)."""
    lo = min(xs[0], cands.lo) if cands.count else xs[0]
    hi = max(xs[-1], cands.hi) if cands.count else xs[-1]
    m = max(abs(lo), abs(hi))
    if qy.code == queries.SUM:
        return m * xs.size
    if qy.code == queries.VAR:
        return (hi - lo) ** 2
    return m if qy.code != queries.STD else hi - lo


def _exact_spread(qy, k, cands, known):
    """The spread of a named query over the worlds ``known + S``, in exact
    arithmetic: fractions (std through 120-digit decimals), over the same
    extreme worlds as `named_spread`; for deciding ties only.
    """
    import decimal
    from fractions import Fraction

    kn = [Fraction(x) for x in known.tolist()]
    s0, q0 = sum(kn, Fraction(0)), sum((x * x for x in kn), Fraction(0))
    n = len(kn) + k

    def exact(row):
        r = [Fraction(x) for x in np.ravel(row).tolist()]
        s = s0 + sum(r, Fraction(0))
        if qy.code == queries.SUM:
            return s
        if qy.code == queries.MEAN:
            return s / n
        var = ((q0 + sum((x * x for x in r), Fraction(0))) * n - s * s) / (n * (n - qy.ddof))
        return var

    rows_top = [cands.extremes(j, k) for j in range(k + 1)]
    if qy.code in (queries.SUM, queries.MEAN, queries.VAR, queries.STD):
        top = max(exact(r) for r in rows_top)
        if qy.code in (queries.VAR, queries.STD):
            if cands.real:  # the minimum at the clipped mean
                t = min(max(s0 / len(kn), Fraction(cands.lo)), Fraction(cands.hi)) if kn else Fraction(cands.lo)
                s = s0 + t * k
                bot = ((q0 + k * t * t) * n - s * s) / (n * (n - qy.ddof))
            else:
                bot = min(exact(r) for r in min_var_rows(k, cands, Known(known, cands.lo)))
        else:
            bot = min(exact(r) for r in rows_top)
        if qy.code != queries.STD:
            return top - bot
        with decimal.localcontext() as ctx:
            ctx.prec = 120

            def root(f):
                return (decimal.Decimal(f.numerator) / decimal.Decimal(f.denominator)).sqrt()

            return root(top) - root(bot)
    # order statistics, and the quantile's linear interpolation, exactly
    def order_stat(row):
        w = sorted(kn + [Fraction(x) for x in np.ravel(row).tolist()])
        N = len(w)
        if qy.code == queries.MIN:
            return w[0]
        if qy.code == queries.MAX:
            return w[-1]
        pos = Fraction(N - 1) * (Fraction(1, 2) if qy.code == queries.MEDIAN else Fraction(qy.q))
        lo = int(pos)
        return w[lo] if lo >= N - 1 else w[lo] + (w[lo + 1] - w[lo]) * (pos - lo)

    return order_stat(cands.extremes(0, k)) - order_stat(cands.extremes(k, k))


def dataset_k1(qy, xs, cands):
    """S(f) for each distinct removed value, one unknown individual."""
    n = xs.size
    fs, first, counts = _grouping.distinct(xs)
    u = fs.size
    if qy.code == queries.COUNT:
        return np.zeros(u), first, counts
    full = Known.checked(xs, 0.0)
    st = np.empty((u, 6))
    for g in range(u):
        queries.remove_stats(full.st, fs[g], full.c, st[g])
    if cands.domain is not None:
        lo = np.full(u, cands.lo)
        hi = np.full(u, cands.hi)
    elif cands.vals.size:  # U minus D' = candidates plus the removed value
        lo = np.minimum(cands.vals[0], fs)
        hi = np.maximum(cands.vals[-1], fs)
    else:  # the removed value is the only candidate
        lo, hi = fs.copy(), fs.copy()
    if qy.code in (queries.SUM, queries.MEAN):
        # f(D' + hi) - f(D' + lo) = (hi - lo) / N exactly: the same for every D'
        S = (hi - lo) / (n if qy.code == queries.MEAN else 1.0)
        return S, first, counts
    rem = first.copy()
    if qy.monotone:
        top = np.empty(u)
        bot = np.empty(u)
        queries.evaluate_removed(qy.code, hi[:, None], xs, rem, st, full.c, qy.ddof, qy.q, top)
        queries.evaluate_removed(qy.code, lo[:, None], xs, rem, st, full.c, qy.ddof, qy.q, bot)
        with np.errstate(over="ignore"):  # a range beyond the float range: inf
            return top - bot, first, counts
    # var, std: max at an end of the candidates, min at the candidate(s)
    # nearest the known part's mean (the variance is a parabola in v)
    if n == 1:  # no known part: every world is one value (var 0)
        return np.zeros(u), first, counts
    sums = np.ascontiguousarray(st[:, 0]), np.ascontiguousarray(st[:, 1])
    near = nearest(cands, fs, np.clip((sums[0] + sums[1]) / (n - 1), lo, hi))

    def evaluate(v):
        out = np.empty(u)
        queries.evaluate_removed(qy.code, np.ascontiguousarray(v[:, None]), xs, rem, st, full.c, qy.ddof, qy.q, out)
        return out

    return var_range_k1(qy, n - 1, sums, lo, hi, near, evaluate), first, counts


def _dataset_general(qy, k, xs, cands, max_worlds):
    """S(f) for each distinct multiset of k removed values."""
    fs, first, counts = _grouping.distinct(xs)
    combos = value_multisets(counts, k, max_worlds)
    S = np.empty(len(combos))
    for i, combo in enumerate(combos):
        keep = counts.copy()
        for g in combo:
            keep[g] -= 1
        known = np.repeat(fs, keep)
        removed = fs[list(combo)]
        cand = cands if cands.domain is not None else cands.with_values(removed)
        cand.check_k(k)
        kn = Known.checked(known, cand.lo)
        if qy.named:
            S[i] = named_spread(qy, k, cand, kn)
        else:
            lo, hi = enumerate_worlds(qy, k, cand, kn, max_worlds, reduce="range")
            S[i] = hi - lo
    return S, first, counts, combos


def value_multisets(counts, k, limit):
    """Every multiset of k group indices that the multiplicities allow."""
    out: list[tuple[int, ...]] = []

    def rec(start, left, acc):
        if len(out) > limit:
            raise ValueError(f"more than max_worlds={limit} distinct removals")
        if left == 0:
            out.append(tuple(acc))
            return
        for g in range(start, counts.size):
            used = acc.count(g)
            if used < counts[g]:
                acc.append(g)
                rec(g, left - 1, acc)
                acc.pop()

    rec(0, k, [])
    return out


def index_rows(combo, first, counts, order):
    """Every k-subset of data indices whose values make the multiset ``combo``
    (a tuple of distinct-value group numbers, with repeats).
    """
    choices = []
    for g in sorted(set(combo)):
        members = sorted(order[first[g]:first[g] + counts[g]].tolist())
        choices.append(list(itertools.combinations(members, combo.count(g))))
    return [tuple(sorted(sum(parts, ()))) for parts in itertools.product(*choices)]
