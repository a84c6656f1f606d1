"""Double-double arithmetic on NumPy arrays: values carried as an
unevaluated sum ``hi + lo`` of two float64 arrays (about 106 bits).
"""

import math

import numpy as np

_SPLIT = 134217729.0  # 2**27 + 1
_F = float.fromhex

# ln 2 in three parts (hi + lo + lolo = ln 2 to about 2^-160)
LN2_H = _F("0x1.62e42fefa39efp-1")
LN2_L = _F("0x1.abc9e3b39803fp-56")
LN2_LL = _F("0x1.7b57a079a1934p-111")
# ln(2) / 64 for the reduction: C1 has 32 significant bits, so k * C1 is
# exact for |k| < 2**21
_C1 = _F("0x1.62e42fee00000p-7")
_C2 = _F("0x1.a39ef35793c76p-39")
_C3 = _F("0x1.cc01f97b57a08p-93")
_INV_C = _F("0x1.71547652b82fep+6")  # 64 / ln 2
# 1/n! as double-doubles (n = 2..5) and doubles (n = 6..11)
_FACT_H = {n: _F(h) for n, h in ((2, "0x1.0000000000000p-1"), (3, "0x1.5555555555555p-3"),
                                 (4, "0x1.5555555555555p-5"), (5, "0x1.1111111111111p-7"))}
_FACT_L = {n: _F(h) for n, h in ((2, "0x0.0p+0"), (3, "0x1.5555555555555p-57"),
                                 (4, "0x1.5555555555555p-59"), (5, "0x1.1111111111111p-63"))}
_INV_FACT = [1.0, 1.0, 1 / 2, 1 / 6, 1 / 24, 1 / 120, 1 / 720, 1 / 5040, 1 / 40320, 1 / 362880,
             1 / 3628800, 1 / 39916800]
# 2^(j/64), j = 0..63, as double-doubles
_TABLE = [
    ("0x1.0000000000000p+0", "0x0.0p+0"),
    ("0x1.02c9a3e778061p+0", "-0x1.19083535b085dp-56"),
    ("0x1.059b0d3158574p+0", "0x1.d73e2a475b465p-55"),
    ("0x1.0874518759bc8p+0", "0x1.186be4bb284ffp-57"),
    ("0x1.0b5586cf9890fp+0", "0x1.8a62e4adc610bp-54"),
    ("0x1.0e3ec32d3d1a2p+0", "0x1.03a1727c57b53p-59"),
    ("0x1.11301d0125b51p+0", "-0x1.6c51039449b3ap-54"),
    ("0x1.1429aaea92de0p+0", "-0x1.32fbf9af1369ep-54"),
    ("0x1.172b83c7d517bp+0", "-0x1.19041b9d78a76p-55"),
    ("0x1.1a35beb6fcb75p+0", "0x1.e5b4c7b4968e4p-55"),
    ("0x1.1d4873168b9aap+0", "0x1.e016e00a2643cp-54"),
    ("0x1.2063b88628cd6p+0", "0x1.dc775814a8495p-55"),
    ("0x1.2387a6e756238p+0", "0x1.9b07eb6c70573p-54"),
    ("0x1.26b4565e27cddp+0", "0x1.2bd339940e9d9p-55"),
    ("0x1.29e9df51fdee1p+0", "0x1.612e8afad1255p-55"),
    ("0x1.2d285a6e4030bp+0", "0x1.0024754db41d5p-54"),
    ("0x1.306fe0a31b715p+0", "0x1.6f46ad23182e4p-55"),
    ("0x1.33c08b26416ffp+0", "0x1.32721843659a6p-54"),
    ("0x1.371a7373aa9cbp+0", "-0x1.63aeabf42eae2p-54"),
    ("0x1.3a7db34e59ff7p+0", "-0x1.5e436d661f5e3p-56"),
    ("0x1.3dea64c123422p+0", "0x1.ada0911f09ebcp-55"),
    ("0x1.4160a21f72e2ap+0", "-0x1.ef3691c309278p-58"),
    ("0x1.44e086061892dp+0", "0x1.89b7a04ef80d0p-59"),
    ("0x1.486a2b5c13cd0p+0", "0x1.3c1a3b69062f0p-56"),
    ("0x1.4bfdad5362a27p+0", "0x1.d4397afec42e2p-56"),
    ("0x1.4f9b2769d2ca7p+0", "-0x1.4b309d25957e3p-54"),
    ("0x1.5342b569d4f82p+0", "-0x1.07abe1db13cadp-55"),
    ("0x1.56f4736b527dap+0", "0x1.9bb2c011d93adp-54"),
    ("0x1.5ab07dd485429p+0", "0x1.6324c054647adp-54"),
    ("0x1.5e76f15ad2148p+0", "0x1.ba6f93080e65ep-54"),
    ("0x1.6247eb03a5585p+0", "-0x1.383c17e40b497p-54"),
    ("0x1.6623882552225p+0", "-0x1.bb60987591c34p-54"),
    ("0x1.6a09e667f3bcdp+0", "-0x1.bdd3413b26456p-54"),
    ("0x1.6dfb23c651a2fp+0", "-0x1.bbe3a683c88abp-57"),
    ("0x1.71f75e8ec5f74p+0", "-0x1.16e4786887a99p-55"),
    ("0x1.75feb564267c9p+0", "-0x1.0245957316dd3p-54"),
    ("0x1.7a11473eb0187p+0", "-0x1.41577ee04992fp-55"),
    ("0x1.7e2f336cf4e62p+0", "0x1.05d02ba15797ep-56"),
    ("0x1.82589994cce13p+0", "-0x1.d4c1dd41532d8p-54"),
    ("0x1.868d99b4492edp+0", "-0x1.fc6f89bd4f6bap-54"),
    ("0x1.8ace5422aa0dbp+0", "0x1.6e9f156864b27p-54"),
    ("0x1.8f1ae99157736p+0", "0x1.5cc13a2e3976cp-55"),
    ("0x1.93737b0cdc5e5p+0", "-0x1.75fc781b57ebcp-57"),
    ("0x1.97d829fde4e50p+0", "-0x1.d185b7c1b85d1p-54"),
    ("0x1.9c49182a3f090p+0", "0x1.c7c46b071f2bep-56"),
    ("0x1.a0c667b5de565p+0", "-0x1.359495d1cd533p-54"),
    ("0x1.a5503b23e255dp+0", "-0x1.d2f6edb8d41e1p-54"),
    ("0x1.a9e6b5579fdbfp+0", "0x1.0fac90ef7fd31p-54"),
    ("0x1.ae89f995ad3adp+0", "0x1.7a1cd345dcc81p-54"),
    ("0x1.b33a2b84f15fbp+0", "-0x1.2805e3084d708p-57"),
    ("0x1.b7f76f2fb5e47p+0", "-0x1.5584f7e54ac3bp-56"),
    ("0x1.bcc1e904bc1d2p+0", "0x1.23dd07a2d9e84p-55"),
    ("0x1.c199bdd85529cp+0", "0x1.11065895048ddp-55"),
    ("0x1.c67f12e57d14bp+0", "0x1.2884dff483cadp-54"),
    ("0x1.cb720dcef9069p+0", "0x1.503cbd1e949dbp-56"),
    ("0x1.d072d4a07897cp+0", "-0x1.cbc3743797a9cp-54"),
    ("0x1.d5818dcfba487p+0", "0x1.2ed02d75b3707p-55"),
    ("0x1.da9e603db3285p+0", "0x1.c2300696db532p-54"),
    ("0x1.dfc97337b9b5fp+0", "-0x1.1a5cd4f184b5cp-54"),
    ("0x1.e502ee78b3ff6p+0", "0x1.39e8980a9cc8fp-55"),
    ("0x1.ea4afa2a490dap+0", "-0x1.e9c23179c2893p-54"),
    ("0x1.efa1bee615a27p+0", "0x1.dc7f486a4b6b0p-54"),
    ("0x1.f50765b6e4540p+0", "0x1.9d3e12dd8a18bp-54"),
    ("0x1.fa7c1819e90d8p+0", "0x1.74853f3a5931ep-55"),
]
_T_H = np.array([_F(h) for h, _ in _TABLE])
_T_L = np.array([_F(lo) for _, lo in _TABLE])
_EXP_ARG_MAX = 1e4  # beyond: the result is 0 or inf in any float format used here


# ------------------------------------------------------------ error-free --

def two_sum(a, b):
    """``(s, e)`` with ``s = fl(a + b)`` and ``a + b == s + e`` exactly (Knuth)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def fast_two_sum(a, b):
    """`two_sum` for ``|a| >= |b|`` (or ``a == 0``): three operations."""
    s = a + b
    return s, b - (s - a)


def _split(a):
    c = _SPLIT * a
    hi = c - (c - a)
    return hi, a - hi


def two_prod(a, b):
    """``(p, e)`` with ``p = fl(a b)`` and ``a b == p + e`` exactly
    (Dekker), for ``|a|, |b| < 2^995`` and an error term that does not
    underflow.
    """
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


# ------------------------------------------------------------ arithmetic --

def add(ah, al, bh, bl):
    """``a + b`` (the accurate double-double sum: both error terms kept)."""
    s, e = two_sum(ah, bh)
    t, f = two_sum(al, bl)
    s, e = fast_two_sum(s, e + t)
    return fast_two_sum(s, e + f)


def add_d(ah, al, b):
    """``a + b`` for a double b."""
    s, e = two_sum(ah, b)
    return fast_two_sum(s, e + al)


def mul(ah, al, bh, bl):
    """``a b``."""
    p, e = two_prod(ah, bh)
    return fast_two_sum(p, e + (ah * bl + al * bh))


def mul_d(ah, al, b):
    """``a b`` for a double b."""
    p, e = two_prod(ah, b)
    return fast_two_sum(p, e + al * b)


def div(ah, al, bh, bl):
    """``a / b`` (two quotient digits; about 2^-104 relative)."""
    q1 = ah / bh
    p, e = mul_d(bh, bl, q1)
    r = ((ah - p) - e) + al  # ah - p is exact: p is a within an ulp
    q2 = r / bh
    p, e = mul_d(bh, bl, q2)
    r2 = ((r - p) - e)
    q3 = r2 / bh
    s, t = fast_two_sum(q1, q2)
    return fast_two_sum(s, t + q3)


def pairwise_sum(x):
    """The sum of finite ``x`` along its last axis (length >= 1) as
    ``(h, l, bound)``: ``|exact sum - (h + l)| <= bound``.
    """
    x = np.asarray(x, dtype=np.float64)
    err = np.zeros(x.shape[:-1])
    mag = np.zeros(x.shape[:-1])
    levels = 0
    while x.shape[-1] > 1:
        if x.shape[-1] % 2:
            x = np.concatenate([x, np.zeros(x.shape[:-1] + (1,))], axis=-1)
        s, e = two_sum(x[..., 0::2], x[..., 1::2])
        err = err + e.sum(axis=-1)
        mag = mag + np.abs(e).sum(axis=-1)
        x = s
        levels += 1
    h, l = two_sum(x[..., 0], err)
    return h, l, (2 * levels + 4) * 2.0**-53 * 1.01 * mag


def exact_sign(rows):
    """The sign (-1, 0, 1) of the exact sum of each row of the 2-d array
    ``rows`` (finite floats): ``math.fsum`` is the exact sum correctly
    rounded, so its sign is exact.  A Python loop: for the few rows where
    `pairwise_sum`'s bound leaves the answer open.
    """
    return np.array([np.sign(math.fsum(r)) for r in rows], dtype=np.float64).reshape(len(rows))


def le(x, h, l):
    """Whether the double ``x <= h + l`` (``h - x`` is exact where ``l``
    can change the answer, within a factor 2 of h; elsewhere its sign
    decides).  False for NaN.
    """
    return (h - x) + l >= 0.0


def ge(x, h, l):
    """Whether the double ``x >= h + l`` (as `le`)."""
    return (x - h) - l >= 0.0


# ----------------------------------------------------------- elementary --

def _expm1_reduced(rh, rl):
    """``expm1(r)`` for ``|r| <= ln(2)/128`` (plus a little): Taylor series,
    the terms from r^6 on in doubles (they are below 2^-40 of the result).
    """
    t = _INV_FACT[11]
    for n in range(10, 5, -1):
        t = _INV_FACT[n] + rh * t
    ph, pl = mul_d(rh, rl, t)  # r * (1/6! + ...)
    for n in (5, 4, 3, 2):
        ph, pl = add(ph, pl, _FACT_H[n], _FACT_L[n])
        ph, pl = mul(rh, rl, ph, pl)
    # now p = r * (1/2 + r/6 + ...) = expm1(r)/r - 1
    ph, pl = mul(rh, rl, ph, pl)
    return add(rh, rl, ph, pl)


def _reduce(xh, xl):
    """``x = k ln(2)/64 + r`` with integer k (float) and ``|r| <= ln(2)/128``."""
    k = np.rint(xh * _INV_C)
    t = xh - k * _C1  # exact: k * C1 is exact and within a factor 2 of xh
    p, e = two_prod(k, _C2)
    rh, rl = two_sum(t, -p)
    rl = rl + ((xl - e) - k * _C3)
    rh, rl = fast_two_sum(rh, rl)
    return k, rh, rl


def _exp_table(xh, xl):
    """The pieces of ``exp(x) = 2^q T (1 + e)``: ``(T hi, T lo, (T e) hi,
    (T e) lo, q)``, T = 2^(j/64) from the table, e = expm1 of the reduced
    argument (both double-doubles).
    """
    k, rh, rl = _reduce(xh, xl)
    eh, el = _expm1_reduced(rh, rl)
    ki = k.astype(np.int64)
    j = ki & 63
    q = (ki - j) >> 6
    th, tl = _T_H[j], _T_L[j]
    ph, pl = mul(th, tl, eh, el)
    return th, tl, ph, pl, q


def exp_parts(xh, xl):
    """``exp(x) = (h + l) 2^q`` with ``h + l`` in [1, 2) (to rounding);
    returns ``(h, l, q)`` (q an integer array).  Arguments are clipped to
    +-1e4: the caller decides what an over- or underflow means.
    """
    big = np.abs(xh) > _EXP_ARG_MAX
    xh = np.clip(xh, -_EXP_ARG_MAX, _EXP_ARG_MAX)
    xl = np.where(big, 0.0, xl)
    th, tl, ph, pl, q = _exp_table(xh, xl)
    h, l = add(th, tl, ph, pl)
    return h, l, q


def exp(xh, xl):
    """``exp(x)`` as a double-double (results in the normal range; beyond,
    the parts over- or underflow like ``np.ldexp``).
    """
    h, l, q = exp_parts(xh, xl)
    return np.ldexp(h, q), np.ldexp(l, q)


def ldexp_round(h, l, q):
    """``(h + l) 2^q`` rounded to the nearest double, for a normalised
    double-double in the normal range and integers q: ``np.ldexp`` of h,
    corrected by the remainder where the result is subnormal (there
    ``np.ldexp`` rounds h alone).
    """
    r = np.ldexp(h, q)
    sub = np.abs(r) < 2.2250738585072014e-308
    if sub.any():
        back = np.ldexp(r, -q)  # exact: r is a multiple of its ulp
        rem = (h - back) + l  # h - back exact (back is h rounded to fewer bits)
        half = np.ldexp(0.5, -1074 - q)  # half the subnormal spacing 2^-1074, scaled like h
        r = np.where(sub & (rem > half), np.nextafter(r, np.inf),
                     np.where(sub & (rem < -half), np.nextafter(r, -np.inf), r))
    return r


def blockwise(fn, *arrays, block=4096):
    """``fn(*arrays)`` on 1-d arrays of one length, a block of entries at a
    time (the many temporaries of the double-double functions then stay in
    the cache: about 4x faster on large arrays); ``fn`` returns an array or
    a tuple of arrays, concatenated likewise.
    """
    n = arrays[0].size if arrays else 0
    if n <= block:
        return fn(*arrays)
    parts = [fn(*(a[i:i + block] for a in arrays)) for i in range(0, n, block)]
    if isinstance(parts[0], tuple):
        return tuple(np.concatenate(p) for p in zip(*parts, strict=True))
    return np.concatenate(parts)


def expm1(xh, xl):
    """``exp(x) - 1`` with a relative error (no cancellation near 0)."""
    xl = np.where((xh < -_EXP_ARG_MAX) | (xh > 709.0), 0.0, xl)
    xh = np.clip(xh, -_EXP_ARG_MAX, 709.0)
    th, tl, ph, pl, q = _exp_table(xh, xl)
    # 2^q T (1 + e) - 1 = 2^q ((T - 1) + T e) + (2^q - 1), T - 1 exact
    ph, pl = add(ph, pl, th - 1.0, tl)
    ph, pl = np.ldexp(ph, q), np.ldexp(pl, q)
    ch, cl = two_sum(np.ldexp(1.0, q), -1.0)  # 2^q - 1, exactly
    return add(ph, pl, ch, cl)


def log(xh, xl):
    """``ln(x)`` for ``x > 0``: ``x = f 2^k`` with f in [sqrt(1/2), sqrt(2)),
    ``ln f`` by one Newton step from ``np.log`` (``ln f = y + ln(f e^-y)``,
    ``f e^-y - 1`` about 1e-16, its logarithm its own value to 2^-106).
    """
    f, k = np.frexp(xh)
    low = f < 0.7071067811865476
    f = np.where(low, 2.0 * f, f)
    k = np.where(low, k - 1, k)
    fl = np.ldexp(xl, -k)
    y = np.log(f)
    eh, el = exp(-y, np.zeros_like(y))
    ph, pl = mul(f, fl, eh, el)
    # d = f e^-y - 1, below 2^-51 (np.log is within an ulp): exact ph - 1,
    # kept as a double-double (it is the whole answer where y = 0)
    dh, dl = fast_two_sum(ph - 1.0, pl)
    dh, dl = fast_two_sum(dh, dl - 0.5 * dh * dh)  # ln(1 + d) = d - d^2/2 + O(2^-153)
    kf = k.astype(np.float64)
    ah, al = two_prod(kf, LN2_H)
    al = al + kf * LN2_L
    s, e = two_sum(y, dh)
    return add(ah, al, s, e + dl)


def log1p(xh, xl):
    """``ln(1 + x)`` for ``x > -1``, with a relative error near 0: one
    Newton step from ``np.log1p`` (``y + (x - expm1 y) / (1 + expm1 y)``)
    where ``|x| < 1/4``, `log` of the exact ``1 + x`` elsewhere.
    """
    xh, xl = np.asarray(xh, dtype=np.float64), np.asarray(xl, dtype=np.float64)
    small = np.abs(xh) < 0.25
    if small.all():
        return _log1p_small(xh, xl)
    oh, ol = np.empty_like(xh), np.empty_like(xh)
    i = np.flatnonzero(small)
    if i.size:
        oh[i], ol[i] = _log1p_small(xh[i], xl[i])
    i = np.flatnonzero(~small)
    oh[i], ol[i] = log(*add_d(xh[i], xl[i], 1.0))
    return oh, ol


def _log1p_small(xh, xl):
    y = np.log1p(xh)
    eh, el = expm1(y, np.zeros_like(y))
    dh, dl = add(xh, xl, -eh, -el)
    return two_sum(y, (dh + dl) / (1.0 + eh))


def log1p_exp(th, tl):
    """``ln(1 + e^t)`` (softplus), for finite t: ``max(t, 0) +
    log1p(e^-|t|)``.
    """
    neg = th < 0.0
    ah, al = np.where(neg, th, -th), np.where(neg, tl, -tl)  # -|t|
    vh, vl = exp(ah, al)
    sh, sl = log1p(vh, vl)
    ph, pl = add(th, tl, sh, sl)
    return np.where(neg, sh, ph), np.where(neg, sl, pl)
