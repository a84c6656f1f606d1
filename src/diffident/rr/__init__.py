"""Randomized response in the local model (Mathematics page, section 7).

Three families of schemes, all vectorised and broadcasting NumPy-style:

*   The two-parameter scheme for one bit ``x``: keep the true bit with
    probability ``1 - p``; otherwise (probability ``p``) report 1 with
    probability ``1 - k`` and 0 with probability ``k``.  So:

        P(report 1 | x = 1) = 1 - p k        P(report 1 | x = 0) = p (1 - k)
        P(report 0 | x = 1) = p k            P(report 0 | x = 0) = 1 - p + p k

    Functions: `epsilon`, `epsilon_bound`, `posterior`, `estimate`,
    `variance`, `sample`.

*   Warner's coin (truthful with probability ``p``, else the opposite) and
    its ``d``-category generalisation (truthful with probability ``p``, else
    one of the other ``d - 1`` categories uniformly at random), calibrated
    to an epsilon: `warner_p`, `warner_epsilon`, `warner_estimate`,
    `kary_p`, `kary_epsilon`, `kary_estimate`, `kary_sample`.  Warner's
    coin with truth probability ``t`` is the two-parameter scheme with
    ``p = 2 (1 - t)``, ``k = 1/2``.

*   Differential identifiability for one respondent:
    `identification_risk` and `rho`.

Conventions.  Probabilities are float64 in [0, 1]; the edges are allowed and
give documented values (``inf`` for an epsilon when some report reveals the
bit, ``nan`` for the posterior after a report that cannot happen) rather than
errors, so that grid sweeps run through.  Functions of scalars return a
Python float.  Bad input (a probability outside [0, 1], NaN, a negative
epsilon, fewer than two or a non-integer number of categories, ``n <= 0``)
raises ``ValueError`` naming the argument and the value (``TypeError`` for
an argument that is not a number, a bool number of categories, or an rng
that is not a ``numpy.random.Generator``).

The exact epsilon of the two-parameter scheme in closed form.  Both
likelihood ratios that can exceed one are ``1 + (1 - p) / (p (1 - k))``
(report 1) and ``1 + (1 - p) / (p k)`` (report 0), so:

    epsilon = ln(1 + (1 - p) / (p min(k, 1 - k)))

which is ``max(ln((1 - p k)/(p (1 - k))), ln((1 - p + p k)/(p k)))``
(Mathematics page, eq. 7.6) written without cancellation.  Note:
``-ln(p k)`` bounds only the report-0 ratio, and is *not* an upper bound on
epsilon when ``k > 1/2`` (``p = 0.1, k = 0.9``: epsilon 4.51 > -ln(p k) =
2.41).  The valid bound is ``-ln(p min(k, 1 - k))``, equal to ``-ln(p k)``
for ``k <= 1/2``; `epsilon_bound` returns that.

Accuracy.  Every function is accurate to a few units in the last place
(measured: relative error below 5e-16; tested at <= 1e-12 against a
60-digit reference) for all inputs in its domain, including probabilities down to
the subnormal 5e-324 and up to ``1 - 2**-53`` and epsilons up to ``inf``,
with these documented limits: a true result below float64's normal range
(``2**-1022``, about 2.2e-308) comes back rounded to the subnormal grid
(an absolute error of at most a few times ``2**-1074``, 5e-324) or as 0,
one beyond the largest float as ``inf``; and `kary_estimate` is accurate
relative to the two terms it adds (see there).  The means: a posterior is
computed from its own joint probabilities, never as one minus another
(``P(x = 0 | r)`` is not ``1 - P(x = 1 | r)``); products of probabilities
keep their binary exponents apart (``frexp``), so that a product that is
subnormal or 0 in float64 although its factors are not loses nothing, and
a log-ratio whose quotient would overflow is taken as a difference of
logarithms; a difference that cancels (``d p - 1``, ``q - p (1 - k)``,
``n_yes - n (1 - p)``) is formed from error-free products (Dekker's
two-product) and summed exactly (Priest's doubly compensated summation).
The inputs themselves are taken as exact: ``1/3`` is the float just below
one third, and `kary_epsilon` treats it so.
"""

from ._estimators import estimate, kary_estimate, variance, warner_estimate
from ._posteriors import identification_risk, posterior, rho
from ._privacy import epsilon, epsilon_bound, kary_epsilon, kary_p, warner_epsilon, warner_p
from ._samplers import kary_sample, sample

__all__ = [
    "epsilon",
    "epsilon_bound",
    "posterior",
    "estimate",
    "variance",
    "sample",
    "warner_p",
    "warner_epsilon",
    "warner_estimate",
    "kary_p",
    "kary_epsilon",
    "kary_estimate",
    "kary_sample",
    "identification_risk",
    "rho",
]

# The code lives in the private modules; each name is documented, doctested
# (doctest.testmod(diffident.rr)) and pickled as diffident.rr.<name>.
for _name in __all__:
    globals()[_name].__module__ = __name__
del _name
