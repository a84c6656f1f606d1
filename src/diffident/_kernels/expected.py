"""Kernels for the expected identification success of the MAP adversary."""

import math

from ._jit import inlined_kernel, kernel
from ._math import exp, fma
from .lattice import mass as lattice_mass
from .lattice import normaliser

_SQRT_HALF = math.sqrt(0.5)

__all__ = ["uniform_success", "laplace_cells", "envelope", "envelope_masses"]


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
    """``sum_i P_i(Voronoi cell i)`` for every scale in ``lams``."""
    u = fs.size
    for s in range(lams.size):
        lam = lams[s]
        total = 1.0
        comp = 0.0
        for i in range(u - 1):
            x = 2.0 * _half(_t(0.5 * fs[i + 1] - 0.5 * fs[i], lam, gauss), gauss)
            total, comp = _neumaier(total, comp, x)
        out[s] = total + comp


#: below: ``1 - e^-t`` from its Taylor series (no cancellation); above:
#: ``1 - exp(-t)`` with e^-t < 0.5 (the subtraction amplifies its error by
#: less than one)
_SERIES_TOP = 0.6931471805599453


@inlined_kernel
def _one_minus_exp(t):
    """``1 - e^-t = -expm1(-t)`` for t >= 0 (inf gives 1), vectorisable: a
    select between the series ``t sum_k (-t)^k / (k + 1)!`` to degree 17
    (truncated below 2**-60 of the result for t <= ln 2) and ``1 -``
    `_math.exp` ``(-t)`` (within 1 ulp, e^-t <= 1/2).  Within 2 units of
    roundoff of the exact value (measured: 1.64 units at most, against
    long double expm1 on 6e7 points, near t = 0.29).
    """
    s = -t
    q = 2.8114572543455206e-15
    q = fma(q, s, 4.779477332387385e-14)
    q = fma(q, s, 7.647163731819816e-13)
    q = fma(q, s, 1.1470745597729725e-11)
    q = fma(q, s, 1.6059043836821613e-10)
    q = fma(q, s, 2.08767569878681e-09)
    q = fma(q, s, 2.505210838544172e-08)
    q = fma(q, s, 2.755731922398589e-07)
    q = fma(q, s, 2.7557319223985893e-06)
    q = fma(q, s, 2.48015873015873e-05)
    q = fma(q, s, 0.0001984126984126984)
    q = fma(q, s, 0.001388888888888889)
    q = fma(q, s, 0.008333333333333333)
    q = fma(q, s, 0.041666666666666664)
    q = fma(q, s, 0.16666666666666666)
    q = fma(q, s, 0.5)
    q = fma(q, s, 1.0)
    small = t * q
    large = 1.0 - exp(s)
    return small if t <= _SERIES_TOP else large


@inlined_kernel
def _two_sum(a, b):
    """(s, e) with s = fl(a + b) and a + b == s + e exactly (Knuth)."""
    s = a + b
    bb = s - a
    e = (a - (s - bb)) + (b - bb)
    return s, e


@kernel
def laplace_cells(fs, lams, work, out):
    """`uniform_success` for Laplace noise from the sorted distinct values
    ``fs``: ``1 + sum_i 1 - e^(-hg_i / lam)`` for every scale, with the
    half-gaps ``hg_i = 0.5 f[i+1] - 0.5 f[i]``, in two loops that
    vectorise, the terms into ``work`` (one shorter than ``fs``) and their
    sum in four lanes of TwoSum (Ogita, Rump and Oishi's Sum2: within u of
    the total plus ``n^2 u^2`` of the sum of the non-negative terms).  Every
    term is within 4 units of roundoff of its exact value (`_one_minus_exp`).
    """
    n = fs.size - 1
    for s in range(lams.size):
        lam = lams[s]
        if lam == 0.0:  # every world seen: each term 1
            out[s] = 1.0 + n
            continue
        if math.isinf(lam):
            out[s] = 1.0
            continue
        for i in range(n):
            work[i] = _one_minus_exp((0.5 * fs[i + 1] - 0.5 * fs[i]) / lam)
        s0, s1, s2, s3 = 1.0, 0.0, 0.0, 0.0
        c0, c1, c2, c3 = 0.0, 0.0, 0.0, 0.0
        i = 0
        while i + 4 <= n:
            s0, e0 = _two_sum(s0, work[i])
            s1, e1 = _two_sum(s1, work[i + 1])
            s2, e2 = _two_sum(s2, work[i + 2])
            s3, e3 = _two_sum(s3, work[i + 3])
            c0 += e0
            c1 += e1
            c2 += e2
            c3 += e3
            i += 4
        while i < n:
            s0, e0 = _two_sum(s0, work[i])
            c0 += e0
            i += 1
        t, e = _two_sum(s0, s1)
        c = (c0 + c1) + e
        t, e = _two_sum(t, s2)
        c += c2 + e
        t, e = _two_sum(t, s3)
        c += c3 + e
        out[s] = t + c


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
    """The upper envelope of ``la_i - e(|R - f_i|)`` at the scale lam."""
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
