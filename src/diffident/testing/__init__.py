"""Reference implementations of diffident's computations, for tests and benchmarks.

Like ``numpy.testing`` it ships with the library but is not its API.
`COMPARISONS` (from `comparisons`) pairs every public computation with its
references; `dense`, `brute_force`, `mpmath_reference` and `rr_reference`
are the references (the last two need mpmath, imported on first use) and
`timing` serves the benchmark scripts.  Importing it needs only NumPy.
See docs/algorithms/replicate-testing.md.
"""

import importlib

from . import brute_force, comparisons, dense, timing
from .comparisons import COMPARISONS, Comparison, Reference, comparison

__all__ = [
    "COMPARISONS",
    "Comparison",
    "Reference",
    "comparison",
    "brute_force",
    "comparisons",
    "dense",
    "mpmath_reference",
    "rr_reference",
    "timing",
]

_LAZY = ("mpmath_reference", "rr_reference")


def __getattr__(name):
    """Import the mpmath references on first use (they need mpmath)."""
    if name in _LAZY:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
