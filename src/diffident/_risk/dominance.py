"""A world attaining the worst case at every scale (`top_world`) and bounds on
its sum from moment passes (`Enclosure`); proofs: docs/algorithms/risk.md.
"""

import numpy as np

from .._kernels import dominance
from .._numerics.floats import U

__all__ = ["top_world", "Enclosure", "RiskBounds", "enclosure"]

MIN_GROUPS = 1024  # fewer groups: a pass is cheap, and the moments would cost more than they save
_EXACT = 2.0 ** 53  # counts summed exactly below this
_LEFT_OUT = float(np.exp(-(1.0 - dominance.ETA) * dominance.X_MAX))  # a left-out term's largest factor


def top_world(fs, W, invP):
    """The end group whose single world attains the worst case at every scale, or None."""
    u = fs.size
    if u < 2 or not np.all(invP == invP[0]):
        return None
    n = W * invP[0]
    if not (np.all(n == np.rint(n)) and np.all(n >= 1.0) and n.sum() < _EXACT):
        return None
    for end in (u - 1, 0):
        order = np.arange(u - 1, -1, -1) if end == u - 1 else np.arange(u)
        d = np.abs(fs[order] - fs[end])  # ascending from the end, d[0] = 0
        c = n[order]
        R = np.cumsum(c)[:-1]  # worlds before position p = 1 .. u - 1 (exact)
        # T_r / r at the first world of position p is at most at the last of p - 1:
        # d_p / R_p <= d_(p-1) / (R_p - 1) (nothing to compare where R_p = 1)
        lhs = d[1:] * (R - 1.0)
        rhs = d[:-1] * R
        if np.all(lhs * (1.0 + 16.0 * U) <= rhs):
            return end
    return None


class Enclosure:
    """Bounds on the exact ``S_t(c)`` and on the risk ``invP / S_t`` of the top world t."""

    def __init__(self, fs, W, invP, t):
        # padded for the kernel (worlds at an infinite distance, of no weight)
        pad = (-fs.size) % dominance.BLOCK
        self._D = np.concatenate([np.abs(fs - fs[t]), np.full(pad, np.inf)])
        self._W = np.concatenate([np.asarray(W, dtype=np.float64), np.zeros(pad)])
        self.top_weight = float(W[t])
        self.invP = float(invP[0])
        self.t = t
        self._points = {}  # expansion point -> its moments, tail and left-out weight

    def _moments(self, c1):
        """The moment rows of each expansion point in ``c1`` (computed once)."""
        new = np.array(sorted({float(x) for x in c1} - self._points.keys()))
        if new.size:
            out = np.empty((new.size, dominance.K + 4))
            dominance.moments(self._D, self._W, new, out)
            for x, row in zip(new.tolist(), out, strict=True):
                self._points[x] = row
        return np.array([self._points[x] for x in c1.tolist()]).reshape(c1.size, dominance.K + 4)

    def sums(self, c):
        """(lower, upper) bounds on the exact S_t at each 1 / scale ``c``."""
        S, E = self._series(c)
        return S - E, S + E

    def _series(self, c):
        """The series' value at each 1 / scale ``c`` and a bound on its error."""
        c = np.asarray(c, dtype=np.float64)
        value = np.full(c.size, np.nan)
        bound = np.full(c.size, np.nan)
        ok = np.flatnonzero(np.isfinite(c) & (c > 0))
        if ok.size == 0:
            return value, bound
        q = c[ok]
        m, e = np.frexp(q)  # q = m 2^e, m in [1/2, 1): points 2^(e-1) (1 + j/4), j = 0 .. 4
        J = np.ceil((2.0 * m - 1.0) * 4.0)
        c1 = np.ldexp(1.0 + J / 4.0, e - 1)
        fin = np.isfinite(c1)
        ok, q, c1 = ok[fin], q[fin], c1[fin]
        if ok.size == 0:
            return value, bound
        rows = self._moments(c1)
        K = dominance.K
        eta = (c1 - q) / c1  # (c1 - q exact: q >= 3 c1 / 4)
        eta_up = eta * (1.0 + 2.0 * U)
        M = rows[:, :K + 2]
        # the series to K by Horner; the moments' rounding (their terms'
        # exponents: 4 (k + 1) m_(k+1), for the query's 1 / scale too)
        S = M[:, K].copy()
        err = 4.0 * (K + 1) * M[:, K + 1] + (67.0 + 5.0 * K) * M[:, K]
        for k in range(K - 1, -1, -1):
            S = S * eta + M[:, k]
            err = err * eta_up + 4.0 * (k + 1) * M[:, k + 1] + (67.0 + 5.0 * k) * M[:, k]
        tail = eta_up ** (K + 1) * rows[:, K + 2] + rows[:, K + 3] * _LEFT_OUT
        E = (tail + err * U + (3.0 * K + 2.0) * U * S) * (1.0 + 1e-3)
        value[ok] = S
        bound[ok] = E
        return value, bound

    def risks(self, risk, lam, estimate=False):
        """(lower, upper) bounds on the *computed* risk of ``risk`` at ``lam`` (and an estimate)."""
        c, unknown = risk.inverse(lam, strict=False)
        S, E = self._series(np.where(unknown, np.nan, c))
        s_lo, s_hi = S - E, S + E
        with np.errstate(divide="ignore", invalid="ignore"):
            r_lo = self.invP / s_hi * (1.0 - 2.0 * U) * (1.0 - risk.error)
            r_hi = self.invP / s_lo * (1.0 + 2.0 * U) * (1.0 + risk.error)
            mid = self.invP / S
        bad = ~(s_lo > 0) | ~(r_lo > 4.0 * np.finfo(np.float64).tiny)  # (below it the risk is formed again)
        r_lo[bad] = np.nan
        r_hi[bad] = np.nan
        mid[bad] = np.nan
        return (r_lo, r_hi, mid) if estimate else (r_lo, r_hi)


class RiskBounds:
    """`Enclosure.risks` of one `Risk` as a function of the scales."""

    def __init__(self, enc, risk):
        self.enc, self.risk = enc, risk

    def __call__(self, lam, estimate=False):
        return self.enc.risks(self.risk, lam, estimate)


def enclosure(fs, W, invP):
    """An `Enclosure` of the world set if it has `MIN_GROUPS` groups and a top world, else None."""
    if fs.size < MIN_GROUPS:
        return None
    t = top_world(fs, W, invP)
    return None if t is None else Enclosure(fs, W, invP, t)
