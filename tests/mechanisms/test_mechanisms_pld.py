"""Composition and DP-SGD: measures from dp-accounting's privacy-loss distributions.

Checked against dp-accounting itself, against riskcal (an independent
trade-off computation from the same PLD; a test oracle only), against the
closed forms (a composition of Gaussians; one mechanism through the PLD),
and against an exact binomial formula for the k-fold discrete Laplace.
"""

import math
import pickle
import sys

import numpy as np
import pytest

import diffident as di

pytest.importorskip("dp_accounting")
from dp_accounting.pld import privacy_loss_distribution as pld_lib  # noqa: E402
from dp_accounting.privacy_accountant import NeighboringRelation  # noqa: E402

ALPHAS = np.array([0.0, 1e-5, 1e-4, 1e-3, 0.01, 0.05, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 1.0])
EPS = np.array([0.0, 0.1, 0.5, 1.0, 2.0, 4.0])


def dpsgd_pld(sigma, q, steps, relation=NeighboringRelation.ADD_OR_REMOVE_ONE):
    one = pld_lib.from_gaussian_mechanism(sigma, sampling_prob=q, neighboring_relation=relation)
    return one.self_compose(steps)


@pytest.fixture(scope="module", params=[1000, 10000])
def dpsgd(request):
    steps = request.param
    return di.SubsampledGaussian(1.0, sampling_rate=0.01, steps=steps), dpsgd_pld(1.0, 0.01, steps)


def test_dpsgd_profile_is_dp_accountings(dpsgd):
    m, pld = dpsgd
    # dp-accounting's own sum cancels as delta falls (2% low at 1e-12): compare above 1e-7
    want = pld.get_delta_for_epsilon(EPS)
    np.testing.assert_allclose(m.delta(EPS)[want > 1e-7], want[want > 1e-7], rtol=1e-6)
    for d in (1e-3, 1e-5):
        e = m.epsilon(d)
        assert m.delta(e) <= d  # conservative
        assert e == pytest.approx(pld.get_epsilon_for_delta(d), rel=1e-6)


def test_the_profile_is_exact_where_deltas_are_tiny():
    mpmath = pytest.importorskip("mpmath")
    m = di.SubsampledGaussian(1.0, sampling_rate=0.01, steps=300)
    pmf = m._pld._pmf_remove.to_dense_pmf()
    p = np.clip(pmf._probs, 0.0, None)
    loss = (pmf._lower_loss + np.arange(p.size)) * pmf._discretization
    for eps in (1.0, 2.5, 3.3, 4.2):  # deltas from 1e-4 down to about 1e-14
        above = loss > eps
        with mpmath.workdps(40):
            exact = mpmath.fsum(mpmath.mpf(float(q)) * -mpmath.expm1(mpmath.mpf(eps) - mpmath.mpf(float(v)))
                                for q, v in zip(p[above], loss[above], strict=True))
        want = float(exact) + pmf._infinity_mass
        assert float(m.delta(eps)) == pytest.approx(want, rel=1e-11)
    d = 1e-12
    assert m.delta(m.epsilon(d)) <= d


def test_dpsgd_curve_and_advantage_against_riskcal(dpsgd):
    # riskcal reads the curve from the PLD's two distributions by Neyman and
    # Pearson; diffident takes the envelope of the (eps, delta(eps)) lines of
    # the pessimistic profile, provably below the true curve.  They agree to
    # 1e-4 at 1000 steps; at 10,000 ours lies up to 1.8e-3 lower (more risk)
    # at FPRs of 1e-5 to 1e-3, never higher.
    conv = pytest.importorskip("riskcal.analysis.conversions")
    m, pld = dpsgd
    want = conv.get_beta_from_pld(pld, alpha=ALPHAS)
    got = m.tradeoff(ALPHAS)
    assert np.all(got <= want + 1e-12)
    np.testing.assert_allclose(got, want, atol=1e-4 if m._steps <= 1000 else 2e-3)
    assert m.advantage() == pytest.approx(conv.get_advantage_from_pld(pld), abs=1e-6)
    np.testing.assert_allclose(m.tpr_at_fpr(ALPHAS), 1 - got)


def test_the_curve_is_a_tradeoff_function_below_every_profile_line():
    m = di.SubsampledGaussian(0.8, sampling_rate=0.02, steps=500)
    a = np.linspace(0.0, 1.0, 2001)
    f = m.tradeoff(a)
    assert f[0] <= 1.0 and f[-1] == 0.0
    assert np.all(np.diff(f) <= 1e-15)  # non-increasing
    assert np.all(np.diff(f, 2) >= -1e-12)  # convex
    assert np.all(f <= 1.0 - a + 1e-15)
    for e in (0.0, 0.5, 1.0, 2.0):  # (eps, delta(eps))-DP holds on the curve: it is the envelope
        d = float(m.delta(e))
        assert np.all(f >= np.maximum(1 - d - np.exp(e) * a, np.exp(-e) * (1 - d - a)) - 1e-12)


def test_replace_one_is_dp_accountings():
    m = di.SubsampledGaussian(1.5, sampling_rate=0.02, steps=200, neighbours="replace_one")
    pld = dpsgd_pld(1.5, 0.02, 200, NeighboringRelation.REPLACE_ONE)
    want = pld.get_delta_for_epsilon(EPS)
    np.testing.assert_allclose(m.delta(EPS)[want > 1e-7], want[want > 1e-7], rtol=1e-9)
    # replacing a record is a removal and an addition: more loss
    assert m.delta(1.0) > di.SubsampledGaussian(1.5, sampling_rate=0.02, steps=200).delta(1.0)


def test_gaussians_compose_exactly():
    m = di.compose(di.Gaussian(1.0), di.Gaussian(2.0, sensitivity=3.0), di.Gaussian(1.0))
    mu = math.sqrt(1.0 + 1.5**2 + 1.0)
    g = di.Gaussian(1.0 / mu)
    np.testing.assert_array_equal(m.delta(EPS), g.delta(EPS))
    np.testing.assert_array_equal(m.tradeoff(ALPHAS), g.tradeoff(ALPHAS))
    assert m.advantage() == g.advantage()


@pytest.mark.parametrize("mech", [
    di.Laplace(1.3, sensitivity=2.0),
    di.DiscreteLaplace(2.0),
    di.DiscreteGaussian(1.5, sensitivity=2),
    di.RandomizedResponse(0.8, d=3),
    di.ApproxDP(1.0, delta=1e-3),
    di.PureDP(0.7),
], ids=repr)
def test_one_mechanism_through_the_pld_is_conservative_and_close(mech):
    m = di.compose(mech)
    exact_d, pld_d = mech.delta(EPS), m.delta(EPS)
    assert np.all(pld_d >= exact_d - 1e-12)  # pessimistic
    np.testing.assert_allclose(pld_d, exact_d, atol=2e-4)
    exact_f, pld_f = mech.tradeoff(ALPHAS), m.tradeoff(ALPHAS)
    assert np.all(pld_f <= exact_f + 1e-12)
    np.testing.assert_allclose(pld_f, exact_f, atol=2e-4)
    assert m.pure_epsilon == mech.pure_epsilon


def binomial_delta(eps, scale, k):
    """The exact profile of k discrete Laplace releases (Delta = 1): each
    privacy loss is +-1/scale, +1/scale with probability 1 / (1 + q) under
    A (q = e^(-1/scale)), so the total is binomial."""
    q = math.exp(-1.0 / scale)
    p = 1.0 / (1.0 + q)
    total = 0.0
    for j in range(k + 1):
        loss = (2 * j - k) / scale
        if loss > eps:
            total += math.comb(k, j) * p**j * (1 - p) ** (k - j) * -math.expm1(eps - loss)
    return total


@pytest.mark.parametrize("k", [2, 5, 20])
def test_k_fold_discrete_laplace_against_the_binomial_profile(k):
    m = di.DiscreteLaplace(3.0).compose(k)
    for e in (0.0, 0.2, 1.0, 2.5):
        exact = binomial_delta(e, 3.0, k)
        got = float(m.delta(e))
        assert got >= exact - 1e-12
        assert got == pytest.approx(exact, abs=1e-3)
    assert m.pure_epsilon == pytest.approx(k / 3.0)


def test_pure_compositions_end_at_their_epsilon():
    m = di.Laplace(1.0).compose(3)
    assert m.delta(3.0) == 0.0 and m.epsilon(0.0) == 3.0
    assert m.posterior(0.5) == pytest.approx(di.PureDP(3.0).posterior(0.5))
    assert m.identification_bound(10) == pytest.approx(di.PureDP(3.0).identification_bound(10))


def test_an_approx_dp_part_keeps_its_floor():
    m = di.compose(di.PureDP(1.0), di.ApproxDP(1.0, delta=1e-3))
    assert m.delta(np.inf) == pytest.approx(1e-3, rel=1e-6)
    assert m.epsilon(5e-4) == np.inf  # below the floor: no epsilon
    e = m.epsilon(0.01)
    assert m.delta(e) <= 0.01 and 0 < e < 2.0


def test_values_flatten_merge_and_pickle():
    lap = di.Laplace(1.0)
    a = di.compose(lap, lap, di.Gaussian(1.0))
    assert a.parts == ((lap, 2), (di.Gaussian(1.0), 1))
    assert repr(a) == "Composition(Laplace(scale=1.0, sensitivity=1.0) * 2, Gaussian(sigma=1.0, sensitivity=1.0))"
    b = di.compose(lap.compose(2), di.Gaussian(1.0))
    assert a == b and hash(a) == hash(b)
    assert pickle.loads(pickle.dumps(a)) == a
    assert lap.compose(1) is lap
    s = di.SubsampledGaussian(1.0, sampling_rate=0.01, steps=10)
    assert pickle.loads(pickle.dumps(s)) == s and s != di.SubsampledGaussian(1.0, sampling_rate=0.01, steps=11)
    with pytest.raises(AttributeError):
        a.parts = ()


@pytest.mark.parametrize(("call", "match"), [
    (lambda: di.compose(), "at least one"),
    (lambda: di.Laplace(1.0).compose(0), "k"),
    (lambda: di.Laplace(1.0).compose(2.5), "k"),
    (lambda: di.compose(di.Laplace(1.0), discretization=0.0), "discretization"),
    (lambda: di.compose(di.Laplace(1.0), discretization=2.0), "discretization"),
    (lambda: di.SubsampledGaussian(0.0, sampling_rate=0.1, steps=10), "sigma"),
    (lambda: di.SubsampledGaussian(1.0, sampling_rate=0.0, steps=10), "sampling_rate"),
    (lambda: di.SubsampledGaussian(1.0, sampling_rate=1.5, steps=10), "sampling_rate"),
    (lambda: di.SubsampledGaussian(1.0, sampling_rate=0.1, steps=0), "steps"),
    (lambda: di.SubsampledGaussian(1.0, sampling_rate=0.1, steps=10, neighbours="swap"), "neighbours"),
    (lambda: di.compose(di.RandomizedResponse(0.2, d=3)).delta(1.0), "below 1/d"),
])
def test_bad_arguments_name_themselves(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_non_mechanisms_are_type_errors():
    with pytest.raises(TypeError, match="mechanisms"):
        di.compose(di.Laplace(1.0), 3.0)
    with pytest.raises(TypeError, match="steps"):
        di.SubsampledGaussian(1.0, sampling_rate=0.1, steps="10")


def test_without_dp_accounting_the_message_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "dp_accounting", None)
    monkeypatch.setitem(sys.modules, "dp_accounting.pld", None)
    m = di.compose(di.Laplace(1.0), di.Laplace(2.0))
    with pytest.raises(ImportError, match=r"diffident\[accounting\]"):
        m.delta(1.0)
    # a composition of Gaussians needs no PLD, nor the pure epsilon
    assert di.compose(di.Gaussian(1.0), di.Gaussian(2.0)).advantage() > 0
    assert m.pure_epsilon == 1.5


def test_a_dp_sgd_run_composes_with_other_releases_on_one_grid():
    s = di.SubsampledGaussian(1.0, sampling_rate=0.01, steps=50, discretization=1e-3)
    assert (s.sampling_rate, s.steps, s.neighbours) == (0.01, 50, "add_remove")
    both = di.compose(s, di.Laplace(5.0))  # the composition's grid (1e-4), not the run's
    alone = di.SubsampledGaussian(1.0, sampling_rate=0.01, steps=50)
    assert both.delta(0.5) > alone.delta(0.5)
    assert both.delta(0.5) >= di.Laplace(5.0).delta(0.5)
