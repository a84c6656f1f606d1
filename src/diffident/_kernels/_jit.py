"""The one compilation policy of every kernel."""

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
    """Compile ``fn`` under :data:`POLICY`, inlined into its callers at Numba's IR level."""
    return numba.njit(inline="always", **POLICY)(fn)


def uncached_kernel(fn):
    """Compile ``fn`` under :data:`POLICY` without the disk cache."""
    return numba.njit(**{**POLICY, "cache": False})(fn)
