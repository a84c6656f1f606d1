"""The exact privacy measures of the integer noises (diffident._mechanisms.integer_fdp)."""

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

import diffident as di
from diffident._mechanisms.integer_fdp import (
    dgauss_advantage,
    dgauss_delta,
    dgauss_tradeoff,
    dlap_advantage,
    dlap_delta,
    dlap_tradeoff,
)

DELTA = {"lap": dlap_delta, "gauss": dgauss_delta}
TRADEOFF = {"lap": dlap_tradeoff, "gauss": dgauss_tradeoff}
ADVANTAGE = {"lap": dlap_advantage, "gauss": dgauss_advantage}


# ------------------------------------------------------------- brute force in mpmath


def _pmf(kind, s, d, K=None):
    """P(Z = k) for |k| <= K, by default K large enough that the rest is below 1e-40: (K, list)."""
    with mp.workdps(40):
        if kind == "lap":
            K = K or d + int(math.ceil(100 * s)) + 5
            w = [mp.exp(-mp.mpf(abs(k)) / s) for k in range(-K, K + 1)]
        else:
            K = K or d + int(math.ceil(15 * s)) + 5
            w = [mp.exp(-mp.mpf(k) ** 2 / (2 * mp.mpf(s) ** 2)) for k in range(-K, K + 1)]
        n = mp.fsum(w)
        return K, [x / n for x in w]


def _brute_delta(kind, s, d, eps):
    """sum_k p_A(k) max(0, 1 - e^(eps - log LR_k)), log LR compared with eps exactly."""
    with mp.workdps(40):
        e = mp.mpf(eps)
        if kind == "lap":
            K, p = _pmf(kind, s, d)
            lo, hi = -K + d, K  # p_A(k) = p[k + K] and p_B(k) = p[k - d + K] both in the table
        else:
            # the terms that count are k <= m, m about d/2 - eps s^2 / d: from m 15 s down
            sig2 = mp.mpf(s) ** 2
            n = mp.fsum(mp.exp(-mp.mpf(k) ** 2 / (2 * sig2)) for k in range(-int(20 * s) - 5, int(20 * s) + 6))
            m = int(mp.ceil(mp.mpf(d) / 2 - e * sig2 / d)) - 1
            lo, hi = m - int(math.ceil(15 * s)) - 5, m
        tot = mp.mpf(0)
        for k in range(lo, hi + 1):
            if kind == "lap":
                llr = mp.mpf(abs(k - d) - abs(k)) / s
                pk = p[k + K]
            else:
                llr = mp.mpf((k - d) ** 2 - k**2) / (2 * sig2)
                pk = mp.exp(-mp.mpf(k) ** 2 / (2 * sig2)) / n
            if llr > e:
                tot += pk * -mp.expm1(e - llr)
        return tot


def _brute_tradeoff(kind, s, d, alpha, K=None):
    with mp.workdps(40):
        K, p = _pmf(kind, s, d, K)
        a = mp.mpf(alpha)
        if a >= 1:
            return mp.mpf(0)
        # vertices c = -K .. K + 1: alpha_c = P(Z >= c), beta_c = P(Z <= c - d - 1)
        tails = [mp.mpf(0)] * (2 * K + 2)
        acc = mp.mpf(0)
        for i in range(2 * K, -1, -1):
            acc += p[i]
            tails[i] = acc
        heads = [mp.mpf(0)] * (2 * K + 2)
        acc = mp.mpf(0)
        for i in range(2 * K + 1):
            heads[i] = acc  # P(Z <= i - K - 1)
            acc += p[i]
        heads[2 * K + 1] = acc

        def head(b):  # P(Z <= b)
            i = b + K + 1
            return mp.mpf(0) if i <= 0 else (heads[i] if i <= 2 * K + 1 else mp.mpf(1))

        def pm(k):
            return p[k + K] if -K <= k <= K else mp.mpf(0)

        for c in range(K, -K - 1, -1):
            if tails[c + K] >= a:
                g = (tails[c + K] - a) / pm(c)
                return head(c - d - 1) + g * pm(c - d)
        raise AssertionError("alpha beyond the brute-force range")


def _close(x, ref, rtol=1e-10, atol=1e-300):
    assert abs(mp.mpf(float(x)) - ref) <= rtol * abs(ref) + atol, (float(x), float(ref))


# --------------------------------------------------------------------- check values


def test_check_values():
    assert dlap_advantage(1.0) == pytest.approx(math.tanh(0.5), rel=1e-15)
    assert dlap_advantage(1.0) == pytest.approx(0.462117, abs=1e-6)
    assert dgauss_delta(1.0, 1.0) == pytest.approx(0.1413513394, abs=1e-10)
    assert dgauss_advantage(1.0) == pytest.approx(0.398942, abs=1e-6)
    # the continuous Gaussian differs
    cont = norm.cdf(-1 + 0.5) - math.e * norm.cdf(-1 - 0.5)
    assert cont == pytest.approx(0.1269367375, abs=1e-10)


@pytest.mark.parametrize("t", [0.3, 1.0, 7.0, 1e3])
def test_dlap_advantage_tanh(t):
    assert dlap_advantage(t) == pytest.approx(math.tanh(0.5 / t), rel=1e-14)
    assert dlap_advantage(t, 2) == pytest.approx(-math.expm1(-1.0 / t), rel=1e-14)  # P(Z in {-1, 0})


# ---------------------------------------------------------------- against mpmath


@settings(max_examples=40, deadline=None)
@given(kind=st.sampled_from(["lap", "gauss"]), s=st.floats(0.05, 25.0), d=st.integers(1, 4),
       eps=st.one_of(st.floats(0.0, 8.0), st.just(0.0)))
def test_delta_bruteforce(kind, s, d, eps):
    ref = _brute_delta(kind, s, d, eps)
    _close(DELTA[kind](eps, s, d), ref)


@settings(max_examples=40, deadline=None)
@given(kind=st.sampled_from(["lap", "gauss"]), s=st.floats(0.05, 25.0), d=st.integers(1, 4),
       alpha=st.one_of(st.floats(0.0, 1.0), st.floats(-30.0, 0.0).map(lambda u: 10.0**u),
                       st.floats(-15.0, -0.5).map(lambda u: 1.0 - 10.0**u)))
def test_tradeoff_bruteforce(kind, s, d, alpha):
    if alpha == 0.0:
        assert TRADEOFF[kind](alpha, s, d) == 1.0
        return
    ref = _brute_tradeoff(kind, s, d, alpha)
    _close(TRADEOFF[kind](alpha, s, d), ref)


@settings(max_examples=20, deadline=None)
@given(kind=st.sampled_from(["lap", "gauss"]), s=st.floats(0.05, 25.0), d=st.integers(1, 4))
def test_advantage_bruteforce(kind, s, d):
    _close(ADVANTAGE[kind](s, d), _brute_delta(kind, s, d, 0.0))


# -------------------------------------------------------------- curve properties


def _vertices(kind, s, d):
    """The alphas of the curve's vertices, P(Z >= c) over the thresholds c, from mpmath, as floats."""
    _, p = _pmf(kind, s, d)
    pf = np.array([float(x) for x in p])
    return np.cumsum(pf[::-1])[::-1]


@pytest.mark.parametrize("kind", ["lap", "gauss"])
@pytest.mark.parametrize("s", [0.2, 1.0, 3.7, 40.0])
@pytest.mark.parametrize("d", [1, 3])
def test_tradeoff_shape(kind, s, d):
    f = TRADEOFF[kind]
    assert f(0.0, s, d) == 1.0
    assert f(1.0, s, d) == 0.0
    a = np.linspace(0.0, 1.0, 2001)
    b = f(a, s, d)
    assert np.all(np.diff(b) <= 1e-15)  # non-increasing
    assert np.all(b <= 1.0 - a + 1e-15)  # below the no-information line
    assert np.all(b >= 0.0)
    # convex: second differences on the uniform grid
    assert np.all(b[:-2] - 2 * b[1:-1] + b[2:] >= -1e-13)
    # advantage = max over the vertices of 1 - alpha - beta
    tails = _vertices(kind, s, d)
    va = tails[(tails > 1e-300) & (tails < 1.0)]
    adv = np.max(1.0 - va - f(va, s, d))
    assert adv == pytest.approx(ADVANTAGE[kind](s, d), rel=1e-12, abs=1e-15)
    # and the curve is symmetric (f = f^-1): beta(beta(alpha)) = alpha at the vertices
    mid = va[(va > 1e-12) & (va < 1 - 1e-12)]
    assert np.allclose(f(f(mid, s, d), s, d), mid, rtol=1e-10, atol=1e-15)


@pytest.mark.parametrize("kind", ["lap", "gauss"])
@pytest.mark.parametrize("s", [0.5, 2.0])
def test_delta_from_tradeoff(kind, s):
    """delta(eps) = max over alpha of 1 - e^eps alpha - beta(alpha) (on the vertices)."""
    K, p = _pmf(kind, s, 1)
    tails = np.array([float(x) for x in p])[::-1].cumsum()[::-1]
    va = np.concatenate([[0.0], tails[(tails > 1e-300) & (tails < 1.0)], [1.0]])
    b = TRADEOFF[kind](va, s)
    for eps in [0.0, 0.3, 1.0, 2.5]:
        conj = np.max(1.0 - math.exp(eps) * va - b)
        # (1 - e^eps alpha - beta cancels: its own error is about 1e-16 absolute)
        assert max(conj, 0.0) == pytest.approx(DELTA[kind](eps, s), rel=1e-12, abs=1e-14)


# ------------------------------------------------------------ continuous limits


@pytest.mark.parametrize("d", [1, 2])
def test_gauss_continuous_limit(d):
    s = 50.0
    mu = d / s
    e = np.linspace(0.0, 6 * mu, 25)
    bw = norm.cdf(-e / mu + mu / 2) - np.exp(e) * norm.cdf(-e / mu - mu / 2)
    assert np.max(np.abs(dgauss_delta(e, s, d) - bw)) < 1e-6
    a = np.linspace(0.0, 1.0, 201)
    gdp = norm.cdf(norm.ppf(1.0 - a) - mu)
    assert np.max(np.abs(dgauss_tradeoff(a, s, d) - gdp)) < 2e-6
    assert dgauss_advantage(s, d) == pytest.approx(2 * norm.cdf(mu / 2) - 1, abs=1e-6)


@pytest.mark.parametrize("t", [50.0, 1e4])
def test_lap_continuous_limit(t):
    # the discrete Laplace differs from the continuous one by about eps0^2 / 8
    eps0 = 1.0 / t
    e = np.linspace(0.0, 1.2 * eps0, 25)
    cont = np.maximum(0.0, 1.0 - np.exp((e - eps0) / 2))
    assert np.max(np.abs(dlap_delta(e, t) - cont)) <= eps0**2 / 4
    a = np.linspace(0.0, 1.0, 201)
    # the continuous Laplace curve (Dong, Roth and Su 2022)
    w = math.exp(-eps0)
    lap = np.where(a < w / 2, 1.0 - a / w, np.where(a <= 0.5, w / (4 * np.maximum(a, 1e-300)), w * (1.0 - a)))
    assert np.max(np.abs(dlap_tradeoff(a, t) - lap)) <= eps0**2


# -------------------------------------------------------------------- extremes


@pytest.mark.parametrize("s", [1e-3, 1e6])
def test_extreme_scales(s):
    e = np.array([0.0, 1e-9, 1.0, 700.0, np.inf])
    for kind in ["lap", "gauss"]:
        d = DELTA[kind](e, s)
        assert np.all(np.isfinite(d)) and np.all((d >= 0.0) & (d <= 1.0))
        assert np.all(np.diff(d) <= 0.0)
        assert d[0] == ADVANTAGE[kind](s)
        a = np.array([0.0, 1e-300, 1e-10, 0.5, 1.0 - 1e-10, 1.0])
        b = TRADEOFF[kind](a, s)
        assert b[0] == 1.0 and b[-1] == 0.0
        assert np.all(np.diff(b) <= 0.0) and np.all(b <= 1.0 - a + 1e-15)
    if s < 1:
        # nearly disjoint: delta is 1 up to exp(-1/s) (underflows), the curve hugs the axes
        assert dlap_delta(700.0, s) == pytest.approx(1.0, abs=1e-300)
        assert dgauss_delta(700.0, s) == 1.0
        assert dlap_tradeoff(1e-300, s) == 0.0 and dgauss_tradeoff(1e-300, s) == 0.0
    else:
        # nearly identical: advantage tanh(1/(2t)) and p(0) = 1 / (sigma sqrt(2 pi))
        assert dlap_advantage(s) == pytest.approx(math.tanh(0.5 / s), rel=1e-14)
        assert dgauss_advantage(s) == pytest.approx(1.0 / (s * math.sqrt(2 * math.pi)), rel=1e-12)
        assert dlap_delta(700.0, s) == 0.0 and dgauss_delta(700.0, s) == 0.0
        # the vertex of threshold 1 is (q / (1 + q), q / (1 + q))
        v = math.exp(-1 / s) / (1 + math.exp(-1 / s))
        assert dlap_tradeoff(v, s) == pytest.approx(v, rel=1e-12)
        # and the discrete Gaussian curve is the continuous one, 1/sigma-GDP, to O(1/sigma^2)
        a = np.array([1e-300, 1e-10, 0.1, 0.5, 0.9])
        assert np.allclose(dgauss_tradeoff(a, s), norm.cdf(norm.ppf(1.0 - a) - 1.0 / s), rtol=1e-9, atol=0)


def test_far_tails_exact():
    """Deep-tail values against mpmath: tiny alpha, eps up to 700, alpha 1e-300."""
    for kind, s in [("lap", 0.5), ("lap", 3.0), ("gauss", 0.7), ("gauss", 4.0)]:
        for eps in [10.0, 40.0]:
            _close(DELTA[kind](eps, s, 2), _brute_delta(kind, s, 2, eps))
        for alpha in [1e-25, 1e-12, 1.0 - 1e-9]:
            _close(TRADEOFF[kind](alpha, s, 2), _brute_tradeoff(kind, s, 2, alpha))
    # alpha near 1e-300: the Gaussian against mpmath with enough terms
    for s in [0.3, 1.0]:
        for alpha in [1e-300, 3e-290]:
            _close(dgauss_tradeoff(alpha, s), _brute_tradeoff("gauss", s, 1, alpha, K=int(40 * s) + 12), rtol=1e-11)
    # the discrete Laplace's first segment is one line from (0, 1): beta = 1 - e^eps0 alpha up to alpha_Delta
    t = 1.0 / 600.0
    q = math.exp(-600.0)
    alpha = 0.5 * q / (1.0 + q)  # half of alpha_1, about 1e-261
    assert dlap_tradeoff(alpha, t) == pytest.approx(1.0 - 0.5 / (1.0 + q), rel=1e-13)
    assert dlap_tradeoff(alpha / 4, t) == pytest.approx(1.0 - 0.125 / (1.0 + q), rel=1e-13)


@pytest.mark.parametrize("s, d, eps", [(1.0, 33, 700.0), (2.0, 40, 300.0), (20.0, 300, 400.0), (1e3, 8000, 100.0)])
def test_deep_tails_large_eps(s, d, eps):
    # e^eps times a tail of about e^-eps: no overflow, no NaN, relatively exact
    ref = _brute_delta("gauss", s, d, eps)
    assert 1e-300 < ref < 1e-3
    _close(dgauss_delta(eps, s, d), ref)


@pytest.mark.parametrize("s, d", [(3.0, 60), (30.0, 700), (1000.0, 19000)])
def test_subnormal_far_tail_errs_upward(s, d):
    # the documented limit: P(Z <= m - Delta) below 2^-1022 (here 0) loses e^eps times it,
    # so delta is too large there (conservative), never too small
    ref = _brute_delta("gauss", s, d, 700.0)
    v = dgauss_delta(700.0, s, d)
    assert v >= ref and math.isfinite(v)
    assert dgauss_delta(710.0, 20.0, 30) >= 0.0
    assert np.isfinite(dgauss_delta(800.0, 200.0, 300))


def test_shapes_and_nan():
    assert dlap_delta(np.zeros((2, 3)), 1.0).shape == (2, 3)
    assert dgauss_tradeoff(np.full((4, 1), 0.3), 1.0).shape == (4, 1)
    assert isinstance(dgauss_delta(1.0, 1.0), float)
    assert np.isnan(dlap_delta(np.nan, 1.0)) and np.isnan(dgauss_tradeoff(np.nan, 1.0))
    # the cores take checked values: the mechanisms check them, once
    with pytest.raises(ValueError, match="epsilon"):
        di.DiscreteLaplace(1.0).delta(-1.0)
    with pytest.raises(ValueError, match="alpha"):
        di.DiscreteGaussian(1.0).tradeoff(1.5)
    with pytest.raises((ValueError, TypeError), match="sensitivity"):
        di.DiscreteGaussian(1.0, sensitivity=1.5)
