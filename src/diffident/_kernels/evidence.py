"""Kernels for the posterior normaliser (log-evidence) under Laplace or
Gaussian noise.
"""

import math

import numba
import numpy as np

from ._jit import inlined_kernel, kernel, parallel_kernel
from ._math import exp, sum8, two_diff
from .lattice import on_lattice
from .worstcase import NF, forward, n_links, neighbour_factors

CHUNK = 512
BUF = 3 * CHUNK  # work floats per worker: distances as pairs and the terms (callers pad each
# worker's row by a cache line, + 8: rows written at once by two workers must not share one)


# ----------------------------------------------------------------- direct --

@inlined_kernel
def _min8(x, sign):
    """Smallest element of ``sign * x`` (sign = +-1: negation is exact), and
    0.0 (NaN if an element is inf or NaN), in one pass with independent
    chains.
    """
    n = x.size
    a0 = a1 = a2 = a3 = np.inf
    z0 = z1 = 0.0
    j = 0
    while j + 4 <= n:
        a0 = min(a0, sign * x[j])
        a1 = min(a1, sign * x[j + 1])
        a2 = min(a2, sign * x[j + 2])
        a3 = min(a3, sign * x[j + 3])
        z0 += x[j] * 0.0 + x[j + 1] * 0.0
        z1 += x[j + 2] * 0.0 + x[j + 3] * 0.0
        j += 4
    while j < n:
        a0 = min(a0, sign * x[j])
        z0 += x[j] * 0.0
        j += 1
    return min(min(a0, a1), min(a2, a3)), z0 + z1


@kernel
def _low_at(hi, lo, dh):
    """The smallest lo[i] among the i with hi[i] == dh (inf if none)."""
    n = hi.size
    a0 = a1 = np.inf
    j = 0
    while j + 2 <= n:
        a0 = min(a0, lo[j] if hi[j] == dh else np.inf)
        a1 = min(a1, lo[j + 1] if hi[j + 1] == dh else np.inf)
        j += 2
    while j < n:
        a0 = min(a0, lo[j] if hi[j] == dh else np.inf)
        j += 1
    return min(a0, a1)


@kernel
def _before(ah, al, bh, bl):
    """Whether the distance ah + al is below bh + bl (pairs compared
    lexicographically: both are normalised).
    """
    return ah < bh or (ah == bh and al < bl)


@kernel
def energy_diff(xh, xl, dh, dl, c, gauss):
    """e(x) - e(d) >= 0 for distances x = xh + xl >= d = dh + dl, given as
    pairs (hi, lo): Laplace e(x) = x c (c = 1 / scale), Gaussian
    e(x) = (x c)^2 (c = 1 / (sigma sqrt 2)), the difference of squares
    factored so that it keeps its relative precision.  The nearest world
    (x == d) gets exactly 0; an overflowing difference gives inf (a term
    exp(-inf) = 0), never NaN.
    """
    diff = max((xh - dh) + (xl - dl), 0.0)
    if gauss:
        a = diff * c
        return a * ((xh + dh) * c) if a > 0.0 else 0.0
    return diff * c


@kernel
def energy(dh, dl, c, gauss):
    """e(d) for the distance dh + dl (inf beyond the float range)."""
    t = (dh + dl) * c
    return t * t if gauss else t


@kernel
def _pair(R, f):
    """|R - f| as an unevaluated pair (hi, lo), hi = fl(|R - f|)."""
    s, e = two_diff(R, f)
    return abs(s), (e if s >= 0.0 else -e)


@kernel
def _chunk_triple(f, lw, weighted, exact, gauss, R, c, buf, dh_run, dl_run, lat):
    """One chunk of worlds summed relative to a shift: ``(dh, dl, g, S)``
    with ``sum_k w_k exp(-e(|R - f_k|)) = exp(g - e(dh + dl)) S``, where the
    shift dh + dl is the distance of the nearest world of positive weight
    (or the running shift ``dh_run + dl_run`` when that is nearer: then the
    chunk merges with an addition), ``g`` the largest log weight relative
    to it and every term of S in (0, 1], the largest exactly 1.  S is NaN
    if a value of the chunk is not finite (reported by the caller).
    """
    n = f.size
    if not weighted and not exact:
        x = buf[:n]
        for i in range(n):
            x[i] = abs(R - f[i])
        # the lattice once the chunk is in cache: the loop that loads it
        # from memory stays lean (work added there costs loads in flight)
        if lat > 0.0 and not on_lattice(f, lat):
            return np.inf, 0.0, -np.inf, np.nan
        d, z = _min8(x, 1.0)  # z: NaN if a value is not finite
        d = min(d, dh_run)
        # energy_diff(x, 0, d, 0, c, gauss) for x >= d, written out: x - d is
        # then >= 0 exactly, and a clamped product keeps 0 * inf out
        if gauss:
            for i in range(n):
                a = (x[i] - d) * c
                b = min((x[i] + d) * c, 1.0e308)
                x[i] = exp(-(a * b))
        else:
            for i in range(n):
                x[i] = exp(-((x[i] - d) * c))
        return d, 0.0, 0.0, sum8(x) + z
    hi = buf[:n]
    lo = buf[CHUNK:CHUNK + n]
    t = buf[2 * CHUNK:2 * CHUNK + n]
    for i in range(n):
        hi[i], lo[i] = _pair(R, f[i])
    if lat > 0.0 and not on_lattice(f, lat):
        return np.inf, 0.0, -np.inf, np.nan
    z = sum8(lo) * 0.0  # NaN if a value is not finite
    if weighted:
        for i in range(n):  # worlds of no weight never set the shift
            t[i] = hi[i] if lw[i] > -np.inf else np.inf
        dh, _ = _min8(t, 1.0)
        if dh == np.inf:
            return np.inf, 0.0, -np.inf, z
        for i in range(n):
            t[i] = lo[i] if lw[i] > -np.inf else np.inf
        dl = _low_at(hi, t, dh)
    else:
        dh, _ = _min8(hi, 1.0)
        dl = _low_at(hi, lo, dh)
        if _before(dh_run, dl_run, dh, dl):
            dh, dl = dh_run, dl_run
    if weighted:
        for i in range(n):
            t[i] = lw[i] - energy_diff(hi[i], lo[i], dh, dl, c, gauss)
        g = -_min8(t, -1.0)[0]
        for i in range(n):
            t[i] = exp(t[i] - g)
        return dh, dl, g, sum8(t) + z
    for i in range(n):  # in place: one buffer fewer through the cache
        hi[i] = exp(-energy_diff(hi[i], lo[i], dh, dl, c, gauss))
    return dh, dl, 0.0, sum8(hi) + z


@kernel
def merge_triples(h1, l1, g1, s1, h2, l2, g2, s2, c, gauss):
    """Combine two shifted sums ``(dh, dl, g, S)`` of the same response and
    scale: the nearer shift is kept, the other sum re-expressed relative to
    it (an exact energy difference of pairs).
    """
    if s1 != s1 or s2 != s2:  # NaN: a non-finite value, reported by the caller
        return h1, l1, g1, np.nan
    if s1 == 0.0:
        return h2, l2, g2, s2
    if s2 == 0.0:
        return h1, l1, g1, s1
    if h1 == h2 and l1 == l2 and g1 == g2:
        return h1, l1, g1, s1 + s2
    if _before(h2, l2, h1, l1):
        h1, l1, g1, s1, h2, l2, g2, s2 = h2, l2, g2, s2, h1, l1, g1, s1
    e2 = g2 - energy_diff(h2, l2, h1, l1, c, gauss)
    g = max(g1, e2)
    return h1, l1, g, s1 * math.exp(g1 - g) + s2 * math.exp(e2 - g)


@kernel
def _point_triple(f, lw, weighted, exact, gauss, R, c, buf, lat):
    m = f.size
    dh, dl, g, s = np.inf, 0.0, -np.inf, 0.0
    for c0 in range(0, m, CHUNK):
        c1 = min(c0 + CHUNK, m)
        h1, l1, g1, s1 = _chunk_triple(f[c0:c1], lw[c0:c1] if weighted else lw, weighted, exact, gauss,
                                       R, c, buf, dh, dl, lat)
        dh, dl, g, s = merge_triples(dh, dl, g, s, h1, l1, g1, s1, c, gauss)
    return dh, dl, g, s


@kernel
def _finish(dh, dl, g, s, R, c, gauss, fw, lpw, with_risk, log_risk, k, out_logev, out_risk):
    """The log-evidence at point k, and with ``with_risk`` the risk of world
    fw (log prior lpw) there, or with ``log_risk`` its logarithm.  The risk
    is at most 1, its logarithm at most 0.
    """
    out_logev[k] = g - energy(dh, dl, c, gauss) + math.log(s)
    if with_risk:
        xh, xl = _pair(R, fw)
        x = lpw - energy_diff(xh, xl, dh, dl, c, gauss) - g
        if not log_risk:
            out_risk[k] = min(math.exp(x) / s, 1.0)
        else:
            out_risk[k] = min(x - math.log(s), 0.0)


@kernel
def direct_points(f, lw, weighted, gauss, R, c, fw, lpw, with_risk, log_risk, out_logev, out_risk, buf, lat):
    """Log-evidence (and risk of a given world) at each point, serially;
    with ``lat`` > 0 the values' lattice checked at the first point (its
    log-evidence NaN if one is off it, see `_chunk_triple`).
    """
    for k in range(R.size):
        dh, dl, g, s = _point_triple(f, lw, weighted, with_risk, gauss, R[k], c[k], buf[0], lat if k == 0 else 0.0)
        _finish(dh, dl, g, s, R[k], c[k], gauss, fw[k], lpw[k], with_risk, log_risk, k, out_logev, out_risk)


@parallel_kernel
def merge_chunk(f, lw, weighted, exact, gauss, R, c, D, DL, G, S, buf):
    """Fold one chunk of worlds into each point's running sum (D, DL, G, S),
    in place, points shared among workers: the out-of-core and distributed
    log-evidence (Mathematics page, section 8).
    """
    nw = buf.shape[0]
    n = R.size
    for t in numba.prange(nw):
        for k in range(t, n, nw):
            dh, dl, g, s = _point_triple(f, lw, weighted, exact, gauss, R[k], c[k], buf[t], 0.0)
            D[k], DL[k], G[k], S[k] = merge_triples(D[k], DL[k], G[k], S[k], dh, dl, g, s, c[k], gauss)


@parallel_kernel
def merge_chunk_spans(f, lw, weighted, exact, gauss, R, c, D, DL, G, S, buf, parts):
    """As :func:`merge_chunk` for few points: the chunk split among workers."""
    nw = buf.shape[0]
    m = f.size
    span = (m + nw - 1) // nw
    for k in range(R.size):
        for t in numba.prange(nw):
            a = min(t * span, m)
            b = min(a + span, m)
            dh, dl, g, s = _point_triple(f[a:b], lw[a:b] if weighted else lw, weighted, exact, gauss, R[k],
                                         c[k], buf[t], 0.0)
            parts[t, 0] = dh
            parts[t, 1] = dl
            parts[t, 2] = g
            parts[t, 3] = s
        for t in range(nw):
            D[k], DL[k], G[k], S[k] = merge_triples(D[k], DL[k], G[k], S[k], parts[t, 0], parts[t, 1],
                                                    parts[t, 2], parts[t, 3], c[k], gauss)


@kernel
def merge_triple_arrays(D1, DL1, G1, S1, D2, DL2, G2, S2, c, gauss):
    """Element-wise merge of two arrays of shifted sums into the first."""
    for k in range(D1.size):
        D1[k], DL1[k], G1[k], S1[k] = merge_triples(D1[k], DL1[k], G1[k], S1[k], D2[k], DL2[k], G2[k], S2[k],
                                                    c[k], gauss)


@kernel
def finish_triples(D, DL, G, S, R, c, gauss, fw, lpw, with_risk, log_risk, out_logev, out_risk):
    """Log-evidence (and, with_risk, the risk of the world fw or its log) from merged sums."""
    for k in range(D.size):
        _finish(D[k], DL[k], G[k], S[k], R[k], c[k], gauss, fw[k], lpw[k], with_risk, log_risk, k, out_logev,
                out_risk)


@parallel_kernel
def direct_points_parallel(f, lw, weighted, gauss, R, c, fw, lpw, with_risk, log_risk, out_logev, out_risk, buf,
                           lat):
    """As :func:`direct_points`, points shared among ``buf.shape[0]`` workers."""
    nw = buf.shape[0]
    n = R.size
    for t in numba.prange(nw):
        for k in range(t, n, nw):
            dh, dl, g, s = _point_triple(f, lw, weighted, with_risk, gauss, R[k], c[k], buf[t],
                                         lat if k == 0 else 0.0)
            _finish(dh, dl, g, s, R[k], c[k], gauss, fw[k], lpw[k], with_risk, log_risk, k, out_logev, out_risk)


@parallel_kernel
def direct_one_point_parallel(f, lw, weighted, gauss, R, c, fw, lpw, with_risk, log_risk, out_logev, out_risk, buf,
                              parts, lat):
    """One point, the worlds split into contiguous spans, one per worker
    (each checking its span's lattice with ``lat`` > 0, see `direct_points`).
    """
    nw = buf.shape[0]
    m = f.size
    span = (m + nw - 1) // nw
    for t in numba.prange(nw):
        a = min(t * span, m)
        b = min(a + span, m)
        dh, dl, g, s = _point_triple(f[a:b], lw[a:b] if weighted else lw, weighted, with_risk, gauss, R[0], c[0],
                                     buf[t], lat)
        parts[t, 0] = dh
        parts[t, 1] = dl
        parts[t, 2] = g
        parts[t, 3] = s
    dh, dl, g, s = np.inf, 0.0, -np.inf, 0.0
    for t in range(nw):
        dh, dl, g, s = merge_triples(dh, dl, g, s, parts[t, 0], parts[t, 1], parts[t, 2], parts[t, 3], c[0],
                                     gauss)
    _finish(dh, dl, g, s, R[0], c[0], gauss, fw[0], lpw[0], with_risk, log_risk, 0, out_logev, out_risk)


@kernel
def _posterior_row(f, lw, lp, weighted, gauss, R, c, row, buf, lat):
    # (np.bool_: a literal True would compile a second specialisation of the callees)
    dh, dl, g, s = _point_triple(f, lw, weighted, np.bool_(True), gauss, R, c, buf, lat)
    cst = g + math.log(s)
    for i in range(f.size):
        xh, xl = _pair(R, f[i])
        x = (lp[i] if weighted else 0.0) - energy_diff(xh, xl, dh, dl, c, gauss) - cst
        row[i] = min(x, 0.0)


@kernel
def log_posterior_rows(f, lw, lp, weighted, gauss, R, c, out, buf, lat):
    """out[k, i] = log posterior of world i at point k (serial); with
    ``lat`` > 0 the values' lattice checked in the first row (NaN there
    if one is off it, see `_chunk_triple`).
    """
    for k in range(R.size):
        _posterior_row(f, lw, lp, weighted, gauss, R[k], c[k], out[k], buf[0], lat if k == 0 else 0.0)


@parallel_kernel
def log_posterior_rows_parallel(f, lw, lp, weighted, gauss, R, c, out, buf, lat):
    """As :func:`log_posterior_rows`, rows shared among workers."""
    nw = buf.shape[0]
    n = R.size
    for t in numba.prange(nw):
        for k in range(t, n, nw):
            _posterior_row(f, lw, lp, weighted, gauss, R[k], c[k], out[k], buf[t], lat if k == 0 else 0.0)


# ------------------------------------------------------------------ sweep --

def sweep_work(u):
    """The work arrays of :func:`sweep_sums` for u values (allocated in NumPy)."""
    return np.empty((4, u)), np.empty((max(1, n_links(0, u)), 3)), np.empty(NF)


@kernel
def sweep_sums(fs, W, inv, A, B, Z, LK, F):
    """Inclusive left and right sums over the sorted values (Mathematics page, eq. 4.2)."""
    u = fs.size
    E = Z[0]
    neighbour_factors(fs, inv, E)
    F[:] = 0.0
    forward(fs, W, E, A, LK, 0, F, inv)
    fr = Z[1]
    wr = Z[2]
    er = Z[3]
    for g in range(u):
        fr[g] = -fs[u - 1 - g]
        wr[g] = W[u - 1 - g]
        er[g] = E[u - g] if g > 0 else 0.0
    F[:] = 0.0
    forward(fr, wr, er, B, LK, 0, F, inv)  # B: the mirrored left sums, reversed below
    for g in range(u):
        A[g] += W[g]
    for g in range(u // 2):
        t = B[g]
        B[g] = B[u - 1 - g]
        B[u - 1 - g] = t
    for g in range(u):
        B[g] += W[g]


@kernel
def _sweep_risk(pw, x, core):
    """pw exp(x) / core, x <= 0, at most 1; 0 for a world of no weight
    (whatever x: it may lie outside the worlds of positive weight).
    """
    return min(pw * math.exp(x) / core, 1.0) if pw > 0.0 else 0.0


@kernel
def _sweep_point(fs, A, B, R, j, inv, fw, pw, with_risk, k, out_logev, out_risk):
    u = fs.size
    if j < 0:
        s, e = two_diff(fs[0], R)
        core = B[0]
        out_logev[k] = -(s + e) * inv + math.log(core)
        if with_risk:
            out_risk[k] = _sweep_risk(pw, -(fw - fs[0]) * inv, core)
        return
    if j >= u - 1:
        s, e = two_diff(R, fs[u - 1])
        core = A[u - 1]
        out_logev[k] = -(s + e) * inv + math.log(core)
        if with_risk:
            out_risk[k] = _sweep_risk(pw, -(fs[u - 1] - fw) * inv, core)
        return
    s1, e1 = two_diff(R, fs[j])
    s2, e2 = two_diff(fs[j + 1], R)
    delta = (s1 - s2) + (e1 - e2)  # (R - f_j) - (f_{j+1} - R)
    if delta <= 0.0:
        core = A[j] + B[j + 1] * math.exp(delta * inv)
        out_logev[k] = -(s1 + e1) * inv + math.log(core)
        if with_risk:
            if fw <= fs[j]:
                x = -(fs[j] - fw) * inv
            else:
                x = (delta - (fw - fs[j + 1])) * inv
            out_risk[k] = _sweep_risk(pw, x, core)
    else:
        core = B[j + 1] + A[j] * math.exp(-delta * inv)
        out_logev[k] = -(s2 + e2) * inv + math.log(core)
        if with_risk:
            if fw >= fs[j + 1]:
                x = -(fw - fs[j + 1]) * inv
            else:
                x = (-delta - (fs[j] - fw)) * inv
            out_risk[k] = _sweep_risk(pw, x, core)


@kernel
def _walk(fs, A, B, R, inv, fw, pw, with_risk, out_logev, out_risk, a, b):
    """Points a:b, sorted by response, share one scale: find each one's
    position by a binary search for the first, then walking forward.
    """
    u = fs.size
    if a >= b:
        return
    j = np.searchsorted(fs, R[a], side="right") - 1
    for k in range(a, b):
        r = R[k]
        while j + 1 < u and fs[j + 1] <= r:
            j += 1
        _sweep_point(fs, A, B, r, j, inv, fw[k], pw[k], with_risk, k, out_logev, out_risk)


@kernel
def sweep_points(fs, W, inv_unique, starts, R, fw, pw, with_risk, out_logev, out_risk, A, B, Z, LK, F):
    """Points grouped by scale, sorted by response within a group: one O(u)
    sweep per scale, then an O(u + points) walk.
    """
    for q in range(inv_unique.size):
        inv = inv_unique[q]
        sweep_sums(fs, W, inv, A, B, Z, LK, F)
        _walk(fs, A, B, R, inv, fw, pw, with_risk, out_logev, out_risk, starts[q], starts[q + 1])


@parallel_kernel
def sweep_points_parallel(fs, W, inv_unique, starts, R, fw, pw, with_risk, out_logev, out_risk, A, B, Z, LK, F, nw):
    """As :func:`sweep_points`, each group's walk split among ``nw`` workers."""
    for q in range(inv_unique.size):
        inv = inv_unique[q]
        sweep_sums(fs, W, inv, A, B, Z, LK, F)
        a = starts[q]
        n = starts[q + 1] - a
        span = (n + nw - 1) // nw
        for t in numba.prange(nw):
            lo = a + min(t * span, n)
            hi = a + min((t + 1) * span, n)
            _walk(fs, A, B, R, inv, fw, pw, with_risk, out_logev, out_risk, lo, hi)
