"""Double-double arithmetic: values carried as an unevaluated sum hi + lo
(about 106 bits), with error-free transformations built on explicit FMA.
"""


from ._jit import kernel
from ._math import fma


@kernel
def two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


@kernel
def fast_two_sum(a, b):
    """Requires |a| >= |b| (or a == 0)."""
    s = a + b
    return s, b - (s - a)


@kernel
def two_prod(a, b):
    p = a * b
    return p, fma(a, b, -p)


@kernel
def add(ah, al, bh, bl):
    s, e = two_sum(ah, bh)
    t, f = two_sum(al, bl)
    e += t
    s, e = fast_two_sum(s, e)
    e += f
    return fast_two_sum(s, e)


@kernel
def add_d(ah, al, b):
    s, e = two_sum(ah, b)
    e += al
    return fast_two_sum(s, e)


@kernel
def mul_d(ah, al, b):
    p, e = two_prod(ah, b)
    e = fma(al, b, e)
    return fast_two_sum(p, e)


@kernel
def sqr(ah, al):
    p, e = two_prod(ah, ah)
    e = fma(2.0 * ah, al, e)
    return fast_two_sum(p, e)


@kernel
def div_d(ah, al, d):
    """(ah + al) / d rounded to a double (faithfully; correctly but for
    near-ties).
    """
    q = ah / d
    p, e = two_prod(q, d)
    r = ((ah - p) - e) + al
    return q + r / d
