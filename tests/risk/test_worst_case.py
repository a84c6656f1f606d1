"""Exact worst-case risk (Mathematics page, section 4) and tight calibration (section 5)."""

import numpy as np
import pytest

import diffident as di
from diffident._risk import worst_case as _worst_case
from diffident._worlds.values import Worlds
from diffident.testing import mpmath_reference as ref
from diffident.testing.dense import dense_worst_case_risk as dense

TOY_MEAN = np.array([2, 8 / 3, 3, 10 / 3, 11 / 3, 4, 13 / 3, 14 / 3])
TOY_MEDIAN = np.array([2, 3, 3, 3, 3, 3, 3, 3], dtype=float)


def test_toy_mean_worst_case_and_tight_epsilon():
    lam = 2.128628267061142  # the paper's scale at rho = 1/3
    risk, world = di.worst_case_risk(TOY_MEAN, scale=lam, return_world=True)
    assert risk == pytest.approx(0.22943826951692214, rel=1e-14)
    assert world == 0  # world 1 of the paper, at R = 2
    assert risk == pytest.approx(di.disclosure_risk(TOY_MEAN, response=2.0, scale=lam), rel=1e-14)
    eps = di.tight_epsilon(TOY_MEAN, rho=1 / 3)
    assert eps == pytest.approx(2.249596594583695, rel=1e-14)
    assert eps > di.epsilon_for_rho(1 / 3, m=8)


def test_toy_median_attains_the_bound():
    # S(median) = 1; at the paper's scale the bound is attained: risk = rho
    lam = di.scale_for_rho(1 / 3, m=8, sensitive_range=1.0)
    assert di.worst_case_risk(TOY_MEDIAN, scale=lam) == pytest.approx(1 / 3, rel=1e-14)
    assert di.tight_scale(TOY_MEDIAN, rho=1 / 3) == pytest.approx(lam, rel=1e-14)
    assert di.tight_epsilon(TOY_MEDIAN, rho=1 / 3) == pytest.approx(1.2527629684953678, rel=1e-14)


def test_equals_dense_formula_and_brute_force():
    rng = np.random.default_rng(1)
    for trial in range(20):
        m = int(rng.integers(2, 60))
        v = np.round(rng.normal(size=m) * 3, int(rng.integers(0, 3)))
        c = rng.integers(0, 4, m).astype(float) if trial % 2 else None
        p = rng.uniform(0, 2, m) if trial % 3 == 0 else None
        if c is not None:
            c[0] = max(c[0], 1)
        if p is not None:
            p[0] = max(p[0], 0.1)
        scales = 10 ** rng.uniform(-1.5, 1.5, 5)
        got, world = di.worst_case_risk(v, scale=scales, counts=c, prior=p, return_world=True)
        for s, g, w in zip(scales, got, world, strict=False):
            assert g == pytest.approx(dense(v, scale=s, counts=c, prior=p), rel=1e-12)
            # brute force: the maximum of the posterior over a response grid that
            # contains every world value, for every true world
            grid = np.unique(np.concatenate([v, np.linspace(v.min() - 1, v.max() + 1, 101)]))
            best = 0.0
            for j in range(m):
                if (1 if c is None else c[j]) * (1 if p is None else p[j]) > 0:
                    best = max(best, di.disclosure_risk(v, response=grid, scale=s, world=j, counts=c, prior=p).max())
            assert g == pytest.approx(best, rel=1e-12)
            assert di.disclosure_risk(v, response=v[w], scale=s, world=w, counts=c, prior=p) == pytest.approx(g,
                                                                                                              rel=1e-12)


def test_limits_and_range():
    v = np.array([0.0, 1.0, 1.0, 5.0])
    assert di.worst_case_risk(v, scale=np.inf) == pytest.approx(0.25, rel=1e-15)
    assert di.worst_case_risk(v, scale=0.0) == 1.0  # the lone values are certain
    assert di.worst_case_risk([1.0, 1.0, 2.0, 2.0], scale=0.0) == 0.5
    assert di.worst_case_risk([3.0, 3.0, 3.0], scale=0.7) == pytest.approx(1 / 3, rel=1e-15)
    r = di.worst_case_risk(v, scale=np.geomspace(1e-3, 1e3, 50))
    assert np.all(np.diff(r) <= 0) and np.all(r >= 0.25) and np.all(r <= 1)
    assert di.worst_case_risk([7.0], scale=1.0) == 1.0


def test_scale_array_shapes_and_paths():
    rng = np.random.default_rng(4)
    v = rng.normal(size=2000)
    scales = 10 ** rng.uniform(-2, 1, (3, 11))
    block = di.worst_case_risk(v, scale=scales)  # 33 scales: blocked kernel
    assert block.shape == (3, 11)
    single = np.array([di.worst_case_risk(v, scale=s) for s in scales.ravel()]).reshape(3, 11)
    np.testing.assert_array_equal(block, single)  # bit for bit
    assert isinstance(di.worst_case_risk(v, scale=1.0), float)


@pytest.mark.parametrize("classes", [1, 2, 63, 64, 65, 300])
def test_shared_gap_factors_give_the_same_bits(classes):
    # the blocked kernel forms one set of factors per distinct gap where
    # there are at most MAX_CLASSES of them: the same bits as one factor
    # per value (the single-scale kernel), on either side of the limit
    from diffident._kernels import worstcase

    rng = np.random.default_rng(classes)
    steps = rng.permutation(np.arange(1, classes + 1))  # every gap appears
    gaps = np.concatenate([steps, rng.choice(steps, 3000 - classes)]) * 2.0**-10
    v = np.concatenate([[0.0], np.cumsum(gaps)])
    ev = _worst_case.Evaluator(v, np.ones(v.size), np.ones(v.size))
    gi, gv = ev.gaps()
    if classes <= worstcase.MAX_CLASSES:
        np.testing.assert_array_equal(np.sort(gv), np.unique(np.diff(v)))
        np.testing.assert_array_equal(gv[gi[1:]], np.diff(v))
    else:
        assert gv.size == 0 and gi.size == 0
    scales = np.geomspace(1e-2, 1e3, 24)
    blocked, world = di.worst_case_risk(v, scale=scales, return_world=True)
    for s, r, w in zip(scales, blocked, world, strict=True):
        one, w1 = di.worst_case_risk(v, scale=s, return_world=True)
        assert one == r and w1 == w


@pytest.mark.parametrize("spacing", ["equal", "random"])
@pytest.mark.parametrize("rows", [64, 192, 4096])
def test_chunked_blocks_give_the_same_bits(spacing, rows):
    # where a row of work memory per value does not fit, the blocked kernel
    # goes in chunks and sweeps each forward twice: the same bits as the
    # whole sweep and as the single-scale kernel
    from diffident._kernels import worstcase

    rng = np.random.default_rng(rows)
    u = 5000
    if spacing == "equal":
        v = 1000.0 + np.arange(u) / 48842.0
    else:
        v = np.sort(rng.standard_normal(u)) * 10
    W = rng.integers(1, 4, u).astype(float)
    W /= W.sum()
    invP = 1.0 / W
    inv = 1.0 / (np.geomspace(1e-4, 2.0, 40) * np.ptp(v))
    whole = _worst_case.Evaluator(v, W, invP)
    chunked = _worst_case.Evaluator(v, W, invP)
    assert whole.rows == u
    chunked.rows = rows
    assert rows % worstcase.K == 0
    a, wa = whole(inv)
    b, wb = chunked(inv)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(wa, wb)
    for x, r, w in zip(inv[:5], a, wa, strict=False):  # the single-scale kernel
        one, w1 = whole(np.array([x]))
        assert one[0] == r and w1[0] == w


def test_chunks_are_taken_where_a_row_per_value_does_not_fit(monkeypatch):
    from diffident._kernels import worstcase

    v = np.sort(np.random.default_rng(2).standard_normal(3 * worstcase.CHUNK + 100))
    scales = np.geomspace(1e-3, 10.0, 16)
    whole = di.worst_case_risk(v, scale=scales)
    ev = _worst_case.Evaluator(v, np.ones(v.size), np.ones(v.size))
    chunked = ev.nw * (worstcase.CHUNK * 2 + ev.nl * 3 + 4 * worstcase.NS) * worstcase.BLOCK * 8
    monkeypatch.setattr(_worst_case, "_BLOCK_BYTES", chunked)  # too small for a row per value
    ev = _worst_case.Evaluator(v, np.ones(v.size), np.ones(v.size))
    assert ev.rows == worstcase.CHUNK and ev.blocked_ok
    np.testing.assert_array_equal(di.worst_case_risk(v, scale=scales), whole)


def test_counts_and_prior_equivalences():
    rng = np.random.default_rng(8)
    v = rng.integers(0, 9, 50).astype(float)
    u, c = np.unique(v, return_counts=True)
    for s in (0.1, 1.0, 10.0):
        assert di.worst_case_risk(u, scale=s, counts=c) == pytest.approx(di.worst_case_risk(v, scale=s), rel=1e-13)
        flat = di.worst_case_risk(v, scale=s, prior=np.full(v.size, 3.0))
        assert flat == pytest.approx(di.worst_case_risk(v, scale=s), rel=1e-13)
    np.testing.assert_array_equal(di.tight_scale(u, rho=[0.05, 0.2], counts=c),
                                  di.tight_scale(u, rho=[0.05, 0.2], counts=c.astype(float)))
    # worlds of zero weight are not possible worlds
    zero_weight = di.worst_case_risk([0.0, 1.0, 100.0], scale=1.0, counts=[1, 1, 0])
    assert zero_weight == pytest.approx(dense([0.0, 1.0], scale=1.0), rel=1e-14)


def test_invariance():
    rng = np.random.default_rng(9)
    v = rng.normal(size=300)
    s = np.array([0.05, 0.5, 5.0])
    base = di.worst_case_risk(v, scale=s)
    np.testing.assert_allclose(di.worst_case_risk(rng.permutation(v), scale=s), base, rtol=1e-15)
    np.testing.assert_allclose(di.worst_case_risk(v + 1000.0, scale=s), base, rtol=1e-9)


def test_tight_scale_is_conservative_and_tight():
    rng = np.random.default_rng(12)
    for v, c, p in [
        (rng.normal(size=5000), None, None),
        (np.round(rng.normal(size=3000) * 10), None, None),
        (rng.standard_cauchy(1000), rng.integers(1, 5, 1000).astype(float), None),
        (rng.normal(size=800), None, rng.uniform(0.2, 1.0, 800)),
    ]:
        lo = di.worst_case_risk(v, scale=np.inf, counts=c, prior=p)
        hi = di.worst_case_risk(v, scale=0.0, counts=c, prior=p)
        rho = np.geomspace(lo * 1.0001, hi * 0.9999, 60)
        lam = di.tight_scale(v, rho=rho, counts=c, prior=p)
        assert np.all(np.isfinite(lam) & (lam > 0))
        assert np.all(di.worst_case_risk(v, scale=lam, counts=c, prior=p) <= rho)
        # tight to the evaluation's error bound: the float below fails rho
        # lowered by that bound (the margin that makes the exact risk pass)
        err = _worst_case.Risk(Worlds(v, c, p)).error
        assert 0 < err < 1e-11
        assert np.all(di.worst_case_risk(v, scale=np.nextafter(lam, 0), counts=c,
                                         prior=p) > np.nextafter(rho * (1 - err), 0))
        loose = di.tight_scale(v, rho=rho, counts=c, prior=p, rtol=1e-6)
        assert np.all(loose >= lam) and np.all(loose <= lam * (1 + 2e-6))
        assert np.all(di.worst_case_risk(v, scale=loose, counts=c, prior=p) <= rho)


def test_tight_scale_edges():
    v = np.array([0.0, 1.0, 2.0, 3.0])
    assert di.tight_scale(v, rho=1.0) == 0.0
    assert di.tight_scale(v, rho=0.25) == np.inf  # rho = 1/m: unattainable
    assert di.tight_scale(v, rho=0.1) == np.inf
    assert di.tight_scale(v, rho=0.0) == np.inf
    assert di.tight_epsilon(v, rho=1.0) == np.inf
    assert di.tight_epsilon(v, rho=0.1) == 0.0
    # every value repeated twice: rho = 1/2 needs no noise
    assert di.tight_scale([1.0, 1.0, 2.0, 2.0], rho=0.5) == 0.0
    assert di.tight_scale([1.0, 1.0, 2.0, 2.0], rho=0.4) > 0
    # all worlds equal: nothing to protect, nothing achievable below 1/m
    assert di.tight_scale([5.0, 5.0], rho=0.5) == 0.0
    assert di.tight_scale([5.0, 5.0], rho=0.4) == np.inf
    assert di.tight_epsilon([5.0, 5.0], rho=0.5) == 0.0
    out = di.tight_scale(v, rho=np.array([[1.0, 0.5], [0.2, 0.3]]))
    assert out.shape == (2, 2) and out[0, 0] == 0.0 and out[1, 0] == np.inf


def test_tight_epsilon_at_least_the_papers():
    rng = np.random.default_rng(3)
    v = rng.normal(size=200)
    rho = np.linspace(0.01, 0.9, 50)
    assert np.all(di.tight_epsilon(v, rho=rho) >= di.epsilon_for_rho(rho, m=v.size))


def test_fewer_passes_than_bisection(evaluator_calls):
    rng = np.random.default_rng(0)
    v = rng.random(2000)
    di.tight_scale(v, rho=np.linspace(0.01, 0.5, 50))
    assert sum(evaluator_calls) / 50 < 30  # bisection to adjacent floats needs ~55


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: di.worst_case_risk([1.0, np.nan], scale=1.0), "values"),
        (lambda: di.worst_case_risk([], scale=1.0), "values"),
        (lambda: di.worst_case_risk([1.0, 2.0], scale=-1.0), "scale"),
        (lambda: di.worst_case_risk([1.0, 2.0], scale=np.nan), "scale"),
        (lambda: di.worst_case_risk([1.0, 2.0], scale=1.0, counts=[1, 2, 3]), "counts"),
        (lambda: di.worst_case_risk([1.0, 2.0], scale=1.0, counts=[-1, 2]), "counts"),
        (lambda: di.worst_case_risk([1.0, 2.0], scale=1.0, prior=[0, 0]), "prior"),
        (lambda: di.worst_case_risk([1.0, 2.0], scale=1.0, prior=[np.inf, 1]), "prior"),
        (lambda: di.tight_scale([1.0, 2.0], rho=1.5), "rho"),
        (lambda: di.tight_scale([1.0, 2.0], rho=np.nan), "rho"),
        (lambda: di.tight_scale([1.0, 2.0], rho=0.5, rtol=-1.0), "rtol"),
        (lambda: di.tight_scale([1.0, np.inf], rho=0.5), "values"),
        (lambda: di.tight_epsilon([1.0, 2.0], rho=-0.5), "rho"),
    ],
)
def test_bad_input(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_tight_scale_near_the_unattainable_limit():
    # within the evaluation's error bound of 1/m the search cannot certify a
    # scale; the closed form (exact for two worlds) still can: finite, no
    # more than it, and conservative at 60 digits
    from mpmath import mpf

    for v, rho in (([0.0, 1.0], 0.5 * (1 + 1e-14)), ([0.0, 1.0], 0.5 * (1 + 1e-13)),
                   (np.random.default_rng(0).normal(size=30), np.nextafter(1 / 30, 1))):
        m = len(v)
        lam = di.tight_scale(v, rho=rho)
        assert np.isfinite(lam) and lam <= di.scale_for_rho(rho, m=m, sensitive_range=np.ptp(v)) * (1 + 1e-2)
        assert di.worst_case_risk(v, scale=lam) <= rho
        assert ref.worst_case_risk(v, scale=lam)[0] <= mpf(rho)
