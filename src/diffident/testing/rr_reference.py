"""Exact reference for randomized response (diffident.rr; Mathematics page, section 7).

Written from the formulas in ``diffident.rr``'s module docstring only (the
four likelihoods, Bayes' rule, epsilon as the largest log-likelihood ratio,
Warner's coin and k-ary randomized response): every rational quantity is
computed exactly with ``fractions.Fraction`` (a float64 input is a dyadic
rational, so the likelihoods, posteriors and estimates are exact), and only
the logarithms and exponentials go through mpmath at ``DPS`` = 60 digits.
None of it shares code or formulas with the implementation (no log1p
rewrites, no error-free products), and none of it calls diffident.

Return values: a ``Fraction`` where the quantity is rational, an mpf where
it needs a logarithm or an exponential, and the float edge values
``math.inf`` and ``math.nan`` where the module docstring documents them.
Importing this module needs mpmath.
"""

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
    """An exact rational as an mpf at the working precision.

    ``x`` is anything ``fractions.Fraction`` takes exactly (an int, a
    float, a Fraction); its numerator is divided by its denominator in
    mpmath, so the one rounding is that of the working precision.
    """
    x = F(x)
    return mpmath.mpf(x.numerator) / x.denominator


def likelihoods(p, *, k):
    """The four likelihoods P(report | x) of randomized response, exactly.

    With probability ``p`` the reported bit is a coin that shows 1 with
    probability ``k``; otherwise it is the truth.  Returns
    {(report, x): Fraction} for report and x in {0, 1}.
    """
    p, k = F(p), F(k)
    return {(1, 1): 1 - p * k, (1, 0): p * (1 - k), (0, 1): p * k, (0, 0): 1 - p + p * k}


def epsilon(p, *, k):
    """The exact epsilon of randomized response, by enumeration.

    The maximum over reports r and ordered inputs (x, x') of
    ln P(r | x) / P(r | x') (a report that never happens constrains
    nothing).  Returns an mpf at ``DPS`` digits, or ``math.inf``.
    """
    t = likelihoods(p, k=k)
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


def epsilon_bound(p, *, k):
    """The simple bound on epsilon, ``-ln(p min(k, 1 - k))``.

    At ``DPS`` digits from the exact product; ``math.inf`` where p or
    min(k, 1 - k) is 0.  Returns an mpf or ``math.inf``.
    """
    p, k = F(p), F(k)
    m = min(k, 1 - k)
    if p == 0 or m == 0:
        return math.inf
    with mpmath.workdps(DPS):
        return -mpmath.log(to_mpf(p * m))


def _joint(p, k, prior, report):
    """{x: P(report | x) P(x)} exactly."""
    t = likelihoods(p, k=k)
    pr = F(prior)
    return {1: t[report, 1] * pr, 0: t[report, 0] * (1 - pr)}


def posterior(p, *, k, prior, report, value=1):
    """The posterior P(x = value | report) by Bayes' rule, exactly.

    ``prior`` is P(x = 1); ``report`` and ``value`` are bits.  Returns a
    Fraction, or ``math.nan`` where the report is impossible.
    """
    j = _joint(p, k, prior, report)
    tot = j[0] + j[1]
    return math.nan if tot == 0 else j[value] / tot


def risk(p, *, k, prior, value=1):
    """The identification risk of the bit ``value``, exactly.

    The maximum over the possible reports r of P(x = value | r) (see
    `posterior`).  Returns a Fraction.
    """
    post = [posterior(p, k=k, prior=prior, report=r, value=value) for r in (0, 1)]
    return max(v for v in post if not (isinstance(v, float) and math.isnan(v)))


def rho(p, *, k, prior):
    """The worst-case posterior rho of randomized response, exactly.

    The maximum over the true bits x of positive prior weight and the
    reports x can produce of P(x | r).  Returns a Fraction.
    """
    t = likelihoods(p, k=k)
    w = {1: F(prior), 0: 1 - F(prior)}
    cand = [posterior(p, k=k, prior=prior, report=r, value=x) for x in (0, 1) for r in (0, 1) if w[x] > 0 and t[r,
                                                                                                                x] > 0]
    return max(cand)


def estimate(q, *, p, k):
    """The unbiased estimate of the share of ones, exactly.

    ``(q - p (1 - k)) / (1 - p)`` for the observed share ``q`` of reported
    ones.  Returns a Fraction.
    """
    q, p, k = F(q), F(p), F(k)
    return (q - p * (1 - k)) / (1 - p)


def variance(q, *, p, k, n):
    """The variance of the estimate from ``n`` reports, exactly.

    ``q (1 - q) / ((1 - p)^2 n)``; ``math.inf`` (or ``math.nan`` for q in
    {0, 1}) where the denominator is 0.  Returns a Fraction or a float edge
    value.
    """
    q, p, n = F(q), F(p), F(n)
    num, den = q * (1 - q), (1 - p) ** 2 * n
    if den == 0:
        return math.inf if num > 0 else math.nan
    return num / den


def warner_p(epsilon):
    """Warner's truth probability for epsilon, ``e^eps / (e^eps + 1)``.

    At ``DPS`` digits; epsilon = inf gives ``Fraction(1)``.  Returns an mpf.
    """
    if epsilon == math.inf:
        return F(1)
    with mpmath.workdps(DPS):
        e = mpmath.exp(to_mpf(epsilon))
        return e / (e + 1)


def warner_epsilon(p):
    """The epsilon of Warner's coin with truth probability p, ``ln(p / (1 - p))``.

    At ``DPS`` digits from the exact quotient; p = 1 gives ``math.inf``.
    Returns an mpf.
    """
    p = F(p)
    if p == 1:
        return math.inf
    with mpmath.workdps(DPS):
        return mpmath.log(to_mpf(p / (1 - p)))


def warner_estimate(n_yes, *, n, p):
    """Warner's unbiased estimate of the number of ones, exactly.

    ``(n_yes - n (1 - p)) / (2 p - 1)`` for ``n_yes`` reported ones out of
    ``n``.  Returns a Fraction.
    """
    n_yes, n, p = F(n_yes), F(n), F(p)
    return (n_yes - n * (1 - p)) / (2 * p - 1)


def kary_p(epsilon, *, d):
    """The k-ary truth probability, ``e^eps / (e^eps + d - 1)``.

    At ``DPS`` digits for ``d`` categories; epsilon = inf gives
    ``Fraction(1)``.  Returns an mpf.
    """
    if epsilon == math.inf:
        return F(1)
    with mpmath.workdps(DPS):
        e = mpmath.exp(to_mpf(epsilon))
        return e / (e + to_mpf(d) - 1)


def kary_epsilon(p, *, d):
    """The epsilon of k-ary randomized response, ``max(0, ln(p (d - 1) / (1 - p)))``.

    At ``DPS`` digits from the exact quotient: 0 at (a float just below)
    p = 1/d, ``math.inf`` at p = 1.  Returns an mpf.
    """
    p, d = F(p), F(d)
    if p == 1:
        return math.inf
    ratio = p * (d - 1) / (1 - p)
    if ratio <= 1:
        return mpmath.mpf(0)
    with mpmath.workdps(DPS):
        return mpmath.log(to_mpf(ratio))


def kary_estimate(counts, *, epsilon):
    """The k-ary unbiased estimates of the category counts, with their scale.

    (c_j - n q) / (p - q) with p = `kary_p`, q = (1 - p) / (d - 1), at a
    precision that resolves e^epsilon - 1 (60 digits beyond 1/epsilon).  Returns a
    list of (estimate, scale) pairs of mpf, the scale being that of the two
    terms that may cancel, |c_j| + |(d c_j - n) / (e^epsilon - 1)|.
    """
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
