"""The exact worst-case risk of a Laplace release (Mathematics page, sections 4 and 5)."""

from typing import Literal, overload

import numba
import numpy as np

from .._kernels import worstcase
from .._numerics import progress as _progress
from .._numerics import validate as _validate
from .._numerics.budget import BLOCK_BYTES as _BLOCK_BYTES
from .._numerics.floats import TINY, U
from .._numerics.shared_docs import shared_docs
from .._typing import AnyNoise, FloatOrArray, IntOrArray, RealArrayLike
from .._worlds.values import Worlds, energy_factor
from . import dominance as _dominance

__all__ = ["worst_case_risk"]


class Evaluator:
    """rho*(scale) over one merged world set, for batches of 1/scale."""

    def __init__(self, fs, W, invP):
        self.fs, self.W, self.invP = fs, W, invP
        u = fs.size
        self.nw = numba.get_num_threads()
        self.nl = max(1, (u - 1) // worstcase.K)  # links between sub-blocks
        # the blocked kernel's rows of Z: one per value where they fit,
        # else chunks of worstcase.CHUNK values (one more forward sweep)
        self.rows = u
        if self.nw * (u * 2 + self.nl * 3) * worstcase.BLOCK * 8 > _BLOCK_BYTES:
            self.rows = worstcase.CHUNK
        self.blocked_ok = (self.nw * (self.rows * 2 + self.nl * 3 + self.chunks * worstcase.NS) * worstcase.BLOCK * 8
                           <= _BLOCK_BYTES)
        self._one = None
        self._blk = None
        self._gaps = None

    @property
    def chunks(self):
        """How many chunks of ``rows`` values the blocked kernel takes (1: none)."""
        return -(-self.fs.size // self.rows)

    def gaps(self):
        """The blocked kernel's gap classes (``gi``, ``gv``), or two empty arrays if many."""
        if self._gaps is None:
            gi = np.empty(self.fs.size, np.int64)
            gv = np.empty(worstcase.MAX_CLASSES)
            n = worstcase.gap_classes(self.fs, gi, gv)
            self._gaps = (gi, gv[:n].copy()) if n > 0 else (gi[:0].copy(), gv[:0])
        return self._gaps

    def __call__(self, inv):
        """rho* and the argmax group for a 1-d float64 array of 1/scale."""
        _progress.tick()
        return below_normal_again(self._evaluate, inv, self.invP)

    def _evaluate(self, inv, invP):
        k = inv.size
        out = np.empty(k)
        arg = np.empty(k, np.int64)
        u = self.fs.size
        if k >= worstcase.BLOCK and self.blocked_ok:
            nb = -(-k // worstcase.BLOCK)
            pad = np.empty(nb * worstcase.BLOCK)
            pad[:k] = inv
            pad[k:] = inv[-1]
            o = np.empty(pad.size)
            a = np.empty(pad.size, np.int64)
            nw = min(self.nw, nb)
            gi, gv = self.gaps()
            if self._blk is None or self._blk[0].shape[0] < nw:
                # each worker's state row padded by a cache line: the rows are
                # written at every step, and two workers sharing a line would
                # stall each other (false sharing)
                B = worstcase.BLOCK
                self._blk = (np.empty((nw, max(gv.size, 1), B)), np.empty((nw, self.rows, 2 * B)),
                             np.empty((nw, self.nl, 3 * B)), np.empty((nw, 16 * B + 8)),
                             np.empty((nw, self.chunks, worstcase.NS * B)))
            T, Z, LK, C, S = self._blk
            worstcase.worst_case_blocks_parallel(self.fs, self.W, invP, gi, gv, pad, o, a, T[:nw], Z[:nw], LK[:nw],
                                                 C[:nw], S[:nw])
            out[:] = o[:k]
            arg[:] = a[:k]
        else:
            if self._one is None:
                self._one = (np.empty((2, u)), np.empty((self.nl, 3)), np.empty(worstcase.NF), np.empty(worstcase.NB))
            worstcase.worst_case_scales(self.fs, self.W, invP, inv, out, arg, *self._one)
        return out, arg


RISK_SHIFT = 64  # risks below the normal range are formed 2**64 times larger


def below_normal_again(evaluate, inv, invP):
    """``evaluate(inv, invP)``, rows below the normal range evaluated again, scaled."""
    out, arg = evaluate(inv, invP)
    z = np.flatnonzero(out < TINY)
    if z.size:
        r, arg[z] = evaluate(np.ascontiguousarray(inv[z]), np.ldexp(invP, -RISK_SHIFT))
        out[z] = scale_down_up(r, RISK_SHIFT)
    return out, arg


def scale_down_up(r, t):
    """``r 2**-t`` rounded up (r >= 0, an array)."""
    with np.errstate(under="ignore"):
        out = np.ldexp(r, -t)
        out = np.where(np.ldexp(out, t) < r, np.nextafter(out, np.inf), out)
    return out




def sweep_error(W):
    """A bound on the relative error of the sweep's rho* over group weights W."""
    n = float(W.sum() / W.min())
    x = min(np.log(n) + 1.0, 745.0) if n > 1.0 else 1.0
    return 2.0 * (3.0 * x + 4.0 * min(W.size, worstcase.K) + 64.0) * U


def spread_exponent(lo, hi):
    """The power of two k scaling values and scales when their spread is out of range, else 0."""
    if not hi > lo:
        return 0
    with np.errstate(over="ignore"):
        d = hi - lo  # exact for subnormal values; inf where it overflows
    e = int(np.frexp(d)[1]) if np.isfinite(d) else int(np.frexp(0.5 * hi - 0.5 * lo)[1]) + 1  # d < 2**e
    return 0 if -1000 <= e <= 1021 else -e


def inverse_scales(lam, k, min_gap, strict=True):
    """1 / scale in the units of values scaled by 2**k (inf for 0, 0 for inf)."""
    lam = np.ascontiguousarray(lam, dtype=np.float64).ravel()
    c = energy_factor(lam, k, False)
    over = np.isinf(c) & (lam > 0)
    unknown = np.zeros(lam.size, bool)
    if over.any() and min_gap() < 2.0 ** -1000:
        if not strict:
            return c, over
        bad = float(lam[over].max())
        raise ValueError(f"scale {bad!r} is too small for values this close together: 1/scale overflows "
                         "while exp(-gap/scale) is not negligible; rescale the values")
    return c if strict else (c, unknown)


class Risk:
    """rho*(scale) of one world set for batches of scales (0 and inf allowed)."""

    pad = 0.0  # added to the spread by the closed-form bound (a bound's allowance, `_ShiftBound`)

    def __init__(self, ws, need_rep=False):
        ws.check_linear()
        groups = ws.groups(need_rep=need_rep)
        fs, W, invP = groups[:3]
        self.rep = groups[3] if need_rep else None
        self.k = spread_exponent(fs[0], fs[-1])
        self.fs = np.ldexp(fs, self.k) if self.k else fs
        self.W, self.invP = W, invP
        self.ev = Evaluator(self.fs, W, invP)
        self.error = sweep_error(W)
        self._enc = None

    def enclosure(self):
        """The `_dominance.Enclosure` of these worlds if one world is always the worst, else None."""
        if self._enc is None:
            self._enc = _dominance.enclosure(self.fs, self.W, self.invP) or False
        return self._enc or None

    def inverse(self, lam, strict=True):
        """The evaluator's 1 / scale, in the scaled units (inf for 0)."""
        return inverse_scales(lam, self.k, lambda: np.diff(self.fs).min() if self.fs.size > 1 else np.inf, strict)

    def __call__(self, lam, strict=True):
        """rho* and the argmax group for a 1-d array of scales (not ``strict``: risk 1 if too small)."""
        if strict:
            return self.ev(self.inverse(lam))
        c, unknown = self.inverse(lam, strict=False)
        r, arg = self.ev(c)
        return np.where(unknown, 1.0, r), arg


@overload
def worst_case_risk(values: RealArrayLike, *, scale: float, counts: RealArrayLike | None = None,
                    prior: RealArrayLike | None = None, noise: AnyNoise = "laplace",
                    granularity: float = 1.0, return_world: Literal[False] = False) -> float: ...


@overload
def worst_case_risk(values: RealArrayLike, *, scale: RealArrayLike, counts: RealArrayLike | None = None,
                    prior: RealArrayLike | None = None, noise: AnyNoise = "laplace",
                    granularity: float = 1.0, return_world: Literal[False] = False) -> FloatOrArray: ...


@overload
def worst_case_risk(values: RealArrayLike, *, scale: RealArrayLike, counts: RealArrayLike | None = None,
                    prior: RealArrayLike | None = None, noise: AnyNoise = "laplace",
                    granularity: float = 1.0, return_world: Literal[True]) -> tuple[FloatOrArray, IntOrArray]: ...


@shared_docs
def worst_case_risk(values: RealArrayLike, *, scale: RealArrayLike, counts: RealArrayLike | None = None,
                    prior: RealArrayLike | None = None, noise: AnyNoise = "laplace",
                    granularity: float = 1.0, return_world: bool = False
                    ) -> FloatOrArray | tuple[FloatOrArray, IntOrArray]:
    """The exact worst-case identification risk of a Laplace release (eq. 4.1).

    Parameters
    ----------
    %(values)s
    scale : array_like
        Laplace scale(s), any shape; 0 (no noise) and ``inf`` allowed.
    %(counts)s
    %(prior)s
    noise : {"laplace", "discrete_laplace", "gaussian", "discrete_gaussian"}, optional
        The noise (default Laplace); Gaussian energies give 1 for scales in (0, inf).
    %(granularity)s
    return_world : bool, optional
        Also return the index of a world attaining the maximum (default False).

    Returns
    -------
    risk : float or ndarray
        The worst-case risk, shape of ``scale``; between 1/m_eff and 1.
    world : int or ndarray of int64
        Only with ``return_world``: the index of a world attaining it.

    Raises
    ------
    ValueError
        For bad values, scales, counts, prior, noise, lattice or shared extremes.
    TypeError
        If an argument is not real numbers, or ``return_world`` is not a bool.

    See Also
    --------
    tight_scale : The smallest scale whose worst-case risk meets a target.
    risk_bound : The paper's (looser) closed-form bound.
    multi_worst_case_risk : The same for several releases.

    Examples
    --------
    >>> import diffident as di
    >>> toy = [2, 8/3, 3, 10/3, 11/3, 4, 13/3, 14/3]   # paper sec. 4, means
    >>> round(di.worst_case_risk(toy, scale=2.128628267061142), 6)
    0.229438
    """
    ws = Worlds(values, counts, prior)
    lam = _validate.scale_or_limit("scale", scale)
    return_world = _validate.flag("return_world", return_world)
    gauss, g = _validate.lattice_noise(noise, granularity)
    if g is not None:
        _validate.lattice("values", ws.f, g)
    lone = _lone_extreme(ws, counts, prior) if gauss else None
    scalar = lam.ndim == 0
    # Gaussian energies: 1 at every scale strictly between the limits; the
    # limits (no noise, infinite noise) are those of any noise, Laplace's
    inside = (lam > 0) & (lam < np.inf) if lone is not None else np.zeros(lam.shape, bool)
    rho = np.ones(lam.shape)
    world = np.full(lam.shape, lone if lone is not None else 0, dtype=np.int64) if return_world else None
    limits = ~inside
    if limits.any():
        risk = Risk(ws, need_rep=return_world)
        r, arg = risk(lam[limits])
        rho[limits] = r
        if world is not None:
            assert risk.rep is not None  # (asked for with need_rep)
            world[limits] = risk.rep[arg]
    if world is None:
        return _validate.ret(rho, scalar)
    return _validate.ret(rho, scalar), (int(world) if scalar else world)


def _lone_extreme(ws, counts, prior):
    """With Gaussian energies: a world alone holding an extreme value (None if one value)."""
    f = ws.f
    c = np.ones(f.size) if counts is None else np.asarray(ws._raw_counts)
    p = np.ones(f.size) if prior is None else np.asarray(ws._raw_prior)
    live = (c > 0) & (p > 0)
    lo, hi = f[live].min(), f[live].max()
    if lo == hi:
        return None
    for end in (hi, lo):
        at = np.flatnonzero(live & (f == end))
        if at.size == 1 and c[at[0]] == 1:
            return int(at[0])
    raise ValueError("worst_case_risk with Gaussian energies: the largest and the smallest value "
                     f"({hi!r}, {lo!r}) are each held by several worlds, and the supremum over "
                     "responses is then not computed; use gaussian_delta")


