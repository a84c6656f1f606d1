"""The exact worst-case identification risk of a Laplace release (MATH.md
section 4) and the tight calibration that inverts it (section 5)."""

import numba
import numpy as np

from . import _validate as V
from ._kernels import worstcase as K
from ._worlds import Worlds

__all__ = ["worst_case_risk", "tight_scale", "tight_epsilon"]

_BLOCK_BYTES = 1 << 28  # work memory allowed for the blocked kernel


class _Evaluator:
    """rho*(scale) over one merged world set, for batches of 1/scale."""

    def __init__(self, fs, W, invP):
        self.fs, self.W, self.invP = fs, W, invP
        u = fs.size
        self.nw = numba.get_num_threads()
        self.nl = max(1, (u - 1) // K.K)  # links between sub-blocks
        self.blocked_ok = self.nw * (u * 2 + self.nl * 3) * K.BLOCK * 8 <= _BLOCK_BYTES
        self._one = None
        self._blk = None

    def __call__(self, inv):
        """rho* and the argmax group, for a 1-d float64 array of 1/scale."""
        k = inv.size
        out = np.empty(k)
        arg = np.empty(k, np.int64)
        u = self.fs.size
        if k >= K.BLOCK and self.blocked_ok:
            nb = -(-k // K.BLOCK)
            pad = np.empty(nb * K.BLOCK)
            pad[:k] = inv
            pad[k:] = inv[-1]
            o = np.empty(pad.size)
            a = np.empty(pad.size, np.int64)
            nw = min(self.nw, nb)
            if self._blk is None or self._blk[0].shape[0] < nw:
                self._blk = (np.empty((nw, u, 2 * K.BLOCK)), np.empty((nw, self.nl, 3 * K.BLOCK)),
                             np.empty((nw, 13 * K.BLOCK)))
            Z, LK, C = self._blk
            K.worst_case_blocks_parallel(self.fs, self.W, self.invP, pad, o, a, Z[:nw], LK[:nw], C[:nw])
            out[:] = o[:k]
            arg[:] = a[:k]
        else:
            if self._one is None:
                self._one = (np.empty((2, u)), np.empty((self.nl, 3)), np.empty(K.NF), np.empty(K.NB))
            K.worst_case_scales(self.fs, self.W, self.invP, inv, out, arg, *self._one)
        return out, arg


def _inverse_scale(lam):
    with np.errstate(divide="ignore"):
        return np.ascontiguousarray(1.0 / lam, dtype=np.float64).ravel()


def worst_case_risk(values, scale, *, counts=None, prior=None, return_world=False):
    """The exact worst-case identification risk of a Laplace release.

    ``rho*(scale) = max_j pi_j / sum_k c_k pi_k exp(-|f_j - f_k| / scale)``:
    the largest posterior any world can reach, over every response and every
    true world (MATH.md section 4).  It is attained at ``R = f_j``.

    Parameters
    ----------
    values : array_like, shape (m,)
        Query values f(w) of the possible worlds (repeats allowed).
    scale : array_like
        Laplace scale(s), any shape, evaluated together in one pass over the
        sorted values.  ``0`` (no noise) and ``inf`` are allowed and give the
        limits ``max_j pi_j / (weight of the worlds sharing f_j)`` and
        ``max pi / sum c pi`` (= 1/m for a uniform prior).
    counts : array_like, shape (m,), optional
        Multiplicity of each entry: whole numbers >= 0.
    prior : array_like, shape (m,), optional
        Unnormalised per-world prior weights (>= 0).
    return_world : bool, optional
        Also return the index into ``values`` of a world attaining the
        maximum (default False).

    Returns
    -------
    risk : float or ndarray
        The worst-case risk, shape of ``scale``; between 1/m_eff and 1.
    world : int or ndarray of int64
        Only with ``return_world``: the index of a world attaining it.

    Raises
    ------
    ValueError
        For empty, multi-dimensional, NaN or infinite values, negative or NaN
        scales, bad counts or prior (negative, not whole counts, wrong
        length, all zero).
    TypeError
        If an argument is not real numbers (a string, complex values).

    See Also
    --------
    tight_scale : The smallest scale whose worst-case risk meets a target.

    risk_bound : The paper's (looser) closed-form bound.

    multi_worst_case_risk : The same for several releases.

    Notes
    -----
    Cost: an O(m log m) sort, then O(u) per scale for u distinct values,
    with every factor in [0, 1] (no overflow, no cancellation).  The dense
    O(m^2) formula gives the same numbers.

    Examples
    --------
    >>> import diffident as di
    >>> toy = [2, 8/3, 3, 10/3, 11/3, 4, 13/3, 14/3]   # paper sec. 4, means
    >>> round(di.worst_case_risk(toy, 2.128628267061142), 6)
    0.229438
    >>> di.worst_case_risk(toy, [0.0, float("inf")])     # the limits: 1 and 1/m
    array([1.   , 0.125])
    """
    ws = Worlds(values, counts, prior)
    lam = V.scale_or_limit("scale", scale)
    groups = ws.groups(need_rep=return_world)
    rho, arg = _Evaluator(*groups[:3])(_inverse_scale(lam))
    rho = rho.reshape(lam.shape)
    scalar = lam.ndim == 0
    if not return_world:
        return V.ret(rho, scalar)
    world = groups[3][arg].reshape(lam.shape)
    return V.ret(rho, scalar), (int(world) if scalar else world)


def tight_scale(values, rho, *, counts=None, prior=None, rtol=0.0):
    """The smallest Laplace scale whose exact worst-case risk is <= rho.

    A safeguarded root search on log(scale) (Anderson-Bjorck regula falsi
    with bisection steps), batched over every rho at once (each step is one
    pass over the sorted values for all unfinished targets).  The answer
    is the upper end of the final bracket, so that
    ``worst_case_risk(values, tight_scale(values, rho)) <= rho`` always holds
    as computed by this library: it errs on the private side.

    Parameters
    ----------
    values : array_like, shape (m,)
        Query values of the possible worlds.
    rho : array_like
        Target risk(s) in [0, 1], any shape.
    counts : array_like, shape (m,), optional
        Multiplicity of each entry: whole numbers >= 0.
    prior : array_like, shape (m,), optional
        Unnormalised per-world prior weights (>= 0).
    rtol : float, optional
        Stop when the bracket is within this relative width.  ``0`` (the
        default) bisects until its two ends are adjacent floats.

    Returns
    -------
    float or ndarray
        The scale, shape of ``rho``.  ``0`` where rho >= worst_case_risk(values, 0)
        (no noise needed, e.g. every value repeated 1/rho times), ``inf``
        where rho <= worst_case_risk(values, inf) = 1/m_eff (unattainable).

    Raises
    ------
    ValueError
        For rho outside [0, 1] or NaN, a negative or non-finite rtol, and
        the bad values, counts and prior of `worst_case_risk`.
    TypeError
        If an argument is not real numbers (a string, complex values).

    See Also
    --------
    tight_epsilon : The epsilon of this scale.

    scale_for_rho : The paper's (larger) closed-form scale.

    Examples
    --------
    >>> import diffident as di
    >>> toy = [2, 8/3, 3, 10/3, 11/3, 4, 13/3, 14/3]
    >>> round((14/3 - 2) / di.tight_scale(toy, 1/3), 9)   # tight epsilon
    2.249596595
    """
    ws = Worlds(values, counts, prior)
    r = V.in_range("rho", rho, 0.0, 1.0)
    rtol = float(V.in_range("rtol", rtol, 0.0, np.inf, hi_open=True))
    fs, W, invP = ws.groups()
    ev = _Evaluator(fs, W, invP)
    limits, _ = ev(np.array([np.inf, 0.0]))
    r_zero, r_inf = limits
    flat = r.ravel()
    out = np.full(flat.shape, np.nan)
    out[flat >= r_zero] = 0.0
    out[(flat < r_zero) & (flat <= r_inf)] = np.inf
    todo = np.flatnonzero(np.isnan(out))
    if todo.size:
        rho_t = flat[todo]
        out[todo] = _bisect(ev, rho_t, *_bracket(ev, fs, W, rho_t), rtol)[1]
    return V.ret(out.reshape(r.shape), r.ndim == 0)


def _bracket(ev, fs, W, rho):
    """Scales lo < hi with rho*(lo) > rho >= rho*(hi), for 1/m_eff < rho < rho*(0),
    and their risks."""
    spread = fs[-1] - fs[0]
    m_eff = W.sum()  # the largest normalised prior is 1
    gaps = np.diff(fs)
    # Upper end: the paper's closed form is valid (MATH.md s. 5).  Lower end
    # guess: the same form with the widest nearest-neighbour gap in place of
    # the spread (a lower bound for a uniform prior; checked, since a
    # non-uniform prior can break it).
    nn = np.minimum(np.append(gaps, np.inf), np.append(np.inf, gaps)).max()
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        eps = np.log1p((m_eff * rho - 1.0) / (1.0 - rho))
        hi = spread / eps
        lo = nn / eps
    hi = np.where(np.isfinite(hi) & (hi > 0), hi, spread * 1e300)
    floor = gaps.min() / 800.0  # every factor underflows: rho*(floor) = rho*(0)
    lo = np.where(np.isfinite(lo) & (lo > floor) & (lo < hi), lo, floor)
    r_hi = ev(1.0 / hi)[0]
    for _ in range(64):
        bad = r_hi > rho
        if not bad.any():
            break
        lo = np.where(bad, hi, lo)
        hi = np.where(bad, hi * 4.0, hi)
        r_hi = np.where(bad, ev(1.0 / hi)[0], r_hi)
    r_lo = ev(1.0 / lo)[0]
    passed = r_lo <= rho  # the guess was too low a bound: it is a better hi
    if passed.any():
        hi = np.where(passed, lo, hi)
        r_hi = np.where(passed, r_lo, r_hi)
        lo = np.where(passed, floor, lo)
        r_lo = np.where(passed, rho + 1.0, r_lo)  # rho*(floor) = rho*(0) > rho
        r_lo[passed] = ev(1.0 / lo[passed])[0]
    return lo, hi, r_lo, r_hi


def _bisect(ev, rho, lo, hi, r_lo, r_hi, rtol):
    """Smallest scale with rho*(scale) <= rho, batched over rho.

    Anderson-Bjorck regula falsi on log rho* against log scale, safeguarded
    by bisection when it stalls.  Regula falsi homes in on the root from one
    side only, so once the bracket is narrow each step probes two points, a
    little either side of the estimate (the last correction bounds its
    error): the bracket then collapses around the root in a step or two.
    About 15 passes over the data per target to adjacent floats (11 with
    rtol = 1e-12; the last ones resolve the evaluation's own rounding
    noise) instead of bisection's 55.  Every scale kept as the upper end was
    evaluated and passed, so the answer is conservative by construction.
    Returns the final brackets (lo, hi, rho*(lo), rho*(hi)).
    """
    lo, hi, r_lo, r_hi = (np.array(a, dtype=np.float64) for a in (lo, hi, r_lo, r_hi))
    log_rho = np.log(rho)
    fl = np.log(r_lo) - log_rho  # > 0
    fh = np.log(r_hi) - log_rho  # <= 0
    side = np.zeros(rho.size, np.int8)  # the end kept last: -1 lo, +1 hi
    width = np.log(hi) - np.log(lo)
    stall = np.zeros(rho.size, np.int8)
    last = np.full(rho.size, np.nan)
    active = np.flatnonzero(np.isfinite(hi) & (r_hi <= rho))
    for _ in range(400):
        a = active
        l, h = lo[a], hi[a]
        done = (np.nextafter(l, np.inf) >= h) | (h - l <= rtol * h)
        a = a[~done]
        if a.size == 0:
            break
        l, h = lo[a], hi[a]
        xl, xh = np.log(l), np.log(h)
        with np.errstate(divide="ignore", invalid="ignore"):
            z = xh - fh[a] * (xh - xl) / (fh[a] - fl[a])
        est = np.exp(z)
        bisect = (stall[a] >= 3) | ~np.isfinite(est)
        est = np.where(bisect, np.exp(0.5 * (xl + xh)), np.minimum(np.maximum(est, l), h))
        # the last few dozen floats: plain bisection, every step halves them
        tiny = h - l <= 64.0 * np.spacing(h)
        est = np.where(tiny, l + 0.5 * (h - l), est)
        # a narrow bracket, or an estimate hugging one end (regula falsi's
        # one-sided approach): probe both sides of the estimate
        hug = np.minimum(est - l, h - est) <= 1e-6 * (h - l)
        narrow = ~bisect & ~tiny & ((h - l < 1e-6 * h) | hug)
        with np.errstate(invalid="ignore"):
            err = np.abs(est - last[a])
        err = np.where(np.isfinite(err), err, 1e-9 * est)
        err = np.maximum(2.0 * err, 4.0 * np.spacing(est))
        last[a] = est
        up = np.nextafter(h, 0.0)
        down = np.nextafter(l, np.inf)
        p1 = np.where(narrow, est - err, est)
        p2 = np.where(narrow, est + err, est)
        p1 = np.minimum(np.maximum(p1, down), up)
        p2 = np.minimum(np.maximum(p2, down), up)
        n = a.size
        r = ev(1.0 / np.concatenate([p1, p2[narrow]]))[0]
        r1 = r[:n]
        r2 = np.full(n, np.inf)
        r2[narrow] = r[n:]
        ok1 = r1 <= rho[a]
        ok2 = r2 <= rho[a]
        # Anderson-Bjorck: an end kept twice in a row has its value scaled down
        f1 = np.log(r1) - log_rho[a]
        single = ~narrow
        with np.errstate(divide="ignore", invalid="ignore"):
            m_h = 1.0 - f1 / fh[a]
            m_l = 1.0 - f1 / fl[a]
        m_h = np.where(m_h > 0, m_h, 0.5)
        m_l = np.where(m_l > 0, m_l, 0.5)
        fl[a] = np.where(single & ok1 & (side[a] == -1), fl[a] * m_h, fl[a])
        fh[a] = np.where(single & ~ok1 & (side[a] == 1), fh[a] * m_l, fh[a])
        # new ends: the lowest passing probe, the highest failing one below
        # it (p2 failing where p1 passed is rounding noise: ignore it)
        new_h = np.where(ok1, p1, np.where(ok2, p2, h))
        new_fh = np.where(ok1, f1, np.where(ok2, np.log(r2) - log_rho[a], fh[a]))
        p2_low = narrow & ~ok1 & ~ok2
        new_l = np.where(p2_low, p2, np.where(~ok1, p1, l))
        new_fl = np.where(p2_low, np.log(r2) - log_rho[a], np.where(~ok1, f1, fl[a]))
        hi[a], fh[a], lo[a], fl[a] = new_h, new_fh, new_l, new_fl
        side[a] = np.where(narrow, 0, np.where(ok1, -1, 1))
        new_width = np.log(hi[a]) - np.log(lo[a])
        halved = new_width <= 0.5 * width[a]
        reset = halved | bisect | tiny
        stall[a] = np.where(reset, 0, stall[a] + 1)
        width[a] = np.where(reset, new_width, width[a])
        active = a
    return lo, hi, r_lo, r_hi


def tight_epsilon(values, rho, *, counts=None, prior=None, rtol=0.0):
    """Epsilon of the tight calibration: ``ptp(values) / tight_scale(...)``.

    The Laplace mechanism's epsilon for the query's sensitive range (the
    spread of the world values of positive weight) at the tight scale;
    compare `epsilon_for_rho`, the paper's (smaller) epsilon.

    Parameters
    ----------
    values : array_like, shape (m,)
        Query values of the possible worlds.
    rho : array_like
        Target risk(s) in [0, 1], any shape.
    counts : array_like, shape (m,), optional
        Multiplicity of each entry: whole numbers >= 0.
    prior : array_like, shape (m,), optional
        Unnormalised per-world prior weights (>= 0).
    rtol : float, optional
        Relative precision of the tight scale, as for `tight_scale`
        (default 0: adjacent floats).

    Returns
    -------
    float or ndarray
        The epsilon, shape of ``rho``: ``inf`` where no noise is needed,
        ``0`` where rho is unattainable or all worlds share one value.

    Raises
    ------
    ValueError
        As for `tight_scale`: rho outside [0, 1] or NaN, a bad rtol, bad
        values, counts or prior.
    TypeError
        If an argument is not real numbers (a string, complex values).

    See Also
    --------
    tight_scale : The scale itself.

    epsilon_for_rho : The paper's epsilon for the same rho.

    Examples
    --------
    >>> import diffident as di
    >>> toy = [2, 8/3, 3, 10/3, 11/3, 4, 13/3, 14/3]
    >>> round(di.tight_epsilon(toy, 1/3), 9)
    2.249596595
    """
    ws = Worlds(values, counts, prior)
    fs = ws.groups()[0]
    spread = fs[-1] - fs[0]
    lam = tight_scale(values, rho, counts=counts, prior=prior, rtol=rtol)
    lam = np.asarray(lam)
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = np.where(spread == 0.0, 0.0, spread / lam)
    return V.ret(eps, eps.ndim == 0)
