"""Kernels that evaluate a query on every world (Mathematics page, sections 1 and 6)."""

import math

import numpy as np

from . import dd
from ._jit import kernel, uncached_kernel

SUM, MEAN, MEDIAN, QUANTILE, MIN, MAX, VAR, STD, COUNT = range(9)


@kernel
def known_stats(ks, c, out):
    """out = [sum hi, sum lo, S1 hi, S1 lo, Q hi, Q lo] of the known part."""
    sh = sl = 0.0
    h1 = l1 = 0.0
    h2 = l2 = 0.0
    for x in ks:
        sh, sl = dd.add_d(sh, sl, x)
        dh, dl = dd.two_sum(x, -c)
        h1, l1 = dd.add(h1, l1, dh, dl)
        qh, ql = dd.sqr(dh, dl)
        h2, l2 = dd.add(h2, l2, qh, ql)
    out[0], out[1], out[2], out[3], out[4], out[5] = sh, sl, h1, l1, h2, l2


@kernel
def kth(ks, p, row, r):
    """The r-th smallest (0-based) of the union of the sorted known values
    (without the one at index p, if p >= 0) and a sorted row: O(k).
    """
    n0 = ks.size - (1 if p >= 0 else 0)
    k = row.size
    best = np.inf
    for a in range(max(0, r + 1 - n0), min(k, r + 1) + 1):
        i = r - a
        if i >= 0:
            x = ks[i + 1] if (p >= 0 and i >= p) else ks[i]
        else:
            x = -np.inf
        y = row[a - 1] if a >= 1 else -np.inf
        v = max(x, y)
        if v < best:
            best = v
    return best


@kernel
def _lerp(a, b, t):
    """numpy's _lerp, operation for operation; where b - a overflows (values
    near +-1.8e308), the same on the halves, doubled (exact).
    """
    diff = b - a
    if abs(diff) == np.inf:
        return 2.0 * _lerp(0.5 * a, 0.5 * b, t)
    if t >= 0.5:
        return b - diff * (1.0 - t)
    return a + diff * t


@kernel
def _middle(a, b):
    """(a + b) / 2 as numpy's median forms it; where a + b overflows, the
    halves summed (exact there: no half is subnormal).
    """
    s = a + b
    if abs(s) == np.inf:
        return 0.5 * a + 0.5 * b
    return s / 2.0


@kernel
def evaluate_row(code, row, ks, p, st, c, ddof, q):
    """query(known + row): known = ks without index p (p < 0: all of ks),
    ``st`` its statistics (see :func:`known_stats`).
    """
    k = row.size
    n0 = ks.size - (1 if p >= 0 else 0)
    N = n0 + k
    if code == SUM or code == MEAN:
        h, l = st[0], st[1]
        for j in range(k):
            h, l = dd.add_d(h, l, row[j])
        return h + l if code == SUM else dd.div_d(h, l, float(N))
    if code == VAR or code == STD:
        h1, l1, h2, l2 = st[2], st[3], st[4], st[5]
        if n0 == 0 and k > 0:  # no known part (its sums are 0 for any shift): the row's own
            c = row[0]  # value, not one far from it (the candidates' lowest), as the shift
        for j in range(k):
            dh, dl = dd.two_sum(row[j], -c)
            h1, l1 = dd.add(h1, l1, dh, dl)
            qh, ql = dd.sqr(dh, dl)
            h2, l2 = dd.add(h2, l2, qh, ql)
        ah, al = dd.mul_d(h2, l2, float(N))
        bh, bl = dd.sqr(h1, l1)
        nh, nl = dd.add(ah, al, -bh, -bl)
        v = max(dd.div_d(nh, nl, float(N) * float(N - ddof)), 0.0)
        return v if code == VAR else math.sqrt(v)
    if code == MIN:
        return kth(ks, p, row, np.int64(0))  # (not a literal 0: one specialisation)
    if code == MAX:
        return kth(ks, p, row, N - 1)
    if code == MEDIAN:
        h = N // 2
        if N % 2 == 1:
            return kth(ks, p, row, h)
        return _middle(kth(ks, p, row, h - 1), kth(ks, p, row, h))
    if code == QUANTILE:
        vi = float(N - 1) * q
        if vi >= N - 1:
            return kth(ks, p, row, N - 1)
        lo = int(math.floor(vi))
        return _lerp(kth(ks, p, row, lo), kth(ks, p, row, lo + 1), vi - lo)
    return float(N)  # COUNT


@kernel
def evaluate(code, S, ks, st, c, ddof, q, out):
    """out[w] = query(known + S[w]) for each row of S (rows sorted)."""
    for w in range(S.shape[0]):
        out[w] = evaluate_row(code, S[w], ks, np.int64(-1), st, c, ddof, q)  # (not a literal: one specialisation)


@kernel
def evaluate_removed(code, S, ks, rem, st, c, ddof, q, out):
    """out[w] = query(ks without index rem[w], plus S[w]); st[w] are the
    statistics of that known part.
    """
    for w in range(S.shape[0]):
        out[w] = evaluate_row(code, S[w], ks, rem[w], st[w], c, ddof, q)


@kernel
def fill_combinations(vals, state, repeat, S):
    """Write the next worlds' unknown parts into the rows of S."""
    W, k = S.shape
    n = vals.size
    w = 0
    while w < W and state[0] >= 0:
        row = S[w]
        for j in range(k):
            row[j] = vals[state[j]]
        w += 1
        i = k - 1
        while i >= 0:
            limit = n - 1 if repeat else n - k + i
            if state[i] < limit:
                break
            i -= 1
        if i < 0:
            state[0] = -1
            break
        state[i] += 1
        for j in range(i + 1, k):
            state[j] = state[i] if repeat else state[j - 1] + 1
    return w


@uncached_kernel
def evaluate_jitted_callable(f, known, S, out):
    """A numba-jitted query over each world known + S[w] (not cached: it is
    compiled anew for each query function).
    """
    n0 = known.size
    W, k = S.shape
    buf = np.empty(n0 + k)
    for w in range(W):
        buf[:n0] = known
        buf[n0:] = S[w]
        out[w] = f(buf)


@kernel
def remove_stats(st, x, c, out):
    """Statistics of a known part after removing one value x."""
    out[0], out[1] = dd.add_d(st[0], st[1], -x)
    dh, dl = dd.two_sum(x, -c)
    out[2], out[3] = dd.add(st[2], st[3], -dh, -dl)
    qh, ql = dd.sqr(dh, dl)
    out[4], out[5] = dd.add(st[4], st[5], -qh, -ql)
