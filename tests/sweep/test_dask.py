"""The Dask backend against the in-memory path, on a real LocalCluster."""

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

import diffident as di  # noqa: E402
import diffident.dask as ddask  # noqa: E402


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def test_log_evidence_on_a_cluster(client):
    rng = np.random.default_rng(0)
    v = rng.normal(size=2_000_000) * 5
    x = da.from_array(v, chunks=250_000)
    R = np.array([0.3, -7.0, 100.0])
    for noise in ("laplace", "gaussian"):
        got = ddask.log_evidence(x, response=R, scale=0.2, noise=noise)
        np.testing.assert_allclose(got, di.log_evidence(v, response=R, scale=0.2, noise=noise), rtol=1e-12)


def test_worst_case_risk_on_a_cluster(client):
    rng = np.random.default_rng(1)
    v = np.sort(rng.normal(size=1_000_000))
    x = da.from_array(v, chunks=200_001)
    s = np.array([1e-4, 0.01, 1.0])
    np.testing.assert_array_equal(ddask.worst_case_risk(x, scale=s), di.worst_case_risk(v, scale=s))
    # repeated values across block boundaries are one group, as in memory
    w = np.sort(rng.integers(0, 1000, 300_000).astype(float))
    s = np.array([0.0, 0.3, 30.0, 3e4, np.inf])
    np.testing.assert_array_equal(ddask.worst_case_risk(da.from_array(w, chunks=29_999), scale=s),
                                  di.worst_case_risk(w, scale=s))


def test_sweep_on_a_cluster(client):
    rng = np.random.default_rng(2)
    data = {"a": rng.integers(0, 60, 3000).astype(float), "b": rng.integers(5, 25, 3000).astype(float)}
    kw = dict(queries=["mean", "std"], rho=[0.05, 0.2], sizes=[3000, 500], domains={"b": (0, 30)})
    with pytest.warns(di.InferredDomainWarning, match="'a'"):  # in this process, for the tasks
        ddask.sweep(data, client=client, **kw)
    kw["infer_domains"] = True
    t1 = di.sweep(data, **kw)
    t2 = ddask.sweep(data, client=client, **kw)
    for k in t1:
        if t1[k].dtype == object:
            assert list(t1[k]) == list(t2[k])
        else:
            np.testing.assert_allclose(t2[k], t1[k], rtol=1e-12)


def test_unsorted_blocks_are_refused():
    with pytest.raises(ValueError, match="sorted"):
        ddask.worst_case_risk(da.from_array(np.array([3.0, 1.0, 2.0]), chunks=2), scale=1.0)


@pytest.mark.parametrize("cuts", [(0,), (3, 3), (0, 0, 5), (5, 5, 9), (9,)])
def test_empty_blocks_are_a_legitimate_chunking(cuts):
    # Filtering a Dask array can leave empty blocks: they change nothing.
    v = np.sort(np.random.default_rng(3).normal(size=9))
    bounds = (0, *cuts, v.size)
    chunks = tuple(b - a for a, b in zip(bounds[:-1], bounds[1:], strict=False))
    assert 0 in chunks
    x = da.from_array(v, chunks=(chunks,))
    scales = np.array([0.05, 0.5, 5.0])
    assert np.array_equal(ddask.worst_case_risk(x, scale=scales), di.worst_case_risk(v, scale=scales))
    R = np.array([-1.0, 0.2, 3.0])
    np.testing.assert_allclose(ddask.log_evidence(x, response=R, scale=0.7), di.log_evidence(v, response=R, scale=0.7),
                               rtol=1e-14)


def test_sweep_of_no_columns_is_an_empty_table_as_in_memory():
    t = ddask.sweep({})
    assert len(t) == 0 and list(t) == list(di.sweep({}))


def test_worst_case_extremes_agree_bit_for_bit():
    # values whose differences overflow, scales whose reciprocal does: the
    # same power-of-two scaling as in memory
    for values, scales in (([-1.5e308, 0.0, 1.5e308], [1e308, 1.0]), ([0.0, 1e-310, 3e-310], [1e-310, 5e-324])):
        v = np.array(values)
        got = ddask.worst_case_risk(da.from_array(v, chunks=1), scale=scales)
        np.testing.assert_array_equal(got, di.worst_case_risk(v, scale=scales))


def test_sweep_budgets_hold_in_each_task():
    """The budgets reach every task: a column over them is refused (or
    skipped, its rows as the in-memory sweep's)."""
    data = {"a": np.arange(1.0, 9.0), "b": np.arange(0.0, 80.0, 10.0)}
    domains = {"a": (0, 10), "b": (0, 10**6)}
    kw = dict(queries=["std"], rho=[0.1, 0.2], domains=domains, max_memory="500M")
    with pytest.raises(di.OverBudget, match="column 'b', std"):
        ddask.sweep(data, **kw)
    with pytest.warns(di.OverBudgetWarning):
        t = ddask.sweep(data, skip_expensive=True, **kw)
        local = di.sweep(data, skip_expensive=True, **kw)
    assert t["status"].tolist() == local["status"].tolist() == ["calibrated"] * 2 + ["over budget"] * 2
    np.testing.assert_array_equal(t["tight_scale"], local["tight_scale"])
