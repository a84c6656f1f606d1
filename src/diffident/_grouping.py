"""Grouping: equal values merged into one group with a summed weight.

Every computation on a world set works on its sorted distinct values: a
value held by c worlds is one group of weight c (or of the worlds' summed
count x prior).  The functions here are the one place that builds groups;
the run-length kernels are in ``_kernels.grouping``.
"""

import numpy as np

from ._kernels import sort as radix
from ._kernels.grouping import group_sorted, group_sums, group_weights

__all__ = ["runs", "run_lengths", "distinct", "group_counts", "chunk_groups", "group_sums", "group_weights"]


def runs(sorted_values):
    """Distinct values of sorted values and the index where each run starts.

    Returns ``(distinct, first)``: float64 and int64 arrays of the number of
    runs.  They own their memory (copies of the work buffers' heads) unless
    every value is distinct: then the work buffers are the answer and
    copying them would only cost time (80 MB each at 1e7 values).
    """
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
    """Distinct values (times ``2**k``) and weights of one sorted chunk.

    ``c`` holds the chunk's counts (None: one each).  ``plan`` is the
    chunk's ``(drop_first, extra)`` entry of the merge across chunk
    boundaries: a first value that continues the previous chunk's last group
    is dropped, and the weight of a last value that continues into the next
    chunks is increased by ``extra``.  Groups of zero weight are dropped.
    """
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
