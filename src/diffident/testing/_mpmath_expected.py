"""The mpmath reference of the expected identification success (sec. 10).

Import it through `diffident.testing.mpmath_reference`.
"""

from __future__ import annotations

import itertools

from mpmath import mp, mpf

from ._mpmath_core import DPS, as_arrays

__all__ = ["expected_success"]


def _density(R, v, b, gauss):
    if gauss:
        return mp.exp(-((R - v) ** 2) / (2 * b * b)) / (b * mp.sqrt(2 * mp.pi))
    return mp.exp(-abs(R - v) / b) / (2 * b)


def _crossings(v1, l1, v2, l2, b, gauss):
    """Every R where ln pi_1 - e(|R - v1|) = ln pi_2 - e(|R - v2|) (v1 < v2)."""
    if gauss:
        # (R - v1)^2 - (R - v2)^2 = 2 b^2 (l1 - l2): linear in R
        return [(v1 + v2) / 2 + b * b * (l1 - l2) / (v2 - v1)]
    # Laplace: between the apexes the difference is linear; outside it is constant
    x = (v1 + v2) / 2 + b * (l1 - l2) / 2
    return [x] if v1 <= x <= v2 else []


def expected_success(values, *, scale, noise="laplace", counts=None, prior=None, world=None, granularity=1.0):
    """P(the MAP adversary names the true world), or world j, at ``DPS`` digits."""
    if noise.startswith("discrete"):
        return _lattice_success(values, scale, noise, counts, prior, world, granularity)
    f, c, p = as_arrays(values, counts, prior)
    gauss = noise == "gaussian"
    with mp.workdps(DPS):
        b = mpf(float(scale))
        best: dict[float, mpf] = {}  # value -> largest prior of a live world there
        for fv, cv, pv in zip(f.tolist(), c.tolist(), p.tolist(), strict=True):
            if cv > 0 and pv > 0:
                best[fv] = max(best.get(fv, mpf(0)), mpf(pv))
        total = sum(mpf(cv) * mpf(pv) for cv, pv in zip(c.tolist(), p.tolist(), strict=True) if cv > 0 and pv > 0)
        vals = sorted(best)
        curves = [(mpf(v), best[v], mp.log(best[v])) for v in vals]
        points = {mpf(v) for v in vals}
        for (v1, _, l1), (v2, _, l2) in itertools.combinations(curves, 2):
            points.update(_crossings(v1, l1, v2, l2, b, gauss))
        ends = [-mp.inf, *sorted(points), mp.inf]

        def winner(lo, hi):
            """The curve that is the maximum on (lo, hi), probed inside it."""
            if lo == -mp.inf:
                x = mpf(0) if hi == mp.inf else hi - (1 + abs(hi))
            else:
                x = lo + (1 + abs(lo)) if hi == mp.inf else (lo + hi) / 2
            return max(range(len(curves)), key=lambda i: curves[i][1] * _density(x, curves[i][0], b, gauss))

        def piece(v, lo, hi):
            """The integral of p(R | v) over [lo, hi], by quadrature in units of the scale."""
            return mp.quad(lambda x: _density(x, 0, 1, gauss), [(lo - v) / b, (hi - v) / b])

        if world is None:
            acc = mpf(0)
            for lo, hi in itertools.pairwise(ends):
                if lo == hi:
                    continue
                i = winner(lo, hi)
                v, a, _ = curves[i]
                acc += a * piece(v, lo, hi)
            return acc / total
        fj, cj, pj = float(f[world]), c[world], p[world]
        if cj == 0 or pj == 0 or mpf(pj) < best[fj]:
            return mpf(0)
        ties = sum(mpf(cv) for fv, cv, pv in zip(f.tolist(), c.tolist(), p.tolist(), strict=True)
                   if fv == fj and cv > 0 and mpf(pv) == best[fj])
        target = vals.index(fj)
        acc = mpf(0)
        for lo, hi in itertools.pairwise(ends):
            if lo != hi and winner(lo, hi) == target:
                acc += piece(mpf(fj), lo, hi)
        return acc / ties


def _lattice_success(values, scale, noise, counts, prior, world, granularity):
    """Integer noise's success: a direct sum over the lattice points (small only)."""
    f, c, p = as_arrays(values, counts, prior)
    gauss = noise == "discrete_gaussian"
    g = float(granularity)
    with mp.workdps(DPS):
        s = mpf(float(scale)) / mpf(g)
        k = [int(round(float(x) / g)) for x in f]
        best: dict[int, mpf] = {}
        for kv, cv, pv in zip(k, c.tolist(), p.tolist(), strict=True):
            if cv > 0 and pv > 0:
                best[kv] = max(best.get(kv, mpf(0)), mpf(pv))
        total = sum(mpf(cv) * mpf(pv) for cv, pv in zip(c.tolist(), p.tolist(), strict=True) if cv > 0 and pv > 0)
        reach = int(mp.ceil(60 * s)) + 60
        lo, hi = min(best) - reach, max(best) + reach
        if hi - lo > 200_000:
            raise ValueError("the lattice sum needs more than 200,000 points")
        if gauss:
            n = int(mp.ceil(60 * s)) + 60
            norm = sum(mp.exp(-mpf(z) ** 2 / (2 * s * s)) for z in range(-n, n + 1))

            def pmf(z):
                return mp.exp(-mpf(z) ** 2 / (2 * s * s)) / norm
        else:
            q = mp.exp(-1 / s)

            def pmf(z):
                return (1 - q) / (1 + q) * q ** abs(z)

        acc = mpf(0)
        if world is None:
            for r in range(lo, hi + 1):
                acc += max(a * pmf(r - kv) for kv, a in best.items())
            return acc / total
        kj, cj, pj = k[world], c[world], p[world]
        if cj == 0 or pj == 0 or mpf(pj) < best[kj]:
            return mpf(0)
        ties = sum(mpf(cv) for kv, cv, pv in zip(k, c.tolist(), p.tolist(), strict=True)
                   if kv == kj and cv > 0 and mpf(pv) == best[kj])
        for r in range(lo, hi + 1):
            scores = {kv: a * pmf(r - kv) for kv, a in best.items()}
            top = max(scores.values())
            if max(kv for kv, sc in scores.items() if sc == top) == kj:
                acc += pmf(r - kj)
        return acc / ties
