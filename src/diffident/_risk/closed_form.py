"""The paper's closed-form bound and its inversions (Lee and Clifton, Theorem 1;
Mathematics page, section 3), in double-double rounded once: see risk.md.
"""

from typing import overload

import numpy as np

from .._numerics import dd as _dd
from .._numerics import search as _search
from .._numerics import validate as _validate
from .._numerics.shared_docs import shared_docs
from .._typing import FloatOrArray, RealArrayLike

__all__ = ["epsilon_for_rho", "scale_for_rho", "rho_for_epsilon", "risk_bound"]

# Relative margin between a calibration and its double-double inverse, which
# is within about 2^-98 of the exact value (the elementary functions of _dd
# are within 2^-100, tested against mpmath): a factor of 1000 to spare.
MARGIN = 2.0**-88
# Below this epsilon the bound is 1/m (or the prior) correctly rounded: 1/m
# is at least 2^-107 (relative) from the midpoint of two floats, and epsilon
# moves the bound by a relative epsilon at most.
TINY_EPS = 2.0**-200


# ------------------------------------------------------------------ the bound --

def log_m1(m):
    """``ln(m - 1)`` as a double-double, any shape; ``-inf`` where m is 1."""
    m = np.asarray(m, dtype=np.float64)
    h, l = _dd.two_sum(m, -1.0)  # m - 1 exactly
    lh, ll = np.full(m.shape, -np.inf), np.zeros(m.shape)
    pos = h > 0.0
    if pos.any():
        with np.errstate(all="ignore"):
            lh[pos], ll[pos] = _dd.blockwise(_dd.log, h[pos], l[pos])
    return lh, ll


def bound(eh, el, lh, ll, floor):
    """``1 / (1 + e^(L - eps))`` for 1-d arrays, rounded to nearest; ``floor`` below `TINY_EPS`."""
    out = np.where(eh < TINY_EPS, floor, 1.0)
    live = np.flatnonzero((eh >= TINY_EPS) & np.isfinite(eh) & (lh > -np.inf))
    if live.size:
        def core(eh, el, lh, ll):
            return _dd.ldexp_round(*bound_dd(*_dd.add(lh, ll, -eh, -el)))

        with np.errstate(all="ignore"):
            out[live] = _dd.blockwise(core, eh[live], el[live], lh[live], ll[live])
    return out


def bound_dd(th, tl):
    """``1 / (1 + e^t)`` for a finite double-double t, as ``(h + l) 2^q``."""
    pos = th > 0.0
    ah, al = np.where(pos, -th, th), np.where(pos, -tl, tl)  # -|t|
    vh, vl, q = _dd.exp_parts(ah, al)  # e^-|t| = (vh + vl) 2^q, q <= 0
    with np.errstate(under="ignore"):
        wh, wl = np.ldexp(vh, q), np.ldexp(vl, q)
    dh, dl = _dd.add_d(wh, wl, 1.0)  # 1 + e^-|t|
    nh, nl = np.where(pos, vh, 1.0), np.where(pos, vl, 0.0)
    h, l = _dd.div(nh, nl, dh, dl)
    return h, l, np.where(pos, q, 0)


def ratio(s, lam):
    """``s / lam`` as a double-double for 1-d arrays ``s, lam >= 0`` (inf or 0 at the limits)."""
    sf, se = np.frexp(s)
    lf, le = np.frexp(lam)
    with np.errstate(all="ignore"):
        qh, ql = _dd.div(sf, np.zeros_like(sf), lf, np.zeros_like(lf))
        k = (se - le).astype(np.int64)
        k = np.clip(k, -2200, 2200)
        eh, el = np.ldexp(qh, k), np.ldexp(ql, k)
    zero = (s == 0.0) | np.isinf(lam)
    inf = ~zero & ((lam == 0.0) | np.isinf(eh))
    eh = np.where(zero, 0.0, np.where(inf, np.inf, eh))
    el = np.where(zero | inf, 0.0, el)
    return eh, el


def flat_broadcast(*arrays):
    """Broadcast to one shape; the shape and the raveled arrays."""
    b = np.broadcast_arrays(*arrays)
    return b[0].shape, [np.ascontiguousarray(a).ravel() for a in b]


def _rho_of_eps(e, m):
    """The bound at epsilon e over m worlds (validated arrays, broadcast)."""
    lh, ll = log_m1(m)
    shape, (e, m, lh, ll) = flat_broadcast(e, m, lh, ll)
    return bound(e, np.zeros_like(e), lh, ll, 1.0 / m).reshape(shape)


def rho_up(e, m):
    """The bound at epsilon e over m worlds rounded upward, certified through its inverse."""
    lh, ll = log_m1(m)
    shape, (e, m, lh, ll) = flat_broadcast(e, m, lh, ll)
    out = np.where(e == 0.0, _inv_up(m), 1.0)
    live = np.flatnonzero((e > 0.0) & np.isfinite(e) & (m > 1.0))
    if live.size:
        el, ml = e[live], m[live]
        f0 = bound(el, np.zeros_like(el), lh[live], ll[live], 1.0 / ml)

        def passes(i, f):
            ok = f >= 1.0
            with np.errstate(all="ignore"):
                nh, nl = m_rho_minus_one(ml[i], f)
            j = np.flatnonzero(((nh > 0.0) | ((nh == 0.0) & (nl > 0.0))) & (f < 1.0))  # 1/m < f < 1
            if j.size:
                h, l = _eps_star(f[j], ml[i[j]])
                ok[j] = _dd.le(el[i[j]], h, l - MARGIN * h)
            return ok

        f, status = _search.boundary(passes, f0, increasing=True, lo=0.0, hi=1.0)
        _search.warn_unconverged(status, "rho_after_composition")
        out[live] = np.where(status == _search.NOT_REACHED, 1.0, f)
    return out.reshape(shape)


def _inv_up(m):
    """``1/m`` rounded upward (1-d, m >= 1)."""
    r = 1.0 / m
    mf, me = np.frexp(m)
    rf, re = np.frexp(r)
    p, e = _dd.two_prod(mf, rf)
    one = np.ldexp(1.0, -(me + re))  # 1 in the scale of mf * rf
    return np.where((one - p) - e > 0.0, np.nextafter(r, np.inf), r)


def _risk(lam, m, s, lh, ll):
    """`risk_bound` for 1-d arrays, ``lh, ll = log_m1(m)``."""
    eh, el = ratio(s, lam)
    return bound(eh, el, lh, ll, 1.0 / m)


# ---------------------------------------------------------------- inverses --

def m_rho_minus_one(m, rho):
    """``m rho - 1`` as an exact double-double (1-d, ``m rho >= 1/2``)."""
    mf, me = np.frexp(m)
    rf, re = np.frexp(rho)
    p, e = _dd.two_prod(mf, rf)
    k = me + re
    with np.errstate(all="ignore"):
        return _dd.add_d(np.ldexp(p, k), np.ldexp(e, k), -1.0)


def log_ratio(nh, nl, dh, dl, logs=None):
    """``ln(1 + n/d)`` as a double-double for positive double-doubles n and d."""
    with np.errstate(all="ignore"):
        xh, xl = _dd.div(nh, nl, dh, dl)
        big = ~(xh < 2.0**1000)
        oh, ol = _dd.blockwise(_dd.log1p, np.where(big, 1.0, xh), np.where(big, 0.0, xl))
        i = np.flatnonzero(big)
        if i.size:
            if logs is None:
                ah, al = _dd.log(nh[i], nl[i])
                bh, bl = _dd.log(dh[i], dl[i])
                oh[i], ol[i] = _dd.add(ah, al, -bh, -bl)
            else:
                oh[i], ol[i] = logs(i)
    return oh, ol


def _eps_star(rho, m):
    """The exact ``ln((m - 1) rho / (1 - rho))`` as a double-double (1/m < rho < 1)."""
    nh, nl = m_rho_minus_one(m, rho)
    dh, dl = _dd.two_sum(1.0, -rho)  # 1 - rho exactly
    return log_ratio(nh, nl, dh, dl)


def largest_below(check, h, l, what):
    """The largest float ``x <= (h + l)(1 - MARGIN)`` with ``check(idx, x)``; 0 if none."""
    lm = l - MARGIN * h
    x0 = np.maximum(np.where(lm >= 0.0, h, np.nextafter(h, -np.inf)), 0.0)
    return _certified(check, lambda i, x: _dd.le(x, h[i], lm[i]), x0, False, what)


def smallest_above(check, h, l, k, what):
    """The smallest float ``x >= (h + l)(1 + MARGIN) 2^k`` with ``check(idx, x)``; inf if none."""
    lu = l + MARGIN * h
    with np.errstate(over="ignore", under="ignore"):
        x0 = np.ldexp(np.where(lu <= 0.0, h, np.nextafter(h, np.inf)), k)

    def beyond(i, x):
        with np.errstate(over="ignore", under="ignore"):
            return _dd.ge(np.ldexp(x, -k[i]), h[i], lu[i])

    return _certified(check, beyond, x0, True, what)


def _certified(check, first, x0, increasing, what):
    """The boundary search of `largest_below` and `smallest_above` from ``x0``."""

    def passes(i, x):
        ok = first(i, x)
        j = np.flatnonzero(ok)
        if j.size:
            ok[j] = check(i[j], x[j])
        return ok

    x, status = _search.boundary(passes, x0, increasing=increasing, lo=0.0, hi=np.inf)
    _search.warn_unconverged(status, what)
    return np.where(status == _search.NOT_REACHED, np.inf if increasing else 0.0, x)


@overload
def epsilon_for_rho(rho: float, *, m: float) -> float: ...


@overload
def epsilon_for_rho(rho: RealArrayLike, *, m: RealArrayLike) -> FloatOrArray: ...


def epsilon_for_rho(rho: RealArrayLike, *, m: RealArrayLike) -> FloatOrArray:
    """The paper's epsilon for a risk bound rho over m worlds (Mathematics page, eq. 3.3).

    Parameters
    ----------
    rho : array_like
        Risk bound(s) in [0, 1].
    m : array_like
        Number of possible worlds (>= 1; need not be an integer).

    Returns
    -------
    float or ndarray
        Epsilon, never above the exact inverse; 0 if rho <= 1/m, inf if rho = 1.

    Raises
    ------
    ValueError
        If rho is outside [0, 1] or NaN, m < 1 or not finite, or no broadcast.
    TypeError
        If an argument is not real numbers (a string, complex values).

    See Also
    --------
    scale_for_rho : The Laplace scale ``S / epsilon`` for a sensitive range S.
    rho_for_epsilon : The inverse: the risk bound of an epsilon.
    epsilon_per_release : The epsilon of each of k releases.

    Examples
    --------
    >>> import diffident as di
    >>> round(di.epsilon_for_rho(1/3, m=8), 12)   # the paper's toy example
    1.252762968495
    """
    scalar = _validate.is_scalar(rho, m)
    return _validate.ret(laplace_epsilon(_validate.probability("rho", rho), _validate.worlds("m", m)), scalar)


def laplace_epsilon(r, mm):
    """`epsilon_for_rho` on validated float64 arrays that broadcast."""
    shape, (r, mm, lh, ll) = flat_broadcast(r, mm, *log_m1(mm))
    eps = np.where(r >= 1.0, np.inf, 0.0)
    live = _feasible(r, mm)
    if live.size:
        rl, ml, lh, ll = r[live], mm[live], lh[live], ll[live]
        h, l = _eps_star(rl, ml)

        def check(i, x):
            return bound(x, np.zeros_like(x), lh[i], ll[i], 1.0 / ml[i]) <= rl[i]

        eps[live] = largest_below(check, h, l, "epsilon_for_rho")
    return eps.reshape(shape)


def _feasible(r, mm):
    """Indices of the 1-d entries with ``1/m < rho < 1``, exactly and as rounded."""
    with np.errstate(all="ignore"):
        cand = np.flatnonzero((r < 1.0) & (r > 1.0 / mm))
    if cand.size:
        nh, nl = m_rho_minus_one(mm[cand], r[cand])
        cand = cand[(nh > 0.0) | ((nh == 0.0) & (nl > 0.0))]
    return cand


@overload
def scale_for_rho(rho: float, *, m: float, sensitive_range: float) -> float: ...


@overload
def scale_for_rho(rho: RealArrayLike, *, m: RealArrayLike, sensitive_range: RealArrayLike) -> FloatOrArray: ...


@shared_docs
def scale_for_rho(rho: RealArrayLike, *, m: RealArrayLike, sensitive_range: RealArrayLike) -> FloatOrArray:
    """The paper's Laplace scale for a risk bound rho (Mathematics page, eq. 3.2).

    Parameters
    ----------
    rho : array_like
        Risk bound(s) in [0, 1].
    %(m_worlds)s
    sensitive_range : array_like
        The query's sensitive range S (>= 0), see `sensitive_range`.

    Returns
    -------
    float or ndarray
        The scale; inf where rho <= 1/m (unattainable), 0 where rho = 1.

    Raises
    ------
    ValueError
        For rho outside [0, 1], m < 1, S < 0, NaN, infinities or no broadcast.
    TypeError
        If an argument is not real numbers (a string, complex values).

    See Also
    --------
    tight_scale : The exact (smaller) scale for the worst-case risk.
    risk_bound : The bound that this scale meets.

    Examples
    --------
    >>> import diffident as di
    >>> # Adult hours-per-week
    >>> float(di.scale_for_rho(0.1, m=99, sensitive_range=98 / 48842))
    0.0008403207231434117
    """
    scalar = _validate.is_scalar(rho, m, sensitive_range)
    r, mm = _validate.probability("rho", rho), _validate.worlds("m", m)
    s = _validate.non_negative("sensitive_range", sensitive_range)
    return _validate.ret(laplace_scale(r, mm, s), scalar)


def laplace_scale(r, mm, s):
    """`scale_for_rho` on validated float64 arrays that broadcast."""
    shape, (r, mm, s, lh, ll) = flat_broadcast(r, mm, s, *log_m1(mm))
    lam = np.where(r >= 1.0, 0.0, np.inf)
    with np.errstate(all="ignore"):
        nh, nl = m_rho_minus_one(mm, r)
        reach = (nh > 0.0) | ((nh == 0.0) & (nl >= 0.0)) | (r >= 1.0 / mm)
    # S = 0: the risk is 1/m whatever the noise
    lam = np.where(s == 0.0, np.where(reach, 0.0, np.inf), lam)
    live = _feasible(r, mm)
    live = live[s[live] > 0.0]
    if live.size:
        rl, ml, sl, lh, ll = r[live], mm[live], s[live], lh[live], ll[live]
        h, l = _eps_star(rl, ml)
        sf, se = np.frexp(sl)
        with np.errstate(all="ignore"):
            qh, ql = _dd.div(sf, np.zeros_like(sf), h, l)  # S / epsilon, scaled by 2^-se

        def check(i, x):
            return _risk(x, ml[i], sl[i], lh[i], ll[i]) <= rl[i]

        lam[live] = smallest_above(check, qh, ql, se, "scale_for_rho")
    return lam.reshape(shape)


@overload
def rho_for_epsilon(epsilon: float, *, m: float) -> float: ...


@overload
def rho_for_epsilon(epsilon: RealArrayLike, *, m: RealArrayLike) -> FloatOrArray: ...


@shared_docs
def rho_for_epsilon(epsilon: RealArrayLike, *, m: RealArrayLike) -> FloatOrArray:
    """The risk bound that an epsilon-DP Laplace release guarantees (eq. 3.3).

    Parameters
    ----------
    epsilon : array_like
        Privacy parameter(s), >= 0 (``inf`` allowed: no noise, risk 1).
    %(m_worlds)s

    Returns
    -------
    float or ndarray
        The bound rho in [1/m, 1], broadcast over the inputs.

    Raises
    ------
    ValueError
        For negative or NaN epsilon, m < 1 or not finite, or no broadcast.
    TypeError
        If an argument is not real numbers (a string, complex values).

    See Also
    --------
    posterior_bound : The same bound for an adversary with any prior.
    rho_after_composition : The bound after several releases.

    Examples
    --------
    >>> import diffident as di
    >>> di.rho_for_epsilon(0.0, m=4)
    0.25
    """
    scalar = _validate.is_scalar(epsilon, m)
    e = _validate.in_range("epsilon", epsilon, 0.0, np.inf)
    return _validate.ret(_rho_of_eps(e, _validate.worlds("m", m)), scalar)


@overload
def risk_bound(scale: float, *, m: float, sensitive_range: float) -> float: ...


@overload
def risk_bound(scale: RealArrayLike, *, m: RealArrayLike, sensitive_range: RealArrayLike) -> FloatOrArray: ...


@shared_docs
def risk_bound(scale: RealArrayLike, *, m: RealArrayLike, sensitive_range: RealArrayLike) -> FloatOrArray:
    """The paper's upper bound on the risk of a Laplace release (Mathematics page, eq. 3.1).

    Parameters
    ----------
    scale : array_like
        Laplace scale(s), >= 0; 0 means no noise and ``inf`` infinite noise.
    %(m_worlds)s
    sensitive_range : array_like
        Sensitive range S >= 0.

    Returns
    -------
    float or ndarray
        The bound, in [1/m, 1].

    Raises
    ------
    ValueError
        For negative or NaN scales, bad m or S, or inputs that do not broadcast.
    TypeError
        If an argument is not real numbers (a string, complex values).

    See Also
    --------
    worst_case_risk : The exact worst-case risk of the same release.
    scale_for_rho : The inverse: the scale for a bound.

    Examples
    --------
    >>> import diffident as di
    >>> round(di.risk_bound(2.128628267061142, m=8, sensitive_range=8 / 3), 12)
    0.333333333333
    """
    scalar = _validate.is_scalar(scale, m, sensitive_range)
    lam, mm = _validate.scale_or_limit("scale", scale), _validate.worlds("m", m)
    return _validate.ret(laplace_risk(lam, mm, _validate.non_negative("sensitive_range", sensitive_range)), scalar)


def laplace_risk(lam, mm, s):
    """`risk_bound` on validated float64 arrays that broadcast."""
    shape, (lam, mm, s, lh, ll) = flat_broadcast(lam, mm, s, *log_m1(mm))
    return _risk(lam, mm, s, lh, ll).reshape(shape)


