"""The world set behind every risk computation: validated values, weights,
and (computed once, on demand) the merged sorted groups of MATH.md s. 4."""

import numpy as np

from . import _validate as V
from ._kernels import sort as _sort
from ._kernels.worstcase import group_sorted, group_weights


class Worlds:
    """Validated world values with their counts and prior.

    Attributes used by the kernels:

    ``f``         values in the caller's order (float64, contiguous)
    ``weighted``  whether counts or a prior were given
    ``lw``        log(count x prior / max prior) per entry (-inf: no weight)
    ``lp``        log(prior / max prior) per entry, -inf where the count is 0
    ``log_norm``  log(max prior): the normalisation taken out of ``lw``
    """

    def __init__(self, values, counts=None, prior=None, *, check_finite=True):
        if check_finite:
            f = V.values_1d("values", values)
        else:  # the caller's kernel checks finiteness in its own pass
            f = V.as_float("values", values)
            V.shape_1d("values", f)
        n = f.size
        c = None if counts is None else V.counts(counts, n)
        p = None if prior is None else V.weights("prior", prior, n)
        self.f = np.ascontiguousarray(f)
        self.n = n
        self.weighted = c is not None or p is not None
        self._groups = None
        self._rep = None
        self._lw = self._lp = None
        if not self.weighted:
            self.log_norm = 0.0
            self._cw = None
            self._pw = None
            return
        cw = np.ones(n) if c is None else c
        pr = np.ones(n) if p is None else p
        w = cw * pr
        live = w > 0
        if not live.any():
            names = " and ".join(x for x, y in (("counts", c), ("prior", p)) if y is not None)
            raise ValueError(f"{names} give every world zero weight: at least one world needs a positive count and prior")
        pmax = pr[live].max()
        self.log_norm = float(np.log(pmax))
        self._w = w / pmax
        self._cw = cw
        self._pw = pr / pmax
        self._lw = None
        self._lp = None

    @property
    def lw(self):
        if self._lw is None:
            if not self.weighted:
                self._lw = np.empty(0)
            else:
                with np.errstate(divide="ignore"):
                    self._lw = np.log(self._w)
        return self._lw

    @property
    def lp(self):
        if self._lp is None:
            if not self.weighted:
                self._lp = np.empty(0)
            else:
                with np.errstate(divide="ignore"):
                    self._lp = np.where(self._cw > 0, np.log(self._pw), -np.inf)
        return self._lp

    def check_finite(self):
        """Raise the ValueError of a non-finite value (after a kernel saw one)."""
        V.values_1d("values", self.f)

    def world_prior(self, world):
        """Normalised per-world prior of the given entries (0 if count is 0)."""
        if not self.weighted:
            return np.ones(np.shape(world))
        return np.where(self._cw[world] > 0, self._pw[world], 0.0)

    def groups(self, need_rep=False):
        """Sorted distinct values ``fs``, group weights ``W``, ``invP`` = 1 /
        the largest normalised per-world prior of each group, and (with
        ``need_rep``) ``rep``: the caller's index of that world."""
        if self._groups is not None and (not need_rep or self._rep is not None):
            return self._groups + ((self._rep,) if need_rep else ())
        f = self.f
        if not self.weighted and not need_rep:
            vs = _sort.sort(f)
            fs = np.empty(self.n)
            first = np.empty(self.n, np.int64)
            u = group_sorted(vs, fs, first)
            fs = fs[:u].copy()
            W = np.diff(np.append(first[:u], self.n)).astype(np.float64)
            invP = np.ones(u)
            self._groups = (fs, W, invP)
            return self._groups
        if self.weighted:
            live = np.flatnonzero(self._w > 0)
            order = live[_sort.argsort(np.ascontiguousarray(f[live]))] if live.size < self.n else _sort.argsort(f)
        else:
            order = _sort.argsort(f)
        vs = f[order]
        fs = np.empty(vs.size)
        first = np.empty(vs.size, np.int64)
        u = group_sorted(vs, fs, first)
        fs = fs[:u].copy()
        first = first[:u].copy()
        if not self.weighted:
            # the stably first world of each group represents it
            W = np.diff(np.append(first, vs.size)).astype(np.float64)
            self._groups = (fs, W, np.ones(u))
            self._rep = order[first]
            return self._groups + ((self._rep,) if need_rep else ())
        cs = self._cw[order]
        ps = self._pw[order]
        W = np.empty(u)
        P = np.empty(u)
        rep = np.empty(u, np.int64)
        group_weights(first, vs.size, cs, ps, order, W, P, rep)
        self._groups = (fs, W, 1.0 / P)
        self._rep = rep
        return self._groups + ((rep,) if need_rep else ())
