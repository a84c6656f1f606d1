"""The paper's closed-form calibration (MATH.md section 3, Lee and Clifton
Theorem 1): the risk bound ``1 / (1 + (m - 1) exp(-S / scale))`` and its
inversions.  All functions broadcast NumPy-style.

Edge values (documented, never errors, so that grid sweeps run through):
``rho >= 1`` needs no noise (scale 0, epsilon inf); ``rho <= 1/m`` cannot
be reached with finite noise (scale inf, epsilon 0: the paper's "infinity").
Calibrations err on the private side: the returned scale (epsilon) is
nudged, by at most a few ulps, until `risk_bound` (`rho_for_epsilon`)
evaluated at it is <= rho.
"""

import numpy as np

from . import _validate as V

__all__ = [
    "epsilon_for_rho",
    "scale_for_rho",
    "rho_for_epsilon",
    "risk_bound",
    "min_rho",
    "effective_worlds",
]

_MAX_NUDGE = 1100  # doubling steps: enough to reach any float


def _m(m):
    a = V.finite("m", m)
    bad = a < 1
    if bad.any():
        raise ValueError(f"m (the number of possible worlds) must be >= 1; {V._where(a, bad)}")
    return a


def _rho(rho):
    return V.in_range("rho", rho, 0.0, 1.0)


def _sensitive_range(s):
    return V.non_negative("sensitive_range", s)


def two_product(a, b):
    """(p, e) with p = fl(a b) and a b == p + e exactly (Dekker's
    two-product, vectorised; e = 0 where the splitting overflows)."""
    p = a * b
    split = 134217729.0  # 2**27 + 1
    with np.errstate(over="ignore", invalid="ignore"):
        c = split * a
        ah = c - (c - a)
        al = a - ah
        c = split * b
        bh = c - (c - b)
        bl = b - bh
        err = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, np.where(np.isfinite(err), err, 0.0)


def _m_rho_minus_one(m, rho):
    """m * rho - 1 with the product carried exactly."""
    p, err = two_product(m, rho)
    return (p - 1.0) + err


def _epsilon_raw(rho, m):
    """ln((m - 1) rho / (1 - rho)) = log1p((m rho - 1) / (1 - rho)) on the
    feasible set 1/m < rho < 1; 0 below it, inf at rho >= 1."""
    num = _m_rho_minus_one(m, rho)
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = np.log1p(num / (1.0 - rho))
    # unattainable: rho at or below min_rho(m) = fl(1/m), so that rho = 1/m
    # typed as a float (0.1 for m = 10, slightly above 1/10) is the edge too
    eps = np.where((num <= 0.0) | (rho <= 1.0 / m), 0.0, eps)
    return np.where(rho >= 1.0, np.inf, eps)


def _bound(scale, m, s):
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ratio = np.where(s == 0.0, 0.0, s / scale)
        return 1.0 / (1.0 + (m - 1.0) * np.exp(-ratio))


def _rho_of_eps(eps, m):
    return 1.0 / (1.0 + (m - 1.0) * np.exp(-eps))


def _nudge(x, bad_fn, up):
    """Move the entries where ``bad_fn(idx, x[idx])`` holds to the private
    side (up for a scale, down for an epsilon) until it no longer holds.

    Steps of 1, 2, 4, ... ulps from the original value: where the check is
    flat in x (rho near 1, where one ulp of epsilon does not change the
    computed risk) the step still reaches a passing value in a few dozen
    tries.  Only the failing entries are revisited.
    """
    x = np.array(x, dtype=np.float64)
    flat = x.reshape(-1)
    idx = np.flatnonzero(bad_fn(np.arange(flat.size), flat))
    start = flat[idx]
    step = np.spacing(np.abs(start))
    sign = 1.0 if up else -1.0
    for _ in range(_MAX_NUDGE):
        if idx.size == 0:
            return x
        trial = start + sign * step
        if not up:
            trial = np.maximum(trial, 0.0)
        flat[idx] = trial
        still = bad_fn(idx, trial)
        idx, start, step = idx[still], start[still], 2.0 * step[still]
    flat[idx] = np.inf if up else 0.0  # not reached in practice; stay private
    return x


def epsilon_for_rho(rho, m):
    """The paper's epsilon for a risk bound rho over m possible worlds.

    ``epsilon = ln((m - 1) rho / (1 - rho))`` (MATH.md eq. 15 with
    ``scale = S / epsilon``): any epsilon-DP Laplace release keeps the
    adversary's posterior of the true world at or below rho.

    Parameters
    ----------
    rho : array_like
        Risk bound(s) in [0, 1].
    m : array_like
        Number of possible worlds (>= 1; need not be an integer, see
        `effective_worlds`).

    Returns
    -------
    float or ndarray
        Epsilon, broadcast over the inputs (a Python float for scalar input).
        ``0`` where ``rho <= 1/m`` (unattainable: the paper's infinite noise),
        ``inf`` where ``rho >= 1``.  Never larger than the exact inverse:
        ``rho_for_epsilon(epsilon_for_rho(rho, m), m) <= rho``.

    Raises
    ------
    ValueError
        If rho is outside [0, 1] or NaN, m is below 1 or not finite, or the
        inputs do not broadcast.
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
    >>> round(di.epsilon_for_rho(1/3, 8), 12)   # the paper's toy example
    1.252762968495
    >>> di.epsilon_for_rho([0.1, 1.0], 8)        # unattainable (<= 1/m), no noise
    array([ 0., inf])
    """
    scalar = V.is_scalar(rho, m)
    r, mm = np.broadcast_arrays(_rho(rho), _m(m))
    eps = _epsilon_raw(r, mm)
    live = ((eps > 0) & np.isfinite(eps)).ravel()
    rf, mf = r.ravel(), mm.ravel()
    eps = _nudge(eps, lambda i, e: live[i] & (_rho_of_eps(e, mf[i]) > rf[i]), up=False)
    return V.ret(eps, scalar)


def scale_for_rho(rho, m, sensitive_range):
    """The paper's Laplace scale for a risk bound rho (MATH.md eq. 15).

    ``scale = S / ln((m - 1) rho / (1 - rho))`` guarantees
    ``risk_bound(scale, m, S) <= rho``.

    Parameters
    ----------
    rho : array_like
        Risk bound(s) in [0, 1].
    m : array_like
        Number of possible worlds (>= 1).
    sensitive_range : array_like
        The query's sensitive range S (>= 0): the largest difference of the
        query between two possible worlds (see `sensitive_range`).

    Returns
    -------
    float or ndarray
        The scale, broadcast over the inputs.  ``inf`` where ``rho <= 1/m``
        (unattainable), ``0`` where ``rho >= 1``; with ``S == 0`` the risk is
        1/m whatever the noise, so the scale is 0 where ``rho >= 1/m`` and inf
        elsewhere.

    Raises
    ------
    ValueError
        For rho outside [0, 1], m < 1, a negative sensitive range, NaN or
        infinities, or inputs that do not broadcast.
    TypeError
        If an argument is not real numbers (a string, complex values).

    See Also
    --------
    tight_scale : The exact (smaller) scale for the worst-case risk.

    risk_bound : The bound that this scale meets.

    Examples
    --------
    >>> import diffident as di
    >>> float(di.scale_for_rho(0.1, 99, 98 / 48842))  # Adult hours-per-week
    0.0008403207231434117
    """
    scalar = V.is_scalar(rho, m, sensitive_range)
    r, mm, s = np.broadcast_arrays(_rho(rho), _m(m), _sensitive_range(sensitive_range))
    eps = _epsilon_raw(r, mm)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.where(eps == 0.0, np.inf, s / eps)
    lam = np.where(r >= 1.0, 0.0, lam)
    zero_s = s == 0.0
    lam = np.where(zero_s, np.where((_m_rho_minus_one(mm, r) >= 0.0) | (r >= 1.0 / mm), 0.0, np.inf), lam)
    live = (np.isfinite(lam) & (lam > 0)).ravel()
    rf, mf, sf = r.ravel(), mm.ravel(), s.ravel()
    lam = _nudge(lam, lambda i, x: live[i] & (_bound(x, mf[i], sf[i]) > rf[i]), up=True)
    return V.ret(lam, scalar)


def rho_for_epsilon(epsilon, m):
    """The risk bound that an epsilon-DP Laplace release guarantees.

    ``rho = 1 / (1 + (m - 1) exp(-epsilon))`` (MATH.md section 3): the
    inverse of `epsilon_for_rho`.

    Parameters
    ----------
    epsilon : array_like
        Privacy parameter(s), >= 0 (``inf`` allowed: no noise, risk 1).
    m : array_like
        Number of possible worlds (>= 1).

    Returns
    -------
    float or ndarray
        The bound rho in [1/m, 1], broadcast over the inputs.

    Raises
    ------
    ValueError
        For negative or NaN epsilon, m < 1 or not finite, or inputs that do
        not broadcast.
    TypeError
        If an argument is not real numbers (a string, complex values).

    See Also
    --------
    posterior_bound : The same bound for an adversary with any prior.

    rho_after_composition : The bound after several releases.

    Examples
    --------
    >>> import diffident as di
    >>> di.rho_for_epsilon(0.0, 4)
    0.25
    >>> round(di.rho_for_epsilon(1.252762968495368, 8), 12)
    0.333333333333
    """
    scalar = V.is_scalar(epsilon, m)
    e, mm = np.broadcast_arrays(V.in_range("epsilon", epsilon, 0.0, np.inf), _m(m))
    return V.ret(_rho_of_eps(e, mm), scalar)


def risk_bound(scale, m, sensitive_range):
    """The paper's upper bound on the identification risk of a Laplace release.

    ``1 / (1 + (m - 1) exp(-S / scale))`` (MATH.md eq. 9): no response and no
    true world gives the adversary a posterior above it.  It is not tight; see
    `worst_case_risk` for the exact worst case.

    Parameters
    ----------
    scale : array_like
        Laplace scale(s), >= 0; 0 means no noise and ``inf`` infinite noise.
    m : array_like
        Number of possible worlds (>= 1).
    sensitive_range : array_like
        Sensitive range S >= 0.

    Returns
    -------
    float or ndarray
        The bound, in [1/m, 1]: 1 at scale 0 (if S > 0), 1/m at scale inf or
        S = 0.

    Raises
    ------
    ValueError
        For negative or NaN scales, m < 1 or not finite, a negative or
        non-finite S, or inputs that do not broadcast.
    TypeError
        If an argument is not real numbers (a string, complex values).

    See Also
    --------
    worst_case_risk : The exact worst-case risk of the same release.

    scale_for_rho : The inverse: the scale for a bound.

    Examples
    --------
    >>> import diffident as di
    >>> round(di.risk_bound(2.128628267061142, 8, 8 / 3), 12)
    0.333333333333
    """
    scalar = V.is_scalar(scale, m, sensitive_range)
    lam, mm, s = np.broadcast_arrays(
        V.scale_or_limit("scale", scale), _m(m), _sensitive_range(sensitive_range)
    )
    return V.ret(_bound(lam, mm, s), scalar)


def min_rho(m):
    """The lowest reachable risk, 1/m (a random guess among m worlds).

    No release, however noisy, pushes the adversary's posterior of the true
    world below a uniform guess: a target ``rho <= min_rho(m)`` gets infinite
    noise from `scale_for_rho` and epsilon 0 from `epsilon_for_rho`.

    Parameters
    ----------
    m : array_like
        Number of possible worlds (>= 1; need not be an integer, see
        `effective_worlds`).

    Returns
    -------
    float or ndarray
        The risk ``1 / m``, shaped like m (a Python float for scalar input).

    Raises
    ------
    ValueError
        If m is below 1, NaN or infinite.
    TypeError
        If m is not real numbers (a string, complex values).

    See Also
    --------
    effective_worlds : The m to use for a non-uniform prior.

    Examples
    --------
    >>> import diffident as di
    >>> di.min_rho(4)
    0.25
    >>> di.min_rho([2, 8])
    array([0.5  , 0.125])
    """
    scalar = V.is_scalar(m)
    return V.ret(1.0 / _m(m), scalar)


def effective_worlds(prior, axis=-1):
    """The number of worlds that a non-uniform prior is worth.

    ``1 / max_j pi_j`` for the normalised prior (MATH.md section 3).
    Substitute it for m in the closed forms: the adversary's risk can never
    fall below the largest prior probability.

    Parameters
    ----------
    prior : array_like
        Unnormalised non-negative prior weights over worlds, along ``axis``.
    axis : int, optional
        The worlds axis (default the last).

    Returns
    -------
    float or ndarray
        The effective number ``sum(prior) / max(prior)`` along the axis, in
        [1, number of worlds].

    Raises
    ------
    ValueError
        For negative, NaN or infinite weights, an empty axis, weights that
        are all zero, or an ``axis`` that is not an integer in range.
    TypeError
        If prior is not real numbers (a string, complex values).

    See Also
    --------
    min_rho : The lowest reachable risk, 1/m.

    Examples
    --------
    >>> import diffident as di
    >>> di.effective_worlds([1, 1, 2])
    2.0
    """
    p = V.finite("prior", prior)
    if p.ndim == 0:
        p = p.reshape(1)
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool) or not -p.ndim <= axis < p.ndim:
        raise ValueError(f"axis must be an integer in [{-p.ndim}, {p.ndim - 1}] for prior of shape {p.shape}, "
                         f"got {axis!r}")
    if p.shape[axis] == 0:
        raise ValueError("prior must not be empty")
    bad = p < 0
    if bad.any():
        raise ValueError(f"prior must be non-negative; {V._where(p, bad)}")
    mx = p.max(axis=axis)
    if np.any(mx == 0):
        raise ValueError("prior must not be all zero")
    out = p.sum(axis=axis) / mx
    return V.ret(out, np.ndim(out) == 0)
