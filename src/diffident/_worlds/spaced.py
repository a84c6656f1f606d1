"""Equally spaced, equally weighted worlds: the worst case in closed form."""

import numpy as np

from .._kernels import queries
from .._numerics.floats import U
from .possible import sum_grid

__all__ = ["spacing", "SpacedRisk"]

_POWERS_OF_TWO = tuple(2.0 ** j for j in range(0, 31))


def spacing(qy, cands, n):
    """``(num, den)`` with the progression's spacing exactly ``num / den``
    (num a float, den a whole number: the mean's n), where the worlds of
    every D' are an arithmetic progression before rounding: the sum or the
    mean, one unknown individual, a Domain whose values are exact multiples
    of a power of two in equal steps.  None otherwise.
    """
    if not (qy.named and qy.code in (queries.SUM, queries.MEAN)) or cands.domain is None:
        return None
    grid = sum_grid(cands)
    if grid is None or grid[1] not in _POWERS_OF_TWO:
        return None
    offsets, scale, _ = grid
    if offsets.size < 2:
        return None
    step = offsets[1] - offsets[0]
    if not (step > 0 and np.all(np.diff(offsets) == step)):  # (integers below 2**52: exact)
        return None
    return float(step / scale), float(n if qy.code == queries.MEAN else 1)


class SpacedRisk:
    """An upper bound on the exact worst-case risk of m equally weighted
    worlds in arithmetic progression with spacing ``num / den``, in the
    interface of `Risk` (``fs``, ``W``, ``invP``, ``k``, ``error``,
    ``pad``, called on scales): the groups are those of ``risk``, the
    evaluator of the progression's computed values, whose ``error`` the
    caller's margin already carries.
    """

    def __init__(self, risk, num, den, m):
        self.risk, self.m = risk, int(m)
        self.fs, self.W, self.invP, self.k, self.error = risk.fs, risk.W, risk.invP, risk.k, risk.error
        self.pad = risk.pad
        self.num, self.den = float(num), float(den)

    def inverse(self, lam, strict=True):
        return self.risk.inverse(lam, strict)

    def __call__(self, lam, strict=True):
        lam = np.asarray(lam, dtype=np.float64)
        with np.errstate(divide="ignore", over="ignore", under="ignore", invalid="ignore"):
            # x = num / (den lam): from above and from below
            x = self.num / self.den / lam
            x_up = x * (1.0 + 4.0 * U)
            y_lo = (x * (1.0 - 4.0 * U)) * self.m * (1.0 - 2.0 * U)
            r = np.expm1(-x_up) / np.expm1(-y_lo) * (1.0 + 16.0 * U)
        r = np.where(x == 0.0, 1.0 / self.m * (1.0 + 2.0 * U), r)  # infinite noise: 1/m
        r = np.where(np.isnan(r) | (x == np.inf), 1.0, np.minimum(r, 1.0))
        return r, np.zeros(lam.size, np.int64)
