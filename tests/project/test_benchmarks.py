"""Benchmarks of the headline computations, for pytest-benchmark.

Each benchmark times one public call at a size where its cost is the
kernel's, not Python's, and then checks the timed call's own result
against a reference implementation from `diffident.testing` (the NumPy
same-algorithm baselines, SciPy, brute force, the closed forms), so that a
faster run that computes something else fails.

A plain ``pytest`` run (CI) runs each body once, as a test, without
timing (``tests/conftest.py`` turns on ``--benchmark-disable`` unless a
benchmark option is given).  Timing runs, from the repository root::

    python -m pytest tests/project/test_benchmarks.py --benchmark-only --benchmark-autosave
    python -m pytest tests/project/test_benchmarks.py --benchmark-only \\
        --benchmark-compare --benchmark-compare-fail=min:25%

The first saves a run under ``.benchmarks/`` (ignored by git); the second
compares with the latest saved run and fails if any benchmark's minimum
time grew by more than 25%.  Numba compiles (or loads its cache) in each
benchmark's setup call, outside the timing.
"""

import numpy as np
import pytest

import diffident as di
from diffident.testing import COMPARISONS, brute_force, dense

pytest.importorskip("pytest_benchmark")

M = 10**6  # worlds: large enough that the kernels, not the calls, cost


def _values(m, seed=0):
    return np.random.default_rng(seed).standard_normal(m) * 10.0


def _run(benchmark, fn):
    fn()  # compile or load the cache, and touch the data: outside the timing
    return benchmark(fn)


def test_log_evidence(benchmark):
    values = _values(M)
    got = _run(benchmark, lambda: di.log_evidence(values, response=1.5, scale=2.0))
    want = COMPARISONS["log_evidence"].reference("scipy")(values, response=1.5, scale=2.0)
    assert got == pytest.approx(want, rel=1e-12, abs=1e-12)


def test_log_evidence_many_responses(benchmark):
    values = _values(10**5)
    responses = np.linspace(values.min() - 5.0, values.max() + 5.0, 10**4)
    got = _run(benchmark, lambda: di.log_evidence(values, response=responses, scale=2.0))
    idx = np.arange(0, responses.size, 997)
    want = [dense.scipy_log_evidence(values, response=r, scale=2.0) for r in responses[idx]]
    np.testing.assert_allclose(got[idx], want, rtol=1e-12, atol=1e-12)


def test_log_evidence_discrete(benchmark):
    values = np.random.default_rng(1).integers(-10**6, 10**6, M).astype(float)
    got = _run(benchmark, lambda: di.log_evidence(values, response=12.0, scale=3.0, noise="discrete_laplace"))
    want = dense.numpy_discrete_log_evidence(values, response=12.0, scale=3.0)
    assert got == pytest.approx(want, rel=1e-12, abs=1e-12)


def test_worst_case_risk(benchmark):
    values = _values(M)
    got = _run(benchmark, lambda: di.worst_case_risk(values, scale=0.5))
    # the NumPy version of the same algorithm: its cumulative sums carry
    # |f| / b ~ 100, so it is good to about 1e-12 relative here
    assert got == pytest.approx(dense.numpy_worst_case_risk(values, scale=0.5), rel=1e-11)


def test_worst_case_risk_many_scales(benchmark):
    values = np.sort(_values(10**5))
    scales = np.geomspace(1e-3, 1e3, 64)
    got = _run(benchmark, lambda: di.worst_case_risk(values, scale=scales))
    want = [dense.numpy_worst_case_risk(values, scale=s) for s in scales[::9]]
    np.testing.assert_allclose(got[::9], want, rtol=1e-11)


def test_tight_scale(benchmark):
    values = _values(10**5)
    rho = np.geomspace(10.0 / values.size, 0.5, 100)
    got = _run(benchmark, lambda: di.tight_scale(values, rho=rho, rtol=0.0))
    assert np.all(di.worst_case_risk(values, scale=got) <= rho)  # never on the unsafe side
    idx = [0, 50, 99]
    want = [dense.brentq_tight_scale(values, rho=float(rho[i])) for i in idx]
    np.testing.assert_allclose(got[idx], want, rtol=1e-9)


@pytest.mark.parametrize("noise", ["laplace", "gaussian"])
def test_expected_risk(benchmark, noise):
    values = _values(M)
    got = _run(benchmark, lambda: di.expected_risk(values, scale=0.5, noise=noise))
    assert got == pytest.approx(dense.numpy_expected_risk(values, scale=0.5, noise=noise), rel=1e-12)


def test_tight_scale_expected(benchmark):
    values = _values(10**5)
    rho = np.geomspace(2.0 / values.size, 0.5, 100)
    got = _run(benchmark, lambda: di.tight_scale(values, rho=rho, risk="expected"))
    assert np.all(di.expected_risk(values, scale=got) <= rho)
    for i in (0, 50, 99):  # 1e-9 less noise breaks rho: tight
        assert dense.numpy_expected_risk(values, scale=got[i] * (1 - 1e-9)) > rho[i]


@pytest.mark.parametrize("query", ["mean", "median", "std"])
def test_world_values(benchmark, query):
    rng = np.random.default_rng(2)
    known = rng.integers(0, 100, 2000).astype(float)
    domain = di.Domain(0, 99)
    got_v, got_c = _run(benchmark, lambda: di.world_values(query, known=known, candidates=domain))
    want_v, want_c = brute_force.world_values(query, known=known, candidates=np.arange(100.0))
    np.testing.assert_allclose(got_v, want_v, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(got_c, want_c)


def test_sweep(benchmark):
    rng = np.random.default_rng(3)
    data = {"a": rng.integers(17, 91, 5000).astype(float), "b": rng.integers(1, 100, 5000).astype(float)}
    domains = {"a": (17, 90), "b": (1, 99)}
    table = _run(benchmark, lambda: di.sweep(data, queries=("mean", "std"), n_rho=100, domains=domains))
    df = table.to_pandas()
    assert len(df) == 2 * 2 * 100 and set(df["status"]) <= {"calibrated", "no noise needed"}
    # the bound's scale is the paper's closed form at each row's m and range
    scale_for_rho = COMPARISONS["scale_for_rho"].function
    want = scale_for_rho(df["rho"].to_numpy(), m=df["m"].to_numpy(), sensitive_range=df["sensitive_range"].to_numpy())
    np.testing.assert_array_equal(df["bound_scale"].to_numpy(), want)
    # and the exact calibration never needs more noise than the bound
    assert np.all(df["tight_scale"].to_numpy() <= df["bound_scale"].to_numpy())
