"""Input checking shared by the public functions."""

import numbers

import numpy as np
import numpy.typing as npt

from .._kernels import lattice as _lattice_kernels


def where(a, bad):
    """Describe the first offending element of ``a`` (mask ``bad``)."""
    if a.ndim == 0:
        return f"got {a.item()!r}"
    idx = np.argwhere(bad)[0]
    at = int(idx[0]) if a.ndim == 1 else tuple(int(i) for i in idx)
    return f"got {a[tuple(idx)].item()!r} at index {at}"


def as_float(name, x, *, allow_bool=False):
    """``x`` as a float64 array (no copy when it already is one)."""
    if isinstance(x, (str, bytes)):
        raise TypeError(f"{name} must be numeric, got {type(x).__name__} {x!r}")
    if x is None:
        raise TypeError(f"{name} must be numeric, got None")
    if not allow_bool and isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{name} must be a number, not a bool ({x!r})")
    try:
        a = np.asarray(x)
    except Exception as exc:  # ragged nested sequences and the like
        raise ValueError(f"{name} could not be converted to an array: {exc}") from None
    kind = a.dtype.kind
    if kind == "c":
        raise TypeError(f"{name} must be real, got complex dtype {a.dtype}")
    if kind in "USa":
        raise TypeError(f"{name} must be numeric, got strings (dtype {a.dtype})")
    if kind == "b" and not allow_bool:
        raise TypeError(f"{name} must be numbers, not booleans (dtype {a.dtype})")
    if kind in "iu" and a.size and a.dtype.itemsize > 4:
        # integers beyond 2**53 that float64 would round: distinct values
        # (distinct worlds) must not merge silently
        big = (a > 2**53) | (a < -(2**53)) if kind == "i" else a > 2**53
        if big.any():
            f = a[big].astype(np.float64)
            top = 2.0 ** (8 * a.dtype.itemsize - (1 if kind == "i" else 0))  # rounded up to the type's end
            with np.errstate(invalid="ignore"):  # (casting such a float back is invalid)
                inexact = (f >= top) | (f.astype(a.dtype) != a[big])
            if inexact.any():
                raise ValueError(f"{name} holds an integer float64 cannot represent exactly "
                                 f"({a[big][inexact].flat[0]!r}, beyond 2**53)")
    if kind not in "biuf":
        if kind == "O":
            flat = a.reshape(-1)
            for v in flat:
                if isinstance(v, (str, bytes)):
                    raise TypeError(f"{name} must be numeric, got {type(v).__name__} {v!r} in it")
                if not allow_bool and isinstance(v, (bool, np.bool_)):
                    raise TypeError(f"{name} must be numbers, not booleans ({v!r} in it)")
        try:
            f = a.astype(np.float64)
        except OverflowError:
            raise ValueError(f"{name} holds a number beyond the float range (about 1.8e308)") from None
        except (TypeError, ValueError):
            raise TypeError(f"{name} must be numeric, got dtype {a.dtype}") from None
        if kind == "O":  # Python integers beyond 2**53: only those float64 holds exactly
            for v, g in zip(a.reshape(-1), f.reshape(-1), strict=True):
                if isinstance(v, numbers.Integral) and not isinstance(v, bool) and abs(int(v)) > 2**53 and int(g) != v:
                    raise ValueError(f"{name} holds an integer float64 cannot represent exactly ({v!r}, beyond 2**53)")
        a = f
    return np.asarray(a, dtype=np.float64)


def flag(name, x):
    """A yes/no option: only ``True`` or ``False`` (NumPy's too)."""
    if not isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {x!r}")
    return bool(x)


def scalar(name, x):
    """A single number (a 0-d array is one), as a float."""
    a = as_float(name, x)
    if a.ndim != 0:
        raise ValueError(f"{name} must be a single number, got shape {a.shape}")
    return float(a)


def integer(name, x, *, minimum=1):
    """A whole number >= minimum given as an integer (not a bool, not a float)."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (numbers.Integral, np.integer)):
        raise TypeError(f"{name} must be an integer, got {x!r}")
    if x < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {x!r}")
    return int(x)


def flat(a, shape):
    """``a`` broadcast to ``shape``, as a contiguous 1-d array."""
    if a.shape == shape:  # the common case, without broadcast_to's cost on small calls
        return np.ascontiguousarray(a).reshape(-1)
    return np.ascontiguousarray(np.broadcast_to(a, shape).ravel())


def reject(a, bad, message):
    """``a``; or, if any entry is ``bad``, the ValueError ``message`` naming the first such entry."""
    if bad.any():
        raise ValueError(f"{message}; {where(a, bad)}")
    return a


def finite(name, x):
    a = as_float(name, x)
    return reject(a, ~np.isfinite(a), f"{name} must be finite (no NaN or infinity)")


def non_negative(name, x):
    """Finite values >= 0."""
    a = finite(name, x)
    return reject(a, a < 0, f"{name} must be non-negative")


def not_nan(name, a):
    return reject(a, np.isnan(a), f"{name} must not be NaN")


def in_range(name, x, lo, hi, *, lo_open=False, hi_open=False, allow_nan=False):
    """Elements in [lo, hi] (open ends as asked); infinities only if the range allows."""
    a = as_float(name, x)
    if not allow_nan:
        not_nan(name, a)
    with np.errstate(invalid="ignore"):
        bad = (a <= lo) if lo_open else (a < lo)
        bad |= (a >= hi) if hi_open else (a > hi)
    if bad.any():
        lb = "(" if lo_open else "["
        rb = ")" if hi_open else "]"
        raise ValueError(f"{name} must lie in {lb}{lo}, {hi}{rb}; {where(a, bad)}")
    return a


def worlds(name, x):
    """Numbers of possible worlds: finite elements >= 1."""
    a = finite(name, x)
    return reject(a, a < 1, f"{name} (the number of possible worlds) must be >= 1")


def tolerance(name, x):
    """A relative tolerance: one finite number >= 0."""
    t = scalar(name, x)
    if not 0.0 <= t < np.inf:
        raise ValueError(f"{name} must be a finite number >= 0, got {t!r}")
    return t


def positive_scale(name, x):
    """Noise scales for posteriors: finite and > 0."""
    a = finite(name, x)
    return reject(a, a <= 0, f"{name} must be positive")


def scale_or_limit(name, x):
    """Noise scales for risk evaluations: >= 0, +inf allowed (the limits)."""
    return in_range(name, x, 0.0, np.inf)


def shape_1d(name, a):
    if a.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {a.shape}")
    if a.size == 0:
        raise ValueError(f"{name} must not be empty")
    return a


def values_1d(name, x):
    a = finite(name, x)
    if a.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {a.shape}")
    if a.size == 0:
        raise ValueError(f"{name} must not be empty")
    return a


def weights(name, x, n):
    """Counts or prior weights: 1-d, length n, finite, >= 0."""
    a = finite(name, x)
    if a.ndim != 1 or a.size != n:
        raise ValueError(f"{name} must be one-dimensional with the length of values ({n}), got shape {a.shape}")
    return reject(a, a < 0, f"{name} must be non-negative")


def counts(x, n):
    """Multiplicities of worlds: whole numbers >= 0 (floats beyond 2**53 are)."""
    a = weights("counts", x, n)
    return reject(a, a != np.floor(a), "counts must be whole numbers (multiplicities of worlds)")


def integer_index(name, x, n):
    if x is None or isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer index, got {x!r}")
    try:
        a = np.asarray(x)
    except Exception as exc:  # ragged nested sequences and the like
        raise ValueError(f"{name} could not be converted to an array: {exc}") from None
    if a.size == 0:
        raise ValueError(f"{name} must not be empty")
    if a.dtype.kind == "O" and all(isinstance(v, numbers.Integral) and not isinstance(v, bool)
                                   for v in a.reshape(-1)):
        raise ValueError(f"{name} out of range for {n} worlds (an integer beyond int64); got {x!r}"[:200])
    if a.dtype.kind == "b" or a.dtype.kind not in "iu":
        if a.dtype.kind == "f" and np.all(np.isfinite(a)) and np.all(a == np.round(a)):
            a = a.astype(np.int64)
        else:
            raise TypeError(f"{name} must be an integer index, got {x!r}")
    a = a.astype(np.int64)
    reject(a, (a < -n) | (a >= n), f"{name} out of range for {n} worlds")
    return np.where(a < 0, a + n, a)


def choice(name, x, options):
    """One of the strings ``options``: a TypeError for a non-string, a
    ValueError naming the choices for another string.
    """
    listed = ", ".join(repr(o) for o in options)
    if not isinstance(x, str):
        raise TypeError(f"{name} must be a string, one of {listed}; got {x!r}")
    if x not in options:
        raise ValueError(f"{name} must be one of {listed}; got {x!r}")
    return x


#: The noises of real releases: continuous, and on the integers (a lattice).
NOISES = ("laplace", "gaussian", "discrete_laplace", "discrete_gaussian")


def noise_family(noise):
    """Any of `NOISES`: ``(gauss, discrete)``, whether its energy is the
    Gaussian's (else the Laplace's) and whether it lives on a lattice.
    """
    choice("noise", noise, NOISES)
    return noise.endswith("gaussian"), noise.startswith("discrete")


def granularity(x):
    """The lattice spacing of integer noise: one finite number > 0."""
    g = scalar("granularity", x)
    if not 0.0 < g < np.inf:
        raise ValueError(f"granularity must be a finite number > 0, got {g!r}")
    return g


def lattice_noise(noise, granularity_value):
    """``(gauss, g)`` of any noise: whether its energy is Gaussian, and the
    lattice spacing of an integer noise (None for a continuous one, whose
    granularity must be left at its default 1).
    """
    gauss, discrete = noise_family(noise)
    g = granularity(granularity_value)
    if not discrete:
        if g != 1.0:
            raise ValueError(f"granularity applies to integer noise ('discrete_laplace', 'discrete_gaussian') "
                             f"only; got granularity={granularity_value!r} with noise={noise!r}")
        return gauss, None
    return gauss, g


#: How far from a lattice point a value may be (relative to the larger of
#: the value and the spacing): the rounding of a decimal such as 0.3 on a
#: lattice of 0.1, not a value between two points.
LATTICE_RTOL = _lattice_kernels.RTOL


def lattice(name, x, g, *, coords=True):
    """The integer coordinates ``k`` (float64, exact integers) of values on
    the lattice of multiples of ``g``: ``x = k g`` within `LATTICE_RTOL`; a
    ValueError naming the argument and the first value off the lattice (the
    finite check's ValueError, naming the first NaN or infinity, if any
    value is not finite).  With ``coords=False`` only the check (None).
    One pass of a Numba kernel, threaded over blocks of values when there
    are many.
    """
    a = np.asarray(x, dtype=np.float64)
    flat = np.ascontiguousarray(a.reshape(-1))
    k = np.empty(flat.size if coords else 0)
    check = (_lattice_kernels.lattice_check if flat.size > 2 * _lattice_kernels.CHECK_BLOCK
             else _lattice_kernels.lattice_check_serial)
    first = check(flat, float(g), LATTICE_RTOL, k, coords)
    if first >= 0:
        finite(name, a)  # a NaN or infinity is named as such
        raise ValueError(f"{name} must lie on the lattice of multiples of granularity {g!r} (integer noise); "
                         f"got {float(flat[first])!r}")
    return k.reshape(a.shape) if coords else None


def is_scalar(*args):
    """Whether every argument is a scalar (a ragged sequence is not: its own
    validation names it).
    """
    def ndim(a):
        try:
            return np.ndim(a)
        except ValueError:
            return -1
    return all(ndim(a) == 0 for a in args)


def ret(a: npt.NDArray[np.float64], scalar: bool) -> float | npt.NDArray[np.float64]:
    """A Python float for all-scalar input, else the float64 array."""
    if scalar:
        return float(a)
    return a


# Privacy parameters, labels and random draws (diffident.dp, diffident.rr).


def probability(name, x):
    """Probabilities: elements in [0, 1]."""
    return in_range(name, x, 0.0, 1.0)


def privacy_epsilon(name, x):
    """Privacy parameters epsilon: >= 0, ``inf`` allowed (no noise)."""
    return in_range(name, x, 0.0, np.inf)


def privacy_delta(name, x):
    """The delta of (epsilon, delta)-DP: in the open interval (0, 1)."""
    return in_range(name, x, 0.0, 1.0, lo_open=True, hi_open=True)


def releases(k):
    """k, a number of releases: whole numbers >= 1, as float64."""
    a = finite("k", k)
    return reject(a, (a < 1) | (a != np.floor(a)), "k (the number of releases) must be a whole number >= 1")


def categories(d):
    """d, a number of categories: whole numbers >= 2 (not bools), as float64."""
    if isinstance(d, (bool, np.bool_)) or np.asarray(d).dtype.kind == "b":
        raise TypeError(f"d (the number of categories) must be an integer, got {d!r}")
    a = finite("d", d)
    reject(a, a != np.floor(a), "d (the number of categories) must be a whole number")
    return reject(a, a < 2, "d (the number of categories) must be at least 2")


def whole_numbers(name, x):
    """Whole-number labels (bools, ints, or integral floats) as int64."""
    a = as_float(name, x, allow_bool=True)
    not_nan(name, a)
    reject(a, ~np.isfinite(a) | (a != np.floor(a)), f"{name} must hold whole numbers")
    reject(a, np.abs(a) > 2.0**53, f"{name} must hold whole numbers within +-2**53 (exact in float64)")
    return a.astype(np.int64)


def bits(name, x):
    """Bits: whole-number labels that are 0 or 1, as int64."""
    a = whole_numbers(name, x)
    return reject(a, (a != 0) & (a != 1), f"{name} must hold 0 or 1")


def generator(rng):
    """A source of randomness: a ``numpy.random.Generator``."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"rng must be a numpy.random.Generator (e.g. numpy.random.default_rng(seed)), "
            f"got {type(rng).__name__}"
        )
    return rng


def ret_int(a: npt.NDArray[np.int64], scalar: bool) -> int | npt.NDArray[np.int64]:
    """A Python int for all-scalar input, else the integer array."""
    return int(a) if scalar else a
