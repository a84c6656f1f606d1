"""The Bayesian reading of epsilon-DP (`diffident.dp`; Mathematics page,
section 7): the largest posterior of an adversary with prior P after an
epsilon-DP release, and the epsilon that keeps it at or below a bound.
Both are evaluated in double-double arithmetic like the paper's closed
forms (`diffident._risk.closed_form`), which are the case P = 1/m.
"""

from typing import overload

import numpy as np

from .._numerics import dd as _dd
from .._numerics.validate import is_scalar, privacy_epsilon, probability, ret
from .._risk import closed_form as _closed_form
from .._typing import FloatOrArray, RealArrayLike


def _log_odds(p):
    """``ln((1 - P) / P)`` as a double-double, any shape: ``ln(1 - P) -
    ln P`` (1 - P exact), ``-inf`` at P = 1 and ``inf`` at P = 0.
    """
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
    """`posterior_bound` for 1-d arrays, ``lh, ll = _log_odds(p)``: the
    paper's bound with ``m - 1`` replaced by ``(1 - P) / P``.
    """
    out = _closed_form.bound(e, np.zeros_like(e), np.where(p == 0.0, -np.inf, lh), ll, p)
    return np.where(p == 0.0, 0.0, out)


@overload
def posterior_bound(epsilon: float, *, prior: float) -> float: ...


@overload
def posterior_bound(epsilon: RealArrayLike, *, prior: RealArrayLike) -> FloatOrArray: ...


def posterior_bound(epsilon: RealArrayLike, *, prior: RealArrayLike) -> FloatOrArray:
    """The Bayesian reading of epsilon-DP: the largest posterior after a release.

    An adversary who must tell two worlds apart and gives the true one prior
    probability P ends, after an epsilon-DP release, with a posterior of at
    most

        e^epsilon P / (1 - P + e^epsilon P)

    (Mathematics page, eq. 7.9), computed like `rho_for_epsilon` with ``m - 1``
    replaced by ``(1 - P) / P``: ``1 / (1 + e^(ln((1 - P)/P) - epsilon))``
    in double-double arithmetic, rounded once to the nearest float (no
    overflow for a tiny prior, and exact to half an ulp where the bound is
    flat in epsilon).  The paper's ``rho = 1 / (1 + (m - 1) e^-epsilon)``
    is the case ``P = 1/m`` (`rho_for_epsilon`).

    Parameters
    ----------
    epsilon : array_like
        Privacy parameter(s), >= 0 (``inf`` allowed: no noise).
    prior : array_like
        The adversary's prior P of the true world, in [0, 1].

    Returns
    -------
    float or ndarray
        The bound, in [P, 1], broadcast over the inputs: P at epsilon 0,
        1 at epsilon inf (for P > 0); 0 for P = 0 and 1 for P = 1 whatever
        epsilon (nothing can move a certain belief).

    Raises
    ------
    ValueError
        For negative or NaN epsilon, prior outside [0, 1] or NaN, or inputs
        that do not broadcast.
    TypeError
        If an argument is not real numbers (a string, complex values).

    See Also
    --------
    epsilon_for_posterior : The inverse: the epsilon for a posterior bound.

    rho_for_epsilon : The case P = 1/m.

    Examples
    --------
    >>> from diffident import posterior_bound
    >>> round(posterior_bound(1.0, prior=0.5), 12)
    0.73105857863
    >>> posterior_bound(0.0, prior=0.25)
    0.25
    """
    scalar = is_scalar(epsilon, prior)
    e, p = privacy_epsilon("epsilon", epsilon), probability("prior", prior)
    shape, (e, p, lh, ll) = _closed_form.flat_broadcast(e, p, *_log_odds(p))
    return ret(_posterior_bound(e, p, lh, ll).reshape(shape), scalar)


@overload
def epsilon_for_posterior(posterior: float, *, prior: float) -> float: ...


@overload
def epsilon_for_posterior(posterior: RealArrayLike, *, prior: RealArrayLike) -> FloatOrArray: ...


def epsilon_for_posterior(posterior: RealArrayLike, *, prior: RealArrayLike) -> FloatOrArray:
    """The largest epsilon that keeps an adversary's posterior at or below q.

    The epsilon at which `posterior_bound` equals the given posterior q for
    an adversary with prior P:

        epsilon = ln(q (1 - P) / (P (1 - q)))
                = log1p((q - P) / (P (1 - q))),   q = posterior,

    computed in the second form (no cancellation for q near P) in
    double-double arithmetic (the ratio in logarithms where it would
    overflow); the answer is the largest float at or below that exact value
    at which ``posterior_bound(epsilon, prior=P) <= q`` holds in floating point:
    conservative at any precision and within an ulp of the exact inverse.

    Parameters
    ----------
    posterior : array_like
        The posterior bound q to respect, in [0, 1].
    prior : array_like
        The adversary's prior P, in [0, 1].

    Returns
    -------
    float or ndarray
        The epsilon, >= 0, broadcast over the inputs.  Edge values: ``inf``
        where q = 1 or P = 0 (any epsilon keeps the bound); ``0`` where
        ``q <= P < 1`` or where ``P = 1 > q``: a posterior below the prior
        is unattainable (epsilon 0, no information, is the best there is;
        the paper's infinite noise).

    Raises
    ------
    ValueError
        For posterior or prior outside [0, 1] or NaN, or inputs that do not
        broadcast.
    TypeError
        If an argument is not real numbers (a string, complex values).

    See Also
    --------
    posterior_bound : The bound that this epsilon meets.

    epsilon_for_rho : The case P = 1/m.

    Examples
    --------
    >>> from diffident import epsilon_for_posterior
    >>> round(epsilon_for_posterior(0.75, prior=0.5), 12)   # ln 3
    1.098612288668
    >>> epsilon_for_posterior(0.2, prior=0.5)                # below the prior
    0.0
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
    """The exact ``ln(q (1 - P) / (P (1 - q)))`` as a double-double, for
    1-d arrays with ``0 < P < q < 1``: ``log1p((q - P) / (P (1 - q)))``,
    with P's power of two taken out (P may be subnormal), or ``ln(q - P) -
    ln P - ln(1 - q)`` where the quotient overflows.
    """
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

