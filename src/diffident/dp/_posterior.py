"""The Bayesian reading of epsilon-DP (`diffident.dp`; Mathematics page, section 7)."""

from typing import overload

import numpy as np

from .._numerics import dd as _dd
from .._numerics.shared_docs import shared_docs
from .._numerics.validate import is_scalar, privacy_epsilon, probability, ret
from .._risk import closed_form as _closed_form
from .._typing import FloatOrArray, RealArrayLike


def _log_odds(p):
    """``ln((1 - P) / P)`` as a double-double: ``-inf`` at P = 1, ``inf`` at P = 0."""
    p = np.asarray(p, dtype=np.float64)
    lh = np.where(p == 0.0, np.inf, -np.inf)
    ll = np.zeros(p.shape)
    i = np.flatnonzero((p > 0.0) & (p < 1.0))
    if i.size:
        pi = p.ravel()[i]
        with np.errstate(all="ignore"):
            def core(pi):
                ah, al = _dd.log(*_dd.two_sum(1.0, -pi))
                bh, bl = _dd.log(pi, np.zeros_like(pi))
                return _dd.add(ah, al, -bh, -bl)

            lh.ravel()[i], ll.ravel()[i] = _dd.blockwise(core, pi)
    return lh, ll


def _posterior_bound(e, p, lh, ll):
    """`posterior_bound` for 1-d arrays, with ``lh, ll = _log_odds(p)``."""
    out = _closed_form.bound(e, np.zeros_like(e), np.where(p == 0.0, -np.inf, lh), ll, p)
    return np.where(p == 0.0, 0.0, out)


@overload
def posterior_bound(epsilon: float, *, prior: float) -> float: ...


@overload
def posterior_bound(epsilon: RealArrayLike, *, prior: RealArrayLike) -> FloatOrArray: ...


@shared_docs
def posterior_bound(epsilon: RealArrayLike, *, prior: RealArrayLike) -> FloatOrArray:
    """The Bayesian reading of epsilon-DP: the largest posterior after a release.

    Parameters
    ----------
    epsilon : array_like
        Privacy parameter(s), >= 0 (``inf`` allowed: no noise).
    prior : array_like
        The adversary's prior P of the true world, in [0, 1].

    Returns
    -------
    float or ndarray
        ``e^epsilon P / (1 - P + e^epsilon P)`` (Mathematics page, eq. 7.9), in
        [P, 1]; 0 at P = 0 and 1 at P = 1 whatever epsilon.

    Raises
    ------
    %(raises_range)s

    Examples
    --------
    >>> from diffident import posterior_bound
    >>> round(posterior_bound(1.0, prior=0.5), 12)
    0.73105857863
    """
    scalar = is_scalar(epsilon, prior)
    e, p = privacy_epsilon("epsilon", epsilon), probability("prior", prior)
    shape, (e, p, lh, ll) = _closed_form.flat_broadcast(e, p, *_log_odds(p))
    return ret(_posterior_bound(e, p, lh, ll).reshape(shape), scalar)


@overload
def epsilon_for_posterior(posterior: float, *, prior: float) -> float: ...


@overload
def epsilon_for_posterior(posterior: RealArrayLike, *, prior: RealArrayLike) -> FloatOrArray: ...


@shared_docs
def epsilon_for_posterior(posterior: RealArrayLike, *, prior: RealArrayLike) -> FloatOrArray:
    """The largest epsilon that keeps an adversary's posterior at or below q.

    Parameters
    ----------
    posterior : array_like
        The posterior bound q to respect, in [0, 1].
    prior : array_like
        The adversary's prior P, in [0, 1].

    Returns
    -------
    float or ndarray
        The largest float <= ``ln(q (1 - P) / (P (1 - q)))`` with `posterior_bound`
        <= q; inf where q = 1 or P = 0, 0 where q <= P < 1 or P = 1 > q.

    Raises
    ------
    %(raises_range)s

    Examples
    --------
    >>> from diffident import epsilon_for_posterior
    >>> round(epsilon_for_posterior(0.75, prior=0.5), 12)   # ln 3
    1.098612288668
    """
    scalar = is_scalar(posterior, prior)
    q, p = probability("posterior", posterior), probability("prior", prior)
    shape, (q, p, lh, ll) = _closed_form.flat_broadcast(q, p, *_log_odds(p))
    eps = np.where((q >= 1.0) | (p == 0.0), np.inf, 0.0)  # else 0: q <= P, or P = 1 > q
    live = np.flatnonzero((p < q) & (q < 1.0) & (p > 0.0))
    if live.size:
        ql, pl, lh, ll = q[live], p[live], lh[live], ll[live]
        h, l = _posterior_eps_star(ql, pl)

        def check(i, x):
            return _posterior_bound(x, pl[i], lh[i], ll[i]) <= ql[i]

        eps[live] = _closed_form.largest_below(check, h, l, "epsilon_for_posterior")
    return ret(eps.reshape(shape), scalar)


def _posterior_eps_star(q, p):
    """The exact ``ln(q (1 - P) / (P (1 - q)))`` as a double-double, for 1-d ``0 < P < q < 1``."""
    pf, pe = np.frexp(p)  # pe <= 0
    nh, nl = _dd.two_sum(q, -p)  # q - P exactly
    with np.errstate(all="ignore"):
        sh, sl = np.ldexp(nh, -pe), np.ldexp(nl, -pe)  # (q - P) / 2^pe: exact, or inf
        omh, oml = _dd.two_sum(1.0, -q)  # 1 - q exactly
        dh, dl = _dd.mul_d(omh, oml, pf)  # P (1 - q) / 2^pe, normal

    def logs(i):
        ah, al = _dd.log(nh[i], nl[i])
        bh, bl = _dd.log(p[i], np.zeros(i.size))
        ch, cl = _dd.log(omh[i], oml[i])
        dh, dl = _dd.add(ah, al, -bh, -bl)
        return _dd.add(dh, dl, -ch, -cl)

    return _closed_form.log_ratio(sh, sl, dh, dl, logs)

