"""The mechanisms with integer noise: discrete Laplace and discrete Gaussian."""

import math
import numbers
from fractions import Fraction

import numpy as np

from .._numerics.shared_docs import shared_docs
from .._numerics.validate import scalar
from ..dp._integer import discrete_gaussian_sigma, discrete_laplace_scale, div_up, geometric_scale
from . import integer_fdp as fdp
from .base import _Noise, _positive


def _steps(x):
    """The sensitivity in lattice steps: a whole number >= 1."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
        raise TypeError(f"sensitivity must be a whole number of lattice steps, got {x!r}")
    v = float(x)
    if not (math.isfinite(v) and v >= 1.0 and v == math.floor(v) and v <= 2.0**53):
        raise ValueError(f"sensitivity must be a whole number of lattice steps in 1..2**53, got {x!r}")
    return v



class DiscreteLaplace(_Noise):
    """Discrete Laplace (two-sided geometric) noise: ``P(Z = k)`` proportional to ``exp(-|k| / scale)``.

    Parameters
    ----------
    scale : float
        The scale in lattice units, finite and > 0.
    sensitivity : int, keyword-only
        Delta, lattice steps between the queries of A and B (default 1).

    Raises
    ------
    ValueError
        If the scale is not finite and > 0, or Delta not whole in 1..2**53.
    TypeError
        If the sensitivity is not a number.

    Examples
    --------
    >>> from diffident import DiscreteLaplace
    >>> m = DiscreteLaplace(1.0)
    >>> m
    DiscreteLaplace(scale=1.0, sensitivity=1.0)
    >>> round(m.advantage(), 6), m.pure_epsilon   # tanh(1/2)
    (0.462117, 1.0)
    """

    __slots__ = ("_scale", "_sensitivity")
    _fields = ("scale", "sensitivity")
    _scale: float
    _rtol = 1e-13  # measured: 4e-16 (profile), 7e-15 (curve) against mpmath lattice sums

    def __init__(self, scale: float, *, sensitivity: float = 1) -> None:
        self._build(scale, sensitivity, _steps)

    @classmethod
    @shared_docs
    def from_epsilon(cls, epsilon: float, *, sensitivity: float = 1) -> "DiscreteLaplace":
        """The discrete Laplace noise of epsilon-DP: scale ``Delta / epsilon``, rounded up (as OpenDP).

        Parameters
        ----------
        epsilon : float
            The epsilon, finite and > 0.
        %(lattice_sensitivity)s

        Returns
        -------
        DiscreteLaplace
            The mechanism, with ``pure_epsilon <= epsilon``.

        Raises
        ------
        ValueError
            If epsilon is not finite and > 0, the scale overflows, or Delta is bad.
        TypeError
            If an argument is not a real number.

        Examples
        --------
        >>> DiscreteLaplace.from_epsilon(0.5)
        DiscreteLaplace(scale=2.0, sensitivity=1.0)
        """
        e, d = _positive("epsilon", epsilon), _steps(sensitivity)
        return cls(float(discrete_laplace_scale(e, sensitivity=d)), sensitivity=d)

    @classmethod
    @shared_docs
    def from_geometric(cls, p: float, *, sensitivity: float = 1) -> "DiscreteLaplace":
        """The Census geometric mechanism of parameter p: ``P(Z = k)`` proportional to ``(1 - p)^|k|``.

        Parameters
        ----------
        p : float
            The geometric parameter, in (0, 1).
        %(lattice_sensitivity)s

        Returns
        -------
        DiscreteLaplace
            The mechanism.

        Raises
        ------
        ValueError
            If p is outside (0, 1) or NaN, the scale overflows, or Delta is bad.
        TypeError
            If an argument is not a real number.

        Examples
        --------
        >>> import math
        >>> m = DiscreteLaplace.from_geometric(1 - math.exp(-0.5))
        >>> round(m.scale, 12), round(m.pure_epsilon, 12)
        (2.0, 0.5)
        """
        return cls(float(geometric_scale(scalar("p", p))), sensitivity=_steps(sensitivity))

    @property
    def scale(self) -> float:
        """The scale, in lattice units.

        Examples
        --------
        >>> DiscreteLaplace(2.0).scale
        2.0
        """
        return float(self._scale)

    @property
    def pure_epsilon(self) -> float:
        """The largest privacy loss: epsilon = Delta / scale.

        Examples
        --------
        >>> DiscreteLaplace(2.0).pure_epsilon
        0.5
        """
        return float(div_up(self._sensitivity, self._scale))

    def _delta(self, e):
        return np.asarray(fdp.dlap_delta(e, self._scale, self._sensitivity), dtype=np.float64)

    def _tradeoff(self, alpha):
        return np.asarray(fdp.dlap_tradeoff(alpha, self._scale, self._sensitivity), dtype=np.float64)


class DiscreteGaussian(_Noise):
    """Discrete Gaussian noise: ``P(Z = k)`` proportional to ``exp(-k^2 / (2 sigma^2))``.

    Parameters
    ----------
    sigma : float
        The sigma parameter in lattice units (OpenDP's scale), finite, > 0.
    sensitivity : int, keyword-only
        Delta, lattice steps between the queries of A and B (default 1).

    Raises
    ------
    ValueError
        If sigma is not finite and > 0, or Delta not whole in 1..2**53.
    TypeError
        If the sensitivity is not a number.

    Examples
    --------
    >>> from diffident import DiscreteGaussian
    >>> m = DiscreteGaussian(1.0)
    >>> round(m.delta(1.0), 10), round(m.advantage(), 6)
    (0.1413513394, 0.398942)
    """

    __slots__ = ("_sigma", "_sensitivity")
    _fields = ("sigma", "sensitivity")
    _sigma: float
    _rtol = 1e-12  # measured 7e-15 against mpmath lattice sums (more where delta is below 1e-300)

    def __init__(self, sigma: float, *, sensitivity: float = 1) -> None:
        self._build(sigma, sensitivity, _steps)

    @classmethod
    @shared_docs
    def from_zcdp(cls, zcdp_rho: float, *, sensitivity: float = 1) -> "DiscreteGaussian":
        """The discrete Gaussian of zcdp_rho-zCDP: ``sigma = Delta / sqrt(2 zcdp_rho)``, rounded up.

        Parameters
        ----------
        zcdp_rho : float
            The zCDP parameter, finite and > 0.
        %(lattice_sensitivity)s

        Returns
        -------
        DiscreteGaussian
            The mechanism.

        Raises
        ------
        ValueError
            If zcdp_rho is not finite and > 0, sigma overflows, or Delta is bad.
        TypeError
            If an argument is not a real number.

        Examples
        --------
        >>> DiscreteGaussian.from_zcdp(0.5)
        DiscreteGaussian(sigma=1.0, sensitivity=1.0)
        """
        r, d = _positive("zcdp_rho", zcdp_rho), _steps(sensitivity)
        return cls(float(discrete_gaussian_sigma(r, sensitivity=d)), sensitivity=d)

    @classmethod
    @shared_docs
    def from_variance(cls, sigma_squared: float, *, sensitivity: float = 1) -> "DiscreteGaussian":
        """The discrete Gaussian of parameter ``sigma^2``, Tumult's ``AddDiscreteGaussianNoise(sigma_squared)``.

        Parameters
        ----------
        sigma_squared : float
            The square of sigma, finite and > 0.
        %(lattice_sensitivity)s

        Returns
        -------
        DiscreteGaussian
            The mechanism, with the largest float sigma whose square is at
            most ``sigma_squared``.

        Raises
        ------
        ValueError
            If sigma_squared is not finite and > 0, or Delta is bad.
        TypeError
            If an argument is not a real number.

        Examples
        --------
        >>> DiscreteGaussian.from_variance(4.0)
        DiscreteGaussian(sigma=2.0, sensitivity=1.0)
        """
        v = _positive("sigma_squared", sigma_squared)
        sigma = math.sqrt(v)
        if Fraction(sigma) ** 2 > Fraction(v):  # sqrt is correctly rounded: at most one float too far
            sigma = math.nextafter(sigma, 0.0)
        return cls(sigma, sensitivity=_steps(sensitivity))

    @property
    def sigma(self) -> float:
        """The sigma parameter, in lattice units.

        Examples
        --------
        >>> DiscreteGaussian(3.0).sigma
        3.0
        """
        return float(self._sigma)

    @property
    def pure_epsilon(self) -> float:
        """Infinite: the discrete Gaussian is not pure DP.

        Examples
        --------
        >>> DiscreteGaussian(1.0).pure_epsilon
        inf
        """
        return math.inf

    def _delta(self, e):
        return np.asarray(fdp.dgauss_delta(e, self._sigma, self._sensitivity), dtype=np.float64)

    def _tradeoff(self, alpha):
        return np.asarray(fdp.dgauss_tradeoff(alpha, self._sigma, self._sensitivity), dtype=np.float64)
