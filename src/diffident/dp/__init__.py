"""Differential privacy: the companions to the paper's calibration.

The analytic and classic Gaussian mechanisms, the Bayesian reading of
epsilon-DP (Mathematics page, section 7), composition, and integer-noise
parameters as OpenDP, Tumult and the Census state them.  Calibrations err
on the private side; edge values are results, not errors, except for the
integer-noise conversions (the DP algorithms page).
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
