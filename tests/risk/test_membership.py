"""Membership posteriors against brute force over the enumerated worlds."""

import itertools

import numpy as np
import pytest

import diffident as di
from diffident.testing import brute_force


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("query", ["sum", "mean"])
def test_against_brute_force(k, query):
    rng = np.random.default_rng(k * 7 + (query == "mean"))
    for _trial in range(3):
        known = rng.integers(0, 10, int(rng.integers(0, 5))).astype(float)
        cands = rng.integers(0, 8, int(rng.integers(k + 1, 9))).astype(float)  # repeated values
        for scale in (0.3, 2.0):
            ref = brute_force.membership_risk(query, known=known, candidates=cands, scale=scale, k=k)
            got = di.membership_risk(query, known=known, candidates=cands, scale=scale, k=k,
                                     individual=np.arange(cands.size))
            np.testing.assert_allclose(got, ref, rtol=1e-12)
            assert di.membership_risk(query, known=known, candidates=cands, scale=scale,
                                      k=k) == pytest.approx(ref.max(), rel=1e-12)


def test_limits_prior_and_tight():
    c = np.array([0.0, 1.0, 1.0, 2.0, 5.0, 9.0])
    k = 2
    assert di.membership_risk("sum", known=[], candidates=c, scale=np.inf, k=k) == pytest.approx(k / c.size, rel=1e-14)
    r = di.membership_risk("sum", known=[], candidates=c, scale=np.geomspace(0.01, 100, 20), k=k)
    assert np.all(np.diff(r) <= 1e-15) and np.all(r >= k / c.size - 1e-15)
    rho = np.array([0.4, 0.6, 0.95])
    s = di.membership_tight_scale("sum", known=[], candidates=c, rho=rho, k=k)
    assert np.all(di.membership_risk("sum", known=[], candidates=c, scale=s, k=k) <= rho)
    assert np.all(di.membership_risk("sum", known=[], candidates=c, scale=s * (1 - 1e-9), k=k) > rho)
    assert di.membership_tight_scale("sum", known=[], candidates=c, rho=k / c.size, k=k) == np.inf
    assert di.membership_tight_scale("sum", known=[], candidates=c, rho=1.0, k=k) == 0.0


def test_bad_input():
    with pytest.raises(ValueError, match="query"):
        di.membership_risk("median", known=[], candidates=[1.0, 2.0], scale=1.0)
    with pytest.raises(ValueError, match="Domain"):
        di.membership_risk("sum", known=[], candidates=di.Domain(0, 5), scale=1.0)
    with pytest.raises(ValueError, match="k = 3"):
        di.membership_risk("sum", known=[], candidates=[1.0, 2.0], scale=1.0, k=3)
    with pytest.raises(ValueError, match="scale"):
        di.membership_risk("sum", known=[], candidates=[1.0, 2.0], scale=-1.0)
    with pytest.raises(ValueError, match="individual"):
        di.membership_risk("sum", known=[], candidates=[1.0, 2.0], scale=1.0, individual=7)


def test_posterior_at_a_response_against_brute_force():
    cands = np.array([0.0, 1.0, 1.0, 3.0, 4.0, 8.0])
    known = np.array([2.0, 5.0])
    k = 2
    R = np.array([1.0, 2.9, 10.0])
    for scale in (0.2, 1.5):
        want = brute_force.membership_posterior("mean", known=known, candidates=cands, scale=scale, response=R, k=k)
        got = di.membership_risk("mean", known=known, candidates=cands, scale=scale, k=k, individual=[0, 1, 5],
                                 response=R)
        for col, i in enumerate([0, 1, 5]):
            np.testing.assert_allclose(got[:, col], want[:, i], rtol=1e-12)
    with pytest.raises(ValueError, match="individual"):
        di.membership_risk("mean", known=known, candidates=cands, scale=1.0, k=k, response=R)


@pytest.mark.parametrize("scale", [5e-324, 1e-310, 1e-300, 1e-3, 0.2, 1.5])
def test_posterior_at_a_response_extreme_scales(scale):
    """The membership posterior at scales from 1e-300 to subnormal, where the
    log-evidences are huge, against the exact ratio sum_{i in w} L_w /
    sum_w L_w at 60 digits (1/2 halfway between two sums, never NaN)."""
    from mpmath import mp, mpf

    cands = np.array([0.0, 1.0, 1.0, 3.0])
    known = np.array([2.0])
    combos = list(itertools.combinations(range(cands.size), 2))
    f = [float(known.sum() + cands[list(c)].sum()) for c in combos]
    R = np.array([0.5 + 2.0, 1.0 + 2.0, 2.75 + 2.0, 40.0])
    got = di.membership_risk("sum", known=known, candidates=cands, scale=scale, k=2, individual=[0, 1, 3], response=R)
    with mp.workdps(60):
        for p, r in enumerate(R):
            L = [mp.exp(-abs(mpf(r) - mpf(v)) / mpf(scale)) for v in f]
            for col, i in enumerate([0, 1, 3]):
                num = sum(l for l, c in zip(L, combos, strict=False) if i in c)
                den = sum(L)
                want = num / den if den > 0 else None
                if want is None:  # every term underflows even at 60 digits: skip
                    continue
                assert abs(mpf(got[p, col]) - want) <= mpf(1e-13) * want + mpf(1e-300), (p, col, got[p, col], want)


def test_wide_grid_is_a_value_error():
    """Candidates 0 and 1e13 on the integer grid would need count tables of
    1e13 cells: a MemoryError before, a ValueError naming the grid now."""
    with pytest.raises(ValueError, match="count tables"):
        di.membership_risk("sum", known=[], candidates=[0.0, 1e13], scale=1.0)


def test_discrete_laplace_membership_is_the_laplace_one_on_the_lattice():
    cands = [0, 1, 2, 3, 10]
    kw = dict(known=[4, 7], candidates=cands, k=2)
    scales = [0.3, 1.0, 4.0]
    np.testing.assert_array_equal(di.membership_risk("sum", **kw, scale=scales, noise="discrete_laplace"),
                                  di.membership_risk("sum", **kw, scale=scales))
    at = di.membership_risk("sum", **kw, scale=1.5, response=[12.0, 13.0], individual=[0, 4],
                            noise="discrete_laplace")
    np.testing.assert_array_equal(at, di.membership_risk("sum", **kw, scale=1.5, response=[12.0, 13.0],
                                                         individual=[0, 4]))
    assert di.membership_tight_scale("sum", **kw, rho=0.6, noise="discrete_laplace") == \
        di.membership_tight_scale("sum", **kw, rho=0.6)
    # the mean of 4 people lies on the lattice of quarters
    assert di.membership_risk("mean", **kw, scale=1.0, noise="discrete_laplace", granularity=0.25) == \
        di.membership_risk("mean", **kw, scale=1.0)
    with pytest.raises(ValueError, match="lattice"):
        di.membership_risk("mean", **kw, scale=1.0, noise="discrete_laplace")
    with pytest.raises(ValueError, match="lattice"):
        di.membership_risk("sum", **kw, scale=1.0, response=12.5, individual=0, noise="discrete_laplace")
    with pytest.raises(ValueError, match="Gaussian energies"):
        di.membership_risk("sum", **kw, scale=1.0, noise="discrete_gaussian")
    with pytest.raises(ValueError, match="granularity"):
        di.membership_tight_scale("sum", **kw, rho=0.6, granularity=2.0)
