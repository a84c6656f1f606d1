"""The expected identification success: how often the best adversary names
the true world (Mathematics page, section 10).

The worst case (`worst_case_risk`) is the largest posterior over every
response; this is its average counterpart, the probability that the
maximum-a-posteriori adversary names the right world, averaged over the
true world (drawn from the prior) and the noise.  It lies between the
largest prior share and the worst case.
"""

from typing import overload

import numpy as np

from .._kernels import expected as kern
from .._numerics import progress as _progress
from .._numerics import validate as _validate
from .._numerics.floats import U
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


def expected_risk(values: RealArrayLike, *, scale: RealArrayLike, noise: AnyNoise = "laplace",
                  counts: RealArrayLike | None = None, prior: RealArrayLike | None = None,
                  world: int | None = None, granularity: float = 1.0) -> FloatOrArray:
    """The probability that the best adversary names the true world.

    The adversary knows the possible worlds and their prior, sees the
    release ``R = f(w) + noise`` and names the most probable world (the
    maximum a posteriori, MAP, guess: the world of the largest ``pi_k
    p(R | f_k)``).  With ``world=None`` this is its probability of naming
    the true world, the true world drawn from the prior and the noise from
    its distribution::

        P_succ = integral over R of max_k pi_k p(R | f_k) dR / sum_k c_k pi_k

    and with ``world=j`` the probability that it names world j when j is
    the true world.  Worlds of equal value cannot be told apart: the
    adversary names one of them (that of the largest prior, a tie broken
    uniformly at random), so ``c`` worlds on one value count once.  With a
    uniform prior the winning regions are the Voronoi cells of the values
    (midpoints between neighbours); with a prior they are those of the
    upper envelope of ``ln pi_k - e(|R - f_k|)``, a one-dimensional
    distance transform (Mathematics page, section 10).

    The expected success is at least the largest prior share (the guess
    without seeing R: ``1/m`` for a uniform prior) and at most the
    worst-case risk of `worst_case_risk`.

    Parameters
    ----------
    values : array_like, shape (m,)
        Query values f(w) of the possible worlds (repeats allowed).
    scale : array_like
        The noise's scale (Laplace) or standard deviation (Gaussian), any
        shape, each evaluated in one pass over the sorted values.  ``0``
        (no noise) and ``inf`` are allowed and give the limits.
    noise : {"laplace", "gaussian", "discrete_laplace", "discrete_gaussian"}, optional
        The noise distribution (default Laplace).  The integer noises live
        on the lattice of multiples of ``granularity``: the response takes
        lattice values only, and each region's mass is that of its lattice
        points (a response on a region's end belongs to the region on its
        right, the larger value).
    counts : array_like, shape (m,), optional
        Multiplicity of each entry: whole numbers >= 0.
    prior : array_like, shape (m,), optional
        Unnormalised per-world prior weights (>= 0), per world: each of the
        ``counts[k]`` worlds of entry k has weight ``prior[k]``.
    world : int, optional
        The index into ``values`` of the true world (default None: the
        average over the prior).  A world with a zero count or prior, or
        below another prior on its own value, is never named: 0.
    granularity : float, optional
        The lattice spacing of integer noise (default 1): the values must
        be multiples of it, within 2**53 steps of 0.  Only for the integer
        noises.

    Returns
    -------
    float or ndarray
        The success probability, shape of ``scale``.

    Raises
    ------
    ValueError
        For empty, multi-dimensional, NaN or infinite values, negative or NaN
        scales, bad counts or prior (negative, not whole counts, wrong
        length, all zero), a world index out of range, an unknown noise, a
        bad granularity, or values off the lattice of an integer noise.
    TypeError
        If an argument is not real numbers, ``world`` is not an integer, or
        ``noise`` is not a string.

    See Also
    --------
    worst_case_risk : The largest posterior over every response.

    Notes
    -----
    Cost: an O(m log m) sort, then O(u) per scale for u distinct values
    (the envelope with a prior keeps a stack of the winning worlds).  Every
    region's mass is a sum of non-negative terms (``-expm1``, ``erf``), and
    the regions' contributions are summed with Neumaier's compensation.

    Examples
    --------
    Two worlds at distance 1, Laplace noise of scale 1: the worst case is
    ``1 / (1 + e^-1) = 0.731``, the adversary's average success
    ``1 - e^(-1/2) / 2``:

    >>> import diffident as di
    >>> round(di.expected_risk([0.0, 1.0], scale=1.0), 6)
    0.696735
    >>> round(di.worst_case_risk([0.0, 1.0], scale=1.0), 6)
    0.731059
    >>> # the limits: 1 and 1/m
    >>> di.expected_risk([0.0, 1.0], scale=[0.0, float("inf")])
    array([1. , 0.5])

    A prior that favours world 0 makes the adversary name it more often,
    and the other world less (on average over the prior, 2/3 and 1/3):

    >>> [round(di.expected_risk([0.0, 1.0], scale=1.0, prior=[2.0, 1.0], world=j),
    ...        6) for j in (0, 1)]
    [0.785559, 0.571118]
    >>> round(di.expected_risk([0.0, 1.0], scale=1.0, prior=[2.0, 1.0]), 6)
    0.714079

    Integer noise: with discrete Laplace noise of scale 1 every lattice
    response gives the true world the posterior ``1 / (1 + e^-1)``, so the
    expected success is the worst case:

    >>> round(di.expected_risk([0.0, 1.0], scale=1.0, noise="discrete_laplace"), 6)
    0.731059
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
    """The expected success of one world set and noise, for batches of
    scales (0 and inf allowed): the groups of positive share (values and
    scales multiplied by the power of two of `spread_exponent` where their
    spread is out of range, as for the worst case) and the kernels.
    """

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
        """The scales in the units of the scaled values (inf beyond the float
        range), or of the lattice for integer noise.
        """
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
        """A bound on the relative error of a computed success.

        With one prior level every term is a cell's mass (it holds its
        world), ``2 h(gap / (2 scale))`` within 4 units of roundoff (the
        half-gap and its ratio to the scale rounded once each, ``1 - e^-t``
        (Laplace: ``kern._one_minus_exp``, 1.64 units measured) or ``erf``
        within two more, each at most as sensitive to its argument as the
        identity), summed with compensation (of non-negative terms: within
        a unit, plus ``(n u)^2`` for Laplace's four lanes of Sum2) and
        scaled: 8 units, taken four times over, plus ``(n u)^2``.  With a
        prior a region may lie away from its world, where a rounded end
        moves a small mass by up to ``0.2 u`` of the world's weight
        ``a_i``: the bound grows by the ratio of the summed weights to the
        success's least value (no noise: ``sum a_i / max a_i``, at most
        the number of groups).
        """
        rel = 32.0 * U + (self.fk.size * U) ** 2
        if self.uniform:
            return rel
        return rel * float(self.a.sum() / self.a.max())

    def no_noise_at_most(self, rho):
        """Whether the success without noise is at most each rho of the 1-d
        ``rho``, decided exactly (`no_noise`, compared as Fractions).
        """
        from fractions import Fraction

        zero = self.no_noise()
        return np.array([Fraction(float(r)) >= zero for r in rho], dtype=bool)

    def no_noise(self):
        """The success without noise, ``sum_i a_i / sum_k w_k``, as a Fraction
        (every world's value seen: the adversary names the largest prior of
        the true world's value).
        """
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
    """The group of world j among the live groups ``fs`` and the number of worlds
    the adversary chooses among there (those of the group's largest prior,
    counted with their counts); group -1 if j is never named.
    """
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
