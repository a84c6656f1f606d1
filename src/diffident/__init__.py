"""diffident: differential identifiability.

How likely is an informed adversary to identify a person from a noisy
statistic, and how much noise keeps that probability under a bound rho?
Implements J. Lee and C. Clifton, "Differential Identifiability" (KDD 2012)
and goes beyond it with the exact worst-case risk and tight calibration.
"""

from . import dp, rr
from ._calibrate.neighbours import dataset_tight_scale
from ._calibrate.tight import tight_epsilon, tight_scale
from ._mechanisms.base import Mechanism
from ._mechanisms.calibrate import calibrate
from ._mechanisms.explain import Explanation, explain
from ._mechanisms.guarantees import ApproxDP, PureDP
from ._mechanisms.integer import DiscreteGaussian, DiscreteLaplace
from ._mechanisms.noise import Gaussian, Laplace, RandomizedResponse
from ._mechanisms.pld import Composition, SubsampledGaussian, compose
from ._mechanisms.risk_profiles import RatioProfile, profile_epsilon
from ._numerics.search import ConvergenceWarning
from ._risk.chunked import (
    chunked_disclosure_risk,
    chunked_log_evidence,
    chunked_worst_case_risk,
    iter_chunks,
)
from ._risk.closed_form import epsilon_for_rho, rho_for_epsilon, risk_bound, scale_for_rho
from ._risk.expected import expected_risk
from ._risk.gaussian import gaussian_delta, gaussian_sigma_for
from ._risk.membership import membership_risk, membership_tight_scale
from ._risk.posterior import disclosure_risk, log_evidence, log_posterior, posterior
from ._risk.releases import multi_tight_scale, multi_worst_case_risk
from ._risk.worlds_count import effective_worlds, min_rho
from ._risk.worst_case import worst_case_risk
from ._sweep.sweep import InferredDomainWarning, OverBudget, OverBudgetWarning, SkippedColumnWarning, SweepTable, sweep
from ._worlds.dataset import dataset_sensitive_range
from ._worlds.possible import contributions, sensitive_range, world_values
from ._worlds.sets import Domain
from .dp import (  # the names of diffident.dp, importable from here as before
    ClassicGaussianWarning,
    analytic_gaussian_delta,
    analytic_gaussian_sigma,
    classic_gaussian_sigma,
    compose_parallel,
    compose_sequential,
    discrete_gaussian_sigma,
    discrete_gaussian_zcdp,
    discrete_laplace_epsilon,
    discrete_laplace_scale,
    epsilon_for_posterior,
    epsilon_per_release,
    geometric_p,
    geometric_scale,
    posterior_bound,
    rho_after_composition,
)

__version__ = "0.1.0"

__all__ = [
    "epsilon_for_rho",
    "scale_for_rho",
    "rho_for_epsilon",
    "risk_bound",
    "min_rho",
    "effective_worlds",
    "log_evidence",
    "log_posterior",
    "posterior",
    "disclosure_risk",
    "worst_case_risk",
    "expected_risk",
    "tight_scale",
    "tight_epsilon",
    "ConvergenceWarning",
    "Domain",
    "world_values",
    "sensitive_range",
    "contributions",
    "dataset_sensitive_range",
    "dataset_tight_scale",
    "sweep",
    "SweepTable",
    "InferredDomainWarning",
    "SkippedColumnWarning",
    "OverBudget",
    "OverBudgetWarning",
    "multi_worst_case_risk",
    "multi_tight_scale",
    "gaussian_delta",
    "gaussian_sigma_for",
    "membership_risk",
    "membership_tight_scale",
    "Mechanism",
    "Laplace",
    "Gaussian",
    "DiscreteLaplace",
    "DiscreteGaussian",
    "RandomizedResponse",
    "PureDP",
    "ApproxDP",
    "SubsampledGaussian",
    "Composition",
    "compose",
    "calibrate",
    "RatioProfile",
    "profile_epsilon",
    "explain",
    "Explanation",
    "chunked_log_evidence",
    "chunked_disclosure_risk",
    "chunked_worst_case_risk",
    "iter_chunks",
    "dp",
    "rr",
    # the names of diffident.dp, importable from here too (listed, not added
    # at run time, so that type checkers see them exported)
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
