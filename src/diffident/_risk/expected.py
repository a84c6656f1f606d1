"""The expected identification success: how often the maximum-a-posteriori
adversary names the true world (Mathematics page, section 10).
"""

from typing import overload

import numpy as np

from .._kernels import expected as kern
from .._numerics import progress as _progress
from .._numerics import validate as _validate
from .._numerics.floats import U
from .._numerics.shared_docs import shared_docs
from .._typing import AnyNoise, FloatOrArray, RealArrayLike
from .._worlds.values import Worlds
from .worst_case import spread_exponent

__all__ = ["expected_risk"]


@overload
def expected_risk(values: RealArrayLike, *, scale: float, noise: AnyNoise = "laplace",
                  counts: RealArrayLike | None = None, prior: RealArrayLike | None = None,
                  world: int | None = None, granularity: float = 1.0) -> float: ...


@overload
def expected_risk(values: RealArrayLike, *, scale: RealArrayLike, noise: AnyNoise = "laplace",
                  counts: RealArrayLike | None = None, prior: RealArrayLike | None = None,
                  world: int | None = None, granularity: float = 1.0) -> FloatOrArray: ...


@shared_docs
def expected_risk(values: RealArrayLike, *, scale: RealArrayLike, noise: AnyNoise = "laplace",
                  counts: RealArrayLike | None = None, prior: RealArrayLike | None = None,
                  world: int | None = None, granularity: float = 1.0) -> FloatOrArray:
    """The probability that the best adversary names the true world (section 10).

    Parameters
    ----------
    %(values)s
    scale : array_like
        Noise scale (Laplace) or sigma (Gaussian); 0 and ``inf`` allowed.
    noise : {"laplace", "gaussian", "discrete_laplace", "discrete_gaussian"}, optional
        The noise distribution (default Laplace).
    %(counts)s
    %(prior)s
    world : int, optional
        The true world's index (default None: the average over the prior).
    granularity : float, optional
        Lattice spacing of integer noise (default 1).

    Returns
    -------
    float or ndarray
        The success probability, shape of ``scale``.

    Raises
    ------
    ValueError
        For bad values, scales, counts, prior, world, noise or lattice.
    TypeError
        If an argument is not real numbers, or ``world`` is not an integer.

    See Also
    --------
    worst_case_risk : The largest posterior over every response.

    Examples
    --------
    >>> import diffident as di
    >>> round(di.expected_risk([0.0, 1.0], scale=1.0), 6)
    0.696735
    """
    ws = Worlds(values, counts, prior)
    lam = _validate.scale_or_limit("scale", scale)
    gauss, g = _validate.lattice_noise(noise, granularity)
    if world is not None and np.ndim(world) != 0:
        raise TypeError(f"world must be one integer index, got {world!r}")
    j = None if world is None else int(_validate.integer_index("world", world, ws.n))
    out = Success(ws, gauss, g)(lam.reshape(-1), world=j)
    return _validate.ret(out.reshape(lam.shape), lam.ndim == 0)


class Success:
    """The expected success of one world set and noise, for batches of scales."""

    def __init__(self, ws, gauss, granularity=None):
        fs, W, invP = ws.groups()
        # a_i = 1 / invP_i: the largest prior of the worlds of value f_i (the
        # one the adversary names), in the units of W; a group whose share
        # underflows (invP inf) never wins and is left out
        if ws.weighted:
            live = np.isfinite(invP)
            if not live.all():
                fs, invP = fs[live], invP[live]
        self.ws, self.gauss, self.g = ws, gauss, granularity
        self.fs = fs
        # one prior level: the Voronoi cells (always without weights)
        self.uniform = not ws.weighted or bool(np.all(invP == invP[0]))
        self.a = 1.0 / invP
        self.total = float(W.sum())
        if granularity is not None:
            # integer noise: the values as lattice coordinates (exact
            # integers), the scales in lattice units
            k = _validate.lattice("values", fs, granularity)
            if np.abs(k).max() > 2.0**53:
                raise ValueError(f"values must lie within 2**53 lattice steps of 0 for integer noise (granularity "
                                 f"{granularity!r}), where float64 holds every lattice point; got "
                                 f"{float(fs[np.argmax(np.abs(k))])!r}")
            self.k = 0
            self.fk = np.ascontiguousarray(k)
            return
        # the values and scales times 2**k: differences stay finite near
        # +-1e308 and a subnormal spread becomes normal (ratios unchanged)
        self.k = spread_exponent(fs[0], fs[-1])
        self.fk = np.ascontiguousarray(np.ldexp(fs, self.k)) if self.k else fs

    def scaled(self, lam):
        """The scales in the units of the scaled values, or of the lattice for integer noise."""
        if self.g is not None:
            with np.errstate(over="ignore", under="ignore"):
                return np.ascontiguousarray(np.asarray(lam, dtype=np.float64) / self.g)
        with np.errstate(over="ignore"):  # (its ratios to the scaled values are 0 anyway)
            return np.ascontiguousarray(np.ldexp(lam, self.k) if self.k else lam, dtype=np.float64)

    def __call__(self, lam, world=None):
        """The success (or world's success) at each scale of the 1-d ``lam``."""
        _progress.tick()
        ls = self.scaled(lam)
        out = np.empty(ls.size)
        if world is None and self.uniform and self.g is None:
            if self.gauss:
                kern.uniform_success(self.fk, ls, self.gauss, out)
            else:
                kern.laplace_cells(self.fk, ls, np.empty(max(self.fk.size - 1, 0)), out)
            return out * (self.a[0] / self.total)
        target, tie = (-1, 1.0) if world is None else _named(self.ws, self.fs, world)
        u = self.fk.size
        idx = np.empty(u, np.int64)
        z = np.empty(u + 1)
        masses = np.empty(ls.size)
        kern.envelope_masses(self.fk, np.log(self.a), self.a, ls, self.gauss, self.g is not None, target, idx, z,
                             out, masses)
        if world is None:
            return out / self.total
        return masses / tie if target >= 0 else np.zeros(ls.size)

    @property
    def error(self):
        """A bound on the relative error of a computed success."""
        rel = 32.0 * U + (self.fk.size * U) ** 2
        if self.uniform:
            return rel
        return rel * float(self.a.sum() / self.a.max())

    def no_noise_at_most(self, rho):
        """Whether the success without noise is at most each rho (exactly)."""
        from fractions import Fraction

        zero = self.no_noise()
        return np.array([Fraction(float(r)) >= zero for r in rho], dtype=bool)

    def no_noise(self):
        """The success without noise, ``sum_i a_i / sum_k w_k``, as a Fraction."""
        from fractions import Fraction

        ws = self.ws
        if not ws.weighted:
            return Fraction(self.fs.size, ws.n)
        c, p, f = ws._raw_counts, ws._raw_prior, ws.f
        live = (c > 0) & (p > 0)
        order = np.lexsort((p[live], f[live]))
        fl, pl = f[live][order], p[live][order]
        last = np.append(fl[1:] != fl[:-1], True)  # the largest prior of each value comes last
        top = sum(Fraction(float(x)) for x in pl[last])
        total = sum(Fraction(float(x)) * Fraction(float(y)) for x, y in zip(c[live], p[live], strict=True))
        return top / total




def _named(ws, fs, j):
    """The group of world j among ``fs`` and the number of tied worlds; group -1 if never named."""
    f = ws.f
    members = np.flatnonzero(f == f[j])
    c = np.ones(ws.n) if not ws.weighted else ws._raw_counts
    p = np.ones(ws.n) if not ws.weighted else ws._raw_prior
    alive = members[(c[members] > 0) & (p[members] > 0)]
    if c[j] == 0 or p[j] == 0 or alive.size == 0:
        return -1, 1.0
    top = p[alive].max()
    if p[j] < top:
        return -1, 1.0
    g = int(np.searchsorted(fs, f[j]))
    if g == fs.size or fs[g] != f[j]:  # (its group's share underflows: never named)
        return -1, 1.0
    return g, float(c[alive][p[alive] == top].sum())
