"""Brute-force reference for possible worlds, sensitive ranges and membership.

Written from the Mathematics page (sections 1, 3, 6 and 8) and the worlds spec, with the
plainest possible code.  It does not call diffident; speed is irrelevant.
Every world is built explicitly and the query is evaluated on it with NumPy.

Candidates are given as

* an explicit 1-d array: the multiset of candidate individuals (repeated
  values are distinct individuals); the worlds are ``known + S`` for every
  k-subset S of candidate *indices*: C(N, k) worlds;
* a tuple ``(lo, hi)`` of integers: the integer interval lo, lo+1, ..., hi;
  the k unknown values range over it *with repetition*, one world per
  multiset of size k: C(m + k - 1, k) worlds;
* a tuple ``(lo, hi, step)`` of decimal strings (or fractions): the grid
  lo, lo + step, ..., hi, each point computed in exact rational arithmetic
  and rounded once to a float; worlds as for an integer interval.

Real intervals have infinitely many worlds; `grid_sensitive_range`
evaluates the query on a dense grid instead (an approximation from below
that is exact when the grid contains the extreme points).

A named query is evaluated on the world sorted ascending, so that two
worlds holding the same multiset of values give bit-identical results (the
named queries are symmetric; only floating-point rounding could depend on
the order).  Callables get the world in construction order: known values
first, then the chosen candidates in index order.

`membership_posterior` and `membership_risk` (Mathematics page, eq. 8.2) enumerate
the worlds of k unknown individuals and sum the posteriors of
`diffident.testing.dense.dense_posterior` over the worlds that hold a given
candidate.
"""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import numba
import numpy as np

from .dense import dense_posterior

NAMES = ("sum", "mean", "median", "quantile", "min", "max", "var", "std", "count")

__all__ = [
    "NAMES",
    "candidate_values",
    "enumerate_worlds",
    "evaluate",
    "all_values",
    "world_values",
    "sensitive_range",
    "contributions",
    "candidates_for",
    "removal_ranges",
    "dataset_sensitive_range",
    "real_grid",
    "grid_sensitive_range",
    "grid_dataset_sensitive_range",
    "membership_posterior",
    "membership_risk",
    "jit_spread",
]


def _is_interval(candidates):
    return isinstance(candidates, tuple)


def candidate_values(candidates):
    """The candidate individuals' values as a float array.

    ``candidates`` is an explicit 1-d array (returned as float64), an
    integer interval ``(lo, hi)`` (its values lo..hi in order) or a grid
    ``(lo, hi, step)`` (its points lo + i step, exact, then rounded once).
    """
    if _is_interval(candidates) and len(candidates) == 3:
        lo, hi, step = (Fraction(x) for x in candidates)
        points = []
        x = lo
        while x <= hi:
            points.append(float(x))
            x += step
        return np.array(points, dtype=np.float64)
    if _is_interval(candidates):
        lo, hi = candidates
        return np.arange(int(lo), int(hi) + 1, dtype=np.float64)
    return np.asarray(candidates, dtype=np.float64).ravel()


def enumerate_worlds(known, *, candidates, k):
    """Yield every possible world as a 1-d float64 array.

    Each world holds the ``known`` values first, then the k chosen
    candidates (a k-subset of an explicit array's indices, or a k-multiset
    of an integer interval's values).
    """
    known = np.asarray(known, dtype=np.float64).ravel()
    if _is_interval(candidates):
        values = candidate_values(candidates)
        for combo in itertools.combinations_with_replacement(values.tolist(), k):
            yield np.concatenate([known, np.array(combo, dtype=np.float64)])
    else:
        cand = candidate_values(candidates)
        for idx in itertools.combinations(range(cand.size), k):
            yield np.concatenate([known, cand[list(idx)]])


def evaluate(query, world, ddof=0, q=0.5):
    """The query's value on one world, a float.

    ``query`` is a name of `NAMES` (evaluated on the sorted world, with
    ``ddof`` for var/std and ``q`` for quantile) or a callable that gets the
    world as it is.
    """
    world = np.asarray(world, dtype=np.float64)
    if callable(query):
        return float(query(world))
    w = np.sort(world)
    if query == "sum":
        return float(np.sum(w))
    if query == "mean":
        return float(np.mean(w))
    if query == "median":
        return float(np.median(w))
    if query == "quantile":
        return float(np.quantile(w, q))
    if query == "min":
        return float(np.min(w))
    if query == "max":
        return float(np.max(w))
    if query == "var":
        return float(np.var(w, ddof=ddof))
    if query == "std":
        return float(np.std(w, ddof=ddof))
    if query == "count":
        return float(len(w))
    raise ValueError(f"unknown query {query!r}")


def all_values(query, *, known, candidates, k=1, ddof=0, q=0.5):
    """The query's value on every world, in enumeration order.

    Arguments as in `enumerate_worlds` and `evaluate`; returns a float
    array of one value per world.
    """
    return np.array(
        [evaluate(query, w, ddof, q) for w in enumerate_worlds(known, candidates=candidates, k=k)],
        dtype=np.float64,
    )


def world_values(query, *, known, candidates, k=1, ddof=0, q=0.5):
    """The distinct world values and how many worlds give each.

    Arguments as in `all_values`; returns (sorted distinct values, int64
    counts), the worlds counted over exactly equal floats.
    """
    counter = Counter(all_values(query, known=known, candidates=candidates, k=k, ddof=ddof, q=q).tolist())
    keys = sorted(counter)
    return (np.array(keys, dtype=np.float64),
            np.array([counter[v] for v in keys], dtype=np.int64))


def sensitive_range(query, *, known, candidates, k=1, ddof=0, q=0.5):
    """The sensitive range, max over worlds of f minus min over worlds of f.

    Arguments as in `all_values`; returns a float.
    """
    f = all_values(query, known=known, candidates=candidates, k=k, ddof=ddof, q=q)
    return float(f.max() - f.min())


def contributions(query, *, known, candidates, ddof=0, q=0.5):
    """Each candidate's contribution to the sensitive range (k = 1).

    C_f(i) = max over j != i of |f(known + {c_i}) - f(known + {c_j})|, 0
    when there is a single candidate.  Returns a float array, one entry per
    candidate.
    """
    f = all_values(query, known=known, candidates=candidates, k=1, ddof=ddof, q=q)
    out = np.zeros(f.size)
    for i in range(f.size):
        best = 0.0
        for j in range(f.size):
            if j != i:
                best = max(best, abs(f[i] - f[j]))
        out[i] = best
    return out


def candidates_for(candidates, *, data, removed):
    """The candidates of the adversary who knows data minus ``removed``.

    An integer interval stays itself; an explicit array gains the removed
    individuals' values (``removed`` is a tuple of indices into ``data``).
    """
    if _is_interval(candidates):
        return candidates
    data = np.asarray(data, dtype=np.float64).ravel()
    return np.concatenate([candidate_values(candidates), data[list(removed)]])


def removal_ranges(query, *, data, candidates, k=1, ddof=0, q=0.5):
    """The sensitive range of every adversary who misses k individuals.

    Returns {removed index tuple: sensitive range}, one entry per k-subset
    of the individuals of ``data``, each range over `candidates_for`.
    """
    data = np.asarray(data, dtype=np.float64).ravel()
    out = {}
    for removed in itertools.combinations(range(data.size), k):
        known = np.delete(data, list(removed))
        out[removed] = sensitive_range(query, known=known, candidates=candidates_for(candidates, data=data,
                                                                                     removed=removed),
                                       k=k, ddof=ddof, q=q)
    return out


def dataset_sensitive_range(query, *, data, candidates, k=1, ddof=0, q=0.5):
    """The dataset-level sensitive range and the removals attaining it.

    Returns (S, attaining): S is the maximum over every removal of k data
    individuals of the sensitive range (`removal_ranges`); attaining is
    every removal index tuple (sorted indices, lexicographic order) whose
    range equals S exactly.
    """
    ranges = removal_ranges(query, data=data, candidates=candidates, k=k, ddof=ddof, q=q)
    s = max(ranges.values())
    return s, sorted(r for r, v in ranges.items() if v == s)


# ---------------------------------------------------------------------------
# real intervals: dense grids
# ---------------------------------------------------------------------------

def real_grid(known, lo, hi, npts):
    """A dense grid of a real interval that holds its extreme points.

    ``npts`` equispaced points of [lo, hi] plus lo, hi and mean(known)
    clipped to [lo, hi] (the minimiser of the variance for k = 1); returns
    the sorted distinct points.
    """
    pts = [np.linspace(lo, hi, npts), [lo, hi]]
    known = np.asarray(known, dtype=np.float64).ravel()
    if known.size:
        pts.append([min(max(float(np.mean(known)), lo), hi)])
    return np.unique(np.concatenate([np.asarray(p, dtype=np.float64) for p in pts]))


def _evaluate_rows(query, worlds, ddof, q):
    """A named query on each row of a 2-d array of worlds."""
    funcs = {
        "sum": lambda w: np.sum(w, axis=1),
        "mean": lambda w: np.mean(w, axis=1),
        "median": lambda w: np.median(w, axis=1),
        "quantile": lambda w: np.quantile(w, q, axis=1),
        "min": lambda w: np.min(w, axis=1),
        "max": lambda w: np.max(w, axis=1),
        "var": lambda w: np.var(w, ddof=ddof, axis=1),
        "std": lambda w: np.std(w, ddof=ddof, axis=1),
        "count": lambda w: np.full(w.shape[0], float(w.shape[1])),
    }
    return np.asarray(funcs[query](worlds), dtype=np.float64)


def grid_sensitive_range(query, *, known, lo, hi, k=1, ddof=0, q=0.5, npts=20001):
    """The sensitive range over a real interval, on a dense grid.

    max - min of f over worlds known + S, S a k-multiset of the points of
    `real_grid` (use a small ``npts`` for k > 1).  Returns a float.
    """
    grid = real_grid(known, lo, hi, npts)
    known = np.asarray(known, dtype=np.float64).ravel()
    if k == 1 and not callable(query):
        worlds = np.sort(np.column_stack([np.tile(known, (grid.size, 1)), grid]), axis=1)
        f = _evaluate_rows(query, worlds, ddof, q)
        return float(f.max() - f.min())
    fmin, fmax = np.inf, -np.inf
    for combo in itertools.combinations_with_replacement(grid.tolist(), k):
        v = evaluate(query, np.concatenate([known, np.array(combo)]), ddof, q)
        fmin = min(fmin, v)
        fmax = max(fmax, v)
    return float(fmax - fmin)


def grid_dataset_sensitive_range(query, *, data, lo, hi, k=1, ddof=0, q=0.5, npts=20001):
    """The grid sensitive range of every adversary who misses k individuals.

    Returns {removed index tuple: `grid_sensitive_range`} over the real
    interval [lo, hi], one entry per k-subset of the individuals of ``data``.
    """
    data = np.asarray(data, dtype=np.float64).ravel()
    out = {}
    for removed in itertools.combinations(range(data.size), k):
        known = np.delete(data, list(removed))
        out[removed] = grid_sensitive_range(query, known=known, lo=lo, hi=hi, k=k, ddof=ddof, q=q, npts=npts)
    return out


# ---------------------------------------------------------------------------
# a jitted callable query
# ---------------------------------------------------------------------------

@numba.njit
def jit_spread(w):
    """The spread max - min of a world, as a Numba-jitted callable query.

    The user callable of the enumeration benchmarks (``world_values`` with a
    jitted function over millions of worlds); ``w`` is a 1-d float array.
    Returns a float.
    """
    lo = w[0]
    hi = w[0]
    for x in w:
        lo = min(lo, x)
        hi = max(hi, x)
    return hi - lo


# ---------------------------------------------------------------------------
# membership (Mathematics page, eq. 8.2)
# ---------------------------------------------------------------------------

def _membership_worlds(query, known, candidates, k):
    """(the released value of every world, a boolean (worlds, N) table of
    which candidates each world holds).
    """
    cand = candidate_values(candidates)
    combos = list(itertools.combinations(range(cand.size), k))
    f = np.array([evaluate(query, np.concatenate([np.asarray(known, dtype=np.float64), cand[list(c)]]))
                  for c in combos])
    holds = np.zeros((len(combos), cand.size), dtype=bool)
    for row, c in enumerate(combos):
        holds[row, list(c)] = True
    return f, holds


def membership_posterior(query, *, known, candidates, scale, response, k=1):
    """P(candidate i is in D | R) for every candidate, by enumeration.

    The worlds are ``known`` plus every k-subset of the explicit
    ``candidates``; the posterior of each world at each response (Laplace
    noise of ``scale``, `dense_posterior`) is summed over the worlds that
    hold candidate i.  Returns an (n responses, N candidates) array.
    """
    f, holds = _membership_worlds(query, known, candidates, k)
    return dense_posterior(f, response=response, scale=scale) @ holds


def membership_risk(query, *, known, candidates, scale, k=1, points=301, pad=3.0):
    """Each candidate's largest membership posterior over a response grid.

    The grid holds every world value and ``points`` equispaced points from
    ``pad`` below the smallest to ``pad`` above the largest; the maximum of
    `membership_posterior` over it, per candidate.  Returns an (N,) array.
    """
    f, holds = _membership_worlds(query, known, candidates, k)
    R = np.unique(np.concatenate([f, np.linspace(f.min() - pad, f.max() + pad, points)]))
    return (dense_posterior(f, response=R, scale=scale) @ holds).max(axis=0)
