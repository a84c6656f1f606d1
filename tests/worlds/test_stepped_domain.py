"""Stepped domains, ``Domain(lo, hi, step=...)``, against brute force.

The brute-force reference (diffident.testing.brute_force) lists a grid
``(lo, hi, step)`` from decimal text in exact rational arithmetic, rounds
each point once, and evaluates every named query on every world (k-multisets
of the points) with NumPy.  On a decimal grid sums are not exact in binary,
so world values are compared after merging values that differ only by
rounding (counts exactly), and sensitive ranges to a relative 1e-12.  The
explicit-candidates path of the library (the listed points as candidates)
is a second, independent reference.
"""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import diffident as di
from diffident.testing import brute_force

QUERIES = [("sum", 0, 0.5), ("mean", 0, 0.5), ("median", 0, 0.5), ("quantile", 0, 0.1), ("quantile", 0, 0.37),
           ("min", 0, 0.5), ("max", 0, 0.5), ("var", 0, 0.5), ("var", 1, 0.5), ("std", 0, 0.5), ("std", 1, 0.5),
           ("count", 0, 0.5)]
QIDS = [f"{n}-{d}-{q}" for n, d, q in QUERIES]

# (lo, hi, step) as decimal text: a single point, negative ends, a step that
# is not a power of ten, and one third (a Fraction)
GRIDS = [("0", "0.5", "0.1"), ("-0.3", "0.3", "0.2"), ("1.5", "2.1", "0.15"), ("12", "12.4", "0.1"),
         ("-1", "-1", "0.1"), ("0", "1", "1/3"), ("-2.5", "-1.75", "0.25")]


def domain(grid):
    lo, hi, step = (Fraction(x) for x in grid)
    if all(x.denominator in (1, 2, 4, 5, 10, 20, 100) for x in (lo, hi, step)):
        return di.Domain(float(lo), float(hi), step=float(step))  # floats as a user types them
    return di.Domain(lo, hi, step=step)


def known_parts(seed):
    rng = np.random.default_rng(seed)
    for size in (0, 1, 2, 3, 5):
        yield np.round(rng.uniform(-2.0, 13.0, size), 2)  # two-decimal values


def merge_close(values, counts):
    out_v, out_c = [], []
    tol = 1e-12 * max(1.0, float(np.max(np.abs(values)))) if len(values) else 0.0
    for v, c in zip(values, counts, strict=True):
        if out_v and v - out_v[-1] <= tol:
            out_c[-1] += int(c)
        else:
            out_v.append(float(v))
            out_c.append(int(c))
    return np.array(out_v), np.array(out_c)


def test_points_are_the_decimals_as_written():
    d = di.Domain(12, 60, step=0.1)
    assert d.size == 481 and d.lo == 12.0 and d.hi == 60.0 and d.step == 0.1 and not d.integer
    text = [f"{Fraction(120 + i, 10).numerator / Fraction(120 + i, 10).denominator}" for i in range(481)]
    np.testing.assert_array_equal(d.values(), [float(t) for t in text])
    # the naive lo + i * step misses some of them (two roundings)
    naive = 12.0 + np.arange(481) * 0.1
    assert np.any(naive != d.values())
    assert float("12.3") in d.values() and float("59.9") in d.values()
    np.testing.assert_array_equal(di.Domain(0, 0.3, step=0.1).values(), [0.0, 0.1, 0.2, 0.3])


@pytest.mark.parametrize("grid", GRIDS)
def test_values_match_the_exact_reference(grid):
    d = domain(grid)
    want = brute_force.candidate_values(grid)
    np.testing.assert_array_equal(d.values(), want)
    assert d.size == want.size and d.lo == want[0] and d.hi == want[-1]


def test_step_one_is_the_integer_domain_and_every_old_call_works():
    assert di.Domain(0, 10, step=1) == di.Domain(0, 10) == di.Domain(0, 10, integer=True)
    assert hash(di.Domain(0, 10, step=1)) == hash(di.Domain(0, 10))
    assert repr(di.Domain(0, 10, step=1)) == "Domain(0, 10, integer=True)"
    assert di.Domain(0, 10).step == 1.0 and di.Domain(0, 1, integer=False).step is None
    half = di.Domain(0.5, 3.5, step=1)  # step 1 off the integers: a grid, not an integer domain
    assert not half.integer and half.values().tolist() == [0.5, 1.5, 2.5, 3.5]
    assert di.Domain(0, 1, step=0.5) != di.Domain(0, 1, step=0.25)


def test_end_within_a_few_ulps_is_the_grid_point():
    d = di.Domain(0, 0.1 + 0.2, step=0.1)  # 0.30000000000000004
    assert d.hi == 0.3 and d.size == 4
    assert di.Domain(Fraction(1, 3), Fraction(2, 3), step=Fraction(1, 3)).values().tolist() == [1 / 3, 2 / 3]


@pytest.mark.parametrize("kwargs, exc, words", [
    (dict(lo=0, hi=1, step=0.3), ValueError, ["lo=0", "hi=1", "step=0.3", "whole number"]),
    (dict(lo=0, hi=1, step=0.0), ValueError, ["step", "0.0"]),
    (dict(lo=0, hi=1, step=-0.1), ValueError, ["step", "-0.1"]),
    (dict(lo=0, hi=1, step=float("inf")), ValueError, ["step", "inf"]),
    (dict(lo=0, hi=1, step=float("nan")), ValueError, ["step", "nan"]),
    (dict(lo=0, hi=1, step="0.1"), TypeError, ["step", "'0.1'"]),
    (dict(lo=0, hi=1, step=True), TypeError, ["step", "True"]),
    (dict(lo=0, hi=1, integer=False, step=0.1), ValueError, ["integer=False", "step=0.1"]),
    (dict(lo=1, hi=0, step=0.1), ValueError, ["lo=1", "hi=0"]),
    (dict(lo=0.5, hi=2), ValueError, ["lo=0.5", "step"]),
])
def test_bad_steps_name_the_argument_and_value(kwargs, exc, words):
    with pytest.raises(exc) as info:
        di.Domain(**kwargs)
    for w in words:
        assert w in str(info.value), (w, str(info.value))


@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize("query,ddof,q", QUERIES, ids=QIDS)
def test_world_values_and_sensitive_range_against_brute_force(query, ddof, q, k):
    for gi, grid in enumerate(GRIDS):
        d = domain(grid)
        for known in known_parts(10 * gi + k):
            if query in ("var", "std") and known.size + k <= ddof:
                continue
            wv, wc = brute_force.world_values(query, known=known, candidates=grid, k=k, ddof=ddof, q=q)
            gv, gc = di.world_values(query, known=known, candidates=d, k=k, ddof=ddof, q=q)
            assert int(gc.sum()) == math.comb(d.size + k - 1, k)
            mv, mc = merge_close(gv, gc)
            bv, bc = merge_close(wv, wc)
            np.testing.assert_allclose(mv, bv, rtol=1e-12, atol=1e-12)
            np.testing.assert_array_equal(mc, bc)
            s = di.sensitive_range(query, known=known, candidates=d, k=k, ddof=ddof, q=q)
            s_ref = brute_force.sensitive_range(query, known=known, candidates=grid, k=k, ddof=ddof, q=q)
            np.testing.assert_allclose(s, s_ref, rtol=1e-12, atol=1e-12)
            # the explicit-candidates path: the listed points (each k times:
            # the same values, the multisets among the subsets)
            explicit = np.repeat(d.values(), k)
            s_explicit = di.sensitive_range(query, known=known, candidates=explicit, k=k, ddof=ddof, q=q)
            np.testing.assert_allclose(s, s_explicit, rtol=1e-12, atol=1e-12)
            if k == 1:
                ev, ec = di.world_values(query, known=known, candidates=d.values(), ddof=ddof, q=q)
                np.testing.assert_array_equal(gv, ev)
                np.testing.assert_array_equal(gc, ec)


@pytest.mark.parametrize("query,ddof,q", QUERIES, ids=QIDS)
def test_contributions_against_brute_force(query, ddof, q):
    for gi, grid in enumerate(GRIDS):
        for known in known_parts(gi):
            if query in ("var", "std") and known.size + 1 <= ddof:
                continue
            got = di.contributions(query, known=known, candidates=domain(grid), ddof=ddof, q=q)
            want = brute_force.contributions(query, known=known, candidates=grid, ddof=ddof, q=q)
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize("query,ddof,q", QUERIES, ids=QIDS)
def test_dataset_sensitive_range_against_brute_force(query, ddof, q, k):
    for gi, grid in enumerate(GRIDS):
        pts = brute_force.candidate_values(grid)
        rng = np.random.default_rng(gi)
        for size in (k, 3, 5):
            data = rng.choice(pts, size)
            if query in ("var", "std") and size <= ddof:
                continue
            s_ref, _ = brute_force.dataset_sensitive_range(query, data=data, candidates=grid, k=k, ddof=ddof, q=q)
            s = di.dataset_sensitive_range(query, data=data, candidates=domain(grid), k=k, ddof=ddof, q=q)
            np.testing.assert_allclose(s, s_ref, rtol=1e-12, atol=1e-12)


def test_data_off_the_grid_is_named():
    with pytest.raises(ValueError, match=r"data must lie in Domain\(0.0, 1.0, step=0.1\), got 0.25"):
        di.dataset_sensitive_range("mean", data=[0.1, 0.25, 0.3], candidates=di.Domain(0, 1, step=0.1))


def test_tight_scale_covers_every_neighbour_on_a_grid():
    """dataset_tight_scale over a stepped domain is the largest tight scale
    of the removals' own world sets, each from world_values."""
    data = np.array([12.3, 12.0, 12.4, 12.1, 12.3, 12.2])
    d = di.Domain(12, 12.6, step=0.1)
    rho = np.array([0.2, 0.4])
    for query in ("mean", "median", "std"):
        got = di.dataset_tight_scale(query, data=data, candidates=d, rho=rho, rtol=1e-12)
        per = []
        for i in range(data.size):
            v, c = di.world_values(query, known=np.delete(data, i), candidates=d)
            per.append(di.tight_scale(v, rho=rho, counts=c, rtol=1e-12))
        np.testing.assert_allclose(got, np.max(per, axis=0), rtol=1e-11)


def test_sweep_takes_a_stepped_domain():
    bmi = np.array([18.5, 22.1, 24.9, 30.0, 27.3, 19.8, 35.2, 22.1])
    d = di.Domain(12, 60, step=0.1)
    t = di.sweep({"bmi": bmi}, queries=["mean", "median"], rho=[0.05, 0.2], domains={"bmi": d})
    assert t["m"].tolist() == [481.0] * 4
    assert t["domain_source"].tolist() == ["given"] * 4
    np.testing.assert_allclose(t["sensitive_range"][:2], (60 - 12) / 8)
    s_median = di.dataset_sensitive_range("median", data=bmi, candidates=d)
    np.testing.assert_array_equal(t["sensitive_range"][2:], s_median)
    tight = di.dataset_tight_scale("median", data=bmi, candidates=d, rho=[0.05, 0.2], rtol=1e-12)
    np.testing.assert_array_equal(t["tight_scale"][2:], tight)
    np.testing.assert_allclose(t["bound_scale"][:2], di.scale_for_rho([0.05, 0.2], m=481, sensitive_range=6.0))


def test_sweep_refuses_off_grid_values_and_a_real_interval():
    with pytest.raises(ValueError, match=r"'bmi' has values off its domain Domain\(12.0, 60.0, step=0.1\): 18.55"):
        di.sweep({"bmi": [18.55, 20.0]}, queries=["mean"], rho=[0.1], domains={"bmi": di.Domain(12, 60, step=0.1)})
    with pytest.raises(ValueError, match=r"'bmi' is not integer-valued.*Domain\(lo, hi, step=0.1\)"):
        di.sweep({"bmi": [18.5, 20.0]}, queries=["mean"], rho=[0.1])
    with pytest.raises(ValueError, match=r"'bmi'.*real interval.*step"):
        di.sweep({"bmi": [18.5, 20.0]}, queries=["mean"], rho=[0.1],
                 domains={"bmi": di.Domain(12, 60, integer=False)})


decimals = st.integers(-300, 300).map(lambda i: Fraction(i, 100))
steps = st.sampled_from(["0.1", "0.05", "0.2", "0.25", "0.3", "1.5", "0.01", "1/3", "0.125"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lo=decimals, step=steps, n=st.integers(1, 6), k=st.integers(1, 2),
       known=st.lists(st.integers(-400, 400).map(lambda i: i / 100), max_size=4),
       which=st.sampled_from(QUERIES))
def test_property_stepped_sensitive_range_is_the_brute_force_one(lo, step, n, k, known, which):
    query, ddof, q = which
    if query in ("var", "std") and len(known) + k <= ddof:
        return
    step_q = Fraction(step)
    hi = lo + (n - 1) * step_q
    grid = (lo, hi, step_q)
    d = di.Domain(lo, hi, step=step_q)
    assert d.size == n
    np.testing.assert_array_equal(d.values(), brute_force.candidate_values(grid))
    s = di.sensitive_range(query, known=known, candidates=d, k=k, ddof=ddof, q=q)
    s_ref = brute_force.sensitive_range(query, known=known, candidates=grid, k=k, ddof=ddof, q=q)
    np.testing.assert_allclose(s, s_ref, rtol=1e-12, atol=1e-12)
    gv, gc = di.world_values(query, known=known, candidates=d, k=k, ddof=ddof, q=q)
    assert gv[-1] - gv[0] == pytest.approx(s_ref, rel=1e-12, abs=1e-12)
    assert int(gc.sum()) == math.comb(n + k - 1, k)
