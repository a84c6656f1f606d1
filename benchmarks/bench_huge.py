"""asv suites for huge world sets (Mathematics page, section 8): exact multiplicities,
membership, chunked evaluation (conventions as in bench_core.py)."""
import numpy as np

import diffident as di
from diffident.replicate.paper import ADULT_N, DOMAINS

from . import sizes, tune


class SubsetSumWorlds:
    """An Adult-sized universe (4357 values of capital-loss), a 1,000-row
    database, k unknown individuals: about 1.8e13 worlds for k = 3."""

    params = [sizes([2, 3, 4], [2])]
    param_names = ["k"]

    def setup(self, k):
        rng = np.random.default_rng(0)
        lo, hi = DOMAINS["capital-loss"]
        self.cands = rng.integers(lo, hi + 1, ADULT_N - 1000 + k).astype(float)
        self.known = rng.integers(lo, hi + 1, 1000 - k).astype(float)
        self.values, self.counts = di.world_values("mean", known=self.known, candidates=self.cands, k=k)
        di.worst_case_risk(self.values, scale=0.1, counts=self.counts)
        di.tight_scale(self.values, rho=[0.1], counts=self.counts)

    def time_world_values(self, k):
        di.world_values("mean", known=self.known, candidates=self.cands, k=k)

    def time_worst_case_risk(self, k):
        di.worst_case_risk(self.values, scale=0.1, counts=self.counts)

    def time_tight_scale(self, k):
        di.tight_scale(self.values, rho=[0.01, 0.1, 0.5], counts=self.counts)

    def track_worlds(self, k):
        return float(self.counts.sum())


class Membership:
    params = [sizes([2, 3], [2])]
    param_names = ["k"]

    def setup(self, k):
        rng = np.random.default_rng(1)
        self.cands = rng.integers(0, 100, 20000).astype(float)
        self.known = rng.integers(0, 100, 500).astype(float)
        di.membership_risk("mean", known=self.known, candidates=self.cands, scale=0.1, k=k)

    def time_membership_risk(self, k):
        di.membership_risk("mean", known=self.known, candidates=self.cands, scale=[0.01, 0.1, 1.0], k=k)


class Chunked:
    params = [sizes([10**6, 10**7], [10**6])]
    param_names = ["worlds"]

    def setup(self, n):
        self.v = np.random.default_rng(2).normal(size=n)
        self.sorted = np.sort(self.v)
        self.parts = [self.sorted[a:a + (1 << 20)] for a in range(0, n, 1 << 20)]
        di.chunked_log_evidence(di.iter_chunks(self.v[:1000], chunk_size=100), response=0.3, scale=0.5)
        di.chunked_worst_case_risk(self.parts[:1], scale=0.1)

    def time_chunked_log_evidence(self, n):
        di.chunked_log_evidence(di.iter_chunks(self.v, chunk_size=1 << 20), response=0.3, scale=0.5)

    def time_in_memory_log_evidence(self, n):
        di.log_evidence(self.v, response=0.3, scale=0.5)

    def time_chunked_worst_case(self, n):
        di.chunked_worst_case_risk(self.parts, scale=0.1)


tune(globals())
