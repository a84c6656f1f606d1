"""How many worlds a prior amounts to: `min_rho` and `effective_worlds` (Mathematics page, section 2)."""

from typing import overload

import numpy as np

from .._numerics import dd as _dd
from .._numerics import search as _search
from .._numerics import validate as _validate
from .._typing import FloatOrArray, RealArrayLike

__all__ = ["min_rho", "effective_worlds"]


@overload
def min_rho(m: float) -> float: ...


@overload
def min_rho(m: RealArrayLike) -> FloatOrArray: ...


def min_rho(m: RealArrayLike) -> FloatOrArray:
    """The lowest reachable risk, 1/m (a random guess among m worlds).

    Parameters
    ----------
    m : array_like
        Number of possible worlds (>= 1; need not be an integer).

    Returns
    -------
    float or ndarray
        The risk ``1 / m``, shaped like m.

    Raises
    ------
    ValueError
        If m is below 1, NaN or infinite.
    TypeError
        If m is not real numbers (a string, complex values).

    See Also
    --------
    effective_worlds : The m to use for a non-uniform prior.

    Examples
    --------
    >>> import diffident as di
    >>> di.min_rho(4)
    0.25
    """
    scalar = _validate.is_scalar(m)
    return _validate.ret(1.0 / _validate.worlds("m", m), scalar)


def effective_worlds(prior: RealArrayLike, *, axis: int = -1) -> FloatOrArray:
    """The number of worlds that a non-uniform prior is worth (Mathematics page, eq. 3.4).

    Parameters
    ----------
    prior : array_like
        Unnormalised non-negative prior weights over worlds, along ``axis``.
    axis : int, optional
        The worlds axis (default the last).

    Returns
    -------
    float or ndarray
        ``sum(prior) / max(prior)`` along the axis, rounded down.

    Raises
    ------
    ValueError
        For negative, NaN or infinite, empty or all-zero weights, or a bad axis.
    TypeError
        If prior is not real numbers (a string, complex values).

    See Also
    --------
    min_rho : The lowest reachable risk, 1/m.

    Examples
    --------
    >>> import diffident as di
    >>> di.effective_worlds([1, 1, 2])
    2.0
    """
    p = _validate.finite("prior", prior)
    if p.ndim == 0:
        p = p.reshape(1)
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool) or not -p.ndim <= axis < p.ndim:
        raise ValueError(f"axis must be an integer in [{-p.ndim}, {p.ndim - 1}] for prior of shape {p.shape}, "
                         f"got {axis!r}")
    if p.shape[axis] == 0:
        raise ValueError("prior must not be empty")
    bad = p < 0
    if bad.any():
        raise ValueError(f"prior must be non-negative; {_validate.where(p, bad)}")
    mx = p.max(axis=axis)
    if np.any(mx == 0):
        raise ValueError("prior must not be all zero")
    out = _quotient_down(np.moveaxis(p, axis, -1), mx)
    return _validate.ret(out, np.ndim(out) == 0)


def _quotient_down(w, mx):
    """``sum(w) / mx`` along the last axis, rounded down (certified)."""
    shape = mx.shape
    mx = np.ascontiguousarray(mx).reshape(-1)
    w = np.ascontiguousarray(w).reshape(mx.size, -1)
    _, k = np.frexp(mx)
    with np.errstate(under="ignore"):
        ws = np.ldexp(w, -k[:, None])
    ms = np.ldexp(mx, -k)  # in [1/2, 1)
    h, l, bound = _dd.pairwise_sum(ws)

    def passes(i, x):
        p, e = _dd.two_prod(x, ms[i])  # x * ms exactly (x <= 2n, ms < 1)
        gap = (h[i] - p) + (l[i] - e)  # h - p exact where it matters
        ok = gap >= bound[i]
        unsure = np.flatnonzero(np.abs(gap) < bound[i])
        if unsure.size:
            j = i[unsure]
            rows = np.concatenate([ws[j], -p[unsure, None], -e[unsure, None]], axis=1)
            ok[unsure] = _dd.exact_sign(rows) >= 0.0
        return ok

    x0 = np.maximum(h / ms, 1.0)
    x, status = _search.boundary(passes, x0, increasing=False, lo=1.0, hi=np.inf)
    _search.warn_unconverged(status, "effective_worlds")
    return np.where(status == _search.NOT_REACHED, 1.0, x).reshape(shape)
