"""`calibrate`: the least noise of a mechanism whose attack measure meets a target."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
from scipy.special import erfinv, ndtri

from .._numerics import search as _search
from .._numerics.validate import in_range, is_scalar, privacy_epsilon, probability, ret, worlds
from .._risk.closed_form import rho_for_epsilon
from .._typing import FloatOrArray, RealArrayLike
from ..dp._gaussian import analytic_gaussian_sigma
from ..dp._gaussian_delta import gauss_delta
from ..dp._integer import div_up
from ..dp._posterior import posterior_bound
from .base import Mechanism, profile_inverse
from .integer import DiscreteGaussian, DiscreteLaplace
from .noise import (
    Gaussian,
    Laplace,
    RandomizedResponse,
    gaussian_tpr,
    laplace_delta,
    laplace_tpr,
)

__all__ = ["calibrate"]

#: measure -> the keyword of its own argument (None: none)
MEASURES: dict[str, str | None] = {
    "advantage": None,
    "tpr_at_fpr": "fpr",
    "posterior": "prior",
    "identification": "m",
    "success": "m",
    "delta": "epsilon",
    "epsilon": "delta",
}

FAMILIES: dict[str, type[Mechanism]] = {
    "laplace": Laplace,
    "gaussian": Gaussian,
    "discrete_laplace": DiscreteLaplace,
    "discrete_gaussian": DiscreteGaussian,
    "randomized_response": RandomizedResponse,
}


def _family(family):
    if isinstance(family, str):
        if family not in FAMILIES:
            raise ValueError(f"family must be a mechanism class or one of {sorted(FAMILIES)}, got {family!r}")
        return FAMILIES[family]
    if not (inspect.isclass(family) and issubclass(family, Mechanism)) or inspect.isabstract(family):
        raise TypeError(f"family must be a mechanism class or a name, got {family!r}")
    return family


def _argument(measure, value):
    """The measure's own argument, checked, as a float."""
    name = MEASURES[measure]
    checks = {"fpr": probability, "prior": probability, "m": worlds, "epsilon": privacy_epsilon,
              "delta": probability}
    a = checks[name](name, value)  # type: ignore[index]
    if a.ndim:
        raise ValueError(f"{name} must be a single number, got shape {a.shape}")
    return float(a)


def _evaluate(mech, measure, arg):
    """The measure of one mechanism value, by its public method."""
    if measure == "advantage":
        return float(mech.advantage())
    if measure == "tpr_at_fpr":
        return float(mech.tpr_at_fpr(arg))
    if measure == "posterior":
        return float(mech.posterior(arg))
    if measure == "identification":
        return float(mech.identification_bound(arg))
    if measure == "success":
        return float(mech.success_bound(arg))
    if measure == "delta":
        return float(mech.delta(arg))
    return float(mech.epsilon(arg))


# ------------------------------------------------------------------ closed forms


def _closed(cls, measure, arg, t, sens):
    """(privacy parameter estimate, vectorised evaluator of the parameter x)
    for the closed-form pairs; None where there is none.  The evaluators
    are the functions the methods call, on the same float operations.
    """
    pure = cls in (Laplace, DiscreteLaplace)
    sens_over = _pure_epsilon(sens)
    if pure and measure in ("posterior", "identification"):
        p = arg if measure == "posterior" else 1.0 / arg
        with np.errstate(divide="ignore", invalid="ignore"):
            eps = np.log(t * (1.0 - p)) - np.log(p * (1.0 - t))
        if measure == "posterior":
            return eps, lambda x: posterior_bound(sens_over(x), prior=p)
        return eps, lambda x: rho_for_epsilon(sens_over(x), m=arg)
    if cls is Laplace:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if measure == "advantage":
                return -2.0 * np.log1p(-t), lambda x: np.clip(laplace_delta(np.zeros(()), sens_over(x)), 0.0, 1.0)
            if measure == "delta":
                return arg - 2.0 * np.log1p(-t), lambda x: np.clip(laplace_delta(arg, sens_over(x)), 0.0, 1.0)
            if measure in ("tpr_at_fpr", "success"):
                a = arg if measure == "tpr_at_fpr" else 1.0 / arg
                low = np.log(t) - np.log(a)  # TPR = e^eps a below the knee (TPR < 1/2)
                mid = -np.log(4.0 * a) - np.log1p(-t)  # 1 - e^-eps / (4 a)
                high = np.log1p(-a) - np.log1p(-t)  # 1 - e^-eps (1 - a)
                eps = np.where(t < 0.5, low, mid) if a <= 0.5 else high
                return eps, lambda x: np.clip(laplace_tpr(a, sens_over(x)), a, 1.0)
    if cls is Gaussian:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if measure == "advantage":
                return 2.0 * np.sqrt(2.0) * erfinv(t), _gaussian_measure("delta", 0.0, sens)
            if measure in ("tpr_at_fpr", "success"):
                a = arg if measure == "tpr_at_fpr" else 1.0 / arg
                low_t = np.where(t > 0.5, ndtri(1.0 - t), -ndtri(t))  # Phi^-1(1 - t), from the small side
                return ndtri(1.0 - a) - low_t, lambda x: np.clip(gaussian_tpr(a, sens / x), a, 1.0)
            if measure in ("posterior", "identification"):  # no pure epsilon: 1 at any noise
                return np.full(t.shape, np.inf), lambda x: np.ones(np.shape(x))
            if measure in ("delta", "epsilon"):  # the analytic Gaussian mechanism's sigma
                return _analytic_mu(measure, arg, t, sens), _gaussian_measure(measure, arg, sens)
    return None


def _analytic_mu(measure, arg, t, sens):
    """mu = Delta / sigma of `analytic_gaussian_sigma` for the targets t (0:
    none; the caller's checks move it to the float that passes).  For
    ``epsilon`` the target is met with the margins of `Mechanism.epsilon`:
    its delta less the profile's relative error, its epsilon 4 ulps up.
    """
    if measure == "delta":
        eps, delta = np.full(t.shape, arg), t
    else:
        eps, delta = t * (1.0 - 2.0**-49), np.full(t.shape, arg * (1.0 - Gaussian._rtol))
    ok = (delta > 0.0) & (delta < 1.0) & np.isfinite(eps)
    sigma = np.asarray(analytic_gaussian_sigma(np.where(ok, eps, 1.0), delta=np.where(ok, delta, 0.5),
                                               sensitivity=sens))
    with np.errstate(divide="ignore"):
        return np.where(ok & (sigma > 0.0), sens / sigma, 0.0)


def _pure_epsilon(sens):
    """``x -> Delta / x`` rounded upward: the pure epsilon of Laplace noise of scale x, as the method gives it."""
    def eps(x):
        with np.errstate(over="ignore"):
            return div_up(np.full(np.shape(x), sens), np.asarray(x, dtype=np.float64))
    return eps


def _gaussian_measure(measure, arg, sens):
    """The Gaussian's measure as a vectorised function of sigma: its
    profile's own function at epsilon ``arg`` (the method's values), or the
    method `Mechanism.epsilon` of each mechanism.
    """
    if measure == "delta":
        return lambda x: gauss_delta(x, np.full(np.shape(x), arg), np.full(np.shape(x), sens))

    def epsilon(x):  # Gaussian(x_i).epsilon(arg) for every x_i at once, by the method's own search
        x = np.ravel(x)
        s = np.full(x.size, sens)
        return profile_inverse(lambda i, e: gauss_delta(x[i], e, s[i]), np.full(x.size, arg), floor=0.0,
                               floor_epsilon=np.inf, rtol=Gaussian._rtol)
    return epsilon


def _fast(cls, measure, arg, t, sens):
    """The least parameter by a closed form, checked and moved up to pass."""
    closed = _closed(cls, measure, arg, t, sens)
    if closed is None:
        return None
    eps, value = closed
    out = np.full(t.shape, np.inf)
    finite = np.isfinite(eps) & (eps > 0.0)
    x = np.full(t.shape, np.inf)
    with np.errstate(over="ignore"):
        x[finite] = div_up(np.full(int(finite.sum()), sens), eps[finite])
    x = np.where(np.isfinite(x) & (x > 0.0), x, np.inf)
    check = np.isfinite(x)
    todo = np.flatnonzero(check)
    for step in range(64):  # the estimate is a few floats off: up until it passes
        if todo.size == 0:
            break
        fails = ~(value(x[todo]) <= t[todo])
        grow = np.nextafter(x[todo[fails]], np.inf)
        x[todo[fails]] = grow if step < 32 else grow * (1.0 + 2.0**-40)
        todo = todo[fails]
    out[check] = x[check]
    out[todo] = np.nan  # (still failing: left to the bisection)
    # where the estimate passes, a float lower may too: step down while it does
    # (not those left to the bisection; not the epsilon of a delta: its estimate carries the
    # method's margins, 1e-12 of delta, and its evaluation is a search)
    down = np.flatnonzero(np.isfinite(out)) if measure != "epsilon" else np.zeros(0, np.intp)
    for _ in range(8):
        if down.size == 0:
            break
        lower = np.nextafter(out[down], 0.0)
        ok = (lower > 0.0) & (value(np.maximum(lower, 5e-324)) <= t[down])  # (0 is no mechanism)
        out[down[ok]] = lower[ok]
        down = down[ok]
    # every float passes (no noise needed) where the target is at the top
    top = (t == np.inf) | (arg >= 1.0) if measure == "epsilon" else t >= 1.0
    out = np.where(top, 0.0, out)
    return out


# ------------------------------------------------------------------ search


def _bisected(cls, measure, arg, target, ctor, rtol):
    """The least noise for each target, searched with `diffident._numerics.search`
    over the public methods (one mechanism per trial value): a bracket
    grown from 1 (`grow`), refined to ``rtol`` (`refine`); every value
    returned passed them.  Noise parameters from 1e-300 (0 where that
    passes) to 1e300 (inf where that fails); for randomized response the
    search runs on ``y = 1 - p`` (p from 1/d to 1: 1 where p = 1 passes,
    NaN where p = 1/d fails).
    """
    rr = cls is RandomizedResponse
    p_min = 1.0 / float(ctor.get("d", 2)) if rr else 0.0

    def param(y):
        return np.maximum(1.0 - y, p_min) if rr else y

    def evaluate(idx, y):
        return np.array([_evaluate(cls(float(v), **ctor), measure, arg) for v in param(np.ravel(y))])

    n = target.size
    out = np.full(n, np.nan)
    live = np.arange(n)
    if rr:  # y = 0 (p = 1, no noise) first: where it fails, the downward search takes f(0) to fail
        free = evaluate(live, np.zeros(n)) <= target
        out[free] = 1.0
        live = live[~free]
        start, down, up, unreached = (1.0 - p_min) / 2.0, 0.0, 1.0 - p_min, (np.nan, np.nan)
    else:
        start, down, up, unreached = 1.0, 1e-300, 1e300, (0.0, np.inf)
    t = target[live]
    y0 = np.full(live.size, start)
    f0 = evaluate(live, y0)
    lo, hi, f_lo, f_hi = y0.copy(), y0.copy(), f0.copy(), f0.copy()
    done = np.zeros(live.size, bool)
    status = np.zeros(live.size, np.int8)
    for going_up, limit, value in ((False, down, unreached[0]), (True, up, unreached[1])):
        i = np.flatnonzero((f0 <= t) != going_up)  # passing at the start: down; failing: up
        if i.size == 0:
            continue
        near, far, f_near, f_far, st = _search.grow(evaluate, t[i], y0[i], up=going_up, limit=limit, f_x=f0[i])
        if going_up:
            lo[i], f_lo[i], hi[i], f_hi[i] = near, f_near, far, f_far
        else:
            lo[i], f_lo[i], hi[i], f_hi[i] = far, f_far, near, f_near
        gone = st == _search.NOT_REACHED
        out[live[i[gone]]] = value
        done[i[gone]] = True
        status[i] = st
    j = np.flatnonzero(~done)
    if j.size:
        _, h, st = _search.refine(evaluate, t[j], lo[j], hi[j], f_lo[j], f_hi[j], rtol=rtol)
        out[live[j]] = param(h)
        status[j] = np.where(status[j] != _search.CONVERGED, status[j], st)
    _search.warn_unconverged(status, "calibrate")
    return out


def calibrate(family: Any, target: RealArrayLike, *, measure: str, rtol: float = 1e-9,
              **fixed: Any) -> FloatOrArray:
    """The least noise whose attack measure stays at or below a target.

    Parameters
    ----------
    family : type or str
        A `Mechanism` class whose first argument is its noise parameter, or
        "laplace", "gaussian", "discrete_laplace", "discrete_gaussian",
        "randomized_response".
    target : array_like
        The targets, each the largest value of the measure allowed.
    measure : {"advantage", "tpr_at_fpr", "posterior", "identification", "success", "delta", "epsilon"}
        The `Mechanism` method to bound (at ``fpr=``, ``prior=``, ``m=``,
        ``epsilon=`` or ``delta=``).
    rtol : float, keyword-only
        The relative width where a bisection stops (default 1e-9).
    **fixed
        The measure's argument and the family's other constructor arguments.

    Returns
    -------
    float or ndarray
        The noise parameter (for randomized response the largest truth
        probability p), shape of ``target``, meeting the target by the
        mechanism's own method: ``0`` where no noise is needed, ``inf``
        where none suffices (for randomized response 1 and ``nan``).

    Raises
    ------
    ValueError
        For an unknown family or measure, a target or argument out of its
        range or NaN, a missing measure argument, or a bad ``rtol``.
    TypeError
        For a family that is not a mechanism class, or constructor
        arguments the family does not take.

    Examples
    --------
    >>> from diffident import Gaussian, Laplace, calibrate
    >>> b = calibrate(Laplace, 0.1, measure="advantage")
    >>> round(b, 4), bool(Laplace(b).advantage() <= 0.1)
    (4.7456, True)
    """
    cls = _family(family)
    if measure not in MEASURES:
        raise ValueError(f"measure must be one of {sorted(MEASURES)}, got {measure!r}")
    name = MEASURES[measure]
    if name is not None and name not in fixed:
        raise TypeError(f"measure {measure!r} needs {name}=")
    arg = _argument(measure, fixed.pop(name)) if name is not None else None
    r = float(rtol)
    if not 0.0 < r < 1.0:
        raise ValueError(f"rtol must lie in (0, 1), got {rtol!r}")
    sc = is_scalar(target)
    t = in_range("target", target, 0.0, np.inf)
    cls(1.0, **fixed)  # the constructor's own checks of the fixed arguments, before any work
    shape = t.shape
    flat = t.reshape(-1)
    sens = float(fixed.get("sensitivity", 1.0))
    out = None
    if set(fixed) <= {"sensitivity"}:
        out = _fast(cls, measure, arg, flat, sens)
    if out is None:
        out = np.full(flat.shape, np.nan)
    todo = np.flatnonzero(np.isnan(out))
    if todo.size:
        out[todo] = _bisected(cls, measure, arg, flat[todo], fixed, r)
    return ret(out.reshape(shape), sc)
