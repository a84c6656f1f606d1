"""Private Numba kernels."""
