"""The posterior kernels in extreme regimes (examples 5-11 of the
hardening round), against the 60-digit reference (diffident.testing.mpmath_reference).

Functions: ``log_evidence``, ``log_posterior``, ``posterior``,
``disclosure_risk`` (Laplace and Gaussian noise, with and without counts and
prior), their chunked and Dask forms, and every function that returns a
probability.

Tolerances (as in test_reference.py):

* posteriors and disclosure risks: relative 1e-12 where the exact value is
  at least 1e-300; below that (underflow) the library must give a value in
  [0, 1e-300].  Always in [0, 1], never NaN.  Why 1e-12 is fair even here:
  the inputs are exact floats and a posterior depends on them only through
  energy *differences*, which float64 can carry exactly (two-sum, factored
  differences of squares); a posterior above 1e-300 has energy gaps below
  about 700, so a few roundings of those gaps cost < 1e-13.
* log-evidence: relative 1e-12, plus an absolute floor of 1e-13 (1 + |log
  of the total weight|) where the log-evidence is a difference of the
  largest energy and the log of the weights (ill-conditioned near 0).  An
  exact log-evidence below -DBL_MAX must come back as -inf (never NaN).
* log posteriors: absolute 1e-9 plus relative 4e-15 (values like -1e12
  carry their rounding relative to themselves); -inf where the exact value
  is below -DBL_MAX or the world has zero weight.

Where the issue allows "exact results or a clear ValueError naming the
argument" (scales below 1/DBL_MAX, values near +-1e308) the tests accept
either, and nothing else (no ZeroDivisionError, NaN or silently wrong 1.0).
"""

import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from mpmath import mp, mpf

import diffident as di
from diffident.testing import mpmath_reference as ref

RTOL = 1e-12
TINY = 1e-300
DBL_MAX = np.finfo(float).max


# ---------------------------------------------------------------------------
# comparison helpers: each returns None (agrees) or a description
# ---------------------------------------------------------------------------

def _number(lib, what, shown):
    """(float(lib), None), or (None, a description) where lib is not a
    number or is NaN; ``shown``: the exact value as the description gives it."""
    try:
        v = float(lib)
    except (TypeError, ValueError):
        return None, f"{what}: {lib!r} is not a number (exact {shown})"
    if math.isnan(v):
        return None, f"{what}: NaN (exact {shown})"
    return v, None


def _prob_problem(lib, exact, what):
    x = ref.to_float(exact)
    v, problem = _number(lib, what, repr(x))
    if problem:
        return problem
    if not 0.0 <= v <= 1.0:
        return f"{what}: {v!r} outside [0, 1] (exact {x!r})"
    if x >= TINY:
        if abs(v - x) > RTOL * x:
            return f"{what}: {v!r}, exact {mp.nstr(exact, 17)} (relative error {abs(v - x) / x:.2g})"
    elif v > TINY:
        return f"{what}: {v!r}, exact {mp.nstr(exact, 5)} (underflows)"
    return None


def _log_weight(values, counts, prior):
    c = np.ones(len(values)) if counts is None else np.asarray(counts, float)
    p = np.ones(len(values)) if prior is None else np.asarray(prior, float)
    with mp.workdps(30):
        tot = mp.fsum(mpf(a) * mpf(b) for a, b in zip(c.tolist(), p.tolist(), strict=False))
        return float(abs(mp.log(tot)))


def _log_problem(lib, exact, what, atol, rtol, below="", most=np.inf):
    """A log quantity: -inf where the exact value is below -DBL_MAX, else
    finite, at most ``most`` and within atol + rtol |exact|."""
    x = ref.to_float(exact)
    v, problem = _number(lib, what, mp.nstr(exact, 17))
    if problem:
        return problem
    if x == -np.inf:
        return None if v == -np.inf else f"{what}: {v!r}, exact {mp.nstr(exact, 5)}{below}"
    if not math.isfinite(v) or v > most or abs(v - x) > atol + rtol * abs(x):
        return f"{what}: {v!r}, exact {mp.nstr(exact, 17)}"
    return None


def _logev_problem(lib, exact, what, log_w=0.0):
    return _log_problem(lib, exact, what, 1e-13 * (1.0 + log_w), RTOL, " (below the float range: -inf)")


def _logpost_problem(lib, exact, what):
    return _log_problem(lib, exact, what, 1e-9, 4e-15, most=1e-15)


def _call(fn, *args, **kwargs):
    """(result, None) or (None, exception)."""
    try:
        return fn(*args, **kwargs), None
    except Exception as exc:  # noqa: BLE001 - every exception is reported
        return None, exc


def _point_problems(values, R, s, counts=None, prior=None, noise="laplace", allow_error=()):
    """Compare the four kernels at one point with the reference.

    ``allow_error``: argument names; a ValueError whose message names one of
    them is accepted instead of a value (a clear ValueError)."""
    bad = []
    tag = f"[{noise} R={R!r} scale={s!r} counts={counts} prior={prior}]"
    kw = dict(counts=counts, prior=prior, noise=noise)

    def run(what, fn, *args, **kwargs):
        out, exc = _call(fn, *args, **kwargs)
        if exc is not None:
            if isinstance(exc, ValueError) and any(a in str(exc) for a in allow_error):
                return None, True
            bad.append(f"{what} {tag}: raised {type(exc).__name__}: {exc}")
            return None, False
        return out, False

    le, skipped = run("log_evidence", di.log_evidence, values, response=R, scale=s, **kw)
    if le is not None:
        p = _logev_problem(le, ref.log_evidence(values, response=R, scale=s, counts=counts, prior=prior, noise=noise),
                           f"log_evidence {tag}",
                           _log_weight(values, counts, prior))
        p and bad.append(p)
    lp, _ = run("log_posterior", di.log_posterior, values, response=R, scale=s, **kw)
    post, _ = run("posterior", di.posterior, values, response=R, scale=s, **kw)
    ref_lp = ref.log_posterior(values, response=R, scale=s, counts=counts, prior=prior, noise=noise)
    if counts is not None:  # the library's convention: a world of count 0 has posterior 0
        ref_lp = [mpf("-inf") if counts[j] == 0 else x for j, x in enumerate(ref_lp)]
    for j, x in enumerate(ref_lp):
        if lp is not None:
            p = _logpost_problem(lp[j], x, f"log_posterior[{j}] {tag}")
            p and bad.append(p)
        with mp.workdps(ref.DPS):
            ex = mp.exp(x)
        if post is not None:
            p = _prob_problem(post[j], ex, f"posterior[{j}] {tag}")
            p and bad.append(p)
        dr, _ = run(f"disclosure_risk(world={j})", di.disclosure_risk, values, response=R, scale=s, world=j, **kw)
        if dr is not None:
            p = _prob_problem(dr, ex, f"disclosure_risk(world={j}) {tag}")
            p and bad.append(p)
    return bad


# ---------------------------------------------------------------------------
# 5. far responses, tiny scales, huge Gaussian energies
# ---------------------------------------------------------------------------

FAR_CASES = [
    # id, noise, values, response, scale
    ("lap-R1e6-s1e-12", "laplace", [0.0, 1.0, 2.0], 1e6, 1e-12),
    ("lap-R1e300-s1e-12", "laplace", [0.0, 1.0, 2.0], 1e300, 1e-12),
    ("lap-R-1e300-s1", "laplace", [0.0, 1.0, 2.0], -1e300, 1.0),
    ("lap-cluster-R1e6-s1e-12", "laplace", [0.0, 1e-12, 2.5e-12], 1e6, 1e-12),
    ("lap-between-s1e-12", "laplace", [0.0, 1.0, 2.0], 0.75, 1e-12),
    ("gau-R1e6-s1e-12", "gaussian", [0.0, 1.0, 2.0], 1e6, 1e-12),
    ("gau-R1e20-s1e10", "gaussian", [0.0, 1.0, 2.0], 1e20, 1e10),
    ("gau-R1e100-s1", "gaussian", [0.0, 1.0, 2.0], 1e100, 1.0),
    ("gau-R1e300-s1e150", "gaussian", [0.0, 1.0, 2.0], 1e300, 1e150),
    ("gau-R1e300-s1e-12", "gaussian", [0.0, 1.0, 2.0], 1e300, 1e-12),
    ("gau-R-1e300-cluster-s1", "gaussian", [0.0, 1e-300, 2.5e-300], -1e300, 1.0),
    ("gau-between-s1e-12", "gaussian", [0.0, 1.0, 2.0], 1.5, 1e-12),
]
WEIGHTS = [
    ("plain", None, None),
    ("counts", [1, 2, 3], None),
    ("prior", None, [3.0, 1.0, 2.0]),
    ("both", [2, 1, 5], [3.0, 0.0, 1.0]),
]


@pytest.mark.parametrize("wid, counts, prior", WEIGHTS, ids=[w[0] for w in WEIGHTS])
@pytest.mark.parametrize("cid, noise, values, R, s", FAR_CASES, ids=[c[0] for c in FAR_CASES])
def test_far_responses_and_tiny_scales(cid, noise, values, R, s, wid, counts, prior):
    """Example 5: finite correct values (or -inf for a log-evidence below
    the float range): today inf, NaN, > 1, ZeroDivisionError."""
    bad = _point_problems(values, R, s, counts, prior, noise)
    assert not bad, "\n".join(bad)


# ---------------------------------------------------------------------------
# 6-7. weights: equal worlds, priors, counts x prior beyond the float range
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("noise, R, s", [("gaussian", 1e20, 1.0), ("gaussian", 1e100, 1e-6),
                                         ("laplace", 1e20, 1e-12), ("laplace", 1e300, 1e-12)])
@pytest.mark.parametrize("values, counts, pair", [([1.0, 1.0], [2, 2], (0, 1)),
                                                  ([0.0, 1.0, 1.0], [1, 2, 2], (1, 2)),
                                                  ([1.0, 1.0, 0.0], [2, 2, 1], (0, 1))])
def test_equal_worlds_with_equal_counts_get_equal_posteriors(values, counts, pair, noise, R, s):
    """Example 6: two equal worlds with counts 2 and 2 get equal posteriors,
    each the exact value (today 1 and 1, 0.5, or 0.2500080 instead of 0.25)."""
    post = di.posterior(values, response=R, scale=s, counts=counts, noise=noise)
    exact = ref.posterior(values, response=R, scale=s, counts=counts, prior=None, noise=noise)
    bad = [p for j in range(len(values)) for p in [_prob_problem(post[j], exact[j], f"posterior[{j}]")] if p]
    a, b = post[pair[0]], post[pair[1]]
    assert a == b and not bad, f"posteriors {post.tolist()}:\n" + "\n".join(bad)


@pytest.mark.parametrize("noise, R, s", [("gaussian", 1e20, 1.0), ("gaussian", 1e100, 1e-3),
                                         ("laplace", 1e20, 1e-12), ("laplace", 1e100, 1e-12),
                                         ("laplace", 1e20, 1.0), ("gaussian", 1e9, 3e3)])
@pytest.mark.parametrize("values", [[1.0, 1.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1e-12]])
def test_prior_three_to_one(values, noise, R, s):
    """Example 6: a prior of 3:1 gives the right risk of each world."""
    prior = [3.0, 1.0]
    bad = []
    for w in (0, 1):
        x = ref.disclosure_risk(values, response=R, scale=s, world=w, counts=None, prior=prior, noise=noise)
        out, exc = _call(di.disclosure_risk, values, response=R, scale=s, world=w, prior=prior, noise=noise)
        p = f"world {w}: raised {exc!r}" if exc else _prob_problem(out, x, f"disclosure_risk(world={w})")
        p and bad.append(p)
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("noise", ["laplace", "gaussian"])
@pytest.mark.parametrize("R, s", [(0.5, 1.0), (1.5, 1e-3), (1e6, 1e-3), (-3.0, 10.0)])
def test_counts_and_prior_1e200_together(R, s, noise):
    """Example 7: counts 1e200 and prior 1e200 together (weights 1e400):
    normalised in log space, not NaN (today NaN and ZeroDivisionError)."""
    values, counts, prior = [0.0, 1.0, 2.0], [1e200, 1.0, 1e200], [1e200, 1e200, 1.0]
    bad = _point_problems(values, R, s, counts, prior, noise)
    assert not bad, "\n".join(bad)


def test_counts_and_prior_1e200_worst_cases():
    """Example 7, the worst-case side: worst_case_risk and the multi-release
    worst case with weights 1e400 (today multi_worst_case_risk gives 0)."""
    values, counts, prior = [0.0, 1.0, 2.0], [1e200, 1.0, 1e200], [1e200, 1e200, 1.0]
    F = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]])
    bad = []
    for s in (0.3, 1.0, 30.0):
        x = ref.worst_case_risk(values, scale=s, counts=counts, prior=prior)[0]
        out, exc = _call(di.worst_case_risk, values, scale=s, counts=counts, prior=prior)
        p = f"worst_case_risk: raised {exc!r}" if exc else _prob_problem(out, x, f"worst_case_risk(scale={s})")
        p and bad.append(p)
        x = ref.multi_worst_case_risk(F, scales=[s, s], counts=counts, prior=prior)
        out, exc = _call(di.multi_worst_case_risk, F, scale=[s, s], counts=counts, prior=prior)
        p = f"multi_worst_case_risk: raised {exc!r}" if exc else _prob_problem(out, x, f"multi(scale={s})")
        p and bad.append(p)
    assert not bad, "\n".join(bad)


# ---------------------------------------------------------------------------
# 8. scales below 1/DBL_MAX, values near +-1e308
# ---------------------------------------------------------------------------

SUBNORMAL_CASES = [
    ("s1e-310-R0.25", [0.0, 1.0], 0.25, 1e-310),
    ("s1e-310-tie", [0.0, 1.0], 0.5, 1e-310),
    ("s5e-324-tie", [0.0, 1.0], 0.5, 5e-324),
    ("s5e-324-subnormal-values", [0.0, 5e-324, 1e-323], 5e-324, 5e-324),
    ("s1e-310-subnormal-values", [0.0, 1e-310, 3e-310], 2e-310, 1e-310),
    ("huge-values-s1e308", [-1.5e308, 1.5e308], 1e308, 1e308),
    ("huge-values-s1", [-1.5e308, 1.5e308], 0.0, 1.0),
    ("huge-values-R-edge", [-1.5e308, 1.5e308], -1.5e308, 1e307),
    ("huge-values-3", [-1.7e308, 0.0, 1.7e308], 1e308, 5e307),
]


@pytest.mark.parametrize("noise", ["laplace", "gaussian"])
@pytest.mark.parametrize("cid, values, R, s", SUBNORMAL_CASES, ids=[c[0] for c in SUBNORMAL_CASES])
def test_subnormal_scales_and_huge_values(cid, values, R, s, noise):
    """Example 8: exact results, or a ValueError naming the argument (scale,
    values, response); never ZeroDivisionError, NaN or a wrong 1.0."""
    bad = _point_problems(values, R, s, None, None, noise, allow_error=("scale", "values", "response"))
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("values, scale", [([-1.5e308, 1.5e308], 1e308), ([-1.5e308, 1.5e308], 1.7e308),
                                           ([-1.7e308, 0.0, 1.7e308], 1e308), ([0.0, 5e-324], 5e-324),
                                           ([0.0, 1e-310, 3e-310], 1e-310)])
def test_worst_case_risk_huge_values_and_subnormal_scales(values, scale):
    """Example 8 for the worst case: worst_case_risk([-1.5e308, 1.5e308],
    1e308) is 1 / (1 + e^-3) = 0.9526, not a silent 1.0; or a ValueError
    naming values/scale."""
    x = ref.worst_case_risk(values, scale=scale)[0]
    out, exc = _call(di.worst_case_risk, values, scale=scale)
    if exc is not None:
        assert isinstance(exc, ValueError) and ("values" in str(exc) or "scale" in str(exc)), repr(exc)
        return
    p = _prob_problem(out, x, "worst_case_risk")
    assert p is None, p


@pytest.mark.parametrize("rho", [0.6, 0.9, 0.99])
def test_tight_scale_huge_values(rho):
    """Example 8: tight_scale on values [-1.5e308, 1.5e308]: conservative
    and tight at 60 digits (inf only where the exact scale exceeds the float
    range, as at rho = 0.6: 3e308 / ln 1.5), or a ValueError naming values."""
    v = [-1.5e308, 1.5e308]
    out, exc = _call(di.tight_scale, v, rho=rho)
    if exc is not None:
        assert isinstance(exc, ValueError) and "values" in str(exc), repr(exc)
        return
    exact = 2 * mpf(1.5e308) / mp.log(mpf(rho) / (1 - mpf(rho)))  # (3e308 is inf as a float)
    if ref.to_float(exact) == np.inf:
        assert out == np.inf
        return
    assert ref.worst_case_risk(v, scale=out)[0] <= mpf(rho), f"tight_scale {out!r} unsafe"
    assert ref.worst_case_risk(v, scale=out * (1 - 1e-9))[0] > mpf(rho), f"tight_scale {out!r} vs {mp.nstr(exact, 17)}"


# ---------------------------------------------------------------------------
# 9. the many-response (sorted sweep) path
# ---------------------------------------------------------------------------

def test_many_responses_zero_weight_world_outside():
    """Example 9: 10,000 responses over 10,000 worlds (the sorted sweep) give
    0, not NaN, for a zero-weight world lying outside the positive-weight
    ones (values [0, 1, 100], prior [1, 1, 0]), as the single-point path
    does; the other worlds agree with the single-point path."""
    base = np.array([0.0, 1.0, 100.0])
    values = np.concatenate([base, np.linspace(0.0, 1.0, 9997)])
    prior = np.concatenate([[1.0, 1.0, 0.0], np.ones(9997)])
    R = np.linspace(-500.0, 1500.0, 10000)
    for s in (1.0, 0.1):
        risk = di.disclosure_risk(values, response=R, scale=s, world=2, prior=prior)
        assert not np.isnan(risk).any(), f"scale {s}: {int(np.isnan(risk).sum())} NaN of {R.size}"
        assert np.all(risk == 0.0), f"scale {s}: max {np.nanmax(risk)!r}"
    single = [di.disclosure_risk(base, response=r, scale=0.1, world=2, prior=[1.0, 1.0, 0.0]) for r in (-500.0, 50.0,
                                                                                                        1500.0)]
    assert single == [0.0, 0.0, 0.0]
    many = di.disclosure_risk(values, response=R, scale=0.1, world=0, prior=prior)
    idx = np.arange(0, R.size, 997)
    for k in idx:
        one = di.disclosure_risk(values, response=R[k], scale=0.1, world=0, prior=prior)
        assert abs(many[k] - one) <= RTOL * max(one, TINY) or (one < TINY and many[k] < TINY), (R[k], many[k], one)


@pytest.mark.parametrize("R0, s", [(1e6, 1e-3), (1e12, 1.0), (-1e15, 10.0), (0.5, 1e-12)])
def test_many_responses_far_against_reference(R0, s):
    """The sweep path in the regimes of example 5: 1000 responses over 6000
    worlds (three values repeated), against the reference."""
    base = np.array([0.0, 1.0, 2.5])
    values = np.repeat(base, 2000)
    R = R0 + s * np.linspace(-3.0, 3.0, 1000)
    le = di.log_evidence(values, response=R, scale=s)
    risk = di.disclosure_risk(values, response=R, scale=s, world=0)
    bad = []
    for k in range(0, R.size, 111):
        r = float(R[k])
        p = _logev_problem(le[k], ref.log_evidence(base, response=r, scale=s, counts=[2000] * 3),
                           f"log_evidence R={r!r}", math.log(6000))
        p and bad.append(p)
        p = _prob_problem(risk[k], ref.disclosure_risk(base, response=r, scale=s, world=0, counts=[2000] * 3),
                          f"disclosure_risk R={r!r}")
        p and bad.append(p)
    assert not bad, "\n".join(bad)


# ---------------------------------------------------------------------------
# 10. chunked and Dask forms agree with the in-memory ones (and the truth)
# ---------------------------------------------------------------------------

CHUNK_CASES = [c for c in FAR_CASES] + [
    ("lap-R1e250-s1e-2", "laplace", [0.0, 1.0, 2.0], 1e250, 0.01),      # today 2.4e86 where the answer is 1
    ("gau-R1e100-s1e49", "gaussian", [0.0, 1.0, 2.0], 1e100, 1e49),     # the same
    ("lap-ordinary", "laplace", [0.0, 1.0, 2.0], 0.3, 0.7),
    ("gau-ordinary", "gaussian", [0.0, 1.0, 2.0], 0.3, 0.7),
]


@pytest.mark.parametrize("counts", [None, [1, 2, 3]], ids=["plain", "counts"])
@pytest.mark.parametrize("cid, noise, values, R, s", CHUNK_CASES, ids=[c[0] for c in CHUNK_CASES])
def test_chunked_matches_reference(cid, noise, values, R, s, counts):
    """Example 10: chunked_log_evidence and chunked_disclosure_risk in the
    regimes of example 5 (today 3.9e249-like posteriors, inf, and a false
    "every world zero weight")."""
    bad = []
    v = np.asarray(values)
    c = None if counts is None else np.asarray(counts, float)
    for size in (1, 2):
        chunks = list(di.iter_chunks(v, chunk_size=size, counts=c))
        out, exc = _call(di.chunked_log_evidence, chunks, response=R, scale=s, noise=noise)
        p = (f"chunked_log_evidence(size {size}): raised {exc!r}" if exc else
             _logev_problem(out, ref.log_evidence(values, response=R, scale=s, counts=counts, prior=None, noise=noise),
                            f"chunked_log_evidence(size {size})", _log_weight(values, counts, None)))
        p and bad.append(p)
        for j in range(v.size):
            x = ref.disclosure_risk(values, response=R, scale=s, world=j, counts=counts, prior=None, noise=noise)
            out, exc = _call(di.chunked_disclosure_risk, iter(chunks), response=R, scale=s, world_value=float(v[j]),
                             noise=noise)
            p = (f"chunked_disclosure_risk(world {j}, size {size}): raised {exc!r}" if exc else
                 _prob_problem(out, x, f"chunked_disclosure_risk(world {j}, size {size})"))
            p and bad.append(p)
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("cid, noise, values, R, s", CHUNK_CASES, ids=[c[0] for c in CHUNK_CASES])
def test_dask_log_evidence_matches_reference(cid, noise, values, R, s):
    """Example 10: diffident.dask.log_evidence in the regimes of example 5."""
    dask = pytest.importorskip("dask")
    import dask.array as da

    import diffident.dask as ddk

    with dask.config.set(scheduler="synchronous"):
        out, exc = _call(ddk.log_evidence, da.from_array(np.asarray(values), chunks=1), response=R, scale=s,
                         noise=noise)
    p = (f"dask.log_evidence raised {exc!r}" if exc else
         _logev_problem(out, ref.log_evidence(values, response=R, scale=s, counts=None, prior=None, noise=noise),
                        "dask.log_evidence"))
    assert p is None, p


def test_chunked_disclosure_risk_single_world_not_above_one():
    """Example 11: chunked_disclosure_risk of the only world is exactly 1
    (today 1.0000000000000002)."""
    out = di.chunked_disclosure_risk([np.array([2.0])], response=1.9375650264464654, scale=0.04149430023115977,
                                     world_value=2.0)
    assert 0.0 <= out <= 1.0, repr(out)
    assert out == 1.0


@pytest.mark.parametrize("call", [
    lambda v, R, s, noise: di.posterior(v, response=R, scale=s, noise=noise),
    lambda v, R, s, noise: di.log_posterior(v, response=R, scale=s, noise=noise),
    lambda v, R, s, noise: di.log_evidence(v, response=R, scale=s, noise=noise),
    lambda v, R, s, noise: di.disclosure_risk(v, response=[R] * 100, scale=s, world=1, noise=noise),
    lambda v, R, s, noise: di.chunked_log_evidence([np.array(v)], response=R, scale=s, noise=noise),
    lambda v, R, s, noise: di.chunked_disclosure_risk([np.array(v)], response=R, scale=s, world_value=5e-324,
                                                      noise=noise),
])
def test_subnormal_gaps_lost_to_the_scaling_are_a_value_error(call):
    """Responses near 1e308 are scaled down by a power of two into the
    kernels' range, where subnormal values lose their gaps.  For Gaussian
    noise at scale 1e-20, where the gap 5e-324 moves the posterior from
    1/2 to 1: a ValueError.  For Laplace noise, where its effect (5e-304)
    is below the float resolution: the exact answer."""
    v, R, s = [0.0, 5e-324], 1e308, 1e-20
    with pytest.raises(ValueError, match="subnormal range"):
        call(v, R, s, "gaussian")
    out = np.asarray(call(v, R, s, "laplace"), dtype=float)
    assert np.all(np.isfinite(out) | (out == -np.inf))
    if out.size == 2:  # posterior, log posterior
        want = ref.posterior(v, response=R, scale=s, noise="laplace")
        got = out if np.all(out >= 0) else np.exp(out)
        np.testing.assert_allclose(got, [float(w) for w in want], rtol=1e-15)


def test_subnormal_gaps_without_scaling_are_exact():
    """The same gaps where no scaling is needed (responses 1e300) are
    carried exactly: the posterior moves by 2.5e-11 (values 1e-320 apart)
    and to 0.73 (1e-310 apart), as the 60-digit reference says (to the
    subnormal gap's own precision)."""
    for gap in (1e-320, 1e-310):
        v = [0.0, gap]
        got = di.posterior(v, response=1e300, scale=1e-5, noise="gaussian")
        want = [float(w) for w in ref.posterior(v, response=1e300, scale=1e-5, noise="gaussian")]
        np.testing.assert_allclose(got, want, rtol=1e-15)  # 0.5 + 2.5e-11: its ulps
        assert abs(got[1] - 0.5 - (want[1] - 0.5)) <= 1e-6 * (want[1] - 0.5) + 2.3e-16


# ---------------------------------------------------------------------------
# property tests in the extreme regimes (hypothesis; profiles in conftest)
# ---------------------------------------------------------------------------

def _finite(x):
    return math.isfinite(x)


_BASES = st.sampled_from([0.0, 1.0, -7.5, 1e6, -1e12, 1e100, -1e200, 1e300, 1e307])
_STEPS = st.sampled_from([1.0, 0.25, 1e-6, 1e-12, 1e-300, 1e100, 3e306])
_OFFSETS = st.sampled_from([0.0, 0.5, -0.5, 3.0, 1e6, -1e6, 1e12, -1e300, 1e300, 1e100])
_SCALE_RATIOS = st.sampled_from([1e-12, 1e-3, 1.0, 30.0, 1e6])


@st.composite
def extreme_points(draw, gaussian_ok=True):
    """(values, response, scale, counts, prior, noise): a cluster of 1-4
    values base + k * step, a response offset from the cluster by a multiple
    of its step (up to 1e300 steps away), a scale a multiple of the step
    (1e-12 .. 1e6), and optional counts / prior (with zeros and 1e200)."""
    base, step = draw(_BASES), draw(_STEPS)
    ks = draw(st.lists(st.integers(0, 6), min_size=1, max_size=4))
    values = [base + k * step for k in ks]
    assume(all(_finite(v) for v in values))
    R = base + draw(_OFFSETS) * step
    assume(_finite(R))
    s = draw(_SCALE_RATIOS) * step
    assume(_finite(s) and s > 0)
    n = len(values)
    counts = draw(st.one_of(st.none(), st.lists(st.sampled_from([0.0, 1.0, 2.0, 3.0, 1e200]),
                                                 min_size=n, max_size=n)))
    prior = draw(st.one_of(st.none(), st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0, 1e-200, 1e200]),
                                                min_size=n, max_size=n)))
    c = np.ones(n) if counts is None else np.array(counts)
    p = np.ones(n) if prior is None else np.array(prior)
    assume(np.any((c > 0) & (p > 0)))
    noise = draw(st.sampled_from(["laplace", "gaussian"] if gaussian_ok else ["laplace"]))
    return values, R, s, counts, prior, noise


@given(extreme_points())
def test_property_kernels_match_reference(pt):
    """Examples 5-8 and 11 as a property: the four kernels agree with the
    reference (or, for scales below 1/DBL_MAX or values beyond 1e307, raise
    a ValueError naming the argument)."""
    values, R, s, counts, prior, noise = pt
    c = np.ones(len(values)) if counts is None else np.array(counts)
    p = np.ones(len(values)) if prior is None else np.array(prior)
    # the library normalises by the largest prior of a positive-count world
    assume(np.any((c > 0) & (p > 0)))
    allow = ("scale", "values", "response") if (s < 1 / DBL_MAX or max(map(abs, values + [R])) > 1e307) else ()
    bad = _point_problems(values, R, s, counts, prior, noise, allow_error=allow)
    assert not bad, "\n".join(bad)


@given(extreme_points(), st.integers(1, 3))
def test_property_chunked_match_reference(pt, size):
    """Example 10 as a property: chunked log-evidence and disclosure risk
    (counts, no prior) agree with the reference."""
    values, R, s, counts, _, noise = pt
    c = None if counts is None else np.array(counts)
    assume(c is None or c.sum() > 0)
    chunks = list(di.iter_chunks(np.array(values), chunk_size=size, counts=c))
    bad = []
    # the same allowance as the in-memory property: a scale below 1/DBL_MAX
    # with values beyond 1e307 may be a ValueError naming the argument
    allow = ("scale", "values", "response") if (s < 1 / DBL_MAX or max(map(abs, values + [R])) > 1e307) else ()

    def named(e):
        return isinstance(e, ValueError) and any(a in str(e) for a in allow)

    out, exc = _call(di.chunked_log_evidence, chunks, response=R, scale=s, noise=noise)
    if named(exc):
        exc, out = None, None
        _, exc_mem = _call(di.log_evidence, values, response=R, scale=s, counts=c, noise=noise)
        assert named(exc_mem), f"chunked raised where the in-memory function did not: {exc_mem!r}"
        return
    p = (f"chunked_log_evidence raised {exc!r}" if exc else
         _logev_problem(out, ref.log_evidence(values, response=R, scale=s, counts=counts, prior=None, noise=noise),
                        "chunked_log_evidence",
                        _log_weight(values, counts, None)))
    p and bad.append(p)
    # the world named must be among the chunks' worlds: one of positive count
    j = max(i for i in range(len(values)) if c is None or c[i] > 0)
    out, exc = _call(di.chunked_disclosure_risk, iter(chunks), response=R, scale=s, world_value=values[j], noise=noise)
    x = ref.disclosure_risk(values, response=R, scale=s, world=j, counts=counts, prior=None, noise=noise)
    p = f"chunked_disclosure_risk raised {exc!r}" if exc else _prob_problem(out, x, "chunked_disclosure_risk")
    p and bad.append(p)
    assert not bad, f"values={values} R={R!r} s={s!r} counts={counts} {noise}:\n" + "\n".join(bad)


@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=5), st.floats(-1e6, 1e6),
       st.floats(1e-6, 1e6), st.sampled_from(["laplace", "gaussian"]))
def test_property_probabilities_at_most_one(values, R, s, noise):
    """Example 11: every probability-returning function stays in [0, 1] in
    ordinary regimes too (no 1.0000000000000002)."""
    v = np.array(values)
    checks = {
        "posterior": lambda: di.posterior(v, response=R, scale=s, noise=noise),
        "disclosure_risk": lambda: di.disclosure_risk(v, response=R, scale=s, world=0, noise=noise),
        "chunked_disclosure_risk": lambda: di.chunked_disclosure_risk(di.iter_chunks(v, chunk_size=2), response=R,
                                                                      scale=s, world_value=float(v[0]),
                                                                      noise=noise),
        "worst_case_risk": lambda: di.worst_case_risk(v, scale=s),
        "chunked_worst_case_risk": lambda: di.chunked_worst_case_risk([np.sort(v)], scale=s),
        "multi_worst_case_risk": lambda: di.multi_worst_case_risk(np.column_stack([v, v[::-1]]), scale=[s, 2 * s]),
        "risk_bound": lambda: di.risk_bound(s, m=float(v.size), sensitive_range=float(np.ptp(v))),
        "rho_for_epsilon": lambda: di.rho_for_epsilon(1.0 / s, m=float(v.size)),
        "posterior_bound": lambda: di.posterior_bound(1.0 / s, prior=1.0 / (v.size + 1)),
    }
    bad = []
    for name, fn in checks.items():
        out, exc = _call(fn)
        if exc is not None:
            bad.append(f"{name}: raised {exc!r}")
            continue
        a = np.asarray(out, dtype=float)
        if np.isnan(a).any() or (a < 0).any() or (a > 1).any():
            bad.append(f"{name}: {a.tolist()!r}")
    assert not bad, "\n".join(bad)


@given(st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=4), st.floats(0.0, 1.0), st.floats(1e-3, 1e3))
def test_property_gaussian_delta_is_probability(values, rho, sigma):
    """Example 11 for gaussian_delta: in [0, 1], never NaN."""
    d = di.gaussian_delta(values, rho=rho, sigma=sigma)
    assert 0.0 <= d <= 1.0, repr(d)


@given(st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_property_rr_probabilities(p, k, prior):
    """Example 11 for randomized response: posterior, identification_risk
    and rho in [0, 1]; NaN only where documented (rr.posterior of a report
    of probability zero)."""
    report1 = prior * (1 - p * k) + (1 - prior) * p * (1 - k)  # P(report 1), up to rounding
    for name, fn in (("rr.posterior", di.rr.posterior), ("rr.identification_risk", di.rr.identification_risk),
                     ("rr.rho", di.rr.rho)):
        out, exc = _call(fn, p, k=k, prior=prior)
        assert exc is None or isinstance(exc, ValueError), f"{name}: {exc!r}"
        if exc is not None:
            continue
        a = float(out)
        if math.isnan(a) and name == "rr.posterior" and report1 <= 1e-300:
            continue
        assert 0.0 <= a <= 1.0, f"{name}({p!r}, {k!r}, {prior!r}) = {out!r}"
