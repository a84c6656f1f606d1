"""The analytic Gaussian calibration, certified against `delta_parts`' error
bound, and the classic one (`diffident.dp`).
"""

import math
import warnings
from typing import overload

import numpy as np
from scipy.special import ndtri

from .._numerics import search as _search
from .._numerics.floats import U
from .._numerics.shared_docs import shared_docs
from .._numerics.validate import is_scalar, non_negative, privacy_delta, privacy_epsilon, ret
from .._typing import FloatOrArray, RealArrayLike
from ._gaussian_delta import (
    FAR_LOG_MARGIN,
    INV_SQRT_2PI,
    LOG_SQRT_2PI,
    UL,
    delta_parts,
    far_noise,
    log_delta,
    log_ndtr_bound,
    phi_over_ndtr,
)

_LOG_1_25 = math.log(1.25)
_MAX_NEWTON = 100  # Newton gives the estimate only; _search.boundary certifies it


class ClassicGaussianWarning(UserWarning):
    """Warned by `classic_gaussian_sigma` when an epsilon is 1 or more.

    Its calibration is proven only for epsilon < 1 (Dwork and Roth, Theorem
    A.1); `analytic_gaussian_sigma` is exact for every epsilon and never larger.

    See Also
    --------
    analytic_gaussian_sigma : The exact calibration, for every epsilon.

    Examples
    --------
    >>> import warnings
    >>> from diffident import ClassicGaussianWarning, classic_gaussian_sigma
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     _ = classic_gaussian_sigma(2.0, delta=1e-5, sensitivity=1.0)
    >>> issubclass(w[0].category, ClassicGaussianWarning)
    True
    """


# ------------------------------------------------------ the delta and its error bound


# -------------------------------------------------------------------- the calibration


def _sigma_excess(sigma, eps, s, delta, log_delta):
    """``(excess, float_ok)`` for noise sigma (1-d): ``excess`` is an upper bound on
    ``log(exact delta / delta)`` (<= 0 certifies sigma); ``float_ok``: `analytic_gaussian_delta` <= delta.
    """
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        q = sigma / s
    excess = np.where(np.isinf(q), -np.inf, np.inf)
    float_ok = np.isinf(q)
    far, k, sigma_f, eps_f, zero = far_noise(sigma, s, eps, q, q > 0.0)
    if far.any():  # delta(q, eps) = 2^-k delta(q 2^-k, eps 2^k), see far_noise
        j = np.flatnonzero(far)
        with np.errstate(over="ignore"):
            d_f = np.ldexp(delta[j], k)
        # a target 2^k times larger beyond the float range: the delta is
        # below 2 h phi(0) < 2**-1000, and the target above 2**-476
        fits = np.isfinite(d_f) & ~zero
        ex_j = np.full(j.size, -np.inf)
        ok_j = np.ones(j.size, dtype=bool)
        if fits.any():
            f = np.flatnonzero(fits)
            ex_f, ok_j[f] = _sigma_excess(sigma_f[f], eps_f[f], s[j[f]], d_f[f], np.log(d_f[f]))
            ex_j[f] = ex_f + FAR_LOG_MARGIN
        excess[j], float_ok[j] = ex_j, ok_j
    live = np.flatnonzero((q > 0.0) & np.isfinite(q) & ~far)
    if live.size:
        big, small, err = delta_parts(q[live], eps[live])
        d, ld = delta[live], log_delta[live]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
            # log(big / delta): -log(delta) where big is 1, else the log of the
            # quotient (near the answer it is moderate: ln(2h) is not), else
            # the difference of the logarithms (far from it: the sign is clear)
            one = big == 1.0
            r = big / d
            quot = ~one & np.isfinite(r) & (r > 0.0)
            lb = np.log(big)
            lbd = np.where(one, -ld, np.where(quot, np.log(r), lb - ld))
            dlbd = np.where(one, UL * np.abs(ld), np.where(quot, U + UL * np.abs(lbd),
                                                             UL * (np.abs(lb) + np.abs(ld)) + U * np.abs(lbd)))
            g = lbd + small
            ex = g + (err + dlbd + U * np.abs(g))
            # where the two terms cancel completely in floating point (noise
            # far above the answer: c >> h), delta <= Phi(a) decides
            j = np.flatnonzero(~np.isfinite(err))
            if j.size:
                qj, ej = q[live[j]], eps[live[j]]
                h, c = 0.5 / qj, ej * qj
                a = h - c
                la, dla = log_ndtr_bound(a)
                dla = dla + phi_over_ndtr(a, la) * (2 * U * (h + c) + U * np.abs(a))
                exj = la - ld[j] + (dla + UL * np.abs(ld[j]) + U * np.abs(la - ld[j]))
                ex[j] = np.where(la == -np.inf, -np.inf, exj)  # a^2 overflows: Phi(a) < 1e-300000
            excess[live] = np.where(np.isnan(ex), np.inf, ex)
            float_ok[live] = big * np.exp(small) <= d
    return excess, float_ok


def _sigma_passes(sigma, eps, s, delta, log_delta):
    """Whether noise sigma meets delta (1-d): exactly, by the error bound, and in float."""
    excess, float_ok = _sigma_excess(sigma, eps, s, delta, log_delta)
    return (excess <= 0.0) & float_ok


def _upper_start(eps, delta):
    """An upper bound on the analytic sigma for sensitivity 1: where the exact delta is <= delta."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        z = ndtri(delta)
        r = np.sqrt(z * z + 2.0 * eps)
        s1 = np.where(z < 0.0, (r - z) / (2.0 * eps), 1.0 / (r + z))
        # 1/(2 s2) = Phi^-1((1 + delta) / 2), from the exact 1 - delta near 1
        s2 = np.where(delta > 0.5, -0.5 / ndtri(0.5 * (1.0 - delta)), 0.5 / ndtri(0.5 + 0.5 * delta))
        s3 = INV_SQRT_2PI / delta
    s = np.fmin(np.fmin(s1, s2), s3)
    return np.where(np.isnan(s) | (s <= 0.0), np.inf, s)


def _newton_log_scale(eps, delta):
    """Safeguarded Newton on ``t = ln s`` for ``log delta(s) = log(delta)`` (sensitivity 1),
    at most ``_MAX_NEWTON`` steps: an estimate only, certified afterwards.
    """
    logd = np.log(delta)
    t = np.log(_upper_start(eps, delta))
    tlo = np.full(t.shape, -np.inf)
    thi = np.full(t.shape, np.inf)
    act = np.flatnonzero(np.isfinite(t))
    for _ in range(_MAX_NEWTON):
        if act.size == 0:
            break
        ti, e = t[act], eps[act]
        s = np.exp(ti)
        ld = log_delta(s, e)
        g = ld - logd[act]
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            a = 0.5 / s - e * s
            slope = -np.exp(-0.5 * a * a - LOG_SQRT_2PI - ld - ti)
            tn = ti - g / slope
        above = g > 0.0  # delta too large: the root lies at larger t
        lo = np.where(above, np.maximum(tlo[act], ti), tlo[act])
        hi = np.where(above, thi[act], np.minimum(thi[act], ti))
        tlo[act], thi[act] = lo, hi
        tol = 4.0 * np.spacing(np.maximum(np.abs(ti), 1.0))
        # a Newton step below the tolerance: converged (at the noise level
        # of the evaluation the step may point just outside the bracket)
        done = (np.abs(tn - ti) <= tol) | (g == 0.0) | (hi - lo <= tol)
        inside = (tn > lo) & (tn < hi)
        fallback = np.where(np.isfinite(lo) & np.isfinite(hi), 0.5 * (lo + hi),
                            np.where(np.isfinite(lo), lo + 1.0, hi - 1.0))
        tn = np.where(inside | done, tn, fallback)
        t[act] = np.where(np.isfinite(tn), tn, ti)
        act = act[~done]
    return t


def _certified_start(x, eps, s, delta, log_delta):
    """Newton's sigma ``x`` moved by one Newton step, in sigma, to where the
    certified excess crosses 0: a start an ulp or two from the answer.
    """
    with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
        excess, _ = _sigma_excess(x, eps, s, delta, log_delta)
        q = x / s
        a = 0.5 / q - eps * q
        slope = np.exp(-0.5 * a * a - LOG_SQRT_2PI - log_delta) / q  # |d log delta / d ln sigma| at the root
        x1 = x * (1.0 + excess / slope) + 2.0 * np.spacing(x)
    return np.where(np.isfinite(x1) & (x1 > 0.0), x1, x)


def _calibration_args(epsilon, delta, sensitivity):
    """Whether the three arguments are scalars, and the checked arguments broadcast."""
    scalar = is_scalar(epsilon, delta, sensitivity)
    e, d, s = np.broadcast_arrays(privacy_epsilon("epsilon", epsilon), privacy_delta("delta", delta),
                                  non_negative("sensitivity", sensitivity))
    return scalar, e, d, s


@overload
def analytic_gaussian_sigma(epsilon: float, *, delta: float, sensitivity: float = 1.0) -> float: ...


@overload
def analytic_gaussian_sigma(epsilon: RealArrayLike, *, delta: RealArrayLike,
                            sensitivity: RealArrayLike = 1.0) -> FloatOrArray: ...


@shared_docs
def analytic_gaussian_sigma(epsilon: RealArrayLike, *, delta: RealArrayLike,
                            sensitivity: RealArrayLike = 1.0) -> FloatOrArray:
    """The analytic Gaussian mechanism: the smallest sigma for (epsilon, delta)-DP.

    Parameters
    ----------
    epsilon : array_like
        Privacy parameter(s), >= 0 (``inf`` allowed).
    delta : array_like
        Privacy parameter(s), in the open interval (0, 1).
    sensitivity : array_like, optional
        L2-sensitivity S >= 0 of the query (default 1).

    Returns
    -------
    float or ndarray
        The smallest float sigma at which the exact delta (Balle and Wang 2018,
        Theorem 8) and `analytic_gaussian_delta` are both <= delta, certified
        (the DP algorithms page); 0 at epsilon inf or S = 0.

    Raises
    ------
    %(raises_range)s

    See Also
    --------
    analytic_gaussian_delta : The delta that this sigma meets.

    Examples
    --------
    >>> from diffident import analytic_gaussian_sigma
    >>> round(analytic_gaussian_sigma(1.0, delta=1e-5), 10)
    3.7306316348
    """
    scalar, e, d, s = _calibration_args(epsilon, delta, sensitivity)
    shape = e.shape
    e, d, s = e.ravel(), d.ravel(), s.ravel()
    out = np.zeros(e.size)
    live = np.flatnonzero(np.isfinite(e) & (s > 0.0))
    if live.size:
        el, dl, sl = e[live], d[live], s[live]
        t = _newton_log_scale(el, dl)
        ldl = np.log(dl)
        with np.errstate(over="ignore", invalid="ignore"):
            x0 = sl * np.exp(t)
            x0 = np.where(np.isinf(x0), np.exp(t + np.log(sl)), x0)  # q beyond the float range, sigma not
        x0 = np.where(np.isnan(x0), np.inf, x0)
        x0 = _certified_start(x0, el, sl, dl, ldl)
        x, status = _search.boundary(lambda i, x: _sigma_passes(x, el[i], sl[i], dl[i], ldl[i]), x0,
                               increasing=True, lo=0.0, hi=np.inf)
        _search.warn_unconverged(status, "analytic_gaussian_sigma")
        out[live] = np.where(status == _search.NOT_REACHED, np.inf, x)
    return ret(out.reshape(shape), scalar)


@overload
def classic_gaussian_sigma(epsilon: float, *, delta: float, sensitivity: float = 1.0) -> float: ...


@overload
def classic_gaussian_sigma(epsilon: RealArrayLike, *, delta: RealArrayLike,
                           sensitivity: RealArrayLike = 1.0) -> FloatOrArray: ...


@shared_docs
def classic_gaussian_sigma(epsilon: RealArrayLike, *, delta: RealArrayLike,
                           sensitivity: RealArrayLike = 1.0) -> FloatOrArray:
    """The classic Gaussian calibration ``S sqrt(2 ln(1.25/delta)) / epsilon``.

    Parameters
    ----------
    epsilon : array_like
        Privacy parameter(s), >= 0 (``inf`` allowed); proven only below 1.
    delta : array_like
        Privacy parameter(s), in (0, 1).
    sensitivity : array_like, optional
        L2-sensitivity S >= 0 (default 1).

    Returns
    -------
    float or ndarray
        The sigma (Dwork and Roth, Theorem A.1): inf at epsilon 0, 0 at epsilon inf or S = 0.

    Raises
    ------
    %(raises_range)s

    Warns
    -----
    ClassicGaussianWarning
        When any epsilon is >= 1.

    Examples
    --------
    >>> from diffident import classic_gaussian_sigma
    >>> round(classic_gaussian_sigma(0.5, delta=1e-5), 10)
    9.6896105252
    """
    scalar, e, d, s = _calibration_args(epsilon, delta, sensitivity)
    if np.any(e >= 1.0):
        warnings.warn(
            "the classic Gaussian calibration sqrt(2 ln(1.25/delta)) S / epsilon is only proven "
            "for epsilon < 1; use analytic_gaussian_sigma, which is exact for every epsilon",
            ClassicGaussianWarning, stacklevel=2)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # inf beyond the float range
        out = s * np.sqrt(2.0 * (_LOG_1_25 - np.log(d))) / e
    out = np.where(s == 0.0, 0.0, out)
    return ret(out, scalar)

