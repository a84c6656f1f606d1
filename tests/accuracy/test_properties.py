"""Property tests (hypothesis) for the diffident engine core.

Mathematical facts from the Mathematics page, sections 2-5, that must hold for every input:

* the posterior is a distribution over worlds: sum_j c_j P_j(R) = 1;
* 1/m_eff <= rho*(scale) <= 1 (integer counts), m_eff = sum c pi / max pi;
* rho* is attained at R = f_j by the returned worst world, and no response
  gives any world a larger posterior;
* rho* is non-increasing in the scale, from rho*(0) down to rho*(inf);
* rho* is invariant under shifting and permuting the worlds;
* tight calibration: conservative and tight to adjacent floats;
* the tight epsilon is never below the closed form eps = ln((m-1) rho/(1-rho))
  (distinct values, m worlds), and equals it when one world is an outlier
  and the rest share one value -- the paper's toy median [2,3,3,3,3,3,3,3],
  where the bound of Theorem 1 is attained exactly: risk = rho.

Examples are derandomised (reproducible) and modest in number; deadline=None
because the first call of each kernel compiles it.
"""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import diffident as di
from diffident._risk import worst_case as _worst_case
from diffident._worlds.values import Worlds

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False,
                   allow_subnormal=False)
pos_scale = st.floats(min_value=1e-4, max_value=1e4, allow_nan=False, allow_infinity=False)
# values on a 1/1024 grid with |v| <= 2**20: shifts by integers are exact
grid_values = st.lists(st.integers(-2 ** 20, 2 ** 20), min_size=1, max_size=25).map(
    lambda xs: np.array(xs, dtype=np.float64) / 1024.0)


@st.composite
def problem(draw, values=None, min_size=1, max_size=25):
    """(values, counts, prior) with at least one positive-weight entry."""
    if values is None:
        vals = np.array(draw(st.lists(finite, min_size=min_size, max_size=max_size)), dtype=np.float64)
    else:
        vals = draw(values)
    m = vals.size
    mode = draw(st.sampled_from(["none", "counts", "prior", "both"]))
    counts = prior = None
    if mode in ("counts", "both"):
        # multiplicities are whole numbers (the library rejects others)
        counts = np.array(draw(st.lists(st.integers(0, 5), min_size=m, max_size=m)), dtype=np.float64)
    if mode in ("prior", "both"):
        prior = np.array(draw(st.lists(st.one_of(st.just(0.0), st.floats(1e-3, 10.0)),
                                       min_size=m, max_size=m)), dtype=np.float64)
    c = np.ones(m) if counts is None else counts
    p = np.ones(m) if prior is None else prior
    if not np.any(c * p > 0):
        k = draw(st.integers(0, m - 1))
        if counts is not None:
            counts[k] = 1.0
        if prior is not None:
            prior[k] = 1.0
    return vals, counts, prior


def weights_of(values, counts, prior):
    c = np.ones(values.size) if counts is None else counts
    p = np.ones(values.size) if prior is None else prior
    return c, p


# ---------------------------------------------------------------------------
# posteriors
# ---------------------------------------------------------------------------

@SETTINGS
@given(problem(), st.lists(finite, min_size=1, max_size=5), pos_scale)
def test_posterior_is_a_distribution(prob, responses, rel_scale):
    values, counts, prior = prob
    c, p = weights_of(values, counts, prior)
    spread = max(np.ptp(values), 1.0)
    scale = rel_scale * spread
    R = np.array(responses)
    P = np.asarray(di.posterior(values, response=R, scale=scale, counts=counts, prior=prior))
    assert P.shape == (R.size, values.size)
    assert np.all(P >= 0)
    # a world of a positive-count group has P_j <= 1/c_j (a zero-count entry's
    # "one world" posterior pi_j L_j / Z is unbounded, and may overflow)
    pos = c > 0
    assert np.all(P[:, pos] <= (1.0 / c[pos]) * (1 + 1e-12))
    np.testing.assert_allclose((P * c).sum(axis=1), 1.0, rtol=1e-12)
    # zero prior -> zero posterior
    assert np.all(P[:, p == 0] == 0)
    # log_posterior and disclosure_risk agree with posterior
    LP = np.asarray(di.log_posterior(values, response=R, scale=scale, counts=counts, prior=prior))
    with np.errstate(over="ignore"):
        np.testing.assert_allclose(np.exp(LP), P, rtol=1e-13, atol=1e-300)
    w = np.arange(values.size)
    D = np.asarray(di.disclosure_risk(values, response=R[:, None], scale=scale, world=w[None, :], counts=counts,
                                      prior=prior))
    np.testing.assert_allclose(D, P, rtol=1e-13, atol=1e-300)
    # the evidence: log sum_k c_k pi_k L_k = log(pi_j L_j) - log P_j for any j with P_j > 0
    LE = np.asarray(di.log_evidence(values, response=R, scale=scale, counts=counts, prior=prior))
    for i in range(R.size):
        j = int(np.argmax(P[i]))
        expect = math.log(p[j]) - abs(R[i] - values[j]) / scale - LP[i, j]
        assert LE[i] == pytest.approx(expect, rel=1e-12, abs=1e-12 * (1 + abs(R[i] - values[j]) / scale))


# ---------------------------------------------------------------------------
# worst-case risk
# ---------------------------------------------------------------------------

@SETTINGS
@given(problem(), pos_scale)
def test_worst_case_bounds_and_attainment(prob, rel_scale):
    values, counts, prior = prob
    c, p = weights_of(values, counts, prior)
    act = c * p > 0
    scale = rel_scale * max(np.ptp(values), 1.0)
    risk, world = di.worst_case_risk(values, scale=scale, counts=counts, prior=prior, return_world=True)
    m_eff = np.sum(c * p) / p[act].max()
    assert risk >= (1.0 / m_eff) * (1 - 1e-12)
    assert risk <= 1.0
    # integer counts: rho* <= 1 / min positive count
    assert risk <= 1.0 / c[act].min() * (1 + 1e-12)
    world = int(world)
    assert act[world]
    # attained by the returned world at R = f_world
    at = di.disclosure_risk(values, response=values[world], scale=scale, world=world, counts=counts, prior=prior)
    assert at == pytest.approx(risk, rel=1e-12)
    # and no response beats it (responses at every world value and in between)
    R = np.concatenate([values, (values[:-1] + values[1:]) / 2])
    P = np.asarray(di.posterior(values, response=R, scale=scale, counts=counts, prior=prior))
    assert np.all(P[:, act] <= risk * (1 + 1e-12))


@SETTINGS
@given(problem(), st.lists(st.floats(1e-6, 1e6), min_size=2, max_size=12))
def test_worst_case_non_increasing_in_scale(prob, scales):
    values, counts, prior = prob
    s = np.concatenate([[0.0], np.sort(np.array(scales)) * max(np.ptp(values), 1.0), [np.inf]])
    r = np.asarray(di.worst_case_risk(values, scale=s, counts=counts, prior=prior))
    assert r.shape == s.shape
    assert np.all(np.diff(r) <= 1e-14 * r[:-1]), r
    c, p = weights_of(values, counts, prior)
    act = c * p > 0
    assert r[-1] == pytest.approx(p[act].max() / np.sum(c * p), rel=1e-12)


@SETTINGS
@given(problem(values=grid_values), st.integers(-2 ** 20, 2 ** 20), st.randoms(use_true_random=False),
       st.floats(1e-3, 1e3))
def test_invariant_under_shift_and_permutation(prob, shift, rnd, rel_scale):
    values, counts, prior = prob
    m = values.size
    perm = list(range(m))
    rnd.shuffle(perm)
    perm = np.array(perm)
    scales = np.array([0.0, 0.1, 1.0, 10.0, np.inf]) * rel_scale * max(np.ptp(values), 1.0)
    base = np.asarray(di.worst_case_risk(values, scale=scales, counts=counts, prior=prior))
    v2 = values[perm] + float(shift)  # exact on the 1/1024 grid
    c2 = None if counts is None else counts[perm]
    p2 = None if prior is None else prior[perm]
    moved = np.asarray(di.worst_case_risk(v2, scale=scales, counts=c2, prior=p2))
    np.testing.assert_allclose(moved, base, rtol=1e-12)
    # posteriors move with the worlds
    R = values[0] + 0.25  # on the grid: R + shift is exact too
    P = np.asarray(di.posterior(values, response=R, scale=scales[2], counts=counts, prior=prior))
    P2 = np.asarray(di.posterior(v2, response=R + float(shift), scale=scales[2], counts=c2, prior=p2))
    np.testing.assert_allclose(P2, P[perm], rtol=1e-12, atol=1e-300)


# ---------------------------------------------------------------------------
# tight calibration
# ---------------------------------------------------------------------------

@SETTINGS
@given(problem(min_size=2), st.floats(0.001, 0.999))
def test_tight_scale_conservative_and_tight(prob, u):
    values, counts, prior = prob
    r0 = di.worst_case_risk(values, scale=0.0, counts=counts, prior=prior)
    rinf = di.worst_case_risk(values, scale=np.inf, counts=counts, prior=prior)
    assume(r0 > rinf * (1 + 1e-9))
    rho = rinf + u * (r0 - rinf)
    assume(rinf < rho < r0)
    ts = di.tight_scale(values, rho=rho, counts=counts, prior=prior)
    assert 0.0 < ts < np.inf
    assert di.worst_case_risk(values, scale=ts, counts=counts, prior=prior) <= rho
    # tight to the evaluation's error bound (the margin that proves the
    # exact risk meets rho, not only the rounded one)
    err = _worst_case.Risk(Worlds(values, counts, prior)).error
    below = di.worst_case_risk(values, scale=np.nextafter(ts, 0.0), counts=counts, prior=prior)
    assert below > np.nextafter(rho * (1 - err), 0)


unique_values = st.lists(st.floats(-1e4, 1e4, allow_nan=False, allow_subnormal=False),
                         min_size=2, max_size=25, unique=True).map(lambda xs: np.array(xs))


@SETTINGS
@given(unique_values, st.floats(0.001, 0.999))
def test_tight_epsilon_at_least_closed_form(values, u):
    m = values.size
    assume(np.unique(values).size == m and np.ptp(values) > 0)
    rho = 1.0 / m + u * (1.0 - 1.0 / m)
    assume(1.0 / m < rho < 1.0)
    te = di.tight_epsilon(values, rho=rho)
    closed = di.epsilon_for_rho(rho, m=m)
    # the tight scale meets rho lowered by its evaluation's error bound err:
    # an epsilon lower by up to err / (1 - rho) (the bound's slope), which is
    # large against epsilon itself near rho = 1/m
    err = _worst_case.Risk(Worlds(values)).error
    assert te >= closed * (1 - 1e-12) - 2.0 * err / (1.0 - rho)
    if m == 2:  # two worlds: every distance is S, the bound is exact
        assert te == pytest.approx(closed, rel=1e-9, abs=4.0 * err / (1.0 - rho))


@SETTINGS
@given(st.integers(2, 50), st.floats(-1e3, 1e3), st.floats(1e-3, 1e3), st.booleans(), st.floats(0.001, 0.999))
def test_one_outlier_attains_the_bound(m, b, gap, below, u):
    """f = [a, b, ..., b]: the outlier's risk 1/(1 + (m-1) e^{-S/lam}) is the
    bound itself, so the tight epsilon equals ln((m-1) rho / (1-rho))."""
    a = b - gap if below else b + gap
    values = np.array([a] + [b] * (m - 1))
    S = np.ptp(values)
    assume(S > 0)
    rho = 1.0 / m + u * (1.0 - 1.0 / m)
    assume(1.0 / m < rho < 1.0)
    closed = di.epsilon_for_rho(rho, m=m)
    assert di.tight_epsilon(values, rho=rho) == pytest.approx(closed, rel=1e-9)
    lam = di.scale_for_rho(rho, m=m, sensitive_range=S)
    risk, world = di.worst_case_risk(values, scale=lam, return_world=True)
    if m > 2:  # (for m = 2 both worlds tie)
        assert int(world) == 0
    assert risk == pytest.approx(rho, rel=1e-12)


def test_toy_median_bound_attained():
    """Paper sec. 4: median worlds [2,3,3,3,3,3,3,3], S = 1, rho = 1/3.

    rho*(lam) = max(1/(1 + 7 e^{-1/lam}), 1/(7 + e^{-1/lam})); the first (the
    world with median 2, seen at R = 2) is the bound of Theorem 1 itself, so
    at lam = 1/ln(7/2) the risk is exactly 1/3 and the tight epsilon equals
    the closed form ln(7/2)."""
    values = np.array([2.0, 3, 3, 3, 3, 3, 3, 3])
    rho = 1 / 3
    eps = math.log(3.5)
    assert di.epsilon_for_rho(rho, m=8) == pytest.approx(eps, rel=1e-12)
    assert di.tight_epsilon(values, rho=rho) == pytest.approx(eps, rel=1e-9)
    assert di.tight_scale(values, rho=rho) == pytest.approx(1 / eps, rel=1e-9)
    lam = di.scale_for_rho(rho, m=8, sensitive_range=1.0)
    risk, world = di.worst_case_risk(values, scale=lam, return_world=True)
    assert int(world) == 0 and risk == pytest.approx(1 / 3, rel=1e-12)
    assert di.disclosure_risk(values, response=2.0, scale=lam, world=0) == pytest.approx(1 / 3, rel=1e-12)
    # the worlds with median 3 are far safer: 1/(7 + 2/7)
    assert di.disclosure_risk(values, response=3.0, scale=lam, world=4) == pytest.approx(1 / (7 + 2 / 7), rel=1e-12)
    assert di.risk_bound(lam, m=8, sensitive_range=1.0) == pytest.approx(1 / 3, rel=1e-12)


def test_toy_mean_tight_epsilon_beats_bound():
    means = np.array([2, 8 / 3, 3, 10 / 3, 11 / 3, 4, 13 / 3, 14 / 3])
    te = di.tight_epsilon(means, rho=1 / 3)
    assert te == pytest.approx(2.249596594583695, rel=1e-12)
    closed = di.epsilon_for_rho(1 / 3, m=8)
    assert closed == pytest.approx(1.2527629684953678, rel=1e-12)
    assert te > closed
    risk, world = di.worst_case_risk(means, scale=di.tight_scale(means, rho=1 / 3), return_world=True)
    assert int(world) == 0 and risk <= 1 / 3 and risk == pytest.approx(1 / 3, rel=1e-12)
