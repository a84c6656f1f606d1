"""Certificates for `dataset_tight_scale`: a scale checked against every D'
at once (shared world sets, the shift bound of sum and mean, dominance
blocks, the var/std offsets), so that only a D' that fails is searched.
"""

import numba
import numpy as np

from .._kernels import neighbours, queries
from .._numerics import grouping as _grouping
from .._numerics import progress as _progress
from .._numerics import search as _search
from .._numerics.floats import EPS, U
from .._risk.worst_case import Evaluator, sweep_error
from .._worlds.sets import Known

# Relative rounding of a certificate's own arithmetic, on top of the
# evaluator's error bound: the weights exp(-s B+), their product with 1/P,
# the bound 1 / (1 + e (1/r - 1)) (a few units of roundoff each).
_OWN_ROUNDING = 32 * U
_BATCH_RATIO = 4.0  # largest ratio of 1/scale within a certificate batch
_ONE_BATCH_WORLDS = 4096  # up to this many distinct values, try one batch first
_BLOCK_GROUPS = 8  # groups of X per finest block of the dominated certificate's near field
_CHUNK_PAIRS = 1 << 27  # worlds x removals per chunk of the var/std certificate (about 0.3 s)


def set_error(X):
    """An error bound for the evaluation of any removal's worlds: at most
    one group per world of X's (64 more for rounding ties), all weights
    whole counts (the bound of `Risk.error`, which grows with the groups
    and with the total weight over the smallest).
    """
    return sweep_error(np.append(X.W, np.ones(64)))


class ShiftBound:
    """A bound on the computed risk of every D' for sum and mean over a
    Domain, in `Risk`'s interface (``fs``, ``W``, ``k``, ``error``, called
    on scales).
    """

    def __init__(self, risk, B, error):
        self.risk, self.B, self.error = risk, B, error
        self.fs, self.W, self.invP, self.k = risk.fs, risk.W, risk.invP, risk.k
        self.pad = B  # every removal's exact spread is at most X's computed one plus B / 2

    def __call__(self, lam, strict=True):
        r, arg = self.risk(lam, strict)
        r = np.minimum(r * (1.0 + self.risk.error + _OWN_ROUNDING), 1.0)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            e = np.exp(-self.B / lam)
            h = r / (r + e * (1.0 - r))
        return h * (1.0 + _OWN_ROUNDING) * (1.0 + self.error), arg


def shift_offset(prob):
    """B for sum and mean over a Domain: four times a bound on how far any
    world value, as `world_values` computes it (double-double sums, one
    final rounding), lies from its exact value.
    """
    xs, k = prob.xs, prob.k
    top = max(abs(prob.cands.lo), abs(prob.cands.hi))
    total = float(np.abs(xs).sum()) + k * top  # bounds |sum| over every world
    div = float(prob.n) if prob.qy.code == queries.MEAN else 1.0
    # one rounding of the result (2 ulps, generously) and the double-double
    # accumulation of the known part's sum
    err = (2.0 * EPS + (prob.n + k + 8) * 2.0 ** -100) * (total * (1.0 + 1e-12)) / div
    return 4.0 * err


class Certificate:
    """Dominance of every other world set by the reference's (k = 1,
    matched worlds; module docstring).
    """

    def __init__(self, prob):
        self.prob = prob
        ref = prob.ref
        X = prob.matched_values(prob.sets[ref][0])
        perm = np.argsort(X, kind="stable")
        self.Xs = np.ascontiguousarray(X[perm])
        m = X.size
        self.first_g = _grouping.runs(self.Xs)[1]
        u = self.first_g.size
        self.risk = prob.risk(ref)
        if self.risk.fs.size != u:  # the evaluator's groups are these
            raise AssertionError("reference groups disagree")
        others = [s for s in range(len(prob.sets)) if s != ref]
        spread_x = prob.spread[ref]
        ratio = max((prob.spread[s] / spread_x for s in others), default=0.0) if spread_x > 0 else 1.0
        self.A = 0.5 * (1.0 + min(ratio, 1.0))
        B = np.full(m, -np.inf)
        qy, cands = prob.qy, prob.cands
        if qy.named and qy.code in (queries.VAR, queries.STD) and cands.domain is not None and prob.n > 1:
            self._var_offsets(others, perm, B)
        else:
            sp, sc = np.empty(m), np.empty(m)
            xmax = float(np.abs(self.Xs).max())
            for i, s in enumerate(others):
                _progress.tick(lambda i=i: f"dominance certificate, {i}/{len(others)} D'")
                Y = prob.matched_values(prob.sets[s][0])[perm]
                with np.errstate(over="ignore"):  # inf: no offset certified (a search instead)
                    slack = 4.0 * EPS * (float(np.abs(Y).max()) + self.A * xmax)
                neighbours.world_offsets(self.Xs, np.ascontiguousarray(Y), self.A, slack, sp, sc, B)
        Bg = np.maximum.reduceat(B, self.first_g) if m else B
        self.Bp = np.maximum(Bg, 0.0)
        self.err_x = self.risk.error + _OWN_ROUNDING
        self.err_y = set_error(self.risk)

    def _var_offsets(self, others, perm, B):
        """Offsets for var and std over a Domain from the centred formula,
        with a bound on its distance from the values `world_values` gives.
        """
        prob = self.prob
        qy = prob.qy
        members = np.array([prob.sets[s][0] for s in others], dtype=np.int64)
        g = np.array([prob.combos[i][0] for i in members], dtype=np.int64)
        full = Known.checked(prob.xs, 0.0)
        n, n0 = prob.n, prob.n - 1
        mu, qc, s2 = (np.empty(g.size) for _ in range(3))
        neighbours.removed_moments(full.st, full.c, prob.fsd[g], n0, mu, qc, s2, np.empty(6))
        w = n0 / n
        denom = float(n - qy.ddof)
        std = qy.code == queries.STD
        lo, hi = prob.cands.lo, prob.cands.hi
        xs = prob.xs  # the known parts' medians lie between these
        gap = float(xs[min(n // 2 + 1, n - 1)] - xs[max(n // 2 - 1, 0)])
        err_y, ymax = var_errors(mu, qc, s2, full.c, n, w, denom, lo, hi, std, gap)
        xmax = float(np.abs(self.Xs).max())
        slack = 4.0 * EPS * (ymax + self.A * xmax) + 2.0 * err_y
        vals = np.ascontiguousarray(prob.cands.vals[perm])
        m = vals.size
        nw = min(numba.get_num_threads(), g.size)
        # in chunks of removals of about _CHUNK_PAIRS worlds each, with
        # progress between them
        step = max(1, _CHUNK_PAIRS // max(m, 1))
        parallel = nw > 1 and m * g.size >= 1 << 16
        out = np.full((nw, m), -np.inf) if parallel else B
        work = [np.empty((nw, m) if parallel else m) for _ in range(3)]
        for lo in range(0, g.size, step):
            _progress.tick(lambda lo=lo: f"dominance certificate, {lo}/{g.size} D'")
            j = slice(lo, lo + step)
            if parallel:
                neighbours.var_offsets_parallel(self.Xs, vals, mu[j], qc[j], w, denom, std, self.A, slack[j], *work,
                                                out)
            else:
                neighbours.var_offsets(self.Xs, vals, mu[j], qc[j], w, denom, std, self.A, slack[j], *work, out)
        if parallel:
            np.maximum(B, out.max(axis=0), out=B)

    def check(self, lam, rho):
        """True where every covered set's risk at lam is certified <= rho."""
        out = self._dominated(lam, rho)
        rest = np.flatnonzero(~out)
        ratios = (np.inf, 64.0, _BATCH_RATIO) if self.risk.fs.size <= _ONE_BATCH_WORLDS else (64.0, _BATCH_RATIO)
        for ratio in ratios:
            order = rest[np.argsort(lam[rest])]
            i = 0
            while i < order.size:
                with np.errstate(over="ignore"):
                    end = lam[order[i]] * ratio
                j = i + 1 + int(np.searchsorted(lam[order[i + 1:]], end, side="right"))
                out[order[i:j]] = self._batch(lam, rho, order[i:j])
                i = j
            rest = np.flatnonzero(~out)
            if rest.size == 0:
                break
        return out

    def _dominated(self, lam, rho):
        """The certificate where one world t of X attains its worst case at
        every scale (`Risk.enclosure`): every S_X(i, A s) is then at least
        S_X(t, A s), so every covered Y has S_Y(i, s) >= 1 + exp(-s B+)
        (S_X(t, A s) - 1), B+ the largest offset; S_X(t, .) from below by
        the enclosure, no pass.  False where it does not apply or decide.
        """
        enc = self.risk.enclosure()
        if enc is None or enc.invP != 1.0 or enc.top_weight != 1.0:  # (matched worlds: one each)
            return np.zeros(lam.size, bool)
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            c = np.nextafter(self.risk.inverse(lam) * self.A, np.inf)
            s_lo, _ = enc.sums(c)
            s = np.nextafter(1.0 / lam, np.inf)
            low = s_lo.copy()  # worlds with B <= 0: S_Y(i, s) >= S_X(i, A s) >= S_X(t, A s)
            # a block of X's groups with some B > 0: each of its worlds has at
            # least the n worlds of each enclosing block within that block's
            # span (blocks x scales, in slices of scales)
            B_b, levels = self._blocks()
            step = max(1, (1 << 20) // max(B_b.size, 1))
            for j in range(0, lam.size, step):
                cj, sj = c[None, j:j + step], s[None, j:j + step]
                near = np.broadcast_to(s_lo[None, j:j + step], (B_b.size, cj.size))
                for n, span in levels:
                    near = np.maximum(near, n[:, None] * np.exp(-cj * span[:, None]) * (1.0 - 4.0 * U))
                e = np.exp(-sj * B_b[:, None] * (1.0 + 2.0 * U)) * (1.0 - 4.0 * U)
                bound = 1.0 + e * (near - 1.0) * (1.0 - 2.0 * U)
                if bound.size:
                    np.minimum(low[j:j + step], bound.min(axis=0), out=low[j:j + step])
            r = 1.0 / low * (1.0 + 4.0 * U)
        return (s_lo >= 1.0) & (r * (1.0 + _OWN_ROUNDING) * (1.0 + self.err_y) <= _search.below(rho, self.err_y))

    def _blocks(self):
        """The blocks of `_BLOCK_GROUPS` consecutive groups of X with some
        offset B > 0: their largest B, and per level of blocks four times
        coarser each (up to the groups' count) the worlds and the span of the
        values (scaled units, rounded up) of the block of that level holding
        each.
        """
        fs, W, Bp = self.risk.fs, self.risk.W, self.Bp
        size = _BLOCK_GROUPS
        start = np.arange(0, fs.size, size)
        B = np.maximum.reduceat(Bp, start)
        some = np.flatnonzero(B > 0)
        levels = []
        while True:
            s0 = np.arange(0, fs.size, size)
            e0 = np.minimum(s0 + size, fs.size) - 1
            at = start[some] // size  # the block of this level holding each
            with np.errstate(over="ignore"):
                span = (fs[e0] - fs[s0]) * (1.0 + 4.0 * U)
            levels.append((np.add.reduceat(W, s0)[at], span[at]))
            if size >= fs.size:
                return B[some], levels
            size *= 4

    def _batch(self, lam, rho, sel):
        """The certificate for the scales ``lam[sel]``, with the weights
        exp(-s B_g+) of the largest s = 1 / scale among them.
        """
        s_b = np.nextafter(1.0 / lam[sel].min(), np.inf)  # at least every 1 / scale
        with np.errstate(under="ignore", over="ignore"):
            # floored: the evaluator needs S P > 0; a floored group's bound,
            # 1 / (S 2**-600), is still far above 1 (no certificate there)
            weight = np.maximum(np.exp(-s_b * self.Bp), 2.0 ** -600)
        ev = Evaluator(self.risk.fs, self.risk.W, self.risk.invP * weight)
        # X at scales no larger than lam / A (a larger risk, by monotonicity):
        # 1 / scale at least A / lam (lam / A may pass the float range)
        r, _ = ev(np.nextafter(self.risk.inverse(lam[sel]) * self.A, np.inf))
        bound = np.minimum(r * (1.0 + self.err_x), 1.0)  # the exact r_Y, every covered Y
        return bound * (1.0 + self.err_y) <= _search.below(rho[sel], self.err_y)


def var_errors(mu, qc, s2, c, n, w, denom, lo, hi, std, gap=0.0):
    """Per removal: a bound on |approximate - library| world value (var or
    std of the known part plus one value in [lo, hi]) and on the values'
    size.  The approximation is ``(qc + w (v - mu)^2) / denom`` in float64
    from double-double moments about c (``s2``: the sum of squares about
    c); the library's value is the double-double formula about the known
    part's own median (within ``gap`` of c), rounded once (then its square
    root).
    """
    u = U
    n0 = n - 1
    dd_rel = (n + 8) * 2.0 ** -100  # double-double accumulation over the data
    e_s1 = dd_rel * np.sqrt(n0 * s2)
    e_mu = 2.0 * (2.0 * u * (np.abs(mu) + np.abs(mu - c)) + e_s1 / n0)
    e_q = 2.0 * (2.0 * u * qc + 2.0 * dd_rel * s2 + 2.0 * np.abs(mu - c) * e_s1)
    dm = np.maximum(np.abs(lo - mu), np.abs(hi - mu))
    dd_ = dm + e_mu
    e_t = (2.0 * dm + e_mu) * (e_mu + u * dm) + u * dd_ * dd_
    vmax = (qc + e_q + w * dd_ * dd_) / denom
    e_hat = (e_q + w * e_t + 4.0 * u * w * dd_ * dd_ + u * qc) / denom + u * vmax
    dc = max(abs(lo - c), abs(hi - c)) + gap
    # the library's sums of squares about its shift c': (a + b)^2 <= 2a^2 + 2b^2
    e_lib = 2.0 * u * vmax + dd_rel * 2.0 * (s2 + n * gap * gap + dc * dc) / denom
    e_var = 2.0 * (e_hat + e_lib)
    if not std:
        return e_var, vmax + e_var
    low = np.maximum((qc - e_q) / denom - e_var, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        e_root = np.where(low > 0, e_var / (2.0 * np.sqrt(low)), np.inf)
    e_root = np.minimum(e_root, np.sqrt(e_var))
    top = np.sqrt(vmax + e_var)
    return e_root + 2.0 * u * top, top
