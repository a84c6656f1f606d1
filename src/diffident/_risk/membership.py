"""Membership of an individual among the k unknown ones (Mathematics page,
eq. 8.2), from exact subset-sum counts; method: docs/algorithms/risk.md.
"""


import math
from fractions import Fraction

import numpy as np

from .._kernels import subsets
from .._kernels.evidence import sweep_sums, sweep_work
from .._numerics import grouping as _grouping
from .._numerics import search as _search
from .._numerics import validate as _validate
from .._typing import AnyNoise, CandidatesLike, FloatOrArray, QueryLike, RealArrayLike
from .._worlds.possible import sum_grid
from .._worlds.sets import Candidates, Known, Query, check_k, check_magnitudes
from .._worlds.values import Worlds, energy_factor
from .posterior import log_evidence_of, log_posterior_rows
from .worst_case import spread_exponent, sweep_error

__all__ = ["membership_risk", "membership_tight_scale"]

_TABLE_CELLS = 10**8  # the count tables' float64 cells at most (800 MB)
_EXACT_LOG_EVIDENCE = 16.0  # |log evidence| up to this: a difference of two within 4e-15


class _Membership:
    """Worlds by sum, and per distinct candidate value the worlds containing one such candidate."""

    def __init__(self, query, known, candidates, k):
        qy = Query(query, 0.5, 0)
        if qy.name not in ("sum", "mean"):
            raise ValueError(f"query must be 'sum' or 'mean' for membership risks, got {query!r}")
        k = check_k(k)
        cands = Candidates(candidates)
        if cands.domain is not None:
            raise ValueError("candidates must be explicit individuals (an array), not a Domain")
        cands.check_k(k)
        grid = sum_grid(cands)
        if grid is None:
            raise ValueError("candidates must lie on a grid (integers, halves, cents, ...) within 2**52 steps "
                             "of 0, for exact counts")
        offs, scale, base = grid
        distinct, first, mult = _grouping.distinct(np.ascontiguousarray(offs))
        width = int(distinct[-1]) * k + 1
        cells = (2 * k + 1 + distinct.size) * width
        if cells > _TABLE_CELLS:
            raise ValueError(f"candidates span {width - 1} steps of their grid (1/{scale:g}) over k = {k}: the exact "
                             f"count tables would hold {cells:.3g} cells (at most {_TABLE_CELLS:.0e}); use a coarser "
                             "grid or fewer distinct candidate values")
        self.k, self.N = k, cands.vals.size
        total = self._table(distinct, mult, k, width)[k]
        # worlds containing one candidate of value d: that candidate, plus
        # k - 1 of the others (one fewer of its own value)
        self.contain = np.zeros((distinct.size, width))
        for g, v in enumerate(distinct.astype(np.int64)):
            fewer = mult.copy()
            fewer[g] -= 1
            h = self._table(distinct, fewer, k - 1, width)[k - 1]
            self.contain[g, v:] = h[: width - v]
        live = np.flatnonzero(total > 0)
        kn = Known(known, cands.lo)
        check_magnitudes(qy, kn.n + k, ("known", kn.ks), ("candidates", cands))
        rows = np.zeros((live.size, k))
        rows[:, 0] = (base * k + live.astype(np.float64)) / scale
        self.values = kn.values(qy, rows)  # ascending with the sum
        self.total = total[live]
        self.contain = np.ascontiguousarray(self.contain[:, live])
        self.cand_group = np.empty(self.N, np.int64)  # caller's candidate -> distinct value
        assert cands.order is not None  # (explicit candidates)
        for g in range(distinct.size):
            self.cand_group[cands.order[first[g]:first[g] + mult[g]]] = g
        self.prior = k / self.N
        # error bound of worst(): a ratio of two sweeps, each within the
        # sweep's bound over the world values' weights (see sweep_error)
        self.error = 2.0 * sweep_error(self.total[self.total > 0]) + 2.0 ** -52

    @staticmethod
    def _table(distinct, mult, k, width):
        table = np.zeros((k + 1, width))
        binom = np.array([[float(math.comb(int(n), a)) for a in range(k + 1)] for n in mult])
        subsets.subset_sums(distinct.astype(np.float64), binom, k, table)
        return table

    def worst(self, lam):
        """Max membership posterior per distinct candidate value, for each scale: (scales, groups)."""
        fs = self.values
        k = spread_exponent(fs[0], fs[-1])
        fs = np.ldexp(fs, k)
        inv = energy_factor(np.asarray(lam, dtype=np.float64).ravel(), k, False)
        u = fs.size
        A, B = np.empty(u), np.empty(u)
        work = sweep_work(u)
        out = np.empty((inv.size, self.contain.shape[0]))
        for i, x in enumerate(inv):
            sweep_sums(fs, self.total, x, A, B, *work)
            den = (A - self.total) + B
            for g in range(self.contain.shape[0]):
                w = np.ascontiguousarray(self.contain[g])
                sweep_sums(fs, w, x, A, B, *work)
                out[i, g] = np.max(((A - w) + B) / den)
        return np.minimum(out, 1.0)


def _laplace_lattice(noise, granularity, mb):
    """The lattice spacing of discrete Laplace noise (None for Laplace); Gaussian refused."""
    gauss, g = _validate.lattice_noise(noise, granularity)
    if gauss:
        raise ValueError(f"membership with noise={noise!r}: the worst case over responses of Gaussian energies is "
                         "not at a world's value and is not computed; use noise='laplace' or 'discrete_laplace'")
    if g is not None:
        _validate.lattice("the worlds' values", mb.values, g, coords=False)
    return g


def membership_risk(query: QueryLike, *, known: RealArrayLike, candidates: CandidatesLike, scale: RealArrayLike,
                    k: int = 1,
                    individual: RealArrayLike | None = None, response: RealArrayLike | None = None,
                    noise: AnyNoise = "laplace", granularity: float = 1.0) -> FloatOrArray:
    """The adversary's posterior that a candidate is one of the k unknown people.

    Parameters
    ----------
    query : {"sum", "mean"}
        The released query.
    known : array_like
        The known part D'.
    candidates : array_like
        The candidate individuals' values (integers or a decimal grid).
    scale : array_like
        Laplace scale(s), >= 0 (0: no noise; inf: the prior k / N).
    k : int, optional
        Number of unknown individuals (>= 1, default 1).
    individual : int or array_like of int, optional
        Candidate index(es); by default the maximum over every candidate.
    response : array_like, optional
        Released value(s): the posterior there (needs ``individual``).
    noise : {"laplace", "discrete_laplace"}, optional
        The noise (default Laplace; discrete Laplace gives the same numbers).
    granularity : float, optional
        Lattice spacing of discrete Laplace noise (default 1).

    Returns
    -------
    float or ndarray
        The posterior(s); compare with the prior k / N.

    Raises
    ------
    ValueError
        For a bad query, candidates, k, known values, scales or individual.
    TypeError
        For a query that is not a name, a non-integer k or individual.

    See Also
    --------
    membership_tight_scale : The smallest scale for a target risk.

    Examples
    --------
    >>> import diffident as di
    >>> di.membership_risk("sum", known=[], candidates=[0, 1, 2, 3, 10],
    ...                    scale=[0.0, float("inf")], k=2)
    array([1. , 0.4])
    """
    mb = _Membership(query, known, candidates, k)
    g = _laplace_lattice(noise, granularity, mb)
    if response is not None:
        if g is not None:
            _validate.lattice("response", response, g, coords=False)
        if individual is None:
            raise ValueError("individual is required with a response (whose membership?)")
        ind = _validate.integer_index("individual", individual, mb.N)
        groups = mb.cand_group[ind.ravel()]
        R = _validate.finite("response", response)
        lam = _validate.positive_scale("scale", scale)
        shape = np.broadcast_shapes(R.shape, lam.shape)
        Rf, Lf = _validate.flat(R, shape), _validate.flat(lam, shape)

        def evidence(counts):
            ws = Worlds(mb.values, counts, check_finite=False)
            return log_evidence_of(ws, Rf, Lf, False).reshape(shape)

        den = evidence(mb.total)
        with np.errstate(invalid="ignore"):
            cols = [np.exp(evidence(mb.contain[g]) - den) for g in groups]
        out = np.stack(cols, axis=-1)
        # where the log-evidences are large their difference loses digits
        # (ulp(den) of the ratio's log; below the float range, all of them):
        # there the posterior-weighted share of the worlds holding the
        # individual, sum_t P(t | R) contain_t / total_t, exact relative
        # weights (`posterior` gives one world's P(t | R) / total_t)
        far = np.flatnonzero(~(np.abs(den.ravel()) <= _EXACT_LOG_EVIDENCE))
        if far.size:
            Rfar, Lfar = Rf[far], Lf[far]
            share = np.ascontiguousarray(mb.contain[groups].T)  # (worlds, individuals)
            flat = out.reshape(-1, groups.size)
            step = max(1, _TABLE_CELLS // (4 * mb.values.size))  # posteriors in batches of points
            ws = Worlds(mb.values, mb.total, check_finite=False)
            for a in range(0, far.size, step):
                post = np.exp(log_posterior_rows(ws, Rfar[a:a + step], Lfar[a:a + step], False))
                flat[far[a:a + step]] = post @ share
            out = flat.reshape(out.shape)
        out = np.minimum(out, 1.0)
        out = out.reshape(shape + ind.shape)
        return _validate.ret(out, out.ndim == 0)
    lam = _validate.scale_or_limit("scale", scale)
    risk = mb.worst(lam)  # (scales, groups)
    if individual is None:
        out = risk.max(axis=1).reshape(lam.shape)
        return _validate.ret(out, lam.ndim == 0)
    ind = _validate.integer_index("individual", individual, mb.N)
    out = risk[:, mb.cand_group[ind.ravel()]].reshape(lam.shape + ind.shape)
    return _validate.ret(out, out.ndim == 0)


def _no_noise_needed(mb, rho):
    """Whether rho is at least the largest membership posterior without noise (exactly)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(mb.total > 0, mb.contain / mb.total, 0.0)
    top = float(ratio.max())
    out = rho >= top
    near = np.flatnonzero(np.abs(rho - top) <= 1e-12 * top)
    if near.size:
        pairs = [(Fraction(float(mb.contain[g, t])), Fraction(float(mb.total[t])))
                 for g, t in zip(*np.nonzero(ratio >= top * (1.0 - 1e-12)), strict=True)]
        for i in near:
            r = Fraction(float(rho[i]))
            out[i] = all(r * tot >= c for c, tot in pairs)
    return out


def membership_tight_scale(query: QueryLike, *, known: RealArrayLike, candidates: CandidatesLike, rho: RealArrayLike,
                           k: int = 1,
                           rtol: float = 0.0, noise: AnyNoise = "laplace", granularity: float = 1.0) -> FloatOrArray:
    """The smallest Laplace scale that keeps every membership posterior <= rho.

    Parameters
    ----------
    query : {"sum", "mean"}
        The released query.
    known : array_like
        The known part D'.
    candidates : array_like
        The candidate individuals' values (integers or a decimal grid).
    rho : array_like
        Target risk(s) in [0, 1].
    k : int, optional
        Number of unknown individuals (>= 1, default 1).
    rtol : float, optional
        Relative precision of the scale (default 0: adjacent floats).
    noise : {"laplace", "discrete_laplace"}, optional
        The noise, as for `membership_risk` (the same scale for both).
    granularity : float, optional
        Lattice spacing of discrete Laplace noise (default 1).

    Returns
    -------
    float or ndarray
        The scale, shape of ``rho``: 0 if no noise is needed, inf if unattainable.

    Raises
    ------
    ValueError
        For a bad query, candidates, k, known values, rho or rtol.
    TypeError
        For a query that is not a name, a non-integer k, or non-real arguments.

    See Also
    --------
    membership_risk : The risk that this scale bounds.

    Examples
    --------
    >>> import diffident as di
    >>> c = [0, 1, 2, 3, 10]
    >>> di.membership_tight_scale("sum", known=[], candidates=c,
    ...                           rho=[0.4, 1.0], k=2)
    array([inf,  0.])
    """
    mb = _Membership(query, known, candidates, k)
    _laplace_lattice(noise, granularity, mb)
    r = _validate.in_range("rho", rho, 0.0, 1.0)
    rtol = _validate.tolerance("rtol", rtol)

    def ev(lam):
        return mb.worst(lam).max(axis=1)

    flat = r.ravel()
    out = np.full(flat.shape, np.nan)
    out[_no_noise_needed(mb, flat)] = 0.0
    # unattainable at or below the prior k / N, compared exactly
    N, kk = Fraction(mb.N), Fraction(mb.k)
    out[np.isnan(out) & np.array([Fraction(float(x)) * N <= kk for x in flat], dtype=bool)] = np.inf
    todo = np.flatnonzero(np.isnan(out))
    if todo.size:
        spread = max(mb.values[-1] - mb.values[0], np.finfo(float).tiny)
        # a scale passes when its computed risk meets rho by the evaluation's
        # error bound: its exact risk then meets rho too
        out[todo], status = _search.smallest(lambda i, x: ev(x), _search.below(flat[todo], mb.error), spread / 4.0,
                                             spread, rtol=rtol)
        _search.warn_unconverged(status, "membership_tight_scale")
    return _validate.ret(out.reshape(r.shape), r.ndim == 0)
