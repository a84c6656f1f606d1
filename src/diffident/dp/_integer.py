"""The parameters of integer noise as real releases state them (`diffident.dp`).

Discrete Laplace noise with scale b on the multiples of a granularity g has
``P(Z = z) ∝ e^{-|z|/b}``: the Census geometric mechanism's
``(1 - p)^{|z|/g}`` with ``1 - p = e^{-g/b}`` (`geometric_scale`,
`geometric_p`), and epsilon-DP with ``epsilon = Delta / b``
(`discrete_laplace_epsilon`, `discrete_laplace_scale`).  The discrete
Gaussian with parameter sigma satisfies ``zcdp_rho = Delta^2 / (2 sigma^2)``
-zCDP (Canonne, Kamath and Steinke 2020; `discrete_gaussian_zcdp`,
`discrete_gaussian_sigma`).

The two re-parameterisations of one distribution (p and b) are evaluated
to within two ulps, without cancellation (``log1p``, ``expm1``).  A
guarantee (epsilon, zcdp_rho) and a calibration (scale, sigma) is the
exact value rounded upward, to the private side (the smallest float not
below it, as OpenDP's privacy maps round): certified by exact products on
the mantissas (`numpy.frexp`, where Dekker's product is exact whatever
the exponents); a result below the normal range is at most one float
above the exact value.
"""

from typing import overload

import numpy as np

from .._numerics import dd as _dd
from .._numerics.floats import TINY
from .._numerics.validate import granularity as check_granularity
from .._numerics.validate import in_range, is_scalar, positive_scale, ret
from .._typing import FloatOrArray, RealArrayLike


def _scaled_up(m, e):
    """``ldexp(m, e)`` for ``m > 0``, never below ``m 2^e``: ``ldexp``
    rounds a result below the normal range to nearest, so such a result
    is moved one float up (overflow gives inf, which is above).
    """
    with np.errstate(over="ignore", under="ignore"):
        r = np.ldexp(m, e)
    return np.where(r < TINY, np.nextafter(r, np.inf), r)


def div_up(a, b):
    """``a / b`` rounded upward, for finite ``a, b > 0``: the quotient of
    the mantissas (in (1/2, 2), so that ``q mb`` is exact as Dekker's
    product and ``q mb - ma`` exact by Sterbenz), moved one float up where
    ``q mb < ma``.
    """
    ma, ea = np.frexp(a)
    mb, eb = np.frexp(b)
    q = ma / mb
    p, err = _dd.two_prod(q, mb)
    q = np.where((p - ma) + err < 0.0, np.nextafter(q, np.inf), q)
    return _scaled_up(q, ea - eb)


def _exact_sign(a, b, c, t):
    """The sign of ``a b c - t^2``, exactly, for mantissa-sized floats (in
    [1/8, 4] here: no term of the expansion under- or overflows, and
    Dekker's splitting holds): six exact terms, distilled by passes of
    error-free sums (Knuth's TwoSum from the smallest up, which keep the
    sum exact) until the largest outweighs the others; ``math.fsum``
    decides what a few passes leave open.
    """
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
    """The smallest float with ``passes`` (a test monotone in its float
    argument, exact), from an estimate ``c`` within a float or two of it:
    each step tests the neighbour below where ``c`` passes (and moves
    there while it passes too) or the one above where it fails.
    """
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
    """``s^2 / (2 sigma^2)`` rounded upward, for finite ``s, sigma > 0``:
    the smallest float ``c`` with ``c sigma (2 sigma) >= s^2`` on the
    mantissas, from a double-double estimate.
    """
    ms, es = np.frexp(s)
    mg, eg = np.frexp(sigma)
    q = ms / mg  # the quotient to about 2^-104, (q, ql), and its half square
    p, err = _dd.two_prod(q, mg)
    ql = ((ms - p) - err) / mg
    sq, sql = _dd.two_prod(q, q)
    c = _least(0.5 * (sq + (sql + 2.0 * q * ql)), lambda c: _exact_sign(c, mg, 2.0 * mg, ms) >= 0.0)
    return _scaled_up(c, 2 * (es - eg))


def sigma_up(s, r):
    """``s / sqrt(2 r)`` rounded upward, for finite ``s, r > 0``: with ``2 r
    = m 2^e``, ``e`` even and ``m`` in [1/2, 2), the smallest float ``c``
    with ``c c m >= ms^2`` on the mantissas, from an estimate within 2 ulps
    (two correctly rounded operations).
    """
    ms, es = np.frexp(s)
    m, e = np.frexp(r)
    e = e + 1
    odd = (e % 2) != 0
    m = np.where(odd, 2.0 * m, m)
    e = np.where(odd, e - 1, e)
    c = _least(ms / np.sqrt(m), lambda c: _exact_sign(c, c, m, ms) >= 0.0)
    return _scaled_up(c, es - e // 2)


def _args(name, x, sensitivity):
    """The checked first argument (finite, > 0) and sensitivity (finite,
    > 0), broadcast, and whether both are scalars.
    """
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
    """The discrete Laplace scale b of the geometric mechanism with parameter p.

    The Census geometric mechanism adds ``Z`` with ``P(Z = z) ∝ (1 - p)^|k|``
    on the lattice ``z = k g`` (g the granularity, 1 for counts), which is
    the discrete Laplace ``e^{-|z|/b}`` with ``b = -g / ln(1 - p)``.  The
    Census states p as ``1 - e^{-epsilon / Delta}``, so that ``b = Delta /
    epsilon``; the sensitivity is not needed here (`discrete_laplace_epsilon`
    takes it).  Evaluated with ``log1p``: within two ulps for every p.

    Parameters
    ----------
    p : array_like
        The geometric parameter(s), in the open interval (0, 1).
    granularity : float, optional
        The lattice spacing g > 0 of the noise (default 1: integers).

    Returns
    -------
    float or ndarray
        The scale b, in the units of the lattice: about ``g / p`` for small
        p (``inf`` where that passes the float range, p below about
        ``g / 1.8e308``) and small as p tends to 1.

    Raises
    ------
    ValueError
        For p outside (0, 1) or NaN, or a granularity that is not a finite
        number > 0.
    TypeError
        If an argument is not real numbers (a string, complex values).

    See Also
    --------
    geometric_p : The inverse, b to p.
    discrete_laplace_epsilon : The epsilon of scale b at a sensitivity.

    Examples
    --------
    >>> import math
    >>> from diffident import dp
    >>> b = dp.geometric_scale(1 - math.exp(-0.5))   # epsilon 0.5, Delta 1
    >>> round(b, 12)
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
    """The geometric mechanism's parameter p for a discrete Laplace scale b.

    The inverse of `geometric_scale`: ``p = 1 - e^{-g/b}``, evaluated as
    ``-expm1(-g/b)`` (within two ulps).  It is also Tumult's and SciPy's
    ``p = 1 - e^{-1/alpha}`` for a scale alpha on the integers.

    Parameters
    ----------
    scale : array_like
        The discrete Laplace scale(s) b, finite and > 0.
    granularity : float, optional
        The lattice spacing g > 0 of the noise (default 1: integers).

    Returns
    -------
    float or ndarray
        The parameter p, in [0, 1]: it rounds to 1 where ``e^{-g/b}`` is
        below half an ulp of 1 (b below about ``g / 37``), and to 0 where
        ``g / b`` underflows.  Near 1 the float p holds ``1 - p`` to an
        absolute 2^-53 only, so b -> p -> b is exact only where p <= 1/2
        (b >= g / ln 2).

    Raises
    ------
    ValueError
        For a scale that is NaN, infinite, zero or negative, or a
        granularity that is not a finite number > 0.
    TypeError
        If an argument is not real numbers (a string, complex values).

    See Also
    --------
    geometric_scale : The inverse, p to b.

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


def discrete_laplace_epsilon(scale: RealArrayLike, *, sensitivity: RealArrayLike = 1.0) -> FloatOrArray:
    """The epsilon of discrete Laplace noise with scale b: ``Delta / b``.

    Discrete Laplace noise ``e^{-|z|/b}`` on the integers (or on a lattice
    that holds the sensitivity Delta) gives epsilon-DP with ``epsilon =
    Delta / b``.  The exact quotient rounded upward, as OpenDP's privacy
    map rounds it: the guarantee is never understated.

    Parameters
    ----------
    scale : array_like
        The discrete Laplace scale(s) b, finite and > 0 (OpenDP's
        ``scale``, Tumult's ``alpha``; `geometric_scale` for the Census p).
    sensitivity : array_like, optional
        L1-sensitivity Delta, finite and > 0 (default 1).

    Returns
    -------
    float or ndarray
        The epsilon, the exact quotient rounded up (0 never; the smallest
        positive float where it underflows, ``inf`` beyond the float range).

    Raises
    ------
    ValueError
        For a scale or sensitivity that is NaN, infinite, zero or negative,
        or inputs that do not broadcast.
    TypeError
        If an argument is not real numbers (a string, complex values).

    See Also
    --------
    discrete_laplace_scale : The inverse, epsilon to b.

    Examples
    --------
    >>> from diffident import dp
    >>> dp.discrete_laplace_epsilon(4.0, sensitivity=2)
    0.5
    >>> dp.discrete_laplace_epsilon(3.0)               # 1/3 rounded up
    0.33333333333333337
    """
    scalar, b, s = _args("scale", scale, sensitivity)
    return ret(div_up(s, b), scalar)


@overload
def discrete_laplace_scale(epsilon: float, *, sensitivity: float = 1.0) -> float: ...


@overload
def discrete_laplace_scale(epsilon: RealArrayLike, *, sensitivity: RealArrayLike = 1.0) -> FloatOrArray: ...


def discrete_laplace_scale(epsilon: RealArrayLike, *, sensitivity: RealArrayLike = 1.0) -> FloatOrArray:
    """The discrete Laplace scale b for epsilon-DP: ``Delta / epsilon``.

    The inverse of `discrete_laplace_epsilon`, rounded upward (more noise,
    never less): the scale to pass as OpenDP's ``scale`` or Tumult's
    ``alpha``, and `geometric_p` turns it into the Census p.

    Parameters
    ----------
    epsilon : array_like
        Privacy parameter(s), finite and > 0.
    sensitivity : array_like, optional
        L1-sensitivity Delta, finite and > 0 (default 1).

    Returns
    -------
    float or ndarray
        The scale b, the exact quotient rounded up (``inf`` beyond the
        float range).

    Raises
    ------
    ValueError
        For an epsilon or sensitivity that is NaN, infinite, zero or
        negative, or inputs that do not broadcast.
    TypeError
        If an argument is not real numbers (a string, complex values).

    See Also
    --------
    discrete_laplace_epsilon : The inverse, b to epsilon.
    geometric_p : The Census parameter of a scale.

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


def discrete_gaussian_zcdp(sigma: RealArrayLike, *, sensitivity: RealArrayLike = 1.0) -> FloatOrArray:
    """The zCDP parameter of the discrete Gaussian: ``Delta^2 / (2 sigma^2)``.

    The discrete Gaussian ``e^{-z^2 / (2 sigma^2)}`` on the integers gives
    ``zcdp_rho``-zero-concentrated DP with ``zcdp_rho = Delta^2 / (2
    sigma^2)`` (Canonne, Kamath and Steinke 2020, Theorem 14).  This rho
    is a privacy-loss parameter, not the identification bound rho of the
    rest of diffident.  The exact value rounded upward, as OpenDP's
    privacy map rounds it: the guarantee is never understated.

    Parameters
    ----------
    sigma : array_like
        The discrete Gaussian parameter(s) sigma, finite and > 0 (OpenDP's
        ``scale``; ``sqrt(sigma_squared)`` for Tumult).
    sensitivity : array_like, optional
        L2-sensitivity Delta, finite and > 0 (default 1).

    Returns
    -------
    float or ndarray
        The zcdp_rho, rounded up (the smallest positive float where it underflows, ``inf``
        beyond the float range).

    Raises
    ------
    ValueError
        For a sigma or sensitivity that is NaN, infinite, zero or negative,
        or inputs that do not broadcast.
    TypeError
        If an argument is not real numbers (a string, complex values).

    See Also
    --------
    discrete_gaussian_sigma : The inverse, zcdp_rho to sigma.

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


def discrete_gaussian_sigma(zcdp_rho: RealArrayLike, *, sensitivity: RealArrayLike = 1.0) -> FloatOrArray:
    """The discrete Gaussian sigma for zcdp_rho-zCDP: ``Delta / sqrt(2 zcdp_rho)``.

    The inverse of `discrete_gaussian_zcdp`: the exact value rounded
    upward (more noise, never less).
    The Census's allocation ``1 / sigma^2 = 2 share zcdp_rho`` (Delta 1) is
    ``discrete_gaussian_sigma(share * zcdp_rho)``; Tumult's
    ``sigma_squared`` is the square of the result.

    Parameters
    ----------
    zcdp_rho : array_like
        The zero-concentrated DP parameter(s), finite and > 0 (not the
        identification bound rho of the rest of diffident).
    sensitivity : array_like, optional
        L2-sensitivity Delta, finite and > 0 (default 1).

    Returns
    -------
    float or ndarray
        The sigma, rounded up (``inf`` beyond the float range).

    Raises
    ------
    ValueError
        For a zcdp_rho or sensitivity that is NaN, infinite, zero or
        negative, or inputs that do not broadcast.
    TypeError
        If an argument is not real numbers (a string, complex values).

    See Also
    --------
    discrete_gaussian_zcdp : The inverse, sigma to zcdp_rho.

    Examples
    --------
    >>> from diffident import dp
    >>> dp.discrete_gaussian_sigma(0.5, sensitivity=2)
    2.0
    """
    scalar, r, s = _args("zcdp_rho", zcdp_rho, sensitivity)
    return ret(sigma_up(s, r), scalar)
