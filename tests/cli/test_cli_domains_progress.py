"""The command line's --domain forms, its progress reports and --quiet.

Parsing and messages run in-process (``diffident.cli.main``); the first-run
compile notice runs the installed command in a subprocess with an empty
Numba cache directory, then again with the cache it filled.
"""

import csv
import io
import os
import shutil
import subprocess
import sys

import numba
import numpy as np
import pytest

import diffident
import diffident as di
from diffident._numerics import progress as _progress
from diffident.cli import main

BMI = [18.5, 22.1, 24.9, 30.0, 27.3, 19.8, 35.2, 22.1]


@pytest.fixture
def bmi_csv(tmp_path):
    path = tmp_path / "bmi.csv"
    path.write_text("bmi,age\n" + "".join(f"{b},{a}\n" for b, a in zip(BMI, range(20, 28), strict=True)))
    return path


def rows(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def sweep_cli(bmi_csv, out, *domain, extra=()):
    return main(["sweep", "--data", str(bmi_csv), "--out", str(out), "--queries", "mean", "median",
                 "--rho", "0.05", "0.2", "--domain", *domain, *extra])


def test_integer_and_stepped_domains(bmi_csv, tmp_path, capsys):
    out = tmp_path / "o.csv"
    assert sweep_cli(bmi_csv, out, "bmi=12:60:0.1", "age=17:90", extra=["--quiet"]) == 0
    assert capsys.readouterr().err == ""
    got = rows(out)
    bmi = [r for r in got if r["column"] == "bmi"]
    age = [r for r in got if r["column"] == "age"]
    assert {r["m"] for r in bmi} == {"481.0"} and {r["m"] for r in age} == {"74.0"}
    median = [r for r in bmi if r["query"] == "median"]
    dom = di.Domain(12, 60, step=0.1)
    assert float(median[0]["sensitive_range"]) == di.dataset_sensitive_range("median", data=BMI, candidates=dom)
    tight = di.dataset_tight_scale("median", data=BMI, candidates=dom, rho=[0.05, 0.2], rtol=1e-12)
    np.testing.assert_array_equal([float(r["tight_scale"]) for r in median], tight)
    # integer text with a step of 1 is the integer domain; 17.0 is an integer
    assert sweep_cli(bmi_csv, out, "bmi=12:60:0.1", "age=17.0:90:1", extra=["--quiet"]) == 0
    assert {r["m"] for r in rows(out) if r["column"] == "age"} == {"74.0"}


@pytest.mark.parametrize("spec, words", [
    ("bmi=12.5:60", ["--domain 'bmi=12.5:60'", "integer domain", "bmi=12.5:60:0.1"]),
    ("bmi=12:60:real", ["--domain 'bmi=12:60:real'", "real interval", "infinitely many", "bmi=12:60:0.1"]),
    ("bmi=12:60:0.7", ["--domain 'bmi=12:60:0.7'", "whole number", "lo=12, hi=60, step=0.7"]),
    ("bmi=12:60:0", ["--domain 'bmi=12:60:0'", "step must be positive", "got 0"]),
    ("bmi=12:60:-0.1", ["--domain 'bmi=12:60:-0.1'", "step must be positive"]),
    ("bmi=60:12", ["--domain 'bmi=60:12'", "lo must not exceed hi"]),
    ("bmi=a:60", ["--domain 'bmi=a:60'", "'a' is not a finite number"]),
    ("bmi=12:inf", ["--domain 'bmi=12:inf'", "'inf' is not a finite number"]),
    ("bmi=12:60:x", ["--domain 'bmi=12:60:x'", "'x' is not a finite number"]),
    ("bmi=12", ["--domain must look like", "COLUMN=LO:HI:STEP", "got 'bmi=12'"]),
    ("bmi=1:2:3:4", ["--domain must look like", "got 'bmi=1:2:3:4'"]),
    ("=12:60", ["--domain must look like", "got '=12:60'"]),
    ("bmi12:60", ["--domain must look like", "got 'bmi12:60'"]),
])
def test_domain_errors_name_the_option_and_the_text(bmi_csv, tmp_path, capsys, spec, words):
    assert sweep_cli(bmi_csv, tmp_path / "o.csv", spec, "age=17:90") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("diffident: error: ")
    for w in words:
        assert w in err[0], (w, err[0])
    assert not (tmp_path / "o.csv").exists()


def test_values_off_the_grid_are_named(bmi_csv, tmp_path, capsys):
    assert sweep_cli(bmi_csv, tmp_path / "o.csv", "bmi=12:60:0.2", "age=17:90") == 2
    err = capsys.readouterr().err
    assert "column 'bmi' has values off its domain Domain(12.0, 60.0, step=0.2): 18.5" in err


def test_help_shows_the_three_forms(capsys):
    with pytest.raises(SystemExit):
        main(["sweep", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for form in ("COLUMN=LO:HI", "bmi=12:60:0.1", "COLUMN=LO:HI:STEP", "COLUMN=LO:HI:real"):
        assert form in text


class FakeClock:
    def __init__(self, times):
        self.times = list(times)

    def __call__(self):
        return self.times.pop(0)


class Tty(io.StringIO):
    def isatty(self):
        return True


def test_lines_at_most_every_interval_when_not_a_terminal():
    stream = io.StringIO()
    # start, then the start of each of 6 steps, then close
    clock = FakeClock([100.0, 100.0, 103.0, 111.0, 112.0, 119.0, 125.0, 131.0])
    bar = _progress.Progress(6, "sweep", "cells", True, stream=stream, clock=clock, interval=10.0)
    for i in range(6):
        bar.step(f"cell {i}")
    bar.close()
    assert stream.getvalue().splitlines() == [
        "diffident: sweep 2/6 cells (33%), 11 s elapsed",   # step 3 starts at 111: 2 cells done
        "diffident: sweep 5/6 cells (83%), 25 s elapsed",   # 14 s after the last line
        "diffident: sweep 6/6 cells (100%), 31 s elapsed",  # the end
    ]
    assert not clock.times


def test_quick_work_writes_no_line_and_disabled_writes_nothing():
    stream = io.StringIO()
    bar = _progress.Progress(3, "sweep", "cells", True, stream=stream, clock=FakeClock([0.0, 1.0, 2.0, 3.0, 4.0]))
    for i in range(3):
        bar.step(str(i))
    bar.close()
    assert stream.getvalue() == ""
    tty = Tty()
    off = _progress.Progress(3, "sweep", "cells", False, stream=tty, clock=FakeClock([]))
    off.step("x")
    off.close()
    assert tty.getvalue() == ""


def test_bar_on_a_terminal_and_a_notice_on_its_own_line():
    tty = Tty()
    bar = _progress.Progress(2, "sweep", "cells", True, stream=tty, clock=FakeClock([0.0]))
    bar.step("age mean n=8")
    _progress.notice(_progress.COMPILING, tty)
    bar.step("age median n=8")
    bar.close()
    text = tty.getvalue()
    assert text.startswith("\r[" + "#" * 15 + "." * 15 + "] 1/2 age mean n=8")
    assert "\n" + _progress.COMPILING + "\n\r[" + "#" * 30 + "] 2/2 age median n=8" in text
    assert text.endswith("\n") and "elapsed" not in text


def test_sweep_reports_to_a_log(monkeypatch, capsys):
    """sweep(progress=True) on a standard error that is not a terminal (as
    pytest's): lines, with a fake clock that moves 6 s per reading (at the
    cells' starts only: the work inside a cell reports nothing here)."""
    ticks = iter(np.arange(0.0, 600.0, 6.0).tolist())
    monkeypatch.setattr(_progress, "_clock", lambda: next(ticks))
    monkeypatch.setattr(_progress, "tick", lambda detail=None: None)
    data = {"a": np.arange(1.0, 9.0), "b": np.arange(2.0, 10.0)}
    di.sweep(data, queries=["mean", "max"], rho=[0.2], domains={"a": (0, 10), "b": (0, 10)},
             calibrations=["bound"], progress=True)
    # readings: start 0; steps at 6, 12 (a line: 1 done), 18, 24 (a line: 3 done); close 30
    assert capsys.readouterr().err.splitlines() == [
        "diffident: sweep 1/4 cells (25%), 12 s elapsed",
        "diffident: sweep 3/4 cells (75%), 24 s elapsed",
        "diffident: sweep 4/4 cells (100%), 30 s elapsed",
    ]
    di.sweep(data, queries=["mean"], rho=[0.2], domains={"a": (0, 10), "b": (0, 10)})
    assert capsys.readouterr().err == ""  # not asked: silent


def test_lines_inside_a_long_step():
    """Work inside a step (`tick`) writes a line once the interval has
    passed, naming the step and what it is at; never more often."""
    stream = io.StringIO()
    clock = FakeClock([0.0, 1.0, 5.0, 12.0, 13.0, 25.0, 30.0, 31.0])
    bar = _progress.Progress(2, "sweep", "cells", True, stream=stream, clock=clock, interval=10.0)
    with bar.active():
        bar.step("fnlwgt std n=100")           # 1
        _progress.tick()                        # 5: too soon
        _progress.tick(lambda: "D' 3/9")        # 12: a line
        _progress.tick()                        # 13: too soon
        _progress.tick("D' 7/9")                # 25: a line
        bar.step("fnlwgt mean n=100")           # 30: too soon
    _progress.tick()                            # outside: nothing, no clock read
    bar.close()                                 # 31
    assert stream.getvalue().splitlines() == [
        "diffident: sweep 0/2 cells (0%), in fnlwgt std n=100: D' 3/9, 12 s elapsed",
        "diffident: sweep 0/2 cells (0%), in fnlwgt std n=100: D' 7/9, 25 s elapsed",
        "diffident: sweep 2/2 cells (100%), 31 s elapsed",
    ]
    assert not clock.times


def test_bar_inside_a_long_step_on_a_terminal():
    """On a terminal the bar is redrawn with what the step is at, at most
    every second, and `close` ends its line."""
    tty = Tty()
    bar = _progress.Progress(2, "sweep", "cells", True, stream=tty, clock=FakeClock([0.0, 0.5, 1.5, 2.0]))
    with bar.active():
        bar.step("fnlwgt std n=100")
        _progress.tick("D' 3/9")     # 0.5: too soon
        _progress.tick("D' 7/9")     # 1.5: redrawn
        bar.step("fnlwgt mean n=100")
        _progress.tick("pass")       # 2.0: too soon after 1.5
    bar.close()
    text = tty.getvalue()
    assert "] 1/2 fnlwgt std n=100: D' 7/9 (2 s)" in text and "3/9" not in text
    assert text.endswith("\n") and text.count("\n") == 1


def test_sweep_reports_inside_a_cell(monkeypatch, capsys):
    """A real sweep whose clock moves 6 s per reading: the evaluator's
    passes inside the one cell write lines that name it."""
    ticks = iter(np.arange(0.0, 6000.0, 6.0).tolist())
    monkeypatch.setattr(_progress, "_clock", lambda: next(ticks))
    di.sweep({"a": np.arange(1.0, 9.0)}, queries=["std"], rho=[0.2, 0.3], domains={"a": (0, 10)},
             progress=True)
    err = capsys.readouterr().err.splitlines()
    assert len(err) >= 2 and err[-1].startswith("diffident: sweep 1/1 cells (100%)")
    assert all(line.startswith("diffident: sweep 0/1 cells (0%), in a std n=8") for line in err[:-1])


def test_cli_progress_unless_quiet(bmi_csv, tmp_path, monkeypatch, capsys):
    ticks = iter(np.arange(0.0, 600.0, 20.0).tolist())
    monkeypatch.setattr(_progress, "_clock", lambda: next(ticks))
    monkeypatch.setattr(_progress, "tick", lambda detail=None: None)
    out = tmp_path / "o.csv"
    assert sweep_cli(bmi_csv, out, "bmi=12:60:0.1", "age=17:90") == 0
    cap = capsys.readouterr()
    # 20 s per clock reading: a line at every step (the cells finished before it), and the last
    assert cap.err.splitlines() == [f"diffident: sweep {i}/4 cells ({25 * i}%), {20 * (i + 1)} s elapsed"
                                    for i in range(5)]
    assert "wrote 8 rows" in cap.out
    assert sweep_cli(bmi_csv, out, "bmi=12:60:0.1", "age=17:90", extra=["--quiet"]) == 0
    cap = capsys.readouterr()
    assert cap.err == "" and cap.out == ""


def test_quiet_keeps_warnings_which_their_own_options_accept(bmi_csv, tmp_path, capsys):
    args = ["sweep", "--data", str(bmi_csv), "--out", str(tmp_path / "o.csv"), "--queries", "mean",
            "--rho", "0.2", "--domain", "bmi=12:60:0.1", "--quiet"]
    assert main(args) == 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("diffident: warning: domains inferred") and "'age': 20..27" in err[0]
    assert main(args + ["--infer-domains"]) == 0
    assert capsys.readouterr().err == ""


def test_quiet_installs_no_compile_notice(bmi_csv, tmp_path, monkeypatch):
    calls = []

    def recorder():
        calls.append(1)
        return _progress.contextlib.nullcontext()

    monkeypatch.setattr(_progress, "compile_notice", recorder)
    assert sweep_cli(bmi_csv, tmp_path / "o.csv", "bmi=12:60:0.1", "age=17:90", extra=["--quiet"]) == 0
    assert calls == []
    assert sweep_cli(bmi_csv, tmp_path / "o.csv", "bmi=12:60:0.1", "age=17:90") == 0
    assert calls == [1]


def _fresh_kernel(module):
    def f(x):
        return x + 1.0

    f.__module__ = module
    return numba.njit(f)


def test_compile_notice_says_once_and_only_for_this_packages_kernels():
    stream = io.StringIO()
    with _progress.compile_notice(stream):
        _fresh_kernel("somebody.else")(1.0)
        assert stream.getvalue() == ""  # another package's compilation
        _fresh_kernel("diffident._kernels.fake")(1.0)
        _fresh_kernel("diffident._kernels.fake2")(2.0)
    _fresh_kernel("diffident._kernels.fake3")(3.0)  # outside the block
    assert stream.getvalue() == _progress.COMPILING + "\n"


def test_first_run_says_it_is_compiling_and_the_second_does_not(tmp_path, bmi_csv):
    """A real first run: the command with an empty Numba cache directory
    compiles its kernels and says so; the same command again loads them from
    that cache and says nothing."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"), PYTHONPATH=os.pathsep.join(
        [os.path.dirname(os.path.dirname(os.path.abspath(diffident.__file__))), os.environ.get("PYTHONPATH", "")]))
    exe = shutil.which("diffident")
    cmd = ([exe] if exe else [sys.executable, "-m", "diffident"]) + [
        "sweep", "--data", str(bmi_csv), "--out", str(tmp_path / "o.csv"), "--columns", "age", "--queries", "max",
        "--calibration", "bound", "--rho", "0.3", "--domain", "age=17:90"]
    first = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    assert first.returncode == 0, first.stderr
    assert first.stderr.splitlines() == [_progress.COMPILING]
    assert os.listdir(tmp_path / "numba-cache")
    second = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    assert second.returncode == 0, second.stderr
    assert second.stderr == ""
    assert second.stdout == first.stdout
