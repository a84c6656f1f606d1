"""Several independent Laplace releases seen by one adversary (MATH.md s. 7)."""

import numba
import numpy as np

from . import _validate as V
from ._kernels import multi as K
from ._worst_case import _bisect, worst_case_risk

__all__ = ["multi_worst_case_risk", "multi_tight_scale"]


def _prepare(values, counts, prior):
    F = V.finite("values", values)
    if F.ndim == 1:
        F = F[:, None]
    if F.ndim != 2 or F.shape[0] == 0 or F.shape[1] == 0:
        raise ValueError(f"values must be a non-empty (m, q) array, got shape {F.shape}")
    m = F.shape[0]
    c = np.ones(m) if counts is None else V.counts(counts, m)
    p = np.ones(m) if prior is None else V.weights("prior", prior, m)
    wt = c * p
    if not (wt > 0).any():
        raise ValueError("counts and prior give every world zero weight")
    pmax = p[wt > 0].max()
    with np.errstate(divide="ignore"):
        invP = np.where(wt > 0, pmax / p, np.inf)
    return np.ascontiguousarray(F.T), wt / pmax, invP


def _scales(scale, q):
    lam = V.scale_or_limit("scale", scale)
    lam = np.atleast_1d(lam)
    if lam.shape[-1] != q:
        raise ValueError(f"scale must have the number of queries ({q}) as its last axis, got shape {lam.shape}")
    return lam


class _MultiEvaluator:
    def __init__(self, FT, w, invP):
        self.FT, self.w, self.invP = FT, w, invP
        self.nw = numba.get_num_threads()
        self.buf = np.empty((self.nw, FT.shape[1]))

    def __call__(self, inv):
        """inv: (n, q) rows of 1/scale."""
        inv = np.ascontiguousarray(inv, dtype=np.float64)
        out = np.empty(inv.shape[0])
        arg = np.empty(inv.shape[0], np.int64)
        K.multi_worst_case(self.FT, self.w, self.invP, inv, out, arg, self.buf)
        return out, arg


def multi_worst_case_risk(values, scale, *, counts=None, prior=None, return_world=False):
    """The exact worst-case risk of q independent Laplace releases seen together.

    One adversary sees Laplace releases of q different queries on the same
    worlds:
    ``rho* = max_j pi_j / sum_k c_k pi_k exp(-sum_t |f_t(w_j) - f_t(w_k)| / scale_t)``
    (MATH.md section 7: the worst responses are R_t = f_t(w_j) for every t).

    Parameters
    ----------
    values : array_like, shape (m, q)
        Query values: one row per world, one column per released query (a
        1-d array is one query).
    scale : array_like, shape (..., q)
        Laplace scales per query (0 and inf allowed); leading axes are
        evaluated together.
    counts : array_like, shape (m,), optional
        Multiplicity of each world (row): whole numbers >= 0.
    prior : array_like, shape (m,), optional
        Unnormalised per-world prior weights (>= 0).
    return_world : bool, optional
        Also return the index of a worst world (default False).

    Returns
    -------
    risk : float or ndarray
        The worst-case risk, shape ``scale.shape[:-1]`` (a float for a 1-d
        scale).
    world : int or ndarray of int64
        Only with ``return_world``: the index of a world attaining it.

    Raises
    ------
    ValueError
        For empty values, values of more than two dimensions, NaN or
        infinite values, negative or NaN scales, a last axis of ``scale``
        other than q, or bad counts or prior (negative, not whole counts,
        wrong length, all zero).
    TypeError
        If an argument is not real numbers (a string, complex values).

    See Also
    --------
    multi_tight_scale : The smallest scales that meet a target.

    worst_case_risk : One release.

    Notes
    -----
    O(m^2 q) in a threaded kernel with O(m) memory per thread (m = 1e4,
    q = 3 takes well under a second).  With q = 1 the exact O(m log m)
    sweep of `worst_case_risk` is used.

    Examples
    --------
    >>> import numpy as np, diffident as di
    >>> v = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]])
    >>> round(di.multi_worst_case_risk(v, [1.0, 1.0]), 6)
    0.909443
    >>> scales = [[1.0, 1.0], [2.0, 2.0]]               # two pairs of scales
    >>> risk, world = di.multi_worst_case_risk(v, scales, return_world=True)
    >>> risk.round(6), world
    (array([0.909443, 0.691438]), array([2, 2]))
    """
    FT, w, invP = _prepare(values, counts, prior)
    q = FT.shape[0]
    lam = _scales(scale, q)
    lead = lam.shape[:-1]
    scalar = np.ndim(scale) <= 1
    if q == 1:
        res = worst_case_risk(FT[0], lam[..., 0], counts=counts, prior=prior, return_world=return_world)
        return res
    with np.errstate(divide="ignore"):
        inv = (1.0 / lam).reshape(-1, q)
    risk, arg = _MultiEvaluator(FT, w, invP)(inv)
    risk = risk.reshape(lead)
    arg = arg.reshape(lead)
    if scalar:
        risk, arg = float(risk), int(arg)
    return (risk, arg) if return_world else risk


def multi_tight_scale(values, rho, *, spread=None, counts=None, prior=None, rtol=0.0):
    """The smallest proportional scales that keep the multi-release risk <= rho.

    The scales are ``u * spread_t`` for a common factor u (by default each
    query's spread, so that every release has the same epsilon 1/u); u is
    found as `tight_scale` finds a scale (batched over rho, conservative:
    the returned scales always satisfy
    ``multi_worst_case_risk(values, scales) <= rho``).

    Parameters
    ----------
    values : array_like, shape (m, q)
        Query values: one row per world, one column per released query.
    rho : array_like
        Target risks in [0, 1].
    spread : array_like, shape (q,), optional
        The proportions of the scales, >= 0 (default: ``ptp`` of each
        column; a zero spread, a constant query, counts as 1).
    counts : array_like, shape (m,), optional
        Multiplicity of each world (row): whole numbers >= 0.
    prior : array_like, shape (m,), optional
        Unnormalised per-world prior weights (>= 0).
    rtol : float, optional
        Relative precision of u, as for `tight_scale` (default 0: adjacent
        floats).

    Returns
    -------
    ndarray
        The scales, shape ``rho.shape + (q,)``: ``inf`` where rho is
        unattainable (at or below ``multi_worst_case_risk(values, inf)``), 0
        where no noise is needed.

    Raises
    ------
    ValueError
        For bad values, counts or prior (as for `multi_worst_case_risk`),
        rho outside [0, 1] or NaN, a negative or non-finite rtol, or a spread
        that is not q non-negative finite values.
    TypeError
        If an argument is not real numbers (a string, complex values).

    See Also
    --------
    multi_worst_case_risk : The risk that these scales bound.

    tight_scale : One release.

    Examples
    --------
    >>> import numpy as np, diffident as di
    >>> v = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]])
    >>> s = di.multi_tight_scale(v, 0.5)
    >>> bool(di.multi_worst_case_risk(v, s) <= 0.5)
    True
    >>> di.multi_tight_scale(v, [0.5, 0.9]).shape
    (2, 2)
    """
    FT, w, invP = _prepare(values, counts, prior)
    q = FT.shape[0]
    r = V.in_range("rho", rho, 0.0, 1.0)
    rtol = float(V.in_range("rtol", rtol, 0.0, np.inf, hi_open=True))
    sp = np.ptp(FT, axis=1) if spread is None else V.finite("spread", spread)
    if sp.shape != (q,) or np.any(sp < 0):
        raise ValueError(f"spread must be q = {q} non-negative values, got {sp!r}")
    sp = np.where(sp > 0, sp, 1.0)  # a constant query adds nothing whatever its scale
    ev = _MultiEvaluator(FT, w, invP)

    def ev_u(inv_u):  # 1/u -> rho*
        return ev(inv_u[:, None] / sp[None, :])

    r_zero, r_inf = ev_u(np.array([np.inf, 0.0]))[0]
    flat = r.ravel()
    u = np.full(flat.shape, np.nan)
    u[flat >= r_zero] = 0.0
    u[(flat < r_zero) & (flat <= r_inf)] = np.inf
    todo = np.flatnonzero(np.isnan(u))
    if todo.size:
        rt = flat[todo]
        m_eff = w.sum()
        with np.errstate(divide="ignore", over="ignore"):
            hi = q / np.log1p((m_eff * rt - 1.0) / (1.0 - rt))  # the bound: D_jk <= q / u
        hi = np.where(np.isfinite(hi) & (hi > 0), hi, 1e300)
        r_hi = ev_u(1.0 / hi)[0]
        for _ in range(64):
            bad = r_hi > rt
            if not bad.any():
                break
            hi = np.where(bad, hi * 4.0, hi)
            r_hi[bad] = ev_u(1.0 / hi[bad])[0]
        lo = hi * 1e-3
        r_lo = ev_u(1.0 / lo)[0]
        for _ in range(200):
            bad = r_lo <= rt  # not yet failing: a better upper end
            if not bad.any():
                break
            hi = np.where(bad, lo, hi)
            r_hi = np.where(bad, r_lo, r_hi)
            lo = np.where(bad, lo * 1e-3, lo)
            r_lo[bad] = ev_u(1.0 / lo[bad])[0]
        ut = _bisect(ev_u, rt, lo, hi, r_lo, r_hi, rtol)[1]
        # the caller evaluates 1 / (u * spread_t), not (1 / u) / spread_t:
        # step u up until that passes too (a few ulps at most)
        for _ in range(64):
            with np.errstate(divide="ignore"):
                bad = np.isfinite(ut) & (ev(1.0 / (ut[:, None] * sp[None, :]))[0] > rt)
            if not bad.any():
                break
            ut = np.where(bad, np.nextafter(ut, np.inf), ut)
        u[todo] = ut
    return u.reshape(r.shape)[..., None] * sp
