"""Several Laplace releases seen by one adversary (Mathematics page, section 7)."""

import numpy as np
import pytest

import diffident as di
from diffident.testing.dense import grid_worst_case_risk


def test_against_brute_force_q2():
    rng = np.random.default_rng(4)
    for trial in range(6):
        m = int(rng.integers(2, 12))
        v = np.round(rng.normal(size=(m, 2)) * 2, 1)
        c = rng.integers(1, 3, m).astype(float) if trial % 2 else None
        p = rng.uniform(0.2, 1.0, m) if trial % 3 == 0 else None
        for scales in ([0.5, 1.0], [2.0, 0.3]):
            got, j = di.multi_worst_case_risk(v, scale=scales, counts=c, prior=p, return_world=True)
            assert got == pytest.approx(grid_worst_case_risk(v, scale=scales, counts=c, prior=p), rel=1e-12)
            # attained at R = f(w_j)
            assert 0 <= j < m


def test_q1_is_the_single_query_path():
    rng = np.random.default_rng(5)
    v = rng.normal(size=500)
    s = np.array([[0.1], [1.0], [10.0]])
    np.testing.assert_array_equal(di.multi_worst_case_risk(v[:, None], scale=s), di.worst_case_risk(v, scale=s[:, 0]))
    # and the dense kernel agrees with the sweep when a second query is constant
    v2 = np.stack([v, np.zeros_like(v)], axis=1)
    np.testing.assert_allclose(di.multi_worst_case_risk(v2, scale=np.concatenate([s, np.ones_like(s)], 1)),
                               di.worst_case_risk(v, scale=s[:, 0]), rtol=1e-12)


def test_limits_and_shapes():
    v = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]])
    r = di.multi_worst_case_risk(v, scale=[[0.0, 0.0], [np.inf, np.inf], [1.0, 1.0]])
    assert r.shape == (3,) and r[0] == 1.0 and r[1] == pytest.approx(1 / 3, rel=1e-15)
    assert isinstance(di.multi_worst_case_risk(v, scale=[1.0, 1.0]), float)
    # more releases never lower the risk
    assert di.multi_worst_case_risk(v, scale=[1.0, 1.0]) >= di.worst_case_risk(v[:, 0], scale=1.0)


def test_multi_tight_scale_conservative():
    rng = np.random.default_rng(6)
    v = rng.normal(size=(300, 3))
    rho = np.array([0.02, 0.1, 0.5])
    s = di.multi_tight_scale(v, rho=rho)
    assert s.shape == (3, 3)
    r = di.multi_worst_case_risk(v, scale=s)
    assert np.all(r <= rho)
    # proportional to the spreads, and tight: a slightly smaller factor fails
    ratio = s / np.ptp(v, axis=0)
    np.testing.assert_allclose(ratio, np.repeat(ratio[:, :1], 3, axis=1), rtol=1e-15)
    assert np.all(di.multi_worst_case_risk(v, scale=s * (1 - 1e-9)) > rho)
    assert np.all(di.multi_tight_scale(v, rho=1 / 300) == np.inf)
    assert np.all(di.multi_tight_scale(v, rho=1.0) == 0.0)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: di.multi_worst_case_risk([[1.0, np.nan]], scale=[1.0, 1.0]), "values"),
        (lambda: di.multi_worst_case_risk([[1.0, 2.0]], scale=[1.0]), "scale"),
        (lambda: di.multi_worst_case_risk([[1.0, 2.0]], scale=[1.0, -1.0]), "scale"),
        (lambda: di.multi_tight_scale([[1.0, 2.0], [0.0, 1.0]], rho=1.5), "rho"),
        (lambda: di.multi_tight_scale([[1.0, 2.0], [0.0, 1.0]], rho=0.5, spread=[1.0]), "spread"),
    ],
)
def test_bad_input(call, name):
    with pytest.raises(ValueError, match=name):
        call()
