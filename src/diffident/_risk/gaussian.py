"""(rho, delta)-identifiability under Gaussian noise (Mathematics page,
section 7); the algorithm is described in docs/algorithms/risk.md.
"""



import numpy as np

from .._numerics import search as _search
from .._numerics import validate as _validate
from .._numerics.shared_docs import shared_docs
from .._typing import FloatOrArray, GaussianNoise, RealArrayLike
from .._worlds.values import Worlds
from .gaussian_model import Model, deltas

__all__ = ["gaussian_delta", "gaussian_sigma_for"]


def _lattice_of(ws, noise, granularity):
    """The granularity of discrete Gaussian noise (values checked on it), or None for Gaussian."""
    gauss, g = _validate.lattice_noise(noise, granularity)
    if not gauss:
        raise ValueError(f"noise must be 'gaussian' or 'discrete_gaussian', got {noise!r}")
    if g is not None:
        _validate.lattice("values", ws.f, g)
    return g


def _representatives(model):
    """One live world per distinct (value, prior): equal worlds, equal delta."""
    live = np.flatnonzero(model.live)
    keys = np.stack([model.f[live], model.p[live]], axis=1)
    _, first = np.unique(keys, axis=0, return_index=True)
    return live[np.sort(first)]


@shared_docs
def gaussian_delta(values: RealArrayLike, *, rho: RealArrayLike, sigma: RealArrayLike,
                   counts: RealArrayLike | None = None,
                   prior: RealArrayLike | None = None, world: int | None = None,
                   noise: GaussianNoise = "gaussian", granularity: float = 1.0) -> FloatOrArray:
    """(rho, delta)-identifiability of a Gaussian release: the delta at sigma (eq. 7.1).

    Parameters
    ----------
    %(values)s
    rho : array_like
        Risk bounds in [0, 1].
    sigma : array_like
        Noise standard deviations, positive and finite (broadcast with rho).
    %(counts)s
    %(prior)s
    world : int or array_like of int, optional
        The true world(s); by default the maximum over every world.
    noise : {"gaussian", "discrete_gaussian"}, optional
        The noise (default Gaussian); discrete: Mathematics page, section 11.
    granularity : float, optional
        Lattice spacing of discrete Gaussian noise (default 1).

    Returns
    -------
    float or ndarray
        The probability delta in [0, 1], shape ``broadcast(rho, sigma[, world])``.

    Raises
    ------
    ValueError
        For bad values, counts, prior, rho, sigma or world, or no broadcast.
    TypeError
        For a non-integer world, or an argument that is not real numbers.

    See Also
    --------
    gaussian_sigma_for : The smallest sigma for a (rho, delta) target.
    analytic_gaussian_delta : The (epsilon, delta)-DP delta of the same noise.

    Examples
    --------
    >>> import diffident as di
    >>> round(di.gaussian_delta([0.0, 1.0], rho=0.9, sigma=1.0, world=0), 10)
    0.0448271051
    """
    ws = Worlds(values, counts, prior)
    r = _validate.in_range("rho", rho, 0.0, 1.0)
    s = _validate.positive_scale("sigma", sigma)
    g = _lattice_of(ws, noise, granularity)
    model = Model(ws, counts, prior)
    if world is not None:
        w = _validate.integer_index("world", world, ws.n)
        shape = np.broadcast_shapes(r.shape, s.shape, w.shape)
        rb, sb, wb = (np.broadcast_to(a, shape).ravel() for a in (r, s, w))
        d, st = deltas(model, wb, rb, sb, g=g)
        _search.warn_unconverged(st, "gaussian_delta")
        return _validate.ret(d.reshape(shape), len(shape) == 0)
    shape = np.broadcast_shapes(r.shape, s.shape)
    rb, sb = (np.broadcast_to(a, shape).ravel() for a in (r, s))
    reps = _representatives(model)
    T = rb.size
    d, st = deltas(model, np.tile(reps, T), np.repeat(rb, reps.size), np.repeat(sb, reps.size), g=g)
    _search.warn_unconverged(st, "gaussian_delta")
    return _validate.ret(d.reshape(T, reps.size).max(axis=1).reshape(shape), len(shape) == 0)


@shared_docs
def gaussian_sigma_for(values: RealArrayLike, *, rho: RealArrayLike, delta: RealArrayLike,
                       counts: RealArrayLike | None = None,
                       prior: RealArrayLike | None = None, world: int | None = None,
                       rtol: float = 1e-9, noise: GaussianNoise = "gaussian",
                       granularity: float = 1.0) -> FloatOrArray:
    """The smallest Gaussian sigma meeting a (rho, delta) target.

    Parameters
    ----------
    %(values)s
    rho : array_like
        Risk bounds in [0, 1].
    delta : array_like
        Allowed probabilities in (0, 1), broadcast with rho.
    %(counts)s
    %(prior)s
    world : int or array_like of int, optional
        The true world(s), all of which must meet the target; default every one.
    rtol : float, optional
        Relative width of the final bracket (default 1e-9; 0: adjacent floats).
    noise : {"gaussian", "discrete_gaussian"}, optional
        The noise (default Gaussian); discrete: Mathematics page, section 11.
    granularity : float, optional
        Lattice spacing of discrete Gaussian noise (default 1).

    Returns
    -------
    float or ndarray
        The sigma, shape ``broadcast(rho, delta)``; 0 or inf at the edges.

    Raises
    ------
    ValueError
        For bad values, counts, prior, rho, delta, rtol or world, or no broadcast.
    TypeError
        For a non-integer world, or an argument that is not real numbers.

    See Also
    --------
    gaussian_delta : The delta that this sigma bounds.
    analytic_gaussian_sigma : The sigma for (epsilon, delta)-DP instead.

    Examples
    --------
    >>> import diffident as di
    >>> s = di.gaussian_sigma_for([0.0, 1.0, 2.0], rho=0.9, delta=0.05)
    >>> bool(di.gaussian_delta([0.0, 1.0, 2.0], rho=0.9, sigma=s) <= 0.05)
    True
    """
    ws = Worlds(values, counts, prior)
    r = _validate.in_range("rho", rho, 0.0, 1.0)
    dl = _validate.in_range("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
    rtol = _validate.tolerance("rtol", rtol)
    g = _lattice_of(ws, noise, granularity)
    model = Model(ws, counts, prior)
    if world is not None:  # checked here too: edge targets never reach the search
        w = np.unique(_validate.integer_index("world", world, ws.n))
        worlds = w[model.live[w]]
        worlds = worlds[np.unique(np.stack([model.f[worlds], model.p[worlds]], axis=1), axis=0,
                                  return_index=True)[1]] if worlds.size else worlds
    else:
        worlds = _representatives(model)
    shape = np.broadcast_shapes(r.shape, dl.shape)
    rb, db = (np.broadcast_to(a, shape).ravel().copy() for a in (r, dl))
    out = np.full(rb.shape, np.nan)
    nw = worlds.size
    if nw == 0:  # only worlds of zero weight: never identified
        out[:] = 0.0
        return _validate.ret(out.reshape(shape), len(shape) == 0)
    # the edges, compared exactly: no noise needed where rho >= every
    # world's own share; unattainable where rho <= a world's share at
    # infinite noise
    ur, inv = np.unique(rb, return_inverse=True)
    rr, ww = np.repeat(ur, nw), np.tile(worlds, ur.size)
    zero = (model.signs(rr, ww, own=True) >= 0).reshape(ur.size, nw).all(axis=1)
    never = (model.signs(rr, ww, own=False) <= 0).reshape(ur.size, nw).any(axis=1)
    out[zero[inv]] = 0.0
    out[np.isnan(out) & never[inv]] = np.inf
    todo = np.flatnonzero(np.isnan(out))
    if todo.size:
        fs = model.fs
        spread = min(0.5 * fs[-1] - 0.5 * fs[0], np.finfo(float).max / 2.0) * 2.0
        spread = spread if spread > 0 else 1.0

        def dmax(i, sig):
            t = todo[i]
            d, st = deltas(model, np.tile(worlds, t.size), np.repeat(rb[t], nw), np.repeat(sig, nw), upper=True,
                            g=g)
            _search.warn_unconverged(st, "gaussian_sigma_for")
            return d.reshape(t.size, nw).max(axis=1)

        sig, status = _search.smallest(dmax, db[todo], spread / 4.0, spread, rtol=rtol,
                                 lo_limit=0.0, hi_limit=np.finfo(float).max)
        out[todo] = np.where(status == _search.NOT_REACHED, np.inf, sig)
        _search.warn_unconverged(status, "gaussian_sigma_for")
    return _validate.ret(out.reshape(shape), len(shape) == 0)
