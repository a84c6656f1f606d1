"""Exact two-world measures of the integer noises (docs: algorithms, mechanisms)."""

import math

import numpy as np

from .lattice import interval_mass

#: Below this alpha the trade-off curve is the chord from (0, 1) to the exact
#: point at ``_ALPHA_FLOOR`` (an upper bound by convexity), because tails
#: smaller than this could be subnormal and lose their relative accuracy.
_ALPHA_FLOOR = 2.0**-1000
#: The threshold search covers every threshold whose tail is at least this.
_TAIL_STOP = 2.0**-1001

_DLAP = "discrete_laplace"
_DGAUSS = "discrete_gaussian"


def _check_noise(scale, sensitivity):
    """The scale and the integer sensitivity as floats (checked by the
    mechanisms' constructors: a finite scale > 0, an integer >= 1).
    """
    return float(scale), float(sensitivity)


def _ret(out):
    """A float for a 0-d result, else the array."""
    return out[()] if out.ndim == 0 else out


def _tail(a, s, noise):
    """P(Z >= a)."""
    return interval_mass(a, np.inf, scale=s, noise=noise)


def _head(b, s, noise):
    """P(Z <= b)."""
    return interval_mass(-np.inf, b, scale=s, noise=noise)


def _point(k, s, noise):
    """P(Z = k)."""
    return interval_mass(k, k, scale=s, noise=noise)


# ----------------------------------------------------------------- discrete Laplace


def dlap_delta(epsilon, scale, sensitivity=1):
    """The profile ``sum_k max(0, p_A(k) - e^epsilon p_B(k))`` of discrete Laplace noise (scale t)."""
    t, d = _check_noise(scale, sensitivity)
    eps = np.asarray(epsilon, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        eps0 = d / t
        m = np.maximum(np.ceil((d - eps * t) / 2.0) - 1.0, 0.0)
        q = math.exp(-1.0 / t)
        low = -np.expm1(np.minimum(eps - eps0, 0.0))
        inner = q * -np.expm1(-m / t) * np.maximum(-np.expm1(eps - (d - m - 1.0) / t), 0.0)
        inner = np.where(m >= 1.0, inner, 0.0)
        out = np.where(eps < eps0, (low + inner) / (1.0 + q), 0.0)
    out = np.where(np.isnan(eps), np.nan, out)
    return _ret(np.asarray(out, dtype=np.float64))


def dlap_tradeoff(alpha, scale, sensitivity=1):
    """The f-DP trade-off curve ``beta(alpha)`` of discrete Laplace noise of scale t."""
    t, d = _check_noise(scale, sensitivity)
    return _lattice_tradeoff(alpha, t, d, _DLAP)


def dlap_advantage(scale, sensitivity=1):
    """The advantage (total variation) ``delta(0)`` of discrete Laplace noise."""
    return float(dlap_delta(0.0, scale, sensitivity))


# --------------------------------------------------------------- discrete Gaussian


def dgauss_delta(epsilon, sigma, sensitivity=1):
    """The profile ``sum_k max(0, p_A(k) - e^epsilon p_B(k))`` of discrete Gaussian noise."""
    s, d = _check_noise(sigma, sensitivity)
    eps = np.asarray(epsilon, dtype=np.float64)
    shape = eps.shape
    e = eps.reshape(-1)
    live = np.isfinite(e)
    el = np.where(live, e, 0.0)
    with np.errstate(over="ignore"):  # (epsilon sigma first: sigma^2 alone overflows beyond 1e154)
        m = np.ceil(d / 2.0 - el * s / d * s) - 1.0
    near = interval_mass(m - d + 1.0, m, scale=s, noise=_DGAUSS)
    far = _head(m - d, s, _DGAUSS)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        em1 = np.expm1(el)
        direct = em1 * far
        logged = np.exp(el + np.log1p(-np.exp(-el)) + np.log(far))
    prod = np.where(np.isfinite(em1), direct, logged)
    out = np.maximum(near - prod, 0.0)
    out = np.where(live, out, np.where(np.isnan(e), np.nan, 0.0))
    return _ret(out.reshape(shape))


def dgauss_tradeoff(alpha, sigma, sensitivity=1):
    """The f-DP trade-off curve ``beta(alpha)`` of discrete Gaussian noise."""
    s, d = _check_noise(sigma, sensitivity)
    return _lattice_tradeoff(alpha, s, d, _DGAUSS)


def dgauss_advantage(sigma, sensitivity=1):
    """The advantage (total variation) ``delta(0)`` of discrete Gaussian noise."""
    return float(dgauss_delta(0.0, sigma, sensitivity))


# ------------------------------------------------------------------ trade-off curve


def _search_bound(s, noise):
    """An integer ``c >= 1`` with ``P(Z >= c) < _TAIL_STOP`` (doubling from 1)."""
    c = 1.0
    while float(_tail(c, s, noise)) >= _TAIL_STOP:
        c *= 2.0
    return c


def _lattice_tradeoff(alpha, s, d, noise):
    """The trade-off curve of A = law of Z against B = law of Z + d: Neyman and Pearson on the lattice."""
    a = np.asarray(alpha, dtype=np.float64)
    shape = a.shape
    flat = a.reshape(-1)
    b = _search_bound(s, noise)
    # the exact part: alpha in [floor, 1); the point at the floor for the chord
    x = np.concatenate([flat, [_ALPHA_FLOOR]])
    mid_range = (x >= _ALPHA_FLOOR) & (x < 1.0)
    xs = np.where(mid_range, x, 0.5)
    upper = xs <= 0.5
    comp = 1.0 - xs  # exact for xs > 1/2
    lo = np.full(xs.shape, -b + 1.0)
    hi = np.full(xs.shape, b)
    while True:
        c = np.floor((lo + hi) / 2.0)
        # (beyond 2^53 lattice steps the floats run out of integers: the
        # bracket ends at adjacent floats there)
        act = (hi - lo > 1.0) & (c > lo) & (c < hi)
        if not act.any():
            break
        ok = np.where(upper, _tail(c, s, noise) >= xs, _head(c - 1.0, s, noise) <= comp)
        lo = np.where(act & ok, c, lo)
        hi = np.where(act & ~ok, c, hi)
    c = lo
    gap = np.where(upper, _tail(c, s, noise) - xs, comp - _head(c - 1.0, s, noise))
    pc = _point(c, s, noise)
    with np.errstate(divide="ignore", invalid="ignore"):
        g = np.where(pc > 0.0, np.clip(gap / pc, 0.0, 1.0), 1.0)
    beta = np.minimum(_head(c - d - 1.0, s, noise) + g * _point(c - d, s, noise), 1.0)
    beta_floor = beta[-1]
    beta = beta[:-1]
    chord = 1.0 - (flat / _ALPHA_FLOOR) * (1.0 - beta_floor)
    out = np.where(flat < _ALPHA_FLOOR, chord, np.where(flat >= 1.0, 0.0, beta))
    out = np.where(np.isnan(flat), np.nan, out)
    return _ret(out.reshape(shape))
