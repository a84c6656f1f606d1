"""Exact reference for randomized response (`diffident.rr`; Mathematics page, sec. 7)."""

import math
from fractions import Fraction as F

import mpmath

DPS = 60

__all__ = [
    "DPS", "to_mpf", "likelihoods",                                             # the exact model
    "epsilon", "epsilon_bound", "posterior", "risk", "rho", "estimate", "variance",  # one bit
    "warner_p", "warner_epsilon", "warner_estimate",                            # Warner's coin
    "kary_p", "kary_epsilon", "kary_estimate",                                  # k-ary response
]


def to_mpf(x):
    """An exact rational (int, float, Fraction) as an mpf at the working precision."""
    x = F(x)
    return mpmath.mpf(x.numerator) / x.denominator


def likelihoods(flip, *, zero):
    """The four likelihoods {(report, x): Fraction} of randomized response."""
    p, k = F(flip), F(zero)
    return {(1, 1): 1 - p * k, (1, 0): p * (1 - k), (0, 1): p * k, (0, 0): 1 - p + p * k}


def epsilon(flip, *, zero):
    """The exact epsilon of randomized response, by enumeration (mpf or inf)."""
    t = likelihoods(flip, zero=zero)
    with mpmath.workdps(DPS):
        best = mpmath.mpf(0)
        for r in (0, 1):
            for x, y in ((0, 1), (1, 0)):
                num, den = t[r, x], t[r, y]
                if num == 0 and den == 0:
                    continue          # a report that never happens constrains nothing
                if den == 0:
                    return math.inf
                if num == 0:
                    continue
                best = max(best, mpmath.log(to_mpf(num / den)))
        return best


def epsilon_bound(flip, *, zero):
    """The simple bound on epsilon, ``-ln(p min(k, 1 - k))`` (mpf or inf)."""
    p, k = F(flip), F(zero)
    m = min(k, 1 - k)
    if p == 0 or m == 0:
        return math.inf
    with mpmath.workdps(DPS):
        return -mpmath.log(to_mpf(p * m))


def _joint(p, k, prior, report):
    """{x: P(report | x) P(x)} exactly."""
    t = likelihoods(p, zero=k)
    pr = F(prior)
    return {1: t[report, 1] * pr, 0: t[report, 0] * (1 - pr)}


def posterior(flip, *, zero, prior, report, value=1):
    """The posterior P(x = value | report), a Fraction (NaN: impossible report)."""
    j = _joint(flip, zero, prior, report)
    tot = j[0] + j[1]
    return math.nan if tot == 0 else j[value] / tot


def risk(flip, *, zero, prior, value=1):
    """The identification risk of the bit ``value``: max over reports (a Fraction)."""
    post = [posterior(flip, zero=zero, prior=prior, report=r, value=value) for r in (0, 1)]
    return max(v for v in post if not (isinstance(v, float) and math.isnan(v)))


def rho(flip, *, zero, prior):
    """The worst-case posterior rho of randomized response (a Fraction)."""
    p, k = flip, zero
    t = likelihoods(p, zero=k)
    w = {1: F(prior), 0: 1 - F(prior)}
    cand = [posterior(p, zero=k, prior=prior, report=r, value=x) for x in (0, 1) for r in (0, 1) if w[x] > 0 and t[r,
                                                                                                                x] > 0]
    return max(cand)


def estimate(q, *, flip, zero):
    """The unbiased estimate of the share of ones, ``(q - p (1 - k)) / (1 - p)``."""
    q, p, k = F(q), F(flip), F(zero)
    return (q - p * (1 - k)) / (1 - p)


def variance(q, *, flip, zero, n):
    """The variance of the estimate from ``n`` reports (Fraction or float edge)."""
    q, p, n = F(q), F(flip), F(n)
    num, den = q * (1 - q), (1 - p) ** 2 * n
    if den == 0:
        return math.inf if num > 0 else math.nan
    return num / den


def warner_p(epsilon):
    """Warner's truth probability for epsilon, ``e^eps / (e^eps + 1)`` (an mpf)."""
    if epsilon == math.inf:
        return F(1)
    with mpmath.workdps(DPS):
        e = mpmath.exp(to_mpf(epsilon))
        return e / (e + 1)


def warner_epsilon(p):
    """The epsilon of Warner's coin, ``ln(p / (1 - p))`` (an mpf or inf)."""
    p = F(p)
    if p == 1:
        return math.inf
    with mpmath.workdps(DPS):
        return mpmath.log(to_mpf(p / (1 - p)))


def warner_estimate(n_yes, *, n, p):
    """Warner's unbiased estimate of the number of ones (a Fraction)."""
    n_yes, n, p = F(n_yes), F(n), F(p)
    return (n_yes - n * (1 - p)) / (2 * p - 1)


def kary_p(epsilon, *, d):
    """The k-ary truth probability, ``e^eps / (e^eps + d - 1)`` (an mpf)."""
    if epsilon == math.inf:
        return F(1)
    with mpmath.workdps(DPS):
        e = mpmath.exp(to_mpf(epsilon))
        return e / (e + to_mpf(d) - 1)


def kary_epsilon(p, *, d):
    """The k-ary epsilon, ``max(0, ln(p (d - 1) / (1 - p)))`` (an mpf)."""
    p, d = F(p), F(d)
    if p == 1:
        return math.inf
    ratio = p * (d - 1) / (1 - p)
    if ratio <= 1:
        return mpmath.mpf(0)
    with mpmath.workdps(DPS):
        return mpmath.log(to_mpf(ratio))


def kary_estimate(counts, *, epsilon):
    """The k-ary unbiased estimates of the counts, as (estimate, scale) pairs."""
    c = [F(x) for x in counts]
    d, n = len(c), sum(c)
    if epsilon == math.inf:
        return [(cj, abs(cj)) for cj in c]
    extra = max(0, int(-math.log10(epsilon)) + 5) if epsilon < 1 else 0
    with mpmath.workdps(DPS + extra):
        e = mpmath.exp(to_mpf(epsilon))
        p = e / (e + d - 1)
        q = 1 / (e + d - 1)
        out = []
        for cj in c:
            est = (to_mpf(cj) - to_mpf(n) * q) / (p - q)
            # the estimate is c_j + (d c_j - n) / (e^epsilon - 1): two terms that
            # may cancel; the documented error is relative to their sizes
            scale = abs(to_mpf(cj)) + abs(to_mpf(d * cj - n) / (e - 1))
            out.append((+est, +scale))
        return out
