"""The world set behind every risk computation: validated values, weights,
and (computed once, on demand) the merged sorted groups of the Mathematics
page, section 4.
"""

import functools

import numpy as np

from .._kernels import sort as radix
from .._kernels.grouping import count_runs
from .._numerics import validate as _validate
from .._numerics.grouping import run_lengths, runs, weighted_groups


class Worlds:
    """Validated world values with their counts and prior."""

    def __init__(self, values, counts=None, prior=None, *, check_finite=True):
        if check_finite:
            f = _validate.values_1d("values", values)
        else:  # the caller's kernel checks finiteness in its own pass
            f = _validate.as_float("values", values)
            _validate.shape_1d("values", f)
        n = f.size
        c = None if counts is None else _validate.counts(counts, n)
        p = None if prior is None else _validate.weights("prior", prior, n)
        self._setup(f, c, p)

    @classmethod
    def checked(cls, values, counts=None):
        """Worlds of a core's own values and counts, not validated again."""
        ws = cls.__new__(cls)
        ws._setup(np.asarray(values, dtype=np.float64),
                  None if counts is None else np.asarray(counts, dtype=np.float64), None)
        return ws

    def _setup(self, f, c, p):
        n = f.size
        self.f = np.ascontiguousarray(f)
        self.n = n
        self.weighted = c is not None or p is not None
        self._groups = None
        self._rep = None
        self.log_shrink = 0.0  # log of the factor taken out of the groups' weights
        if not self.weighted:
            self.log_norm = 0.0
            self._cw = None
            self._pw = None
            return
        cw = np.ones(n) if c is None else c
        pr = np.ones(n) if p is None else p
        self._raw_counts, self._raw_prior = cw, pr
        self._c, self._p = c, p
        live = (cw > 0) & (pr > 0)
        every = bool(live.all())  # (then no mask to apply: 1e7 worlds, 0.07 s less)
        if not every and not live.any():
            names = " and ".join(x for x, y in (("counts", c), ("prior", p)) if y is not None)
            raise ValueError(f"{names} give every world zero weight: "
                             "at least one world needs a positive count and prior")
        # normalise the prior before it meets the counts: count x prior is
        # then at most the count (1e200 x 1e200 would overflow)
        pmax = pr.max() if every else pr[live].max()
        self.log_norm = float(np.log(pmax))
        with np.errstate(over="ignore"):  # (a zero-count world's larger prior: dropped)
            self._pw = pr / pmax if every else np.where(live, pr / pmax, 0.0)
        self._cw = cw
        self._w = self._pw if c is None else cw * self._pw  # (1 x w is w)

    @functools.cached_property
    def lw(self):
        """log(count x prior / max prior) per entry (empty when unweighted)."""
        if not self.weighted:
            return np.empty(0)
        with np.errstate(divide="ignore"):
            return np.log(self._raw_counts) + self.lp

    @functools.cached_property
    def lp(self):
        """log(prior / max prior) per entry, -inf where the count is 0 (empty when unweighted)."""
        if not self.weighted:
            return np.empty(0)
        # in logs: a prior 1e-400 times the largest is not 0 here
        c, p = self._raw_counts, self._raw_prior
        live = (c > 0) & (p > 0)
        with np.errstate(divide="ignore"):
            return np.where(live, np.log(p) - self.log_norm, -np.inf)

    def scaled(self, k):
        """The same worlds with their values multiplied by 2**k (exact for
        normal numbers): the posteriors, the log-evidence and the worst case
        are unchanged when values, responses and scales scale together.
        """
        if k == 0:
            return self
        out = object.__new__(Worlds)
        out.__dict__.update(self.__dict__)
        with np.errstate(over="ignore"):  # (a kernel meeting inf reports it; the caller rescales)
            out.f = np.ldexp(self.f, k)
        out._groups = None
        out._rep = None
        return out

    def check_finite(self):
        """Raise the ValueError of a non-finite value (after a kernel saw one)."""
        _validate.values_1d("values", self.f)

    @property
    def linear_ok(self):
        """Whether every world of positive weight keeps a normal float weight
        relative to the largest (count x prior within 2**1000 of it): the
        sweeps over sorted values sum weights, not their logarithms.
        """
        if not self.weighted:
            return True
        live = (self._raw_counts > 0) & (self._raw_prior > 0)
        w = self._w[live]
        return bool(w.min() >= 2.0 ** -1000 * w.max())

    def check_linear(self):
        """Raise the ValueError of weights the worst case cannot carry."""
        if not self.linear_ok:
            names = " and ".join(x for x, y in (("counts", self._c), ("prior", self._p)) if y is not None)
            raise ValueError(f"{names} span more than 2**1000 (about 1e301) between worlds of positive weight: "
                             "the worst case sums weights, which cannot carry that range; drop the worlds whose "
                             "weight is negligible, or rescale")

    def world_prior(self, world):
        """Normalised per-world prior of the given entries (0 if count is 0)."""
        if self._pw is None:  # (not weighted)
            return np.ones(np.shape(world))
        return self._pw[world]

    def share_at_most(self, rho, limit):
        """Whether each rho is at least (``limit="zero"``) the largest risk
        without noise, the largest share a world has of its equal-valued
        group, or at most (``limit="inf"``) the risk at infinite noise, the
        largest share of all worlds: decided exactly (no rounding of the
        shares), so that a calibration never calls a target met that is
        not, nor unattainable one that is.  ``rho`` is a 1-d array.
        """
        rho = np.asarray(rho, dtype=np.float64)
        fs, Wg, invP = self.groups()
        share = _reciprocal(Wg, invP)  # rounded: a first answer, exact far from a tie
        if limit == "zero":
            top = float(share.max())
            out = rho >= top
            near = np.flatnonzero(np.abs(rho - top) <= 1e-12 * top)
        else:  # (a first answer: exact below, near a tie)
            top = float(_reciprocal(np.array([Wg.sum()]), np.array([invP.min()]))[0])
            out = rho <= top
            near = np.flatnonzero(np.abs(rho - top) <= 1e-12 * top)
        if near.size == 0:
            return out
        from fractions import Fraction

        if not self.weighted:  # integer group sizes: rho n >= 1 (or <= 1) exactly
            n = Fraction(int(Wg.min())) if limit == "zero" else Fraction(self.n)
            for i in near:
                t = Fraction(float(rho[i])) * n
                out[i] = t >= 1 if limit == "zero" else t <= 1
            return out
        order, first = self._members
        c = self._raw_counts
        p = self._raw_prior
        bounds = np.append(first, order.size)
        groups = [order[bounds[g]:bounds[g + 1]] for g in range(first.size)]
        if limit == "inf":
            groups = [order]
        elif len(groups) > 1:  # only the groups whose rounded share is near the largest
            groups = [groups[g] for g in np.flatnonzero(share >= top * (1.0 - 1e-12))]
        sums = [(sum(Fraction(float(c[i])) * Fraction(float(p[i])) for i in g.tolist()),
                 Fraction(float(p[g].max()))) for g in groups]
        for i in near:
            r = Fraction(float(rho[i]))
            if limit == "zero":
                out[i] = all(r * s >= pm for s, pm in sums)
            else:
                out[i] = all(r * s <= pm for s, pm in sums)
        return out

    def groups(self, need_rep=False):
        """Sorted distinct values ``fs``, group weights ``W``, ``invP`` = 1 /
        the largest normalised per-world prior of each group, and (with
        ``need_rep``) ``rep``: the caller's index of that world.
        """
        if self._groups is not None and (not need_rep or self._rep is not None):
            return self._groups + ((self._rep,) if need_rep else ())
        f = self.f
        if not self.weighted:
            if not need_rep:
                # one pass over a sorted copy: its distinct values in place, the
                # run lengths beside them
                vs = radix.sort(f)
                W = np.empty(vs.size)
                u = count_runs(vs, W)
                fs, W = (vs, W) if u == vs.size else (vs[:u].copy(), W[:u].copy())
                self._groups = (fs, W, np.ones(u))
                return self._groups
            order = radix.argsort(f)
            fs, first = runs(f[order])
            # the stably first world of each group represents it
            self._groups = (fs, run_lengths(first, order.size).astype(np.float64), np.ones(fs.size))
            self._rep = order[first]
            return self._groups + ((self._rep,) if need_rep else ())
        assert self._cw is not None and self._pw is not None  # (weighted)
        # sums of counts near the float range: the groups' weights and
        # priors scaled together by a power of two (rho* is a ratio of them)
        m = int(np.count_nonzero(self._w > 0))
        shrink = weight_shrink(self._w.max(), m)
        fs, W, P, rep = weighted_groups(f, self._w, m, self._c, self._pw, shrink)
        self.log_shrink = float(np.log(shrink))
        with np.errstate(over="ignore"):
            self._groups = (fs, W, 1.0 / (P * shrink))
        self._rep = rep
        return self._groups + ((rep,) if need_rep else ())

    @property
    def _members(self):
        """The caller's indices of the worlds of positive weight in the stable
        order of their values, and where each group starts among them.
        """
        live = np.flatnonzero(self._w > 0)
        order = live[radix.argsort(np.ascontiguousarray(self.f[live]))] if live.size < self.n else radix.argsort(self.f)
        return order, runs(self.f[order])[1]


def _reciprocal(a, b):
    """``1 / (a b)`` for positive finite arrays, without overflow of the
    product (counts whose total passes the float maximum): b's power of two
    is taken out first and put back at the end (a subnormal result).
    """
    e = np.frexp(b)[1]
    with np.errstate(divide="ignore", over="ignore", under="ignore"):
        return np.ldexp(1.0 / (a * np.ldexp(b, -e)), -e)


def weight_shrink(wmax, n):
    """The power of two by which n weights of at most wmax are multiplied."""
    e = int(np.frexp(wmax)[1]) + int(n - 1).bit_length()  # wmax * n < 2**e
    return float(np.ldexp(1.0, 1000 - e)) if e > 1000 else 1.0


# Conditioning.  Posteriors, log-evidences and worst cases do not change
# when values, responses and scales are multiplied by one power of two, and
# the kernels need |values|, |responses| <= 2**1021 (distances and their
# sums stay finite) and scales >= 2**-1021 (the energy factor 1 / scale
# stays finite).  Any finite input meets both after such a scaling, unless
# the scales are too small for the values' magnitude.
_VMAX_EXP = 1021
_SMIN_EXP = -1021


def scaling_exponent(vmax, smin):
    """The power of two k (0 when possible) with ``vmax 2**k <= 2**1021``
    and ``smin 2**k >= 2**-1021``; None if there is none.
    """
    hi = _VMAX_EXP - int(np.frexp(vmax)[1]) if vmax > 0 else 1 << 20  # vmax < 2**e
    lo = _SMIN_EXP + 1 - int(np.frexp(smin)[1]) if smin > 0 else -(1 << 20)  # smin >= 2**(e - 1)
    if lo > hi:
        return None
    return 0 if lo <= 0 <= hi else (hi if hi < 0 else lo)


def check_scaling(k, smin, reach, gauss, *arrays):
    """The ValueError of a scaling by 2**k (k < 0, to bring responses near
    the float maximum into range) that rounds values or responses in the
    subnormal range (``arrays``) by enough to move a log-likelihood by more
    than 2**-50 at the smallest scale: by ``lost / scale`` (Laplace) or
    ``lost (2 reach + lost) / (2 sigma^2)`` (Gaussian), ``lost`` the largest
    rounding and ``reach`` a bound on the distances.  Elsewhere the
    rounding is below every float's resolution of the result (values 5e-324
    apart at responses 1e308 are the same world for Laplace noise at scale
    1e-20, not for Gaussian noise).
    """
    if k >= 0:
        return
    thr = 2.0 ** (-1022 - k)  # below: subnormal once scaled, rounded
    lost = 0.0
    for a in arrays:
        a = np.asarray(a, dtype=np.float64).ravel()
        t = a[np.abs(a) < thr]
        if t.size:
            with np.errstate(under="ignore"):
                lost = max(lost, float(np.max(np.abs(t - np.ldexp(np.ldexp(t, k), -k)))))
    if lost == 0.0:
        return
    with np.errstate(divide="ignore"):
        l2 = float(np.log2(lost) - np.log2(smin))
        if gauss:
            l2 = float(np.log2(lost) + np.logaddexp2(np.log2(reach) + 1.0, np.log2(lost)) - 2.0 * np.log2(smin) - 1.0)
    if l2 > -50.0:
        raise ValueError(
            f"values and responses up to {reach!r} apart with scale {smin!r} must be scaled by 2**{k} into the "
            f"float range, which rounds values in the subnormal range by up to {lost!r}: a change of "
            f"2**{l2:.0f} in a log-likelihood; shift or rescale the values")


def too_small(name, smin, vmax):
    return ValueError(f"{name} {smin!r} is too small for values and responses of magnitude up to {vmax!r}: "
                      f"no power of two brings both into the float range (scale >= 2**-1021 with "
                      f"|value| <= 2**1021); rescale the problem")


def energy_factor(lam, k, gauss):
    """c = 1 / scale (Laplace) or 1 / (sigma sqrt 2) (Gaussian) for scales
    multiplied by 2**k, without overflow on the way.
    """
    num = np.sqrt(0.5) if gauss else 1.0
    with np.errstate(over="ignore", divide="ignore", under="ignore"):
        ls = np.ldexp(lam, k)
        c = num / ls
        if k > 0:  # a large scale may overflow when multiplied: take 2**-k / scale
            c = np.where(np.isfinite(ls), c, np.ldexp(num / lam, -k))
    return np.ascontiguousarray(c, dtype=np.float64)
