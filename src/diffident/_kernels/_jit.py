"""The one compilation policy of every kernel.

Every jitted function in this subpackage is declared with :func:`kernel`
or :func:`parallel_kernel` (or, for a kernel that takes a user's jitted
function, :func:`uncached_kernel`), never with ``numba.njit`` directly, so
that the policy below holds by construction:

* ``cache=True``: compiled machine code is kept on disk beside the module,
  so only the first call after an install pays for compilation.
* ``error_model="python"``: an integer or float division by zero raises
  ``ZeroDivisionError`` instead of returning ``inf`` or ``nan`` silently;
  the wrappers never divide by zero on purpose, so a raise means a bug.
* ``fastmath=False``: Numba compiles a callee with its caller's flags, so
  one fastmath caller would let LLVM reassociate the two-part ln 2 of the
  exponential's range reduction and cancel TwoSum's error term everywhere.
  Without contraction every kernel also gives bit-identical results
  whether a loop ran vectorised or scalar, which is what lets a
  calibration promise that its answer passes the evaluator the user calls
  afterwards.

Serial and ``parallel=True`` variants are separate Python functions:
Numba keys its on-disk cache by function, and two dispatchers of one
function would share (and overwrite) one entry.
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
