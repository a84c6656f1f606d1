"""The exact delta of the Gaussian mechanism (Balle and Wang 2018, Theorem
8), evaluated stably in three ways, each where it does not cancel, with a
first-order bound on its error (`delta_parts`): `analytic_gaussian_delta`,
and the evaluator every Gaussian profile in diffident calls (`gauss_delta`).
"""

import math
from typing import overload

import numpy as np
from scipy.special import erfcx, log_ndtr

from .._numerics import dd as _dd
from .._numerics.floats import U
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
    """``(log Phi(a), error bound)``.  For ``a <= 0`` scipy's ``log_ndtr``
    (within 4.4 ulps measured; 10 assumed).  For ``a > 0`` it is
    ``log1p(-Phi(-a))`` of a tiny tail that scipy computes to hundreds of
    ulps (``ndtr``'s ``exp(-a^2/2)`` rounds ``a^2``), so the tail is taken
    as ``erfcx(a / sqrt 2) exp(-a^2/2) / 2`` with ``a^2`` exact (a
    two-product): within ``_UX`` plus a few ulps.
    """
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
    """``phi(a) / Phi(a)``, the derivative of ``log Phi`` (with 10% to
    spare): ``1 / R(-a)`` (R the Mills ratio, no cancellation) for a < 0,
    ``exp(-a^2/2 - ln sqrt(2 pi) - log Phi(a))`` for ``a >= 0``.
    """
    with np.errstate(over="ignore", divide="ignore"):
        neg = 1.0 / (_SQRT_HALF_PI * erfcx(-np.minimum(a, 0.0) * _INV_SQRT2))
        pos = np.exp(-0.5 * a * a - LOG_SQRT_2PI - la)
    return 1.1 * np.where(a < 0.0, neg, pos)


def _erfcx_err(x):
    """The relative error assumed of ``scipy.special.erfcx(x)``, x >= 0:
    twice the largest measured against mpmath (8 ulps below 1, 5.6 below
    5, 3.5 below 30, 2.4 beyond).
    """
    return np.where(x < 1.0, _UX, np.where(x < 5.0, 12 * U, np.where(x < 30.0, 8 * U, 5 * U)))


def _dlog_erfcx(x, ex):
    """A bound on ``|d ln erfcx / dx| = |2x - 2 / (sqrt(pi) erfcx(x))|``
    for x >= 0 (``ex = erfcx(x)``, unused: the difference cancels for large
    x): ``2 / (x + sqrt(x^2 + 2))``, from ``erfcx(x) > 2 / (sqrt(pi) (x +
    sqrt(x^2 + 2)))``; at most ``2 / sqrt(pi)`` (its value at 0), and ``1/x``
    beyond 1e8.
    """
    with np.errstate(over="ignore", divide="ignore"):
        b = np.where(x > 1e8, 1.0 / x, 2.0 / (x + np.sqrt(x * x + 2.0)))
    return np.minimum(b, 1.1284)


def _amplified(ratio, dlr):
    """The error of ``log1p(-ratio)`` from a relative error ``dlr`` of the
    ratio: ``dlr ratio / (1 - ratio)`` (inf where the ratio reaches 1).
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        w = ratio / (1.0 - ratio)
    return np.where(ratio < 1.0, w * dlr, np.inf)


def _ld_tails(h, c, with_err=True):
    """``(log delta, error bound)`` where ``a = h - c >= 0`` (not narrow):
    ``e^eps Phi(b) = phi(a) R(h + c)`` (b = -h - c; R the Mills ratio,
    ``sqrt(pi/2) erfcx(x / sqrt 2)``; ``eps = 2 h c`` turns
    ``e^eps phi(b)`` into ``phi(a)``), so ``delta = Phi(a) (1 - ratio)``
    with ``ratio = phi(a) R(h + c) / Phi(a)``: no ``eps + log Phi(b)`` to
    cancel (it cost a relative ``eps 2^-53``).  Error bounds: see
    `delta_parts`.
    """
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
    """``(log delta, error bound)`` where ``a = h - c < 0``: with
    ``eps = 2 h c`` and ``Phi(-x) = phi(x) R(x)`` (R the Mills ratio,
    ``erfcx``), ``e^eps Phi(b) / Phi(a) = R(c + h) / R(c - h)`` exactly, so
    ``delta = Phi(a) (1 - R(c + h) / R(c - h))`` with no exponentials to
    cancel.
    """
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
    """``(log(delta / (2h)), error bound)`` for a narrow interval.

    Narrow means ``h max(c, 1) <= 1``, where the two tails nearly cancel:

        delta = [Phi(-c + h) - Phi(-c - h)] - expm1(eps) Phi(-c - h)
              = I (1 - expm1(eps) Phi(-c - h) / I),

    with ``I = 2 h phi(c) sum_k He_2k(c) h^2k / (2k + 1)!`` (Taylor series
    of the normal density around -c; probabilists' Hermite polynomials in
    the scaled recurrence ``P_n = He_n(c) h^n``, no overflow) and
    ``Phi(-c - h) = phi(c) exp(-h c - h^2 / 2) R(c + h)``: the ratio
    carries no ``exp(-c^2/2)``.  The factor 2h is left out (the caller
    divides it by delta before taking a logarithm: ``log(2h)`` is down to
    -710, and its rounding would cost ``710 2^-53`` in delta).
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
    """The delta of the Gaussian mechanism at ``q = sigma / sensitivity``
    (Balle and Wang 2018, Theorem 8), ``Phi(1/(2q) - eps q) - e^eps
    Phi(-1/(2q) - eps q)``, for 1-d arrays of finite ``eps >= 0`` and
    finite ``q > 0``, as ``delta = big exp(small)``: ``(big, small, err)``,
    ``small = -inf`` where delta is not positive in floating point.

    ``err`` bounds the error of ``log(big) + small`` against the exact
    ``log delta`` at the exact ``q`` (sigma / S rounded, too): a first-order
    propagation of the rounding of every operation (2^-53 each), of the
    arguments' errors through the derivatives (evaluated, with 10% to
    spare), and of the library functions (``UL``, ``_UX``,
    `log_ndtr_bound`, `_erfcx_err`: twice the largest error measured), rounded up.
    tests/test_dp.py checks it against mpmath.

    With ``h = 1/(2q)`` and ``c = eps q`` the two arguments are
    ``a = h - c`` and ``b = -h - c``.  Three evaluations, each where it is
    accurate: :func:`_ld_narrow` where the interval [b, a] is narrow and
    the tails cancel (small epsilon with large sigma, epsilon 0 with tiny
    delta; there ``big = 2h``), :func:`_ld_mills` where ``a < 0``,
    :func:`_ld_tails` where ``a >= 0`` (``big = 1``).
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
    """``log delta`` (arrays of one shape; q finite and positive): for the
    Newton estimate.
    """
    q, eps = np.broadcast_arrays(np.asarray(q, dtype=np.float64), np.asarray(eps, dtype=np.float64))
    big, small, _ = delta_parts(q.ravel(), eps.ravel(), with_err=False)
    with np.errstate(divide="ignore"):
        return (np.log(big) + small).reshape(q.shape)


def gauss_delta(sigma, eps, s):
    """The delta at noise ``sigma`` (arrays of one shape); the edge values
    of :func:`analytic_gaussian_delta`.
    """
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
    """Noise far above the sensitivity, ``q = sigma / S >= 2**1000`` or
    overflowing while sigma is finite (S below 1): 1/(2q) is subnormal or
    0 there, so `delta_parts` cannot take q.  With ``h = 1/(2q)`` and
    ``c = eps q`` (so ``eps = 2 h c``) the delta is ``Phi(h - c) -
    e^(2hc) Phi(-h - c) = 2 h (phi(c) - c Phi(-c)) (1 + r)`` with
    ``|r| = O(hc + h^2 c^4)``, below 2**-390 for ``h <= 2**-600`` and
    ``c <= 2**200``: to that relative error delta is proportional to h at
    fixed c, so ``delta(q, eps) = 2^-k delta(q 2^-k, eps 2^k)`` with
    ``q 2^-k`` near 2**600.  Beyond ``c = 2**200`` delta is below
    ``phi(2**200)``: 0 for every float.

    Returns ``(far, k, sigma_f, eps_f, zero)``: the mask of such entries
    among ``live``, and for them the power k, ``sigma 2^-k`` and ``eps
    2^k`` (``sigma_f / s`` is ``q 2^-k`` rounded as q would be) and the
    mask of those whose delta is 0 (``q = sigma / s`` as the callers form it).
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


def analytic_gaussian_delta(sigma: RealArrayLike, *, epsilon: RealArrayLike,
                            sensitivity: RealArrayLike = 1.0) -> FloatOrArray:
    """The exact delta of the Gaussian mechanism at noise sigma.

    The smallest delta for which adding N(0, sigma^2) noise to a query of
    L2-sensitivity S is (epsilon, delta)-DP (Balle and Wang, ICML 2018,
    Theorem 8):

        delta = Phi(S/(2 sigma) - epsilon sigma/S)
                - e^epsilon Phi(-S/(2 sigma) - epsilon sigma/S)

    evaluated stably: ``e^epsilon Phi(b)`` as ``phi(a) R(-b)`` (R the Mills
    ratio, ``scipy.special.erfcx``: no overflow for large epsilon, no
    ``epsilon + log Phi(b)`` to cancel), the first term in log space
    (``scipy.special.log_ndtr``), and where the two terms nearly cancel
    (small epsilon, large sigma) a Taylor series of the normal density
    instead of their difference.  `analytic_gaussian_sigma` calibrates
    against this evaluation and against a bound on its error.

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
        The delta in [0, 1], broadcast over the inputs: 1 at sigma 0 (with
        S > 0 and finite epsilon), 0 at sigma inf, epsilon inf or S = 0.
        Deltas in the subnormal range are subnormal (to their absolute
        precision), and those below 5e-324 are 0, also where sigma / S
        exceeds the float range while sigma does not.

    Raises
    ------
    ValueError
        For negative or NaN sigma or epsilon, a negative, NaN or infinite
        sensitivity, or inputs that do not broadcast.
    TypeError
        If an argument is not real numbers (a string, complex values).

    See Also
    --------
    analytic_gaussian_sigma : The inverse: the sigma for a delta.

    Notes
    -----
    Accuracy: within about 6e-13 relative over most of the range (delta
    down to 1e-300, against a 200-digit evaluation).  Where both
    ``S/(2 sigma)`` and ``epsilon sigma/S`` are large and nearly equal
    (epsilon of 1e10 and more, with sigma near the calibrated one), delta
    depends on their difference ``a``, and the rounding of the two terms
    (each to 1e-16 of itself) costs a relative ``1e-16 c |d ln delta / da|``
    with ``c = epsilon sigma/S`` (the derivative is about ``|a|`` for ``a``
    far below 0, ``phi(a)/Phi(a)`` in general): 1e-9 at epsilon 1e12 and
    3e-8 at 1e14 near the calibrated sigma, 4e-7 at epsilon 1e20 with delta
    near 1/2.  That is the conditioning of
    delta in its own inputs (a relative change of 1e-16 in sigma or epsilon
    moves delta as much), not a bias: `analytic_gaussian_sigma` certifies
    its answer against a bound that includes these roundings.

    Examples
    --------
    >>> from diffident import analytic_gaussian_delta
    >>> round(analytic_gaussian_delta(1.0, epsilon=1.0), 12)
    0.126936737507
    >>> analytic_gaussian_delta(0.0, epsilon=1.0)
    1.0
    """
    scalar = is_scalar(sigma, epsilon, sensitivity)
    sg, e, s = np.broadcast_arrays(scale_or_limit("sigma", sigma), privacy_epsilon("epsilon", epsilon),
                                   non_negative("sensitivity", sensitivity))
    return ret(gauss_delta(sg, e, s), scalar)
