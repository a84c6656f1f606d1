"""Kernels for Gaussian (rho, delta)-identifiability (Mathematics page, section 7)."""

import math

import numpy as np

from ._jit import kernel
from ._math import exp, fma, sum8, two_diff
from .dd import add, fast_two_sum, two_prod, two_sum

EPS = 2.220446049250313e-16
_C_CUT = 760.0  # exp(-745) is below the smallest subnormal relative to 1

# columns of the per-target parameter table.  EH, EL, EERR, D1, D1ERR, D2
# and STS (= r_g / G_g) are in output units: multiplied by 2^s, s = 0 but
# in the far regime (FAR: every |d_g| below 2^-300 and |E| below 2^-100),
# where the d_g are scaled by 2^KSC and h is returned times 2^s.
FJ, SIG, LS, STS, EH, EL, EERR, D1, D1ERR, D2, LGOWN, EM, FAR, KSC = range(14)
NPAR = 14

# 1/n! for n = 2..20: phi(x) = y^2 sum_n y^(n-2) / n!, y = -x, |y| <= 1
_PHI = (0.5, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040, 1.0 / 40320, 1.0 / 362880,
        1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600, 1.0 / 6227020800, 1.0 / 87178291200,
        1.0 / 1307674368000, 1.0 / 20922789888000, 1.0 / 355687428096000,
        1.0 / 6402373705728000, 1.0 / 121645100408832000, 1.0 / 2432902008176640000)


@kernel
def _phi_p(x):
    """(exp(-x) - 1 + x) / x^2 for |x| <= 1: the series of y = -x from its
    y^2 term divided by y^2 (its terms from y^21 on are below 3e-20 of the
    sum), in [0.36, 0.72]: no cancellation.
    """
    y = -x
    p = _PHI[18]
    for i in range(17, -1, -1):
        p = fma(p, y, _PHI[i])
    return p


@kernel
def phi(x):
    """exp(-x) - 1 + x for |x| <= 1, to a few ulps."""
    return (x * x) * _phi_p(x)


@kernel
def _limit_branch(par, t, zi, n, srho, sd, serr, out_h, out_dh, out_tau, i, log):
    """h, h' and tau from the sums of the limit's expansion (module
    docstring): rho S - 1 = E - z D1 - D2 / 2 + STS sum_g G_g phi(x_g), in
    output units; h is its log1p, or itself (``log`` False: far regime,
    where it is below 2^-100 before scaling).
    """
    sts = par[t, STS]
    zd1 = zi * par[t, D1]
    d2 = par[t, D2]
    uu = (((par[t, EH] - zd1) - 0.5 * d2) + sts * srho) + par[t, EL]
    du = sts * sd - par[t, D1]
    tau_u = 4.0 * EPS * (abs(par[t, EH]) + abs(zd1) + (n / 8.0 + 8.0) * (d2 + sts * srho)
                         + 16.0 * sts * serr + abs(uu)) + par[t, EERR] + abs(zi) * par[t, D1ERR]
    if log:
        h = math.log1p(uu)
        out_h[i] = h
        out_dh[i] = du / (1.0 + uu)
        out_tau[i] = tau_u / (1.0 + uu) + 2.0 * EPS * abs(h)
    else:
        out_h[i] = uu
        out_dh[i] = du
        out_tau[i] = tau_u + abs(uu) * 2.0**-90  # log1p(u) - u, u < 2^-100


@kernel
def _ds(fs, lo, hi, f0, s, db):
    """d_g = (f0 - f_g) / s for g in [lo, hi) into db[:hi - lo]; a
    difference that overflows is halved first (exactly, for such values).
    """
    for k in range(hi - lo):
        fk = fs[lo + k]
        diff = f0 - fk
        d = diff / s
        d2 = 2.0 * ((0.5 * f0 - 0.5 * fk) / s)
        db[k] = d if abs(diff) < np.inf else d2


@kernel
def _pow2(k):
    """2^k for 0 <= k <= 2100 as three factors, each finite."""
    k1 = k // 3
    k2 = (k - k1) // 2
    return math.ldexp(1.0, k1), math.ldexp(1.0, k2), math.ldexp(1.0, k - k1 - k2)


@kernel
def _ds_scaled(fs, f0, s, k, db):
    """d_g 2^k for every group (far regime: the differences are far below
    sigma, so neither the scaling nor the difference overflows).
    """
    a, b, c = _pow2(k)
    for g in range(fs.size):
        db[g] = ((((f0 - fs[g]) * a) * b) * c) / s


@kernel
def moments(fs, Gh, Gl, c, scale):
    """Double-double (T, F) = (sum G_g, sum G_g (scale f_g - c)) and
    sum G_g |scale f_g - c|, with ``scale`` 1 or 1/2 (values near the
    overflow threshold) so that every difference is finite and exact as a
    pair.
    """
    th = 0.0
    tl = 0.0
    fh = 0.0
    fl = 0.0
    fa = 0.0
    for g in range(fs.size):
        th, tl = add(th, tl, Gh[g], Gl[g])
        s, e = two_diff(scale * fs[g], c)
        ph, pl = two_prod(Gh[g], s)
        pl += Gh[g] * e + Gl[g] * s
        fh, fl = add(fh, fl, ph, pl)
        fa += Gh[g] * abs(s)
    return th, tl, fh, fl, fa


@kernel
def _dd_div_scale(nh, nl, m, k):
    """(nh + nl) / m * 2^k as a double-double (m in [0.5, 1))."""
    q1 = nh / m
    ph, pl = two_prod(q1, m)
    q2 = (((nh - ph) - pl) + nl) / m
    return math.ldexp(q1, k), math.ldexp(q2, k)


@kernel
def excess(rho, m, k, th, tl):
    """rho (th + tl) / (m 2^-k) - 1 as a double-double (E of the module
    docstring for the total weight, or the own group's analogue).
    """
    nh, nl = two_prod(rho, th)
    nl = fma(rho, tl, nl)
    nh, nl = fast_two_sum(nh, nl)
    qh, ql = _dd_div_scale(nh, nl, m, k)
    eh, el = two_sum(qh, -1.0)
    return fast_two_sum(eh, el + ql)


@kernel
def excess_many(rho, m, k, th, tl, eh, el):
    for i in range(rho.size):
        eh[i], el[i] = excess(rho[i], m[i], k[i], th[i], tl[i])


@kernel
def centred_d1(a_h, a_l, th, tl, fh, fl):
    """K = (a_h + a_l) T - F, double-double: sum_g G_g (f_j - f_g) in the
    scaled, centred units of :func:`moments` (a = scale f_j - c, exact as a
    pair).
    """
    ph, pl = two_prod(a_h, th)
    pl += a_h * tl + a_l * th
    kh, kl = add(ph, pl, -fh, -fl)
    return kh + kl


@kernel
def second_moments(fs, G, f0, sig, ksc, out, db):
    """sum_g G_g (d_g 2^k)^2 for each target (f0, sigma, k): D2 / (st 2^2k)."""
    u = fs.size
    for i in range(f0.size):
        if ksc[i] > 0:
            _ds_scaled(fs, f0[i], sig[i], int(ksc[i]), db)
        else:
            _ds(fs, 0, u, f0[i], sig[i], db)
        for g in range(u):
            db[g] = G[g] * (db[g] * db[g])
        out[i] = sum8(db[:u])


@kernel
def evaluate(fs, G, lG, lg_max, par, tgt, z, out_h, out_dh, out_tau, xb, db, ab):
    """h(z), h'(z) and the error bound tau for each (tgt[i], z[i]); xb, db,
    ab are work arrays of length u.
    """
    u = fs.size
    for i in range(tgt.size):
        t = tgt[i]
        zi = z[i]
        f0 = par[t, FJ]
        s = par[t, SIG]
        # the window of groups with x_g <= C: (d + z)^2 <= z^2 + 2 C
        C = _C_CUT + (lg_max - par[t, LGOWN])
        az = abs(zi)
        if par[t, FAR] != 0.0:
            # every |x_g| is below 2^-250: the limit's expansion in scaled
            # units, h = (rho S - 1) 2^s (= log1p of it to 2^-100)
            k = int(par[t, KSC])
            lam = math.ldexp(1.0, -k)
            _ds_scaled(fs, f0, s, k, db)
            for g in range(u):
                dh_ = db[g]
                xh = dh_ * (zi + 0.5 * (lam * dh_))  # x_g 2^k
                xb[g] = xh
                ab[g] = G[g] * ((xh * xh) * _phi_p(lam * xh))
            srho = sum8(ab[:u])
            for g in range(u):
                xh = xb[g]
                ab[g] = G[g] * db[g] * (xh - lam * ((xh * xh) * _phi_p(lam * xh)))
            sd = sum8(ab[:u])
            for g in range(u):
                ab[g] = G[g] * abs(xb[g]) * abs(db[g]) * (az + 0.5 * abs(lam * db[g]))
            serr = sum8(ab[:u])
            _limit_branch(par, t, zi, u, srho, sd, serr, out_h, out_dh, out_tau, i, False)
            continue
        # the window of groups with x_g <= C: (d + z)^2 <= z^2 + 2 C (all of
        # them for a sigma so small that the window's ends would underflow)
        C = _C_CUT + (lg_max - par[t, LGOWN])
        r = math.sqrt(zi * zi + 2.0 * C) * (1.0 + 1e-9)
        if s > 1e-290:
            lo = np.searchsorted(fs, f0 + s * (zi - r), side="left")
            hi = np.searchsorted(fs, f0 + s * (zi + r), side="right")
        else:
            lo = 0
            hi = u
        n = hi - lo
        _ds(fs, lo, hi, f0, s, db)
        xmax = 0.0
        for k in range(n):
            x = db[k] * (zi + 0.5 * db[k])
            xb[k] = x
            xmax = max(xmax, abs(x))
        if lo == 0 and hi == u and par[t, EM] != 0.0 and xmax <= 1.0:
            # relative to the infinite-noise limit
            for k in range(n):
                ab[k] = G[k] * phi(xb[k])
            srho = sum8(ab[:n])
            for k in range(n):
                ab[k] = G[k] * db[k] * (xb[k] - phi(xb[k]))
            sd = sum8(ab[:n])
            for k in range(n):
                ab[k] = G[k] * abs(xb[k]) * abs(db[k]) * (az + 0.5 * abs(db[k]))
            serr = sum8(ab[:n])
            _limit_branch(par, t, zi, n, srho, sd, serr, out_h, out_dh, out_tau, i, True)
            continue
        # the shifted log-sum-exp over the window
        lgo = par[t, LGOWN]
        M = -np.inf
        top = 0
        for k in range(n):
            a = (lG[lo + k] - lgo) - xb[k]
            ab[k] = a
            if a > M:
                M = a
                top = k
        for k in range(n):
            ab[k] = exp(ab[k] - M)
        # the largest term is exactly 1: log S = log1p(the others), which
        # keeps a posterior within 1e-6 (say) of its own share exact
        ab[top] = 0.0
        rest = sum8(ab[:n])
        ab[top] = 1.0
        S = 1.0 + rest
        for k in range(n):
            w = ab[k]
            xb[k] = w * db[k] if w > 0.0 else 0.0
        S1 = sum8(xb[:n])
        # each term's error in units of eps, times the term: its exponent's
        # inputs (none for the own group: lG - lgo = 0 and d = 0 exactly),
        # its exp (none for the largest, exactly 1)
        for k in range(n):
            w = ab[k]
            ad = abs(db[k])
            e = 0.0 if fs[lo + k] == f0 else abs(lG[lo + k]) + abs(lgo)
            e += 8.0 * ad * (az + 0.5 * ad) + (0.0 if k == top else 2.0)
            xb[k] = w * e if w > 0.0 else 0.0
        Sx = sum8(xb[:n])
        ls = par[t, LS]
        lS = math.log1p(rest)
        ml = M + lS
        h = ml + ls
        out_h[i] = h
        out_dh[i] = -S1 / S
        out_tau[i] = 2.0 * EPS * (2.0 * Sx / S + (n / 8.0 + 4.0) * rest / S
                                  + abs(lS) + abs(ml) + abs(h) + 2.0 * abs(ls))


@kernel
def first_moments(a_h, a_l, th, tl, fh, fl, out):
    """:func:`centred_d1` for each target."""
    for i in range(a_h.size):
        out[i] = centred_d1(a_h[i], a_l[i], th, tl, fh, fl)
