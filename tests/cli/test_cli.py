"""The diffident command, through its installed entry point."""

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import diffident
import diffident as di

# the diffident under test, also when it is imported from a source tree
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join(
    [os.path.dirname(os.path.dirname(os.path.abspath(diffident.__file__))), os.environ.get("PYTHONPATH", "")]))


def command():
    exe = shutil.which("diffident")
    return [exe] if exe else [sys.executable, "-m", "diffident"]


def run(*args, cwd=None):
    return subprocess.run(command() + list(args), capture_output=True, text=True, timeout=300, env=ENV, cwd=cwd)


def test_calibrate_issue_example():
    r = run("calibrate", "--rho", "0.1", "--worlds", "99", "--range", "0.002006")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    row = next(line for line in lines if line.split() and line.split()[0] == "0.1")
    rho, eps, scale, bound = row.split()[:4]
    assert float(eps) == pytest.approx(2.387742901, rel=1e-9)   # ln(98 * 0.1 / 0.9)
    assert float(scale) == pytest.approx(0.002006 / 2.387742901, rel=1e-9)
    assert float(bound) == pytest.approx(0.1, rel=1e-9)


def test_calibrate_needs_worlds_and_range_and_gives_the_papers_adult_example():
    r = run("calibrate")  # no silent example dataset
    assert r.returncode == 2 and "--worlds" in r.stderr and "--range" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    r = run("calibrate", "--worlds", "99", "--range", repr(98 / 48842))
    assert r.returncode == 0, r.stderr
    assert "0.0008403207232" in r.stdout  # hours-per-week, rho = 0.1 (Table 4), rounded up
    assert "unattainable" in r.stdout     # rho = 0.001 < 1/99


def test_calibrate_prints_on_the_private_side():
    """Ten printed digits are rounded toward privacy: a scale or risk bound
    copied from the table is at least the computed one, an epsilon at
    most (rounding to nearest printed a scale below the calibrated one for
    about half the rows)."""
    rho = np.linspace(0.02, 0.98, 49)
    m, s = 99.0, 98 / 48842
    r = run("calibrate", "--rho", *map(repr, rho.tolist()), "--worlds", "99", "--range", repr(s))
    assert r.returncode == 0, r.stderr
    def numbers(line):
        try:
            return [float(x) for x in line.split()[:4]]
        except ValueError:
            return []

    rows = [row for row in map(numbers, r.stdout.splitlines()) if len(row) == 4]
    assert len(rows) == rho.size
    eps, lam = di.epsilon_for_rho(rho, m=m), di.scale_for_rho(rho, m=m, sensitive_range=s)
    bound = di.risk_bound(lam, m=m, sensitive_range=s)
    printed = np.array([row[1:] for row in rows])
    assert np.all(printed[:, 0] <= eps) and np.all(printed[:, 1] >= lam) and np.all(printed[:, 2] >= bound)
    np.testing.assert_allclose(printed, np.c_[eps, lam, bound], rtol=1e-9)
    assert np.any(printed[:, 1] > lam)  # rounded, not printed in full


def test_main_job_replicates_the_paper(tmp_path):
    """Plain `diffident` is `diffident replicate` on the embedded defaults."""
    r = run("--quiet", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = tmp_path / "diffident-replication"
    assert str(out / "report.md") in r.stdout
    report = (out / "report.md").read_text()
    for number in ("0.2198", "0.0144", "0.0606", "0.4445", "11.513", "8.805", "0.423", "2.1286", "0.2294",
                   "0.6278"):
        assert number in report, number
    for name in ("table4.csv", "fig1_toy_risk.csv", "comparison.csv"):
        assert (out / name).is_file()
    if pytest.importorskip("matplotlib"):
        assert (out / "fig1_toy_risk.png").stat().st_size > 10_000


def test_replicate_bad_data(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("age,workclass\n20,x\n")
    r = run("replicate", "--out", str(tmp_path / "o"), "--data", str(bad))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    r = run("replicate", "--out", str(tmp_path / "o"), "--data", str(tmp_path / "missing.csv"))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "args, word",
    [
        (("calibrate", "-m", "99", "-s", "0.002", "--rho", "1.5"), "rho"),
        (("calibrate", "-m", "99", "-s", "0.002", "--rho", "abc"), "rho"),
        (("calibrate", "-s", "0.002", "--worlds", "0"), "worlds"),
        (("calibrate", "-s", "0.002", "--worlds", "nan"), "worlds"),
        (("calibrate", "-m", "99", "--range", "-1"), "range"),
        (("nonsense",), "invalid choice"),
    ],
)
def test_bad_arguments_one_line_exit_2(args, word):
    r = run(*args)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and word in err[0]


def test_sweep_tight_scale_covers_every_neighbour(tmp_path):
    """The CSV's tight_scale is the every-neighbour calibration, to the digit
    (Mathematics page, section 9: for this std the D' of the sensitive range is not the
    worst)."""
    import csv

    import numpy as np

    data = [6, 6, 0, 4, 3, 2, 3, 3]
    src = tmp_path / "d.csv"
    src.write_text("x\n" + "\n".join(map(str, data)) + "\n")
    out = tmp_path / "o.csv"
    r = run("sweep", "--data", str(src), "--out", str(out), "--queries", "std", "--rho", "0.3", "0.5",
            "--domain", "x=0:7", "--ddof", "0", "--quiet")
    assert r.returncode == 0, r.stderr
    with open(out, newline="") as fh:
        rows = list(csv.DictReader(fh))
    got = np.array([float(row["tight_scale"]) for row in rows])
    want = diffident.dataset_tight_scale("std", data=data, candidates=diffident.Domain(0, 7), rho=[0.3, 0.5],
                                         rtol=1e-12)
    np.testing.assert_array_equal(got, want)
    S = diffident.dataset_sensitive_range("std", data=data, candidates=diffident.Domain(0, 7))
    np.testing.assert_array_equal([float(row["tight_epsilon"]) for row in rows], S / want)


def test_every_option_has_help_text():
    from diffident.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, command in sub.choices.items():
        for action in command._actions:
            assert action.help, f"diffident {name} {'/'.join(action.option_strings)} has no help text"


def test_calibrate_json_has_the_full_floats():
    import json

    rho = [0.5, 0.1, 0.001, 1.0]
    r = run("calibrate", "--worlds", "99", "--range", repr(98 / 48842), "--json", "--rho", *map(repr, rho))
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert got["worlds"] == 99.0 and got["sensitive_range"] == 98 / 48842 and got["min_rho"] == 1 / 99
    rows = got["rows"]
    assert [row["rho"] for row in rows] == rho
    finite = [row["scale"] for row in rows[:2]]
    assert finite == list(diffident.scale_for_rho(rho[:2], m=99, sensitive_range=98 / 48842))  # every bit
    assert rows[2]["scale"] == "inf" and rows[2]["status"] == "unattainable" and rows[2]["epsilon"] == 0.0
    assert rows[3]["scale"] == 0.0 and rows[3]["epsilon"] == "inf" and rows[3]["status"] == "no noise needed"
