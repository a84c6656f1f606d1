"""asv benchmark suites for the diffident engine core.

Conventions (as in numpy's own ``benchmarks/``):

* ``params`` / ``param_names`` give the grid; ``setup`` receives the params.
* ``setup`` builds seeded data (``np.random.default_rng(0)``) **and calls every
  timed function once**, so JIT compilation / loading of the on-disk Numba
  cache never ends up inside a timing.
* ``time_*`` methods are timed, ``peakmem_*`` report peak RSS, ``track_*``
  return a number that asv records (here: correctness checks that should stay
  at 0 or near machine precision).

Run from the repository root, e.g.::

    asv check -E existing
    asv run --quick --python=same --bench LogEvidence
"""
import numpy as np

import diffident as di
from diffident.replicate.paper import ADULT_N, DOMAINS
from diffident.testing import COMPARISONS

from . import sizes, tune, warm_up

# the baselines (diffident.testing's table): scipy.special.logsumexp of the
# Laplace terms, and the O(m^2) formula max_j 1 / sum_k exp(-|f_j - f_k| / scale)
# in row blocks
scipy_log_evidence = COMPARISONS["log_evidence"].reference("scipy")
dense_worst_case_risk = COMPARISONS["worst_case_risk"].reference("dense")


def _rng():
    return np.random.default_rng(0)


def _values(m, rng=None):
    """m distinct (almost surely), unsorted query values."""
    rng = _rng() if rng is None else rng
    return rng.standard_normal(int(m)) * 10.0


class _OneResponse:
    """Suites at one response and one scale (class attributes) over m
    distinct unsorted values, with counts and a prior for the weighted
    timings."""

    param_names = ["m"]
    response = scale = None

    def setup(self, m):
        rng = _rng()
        self.values = _values(m, rng)
        self.counts = rng.integers(1, 5, size=int(m)).astype(np.float64)
        self.prior = rng.random(int(m)) + 0.5
        warm_up(self, m)


class LogEvidence(_OneResponse):
    """One response, one scale: log sum_k exp(-|R - f_k| / scale)."""

    params = [sizes([10**5, 10**6, 10**7], [10**5])]
    timeout = 300
    response, scale = 1.5, 2.0

    def time_diffident(self, m):
        di.log_evidence(self.values, response=self.response, scale=self.scale)

    def time_diffident_counts_prior(self, m):
        di.log_evidence(self.values, response=self.response, scale=self.scale,
                        counts=self.counts, prior=self.prior)

    def time_scipy_logsumexp(self, m):
        scipy_log_evidence(self.values, response=self.response, scale=self.scale)

    def peakmem_diffident(self, m):
        di.log_evidence(self.values, response=self.response, scale=self.scale)

    def track_rel_error_vs_scipy(self, m):
        ours = di.log_evidence(self.values, response=self.response, scale=self.scale)
        ref = scipy_log_evidence(self.values, response=self.response, scale=self.scale)
        return float(abs(ours - ref) / abs(ref))

    track_rel_error_vs_scipy.unit = "relative"


class LogEvidenceNoise:
    """One response over m integer values with each noise: the integer
    noises' lattice check rides in the evidence kernel's pass (target:
    discrete within 1.2x of continuous at m = 1e7)."""

    params = [sizes([10**6, 10**7], [10**5]), ["laplace", "discrete_laplace", "gaussian", "discrete_gaussian"]]
    param_names = ["m", "noise"]
    timeout = 120
    response, scale = 17.0, 3.0

    def setup(self, m, noise):
        self.values = _rng().integers(-10**6, 10**6, int(m)).astype(np.float64)
        warm_up(self, m, noise)

    def time_log_evidence(self, m, noise):
        di.log_evidence(self.values, response=self.response, scale=self.scale, noise=noise)


class ManyResponses:
    """Many responses at one scale over m worlds (issue target: 1e6 x 1e7 < 1 s)."""

    params = [sizes([10**5, 10**7], [10**5]), sizes([10**3, 10**6], [10**3])]
    param_names = ["m", "n_resp"]
    timeout = 600

    def setup(self, m, n_resp):
        rng = _rng()
        self.values = _values(m, rng)
        lo, hi = self.values.min(), self.values.max()
        width = hi - lo
        # responses spread over the data range and a bit beyond it
        self.responses = rng.uniform(lo - 0.1 * width, hi + 0.1 * width, int(n_resp))
        self.scale = 2.0
        warm_up(self, m, n_resp)

    def time_log_evidence(self, m, n_resp):
        di.log_evidence(self.values, response=self.responses, scale=self.scale)

    def peakmem_log_evidence(self, m, n_resp):
        di.log_evidence(self.values, response=self.responses, scale=self.scale)

    def track_rel_error_vs_scipy(self, m, n_resp):
        # spot-check 5 responses against scipy
        ours = di.log_evidence(self.values, response=self.responses[:5], scale=self.scale)
        ref = np.array([scipy_log_evidence(self.values, response=r, scale=self.scale) for r in self.responses[:5]])
        return float(np.max(np.abs(ours - ref) / np.abs(ref)))

    track_rel_error_vs_scipy.unit = "relative"


class WorstCaseRisk:
    """Distinct unsorted values, one scale (issue target: 1e7 values < 0.5 s incl. sort)."""

    params = [sizes([10**5, 10**6, 10**7], [10**5])]
    param_names = ["m"]
    timeout = 300

    def setup(self, m):
        self.values = _values(m)
        self.scale = 0.5
        warm_up(self, m, skip=("time_numpy_sort_only",))

    def time_worst_case_risk(self, m):
        di.worst_case_risk(self.values, scale=self.scale)

    def time_worst_case_risk_return_world(self, m):
        di.worst_case_risk(self.values, scale=self.scale, return_world=True)

    def time_numpy_sort_only(self, m):
        # lower bound reference: the sort that worst_case_risk has to do
        np.sort(self.values)

    def peakmem_worst_case_risk(self, m):
        di.worst_case_risk(self.values, scale=self.scale)


class WorstCaseRiskWeighted:
    """Repeated values with counts / prior weights."""

    params = [sizes([10**6], [10**5]), ["none", "counts", "prior", "counts+prior"]]
    param_names = ["m", "weights"]
    timeout = 300

    def setup(self, m, weights):
        rng = _rng()
        # many repeats: integer-valued query (e.g. a count) over m worlds
        self.values = rng.integers(0, m // 10, size=m).astype(np.float64)
        self.kwargs = {}
        if "counts" in weights:
            self.kwargs["counts"] = rng.integers(1, 4, size=m).astype(np.float64)
        if "prior" in weights:
            self.kwargs["prior"] = rng.random(m) + 0.1
        self.scale = 3.0
        warm_up(self, m, weights)

    def time_worst_case_risk(self, m, weights):
        di.worst_case_risk(self.values, scale=self.scale, **self.kwargs)


class WorstCaseRiskDense:
    """Sweep vs the dense O(m^2) NumPy formula (issue target: >= 100x at m = 2e4)."""

    params = [sizes([2 * 10**3, 2 * 10**4], [2 * 10**3])]
    param_names = ["m"]
    timeout = 600

    def setup(self, m):
        self.values = _values(m)
        self.scale = 1.0
        warm_up(self, m, skip=("time_dense_numpy",))  # (plain NumPy: no warm-up)

    def time_diffident(self, m):
        di.worst_case_risk(self.values, scale=self.scale)

    def time_dense_numpy(self, m):
        dense_worst_case_risk(self.values, scale=self.scale)

    time_dense_numpy.number = 1
    time_dense_numpy.repeat = (1, 3, 10.0)

    def track_rel_error_vs_dense(self, m):
        ours = di.worst_case_risk(self.values, scale=self.scale)
        ref = dense_worst_case_risk(self.values, scale=self.scale)
        return float(abs(ours - ref) / ref)

    track_rel_error_vs_dense.unit = "relative"


class WorstCaseRiskScales:
    """An array of scales over the same values (one sort, many sweeps).
    ``spacing``: random values, or equally spaced ones (a mean's worlds: a
    few distinct gaps, whose factors the blocked kernel shares); 3e6 values
    take the blocked kernel's chunks.
    """

    params = [sizes([10**5, 3 * 10**6], [10**5]), [1, 100], ["random", "equal"]]
    param_names = ["m", "n_scales", "spacing"]
    timeout = 300

    def setup(self, m, n_scales, spacing):
        self.values = _values(m) if spacing == "random" else 1000.0 + np.arange(m) / 48842.0
        self.scales = np.geomspace(1e-3, 1e3, n_scales)
        warm_up(self, m, n_scales, spacing)

    def time_worst_case_risk(self, m, n_scales, spacing):
        di.worst_case_risk(self.values, scale=self.scales)


class TightScale:
    """Tight calibration by bisection (issue target: 100 rho over 1e5 worlds < 0.5 s, rtol 0)."""

    params = [sizes([10**5], [10**4]), [1, 100], [0.0, 1e-6]]
    param_names = ["m", "n_rho", "rtol"]
    timeout = 300

    def setup(self, m, n_rho, rtol):
        self.values = _values(m)
        # strictly inside (1/m, 1): every target needs a finite positive scale
        self.rho = np.geomspace(10.0 / m, 0.5, n_rho)
        warm_up(self, m, n_rho, rtol)

    def time_tight_scale(self, m, n_rho, rtol):
        di.tight_scale(self.values, rho=self.rho, rtol=rtol)

    def time_tight_epsilon(self, m, n_rho, rtol):
        di.tight_epsilon(self.values, rho=self.rho, rtol=rtol)

    def track_violations(self, m, n_rho, rtol):
        # number of returned scales on the non-private side (must be 0)
        s = di.tight_scale(self.values, rho=self.rho, rtol=rtol)
        return int(np.count_nonzero(di.worst_case_risk(self.values, scale=s) > self.rho))

    track_violations.unit = "count"


class ClosedForms:
    """Vectorised closed forms (paper Theorem 1) on 1e6-element grids."""

    params = [sizes([10**6], [10**5])]
    param_names = ["n"]
    timeout = 120

    def setup(self, n):
        rng = _rng()
        lo, hi = DOMAINS["hours-per-week"]  # the paper's Adult example
        self.m = float(hi - lo + 1)
        self.S = (hi - lo) / ADULT_N
        self.rho = rng.uniform(0.0, 1.0, n)
        self.eps = rng.exponential(2.0, n)
        self.scale = rng.exponential(1e-3, n)
        self.m_grid = rng.integers(2, 10**6, n).astype(np.float64)
        self.prior = rng.random(n)
        warm_up(self, n)

    def time_epsilon_for_rho(self, n):
        di.epsilon_for_rho(self.rho, m=self.m)

    def time_epsilon_for_rho_m_grid(self, n):
        di.epsilon_for_rho(self.rho, m=self.m_grid)

    def time_scale_for_rho(self, n):
        di.scale_for_rho(self.rho, m=self.m, sensitive_range=self.S)

    def time_rho_for_epsilon(self, n):
        di.rho_for_epsilon(self.eps, m=self.m)

    def time_risk_bound(self, n):
        di.risk_bound(self.scale, m=self.m, sensitive_range=self.S)

    def time_min_rho(self, n):
        di.min_rho(self.m_grid)

    def time_effective_worlds(self, n):
        di.effective_worlds(self.prior)


class Posterior(_OneResponse):
    """Per-world posteriors for one response."""

    params = [sizes([10**4, 10**6], [10**4])]
    timeout = 120
    response, scale = 0.25, 1.0

    def time_log_posterior(self, m):
        di.log_posterior(self.values, response=self.response, scale=self.scale)

    def time_posterior(self, m):
        di.posterior(self.values, response=self.response, scale=self.scale)

    def time_disclosure_risk(self, m):
        di.disclosure_risk(self.values, response=self.response, scale=self.scale, world=3)


tune(globals())
