"""What one report tells the adversary (`diffident.rr`): posteriors, identification risk and rho."""


import numpy as np

from .._numerics.renamed import renamed
from .._numerics.shared_docs import shared_docs
from .._numerics.validate import bits, is_scalar, probability, ret
from .._typing import FloatOrArray, RealArrayLike
from ._exact import shares_of_products


def _posterior_table(p, k, prior):
    """``{(r, x): P(x | report r)}`` for both reports and bits, each from its own
    joint probabilities (to a few ulps); nan where the report has probability 0.
    """
    q0 = 1.0 - prior
    x1, x0 = shares_of_products(((1.0 - p) + p * (1.0 - k), prior), (p, 1.0 - k, q0))   # report 1
    y1, y0 = shares_of_products((p, k, prior), ((1.0 - p) + p * k, q0))                 # report 0
    return {(1, 1): x1, (1, 0): x0, (0, 1): y1, (0, 0): y0}


@renamed("0.2.0", p="flip", k="zero")
@shared_docs
def posterior(flip: RealArrayLike, *, zero: RealArrayLike, prior: RealArrayLike,
              report: RealArrayLike = 1) -> FloatOrArray:
    """The adversary's posterior that ``x = 1`` after a report (Bayes' rule).

    Parameters
    ----------
    %(flip)s
    %(zero)s
    prior : array_like
        The adversary's prior ``P(x = 1)``, in [0, 1].
    report : array_like of {0, 1}, optional
        The observed report(s) (default 1).

    Returns
    -------
    float or ndarray
        ``P(x = 1 | report)`` (Mathematics page, eq. 7.7), in [0, 1]; ``nan``
        where the report has probability zero under the prior.

    Raises
    ------
    ValueError
        If flip, zero or prior is outside [0, 1] or NaN, or report is not 0 or 1.
    TypeError
        If an argument is not real numbers (a string, a bool, complex values).

    Examples
    --------
    >>> from diffident import rr
    >>> rr.posterior(0.5, zero=0.5, prior=0.5, report=[1, 0])
    array([0.75, 0.25])
    """
    scalar = is_scalar(flip, zero, prior, report)
    pp, kk, pr, r = np.broadcast_arrays(
        probability("flip", flip), probability("zero", zero), probability("prior", prior), bits("report", report)
    )
    post = _posterior_table(pp, kk, pr)
    return ret(np.where(r == 1, post[1, 1], post[0, 1]), scalar)


@renamed("0.2.0", p="flip", k="zero")
@shared_docs
def identification_risk(flip: RealArrayLike, *, zero: RealArrayLike, prior: RealArrayLike,
                        value: RealArrayLike = 1) -> FloatOrArray:
    """The adversary's largest posterior that the respondent's bit equals ``value``.

    Parameters
    ----------
    %(flip)s
    %(zero)s
    prior : array_like
        The adversary's prior ``P(x = 1)``, in [0, 1].
    value : array_like of {0, 1}, optional
        The sensitive value (default 1).

    Returns
    -------
    float or ndarray
        ``max_r P(x = value | r)`` over the possible reports r, in ``[P(x = value), 1]``;
        1 where a report reveals ``x = value``, unless the prior rules it out (0).

    Raises
    ------
    ValueError
        If flip, zero or prior is outside [0, 1] or NaN, or value is not 0 or 1.
    TypeError
        If an argument is not real numbers (a string, a bool, complex values).

    Examples
    --------
    >>> from diffident import rr
    >>> round(rr.identification_risk(0.5, zero=0.5, prior=0.1), 12)  # 0.3 / 1.2
    0.25
    """
    scalar = is_scalar(flip, zero, prior, value)
    pp, kk, pr, v = np.broadcast_arrays(
        probability("flip", flip), probability("zero", zero), probability("prior", prior), bits("value", value)
    )
    # max_r P(x = value | r) over the possible reports r (fmax skips the
    # nan of an impossible one; at least one report is possible)
    post = _posterior_table(pp, kk, pr)
    out = np.where(v == 1, np.fmax(post[1, 1], post[0, 1]), np.fmax(post[1, 0], post[0, 0]))
    return ret(out, scalar)


@renamed("0.2.0", p="flip", k="zero")
@shared_docs
def rho(flip: RealArrayLike, *, zero: RealArrayLike, prior: RealArrayLike) -> FloatOrArray:
    """The rho that the two-parameter scheme guarantees for a prior.

    Parameters
    ----------
    %(flip)s
    %(zero)s
    prior : array_like
        The adversary's prior ``P(x = 1)``, in [0, 1].

    Returns
    -------
    float or ndarray
        The largest posterior of the true bit, over both bits and all reports
        (Mathematics page, sections 1 and 3), in ``[max(prior, 1 - prior), 1]``;
        at most the bound of Mathematics page, eq. 7.9, with P = max(prior, 1 - prior).

    Raises
    ------
    ValueError
        If flip, zero or prior is outside [0, 1] or NaN.
    TypeError
        If an argument is not real numbers (a string, a bool, complex values).

    Examples
    --------
    >>> from diffident import rr
    >>> round(rr.rho(0.5, zero=0.5, prior=0.9), 12)  # 2.7 / 2.8
    0.964285714286
    """
    scalar = is_scalar(flip, zero, prior)
    pp, kk, pr = np.broadcast_arrays(probability("flip", flip), probability("zero", zero), probability("prior", prior))
    # max over the possible reports r of max_x P(x | r) (>= 1/2, so attained
    # at an x of positive prior that can produce r); each posterior from its
    # own joint probabilities, never as one minus the other
    post = _posterior_table(pp, kk, pr)
    out = np.fmax(np.fmax(post[1, 1], post[1, 0]), np.fmax(post[0, 1], post[0, 0]))
    return ret(out, scalar)
