"""The (rho, delta) model of Gaussian identifiability: per world the responses
where its posterior exceeds rho (`Model`), and their delta (`deltas`).
"""

import math
from fractions import Fraction

import numpy as np
from scipy.special import erf, erfcx, ndtr

from .._kernels import gaussian
from .._kernels import lattice as _lattice
from .._kernels import sort as radix
from .._numerics import search as _search
from .._numerics import validate as _validate
from .._numerics.floats import EPS
from .._numerics.grouping import group_sums, runs

_LN2 = math.log(2.0)
_SQRT1_2 = math.sqrt(0.5)
Z = 40.0  # Phi(-40) < 4e-350: the responses beyond +-40 sigma are negligible


class Model:
    """The world set as the Gaussian kernels use it (sorted distinct values, weights, moments)."""

    def __init__(self, ws, counts, prior):
        n = ws.n
        f = ws.f
        self.f = f
        self.plain = counts is None and prior is None
        if self.plain:  # every weight 1: the groups are the duplicates, counted exactly
            self.c = self.p = np.ones(n)
            self.live = np.ones(n, bool)
            self.pshift = 1  # scaled priors 1/2
            fs, W, _ = ws.groups()
            self.fs = np.ascontiguousarray(fs)
            self.Gh = 0.5 * W
            self.Gl = np.zeros(W.size)
            self.order = self.starts = None  # made on demand
            size = W
            self.exact = bool(0.5 * n < 2.0**52)
        else:
            c = np.ones(n) if counts is None else np.ascontiguousarray(_validate.as_float("counts", counts))
            p = np.ones(n) if prior is None else np.ascontiguousarray(_validate.as_float("prior", prior))
            self.c, self.p = c, p
            self.live = (c > 0) & (p > 0)
            idx = np.flatnonzero(self.live)
            # the priors scaled by a power of two (exactly) so that the
            # largest total is below 2^1021 and no weight underflows
            with np.errstate(over="ignore"):
                total = c[idx].sum()
            if not total < 2.0**1019:
                raise ValueError(f"counts too large: their total must be below 2^1019 (about 5.6e306), got {total!r}")
            big = int(np.frexp(total)[1]) + 2
            # the largest prior scaled into [1/2, 1), unless the smallest
            # would underflow: then as far up as the total allows
            top = int(np.frexp(p[idx].max())[1])
            low = int(np.frexp(p[idx].min())[1])
            self.pshift = max(top - 1021 + big, min(top, low + 1021))
            ps = np.ldexp(p, -self.pshift)
            if ps[idx].min() < 2.0**-1022:
                raise ValueError("prior: the positive priors must lie within a factor 2^1990 of each other "
                                 f"(got {p[idx].min()!r} and {p[idx].max()!r})")
            order = idx[radix.argsort(np.ascontiguousarray(f[idx]))] if idx.size < n else radix.argsort(f)
            vs = np.ascontiguousarray(f[order])
            self.fs, first = runs(vs)
            self.starts = first
            self.order = order
            u = self.fs.size
            self.Gh, self.Gl = np.empty(u), np.empty(u)
            cs, pss = np.ascontiguousarray(c[order]), np.ascontiguousarray(ps[order])
            group_sums(cs, pss, self.starts, order.size, self.Gh, self.Gl)
            size = np.diff(np.r_[self.starts, order.size])
            # the sums are exact when every count x prior is a multiple of
            # 1/2 and the total is below 2^52
            q = 2.0 * cs * pss
            self.exact = bool(np.all(q == np.floor(q)) and q.sum() < 2.0**52)
        Gh, Gl = self.Gh, self.Gl
        u = self.fs.size
        self.u = u
        # E is exact as a double-double when the sums are and every prior is 1
        self.exact_e = self.exact and prior is None
        if self.exact:
            self.errG = np.zeros(u)
        else:
            # the dd additions, and products or scaled priors lost to underflow
            tiny = np.add.reduceat(np.where(cs * pss < 2.0**-960, cs + 1.0, 0.0), first)
            self.errG = (size + 4.0) * 2.0**-104 * Gh + tiny * 2.0**-1073
        self.G = Gh + Gl
        self.lG = np.log(Gh) + Gl / Gh
        self.lg_max = float(self.lG.max())
        # the moments in units of 2^-a: the largest |value| near 2^500 (less
        # for a huge total weight), so that neither products with weights
        # overflow nor differences of tiny values underflow
        top = int(np.frexp(max(abs(self.fs[0]), abs(self.fs[-1])))[1])
        self.a = min(500 - top, 990 - top - int(np.frexp(Gh.sum())[1]), 1000)
        self.vscale = math.ldexp(1.0, self.a)
        self.c0 = self.vscale * self.fs[u // 2]
        th, tl, fh, fl, fa = gaussian.moments(self.fs, Gh, Gl, self.c0, self.vscale)
        self.Th, self.Tl, self.Fh, self.Fl, self.Fa = th, tl, fh, fl, fa
        self.errT = float(self.errG.sum() + (u + 4.0) * 2.0**-104 * th) if not self.exact else 0.0
        self.maxdev = float(max(abs(self.vscale * self.fs[0] - self.c0), abs(self.vscale * self.fs[-1] - self.c0)))

    def _sorted(self):
        """The value order of the live worlds and the first of each group (made on demand)."""
        if self.order is None:
            self.order = radix.argsort(self.f)
            self.starts = runs(self.f[self.order])[1]
        return self.order, self.starts

    def group_of(self, world):
        """The group of each (live) world."""
        return np.searchsorted(self.fs, self.f[world])

    # -- exact comparisons ------------------------------------------------

    def _fraction_sign(self, rho, j, group):
        """sign(rho sum c_k p_k - p_j) in exact rational arithmetic."""
        order, starts = self._sorted()
        ks = order if group is None else order[starts[group]:(starts[group + 1] if group + 1 < self.u else order.size)]
        tot = sum((Fraction(float(self.c[k])) * Fraction(float(self.p[k])) for k in ks), Fraction(0))
        v = Fraction(float(rho)) * tot - Fraction(float(self.p[j]))
        return (v > 0) - (v < 0)

    def signs(self, rho, world, own):
        """sign(rho W - 1) exactly, W the total (own False) or own group's weight."""
        rho = np.asarray(rho, float)
        world = np.asarray(world, np.int64)
        eh, el, err = self.excess(rho, world, own)
        with np.errstate(invalid="ignore"):
            E = np.where(np.isfinite(eh), eh + el, eh)  # beyond the float range: its sign is certain
            sg = np.where(E > 0, 1, np.where(E < 0, -1, 0))
            sure = (np.abs(E) > err) | np.isinf(E) | self.exact_e
        unsure = np.flatnonzero(~sure)
        for i in unsure:
            sg[i] = self._fraction_sign(rho[i], world[i], self.group_of(world[i]) if own else None)
        return sg

    def excess(self, rho, world, own):
        """(hi, lo, error bound) of E = rho W / p_j - 1, a double-double."""
        m, e = np.frexp(self.p[world])
        k = (self.pshift - e).astype(np.int64)
        if own:
            g = self.group_of(world)
            th, tl, errw = self.Gh[g], self.Gl[g], self.errG[g]
        else:
            th = np.full(world.shape, self.Th)
            tl = np.full(world.shape, self.Tl)
            errw = np.full(world.shape, self.errT)
        eh, el = np.empty(world.shape), np.empty(world.shape)
        gaussian.excess_many(np.ascontiguousarray(rho), np.ascontiguousarray(m), np.ascontiguousarray(k),
                      np.ascontiguousarray(th), np.ascontiguousarray(tl), eh, el)
        with np.errstate(over="ignore", invalid="ignore"):
            st = np.ldexp(rho / m, k)
            err = st * errw + (0.0 if self.exact_e else 8.0 * 2.0**-104) * (1.0 + np.abs(eh))
        return eh, el, err


    # -- per-target parameters ----------------------------------------------

    def exact_excess(self, rho, j):
        """E = rho T / p_j - 1 in rational arithmetic, as a double-double."""
        order, _ = self._sorted()
        tot = sum((Fraction(float(self.c[k])) * Fraction(float(self.p[k])) for k in order), Fraction(0))
        e = Fraction(float(rho)) * tot / Fraction(float(self.p[j])) - 1
        if abs(e) >= 2**1023:
            return (math.inf if e > 0 else -math.inf), 0.0
        hi = float(e)
        return hi, float(e - Fraction(hi))

    def params(self, world, rho, sigma):
        """The kernels' parameter table for targets (world, rho, sigma)."""
        n = world.size
        par = np.zeros((n, gaussian.NPAR))
        fj = self.f[world]
        g = self.group_of(world)
        mj, ej = np.frexp(self.p[world])
        kst = self.pshift - ej  # st = (rho / mj) 2^kst
        rm = rho / mj
        eh, el, eerr = self.excess(rho, world, own=False)
        if not self.exact_e:  # E undecided by its bound: exactly (rare)
            for i in np.flatnonzero(~((np.abs(eh) > eerr) | np.isinf(eh))):
                eh[i], el[i] = self.exact_excess(rho[i], world[i])
                eerr[i] = 2.0**-104 * abs(eh[i])
        sm, se = np.frexp(sigma)
        # the largest |d_g|, by its exponent: 2^-300 and below is the far regime
        with np.errstate(over="ignore"):
            wide = np.maximum(np.abs(fj - self.fs[0]), np.abs(self.fs[-1] - fj))
            half = np.maximum(np.abs(0.5 * fj - 0.5 * self.fs[0]), np.abs(0.5 * self.fs[-1] - 0.5 * fj))
        finite = np.isfinite(wide)
        de = np.where(finite, np.frexp(np.where(finite, wide, 1.0))[1], np.frexp(half)[1] + 1) - se
        ksc = np.where(de < -300, -de, 0)
        # D1 = st K / sigma, K = sum_g G_g (f_j - f_g) from the centred
        # moments in units of 2^-a, exact to about 2^-100 of its terms
        x = fj * self.vscale
        a_h = x - self.c0
        bb = a_h - x
        a_l = (x - (a_h - bb)) - (self.c0 + bb)
        kk = np.empty(n)
        gaussian.first_moments(a_h, a_l, self.Th, self.Tl, self.Fh, self.Fl, kk)
        err_k = 2.0**-100 * (np.abs(a_h) * self.Th + self.Fa) + self.errT * (np.abs(a_h) + self.maxdev)
        km, ke = np.frexp(kk)
        d1m, d1e = rm * km / sm, kst + ke - se - self.a
        qm, qe = np.frexp(err_k)
        d1em, d1ee = rm * qm / sm, kst + qe - se - self.a
        em = np.abs(eh) <= 0.5
        far = em & (ksc > 0) & (np.abs(eh) < 2.0**-100)
        # D2 = st sum_g G_g d_g^2 = (rho / mj) 2^(kst - 2 ksc) sum_g G_g (d_g 2^ksc)^2
        d2m = np.zeros(n)
        d2e = np.zeros(n, np.int64)
        cand = np.flatnonzero(em)
        if cand.size:
            raw = np.empty(cand.size)
            gaussian.second_moments(self.fs, self.G, np.ascontiguousarray(fj[cand]), np.ascontiguousarray(sigma[cand]),
                             ksc[cand].astype(np.float64), raw, np.empty(self.u))
            rmm, rme = np.frexp(raw)
            d2m[cand] = rm[cand] * rmm
            d2e[cand] = kst[cand] + rme - 2 * ksc[cand]
        # output units: 2^s with the largest of |E|, 40 |D1|, D2 near 1
        s = np.zeros(n, np.int64)
        if far.any():
            top = np.maximum(np.maximum(np.where(eh != 0.0, np.frexp(eh)[1], -10**6),
                                        np.where(d1m != 0.0, d1e + 6 + np.frexp(d1m)[1], -10**6)),
                             d2e + np.frexp(d2m)[1])
            s = np.where(far, -top, 0)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
            par[:, gaussian.FJ] = fj
            par[:, gaussian.SIG] = sigma
            # L0 = log(rho G_j / p_j): log1p of the own group's excess (a
            # double-double) near 0, else from mantissas and exponents
            oh, ol, _ = self.excess(rho, world, own=True)
            gm, ge = np.frexp(self.G[g])
            par[:, gaussian.LS] = np.where(np.abs(oh) <= 0.5, np.log1p(oh + ol),
                                    np.log(rm * gm) + (kst + ge) * _LN2)
            par[:, gaussian.STS] = np.ldexp(rm, kst + s - 2 * ksc)
            par[:, gaussian.EH] = np.ldexp(eh, s)
            par[:, gaussian.EL] = np.ldexp(el, s)
            par[:, gaussian.EERR] = np.ldexp(eerr, s)
            d1 = np.ldexp(d1m, d1e + s)
            par[:, gaussian.D1] = d1
            # (a bound beyond the float range only makes the upper bound on
            # delta trivial: kept finite, so that z = 0 still multiplies it to 0)
            par[:, gaussian.D1ERR] = np.minimum(np.ldexp(d1em, d1ee + s) + 4.0 * EPS * np.abs(d1), 1e300)
            par[:, gaussian.D2] = np.ldexp(d2m, d2e + s)
            par[:, gaussian.LGOWN] = self.lG[g]
            par[:, gaussian.KSC] = ksc
            par[:, gaussian.FAR] = far
            ok = np.isfinite(par[:, gaussian.STS]) & np.isfinite(d1) & np.isfinite(par[:, gaussian.D2])
            par[:, gaussian.EM] = em & ok
            par[:, gaussian.FAR] = far & ok
        return par


class Eval:
    """h (minus its error bound for an upper bound on delta) and h' at trial points."""

    def __init__(self, model, par, upper):
        self.m, self.par, self.upper = model, par, upper
        u = model.u
        self.work = (np.empty(u), np.empty(u), np.empty(u))
        self.calls = 0

    def __call__(self, idx, z):
        idx = np.ascontiguousarray(idx, dtype=np.int64)
        z = np.ascontiguousarray(z, dtype=np.float64)
        h, dh, tau = np.empty(z.size), np.empty(z.size), np.empty(z.size)
        m = self.m
        gaussian.evaluate(m.fs, m.G, m.lG, m.lg_max, self.par, idx, z, h, dh, tau, *self.work)
        self.calls += 1
        return (h - tau if self.upper else h), dh


def phi_lower(x):
    """Phi(x) for x <= 0 (or -inf) to a few ulps."""
    x = np.asarray(x, dtype=np.float64)
    xf = np.where(np.isfinite(x), x, 0.0)
    hi = xf * xf
    c = 134217729.0 * xf  # Veltkamp split: xh + xl = x, halves of 26 bits
    xh = c - (c - xf)
    xl = xf - xh
    lo = ((xh * xh - hi) + 2.0 * xh * xl) + xl * xl
    with np.errstate(under="ignore"):
        tail = 0.5 * erfcx(-xf * _SQRT1_2) * np.exp(-0.5 * hi) * (1.0 - 0.5 * lo)
    return np.where(x > -1.0, ndtr(x), np.where(np.isfinite(x), tail, 0.0))


def mass(a, b, upper):
    """P(a < Z < b) for a standard normal Z without cancellation (``upper``: a bound)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    low = b <= 0.0
    high = a >= 0.0
    mid = ~low & ~high
    p1 = np.zeros(a.shape)
    p2 = np.zeros(a.shape)
    p1[low], p2[low] = phi_lower(b[low]), phi_lower(a[low])
    p1[high], p2[high] = phi_lower(-a[high]), phi_lower(-b[high])
    out = p1 - p2
    err = 16.0 * EPS * (p1 + p2)
    if mid.any():
        am, bm = a[mid], b[mid]
        tails = phi_lower(am) + phi_lower(-bm)
        e1, e2 = 0.5 * erf(bm * _SQRT1_2), -0.5 * erf(am * _SQRT1_2)
        small = tails < 0.25
        out[mid] = np.where(small, 1.0 - tails, e1 + e2)
        err[mid] = np.where(small, 16.0 * EPS * tails, 16.0 * EPS * (e1 + e2))
    out = np.clip(out, 0.0, 1.0)
    if upper:
        out = np.minimum(out * (1.0 + 2.0 * EPS) + err, 1.0)
    return out


def lattice_mass(a, b, s, upper):
    """The discrete Gaussian mass of the lattice points k with k / s in [a, b]."""
    with np.errstate(invalid="ignore"):  # (inf * s)
        ta, tb = a * s, b * s
    if upper:
        ta = ta - 4.0 * EPS * np.abs(ta)
        tb = tb + 4.0 * EPS * np.abs(tb)
    ka = np.ascontiguousarray(np.ceil(ta))
    kb = np.ascontiguousarray(np.floor(tb))
    out = np.empty(ka.size)
    _lattice.interval_masses_scales(ka, kb, np.ascontiguousarray(s, dtype=np.float64), True, out)
    if upper:
        out = np.minimum(out * (1.0 + 2.0**-36), 1.0)
    return out


def deltas(model, world, rho, sigma, upper=False, g=None):
    """delta (``upper``: an upper bound) for each target (world, rho, sigma), and the status."""
    n = world.size
    out = np.zeros(n)
    status = np.zeros(n, np.int8)
    live = model.live[world] & (rho < 1.0)
    out[live & (rho == 0.0)] = 1.0
    act = np.flatnonzero(live & (rho > 0.0))
    if act.size == 0:
        return out, status
    if model.u == 1:  # one value: the posterior is the constant own share
        out[act] = (model.signs(rho[act], world[act], own=True) < 0).astype(float)
        return out, status
    par = model.params(world[act], rho[act], sigma[act])
    ev = Eval(model, par, upper)
    T = act.size
    ids = np.arange(T)
    h, dh = ev(np.tile(ids, 3), np.repeat([-Z, 0.0, Z], T))
    hl, h0, hr = h[:T], h[T:2 * T], h[2 * T:]
    dl, d0, dr = dh[:T], dh[T:2 * T], dh[2 * T:]
    a = np.where(hl < 0.0, -np.inf, np.nan)  # an end of [-40, 40] inside: the interval runs past it
    b = np.where(hr < 0.0, np.inf, np.nan)
    # a point inside, with h and h' there
    xin = np.full(T, np.nan)
    hin, din = np.full(T, np.nan), np.full(T, np.nan)
    for cond, x, hx, dx in ((hr < 0.0, Z, hr, dr), (hl < 0.0, -Z, hl, dl), (h0 < 0.0, 0.0, h0, d0)):
        xin[cond], hin[cond], din[cond] = x, hx[cond], dx[cond]
    # none found: a cutting-plane search for the minimum on the side where
    # h falls from z = 0
    look = np.flatnonzero(np.isnan(xin))
    narrow = np.zeros(T, bool)
    nl = np.zeros(T)
    nh = np.zeros(T)
    if look.size:
        left = d0[look] > 0.0
        lo = np.where(left, -Z, 0.0)
        hi = np.where(left, 0.0, Z)
        x, lo2, hi2, st = _search.convex_min(
            lambda i, z: ev(look[i], z), lo, hi,
            np.where(left, hl[look], h0[look]), np.where(left, dl[look], d0[look]),
            np.where(left, h0[look], hr[look]), np.where(left, d0[look], dr[look]))
        found = st == _search.CONVERGED
        if found.any():
            hx, dx = ev(look[found], x[found])
            xin[look[found]], hin[look[found]], din[look[found]] = x[found], hx, dx
        nar = st == _search.NARROW
        narrow[look[nar]] = True
        nl[look[nar]], nh[look[nar]] = lo2[nar], hi2[nar]
        status[act[look[st == _search.MAXITER]]] = _search.MAXITER
    # the ends: one batched search for every end inside [-40, 40]
    need_a = np.flatnonzero(np.isfinite(xin) & np.isnan(a))
    need_b = np.flatnonzero(np.isfinite(xin) & np.isnan(b))
    who = np.concatenate([need_a, need_b])
    if who.size:
        side_a = np.arange(who.size) < need_a.size
        x_out = np.where(side_a, -Z, Z)
        h_out = np.where(side_a, hl[who], hr[who])
        d_out = np.where(side_a, dl[who], dr[who])
        e_in, e_out, st = _search.convex_end(lambda i, z: ev(who[i], z), xin[who], x_out,
                                       hin[who], din[who], h_out, d_out)
        end = e_out if upper else e_in  # the float just outside: the upper bound covers the whole interval
        a[need_a] = end[side_a]
        b[need_b] = end[~side_a]
        status[act[who[st == _search.MAXITER]]] = _search.MAXITER
    has = np.isfinite(xin) | (np.isinf(a) & np.isinf(b))
    res = np.zeros(T)
    ah, bh = np.where(np.isnan(a[has]), -np.inf, a[has]), np.where(np.isnan(b[has]), np.inf, b[has])
    if g is None:
        res[has] = mass(ah, bh, upper)
    else:
        res[has] = lattice_mass(ah, bh, sigma[act][has] / g, upper)
    if upper and narrow.any():  # a negative part, if any, between two adjacent floats
        res[narrow] = (mass(nl[narrow], nh[narrow], True) if g is None
                       else lattice_mass(nl[narrow], nh[narrow], sigma[act][narrow] / g, True))
    out[act] = res
    return out, status
