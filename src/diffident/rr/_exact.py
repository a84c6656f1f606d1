"""Exact arithmetic for randomized response (`diffident.rr`).

Products of probabilities are formed as mantissa products with the binary
exponents carried apart (`ratio_of_products`, `shares_of_products`), so a
product that is subnormal or 0 in float64 although its factors are not
loses nothing; a difference that cancels is formed from error-free
products (Dekker's two-product, `scaled_product`) and summed with Priest's
doubly compensated summation (`accurate_sum`), which is accurate to 2 ulps
of the exact sum however much it cancels.
"""

import numpy as np

from .._numerics.dd import two_prod


def _frexp_prod(factors):
    """``(m, e)`` with ``prod(factors) = m 2**e``: the factors' mantissas
    (in [1/2, 1)) multiplied, which neither overflows nor underflows, and
    their exponents added as integers.  ``m`` is 0 if a factor is 0.
    """
    m, e = np.frexp(factors[0])
    e = e.astype(np.int64)
    for f in factors[1:]:
        mf, ef = np.frexp(f)
        m = m * mf
        e = e + ef
    return m, e


def ratio_of_products(num, den):
    """``prod(num) / prod(den)`` of non-negative finite factors, with one
    rounding per factor and a last one into float64's range only (a true
    value below 2**-1022 rounds to the subnormal grid, one above the largest
    float to inf); ``0/0 -> nan``, ``x/0 -> inf``.
    """
    mn, en = _frexp_prod(num)
    md, ed = _frexp_prod(den)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        return np.ldexp(mn / md, en - ed)


def shares_of_products(a, b):
    """``(A / (A + B), B / (A + B))`` with ``A = prod(a)``, ``B = prod(b)``
    (non-negative factors), each to a few ulps from its own numerator (never
    as one minus the other) with no under- or overflow on the way; nan where
    ``A = B = 0``.  With the smaller over the larger of A, B as ``t <= 1``
    (mantissas and exponents apart): ``1 / (1 + t)`` and ``t / (1 + t)``.
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
    """The sum of the (broadcast) terms, accurate to 2 ulps of the exact sum
    however much it cancels: Priest's doubly compensated summation over the
    terms sorted by decreasing magnitude (Higham, Accuracy and Stability of
    Numerical Algorithms, 2nd ed., section 4.3).
    """
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
    """``a b 2**-e`` as an unevaluated sum ``hi + lo``, exactly, for finite
    ``a, b >= 0`` (Dekker's two-product of the mantissas, so that neither its
    splitting overflows nor its error term underflows, then scaled; exact
    unless a part falls below 2**-1022 after the scaling).
    """
    ma, ea = np.frexp(a)
    mb, eb = np.frexp(b)
    hi, lo = two_prod(ma, mb)
    sh = ea.astype(np.int64) + eb - e
    with np.errstate(under="ignore", over="ignore"):
        return np.ldexp(hi, sh), np.ldexp(lo, sh)
