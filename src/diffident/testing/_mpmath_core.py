"""The 60-digit mpmath reference of the engine core (Mathematics page, sec. 2-5).

Import it through `diffident.testing.mpmath_reference`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from mpmath import mp, mpf

DPS = 60

__all__ = [
    "DPS",
    "merge",
    "log_evidence",
    "log_posterior",
    "posterior",
    "disclosure_risk",
    "to_float",
    "world_risks",
    "worst_case_risk",
    "tight_scale",
    "min_rho",
    "effective_worlds",
    "epsilon_for_rho",
    "rho_for_epsilon",
    "scale_for_rho",
    "risk_bound",
]

# --------------------------------------------------------------------------
# input handling
# --------------------------------------------------------------------------

def as_arrays(values, counts=None, prior=None):
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


def merged_groups(f, c, p):
    """Merge equal (value, prior) entries, drop zero weights: [(value, count, prior)]."""
    keep = (c > 0) & (p > 0)  # (c * p > 0, without overflow warnings for 1e200 x 1e200)
    f, c, p = f[keep], c[keep], p[keep]
    out: list[Any] = []
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
        for i, ci in zip(inv.tolist(), c.tolist(), strict=False):
            sums[i] += mpf(ci)
    for (fv, pv), cs in zip(uniq.tolist(), sums, strict=False):
        out.append((mpf(fv), cs, mpf(pv)))
    return out


def merge(values, counts=None, prior=None):
    """Merge equal (value, prior) entries (float64): (values, counts, prior, inverse)."""
    f, c, p = as_arrays(values, counts, prior)
    if not (np.all(c == np.round(c)) and c.sum() < 2.0 ** 52):
        raise ValueError("merge() needs integer counts")
    uniq, inv = np.unique(np.stack([f, p], axis=1), axis=0, return_inverse=True)
    inv = np.asarray(inv).ravel()
    cu = np.bincount(inv, weights=c, minlength=len(uniq))
    return uniq[:, 0].copy(), cu, uniq[:, 1].copy(), inv


def mpf_of(x):
    return mpf(float(x))


def _check_scale(scale):
    s = float(scale)
    if not (s >= 0):
        raise ValueError("scale must be >= 0")
    return s


# --------------------------------------------------------------------------
# posterior quantities (Mathematics page, section 2)
# --------------------------------------------------------------------------

def _gauss(noise):
    if noise not in ("laplace", "gaussian"):
        raise ValueError(f"unknown noise {noise!r}")
    return noise == "gaussian"


def exact_sub(x, y):
    """x - y exactly (mpmath's exact mode: no rounding, whatever the exponents)."""
    return mp.fsub(x, y, exact=True)


def exact_abs(x):
    """|x| exactly (``abs`` of an mpf rounds to the working precision)."""
    return x if x >= 0 else mp.fneg(x, exact=True)


def _energy_gap(R, fk, fr, S, gauss):
    """E_k - E_r at response R, the distances differenced exactly before dividing."""
    if gauss:
        num = mp.fmul(exact_sub(fr, fk), exact_sub(exact_sub(mp.fmul(2, R, exact=True), fr), fk), exact=True)
        return num / (2 * S * S)
    return exact_sub(exact_abs(exact_sub(R, fk)), exact_abs(exact_sub(R, fr))) / S


def _energy(R, fk, S, gauss):
    """The noise energy of a world at response R (mpf; S an mpf scale > 0)."""
    d = exact_sub(R, fk)
    return d * d / (2 * S * S) if gauss else abs(d) / S


def _nearest_group(groups, R):
    """The merged group whose value is nearest R (exactly): the shift."""
    return min(groups, key=lambda g: exact_abs(exact_sub(R, g[0])))[0]


def _log_sum_rel(groups, R, S, fr, gauss):
    """log sum_k c_k pi_k exp(-(E_k - E_r)), fr the nearest value."""
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


def log_evidence(values, *, response, scale, counts=None, prior=None, noise="laplace"):
    """The log-evidence ``log sum_k c_k pi_k L_k(R)`` at ``DPS`` digits (an mpf)."""
    with mp.workdps(DPS):
        gauss = _gauss(noise)
        f, c, p = as_arrays(values, counts, prior)
        s = _check_scale(scale)
        return _log_evidence_merged(merged_groups(f, c, p), mpf_of(response), s, gauss)


def log_posterior(values, *, response, scale, counts=None, prior=None, worlds=None, noise="laplace"):
    """The log posterior of one world of each entry (list of mpf), from exact gaps."""
    with mp.workdps(DPS):
        gauss = _gauss(noise)
        f, c, p = as_arrays(values, counts, prior)
        s = _check_scale(scale)
        R = mpf_of(response)
        groups = merged_groups(f, c, p)
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


def posterior(values, *, response, scale, counts=None, prior=None, worlds=None, noise="laplace"):
    """The posterior of one world of each entry (``exp`` of `log_posterior`)."""
    with mp.workdps(DPS):
        return [mp.exp(a) for a in log_posterior(values, response=response, scale=scale, counts=counts, prior=prior,
                                                 worlds=worlds, noise=noise)]


def disclosure_risk(values, *, response, scale, world=0, counts=None, prior=None, noise="laplace"):
    """The posterior of one world of entry ``world`` at one response (an mpf)."""
    with mp.workdps(DPS):
        return posterior(values, response=response, scale=scale, counts=counts, prior=prior, worlds=[world],
                         noise=noise)[0]


def to_float(x):
    """An mpf as the nearest Python float, the float range's limits explicit."""
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
# worst case over responses (Mathematics page, eq. 4.1) -- the dense definition
# --------------------------------------------------------------------------

def world_risks(values, *, scale, counts=None, prior=None, worlds=None):
    """{entry j: max_R P(w_j | R)} at one scale, over the entries of positive weight."""
    with mp.workdps(DPS):
        f, c, p = as_arrays(values, counts, prior)
        s = _check_scale(scale)
        groups = merged_groups(f, c, p)
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


def worst_case_risk(values, *, scale, counts=None, prior=None, worlds=None, tie_rtol=1e-40):
    """(rho*, every entry within ``tie_rtol`` of it) at one scale."""
    with mp.workdps(DPS):
        r = world_risks(values, scale=scale, counts=counts, prior=prior, worlds=worlds)
        if not r:
            raise ValueError("no world has positive weight")
        best = max(r.values())
        arg = sorted(j for j, v in r.items() if v >= best * (1 - mpf(tie_rtol)))
        return best, arg


def tight_scale(values, *, rho, counts=None, prior=None, iterations=250):
    """The smallest scale with rho*(scale) <= rho, by plain bisection (mpf)."""
    with mp.workdps(DPS):
        r = mpf_of(rho)
        if r >= worst_case_risk(values, scale=0.0, counts=counts, prior=prior)[0]:
            return mpf(0)
        if r <= worst_case_risk(values, scale=np.inf, counts=counts, prior=prior)[0]:
            return mpf("inf")

        def risk(lam):  # dense, at an mpf scale
            f, c, p = as_arrays(values, counts, prior)
            groups = merged_groups(f, c, p)
            best = mpf(0)
            for fj, _cj, pj in groups:
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
# closed forms (Mathematics page, section 3), scalar, mpf
# --------------------------------------------------------------------------

def min_rho(m):
    """The smallest attainable risk, 1/m, at ``DPS`` digits."""
    with mp.workdps(DPS):
        return 1 / mpf_of(m)


def effective_worlds(prior, *, counts=None):
    """The effective number of worlds, ``sum_k c_k pi_k / max pi_k`` (an mpf)."""
    with mp.workdps(DPS):
        p = np.asarray(prior, dtype=np.float64).ravel()
        c = np.ones_like(p) if counts is None else np.asarray(counts, dtype=np.float64).ravel()
        keep = c * p > 0
        return mp.fsum(mpf(a) * mpf(b) for a, b in zip(c[keep].tolist(), p[keep].tolist(), strict=False)) / mpf(
            float(p[keep].max()))


def epsilon_for_rho(rho, *, m):
    """The paper's epsilon, ``ln((m - 1) rho / (1 - rho))`` (an mpf)."""
    with mp.workdps(DPS):
        r, M = mpf_of(rho), mpf_of(m)
        if r >= 1:
            return mpf("inf")
        if r <= 1 / M:
            return mpf(0)
        return mp.log((M - 1) * r / (1 - r))


def rho_for_epsilon(epsilon, *, m):
    """The paper's risk bound, ``1 / (1 + (m - 1) e^-eps)`` (an mpf)."""
    with mp.workdps(DPS):
        e, M = mpf_of(epsilon), mpf_of(m)
        if e == mpf("inf"):
            return mpf(1)
        return 1 / (1 + (M - 1) * mp.exp(-e))


def scale_for_rho(rho, *, m, sensitive_range):
    """The paper's Laplace scale for a risk bound, ``S / epsilon_for_rho``."""
    with mp.workdps(DPS):
        r, M, S = mpf_of(rho), mpf_of(m), mpf_of(sensitive_range)
        if S == 0:
            return mpf(0) if r >= 1 / M else mpf("inf")
        if r >= 1:
            return mpf(0)
        if r <= 1 / M:
            return mpf("inf")
        return S / mp.log((M - 1) * r / (1 - r))


def risk_bound(scale, *, m, sensitive_range):
    """The paper's risk bound at a scale, ``1 / (1 + (m - 1) e^(-S / scale))``."""
    with mp.workdps(DPS):
        lam, M, S = mpf_of(scale), mpf_of(m), mpf_of(sensitive_range)
        if lam == mpf("inf"):
            return 1 / M
        if lam == 0:
            return mpf(1) if S > 0 else 1 / M
        return 1 / (1 + (M - 1) * mp.exp(-S / lam))

