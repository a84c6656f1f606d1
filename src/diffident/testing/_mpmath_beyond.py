"""The 60-digit mpmath reference beyond the engine core (Mathematics page, sec. 7).

Import it through `diffident.testing.mpmath_reference`.
"""

from __future__ import annotations

import numpy as np
from mpmath import mp, mpf

from ._mpmath_core import DPS, as_arrays, exact_abs, exact_sub, merged_groups, mpf_of

__all__ = [
    "gaussian_delta",
    "multi_worst_case_risk",
    "sweep_worst_case_risk",
    "posterior_bound",
    "epsilon_for_posterior",
    "analytic_gaussian_delta",
    "analytic_gaussian_sigma",
    "classic_gaussian_sigma",
    "removal_ranges_exact",
]


# --------------------------------------------------------------------------
# Gaussian (rho, delta)-identifiability (Mathematics page, section 7)
# --------------------------------------------------------------------------

def _upper_tail(z):
    """P(Z > z) for a standard normal Z, without cancellation (mpf)."""
    return mp.erfc(z / mp.sqrt(2)) / 2


def _normal_mass(a, b):
    """P(a < Z < b) for a standard normal Z (a, b mpf, +-inf allowed)."""
    if a >= b:
        return mpf(0)
    if a >= 0:  # both in the upper tail
        return _upper_tail(a) - _upper_tail(b)
    if b <= 0:  # both in the lower tail: mirror
        return _upper_tail(-b) - _upper_tail(-a)
    return 1 - _upper_tail(b) - _upper_tail(-a)


def _bisect_root(fn, inside, outside, tol):
    """The boundary between ``inside`` (fn < 0) and ``outside`` (fn >= 0)."""
    for _ in range(100000):
        if abs(outside - inside) <= tol * (1 + abs(inside)):
            break
        mid = (inside + outside) / 2
        if fn(mid) < 0:
            inside = mid
        else:
            outside = mid
    return inside, outside


def _gaussian_delta_one(groups, fj, pj, rho, sigma):
    """delta for the true world (fj, pj) over merged groups, mpf inputs."""
    if pj == 0 or rho >= 1:
        return mpf(0)  # a zero-weight world has posterior 0; P <= 1 is never > 1
    if rho == 0:
        return mpf(1)  # P > 0 at every finite response
    # z = (R - f_j) / sigma; 1/P(z) = sum_k w_k exp(-a_k z - a_k^2 / 2) with
    # a_k = (f_j - f_k) / sigma and w_k = c_k pi_k / pi_j: a sum of
    # exponentials of linear functions of z, so L = log(1/P) is convex.
    terms = [(ck * pk / pj, exact_sub(fj, fk) / sigma) for fk, ck, pk in groups]
    T = -mp.log(rho)  # P > rho  <=>  L < T
    amax = max(abs(a) for w, a in terms)

    def L(z):
        es = [-a * z - a * a / 2 for w, a in terms]
        e0 = max(es)
        return e0 + mp.log(mp.fsum(w * mp.exp(e - e0) for (w, a), e in zip(terms, es, strict=False)))

    def dL(z):  # derivative: the weighted mean of -a_k
        es = [-a * z - a * a / 2 for w, a in terms]
        e0 = max(es)
        ws = [w * mp.exp(e - e0) for (w, a), e in zip(terms, es, strict=False)]
        return mp.fsum(-a * x for (w, a), x in zip(terms, ws, strict=False)) / mp.fsum(ws)

    h = lambda z: L(z) - T  # noqa: E731
    # bisection tolerance in z: relative 1e-(DPS-5), and absolute where the
    # coefficients are huge (sigma tiny against the spread)
    tol = mpf(10) ** (-(DPS - 5))
    unit = 1 / amax if amax > 0 else mpf(1)
    share_lim = mp.fsum(w for w, a in terms if a == 0)  # 1/P at the open end(s)
    has_below = any(a > 0 for w, a in terms)  # worlds with f_k < f_j
    has_above = any(a < 0 for w, a in terms)
    if not has_below and not has_above:  # one value: P is the constant share
        return mpf(1) if mp.log(share_lim) < T else mpf(0)

    def out_to(side, start):
        """A point on ``side`` of ``start`` with h >= 0 (it exists)."""
        step = unit
        z = start + side * step
        while h(z) < 0:
            step *= 2
            z = start + side * step
        return z

    if not has_above or not has_below:  # an extreme world: L is monotone
        side = 1 if not has_above else -1  # towards the open end
        if mp.log(share_lim) >= T:
            return mpf(0)  # L decreases to log(1/share) >= T: never inside
        step = unit
        z = side * step
        while h(z) >= 0:
            step *= 2
            z = side * step
        # inside at z; outside towards the finite end
        far = z - side * unit
        while h(far) < 0:
            far = z - side * 2 * abs(far - z)
        inside, outside = _bisect_root(h, z, far, tol)
        edge = (inside + outside) / 2
        return _normal_mass(edge, mpf("inf")) if side == 1 else _normal_mass(mpf("-inf"), edge)
    # an interior world: minimise L (dL increasing) by bisection on dL
    lo, hi = -unit, unit
    while dL(lo) >= 0:
        lo = 2 * lo
    while dL(hi) <= 0:
        hi = 2 * hi
    lo, hi = _bisect_root(dL, lo, hi, tol * unit)
    zs = (lo + hi) / 2
    if h(zs) >= 0:
        return mpf(0)
    a_in, a_out = _bisect_root(h, zs, out_to(-1, zs), tol * unit)
    b_in, b_out = _bisect_root(h, zs, out_to(1, zs), tol * unit)
    return _normal_mass((a_in + a_out) / 2, (b_in + b_out) / 2)


def gaussian_delta(values, *, rho, sigma, counts=None, prior=None, world=None):
    """Gaussian (rho, delta)-identifiability of one world (or the worst), an mpf."""
    with mp.workdps(DPS + 20):
        f, c, p = as_arrays(values, counts, prior)
        groups = merged_groups(f, c, p)
        r = mpf_of(rho)
        sig = mpf(float(sigma))
        if not sig > 0:
            raise ValueError("sigma must be > 0")
        if world is not None:
            j = int(world)
            fj, pj = mpf(float(f[j])), (mpf(float(p[j])) if c[j] > 0 else mpf(0))
            out = _gaussian_delta_one(groups, fj, pj, r, sig)
        else:
            out = max(_gaussian_delta_one(groups, fk, pk, r, sig) for fk, ck, pk in groups)
    with mp.workdps(DPS):
        return +out


# --------------------------------------------------------------------------
# several Laplace releases (Mathematics page, eq. 7.4), dense
# --------------------------------------------------------------------------

def multi_worst_case_risk(values, *, scales, counts=None, prior=None):
    """The dense worst-case risk of q independent Laplace releases (an mpf)."""
    with mp.workdps(DPS):
        F = np.asarray(values, dtype=np.float64)
        if F.ndim == 1:
            F = F[:, None]
        m, q = F.shape
        lam = np.asarray(scales, dtype=np.float64).reshape(-1)
        if lam.size != q:
            raise ValueError("one scale per query")
        c = np.ones(m) if counts is None else np.asarray(counts, dtype=np.float64).ravel()
        p = np.ones(m) if prior is None else np.asarray(prior, dtype=np.float64).ravel()
        rows = [[mpf(x) for x in F[i].tolist()] for i in range(m)]
        live = [i for i in range(m) if c[i] > 0 and p[i] > 0]
        W = {i: mpf(float(c[i])) * mpf(float(p[i])) for i in live}
        inv = []
        for t in range(q):
            x = float(lam[t])
            inv.append(None if x == 0 else (mpf(0) if x == np.inf else 1 / mpf(x)))
        best = mpf(0)
        for j in live:
            tot = []
            for k in live:
                e = mpf(0)
                zero = False
                for t in range(q):
                    d = exact_abs(exact_sub(rows[j][t], rows[k][t]))
                    if inv[t] is None:
                        if d != 0:
                            zero = True
                            break
                    else:
                        e += d * inv[t]
                if not zero:
                    tot.append(W[k] * mp.exp(-e))
            best = max(best, mpf(float(p[j])) / mp.fsum(tot))
        return best


# --------------------------------------------------------------------------
# the sorted sweep (Mathematics page, eq. 4.2) at DPS digits, O(u)
# --------------------------------------------------------------------------

def sweep_worst_case_risk(values, *, scale, counts=None, prior=None):
    """The worst-case risk by the O(u) sorted sweep in ``decimal`` (an mpf)."""
    import decimal
    from decimal import Decimal

    f, c, p = as_arrays(values, counts, prior)
    s = float(scale)
    if not (0.0 < s < np.inf):
        raise ValueError("scale must be finite and > 0")
    keep = (c > 0) & (p > 0)
    f, c, p = f[keep], c[keep], p[keep]
    order = np.argsort(f, kind="stable")
    f, c, p = f[order], c[order], p[order]
    fs, first = np.unique(f, return_index=True)
    ends = np.append(first[1:], f.size)
    ctx = decimal.Context(prec=DPS, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)
    with decimal.localcontext(ctx):
        if np.all(p == 1.0) and np.all(c == np.round(c)) and c.sum() < 2.0 ** 52:
            Wg = [Decimal(x) for x in np.add.reduceat(c, first).tolist()]  # exact sums
            Pg = [Decimal(1)] * fs.size
        else:
            Wg, Pg = [], []
            for a, b in zip(first.tolist(), ends.tolist(), strict=False):
                pairs = zip(c[a:b].tolist(), p[a:b].tolist(), strict=True)
                Wg.append(sum((Decimal(ci) * Decimal(pi) for ci, pi in pairs), Decimal(0)))
                Pg.append(Decimal(float(p[a:b].max())))
        inv = 1 / Decimal(s)
        F = [Decimal(x) for x in fs.tolist()]
        u = len(F)
        E = [Decimal(0)] + [(-(F[g] - F[g - 1]) * inv).exp() for g in range(1, u)]
        A = [Decimal(0)] * u
        A[0] = Wg[0]
        for g in range(1, u):
            A[g] = Wg[g] + A[g - 1] * E[g]
        best = Decimal(0)
        B = Decimal(0)
        for g in range(u - 1, -1, -1):
            B = Wg[g] + (B * E[g + 1] if g + 1 < u else 0)
            r = Pg[g] / (A[g] + B - Wg[g])
            if r > best:
                best = r
        text = str(best)
    with mp.workdps(DPS):
        return mpf(text)


# --------------------------------------------------------------------------
# the Bayesian reading of epsilon (Mathematics page, eq. 7.9)
# --------------------------------------------------------------------------

def posterior_bound(epsilon, *, prior):
    """The largest posterior epsilon allows from a prior P (an mpf)."""
    with mp.workdps(DPS):
        e, P = mpf_of(epsilon), mpf_of(prior)
        if e == mpf("inf"):
            return mpf(1) if P > 0 else mpf(0)
        x = mp.exp(e) * P
        return x / (1 - P + x)


def epsilon_for_posterior(posterior, *, prior):
    """The epsilon that caps the posterior at q from a prior P (an mpf)."""
    with mp.workdps(DPS):
        q, P = mpf_of(posterior), mpf_of(prior)
        if q >= 1 or P == 0:
            return mpf("inf")
        if q <= P:
            return mpf(0)
        return mp.log(q * (1 - P) / (P * (1 - q)))


# --------------------------------------------------------------------------
# the analytic Gaussian mechanism (Balle and Wang 2018), 50 digits
# --------------------------------------------------------------------------

def analytic_gaussian_delta(sigma, *, epsilon, sensitivity=1):
    """The Gaussian mechanism's delta at sigma, to 50 digits (an mpf)."""
    dps = 60
    while True:
        with mp.workdps(dps):
            s, e, S = mp.mpf(sigma), mp.mpf(epsilon), mp.mpf(sensitivity)
            a = S / (2 * s) - e * s / S
            b = -S / (2 * s) - e * s / S
            t1, t2 = mp.ncdf(a), mp.exp(e) * mp.ncdf(b)
            d = t1 - t2
            if (d > 0 and mp.log10(t1 / d) < dps - 55) or dps > 2000:
                return d
        dps *= 2


def analytic_gaussian_sigma(epsilon, *, delta, start):
    """The exact analytic Gaussian sigma (sensitivity 1), as a float."""
    with mp.workdps(50):
        d = mp.mpf(delta)

        def f(t):
            return mp.log(analytic_gaussian_delta(mp.exp(t), epsilon=epsilon)) - mp.log(d)

        t0 = mp.log(mp.mpf(start))
        return float(mp.exp(mp.findroot(f, (t0 - mp.mpf("1e-6"), t0 + mp.mpf("1e-6")),
                                        solver="anderson")))


def classic_gaussian_sigma(epsilon, *, delta, sensitivity=1):
    """The classic Gaussian sigma, ``S sqrt(2 ln(1.25 / delta)) / eps``."""
    with mp.workdps(40):
        return mp.mpf(sensitivity) * mp.sqrt(2 * mp.log(mp.mpf(1.25) / mp.mpf(delta))) / mp.mpf(epsilon)


# --------------------------------------------------------------------------
# dataset-level sensitive ranges in exact rational arithmetic (k = 1)
# --------------------------------------------------------------------------

def _exact_query(name, xs):
    from fractions import Fraction

    xs = sorted(xs)
    n = len(xs)
    if name == "sum":
        return sum(xs, Fraction(0))
    if name == "mean":
        return sum(xs, Fraction(0)) / n
    if name == "median":
        return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2
    if name == "var":
        mu = sum(xs, Fraction(0)) / n
        return sum(((x - mu) ** 2 for x in xs), Fraction(0)) / n
    if name == "min":
        return xs[0]
    if name == "max":
        return xs[-1]
    raise ValueError(f"no exact form for {name!r}")


def removal_ranges_exact(query, *, data, candidates):
    """Exact sensitive ranges (Fractions) of data minus each individual."""
    from fractions import Fraction

    d = [Fraction(float(x)) for x in np.asarray(data, dtype=np.float64).ravel().tolist()]
    cands = [Fraction(float(x)) for x in np.asarray(candidates, dtype=np.float64).ravel().tolist()]
    out = []
    for i in range(len(d)):
        known = d[:i] + d[i + 1:]
        vals = [_exact_query(query, known + [v]) for v in cands + [d[i]]]
        out.append(max(vals) - min(vals))
    return out

