"""The world-set types: the query, the candidates and the known part."""

import decimal
import fractions
import math
import numbers

import numba
import numpy as np
import numpy.typing as npt

from .._kernels import queries
from .._numerics import validate as _validate

#: The numbers a Domain's ends and step may be: floats (and ints), or exact
#: decimals and fractions.
Real = float | decimal.Decimal | fractions.Fraction

__all__ = ["Domain", "Query", "Candidates", "Known", "check_k", "check_magnitudes", "count_text", "setup",
           "evaluate_callable"]

_CODES = {
    "sum": queries.SUM, "mean": queries.MEAN, "median": queries.MEDIAN, "quantile": queries.QUANTILE,
    "min": queries.MIN, "max": queries.MAX, "var": queries.VAR, "std": queries.STD, "count": queries.COUNT,
}
_MONOTONE = {queries.SUM, queries.MEAN, queries.MEDIAN, queries.QUANTILE, queries.MIN, queries.MAX}
_MAX_LISTED = 10**8  # an integer Domain's values listed at most (800 MB)


def count_text(n):
    """A number of worlds for a message: exact up to 1e15, else 3 digits."""
    return str(n) if n < 10**15 else f"{float(n):.3g}" if n < 1e308 else f"about 10**{len(str(n)) - 1}"


class Domain:
    """An interval universe of candidate values: integers, a decimal grid, or a real interval.

    Parameters
    ----------
    lo : float
        The lower end, finite (an integer for an integer domain).
    hi : float
        The upper end, ``hi >= lo`` (lo plus a whole number of steps).
    integer : bool, optional
        Integer points (default) or the real interval (False).
    step : float, optional
        The spacing of a grid, read as its shortest decimal (keyword only).

    Attributes
    ----------
    lo : float
        The lower end, as a float.
    hi : float
        The upper end, as a float (the last grid point for a stepped domain).
    integer : bool
        Whether the domain holds the integers of [lo, hi] (a grid of step 1
        from an integer lo).
    step : float or None
        The grid's spacing (1.0 for an integer domain), None for the real
        interval.

    Raises
    ------
    ValueError
        For non-finite ends, ``lo > hi``, ends off the grid, or a bad step.
    TypeError
        For ends or a step that are not real numbers, or an ``integer`` that
        is not a bool.

    See Also
    --------
    world_values : The query's values over the worlds of a Domain.

    Examples
    --------
    >>> import diffident as di
    >>> d = di.Domain(1, 99)
    >>> d.size
    99
    >>> d
    Domain(1, 99, integer=True)
    >>> bmi = di.Domain(12, 60, step=0.1)
    >>> bmi.size, bmi
    (481, Domain(12.0, 60.0, step=0.1))
    """

    __slots__ = ("lo", "hi", "integer", "step", "_n", "_grid")

    def __init__(self, lo: Real, hi: Real, *, integer: bool = True, step: Real | None = None) -> None:
        for name, x in (("lo", lo), ("hi", hi)):
            _check_real(name, x)
            try:
                finite = math.isfinite(float(x))
            except OverflowError:  # a Python int beyond the float range
                finite = False
            if not finite:
                raise ValueError(f"{name} must be finite (within the float range), got {_shown(x)}")
        integer = _validate.flag("integer", integer)
        if step is not None:
            _check_real("step", step)
            if not integer:
                raise ValueError(f"a real interval (integer=False) has no step, got step={_shown(step)}")
            if not (math.isfinite(float(step)) and float(step) > 0):
                raise ValueError(f"step must be positive and finite, got {_shown(step)}")
        flo, fhi = float(lo), float(hi)
        if flo > fhi:
            raise ValueError(f"lo must not exceed hi, got lo={flo!r} > hi={fhi!r}")
        self._grid = None
        if step is None:
            if integer and (flo != math.floor(flo) or fhi != math.floor(fhi)):
                raise ValueError(f"lo and hi must be integers for an integer domain, got lo={flo!r}, hi={fhi!r} "
                                 "(give a step for a grid, or integer=False for the real interval)")
            self.lo, self.hi, self.integer = flo, fhi, bool(integer)
            self.step = 1.0 if integer else None
            self._n = int(fhi) - int(flo) + 1 if integer else None  # exact Python ints
            return
        lo_q, hi_q, step_q = _exact(lo), _exact(hi), _exact(step)
        ratio = (hi_q - lo_q) / step_q
        n = round(ratio)
        if ratio != n:
            last = lo_q + n * step_q
            ulp = math.ulp(max(abs(flo), abs(fhi), abs(float(last))))
            if abs(hi_q - last) > 4 * ulp:
                raise ValueError(f"(hi - lo) / step must be a whole number, got lo={_shown(lo)}, hi={_shown(hi)}, "
                                 f"step={_shown(step)}: "
                                 f"(hi - lo) / step = {float(ratio)!r}")
        self.lo, self.step = float(lo_q), float(step_q)
        self.hi = float(lo_q + n * step_q)  # the last grid point, rounded once
        self._n = int(n) + 1
        self.integer = step_q == 1 and lo_q.denominator == 1
        if not self.integer:
            self._grid = (lo_q, step_q)

    @property
    def size(self) -> float:
        """Number of candidate values: the grid's points, or inf for a real interval.

        Examples
        --------
        >>> import diffident as di
        >>> di.Domain(0, 1, step=0.25).size
        5
        """
        return math.inf if self._n is None else self._n

    def values(self) -> npt.NDArray[np.float64]:
        """The candidate values lo, lo + step, ..., hi of an integer or stepped domain.

        Returns
        -------
        ndarray of float64
            The grid points from lo to hi, ascending (`size` of them), each
            the exact lo + i step rounded once.

        Raises
        ------
        ValueError
            For a real interval (``integer=False``), which has infinitely many
            values, or a grid too large (or too fine) to list.

        Examples
        --------
        >>> import diffident as di
        >>> di.Domain(3, 6).values()
        array([3., 4., 5., 6.])
        >>> di.Domain(-0.5, 0.5, step=0.25).values()
        array([-0.5 , -0.25,  0.  ,  0.25,  0.5 ])
        """
        if self._n is None:
            raise ValueError("a real interval has infinitely many values")
        if self._grid is None and max(abs(self.lo), abs(self.hi)) > 2.0**53:
            raise ValueError(f"{self!r} reaches beyond 2**53, where float64 cannot hold every integer: "
                             "its values cannot be listed; rescale the domain")
        if self._n > _MAX_LISTED:
            raise ValueError(f"{self!r} has {self._n} values, too many to list (at most {_MAX_LISTED}); "
                             "rescale the domain")
        return np.asarray(self._points(np.arange(self._n, dtype=np.int64)), dtype=np.float64)

    def _points(self, i):
        """The grid points of indices ``i`` (int64 array): lo + i step rounded once."""
        if self._grid is None:
            return self.lo + i.astype(np.float64)
        lo_q, step_q = self._grid
        assert self._n is not None  # (a grid)
        den = math.lcm(lo_q.denominator, step_q.denominator)
        base, inc = int(lo_q * den), int(step_q * den)
        if den < 2**53 and abs(base) + (self._n - 1) * abs(inc) < 2**53:
            # exact integers over an exact denominator: one rounding, the division
            return (base + i * inc).astype(np.float64) / float(den)
        return np.array([float(lo_q + int(j) * step_q) for j in np.ravel(i)]).reshape(np.shape(i))

    def _index_below(self, t):
        """The index of the last grid point at or below each t (clipped to the grid)."""
        t = np.asarray(t, dtype=np.float64)
        assert self._n is not None and self.step is not None  # (a grid)
        last = self._n - 1
        i = np.clip(np.floor((t - self.lo) / self.step), 0, last).astype(np.int64)
        # the division rounds: settle the index on the exact points
        i = np.where((i > 0) & (self._points(i) > t), i - 1, i)
        i = np.where((i < last) & (self._points(np.minimum(i + 1, last)) <= t), i + 1, i)
        return i

    def _on_grid(self, x):
        """Whether each value of x (float64 array) is a point of the domain."""
        if self._n is None:
            return (x >= self.lo) & (x <= self.hi)
        if self._grid is None:
            return (x == np.floor(x)) & (x >= self.lo) & (x <= self.hi)
        assert self.step is not None  # (a grid)
        inside = (x >= self.lo) & (x <= self.hi)
        i = np.clip(np.round((np.where(inside, x, self.lo) - self.lo) / self.step), 0, self._n - 1).astype(np.int64)
        return inside & (self._points(i) == x)

    def __repr__(self) -> str:
        if self._grid is not None:
            return f"Domain({self.lo!r}, {self.hi!r}, step={self.step!r})"
        lo, hi = (int(self.lo), int(self.hi)) if self.integer else (self.lo, self.hi)
        return f"Domain({lo!r}, {hi!r}, integer={self.integer})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Domain) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def _key(self):
        return (self.lo, self.hi, self.integer, self.step, self._grid)


def _check_real(name, x):
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (numbers.Real, np.number, decimal.Decimal)):
        raise TypeError(f"{name} must be a real number, got {x!r}")


def _shown(x):
    """x for a message: as typed (a Decimal as its text)."""
    return str(x) if isinstance(x, decimal.Decimal) else repr(x)


def _exact(x):
    """The number x means, exactly: a float as its shortest decimal."""
    if isinstance(x, (numbers.Rational, np.integer, decimal.Decimal)):
        return fractions.Fraction(int(x)) if isinstance(x, np.integer) else fractions.Fraction(x)
    return fractions.Fraction(decimal.Decimal(repr(float(x))))


class Query:
    def __init__(self, query, q, ddof):
        if isinstance(ddof, (bool, np.bool_)) or ddof not in (0, 1):
            raise ValueError(f"ddof must be 0 or 1, got {ddof!r}")
        self.ddof = int(ddof)
        self.q = 0.5
        self.func = None
        self.jitted = False
        if isinstance(query, str):
            key = query.lower()
            if key not in _CODES:
                raise ValueError(f"query must be one of {', '.join(_CODES)} or a callable, got {query!r}")
            self.code = _CODES[key]
            self.name = key
            if self.code == queries.QUANTILE:
                self.q = float(_validate.in_range("q", q, 0.0, 1.0))
        elif callable(query):
            self.code = -1
            self.name = getattr(query, "__name__", "callable")
            self.func = query
            self.jitted = isinstance(query, numba.core.registry.CPUDispatcher)
        else:
            raise TypeError(f"query must be a name or a callable, got {query!r}")

    @property
    def named(self):
        return self.code >= 0

    @property
    def monotone(self):
        return self.code in _MONOTONE

    def min_size(self):
        return 1 + (self.ddof if self.code in (queries.VAR, queries.STD) else 0)


class Candidates:
    """Explicit candidates (a multiset of individuals) or an interval."""

    def __init__(self, candidates, allow_empty=False):
        self.domain: Domain | None
        if isinstance(candidates, Domain):
            self.domain = candidates
            self._vals = None  # listed where a computation needs them (Domain.values checks the size)
            self.order = None
            self.repeat = True
            return
        a = _validate.finite("candidates", candidates)
        if a.ndim != 1:
            raise ValueError(f"candidates must be a one-dimensional array or a Domain, got shape {a.shape}")
        if a.size == 0 and not allow_empty:
            raise ValueError("candidates must not be empty")
        self.domain = None
        self.order = np.argsort(a, kind="stable")
        self._vals = np.ascontiguousarray(a[self.order])
        self.repeat = False

    @property
    def vals(self):
        """The candidate values, ascending (None for a real interval)."""
        if self._vals is None and self.domain is not None and self.domain.step is not None:
            self._vals = self.domain.values()
        return self._vals

    @property
    def count(self):
        """The number of candidate values (inf for a real interval), without listing them."""
        if self.domain is not None:
            return self.domain.size
        assert self._vals is not None  # (explicit candidates)
        return self._vals.size

    @property
    def real(self):
        return self.domain is not None and self.domain.step is None

    @property
    def lo(self):
        return self.domain.lo if self.domain is not None else self.vals[0]

    @property
    def hi(self):
        return self.domain.hi if self.domain is not None else self.vals[-1]

    def n_worlds(self, k):
        if self.real:
            return math.inf
        n = self.count
        return math.comb(n + k - 1, k) if self.repeat else math.comb(n, k)

    def check_k(self, k):
        if not self.repeat and k > self.vals.size:
            raise ValueError(f"k = {k} exceeds the number of candidates ({self.vals.size})")

    def extremes(self, j, k):
        """A sorted row: the j smallest and k - j largest candidates."""
        if self.domain is not None:
            return np.array([self.lo] * j + [self.hi] * (k - j))
        return np.concatenate([self.vals[:j], self.vals[self.vals.size - (k - j):]])

    def with_values(self, extra):
        """Explicit candidates plus the given values (U minus D' when D' loses them)."""
        return Candidates(np.concatenate([self.vals, np.asarray(extra, float)]))


def check_k(k):
    return _validate.integer("k", k)


class Known:
    """The known part D': sorted values and double-double statistics."""

    def __init__(self, known, shift_hint):
        a = _validate.finite("known", known)
        if a.ndim != 1:
            raise ValueError(f"known must be one-dimensional, got shape {a.shape}")
        self._setup(a, shift_hint)

    @classmethod
    def checked(cls, known, shift_hint):
        """The known part from checked data (1-d, finite float64), not validated again."""
        kn = cls.__new__(cls)
        kn._setup(known, shift_hint)
        return kn

    def _setup(self, a, shift_hint):
        self.ks = np.ascontiguousarray(np.sort(a))
        n = self.ks.size
        # the shift: a value of the data itself (exact differences on a grid)
        self.c = float(self.ks[n // 2]) if n else float(shift_hint)
        self.st = np.empty(6)
        queries.known_stats(self.ks, self.c, self.st)

    @property
    def n(self):
        return self.ks.size

    def values(self, query, S):
        """query(known + S[w]) for the (sorted) rows of S."""
        out = np.empty(S.shape[0])
        if query.named:
            queries.evaluate(query.code, S, self.ks, self.st, self.c, query.ddof, query.q, out)
        else:
            evaluate_callable(query, self.ks, S, out)
        return out


def evaluate_callable(query, ks, S, out):
    if query.jitted:
        try:
            queries.evaluate_jitted_callable(query.func, ks, S, out)
        except numba.core.errors.TypingError as exc:
            raise TypeError(f"query {query.name!r} must return a number: {str(exc).splitlines()[0]}") from None
    else:
        for w in range(S.shape[0]):
            r = query.func(np.concatenate([ks, S[w]]))
            try:
                out[w] = float(r)
            except (TypeError, ValueError):
                raise TypeError(f"query {query.name!r} must return a number, got {r!r}") from None
    bad = ~np.isfinite(out)
    if bad.any():
        w = int(np.flatnonzero(bad)[0])
        raise ValueError(f"query {query.name!r} returned {out[w]!r} on the world {np.concatenate([ks, S[w]]).tolist()}")


def setup(query, known, candidates, k, ddof, q):
    qy = Query(query, q, ddof)
    k = check_k(k)
    cands = Candidates(candidates)
    cands.check_k(k)
    kn = Known(known, cands.lo)
    if kn.n + k < qy.min_size():
        raise ValueError(
            f"known has {kn.n} values: worlds of {kn.n + k} values are too small for {qy.name} with ddof={qy.ddof}"
        )
    check_magnitudes(qy, kn.n + k, ("known", kn.ks), ("candidates", cands))
    return qy, k, cands, kn


_SUM_EXP = 1020  # named sums: |values| times their number below 2**1020
_SQUARE_EXP = 500  # var and std: squares of deviations within 2**+-1000


def check_magnitudes(qy, n, *parts):
    """The ValueError, naming the argument, of values whose named query the
    float64 arithmetic of the world values cannot carry: sums (and means)
    of n values of which the largest magnitude M has M n >= 2**1020, and for
    var and std an M beyond 2**500 or a spread (largest minus smallest over
    every part) between 0 and 2**-500, whose squared deviations would
    overflow or underflow (the worlds would collapse to one value).  Parts
    are ``(name, array or Candidates)``; order statistics and callables
    need no check.
    """
    if not qy.named or qy.code not in (queries.SUM, queries.MEAN, queries.VAR, queries.STD):
        return
    ends = []
    for name, x in parts:
        if isinstance(x, Candidates):
            if x.count:
                ends.append((name, x.lo, x.hi))
        elif np.size(x):
            ends.append((name, float(np.min(x)), float(np.max(x))))
    if not ends:
        return
    name, lo, hi = max(ends, key=lambda e: max(abs(e[1]), abs(e[2])))
    m = float(max(abs(lo), abs(hi)))
    if m == 0.0:
        return
    e = int(np.frexp(m)[1])  # m < 2**e
    if qy.code in (queries.SUM, queries.MEAN) and e + int(n - 1).bit_length() > _SUM_EXP:
        raise ValueError(f"{name} holds values up to {m!r}: sums of {n} of them leave the float range; "
                         "rescale the data (the worst case does not depend on the unit)")
    if qy.code in (queries.VAR, queries.STD):
        if e > _SQUARE_EXP:
            raise ValueError(f"{name} holds values up to {m!r}: their squared deviations leave the float range "
                             f"for {qy.name}; rescale the data")
        lo_all = min(e_[1] for e_ in ends)
        hi_all = max(e_[2] for e_ in ends)
        spread = hi_all - lo_all
        if 0.0 < spread < 2.0 ** -_SQUARE_EXP:
            names = " and ".join(e_[0] for e_ in ends)
            raise ValueError(f"{names} span only {float(spread)!r}: the squared deviations of {qy.name} underflow "
                             "and the worlds would collapse to one value; rescale the data")
