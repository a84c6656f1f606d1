"""Possible worlds and sensitive ranges: the paper's examples, the Adult data,
direct evaluation, and bad input (brute force: test_worlds_bruteforce.py)."""

import numpy as np
import pytest

import diffident as di
from diffident.replicate.paper import DOMAINS as ADULT  # Table 3 domains

TOY_KNOWN = [1.0, 3.0]
TOY_CANDIDATES = [2.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0]  # U = {1..10} minus D'


def test_toy_example_table_2():
    v, c = di.world_values("mean", known=TOY_KNOWN, candidates=TOY_CANDIDATES)
    np.testing.assert_allclose(v, [2, 8 / 3, 3, 10 / 3, 11 / 3, 4, 13 / 3, 14 / 3], rtol=1e-15)
    np.testing.assert_array_equal(c, np.ones(8))
    v, c = di.world_values("median", known=TOY_KNOWN, candidates=TOY_CANDIDATES)
    np.testing.assert_array_equal(v, [2.0, 3.0])
    np.testing.assert_array_equal(c, [1, 7])
    assert di.sensitive_range("mean", known=TOY_KNOWN, candidates=TOY_CANDIDATES) == pytest.approx(8 / 3, rel=1e-15)
    assert di.sensitive_range("median", known=TOY_KNOWN, candidates=TOY_CANDIDATES) == 1.0
    # straight into the engine: the worst case of the paper's calibration
    lam = di.scale_for_rho(1 / 3, m=8, sensitive_range=8 / 3)
    v, c = di.world_values("mean", known=TOY_KNOWN, candidates=TOY_CANDIDATES)
    assert di.worst_case_risk(v, scale=lam, counts=c) == pytest.approx(0.22943826951692214, rel=1e-14)
    v, c = di.world_values("median", known=TOY_KNOWN, candidates=TOY_CANDIDATES)
    assert di.worst_case_risk(v, scale=di.scale_for_rho(1 / 3, m=8, sensitive_range=1.0),
                              counts=c) == pytest.approx(1 / 3, rel=1e-14)


def test_contributions_and_their_maximum():
    c = di.contributions("mean", known=TOY_KNOWN, candidates=TOY_CANDIDATES)
    np.testing.assert_allclose(c, [8 / 3, 2, 5 / 3, 4 / 3, 5 / 3, 2, 7 / 3, 8 / 3], rtol=1e-15)
    assert c.max() == pytest.approx(di.sensitive_range("mean", known=TOY_KNOWN, candidates=TOY_CANDIDATES), rel=1e-15)
    # in the caller's order
    perm = [3, 0, 7, 1, 6, 2, 5, 4]
    np.testing.assert_array_equal(di.contributions("mean", known=TOY_KNOWN, candidates=np.array(TOY_CANDIDATES)[perm]),
                                  c[perm])
    assert di.contributions("sum", known=[1.0], candidates=[5.0]).tolist() == [0.0]


def test_integer_domain_counts_multisets():
    v, c = di.world_values("sum", known=[], candidates=di.Domain(1, 3), k=2)  # {1,1},{1,2},...,{3,3}
    np.testing.assert_array_equal(v, [2, 3, 4, 5, 6])
    np.testing.assert_array_equal(c, [1, 1, 2, 1, 1])
    assert c.sum() == 6
    v, c = di.world_values("count", known=[0.0] * 5, candidates=di.Domain(1, 99))
    assert v.tolist() == [6.0] and c.tolist() == [99]
    assert di.sensitive_range("count", known=[0.0] * 5, candidates=di.Domain(1, 99)) == 0.0


def test_real_interval_closed_forms():
    known = np.array([0.3, 1.7, 2.2])
    d = di.Domain(-1.0, 4.0, integer=False)
    grid = np.unique(np.concatenate([np.linspace(-1, 4, 20001), [known.mean()]]))
    for q in ("mean", "median", "max", "var", "std"):
        f = np.array([getattr(np, q)(np.append(known, g)) for g in grid])
        assert di.sensitive_range(q, known=known, candidates=d) == pytest.approx(f.max() - f.min(), rel=1e-12,
                                                                                 abs=1e-12)
    with pytest.raises(ValueError, match="infinite"):
        di.world_values("mean", known=known, candidates=d)


def test_callables_python_and_jitted():
    numba = pytest.importorskip("numba")

    @numba.njit
    def spread(w):
        return w.max() - w.min()

    known = [1.0, 3.0]
    a = di.world_values(spread, known=known, candidates=TOY_CANDIDATES, k=2)
    b = di.world_values(lambda w: float(w.max() - w.min()), known=known, candidates=TOY_CANDIDATES, k=2)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert a[1].sum() == 28
    # narrowest world {1, 2, 3, 4}: 3; widest {1, 3, 9, 10}: 9
    assert di.sensitive_range(spread, known=known, candidates=TOY_CANDIDATES, k=2) == 9.0 - 3.0
    with pytest.raises(TypeError, match="number"):
        di.world_values(lambda w: "x", known=known, candidates=TOY_CANDIDATES)
    with pytest.raises(TypeError, match="number"):
        di.world_values(numba.njit(lambda w: w), known=known, candidates=TOY_CANDIDATES)
    with pytest.raises(ValueError, match="nan"):
        di.world_values(lambda w: float("nan"), known=known, candidates=TOY_CANDIDATES)


def test_max_worlds_error_gives_the_count():
    with pytest.raises(ValueError, match="161700"):
        di.world_values("median", known=[1.0], candidates=np.arange(100.0), k=3, max_worlds=1000)
    v, c = di.world_values("median", known=[1.0], candidates=np.arange(100.0), k=3, max_worlds=200_000)
    assert c.sum() == 161700
    # sums and means need no enumeration: exact multiplicities, any number of worlds
    v, c = di.world_values("mean", known=[1.0], candidates=np.arange(100.0), k=3, max_worlds=1000)
    assert c.sum() == 161700


@pytest.mark.parametrize("name", sorted(ADULT))
def test_adult_mean_ranges_and_scales(adult, name):
    lo, hi = ADULT[name]
    col = adult[name]
    S = di.dataset_sensitive_range("mean", data=col, candidates=di.Domain(lo, hi))
    assert S == pytest.approx((hi - lo) / 48842, rel=1e-15)
    lam = di.scale_for_rho(0.1, m=hi - lo + 1, sensitive_range=S)
    table4 = {"age": 0.0007, "educational-num": 0.0006, "capital-gain": 0.2198,
              "capital-loss": 0.0144, "hours-per-week": 8.403207231434116e-4}
    assert round(lam, 4) == round(table4[name], 4)
    # every individual's removal attains it
    _, removed = di.dataset_sensitive_range("mean", data=col, candidates=di.Domain(lo, hi), return_removed=True)
    assert removed.size == col.size


@pytest.mark.parametrize("name", sorted(ADULT))
def test_adult_std_ranges_against_direct_evaluation(adult, name):
    """S(std) for each removed value class, against numpy over the whole domain."""
    lo, hi = ADULT[name]
    col = adult[name]
    dom = np.arange(lo, hi + 1.0)
    classes = np.unique(col)
    if classes.size > 12:  # the extremes and a spread of the rest
        classes = np.unique(np.concatenate([classes[:3], classes[-3:], classes[:: classes.size // 6]]))
    best = 0.0
    for x in classes:
        known = np.delete(col, np.flatnonzero(col == x)[0])
        got = di.sensitive_range("std", known=known, candidates=di.Domain(lo, hi), ddof=1)
        # direct: var(D' + v) = (M2' + n/(n+1) (v - mean')^2) / n, numpy two-pass M2'
        n = known.size
        mean = known.mean()
        m2 = np.sum((known - mean) ** 2)
        std = np.sqrt((m2 + n / (n + 1) * (dom - mean) ** 2) / n)
        assert got == pytest.approx(std.max() - std.min(), rel=1e-9)
        best = max(best, got)
    S, removed = di.dataset_sensitive_range("std", data=col, candidates=di.Domain(lo, hi), ddof=1, return_removed=True)
    assert S >= best * (1 - 1e-12)
    x = col[removed[0]]
    assert np.all(col[removed] == x)
    known = np.delete(col, removed[0])
    assert di.sensitive_range("std", known=known, candidates=di.Domain(lo, hi), ddof=1) == pytest.approx(S, rel=1e-12)


def test_adult_std_column_differs_from_the_paper(adult):
    """Mathematics page, section 6: the paper's Table 4 std column (0.0019, 0.0251, 26.8833,
    0.4623, 0.0056) is not reproduced by the definition; these are the exact
    values (k = 1, integer domain, sample std, maximum over removals)."""
    expect = {"age": 0.00197, "educational-num": 0.000328, "capital-gain": 13.455,
              "capital-loss": 0.4631, "hours-per-week": 0.002835}
    for name, value in expect.items():
        lo, hi = ADULT[name]
        got = di.dataset_sensitive_range("std", data=adult[name], candidates=di.Domain(lo, hi), ddof=1)
        assert got == pytest.approx(value, rel=2e-3)
    # and which removal matters: capital-gain's range depends on it
    col = adult["capital-gain"]
    dom = di.Domain(0, 99999)
    s_small = di.sensitive_range("std", known=np.delete(col, np.argmin(col)), candidates=dom, ddof=1)
    s_large = di.sensitive_range("std", known=np.delete(col, np.argmax(col)), candidates=dom, ddof=1)
    assert round(s_small, 3) == 13.430 and round(s_large, 3) == 13.455


def test_capital_gain_sums_lose_no_digits(adult):
    """Exact rational reference: integer sums, then one square root."""
    mpmath = pytest.importorskip("mpmath")
    col = adult["capital-gain"].astype(np.int64)
    known = col[1:]
    s1, s2, n = int(known.sum()), int((known * known).sum()), known.size + 1
    mpmath.mp.dps = 40
    for x in (0, 54321, 99999):
        t1, t2 = s1 + x, s2 + x * x
        ref = mpmath.sqrt(mpmath.mpf(n * t2 - t1 * t1) / (n * (n - 1)))
        v, c = di.world_values("std", known=known.astype(float), candidates=[float(x)], ddof=1)
        assert c.tolist() == [1]
        assert abs(v[0] / ref - 1) < 2.3e-16  # correctly rounded or next to it
    v, c = di.world_values("std", known=known.astype(float), candidates=di.Domain(0, 99999), ddof=1)
    assert c.sum() == 100000


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: di.world_values("mean", known=[], candidates=[]), "candidates"),
        (lambda: di.world_values("var", known=[], candidates=[1.0, 2.0], ddof=1), "known"),
        (lambda: di.world_values("mean", known=[1.0], candidates=[1.0, 2.0], k=3), "k = 3"),
        (lambda: di.world_values("mean", known=[1.0], candidates=[1.0, 2.0], k=0), "k must"),
        (lambda: di.world_values("mean", known=[1.0, np.nan], candidates=[1.0]), "known"),
        (lambda: di.world_values("mean", known=[1.0], candidates=[1.0, np.inf]), "candidates"),
        (lambda: di.world_values("mode", known=[1.0], candidates=[1.0]), "query"),
        (lambda: di.world_values("quantile", known=[1.0], candidates=[1.0], q=1.5), "q"),
        (lambda: di.world_values("std", known=[1.0], candidates=[1.0], ddof=2), "ddof"),
        (lambda: di.Domain(5, 1), "lo"),
        (lambda: di.Domain(0.5, 3), "integer"),
        (lambda: di.Domain(0, np.inf), "hi"),
        (lambda: di.dataset_sensitive_range("mean", data=[1.0, 50.0], candidates=di.Domain(0, 10)), "data"),
        (lambda: di.dataset_sensitive_range("mean", data=[1.0], candidates=di.Domain(0, 10), k=2), "k = 2"),
        (lambda: di.contributions("mean", known=[1.0], candidates=di.Domain(0, 1, integer=False)), "real interval"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_bad_types():
    with pytest.raises(TypeError, match="query"):
        di.world_values(42, known=[1.0], candidates=[1.0])
    with pytest.raises(TypeError, match="k"):
        di.world_values("mean", known=[1.0], candidates=[1.0], k=1.5)
    with pytest.raises(TypeError, match="lo"):
        di.Domain("a", 3)
