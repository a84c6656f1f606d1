"""Kernels for the expected identification success of the MAP adversary.

The adversary who sees R names the world of the largest ``a_i p(R | f_i)``
(``a_i`` the largest prior among the worlds of value ``f_i``); the worlds'
winning regions are the intervals of the upper envelope of
``ln a_i - e(|R - f_i|)``, cones (Laplace, ``e(d) = d / scale``) or
parabolas (Gaussian, ``e(d) = d^2 / (2 sigma^2)``) of one shape, so that
each world wins at most one interval and the winners come in the order of
their values: a one-dimensional distance transform, O(u) over the sorted
distinct values.  The success is ``sum_i a_i P_i(region_i) / sum_k w_k``.

Every kernel takes the noise's scales ``lams`` (Laplace's scale or the
Gaussian's sigma, in the units of the values; 0 and inf are the limits):
a region's mass is a function of ``(end - f_i) / lam``, and masses are sums
of non-negative terms (``-expm1``, ``erf``), never a difference of two
numbers near 1.
"""

import math

from ._jit import inlined_kernel, kernel
from .lattice import mass as lattice_mass
from .lattice import normaliser

_SQRT_HALF = math.sqrt(0.5)

__all__ = ["uniform_success", "envelope", "envelope_masses"]


@inlined_kernel
def _t(d, lam, gauss):
    """``d / lam`` (Laplace) or ``d / (lam sqrt 2)`` (Gaussian): the distance
    d from a world to a region's end in units of the noise, with the limits
    for lam = 0 or inf.  A division, not a product with ``1 / lam``: that
    reciprocal overflows for tiny scales whose ratio to a tiny gap is not.
    """
    if d == 0.0:
        return 0.0
    if lam == 0.0:
        return math.inf if d > 0.0 else -math.inf
    if math.isinf(lam):
        return 0.0 if math.isfinite(d) else d
    t = d / lam
    return t * _SQRT_HALF if gauss else t


@inlined_kernel
def _half(t, gauss):
    """The noise's mass between 0 and t >= 0 (units of `_t`): ``(1 - e^-t) / 2``
    for Laplace, ``erf(t) / 2`` for Gaussian.
    """
    if gauss:
        return 0.5 * math.erf(t)
    return -0.5 * math.expm1(-t)


@inlined_kernel
def _tail(t, gauss):
    """The noise's mass beyond t >= 0: ``e^-t / 2`` or ``erfc(t) / 2``."""
    if gauss:
        return 0.5 * math.erfc(t)
    return 0.5 * math.exp(-t)


@inlined_kernel
def _mass(lo, hi, gauss):
    """The noise's mass on [lo, hi] (units of `_t`, lo <= hi, the world at 0)."""
    if not lo < hi:
        return 0.0
    if lo >= 0.0:
        if lo < 1.0:  # (near the centre the cumulative parts are accurate)
            return _half(hi, gauss) - _half(lo, gauss)
        return _tail(lo, gauss) - _tail(hi, gauss)
    if hi <= 0.0:
        if hi > -1.0:
            return _half(-lo, gauss) - _half(-hi, gauss)
        return _tail(-hi, gauss) - _tail(-lo, gauss)
    return _half(-lo, gauss) + _half(hi, gauss)


@inlined_kernel
def _neumaier(total, comp, x):
    """Add x to ``total``, its rounding error to ``comp`` (Neumaier's compensation)."""
    t = total + x
    if abs(total) >= abs(x):
        comp += (total - t) + x
    else:
        comp += (x - t) + total
    return t, comp


@kernel
def uniform_success(fs, lams, gauss, out):
    """``sum_i P_i(Voronoi cell i)`` for every scale in ``lams``.

    ``fs``: sorted distinct values.  With one prior weight for every world
    the regions are the Voronoi cells (midpoints between neighbours), and
    the sum is ``1 + sum over gaps of 2 h(gap / 2)``, h the mass from 0 to
    a point: each half-gap counted from both of its worlds.  Summed with
    Neumaier's compensation.
    """
    u = fs.size
    for s in range(lams.size):
        lam = lams[s]
        total = 1.0
        comp = 0.0
        for i in range(u - 1):
            x = 2.0 * _half(_t(0.5 * fs[i + 1] - 0.5 * fs[i], lam, gauss), gauss)
            total, comp = _neumaier(total, comp, x)
        out[s] = total + comp


@inlined_kernel
def _crossing(fp, fq, lp, lq, lam, gauss):
    """Where the curve of world p (value fp < fq, log weight lp) meets that of
    q: the point left of which p wins; -inf where q wins everywhere, +inf
    where p does.  A tie over an interval (Laplace only, when one cone's
    apex lies on the other) goes to the nearer world.
    """
    mid = 0.5 * fp + 0.5 * fq
    if lp == lq or lam == 0.0:
        return mid
    if gauss:
        # mid + sigma^2 (lp - lq) / (fq - fp), in steps that overflow to inf, not nan
        r = (lp - lq) / (fq - fp)
        if r == 0.0:
            return mid
        return mid + (r * lam) * lam
    # cones: mid + scale (lp - lq) / 2, where it lies between the apexes
    x = mid + (0.5 * (lp - lq)) * lam
    if x < fp:
        return -math.inf
    if x > fq:
        return math.inf
    return x


@kernel
def envelope(fs, la, lam, gauss, idx, z):
    """The upper envelope of ``la_i - e(|R - f_i|)`` at the scale lam.

    Fills ``idx[:n]`` with the worlds that win, in order, and ``z[:n + 1]``
    with the ends of their regions (``z[0] = -inf``, ``z[n] = inf``);
    returns n.  A world whose region would be empty is dropped.
    """
    top = 0  # idx[top] is the last world kept; its region is [z[top], z[top + 1]]
    idx[0] = 0
    z[0] = -math.inf
    z[1] = math.inf
    for q in range(1, fs.size):
        s = -math.inf
        while top >= 0:
            p = idx[top]
            s = _crossing(fs[p], fs[q], la[p], la[q], lam, gauss)
            if s > z[top]:
                break
            top -= 1  # q wins all of p's region
        if top < 0:  # q wins everywhere
            top = 0
            idx[0] = q
            z[1] = math.inf
            continue
        if s == math.inf:  # q wins nowhere: p keeps the rest of the line
            z[top + 1] = math.inf
            continue
        top += 1
        idx[top] = q
        z[top] = s
        z[top + 1] = math.inf
    return top + 1


@inlined_kernel
def _lattice_mass(lo, hi, f, lam, gauss, norm):
    """The integer noise's mass on the lattice points of [lo, hi) around a
    world at f (all in lattice units, f an integer): a response on an end
    belongs to the region on its right.
    """
    a = math.ceil(lo - f) if math.isfinite(lo) else lo
    b = math.ceil(hi - f) - 1.0 if math.isfinite(hi) else hi
    return lattice_mass(a, b, lam, gauss, norm)


@kernel
def envelope_masses(fs, la, a, lams, gauss, discrete, target, idx, z, out, out_target):
    """For every scale in ``lams``: ``out[s] = sum_i a_i P_i(region_i)``
    over the envelope's regions (Neumaier-compensated), and
    ``out_target[s]`` the mass of the region of world ``target`` (0 where it
    wins nowhere; ``target = -1``: not asked).  ``idx`` and ``z`` are work
    arrays of ``fs.size`` and ``fs.size + 1`` entries.  With ``discrete``
    the values and scales are in lattice units and a region's mass is that
    of its lattice points (the limits, scale 0 and inf, are the continuous
    ones: all or none of a region, or half of an unbounded one).
    """
    for s in range(lams.size):
        lam = lams[s]
        n = envelope(fs, la, lam, gauss, idx, z)
        lattice = discrete and 0.0 < lam < math.inf
        norm = normaliser(lam, gauss) if lattice else 1.0
        total = 0.0
        comp = 0.0
        mt = 0.0
        for j in range(n):
            i = idx[j]
            if lattice:
                m = _lattice_mass(z[j], z[j + 1], fs[i], lam, gauss, norm)
            else:
                m = _mass(_t(z[j] - fs[i], lam, gauss), _t(z[j + 1] - fs[i], lam, gauss), gauss)
            if i == target:
                mt = m
            total, comp = _neumaier(total, comp, a[i] * m)
        out[s] = total + comp
        out_target[s] = mt
