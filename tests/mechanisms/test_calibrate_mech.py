"""calibrate: the least noise whose attack measure meets a target.

Every returned parameter is checked with the mechanism's own public method
(conservative) and against 1e-9 less noise (tight, for the closed forms);
the edges return their documented values.
"""

import os
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import diffident as di

SEED = int(os.environ.get("DIFFIDENT_TEST_SEED", "0"))  # (other seeds: a soak run)

FAST = [
    (di.Laplace, "advantage", {}),
    (di.Laplace, "tpr_at_fpr", {"fpr": 0.01}),
    (di.Laplace, "tpr_at_fpr", {"fpr": 0.7}),
    (di.Laplace, "success", {"m": 10}),
    (di.Laplace, "posterior", {"prior": 0.1}),
    (di.Laplace, "identification", {"m": 100}),
    (di.Laplace, "delta", {"epsilon": 0.5}),
    (di.Laplace, "advantage", {"sensitivity": 3.0}),
    (di.Gaussian, "advantage", {}),
    (di.Gaussian, "tpr_at_fpr", {"fpr": 0.001}),
    (di.Gaussian, "success", {"m": 5, "sensitivity": 2.0}),
    (di.Gaussian, "delta", {"epsilon": 0.7, "sensitivity": 2.0}),
    (di.DiscreteLaplace, "posterior", {"prior": 0.3}),
    (di.DiscreteLaplace, "identification", {"m": 7, "sensitivity": 2}),
]


def measured(family, x, measure, fixed):
    arg_name = {"tpr_at_fpr": "fpr", "posterior": "prior", "identification": "m", "success": "m",
                "delta": "epsilon", "epsilon": "delta"}.get(measure)
    ctor = {k: v for k, v in fixed.items() if k != arg_name}
    m = family(x, **ctor)
    arg = fixed.get(arg_name)
    return {"advantage": lambda: m.advantage(), "tpr_at_fpr": lambda: m.tpr_at_fpr(arg),
            "posterior": lambda: m.posterior(arg), "identification": lambda: m.identification_bound(arg),
            "success": lambda: m.success_bound(arg), "delta": lambda: m.delta(arg),
            "epsilon": lambda: m.epsilon(arg)}[measure]()


@pytest.mark.parametrize(("family", "measure", "fixed"), FAST, ids=lambda v: getattr(v, "__name__", str(v)))
def test_closed_forms_are_conservative_and_tight(family, measure, fixed):
    rng = np.random.default_rng([zlib.crc32(f"{family.__name__} {measure} {sorted(fixed.items())}".encode()), SEED])
    t = np.concatenate([rng.uniform(0.0, 1.0, 400), 10.0 ** rng.uniform(-12, -1, 100)])
    x = di.calibrate(family, t, measure=measure, **fixed)
    assert x.shape == t.shape
    for xi, ti in zip(x, t, strict=True):
        if not np.isfinite(xi) or xi == 0.0:
            continue
        assert measured(family, xi, measure, fixed) <= ti  # the user's own evaluator
        assert measured(family, xi * (1 - 1e-9), measure, fixed) > ti  # less noise fails


@pytest.mark.parametrize(("family", "measure", "fixed"), FAST, ids=lambda v: getattr(v, "__name__", str(v)))
def test_unattainable_and_free_targets(family, measure, fixed):
    x = di.calibrate(family, [1.0, 2.0], measure=measure, **fixed)
    np.testing.assert_array_equal(x, [0.0, 0.0])  # met without noise
    floor = {"advantage": 0.0, "tpr_at_fpr": fixed.get("fpr"), "posterior": fixed.get("prior"),
             "identification": 1.0 / fixed.get("m", 1), "success": 1.0 / fixed.get("m", 1), "delta": None}[measure]
    if floor is not None:  # at or below the value at infinite noise: no noise is enough
        assert di.calibrate(family, floor * 0.999, measure=measure, **fixed) == np.inf


def test_round_trips():
    assert di.calibrate(di.Laplace, di.Laplace(2.0).advantage(), measure="advantage") == pytest.approx(2.0, rel=1e-14)
    g = di.Gaussian(0.8)
    got = di.calibrate(di.Gaussian, g.tpr_at_fpr(0.05), measure="tpr_at_fpr", fpr=0.05)
    assert got == pytest.approx(0.8, rel=1e-12)
    assert di.calibrate("discrete_laplace", di.DiscreteLaplace(3.0).posterior(0.5), measure="posterior",
                        prior=0.5) == pytest.approx(3.0, rel=1e-14)


def test_gaussian_epsilon_is_the_analytic_gaussian_sigma():
    """The epsilon of a delta: `analytic_gaussian_sigma` moved to pass the
    method `Gaussian.epsilon` (within its margins, 1e-12 of delta), whose
    values the batched check reproduces bit for bit."""
    from diffident._mechanisms.calibrate import _gaussian_measure

    rng = np.random.default_rng([27, SEED])
    t = np.concatenate([10.0 ** rng.uniform(-3, 1.5, 60), [0.0]])
    for delta in (1e-12, 1e-5, 0.2):
        x = di.calibrate(di.Gaussian, t, measure="epsilon", delta=delta, sensitivity=3.0)
        np.testing.assert_allclose(x, di.analytic_gaussian_sigma(t, delta=delta, sensitivity=3.0), rtol=1e-9)
        got = np.array([di.Gaussian(xi, sensitivity=3.0).epsilon(delta) for xi in x])
        assert np.all(got <= t)
        np.testing.assert_array_equal(_gaussian_measure("epsilon", delta, 3.0)(x), got)
    np.testing.assert_array_equal(di.calibrate(di.Gaussian, [1.0, np.inf], measure="epsilon", delta=0.0),
                                  [np.inf, 0.0])
    np.testing.assert_array_equal(di.calibrate(di.Gaussian, [0.0, 1.0], measure="epsilon", delta=1.0), [0.0, 0.0])
    assert di.calibrate(di.Gaussian, 0.0, measure="delta", epsilon=1.0) == np.inf  # delta > 0 at every sigma


def test_the_search_reaches_the_ends_of_the_noise_range():
    """Targets below the measure at 1e300 give inf, above it at 1e-300 give
    0, without evaluating a mechanism that cannot exist."""
    assert di.calibrate(di.DiscreteGaussian, 0.0, measure="advantage") == np.inf
    assert di.calibrate(di.DiscreteGaussian, np.inf, measure="epsilon", delta=1e-6) == 0.0
    assert di.calibrate(di.Gaussian, np.inf, measure="epsilon", delta=1e-6, sensitivity=1e12) == 0.0


def test_gaussian_posteriors_are_unattainable():
    assert di.calibrate(di.Gaussian, 0.9, measure="posterior", prior=0.1) == np.inf


@settings(max_examples=20, deadline=None)
@given(st.floats(0.01, 0.9), st.sampled_from(["advantage", "tpr_at_fpr", "delta"]))
def test_the_search_path_is_conservative(t, measure):
    fixed = {"advantage": {}, "tpr_at_fpr": {"fpr": 0.01}, "delta": {"epsilon": 0.3}}[measure]
    if measure == "tpr_at_fpr" and t <= 0.01:
        return
    x = di.calibrate(di.DiscreteGaussian, t, measure=measure, **fixed)
    if np.isinf(x):  # a target within rounding of the infinite-noise floor: no float sigma meets it
        assert measure == "tpr_at_fpr" and t <= 0.01 * (1 + 1e-9)
        return
    assert measured(di.DiscreteGaussian, x, measure, fixed) <= t
    assert measured(di.DiscreteGaussian, x * (1 - 1e-8), measure, fixed) > t


def test_randomized_response_gives_the_largest_p():
    p = di.calibrate("randomized_response", [0.3, 0.6], measure="posterior", prior=0.2, d=4)
    for pi, t in zip(p, [0.3, 0.6], strict=True):
        assert di.RandomizedResponse(pi, d=4).posterior(0.2) <= t
        assert di.RandomizedResponse(pi * (1 + 1e-8), d=4).posterior(0.2) > t
    assert np.isnan(di.calibrate("randomized_response", 0.1, measure="posterior", prior=0.2, d=4))
    assert di.calibrate("randomized_response", 1.0, measure="advantage") == 1.0


def test_the_epsilon_of_a_delta_and_dp_sgd():
    b = di.calibrate(di.Laplace, [0.5, 2.0], measure="epsilon", delta=0.0)
    np.testing.assert_allclose(b, [2.0, 0.5], rtol=1e-9)
    pytest.importorskip("dp_accounting")
    s = di.calibrate(di.SubsampledGaussian, 0.1, measure="advantage", sampling_rate=0.01, steps=100, rtol=1e-4)
    assert di.SubsampledGaussian(s, sampling_rate=0.01, steps=100).advantage() <= 0.1
    assert di.SubsampledGaussian(s * (1 - 2e-4), sampling_rate=0.01, steps=100).advantage() > 0.1


@pytest.mark.parametrize(("call", "err", "match"), [
    (lambda: di.calibrate("uniform", 0.1, measure="advantage"), ValueError, "family"),
    (lambda: di.calibrate(float, 0.1, measure="advantage"), TypeError, "family"),
    (lambda: di.calibrate(di.Mechanism, 0.1, measure="advantage"), TypeError, "family"),
    (lambda: di.calibrate(di.Laplace, 0.1, measure="risk"), ValueError, "measure"),
    (lambda: di.calibrate(di.Laplace, 0.1, measure="tpr_at_fpr"), TypeError, "fpr"),
    (lambda: di.calibrate(di.Laplace, 0.1, measure="tpr_at_fpr", fpr=1.5), ValueError, "fpr"),
    (lambda: di.calibrate(di.Laplace, -0.1, measure="advantage"), ValueError, "target"),
    (lambda: di.calibrate(di.Laplace, np.nan, measure="advantage"), ValueError, "target"),
    (lambda: di.calibrate(di.Laplace, 0.1, measure="advantage", d=3), TypeError, "d"),
    (lambda: di.calibrate(di.Laplace, 0.1, measure="advantage", rtol=0.0), ValueError, "rtol"),
    (lambda: di.calibrate(di.Laplace, 0.1, measure="identification", m=0.5), ValueError, "m"),
])
def test_bad_arguments(call, err, match):
    with pytest.raises(err, match=match):
        call()
