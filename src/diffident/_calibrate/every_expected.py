"""The expected-success calibration over every D' (`dataset_tight_scale`
with ``risk="expected"`` and the sweep), and the lattice coordinates of
world values for integer noise.
"""

import numpy as np

from .._numerics import progress as _progress
from .._numerics import search as _search
from .._numerics import validate as _validate
from .._risk.expected import Success
from .._worlds.values import Worlds
from .tight import expected_scale


def on_lattice(fs, g):
    """The sorted world values ``fs`` as exact lattice points: ``k g`` for
    the whole number k of steps each lies above the smallest (the offset
    removed: the risk depends on differences only).  Each value as
    computed lies within a few units of roundoff of its exact value, a
    lattice point up to the offset; a value further than `LATTICE_RTOL`
    of the largest magnitude from one is a ValueError.
    """
    d = fs - fs[0]
    k = np.rint(d / g)
    tol = _validate.LATTICE_RTOL * max(abs(float(fs[0])), abs(float(fs[-1])), g)
    off = np.flatnonzero(np.abs(d - k * g) > tol)
    if off.size:
        raise ValueError(f"values must lie on a lattice of spacing {g!r} (integer noise); got {float(fs[off[0]])!r} "
                         f"{float(d[off[0]])!r} above {float(fs[0])!r}")
    return k * g


def expected_every(prob, rho, rtol, gauss, g):
    """The smallest scale whose expected success is at most rho for every
    D' = D - i: the largest of the world sets' own calibrations.
    """
    rho = np.ascontiguousarray(rho, dtype=np.float64)

    def worlds(s):
        fs, c = prob.grouped(prob.sets[s][0])
        return Worlds.checked(on_lattice(fs, g), c) if g is not None else Worlds.checked(fs, c)

    def calibrate(s, idx):
        lam, status = expected_scale(worlds(s), gauss, rho[idx], rtol, g)
        _search.warn_unconverged(status, "dataset_tight_scale")
        return lam

    lam = calibrate(prob.ref, np.arange(rho.size))
    who = np.full(rho.size, prob.ref)  # the set each scale was calibrated on
    if (prob.shift and g is not None) or len(prob.sets) == 1:
        return lam, who
    check = np.arange(rho.size)
    for _ in range(4 * len(prob.sets) + 8):  # every round raises some scale
        moved = set()
        for s in range(len(prob.sets)):
            sel = check[(who[check] != s) & np.isfinite(lam[check])]
            if sel.size == 0:
                continue
            _progress.tick(lambda s=s: f"expected success, D' {s + 1}/{len(prob.sets)}")
            ev = prob.held.get(("success", s, gauss, g), lambda s=s: Success(worlds(s), gauss, g), s == prob.ref)
            ok = np.empty(sel.size, bool)
            at0 = lam[sel] == 0
            if at0.any():  # (an exact sum over the worlds: only where needed)
                ok[at0] = ev.no_noise_at_most(rho[sel[at0]])
            ok[~at0] = ev(lam[sel[~at0]]) <= _search.below(rho[sel[~at0]], ev.error)
            bad = sel[~ok]
            if bad.size:
                new = calibrate(s, bad)
                up = new > lam[bad]
                lam[bad[up]] = new[up]
                who[bad[up]] = s
                moved.update(bad[up].tolist())
        if not moved:
            return lam, who
        check = np.array(sorted(moved), dtype=np.int64)
    raise RuntimeError("the every-D' expected calibration did not settle")  # pragma: no cover
