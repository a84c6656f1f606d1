"""The parameters of integer noise as real releases state them (`diffident.dp`)."""

from typing import overload

import numpy as np

from .._numerics import dd as _dd
from .._numerics.floats import TINY
from .._numerics.shared_docs import shared_docs
from .._numerics.validate import granularity as check_granularity
from .._numerics.validate import in_range, is_scalar, positive_scale, ret
from .._typing import FloatOrArray, RealArrayLike


def _scaled_up(m, e):
    """``ldexp(m, e)`` for ``m > 0``, never below ``m 2^e`` (a subnormal result moved one float up)."""
    with np.errstate(over="ignore", under="ignore"):
        r = np.ldexp(m, e)
    return np.where(r < TINY, np.nextafter(r, np.inf), r)


def div_up(a, b):
    """``a / b`` rounded upward, for finite ``a, b > 0``."""
    ma, ea = np.frexp(a)
    mb, eb = np.frexp(b)
    q = ma / mb
    p, err = _dd.two_prod(q, mb)
    q = np.where((p - ma) + err < 0.0, np.nextafter(q, np.inf), q)
    return _scaled_up(q, ea - eb)


def _exact_sign(a, b, c, t):
    """The exact sign of ``a b c - t^2`` for floats in [1/8, 4]."""
    p1, p2 = _dd.two_prod(a, b)
    q1, q2 = _dd.two_prod(p1, c)
    q3, q4 = _dd.two_prod(p2, c)
    d1, d2 = _dd.two_prod(t, t)
    terms = [q4, q3, q2, -d2, -d1, q1]
    sign = np.zeros(np.shape(q1))
    todo = np.ones(np.shape(q1), dtype=bool)
    for _ in range(4):
        for i in range(len(terms) - 1):
            terms[i + 1], terms[i] = _dd.two_sum(terms[i], terms[i + 1])
        top = terms[-1]
        rest = sum(np.abs(x) for x in terms[:-1]) * (1.0 + 2.0**-48)  # the float sum of 5 terms, bounded
        done = todo & (np.abs(top) > rest)
        sign = np.where(done, np.sign(top), sign)
        zero = todo & (top == 0.0) & (rest == 0.0)
        todo &= ~(done | zero)
        if not todo.any():
            return sign
    idx = np.flatnonzero(todo)
    rows = np.stack([np.broadcast_to(x, sign.shape).reshape(-1)[idx] for x in terms], axis=-1)
    flat = sign.reshape(-1)
    flat[idx] = _dd.exact_sign(rows)
    return flat.reshape(sign.shape)


def _least(c, passes):
    """The smallest float passing the exact monotone test ``passes``, from an estimate ``c`` within 16 floats."""
    ok = passes(c)
    active = np.ones(np.shape(c), dtype=bool)
    for _ in range(16):
        cand = np.where(ok, np.nextafter(c, 0.0), np.nextafter(c, np.inf))
        ok_cand = passes(cand)
        down = active & ok & ok_cand
        up = active & ~ok
        c = np.where(down | up, cand, c)
        ok = np.where(up, ok_cand, ok)
        active = down | (up & ~ok_cand)
        if not active.any():
            return c
    raise AssertionError("the estimate was not within 16 floats of the result")  # pragma: no cover


def _zcdp_up(s, sigma):
    """``s^2 / (2 sigma^2)`` rounded upward, for finite ``s, sigma > 0``."""
    ms, es = np.frexp(s)
    mg, eg = np.frexp(sigma)
    q = ms / mg  # the quotient to about 2^-104, (q, ql), and its half square
    p, err = _dd.two_prod(q, mg)
    ql = ((ms - p) - err) / mg
    sq, sql = _dd.two_prod(q, q)
    c = _least(0.5 * (sq + (sql + 2.0 * q * ql)), lambda c: _exact_sign(c, mg, 2.0 * mg, ms) >= 0.0)
    return _scaled_up(c, 2 * (es - eg))


def sigma_up(s, r):
    """``s / sqrt(2 r)`` rounded upward, for finite ``s, r > 0``."""
    ms, es = np.frexp(s)
    m, e = np.frexp(r)
    e = e + 1
    odd = (e % 2) != 0
    m = np.where(odd, 2.0 * m, m)
    e = np.where(odd, e - 1, e)
    c = _least(ms / np.sqrt(m), lambda c: _exact_sign(c, c, m, ms) >= 0.0)
    return _scaled_up(c, es - e // 2)


def _args(name, x, sensitivity):
    """Whether both are scalars, and the checked argument and sensitivity (finite, > 0), broadcast."""
    scalar = is_scalar(x, sensitivity)
    a = positive_scale(name, x)
    s = positive_scale("sensitivity", sensitivity)
    a, s = np.broadcast_arrays(a, s)
    return scalar, a, s


# ------------------------------------------------------------------ Census p <-> b


@overload
def geometric_scale(p: float, *, granularity: float = 1.0) -> float: ...


@overload
def geometric_scale(p: RealArrayLike, *, granularity: float = 1.0) -> FloatOrArray: ...


def geometric_scale(p: RealArrayLike, *, granularity: float = 1.0) -> FloatOrArray:
    """The discrete Laplace scale ``b = -g / ln(1 - p)`` of the Census geometric mechanism.

    Parameters
    ----------
    p : array_like
        The geometric parameter(s), in the open interval (0, 1).
    granularity : float, optional
        The lattice spacing g > 0 of the noise (default 1: integers).

    Returns
    -------
    float or ndarray
        The scale b, within two ulps; about ``g / p`` for small p (inf beyond the float range).

    Raises
    ------
    ValueError
        For p outside (0, 1) or NaN, or a granularity that is not a finite number > 0.
    TypeError
        If an argument is not real numbers.

    Examples
    --------
    >>> import math
    >>> from diffident import dp
    >>> round(dp.geometric_scale(1 - math.exp(-0.5)), 12)   # epsilon 0.5, Delta 1
    2.0
    """
    scalar = is_scalar(p)
    a = in_range("p", p, 0.0, 1.0, lo_open=True, hi_open=True)
    g = check_granularity(granularity)
    with np.errstate(divide="ignore", over="ignore"):
        out = -g / np.log1p(-a)
    return ret(np.asarray(out, dtype=np.float64), scalar)


@overload
def geometric_p(scale: float, *, granularity: float = 1.0) -> float: ...


@overload
def geometric_p(scale: RealArrayLike, *, granularity: float = 1.0) -> FloatOrArray: ...


def geometric_p(scale: RealArrayLike, *, granularity: float = 1.0) -> FloatOrArray:
    """The geometric mechanism's parameter ``p = 1 - e^{-g/b}`` for a discrete Laplace scale b.

    Parameters
    ----------
    scale : array_like
        The discrete Laplace scale(s) b, finite and > 0.
    granularity : float, optional
        The lattice spacing g > 0 of the noise (default 1: integers).

    Returns
    -------
    float or ndarray
        The parameter p in [0, 1], within two ulps; b -> p -> b is exact only where p <= 1/2.

    Raises
    ------
    ValueError
        For a scale or granularity that is NaN, infinite, zero or negative.
    TypeError
        If an argument is not real numbers.

    Examples
    --------
    >>> import math
    >>> from diffident import dp
    >>> dp.geometric_p(2.0) == -math.expm1(-0.5)
    True
    """
    scalar = is_scalar(scale)
    b = positive_scale("scale", scale)
    g = check_granularity(granularity)
    with np.errstate(over="ignore", under="ignore"):
        out = -np.expm1(-g / b)
    return ret(np.asarray(out, dtype=np.float64), scalar)


# ------------------------------------------------------------------ epsilon <-> b


@overload
def discrete_laplace_epsilon(scale: float, *, sensitivity: float = 1.0) -> float: ...


@overload
def discrete_laplace_epsilon(scale: RealArrayLike, *, sensitivity: RealArrayLike = 1.0) -> FloatOrArray: ...


@shared_docs
def discrete_laplace_epsilon(scale: RealArrayLike, *, sensitivity: RealArrayLike = 1.0) -> FloatOrArray:
    """The epsilon of discrete Laplace noise with scale b: ``Delta / b``.

    Parameters
    ----------
    scale : array_like
        The discrete Laplace scale(s) b, finite and > 0 (OpenDP's ``scale``).
    sensitivity : array_like, optional
        L1-sensitivity Delta, finite and > 0 (default 1).

    Returns
    -------
    float or ndarray
        The epsilon, the exact quotient rounded up (never 0; inf beyond the float range).

    Raises
    ------
    %(raises_positive)s

    Examples
    --------
    >>> from diffident import dp
    >>> dp.discrete_laplace_epsilon(3.0)               # 1/3 rounded up
    0.33333333333333337
    """
    scalar, b, s = _args("scale", scale, sensitivity)
    return ret(div_up(s, b), scalar)


@overload
def discrete_laplace_scale(epsilon: float, *, sensitivity: float = 1.0) -> float: ...


@overload
def discrete_laplace_scale(epsilon: RealArrayLike, *, sensitivity: RealArrayLike = 1.0) -> FloatOrArray: ...


@shared_docs
def discrete_laplace_scale(epsilon: RealArrayLike, *, sensitivity: RealArrayLike = 1.0) -> FloatOrArray:
    """The discrete Laplace scale b for epsilon-DP: ``Delta / epsilon``.

    Parameters
    ----------
    epsilon : array_like
        Privacy parameter(s), finite and > 0.
    sensitivity : array_like, optional
        L1-sensitivity Delta, finite and > 0 (default 1).

    Returns
    -------
    float or ndarray
        The scale b, the exact quotient rounded up (inf beyond the float range).

    Raises
    ------
    %(raises_positive)s

    Examples
    --------
    >>> from diffident import dp
    >>> dp.discrete_laplace_scale(0.5, sensitivity=2)
    4.0
    """
    scalar, e, s = _args("epsilon", epsilon, sensitivity)
    return ret(div_up(s, e), scalar)


# ------------------------------------------------------------------ zCDP <-> sigma


@overload
def discrete_gaussian_zcdp(sigma: float, *, sensitivity: float = 1.0) -> float: ...


@overload
def discrete_gaussian_zcdp(sigma: RealArrayLike, *, sensitivity: RealArrayLike = 1.0) -> FloatOrArray: ...


@shared_docs
def discrete_gaussian_zcdp(sigma: RealArrayLike, *, sensitivity: RealArrayLike = 1.0) -> FloatOrArray:
    """The zCDP parameter of the discrete Gaussian: ``Delta^2 / (2 sigma^2)``.

    Parameters
    ----------
    sigma : array_like
        The discrete Gaussian parameter(s) sigma, finite and > 0 (OpenDP's ``scale``).
    sensitivity : array_like, optional
        L2-sensitivity Delta, finite and > 0 (default 1).

    Returns
    -------
    float or ndarray
        The zcdp_rho (not the identification bound rho), the exact value rounded up.

    Raises
    ------
    %(raises_positive)s

    Examples
    --------
    >>> from diffident import dp
    >>> dp.discrete_gaussian_zcdp(2.0, sensitivity=2)
    0.5
    """
    scalar, sg, s = _args("sigma", sigma, sensitivity)
    return ret(_zcdp_up(s, sg), scalar)


@overload
def discrete_gaussian_sigma(zcdp_rho: float, *, sensitivity: float = 1.0) -> float: ...


@overload
def discrete_gaussian_sigma(zcdp_rho: RealArrayLike, *, sensitivity: RealArrayLike = 1.0) -> FloatOrArray: ...


@shared_docs
def discrete_gaussian_sigma(zcdp_rho: RealArrayLike, *, sensitivity: RealArrayLike = 1.0) -> FloatOrArray:
    """The discrete Gaussian sigma for zcdp_rho-zCDP: ``Delta / sqrt(2 zcdp_rho)``.

    Parameters
    ----------
    zcdp_rho : array_like
        The zero-concentrated DP parameter(s), finite and > 0.
    sensitivity : array_like, optional
        L2-sensitivity Delta, finite and > 0 (default 1).

    Returns
    -------
    float or ndarray
        The sigma, the exact value rounded up (inf beyond the float range).

    Raises
    ------
    %(raises_positive)s

    Examples
    --------
    >>> from diffident import dp
    >>> dp.discrete_gaussian_sigma(0.5, sensitivity=2)
    2.0
    """
    scalar, r, s = _args("zcdp_rho", zcdp_rho, sensitivity)
    return ret(sigma_up(s, r), scalar)
