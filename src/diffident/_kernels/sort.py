"""Stable LSD radix sort of float64 values (with an optional permutation).

NumPy's comparison sort runs at about 65 ns per element for 1e7 doubles on
the reference machine, more than the whole worst-case sweep after it.  A
radix sort on the order-preserving integer image of the doubles does eight
counting passes of one byte (fewer when a byte is constant, as in the low
mantissa bytes of integer-valued data); 256 buckets keep the scatter
offsets in L1, which measured twice as fast as 11-bit digits here: O(n), and stable, so that equal values keep
their order and the first world of each group stays first.

Order: IEEE total order on the bit patterns, so -0.0 comes just before 0.0
(equal as floats: the grouping step merges them).  NaN never reaches here.

Where NumPy sorts doubles with its AVX-512 sorting network (x86-simd-sort,
on CPUs with AVX512_SKX) its ``np.sort`` is about four times faster than
this radix sort (0.10 s against 0.43 s for 1e7 doubles on such a Xeon), and
`sort` uses it; its argsort is not (0.73 s against 0.57 s), and `argsort`
keeps the radix sort, which is also the stable one.
"""

import numpy as np

from ._jit import kernel

_DIGIT = 8
_PASSES = 8
_BUCKETS = 1 << _DIGIT
_MASK = _BUCKETS - 1
_SIGN = np.int64(-9223372036854775808)


@kernel
def _to_keys(bits, keys):
    for i in range(bits.size):
        b = bits[i]
        keys[i] = b ^ ((b >> 63) | _SIGN)


@kernel
def _from_keys(keys, bits):
    for i in range(keys.size):
        k = keys[i]
        bits[i] = k ^ (((~k) >> 63) | _SIGN)


@kernel
def _histograms(keys, hist):
    for i in range(keys.size):
        k = keys[i]
        for p in range(_PASSES):
            hist[p, (k >> (_DIGIT * p)) & _MASK] += 1


@kernel
def _radix(keys, tmp, idx, tmp_idx, with_idx, hist):
    """Sort keys (and carry idx); return True if the result is in tmp."""
    n = keys.size
    _histograms(keys, hist)
    offs = np.empty(_BUCKETS, np.int64)
    in_tmp = False
    for p in range(_PASSES):
        h = hist[p]
        if h.max() == n:
            continue
        acc = 0
        for d in range(_BUCKETS):
            offs[d] = acc
            acc += h[d]
        src = tmp if in_tmp else keys
        dst = keys if in_tmp else tmp
        sh = _DIGIT * p
        if with_idx:
            si = tmp_idx if in_tmp else idx
            di = idx if in_tmp else tmp_idx
            for i in range(n):
                k = src[i]
                d = (k >> sh) & _MASK
                o = offs[d]
                dst[o] = k
                di[o] = si[i]
                offs[d] = o + 1
        else:
            for i in range(n):
                k = src[i]
                d = (k >> sh) & _MASK
                o = offs[d]
                dst[o] = k
                offs[d] = o + 1
        in_tmp = not in_tmp
    return in_tmp


_SMALL = 2048


def _simd_sort():
    try:
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:  # pragma: no cover - NumPy < 2 or a future layout
        return False
    return bool(__cpu_features__.get("AVX512_SKX", False))


_NUMPY_SORTS_FASTER = _simd_sort()


def sort(v):
    """Sorted copy of a contiguous float64 array."""
    if v.size < _SMALL or _NUMPY_SORTS_FASTER:
        return np.sort(v)
    keys = np.empty(v.size, np.int64)
    tmp = np.empty(v.size, np.int64)
    _to_keys(np.ascontiguousarray(v).view(np.int64), keys)
    dummy = np.empty(0, np.int64)
    in_tmp = _radix(keys, tmp, dummy, dummy, False, np.zeros((_PASSES, _BUCKETS), np.int64))
    res = tmp if in_tmp else keys
    out = np.empty(v.size, np.int64)
    _from_keys(res, out)
    return out.view(np.float64)


def argsort(v):
    """Stable argsort (int64) of a contiguous float64 array."""
    if v.size < _SMALL:
        return np.argsort(v, kind="stable")
    keys = np.empty(v.size, np.int64)
    tmp = np.empty(v.size, np.int64)
    _to_keys(np.ascontiguousarray(v).view(np.int64), keys)
    idx = np.arange(v.size, dtype=np.int64)
    tmp_idx = np.empty(v.size, np.int64)
    in_tmp = _radix(keys, tmp, idx, tmp_idx, True, np.zeros((_PASSES, _BUCKETS), np.int64))
    return tmp_idx if in_tmp else idx
