"""The mechanisms' constructors from the parameters of OpenDP, Tumult and the Census."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import diffident as di
from diffident import dp

EPS = st.floats(1e-6, 1e3)
SENS = st.integers(1, 1000)


@settings(max_examples=200, deadline=None)
@given(EPS, st.floats(1e-3, 1e3))
def test_laplace_from_epsilon_is_the_smallest_scale_of_epsilon_dp(e, d):
    m = di.Laplace.from_epsilon(e, sensitivity=d)
    exact = Fraction(d) / Fraction(e)
    assert Fraction(m.scale) >= exact  # never less private than epsilon-DP, exactly
    assert Fraction(math.nextafter(m.scale, 0.0)) < exact  # and the least such float
    assert m.pure_epsilon <= e * (1 + 2**-52)


@settings(max_examples=200, deadline=None)
@given(st.floats(1e-6, 1e3), st.floats(1e-3, 1e3))
def test_gaussian_from_zcdp_is_the_smallest_sigma(r, d):
    m = di.Gaussian.from_zcdp(r, sensitivity=d)
    s = Fraction(m.sigma)
    assert 2 * Fraction(r) * s * s >= Fraction(d) ** 2
    lower = Fraction(math.nextafter(m.sigma, 0.0))
    assert 2 * Fraction(r) * lower * lower < Fraction(d) ** 2


def test_gaussian_from_epsilon_delta_meets_its_own_profile():
    rng = np.random.default_rng(7)
    for _ in range(300):
        e, d = float(rng.uniform(0, 20)), float(10 ** rng.uniform(-15, -0.05))
        m = di.Gaussian.from_epsilon_delta(e, d, sensitivity=3.0)
        assert m.delta(e) <= d
        assert m.sigma == dp.analytic_gaussian_sigma(e, delta=d, sensitivity=3.0)
        # and it is tight: 1e-10 less noise breaks the target
        assert di.Gaussian(m.sigma * (1 - 1e-10), sensitivity=3.0).delta(e) > d


@settings(max_examples=200, deadline=None)
@given(EPS, SENS)
def test_discrete_laplace_from_epsilon_is_opendps_scale(e, d):
    m = di.DiscreteLaplace.from_epsilon(e, sensitivity=d)
    assert m.scale == dp.discrete_laplace_scale(e, sensitivity=d)
    assert Fraction(m.scale) * Fraction(e) >= d and m.sensitivity == d


@settings(max_examples=200, deadline=None)
@given(st.floats(1e-12, 1 - 1e-12))
def test_discrete_laplace_from_geometric_has_the_census_law(p):
    import mpmath

    m = di.DiscreteLaplace.from_geometric(p)
    with mpmath.workdps(40):  # P(Z = k + 1) / P(Z = k) = 1 - p = e^(-1/b)
        exact = -1 / mpmath.log1p(-mpmath.mpf(p))
        assert abs(m.scale - exact) <= 2 * math.ulp(m.scale)
    assert math.isclose(dp.geometric_p(m.scale), p, rel_tol=1e-13)


@settings(max_examples=200, deadline=None)
@given(st.floats(1e-6, 1e3), SENS)
def test_discrete_gaussian_from_zcdp_is_opendps_sigma(r, d):
    m = di.DiscreteGaussian.from_zcdp(r, sensitivity=d)
    assert m.sigma == dp.discrete_gaussian_sigma(r, sensitivity=d)
    assert dp.discrete_gaussian_zcdp(m.sigma, sensitivity=d) <= r * (1 + 2**-51)


@settings(max_examples=300, deadline=None)
@given(st.floats(1e-300, 1e300))
def test_discrete_gaussian_from_variance_never_adds_noise(v):
    m = di.DiscreteGaussian.from_variance(v)
    s = Fraction(m.sigma)
    assert s * s <= Fraction(v) < Fraction(math.nextafter(m.sigma, math.inf)) ** 2


def test_from_variance_exact_squares_stay_exact():
    for s in (0.5, 1.0, 2.0, 3.0, 12.25):
        assert di.DiscreteGaussian.from_variance(s * s).sigma == s


def test_census_shares_compose_to_the_total_zcdp():
    # shares of a zCDP budget: the sum of the parts' zcdp equals the total
    total, shares = 2.63, (0.1, 0.2, 0.3, 0.4)
    parts = [di.DiscreteGaussian.from_zcdp(s * total) for s in shares]
    assert math.isclose(sum(dp.discrete_gaussian_zcdp(p.sigma) for p in parts), total, rel_tol=1e-12)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: di.Laplace.from_epsilon(0.0), "epsilon"),
        (lambda: di.Laplace.from_epsilon(math.inf), "epsilon"),
        (lambda: di.Laplace.from_epsilon(1.0, sensitivity=-1), "sensitivity"),
        (lambda: di.Gaussian.from_zcdp(math.nan), "zcdp_rho"),
        (lambda: di.Gaussian.from_epsilon_delta(-1.0, 1e-6), "epsilon"),
        (lambda: di.Gaussian.from_epsilon_delta(1.0, 1.0), "delta"),
        (lambda: di.DiscreteLaplace.from_epsilon(-2.0), "epsilon"),
        (lambda: di.DiscreteLaplace.from_epsilon(1.0, sensitivity=1.5), "sensitivity"),
        (lambda: di.DiscreteLaplace.from_geometric(0.0), "p"),
        (lambda: di.DiscreteLaplace.from_geometric(1.0), "p"),
        (lambda: di.DiscreteGaussian.from_zcdp(0.0), "zcdp_rho"),
        (lambda: di.DiscreteGaussian.from_variance(math.inf), "sigma_squared"),
        (lambda: di.DiscreteGaussian.from_variance(1.0, sensitivity=0), "sensitivity"),
    ],
)
def test_bad_parameters_name_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_non_numbers_are_type_errors():
    with pytest.raises(TypeError, match="epsilon"):
        di.Laplace.from_epsilon("1")
    with pytest.raises(TypeError, match="p"):
        di.DiscreteLaplace.from_geometric(None)


@pytest.fixture(scope="module")
def opendp():
    odp = pytest.importorskip("opendp.prelude")
    odp.enable_features("contrib")
    return odp


def test_opendp_measurements_of_our_constructors_meet_the_target(opendp):
    space = opendp.atom_domain(T=int), opendp.absolute_distance(T=int)
    for target in (0.1, 0.5, 1.0, 3.3):
        for d in (1, 2, 5):
            lap = di.DiscreteLaplace.from_epsilon(target, sensitivity=d)
            assert opendp.m.make_laplace(*space, scale=lap.scale).map(d) <= target
            assert lap.pure_epsilon <= target
            gauss = di.DiscreteGaussian.from_zcdp(target, sensitivity=d)
            assert opendp.m.make_gaussian(*space, scale=gauss.sigma).map(d) <= target
