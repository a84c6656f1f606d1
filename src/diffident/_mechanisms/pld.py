"""Composition and DP-SGD through dp-accounting's pessimistic privacy-loss distributions."""

from __future__ import annotations

import numbers
from typing import Any, ClassVar

import numpy as np

from .._kernels.pld import hockey_tails, upper_envelope
from .._numerics.validate import scalar
from .base import Mechanism, _positive
from .guarantees import ApproxDP
from .integer import DiscreteGaussian, DiscreteLaplace
from .noise import Gaussian, Laplace, RandomizedResponse

__all__ = ["Composition", "SubsampledGaussian", "compose"]

#: The default width of the PLD's privacy-loss grid (dp-accounting's own default).
DISCRETIZATION = 1e-4
_NEIGHBOURS = ("add_remove", "replace_one")


def _accounting():
    try:
        from dp_accounting.pld import common, privacy_loss_distribution
        from dp_accounting.privacy_accountant import NeighboringRelation
    except ImportError as exc:
        raise ImportError('composition and DP-SGD need dp-accounting: pip install "diffident[accounting]"') from exc
    return privacy_loss_distribution, common, NeighboringRelation


def _interval(x):
    v = _positive("discretization", x)
    if v > 1.0:
        raise ValueError(f"discretization must be a number in (0, 1], got {v!r}")
    return v


def _count(name, k):
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Real):
        raise TypeError(f"{name} must be a whole number, got {k!r}")
    v = float(k)
    if not (np.isfinite(v) and v >= 1.0 and v == np.floor(v) and v <= 2.0**53):
        raise ValueError(f"{name} must be a whole number >= 1, got {k!r}")
    return int(v)


def _part_pld(m, interval):
    """The dp-accounting PLD of one mechanism value (pessimistic)."""
    pld, common, _ = _accounting()
    kw: dict[str, Any] = {"value_discretization_interval": interval}
    if isinstance(m, Laplace):
        return pld.from_laplace_mechanism(m.scale, sensitivity=m.sensitivity, **kw)
    if isinstance(m, Gaussian):
        return pld.from_gaussian_mechanism(m.sigma, sensitivity=m.sensitivity, **kw)
    if isinstance(m, DiscreteLaplace):  # dp-accounting's parameter: P(k) ~ e^(-parameter |k|)
        return pld.from_discrete_laplace_mechanism(1.0 / m.scale, sensitivity=int(m.sensitivity), **kw)
    if isinstance(m, DiscreteGaussian):
        return pld.from_discrete_gaussian_mechanism(m.sigma, sensitivity=int(m.sensitivity), **kw)
    if isinstance(m, RandomizedResponse):
        # dp-accounting keeps the truth with 1 - noise and draws uniformly
        # otherwise: P(truth) = 1 - noise + noise / d = p
        noise = m.d * (1.0 - m.p) / (m.d - 1.0)
        if not 0.0 < noise <= 1.0:
            raise ValueError(f"randomized response with p = {m.p!r} below 1/d cannot be composed")
        return pld.from_randomized_response(noise, m.d, **kw)
    if isinstance(m, SubsampledGaussian):  # (on the composition's grid: PLDs compose on one)
        same = m._discretization == interval
        return (m if same else SubsampledGaussian(m._sigma, sampling_rate=m._sampling_rate, steps=m._steps,
                                                  neighbours=m._neighbours, discretization=interval))._pld
    if isinstance(m, ApproxDP):
        e, d = m.pair
        return pld.from_privacy_parameters(common.DifferentialPrivacyParameters(e, d), **kw)
    raise TypeError(f"cannot compose {type(m).__name__}")  # pragma: no cover - compose checks first


class _Profile:
    """The privacy profile of one order of a PLD, for many epsilons at once (docs: algorithms)."""

    def __init__(self, pmf):
        d = pmf.to_dense_pmf()
        p = np.ascontiguousarray(np.clip(np.asarray(d._probs, dtype=np.float64), 0.0, None))
        step = float(d._discretization)
        self.loss = (int(d._lower_loss) + np.arange(p.size)) * step
        self.tail = np.empty(p.size)
        self.mass = np.empty(p.size)
        hockey_tails(p, float(np.exp(-step)), float(-np.expm1(-step)), self.tail, self.mass)
        self.inf = float(d._infinity_mass)

    def __call__(self, eps):
        j = np.searchsorted(self.loss, eps, side="right")  # the first loss above eps
        inside = j < self.loss.size
        jj = np.where(inside, j, 0)
        x = np.where(inside, eps - self.loss[jj], 0.0)  # < 0
        with np.errstate(over="ignore", invalid="ignore"):
            between = -np.expm1(x) * self.mass[jj] + np.exp(x) * self.tail[jj]
        return self.inf + np.where(inside, between, 0.0)


def _envelope(eps, delta):
    """The trade-off curve implied by (eps, delta(eps))-DP at each eps, as its upper envelope.

    Returns (breaks, slopes, intercepts): line k holds between breaks k - 1 and k.
    """
    ok = np.isfinite(eps) & (eps < 700.0)
    e, d = eps[ok], np.minimum(delta[ok], 1.0)
    slope = np.concatenate((-np.exp(e), -np.exp(-e), [0.0]))
    inter = np.concatenate((1.0 - d, np.exp(-e) * (1.0 - d), [0.0]))
    order = np.lexsort((inter, slope))
    slope, inter = np.ascontiguousarray(slope[order]), np.ascontiguousarray(inter[order])
    keep = np.empty(slope.size, np.int64)
    h = upper_envelope(slope, inter, keep)
    slope, inter = slope[keep[:h]], inter[keep[:h]]
    breaks = (inter[:-1] - inter[1:]) / (slope[1:] - slope[:-1])
    return breaks, slope, inter


class _Accounted(Mechanism):
    """A mechanism whose measures come from a dp-accounting PLD (abstract):
    ``_make_pld`` builds it; ``_gaussian`` is the equivalent `Gaussian`
    where the mechanism is exactly one (no PLD then).
    """

    __slots__ = ()
    _rtol: ClassVar[float] = 1e-9  # the profile's tails: within 4 L units of roundoff, L <= 2e6 atoms
    _cache: dict[str, Any]

    def _make_pld(self):  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def _gaussian(self) -> Gaussian | None:
        return None

    @property
    def _pld(self):
        if "pld" not in self._cache:
            self._cache["pld"] = self._make_pld()
        return self._cache["pld"]

    @property
    def _orders(self) -> list[_Profile]:
        """The profile of each order of the pair (one where the PLD is symmetric)."""
        if "orders" not in self._cache:
            pld = self._pld
            pmfs = (pld._pmf_remove,) if pld._symmetric else (pld._pmf_remove, pld._pmf_add)
            self._cache["orders"] = [_Profile(o) for o in pmfs]
        return list(self._cache["orders"])

    def _delta(self, e):
        g = self._gaussian
        if g is not None:
            return g._delta(e)
        e = np.asarray(e, dtype=np.float64)
        flat = e.reshape(-1)
        out = np.zeros(flat.size)
        fin = np.isfinite(flat)
        for order in self._orders:  # the larger of the two orders, as dp-accounting
            out = np.maximum(out, np.where(fin, order(np.where(fin, flat, 0.0)), order.inf))
        # no privacy loss exceeds the pure epsilon: the profile is 0 there
        # (the PLD's truncated tail would leave ~1e-15)
        if np.isfinite(self.pure_epsilon):
            out[flat >= self.pure_epsilon] = 0.0
        return out.reshape(e.shape)

    @property
    def _floor(self) -> float:
        """delta(inf): the mass of outputs that only A gives (either order)."""
        if np.isfinite(self.pure_epsilon):
            return 0.0
        return max(o.inf for o in self._orders)

    def _excess(self, e):
        if self._gaussian is not None:
            return self._delta(e)
        return np.maximum(self._delta(e) - self._floor, 0.0)

    @property
    def _floor_epsilon(self) -> float:
        return self.pure_epsilon

    def _tradeoff(self, alpha):
        g = self._gaussian
        if g is not None:
            return g._tradeoff(alpha)
        if "curve" not in self._cache:
            atoms = np.unique(np.concatenate([o.loss for o in self._orders] + [[0.0]]))
            atoms = atoms[atoms >= 0.0]
            self._cache["curve"] = _envelope(atoms, self._delta(atoms))
        breaks, slope, inter = self._cache["curve"]
        k = np.searchsorted(breaks, alpha)
        return np.maximum(slope[k] * alpha + inter[k], 0.0)


class SubsampledGaussian(_Accounted):
    """DP-SGD: ``steps`` Gaussian releases, each of a Poisson subsample.

    Parameters
    ----------
    sigma : float
        The noise multiplier (of Opacus, TensorFlow Privacy), finite, > 0.
    sampling_rate : float, keyword-only
        The Poisson sampling rate q, in (0, 1].
    steps : int, keyword-only
        The number of steps T, a whole number >= 1.
    neighbours : {"add_remove", "replace_one"}, keyword-only
        The neighbouring relation (default add/remove).
    discretization : float, keyword-only
        The privacy-loss grid width of the PLD (default 1e-4).

    Raises
    ------
    ValueError
        If a parameter is out of its range.
    TypeError
        If a parameter has the wrong type.
    ImportError
        When a measure is asked for and dp-accounting is not installed.

    Examples
    --------
    >>> from diffident import SubsampledGaussian
    >>> m = SubsampledGaussian(1.0, sampling_rate=0.01, steps=1000)
    >>> round(float(m.epsilon(1e-5)), 3), round(m.advantage(), 4)
    (1.828, 0.161)
    """

    __slots__ = ("_sigma", "_sampling_rate", "_steps", "_neighbours", "_discretization", "_cache")
    _fields = ("sigma", "sampling_rate", "steps", "neighbours", "discretization")
    _sigma: float
    _sampling_rate: float
    _steps: int
    _neighbours: str
    _discretization: float

    def __init__(self, sigma: float, *, sampling_rate: float, steps: int, neighbours: str = "add_remove",
                 discretization: float = DISCRETIZATION) -> None:
        s = _positive("sigma", sigma)
        q = scalar("sampling_rate", sampling_rate)
        if not 0.0 < q <= 1.0:
            raise ValueError(f"sampling_rate must lie in (0, 1], got {q!r}")
        if neighbours not in _NEIGHBOURS:
            raise ValueError(f"neighbours must be one of {_NEIGHBOURS}, got {neighbours!r}")
        self._set(sigma=s, sampling_rate=q, steps=_count("steps", steps), neighbours=neighbours,
                  discretization=_interval(discretization), cache={})

    @property
    def sigma(self) -> float:
        """The noise multiplier.

        Examples
        --------
        >>> SubsampledGaussian(0.8, sampling_rate=0.01, steps=100).sigma
        0.8
        """
        return float(self._sigma)

    @property
    def sampling_rate(self) -> float:
        """The Poisson sampling rate q.

        Examples
        --------
        >>> SubsampledGaussian(0.8, sampling_rate=0.01, steps=100).sampling_rate
        0.01
        """
        return float(self._sampling_rate)

    @property
    def steps(self) -> int:
        """The number of steps T.

        Examples
        --------
        >>> SubsampledGaussian(0.8, sampling_rate=0.01, steps=100).steps
        100
        """
        return int(self._steps)

    @property
    def neighbours(self) -> str:
        """The neighbouring relation: "add_remove" or "replace_one".

        Examples
        --------
        >>> SubsampledGaussian(0.8, sampling_rate=0.01, steps=100).neighbours
        'add_remove'
        """
        return str(self._neighbours)

    @property
    def pure_epsilon(self) -> float:
        """``inf``: Gaussian noise bounds no privacy loss.

        Examples
        --------
        >>> SubsampledGaussian(1.0, sampling_rate=0.01, steps=10).pure_epsilon
        inf
        """
        return float("inf")

    def _make_pld(self):
        pld, _, relation = _accounting()
        nr = relation.ADD_OR_REMOVE_ONE if self._neighbours == "add_remove" else relation.REPLACE_ONE
        one = pld.from_gaussian_mechanism(self._sigma, sampling_prob=self._sampling_rate,
                                          value_discretization_interval=self._discretization,
                                          neighboring_relation=nr)
        return one.self_compose(self._steps) if self._steps > 1 else one


class Composition(_Accounted):
    """Several releases about the same person, as one mechanism (built by `compose`).

    Parameters
    ----------
    parts : tuple of (Mechanism, int)
        The mechanisms and how many times each is released.
    discretization : float, keyword-only
        The privacy-loss grid width of the PLD (default 1e-4).

    Raises
    ------
    ValueError
        If ``parts`` is empty, a count is not a whole number >= 1, or a
        discretization is out of (0, 1].
    TypeError
        If a part is not a `Mechanism`.

    Examples
    --------
    >>> from diffident import Gaussian, compose
    >>> m = compose(Gaussian(1.0), Gaussian(1.0))
    >>> m
    Composition(Gaussian(sigma=1.0, sensitivity=1.0) * 2)
    >>> round(m.advantage(), 4)          # exactly the Gaussian of mu = sqrt(2)
    0.5205
    """

    __slots__ = ("_parts", "_discretization", "_cache")
    _fields = ("parts", "discretization")
    _parts: tuple[tuple[Mechanism, int], ...]
    _discretization: float

    def __init__(self, parts: Any, *, discretization: float = DISCRETIZATION) -> None:
        counts: dict[Mechanism, int] = {}
        for item in parts:
            if not (isinstance(item, tuple) and len(item) == 2):
                raise TypeError(f"parts must be (mechanism, count) pairs, got {item!r}")
            m, k = item
            k = _count("count", k)
            if isinstance(m, Composition):
                for mm, kk in m._parts:
                    counts[mm] = counts.get(mm, 0) + k * kk
            elif isinstance(m, Mechanism):
                counts[m] = counts.get(m, 0) + k
            else:
                raise TypeError(f"compose takes mechanisms, got {type(m).__name__}")
        if not counts:
            raise ValueError("compose needs at least one mechanism")
        self._set(parts=tuple(counts.items()), discretization=_interval(discretization), cache={})

    def __repr__(self) -> str:
        inner = ", ".join(repr(m) if k == 1 else f"{m!r} * {k}" for m, k in self._parts)
        extra = "" if self._discretization == DISCRETIZATION else f", discretization={self._discretization!r}"
        return f"Composition({inner}{extra})"

    @property
    def parts(self) -> tuple[tuple[Mechanism, int], ...]:
        """The distinct mechanisms composed and how many times each.

        Examples
        --------
        >>> from diffident import Laplace
        >>> Laplace(1.0).compose(3).parts
        ((Laplace(scale=1.0, sensitivity=1.0), 3),)
        """
        return self._parts

    @property
    def pure_epsilon(self) -> float:
        """The sum of the parts' pure epsilons (the largest privacy loss adds up).

        Examples
        --------
        >>> from diffident import Laplace
        >>> Laplace(2.0).compose(4).pure_epsilon
        2.0
        """
        return float(sum(k * m.pure_epsilon for m, k in self._parts))

    @property
    def _gaussian(self) -> Gaussian | None:
        if all(type(m) is Gaussian for m, _ in self._parts):
            mu2 = sum(k * (m.mu * m.mu) for m, k in self._parts if isinstance(m, Gaussian))
            return Gaussian(1.0, sensitivity=float(np.sqrt(mu2)))
        return None

    def _make_pld(self):
        total = None
        for m, k in self._parts:
            p = _part_pld(m, self._discretization)
            if k > 1:
                p = p.self_compose(k)
            total = p if total is None else total.compose(p)
        return total


def compose(*mechanisms: Mechanism, discretization: float = DISCRETIZATION) -> Composition:
    """Release every mechanism about the same person: their composition.

    Parameters
    ----------
    *mechanisms : Mechanism
        The releases (at least one).
    discretization : float, keyword-only
        The privacy-loss grid width of the PLD (default 1e-4).

    Returns
    -------
    Composition
        The composed releases, never understating the risk.

    Raises
    ------
    ValueError
        If no mechanism is given or the discretization is out of (0, 1].
    TypeError
        If an argument is not a `Mechanism`.

    Examples
    --------
    >>> from diffident import Laplace, compose
    >>> m = compose(Laplace(1.0), Laplace(2.0))
    >>> m.pure_epsilon
    1.5
    """
    return Composition(tuple((m, 1) for m in mechanisms), discretization=discretization)


def _repeated(mechanism: Mechanism, k: int, discretization: float) -> Mechanism:
    """`Mechanism.compose`: the mechanism itself for k = 1, else its Composition."""
    k = _count("k", k)
    return mechanism if k == 1 else Composition(((mechanism, k),), discretization=discretization)


Mechanism._repeated = staticmethod(_repeated)  # (base.py imports nothing above itself)
