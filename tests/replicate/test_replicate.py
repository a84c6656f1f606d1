"""The paper's replication (diffident.replicate): files, report contents, CSV
values against direct engine calls, real data, bad data, no matplotlib."""

import csv
import importlib.util
import math
import os
import sys

import numpy as np
import pytest
from conftest import require_adult

import diffident as di
from diffident import replicate as rep

HAVE_MPL = importlib.util.find_spec("matplotlib") is not None


def read_csv(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def embedded(tmp_path_factory):
    out = tmp_path_factory.mktemp("replicate")
    result = rep.run(out, seed=0)
    return out, result


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    path = require_adult()
    out = tmp_path_factory.mktemp("replicate_adult")
    return out, rep.run(out, data=path, seed=0), path


# --- embedded defaults -------------------------------------------------------


def test_files_exist(embedded):
    out, r = embedded
    assert r["report"] == str(out / "report.md") and (out / "report.md").is_file()
    assert r["source"] == "embedded defaults (synthetic rows)"
    names = {os.path.basename(p) for p in r["tables"]}
    for name in ("table2_toy_worlds.csv", "fig1_toy_risk.csv", "fig_tight_epsilon.csv", "table4.csv",
                 "table4_tight.csv", "fig2_noise_ratio.csv", "fig3_noise_ratio_epsilon.csv", "fig4_db_size.csv",
                 "comparison.csv"):
        assert name in names
    for p in r["tables"]:
        assert os.path.getsize(p) > 0
    assert r["plots"] is HAVE_MPL
    if HAVE_MPL:
        figs = {os.path.basename(p) for p in r["figures"]}
        assert figs == {"fig1_toy_risk.png", "fig_tight_epsilon.png", "fig2_noise_ratio.png",
                        "fig3_noise_ratio_epsilon.png", "fig4_db_size.png"}
        for p in r["figures"]:
            with open(p, "rb") as fh:
                assert fh.read(8) == b"\x89PNG\r\n\x1a\n"
    # the report links every file it wrote
    text = (out / "report.md").read_text()
    for p in r["tables"] + r["figures"]:
        assert f"({os.path.basename(p)})" in text


def test_report_holds_the_papers_numbers(embedded):
    out, r = embedded
    text = (out / "report.md").read_text()
    # Table 4 mean scales (paper and ours), Figure 3 epsilons, the toy example
    for s in ("0.2198", "0.0144", "0.0606", "0.4445", "0.00084032", "8.403207231434116e-4",
              "11.513", "8.805", "6.669", "4.582", "2.502", "0.423",
              "2.1286", "0.2294", "2.6667", "0.6278", "seed 0", "synthetic"):
        assert s in text, s
    # the std column is reported as not reproducible, nothing is 'different'
    assert r["summary"].get("not reproducible") == 5
    assert r["summary"].get("different", 0) == 0
    assert r["summary"]["equal"] >= 30
    rows = read_csv(out / "comparison.csv")
    by = {row["item"]: row for row in rows}
    assert by["capital-gain: scale of the mean at rho = 0.1"]["status"] == "equal"
    assert by["age: scale of the mean at rho = 0.001"]["ours"] == "inf"
    assert by["toy S(mean)"]["status"] == "equal"
    assert all(row["status"] == "not reproducible" for row in rows if "S(std), max" in row["item"])


def test_toy_csvs_equal_engine_calls(embedded):
    out, _ = embedded
    t2 = read_csv(out / "table2_toy_worlds.csv")
    means = np.array([float(r["mean"]) for r in t2])
    assert means.tolist() == pytest.approx([2, 8 / 3, 3, 10 / 3, 11 / 3, 4, 13 / 3, 14 / 3], rel=1e-15)
    assert [float(r["median"]) for r in t2] == [2, 3, 3, 3, 3, 3, 3, 3]
    rows = read_csv(out / "fig1_toy_risk.csv")
    med = np.array([float(r["median"]) for r in t2])
    for q, vals in (("mean", means), ("median", med)):
        rr = [r for r in rows if r["query"] == q]
        rho = np.array([float(r["rho"]) for r in rr])
        s = float(rr[0]["sensitive_range"])
        assert s == di.sensitive_range(q, known=[1, 3], candidates=[2, 4, 5, 6, 7, 8, 9, 10])
        lam = di.scale_for_rho(rho, m=8, sensitive_range=s)
        assert np.array_equal([float(r["paper_scale"]) for r in rr], lam)
        assert np.array_equal([float(r["worst_case_risk"]) for r in rr], di.worst_case_risk(vals, scale=lam))
        assert np.array_equal([float(r["risk_bound"]) for r in rr], di.risk_bound(lam, m=8, sensitive_range=s))
    tight = read_csv(out / "fig_tight_epsilon.csv")
    for q, vals in (("mean", means), ("median", med)):
        rr = [r for r in tight if r["query"] == q]
        rho = np.array([float(r["rho"]) for r in rr])
        assert np.array_equal([float(r["tight_epsilon"]) for r in rr], di.tight_epsilon(vals, rho=rho))
        assert np.array_equal([float(r["paper_epsilon"]) for r in rr], di.epsilon_for_rho(rho, m=8))
    third = [r for r in tight if r["query"] == "mean" and abs(float(r["rho"]) - 1 / 3) < 1e-15][0]
    assert float(third["tight_epsilon"]) == pytest.approx(2.249596594583695, rel=1e-12)


def test_table4_csv_equals_engine_calls(embedded):
    out, _ = embedded
    rows = read_csv(out / "table4.csv")
    synth = rep.synthetic_rows(0)
    assert len(rows) == 5 * 2 * 2
    for r in rows:
        col, lo, hi, m, n = r["attribute"], int(r["lo"]), int(r["hi"]), int(r["m"]), int(r["n"])
        assert (lo, hi) == rep.DOMAINS[col] and m == hi - lo + 1 and n == 48842
        rho = float(r["rho"])
        if r["query"] == "mean":
            s = (hi - lo) / n
            assert float(r["true_value"]) == float(rep.PAPER_MEAN[col])
        else:
            s = di.dataset_sensitive_range("std", data=synth[col], candidates=di.Domain(lo, hi), ddof=1)
            assert r["rows"] == "synthetic"
        assert float(r["sensitive_range"]) == s
        lam = di.scale_for_rho(rho, m=m, sensitive_range=s)
        assert float(r["scale"]) == lam
        assert float(r["epsilon"]) == di.epsilon_for_rho(rho, m=m)
        resp = [float(r[f"response_{i}"]) for i in (1, 2, 3)]
        if math.isinf(lam):
            assert all(math.isinf(x) for x in resp)
        else:
            # Laplace draws: within 40 scales of the truth (probability ~1e-17 to fail)
            assert all(abs(x - float(r["true_value"])) < 40 * lam for x in resp)
            assert len(set(resp)) == 3
    tight = read_csv(out / "table4_tight.csv")
    for r in tight:
        col = r["attribute"]
        lo, hi = rep.DOMAINS[col]
        known = np.delete(synth[col], int(r["removed_index"]))
        ddof = 1 if r["query"] == "std" else 0
        vals, cnt = di.world_values(r["query"], known=known, candidates=di.Domain(lo, hi), ddof=ddof)
        rho = float(r["rho"])
        assert float(r["tight_scale"]) == di.tight_scale(vals, rho=rho, counts=cnt)
        if r["query"] == "std":
            # the range of that D''s float world values; dataset_sensitive_range
            # forms it without their cancellation: equal to the values' rounding
            assert float(r["sensitive_range"]) == pytest.approx(
                di.dataset_sensitive_range("std", data=synth[col], candidates=di.Domain(lo, hi), ddof=1), rel=1e-11)
        lam_p = float(r["paper_scale"])
        # the adversary's expected success there: at most the worst case, at least the prior's 1/m
        expected = float(r["expected_success_at_paper_scale"])
        assert expected == di.expected_risk(vals, scale=lam_p, counts=cnt)
        assert 1 / cnt.sum() <= expected <= float(r["worst_case_risk_at_paper_scale"])
        if math.isfinite(lam_p):  # the paper's bound is conservative: the exact risk is below rho
            assert float(r["worst_case_risk_at_paper_scale"]) <= rho
            assert float(r["tight_scale"]) <= lam_p
            assert float(r["worst_case_risk_at_tight_scale"]) <= rho
        else:  # rho < 1/m: neither calibration can reach it
            assert math.isinf(float(r["tight_scale"])) and rho < 1 / int(r["m"])


def test_noise_ratio_csvs(embedded):
    out, _ = embedded
    s2 = read_csv(out / "fig2_noise_ratio.csv")
    d2 = {(r["attribute"], r["k"]): np.array([float(r[f"r{i}"]) for i in range(rep.DRAWS)])
          for r in read_csv(out / "fig2_noise_ratio_draws.csv")}
    assert len(s2) == 5 * 6
    for r in s2:
        col = r["attribute"]
        lo, hi = rep.DOMAINS[col]
        rho = float(r["rho"])
        assert rho == 0.5 / 8 ** int(r["k"])
        lam = di.scale_for_rho(rho, m=hi - lo + 1, sensitive_range=(hi - lo) / 48842)
        assert float(r["scale"]) == lam
        releasable = r["releasable"] == "true"
        assert releasable == math.isfinite(lam)
        if releasable:
            d = d2[(col, r["k"])]
            assert float(r["median"]) == np.percentile(d, 50)
            # |Laplace(lam)| / mean has mean lam / mean: 1000 draws, within 20%
            assert np.mean(d) == pytest.approx(lam / float(rep.PAPER_MEAN[col]), rel=0.2)
        else:
            assert (col, r["k"]) not in d2
    s3 = read_csv(out / "fig3_noise_ratio_epsilon.csv")
    cg = [r for r in s3 if r["attribute"] == "capital-gain"]
    assert [f"{float(r['epsilon']):.3f}" for r in cg] == list(rep.PAPER_FIG3_EPS)
    s4 = read_csv(out / "fig4_db_size.csv")
    assert {int(r["size"]) for r in s4} == set(rep.FIG4_SIZES)
    for r in s4:
        lo, hi = rep.DOMAINS[r["attribute"]]
        size = int(r["size"])
        s = (hi - lo) / size if r["query"] == "mean" else float(hi - lo)
        assert float(r["sensitive_range"]) == s
        assert float(r["scale"]) == di.scale_for_rho(float(r["rho"]), m=hi - lo + 1, sensitive_range=s)


def test_same_seed_same_output_and_no_matplotlib(embedded, tmp_path, monkeypatch):
    out, _ = embedded
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    r = rep.run(tmp_path, seed=0)
    assert r["plots"] is False and r["figures"] == []
    assert not list(tmp_path.glob("*.png"))
    assert any("matplotlib" in n for n in r["notes"])
    text = (tmp_path / "report.md").read_text()
    assert "not drawn (matplotlib is not available)" in text
    for name in ("table4.csv", "fig2_noise_ratio_draws.csv", "fig4_db_size.csv", "comparison.csv"):
        assert (tmp_path / name).read_bytes() == (out / name).read_bytes()


def test_seed_changes_the_draws(tmp_path):
    a = rep.synthetic_rows(0)
    b = rep.synthetic_rows(1)
    assert not np.array_equal(a["age"], b["age"])
    for col in rep.ATTRIBUTES:
        lo, hi = rep.DOMAINS[col]
        x = a[col]
        assert x.size == 48842 and x.min() >= lo and x.max() <= hi and np.all(x == np.round(x))
        assert x.mean() == pytest.approx(float(rep.PAPER_MEAN[col]), rel=0.35)
        assert x.std(ddof=1) == pytest.approx(float(rep.PAPER_STD[col]), rel=0.35)


# --- the Adult data ------------------------------------------------------------


def test_real_data(real):
    out, r, path = real
    assert r["source"] == f"Adult data at {path}"
    text = (out / "report.md").read_text()
    for s in ("0.2198", "0.0144", "0.00084032", "13.4549", "0.4631", "11.513", "0.423", "2.1286", "0.2294"):
        assert s in text, s
    assert "synthetic" not in (out / "table4.csv").read_text()
    assert r["summary"].get("not reproducible") == 5
    rows = {row["item"]: row for row in read_csv(out / "comparison.csv")}
    assert rows["Adult n (data rows)"]["status"] == "equal"
    assert rows["capital-gain: mean"]["status"] == "equal"
    assert rows["capital-gain: S(std) exact on the Adult rows"]["status"] == "equal"
    # every 'different' line says why
    assert all(row["note"] for row in rows.values() if row["status"] == "different")
    data = rep.load_adult(path)
    for row in read_csv(out / "table4.csv"):
        col = row["attribute"]
        lo, hi = rep.DOMAINS[col]
        if row["query"] == "std":
            assert float(row["true_value"]) == data[col].std(ddof=1)
            assert float(row["sensitive_range"]) == di.dataset_sensitive_range("std", data=data[col],
                                                                               candidates=di.Domain(lo, hi),
                                                                               ddof=1)
        else:
            assert float(row["true_value"]) == data[col].mean()


# --- bad data ------------------------------------------------------------------

GOOD_HEADER = "age,workclass,educational-num,capital-gain,capital-loss,hours-per-week"


def _write(tmp_path, text, name="d.csv"):
    p = tmp_path / name
    p.write_text(text)
    return p


def _one_line_error(tmp_path, data, match):
    with pytest.raises(ValueError, match=match) as exc:
        rep.run(tmp_path / "out", data=data)
    assert "\n" not in str(exc.value)
    assert not (tmp_path / "out" / "report.md").exists()


def test_unreadable_file(tmp_path):
    _one_line_error(tmp_path, tmp_path / "absent.csv", "cannot read")
    _one_line_error(tmp_path, tmp_path, "cannot read")  # a directory
    p = tmp_path / "bin.csv"
    p.write_bytes(b"\xff\xfe\x00\x81" * 10)
    _one_line_error(tmp_path, p, "cannot read|lacks")


def test_missing_column(tmp_path):
    p = _write(tmp_path, "age,workclass,educational-num,capital-gain,hours-per-week\n25,x,7,0,40\n30,y,9,0,50\n")
    _one_line_error(tmp_path, p, "lacks the column.*capital-loss")


def test_non_numeric_column(tmp_path):
    p = _write(tmp_path, GOOD_HEADER + "\n25,x,7,0,0,40\n30,y,nine,0,0,50\n")
    _one_line_error(tmp_path, p, "column 'educational-num' .* not numeric")


def test_out_of_domain_and_too_few_rows(tmp_path):
    p = _write(tmp_path, GOOD_HEADER + "\n25,x,7,0,0,40\n130,y,9,0,0,50\n")
    _one_line_error(tmp_path, p, "column 'age' .*17..90")
    p = _write(tmp_path, GOOD_HEADER + "\n25,x,7,0,0,40\n30,y,9.5,0,0,50\n", "frac.csv")
    _one_line_error(tmp_path, p, "whole numbers")
    p = _write(tmp_path, GOOD_HEADER + "\n25,x,7,0,0,40\n", "one.csv")
    _one_line_error(tmp_path, p, "at least 2")


def test_bad_seed(tmp_path):
    for seed in (-1, 1.5, "0", True):
        with pytest.raises(ValueError, match="seed"):
            rep.run(tmp_path, seed=seed)


def test_small_file_runs(tmp_path):
    rng = np.random.default_rng(5)
    lines = [GOOD_HEADER]
    for _ in range(1500):
        lines.append(f"{rng.integers(17, 91)},x,{rng.integers(1, 17)},{rng.integers(0, 3) * 1000},"
                     f"{rng.integers(0, 2) * 100},{rng.integers(1, 100)}")
    p = _write(tmp_path, "\n".join(lines) + "\n")
    r = rep.run(tmp_path / "out", data=p, seed=3)
    assert any("10000 rows cannot be sampled" in n for n in r["notes"])
    rows = read_csv(tmp_path / "out" / "table4.csv")
    assert {int(row["n"]) for row in rows} == {1500}
    text = (tmp_path / "out" / "report.md").read_text()
    assert "Adult n (data rows)" in text
