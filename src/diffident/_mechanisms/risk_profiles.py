"""Kazan and Reiter's risk profiles: the largest epsilon a posterior-to-prior bound allows."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._numerics.validate import in_range, is_scalar, ret, scalar
from .._typing import FloatOrArray, RealArrayLike

__all__ = ["RatioProfile", "profile_epsilon"]

_GRID = np.concatenate((np.geomspace(1e-12, 1e-3, 2000, endpoint=False), np.linspace(1e-3, 1.0, 18001)))


def _epsilon_at(p, inv_r, q):
    """The largest epsilon whose worst ratio at prior p (inclusion q) is within 1 / inv_r (broadcast)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        g = inv_r - p * q
        root = np.sqrt((1.0 - p) ** 2 + 4.0 * p * (1.0 - q) * g)
        out = np.log(root + (1.0 - p)) - np.log(2.0 * g)
    return np.where(g > 0.0, out, np.inf)


class RatioProfile:
    """The common profile ``r*(p) = max(a / p, r)``: a ratio bound r, loosened to a / p for rare traits.

    Parameters
    ----------
    a : float
        The posterior tolerated for rare traits, finite and > 0.
    r : float
        The ratio bound, finite and >= 1.

    Attributes
    ----------
    a : float
        As given.
    r : float
        As given.

    Raises
    ------
    ValueError
        If a is not a finite number > 0 or r is not finite and >= 1.
    TypeError
        If an argument is not a real number.

    Examples
    --------
    >>> from diffident import RatioProfile
    >>> RatioProfile(0.25, 3)(0.01), RatioProfile(0.25, 3)(0.5)
    (25.0, 3.0)
    """

    __slots__ = ("a", "r")
    a: float
    r: float

    def __init__(self, a: float, r: float) -> None:
        av, rv = scalar("a", a), scalar("r", r)
        if not 0.0 < av < np.inf:
            raise ValueError(f"a must be a finite number > 0, got {av!r}")
        if not 1.0 <= rv < np.inf:
            raise ValueError(f"r must be a finite number >= 1, got {rv!r}")
        object.__setattr__(self, "a", av)
        object.__setattr__(self, "r", rv)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"RatioProfile is immutable: cannot set {name!r}")

    def __repr__(self) -> str:
        return f"RatioProfile(a={self.a!r}, r={self.r!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RatioProfile) and (self.a, self.r) == (other.a, other.r)

    def __hash__(self) -> int:
        return hash(("RatioProfile", self.a, self.r))

    def __call__(self, p: RealArrayLike) -> FloatOrArray:
        """The ratio bound at priors p: ``max(a / p, r)``.

        Parameters
        ----------
        p : array_like
            Priors in (0, 1].

        Returns
        -------
        float or ndarray
            The bound.

        Raises
        ------
        ValueError
            If a prior is outside (0, 1] or NaN.

        Examples
        --------
        >>> RatioProfile(0.2, 2)(0.05)
        4.0
        """
        sc = is_scalar(p)
        pp = in_range("p", p, 0.0, 1.0, lo_open=True)
        return ret(np.maximum(self.a / pp, self.r), sc)


def profile_epsilon(profile: RatioProfile | Callable[..., Any], *, q: RealArrayLike = 1.0) -> FloatOrArray:
    """The largest epsilon whose posterior-to-prior ratios stay within an agency's profile.

    Parameters
    ----------
    profile : RatioProfile or callable
        The bound r*(p) on the posterior over the prior: a `RatioProfile`,
        or a function of priors (and of q, if it takes two) giving bounds >= 1.
    q : array_like, optional
        Inclusion probabilities in (0, 1] (default 1).

    Returns
    -------
    float or ndarray
        The epsilon, shape of q: ``inf`` where the profile never binds,
        ``nan`` where a bound is below 1; exact for a `RatioProfile`.

    Raises
    ------
    ValueError
        If a q is outside (0, 1] or NaN, or a callable returns NaN.
    TypeError
        If the profile is neither a `RatioProfile` nor callable.

    Examples
    --------
    >>> from diffident import RatioProfile, profile_epsilon
    >>> round(profile_epsilon(RatioProfile(0.25, 3)), 5)   # ln(2.75 / 0.75)
    1.29928
    """
    sc = is_scalar(q)
    qq = in_range("q", q, 0.0, 1.0, lo_open=True)
    ratio = isinstance(profile, RatioProfile)
    if not ratio and not callable(profile):
        raise TypeError(f"profile must be a RatioProfile or a callable, got {type(profile).__name__}")
    two = not ratio and _takes_two(profile)
    if ratio:
        assert isinstance(profile, RatioProfile)
        return ret(_ratio_profile_epsilon(profile.a, profile.r, qq), sc)
    flat = qq.reshape(-1)
    out = np.empty(flat.size)
    for i, qi in enumerate(flat):
        out[i] = _grid_minimum(profile, qi, two)
    return ret(out.reshape(qq.shape), sc)


def _ratio_profile_epsilon(a, r, q):
    """The exact minimum over priors for ``max(a / p, r)``: at the kink p = a / r or at p = 1."""
    kink = min(a / r, 1.0)
    at_kink = _epsilon_at(kink, 1.0 / max(a / kink, r), q)
    at_one = _epsilon_at(1.0, 1.0 / max(a, r), q)
    return np.minimum(at_kink, at_one)


def _takes_two(fn):
    import inspect

    try:
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        return False
    return len(params) >= 2


def _bounds(profile, p, q, two):
    r = np.asarray(profile(p, q) if two else profile(p), dtype=np.float64)
    r = np.broadcast_to(r, np.shape(p))
    if np.isnan(r).any():
        raise ValueError("the profile returned NaN")
    return r


def _grid_minimum(profile, q, two):
    r = _bounds(profile, _GRID, q, two)
    if (r < 1.0).any():
        return float("nan")
    eps = _epsilon_at(_GRID, 1.0 / r, q)
    k = int(np.argmin(eps))
    best = float(eps[k])
    # refine between the neighbours of the smallest: a ternary search on the bracket
    lo, hi = _GRID[max(k - 1, 0)], _GRID[min(k + 1, _GRID.size - 1)]
    for _ in range(100):
        m1, m2 = lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0
        pts = np.array([m1, m2])
        e1, e2 = _epsilon_at(pts, 1.0 / _bounds(profile, pts, q, two), q)
        best = min(best, float(e1), float(e2))
        if e1 <= e2:
            hi = m2
        else:
            lo = m1
    return best
