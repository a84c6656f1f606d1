"""The exact delta of the Gaussian mechanism with a bound on its error
(`delta_parts`), for `analytic_gaussian_delta` and every Gaussian profile
(`gauss_delta`).  Derivations: the DP algorithms page.
"""

import math
from typing import overload

import numpy as np
from scipy.special import erfcx, log_ndtr

from .._numerics import dd as _dd
from .._numerics.floats import U
from .._numerics.shared_docs import shared_docs
from .._numerics.validate import is_scalar, non_negative, privacy_epsilon, ret, scale_or_limit
from .._typing import FloatOrArray, RealArrayLike

LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


_INV_SQRT2 = 1.0 / math.sqrt(2.0)


_SQRT_HALF_PI = math.sqrt(0.5 * math.pi)


_N_SERIES = 40  # most Taylor terms in _ld_narrow: the last is below 1e-25 of the sum


# Error bounds assumed of the library functions, relative (twice the largest
# error measured against mpmath on 10^4 points over their whole range):
UL = 3 * U  # NumPy's exp, log, log1p, expm1 (1.2 ulps measured)


_UX = 16 * U  # scipy.special.erfcx: 8 ulps measured below x = 1 (see _erfcx_err)


_INV_FACT = [1.0 / math.factorial(n) for n in range(_N_SERIES + 2)]


def log_ndtr_bound(a):
    """``(log Phi(a), a bound on its error)``; for a > 0 from erfcx with an exact a^2."""
    a = np.asarray(a, dtype=np.float64)
    la = log_ndtr(np.minimum(a, 0.0))
    err = 10 * U * np.abs(la)
    pos = a > 0.0
    if pos.any():
        ap = a[pos]
        p, e = _dd.two_prod(ap, ap)
        x = ap * _INV_SQRT2
        ex = erfcx(x)
        tail = 0.5 * ex * np.exp(-0.5 * p) * (1.0 - 0.5 * e)
        lt = np.log1p(-tail)
        la[pos] = lt
        # the tail within UX, the derivative times x's rounding, exp and the
        # products; log1p(-t) magnifies a relative error of t by at most
        # t / ((1 - t) |log1p(-t)|) <= 1.45 (t <= 1/2)
        rel = _erfcx_err(x) + _dlog_erfcx(x, ex) * U * x + UL + 3 * U
        # (a tail below the normal range is lost, or kept to few bits: 1e-307)
        err[pos] = (1.45 * rel + UL) * np.abs(lt) + np.where(tail < 2.3e-308, 1e-307, 0.0)
    return la, err


def phi_over_ndtr(a, la):
    """``phi(a) / Phi(a)``, the derivative of ``log Phi`` (``la = log Phi(a)``), with 10% to spare."""
    with np.errstate(over="ignore", divide="ignore"):
        neg = 1.0 / (_SQRT_HALF_PI * erfcx(-np.minimum(a, 0.0) * _INV_SQRT2))
        pos = np.exp(-0.5 * a * a - LOG_SQRT_2PI - la)
    return 1.1 * np.where(a < 0.0, neg, pos)


def _erfcx_err(x):
    """The relative error assumed of ``scipy.special.erfcx(x)``, x >= 0 (twice that measured)."""
    return np.where(x < 1.0, _UX, np.where(x < 5.0, 12 * U, np.where(x < 30.0, 8 * U, 5 * U)))


def _dlog_erfcx(x, ex):
    """An upper bound on ``|d ln erfcx / dx|`` for x >= 0 (``ex`` unused)."""
    with np.errstate(over="ignore", divide="ignore"):
        b = np.where(x > 1e8, 1.0 / x, 2.0 / (x + np.sqrt(x * x + 2.0)))
    return np.minimum(b, 1.1284)


def _amplified(ratio, dlr):
    """The error of ``log1p(-ratio)`` from a relative error ``dlr`` of the ratio (inf at ratio 1)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        w = ratio / (1.0 - ratio)
    return np.where(ratio < 1.0, w * dlr, np.inf)


def _ld_tails(h, c, with_err=True):
    """``(log delta, error bound)`` where ``a = h - c >= 0``, not narrow: ``Phi(a) (1 - ratio)``."""
    a = h - c
    la, dla_f = log_ndtr_bound(a)
    x = (h + c) * _INV_SQRT2
    ex = erfcx(x)
    le = np.log(_SQRT_HALF_PI * ex)
    half_a2 = 0.5 * a * a
    lr = -half_a2 - LOG_SQRT_2PI + le - la
    ratio = np.exp(lr)
    s1 = np.log1p(-ratio)
    out = np.where(ratio < 1.0, la + s1, -np.inf)
    if not with_err:
        return out, 0.0
    # h and c are within 2 ulps (q = sigma / S rounded, then divided or
    # multiplied): a within 2u (h + c) + u a, x within 4u x
    da = 2 * U * (h + c) + U * a
    dla = dla_f + phi_over_ndtr(a, la) * da
    dle = _erfcx_err(x) + U + _dlog_erfcx(x, ex) * 4 * U * x + UL * np.abs(le)
    dlr = (a * da + U * a * a + dle + dla + 3 * U * (half_a2 + LOG_SQRT_2PI + np.abs(le) + np.abs(la))
           + UL)
    err = dla + _amplified(ratio, dlr) + UL * np.abs(s1) + U * np.abs(out)
    return out, err


def _ld_mills(h, c, with_err=True):
    """``(log delta, error bound)`` where ``a = h - c < 0``: ``Phi(a) (1 - R(c + h) / R(c - h))``."""
    x1 = (c + h) * _INV_SQRT2
    x2 = (c - h) * _INV_SQRT2
    e1, e2 = erfcx(x1), erfcx(x2)
    ratio = e1 / e2
    a = h - c
    la, dla_f = log_ndtr_bound(a)
    s1 = np.log1p(-ratio)
    out = np.where(ratio < 1.0, la + s1, -np.inf)
    if not with_err:
        return out, 0.0
    da = 2 * U * (h + c) + U * np.abs(a)
    dla = dla_f + phi_over_ndtr(a, la) * da
    dx1 = 4 * U * x1
    dx2 = (2 * U * (c + h) + U * (c - h)) * _INV_SQRT2 + U * x2
    dlr = _dlog_erfcx(x1, e1) * dx1 + _dlog_erfcx(x2, e2) * dx2 + _erfcx_err(x1) + _erfcx_err(x2) + U
    err = dla + _amplified(ratio, dlr) + UL * np.abs(s1) + U * np.abs(out)
    return out, err


def _ld_narrow(h, c, eps, with_err=True):
    """``(log(delta / (2h)), error bound)`` where ``h max(c, 1) <= 1``, by a Taylor
    series; the caller divides the 2h left out by delta before any logarithm.
    """
    ch, h2 = c * h, h * h
    p_prev, p = np.ones_like(h), ch  # P_0, P_1
    a_prev, a_cur = np.ones_like(h), np.abs(ch)  # the same recurrence in absolute values
    ser = np.ones_like(h)
    dser = np.zeros_like(h)  # bound on the error of ser
    small = 0  # consecutive even terms below 2^-60 of the sum
    for n in range(1, _N_SERIES):
        p_prev, p = p, ch * p - n * h2 * p_prev  # P_{n+1}
        if with_err:
            a_prev, a_cur = a_cur, np.abs(ch) * a_cur + n * h2 * a_prev
        if n % 2:
            term = p * _INV_FACT[n + 2]
            new = ser + term
            if with_err:
                # P_{n+1}: 7 (n + 1) ulps of its absolute recurrence (ch and h^2
                # within 5 ulps, a rounding per step), the factorial 2, the sum
                dser = dser + (7 * (n + 1) + 2) * U * a_cur * _INV_FACT[n + 2] + np.minimum(
                    U * np.abs(new), np.abs(term))
            ser = new
            small = small + 1 if np.all(np.abs(term) <= 2.0**-60 * ser) else 0
            if small == 2:
                break
    dser = dser + 2.0**-59 * np.abs(ser)  # the terms left out: below two of the last
    x = (c + h) * _INV_SQRT2
    ex = erfcx(x)
    mills = _SQRT_HALF_PI * ex
    arg = ch + 0.5 * h2
    ratio = np.expm1(eps) * np.exp(-arg) * mills / (2.0 * h * ser)
    half_c2 = 0.5 * c * c
    lser = np.log(ser)
    s1 = np.log1p(-ratio)
    out = -half_c2 - LOG_SQRT_2PI + lser + s1
    out = np.where(ratio < 1.0, out, -np.inf)
    if not with_err:
        return out, None
    rser = dser / ser
    dlr = (UL + 6 * U * arg + UL + _erfcx_err(x) + U + _dlog_erfcx(x, ex) * 4 * U * x + 2 * U
           + rser + 4 * U)
    err = (5 * U * half_c2 + rser + UL * np.abs(lser) + _amplified(ratio, dlr) + UL * np.abs(s1)
           + 3 * U * (half_c2 + LOG_SQRT_2PI + np.abs(lser) + np.abs(s1)) + 2 * U)
    return out, err


def delta_parts(q, eps, with_err=True):
    """The delta at ``q = sigma / S`` (1-d; finite ``eps >= 0``, ``q > 0``) as
    ``big exp(small)``: ``(big, small, err)``, ``small = -inf`` where delta is
    not positive in float; ``err`` bounds the error of ``log(big) + small``
    against the exact ``log delta`` at the exact q (checked in tests/test_dp.py).
    """
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        h = 0.5 / q
        c = eps * q
        big = np.ones_like(h)
        small = np.empty_like(h)
        err = np.empty_like(h)
        narrow = h * np.maximum(c, 1.0) <= 1.0
        i = np.flatnonzero(narrow)
        if i.size:
            small[i], e = _ld_narrow(h[i], c[i], eps[i], with_err)
            err[i] = e if with_err else 0.0
            big[i] = 2.0 * h[i]
        i = np.flatnonzero(~narrow & (c > h))
        if i.size:
            small[i], err[i] = _ld_mills(h[i], c[i], with_err)
        i = np.flatnonzero(~narrow & ~(c > h))
        if i.size:
            small[i], err[i] = _ld_tails(h[i], c[i], with_err)
    return big, small, err


def log_delta(q, eps):
    """``log delta`` (arrays of one shape, q finite and > 0), no error bound: for Newton."""
    q, eps = np.broadcast_arrays(np.asarray(q, dtype=np.float64), np.asarray(eps, dtype=np.float64))
    big, small, _ = delta_parts(q.ravel(), eps.ravel(), with_err=False)
    with np.errstate(divide="ignore"):
        return (np.log(big) + small).reshape(q.shape)


def gauss_delta(sigma, eps, s):
    """The delta at noise ``sigma`` (arrays of one shape), with `analytic_gaussian_delta`'s edge values."""
    sigma, eps, s = np.broadcast_arrays(sigma, eps, s)
    shape = sigma.shape
    sigma, eps, s = (np.ascontiguousarray(a, dtype=np.float64).ravel() for a in (sigma, eps, s))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        q = sigma / s
    out = np.where(q == 0.0, 1.0, 0.0)  # no noise; else inf noise, eps inf, S = 0
    live = (s > 0.0) & np.isfinite(eps) & (q > 0.0)
    far, k, sigma_f, eps_f, zero = far_noise(sigma, s, eps, q, live)
    i = np.flatnonzero(live & np.isfinite(q) & ~far)
    if i.size:
        big, small, _ = delta_parts(q[i], eps[i], with_err=False)
        with np.errstate(under="ignore"):
            out[i] = big * np.exp(small)
    if far.any():  # delta(q, eps) = 2^-k delta(q 2^-k, eps 2^k), see far_noise
        j = np.flatnonzero(far)
        dj = gauss_delta(sigma_f, eps_f, s[j])
        with np.errstate(under="ignore"):
            out[j] = np.where(zero, 0.0, np.ldexp(dj, -k))
    out = np.where((s == 0.0) | np.isinf(eps), 0.0, out)
    return out.reshape(shape)


_FAR_Q = 2.0**1000  # sigma / S from here (or overflowing): h = 1/(2q) near the subnormal range


_FAR_EXP = 600  # such q are evaluated at about 2**600


_FAR_C = 2.0**200  # eps q beyond: delta < phi(2**200), below every float delta


FAR_LOG_MARGIN = 2.0**-90  # the rescaling's relative error (below 2**-390), bounded generously


def far_noise(sigma, s, eps, q, live):
    """Entries of ``live`` with ``q = sigma / S >= 2**1000`` (or overflowing, sigma
    finite), where ``delta(q, eps) = 2^-k delta(q 2^-k, eps 2^k)`` to 2**-390:
    ``(far, k, sigma 2^-k, eps 2^k, zero)``, ``zero`` where delta is 0.
    """
    far = live & np.isfinite(sigma) & ~(q < _FAR_Q)
    j = np.flatnonzero(far)
    k = np.frexp(sigma[j])[1].astype(np.int64) - np.frexp(s[j])[1] - _FAR_EXP
    sigma_f = np.ldexp(sigma[j], -k)
    with np.errstate(over="ignore"):
        eps_f = np.ldexp(eps[j], k)  # inf beyond the float range: c is, too (zero)
        zero = ~(eps_f * (sigma_f / s[j]) < _FAR_C)
    return far, k, sigma_f, eps_f, zero


@overload
def analytic_gaussian_delta(sigma: float, *, epsilon: float, sensitivity: float = 1.0) -> float: ...


@overload
def analytic_gaussian_delta(sigma: RealArrayLike, *, epsilon: RealArrayLike,
                            sensitivity: RealArrayLike = 1.0) -> FloatOrArray: ...


@shared_docs
def analytic_gaussian_delta(sigma: RealArrayLike, *, epsilon: RealArrayLike,
                            sensitivity: RealArrayLike = 1.0) -> FloatOrArray:
    """The exact delta of the Gaussian mechanism at noise sigma.

    Parameters
    ----------
    sigma : array_like
        Noise standard deviation(s), >= 0 (``inf`` allowed).
    epsilon : array_like
        Privacy parameter(s), >= 0 (``inf`` allowed).
    sensitivity : array_like, optional
        L2-sensitivity S >= 0 of the query (default 1).

    Returns
    -------
    float or ndarray
        Balle and Wang's (2018, Theorem 8) delta in [0, 1], to about 6e-13 (the DP
        algorithms page): 1 at sigma 0 (S > 0), 0 at sigma or epsilon inf or S = 0.

    Raises
    ------
    %(raises_range)s

    Examples
    --------
    >>> from diffident import analytic_gaussian_delta
    >>> round(analytic_gaussian_delta(1.0, epsilon=1.0), 12)
    0.126936737507
    """
    scalar = is_scalar(sigma, epsilon, sensitivity)
    sg, e, s = np.broadcast_arrays(scale_or_limit("sigma", sigma), privacy_epsilon("epsilon", epsilon),
                                   non_negative("sensitivity", sensitivity))
    return ret(gauss_delta(sg, e, s), scalar)
