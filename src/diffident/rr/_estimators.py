"""Unbiased estimates from randomized reports (`diffident.rr`): the share
of ones and its variance under the two-parameter scheme, the count of ones
under Warner's coin and the counts of the categories under k-ary
randomized response, with the differences that cancel formed exactly.
"""


import numpy as np

from .._numerics.validate import (
    finite,
    in_range,
    is_scalar,
    non_negative,
    positive_scale,
    privacy_epsilon,
    probability,
    ret,
    where,
)
from .._typing import FloatArray, FloatOrArray, RealArrayLike
from ._exact import accurate_sum, ratio_of_products, scaled_product

# --------------------------------------------------------------- two-parameter scheme


def _estimate(q, p, k):
    """(q - p + p k) / (1 - p) with the numerator summed exactly (rounded
    once): scaled by a power of two so that the larger of q and p lies in
    [1/2, 1] (no error term of p k underflows where it matters), summed from
    q, -p and the two-product of p k by Priest's method.
    """
    _, e = np.frexp(np.maximum(q, p))
    e = np.minimum(e, 0).astype(np.int64)          # scale up only: exact
    hi, lo = scaled_product(p, k, e)
    num = accurate_sum(np.ldexp(q, -e), -np.ldexp(p, -e), hi, lo)
    with np.errstate(under="ignore", over="ignore"):
        out = np.ldexp(num / (1.0 - p), e)
    # q = p: the numerator is p k exactly, whatever its size
    return np.where(q == p, ratio_of_products((p, k), (1.0 - p,)), out)


def estimate(q: RealArrayLike, *, p: RealArrayLike, k: RealArrayLike) -> FloatOrArray:
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
    >>> round(rr.estimate(0.4, p=0.5, k=0.5), 12)    # (0.4 - 0.25) / 0.5
    0.3
    >>> rr.estimate(0.35, p=0.5, k=0.3)   # the floats 0.35 and 0.5 * 0.7 differ
    -5.551115123125783e-17
    """
    scalar = is_scalar(q, p, k)
    qq, pp, kk = np.broadcast_arrays(
        probability("q", q), in_range("p", p, 0.0, 1.0, hi_open=True), probability("k", k)
    )
    return ret(_estimate(qq, pp, kk), scalar)


def variance(q: RealArrayLike, *, p: RealArrayLike, k: RealArrayLike, n: RealArrayLike) -> FloatOrArray:
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
    >>> round(rr.variance(0.4, p=0.5, k=0.5, n=100), 12)   # 0.24 / (0.25 * 100)
    0.0096
    """
    scalar = is_scalar(q, p, k, n)
    qq, pp, kk, nn = np.broadcast_arrays(
        probability("q", q), probability("p", p), probability("k", k), positive_scale("n", n)
    )
    # mantissas and exponents apart: no product under- or overflows unless the
    # variance itself is beyond float64's range
    out = ratio_of_products((qq, 1.0 - qq), (1.0 - pp, 1.0 - pp, nn))
    return ret(out, scalar)


# ------------------------------------------------------------------- Warner and k-ary


def warner_estimate(n_yes: RealArrayLike, *, n: RealArrayLike, p: RealArrayLike) -> FloatOrArray:
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
    >>> round(rr.warner_estimate(400, n=1000, p=0.75), 12)   # (400 - 250) / 0.5
    300.0
    """
    scalar = is_scalar(n_yes, n, p)
    ny, nn, pp = np.broadcast_arrays(
        finite("n_yes", n_yes), positive_scale("n", n), in_range("p", p, 0.5, 1.0, lo_open=True)
    )
    bad = (ny < 0) | (ny > nn)
    if bad.any():
        raise ValueError(f"n_yes must lie in [0, n]; {where(ny, bad)}")
    # n_yes - n (1 - p) summed exactly after scaling n to [1/2, 1); 1 - p and
    # 2 p - 1 are exact for p in [1/2, 1]
    _, e = np.frexp(nn)
    e = e.astype(np.int64)
    hi, lo = scaled_product(nn, 1.0 - pp, e)
    with np.errstate(under="ignore", over="ignore"):
        num = accurate_sum(np.ldexp(ny, -e), -hi, -lo)
        out = np.ldexp(num / (2.0 * pp - 1.0), e)
    return ret(np.where(pp == 1.0, ny, out), scalar)


def _sum_last_axis(c):
    """The sum over the last axis as ``hi + lo`` (pairwise two-sums, the
    rounding errors kept in lo): exact for integer counts below 2**53, else
    to about log2(d) u**2 of the sum of the values.
    """
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


def kary_estimate(counts: RealArrayLike, *, epsilon: RealArrayLike) -> FloatArray:
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
    >>> # p = 3/5
    >>> rr.kary_estimate([500, 250, 250], epsilon=1.0986122886681098).round(9)
    array([750., 125., 125.])
    """
    c = finite("counts", counts)
    if c.ndim == 0 or c.shape[-1] < 2:
        raise ValueError(
            f"counts must hold the d >= 2 categories along its last axis, got shape {c.shape}"
        )
    c = non_negative("counts", c)
    e = privacy_epsilon("epsilon", epsilon)
    bad = e == 0
    if bad.any():
        raise ValueError(f"epsilon must be > 0 for an estimate (at 0 the reports carry no information); "
                         f"{where(e, bad)}")
    d = c.shape[-1]
    # the estimate is homogeneous in the counts: counts whose d-fold sum
    # may overflow are scaled by a power of two (exact) and scaled back
    top = float(c.max()) if c.size else 0.0
    shift = max(0, int(np.frexp(top)[1]) + int(d).bit_length() + 1 - 1020) if top > 0 else 0
    if shift:
        with np.errstate(under="ignore"):
            c = np.ldexp(c, -shift)
    n_hi, n_lo = _sum_last_axis(c)
    hi, lo = scaled_product(np.float64(d), c, 0)
    a = accurate_sum(hi, lo, -n_hi[..., None], -n_lo[..., None])    # d c_j - n, rounded once
    # n_j = c_j + (d c_j - n) / (e^eps - 1); for eps > 700, e^eps - 1 = e^eps
    # to 1e-304, and (a e^(-eps/2)) e^(-eps/2) keeps a term near the bottom
    # of the normal range that e^-eps, subnormal, would round
    e = e[..., None]
    with np.errstate(over="ignore", under="ignore"):
        half = np.exp(-0.5 * e)
        term = np.where(e > 700.0, (a * half) * half, a / np.expm1(e))
        out: FloatArray = np.ldexp(c + term, shift) if shift else c + term
        return out
