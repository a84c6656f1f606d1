"""Every entry of diffident.testing.COMPARISONS against each of its references.

The table names, for every public computation, its reference
implementations (dense NumPy, brute force over worlds, mpmath, SciPy,
dp-accounting) and a seeded input generator; here each reference is checked
on the entry's cases to the tolerance it promises.  A new function gets
this test by one entry in the table.
"""

import numpy as np
import pytest

import diffident as di
from diffident import dp, rr
from diffident.testing import COMPARISONS

PAIRS = [(name, ref.kind) for name, entry in COMPARISONS.items() for ref in entry.references]


def as_floats(x):
    """A result as one flat float array (a tuple of arrays concatenated)."""
    if isinstance(x, tuple):
        return np.concatenate([np.ravel(np.asarray(a, dtype=np.float64)) for a in x])
    return np.asarray(x, dtype=np.float64)


@pytest.mark.parametrize("name, kind", PAIRS, ids=[f"{n}-{k}" for n, k in PAIRS])
def test_agrees_with_reference(name, kind):
    entry = COMPARISONS[name]
    ref = entry.reference(kind)
    if not ref.available():
        pytest.skip(f"{ref.requires} is not installed")
    cases = [case for case in entry.cases() if ref.covers(case)]
    assert cases, f"{name} vs {kind}: no case the reference computes"
    for case in cases:
        got = as_floats(entry.call(**case))
        want = as_floats(ref(**case))
        assert got.shape == want.shape, (case, got, want)
        np.testing.assert_allclose(got, want, rtol=ref.rtol, atol=ref.atol, err_msg=f"{name} vs {kind}: {case}")


def test_every_entry_has_a_reference_and_cases():
    for name, entry in COMPARISONS.items():
        assert entry.references, name
        assert len({r.kind for r in entry.references}) == len(entry.references), name
        assert entry.cases(), name
        # the generator is seeded: the same case twice
        a, b = entry.inputs(0), entry.inputs(0)
        assert a.keys() == b.keys()
        for key in a:
            np.testing.assert_array_equal(np.asarray(a[key], dtype=object), np.asarray(b[key], dtype=object))


# The public names of diffident that are not computations: the namespaces,
# the warnings and errors, the value and result types, and the abstract base
# class of the mechanisms.  Every other public name must have an entry.
NOT_COMPUTATIONS = {
    "dp",
    "rr",
    "ConvergenceWarning",
    "InferredDomainWarning",
    "SkippedColumnWarning",
    "OverBudgetWarning",
    "ClassicGaussianWarning",
    "OverBudget",
    "Domain",
    "SweepTable",
    "Explanation",
    "Mechanism",
}


def test_every_public_callable_has_an_entry():
    assert NOT_COMPUTATIONS <= set(di.__all__), "an exclusion that is no longer public"
    public = [name for name in di.__all__ if name not in NOT_COMPUTATIONS]
    assert all(callable(getattr(di, name)) for name in public)
    assert [name for name in public if name not in COMPARISONS] == []
    assert all(COMPARISONS[name].function is getattr(di, name) for name in public)
    # the namespaces: diffident.rr as "rr.<name>", diffident.dp by the names diffident shares
    assert [name for name in rr.__all__ if f"rr.{name}" not in COMPARISONS] == []
    assert all(COMPARISONS[f"rr.{name}"].function is getattr(rr, name) for name in rr.__all__)
    functions = [name for name in dp.__all__ if name not in NOT_COMPUTATIONS]
    assert [name for name in functions if name not in COMPARISONS] == []
    assert all(COMPARISONS[name].function is getattr(dp, name) for name in functions)
