"""A rho grid inverted with shared evaluations (`diffident._numerics.inversion`).

`tight_scale` on 64 or more rho with rtol >= 1e-13 locates every answer on
an interpolant of rho* and confirms it with two evaluations; the contract is
the per-target search's: each scale passes, a failing scale lies within
rtol below it, and it sits at the top of that window.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import diffident as di
from diffident._numerics import inversion as _inversion
from diffident._numerics import search as _search
from diffident._risk import worst_case as _worst_case
from diffident._worlds.values import Worlds


def _sets():
    rng = np.random.default_rng(20261124)
    yield "normal", rng.normal(size=5000), None, None
    yield "ties", np.round(rng.normal(size=3000) * 10), None, None
    yield "cauchy, counts", rng.standard_cauchy(1000), rng.integers(1, 5, 1000).astype(float), None
    yield "prior", rng.normal(size=800), None, rng.uniform(0.2, 1.0, 800)
    # a domain mean: 1e5 equally spaced values (the sweep's largest sets)
    yield "domain mean", (1e6 + np.arange(100_000.0)) / 48_842.0, None, None
    # two clusters and a heavy outlier: the group attaining rho* changes
    # with the scale (kinks the interpolant must not cross)
    v = np.concatenate([rng.normal(0, 1, 400), rng.normal(50, 0.01, 40), [200.0]])
    p = np.concatenate([np.ones(400), np.full(40, 0.3), [40.0]])
    yield "kinked", v, None, p


SETS = list(_sets())


def _grid(v, c, p, n):
    lo = di.worst_case_risk(v, scale=np.inf, counts=c, prior=p)
    hi = di.worst_case_risk(v, scale=0.0, counts=c, prior=p)
    return np.geomspace(lo * 1.0001, hi * 0.9999, n)


def _error(v, c, p):
    return _worst_case.Risk(Worlds(v, c, p)).error


@pytest.mark.parametrize("name, v, c, p", SETS, ids=[s[0] for s in SETS])
@pytest.mark.parametrize("rtol", [1e-12, 1e-9])
def test_each_scale_passes_and_fails_within_rtol_below(name, v, c, p, rtol):
    rho = _grid(v, c, p, 300)
    lam = di.tight_scale(v, rho=rho, counts=c, prior=p, rtol=rtol)
    assert np.all(np.isfinite(lam) & (lam > 0))
    assert np.all(di.worst_case_risk(v, scale=lam, counts=c, prior=p) <= rho)
    # tight: the failing end lies at or above lam (1 - rtol), where rho
    # lowered by the evaluation's error bound fails; the exact rho* is
    # non-increasing, the computed one within its error bound of it (near
    # the limit 1/m, where rho* is flat, that noise is all there is)
    err = _error(v, c, p)
    below = di.worst_case_risk(v, scale=lam * (1.0 - 1.5 * rtol), counts=c, prior=p)
    assert np.all(below > _search.below(_search.below(rho, err), 2.0 * err))


@pytest.mark.parametrize("name, v, c, p", SETS, ids=[s[0] for s in SETS])
def test_agrees_with_the_search_per_target(name, v, c, p):
    rtol = 1e-12
    rho = _grid(v, c, p, 256)
    grid = di.tight_scale(v, rho=rho, counts=c, prior=p, rtol=rtol)
    # fewer than 64 targets at a time: the per-target search
    one = np.concatenate([di.tight_scale(v, rho=r, counts=c, prior=p, rtol=rtol) for r in np.split(rho, 8)])
    assert np.all(np.abs(grid - one) <= 2.0 * rtol * np.maximum(grid, one))
    # at the top of the window: at least the per-target answer, as a rule
    assert np.mean(grid >= one) > 0.9


@pytest.mark.parametrize("name, v, c, p", SETS[:2] + SETS[4:], ids=[s[0] for s in SETS[:2] + SETS[4:]])
def test_default_rtol_keeps_the_per_target_search(name, v, c, p):
    rho = _grid(v, c, p, 96)
    grid = di.tight_scale(v, rho=rho, counts=c, prior=p)  # rtol 0: adjacent floats, per target
    one = np.concatenate([di.tight_scale(v, rho=r, counts=c, prior=p) for r in np.split(rho, 2)])
    np.testing.assert_array_equal(grid, one)


def test_few_evaluations_per_target(evaluator_calls):
    v = (1e6 + np.arange(20_000.0)) / 48_842.0
    rho = _grid(v, None, None, 1000)
    di.tight_scale(v, rho=rho, rtol=1e-12)
    # two confirmations per target, the grid and the interpolation nodes;
    # the per-target search takes about eleven
    assert sum(evaluator_calls) / rho.size < 3.0


@pytest.mark.parametrize("kind", ["normal", "lognormal", "cauchy", "ties"])
def test_sparse_targets_cost_no_more_than_the_per_target_search(evaluator_calls, kind):
    # 64 rho over the whole range: intervals with too few targets to pay
    # for their nodes go to the per-target search from the grid
    rng = np.random.default_rng(5)
    v = {"normal": lambda: rng.normal(size=5000), "lognormal": lambda: rng.lognormal(0, 3, 3000),
         "cauchy": lambda: rng.standard_cauchy(3000), "ties": lambda: np.round(rng.normal(size=3000) * 10)}[kind]()
    rho = _grid(v, None, None, 64)
    di.tight_scale(v, rho=rho, rtol=1e-12)
    grid = sum(evaluator_calls)
    evaluator_calls.clear()
    for r in np.split(rho, 2):  # (fewer than 64 at a time: the per-target search)
        di.tight_scale(v, rho=r, rtol=1e-12)
    assert grid <= sum(evaluator_calls)


# ------------------------------------------------------------ the module itself --

def _kinked(x):
    """max of two smooth decreasing functions, a flat stretch, and arg."""
    a = 1.0 / (1.0 + x)
    b = 0.5 * np.exp(-x / 30.0)
    f = np.maximum(a, b)
    f = np.where((x > 200.0) & (x < 400.0), 0.5 * np.exp(-200.0 / 30.0), np.where(x >= 400.0, f * 0.9, f))
    return f, np.where(a >= b, 0, 1) + np.where(x > 200.0, 2, 0)


def _bisected(f, t):
    """The smallest float x with f(x) <= t by bisection of the bit patterns."""
    lo, hi = _search.key(np.full(t.shape, 1e-6)), _search.key(np.full(t.shape, 1e6))
    while np.any(hi - lo > 1):
        mid = _search._mid(lo, hi)
        ok = f(_search.unkey(mid))[0] <= t
        hi = np.where(ok, mid, hi)
        lo = np.where(ok, lo, mid)
    return _search.unkey(hi)


@pytest.mark.parametrize("rtol", [1e-13, 1e-12, 1e-8])
def test_kinks_flats_and_targets_outside_the_grid(rtol):
    rng = np.random.default_rng(7)
    t = np.sort(rng.uniform(1e-4, 0.99, 400))
    lo = np.full(t.size, 0.5)  # guesses: many answers lie outside [lo, hi]
    hi = np.full(t.size, 50.0)
    x, status = _inversion.smallest(_kinked, t, lo, hi, rtol=rtol)
    assert np.all(status == _search.CONVERGED)
    exact = _bisected(_kinked, t)
    assert np.all(_kinked(x)[0] <= t)
    assert np.all(x >= exact)
    # the flat stretch: its targets' answer is its left end, where rtol holds too
    assert np.all(x <= exact / (1.0 - rtol))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 300), k=st.integers(64, 200),
       rtol=st.sampled_from([1e-13, 1e-12, 1e-10, 1e-6]))
def test_random_world_sets(seed, n, k, rtol):
    rng = np.random.default_rng(seed)
    v = np.round(rng.normal(size=n) * rng.uniform(0.1, 100.0), int(rng.integers(0, 4)))
    c = rng.integers(1, 4, n).astype(float)
    p = rng.uniform(0.05, 1.0, n) if seed % 2 else None
    lo = di.worst_case_risk(v, scale=np.inf, counts=c, prior=p)
    hi = di.worst_case_risk(v, scale=0.0, counts=c, prior=p)
    if not hi > lo * 1.001:
        return  # (every value alike: nothing to search)
    rho = np.sort(rng.uniform(lo * 1.0001, hi * 0.9999, k))
    lam = di.tight_scale(v, rho=rho, counts=c, prior=p, rtol=rtol)
    assert np.all(np.isfinite(lam) & (lam > 0))
    assert np.all(di.worst_case_risk(v, scale=lam, counts=c, prior=p) <= rho)
    below = di.worst_case_risk(v, scale=lam * (1.0 - 1.5 * rtol), counts=c, prior=p)
    assert np.all(below > _search.below(rho, _error(v, c, p)))


def _smooth(x):
    """One group's smooth decreasing f = 1 / (a sum of exponentials in ln x)."""
    return 1.0 / (1.0 + np.exp(-1.0 / x) + 0.5 * np.exp(-3.0 / x) + 2.0 * np.exp(-0.2 / x)), np.zeros(x.size, int)


def test_estimates_are_within_their_error_bounds():
    # each target's estimate lies within its stated error of the answer
    # (bisected to the float, with f's own rounding: twice the error, as the
    # bisected answer is as uncertain): the Newton iteration on the
    # interpolant runs to convergence for every target, including the ones
    # whose residual rounding keeps moving back and forth; stopped early
    # (at a residual of 1e-6), the estimates are off by far more
    t = np.geomspace(0.25, 0.47, 3000)
    grid = _inversion._grid(np.full(1, 0.3), np.full(1, 200.0))
    F, arg = _smooth(grid)
    j = np.searchsorted(-np.minimum.accumulate(F), -t, side="left") - 1
    est, err, *_ = _inversion._estimates(_smooth, grid, F, arg, j, t, 1e-12)
    exact = _bisected(_smooth, t)
    assert np.all(np.isfinite(est))
    assert np.all(np.abs(est - exact) <= (2.0 * err + 4.0 * 2.0 ** -52) * exact)
    assert np.all(err <= 1e-13)
