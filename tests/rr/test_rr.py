"""Randomized response (diffident.rr; Mathematics page, section 7): exact epsilons by
enumeration, OpenDP's privacy maps, Bayes' rule, unbiasedness and variance by
simulation, identifiability, bad input."""

import math
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

import diffident
import diffident.rr as rr
from diffident.testing import rr_reference as rr_ref


@pytest.fixture(autouse=True)
def _digits():
    """The references of this module work at 40 digits."""
    with mpmath.workdps(40):
        yield


GRID = [F(i, 20) for i in range(21)]  # 0, 1/20, ..., 1 (edges included)


def _bayes(p, k, prior, report):
    """P(x = 1 | report) by direct enumeration over x; None if impossible."""
    want = rr_ref.posterior(p, zero=k, prior=prior, report=report)
    return None if isinstance(want, float) else want  # the reference's nan: impossible


def _grid_arrays():
    pk = [(p, k) for p in GRID for k in GRID]
    p = np.array([float(a) for a, _ in pk])
    k = np.array([float(b) for _, b in pk])
    return pk, p, k


# ---------------------------------------------------------------- epsilon

def test_epsilon_against_enumeration_on_grid():
    pk, p, k = _grid_arrays()
    got = rr.epsilon(p, zero=k)
    assert got.shape == p.shape
    for (pf, kf), g in zip(pk, got, strict=False):
        want = float(rr_ref.epsilon(pf, zero=kf))
        if math.isinf(want):
            assert g == np.inf, (pf, kf)
        else:
            assert g == pytest.approx(want, rel=1e-14, abs=1e-300), (pf, kf)


def test_epsilon_edges():
    assert rr.epsilon(0.0, zero=0.5) == math.inf          # the truth
    assert rr.epsilon(0.0, zero=0.0) == math.inf
    for k in (0.0, 0.3, 1.0):
        assert rr.epsilon(1.0, zero=k) == 0.0               # independent of x
    assert rr.epsilon(0.5, zero=0.0) == math.inf           # report 0 reveals x = 0
    assert rr.epsilon(0.5, zero=1.0) == math.inf           # report 1 reveals x = 1
    assert isinstance(rr.epsilon(0.5, zero=0.5), float)


def test_epsilon_matches_math_md_formula_and_is_accurate_at_small_and_large_values():
    rng = np.random.default_rng(1)
    p = rng.uniform(0.01, 0.99, 200)
    k = rng.uniform(0.01, 0.99, 200)
    md = np.maximum(np.log((1 - p * k) / (p * (1 - k))), np.log((1 - p + p * k) / (p * k)))
    np.testing.assert_allclose(rr.epsilon(p, zero=k), md, rtol=1e-12)
    # near p = 1 epsilon is tiny: ln(1 + (1 - p)/(p min(k, 1-k))) keeps every digit
    p1 = 1 - 2.0 ** -40
    want = mpmath.log1p((1 - mpmath.mpf(p1)) / (mpmath.mpf(p1) * mpmath.mpf(0.25)))
    assert rr.epsilon(p1, zero=0.25) == pytest.approx(float(want), rel=1e-14)
    # tiny p: no overflow of the ratio
    want = mpmath.log1p((1 - mpmath.mpf(1e-310)) / (mpmath.mpf(1e-310) * mpmath.mpf(0.5)))
    assert rr.epsilon(1e-310, zero=0.5) == pytest.approx(float(want), rel=1e-12)


def test_epsilon_bound_is_an_upper_bound_and_minus_log_pk_is_not_for_k_above_half():
    _, p, k = _grid_arrays()
    eps, bound = rr.epsilon(p, zero=k), rr.epsilon_bound(p, zero=k)
    assert np.all(bound >= eps)
    low = k <= 0.5
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(bound[low], -np.log(p[low] * k[low]), rtol=1e-14)
    # -ln(p k) fails as a bound for k > 1/2 (Mathematics page, section 7)
    assert -math.log(0.1 * 0.9) < rr.epsilon(0.1, zero=0.9)
    assert rr.epsilon_bound(0.1, zero=0.9) == pytest.approx(-math.log(0.1 * 0.1), rel=1e-15)
    assert rr.epsilon_bound(1.0, zero=0.5) == pytest.approx(math.log(2), rel=1e-15)


# ---------------------------------------------------------------- OpenDP

PROBS_BOOL = [0.5, 0.51, 0.6, 0.75, 0.9, 0.99, 0.999999, 1.0]


@pytest.mark.parametrize("prob", PROBS_BOOL)
def test_warner_against_opendp_bool(prob):
    dp = pytest.importorskip("opendp.prelude")
    dp.enable_features("contrib")
    want = dp.m.make_randomized_response_bool(prob=prob).map(1)
    # OpenDP's prob is the probability of the truth: Warner's p; in the
    # two-parameter scheme, p = 2 (1 - prob) and k = 1/2
    assert rr.warner_epsilon(prob) == pytest.approx(want, rel=1e-12, abs=1e-12)
    assert rr.epsilon(2 * (1 - prob), zero=0.5) == pytest.approx(want, rel=1e-12, abs=1e-12)
    assert rr.kary_epsilon(prob, d=2) == pytest.approx(want, rel=1e-12, abs=1e-12)
    assert rr.warner_p(want) == pytest.approx(prob, rel=1e-12)


@pytest.mark.parametrize("d", [2, 3, 5, 10])
def test_kary_against_opendp(d):
    dp = pytest.importorskip("opendp.prelude")
    dp.enable_features("contrib")
    for prob in [1 / d, (1 + 1 / d) / 2, 0.7, 0.9, 0.99, 1.0]:
        if prob < 1 / d:
            continue
        want = dp.m.make_randomized_response(categories=list(range(d)), prob=prob).map(1)
        # OpenDP's prob: the truth with probability prob, each other
        # category with (1 - prob)/(d - 1): exactly kary_p
        assert rr.kary_epsilon(prob, d=d) == pytest.approx(want, rel=1e-12, abs=1e-12), prob
        if math.isfinite(want):
            assert rr.kary_p(want, d=d) == pytest.approx(prob, rel=1e-12), prob


def test_opendp_kary_prob_is_the_truth_probability():
    # the mapping above rests on OpenDP's definition of prob: check its sampler
    dp = pytest.importorskip("opendp.prelude")
    dp.enable_features("contrib")
    meas = dp.m.make_randomized_response(categories=[0, 1, 2, 3], prob=0.4)
    draws = np.array([meas(1) for _ in range(6000)])
    freq = np.bincount(draws, minlength=4) / draws.size
    se = math.sqrt(0.4 * 0.6 / draws.size)
    assert abs(freq[1] - 0.4) < 4 * se
    se = math.sqrt(0.2 * 0.8 / draws.size)
    assert np.all(np.abs(freq[[0, 2, 3]] - 0.2) < 4 * se)


def test_warner_and_kary_calibration_roundtrip():
    eps = np.array([0.0, 0.1, 1.0, 3.0, 20.0, np.inf])
    e = np.exp(eps[1:5])
    np.testing.assert_allclose(rr.warner_p(eps), [0.5, *(e / (e + 1)), 1.0], rtol=1e-15)
    np.testing.assert_allclose(rr.warner_epsilon(rr.warner_p(eps[:-2])), eps[:-2], rtol=1e-12, atol=1e-15)
    assert rr.warner_epsilon(1.0) == math.inf
    d = np.array([[2], [3], [7]])
    p = rr.kary_p(eps, d=d)
    assert p.shape == (3, 6)
    np.testing.assert_allclose(p[:, 0], 1 / d[:, 0], rtol=1e-15)
    np.testing.assert_allclose(p[:, 2], math.e / (math.e + d[:, 0] - 1), rtol=1e-15)
    assert np.all(p[:, -1] == 1.0)
    np.testing.assert_allclose(rr.kary_epsilon(p[:, :-2], d=d), np.broadcast_to(eps[:-2], (3, 4)),
                               rtol=1e-10, atol=1e-15)
    # d = 2 is Warner
    np.testing.assert_allclose(rr.kary_p(eps, d=2), rr.warner_p(eps), rtol=1e-15)


# ---------------------------------------------------------------- posterior

def test_posterior_against_bayes_enumeration():
    priors = [F(0), F(1, 7), F(1, 2), F(9, 10), F(1)]
    cells = [(p, k, pr, r) for p in GRID[::2] for k in GRID[::2] for pr in priors for r in (0, 1)]
    p, k, prior = (np.array([float(c[i]) for c in cells]) for i in range(3))
    rep = np.array([c[3] for c in cells])
    got = rr.posterior(p, zero=k, prior=prior, report=rep)
    for c, g in zip(cells, got, strict=False):
        want = _bayes(*c)
        if want is None:
            assert np.isnan(g), c
        else:
            assert g == pytest.approx(float(want), rel=1e-14, abs=1e-300), c


def test_math_md_report1_posterior_is_bayes_exactly():
    # Mathematics page, eq. 7.7: (1 - p k) P1 / ((1 - p) P1 + p (1 - k)); checked in exact arithmetic
    for p in GRID:
        for k in GRID:
            for pr in (F(1, 3), F(1, 2), F(4, 5)):
                den = (1 - p) * pr + p * (1 - k)
                if den == 0:
                    assert _bayes(p, k, pr, 1) is None
                    continue
                assert (1 - p * k) * pr / den == _bayes(p, k, pr, 1)
                # report 0: p k P1 / ((1 - p)(1 - P1) + p k)
                den0 = (1 - p) * (1 - pr) + p * k
                if den0:
                    assert p * k * pr / den0 == _bayes(p, k, pr, 0)


def test_posterior_values_and_broadcasting():
    assert rr.posterior(0.5, zero=0.5, prior=0.5) == 0.75
    assert rr.posterior(0.5, zero=0.5, prior=0.5, report=0) == 0.25
    assert rr.posterior(0.0, zero=0.5, prior=0.3, report=1) == 1.0   # no noise: the truth
    assert rr.posterior(1.0, zero=0.5, prior=0.3, report=1) == pytest.approx(0.3, rel=1e-15)  # no information
    assert math.isnan(rr.posterior(1.0, zero=1.0, prior=0.3, report=1))  # report 1 never happens
    out = rr.posterior([[0.2], [0.6]], zero=[0.1, 0.5, 0.9], prior=0.5, report=[[1], [0]])
    assert out.shape == (2, 3)
    assert out[0, 1] == pytest.approx(0.9 / (0.9 + 0.1))


# ---------------------------------------------------------------- estimators by simulation

R, N = 2000, 500


@pytest.mark.parametrize("p,k,pi", [(0.5, 0.5, 0.3), (0.3, 0.8, 0.1), (0.75, 0.2, 0.6)])
def test_estimate_unbiased_and_variance_by_simulation(p, k, pi):
    rng = np.random.default_rng(12345)
    x = rng.random((R, N)) < pi          # respondents drawn from the population
    reports = rr.sample(x, flip=p, zero=k, rng=rng)
    assert reports.shape == (R, N) and reports.dtype == np.int64
    q = reports.mean(axis=1)
    est = rr.estimate(q, flip=p, zero=k)
    se = est.std(ddof=1) / math.sqrt(R)
    assert abs(est.mean() - pi) < 4 * se
    lam = pi * (1 - p) + p * (1 - k)     # P(report 1)
    sim_var = est.var(ddof=1)
    assert rr.variance(lam, flip=p, zero=k, n=N) == pytest.approx(sim_var, rel=0.10)
    assert rr.variance(q, flip=p, zero=k, n=N).mean() == pytest.approx(sim_var, rel=0.10)  # plug-in


def test_estimate_unbiased_for_fixed_respondents_variance_smaller_by_pi_term():
    p, k, n1 = 0.5, 0.5, 150
    rng = np.random.default_rng(7)
    x = np.zeros(N, dtype=bool)
    x[:n1] = True
    est = rr.estimate(rr.sample(np.broadcast_to(x, (R, N)), flip=p, zero=k, rng=rng).mean(axis=1), flip=p, zero=k)
    pi = n1 / N
    assert abs(est.mean() - pi) < 4 * est.std(ddof=1) / math.sqrt(R)
    lam = pi * (1 - p) + p * (1 - k)
    fixed = rr.variance(lam, flip=p, zero=k, n=N) - pi * (1 - pi) / N
    assert est.var(ddof=1) == pytest.approx(fixed, rel=0.10)


@pytest.mark.parametrize("t", [0.6, 0.75, 0.9])
def test_warner_estimate_unbiased_by_simulation(t):
    rng = np.random.default_rng(2024)
    n1 = 120
    x = np.zeros(N, dtype=np.int8)
    x[:n1] = 1
    xs = np.broadcast_to(x, (R, N))
    # Warner's coin as the two-parameter scheme, and as 2-category RR
    for reports in (rr.sample(xs, flip=2 * (1 - t), zero=0.5, rng=rng),
                    rr.kary_sample(xs, epsilon=rr.warner_epsilon(t), d=2, rng=rng)):
        est = rr.warner_estimate(reports.sum(axis=1), n=N, p=t)
        assert abs(est.mean() - n1) < 4 * est.std(ddof=1) / math.sqrt(R)
        var = (N * t * (1 - t)) / (2 * t - 1) ** 2   # fixed respondents
        assert est.var(ddof=1) == pytest.approx(var, rel=0.10)


@pytest.mark.parametrize("eps,d", [(1.0, 4), (0.5, 3), (2.5, 6)])
def test_kary_estimate_unbiased_by_simulation(eps, d):
    rng = np.random.default_rng(99)
    true = np.round(np.linspace(1, 2, d) / np.linspace(1, 2, d).sum() * N).astype(int)
    true[-1] = N - true[:-1].sum()
    x = np.repeat(np.arange(d), true)
    reports = rr.kary_sample(np.broadcast_to(x, (R, N)), epsilon=eps, d=d, rng=rng)
    counts = (reports[..., None] == np.arange(d)).sum(axis=1)
    est = rr.kary_estimate(counts, epsilon=eps)
    assert est.shape == (R, d)
    np.testing.assert_allclose(est.sum(axis=1), N, rtol=1e-12)
    se = est.std(axis=0, ddof=1) / math.sqrt(R)
    assert np.all(np.abs(est.mean(axis=0) - true) < 4 * se)
    # the report frequencies themselves: truth with kary_p, others uniform
    p = rr.kary_p(eps, d=d)
    freq_true = (reports == x).mean()
    assert abs(freq_true - p) < 4 * math.sqrt(p * (1 - p) / reports.size)


def test_kary_estimate_broadcasts_epsilon_and_is_exact_without_noise():
    c = np.array([[500, 250, 250], [10, 20, 70]])
    np.testing.assert_allclose(rr.kary_estimate(c, epsilon=np.inf), c)
    out = rr.kary_estimate(c, epsilon=[np.log(3), 1.0])
    np.testing.assert_allclose(out[0], [750, 125, 125], rtol=1e-12)
    p = rr.kary_p(1.0, d=3)
    q = (1 - p) / 2
    np.testing.assert_allclose(out[1], (c[1] - 100 * q) / (p - q), rtol=1e-12)


def test_sample_edges_and_reproducibility():
    x = np.array([0, 1, 1, 0, 1])
    assert np.array_equal(rr.sample(x, flip=0.0, zero=0.3, rng=np.random.default_rng(0)), x)
    assert np.all(rr.sample(x, flip=1.0, zero=0.0, rng=np.random.default_rng(0)) == 1)
    assert np.all(rr.sample(x, flip=1.0, zero=1.0, rng=np.random.default_rng(0)) == 0)
    a = rr.sample(x, flip=0.4, zero=0.4, rng=np.random.default_rng(5))
    b = rr.sample(x, flip=0.4, zero=0.4, rng=np.random.default_rng(5))
    assert np.array_equal(a, b)
    assert rr.sample(1, flip=0.0, zero=0.5, rng=np.random.default_rng(0)) == 1
    assert isinstance(rr.sample(1, flip=0.5, zero=0.5, rng=np.random.default_rng(0)), int)
    assert np.array_equal(rr.kary_sample([0, 3, 2], epsilon=np.inf, d=4, rng=np.random.default_rng(0)), [0, 3, 2])
    xin = np.array([0, 1, 1], dtype=float)
    rr.sample(xin, flip=0.5, zero=0.5, rng=np.random.default_rng(0))
    assert np.array_equal(xin, [0.0, 1.0, 1.0])  # inputs untouched


def test_estimate_and_variance_values():
    assert rr.estimate(0.4, flip=0.5, zero=0.5) == pytest.approx(0.3, rel=1e-15)
    assert rr.estimate(0.25, flip=0.5, zero=0.5) == 0.0
    assert rr.estimate(0.0, flip=0.5, zero=0.5) == -0.5      # unclipped
    assert rr.variance(0.4, flip=0.5, zero=0.5, n=100) == pytest.approx(0.0096, rel=1e-15)
    assert rr.variance(0.4, flip=1.0, zero=0.5, n=100) == math.inf
    assert rr.warner_estimate(400, n=1000, p=0.75) == pytest.approx(300.0, rel=1e-15)
    assert rr.warner_estimate(400, n=1000, p=1.0) == 400.0


# ---------------------------------------------------------------- identifiability

def test_identification_risk_and_rho_by_enumeration():
    priors = [F(0), F(1, 10), F(1, 2), F(3, 4), F(1)]
    cells = [(p, k, pr) for p in GRID[::2] for k in GRID[::2] for pr in priors]
    p, k, prior = (np.array([float(c[i]) for c in cells]) for i in range(3))
    risk1 = rr.identification_risk(p, zero=k, prior=prior)
    risk0 = rr.identification_risk(p, zero=k, prior=prior, value=0)
    rh = rr.rho(p, zero=k, prior=prior)
    for c, g1, g0, gr in zip(cells, risk1, risk0, rh, strict=False):
        p, k, pr = c
        t = rr_ref.likelihoods(p, zero=k)
        post = {r: _bayes(p, k, pr, r) for r in (0, 1)}
        want1 = max(post[r] for r in (0, 1) if post[r] is not None)
        want0 = max(1 - post[r] for r in (0, 1) if post[r] is not None)
        # rho: the true bit x (prior > 0), the reports x can produce
        cand = []
        for x, px in ((1, pr), (0, 1 - pr)):
            for r in (0, 1):
                if px > 0 and t[r, x] > 0:
                    cand.append(post[r] if x == 1 else 1 - post[r])
        assert g1 == pytest.approx(float(want1), rel=1e-14), c
        assert g0 == pytest.approx(float(want0), rel=1e-14), c
        assert gr == pytest.approx(float(max(cand)), rel=1e-14), c


def test_rho_properties():
    _, p, k = _grid_arrays()
    eps = rr.epsilon(p, zero=k)
    # prior 1/2: the paper's rho for m = 2 worlds at the exact epsilon
    np.testing.assert_allclose(rr.rho(p, zero=k, prior=0.5), 1 / (1 + np.exp(-eps)), rtol=1e-14)
    np.testing.assert_allclose(rr.rho(p, zero=k, prior=0.5), diffident.rho_for_epsilon(eps, m=2), rtol=1e-14)
    for prior in (0.05, 0.3, 0.5, 0.8):
        r = rr.rho(p, zero=k, prior=prior)
        big = max(prior, 1 - prior)
        assert np.all(r >= big - 1e-15)
        with np.errstate(over="ignore", invalid="ignore"):
            e = np.exp(eps)
            bayes = np.where(np.isinf(e), 1.0, e * big / (1 - big + e * big))
        assert np.all(r <= bayes * (1 + 1e-14))
        half = k == 0.5
        np.testing.assert_allclose(r[half], bayes[half], rtol=1e-14)
        np.testing.assert_allclose(r, np.maximum(rr.identification_risk(p, zero=k, prior=prior),
                                                 rr.identification_risk(p, zero=k, prior=prior, value=0)),
                                   rtol=1e-15)
        # identification risk of value 1: at report 1 whenever it can happen
        risk = rr.identification_risk(p, zero=k, prior=prior)
        possible = (1 - p * k) * prior + p * (1 - k) * (1 - prior) > 0
        np.testing.assert_allclose(risk[possible], rr.posterior(p, zero=k, prior=prior, report=1)[possible], rtol=1e-15)
        assert np.all(risk >= prior - 1e-15)
    # Warner's coin with truth probability t at prior 1/2: rho = t
    t = np.array([0.5, 0.6, 0.75, 0.99])
    np.testing.assert_allclose(rr.rho(2 * (1 - t), zero=0.5, prior=0.5), t, rtol=1e-14)
    # more noise, less risk
    ps = np.linspace(0, 1, 50)
    assert np.all(np.diff(rr.rho(ps, zero=0.5, prior=0.3)) <= 0)


def test_rho_edges():
    assert rr.rho(0.0, zero=0.5, prior=0.3) == 1.0          # the truth is published
    assert rr.rho(1.0, zero=0.5, prior=0.3) == pytest.approx(0.7, rel=1e-15)  # only the prior
    assert rr.rho(0.5, zero=0.0, prior=0.3) == 1.0          # report 0 reveals x = 0
    assert rr.rho(0.5, zero=0.5, prior=0.0) == 1.0 and rr.rho(0.5, zero=0.5, prior=1.0) == 1.0
    assert rr.identification_risk(0.5, zero=0.5, prior=0.0) == 0.0
    assert rr.identification_risk(0.5, zero=1.0, prior=0.3) == 1.0   # report 1 reveals x = 1
    assert rr.identification_risk(0.5, zero=0.0, prior=0.3) < 1.0    # ... but report 0 only x = 0
    assert rr.identification_risk(0.5, zero=0.0, prior=0.3, value=0) == 1.0
    assert rr.identification_risk(1.0, zero=1.0, prior=0.3) == pytest.approx(0.3, rel=1e-15)


# ---------------------------------------------------------------- bad input

G = np.random.default_rng(0)
NAN = float("nan")

BAD = [
    (rr.epsilon, dict(flip=-0.1, zero=0.5), "flip"),
    (rr.epsilon, dict(flip=NAN, zero=0.5), "flip"),
    (rr.epsilon, dict(flip=0.5, zero=1.5), "zero"),
    (rr.epsilon_bound, dict(flip=1.01, zero=0.5), "flip"),
    (rr.epsilon_bound, dict(flip=0.5, zero=NAN), "zero"),
    (rr.posterior, dict(flip=2.0, zero=0.5, prior=0.5), "flip"),
    (rr.posterior, dict(flip=0.5, zero=-1.0, prior=0.5), "zero"),
    (rr.posterior, dict(flip=0.5, zero=0.5, prior=1.2), "prior"),
    (rr.posterior, dict(flip=0.5, zero=0.5, prior=NAN), "prior"),
    (rr.posterior, dict(flip=0.5, zero=0.5, prior=0.5, report=2), "report"),
    (rr.posterior, dict(flip=0.5, zero=0.5, prior=0.5, report=0.5), "report"),
    (rr.estimate, dict(q=1.5, flip=0.5, zero=0.5), "q"),
    (rr.estimate, dict(q=0.5, flip=1.0, zero=0.5), "flip"),
    (rr.estimate, dict(q=0.5, flip=0.5, zero=-0.5), "zero"),
    (rr.variance, dict(q=NAN, flip=0.5, zero=0.5, n=10), "q"),
    (rr.variance, dict(q=0.5, flip=-0.5, zero=0.5, n=10), "flip"),
    (rr.variance, dict(q=0.5, flip=0.5, zero=2.0, n=10), "zero"),
    (rr.variance, dict(q=0.5, flip=0.5, zero=0.5, n=0), "n"),
    (rr.variance, dict(q=0.5, flip=0.5, zero=0.5, n=-3), "n"),
    (rr.variance, dict(q=0.5, flip=0.5, zero=0.5, n=NAN), "n"),
    (rr.sample, dict(x=[0, 2], flip=0.5, zero=0.5, rng=G), "x"),
    (rr.sample, dict(x=[0, 1], flip=1.5, zero=0.5, rng=G), "flip"),
    (rr.sample, dict(x=[0, 1], flip=0.5, zero=NAN, rng=G), "zero"),
    (rr.warner_p, dict(epsilon=-1.0), "epsilon"),
    (rr.warner_p, dict(epsilon=NAN), "epsilon"),
    (rr.warner_epsilon, dict(p=0.4), "p"),
    (rr.warner_epsilon, dict(p=1.1), "p"),
    (rr.warner_epsilon, dict(p=NAN), "p"),
    (rr.warner_estimate, dict(n_yes=-1, n=10, p=0.75), "n_yes"),
    (rr.warner_estimate, dict(n_yes=11, n=10, p=0.75), "n_yes"),
    (rr.warner_estimate, dict(n_yes=5, n=0, p=0.75), "n"),
    (rr.warner_estimate, dict(n_yes=5, n=10, p=0.5), "p"),
    (rr.warner_estimate, dict(n_yes=5, n=10, p=0.3), "p"),
    (rr.kary_p, dict(epsilon=-0.5, d=3), "epsilon"),
    (rr.kary_p, dict(epsilon=1.0, d=1), "d"),
    (rr.kary_p, dict(epsilon=1.0, d=2.5), "d"),
    (rr.kary_p, dict(epsilon=1.0, d=NAN), "d"),
    (rr.kary_epsilon, dict(p=0.2, d=4), "p"),
    (rr.kary_epsilon, dict(p=1.2, d=4), "p"),
    (rr.kary_epsilon, dict(p=0.5, d=0), "d"),
    (rr.kary_estimate, dict(counts=[5, -1, 3], epsilon=1.0), "counts"),
    (rr.kary_estimate, dict(counts=5, epsilon=1.0), "counts"),
    (rr.kary_estimate, dict(counts=[[5], [3]], epsilon=1.0), "counts"),
    (rr.kary_estimate, dict(counts=[5, 3], epsilon=0.0), "epsilon"),
    (rr.kary_estimate, dict(counts=[5, 3], epsilon=-1.0), "epsilon"),
    (rr.kary_sample, dict(x=[0, 4], epsilon=1.0, d=4, rng=G), "x"),
    (rr.kary_sample, dict(x=[0, 1.5], epsilon=1.0, d=4, rng=G), "x"),
    (rr.kary_sample, dict(x=[0, -1], epsilon=1.0, d=4, rng=G), "x"),
    (rr.kary_sample, dict(x=[0, 1], epsilon=NAN, d=4, rng=G), "epsilon"),
    (rr.kary_sample, dict(x=[0, 1], epsilon=1.0, d=1, rng=G), "d"),
    (rr.identification_risk, dict(flip=0.5, zero=0.5, prior=-0.1), "prior"),
    (rr.identification_risk, dict(flip=0.5, zero=0.5, prior=0.5, value=3), "value"),
    (rr.rho, dict(flip=NAN, zero=0.5, prior=0.5), "flip"),
    (rr.rho, dict(flip=0.5, zero=0.5, prior=1.5), "prior"),
]


@pytest.mark.parametrize("fn,kwargs,name", BAD, ids=[f"{f.__name__}-{n}-{i}" for i, (f, _, n) in enumerate(BAD)])
def test_bad_input_names_the_argument(fn, kwargs, name):
    with pytest.raises(ValueError) as info:
        fn(**kwargs)
    assert str(info.value).startswith(name + " "), str(info.value)


def test_bad_types():
    with pytest.raises(TypeError, match="rng"):
        rr.sample([0, 1], flip=0.5, zero=0.5, rng=42)
    with pytest.raises(TypeError, match="rng"):
        rr.kary_sample([0, 1], epsilon=1.0, d=3, rng=None)
    with pytest.raises(TypeError, match="p"):
        rr.epsilon("0.5", zero=0.5)
    with pytest.raises(TypeError, match="d"):
        rr.kary_p(1.0, d=True)


def test_bad_value_is_located_in_arrays():
    with pytest.raises(ValueError, match=r"got 1\.5 at index 2"):
        rr.epsilon([0.1, 0.2, 1.5], zero=0.5)


# ---------------------------------------------------------------- docs
# (the examples run in test_docs.py's test_docstring_examples)

def test_every_public_function_is_documented():
    for name in rr.__all__:
        doc = getattr(rr, name).__doc__
        assert doc and "Examples" in doc and "Parameters" in doc and "Returns" in doc, name


@pytest.mark.parametrize(("func", "args", "kw"), [
    (rr.epsilon, (0.3,), {"zero": 0.4}),
    (rr.epsilon_bound, (0.3,), {"zero": 0.4}),
    (rr.posterior, (0.3,), {"zero": 0.4, "prior": 0.2, "report": 0}),
    (rr.identification_risk, (0.3,), {"zero": 0.4, "prior": 0.2}),
    (rr.rho, (0.3,), {"zero": 0.4, "prior": 0.2}),
    (rr.estimate, (0.45,), {"flip": 0.3, "zero": 0.4}),
    (rr.variance, (0.45,), {"flip": 0.3, "zero": 0.4, "n": 50}),
])
def test_old_keyword_names_warn_and_give_the_same_value(func, args, kw):
    """p= and k= (the names before flip= and zero=) still work, with a
    DeprecationWarning naming the new keyword, and give the same bits;
    both names at once are a TypeError."""
    old = {{"flip": "p", "zero": "k"}.get(name, name): value for name, value in kw.items()}
    with pytest.warns(DeprecationWarning, match=r"[pk]= is deprecated since diffident 0\.2\.0; use (flip|zero)="):
        got = func(*args, **old)
    assert got == func(*args, **kw)
    with pytest.raises(TypeError, match="got both k="):
        func(*args, k=0.4, **kw)
