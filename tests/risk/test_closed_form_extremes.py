"""The closed-form and DP calibrations at the ends of their ranges, against
an independent 60-digit mpmath reference (defined here, not shared).

The standard, for every calibration: conservative against the exact value
(the 60-digit one), passes the library's own float check, and within a few
ulps of the exact value (N below), everywhere a user can reach: m from 1 to
1.79e308, rho from just above 1/m to just below 1, S and epsilon from
subnormal to 1e300.  The float evaluators (`rho_for_epsilon`, `risk_bound`,
`posterior_bound`) are the exact value rounded to nearest (to half an ulp,
plus 2^-40 of one for their double-double evaluation).

The regression tests at the top each failed before the calibrations were
rewritten in double-double arithmetic (the value the old code gave is in
the comment).
"""

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import diffident as di
from diffident._numerics import dd as _dd

DPS = 60
N_EPS = 2  # epsilon_for_rho, epsilon_for_posterior, scale_for_rho: ulps from the exact inverse
N_PER_RELEASE = 4  # epsilon_per_release: ulps below the exact total / k
N_GAUSS = 64  # analytic_gaussian_sigma: ulps above the exact root (36 seen)
HALF_ULP = 0.5 + 2.0**-40  # the evaluators: correctly rounded but for near-ties
TINY = 5e-324
MAX = 1.7976931348623157e308
SETTINGS = dict(derandomize=True, database=None, deadline=None)


# ------------------------------------------------------------ reference --

def M(x):
    return mp.mpf(float(x))


def ref_eps(rho, m):
    """ln((m - 1) rho / (1 - rho)): the paper's exact inverse."""
    with mp.workdps(DPS):
        return mp.log((M(m) - 1) * M(rho) / (1 - M(rho)))


def ref_rho(eps, m):
    with mp.workdps(DPS):
        if mp.isinf(M(eps)):
            return mp.mpf(1)
        return 1 / (1 + (M(m) - 1) * mp.exp(-M(eps)))


def ref_post(eps, p):
    with mp.workdps(DPS):
        if mp.isinf(M(eps)):
            return mp.mpf(1)
        return M(p) / (M(p) + (1 - M(p)) * mp.exp(-M(eps)))


def ref_eps_post(q, p):
    with mp.workdps(DPS):
        return mp.log(M(q) * (1 - M(p)) / (M(p) * (1 - M(q))))


def ref_delta(sigma, eps, sens=1.0):
    """The Gaussian mechanism's delta at sigma, 60 significant digits: the
    working precision covers the cancellation in the arguments
    (S/(2 sigma) - eps sigma/S) and then in the difference of the terms."""
    s, e, S = M(sigma), M(eps), M(sens)
    with mp.workdps(DPS):
        scale = mp.log10(S / (2 * s) + e * s / S + 1)
    dps = DPS + 10 + int(max(scale, 0))
    while True:
        with mp.workdps(dps):
            a = S / (2 * s) - e * s / S
            b = -S / (2 * s) - e * s / S
            t1, t2 = mp.ncdf(a), mp.exp(e) * mp.ncdf(b)
            d = t1 - t2
            if (d > 0 and mp.log10(t1 / d) < dps - DPS - 5) or dps > 4000:
                return d
        dps *= 2


def gap(exact):
    """The distance between the two floats around the exact value (the ulp
    that rounding to nearest works in)."""
    f = float(exact)
    if M(f) >= exact:
        return M(f) - M(np.nextafter(f, -np.inf))
    return M(np.nextafter(f, np.inf)) - M(f)


def assert_rounded(got, exact):
    """got is exact rounded to nearest (to HALF_ULP)."""
    with mp.workdps(DPS):
        assert abs(M(got) - exact) <= HALF_ULP * gap(exact), (got, mp.nstr(exact, 25))


def assert_below(got, exact, n):
    """got <= exact, by fewer than n floats' spacing at got."""
    with mp.workdps(DPS):
        assert M(got) <= exact, (got, mp.nstr(exact, 25))
        assert exact - M(got) < n * M(np.spacing(got) if got > 0 else TINY), (got, mp.nstr(exact, 25))


def assert_above(got, exact, n):
    """got >= exact, by fewer than n floats' spacing at got (inf where
    exact is beyond the float range)."""
    with mp.workdps(DPS):
        if exact > M(MAX):
            assert got == np.inf
            return
        assert M(got) >= exact, (got, mp.nstr(exact, 25))
        assert M(got) - exact < n * M(np.spacing(got)), (got, mp.nstr(exact, 25))


# ----------------------------------------------------------- regressions --

def test_regression_overflow_in_m():
    # was inf: (m - 1) rho / (1 - rho) overflowed
    e = di.epsilon_for_rho(0.9, m=1.7e308)
    assert_below(e, ref_eps(0.9, 1.7e308), N_EPS)
    assert di.rho_for_epsilon(e, m=1.7e308) <= 0.9
    # was 0.0, no noise at all
    lam = di.scale_for_rho(1 - 1e-9, m=1e300, sensitive_range=1.0)
    assert_above(lam, 1 / ref_eps(1 - 1e-9, 1e300), N_EPS)
    assert di.risk_bound(lam, m=1e300, sensitive_range=1.0) <= 1 - 1e-9


def test_regression_just_above_one_over_m():
    # was 1.110223024625156e-15, above the exact 1.1085088551101642e-15
    # (unsafe): the float check's few-ulp error near 1/m
    m = 1.7e308
    rho = np.nextafter(1 / m, 1.0)
    e = di.epsilon_for_rho(rho, m=m)
    assert_below(e, ref_eps(rho, m), N_EPS)
    assert di.rho_for_epsilon(e, m=m) <= rho


def test_regression_posterior_near_one_tiny_prior():
    # was 5.6e14 ulps below the exact value (714.9796479137221)
    e = di.epsilon_for_posterior(1 - 1e-15, prior=5e-324)
    assert_below(e, ref_eps_post(1 - 1e-15, 5e-324), N_EPS)
    # was 0.21 ulps above it (unsafe)
    e = di.epsilon_for_posterior(1 - 1e-15, prior=1e-300)
    assert_below(e, ref_eps_post(1 - 1e-15, 1e-300), N_EPS)
    assert di.posterior_bound(e, prior=1e-300) <= 1 - 1e-15


def test_regression_subnormal_sensitive_range():
    # was 0.0 (no noise; the float check failed there too)
    lam = di.scale_for_rho(0.5, m=99, sensitive_range=TINY)
    assert lam == TINY
    assert di.risk_bound(lam, m=99, sensitive_range=TINY) <= 0.5


def test_regression_evaluators_round_to_nearest():
    # were 0.80 and 1.58 ulps off
    assert_rounded(di.posterior_bound(700.0, prior=1e-300), ref_post(700.0, 1e-300))
    e, m = 8.98026497095521e-09, 1.8608130343223356e296
    assert_rounded(di.rho_for_epsilon(e, m=m), ref_rho(e, m))


def test_regression_effective_worlds_rounds_down():
    # was 2.249726177437021, above the exact quotient 2.2497261774370205...
    w = [0.27, 0.041, 0.017, 0.813, 0.913]
    got = di.effective_worlds(w)
    exact = sum(Fraction(v) for v in w) / Fraction(0.913)
    assert Fraction(got) <= exact < Fraction(np.nextafter(got, np.inf))


def test_regression_rho_after_composition_rounds_up():
    # was 0.026988961478599856, below the exact bound at epsilon 1
    got = di.rho_after_composition([1.0], m=99)
    assert M(got) >= ref_rho(1.0, 99)
    assert M(np.nextafter(got, 0.0)) < ref_rho(1.0, 99)


@pytest.mark.parametrize("eps, delta", [
    (30.39195382313195, 2.4224516119512382e-15),  # exact delta was above by a relative 8.9e-15
    (72.78953843983132, 1e-50),  # 1.6e-15
    (1000.0, 5e-324),  # 0.5: a subnormal delta rounds the float check
    (0.0, 1 - 2.0**-53),  # sigma 0.0595 (1.7e14 ulps low; the root is 0.0603)
])
def test_regression_analytic_sigma_conservative_at_60_digits(eps, delta):
    sigma = di.analytic_gaussian_sigma(eps, delta=delta)
    assert ref_delta(sigma, eps) <= M(delta)
    assert di.analytic_gaussian_delta(sigma, epsilon=eps) <= delta
    assert ref_delta(sigma - N_GAUSS * np.spacing(sigma), eps) > M(delta)


@pytest.mark.parametrize("eps", [0.0, 5e-324, 1e-300, 1e-20])
@pytest.mark.parametrize("delta, sens", [
    (1e-310, 1e-10),  # sigma 1.8e298 (sigma / S at the float maximum): exact delta 2.2e-309
    (5e-324, 1e-10),
    (1e-320, 1e-300),
    (2.2250738585072014e-308, 1e-5),
    (1e-300, 1e-300),
])
def test_analytic_sigma_beyond_the_float_range_of_sigma_over_s(eps, delta, sens):
    """sigma / S beyond the float range while sigma is not (S below 1, a
    subnormal delta): the sigma returned meets the target by the reference
    and by analytic_gaussian_delta, within a few ulps of the smallest that
    does (inf only where that passes the float range), and
    analytic_gaussian_delta there is accurate to 1e-12."""
    sigma = di.analytic_gaussian_sigma(eps, delta=delta, sensitivity=sens)
    if np.isinf(sigma):  # only where the answer exceeds the float range
        assert ref_delta(MAX, eps, sens) > M(delta)
        return
    assert ref_delta(sigma, eps, sens) <= M(delta)
    assert di.analytic_gaussian_delta(sigma, epsilon=eps, sensitivity=sens) <= delta
    assert ref_delta(sigma - N_GAUSS * np.spacing(sigma), eps, sens) > M(delta)
    exact = ref_delta(sigma, eps, sens)
    got = di.analytic_gaussian_delta(sigma, epsilon=eps, sensitivity=sens)
    assert abs(M(got) - exact) <= 1e-12 * exact + M(TINY)


# ------------------------------------------------------------ strategies --

LOG_M_MAX = math.log(1.7e308)
M_SPECIAL = [1 + 2.0**-52, 1.5, 2.0, 3.0, 8.0, 99.0, 2.0**53 + 2, 1e20, 1.7e308, 1.79e308]
ms = st.one_of(st.sampled_from(M_SPECIAL), st.floats(0.0, LOG_M_MAX).map(math.exp)).filter(lambda m: m > 1.0)


def _up(x, k):
    """The float k ulps above x >= 0."""
    return float((np.array([x], dtype=np.float64).view(np.int64) + np.int64(k)).view(np.float64)[0])


@st.composite
def rho_near_floor(draw):
    """(rho, m): rho a few ulps, or a relative 1e-15 to 1e-6, above 1/m."""
    m = draw(ms)
    lo = 1.0 / m
    if draw(st.booleans()):
        rho = _up(lo, draw(st.integers(1, 2**20)))
    else:
        rho = lo * (1.0 + 10.0 ** draw(st.floats(-15.0, -6.0)))
    assume(lo < rho < 1.0 and M(rho) * M(m) > 1)
    return rho, m


@st.composite
def rho_near_one(draw):
    """(rho, m): rho within 2^-53 to 1e-6 of 1."""
    m = draw(ms)
    rho = draw(st.one_of(st.sampled_from([1 - 2.0**-53, 1 - 2.0**-52, 1 - 1e-15]),
                         st.floats(-15.95, -6.0).map(lambda t: 1.0 - 10.0**t)))
    assume(1.0 / m < rho < 1.0 and M(rho) * M(m) > 1)
    return rho, m


rho_m = st.one_of(rho_near_floor(), rho_near_one(),
                  st.tuples(st.floats(0.0, 1.0), ms).filter(lambda t: 1 / t[1] < t[0] < 1 and M(t[0]) * M(t[1]) > 1))
sens = st.one_of(st.sampled_from([TINY, 1e-320, 2.2250738585072014e-308, 1.0, 1e308]),
                 st.floats(-323.3, 308.0).map(lambda t: 10.0**t)).filter(lambda s: 0 < s < np.inf)
epsilons = st.one_of(st.sampled_from([0.0, TINY, 1e-310, 1e-300, 745.0, 1e300, np.inf]),
                     st.floats(-20.0, 3.0).map(lambda t: 10.0**t))


@st.composite
def q_p(draw):
    """(posterior, prior): the prior from subnormal to 1 - 2^-53, the
    posterior just above it or near 1."""
    p = draw(st.one_of(st.sampled_from([TINY, 1e-310, 1e-300, 0.5, 1 - 2.0**-53]),
                       st.floats(-323.0, -1e-3).map(lambda t: 10.0**t)))
    kind = draw(st.integers(0, 2))
    if kind == 0:
        q = _up(p, draw(st.integers(1, 2**20)))
    elif kind == 1:
        q = p * (1.0 + 10.0 ** draw(st.floats(-15.0, -6.0)))
    else:
        q = 1.0 - 10.0 ** draw(st.floats(-15.95, -1.0))
    assume(p < q < 1.0)
    return q, p


# -------------------------------------------------------------- properties --

# the epsilon calibrations: (calibration, its exact value, the float
# evaluator it inverts, the (target, m or prior) pairs to try, the name of
# the second argument)
EPSILONS = {
    "epsilon_for_rho": (di.epsilon_for_rho, ref_eps, di.rho_for_epsilon, rho_m, "m"),
    "epsilon_for_posterior": (di.epsilon_for_posterior, ref_eps_post, di.posterior_bound, q_p(), "prior"),
}


@pytest.mark.parametrize("name", list(EPSILONS))
@settings(max_examples=250, **SETTINGS)
@given(data=st.data())
def test_epsilon_calibration_extremes(name, data):
    calibrate, exact, evaluate, inputs, second = EPSILONS[name]
    target, other = data.draw(inputs)
    e = calibrate(target, **{second: other})
    assert_below(e, exact(target, other), N_EPS)
    assert evaluate(e, **{second: other}) <= target


@settings(max_examples=200, **SETTINGS)
@given(rho_m, sens)
def test_scale_for_rho_extremes(t, s):
    rho, m = t
    lam = di.scale_for_rho(rho, m=m, sensitive_range=s)
    with mp.workdps(DPS):
        exact = M(s) / ref_eps(rho, m)
    if exact < M(TINY):
        assert lam == TINY  # the smallest float above a quotient below it
    else:
        assert_above(lam, exact, N_EPS)
    assert di.risk_bound(lam, m=m, sensitive_range=s) <= rho


@settings(max_examples=150, **SETTINGS)
@given(rho_m, st.sampled_from([1.0, 2.0, 3.0, 7.0, 1000.0, 2.0**40 + 1, 2.0**1000]))
def test_epsilon_per_release_extremes(t, k):
    rho, m = t
    e = di.epsilon_per_release(rho, m=m, k=k)
    with mp.workdps(DPS):
        total = ref_eps(rho, m)
        assert M(k) * M(e) <= total
        assert total / M(k) - M(e) < N_PER_RELEASE * M(np.spacing(e))
    if k <= 1000:
        assert di.rho_after_composition(np.full(int(k), e), m=m) <= rho


@settings(max_examples=200, **SETTINGS)
@given(epsilons, ms)
def test_rho_for_epsilon_is_rounded_to_nearest(e, m):
    assert_rounded(di.rho_for_epsilon(e, m=m), ref_rho(e, m))


@settings(max_examples=150, **SETTINGS)
@given(sens, sens, ms)
def test_risk_bound_is_rounded_to_nearest(scale, s, m):
    with mp.workdps(DPS):
        exact = 1 / (1 + (M(m) - 1) * mp.exp(-M(s) / M(scale)))
    assert_rounded(di.risk_bound(scale, m=m, sensitive_range=s), exact)


@settings(max_examples=200, **SETTINGS)
@given(epsilons, st.one_of(st.sampled_from([TINY, 1e-310, 0.5, 1 - 2.0**-53]),
                           st.floats(-323.0, 0.0).map(lambda t: 10.0**t)))
def test_posterior_bound_is_rounded_to_nearest(e, p):
    assume(0.0 < p <= 1.0)
    assert_rounded(di.posterior_bound(e, prior=p), ref_post(e, p))


@settings(max_examples=100, **SETTINGS)
@given(st.lists(epsilons.filter(np.isfinite), min_size=1, max_size=5), ms)
def test_rho_after_composition_never_below_exact(eps, m):
    got = di.rho_after_composition(eps, m=m)
    total = sum(Fraction(x) for x in eps)
    # enough digits to see a subnormal total move the bound off 1/m
    dps = DPS + (int(-math.log10(total)) if 0 < total < 1 else 0)
    with mp.workdps(dps):
        exact = 1 / (1 + (M(m) - 1) * mp.exp(-mp.mpf(total.numerator) / total.denominator))
        assert M(got) >= exact
        # and the bound rounded up at the sum rounded up (not above it)
        at_sum = 1 / (1 + (M(m) - 1) * mp.exp(-M(di.compose_sequential(eps))))
        assert M(np.nextafter(got, 0.0)) < at_sum


@settings(max_examples=150, **SETTINGS)
@given(st.lists(st.floats(-300.0, 300.0).map(lambda t: 10.0**t), min_size=1, max_size=12))
def test_effective_worlds_rounds_down(w):
    got = di.effective_worlds(w)
    exact = sum(Fraction(v) for v in w) / Fraction(max(w))
    assert Fraction(got) <= exact < Fraction(np.nextafter(got, np.inf))


@settings(max_examples=40, **SETTINGS)
@given(st.one_of(st.sampled_from([0.0, TINY, 1e-300, 1e300]), st.floats(-12.0, 12.0).map(lambda t: 10.0**t)),
       st.one_of(st.floats(-300.0, -0.5).map(lambda t: 10.0**t),
                 st.floats(-15.9, -1.0).map(lambda t: 1.0 - 10.0**t)))
def test_analytic_sigma_conservative_and_tight_at_60_digits(e, delta):
    sigma = di.analytic_gaussian_sigma(e, delta=delta)
    assume(np.isfinite(sigma))
    assert ref_delta(sigma, e) <= M(delta)
    assert di.analytic_gaussian_delta(sigma, epsilon=e) <= delta
    assert ref_delta(sigma - N_GAUSS * np.spacing(sigma), e) > M(delta)


# ---------------------------------------------------- double-double core --

def _dd_of(values):
    """Double-doubles nearest the mpmath values."""
    h = np.array([float(v) for v in values])
    with mp.workdps(DPS):
        lo = np.array([float(v - M(x)) for v, x in zip(values, h, strict=False)])
    return h, lo


def _rel(h, lo, exact):
    with mp.workdps(DPS):
        return max(float(abs((M(a) + M(b) - e) / e)) for a, b, e in zip(h, lo, exact, strict=False) if e != 0)


def test_double_double_functions_against_mpmath():
    rng = np.random.default_rng(0)
    bound = 2.0**-100
    with mp.workdps(DPS), np.errstate(all="ignore"):
        jitter = [1 + M(g) * mp.mpf(2) ** -60 for g in rng.standard_normal(400)]
        x = [M(v) * j for v, j in zip(np.concatenate([rng.uniform(-650, 700, 300), rng.uniform(-1e-3, 1e-3, 100)]),
                                      jitter, strict=False)]
        h, lo = _dd_of(x)
        assert _rel(*_dd.exp(h, lo), [mp.exp(v) for v in x]) < bound
        small = [v for v in x if abs(v) < 700]
        hs, ls = _dd_of(small)
        assert _rel(*_dd.expm1(hs, ls), [mp.expm1(v) for v in small]) < bound
        y = [M(v) * j for v, j in zip(10.0 ** rng.uniform(-290, 308, 400), jitter, strict=False)]
        h, lo = _dd_of(y)
        got_h, got_l = _dd.log(h, lo)
        # log: absolute 2^-100 near 1, relative elsewhere
        assert max(float(abs(M(a) + M(b) - mp.log(v)) / max(1, abs(mp.log(v))))
                   for a, b, v in zip(got_h, got_l, y, strict=False)) < bound
        z = [M(v) * j for v, j in zip(np.concatenate([rng.uniform(-0.9, 3, 200), 10.0 ** rng.uniform(-290, 0, 150),
                                                      10.0 ** rng.uniform(0, 300, 50)]), jitter, strict=False)]
        h, lo = _dd_of(z)
        assert _rel(*_dd.log1p(h, lo), [mp.log1p(v) for v in z]) < bound
        t = [M(v) * j for v, j in zip(rng.uniform(-650, 800, 400), jitter, strict=False)]
        h, lo = _dd_of(t)
        assert _rel(*_dd.log1p_exp(h, lo), [mp.log1p(mp.exp(v)) for v in t]) < bound
        a, b = _dd_of(x[:200]), _dd_of(y[:200])
        A = [M(p) + M(q) for p, q in zip(*a, strict=False)]
        B = [M(p) + M(q) for p, q in zip(*b, strict=False)]
        assert _rel(*_dd.div(*a, *b), [p / q for p, q in zip(A, B, strict=False)]) < 2.0**-103
        assert _rel(*_dd.mul(*a, *b), [p * q for p, q in zip(A, B, strict=False)]) < 2.0**-104


def test_double_double_table():
    with mp.workdps(DPS):
        for j in range(64):
            assert abs(M(_dd._T_H[j]) + M(_dd._T_L[j]) - mp.mpf(2) ** (mp.mpf(j) / 64)) < mp.mpf(2) ** -106
        assert abs(M(_dd.LN2_H) + M(_dd.LN2_L) + M(_dd.LN2_LL) - mp.log(2)) < mp.mpf(2) ** -160
        assert abs(M(_dd._C1) + M(_dd._C2) + M(_dd._C3) - mp.log(2) / 64) < mp.mpf(2) ** -140


@settings(max_examples=120, **SETTINGS)
@given(st.floats(-12.0, 12.0).map(lambda t: 10.0**t),
       st.one_of(st.just(0.0), st.floats(-12.0, 6.0).map(lambda t: 10.0**t)))
def test_gaussian_delta_error_bound_holds(q, e):
    # the bound that analytic_gaussian_sigma's margin rests on: the float
    # log delta is within err of the exact one (all three branches)
    from diffident.dp import _gaussian_delta
    big, small, err = _gaussian_delta.delta_parts(np.array([q]), np.array([e]))
    assume(np.isfinite(small[0]) and np.isfinite(err[0]))
    with mp.workdps(DPS):
        # 1 - delta = Phi(-a) + e^eps Phi(b): no cancellation, so log delta
        # keeps its digits where delta is near 1
        a, b = 1 / (2 * M(q)) - M(e) * M(q), -1 / (2 * M(q)) - M(e) * M(q)
        tail = mp.ncdf(-a) + mp.exp(M(e)) * mp.ncdf(b)
        exact = mp.log1p(-tail) if tail < 0.5 else mp.log(ref_delta(q, e))
        assert abs(mp.log(M(big[0])) + M(small[0]) - exact) <= M(err[0])
