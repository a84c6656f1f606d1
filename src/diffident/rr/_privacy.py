"""The privacy of randomized response (`diffident.rr`): epsilons and truth probabilities."""


import numpy as np

from .._numerics import dd as _dd
from .._numerics.renamed import renamed
from .._numerics.shared_docs import shared_docs
from .._numerics.validate import categories, in_range, is_scalar, privacy_epsilon, probability, ret, where
from .._typing import FloatOrArray, RealArrayLike
from ._exact import scaled_product

# --------------------------------------------------------------- two-parameter scheme


def _epsilon(p, k):
    """``ln(1 + (1 - p)/(p m))``, ``m = min(k, 1 - k)``, rounded upward, with the edge values."""
    p, k = np.broadcast_arrays(np.asarray(p, dtype=np.float64), np.asarray(k, dtype=np.float64))
    shape, p, k = p.shape, p.ravel(), k.ravel()
    m = np.minimum(k, 1.0 - k)  # (1 - k exact for k >= 1/2)
    # p = 1: the reports do not depend on x at all (whatever k); p = 0 or m = 0: a report reveals x
    out = np.where(p == 1.0, 0.0, np.where((p == 0.0) | (m == 0.0), np.inf, 0.0))
    i = np.flatnonzero((p > 0.0) & (p < 1.0) & (m > 0.0))
    if i.size:
        nh, nl = _dd.two_sum(np.ones(i.size), -p[i])     # 1 - p, exact
        dh, dl = scaled_product(p[i], m[i], 0)           # p m, exact unless subnormal
        tiny = dh < 2.0 ** -1000                         # then as logarithms, from p and m apart
        lh, ll = _log1p_ratio(nh, nl, np.where(tiny, 1.0, dh), np.where(tiny, 0.0, dl))
        if tiny.any():
            t = np.flatnonzero(tiny)
            ah, al = _dd.log(nh[t], nl[t])
            bh, bl = _dd.log(p[i][t], np.zeros(t.size))
            ch, cl = _dd.log(m[i][t], np.zeros(t.size))
            sh, sl = _dd.add(ah, al, -bh, -bl)
            lh[t], ll[t] = _dd.add(sh, sl, -ch, -cl)
            ll[t] = ll[t] + 2.0 ** -900 * np.abs(lh[t])  # ln(1 + p m / (1 - p)) < 2^-946
        out[i] = _up(lh, ll)
    return out.reshape(shape)


@renamed("0.2.0", p="flip", k="zero")
@shared_docs
def epsilon(flip: RealArrayLike, *, zero: RealArrayLike) -> FloatOrArray:
    """The exact local-DP epsilon of the two-parameter scheme.

    Parameters
    ----------
    %(flip)s
    %(zero)s

    Returns
    -------
    float or ndarray
        ``ln(1 + (1 - p) / (p min(k, 1 - k)))`` (Mathematics page, eq. 7.6), in
        [0, inf]: inf at p = 0 or k in {0, 1} (p < 1), 0 at p = 1.

    Raises
    ------
    %(raises_flip_zero)s

    Examples
    --------
    >>> from diffident import rr
    >>> round(rr.epsilon(0.5, zero=0.5), 12)          # = ln 3, Warner's coin at 3/4
    1.098612288668
    """
    scalar = is_scalar(flip, zero)
    pp, kk = np.broadcast_arrays(probability("flip", flip), probability("zero", zero))
    return ret(_epsilon(pp, kk), scalar)


@renamed("0.2.0", p="flip", k="zero")
@shared_docs
def epsilon_bound(flip: RealArrayLike, *, zero: RealArrayLike) -> FloatOrArray:
    """A simple upper bound on `epsilon`: ``-ln(p min(k, 1 - k))``.

    Parameters
    ----------
    %(flip)s
    %(zero)s

    Returns
    -------
    float or ndarray
        The bound in [ln 2, inf]; ``-ln(p k)`` for ``k <= 1/2`` (Mathematics page,
        section 7), but above 1/2 ``-ln(p k)`` is no bound.  inf at p = 0 or k in {0, 1}.

    Raises
    ------
    %(raises_flip_zero)s

    Examples
    --------
    >>> from diffident import rr
    >>> round(rr.epsilon_bound(0.1, zero=0.9), 4)
    4.6052
    """
    scalar = is_scalar(flip, zero)
    pp, kk = np.broadcast_arrays(probability("flip", flip), probability("zero", zero))
    with np.errstate(divide="ignore"):
        out = -(np.log(pp) + np.log(np.minimum(kk, 1.0 - kk)))
    return ret(out, scalar)


# ------------------------------------------------------------------- Warner and k-ary


def warner_p(epsilon: RealArrayLike) -> FloatOrArray:
    """Truth probability of Warner's coin for epsilon-LDP: ``e^eps / (e^eps + 1)``.

    Parameters
    ----------
    epsilon : array_like
        Privacy parameter(s), >= 0 (``inf``: always truthful).

    Returns
    -------
    float or ndarray
        The truth probability p in [1/2, 1], rounded toward 1/2 (as `kary_p`, d = 2).

    Raises
    ------
    ValueError
        If epsilon is negative or NaN.
    TypeError
        If an argument is not real numbers (a string, a bool, complex values).

    Examples
    --------
    >>> from diffident import rr
    >>> round(rr.warner_p(1.0986122886681098), 12)   # ln 3
    0.75
    """
    scalar = is_scalar(epsilon)
    e = privacy_epsilon("epsilon", epsilon)
    return ret(_private_p(e, np.full(e.shape, 2.0)), scalar)


def warner_epsilon(p: RealArrayLike) -> FloatOrArray:
    """The epsilon of Warner's coin with truth probability p: ``ln(p/(1-p))``.

    Parameters
    ----------
    p : array_like
        Truth probability (of answering truthfully), in [1/2, 1].

    Returns
    -------
    float or ndarray
        The epsilon, in [0, inf]: 0 at ``p = 1/2``, ``inf`` at ``p = 1``.

    Raises
    ------
    ValueError
        If p is outside [1/2, 1] or NaN.
    TypeError
        If an argument is not real numbers (a string, a bool, complex values).

    Examples
    --------
    >>> from diffident import rr
    >>> round(rr.warner_epsilon(0.75), 12)
    1.098612288668
    """
    scalar = is_scalar(p)
    pp = in_range("p", p, 0.5, 1.0)
    return ret(kary_epsilon_of(pp, 2.0), scalar)


def kary_p(epsilon: RealArrayLike, *, d: RealArrayLike) -> FloatOrArray:
    """The truth probability of k-ary randomized response for epsilon-LDP.

    Parameters
    ----------
    epsilon : array_like
        Privacy parameter(s), >= 0 (``inf``: always truthful).
    d : array_like
        Number of categories, a whole number >= 2.

    Returns
    -------
    float or ndarray
        ``e^eps / (e^eps + d - 1)`` in [1/d, 1], rounded toward 1/d: its exact
        epsilon is at most the one asked for (where a float can meet it).

    Raises
    ------
    ValueError
        If epsilon is negative or NaN, or d is not a whole number >= 2.
    TypeError
        If d is a bool, or an argument is not real numbers.

    Examples
    --------
    >>> from diffident import rr
    >>> round(rr.kary_p(1.0986122886681098, d=4), 12)  # 3 / (3 + 3)
    0.5
    """
    scalar = is_scalar(epsilon, d)
    e, cats = np.broadcast_arrays(privacy_epsilon("epsilon", epsilon), categories(d))
    return ret(_private_p(e, cats), scalar)


def _log1p_ratio(nh, nl, dh, dl):
    """``ln(1 + n / d)`` as a double-double, an upper bound to about 2^-90
    relative, for double-doubles ``n > 0``, ``d > 0`` (1-d): `dd.log1p` of
    the quotient, or a difference of logarithms where it exceeds 2^60 (plus
    2 / quotient >= ln(1 + d / n)).
    """
    lh, ll = np.zeros(nh.size), np.zeros(nh.size)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        x = nh / dh
    near = np.flatnonzero(x <= 2.0 ** 60)
    if near.size:
        lh[near], ll[near] = _dd.log1p(*_dd.div(nh[near], nl[near], dh[near], dl[near]))
    far = np.flatnonzero(~(x <= 2.0 ** 60))
    if far.size:
        ah, al = _dd.log(nh[far], nl[far])
        bh, bl = _dd.log(dh[far], dl[far])
        lh[far], ll[far] = _dd.add(ah, al, -bh, -bl)
        ll[far] = ll[far] + 2.0 / x[far]
    return lh, ll


def _up(lh, ll):
    """The float at or above the double-double ``lh + ll`` (known to 2^-90 relative)."""
    return np.where(ll > -(2.0 ** -90) * np.abs(lh), np.nextafter(lh, np.inf), lh)


def _kary_log(p, d):
    """``ln(p (d - 1) / (1 - p))`` as a double-double (1-d, d p > 1, p < 1)."""
    hi, lo = scaled_product(d, p, 0)
    th, tl = _dd.two_sum(hi, -1.0)
    nh, nl = _dd.add_d(th, tl, lo)             # d p - 1, exact
    dh, dl = _dd.two_sum(np.ones_like(p), -p)  # 1 - p, exact
    return _log1p_ratio(nh, nl, dh, dl)


def _exact_epsilon_above(p, d, e):
    """Whether ``ln(p (d - 1) / (1 - p))`` may exceed e (1-d, p in [1/d, 1]); True at p = 1."""
    hi, lo = scaled_product(d, p, 0)
    live = (p < 1.0) & ((hi - 1.0) + lo > 0.0)
    out = np.where(p < 1.0, ~(e >= 0.0), True)  # d p <= 1: epsilon 0
    i = np.flatnonzero(live)
    if i.size:
        lh, ll = _kary_log(p[i], d[i])
        out[i] = ~((lh - e[i]) + ll <= -(2.0 ** -90) * np.abs(lh))
    return out


def _private_p(e, d):
    """``e^eps / (e^eps + d - 1)`` rounded toward 1/d: the largest float p whose exact
    epsilon is <= eps, or the smallest float >= 1/d where none is.
    """
    shape = e.shape
    e, d = e.ravel(), d.ravel()
    with np.errstate(over="ignore"):
        p = 1.0 / (1.0 + (d - 1.0) * np.exp(-e))
    todo = np.flatnonzero(np.isfinite(e))  # (p = 1, always truthful, has epsilon inf)
    for _ in range(8):  # rounding to nearest, then a few ulps at most
        if todo.size == 0:
            break
        bad = _exact_epsilon_above(p[todo], d[todo], e[todo])
        todo = todo[bad]
        down = np.nextafter(p[todo], 0.0)
        hi, lo = scaled_product(d[todo], down, 0)
        ok = (hi - 1.0) + lo >= 0.0  # still at or above 1/d
        p[todo[ok]] = down[ok]
        todo = todo[ok]
    return p.reshape(shape)


def kary_epsilon_of(p, d):
    """``ln(p (d - 1) / (1 - p))`` rounded upward (broadcast): 0 where d p <= 1, inf at p = 1."""
    p, d = np.broadcast_arrays(np.asarray(p, dtype=np.float64), np.asarray(d, dtype=np.float64))
    shape, p, d = p.shape, p.ravel(), d.ravel()
    hi, lo = scaled_product(d, p, 0)
    out = np.where(p == 1.0, np.inf, 0.0)
    live = np.flatnonzero((p < 1.0) & ((hi - 1.0) + lo > 0.0))
    if live.size:
        out[live] = _up(*_kary_log(p[live], d[live]))
    return out.reshape(shape)


def kary_epsilon(p: RealArrayLike, *, d: RealArrayLike) -> FloatOrArray:
    """The epsilon of k-ary randomized response: ``ln(p (d - 1) / (1 - p))``.

    Parameters
    ----------
    p : array_like
        Truth probability (of reporting the true category), in [1/d, 1].
    d : array_like
        Number of categories, a whole number >= 2.

    Returns
    -------
    float or ndarray
        The epsilon in [0, inf], to a few ulps for every p and d; p is taken as
        exact, so the float 1/3 (below one third) gives 0 for d = 3.

    Raises
    ------
    ValueError
        If p is outside [1/d, 1] or NaN, or d is not a whole number >= 2.
    TypeError
        If d is a bool, or an argument is not real numbers.

    Examples
    --------
    >>> from diffident import rr
    >>> round(rr.kary_epsilon(0.5, d=4), 12)           # ln 3
    1.098612288668
    """
    scalar = is_scalar(p, d)
    pp, cats = np.broadcast_arrays(probability("p", p), categories(d))
    bad = pp < 1.0 / cats
    if bad.any():
        i = np.argwhere(bad)[0] if pp.ndim else ()
        raise ValueError(
            f"p must lie in [1/d, 1] (below 1/d the true category is the least likely report); "
            f"{where(pp, bad)} with d = {cats[tuple(i)].item():g}"
        )
    return ret(kary_epsilon_of(pp, cats), scalar)
