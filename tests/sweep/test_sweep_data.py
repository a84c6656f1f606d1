"""Data into sweep: frames keep their names, domains are never silently wrong, missing values are named."""

import shutil
import subprocess
import sys
import warnings

import numpy as np
import pytest

import diffident as di

AGES = np.array([17.0, 23.0, 30.0, 30.0, 45.0, 61.0, 90.0])
KW = dict(queries=["mean", "median"], rho=[0.05, 0.3])


def _run(*args):
    exe = shutil.which("diffident")
    cmd = [exe, *args] if exe else [sys.executable, "-m", "diffident", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def _same(t1, t2):
    assert list(t1) == list(t2)
    for k in t1:
        if t1[k].dtype == object:
            assert list(t1[k]) == list(t2[k]), k
        else:
            np.testing.assert_array_equal(t1[k], t2[k], err_msg=k)


def _no_warnings(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return fn(*args, **kwargs)


# ---------------------------------------------------------------- data frames


def test_dataframe_keeps_column_names_and_domains():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"age": AGES, "other": AGES + 1})
    # the bug this fixes: the column was renamed "0", the domain ignored and
    # the calibration made on the observed 17..90
    t = _no_warnings(di.sweep, df[["age"]], domains={"age": (0, 120)}, **KW)
    assert set(t["column"]) == {"age"}
    assert np.all(t["m"] == 121) and set(t["domain_source"]) == {"given"}
    _same(t, _no_warnings(di.sweep, {"age": AGES}, domains={"age": (0, 120)}, **KW))
    t2 = _no_warnings(di.sweep, df, columns=["age"], domains={"age": (0, 120)}, **KW)
    _same(t, t2)


def test_series_in_keeps_its_name():
    pd = pytest.importorskip("pandas")
    t = _no_warnings(di.sweep, pd.Series(AGES, name="age"), domains={"age": (0, 120)}, **KW)
    assert set(t["column"]) == {"age"}
    t = _no_warnings(di.sweep, pd.Series(AGES), domains={"0": (0, 120)}, **KW)
    assert set(t["column"]) == {"0"}


def test_arrow_table():
    pa = pytest.importorskip("pyarrow")
    expected = _no_warnings(di.sweep, {"age": AGES}, domains={"age": (0, 120)}, **KW)
    _same(_no_warnings(di.sweep, pa.table({"age": AGES}), domains={"age": (0, 120)}, **KW), expected)


@pytest.mark.parametrize("protocol", ["__arrow_c_stream__", "__dataframe__"])
def test_objects_that_offer_only_a_protocol(protocol):
    pa = pytest.importorskip("pyarrow")
    expected = _no_warnings(di.sweep, {"age": AGES}, domains={"age": (0, 120)}, **KW)
    table = pa.table({"age": AGES})

    class Only:  # anything that offers only the one protocol
        pass

    setattr(Only, protocol, lambda self, *args, **kwargs: getattr(table, protocol)(*args, **kwargs))
    _same(_no_warnings(di.sweep, Only(), domains={"age": (0, 120)}, **KW), expected)


def test_polars_frame():
    pl = pytest.importorskip("polars")
    expected = _no_warnings(di.sweep, {"age": AGES}, domains={"age": (0, 120)}, **KW)
    _same(_no_warnings(di.sweep, pl.DataFrame({"age": AGES}), domains={"age": (0, 120)}, **KW), expected)


# -------------------------------------------------------------------- domains


def test_unknown_domain_key_lists_the_columns():
    with pytest.raises(ValueError, match=r"'agee'.*age, hours"):
        di.sweep({"age": AGES, "hours": AGES}, domains={"agee": (18, 90)}, **KW)


def test_inferred_domain_warns_names_bounds_and_is_recorded():
    with pytest.warns(di.InferredDomainWarning, match=r"'age': 17\.\.90"):
        t = di.sweep({"age": AGES}, **KW)
    assert np.all(t["m"] == 74) and set(t["domain_source"]) == {"inferred"}
    # asked for: the same table, no warning
    _same(_no_warnings(di.sweep, {"age": AGES}, infer_domains=True, **KW), t)
    with pytest.raises(ValueError, match=r"column 'age' has no domain"):
        di.sweep({"age": AGES}, infer_domains=False, **KW)
    with pytest.raises(TypeError, match="infer_domains"):
        di.sweep({"age": AGES}, infer_domains="yes", **KW)


def test_only_the_columns_without_a_domain_are_inferred():
    with pytest.warns(di.InferredDomainWarning) as rec:
        t = di.sweep({"age": AGES, "hours": AGES}, domains={"hours": (0, 99)}, **KW)
    assert len(rec) == 1 and "'age'" in str(rec[0].message) and "'hours'" not in str(rec[0].message)
    assert set(t["domain_source"][t["column"] == "age"]) == {"inferred"}
    assert set(t["domain_source"][t["column"] == "hours"]) == {"given"}


# -------------------------------------------------------- skipped and missing


def test_skipped_columns_are_named_with_the_reason():
    data = {"age": AGES, "name": np.array(list("abcdefg")), "income": np.where(AGES > 40, np.nan, AGES)}
    with pytest.warns(di.SkippedColumnWarning, match=r"'name' \(not numeric\).*'income' \(has 3 missing values"):
        t = di.sweep(data, domains={"age": (0, 120)}, **KW)
    assert set(t["column"]) == {"age"}


def test_missing_values_are_counted_not_called_non_numeric():
    ages = np.where(AGES > 40, np.nan, AGES)
    with pytest.raises(ValueError, match=r"column 'age' has 3 missing values; pass dropna=True"):
        di.sweep({"age": ages}, columns=["age"], domains={"age": (0, 120)}, **KW)
    t = _no_warnings(di.sweep, {"age": ages}, columns=["age"], domains={"age": (0, 120)}, dropna=True, **KW)
    _same(t, _no_warnings(di.sweep, {"age": ages[~np.isnan(ages)]}, domains={"age": (0, 120)}, **KW))
    assert np.all(t["n"] == 4)


def test_pandas_missing_markers():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"age": pd.array([17, None, 30, 45, None], dtype="Int64")})
    with pytest.raises(ValueError, match="has 2 missing values"):
        di.sweep(df, columns=["age"], domains={"age": (0, 120)}, **KW)
    t = _no_warnings(di.sweep, df, domains={"age": (0, 120)}, dropna=True, **KW)
    _same(t, _no_warnings(di.sweep, {"age": np.array([17.0, 30.0, 45.0])}, domains={"age": (0, 120)}, **KW))


def test_csv_missing_cells(tmp_path):
    src = tmp_path / "d.csv"
    src.write_text("age,hours\n17,40\n,38\n30,NA\n45,20\nNA,60\n")
    with pytest.raises(ValueError, match="column 'age' has 2 missing values"):
        di.sweep(str(src), columns=["age"], domains={"age": (0, 120)}, **KW)
    with pytest.warns(di.SkippedColumnWarning, match=r"'age' \(has 2 missing.*'hours' \(has 1 missing"):
        with pytest.raises(ValueError, match="no numeric column"):
            di.sweep(str(src), domains={"age": (0, 120)}, **KW)
    t = _no_warnings(di.sweep, str(src), domains={"age": (0, 120), "hours": (0, 99)}, dropna=True, **KW)
    ages = t["n"][t["column"] == "age"]
    hours = t["n"][t["column"] == "hours"]
    assert np.all(ages == 3) and np.all(hours == 4)


# ----------------------------------------------------------------------- CLI


def test_cli_unknown_domain_key(tmp_path):
    src = tmp_path / "d.csv"
    src.write_text("age,hours\n17,40\n30,38\n45,20\n")
    r = _run("sweep", "--data", str(src), "--out", str(tmp_path / "o.csv"), "--domain", "agee=18:90")
    assert r.returncode == 2
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and "agee" in err[0] and "age, hours" in err[0]


def test_cli_warnings_are_one_line_each_and_can_be_accepted(tmp_path):
    src = tmp_path / "d.csv"
    src.write_text("age,name\n17,a\n30,b\n45,c\n")
    out = tmp_path / "o.csv"
    r = _run("sweep", "--data", str(src), "--out", str(out), "--quiet", "--rho", "0.3")
    assert r.returncode == 0, r.stderr
    err = r.stderr.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("diffident: warning: ") for line in err)
    assert "'name' (not numeric)" in r.stderr and "'age': 17..45" in r.stderr
    r = _run("sweep", "--data", str(src), "--out", str(out), "--quiet", "--rho", "0.3", "--infer-domains",
             "--columns", "age")
    assert r.returncode == 0 and r.stderr == ""
    assert "inferred" in out.read_text()


def test_series_into_the_world_functions():
    pd = pytest.importorskip("pandas")
    s = pd.Series(AGES, name="age")
    dom = di.Domain(0, 120)
    assert di.dataset_sensitive_range("median", data=s,
                                      candidates=dom) == di.dataset_sensitive_range("median", data=AGES, candidates=dom)
    v1, c1 = di.world_values("mean", known=s, candidates=dom)
    v2, c2 = di.world_values("mean", known=AGES, candidates=dom)
    np.testing.assert_array_equal(v1, v2)
    np.testing.assert_array_equal(c1, c2)
    with pytest.raises(ValueError, match=r"data must be finite.*index 1"):
        di.dataset_sensitive_range("mean", data=pd.Series([17, None, 30], dtype="Int64"), candidates=dom)


# ------------------------------------------------------------------ results out


def _small_table():
    return di.sweep({"age": AGES}, domains={"age": (0, 120)}, queries=["mean"], rho=[0.001, 0.05, 0.3])


def test_table_is_a_read_only_dict_that_pandas_reads():
    pd = pytest.importorskip("pandas")
    t = _small_table()
    df = pd.DataFrame(t)
    assert df.shape == (3, len(t.keys())) and list(df.columns) == list(t.keys())
    np.testing.assert_array_equal(df["tight_scale"].to_numpy(), t["tight_scale"])
    for change in (lambda: t.__setitem__("rho", 1), lambda: t.pop("rho"), lambda: t.update({}), t.clear):
        with pytest.raises(TypeError, match="read-only"):
            change()
    assert list(t) == list(t.keys()) and len(t) == 3
    import copy
    import pickle

    for back in (pickle.loads(pickle.dumps(t)), copy.deepcopy(t)):
        assert isinstance(back, di.SweepTable) and list(back) == list(t)
        np.testing.assert_array_equal(back["tight_scale"], t["tight_scale"])


def test_csv_and_json_to_buffers_round_trip_exactly():
    import io
    import json

    t = _small_table()
    assert np.isinf(t["bound_scale"][0])  # rho below 1/m: an infinity to carry
    buf = t.to_csv(io.StringIO())
    lines = buf.getvalue().splitlines()
    assert lines[0].split(",") == list(t.keys()) and len(lines) == 4
    records = json.loads(t.to_json(io.StringIO()).getvalue())
    assert [r["column"] for r in records] == ["age"] * 3
    assert records[0]["bound_scale"] == "inf"
    assert [r["tight_scale"] for r in records[1:]] == t["tight_scale"][1:].tolist()  # every bit


def test_parquet_round_trip(tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    t = _small_table()
    back = pd.read_parquet(t.to_parquet(tmp_path / "t.parquet"))
    np.testing.assert_array_equal(back["tight_scale"].to_numpy(), t["tight_scale"])
    assert back["domain_source"].tolist() == ["given"] * 3


def test_to_xarray_named_dimensions_hold_every_row():
    xr = pytest.importorskip("xarray")
    data = {"hours": np.arange(1.0, 41.0), "age": np.arange(17.0, 57.0)}
    t = di.sweep(data, queries=["median", "mean"], rho=[0.3, 0.05, 0.5], sizes=[20, 40],
                 domains={"hours": (1, 99), "age": (0, 120)}, noise=["laplace", "discrete_laplace"],
                 risk=["worst", "expected"])
    ds = t.to_xarray()
    assert isinstance(ds, xr.Dataset)
    assert dict(ds.sizes) == {"column": 2, "query": 2, "n": 2, "noise": 2, "risk": 2, "rho": 3, "calibration": 2}
    assert ds["column"].values.tolist() == ["hours", "age"]  # the table's order, not sorted
    assert ds["query"].values.tolist() == ["median", "mean"]
    assert ds["m"].values.tolist() == [99.0, 121.0] and ds["domain_source"].values.tolist() == ["given"] * 2
    assert ds["scale"].dims == ("column", "query", "n", "noise", "risk", "rho", "calibration")
    assert ds["sensitive_range"].dims == ("column", "query", "n", "noise", "risk", "rho")
    for i in range(len(t)):
        at = dict(column=t["column"][i], query=t["query"][i], n=t["n"][i], noise=t["noise"][i], risk=t["risk"][i],
                  rho=t["rho"][i])
        for cal in ("bound", "tight"):
            cell = ds.sel(**at, calibration=cal)
            assert float(cell["scale"]) == t[f"{cal}_scale"][i]  # every bit
            assert float(cell["epsilon"]) == t[f"{cal}_epsilon"][i]
        assert ds["status"].sel(**at, calibration="tight").item() == t["status"][i]
        assert float(ds["risk_at_bound"].sel(**at)) == t["risk_at_bound"][i]
        np.testing.assert_array_equal(float(ds["granularity"].sel(**at)), t["granularity"][i])


def test_to_xarray_union_of_rho_grids_and_one_calibration():
    pytest.importorskip("xarray")
    data = {"a": np.arange(1.0, 11.0), "b": np.arange(1.0, 11.0)}
    t = di.sweep(data, queries=["mean"], n_rho=4, calibrations=["bound"], domains={"a": (1, 10), "b": (1, 30)})
    ds = t.to_xarray()
    assert ds["calibration"].values.tolist() == ["bound"]  # tight not computed: not a NaN layer
    assert ds.sizes["rho"] == 7  # the two default grids share only rho = 0.5
    a = ds["scale"].sel(column="a", query="mean", n=10, calibration="bound")
    assert int(np.isfinite(a).sum()) == 4 and int(np.isnan(a).sum()) == 3
    # the bound's own status: rho above 1/m is calibrated
    status = ds["status"].sel(column="a", query="mean", n=10, calibration="bound").values
    assert status[np.isfinite(a.values)].tolist() == ["calibrated"] * 4
    assert all(isinstance(v, float) and np.isnan(v) for v in status[np.isnan(a.values)])


def test_to_xarray_refuses_what_is_not_a_grid():
    pytest.importorskip("xarray")
    with pytest.raises(ValueError, match="missing"):
        di.SweepTable({"rho": [0.1, 0.2]}).to_xarray()
    t = di.sweep({"x": np.arange(1.0, 11.0)}, queries=["mean"], rho=[0.2, 0.2], domains={"x": (1, 10)})
    with pytest.raises(ValueError, match="repeats a grid point"):
        t.to_xarray()


def test_html_repr_for_notebooks():
    t = _small_table()
    html = t._repr_html_()
    assert html.startswith("<table>") and "<th>tight_scale</th>" in html and "3 rows" in html
    big = di.SweepTable({"x": np.arange(50.0)})._repr_html_()
    assert big.count("<tr>") == 1 + 21 and "<td>49.0</td>" in big


def test_cli_output_format_from_the_extension(tmp_path):
    src = tmp_path / "d.csv"
    src.write_text("age\n17\n30\n45\n90\n")
    args = ["--data", str(src), "--domain", "age=0:120", "--queries", "mean", "--rho", "0.3", "--quiet"]
    r = _run("sweep", *args, "--out", str(tmp_path / "o.json"))
    assert r.returncode == 0, r.stderr
    import json

    records = json.loads((tmp_path / "o.json").read_text())
    assert len(records) == 1 and records[0]["column"] == "age" and records[0]["domain_source"] == "given"
    for bad in ("o.txt", "o"):
        r = _run("sweep", *args, "--out", str(tmp_path / bad))
        err = r.stderr.strip().splitlines()
        assert r.returncode == 2 and len(err) == 1 and ".csv, .json, .parquet" in err[0]


def test_cli_unwritable_output_is_one_line(tmp_path):
    src = tmp_path / "d.csv"
    src.write_text("age\n17\n30\n45\n90\n")
    (tmp_path / "dir.csv").mkdir()
    r = _run("sweep", "--data", str(src), "--domain", "age=0:120", "--queries", "mean", "--rho", "0.3",
             "--out", str(tmp_path / "dir.csv"))
    err = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(err) == 1 and "dir.csv" in err[0] and "Traceback" not in r.stderr


def test_status_tells_the_opposite_zeros_apart():
    # the count's sensitive range is 0; the mean's is not
    t = di.sweep({"age": AGES}, domains={"age": (0, 120)}, queries=["mean", "count"], rho=[0.001, 0.05, 1.0])
    mean = t["query"] == "mean"
    assert t["status"][mean].tolist() == ["unattainable", "calibrated", "no noise needed"]
    assert np.isinf(t["tight_scale"][mean][0]) and t["tight_epsilon"][mean][0] == 0.0
    assert t["tight_scale"][mean][2] == 0.0
    assert set(t["status"][~mean]) == {"zero sensitive range"} and np.all(t["tight_epsilon"][~mean] == 0.0)
    b = di.sweep({"age": AGES}, domains={"age": (0, 120)}, queries=["mean"], rho=[0.001, 0.05],
                 calibrations=["bound"])
    assert b["status"].tolist() == ["unattainable", "calibrated"]


def test_quantile_queries_in_the_sweep_and_the_cli(tmp_path):
    dom = di.Domain(0, 120)
    t = _no_warnings(di.sweep, {"age": AGES}, domains={"age": (0, 120)}, queries=["quantile"], q=0.9, rho=[0.3],
                     rtol=0.0)
    assert t["query"].tolist() == ["quantile"]
    assert t["sensitive_range"][0] == di.dataset_sensitive_range("quantile", data=AGES, candidates=dom, q=0.9, ddof=1)
    np.testing.assert_array_equal(t["tight_scale"], di.dataset_tight_scale("quantile", data=AGES, candidates=dom,
                                                                           rho=[0.3], q=0.9))
    src = tmp_path / "d.csv"
    src.write_text("age\n" + "\n".join(str(int(a)) for a in AGES) + "\n")
    out = tmp_path / "o.csv"
    r = _run("sweep", "--data", str(src), "--out", str(out), "--domain", "age=0:120", "--queries", "quantile",
             "--q", "0.9", "--rho", "0.3", "--quiet")  # (the CLI sweeps with rtol 1e-12)
    assert r.returncode == 0, r.stderr
    import csv

    with open(out, newline="") as fh:
        row = next(csv.DictReader(fh))
    assert row["query"] == "quantile"
    assert float(row["tight_scale"]) == pytest.approx(t["tight_scale"][0], rel=1e-11)
