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
``L_k(R) = exp(-|R - f_k| / scale)``; ``counts`` c_k >= 0 are multiplicities;
``prior`` pi_k >= 0 is the unnormalised prior weight of ONE world of entry k.
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
    w = c * p
    keep = w > 0
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
    if np.all(c == np.round(c)) and c.sum() < 2.0 ** 52:
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

def _log_evidence_merged(groups, R, s):
    """log sum_k c_k pi_k exp(-|R - f_k| / s) over merged groups."""
    if s == 0.0:
        tot = mp.fsum(ck * pk for fk, ck, pk in groups if fk == R)
        return mp.log(tot) if tot > 0 else mpf("-inf")
    if s == np.inf:
        return mp.log(mp.fsum(ck * pk for fk, ck, pk in groups))
    S = mpf(s)
    tot = mp.fsum(ck * pk * mp.exp(-abs(R - fk) / S) for fk, ck, pk in groups)
    return mp.log(tot)


def log_evidence(values, response, scale, counts=None, prior=None):
    """log sum_k c_k pi_k exp(-|R - f_k| / scale), scalar response and scale (mpf)."""
    with mp.workdps(DPS):
        f, c, p = _arrays(values, counts, prior)
        s = _check_scale(scale)
        return _log_evidence_merged(_merged(f, c, p), _mp(response), s)


def log_posterior(values, response, scale, counts=None, prior=None, worlds=None):
    """Per-entry log posterior of ONE world of entry j (list of mpf).

    entry j = log(pi_j L_j(R) / sum_k c_k pi_k L_k(R)); -inf where pi_j = 0
    (or, for scale = 0, where f_j != R).  ``worlds``: optional iterable of
    entry indices to compute (default: all), in that order.
    """
    with mp.workdps(DPS):
        f, c, p = _arrays(values, counts, prior)
        s = _check_scale(scale)
        R = _mp(response)
        lz = _log_evidence_merged(_merged(f, c, p), R, s)
        idx = range(f.size) if worlds is None else [int(j) for j in worlds]
        out = []
        for j in idx:
            pj = mpf(float(p[j]))
            fj = mpf(float(f[j]))
            if pj == 0:
                out.append(mpf("-inf"))
                continue
            if s == 0.0:
                a = mp.log(pj) if fj == R else mpf("-inf")
            elif s == np.inf:
                a = mp.log(pj)
            else:
                a = mp.log(pj) - abs(R - fj) / mpf(s)
            out.append(a - lz)
        return out


def posterior(values, response, scale, counts=None, prior=None, worlds=None):
    """exp(log_posterior) (list of mpf)."""
    with mp.workdps(DPS):
        return [mp.exp(a) for a in log_posterior(values, response, scale, counts, prior, worlds)]


def disclosure_risk(values, response, scale, world=0, counts=None, prior=None):
    """Posterior of one world of entry ``world`` (mpf)."""
    with mp.workdps(DPS):
        return posterior(values, response, scale, counts, prior, worlds=[world])[0]


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
        cand = [j for j in idx if c[j] * p[j] > 0]
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
