"""docs/scripts/risk_measures_figure.py (the Concepts page's risk-measures figure).

Runs the script's ``main`` into a temporary directory and checks its CSV
against direct calls of ``worst_case_risk`` and ``expected_risk``, the order
1/m <= expected success <= worst case at every point, and that the committed
CSV file matches a fresh run. Needs matplotlib and the UCI Adult file (a skip
without them; a failure without the file under DIFFIDENT_REQUIRE_DATA=1).
"""
import csv
import importlib.util
from pathlib import Path

import numpy as np
import pytest
from conftest import require_adult

import diffident as di

pytest.importorskip("matplotlib", reason="the figure script draws with matplotlib")

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "docs" / "scripts" / "risk_measures_figure.py"
COMMITTED = ROOT / "docs" / "data" / "risk-measures.csv"
MEASURES = {"worst_case", "expected", "expected_discrete", "prior"}


def load_script():
    spec = importlib.util.spec_from_file_location("_diffident_risk_measures_figure", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def read_csv(path):
    with open(path, newline="") as fh:
        reader = csv.DictReader(fh)
        return reader.fieldnames, list(reader)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    adult = require_adult()
    out = tmp_path_factory.mktemp("risk_measures")
    mod = load_script()
    status = mod.main(["--out", str(out / "fig.png"), "--csv", str(out / "points.csv"),
                       "--adult", str(adult)])
    header, rows = read_csv(out / "points.csv")
    return mod, status, out, header, rows


def series(rows, panel, measure):
    """(epsilon, scale, probability) arrays of one line of one panel."""
    sel = [r for r in rows if r["panel"] == panel and r["measure"] == measure]
    return tuple(np.array([float(r[k]) for r in sel]) for k in ("epsilon", "scale", "probability"))


def worlds(adult):
    """The two panels' world values and lattices, computed here, not by the script."""
    known, candidates = np.array([1.0, 3.0]), np.array([2.0, *range(4, 11)])
    toy, _ = di.world_values("mean", known=known, candidates=candidates)
    hours = adult["hours-per-week"]
    means, counts = di.world_values("mean", known=hours[1:], candidates=di.Domain(1, 99))
    assert np.all(counts == 1)
    return {"toy": (toy, 1 / 3), "adult_hours": (means, 1 / hours.size)}


def test_exit_status_and_png(run):
    _, status, out, _, _ = run
    assert status == 0
    png = out / "fig.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    assert (ROOT / "docs" / "img" / "risk-measures.png").is_file()  # the committed figure


def test_csv_shape(run):
    mod, _, _, header, rows = run
    assert header == mod.COLUMNS
    assert {r["panel"] for r in rows} == {"toy", "adult_hours"}
    for panel in ("toy", "adult_hours"):
        assert {r["measure"] for r in rows if r["panel"] == panel} == MEASURES
        for measure in MEASURES:
            eps, scale, _ = series(rows, panel, measure)
            np.testing.assert_allclose(eps, mod.EPSILON, rtol=1e-15)
            assert np.all(np.diff(eps) > 0)
    assert {r["m"] for r in rows if r["panel"] == "toy"} == {"8"}
    assert {r["m"] for r in rows if r["panel"] == "adult_hours"} == {"99"}


def test_values_match_direct_calls(run, adult):
    _, _, _, _, rows = run
    for panel, (values, g) in worlds(adult).items():
        S = np.ptp(values)
        eps, scale, worst = series(rows, panel, "worst_case")
        np.testing.assert_allclose(scale, S / eps, rtol=1e-14)
        np.testing.assert_allclose(worst, di.worst_case_risk(values, scale=scale), rtol=1e-12)
        # the discrete Laplace's worst case is the same (the legend says so)
        np.testing.assert_allclose(
            worst, di.worst_case_risk(values, scale=scale, noise="discrete_laplace", granularity=g), rtol=1e-9)
        _, _, expected = series(rows, panel, "expected")
        np.testing.assert_allclose(expected, di.expected_risk(values, scale=scale), rtol=1e-12)
        _, _, discrete = series(rows, panel, "expected_discrete")
        np.testing.assert_allclose(
            discrete, di.expected_risk(values, scale=scale, noise="discrete_laplace", granularity=g), rtol=1e-12)
        _, _, prior = series(rows, panel, "prior")
        np.testing.assert_allclose(prior, 1 / values.size, rtol=1e-15)


def test_order_prior_expected_worst(run):
    _, _, _, _, rows = run
    tol = 1e-12
    for panel in ("toy", "adult_hours"):
        _, _, prior = series(rows, panel, "prior")
        _, _, worst = series(rows, panel, "worst_case")
        for measure in ("expected", "expected_discrete"):
            _, _, expected = series(rows, panel, measure)
            assert np.all(prior <= expected * (1 + tol)), (panel, measure)
            assert np.all(expected <= worst * (1 + tol)), (panel, measure)
        # the ends of the range: the prior with most noise, certainty with least
        assert worst[0] < prior[0] * 1.01 and worst[-1] > 0.99


def test_committed_csv_is_current(run):
    _, _, _, header, rows = run
    committed_header, committed = read_csv(COMMITTED)
    assert committed_header == header and len(committed) == len(rows)
    for old, new in zip(committed, rows, strict=True):
        for key in ("panel", "m", "granularity", "measure", "noise"):
            assert old[key] == new[key]
        for key in ("sensitive_range", "epsilon", "scale", "probability"):
            assert float(old[key]) == pytest.approx(float(new[key]), rel=1e-9)
