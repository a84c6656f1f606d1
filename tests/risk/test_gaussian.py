"""(rho, delta)-identifiability under Gaussian noise (Mathematics page, section 7)."""

import numpy as np
import pytest
from scipy.stats import norm

import diffident as di
from diffident.testing.dense import quad_gaussian_delta


def test_two_worlds_closed_form():
    rho = np.array([0.55, 0.7, 0.9, 0.99])
    for d, s in [(1.0, 1.0), (2.0, 0.3), (0.5, 4.0)]:
        expect = norm.cdf(d / (2 * s) + s * np.log((1 - rho) / rho) / d)
        np.testing.assert_allclose(di.gaussian_delta([0.0, d], rho=rho, sigma=s, world=0), expect, rtol=1e-10,
                                   atol=1e-300)
        np.testing.assert_allclose(di.gaussian_delta([0.0, d], rho=rho, sigma=s), expect, rtol=1e-10, atol=1e-300)


def test_against_quadrature():
    rng = np.random.default_rng(8)
    for trial in range(8):
        m = int(rng.integers(3, 8))
        v = np.sort(rng.normal(size=m) * 2)
        c = rng.integers(1, 3, m).astype(float) if trial % 2 else None
        rho = float(rng.uniform(0.3, 0.9))
        s = float(rng.uniform(0.3, 2.0))
        for j in range(m):
            got = di.gaussian_delta(v, rho=rho, sigma=s, world=j, counts=c)
            assert got == pytest.approx(quad_gaussian_delta(v, rho=rho, sigma=s, world=j, counts=c), abs=1e-11)


def test_edges_and_shapes():
    v = [0.0, 1.0, 3.0]
    assert di.gaussian_delta(v, rho=1.0, sigma=1.0) == 0.0
    assert di.gaussian_delta(v, rho=0.0, sigma=1.0) == 1.0
    out = di.gaussian_delta(v, rho=np.array([[0.5], [0.9]]), sigma=np.array([0.5, 1.0, 2.0]))
    assert out.shape == (2, 3)
    assert np.all(np.diff(out, axis=1) <= 1e-15)  # more noise, less risk (here)
    assert isinstance(di.gaussian_delta(v, rho=0.5, sigma=1.0, world=1), float)
    # one value: the posterior is the constant share
    assert di.gaussian_delta([2.0, 2.0], rho=0.4, sigma=1.0) == 1.0
    assert di.gaussian_delta([2.0, 2.0], rho=0.5, sigma=1.0) == 0.0


def test_sigma_for_is_conservative():
    v = np.array([0.0, 1.0, 2.0, 4.0])
    for rho, delta in [(0.9, 0.05), (0.6, 0.1), (0.5, 0.01)]:
        s = di.gaussian_sigma_for(v, rho=rho, delta=delta)
        assert 0 < s < np.inf
        assert di.gaussian_delta(v, rho=rho, sigma=s) <= delta
        assert di.gaussian_delta(v, rho=rho, sigma=s * (1 - 1e-6)) > delta
    assert di.gaussian_sigma_for(v, rho=1.0, delta=0.1) == 0.0
    assert di.gaussian_sigma_for(v, rho=0.2, delta=0.1) == np.inf  # below 1/m


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: di.gaussian_delta([0.0, 1.0], rho=1.5, sigma=1.0), "rho"),
        (lambda: di.gaussian_delta([0.0, 1.0], rho=0.5, sigma=0.0), "sigma"),
        (lambda: di.gaussian_delta([0.0, 1.0], rho=0.5, sigma=1.0, world=5), "world"),
        (lambda: di.gaussian_sigma_for([0.0, 1.0], rho=0.5, delta=0.0), "delta"),
        (lambda: di.gaussian_sigma_for([0.0, 1.0], rho=0.5, delta=1.0), "delta"),
        (lambda: di.gaussian_sigma_for([0.0, 1.0], rho=1.0, delta=0.05, world=7), "world"),  # an edge target
        (lambda: di.gaussian_sigma_for([0.0, 1.0], rho=0.2, delta=0.05, world=7), "world"),  # unattainable
        (lambda: di.gaussian_delta([0.0, np.nan], rho=0.5, sigma=1.0), "values"),
    ],
)
def test_bad_input(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_sigma_for_is_batched_and_matches_single_targets():
    v = np.array([0.0, 1.0, 2.0, 4.0])
    rho = np.array([[0.9], [0.6], [0.5]])
    delta = np.array([0.05, 0.01])
    many = di.gaussian_sigma_for(v, rho=rho, delta=delta)
    assert many.shape == (3, 2)
    for i in range(3):
        for k in range(2):
            assert many[i, k] == di.gaussian_sigma_for(v, rho=rho[i, 0], delta=delta[k])
            assert di.gaussian_delta(v, rho=rho[i, 0], sigma=many[i, k]) <= delta[k]


def test_independent_of_the_posterior_kernels(monkeypatch):
    # the Gaussian evaluation has its own kernel (the posterior's are being rewritten)
    from diffident._risk import gaussian as _gaussian
    from diffident._risk import posterior as _posterior

    def boom(*args, **kwargs):
        raise AssertionError("gaussian_delta must not call _posterior._evaluate")

    monkeypatch.setattr(_posterior, "_evaluate", boom)
    monkeypatch.setattr(_gaussian, "_evaluate", boom, raising=False)  # a name imported from it
    assert di.gaussian_delta([0.0, 1.0], rho=0.9, sigma=1.0, world=0) == pytest.approx(0.0448271051214362, rel=1e-14)
    assert 0 < di.gaussian_sigma_for([0.0, 1.0, 2.0], rho=0.9, delta=0.05) < np.inf


def test_zero_weight_worlds_and_world_edges():
    v = [0.0, 1.0, 3.0]
    # a world of zero weight is never identified
    assert di.gaussian_delta(v, rho=0.5, sigma=1.0, world=1, counts=[1, 0, 1]) == 0.0
    assert di.gaussian_sigma_for(v, rho=0.5, delta=0.05, counts=[1, 0, 1], world=1) == 0.0
    # the default delta is the maximum over the worlds given one by one
    d = di.gaussian_delta(v, rho=0.6, sigma=0.8, prior=[1.0, 2.0, 1.0])
    each = di.gaussian_delta(v, rho=0.6, sigma=0.8, prior=[1.0, 2.0, 1.0], world=[0, 1, 2])
    assert d == each.max()


def test_convex_searches_of_the_search_module():
    from diffident._numerics import search as _search

    def ev(c):  # h(x) = x^2 - c per entry, and h'
        return lambda i, x: (x * x - c[i], 2.0 * x)

    c = np.array([2.0, -1.0, 0.0, 1e-300])
    lo, hi = np.full(4, -3.0), np.full(4, 5.0)
    h_lo, h_hi = 9.0 - c, 25.0 - c
    x, l2, h2, st = _search.convex_min(ev(c), lo, hi, h_lo, np.full(4, -6.0), h_hi, np.full(4, 10.0))
    assert st[0] == _search.CONVERGED and x[0] ** 2 < 2.0
    assert st[1] == _search.NOT_REACHED  # x^2 + 1 > 0: the tangents prove it
    assert st[2] == _search.NOT_REACHED  # x^2 >= 0, touching 0 at x = 0 (a zero slope there)
    assert st[3] == _search.CONVERGED and x[3] ** 2 < 1e-300
    # the ends of x^2 < 2 from the inside point 0: adjacent floats around sqrt(2)
    inside, outside, st = _search.convex_end(ev(np.array([2.0, 2.0])), [0.0, 0.0], [5.0, -3.0],
                                       [-2.0, -2.0], [0.0, 0.0], [23.0, 7.0], [10.0, -6.0])
    assert np.all(st == _search.CONVERGED)
    assert inside[0] ** 2 < 2.0 <= outside[0] ** 2 and np.nextafter(inside[0], 9) == outside[0]
    assert inside[1] ** 2 < 2.0 <= outside[1] ** 2 and np.nextafter(inside[1], -9) == outside[1]
