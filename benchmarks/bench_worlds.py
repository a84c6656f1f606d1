"""asv suites for possible worlds and sensitive ranges (conventions as in
bench_core.py: seeded data, every timed call made once in ``setup``).  The
brute force baseline is the table's (``diffident.testing.COMPARISONS``):
itertools over the worlds, the query evaluated on each."""
import numpy as np

import diffident as di
from diffident.replicate.paper import ADULT_N, DOMAINS
from diffident.testing import COMPARISONS
from diffident.testing.brute_force import jit_spread as _spread

from . import PROFILE, sizes, tune

brute_world_values = COMPARISONS["world_values"].reference("brute")


class WorldValues:
    """world_values for named queries (k = 1 over an integer domain, k = 3
    over explicit candidates) against itertools enumeration."""

    params = (["mean", "median", "std"], sizes([1, 3], [1]))
    param_names = ["query", "k"]

    def setup(self, query, k):
        rng = np.random.default_rng(0)
        self.known = rng.integers(0, 100, 1000).astype(float)
        self.cand = di.Domain(0, 99999) if k == 1 else rng.integers(0, 100, 150).astype(float)
        self.small = rng.integers(0, 100, 40).astype(float)
        di.world_values(query, known=self.known, candidates=self.cand, k=k)

    def time_world_values(self, query, k):
        di.world_values(query, known=self.known, candidates=self.cand, k=k)

    def time_brute_force_small(self, query, k):
        fn = {"mean": np.mean, "median": np.median, "std": np.std}[query]
        brute_world_values(fn, known=self.known[:50], candidates=self.small, k=k)

    def time_world_values_small(self, query, k):
        di.world_values(query, known=self.known[:50], candidates=self.small, k=k)


class SensitiveRange:
    """Closed forms for named queries against enumeration of every world."""

    params = (["mean", "median", "var"], sizes([1, 2, 3], [1]))
    param_names = ["query", "k"]

    def setup(self, query, k):
        rng = np.random.default_rng(1)
        self.known = rng.normal(size=500)
        self.cand = rng.normal(size=120)
        di.sensitive_range(query, known=self.known, candidates=self.cand, k=k)
        di.world_values(query, known=self.known, candidates=self.cand, k=k)

    def time_closed_form(self, query, k):
        di.sensitive_range(query, known=self.known, candidates=self.cand, k=k)

    def time_enumerated(self, query, k):
        v, _ = di.world_values(query, known=self.known, candidates=self.cand, k=k)
        v[-1] - v[0]


class DatasetSensitiveRange:
    """The paper's max over D' = D - i*, k = 1, on Adult-sized integer columns."""

    params = (["mean", "median", "std"], sizes([DOMAINS["hours-per-week"], DOMAINS["capital-gain"]],
                                                    [DOMAINS["hours-per-week"]]))
    param_names = ["query", "domain"]

    def setup(self, query, domain):
        rng = np.random.default_rng(2)
        lo, hi = domain
        self.data = rng.integers(lo, hi + 1, ADULT_N).astype(float)
        self.domain = di.Domain(lo, hi)
        di.dataset_sensitive_range(query, data=self.data, candidates=self.domain, ddof=1)

    def time_dataset_sensitive_range(self, query, domain):
        di.dataset_sensitive_range(query, data=self.data, candidates=self.domain, ddof=1)

    def time_with_removed(self, query, domain):
        di.dataset_sensitive_range(query, data=self.data, candidates=self.domain, ddof=1, return_removed=True)


class DatasetTightScale:
    """The every-D' tight calibration over a grid of rho on Adult-sized
    integer columns: the mean on the arithmetic progression's closed form
    (no pass over the worlds per rho, any m), the std on the evaluator and
    the dominance certificate (uniform data make every domain value a
    distinct D', so its cost is worlds x domain: a small domain here;
    Adult's capital-gain std is compare.py's sweep row).
    """

    params = [sizes(["mean capital-gain", "mean hours-per-week", "std hours-per-week"], ["mean capital-gain",
                                                                                       "std hours-per-week"])]
    param_names = ["case"]
    timeout = 300

    def setup(self, case):
        query, column = case.split()
        rng = np.random.default_rng(4)
        lo, hi = DOMAINS[column]
        self.query = query
        self.data = rng.integers(lo, hi + 1, ADULT_N).astype(float)
        self.domain = di.Domain(lo, hi)
        self.rho = np.geomspace(1.001 / (hi - lo + 1), 0.5, 1000 if PROFILE != "fast" else 100)
        di.dataset_tight_scale(query, data=self.data, candidates=self.domain, rho=self.rho[:3], ddof=1, rtol=1e-12)

    def time_dataset_tight_scale(self, case):
        di.dataset_tight_scale(self.query, data=self.data, candidates=self.domain, rho=self.rho, ddof=1, rtol=1e-12)


class DominatedTightScale:
    """`tight_scale` over 1000 rho on the std worlds of a skewed column over
    an integer domain of m values (Adult's capital-gain is skewed so): the
    sparse end world attains the worst case at every scale, and the
    enclosure of its sum decides the search's checks (moment passes
    included in the time, the kernels' compilation not).
    """

    params = [sizes([10**5], [10**4])]
    param_names = ["m"]
    timeout = 300

    def setup(self, m):
        rng = np.random.default_rng(5)
        data = np.minimum(rng.exponential(m / 100, ADULT_N).round(), m - 1)
        self.v, self.c = di.world_values("std", known=data[1:], candidates=di.Domain(0, m - 1), ddof=1)
        top = di.worst_case_risk(self.v, scale=0.0, counts=self.c)
        self.rho = np.geomspace(1.001 / m, min(top, 0.5) / 1.01, 1000 if PROFILE != "fast" else 100)
        di.tight_scale(self.v, rho=self.rho[::4][:64], counts=self.c, rtol=1e-12)  # (kernels loaded)

    def time_tight_scale(self, m):
        di.tight_scale(self.v, rho=self.rho, counts=self.c, rtol=1e-12)


class Enumeration:
    """The enumeration path: a jitted callable over C(n, 3) worlds."""

    params = sizes([100, 200, 400], [100])
    param_names = ["candidates"]

    def setup(self, n):
        self.known = np.array([1.0, 2.0, 3.0])
        self.cand = np.arange(float(n))
        di.world_values(_spread, known=self.known, candidates=self.cand[:10], k=3)

    def time_jitted_callable(self, n):
        di.world_values(_spread, known=self.known, candidates=self.cand, k=3)

    def track_worlds_per_second(self, n):
        import time
        t = time.perf_counter()
        _, c = di.world_values(_spread, known=self.known, candidates=self.cand, k=3)
        return c.sum() / (time.perf_counter() - t)

    track_worlds_per_second.unit = "worlds/s"


class Sweep:
    """The main job's engine: a grid over rho for Adult-sized integer columns
    (seeded stand-ins with the Adult domains), mean, median and std, bound
    and tight calibrations; from 64 rho the tight ones share evaluations.
    """

    params = [sizes([10, 100, 1000], [100])]
    param_names = ["n_rho"]
    timeout = 300

    def setup(self, n_rho):
        rng = np.random.default_rng(3)
        cols = ("age",) if PROFILE == "fast" else ("age", "capital-loss")
        self.data = {c: rng.integers(DOMAINS[c][0], DOMAINS[c][1] + 1, ADULT_N).astype(float) for c in cols}
        self.domains = {c: DOMAINS[c] for c in cols}
        di.sweep(self.data, n_rho=3, domains=self.domains)

    def time_sweep(self, n_rho):
        di.sweep(self.data, n_rho=n_rho, domains=self.domains)


tune(globals())
