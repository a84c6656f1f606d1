"""Independent high-precision reference for diffident's computations.

Everything here is written from the Mathematics page (sections 2-5 and 7) with the
plainest possible formulas, evaluated in mpmath at ``DPS`` significant
digits.  None of it calls diffident.  Float64 inputs are taken as exact
numbers (``mpmath.mpf(float)`` is exact), so the results are the true values
of the formulas at the given inputs, good to far more digits than float64
holds.  mpmath numbers have an unbounded exponent: ``exp(-1e12)`` is a
perfectly ordinary number here, so no log-sum-exp tricks are needed.

Only one transformation is applied to the data: entries with equal value and
equal prior weight are merged into one entry whose count is the sum of their
counts.  That is mathematically exact (their likelihood terms are identical)
and lets a million worlds drawn from a few hundred values be handled quickly.

Conventions (as in the diffident spec): Laplace likelihood
``L_k(R) = exp(-|R - f_k| / scale)``, Gaussian likelihood
``L_k(R) = exp(-(R - f_k)^2 / (2 scale^2))`` (``noise="gaussian"``, scale is
sigma); ``counts`` c_k >= 0 are multiplicities; ``prior`` pi_k >= 0 is the
unnormalised prior weight of ONE world of entry k.

The engine core (sections 2-5): ``log_evidence``, ``log_posterior``,
``posterior``, ``disclosure_risk``, ``world_risks``, ``worst_case_risk``,
``tight_scale`` (plain bisection) and the closed forms ``epsilon_for_rho``,
``rho_for_epsilon``, ``scale_for_rho``, ``risk_bound``, ``min_rho`` and
``effective_worlds``.  Beyond them (section 7 and the hardening tests):

* ``gaussian_delta``: the (rho, delta)-identifiability of Gaussian noise,
  delta_j(rho) = P_{R ~ N(f_j, sigma^2)}[P(w_j | R) > rho], with the interval
  {P > rho} located by bisection at ``DPS`` digits and the normal mass
  integrated with erfc (no cancellation in a tail);
* ``multi_worst_case_risk``: the dense worst case of q independent Laplace
  releases;
* ``sweep_worst_case_risk``: the O(u) sorted sweep (Mathematics page, eq. 4.2)
  (left and right sums) at ``DPS`` digits, for large world sets with many
  distinct values;
* ``epsilon_for_posterior`` and ``posterior_bound``;
* ``analytic_gaussian_delta`` and ``analytic_gaussian_sigma``: the analytic
  Gaussian mechanism's delta at sigma and its exact root, at 50 digits, and
  ``classic_gaussian_sigma``;
* ``expected_success``: the MAP adversary's success probability, the
  integral of max_k pi_k p(R | f_k) over R taken piecewise between every
  value and every pairwise crossing of the curves;
* ``integer_interval_mass``, ``integer_pmf`` and ``integer_normaliser``:
  the discrete Laplace and discrete Gaussian (section 11) by plain sums at
  50 digits;
* ``removal_ranges_exact``: dataset-level sensitive ranges per removed
  individual in exact rational arithmetic (``fractions.Fraction``), for the
  ties of ``return_removed``;
* ``pair``, ``finite_pair``, ``compose_pairs`` and ``calibrated``: the
  mechanisms' measures (profile, trade-off curve, advantage, posterior,
  inverse) read off each pair of output distributions by definition,
  their compositions and calibrations; ``ratio_profile_epsilon`` (Kazan and
  Reiter), ``round_up`` and ``sigma_round_up`` (exact rounding upward).

The O(m^2) float64 definitions live in :mod:`diffident.testing.dense`.
Importing this module needs mpmath (a test dependency, not a dependency of
diffident).

Run it as a script for a self-check against the check values of the Mathematics page::

    python -m diffident.testing.mpmath_reference
"""

from mpmath import mp, mpf

from . import _mpmath_beyond, _mpmath_core, _mpmath_expected, _mpmath_integer, _mpmath_mechanisms
from ._mpmath_beyond import *  # noqa: F403  (the names of __all__ below)
from ._mpmath_core import *  # noqa: F403
from ._mpmath_expected import *  # noqa: F403
from ._mpmath_integer import *  # noqa: F403
from ._mpmath_mechanisms import *  # noqa: F403

__all__ = ["mp", "mpf", *_mpmath_core.__all__, *_mpmath_beyond.__all__, *_mpmath_expected.__all__,
           *_mpmath_integer.__all__, *_mpmath_mechanisms.__all__]


def _self_check():
    """Print the Mathematics page's check values next to the reference's own."""
    c = _mpmath_core
    with mp.workdps(c.DPS):
        # section 2: f = mean of {1,2,3,x}, x in {4,5,10}; eps = 2, S = 9/4
        vals = [2.5, 2.75, 4.0]
        print("sec2 posterior of world 3:", float(c.disclosure_risk(vals, response=5.041, scale=(9 / 4) / 2, world=2)))
        means = [2, 8 / 3, 3, 10 / 3, 11 / 3, 4, 13 / 3, 14 / 3]
        lam = float(c.scale_for_rho(1 / 3, m=8, sensitive_range=8 / 3))
        print("sec3 lam:", lam, "eps:", float(c.epsilon_for_rho(1 / 3, m=8)))
        print("sec3 risk world 1 at R=2:", float(c.disclosure_risk(means, response=2.0, scale=lam, world=0)))
        ts = c.tight_scale(means, rho=1 / 3)
        print("sec4 tight eps (mean):", float((mpf(14) / 3 - 2) / ts))
        print("sec4 worst:", c.worst_case_risk(means, scale=float(ts)))
        med = [2, 3, 3, 3, 3, 3, 3, 3]
        print("median tight eps:", float(1 / c.tight_scale(med, rho=1 / 3)),
              "bound eps:", float(c.epsilon_for_rho(1 / 3, m=8)))
        print("median risk at bound scale:",
              c.disclosure_risk(med, response=2.0, scale=float(c.scale_for_rho(1 / 3, m=8, sensitive_range=1.0)),
                                world=0))


if __name__ == "__main__":
    _self_check()
