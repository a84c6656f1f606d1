"""asv suites beyond Laplace: Gaussian (rho, delta)-identifiability and the
multi-release worst case (conventions as in bench_core.py)."""
import numpy as np

import diffident as di
from diffident.testing import COMPARISONS

from . import sizes, tune

# the NumPy O(m^2 q) reference of the multi-release worst case (the table's)
dense_multi_worst_case_risk = COMPARISONS["multi_worst_case_risk"].reference("dense")


class GaussianDelta:
    params = [sizes([10**3, 10**4, 10**5], [10**3])]
    param_names = ["worlds"]

    def setup(self, m):
        self.v = np.random.default_rng(0).normal(size=m)
        di.gaussian_delta(self.v, rho=[0.1, 0.5, 0.9], sigma=0.01, world=0)

    def time_one_world_three_rho(self, m):
        di.gaussian_delta(self.v, rho=[0.1, 0.5, 0.9], sigma=0.01, world=0)


class GaussianDeltaMaxOverWorlds:
    params = [sizes([100, 1000], [100])]
    param_names = ["worlds"]

    def setup(self, m):
        self.v = np.random.default_rng(1).normal(size=m)
        di.gaussian_delta(self.v, rho=0.5, sigma=0.05)

    def time_max_over_worlds(self, m):
        di.gaussian_delta(self.v, rho=0.5, sigma=0.05)


class MultiRelease:
    params = [sizes([10**3, 10**4], [10**3]), [2, 3]]
    param_names = ["worlds", "queries"]

    def setup(self, m, q):
        self.F = np.random.default_rng(2).normal(size=(m, q))
        self.scales = np.linspace(0.5, 2.0, q)
        di.multi_worst_case_risk(self.F, scale=self.scales)

    def time_multi_worst_case(self, m, q):
        di.multi_worst_case_risk(self.F, scale=self.scales)

    def time_dense_numpy(self, m, q):
        if m <= 10**3:
            dense_multi_worst_case_risk(self.F, scale=self.scales)

    def time_multi_tight_scale(self, m, q):
        if m <= 10**3:
            di.multi_tight_scale(self.F, rho=[0.01, 0.1])


tune(globals())
