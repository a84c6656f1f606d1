"""diffident.rr at the extremes, against an independent 60-digit reference.

The reference (``diffident.testing.rr_reference``) is written from the
formulas in ``diffident.rr``'s module docstring only (the four likelihoods,
Bayes' rule, epsilon as the largest log-likelihood ratio, Warner's coin and
k-ary randomized response): every rational quantity is computed exactly with ``fractions.Fraction`` (a
float64 input is a dyadic rational, so the likelihoods, posteriors and
estimates are exact), and only the logarithms and exponentials go through
mpmath at 60 digits.  None of it shares code or formulas with the
implementation (no log1p rewrites, no error-free products).

Accuracy is checked as: relative error <= 1e-12, or the documented edge
value (``inf``, ``nan``, 0), or, for a true result below the normal range
(< 2**-1022, where float64 itself has fewer than 53 bits), an absolute error
of at most two subnormal units (2 * 2**-1074).

Run as a script to print the largest relative error of each function over a
grid of extreme inputs (a before/after measurement)::

    PYTHONPATH=src python tests/rr/test_rr_extremes.py
"""

import inspect
import math
import sys
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import diffident.rr as rr
from diffident.testing import rr_reference as ref

DPS = 60
TINY = 2.0 ** -1022          # smallest normal
SUB = 2.0 ** -1074           # smallest subnormal, 5e-324
MAXF = F(sys.float_info.max)
REL = 1e-12


# ---------------------------------------------------------------- comparing

def _isnan(v):
    return isinstance(v, float) and math.isnan(v)


def rel_error(got, want):
    """Relative error of the float ``got`` against the reference ``want``
    (Fraction, mpf, or a float inf/nan edge value).  0 for a matching edge
    value, inf for a mismatched one; None where the true value is below the
    normal range (judged by `close` on an absolute scale instead)."""
    got = float(got)
    if _isnan(want):
        return 0.0 if math.isnan(got) else math.inf
    if isinstance(want, float) and math.isinf(want):
        return 0.0 if got == want else math.inf
    if math.isnan(got):
        return math.inf
    num = F if isinstance(want, F) else mpmath.mpf  # exact rationals stay exact
    with mpmath.workdps(DPS):
        w = num(want)
        if abs(w) > num(MAXF):
            return 0.0 if math.isinf(got) and (got > 0) == (w > 0) else math.inf
        if math.isinf(got):
            return math.inf
        if w == 0:
            return 0.0 if got == 0 else math.inf
        if abs(w) < TINY:
            return None
        return float(abs(num(got) - w) / abs(w))


def close(got, want, rel=REL):
    e = rel_error(got, want)
    if e is None:  # a true value below the normal range: two subnormal units
        with mpmath.workdps(DPS):
            exact = ref.to_mpf(want) if isinstance(want, F) else mpmath.mpf(want)
            return abs(mpmath.mpf(float(got)) - exact) <= 2 * SUB
    return e <= rel


def check_kary_estimate(counts, eps):
    """kary_estimate against the reference: relative error <= 1e-12, or
    1e-14 of the terms that cancel (documented), or inf for a true value
    beyond the float range."""
    got = rr.kary_estimate(counts, epsilon=eps)
    for g, (want, scale) in zip(got, ref.kary_estimate(counts, epsilon=eps), strict=False):
        with mpmath.workdps(DPS):
            if abs(want) > ref.to_mpf(MAXF):
                assert math.isinf(g) and (g > 0) == (want > 0), (counts, eps, g, want)
                continue
            assert abs(mpmath.mpf(float(g)) - want) <= 1e-12 * abs(want) + 1e-14 * scale, (counts, eps, g, want)


def check(got, want, *args):
    assert close(got, want), (f"{args}: got {float(got)!r}, "
                              f"want {want if isinstance(want, float) else float(want)!r}, "
                              f"relative error {rel_error(got, want)}")


# ---------------------------------------------------------------- strategies

# probabilities: log-uniform from 5e-324 to 1, values 1 - 10**-u near 1, and the edges
EDGES = [0.0, SUB, 1e-320, 1e-310, TINY, 1e-300, 2.0 ** -53, 1e-10, 1 / 3, 0.5, 0.75,
         1 - 1e-10, 1 - 2.0 ** -52, 1 - 2.0 ** -53, 1.0]
small = st.floats(0.0, 1074.0).map(lambda t: 2.0 ** -t)
near1 = st.floats(0.0, 16.0).map(lambda u: 1.0 - 10.0 ** -u)
probs = st.one_of(small, near1, st.sampled_from(EDGES))
open_probs = probs.filter(lambda x: x < 1.0)
half_to_one = st.one_of(probs.map(lambda x: 1.0 - x / 2), probs.map(lambda x: 0.5 + x / 2))
epsilons = st.one_of(st.floats(-323.0, 300.0).map(lambda t: 10.0 ** t),
                     st.sampled_from([0.0, SUB, 1e-300, 1e-16, 1.0, 700.0, 709.0, 745.0, 1e300, math.inf]))
categories = st.one_of(st.integers(2, 1000), st.sampled_from([2, 3, 7, 10, 2 ** 53, 1e300]))
counts_n = st.floats(-324.0, 300.0).map(lambda t: max(10.0 ** t, SUB))   # n > 0, down to 5e-324

SETTINGS = settings(derandomize=True, database=None, deadline=None, max_examples=150)


@st.composite
def kary_inputs(draw):
    d = draw(categories)
    lo = 1.0 / d
    how = draw(st.sampled_from(["ulps", "above", "near1"]))
    if how == "ulps":                      # a few floats above fl(1/d)
        p = lo
        for _ in range(draw(st.integers(0, 5))):
            p = math.nextafter(p, 2.0)
    elif how == "above":                   # 1/d + log-uniform offset
        p = min(lo + draw(small) * (1 - lo), 1.0)
    else:
        p = draw(near1)
    return max(p, lo), d


# ---------------------------------------------------------------- regression tests for the reported defects

def test_identification_risk_value0_and_rho_near_prior_one():
    # 1 - P(x = 1 | r) cancelled: at prior 1 - 1e-10 about 7 digits were lost
    for p, k in [(0.5, 0.5), (0.1, 0.9), (0.9, 0.2), (1e-3, 0.5)]:
        pr = 1 - 1e-10
        check(rr.identification_risk(p, zero=k, prior=pr, value=0), ref.risk(p, zero=k, prior=pr, value=0), p, k, pr)
        check(rr.posterior(p, zero=k, prior=pr, report=0), ref.posterior(p, zero=k, prior=pr, report=0), p, k, pr)
        # rho at a prior near 0 is P(x = 0 | r) near 1 - 1e-10
        check(rr.rho(p, zero=k, prior=1e-10), ref.rho(p, zero=k, prior=1e-10), p, k)
    # tiny posteriors of x = 0 keep their digits too
    for pr in (1 - 2.0 ** -53, 1 - 1e-15):
        check(rr.identification_risk(0.3, zero=0.4, prior=pr, value=0), ref.risk(0.3, zero=0.4, prior=pr, value=0), pr)


def test_epsilon_where_p_times_k_underflows():
    # p k = 1e-600 underflows to 0: was inf, is ln((1 - p)/(p k)) = 1381.55...
    got = rr.epsilon(1e-300, zero=1e-300)
    check(got, ref.epsilon(1e-300, zero=1e-300))
    assert 1381.5 < got < 1381.6
    for p, k in [(1e-300, 1 - 1e-300), (SUB, 0.5), (SUB, SUB), (1e-310, 1e-10), (1 - 2.0 ** -53, SUB),
                 (0.5, 1e-310), (1e-200, 1e-200)]:
        check(rr.epsilon(p, zero=k), ref.epsilon(p, zero=k), p, k)
        check(rr.epsilon_bound(p, zero=k), ref.epsilon_bound(p, zero=k), p, k)


def test_kary_epsilon_near_one_over_d():
    # d p - 1 cancelled: at the float above 1/3 the old value was off entirely
    for p in (math.nextafter(1 / 3, 1), 1 / 3 + 1e-12, 1 / 3 + 1e-15):
        check(rr.kary_epsilon(p, d=3), ref.kary_epsilon(p, d=3), p)
    assert rr.kary_epsilon(1 / 3, d=3) == 0.0        # fl(1/3) < 1/3: the edge
    for d in (7, 10, 1000, 2 ** 53):
        p = math.nextafter(1 / d, 1)
        check(rr.kary_epsilon(p, d=d), ref.kary_epsilon(p, d=d), p, d)
    # a huge number of categories: the quotient overflows
    check(rr.kary_epsilon(1 - 2.0 ** -53, d=1e300), ref.kary_epsilon(1 - 2.0 ** -53, d=1e300))


def test_subnormal_inputs_give_no_nan():
    vals = [0.0, SUB, 1e-310, 0.5, 1 - 2.0 ** -53, 1.0]
    for p in vals:
        for k in vals:
            check(rr.epsilon(p, zero=k), ref.epsilon(p, zero=k), "epsilon", p, k)
            check(rr.epsilon_bound(p, zero=k), ref.epsilon_bound(p, zero=k), "epsilon_bound", p, k)
            for pr in vals:
                for r in (0, 1):
                    check(rr.posterior(p, zero=k, prior=pr, report=r), ref.posterior(p, zero=k, prior=pr, report=r),
                          "posterior", p, k, pr, r)
                    check(rr.identification_risk(p, zero=k, prior=pr, value=r), ref.risk(p, zero=k, prior=pr, value=r),
                          "risk", p, k, pr, r)
                check(rr.rho(p, zero=k, prior=pr), ref.rho(p, zero=k, prior=pr), "rho", p, k, pr)
                if p < 1:
                    check(rr.estimate(pr, flip=p, zero=k), ref.estimate(pr, flip=p, zero=k), "estimate", pr, p, k)
                for n in (SUB, 1e-310, 1.0, 1e300):
                    check(rr.variance(pr, flip=p, zero=k, n=n), ref.variance(pr, flip=p, zero=k, n=n),
                          "variance", pr, p, k, n)
    for e in (SUB, 1e-310, 1e-300):
        check(rr.warner_p(e), ref.warner_p(e), e)
        check(rr.kary_p(e, d=3), ref.kary_p(e, d=3), e)
        check_kary_estimate([3, 5], e)        # -2 / e: overflows to -inf below 1e-308
    for n in (SUB, 1e-310, 1.0):
        for p in (0.5 + SUB, 0.75, 1 - 2.0 ** -53, 1.0):
            if p == 0.5 + SUB:
                continue                      # 0.5 + 5e-324 is 0.5: not allowed
            for ny in (0.0, SUB, n / 2, n):
                check(rr.warner_estimate(ny, n=n, p=p), ref.warner_estimate(ny, n=n, p=p), ny, n, p)


def test_kary_p_with_many_categories_and_a_large_epsilon():
    # (d - 1) e^-eps with e^-eps subnormal but the product near 1
    for eps, d in [(710.0, 1e308), (709.0, 1e300), (745.0, 1e300), (1e300, 5.0), (800.0, 1e308)]:
        check(rr.kary_p(eps, d=d), ref.kary_p(eps, d=d), eps, d)


def test_kary_estimate_at_a_tiny_epsilon():
    # c_j (1 + (d - 1) e^-eps) - n e^-eps lost everything when e^-eps rounds to 1
    for eps in (1e-300, 1e-20, 1e-9):
        for counts in ([10, 10, 10], [10, 10, 11]):
            got = rr.kary_estimate(counts, epsilon=eps)
            for g, (want, _) in zip(got, ref.kary_estimate(counts, epsilon=eps), strict=False):
                with mpmath.workdps(DPS):
                    assert abs(mpmath.mpf(float(g)) - want) <= 1e-12 * abs(want), (counts, eps, g, want)


def test_estimate_cancellation_is_carried_exactly():
    # q within an ulp of p (1 - k): the numerator is formed without rounding
    for p, k in [(0.3, 0.1), (0.7, 0.25), (1e-300, 0.3), (0.5, 1e-300), (1 - 2.0 ** -53, 0.4)]:
        q0 = p * (1 - k)
        for q in (q0, math.nextafter(q0, 0), math.nextafter(q0, 1)):
            check(rr.estimate(q, flip=p, zero=k), ref.estimate(q, flip=p, zero=k), q, p, k)
    # q == p: the estimate is p k / (1 - p), however small
    check(rr.estimate(1e-200, flip=1e-200, zero=1e-200), ref.estimate(1e-200, flip=1e-200, zero=1e-200))


def test_warner_estimate_cancellation_and_huge_counts():
    for n, p in [(1000.0, 0.75), (1e300, 0.75), (3.0, 0.6), (1e308, 1 - 2.0 ** -53)]:
        ny = n * (1 - p)
        for x in (ny, math.nextafter(ny, 0), math.nextafter(ny, math.inf)):
            x = min(x, n)
            check(rr.warner_estimate(x, n=n, p=p), ref.warner_estimate(x, n=n, p=p), x, n, p)


def test_documented_edge_values_kept():
    assert rr.epsilon(0.0, zero=0.5) == math.inf and rr.epsilon(1.0, zero=0.0) == 0.0
    assert rr.epsilon(SUB, zero=0.0) == math.inf
    assert rr.epsilon(1.0, zero=SUB) == 0.0
    assert math.isnan(rr.posterior(1.0, zero=1.0, prior=0.3, report=1))
    assert math.isnan(rr.posterior(SUB, zero=1.0, prior=0.0, report=1))       # P(report 1) = 0 exactly
    assert rr.posterior(SUB, zero=0.5, prior=0.0, report=1) == 0.0
    assert rr.identification_risk(0.5, zero=0.5, prior=0.0) == 0.0
    assert rr.identification_risk(0.5, zero=1.0, prior=SUB) == 1.0
    assert rr.rho(0.5, zero=0.5, prior=0.0) == 1.0 and rr.rho(0.5, zero=0.5, prior=1.0) == 1.0
    assert rr.variance(0.4, flip=1.0, zero=0.5, n=100) == math.inf
    assert math.isnan(rr.variance(0.0, flip=1.0, zero=0.5, n=100))
    assert rr.warner_epsilon(1.0) == math.inf and rr.warner_epsilon(0.5) == 0.0
    assert rr.kary_epsilon(1.0, d=3) == math.inf and rr.kary_p(math.inf, d=3) == 1.0
    assert rr.warner_p(math.inf) == 1.0 and rr.warner_p(0.0) == 0.5
    np.testing.assert_array_equal(rr.kary_estimate([[5, 3, 0]], epsilon=math.inf), [[5.0, 3.0, 0.0]])


# ---------------------------------------------------------------- property tests in extreme regimes

@SETTINGS
@given(probs, probs)
def test_epsilon_and_bound_extremes(p, k):
    check(rr.epsilon(p, zero=k), ref.epsilon(p, zero=k), p, k)
    check(rr.epsilon_bound(p, zero=k), ref.epsilon_bound(p, zero=k), p, k)


@SETTINGS
@given(probs, probs, probs, st.sampled_from([0, 1]))
def test_posterior_risk_rho_extremes(p, k, prior, r):
    check(rr.posterior(p, zero=k, prior=prior, report=r), ref.posterior(p, zero=k, prior=prior, report=r),
          p, k, prior, r)
    check(rr.identification_risk(p, zero=k, prior=prior, value=r), ref.risk(p, zero=k, prior=prior, value=r),
          p, k, prior, r)
    check(rr.rho(p, zero=k, prior=prior), ref.rho(p, zero=k, prior=prior), p, k, prior)


@SETTINGS
@given(probs, open_probs, probs, st.sampled_from(["free", "cancel"]), st.integers(-3, 3))
def test_estimate_extremes(q, p, k, how, ulps):
    if how == "cancel":                    # q within a few ulps of p (1 - k)
        q = p * (1 - k)
        for _ in range(abs(ulps)):
            q = math.nextafter(q, 1.0 if ulps > 0 else 0.0)
    check(rr.estimate(q, flip=p, zero=k), ref.estimate(q, flip=p, zero=k), q, p, k)


@SETTINGS
@given(probs, probs, probs, st.one_of(counts_n, st.sampled_from([SUB, 1e-320, 1e-310, 1e-300])))
def test_variance_extremes(q, p, k, n):
    check(rr.variance(q, flip=p, zero=k, n=n), ref.variance(q, flip=p, zero=k, n=n), q, p, k, n)


@SETTINGS
@given(epsilons, categories)
def test_warner_and_kary_p_extremes(eps, d):
    check(rr.warner_p(eps), ref.warner_p(eps), eps)
    check(rr.kary_p(eps, d=d), ref.kary_p(eps, d=d), eps, d)


@SETTINGS
@given(half_to_one, kary_inputs())
def test_warner_and_kary_epsilon_extremes(p, pd):
    check(rr.warner_epsilon(p), ref.warner_epsilon(p), p)
    p, d = pd
    check(rr.kary_epsilon(p, d=d), ref.kary_epsilon(p, d=d), p, d)


@SETTINGS
@given(counts_n, probs, half_to_one.filter(lambda p: p > 0.5), st.sampled_from(["free", "cancel"]))
def test_warner_estimate_extremes(n, frac, p, how):
    ny = n * (1 - p) if how == "cancel" else n * frac
    ny = min(ny, n)
    check(rr.warner_estimate(ny, n=n, p=p), ref.warner_estimate(ny, n=n, p=p), ny, n, p)


@SETTINGS
@given(st.lists(st.integers(0, 10 ** 12), min_size=2, max_size=6), epsilons.filter(lambda e: e > 0))
def test_kary_estimate_extremes(counts, eps):
    check_kary_estimate(counts, eps)


# ---------------------------------------------------------------- measurement (run as a script)

GRID = [0.0, SUB, 1e-320, 1e-310, TINY, 1e-300, 1e-200, 1e-100, 1e-30, 2.0 ** -53, 1e-10, 1e-5,
        0.001, 0.1, 0.25, 1 / 3, 0.5, 0.7, 0.9, 1 - 1e-5, 1 - 1e-10, 1 - 2.0 ** -40, 1 - 1e-15,
        1 - 2.0 ** -52, 1 - 2.0 ** -53, 1.0]
GRID_SHORT = [0.0, SUB, 1e-310, 1e-300, 1e-100, 2.0 ** -53, 1e-10, 0.1, 1 / 3, 0.5, 0.9, 1 - 1e-10,
              1 - 2.0 ** -53, 1.0]


def _by_name(fn, args):
    """``fn`` of a case: the first argument by position, the others by name (they are keyword-only)."""
    names = list(inspect.signature(fn).parameters)
    return fn(args[0], **dict(zip(names[1:], args[1:], strict=False)))


def _measure():
    """{function: (max relative error, number of failures, cases)} over grids of extreme inputs."""
    import warnings
    warnings.simplefilter("ignore")
    res = {}

    def record(name, fn, ref, cases):
        worst, fails, first = 0.0, 0, ""
        for args in cases:
            try:
                got = _by_name(fn, args)
            except Exception as exc:   # noqa: BLE001  (an error is a failure here)
                got, want = repr(exc), None
            else:
                want = _by_name(ref, args)
                e = rel_error(got, want)
                if e is not None and e != math.inf:
                    worst = max(worst, e)
            if want is None or not close(got, want):
                fails += 1
                if not first:
                    w = "error" if want is None else (want if isinstance(want, float) else float(want))
                    first = f"{name}{tuple(args)} = {got!r}, want {w!r}"
        res[name] = (worst, fails, len(cases), first)

    G, S = GRID, GRID_SHORT
    record("epsilon", rr.epsilon, ref.epsilon, [(p, k) for p in G for k in G])
    record("epsilon_bound", rr.epsilon_bound, ref.epsilon_bound, [(p, k) for p in G for k in G])
    record("posterior", lambda p, k, pr, r: rr.posterior(p, zero=k, prior=pr, report=r), ref.posterior,
           [(p, k, pr, r) for p in S for k in S for pr in S for r in (0, 1)])
    record("identification_risk", lambda p, k, pr, v: rr.identification_risk(p, zero=k, prior=pr, value=v), ref.risk,
           [(p, k, pr, v) for p in S for k in S for pr in S for v in (0, 1)])
    record("rho", rr.rho, ref.rho, [(p, k, pr) for p in S for k in S for pr in S])
    q0 = [(p * (1 - k), p, k) for p in S if p < 1 for k in S]
    record("estimate", rr.estimate, ref.estimate,
           [(q, p, k) for q in S for p in S if p < 1 for k in S] + q0)
    record("variance", rr.variance, ref.variance,
           [(q, p, k, n) for q in S for p in S for k in (SUB, 0.5) for n in (SUB, 1e-300, 1.0, 1e6, 1e300)])
    E = [0.0, SUB, 1e-310, 1e-300, 1e-100, 1e-16, 1e-8, 0.1, 1.0, 10.0, 100.0, 700.0, 709.0, 710.0, 745.0,
         800.0, 1e10, 1e300, math.inf]
    D = [2, 3, 7, 1000, 2.0 ** 53, 1e300, 1e308]
    record("warner_p", rr.warner_p, ref.warner_p, [(e,) for e in E])
    record("kary_p", rr.kary_p, ref.kary_p, [(e, d) for e in E for d in D])
    H = sorted({min(max(0.5, x), 1.0) for g in G for x in (1 - g / 2, 0.5 + g / 2)})
    record("warner_epsilon", rr.warner_epsilon, ref.warner_epsilon, [(p,) for p in H])
    kc = []
    for d in D:
        lo = 1.0 / d
        ps = [lo, math.nextafter(lo, 1), math.nextafter(math.nextafter(lo, 1), 1)]
        ps += [min(lo + g * (1 - lo), 1.0) for g in G if g > 0] + [1 - g for g in G if g <= 0.5]
        kc += [(p, d) for p in ps if p >= lo]
    kc += [(1 / 3 + 1e-12, 3)]
    record("kary_epsilon", rr.kary_epsilon, ref.kary_epsilon, kc)
    N = [SUB, 1e-310, 1.0, 3.0, 1000.0, 1e300, 1e308]
    P = [0.5 + 2.0 ** -53, 0.6, 0.75, 0.9, 1 - 1e-10, 1 - 2.0 ** -53, 1.0]
    wc = [(min(ny, n), n, p) for n in N for p in P
          for ny in (0.0, SUB, n / 3, n / 2, n, n * (1 - p), math.nextafter(n * (1 - p), 0))]
    record("warner_estimate", rr.warner_estimate, ref.warner_estimate, wc)

    def ke(counts, eps):
        return rr.kary_estimate(counts, epsilon=eps)[0]

    def ke_ref(counts, eps):
        return ref.kary_estimate(counts, epsilon=eps)[0][0]

    CNT = [[10, 10, 10], [500, 250, 250], [1, 0], [0, 7, 3, 1], [10 ** 12, 3, 5]]
    record("kary_estimate", ke, ke_ref, [(c, e) for c in CNT for e in E if e > 0])
    return res


if __name__ == "__main__":
    # max rel err: over the cases with a finite result in the normal range;
    # fails: cases off by more than 1e-12 or with a wrong edge value (inf,
    # nan, 0), the first of them shown below the table
    results = _measure()
    print(f"{'function':22s} {'max rel err':>12s} {'fails':>6s} {'cases':>6s}")
    for name, (worst, fails, n, _) in results.items():
        print(f"{name:22s} {worst:12.3g} {fails:6d} {n:6d}")
    for _name, (*_, first) in results.items():
        if first:
            print("  e.g.", first)


@pytest.mark.parametrize("d", [2.0**63, 2**60, 1e300])
def test_kary_sample_more_categories_than_float_integers(d):
    """Sampling with d beyond 2**53 categories (not exact as int64 draws): a
    ValueError naming d."""
    with pytest.raises(ValueError, match="at most 2"):
        rr.kary_sample([3], epsilon=1.0, d=d, rng=np.random.default_rng(0))


def test_kary_sample_labels_beyond_float_integers():
    with pytest.raises(ValueError, match="x must hold whole numbers within"):
        rr.kary_sample([2.0**70], epsilon=1.0, d=10, rng=np.random.default_rng(0))
    out = rr.kary_sample([2**53 - 1] * 50, epsilon=1.0, d=2**53, rng=np.random.default_rng(0))
    assert np.all((out >= 0) & (out < 2**53))


def test_kary_estimate_counts_near_the_float_maximum():
    """Counts near the float maximum: the estimate equals the scaled-down
    problem's scaled back (it is homogeneous in the counts), at epsilon inf
    the counts themselves, inf only where the estimate passes the float
    range; never NaN."""
    np.testing.assert_array_equal(rr.kary_estimate([1e308, 1e308], epsilon=1.0), [1e308, 1e308])
    np.testing.assert_array_equal(rr.kary_estimate([1e308, 1e308], epsilon=np.inf), [1e308, 1e308])
    got = rr.kary_estimate([1.7976931348623157e308, 0.0], epsilon=1.0)
    assert got[0] == np.inf and np.isfinite(got[1]) and got[1] < 0
    small = rr.kary_estimate([10.0, 3.0, 7.0], epsilon=2.0)
    np.testing.assert_allclose(rr.kary_estimate([1e307, 3e306, 7e306], epsilon=2.0), small * 1e306, rtol=1e-15)


def test_truth_probabilities_round_toward_privacy():
    """warner_p and kary_p round toward privacy: the exact epsilon of the
    returned p never exceeds the target (against 60 digits), p is below 1
    for every finite epsilon, and p is within a few ulps of the largest p
    that meets the target."""
    mpmath.mp.dps = 60
    rng = np.random.default_rng(5)
    eps = np.concatenate([10 ** rng.uniform(-12, 2.9, 400), [35.2, 37.0, 800.0, 1e300]])
    for d in (2, 3, 10, 49):
        p = rr.kary_p(eps, d=d) if d > 2 else rr.warner_p(eps)
        for e, x in zip(eps, p, strict=False):
            assert x < 1.0
            exact = mpmath.log(mpmath.mpf(x) * (d - 1) / (1 - mpmath.mpf(x)))
            assert exact <= e, (d, e, x)
            up = np.nextafter(x, 1.0, dtype=float)
            for _ in range(4):  # a few ulps up, the target fails (or p reaches 1)
                up = np.nextafter(up, 1.0)
            if up < 1.0:
                assert mpmath.log(mpmath.mpf(up) * (d - 1) / (1 - mpmath.mpf(up))) > e, (d, e, x)
    assert rr.kary_p(1e-20, d=10) == 0.1  # the float resolution near 1/d (documented)
    assert rr.warner_p(np.inf) == 1.0
