"""Interval masses of the integer noises (Mathematics page, section 11)
against plain 50-digit sums (diffident.testing.mpmath_reference), check
values, the extremes of scale and depth, and the Euler-Maclaurin error bound
of the discrete Gaussian's long sums.
"""

import math

import numpy as np
import pytest

from diffident._kernels import lattice as _k
from diffident._mechanisms.lattice import interval_mass
from diffident.testing import mpmath_reference as ref

NOISES = ["discrete_laplace", "discrete_gaussian"]


def _numpy_sum(a, b, s):
    """The discrete Gaussian mass of [a, b] (a >= 0) summed term by term in
    float64 (non-negative terms, NumPy's pairwise sum: good to 1e-14), for
    scales whose 50-digit sums would take too long.
    """
    top = min(b, np.ceil(np.sqrt(a * a + 2 * s * s * 45 * np.log(10))))
    z = np.arange(a, top + 1)
    return float(np.sum(np.exp(-0.5 * (z / s) ** 2))) / (s * math.sqrt(2 * math.pi))


def _want(a, b, s, noise):
    try:
        return ref.integer_interval_mass(a, b, s, noise)
    except ValueError:
        assert s > 1000  # (N(s) = s sqrt(2 pi) to 1e-300 here)
        if a < 0 <= b:
            return _numpy_sum(0.0, b, s) + _numpy_sum(1.0, -a, s)
        return _numpy_sum(-b, -a, s) if b < 0 else _numpy_sum(a, b, s)


def _close(got, want, rtol=1e-12):
    want = float(want)
    if want > 1e-290:
        assert abs(got - want) <= rtol * want, (got, want)
    else:  # below the normal range (with a margin) the tail is at most a few subnormal ulps wrong
        assert 0.0 <= got <= 1e-290


def test_check_values():
    # P(Z = 0) of the discrete Gaussian with sigma = 1: 1 / N(1)
    assert interval_mass(0.0, 0.0, scale=1.0, noise="discrete_gaussian") == pytest.approx(0.398942, abs=5e-7)
    _close(interval_mass(0.0, 0.0, scale=1.0, noise="discrete_gaussian"),
           1 / ref.integer_normaliser(1.0, "discrete_gaussian"), 1e-15)
    # discrete Laplace b = 1: P(Z = 0) = (1 - e^-1) / (1 + e^-1) = tanh(1/2)
    assert interval_mass(0.0, 0.0, scale=1.0, noise="discrete_laplace") == pytest.approx(math.tanh(0.5), rel=1e-15)
    for noise in NOISES:
        for s in (1e-300, 1e-3, 0.5, 1.0, 300.0, 1e6, 1e300):
            assert interval_mass(-np.inf, np.inf, scale=s, noise=noise) == pytest.approx(1.0, rel=1e-14)


@pytest.mark.parametrize("noise", NOISES)
def test_random_against_mpmath(noise):
    rng = np.random.default_rng(20121)
    scales = [1e-3, 0.2, 0.49, 0.5, 1.0, 3.7, 60.0, 255.0, 256.0, 900.0, 4e3, 1e6]
    for s in scales:
        for _ in range(8):
            span = s * rng.choice([0.3, 1.0, 5.0, 30.0])
            a = float(np.round(rng.normal() * span))
            b = a + float(np.round(abs(rng.normal()) * span * rng.choice([0.01, 1.0, 10.0])))
            a = -np.inf if rng.random() < 0.15 else a
            b = np.inf if rng.random() < 0.15 else b
            _close(float(interval_mass(a, b, scale=s, noise=noise)), _want(a, b, s, noise))


@pytest.mark.parametrize("noise", NOISES)
def test_tails_and_arrays(noise):
    # deep tails: masses down to 1e-280 keep their relative accuracy
    for s in (0.01, 1.0, 7.0, 1000.0, 1e5):
        depth = 25.0 * s if noise == "discrete_gaussian" else 600.0 * s
        a = np.array([np.ceil(depth), -np.inf, np.ceil(depth / 2)])
        b = np.array([np.inf, -np.ceil(depth), np.ceil(depth / 2) + 3])
        got = interval_mass(a, b, scale=s, noise=noise)
        assert got.shape == (3,)
        for g, ai, bi in zip(got, a, b, strict=True):
            _close(float(g), _want(ai, bi, s, noise))
    # an empty interval and one point; broadcasting
    assert interval_mass(3.0, 2.0, scale=1.0, noise=noise) == 0.0
    two = interval_mass(np.zeros((2, 1)), np.array([0.0, 1.0]), scale=2.0, noise=noise)
    assert two.shape == (2, 2)


def test_bad_input():
    with pytest.raises(ValueError, match="a must be integers"):
        interval_mass(0.5, 1.0, scale=1.0, noise="discrete_laplace")
    with pytest.raises(ValueError, match="b must be integers"):
        interval_mass(0.0, np.nan, scale=1.0, noise="discrete_laplace")
    with pytest.raises(ValueError, match="noise"):
        interval_mass(0.0, 1.0, scale=1.0, noise="laplace")
    with pytest.raises(ValueError, match="scale"):
        interval_mass(0.0, 1.0, scale=0.0, noise="discrete_gaussian")


def _em_bound(ua, s):
    """|B_6| / 6! s^-6 E[Q6(ua + X)], X ~ Exp(L), L = max(ua, sqrt(2/pi)),
    Q6(u) = u^6 + 3u^4 + 9u^2 + 15: the Euler-Maclaurin remainder over the
    sum (Mathematics page, section 11).  E[(ua + X)^n] = sum_j C(n, j)
    ua^(n-j) j! / L^j.
    """
    lam = max(ua, math.sqrt(2 / math.pi))

    def moment(n):
        return sum(math.comb(n, j) * ua ** (n - j) * math.factorial(j) / lam ** j for j in range(n + 1))

    return (1 / 30240) * (moment(6) + 3 * moment(4) + 9 * moment(2) + 15) / s ** 6


def test_euler_maclaurin_bound():
    # where the kernel sums by Euler-Maclaurin (s >= 256, a <= s^2 / 128),
    # the proven remainder is below 1e-15 of the sum; at its edges too
    worst = 0.0
    for s in np.geomspace(_k.EM_MIN_SCALE, 1e12, 60):
        for t in np.linspace(0.0, _k.EM_MAX_DEPTH, 40):
            worst = max(worst, _em_bound(t * s, s))
    assert worst < 1e-15
    assert _em_bound(0.0, _k.EM_MIN_SCALE / 2) > worst  # (the bound does depend on s)


def test_euler_maclaurin_side_by_side():
    # the two methods agree where both apply (s = 300, a long range near 0),
    # and each agrees with the reference
    s = 300.0
    for a, b in [(0.0, 2000.0), (17.0, 450.0), (700.0, np.inf)]:
        em = _k._dg_upper(a, b, s)
        direct = 0.0
        z = a
        while z <= min(b, 20000.0):
            direct += math.exp(-0.5 * (z / s) ** 2)
            z += 1.0
        assert em == pytest.approx(direct, rel=2e-13)
        _close(float(interval_mass(a, b, scale=s, noise="discrete_gaussian")),
               ref.integer_interval_mass(a, b, s, "discrete_gaussian"))


@pytest.mark.parametrize("noise", NOISES)
def test_extremes(noise):
    gauss = noise == "discrete_gaussian"
    # a subnormal scale: all the mass at 0, no division by zero
    got = interval_mass(np.array([0.0, 1.0, -1e300, 1e300, -5.0]), np.array([0.0, 1.0, 1e300, np.inf, 5.0]),
                        scale=5e-324, noise=noise)
    assert got.tolist() == [1.0, 0.0, 1.0, 0.0, 1.0]
    # ends 1e300 apart and beyond 2^53 (no stalled loop)
    got = interval_mass(np.array([1e300, -np.inf, 0.0, 2.0**60]), np.array([np.inf, -1e300, 2.0**53, 2.0**60 + 4096]),
                        scale=1e6, noise=noise)
    # P(Z >= 0) = (1 + P(Z = 0)) / 2; for the discrete Gaussian at s = 1e6,
    # N = s sqrt(2 pi) to within exp(-2 pi^2 10^12) (Poisson summation)
    half = (0.5 * (1 + 1 / (1e6 * math.sqrt(2 * math.pi))) if gauss
            else float(ref.integer_interval_mass(0.0, np.inf, 1e6, noise)))
    assert got[:2].tolist() == [0.0, 0.0] and got[3] == 0.0
    assert got[2] == pytest.approx(half, rel=1e-13)
    # a scale of 1e300: the tail beyond one scale, e^-1 / 2 or 1 - Phi(1)
    got = interval_mass(1e300, np.inf, scale=1e300, noise=noise)
    assert got == pytest.approx(0.15865525393145707 if gauss else math.exp(-1) / 2, rel=1e-13)
    # per-element scales give the masses of one scale each
    a = np.array([-3.0, 0.0, 5.0])
    b = np.array([2.0, np.inf, 9.0])
    s = np.array([0.7, 300.0, 2e4])
    out = np.empty(3)
    _k.interval_masses_scales(a, b, s, gauss, out)
    for i in range(3):
        assert out[i] == interval_mass(a[i], b[i], scale=s[i], noise=noise)


def _numpy_lattice(a, g):
    """The lattice test as NumPy writes it: (coordinates, off the lattice)."""
    from diffident._numerics.validate import LATTICE_RTOL

    with np.errstate(over="ignore", invalid="ignore"):
        k = np.round(a / g)
        off = np.abs(a - k * g) > LATTICE_RTOL * np.maximum(np.abs(a), g)
    return k, off | ~np.isfinite(k)


@pytest.mark.parametrize("g", [1.0, 0.1, 3.0, 1e-300, 2.0**-30])
def test_lattice_check_kernel_equals_numpy(g):
    # on the lattice, off by one ulp and by the tolerance's edge, near a
    # half step, huge (beyond 2**40 and 2**53 steps), non-finite, x / g
    # overflowing: the kernels (serial and threaded, with and without the
    # coordinates) find exactly the values NumPy's test finds, and the same
    # coordinates
    from diffident._numerics.validate import LATTICE_RTOL

    rng = np.random.default_rng(int(g * 1000) % 97)
    n = 3 * _k.CHECK_BLOCK + 123
    j = rng.integers(-10**6, 10**6, n).astype(float)
    with np.errstate(over="ignore"):
        a = j * g
        kinds = rng.integers(0, 9, n)
        a[kinds == 1] = np.nextafter(a[kinds == 1], np.inf)
        a[kinds == 2] = (j[kinds == 2] + 0.5) * g
        a[kinds == 3] = j[kinds == 3] * g * 2.0**45
        a[kinds == 4] = (j[kinds == 4] * g) * (1 + LATTICE_RTOL * rng.uniform(0.5, 1.5, (kinds == 4).sum()))
        a[kinds == 5] = rng.normal(0, 1e300, (kinds == 5).sum())
        a[kinds == 6] = j[kinds == 6] * g * 2.0**54 + 1.0 * g
    a[rng.integers(0, n, 3)] = [np.nan, np.inf, -np.inf]
    want_k, want_off = _numpy_lattice(a, g)
    assert 0 < want_off.sum() < n  # both kinds occur
    for check in (_k.lattice_check, _k.lattice_check_serial):
        for m in (n, 5, 1):
            sub = np.ascontiguousarray(a[-m:])
            k = np.empty(m)
            first = check(sub, g, LATTICE_RTOL, k, True)
            off = want_off[-m:]
            assert first == (np.flatnonzero(off)[0] if off.any() else -1)
            fin = np.isfinite(want_k[-m:])
            assert np.array_equal(k[fin], want_k[-m:][fin])
            assert check(sub, g, LATTICE_RTOL, np.empty(0), False) == first
        # all on the lattice: none found
        clean = np.ascontiguousarray(a[~want_off])
        assert check(clean, g, LATTICE_RTOL, np.empty(0), False) == -1


def test_lattice_validation_messages():
    from diffident._numerics import validate as _validate

    v = np.arange(3 * _k.CHECK_BLOCK, dtype=float)
    assert _validate.lattice("values", v, 1.0, coords=False) is None
    assert np.array_equal(_validate.lattice("values", v * 0.1, 0.1), v)
    v[190_000] = 7.5
    v[190_001] = 0.25
    with pytest.raises(ValueError, match=r"^values must lie on the lattice of multiples of granularity 1\.0 "
                                         r"\(integer noise\); got 7\.5$"):
        _validate.lattice("values", v, 1.0)
    v[150_000] = np.nan  # a non-finite value is named as such, wherever it lies
    with pytest.raises(ValueError, match=r"values must be finite"):
        _validate.lattice("values", v, 1.0, coords=False)
    with pytest.raises(ValueError, match=r"^response must lie on the lattice.*got 0\.5$"):
        _validate.lattice("response", [[1.0, 0.5]], 1.0)


@pytest.mark.parametrize("g", [1.0, 0.1, 3.0, 1e-300, 2.0**-30, 5e-324, 1e300])
def test_on_lattice_equals_lattice_check(g):
    # the evidence kernels' per-chunk test (a vectorised sufficient test,
    # then the exact one where it fails) decides every value, and every
    # chunk, as lattice_check does
    from diffident._numerics.validate import LATTICE_RTOL

    rng = np.random.default_rng(int(np.log2(g)) % 89)
    n = 4096
    j = rng.integers(-10**6, 10**6, n).astype(float)
    with np.errstate(over="ignore"):
        a = j * g
        kinds = rng.integers(0, 8, n)
        a[kinds == 1] = np.nextafter(a[kinds == 1], np.inf)
        a[kinds == 2] = (j[kinds == 2] + 0.5) * g
        a[kinds == 3] = j[kinds == 3] * g * 2.0**45
        a[kinds == 4] = (j[kinds == 4] * g) * (1 + LATTICE_RTOL * rng.uniform(0.5, 1.5, (kinds == 4).sum()))
        a[kinds == 5] = rng.normal(0, 1e300, (kinds == 5).sum())
        a[kinds == 6] = np.round(rng.normal(0, 10, (kinds == 6).sum())) * 0.1 * g  # a decimal's rounding
    a[rng.integers(0, n, 3)] = [np.nan, np.inf, -np.inf]
    off = np.array([_k.lattice_check_serial(a[i:i + 1], g, LATTICE_RTOL, np.empty(0), False) == 0
                    for i in range(n)])
    assert 0 < off.sum() < n
    for i in range(n):
        assert _k.on_lattice(a[i:i + 1], g) == (not off[i])
    clean = np.ascontiguousarray(a[~off])
    for size in (1, 7, 512):
        for b in range(0, n, size):
            assert _k.on_lattice(a[b:b + size], g) == (not off[b:b + size].any())
            assert _k.on_lattice(clean[b:b + size], g)
