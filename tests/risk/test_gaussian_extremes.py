"""Gaussian (rho, delta)-identifiability at its edges, against an independent
60-digit mpmath reference (Mathematics page, section 7).

The reference works on the response R itself (not in the library's units of
the noise): the posterior P(w_j | R) from its definition, the interval
{P > rho} located by bisection in mpmath on the convex log(rho / P), and the
normal probability of the interval from mpmath's CDF.  Its working precision
grows with the scales involved, so that R = f_j + 60 sigma still resolves
sigma next to |f_j| and the exponents keep 60 digits of their differences.
"""

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import diffident as di

EPS = np.finfo(float).eps

def deterministic(n):
    return settings(derandomize=True, database=None, deadline=None, max_examples=n,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


# ---------------------------------------------------------------- reference --

def _bits(values, sigma):
    """Working precision: R = f_j + t sigma must resolve 2^-240 sigma next
    to |f_j|, and the energies (about 60^2 / 2) must keep 60 digits of
    their differences, which can be as small as (min spacing / sigma)^2."""
    s = float(sigma)
    big = max(abs(float(v)) for v in values)
    diffs = [abs(float(a) - float(b)) for a in values for b in values if a != b]
    small = min([d for d in diffs if 0 < d < math.inf], default=s)
    lb = math.log2(big) if big > 0 else -1100.0
    return int(290 + max(0.0, lb - math.log2(s)) + 2 * max(0.0, math.log2(s) - math.log2(small)))


def reference(values, rho, sigma, j, counts=None, prior=None, span=60):
    """(delta, a, b): delta to 60 digits, and the interval's ends in units
    of the noise, (a, b) = ((R_a - f_j) / sigma, (R_b - f_j) / sigma)
    (clipped to +-span; None, None when empty)."""
    with mp.workprec(max(_bits(values, sigma), 264)):
        m = len(values)
        f = [mp.mpf(float(v)) for v in values]
        c = [mp.mpf(1)] * m if counts is None else [mp.mpf(float(x)) for x in counts]
        p = [mp.mpf(1)] * m if prior is None else [mp.mpf(float(x)) for x in prior]
        r, s, fj = mp.mpf(float(rho)), mp.mpf(float(sigma)), f[j]
        if c[j] == 0 or p[j] == 0 or r >= 1:
            return mp.mpf(0), None, None
        if r == 0:
            return mp.mpf(1), -span, span
        live = [k for k in range(m) if c[k] * p[k] > 0]
        lw = [mp.log(c[k] * p[k]) for k in live]
        fl = [f[k] for k in live]
        two_s2 = 2 * s * s
        lr = mp.log(r) - mp.log(p[j])

        def terms(R):
            a = [lw[i] - (R - fl[i]) ** 2 / two_s2 for i in range(len(fl))]
            top = max(a)
            return top, [mp.exp(x - top) for x in a]

        def h(R):  # log(rho / P(w_j | R)): convex in R, negative where P > rho
            top, e = terms(R)
            return lr + top + mp.log(mp.fsum(e)) + (R - fj) ** 2 / two_s2

        def dh(R):
            _, e = terms(R)
            return ((R - fj) - mp.fsum(e[i] * (R - fl[i]) for i in range(len(fl))) / mp.fsum(e)) / (s * s)

        def bisect(fun, lo, hi, neg_lo):
            for _ in range(230):  # 2^-230 of the bracket: beyond 60 digits
                mid = (lo + hi) / 2
                if (fun(mid) < 0) == neg_lo:
                    lo = mid
                else:
                    hi = mid
            return (lo + hi) / 2

        lo, hi = fj - span * s, fj + span * s
        if dh(lo) >= 0:
            zmin = lo
        elif dh(hi) <= 0:
            zmin = hi
        else:
            zmin = bisect(dh, lo, hi, True)
        if h(zmin) >= 0:
            return mp.mpf(0), None, None
        a = lo if h(lo) < 0 else bisect(h, lo, zmin, False)
        b = hi if h(hi) < 0 else bisect(h, zmin, hi, True)
        za, zb = (a - fj) / s, (b - fj) / s
        # in the upper tail as a difference of survival functions
        mass = mp.ncdf(-za) - mp.ncdf(-zb) if za > 0 else mp.ncdf(zb) - mp.ncdf(za)
        return mass, float(za), float(zb)


def exact_delta(values, rho, sigma, j, counts=None, prior=None):
    return reference(values, rho, sigma, j, counts, prior)[0]


def worst_exact(values, rho, sigma, counts=None, prior=None, worlds=None):
    worlds = range(len(values)) if worlds is None else worlds
    return max(exact_delta(values, rho, sigma, j, counts, prior) for j in worlds)


def limit_share(values, j, counts=None, prior=None):
    """p_j / sum_k c_k p_k, exactly."""
    m = len(values)
    c = [1.0] * m if counts is None else counts
    p = [1.0] * m if prior is None else prior
    return Fraction(float(p[j])) / sum(Fraction(float(a)) * Fraction(float(b)) for a, b in zip(c, p, strict=False))


def tolerance(a, b):
    """The accuracy a float computation can promise, from the ends: each
    end of the interval is a float (half an ulp, |z| eps / 2, away from the
    exact end at best) and Phi there moves by |z| phi(z) per unit of z,
    i.e. by about (1 + z^2) eps / 2 of its tail mass min(Phi(z), Phi(-z)).
    16 times that leaves room for an end found to adjacent floats on an
    evaluation of log(rho / P) that is itself some ulps off."""
    tot = 0.0
    for z in (a, b):
        if z is not None and abs(z) < 40:
            tail = float(mp.ncdf(-abs(z)))
            tot += 16 * EPS * (1 + z * z) * tail
    return tot


def check_delta(values, rho, sigma, j, counts=None, prior=None):
    got = di.gaussian_delta(values, rho=rho, sigma=sigma, world=j, counts=counts, prior=prior)
    ex, a, b = reference(values, rho, sigma, j, counts, prior)
    err = abs(mp.mpf(got) - ex)
    # and a few ulps of the result: the CDF's own error and its rounding
    assert err <= tolerance(a, b) + 8 * EPS * ex + 1e-300, (got, ex, a, b)
    return got, ex


# -------------------------------------------------- regression: the edges --

def test_rho_fl_third_is_unattainable_for_three_worlds():
    # fl(1/3) < 1/3 = the infinite-noise share: no sigma keeps delta small
    assert Fraction(1 / 3) < Fraction(1, 3)
    assert di.gaussian_sigma_for([0.0, 1.0, 2.0], rho=1 / 3, delta=0.05) == np.inf
    # three equal worlds: the posterior is 1/3 > fl(1/3) whatever sigma
    assert di.gaussian_sigma_for([5.0, 5.0, 5.0], rho=1 / 3, delta=0.05) == np.inf
    assert di.gaussian_sigma_for([5.0, 5.0, 5.0], rho=np.nextafter(1 / 3, 1), delta=0.05) == 0.0


@pytest.mark.parametrize("rho", [np.nextafter(1 / 3, 1), 1 / 3 * (1 + 1e-12), 1 / 3 * (1 + 1e-6)])
def test_sigma_for_just_above_one_third_meets_the_target_exactly(rho):
    v = [0.0, 1.0, 2.0]
    s = di.gaussian_sigma_for(v, rho=rho, delta=0.05)
    assert 0 < s < np.inf
    assert worst_exact(v, rho, s) <= 0.05
    assert worst_exact(v, rho, s * (1 - 1e-6)) > 0.05  # and tight
    assert di.gaussian_delta(v, rho=rho, sigma=s) <= 0.05


def test_edges_with_weights_are_exact():
    v = [0.0, 1.0, 2.0]
    # counts: four worlds, each with infinite-noise share exactly 1/4
    assert di.gaussian_sigma_for(v, rho=0.25, delta=0.05, counts=[1, 2, 1]) == np.inf
    r = np.nextafter(0.25, 1)
    s = di.gaussian_sigma_for(v, rho=r, delta=0.05, counts=[1, 2, 1])
    assert 0 < s < np.inf and worst_exact(v, r, s, counts=[1, 2, 1]) <= 0.05
    # a prior: the middle world's share is 2/4
    assert di.gaussian_sigma_for(v, rho=0.5, delta=0.05, prior=[1, 2, 1]) == np.inf
    r = 0.5 * (1 + 1e-9)
    s = di.gaussian_sigma_for(v, rho=r, delta=0.05, prior=[0.1, 0.2, 0.1])
    assert 0 < s < np.inf and worst_exact(v, r, s, prior=[0.1, 0.2, 0.1]) <= 0.05


def test_thresholds_of_the_given_world_only():
    # world 0's infinite-noise share is 1/4: rho = 0.4 is attainable for it,
    # though the middle world's share is 1/2
    v, pr = [0.0, 1.0, 2.0], [1.0, 2.0, 1.0]
    s = di.gaussian_sigma_for(v, rho=0.4, delta=0.05, prior=pr, world=0)
    assert 0 < s < np.inf
    assert exact_delta(v, 0.4, s, 0, prior=pr) <= 0.05
    assert di.gaussian_sigma_for(v, rho=0.4, delta=0.05, prior=pr) == np.inf
    # worlds 0 and 1 share a value: their posteriors never exceed 1/2, so
    # world 0 needs no noise at rho = 1/2, though world 2 does
    assert di.gaussian_sigma_for([0.0, 0.0, 1.0], rho=0.5, delta=0.05, world=0) == 0.0
    assert di.gaussian_sigma_for([0.0, 0.0, 1.0], rho=0.5, delta=0.05) > 0.0


@pytest.mark.parametrize("k", [8, 12, 16])
def test_delta_at_sigma_far_above_the_spread(k):
    # sigma = 10^k times the spread, rho just above the limit: the extreme
    # world's interval is z < -(E sigma) roughly, E = 3 rho - 1
    v = [0.0, 1.0, 2.0]
    s = 10.0**k
    rho = 1 / 3 * (1 + 1.5 / s) if k < 16 else np.nextafter(1 / 3, 1)
    got, ex = check_delta(v, rho, s, 0)
    assert 1e-3 < ex < 0.9
    assert abs(mp.mpf(got) - ex) <= 1e-14 * ex
    # the middle world at rho exactly its limit (counts 1, 2, 1): its
    # posterior exceeds 1/4 for |z| < 1 as sigma grows, delta -> 0.6827
    got, ex = check_delta([-1.0, 0.0, 1.0], 0.25, s, 1, counts=[1, 2, 1])
    assert abs(mp.mpf(got) - ex) <= 1e-14 * ex
    assert abs(got - math.erf(math.sqrt(0.5))) < 1e-12


def test_delta_with_weights_far_above_the_spread():
    for s in (1e8, 1e12, 1e16):
        check_delta([0.0, 1.0, 3.0], 0.5, s, 1, prior=[0.5, 1.0, 0.5])
        check_delta([0.0, 1.0, 3.0], 0.25 * (1 + 2 / s), s, 2, counts=[1, 2, 1])


def test_sigma_over_the_whole_float_range():
    # the documented range was [1e-150, 1e150]: now any positive finite sigma
    for s in (1e-300, 5e-324, 1e300, 1.7e308):
        d = di.gaussian_delta([0.0, 1.0], rho=0.7, sigma=s, world=0)
        assert d == pytest.approx(float(exact_delta([0.0, 1.0], 0.7, s, 0)), rel=1e-14, abs=1e-300)
    check_delta([-1.0, 0.0, 1.0], 0.25, 1e300, 1, counts=[1, 2, 1])
    check_delta([0.0, 5e-324, 1e-323], 0.25, 1e300, 1, counts=[1, 2, 1])
    check_delta([0.0, 5e-324], 0.5, 1e10, 0)
    check_delta([0.0, 5e-324], 0.5, 5e-324, 0)


def test_values_near_the_overflow_threshold():
    check_delta([-1.7e308, 1.7e308], 0.6, 1e308, 0)
    check_delta([-1.7e308, 0.0, 1.7e308], 0.4, 1e308, 1)
    check_delta([1.7e308, np.nextafter(1.7e308, 0)], 0.6, 1e292, 0)
    s = di.gaussian_sigma_for([-1.7e308, 0.0, 1.7e308], rho=0.99, delta=0.2)
    assert 1e307 < s < np.inf
    assert worst_exact([-1.7e308, 0.0, 1.7e308], 0.99, s) <= 0.2
    # a target that needs a larger sigma than the largest float: inf
    assert di.gaussian_sigma_for([-1.7e308, 0.0, 1.7e308], rho=0.9, delta=0.01) == np.inf
    # the target needs a sigma beyond the float range: inf, not a finite unsafe value
    assert di.gaussian_sigma_for([-1.7e308, 0.0, 1.7e308], rho=np.nextafter(1 / 3, 1), delta=0.01) == np.inf


def test_prior_of_a_world_near_one():
    # the own share is 1 - 1e-300: the posterior exceeds 1 - 2^-53 on all of [-40, 40]
    check_delta([0.0, 1.0, 2.0], 1 - 2**-53, 0.05, 2, prior=[1e-300, 1.0, 1e300])
    check_delta([0.0, 1.0, 2.0], 0.5, 0.01, 1, prior=[1e-300, 1.0, 1e300])


# ------------------------------------------------------------- properties --

@st.composite
def extreme_case(draw):
    """Worlds at any scale 10^e (up to 1e299 in magnitude), offset by up to
    1e9 spacings; rho and sigma drawn so that delta is mostly neither 0 nor
    1: rho within 10^-k (relative) of the world's limit with sigma near
    10^k or 10^(k/2) spreads (the extreme and interior worlds' scales),
    rho moderate with sigma near the spread, rho within 10^-k of 1, or rho
    tiny with sigma below the spacing."""
    ints = sorted(set(draw(st.lists(st.integers(-50, 50), min_size=2, max_size=4))))
    if len(ints) < 2:
        ints = [0, 1]
    m = len(ints)
    scale = 10.0 ** draw(st.integers(-300, 289))
    offset = draw(st.sampled_from([0.0, 1e3, -1e9]))
    v = [scale * (offset + x) for x in ints]
    counts = draw(st.one_of(st.none(), st.lists(st.integers(1, 3).map(float), min_size=m, max_size=m)))
    prior = draw(st.one_of(st.none(), st.lists(st.sampled_from([0.5, 1.0, 1.5, 2.0]), min_size=m, max_size=m)))
    j = draw(st.integers(0, m - 1))
    spread = v[-1] - v[0]
    t = 10.0 ** draw(st.floats(-1.0, 1.0))
    kind = draw(st.sampled_from(["near limit", "near limit", "moderate", "near one", "tiny rho"]))
    if kind == "near limit":
        k = draw(st.integers(2, 15))
        rho = float(limit_share(v, j, counts, prior)) * (1 + 10.0**-k)
        sigma = spread * t * 10.0 ** (k if draw(st.booleans()) else k / 2)
    elif kind == "moderate":
        rho = draw(st.floats(0.2, 0.8))
        sigma = spread * t
    elif kind == "near one":
        rho = 1 - 10.0 ** -draw(st.integers(1, 15))
        sigma = spread * t / 10
    else:
        rho = 10.0 ** -draw(st.integers(2, 300))
        sigma = scale * t / 100
    return v, min(rho, 1 - 2**-53), float(min(max(sigma, 1e-300), 1e300)), j, counts, prior


@deterministic(150)
@given(extreme_case())
def test_delta_relative_accuracy_in_extreme_regimes(case):
    """Within `tolerance`: 64 ulps per unit of (1 + z^2) of each end's tail
    mass (the conditioning of Phi at a float end)."""
    v, rho, sigma, j, counts, prior = case
    check_delta(v, rho, sigma, j, counts, prior)


@st.composite
def calibration_case(draw):
    m = draw(st.integers(2, 4))
    ints = sorted(set(draw(st.lists(st.integers(-20, 20), min_size=m, max_size=m))))
    if len(ints) < 2:
        ints = [0, 1]
    scale = 10.0 ** draw(st.integers(-5, 5))
    v = [scale * x for x in ints]
    m = len(v)
    counts = draw(st.one_of(st.none(), st.lists(st.integers(1, 3).map(float), min_size=m, max_size=m)))
    prior = draw(st.one_of(st.none(), st.lists(st.sampled_from([0.5, 1.0, 1.5]), min_size=m, max_size=m)))
    lim = max(float(limit_share(v, j, counts, prior)) for j in range(m))
    rho = draw(st.one_of(st.just(float(np.nextafter(lim, 1))),
                         st.integers(-15, -1).map(lambda e: lim * (1 + 10.0**e))))
    delta = 10.0 ** draw(st.integers(-12, -1))
    return v, min(rho, 0.99), delta, counts, prior


@deterministic(60)
@given(calibration_case())
def test_sigma_for_meets_the_target_at_60_digits(case):
    """The returned sigma keeps the exact delta of every world within the
    target; inf only where rho is at or below some world's exact limit."""
    v, rho, delta, counts, prior = case
    s = di.gaussian_sigma_for(v, rho=rho, delta=delta, counts=counts, prior=prior)
    if s == np.inf:
        assert any(Fraction(rho) <= limit_share(v, j, counts, prior) for j in range(len(v)))
        return
    assert 0 < s < np.inf
    assert worst_exact(v, rho, s, counts, prior) <= delta
    assert di.gaussian_delta(v, rho=rho, sigma=s, counts=counts, prior=prior) <= delta


def test_extreme_weights_exact_or_a_clear_error():
    # a prior of 5e-324 next to 1: that world's share at infinite noise is
    # 5e-324 / (1 + 5e-324), attainable at rho = 1e-300
    s = di.gaussian_sigma_for([0.0, 1.0], rho=1e-300, delta=0.1, prior=[5e-324, 1.0], world=0)
    assert 0 < s < np.inf
    assert exact_delta([0.0, 1.0], 1e-300, s, 0, prior=[5e-324, 1.0]) <= 0.1
    s = di.gaussian_sigma_for([0.0, 1.0], rho=1e-300, delta=0.1, prior=[1e-300, 1.0], world=0)
    assert 1e299 < s < np.inf
    assert exact_delta([0.0, 1.0], 1e-300, s, 0, prior=[1e-300, 1.0]) <= 0.1
    assert di.gaussian_sigma_for([0.0, 1.0], rho=0.9, delta=0.1, prior=[5e-324, 1.0]) == np.inf
    with pytest.raises(ValueError, match="counts"):
        di.gaussian_delta([0.0, 1.0], rho=0.5, sigma=1.0, counts=[1e308, 1e308])
    with pytest.raises(ValueError, match="prior"):
        di.gaussian_sigma_for([0.0, 1.0], rho=0.5, delta=0.1, prior=[5e-324, 1e308])
