"""The analytic and the classic Gaussian mechanism (`diffident.dp`).

`analytic_gaussian_delta` evaluates the exact delta of the Gaussian
mechanism (Balle and Wang 2018, Theorem 8) stably, in three ways each
where it does not cancel, together with a first-order bound on its error;
`analytic_gaussian_sigma` returns the smallest float sigma at which that
delta, with its bound, is certainly <= delta (a safeguarded Newton
estimate, certified by `diffident._numerics.search.boundary`);
`classic_gaussian_sigma` is Dwork and Roth's calibration.
"""

import math
import warnings
from typing import overload

import numpy as np
from scipy.special import ndtri

from .._numerics import search as _search
from .._numerics.floats import U
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

    The classic calibration ``S sqrt(2 ln(1.25/delta)) / epsilon`` is not
    proven to give (epsilon, delta)-DP for epsilon >= 1 (Dwork and Roth,
    Theorem A.1, needs epsilon < 1).  Use `analytic_gaussian_sigma` there:
    it is exact for every epsilon and never larger.

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
    """``(excess, float_ok)`` for noise sigma (1-d arrays): ``excess`` is an
    upper bound on ``log(exact delta / delta)`` (the computed value plus
    `delta_parts`' error bound and the rounding of the comparison; <= 0
    certifies sigma), ``float_ok`` whether `analytic_gaussian_delta`, as
    the user evaluates it, is <= delta.
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
    """Whether noise sigma meets delta (1-d arrays): the exact delta, by
    `delta_parts`' error bound, and `analytic_gaussian_delta` as the user
    evaluates it.
    """
    excess, float_ok = _sigma_excess(sigma, eps, s, delta, log_delta)
    return (excess <= 0.0) & float_ok


def _upper_start(eps, delta):
    """An upper bound on the analytic sigma for sensitivity 1: the least of
    three scales where the exact delta is <= delta (it is below
    Phi(1/(2s) - eps s), below 2 Phi(1/(2s)) - 1 and below
    1/(s sqrt(2 pi)), and falls with s and with eps).
    """
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
    """Safeguarded Newton on ``t = ln s`` for ``log delta(s) = log(delta)``
    (sensitivity 1), all entries at once, at most ``_MAX_NEWTON`` steps:
    an estimate only (usually within a few ulps of t), which
    `_certified_start` and `diffident._numerics.search.boundary` turn into the
    answer.

    ``d delta / ds = -phi(a) / s^2`` with ``a = 1/(2s) - eps s`` (the two
    Gaussian densities cancel since ``b^2 = a^2 + 2 eps``), so
    ``d log delta / dt = -phi(a) / (s delta)``.  A bracket [lo, hi] is kept
    from the signs seen; a step leaving it is replaced by bisection (or a
    factor e where one side is still open).
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
    """Newton's sigma ``x`` moved to where the certified excess (see
    `_sigma_excess`) crosses 0: one Newton step on it, in sigma itself (not
    its logarithm, whose rounding is worth ``|ln sigma|`` ulps), so that
    `diffident._numerics.search.boundary` starts an ulp or two from its answer.
    """
    with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
        excess, _ = _sigma_excess(x, eps, s, delta, log_delta)
        q = x / s
        a = 0.5 / q - eps * q
        slope = np.exp(-0.5 * a * a - LOG_SQRT_2PI - log_delta) / q  # |d log delta / d ln sigma| at the root
        x1 = x * (1.0 + excess / slope) + 2.0 * np.spacing(x)
    return np.where(np.isfinite(x1) & (x1 > 0.0), x1, x)


def _calibration_args(epsilon, delta, sensitivity):
    """Whether the three arguments of a sigma calibration are scalars, and
    the checked arguments broadcast against each other.
    """
    scalar = is_scalar(epsilon, delta, sensitivity)
    e, d, s = np.broadcast_arrays(privacy_epsilon("epsilon", epsilon), privacy_delta("delta", delta),
                                  non_negative("sensitivity", sensitivity))
    return scalar, e, d, s


@overload
def analytic_gaussian_sigma(epsilon: float, *, delta: float, sensitivity: float = 1.0) -> float: ...


@overload
def analytic_gaussian_sigma(epsilon: RealArrayLike, *, delta: RealArrayLike,
                            sensitivity: RealArrayLike = 1.0) -> FloatOrArray: ...


def analytic_gaussian_sigma(epsilon: RealArrayLike, *, delta: RealArrayLike,
                            sensitivity: RealArrayLike = 1.0) -> FloatOrArray:
    """The analytic Gaussian mechanism: the smallest sigma for (epsilon, delta)-DP.

    Balle and Wang (ICML 2018, Algorithm 1 / Theorem 8): the smallest sigma
    for which adding N(0, sigma^2) noise to a query of L2-sensitivity S is
    (epsilon, delta)-DP, i.e. for which

        Phi(S/(2 sigma) - epsilon sigma/S)
            - e^epsilon Phi(-S/(2 sigma) - epsilon sigma/S) <= delta.

    Exact for every epsilon (the classic ``sqrt(2 ln(1.25/delta))``
    calibration, `classic_gaussian_sigma`, needs epsilon < 1 and is larger
    there by 0.8% or more).  All entries are solved at once: a safeguarded
    Newton iteration on ln(sigma), from an analytic upper bound, gives an
    estimate; the answer is the smallest float from there that passes the
    certified test below, found by ``diffident._numerics.search.boundary``.

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
        The sigma, broadcast over the inputs.  It is conservative: the
        exact delta at the returned sigma is <= delta (the float evaluation
        plus a bound on its error, see Notes), and so is
        `analytic_gaussian_delta` there; it is the smallest float with both
        properties, a few ulps above the exact root (at most 64, a relative
        1.4e-14; typically 10).  Edge values: 0
        where ``epsilon = inf`` or ``S = 0`` (no noise needed); ``inf`` only
        where the answer exceeds the float range (epsilon 0 with a subnormal
        delta).  There is no threshold of delta beyond which sigma is 0:
        every delta < 1 needs noise (as delta -> 1, sigma falls to about
        S/17 at epsilon <= 1 and S/21 at epsilon 50, not to 0), and epsilon 0
        gives the finite sigma of (0, delta)-DP.

    Raises
    ------
    ValueError
        For negative or NaN epsilon, delta outside (0, 1) (delta 0 would
        need infinite noise, delta 1 none), a negative, NaN or infinite
        sensitivity, or inputs that do not broadcast.
    TypeError
        If an argument is not real numbers (a string, complex values).

    See Also
    --------
    analytic_gaussian_delta : The delta that this sigma meets.

    classic_gaussian_sigma : The classic (larger) calibration.

    gaussian_sigma_for : The sigma for (rho, delta)-identifiability.

    Notes
    -----
    The delta is evaluated in three ways, each where it does not cancel
    (see ``delta_parts``), together with a first-order bound on its error
    against the exact delta at the exact ``sigma / S``: the rounding of
    every operation, the arguments' errors through the derivatives, and
    the library functions (``scipy.special.log_ndtr`` and ``erfcx``, NumPy's
    ``exp`` and ``log``) at twice the largest error measured against
    mpmath.  A sigma is returned only where the computed ``log delta`` plus
    that bound is at or below ``log(delta)``; the cost is the bound divided
    by the slope ``|d ln delta / d ln sigma|``, largest where the two terms
    of delta nearly cancel (delta much below ``Phi(S/(2 sigma) - epsilon
    sigma / S)``).  Checked against a 60-digit evaluation over epsilon in
    [0, 1e300] and delta in [5e-324, 1 - 2^-53]: never below the exact root,
    at most 36 ulps above it.  ``dp_accounting.get_sigma_gaussian`` solves
    the same equation by ``scipy.optimize.brentq``, one point at a time, to
    an absolute 1e-12, with a tail evaluation that cancels for small
    epsilon: the two agree to a relative 3e-12 over epsilon in [1e-3, 50]
    and delta in [1e-12, 0.5], the difference being dp-accounting's.

    Examples
    --------
    >>> from diffident import analytic_gaussian_sigma
    >>> round(analytic_gaussian_sigma(1.0, delta=1e-5), 10)
    3.7306316348
    >>> analytic_gaussian_sigma([0.5, 1.0, float("inf")], delta=1e-5,
    ...                         sensitivity=2.0).round(6)
    array([14.063653,  7.461263,  0.      ])
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


def classic_gaussian_sigma(epsilon: RealArrayLike, *, delta: RealArrayLike,
                           sensitivity: RealArrayLike = 1.0) -> FloatOrArray:
    """The classic Gaussian calibration ``S sqrt(2 ln(1.25/delta)) / epsilon``.

    Dwork and Roth (2014), Theorem A.1.  It gives (epsilon, delta)-DP only
    for epsilon < 1: a `ClassicGaussianWarning` is warned when any epsilon
    is >= 1.  Where it holds it is larger than `analytic_gaussian_sigma` by
    0.8% or more (epsilon < 1, any delta), so a few ulps of rounding cannot
    make it unsafe and it is not nudged; prefer the analytic sigma, which is
    exact.

    Parameters
    ----------
    epsilon : array_like
        Privacy parameter(s), >= 0 (``inf`` allowed).
    delta : array_like
        Privacy parameter(s), in (0, 1).
    sensitivity : array_like, optional
        L2-sensitivity S >= 0 (default 1).

    Returns
    -------
    float or ndarray
        The sigma, broadcast over the inputs: ``inf`` at epsilon 0 (with
        S > 0), 0 at epsilon inf or S = 0.

    Raises
    ------
    ValueError
        For negative or NaN epsilon, delta outside (0, 1), a negative, NaN
        or infinite sensitivity, or inputs that do not broadcast.
    TypeError
        If an argument is not real numbers (a string, complex values).

    Warns
    -----
    ClassicGaussianWarning
        When any epsilon is >= 1.

    See Also
    --------
    analytic_gaussian_sigma : The exact (smaller) calibration.

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

