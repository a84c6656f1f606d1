"""Kernels for the every-neighbour calibration (Mathematics page, section 9)."""

import math

import numba
import numpy as np

from . import dd
from ._jit import kernel, parallel_kernel
from .queries import remove_stats


@kernel
def world_offsets(Xs, Ys, A, slack, sp, sc, out):
    """out[a] = max(out[a], B_a + slack): B_a the smallest B with
    ``|Y_a - Y_b| <= A |X_a - X_b| + B`` for every b != a.
    """
    m = Xs.size
    hi_psi = -np.inf
    lo_chi = np.inf
    for a in range(m - 1, -1, -1):  # extremes over b > a
        sp[a] = hi_psi
        sc[a] = lo_chi
        p = Ys[a] - A * Xs[a]
        c = Ys[a] + A * Xs[a]
        if p > hi_psi:
            hi_psi = p
        if c < lo_chi:
            lo_chi = c
    lo_psi = np.inf
    hi_chi = -np.inf
    for a in range(m):
        p = Ys[a] - A * Xs[a]
        c = Ys[a] + A * Xs[a]
        b = max(max(sp[a] - p, c - sc[a]), max(p - lo_psi, hi_chi - c))
        b += slack
        if b > out[a]:
            out[a] = b
        if p < lo_psi:
            lo_psi = p
        if c > hi_chi:
            hi_chi = c


@kernel
def var_worlds(vals, mu, q, w, denom, std, out):
    """Approximate var (or std) of the known part plus each value:
    ``(q + w (v - mu)^2) / denom``, every term non-negative.
    """
    for a in range(vals.size):
        d = vals[a] - mu
        v = (q + w * (d * d)) / denom
        out[a] = math.sqrt(v) if std else v


@kernel
def _var_offsets_one(Xs, vals, mu, q, w, denom, std, A, slack, yv, sp, sc, out):
    var_worlds(vals, mu, q, w, denom, std, yv)
    world_offsets(Xs, yv, A, slack, sp, sc, out)


@kernel
def var_offsets(Xs, vals, mu, q, w, denom, std, A, slack, yv, sp, sc, out):
    """:func:`world_offsets` for the var/std worlds of every removal j
    (known-part mean ``mu[j]`` and centred sum of squares ``q[j]``),
    maximised into ``out``; ``yv``, ``sp``, ``sc`` are work arrays.
    """
    for j in range(mu.size):
        _var_offsets_one(Xs, vals, mu[j], q[j], w, denom, std, A, slack[j], yv, sp, sc, out)


@parallel_kernel
def var_offsets_parallel(Xs, vals, mu, q, w, denom, std, A, slack, yv, sp, sc, out):
    """:func:`var_offsets` with the removals shared among ``out.shape[0]``
    workers; row t of each 2-d work array and of ``out`` is worker t's (the
    caller takes the maximum of the rows of ``out``).
    """
    nw = out.shape[0]
    for t in numba.prange(nw):
        for j in range(t, mu.size, nw):
            _var_offsets_one(Xs, vals, mu[j], q[j], w, denom, std, A, slack[j], yv[t], sp[t], sc[t], out[t])


@kernel
def removed_moments(st, c, x, n0, mu, q, s2, tmp):
    """Mean ``mu[j]`` and centred sum of squares ``q[j]`` of the known part
    after removing ``x[j]`` from a data set with statistics ``st`` (see
    ``worlds.known_stats``, shift c), from double-double sums; ``s2[j]`` is
    the uncentred sum of squares about c (for error bounds); ``tmp`` is a
    work array of 6.
    """
    for j in range(x.size):
        remove_stats(st, x[j], c, tmp)
        h1, l1, h2, l2 = tmp[2], tmp[3], tmp[4], tmp[5]
        mu[j] = c + dd.div_d(h1, l1, float(n0))
        ah, al = dd.mul_d(h2, l2, float(n0))
        bh, bl = dd.sqr(h1, l1)
        nh, nl = dd.add(ah, al, -bh, -bl)
        q[j] = max(dd.div_d(nh, nl, float(n0)), 0.0)
        s2[j] = h2 + l2
