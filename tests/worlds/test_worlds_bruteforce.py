"""Possible worlds and sensitive ranges against a brute-force reference.

diffident.testing.brute_force enumerates every world explicitly and evaluates the
query with NumPy (Mathematics page, sections 1 and 6; the worlds spec).  Here diffident's
``world_values``, ``sensitive_range``, ``contributions`` and
``dataset_sensitive_range`` are compared with it on many small seeded random
cases: every named query, k = 1, 2, 3, explicit candidates with repeated
values, integer domains (lo == hi and negative lo included), known parts of
size 0, 1, 2 and more, callables (plain Python and numba-jitted), and real
intervals against a dense grid that contains the exact extreme points.

Values are drawn on a dyadic grid (multiples of 0.25 or 0.5, or integers),
where sums of a few values are exact, so the sum, mean, median, min, max and
count of a world are the same float whichever way they are computed: those
world values are compared bit for bit.  Variance, standard deviation and
interpolated quantiles are compared to a relative 1e-12 after merging values
that differ only by rounding (counts always exactly).
"""

import itertools
import math

import numba
import numpy as np
import pytest

import diffident as di
from diffident.testing import brute_force

RTOL = 1e-12
ATOL = 1e-12
SEEDS = range(8)

# (query, ddof, q); exact: whether world values are bit-exact on a dyadic grid
QUERIES = [
    ("sum", 0, 0.5),
    ("mean", 0, 0.5),
    ("median", 0, 0.5),
    ("quantile", 0, 0.0),
    ("quantile", 0, 0.1),
    ("quantile", 0, 0.37),
    ("quantile", 0, 0.5),
    ("quantile", 0, 1.0),
    ("min", 0, 0.5),
    ("max", 0, 0.5),
    ("var", 0, 0.5),
    ("var", 1, 0.5),
    ("std", 0, 0.5),
    ("std", 1, 0.5),
    ("count", 0, 0.5),
]
QIDS = [f"{n}-ddof{d}" if n in ("var", "std") else (f"{n}-q{q}" if n == "quantile" else n)
        for n, d, q in QUERIES]


def is_exact(query, q):
    """World values bit-exact on a dyadic grid (sums of a few values exact)."""
    if query in ("sum", "mean", "median", "min", "max", "count"):
        return True
    return query == "quantile" and q in (0.0, 0.5, 1.0)


def valid(query, ddof, n_known, k):
    """Spec: an empty known part is bad when a world has < ddof + 1 values."""
    if query in ("var", "std"):
        return n_known + k >= ddof + 1
    return n_known + k >= 1


def lib_cands(c):
    """The brute-force candidates in diffident's form."""
    if isinstance(c, tuple):
        return di.Domain(c[0], c[1])
    return np.asarray(c, dtype=np.float64)


def n_worlds(c, k):
    if isinstance(c, tuple):
        m = c[1] - c[0] + 1
        return math.comb(m + k - 1, k)
    return math.comb(len(c), k)


# ---------------------------------------------------------------------------
# random cases
# ---------------------------------------------------------------------------

KNOWN_SIZES = (0, 1, 2, 3, 5, 1, 2, 4)


def rand_known(rng, size):
    return rng.integers(-12, 13, size) * 0.25          # multiples of 0.25 in [-3, 3]


def rand_explicit(rng, k):
    n = int(rng.integers(k, 8))                        # N = k (one world) .. 7
    return rng.integers(-6, 7, n) * 0.5                # few distinct values: repeats


def rand_domain(rng):
    lo = int(rng.integers(-6, 4))                      # negative lo included
    hi = lo + int(rng.integers(0, 5))                  # lo == hi included
    return (lo, hi)


def cases(kind, k, query, ddof, count=None, base=0):
    """Seeded (known, candidates) pairs valid for the query; the domains
    (-2, -2), (3, 3) and the explicit single world are always among them."""
    out = []
    for s in range(len(SEEDS) if count is None else count):
        rng = np.random.default_rng(1000 * base + 100 * k + s)
        known = rand_known(rng, KNOWN_SIZES[s % len(KNOWN_SIZES)])
        if kind == "domain":
            cand = rand_domain(rng)
            if s == 0:
                cand = (-2, -2)
            elif s == 1:
                cand = (3, 3)
        else:
            cand = rand_explicit(rng, k)
            if s == 0:
                cand = cand[:k]
        if valid(query, ddof, known.size, k):
            out.append((known, cand))
    assert out
    return out


# ---------------------------------------------------------------------------
# comparison helpers
# ---------------------------------------------------------------------------

def merge_close(values, counts):
    """Merge sorted values that differ only by rounding; counts add up."""
    values = np.asarray(values, dtype=np.float64)
    counts = np.asarray(counts)
    scale = max(1.0, float(np.max(np.abs(values)))) if values.size else 1.0
    tol = 1e-12 * scale
    mv, mc = [], []
    for v, c in zip(values, counts, strict=False):
        if mv and v - mv[-1][0] <= tol:
            mv[-1][1].append(v)
            mc[-1] += int(c)
        else:
            mv.append((v, [v]))
            mc.append(int(c))
    return np.array([g[0] for g in mv]), np.array(mc, dtype=np.int64)


def assert_world_values(got, want, exact, expected_worlds=None):
    gv, gc = got
    wv, wc = want
    assert isinstance(gv, np.ndarray) and isinstance(gc, np.ndarray)
    assert gv.dtype == np.float64 and gv.ndim == 1
    assert gc.dtype == np.int64 and gc.ndim == 1
    assert gv.shape == gc.shape
    assert np.all(np.diff(gv) > 0), "values not sorted ascending and distinct"
    assert np.all(gc >= 1)
    if expected_worlds is not None:
        assert int(gc.sum()) == expected_worlds
    if exact:
        np.testing.assert_array_equal(gv, wv)
        np.testing.assert_array_equal(gc, wc)
    else:
        gv2, gc2 = merge_close(gv, gc)
        wv2, wc2 = merge_close(wv, wc)
        assert gv2.shape == wv2.shape, (gv, gc, wv, wc)
        np.testing.assert_allclose(gv2, wv2, rtol=RTOL, atol=ATOL)
        np.testing.assert_array_equal(gc2, wc2)


def assert_close(got, want):
    assert np.ndim(got) == 0
    np.testing.assert_allclose(float(got), want, rtol=RTOL, atol=ATOL)


def as_rows(removed, k):
    """A return_removed array as a sorted list of index tuples."""
    removed = np.asarray(removed)
    assert removed.dtype == np.int64
    if k == 1:
        assert removed.ndim == 1
        assert np.all(np.diff(removed) > 0), "k = 1 removed indices not sorted"
        return [(int(i),) for i in removed]
    assert removed.ndim == 2 and removed.shape[1] == k
    rows = [tuple(int(i) for i in r) for r in removed]
    for r in rows:
        assert list(r) == sorted(r) and len(set(r)) == k, "a removed row is not sorted"
    assert len(set(rows)) == len(rows), "duplicate removed rows"
    return sorted(rows)


def check_removed(got, ranges, s_ref, k, exact):
    """Exact: the attaining removals equal the brute-force ones.  Otherwise
    (rounding may split mathematical ties): every returned removal attains
    the maximum to 1e-12 and none is missing that attains it clearly."""
    s, removed = got
    assert_close(s, s_ref)
    rows = as_rows(removed, k)
    assert rows, "no attaining removal returned"
    if exact:
        want = sorted(r for r, v in ranges.items() if v == s_ref)
        assert rows == want
    else:
        tol = RTOL * max(1.0, abs(s_ref))
        near = {r for r, v in ranges.items() if v >= s_ref - tol}
        assert set(rows) <= near


# ---------------------------------------------------------------------------
# world_values and sensitive_range vs brute force
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["explicit", "domain"])
@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("query,ddof,q", QUERIES, ids=QIDS)
def test_world_values_and_sensitive_range(query, ddof, q, k, kind):
    for known, cand in cases(kind, k, query, ddof):
        want = brute_force.world_values(query, known=known, candidates=cand, k=k, ddof=ddof, q=q)
        got = di.world_values(query, known=known, candidates=lib_cands(cand), k=k, ddof=ddof, q=q)
        assert_world_values(got, want, is_exact(query, q), n_worlds(cand, k))
        s_ref = brute_force.sensitive_range(query, known=known, candidates=cand, k=k, ddof=ddof, q=q)
        s = di.sensitive_range(query, known=known, candidates=lib_cands(cand), k=k, ddof=ddof, q=q)
        assert_close(s, s_ref)
        # S(f) = max - min of the world values
        assert_close(s, float(got[0][-1] - got[0][0]))


@pytest.mark.parametrize("k", [1, 2, 3])
def test_count_and_single_world(k):
    """count: one value, len(known) + k, over all the worlds; a single world
    (N = k) or a one-value domain with k = 1 has S = 0."""
    known = np.array([1.0, -2.5])
    cand = np.array([3.0, 3.0, -1.0, 0.5])
    v, c = di.world_values("count", known=known, candidates=cand, k=k)
    np.testing.assert_array_equal(v, [2.0 + k])
    np.testing.assert_array_equal(c, [math.comb(4, k)])
    assert di.sensitive_range("count", known=known, candidates=cand, k=k) == 0.0
    v, c = di.world_values("mean", known=known, candidates=cand[:k], k=k)
    assert c.tolist() == [1]
    assert v[0] == np.mean(np.concatenate([known, cand[:k]]))
    for query in ("sum", "mean", "median", "var", "std", "min", "max"):
        assert di.sensitive_range(query, known=known, candidates=cand[:k], k=k) == 0.0
    v, c = di.world_values("sum", known=known, candidates=di.Domain(-4, -4), k=k)
    np.testing.assert_array_equal(v, [-1.5 - 4 * k])
    np.testing.assert_array_equal(c, [1])


def test_known_as_list_and_duplicate_counts():
    """Array-likes are accepted; repeated candidate values are distinct
    individuals (their worlds are counted separately)."""
    v, c = di.world_values("sum", known=[1, 2], candidates=[5, 5, 5, 7])
    np.testing.assert_array_equal(v, [8.0, 10.0])
    np.testing.assert_array_equal(c, [3, 1])
    v, c = di.world_values("sum", known=[1, 2], candidates=[5, 5, 5, 7], k=2)
    np.testing.assert_array_equal(v, [13.0, 15.0])
    np.testing.assert_array_equal(c, [3, 3])
    # a domain counts multisets: {5, 5}, {5, 6}, {6, 6}
    v, c = di.world_values("sum", known=[1, 2], candidates=di.Domain(5, 6), k=2)
    np.testing.assert_array_equal(v, [13.0, 14.0, 15.0])
    np.testing.assert_array_equal(c, [1, 1, 1])


@pytest.mark.parametrize("query,ddof,q", QUERIES, ids=QIDS)
def test_large_values_and_wide_domain(query, ddof, q):
    """Bigger numbers: integer data in the thousands, a wider domain with
    more worlds, k = 2 (var / std: cancellation-prone)."""
    rng = np.random.default_rng(77)
    for s in range(3):
        known = rng.integers(-3000, 3001, 1 + s).astype(np.float64)
        cand = (int(rng.integers(-40, 0)), int(rng.integers(0, 40)))
        want = brute_force.world_values(query, known=known, candidates=cand, k=2, ddof=ddof, q=q)
        got = di.world_values(query, known=known, candidates=lib_cands(cand), k=2, ddof=ddof, q=q)
        assert_world_values(got, want, is_exact(query, q), n_worlds(cand, 2))
        assert_close(di.sensitive_range(query, known=known, candidates=lib_cands(cand), k=2, ddof=ddof, q=q),
                     brute_force.sensitive_range(query, known=known, candidates=cand, k=2, ddof=ddof, q=q))
        cand = known[::-1] * 0.5 + 1000.0
        if cand.size >= 2:
            assert_close(di.sensitive_range(query, known=known, candidates=cand, k=2, ddof=ddof, q=q),
                         brute_force.sensitive_range(query, known=known, candidates=cand, k=2, ddof=ddof, q=q))


# ---------------------------------------------------------------------------
# contributions (k = 1)
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["explicit", "domain"])
@pytest.mark.parametrize("query,ddof,q", QUERIES, ids=QIDS)
def test_contributions(query, ddof, q, kind):
    for known, cand in cases(kind, 1, query, ddof, base=3):
        want = brute_force.contributions(query, known=known, candidates=cand, ddof=ddof, q=q)
        got = di.contributions(query, known=known, candidates=lib_cands(cand), ddof=ddof, q=q)
        assert isinstance(got, np.ndarray) and got.dtype == np.float64
        assert got.shape == want.shape == (brute_force.candidate_values(cand).size,)
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)
        s = di.sensitive_range(query, known=known, candidates=lib_cands(cand), k=1, ddof=ddof, q=q)
        if want.size >= 2:
            assert_close(got.max(), float(s))
        else:
            assert got.tolist() == [0.0]


# ---------------------------------------------------------------------------
# dataset_sensitive_range (the adversary's D' not fixed)
# ---------------------------------------------------------------------------

def dataset_cases(k, query, ddof, sizes, base):
    out = []
    for s, n in enumerate(sizes):
        rng = np.random.default_rng(5000 + 100 * base + 10 * k + s)
        data = rng.integers(-5, 6, n).astype(np.float64)   # integers: exact ties
        if s % 2:
            cand = rand_domain(rng)                         # the data lie in the domain
            data = rng.integers(cand[0], cand[1] + 1, n).astype(np.float64)
        else:
            cand = rng.integers(-6, 7, int(rng.integers(1, 4))).astype(np.float64)
        if n >= k and valid(query, ddof, n - k, k):
            out.append((data, cand))
    return out


@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize("query,ddof,q", QUERIES, ids=QIDS)
def test_dataset_sensitive_range(query, ddof, q, k):
    sizes = (k, k + 1, 3, 5, 4, 6, 4, 2)
    for data, cand in dataset_cases(k, query, ddof, sizes, base=1):
        ranges = brute_force.removal_ranges(query, data=data, candidates=cand, k=k, ddof=ddof, q=q)
        s_ref, _ = brute_force.dataset_sensitive_range(query, data=data, candidates=cand, k=k, ddof=ddof, q=q)
        s = di.dataset_sensitive_range(query, data=data, candidates=lib_cands(cand), k=k, ddof=ddof, q=q)
        assert_close(s, s_ref)
        got = di.dataset_sensitive_range(query, data=data, candidates=lib_cands(cand), k=k, ddof=ddof, q=q,
                                         return_removed=True)
        # exact ties: integer data, every step exact (mean / var: n a power of 2)
        exact = is_exact(query, q) and (query != "mean" or data.size in (1, 2, 4, 8))
        check_removed(got, ranges, s_ref, k, exact)


@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize("query", ["sum", "mean", "median", "min", "max", "var", "count"])
def test_dataset_removed_exact_ties(query, k):
    """n = 4 integer data: every value and every range is an exact float, so
    the set of attaining removals must match exactly (var with ddof = 0:
    mean, deviations, squares and the division by 4 are all exact)."""
    for s in range(8):
        rng = np.random.default_rng(9000 + 10 * k + s)
        data = rng.integers(-4, 5, 4).astype(np.float64)
        if s == 0:
            data = np.array([2.0, 2.0, 2.0, 2.0])           # every removal ties
        if s % 2:
            cand = rand_domain(rng)
            data = rng.integers(cand[0], cand[1] + 1, 4).astype(np.float64)
            if s == 1:
                cand = (2, 2)
                data = np.array([2.0, 2.0, 2.0, 2.0])
        else:
            cand = rng.integers(-4, 5, int(rng.integers(1, 4))).astype(np.float64)
        ranges = brute_force.removal_ranges(query, data=data, candidates=cand, k=k, ddof=0, q=0.5)
        s_ref, attaining = brute_force.dataset_sensitive_range(query, data=data, candidates=cand, k=k, ddof=0, q=0.5)
        got = di.dataset_sensitive_range(query, data=data, candidates=lib_cands(cand), k=k, return_removed=True)
        check_removed(got, ranges, s_ref, k, exact=True)
        assert as_rows(got[1], k) == attaining


def test_dataset_candidates_gain_the_removed():
    """Explicit candidates: the removed individual joins them.  data
    [0, 0, 10], candidates [5]: removing the 10 gives worlds {0, 0, 5} and
    {0, 0, 10} (sum range 5); removing a 0 gives {0, 10, 5} and {0, 10, 0}
    (range 5) -- all tie.  With a domain [4, 6] (holding the data [4, 4, 6])
    the removed value is not added: S(sum) = 2 for every removal."""
    s, removed = di.dataset_sensitive_range("sum", data=[0, 0, 10], candidates=np.array([5.0]),
                                            return_removed=True)
    assert s == 5.0
    np.testing.assert_array_equal(removed, [0, 1, 2])
    s, removed = di.dataset_sensitive_range("max", data=[0, 0, 10], candidates=np.array([5.0]),
                                            return_removed=True)
    # removing the 10: max over {0,0,5} / {0,0,10}: 5; removing a 0: 10 either way: 0
    assert s == 5.0
    np.testing.assert_array_equal(removed, [2])
    s, removed = di.dataset_sensitive_range("sum", data=[4, 4, 6], candidates=di.Domain(4, 6),
                                            return_removed=True)
    assert s == 2.0
    np.testing.assert_array_equal(removed, [0, 1, 2])
    s, removed = di.dataset_sensitive_range("min", data=[0, 1, 10], candidates=np.array([5.0, 7.0]), k=2,
                                            return_removed=True)
    # removing {0, 1}: min of {10, a, b}, {a, b} from {5, 7, 0, 1}: 0 .. 5; removing
    # {0, 10} or {1, 10}: the known 1 or 0 caps the min: range <= 1
    assert s == 5.0
    np.testing.assert_array_equal(removed, [[0, 1]])


def test_dataset_var_removed_value_outside_the_candidates():
    """k = 1, explicit candidates: the removed individual joins them and may
    lie beyond every original candidate, on the side of the known mean.
    data [5, -3, 5, 4], candidates [-3]: removing the 4 leaves D' = [5, -3, 5]
    (mean 7/3) with candidates {-3, 4}: var(5, -3, 5, -3) - var(5, -3, 5, 4)
    = 16 - 11.1875 = 4.8125; every other removal gives less."""
    data = np.array([5.0, -3.0, 5.0, 4.0])
    s, removed = di.dataset_sensitive_range("var", data=data, candidates=np.array([-3.0]), return_removed=True)
    assert s == 4.8125
    np.testing.assert_array_equal(removed, [3])
    assert brute_force.dataset_sensitive_range("var", data=data, candidates=np.array([-3.0])) == (4.8125, [(3,)])
    # the same on the other side: data [-2, -4, 5], candidates [6]: removing
    # the -2 leaves [-4, 5] (mean 1/2) with candidates {-2, 6}
    data = np.array([-2.0, -4.0, 5.0])
    want = np.var([-4.0, 5.0, 6.0]) - np.var([-4.0, 5.0, -2.0])   # 16/3
    for query, ddof, f in (("var", 0, 1.0), ("var", 1, 1.5)):
        s, removed = di.dataset_sensitive_range(query, data=data, candidates=np.array([6.0]), ddof=ddof,
                                                return_removed=True)
        assert_close(s, want * f)
        np.testing.assert_array_equal(removed, [0])
    s = di.dataset_sensitive_range("std", data=data, candidates=np.array([6.0]))
    assert_close(s, np.std([-4.0, 5.0, 6.0]) - np.std([-4.0, 5.0, -2.0]))


@pytest.mark.parametrize("k", [1, 2, 3])
def test_dataset_mean_domain_every_removal_attains(k):
    """On a domain S(mean) = k (hi - lo) / n whatever the removed
    individuals (Mathematics page, section 6; docs/worlds.md): every removal attains the
    maximum, also when n is not a power of two (rounding must not split
    this tie)."""
    data = np.array([3.0, -3.0, -2.0, 1.0, 3.0])
    s, removed = di.dataset_sensitive_range("mean", data=data, candidates=di.Domain(-3, 4), k=k,
                                            return_removed=True)
    assert_close(s, k * 7 / 5)
    want = list(itertools.combinations(range(5), k))
    assert as_rows(removed, k) == want
    s, removed = di.dataset_sensitive_range("sum", data=data, candidates=di.Domain(-3, 4), k=k,
                                            return_removed=True)
    assert s == 7.0 * k
    assert as_rows(removed, k) == want


def test_adult_style_mean_domain():
    """Mathematics page, section 3 (Adult): S(mean) = (hi - lo) / n for k = 1 and any
    removal on an integer domain."""
    data = np.array([17.0, 90.0, 40.0, 33.0, 25.0])
    s, removed = di.dataset_sensitive_range("mean", data=data, candidates=di.Domain(17, 90), return_removed=True)
    assert_close(s, 73 / 5)
    np.testing.assert_array_equal(removed, [0, 1, 2, 3, 4])
    assert_close(di.sensitive_range("mean", known=data[1:], candidates=di.Domain(17, 90)), 73 / 5)
    assert di.Domain(17, 90).size == 74


# ---------------------------------------------------------------------------
# callables
# ---------------------------------------------------------------------------

def spread(w):
    return w.max() - w.min()


@numba.njit(cache=False)
def trimmed_mean(w):
    s = np.sort(w)
    tot = 0.0
    for i in range(1, s.size - 1):
        tot += s[i]
    return tot / (s.size - 2)


@numba.njit(cache=False)
def jit_sum_sq(w):
    tot = 0.0
    for x in w:
        tot += x * x
    return tot


CALLABLES = [
    ("python-lambda", lambda w: w.max() - w.min()),
    ("python-def", spread),
    ("njit-trimmed-mean", trimmed_mean),
    ("njit-sum-of-squares", jit_sum_sq),
]


@pytest.mark.parametrize("kind", ["explicit", "domain"])
@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("name,func", CALLABLES, ids=[c[0] for c in CALLABLES])
def test_callables(name, func, k, kind):
    """Exact on a dyadic grid (sums, spreads and squares of a few quarters;
    the trimmed mean divides an exact sum once)."""
    for known, cand in cases(kind, k, "sum", 0, count=6, base=7):
        if known.size + k < 3:
            known = np.concatenate([known, [0.75, -1.25]])
        want = brute_force.world_values(func, known=known, candidates=cand, k=k)
        got = di.world_values(func, known=known, candidates=lib_cands(cand), k=k)
        assert_world_values(got, want, True, n_worlds(cand, k))
        assert_close(di.sensitive_range(func, known=known, candidates=lib_cands(cand), k=k),
                     brute_force.sensitive_range(func, known=known, candidates=cand, k=k))
        if k == 1:
            np.testing.assert_allclose(di.contributions(func, known=known, candidates=lib_cands(cand)),
                                       brute_force.contributions(func, known=known, candidates=cand), rtol=RTOL,
                                       atol=ATOL)


@pytest.mark.parametrize("k", [1, 2])
def test_callable_dataset_sensitive_range(k):
    for data, cand in dataset_cases(k, "sum", 0, (3, 4, 5, 4), base=8):
        for _, func in CALLABLES:
            ranges = brute_force.removal_ranges(func, data=data, candidates=cand, k=k)
            s_ref, _ = brute_force.dataset_sensitive_range(func, data=data, candidates=cand, k=k)
            got = di.dataset_sensitive_range(func, data=data, candidates=lib_cands(cand), k=k, return_removed=True)
            check_removed(got, ranges, s_ref, k, exact=func is not trimmed_mean)


def test_callable_same_as_named():
    """A callable computing a named query gives the named query's answers."""
    rng = np.random.default_rng(3)
    known = rand_known(rng, 3)
    cand = rand_explicit(rng, 2)
    for query, f in (("sum", np.sum), ("max", np.max), ("median", np.median)):
        a = di.world_values(query, known=known, candidates=cand, k=2)
        b = di.world_values(f, known=known, candidates=cand, k=2)
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])
        assert di.sensitive_range(query, known=known, candidates=cand, k=2) == di.sensitive_range(f, known=known,
                                                                                                  candidates=cand, k=2)


# ---------------------------------------------------------------------------
# real intervals
# ---------------------------------------------------------------------------

REAL_QUERIES = QUERIES


@pytest.mark.parametrize("query,ddof,q", REAL_QUERIES, ids=QIDS)
def test_real_interval_k1_dense_grid(query, ddof, q):
    """k = 1 over [lo, hi]: the grid (20001 points, lo, hi and mean(known)
    clipped) contains the extreme points, so the grid range is exact."""
    rng = np.random.default_rng(41)
    intervals = [(-1.5, 2.25), (0.0, 10.0), (-7.0, -3.0), (2.0, 2.0)]
    for i, (lo, hi) in enumerate(intervals * 2):
        known = rand_known(rng, KNOWN_SIZES[i]) * (1 + i % 3)   # mean(known) in or out
        if not valid(query, ddof, known.size, 1):
            continue
        want = brute_force.grid_sensitive_range(query, known=known, lo=lo, hi=hi, k=1, ddof=ddof, q=q)
        got = di.sensitive_range(query, known=known, candidates=di.Domain(lo, hi, integer=False), ddof=ddof, q=q)
        assert_close(got, want)


@pytest.mark.parametrize("query,ddof,q", [q for q in QUERIES if q[0] != "count"],
                         ids=[i for i, q in zip(QIDS, QUERIES, strict=False) if q[0] != "count"])
def test_real_interval_k2_grid(query, ddof, q):
    """k = 2: grid of 61 points (and the extremes: the variance is least
    with both unknowns at mean(known) clipped, largest at end points)."""
    rng = np.random.default_rng(43)
    for i, (lo, hi) in enumerate([(-1.5, 2.25), (0.5, 4.0), (-6.0, -1.0)]):
        known = rand_known(rng, (0, 2, 3)[i]) * 2
        if not valid(query, ddof, known.size, 2):
            continue
        want = brute_force.grid_sensitive_range(query, known=known, lo=lo, hi=hi, k=2, ddof=ddof, q=q, npts=61)
        got = di.sensitive_range(query, known=known, candidates=di.Domain(lo, hi, integer=False),
                                 k=2, ddof=ddof, q=q)
        assert_close(got, want)


@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize("query,ddof", [("sum", 0), ("mean", 0), ("median", 0), ("max", 0),
                                        ("var", 0), ("var", 1), ("std", 1)])
def test_real_interval_dataset(query, ddof, k):
    rng = np.random.default_rng(47)
    data = rng.integers(-2, 4, 4).astype(np.float64)
    lo, hi = -2.5, 3.0                                      # holds the data
    ranges = brute_force.grid_dataset_sensitive_range(query, data=data, lo=lo, hi=hi, k=k, ddof=ddof,
                                             npts=20001 if k == 1 else 61)
    s_ref = max(ranges.values())
    dom = di.Domain(lo, hi, integer=False)
    assert_close(di.dataset_sensitive_range(query, data=data, candidates=dom, k=k, ddof=ddof), s_ref)
    got = di.dataset_sensitive_range(query, data=data, candidates=dom, k=k, ddof=ddof, return_removed=True)
    check_removed(got, ranges, s_ref, k, exact=False)


def test_real_interval_domain_properties_and_errors():
    dom = di.Domain(-1.0, 2.5, integer=False)
    assert dom.size == np.inf
    with pytest.raises(ValueError):
        dom.values()
    with pytest.raises(ValueError, match="infinite"):
        di.world_values("sum", known=[1.0, 2.0], candidates=dom)
    with pytest.raises(ValueError, match="infinite"):
        di.world_values("mean", known=[1.0], candidates=dom, k=2)
    with pytest.raises(ValueError, match="infinite"):
        di.world_values(spread, known=[1.0], candidates=dom)
    with pytest.raises(ValueError):
        di.contributions("sum", known=[1.0, 2.0], candidates=dom)
    # exact closed forms: sum k (hi - lo); mean k (hi - lo) / n
    assert_close(di.sensitive_range("sum", known=[1.0, 2.0], candidates=dom, k=3), 3 * 3.5)
    assert_close(di.sensitive_range("mean", known=[1.0, 2.0], candidates=dom, k=2), 2 * 3.5 / 4)
    # var: max at an end point, min at v = mean(known) = 1.5
    known = np.array([1.0, 2.0])
    want = np.var([1.0, 2.0, -1.0]) - np.var([1.0, 2.0, 1.5])
    assert_close(di.sensitive_range("var", known=known, candidates=dom), want)


def test_integer_domain_properties():
    dom = di.Domain(-3, 2)
    assert dom.size == 6
    np.testing.assert_array_equal(dom.values(), np.arange(-3, 3))
    assert di.Domain(5, 5).size == 1
    np.testing.assert_array_equal(di.Domain(5, 5).values(), [5])
    assert di.Domain(np.int64(1), np.int64(10)).size == 10


# ---------------------------------------------------------------------------
# the paper's toy example (Mathematics page, section 3)
# ---------------------------------------------------------------------------

TOY_KNOWN = np.array([1.0, 3.0])
TOY_CANDS = np.array([2.0, 4, 5, 6, 7, 8, 9, 10])


def test_toy_example_brute_force():
    """The reference itself reproduces the paper's numbers."""
    np.testing.assert_allclose(brute_force.all_values("mean", known=TOY_KNOWN, candidates=TOY_CANDS),
                               np.array([6, 8, 9, 10, 11, 12, 13, 14]) / 3, rtol=1e-15)
    np.testing.assert_array_equal(brute_force.all_values("median", known=TOY_KNOWN, candidates=TOY_CANDS),
                                  [2, 3, 3, 3, 3, 3, 3, 3])
    assert math.isclose(brute_force.sensitive_range("mean", known=TOY_KNOWN, candidates=TOY_CANDS), 8 / 3,
                        rel_tol=1e-15)
    assert brute_force.sensitive_range("median", known=TOY_KNOWN, candidates=TOY_CANDS) == 1.0


def test_toy_example():
    v, c = di.world_values("mean", known=TOY_KNOWN, candidates=TOY_CANDS)
    np.testing.assert_allclose(v, np.array([6, 8, 9, 10, 11, 12, 13, 14]) / 3, rtol=1e-15)
    np.testing.assert_array_equal(c, np.ones(8, dtype=np.int64))
    v, c = di.world_values("median", known=TOY_KNOWN, candidates=TOY_CANDS)
    np.testing.assert_array_equal(v, [2.0, 3.0])
    np.testing.assert_array_equal(c, [1, 7])
    assert_close(di.sensitive_range("mean", known=TOY_KNOWN, candidates=TOY_CANDS), 8 / 3)
    assert di.sensitive_range("median", known=TOY_KNOWN, candidates=TOY_CANDS) == 1.0
    contrib = di.contributions("mean", known=TOY_KNOWN, candidates=TOY_CANDS)
    np.testing.assert_allclose(contrib, np.array([8, 6, 5, 4, 5, 6, 7, 8]) / 3, rtol=1e-14)
    np.testing.assert_array_equal(di.contributions("median", known=TOY_KNOWN, candidates=TOY_CANDS),
                                  [1, 1, 1, 1, 1, 1, 1, 1])
    # the same worlds through the engine core: m = 8, rho = 1/3
    lam = di.scale_for_rho(1 / 3, m=8, sensitive_range=di.sensitive_range("mean", known=TOY_KNOWN,
                                                                          candidates=TOY_CANDS))
    assert math.isclose(lam, 2.128628267061142, rel_tol=1e-12)


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------

FUNCS = {
    "world_values": lambda query, known, cand, **kw: di.world_values(query, known=known, candidates=cand, **kw),
    "sensitive_range": lambda query, known, cand, **kw: di.sensitive_range(query, known=known, candidates=cand, **kw),
    "contributions": lambda query, known, cand, **kw: di.contributions(query, known=known, candidates=cand, **kw),
    "dataset_sensitive_range": (lambda query, known, cand, **kw:
                                di.dataset_sensitive_range(query, data=known, candidates=cand, **kw)),
}


@pytest.mark.parametrize("fname", list(FUNCS))
def test_bad_query_q_ddof(fname):
    fn = FUNCS[fname]
    known = np.array([1.0, 2.0, 4.0])
    cand = np.array([0.0, 3.0, 5.0])
    with pytest.raises(ValueError, match="query"):
        fn("average", known, cand)
    with pytest.raises((ValueError, TypeError), match="query"):
        fn(3, known, cand)
    for q in (-0.1, 1.5, np.nan):
        with pytest.raises(ValueError, match=r"\bq\b"):
            fn("quantile", known, cand, q=q)
    for ddof in (2, -1):
        with pytest.raises(ValueError, match="ddof"):
            fn("var", known, cand, ddof=ddof)
        with pytest.raises(ValueError, match="ddof"):
            fn("std", known, cand, ddof=ddof)
    with pytest.raises(TypeError, match="query"):
        fn(lambda w: "abc", known, cand)
    with pytest.raises(TypeError, match="query"):
        fn(lambda w: None, known, cand)


@pytest.mark.parametrize("fname", ["world_values", "sensitive_range", "dataset_sensitive_range"])
def test_bad_k(fname):
    fn = FUNCS[fname]
    known = np.array([1.0, 2.0, 4.0])
    for k in (0, -1):
        with pytest.raises(ValueError, match=r"\bk\b"):
            fn("sum", known, np.array([0.0, 3.0]), k=k)
        with pytest.raises(ValueError, match=r"\bk\b"):
            fn("sum", known, di.Domain(0, 3), k=k)
    with pytest.raises((ValueError, TypeError), match=r"\bk\b"):
        fn("sum", known, di.Domain(0, 3), k=1.5)


@pytest.mark.parametrize("fname", ["world_values", "sensitive_range"])
def test_k_larger_than_candidates(fname):
    fn = FUNCS[fname]
    with pytest.raises(ValueError, match=r"\bk\b"):
        fn("sum", [1.0], np.array([0.0, 3.0]), k=3)
    with pytest.raises(ValueError, match=r"\bk\b|candidates"):
        fn("sum", [1.0], np.array([], dtype=float), k=1)
    # a domain allows repetition: k larger than its size is fine
    assert_close(di.sensitive_range("sum", known=[1.0], candidates=di.Domain(0, 1), k=3), 3.0)
    v, c = di.world_values("sum", known=[1.0], candidates=di.Domain(0, 1), k=3)
    np.testing.assert_array_equal(v, [1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(c, [1, 1, 1, 1])


def test_dataset_k_larger_than_data():
    with pytest.raises(ValueError, match=r"\bk\b"):
        di.dataset_sensitive_range("sum", data=[1.0, 2.0], candidates=di.Domain(0, 3), k=3)


def test_empty_known_var():
    for fname in ("world_values", "sensitive_range", "contributions"):
        fn = FUNCS[fname]
        for query in ("var", "std"):
            with pytest.raises(ValueError, match="known|ddof"):
                fn(query, [], np.array([1.0, 2.0]), ddof=1)
            with pytest.raises(ValueError, match="known|ddof"):
                fn(query, np.empty(0), di.Domain(1, 4), ddof=1)
    with pytest.raises(ValueError, match="known|ddof|data"):
        di.dataset_sensitive_range("var", data=[2.0], candidates=np.array([0.0]), ddof=1, k=1)
    # valid: data of 3 with k = 3 leaves an empty known part but worlds of 3
    assert_close(di.dataset_sensitive_range("var", data=[1.0, 2.0, 3.0], candidates=np.array([0.0]), ddof=1, k=3),
                 brute_force.dataset_sensitive_range("var", data=[1.0, 2.0, 3.0], candidates=np.array([0.0]), k=3,
                                                     ddof=1)[0])
    # valid: a world of k = 2 values with ddof = 1, or one value with ddof = 0
    v, c = di.world_values("var", known=[], candidates=np.array([1.0, 3.0, 3.0]), k=2, ddof=1)
    np.testing.assert_allclose(v, [0.0, 2.0], atol=1e-15)
    np.testing.assert_array_equal(c, [1, 2])
    v, c = di.world_values("var", known=[], candidates=np.array([1.0, 3.0, 3.0]), k=1, ddof=0)
    np.testing.assert_array_equal(v, [0.0])
    np.testing.assert_array_equal(c, [3])
    v, c = di.world_values("sum", known=[], candidates=di.Domain(-1, 1), k=1)
    np.testing.assert_array_equal(v, [-1.0, 0.0, 1.0])


def test_bad_domain():
    with pytest.raises(ValueError, match="lo|hi"):
        di.Domain(5, 3)
    with pytest.raises(ValueError, match="lo|hi"):
        di.Domain(5.0, 3.0, integer=False)
    with pytest.raises(ValueError, match="lo"):
        di.Domain(0.5, 3)
    with pytest.raises(ValueError, match="hi"):
        di.Domain(0, 2.5)
    with pytest.raises(ValueError, match="hi"):
        di.Domain(0.0, np.inf, integer=False)
    with pytest.raises(ValueError, match="lo"):
        di.Domain(np.nan, 1.0, integer=False)
    with pytest.raises(ValueError, match="lo"):
        di.Domain(-np.inf, 1.0, integer=False)


def test_non_finite_values():
    cand = np.array([0.0, 3.0])
    for fname in ("world_values", "sensitive_range", "contributions"):
        fn = FUNCS[fname]
        for bad in (np.nan, np.inf, -np.inf):
            with pytest.raises(ValueError, match="known"):
                fn("sum", np.array([1.0, bad]), cand)
            with pytest.raises(ValueError, match="candidates"):
                fn("sum", np.array([1.0, 2.0]), np.array([0.0, bad, 1.0]))
    for bad in (np.nan, np.inf):
        with pytest.raises(ValueError, match="data"):
            di.dataset_sensitive_range("sum", data=np.array([1.0, bad, 2.0]), candidates=cand)
        with pytest.raises(ValueError, match="candidates"):
            di.dataset_sensitive_range("sum", data=np.array([1.0, 2.0]), candidates=np.array([bad]))


def test_max_worlds():
    known = np.array([1.0])
    # enumerated queries refuse more than max_worlds worlds and say how many
    with pytest.raises(ValueError, match=r"4060|4,060"):
        di.world_values("max", known=known, candidates=np.arange(30.0), k=3, max_worlds=1000)
    # a domain: C(100 + 3 - 1, 3) = 171700 multisets
    with pytest.raises(ValueError, match=r"171700|171,700"):
        di.world_values("max", known=known, candidates=di.Domain(1, 100), k=3, max_worlds=171699)
    # sums and means are counted exactly, without enumeration, whatever max_worlds
    v, c = di.world_values("sum", known=known, candidates=np.arange(30.0), k=3, max_worlds=10)
    assert c.sum() == 4060
    v, c = di.world_values("sum", known=known, candidates=np.arange(30.0), k=3, max_worlds=4060)
    assert c.sum() == 4060
    np.testing.assert_array_equal(v, np.arange(4.0, 86.0))    # 1 + (0+1+2) .. 1 + (27+28+29)
    v, c = di.world_values("sum", known=known, candidates=di.Domain(1, 100), k=3, max_worlds=171700)
    assert c.sum() == 171700
    np.testing.assert_array_equal(v, np.arange(4.0, 302.0))


# ---------------------------------------------------------------------------
# the brute-force reference on its own (sanity of the test oracle)
# ---------------------------------------------------------------------------

def test_brute_force_enumeration_counts():
    assert sum(1 for _ in brute_force.enumerate_worlds([1.0], candidates=np.arange(6.0), k=3)) == math.comb(6, 3)
    assert sum(1 for _ in brute_force.enumerate_worlds([], candidates=(-2, 1), k=3)) == math.comb(4 + 3 - 1, 3)
    worlds = sorted(tuple(w) for w in brute_force.enumerate_worlds([9.0], candidates=(0, 1), k=2))
    assert worlds == [(9.0, 0.0, 0.0), (9.0, 0.0, 1.0), (9.0, 1.0, 1.0)]
    worlds = [tuple(w) for w in brute_force.enumerate_worlds([], candidates=np.array([5.0, 5.0, 7.0]), k=2)]
    assert worlds == [(5.0, 5.0), (5.0, 7.0), (5.0, 7.0)]
    s, att = brute_force.dataset_sensitive_range("sum", data=[0, 0, 10], candidates=np.array([5.0]))
    assert s == 5.0 and att == [(0,), (1,), (2,)]
    assert list(itertools.islice(brute_force.enumerate_worlds([], candidates=(3, 3), k=2), 5))[0].tolist() == [3.0, 3.0]
