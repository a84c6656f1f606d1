"""The package is typed: py.typed, complete public signatures, and a user's
script that passes ``mypy --strict`` while wrong uses fail it."""

import inspect
import textwrap
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

import diffident
import diffident.dask
from diffident import dp, rr

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
NAMESPACES = [diffident, dp, rr, diffident.dask]


def _public_callables():
    seen = {}
    for ns in NAMESPACES:
        for name in getattr(ns, "__all__", None) or [n for n in vars(ns) if not n.startswith("_")]:
            obj = getattr(ns, name)
            if inspect.isfunction(obj):
                seen[f"{ns.__name__}.{name}"] = obj
            elif inspect.isclass(obj) and not issubclass(obj, Warning):
                for meth_name, meth in vars(obj).items():
                    if inspect.isfunction(meth) and (not meth_name.startswith("_") or meth_name == "__init__"):
                        seen[f"{ns.__name__}.{name}.{meth_name}"] = meth
                    elif isinstance(meth, property) and not meth_name.startswith("_"):
                        seen[f"{ns.__name__}.{name}.{meth_name}"] = meth.fget
    from diffident import cli

    seen["diffident.cli.main"] = cli.main
    return sorted(seen.items())


PUBLIC = _public_callables()


def test_py_typed_ships_in_the_package():
    assert (resources.files("diffident") / "py.typed").is_file()


def test_the_walk_sees_the_api():
    names = {q for q, _ in PUBLIC}
    assert {"diffident.scale_for_rho", "diffident.Domain.__init__", "diffident.Domain.size",
            "diffident.SweepTable.to_csv", "diffident.rr.sample", "diffident.cli.main"} <= names


@pytest.mark.parametrize("qual, func", PUBLIC, ids=[q for q, _ in PUBLIC])
def test_public_signature_is_annotated(qual, func):
    sig = inspect.signature(func)
    missing = [p.name for p in sig.parameters.values()
               if p.name != "self" and p.annotation is inspect.Parameter.empty]
    assert not missing, f"{qual}: parameters without a type: {missing}"
    assert sig.return_annotation is not inspect.Signature.empty, f"{qual}: no return type"


def test_dp_names_are_exported_statically():
    # listed in diffident.__all__ (not added at run time), so mypy --strict sees di.analytic_gaussian_sigma
    assert set(dp.__all__) <= set(diffident.__all__)


# --------------------------------------------------------------------------- mypy --strict

# each wrong use, and the mypy error code it must give
NEGATIVE = {
    "str_for_values": ('di.tight_scale("mean", rho=0.1)', "call-overload"),
    "swapped_positional": ("di.scale_for_rho(0.015, 99, 0.002)", "call-overload"),
    "array_as_float": ("x: float = di.posterior([1.0, 2.0], response=1.0, scale=1.0)", "assignment"),
    "unknown_noise": ('di.log_evidence([1.0, 2.0], response=1.0, scale=1.0, noise="cauchy")', "arg-type"),
    "tuple_as_float": ("y: float = di.worst_case_risk([1.0, 2.0], scale=1.0, return_world=True)", "assignment"),
}


def _mypy(tmp_path, monkeypatch, files):
    api = pytest.importorskip("mypy.api", reason="mypy is not installed (the test extra has it)")
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\n")  # --strict alone: not the package's own relaxations
    monkeypatch.setenv("MYPYPATH", str(SRC))  # this checkout's diffident, whatever is installed
    stdout, stderr, status = api.run(["--strict", "--follow-imports=silent", "--config-file", str(config),
                                      "--cache-dir", str(tmp_path / "cache"), "--no-error-summary",
                                      "--show-error-codes", *map(str, files)])
    return stdout + stderr, status


def test_user_script_passes_mypy_strict(tmp_path, monkeypatch):
    out, status = _mypy(tmp_path, monkeypatch, [HERE / "typing" / "user_script.py"])
    assert status == 0, out


def test_wrong_uses_fail_mypy_strict(tmp_path, monkeypatch):
    files = []
    for name, (line, _) in NEGATIVE.items():
        f = tmp_path / f"{name}.py"
        f.write_text(textwrap.dedent(f"""\
            import diffident as di

            {line}
            """))
        files.append(f)
    out, status = _mypy(tmp_path, monkeypatch, files)
    assert status == 1, out
    for name, (_, code) in NEGATIVE.items():
        errors = [ln for ln in out.splitlines() if ln.startswith(str(tmp_path / f"{name}.py") + ":3: error:")]
        assert errors and all(f"[{code}]" in ln for ln in errors), (name, out)


# --------------------------------------------------------------------------- the overloads hold at run time

# the functions whose overloads promise a float for scalar input, with scalar arguments (np.float64 and int
# included: mypy reads both as float) and the same call with an array
SCALAR_OVERLOADS = {
    "epsilon_for_rho": lambda x: diffident.epsilon_for_rho(x, m=8),
    "scale_for_rho": lambda x: diffident.scale_for_rho(x, m=np.int64(8), sensitive_range=1),
    "rho_for_epsilon": lambda x: diffident.rho_for_epsilon(x, m=4),
    "risk_bound": lambda x: diffident.risk_bound(x, m=8, sensitive_range=np.float64(1.0)),
    "min_rho": lambda x: diffident.min_rho(x),
    "worst_case_risk": lambda x: diffident.worst_case_risk([1.0, 2.0, 5.0], scale=x),
    "tight_scale": lambda x: diffident.tight_scale([1.0, 2.0, 5.0], rho=x),
    "tight_epsilon": lambda x: diffident.tight_epsilon([1.0, 2.0, 5.0], rho=x),
    "analytic_gaussian_sigma": lambda x: dp.analytic_gaussian_sigma(x, delta=1e-5, sensitivity=2),
    "analytic_gaussian_delta": lambda x: dp.analytic_gaussian_delta(x, epsilon=1.0),
    "classic_gaussian_sigma": lambda x: dp.classic_gaussian_sigma(x, delta=1e-5),
    "posterior_bound": lambda x: dp.posterior_bound(x, prior=0.1),
    "epsilon_for_posterior": lambda x: dp.epsilon_for_posterior(x, prior=0.1),
    "epsilon_per_release": lambda x: dp.epsilon_per_release(x, m=8, k=3),
}
SCALARS = {"epsilon_for_rho": 0.3, "scale_for_rho": np.float64(0.3), "rho_for_epsilon": 0, "risk_bound": 1,
           "min_rho": 8, "worst_case_risk": np.float64(1.0), "tight_scale": 0.5, "tight_epsilon": 1,
           "analytic_gaussian_sigma": np.float64(1.0), "analytic_gaussian_delta": 1, "classic_gaussian_sigma": 0.5,
           "posterior_bound": np.float64(1.0), "epsilon_for_posterior": 0.5, "epsilon_per_release": 0.5}


@pytest.mark.parametrize("name", list(SCALAR_OVERLOADS))
def test_scalar_in_float_out(name):
    call = SCALAR_OVERLOADS[name]
    x = SCALARS[name]
    assert type(call(x)) is float
    out = call(np.array([x, x]))
    assert isinstance(out, np.ndarray) and out.dtype == np.float64 and out.shape == (2,)
    assert out[0] == call(x)
