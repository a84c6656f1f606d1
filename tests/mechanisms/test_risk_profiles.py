"""Kazan and Reiter's risk profiles: the largest epsilon within an agency's ratio bound."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import diffident as di
from diffident._mechanisms.risk_profiles import _epsilon_at

DENSE = np.concatenate([np.geomspace(1e-12, 1e-3, 4000), np.linspace(1e-3, 1.0, 40000)])


def test_their_first_example():
    # r*(p) = max(0.25 / p, 3), q = 1: ln((r - a) / (1 - a)) = ln(2.75 / 0.75)
    assert di.profile_epsilon(di.RatioProfile(0.25, 3)) == pytest.approx(math.log(2.75 / 0.75), rel=1e-15)
    assert round(di.profile_epsilon(di.RatioProfile(0.25, 3)), 5) == 1.29928


@settings(max_examples=25, deadline=None)
@given(st.floats(1e-3, 0.9), st.floats(1.01, 30.0))
def test_at_q_1_the_epsilon_keeps_every_posterior_ratio_within_the_bound(a, r):
    prof = di.RatioProfile(a, r)
    eps = di.profile_epsilon(prof)
    priors = np.append(DENSE[:-1], a / r)  # (the kink, where it binds)
    # the Bayesian bound of eps-DP: posterior e^eps p / (1 - p + e^eps p)
    ratio = di.dp.posterior_bound(eps, prior=priors) / priors
    assert np.all(ratio <= prof(priors) * (1 + 1e-12))
    # and it is the largest: a little more breaks the bound somewhere
    worse = di.dp.posterior_bound(eps * (1 + 1e-9), prior=priors) / priors
    assert np.any(worse > prof(priors))


@settings(max_examples=25, deadline=None)
@given(st.floats(1e-3, 0.9), st.floats(1.01, 30.0), st.floats(0.01, 1.0))
def test_any_q_is_the_minimum_over_priors(a, r, q):
    prof = di.RatioProfile(a, r)
    priors = np.append(DENSE, min(a / r, 1.0))  # (with the kink)
    brute = _epsilon_at(priors, 1.0 / prof(priors), q).min()
    got = di.profile_epsilon(prof, q=q)
    assert got <= brute * (1 + 1e-12) + 1e-300
    assert got == pytest.approx(brute, rel=1e-6)


def test_the_general_formula_tends_to_the_q_1_one():
    p, inv_r = np.array([0.01, 0.2, 0.6]), 1 / np.array([5.0, 2.0, 1.5])
    np.testing.assert_allclose(_epsilon_at(p, inv_r, 1 - 1e-9), _epsilon_at(p, inv_r, 1.0), rtol=1e-6)


def test_callables_with_one_or_two_arguments():
    one = di.profile_epsilon(lambda p: np.maximum(0.25 / p, 3.0))
    assert one == pytest.approx(math.log(2.75 / 0.75), rel=1e-9)
    two = di.profile_epsilon(lambda p, q: np.maximum(0.25 / p, 3.0 + 0 * q), q=[0.5, 1.0])
    np.testing.assert_allclose(two, di.profile_epsilon(di.RatioProfile(0.25, 3), q=[0.5, 1.0]), rtol=1e-9)
    assert np.isnan(di.profile_epsilon(lambda p: 0.5 + 0 * p))  # a bound below 1: not even epsilon 0
    assert di.profile_epsilon(lambda p: np.full(np.shape(p), np.inf)) == np.inf  # never binds


@pytest.mark.parametrize(("call", "err", "match"), [
    (lambda: di.RatioProfile(0.0, 3), ValueError, "a"),
    (lambda: di.RatioProfile(0.2, 0.5), ValueError, "r"),
    (lambda: di.RatioProfile(0.2, "3"), TypeError, "r"),
    (lambda: di.profile_epsilon(di.RatioProfile(0.2, 3), q=0.0), ValueError, "q"),
    (lambda: di.profile_epsilon(di.RatioProfile(0.2, 3), q=np.nan), ValueError, "q"),
    (lambda: di.profile_epsilon(3.0), TypeError, "profile"),
    (lambda: di.profile_epsilon(lambda p: np.full(np.shape(p), np.nan)), ValueError, "NaN"),
    (lambda: di.RatioProfile(0.2, 3)(0.0), ValueError, "p"),
])
def test_bad_arguments(call, err, match):
    with pytest.raises(err, match=match):
        call()


def test_values():
    a = di.RatioProfile(0.25, 3)
    assert a == di.RatioProfile(0.25, 3.0) and hash(a) == hash(di.RatioProfile(0.25, 3.0))
    assert repr(a) == "RatioProfile(a=0.25, r=3.0)"
    with pytest.raises(AttributeError):
        a.r = 4


def test_ratio_profile_is_vectorised_and_exact_over_q():
    # one call over many q equals the dense-grid minimum at each q, never above it
    prof = di.RatioProfile(0.05, 2.0)
    q = np.linspace(0.01, 1.0, 200)
    got = di.profile_epsilon(prof, q=q)
    priors = np.append(DENSE, [0.025, 1.0])  # (the kink and p = 1)
    brute = _epsilon_at(priors[:, None], 1.0 / prof(priors)[:, None], q).min(axis=0)
    assert np.all(got <= brute * (1 + 1e-12))
    np.testing.assert_allclose(got, brute, rtol=1e-12)
    # where q < 1 / r the bound at p = 1 binds: ln((1 - q) / (1 / r - q)) / 2
    low = di.profile_epsilon(di.RatioProfile(0.9, 5.0), q=0.1)
    assert low == pytest.approx(0.5 * math.log(0.9 / 0.1), rel=1e-12)


def test_ratio_profile_minimum_on_random_profiles():
    # the kink and p = 1 are the only candidates: a dense grid of priors (with
    # both added) never finds a smaller epsilon, on random (a, r, q)
    rng = np.random.default_rng(20261124)
    for _ in range(100):
        a, r = rng.uniform(0.01, 2.0), rng.uniform(1.01, 20.0)
        q = rng.uniform(0.0, 1.0, 5)
        prof = di.RatioProfile(a, r)
        got = di.profile_epsilon(prof, q=q)
        priors = np.append(DENSE, [min(a / r, 1.0), 1.0])
        with np.errstate(divide="ignore", invalid="ignore"):
            brute = _epsilon_at(priors[:, None], 1.0 / prof(priors)[:, None], q)
        brute = np.where(np.isnan(brute), np.inf, brute).min(axis=0)
        np.testing.assert_allclose(got, brute, rtol=1e-12)
