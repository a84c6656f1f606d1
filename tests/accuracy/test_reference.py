"""Accuracy of diffident against the mpmath reference (diffident.testing.mpmath_reference).

Inputs are float64 and taken as exact; the reference evaluates the defining
formulas at 60 digits, so any difference is the library's own error.  The
target is relative 1e-12 everywhere it is meaningful:

* log_evidence: relative 1e-12, plus an absolute floor of a few ulps of the
  largest log-term (a log near 0 is ill-conditioned relative to its terms);
* posteriors / disclosure_risk: relative 1e-12 wherever the true value is
  above 1e-300 (not underflowed); below that the library must give ~0;
* log_posterior: absolute 1e-9 (plus 1e-15 relative, i.e. a few ulps, for
  values so large -- e.g. -1e12 -- that 1e-9 is below their ulp);
* worst_case_risk and the closed forms: relative 1e-12.

Hard regimes: scales 1e-6 of the spread of the values (clustered values so
that several posteriors stay non-negligible), responses 1e6 spreads away on
either side, a 1e6 common offset, 1e6 worlds with heavy repeats, counts and
priors with zero weights, a 2000 x 5000 response/world batch (sorted-sweep
path) and one response against >= 1e5 worlds (chunked parallel path).
"""

import numpy as np
import pytest
from mpmath import mpf

import diffident as di
from diffident._risk import worst_case as _worst_case
from diffident._worlds.values import Worlds
from diffident.testing import mpmath_reference as ref
from diffident.testing import tolerances
from diffident.testing.dense import dense_worst_case_risk

RTOL = tolerances.KERNEL
TINY = 1e-300  # posteriors below this are "underflowed"


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------

def fl(xs):
    return np.array([float(x) for x in xs], dtype=np.float64)


def weights(rng, m, kind):
    """(counts, prior) for a case kind."""
    if kind == "plain":
        return None, None
    if kind == "counts":
        return rng.integers(1, 6, size=m).astype(np.float64), None
    if kind == "prior":
        return None, rng.uniform(0.01, 3.0, size=m)
    if kind == "zeros":
        c = rng.integers(0, 4, size=m).astype(np.float64)
        p = rng.uniform(0.0, 2.0, size=m)
        p[rng.random(m) < 0.25] = 0.0
        c[0], p[0] = 2.0, 1.0  # at least one positive weight
        return c, p
    if kind == "bigcounts":  # multiplicities far beyond 2**53, and zeros
        c = np.round(10.0 ** rng.uniform(0.0, 18.0, size=m))
        c[rng.random(m) < 0.2] = 0.0
        c[0] = 3.0
        return c, rng.uniform(0.1, 2.0, size=m)
    raise AssertionError(kind)


def make_case(regime, seed, kind="plain"):
    """values, counts, prior, responses (1-d), scale (float)."""
    rng = np.random.default_rng(seed)
    if regime == "plain":
        m = int(rng.integers(1, 60))
        spread = 10.0 ** rng.uniform(-3, 3)
        values = rng.uniform(-1, 1, size=m) * spread + rng.normal() * spread
        pt = max(np.ptp(values), spread * 1e-3)
        scale = pt * 10.0 ** rng.uniform(-2, 1)
        responses = rng.uniform(values.min() - pt, values.max() + pt, size=8)
        responses = np.concatenate([responses, values[:3]])
    elif regime in ("tiny", "offset_tiny"):
        # clusters 1e6 scales apart; scale = 1e-6 of the spread
        ncl = int(rng.integers(2, 10))
        per = rng.integers(1, 8, size=ncl)
        centers = np.sort(rng.uniform(0.0, 1.0, size=ncl))
        centers = (centers - centers[0]) / max(centers[-1] - centers[0], 1e-3)
        scale = 1e-6
        values = np.concatenate([c + scale * rng.normal(0, 2.0, size=k) for c, k in zip(centers, per, strict=False)])
        if regime == "offset_tiny":
            values = values + 1e6
        values = rng.permutation(values)
        scale = 1e-6 * np.ptp(values)
        near = rng.choice(values, size=6) + scale * rng.uniform(-6, 6, size=6)
        gaps = rng.uniform(values.min() - 0.1, values.max() + 0.1, size=4)
        responses = np.concatenate([near, gaps, values[:2]])
    elif regime == "far":
        m = int(rng.integers(2, 60))
        values = rng.normal(size=m) * 3.0 + rng.normal() * 10
        pt = np.ptp(values)
        scale = pt * rng.uniform(0.1, 3.0)
        k = rng.uniform(0.5, 2.0, size=4) * 1e6 * pt
        responses = np.concatenate([values.min() - k, values.max() + k])
    elif regime == "far_tiny":
        m = int(rng.integers(2, 40))
        values = rng.normal(size=m)
        pt = np.ptp(values)
        scale = 1e-6 * pt
        k = rng.uniform(0.5, 2.0, size=3) * 1e6 * pt
        responses = np.concatenate([values.min() - k, values.max() + k])
    elif regime == "offset":
        m = int(rng.integers(2, 60))
        values = 1e6 + rng.uniform(0.0, 1.0, size=m)
        scale = rng.uniform(0.05, 2.0)
        responses = np.concatenate([1e6 + rng.uniform(-1.0, 2.0, size=8), values[:2]])
    else:
        raise AssertionError(regime)
    counts, prior = weights(rng, values.size, kind)
    return values, counts, prior, responses, float(scale)


def logterm_scale(values, counts, prior, R, s):
    """max |log-term| (log(c pi) - |R - f| / s) among the dominant terms: the
    absolute error floor of any float64 log-sum-exp."""
    f = np.asarray(values, dtype=np.float64)
    c = np.ones_like(f) if counts is None else np.asarray(counts, dtype=np.float64)
    p = np.ones_like(f) if prior is None else np.asarray(prior, dtype=np.float64)
    w = c * p
    k = w > 0
    a = np.abs(np.log(w[k])) + np.abs(R - f[k]) / s
    return float(a.min() + 50.0)


def assert_log_posterior(lib_row, ref_row, keep=None):
    """lib_row: float64 array; ref_row: list of mpf; keep: optional mask of
    the entries to compare."""
    if keep is not None:
        lib_row = lib_row[keep]
        ref_row = [x for x, k in zip(ref_row, keep, strict=False) if k]
    r = fl(ref_row)
    inf = np.isneginf(r)
    assert np.array_equal(np.isneginf(lib_row), inf), (lib_row, r)
    np.testing.assert_allclose(lib_row[~inf], r[~inf], rtol=1e-15, atol=1e-9)
    # non-underflowed posteriors to relative 1e-12
    P = np.array([float(ref.mp.exp(x)) if x > -1e300 else 0.0 for x in ref_row])
    ok = P > TINY
    with np.errstate(over="ignore"):  # a zero-count entry's posterior may exceed 1e308
        np.testing.assert_allclose(np.exp(lib_row[ok]), P[ok], rtol=RTOL, atol=0)


def check_posteriors(values, counts, prior, responses, scale, worlds=None):
    """Library vs reference for every response (and the given worlds)."""
    lib_le = np.asarray(di.log_evidence(values, response=responses, scale=scale, counts=counts, prior=prior))
    lib_lp = np.asarray(di.log_posterior(values, response=responses, scale=scale, counts=counts, prior=prior))
    lib_p = np.asarray(di.posterior(values, response=responses, scale=scale, counts=counts, prior=prior))
    m = len(values)
    assert lib_le.shape == np.shape(responses)
    assert lib_lp.shape == np.shape(responses) + (m,)
    assert lib_p.shape == lib_lp.shape
    cols = np.arange(m) if worlds is None else np.asarray(worlds)
    # zero-count entries (no world in the group) follow a convention of their
    # own, tested separately in test_zero_count_entry_posterior
    keep = np.ones(cols.size, bool) if counts is None else np.asarray(counts)[cols] > 0
    for i, R in enumerate(responses):
        le = ref.log_evidence(values, response=R, scale=scale, counts=counts, prior=prior)
        tol = RTOL * abs(float(le)) + 4e-16 * logterm_scale(values, counts, prior, R, scale)
        assert abs(lib_le[i] - float(le)) <= tol, (R, lib_le[i], float(le))
        lp = ref.log_posterior(values, response=R, scale=scale, counts=counts, prior=prior, worlds=cols)
        assert_log_posterior(lib_lp[i, cols], lp, keep)
        P = fl([ref.mp.exp(x) for x in lp])
        ok = (P > TINY) & keep
        low = (P <= TINY) & keep
        np.testing.assert_allclose(lib_p[i, cols][ok], P[ok], rtol=RTOL, atol=0)
        assert np.all(lib_p[i, cols][low] <= 1e-299)
        # disclosure_risk with an int-array world argument
        dr = np.asarray(di.disclosure_risk(values, response=R, scale=scale, world=cols, counts=counts, prior=prior))
        assert dr.shape == cols.shape
        np.testing.assert_allclose(dr[ok], P[ok], rtol=RTOL, atol=0)
        assert np.all(dr[low] <= 1e-299)


REGIMES = ["plain", "tiny", "offset_tiny", "far", "far_tiny", "offset"]
KINDS = ["plain", "counts", "prior", "zeros", "bigcounts"]


# ---------------------------------------------------------------------------
# posteriors
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("regime", REGIMES)
@pytest.mark.parametrize("kind", KINDS)
def test_posteriors_regimes(regime, kind):
    for seed in range(2):
        values, counts, prior, responses, scale = make_case(
            regime, 1000 * REGIMES.index(regime) + 10 * KINDS.index(kind) + seed, kind)
        check_posteriors(values, counts, prior, responses, scale)


def test_paper_section_2_check_value():
    # worlds {1,2,3,4}, {1,2,3,5}, {1,2,3,10}, f = mean, Laplace scale (9/4)/2
    vals = np.array([2.5, 2.75, 4.0])
    got = di.disclosure_risk(vals, response=5.041, scale=(9 / 4) / 2, world=2)
    assert isinstance(got, float)
    assert got == pytest.approx(float(ref.disclosure_risk(vals, response=5.041, scale=9 / 8, world=2)), rel=RTOL)
    assert got == pytest.approx(0.6278, abs=5e-5)


def test_scalar_single_world_and_ties():
    # one world: posterior exactly 1, evidence -|R - f|/scale
    assert di.disclosure_risk([3.0], response=7.0, scale=2.0) == pytest.approx(1.0, rel=RTOL)
    assert di.log_evidence([3.0], response=7.0, scale=2.0) == pytest.approx(-2.0, rel=RTOL)
    # response exactly midway: the two worlds tie at 1/2
    p = np.asarray(di.posterior([0.0, 1.0], response=0.5, scale=0.1))
    np.testing.assert_allclose(p, [0.5, 0.5], rtol=RTOL)


def test_zero_count_entry_posterior():
    """An entry with c_j = 0 is not a possible world (docs/engine.md): its
    posterior is 0 (log -inf), like an entry of zero prior; the other
    entries match the reference."""
    values = np.array([0.0, 1.0, 2.5, 4.0])
    counts = np.array([1.0, 0.0, 2.0, 1.0])
    prior = np.array([1.0, 0.7, 0.0, 2.0])
    R, scale = 1.2, 0.8
    lp = np.asarray(di.log_posterior(values, response=R, scale=scale, counts=counts, prior=prior))
    r = ref.log_posterior(values, response=R, scale=scale, counts=counts, prior=prior)
    assert np.isneginf(lp[2]) and np.isneginf(float(r[2]))
    assert np.isneginf(lp[1])
    np.testing.assert_allclose(lp[[0, 3]], fl([r[0], r[3]]), rtol=RTOL)
    assert di.disclosure_risk(values, response=R, scale=scale, world=1, counts=counts, prior=prior) == 0.0
    assert di.disclosure_risk(values, response=R, scale=scale, world=3, counts=counts, prior=prior) == pytest.approx(
        float(ref.disclosure_risk(values, response=R, scale=scale, world=3, counts=counts, prior=prior)), rel=RTOL)


def test_broadcasting_response_scale_world():
    rng = np.random.default_rng(7)
    values = rng.normal(size=25)
    counts = rng.integers(1, 4, size=25).astype(float)
    R = rng.normal(size=(3, 1))
    S = np.array([0.05, 0.3, 1.0, 4.0])
    lp = np.asarray(di.log_posterior(values, response=R, scale=S, counts=counts))
    le = np.asarray(di.log_evidence(values, response=R, scale=S, counts=counts))
    assert lp.shape == (3, 4, 25) and le.shape == (3, 4)
    world = np.array([0, 7, 24, 3])
    dr = np.asarray(di.disclosure_risk(values, response=R, scale=S, world=world, counts=counts))
    assert dr.shape == (3, 4)
    for i in range(3):
        for k in range(4):
            r_le = ref.log_evidence(values, response=R[i, 0], scale=S[k], counts=counts)
            assert le[i, k] == pytest.approx(float(r_le), rel=RTOL, abs=1e-14)
            r_lp = ref.log_posterior(values, response=R[i, 0], scale=S[k], counts=counts)
            assert_log_posterior(lp[i, k], r_lp)
            assert dr[i, k] == pytest.approx(float(ref.mp.exp(r_lp[world[k]])), rel=RTOL)


def test_million_worlds_heavy_repeats_posteriors():
    rng = np.random.default_rng(11)
    distinct = rng.normal(size=200) * 5.0
    pdist = rng.uniform(0.2, 2.0, size=200)
    idx = rng.integers(0, 200, size=1_000_000)
    values = distinct[idx]
    prior = pdist[idx]
    counts = rng.integers(1, 4, size=values.size).astype(np.float64)
    # the reference runs on the merged problem (exact: equal terms summed)
    fu, cu, pu, inv = ref.merge(values, counts, prior)
    assert fu.size == 200 and cu.sum() == counts.sum()
    responses = np.array([-30.0, -2.3, 0.1, 4.7, 1e7])
    worlds = np.concatenate([rng.integers(0, values.size, size=30), [int(np.argmin(np.abs(values - 0.1)))]])
    for scale in (0.01, 1.5):
        le = np.asarray(di.log_evidence(values, response=responses, scale=scale, counts=counts, prior=prior))
        dr = np.asarray(di.disclosure_risk(values, response=responses[:, None], scale=scale, world=worlds[None, :],
                                           counts=counts, prior=prior))
        assert dr.shape == (responses.size, worlds.size)
        for i, R in enumerate(responses):
            r = ref.log_evidence(fu, response=R, scale=scale, counts=cu, prior=pu)
            assert le[i] == pytest.approx(float(r), rel=RTOL, abs=1e-13)
            P = fl(ref.posterior(fu, response=R, scale=scale, counts=cu, prior=pu, worlds=inv[worlds]))
            ok = P > TINY
            assert ok.any()
            np.testing.assert_allclose(dr[i][ok], P[ok], rtol=RTOL, atol=0)
            assert np.all(dr[i][~ok] <= 1e-299)


def test_many_responses_one_scale_sweep_path():
    """2000 responses x 5000 worlds at one scale; reference on a subsample."""
    rng = np.random.default_rng(21)
    m, G = 5000, 2000
    values = rng.normal(size=m) * 20.0
    counts = rng.integers(0, 3, size=m).astype(np.float64)
    counts[0] = 1.0
    prior = rng.uniform(0.0, 1.0, size=m)
    responses = np.concatenate([rng.uniform(-80, 80, size=G - 4), [-1e8, 1e8, values[5], values[9]]])
    rng.shuffle(responses)
    scale = 0.7
    le = np.asarray(di.log_evidence(values, response=responses, scale=scale, counts=counts, prior=prior))
    lp = np.asarray(di.log_posterior(values, response=responses, scale=scale, counts=counts, prior=prior))
    assert le.shape == (G,) and lp.shape == (G, m)
    pick = np.concatenate([rng.choice(G, size=12, replace=False),
                           np.flatnonzero(np.abs(responses) >= 1e8)])
    worlds = rng.choice(np.flatnonzero(counts > 0), size=40, replace=False)
    for i in pick:
        R = responses[i]
        r_lp = ref.log_posterior(values, response=R, scale=scale, counts=counts, prior=prior, worlds=worlds)
        r_le = ref.log_evidence(values, response=R, scale=scale, counts=counts, prior=prior)
        assert le[i] == pytest.approx(float(r_le), rel=RTOL)
        assert_log_posterior(lp[i, worlds], r_lp)
    # the whole batch is self-consistent: sum_j c_j P_j = 1 for every response
    tot = (np.exp(lp) * counts).sum(axis=1)
    np.testing.assert_allclose(tot, 1.0, rtol=1e-12)


def test_single_response_many_worlds_parallel_path():
    rng = np.random.default_rng(31)
    m = 150_000
    values = rng.normal(size=m) * 100.0
    counts = rng.integers(1, 3, size=m).astype(np.float64)
    prior = rng.uniform(0.5, 1.5, size=m)
    R, scale = 12.34, 3.0
    le = di.log_evidence(values, response=R, scale=scale, counts=counts, prior=prior)
    assert isinstance(le, float)
    worlds = np.concatenate([rng.choice(m, size=40, replace=False), [int(np.argmin(np.abs(values - R)))]])
    lp = np.asarray(di.log_posterior(values, response=R, scale=scale, counts=counts, prior=prior))
    assert lp.shape == (m,)
    r_lp = ref.log_posterior(values, response=R, scale=scale, counts=counts, prior=prior, worlds=worlds)
    assert_log_posterior(lp[worlds], r_lp)
    # log evidence follows from any one world's log posterior
    j = worlds[-1]
    r_le = (ref.mp.log(ref.mpf(float(prior[j]))) - abs(ref.mpf(R) - ref.mpf(float(values[j]))) / ref.mpf(scale)
            - r_lp[-1])
    assert le == pytest.approx(float(r_le), rel=RTOL)
    dr = np.asarray(di.disclosure_risk(values, response=R, scale=scale, world=worlds, counts=counts, prior=prior))
    np.testing.assert_allclose(dr, fl([ref.mp.exp(x) for x in r_lp]), rtol=RTOL)


# ---------------------------------------------------------------------------
# worst-case risk
# ---------------------------------------------------------------------------

def check_worst_case(values, scales, counts=None, prior=None, worlds=None):
    """Library worst_case_risk (array of scales) vs reference, full or on a subset."""
    scales = np.asarray(scales, dtype=np.float64)
    risk, world = di.worst_case_risk(values, scale=scales, counts=counts, prior=prior, return_world=True)
    risk, world = np.asarray(risk), np.asarray(world)
    assert risk.shape == scales.shape and world.shape == scales.shape
    assert world.dtype == np.int64
    for idx in np.ndindex(scales.shape):
        s = float(scales[idx])
        j = int(world[idx])
        sub = None if worlds is None else sorted(set(int(w) for w in worlds) | {j})
        r = ref.world_risks(values, scale=s, counts=counts, prior=prior, worlds=sub)
        assert j in r, "returned world has zero weight"
        best = max(r.values())
        # the returned world is a worst one, and its risk is the value returned
        assert float(r[j]) == pytest.approx(float(best), rel=RTOL)
        assert risk[idx] == pytest.approx(float(r[j]), rel=RTOL)
        if worlds is None:
            assert risk[idx] == pytest.approx(float(ref.worst_case_risk(values, scale=s, counts=counts,
                                                                        prior=prior)[0]), rel=RTOL)


@pytest.mark.parametrize("kind", KINDS)
def test_worst_case_regimes(kind):
    rng = np.random.default_rng(100 + KINDS.index(kind))
    # plain, a range of scales (any shape)
    values = rng.normal(size=80) * 7.0
    counts, prior = weights(rng, 80, kind)
    scales = np.ptp(values) * 10.0 ** rng.uniform(-3, 1, size=(2, 3))
    check_worst_case(values, scales, counts, prior)
    # tiny scale, clustered values; and the same with a 1e6 offset
    values, counts, prior, _, scale = make_case("tiny", 200 + KINDS.index(kind), kind)
    check_worst_case(values, [scale, 3 * scale, 0.3 * scale], counts, prior)
    check_worst_case(values + 1e6, [scale, 5 * scale], counts, prior)
    # common offset, moderate scales
    values, counts, prior, _, _ = make_case("offset", 300 + KINDS.index(kind), kind)
    check_worst_case(values, [1e-6, 0.01, 0.2, 3.0], counts, prior)


def test_worst_case_limits():
    rng = np.random.default_rng(5)
    values = np.round(rng.normal(size=40), 1)  # many exact repeats
    counts = rng.integers(0, 4, size=40).astype(float)
    counts[0] = 1
    prior = rng.uniform(0, 1, size=40)
    for c, p in [(None, None), (counts, None), (None, prior), (counts, prior)]:
        got = np.asarray(di.worst_case_risk(values, scale=np.array([0.0, np.inf]), counts=c, prior=p))
        r0 = ref.worst_case_risk(values, scale=0.0, counts=c, prior=p)[0]
        rinf = ref.worst_case_risk(values, scale=np.inf, counts=c, prior=p)[0]
        np.testing.assert_allclose(got, [float(r0), float(rinf)], rtol=RTOL)
        assert got[0] <= 1.0  # positive counts here are integers >= 1
        # scale = inf is max(pi)/sum(c pi)
        cc = np.ones(40) if c is None else c
        pp = np.ones(40) if p is None else p
        assert got[1] == pytest.approx(pp[cc * pp > 0].max() / np.sum(cc * pp), rel=RTOL)
    assert di.worst_case_risk([1.0, 2.0, 3.0], scale=np.inf) == pytest.approx(1 / 3, rel=RTOL)
    assert di.worst_case_risk([1.0, 2.0, 2.0], scale=0.0) == pytest.approx(1.0, rel=RTOL)


def test_worst_case_million_heavy_repeats():
    rng = np.random.default_rng(41)
    distinct = np.sort(rng.normal(size=200)) * 3.0
    pdist = rng.uniform(0.1, 1.0, size=200)
    idx = rng.integers(0, 200, size=1_000_000)
    values, prior = distinct[idx], pdist[idx]
    counts = rng.integers(0, 3, size=values.size).astype(np.float64)
    scales = np.array([1e-4, 0.02, 0.5])
    for c, p in [(None, None), (counts, prior)]:
        fu, cu, pu, inv = ref.merge(values, c, p)
        risk, world = di.worst_case_risk(values, scale=scales, counts=c, prior=p, return_world=True)
        for k, s in enumerate(scales):
            r = ref.world_risks(fu, scale=s, counts=cu, prior=pu)
            best = max(r.values())
            assert risk[k] == pytest.approx(float(best), rel=RTOL)
            assert float(r[int(inv[world[k]])]) == pytest.approx(float(best), rel=RTOL)
            assert (1.0 if c is None else c[world[k]]) > 0


def test_worst_case_large_m_subsampled_and_dense():
    """5000 distinct worlds: reference on a subsample plus the returned world;
    the dense float64 formula on all of them."""
    rng = np.random.default_rng(51)
    m = 5000
    values = rng.standard_t(3, size=m) * 4.0
    counts = rng.integers(1, 4, size=m).astype(np.float64)
    prior = rng.uniform(0.2, 1.0, size=m)
    scales = np.array([1e-3, 0.1, 2.0])
    sub = rng.choice(m, size=6, replace=False)
    risk, world = di.worst_case_risk(values, scale=scales, counts=counts, prior=prior, return_world=True)
    for k, s in enumerate(scales):
        r = ref.world_risks(values, scale=s, counts=counts, prior=prior, worlds=list(sub) + [int(world[k])])
        assert risk[k] == pytest.approx(float(r[int(world[k])]), rel=RTOL)
        assert all(risk[k] >= float(v) * (1 - RTOL) for v in r.values())
        dense = dense_worst_case_risk(values, scale=s, counts=counts, prior=prior)
        assert risk[k] == pytest.approx(dense, rel=RTOL)


@pytest.mark.parametrize("seed", range(4))
def test_worst_case_equals_dense_float64(seed):
    rng = np.random.default_rng(60 + seed)
    m = int(rng.integers(2, 1500))
    values = rng.normal(size=m) * 10.0 ** rng.uniform(-2, 2) + (1e6 if seed == 3 else 0.0)
    kind = KINDS[seed % len(KINDS) + 1] if seed else "plain"
    counts, prior = weights(rng, m, kind)
    pt = np.ptp(values)
    scales = pt * np.array([1e-6, 1e-3, 0.05, 1.0, 30.0])
    risk = np.asarray(di.worst_case_risk(values, scale=scales, counts=counts, prior=prior))
    dense = np.array([dense_worst_case_risk(values, scale=s, counts=counts, prior=prior) for s in scales])
    np.testing.assert_allclose(risk, dense, rtol=RTOL, atol=0)


@pytest.mark.parametrize("seed", range(3))
def test_worst_case_brute_force_over_responses(seed):
    """max over a response grid containing every world value of the
    disclosure risk of every world equals worst_case_risk (attained at R = f_j)."""
    rng = np.random.default_rng(70 + seed)
    m = 30
    values = np.round(rng.normal(size=m) * 3.0, 2)
    counts, prior = weights(rng, m, ["plain", "counts", "zeros"][seed])
    grid = np.unique(np.concatenate([values, np.linspace(values.min() - 5, values.max() + 5, 3001)]))
    world = np.arange(m)
    c = np.ones(m) if counts is None else counts
    p = np.ones(m) if prior is None else prior
    active = c * p > 0
    for scale in (0.05, 0.8, 6.0):
        dr = np.asarray(di.disclosure_risk(values, response=grid[:, None], scale=scale, world=world[None, :],
                                           counts=counts, prior=prior))
        assert dr.shape == (grid.size, m)
        brute = dr[:, active].max()
        wcr = di.worst_case_risk(values, scale=scale, counts=counts, prior=prior)
        assert wcr == pytest.approx(brute, rel=RTOL)
        assert wcr == pytest.approx(float(ref.worst_case_risk(values, scale=scale, counts=counts, prior=prior)[0]),
                                    rel=RTOL)
        # nowhere on the grid does a world's posterior exceed the worst case
        assert np.all(dr[:, active] <= wcr * (1 + RTOL))


# ---------------------------------------------------------------------------
# tight calibration
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["plain", "counts", "prior", "zeros"])
def test_tight_scale_conservative_and_tight(kind):
    rng = np.random.default_rng(80 + ["plain", "counts", "prior", "zeros"].index(kind))
    m = 40
    values = rng.normal(size=m) * 5.0
    counts, prior = weights(rng, m, kind)
    r0 = di.worst_case_risk(values, scale=0.0, counts=counts, prior=prior)
    rinf = di.worst_case_risk(values, scale=np.inf, counts=counts, prior=prior)
    inner = np.exp(rng.uniform(np.log(rinf), np.log(r0), size=(3, 4)))
    rho = inner.copy()
    rho[0, 0] = 1.0  # >= rho*(0) (integer counts: rho*(0) = 1/min c <= 1) -> 0
    rho[0, 1] = min(1.0, r0)  # -> 0
    rho[0, 2] = rinf  # -> inf
    rho[0, 3] = rinf * 0.5  # -> inf
    ts = np.asarray(di.tight_scale(values, rho=rho, counts=counts, prior=prior))
    assert ts.shape == rho.shape
    assert ts[0, 0] == 0.0 and ts[0, 1] == 0.0
    assert ts[0, 2] == np.inf and ts[0, 3] == np.inf
    fin = np.isfinite(ts) & (ts > 0)
    assert fin.sum() == 8
    # conservative, exactly as the library computes the risk
    w = np.asarray(di.worst_case_risk(values, scale=ts, counts=counts, prior=prior))
    assert np.all(w[fin] <= rho[fin])
    # tight to the evaluation's error bound: one float lower fails rho
    # lowered by that bound (the margin that makes the exact risk pass)
    err = _worst_case.Risk(Worlds(values, counts, prior)).error
    below = np.asarray(di.worst_case_risk(values, scale=np.nextafter(ts[fin], 0), counts=counts, prior=prior))
    assert np.all(below > np.nextafter(rho[fin] * (1 - err), 0))
    # against the reference: rho*(ts) <= rho exactly (60 digits); the float
    # below is within the bound of failing
    for s, r in list(zip(ts[fin], rho[fin], strict=False))[:4]:
        assert ref.worst_case_risk(values, scale=s, counts=counts, prior=prior)[0] <= mpf(float(r))
        assert float(ref.worst_case_risk(values, scale=np.nextafter(s, 0), counts=counts,
                                         prior=prior)[0]) >= r * (1 - RTOL)
    # tight_epsilon = ptp / tight_scale (over positive-weight worlds)
    te = np.asarray(di.tight_epsilon(values, rho=rho, counts=counts, prior=prior))
    c = np.ones(m) if counts is None else counts
    p = np.ones(m) if prior is None else prior
    pt = np.ptp(values[c * p > 0])
    np.testing.assert_allclose(te[fin], pt / ts[fin], rtol=1e-15)
    assert te[0, 0] == np.inf and te[0, 2] == 0.0


def test_tight_scale_rtol():
    rng = np.random.default_rng(91)
    values = rng.normal(size=300)
    rho = np.array([0.01, 0.05, 0.2, 0.6])
    rtol = 1e-6
    ts = np.asarray(di.tight_scale(values, rho=rho, rtol=rtol))
    exact = np.asarray(di.tight_scale(values, rho=rho))
    assert np.all(ts >= exact)
    assert np.all(ts <= exact * (1 + rtol) * (1 + 1e-15))
    assert np.all(np.asarray(di.worst_case_risk(values, scale=ts)) <= rho)


def test_tight_scale_matches_reference_bisection():
    # toy mean of the paper (Mathematics page, section 5): eps = 2.249596594583695 at rho = 1/3
    means = np.array([2, 8 / 3, 3, 10 / 3, 11 / 3, 4, 13 / 3, 14 / 3])
    ts = di.tight_scale(means, rho=1 / 3)
    r = ref.tight_scale(means, rho=1 / 3)
    assert ts == pytest.approx(float(r), rel=RTOL)
    assert di.tight_epsilon(means, rho=1 / 3) == pytest.approx(2.249596594583695, rel=1e-12)
    # with counts and prior
    rng = np.random.default_rng(92)
    values = rng.normal(size=12)
    counts = rng.integers(1, 3, size=12).astype(float)
    prior = rng.uniform(0.5, 1.0, size=12)
    for rho in (0.1, 0.3):
        got = di.tight_scale(values, rho=rho, counts=counts, prior=prior)
        assert got == pytest.approx(float(ref.tight_scale(values, rho=rho, counts=counts, prior=prior,
                                                          iterations=120)), rel=1e-12)


# ---------------------------------------------------------------------------
# closed forms
# ---------------------------------------------------------------------------

def test_closed_forms_random():
    rng = np.random.default_rng(7)
    n = 200
    m = np.floor(10.0 ** rng.uniform(0.31, 6, size=n))  # m >= 2
    # rho in (1/m, 1) with epsilon >= 0.01 (ln near 1 is ill-conditioned)
    eps_true = 10.0 ** rng.uniform(-2, 1.5, size=n)
    rho = 1.0 / (1.0 + (m - 1) * np.exp(-eps_true))
    S = 10.0 ** rng.uniform(-3, 3, size=n)
    lam = 10.0 ** rng.uniform(-3, 3, size=n)
    e = np.asarray(di.epsilon_for_rho(rho, m=m))
    sc = np.asarray(di.scale_for_rho(rho, m=m, sensitive_range=S))
    rf = np.asarray(di.rho_for_epsilon(eps_true, m=m))
    rb = np.asarray(di.risk_bound(lam, m=m, sensitive_range=S))
    for i in range(n):
        assert e[i] == pytest.approx(float(ref.epsilon_for_rho(rho[i], m=m[i])), rel=RTOL)
        assert sc[i] == pytest.approx(float(ref.scale_for_rho(rho[i], m=m[i], sensitive_range=S[i])), rel=RTOL)
        assert rf[i] == pytest.approx(float(ref.rho_for_epsilon(eps_true[i], m=m[i])), rel=RTOL)
        assert rb[i] == pytest.approx(float(ref.risk_bound(lam[i], m=m[i], sensitive_range=S[i])), rel=RTOL)
    # conservative round trips, as computed in float64
    assert np.all(np.asarray(di.risk_bound(sc, m=m, sensitive_range=S)) <= rho)
    assert np.all(np.asarray(di.rho_for_epsilon(e, m=m)) <= rho)
    np.testing.assert_allclose(np.asarray(di.min_rho(m)), 1.0 / m, rtol=RTOL)


def test_closed_forms_edges_and_paper_values():
    # (1/8 is exact in binary; 0.1 is not: fl(0.1) > 1/10)
    assert di.epsilon_for_rho(1.0, m=8) == np.inf
    assert di.epsilon_for_rho(0.125, m=8) == 0.0
    assert di.epsilon_for_rho(0.0625, m=8) == 0.0
    assert di.scale_for_rho(1.0, m=8, sensitive_range=2.0) == 0.0
    assert di.scale_for_rho(0.125, m=8, sensitive_range=2.0) == np.inf
    assert di.scale_for_rho(0.125, m=8, sensitive_range=0.0) == 0.0
    assert di.scale_for_rho(0.5, m=8, sensitive_range=0.0) == 0.0
    assert di.scale_for_rho(0.0625, m=8, sensitive_range=0.0) == np.inf
    # one ulp above 1/m: epsilon ~ 2.5e-16 must not collapse to 0 or to rounding
    # noise (a naive ln((m-1) rho / (1-rho)) gets it wrong by ~100%); the
    # conservative nudge may legitimately lower it by a few percent here
    r = np.nextafter(0.125, 1.0)
    assert di.epsilon_for_rho(r, m=8) == pytest.approx(float(ref.epsilon_for_rho(r, m=8)), rel=0.1)
    assert di.scale_for_rho(r, m=8,
                            sensitive_range=1.0) == pytest.approx(float(ref.scale_for_rho(r, m=8,
                                                                                          sensitive_range=1.0)),
                                                                  rel=0.1)
    assert di.rho_for_epsilon(np.inf, m=10) == 1.0
    assert di.rho_for_epsilon(0.0, m=10) == pytest.approx(0.1, rel=RTOL)
    assert di.risk_bound(0.0, m=10, sensitive_range=1.0) == 1.0
    assert di.risk_bound(np.inf, m=10, sensitive_range=1.0) == pytest.approx(0.1, rel=RTOL)
    # Mathematics page, section 3: check values
    assert di.scale_for_rho(1 / 3, m=8, sensitive_range=8 / 3) == pytest.approx(2.128628267061142, rel=RTOL)
    assert di.epsilon_for_rho(1 / 3, m=8) == pytest.approx(1.2527629684953678, rel=RTOL)
    assert di.scale_for_rho(0.1, m=99, sensitive_range=98 / 48842) == pytest.approx(8.403207231434116e-4, rel=RTOL)
    means = np.array([2, 8 / 3, 3, 10 / 3, 11 / 3, 4, 13 / 3, 14 / 3])
    lam = di.scale_for_rho(1 / 3, m=8, sensitive_range=8 / 3)
    assert di.disclosure_risk(means, response=2.0, scale=lam, world=0) == pytest.approx(0.22943826951692214, rel=RTOL)
    # Figure 3: capital-gain eps at rho = 0.5 / 8^k
    eps = np.asarray(di.epsilon_for_rho(0.5 / 8.0 ** np.arange(6), m=100000))
    np.testing.assert_allclose(eps, [11.513, 8.805, 6.669, 4.582, 2.502, 0.423], atol=6e-4)
    for k in range(6):
        assert eps[k] == pytest.approx(float(ref.epsilon_for_rho(0.5 / 8.0 ** k, m=100000)), rel=RTOL)
    # effective worlds
    pr = np.array([0.5, 1.0, 0.25, 0.25])
    assert di.effective_worlds(pr) == pytest.approx(2.0, rel=RTOL)
