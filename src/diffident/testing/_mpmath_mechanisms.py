"""The 50-digit mpmath reference of the mechanisms (Mathematics page, sec. 11)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from mpmath import mp, mpf

from ._mpmath_beyond import analytic_gaussian_delta
from ._mpmath_integer import integer_interval_mass

__all__ = [
    "pair",
    "finite_pair",
    "compose_pairs",
    "calibrated",
    "ratio_profile_epsilon",
    "round_up",
    "sigma_round_up",
]

DPS = 50


def _f(x):
    """A float as the exact mpf it is."""
    return mpf(float(x))


def _at_dps(method):
    """Run a measure at ``DPS`` digits (whatever the caller's precision)."""

    def run(*args, **kwargs):
        with mp.workdps(DPS):
            return +method(*args, **kwargs)

    run.__name__, run.__doc__ = method.__name__, method.__doc__
    return run


class _Pair:
    """The measures of a pair (A, B) from its ``delta`` and ``tradeoff``."""

    pure = mp.inf  # the largest privacy loss
    floor = mpf(0)  # delta(inf)

    @_at_dps
    def delta(self, e):  # pragma: no cover - every pair has its own
        raise NotImplementedError

    @_at_dps
    def tradeoff(self, alpha):
        raise NotImplementedError(f"{type(self).__name__} has no trade-off reference")

    @_at_dps
    def advantage(self):
        """The total variation, delta(0)."""
        return self.delta(mpf(0))

    @_at_dps
    def posterior(self, prior):
        """``sup_R P p_A / (P p_A + (1 - P) p_B)``: e^pure P / (1 - P + e^pure P)."""
        P = _f(prior)
        if P == 0:
            return mpf(0)
        if self.pure == mp.inf:
            return mpf(1)
        x = mp.exp(self.pure) * P
        return x / (1 - P + x)

    @_at_dps
    def identification(self, m):
        """Lee and Clifton's bound ``1 / (1 + (m - 1) e^-pure)``."""
        return mpf(1) if self.pure == mp.inf else 1 / (1 + (_f(m) - 1) * mp.exp(-self.pure))

    @_at_dps
    def success(self, m):
        """``1 - tradeoff(1/m)``."""
        return 1 - self.tradeoff(1 / _f(m))

    @_at_dps
    def tpr(self, fpr):
        """``1 - tradeoff(fpr)``."""
        return 1 - self.tradeoff(_f(fpr))

    @_at_dps
    def epsilon(self, d):
        """The smallest e >= 0 with delta(e) <= d, by bisection to 1e-25."""
        d = _f(d)
        if self.delta(mpf(0)) <= d:
            return mpf(0)
        if d < self.floor or (d == self.floor and self.pure == mp.inf and self.floor == 0):
            return mp.inf
        lo, hi = mpf(0), mpf(1)
        while self.delta(hi) > d:
            lo, hi = hi, 2 * hi
        while hi - lo > mpf(10) ** -25 * hi:
            mid = (lo + hi) / 2
            if self.delta(mid) <= d:
                hi = mid
            else:
                lo = mid
        return hi

    @_at_dps
    def measure(self, name, arg=None):
        """One measure by the name `diffident.calibrate` gives it."""
        if name == "advantage":
            return self.advantage()
        if name == "delta":
            return self.delta(_f(arg))
        if name == "epsilon":
            return self.epsilon(arg)
        return {"tpr_at_fpr": self.tpr, "posterior": self.posterior, "identification": self.identification,
                "success": self.success}[name](arg)


# --------------------------------------------------------------------------- finite pairs


class _Finite(_Pair):
    """A pair on finitely many outcomes, ``[(p_A, p_B), ...]``."""

    def __init__(self, outcomes, pure):
        self.outcomes = list(outcomes)
        self.pure = pure
        self.floor = max(sum((a for a, b in self.outcomes if b == 0), mpf(0)),
                         sum((b for a, b in self.outcomes if a == 0), mpf(0)))

    @_at_dps
    def delta(self, e):
        """The larger of the two orders of ``sum (p - e^e p')_+``."""
        if e == mp.inf:
            return self.floor
        x = mp.exp(e)
        return max(mp.fsum(max(a - x * b, 0) for a, b in self.outcomes),
                   mp.fsum(max(b - x * a, 0) for a, b in self.outcomes))

    @_at_dps
    def tradeoff(self, alpha):
        """Neyman and Pearson: reject A on the outcomes of largest p_B / p_A first."""
        alpha = _f(alpha)
        ranked = sorted(((b / a if a > 0 else mp.inf), a, b) for a, b in self.outcomes if a > 0 or b > 0)
        ranked.reverse()
        spent = mpf(0)
        for i, (_, a, b) in enumerate(ranked):
            if spent + a >= alpha:  # randomise on this outcome: reject with gamma
                gamma = (alpha - spent) / a if a > 0 else mpf(1)
                return (1 - gamma) * b + mp.fsum(bb for _, _, bb in ranked[i + 1:])
            spent += a
        return mpf(0)

    @_at_dps
    def posterior(self, prior):
        """The largest posterior of A over the outcomes A can give."""
        P = _f(prior)
        if P == 0:
            return mpf(0)
        return max(P * a / (P * a + (1 - P) * b) for a, b in self.outcomes if a > 0)


def finite_pair(family, **params):
    """A finite pair: ``randomized_response``, ``pure_dp`` or ``approx_dp``."""
    with mp.workdps(DPS):
        if family == "randomized_response":
            p, d = _f(params["p"]), int(params.get("d", 2))
            q = (1 - p) / (d - 1)
            out = [(p, q), (q, p)] + ([((d - 2) * q, (d - 2) * q)] if d > 2 else [])
            return _Finite(out, mp.inf if q == 0 else mp.log(p / q))
        e = _f(params["epsilon"])
        D = _f(params.get("delta", 0.0))
        hi, lo = (1 - D) * mp.exp(e) / (1 + mp.exp(e)), (1 - D) / (1 + mp.exp(e))
        out = [(hi, lo), (lo, hi)] + ([(D, mpf(0)), (mpf(0), D)] if D > 0 else [])
        return _Finite(out, e if D == 0 else mp.inf)


def compose_pairs(pairs):
    """The product of finite pairs: every release about the same person."""
    with mp.workdps(DPS):
        out = [(mpf(1), mpf(1))]
        for part in pairs:
            out = [(a * c, b * d) for a, b in out for c, d in part.outcomes]
        return _Finite(out, mp.fsum(part.pure for part in pairs))


# --------------------------------------------------------------------------- integer noises


class _Lattice(_Pair):
    """Integer noise Z (lattice units); A = Z, B = Z + Delta, monotone loss."""

    def __init__(self, noise, scale, sensitivity):
        self.noise, self.s, self.D = noise, _f(scale), int(sensitivity)
        self.pure = self.D / self.s if noise == "discrete_laplace" else mp.inf

    def _loss(self, z):
        z, D, s = mpf(z), self.D, self.s
        if self.noise == "discrete_laplace":
            return (abs(z - D) - abs(z)) / s
        return ((z - D) ** 2 - z * z) / (2 * s * s)

    def _mass(self, a, b):
        return integer_interval_mass(a, b, float(self.s), self.noise)

    def _pmf(self, z):
        return self._mass(z, z)

    @staticmethod
    def _last(pred, start):
        """The largest integer z with pred(z), pred true up to it, false beyond."""
        lo, hi, step = start, start + 1, 1
        while not pred(lo):
            lo, step = lo - step, 2 * step
        step = 1
        while pred(hi):
            hi, step = hi + step, 2 * step
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if pred(mid) else (lo, mid)
        return lo

    @_at_dps
    def delta(self, e):
        with mp.workdps(DPS):
            if e >= self.pure:
                return mpf(0)
            z = self._last(lambda t: self._loss(t) > e, 0)
            return self._mass(-np.inf, z) - mp.exp(e) * self._mass(-np.inf, z - self.D)

    @_at_dps
    def tradeoff(self, alpha):
        with mp.workdps(DPS):
            alpha = _f(alpha)
            if alpha == 0:
                return mpf(1)
            if alpha == 1:
                return mpf(0)
            t = self._last(lambda u: self._mass(u, np.inf) >= alpha, 0)
            gamma = (alpha - self._mass(t + 1, np.inf)) / self._pmf(t)
            return self._mass(-np.inf, t - 1 - self.D) + (1 - gamma) * self._pmf(t - self.D)

    @_at_dps
    def posterior(self, prior):
        """The largest ratio p_A / p_B near the pair (discrete Gaussian: 1)."""
        with mp.workdps(DPS):
            P = _f(prior)
            if P == 0 or self.noise == "discrete_gaussian":
                return mpf(1) if P > 0 else mpf(0)
            x = max(mp.exp(self._loss(z)) for z in range(-self.D - 2, 2 * self.D + 3)) * P
            return x / (1 - P + x)


# --------------------------------------------------------------------------- continuous noises


class _Laplace(_Pair):
    """A = Laplace(0, b), B = Laplace(Delta, b): the loss (|R - Delta| - |R|) / b."""

    def __init__(self, scale, sensitivity):
        self.b, self.D = _f(scale), _f(sensitivity)
        self.pure = self.D / self.b

    def _cdf(self, x):
        return mp.exp(x / self.b) / 2 if x < 0 else 1 - mp.exp(-x / self.b) / 2

    @_at_dps
    def delta(self, e):
        with mp.workdps(DPS + 20):
            if e >= self.pure:
                return mpf(0)
            r = (self.D - self.b * e) / 2  # the loss exceeds e below r
            out = self._cdf(r) - mp.exp(e) * self._cdf(r - self.D)
        return +out

    @_at_dps
    def tradeoff(self, alpha):
        with mp.workdps(DPS + 20):
            alpha = _f(alpha)
            if alpha == 0:
                return mpf(1)
            # reject A above the (1 - alpha) quantile t of A; beta = P_B(R < t)
            t = -self.b * mp.log(2 * alpha) if alpha <= 0.5 else self.b * mp.log(2 * (1 - alpha))
            out = self._cdf(t - self.D)
        return +out


class _Gaussian(_Pair):
    """A = N(0, sigma^2), B = N(Delta, sigma^2)."""

    def __init__(self, sigma, sensitivity):
        self.sigma, self.D = _f(sigma), _f(sensitivity)

    @_at_dps
    def delta(self, e):
        with mp.workdps(DPS):
            return +analytic_gaussian_delta(self.sigma, epsilon=e, sensitivity=self.D)

    @_at_dps
    def tradeoff(self, alpha):
        with mp.workdps(DPS + 20):
            alpha = _f(alpha)
            if alpha == 0 or alpha == 1:
                return 1 - alpha
            z = -mp.sqrt(2) * mp.erfinv(2 * alpha - 1)  # Phi^-1(1 - alpha)
            out = mp.ncdf(z - self.D / self.sigma)
        return +out


class _SubsampledGaussian(_Pair):
    """One DP-SGD step: (1 - q) N(0, s^2) + q N(1, s^2) against N(0, s^2)."""

    def __init__(self, sigma, sampling_rate):
        self.s, self.q = _f(sigma), _f(sampling_rate)

    @_at_dps
    def delta(self, e):
        with mp.workdps(DPS + 20):
            s, q, x = self.s, self.q, mp.exp(e)
            # M over N = (1 - q) + q exp((2y - 1) / (2 s^2)) > x above t
            t = mpf(1) / 2 + s * s * mp.log((x - (1 - q)) / q)
            up = (1 - q) * mp.ncdf(-t / s) + q * mp.ncdf((1 - t) / s) - x * mp.ncdf(-t / s)
            down = mpf(0)
            if 1 / x > 1 - q:  # N over M > x below t'
                t2 = mpf(1) / 2 + s * s * mp.log((1 / x - (1 - q)) / q)
                down = mp.ncdf(t2 / s) - x * ((1 - q) * mp.ncdf(t2 / s) + q * mp.ncdf((t2 - 1) / s))
            out = max(up, down)
        return +out


def pair(family, param, **fixed):
    """The pair of one mechanism, by family and its first parameter.

    Its methods (``delta``, ``tradeoff``, ``advantage``, ``measure``...) give mpf.
    """
    sens = fixed.get("sensitivity", 1.0)
    if family == "laplace":
        return _Laplace(param, sens)
    if family == "gaussian":
        return _Gaussian(param, sens)
    if family in ("discrete_laplace", "discrete_gaussian"):
        return _Lattice(family, param, sens)
    if family == "randomized_response":
        return finite_pair(family, p=param, d=fixed.get("d", 2))
    if family in ("pure_dp", "approx_dp"):
        return finite_pair(family, epsilon=param, delta=fixed.get("delta", 0.0))
    if family == "subsampled_gaussian":
        return _SubsampledGaussian(param, fixed["sampling_rate"])
    raise ValueError(f"unknown family {family!r}")


def calibrated(family, target, *, measure, start, arg=None, **fixed):
    """The least noise at which a measure meets a target, by bisection (or NaN)."""
    rr = family == "randomized_response"
    t = _f(target)

    def passes(y):  # y: the noise (1 - p for randomized response)
        x = 1 - y if rr else y
        return pair(family, x, **fixed).measure(measure, arg) <= t

    with mp.workdps(DPS):
        y0 = 1 - _f(start) if rr else _f(start)
        lo, hi = y0 * (1 - mpf(10) ** -6), y0 * (1 + mpf(10) ** -6)
        for _ in range(20):
            if passes(hi):
                break
            hi *= 2
        for _ in range(20):
            if not passes(lo):
                break
            lo /= 2
        if passes(lo) or not passes(hi):
            return mp.nan
        while hi - lo > mpf(10) ** -20 * hi:
            mid = mp.sqrt(lo * hi)
            lo, hi = (lo, mid) if passes(mid) else (mid, hi)
        return 1 - hi if rr else hi


# --------------------------------------------------------------------------- Kazan and Reiter's profiles


def _ratio_epsilon(p, q, bound):
    """The largest epsilon whose worst posterior-to-prior ratio is <= ``bound``."""
    g = 1 / bound - p * q  # p (1 - q) x^2 + (1 - p) x - g = 0
    if g <= 0:
        return mp.inf
    a = p * (1 - q)
    x = g / (1 - p) if a == 0 else (-(1 - p) + mp.sqrt((1 - p) ** 2 + 4 * a * g)) / (2 * a)
    return mp.inf if x <= 0 else (mpf(0) if x >= 1 else -mp.log(x))


def ratio_profile_epsilon(a, r, q=1.0, points=400):
    """The largest epsilon within ``r*(p) = max(a / p, r)``, by brute force."""
    with mp.workdps(DPS):
        A, R, Q = _f(a), _f(r), _f(q)
        priors = [mpf(float(x)) for x in np.geomspace(1e-6, 1.0, points)] + [min(A / R, mpf(1)), mpf(1)]
        return min(_ratio_epsilon(p, Q, max(A / p, R)) for p in priors)


# --------------------------------------------------------------------------- exact rounding


def _exact(x):
    """An mpf or a number as the exact Fraction it is."""
    if isinstance(x, Fraction):
        return x
    if type(x).__module__.startswith("mpmath"):
        man, exp = x.man_exp
        return Fraction(int(man)) * Fraction(2) ** int(exp)
    return Fraction(x)


def round_up(x):
    """The smallest float >= x for an exact rational or mpf (inf past the largest)."""
    v = _exact(x)
    try:
        f = float(v)  # correctly rounded
    except OverflowError:
        return math.inf
    if Fraction(f) < v:
        f = math.nextafter(f, math.inf)
    return f


def sigma_round_up(sensitivity, zcdp_rho):
    """The smallest float s with ``2 rho s^2 >= Delta^2``, exactly."""
    D, r = Fraction(float(sensitivity)), Fraction(float(zcdp_rho))
    with mp.workdps(DPS):
        s = float(_f(sensitivity) / mp.sqrt(2 * _f(zcdp_rho)))
    while 2 * r * Fraction(s) ** 2 < D * D:
        s = math.nextafter(s, math.inf)
    while s > 0 and 2 * r * Fraction(math.nextafter(s, 0.0)) ** 2 >= D * D:
        s = math.nextafter(s, 0.0)
    return s
