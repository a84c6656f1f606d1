"""Dense worst-case risk for several independent Laplace releases
(Mathematics page, eq. 7.4): S_j = sum_k w_k exp(-sum_t |F[t, j] - F[t, k]| inv_t).
"""

import numba
import numpy as np

from ._jit import kernel, parallel_kernel
from ._math import exp, sum8


@kernel
def _row_sum(F, w, inv, j, buf):
    q, m = F.shape
    for k in range(m):
        buf[k] = 0.0
    for t in range(q):
        ft = F[t]
        c = ft[j]
        it = inv[t]
        for k in range(m):
            d = abs(c - ft[k])
            buf[k] += d * it if d > 0.0 else 0.0  # scale 0: inv = inf, and 0 * inf is NaN
    for k in range(m):
        buf[k] = w[k] * exp(-buf[k])
    return sum8(buf)


@parallel_kernel
def multi_worst_case(F, w, invP, inv, out, arg, buf):
    """rho* and its argmax entry for each scale vector inv[s] (rows of inv);
    ``buf`` is (workers, m).
    """
    nw = buf.shape[0]
    m = F.shape[1]
    ns = inv.shape[0]
    best = np.empty((nw, ns))
    where = np.empty((nw, ns), np.int64)
    for t in numba.prange(nw):
        for s in range(ns):
            best[t, s] = np.inf
            where[t, s] = -1
            for j in range(t, m, nw):
                if invP[j] == np.inf:  # zero prior: not a possible world
                    continue
                v = _row_sum(F, w, inv[s], j, buf[t]) * invP[j]
                if v < best[t, s]:
                    best[t, s] = v
                    where[t, s] = j
    for s in range(ns):
        b = np.inf
        a = -1
        for t in range(nw):
            if best[t, s] < b or (best[t, s] == b and where[t, s] < a):
                b = best[t, s]
                a = where[t, s]
        out[s] = min(1.0 / b, 1.0)
        arg[s] = a
