"""One calling convention for the public API: the first argument by position, the rest by name.

Two numbers of the same kind side by side (``scale_for_rho(rho, m, S)``:
swapping ``m`` and ``S`` gives a plausible wrong number) must be named, so
every public function takes at most one positional argument.  The walk
below covers every function of the public namespaces, so that a new
function cannot break the rule silently.
"""

import inspect

import numpy as np
import pytest

import diffident
import diffident.dask
from diffident import dp, rr

NAMESPACES = [diffident, dp, rr, diffident.dask]

# The exceptions, each with why its positional order cannot be confused.
EXCEPTIONS = {
    # lo <= hi is checked, so a swap is an error rather than a wrong
    # number (as with range(lo, hi)); integer= is keyword-only.
    "diffident.Domain": ("lo", "hi"),
    # a class and a number: they cannot be swapped without a TypeError
    "diffident.calibrate": ("family", "target"),
    # Kazan and Reiter's (a, r), in their order
    "diffident.RatioProfile": ("a", "r"),
    # the guarantee (epsilon, delta), as it is written
    "diffident.explain": ("epsilon", "delta"),
}


def _public(namespace):
    names = getattr(namespace, "__all__", None)
    if names is None:
        names = [n for n in vars(namespace) if not n.startswith("_")]
    for name in names:
        obj = getattr(namespace, name)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            yield f"{namespace.__name__}.{name}", obj


def _positional(obj):
    if inspect.isclass(obj):
        if issubclass(obj, Warning):
            return ()  # warnings are raised by the library, never built by a user
        obj = obj.__init__
        skip = 1  # self
    else:
        skip = 0
    params = list(inspect.signature(obj).parameters.values())[skip:]
    return tuple(p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL))


PUBLIC = sorted({qual: obj for ns in NAMESPACES for qual, obj in _public(ns)}.items())


def test_the_walk_sees_the_api():
    names = {qual for qual, _ in PUBLIC}
    assert {"diffident.scale_for_rho", "diffident.dp.epsilon_per_release", "diffident.rr.posterior",
            "diffident.dask.log_evidence", "diffident.Domain", "diffident.SweepTable"} <= names
    assert len(PUBLIC) > 60


@pytest.mark.parametrize("qual, obj", PUBLIC, ids=[q for q, _ in PUBLIC])
def test_at_most_one_positional_argument(qual, obj):
    positional = _positional(obj)
    if qual in EXCEPTIONS:
        assert positional == EXCEPTIONS[qual]
    else:
        assert len(positional) <= 1, f"{qual}{inspect.signature(obj)}: make the arguments after the first keyword-only"


def test_exceptions_are_public_names():
    assert set(EXCEPTIONS) <= {qual for qual, _ in PUBLIC}


@pytest.mark.parametrize("call", [
    lambda: diffident.scale_for_rho(0.015, 99, 0.002),
    lambda: diffident.risk_bound(1.0, 99, 0.002),
    lambda: diffident.epsilon_for_rho(0.1, 99),
    lambda: diffident.posterior([1.0, 2.0], 1.5, 1.0),
    lambda: diffident.tight_scale([1.0, 2.0], 0.6),
    lambda: diffident.world_values("mean", [1.0, 2.0], [3.0, 4.0]),
    lambda: dp.epsilon_per_release(0.5, 8, 3),
    lambda: dp.analytic_gaussian_sigma(1.0, 1e-5),
    lambda: rr.posterior(0.5, 0.5, 0.5),
    lambda: diffident.Domain(1, 99, False),
])
def test_positional_calls_raise_type_error(call):
    with pytest.raises(TypeError, match="positional argument"):
        call()


def test_keyword_calls_give_the_values():
    # the paper's toy example (m = 8 worlds, S = 8/3): the same numbers by name
    assert diffident.scale_for_rho(1 / 3, m=8, sensitive_range=8 / 3) == pytest.approx(2.128628267061142, rel=1e-14)
    assert diffident.risk_bound(2.128628267061142, m=8, sensitive_range=8 / 3) == pytest.approx(1 / 3, rel=1e-12)
    assert dp.epsilon_per_release(1 / 3, m=8, k=4) == pytest.approx(diffident.epsilon_for_rho(1 / 3, m=8) / 4,
                                                                     rel=1e-15)
    means = np.array([2, 8 / 3, 3, 10 / 3, 11 / 3, 4, 13 / 3, 14 / 3])
    assert diffident.worst_case_risk(means, scale=2.128628267061142) == pytest.approx(0.2294, abs=5e-5)
