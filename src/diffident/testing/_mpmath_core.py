"""The 60-digit mpmath reference of the engine core (Mathematics page, sections 2-5).

Input handling shared with :mod:`diffident.testing._mpmath_beyond`, the
posterior quantities, the dense worst case over responses, the tight scale
by bisection and the closed forms.  Import it through
:mod:`diffident.testing.mpmath_reference`, which documents the conventions.
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
    """Merge entries with equal (value, prior) and drop zero-weight entries.

    Returns a list of (mpf value, mpf count, mpf prior), all exact.
    """
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
    """Merge entries with equal (value, prior) into one entry each (float64).

    Returns (values_u, counts_u, prior_u, inverse) with values[i] ==
    values_u[inverse[i]] and prior[i] == prior_u[inverse[i]]; counts_u sums
    the counts of each group.  Every risk quantity of entry i equals that of
    entry inverse[i] of the merged problem, so this is exact.  Integer counts
    only (their float64 sums are then exact).
    """
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
    """E_k - E_r, the energy of world value fk minus that of fr at response R.

    The distances are differenced exactly before the one rounding of the
    division: R may lie 1e300 away from worlds whose values differ by 1, or
    energies may exceed 1e600 while their differences are O(1), and a
    difference of two rounded energies would lose everything.
      Laplace:  (|R - fk| - |R - fr|) / S
      Gaussian: ((R - fk)^2 - (R - fr)^2) / (2 S^2) = (fr - fk)(2R - fr - fk) / (2 S^2)
    """
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
    """log sum_k c_k pi_k exp(-(E_k - E_r)) (fr the nearest value: every
    exponent <= 0).
    """
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
    """The log-evidence ``log sum_k c_k pi_k L_k(R)`` at ``DPS`` digits.

    ``values``, ``counts`` and ``prior`` are 1-d arrays of one length (None:
    all ones); ``response`` and ``scale`` are scalars (scale 0 and inf give
    the limits); ``noise`` is ``"laplace"`` or ``"gaussian"``.  Returns an
    mpf (``-inf`` where no world has positive likelihood).
    """
    with mp.workdps(DPS):
        gauss = _gauss(noise)
        f, c, p = as_arrays(values, counts, prior)
        s = _check_scale(scale)
        return _log_evidence_merged(merged_groups(f, c, p), mpf_of(response), s, gauss)


def log_posterior(values, *, response, scale, counts=None, prior=None, worlds=None, noise="laplace"):
    """The log posterior of one world of each entry, at ``DPS`` digits.

    Entry j of the returned list of mpf is
    log(pi_j L_j(R) / sum_k c_k pi_k L_k(R)); -inf where pi_j = 0
    (or, for scale = 0, where f_j != R).  ``worlds``: optional iterable of
    entry indices to compute (default: all), in that order.  Computed from
    exact energy differences (see :func:`_energy_gap`), so it stays right
    when the energies themselves are astronomically large.
    """
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
    """The posterior of one world of each entry (``exp`` of `log_posterior`).

    Same arguments as `log_posterior`; returns a list of mpf, one per entry
    of ``worlds`` (default: every entry).
    """
    with mp.workdps(DPS):
        return [mp.exp(a) for a in log_posterior(values, response=response, scale=scale, counts=counts, prior=prior,
                                                 worlds=worlds, noise=noise)]


def disclosure_risk(values, *, response, scale, world=0, counts=None, prior=None, noise="laplace"):
    """The posterior of one world of entry ``world`` at one response.

    Same conventions as `posterior`; ``world`` is an entry index.  Returns
    an mpf.
    """
    with mp.workdps(DPS):
        return posterior(values, response=response, scale=scale, counts=counts, prior=prior, worlds=[world],
                         noise=noise)[0]


def to_float(x):
    """An mpf as the nearest float64, the float range's limits explicit.

    Exponents beyond the float range map to +-inf or +-0 (``float(mpf)``
    raises nothing but is slow to decide for exponents like 10**40); NaN
    stays NaN.  Returns a Python float.
    """
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
    """Each world's largest posterior over responses, at one scale.

    max_R P(w_j | R) = pi_j / sum_k c_k pi_k exp(-|f_j - f_k| / scale).
    Returns a dict {entry index j: mpf} over the entries j with c_j pi_j > 0
    (restricted to ``worlds`` if given).  scale = 0 and scale = inf give the
    limits pi_j / sum_{f_k = f_j} c_k pi_k and pi_j / sum_k c_k pi_k.
    """
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
    """The worst-case risk and every world attaining it, at one scale.

    Returns (rho*, argmax) for a scalar ``scale``: rho* is the maximum over
    the entries j with c_j pi_j > 0 of `world_risks` (an mpf); argmax is
    the sorted list of every entry index whose risk is within relative
    ``tie_rtol`` of the maximum (mathematically tied worlds).  With
    ``worlds`` the maximum is taken over that subset only.
    """
    with mp.workdps(DPS):
        r = world_risks(values, scale=scale, counts=counts, prior=prior, worlds=worlds)
        if not r:
            raise ValueError("no world has positive weight")
        best = max(r.values())
        arg = sorted(j for j, v in r.items() if v >= best * (1 - mpf(tie_rtol)))
        return best, arg


def tight_scale(values, *, rho, counts=None, prior=None, iterations=250):
    """The smallest scale with rho*(scale) <= rho, by plain bisection (mpf).

    Slow (every step is a dense evaluation); meant for small world sets.
    rho >= rho*(0) -> 0; rho <= rho*(inf) -> inf.
    """
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
    """The smallest attainable risk, 1/m, at ``DPS`` digits.

    ``m`` is the number of possible worlds (a scalar); returns an mpf.
    """
    with mp.workdps(DPS):
        return 1 / mpf_of(m)


def effective_worlds(prior, *, counts=None):
    """The effective number of worlds, ``sum_k c_k pi_k / max pi_k``.

    Over the entries of positive weight c_k pi_k (``counts`` None: all
    ones), summed at ``DPS`` digits.  Returns an mpf.
    """
    with mp.workdps(DPS):
        p = np.asarray(prior, dtype=np.float64).ravel()
        c = np.ones_like(p) if counts is None else np.asarray(counts, dtype=np.float64).ravel()
        keep = c * p > 0
        return mp.fsum(mpf(a) * mpf(b) for a, b in zip(c[keep].tolist(), p[keep].tolist(), strict=False)) / mpf(
            float(p[keep].max()))


def epsilon_for_rho(rho, *, m):
    """The paper's epsilon for a risk bound, ``ln((m - 1) rho / (1 - rho))``.

    Scalars ``rho`` and ``m``; rho >= 1 gives inf and rho <= 1/m gives 0.
    Returns an mpf.
    """
    with mp.workdps(DPS):
        r, M = mpf_of(rho), mpf_of(m)
        if r >= 1:
            return mpf("inf")
        if r <= 1 / M:
            return mpf(0)
        return mp.log((M - 1) * r / (1 - r))


def rho_for_epsilon(epsilon, *, m):
    """The paper's risk bound for an epsilon, ``1 / (1 + (m - 1) e^-eps)``.

    Scalars ``epsilon`` and ``m``; epsilon = inf gives 1.  Returns an mpf.
    """
    with mp.workdps(DPS):
        e, M = mpf_of(epsilon), mpf_of(m)
        if e == mpf("inf"):
            return mpf(1)
        return 1 / (1 + (M - 1) * mp.exp(-e))


def scale_for_rho(rho, *, m, sensitive_range):
    """The paper's Laplace scale for a risk bound, ``S / epsilon_for_rho``.

    Scalars ``rho``, ``m`` and ``sensitive_range`` S; rho >= 1 gives 0,
    rho <= 1/m gives inf, and S = 0 gives 0 (rho >= 1/m) or inf.  Returns
    an mpf.
    """
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
    """The paper's risk bound at a scale, ``1 / (1 + (m - 1) e^(-S / scale))``.

    Scalars ``scale``, ``m`` and ``sensitive_range`` S; scale 0 gives 1
    (S > 0) and scale inf gives 1/m.  Returns an mpf.
    """
    with mp.workdps(DPS):
        lam, M, S = mpf_of(scale), mpf_of(m), mpf_of(sensitive_range)
        if lam == mpf("inf"):
            return 1 / M
        if lam == 0:
            return mpf(1) if S > 0 else 1 / M
        return 1 / (1 + (M - 1) * mp.exp(-S / lam))

