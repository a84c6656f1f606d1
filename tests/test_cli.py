"""The diffident command, through its installed entry point."""

import shutil
import subprocess
import sys

import pytest


def run(*args):
    exe = shutil.which("diffident")
    cmd = [exe, *args] if exe else [sys.executable, "-m", "diffident", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def test_calibrate_issue_example():
    r = run("calibrate", "--rho", "0.1", "--worlds", "99", "--range", "0.002006")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    row = next(line for line in lines if line.split() and line.split()[0] == "0.1")
    rho, eps, scale, bound = row.split()[:4]
    assert float(eps) == pytest.approx(2.387742901, rel=1e-9)   # ln(98 * 0.1 / 0.9)
    assert float(scale) == pytest.approx(0.002006 / 2.387742901, rel=1e-9)
    assert float(bound) == pytest.approx(0.1, rel=1e-9)


def test_defaults_are_the_papers_adult_example():
    r = run()
    assert r.returncode == 0, r.stderr
    assert "0.0008403207231" in r.stdout  # hours-per-week, rho = 0.1 (Table 4)
    assert "unattainable" in r.stdout     # rho = 0.001 < 1/99
    r2 = run("calibrate")
    assert r2.stdout == r.stdout


@pytest.mark.parametrize(
    "args, word",
    [
        (("calibrate", "--rho", "1.5"), "rho"),
        (("calibrate", "--rho", "abc"), "rho"),
        (("calibrate", "--worlds", "0"), "worlds"),
        (("calibrate", "--worlds", "nan"), "worlds"),
        (("calibrate", "--range", "-1"), "range"),
        (("nonsense",), "invalid choice"),
    ],
)
def test_bad_arguments_one_line_exit_2(args, word):
    r = run(*args)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and word in err[0]
