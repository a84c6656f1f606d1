"""Kernels for the posterior normaliser (log-evidence) under Laplace or
Gaussian noise.

Notation: worlds with values ``f``, log weights ``lw`` (log of count times
prior, normalised so that the largest prior is 1; ``-inf`` for zero weight),
a response ``R``, and the energy of a distance x: ``x inv`` with
``inv = 1 / scale`` (Laplace) or ``x^2 inv`` with ``inv = 1 / (2 sigma^2)``
(Gaussian, ``gauss`` true).  The log-evidence is
``log sum_k exp(lw_k - e(|R - f_k|))``.

Every sum is taken relative to a shift and reported as a mergeable triple
``(d, g, S)``: the sum equals ``exp(-d * inv + g) * S`` where ``d`` is a
distance (the smallest ``|R - f|`` among worlds of positive weight), ``g``
the largest log weight relative to it and ``S`` a sum of terms in (0, 1].
Triples of separate chunks merge associatively (MATH.md section 8), which is
how one response over 1e7 worlds is split across threads in one pass over
memory, each chunk being read once into cache and reused there.

Distances enter as ``(|s| - d) + e`` with ``(s, e) = two_diff(R, f)``: the
relative distance of two worlds keeps full precision even when ``R`` lies
1e6 spreads away from the worlds and the scale is 1e-6 of the spread.

Two strategies, chosen by the public wrapper:
* direct: O(m) per (response, scale) point, vectorised, threaded either over
  points (many points) or over chunks of worlds (one point);
* sweep (MATH.md section 4): per distinct scale, the left and right sums
  ``A`` and ``B`` over the sorted distinct values in O(u); the normaliser at
  any response is then two terms around its position, found by binary
  search.
"""

import math

import numba
import numpy as np

from ._math import exp, sum8, two_diff
from .worstcase import neighbour_factors

CHUNK = 512


# ----------------------------------------------------------------- direct --

@numba.njit(cache=True)
def _min8(x):
    """Smallest element, and 0.0 (NaN if an element is inf or NaN), in one
    pass with independent chains."""
    n = x.size
    a0 = a1 = a2 = a3 = np.inf
    z0 = z1 = 0.0
    j = 0
    while j + 4 <= n:
        a0 = min(a0, x[j])
        a1 = min(a1, x[j + 1])
        a2 = min(a2, x[j + 2])
        a3 = min(a3, x[j + 3])
        z0 += x[j] * 0.0 + x[j + 1] * 0.0
        z1 += x[j + 2] * 0.0 + x[j + 3] * 0.0
        j += 4
    while j < n:
        a0 = min(a0, x[j])
        z0 += x[j] * 0.0
        j += 1
    return min(min(a0, a1), min(a2, a3)), z0 + z1


@numba.njit(cache=True)
def _min_distance_weighted(f, lw, R):
    """Smallest |R - f| over worlds of positive weight, and 0.0 (NaN if a
    value is not finite: checked in the pass that reads them anyway)."""
    n = f.size
    m0 = m1 = np.inf
    z0 = 0.0
    j = 0
    while j + 2 <= n:
        d0 = abs(R - f[j])
        d1 = abs(R - f[j + 1])
        m0 = min(m0, d0 if lw[j] > -np.inf else np.inf)
        m1 = min(m1, d1 if lw[j + 1] > -np.inf else np.inf)
        z0 += f[j] * 0.0 + f[j + 1] * 0.0
        j += 2
    while j < n:
        if lw[j] > -np.inf:
            m0 = min(m0, abs(R - f[j]))
        z0 += f[j] * 0.0
        j += 1
    return min(m0, m1), z0


@numba.njit(cache=True)
def _max8(x):
    n = x.size
    a0 = a1 = a2 = a3 = -np.inf
    j = 0
    while j + 4 <= n:
        a0 = max(a0, x[j])
        a1 = max(a1, x[j + 1])
        a2 = max(a2, x[j + 2])
        a3 = max(a3, x[j + 3])
        j += 4
    while j < n:
        a0 = max(a0, x[j])
        j += 1
    return max(max(a0, a1), max(a2, a3))


@numba.njit(cache=True)
def _energy_diff(dh, dl, d, inv, gauss):
    """e(|R - f|) - e(d) for the distance dh + dl (a double-double pair) and
    a shift distance d: Laplace e(x) = x inv, Gaussian e(x) = x^2 inv with
    inv = 1 / (2 sigma^2), the difference of squares factored so that it
    keeps its relative precision."""
    diff = (dh - d) + dl
    if gauss:
        return diff * (dh + d) * inv
    return diff * inv


@numba.njit(cache=True)
def _rel_energy(R, f, d, inv, gauss):
    """e(|R - f|) - e(d), with |R - f| carried to twice the working precision."""
    s, e = two_diff(R, f)
    return _energy_diff(abs(s), e if s >= 0.0 else -e, d, inv, gauss)


@numba.njit(cache=True)
def _energy(d, inv, gauss):
    return d * d * inv if gauss else d * inv


@numba.njit(cache=True)
def _chunk_triple(f, lw, weighted, exact, gauss, R, inv, buf, d_run):
    """(d, g, S) of one chunk (see module docstring); S is NaN if a value
    of the chunk is not finite.  ``exact``: distances in twice the working
    precision, for posteriors (see the module docstring).  Without weights
    the shift is ``min(chunk's nearest distance, d_run)``, so that a chunk
    sharing the running shift merges with an addition, no exponential."""
    n = f.size
    if not weighted and not exact:
        # the log-evidence alone: |R - f| rounded once is enough (its error
        # is eps relative to the result).  Terms in units of the noise, so
        # that the exp pass subtracts only; the shift d stays a distance.
        hi = buf[:n]
        if gauss:
            for i in range(n):
                x = R - f[i]
                hi[i] = x * x * inv
        else:
            for i in range(n):
                hi[i] = abs(R - f[i]) * inv
        t, z = _min8(hi)  # z: NaN if a value is not finite
        dt = math.sqrt(t / inv) if gauss else t / inv
        d = min(dt if inv > 0.0 else 0.0, d_run)
        t = _energy(d, inv, gauss)
        for i in range(n):
            hi[i] = exp(t - hi[i])
        return d, 0.0, sum8(hi) + z
    if not weighted:
        # posteriors: |R - f| as a pair (hi, lo) in the two halves of buf;
        # a non-finite value leaves a NaN in lo
        hi = buf[:n]
        lo = buf[CHUNK:CHUNK + n]
        for i in range(n):
            s, e = two_diff(R, f[i])
            hi[i] = abs(s)
            lo[i] = e if s >= 0.0 else -e
        d, _ = _min8(hi)
        d = min(d, d_run)
        z = sum8(lo) * 0.0
        for i in range(n):
            hi[i] = exp(-_energy_diff(hi[i], lo[i], d, inv, gauss))
        return d, 0.0, sum8(hi) + z
    d, z = _min_distance_weighted(f, lw, R)
    if d == np.inf:
        return np.inf, -np.inf, z
    for i in range(n):
        buf[i] = lw[i] - _rel_energy(R, f[i], d, inv, gauss)
    g = _max8(buf[:n])
    for i in range(n):
        buf[i] = exp(buf[i] - g)
    return d, g, sum8(buf[:n]) + z


@numba.njit(cache=True)
def merge_triples(d1, g1, s1, d2, g2, s2, inv, gauss):
    """Combine two (d, g, S) triples of the same response and scale."""
    if s1 != s1 or s2 != s2:  # NaN: a non-finite value, reported by the caller
        return d1, g1, np.nan
    if s1 == 0.0:
        return d2, g2, s2
    if s2 == 0.0:
        return d1, g1, s1
    if d1 == d2 and g1 == g2:
        return d1, g1, s1 + s2
    d = min(d1, d2)
    l1 = g1 - _energy_diff(d1, 0.0, d, inv, gauss)
    l2 = g2 - _energy_diff(d2, 0.0, d, inv, gauss)
    g = max(l1, l2)
    return d, g, s1 * math.exp(l1 - g) + s2 * math.exp(l2 - g)


@numba.njit(cache=True)
def _point_triple(f, lw, weighted, exact, gauss, R, inv, buf):
    m = f.size
    d, g, s = np.inf, -np.inf, 0.0
    for c0 in range(0, m, CHUNK):
        c1 = min(c0 + CHUNK, m)
        d1, g1, s1 = _chunk_triple(f[c0:c1], lw[c0:c1] if weighted else lw, weighted, exact, gauss,
                                   R, inv, buf, d)
        d, g, s = merge_triples(d, g, s, d1, g1, s1, inv, gauss)
    return d, g, s


@numba.njit(cache=True)
def _finish(d, g, s, R, inv, gauss, fw, lpw, want, k, out_logev, out_risk):
    """want: 1 the risk of world fw, 2 its logarithm (0: neither)."""
    out_logev[k] = g - _energy(d, inv, gauss) + math.log(s)
    if want:
        x = lpw - _rel_energy(R, fw, d, inv, gauss) - g
        out_risk[k] = math.exp(x) / s if want == 1 else x - math.log(s)


@numba.njit(cache=True)
def direct_points(f, lw, weighted, gauss, R, inv, fw, lpw, want, out_logev, out_risk, buf):
    """Log-evidence (and risk of a given world) at each point, serially."""
    for k in range(R.size):
        d, g, s = _point_triple(f, lw, weighted, want > 0, gauss, R[k], inv[k], buf[0])
        _finish(d, g, s, R[k], inv[k], gauss, fw[k], lpw[k], want, k, out_logev, out_risk)


@numba.njit(cache=True, parallel=True)
def merge_chunk(f, lw, weighted, gauss, R, inv, D, G, S, buf):
    """Fold one chunk of worlds into each point's running triple (D, G, S),
    in place, points shared among workers: the out-of-core and distributed
    log-evidence (MATH.md s. 8)."""
    nw = buf.shape[0]
    n = R.size
    for t in numba.prange(nw):
        for k in range(t, n, nw):
            d, g, s = _point_triple(f, lw, weighted, False, gauss, R[k], inv[k], buf[t])
            D[k], G[k], S[k] = merge_triples(D[k], G[k], S[k], d, g, s, inv[k], gauss)


@numba.njit(cache=True, parallel=True)
def merge_chunk_spans(f, lw, weighted, gauss, R, inv, D, G, S, buf, parts):
    """As :func:`merge_chunk` for few points: the chunk split among workers."""
    nw = buf.shape[0]
    m = f.size
    span = (m + nw - 1) // nw
    for k in range(R.size):
        for t in numba.prange(nw):
            a = min(t * span, m)
            b = min(a + span, m)
            d, g, s = _point_triple(f[a:b], lw[a:b] if weighted else lw, weighted, False, gauss, R[k], inv[k],
                                    buf[t])
            parts[t, 0] = d
            parts[t, 1] = g
            parts[t, 2] = s
        for t in range(nw):
            D[k], G[k], S[k] = merge_triples(D[k], G[k], S[k], parts[t, 0], parts[t, 1], parts[t, 2], inv[k], gauss)


@numba.njit(cache=True)
def merge_triple_arrays(D1, G1, S1, D2, G2, S2, inv, gauss):
    """Element-wise merge of two arrays of triples into the first."""
    for k in range(D1.size):
        D1[k], G1[k], S1[k] = merge_triples(D1[k], G1[k], S1[k], D2[k], G2[k], S2[k], inv[k], gauss)


@numba.njit(cache=True)
def finish_triples(D, G, S, R, inv, gauss, fw, lpw, want, out_logev, out_risk):
    """Log-evidence (and risk of the world fw, when want) from merged triples."""
    for k in range(D.size):
        _finish(D[k], G[k], S[k], R[k], inv[k], gauss, fw[k], lpw[k], want, k, out_logev, out_risk)


@numba.njit(cache=True, parallel=True)
def direct_points_parallel(f, lw, weighted, gauss, R, inv, fw, lpw, want, out_logev, out_risk, buf):
    """As :func:`direct_points`, points shared among ``buf.shape[0]`` workers."""
    nw = buf.shape[0]
    n = R.size
    for t in numba.prange(nw):
        for k in range(t, n, nw):
            d, g, s = _point_triple(f, lw, weighted, want > 0, gauss, R[k], inv[k], buf[t])
            _finish(d, g, s, R[k], inv[k], gauss, fw[k], lpw[k], want, k, out_logev, out_risk)


@numba.njit(cache=True, parallel=True)
def direct_one_point_parallel(f, lw, weighted, gauss, R, inv, fw, lpw, want, out_logev, out_risk, buf, parts):
    """One point, the worlds split into contiguous spans, one per worker."""
    nw = buf.shape[0]
    m = f.size
    span = (m + nw - 1) // nw
    for t in numba.prange(nw):
        a = min(t * span, m)
        b = min(a + span, m)
        d, g, s = _point_triple(f[a:b], lw[a:b] if weighted else lw, weighted, want > 0, gauss, R[0], inv[0], buf[t])
        parts[t, 0] = d
        parts[t, 1] = g
        parts[t, 2] = s
    d, g, s = np.inf, -np.inf, 0.0
    for t in range(nw):
        d, g, s = merge_triples(d, g, s, parts[t, 0], parts[t, 1], parts[t, 2], inv[0], gauss)
    _finish(d, g, s, R[0], inv[0], gauss, fw[0], lpw[0], want, 0, out_logev, out_risk)


@numba.njit(cache=True)
def _posterior_row(f, lw, lp, weighted, gauss, R, inv, row, buf):
    d, g, s = _point_triple(f, lw, weighted, True, gauss, R, inv, buf)
    c = g + math.log(s)
    if weighted:
        for i in range(f.size):
            row[i] = lp[i] - _rel_energy(R, f[i], d, inv, gauss) - c
    else:
        for i in range(f.size):
            row[i] = -_rel_energy(R, f[i], d, inv, gauss) - c


@numba.njit(cache=True)
def log_posterior_rows(f, lw, lp, weighted, gauss, R, inv, out, buf):
    """out[k, i] = log posterior of world i at point k (serial)."""
    for k in range(R.size):
        _posterior_row(f, lw, lp, weighted, gauss, R[k], inv[k], out[k], buf[0])


@numba.njit(cache=True, parallel=True)
def log_posterior_rows_parallel(f, lw, lp, weighted, gauss, R, inv, out, buf):
    """As :func:`log_posterior_rows`, rows shared among workers."""
    nw = buf.shape[0]
    n = R.size
    for t in numba.prange(nw):
        for k in range(t, n, nw):
            _posterior_row(f, lw, lp, weighted, gauss, R[k], inv[k], out[k], buf[t])


# ------------------------------------------------------------------ sweep --

@numba.njit(cache=True)
def sweep_sums(fs, W, inv, A, B, E):
    """Inclusive left and right sums over sorted distinct values (MATH.md s.4).

    ``A[g] = sum_{i<=g} W_i exp(-(fs_g - fs_i) inv)`` and
    ``B[g] = sum_{i>=g} W_i exp(-(fs_i - fs_g) inv)``; ``E[g]`` holds the
    neighbour factors ``exp(-(fs_g - fs_{g-1}) inv)``.  Every factor is in
    [0, 1]: no overflow, no cancellation.
    """
    u = fs.size
    neighbour_factors(fs, inv, E)
    A[0] = W[0]
    for g in range(1, u):
        A[g] = W[g] + A[g - 1] * E[g]
    B[u - 1] = W[u - 1]
    for g in range(u - 2, -1, -1):
        B[g] = W[g] + B[g + 1] * E[g + 1]


@numba.njit(cache=True)
def _sweep_point(fs, A, B, R, j, inv, fw, pw, want, k, out_logev, out_risk):
    u = fs.size
    if j < 0:
        s, e = two_diff(fs[0], R)
        core = B[0]
        out_logev[k] = -(s + e) * inv + math.log(core)
        if want:
            out_risk[k] = pw * math.exp(-(fw - fs[0]) * inv) / core
        return
    if j >= u - 1:
        s, e = two_diff(R, fs[u - 1])
        core = A[u - 1]
        out_logev[k] = -(s + e) * inv + math.log(core)
        if want:
            out_risk[k] = pw * math.exp(-(fs[u - 1] - fw) * inv) / core
        return
    s1, e1 = two_diff(R, fs[j])
    s2, e2 = two_diff(fs[j + 1], R)
    delta = (s1 - s2) + (e1 - e2)  # (R - f_j) - (f_{j+1} - R)
    if delta <= 0.0:
        core = A[j] + B[j + 1] * math.exp(delta * inv)
        out_logev[k] = -(s1 + e1) * inv + math.log(core)
        if want:
            if fw <= fs[j]:
                num = math.exp(-(fs[j] - fw) * inv)
            else:
                num = math.exp((delta - (fw - fs[j + 1])) * inv)
            out_risk[k] = pw * num / core
    else:
        core = B[j + 1] + A[j] * math.exp(-delta * inv)
        out_logev[k] = -(s2 + e2) * inv + math.log(core)
        if want:
            if fw >= fs[j + 1]:
                num = math.exp(-(fw - fs[j + 1]) * inv)
            else:
                num = math.exp((-delta - (fs[j] - fw)) * inv)
            out_risk[k] = pw * num / core


@numba.njit(cache=True)
def _walk(fs, A, B, R, inv, fw, pw, want, out_logev, out_risk, a, b):
    """Points a:b, sorted by response, share one scale: find each one's
    position by a binary search for the first, then walking forward."""
    u = fs.size
    if a >= b:
        return
    j = np.searchsorted(fs, R[a], side="right") - 1
    for k in range(a, b):
        r = R[k]
        while j + 1 < u and fs[j + 1] <= r:
            j += 1
        _sweep_point(fs, A, B, r, j, inv, fw[k], pw[k], want, k, out_logev, out_risk)


@numba.njit(cache=True)
def sweep_points(fs, W, inv_unique, starts, R, fw, pw, want, out_logev, out_risk, A, B, E):
    """Points grouped by scale, sorted by response within a group: one O(u)
    sweep per scale, then an O(u + points) walk.

    Points ``starts[q]:starts[q+1]`` share ``inv_unique[q]``.
    """
    for q in range(inv_unique.size):
        inv = inv_unique[q]
        sweep_sums(fs, W, inv, A, B, E)
        _walk(fs, A, B, R, inv, fw, pw, want, out_logev, out_risk, starts[q], starts[q + 1])


@numba.njit(cache=True, parallel=True)
def sweep_points_parallel(fs, W, inv_unique, starts, R, fw, pw, want, out_logev, out_risk, A, B, E, nw):
    """As :func:`sweep_points`, each group's walk split among ``nw`` workers."""
    for q in range(inv_unique.size):
        inv = inv_unique[q]
        sweep_sums(fs, W, inv, A, B, E)
        a = starts[q]
        n = starts[q + 1] - a
        span = (n + nw - 1) // nw
        for t in numba.prange(nw):
            lo = a + min(t * span, n)
            hi = a + min((t + 1) * span, n)
            _walk(fs, A, B, R, inv, fw, pw, want, out_logev, out_risk, lo, hi)
