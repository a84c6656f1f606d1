"""One world that attains the worst case at every scale: its proof at run time
(against the quadratic brute force), the enclosure of its sum (against a
60-digit reference), and the searches and certificates that run on them."""

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import diffident as di
from diffident._calibrate import certificate as _certificate
from diffident._kernels import dominance as kernel
from diffident._numerics import search as _search
from diffident._risk import dominance as _dominance
from diffident._risk import worst_case as _worst_case
from diffident._risk.worst_case import Risk
from diffident._worlds.values import Worlds


@pytest.fixture(autouse=True)
def _digits():
    """The references of this module work at 60 digits."""
    with mpmath.workdps(60):
        yield



def _dominates(fs, counts, t):
    """Brute force: every world's k-th nearest distance is at most world t's, for every k."""
    vals = np.repeat(fs, counts.astype(int))
    mine = np.sort(np.abs(vals - fs[t]))
    for v in fs:
        if np.any(np.sort(np.abs(vals - v)) > mine):
            return False
    return True


def _convex(rng, u):
    """Sorted values with gaps that grow toward the top (the far branch of a std)."""
    v = np.arange(u, dtype=float) + rng.uniform(0, 50)
    return np.sqrt(rng.uniform(1, 1e4) + v * v)


@pytest.mark.parametrize("seed", range(30))
def test_a_proven_world_dominates_by_brute_force(seed):
    rng = np.random.default_rng(seed)
    u = int(rng.integers(2, 60))
    kind = seed % 3
    if kind == 0:  # the structure: proven at the top
        fs = _convex(rng, u)
    elif kind == 1:  # the structure, one gap near the top widened or narrowed: almost
        fs = _convex(rng, u)
        j = int(rng.integers(max(1, u - 4), u))
        fs[j:] += rng.choice([-0.4, 0.4]) * (fs[j] - fs[j - 1])
        fs = np.sort(fs)
    else:  # no structure
        fs = np.sort(rng.uniform(0, 10, u))
    fs = np.unique(fs)
    counts = np.ones(fs.size)
    if rng.random() < 0.3:
        counts[rng.integers(0, fs.size, 3)] = rng.integers(2, 4, 3)
    t = _dominance.top_world(fs, counts, np.ones(fs.size))
    if kind == 0 and np.all(counts == 1):
        assert t == fs.size - 1
    if t is not None:
        assert _dominates(fs, counts, t)


@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=2, max_size=40, unique=True),
       st.lists(st.integers(1, 3), min_size=40, max_size=40))
@settings(max_examples=300, deadline=None)
def test_every_proof_holds_by_brute_force(values, counts):
    fs = np.unique(np.array(values))
    c = np.array(counts[:fs.size], dtype=float)
    t = _dominance.top_world(fs, c, np.ones(fs.size))
    if t is not None:
        assert _dominates(fs, c, t)


def test_no_proof_without_equal_priors_whole_counts_or_a_single_top():
    fs = _convex(np.random.default_rng(1), 50)
    one = np.ones(fs.size)
    assert _dominance.top_world(fs, one, one) == fs.size - 1
    assert _dominance.top_world(fs, one, np.linspace(1, 2, fs.size)) is None  # priors differ
    assert _dominance.top_world(fs, one * 1.5, one) is None  # not whole counts
    two = one.copy()
    two[-1] = 2.0  # two worlds at the top: each has the other at distance 0
    assert _dominance.top_world(fs, two, one) != fs.size - 1
    # equally spaced: the rounded gaps differ in the last bits, no end is proven
    assert _dominance.top_world(np.arange(100) * 0.1, np.ones(100), np.ones(100)) is None


def _std_worlds(n=3000, hi=4999, seed=0):
    """The std world set over 0..hi of a skewed column (mean near the low end)."""
    rng = np.random.default_rng(seed)
    data = np.minimum(rng.exponential(300.0, n).round(), hi)
    return di.world_values("std", known=data[1:], candidates=di.Domain(0, hi), ddof=1), data


def _exact_sum(fs, W, t, c):
    top = mpmath.mpf(float(fs[t]))
    return mpmath.fsum(mpmath.mpf(float(w)) * mpmath.exp(-mpmath.mpf(c) * abs(mpmath.mpf(float(f)) - top))
                       for f, w in zip(fs, W, strict=True))


def test_std_worlds_are_dominated_and_their_sums_enclosed():
    (v, c), _ = _std_worlds()
    risk = Risk(Worlds(v, c))
    enc = risk.enclosure()
    assert enc is not None and enc.t == risk.fs.size - 1
    rng = np.random.default_rng(3)
    spread = float(risk.fs[-1] - risk.fs[0])
    # from far above the spread to far below the smallest gap, and past
    # the left-out exponents
    cs = np.concatenate([10.0 ** rng.uniform(-3, 9, 24) / spread, [1e-300, 5e-324, 1e300]])
    lo, hi = enc.sums(cs)
    for x, a, b in zip(cs, lo, hi, strict=True):
        exact = _exact_sum(risk.fs, risk.W, enc.t, x)
        assert a <= exact <= b, x
        assert (b - a) <= 1e-13 * exact, x


def test_the_enclosure_bounds_the_evaluator_and_the_argmax_is_the_top():
    (v, c), _ = _std_worlds(seed=4)
    risk = Risk(Worlds(v, c))
    enc = risk.enclosure()
    lam = np.geomspace(1e-4, 1e4, 500) * float(v.max() - v.min())
    lo, hi = enc.risks(risk, lam)
    r, arg = risk(lam)
    ok = np.isfinite(lo)
    assert ok.mean() > 0.9
    assert np.all((lo[ok] <= r[ok]) & (r[ok] <= hi[ok]))
    assert np.all(hi[ok] - lo[ok] <= 5e-13 * r[ok])
    # where the evaluator's risk is not a tie at 1 or 1/m, its argmax is t
    mid = (r > 2.0 / v.size) & (r < 0.99)
    assert np.all(arg[mid] == enc.t)


def test_moments_match_60_digits():
    rng = np.random.default_rng(5)
    D = np.sort(rng.uniform(0, 3, 200))
    D[0] = 0.0
    W = rng.integers(1, 5, 200).astype(float)
    c1 = np.array([0.25, 1.0, 7.0, 400.0])
    out = np.empty((c1.size, kernel.K + 4))
    pad = (-D.size) % kernel.BLOCK
    kernel.moments(np.append(D, np.full(pad, np.inf)), np.append(W, np.zeros(pad)), c1, out)
    for p, c in enumerate(c1):
        xs = [mpmath.mpf(c) * mpmath.mpf(float(d)) for d in D]
        for k in (0, 1, 5, kernel.K + 1):
            m = mpmath.fsum(mpmath.mpf(float(w)) * mpmath.exp(-x) * x ** k / mpmath.factorial(k)
                            for w, x in zip(W, xs, strict=True) if x <= kernel.X_MAX)
            assert abs(out[p, k] - m) <= 1e-13 * m + 1e-300, (c, k)


def _no_enclosure(monkeypatch):
    monkeypatch.setattr(_worst_case.Risk, "enclosure", lambda self: None)


def test_the_grid_search_keeps_its_contract_with_fewer_passes(monkeypatch):
    (v, c), _ = _std_worlds(seed=6)
    r_max = di.worst_case_risk(v, scale=0.0, counts=c)
    rho = np.geomspace(2.0 / v.size, min(r_max, 0.5) / 1.01, 400)
    rtol = 1e-12
    seen = []
    call = _worst_case.Risk.__call__

    def counting(self, lam, strict=True):
        seen.append(np.size(lam))
        return call(self, lam, strict)

    monkeypatch.setattr(_worst_case.Risk, "__call__", counting)
    x = di.tight_scale(v, rho=rho, counts=c, rtol=rtol)
    passes = sum(seen)
    err = _worst_case.sweep_error(Risk(Worlds(v, c)).W)
    # each scale passes the evaluator, and the one rtol below it fails
    assert np.all(di.worst_case_risk(v, scale=x, counts=c) <= _search.below(rho, err))
    assert np.all(di.worst_case_risk(v, scale=x * (1 - rtol), counts=c) > _search.below(rho, err))
    # the same answers as the evaluated checks, within rtol; most checks decided without a pass
    seen.clear()
    _no_enclosure(monkeypatch)
    y = di.tight_scale(v, rho=rho, counts=c, rtol=rtol)
    np.testing.assert_allclose(x, y, rtol=2 * rtol, atol=0)
    assert passes < 0.5 * sum(seen)


def _cell(data, hi, q, rho):
    return di.sweep({"x": data}, queries=[q], rho=rho, domains={"x": (0, hi)}, sizes=[data.size])


def test_the_dominated_certificate_changes_no_bit(monkeypatch):
    _, data = _std_worlds(n=2000, hi=2999, seed=7)
    rho = np.geomspace(1e-3, 0.5, 300)
    batches = []
    batch = _certificate.Certificate._batch
    monkeypatch.setattr(_certificate.Certificate, "_batch",
                        lambda self, lam, rho, sel: batches.append(sel.size) or batch(self, lam, rho, sel))
    fast = _cell(data, 2999, "std", rho)
    assert sum(batches) < 0.1 * rho.size  # (nearly) every rho certified without a pass
    monkeypatch.setattr(_certificate.Certificate, "_dominated", lambda self, lam, rho: np.zeros(lam.size, bool))
    slow = _cell(data, 2999, "std", rho)
    np.testing.assert_array_equal(fast["tight_scale"], slow["tight_scale"])


@pytest.mark.parametrize("size", [1e300, 1e-310, 1.0])
def test_extreme_magnitudes_keep_the_contract(size, monkeypatch):
    """Values near the float range's ends (scaled by a power of two inside;
    partly subnormal at 1e-310) and scales far from 1: the enclosure's path,
    against the evaluated one."""
    v = _convex(np.random.default_rng(9), 3000) * size
    assert Risk(Worlds(v)).enclosure() is not None
    rho = np.geomspace(2.0 / v.size, 0.4, 120)
    x = di.tight_scale(v, rho=rho, rtol=1e-12)
    assert np.all(np.isfinite(x) & (x > 0))
    assert np.all(di.worst_case_risk(v, scale=x) <= rho)
    _no_enclosure(monkeypatch)
    np.testing.assert_allclose(x, di.tight_scale(v, rho=rho, rtol=1e-12), rtol=2e-12, atol=0)
