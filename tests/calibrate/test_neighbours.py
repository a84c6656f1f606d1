"""dataset_tight_scale: the tight calibration over every D' = D - removal.

Checked against brute force (every removal's worlds by `world_values`,
`tight_scale` on each, the maximum), for conservativeness (the worst case of
every removal at the result), on the counter-example of the Mathematics page
(section 9), and on the certificate path against exact evaluation.
"""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import diffident as di
from diffident._calibrate import certificate as _certificate
from diffident._calibrate.certificate import var_errors
from diffident._calibrate.neighbours import Problem
from diffident._worlds.sets import Candidates, Known, Query

QUERIES = ["sum", "mean", "median", "quantile", "min", "max", "var", "std", "count"]


def spread_sq(w):
    """A callable query: not one the library knows."""
    return float(np.max(w) - np.min(w)) ** 2 + float(w[0])


def removals(data, cands, k):
    """(removed values, known part, candidates) for every k-subset of
    individuals, one per distinct multiset of removed values (the others
    leave the same D')."""
    data = np.asarray(data, float)
    seen = set()
    for R in itertools.combinations(range(data.size), k):
        key = tuple(sorted(data[list(R)].tolist()))
        if key in seen:
            continue
        seen.add(key)
        c = cands if isinstance(cands, di.Domain) else np.append(np.asarray(cands, float), data[list(R)])
        yield key, np.delete(data, R), c


def brute(query, data, cands, rho, k=1, **kw):
    """The largest tight scale over every removal, and the removals' worlds."""
    best = np.zeros(np.shape(rho))
    worlds = []
    for key, known, c in removals(data, cands, k):
        v, n = di.world_values(query, known=known, candidates=c, k=k, **kw)
        worlds.append((key, v, n))
        best = np.maximum(best, di.tight_scale(v, rho=rho, counts=n))
    return best, worlds


def check_every_removal(lam, rho, worlds):
    """Every removal's worst case at the scale meets rho (an infinite scale
    is the answer where rho is unattainable)."""
    lam, rho = np.atleast_1d(lam), np.broadcast_to(rho, np.shape(np.atleast_1d(lam)))
    ok = np.isfinite(lam)
    for _, v, n in worlds:
        assert np.all(di.worst_case_risk(v, scale=lam[ok], counts=n) <= rho[ok])


def test_counter_example():
    """Mathematics page, section 9: the D' attaining the sensitive range needs less noise
    than another D'; the dataset-level scale covers every one."""
    data, dom, rho = [6, 6, 0, 4, 3, 2, 3, 3], di.Domain(0, 7), 0.5
    S, first = di.dataset_sensitive_range("std", data=data, candidates=dom, return_removed=True)
    v, c = di.world_values("std", known=np.delete(data, first[0]), candidates=dom)
    single = di.tight_scale(v, rho=rho, counts=c)
    lam, removed = di.dataset_tight_scale("std", data=data, candidates=dom, rho=rho, return_removed=True)
    assert isinstance(lam, float) and isinstance(removed, int)
    assert lam > single * 1.01
    worst, worlds = brute("std", data, dom, rho)
    assert lam == worst
    # the single-D' scale is unsafe for the D' the result names, not for its own
    v2, c2 = di.world_values("std", known=np.delete(data, removed), candidates=dom)
    assert di.worst_case_risk(v2, scale=single, counts=c2) > rho
    assert di.tight_scale(v2, rho=rho, counts=c2) == lam
    check_every_removal(lam, rho, worlds)


@settings(derandomize=True, database=None, deadline=None, max_examples=80)
@given(
    data=st.lists(st.integers(0, 6), min_size=2, max_size=6),
    query=st.sampled_from(QUERIES + [spread_sq]),
    k=st.sampled_from([1, 1, 2]),
    explicit=st.booleans(),
    extra=st.lists(st.integers(-2, 9), min_size=0, max_size=4),
    ddof=st.sampled_from([0, 1]),
    q=st.sampled_from([0.0, 0.3, 0.5, 1.0]),
)
def test_brute_force(data, query, k, explicit, extra, ddof, q):
    cands = np.array(extra, float) if explicit else di.Domain(0, 6)
    if k >= len(data) or (query in ("var", "std") and len(data) < 1 + ddof):
        return
    rho = np.array([0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.7, 0.95, 1.0])
    kw = dict(ddof=ddof, q=q)
    worst, worlds = brute(query, data, cands, rho, k=k, **kw)
    lam, rem = di.dataset_tight_scale(query, data=data, candidates=cands, rho=rho, k=k, return_removed=True, **kw)
    check_every_removal(lam, rho, worlds)
    shift = query in ("sum", "mean") and not explicit
    # exact maximum; sum and mean over a Domain carry a rounding margin
    np.testing.assert_allclose(lam, worst, rtol=1e-6 if shift else 1e-12, atol=0)
    assert np.all(lam >= worst)
    assert rem.shape == rho.shape + ((k,) if k > 1 else ())
    if not shift:  # the removal named attains the scale
        by = {key: di.tight_scale(v, rho=rho, counts=n) for key, v, n in worlds}
        values = np.asarray(data, float)
        for i in range(rho.size):
            key = tuple(sorted(values[np.atleast_1d(rem[i])].tolist()))
            assert by[key][i] == lam[i]


@pytest.mark.parametrize("extra", [[0.0], [0.0, 0.0, 0.0, 0.0]])
def test_brute_force_regressions(extra):
    """Two cases hypothesis found: near rho = 1 - 1/m tight_scale falls back
    to the paper's closed form, and dataset_tight_scale must apply the same
    fallback (it returned a scale 7e-14 larger); a removal leaving one
    distinct world must not break the search's first guess."""
    rho = np.array([0.5, 0.7, 0.9, 0.95, 1.0])
    worst, worlds = brute("sum", [0, 1], np.array(extra), rho)
    lam, rem = di.dataset_tight_scale("sum", data=[0, 1], candidates=np.array(extra), rho=rho, return_removed=True)
    by = {key: di.tight_scale(v, rho=rho, counts=n) for key, v, n in worlds}
    for i in range(rho.size):
        assert by[(float(rem[i]),)][i] == lam[i]
    np.testing.assert_array_equal(lam, worst)


def test_shapes_edges_and_types():
    data, dom = [1, 2, 2, 5], di.Domain(0, 9)
    rho = np.array([[0.0, 0.1], [0.5, 1.0]])
    lam, rem = di.dataset_tight_scale("median", data=data, candidates=dom, rho=rho, return_removed=True)
    assert lam.shape == rem.shape == (2, 2) and rem.dtype == np.int64
    assert lam[0, 0] == np.inf and lam[1, 1] == 0.0  # unattainable, no noise needed
    assert lam[0, 1] == np.inf  # 0.1 <= 1/m = 1/10
    lam2, rem2 = di.dataset_tight_scale("median", data=data, candidates=dom, rho=rho, k=2, return_removed=True)
    assert rem2.shape == (2, 2, 2)
    assert isinstance(di.dataset_tight_scale("mean", data=data, candidates=dom, rho=0.3), float)
    # an empty U minus D: one world per D', nothing below 1 attainable
    assert di.dataset_tight_scale("mean", data=data, candidates=[], rho=0.5) == np.inf
    assert di.dataset_tight_scale("mean", data=data, candidates=[], rho=1.0) == 0.0


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(query="nope"), ValueError, "query"),
    (dict(query=3), TypeError, "query"),
    (dict(data=[[1, 2]]), ValueError, "one-dimensional"),
    (dict(data=[]), ValueError, "non-empty"),
    (dict(data=[1, np.nan]), ValueError, "data"),
    (dict(data=[1, 20]), ValueError, "lie in"),
    (dict(data=[1.5, 2]), ValueError, "lie in"),
    (dict(candidates=di.Domain(0, 9, integer=False)), ValueError, "real interval"),
    (dict(rho=1.5), ValueError, "rho"),
    (dict(rho="a"), TypeError, "rho"),
    (dict(rtol=-1.0), ValueError, "rtol"),
    (dict(k=0), ValueError, "k"),
    (dict(k=1.0), TypeError, "k"),
    (dict(k=9), ValueError, "exceeds"),
    (dict(ddof=2), ValueError, "ddof"),
    (dict(query="quantile", q=2.0), ValueError, "q"),
    (dict(return_removed=1), TypeError, "return_removed"),
    (dict(max_worlds=5), ValueError, "max_worlds"),
    (dict(max_worlds=5.0), TypeError, "max_worlds"),
    (dict(query="std", data=[3.0], ddof=1), ValueError, "too few"),
])
def test_bad_input(kwargs, exc, match):
    args = dict(query="median", data=[1, 2, 3], candidates=di.Domain(0, 9), rho=0.3)
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        di.dataset_tight_scale(args.pop("query"), data=args.pop("data"), candidates=args.pop("candidates"),
                               rho=args.pop("rho"),
                               **args)


def _problem(query, data, dom, ddof=1):
    return Problem(Query(query, 0.5, ddof), 1, np.asarray(data, float), Candidates(dom), 10**8)


def test_certificate_against_exact(monkeypatch):
    """std over a 2,000-value domain with 30 distinct removals: most
    (removal, rho) pairs are certified at the reference's answer, the rest
    are evaluated exactly; cross-checked by exact evaluation of every
    removal at every rho, by each removal's own tight scale, and by the same
    search with the certificate switched off."""
    rng = np.random.default_rng(3)
    vals = rng.choice(np.arange(2000.0), 30, replace=False)
    data = np.concatenate([vals, rng.choice(vals, 170)])
    dom = di.Domain(0, 1999)
    rho = np.geomspace(1 / 2000 * 1.001, 0.5, 60)
    p = _problem("std", data, dom)
    lam, who = p.solve(rho, 1e-9)
    pairs = 29 * rho.size
    assert pairs // 2 < p.stats["certified"] < pairs and p.stats["exact"] == pairs - p.stats["certified"]
    np.testing.assert_array_equal(lam, di.dataset_tight_scale("std", data=data, candidates=dom, rho=rho, ddof=1,
                                                              rtol=1e-9))
    best = np.zeros(rho.size)
    for x in np.unique(data):
        v, c = di.world_values("std", known=np.delete(data, np.flatnonzero(data == x)[0]), candidates=dom, ddof=1)
        assert np.all(di.worst_case_risk(v, scale=lam, counts=c) <= rho)
        best = np.maximum(best, di.tight_scale(v, rho=rho, counts=c, rtol=1e-9))
    np.testing.assert_allclose(lam, best, rtol=2e-9)

    monkeypatch.setattr(_certificate.Certificate, "check", lambda self, lam, rho: np.zeros(lam.size, bool))
    q = _problem("std", data, dom)
    lam2, who2 = q.solve(rho, 1e-9)
    assert q.stats["certified"] == 0 and q.stats["exact"] == pairs
    np.testing.assert_array_equal(lam2, lam)
    np.testing.assert_array_equal(who2, who)


def test_certificate_weights_that_underflow():
    """Offsets so large that exp(-s B) underflows: the certificate fails
    there (the evaluator needs positive weights) and exact checks decide."""
    data, dom = [2480.0, 1095.0, 499.0, 1644.0], di.Domain(0, 2531)
    rho = np.linspace(0.1, 0.98, 12)
    worst, worlds = brute("var", data, dom, rho)
    lam = di.dataset_tight_scale("var", data=data, candidates=dom, rho=rho)
    np.testing.assert_array_equal(lam, worst)
    check_every_removal(lam, rho, worlds)


def test_binding_removal_is_searched():
    """Where the certificate cannot cover a removal (it needs more noise than
    the reference), it is evaluated, found binding and searched."""
    data, dom = [6, 6, 0, 4, 3, 2, 3, 3], di.Domain(0, 7)
    rho = np.array([0.3, 0.5, 0.7])
    p = _problem("std", data, dom, ddof=0)
    lam, who = p.solve(rho, 0.0)
    assert p.stats["binding"] > 0 and p.stats["exact"] > 0
    assert np.any(who != p.ref)
    worst, worlds = brute("std", data, dom, rho)
    np.testing.assert_array_equal(lam, worst)


@pytest.mark.parametrize("query, ddof", [("var", 0), ("std", 1), ("std", 0)])
@pytest.mark.parametrize("offset, spread", [(0.0, 50.0), (1e6, 3.0), (-7.5, 0.25), ("bimodal", 1e5)])
def test_var_approximation_within_bound(query, ddof, offset, spread):
    """The certificate's float64 var/std worlds lie within `var_errors` of
    the values `world_values` computes (also when the known parts' medians,
    the library's shifts, lie far apart)."""
    if offset == "bimodal":
        rng = np.random.default_rng(1)
        data = np.concatenate([rng.integers(0, 5, 30), spread + rng.integers(0, 5, 31)]).astype(float)
    else:
        rng = np.random.default_rng(int(offset) % 97)
        data = offset + np.round(rng.standard_normal(60) * spread)
    lo, hi = float(np.floor(data.min())) - 20, float(np.ceil(data.max())) + 20
    dom = di.Domain(lo, hi)
    qy = Query(query, 0.5, ddof)
    xs = np.sort(data)
    full = Known(xs, 0.0)
    n = xs.size
    from diffident._kernels import neighbours

    x = np.unique(xs)
    mu, qc, s2 = (np.empty(x.size) for _ in range(3))
    neighbours.removed_moments(full.st, full.c, x, n - 1, mu, qc, s2, np.empty(6))
    gap = xs[n // 2 + 1] - xs[n // 2 - 1]
    err, top = var_errors(mu, qc, s2, full.c, n, (n - 1) / n, float(n - ddof), lo, hi, query == "std", gap)
    V = dom.values()
    for j, xv in enumerate(x):
        exact = Known(np.delete(xs, np.searchsorted(xs, xv)), lo).values(qy, V[:, None])
        approx = np.empty(V.size)
        neighbours.var_worlds(V, mu[j], qc[j], (n - 1) / n, float(n - ddof), query == "std", approx)
        assert np.max(np.abs(approx - exact)) <= err[j]
        assert np.max(np.abs(exact)) <= top[j]
        assert err[j] < 1e-9 * top[j]  # and the bound is not vacuous


def test_sum_and_mean_share_one_search():
    """Over a Domain every D' of sum and mean is a shift of one: no set of
    removals is verified, and the rounding margin is tiny."""
    rng = np.random.default_rng(5)
    data = rng.integers(0, 300, 500).astype(float)
    dom = di.Domain(0, 299)
    rho = np.geomspace(1 / 300 * 1.01, 0.5, 40)
    for q in ("sum", "mean"):
        p = _problem(q, data, dom)
        lam, who = p.solve(rho, 0.0)
        assert p.stats["exact"] == 0 and p.stats["certified"] == 0
        v, c = di.world_values(q, known=data[1:], candidates=dom)
        one = di.tight_scale(v, rho=rho, counts=c)
        assert np.all(lam >= one) and np.all(lam <= one * (1 + 1e-8))
        for x in np.unique(data)[::25]:
            v, c = di.world_values(q, known=np.delete(data, np.flatnonzero(data == x)[0]), candidates=dom)
            assert np.all(di.worst_case_risk(v, scale=lam, counts=c) <= rho)


@pytest.mark.parametrize("query, data, cands, kw", [
    ("median", [1e308, -1e308], [0.0, 1.0], {}),
    ("median", [1e308, -1e308], [1e308, -1e308], {}),
    ("quantile", [1e308, -1e308], [0.0, 1.0], {"q": 0.0}),
    ("max", [1e308, -1e308, 5e307], [0.0, -1.7e308], {}),
])
def test_values_near_the_float_maximum(query, data, cands, kw):
    """Scales near 1e308: the every-D' calibration is the maximum over every
    removal's own tight_scale, exactly (the certificate evaluates the
    reference at 1 / scale, inside the float range)."""
    rho = np.array([0.3, 0.4, 0.5, 0.6, 0.9])
    got = di.dataset_tight_scale(query, data=data, candidates=cands, rho=rho, **kw)
    want = np.zeros(rho.size)
    for i in range(len(data)):
        v, c = di.world_values(query, known=np.delete(np.array(data), i), candidates=np.append(cands, data[i]), **kw)
        want = np.maximum(want, di.tight_scale(v, rho=rho, counts=c))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(("query", "noise"), [("mean", "laplace"), ("median", "gaussian"), ("std", "laplace"),
                                              ("sum", "discrete_laplace"), ("sum", "gaussian")])
def test_expected_risk_every_neighbour_is_the_largest_per_removal(query, noise):
    """risk="expected": the largest `tight_scale` over every D', exactly
    (brute force over the removals), and the sweep's column bit for bit."""
    rng = np.random.default_rng(31)
    data = rng.integers(0, 8, 12).astype(float)
    dom = di.Domain(0, 7)
    rho = np.array([0.2, 0.35, 0.6])
    got, removed = di.dataset_tight_scale(query, data=data, candidates=dom, rho=rho, risk="expected", noise=noise,
                                          return_removed=True, ddof=1)
    best = np.zeros(rho.size)
    for i in range(data.size):
        v, c = di.world_values(query, known=np.delete(data, i), candidates=dom, ddof=1)
        best = np.maximum(best, di.tight_scale(v, rho=rho, counts=c, risk="expected", noise=noise))
    np.testing.assert_array_equal(got, best)
    for r, lam, i in zip(rho, got, removed, strict=True):  # the removal returned attains the scale
        v, c = di.world_values(query, known=np.delete(data, i), candidates=dom, ddof=1)
        assert di.tight_scale(v, rho=r, counts=c, risk="expected", noise=noise) == lam
    t = di.sweep({"x": data}, queries=[query], rho=rho, domains={"x": dom}, noise=noise, risk="expected",
                 calibrations=["tight"], rtol=0.0, sizes=[data.size])
    np.testing.assert_array_equal(t["tight_scale"], got)


def test_integer_noise_worst_case_and_refusals():
    data = np.array([3.0, 1, 4, 1, 5, 2, 6])
    dom = di.Domain(0, 7)
    lap = di.dataset_tight_scale("sum", data=data, candidates=dom, rho=[0.2, 0.5])
    np.testing.assert_array_equal(di.dataset_tight_scale("sum", data=data, candidates=dom, rho=[0.2, 0.5],
                                                         noise="discrete_laplace"), lap)
    with pytest.raises(ValueError, match="lattice"):
        di.dataset_tight_scale("mean", data=data, candidates=dom, rho=0.3, noise="discrete_laplace")
    with pytest.raises(ValueError, match="worst-case risk of 1"):
        di.dataset_tight_scale("sum", data=data, candidates=dom, rho=0.3, noise="gaussian")
    with pytest.raises(ValueError, match="risk"):
        di.dataset_tight_scale("sum", data=data, candidates=dom, rho=0.3, risk="typo")
