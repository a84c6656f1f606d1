"""Interval masses of the integer noises: the private wrapper of
:mod:`diffident._kernels.lattice` (Mathematics page, section 11).
"""

import numpy as np

from .._kernels import lattice as _k
from .._numerics import validate as _validate


def interval_mass(a, b, *, scale, noise):
    """P(a <= Z <= b) for the integer noise Z of ``noise`` ("discrete_laplace"
    or "discrete_gaussian") with ``scale`` in lattice units (the value-unit
    scale over the granularity).
    """
    gauss, discrete = _validate.noise_family(noise)
    if not discrete:
        raise ValueError(f"noise must be 'discrete_laplace' or 'discrete_gaussian', got {noise!r}")
    s = _validate.positive_scale("scale", scale)
    if np.ndim(s) != 0 or not np.isfinite(s):
        raise ValueError(f"scale must be one finite number > 0, got {scale!r}")
    av = _ends("a", a)
    bv = _ends("b", b)
    av, bv = np.broadcast_arrays(av, bv)
    shape = av.shape
    fa = np.ascontiguousarray(av, dtype=np.float64).reshape(-1)
    fb = np.ascontiguousarray(bv, dtype=np.float64).reshape(-1)
    out = np.empty(fa.shape[0], dtype=np.float64)
    _k.interval_masses(fa, fb, float(s), gauss, out)
    return out.reshape(shape)


def _ends(name, x):
    """Interval ends: integers (as floats) or +-inf, a ValueError naming the argument otherwise."""
    v = _validate.as_float(name, x)
    bad = np.isnan(v) | (np.isfinite(v) & (v != np.round(v)))
    if np.any(bad):
        raise ValueError(f"{name} must be integers or +-inf, {_validate.where(v, bad)}")
    return v
