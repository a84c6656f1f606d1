"""The generic guarantees as mechanisms: `ApproxDP` (epsilon, delta) and
`PureDP` (epsilon), with the worst-case trade-off curve of their pair.
"""

from typing import ClassVar

import numpy as np

from .._numerics.validate import probability, scalar
from .base import Mechanism, _generic_tpr, _generic_tradeoff


class ApproxDP(Mechanism):
    """An (epsilon, delta)-DP guarantee without a known mechanism: the generic curves.

    Parameters
    ----------
    epsilon : float
        The guarantee's epsilon, finite and >= 0.
    delta : float, keyword-only
        The guarantee's delta, in [0, 1].

    Raises
    ------
    ValueError
        If epsilon is negative, infinite or NaN, or delta is outside [0, 1].

    Examples
    --------
    >>> from diffident import ApproxDP
    >>> m = ApproxDP(1.0, delta=1e-3)
    >>> m
    ApproxDP(epsilon=1.0, delta=0.001)
    >>> round(m.tradeoff(0.8), 4)
    0.0732
    """

    __slots__ = ("_epsilon", "_delta_")
    _fields: ClassVar[tuple[str, ...]] = ("epsilon", "delta")
    _epsilon: float
    _delta_: float

    def __init__(self, epsilon: float, *, delta: float) -> None:
        e = scalar("epsilon", epsilon)
        if not 0.0 <= e < np.inf:
            raise ValueError(f"epsilon must be a finite number >= 0, got {e!r}")
        d = float(probability("delta", scalar("delta", delta)))
        self._set(epsilon=e, delta_=d)

    def _values(self) -> tuple[float, ...]:
        return (self._epsilon, self._delta_)

    @property
    def pair(self) -> tuple[float, float]:
        """The guarantee: its epsilon and delta.

        Examples
        --------
        >>> ApproxDP(1.0, delta=1e-5).pair
        (1.0, 1e-05)
        """
        return (float(self._epsilon), float(self._delta_))

    @property
    def pure_epsilon(self) -> float:
        """The largest privacy loss: the guarantee's epsilon where its delta is 0.

        Examples
        --------
        >>> ApproxDP(1.0, delta=0.0).pure_epsilon
        1.0
        >>> ApproxDP(1.0, delta=1e-9).pure_epsilon
        inf
        """
        return float(self._epsilon) if self._delta_ == 0.0 else float("inf")

    def _excess(self, e):
        big_e, d = self._epsilon, self._delta_
        with np.errstate(invalid="ignore", over="ignore"):
            below = (1.0 - d) * -np.expm1(np.minimum(e - big_e, 0.0)) / (1.0 + np.exp(-big_e))
        return np.where(e >= big_e, 0.0, below)

    def _delta(self, e):
        return self._delta_ + self._excess(e)

    @property
    def _floor_epsilon(self) -> float:
        return float(self._epsilon)

    def _tradeoff(self, alpha):
        return _generic_tradeoff(alpha, self._epsilon, self._delta_)

    def _tpr(self, alpha):
        return _generic_tpr(alpha, self._epsilon, self._delta_)


class PureDP(ApproxDP):
    """A pure epsilon-DP guarantee without a known mechanism: `ApproxDP` with delta 0.

    Parameters
    ----------
    epsilon : float
        The guarantee's epsilon, finite and >= 0.

    Raises
    ------
    ValueError
        If epsilon is negative, infinite or NaN.

    Examples
    --------
    >>> from diffident import PureDP
    >>> m = PureDP(1.0)
    >>> m
    PureDP(epsilon=1.0)
    >>> round(m.advantage(), 6), round(m.posterior(0.5), 6)
    (0.462117, 0.731059)
    """

    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ("epsilon",)

    def __init__(self, epsilon: float) -> None:
        super().__init__(epsilon, delta=0.0)

    def _values(self) -> tuple[float, ...]:
        return (self._epsilon,)
