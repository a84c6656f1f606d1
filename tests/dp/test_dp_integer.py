"""The parameters of integer noise (diffident.dp): the Census geometric p and
the discrete Laplace scale, epsilon, and the discrete Gaussian's sigma and
zCDP rho.  References: exact rationals (``fractions.Fraction``) for the
quotients and squares, mpmath at 50 digits for the logarithms, and OpenDP's
privacy maps (the test extra installs it).  Tumult's ``tmlt.core`` needs
PySpark and NumPy < 2 (with Python 3.11), so its ``privacy_function``s
(``d_in / alpha`` and ``d_in^2 / (2 sigma_squared)``, tmlt.core 0.20) are
checked as formulas.
"""

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

import diffident as di
from diffident import dp

RNG = np.random.default_rng(20121214)
# scales, sigmas, epsilons over many binades, and sensitivities
POSITIVE = np.exp(RNG.uniform(np.log(1e-6), np.log(1e6), 300))
SENS = np.exp(RNG.uniform(np.log(1e-3), np.log(1e3), 300))
# geometric p over (0, 1): near 0, in the middle, near 1
P = np.concatenate([np.exp(RNG.uniform(np.log(1e-300), np.log(0.5), 200)),
                    -np.expm1(-np.exp(RNG.uniform(np.log(0.7), np.log(36.0), 200)))])


def ulps(x, want):
    """How many floats ``x`` is from the mpmath value ``want``."""
    return abs(mp.mpf(x) - want) / np.spacing(float(want))


def is_ceiling(ours, exact):
    """Whether the float ``ours`` is the exact rational rounded upward."""
    return Fraction(ours) >= exact and Fraction(float(np.nextafter(ours, 0.0))) < exact


# --------------------------------------------------------------------------- Census p <-> b


def test_geometric_scale_against_mpmath():
    ours = dp.geometric_scale(P)
    for g in (1.0, 0.1):
        ours = dp.geometric_scale(P, granularity=g)
        with mp.workdps(50):
            for p, b in zip(P, ours, strict=True):
                want = -mp.mpf(g) / mp.log1p(-mp.mpf(p))
                assert ulps(b, want) <= 2, (p, g)


def test_geometric_p_against_mpmath():
    b = np.concatenate([POSITIVE, [1e-2, 0.03, 1e300]])
    for g in (1.0, 0.25):
        ours = dp.geometric_p(b, granularity=g)
        with mp.workdps(50):
            for x, p in zip(b, ours, strict=True):
                want = -mp.expm1(-mp.mpf(g) / mp.mpf(x))
                assert ulps(p, want) <= 2, (x, g)


def test_census_p_is_the_scale_delta_over_epsilon():
    # the Census states p = 1 - e^(-eps / Delta); the noise is b = Delta / eps
    for eps, delta in [(0.5, 1), (2.0, 3), (0.01, 7), (10.0, 1)]:
        p = -math.expm1(-eps / delta)
        assert dp.geometric_scale(p) == pytest.approx(delta / eps, rel=4e-16)
        assert dp.discrete_laplace_epsilon(dp.geometric_scale(p), sensitivity=delta) == pytest.approx(eps, rel=4e-16)


def test_geometric_round_trips():
    back = dp.geometric_p(dp.geometric_scale(P))
    assert np.all(np.abs(back - P) <= 3 * np.spacing(P))
    # b -> p -> b is well conditioned where p <= 1/2 (b >= 1 / ln 2)
    b = POSITIVE[POSITIVE >= 1 / math.log(2)]
    again = dp.geometric_scale(dp.geometric_p(b))
    assert b.size > 50
    assert np.all(np.abs(again - b) <= 4 * np.spacing(b))
    g = 0.1
    back = dp.geometric_p(dp.geometric_scale(P, granularity=g), granularity=g)
    assert np.all(np.abs(back - P) <= 3 * np.spacing(P))


def test_geometric_extremes():
    tiny = 5e-324
    assert dp.geometric_scale(tiny) == math.inf  # 1 / p beyond the float range
    assert dp.geometric_scale(1e-300) == pytest.approx(1e300, rel=1e-15)
    assert dp.geometric_scale(2.2250738585072014e-308) == pytest.approx(1 / 2.2250738585072014e-308, rel=1e-15)
    top = float(np.nextafter(1.0, 0.0))  # 1 - p = 2^-53
    assert dp.geometric_scale(top) == pytest.approx(1 / (53 * math.log(2)), rel=1e-15)
    assert dp.geometric_scale(0.5) == pytest.approx(1 / math.log(2), rel=1e-16)
    # a huge scale: p = 1/b, below the normal range but not 0
    assert dp.geometric_p(1e308) == pytest.approx(1e-308, rel=1e-4)
    assert 0.0 < dp.geometric_p(1.7e308) < 1e-308
    # a small scale: e^(-1/b) below half an ulp of 1 rounds p to 1
    assert dp.geometric_p(0.02) == 1.0
    assert dp.geometric_p(1e-300) == 1.0
    assert dp.geometric_p(0.05) == pytest.approx(1 - math.exp(-20), rel=1e-16)


# --------------------------------------------------------------------------- epsilon <-> scale


def test_discrete_laplace_epsilon_is_the_quotient_rounded_up():
    ours = dp.discrete_laplace_epsilon(POSITIVE, sensitivity=SENS)
    for b, s, e in zip(POSITIVE, SENS, ours, strict=True):
        assert is_ceiling(e, Fraction(s) / Fraction(b)), (b, s)
    # rounding up is visible where the quotient is not a float
    assert dp.discrete_laplace_epsilon(3.0) == float(np.nextafter(1 / 3, 1.0))
    assert dp.discrete_laplace_epsilon(4.0, sensitivity=2) == 0.5


def test_discrete_laplace_scale_is_the_quotient_rounded_up():
    ours = dp.discrete_laplace_scale(POSITIVE, sensitivity=SENS)
    for e, s, b in zip(POSITIVE, SENS, ours, strict=True):
        assert is_ceiling(b, Fraction(s) / Fraction(e)), (e, s)


def test_laplace_round_trip_never_overstates_the_guarantee():
    b = dp.discrete_laplace_scale(POSITIVE, sensitivity=SENS)
    back = dp.discrete_laplace_epsilon(b, sensitivity=SENS)
    assert np.all(back <= POSITIVE)  # b is at least Delta / eps
    assert np.all(POSITIVE - back <= 2 * np.spacing(POSITIVE))
    assert np.any(back < POSITIVE)  # (the rounding is real)


def test_laplace_extremes():
    assert dp.discrete_laplace_epsilon(1e-300, sensitivity=1e300) == math.inf
    assert dp.discrete_laplace_epsilon(1e300, sensitivity=1e-300) == 5e-324  # never 0
    assert dp.discrete_laplace_scale(5e-324) == math.inf
    # subnormal operands: the mantissas carry the exactness
    assert is_ceiling(dp.discrete_laplace_epsilon(1e-310, sensitivity=3e-310), Fraction(3e-310) / Fraction(1e-310))
    assert is_ceiling(dp.discrete_laplace_scale(1.7e308, sensitivity=7e-310), Fraction(7e-310) / Fraction(1.7e308))


# --------------------------------------------------------------------------- zCDP <-> sigma


def test_discrete_gaussian_zcdp_is_exact_rounded_up():
    ours = dp.discrete_gaussian_zcdp(POSITIVE, sensitivity=SENS)
    for sg, s, r in zip(POSITIVE, SENS, ours, strict=True):
        assert is_ceiling(r, Fraction(s) ** 2 / (2 * Fraction(sg) ** 2)), (sg, s)
    assert dp.discrete_gaussian_zcdp(2.0, sensitivity=2) == 0.5
    # 9 / 12.5 = 0.72 is not a float: the float above it
    assert dp.discrete_gaussian_zcdp(2.5, sensitivity=3) == float(np.nextafter(0.72, 1.0))


def test_discrete_gaussian_sigma_is_exact_rounded_up():
    ours = dp.discrete_gaussian_sigma(POSITIVE, sensitivity=SENS)
    for r, s, sg in zip(POSITIVE, SENS, ours, strict=True):
        # sigma >= s / sqrt(2 r)  <=>  sigma^2 2 r >= s^2, in exact rationals
        target = Fraction(s) ** 2
        assert Fraction(sg) ** 2 * 2 * Fraction(r) >= target, (r, s)
        below = Fraction(float(np.nextafter(sg, 0.0)))
        assert below**2 * 2 * Fraction(r) < target, (r, s)
    assert dp.discrete_gaussian_sigma(0.5, sensitivity=2) == 2.0
    with mp.workdps(50):
        for r in (1e-300, 0.1, 3.0, 1e300):
            assert ulps(dp.discrete_gaussian_sigma(r), 1 / mp.sqrt(2 * mp.mpf(r))) <= 1


def test_gaussian_round_trip_never_overstates_the_guarantee():
    sigma = dp.discrete_gaussian_sigma(POSITIVE, sensitivity=SENS)
    back = dp.discrete_gaussian_zcdp(sigma, sensitivity=SENS)
    assert np.all(back <= POSITIVE)
    assert np.all(POSITIVE - back <= 3 * np.spacing(POSITIVE))


def test_gaussian_extremes():
    assert dp.discrete_gaussian_zcdp(1e200) == 5e-324  # 5e-401 underflows: never 0
    assert dp.discrete_gaussian_zcdp(1e-200) == math.inf
    assert dp.discrete_gaussian_sigma(5e-324) == pytest.approx(1 / math.sqrt(1e-323), rel=1e-15)
    assert dp.discrete_gaussian_sigma(1.7e308) == pytest.approx(1 / math.sqrt(3.4e308), rel=1e-15)
    for r in (5e-324, 1e-310, 1.7e308):  # subnormal and huge: still the ceiling
        sg = dp.discrete_gaussian_sigma(r)
        assert Fraction(sg) ** 2 * 2 * Fraction(r) >= 1
        assert Fraction(float(np.nextafter(sg, 0.0))) ** 2 * 2 * Fraction(r) < 1


def test_census_zcdp_share():
    # the Census allots 1 / sigma^2 = 2 share zcdp_rho (Delta 1)
    share, zcdp_rho = 0.25, 2.63
    sigma = dp.discrete_gaussian_sigma(share * zcdp_rho)
    assert 1 / sigma**2 == pytest.approx(2 * share * zcdp_rho, rel=1e-15)
    assert dp.discrete_gaussian_zcdp(sigma) <= share * zcdp_rho


# --------------------------------------------------------------------------- Tumult's formulas


@pytest.mark.parametrize("alpha, delta", [(1.0, 1), (2.5, 3), (0.3, 1), (1e4, 7)])
def test_tumult_geometric_alpha(alpha, delta):
    # AddGeometricNoise(alpha): privacy_function(d_in) = d_in / alpha, pmf e^(-|k| / alpha),
    # and its docs relate it to SciPy's geometric p = 1 - e^(-1 / alpha)
    assert is_ceiling(dp.discrete_laplace_epsilon(alpha, sensitivity=delta), Fraction(delta) / Fraction(alpha))
    assert dp.geometric_p(alpha) == -math.expm1(-1 / alpha)
    assert dp.geometric_scale(dp.geometric_p(alpha)) == pytest.approx(alpha, rel=1e-15)


@pytest.mark.parametrize("sigma_squared, delta", [(1.0, 1), (6.25, 3), (0.5, 2), (1e6, 1)])
def test_tumult_discrete_gaussian_sigma_squared(sigma_squared, delta):
    # AddDiscreteGaussianNoise(sigma_squared): privacy_function(d_in) = d_in^2 / (2 sigma_squared)
    want = Fraction(delta) ** 2 / (2 * Fraction(sigma_squared))
    ours = dp.discrete_gaussian_zcdp(math.sqrt(sigma_squared), sensitivity=delta)
    assert ours == pytest.approx(float(want), rel=3e-16)
    sigma = dp.discrete_gaussian_sigma(float(want), sensitivity=delta)
    assert sigma**2 == pytest.approx(sigma_squared, rel=1e-15)


# --------------------------------------------------------------------------- OpenDP


@pytest.fixture(scope="module")
def opendp():
    dp_ = pytest.importorskip("opendp.prelude")
    dp_.enable_features("contrib")
    return dp_


SCALES = [0.1, 0.37, 1.0, 2.5, 3.0, 7.77, 1e3, 123456.789]
DELTAS = [1, 2, 3, 10]


def test_opendp_integer_laplace_map_equals_ours(opendp):
    odp = opendp
    space = odp.atom_domain(T=int), odp.absolute_distance(T=int)
    for scale in SCALES:
        meas = odp.m.make_laplace(*space, scale=scale)
        assert str(meas.output_measure).startswith("MaxDivergence")
        for delta in DELTAS:
            assert meas.map(delta) == dp.discrete_laplace_epsilon(scale, sensitivity=delta), (scale, delta)


def test_opendp_integer_gaussian_map_equals_ours(opendp):
    odp = opendp
    space = odp.atom_domain(T=int), odp.absolute_distance(T=int)
    for scale in SCALES:
        meas = odp.m.make_gaussian(*space, scale=scale)
        assert str(meas.output_measure).startswith("ZeroConcentratedDivergence")
        for delta in DELTAS:
            assert meas.map(delta) == dp.discrete_gaussian_zcdp(scale, sensitivity=delta), (scale, delta)


def test_opendp_calibrated_by_us_meets_the_target(opendp):
    odp = opendp
    space = odp.atom_domain(T=int), odp.absolute_distance(T=int)
    for target in (0.1, 0.5, 1.0, 3.3):
        for delta in DELTAS:
            lap = odp.m.make_laplace(*space, scale=dp.discrete_laplace_scale(target, sensitivity=delta))
            assert lap.map(delta) <= target
            gauss = odp.m.make_gaussian(*space, scale=dp.discrete_gaussian_sigma(target, sensitivity=delta))
            assert gauss.map(delta) <= target


# --------------------------------------------------------------------------- shape and input checks


FUNCS = {
    "geometric_scale": (dp.geometric_scale, "p", 0.3),
    "geometric_p": (dp.geometric_p, "scale", 2.0),
    "discrete_laplace_epsilon": (dp.discrete_laplace_epsilon, "scale", 2.0),
    "discrete_laplace_scale": (dp.discrete_laplace_scale, "epsilon", 0.5),
    "discrete_gaussian_zcdp": (dp.discrete_gaussian_zcdp, "sigma", 2.0),
    "discrete_gaussian_sigma": (dp.discrete_gaussian_sigma, "zcdp_rho", 0.5),
}


@pytest.mark.parametrize("name", list(FUNCS))
def test_scalar_in_float_out_and_arrays_broadcast(name):
    func, _, x = FUNCS[name]
    assert type(func(x)) is float
    assert type(func(np.float64(x))) is float
    out = func(np.array([[x], [x / 2]]))
    assert isinstance(out, np.ndarray) and out.dtype == np.float64 and out.shape == (2, 1)
    assert out[0, 0] == func(x) and out[1, 0] == func(x / 2)
    assert getattr(di, name) is func  # importable from diffident too
    with pytest.raises(TypeError):
        func(x, 1.0)  # the rest is keyword-only


@pytest.mark.parametrize("name", ["discrete_laplace_epsilon", "discrete_laplace_scale",
                                  "discrete_gaussian_zcdp", "discrete_gaussian_sigma"])
def test_sensitivity_broadcasts(name):
    func, _, x = FUNCS[name]
    out = func(x, sensitivity=[1.0, 2.0, 3.0])
    assert out.shape == (3,)
    assert out[2] == func(x, sensitivity=3.0)
    with pytest.raises(ValueError):
        func([x, x], sensitivity=[1.0, 2.0, 3.0])


@pytest.mark.parametrize("name", list(FUNCS))
@pytest.mark.parametrize("bad", [0.0, -1.0, math.nan, math.inf, -math.inf])
def test_bad_first_argument_is_named(name, bad):
    func, arg, x = FUNCS[name]
    with pytest.raises(ValueError, match=rf"^{arg} .*{bad!r}"):
        func(bad)
    with pytest.raises(ValueError, match=rf"^{arg} .*{bad!r} at index 1"):
        func([x, bad])


@pytest.mark.parametrize("bad", [1.0, 1.5, 2.0])
def test_p_of_one_or_more_is_an_error(bad):
    with pytest.raises(ValueError, match=r"^p must lie in \(0\.0, 1\.0\); got " + repr(bad)):
        dp.geometric_scale(bad)


@pytest.mark.parametrize("name", ["discrete_laplace_epsilon", "discrete_laplace_scale",
                                  "discrete_gaussian_zcdp", "discrete_gaussian_sigma"])
@pytest.mark.parametrize("bad", [0.0, -2.0, math.nan, math.inf])
def test_bad_sensitivity_is_named(name, bad):
    func, _, x = FUNCS[name]
    with pytest.raises(ValueError, match=rf"^sensitivity .*{bad!r}"):
        func(x, sensitivity=bad)


@pytest.mark.parametrize("name", ["geometric_scale", "geometric_p"])
@pytest.mark.parametrize("bad", [0.0, -0.1, math.nan, math.inf])
def test_bad_granularity_is_named(name, bad):
    func, _, x = FUNCS[name]
    with pytest.raises(ValueError, match=rf"^granularity .*{bad!r}"):
        func(x, granularity=bad)
    with pytest.raises(ValueError, match="^granularity must be a single number"):
        func(x, granularity=[1.0, 2.0])


@pytest.mark.parametrize("name", list(FUNCS))
@pytest.mark.parametrize("bad", ["0.5", True, 1 + 2j, None])
def test_non_numbers_are_type_errors(name, bad):
    func, arg, _ = FUNCS[name]
    with pytest.raises(TypeError, match=f"^{arg} "):
        func(bad)
