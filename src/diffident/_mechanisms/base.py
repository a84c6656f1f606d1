"""The `Mechanism` base class: two-world measures of a release (Mathematics page, section 11)."""

import abc
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from .._numerics import search as _search
from .._numerics.validate import is_scalar, privacy_epsilon, probability, ret, scalar, worlds
from .._risk.closed_form import rho_for_epsilon
from .._typing import FloatOrArray, RealArrayLike
from ..dp._posterior import posterior_bound


def _positive(name, x):
    v = scalar(name, x)
    if not 0.0 < v < np.inf:
        raise ValueError(f"{name} must be a finite number > 0, got {v!r}")
    return v


def _exp_times(e, x):
    """``e^e x``: a product up to e = 700, in logarithms beyond (no overflow); ``inf`` where ``e`` is ``inf``."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        out = np.where(e <= 700.0, x * np.exp(np.minimum(e, 700.0)), np.exp(e + np.log(x)))
    return np.where(np.isinf(e), np.inf, out)


def _generic_tpr(alpha, e, d):
    """``1 - _generic_tradeoff``, formed without cancellation: ``min(1, d + e^e alpha, 1 - e^-e (1 - d - alpha))``."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        first = d + _exp_times(e, alpha)
        second = 1.0 - np.where(np.isinf(e), 0.0, np.exp(-e) * np.maximum(1.0 - d - alpha, 0.0))
    return np.minimum(np.minimum(first, second), 1.0)


def _generic_tradeoff(alpha, e, d):
    """``max(0, 1 - d - e^e alpha, e^-e (1 - d - alpha))``."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        first = (1.0 - d) - _exp_times(e, alpha)
        rest = np.maximum(1.0 - d - alpha, 0.0)
        second = np.where(np.isinf(e), 0.0, np.exp(-e) * rest)
    return np.maximum(np.maximum(first, second), 0.0)


def profile_inverse(excess, d, *, floor, floor_epsilon, rtol):
    """The smallest epsilon with ``delta(epsilon) <= d`` per entry (`Mechanism.epsilon`)."""
    target = (d - floor) * (1.0 - rtol)
    every = np.arange(d.size)
    zero = (d == 1.0) | ((d >= floor) & (excess(every, np.zeros(d.shape)) <= target))
    out = np.where(zero, 0.0, np.where(d < floor, np.inf, floor_epsilon))
    todo = np.flatnonzero(~zero & (d > floor))
    if todo.size:
        start = np.full(todo.size, floor_epsilon if 0.0 < floor_epsilon < np.inf else 1.0)
        dd = target[todo]
        # a bracket grown from the floor's epsilon (0 fails, known above), bisected to adjacent floats
        near, hi, _, _, status = _search.grow(lambda i, e: excess(todo[i], e), dd, start, up=True,
                                              limit=np.inf)
        _search.warn_unconverged(status, "Mechanism.epsilon")
        fail, ok = _search.key(np.where(near < hi, near, 0.0)), _search.key(hi)
        _search.bisect(lambda i, k: excess(todo[i], _search.unkey(k)) <= dd[i], fail, ok, np.arange(todo.size))
        # and 4 ulps up, for the rounding of a closed form's own epsilon (Laplace's Delta / b, ...)
        out[todo] = _search.unkey(ok) * (1.0 + 2.0**-50)
    return out


def _rebuild(cls, values):
    first, *rest = values
    return cls(first, **dict(zip(cls._fields[1:], rest, strict=True)))


class Mechanism(abc.ABC):
    """A release mechanism on two neighbouring datasets A and B (abstract, immutable).

    Raises
    ------
    TypeError
        If instantiated itself (it is abstract): use `Laplace`, `Gaussian`,
        `RandomizedResponse`, `PureDP` or `ApproxDP`.

    Examples
    --------
    >>> from diffident import Laplace, Mechanism
    >>> isinstance(Laplace(1.0), Mechanism)
    True
    """

    #: ``(mechanism, k, discretization) -> its k-fold composition``: set by
    #: ``_mechanisms.pld``, which builds compositions on top of every mechanism
    _repeated: ClassVar[Callable[["Mechanism", int, float], "Mechanism"]]
    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()
    _rtol: ClassVar[float] = 1e-14  # a bound on the relative error of _excess where it is > 0

    # -- value semantics ---------------------------------------------------

    def _values(self) -> tuple[float, ...]:
        return tuple(getattr(self, "_" + f) for f in self._fields)

    def __repr__(self) -> str:
        inner = ", ".join(f"{f}={v!r}" for f, v in zip(self._fields, self._values(), strict=True))
        return f"{type(self).__name__}({inner})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Mechanism):
            return NotImplemented
        return type(self) is type(other) and self._values() == other._values()

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._values()))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: cannot delete {name!r}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self._values()))

    def _set(self, **values: Any) -> None:
        for name, value in values.items():
            object.__setattr__(self, "_" + name, value)

    # -- what each mechanism supplies (arrays in, arrays out) ----------------

    @property
    @abc.abstractmethod
    def pure_epsilon(self) -> float:
        """The largest privacy loss: the smallest epsilon of pure DP.

        Examples
        --------
        >>> from diffident import Gaussian, Laplace
        >>> Laplace(0.5).pure_epsilon, Gaussian(1.0).pure_epsilon
        (2.0, inf)
        """

    @abc.abstractmethod
    def _delta(self, e): ...

    @abc.abstractmethod
    def _tradeoff(self, alpha): ...

    def _tpr(self, alpha):
        """``1 - tradeoff(alpha)``; a family whose curve falls from 1 forms it directly (no cancellation)."""
        return 1.0 - np.clip(self._tradeoff(alpha), 0.0, 1.0 - alpha)

    def _excess(self, e):
        """``delta(e) - delta(inf)``, non-increasing to 0 (computed without the floor where it has one)."""
        return self._delta(e)

    @property
    def _floor_epsilon(self) -> float:
        """The smallest epsilon at which the profile reaches its floor ``delta(inf)``."""
        return self.pure_epsilon

    # -- the measures --------------------------------------------------------

    def delta(self, epsilon: RealArrayLike) -> FloatOrArray:
        """The privacy profile: the smallest delta of (epsilon, delta)-DP.

        Parameters
        ----------
        epsilon : array_like
            Epsilons >= 0 (``inf`` allowed: delta 0).

        Returns
        -------
        float or ndarray
            The hockey-stick divergence, in [0, 1]; 0 from the pure epsilon on.

        Raises
        ------
        ValueError
            If an epsilon is negative or NaN.

        Examples
        --------
        >>> from diffident import Gaussian
        >>> round(Gaussian(1.0).delta(1.0), 10)
        0.1269367375
        """
        sc = is_scalar(epsilon)
        e = privacy_epsilon("epsilon", epsilon)
        return ret(np.clip(self._delta(e), 0.0, 1.0), sc)

    def epsilon(self, delta: RealArrayLike) -> FloatOrArray:
        """The inverse of the profile: the smallest epsilon with ``delta(epsilon) <= delta``.

        Parameters
        ----------
        delta : array_like
            Deltas in [0, 1].

        Returns
        -------
        float or ndarray
            The epsilon, never below the true one (a bisection with a margin
            for the profile's error); ``inf`` where none reaches delta.

        Raises
        ------
        ValueError
            If a delta is outside [0, 1] or NaN.

        Examples
        --------
        >>> from diffident import Laplace
        >>> Laplace(1.0).epsilon(0.0)
        1.0
        """
        sc = is_scalar(delta)
        d = probability("delta", delta)
        shape = d.shape
        d = d.reshape(-1)
        floor = float(self._delta(np.array(np.inf)))  # the profile's limit, delta(inf): 0 but for ApproxDP
        out = profile_inverse(lambda i, e: self._excess(e), d, floor=floor, floor_epsilon=self._floor_epsilon,
                              rtol=self._rtol)
        return ret(out.reshape(shape), sc)

    def tradeoff(self, alpha: RealArrayLike) -> FloatOrArray:
        """The f-DP trade-off curve: the smallest type II error at type I error alpha.

        Parameters
        ----------
        alpha : array_like
            Type I errors (false-positive rates) in [0, 1].

        Returns
        -------
        float or ndarray
            The type II error beta(alpha), in [0, 1 - alpha].

        Raises
        ------
        ValueError
            If an alpha is outside [0, 1] or NaN.

        Examples
        --------
        >>> from diffident import Laplace
        >>> round(Laplace(1.0).tradeoff(0.01), 6)
        0.972817
        """
        sc = is_scalar(alpha)
        a = probability("alpha", alpha)
        return ret(np.clip(self._tradeoff(a), 0.0, 1.0 - a), sc)

    def tpr_at_fpr(self, fpr: RealArrayLike) -> FloatOrArray:
        """The largest true-positive rate of a test at a false-positive rate: ``1 - tradeoff(fpr)``.

        Parameters
        ----------
        fpr : array_like
            False-positive rates in [0, 1].

        Returns
        -------
        float or ndarray
            The TPR, in [fpr, 1].

        Raises
        ------
        ValueError
            If a rate is outside [0, 1] or NaN.

        Examples
        --------
        >>> from diffident import Gaussian
        >>> round(Gaussian(1.0).tpr_at_fpr(0.05), 6)
        0.259511
        """
        sc = is_scalar(fpr)
        a = probability("fpr", fpr)
        return ret(np.clip(self._tpr(a), a, 1.0), sc)

    def advantage(self) -> float:
        """The membership advantage: the largest TPR - FPR, the total variation, ``delta(0)``.

        Returns
        -------
        float
            The advantage, in [0, 1].

        Examples
        --------
        >>> from diffident import Laplace
        >>> round(Laplace(1.0).advantage(), 6)
        0.393469
        """
        return float(np.clip(self._delta(np.zeros(())), 0.0, 1.0))

    def posterior(self, prior: RealArrayLike) -> FloatOrArray:
        """The largest posterior probability of A after any output, at prior P of A.

        Parameters
        ----------
        prior : array_like
            Prior probabilities P of A (against B) in [0, 1].

        Returns
        -------
        float or ndarray
            ``e^eps P / (1 - P + e^eps P)`` with eps the `pure_epsilon`:
            1 for every P > 0 where the privacy loss is unbounded.

        Raises
        ------
        ValueError
            If a prior is outside [0, 1] or NaN.

        Examples
        --------
        >>> from diffident import Gaussian, Laplace
        >>> round(Laplace(1.0).posterior(0.5), 6)
        0.731059
        >>> Gaussian(1.0).posterior(0.5)
        1.0
        """
        return posterior_bound(self.pure_epsilon, prior=prior)

    def identification_bound(self, m: RealArrayLike) -> FloatOrArray:
        """Lee and Clifton's bound on identifying one of m candidates: ``1 / (1 + (m - 1) e^-eps)``.

        Parameters
        ----------
        m : array_like
            Numbers of candidates (possible worlds), >= 1.

        Returns
        -------
        float or ndarray
            The bound at eps the `pure_epsilon`; 1 where there is none
            (then see `success_bound`).

        Raises
        ------
        ValueError
            If an m is below 1, infinite or NaN.

        Examples
        --------
        >>> from diffident import PureDP
        >>> round(PureDP(1.0).identification_bound(2), 6)
        0.731059
        """
        return rho_for_epsilon(self.pure_epsilon, m=m)

    def success_bound(self, m: RealArrayLike) -> FloatOrArray:
        """The f-DP bound on guessing one of m equally likely candidates: ``1 - tradeoff(1/m)``.

        Parameters
        ----------
        m : array_like
            Numbers of candidates, >= 1.

        Returns
        -------
        float or ndarray
            A bound on naming the true one of m equally likely candidates
            (`diffident.expected_risk` is exact for known query values).

        Raises
        ------
        ValueError
            If an m is below 1, infinite or NaN.

        Examples
        --------
        >>> from diffident import Gaussian
        >>> round(Gaussian(1.0).success_bound(2), 6)     # Phi(1)
        0.841345
        """
        sc = is_scalar(m)
        a = 1.0 / worlds("m", m)
        return ret(np.clip(self._tpr(a), a, 1.0), sc)


    def compose(self, k: int, *, discretization: float = 1e-4) -> "Mechanism":
        """The same mechanism released k times about one person: ``compose(self, ..., self)``.

        Parameters
        ----------
        k : int
            The number of releases, a whole number >= 1.
        discretization : float, keyword-only
            The privacy-loss grid width of a PLD composition (default 1e-4).

        Returns
        -------
        Mechanism
            ``self`` for k = 1, else a `diffident.Composition`.

        Raises
        ------
        ValueError
            If k is not a whole number >= 1.
        TypeError
            If k is not a number.

        Examples
        --------
        >>> from diffident import Laplace
        >>> m = Laplace(1.0).compose(10)
        >>> m
        Composition(Laplace(scale=1.0, sensitivity=1.0) * 10)
        >>> m.pure_epsilon
        10.0
        """
        return Mechanism._repeated(self, k, discretization)


class _Noise(Mechanism):
    """Noise of one scale parameter (the first of ``_fields``) and a sensitivity (abstract)."""

    __slots__ = ()
    _sensitivity: float

    def _build(self, value: float, sensitivity: float, steps: Any = None) -> None:
        """Validate and set the scale and the sensitivity (``steps``: its own check)."""
        name = self._fields[0]
        v = _positive(name, value)
        d = _positive("sensitivity", sensitivity) if steps is None else steps(sensitivity)
        if not np.isfinite(d / v):
            raise ValueError(f"sensitivity / {name} must be finite, got {d!r} / {v!r}")
        self._set(**{name: v, "sensitivity": d})

    @property
    def sensitivity(self) -> float:
        """The sensitivity Delta: how far the queries of A and B lie apart.

        Examples
        --------
        >>> from diffident import Laplace
        >>> Laplace(2.0, sensitivity=3).sensitivity
        3.0
        """
        return float(self._sensitivity)


