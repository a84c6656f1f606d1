"""Batched searches over float64: the one place where calibrations search."""

import warnings

import numpy as np

__all__ = ["ConvergenceWarning"]

CONVERGED = 0
NOT_REACHED = 1  # no float up to the limit passes: the caller's documented value
MAXITER = -2  # out of steps (not expected): the end returned is still verified

_SIGN = np.int64(0x7FFFFFFFFFFFFFFF)
_STEPS = 64  # doublings (or halvings) that cross every float
_REFINE_STEPS = 400  # regula falsi passes: each third one at least halves the bracket's floats


class ConvergenceWarning(RuntimeWarning):
    """A calibration's search ran out of steps for some targets.

    Not expected in practice: the searches are bounded by the number of
    floats.  The values returned for those targets still satisfy the target
    (each was evaluated and passed); they may be less tight than the
    adjacent-float answer.

    Examples
    --------
    >>> import warnings, diffident as di
    >>> issubclass(di.ConvergenceWarning, RuntimeWarning)
    True
    """


def warn_unconverged(status, what):
    """Warn once when any entry of ``status`` is ``MAXITER``."""
    n = int(np.count_nonzero(np.asarray(status) == MAXITER))
    if n:
        warnings.warn(f"{what}: the search did not converge for {n} target(s); the values returned still "
                      "meet their targets but may be larger than needed", ConvergenceWarning, stacklevel=3)


def below(target, rel):
    """A target lowered by a relative error bound ``rel`` (and one ulp), so
    that an evaluation within ``rel`` of the exact value that meets it
    proves the exact value meets ``target``: ``exact <= computed (1 + rel)
    <= target``.
    """
    return np.nextafter(np.asarray(target, dtype=np.float64) * (1.0 - rel), 0.0)


# ------------------------------------------------------------------ keys --

def key(x):
    """Order-preserving int64 keys of floats (``-0.0`` and ``0.0`` both 0)."""
    b = np.asarray(x, dtype=np.float64).view(np.int64)
    return np.where(b < 0, -(b & _SIGN), b)


def unkey(k):
    """The floats of keys (key 0 gives ``0.0``)."""
    k = np.asarray(k, dtype=np.int64)
    b = np.where(k < 0, (-k) | ~_SIGN, k)
    return np.asarray(b).view(np.float64)


def _mid(a, b):
    """floor((a + b) / 2) for int64 arrays, without overflow."""
    return (a >> 1) + (b >> 1) + (a & b & 1)


def _gap(a, b):
    """b - a for int64 keys with b >= a, as uint64: keys span nearly 2**64
    (from -inf to inf), which an int64 difference cannot hold.
    """
    return b.astype(np.uint64) - a.astype(np.uint64)


def bisect(test, fail, ok, idx):
    """Bisect keys between ``fail`` (the test fails) and ``ok`` (it
    passes), int64 arrays of one shape, for the entries ``idx``
    (``test(idx, keys)``), until they are adjacent.  Updates ``fail`` and
    ``ok`` in place.
    """
    act = idx[_gap(fail[idx], ok[idx]) > 1]
    for _ in range(_STEPS + 2):  # every step halves the gap of every entry
        if act.size == 0:
            return
        m = _mid(fail[act], ok[act])
        res = np.asarray(test(act, m), dtype=bool)
        ok[act] = np.where(res, m, ok[act])
        fail[act] = np.where(res, fail[act], m)
        act = act[_gap(fail[act], ok[act]) > 1]


# -------------------------------------------------------------- boundary --

def boundary(passes, x0, *, increasing=True, lo=-np.inf, hi=np.inf):
    """The float at which ``passes`` switches, searched from ``x0``."""
    x0 = np.asarray(x0, dtype=np.float64).ravel()
    n = x0.size
    s = np.int64(1 if increasing else -1)
    # search keys in a flipped space where passing lies above failing
    k_lo, k_hi = sorted((int(s * key(lo)), int(s * key(hi))))
    k0 = np.clip(s * key(np.clip(x0, lo, hi)), k_lo, k_hi)
    idx = np.arange(n)
    good = np.asarray(passes(idx, unkey(s * k0)), dtype=bool)
    ok = np.where(good, k0, np.int64(k_hi))
    fail = np.where(good, np.int64(k_lo), k0)
    below = np.zeros(n, bool)  # the low limit itself passed
    above = np.zeros(n, bool)  # the high limit was tested and failed
    step = np.ones(n, np.int64)
    act = idx
    for _ in range(_STEPS):
        if act.size == 0:
            break
        g = good[act]
        # a step no longer than the way to the limit (no int64 overflow)
        s_ok = np.minimum(step[act].astype(np.uint64), _gap(np.full(act.size, k_lo), ok[act])).astype(np.int64)
        s_fail = np.minimum(step[act].astype(np.uint64), _gap(fail[act], np.full(act.size, k_hi))).astype(np.int64)
        cand = np.where(g, ok[act] - s_ok, fail[act] + s_fail)
        res = np.asarray(passes(act, unkey(s * cand)), dtype=bool)
        ok[act] = np.where(res, cand, ok[act])
        fail[act] = np.where(res, fail[act], cand)
        below[act] |= g & res & (cand == k_lo)
        above[act] |= ~g & ~res & (cand == k_hi)
        step[act] = np.minimum(2 * step[act], np.int64(1) << 62)
        cont = np.where(g, res & (cand > k_lo), ~res & (cand < k_hi))
        act = act[cont]
    status = np.where(above, NOT_REACHED, CONVERGED).astype(np.int8)
    status[act] = MAXITER  # not reached: 64 doublings cross every float
    run = np.flatnonzero(~below & ~above)
    fail[below] = ok[below] - 1  # nothing below the limit: done
    bisect(lambda i, k: passes(i, unkey(s * k)), fail, ok, run)
    return unkey(s * ok), status


# ------------------------------------------------------------------ grow --

def grow(evaluate, target, x, *, up, limit, f_x=None):
    """Move ``x`` geometrically until ``evaluate`` crosses ``target``."""
    x = np.asarray(x, dtype=np.float64).ravel().copy()
    n = x.size
    f_x = np.asarray(evaluate(np.arange(n), x) if f_x is None else f_x, dtype=np.float64).ravel().copy()
    near, f_near = x.copy(), f_x.copy()
    far, f_far = x.copy(), f_x.copy()
    status = np.zeros(n, np.int8)
    power = np.ones(n)  # log2 of the next factor
    crossed = (f_x <= target) if up else ~(f_x <= target)  # NaN fails
    act = np.flatnonzero(~crossed)
    for _ in range(_STEPS):
        if act.size == 0:
            break
        near[act], f_near[act] = far[act], f_far[act]
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            step = np.exp2(np.minimum(power[act], 2048.0))
            t = far[act] * step if up else far[act] / step
        t = np.where(np.isnan(t), limit, t)  # 0 * inf or inf / inf: the step reaches the limit
        t = np.minimum(t, limit) if up else np.maximum(t, limit)
        if not up and limit == 0.0:
            t = np.where(t > 0.0, t, 0.0)
        power[act] *= 2.0
        at_zero = t == 0.0
        f_t = np.full(act.size, np.inf)
        ev = np.flatnonzero(~at_zero)
        if ev.size:
            f_t[ev] = evaluate(act[ev], t[ev])
        far[act], f_far[act] = t, f_t
        hit = (f_t <= target[act]) if up else ~(f_t <= target[act])
        end = t == limit
        status[act[end & ~hit]] = NOT_REACHED
        act = act[~hit & ~end]
    status[act] = MAXITER
    return near, far, f_near, f_far, status


# ---------------------------------------------------------------- refine --

def refine(evaluate, target, lo, hi, f_lo, f_hi, *, rtol=0.0, floor=0.0):
    """The smallest x with f(x) <= target, for f non-increasing and positive."""
    lo, hi, f_lo, f_hi = (np.array(a, dtype=np.float64).ravel() for a in (lo, hi, f_lo, f_hi))
    target = np.asarray(target, dtype=np.float64).ravel()
    n = lo.size
    with np.errstate(divide="ignore", invalid="ignore"):
        log_t = np.log(target - floor)
        fl = np.log(f_lo - floor) - log_t  # > 0
        fh = np.log(f_hi - floor) - log_t  # <= 0
    side = np.zeros(n, np.int8)  # the end kept last: -1 lo, +1 hi
    stall = np.zeros(n, np.int8)
    kw = key(hi) - key(lo)  # floats in the bracket, at the last reset
    last = np.full(n, np.nan)
    status = np.zeros(n, np.int8)
    active = np.arange(n)
    for _ in range(_REFINE_STEPS):
        a = active
        l, h = lo[a], hi[a]
        with np.errstate(invalid="ignore", over="ignore"):  # (h inf: not done by rtol)
            done = (key(h) - key(l) <= 1) | (np.isfinite(h) & (h - l <= rtol * h))
        a = a[~done]
        if a.size == 0:
            active = a
            break
        l, h = lo[a], hi[a]
        kl, kh = key(l), key(h)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            xl, xh = np.log(l), np.log(h)
            z = xh - fh[a] * (xh - xl) / (fh[a] - fl[a])
            est = np.exp(z)
        # bisection of the bit patterns: a stalled bracket, an end at 0 or
        # inf (no logarithm), the last few dozen floats
        plain = (stall[a] >= 3) | ~np.isfinite(est) | ~(l > 0.0) | ~np.isfinite(h) | (kh - kl <= 64)
        est = np.where(plain, unkey(_mid(kl, kh)), np.minimum(np.maximum(est, l), h))
        # a narrow bracket, or an estimate hugging one end (regula falsi's
        # one-sided approach): probe both sides of the estimate
        # (near the top of the float range these overflow to inf: the probes
        # are clamped into the bracket below)
        with np.errstate(over="ignore", invalid="ignore"):
            hug = np.minimum(est - l, h - est) <= 1e-6 * (h - l)
            narrow = ~plain & ((h - l < 1e-6 * h) | hug)
            err = np.abs(est - last[a])
            err = np.where(np.isfinite(err), err, 1e-9 * est)
            err = np.maximum(2.0 * err, 4.0 * np.spacing(est))
            last[a] = est
            up = unkey(kh - 1)
            down = unkey(kl + 1)
            p1 = np.minimum(np.maximum(np.where(narrow, est - err, est), down), up)
            p2 = np.minimum(np.maximum(np.where(narrow, est + err, est), down), up)
        m = a.size
        both = np.flatnonzero(narrow)
        r = np.asarray(evaluate(np.concatenate([a, a[both]]), np.concatenate([p1, p2[both]])), dtype=np.float64)
        r1 = r[:m]
        r2 = np.full(m, np.inf)
        r2[both] = r[m:]
        ok1 = r1 <= target[a]
        ok2 = r2 <= target[a]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            g1 = np.log(r1 - floor) - log_t[a]
            g2 = np.log(r2 - floor) - log_t[a]
            # Anderson-Bjorck: an end kept twice in a row has its value scaled down
            m_h = 1.0 - g1 / fh[a]
            m_l = 1.0 - g1 / fl[a]
        # (an end value that rounded to 0 gives no finite factor: halve it)
        m_h = np.where(np.isfinite(m_h) & (m_h > 0), m_h, 0.5)
        m_l = np.where(np.isfinite(m_l) & (m_l > 0), m_l, 0.5)
        single = ~narrow
        fl[a] = np.where(single & ok1 & (side[a] == -1), fl[a] * m_h, fl[a])
        fh[a] = np.where(single & ~ok1 & (side[a] == 1), fh[a] * m_l, fh[a])
        # new ends: the lowest passing probe, the highest failing one below
        # it (p2 failing where p1 passed is rounding noise: ignore it)
        new_h = np.where(ok1, p1, np.where(ok2, p2, h))
        new_fh = np.where(ok1, g1, np.where(ok2, g2, fh[a]))
        p2_low = narrow & ~ok1 & ~ok2
        new_l = np.where(p2_low, p2, np.where(~ok1, p1, l))
        new_fl = np.where(p2_low, g2, np.where(~ok1, g1, fl[a]))
        hi[a], fh[a], lo[a], fl[a] = new_h, new_fh, new_l, new_fl
        f_hi[a] = np.where(ok1, r1, np.where(ok2, r2, f_hi[a]))
        side[a] = np.where(narrow, 0, np.where(ok1, -1, 1))
        new_kw = key(hi[a]) - key(lo[a])
        halved = new_kw <= kw[a] // 2
        reset = halved | plain
        stall[a] = np.where(reset, 0, stall[a] + 1)
        kw[a] = np.where(reset, new_kw, kw[a])
        active = a
    status[active] = MAXITER
    return lo, hi, status


def smallest(evaluate, target, lo, hi, *, rtol=0.0, lo_limit=0.0, hi_limit=np.inf, f_lo=None, f_hi=None):
    """The smallest x > 0 with ``f(x) <= target``, for f non-increasing."""
    target = np.asarray(target, dtype=np.float64).ravel()
    n = target.size
    lo = np.broadcast_to(np.asarray(lo, dtype=np.float64), (n,)).copy()
    hi = np.broadcast_to(np.asarray(hi, dtype=np.float64), (n,)).copy()
    f_guess = None  # f at min(lo, hi): f_hi where hi is the lower
    if f_lo is not None and f_hi is not None:
        f_guess = np.where(hi < lo, np.broadcast_to(f_hi, (n,)), np.broadcast_to(f_lo, (n,)))
    lo = np.minimum(lo, hi)
    idx = np.arange(n)

    def ev_at(where):
        return lambda i, x: evaluate(where[i], x)

    # the upper end: grown until it passes (or the limit fails)
    near, far, f_near, f_far, st_hi = grow(evaluate, target, hi, up=True, limit=hi_limit, f_x=f_hi)
    out = np.full(n, np.nan)
    status = np.zeros(n, np.int8)
    dead = st_hi != CONVERGED
    out[dead] = hi_limit
    status[dead] = st_hi[dead]
    live = idx[~dead]
    hi_x, f_hi = far[live], f_far[live]
    grew = near[live] < far[live]  # the start failed: near is a failing lower end
    lo_x = np.where(grew, near[live], np.minimum(lo[live], hi_x))
    f_lo = np.where(grew, f_near[live], np.nan)
    # the lower end: where it was not established by growing hi, shrink the
    # guess until it fails; every passing point on the way is a better hi
    guess = np.flatnonzero(~grew)
    if guess.size:
        g = live[guess]
        # (where hi passed at the start, lo_x is the guess lo, evaluated or not)
        f_g = None if f_guess is None else f_guess[g]
        n2, f2, fn2, ff2, st_lo = grow(ev_at(g), target[g], lo_x[guess], up=False, limit=lo_limit, f_x=f_g)
        # far: the first failing point (or the limit); near: the last passing
        passed_start = fn2 <= target[g]
        hi_x[guess] = np.where(passed_start, n2, hi_x[guess])
        f_hi[guess] = np.where(passed_start, fn2, f_hi[guess])
        lo_x[guess] = f2
        f_lo[guess] = ff2
        bad = st_lo == MAXITER
        status[g[bad]] = MAXITER
    _, h, st = refine(ev_at(live), target[live], lo_x, hi_x, f_lo, f_hi, rtol=rtol)
    out[live] = h
    status[live] = np.where(status[live] != CONVERGED, status[live], st)
    return out, status


# ---------------------------------------------------------------- convex --
#
# For a convex h, {x : h(x) < 0} is one interval.  `convex_min` finds a
# point of it between two points outside it (or shows that there is none);
# `convex_end` then finds each end to adjacent floats.  Both take
# ``evaluate(idx, x) -> (h, dh)`` (value and derivative at trial floats x
# for the entries idx) and keep, per entry, a bracket whose ends were both
# evaluated; their safeguard is the bisection of bit patterns above, so that
# they end within about 64 further steps whatever the derivatives do.

NARROW = 2  # convex_min: two adjacent floats outside, the tangent bound below 0 between them


def _flipped(x, s):
    """Keys in a space where the search runs upwards (s = +1 or -1 per entry)."""
    return s * key(x)


def _half_gap(a, b):
    """About (b - a) / 2 for int64 keys, without overflow (keys of floats of
    both signs can be further apart than the int64 range).
    """
    return (b >> 1) - (a >> 1)


def convex_min(evaluate, lo, hi, h_lo, dh_lo, h_hi, dh_hi):
    """A float where a convex h is negative, between two where it is not."""
    lo, hi, h_lo, dh_lo, h_hi, dh_hi = (np.array(a, dtype=np.float64).ravel().copy()
                                        for a in (lo, hi, h_lo, dh_lo, h_hi, dh_hi))
    n = lo.size
    x = np.full(n, np.nan)
    status = np.full(n, MAXITER, np.int8)
    # a slope that does not change sign puts the minimum at an end
    flat = ~(dh_lo < 0.0) | ~(dh_hi > 0.0)
    status[flat] = NOT_REACHED
    stall = np.zeros(n, np.int8)
    act = np.flatnonzero(~flat)
    for _ in range(4 * _STEPS):
        if act.size == 0:
            break
        l, h = lo[act], hi[act]
        kl, kh = key(l), key(h)
        adj = kh <= kl + 1
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            w = h - l
            t = (h_lo[act] - h_hi[act] + dh_hi[act] * w) / (dh_hi[act] - dh_lo[act])
            bound = h_lo[act] + dh_lo[act] * t
            # rounding of the four values: a bound that only rounding puts >= 0 is not trusted
            slack = 8.0 * np.finfo(float).eps * (np.abs(h_lo[act]) + np.abs(h_hi[act])
                                                  + np.abs(dh_lo[act] * t) + np.abs(dh_hi[act] * (w - t)))
        empty = bound - slack >= 0.0
        status[act[empty]] = NOT_REACHED
        status[act[adj & ~empty]] = NARROW
        keep = ~empty & ~adj
        act, l, h, kl, kh, t = act[keep], l[keep], h[keep], kl[keep], kh[keep], t[keep]
        if act.size == 0:
            break
        with np.errstate(invalid="ignore", over="ignore"):
            c = l + t
        kc = key(np.where(np.isfinite(c), c, l))
        bis = (stall[act] >= 2) | ~np.isfinite(c)
        kc = np.where(bis, _mid(kl, kh), kc)
        kc = np.clip(kc, kl + 1, kh - 1)
        xc = unkey(kc)
        hc, dhc = (np.asarray(a, dtype=np.float64) for a in evaluate(act, xc))
        neg = hc < 0.0
        x[act[neg]] = xc[neg]
        status[act[neg]] = CONVERGED
        # the slope says on which side the minimum lies; at a zero slope the
        # minimum is hc >= 0 itself
        zero = ~neg & (dhc == 0.0)
        status[act[zero]] = NOT_REACHED
        up = ~neg & (dhc > 0.0)
        down = ~neg & (dhc < 0.0)
        i, j = act[up], act[down]
        hi[i], h_hi[i], dh_hi[i] = xc[up], hc[up], dhc[up]
        lo[j], h_lo[j], dh_lo[j] = xc[down], hc[down], dhc[down]
        gone = neg | zero | ~(up | down)  # NaN slope: give up on the entry (MAXITER)
        new_w = np.where(up, _half_gap(kl, kc), _half_gap(kc, kh))
        halved = new_w <= _half_gap(kl, kh) // 2
        stall[act] = np.where(halved, 0, stall[act] + 1)
        act = act[~gone]
    return x, lo, hi, status


def convex_end(evaluate, inside, outside, h_in, dh_in, h_out, dh_out):
    """The end of {h < 0} between a float inside it and one outside, for a
    convex h: adjacent floats, one either side.
    """
    xi, xo, h_in, dh_in, h_out, dh_out = (np.array(a, dtype=np.float64).ravel().copy()
                                          for a in (inside, outside, h_in, dh_in, h_out, dh_out))
    n = xi.size
    s = np.where(xo > xi, np.int64(1), np.int64(-1))
    status = np.full(n, MAXITER, np.int8)
    stall = np.zeros(n, np.int8)
    act = np.arange(n)
    for _ in range(4 * _STEPS):
        ki, ko = _flipped(xi[act], s[act]), _flipped(xo[act], s[act])
        done = ko <= ki + 1
        status[act[done]] = CONVERGED
        act, ki, ko = act[~done], ki[~done], ko[~done]
        if act.size == 0:
            break
        sa = s[act]
        a_in, a_out = xi[act], xo[act]
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            newton = a_out - h_out[act] / dh_out[act]
            chord = a_in - h_in[act] * ((a_out - a_in) / (h_out[act] - h_in[act]))
        km = _mid(ki, ko)
        bis = stall[act] >= 2
        ok_n = np.isfinite(newton) & ~bis
        ok_c = np.isfinite(chord) & ~bis
        # a step that rounds onto an end moves one float off it
        kn = np.clip(np.where(ok_n, _flipped(np.where(ok_n, newton, 0.0), sa), km), ki + 1, ko - 1)
        kc = np.clip(np.where(ok_c, _flipped(np.where(ok_c, chord, 0.0), sa), km), ki + 1, ko - 1)
        two = kc != kn
        m = act.size
        pts = np.concatenate([kn, kc[two]])
        who = np.concatenate([np.arange(m), np.flatnonzero(two)])
        hv, dv = (np.asarray(a, dtype=np.float64) for a in evaluate(act[who], unkey(s[act[who]] * pts)))
        # the new ends: the lowest trial point outside, then the highest
        # inside below it (an inside point beyond an outside one is rounding
        # noise: ignored); later writes win, hence the orders
        big = np.iinfo(np.int64).max
        is_out = ~(hv < 0.0)
        out_k, out_h, out_d = np.full(m, big), np.full(m, np.nan), np.full(m, np.nan)
        o = np.flatnonzero(is_out)
        o = o[np.argsort(-pts[o], kind="stable")]
        out_k[who[o]], out_h[who[o]], out_d[who[o]] = pts[o], hv[o], dv[o]
        new_ko = np.minimum(ko, out_k)
        in_k, in_h, in_d = np.full(m, -big), np.full(m, np.nan), np.full(m, np.nan)
        i_ = np.flatnonzero(~is_out)
        i_ = i_[pts[i_] < new_ko[who[i_]]]
        i_ = i_[np.argsort(pts[i_], kind="stable")]
        in_k[who[i_]], in_h[who[i_]], in_d[who[i_]] = pts[i_], hv[i_], dv[i_]
        moved_o = out_k < ko
        moved_i = in_k > ki
        new_ki = np.where(moved_i, in_k, ki)
        io, ii = act[moved_o], act[moved_i]
        xo[io], h_out[io], dh_out[io] = unkey(sa[moved_o] * out_k[moved_o]), out_h[moved_o], out_d[moved_o]
        xi[ii], h_in[ii], dh_in[ii] = unkey(sa[moved_i] * in_k[moved_i]), in_h[moved_i], in_d[moved_i]
        halved = _half_gap(new_ki, new_ko) <= _half_gap(ki, ko) // 2
        stall[act] = np.where(halved, 0, stall[act] + 1)
    return xi, xo, status
