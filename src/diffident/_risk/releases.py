"""Independent Laplace releases seen by one adversary (Mathematics page, section 7)."""


from typing import Literal, overload

import numba
import numpy as np

from .._kernels import multi
from .._numerics import search as _search
from .._numerics import validate as _validate
from .._numerics.shared_docs import shared_docs
from .._typing import FloatArray, FloatOrArray, IntOrArray, RealArrayLike
from .._worlds.values import Worlds
from .worst_case import Risk, below_normal_again, inverse_scales, spread_exponent

__all__ = ["multi_worst_case_risk", "multi_tight_scale"]


def _prepare(values, counts, prior):
    """Values as (q, m), normalised weights and 1/prior (inf: no weight)."""
    F = _validate.finite("values", values)
    if F.ndim == 1:
        F = F[:, None]
    if F.ndim != 2 or F.shape[0] == 0 or F.shape[1] == 0:
        raise ValueError(f"values must be a non-empty (m, q) array, got shape {F.shape}")
    m = F.shape[0]
    c = np.ones(m) if counts is None else _validate.counts(counts, m)
    p = np.ones(m) if prior is None else _validate.weights("prior", prior, m)
    live = (c > 0) & (p > 0)
    if not live.any():
        raise ValueError("counts and prior give every world zero weight")
    # the prior normalised before it meets the counts (1e200 x 1e200 would
    # overflow), the weights then by their largest (their sums stay finite)
    pn = np.where(live, p / p[live].max(), 0.0)
    wt = c * pn
    wmax = wt.max()
    if wt[live].min() < 2.0 ** -1000 * wmax:
        names = " and ".join(x for x, y in (("counts", counts), ("prior", prior)) if y is not None)
        raise ValueError(f"{names} span more than 2**1000 (about 1e301) between worlds of positive weight: "
                         "the worst case sums weights, which cannot carry that range")
    with np.errstate(divide="ignore", over="ignore"):  # inf: a world that cannot be the worst
        invP = np.where(live, wmax / pn, np.inf)
    return np.ascontiguousarray(F.T), wt / wmax, invP


def _scales(scale, q):
    lam = _validate.scale_or_limit("scale", scale)
    lam = np.atleast_1d(lam)
    if lam.shape[-1] != q:
        raise ValueError(f"scale must have the number of queries ({q}) as its last axis, got shape {lam.shape}")
    return lam


class _Releases:
    """rho* of the worlds for rows of scales, one per release (evaluation and search share it)."""

    def __init__(self, values, counts, prior):
        self.FT, self.w, self.invP = _prepare(values, counts, prior)
        self.q = self.FT.shape[0]
        with np.errstate(over="ignore"):
            self.spread = np.ptp(self.FT, axis=1)  # inf where it overflows
        # worlds as one value per distinct row: their groups are the worlds a
        # release without noise cannot tell apart (the exact limits)
        _, rows = np.unique(self.FT.T, axis=0, return_inverse=True)
        self.rows = Worlds(rows.ravel().astype(np.float64), counts, prior)
        if self.q == 1:
            self.ws = Worlds(self.FT[0], counts, prior)
            self.one = Risk(self.ws)
            self.error = self.one.error
        else:
            # the dense kernel's error bound: a term's argument (q rounded
            # products summed) within (q + 1) units of roundoff of its size,
            # whose average over the terms, relative to S_j, is at most
            # ln(N) + 1 (see _worst_case.sweep_error), the exponential 2,
            # the weight 1, and the sum of m positive terms in eight chains
            live = self.w[self.w > 0]
            x = min(np.log(live.sum() / live.min()) + 1.0, 745.0)
            m = self.FT.shape[1]
            self.error = ((self.q + 1) * x + m / 8.0 + 8.0) * 2.0 ** -53
            self.buf = np.empty((numba.get_num_threads(), self.FT.shape[1]))
            # each query's values scaled by the worst case's power of two
            # (its differences over its scale do not change)
            self.k = np.array([spread_exponent(f.min(), f.max()) for f in self.FT], dtype=int)
            self.FT = np.ascontiguousarray(np.ldexp(self.FT, self.k[:, None]))

    def __call__(self, lam, strict=True):
        """rho* and a worst world's index for each row of ``lam`` (n, q); ``strict`` as for `Risk`."""
        if self.q == 1:
            return self.one(lam[:, 0], strict)
        cols, unknown = [], np.zeros(lam.shape[0], bool)
        for t in range(self.q):
            # 1 / scale as the worst case takes it: where it overflows with a
            # gap too small to make exp(-gap / scale) 0, an error (or unknown)
            got = inverse_scales(lam[:, t], int(self.k[t]), lambda t=t: self._min_gap(t), strict)
            if not strict:
                got, u = got
                unknown |= u
            cols.append(got)
        inv = np.ascontiguousarray(np.stack(cols, axis=1))
        out, arg = below_normal_again(self._evaluate, inv, self.invP)
        return np.where(unknown, 1.0, out), arg

    def _evaluate(self, inv, invP):
        out = np.empty(inv.shape[0])
        arg = np.empty(inv.shape[0], np.int64)
        multi.multi_worst_case(self.FT, self.w, invP, inv, out, arg, self.buf)
        return out, arg

    def _min_gap(self, t):
        """The smallest gap between query t's values (scaled)."""
        u = np.unique(self.FT[t])
        return float(np.diff(u).min()) if u.size > 1 else np.inf

    def world(self, arg):
        """The caller's index of the worst world from ``__call__``'s second result."""
        return self.ws.groups(need_rep=True)[3][arg] if self.q == 1 else arg


@overload
def multi_worst_case_risk(values: RealArrayLike, *, scale: RealArrayLike, counts: RealArrayLike | None = None,
                          prior: RealArrayLike | None = None
                          ,
                          return_world: Literal[False] = False) -> FloatOrArray: ...


@overload
def multi_worst_case_risk(values: RealArrayLike, *, scale: RealArrayLike, counts: RealArrayLike | None = None,
                          prior: RealArrayLike | None = None
                          ,
                          return_world: Literal[True]) -> tuple[FloatOrArray, IntOrArray]: ...


@shared_docs
def multi_worst_case_risk(values: RealArrayLike, *, scale: RealArrayLike, counts: RealArrayLike | None = None,
                          prior: RealArrayLike | None = None, return_world: bool = False
                          ) -> FloatOrArray | tuple[FloatOrArray, IntOrArray]:
    """The exact worst-case risk of q independent Laplace releases seen together.

    Parameters
    ----------
    values : array_like, shape (m, q)
        Query values: one row per world, one column per released query.
    scale : array_like, shape (..., q)
        Laplace scales per query (0 and inf allowed).
    counts : array_like, shape (m,), optional
        Multiplicity of each world (row): whole numbers >= 0.
    %(prior)s
    return_world : bool, optional
        Also return the index of a worst world (default False).

    Returns
    -------
    risk : float or ndarray
        The worst-case risk, shape ``scale.shape[:-1]``.
    world : int or ndarray of int64
        Only with ``return_world``: the index of a world attaining it.

    Raises
    ------
    ValueError
        For bad values, scales, counts or prior, or a last axis other than q.
    TypeError
        If an argument is not real numbers, or ``return_world`` is not a bool.

    See Also
    --------
    multi_tight_scale : The smallest scales that meet a target.
    worst_case_risk : One release.

    Examples
    --------
    >>> import numpy as np, diffident as di
    >>> v = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]])
    >>> round(di.multi_worst_case_risk(v, scale=[1.0, 1.0]), 6)
    0.909443
    """
    rel = _Releases(values, counts, prior)
    lam = _scales(scale, rel.q)
    return_world = _validate.flag("return_world", return_world)
    lead = lam.shape[:-1]
    scalar = np.ndim(scale) <= 1
    risk, arg = rel(lam.reshape(-1, rel.q))
    risk = risk.reshape(lead)
    arg = rel.world(arg).reshape(lead) if return_world else None
    if scalar:
        risk, arg = float(risk), (int(arg) if arg is not None else None)
    return (risk, arg) if return_world else risk


@shared_docs
def multi_tight_scale(values: RealArrayLike, *, rho: RealArrayLike, spread: RealArrayLike | None = None,
                      counts: RealArrayLike | None = None, prior: RealArrayLike | None = None,
                      rtol: float = 0.0) -> FloatArray:
    """The smallest proportional scales that keep the multi-release risk <= rho.

    Parameters
    ----------
    values : array_like, shape (m, q)
        Query values: one row per world, one column per released query.
    rho : array_like
        Target risks in [0, 1].
    spread : array_like, shape (q,), optional
        The proportions of the scales, >= 0 (default: ``ptp`` of each column).
    counts : array_like, shape (m,), optional
        Multiplicity of each world (row): whole numbers >= 0.
    %(prior)s
    rtol : float, optional
        Relative precision of u (default 0: adjacent floats).

    Returns
    -------
    ndarray
        The scales, shape ``rho.shape + (q,)``; inf if unattainable, 0 if free.

    Raises
    ------
    ValueError
        For bad values, counts, prior, rho, rtol or spread.
    TypeError
        If an argument is not real numbers (a string, a bool, complex values).

    See Also
    --------
    multi_worst_case_risk : The risk that these scales bound.
    tight_scale : One release.

    Examples
    --------
    >>> import numpy as np, diffident as di
    >>> v = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]])
    >>> s = di.multi_tight_scale(v, rho=0.5)
    >>> bool(di.multi_worst_case_risk(v, scale=s) <= 0.5)
    True
    """
    rel = _Releases(values, counts, prior)
    q = rel.q
    r = _validate.in_range("rho", rho, 0.0, 1.0)
    rtol = _validate.tolerance("rtol", rtol)
    if spread is None:
        sp = rel.spread
        if not np.all(np.isfinite(sp)):
            raise ValueError(f"spread: the values of query {int(np.argmin(np.isfinite(sp)))} span more than the "
                             "float range; pass spread explicitly")
    else:
        sp = _validate.finite("spread", spread)
    if sp.shape != (q,) or np.any(sp < 0):
        raise ValueError(f"spread must be q = {q} non-negative values, got {sp!r}")
    sp = np.where(sp > 0, sp, 1.0)  # a constant query adds nothing whatever its scale

    def risk_at(u):  # the scales the caller gets, u * spread_t, evaluated as the caller will
        with np.errstate(over="ignore"):  # a scale beyond the float range is inf
            return rel(u[:, None] * sp[None, :], strict=False)[0]

    flat = r.ravel()
    u = np.full(flat.shape, np.nan)
    zero = rel.rows.share_at_most(flat, "zero")  # the limits, decided exactly
    u[zero] = 0.0
    u[~zero & rel.rows.share_at_most(flat, "inf")] = np.inf
    todo = np.flatnonzero(np.isnan(u))
    if todo.size:
        rt = flat[todo]
        m_eff = rel.w.sum()
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            hi = q / np.log1p((m_eff * rt - 1.0) / (1.0 - rt))  # the bound when spread = ptp
        hi = np.where(np.isfinite(hi) & (hi > 0), hi, 1.0)
        # a factor passes when its computed risk meets rho by the evaluation's
        # error bound: its exact risk then meets rho too
        u[todo], status = _search.smallest(lambda i, x: risk_at(x), _search.below(rt, rel.error), hi * 1e-3, hi,
                                           rtol=rtol)
        _search.warn_unconverged(status, "multi_tight_scale")
    with np.errstate(over="ignore"):  # as risk_at forms them
        scales: FloatArray = u.reshape(r.shape)[..., None] * sp
    return scales
