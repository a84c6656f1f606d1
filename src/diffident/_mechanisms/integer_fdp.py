"""Exact privacy measures of the integer noises for two neighbouring inputs.

The mechanism releases ``Y = x + Z`` with ``Z`` a discrete Laplace or a
discrete Gaussian noise on the integers; the two neighbouring inputs are
``0`` and ``Delta`` (an integer sensitivity >= 1), so ``Y`` has the law
``A`` of ``Z`` or the law ``B`` of ``Z + Delta``.  For each noise three
measures: the privacy profile ``delta(epsilon)``, the f-DP trade-off curve
``beta(alpha)`` and the advantage (total variation) ``delta(0)``.  The
scale of the noise is in lattice units (integer steps).

Every tail mass comes from the lattice kernels of
:mod:`diffident._kernels.lattice` (through :func:`diffident._mechanisms.lattice.interval_mass`),
which are relatively exact at any depth of the tail, so no new tail sums
are written here; the discrete Laplace profile is a closed form of
geometric sums written as a product of non-negative factors.

Both noises are symmetric, so ``(A, B)`` and ``(B, A)`` give the same
profile and the same trade-off curve; the functions are private, for the
mechanism classes ``DiscreteLaplace`` and ``DiscreteGaussian``, which
validate the parameters (only sanity is asserted here).
"""

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
    """The privacy profile of the discrete Laplace noise of scale ``scale``.

    Parameters
    ----------
    epsilon : array_like
        Values >= 0 (``inf`` allowed); NaN gives NaN.
    scale : float
        The scale ``t > 0``: ``P(Z = k)`` is proportional to ``exp(-|k| / t)``.
    sensitivity : int, optional
        The integer distance ``Delta >= 1`` of the two inputs.

    Returns
    -------
    float or numpy.ndarray
        ``delta(epsilon) = sum_k max(0, p_A(k) - e^epsilon p_B(k))``, of the shape of ``epsilon``.

    Notes
    -----
    Mathematics.  With ``q = exp(-1/t)`` the likelihood ratio ``p_A(k) / p_B(k)``
    is ``e^(Delta/t)`` for ``k <= 0``, ``exp((Delta - 2k) / t)`` between 0 and
    ``Delta`` and ``e^(-Delta/t)`` from ``Delta`` on, so delta is 0 from
    ``epsilon_0 = Delta / t`` on and below it the sum runs over ``k <= m``,
    ``m = ceil((Delta - epsilon t) / 2) - 1 >= 0``.  The part ``k <= 0``
    is ``P(Z <= 0) (1 - e^(epsilon - epsilon_0))`` with ``P(Z <= 0) = 1 / (1 + q)``;
    the part ``1 <= k <= m`` sums two geometric series to
    ``q (1 - q^m) (1 - exp(epsilon - (Delta - m - 1) / t)) / (1 + q)``, whose
    factors are all non-negative.  Each factor is an ``exp`` or an ``expm1``,
    so the result is relatively exact (a few ulps) for every scale and
    epsilon, with nothing to cancel and nothing to overflow.
    """
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
    """The f-DP trade-off curve of the discrete Laplace noise of scale ``scale``.

    Parameters
    ----------
    alpha : array_like
        Type I errors in [0, 1]; NaN gives NaN.
    scale : float
        The scale ``t > 0`` (see `dlap_delta`).
    sensitivity : int, optional
        The integer distance ``Delta >= 1`` of the two inputs.

    Returns
    -------
    float or numpy.ndarray
        ``beta(alpha)``, the smallest type II error of a (randomised) test
        of ``A`` against ``B`` with type I error at most ``alpha``.

    Notes
    -----
    Mathematics: see `_lattice_tradeoff`.  The likelihood ratio is monotone
    (constant below 0 and above ``Delta``), so the curve is the
    piecewise-linear curve through the threshold points; its first piece,
    from (0, 1), is one segment up to the threshold ``Delta``.  A closed-form
    inverse of the geometric tail would also do, but the threshold search
    is shared with the discrete Gaussian and reads every mass from the
    lattice kernels, so both curves have one, tested, code path.
    """
    t, d = _check_noise(scale, sensitivity)
    return _lattice_tradeoff(alpha, t, d, _DLAP)


def dlap_advantage(scale, sensitivity=1):
    """The advantage (total variation distance) of the discrete Laplace noise.

    Parameters
    ----------
    scale : float
        The scale ``t > 0`` (see `dlap_delta`).
    sensitivity : int, optional
        The integer distance ``Delta >= 1`` of the two inputs.

    Returns
    -------
    float
        ``delta(0) = max over alpha of 1 - alpha - beta(alpha)``.

    Notes
    -----
    Mathematics: `dlap_delta` at epsilon 0; for ``Delta = 1`` it is
    ``tanh(1 / (2t))``.
    """
    return float(dlap_delta(0.0, scale, sensitivity))


# --------------------------------------------------------------- discrete Gaussian


def dgauss_delta(epsilon, sigma, sensitivity=1):
    """The privacy profile of the discrete Gaussian noise of parameter ``sigma``.

    Parameters
    ----------
    epsilon : array_like
        Values >= 0 (``inf`` allowed); NaN gives NaN.
    sigma : float
        ``sigma > 0``: ``P(Z = k)`` is proportional to ``exp(-k^2 / (2 sigma^2))``.
    sensitivity : int, optional
        The integer distance ``Delta >= 1`` of the two inputs.

    Returns
    -------
    float or numpy.ndarray
        ``delta(epsilon) = sum_k max(0, p_A(k) - e^epsilon p_B(k))``, of the shape of ``epsilon``.

    Notes
    -----
    Mathematics.  Canonne, Kamath and Steinke (2020), Theorem 7:
    ``delta = P(Z > epsilon sigma^2 / Delta - Delta / 2) - e^epsilon P(Z > epsilon sigma^2 / Delta + Delta / 2)``.
    The likelihood ratio ``p_A(k) / p_B(k) = exp((Delta^2 - 2 k Delta) / (2 sigma^2))``
    exceeds ``e^epsilon`` exactly for ``k <= m``, ``m`` the largest integer
    below ``Delta / 2 - epsilon sigma^2 / Delta``, so by symmetry
    ``delta = P(Z <= m) - e^epsilon P(Z <= m - Delta)``.  It is evaluated as
    ``P(m - Delta < Z <= m) - (e^epsilon - 1) P(Z <= m - Delta)``: the two
    terms are of the same order where the theorem's two tails nearly cancel
    (for a wide noise the theorem's form loses about ``sigma / Delta`` of its
    digits, this form a small factor).  The masses are the lattice kernels'
    (relatively exact at any depth); the product is formed in logarithms
    where ``e^epsilon - 1`` would overflow, and is 0 where the mass is 0.

    Limit: a mass ``P(Z <= m - Delta)`` below the smallest normal double
    (2^-1022) keeps only its absolute accuracy (about 2^-1074, and it is 0
    below that), so the result then has a further absolute error of about
    ``e^epsilon 2^-1074`` (at most 5e-20 for epsilon <= 700), and in
    practice upward (an underflowed mass is too small, so too little is
    subtracted: conservative).  Relative to delta this matters only where
    delta itself is below about ``e^epsilon 2^-1034``: epsilon in the
    hundreds with ``Delta / sigma`` of 20 or more, or a subnormal delta.
    A log-scale tail in the lattice kernels would remove it.
    """
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
    """The f-DP trade-off curve of the discrete Gaussian noise of parameter ``sigma``.

    Parameters
    ----------
    alpha : array_like
        Type I errors in [0, 1]; NaN gives NaN.
    sigma : float
        ``sigma > 0`` (see `dgauss_delta`).
    sensitivity : int, optional
        The integer distance ``Delta >= 1`` of the two inputs.

    Returns
    -------
    float or numpy.ndarray
        ``beta(alpha)``, the smallest type II error of a (randomised) test
        of ``A`` against ``B`` with type I error at most ``alpha``.

    Notes
    -----
    Mathematics: see `_lattice_tradeoff`; the likelihood ratio is strictly
    monotone in ``k``, so the curve is the piecewise-linear curve through
    the threshold points.
    """
    s, d = _check_noise(sigma, sensitivity)
    return _lattice_tradeoff(alpha, s, d, _DGAUSS)


def dgauss_advantage(sigma, sensitivity=1):
    """The advantage (total variation distance) of the discrete Gaussian noise.

    Parameters
    ----------
    sigma : float
        ``sigma > 0`` (see `dgauss_delta`).
    sensitivity : int, optional
        The integer distance ``Delta >= 1`` of the two inputs.

    Returns
    -------
    float
        ``delta(0) = max over alpha of 1 - alpha - beta(alpha)``.

    Notes
    -----
    Mathematics: `dgauss_delta` at epsilon 0, the mass of the ``Delta``
    integers ``m - Delta < k <= m`` with ``m = ceil(Delta / 2) - 1``.
    """
    return float(dgauss_delta(0.0, sigma, sensitivity))


# ------------------------------------------------------------------ trade-off curve


def _search_bound(s, noise):
    """An integer ``c >= 1`` with ``P(Z >= c) < _TAIL_STOP`` (doubling from 1)."""
    c = 1.0
    while float(_tail(c, s, noise)) >= _TAIL_STOP:
        c *= 2.0
    return c


def _lattice_tradeoff(alpha, s, d, noise):
    """The trade-off curve ``beta(alpha)`` of A = law of Z against B = law of Z + d.

    Mathematics.  The likelihood ratio ``p_B(k) / p_A(k)`` is non-decreasing
    in ``k`` for both noises, so by Neyman and Pearson the best tests reject
    ``A`` for ``Y > c``, for ``Y = c`` with probability ``g`` and never
    below: threshold ``c`` (``g = 1``) has the vertex
    ``(alpha_c, beta_c) = (P(Z >= c), P(Z <= c - d - 1))`` and randomising
    at ``c`` walks the segment to the vertex of ``c + 1``, so the curve is
    the piecewise-linear curve through the vertices (collinear vertices,
    where the ratio is constant, change nothing).  For ``alpha`` in
    ``[alpha_(c+1), alpha_c]``, ``g = (alpha_c - alpha) / P(Z = c)`` and
    ``beta = beta_c + g P(Z = c - d)``, a sum of non-negative terms.

    The threshold ``c``, the largest with ``alpha_c >= alpha``, is found by
    bisection on the integers, vectorised over alpha (about 2 + log2 of
    40 times the scale steps, each one vectorised call of the lattice
    kernels); a table of thresholds would need tens of millions of entries
    at ``sigma = 1e6``, so bisection is used instead.  The search runs
    between ``-b + 1`` and ``b``, with ``P(Z >= b) < 2^-1001``: that
    interval holds the threshold of every ``alpha`` in ``[2^-1000, 1)``.
    For ``alpha <= 1/2`` the search compares ``P(Z >= c)`` with ``alpha``;
    above, ``P(Z <= c - 1)`` with ``1 - alpha`` (exact there), so that
    both ``alpha_c - alpha`` and its complement are formed from relatively
    exact tails: the result is exact to a few ulps times the segment's
    conditioning.  A ``P(Z = c)`` that rounds to 0 gives ``g = 1``, the
    upper end of the segment (never below the curve).

    Below ``2^-1000`` (``alpha = 0`` included) the tails could be subnormal,
    so the curve is replaced by the chord from (0, 1) to the exact point at
    ``2^-1000``: by convexity never below the true curve, and equal to it
    wherever the curve's first segment reaches ``2^-1000`` (the discrete
    Laplace, unless ``d / t`` exceeds about 690); ``beta(0) = 1`` exactly
    (``A`` has mass everywhere) and ``beta(1) = 0``.
    """
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
