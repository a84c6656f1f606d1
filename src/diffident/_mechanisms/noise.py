"""The mechanisms with a known noise: Laplace, Gaussian, k-ary randomized response."""


import numpy as np
from scipy.special import ndtr, ndtri

from .._numerics.validate import integer, scalar
from ..dp._gaussian import analytic_gaussian_sigma
from ..dp._gaussian_delta import gauss_delta
from ..dp._integer import div_up, sigma_up
from ..rr._privacy import kary_epsilon_of
from .base import Mechanism, _exp_times, _Noise, _positive

_SQRT2 = float(np.sqrt(2.0))


def laplace_delta(e, eps):
    """The Laplace profile at epsilons ``e`` for pure epsilons ``eps`` (broadcast)."""
    with np.errstate(invalid="ignore"):
        return -np.expm1(np.minimum((e - eps) / 2.0, 0.0))


def laplace_tradeoff(alpha, eps):
    """The Laplace trade-off curve at ``alpha`` for pure epsilons ``eps`` (broadcast)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        first = 1.0 - np.exp(eps + np.log(alpha))
        middle = np.exp(-eps - np.log(4.0 * alpha))
        last = np.exp(-eps + np.log1p(-alpha))
    knee = np.exp(-eps) / 2.0
    out = np.where(alpha < knee, first, np.where(alpha <= 0.5, middle, last))
    return np.where(alpha == 0.0, 1.0, out)  # full support: no test of size 0 finds B


def laplace_tpr(alpha, eps):
    """``1 - laplace_tradeoff``: ``e^eps alpha`` below the knee, formed directly (no cancellation)."""
    low = _exp_times(eps, alpha)
    return np.where(alpha < np.exp(-eps) / 2.0, low, 1.0 - np.clip(laplace_tradeoff(alpha, eps), 0.0, 1.0 - alpha))


def gaussian_tradeoff(alpha, mu):
    """The Gaussian trade-off curve ``Phi(Phi^-1(1 - alpha) - mu)`` (broadcast)."""
    return ndtr(-ndtri(alpha) - mu)


def gaussian_tpr(alpha, mu):
    """``1 - gaussian_tradeoff = Phi(Phi^-1(alpha) + mu)``, formed directly (no cancellation)."""
    return ndtr(ndtri(alpha) + mu)


class Laplace(_Noise):
    """The Laplace mechanism: noise of scale b on a query of sensitivity Delta.

    Parameters
    ----------
    scale : float
        The noise scale b, finite and > 0.
    sensitivity : float, keyword-only
        Delta, how far the queries of A and B lie apart; finite, > 0.

    Raises
    ------
    ValueError
        If a parameter is not a finite number > 0, or Delta / b overflows.

    Examples
    --------
    >>> from diffident import Laplace
    >>> m = Laplace(1.0)
    >>> m
    Laplace(scale=1.0, sensitivity=1.0)
    >>> round(m.delta(0.5), 6), m.pure_epsilon
    (0.221199, 1.0)
    """

    __slots__ = ("_scale", "_sensitivity")
    _fields = ("scale", "sensitivity")
    _scale: float

    def __init__(self, scale: float, *, sensitivity: float = 1.0) -> None:
        self._build(scale, sensitivity)

    @classmethod
    def from_epsilon(cls, epsilon: float, *, sensitivity: float = 1.0) -> "Laplace":
        """The Laplace noise of epsilon-DP: scale ``Delta / epsilon``, rounded up.

        Parameters
        ----------
        epsilon : float
            The epsilon, finite and > 0.
        sensitivity : float, keyword-only
            Delta, finite and > 0 (default 1).

        Returns
        -------
        Laplace
            The mechanism, with ``pure_epsilon <= epsilon``.

        Raises
        ------
        ValueError
            If epsilon or Delta is not finite and > 0, or the scale overflows.
        TypeError
            If an argument is not a real number.

        Examples
        --------
        >>> Laplace.from_epsilon(0.5, sensitivity=2)
        Laplace(scale=4.0, sensitivity=2.0)
        """
        e, d = _positive("epsilon", epsilon), _positive("sensitivity", sensitivity)
        return cls(float(div_up(d, e)), sensitivity=d)

    @property
    def scale(self) -> float:
        """The noise scale b.

        Examples
        --------
        >>> Laplace(2.0).scale
        2.0
        """
        return float(self._scale)

    @property
    def pure_epsilon(self) -> float:
        """The largest privacy loss: epsilon = Delta / b.

        Examples
        --------
        >>> Laplace(2.0).pure_epsilon
        0.5
        """
        return float(div_up(self._sensitivity, self._scale))

    def _delta(self, e):
        return laplace_delta(e, self.pure_epsilon)

    def _tradeoff(self, alpha):
        return laplace_tradeoff(alpha, self.pure_epsilon)

    def _tpr(self, alpha):
        return laplace_tpr(alpha, self.pure_epsilon)


class Gaussian(_Noise):
    """The Gaussian mechanism: noise of standard deviation sigma, sensitivity Delta.

    Parameters
    ----------
    sigma : float
        The noise's standard deviation, finite and > 0.
    sensitivity : float, keyword-only
        Delta, finite and > 0.

    Raises
    ------
    ValueError
        If a parameter is not a finite number > 0, or Delta / sigma overflows.

    Examples
    --------
    >>> from diffident import Gaussian
    >>> m = Gaussian(1.0)
    >>> m
    Gaussian(sigma=1.0, sensitivity=1.0)
    >>> round(m.advantage(), 6)
    0.382925
    """

    __slots__ = ("_sigma", "_sensitivity")
    _fields = ("sigma", "sensitivity")
    _sigma: float
    _rtol = 1e-12  # measured: 1e-13 against 50-digit values, mu in [1e-8, 40], epsilon to 700

    def __init__(self, sigma: float, *, sensitivity: float = 1.0) -> None:
        self._build(sigma, sensitivity)

    @classmethod
    def from_zcdp(cls, zcdp_rho: float, *, sensitivity: float = 1.0) -> "Gaussian":
        """The Gaussian noise of zcdp_rho-zCDP: ``sigma = Delta / sqrt(2 zcdp_rho)``, rounded up.

        Parameters
        ----------
        zcdp_rho : float
            The zCDP parameter, finite and > 0.
        sensitivity : float, keyword-only
            The L2 sensitivity Delta, finite and > 0 (default 1).

        Returns
        -------
        Gaussian
            The mechanism, with ``mu = Delta / sigma <= sqrt(2 zcdp_rho)``.

        Raises
        ------
        ValueError
            If zcdp_rho or Delta is not finite and > 0, or sigma overflows.
        TypeError
            If an argument is not a real number.

        Examples
        --------
        >>> Gaussian.from_zcdp(0.5)
        Gaussian(sigma=1.0, sensitivity=1.0)
        """
        r, d = _positive("zcdp_rho", zcdp_rho), _positive("sensitivity", sensitivity)
        return cls(float(sigma_up(d, r)), sensitivity=d)

    @classmethod
    def from_epsilon_delta(cls, epsilon: float, delta: float, *, sensitivity: float = 1.0) -> "Gaussian":
        """The least Gaussian noise of (epsilon, delta)-DP (the analytic Gaussian mechanism).

        Parameters
        ----------
        epsilon : float
            The epsilon, finite and >= 0.
        delta : float
            The delta, in (0, 1).
        sensitivity : float, keyword-only
            The L2 sensitivity Delta, finite and > 0 (default 1).

        Returns
        -------
        Gaussian
            The mechanism of `diffident.dp.analytic_gaussian_sigma`: its
            ``delta(epsilon)`` is at most ``delta``.

        Raises
        ------
        ValueError
            If an argument is out of its range or NaN.
        TypeError
            If an argument is not a real number.

        Examples
        --------
        >>> m = Gaussian.from_epsilon_delta(1.0, 1e-6)
        >>> round(m.sigma, 4), bool(m.delta(1.0) <= 1e-6)
        (4.2247, True)
        """
        e = scalar("epsilon", epsilon)
        if not 0.0 <= e < np.inf:
            raise ValueError(f"epsilon must be a finite number >= 0, got {e!r}")
        d = _positive("sensitivity", sensitivity)
        m = cls(float(analytic_gaussian_sigma(e, delta=delta, sensitivity=d)), sensitivity=d)
        for _ in range(64):  # the analytic root passes its own certified test; this profile's rounding too
            if m.delta(e) <= delta:
                return m
            m = cls(float(np.nextafter(m._sigma, np.inf)), sensitivity=d)
        raise AssertionError("no sigma within 64 floats passed the profile")  # pragma: no cover

    @property
    def sigma(self) -> float:
        """The noise's standard deviation sigma.

        Examples
        --------
        >>> Gaussian(2.0).sigma
        2.0
        """
        return float(self._sigma)

    @property
    def mu(self) -> float:
        """The mu of Gaussian DP: Delta / sigma.

        Examples
        --------
        >>> Gaussian(0.5).mu
        2.0
        """
        return float(self._sensitivity / self._sigma)

    @property
    def pure_epsilon(self) -> float:
        """The largest privacy loss: infinite, as the Gaussian's is unbounded.

        Examples
        --------
        >>> Gaussian(1.0).pure_epsilon
        inf
        """
        return float("inf")

    def _delta(self, e):
        e = np.asarray(e, dtype=np.float64)
        return gauss_delta(np.full(e.shape, self._sigma), e, np.full(e.shape, self._sensitivity))

    def _tradeoff(self, alpha):
        return gaussian_tradeoff(alpha, self.mu)

    def _tpr(self, alpha):
        return gaussian_tpr(alpha, self.mu)


class RandomizedResponse(Mechanism):
    """Randomized response on d categories: the truth with probability p, else another at random.

    Parameters
    ----------
    p : float
        The truth probability, in [1/d, 1].
    d : int, keyword-only
        The number of categories, an integer >= 2.

    Raises
    ------
    ValueError
        If p is outside [1/d, 1] or NaN, or d < 2 or d > 2**53.
    TypeError
        If d is not an integer.

    Examples
    --------
    >>> from diffident import RandomizedResponse
    >>> m = RandomizedResponse(0.5, d=4)
    >>> m
    RandomizedResponse(p=0.5, d=4)
    >>> round(m.pure_epsilon, 12)                      # ln 3
    1.098612288668
    """

    __slots__ = ("_p", "_d")
    _fields = ("p", "d")
    _p: float
    _d: int

    def __init__(self, p: float, *, d: int = 2) -> None:
        dd = integer("d", d, minimum=2)
        if dd > 2**53:
            raise ValueError(f"d must be at most 2**53 (exact in float64), got {dd!r}")
        pp = scalar("p", p)
        if not 1.0 / dd <= pp <= 1.0:
            raise ValueError(f"p must lie in [1/d, 1] (below 1/d the true category is the least likely report); "
                             f"got {pp!r} with d = {dd}")
        self._set(p=pp, d=dd)

    @property
    def p(self) -> float:
        """The truth probability p.

        Examples
        --------
        >>> RandomizedResponse(0.5, d=3).p
        0.5
        """
        return float(self._p)

    @property
    def d(self) -> int:
        """The number of categories d.

        Examples
        --------
        >>> RandomizedResponse(0.5, d=3).d
        3
        """
        return int(self._d)

    @property
    def _q(self) -> float:
        return float((1.0 - self._p) / (self._d - 1))

    @property
    def pure_epsilon(self) -> float:
        """The largest privacy loss: ``ln(p (d - 1) / (1 - p))`` (as `diffident.rr.kary_epsilon`).

        Examples
        --------
        >>> round(RandomizedResponse(0.75).pure_epsilon, 12)   # ln 3
        1.098612288668
        """
        return float(kary_epsilon_of(np.float64(self._p), np.float64(self._d)))

    def _gap(self, e):
        """``p - e^e q`` for e <= eps: as ``q e^e (e^(eps - e) - 1)`` near eps
        (no cancellation), as it stands once ``e^e q <= p / e`` (no overflow).
        """
        eps, p, q = self.pure_epsilon, self._p, self._q
        with np.errstate(over="ignore", invalid="ignore"):
            near = _exp_times(e, q) * np.expm1(np.minimum(np.maximum(eps - e, 0.0), 1.0))
            far = p - _exp_times(e, q)
        return np.where(eps - e <= 1.0, near, far)

    def _delta(self, e):
        eps, q = self.pure_epsilon, self._q
        if q == 0.0:
            return np.where(np.isinf(e), 0.0, 1.0)
        return np.where(e >= eps, 0.0, self._gap(e))

    def _tradeoff(self, alpha):
        eps, q = self.pure_epsilon, self._q
        if q == 0.0:
            return np.zeros_like(alpha)
        tv = float(self._gap(np.zeros(())))
        with np.errstate(over="ignore", invalid="ignore"):
            lines = np.maximum(1.0 - _exp_times(eps, alpha), 1.0 - tv - alpha)
            lines = np.maximum(lines, np.exp(-eps) * (1.0 - alpha))
        return np.maximum(lines, 0.0)

    def _tpr(self, alpha):
        """``min(1, e^eps alpha, tv + alpha, 1 - e^-eps (1 - alpha))``: the curve's lines, complemented."""
        eps, q = self.pure_epsilon, self._q
        if q == 0.0:
            return np.ones_like(alpha)
        tv = float(self._gap(np.zeros(())))
        with np.errstate(over="ignore", invalid="ignore"):
            lines = np.minimum(_exp_times(eps, alpha), tv + alpha)
            lines = np.minimum(lines, 1.0 - np.exp(-eps) * (1.0 - alpha))
        return np.minimum(lines, 1.0)
