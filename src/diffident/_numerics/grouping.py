"""Grouping: equal values merged into one group with a summed weight."""

import numpy as np

from .._kernels import sort as radix
from .._kernels.grouping import BLOCK, group_sorted, group_sums, group_weights, packed_groups

__all__ = ["runs", "run_lengths", "distinct", "group_counts", "chunk_groups", "group_sums", "group_weights",
           "weighted_groups"]


def runs(sorted_values):
    """Distinct values of sorted values and the index where each run starts."""
    n = sorted_values.size
    fs = np.empty(n)
    first = np.empty(n, np.int64)
    u = group_sorted(sorted_values, fs, first)
    if u == n:
        return fs, first
    return fs[:u].copy(), first[:u].copy()


def run_lengths(first, n):
    """The length of each run, from where each run starts and the total ``n``."""
    return np.diff(np.append(first, n))


def distinct(sorted_values):
    """Distinct values of sorted values, where each run starts, and its length."""
    fs, first = runs(sorted_values)
    return fs, first, run_lengths(first, sorted_values.size)


def weighted_groups(f, w, m, c, p, scale):
    """The groups of the ``m`` entries of positive weight ``w``: their sorted
    distinct values ``fs``, the sums ``W`` of count x ``scale`` x prior (in
    the stable order of the values, left to right), the largest prior ``P``
    and the index ``rep`` of the first world that holds it.  ``f``, ``w``,
    ``c`` (None: every count 1), ``p``: contiguous float64 arrays of one
    length.
    """
    shift = max(1, (m - 1).bit_length())
    if m < radix.SMALL or 2 * shift > 62:
        live = np.flatnonzero(w > 0)
        order = live[radix.argsort(np.ascontiguousarray(f[live]))] if m < f.size else radix.argsort(f)
        fs, first = runs(f[order])
        u = fs.size
        W, P, rep = np.empty(u), np.empty(u), np.empty(u, np.int64)
        cs = np.full(m, float(scale)) if c is None else c[order] * scale
        group_weights(first, m, cs, p[order], order, W, P, rep)
        return fs, W, P, rep
    full = c is not None or m < f.size
    packed = np.empty(m, np.int64)
    rec = np.empty(m * (4 if full else 2), np.int64)
    if c is None:  # (unread without full)
        c = np.ones(f.size) if full else np.empty(0)
    radix.pack(f.view(np.int64), w, c, p, float(scale), shift, full, packed, rec,
               rec.view(np.float64))
    packed = radix.sort_keys(packed)
    longest = radix.longest_run(packed, shift)
    sv, sc, sp, si = np.empty((4, BLOCK + longest), np.int64)
    keys, tmp = np.empty((2, longest), np.int64)
    fs, W, P = np.empty(m), np.empty(m), np.empty(m)
    rep = np.empty(m, np.int64)
    u = packed_groups(packed, shift, rec, full, float(scale), sv, sc, sp, si, sv.view(np.float64),
                      sc.view(np.float64), sp.view(np.float64), keys, tmp, radix.histograms(), fs, W, P, rep)
    if u == m:
        return fs, W, P, rep
    return fs[:u].copy(), W[:u].copy(), P[:u].copy(), rep[:u].copy()


def group_counts(values, counts=None):
    """Sorted distinct values of ``values`` and their counts (int64).

    ``counts`` (optional, one per value) are summed within each group.
    """
    values = np.ascontiguousarray(values)
    if counts is None:
        fs, first = runs(radix.sort(values))
        return fs, run_lengths(first, values.size).astype(np.int64)
    order = radix.argsort(values)
    fs, first = runs(values[order])
    return fs, np.add.reduceat(counts[order], first).astype(np.int64)


def chunk_groups(f, c, plan=(False, 0.0), k=0):
    """Distinct values (times ``2**k``) and weights of one sorted chunk."""
    fs, first = runs(f)
    w = run_lengths(first, f.size).astype(np.float64) if c is None else np.add.reduceat(c, first)
    drop, extra = plan
    if extra:
        w[-1] += extra
    if drop:
        fs, w = fs[1:], w[1:]
    keep = w > 0
    fs = fs[keep]
    return np.ascontiguousarray(np.ldexp(fs, k) if k else fs), np.ascontiguousarray(w[keep])
