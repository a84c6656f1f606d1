"""Composition of DP releases, and the risk bound after them (`diffident.dp`)."""

from typing import overload

import numpy as np

from .._numerics import dd as _dd
from .._numerics import search as _search
from .._numerics.shared_docs import shared_docs
from .._numerics.validate import is_scalar, privacy_epsilon, probability, releases, ret, worlds
from .._risk import closed_form as _closed_form
from .._typing import FloatOrArray, RealArrayLike


def _sum_up(x, axis):
    """Sum of non-negative ``x`` along ``axis``, the exact sum rounded up (inf for inf or overflow; 0 if empty)."""
    x = np.moveaxis(x, axis, -1)
    has_inf = np.isinf(x).any(axis=-1)
    x = np.where(np.isinf(x), 0.0, x)
    if x.shape[-1] == 0:
        return np.zeros(x.shape[:-1])
    with np.errstate(over="ignore", invalid="ignore"):
        res, rem, bound = _dd.pairwise_sum(x)
        up = rem + bound > 0.0
        # the bound leaves the side open (the exact sum within it of res):
        # the exact sign of (sum - res), row by row
        open_ = np.flatnonzero((np.abs(rem) <= bound) & (bound > 0.0) & np.isfinite(res))
        if open_.size:
            rows = x.reshape(-1, x.shape[-1])[open_]
            resf = res.reshape(-1)[open_]
            sign = _dd.exact_sign(np.concatenate([rows, -resf[:, None]], axis=1))
            upf = up.reshape(-1)
            upf[open_] = sign > 0.0
            up = upf.reshape(up.shape)
        res = np.where(up, np.nextafter(res, np.inf), res)
    return np.where(has_inf | ~np.isfinite(res), np.inf, res)


def _compose_args(epsilons, deltas):
    """The checked epsilons (at least 1-d) and deltas broadcast against them (None if not given)."""
    e = privacy_epsilon("epsilons", epsilons)
    if deltas is None:
        return (e if e.ndim else e.reshape(1)), None
    d = probability("deltas", deltas)
    e, d = np.broadcast_arrays(e, d)
    if e.ndim == 0:
        e, d = e.reshape(1), d.reshape(1)
    return e, d


def _composed(epsilons, deltas, axis, combine):
    """The epsilons (and deltas, capped at 1) combined along ``axis`` by ``combine(x, axis)``."""
    e, d = _compose_args(epsilons, deltas)
    eps = combine(e, axis)
    eps = ret(eps, eps.ndim == 0)
    if d is None:
        return eps
    dt = np.minimum(combine(d, axis), 1.0)
    return eps, ret(dt, dt.ndim == 0)


def _largest(x, axis):
    """The largest of ``x >= 0`` along ``axis`` (0 for an empty axis)."""
    return np.max(x, axis=axis, initial=0.0)


@overload
def compose_sequential(epsilons: RealArrayLike, *, deltas: None = None, axis: int = -1) -> FloatOrArray: ...


@overload
def compose_sequential(epsilons: RealArrayLike, *, deltas: RealArrayLike, axis: int = -1) -> tuple[FloatOrArray,
                                                                                           FloatOrArray]: ...


@shared_docs
def compose_sequential(epsilons: RealArrayLike, *, deltas: RealArrayLike | None = None,
                       axis: int = -1) -> FloatOrArray | tuple[FloatOrArray, FloatOrArray]:
    """Basic sequential composition: (sum epsilon_i, sum delta_i)-DP.

    Parameters
    ----------
    epsilons : array_like
        The mechanisms' epsilons (>= 0, ``inf`` allowed) along ``axis``.
    deltas : array_like, optional
        Their deltas in [0, 1], broadcast against ``epsilons`` (default: none).
    axis : int, optional
        The axis that lists the mechanisms (default the last).

    Returns
    -------
    epsilon : float or ndarray
        The sum rounded upward (never below the exact sum); 0 for an empty axis.
    delta : float or ndarray
        Only when ``deltas`` is given (as a tuple): ``min(sum delta_i, 1)``.

    Raises
    ------
    %(raises_axis)s

    See Also
    --------
    compose_parallel : Mechanisms on disjoint parts of the data.

    Examples
    --------
    >>> from diffident import compose_sequential
    >>> compose_sequential([0.1] * 10)   # sum() gives 0.9999999999999999
    1.0000000000000002
    """
    out: FloatOrArray | tuple[FloatOrArray, FloatOrArray] = _composed(epsilons, deltas, axis, _sum_up)
    return out


@overload
def compose_parallel(epsilons: RealArrayLike, *, deltas: None = None, axis: int = -1) -> FloatOrArray: ...


@overload
def compose_parallel(epsilons: RealArrayLike, *, deltas: RealArrayLike, axis: int = -1) -> tuple[FloatOrArray,
                                                                                         FloatOrArray]: ...


@shared_docs
def compose_parallel(epsilons: RealArrayLike, *, deltas: RealArrayLike | None = None,
                     axis: int = -1) -> FloatOrArray | tuple[FloatOrArray, FloatOrArray]:
    """Parallel composition on disjoint data: (max epsilon_i, max delta_i)-DP.

    Parameters
    ----------
    epsilons : array_like
        The mechanisms' epsilons (>= 0, ``inf`` allowed) along ``axis``.
    deltas : array_like, optional
        Their deltas in [0, 1], broadcast against ``epsilons`` (default: none).
    axis : int, optional
        The axis that lists the mechanisms (default the last).

    Returns
    -------
    epsilon : float or ndarray
        The largest epsilon (0 for an empty axis).
    delta : float or ndarray
        Only when ``deltas`` is given (as a tuple): the largest delta.

    Raises
    ------
    %(raises_axis)s

    See Also
    --------
    compose_sequential : Mechanisms on the same data.

    Examples
    --------
    >>> from diffident import compose_parallel
    >>> compose_parallel([0.1, 0.5], deltas=[1e-5, 1e-7])
    (0.5, 1e-05)
    """
    out: FloatOrArray | tuple[FloatOrArray, FloatOrArray] = _composed(epsilons, deltas, axis, _largest)
    return out


@shared_docs
def rho_after_composition(epsilons: RealArrayLike, *, m: RealArrayLike, axis: int = -1) -> FloatOrArray:
    """The paper's risk bound after several epsilon-DP releases of the same data.

    Parameters
    ----------
    epsilons : array_like
        The releases' epsilons (>= 0, ``inf`` allowed) along ``axis``.
    m : array_like
        Number of possible worlds (>= 1), broadcast against the result.
    axis : int, optional
        The axis that lists the releases (default the last).

    Returns
    -------
    float or ndarray
        ``1 / (1 + (m - 1) exp(-sum epsilon_i))`` rounded up, in [1/m, 1].

    Raises
    ------
    %(raises_axis)s

    See Also
    --------
    epsilon_per_release : The inverse: the epsilon of each release.

    Examples
    --------
    >>> from diffident import rho_after_composition
    >>> round(rho_after_composition([0.5, 0.5], m=2), 12)   # rho_for_epsilon(1, 2)
    0.73105857863
    """
    eps = _sum_up(_compose_args(epsilons, None)[0], axis)  # compose_sequential's core
    out = _closed_form.rho_up(eps, worlds("m", m))
    return ret(out, np.ndim(out) == 0)


def _exact_product(k, e):
    """The exact ``k e`` of non-negative finite floats (1-d) as ``(p + err) 2**x``: ``(p, err, x)``."""
    kf, ke = np.frexp(k)
    ef, ee = np.frexp(e)
    p, err = _dd.two_prod(kf, ef)
    return p, err, ke + ee


def _times_le(k, e, total):
    """Whether the exact ``k e`` is <= ``total`` (1-d, non-negative finite floats)."""
    p, err, x = _exact_product(k, e)
    with np.errstate(over="ignore", under="ignore"):
        t = np.ldexp(total, -x)  # exact near p; far away its side is right
    return (t - p) - err >= 0.0


@overload
def epsilon_per_release(rho: float, *, m: float, k: int) -> float: ...


@overload
def epsilon_per_release(rho: RealArrayLike, *, m: RealArrayLike, k: RealArrayLike) -> FloatOrArray: ...


@shared_docs
def epsilon_per_release(rho: RealArrayLike, *, m: RealArrayLike, k: RealArrayLike) -> FloatOrArray:
    """The epsilon for each of k releases so that the composed risk stays <= rho.

    Parameters
    ----------
    rho : array_like
        Risk bound(s) in [0, 1].
    %(m_worlds)s
    k : array_like
        Number of releases: whole numbers >= 1.

    Returns
    -------
    float or ndarray
        ``epsilon_for_rho(rho, m=m) / k`` rounded down (``k epsilon`` never
        exceeds it); 0 where ``rho <= 1/m``, inf where ``rho >= 1``.

    Raises
    ------
    ValueError
        For an argument outside its range or NaN, shapes that do not broadcast.
    TypeError
        If an argument is not real numbers.

    See Also
    --------
    rho_after_composition : The risk bound after the k releases.

    Examples
    --------
    >>> from diffident import epsilon_per_release
    >>> round(epsilon_per_release(1/3, m=8, k=4), 12)   # ln(7/2) / 4
    0.313190742124
    """
    scalar = is_scalar(rho, m, k)
    kk = releases(k)
    r, mm, kk = np.broadcast_arrays(probability("rho", rho), worlds("m", m), kk)
    total = _closed_form.laplace_epsilon(r, mm).ravel()
    kf = np.ascontiguousarray(kk, dtype=np.float64).ravel()
    eps = total / kf
    live = np.flatnonzero(np.isfinite(eps) & (eps > 0.0))
    if live.size:
        kl, tl = kf[live], total[live]
        rl, ml = np.ascontiguousarray(r).ravel()[live], np.ascontiguousarray(mm).ravel()[live]

        def passes(i, x):
            # k x <= total exactly, and the composed risk as
            # rho_after_composition evaluates it (the bound, rounded up, at
            # k x rounded up: the upward sum of k copies) is <= rho
            ok = _times_le(kl[i], x, tl[i])
            j = np.flatnonzero(ok)
            if j.size:
                ij = i[j]
                ok[j] = _closed_form.rho_up(_times_up(kl[ij], x[j]), ml[ij]) <= rl[ij]
            return ok

        x, status = _search.boundary(passes, eps[live], increasing=False, lo=0.0, hi=np.inf)
        _search.warn_unconverged(status, "epsilon_per_release")
        eps[live] = np.where(status == _search.NOT_REACHED, 0.0, x)
    return ret(eps.reshape(r.shape), scalar)


def _times_up(k, e):
    """``k e`` rounded upward (1-d, finite, in the normal range), as `compose_sequential` sums k copies."""
    p, err, x = _exact_product(k, e)
    with np.errstate(over="ignore"):
        prod = np.ldexp(p, x)
    return np.where(err > 0.0, np.nextafter(prod, np.inf), prod)
