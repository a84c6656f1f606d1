"""Brute-force reference for possible worlds, sensitive ranges and membership."""

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
    """The candidate individuals' values as a float64 array."""
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
    """Yield every possible world: the ``known`` values, then k candidates."""
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
    """The query's value on one world: a name of `NAMES` (sorted world) or a callable."""
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
    """The query's value on every world, in enumeration order (a float array)."""
    return np.array(
        [evaluate(query, w, ddof, q) for w in enumerate_worlds(known, candidates=candidates, k=k)],
        dtype=np.float64,
    )


def world_values(query, *, known, candidates, k=1, ddof=0, q=0.5):
    """The distinct world values (sorted) and how many worlds give each."""
    counter = Counter(all_values(query, known=known, candidates=candidates, k=k, ddof=ddof, q=q).tolist())
    keys = sorted(counter)
    return (np.array(keys, dtype=np.float64),
            np.array([counter[v] for v in keys], dtype=np.int64))


def sensitive_range(query, *, known, candidates, k=1, ddof=0, q=0.5):
    """The sensitive range, max minus min of f over the worlds (a float)."""
    f = all_values(query, known=known, candidates=candidates, k=k, ddof=ddof, q=q)
    return float(f.max() - f.min())


def contributions(query, *, known, candidates, ddof=0, q=0.5):
    """Each candidate's contribution to the sensitive range (k = 1)."""
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
    """The candidates of the adversary who knows data minus ``removed``."""
    if _is_interval(candidates):
        return candidates
    data = np.asarray(data, dtype=np.float64).ravel()
    return np.concatenate([candidate_values(candidates), data[list(removed)]])


def removal_ranges(query, *, data, candidates, k=1, ddof=0, q=0.5):
    """{removed index tuple: sensitive range} for every k-subset of ``data``."""
    data = np.asarray(data, dtype=np.float64).ravel()
    out = {}
    for removed in itertools.combinations(range(data.size), k):
        known = np.delete(data, list(removed))
        out[removed] = sensitive_range(query, known=known, candidates=candidates_for(candidates, data=data,
                                                                                     removed=removed),
                                       k=k, ddof=ddof, q=q)
    return out


def dataset_sensitive_range(query, *, data, candidates, k=1, ddof=0, q=0.5):
    """The dataset-level sensitive range S and every removal attaining it."""
    ranges = removal_ranges(query, data=data, candidates=candidates, k=k, ddof=ddof, q=q)
    s = max(ranges.values())
    return s, sorted(r for r, v in ranges.items() if v == s)


# ---------------------------------------------------------------------------
# real intervals: dense grids
# ---------------------------------------------------------------------------

def real_grid(known, lo, hi, npts):
    """Equispaced points of [lo, hi] plus lo, hi and mean(known) clipped (sorted)."""
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
    """The sensitive range over a real interval, on `real_grid`."""
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
    """{removed index tuple: `grid_sensitive_range`} over [lo, hi]."""
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
    """The spread max - min of a world: a Numba-jitted callable query."""
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
    """(each world's value, a (worlds, N) table of the candidates it holds)."""
    cand = candidate_values(candidates)
    combos = list(itertools.combinations(range(cand.size), k))
    f = np.array([evaluate(query, np.concatenate([np.asarray(known, dtype=np.float64), cand[list(c)]]))
                  for c in combos])
    holds = np.zeros((len(combos), cand.size), dtype=bool)
    for row, c in enumerate(combos):
        holds[row, list(c)] = True
    return f, holds


def membership_posterior(query, *, known, candidates, scale, response, k=1):
    """P(candidate i is in D | R), (n responses, N candidates), by enumeration."""
    f, holds = _membership_worlds(query, known, candidates, k)
    return dense_posterior(f, response=response, scale=scale) @ holds


def membership_risk(query, *, known, candidates, scale, k=1, points=301, pad=3.0):
    """Each candidate's largest membership posterior over a response grid."""
    f, holds = _membership_worlds(query, known, candidates, k)
    R = np.unique(np.concatenate([f, np.linspace(f.min() - pad, f.max() + pad, points)]))
    return (dense_posterior(f, response=R, scale=scale) @ holds).max(axis=0)
