"""The one compilation policy of every kernel.

Details: docs/algorithms/numerics-kernels.md.
"""

from typing import Any

import numba

#: The options every kernel is compiled with.
POLICY: dict[str, Any] = {"cache": True, "error_model": "python", "fastmath": False}


def kernel(fn):
    """Compile ``fn`` as a serial kernel under :data:`POLICY`."""
    return numba.njit(**POLICY)(fn)


def parallel_kernel(fn):
    """Compile ``fn`` as a ``parallel=True`` kernel (``numba.prange`` loops) under :data:`POLICY`."""
    return numba.njit(parallel=True, **POLICY)(fn)


def inlined_kernel(fn):
    """Compile ``fn`` under :data:`POLICY`, inlined into its callers at Numba's IR level.

    For a small kernel with a parameter that its callers pass as a constant
    (a sign, a flag): once inlined, the constant folds away, so one kernel
    serves where two near-copies would otherwise be written.
    """
    return numba.njit(inline="always", **POLICY)(fn)


def uncached_kernel(fn):
    """Compile ``fn`` under :data:`POLICY` without the disk cache.

    For kernels that take a user's jitted function as an argument: each
    such function gives a new specialisation that cannot be cached.
    """
    return numba.njit(**{**POLICY, "cache": False})(fn)
