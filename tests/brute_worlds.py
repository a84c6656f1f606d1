"""Brute-force reference for possible worlds and sensitive ranges.

Written from /work/shared/MATH.md sections 1, 3 and 6 and the worlds spec,
with the plainest possible code.  It does not import diffident; speed is
irrelevant.  Every world is built explicitly and the query is evaluated on it
with NumPy.

Candidates are given as

* an explicit 1-d array: the multiset of candidate individuals (repeated
  values are distinct individuals); the worlds are ``known + S`` for every
  k-subset S of candidate *indices*: C(N, k) worlds;
* a tuple ``(lo, hi)`` of integers: the integer interval lo, lo+1, ..., hi;
  the k unknown values range over it *with repetition*, one world per
  multiset of size k: C(m + k - 1, k) worlds.

Real intervals have infinitely many worlds; :func:`grid_sensitive_range`
evaluates the query on a dense grid instead (an approximation from below
that is exact when the grid contains the extreme points).

A named query is evaluated on the world sorted ascending, so that two
worlds holding the same multiset of values give bit-identical results (the
named queries are symmetric; only floating-point rounding could depend on
the order).  Callables get the world in construction order: known values
first, then the chosen candidates in index order.
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np

NAMES = ("sum", "mean", "median", "quantile", "min", "max", "var", "std", "count")

__all__ = [
    "NAMES",
    "candidate_values",
    "enumerate_worlds",
    "evaluate",
    "world_values",
    "sensitive_range",
    "contributions",
    "dataset_sensitive_range",
    "grid_sensitive_range",
    "grid_dataset_sensitive_range",
]


def _is_interval(candidates):
    return isinstance(candidates, tuple)


def candidate_values(candidates):
    """The candidate individuals' values as a float array (an integer
    interval: its values lo..hi in order)."""
    if _is_interval(candidates):
        lo, hi = candidates
        return np.arange(int(lo), int(hi) + 1, dtype=np.float64)
    return np.asarray(candidates, dtype=np.float64).ravel()


def enumerate_worlds(known, candidates, k):
    """Yield every possible world as a 1-d float64 array (known values
    first, then the k chosen candidates)."""
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
    """f(world) for a query name or a callable."""
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


def all_values(query, known, candidates, k=1, ddof=0, q=0.5):
    """f of every world, in enumeration order (a float array)."""
    return np.array(
        [evaluate(query, w, ddof, q) for w in enumerate_worlds(known, candidates, k)],
        dtype=np.float64,
    )


def world_values(query, known, candidates, k=1, ddof=0, q=0.5):
    """(sorted distinct values, int64 counts), counted over exact floats."""
    counter = Counter(all_values(query, known, candidates, k, ddof, q).tolist())
    keys = sorted(counter)
    return (np.array(keys, dtype=np.float64),
            np.array([counter[v] for v in keys], dtype=np.int64))


def sensitive_range(query, known, candidates, k=1, ddof=0, q=0.5):
    """max over worlds of f - min over worlds of f."""
    f = all_values(query, known, candidates, k, ddof, q)
    return float(f.max() - f.min())


def contributions(query, known, candidates, ddof=0, q=0.5):
    """C_f(i) = max over j != i of |f(known + {c_i}) - f(known + {c_j})|
    (k = 1; 0 when there is a single candidate)."""
    f = all_values(query, known, candidates, 1, ddof, q)
    out = np.zeros(f.size)
    for i in range(f.size):
        best = 0.0
        for j in range(f.size):
            if j != i:
                best = max(best, abs(f[i] - f[j]))
        out[i] = best
    return out


def candidates_for(candidates, data, removed):
    """The candidates of the adversary who knows data minus ``removed``: an
    interval stays itself; an explicit array gains the removed values."""
    if _is_interval(candidates):
        return candidates
    data = np.asarray(data, dtype=np.float64).ravel()
    return np.concatenate([candidate_values(candidates), data[list(removed)]])


def removal_ranges(query, data, candidates, k=1, ddof=0, q=0.5):
    """{removed index tuple: sensitive range of that adversary}."""
    data = np.asarray(data, dtype=np.float64).ravel()
    out = {}
    for removed in itertools.combinations(range(data.size), k):
        known = np.delete(data, list(removed))
        out[removed] = sensitive_range(query, known, candidates_for(candidates, data, removed),
                                       k, ddof, q)
    return out


def dataset_sensitive_range(query, data, candidates, k=1, ddof=0, q=0.5):
    """(S, attaining): S = max over every removal of k data individuals of
    the sensitive range; attaining = every removal index tuple (sorted
    indices, lexicographic order) whose range equals S exactly."""
    ranges = removal_ranges(query, data, candidates, k, ddof, q)
    s = max(ranges.values())
    return s, sorted(r for r, v in ranges.items() if v == s)


# ---------------------------------------------------------------------------
# real intervals: dense grids
# ---------------------------------------------------------------------------

def real_grid(known, lo, hi, npts):
    """npts equispaced points of [lo, hi] plus lo, hi and mean(known)
    clipped to [lo, hi] (the minimiser of the variance for k = 1)."""
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


def grid_sensitive_range(query, known, lo, hi, k=1, ddof=0, q=0.5, npts=20001):
    """max - min of f over worlds known + S, S a k-multiset of grid points of
    [lo, hi] (see :func:`real_grid`).  Use a small npts for k > 1."""
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


def grid_dataset_sensitive_range(query, data, lo, hi, k=1, ddof=0, q=0.5, npts=20001):
    """{removed index tuple: grid sensitive range} for a real interval."""
    data = np.asarray(data, dtype=np.float64).ravel()
    out = {}
    for removed in itertools.combinations(range(data.size), k):
        known = np.delete(data, list(removed))
        out[removed] = grid_sensitive_range(query, known, lo, hi, k, ddof, q, npts)
    return out
