"""Scalar building blocks shared by the kernels."""

from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from ._jit import kernel

_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01  # low 21 bits zero: n * _LN2_HI is exact
_LN2_LO = 1.90821492927058770002e-10
EXP_MIN = -708.3


@intrinsic
def _bits_intrinsic(typingctx, bits):
    """Reinterpret the bits of an int64 as a float64 (vectorisable)."""
    sig = types.float64(types.int64)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())

    return sig, codegen


_bits_to_float64: Any = _bits_intrinsic  # (typed Any for mypy, as fma below)


@intrinsic
def _fma(typingctx, a, b, c):
    """a * b + c with one rounding (``llvm.fma``): explicit, so the same in
    scalar and vector code, unlike compiler contraction.
    """
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context, builder, signature, args):
        dbl = ir.DoubleType()
        fnty = ir.FunctionType(dbl, [dbl, dbl, dbl])
        fn = builder.module.declare_intrinsic("llvm.fma", [dbl], fnty)
        return builder.call(fn, args)

    return sig, codegen


#: ``fma(a, b, c)`` in kernels (typed ``Any`` for mypy: an intrinsic's
#: Python signature includes Numba's typing context).
fma: Any = _fma


@kernel
def exp(x):
    """exp(x) for x <= 709, vectorisable; 0 for x < -708.3 (and -inf)."""
    # No clamp: below EXP_MIN (and for -inf) the lanes compute garbage that
    # the final select discards.
    n = np.rint(x * _LOG2E)  # nearest integer, one vector instruction
    r = fma(-n, _LN2_LO, fma(-n, _LN2_HI, x))
    p = 2.5110037605963777e-08
    p = fma(p, r, 2.763263963904103e-07)
    p = fma(p, r, 2.755724091857897e-06)
    p = fma(p, r, 2.4801485482328494e-05)
    p = fma(p, r, 0.00019841269890047113)
    p = fma(p, r, 0.0013888888952314775)
    p = fma(p, r, 0.008333333333319601)
    p = fma(p, r, 0.0416666666664881)
    p = fma(p, r, 0.1666666666666668)
    p = fma(p, r, 0.5000000000000019)
    p = fma(p, r, 1.0)
    p = fma(p, r, 1.0)
    scale = _bits_to_float64((numba.int64(n) + 1023) << 52)
    return p * scale if x >= EXP_MIN else 0.0


_SHIFT = 64.0 * 0.6931471805599453  # 64 ln 2 (its rounding: a relative 1e-17 of the result)
_TWO_M64 = 2.0 ** -64


@kernel
def exp_full(x):
    """:func:`exp` down to the subnormal range: below -708.3 the result is
    ``exp(x + 64 ln 2) 2**-64`` (one exponential either way, vectorisable),
    0 only below about -745.1 (where the true value rounds to 0).  For the
    sweeps that sum linear weights: a factor of 1e-310 times a weight of
    1e300 is not negligible, and a flushed one would drop it.
    """
    low = x < EXP_MIN
    return exp(x + _SHIFT if low else x) * (_TWO_M64 if low else 1.0)


@kernel
def two_diff(a, b):
    """Return (s, e) with s = fl(a - b) and a - b == s + e exactly."""
    s = a - b
    bb = s - a
    e = (a - (s - bb)) - (b + bb)
    return s, e


@kernel
def sum8(x):
    """Sum of a contiguous array with eight independent accumulators."""
    n = x.size
    a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = 0.0
    j = 0
    while j + 8 <= n:
        a0 += x[j]
        a1 += x[j + 1]
        a2 += x[j + 2]
        a3 += x[j + 3]
        a4 += x[j + 4]
        a5 += x[j + 5]
        a6 += x[j + 6]
        a7 += x[j + 7]
        j += 8
    s = 0.0
    while j < n:
        s += x[j]
        j += 1
    return s + (((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7)))
