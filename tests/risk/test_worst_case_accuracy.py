"""The exact worst case (Mathematics page, section 4) against an independent 60-digit
reference at 1e6 and 1e7 worlds, and every path that evaluates it giving the
same bits.

The reference below is written from the definition, not from the library:

    rho* = max_j pi_j / S_j,    S_j = sum_k c_k pi_k exp(-|f_j - f_k| / scale)

with float64 inputs taken as exact numbers.  Three independent ways, each
cheap enough for a million worlds:

* equally spaced values a + h k: the smallest S_j is at an end, a geometric
  sum in closed form (mpmath);
* values on an integer lattice (random gaps, any integer weights): the left
  and right sums A_j, B_j by their recurrences, with every factor
  exp(-gap h / scale) from mpmath and the recurrences in exact integer
  fixed point with 256 fraction bits (77 digits; a million steps lose at most
  a million units of 2^-256);
* few distinct values (any counts and priors): the double sum, term by term
  (mpmath).

The three are checked against each other on small inputs.  A relative error
of 1e-13 is about 450 units of roundoff; the sweeps before the sub-block
scheme of ``_kernels/worstcase.py`` were off by up to 1e-9 on these inputs.
"""

import numpy as np
import pytest
from mpmath import mp, mpf

import diffident as di
from diffident._risk import worst_case as _worst_case
from diffident._worlds.values import Worlds

DPS = 60
P = 256  # fraction bits of the lattice reference
RTOL = 1e-13
ALL = 10.0 ** np.arange(-3, 13)  # scales in units of the values' spread
SOME = 10.0 ** np.array([-3, -1, 1, 3, 5, 7, 9, 12])


# ------------------------------------------------------------- reference --

def ref_equally_spaced(m, scale, h=1.0, count=1):
    """rho* for m values a + h k, each repeated ``count`` times, uniform prior:
    1 / S_0 with S_0 = count (1 - x^m) / (1 - x), x = exp(-h / scale)."""
    with mp.workdps(DPS):
        if scale == np.inf:
            return mpf(1) / (count * m)
        t = mpf(h) / mpf(float(scale))
        return 1 / (count * mp.expm1(-m * t) / mp.expm1(-t))


def ref_lattice(n, w, scale, h=1.0):
    """rho* for values h n (n: sorted distinct integers) with integer weights
    w, uniform prior: 1 / min_j S_j, from the recurrences
    A_j = (A_{j-1} + w_{j-1}) x_j, B_j = (B_{j+1} + w_{j+1}) x_{j+1} in fixed point."""
    one = 1 << P
    gaps = np.diff(np.asarray(n, dtype=np.int64))
    with mp.workdps(DPS + 20):
        inv = mpf(0) if scale == np.inf else 1 / mpf(float(scale))
        table = {int(g): int(mp.nint(mp.exp(-int(g) * mpf(h) * inv) * one)) for g in np.unique(gaps)}
    E = [table[int(g)] for g in gaps]
    W = [int(x) << P for x in w]
    u = len(W)
    A = [0] * u
    a = 0
    for j in range(1, u):
        a = ((a + W[j - 1]) * E[j - 1]) >> P
        A[j] = a
    best = A[u - 1] + W[u - 1]
    b = 0
    for j in range(u - 2, -1, -1):
        b = ((b + W[j + 1]) * E[j]) >> P
        best = min(best, A[j] + W[j] + b)
    with mp.workdps(DPS):
        return mpf(one) / best


def ref_direct(values, scale, counts=None, prior=None):
    """rho* by the double sum over the distinct (value, prior) entries."""
    f = np.asarray(values, dtype=np.float64)
    c = np.ones(f.size) if counts is None else np.asarray(counts, dtype=np.float64)
    p = np.ones(f.size) if prior is None else np.asarray(prior, dtype=np.float64)
    keep = c * p > 0
    key, inverse = np.unique(np.stack([f[keep], p[keep]], axis=1), axis=0, return_inverse=True)
    cnt = np.bincount(np.ravel(inverse), weights=c[keep])
    with mp.workdps(DPS):
        fv = [mpf(float(x)) for x in key[:, 0]]
        pv = [mpf(float(x)) for x in key[:, 1]]
        cv = [mpf(float(x)) for x in cnt]
        inv = mpf(0) if scale == np.inf else 1 / mpf(float(scale))
        best = mpf(0)
        for j in range(len(fv)):
            S = mp.fsum(cv[k] * pv[k] * mp.exp(-abs(fv[j] - fv[k]) * inv) for k in range(len(fv)))
            best = max(best, pv[j] / S)
        return best


def rel_err(got, ref):
    with mp.workdps(DPS):
        return float(abs(mpf(float(got)) / ref - 1))


def check(got, refs):
    errs = [rel_err(g, r) for g, r in zip(np.ravel(got), refs, strict=False)]
    assert max(errs) <= RTOL, f"relative errors {[f'{e:.1e}' for e in errs]}"


# ---------------------------------------------------------------- inputs --

def equally_spaced(m):
    """m values 2^10 + k 2^-20: exact doubles, exact gaps 2^-20."""
    return 1024.0 + np.arange(m) * 2.0**-20, 2.0**-20


def lattice(u, max_gap, seed):
    """u sorted distinct integers with random gaps 1 .. max_gap, from 0."""
    n = np.cumsum(np.random.default_rng(seed).integers(1, max_gap + 1, u))
    return n - n[0]


def tied(u, seed):
    """u distinct lattice values, each repeated 1 to 19 times (about 1e6
    worlds for u = 1e5): (distinct values, counts, the repeated values)."""
    n = lattice(u, 16, seed)
    c = np.random.default_rng(seed + 1).integers(1, 20, u)
    return n, c, np.repeat(n.astype(np.float64), c)


# ------------------------------------------------------- the reference itself --

def test_the_three_references_agree():
    n = lattice(40, 5, 1)
    w = np.random.default_rng(2).integers(1, 4, n.size)
    for rel in (1e-2, 1.0, 1e3, np.inf):
        s = rel * n[-1]
        d = ref_direct(n.astype(float), s, counts=w)
        assert abs(ref_lattice(n, w, s) / d - 1) < mpf(10) ** -50
    for m, h in ((30, 1.0), (17, 0.25)):
        v = 3.0 + h * np.arange(m)
        for rel in (0.1, 10.0, 1e9):
            s = rel * h * (m - 1)
            d = ref_direct(v, s)
            assert abs(ref_equally_spaced(m, s, h) / d - 1) < mpf(10) ** -50
            assert abs(ref_lattice(np.arange(m), np.ones(m, int), s, h) / d - 1) < mpf(10) ** -50
            assert abs(ref_equally_spaced(m, s, h, 3) / ref_direct(v, s, counts=np.full(m, 3.0)) - 1) < mpf(10) ** -50


def test_small_inputs_with_priors_and_counts():
    # few distinct values: the double sum, with a prior that moves the worst
    # world inside, zero counts, and repeated values
    rng = np.random.default_rng(3)
    k = rng.integers(0, 40, 3000)
    v = k * 0.37
    c = rng.integers(0, 5, v.size).astype(float)
    p = rng.uniform(0.1, 3.0, 40)[k]  # one prior per value: 40 distinct entries
    p[k == k[7]] = 40.0
    scales = np.array([1e-3, 0.1, 1.0, 10.0, 1e3, 1e9]) * np.ptp(v)
    got = di.worst_case_risk(v, scale=scales, counts=c, prior=p)
    check(got, [ref_direct(v, s, counts=c, prior=p) for s in scales])


# -------------------------------------------------------------- accuracy --

@pytest.mark.parametrize("m", [10**6, 10**7])
def test_equally_spaced_values(m):
    v, h = equally_spaced(m) if m <= 2**20 else (np.arange(float(m)), 1.0)
    scales = ALL * (v[-1] - v[0])
    check(di.worst_case_risk(v, scale=scales), [ref_equally_spaced(m, s, h) for s in scales])


def test_equally_spaced_values_with_counts():
    v, h = equally_spaced(10**6)
    c = np.full(v.size, 7.0)
    scales = SOME * (v[-1] - v[0])
    check(di.worst_case_risk(v, scale=scales, counts=c), [ref_equally_spaced(v.size, s, h, 7) for s in scales])


def test_random_values():
    n = lattice(10**6, 64, 7)
    v = n * 2.0**-12  # exact: the gaps are multiples of 2^-12
    scales = np.array([1e-3, 1.0, 1e3, 1e12]) * (v[-1] - v[0])
    got = di.worst_case_risk(np.random.default_rng(8).permutation(v), scale=scales)
    check(got, [ref_lattice(n, np.ones(n.size, int), s, 2.0**-12) for s in scales])


def test_tied_values():
    n, c, rep = tied(10**5, 9)
    scales = SOME * n[-1]
    ref = [ref_lattice(n, c, s) for s in scales]
    # as counts (the weighted path) and as repeated values (the unweighted one)
    by_counts = di.worst_case_risk(n.astype(float), scale=scales, counts=c)
    check(by_counts, ref)
    np.testing.assert_array_equal(di.worst_case_risk(np.random.default_rng(10).permutation(rep), scale=scales),
                                  by_counts)


# ------------------------------------------------------------ same bits --

def _inputs():
    v, _ = equally_spaced(10**6)
    n = lattice(10**6, 64, 7)
    n2, c2, rep = tied(10**5, 9)
    return {
        "equally spaced": (v, None),
        "random": (n * 2.0**-12, None),
        "tied, repeated values": (rep, None),
        "tied, counts": (n2.astype(float), c2.astype(float)),
    }


@pytest.mark.parametrize("case", ["equally spaced", "random", "tied, repeated values", "tied, counts"])
def test_every_path_gives_the_same_bits(case):
    da = pytest.importorskip("dask.array")
    import dask

    import diffident.dask as ddask

    v, c = _inputs()[case]
    scales = np.concatenate([[0.0, np.inf], SOME * np.ptp(v)])
    blocked, world = di.worst_case_risk(v, scale=scales, counts=c, return_world=True)  # 10 scales: blocked
    for s, r, wd in zip(scales, blocked, world, strict=False):
        one, w1 = di.worst_case_risk(v, scale=s, counts=c, return_world=True)
        assert one == r and w1 == wd
    for size in (1 << 16, 99_999, 333_334):  # boundaries inside runs of ties too
        parts = list(di.iter_chunks(v, chunk_size=size, counts=c))
        np.testing.assert_array_equal(di.chunked_worst_case_risk(parts, scale=scales), blocked)
    if c is None:
        with dask.config.set(scheduler="synchronous"):
            x = da.from_array(v, chunks=250_001)
            np.testing.assert_array_equal(ddask.worst_case_risk(x, scale=scales), blocked)


def test_tight_scale_passes_whichever_path_checks_it():
    n = lattice(2 * 10**5, 64, 11)
    v = n * 2.0**-12
    lo = di.worst_case_risk(v, scale=np.inf)
    rho = np.geomspace(lo * 1.01, 0.9, 24)
    lam = di.tight_scale(v, rho=rho)
    assert np.all(di.worst_case_risk(v, scale=lam) <= rho)  # blocked
    assert all(di.worst_case_risk(v, scale=x) <= r for x, r in zip(lam, rho, strict=False))  # one at a time
    parts = list(di.iter_chunks(v, chunk_size=77_777))
    assert np.all(di.chunked_worst_case_risk(parts, scale=lam) <= rho)
    # tight to the evaluation's error bound (the margin that makes the exact
    # risk, not only the computed one, meet rho)
    err = _worst_case.Risk(Worlds(v)).error
    assert np.all(di.worst_case_risk(v, scale=np.nextafter(lam, 0)) > np.nextafter(rho * (1 - err), 0))


def test_zero_weight_groups_stay_out():
    # worlds of zero count are not worlds: no NaN, the same bits in memory
    # and in chunks, whatever chunk holds them
    rng = np.random.default_rng(12)
    v = np.sort(rng.integers(0, 500, 20_000).astype(float))
    c = rng.integers(0, 3, v.size).astype(float)
    c[:100] = 0.0
    c[v == v[-1]] = 0.0
    scales = np.concatenate([[0.0, np.inf], SOME * np.ptp(v)])
    ref = di.worst_case_risk(v, scale=scales, counts=c)
    assert np.all(np.isfinite(ref))
    for size in (1, 7, 100, 4096):
        np.testing.assert_array_equal(di.chunked_worst_case_risk(list(di.iter_chunks(v, chunk_size=size, counts=c)),
                                                                 scale=scales), ref)
