"""Stable LSD radix sort of float64 values (with an optional permutation)."""

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


SMALL = 2048


def _simd_sort():
    try:
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:  # pragma: no cover - NumPy < 2 or a future layout
        return False
    return bool(__cpu_features__.get("AVX512_SKX", False))


_NUMPY_SORTS_FASTER = _simd_sort()


def sort(v):
    """Sorted copy of a contiguous float64 array."""
    if v.size < SMALL or _NUMPY_SORTS_FASTER:
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
    if v.size < SMALL:
        return np.argsort(v, kind="stable")
    keys = np.empty(v.size, np.int64)
    tmp = np.empty(v.size, np.int64)
    _to_keys(np.ascontiguousarray(v).view(np.int64), keys)
    idx = np.arange(v.size, dtype=np.int64)
    tmp_idx = np.empty(v.size, np.int64)
    in_tmp = _radix(keys, tmp, idx, tmp_idx, True, np.zeros((_PASSES, _BUCKETS), np.int64))
    return tmp_idx if in_tmp else idx




# Sorting values with their weights (``diffident._numerics.grouping.weighted_groups``).
# Rather than an argsort (eight radix passes that carry an index) and three
# random gathers (0.57 s and 3 x 0.14 s for 1e7 values), each value's sort
# key keeps its high bits and has its low ``b`` bits replaced by the
# entry's position (``b`` the bits of the largest position): one sort of
# plain 64-bit integers (NumPy's sorting network where it is faster, 0.10 s,
# else the radix sort without an index), then one gather of 32-byte records
# (value, count, prior, index; 16 bytes, value and prior, where every count
# is 1 and every weight positive: 0.13 s against 0.26 s for 1e7 entries) by
# the position in the low bits.  The order
# is that of the high bits, then the position; entries whose keys share the
# high bits but not the low ones (distinct values within 2**b units in the
# last place of each other) are then put in order by their whole key,
# stably, within each such run (`order_run`).  The result is the stable
# order of `argsort`, exactly.

_INSERTION = 32
_RADIX_RUN = 1 << 14
_INT_MAX = np.int64(9223372036854775807)


@kernel
def pack(bits, w, c, p, scale, shift, full, out, rec, recf):
    """For each entry i of positive weight ``w[i]``, the j-th such: ``out[j]``,
    its value's key (``bits``: the values' int64 view) with the low
    ``shift`` bits replaced by j, and its record in ``rec`` (written as
    floats through ``recf``, the float view of ``rec``): with ``full``,
    four entries, the value's bits, its count times ``scale``, its prior
    and i; else (every weight positive, every count 1: i = j, count x
    scale = scale) two, the value's bits and its prior, half the memory
    for the gather to read.  ``out`` holds one entry per positive weight.
    """
    low = (np.int64(1) << shift) - 1
    j = 0
    for i in range(bits.size):
        if not w[i] > 0.0:
            continue
        b = bits[i]
        out[j] = ((b ^ ((b >> 63) | _SIGN)) & ~low) | j
        if full:
            rec[4 * j] = b
            recf[4 * j + 1] = c[i] * scale
            recf[4 * j + 2] = p[i]
            rec[4 * j + 3] = i
        else:
            rec[2 * j] = b
            recf[2 * j + 1] = p[i]
        j += 1


def histograms():
    """Work space for the histograms of one radix sort."""
    return np.zeros((_PASSES, _BUCKETS), np.int64)


def sort_keys(keys):
    """int64 keys sorted in their unsigned order (``keys`` is used up)."""
    if _NUMPY_SORTS_FASTER or keys.size < SMALL:
        return np.sort(keys.view(np.uint64)).view(np.int64)
    tmp = np.empty(keys.size, np.int64)
    dummy = np.empty(0, np.int64)
    return tmp if _radix(keys, tmp, dummy, dummy, False, np.zeros((_PASSES, _BUCKETS), np.int64)) else keys


@kernel
def longest_run(packed, shift):
    """The most consecutive packed keys that share their high bits."""
    low = (np.int64(1) << shift) - 1
    best = 1
    a = 0
    for j in range(1, packed.size):
        if (packed[j] & ~low) != (packed[j - 1] & ~low):
            a = j
        best = max(best, j - a + 1)
    return best


@kernel
def _signed_key(b):
    """The float of bits b as a signed integer of the same order (-0.0 < 0.0)."""
    return b ^ ((b >> 63) & _INT_MAX)


@kernel
def order_run(vbits, cbits, pbits, order, m, shift, keys, tmp, hist):
    """Stable-sort the first m entries of the four arrays (int64 bits) by
    the values' keys, which differ in their low ``shift`` bits only: by
    insertion when few, else by one sort of those bits with each entry's
    offset below them (distinct numbers, so that any sort is stable; the
    radix sort from `_RADIX_RUN` entries on).  ``keys`` and ``tmp``: work
    space of m entries or more; ``hist``: a radix sort's histograms.
    """
    inv = 0
    for i in range(1, m):
        if _signed_key(vbits[i]) < _signed_key(vbits[i - 1]):
            inv += 1
    if inv == 0:
        return
    if m <= _INSERTION:
        for i in range(1, m):
            v, c, p, o = vbits[i], cbits[i], pbits[i], order[i]
            k = _signed_key(v)
            j = i
            while j > 0 and _signed_key(vbits[j - 1]) > k:
                vbits[j] = vbits[j - 1]
                cbits[j] = cbits[j - 1]
                pbits[j] = pbits[j - 1]
                order[j] = order[j - 1]
                j -= 1
            vbits[j], cbits[j], pbits[j], order[j] = v, c, p, o
        return
    s2 = 1
    while (np.int64(1) << s2) < m:
        s2 += 1
    low = (np.int64(1) << shift) - 1
    pos = (np.int64(1) << s2) - 1
    for i in range(m):
        v = vbits[i]
        keys[i] = (((v ^ ((v >> 63) | _SIGN)) & low) << s2) | i
    srt, free = keys, tmp
    if m < _RADIX_RUN:
        keys[:m].sort()
    else:
        hist[:, :] = 0
        dummy = np.empty(0, np.int64)
        if _radix(keys[:m], tmp[:m], dummy, dummy, np.bool_(False), hist):  # (np.bool_: one specialisation)
            srt, free = tmp, keys
    _permute(vbits, m, srt, pos, free)
    _permute(cbits, m, srt, pos, free)
    _permute(pbits, m, srt, pos, free)
    _permute(order, m, srt, pos, free)


@kernel
def _permute(x, m, keys, pos, tmp):
    for i in range(m):
        tmp[i] = x[i]
    for i in range(m):
        x[i] = tmp[keys[i] & pos]
