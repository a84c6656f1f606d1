"""A world that attains the worst case at every scale: one sum, enclosed.

Dominance.  Let the worlds (a multiset, each group's count of equally
weighted worlds) be sorted, t the world at one end, and T_r its distance
to the r-th nearest other world (T_0 = 0).  If T_r / r does not increase
in r, T is subadditive, so every window of k + 1 consecutive worlds spans
at most T_k; every world has k others within such a window, so its k-th
nearest distance is at most t's, for every k.  Then every world's sum
``S_i(s) = sum_j exp(-s |f_i - f_j|)`` is at least t's at every s = 1 /
scale, and with one prior weight for all, the worst-case risk is t's,
``invP / S_t(s)``, at every scale: proven by one O(m) test (`top_world`,
with a margin for the rounding of the distances), the quadratic one being
the tests' reference.

Enclosure.  `Enclosure` bounds the exact ``S_t`` at any 1 / scale from a
few moment passes (`_kernels.dominance.moments`): expansion points are the
floats ``2^e (1 + j/4)``, each query uses the nearest one above it, and
the bound adds the series' tail and the rounding of every moment, of the
series and of the query's 1 / scale.  A search then decides most of its
comparisons without a pass over the worlds; what a bound cannot decide is
evaluated as before.
"""

import numpy as np

from .._kernels import dominance
from .._numerics.floats import U

__all__ = ["top_world", "Enclosure", "RiskBounds", "enclosure"]

MIN_GROUPS = 1024  # fewer groups: a pass is cheap, and the moments would cost more than they save
_EXACT = 2.0 ** 53  # counts summed exactly below this
_LEFT_OUT = float(np.exp(-(1.0 - dominance.ETA) * dominance.X_MAX))  # a left-out term's largest factor


def top_world(fs, W, invP):
    """The group (``0`` or ``fs.size - 1``) whose single world attains the
    worst case at every scale, proven by the star-shape test of the module
    docstring on its distances; None where neither end passes, the priors
    differ, or the worlds' counts ``W invP`` are not whole numbers summing
    below 2**53.

    ``fs`` ascending and finite with finite differences (`Risk`'s scaled
    values), ``W`` > 0.
    """
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
    """Bounds on the exact ``S_t(c) = sum_g W_g exp(-c |fs_g - fs_t|)`` and
    on the risk ``invP / S_t`` of a world set whose world t attains the
    worst case at every scale.
    """

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
        """(lower, upper) bounds on the exact S_t at each 1 / scale ``c``
        (scaled units; positive and finite, else NaN).
        """
        S, E = self._series(c)
        return S - E, S + E

    def _series(self, c):
        """The series' value at each 1 / scale ``c`` and a bound on its
        distance from the exact S_t (NaN where ``c`` is not positive and finite).
        """
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
        """(lower, upper) bounds on the *computed* risk of ``risk`` (the
        `Risk` of this world set, within its ``error`` of the exact one) at
        the scales ``lam``; NaN where not bounded.  With ``estimate`` also
        the series' risk there (accurate to a few units of roundoff, not a
        bound), from the same evaluation.
        """
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
    """`Enclosure.risks` of one `Risk` as a function of the scales (with
    ``estimate=True``: the series' risk too, for interpolation).
    """

    def __init__(self, enc, risk):
        self.enc, self.risk = enc, risk

    def __call__(self, lam, estimate=False):
        return self.enc.risks(self.risk, lam, estimate)


def enclosure(fs, W, invP):
    """An `Enclosure` of the world set (scaled values ``fs``) where it has
    at least `MIN_GROUPS` groups and a world that attains the worst case at
    every scale, else None.
    """
    if fs.size < MIN_GROUPS:
        return None
    t = top_world(fs, W, invP)
    return None if t is None else Enclosure(fs, W, invP, t)
