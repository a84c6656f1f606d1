"""Independent high-precision reference for the diffident engine core.

Everything here is written from /work/shared/MATH.md (sections 2-5) with the
plainest possible formulas, evaluated in mpmath at ``DPS`` significant digits.
It does not import diffident.  Float64 inputs are taken as exact numbers
(``mpmath.mpf(float)`` is exact), so the results are the true values of the
formulas at the given inputs, good to far more digits than float64 holds.
mpmath numbers have an unbounded exponent: ``exp(-1e12)`` is a perfectly
ordinary number here, so no log-sum-exp tricks are needed.

Only one transformation is applied to the data: entries with equal value and
equal prior weight are merged into one entry whose count is the sum of their
counts.  That is mathematically exact (their likelihood terms are identical)
and lets a million worlds drawn from a few hundred values be handled quickly.

The module also holds :func:`dense_worst_case_risk`, the O(m^2) definition of
the worst-case risk in plain NumPy float64 (row-chunked so that memory stays
bounded); it is a second, independent check and a benchmark baseline.

Conventions (as in the diffident spec): Laplace likelihood
``L_k(R) = exp(-|R - f_k| / scale)``, Gaussian likelihood
``L_k(R) = exp(-(R - f_k)^2 / (2 scale^2))`` (``noise="gaussian"``, scale is
sigma); ``counts`` c_k >= 0 are multiplicities; ``prior`` pi_k >= 0 is the
unnormalised prior weight of ONE world of entry k.

Beyond sections 2-5 (MATH.md section 7 and the hardening tests):

* :func:`gaussian_delta`: the (rho, delta)-identifiability of Gaussian noise,
  delta_j(rho) = P_{R ~ N(f_j, sigma^2)}[P(w_j | R) > rho], with the interval
  {P > rho} located by bisection at ``DPS`` digits and the normal mass
  integrated with erfc (no cancellation in a tail);
* :func:`multi_worst_case_risk`: the dense worst case of q independent
  Laplace releases;
* :func:`sweep_worst_case_risk`: the O(u) sorted sweep of MATH.md section 4
  (left and right sums) at ``DPS`` digits, for large world sets with many
  distinct values;
* :func:`epsilon_for_posterior` and :func:`posterior_bound` (MATH.md s. 7);
* :func:`removal_ranges_exact`: dataset-level sensitive ranges per removed
  individual in exact rational arithmetic (``fractions.Fraction``), for the
  ties of ``return_removed``.
"""

from __future__ import annotations

import numpy as np
from mpmath import mp, mpf

DPS = 60

__all__ = [
    "DPS",
    "log_evidence",
    "log_posterior",
    "posterior",
    "disclosure_risk",
    "world_risks",
    "worst_case_risk",
    "tight_scale",
    "risk_bound",
    "epsilon_for_rho",
    "rho_for_epsilon",
    "scale_for_rho",
    "min_rho",
    "effective_worlds",
    "dense_worst_case_risk",
    "merge",
    "gaussian_delta",
    "multi_worst_case_risk",
    "sweep_worst_case_risk",
    "epsilon_for_posterior",
    "posterior_bound",
    "removal_ranges_exact",
    "to_float",
]


# --------------------------------------------------------------------------
# input handling
# --------------------------------------------------------------------------

def _arrays(values, counts=None, prior=None):
    f = np.asarray(values, dtype=np.float64).ravel()
    c = np.ones_like(f) if counts is None else np.asarray(counts, dtype=np.float64).ravel()
    p = np.ones_like(f) if prior is None else np.asarray(prior, dtype=np.float64).ravel()
    if c.shape != f.shape or p.shape != f.shape:
        raise ValueError("counts and prior must have the shape of values")
    if not (np.all(np.isfinite(f)) and np.all(np.isfinite(c)) and np.all(np.isfinite(p))):
        raise ValueError("values, counts and prior must be finite")
    if np.any(c < 0) or np.any(p < 0):
        raise ValueError("counts and prior must be >= 0")
    return f, c, p


def _merged(f, c, p):
    """Merge entries with equal (value, prior) and drop zero-weight entries.

    Returns a list of (mpf value, mpf count, mpf prior), all exact.
    """
    keep = (c > 0) & (p > 0)  # (c * p > 0, without overflow warnings for 1e200 x 1e200)
    f, c, p = f[keep], c[keep], p[keep]
    out = []
    if f.size == 0:
        return out
    key = np.stack([f, p], axis=1)
    uniq, inv = np.unique(key, axis=0, return_inverse=True)
    inv = np.asarray(inv).ravel()
    # counts are summed exactly: integer counts in float64 (exact below
    # 2**53), others in mpmath at DPS digits (exact for the count arrays of
    # the tests, whose float64 entries span far fewer than 200 bits)
    if np.all(c == np.round(c)) and sum(c.tolist()) < 2.0 ** 52:  # (a Python sum: inf, no warning)
        # integer counts: float64 sums are exact below 2**53
        sums = [mpf(x) for x in np.bincount(inv, weights=c, minlength=len(uniq)).tolist()]
    else:
        sums = [mpf(0)] * len(uniq)
        for i, ci in zip(inv.tolist(), c.tolist()):
            sums[i] += mpf(ci)
    for (fv, pv), cs in zip(uniq.tolist(), sums):
        out.append((mpf(fv), cs, mpf(pv)))
    return out


def merge(values, counts=None, prior=None):
    """Merge entries with equal (value, prior) into one entry each (float64).

    Returns (values_u, counts_u, prior_u, inverse) with values[i] ==
    values_u[inverse[i]] and prior[i] == prior_u[inverse[i]]; counts_u sums
    the counts of each group.  Every risk quantity of entry i equals that of
    entry inverse[i] of the merged problem, so this is exact.  Integer counts
    only (their float64 sums are then exact).
    """
    f, c, p = _arrays(values, counts, prior)
    if not (np.all(c == np.round(c)) and c.sum() < 2.0 ** 52):
        raise ValueError("merge() needs integer counts")
    uniq, inv = np.unique(np.stack([f, p], axis=1), axis=0, return_inverse=True)
    inv = np.asarray(inv).ravel()
    cu = np.bincount(inv, weights=c, minlength=len(uniq))
    return uniq[:, 0].copy(), cu, uniq[:, 1].copy(), inv


def _mp(x):
    return mpf(float(x))


def _check_scale(scale):
    s = float(scale)
    if not (s >= 0):
        raise ValueError("scale must be >= 0")
    return s


# --------------------------------------------------------------------------
# posterior quantities (MATH.md section 2)
# --------------------------------------------------------------------------

def _gauss(noise):
    if noise not in ("laplace", "gaussian"):
        raise ValueError(f"unknown noise {noise!r}")
    return noise == "gaussian"


def _xsub(x, y):
    """x - y exactly (mpmath's exact mode: no rounding, whatever the exponents)."""
    return mp.fsub(x, y, exact=True)


def _xabs(x):
    """|x| exactly (``abs`` of an mpf rounds to the working precision)."""
    return x if x >= 0 else mp.fneg(x, exact=True)


def _energy_gap(R, fk, fr, S, gauss):
    """E_k - E_r, the energy of world value fk minus that of fr at response R.

    The distances are differenced exactly before the one rounding of the
    division: R may lie 1e300 away from worlds whose values differ by 1, or
    energies may exceed 1e600 while their differences are O(1), and a
    difference of two rounded energies would lose everything.
      Laplace:  (|R - fk| - |R - fr|) / S
      Gaussian: ((R - fk)^2 - (R - fr)^2) / (2 S^2) = (fr - fk)(2R - fr - fk) / (2 S^2)
    """
    if gauss:
        num = mp.fmul(_xsub(fr, fk), _xsub(_xsub(mp.fmul(2, R, exact=True), fr), fk), exact=True)
        return num / (2 * S * S)
    return _xsub(_xabs(_xsub(R, fk)), _xabs(_xsub(R, fr))) / S


def _energy(R, fk, S, gauss):
    """The noise energy of a world at response R (mpf; S an mpf scale > 0)."""
    d = _xsub(R, fk)
    return d * d / (2 * S * S) if gauss else abs(d) / S


def _nearest_group(groups, R):
    """The merged group whose value is nearest R (exactly): the shift."""
    return min(groups, key=lambda g: _xabs(_xsub(R, g[0])))[0]


def _log_sum_rel(groups, R, S, fr, gauss):
    """log sum_k c_k pi_k exp(-(E_k - E_r)) (fr the nearest value: every
    exponent <= 0)."""
    return mp.log(mp.fsum(ck * pk * mp.exp(-_energy_gap(R, fk, fr, S, gauss)) for fk, ck, pk in groups))


def _log_evidence_merged(groups, R, s, gauss=False):
    """log sum_k c_k pi_k L_k(R) over merged groups."""
    if s == 0.0:
        tot = mp.fsum(ck * pk for fk, ck, pk in groups if fk == R)
        return mp.log(tot) if tot > 0 else mpf("-inf")
    if s == np.inf:
        return mp.log(mp.fsum(ck * pk for fk, ck, pk in groups))
    S = mpf(s)
    fr = _nearest_group(groups, R)
    return _log_sum_rel(groups, R, S, fr, gauss) - _energy(R, fr, S, gauss)


def log_evidence(values, response, scale, counts=None, prior=None, noise="laplace"):
    """log sum_k c_k pi_k L_k(R), scalar response and scale (mpf)."""
    with mp.workdps(DPS):
        gauss = _gauss(noise)
        f, c, p = _arrays(values, counts, prior)
        s = _check_scale(scale)
        return _log_evidence_merged(_merged(f, c, p), _mp(response), s, gauss)


def log_posterior(values, response, scale, counts=None, prior=None, worlds=None, noise="laplace"):
    """Per-entry log posterior of ONE world of entry j (list of mpf).

    entry j = log(pi_j L_j(R) / sum_k c_k pi_k L_k(R)); -inf where pi_j = 0
    (or, for scale = 0, where f_j != R).  ``worlds``: optional iterable of
    entry indices to compute (default: all), in that order.  Computed from
    exact energy differences (see :func:`_energy_gap`), so it stays right
    when the energies themselves are astronomically large.
    """
    with mp.workdps(DPS):
        gauss = _gauss(noise)
        f, c, p = _arrays(values, counts, prior)
        s = _check_scale(scale)
        R = _mp(response)
        groups = _merged(f, c, p)
        idx = range(f.size) if worlds is None else [int(j) for j in worlds]
        if 0.0 < s < np.inf:
            S = mpf(s)
            fr = _nearest_group(groups, R)
            lsum = _log_sum_rel(groups, R, S, fr, gauss)
        else:
            lz = _log_evidence_merged(groups, R, s, gauss)
        out = []
        for j in idx:
            pj = mpf(float(p[j]))
            fj = mpf(float(f[j]))
            if pj == 0:
                out.append(mpf("-inf"))
                continue
            if s == 0.0:
                out.append((mp.log(pj) - lz) if fj == R else mpf("-inf"))
            elif s == np.inf:
                out.append(mp.log(pj) - lz)
            else:
                out.append(mp.log(pj) - _energy_gap(R, fj, fr, S, gauss) - lsum)
        return out


def posterior(values, response, scale, counts=None, prior=None, worlds=None, noise="laplace"):
    """exp(log_posterior) (list of mpf)."""
    with mp.workdps(DPS):
        return [mp.exp(a) for a in log_posterior(values, response, scale, counts, prior, worlds, noise)]


def disclosure_risk(values, response, scale, world=0, counts=None, prior=None, noise="laplace"):
    """Posterior of one world of entry ``world`` (mpf)."""
    with mp.workdps(DPS):
        return posterior(values, response, scale, counts, prior, worlds=[world], noise=noise)[0]


def to_float(x):
    """An mpf as the nearest float64, with exponents beyond the float range
    mapped to +-inf or +-0 (``float(mpf)`` raises nothing but is slow to
    decide for exponents like 10**40; this makes the limits explicit)."""
    x = mpf(x)
    if mp.isnan(x):
        return float("nan")
    if mp.isinf(x) or x == 0:
        return float(x)
    if abs(x) > mpf("1.8e308"):
        return float("inf") if x > 0 else float("-inf")
    if abs(x) < mpf("2e-324"):
        return 0.0 if x > 0 else -0.0
    return float(x)


# --------------------------------------------------------------------------
# worst case over responses (MATH.md section 4) -- the dense definition
# --------------------------------------------------------------------------

def world_risks(values, scale, counts=None, prior=None, worlds=None):
    """max_R P(w_j | R) = pi_j / sum_k c_k pi_k exp(-|f_j - f_k| / scale).

    Returns a dict {entry index j: mpf} over the entries j with c_j pi_j > 0
    (restricted to ``worlds`` if given).  scale = 0 and scale = inf give the
    limits pi_j / sum_{f_k = f_j} c_k pi_k and pi_j / sum_k c_k pi_k.
    """
    with mp.workdps(DPS):
        f, c, p = _arrays(values, counts, prior)
        s = _check_scale(scale)
        groups = _merged(f, c, p)
        idx = range(f.size) if worlds is None else [int(j) for j in worlds]
        cand = [j for j in idx if c[j] > 0 and p[j] > 0]
        denom = {}  # the denominator depends on f_j only
        for j in cand:
            fj = float(f[j])
            if fj in denom:
                continue
            F = mpf(fj)
            if s == 0.0:
                d = mp.fsum(ck * pk for fk, ck, pk in groups if fk == F)
            elif s == np.inf:
                d = mp.fsum(ck * pk for fk, ck, pk in groups)
            else:
                S = mpf(s)
                d = mp.fsum(ck * pk * mp.exp(-abs(F - fk) / S) for fk, ck, pk in groups)
            denom[fj] = d
        return {j: mpf(float(p[j])) / denom[float(f[j])] for j in cand}


def worst_case_risk(values, scale, counts=None, prior=None, worlds=None, tie_rtol=1e-40):
    """(rho*, argmax) for a scalar scale.

    rho* = max over entries j with c_j pi_j > 0 of world_risks()[j] (mpf);
    argmax = sorted list of every entry index whose risk is within relative
    ``tie_rtol`` of the maximum (mathematically tied worlds).  With
    ``worlds`` the maximum is taken over that subset only.
    """
    with mp.workdps(DPS):
        r = world_risks(values, scale, counts, prior, worlds)
        if not r:
            raise ValueError("no world has positive weight")
        best = max(r.values())
        arg = sorted(j for j, v in r.items() if v >= best * (1 - mpf(tie_rtol)))
        return best, arg


def tight_scale(values, rho, counts=None, prior=None, iterations=250):
    """The smallest scale with rho*(scale) <= rho, by plain bisection (mpf).

    Slow (every step is a dense evaluation); meant for small world sets.
    rho >= rho*(0) -> 0; rho <= rho*(inf) -> inf.
    """
    with mp.workdps(DPS):
        r = _mp(rho)
        if r >= worst_case_risk(values, 0.0, counts, prior)[0]:
            return mpf(0)
        if r <= worst_case_risk(values, np.inf, counts, prior)[0]:
            return mpf("inf")

        def risk(lam):  # dense, at an mpf scale
            f, c, p = _arrays(values, counts, prior)
            groups = _merged(f, c, p)
            best = mpf(0)
            for fj, cj, pj in groups:
                d = mp.fsum(ck * pk * mp.exp(-abs(fj - fk) / lam) for fk, ck, pk in groups)
                best = max(best, pj / d)
            return best

        lo, hi = mpf(1), mpf(1)
        while risk(hi) > r:
            hi *= 2
        while risk(lo) <= r:
            lo /= 2
        for _ in range(iterations):
            mid = mp.sqrt(lo * hi)
            if risk(mid) <= r:
                hi = mid
            else:
                lo = mid
        return hi


# --------------------------------------------------------------------------
# closed forms (MATH.md section 3), scalar, mpf
# --------------------------------------------------------------------------

def min_rho(m):
    with mp.workdps(DPS):
        return 1 / _mp(m)


def effective_worlds(prior, counts=None):
    """sum_k c_k pi_k / max pi_k over entries with positive weight."""
    with mp.workdps(DPS):
        p = np.asarray(prior, dtype=np.float64).ravel()
        c = np.ones_like(p) if counts is None else np.asarray(counts, dtype=np.float64).ravel()
        keep = c * p > 0
        return mp.fsum(mpf(a) * mpf(b) for a, b in zip(c[keep].tolist(), p[keep].tolist())) / mpf(
            float(p[keep].max()))


def epsilon_for_rho(rho, m):
    """ln((m - 1) rho / (1 - rho)); rho >= 1 -> inf; rho <= 1/m -> 0."""
    with mp.workdps(DPS):
        r, M = _mp(rho), _mp(m)
        if r >= 1:
            return mpf("inf")
        if r <= 1 / M:
            return mpf(0)
        return mp.log((M - 1) * r / (1 - r))


def rho_for_epsilon(epsilon, m):
    """1 / (1 + (m - 1) exp(-eps)); eps = inf -> 1."""
    with mp.workdps(DPS):
        e, M = _mp(epsilon), _mp(m)
        if e == mpf("inf"):
            return mpf(1)
        return 1 / (1 + (M - 1) * mp.exp(-e))


def scale_for_rho(rho, m, sensitive_range):
    """S / epsilon_for_rho(rho, m); rho >= 1 -> 0; rho <= 1/m -> inf; S = 0 -> 0 or inf."""
    with mp.workdps(DPS):
        r, M, S = _mp(rho), _mp(m), _mp(sensitive_range)
        if S == 0:
            return mpf(0) if r >= 1 / M else mpf("inf")
        if r >= 1:
            return mpf(0)
        if r <= 1 / M:
            return mpf("inf")
        return S / mp.log((M - 1) * r / (1 - r))


def risk_bound(scale, m, sensitive_range):
    """1 / (1 + (m - 1) exp(-S / scale)); scale 0 -> 1 (S > 0); scale inf -> 1/m."""
    with mp.workdps(DPS):
        lam, M, S = _mp(scale), _mp(m), _mp(sensitive_range)
        if lam == mpf("inf"):
            return 1 / M
        if lam == 0:
            return mpf(1) if S > 0 else 1 / M
        return 1 / (1 + (M - 1) * mp.exp(-S / lam))


# --------------------------------------------------------------------------
# plain NumPy float64 dense definition (benchmark baseline)
# --------------------------------------------------------------------------

def dense_worst_case_risk(values, scale, counts=None, prior=None, return_world=False,
                          max_block=1 << 22):
    """O(m^2) float64 worst-case risk, straight from the definition.

    rho* = max_{j: c_j pi_j > 0} pi_j / sum_k c_k pi_k exp(-|f_j - f_k| / scale)

    Rows are processed in blocks of about ``max_block`` matrix entries, so
    memory stays O(max_block) (m = 2e4 needs ~100 MB, not 3 GB).  ``scale`` is
    a scalar; 0 and inf give the limits.  With ``return_world`` also returns
    the index (into ``values``) of a worst world.
    """
    f = np.asarray(values, dtype=np.float64).ravel()
    c = np.ones_like(f) if counts is None else np.asarray(counts, dtype=np.float64).ravel()
    p = np.ones_like(f) if prior is None else np.asarray(prior, dtype=np.float64).ravel()
    s = float(scale)
    w = c * p
    act = np.flatnonzero(w > 0)
    fk, wk = f[act], w[act]
    rows = max(1, int(max_block) // max(1, fk.size))
    best, best_j = -np.inf, -1
    for start in range(0, act.size, rows):
        j = act[start:start + rows]
        d = np.abs(f[j, None] - fk[None, :])
        if s == 0.0:
            e = (d == 0).astype(np.float64)
        else:
            e = np.exp(-d / s)
        risk = p[j] / (e @ wk)
        i = int(np.argmax(risk))
        if risk[i] > best:
            best, best_j = float(risk[i]), int(j[i])
    return (best, best_j) if return_world else best


# --------------------------------------------------------------------------
# Gaussian (rho, delta)-identifiability (MATH.md section 7)
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
    terms = [(ck * pk / pj, _xsub(fj, fk) / sigma) for fk, ck, pk in groups]
    T = -mp.log(rho)  # P > rho  <=>  L < T
    amax = max(abs(a) for w, a in terms)

    def L(z):
        es = [-a * z - a * a / 2 for w, a in terms]
        e0 = max(es)
        return e0 + mp.log(mp.fsum(w * mp.exp(e - e0) for (w, a), e in zip(terms, es)))

    def dL(z):  # derivative: the weighted mean of -a_k
        es = [-a * z - a * a / 2 for w, a in terms]
        e0 = max(es)
        ws = [w * mp.exp(e - e0) for (w, a), e in zip(terms, es)]
        return mp.fsum(-a * x for (w, a), x in zip(terms, ws)) / mp.fsum(ws)

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
    for _ in range(100000):
        if hi - lo <= tol * (1 + abs(lo)) * unit:
            break
        mid = (lo + hi) / 2
        if dL(mid) < 0:
            lo = mid
        else:
            hi = mid
    zs = (lo + hi) / 2
    if h(zs) >= 0:
        return mpf(0)
    a_in, a_out = _bisect_root(h, zs, out_to(-1, zs), tol * unit)
    b_in, b_out = _bisect_root(h, zs, out_to(1, zs), tol * unit)
    return _normal_mass((a_in + a_out) / 2, (b_in + b_out) / 2)


def gaussian_delta(values, rho, sigma, counts=None, prior=None, world=None):
    """delta_j(rho) = P_{R ~ N(f_j, sigma^2)}[P(w_j | R) > rho] (mpf).

    ``world``: an entry index, or None for the maximum over every entry of
    positive weight.  Scalar rho and sigma (sigma > 0 finite).
    """
    with mp.workdps(DPS + 20):
        f, c, p = _arrays(values, counts, prior)
        groups = _merged(f, c, p)
        r = _mp(rho)
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
# several Laplace releases (MATH.md section 7), dense
# --------------------------------------------------------------------------

def multi_worst_case_risk(values, scales, counts=None, prior=None):
    """max_j pi_j / sum_k c_k pi_k exp(-sum_t |F_jt - F_kt| / scale_t) (mpf).

    ``values``: (m, q) (a 1-d array is one query); ``scales``: q scales,
    each > 0 (``inf`` allowed: that release adds nothing; 0: no noise).
    """
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
                    d = _xabs(_xsub(rows[j][t], rows[k][t]))
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
# the sorted sweep of MATH.md section 4 at DPS digits, O(u)
# --------------------------------------------------------------------------

def sweep_worst_case_risk(values, scale, counts=None, prior=None):
    """rho*(scale) by the left/right sweep recurrences, O(u) after a sort.

    For u distinct values with group weight W_g = sum c_k pi_k and largest
    per-world prior P_g:  rho* = max_g P_g / (A_g + B_g - W_g) with
    A_g = W_g + A_{g-1} exp(-(f_g - f_{g-1}) / scale) and its mirror B_g.
    Every operation at ``DPS`` significant digits in Python's ``decimal``
    (C-accelerated, about ten times faster than mpmath here): a 60-digit
    check of a million distinct values takes seconds where the dense
    definition is O(m^2).  Float inputs convert to Decimal exactly; every
    factor is in (0, 1], so no step cancels.  ``scale`` finite and > 0.
    Returns an mpf.
    """
    import decimal
    from decimal import Decimal

    f, c, p = _arrays(values, counts, prior)
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
            for a, b in zip(first.tolist(), ends.tolist()):
                Wg.append(sum((Decimal(ci) * Decimal(pi) for ci, pi in zip(c[a:b].tolist(), p[a:b].tolist())),
                              Decimal(0)))
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
# the Bayesian reading of epsilon (MATH.md section 7)
# --------------------------------------------------------------------------

def posterior_bound(epsilon, prior):
    """e^eps P / (1 - P + e^eps P) (mpf); eps = inf -> 1 (P > 0)."""
    with mp.workdps(DPS):
        e, P = _mp(epsilon), _mp(prior)
        if e == mpf("inf"):
            return mpf(1) if P > 0 else mpf(0)
        x = mp.exp(e) * P
        return x / (1 - P + x)


def epsilon_for_posterior(posterior, prior):
    """ln(q (1 - P) / (P (1 - q))) (mpf); q >= 1 or P = 0 -> inf; q <= P -> 0."""
    with mp.workdps(DPS):
        q, P = _mp(posterior), _mp(prior)
        if q >= 1 or P == 0:
            return mpf("inf")
        if q <= P:
            return mpf(0)
        return mp.log(q * (1 - P) / (P * (1 - q)))


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


def removal_ranges_exact(query, data, candidates):
    """Exact S(f) of D' = data minus individual i, for every i (k = 1).

    The worlds of D' are D' + {v} for v in candidates plus the removed
    value (U minus D').  Returns a list of ``fractions.Fraction``, one per
    individual, every float input taken as the exact rational it is.
    Queries: sum, mean, median, var (ddof 0), min, max.
    """
    from fractions import Fraction

    d = [Fraction(float(x)) for x in np.asarray(data, dtype=np.float64).ravel().tolist()]
    cands = [Fraction(float(x)) for x in np.asarray(candidates, dtype=np.float64).ravel().tolist()]
    out = []
    for i in range(len(d)):
        known = d[:i] + d[i + 1:]
        vals = [_exact_query(query, known + [v]) for v in cands + [d[i]]]
        out.append(max(vals) - min(vals))
    return out


if __name__ == "__main__":  # quick self-check against the check values of MATH.md
    with mp.workdps(DPS):
        # section 2: f = mean of {1,2,3,x}, x in {4,5,10}; eps = 2, S = 9/4
        vals = [2.5, 2.75, 4.0]
        print("sec2 posterior of world 3:", float(disclosure_risk(vals, 5.041, (9 / 4) / 2, world=2)))
        means = [2, 8 / 3, 3, 10 / 3, 11 / 3, 4, 13 / 3, 14 / 3]
        lam = float(scale_for_rho(1 / 3, 8, 8 / 3))
        print("sec3 lam:", lam, "eps:", float(epsilon_for_rho(1 / 3, 8)))
        print("sec3 risk world 1 at R=2:", float(disclosure_risk(means, 2.0, lam, world=0)))
        ts = tight_scale(means, 1 / 3)
        print("sec4 tight eps (mean):", float((mpf(14) / 3 - 2) / ts))
        print("sec4 worst:", worst_case_risk(means, float(ts)))
        med = [2, 3, 3, 3, 3, 3, 3, 3]
        print("median tight eps:", float(1 / tight_scale(med, 1 / 3)), "bound eps:", float(epsilon_for_rho(1 / 3, 8)))
        print("median risk at bound scale:", disclosure_risk(med, 2.0, float(scale_for_rho(1 / 3, 8, 1.0)), world=0))
        print("dense:", dense_worst_case_risk(means, float(ts), return_world=True))
