"""The asv suites' two profiles and the history script (benchmarks/).

Checks what each profile asks asv to run, never a timing: the fast profile
(``DIFFIDENT_ASV_PROFILE=fast``) must shrink the sizes and keep every suite,
and the history script must read asv's configuration and refuse bad input.
"""

import functools
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MODULES = ["bench_beyond", "bench_core", "bench_dp", "bench_expected", "bench_huge", "bench_worlds"]

_PROBE = """
import importlib, inspect, json, sys
sys.path.insert(0, {root!r})
out = {{}}
for mod in {modules!r}:
    m = importlib.import_module("benchmarks." + mod)
    for name, cls in inspect.getmembers(m, inspect.isclass):
        if cls.__module__ == m.__name__ and not name.startswith("_"):
            out[mod + "." + name] = dict(params=repr(getattr(cls, "params", None)),
                                         rounds=getattr(cls, "rounds", None), repeat=getattr(cls, "repeat", None))
print(json.dumps(out))
"""


@functools.cache
def _suites(profile):
    env = dict(os.environ)
    env.pop("DIFFIDENT_ASV_PROFILE", None)
    if profile is not None:
        env["DIFFIDENT_ASV_PROFILE"] = profile
    code = _PROBE.format(root=str(ROOT), modules=MODULES)
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=ROOT)
    return r


def test_fast_profile_shrinks_sizes_and_keeps_every_suite():
    full = json.loads(_suites(None).stdout)
    fast = json.loads(_suites("fast").stdout)
    assert full.keys() == fast.keys() and len(full) > 20
    assert full["bench_core.WorstCaseRisk"]["params"] == repr([[10**5, 10**6, 10**7]])
    assert fast["bench_core.WorstCaseRisk"]["params"] == repr([[10**5]])
    assert fast["bench_worlds.Sweep"]["params"] == repr([[100]])  # (the grid inversion's path)
    # the same suites, most at fewer or smaller sizes
    shrunk = sum(full[k]["params"] != fast[k]["params"] for k in full)
    assert shrunk >= 15
    # sampling: one round of seven in the fast profile, asv's defaults in the full one
    assert all(v["rounds"] == 1 and v["repeat"] == 7 for v in fast.values())
    assert all(v["rounds"] is None and v["repeat"] is None for v in full.values())


def test_unknown_profile_is_refused():
    r = _suites("quick")
    assert r.returncode != 0
    assert "DIFFIDENT_ASV_PROFILE must be 'full' or 'fast', got 'quick'" in r.stderr


def _history():
    spec = importlib.util.spec_from_file_location("_diffident_history", ROOT / "benchmarks" / "history.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_history_refuses_bad_input(capsys):
    with pytest.raises(SystemExit):
        _history().main(["0"])
    assert "n must be at least 1, got 0" in capsys.readouterr().err


def test_asv_reads_the_configuration_the_history_rewrites():
    # history.py loads asv.conf.json (with its // comments) through asv
    load_json = pytest.importorskip("asv.util").load_json
    conf = load_json(ROOT / "asv.conf.json", js_comments=True)
    assert conf["benchmark_dir"] == "benchmarks" and conf["branches"] == ["main"]


def test_history_table_names_real_benchmarks():
    # every headline row names a method and parameter values (as asv writes
    # them: repr) that the fast profile runs
    fast = json.loads(_suites("fast").stdout)
    for name, want in _history().HEADLINE:
        mod, cls, meth = name.split(".")
        params = eval(fast[f"{mod}.{cls}"]["params"])  # (the repr of lists of numbers and strings)
        assert all(w in [repr(v) for v in ps] for w, ps in zip(want, params, strict=True)), name
        assert callable(getattr(getattr(importlib.import_module(f"benchmarks.{mod}"), cls), meth))
