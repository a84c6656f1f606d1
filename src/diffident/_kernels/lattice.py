"""Interval masses of the integer noises (Mathematics page, section 11)."""

import math

import numba
import numpy as np

from ._jit import inlined_kernel, kernel, parallel_kernel

CHECK_BLOCK = _CHECK_BLOCK = 1 << 16  # values per task of the lattice check
#: How far from a lattice point a value may be (relative to the larger of
#: the value and the spacing): the rounding of a decimal such as 0.3 on a
#: lattice of 0.1, not a value between two points.
RTOL = 2.0 ** -40
_SERIES_REST = 2.0 ** -60  # what a provably bounded rest of a series may be, relative to the sum
_SQRT_2PI = math.sqrt(2.0 * math.pi)
_SQRT_HALF_PI = math.sqrt(0.5 * math.pi)
_INV_SQRT2 = 1.0 / math.sqrt(2.0)
EM_MIN_SCALE = 256.0  # Euler-Maclaurin from this scale on ...
EM_MAX_DEPTH = 1.0 / 128.0  # ... for intervals starting at most this many s^2 from 0
# B_2 / 2!, B_4 / 4!, B_6 / 6!
_B2, _B4, _B6 = 1.0 / 12.0, -1.0 / 720.0, 1.0 / 30240.0


@inlined_kernel
def _dl_upper(a, b, s):
    """Discrete Laplace mass of 0 <= a <= b (unnormalised by 1 + q)."""
    if a == np.inf:
        return 0.0
    head = math.exp(-a / s)
    if b == np.inf:
        return head
    return head * -math.expm1(-((b - a) + 1.0) / s)


@kernel
def dg_norm(s):
    """N(s) = sum over the integers k of exp(-k^2 / (2 s^2))."""
    if s < 0.5:
        total = 1.0
        k = 1.0
        while True:
            t = math.exp(-0.5 * (k / s) ** 2)
            total += 2.0 * t
            # the ratio of consecutive terms past k is below r < 1
            x = (2.0 * k + 1.0) / (2.0 * s) / s  # (not over s * s: it underflows to 0)
            if t * math.exp(-x) <= _SERIES_REST * total * -math.expm1(-x) or t == 0.0:
                return total
            k += 1.0
    c = 2.0 * math.pi * math.pi * s * s
    total = 1.0
    k = 1.0
    while True:
        t = math.exp(-c * k * k)
        total += 2.0 * t
        r = math.exp(-c * (2.0 * k + 1.0))
        if t * r <= _SERIES_REST * total * -math.expm1(-c * (2.0 * k + 1.0)) or t == 0.0:
            return s * _SQRT_2PI * total
        k += 1.0


@inlined_kernel
def _gauss_integral(ua, ub, d):
    """The integral of exp(-u^2 / 2) over [ua, ub], 0 <= ua <= ub, d = ub - ua
    (from the exact difference of the integer ends, not of ua and ub), without
    cancellation: erfc's difference where the integrand falls by at least
    e across the interval, else exp(-ua^2/2) times the Taylor series of
    exp(-ua v - v^2/2) integrated over [0, ub - ua].
    """
    if d == np.inf or 0.5 * d * (ua + ub) >= 1.0:
        hi = 0.0 if ub == np.inf else math.erfc(ub * _INV_SQRT2)
        return _SQRT_HALF_PI * (math.erfc(ua * _INV_SQRT2) - hi)
    # g(v) = exp(-c v - v^2/2) = sum g_k v^k, (k+1) g_{k+1} = -(c g_k + g_{k-1});
    # h_k = g_k d^k; c d < 1 and d^2 < 2, so |h_k| falls faster than 2^k / sqrt(k!)
    cd = ua * d
    d2 = d * d
    h_prev = 0.0
    h = 1.0
    total = 1.0
    k = 0
    while k < 200:
        h_next = -(cd * h + d2 * h_prev) / (k + 1.0)
        h_prev = h
        h = h_next
        k += 1
        total += h / (k + 1.0)
        if abs(h) + abs(h_prev) <= 1e-22 * total and k > 4:
            break
    return math.exp(-0.5 * ua * ua) * d * total


@inlined_kernel
def _dg_upper(a, b, s):
    """sum_{z=a}^{b} exp(-z^2 / (2 s^2)) for 0 <= a <= b (integers)."""
    if a == np.inf:
        return 0.0
    if s >= EM_MIN_SCALE and a <= EM_MAX_DEPTH * s * s and b - a >= 64.0:
        ua = a / s
        ub = b / s
        fa = math.exp(-0.5 * ua * ua)
        fb = 0.0 if b == np.inf else math.exp(-0.5 * ub * ub)
        # f^(n)(x) = (-1)^n He_n(x/s) f(x) / s^n: the odd derivatives at the ends
        d1 = 0.0
        d3 = 0.0
        d5 = 0.0
        if fb > 0.0:
            d1 -= ub * fb
            d3 -= (ub ** 3 - 3.0 * ub) * fb
            d5 -= (ub ** 5 - 10.0 * ub ** 3 + 15.0 * ub) * fb
        if fa > 0.0:  # (an underflowed end adds nothing: ua^5 may overflow)
            d1 += ua * fa
            d3 += (ua ** 3 - 3.0 * ua) * fa
            d5 += (ua ** 5 - 10.0 * ua ** 3 + 15.0 * ua) * fa
        corr = _B2 * d1 / s + _B4 * d3 / s ** 3 + _B6 * d5 / s ** 5
        return s * _gauss_integral(ua, ub, (b - a) / s) + 0.5 * (fa + fb) + corr
    total = 0.0
    n = 0.0  # counts the terms, so that a beyond 2^53 cannot stall the loop
    while n <= b - a:
        z = a + n
        u = z / s
        t = math.exp(-0.5 * u * u)
        total += t
        if t == 0.0:
            break
        # every later term is at most t r^j, r = exp(-(2z + 1) / (2 s^2))
        x = (2.0 * z + 1.0) / (2.0 * s) / s
        if t * math.exp(-x) <= _SERIES_REST * total * -math.expm1(-x):
            break
        n += 1.0
    return total


@kernel
def normaliser(s, gauss):
    """The integer noise's normaliser at the scale ``s``: ``dg_norm(s)`` for
    the discrete Gaussian, ``1 + e^(-1/s)`` for the discrete Laplace (whose
    `_dl_upper` leaves it out).
    """
    if gauss:
        return dg_norm(s)
    return 1.0 + math.exp(-1.0 / s)


@inlined_kernel
def mass(a, b, s, gauss, norm):
    """P(a <= Z <= b) of the integer noise (discrete Gaussian with ``gauss``,
    else discrete Laplace) of scale ``s`` (lattice units), ``norm`` =
    ``normaliser(s, gauss)``: an interval reaching below 0 is split there
    and mirrored, so that the mass is a sum of non-negative parts.
    """
    if not a <= b:
        return 0.0
    if a >= 0.0:
        return _upper(a, b, s, gauss) / norm
    if b <= 0.0:
        return _upper(-b, -a, s, gauss) / norm
    return (_upper(0.0, b, s, gauss) + _upper(1.0, -a, s, gauss)) / norm


@inlined_kernel
def _upper(a, b, s, gauss):
    """The unnormalised mass of 0 <= a <= b."""
    if gauss:
        return _dg_upper(a, b, s)
    return _dl_upper(a, b, s)


@kernel
def interval_masses(a, b, s, gauss, out):
    """out[i] = P(a[i] <= Z <= b[i]) at one scale ``s`` (lattice units)."""
    norm = normaliser(s, gauss)
    for i in range(a.shape[0]):
        out[i] = mass(a[i], b[i], s, gauss, norm)


@kernel
def interval_masses_scales(a, b, s, gauss, out):
    """out[i] = P(a[i] <= Z <= b[i]) at the scale s[i] (lattice units)."""
    for i in range(a.shape[0]):
        out[i] = mass(a[i], b[i], s[i], gauss, normaliser(s[i], gauss))


@inlined_kernel
def _off(x, c, g, rtol):
    """1 if x is not within rtol max(|x|, g) of c g (a NaN, an infinity or
    an overflowing x / g included: their distance is NaN or infinite), else 0.
    """
    return 0 if np.abs(x - c * g) <= rtol * max(np.abs(x), g) else 1


@inlined_kernel
def _count_off(a, g, rtol, k, want_k, lo, hi):
    """The number of values of ``a[lo:hi]`` off the lattice (see `_off`),
    counted without a branch so that the loop vectorises; with ``want_k``
    their coordinates ``rint(a / g)`` written to ``k[lo:hi]``.
    """
    nbad = 0
    if want_k:
        for i in range(lo, hi):
            c = np.rint(a[i] / g)
            k[i] = c
            nbad += _off(a[i], c, g, rtol)
    else:
        for i in range(lo, hi):
            nbad += _off(a[i], np.rint(a[i] / g), g, rtol)
    return nbad


@inlined_kernel
def _first_off(a, g, rtol, bad):
    """The index of the first value off the lattice, from the per-block
    counts ``bad`` (-1 if none).
    """
    n = a.shape[0]
    for b in range(bad.shape[0]):
        if bad[b]:
            for i in range(b * _CHECK_BLOCK, min((b + 1) * _CHECK_BLOCK, n)):
                if _off(a[i], np.rint(a[i] / g), g, rtol):
                    return i
    return -1


@inlined_kernel
def not_integer(t):
    """0 if ``t`` is an integer, else 1 (NaN and the infinities included),
    without a branch: summed over a loop, it vectorises.
    """
    return 0 if t - np.rint(t) == 0.0 else 1


@inlined_kernel
def lattice_confirm(a, g):
    """Whether every value of ``a`` lies on the lattice of multiples of ``g``
    (and is finite) by `lattice_check`'s test with `RTOL`, where the
    sufficient test of `on_lattice` failed for some: `_off` decides those.
    """
    ginv = 1.0 / g
    for i in range(a.shape[0]):
        if not_integer(a[i] * ginv) and _off(a[i], np.rint(a[i] / g), g, RTOL):
            return False
    return True


@inlined_kernel
def on_lattice(a, g):
    """Whether every value of ``a`` lies on the lattice of multiples of ``g``
    (and is finite) by `lattice_check`'s test with `RTOL`: the chunk of a
    kernel that reads the values for its own pass, in cache.  First a
    sufficient test that vectorises, ``a / g`` (as ``a`` times ``1 / g``, to
    within 3 ulps) an integer exactly (`not_integer`: an infinity, a NaN or
    an overflow is not), which passes only values within a few ulps of a
    lattice point, far inside `RTOL`; the values it does not pass (a
    decimal spacing's roundings, tiny values, a subnormal spacing) are
    then decided by `_off` itself (`lattice_confirm`).
    """
    ginv = 1.0 / g
    nbad = 0
    for i in range(a.shape[0]):
        nbad += not_integer(a[i] * ginv)
    return nbad == 0 or lattice_confirm(a, g)


@parallel_kernel
def lattice_check(a, g, rtol, k, want_k):
    """The index of the first value of ``a`` off the lattice of multiples of
    ``g`` (``|a - k g| > rtol max(|a|, g)`` with ``k = rint(a / g)``), or not
    finite; -1 if none.  With ``want_k`` the coordinates ``k`` are written
    (``k`` has the length of ``a``; otherwise it is not touched).  One pass,
    threaded over blocks of `CHECK_BLOCK` values; the first block with a
    bad value is then searched.
    """
    n = a.shape[0]
    nb = (n + _CHECK_BLOCK - 1) // _CHECK_BLOCK
    bad = np.zeros(nb, np.int64)
    for b in numba.prange(nb):
        bad[b] = _count_off(a, g, rtol, k, want_k, b * _CHECK_BLOCK, min((b + 1) * _CHECK_BLOCK, n))
    return _first_off(a, g, rtol, bad)


@kernel
def lattice_check_serial(a, g, rtol, k, want_k):
    """`lattice_check` in the calling thread (for a few values, where
    waking the threads would cost more than the check).
    """
    n = a.shape[0]
    nb = (n + _CHECK_BLOCK - 1) // _CHECK_BLOCK
    bad = np.zeros(nb, np.int64)
    for b in range(nb):
        bad[b] = _count_off(a, g, rtol, k, want_k, b * _CHECK_BLOCK, min((b + 1) * _CHECK_BLOCK, n))
    return _first_off(a, g, rtol, bad)
