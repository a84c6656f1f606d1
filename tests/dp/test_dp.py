"""Differential-privacy companions (diffident.dp; Mathematics page, section 7): the
analytic and classic Gaussian mechanisms, the posterior bound for a prior P,
composition.  References: dp-accounting (Google) for the analytic Gaussian
mechanism, mpmath at 50 digits for the exact values."""

import warnings
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import erfinv

import diffident as di
from diffident import dp
from diffident.testing import mpmath_reference as ref
from diffident.testing.dense import dp_accounting_sigma

EPS_GRID = np.geomspace(1e-3, 50, 25)
DELTA_GRID = np.geomspace(1e-12, 0.5, 25)


# --------------------------------------------------------------------------- analytic Gaussian


def test_analytic_sigma_matches_dp_accounting_on_a_grid():
    pytest.importorskip("dp_accounting")
    E, D = np.meshgrid(EPS_GRID, DELTA_GRID)
    ours = dp.analytic_gaussian_sigma(E, delta=D)
    want = dp_accounting_sigma(E, delta=D).ravel()
    np.testing.assert_allclose(ours.ravel(), want, rtol=1e-9, atol=0)
    # sensitivity scales sigma linearly
    S = 2.5
    ours_s = dp.analytic_gaussian_sigma(E, delta=D, sensitivity=S)
    np.testing.assert_allclose(ours_s.ravel(), S * want, rtol=1e-9, atol=0)


# dp.analytic_gaussian_sigma is at most this many ulps above the exact root (the
# margin of the certified test: the error bound of the float delta over the
# slope d ln delta / d ln sigma; 36 is the largest seen)
GAUSS_ULPS = 64


def test_analytic_sigma_is_exact_against_mpmath():
    # dp-accounting's own evaluation loses up to ~1e-12 for small epsilon;
    # ours is never below the 50-digit root and a few ulps above it
    cases = [(1e-3, 1e-12), (1e-3, 0.3), (0.01, 1e-9), (0.1, 1e-6), (0.5, 1e-5), (1.0, 1e-5),
             (2.0, 1e-3), (5.0, 1e-10), (20.0, 0.01), (50.0, 1e-12), (50.0, 0.5), (0.0, 1e-3),
             (1e-6, 1e-30), (1e-9, 1e-8)]
    for eps, delta in cases:
        ours = dp.analytic_gaussian_sigma(eps, delta=delta)
        exact = ref.analytic_gaussian_sigma(eps, delta=delta, start=ours)
        assert ref.analytic_gaussian_delta(ours, epsilon=eps) <= delta, (eps, delta)  # conservative at 50 digits
        assert exact <= ours <= exact + GAUSS_ULPS * np.spacing(exact), (eps, delta)


@pytest.mark.parametrize("sens", [1.0, 0.37, 1e3])
def test_analytic_sigma_conservative_and_tight(sens):
    E, D = np.meshgrid(np.concatenate([[0.0], EPS_GRID, [200.0]]), DELTA_GRID)
    sigma = dp.analytic_gaussian_sigma(E, delta=D, sensitivity=sens)
    assert np.all(np.isfinite(sigma)) and np.all(sigma > 0)
    # the condition holds at sigma, as evaluated in floating point ...
    assert np.all(dp.analytic_gaussian_delta(sigma, epsilon=E, sensitivity=sens) <= D)
    # ... and fails a relative 1e-12 below
    assert np.all(dp.analytic_gaussian_delta(sigma * (1 - 1e-12), epsilon=E, sensitivity=sens) > D)
    # exactly (50 digits): met at sigma, not GAUSS_ULPS floats below
    for s, e, d in zip(sigma.ravel()[::37], E.ravel()[::37], D.ravel()[::37], strict=False):
        assert ref.analytic_gaussian_delta(s, epsilon=e, sensitivity=sens) <= d
        assert ref.analytic_gaussian_delta(s - GAUSS_ULPS * np.spacing(s), epsilon=e, sensitivity=sens) > d


def test_analytic_sigma_monotone():
    E, D = np.meshgrid(EPS_GRID, DELTA_GRID)
    sigma = dp.analytic_gaussian_sigma(E, delta=D)
    assert np.all(np.diff(sigma, axis=1) < 0)  # falls with epsilon
    assert np.all(np.diff(sigma, axis=0) < 0)  # falls with delta


def test_analytic_sigma_closed_forms_at_epsilon_zero():
    # (0, delta)-DP: 2 Phi(S / (2 sigma)) - 1 = erf(S / (2 sqrt(2) sigma)) = delta
    delta = np.array([1e-200, 1e-12, 1e-6, 0.01, 0.3, 0.9])
    want = 1.0 / (2.0 * np.sqrt(2.0) * erfinv(delta))
    # (log space costs ~|ln delta| ulps where delta ~ 1/sigma: 1e-14 at 1e-200)
    np.testing.assert_allclose(dp.analytic_gaussian_sigma(0.0, delta=delta), want, rtol=5e-14)
    # tiny delta: delta ~ S / (sigma sqrt(2 pi)); the tails cancel completely
    # in a naive evaluation (sigma would come out ~1e15 instead of 4e19)
    assert dp.analytic_gaussian_sigma(0.0, delta=1e-20) == pytest.approx(1 / (1e-20 * np.sqrt(2 * np.pi)), rel=1e-12)
    assert dp.analytic_gaussian_sigma(1e-15, delta=1e-20) <= dp.analytic_gaussian_sigma(0.0, delta=1e-20)


def test_analytic_sigma_edge_values():
    assert dp.analytic_gaussian_sigma(np.inf, delta=1e-5) == 0.0
    assert dp.analytic_gaussian_sigma(1.0, delta=1e-5, sensitivity=0.0) == 0.0
    assert dp.analytic_gaussian_sigma(0.0, delta=1e-5, sensitivity=0.0) == 0.0
    # delta -> 1 still needs noise (no threshold where sigma hits 0); at
    # epsilon 0 the root is 0.0603 (the old bound 0.06 was met by an unsafe
    # sigma: the float delta rounded to 1 - 2^-53 there)
    s = dp.analytic_gaussian_sigma([0.0, 1.0, 50.0], delta=np.nextafter(1.0, 0.0))
    assert np.all((s > 0.04) & (s < 0.065))
    for si, e in zip(s, [0.0, 1.0, 50.0], strict=False):
        assert ref.analytic_gaussian_delta(si, epsilon=e) <= np.nextafter(1.0, 0.0)
    # large epsilon: no overflow in e^eps Phi(.)
    big = dp.analytic_gaussian_sigma([100.0, 1e4, 1e300], delta=1e-10)
    assert np.all(np.isfinite(big) & (big > 0))
    assert np.all(dp.analytic_gaussian_delta(big, epsilon=[100.0, 1e4, 1e300]) <= 1e-10)
    assert big[2] == pytest.approx(1 / np.sqrt(2e300), rel=1e-6)
    # beyond the float range: inf, never an unsafe finite value
    assert dp.analytic_gaussian_sigma(0.0, delta=5e-324) == np.inf


def test_analytic_sigma_shapes_and_types():
    out = dp.analytic_gaussian_sigma(1.0, delta=1e-5)
    assert type(out) is float
    eps = np.array([[0.5], [1.0], [2.0]])
    delta = np.array([1e-6, 1e-5])
    sens = [1.0, 2.0]
    eps0, delta0 = eps.copy(), delta.copy()
    out = dp.analytic_gaussian_sigma(eps, delta=delta, sensitivity=sens)
    assert out.shape == (3, 2)
    np.testing.assert_array_equal(eps, eps0)
    np.testing.assert_array_equal(delta, delta0)
    for i in range(3):
        for j in range(2):
            assert out[i, j] == dp.analytic_gaussian_sigma(float(eps[i, 0]), delta=float(delta[j]), sensitivity=sens[j])
    assert dp.analytic_gaussian_sigma([], delta=1e-5).shape == (0,)
    assert dp.analytic_gaussian_sigma(np.float32(1.0), delta=1e-5) == dp.analytic_gaussian_sigma(1.0, delta=1e-5)


def test_analytic_delta():
    dpa = pytest.importorskip("dp_accounting")
    for sigma, eps in [(1.0, 1.0), (3.0, 0.5), (0.2, 10.0), (50.0, 0.01)]:
        want = float(ref.analytic_gaussian_delta(sigma, epsilon=eps))
        assert dp.analytic_gaussian_delta(sigma, epsilon=eps) == pytest.approx(want, rel=1e-13)
        # dp-accounting's inverse: the epsilon of sigma at our delta
        e = dpa.get_epsilon_gaussian(sigma, dp.analytic_gaussian_delta(sigma, epsilon=eps), tol=1e-14)
        assert e == pytest.approx(eps, rel=1e-8)
    assert dp.analytic_gaussian_delta(2.0, epsilon=1.0,
                                      sensitivity=2.0) == dp.analytic_gaussian_delta(1.0, epsilon=1.0, sensitivity=1.0)
    np.testing.assert_array_equal(
        dp.analytic_gaussian_delta([0.0, np.inf, 1.0, 1.0, 0.0], epsilon=[1.0, 0.0, np.inf, 1.0, 0.0],
                                sensitivity=[1.0, 1.0, 1.0, 0.0, 0.0]),
        [1.0, 0.0, 0.0, 0.0, 0.0])


# --------------------------------------------------------------------------- classic Gaussian


def test_classic_formula_and_no_warning_below_one():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = dp.classic_gaussian_sigma([0.1, 0.5, 0.999], delta=[1e-5, 1e-9, 0.3], sensitivity=2.0)
    for g, e, d in zip(got, [0.1, 0.5, 0.999], [1e-5, 1e-9, 0.3], strict=False):
        want = ref.classic_gaussian_sigma(e, delta=d, sensitivity=2)
        assert g == pytest.approx(float(want), rel=4e-16)


def test_classic_warns_from_one():
    assert issubclass(dp.ClassicGaussianWarning, UserWarning)
    with pytest.warns(dp.ClassicGaussianWarning, match="epsilon < 1"):
        dp.classic_gaussian_sigma([0.5, 1.0], delta=1e-5)
    with pytest.warns(dp.ClassicGaussianWarning):
        dp.classic_gaussian_sigma(3.0, delta=1e-5)


def test_classic_is_above_analytic_where_it_holds():
    E, D = np.meshgrid(np.geomspace(1e-6, 0.999, 40), np.geomspace(1e-300, 0.99, 40))
    ratio = dp.classic_gaussian_sigma(E, delta=D) / dp.analytic_gaussian_sigma(E, delta=D)
    assert ratio.min() > 1.008  # far above rounding: no nudge needed


def test_classic_edge_values():
    assert dp.classic_gaussian_sigma(0.0, delta=1e-5) == np.inf
    assert dp.classic_gaussian_sigma(0.0, delta=1e-5, sensitivity=0.0) == 0.0
    with pytest.warns(dp.ClassicGaussianWarning):
        assert dp.classic_gaussian_sigma(np.inf, delta=1e-5) == 0.0
    assert type(dp.classic_gaussian_sigma(0.5, delta=1e-5)) is float


# --------------------------------------------------------------------------- posterior


def test_posterior_bound_formula():
    for eps, p in [(0.1, 0.5), (1.0, 0.01), (5.0, 0.9), (30.0, 1e-6), (1e-8, 0.3)]:
        want = ref.posterior_bound(eps, prior=p)
        assert dp.posterior_bound(eps, prior=p) == pytest.approx(float(want), rel=4e-16)


@pytest.mark.parametrize("m", [2, 3, 7, 8, 10, 99, 1000, 100000])
def test_posterior_bound_is_the_papers_rho_for_p_one_over_m(m):
    eps = np.concatenate([[0.0], np.geomspace(1e-6, 40, 200), [np.inf]])
    np.testing.assert_allclose(dp.posterior_bound(eps, prior=1 / m), di.rho_for_epsilon(eps, m=m), rtol=5e-16, atol=0)
    q = np.linspace(1 / m, 1, 50)[1:-1]
    np.testing.assert_allclose(dp.epsilon_for_posterior(q, prior=1 / m), di.epsilon_for_rho(q, m=m), rtol=1e-12,
                               atol=1e-15)


def test_posterior_bound_edge_values():
    np.testing.assert_array_equal(dp.posterior_bound([0.0, 2.0, np.inf], prior=0.0), [0, 0, 0])
    np.testing.assert_array_equal(dp.posterior_bound([0.0, 2.0, np.inf], prior=1.0), [1, 1, 1])
    assert dp.posterior_bound(0.0, prior=0.3) == 0.3
    assert dp.posterior_bound(np.inf, prior=0.3) == 1.0
    assert dp.posterior_bound(800.0, prior=1e-300) == 1.0  # no overflow
    assert type(dp.posterior_bound(1.0, prior=0.5)) is float
    assert dp.posterior_bound([[1.0], [2.0]], prior=[0.1, 0.2, 0.3]).shape == (2, 3)


def test_epsilon_for_posterior_formula_and_round_trip():
    q = np.array([0.3, 0.5, 0.75, 0.9, 0.999, 1 - 1e-12, 0.2000001])
    p = np.array([0.1, 0.25, 0.5, 0.5, 0.01, 0.5, 0.2])
    eps = dp.epsilon_for_posterior(q, prior=p)
    for e, qq, pp in zip(eps, q, p, strict=False):
        want = float(ref.epsilon_for_posterior(qq, prior=pp))
        assert e == pytest.approx(want, rel=1e-13)
    # conservative: the bound at the returned epsilon does not exceed q
    assert np.all(dp.posterior_bound(eps, prior=p) <= q)
    np.testing.assert_allclose(dp.posterior_bound(eps, prior=p), q, rtol=1e-14)


@settings(max_examples=300, deadline=None)
@given(st.floats(0.0, 60.0), st.floats(1e-9, 1 - 1e-9))
def test_posterior_round_trips(eps, p):
    q = dp.posterior_bound(eps, prior=p)
    back = dp.epsilon_for_posterior(q, prior=p)
    assert dp.posterior_bound(back, prior=p) <= q
    if q < 1.0:
        # a rounding of q moves the inverse by ~ulp(q) / (q (1 - q))
        assert abs(back - eps) <= 1e-14 + 2e-15 / (1.0 - q)


def test_epsilon_for_posterior_edge_values():
    assert dp.epsilon_for_posterior(1.0, prior=0.3) == np.inf
    assert dp.epsilon_for_posterior(0.5, prior=0.0) == np.inf
    assert dp.epsilon_for_posterior(0.0, prior=0.0) == np.inf
    assert dp.epsilon_for_posterior(0.2, prior=0.3) == 0.0  # below the prior: unattainable
    assert dp.epsilon_for_posterior(0.3, prior=0.3) == 0.0
    assert dp.epsilon_for_posterior(0.9, prior=1.0) == 0.0
    assert dp.epsilon_for_posterior(1.0, prior=1.0) == np.inf
    assert type(dp.epsilon_for_posterior(0.6, prior=0.5)) is float
    # a tiny prior with q near 1: finite (~728), the ratio taken in logs
    e = dp.epsilon_for_posterior(1 - 1e-16, prior=1e-300)
    assert e == pytest.approx(727.5123284678908, rel=1e-14)
    assert dp.posterior_bound(e, prior=1e-300) <= 1 - 1e-16


# --------------------------------------------------------------------------- composition


def exact_sum(xs):
    return sum(Fraction(float(x)) for x in xs)


def test_compose_sequential_is_the_exact_sum_rounded_up():
    rng = np.random.default_rng(0)
    rows = [rng.random(n) * 10.0 ** rng.integers(-8, 3) for n in (1, 2, 3, 7, 10, 64, 1001)]
    rows += [np.full(10, 0.1), np.array([1e16, 1.0, 1.0]), np.array([1.0, 1e-30, 1e-300])]
    for x in rows:
        got = dp.compose_sequential(x)
        ex = exact_sum(x)
        assert Fraction(got) >= ex
        assert Fraction(np.nextafter(got, 0.0)) < ex
    assert dp.compose_sequential([0.1] * 10) > 1.0  # the exact sum of ten 0.1 is > 1
    assert dp.compose_sequential([0.5, 0.25]) == 0.75


def test_compose_sequential_axes_and_deltas():
    e = np.array([[0.1, 0.2, 0.3], [1.0, 2.0, 3.0]])
    e0 = e.copy()
    np.testing.assert_allclose(dp.compose_sequential(e), [0.6, 6.0], rtol=1e-15)
    np.testing.assert_allclose(dp.compose_sequential(e, axis=0), [1.1, 2.2, 3.3], rtol=1e-15)
    np.testing.assert_array_equal(e, e0)
    eps, delta = dp.compose_sequential([0.5, 0.5], deltas=[1e-6, 1e-6])
    assert (eps, delta) == (1.0, 2e-6)
    assert type(eps) is float and type(delta) is float
    eps, delta = dp.compose_sequential([0.1, 0.2, 0.3], deltas=1e-5)  # one delta for all
    assert delta == pytest.approx(3e-5, rel=1e-15) and delta >= 3e-5
    assert dp.compose_sequential([1.0, 1.0], deltas=[0.7, 0.6])[1] == 1.0  # capped
    assert dp.compose_sequential([1.0, np.inf]) == np.inf
    assert dp.compose_sequential(np.zeros(0)) == 0.0
    assert dp.compose_sequential(0.7) == 0.7
    assert dp.compose_sequential([1e308, 1e308]) == np.inf


def test_compose_parallel():
    assert dp.compose_parallel([0.1, 0.5, 0.3]) == 0.5
    assert dp.compose_parallel([0.1, 0.5], deltas=[1e-5, 1e-7]) == (0.5, 1e-5)
    np.testing.assert_array_equal(dp.compose_parallel([[1.0, 3.0], [2.0, 0.5]], axis=0), [2.0, 3.0])
    assert dp.compose_parallel(np.zeros(0)) == 0.0
    assert dp.compose_parallel([0.2, np.inf]) == np.inf


def test_rho_after_composition():
    eps = np.array([0.2, 0.5, 0.8])
    got = dp.rho_after_composition(eps, m=8)
    # the bound at the upward-rounded sum, itself rounded upward (not to nearest)
    near = di.rho_for_epsilon(dp.compose_sequential(eps), m=8)
    assert got in (near, np.nextafter(near, 1.0))
    with mp.workdps(60):
        exact = 1 / (1 + 7 * mp.exp(-mp.mpf(exact_sum(eps).numerator) / exact_sum(eps).denominator))
        assert mp.mpf(got) >= exact  # never below the exact bound at the exact sum
    assert dp.rho_after_composition(eps, m=8) >= di.rho_for_epsilon(1.5, m=8)
    assert dp.rho_after_composition(eps, m=8) == pytest.approx(di.rho_for_epsilon(1.5, m=8), rel=1e-15)
    np.testing.assert_allclose(dp.rho_after_composition([[0.5, 0.5], [1.0, 2.0]], m=[2, 10]),
                               [di.rho_for_epsilon(1.0, m=2), di.rho_for_epsilon(3.0, m=10)], rtol=1e-15)
    assert dp.rho_after_composition(np.zeros(0), m=4) == 0.25
    assert dp.rho_after_composition([1.0, np.inf], m=4) == 1.0


def test_epsilon_per_release():
    for rho, m, k in [(1 / 3, 8, 4), (0.1, 99, 3), (0.5, 100000, 7), (0.9, 2, 1000), (0.01, 1000, 10)]:
        e = dp.epsilon_per_release(rho, m=m, k=k)
        assert e == pytest.approx(di.epsilon_for_rho(rho, m=m) / k, rel=1e-15)
        assert dp.rho_after_composition(np.full(k, e), m=m) <= rho
        assert Fraction(e) * k <= Fraction(di.epsilon_for_rho(rho, m=m))
    assert dp.epsilon_per_release(0.1, m=10, k=3) == 0.0  # rho = 1/m: unattainable
    assert dp.epsilon_per_release(1.0, m=10, k=3) == np.inf
    out = dp.epsilon_per_release([0.2, 0.3], m=8, k=[[1], [2], [5]])
    assert out.shape == (3, 2)


# --------------------------------------------------------------------------- bad input


BAD = [
    (dp.analytic_gaussian_sigma, dict(epsilon=-1.0, delta=1e-5, sensitivity=1.0), "epsilon"),
    (dp.analytic_gaussian_sigma, dict(epsilon=np.nan, delta=1e-5, sensitivity=1.0), "epsilon"),
    (dp.analytic_gaussian_sigma, dict(epsilon=1.0, delta=0.0, sensitivity=1.0), "delta"),
    (dp.analytic_gaussian_sigma, dict(epsilon=1.0, delta=1.0, sensitivity=1.0), "delta"),
    (dp.analytic_gaussian_sigma, dict(epsilon=1.0, delta=-0.1, sensitivity=1.0), "delta"),
    (dp.analytic_gaussian_sigma, dict(epsilon=1.0, delta=np.nan, sensitivity=1.0), "delta"),
    (dp.analytic_gaussian_sigma, dict(epsilon=1.0, delta=1e-5, sensitivity=-1.0), "sensitivity"),
    (dp.analytic_gaussian_sigma, dict(epsilon=1.0, delta=1e-5, sensitivity=np.inf), "sensitivity"),
    (dp.analytic_gaussian_sigma, dict(epsilon=1.0, delta=1e-5, sensitivity=np.nan), "sensitivity"),
    (dp.analytic_gaussian_sigma, dict(epsilon=[0.5, -2.0], delta=1e-5, sensitivity=1.0), "epsilon"),
    (dp.analytic_gaussian_delta, dict(sigma=-1.0, epsilon=1.0, sensitivity=1.0), "sigma"),
    (dp.analytic_gaussian_delta, dict(sigma=1.0, epsilon=np.nan, sensitivity=1.0), "epsilon"),
    (dp.classic_gaussian_sigma, dict(epsilon=-0.5, delta=1e-5, sensitivity=1.0), "epsilon"),
    (dp.classic_gaussian_sigma, dict(epsilon=0.5, delta=1.5, sensitivity=1.0), "delta"),
    (dp.classic_gaussian_sigma, dict(epsilon=0.5, delta=1e-5, sensitivity=-2.0), "sensitivity"),
    (dp.posterior_bound, dict(epsilon=-1.0, prior=0.5), "epsilon"),
    (dp.posterior_bound, dict(epsilon=np.nan, prior=0.5), "epsilon"),
    (dp.posterior_bound, dict(epsilon=1.0, prior=1.5), "prior"),
    (dp.posterior_bound, dict(epsilon=1.0, prior=-0.1), "prior"),
    (dp.posterior_bound, dict(epsilon=1.0, prior=np.nan), "prior"),
    (dp.epsilon_for_posterior, dict(posterior=1.1, prior=0.5), "posterior"),
    (dp.epsilon_for_posterior, dict(posterior=-0.1, prior=0.5), "posterior"),
    (dp.epsilon_for_posterior, dict(posterior=np.nan, prior=0.5), "posterior"),
    (dp.epsilon_for_posterior, dict(posterior=0.5, prior=2.0), "prior"),
    (dp.compose_sequential, dict(epsilons=[0.1, -0.2],), "epsilons"),
    (dp.compose_sequential, dict(epsilons=[0.1, np.nan],), "epsilons"),
    (dp.compose_sequential, dict(epsilons=[0.1, 0.2], deltas=[0.1, 1.5]), "deltas"),
    (dp.compose_parallel, dict(epsilons=[-0.1],), "epsilons"),
    (dp.compose_parallel, dict(epsilons=[0.1], deltas=[-1e-5]), "deltas"),
    (dp.rho_after_composition, dict(epsilons=[0.1, -0.2], m=4), "epsilons"),
    (dp.rho_after_composition, dict(epsilons=[0.1], m=0.5), "m"),
    (dp.epsilon_per_release, dict(rho=0.5, m=10, k=0), "k"),
    (dp.epsilon_per_release, dict(rho=0.5, m=10, k=2.5), "k"),
    (dp.epsilon_per_release, dict(rho=1.5, m=10, k=2), "rho"),
    (dp.epsilon_per_release, dict(rho=0.5, m=0.0, k=2), "m"),
]


@pytest.mark.parametrize("fn, kwargs, name", BAD, ids=[f"{f.__name__}-{n}-{i}" for i, (f, _, n) in enumerate(BAD)])
def test_bad_input_names_the_argument(fn, kwargs, name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.ClassicGaussianWarning)
        with pytest.raises(ValueError, match=rf"^{name}\b"):
            fn(**kwargs)


def test_non_numeric_input():
    with pytest.raises(TypeError, match="epsilon"):
        dp.analytic_gaussian_sigma("1.0", delta=1e-5)
