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
        self.blocked_ok = self.nw * u * K.BLOCK * 16 <= _BLOCK_BYTES
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
                self._blk = (np.empty((nw, u, K.BLOCK)), np.empty((nw, u, K.BLOCK)))
            E, B = self._blk
            K.worst_case_blocks_parallel(self.fs, self.W, self.invP, pad, o, a, E[:nw], B[:nw])
            out[:] = o[:k]
            arg[:] = a[:k]
        else:
            if self._one is None:
                self._one = (np.empty(u), np.empty(u))
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
        Multiplicity of each entry (>= 0).
    prior : array_like, shape (m,), optional
        Unnormalised per-world prior weights (>= 0).
    return_world : bool
        Also return the index into ``values`` of a world attaining the
        maximum.

    Returns
    -------
    risk : float or ndarray
        Shape of ``scale``; between 1/m_eff and 1.
    world : int or ndarray of int64
        Only with ``return_world``.

    Raises
    ------
    ValueError
        For empty, NaN or infinite values, negative or NaN scales, bad
        counts or prior.

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

    Bisection on log(scale), batched over every rho at once (each step is
    one pass over the sorted values for all unfinished targets).  The answer
    is the upper end of the final bracket, so that
    ``worst_case_risk(values, tight_scale(values, rho)) <= rho`` always holds
    as computed by this library: it errs on the private side.

    Parameters
    ----------
    values : array_like, shape (m,)
        Query values of the possible worlds.
    rho : array_like
        Target risk(s) in [0, 1], any shape.
    counts, prior : array_like, shape (m,), optional
        As for :func:`worst_case_risk`.
    rtol : float
        Stop when the bracket is within this relative width.  ``0`` (the
        default) bisects until its two ends are adjacent floats.

    Returns
    -------
    float or ndarray
        Shape of ``rho``.  ``0`` where rho >= worst_case_risk(values, 0) (no
        noise needed, e.g. every value repeated 1/rho times), ``inf`` where
        rho <= worst_case_risk(values, inf) = 1/m_eff (unattainable).

    Raises
    ------
    ValueError
        For rho outside [0, 1] or NaN, a negative or non-finite rtol, and
        the bad values, counts and prior of :func:`worst_case_risk`.

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
        out[todo] = _bisect(ev, fs, W, flat[todo], rtol)
    return V.ret(out.reshape(r.shape), r.ndim == 0)


def _bisect(ev, fs, W, rho, rtol):
    spread = fs[-1] - fs[0]
    m_eff = W.sum()  # the largest normalised prior is 1
    # Upper end: the paper's closed form is valid (MATH.md s. 5).
    with np.errstate(divide="ignore", over="ignore"):
        hi = spread / np.log1p((m_eff * rho - 1.0) / (1.0 - rho))
    hi = np.where(np.isfinite(hi) & (hi > 0), hi, spread * 1e300)
    for _ in range(64):
        bad = ev(1.0 / hi)[0] > rho
        if not bad.any():
            break
        hi = np.where(bad, hi * 4.0, hi)
    # Lower end: below the closest gap / 800 every factor underflows to 0 and
    # rho*(lo) = rho*(0) > rho.
    gap = np.diff(fs).min()
    lo = np.full(rho.shape, gap / 800.0)
    good_hi = ev(1.0 / hi)[0] <= rho
    hi = np.where(good_hi, hi, np.inf)
    active = np.flatnonzero(good_hi & (ev(1.0 / lo)[0] > rho))
    lo_l, hi_l = np.log(lo), np.log(hi)
    while active.size:
        a = active
        mid = np.exp(0.5 * (lo_l[a] + hi_l[a]))
        done = (mid <= lo[a]) | (mid >= hi[a]) | (hi[a] - lo[a] <= rtol * hi[a])
        a, mid = a[~done], mid[~done]
        if a.size == 0:
            break
        ok = ev(1.0 / mid)[0] <= rho[a]
        hi[a[ok]] = mid[ok]
        hi_l[a[ok]] = np.log(mid[ok])
        lo[a[~ok]] = mid[~ok]
        lo_l[a[~ok]] = np.log(mid[~ok])
        active = a
    return hi


def tight_epsilon(values, rho, *, counts=None, prior=None, rtol=0.0):
    """Epsilon of the tight calibration: ``ptp(values) / tight_scale(...)``.

    The Laplace mechanism's epsilon for the query's sensitive range (the
    spread of the world values of positive weight) at the tight scale;
    compare :func:`epsilon_for_rho`, the paper's (smaller) epsilon.

    Returns
    -------
    float or ndarray
        Shape of ``rho``: ``inf`` where no noise is needed, ``0`` where rho
        is unattainable or all worlds share one value.

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
