"""The expected identification success: how often the best adversary names
the true world (Mathematics page, section 11).

The worst case (`worst_case_risk`) is the largest posterior over every
response; this is its average counterpart, the probability that the
maximum-a-posteriori adversary names the right world, averaged over the
true world (drawn from the prior) and the noise.  It lies between the
largest prior share and the worst case.
"""

import numpy as np

from . import _validate
from ._kernels import expected as kern
from ._worlds import Worlds
from ._worst_case import spread_exponent

__all__ = ["expected_risk"]


def expected_risk(values, *, scale, noise="laplace", counts=None, prior=None, world=None):
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
    distance transform (Mathematics page, section 11).

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
    noise : {"laplace", "gaussian"}, optional
        The noise distribution (default Laplace).
    counts : array_like, shape (m,), optional
        Multiplicity of each entry: whole numbers >= 0.
    prior : array_like, shape (m,), optional
        Unnormalised per-world prior weights (>= 0), per world: each of the
        ``counts[k]`` worlds of entry k has weight ``prior[k]``.
    world : int, optional
        The index into ``values`` of the true world (default None: the
        average over the prior).  A world with a zero count or prior, or
        below another prior on its own value, is never named: 0.

    Returns
    -------
    float or ndarray
        The success probability, shape of ``scale``.

    Raises
    ------
    ValueError
        For empty, multi-dimensional, NaN or infinite values, negative or NaN
        scales, bad counts or prior (negative, not whole counts, wrong
        length, all zero), a world index out of range, or an unknown noise.
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
    >>> round(di.worst_case_risk([0.0, 1.0], 1.0), 6)
    0.731059
    >>> di.expected_risk([0.0, 1.0], scale=[0.0, float("inf")])   # the limits: 1 and 1/m
    array([1. , 0.5])

    A prior that favours world 0 makes the adversary name it more often,
    and the other world less (on average over the prior, 2/3 and 1/3):

    >>> [round(di.expected_risk([0.0, 1.0], scale=1.0, prior=[2.0, 1.0], world=j), 6) for j in (0, 1)]
    [0.785559, 0.571118]
    >>> round(di.expected_risk([0.0, 1.0], scale=1.0, prior=[2.0, 1.0]), 6)
    0.714079
    """
    ws = Worlds(values, counts, prior)
    lam = _validate.scale_or_limit("scale", scale)
    gauss = _validate.check_noise(noise)
    j = None if world is None else int(_validate.integer_index("world", world, ws.n).reshape(-1)[0])
    if world is not None and np.ndim(world) != 0:
        raise TypeError(f"world must be one integer index, got {world!r}")
    fs, W, invP = ws.groups()
    # a_i = 1 / invP_i: the largest prior of the worlds of value f_i (the one
    # the adversary names), in the units of W; a group whose share underflows
    # (invP inf) never wins and is left out
    live = None if prior is None else np.isfinite(invP)
    if live is not None and live.all():
        live = None
    if live is not None:
        fs, invP = fs[live], invP[live]
    # the values and scales times 2**k: their differences stay finite near
    # +-1e308 and a subnormal spread becomes normal (the ratios are unchanged)
    k = spread_exponent(fs[0], fs[-1])
    flat = lam.reshape(-1)
    with np.errstate(over="ignore"):  # (a scale beyond the float range is inf: its ratios are 0 anyway)
        ls = np.ascontiguousarray(np.ldexp(flat, k) if k else flat)
    fk = np.ascontiguousarray(np.ldexp(fs, k)) if k else fs
    total_weight = float(W.sum())
    out = np.empty(flat.size)
    if j is None and (prior is None or np.all(invP == invP[0])):
        # one prior level: the Voronoi cells, no envelope to build
        kern.uniform_success(fk, ls, gauss, out)
        out *= (1.0 / invP[0]) / total_weight
        return _validate.ret(out.reshape(lam.shape), lam.ndim == 0)
    a = 1.0 / invP
    la = np.log(a)
    target = -1
    tie = 1.0
    if j is not None:
        target, tie = _named(ws, fs, j)
    u = fk.size
    idx = np.empty(u, np.int64)
    z = np.empty(u + 1)
    masses = np.empty(flat.size)
    kern.envelope_masses(fk, la, a, ls, gauss, target, idx, z, out, masses)
    if j is not None:
        out = masses / tie if target >= 0 else np.zeros(flat.size)
    else:
        out /= total_weight
    return _validate.ret(out.reshape(lam.shape), lam.ndim == 0)


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
