"""What one report tells the adversary (`diffident.rr`): the posterior
after a report, the identification risk and the rho of the two-parameter
scheme, each posterior from its own joint probabilities.
"""


import numpy as np

from .._numerics.validate import bits, is_scalar, probability, ret
from .._typing import FloatOrArray, RealArrayLike
from ._exact import shares_of_products


def _posterior_table(p, k, prior):
    """``{(r, x): P(x | report r)}`` by Bayes for both reports and both
    bits, each from its own joint probabilities ``P(r, x)`` (never as one
    minus another), to a few ulps with no under- or overflow on the way; nan
    where the report has probability 0.  The joint probabilities are
    products of non-negative float64 factors formed without cancellation:
    the likelihoods ``1 - p k = (1 - p) + p (1 - k)`` and ``1 - p + p k``
    are sums of non-negative terms, ``1 - prior`` is the prior of x = 0.
    """
    q0 = 1.0 - prior
    x1, x0 = shares_of_products(((1.0 - p) + p * (1.0 - k), prior), (p, 1.0 - k, q0))   # report 1
    y1, y0 = shares_of_products((p, k, prior), ((1.0 - p) + p * k, q0))                 # report 0
    return {(1, 1): x1, (1, 0): x0, (0, 1): y1, (0, 0): y0}


def posterior(p: RealArrayLike, *, k: RealArrayLike, prior: RealArrayLike, report: RealArrayLike = 1) -> FloatOrArray:
    """The adversary's posterior that ``x = 1`` after a report (Bayes' rule).

    Report 1: ``(1 - p k) P1 / ((1 - p) P1 + p (1 - k))`` (Mathematics page,
    eq. 7.7; this is Bayes'
    ``(1 - p k) P1 / ((1 - p k) P1 + p (1 - k) (1 - P1))`` with the
    denominator simplified).  Report 0:
    ``p k P1 / (p k P1 + (1 - p + p k)(1 - P1))
    = p k P1 / ((1 - p)(1 - P1) + p k)``.

    Parameters
    ----------
    p : array_like
        Probability of not keeping the true bit, in [0, 1].
    k : array_like
        Probability of reporting 0 when the bit is not kept, in [0, 1].
    prior : array_like
        The adversary's prior ``P1 = P(x = 1)``, in [0, 1].
    report : array_like of {0, 1}, optional
        The observed report(s) (default 1).

    Returns
    -------
    float or ndarray
        ``P(x = 1 | report)`` in [0, 1]; ``nan`` where the report has
        probability zero under the prior (e.g. report 1 with ``p = k = 1``,
        or with ``prior = 0`` and ``p (1 - k) = 0``).

    Raises
    ------
    ValueError
        If p, k or prior is outside [0, 1] or NaN, or report is not 0 or 1.
    TypeError
        If an argument is not real numbers (a string, a bool, complex values).

    Notes
    -----
    Both joint probabilities ``P(report, x)`` are products of factors formed
    without cancellation (``1 - p k`` as ``(1 - p) + p (1 - k)``), kept as
    mantissas and binary exponents apart, so that the posterior is accurate
    to a few ulps even where a joint probability is subnormal or 0 in
    float64 (p, k or prior down to 5e-324).  A posterior below ``2**-1022``
    comes back rounded to the subnormal grid (or 0).

    Examples
    --------
    >>> from diffident import rr
    >>> rr.posterior(0.5, k=0.5, prior=0.5, report=1)    # Warner's coin at 3/4
    0.75
    >>> rr.posterior(0.5, k=0.5, prior=0.5, report=[1, 0])
    array([0.75, 0.25])
    """
    scalar = is_scalar(p, k, prior, report)
    pp, kk, pr, r = np.broadcast_arrays(
        probability("p", p), probability("k", k), probability("prior", prior), bits("report", report)
    )
    post = _posterior_table(pp, kk, pr)
    return ret(np.where(r == 1, post[1, 1], post[0, 1]), scalar)


def identification_risk(p: RealArrayLike, *, k: RealArrayLike, prior: RealArrayLike,
                        value: RealArrayLike = 1) -> FloatOrArray:
    """The adversary's largest posterior that the respondent's bit equals ``value``.

    The largest is taken over the reports the scheme can produce.  The
    adversary knows the scheme (p, k), has the prior
    ``P(x = 1) = prior`` and sees the respondent's one report r; the risk is
    ``max_r P(x = value | r)`` over the reports r of positive probability.
    It is the worst case over reports (not an average): the confidence the
    adversary can reach about the sensitive value when the report is the
    most revealing one.  With ``value = 1`` it is attained at report 1 (the
    report-1 likelihood ratio is >= 1), so it equals
    ``posterior(p, k=k, prior=prior, report=1)`` unless report 1 is impossible.

    Membership reading: let ``x = 1`` mean "the person is in the data" and
    the report be whatever the mechanism publishes about it; then this is
    the adversary's largest posterior belief that the person is in the data
    (differential identifiability's disclosure event), with ``prior`` the
    prior probability of membership.

    Parameters
    ----------
    p : array_like
        Probability of not keeping the true bit, in [0, 1].
    k : array_like
        Probability of reporting 0 when the bit is not kept, in [0, 1].
    prior : array_like
        The adversary's prior ``P(x = 1)``, in [0, 1].
    value : array_like of {0, 1}, optional
        The sensitive value (default 1).

    Returns
    -------
    float or ndarray
        The risk in ``[P(x = value), 1]``; 1 where some report reveals that
        ``x = value`` (e.g. ``p = 0``, or ``k = 1`` for value 1, unless the
        prior rules the value out, which gives 0).

    Raises
    ------
    ValueError
        If p, k or prior is outside [0, 1] or NaN, or value is not 0 or 1.
    TypeError
        If an argument is not real numbers (a string, a bool, complex values).

    Notes
    -----
    ``P(x = 0 | r)`` is computed from the joint probability of ``x = 0``
    and r, never as ``1 - P(x = 1 | r)``, which loses the digits of a small
    value (about 7 at ``prior = 1 - 1e-10``); as for `posterior`, the result
    is accurate to a few ulps for probabilities down to 5e-324, and a risk
    below ``2**-1022`` comes back rounded to the subnormal grid (or 0).

    Examples
    --------
    >>> from diffident import rr
    >>> rr.identification_risk(0.5, k=0.5, prior=0.5)    # Warner's coin at 3/4
    0.75
    >>> # 0.3 / (0.3 + 0.9)
    >>> round(rr.identification_risk(0.5, k=0.5, prior=0.1), 12)
    0.25
    """
    scalar = is_scalar(p, k, prior, value)
    pp, kk, pr, v = np.broadcast_arrays(
        probability("p", p), probability("k", k), probability("prior", prior), bits("value", value)
    )
    # max_r P(x = value | r) over the possible reports r (fmax skips the
    # nan of an impossible one; at least one report is possible)
    post = _posterior_table(pp, kk, pr)
    out = np.where(v == 1, np.fmax(post[1, 1], post[0, 1]), np.fmax(post[1, 0], post[0, 0]))
    return ret(out, scalar)


def rho(p: RealArrayLike, *, k: RealArrayLike, prior: RealArrayLike) -> FloatOrArray:
    """The rho that the two-parameter scheme guarantees for a prior.

    It is the adversary's largest posterior of the *true* bit, over both
    true bits and every report:
    ``rho = max_x max_r P(x | r)`` over ``x`` in {0, 1} and the reports r
    that x can produce.  For every respondent and every report the
    adversary's posterior belief in the respondent's actual bit is at most
    rho: the scheme is rho-differentially identifiable (Mathematics page,
    sections 1 and 3, with the two worlds x = 0 and x = 1 and prior weights
    ``1 - prior`` and ``prior``).  Equivalently
    ``max(identification_risk(..., value=1), identification_risk(..., value=0))``.

    Properties: ``rho >= max(prior, 1 - prior)`` (no report lowers the
    adversary's best guess below the prior); at ``prior = 1/2`` it is
    ``1 / (1 + e^-epsilon)``, the paper's ``rho = 1/(1 + (m - 1) e^-eps)``
    with m = 2 worlds and the exact `epsilon`; for any prior
    ``rho <= e^eps P / (1 - P + e^eps P)`` with ``P = max(prior, 1 - prior)``
    (the Bayesian reading of eps-DP, Mathematics page, eq. 7.9), with
    equality at ``k = 1/2``.

    Parameters
    ----------
    p : array_like
        Probability of not keeping the true bit, in [0, 1].
    k : array_like
        Probability of reporting 0 when the bit is not kept, in [0, 1].
    prior : array_like
        The adversary's prior ``P(x = 1)``, in [0, 1].

    Returns
    -------
    float or ndarray
        The rho, in ``[max(prior, 1 - prior), 1]``; 1 wherever epsilon is
        infinite or the prior is 0 or 1.

    Raises
    ------
    ValueError
        If p, k or prior is outside [0, 1] or NaN.
    TypeError
        If an argument is not real numbers (a string, a bool, complex values).

    Notes
    -----
    Each posterior is computed from its own joint probabilities (see
    `identification_risk`), to a few ulps for probabilities down to
    5e-324.

    Examples
    --------
    >>> from diffident import rr
    >>> rr.rho(0.5, k=0.5, prior=0.5)                    # 1 / (1 + e^-ln 3)
    0.75
    >>> round(rr.rho(0.5, k=0.5, prior=0.9), 12)         # 0.9 * 3 / (0.9 * 3 + 0.1)
    0.964285714286
    """
    scalar = is_scalar(p, k, prior)
    pp, kk, pr = np.broadcast_arrays(probability("p", p), probability("k", k), probability("prior", prior))
    # max over the possible reports r of max_x P(x | r) (>= 1/2, so attained
    # at an x of positive prior that can produce r); each posterior from its
    # own joint probabilities, never as one minus the other
    post = _posterior_table(pp, kk, pr)
    out = np.fmax(np.fmax(post[1, 1], post[1, 0]), np.fmax(post[0, 1], post[0, 0]))
    return ret(out, scalar)
