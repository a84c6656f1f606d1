"""Reference implementations of diffident's computations, for tests and benchmarks."""

import importlib

from . import brute_force, comparisons, dense, timing, tolerances
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
    "tolerances",
]

_LAZY = ("mpmath_reference", "rr_reference")


def __getattr__(name):
    """Import the mpmath references on first use (they need mpmath)."""
    if name in _LAZY:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
