"""Exact arithmetic for randomized response (`diffident.rr`): products with the
exponents apart, error-free products and Priest's summation.
"""

import numpy as np

from .._numerics.dd import two_prod


def _frexp_prod(factors):
    """``(m, e)`` with ``prod(factors) = m 2**e``, no under- or overflow (m = 0 if a factor is 0)."""
    m, e = np.frexp(factors[0])
    e = e.astype(np.int64)
    for f in factors[1:]:
        mf, ef = np.frexp(f)
        m = m * mf
        e = e + ef
    return m, e


def ratio_of_products(num, den):
    """``prod(num) / prod(den)`` of non-negative finite factors, rounded only into float range at the end."""
    mn, en = _frexp_prod(num)
    md, ed = _frexp_prod(den)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        return np.ldexp(mn / md, en - ed)


def shares_of_products(a, b):
    """``(A / (A + B), B / (A + B))`` for ``A = prod(a)``, ``B = prod(b)``, each to a
    few ulps from its own numerator, no under- or overflow; nan where A = B = 0.
    """
    ma, ea = _frexp_prod(a)
    mb, eb = _frexp_prod(b)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        r = np.ldexp(mb / ma, eb - ea)      # B / A
        s = np.ldexp(ma / mb, ea - eb)      # A / B
        small = r <= 1.0
        t = np.where(small, r, s)
        big, little = 1.0 / (1.0 + t), t / (1.0 + t)
    return np.where(small, big, little), np.where(small, little, big)


def accurate_sum(*terms):
    """The sum of the (broadcast) terms to 2 ulps of the exact sum, however much it cancels (Priest)."""
    t = np.stack(np.broadcast_arrays(*terms))
    order = np.argsort(-np.abs(t), axis=0, kind="stable")
    t = np.take_along_axis(t, order, axis=0)
    s = t[0]
    c = np.zeros_like(s)
    for x in t[1:]:
        y = c + x
        u = x - (y - c)
        tt = y + s
        v = y - (tt - s)
        z = u + v
        s = tt + z
        c = z - (s - tt)
    return s


def scaled_product(a, b, e):
    """``a b 2**-e`` exactly as ``hi + lo``, for finite ``a, b >= 0`` (unless a part is subnormal)."""
    ma, ea = np.frexp(a)
    mb, eb = np.frexp(b)
    hi, lo = two_prod(ma, mb)
    sh = ea.astype(np.int64) + eb - e
    with np.errstate(under="ignore", over="ignore"):
        return np.ldexp(hi, sh), np.ldexp(lo, sh)
