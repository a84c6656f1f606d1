"""Private Numba kernels.

Everything in this subpackage is a plain-loop ``njit(cache=True)`` function
working on already validated, contiguous float64 arrays that the public
wrappers in :mod:`diffident` allocate.  Nothing here validates input or
broadcasts; nothing here is public API.
"""
