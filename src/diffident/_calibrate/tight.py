"""The smallest noise scale that keeps the identification risk under rho."""

from typing import overload

import numpy as np

from .._numerics import inversion as _inversion
from .._numerics import search as _search
from .._numerics import validate as _validate
from .._numerics.floats import SUBNORMAL
from .._numerics.shared_docs import shared_docs
from .._risk import dominance as _dominance
from .._risk.closed_form import laplace_scale
from .._risk.expected import Success
from .._risk.worst_case import Risk
from .._typing import AnyNoise, FloatOrArray, RealArrayLike
from .._worlds.values import Worlds


@overload
def tight_scale(values: RealArrayLike, *, rho: float, counts: RealArrayLike | None = None,
                prior: RealArrayLike | None = None,
                rtol: float = 0.0, risk: str = "worst", noise: AnyNoise = "laplace",
                granularity: float = 1.0) -> float: ...


@overload
def tight_scale(values: RealArrayLike, *, rho: RealArrayLike, counts: RealArrayLike | None = None,
                prior: RealArrayLike | None = None,
                rtol: float = 0.0, risk: str = "worst", noise: AnyNoise = "laplace",
                granularity: float = 1.0) -> FloatOrArray: ...


@shared_docs
def tight_scale(values: RealArrayLike, *, rho: RealArrayLike, counts: RealArrayLike | None = None,
                prior: RealArrayLike | None = None,
                rtol: float = 0.0, risk: str = "worst", noise: AnyNoise = "laplace",
                granularity: float = 1.0) -> FloatOrArray:
    """The smallest Laplace scale whose exact worst-case risk is <= rho.

    Parameters
    ----------
    %(values)s
    rho : array_like
        Target risk(s) in [0, 1], any shape.
    %(counts)s
    %(prior)s
    rtol : float, optional
        Stop at this relative bracket width (default 0: adjacent floats).
    risk : {"worst", "expected"}, optional
        The worst case of `worst_case_risk` (default) or the expected
        success of `expected_risk`.
    noise : {"laplace", "gaussian", "discrete_laplace", "discrete_gaussian"}, optional
        The noise (default Laplace; for Gaussian noise the scale is sigma).
    granularity : float, optional
        The lattice spacing of integer noise (default 1).

    Returns
    -------
    float or ndarray
        The scale, shape of ``rho``: its exact risk is at most rho; ``0``
        where no noise is needed, ``inf`` where rho is unattainable.

    Raises
    ------
    ValueError
        For rho outside [0, 1] or NaN, a bad rtol, a noise and risk without
        a calibration, and the bad values, counts and prior of `worst_case_risk`.
    TypeError
        If an argument is not real numbers (a string, a bool, complex values).

    See Also
    --------
    tight_epsilon : The epsilon of this scale.
    scale_for_rho : The paper's (larger) closed-form scale.

    Examples
    --------
    >>> import diffident as di
    >>> toy = [2, 8/3, 3, 10/3, 11/3, 4, 13/3, 14/3]
    >>> round((14/3 - 2) / di.tight_scale(toy, rho=1/3), 9)   # tight epsilon
    2.249596595
    """
    ws = Worlds(values, counts, prior)
    r = _validate.probability("rho", rho)
    rtol = _validate.tolerance("rtol", rtol)
    return _validate.ret(calibrated(ws, r.ravel(), rtol, risk, noise, granularity).reshape(r.shape), r.ndim == 0)


def calibrated(ws, flat, rtol, risk, noise, granularity=1.0):
    """The scale of `tight_scale` for the validated worlds and rho: the
    worst case's (Laplace noise, continuous or on the lattice) or the
    expected success's (``risk``).
    """
    risk, gauss, g = noise_choice(risk, noise, granularity)
    if risk == "worst":
        if g is not None:  # the worst response R = f_j lies on the lattice: the Laplace worst case
            _validate.lattice("values", ws.f, g)
        return smallest_private_scale(ws, flat, rtol)

    lam, status = expected_scale(ws, gauss, flat, rtol, g)
    _search.warn_unconverged(status, "tight_scale")
    return lam


def noise_choice(risk, noise, granularity):
    """``(risk, gauss, g)`` of a calibration's risk and noise, checked: a
    ValueError for the pairs with no calibration (the worst case of
    Gaussian noise; the expected success of the discrete Gaussian).
    """
    risk = _validate.choice("risk", risk, ("worst", "expected"))
    gauss, g = _validate.lattice_noise(noise, granularity)
    if gauss and (risk == "worst" or g is not None):
        if risk == "worst":
            raise ValueError(f"noise={noise!r} has a worst-case risk of 1 at every sigma: calibrate its "
                             "(rho, delta) with gaussian_sigma_for, or its expected success with risk='expected'")
        raise ValueError("noise='discrete_gaussian' with risk='expected': the expected success of the discrete "
                         "Gaussian does not always fall as sigma grows (more integer Gaussian noise is not the "
                         "same noise plus independent noise), so no smallest sigma makes every larger one safe; "
                         "evaluate expected_risk on the sigmas you consider")
    return risk, gauss, g


def smallest_private_scale(ws, flat, rtol):
    """`tight_scale` of a `Worlds` for a validated 1-d array of rho."""
    risk = Risk(ws)
    out = np.full(flat.shape, np.nan)
    # the limits decided exactly: no noise where rho is at least every
    # world's share of its group, none enough where rho is at most the
    # prior's largest share
    zero = ws.share_at_most(flat, "zero")
    out[zero] = 0.0
    out[~zero & ws.share_at_most(flat, "inf")] = np.inf
    todo = np.flatnonzero(np.isnan(out))
    if todo.size:
        rho_t = flat[todo]
        lam, status = smallest_scale(risk, rho_t, rtol)
        out[todo] = no_more_than_the_bound(risk, rho_t, lam, exact_m=not ws.weighted)
        _search.warn_unconverged(status, "tight_scale")
    return out


def no_more_than_the_bound(risk, rho, lam, exact_m):
    """The searched scales, or the paper's closed-form scale where it is
    smaller (and passes the evaluation).
    """
    fs = risk.fs
    if fs.size < 2:
        return lam
    with np.errstate(over="ignore"):
        m_eff = float(risk.W.sum() * risk.invP.min())
    if m_eff == np.inf:  # beyond the float range: the largest float is a lower bound on m
        m_eff = float(np.finfo(np.float64).max)
    if not exact_m:
        m_eff = np.nextafter(np.nextafter(m_eff, 0.0), 0.0)
    with np.errstate(over="ignore"):  # (pad: a bound's allowance for values it stands for)
        spread = np.nextafter(float(np.ldexp(fs[-1] - fs[0], -risk.k)) + risk.pad, np.inf)
    if not (m_eff >= 1.0 and np.isfinite(spread)):
        return lam
    bound = laplace_scale(rho, np.float64(m_eff), np.float64(spread))
    better = np.flatnonzero(np.isfinite(bound) & (bound > 0.0) & (bound < lam))
    if better.size == 0:
        return lam
    lam = lam.copy()
    b = bound[better]
    x, status = _search.boundary(lambda i, x: risk(x, strict=False)[0] <= rho[better[i]], b, increasing=True,
                           lo=float(b.min()), hi=np.inf)
    ok = (status == _search.CONVERGED) & (x < lam[better])
    lam[better[ok]] = x[ok]
    return lam


def guesses(fs, W, rho):
    """Starting scales lo < hi for the search, either side of the answer as
    a rule (the search checks them and grows them if not).
    """
    spread = fs[-1] - fs[0]
    m_eff = W.sum()  # the largest normalised prior is 1
    gaps = np.diff(fs)
    # Upper end: the paper's closed form (valid for a uniform prior;
    # Mathematics page, section 5).  Lower end: the same form with the
    # widest nearest-neighbour gap in place of the spread.
    nn = np.minimum(np.append(gaps, np.inf), np.append(np.inf, gaps)).max()
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        eps = np.log1p((m_eff * rho - 1.0) / (1.0 - rho))
        hi = spread / eps
        lo = nn / eps
    hi = np.where(np.isfinite(hi) & (hi > 0), hi, spread)
    # every factor underflows: rho*(floor) = rho*(0) (one world: any scale)
    floor = gaps.min() / 800.0 if gaps.size else 1.0
    lo = np.where(np.isfinite(lo) & (lo > floor) & (lo < hi), lo, floor)
    return lo, hi


def smallest_scale(risk, rho, rtol):
    """The smallest scale with rho*(scale) <= rho as ``risk`` (a `Risk`)
    evaluates it, for 1/m_eff < rho < rho*(0); and the search status.
    """
    lo, hi = guesses(risk.fs, risk.W, rho)  # in the scaled units
    # a scale passes when its computed risk is below rho by the evaluation's
    # error bound: its exact risk then meets rho too (not only the float)
    with np.errstate(over="ignore", under="ignore"):  # guesses beyond the float range: the search grows them
        lo, hi = np.ldexp(lo, -risk.k), np.ldexp(hi, -risk.k)
    tiny = np.nextafter(0.0, 1.0)  # (a guess that underflowed: the search starts from the least scale)
    lo, hi = np.maximum(lo, tiny), np.maximum(hi, tiny)
    target = _search.below(rho, risk.error)
    if _inversion.applies(target.size, rtol):  # a grid of targets: shared evaluations
        # where one world attains the worst case at every scale, bounds on
        # the computed risk decide most of the checks without a pass
        enc = risk.enclosure() if isinstance(risk, Risk) else None
        bounds = None if enc is None else _dominance.RiskBounds(enc, risk)
        # the risk falls to its value at infinite noise: near it, the
        # per-target search steps on the distance to it
        floor = float(risk(np.array([np.inf]), strict=False)[0][0])
        return _inversion.smallest(lambda x: risk(x, strict=False), target, lo, hi, rtol=rtol, bounds=bounds,
                                   floor=floor)
    return _search.smallest(lambda i, x: risk(x, strict=False)[0], target, lo, hi, rtol=rtol)


@overload
def tight_epsilon(values: RealArrayLike, *, rho: float, counts: RealArrayLike | None = None,
                  prior: RealArrayLike | None = None,
                  rtol: float = 0.0, risk: str = "worst") -> float: ...


@overload
def tight_epsilon(values: RealArrayLike, *, rho: RealArrayLike, counts: RealArrayLike | None = None,
                  prior: RealArrayLike | None = None, rtol: float = 0.0, risk: str = "worst") -> FloatOrArray: ...


@shared_docs
def tight_epsilon(values: RealArrayLike, *, rho: RealArrayLike, counts: RealArrayLike | None = None,
                  prior: RealArrayLike | None = None, rtol: float = 0.0, risk: str = "worst") -> FloatOrArray:
    """Epsilon of the tight calibration: ``ptp(values) / tight_scale(...)``.

    Parameters
    ----------
    %(values)s
    rho : array_like
        Target risk(s) in [0, 1], any shape.
    %(counts)s
    %(prior)s
    rtol : float, optional
        Relative precision of the tight scale, as for `tight_scale`
        (default 0: adjacent floats).
    risk : {"worst", "expected"}, optional
        The risk calibrated, as for `tight_scale` (Laplace noise).

    Returns
    -------
    float or ndarray
        The epsilon, shape of ``rho``: ``inf`` where no noise is needed,
        ``0`` where rho is unattainable or all worlds share one value.

    Raises
    ------
    ValueError
        As for `tight_scale`.
    TypeError
        If an argument is not real numbers (a string, a bool, complex values).

    See Also
    --------
    tight_scale : The scale itself.
    epsilon_for_rho : The paper's epsilon for the same rho.

    Examples
    --------
    >>> import diffident as di
    >>> toy = [2, 8/3, 3, 10/3, 11/3, 4, 13/3, 14/3]
    >>> round(di.tight_epsilon(toy, rho=1/3), 9)
    2.249596595
    """
    ws = Worlds(values, counts, prior)
    r = _validate.probability("rho", rho)
    rtol = _validate.tolerance("rtol", rtol)
    lam = calibrated(ws, r.ravel(), rtol, risk, "laplace").reshape(r.shape)
    fs = ws.groups()[0]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # the spread over the scale, halved first: values near +-1e308
        eps = np.where(fs[-1] == fs[0], 0.0, (0.5 * fs[-1] - 0.5 * fs[0]) / lam * 2.0)
    return _validate.ret(eps, eps.ndim == 0)


def expected_scale(ws, gauss, flat, rtol, granularity=None):
    """The smallest noise scale whose expected success is at most rho, for
    each rho of the 1-d ``flat`` (validated), and the search status.
    """
    ev = Success(ws, gauss, granularity)
    out = np.full(flat.shape, np.nan)
    out[ev.no_noise_at_most(flat)] = 0.0
    out[np.isnan(out) & ws.share_at_most(flat, "inf")] = np.inf
    todo = np.flatnonzero(np.isnan(out))
    status = np.zeros(flat.size, np.int8)
    if todo.size:
        target = _search.below(flat[todo], ev.error)
        lo, hi, f_lo, f_hi = _brackets(ev, target)
        x, st = _search.smallest(lambda i, lam: ev(lam), target, lo, hi, rtol=rtol, f_lo=f_lo, f_hi=f_hi)
        out[todo] = x
        status[todo] = st
        # within the error bound of the unattainable limit no scale can be
        # certified by the evaluation; for Laplace noise the worst case
        # bounds the success from above, and its calibration (which has a
        # closed-form fallback there) gives a scale that provably meets rho
        stuck = todo[st == _search.NOT_REACHED]
        if stuck.size and not gauss:

            out[stuck] = smallest_private_scale(ws, flat[stuck], rtol)
            status[stuck] = _search.CONVERGED
    return out, status


def _brackets(ev, target):
    """Starting brackets for the search, from one batched evaluation on a
    geometric grid of scales (one pass over the values per grid scale,
    shared by every target): the success falls with the scale, so each
    target lies between the last grid scale above it and the first below.
    Guesses only: the search checks both ends (with the success found
    here) and grows them if needed.  Returns the ends and their successes.
    """
    gaps = np.diff(ev.fs)
    with np.errstate(over="ignore"):
        spread = float(ev.fs[-1] - ev.fs[0])
    big = np.finfo(np.float64).max
    lo0 = max(float(gaps.min()) / 64.0, SUBNORMAL)
    hi0 = min(spread * 1e8, big) if np.isfinite(spread) else big
    grid = np.geomspace(lo0, max(hi0, 2.0 * lo0), 48)
    succ = ev(grid)
    # the first grid scale whose success meets each target
    first = np.searchsorted(-succ, -target, side="left")
    below = np.clip(first - 1, 0, grid.size - 1)
    above = np.clip(first, 0, grid.size - 1)
    return grid[below], grid[above], succ[below], succ[above]
