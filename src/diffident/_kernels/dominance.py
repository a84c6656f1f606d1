"""Moments of one world's sum of exponentials (the dominated worst case)."""

import numba
import numpy as np

from . import dd
from ._jit import parallel_kernel
from ._math import exp

K = 40  # the series' last power: (ETA / (1 - ETA))^(K + 1) < 1e-19
ETA = 0.25  # the largest relative step below an expansion point
X_MAX = 700.0  # a term with a larger exponent is left out (its bound is added)
BLOCK = 64  # worlds side by side (a power of two)
_FLUSH = 8  # blocks each lane sums before the lanes are added up


@parallel_kernel
def moments(D, W, c1, out):
    """For each expansion point ``c1[p]``: ``out[p, 0:K+2]`` the moments
    m_0 .. m_(K+1), ``out[p, K+2]`` the tail sum ``sum_g t_g exp(ETA
    x_g)``, ``out[p, K+3]`` the weight of the terms left out (exponent
    above `X_MAX`).  ``D`` and ``W`` padded to a multiple of `BLOCK` (with
    ``D = inf``, ``W = 0``).
    """
    n = D.size
    inv = np.empty(K + 2)
    for k in range(1, K + 2):
        inv[k] = 1.0 / k
    for p in numba.prange(c1.size):
        c = c1[p]
        hi = np.zeros(K + 3)
        lo = np.zeros(K + 3)
        x = np.empty(BLOCK)
        t = np.empty(BLOCK)
        acc = np.zeros((K + 3, BLOCK))
        skipped = 0.0
        nb = 0
        for g0 in range(0, n, BLOCK):
            for j in range(BLOCK):  # (branch-free: vectorised)
                xj = c * D[g0 + j]
                w = W[g0 + j]
                keep = xj <= X_MAX
                skipped += 0.0 if keep else w
                xk = xj if keep else 0.0
                x[j] = xk
                t[j] = w * exp(-xk) if keep else 0.0
            for j in range(BLOCK):
                acc[0, j] += t[j]
            for k in range(1, K + 2):
                f = inv[k]
                for j in range(BLOCK):
                    v = t[j] * x[j] * f
                    t[j] = v
                    acc[k, j] += v
            for j in range(BLOCK):
                acc[K + 2, j] += t[j] * exp(ETA * x[j])  # (ETA x <= 175)
            nb += 1
            if nb == _FLUSH or g0 + BLOCK >= n:
                nb = 0
                for k in range(K + 3):
                    a = acc[k]
                    half = BLOCK // 2
                    while half >= 1:
                        for j in range(half):
                            a[j] = a[j] + a[j + half]
                        half //= 2
                    hi[k], lo[k] = dd.add_d(hi[k], lo[k], a[0])
                    a[:] = 0.0
        for k in range(K + 3):
            out[p, k] = hi[k] + lo[k]
        out[p, K + 3] = skipped
