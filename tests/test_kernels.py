"""The private kernels' building blocks."""

import numba
import numpy as np
import pytest

from diffident._kernels import _jit, _math, sort


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
