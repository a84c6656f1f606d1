"""(rho, delta)-identifiability under Gaussian noise (MATH.md section 7).

For the true world j and R ~ N(f_j, sigma^2), delta_j(rho) is the
probability that the adversary's posterior of world j exceeds rho.  Since
1/P(w_j | R) is a sum of exponentials of linear functions of R, -log P is
convex: {R : P > rho} is one interval [a, b].  Its ends are found by
bisection on the exact log-posterior (the shifted kernels of the posterior
module) and the normal probability of [a, b] is integrated exactly.
"""

import math

import numpy as np
from scipy.special import ndtr

from . import _validate as V
from ._posterior import _evaluate
from ._worlds import Worlds

__all__ = ["gaussian_delta", "gaussian_sigma_for"]

_GOLD = (math.sqrt(5.0) - 1.0) / 2.0


def _log_post(ws, R, sigma, world):
    _, lr = _evaluate(ws, np.ascontiguousarray(R, float), np.ascontiguousarray(sigma, float),
                      np.ascontiguousarray(world), True, log_risk=True)
    return lr


def _normal_mass(a, b, mu, sigma):
    """P(a < X < b) for X ~ N(mu, sigma^2), without cancellation in a tail."""
    za = (a - mu) / sigma
    zb = (b - mu) / sigma
    upper = za > 0  # both in the upper tail: use the survival function
    return np.where(upper, ndtr(-za) - ndtr(-zb), ndtr(zb) - ndtr(za))


def _deltas(ws, world, rho, sigma):
    """delta for each target (world index, rho, sigma), all 1-d, same length."""
    n = world.size
    f = ws.f
    fj = f[world]
    pj = ws.world_prior(world)
    out = np.zeros(n)
    live = (pj > 0) & (rho < 1.0)
    fs, W, invP = ws.groups()
    lo_v, hi_v = fs[0], fs[-1]
    group_w = W[np.searchsorted(fs, fj).clip(0, fs.size - 1)]
    share = pj / group_w  # the posterior's limit at the end of its own side
    log_rho = np.log(np.where(rho > 0, rho, 1.0))
    zero = live & (rho == 0.0)
    out[zero] = 1.0
    live &= rho > 0.0
    if fs.size == 1:  # one value: the posterior is the constant share
        out[live] = (share[live] > rho[live]).astype(float)
        return out
    is_max = fj == hi_v
    is_min = fj == lo_v
    # a point inside {P > rho}: extremes rise to `share` at their infinity;
    # interior worlds are maximised by golden-section search (log P concave)
    inside = np.full(n, np.nan)
    for side, mask in ((1.0, live & is_max), (-1.0, live & is_min)):
        idx = np.flatnonzero(mask & (share > rho))
        if idx.size:
            x = fj[idx].copy()
            step = sigma[idx].copy()
            for _ in range(2100):
                ok = _log_post(ws, x, sigma[idx], world[idx]) > log_rho[idx]
                inside[idx[ok]] = x[ok]
                idx, x, step = idx[~ok], x[~ok] + side * step[~ok], 2.0 * step[~ok]
                if idx.size == 0:
                    break
    mid = np.flatnonzero(live & ~is_max & ~is_min)
    if mid.size:
        inside[mid] = _argmax_inside(ws, world[mid], fj[mid], sigma[mid], log_rho[mid], lo_v, hi_v)
    todo = np.flatnonzero(np.isfinite(inside))
    if todo.size == 0:
        return out
    a = _edge(ws, world[todo], sigma[todo], log_rho[todo], inside[todo], -1.0,
              infinite=is_min[todo] & (share[todo] > rho[todo]))
    b = _edge(ws, world[todo], sigma[todo], log_rho[todo], inside[todo], 1.0,
              infinite=is_max[todo] & (share[todo] > rho[todo]))
    out[todo] = _normal_mass(a, b, fj[todo], sigma[todo])
    return out


def _argmax_inside(ws, world, fj, sigma, log_rho, lo_v, hi_v):
    """A point where log P > log rho (NaN if none): golden-section search
    on the concave log-posterior, stopped as soon as one point clears rho."""
    n = world.size
    lp = lambda x, i: _log_post(ws, x, sigma[i], world[i])  # noqa: E731
    # bracket [L, U] with log P rising at L and falling at U
    L = np.full(n, lo_v) - sigma
    U = np.full(n, hi_v) + sigma
    idx = np.arange(n)
    for _ in range(200):
        h = (U[idx] - L[idx]) * 1e-3
        rising = lp(L[idx] + h, idx) > lp(L[idx], idx)
        falling = lp(U[idx] - h, idx) > lp(U[idx], idx)
        w = U[idx] - L[idx]
        L[idx] = np.where(rising, L[idx], L[idx] - 2.0 * w)
        U[idx] = np.where(falling, U[idx], U[idx] + 2.0 * w)
        idx = idx[~(rising & falling)]
        if idx.size == 0:
            break
    found = np.full(n, np.nan)
    x1 = U - _GOLD * (U - L)
    x2 = L + _GOLD * (U - L)
    idx = np.arange(n)
    f1 = lp(x1, idx)
    f2 = lp(x2, idx)
    for _ in range(200):
        for x, fx in ((x1, f1), (x2, f2)):
            hit = idx[(fx[idx] > log_rho[idx]) & np.isnan(found[idx])]
            found[hit] = x[hit]
        idx = idx[np.isnan(found[idx]) & (U[idx] - L[idx] > 4.0 * np.spacing(np.abs(U[idx]) + np.abs(L[idx])))]
        if idx.size == 0:
            break
        left = f1[idx] < f2[idx]  # the maximum is right of x1
        i, j = idx[left], idx[~left]
        L[i], x1[i], f1[i] = x1[i], x2[i], f2[i]
        x2[i] = L[i] + _GOLD * (U[i] - L[i])
        f2[i] = lp(x2[i], i)
        U[j], x2[j], f2[j] = x2[j], x1[j], f1[j]
        x1[j] = U[j] - _GOLD * (U[j] - L[j])
        f1[j] = lp(x1[j], j)
    return found


def _edge(ws, world, sigma, log_rho, inside, side, infinite):
    """The end of {P > rho} on one side of a point inside it: bisection to
    adjacent floats between the inside point and a point outside."""
    out = np.where(infinite, side * np.inf, np.nan)
    idx = np.flatnonzero(~infinite)
    if idx.size == 0:
        return out
    lp = lambda x, i: _log_post(ws, x, sigma[i], world[i])  # noqa: E731
    inn = inside.copy()
    outside = inside.copy()
    step = sigma.copy()
    pending = idx
    for _ in range(2100):  # step out until the posterior drops to rho
        outside[pending] = inside[pending] + side * step[pending]
        ok = lp(outside[pending], pending) <= log_rho[pending]
        step[pending[~ok]] *= 2.0
        inn[pending[~ok]] = outside[pending[~ok]]
        pending = pending[~ok]
        if pending.size == 0:
            break
    act = idx
    for _ in range(2100):
        mid = 0.5 * (inn[act] + outside[act])
        conv = (mid == inn[act]) | (mid == outside[act])
        act = act[~conv]
        if act.size == 0:
            break
        mid = 0.5 * (inn[act] + outside[act])
        above = lp(mid, act) > log_rho[act]
        inn[act[above]] = mid[above]
        outside[act[~above]] = mid[~above]
    out[idx] = inn[idx]
    return out


def gaussian_delta(values, rho, sigma, *, counts=None, prior=None, world=None):
    """(rho, delta)-identifiability of a Gaussian release: the delta at sigma.

    delta is the probability, over R ~ N(f_j, sigma^2), that the posterior of
    the true world j exceeds rho (MATH.md section 7).  Since -log P is convex
    in R, the responses where it does form one interval; its ends are found
    to adjacent floats and its normal probability is integrated exactly.

    Parameters
    ----------
    values : array_like, shape (m,)
        Query values of the possible worlds.
    rho : array_like
        Risk bounds in [0, 1].
    sigma : array_like
        Noise standard deviations, finite, in [1e-150, 1e150] (broadcast with
        rho).
    counts : array_like, shape (m,), optional
        Multiplicity of each entry: whole numbers >= 0.
    prior : array_like, shape (m,), optional
        Unnormalised per-world prior weights (>= 0).
    world : int or array_like of int, optional
        The true world(s), indices into ``values`` (broadcast with rho and
        sigma); by default the maximum over every world.

    Returns
    -------
    float or ndarray
        The probability delta in [0, 1], shape
        ``broadcast(rho, sigma[, world])``.

    Raises
    ------
    ValueError
        For bad values, counts or prior (as for `worst_case_risk`), rho
        outside [0, 1], sigma not positive and finite or outside
        [1e-150, 1e150], world out of range, or arguments that do not
        broadcast.
    TypeError
        For a non-integer world, or an argument that is not real numbers.

    See Also
    --------
    gaussian_sigma_for : The smallest sigma for a (rho, delta) target.

    analytic_gaussian_delta : The (epsilon, delta)-DP delta of the same noise.

    Notes
    -----
    The interval's ends are exact to adjacent floats; the cost is a few
    hundred O(m) evaluations of the posterior per target, all targets at
    once; the maximum over worlds evaluates each distinct world once.

    Examples
    --------
    >>> import diffident as di
    >>> # two worlds: delta = Phi(d / (2 sigma) + sigma ln((1 - rho) / rho) / d)
    >>> round(di.gaussian_delta([0.0, 1.0], 0.9, 1.0, world=0), 10)
    0.0448271051
    >>> di.gaussian_delta([0.0, 1.0, 2.0], 0.9, 1.0, world=[0, 1, 2]).round(6)
    array([0.0413, 0.    , 0.0413])
    """
    ws = Worlds(values, counts, prior)
    r = V.in_range("rho", rho, 0.0, 1.0)
    s = V.positive_scale("sigma", sigma)
    if np.any((s < 1e-150) | (s > 1e150)):
        raise ValueError("sigma must lie in [1e-150, 1e150] for Gaussian energies in float64")
    if world is not None:
        w = V.integer_index("world", world, ws.n)
        shape = np.broadcast_shapes(r.shape, s.shape, w.shape)
        rb, sb, wb = (np.broadcast_to(a, shape).ravel() for a in (r, s, w))
        return V.ret(_deltas(ws, wb, rb, sb).reshape(shape), len(shape) == 0)
    shape = np.broadcast_shapes(r.shape, s.shape)
    rb, sb = (np.broadcast_to(a, shape).ravel() for a in (r, s))
    # one representative per distinct (value, per-world prior): equal worlds, equal delta
    live = np.flatnonzero(ws.world_prior(np.arange(ws.n)) > 0)
    keys = np.stack([ws.f[live], ws.world_prior(live)], axis=1)
    _, first = np.unique(keys, axis=0, return_index=True)
    reps = live[first]
    T = rb.size
    wt = np.repeat(reps[None, :], T, axis=0).ravel()
    d = _deltas(ws, wt, np.repeat(rb, reps.size), np.repeat(sb, reps.size))
    return V.ret(d.reshape(T, reps.size).max(axis=1).reshape(shape), len(shape) == 0)


def gaussian_sigma_for(values, rho, delta, *, counts=None, prior=None, world=None, rtol=1e-9):
    """The smallest Gaussian sigma meeting a (rho, delta) target.

    The answer keeps ``gaussian_delta(values, rho, sigma) <= delta`` for the
    true world given (by default for every world).  Bisection on log sigma,
    batched over the targets, returning the upper end of the final bracket:
    ``gaussian_delta(values, rho, result) <= delta`` holds for the returned
    value (conservative, like `tight_scale`).

    Parameters
    ----------
    values : array_like, shape (m,)
        Query values of the possible worlds.
    rho : array_like
        Risk bounds in [0, 1].
    delta : array_like
        Allowed probabilities in (0, 1), broadcast with rho.
    counts : array_like, shape (m,), optional
        Multiplicity of each entry: whole numbers >= 0.
    prior : array_like, shape (m,), optional
        Unnormalised per-world prior weights (>= 0).
    world : int or array_like of int, optional
        The true world (an index into ``values``), or several, all of which
        must meet the target; by default every world.
    rtol : float, optional
        Relative width of the final bracket (default 1e-9).

    Returns
    -------
    float or ndarray
        The sigma, shape ``broadcast(rho, delta)``; 0 where no noise is
        needed (every world's own share of the posterior is at most rho), inf
        where (rho, delta) cannot be met (rho below the prior's largest share
        of a world at infinite noise).

    Raises
    ------
    ValueError
        For bad values, counts or prior (as for `worst_case_risk`), rho
        outside [0, 1], delta outside (0, 1), a negative or non-finite rtol,
        world out of range, or arguments that do not broadcast.
    TypeError
        For a non-integer world, or an argument that is not real numbers.

    See Also
    --------
    gaussian_delta : The delta that this sigma bounds.

    analytic_gaussian_sigma : The sigma for (epsilon, delta)-DP instead.

    Examples
    --------
    >>> import diffident as di
    >>> s = di.gaussian_sigma_for([0.0, 1.0, 2.0], 0.9, 0.05)
    >>> bool(di.gaussian_delta([0.0, 1.0, 2.0], 0.9, s) <= 0.05)
    True
    """
    ws = Worlds(values, counts, prior)
    r = V.in_range("rho", rho, 0.0, 1.0)
    dl = V.in_range("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
    rtol = float(V.in_range("rtol", rtol, 0.0, np.inf, hi_open=True))
    if world is not None:  # checked here too: edge targets never reach gaussian_delta
        V.integer_index("world", world, ws.n)
    shape = np.broadcast_shapes(r.shape, dl.shape)
    rb, db = (np.broadcast_to(a, shape).ravel().copy() for a in (r, dl))
    fs, W, invP = ws.groups()
    share0 = float((1.0 / invP / W).max())  # no noise: own group share
    share_inf = float(1.0 / W.sum())  # infinite noise: the prior's largest share
    out = np.full(rb.shape, np.nan)
    out[rb >= share0] = 0.0
    out[np.isnan(out) & (rb < share_inf)] = np.inf
    todo = np.flatnonzero(np.isnan(out))

    def dmax(sig, i):
        return np.array([gaussian_delta(values, rb[k], s_, counts=counts, prior=prior, world=world)
                         if world is None or np.ndim(world) == 0 else
                         np.max(gaussian_delta(values, rb[k], s_, counts=counts, prior=prior, world=world))
                         for k, s_ in zip(i, sig)])

    if todo.size:
        spread = max(fs[-1] - fs[0], np.finfo(float).tiny)
        hi = np.full(todo.size, spread)
        for _ in range(200):
            bad = dmax(hi, todo) > db[todo]
            if not bad.any():
                break
            hi = np.where(bad, hi * 4.0, hi)
        lo = hi / 4.0
        for _ in range(200):
            good = dmax(lo, todo) <= db[todo]
            if not good.any():
                break
            hi = np.where(good, lo, hi)
            lo = np.where(good, lo / 4.0, lo)
        act = np.arange(todo.size)
        for _ in range(200):
            act = act[hi[act] - lo[act] > rtol * hi[act]]
            if act.size == 0:
                break
            mid = np.sqrt(lo[act] * hi[act])
            ok = dmax(mid, todo[act]) <= db[todo[act]]
            hi[act[ok]] = mid[ok]
            lo[act[~ok]] = mid[~ok]
        out[todo] = hi
    return V.ret(out.reshape(shape), len(shape) == 0)
