"""Equally spaced worlds: the closed-form worst case, its proof at run time,
and the every-D' calibration of sum and mean that runs on it."""

import mpmath
import numpy as np
import pytest

import diffident as di
from diffident._calibrate import neighbours as _neighbours
from diffident._worlds import spaced as _spaced
from diffident._worlds.dataset import dataset_setup


@pytest.fixture(autouse=True)
def _digits():
    """The references of this module work at 60 digits."""
    with mpmath.workdps(60):
        yield



def _setup(query, data, domain):
    qy, k, x, cands, _, _ = dataset_setup(query, np.asarray(data, float), domain, 1, 1, 0.5, False, 10**8)
    return qy, k, x, cands


@pytest.mark.parametrize("query, domain, data, want", [
    ("mean", di.Domain(0, 10), [1, 2, 3, 9], (1.0, 4.0)),
    ("sum", di.Domain(-5, 5), [1, 2, 3], (1.0, 1.0)),
    ("mean", di.Domain(0, 3, step=0.25), [0.5, 1.0], (0.25, 2.0)),
    ("mean", di.Domain(0, 3, step=0.1), [0.5, 1.0], None),  # 0.1 is no float step: not proven
    ("median", di.Domain(0, 10), [1, 2, 3], None),
    ("std", di.Domain(0, 10), [1, 2, 3], None),
    ("mean", [0.0, 1.0, 2.0, 5.0], [1, 2], None),  # explicit candidates
])
def test_spacing_is_proven_from_the_candidates(query, domain, data, want):
    qy, _, x, cands = _setup(query, data, domain)
    assert _spaced.spacing(qy, cands, x.size) == want


def _exact(d, m, lam):
    """The exact worst case of m unit-weight worlds d apart (60 digits)."""
    q = mpmath.exp(-mpmath.mpf(d) / mpmath.mpf(lam))
    return (1 - q) / (1 - q ** m)


class _Groups:  # the evaluator interface SpacedRisk reads its groups from
    fs = W = invP = np.ones(1)
    k, error, pad = 0, 0.0, 0.0


@pytest.mark.parametrize("seed", range(4))
def test_closed_form_bounds_the_exact_risk_tightly(seed):
    rng = np.random.default_rng(seed)
    for _ in range(250):
        num = float(rng.choice([1.0, 0.5, 3.0, 2.0 ** -20, 1024.0]))
        den = float(rng.integers(1, 100_000))
        m = int(rng.choice([2, 3, 17, 1000, 99_999, 10**7]))
        d = mpmath.mpf(num) / den
        lam = float(d * mpmath.mpf(10) ** rng.uniform(-3, 4))
        r, arg = _spaced.SpacedRisk(_Groups(), num, den, m)(np.array([lam]))
        exact = _exact(d, m, lam)
        assert r[0] >= exact, (num, den, m, lam)
        assert r[0] <= exact * (1 + 1e-13) or r[0] == 1.0
        assert arg[0] == 0


def test_closed_form_at_the_extremes():
    sp = _spaced.SpacedRisk(_Groups(), 1.0, 7.0, 1000)
    r, _ = sp(np.array([0.0, 5e-324, 1e-300, 1e300, np.inf]))
    assert r[0] == r[1] == r[2] == 1.0
    assert r[3] >= 1 / 1000 and r[3] <= 1 / 1000 * (1 + 1e-14)
    assert r[4] >= 1 / 1000 and r[4] <= 1 / 1000 * (1 + 1e-15)
    assert np.all(np.diff(sp(np.geomspace(1e-5, 1e5, 500))[0]) <= 0)  # falls as the noise grows


@pytest.mark.parametrize("m", [2, 3, 5, 12])
def test_an_end_world_attains_the_worst_case(m):
    """Brute force over every world and response: max_j 1 / sum_k e^{-|f_j - f_k|/b}
    is the closed form (the end world's)."""
    d = mpmath.mpf(1) / 3
    for lam in (0.01, 0.3, 1.0, 7.0):
        brute = max(1 / mpmath.fsum(mpmath.exp(-abs(j - k) * d / lam) for k in range(m)) for j in range(m))
        assert mpmath.almosteq(brute, _exact(d, m, lam), rel_eps=mpmath.mpf(10) ** -50)


def _without_closed_form(monkeypatch):
    monkeypatch.setattr(_neighbours, "spacing", lambda *a: None)


@pytest.mark.parametrize("query, seed", [("mean", 0), ("mean", 1), ("sum", 2), ("mean", 3)])
def test_every_removal_passes_and_results_move_up_only(query, seed, monkeypatch):
    """dataset_tight_scale on the closed form: every distinct D' passes its
    own worst_case_risk at the returned scale; against X's evaluator (the
    path the closed form replaces) the scales are equal or higher, by at
    most the documented margin, and lower only inside the search's rtol
    window."""
    rng = np.random.default_rng(seed)
    hi = int(rng.choice([10, 500, 99_999]))
    data = rng.integers(0, hi + 1, int(rng.integers(5, 300))).astype(float)
    data[0] = hi  # a large value: larger rounding of the world values
    dom = di.Domain(0, hi)
    rho = np.concatenate([np.geomspace(1.0 / (hi + 1) * 1.001, 0.9, 60), [0.0, 1.0, 1.0 / (hi + 1)]])
    new = di.dataset_tight_scale(query, data=data, candidates=dom, rho=rho, rtol=1e-12)
    _without_closed_form(monkeypatch)
    old = di.dataset_tight_scale(query, data=data, candidates=dom, rho=rho, rtol=1e-12)
    fin = np.isfinite(old) & (old > 0)
    np.testing.assert_array_equal(new[~fin], old[~fin])
    assert np.all(new[fin] >= old[fin] * (1 - 1e-12))
    assert np.all(new[fin] <= old[fin] * (1 + 1e-7))
    for x in np.unique(data):
        known = np.delete(data, np.flatnonzero(data == x)[0])
        v, c = di.world_values(query, known=known, candidates=dom)
        r = di.worst_case_risk(v, scale=new[fin], counts=c)
        assert np.all(r <= rho[fin]), x


def test_sweep_mean_on_the_closed_form_passes_its_evaluator():
    hours = np.random.default_rng(5).integers(1, 100, 3000).astype(float)
    t = di.sweep({"h": hours}, queries=["mean", "sum"], n_rho=200, domains={"h": (1, 99)}, calibrations=["tight"])
    for q in ("mean", "sum"):
        sel = (t["query"] == q) & np.isfinite(t["tight_scale"]) & (t["tight_scale"] > 0)
        v, c = di.world_values(q, known=hours[1:], candidates=di.Domain(1, 99))
        assert sel.sum() > 150
        assert np.all(di.worst_case_risk(v, scale=t["tight_scale"][sel], counts=c) <= t["rho"][sel])
