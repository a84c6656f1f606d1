"""Kernels for the exact worst-case risk (Mathematics page, section 4) and
for sorting world values into distinct groups.
"""

import numba
import numpy as np

from ._jit import inlined_kernel, kernel, parallel_kernel
from ._math import (
    exp_full as exp,  # factors down to subnormals: weights span up to 2**1000
)
from ._math import fma
from .dd import two_sum

BLOCK = 8
K = 64  # values per sub-block
XA = 1.0  # a sub-block starting more than XA scales past the anchor takes a new one
XB = 4.0  # a sub-block ending more than XB scales past its anchor is wide

# state vectors of the single-scale sweeps (carried across chunks)
NF = 8  # forward: previous value and weight, L, R, C, anchor, T (hi, lo)
NB = 7  # backward: LR, RR, CR, U (hi, lo), next weight and factor


@kernel
def neighbour_factors(fs, inv, E):
    """E[g] = exp(-(fs[g] - fs[g-1]) inv) for g >= 1, vectorised over g."""
    u = fs.size
    lo = fs[: u - 1]
    hi = fs[1:]
    e1 = E[1:u]
    for g in range(u - 1):
        e1[g] = exp(-(hi[g] - lo[g]) * inv)


# ------------------------------------------------------------ building blocks --

# The kind of a link, stored as a float beside the link's factors (the
# blocked kernel keeps links in float arrays and branches without jumps):
SAME_ANCHOR = 0.0  # the sub-block keeps the previous anchor
NEW_ANCHOR = 1.0  # the sub-block starts a new anchor
WIDE_LINK = 2.0  # a new anchor beyond XB scales: the carry is taken plainly


@kernel
def _link_forward(fprev, wprev, L, R, C, fa, thi, tlo, f, e, inv):
    """At the first value ``f`` of a sub-block (``e``: its neighbour factor),
    from the state at the previous value: the carry C into the sub-block, the
    anchor and the anchored left sum after the link, and the link's data
    (the factor from the anchor to ``f``, the factor from the anchor to the
    previous value, and the kind: SAME_ANCHOR, NEW_ANCHOR or WIDE_LINK).
    Branch-free: the blocked kernel runs it on a vector of scales.
    """
    yE = (fprev - fa) * inv
    yS = (f - fa) * inv
    wide = not (yE <= XB)
    qe = exp(0.0 if wide else yE)
    s, err = two_sum(thi, qe * (L + wprev))
    lo = tlo + err
    ps = exp(-(yS if yS <= 800.0 else 800.0))  # 0 for a far value, inf and NaN
    anch = ps * (s + lo)
    plain = (fma(C, R, L) + wprev) * e
    new = not ((yE <= XB) & (yS <= XA))  # (written so that LLVM vectorises it)
    c = plain if wide else anch
    # SAME_ANCHOR, NEW_ANCHOR or WIDE_LINK (wide implies new), as a sum: no branch
    kind = (1.0 if new else 0.0) + (1.0 if wide else 0.0)
    return (c, (f if new else fa), (c if new else s), (0.0 if new else lo),
            ps, (0.0 if wide else qe), kind)


@kernel
def _link_backward(b, w, LR, uhi, ulo, ps, qe, kind, e):
    """At the first value of a sub-block (``b``: B' there, ``w``: its weight,
    ``LR``: the local right sum there, ``e``: its neighbour factor), with the
    link's data from the forward sweep: the right carry into the previous
    sub-block and the anchored right sum after the link.  Branch-free.
    """
    s, err = two_sum(uhi, ps * (LR + w))
    same = kind == SAME_ANCHOR
    hi = s if same else ps * (b + w)
    lo = (ulo + err) if same else 0.0
    cr = e * (b + w) if kind == WIDE_LINK else qe * (hi + lo)
    return cr, hi, lo


# ------------------------------------------------------------ one scale --

@kernel
def n_links(g0, n):
    """How many links (sub-block starts after the data's first value) lie at
    global indices g0 .. g0 + n - 1.
    """
    if n <= 0:
        return 0
    return (g0 + n - 1) // K - (max(g0, 1) - 1) // K


@kernel
def forward(fs, W, E, A, LK, g0, F, inv):
    """Left sweep over sorted distinct values ``fs`` whose global indices
    start at ``g0``: A' of each value into ``A``, the data of each link (a
    sub-block start after the first value) into the rows of ``LK`` (n, 3), in
    order; ``F`` is the forward state, updated in place.  ``E`` holds the
    neighbour factors, ``E[0]`` the one to the previous chunk's last value
    (unused when g0 = 0).
    """
    fprev, wprev, L, R, C, fa, thi, tlo = F[0], F[1], F[2], F[3], F[4], F[5], F[6], F[7]
    n = fs.size
    k = 0
    i = 0
    while i < n:  # a sub-block (or the part of one in these values) at a time
        G = g0 + i
        if G == 0:
            L = 0.0
            R = 1.0
            C = 0.0
            fa = fs[i]
            thi = 0.0
            tlo = 0.0
        elif G % K == 0:
            C, fa, thi, tlo, ps, qe, kind = _link_forward(fprev, wprev, L, R, C, fa, thi, tlo, fs[i], E[i], inv)
            LK[k, 0] = ps
            LK[k, 1] = qe
            LK[k, 2] = kind
            k += 1
            L = 0.0
            R = 1.0
        else:
            e = E[i]
            L = (L + wprev) * e
            R = R * e
        A[i] = fma(C, R, L)
        wprev = W[i]
        end = min(n, i + K - G % K)
        for j in range(i + 1, end):
            e = E[j]
            L = (L + wprev) * e
            R = R * e
            A[j] = fma(C, R, L)
            wprev = W[j]
        fprev = fs[end - 1]
        i = end
    F[0], F[1], F[2], F[3], F[4], F[5], F[6], F[7] = fprev, wprev, L, R, C, fa, thi, tlo


@kernel
def backward(W, E, A, invP, LK, g0, Bs, last):
    """Right sweep over the values of a :func:`forward` call, backwards, with
    its ``A``, ``E`` and ``LK``; ``Bs`` is the backward state, updated in
    place (``last``: these are the data's last values).  Returns the smallest
    S/P and its position (the first of equal ones).
    """
    n = W.size
    LR, RR, CR, uhi, ulo, wnext, enext = Bs[0], Bs[1], Bs[2], Bs[3], Bs[4], Bs[5], Bs[6]
    k = n_links(g0, n) - 1
    best = np.inf
    arg = 0
    i = n - 1
    while i >= 0:  # a sub-block (or the part of one in these values) at a time
        G = g0 + i
        if i == n - 1 and last:
            LR = 0.0
            RR = 1.0
            CR = 0.0
        elif (G + 1) % K == 0:
            LR = 0.0
            RR = 1.0
        else:
            LR = (LR + wnext) * enext
            RR = RR * enext
        q = ((A[i] + W[i]) + fma(CR, RR, LR)) * invP[i]
        if q <= best:  # backwards: the first of equal minima
            best = q
            arg = i
        start = max(0, i - G % K)
        for j in range(i - 1, start - 1, -1):
            e = E[j + 1]
            LR = (LR + W[j + 1]) * e
            RR = RR * e
            q = ((A[j] + W[j]) + fma(CR, RR, LR)) * invP[j]
            if q <= best:
                best = q
                arg = j
        w = W[start]
        e = E[start]
        if (g0 + start) % K == 0 and g0 + start > 0:
            b = fma(CR, RR, LR)  # B' at start, as above
            CR, uhi, ulo = _link_backward(b, w, LR, uhi, ulo, LK[k, 0], LK[k, 1], LK[k, 2], e)
            k -= 1
        wnext = w
        enext = e
        i = start - 1
    Bs[0], Bs[1], Bs[2], Bs[3], Bs[4], Bs[5], Bs[6] = LR, RR, CR, uhi, ulo, wnext, enext
    return best, arg


@kernel
def worst_case_one(fs, W, invP, inv, Z, LK, F, Bs):
    """(rho*, argmax group) for one scale.  Work arrays: ``Z`` (2, u),
    ``LK`` (>= (u - 1) // K, 3), ``F`` (NF,), ``Bs`` (NB,).
    """
    E = Z[0]
    A = Z[1]
    neighbour_factors(fs, inv, E)
    F[:] = 0.0
    forward(fs, W, E, A, LK, 0, F, inv)
    Bs[:] = 0.0
    Bs[1] = 1.0
    best, arg = backward(W, E, A, invP, LK, 0, Bs, True)
    # P/S <= 1 exactly; 1/(S * (1/P)) may round a hair above it
    return min(1.0 / best, 1.0), arg


@kernel
def worst_case_scales(fs, W, invP, inv, out, arg, Z, LK, F, Bs):
    """:func:`worst_case_one` for each scale in turn (few scales)."""
    for k in range(inv.size):
        r, a = worst_case_one(fs, W, invP, inv[k], Z, LK, F, Bs)
        out[k] = r
        arg[k] = a


# ------------------------------------------------------------ chunks --

@kernel
def chunk_factors(fs, fprev, inv, E):
    """The neighbour factors of a chunk, ``E[0]`` the one to the previous
    chunk's last value ``fprev`` (the same operations as
    :func:`neighbour_factors`).
    """
    neighbour_factors(fs, inv, E)
    E[0] = exp(-(fs[0] - fprev) * inv)


@kernel
def chunk_forward(fs, W, g0, inv, F, E, A, LK):
    """:func:`forward` over one chunk for each scale: ``F`` (scales, NF) holds
    the forward states, updated in place.  Work arrays E, A (>= n,), LK.
    """
    n = fs.size
    for s in range(inv.size):
        chunk_factors(fs, F[s, 0], inv[s], E[:n])
        forward(fs, W, E[:n], A[:n], LK, g0, F[s], inv[s])


@kernel
def chunk_worst(fs, W, invP, g0, inv, F, Bs, last, best, E, A, LK, Fs):
    """The smallest S/P of one chunk for each scale, folded into ``best``,
    given the forward states before the chunk ``F`` (left as they are) and
    the backward states after it ``Bs`` (updated to those before it);
    ``last``: no value follows the chunk.  ``Fs`` (NF,) is a work array.
    """
    n = fs.size
    for s in range(inv.size):
        Fs[:] = F[s]
        chunk_factors(fs, Fs[0], inv[s], E[:n])
        forward(fs, W, E[:n], A[:n], LK, g0, Fs, inv[s])
        q, _ = backward(W, E[:n], A[:n], invP, LK, g0, Bs[s], last)
        if q <= best[s]:
            best[s] = q


# ------------------------------------------------------------ eight scales --
#
# The same sweeps, BLOCK scales side by side.  All lane data live in flat
# arrays at constant offsets (row r of a lane array is [r * BLOCK, (r + 1) *
# BLOCK)) and the lane loops run to a length not known at compile time: LLVM
# then vectorises them (a loop of constant length 8 is unrolled, and not
# vectorised, and arrays it cannot tell apart cost run-time overlap checks
# that make short loops scalar).  The loops go a sub-block at a time, so
# that the per-value loop has no branch.  Lane state C: 0 L / LR, 1 R / RR,
# 2 C / CR, 3 anchor, 4 T / U hi, 5 lo, 6 inv, 7 smallest S/P, 9-11 the new
# link, 12 the position of the smallest S/P, 13-15 rows 2, 4 and 5 kept
# aside (chunks).
#
# Shared factors: where the gaps fs[g] - fs[g-1] take at most MAX_CLASSES
# distinct values (:func:`gap_classes`), the lanes' factors of each are
# formed once per block into a table ``T`` (row ``gi[g]`` for value g)
# instead of once per value into Z.  Equally spaced values (a sum's or a
# mean's worlds) have one to three distinct gaps in floating point: their
# factors cost a handful of exponentials per block, the table stays in the
# first-level cache, and the sweeps are left with multiply-adds.  A factor
# is ``exp(-d * inv)`` of the same ``d`` either way, so the bits do not
# change.

MAX_CLASSES = 64  # more distinct gaps than this: one table row per value


@kernel
def gap_classes(fs, gi, gv):
    """Classify the gaps fs[g] - fs[g-1] (g >= 1) by value: ``gv[k]``
    the k-th distinct gap, ``gi[g]`` its class (``gi[0] = 0``, ``gv[0]`` the
    first gap, or 0 for one value).  Returns the number of classes, or -1
    (``gi``, ``gv`` then undefined) past :data:`MAX_CLASSES`.
    """
    u = fs.size
    gi[0] = 0
    gv[0] = fs[1] - fs[0] if u > 1 else 0.0
    n = 1
    last = 0
    for g in range(1, u):
        d = fs[g] - fs[g - 1]
        if d != gv[last]:
            k = 0
            while k < n and gv[k] != d:
                k += 1
            if k == n:
                if n == MAX_CLASSES:
                    return -1
                gv[n] = d
                n += 1
            last = k
        gi[g] = last
    return n


@kernel
def _block_table(gv, T, C, n8):
    """The lanes' factors of each distinct gap: T[k, s] = exp(-gv[k] inv_s)."""
    B = BLOCK
    for k in range(gv.size):
        d = gv[k]
        for s in range(n8):
            T[k, s] = exp(-d * C[6 * B + s])


@kernel
def _block_link(g, fs, W, Z, za, LK, C, n8):
    """The link at value g (a sub-block's first value, g > 0) for the lanes
    (its Z row: g - za).
    """
    B = BLOCK
    f = fs[g]
    fprev = fs[g - 1]
    d = f - fprev
    wp = W[g - 1]
    z = g - za
    for s in range(n8):
        inv = C[6 * B + s]
        e = exp(-d * inv)
        c, fa, thi, tlo, ps, qe, kind = _link_forward(fprev, wp, C[s], C[B + s], C[2 * B + s],
                                                      C[3 * B + s], C[4 * B + s], C[5 * B + s],
                                                      f, e, inv)
        C[s] = 0.0
        C[B + s] = 1.0
        C[2 * B + s] = c
        C[3 * B + s] = fa
        C[4 * B + s] = thi
        C[5 * B + s] = tlo
        C[9 * B + s] = ps
        C[10 * B + s] = qe
        C[11 * B + s] = kind
        Z[z, s] = e  # (read back only where the factors are not shared)
        Z[z, B + s] = fma(c, 1.0, 0.0)
    k = g // K - 1
    for s in range(3 * B):  # apart: one more array in the loop above keeps it scalar
        LK[k, s] = C[9 * B + s]


@kernel
def _block_forward(fs, W, gi, T, Z, LK, C, n8, shared, a, b):
    """:func:`forward` for the lanes over the sub-blocks that start at a ..
    b - 1 (a a multiple of K), from the lanes' state after value a - 1 (or
    from the start, a = 0).  Z (rows from value a, 2 BLOCK): factors | A'.
    The factors are read from the table ``T`` if ``shared`` (rows ``gi``),
    else formed and written to Z.
    """
    B = BLOCK
    u = fs.size
    if a == 0:
        f0 = fs[0]
        for s in range(n8):
            C[s] = 0.0
            C[B + s] = 1.0
            C[2 * B + s] = 0.0
            C[3 * B + s] = f0
            C[4 * B + s] = 0.0
            C[5 * B + s] = 0.0
            Z[0, B + s] = fma(0.0, 1.0, 0.0)
    for s0 in range(a, min(b, u), K):
        if s0 > 0:
            _block_link(s0, fs, W, Z, a, LK, C, n8)
        if shared:
            for g in range(s0 + 1, min(s0 + K, u)):
                wp = W[g - 1]
                r = gi[g]
                z = g - a
                for s in range(n8):
                    e = T[r, s]
                    L = (C[s] + wp) * e
                    R = C[B + s] * e
                    C[s] = L
                    C[B + s] = R
                    Z[z, B + s] = fma(C[2 * B + s], R, L)
        else:
            for g in range(s0 + 1, min(s0 + K, u)):
                d = fs[g] - fs[g - 1]
                wp = W[g - 1]
                z = g - a
                for s in range(n8):
                    e = exp(-d * C[6 * B + s])
                    L = (C[s] + wp) * e
                    R = C[B + s] * e
                    C[s] = L
                    C[B + s] = R
                    Z[z, s] = e
                    Z[z, B + s] = fma(C[2 * B + s], R, L)


@kernel
def _block_q(g, z, w, ip, Z, C, n8):
    """S/P at value g (Z row z) for the lanes (LR, RR in C), and the running
    minimum.
    """
    B = BLOCK
    gf = float(g)
    for s in range(n8):
        q = ((Z[z, B + s] + w) + fma(C[2 * B + s], C[B + s], C[s])) * ip
        old = C[7 * B + s]
        take = q <= old
        C[7 * B + s] = q if take else old
        C[12 * B + s] = gf if take else C[12 * B + s]


@inlined_kernel
def _block_step_back(g, z, w, ip, wn, F, r, Z, C, n8):
    """One value of the backward sweep for the lanes: value g (Z row z,
    weight ``w``, ``ip`` = 1/P) from the state at g + 1 (weight ``wn``,
    factors in row r of ``F``).
    """
    B = BLOCK
    gf = float(g)
    for s in range(n8):
        e = F[r, s]
        LR = (C[s] + wn) * e
        RR = C[B + s] * e
        C[s] = LR
        C[B + s] = RR
        q = ((Z[z, B + s] + w) + fma(C[2 * B + s], RR, LR)) * ip
        old = C[7 * B + s]
        take = q <= old
        C[7 * B + s] = q if take else old
        C[12 * B + s] = gf if take else C[12 * B + s]


@kernel
def _block_backward(W, invP, gi, T, Z, LK, C, n8, shared, a, b):
    """:func:`backward` for the lanes over the sub-blocks that start at a ..
    b - 1, from the last, with the Z rows of :func:`_block_forward` (a,
    b); the factors in rows ``gi`` of the table ``T`` if ``shared``, else
    in Z.  The lanes' carried state (C rows 2, 4, 5, 7, 12) is set by
    :func:`_block_backward_start` and carried from call to call.
    """
    B = BLOCK
    u = W.size
    for j in range((min(b, u) - 1) // K, a // K - 1, -1):
        s0 = j * K
        e0 = min(s0 + K, u) - 1
        # the sub-block's last value
        for s in range(n8):
            C[s] = 0.0
            C[B + s] = 1.0
        _block_q(e0, e0 - a, W[e0], invP[e0], Z, C, n8)
        if shared:
            for g in range(e0 - 1, s0 - 1, -1):
                _block_step_back(g, g - a, W[g], invP[g], W[g + 1], T, gi[g + 1], Z, C, n8)
        else:
            for g in range(e0 - 1, s0 - 1, -1):
                _block_step_back(g, g - a, W[g], invP[g], W[g + 1], Z, g + 1 - a, Z, C, n8)
        if j > 0:
            w = W[s0]
            F = T if shared else Z
            r = gi[s0] if shared else s0 - a
            for s in range(n8):
                b_ = fma(C[2 * B + s], C[B + s], C[s])  # B' at s0, as above
                cr, hi, lo = _link_backward(b_, w, C[s], C[4 * B + s], C[5 * B + s],
                                            LK[j - 1, s], LK[j - 1, B + s], LK[j - 1, 2 * B + s], F[r, s])
                C[2 * B + s] = cr
                C[4 * B + s] = hi
                C[5 * B + s] = lo


@kernel
def _block_backward_start(C, n8):
    """The backward sweep's carried state before the last value."""
    B = BLOCK
    for s in range(n8):
        C[2 * B + s] = 0.0
        C[4 * B + s] = 0.0
        C[5 * B + s] = 0.0
        C[7 * B + s] = np.inf
        C[12 * B + s] = 0.0


NS = 6  # lane rows of C (L, R, C, anchor, T hi, lo) saved at a chunk's start
CHUNK = 1 << 13  # values per chunk where a row of Z per value takes too much memory (a multiple of K)


@kernel
def _worst_case_block(fs, W, invP, gi, gv, inv8, out8, arg8, T, Z, LK, C, S):
    """BLOCK scales at once.  ``gi``, ``gv``: the gap classes
    (:func:`gap_classes`; or both empty: every value's factors are formed
    as they are needed and kept in Z, and ``gi`` is not read); ``T`` (>= gv.size,
    BLOCK), ``Z`` (rows, 2 BLOCK), ``LK`` (>= (u - 1) // K, 3 BLOCK), ``C``
    (16 BLOCK,), ``S`` (>= u / rows, NS BLOCK).  Arithmetic identical to
    :func:`worst_case_one`, scale by scale.
    """
    B = BLOCK
    n8 = inv8.size  # = BLOCK, but not a compile-time constant (see above)
    u = fs.size
    ch = Z.shape[0]
    for s in range(n8):
        C[6 * B + s] = inv8[s]
    shared = gv.size > 0
    if shared:
        _block_table(gv, T, C, n8)
    if ch >= u:
        _block_forward(fs, W, gi, T, Z, LK, C, n8, shared, 0, u)
        _block_backward_start(C, n8)
        _block_backward(W, invP, gi, T, Z, LK, C, n8, shared, 0, u)
    else:
        nc = (u + ch - 1) // ch
        for c in range(nc):
            for i in range(NS * B):
                S[c, i] = C[i]
            _block_forward(fs, W, gi, T, Z, LK, C, n8, shared, c * ch, (c + 1) * ch)
        _block_backward_start(C, n8)
        for c in range(nc - 1, -1, -1):
            for i in range(B):  # the backward sweep's carry and anchored sum
                C[13 * B + i] = C[2 * B + i]
                C[14 * B + i] = C[4 * B + i]
                C[15 * B + i] = C[5 * B + i]
            for i in range(NS * B):
                C[i] = S[c, i]
            _block_forward(fs, W, gi, T, Z, LK, C, n8, shared, c * ch, (c + 1) * ch)
            for i in range(B):
                C[2 * B + i] = C[13 * B + i]
                C[4 * B + i] = C[14 * B + i]
                C[5 * B + i] = C[15 * B + i]
            _block_backward(W, invP, gi, T, Z, LK, C, n8, shared, c * ch, (c + 1) * ch)
    for s in range(n8):
        best = C[7 * B + s]
        out8[s] = min(1.0 / best, 1.0)
        arg8[s] = int(C[12 * B + s])


@parallel_kernel
def worst_case_blocks_parallel(fs, W, invP, gi, gv, inv, out, arg, T, Z, LK, C, S):
    """Many scales: blocks of BLOCK shared among ``Z.shape[0]`` workers."""
    nw = Z.shape[0]
    nb = inv.size // BLOCK
    for t in numba.prange(nw):
        for b in range(t, nb, nw):
            s0 = b * BLOCK
            _worst_case_block(fs, W, invP, gi, gv, inv[s0:s0 + BLOCK], out[s0:s0 + BLOCK],
                              arg[s0:s0 + BLOCK], T[t], Z[t], LK[t], C[t], S[t])
