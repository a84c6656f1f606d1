"""Integer noise (discrete Laplace, discrete Gaussian) in the posterior
family, the worst case and Gaussian (rho, delta) (Mathematics page,
section 11): the continuous formula at lattice responses, brute-force sums
of the normalised pmfs at 50 digits, the lattice checks and the check
values.
"""

import math

import numpy as np
import pytest
from mpmath import mp, mpf

import diffident as di
from diffident.testing import mpmath_reference as ref

DISCRETE = ["discrete_laplace", "discrete_gaussian"]
CONTINUOUS = {"discrete_laplace": "laplace", "discrete_gaussian": "gaussian"}


def _random_case(rng, noise):
    g = float(rng.choice([1.0, 0.5, 0.1, 3.0, 0.25]))
    m = int(rng.integers(2, 7))
    values = np.round(rng.normal(0, 6, m)) * g
    response = np.round(rng.normal(0, 8, 3)) * g
    scale = float(rng.choice([0.3, 1.0, 2.5, 7.0])) * g
    counts = rng.integers(1, 4, m).astype(float)
    prior = rng.uniform(0.2, 2.0, m)
    return g, values, response, scale, counts, prior


def _brute_posterior(values, R, scale, counts, prior, noise, g):
    """c_j pi_j P(Z = (R - f_j)/g) / sum_k c_k pi_k P(Z = (R - f_k)/g) at 50 digits."""
    with mp.workdps(50):
        terms = [mpf(c) * mpf(p) * ref.integer_pmf(round((R - f) / g), scale / g, noise)
                 for f, c, p in zip(values, counts, prior, strict=True)]
        total = mp.fsum(terms)
        norm = ref.integer_normaliser(scale / g, noise)
        return [t / mpf(c) / total for t, c in zip(terms, counts, strict=True)], total * norm


@pytest.mark.parametrize("noise", DISCRETE)
def test_posterior_family_equals_continuous_and_brute_force(noise):
    rng = np.random.default_rng(14)
    for _ in range(12):
        g, values, response, scale, counts, prior = _random_case(rng, noise)
        kw = dict(response=response, scale=scale, counts=counts, prior=prior)
        post = di.posterior(values, noise=noise, granularity=g, **kw)
        # the continuous formula with the same energies, to the last bit
        assert np.array_equal(post, di.posterior(values, noise=CONTINUOUS[noise], **kw))
        logev = di.log_evidence(values, noise=noise, granularity=g, **kw)
        logpost = di.log_posterior(values, noise=noise, granularity=g, **kw)
        for i, R in enumerate(response):
            want, ev = _brute_posterior(values, float(R), scale, counts, prior, noise, g)
            for j in range(len(values)):
                assert post[i, j] == pytest.approx(float(want[j]), rel=1e-13, abs=1e-300)
                risk = di.disclosure_risk(values, response=float(R), scale=scale, world=j, counts=counts,
                                          prior=prior, noise=noise, granularity=g)
                assert risk == pytest.approx(float(want[j]), rel=1e-13, abs=1e-300)
                if want[j] > 1e-300:
                    assert logpost[i, j] == pytest.approx(float(mp.log(want[j])), rel=1e-13, abs=1e-13)
            # the evidence is the normalised pmf's sum times the normaliser (no constant)
            assert logev[i] == pytest.approx(float(mp.log(ev)), rel=1e-13, abs=1e-13)


def test_check_value_every_lattice_response():
    # two worlds {0, 1}, discrete Laplace b = 1: the larger posterior is
    # 1 / (1 + e^-1) at every lattice response
    R = np.arange(-20.0, 21.0)
    p = di.posterior([0.0, 1.0], response=R, scale=1.0, noise="discrete_laplace")
    assert np.allclose(p.max(axis=1), 1 / (1 + math.exp(-1)), rtol=1e-15, atol=0)
    assert round(float(p.max()), 6) == 0.731059


def test_granularity_scales_with_values():
    # the same lattice in other units: values and scale times g
    for noise in DISCRETE:
        a = di.posterior([0, 3, 7], response=[-2.0, 5.0], scale=2.0, noise=noise)
        b = di.posterior([0, 0.3, 0.7], response=[-0.2, 0.5], scale=0.2, noise=noise, granularity=0.1)
        assert np.allclose(a, b, rtol=1e-14, atol=0)


def test_lattice_and_granularity_errors():
    with pytest.raises(ValueError, match=r"values must lie on the lattice.*got 0\.25"):
        di.posterior([0.0, 0.25], response=0.0, scale=1.0, noise="discrete_laplace", granularity=0.1)
    with pytest.raises(ValueError, match=r"response must lie on the lattice.*got 0\.5"):
        di.disclosure_risk([0.0, 1.0], response=0.5, scale=1.0, noise="discrete_gaussian")
    with pytest.raises(ValueError, match="granularity applies to integer noise"):
        di.log_evidence([0.0, 1.0], response=0.0, scale=1.0, noise="laplace", granularity=0.5)
    with pytest.raises(ValueError, match="granularity must be a finite number > 0"):
        di.log_posterior([0.0, 1.0], response=0.0, scale=1.0, noise="discrete_laplace", granularity=0.0)
    with pytest.raises(ValueError, match="noise must be one of"):
        di.posterior([0.0, 1.0], response=0.0, scale=1.0, noise="discrete")  # type: ignore[arg-type]
    # decimals within rounding of the lattice are on it
    p = di.posterior([0.0, 0.3], response=0.7, scale=0.2, noise="discrete_laplace", granularity=0.1)
    assert p.shape == (2,)


def _brute_lattice_worst(values, scale, noise, g, counts=None, prior=None, span=60):
    """The largest posterior over a wide window of lattice responses at 50 digits."""
    c = np.ones(len(values)) if counts is None else np.asarray(counts, float)
    p = np.ones(len(values)) if prior is None else np.asarray(prior, float)
    best = mpf(0)
    lo, hi = min(values) / g - span, max(values) / g + span
    with mp.workdps(50):
        for k in range(int(lo), int(hi) + 1):
            R = mpf(k) * mpf(g)
            terms = [mpf(ci) * mpf(pi) * ref.integer_pmf(round(float((R - mpf(f)) / mpf(g))), scale / g, noise)
                     for f, ci, pi in zip(values, c, p, strict=True)]
            total = mp.fsum(terms)
            best = max(best, max(t / mpf(ci) / total for t, ci in zip(terms, c, strict=True) if ci > 0))
    return best


def test_worst_case_discrete_laplace():
    # the check value: {0, 1}, b = 1
    assert di.worst_case_risk([0, 1], scale=1.0, noise="discrete_laplace") == pytest.approx(
        1 / (1 + math.exp(-1)), rel=1e-15)
    assert round(di.worst_case_risk([0, 1], scale=1.0, noise="discrete_laplace"), 6) == 0.731059
    rng = np.random.default_rng(3)
    for _ in range(6):
        g = float(rng.choice([1.0, 0.5, 2.0]))
        values = np.round(rng.normal(0, 4, 5)) * g
        counts = rng.integers(1, 3, 5).astype(float)
        prior = rng.uniform(0.5, 2.0, 5)
        scale = float(rng.choice([0.5, 1.0, 3.0])) * g
        got = di.worst_case_risk(values, scale=scale, counts=counts, prior=prior, noise="discrete_laplace",
                                 granularity=g)
        assert got == di.worst_case_risk(values, scale=scale, counts=counts, prior=prior)
        want = _brute_lattice_worst(values, scale, "discrete_laplace", g, counts, prior)
        assert got == pytest.approx(float(want), rel=1e-13)
    with pytest.raises(ValueError, match="values must lie on the lattice"):
        di.worst_case_risk([0, 1.5], scale=1.0, noise="discrete_laplace")


def test_worst_case_gaussian_energies():
    for noise in ("gaussian", "discrete_gaussian"):
        # distinct values: the posterior of the largest tends to 1
        rho, world = di.worst_case_risk([0, 1, 3], scale=[0.0, 0.7, 50.0, np.inf], noise=noise, return_world=True)
        assert rho.tolist() == [1.0, 1.0, 1.0, pytest.approx(1 / 3, rel=1e-15)]
        assert world[1] == 2 and world[2] == 2
        # the lattice responses come close to 1 far out (the brute force over a window)
        assert 1 - _brute_lattice_worst([0, 1], 1.0, "discrete_gaussian", 1.0, span=80) < 1e-30
        # one distinct value: the prior share, as for Laplace
        assert di.worst_case_risk([2, 2], scale=1.0, noise=noise, prior=[1, 3]) == pytest.approx(0.75)
        # a lone smallest value is enough
        assert di.worst_case_risk([0, 1, 1], scale=1.0, noise=noise) == 1.0
        with pytest.raises(ValueError, match="held by several worlds"):
            di.worst_case_risk([0, 0, 1, 2], counts=[1, 1, 1, 2], scale=1.0, noise=noise)
    with pytest.raises(ValueError, match="granularity applies to integer noise"):
        di.worst_case_risk([0, 1], scale=1.0, noise="gaussian", granularity=0.5)


def _brute_delta(values, rho, sigma, j, g, counts=None, prior=None):
    """delta_j = sum of P(Z = k) over the lattice points R = f_j + g k where
    the posterior of world j exceeds rho, at 50 digits (every k within 45
    sigma of f_j and 3 steps more)."""
    c = np.ones(len(values)) if counts is None else np.asarray(counts, float)
    p = np.ones(len(values)) if prior is None else np.asarray(prior, float)
    s = sigma / g
    K = int(45 * s) + 3
    with mp.workdps(50):
        norm = ref.integer_normaliser(s, "discrete_gaussian")
        ks = [round((f - values[j]) / g) for f in values]  # lattice offsets of the worlds from f_j
        total = mpf(0)
        for k in range(-K, K + 1):
            e = [mp.exp(-mpf(k - kk) ** 2 / (2 * mpf(s) ** 2)) for kk in ks]
            post = mpf(p[j]) * e[j] / mp.fsum(mpf(ci) * mpf(pi) * ei for ci, pi, ei in zip(c, p, e, strict=True))
            if post > mpf(rho):
                total += mp.exp(-mpf(k) ** 2 / (2 * mpf(s) ** 2)) / norm
        return total


def test_discrete_gaussian_delta_against_brute_force():
    rng = np.random.default_rng(1412)
    for _ in range(14):
        g = float(rng.choice([1.0, 0.5, 2.0]))
        m = int(rng.integers(2, 5))
        values = np.round(rng.normal(0, 3, m)) * g
        counts = rng.integers(1, 3, m).astype(float)
        prior = rng.uniform(0.5, 2.0, m)
        sigma = float(rng.choice([0.3, 0.8, 1.7, 4.0])) * g
        rho = float(rng.uniform(0.3, 0.95))
        kw = dict(rho=rho, sigma=sigma, counts=counts, prior=prior, noise="discrete_gaussian", granularity=g)
        want = [_brute_delta(values, rho, sigma, j, g, counts, prior) for j in range(m)]
        for j in range(m):
            got = di.gaussian_delta(values, world=j, **kw)
            assert got == pytest.approx(float(want[j]), rel=1e-12, abs=1e-300)
        assert di.gaussian_delta(values, **kw) == pytest.approx(float(max(want)), rel=1e-12, abs=1e-300)


def test_discrete_gaussian_check_values():
    # two worlds at distance 1, sigma = 1: the adversary's advantage at
    # rho = 1/2 is P(Z = 0) = 1 / N(1), against 2 Phi(1/2) - 1
    adv = 2 * di.gaussian_delta([0, 1], rho=0.5, sigma=1.0, world=0, noise="discrete_gaussian") - 1
    assert adv == pytest.approx(float(1 / ref.integer_normaliser(1.0, "discrete_gaussian")), rel=1e-14)
    assert round(adv, 6) == 0.398942
    assert round(2 * di.gaussian_delta([0, 1], rho=0.5, sigma=1.0, world=0) - 1, 6) == 0.382925

    # the DP profile (hockey-stick divergence) at eps = 1 through delta:
    # {P(w_0 | R) > e^eps / (1 + e^eps)} = {k <= -1}; its shift by one step
    # (under the neighbour's noise) is {k <= -2}, the set at eps = 2
    def rho(e):
        return math.exp(e) / (1 + math.exp(e))

    d1 = di.gaussian_delta([0, 1], rho=rho(1.0), sigma=1.0, world=0, noise="discrete_gaussian")
    d2 = di.gaussian_delta([0, 1], rho=rho(2.0), sigma=1.0, world=0, noise="discrete_gaussian")
    assert d1 - math.e * d2 == pytest.approx(0.1413513394, abs=1e-10)
    # the same sums from the interval masses directly
    assert d1 == pytest.approx(float(ref.integer_interval_mass(-np.inf, -1, 1.0, "discrete_gaussian")), rel=1e-14)
    assert d2 == pytest.approx(float(ref.integer_interval_mass(-np.inf, -2, 1.0, "discrete_gaussian")), rel=1e-14)


def test_discrete_gaussian_sigma_for():
    rng = np.random.default_rng(77)
    for _ in range(5):
        g = float(rng.choice([1.0, 0.5]))
        values = np.round(rng.normal(0, 3, 3)) * g
        rho = float(rng.uniform(0.5, 0.95))
        delta = float(rng.choice([0.01, 0.05, 0.2]))
        kw = dict(rho=rho, noise="discrete_gaussian", granularity=g)
        sig = di.gaussian_sigma_for(values, delta=delta, rtol=1e-12, **kw)
        assert 0 < sig < np.inf
        # the sigma passes the evaluator, and the exact lattice sums
        assert di.gaussian_delta(values, sigma=sig, **kw) <= delta
        assert max(_brute_delta(values, rho, sig, j, g) for j in range(3)) <= delta
        # and a little less noise does not (the search's bracket)
        assert di.gaussian_delta(values, sigma=sig * (1 - 1e-6), **kw) > delta
    with pytest.raises(ValueError, match="values must lie on the lattice"):
        di.gaussian_sigma_for([0, 0.3], rho=0.9, delta=0.1, noise="discrete_gaussian")
    with pytest.raises(ValueError, match="'gaussian' or 'discrete_gaussian'"):
        di.gaussian_delta([0, 1], rho=0.9, sigma=1.0, noise="discrete_laplace")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="granularity applies to integer noise"):
        di.gaussian_delta([0, 1], rho=0.9, sigma=1.0, granularity=2.0)


@pytest.mark.parametrize("noise", DISCRETE)
def test_posterior_extremes(noise):
    # values 1e300 apart (integers, on the lattice), scales from 1e-300 to 1e300
    R = np.array([0.0, 1e300, -1e300])
    for scale in (1e-300, 1.0, 1e300):
        p = di.posterior([0, 1e300], response=R, scale=scale, noise=noise)
        assert np.array_equal(p, di.posterior([0, 1e300], response=R, scale=scale, noise=CONTINUOUS[noise]))
    assert di.posterior([0, 1e300], response=R, scale=1.0, noise=noise).tolist() == [[1, 0], [0, 1], [1, 0]]
    # at a scale of 1e300 the energies are 1 (Laplace) or 1/2 (Gaussian) apart
    e = 1.0 if noise == "discrete_laplace" else 0.5
    got = di.disclosure_risk([0, 1e300], response=0.0, scale=1e300, noise=noise)
    assert got == pytest.approx(1 / (1 + math.exp(-e)), rel=1e-15)
    # a subnormal granularity: its lattice holds the subnormals
    g = 5e-324
    got = di.disclosure_risk([0.0, 3 * g], response=g, scale=2 * g, noise=noise, granularity=g)
    want = di.disclosure_risk([0.0, 3.0], response=1.0, scale=2.0, noise=noise)
    assert got == pytest.approx(want, rel=1e-15)
