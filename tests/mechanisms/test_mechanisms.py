"""Mechanisms as values: check values, closed forms against their
definitions (integrals of the densities, sums for randomized response),
the properties of the curves, and the conventions of the package.
"""

import copy
import itertools
import math
import pickle
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats
from scipy.special import ndtri

import diffident
from diffident import ApproxDP, Gaussian, Laplace, Mechanism, PureDP, RandomizedResponse

SETTINGS = settings(max_examples=40, deadline=None)


def examples():
    return [Laplace(1.0), Laplace(0.3, sensitivity=2.0), Gaussian(1.0), Gaussian(0.5, sensitivity=0.7),
            RandomizedResponse(0.5, d=4), RandomizedResponse(0.75), RandomizedResponse(0.9, d=7),
            PureDP(1.0), PureDP(0.1), ApproxDP(1.0, delta=1e-3), ApproxDP(0.5, delta=0.2)]


# -- the check values of the brief and the Mathematics page -----------------------------------------


def test_check_values():
    assert Laplace(1.0).tradeoff(0.01) == pytest.approx(0.972817, abs=5e-7)
    assert Laplace(1.0).advantage() == pytest.approx(1 - math.exp(-0.5), rel=1e-15)
    assert round(Laplace(1.0).advantage(), 6) == 0.393469
    assert Gaussian(1.0).advantage() == pytest.approx(2 * stats.norm.cdf(0.5) - 1, rel=1e-14)
    assert round(Gaussian(1.0).advantage(), 6) == 0.382925
    assert Gaussian(1.0).delta(1.0) == pytest.approx(0.1269367375, abs=1e-10)
    assert round(ApproxDP(1.0, delta=1e-3).tradeoff(0.8), 4) == 0.0732
    assert Laplace(1.0).posterior(0.5) == pytest.approx(0.731059, abs=5e-7)
    assert PureDP(1.0).advantage() == pytest.approx((math.e - 1) / (math.e + 1), rel=1e-15)
    assert RandomizedResponse(0.5, d=4).pure_epsilon == pytest.approx(math.log(3), rel=1e-15)


def test_the_package_exports_them():
    for name in ("Mechanism", "Laplace", "Gaussian", "RandomizedResponse", "PureDP", "ApproxDP"):
        assert name in diffident.__all__
        assert getattr(diffident, name) is globals()[name]


# -- closed forms against their definitions ---------------------------------------------------------


def _hockey(pa, pb, e, pieces):
    """The integral of (p_A - e^e p_B)_+ (both orders), piece by piece."""
    def one(p, q):
        return sum(integrate.quad(lambda x: max(p(x) - math.exp(e) * q(x), 0.0), lo, hi, limit=400,
                                  epsabs=1e-13, epsrel=1e-11)[0] for lo, hi in pieces)
    return max(one(pa, pb), one(pb, pa))


def _pieces(cuts):
    cuts = sorted(cuts)
    return [(-np.inf, cuts[0])] + list(itertools.pairwise(cuts)) + [(cuts[-1], np.inf)]


@SETTINGS
@given(b=st.floats(0.2, 5.0), s=st.floats(0.1, 3.0), e=st.floats(0.0, 4.0))
def test_laplace_delta_is_the_hockey_stick(b, s, e):
    pa = stats.laplace(0.0, b).pdf
    pb = stats.laplace(s, b).pdf
    # cut where p_A = e^e p_B, (s - e b) / 2, and its mirror: quad misses a kink
    kinks = [c for c in ((s - e * b) / 2.0, (s + e * b) / 2.0) if 0.0 < c < s]
    ref = _hockey(pa, pb, e, _pieces([0.0, s, *kinks]))
    assert Laplace(b, sensitivity=s).delta(e) == pytest.approx(ref, rel=1e-8, abs=1e-12)


@SETTINGS
@given(sigma=st.floats(0.3, 5.0), s=st.floats(0.1, 3.0), e=st.floats(0.0, 4.0))
def test_gaussian_delta_is_the_hockey_stick(sigma, s, e):
    pa = stats.norm(0.0, sigma).pdf
    pb = stats.norm(s, sigma).pdf
    mid = s / 2 + e * sigma**2 / s  # where p_A = e^e p_B (or the reverse)
    ref = _hockey(pa, pb, e, _pieces([-40 * sigma, s / 2 - e * sigma**2 / s, mid, s + 40 * sigma]))
    assert Gaussian(sigma, sensitivity=s).delta(e) == pytest.approx(ref, rel=1e-8, abs=1e-12)


def test_gaussian_delta_against_fifty_digits_at_the_extremes():
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 50

    def ref(e, mu):
        e, mu = mp.mpf(e), mp.mpf(mu)
        return float(mp.ncdf(-e / mu + mu / 2) - mp.e**e * mp.ncdf(-e / mu - mu / 2))

    for mu in (1e-8, 1e-4, 1e-2, 0.3, 1.0, 3.0, 10.0, 40.0):
        eps = np.array([0, 1e-9, 1e-6, 1e-3, 0.1, 1, 3, 10, 50, 200, 700.0])
        got = Gaussian(1.0, sensitivity=mu).delta(eps)
        want = np.array([ref(e, mu) for e in eps])
        normal = want > 1e-300
        np.testing.assert_allclose(got[normal], want[normal], rtol=1e-12)
        assert np.all(got[~normal] <= 1e-300)


def _rr_dists(p, d):
    q = (1 - p) / (d - 1)
    a = np.full(d, q)
    b = np.full(d, q)
    a[0], b[1] = p, p
    a[1], b[0] = q, q
    return a, b


@SETTINGS
@given(d=st.integers(2, 6), u=st.floats(0.0, 1.0), e=st.floats(0.0, 4.0))
def test_rr_delta_is_the_sum(d, u, e):
    p = 1 / d + u * (1 - 1 / d)
    a, b = _rr_dists(p, d)
    ref = max(np.maximum(a - math.exp(e) * b, 0).sum(), np.maximum(b - math.exp(e) * a, 0).sum())
    assert RandomizedResponse(p, d=d).delta(e) == pytest.approx(ref, rel=1e-12, abs=1e-15)


def _np_curve(a, b, alphas):
    """The lower convex envelope of the (alpha, beta) of every deterministic test."""
    pts = []
    for mask in itertools.product([0, 1], repeat=len(a)):
        m = np.array(mask, dtype=bool)
        pts.append((a[m].sum(), 1 - b[m].sum()))  # reject A on m: alpha = P_A(m), beta = 1 - P_B(m)
    pts = np.array(pts)
    out = []
    for al in alphas:
        best = min(bt for at, bt in pts if at <= al + 1e-15)
        for (a1, b1), (a2, b2) in itertools.combinations(pts, 2):
            lo, hi = (a1, b1), (a2, b2)
            if a1 > a2:
                lo, hi = hi, lo
            if lo[0] <= al <= hi[0] and hi[0] > lo[0]:
                t = (al - lo[0]) / (hi[0] - lo[0])
                best = min(best, lo[1] + t * (hi[1] - lo[1]))
        out.append(best)
    return np.array(out)


@pytest.mark.parametrize("p, d", [(0.5, 2), (0.8, 2), (0.5, 4), (0.3, 5), (0.9, 3), (1.0, 3), (1 / 3 + 1e-3, 3)])
def test_rr_tradeoff_is_neyman_pearson(p, d):
    a, b = _rr_dists(p, d)
    alphas = np.linspace(0, 1, 41)
    np.testing.assert_allclose(RandomizedResponse(p, d=d).tradeoff(alphas), _np_curve(a, b, alphas), atol=1e-12)


@SETTINGS
@given(b=st.floats(0.2, 5.0), s=st.floats(0.1, 3.0), t=st.floats(-6.0, 8.0))
def test_laplace_tradeoff_is_neyman_pearson(b, s, t):
    # the threshold tests "B if R > t" are Neyman-Pearson (the likelihood ratio is monotone)
    alpha, beta = stats.laplace(0, b).sf(t), stats.laplace(s, b).cdf(t)
    assert Laplace(b, sensitivity=s).tradeoff(alpha) == pytest.approx(beta, rel=1e-7, abs=1e-12)


@SETTINGS
@given(sigma=st.floats(0.2, 5.0), s=st.floats(0.1, 3.0), t=st.floats(-4.0, 6.0))
def test_gaussian_tradeoff_is_neyman_pearson(sigma, s, t):
    alpha, beta = stats.norm(0, sigma).sf(t), stats.norm(s, sigma).cdf(t)
    assert Gaussian(sigma, sensitivity=s).tradeoff(alpha) == pytest.approx(beta, rel=1e-7, abs=1e-12)


@SETTINGS
@given(eps=st.floats(0.0, 5.0), delta=st.floats(0.0, 0.5), e=st.floats(0.0, 6.0))
def test_generic_profile_is_the_conjugate_of_its_curve(eps, delta, e):
    # delta(e) = sup_alpha 1 - e^e alpha - beta(alpha), reached at a corner of the curve
    m = ApproxDP(eps, delta=delta)
    corners = np.array([0.0, (1 - delta) / (1 + math.exp(eps)), 1 - delta, 1.0])
    grid = np.concatenate([np.linspace(0, 1, 2001), corners])
    ref = np.max(1 - math.exp(e) * grid - m.tradeoff(grid))
    assert m.delta(e) == pytest.approx(max(ref, 0.0), rel=1e-12, abs=1e-15)


def test_pure_dp_is_warners_coin():
    for eps in (0.0, 0.1, 1.0, 3.0):
        p = math.exp(eps) / (1 + math.exp(eps))
        rr, pure = RandomizedResponse(p, d=2), PureDP(eps)
        grid = np.linspace(0, 1, 101)
        np.testing.assert_allclose(pure.tradeoff(grid), rr.tradeoff(grid), atol=1e-14)
        np.testing.assert_allclose(pure.delta(np.linspace(0, 4, 41)), rr.delta(np.linspace(0, 4, 41)), atol=1e-14)
        np.testing.assert_allclose(pure.posterior(grid), rr.posterior(grid), rtol=1e-14)
        np.testing.assert_allclose(pure.epsilon(grid), rr.epsilon(grid), rtol=1e-12, atol=1e-12)


# -- the inverse, the curves' properties, advantage and posterior --------------------------------------


@SETTINGS
@given(i=st.integers(0, 10), d=st.floats(0.0, 1.0) | st.sampled_from([1e-300, 1e-12, 1e-5, 0.5]))
def test_epsilon_is_a_conservative_inverse(i, d):
    m = examples()[i]
    e = m.epsilon(d)
    assert e >= 0
    if math.isinf(e):
        assert d < m.delta(1e300) or d == 0.0
        return
    assert m.delta(e) <= d
    if e > 0:  # and not much above the true one
        below = e - 1e-9 * max(1.0, e)
        assert below < 0 or m.delta(below) > d * (1 - 1e-6)


def test_epsilon_edges():
    assert Laplace(1.0).epsilon(0.0) == 1.0
    assert Laplace(1.0).epsilon(1.0) == 0.0
    assert Laplace(1.0).epsilon(Laplace(1.0).advantage()) <= 1e-12
    assert Gaussian(1.0).epsilon(0.0) == math.inf
    assert ApproxDP(1.0, delta=1e-3).epsilon(1e-3) == 1.0
    assert ApproxDP(1.0, delta=1e-3).epsilon(1e-4) == math.inf
    assert PureDP(2.0).epsilon(0.0) == 2.0
    np.testing.assert_array_equal(Laplace(1.0).epsilon(np.array([[0.0, 1.0]])), [[1.0, 0.0]])
    # no privacy at all: only delta 1 is met (at epsilon 0); a guarantee with delta 1 is met everywhere
    np.testing.assert_array_equal(RandomizedResponse(1.0, d=3).epsilon([0.0, 0.5, 1.0]), [math.inf, math.inf, 0.0])
    np.testing.assert_array_equal(ApproxDP(1.0, delta=1.0).epsilon([0.5, 1.0]), [math.inf, 0.0])
    # just above the guarantee's delta: just below its epsilon, never below the true value
    m = ApproxDP(1.0, delta=1e-3)
    e = m.epsilon(1e-3 * (1 + 1e-9))
    true = 1.0 + math.log1p(-(1e-12 / (1 - 1e-3)) * (1 + math.exp(-1.0)))
    assert true <= e < 1.0 and e == pytest.approx(true, abs=1e-15)
    with pytest.raises(TypeError):
        Mechanism()


@pytest.mark.parametrize("m", examples(), ids=repr)
def test_tradeoff_is_a_tradeoff_curve(m):
    a = np.linspace(0, 1, 4001)
    f = m.tradeoff(a)
    assert np.all(np.diff(f) <= 1e-15)                 # non-increasing
    assert np.all(f <= 1 - a + 1e-15)                 # below the diagonal
    assert np.all(np.diff(f, 2) >= -1e-12)            # convex
    # symmetric: f is its own inverse where it is strictly decreasing
    inner = a[(f > 1e-9) & (a > 1e-9)]
    np.testing.assert_allclose(m.tradeoff(m.tradeoff(inner)), inner, atol=1e-9)
    np.testing.assert_allclose(m.tpr_at_fpr(a), 1 - f, atol=0)


@pytest.mark.parametrize("m", examples(), ids=repr)
def test_advantage_is_the_largest_gap(m):
    a = np.linspace(0, 1, 200001)
    gap = np.max(1 - a - m.tradeoff(a))
    assert gap - 1e-15 <= m.advantage() <= gap + 3 * 5e-6  # the grid's spacing times the slopes' change
    assert m.advantage() == m.delta(0.0)


@pytest.mark.parametrize("m", [Laplace(1.0), Laplace(0.4, sensitivity=1.5), RandomizedResponse(0.5, d=4),
                               RandomizedResponse(0.7)], ids=repr)
@pytest.mark.parametrize("prior", [0.0, 1e-3, 0.2, 0.5, 0.9, 1.0])
def test_posterior_by_brute_force(m, prior):
    if isinstance(m, Laplace):
        x = np.linspace(-5, 5, 10001)
        pa, pb = stats.laplace(0, m.scale).pdf(x), stats.laplace(m.sensitivity, m.scale).pdf(x)
    else:
        pa, pb = _rr_dists(m.p, m.d)
    with np.errstate(invalid="ignore"):
        post = prior * pa / (prior * pa + (1 - prior) * pb)
    assert m.posterior(prior) == pytest.approx(np.nanmax(post), rel=1e-12, abs=1e-300)


def test_posterior_without_a_pure_epsilon():
    g = Gaussian(1.0)
    assert g.posterior(0.0) == 0.0
    np.testing.assert_array_equal(g.posterior([1e-9, 0.5, 1.0]), [1.0, 1.0, 1.0])
    x = -40.0  # far on A's side the ratio p_A / p_B grows without bound
    ratio = math.exp(stats.norm(0, 1).logpdf(x) - stats.norm(1, 1).logpdf(x))
    assert 0.5 * ratio / (0.5 * ratio + 0.5) > 1 - 1e-15
    assert ApproxDP(1.0, delta=1e-6).posterior(0.5) == 1.0
    assert PureDP(1.0).posterior(0.5) == ApproxDP(1.0, delta=0.0).posterior(0.5)


def test_identification_and_success_bounds():
    eps, m = 1.3, np.array([1, 2, 10, 1000.0])
    np.testing.assert_allclose(PureDP(eps).identification_bound(m), 1 / (1 + (m - 1) * np.exp(-eps)), rtol=1e-15)
    np.testing.assert_allclose(PureDP(eps).identification_bound(m), diffident.rho_for_epsilon(eps, m=m), rtol=1e-14)
    assert Laplace(1.0).identification_bound(2) == Laplace(1.0).posterior(0.5)
    assert Gaussian(1.0).identification_bound(5) == 1.0
    for mech in examples():
        np.testing.assert_array_equal(mech.success_bound(m), mech.tpr_at_fpr(1 / m))
        np.testing.assert_allclose(mech.success_bound(m), 1 - mech.tradeoff(1 / m), rtol=1e-13)
        assert mech.success_bound(1) == 1.0
    assert Gaussian(1.0).success_bound(2) == pytest.approx(stats.norm.cdf(1.0), rel=1e-14)


# -- extremes ----------------------------------------------------------------------------------------


def test_extreme_scales():
    tiny, huge = Laplace(1e-300), Laplace(1e300)
    assert tiny.pure_epsilon == pytest.approx(1e300, rel=1e-15) and huge.pure_epsilon == 1e-300
    assert tiny.advantage() == 1.0 and huge.advantage() == pytest.approx(0.5e-300, rel=1e-15)
    assert tiny.delta(700.0) == 1.0 and huge.delta(0.0) == pytest.approx(0.5e-300, rel=1e-15)
    assert tiny.tradeoff(1e-9) == 0.0 and tiny.tradeoff(0.0) == 1.0
    assert huge.tradeoff(0.3) == pytest.approx(0.7, rel=1e-15)
    assert tiny.posterior(1e-300) == 1.0 and huge.posterior(0.25) == pytest.approx(0.25, rel=1e-15)
    assert tiny.epsilon(0.0) == tiny.pure_epsilon and huge.epsilon(1e-300) == 0.0
    g_tiny, g_huge = Gaussian(1e-300, sensitivity=1e-300), Gaussian(1e300)
    assert g_tiny.advantage() == pytest.approx(math.erf(0.5 / math.sqrt(2)), rel=1e-14)
    assert g_huge.advantage() == pytest.approx(1e-300 / math.sqrt(2 * math.pi), rel=1e-12)
    with pytest.raises(ValueError, match="sensitivity / scale must be finite"):
        Laplace(1e-300, sensitivity=1e300)


def test_large_epsilons_and_mu():
    e = np.array([0.0, 1.0, 100.0, 700.0, 1e10, np.inf])
    for m in (Laplace(1.0), Gaussian(1 / 40), PureDP(700.0), ApproxDP(700.0, delta=1e-9),
              RandomizedResponse(1 - 1e-16)):
        d = m.delta(e)
        assert np.all(np.isfinite(d)) and np.all(np.diff(d) <= 0)
        assert d[-1] == (1e-9 if isinstance(m, ApproxDP) and m.pair[1] else 0.0)
        f = m.tradeoff(np.array([0.0, 1e-300, 0.5, 1.0]))
        assert np.all(np.isfinite(f)) and f[-1] == 0.0
    g = Gaussian(1.0, sensitivity=40.0)
    assert g.advantage() == 1.0
    want = stats.norm.cdf(-700 / 40 + 20) - math.exp(700 + stats.norm.logcdf(-700 / 40 - 20))
    assert g.delta(700.0) == pytest.approx(want, rel=1e-9)
    assert g.tradeoff(1e-300) == pytest.approx(stats.norm.cdf(-stats.norm.ppf(1e-300) - 40), rel=1e-9)
    assert PureDP(700.0).posterior(1e-300) == pytest.approx(1 / (1 + math.exp(-700) / 1e-300), rel=1e-12)
    assert RandomizedResponse(1.0, d=3).pure_epsilon == math.inf
    assert RandomizedResponse(1.0, d=3).posterior(0.1) == 1.0
    assert RandomizedResponse(1.0, d=3).advantage() == 1.0
    # many categories: q underflows past e^eps's range, p - q does not
    many = RandomizedResponse(0.5, d=2**53)
    assert many.pure_epsilon == pytest.approx(math.log(0.5 * (2.0**53 - 1) / 0.5), rel=1e-15)
    assert many.advantage() == pytest.approx(0.5 - 0.5 / (2.0**53 - 1), rel=1e-15)
    assert many.delta(30.0) == pytest.approx(0.5 - math.exp(30) * 0.5 / (2.0**53 - 1), rel=1e-14)
    with pytest.raises(ValueError, match=r"d must be at most 2\*\*53"):
        RandomizedResponse(0.5, d=2**53 + 1)


# -- values: immutable, equal by value, readable ----------------------------------------------------------


def test_repr_and_value_semantics():
    assert repr(Laplace(1.0)) == "Laplace(scale=1.0, sensitivity=1.0)"
    assert repr(Gaussian(2, sensitivity=3)) == "Gaussian(sigma=2.0, sensitivity=3.0)"
    assert repr(RandomizedResponse(0.5, d=4)) == "RandomizedResponse(p=0.5, d=4)"
    assert repr(PureDP(1)) == "PureDP(epsilon=1.0)"
    assert repr(ApproxDP(1, delta=1e-5)) == "ApproxDP(epsilon=1.0, delta=1e-05)"
    assert Laplace(1) == Laplace(1.0) and hash(Laplace(1)) == hash(Laplace(1.0))
    assert Laplace(1.0) != Gaussian(1.0) and PureDP(1.0) != ApproxDP(1.0, delta=0.0)
    assert len({Laplace(1.0), Laplace(1.0), Laplace(2.0)}) == 2
    for m in examples():
        assert eval(repr(m)) == m
        assert pickle.loads(pickle.dumps(m)) == m and copy.deepcopy(m) == m
        assert isinstance(m, Mechanism)
    assert ApproxDP(1.0, delta=1e-3).pair == (1.0, 1e-3) and PureDP(2.0).pair == (2.0, 0.0)


@pytest.mark.parametrize("m", examples(), ids=repr)
def test_immutable(m):
    with pytest.raises(AttributeError):
        m.scale = 3.0
    with pytest.raises(AttributeError):
        m._values = None
    with pytest.raises(AttributeError):
        del m.delta
    name = type(m).__slots__[0] if type(m).__slots__ else "_epsilon"
    with pytest.raises(AttributeError):
        setattr(m, name, 0.0)


def test_scalars_and_arrays():
    m = Gaussian(1.0)
    for method in (m.delta, m.epsilon, m.tradeoff, m.tpr_at_fpr, m.posterior):
        assert type(method(0.5)) is float
        assert type(method(np.float64(0.5))) is float
        out = method([[0.1, 0.2], [0.3, 0.4]])
        assert isinstance(out, np.ndarray) and out.shape == (2, 2) and out.dtype == np.float64
    assert type(m.identification_bound(3)) is float and type(m.success_bound(3)) is float
    assert m.success_bound([2, 3]).shape == (2,)
    assert type(m.advantage()) is float


# -- bad input ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("make, match", [
    (lambda: Laplace(0.0), r"scale must be a finite number > 0, got 0\.0"),
    (lambda: Laplace(-1.0), r"scale .* got -1\.0"),
    (lambda: Laplace(float("nan")), "scale .* got nan"),
    (lambda: Laplace(float("inf")), "scale .* got inf"),
    (lambda: Laplace(1.0, sensitivity=0.0), "sensitivity .* got 0.0"),
    (lambda: Gaussian(0.0), "sigma .* got 0.0"),
    (lambda: Gaussian(1.0, sensitivity=float("nan")), "sensitivity .* got nan"),
    (lambda: RandomizedResponse(0.2, d=4), r"p must lie in \[1/d, 1\].*0\.2 with d = 4"),
    (lambda: RandomizedResponse(1.5), r"p must lie .*1\.5"),
    (lambda: RandomizedResponse(float("nan")), "p must lie .*nan"),
    (lambda: RandomizedResponse(0.5, d=1), "d must be at least 2, got 1"),
    (lambda: PureDP(-0.1), r"epsilon must be a finite number >= 0, got -0\.1"),
    (lambda: PureDP(float("inf")), "epsilon .* got inf"),
    (lambda: ApproxDP(1.0, delta=1.5), r"delta must lie in \[0\.0, 1\.0\]; got 1\.5"),
    (lambda: ApproxDP(1.0, delta=-1e-9), "delta must lie in .* got -1e-09"),
    (lambda: Laplace(1.0).delta(-0.5), "epsilon must lie in .* got -0.5"),
    (lambda: Laplace(1.0).delta([0.0, float("nan")]), "epsilon must not be NaN; got nan at index 1"),
    (lambda: Laplace(1.0).epsilon(1.1), "delta must lie in .* got 1.1"),
    (lambda: Gaussian(1.0).tradeoff(-0.1), "alpha must lie in .* got -0.1"),
    (lambda: Gaussian(1.0).tpr_at_fpr(2.0), "fpr must lie in .* got 2.0"),
    (lambda: Gaussian(1.0).posterior(1.5), "prior must lie in .* got 1.5"),
    (lambda: PureDP(1.0).identification_bound(0.5), "m .* must be >= 1; got 0.5"),
    (lambda: PureDP(1.0).success_bound(float("inf")), "m must be finite .* got inf"),
])
def test_bad_input(make, match):
    with pytest.raises(ValueError, match=match):
        make()


@pytest.mark.parametrize("make", [
    lambda: RandomizedResponse(0.5, d=2.0), lambda: RandomizedResponse(0.5, d=True), lambda: Laplace("1"),
    lambda: Laplace(1.0).delta("a"), lambda: Laplace(1.0, 2.0), lambda: ApproxDP(1.0, 1e-5),
])
def test_type_errors(make):
    with pytest.raises(TypeError):
        make()


# -- agreement with the package's existing functions -------------------------------------------------------


def test_agrees_with_the_rest_of_the_package():
    eps = np.array([0.0, 0.3, 1.0, 3.0, 10.0])
    for sigma, s in ((1.0, 1.0), (0.7, 2.0), (5.0, 0.3)):
        got = Gaussian(sigma, sensitivity=s).delta(eps)
        np.testing.assert_allclose(got, diffident.analytic_gaussian_delta(sigma, epsilon=eps, sensitivity=s),
                                   rtol=1e-9, atol=1e-300)
    # the analytic sigma for (eps, delta) meets delta at eps
    sigma = diffident.analytic_gaussian_sigma(1.0, delta=1e-5)
    assert Gaussian(sigma).delta(1.0) <= 1e-5 * (1 + 1e-9)
    assert Gaussian(sigma).epsilon(1e-5) == pytest.approx(1.0, rel=1e-9)
    prior = np.array([0.01, 0.3, 0.9])
    np.testing.assert_allclose(PureDP(1.5).posterior(prior), diffident.posterior_bound(1.5, prior=prior), rtol=1e-14)
    for e, d in ((0.5, 2), (1.0, 5), (4.0, 10)):
        m = RandomizedResponse(diffident.rr.kary_p(e, d=d), d=d)
        assert m.pure_epsilon == pytest.approx(diffident.rr.kary_epsilon(m.p, d=d), rel=1e-15)
        assert m.pure_epsilon <= e


def test_epsilon_is_conservative_against_fifty_digits():
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 50
    rng = np.random.default_rng(7)
    for _ in range(200):
        b, s = rng.uniform(0.1, 3), rng.uniform(0.1, 3)
        p, d = rng.uniform(0.5, 1.0), int(rng.integers(2, 9))
        p = max(p, 1 / d + 1e-9)
        for delta in (rng.uniform(0, 1) * Laplace(b, sensitivity=s).advantage(), 10.0 ** rng.uniform(-12, -1)):
            e = Laplace(b, sensitivity=s).epsilon(delta)
            true = 1 - mp.exp((mp.mpf(e) - mp.mpf(s) / mp.mpf(b)) / 2) if e < s / b else 0
            assert true <= delta
            m = RandomizedResponse(p, d=d)
            e = m.epsilon(delta)
            if e > 0:
                P = mp.mpf(p)
                assert max(P - mp.exp(mp.mpf(e)) * (1 - P) / (d - 1), 0) <= delta
            e = Gaussian(1.0, sensitivity=s).epsilon(delta)
            mu, E = mp.mpf(s), mp.mpf(e)
            assert mp.ncdf(-E / mu + mu / 2) - mp.exp(E) * mp.ncdf(-E / mu - mu / 2) <= delta


def test_posterior_and_identification_are_the_public_functions_bit_for_bit():
    """One implementation per quantity: a mechanism's posterior and
    identification bound are `posterior_bound` and `rho_for_epsilon` at its
    pure epsilon, the same bits (random inputs, and Laplace's epsilon)."""
    rng = np.random.default_rng(27)
    eps = np.concatenate([rng.uniform(0, 40, 300), 10.0 ** rng.uniform(-12, 2, 100)])
    m = np.floor(10.0 ** rng.uniform(0, 15, eps.size))
    p = np.concatenate([rng.uniform(0, 1, eps.size - 10), [0.0, 1.0, 1e-300, 5e-324, 0.5, 1 - 2**-53, 2**-53, 0.25,
                                                          0.75, 1e-9]])
    for e, mm, pp in zip(eps, m, p, strict=True):
        mech = PureDP(float(e))
        assert mech.identification_bound(mm) == diffident.rho_for_epsilon(e, m=mm)
        assert mech.posterior(pp) == diffident.posterior_bound(e, prior=pp)
    for scale in 10.0 ** rng.uniform(-3, 3, 50):
        lap = Laplace(float(scale), sensitivity=2.0)
        assert lap.posterior(0.3) == diffident.posterior_bound(lap.pure_epsilon, prior=0.3)
        assert lap.identification_bound(7) == diffident.rho_for_epsilon(lap.pure_epsilon, m=7)


@pytest.mark.parametrize("cls", [Laplace, diffident.DiscreteLaplace])
def test_pure_epsilon_is_the_exact_ratio_rounded_up(cls):
    """Delta / scale rounded upward, so that every measure read from it (the
    profile at and below it, the posterior, the identification bound, what
    calibrate checks) is never below the exact one: the smallest float at
    or above the exact ratio, on random and on exactly representable pairs."""
    rng = np.random.default_rng(28)
    scales = np.concatenate([10.0 ** rng.uniform(-300, 300, 400), [1 / 3, 7.3, 0.1, 2.0, 5e-324 * 2**60]])
    for b in scales:
        d = float(rng.integers(1, 100)) if cls is not Laplace else float(10.0 ** rng.uniform(-5, 5))
        if not np.isfinite(d / b) or d / b == 0.0:
            continue
        got = cls(float(b), sensitivity=d).pure_epsilon
        exact = Fraction(d) / Fraction(float(b))
        assert Fraction(got) >= exact
        assert Fraction(float(np.nextafter(got, 0.0))) < exact


def test_calibrated_laplace_scale_meets_a_zero_delta_exactly():
    """A delta of 0 at epsilon needs Delta / scale <= epsilon exactly (not
    only in floats): 1/3 rounds below the exact third, so 3.0 needs the next
    scale up, as Laplace.from_epsilon gives."""
    for eps in (3.0, 7.3, 0.1, 1e-300, 1e300):
        b = diffident.calibrate(Laplace, 0.0, measure="delta", epsilon=eps)
        assert Fraction(1) / Fraction(b) <= Fraction(eps)
        assert b == Laplace.from_epsilon(eps).scale


def test_gaussian_profile_is_analytic_gaussian_delta_bit_for_bit():
    """A Gaussian's delta(epsilon) and advantage are `analytic_gaussian_delta`
    at its sigma and sensitivity, the same bits (random inputs)."""
    rng = np.random.default_rng(2027)
    for _ in range(300):
        sigma, sens = 10.0 ** rng.uniform(-4, 4), 10.0 ** rng.uniform(-3, 3)
        e = np.concatenate([10.0 ** rng.uniform(-6, 3, 8), [0.0, np.inf]])
        mech = Gaussian(float(sigma), sensitivity=float(sens))
        np.testing.assert_array_equal(mech.delta(e), diffident.analytic_gaussian_delta(sigma, epsilon=e,
                                                                                      sensitivity=sens))
        assert mech.advantage() == mech.delta(0.0)


@pytest.mark.parametrize("fpr", [5e-324, 1e-300, 1e-100, 1e-15, 1e-6])
def test_tpr_at_small_fpr_without_cancellation(fpr):
    """Below the first corner of the curve the TPR is e^eps times the FPR
    (plus delta): formed directly, not as 1 - beta, so it keeps its digits
    at every FPR down to subnormals (Laplace, the guarantees, randomized
    response; the Gaussian's Phi(Phi^-1(FPR) + mu) to 1e-12)."""
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 50
    for mech, want in [
        (Laplace(1.0), mp.e * mp.mpf(fpr)),
        (PureDP(2.0), mp.exp(2) * mp.mpf(fpr)),
        (diffident.ApproxDP(1.0, delta=1e-6), mp.mpf(1e-6) + mp.e * mp.mpf(fpr)),
        (diffident.RandomizedResponse(0.75), 3 * mp.mpf(fpr)),
    ]:
        got = mech.tpr_at_fpr(fpr)
        assert abs(mp.mpf(got) - want) <= 4e-16 * want + mp.mpf(5e-324), (mech, fpr, got)
        assert fpr == 5e-324 or mech.success_bound(1.0 / fpr) == got
    gauss = diffident.Gaussian(1.0)
    z = mp.findroot(lambda x: mp.log(mp.ncdf(x)) - mp.log(mp.mpf(fpr)), float(ndtri(fpr)))
    want = mp.ncdf(z + 1)
    assert abs(mp.mpf(gauss.tpr_at_fpr(fpr)) - want) <= 1e-12 * want
