"""Sweeps: the table against direct engine calls, the CLI, bad input."""

import csv
import shutil
import subprocess
import sys

import numpy as np
import pytest
from conftest import adult_path

import diffident as di


def _run(*args):
    exe = shutil.which("diffident")
    cmd = [exe, *args] if exe else [sys.executable, "-m", "diffident", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def test_table_matches_direct_engine_calls():
    rng = np.random.default_rng(0)
    data = {"a": rng.integers(0, 50, 400).astype(float), "b": rng.integers(10, 20, 400).astype(float)}
    rho = np.array([0.03, 0.1, 0.4])
    with pytest.warns(di.InferredDomainWarning, match=r"'a': 0\.\.49"):
        t = di.sweep(data, queries=["mean", "std"], rho=rho, sizes=[400, 100], domains={"b": (5, 25)}, rtol=0.0)
    assert len(t) == 2 * 2 * 2 * 3
    assert list(t) == ["column", "query", "n", "m", "domain_source", "noise", "risk", "rho", "sensitive_range",
                       "granularity", "bound_scale", "bound_epsilon", "tight_scale", "tight_epsilon", "risk_at_bound",
                       "status"]
    assert set(t["noise"]) == {"laplace"} and set(t["risk"]) == {"worst"} and np.isnan(t["granularity"]).all()
    assert set(t["domain_source"][t["column"] == "a"]) == {"inferred"}
    assert set(t["domain_source"][t["column"] == "b"]) == {"given"}
    for i in range(len(t)):
        col = t["column"][i]
        dom = di.Domain(0, 49) if col == "a" else di.Domain(5, 25)
        assert t["m"][i] == dom.size
        assert t["rho"][i] in rho
    # one cell in full: column a, query std, all rows
    sel = (t["column"] == "a") & (t["query"] == "std") & (t["n"] == 400)
    d = data["a"]
    S, removed = di.dataset_sensitive_range("std", data=d, candidates=di.Domain(0, 49), ddof=1, return_removed=True)
    np.testing.assert_array_equal(t["sensitive_range"][sel], S)
    np.testing.assert_array_equal(t["bound_scale"][sel], di.scale_for_rho(rho, m=50, sensitive_range=S))
    np.testing.assert_array_equal(t["bound_epsilon"][sel], di.epsilon_for_rho(rho, m=50))
    v, c = di.world_values("std", known=np.delete(d, removed[0]), candidates=di.Domain(0, 49), ddof=1)
    np.testing.assert_array_equal(t["risk_at_bound"][sel], di.worst_case_risk(v, scale=t["bound_scale"][sel], counts=c))
    # the tight scale covers every D' = D - i: the largest tight scale over
    # the distinct removed values, by brute force
    every = np.zeros(rho.size)
    for x in np.unique(d):
        vx, cx = di.world_values("std", known=np.delete(d, np.flatnonzero(d == x)[0]), candidates=di.Domain(0, 49),
                                 ddof=1)
        every = np.maximum(every, di.tight_scale(vx, rho=rho, counts=cx))
    np.testing.assert_array_equal(t["tight_scale"][sel], every)
    np.testing.assert_array_equal(t["tight_scale"][sel],
                                  di.dataset_tight_scale("std", data=d, candidates=di.Domain(0, 49), rho=rho, ddof=1))
    np.testing.assert_array_equal(t["tight_epsilon"][sel], S / t["tight_scale"][sel])
    # the tight scale never exceeds the paper's, and meets rho exactly
    assert np.all(t["tight_scale"] <= t["bound_scale"] * (1 + 1e-12))
    ok = np.isfinite(t["bound_scale"])  # rho above 1/m
    assert ok.sum() > 10 and np.all(t["risk_at_bound"][ok] <= t["rho"][ok] * (1 + 1e-12))
    # unattainable rho (below 1/m = 1/21 for column b): infinite scales, risk 1/m
    bad = t["rho"] < 1 / t["m"]
    assert bad.any() and np.all(t["bound_scale"][bad] == np.inf) and np.all(t["tight_scale"][bad] == np.inf)


def test_tight_scale_protects_every_neighbour():
    """Mathematics page, section 9: the D' attaining the sensitive range is not the one that
    needs the most noise; the table's tight scale is safe for every D'."""
    data = np.array([6, 6, 0, 4, 3, 2, 3, 3], float)
    dom = di.Domain(0, 7)
    rho = np.array([0.3, 0.5, 0.7])
    t = di.sweep({"x": data}, queries=["std", "median", "mean"], rho=rho, domains={"x": dom}, ddof=0, rtol=0.0)
    for q in ("std", "median", "mean"):
        sel = t["query"] == q
        lam = t["tight_scale"][sel]
        np.testing.assert_array_equal(lam, di.dataset_tight_scale(q, data=data, candidates=dom, rho=rho))
        for i in range(data.size):
            v, c = di.world_values(q, known=np.delete(data, i), candidates=dom)
            assert np.all(di.worst_case_risk(v, scale=lam, counts=c) <= rho)
    _, removed = di.dataset_sensitive_range("std", data=data, candidates=dom, return_removed=True)
    v, c = di.world_values("std", known=np.delete(data, removed[0]), candidates=dom)
    single = di.tight_scale(v, rho=rho, counts=c)
    assert np.all(t["tight_scale"][t["query"] == "std"] > single)  # the old, single-D' answer was unsafe


def test_default_grid_and_pandas(tmp_path):
    data = {"x": np.arange(1.0, 21.0)}
    t = di.sweep(data, queries=["mean"], n_rho=7, calibrations=["bound"], domains={"x": (1, 20)})
    assert len(t) == 7
    assert t["rho"][0] > 1 / 20 and t["rho"][-1] == 0.5
    assert np.all(np.isnan(t["tight_scale"]))
    path = t.to_csv(tmp_path / "out.csv")
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 7 and float(rows[3]["bound_scale"]) == t["bound_scale"][3]
    pd = pytest.importorskip("pandas")
    df = t.to_pandas()
    assert isinstance(df, pd.DataFrame) and df.shape == (7, 16)


def test_sweep_cli_end_to_end(tmp_path):
    src = tmp_path / "d.csv"
    rng = np.random.default_rng(1)
    with open(src, "w") as fh:
        fh.write("age,name,hours\n")
        for a, h in zip(rng.integers(17, 91, 300), rng.integers(1, 100, 300), strict=False):
            fh.write(f"{a},x{a},{h}\n")
    out = tmp_path / "out.csv"
    r = _run("sweep", "--data", str(src), "--out", str(out), "--n-rho", "4", "--quiet")
    assert r.returncode == 0, r.stderr
    with open(out, newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 2 * 3 * 4  # numeric columns age, hours x mean, median, std x 4 rho
    assert {row["column"] for row in rows} == {"age", "hours"}
    assert r.stdout == ""  # --quiet


@pytest.mark.parametrize(
    "extra, word",
    [
        (("--columns", "nope"), "unknown column"),
        (("--columns", "name"), "not numeric"),
        (("--rho", "1.5"), "rho"),
        (("--sizes", "100000"), "size"),
    ],
)
def test_sweep_cli_bad_input(tmp_path, extra, word):
    src = tmp_path / "d.csv"
    src.write_text("age,name\n20,a\n30,b\n40,c\n")
    r = _run("sweep", "--data", str(src), "--out", str(tmp_path / "o.csv"), *extra)
    assert r.returncode == 2
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and word in err[0] and "Traceback" not in r.stderr


def test_sweep_cli_unreadable_file(tmp_path):
    r = _run("sweep", "--data", str(tmp_path / "missing.csv"), "--out", str(tmp_path / "o.csv"))
    assert r.returncode == 2 and "cannot read" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_bad_python_input():
    with pytest.raises(ValueError, match="integer-valued"):
        di.sweep({"x": [0.5, 1.5]})
    with pytest.raises(ValueError, match="calibrations"):
        di.sweep({"x": [1.0, 2.0]}, calibrations=["exact"])
    with pytest.raises(ValueError, match="outside its domain"):
        di.sweep({"x": [1.0, 20.0]}, domains={"x": (0, 10)})


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(domains={"x": (1,)}), ValueError, r"domains\['x'\] must be a Domain or a pair"),
    (dict(seed="a"), TypeError, "seed must be an integer"),
    (dict(seed=-1), ValueError, "seed must be at least 0"),
    (dict(sizes=[2.5]), TypeError, "sizes must be an integer"),
    (dict(n_rho=0, rho=None), ValueError, "n_rho must be at least 1"),
    (dict(column_seed=1.5), TypeError, "column_seed must be an integer"),
    (dict(queries=[]), ValueError, "queries must name at least one"),
])
def test_bad_arguments_are_named(kwargs, exc, match):
    """Each argument of sweep that is wrong is named in the error, before any work."""
    base = dict(queries=["mean"], rho=[0.2], domains={"x": (1, 10)})
    with pytest.raises(exc, match=match):
        di.sweep({"x": np.arange(1.0, 11.0)}, **{**base, **kwargs})


def test_one_query_or_calibration_may_be_given_as_a_string():
    """queries="mean" is the query mean (not its letters), as noise= and risk= take one value."""
    t = di.sweep({"x": np.arange(1.0, 11.0)}, queries="mean", calibrations="bound", rho=[0.2],
                 domains={"x": (1, 10)})
    assert t["query"].tolist() == ["mean"]
    assert np.isnan(t["tight_scale"]).all() and np.isfinite(t["bound_scale"]).all()


def test_adult_sweep(adult):
    t = di.sweep(str(adult_path()), columns=["hours-per-week"], queries=["mean"], rho=[0.1, 0.001],
                 domains={"hours-per-week": (1, 99)})
    assert t["bound_scale"][0] == pytest.approx(8.403207231434116e-4, rel=1e-14)
    assert t["bound_scale"][1] == np.inf and t["tight_scale"][1] == np.inf
    assert t["tight_scale"][0] < t["bound_scale"][0]


@pytest.mark.parametrize("columns, exc, match", [
    ({"a": 1.0}, ValueError, "one-dimensional"),
    ({"a": [[1.0, 2.0]]}, ValueError, "one-dimensional"),
    ({"a": [1.0], "b": [1.0, 2.0]}, ValueError, "unequal"),
    ([("a", [1.0])], TypeError, "mapping"),
])
def test_sweep_table_rejects_bad_columns(columns, exc, match):
    with pytest.raises(exc, match=match):
        di.SweepTable(columns)


@pytest.mark.parametrize("q, margin", [("std", 1e-12), ("mean", 1e-6)])
def test_risk_at_bound_from_structure_is_an_upper_bound_within_its_margin(q, margin):
    """Where the worlds have exact structure (one world attains the worst case
    at every scale; equally spaced) the risk at the bound comes without a
    pass: at least the evaluator's value, within the documented margin."""
    rng = np.random.default_rng(8)
    data = np.minimum(rng.exponential(300.0, 2000).round(), 2999)  # 3000 worlds, skewed
    rho = np.geomspace(1e-3, 0.5, 200)
    t = di.sweep({"x": data}, queries=[q], rho=rho, domains={"x": (0, 2999)})
    _, removed = di.dataset_sensitive_range(q, data=data, candidates=di.Domain(0, 2999), ddof=1,
                                            return_removed=True)
    v, c = di.world_values(q, known=np.delete(data, removed[0]), candidates=di.Domain(0, 2999), ddof=1)
    want = di.worst_case_risk(v, scale=t["bound_scale"], counts=c)
    got = np.asarray(t["risk_at_bound"])
    assert np.all(got >= want)
    assert np.all(got <= want * (1 + margin))
    assert np.any(got > want)  # (the structure gave them, not the evaluator)
