"""Differential privacy: the companions to the paper's calibration
(Mathematics page, section 7).

The analytic and the classic Gaussian mechanism, the Bayesian reading of
epsilon-DP for an adversary with prior P, composition, and the parameters
of integer noise (discrete Laplace and discrete Gaussian) as OpenDP,
Tumult and the Census state them.  All functions
broadcast NumPy-style and return a Python float for all-scalar input.
Import the namespace (``from diffident import dp``); every name is also
importable from ``diffident`` itself.

Calibrations err on the private side, against the exact values and
against the float evaluators a user checks them with:
`analytic_gaussian_sigma` returns the smallest float sigma at which the
mechanism's delta, evaluated stably with a bound on its error, is
certainly <= delta (and `analytic_gaussian_delta` is too);
`posterior_bound` is evaluated like `rho_for_epsilon` (double-double, one
rounding) and `epsilon_for_posterior` is the float below its exact
inverse; `epsilon_per_release` times k never exceeds the total.  Composed
epsilons and deltas are sums rounded upward, never below the exact sum,
and `rho_after_composition` rounds upward too.  Every search goes through
`diffident._numerics.search`.

Edge values are documented, never errors, so that grid sweeps run through:
``epsilon = inf`` means no noise (sigma 0, posterior bound 1), sensitivity
0 needs no noise, and an unattainable posterior or risk gives epsilon 0.
The integer-noise conversions are the exception: they describe noise a
mechanism adds, so a scale, sigma, epsilon, zcdp_rho or sensitivity of 0
or inf and a geometric p outside (0, 1) are errors.  Their guarantees
(epsilon, zcdp_rho) and calibrations (scale, sigma) are rounded to the
private side too.
"""

from ._composition import compose_parallel, compose_sequential, epsilon_per_release, rho_after_composition
from ._gaussian import ClassicGaussianWarning, analytic_gaussian_sigma, classic_gaussian_sigma
from ._gaussian_delta import analytic_gaussian_delta
from ._integer import (
    discrete_gaussian_sigma,
    discrete_gaussian_zcdp,
    discrete_laplace_epsilon,
    discrete_laplace_scale,
    geometric_p,
    geometric_scale,
)
from ._posterior import epsilon_for_posterior, posterior_bound

__all__ = [
    "analytic_gaussian_sigma",
    "analytic_gaussian_delta",
    "classic_gaussian_sigma",
    "ClassicGaussianWarning",
    "posterior_bound",
    "epsilon_for_posterior",
    "compose_sequential",
    "compose_parallel",
    "rho_after_composition",
    "epsilon_per_release",
    "discrete_laplace_epsilon",
    "discrete_laplace_scale",
    "geometric_scale",
    "geometric_p",
    "discrete_gaussian_zcdp",
    "discrete_gaussian_sigma",
]

# The code lives in the private modules; each name is documented, doctested
# (doctest.testmod(diffident.dp)) and pickled as diffident.dp.<name>.
for _name in __all__:
    globals()[_name].__module__ = __name__
del _name
