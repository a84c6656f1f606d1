"""DiscreteLaplace and DiscreteGaussian as mechanism values: published
check values, brute-force lattice sums, the inverse, the curve and the
posterior, value semantics and bad input."""

import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import diffident as di


def _masses(noise, s, k):
    """Unnormalised masses of the integer noise at the integers k."""
    return np.exp(-np.abs(k) / s) if noise == "laplace" else np.exp(-0.5 * (k / s) ** 2)


def _brute(noise, s, d):
    """p_A, p_B on a wide window of the lattice (B shifted by d)."""
    k = np.arange(-4000, 4001, dtype=float)
    a = _masses(noise, s, k)
    b = _masses(noise, s, k - d)
    return a / a.sum(), b / b.sum()


def _mech(noise, s, d):
    return di.DiscreteLaplace(s, sensitivity=d) if noise == "laplace" else di.DiscreteGaussian(s, sensitivity=d)


def test_check_values():
    assert di.DiscreteLaplace(1.0).advantage() == pytest.approx(math.tanh(0.5), rel=1e-15)
    g = di.DiscreteGaussian(1.0)
    assert g.advantage() == pytest.approx(0.398942, abs=5e-7)
    assert round(g.delta(1.0), 10) == 0.1413513394
    assert round(di.Gaussian(1.0).delta(1.0), 10) == 0.1269367375  # the continuous one differs


@pytest.mark.parametrize("noise, s, d", [("laplace", 0.7, 1), ("laplace", 3.0, 2), ("gaussian", 1.0, 1),
                                         ("gaussian", 2.5, 3), ("gaussian", 0.4, 1)])
def test_profile_and_curve_against_lattice_sums(noise, s, d):
    m = _mech(noise, s, d)
    pa, pb = _brute(noise, s, d)
    eps = np.array([0.0, 0.1, 0.5, 1.0, 2.0])
    want = [max(np.maximum(pa - np.exp(e) * pb, 0).sum(), np.maximum(pb - np.exp(e) * pa, 0).sum()) for e in eps]
    np.testing.assert_allclose(m.delta(eps), want, rtol=1e-9, atol=1e-15)
    assert m.advantage() == pytest.approx(0.5 * np.abs(pa - pb).sum(), rel=1e-9)
    # Neyman-Pearson: the curve at each deterministic threshold test "k >= c"
    k = np.arange(-4000, 4001)
    for c in range(-3, 5):
        alpha = pa[k >= c].sum()  # type I error under A
        beta = pb[k < c].sum()  # type II error under B
        if 1e-12 < alpha < 1 - 1e-12:
            assert m.tradeoff(alpha) == pytest.approx(min(beta, 1 - alpha), rel=1e-9, abs=1e-15)


@settings(max_examples=40, deadline=None)
@given(noise=st.sampled_from(["laplace", "gaussian"]), s=st.floats(0.2, 30.0), d=st.integers(1, 4),
       delta=st.floats(1e-12, 0.9))
def test_epsilon_is_conservative(noise, s, d, delta):
    m = _mech(noise, s, d)
    e = m.epsilon(delta)
    assert m.delta(e) <= delta
    if 0 < e < np.inf:
        assert m.delta(e * (1 - 1e-6)) > delta * (1 - 1e-9)  # and not far above the true one


def test_curve_shape_and_symmetry():
    for m in (di.DiscreteLaplace(1.3, sensitivity=2), di.DiscreteGaussian(0.8)):
        a = np.linspace(0.0, 1.0, 2001)
        b = m.tradeoff(a)
        assert b[0] == 1.0 and b[-1] == 0.0
        assert np.all(np.diff(b) <= 1e-15) and np.all(b <= 1 - a + 1e-15)
        assert np.all(np.diff(b, 2) >= -1e-12)  # convex
        np.testing.assert_allclose(m.tradeoff(b), a, atol=1e-9)  # symmetric: f(f(alpha)) = alpha
        np.testing.assert_allclose(m.tpr_at_fpr(a), 1 - b)


def test_posterior_identification_and_success_bounds():
    m = di.DiscreteLaplace(2.0)
    pa, pb = _brute("laplace", 2.0, 1)
    for prior in (0.01, 0.3, 0.5):
        live = (pa > 1e-290) & (pb > 1e-290)  # (normal numbers: their ratio is exact to an ulp)
        brute = np.max(prior * pa[live] / (prior * pa[live] + (1 - prior) * pb[live]))
        assert m.posterior(prior) == pytest.approx(brute, rel=1e-12)
    assert m.identification_bound(10) == pytest.approx(1 / (1 + 9 * math.exp(-0.5)), rel=1e-15)
    assert m.success_bound(10) == pytest.approx(1 - m.tradeoff(0.1), rel=1e-15)
    g = di.DiscreteGaussian(1.0)
    assert g.pure_epsilon == math.inf and g.posterior(0.2) == 1.0 and g.epsilon(0.0) == math.inf


def test_parameterisations_and_the_continuous_limit():
    # OpenDP's discrete Laplace scale and the Census's p map to the same epsilon
    assert di.DiscreteLaplace(4.0, sensitivity=2).pure_epsilon == di.dp.discrete_laplace_epsilon(4.0, sensitivity=2)
    sigma = di.dp.discrete_gaussian_sigma(0.5)  # a zCDP share of 0.5: sigma = 1
    assert di.DiscreteGaussian(sigma).delta(1.0) == pytest.approx(0.1413513394, abs=1e-10)
    # wide noise: the lattice no longer matters
    assert di.DiscreteGaussian(50.0).delta(0.05) == pytest.approx(di.Gaussian(50.0).delta(0.05), rel=1e-3)
    assert di.DiscreteGaussian(50.0).tradeoff(0.1) == pytest.approx(di.Gaussian(50.0).tradeoff(0.1), rel=1e-6)


def test_values_are_immutable_and_compare_by_value():
    m = di.DiscreteLaplace(2.0, sensitivity=3)
    assert repr(m) == "DiscreteLaplace(scale=2.0, sensitivity=3.0)"
    assert m == di.DiscreteLaplace(2, sensitivity=3.0) and hash(m) == hash(di.DiscreteLaplace(2.0, sensitivity=3))
    assert m != di.Laplace(2.0, sensitivity=3)
    assert pickle.loads(pickle.dumps(m)) == m
    with pytest.raises(AttributeError, match="immutable"):
        m.scale = 3.0  # type: ignore[misc]
    g = di.DiscreteGaussian(1.5)
    assert repr(g) == "DiscreteGaussian(sigma=1.5, sensitivity=1.0)" and g.sigma == 1.5


@pytest.mark.parametrize("call, exc, match", [
    (lambda: di.DiscreteLaplace(0.0), ValueError, "scale"),
    (lambda: di.DiscreteLaplace(float("nan")), ValueError, "scale"),
    (lambda: di.DiscreteGaussian(-1.0), ValueError, "sigma"),
    (lambda: di.DiscreteLaplace(1.0, sensitivity=1.5), ValueError, "whole number"),
    (lambda: di.DiscreteGaussian(1.0, sensitivity=0), ValueError, "whole number"),
    (lambda: di.DiscreteGaussian(1.0, sensitivity=True), TypeError, "sensitivity"),
    (lambda: di.DiscreteLaplace(1.0, sensitivity="2"), TypeError, "sensitivity"),
    (lambda: di.DiscreteLaplace(1e-320, sensitivity=2), ValueError, "finite"),
    (lambda: di.DiscreteLaplace(1.0).delta(-1.0), ValueError, "epsilon"),
    (lambda: di.DiscreteGaussian(1.0).tradeoff(1.5), ValueError, "alpha"),
])
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


@pytest.mark.parametrize("sigma", [1e14, 1e15, 1e20, 1e300])
def test_huge_sigmas_end_their_threshold_search(sigma):
    # beyond 2^53 lattice steps the bisection ends at adjacent floats (it used to loop forever)
    m = di.DiscreteGaussian(sigma)
    tpr = m.tpr_at_fpr(np.array([0.001, 0.01, 0.5]))
    np.testing.assert_allclose(tpr, [0.001, 0.01, 0.5], rtol=1e-6)
    assert np.all(tpr >= [0.001, 0.01, 0.5])
