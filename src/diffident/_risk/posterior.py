"""The adversary's posterior over possible worlds after a noisy release
(Mathematics page, section 2), computed in log space relative to a shift.
"""


import numba
import numpy as np

from .._kernels import evidence
from .._kernels import sort as radix
from .._numerics import validate as _validate
from .._numerics.shared_docs import shared_docs
from .._typing import AnyNoise, FloatArray, FloatOrArray, RealArrayLike
from .._worlds.values import Worlds, check_scaling, energy_factor, scaling_exponent, too_small

__all__ = ["log_evidence", "log_posterior", "posterior", "disclosure_risk"]

# Rough costs (ns) used to pick the direct or the sweep strategy, measured
# on the performance page's Xeon (1e4-4e6 worlds, 17-1000 responses) with
# benchmarks/crossover.py: the choice is within 1.1x of the better strategy
# but for about 1e4 worlds and 30-60 responses (at most 1.8x, 0.1 ms).
_DIRECT_NS = 1.5       # per world and point on one thread, vectorised exp
_SORT_NS = 27.0        # per world, sorting and grouping
_SWEEP_NS = 4.0        # per distinct value and distinct scale
_LOOKUP_NS = 150.0     # per point: binary search and two exps
_PARALLEL_MIN = 1 << 15  # worlds x points below which threads do not pay


_NO_WORLD = object()


def _points(values, response, scale, counts, prior, noise, world=_NO_WORLD, granularity=1.0):
    """The worlds, shape, flat points, gauss and the lattice spacing still to check (None: continuous)."""
    gauss, g = _validate.lattice_noise(noise, granularity)
    ws = Worlds(values, counts, prior, check_finite=False)
    R = _validate.finite("response", response)
    if g is not None:
        # posteriors at lattice responses are the continuous formula's
        # (the normaliser is one for every world): only the lattice is
        # checked, the values' (with their finiteness) by the caller's
        # kernel in its own pass over them (`_lattice_of`)
        _validate.lattice("response", R, g, coords=False)
    lam = _validate.positive_scale("scale", scale)
    arrays = [R, lam]
    if world is not _NO_WORLD:
        arrays.append(_validate.integer_index("world", world, ws.n))
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    return ws, shape, [_validate.flat(a, shape) for a in arrays], gauss, g


def _lattice_of(ws, lattice, k, n):
    """The kernels' ``lat``: the spacing if the kernel checks the values (k = 0), else 0.0 (checked here)."""
    if lattice is None:
        return 0.0
    if k or not n:
        _validate.lattice("values", ws.f, lattice, coords=False)
        return 0.0
    return float(lattice)


def _fail_lattice(ws, lattice):
    """After a kernel's NaN: raise for a value off the lattice, if any."""
    if lattice is not None:
        _validate.lattice("values", ws.f, lattice, coords=False)


def _conditioned(ws, R, lam, gauss, vmax=None):
    """The worlds, responses and energy factors scaled by a power of two into the kernels' range."""
    rmax = float(np.abs(R).max()) if R.size else 0.0
    smin = float(lam.min()) if lam.size else 1.0
    top = rmax if vmax is None else max(rmax, vmax)
    k = scaling_exponent(top, smin)
    if k is None:
        raise too_small("scale", smin, top)
    if k < 0:
        fmax = float(np.abs(ws.f).max())
        if not np.isfinite(fmax):
            ws.check_finite()  # raises, naming the first non-finite value
        check_scaling(k, smin, rmax + fmax, gauss, ws.f, R)
    return ws.scaled(k), (np.ldexp(R, k) if k else R), energy_factor(lam, k, gauss), k


def _evaluate(ws, R, lam, wld, gauss, log_risk=False, lattice=None):
    """Log-evidence (with world indices, also their risk or its log) at each flat point."""
    n = R.size
    with_risk = wld is not None
    fw = ws.f[wld] if with_risk else np.zeros(n)
    pw = ws.world_prior(wld) if with_risk else np.ones(n)
    logev = np.empty(n)
    risk = np.empty(n if with_risk else 1)
    m = ws.n
    nw = numba.get_num_threads()
    direct_cost = _DIRECT_NS * n * m / nw
    # the sweep sums linear weights: only where none underflows against the largest
    if n > 16 and direct_cost > 1e5 and not gauss and not log_risk and ws.linear_ok:
        inv_u, inverse = np.unique(lam, return_inverse=True)
        sweep_cost = _SORT_NS * m + _SWEEP_NS * inv_u.size * m + _LOOKUP_NS * n / nw
        if sweep_cost < direct_cost:
            if lattice is not None:
                _validate.lattice("values", ws.f, lattice, coords=False)  # (finite too)
            else:
                ws.check_finite()
            _evaluate_sweep(ws, R, inv_u, inverse.ravel(), fw, pw, with_risk, logev, risk)
            return logev + ws.log_norm, risk
    # the world's log prior, in logs throughout (a prior 1e-400 times the
    # largest is not 0 here)
    lpw = np.ascontiguousarray(ws.lp[wld] if with_risk and ws.weighted else np.log(pw))
    buf = np.empty((nw, evidence.BUF + 8))
    wc, Rc, c, k = _conditioned(ws, R, lam, gauss)
    with np.errstate(over="ignore"):  # (as the values: rescaled below where they overflow)
        fwk = np.ldexp(fw, k)
    lat = _lattice_of(ws, lattice, k, n)
    if not _direct(wc, Rc, c, gauss, fwk, lpw, with_risk, log_risk, logev, risk, buf, lat):
        _fail_lattice(ws, lattice)
        ws.check_finite()  # raises, naming the first non-finite value
        # finite values whose distances overflow: scale them into range
        wc, Rc, c, k = _conditioned(ws, R, lam, gauss, vmax=float(np.abs(ws.f).max()))
        _direct(wc, Rc, c, gauss, np.ldexp(fw, k), lpw, with_risk, log_risk, logev, risk, buf, 0.0)
    return logev + ws.log_norm, risk


def _direct(ws, R, c, gauss, fw, lpw, with_risk, log_risk, logev, risk, buf, lat):
    """The direct kernels; False if a distance was not finite (or a value off its lattice)."""
    n = R.size
    m = ws.n
    nw = buf.shape[0]
    fw = np.ascontiguousarray(fw)
    args = (ws.f, ws.lw, ws.weighted, gauss)
    if n * m < _PARALLEL_MIN or nw == 1:
        evidence.direct_points(*args, R, c, fw, lpw, with_risk, log_risk, logev, risk, buf[:1], lat)
    elif n >= 4 * nw:
        evidence.direct_points_parallel(*args, R, c, fw, lpw, with_risk, log_risk, logev, risk, buf, lat)
    else:
        parts = np.empty((nw, 4))
        one_logev = np.empty(1)
        one_risk = np.empty(1)
        for k in range(n):
            evidence.direct_one_point_parallel(*args, R[k:k + 1], c[k:k + 1], fw[k:k + 1], lpw[k:k + 1],
                                               with_risk, log_risk, one_logev, one_risk, buf, parts,
                                               lat if k == 0 else 0.0)
            logev[k] = one_logev[0]
            if with_risk:
                risk[k] = one_risk[0]
    return not np.isnan(logev).any()


def _evaluate_sweep(ws, R, lam_u, inverse, fw, pw, with_risk, logev, risk):
    fs, W, _ = ws.groups()
    # the sorted values give their magnitude for free: condition exactly
    vmax = max(abs(fs[0]), abs(fs[-1]), float(np.abs(R).max()))
    smin = float(lam_u[0])
    k = scaling_exponent(vmax, smin)
    if k is None:
        raise too_small("scale", smin, vmax)
    if k < 0:
        check_scaling(k, smin, 2.0 * vmax, False, fs, R)
    if k:
        fs, R, fw = np.ldexp(fs, k), np.ldexp(R, k), np.ldexp(fw, k)
    inv_u = energy_factor(lam_u, k, False)
    # points by scale, then by response: each group is one sweep and a walk
    order = radix.argsort(R)
    if inv_u.size > 1:
        order = order[np.argsort(inverse[order], kind="stable")]
    starts = np.searchsorted(inverse[order], np.arange(inv_u.size + 1)).astype(np.int64)
    Ro = np.ascontiguousarray(R[order])
    fwo = np.ascontiguousarray(fw[order])
    pwo = np.ascontiguousarray(pw[order] * np.exp(ws.log_shrink))  # in the groups' units
    out_l = np.empty(R.size)
    out_r = np.empty(R.size)
    u = fs.size
    A, B = np.empty(u), np.empty(u)
    args = (fs, W, inv_u, starts, Ro, fwo, pwo, with_risk, out_l, out_r, A, B) + evidence.sweep_work(u)
    nw = numba.get_num_threads()
    if R.size >= 4096 and nw > 1:
        evidence.sweep_points_parallel(*args, nw)
    else:
        evidence.sweep_points(*args)
    logev[order] = out_l - ws.log_shrink
    if with_risk:
        risk[order] = out_r


@shared_docs
def log_evidence(values: RealArrayLike, *, response: RealArrayLike, scale: RealArrayLike,
                 counts: RealArrayLike | None = None,
                 prior: RealArrayLike | None = None, noise: AnyNoise = "laplace",
                 granularity: float = 1.0) -> FloatOrArray:
    """Log of the posterior's normaliser, ``log sum_k c_k pi_k L_k(R)`` (eq. 2.2).

    Parameters
    ----------
    %(evidence_inputs)s

    Returns
    -------
    float or ndarray
        The log-evidence, shape ``broadcast(response, scale)``.

    Raises
    ------
    ValueError
        For bad values, responses, scales, counts, prior, noise or lattice.
    TypeError
        If an argument is not real numbers (a string, a bool, complex values).

    See Also
    --------
    log_posterior : The posterior of every world.
    chunked_log_evidence : The same over world values given in chunks.

    Examples
    --------
    >>> import diffident as di
    >>> # log(1 + e^-1)
    >>> round(di.log_evidence([0.0, 1.0], response=0.0, scale=1.0), 12)
    0.313261687518
    """
    ws, shape, (R, lam), gauss, g = _points(values, response, scale, counts, prior, noise,
                                              granularity=granularity)
    return _validate.ret(log_evidence_of(ws, R, lam, gauss, g).reshape(shape), len(shape) == 0)


def log_evidence_of(ws, R, lam, gauss, lattice=None):
    """`log_evidence` of a `Worlds` at validated flat responses and scales."""
    return _evaluate(ws, R, lam, None, gauss, lattice=lattice)[0]


@shared_docs
def log_posterior(values: RealArrayLike, *, response: RealArrayLike, scale: RealArrayLike,
                  counts: RealArrayLike | None = None,
                  prior: RealArrayLike | None = None, noise: AnyNoise = "laplace",
                  granularity: float = 1.0) -> FloatArray:
    """Log posterior of each world given the response(s) (Mathematics page, eq. 2.1).

    Parameters
    ----------
    %(evidence_inputs)s

    Returns
    -------
    ndarray
        Log posteriors, shape ``broadcast(response, scale).shape + (m,)``.

    Raises
    ------
    %(raises_as_log_evidence)s

    See Also
    --------
    posterior : The posterior itself, ``exp(log_posterior(...))``.
    disclosure_risk : The posterior of one world, without the world axis.

    Examples
    --------
    >>> import diffident as di
    >>> lp = di.log_posterior([0.0, 1.0], response=0.0, scale=1.0)
    >>> [round(float(x), 6) for x in lp]
    [-0.313262, -1.313262]
    """
    ws, shape, (R, lam), gauss, g = _points(values, response, scale, counts, prior, noise,
                                              granularity=granularity)
    rows: FloatArray = log_posterior_rows(ws, R, lam, gauss, g).reshape(shape + (ws.n,))
    return rows


def log_posterior_rows(ws, R, lam, gauss, lattice=None):
    """`log_posterior` of a `Worlds` at validated flat points: (points, worlds)."""
    n = R.size
    out = np.empty((n, ws.n))
    nw = numba.get_num_threads()
    buf = np.empty((nw, evidence.BUF + 8))
    vmax = None
    while True:
        wc, Rc, c, k = _conditioned(ws, R, lam, gauss, vmax)
        lat = _lattice_of(ws, lattice, k, n) if vmax is None else 0.0
        args = (wc.f, wc.lw, wc.lp, wc.weighted, gauss, Rc, c, out)
        if n >= 2 * nw and n * ws.n >= _PARALLEL_MIN:
            evidence.log_posterior_rows_parallel(*args, buf, lat)
        else:
            evidence.log_posterior_rows(*args, buf[:1], lat)
        if not (n and np.isnan(out[:, 0]).any()) or vmax is not None:
            break
        _fail_lattice(ws, lattice)
        ws.check_finite()  # raises, naming the first non-finite value
        vmax = float(np.abs(ws.f).max())  # finite values whose distances overflow
    return out


@shared_docs
def posterior(values: RealArrayLike, *, response: RealArrayLike, scale: RealArrayLike,
              counts: RealArrayLike | None = None,
              prior: RealArrayLike | None = None, noise: AnyNoise = "laplace",
              granularity: float = 1.0) -> FloatArray:
    """Posterior probability of each world: ``exp(log_posterior(...))``.

    Parameters
    ----------
    %(evidence_inputs)s

    Returns
    -------
    ndarray
        Posteriors in [0, 1], shape ``broadcast(response, scale).shape + (m,)``.

    Raises
    ------
    %(raises_as_log_evidence)s

    See Also
    --------
    log_posterior : The same in log space.
    disclosure_risk : The posterior of one world, without the world axis.

    Examples
    --------
    >>> import diffident as di
    >>> means = [10 / 4, 11 / 4, 16 / 4]            # paper sec. 3.5
    >>> p = di.posterior(means, response=5.041, scale=9 / 8)
    >>> [round(float(x), 4) for x in p]
    [0.1655, 0.2067, 0.6278]
    """
    ws, shape, (R, lam), gauss, g = _points(values, response, scale, counts, prior, noise,
                                              granularity=granularity)
    rows: FloatArray = np.exp(log_posterior_rows(ws, R, lam, gauss, g)).reshape(shape + (ws.n,))
    return rows


@shared_docs
def disclosure_risk(values: RealArrayLike, *, response: RealArrayLike, scale: RealArrayLike, world: RealArrayLike = 0,
                    counts: RealArrayLike | None = None, prior: RealArrayLike | None = None,
                    noise: AnyNoise = "laplace", granularity: float = 1.0) -> FloatOrArray:
    """Posterior probability of one world: the paper's identification risk.

    Parameters
    ----------
    %(values)s
    %(response)s
    %(scale)s
    world : int or array_like of int, optional
        Index into ``values`` of the true world (default 0), broadcast.
    %(counts)s
    %(prior)s
    %(noise)s
    %(granularity)s

    Returns
    -------
    float or ndarray
        The risk in [0, 1], shape ``broadcast(response, scale, world)``.

    Raises
    ------
    ValueError
        As for `log_evidence`, and for ``world`` out of range or empty.
    TypeError
        For a ``world`` that is not integer indices, or arguments not real.

    See Also
    --------
    worst_case_risk : The largest risk over every response and world.
    chunked_disclosure_risk : The same over world values given in chunks.

    Examples
    --------
    >>> import diffident as di
    >>> toy = [2, 8/3, 3, 10/3, 11/3, 4, 13/3, 14/3]   # paper sec. 4
    >>> round(di.disclosure_risk(toy, response=2.0, scale=2.128628267061142), 6)
    0.229438
    """
    ws, shape, (R, lam, w), gauss, g = _points(values, response, scale, counts, prior, noise, world=world,
                                                 granularity=granularity)
    _, risk = _evaluate(ws, R, lam, w, gauss, lattice=g)
    return _validate.ret(risk.reshape(shape), len(shape) == 0)
