"""expected_risk: the MAP adversary's success, against its check values, a
piecewise mpmath integration, brute-force identities and the extremes."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import diffident as di

R = pytest.importorskip("diffident.testing.mpmath_reference")

NOISES = ["laplace", "gaussian"]


# ------------------------------------------------------------- check values

def test_two_worlds_laplace_check_values():
    # Mathematics page, section 10: {0, 1}, b = 1
    assert di.expected_risk([0.0, 1.0], scale=1.0) == pytest.approx(1 - math.exp(-0.5) / 2, rel=1e-15)
    assert round(di.expected_risk([0.0, 1.0], scale=1.0), 6) == 0.696735
    assert round(di.worst_case_risk([0.0, 1.0], scale=1.0), 6) == 0.731059


def test_two_worlds_gaussian_is_the_normal_cdf_at_half_the_gap():
    from scipy.stats import norm

    for sigma in (0.1, 1.0, 7.0):
        got = di.expected_risk([0.0, 1.0], scale=sigma, noise="gaussian")
        assert got == pytest.approx(norm.cdf(0.5 / sigma), rel=1e-14)


def test_uniform_laplace_closed_form():
    # (1 + sum over gaps of 1 - exp(-gap / (2 b))) / M, each value counted once
    v = np.array([0.0, 0.3, 0.3, 1.0, 4.0, 4.0, 4.0])
    b = 0.7
    gaps = np.diff(np.unique(v))
    want = (1 + np.sum(-np.expm1(-gaps / (2 * b)))) / v.size
    assert di.expected_risk(v, scale=b) == pytest.approx(want, rel=1e-15)


# ------------------------------------------------- the mpmath reference

def _case(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 7))
    v = rng.normal(0, 2, m).round(1)  # repeats on purpose
    counts = rng.integers(0, 4, m).astype(float)
    counts[rng.integers(m)] = 1.0
    prior = rng.uniform(0.05, 3.0, m) if seed % 3 else None
    scale = float(rng.uniform(0.1, 3.0))
    return v, counts, prior, scale


@pytest.mark.parametrize("noise", NOISES)
@pytest.mark.parametrize("seed", range(12))
def test_against_piecewise_integration(seed, noise):
    v, counts, prior, scale = _case(seed)
    got = di.expected_risk(v, scale=scale, noise=noise, counts=counts, prior=prior)
    want = float(R.expected_success(v, scale=scale, noise=noise, counts=counts, prior=prior))
    assert got == pytest.approx(want, rel=1e-10)
    for j in range(v.size):
        got = di.expected_risk(v, scale=scale, noise=noise, counts=counts, prior=prior, world=j)
        want = float(R.expected_success(v, scale=scale, noise=noise, counts=counts, prior=prior, world=j))
        assert got == pytest.approx(want, rel=1e-10, abs=1e-300)


@pytest.mark.parametrize("noise", NOISES)
def test_the_average_of_the_worlds_is_the_success(noise):
    v, counts, prior, scale = _case(4)
    p = np.ones(v.size) if prior is None else prior
    per_world = np.array([di.expected_risk(v, scale=scale, noise=noise, counts=counts, prior=prior, world=j)
                          for j in range(v.size)])
    avg = np.sum(counts * p * per_world) / np.sum(counts * p)
    assert avg == pytest.approx(di.expected_risk(v, scale=scale, noise=noise, counts=counts, prior=prior),
                                rel=1e-13)


def test_a_world_below_another_prior_on_its_value_is_never_named():
    v = [0.0, 0.0, 1.0]
    assert di.expected_risk(v, scale=1.0, prior=[1.0, 2.0, 1.0], world=0) == 0.0
    assert di.expected_risk(v, scale=1.0, prior=[1.0, 2.0, 1.0], counts=[1, 0, 1], world=0) > 0.0
    assert di.expected_risk(v, scale=1.0, counts=[1, 0, 1], world=1) == 0.0  # no such world
    # equal priors on one value: the adversary picks one of the two
    both = di.expected_risk(v, scale=1.0, world=0)
    alone = di.expected_risk([0.0, 1.0], scale=1.0, world=0)
    assert both == pytest.approx(alone / 2, rel=1e-15)


def test_a_dominating_prior_is_always_named():
    # ln 3 > 1 / b: world 0 wins every response
    assert di.expected_risk([0.0, 1.0], scale=1.0, prior=[3.0, 1.0]) == pytest.approx(0.75, rel=1e-15)
    assert di.expected_risk([0.0, 1.0], scale=1.0, prior=[3.0, 1.0], world=1) == 0.0
    assert di.expected_risk([0.0, 1.0], scale=1.0, prior=[3.0, 1.0], world=0) == 1.0


# ------------------------------------------------------------------ limits

@pytest.mark.parametrize("noise", NOISES)
def test_limits_at_no_noise_and_infinite_noise(noise):
    v = [0.0, 1.0, 1.0, 5.0]
    got = di.expected_risk(v, scale=[0.0, np.inf], noise=noise)
    np.testing.assert_array_equal(got, [3 / 4, 1 / 4])  # distinct values over m; the prior
    got = di.expected_risk(v, scale=[0.0, np.inf], noise=noise, prior=[1.0, 2.0, 1.0, 4.0])
    np.testing.assert_allclose(got, [(1 + 2 + 4) / 8, 4 / 8], rtol=1e-15)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-20, 20), min_size=1, max_size=12),
       st.floats(1e-3, 1e3), st.sampled_from(NOISES))
def test_between_the_prior_and_the_worst_case(vals, scale, noise):
    v = np.array(vals, dtype=float)
    e = di.expected_risk(v, scale=scale, noise=noise)
    assert 1 / v.size * (1 - 1e-14) <= e <= 1.0
    if noise == "laplace":
        assert e <= di.worst_case_risk(v, scale=scale) * (1 + 1e-14)
    # more noise, less success (a uniform prior)
    assert di.expected_risk(v, scale=2 * scale, noise=noise) <= e * (1 + 1e-14)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(-10, 10), st.floats(0.01, 100.0)), min_size=1, max_size=8),
       st.floats(1e-2, 1e2), st.sampled_from(NOISES))
def test_with_a_prior_at_least_the_largest_share(pairs, scale, noise):
    v = np.array([a for a, _ in pairs], dtype=float)
    p = np.array([b for _, b in pairs])
    e = di.expected_risk(v, scale=scale, noise=noise, prior=p)
    assert p.max() / p.sum() * (1 - 1e-13) <= e <= 1.0 + 1e-15


# ---------------------------------------------------------------- extremes

@pytest.mark.parametrize("noise", NOISES)
@pytest.mark.parametrize("k", [-1070, -1000, 1000, 1020])
def test_scaling_values_and_scale_together_changes_nothing(k, noise):
    v = np.array([-3.0, -1.0, 0.5, 2.0, 2.0, 3.5])
    p = np.array([1.0, 2.0, 0.5, 1.0, 3.0, 1.0])
    for prior in (None, p):
        # (values and scales of few bits: exact as subnormals too)
        base = di.expected_risk(v, scale=[0.375, 2.0], noise=noise, prior=prior)
        got = di.expected_risk(np.ldexp(v, k), scale=np.ldexp([0.375, 2.0], k), noise=noise, prior=prior)
        np.testing.assert_allclose(got, base, rtol=1e-13)


def test_values_near_the_float_limits():
    v = np.array([-1.7e308, 0.0, 1.7e308])
    got = di.expected_risk(v, scale=1e308)
    want = (1 + 2 * -math.expm1(-0.85)) / 3
    assert got == pytest.approx(want, rel=1e-14)
    assert di.expected_risk(v, scale=1e308, noise="gaussian", prior=[1e300, 1.0, 1e-300]) == pytest.approx(
        float(R.expected_success(v, scale=1e308, noise="gaussian", prior=[1e300, 1.0, 1e-300])), rel=1e-10)


def test_tiny_scale_and_huge_weights():
    v = [0.0, 1.0, 2.0]
    assert di.expected_risk(v, scale=1e-300) == 1.0
    p = np.array([1.0, 2.0, 3.0])
    base = di.expected_risk(v, scale=1.5, prior=p)
    assert di.expected_risk(v, scale=1.5, prior=p * 1e300) == pytest.approx(base, rel=1e-14)
    assert di.expected_risk(v, scale=1.5, prior=p * 1e-300) == pytest.approx(base, rel=1e-14)
    # a gap of one subnormal step against a scale whose reciprocal overflows
    v = [0.0, 5e-324, 1e10]
    assert di.expected_risk(v, scale=1e-310) == pytest.approx((1 + (1 - math.exp(-2.5e-14)) + 1) / 3, rel=1e-15)


# --------------------------------------------------------------- bad input

@pytest.mark.parametrize("kwargs, err, match", [
    (dict(scale=-1.0), ValueError, "scale"),
    (dict(scale=np.nan), ValueError, "scale"),
    (dict(scale=1.0, noise="cauchy"), ValueError, "noise"),
    (dict(scale=1.0, noise=1), TypeError, "noise"),
    (dict(scale=1.0, world=5), ValueError, "world"),
    (dict(scale=1.0, world=0.5), TypeError, "world"),
    (dict(scale=1.0, world=[0, 1]), TypeError, "world"),
    (dict(scale=1.0, counts=[1, -1]), ValueError, "counts"),
    (dict(scale=1.0, prior=[0.0, 0.0]), ValueError, "prior"),
])
def test_bad_input_names_the_argument(kwargs, err, match):
    with pytest.raises(err, match=match):
        di.expected_risk([0.0, 1.0], **kwargs)


def test_bad_values_and_positional_scale():
    with pytest.raises(ValueError, match="values"):
        di.expected_risk([], scale=1.0)
    with pytest.raises(ValueError, match="values"):
        di.expected_risk([0.0, np.inf], scale=1.0)
    with pytest.raises(TypeError):
        di.expected_risk([0.0, 1.0], 1.0)  # scale is keyword-only


# ------------------------------------------------------------- calibration

@pytest.mark.parametrize("noise", NOISES)
@pytest.mark.parametrize("with_prior", [False, True])
def test_calibration_passes_the_evaluator_and_is_tight(noise, with_prior):
    rng = np.random.default_rng(7)
    v = rng.normal(0, 3, 300).round(2)
    prior = rng.uniform(0.5, 2.0, v.size) if with_prior else None
    top = (1.0 if prior is None else prior.max()) / (v.size if prior is None else prior.sum())
    rho = np.geomspace(top * 1.01, 0.9, 25).reshape(5, 5)
    lam = di.tight_scale(v, rho=rho, risk="expected", noise=noise, prior=prior)
    assert lam.shape == rho.shape and np.all(np.isfinite(lam) & (lam >= 0))
    got = di.expected_risk(v, scale=lam, noise=noise, prior=prior)
    assert np.all(got <= rho)
    live = lam > 0
    below = di.expected_risk(v, scale=np.nextafter(lam[live], 0), noise=noise, prior=prior)
    rel = 1e-13 if prior is None else 1e-10  # the target lowered by the evaluation's error bound only
    assert np.all(below > rho[live] * (1 - rel))


@pytest.mark.parametrize("noise", NOISES)
def test_calibration_meets_rho_exactly_per_the_reference(noise):
    v, counts, prior, _ = _case(5)
    v = np.append(v, [10.0, -4.0])
    counts = np.append(counts, [1.0, 2.0])
    prior = None if prior is None else np.append(prior, [1.0, 0.5])
    e0 = di.expected_risk(v, scale=0.0, counts=counts, prior=prior)
    einf = di.expected_risk(v, scale=np.inf, counts=counts, prior=prior)
    for rho in np.linspace(einf, e0, 6)[1:-1]:
        lam = di.tight_scale(v, rho=rho, risk="expected", noise=noise, counts=counts, prior=prior)
        assert float(R.expected_success(v, scale=lam, noise=noise, counts=counts, prior=prior)) <= rho


def test_calibration_limits_are_decided_exactly():
    v = [0.0, 1.0, 1.0, 5.0]  # no noise: 3 of 4 named; no information: 1 in 4
    lam = di.tight_scale(v, rho=[0.75, np.nextafter(0.75, 0), 0.25, np.nextafter(0.25, 1), 1.0, 0.0],
                         risk="expected")
    assert lam[0] == 0.0 and lam[4] == 0.0 and 0 < lam[1] < np.inf
    assert lam[2] == np.inf and lam[5] == np.inf and 1e10 < lam[3] < np.inf
    # just above the limit: the worst case's calibration (it bounds the success)
    assert lam[3] == di.tight_scale(v, rho=np.nextafter(0.25, 1))
    assert di.expected_risk(v, scale=lam[3]) <= np.nextafter(0.25, 1)
    # Gaussian noise has no such bound here: inf, the private side
    assert di.tight_scale(v, rho=np.nextafter(0.25, 1), risk="expected", noise="gaussian") == np.inf
    prior = [1.0, 2.0, 1.0, 4.0]  # no noise: (1 + 2 + 4) / 8; no information: 4 / 8
    lam = di.tight_scale(v, rho=[7 / 8, 0.5, 0.5 * (1 + 1e-9)], risk="expected", prior=prior)
    assert lam[0] == 0.0 and lam[1] == np.inf and np.isfinite(lam[2])


def test_expected_needs_less_noise_than_the_worst_case():
    toy = [2, 8 / 3, 3, 10 / 3, 11 / 3, 4, 13 / 3, 14 / 3]
    worst = di.tight_scale(toy, rho=1 / 3)
    expected = di.tight_scale(toy, rho=1 / 3, risk="expected")
    assert expected < worst
    assert di.tight_epsilon(toy, rho=1 / 3, risk="expected") == pytest.approx((14 / 3 - 2) / expected, rel=1e-15)


@pytest.mark.parametrize("kwargs, err, match", [
    (dict(risk="average"), ValueError, "risk must be one of"),
    (dict(risk=1), TypeError, "risk must be a string"),
    (dict(noise="gaussian"), ValueError, "gaussian_sigma_for"),
    (dict(risk="expected", noise="cauchy"), ValueError, "noise"),
])
def test_calibration_bad_choices(kwargs, err, match):
    with pytest.raises(err, match=match):
        di.tight_scale([0.0, 1.0], rho=0.6, **kwargs)


# ------------------------------------------------------------ integer noise

INTEGER = ["discrete_laplace", "discrete_gaussian"]


def test_integer_noise_check_values():
    # discrete Laplace b = 1: every lattice response gives the posterior 1 / (1 + e^-1)
    assert di.expected_risk([0.0, 1.0], scale=1.0, noise="discrete_laplace") == pytest.approx(
        1 / (1 + math.exp(-1)), rel=1e-15)
    # discrete Gaussian sigma = 1: the boundary is 1/2, world 0 wins R <= 0: (1 + P(Z = 0)) / 2
    p0 = 1 / sum(math.exp(-k * k / 2) for k in range(-40, 41))
    assert round(p0, 6) == 0.398942
    assert di.expected_risk([0.0, 1.0], scale=1.0, noise="discrete_gaussian") == pytest.approx((1 + p0) / 2,
                                                                                              rel=1e-14)


@pytest.mark.parametrize("noise", INTEGER)
@pytest.mark.parametrize("seed", range(8))
def test_integer_noise_against_lattice_sums(seed, noise):
    rng = np.random.default_rng([seed, 11])
    g = [1.0, 0.5, 0.25, 3.0][seed % 4]
    m = int(rng.integers(1, 6))
    v = rng.integers(-8, 8, m) * g
    counts = rng.integers(0, 3, m).astype(float)
    counts[0] = 1.0
    prior = rng.uniform(0.2, 3.0, m) if seed % 2 else None
    scale = float(rng.uniform(0.2, 4.0)) * g
    kw = dict(scale=scale, noise=noise, counts=counts, prior=prior, granularity=g)
    assert di.expected_risk(v, **kw) == pytest.approx(float(R.expected_success(v, **kw)), rel=1e-12)
    for j in range(m):
        want = float(R.expected_success(v, **kw, world=j))
        assert di.expected_risk(v, **kw, world=j) == pytest.approx(want, rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("noise", INTEGER)
def test_integer_noise_limits_and_a_tie_on_the_lattice(noise):
    v = [0.0, 2.0, 2.0, 7.0]
    np.testing.assert_array_equal(di.expected_risk(v, scale=[0.0, np.inf], noise=noise), [3 / 4, 1 / 4])
    # R = 1 is a tie between 0 and 2: it goes to the right (the larger value), once
    left = di.expected_risk([0.0, 2.0], scale=0.8, noise=noise, world=0)
    right = di.expected_risk([0.0, 2.0], scale=0.8, noise=noise, world=1)
    both = di.expected_risk([0.0, 2.0], scale=0.8, noise=noise)
    assert both == pytest.approx((left + right) / 2, rel=1e-15) and right > left


def test_integer_noise_bad_input():
    with pytest.raises(ValueError, match="lattice"):
        di.expected_risk([0.0, 0.5], scale=1.0, noise="discrete_laplace")
    with pytest.raises(ValueError, match="granularity"):
        di.expected_risk([0.0, 1.0], scale=1.0, noise="laplace", granularity=0.5)
    with pytest.raises(ValueError, match="granularity"):
        di.expected_risk([0.0, 1.0], scale=1.0, noise="discrete_laplace", granularity=0.0)
    with pytest.raises(ValueError, match="2\\*\\*53"):
        di.expected_risk([0.0, 2.0**60], scale=1.0, noise="discrete_laplace")


def test_discrete_laplace_calibration_and_refused_discrete_gaussian():
    v = np.arange(0.0, 30.0, 0.5)
    rho = np.array([0.05, 0.1, 0.3])
    lam = di.tight_scale(v, rho=rho, risk="expected", noise="discrete_laplace", granularity=0.5)
    assert np.all(di.expected_risk(v, scale=lam, noise="discrete_laplace", granularity=0.5) <= rho)
    below = di.expected_risk(v, scale=np.nextafter(lam, 0), noise="discrete_laplace", granularity=0.5)
    assert np.all(below > rho * (1 - 1e-12))
    # the worst case on the lattice is the Laplace worst case: the same scale
    assert di.tight_scale(v, rho=0.3, noise="discrete_laplace", granularity=0.5) == di.tight_scale(v, rho=0.3)
    with pytest.raises(ValueError, match="does not always fall"):
        di.tight_scale(v, rho=0.3, risk="expected", noise="discrete_gaussian", granularity=0.5)
    with pytest.raises(ValueError, match="lattice"):
        di.tight_scale([0.0, 0.3], rho=0.6, noise="discrete_laplace")


def test_the_discrete_gaussian_success_can_rise_with_sigma():
    # why its calibration is refused: a prior and sigma near 1/2 (found by a scan)
    sig = np.geomspace(0.5, 0.56, 200)
    e = di.expected_risk([-5.0, -4.0], scale=sig, noise="discrete_gaussian", prior=[2.29849031, 0.43521335])
    assert np.diff(e).max() > 1e-5
    # Laplace noise, continuous or integer, and the continuous Gaussian: never
    for noise in ("laplace", "discrete_laplace", "gaussian"):
        e = di.expected_risk([-5.0, -4.0], scale=sig, noise=noise, prior=[2.29849031, 0.43521335])
        assert np.diff(e).max() <= 0.0
