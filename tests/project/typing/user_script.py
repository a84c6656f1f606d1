"""A user's script, checked by ``mypy --strict`` in tests/project/test_typing.py.

Every result is assigned to an annotated variable, so that a wrong
annotation in diffident (a float typed as an array, a tuple as a float)
is a type error here.  Written as a user would; it also runs.
"""

import numpy as np
import numpy.typing as npt

import diffident as di
from diffident import dp, rr

# the paper's toy example: the mean of 8 possible worlds
means = np.array([2, 8 / 3, 3, 10 / 3, 11 / 3, 4, 13 / 3, 14 / 3])

# closed forms: a float for scalars (overloads), float or array otherwise
lam: float = di.scale_for_rho(1 / 3, m=8, sensitive_range=8 / 3)
eps: float = di.epsilon_for_rho(1 / 3, m=8)
bound: float = di.risk_bound(lam, m=8, sensitive_range=8 / 3)
floor: float = di.min_rho(8)
grid = np.geomspace(0.13, 0.9, 50)
eps_grid: npt.NDArray[np.float64] = np.asarray(di.epsilon_for_rho(grid, m=8))
rho_back: float | npt.NDArray[np.float64] = di.rho_for_epsilon(eps_grid, m=8)

# the posterior and the exact worst case
post: npt.NDArray[np.float64] = di.posterior(means, response=2.0, scale=lam)
log_post: npt.NDArray[np.float64] = di.log_posterior([1.0, 2.0, 4.0], response=[0.0, 3.0], scale=1.0)
risk: float = di.worst_case_risk(means, scale=lam)
risk_and_world: tuple[float | npt.NDArray[np.float64], int | npt.NDArray[np.int64]] = di.worst_case_risk(
    means, scale=lam, return_world=True)
tight: float = di.tight_scale(means, rho=1 / 3)
tight_eps: float = di.tight_epsilon(means, rho=1 / 3, counts=np.ones(8))
disclosed: float | npt.NDArray[np.float64] = di.disclosure_risk(means, response=2.0, scale=lam, world=0,
                                                                noise="gaussian")

# worlds from data
hours = np.random.default_rng(0).integers(1, 100, 500).astype(float)
domain = di.Domain(1, 99)
values, counts = di.world_values("mean", known=hours[1:], candidates=domain)
worlds: npt.NDArray[np.float64] = values
multiplicity: npt.NDArray[np.int64] = counts
S: float = di.dataset_sensitive_range("mean", data=hours, candidates=domain)
S_std, removed = di.dataset_sensitive_range("std", data=hours, candidates=domain, ddof=1, return_removed=True)
removed_rows: npt.NDArray[np.int64] = removed

# a sweep
table: di.SweepTable = di.sweep({"hours": hours}, queries=["mean"], rho=[0.05, 0.1], domains={"hours": (1, 99)})
n_rows: int = table.rows
scales: npt.NDArray[np.float64] = table["bound_scale"]

# differential privacy
sigma: float = dp.analytic_gaussian_sigma(1.0, delta=1e-5)
sigma_too: float = di.analytic_gaussian_sigma(1.0, delta=1e-5, sensitivity=2.0)
total: float | npt.NDArray[np.float64] = dp.compose_sequential([0.5, 0.5])
total_eps, total_delta = dp.compose_sequential([0.5, 0.5], deltas=[1e-6, 1e-6])
per_release: float = dp.epsilon_per_release(1 / 3, m=8, k=4)
post_bound: float = dp.posterior_bound(1.0, prior=0.1)

# randomized response
rr_eps: float | npt.NDArray[np.float64] = rr.epsilon(0.5, zero=0.5)
answers: int | npt.NDArray[np.int64] = rr.sample([0, 1, 1, 0], flip=0.5, zero=0.5, rng=np.random.default_rng(1))
believed: float | npt.NDArray[np.float64] = rr.posterior(0.5, zero=0.5, prior=0.1)

print(f"scale {lam:.4f}, worst-case risk {risk:.4f}, tight scale {tight:.4f}, sigma {sigma:.4f}, rows {n_rows}")
