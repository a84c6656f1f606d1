"""Drawing randomized reports (`diffident.rr`): bits and k-ary categories."""


import numpy as np

from .._numerics.renamed import renamed
from .._numerics.shared_docs import shared_docs
from .._numerics.validate import (
    bits,
    categories,
    generator,
    is_scalar,
    privacy_epsilon,
    probability,
    ret_int,
    where,
    whole_numbers,
)
from .._typing import IntOrArray, RealArrayLike


def _likelihoods(p, k):
    """P(report 1 | x = 1), P(report 1 | x = 0), each a sum of non-negative terms."""
    return (1.0 - p) + p * (1.0 - k), p * (1.0 - k)


@renamed("0.2.0", p="flip", k="zero")
@shared_docs
def sample(x: RealArrayLike, *, flip: RealArrayLike, zero: RealArrayLike, rng: np.random.Generator) -> IntOrArray:
    """Draw the reports of the two-parameter scheme for the bits x.

    Parameters
    ----------
    x : array_like of {0, 1}
        The true bits (bools, integers or integral floats).
    flip : array_like
        The probability p of not keeping the true bit, in [0, 1]; broadcast against x.
    %(zero)s
    rng : numpy.random.Generator
        The source of randomness (seed it for reproducible draws).

    Returns
    -------
    int or ndarray of int64
        The 0/1 reports, 1 with probability ``1 - p k`` (x = 1) or ``p (1 - k)`` (x = 0).

    Raises
    ------
    ValueError
        If x holds values other than 0 and 1, or flip or zero is outside [0, 1] or NaN.
    TypeError
        If rng is not a ``numpy.random.Generator``, or an argument is not real numbers.

    Examples
    --------
    >>> import numpy as np
    >>> from diffident import rr
    >>> rng = np.random.default_rng(0)
    >>> x = np.ones(100_000, dtype=int)
    >>> reports = rr.sample(x, flip=0.5, zero=0.5, rng=rng)
    >>> round(float(reports.mean()), 2)          # 1 - p k = 0.75
    0.75
    """
    scalar = is_scalar(x, flip, zero)
    xx, pp, kk = np.broadcast_arrays(bits("x", x), probability("flip", flip), probability("zero", zero))
    g = generator(rng)
    l1, l0 = _likelihoods(pp, kk)
    prob1 = np.where(xx == 1, l1, l0)
    out = (g.random(prob1.shape) < prob1).astype(np.int64)
    return ret_int(out, scalar)


def kary_sample(x: RealArrayLike, *, epsilon: RealArrayLike, d: RealArrayLike, rng: np.random.Generator) -> IntOrArray:
    """Draw the reports of k-ary randomized response for categories x.

    Parameters
    ----------
    x : array_like of int
        True categories in ``0, ..., d - 1``.
    epsilon : array_like
        Privacy parameter(s), >= 0, broadcast against x.
    d : array_like
        Number of categories, a whole number in [2, 2**53], broadcast against x.
    rng : numpy.random.Generator
        The source of randomness.

    Returns
    -------
    int or ndarray of int64
        The true category with probability `kary_p` ``(epsilon, d)``, else another uniformly.

    Raises
    ------
    ValueError
        If x holds values outside ``0, ..., d - 1`` or non-integers, epsilon is
        negative or NaN, or d is not a whole number in [2, 2**53].
    TypeError
        If rng is not a ``numpy.random.Generator``, d is a bool, or an argument is not real numbers.

    Examples
    --------
    >>> import numpy as np
    >>> from diffident import rr
    >>> rng = np.random.default_rng(0)
    >>> reports = rr.kary_sample(np.zeros(100_000, dtype=int), epsilon=np.log(3),
    ...                          d=4, rng=rng)
    >>> np.bincount(reports, minlength=4).round(-3)   # p = 1/2, others 1/6
    array([50000, 17000, 17000, 17000])
    """
    scalar = is_scalar(x, epsilon, d)
    xx, e, cats = np.broadcast_arrays(whole_numbers("x", x), privacy_epsilon("epsilon", epsilon), categories(d))
    bad = cats > 2.0**53
    if bad.any():  # the categories are drawn as integers: each must be exact
        raise ValueError(f"d (the number of categories) must be at most 2**53 to sample; {where(cats, bad)}")
    bad = (xx < 0) | (xx >= cats)
    if bad.any():
        raise ValueError(f"x must hold categories 0, ..., d - 1; {where(xx, bad)}")
    g = generator(rng)
    di = cats.astype(np.int64)
    p = 1.0 / (1.0 + (cats - 1.0) * np.exp(-e))
    truthful = g.random(xx.shape) < p
    other = (xx + 1 + g.integers(0, di - 1, size=xx.shape)) % di  # never x itself
    out = np.where(truthful, xx, other).astype(np.int64)
    return ret_int(out, scalar)
