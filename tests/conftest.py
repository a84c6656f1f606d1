import os
import sys
from pathlib import Path

import pytest

from diffident.replicate.data import adult_path as _adult_path
from diffident.replicate.data import load_adult

try:  # hypothesis profiles: "ci" (default) and "long" (HYPOTHESIS_PROFILE=long)
    from hypothesis import HealthCheck, settings
except ImportError:  # pragma: no cover - hypothesis is a test dependency
    settings = None
if settings is not None:
    _QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
    # ci: reproducible (same examples every run, nothing stored), no
    # per-example deadline (numba compiles on first use), few examples
    settings.register_profile("ci", derandomize=True, database=None, deadline=None, max_examples=30,
                              suppress_health_check=_QUIET, print_blob=True)
    # long: random, many more examples, for a soak run before a release
    settings.register_profile("long", derandomize=False, deadline=None, max_examples=2000,
                              suppress_health_check=_QUIET, print_blob=True)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

_ROOT = Path(__file__).resolve().parents[1]


def adult_path():
    """The Adult file's path: DIFFIDENT_ADULT_CSV, else ../shared/data/adult.csv
    beside the repository (diffident.replicate.data.adult_path)."""
    return _adult_path(_ROOT)


def require_adult():
    """The Adult file's path; skips when it is absent, unless
    DIFFIDENT_REQUIRE_DATA=1 (CI), where a missing file is a failure."""
    path = adult_path()
    if not path.is_file():
        msg = f"UCI Adult data not found at {path} (set DIFFIDENT_ADULT_CSV)"
        if os.environ.get("DIFFIDENT_REQUIRE_DATA") == "1":
            pytest.fail(msg)
        pytest.skip(msg)
    return path


@pytest.fixture
def evaluator_calls(monkeypatch):
    """The number of scales in each call of the worst-case evaluator (a list
    that the test's calls fill).
    """
    from diffident._risk import worst_case as _worst_case

    sizes = []
    orig = _worst_case.Evaluator.__call__

    def counting(self, inv):
        sizes.append(inv.size)
        return orig(self, inv)

    monkeypatch.setattr(_worst_case.Evaluator, "__call__", counting)
    return sizes


@pytest.fixture(scope="session")
def adult():
    """The UCI Adult numeric columns as a dict of float arrays (load_adult)."""
    return load_adult(require_adult())


# Options that ask pytest-benchmark for timings; without any of them the
# benchmarks in tests/project/test_benchmarks.py run once each, as plain tests.
_TIMING_OPTIONS = ("benchmark_only", "benchmark_enable", "benchmark_autosave", "benchmark_save",
                   "benchmark_compare", "benchmark_json", "benchmark_histogram")


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    """``--benchmark-disable`` unless a benchmark option asks for timings
    (pytest-benchmark builds its session after this hook)."""
    if config.pluginmanager.hasplugin("benchmark") and not any(
            config.getoption(name, None) for name in _TIMING_OPTIONS):
        config.option.benchmark_disable = True


@pytest.fixture(autouse=True)
def _mpmath_precision():
    """Each test starts at mpmath's default precision and leaves it as it
    found it: a test that needs more digits asks for them (``mpmath.workdps``
    or a module fixture), never inherits another test's."""
    mpmath = sys.modules.get("mpmath")
    if mpmath is None:
        yield
        return
    with mpmath.workdps(15):
        yield
