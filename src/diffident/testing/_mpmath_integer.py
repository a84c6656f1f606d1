"""The mpmath reference of the integer noises (Mathematics page, section 11)."""

from __future__ import annotations

from mpmath import mp, mpf

__all__ = ["integer_interval_mass", "integer_pmf", "integer_normaliser"]

DPS = 50
MAX_TERMS = 200_000


def _end(x):
    x = float(x)
    return mp.inf if x == float("inf") else (-mp.inf if x == float("-inf") else mpf(x))


def integer_normaliser(scale, noise):
    """The sum of the unnormalised pmf: (1 + q) / (1 - q), or N(s)."""
    with mp.workdps(DPS):
        s = mpf(float(scale))
        if noise == "discrete_laplace":
            q = mp.exp(-1 / s)
            return (1 + q) / (1 - q)
        return 1 + 2 * _gauss_sum(mpf(1), mp.inf, s)


def integer_pmf(z, scale, noise):
    """P(Z = z) at DPS digits."""
    with mp.workdps(DPS):
        s = mpf(float(scale))
        z = mpf(float(z))
        if noise == "discrete_laplace":
            q = mp.exp(-1 / s)
            return (1 - q) / (1 + q) * q ** abs(z)
        return mp.exp(-z * z / (2 * s * s)) / integer_normaliser(scale, noise)


def _gauss_sum(a, b, s):
    """sum_{z=a}^{b} exp(-z^2 / (2 s^2)) for 0 <= a <= b, by exact recurrences."""
    lim = mp.sqrt(a * a + 2 * s * s * (DPS + 10) * mp.log(10))
    top = min(b, mp.ceil(lim))
    if top - a + 1 > MAX_TERMS:
        raise ValueError(f"the sum over [{a}, {top}] needs more than {MAX_TERMS} terms")
    t = mp.exp(-a * a / (2 * s * s))
    r = mp.exp(-(2 * a + 1) / (2 * s * s))
    c = mp.exp(-1 / (s * s))
    total = mpf(0)
    for _ in range(int(top - a) + 1):
        total += t
        t *= r
        r *= c
    return total


def _laplace_sum(a, b, s):
    """sum_{z=a}^{b} q^z for 0 <= a <= b."""
    q = mp.exp(-1 / s)
    if b != mp.inf and b - a + 1 <= 2000:
        return mp.fsum(q ** z for z in range(int(a), int(b) + 1))
    tail_b = 0 if b == mp.inf else q ** (b + 1)
    return (q ** a - tail_b) / (1 - q)


def integer_interval_mass(a, b, scale, noise):
    """P(a <= Z <= b) for integers (or +-inf) ``a <= b`` at DPS digits."""
    with mp.workdps(DPS):
        s = mpf(float(scale))
        a, b = _end(a), _end(b)
        if a > b:
            return mpf(0)
        part = _gauss_sum if noise == "discrete_gaussian" else _laplace_sum
        if a >= 0:
            total = part(a, b, s)
        elif b <= 0:
            total = part(-b, -a, s)
        else:
            total = part(mpf(0), b, s) + part(mpf(1), -a, s)
        return total / integer_normaliser(scale, noise)
