"""The sweep's noise and risk choices: integer noise on the query's lattice
and the expected success, checked against brute force over every D'."""

import csv
import subprocess
import sys

import numpy as np
import pytest

import diffident as di

QUERIES = ["sum", "mean", "median", "max", "quantile", "std"]


def _every_removal(query, d, dom, q=0.5):
    """The (values, counts) of the worlds of every distinct D' = D - i, by the
    public world_values (brute force over the removed values).
    """
    out = []
    for x in np.unique(d):
        i = int(np.flatnonzero(d == x)[0])
        out.append(di.world_values(query, known=np.delete(d, i), candidates=dom, q=q, ddof=1))
    return out


def _snapped(v, g):
    """World values as lattice points, the offset removed."""
    return np.rint((v - v.min()) / g) * g


def _success(v, c, scale, noise, g):
    if noise == "discrete_laplace":
        return di.expected_risk(_snapped(v, g), counts=c, scale=scale, noise=noise, granularity=g)
    return di.expected_risk(v, counts=c, scale=scale, noise=noise)


@pytest.mark.parametrize("noise", ["laplace", "discrete_laplace", "gaussian"])
@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("dom", [di.Domain(0, 9), di.Domain(0.05, 0.95, step=0.1)], ids=["integers", "stepped"])
def test_expected_calibration_holds_for_every_removal_and_is_tight(noise, query, dom):
    rng = np.random.default_rng(7)
    d = dom.values()[rng.integers(0, dom.size, 12)]
    rho = np.array([0.12, 0.2, 0.35, 0.6, 0.95])
    t = di.sweep({"x": d}, queries=[query], rho=rho, domains={"x": dom}, noise=noise, risk="expected",
                 calibrations=["tight"], q=0.25, rtol=1e-10)
    if noise == "discrete_laplace" and query == "std":
        assert t["status"].tolist() == ["no lattice"] * rho.size
        assert np.isnan(t["tight_scale"]).all() and np.isnan(t["granularity"]).all()
        return
    g = float(t["granularity"][0])
    sets = _every_removal(query, d, dom, q=0.25)
    for r, lam, status in zip(rho, t["tight_scale"], t["status"], strict=True):
        if status == "no noise needed":  # every D' meets rho without noise
            assert lam == 0 and max(_success(v, c, 0.0, noise, g) for v, c in sets) <= r
        if status != "calibrated":
            continue
        worst = max(_success(v, c, lam, noise, g) for v, c in sets)
        assert worst <= r  # every D' meets rho at the returned scale
        below = max(_success(v, c, lam * (1 - 1e-7), noise, g) for v, c in sets)
        assert below > r  # and a little less noise fails for some D'


@pytest.mark.parametrize("query", QUERIES[:-1])
def test_lattice_spacing_holds_every_world_and_the_offset(query):
    """The granularity column: every world value of every D' is the smallest
    world value plus a whole number of steps; the mean's is the step over n,
    a quantile's the step over its weight's denominator."""
    dom = di.Domain(0.05, 0.95, step=0.1)
    d = dom.values()[np.random.default_rng(3).integers(0, dom.size, 12)]
    t = di.sweep({"x": d}, queries=[query], rho=[0.3], domains={"x": dom}, noise="discrete_laplace", q=0.25)
    g = float(t["granularity"][0])
    expected = {"sum": 0.1, "mean": 0.1 / 12, "median": 0.05, "max": 0.1, "quantile": 0.1 / 4}[query]
    assert g == pytest.approx(expected, rel=1e-15)
    for v, _ in _every_removal(query, d, dom, q=0.25):
        k = (v - v.min()) / g
        np.testing.assert_allclose(k, np.rint(k), atol=1e-9)


def test_integer_worst_case_rows_equal_laplace_and_bound_meets_either_risk():
    rng = np.random.default_rng(1)
    d = rng.integers(1, 40, 300).astype(float)
    rho = np.geomspace(0.03, 0.5, 9)
    t = di.sweep({"h": d}, queries=["mean", "median", "sum"], rho=rho, domains={"h": (1, 40)},
                 noise=["laplace", "discrete_laplace"], risk=["worst", "expected"])
    df = t.to_pandas()
    for query in ("mean", "median", "sum"):
        rows = {(nz, rk): df[(df["query"] == query) & (df["noise"] == nz) & (df["risk"] == rk)]
                for nz in ("laplace", "discrete_laplace") for rk in ("worst", "expected")}
        a, b = rows["laplace", "worst"], rows["discrete_laplace", "worst"]
        for col in ("bound_scale", "tight_scale", "tight_epsilon", "risk_at_bound"):
            np.testing.assert_array_equal(a[col].to_numpy(), b[col].to_numpy())  # every bit
        for nz in ("laplace", "discrete_laplace"):
            w, e = rows[nz, "worst"], rows[nz, "expected"]
            # the expected success needs at most the worst case's noise,
            # and the paper's scale meets rho for it too
            assert np.all(e["tight_scale"].to_numpy() <= w["tight_scale"].to_numpy())
            assert np.all(e["risk_at_bound"].to_numpy() <= w["risk_at_bound"].to_numpy())
            assert np.all(e["risk_at_bound"].to_numpy() <= e["rho"].to_numpy())


def test_risk_at_bound_is_the_expected_success_of_the_attaining_removal():
    d = np.array([3.0, 7.0, 7.0, 1.0, 9.0, 4.0, 4.0, 2.0, 8.0, 6.0])
    dom = di.Domain(0, 9)
    t = di.sweep({"x": d}, queries=["mean"], rho=[0.2, 0.4], domains={"x": dom}, noise="discrete_laplace",
                 risk="expected", calibrations=["bound"])
    S, removed = di.dataset_sensitive_range("mean", data=d, candidates=dom, return_removed=True)
    v, c = di.world_values("mean", known=np.delete(d, removed[0]), candidates=dom)
    g = float(t["granularity"][0])
    assert g == 0.1
    want = di.expected_risk(_snapped(v, g), counts=c, scale=t["bound_scale"], noise="discrete_laplace",
                            granularity=g)
    np.testing.assert_allclose(t["risk_at_bound"], want, rtol=1e-13)


def test_gaussian_rows_have_no_bound_and_no_epsilon():
    d = np.arange(1.0, 21.0)
    t = di.sweep({"x": d}, queries=["mean"], rho=[0.1, 0.3], domains={"x": (1, 20)}, noise="gaussian",
                 risk="expected", calibrations=["tight"])
    assert np.isnan(t["bound_scale"]).all() and np.isnan(t["tight_epsilon"]).all()
    assert np.all(np.isfinite(t["tight_scale"]) & (t["tight_scale"] > 0))


@pytest.mark.parametrize("kwargs, match", [
    (dict(noise="discrete_gaussian"), "discrete_gaussian' has no calibration"),
    (dict(noise="gaussian"), "worst-case risk of Gaussian noise is 1"),
    (dict(noise="gaussian", risk="expected", calibrations=["bound"]), "no closed-form bound"),
    (dict(noise="uniform"), "noise must be one of"),
    (dict(risk="average"), "risk must be one of"),
    (dict(noise=[]), "at least one choice"),
])
def test_pairs_without_a_calibration_are_refused_before_any_work(kwargs, match):
    with pytest.raises(ValueError, match=match):
        di.sweep({"x": np.arange(1.0, 11.0)}, queries=["mean"], rho=[0.2], domains={"x": (1, 10)}, **kwargs)


def test_integer_noise_off_its_lattice_goes_on_with_a_status():
    """A var under integer noise is a 'no lattice' row, and the rest of the
    grid is computed."""
    t = di.sweep({"x": np.arange(1.0, 11.0)}, queries=["var", "mean"], rho=[0.2], domains={"x": (1, 10)},
                 noise="discrete_laplace")
    assert t["status"].tolist() == ["no lattice", "calibrated"]


def test_dask_sweep_takes_noise_and_risk():
    ddask = pytest.importorskip("diffident.dask")
    pytest.importorskip("dask")
    data = {"a": np.arange(1.0, 11.0), "b": np.arange(2.0, 22.0, 2.0)}
    kw = dict(queries=["mean"], rho=[0.2, 0.5], infer_domains=True, noise=["laplace", "discrete_laplace"],
              risk=["worst", "expected"])
    t = ddask.sweep(data, **kw)
    local = di.sweep(data, **kw)
    for key in local:
        assert t[key].tolist() == local[key].tolist() or np.array_equal(t[key], local[key], equal_nan=True)


def test_cli_noise_and_risk(tmp_path):
    src = tmp_path / "d.csv"
    src.write_text("x\n" + "\n".join(str(v) for v in [3, 7, 7, 1, 9, 4, 4, 2, 8, 6]) + "\n")
    out = tmp_path / "grid.csv"
    r = subprocess.run([sys.executable, "-m", "diffident", "sweep", "--data", str(src), "--out", str(out),
                        "--queries", "mean", "--rho", "0.2", "--domain", "x=0:9", "--noise", "laplace",
                        "discrete_laplace", "--risk", "worst", "expected", "--quiet"],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    with open(out, newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [(row["noise"], row["risk"]) for row in rows] == [
        ("laplace", "worst"), ("laplace", "expected"), ("discrete_laplace", "worst"), ("discrete_laplace", "expected")]
    assert rows[2]["granularity"] == "0.1" and rows[0]["granularity"] == "nan"
    bad = subprocess.run([sys.executable, "-m", "diffident", "sweep", "--data", str(src), "--out", str(out),
                          "--queries", "mean", "--domain", "x=0:9", "--noise", "gaussian", "--quiet"],
                         capture_output=True, text=True, check=False)
    assert bad.returncode != 0 and "risk='expected'" in bad.stderr


@pytest.mark.parametrize("noise", ["laplace", "gaussian"])
@pytest.mark.parametrize("seed", [0, 1, 6])
def test_every_removal_checked_when_another_one_binds(seed, noise):
    """Data where the first world set is not the one that needs the most
    noise at every rho (at rho = 0.95 it needs none while another does): the
    sweep's scale is the largest of every removal's own calibration."""
    rng = np.random.default_rng(seed)
    dom = di.Domain(0, 9)
    d = dom.values()[rng.integers(0, dom.size, int(rng.integers(5, 15)))]
    rho = np.array([0.12, 0.2, 0.35, 0.6, 0.95])
    t = di.sweep({"x": d}, queries=["std"], rho=rho, domains={"x": dom}, noise=noise, risk="expected",
                 calibrations=["tight"])
    own = np.array([di.tight_scale(v, rho=rho, counts=c, risk="expected", noise=noise)
                    for v, c in _every_removal("std", d, dom)])
    assert len({int(i) for i in np.argmax(own, axis=0)}) > 1 or np.any(own.max(axis=0) > own[0])
    assert np.any(own.min(axis=0) == 0) and np.all(t["tight_scale"] > 0)  # one removal needs none, another some
    np.testing.assert_allclose(t["tight_scale"], own.max(axis=0), rtol=1e-9)
