"""Exact multiplicities of sums and means over k-subsets (Mathematics page, section 8)."""

import itertools
import math

import numpy as np
import pytest

import diffident as di
from diffident.testing import brute_force


@pytest.mark.parametrize("k", [2, 3, 4])
@pytest.mark.parametrize("query", ["sum", "mean"])
def test_against_itertools_with_repeats(k, query):
    rng = np.random.default_rng(10 * k + (query == "mean"))
    for trial in range(4):
        known = rng.integers(-5, 20, int(rng.integers(0, 6))).astype(float)
        cands = rng.integers(-3, 12, int(rng.integers(k, 14))).astype(float)  # many repeats
        if trial == 3:
            cands = cands * 0.25  # a dyadic grid
        v, c = di.world_values(query, known=known, candidates=cands, k=k)
        bv, bc = brute_force.world_values(query, known=known, candidates=cands, k=k)
        np.testing.assert_array_equal(v, bv)
        np.testing.assert_array_equal(c, bc)
        assert c.sum() == math.comb(cands.size, k)


@pytest.mark.parametrize("k", [2, 3])
def test_integer_domain_multisets(k):
    v, c = di.world_values("mean", known=[1.0, 2.0], candidates=di.Domain(-2, 5), k=k)
    bv, bc = brute_force.world_values("mean", known=np.array([1.0, 2.0]), candidates=(-2, 5), k=k)  # multisets of -2..5
    np.testing.assert_array_equal(v, bv)
    np.testing.assert_array_equal(c, bc)
    assert c.sum() == math.comb(8 + k - 1, k)


def test_decimal_grid():
    cands = np.array([0.01, 0.02, 0.03, 0.05, 0.05, 1.25])
    v, c = di.world_values("sum", known=[0.5], candidates=cands, k=2)
    bv, bc = brute_force.world_values("sum", known=np.array([0.5]), candidates=cands, k=2)
    np.testing.assert_allclose(v, bv, rtol=1e-15)
    np.testing.assert_array_equal(c, bc)


def test_huge_world_sets_exact_counts():
    # the Adult-like setting: tens of thousands of candidates, k = 3
    rng = np.random.default_rng(3)
    cands = rng.integers(0, 4357, 47845).astype(float)
    v, c = di.world_values("mean", known=rng.integers(0, 4357, 997).astype(float), candidates=cands, k=3)
    assert c.dtype == np.int64 and int(c.sum()) == math.comb(47845, 3)  # about 1.8e13, exactly
    # beyond 2^53: float counts, relative precision of float64; C(1e6, 50) does not overflow
    big = np.arange(10**6, dtype=float) % 7
    v, c = di.world_values("sum", known=[], candidates=big, k=50)
    assert c.dtype == np.float64
    total = math.comb(10**6, 50)
    assert abs(float(np.sum(c)) / total - 1) < 1e-12
    # the engine takes them as they are
    assert 0 < di.worst_case_risk(v, scale=1.0, counts=c) <= 1


def test_engine_on_the_multiplicities():
    known = np.array([3.0, 4.0, 9.0])
    cands = np.array([0.0, 1.0, 1.0, 2.0, 5.0, 7.0, 7.0])
    v, c = di.world_values("mean", known=known, candidates=cands, k=2)
    worlds = [np.mean(np.concatenate([known, s])) for s in itertools.combinations(cands, 2)]
    for scale in (0.1, 1.0):
        assert di.worst_case_risk(v, scale=scale, counts=c) == pytest.approx(di.worst_case_risk(worlds, scale=scale),
                                                                             rel=1e-12)
