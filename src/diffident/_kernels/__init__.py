"""Private Numba kernels.

Details: docs/algorithms/numerics-kernels.md.
"""
