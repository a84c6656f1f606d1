"""Memory and time budgets: the sweep refuses or skips cells over them
before any work, keeps its world sets within them, and the command line
checks its output before the first cell and never leaves half a file."""

import math
import os
import tracemalloc

import numpy as np
import pytest

import diffident as di
from diffident._calibrate import neighbours as _neighbours
from diffident._numerics import budget as _budget
from diffident._worlds.dataset import dataset_setup
from diffident.cli import main


@pytest.mark.parametrize("text, expected", [
    ("2G", 2 * 2**30), ("512MB", 512 * 2**20), ("1.5GiB", int(1.5 * 2**30)), (" 64 k ", 64 * 2**10),
    ("1000", 1000), (4096, 4096), (1e9, 10**9), ("3e9", 3 * 10**9),
])
def test_parse_memory(text, expected):
    assert _budget.parse_memory("max_memory", text) == expected


@pytest.mark.parametrize("bad", ["", "2X", "G", "-1G", "0", 0, -5, float("nan"), float("inf"), "1.2.3G"])
def test_parse_memory_refuses_naming_the_argument(bad):
    with pytest.raises(ValueError, match="max_memory"):
        _budget.parse_memory("max_memory", bad)


@pytest.mark.parametrize("bad", [True, None, [1]])
def test_parse_memory_type(bad):
    with pytest.raises(TypeError, match="max_memory"):
        _budget.parse_memory("max_memory", bad)


def test_parse_seconds():
    assert _budget.parse_seconds("max_seconds", None) == math.inf
    assert _budget.parse_seconds("max_seconds", 12) == 12.0
    for bad in (0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="max_seconds"):
            _budget.parse_seconds("max_seconds", bad)
    with pytest.raises(TypeError, match="max_seconds"):
        _budget.parse_seconds("max_seconds", "10")


def test_held_keeps_within_its_budget_and_pins():
    held = _budget.Held(3000)
    made = []

    def make(key, size):
        made.append(key)
        return np.zeros(size // 8)

    held.get("ref", lambda: make("ref", 2000), pinned=True)
    for i in range(10):
        held.get(i, lambda i=i: make(i, 800))
        assert held.bytes <= 3000 + 800 and "ref" in held.items
    assert held.bytes == sum(v[1] for v in held.items.values())
    assert list(held.items) == ["ref", 9]  # the least recently used went first
    held.get(9, lambda: make("again", 800))  # held: not made again
    assert made[-1] == 9
    held.get(0, lambda: make(0, 800))  # evicted: made again
    assert made[-1] == 0 and list(held.items) == ["ref", 0]


def test_held_measures_what_a_value_allocates_after_it_is_handed_out():
    class Lazy:
        def __init__(self):
            self.work = None

        def use(self):
            self.work = np.zeros(1000)

    held = _budget.Held(10**6)
    a = held.get("a", Lazy)
    assert held.bytes == 0
    a.use()
    held.get("b", Lazy)  # the next request measures "a" again
    assert held.items["a"][1] == 8000 and held.bytes == 8000


def test_nbytes_walks_objects_and_tuples():
    class Box:
        def __init__(self):
            self.a = np.zeros(10)
            self.t = (np.zeros(5), [np.zeros(2)])
            self.x = 3

    assert _budget.nbytes(Box()) == 8 * 17
    assert _budget.nbytes(None) == 0


def test_estimate_grows_with_each_count():
    base = _budget.estimate(1e5, 100, 50, certificate=True)
    assert _budget.estimate(2e5, 100, 50, certificate=True).seconds > base.seconds
    assert _budget.estimate(1e5, 200, 50, certificate=True).seconds > base.seconds
    assert _budget.estimate(1e5, 100, 100, certificate=True).seconds > base.seconds
    assert _budget.estimate(2e5, 100, 50, certificate=True).memory > base.memory
    assert _budget.estimate(1e5, 100, 50).seconds < base.seconds
    assert _budget.estimate(1e5, 1, 50).seconds < _budget.estimate(1e5, 2, 50).seconds
    assert _budget.estimate(1e5, 1, 50, tight=False).seconds < base.seconds
    assert "GB" in _budget.estimate(1e8, 1, 50).text()


def _std_data(n=60, hi=4000, seed=1):
    return np.random.default_rng(seed).integers(0, hi + 1, n).astype(float)


def test_problem_results_do_not_depend_on_the_budget():
    """Every D' of a std cell checked with a budget that holds one world set
    at a time (sets evicted and made again) gives the bits of a budget that
    holds them all; the held bytes stay within the budget (plus the
    reference's, which are pinned, and the newest set)."""
    x = _std_data()
    qy, k, x, cands, _, _ = dataset_setup("std", x, di.Domain(0, 4000), 1, 1, 0.5, False, 10**8)
    rho = np.geomspace(0.002, 0.5, 40)
    big = _neighbours.Problem(qy, k, x, cands, 10**8, max_memory=2**34)
    want = big.solve(rho, 1e-12)
    small = _neighbours.Problem(qy, k, x, cands, 10**8, max_memory=1)
    got = small.solve(rho, 1e-12)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    pinned = sum(v[1] for v in small.held.items.values() if v[2])
    newest = max(v[1] for v in small.held.items.values())
    assert small.held.bytes <= pinned + newest
    assert big.held.bytes > small.held.bytes


def test_a_sweep_cell_stays_within_its_memory_budget():
    """The peak of the NumPy arrays a std sweep over 20,001 worlds and many
    D' allocates (tracemalloc sees NumPy's allocations) stays within the
    budget given, and the numbers equal those of the default budget."""
    x = _std_data(n=400, hi=20000, seed=3)
    kw = dict(queries=["std"], rho=np.geomspace(1e-4, 0.4, 30), domains={"x": (0, 20000)})
    want = di.sweep({"x": x}, **kw)
    budget = max(64 * 2**20, 5 * _budget.set_bytes(20001))  # (the work rows grow with the threads)
    tracemalloc.start()
    try:
        got = di.sweep({"x": x}, max_memory=budget, **kw)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= budget, peak
    np.testing.assert_array_equal(got["tight_scale"], want["tight_scale"])
    np.testing.assert_array_equal(got["risk_at_bound"], want["risk_at_bound"])


def test_cells_over_budget_are_refused_before_any_work(monkeypatch):
    calls = []
    monkeypatch.setattr("diffident._sweep.sweep._cell_rows", lambda *a: calls.append(a))
    data = {"a": np.arange(1.0, 9.0), "b": np.arange(0.0, 80.0, 10.0)}
    domains = {"a": (0, 10), "b": (0, 10**6)}
    with pytest.raises(di.OverBudget, match=r"(?s)1 cell over budget.*column 'b', std, n=8: 1,000,001 "
                                            r"worlds \(given domain.*--skip-expensive") as info:
        di.sweep(data, queries=["mean", "std"], rho=[0.1], domains=domains, max_memory="500M")
    assert isinstance(info.value, ValueError) and "'a'" not in str(info.value)
    with pytest.raises(di.OverBudget, match="about"):
        di.sweep(data, queries=["std"], rho=[0.1], domains=domains, max_seconds=1e-6)
    assert calls == []


def test_skip_expensive_makes_rows_and_goes_on():
    data = {"a": np.arange(1.0, 9.0), "b": np.arange(0.0, 80.0, 10.0)}
    domains = {"a": (0, 10), "b": (0, 10**6)}
    with pytest.warns(di.OverBudgetWarning, match=r"(?s)1 cell over budget.*written as rows.*column 'b', std"):
        t = di.sweep(data, queries=["std"], rho=[0.1, 0.2], domains=domains, max_memory="100M",
                     skip_expensive=True)
    assert t["status"].tolist() == ["calibrated"] * 2 + ["over budget"] * 2
    assert np.isfinite(t["tight_scale"][:2]).all() and np.isnan(t["tight_scale"][2:]).all()
    assert np.isnan(t["sensitive_range"][2:]).all() and t["m"][2] == 1000001.0
    with pytest.raises(TypeError, match="skip_expensive"):
        di.sweep(data, queries=["std"], rho=[0.1], domains=domains, skip_expensive="yes")


def test_memory_error_names_the_cell(monkeypatch):
    def boom(*a):
        raise MemoryError("Unable to allocate 12 GiB")

    monkeypatch.setattr("diffident._sweep.sweep._cell_rows", boom)
    with pytest.raises(MemoryError, match=r"column 'a', query 'mean', n=8 \(11 worlds\).*12 GiB"):
        di.sweep({"a": np.arange(1.0, 9.0)}, queries=["mean"], rho=[0.1], domains={"a": (0, 10)})


# -- the command line ------------------------------------------------------


@pytest.fixture
def small_csv(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,b\n" + "".join(f"{i},{10 * i}\n" for i in range(1, 9)))
    return path


def _cli(csv, out, *extra):
    return main(["sweep", "--data", str(csv), "--out", str(out), "--queries", "mean", "--rho", "0.2",
                 "--domain", "a=0:10", "b=0:100", "--quiet", *extra])


def _no_cell(monkeypatch):
    calls = []
    monkeypatch.setattr("diffident._sweep.sweep._cell_rows", lambda *a: calls.append(a))
    return calls


@pytest.mark.parametrize("out, message", [
    ("missing/o.csv", "does not exist"), ("o.txt", "must end in"), (".", "must end in"),
])
def test_bad_out_fails_before_any_cell(small_csv, tmp_path, monkeypatch, capsys, out, message):
    calls = _no_cell(monkeypatch)
    assert _cli(small_csv, tmp_path / out) == 2
    err = capsys.readouterr().err
    assert err.startswith("diffident: error: --out") and message in err and len(err.splitlines()) == 1
    assert calls == []


def test_out_a_directory_fails_before_any_cell(small_csv, tmp_path, monkeypatch, capsys):
    calls = _no_cell(monkeypatch)
    (tmp_path / "dir.csv").mkdir()
    assert _cli(small_csv, tmp_path / "dir.csv") == 2
    assert "is a directory" in capsys.readouterr().err and calls == []


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root writes anywhere")
def test_unwritable_out_fails_before_any_cell(small_csv, tmp_path, monkeypatch, capsys):  # pragma: no cover
    calls = _no_cell(monkeypatch)
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    assert _cli(small_csv, ro / "o.csv") == 2
    assert "permission denied" in capsys.readouterr().err and calls == []


def test_nothing_half_written(small_csv, tmp_path, monkeypatch, capsys):
    out = tmp_path / "o.csv"
    out.write_text("the old table\n")

    def fail(self, path):
        with open(path, "w") as f:
            f.write("half")
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(di.SweepTable, "to_csv", fail)
    assert _cli(small_csv, out) == 2
    assert "No space left on device" in capsys.readouterr().err
    assert out.read_text() == "the old table\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.csv", "o.csv"]


def test_cli_writes_the_whole_table(small_csv, tmp_path):
    out = tmp_path / "o.csv"
    old = os.umask(0o022)
    try:
        assert _cli(small_csv, out) == 0
    finally:
        os.umask(old)
    assert len(out.read_text().splitlines()) == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.csv", "o.csv"]
    assert out.stat().st_mode & 0o777 == 0o644  # as a plain open would make it


def test_cli_memory_error_is_one_line(small_csv, tmp_path, monkeypatch, capsys):
    def boom(*a):
        raise MemoryError("Unable to allocate 12 GiB")

    monkeypatch.setattr("diffident._sweep.sweep._cell_rows", boom)
    out = tmp_path / "o.csv"
    assert _cli(small_csv, out) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("diffident: error: out of memory: sweep: memory ran out in the "
                                               "cell column 'a'")
    assert not out.exists()


def test_cli_budget_options(small_csv, tmp_path, capsys):
    out = tmp_path / "o.csv"
    args = ["sweep", "--data", str(small_csv), "--out", str(out), "--queries", "std", "--rho", "0.2",
            "--domain", "a=0:10", "b=0:1000000", "--quiet", "--max-memory", "100M"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "diffident: error: sweep: 1 cell over budget (max_memory 100 MB" in err and not out.exists()
    assert main(args + ["--skip-expensive"]) == 0
    assert out.read_text().count("over budget") == 1
    assert "diffident: warning: sweep: 1 cell over budget" in capsys.readouterr().err
    assert main(args[:-2] + ["--max-memory", "lots"]) == 2
    assert "max_memory must be" in capsys.readouterr().err
    assert main(args[:-2] + ["--max-seconds", "-1"]) == 2
    assert "max_seconds must be a positive number" in capsys.readouterr().err
    assert main(args[:-2] + ["--max-seconds", "0"]) == 0  # no time limit; the memory is the default's



def test_the_estimate_refuses_what_would_take_hours_and_runs_what_takes_seconds():
    """Measured on the Adult data (2 cores): capital-gain's std at 10,000
    rho ran in 17 s; fnlwgt's std would take about 4 hours (28,522 D' of
    1.48 million worlds, each checked at 0.5 s)."""
    worst = [("laplace", "worst")]
    fast = _budget.cell_estimate("std", 123, 100_000, 10_000, worst, True)
    slow = _budget.cell_estimate("std", 28_523, 1_478_116, 50, worst, True)
    assert 10 < fast.seconds < 120 and fast.memory < 2**30
    assert slow.seconds > 3600 and slow.memory < 2**31
    assert _budget.cell_estimate("mean", 28_523, 1_478_116, 50, worst, True).seconds < 10
    # the expected success checks every D' at every rho
    assert _budget.cell_estimate("mean", 123, 100_000, 1000, [("laplace", "expected")], True).seconds > 30
