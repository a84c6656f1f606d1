"""Many targets, one function: the smallest x with f(x) <= t for each of many t."""

import numpy as np

from . import search as _search
from .floats import U

MIN_TARGETS = 64  # fewer targets: the grid costs more than it saves
MIN_RTOL = 1e-13  # the estimates are good to a few units of roundoff; tighter searches refine
NODES = 32  # Chebyshev degree per interval: converged to rounding for a log-slope up to ~15
MIN_PER_INTERVAL = 5  # targets an interval needs for its NODES - 1 evaluations to pay
_MAX_GRID = 512  # coarse points at most (a wider range gives longer intervals, which may not converge)


def applies(n, rtol):
    """Whether `smallest` pays for ``n`` targets at relative precision ``rtol``."""
    return n >= MIN_TARGETS and rtol >= MIN_RTOL


def smallest(evaluate, target, lo, hi, *, rtol, bounds=None, floor=0.0):
    """The smallest x > 0 with ``f(x) <= target``, for many targets."""
    target = np.asarray(target, dtype=np.float64).ravel()
    n = target.size
    lo = np.broadcast_to(np.asarray(lo, dtype=np.float64), (n,))
    hi = np.broadcast_to(np.asarray(hi, dtype=np.float64), (n,))
    x = np.full(n, np.nan)
    status = np.zeros(n, np.int8)
    ok = np.isfinite(lo) & np.isfinite(hi) & (lo > 0) & (hi > 0)
    grid = _grid(lo[ok], hi[ok]) if ok.any() else np.empty(0)
    rest = np.arange(n)
    if grid.size >= 2:
        F, arg = _eval(evaluate, grid)
        rest = _solve(evaluate, target, grid, F, arg, rtol, x, status, bounds, floor)
    if rest.size:
        x[rest], status[rest] = _search.smallest(lambda i, t: evaluate(t)[0], target[rest], lo[rest], hi[rest],
                                                 rtol=rtol)
    return x, status


def _eval(evaluate, x):
    f, arg = evaluate(np.ascontiguousarray(x, dtype=np.float64))
    return np.asarray(f, dtype=np.float64), np.asarray(arg)


def _grid(lo, hi):
    """Coarse points e^y, y from ln min(lo) to ln max(hi) in steps of at
    most 1 (at most `_MAX_GRID` points).
    """
    a, b = np.log(lo.min()), np.log(hi.max())
    if not (np.isfinite(a) and np.isfinite(b)) or b <= a:
        return np.empty(0)
    k = int(min(np.ceil(b - a), _MAX_GRID - 1)) + 1
    y = np.linspace(a, b, k)
    return np.exp(y)


def _lobatto(n):
    """Chebyshev-Lobatto points on [-1, 1], ascending, and the matrix that
    takes values there to Chebyshev coefficients.
    """
    j = np.arange(n + 1)
    s = -np.cos(np.pi * j / n)  # ascending
    # values at s_j = cos(pi (n - j) / n): c_k = 2/n sum'' v_j cos(pi k (n - j) / n)
    M = np.cos(np.pi * np.outer(j, n - j) / n) * (2.0 / n)
    M[:, 0] *= 0.5
    M[:, -1] *= 0.5
    M[0] *= 0.5
    M[-1] *= 0.5
    return s, M


_S, _M = _lobatto(NODES)


def _clenshaw(c, s):
    """The Chebyshev series with coefficient rows ``c`` (n, N + 1) and its
    derivative, at ``s`` (n,).
    """
    n1 = c.shape[1]
    b1 = np.zeros(s.size)
    b2 = np.zeros(s.size)
    d1 = np.zeros(s.size)
    d2 = np.zeros(s.size)
    for k in range(n1 - 1, 0, -1):
        # d/ds of the recurrence b_k = c_k + 2 s b_{k+1} - b_{k+2}
        d1, d2 = 2.0 * b1 + 2.0 * s * d1 - d2, d1
        b1, b2 = c[:, k] + 2.0 * s * b1 - b2, b1
    return c[:, 0] + s * b1 - b2, b1 + s * d1 - d2


def _solve(evaluate, target, grid, F, arg, rtol, x, status, bounds=None, floor=0.0):
    """Steps 2 and 3 for the targets bracketed by the grid; fills ``x`` and
    ``status`` for them and returns the indices left to `_search.smallest`.
    """
    # the first grid point that passes, and the one before it, which fails
    run = np.minimum.accumulate(np.where(np.isnan(F), np.inf, F))
    k = np.searchsorted(-run, -target, side="left")  # first index with run <= target
    inside = (k > 0) & (k < grid.size)
    idx = np.flatnonzero(inside)
    rest = np.flatnonzero(~inside)
    if idx.size == 0:
        return rest
    t = target[idx]
    j = k[idx] - 1  # the interval [grid[j], grid[j + 1]]: F fails at j (F >= run > t), passes at j + 1
    est, err, slope, xs, fs, fl, fh = _estimates(evaluate, grid, F, arg, j, t, rtol, bounds)
    # each bracket: the highest failing node of its interval below the
    # lowest passing one (its ends are grid[j] and grid[j + 1]; NaN: a
    # node not evaluated, neither; a bounded node passes or fails where its
    # bounds decide)
    first_pass = np.argmax(fh <= t[:, None], axis=1)  # (every row's last node passes)
    col = np.arange(fs.shape[1])
    last_fail = np.where((fl > t[:, None]) & (col < first_pass[:, None]), col, 0).max(axis=1)  # (node 0 fails)
    rows = np.arange(idx.size)
    b_lo, f_lo = xs[rows, last_fail], fs[rows, last_fail]
    b_hi, f_hi = xs[rows, first_pass], fs[rows, first_pass]
    # a rough estimate (stored negated): probes a few errors either side of
    # it narrow the bracket that the search refines
    rough = np.flatnonzero(est < 0)
    if rough.size:
        r_est = -est[rough]
        est[rough] = np.nan
        w = np.maximum(4.0 * err[rough], 64.0 * U)
        q_lo, q_hi = r_est * (1.0 - w), r_est * (1.0 + w)
        inb = (q_lo > b_lo[rough]) & (q_hi < b_hi[rough])
        rough, q_lo, q_hi = rough[inb], q_lo[inb], q_hi[inb]
        if rough.size:
            r, _ = _eval(evaluate, np.concatenate([q_lo, q_hi]))
            r_lo, r_hi = r[:rough.size], r[rough.size:]
            tr = t[rough]
            # each probe moves the end it decides (a failing one up, a
            # passing one down; a failing hi: lo up to it)
            for q, fq in ((q_lo, r_lo), (q_hi, r_hi)):
                fails = ~(fq <= tr) & (q > b_lo[rough])
                passes = (fq <= tr) & (q < b_hi[rough])
                b_lo[rough[fails]], f_lo[rough[fails]] = q[fails], fq[fails]
                b_hi[rough[passes]], f_hi[rough[passes]] = q[passes], fq[passes]
    # step 3: lo just below the estimate must fail, hi at the window's top pass
    done = np.zeros(idx.size, bool)
    have = np.flatnonzero(np.isfinite(est))
    if have.size:
        # lo below the estimate by a few times its error: the window's top
        # then lies as high above the answer as the estimate allows
        d = np.minimum(np.maximum(4.0 * err[have], 16.0 * U), rtol / 4.0)
        if bounds is not None:
            # with bounds of relative width w there (each side: the exact
            # value's enclosure and the evaluation's error), lo lower by what
            # moves f by w, and the estimate's error: then the bounds can
            # prove that lo fails and, where rtol leaves as much above, that
            # hi passes
            b0, b1 = bounds(est[have])
            need = 1.25 * ((b1 - b0) / b0 / slope[have] + err[have])
            d = np.where(need <= rtol / 2.0, np.maximum(d, need), d)
        p_lo = est[have] * (1.0 - d)
        p_hi = _top(p_lo, rtol)
        inb = (p_lo > b_lo[have]) & (p_hi < b_hi[have]) & (p_hi - p_lo <= rtol * p_hi)
        have, p_lo, p_hi = have[inb], p_lo[inb], p_hi[inb]
        if have.size and bounds is not None:
            b_lo_hi = bounds(np.concatenate([p_lo, p_hi]))  # (lo's lower bound, hi's upper)
            sure = (b_lo_hi[0][:have.size] > t[have]) & (b_lo_hi[1][have.size:] <= t[have])
            done[have[sure]] = True
            x[idx[have[sure]]] = p_hi[sure]
            have, p_lo, p_hi = have[~sure], p_lo[~sure], p_hi[~sure]
        if have.size:
            r, _ = _eval(evaluate, np.concatenate([p_lo, p_hi]))
            r_lo, r_hi = r[:have.size], r[have.size:]
            lo_fails = ~(r_lo <= t[have])
            hi_passes = r_hi <= t[have]
            good = lo_fails & hi_passes
            done[have[good]] = True
            x[idx[have[good]]] = p_hi[good]
            # the probes tighten the others' brackets: both failed (lo up
            # to hi) or lo passed (hi down to lo)
            h = have[~good]
            lf = lo_fails[~good]
            b_lo[h] = np.where(lf, p_hi[~good], b_lo[h])
            f_lo[h] = np.where(lf, r_hi[~good], f_lo[h])
            b_hi[h] = np.where(lf, b_hi[h], p_lo[~good])
            f_hi[h] = np.where(lf, f_hi[h], r_lo[~good])
    left = np.flatnonzero(~done)
    if left.size:
        g = idx[left]
        lo_r, h, st = _search.refine(lambda i, t: evaluate(t)[0], target[g], b_lo[left], b_hi[left],
                                     f_lo[left], f_hi[left], rtol=rtol, floor=floor)
        # as above, the answer at the top of the window over the failing lo
        top = _top(lo_r, rtol)
        up = np.flatnonzero((st == _search.CONVERGED) & (top > h) & (lo_r > 0) & np.isfinite(top))
        if up.size:
            r, _ = _eval(evaluate, top[up])
            ok = r <= target[g[up]]
            h[up[ok]] = top[up[ok]]
        x[g] = h
        status[g] = st
    return rest


def _top(lo, rtol):
    """The largest float hi (about) with ``hi - lo <= rtol hi`` in floats."""
    hi = lo / (1.0 - rtol * (1.0 - 2.0 ** -10))
    return np.where(hi - lo > rtol * hi, np.nextafter(hi, 0.0), hi)


def _estimates(evaluate, grid, F, arg, j, t, rtol, bounds=None):
    """Step 2: the crossing of each target ``t`` in its interval ``j``
    (between ``grid[j]`` and ``grid[j + 1]``) with a bound on its relative
    error and the slope ``-d ln f / d ln x`` there, NaN where f is not one
    group's smooth function there, the interpolant has not converged to
    rounding, or the bound exceeds an eighth of ``rtol``.  Also, per target,
    its interval's nodes ``xs`` (ascending, ends included), f there ``fs``
    (NaN where not evaluated) and bounds on it ``fl``, ``fh``: with
    ``bounds`` (which then also give the interior nodes' values, with
    ``estimate=True``, where they bound them) wider than ``fs``, else ``fs``.
    """
    m = t.size
    ivs, inv = np.unique(j, return_inverse=True)
    ya, yb = np.log(grid[ivs]), np.log(grid[ivs + 1])
    mid, half = 0.5 * (ya + yb), 0.5 * (yb - ya)
    X = np.exp(mid[:, None] + half[:, None] * _S[None, :])
    X[:, 0], X[:, -1] = grid[ivs], grid[ivs + 1]
    Fv = np.empty_like(X)
    Fv[:, 0], Fv[:, -1] = F[ivs], F[ivs + 1]
    # the interior nodes of intervals that one group attains at both ends,
    # and that hold enough targets to pay for them (the per-target search
    # takes about eight evaluations from an interval's ends)
    same = (arg[ivs] == arg[ivs + 1]) & (np.bincount(inv, minlength=ivs.size) >= MIN_PER_INTERVAL)
    G = np.zeros(X.shape, dtype=np.asarray(arg).dtype)
    G[:, 0], G[:, -1] = arg[ivs], arg[ivs + 1]
    Fv[~same, 1:-1] = np.nan
    FL, FH = Fv.copy(), Fv.copy()
    if same.any():
        nodes = X[same, 1:-1].ravel()
        f_in = np.full(nodes.size, np.nan)
        g_in = np.full(nodes.size, G[same, 0].repeat(NODES - 1))  # (bounded: the one group attains f)
        lo_in, hi_in = f_in.copy(), f_in.copy()
        if bounds is not None:
            lo_in, hi_in, f_in = bounds(nodes, estimate=True)  # (NaN where not bounded)
        ev = np.flatnonzero(np.isnan(f_in))
        if ev.size:
            f_in[ev], g_in[ev] = _eval(evaluate, nodes[ev])
            lo_in[ev] = hi_in[ev] = f_in[ev]
        Fv[same, 1:-1] = f_in.reshape(-1, NODES - 1)
        G[same, 1:-1] = g_in.reshape(-1, NODES - 1)
        FL[same, 1:-1] = lo_in.reshape(-1, NODES - 1)
        FH[same, 1:-1] = hi_in.reshape(-1, NODES - 1)
    smooth = same & np.all(G == G[:, :1], axis=1) & np.all((Fv > 0) & np.isfinite(Fv), axis=1)
    xs, fs, fl, fh = X[inv], Fv[inv], FL[inv], FH[inv]
    est = np.full(m, np.nan)
    err = np.full(m, np.nan)
    slopes = np.full(m, np.nan)
    if not smooth.any():
        return est, err, slopes, xs, fs, fl, fh
    with np.errstate(divide="ignore", invalid="ignore"):
        H = 1.0 / Fv  # one group's S / P: a sum of exponentials in ln x, ascending
    c = H @ _M.T  # Chebyshev coefficients per interval
    hmin = np.where(smooth, np.where(smooth[:, None], H, np.inf).min(axis=1), np.nan)
    scale = np.abs(c).sum(axis=1)
    tail = np.abs(c[:, -4:]).max(axis=1)
    conv = smooth & (tail <= 64.0 * U * scale)
    use = np.flatnonzero(conv[inv])
    if use.size == 0:
        return est, err, slopes, xs, fs, fl, fh
    iv = inv[use]
    C = c[iv]
    target_h = 1.0 / t[use]
    # Newton on p(s) = 1 / t from the bracketing nodes, safeguarded by
    # bisection, from the linear interpolate between them
    Hu = H[iv]
    kk = np.clip(np.argmax(Hu >= target_h[:, None], axis=1), 1, NODES)
    rows = np.arange(use.size)
    sl, sh = _S[kk - 1], _S[kk]
    hl, hh = Hu[rows, kk - 1], Hu[rows, kk]
    with np.errstate(divide="ignore", invalid="ignore"):
        s = sl + (sh - sl) * (target_h - hl) / (hh - hl)
    s = np.where((s > sl) & (s < sh), s, 0.5 * (sl + sh))
    # each target iterates until its step is below rtol / 1024 in ln x or its
    # residual is within the interpolant's rounding (where further steps
    # only move it by rounding, back and forth)
    act = np.arange(use.size)
    noise = 8.0 * U * scale[iv]
    for _ in range(64):
        sa, la, ha = s[act], sl[act], sh[act]
        p, dp = _clenshaw(C[act], sa)
        r = p - target_h[act]
        la = np.where(r < 0, sa, la)
        ha = np.where(r >= 0, sa, ha)
        with np.errstate(divide="ignore", invalid="ignore"):
            s_new = sa - r / dp
        s_new = np.where((s_new >= la) & (s_new <= ha), s_new, 0.5 * (la + ha))  # (a step of 0 stays)
        moved = np.abs(s_new - sa) * half[iv[act]]  # in ln x
        s[act], sl[act], sh[act] = s_new, la, ha
        act = act[(moved > rtol / 1024.0) & (np.abs(r) > noise[act])]
        if act.size == 0:
            break
    p, dp = _clenshaw(C, s)
    # the estimate's error in ln x: the interpolant's (its tail, relative to
    # h, plus the values' rounding) over the slope d ln h / d ln x
    with np.errstate(divide="ignore", invalid="ignore"):
        slope = dp / (half[iv] * p)
        e = ((tail[iv] + 16.0 * U * scale[iv]) / hmin[iv]) / np.abs(slope)
    x_est = np.exp(mid[iv] + half[iv] * s)
    sane = np.isfinite(x_est) & np.isfinite(e) & (slope > 0)
    good = sane & (e <= rtol / 8.0)
    est[use[good]] = x_est[good]
    err[use[good]] = e[good]
    slopes[use[good]] = slope[good]
    # too rough for the window, but good for a narrow bracket (a flat f,
    # near its limit: e grows as the slope vanishes)
    rough = sane & ~good & (e < 1e-3)
    est[use[rough]] = -x_est[rough]
    err[use[rough]] = e[rough]
    return est, err, slopes, xs, fs, fl, fh
