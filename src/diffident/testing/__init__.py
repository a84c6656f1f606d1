"""Reference implementations of diffident's computations, for tests and benchmarks.

Like ``numpy.testing``, this subpackage ships with the library so that the
tests, the asv benchmarks and the benchmark scripts import it without any
path manipulation; it is not part of the library's API (it is not in
``diffident.__all__``) and may change without notice.

* `COMPARISONS` (from :mod:`diffident.testing.comparisons`): for every public
  computation, the function under test, its references and a seeded input
  generator.  ``tests/test_comparisons.py`` checks every entry, and the
  benchmarks take their baselines from it.
* :mod:`diffident.testing.dense`: the posterior written once in plain NumPy
  float64, read as the log-evidence, the O(m^2) worst case and the brute
  force over responses, and the SciPy and dp-accounting baselines.
* :mod:`diffident.testing.brute_force`: every possible world enumerated
  explicitly (world values, sensitive ranges, membership).
* :mod:`diffident.testing.mpmath_reference`: the 60-digit mpmath reference,
  and the mechanisms' measures read off their pairs of output
  distributions (needs mpmath; imported on first use of the attribute).
* :mod:`diffident.testing.rr_reference`: randomized response in exact
  rational arithmetic (needs mpmath; imported on first use).
* :mod:`diffident.testing.timing`: the timing helpers of the benchmark
  scripts.

``import diffident`` never imports this package, and importing it needs
only NumPy (SciPy, mpmath and dp-accounting are imported by the references
that use them, when they are called).
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
