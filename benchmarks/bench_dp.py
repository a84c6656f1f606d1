"""asv suites for the differential-privacy companions (diffident.dp),
conventions as in bench_core.py: seeded data, every timed call made once in
``setup`` so that nothing is timed cold.

The baseline for the analytic Gaussian mechanism is the table's
(``diffident.testing.COMPARISONS["analytic_gaussian_sigma"]``): dp-accounting's
``dp_accounting.get_sigma_gaussian(epsilon, delta, tol=1e-12)`` (defined in
``dp_accounting/gaussian_mechanism.py``; scalar: one ``scipy.optimize.brentq``
per point), called in a Python loop.  Where dp-accounting is not installed
its benchmarks are skipped (``NotImplementedError`` in ``setup``).

``benchmarks/compare.py`` has the same comparison as one row (target: >= 50x
on a 1000-point epsilon grid).
"""
import numpy as np

from diffident.dp import (
    analytic_gaussian_sigma,
    classic_gaussian_sigma,
    compose_sequential,
    epsilon_for_posterior,
    posterior_bound,
)
from diffident.testing import COMPARISONS

from . import sizes, tune

DP_ACCOUNTING = COMPARISONS["analytic_gaussian_sigma"].reference("dp_accounting")


def _dp_accounting():
    """The dp-accounting baseline, or None where it is not installed
    (optional: only the baselines need it)."""
    return DP_ACCOUNTING if DP_ACCOUNTING.available() else None


def _eps_grid(n):
    return np.geomspace(1e-3, 50.0, int(n))


class AnalyticGaussian:
    """analytic_gaussian_sigma over an epsilon grid at one delta, against
    dp-accounting's scalar get_sigma_gaussian in a loop (target >= 50x at
    n = 1000)."""

    params = [sizes([100, 1000, 10000], [100]), [1e-12, 1e-6, 0.1]]
    param_names = ["n_eps", "delta"]
    timeout = 300

    def setup(self, n_eps, delta):
        self.eps = _eps_grid(n_eps)
        self.get_sigma = _dp_accounting()
        self.time_diffident(n_eps, delta)
        if self.get_sigma is not None:
            self.get_sigma(1.0, delta=delta)

    def time_diffident(self, n_eps, delta):
        analytic_gaussian_sigma(self.eps, delta=delta)

    def time_dp_accounting_loop(self, n_eps, delta):
        if self.get_sigma is None:
            raise NotImplementedError("dp-accounting is not installed")
        self.get_sigma(self.eps, delta=delta)

    time_dp_accounting_loop.number = 1
    time_dp_accounting_loop.repeat = (1, 3, 20.0)

    def track_rel_diff_vs_dp_accounting(self, n_eps, delta):
        if self.get_sigma is None:
            raise NotImplementedError("dp-accounting is not installed")
        sub = self.eps[:: max(1, self.eps.size // 100)]
        ours = analytic_gaussian_sigma(sub, delta=delta)
        ref = self.get_sigma(sub, delta=delta)
        return float(np.max(np.abs(ours / ref - 1.0)))

    track_rel_diff_vs_dp_accounting.unit = "relative"


class AnalyticGaussianGrid:
    """The full (epsilon x delta x sensitivity) broadcast: one batched
    solve for every cell."""

    params = [sizes([100, 1000], [100]), [100]]
    param_names = ["n_eps", "n_delta"]
    timeout = 300

    def setup(self, n_eps, n_delta):
        self.eps = _eps_grid(n_eps)[:, None]
        self.delta = np.geomspace(1e-12, 0.5, n_delta)[None, :]
        self.time_analytic_gaussian_sigma(n_eps, n_delta)

    def time_analytic_gaussian_sigma(self, n_eps, n_delta):
        analytic_gaussian_sigma(self.eps, delta=self.delta, sensitivity=2.0)


class ScalarCalls:
    """Per-call overhead of the scalar paths (Python floats in and out)."""

    def setup(self):
        self.get_sigma = _dp_accounting()
        self.time_analytic_gaussian_scalar()
        self.time_posterior_bound_scalar()

    def time_analytic_gaussian_scalar(self):
        analytic_gaussian_sigma(1.0, delta=1e-6)

    def time_dp_accounting_scalar(self):
        if self.get_sigma is None:
            raise NotImplementedError("dp-accounting is not installed")
        self.get_sigma(1.0, delta=1e-6)

    def time_posterior_bound_scalar(self):
        posterior_bound(1.0, prior=0.1)


class ClosedForms:
    """The elementwise closed forms on large arrays."""

    params = [sizes([10**4, 10**6], [10**4])]
    param_names = ["n"]

    def setup(self, n):
        rng = np.random.default_rng(0)
        self.eps = rng.uniform(0.01, 0.99, n)
        self.delta = 10.0 ** rng.uniform(-12, -1, n)
        self.prior = rng.uniform(0.001, 0.5, n)
        self.post = self.prior + (1 - self.prior) * rng.uniform(0.01, 0.99, n)
        self.rows = rng.random((n // 100, 100))
        self.time_classic_gaussian_sigma(n)
        self.time_posterior_bound(n)
        self.time_epsilon_for_posterior(n)
        self.time_compose_sequential_rows(n)

    def time_classic_gaussian_sigma(self, n):
        classic_gaussian_sigma(self.eps, delta=self.delta)

    def time_posterior_bound(self, n):
        posterior_bound(self.eps, prior=self.prior)

    def time_epsilon_for_posterior(self, n):
        epsilon_for_posterior(self.post, prior=self.prior)

    def time_compose_sequential_rows(self, n):
        compose_sequential(self.rows)

    def time_numpy_sum_rows(self, n):
        # reference: the plain (not upward-rounded) NumPy sum
        self.rows.sum(axis=-1)


tune(globals())
