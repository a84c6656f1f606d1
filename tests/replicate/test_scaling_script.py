"""Smoke test of benchmarks/scaling.py (the performance page's scaling plot).

Runs the script's ``main`` in quick mode into a temporary directory and checks
the CSV and the PNG. It checks correctness only (agreement with the
baselines), never speed.
"""
import csv
import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")
pytest.importorskip("scipy")

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "scaling.py"


def load_script():
    spec = importlib.util.spec_from_file_location("_diffident_scaling_script", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("scaling")
    status = load_script().main(["--quick", "--out-dir", str(out)])
    with open(out / "scaling.csv", newline="") as fh:
        reader = csv.DictReader(fh)
        header = reader.fieldnames
        rows = list(reader)
    return status, out, header, rows


def test_exit_status(quick_run):
    status, _, _, _ = quick_run
    assert status == 0


def test_csv_columns_panels_methods(quick_run):
    _, _, header, rows = quick_run
    assert header == ["panel", "method", "m", "seconds", "repeats", "max_rel_diff"]
    assert {r["panel"] for r in rows} == {"worst_case_risk", "log_evidence"}
    for panel in ("worst_case_risk", "log_evidence"):
        methods = {r["method"] for r in rows if r["panel"] == panel}
        assert methods == {"diffident", "scipy", "dense"}


def test_sizes(quick_run):
    _, _, _, rows = quick_run
    for panel in ("worst_case_risk", "log_evidence"):
        sizes = sorted(int(r["m"]) for r in rows
                       if r["panel"] == panel and r["method"] == "diffident")
        assert sizes[0] == 10 and sizes[-1] == 10**4 and len(sizes) >= 5
    # the O(m) log-evidence baselines run at every size
    n = {r["method"]: 0 for r in rows}
    for r in rows:
        if r["panel"] == "log_evidence":
            n[r["method"]] += 1
    assert n["scipy"] == n["dense"] == n["diffident"]


def test_times_positive(quick_run):
    _, _, _, rows = quick_run
    for r in rows:
        assert float(r["seconds"]) > 0.0
        assert int(r["repeats"]) >= 1


def test_values_agree(quick_run):
    _, _, _, rows = quick_run
    checked = 0
    for r in rows:
        if r["method"] != "diffident":
            assert r["max_rel_diff"] != ""  # a baseline row is always compared
        if r["max_rel_diff"] != "":
            assert float(r["max_rel_diff"]) < 1e-9
            checked += 1
    assert checked > 0


def test_png_written(quick_run):
    _, out, _, _ = quick_run
    png = out / "scaling.png"
    assert png.is_file() and png.stat().st_size > 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_mismatch_fails(tmp_path, monkeypatch):
    mod = load_script()
    monkeypatch.setattr(mod, "dense_log_evidence",
                        lambda values, response, scale: 1.0 + mod.np.log(
                            mod.np.sum(mod.np.exp(-mod.np.abs(response - values) / scale))))
    assert mod.main(["--quick", "--max-m", "100", "--out-dir", str(tmp_path)]) == 1
