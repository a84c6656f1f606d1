"""The tight calibration that protects every neighbour (Mathematics page, section 9)."""


import math
from typing import Literal, overload

import numpy as np

from .._kernels import queries
from .._numerics import grouping as _grouping
from .._numerics import progress as _progress
from .._numerics import search as _search
from .._numerics import validate as _validate
from .._numerics.budget import DEFAULT_MAX_MEMORY, Held
from .._numerics.shared_docs import shared_docs
from .._risk.worst_case import Risk
from .._typing import AnyNoise, CandidatesLike, FloatOrArray, IntOrArray, QueryLike, RealArrayLike
from .._worlds.dataset import dataset_k1, dataset_setup, index_rows, value_multisets
from .._worlds.possible import world_values_of
from .._worlds.sets import Known, count_text
from .._worlds.spaced import SpacedRisk, spacing
from .._worlds.values import Worlds
from .certificate import Certificate, ShiftBound, set_error, shift_offset
from .every_expected import expected_every, on_lattice
from .tight import guesses, no_more_than_the_bound, noise_choice, smallest_scale

__all__ = ["dataset_tight_scale"]

EPS = 2.0 ** -52
U = 2.0 ** -53
_ORDER_STATS = (queries.MEDIAN, queries.QUANTILE, queries.MIN, queries.MAX, queries.COUNT)


@overload
def dataset_tight_scale(query: QueryLike, *, data: RealArrayLike, candidates: CandidatesLike, rho: RealArrayLike,
                        k: int = 1,
                        ddof: int = 0, q: float = 0.5,
                        rtol: float = 0.0, max_worlds: int = 10**8, risk: str = "worst",
                        noise: AnyNoise = "laplace", granularity: float = 1.0,
                        return_removed: Literal[False] = False) -> FloatOrArray: ...


@overload
def dataset_tight_scale(query: QueryLike, *, data: RealArrayLike, candidates: CandidatesLike, rho: RealArrayLike,
                        k: int = 1,
                        ddof: int = 0, q: float = 0.5,
                        rtol: float = 0.0, max_worlds: int = 10**8, risk: str = "worst",
                        noise: AnyNoise = "laplace", granularity: float = 1.0,
                        return_removed: Literal[True]) -> tuple[FloatOrArray, IntOrArray]: ...


@shared_docs
def dataset_tight_scale(query: QueryLike, *, data: RealArrayLike, candidates: CandidatesLike, rho: RealArrayLike,
                        k: int = 1,
                        ddof: int = 0, q: float = 0.5,
                        rtol: float = 0.0, max_worlds: int = 10**8, risk: str = "worst",
                        noise: AnyNoise = "laplace", granularity: float = 1.0, return_removed: bool = False
                        ) -> FloatOrArray | tuple[FloatOrArray, IntOrArray]:
    """The smallest noise scale whose risk meets rho for every D' (Mathematics page, eq. 9.1).

    Parameters
    ----------
    %(query)s
    %(data)s
    candidates : array_like or Domain
        U minus D (possibly empty), or an integer `Domain` holding the data.
    rho : array_like
        Target risk(s) in [0, 1], any shape.
    %(k_unknown)s
    %(ddof)s
    %(q)s
    rtol : float, optional
        Relative precision of the searches (default 0: adjacent floats).
    max_worlds : int, optional
        Refuse more worlds per D', or distinct removals, than this (default 10**8).
    risk : {"worst", "expected"}, optional
        The risk kept at most rho, as for `tight_scale` (default the worst case).
    noise : {"laplace", "gaussian", "discrete_laplace", "discrete_gaussian"}, optional
        The noise, as for `tight_scale` (default Laplace).
    granularity : float, optional
        The lattice spacing of integer noise (default 1).
    return_removed : bool, optional
        Also return a removal that attains the scale, per rho (default False).

    Returns
    -------
    scale : float or ndarray
        The scale, shape of ``rho``: ``0`` where no D' needs noise, ``inf``
        where rho is unattainable; it meets rho for every D'.
    removed : ndarray of int64
        Only with ``return_removed``: indices into ``data`` of a removal
        attaining the scale, per rho (with a last axis of k for k > 1).

    Raises
    ------
    ValueError
        As for `dataset_sensitive_range`, for a real interval, and for rho
        outside [0, 1] or a bad rtol.
    TypeError
        As for `dataset_sensitive_range`.

    See Also
    --------
    tight_scale : The tight scale for one world set.
    dataset_sensitive_range : The paper's sensitive range over every D'.
    sweep : This calibration over a grid (its ``tight_scale`` column).

    Examples
    --------
    >>> import diffident as di
    >>> data = [6, 6, 0, 4, 3, 2, 3, 3]  # Mathematics page, section 9
    >>> dom = di.Domain(0, 7)
    >>> S, first = di.dataset_sensitive_range("std", data=data, candidates=dom,
    ...                                       return_removed=True)
    >>> first.tolist()  # the paper's D' misses the 0
    [2]
    >>> v, c = di.world_values("std", known=data[:2] + data[3:], candidates=dom)
    >>> # enough for that D' alone
    >>> round(di.tight_scale(v, rho=0.5, counts=c), 6)
    0.156626
    >>> lam, removed = di.dataset_tight_scale(
    ...     "std", data=data, candidates=dom, rho=0.5, return_removed=True)
    >>> round(lam, 6), removed, data[removed]  # a D' missing a 6 needs more
    (0.160756, 0, 6)
    """
    qy, k, x, cands, return_removed, max_worlds = dataset_setup(query, data, candidates, k, ddof, q,
                                                                return_removed, max_worlds)
    if cands.real:
        raise ValueError("a real interval has infinitely many worlds: give an integer Domain or explicit candidates")
    r = _validate.in_range("rho", rho, 0.0, 1.0)
    rtol = _validate.tolerance("rtol", rtol)
    risk, gauss, g = noise_choice(risk, noise, granularity)
    prob = Problem(qy, k, x, cands, max_worlds)
    if risk == "expected":
        lam, who = expected_every(prob, r.ravel(), rtol, gauss, g)
    else:
        if g is not None:  # (the worst case is Laplace noise's on the lattice)
            for members in prob.sets:
                on_lattice(prob.grouped(members[0])[0], g)
        lam, who = prob.solve(r.ravel(), rtol)
    scale = _validate.ret(lam.reshape(r.shape), r.ndim == 0)
    if not return_removed:
        return scale
    idx = prob.indices(who)
    if k == 1:
        idx = idx.reshape(r.shape)
        return scale, (int(idx) if r.ndim == 0 else idx)
    return scale, idx.reshape(r.shape + (k,))


class Problem:
    """The distinct removals of a data set, their world sets, and the
    every-neighbour search over them.
    """

    def __init__(self, qy, k, x, cands, max_worlds, order=None, max_memory=DEFAULT_MAX_MEMORY):
        """``order``: the stable argsort of ``x``, when the caller has it;
        ``max_memory``: the bytes the world sets kept for reuse may take
        (half of it; the reference's are always kept).
        """
        self.qy, self.k, self.cands, self.max_worlds = qy, k, cands, max_worlds
        self.order = np.argsort(x, kind="stable") if order is None else order
        self.xs = np.ascontiguousarray(x[self.order])
        self.n = self.xs.size
        self.fsd, self.first, self.counts = _grouping.distinct(self.xs)
        if k == 1:
            self.combos = [(g,) for g in range(self.fsd.size)]
        else:
            self.combos = value_multisets(self.counts, k, max_worlds)
        self.shift = qy.code in (queries.SUM, queries.MEAN) and cands.domain is not None
        self.matched = k == 1 and not self.shift
        if k == 1:  # enumerated here (k > 1: by world_values, which checks)
            m = cands.count + (0 if cands.repeat else 1)
            if m > max_worlds:
                raise ValueError(f"{count_text(m)} possible worlds exceed max_worlds={max_worlds}: raise max_worlds to "
                                 "enumerate them")
        # removal -> (fs, counts) of its worlds, set -> (Risk, Worlds): kept
        # within a budget, least recently used out first
        self.held = Held(max_memory // 2)
        self._matched = {}  # removal -> matched values (the reference's)
        self.ref = None
        self._shift = None
        self.stats = {"removals": len(self.combos), "sets": 0, "certified": 0, "exact": 0, "binding": 0}
        self._build_sets()

    # ------------------------------------------------------------ worlds --

    def known(self, i):
        """The sorted known part D' of removal i."""
        keep = self.counts.copy()
        for g in self.combos[i]:
            keep[g] -= 1
        return np.repeat(self.fsd, keep)

    def removed(self, i):
        return self.fsd[list(self.combos[i])]

    def _world_cands(self, i):
        return self.cands if self.cands.domain is not None else self.cands.with_values(self.removed(i))

    def matched_values(self, i):
        """k = 1: the query on every world of removal i, in a fixed order of
        the worlds shared by every removal (the Domain's values; or the
        candidates, then the removed individual), evaluated as
        `world_values` evaluates them (the reference's are kept).
        """
        if i in self._matched:
            return self._matched[i]
        cand = self._world_cands(i)
        kn = Known.checked(self.known(i), cand.lo)
        if self.cands.domain is not None:
            rows = self.cands.vals
        else:
            rows = np.append(self.cands.vals, self.removed(i))
        vals = kn.values(self.qy, np.ascontiguousarray(rows[:, None]))
        if self.ref is not None and i == self.sets[self.ref][0]:
            self._matched[i] = vals
        return vals

    def grouped(self, i):
        """(values, counts) of the worlds of removal i, as `world_values` gives them."""
        return self.held.get(("grouped", i), lambda: self._grouped(i), self._pinned(i))

    def _grouped(self, i):
        if self.k == 1:
            return _grouping.group_counts(self.matched_values(i))
        cand = self._world_cands(i)  # (validated with the data, by dataset_setup)
        kn = Known.checked(self.known(i), cand.lo)
        return world_values_of(self.qy, self.k, cand, kn, self.max_worlds)

    def _pinned(self, i):
        """Whether removal i is the reference's (its sets are always kept)."""
        return self.ref is not None and i == self.sets[self.ref][0]

    def risk(self, s):
        """The worst-case evaluator (`Risk`) of world set s."""
        return self._risk_worlds(s)[0]

    def worlds(self, s):
        """The `Worlds` of world set s."""
        return self._risk_worlds(s)[1]

    def _risk_worlds(self, s):
        def make():
            fs, c = self.grouped(self.sets[s][0])
            ws = Worlds.checked(fs, c)
            return Risk(ws), ws

        return self.held.get(("risk", s), make, s == self.ref)

    # -------------------------------------------------------------- sets --

    def _build_sets(self):
        """Group the removals into distinct world sets; choose the reference
        (the set with the largest sensitive range).
        """
        qy, nrem = self.qy, len(self.combos)
        self.spread = None
        if self.shift:
            self.sets = [[i] for i in range(nrem)]
            self.ref = 0
            return
        if qy.code in _ORDER_STATS and (self.k == 1 or self.cands.domain is not None):
            keys = self._order_signatures()
            _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
            inverse = inverse.ravel()
            self.sets = [list(np.flatnonzero(inverse == g)) for g in np.argsort(first)]
        elif self.k == 1 and qy.named and qy.code in (queries.VAR, queries.STD):
            self.sets = [[i] for i in range(nrem)]  # distinct removed values, distinct moments
        else:  # evaluate every removal, group equal world sets
            seen: dict[tuple[bytes, bytes], int] = {}
            self.sets = []
            for i in range(nrem):
                fs, c = self.grouped(i)
                key = (fs.tobytes(), np.asarray(c, np.float64).tobytes())
                if key in seen:
                    self.sets[seen[key]].append(i)
                else:
                    seen[key] = len(self.sets)
                    self.sets.append([i])
        self.stats["sets"] = len(self.sets)
        self.spread = self._spreads()
        self.ref = int(np.argmax(self.spread))

    def _order_signatures(self):
        """The known values an order statistic reads: removals that leave
        them equal have equal worlds (a coarser grouping than the equal
        removed values of the Mathematics page, eq. 9.1: for the median,
        every removal below the middle is one).  `kth` reads indices r - k
        to r of the known part for each rank r the query takes.
        """
        qy, k, n = self.qy, self.k, self.n
        n0 = n - k
        N = n
        if qy.code == queries.MIN:
            ranks = [0]
        elif qy.code == queries.MAX:
            ranks = [N - 1]
        elif qy.code == queries.MEDIAN:
            ranks = [N // 2] if N % 2 else [N // 2 - 1, N // 2]
        elif qy.code == queries.QUANTILE:
            vi = float(N - 1) * qy.q
            ranks = [N - 1] if vi >= N - 1 else [int(math.floor(vi)), int(math.floor(vi)) + 1]
        else:  # count reads nothing
            ranks = []
        idx = sorted({i for r in ranks for i in range(max(0, r - k), min(r, n0 - 1) + 1)})
        J = np.array(idx, dtype=np.int64)
        if k == 1:
            p = self.first[:, None]
            return np.where(J[None, :] < p, self.xs[J][None, :], self.xs[np.minimum(J + 1, n - 1)][None, :]) \
                if J.size else np.zeros((len(self.combos), 0))
        rows = np.empty((len(self.combos), J.size))
        for i in range(len(self.combos)):
            rows[i] = self.known(i)[J]
        return rows

    def _spreads(self):
        """The sensitive range of each world set."""
        empty = self.cands.domain is None and self.cands.vals.size == 0
        if self.k == 1 and self.qy.named and self.qy.code != queries.COUNT and not empty:
            S_by = dataset_k1(self.qy, self.xs, self.cands)[0]
            return np.array([S_by[self.sets[s][0]] for s in range(len(self.sets))])
        out = np.empty(len(self.sets))
        for s, members in enumerate(self.sets):
            fs, _ = self.grouped(members[0])
            with np.errstate(over="ignore"):  # a spread beyond the float range: inf
                out[s] = fs[-1] - fs[0]
        return out

    def indices(self, who):
        """Data indices of the representative removal of each set in ``who``."""
        reps = {}
        for s in np.unique(who):
            i = self.sets[s][0]
            combo = self.combos[i]
            if self.k == 1:
                reps[s] = [self.order[self.first[combo[0]]]]
            else:
                reps[s] = list(index_rows(combo, self.first, self.counts, self.order)[0])
        return np.array([reps[s] for s in who], dtype=np.int64).reshape(who.size, self.k)

    # ------------------------------------------------------------ search --

    def solve(self, rho, rtol):
        """(scale, set attaining it) for a 1-d array of rho."""
        n = rho.size
        ref = self.ref
        X, wX = self.risk(ref), self.worlds(ref)
        lam = np.zeros(n)
        who = np.full(n, ref, dtype=np.int64)
        # the limits decided exactly, as tight_scale does: X's here (every
        # D' has as many worlds, counted with multiplicity, hence the same
        # risk at infinite noise; each other set's own limit is checked
        # again where it is searched).  The closed-form fallback below uses
        # exact_m=False: tight_scale's worlds here carry counts (weighted)
        zero = wX.share_at_most(rho, "zero")
        inf = ~zero & wX.share_at_most(rho, "inf")
        lam[inf] = np.inf
        if self.shift:
            # every D' is X shifted: no noise only where none is ever needed
            todo = np.flatnonzero(~inf & (rho < 1.0))
            if todo.size:
                bound = self.shift_bound()
                lam[todo], status = smallest_scale(bound, rho[todo], rtol)
                lam[todo] = no_more_than_the_bound(bound, rho[todo], lam[todo], exact_m=False)
                _search.warn_unconverged(status, "dataset_tight_scale")
            return lam, who
        todo = np.flatnonzero(~inf & ~zero)
        if todo.size:
            lam[todo], status = smallest_scale(X, rho[todo], rtol)
            lam[todo] = no_more_than_the_bound(X, rho[todo], lam[todo], exact_m=False)
            _search.warn_unconverged(status, "dataset_tight_scale")
        if len(self.sets) == 1:
            return lam, who
        # verify every other world set where X's answer is finite and rho < 1
        # (every risk is at most 1)
        check = np.flatnonzero(~inf & (rho < 1.0))
        cert = None
        rounds = 0
        while check.size:
            rounds += 1
            if rounds > 4 * len(self.sets) + 8:  # not expected: every round raises some scale
                raise RuntimeError("dataset_tight_scale: the verification did not settle")
            if cert is None and self.matched and check.size and np.any(lam[check] > 0):
                cert = Certificate(self)
            fails = self._verify(check, lam, rho, who, cert)
            moved = set()
            for s, idx in fails:
                self.stats["binding"] += idx.size
                new = self._search_above(s, rho[idx], lam[idx], rtol)
                up = new > lam[idx]
                lam[idx[up]] = new[up]
                who[idx[up]] = s
                moved.update(idx[up].tolist())
            check = np.array(sorted(moved), dtype=np.int64)
        return lam, who

    def shift_bound(self):
        """The bound every D' of sum and mean over a Domain is held to (made once)."""
        if self._shift is None:
            self._shift = self._shift_bound(self.risk(self.ref))
        return self._shift

    def _shift_bound(self, X):
        """The bound every D' of sum and mean over a Domain is held to: on
        X's evaluator, or, where X's worlds are an arithmetic progression
        before rounding with one world each (k = 1, no values merged by
        rounding), on its closed form (`_spaced.SpacedRisk`, one evaluation
        per scale instead of a pass).  Each rounded world value lies within
        B / 4 of the progression, so the closed form's offset adds B / 2 to
        X's: every D' is then held to a bound at least X's (the results
        equal or above those of X's evaluator, within its error bound).
        """
        B = shift_offset(self)
        sp = spacing(self.qy, self.cands, self.n) if self.k == 1 else None
        m = self.cands.count
        if sp is None or X.fs.size != m or not np.all(X.W == X.W[0]):
            return ShiftBound(X, B, set_error(X))
        return ShiftBound(SpacedRisk(X, sp[0], sp[1], m), 1.5 * B, set_error(X))

    def _verify(self, idx, lam, rho, who, cert):
        """The (set, rho indices) where a set fails its own `tight_scale`
        test at lam: its computed risk above rho lowered by its error bound
        (at lam = 0: rho below its largest share, decided exactly).
        """
        certified = np.zeros(idx.size, bool)
        if cert is not None:
            ok = (lam[idx] > 0) & np.isfinite(lam[idx])
            if ok.any():
                certified[ok] = cert.check(lam[idx[ok]], rho[idx[ok]])
        self.stats["certified"] += int(certified.sum()) * (len(self.sets) - 1)
        fails = []
        for s in range(len(self.sets)):
            _progress.tick(lambda s=s: f"checking D' {s + 1}/{len(self.sets)}")
            # the reference is not covered by its own certificate
            covered = certified if (cert is not None and s != self.ref) else np.zeros(idx.size, bool)
            sel = idx[~covered & (who[idx] != s)]
            if sel.size == 0:
                continue
            self.stats["exact"] += sel.size
            risk = self.risk(s)
            at0 = lam[sel] == 0
            ok = np.empty(sel.size, bool)
            ok[at0] = self.worlds(s).share_at_most(rho[sel[at0]], "zero")
            r, _ = risk(lam[sel[~at0]])
            ok[~at0] = r <= _search.below(rho[sel[~at0]], risk.error)
            # or where tight_scale's closed-form bound (`no_more_than_the_bound`)
            # certifies a scale at most lam: the set's own tight_scale is at most lam
            maybe = np.flatnonzero(~at0)[~ok[~at0] & (r <= rho[sel[~at0]])]
            if maybe.size:
                t = sel[maybe]
                ok[maybe] = no_more_than_the_bound(risk, rho[t], np.full(t.size, np.inf), exact_m=False) <= lam[t]
            bad = sel[~ok]
            if bad.size:
                fails.append((s, bad))
        return fails

    def _search_above(self, s, rho, lo, rtol):
        """Set s's smallest passing scale above ``lo`` (where it fails)."""
        risk = self.risk(s)
        x = np.full(rho.size, np.inf)
        # rho at most this set's risk at infinite noise: unattainable here
        todo = np.flatnonzero(~self.worlds(s).share_at_most(rho, "inf"))
        if todo.size:
            x[todo] = self._search_set(risk, rho[todo], lo[todo], rtol)
        return x

    def _search_set(self, risk, rho, lo, rtol):
        """`_search_above` where rho is attainable: the search, then
        tight_scale's closed-form bound where it is smaller.
        """
        target = _search.below(rho, risk.error)  # as tight_scale tests a scale
        _, hi = guesses(risk.fs, risk.W, rho)
        with np.errstate(over="ignore", under="ignore"):  # beyond the float range: the search grows it
            hi = np.maximum(np.ldexp(hi, -risk.k), 2.0 * lo)
        x, status = _search.smallest(lambda i, t: risk(t)[0], target, lo, hi, rtol=rtol)
        _search.warn_unconverged(status, "dataset_tight_scale")
        low = x <= lo  # only if the computed risk is not monotone: search up from lo
        if low.any():
            j = np.flatnonzero(low)
            x[j], _ = _search.boundary(lambda i, t: risk(t)[0] <= target[j[i]], lo[j], increasing=True)
        return no_more_than_the_bound(risk, rho, x, exact_m=False)


