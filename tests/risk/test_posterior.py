"""Posteriors over possible worlds (Mathematics page, section 2)."""

import numpy as np
import pytest

import diffident as di
from diffident._risk import posterior as _posterior
from diffident.testing.dense import dense_log_evidence, dense_posterior

TOY = np.array([2, 8 / 3, 3, 10 / 3, 11 / 3, 4, 13 / 3, 14 / 3])


def test_paper_section_3_5_example():
    # worlds {1,2,3,4}, {1,2,3,5}, {1,2,3,10}; f = mean; eps = 2; scale (9/4)/2
    means = np.array([10, 11, 16]) / 4
    lam = (9 / 4) / 2
    post = di.posterior(means, response=5.041, scale=lam)
    assert round(post[2], 4) == 0.6278
    # the paper's likelihoods carry the Laplace density's 1/(2 scale)
    lik = np.exp(-np.abs(5.041 - means) / lam) / (2 * lam)
    np.testing.assert_array_equal(np.round(lik, 4), [0.0464, 0.0580, 0.1762])
    assert di.disclosure_risk(means, response=5.041, scale=lam, world=2) == pytest.approx(post[2], rel=1e-15)
    ev = di.log_evidence(means, response=5.041, scale=lam)
    assert ev == pytest.approx(dense_log_evidence(means, response=5.041, scale=lam), rel=1e-15)


def test_toy_example_risk_at_r_2():
    lam = di.scale_for_rho(1 / 3, m=8, sensitive_range=8 / 3)
    assert di.disclosure_risk(TOY, response=2.0, scale=2.128628267061142) == pytest.approx(0.22943826951692214,
                                                                                           rel=1e-15)
    assert di.disclosure_risk(TOY, response=2.0, scale=lam) < 1 / 3


def test_shapes_and_scalars():
    v = np.arange(5.0)
    R = np.linspace(-1, 5, 6).reshape(2, 3)
    lam = np.array([0.5, 1.0, 2.0])
    assert di.log_posterior(v, response=R, scale=lam).shape == (2, 3, 5)
    assert di.log_evidence(v, response=R, scale=lam).shape == (2, 3)
    assert di.disclosure_risk(v, response=R, scale=lam).shape == (2, 3)
    assert di.disclosure_risk(v, response=R[..., None, None], scale=lam[:, None], world=[0, 4]).shape == (2, 3, 3, 2)
    assert isinstance(di.log_evidence(v, response=1.0, scale=1.0), float)
    assert isinstance(di.disclosure_risk(v, response=1.0, scale=1.0), float)
    assert di.posterior(v, response=1.0, scale=1.0).shape == (5,)


def test_posterior_matches_direct_formula_and_sums_to_one():
    rng = np.random.default_rng(3)
    v = rng.normal(size=50)
    R = rng.normal(size=7) * 3
    lam = 10 ** rng.uniform(-1, 1, 7)
    post = di.posterior(v, response=R, scale=lam)
    ref = np.concatenate([dense_posterior(v, response=r, scale=s) for r, s in zip(R, lam, strict=False)])
    np.testing.assert_allclose(post, ref, rtol=1e-13, atol=1e-300)
    np.testing.assert_allclose(post.sum(-1), 1.0, rtol=1e-14)
    for w in (0, 17, 49, -1):
        np.testing.assert_allclose(di.disclosure_risk(v, response=R, scale=lam, world=w), post[:, w], rtol=1e-13)


def test_far_responses_do_not_underflow():
    # every raw likelihood underflows to 0 here; the posterior must not be 0/0
    v = np.array([0.0, 1.0, 2.0])
    post = di.posterior(v, response=1e6, scale=1e-3)
    np.testing.assert_allclose(post, [0.0, 0.0, 1.0], atol=1e-300)
    assert np.all(np.isfinite(di.log_posterior(v, response=-1e6, scale=1e-3)))
    assert di.log_evidence(v, response=1e6, scale=1e-3) == pytest.approx(-(1e6 - 2.0) / 1e-3, rel=1e-15)
    # the shift cancels exactly: relative posteriors are exact at any distance
    p = di.posterior(v, response=1e9, scale=0.5)
    r = np.exp(-np.array([4.0, 2.0, 0.0]))
    np.testing.assert_allclose(p, r / r.sum(), rtol=1e-14)


def test_counts_equal_repeated_values():
    rng = np.random.default_rng(5)
    v = rng.integers(0, 6, 40).astype(float)
    u, c = np.unique(v, return_counts=True)
    R = rng.normal(size=9) * 3 + 2
    lam = 0.7
    np.testing.assert_allclose(di.log_evidence(u, response=R, scale=lam, counts=c),
                               di.log_evidence(v, response=R, scale=lam), rtol=1e-14)
    # per-world posterior: every copy of a value has the same posterior
    full = di.posterior(v, response=R, scale=lam)
    grouped = di.posterior(u, response=R, scale=lam, counts=c)
    for j, x in enumerate(u):
        np.testing.assert_allclose(full[:, v == x], np.repeat(grouped[:, j:j + 1], c[j], axis=1), rtol=1e-13)
    np.testing.assert_allclose((grouped * c).sum(-1), 1.0, rtol=1e-14)


def test_prior_weights():
    v = np.array([0.0, 1.0, 3.0])
    pri = np.array([1.0, 2.0, 0.0])
    R, lam = 0.4, 0.8
    want = dense_posterior(v, response=R, scale=lam, prior=pri)[0]
    np.testing.assert_allclose(di.posterior(v, response=R, scale=lam, prior=pri), want, rtol=1e-14)
    assert di.log_evidence(v, response=R, scale=lam,
                           prior=pri) == pytest.approx(dense_log_evidence(v, response=R, scale=lam, prior=pri),
                                                       rel=1e-14)
    assert di.log_posterior(v, response=R, scale=lam, prior=pri)[2] == -np.inf
    assert di.disclosure_risk(v, response=R, scale=lam, prior=pri, world=2) == 0.0
    # scaling the prior changes only the evidence
    np.testing.assert_allclose(di.posterior(v, response=R, scale=lam, prior=pri * 1e-200), want, rtol=1e-14)


def test_sweep_path_equals_direct_path(monkeypatch):
    rng = np.random.default_rng(11)
    v = np.round(rng.normal(size=3000), 2)
    c = rng.integers(0, 4, v.size).astype(float)
    c[0] = 1
    pri = rng.uniform(0.1, 1, v.size)
    R = np.concatenate([rng.normal(size=3000) * 2, [-1e5, 1e5, v.min(), v.max()]])
    lam = np.where(rng.random(R.size) < 0.5, 0.05, 0.3)
    w = rng.integers(0, v.size, R.size)
    w[c[w] == 0] = 0
    for kw in ({}, {"counts": c}, {"prior": pri}, {"counts": c, "prior": pri}):
        a_ev = di.log_evidence(v, response=R, scale=lam, **kw)
        a_r = di.disclosure_risk(v, response=R, scale=lam, world=w, **kw)
        monkeypatch.setattr(_posterior, "_DIRECT_NS", 1e9)  # force the sweep
        b_ev = di.log_evidence(v, response=R, scale=lam, **kw)
        b_r = di.disclosure_risk(v, response=R, scale=lam, world=w, **kw)
        monkeypatch.setattr(_posterior, "_DIRECT_NS", 0.0)  # force the direct kernels
        c_ev = di.log_evidence(v, response=R, scale=lam, **kw)
        c_r = di.disclosure_risk(v, response=R, scale=lam, world=w, **kw)
        monkeypatch.undo()
        np.testing.assert_allclose(b_ev, c_ev, rtol=1e-13)
        np.testing.assert_allclose(b_r, c_r, rtol=1e-11, atol=1e-300)
        np.testing.assert_allclose(a_ev, c_ev, rtol=1e-13)
        np.testing.assert_allclose(a_r, c_r, rtol=1e-11, atol=1e-300)


def test_one_response_many_worlds_threaded_path():
    rng = np.random.default_rng(2)
    v = rng.normal(size=300_000)
    lam = 0.01
    got = di.log_evidence(v, response=0.123, scale=lam)
    assert got == pytest.approx(dense_log_evidence(v, response=0.123, scale=lam), rel=1e-13)
    r = di.disclosure_risk(v, response=0.123, scale=lam, world=5)
    assert r == pytest.approx(dense_posterior(v, response=0.123, scale=lam)[0, 5], rel=1e-12)


def test_inputs_not_modified():
    v = np.array([3.0, 1.0, 2.0])
    c = np.array([1.0, 2.0, 3.0])
    R = np.array([0.5, 1.5])
    before = [x.copy() for x in (v, c, R)]
    di.posterior(v, response=R, scale=1.0, counts=c)
    di.worst_case_risk(v, scale=[1.0, 2.0], counts=c, return_world=True)
    di.tight_scale(v, rho=[0.5], counts=c)
    for x, y in zip((v, c, R), before, strict=False):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(values=[1.0, np.nan], response=0.0, scale=1.0), "values"),
        (dict(values=[1.0, np.inf], response=0.0, scale=1.0), "values"),
        (dict(values=[], response=0.0, scale=1.0), "values"),
        (dict(values=[[1.0, 2.0]], response=0.0, scale=1.0), "values"),
        (dict(values=[1.0, 2.0], response=np.nan, scale=1.0), "response"),
        (dict(values=[1.0, 2.0], response=np.inf, scale=1.0), "response"),
        (dict(values=[1.0, 2.0], response=0.0, scale=0.0), "scale"),
        (dict(values=[1.0, 2.0], response=0.0, scale=-1.0), "scale"),
        (dict(values=[1.0, 2.0], response=0.0, scale=np.inf), "scale"),
        (dict(values=[1.0, 2.0], response=0.0, scale=np.nan), "scale"),
        (dict(values=[1.0, 2.0], response=0.0, scale=1.0, counts=[1.0]), "counts"),
        (dict(values=[1.0, 2.0], response=0.0, scale=1.0, counts=[1.0, -1.0]), "counts"),
        (dict(values=[1.0, 2.0], response=0.0, scale=1.0, counts=[1.0, np.nan]), "counts"),
        (dict(values=[1.0, 2.0], response=0.0, scale=1.0, counts=[0.0, 0.0]), "counts"),
        (dict(values=[1.0, 2.0], response=0.0, scale=1.0, counts=[0.5, 1.0]), "counts"),
        (dict(values=[1.0, 2.0], response=0.0, scale=1.0, prior=[0.0, 0.0]), "prior"),
        (dict(values=[1.0, 2.0], response=0.0, scale=1.0, prior=[1.0, -2.0]), "prior"),
        (dict(values=[1.0, 2.0], response=0.0, scale=1.0, prior=[1.0, 2.0, 3.0]), "prior"),
        (dict(values=[1.0, 2.0], response=[0.0, 1.0, 2.0], scale=[1.0, 2.0]), "shape"),
        (dict(values=[1.0, 2.0], response=0.0, scale=1.0, noise="cauchy"), "noise"),
    ],
)
@pytest.mark.parametrize("fn", [di.log_evidence, di.log_posterior, di.posterior, di.disclosure_risk])
def test_bad_input(fn, kwargs, name):
    kw = dict(kwargs)
    with pytest.raises(ValueError, match=name):
        fn(kw.pop("values"), **kw)


def test_bad_world():
    with pytest.raises(ValueError, match="world"):
        di.disclosure_risk([1.0, 2.0], response=0.0, scale=1.0, world=2)
    with pytest.raises(ValueError, match="world"):
        di.disclosure_risk([1.0, 2.0], response=0.0, scale=1.0, world=-3)
    with pytest.raises(TypeError, match="world"):
        di.disclosure_risk([1.0, 2.0], response=0.0, scale=1.0, world=0.5)
    assert di.disclosure_risk([1.0, 2.0], response=1.0, scale=1.0, world=-1) == pytest.approx(1 / (1 + np.e), rel=1e-15)


def test_gaussian_noise_against_direct_formula():
    mpmath = pytest.importorskip("mpmath")
    rng = np.random.default_rng(21)
    v = rng.normal(size=40)
    c = rng.integers(1, 4, 40).astype(float)
    pri = rng.uniform(0.1, 2, 40)
    mpmath.mp.dps = 40
    for R, sigma in [(0.3, 0.5), (1e4, 0.2), (-50.0, 3.0), (0.0, 1e-3)]:
        a = [mpmath.log(mpmath.mpf(ci * pi)) - (mpmath.mpf(R) - mpmath.mpf(x)) ** 2 / (2 * mpmath.mpf(sigma) ** 2)
             for x, ci, pi in zip(v, c, pri, strict=False)]
        ev = mpmath.log(mpmath.fsum(mpmath.exp(t) for t in a))
        got = di.log_evidence(v, response=R, scale=sigma, counts=c, prior=pri, noise="gaussian")
        assert got == pytest.approx(float(ev), rel=1e-13)
        post = di.posterior(v, response=R, scale=sigma, counts=c, prior=pri, noise="gaussian")
        ref = np.array([float(mpmath.exp(t - ev) / ci) for t, ci in zip(a, c, strict=False)])
        big = ref > 1e-300
        np.testing.assert_allclose(post[big], ref[big], rtol=1e-11)
        j = int(np.argmax(ref))
        assert di.disclosure_risk(v, response=R, scale=sigma, world=j, counts=c, prior=pri,
                                  noise="gaussian") == pytest.approx(
            ref[j], rel=1e-11)
    # plain, and a big world set through the threaded path
    w = rng.normal(size=200_000)
    got = di.log_evidence(w, response=0.25, scale=0.1, noise="gaussian")
    assert got == pytest.approx(dense_log_evidence(w, response=0.25, scale=0.1, noise="gaussian"), rel=1e-13)


def test_gaussian_two_worlds_closed_form():
    # P(world 0 | R) = 1 / (1 + exp((2 R d - d^2) / (2 sigma^2)))
    d, sigma = 1.3, 0.7
    R = np.linspace(-3, 4, 15)
    np.testing.assert_allclose(di.disclosure_risk([0.0, d], response=R, scale=sigma, noise="gaussian"),
                               1 / (1 + np.exp((2 * R * d - d * d) / (2 * sigma ** 2))), rtol=1e-13)
