"""Kernels for the exact worst-case risk (MATH.md section 4) and for sorting
world values into distinct groups.

Input is always the merged world set: sorted distinct values ``fs``, group
weights ``W`` (count times prior, normalised) and ``invP`` (1 / the largest
per-world prior of the group).  For a scale with ``inv = 1 / scale``:

    S_g = A'_g + W_g + B'_g,   A'_g = (A'_{g-1} + W_{g-1}) exp(-(fs_g - fs_{g-1}) inv)
                               B'_g = (B'_{g+1} + W_{g+1}) exp(-(fs_{g+1} - fs_g) inv)
    rho* = max_g P_g / S_g = 1 / min_g S_g invP_g

``inv = 0`` (infinite scale) and ``inv = inf`` (no noise) need no special
case: the factors become exactly 1 and 0.

The single-scale kernel vectorises the factors over the worlds; the blocked
kernel runs eight scales side by side so that each recurrence step is one
vector operation.  Both perform the same floating-point operations in the
same order, so a scale gives the same bits whichever kernel evaluates it.
"""

import numba
import numpy as np

from ._math import exp

BLOCK = 8


@numba.njit(cache=True)
def neighbour_factors(fs, inv, E):
    """E[g] = exp(-(fs[g] - fs[g-1]) inv) for g >= 1, vectorised over g."""
    u = fs.size
    lo = fs[: u - 1]
    hi = fs[1:]
    e1 = E[1:u]
    for g in range(u - 1):
        e1[g] = exp(-(hi[g] - lo[g]) * inv)


@numba.njit(cache=True)
def worst_case_one(fs, W, invP, inv, E, B):
    """(rho*, argmax group) for one scale; ``E`` and ``B`` are length-u work arrays."""
    best, arg, _ = chunk_worst(fs, W, invP, inv, 0.0, 0.0, np.inf, E, B)
    # P/S <= 1 exactly; 1/(S * (1/P)) may round a hair above it
    return min(1.0 / best, 1.0), arg


@numba.njit(cache=True)
def worst_case_scales(fs, W, invP, inv, out, arg, E, B):
    """:func:`worst_case_one` for each scale in turn (few scales)."""
    for k in range(inv.size):
        r, a = worst_case_one(fs, W, invP, inv[k], E, B)
        out[k] = r
        arg[k] = a


@numba.njit(cache=True)
def _worst_case_block(fs, W, invP, inv8, out8, arg8, E, B, a8, q8):
    """Eight scales at once.  ``E`` is (8, u): the factors of each scale,
    computed vectorised over the worlds; ``B`` is (u, 8), so that each
    recurrence step updates the eight scales with one vector operation.
    Arithmetic identical to :func:`worst_case_one`, scale by scale."""
    u = fs.size
    lo = fs[: u - 1]
    hi = fs[1:]
    for s in range(BLOCK):
        c = inv8[s]
        e1 = E[s, 1:u]
        for g in range(u - 1):
            e1[g] = exp(-(hi[g] - lo[g]) * c)
    last = B[u - 1]
    for s in range(BLOCK):
        last[s] = 0.0
    for g in range(u - 2, -1, -1):
        w = W[g + 1]
        nxt = B[g + 1]
        row = B[g]
        for s in range(BLOCK):
            row[s] = (nxt[s] + w) * E[s, g + 1]
    for s in range(BLOCK):
        a8[s] = 0.0
        q8[s] = np.inf
        arg8[s] = 0
    for g in range(u):
        b = B[g]
        wg = W[g]
        ip = invP[g]
        if g > 0:
            wp = W[g - 1]
            for s in range(BLOCK):
                a8[s] = (a8[s] + wp) * E[s, g]
        for s in range(BLOCK):
            q = ((a8[s] + wg) + b[s]) * ip
            old = q8[s]
            take = q < old
            q8[s] = q if take else old
            arg8[s] = g if take else arg8[s]
    for s in range(BLOCK):
        out8[s] = min(1.0 / q8[s], 1.0)


@numba.njit(cache=True, parallel=True)
def worst_case_blocks_parallel(fs, W, invP, inv, out, arg, E, B):
    """Many scales: blocks of eight shared among ``E.shape[0]`` workers.

    ``inv.size`` must be a multiple of 8 (the caller pads); ``E`` is
    (workers, 8, u) and ``B`` (workers, u, 8).
    """
    nw = E.shape[0]
    nb = inv.size // BLOCK
    for t in numba.prange(nw):
        a8 = np.empty(BLOCK)
        q8 = np.empty(BLOCK)
        for b in range(t, nb, nw):
            s0 = b * BLOCK
            _worst_case_block(fs, W, invP, inv[s0:s0 + BLOCK], out[s0:s0 + BLOCK],
                              arg[s0:s0 + BLOCK], E[t], B[t], a8, q8)


# ------------------------------------------------------------- grouping --

@numba.njit(cache=True)
def group_sorted(vs, out_values, out_first):
    """Run-length encode sorted values: distinct values and the index of the
    first element of each run.  Returns the number of runs."""
    n = vs.size
    u = 0
    for i in range(n):
        if i == 0 or vs[i] != vs[i - 1]:
            out_values[u] = vs[i]
            out_first[u] = i
            u += 1
    return u


@numba.njit(cache=True)
def group_weights(first, n, cs, ps, order, out_W, out_P, out_rep):
    """Per run: the sum of count x prior, the largest per-world prior, and the
    original index of the world that holds it (the first such world)."""
    u = first.size
    for g in range(u):
        a = first[g]
        b = first[g + 1] if g + 1 < u else n
        w = 0.0
        p = -1.0
        rep = order[a]
        for i in range(a, b):
            w += cs[i] * ps[i]
            if ps[i] > p or (ps[i] == p and order[i] < rep):
                p = ps[i]
                rep = order[i]
        out_W[g] = w
        out_P[g] = p
        out_rep[g] = rep


@numba.njit(cache=True)
def chunk_left(fs, W, inv, a_first):
    """Left sweep through one chunk of sorted distinct values from A' at its
    first value: the inclusive left sum A' + W at its last value."""
    a = a_first
    for g in range(1, fs.size):
        a = (a + W[g - 1]) * exp(-(fs[g] - fs[g - 1]) * inv)
    return a + W[fs.size - 1]


@numba.njit(cache=True)
def chunk_worst(fs, W, invP, inv, a0, b_next, f_next, E, B):
    """The smallest S/P over one chunk of sorted distinct values (rho* is
    its reciprocal), given A' at the chunk's first value (a0) and the right
    carry: the inclusive right sum at the next chunk's first value (b_next)
    and that value (f_next; inf after the last chunk).  The same operations
    as :func:`worst_case_one`, so chunked and in-memory agree bit for bit.
    Returns (min S/P, its position, the inclusive right sum at this chunk's
    first value)."""
    u = fs.size
    neighbour_factors(fs, inv, E)
    if f_next < np.inf:
        B[u - 1] = b_next * exp(-(f_next - fs[u - 1]) * inv)
    else:
        B[u - 1] = 0.0
    for g in range(u - 2, -1, -1):
        B[g] = (B[g + 1] + W[g + 1]) * E[g + 1]
    a = a0
    best = np.inf
    arg = 0
    for g in range(u):
        if g > 0:
            a = (a + W[g - 1]) * E[g]
        q = ((a + W[g]) + B[g]) * invP[g]
        if q < best:
            best = q
            arg = g
    return best, arg, B[0] + W[0]
