"""The private kernels' building blocks."""

import numba
import numpy as np
import pytest

from diffident._kernels import _jit, _math, expected, sort


@numba.njit(cache=True)
def _exp_many(x, out):
    for i in range(x.size):
        out[i] = _math.exp(x[i])


def test_vectorised_exp_is_accurate():
    mpmath = pytest.importorskip("mpmath")
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(-708.3, 709.0, 3000), rng.uniform(-1, 1, 1000), [0.0, -708.3, 709.0, -1e-300]])
    out = np.empty_like(x)
    _exp_many(x, out)
    mpmath.mp.dps = 40
    worst = max(abs(mpmath.mpf(float(o)) / mpmath.exp(mpmath.mpf(float(v))) - 1) for o, v in zip(out, x, strict=False))
    assert float(worst) < 1.5 * 2.0**-52  # well under 2 ulp
    tail = np.array([-708.31, -745.0, -1e10, -np.inf])
    o = np.empty_like(tail)
    _exp_many(tail, o)
    np.testing.assert_array_equal(o, 0.0)


def test_two_diff_is_exact():
    mpmath = pytest.importorskip("mpmath")
    rng = np.random.default_rng(1)
    a = rng.normal(size=500) * 10.0 ** rng.integers(-10, 10, 500)
    b = rng.normal(size=500) * 10.0 ** rng.integers(-10, 10, 500)
    mpmath.mp.dps = 60
    for x, y in zip(a, b, strict=False):
        s, e = _math.two_diff(x, y)
        assert mpmath.mpf(s) + mpmath.mpf(e) == mpmath.mpf(x) - mpmath.mpf(y)


def test_every_kernel_follows_the_jit_policy():
    # Numba compiles callees with their caller's flags and caches them: one
    # fastmath kernel would silently break the exp's range reduction and
    # TwoSum for every kernel (see _kernels/_jit.py).  Every dispatcher in
    # every kernel module is declared through _jit, with its options.
    import importlib
    import pkgutil

    import diffident._kernels as kernels

    seen = 0
    for info in pkgutil.iter_modules(kernels.__path__):
        mod = importlib.import_module(f"diffident._kernels.{info.name}")
        for name in dir(mod):
            obj = getattr(mod, name)
            if isinstance(obj, numba.core.registry.CPUDispatcher) and obj.__module__ == mod.__name__:
                seen += 1
                opts = obj.targetoptions
                assert not opts.get("fastmath"), f"{mod.__name__}.{name}"
                assert opts.get("error_model") == _jit.POLICY["error_model"], f"{mod.__name__}.{name}"
                cached = type(obj._cache).__name__ != "NullCache"
                assert cached or name == "evaluate_jitted_callable", f"{mod.__name__}.{name}"
    assert seen > 50


@pytest.mark.parametrize("n", [10, 5000, 200_000])
def test_radix_sort(n):
    rng = np.random.default_rng(n)
    edges = [0.0, -0.0, 5e-324, -5e-324, 1.7e308, -1.7e308]
    v = np.concatenate([rng.normal(size=n) * 10.0 ** rng.integers(-300, 300, n), edges])
    v[: n // 3] = np.round(v[: n // 3])  # repeats
    np.testing.assert_array_equal(sort.sort(v), np.sort(v))
    idx = sort.argsort(v)
    np.testing.assert_array_equal(v[idx], np.sort(v))
    # stable: equal bit patterns keep their order (-0.0 sorts before 0.0)
    bits = v[idx].view(np.int64)
    same = bits[1:] == bits[:-1]
    assert np.all(idx[1:][same] > idx[:-1][same])


@numba.njit(cache=True)
def _one_minus_exp_many(t, out):
    for i in range(t.size):
        out[i] = expected._one_minus_exp(t[i])


def test_one_minus_exp_is_accurate():
    # the Laplace cells' 1 - e^-t: within 2 units of roundoff (Success.error counts on it)
    rng = np.random.default_rng(1)
    t = np.concatenate([np.exp(rng.uniform(-70.0, 6.6, 200_000)), rng.uniform(0.0, 1.0, 200_000),
                        [0.0, 5e-324, 1e-310, 0.6931471805599453, np.nextafter(0.6931471805599453, 1.0),
                         708.3, 745.2, 1e308]])
    out = np.empty_like(t)
    _one_minus_exp_many(t, out)
    if np.finfo(np.longdouble).nmant >= 63:  # (an 80-bit long double: a reference 2**10 finer)
        ref = -np.expm1(-t.astype(np.longdouble))
        err = np.abs((out - ref) / np.where(ref > 0, ref, 1.0)) / np.longdouble(2.0 ** -53)
        assert float(err.max()) < 2.0
    np.testing.assert_allclose(out, -np.expm1(-t), rtol=4e-16, atol=0.0)
    _one_minus_exp_many(np.array([np.inf, 0.0]), out[:2])
    assert out[0] == 1.0 and out[1] == 0.0


@pytest.mark.parametrize("n", [2, 3, 7, 1000])
def test_laplace_cells_match_the_scalar_sum(n):
    rng = np.random.default_rng(n)
    fs = np.unique(rng.normal(size=n) * 10.0 ** rng.integers(-5, 5, n))
    lams = np.concatenate([[0.0, np.inf], np.geomspace(1e-12, 1e12, 60)])
    old, new = np.empty(lams.size), np.empty(lams.size)
    expected.uniform_success(fs, lams, False, old)
    expected.laplace_cells(fs, lams, np.empty(fs.size - 1), new)
    assert new[0] == fs.size and new[1] == 1.0
    np.testing.assert_allclose(new, old, rtol=8 * 2.0 ** -53, atol=0.0)


@pytest.mark.parametrize("n", [3000, 70_000])
@pytest.mark.parametrize("kind", ["normal", "repeats", "dense", "zeros", "mixed"])
def test_weighted_groups_are_those_of_the_argsort(n, kind):
    # packed keys and one gather give the groups of a stable argsort, bit for bit
    from diffident._numerics.grouping import group_weights, runs, weighted_groups

    rng = np.random.default_rng(n)
    v = {"normal": rng.normal(size=n),
         "repeats": rng.integers(0, 10, n).astype(float),
         "dense": 1.0 + rng.integers(0, n, n) * 2.0 ** -52,  # distinct values sharing their high bits
         "zeros": rng.choice([0.0, -0.0, 1.0, -1.0, 5e-324, -5e-324], n),
         "mixed": np.where(rng.uniform(size=n) < 0.5, -1.0 - rng.integers(0, 40, n) * 2.0 ** -52,
                           rng.normal(size=n))}[kind]
    c = rng.integers(0, 3, n).astype(float)
    p0 = rng.choice([0.0, 0.5, 1.0, 2.0], n)
    # (every count 1 and every weight positive: the short records)
    for counts, p in ((c, p0), (None, p0), (None, np.where(p0 > 0, p0, 1.0))):
        cw = np.ones(n) if counts is None else counts
        w = cw * p
        fs, W, P, rep = weighted_groups(v, w, int(np.count_nonzero(w > 0)), counts, p, 0.25)
        live = np.flatnonzero(w > 0)
        order = live[sort.argsort(np.ascontiguousarray(v[live]))]
        fs0, first = runs(v[order])
        W0, P0, rep0 = np.empty(fs0.size), np.empty(fs0.size), np.empty(fs0.size, np.int64)
        group_weights(first, order.size, cw[order] * 0.25, p[order], order, W0, P0, rep0)
        for a, b in ((fs, fs0), (W, W0), (P, P0)):
            np.testing.assert_array_equal(a.view(np.int64), b.view(np.int64))
        np.testing.assert_array_equal(rep, rep0)
