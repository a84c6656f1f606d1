"""Unbiased estimates from randomized reports (`diffident.rr`), cancelling differences formed exactly."""


import numpy as np

from .._numerics.renamed import renamed
from .._numerics.shared_docs import shared_docs
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
    """``(q - p + p k) / (1 - p)`` with the numerator summed exactly (rounded once)."""
    _, e = np.frexp(np.maximum(q, p))
    e = np.minimum(e, 0).astype(np.int64)          # scale up only: exact
    hi, lo = scaled_product(p, k, e)
    num = accurate_sum(np.ldexp(q, -e), -np.ldexp(p, -e), hi, lo)
    with np.errstate(under="ignore", over="ignore"):
        out = np.ldexp(num / (1.0 - p), e)
    # q = p: the numerator is p k exactly, whatever its size
    return np.where(q == p, ratio_of_products((p, k), (1.0 - p,)), out)


@renamed("0.2.0", p="flip", k="zero")
@shared_docs
def estimate(q: RealArrayLike, *, flip: RealArrayLike, zero: RealArrayLike) -> FloatOrArray:
    """Unbiased estimate of the share of ones from the reported share q.

    Parameters
    ----------
    q : array_like
        Share of reports that are 1, in [0, 1].
    flip : array_like
        The probability p of not keeping the true bit, in [0, 1).
    %(zero)s

    Returns
    -------
    float or ndarray
        ``(q - p (1 - k)) / (1 - p)``, to a few ulps; not clipped to [0, 1].

    Raises
    ------
    ValueError
        If q or zero is outside [0, 1], flip outside [0, 1), or any is NaN.
    TypeError
        If an argument is not real numbers (a string, a bool, complex values).

    Examples
    --------
    >>> from diffident import rr
    >>> round(rr.estimate(0.4, flip=0.5, zero=0.5), 12)    # (0.4 - 0.25) / 0.5
    0.3
    """
    scalar = is_scalar(q, flip, zero)
    qq, pp, kk = np.broadcast_arrays(
        probability("q", q), in_range("flip", flip, 0.0, 1.0, hi_open=True), probability("zero", zero)
    )
    return ret(_estimate(qq, pp, kk), scalar)


@renamed("0.2.0", p="flip", k="zero")
@shared_docs
def variance(q: RealArrayLike, *, flip: RealArrayLike, zero: RealArrayLike, n: RealArrayLike) -> FloatOrArray:
    """Variance of `estimate` from n reports: ``q (1 - q) / ((1 - p)^2 n)``.

    Parameters
    ----------
    q : array_like
        Report probability, or observed share of reports that are 1, in [0, 1].
    %(flip)s
    zero : array_like
        The probability k that a report is 0 when the bit is not kept, in [0, 1] (unused).
    n : array_like
        Number of reports, > 0.

    Returns
    -------
    float or ndarray
        The variance for an independent sample (plug-in for an observed q);
        ``inf`` at ``p = 1`` with ``0 < q < 1``, ``nan`` at ``p = 1``, q in {0, 1}.

    Raises
    ------
    ValueError
        If q, flip or zero is outside [0, 1] or NaN, or n is not positive and finite.
    TypeError
        If an argument is not real numbers (a string, a bool, complex values).

    Examples
    --------
    >>> from diffident import rr
    >>> round(rr.variance(0.4, flip=0.5, zero=0.5, n=100), 12)  # 0.24 / 25
    0.0096
    """
    scalar = is_scalar(q, flip, zero, n)
    qq, pp, kk, nn = np.broadcast_arrays(
        probability("q", q), probability("flip", flip), probability("zero", zero), positive_scale("n", n)
    )
    # mantissas and exponents apart: no product under- or overflows unless the
    # variance itself is beyond float64's range
    out = ratio_of_products((qq, 1.0 - qq), (1.0 - pp, 1.0 - pp, nn))
    return ret(out, scalar)


# ------------------------------------------------------------------- Warner and k-ary


def warner_estimate(n_yes: RealArrayLike, *, n: RealArrayLike, p: RealArrayLike) -> FloatOrArray:
    """Unbiased estimate of the number of ones under Warner's coin.

    Parameters
    ----------
    n_yes : array_like
        Number of reports that are 1, in [0, n].
    n : array_like
        Number of reports, > 0.
    p : array_like
        Truth probability, in (1/2, 1].

    Returns
    -------
    float or ndarray
        ``(n_yes - n (1 - p)) / (2 p - 1)``, to a few ulps; not clipped to [0, n].

    Raises
    ------
    ValueError
        If n is not positive, n_yes is outside [0, n], p is outside (1/2, 1], or any is NaN.
    TypeError
        If an argument is not real numbers (a string, a bool, complex values).

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
    """The sum over the last axis as ``hi + lo`` (pairwise TwoSum): exact for integer counts below 2**53."""
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

    Parameters
    ----------
    counts : array_like
        Reported counts, non-negative, the d >= 2 categories along the last axis.
    epsilon : array_like
        Privacy parameter(s) > 0 (``inf``: the counts are the truth), broadcast
        against ``counts[..., 0]``.

    Returns
    -------
    ndarray
        ``c_j + (d c_j - n) / (e^eps - 1)`` (n the total count), shaped like
        counts; they sum to n and are not clipped to [0, n].

    Raises
    ------
    ValueError
        If counts is 0-d, has fewer than 2 categories, or holds negative, NaN
        or infinite values; if epsilon is not > 0 or is NaN.
    TypeError
        If an argument is not real numbers (a string, a bool, complex values).

    Examples
    --------
    >>> from diffident import rr
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
