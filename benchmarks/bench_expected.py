"""asv suites for the expected identification success, its calibration and
the sweep's noise and risk choices (conventions as in bench_core.py: seeded
data, every timed call made once in ``setup``).  Targets (issue 14, also
rows of compare.py): expected_risk on 1e7 unsorted values under 0.5 s, with
a prior under 0.8 s; tight_scale(risk="expected"), 100 rho over 1e5 worlds,
under 0.5 s."""
import numpy as np

import diffident as di
from diffident.replicate.paper import ADULT_N, DOMAINS

from . import sizes, tune, warm_up


def _values(m):
    return np.random.default_rng(0).standard_normal(int(m)) * 10.0


class ExpectedRisk:
    """One scale, the sort included; a uniform prior (the Voronoi cells) or a
    random one (the upper envelope), continuous or integer noise."""

    params = [sizes([10**6, 10**7], [10**5]), ["uniform", "prior"], ["laplace", "discrete_laplace", "gaussian"]]
    param_names = ["m", "prior", "noise"]
    timeout = 300

    def setup(self, m, prior, noise):
        self.values = _values(m)
        if noise == "discrete_laplace":
            self.values = np.rint(self.values * 1000.0)
        self.prior = np.random.default_rng(1).uniform(0.5, 2.0, m) if prior == "prior" else None
        warm_up(self, m, prior, noise)

    def time_expected_risk(self, m, prior, noise):
        di.expected_risk(self.values, scale=0.5, prior=self.prior, noise=noise)


class TightScaleExpected:
    """The calibration to the expected success over a rho grid."""

    params = [sizes([10**4, 10**5], [10**4]), [1, 100], ["laplace", "gaussian"]]
    param_names = ["m", "n_rho", "noise"]
    timeout = 300

    def setup(self, m, n_rho, noise):
        self.values = _values(m)
        self.rho = np.geomspace(2.0 / m, 0.5, n_rho)
        warm_up(self, m, n_rho, noise)

    def time_tight_scale(self, m, n_rho, noise):
        di.tight_scale(self.values, rho=self.rho, risk="expected", noise=noise)

    def track_violations(self, m, n_rho, noise):
        # returned scales on the unsafe side (must be 0)
        s = di.tight_scale(self.values, rho=self.rho, risk="expected", noise=noise)
        return int(np.count_nonzero(di.expected_risk(self.values, scale=s, noise=noise) > self.rho))

    track_violations.unit = "count"


class SweepRisk:
    """The sweep's tight calibration over every D' for each risk and noise, on
    an Adult-sized integer column."""

    params = [["worst", "expected"], ["laplace", "discrete_laplace"], ["mean", "std"]]
    param_names = ["risk", "noise", "query"]
    timeout = 300

    def setup(self, risk, noise, query):
        if noise == "discrete_laplace" and query == "std":
            raise NotImplementedError("no lattice: the std has no integer release")  # (asv skips it)
        lo, hi = DOMAINS["age"]
        self.data = {"age": np.random.default_rng(3).integers(lo, hi + 1, ADULT_N).astype(float)}
        self.domains = {"age": (lo, hi)}
        warm_up(self, risk, noise, query)

    def time_sweep(self, risk, noise, query):
        di.sweep(self.data, queries=[query], n_rho=50, domains=self.domains, noise=noise, risk=risk,
                 calibrations=["tight"])


tune(globals())
