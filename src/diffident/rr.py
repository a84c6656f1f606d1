"""Randomized response in the local model (MATH.md section 7).

Three families of schemes, all vectorised and broadcasting NumPy-style:

*   The two-parameter scheme for one bit ``x``: keep the true bit with
    probability ``1 - p``; otherwise (probability ``p``) report 1 with
    probability ``1 - k`` and 0 with probability ``k``.  So:

        P(report 1 | x = 1) = 1 - p k        P(report 1 | x = 0) = p (1 - k)
        P(report 0 | x = 1) = p k            P(report 0 | x = 0) = 1 - p + p k

    Functions: `epsilon`, `epsilon_bound`, `posterior`, `estimate`,
    `variance`, `sample`.

*   Warner's coin (truthful with probability ``p``, else the opposite) and
    its ``d``-category generalisation (truthful with probability ``p``, else
    one of the other ``d - 1`` categories uniformly at random), calibrated
    to an epsilon: `warner_p`, `warner_epsilon`, `warner_estimate`,
    `kary_p`, `kary_epsilon`, `kary_estimate`, `kary_sample`.  Warner's
    coin with truth probability ``t`` is the two-parameter scheme with
    ``p = 2 (1 - t)``, ``k = 1/2``.

*   Differential identifiability for one respondent:
    `identification_risk` and `rho`.

Conventions.  Probabilities are float64 in [0, 1]; the edges are allowed and
give documented values (``inf`` for an epsilon when some report reveals the
bit, ``nan`` for the posterior after a report that cannot happen) rather than
errors, so that grid sweeps run through.  Functions of scalars return a
Python float.  Bad input (a probability outside [0, 1], NaN, a negative
epsilon, fewer than two or a non-integer number of categories, ``n <= 0``)
raises ``ValueError`` naming the argument and the value (``TypeError`` for
an argument that is not a number, a bool number of categories, or an rng
that is not a ``numpy.random.Generator``).

The exact epsilon of the two-parameter scheme in closed form.  Both
likelihood ratios that can exceed one are ``1 + (1 - p) / (p (1 - k))``
(report 1) and ``1 + (1 - p) / (p k)`` (report 0), so:

    epsilon = ln(1 + (1 - p) / (p min(k, 1 - k)))

which is MATH.md's ``max(ln((1 - p k)/(p (1 - k))), ln((1 - p + p k)/(p k)))``
written without cancellation.  Note (a correction to MATH.md section 7):
``-ln(p k)`` bounds only the report-0 ratio, and is *not* an upper bound on
epsilon when ``k > 1/2`` (``p = 0.1, k = 0.9``: epsilon 4.51 > -ln(p k) =
2.41).  The valid bound is ``-ln(p min(k, 1 - k))``, equal to ``-ln(p k)``
for ``k <= 1/2``; `epsilon_bound` returns that.

Accuracy.  Every function is accurate to a few units in the last place
(measured: relative error below 5e-16; tested at <= 1e-12 against a
60-digit reference) for all inputs in its domain, including probabilities down to
the subnormal 5e-324 and up to ``1 - 2**-53`` and epsilons up to ``inf``,
with these documented limits: a true result below float64's normal range
(``2**-1022``, about 2.2e-308) comes back rounded to the subnormal grid
(an absolute error of at most a few times ``2**-1074``, 5e-324) or as 0,
one beyond the largest float as ``inf``; and `kary_estimate` is accurate
relative to the two terms it adds (see there).  The means: a posterior is
computed from its own joint probabilities, never as one minus another
(``P(x = 0 | r)`` is not ``1 - P(x = 1 | r)``); products of probabilities
keep their binary exponents apart (``frexp``), so that a product that is
subnormal or 0 in float64 although its factors are not loses nothing, and
a log-ratio whose quotient would overflow is taken as a difference of
logarithms; a difference that cancels (``d p - 1``, ``q - p (1 - k)``,
``n_yes - n (1 - p)``) is formed from error-free products (Dekker's
two-product) and summed exactly (Priest's doubly compensated summation).
The inputs themselves are taken as exact: ``1/3`` is the float just below
one third, and `kary_epsilon` treats it so.
"""

import numpy as np

from . import _validate as V
from ._dd import two_prod

__all__ = [
    "epsilon",
    "epsilon_bound",
    "posterior",
    "estimate",
    "variance",
    "sample",
    "warner_p",
    "warner_epsilon",
    "warner_estimate",
    "kary_p",
    "kary_epsilon",
    "kary_estimate",
    "kary_sample",
    "identification_risk",
    "rho",
]


# ---------------------------------------------------------------- exact arithmetic
#
# Accuracy (see the module notes): products of probabilities are formed as
# mantissa products with the binary exponents carried apart (`_ratio`), so a
# product that is subnormal or 0 in float64 although its factors are not
# loses nothing; a difference that cancels is formed from error-free
# products (Dekker's two-product) and summed with Priest's doubly
# compensated summation (`_sum`), which is accurate to 2 ulps of the exact
# sum however much it cancels.

def _frexp_prod(factors):
    """``(m, e)`` with ``prod(factors) = m 2**e``: the factors' mantissas
    (in [1/2, 1)) multiplied, which neither overflows nor underflows, and
    their exponents added as integers.  ``m`` is 0 if a factor is 0."""
    m, e = np.frexp(factors[0])
    e = e.astype(np.int64)
    for f in factors[1:]:
        mf, ef = np.frexp(f)
        m = m * mf
        e = e + ef
    return m, e


def _ratio(num, den):
    """``prod(num) / prod(den)`` of non-negative finite factors, with one
    rounding per factor and a last one into float64's range only (a true
    value below 2**-1022 rounds to the subnormal grid, one above the largest
    float to inf); ``0/0 -> nan``, ``x/0 -> inf``."""
    mn, en = _frexp_prod(num)
    md, ed = _frexp_prod(den)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        return np.ldexp(mn / md, en - ed)


def _shares(a, b):
    """``(A / (A + B), B / (A + B))`` with ``A = prod(a)``, ``B = prod(b)``
    (non-negative factors), each to a few ulps from its own numerator (never
    as one minus the other) with no under- or overflow on the way; nan where
    ``A = B = 0``.  With the smaller over the larger of A, B as ``t <= 1``
    (mantissas and exponents apart): ``1 / (1 + t)`` and ``t / (1 + t)``."""
    ma, ea = _frexp_prod(a)
    mb, eb = _frexp_prod(b)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        r = np.ldexp(mb / ma, eb - ea)      # B / A
        s = np.ldexp(ma / mb, ea - eb)      # A / B
        small = r <= 1.0
        t = np.where(small, r, s)
        big, little = 1.0 / (1.0 + t), t / (1.0 + t)
    return np.where(small, big, little), np.where(small, little, big)


def _sum(*terms):
    """The sum of the (broadcast) terms, accurate to 2 ulps of the exact sum
    however much it cancels: Priest's doubly compensated summation over the
    terms sorted by decreasing magnitude (Higham, Accuracy and Stability of
    Numerical Algorithms, 2nd ed., section 4.3)."""
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


def _scaled_product(a, b, e):
    """``a b 2**-e`` as an unevaluated sum ``hi + lo``, exactly, for finite
    ``a, b >= 0`` (Dekker's two-product of the mantissas, so that neither its
    splitting overflows nor its error term underflows, then scaled; exact
    unless a part falls below 2**-1022 after the scaling)."""
    ma, ea = np.frexp(a)
    mb, eb = np.frexp(b)
    hi, lo = two_prod(ma, mb)
    sh = ea.astype(np.int64) + eb - e
    with np.errstate(under="ignore", over="ignore"):
        return np.ldexp(hi, sh), np.ldexp(lo, sh)


# ---------------------------------------------------------------- two-parameter scheme

def _likelihoods(p, k):
    """P(report 1 | x = 1), P(report 1 | x = 0) (report 0: one minus these),
    each a sum of non-negative terms: no cancellation."""
    return (1.0 - p) + p * (1.0 - k), p * (1.0 - k)


def _epsilon(p, k):
    """ln(1 + (1 - p)/(p m)), m = min(k, 1 - k), with the edge values."""
    m = np.minimum(k, 1.0 - k)
    den = p * m
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # p m normal: the quotient has 3 roundings, log1p adds none that matter
        direct = np.log1p((1.0 - p) / den)
        # p m below 2**-1000 (or 0 in float64 though p, m > 0): then
        # (1 - p)/(p m) > 1e285 (1 - p >= 2**-53) and ln(1 + x) = ln x to
        # 1e-285; in logs, whose magnitudes add up to < 2.4 times the result
        logs = np.log1p(-p) - np.log(p) - np.log(m)
    out = np.where(den >= 2.0 ** -1000, direct, logs)
    out = np.where((p == 0.0) | (m == 0.0), np.inf, out)
    # p = 1: the reports do not depend on x at all (whatever k)
    return np.where(p == 1.0, 0.0, out)


def epsilon(p, k):
    """The exact local-DP epsilon of the two-parameter scheme.

    ``max(ln((1 - p k)/(p (1 - k))), ln((1 - p + p k)/(p k)))``, the largest
    log-ratio ``ln(P(r | x) / P(r | x'))`` over both reports r and both
    orders of the inputs, computed as
    ``ln(1 + (1 - p) / (p min(k, 1 - k)))`` (see the module notes).

    Parameters
    ----------
    p : array_like
        Probability of *not* keeping the true bit, in [0, 1].
    k : array_like
        Probability of reporting 0 when the bit is not kept, in [0, 1].

    Returns
    -------
    float or ndarray
        The epsilon, in [0, inf], broadcast over the inputs.  Edges:
        ``p = 0`` (the bit is always reported as it is): ``inf``;
        ``p = 1`` (the report does not depend on x, for every k): ``0``;
        ``0 < p < 1`` with ``k = 0`` (a report of 0 can come only from
        ``x = 0``) or ``k = 1`` (a report of 1 only from ``x = 1``):
        ``inf``.  A report that has probability zero under both inputs
        (``p = 1``, ``k`` in {0, 1}) constrains nothing.

    Raises
    ------
    ValueError
        If p or k is outside [0, 1] or NaN.
    TypeError
        If an argument is not real numbers (a string, a bool, complex values).

    Notes
    -----
    Accurate to a few ulps for all p, k in [0, 1], subnormal ones included.
    Where ``p min(k, 1 - k)`` is below ``2**-1000`` (it is 0 in float64 for
    ``p = k = 1e-300``, whose epsilon is 1381.55...), the quotient exceeds
    1e285 and the epsilon is taken as
    ``ln(1 - p) - ln p - ln min(k, 1 - k)``, equal to it within 1e-285.

    Examples
    --------
    >>> from diffident import rr
    >>> round(rr.epsilon(0.5, 0.5), 12)          # = ln 3, Warner's coin at 3/4
    1.098612288668
    >>> rr.epsilon(0.0, 0.5), rr.epsilon(1.0, 0.3), rr.epsilon(0.5, 0.0)
    (inf, 0.0, inf)
    >>> round(rr.epsilon(1e-300, 1e-300), 6)     # p k underflows; epsilon does not
    1381.551056
    """
    scalar = V.is_scalar(p, k)
    pp, kk = np.broadcast_arrays(V.probability("p", p), V.probability("k", k))
    return V.ret(_epsilon(pp, kk), scalar)


def epsilon_bound(p, k):
    """A simple upper bound on `epsilon`: ``-ln(p min(k, 1 - k))``.

    For ``k <= 1/2`` this is MATH.md's ``-ln(p k)``.  For ``k > 1/2``,
    ``-ln(p k)`` is *not* a bound (it bounds only the report-0 ratio; e.g.
    ``p = 0.1, k = 0.9`` has epsilon 4.51 but ``-ln(p k) = 2.41``), so
    the smaller of k and 1 - k is used.  The bound exceeds the exact
    epsilon by ``ln(1 + (1 - m)/(1 - p + p m)) >= 0`` with
    ``m = min(k, 1 - k)``: it is loose even at ``p = 1`` (``-ln m >= ln 2``
    where the exact epsilon is 0).

    Parameters
    ----------
    p : array_like
        Probability of not keeping the true bit, in [0, 1].
    k : array_like
        Probability of reporting 0 when the bit is not kept, in [0, 1].

    Returns
    -------
    float or ndarray
        The bound in [ln 2, inf]; ``inf`` where ``p = 0`` or ``k`` is 0 or 1.

    Raises
    ------
    ValueError
        If p or k is outside [0, 1] or NaN.
    TypeError
        If an argument is not real numbers (a string, a bool, complex values).

    Examples
    --------
    >>> from diffident import rr
    >>> round(rr.epsilon_bound(0.5, 0.5), 12)    # ln 4 >= epsilon = ln 3
    1.38629436112
    >>> round(rr.epsilon_bound(0.1, 0.9), 4), round(rr.epsilon(0.1, 0.9), 4)
    (4.6052, 4.5109)
    """
    scalar = V.is_scalar(p, k)
    pp, kk = np.broadcast_arrays(V.probability("p", p), V.probability("k", k))
    with np.errstate(divide="ignore"):
        out = -(np.log(pp) + np.log(np.minimum(kk, 1.0 - kk)))
    return V.ret(out, scalar)


def _posteriors(p, k, prior):
    """``{(r, x): P(x | report r)}`` by Bayes for both reports and both
    bits, each from its own joint probabilities ``P(r, x)`` (never as one
    minus another), to a few ulps with no under- or overflow on the way; nan
    where the report has probability 0.  The joint probabilities are
    products of non-negative float64 factors formed without cancellation:
    the likelihoods ``1 - p k = (1 - p) + p (1 - k)`` and ``1 - p + p k``
    are sums of non-negative terms, ``1 - prior`` is the prior of x = 0."""
    q0 = 1.0 - prior
    x1, x0 = _shares(((1.0 - p) + p * (1.0 - k), prior), (p, 1.0 - k, q0))   # report 1
    y1, y0 = _shares((p, k, prior), ((1.0 - p) + p * k, q0))                 # report 0
    return {(1, 1): x1, (1, 0): x0, (0, 1): y1, (0, 0): y0}


def posterior(p, k, prior, report=1):
    """The adversary's posterior that ``x = 1`` after a report (Bayes' rule).

    Report 1: ``(1 - p k) P1 / ((1 - p) P1 + p (1 - k))`` (MATH.md; this is
    Bayes' ``(1 - p k) P1 / ((1 - p k) P1 + p (1 - k) (1 - P1))`` with the
    denominator simplified).  Report 0:
    ``p k P1 / (p k P1 + (1 - p + p k)(1 - P1))
    = p k P1 / ((1 - p)(1 - P1) + p k)``.

    Parameters
    ----------
    p : array_like
        Probability of not keeping the true bit, in [0, 1].
    k : array_like
        Probability of reporting 0 when the bit is not kept, in [0, 1].
    prior : array_like
        The adversary's prior ``P1 = P(x = 1)``, in [0, 1].
    report : array_like of {0, 1}, optional
        The observed report(s) (default 1).

    Returns
    -------
    float or ndarray
        ``P(x = 1 | report)`` in [0, 1]; ``nan`` where the report has
        probability zero under the prior (e.g. report 1 with ``p = k = 1``,
        or with ``prior = 0`` and ``p (1 - k) = 0``).

    Raises
    ------
    ValueError
        If p, k or prior is outside [0, 1] or NaN, or report is not 0 or 1.
    TypeError
        If an argument is not real numbers (a string, a bool, complex values).

    Notes
    -----
    Both joint probabilities ``P(report, x)`` are products of factors formed
    without cancellation (``1 - p k`` as ``(1 - p) + p (1 - k)``), kept as
    mantissas and binary exponents apart, so that the posterior is accurate
    to a few ulps even where a joint probability is subnormal or 0 in
    float64 (p, k or prior down to 5e-324).  A posterior below ``2**-1022``
    comes back rounded to the subnormal grid (or 0).

    Examples
    --------
    >>> from diffident import rr
    >>> rr.posterior(0.5, 0.5, 0.5, report=1)    # Warner's coin at 3/4
    0.75
    >>> rr.posterior(0.5, 0.5, 0.5, report=[1, 0])
    array([0.75, 0.25])
    """
    scalar = V.is_scalar(p, k, prior, report)
    pp, kk, pr, r = np.broadcast_arrays(
        V.probability("p", p), V.probability("k", k), V.probability("prior", prior), V.bits("report", report)
    )
    post = _posteriors(pp, kk, pr)
    return V.ret(np.where(r == 1, post[1, 1], post[0, 1]), scalar)


def _estimate(q, p, k):
    """(q - p + p k) / (1 - p) with the numerator summed exactly (rounded
    once): scaled by a power of two so that the larger of q and p lies in
    [1/2, 1] (no error term of p k underflows where it matters), summed from
    q, -p and the two-product of p k by Priest's method."""
    _, e = np.frexp(np.maximum(q, p))
    e = np.minimum(e, 0).astype(np.int64)          # scale up only: exact
    hi, lo = _scaled_product(p, k, e)
    num = _sum(np.ldexp(q, -e), -np.ldexp(p, -e), hi, lo)
    with np.errstate(under="ignore", over="ignore"):
        out = np.ldexp(num / (1.0 - p), e)
    # q = p: the numerator is p k exactly, whatever its size
    return np.where(q == p, _ratio((p, k), (1.0 - p,)), out)


def estimate(q, p, k):
    """Unbiased estimate of the share of ones from the reported share q.

    ``(q - p (1 - k)) / (1 - p)``: the reported share has expectation
    ``pi (1 - p) + p (1 - k)`` when the true share is pi.  Not clipped: it
    may fall outside [0, 1] (clip it yourself if you want a biased but
    feasible estimate).

    Parameters
    ----------
    q : array_like
        Share of reports that are 1, in [0, 1].
    p : array_like
        Probability of not keeping the true bit, in [0, 1).
    k : array_like
        Probability of reporting 0 when the bit is not kept, in [0, 1].

    Returns
    -------
    float or ndarray
        The estimate, broadcast over the inputs.

    Raises
    ------
    ValueError
        If q or k is outside [0, 1], p outside [0, 1) (at ``p = 1`` the
        reports carry no information and there is no unbiased estimate),
        or any is NaN.
    TypeError
        If an argument is not real numbers (a string, a bool, complex values).

    Notes
    -----
    The numerator ``q - p + p k`` is formed exactly (Dekker's two-product
    of ``p k``, Priest's summation) and rounded once, so the estimate is
    accurate to a few ulps of its exact value for the float inputs even
    where q is within an ulp of ``p (1 - k)`` (an estimate near 0).  An
    estimate below ``2**-1022`` in magnitude comes back rounded to the
    subnormal grid (or 0).

    Examples
    --------
    >>> from diffident import rr
    >>> round(rr.estimate(0.4, 0.5, 0.5), 12)    # (0.4 - 0.25) / 0.5
    0.3
    >>> rr.estimate(0.35, 0.5, 0.3)   # the floats 0.35 and 0.5 * 0.7 differ
    -5.551115123125783e-17
    """
    scalar = V.is_scalar(q, p, k)
    qq, pp, kk = np.broadcast_arrays(
        V.probability("q", q), V.in_range("p", p, 0.0, 1.0, hi_open=True), V.probability("k", k)
    )
    return V.ret(_estimate(qq, pp, kk), scalar)


def variance(q, p, k, n):
    """Variance of `estimate` from n reports: ``q (1 - q) / ((1 - p)^2 n)``.

    With q the report probability ``P(report 1)`` this is the exact
    variance when the n respondents are an independent sample from a
    population (each ``x`` a Bernoulli draw); with q the observed share it
    is the usual plug-in estimate of it.  For a *fixed* set of respondents
    the variance is smaller, by ``pi (1 - pi) / n`` (pi the true share).
    k does not enter (q already accounts for it); it is checked and
    broadcast so that the signature matches `estimate`.

    Parameters
    ----------
    q : array_like
        Report probability or observed share of reports that are 1, [0, 1].
    p : array_like
        Probability of not keeping the true bit, in [0, 1].
    k : array_like
        Probability of reporting 0 when the bit is not kept, in [0, 1].
    n : array_like
        Number of reports, > 0.

    Returns
    -------
    float or ndarray
        The variance; ``inf`` at ``p = 1`` with ``0 < q < 1`` (no
        information), ``nan`` at ``p = 1`` with q in {0, 1}.

    Raises
    ------
    ValueError
        If q, p or k is outside [0, 1] or NaN, or n is not positive and
        finite.
    TypeError
        If an argument is not real numbers (a string, a bool, complex values).

    Notes
    -----
    The products are kept as mantissas and binary exponents apart, so that
    no intermediate under- or overflows (``(1 - p)^2 n`` is 0 in float64
    for n = 5e-324): the variance is accurate to a few ulps wherever it is
    in float64's normal range, ``inf`` above it, rounded to the subnormal
    grid (or 0) below it.

    Examples
    --------
    >>> from diffident import rr
    >>> round(rr.variance(0.4, 0.5, 0.5, 100), 12)   # 0.24 / (0.25 * 100)
    0.0096
    """
    scalar = V.is_scalar(q, p, k, n)
    qq, pp, kk, nn = np.broadcast_arrays(
        V.probability("q", q), V.probability("p", p), V.probability("k", k), V.positive_scale("n", n)
    )
    # mantissas and exponents apart: no product under- or overflows unless the
    # variance itself is beyond float64's range
    out = _ratio((qq, 1.0 - qq), (1.0 - pp, 1.0 - pp, nn))
    return V.ret(out, scalar)


def sample(x, p, k, rng):
    """Draw the reports of the two-parameter scheme for the bits x.

    Each report is 1 with probability ``1 - p k`` if its bit is 1 and
    ``p (1 - k)`` if it is 0, independently (one uniform draw per report).

    Parameters
    ----------
    x : array_like of {0, 1}
        The true bits (bools, integers or integral floats).
    p : array_like
        Probability of not keeping the true bit, in [0, 1]; broadcast
        against x.
    k : array_like
        Probability of reporting 0 when the bit is not kept, in [0, 1].
    rng : numpy.random.Generator
        The source of randomness (seed it for reproducible draws).

    Returns
    -------
    int or ndarray of int64
        The 0/1 reports, with the broadcast shape of x, p and k (an int for
        all-scalar input).

    Raises
    ------
    ValueError
        If x holds values other than 0 and 1, or p or k is outside [0, 1]
        or NaN.
    TypeError
        If rng is not a ``numpy.random.Generator``, or an argument is not
        real numbers (a string, complex values).

    Examples
    --------
    >>> import numpy as np
    >>> from diffident import rr
    >>> rng = np.random.default_rng(0)
    >>> reports = rr.sample(np.ones(100_000, dtype=int), 0.5, 0.5, rng)
    >>> round(float(reports.mean()), 2)          # 1 - p k = 0.75
    0.75
    >>> rr.sample([0, 1], 0.0, 0.5, rng)         # p = 0: the truth
    array([0, 1])
    """
    scalar = V.is_scalar(x, p, k)
    xx, pp, kk = np.broadcast_arrays(V.bits("x", x), V.probability("p", p), V.probability("k", k))
    g = V.generator(rng)
    l1, l0 = _likelihoods(pp, kk)
    prob1 = np.where(xx == 1, l1, l0)
    out = (g.random(prob1.shape) < prob1).astype(np.int64)
    return V.ret_int(out, scalar)


# ---------------------------------------------------------------- Warner and k-ary

def warner_p(epsilon):
    """Truth probability of Warner's coin for epsilon-LDP: ``e^eps / (e^eps + 1)``.

    Parameters
    ----------
    epsilon : array_like
        Privacy parameter(s), >= 0 (``inf``: always truthful).

    Returns
    -------
    float or ndarray
        The truth probability p, in [1/2, 1]: rounded toward 1/2, so that
        its exact epsilon ``ln(p / (1 - p))`` is at most the one asked for
        (1 only at epsilon inf; `kary_p` with d = 2, which says more).

    Raises
    ------
    ValueError
        If epsilon is negative or NaN.
    TypeError
        If an argument is not real numbers (a string, a bool, complex values).

    Examples
    --------
    >>> from diffident import rr
    >>> round(rr.warner_p(1.0986122886681098), 12)   # ln 3
    0.75
    """
    scalar = V.is_scalar(epsilon)
    e = V.privacy_epsilon("epsilon", epsilon)
    return V.ret(_private_p(e, np.full(e.shape, 2.0)), scalar)


def warner_epsilon(p):
    """The epsilon of Warner's coin with truth probability p: ``ln(p/(1-p))``.

    Parameters
    ----------
    p : array_like
        Probability of answering truthfully, in [1/2, 1].  A coin with
        ``p < 1/2`` is the mirrored design: use ``1 - p``.

    Returns
    -------
    float or ndarray
        The epsilon, in [0, inf]: 0 at ``p = 1/2``, ``inf`` at ``p = 1``.

    Raises
    ------
    ValueError
        If p is outside [1/2, 1] or NaN.
    TypeError
        If an argument is not real numbers (a string, a bool, complex values).

    Examples
    --------
    >>> from diffident import rr
    >>> round(rr.warner_epsilon(0.75), 12)
    1.098612288668
    """
    scalar = V.is_scalar(p)
    pp = V.in_range("p", p, 0.5, 1.0)
    with np.errstate(divide="ignore"):
        out = np.log1p((2.0 * pp - 1.0) / (1.0 - pp))
    return V.ret(out, scalar)


def warner_estimate(n_yes, n, p):
    """Unbiased estimate of the number of ones under Warner's coin.

    ``(n_yes - n (1 - p)) / (2 p - 1)``: the expected number of "yes"
    reports is ``(2 p - 1) n1 + n (1 - p)`` when n1 of the n respondents
    have x = 1.  Not clipped to [0, n].

    Parameters
    ----------
    n_yes : array_like
        Number of reports that are 1, in [0, n].
    n : array_like
        Number of reports, > 0.
    p : array_like
        Truth probability, in (1/2, 1] (at 1/2 the reports carry no
        information).

    Returns
    -------
    float or ndarray
        The estimated count of ones.

    Raises
    ------
    ValueError
        If n is not positive, n_yes is negative or exceeds n, p is outside
        (1/2, 1], or any is NaN.
    TypeError
        If an argument is not real numbers (a string, a bool, complex values).

    Notes
    -----
    The numerator ``n_yes - n (1 - p)`` is formed exactly (n scaled by a
    power of two, Dekker's two-product, Priest's summation; ``1 - p`` and
    ``2 p - 1`` are exact for p in [1/2, 1]) and rounded once: the estimate
    is accurate to a few ulps even where it cancels to near 0, for any
    positive n.

    Examples
    --------
    >>> from diffident import rr
    >>> round(rr.warner_estimate(400, 1000, 0.75), 12)   # (400 - 250) / 0.5
    300.0
    """
    scalar = V.is_scalar(n_yes, n, p)
    ny, nn, pp = np.broadcast_arrays(
        V.finite("n_yes", n_yes), V.positive_scale("n", n), V.in_range("p", p, 0.5, 1.0, lo_open=True)
    )
    bad = (ny < 0) | (ny > nn)
    if bad.any():
        raise ValueError(f"n_yes must lie in [0, n]; {V._where(ny, bad)}")
    # n_yes - n (1 - p) summed exactly after scaling n to [1/2, 1); 1 - p and
    # 2 p - 1 are exact for p in [1/2, 1]
    _, e = np.frexp(nn)
    e = e.astype(np.int64)
    hi, lo = _scaled_product(nn, 1.0 - pp, e)
    with np.errstate(under="ignore", over="ignore"):
        num = _sum(np.ldexp(ny, -e), -hi, -lo)
        out = np.ldexp(num / (2.0 * pp - 1.0), e)
    return V.ret(np.where(pp == 1.0, ny, out), scalar)


def kary_p(epsilon, d):
    """The truth probability of k-ary randomized response for epsilon-LDP.

    ``e^eps / (e^eps + d - 1)``: report the true category with this
    probability, else each of the other ``d - 1`` with probability
    ``1 / (e^eps + d - 1)``.  This is OpenDP's ``prob`` in
    ``make_randomized_response`` (``d = 2``: Warner's coin).

    Parameters
    ----------
    epsilon : array_like
        Privacy parameter(s), >= 0 (``inf``: always truthful).
    d : array_like
        Number of categories, a whole number >= 2.

    Returns
    -------
    float or ndarray
        The truth probability p, in [1/d, 1], rounded toward 1/d: its exact
        epsilon ``ln(p (d - 1) / (1 - p))`` is at most the one asked for
        (decided in double-double; the nearest float can exceed it, and
        p = 1, always truthful, is returned only at epsilon inf).  One
        limit of float64: where epsilon is below the epsilon of the
        smallest float at or above 1/d (about 1e-16 d; 0 where 1/d is a
        float, d a power of two), no float p meets it, and that float is
        returned (``kary_p(1e-20, 10)`` is 0.1, whose epsilon is 6e-17).

    Raises
    ------
    ValueError
        If epsilon is negative or NaN, or d is not a whole number >= 2.
    TypeError
        If d is a bool, or an argument is not real numbers (a string,
        complex values).

    Examples
    --------
    >>> from diffident import rr
    >>> round(rr.kary_p(1.0986122886681098, 4), 12)  # 3 / (3 + 3)
    0.5
    """
    scalar = V.is_scalar(epsilon, d)
    e, dd = np.broadcast_arrays(V.privacy_epsilon("epsilon", epsilon), V.categories(d))
    return V.ret(_private_p(e, dd), scalar)


def _exact_epsilon_above(p, d, e):
    """Whether ``ln(p (d - 1) / (1 - p))`` may exceed e (1-d arrays, p in
    [1/d, 1]): ``log1p(x)``, ``x = (d p - 1) / (1 - p)`` with ``d p - 1``
    and ``1 - p`` exact, in double-double (about 2^-100 relative), with a
    margin of 2^-90 of the logarithm; for x beyond 2**60, ``ln(d p - 1) -
    ln(1 - p) + 2 / x`` (an upper bound).  p = 1 (epsilon inf) is above."""
    from . import _dd as DD

    hi, lo = _scaled_product(d, p, 0)
    nh, nl = DD.add_d(*DD.two_sum(hi, -1.0), lo)
    dh, dl = DD.two_sum(np.ones_like(p), -p)
    out = np.ones(p.size, dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        x = nh / dh
    near = np.flatnonzero(x <= 2.0 ** 60)
    if near.size:
        xh, xl = DD.div(nh[near], nl[near], dh[near], dl[near])
        lh, ll = DD.log1p(xh, xl)
        out[near] = ~((lh - e[near]) + ll <= -(2.0 ** -90) * np.abs(lh))
    far = np.flatnonzero((x > 2.0 ** 60) & (p < 1.0))
    if far.size:
        ah, al = DD.log(nh[far], nl[far])
        bh, bl = DD.log(dh[far], dl[far])
        lh, ll = DD.add(ah, al, -bh, -bl)
        ll = ll + 2.0 / x[far]
        out[far] = ~((lh - e[far]) + ll <= -(2.0 ** -90) * np.abs(lh))
    return out


def _private_p(e, d):
    """``e^eps / (e^eps + d - 1)`` rounded toward 1/d: the largest float p
    whose exact epsilon is at most eps (a few ulps below the nearest), or,
    where even the smallest float at or above 1/d exceeds eps (eps below
    about 1e-16 d, unless 1/d is a float), that float."""
    shape = e.shape
    e, d = e.ravel(), d.ravel()
    with np.errstate(over="ignore"):
        p = 1.0 / (1.0 + (d - 1.0) * np.exp(-e))
    todo = np.flatnonzero(np.isfinite(e))  # (p = 1, always truthful, has epsilon inf)
    for _ in range(8):  # rounding to nearest, then a few ulps at most
        if todo.size == 0:
            break
        bad = _exact_epsilon_above(p[todo], d[todo], e[todo])
        todo = todo[bad]
        down = np.nextafter(p[todo], 0.0)
        hi, lo = _scaled_product(d[todo], down, 0)
        ok = (hi - 1.0) + lo >= 0.0  # still at or above 1/d
        p[todo[ok]] = down[ok]
        todo = todo[ok]
    return p.reshape(shape)


def _kary_epsilon(p, d):
    """log1p((d p - 1)/(1 - p)) with d p - 1 from the exact two-product of
    d p (so nothing cancels near p = 1/d); in logs where the quotient is
    beyond 2**1000; 0 where d p <= 1, inf at p = 1."""
    hi, lo = _scaled_product(d, p, 0)
    num = (hi - 1.0) + lo        # hi - 1 exact for hi in [1/2, 2]; >= 1 beyond
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        x = num / (1.0 - p)
        direct = np.log1p(x)
        # ln(p (d - 1)/(1 - p)) > 693: magnitudes add up to < 2.2 times it
        logs = np.log(p) + np.log(d - 1.0) - np.log1p(-p)
    out = np.where(x <= 2.0 ** 1000, direct, logs)
    out = np.where(num <= 0.0, 0.0, out)
    return np.where(p == 1.0, np.inf, out)


def kary_epsilon(p, d):
    """The epsilon of k-ary randomized response: ``ln(p (d - 1) / (1 - p))``.

    Parameters
    ----------
    p : array_like
        Probability of reporting the true category, in [1/d, 1].
    d : array_like
        Number of categories, a whole number >= 2.

    Returns
    -------
    float or ndarray
        The epsilon, in [0, inf]: 0 at ``p = 1/d``, ``inf`` at ``p = 1``.

    Raises
    ------
    ValueError
        If p is outside [1/d, 1] or NaN, or d is not a whole number >= 2.
    TypeError
        If d is a bool, or an argument is not real numbers (a string,
        complex values).

    Notes
    -----
    Computed as ``ln(1 + (d p - 1)/(1 - p))`` with ``d p - 1`` formed
    exactly from Dekker's two-product of ``d p``, so that nothing cancels
    near ``p = 1/d`` where the epsilon is tiny: accurate to a few ulps for
    every p and d (in logarithms where the quotient exceeds ``2**1000``,
    which needs d above about 1e292).  The input p is taken as exact: a p
    that passes the check ``p >= 1/d`` (against the float ``1/d``) but is
    at or below the true ``1/d``, such as the float ``1/3`` for ``d = 3``,
    gives 0.

    Examples
    --------
    >>> from diffident import rr
    >>> round(rr.kary_epsilon(0.5, 4), 12)           # ln 3
    1.098612288668
    >>> rr.kary_epsilon(1 / 3, 3)     # the float 1/3 is below one third
    0.0
    """
    scalar = V.is_scalar(p, d)
    pp, dd = np.broadcast_arrays(V.probability("p", p), V.categories(d))
    bad = pp < 1.0 / dd
    if bad.any():
        i = np.argwhere(bad)[0] if pp.ndim else ()
        raise ValueError(
            f"p must lie in [1/d, 1] (below 1/d the true category is the least likely report); "
            f"{V._where(pp, bad)} with d = {dd[tuple(i)].item():g}"
        )
    return V.ret(_kary_epsilon(pp, dd), scalar)


def _sum_last_axis(c):
    """The sum over the last axis as ``hi + lo`` (pairwise two-sums, the
    rounding errors kept in lo): exact for integer counts below 2**53, else
    to about log2(d) u**2 of the sum of the values."""
    hi = c
    lo = np.zeros(c.shape[:-1])
    while hi.shape[-1] > 1:
        if hi.shape[-1] % 2:
            hi = np.concatenate([hi, np.zeros(hi.shape[:-1] + (1,))], axis=-1)
        a, b = hi[..., 0::2], hi[..., 1::2]
        s = a + b
        bb = s - a
        lo = lo + ((a - (s - bb)) + (b - bb)).sum(axis=-1)
        hi = s
    return hi[..., 0], lo


def kary_estimate(counts, epsilon):
    """Unbiased estimates of the number of respondents in each category.

    With ``n = sum(counts)``, truth probability p and ``q = (1 - p)/(d - 1)``
    (`kary_p`), the expected count of category j is
    ``n_j p + (n - n_j) q``, so ``n_j = (c_j - n q) / (p - q)``, computed
    as ``c_j + (d c_j - n) / (e^eps - 1)`` (the same, without the
    cancellation of ``1 - e^-eps`` at a small epsilon).  The estimates sum
    to n; they are not clipped to [0, n].

    Parameters
    ----------
    counts : array_like
        Reported counts, the d categories along the last axis (d >= 2),
        non-negative.
    epsilon : array_like
        Privacy parameter(s) > 0 (``inf`` allowed: the counts are the
        truth), broadcast against ``counts[..., 0]``.

    Returns
    -------
    ndarray
        The estimates, shaped like counts (broadcast with epsilon).

    Raises
    ------
    ValueError
        If counts is 0-d, has fewer than 2 categories, or holds negative,
        NaN or infinite values; if epsilon is not > 0 (at 0 the reports
        carry no information) or is NaN.
    TypeError
        If an argument is not real numbers (a string, a bool, complex values).

    Notes
    -----
    ``d c_j - n`` is formed exactly for integer counts whose sum is below
    ``2**53`` (else to about ``log2(d) 2**-106`` of n: double-double sums)
    and ``e^eps - 1`` by ``expm1``, so the error is a few ulps of
    ``|c_j| + |d c_j - n| / (e^eps - 1)``.  That is a few ulps of the
    estimate itself unless the two terms cancel, i.e. for an estimate near
    0 compared with them: there the estimate is as sensitive to the
    rounding of ``e^eps`` as that bound says, a limit of float64 (the tests
    allow ``1e-12 |n_j| + 1e-14 (|c_j| + |d c_j - n| / (e^eps - 1))``).
    An estimate beyond the float range (``n / epsilon`` for a tiny epsilon)
    overflows to ``inf``.

    Examples
    --------
    >>> from diffident import rr
    >>> rr.kary_estimate([500, 250, 250], 1.0986122886681098).round(9)  # p = 3/5
    array([750., 125., 125.])
    """
    c = V.finite("counts", counts)
    if c.ndim == 0 or c.shape[-1] < 2:
        raise ValueError(
            f"counts must hold the d >= 2 categories along its last axis, got shape {c.shape}"
        )
    c = V.non_negative("counts", c)
    e = V.privacy_epsilon("epsilon", epsilon)
    bad = e == 0
    if bad.any():
        raise ValueError(f"epsilon must be > 0 for an estimate (at 0 the reports carry no information); "
                         f"{V._where(e, bad)}")
    d = c.shape[-1]
    # the estimate is homogeneous in the counts: counts whose d-fold sum
    # may overflow are scaled by a power of two (exact) and scaled back
    top = float(c.max()) if c.size else 0.0
    shift = max(0, int(np.frexp(top)[1]) + int(d).bit_length() + 1 - 1020) if top > 0 else 0
    if shift:
        with np.errstate(under="ignore"):
            c = np.ldexp(c, -shift)
    n_hi, n_lo = _sum_last_axis(c)
    hi, lo = _scaled_product(np.float64(d), c, 0)
    a = _sum(hi, lo, -n_hi[..., None], -n_lo[..., None])    # d c_j - n, rounded once
    # n_j = c_j + (d c_j - n) / (e^eps - 1); for eps > 700, e^eps - 1 = e^eps
    # to 1e-304, and (a e^(-eps/2)) e^(-eps/2) keeps a term near the bottom
    # of the normal range that e^-eps, subnormal, would round
    e = e[..., None]
    with np.errstate(over="ignore", under="ignore"):
        half = np.exp(-0.5 * e)
        term = np.where(e > 700.0, (a * half) * half, a / np.expm1(e))
        return np.ldexp(c + term, shift) if shift else c + term


def kary_sample(x, epsilon, d, rng):
    """Draw the reports of k-ary randomized response for categories x.

    Each report is the true category with probability `kary_p`
    ``(epsilon, d)``, else one of the other ``d - 1`` categories uniformly
    at random.  Categories are labelled ``0, ..., d - 1``.

    Parameters
    ----------
    x : array_like of int
        True categories in ``0, ..., d - 1``.
    epsilon : array_like
        Privacy parameter(s), >= 0, broadcast against x.
    d : array_like
        Number of categories, a whole number >= 2, broadcast against x.
    rng : numpy.random.Generator
        The source of randomness.

    Returns
    -------
    int or ndarray of int64
        The reported categories (an int for all-scalar input).

    Raises
    ------
    ValueError
        If x holds values outside ``0, ..., d - 1`` or non-integers,
        epsilon is negative or NaN, or d is not a whole number >= 2.
    TypeError
        If rng is not a ``numpy.random.Generator``, d is a bool, or an
        argument is not real numbers (a string, a bool, complex values).

    Examples
    --------
    >>> import numpy as np
    >>> from diffident import rr
    >>> rng = np.random.default_rng(0)
    >>> reports = rr.kary_sample(np.zeros(100_000, dtype=int), np.log(3), 4, rng)
    >>> np.bincount(reports, minlength=4).round(-3)   # p = 1/2, others 1/6
    array([50000, 17000, 17000, 17000])
    """
    scalar = V.is_scalar(x, epsilon, d)
    xx, e, dd = np.broadcast_arrays(V.whole_numbers("x", x), V.privacy_epsilon("epsilon", epsilon), V.categories(d))
    bad = dd > 2.0**53
    if bad.any():  # the categories are drawn as integers: each must be exact
        raise ValueError(f"d (the number of categories) must be at most 2**53 to sample; {V._where(dd, bad)}")
    bad = (xx < 0) | (xx >= dd)
    if bad.any():
        raise ValueError(f"x must hold categories 0, ..., d - 1; {V._where(xx, bad)}")
    g = V.generator(rng)
    di = dd.astype(np.int64)
    p = 1.0 / (1.0 + (dd - 1.0) * np.exp(-e))
    truthful = g.random(xx.shape) < p
    other = (xx + 1 + g.integers(0, di - 1, size=xx.shape)) % di  # never x itself
    out = np.where(truthful, xx, other).astype(np.int64)
    return V.ret_int(out, scalar)


# ---------------------------------------------------------------- identifiability

def identification_risk(p, k, prior, value=1):
    """The adversary's largest posterior that the respondent's bit equals ``value``.

    The largest is taken over the reports the scheme can produce.  The
    adversary knows the scheme (p, k), has the prior
    ``P(x = 1) = prior`` and sees the respondent's one report r; the risk is
    ``max_r P(x = value | r)`` over the reports r of positive probability.
    It is the worst case over reports (not an average): the confidence the
    adversary can reach about the sensitive value when the report is the
    most revealing one.  With ``value = 1`` it is attained at report 1 (the
    report-1 likelihood ratio is >= 1), so it equals
    ``posterior(p, k, prior, 1)`` unless report 1 is impossible.

    Membership reading: let ``x = 1`` mean "the person is in the data" and
    the report be whatever the mechanism publishes about it; then this is
    the adversary's largest posterior belief that the person is in the data
    (differential identifiability's disclosure event), with ``prior`` the
    prior probability of membership.

    Parameters
    ----------
    p : array_like
        Probability of not keeping the true bit, in [0, 1].
    k : array_like
        Probability of reporting 0 when the bit is not kept, in [0, 1].
    prior : array_like
        The adversary's prior ``P(x = 1)``, in [0, 1].
    value : array_like of {0, 1}, optional
        The sensitive value (default 1).

    Returns
    -------
    float or ndarray
        The risk in ``[P(x = value), 1]``; 1 where some report reveals that
        ``x = value`` (e.g. ``p = 0``, or ``k = 1`` for value 1, unless the
        prior rules the value out, which gives 0).

    Raises
    ------
    ValueError
        If p, k or prior is outside [0, 1] or NaN, or value is not 0 or 1.
    TypeError
        If an argument is not real numbers (a string, a bool, complex values).

    Notes
    -----
    ``P(x = 0 | r)`` is computed from the joint probability of ``x = 0``
    and r, never as ``1 - P(x = 1 | r)``, which loses the digits of a small
    value (about 7 at ``prior = 1 - 1e-10``); as for `posterior`, the result
    is accurate to a few ulps for probabilities down to 5e-324, and a risk
    below ``2**-1022`` comes back rounded to the subnormal grid (or 0).

    Examples
    --------
    >>> from diffident import rr
    >>> rr.identification_risk(0.5, 0.5, 0.5)    # Warner's coin at 3/4
    0.75
    >>> round(rr.identification_risk(0.5, 0.5, 0.1), 12)   # 0.3 / (0.3 + 0.9)
    0.25
    """
    scalar = V.is_scalar(p, k, prior, value)
    pp, kk, pr, v = np.broadcast_arrays(
        V.probability("p", p), V.probability("k", k), V.probability("prior", prior), V.bits("value", value)
    )
    # max_r P(x = value | r) over the possible reports r (fmax skips the
    # nan of an impossible one; at least one report is possible)
    post = _posteriors(pp, kk, pr)
    out = np.where(v == 1, np.fmax(post[1, 1], post[0, 1]), np.fmax(post[1, 0], post[0, 0]))
    return V.ret(out, scalar)


def rho(p, k, prior):
    """The rho that the two-parameter scheme guarantees for a prior.

    It is the adversary's largest posterior of the *true* bit, over both
    true bits and every report:
    ``rho = max_x max_r P(x | r)`` over ``x`` in {0, 1} and the reports r
    that x can produce.  For every respondent and every report the
    adversary's posterior belief in the respondent's actual bit is at most
    rho: the scheme is rho-differentially identifiable (MATH.md sections 1
    and 3, with the two worlds x = 0 and x = 1 and prior weights
    ``1 - prior`` and ``prior``).  Equivalently
    ``max(identification_risk(..., value=1), identification_risk(..., value=0))``.

    Properties: ``rho >= max(prior, 1 - prior)`` (no report lowers the
    adversary's best guess below the prior); at ``prior = 1/2`` it is
    ``1 / (1 + e^-epsilon)``, the paper's ``rho = 1/(1 + (m - 1) e^-eps)``
    with m = 2 worlds and the exact `epsilon`; for any prior
    ``rho <= e^eps P / (1 - P + e^eps P)`` with ``P = max(prior, 1 - prior)``
    (MATH.md's Bayesian reading of eps-DP), with equality at ``k = 1/2``.

    Parameters
    ----------
    p : array_like
        Probability of not keeping the true bit, in [0, 1].
    k : array_like
        Probability of reporting 0 when the bit is not kept, in [0, 1].
    prior : array_like
        The adversary's prior ``P(x = 1)``, in [0, 1].

    Returns
    -------
    float or ndarray
        The rho, in ``[max(prior, 1 - prior), 1]``; 1 wherever epsilon is
        infinite or the prior is 0 or 1.

    Raises
    ------
    ValueError
        If p, k or prior is outside [0, 1] or NaN.
    TypeError
        If an argument is not real numbers (a string, a bool, complex values).

    Notes
    -----
    Each posterior is computed from its own joint probabilities (see
    `identification_risk`), to a few ulps for probabilities down to
    5e-324.

    Examples
    --------
    >>> from diffident import rr
    >>> rr.rho(0.5, 0.5, 0.5)                    # 1 / (1 + e^-ln 3)
    0.75
    >>> round(rr.rho(0.5, 0.5, 0.9), 12)         # 0.9 * 3 / (0.9 * 3 + 0.1)
    0.964285714286
    """
    scalar = V.is_scalar(p, k, prior)
    pp, kk, pr = np.broadcast_arrays(V.probability("p", p), V.probability("k", k), V.probability("prior", prior))
    # max over the possible reports r of max_x P(x | r) (>= 1/2, so attained
    # at an x of positive prior that can produce r); each posterior from its
    # own joint probabilities, never as one minus the other
    post = _posteriors(pp, kk, pr)
    out = np.fmax(np.fmax(post[1, 1], post[1, 0]), np.fmax(post[0, 1], post[0, 0]))
    return V.ret(out, scalar)
