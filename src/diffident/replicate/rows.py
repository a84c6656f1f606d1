"""The named rows of the replication: one `typing.NamedTuple` per CSV file."""

from typing import NamedTuple

import numpy as np

__all__ = ["Sec35Row", "Table2Row", "ToyPoint", "Table4Row", "Table4TightRow"]


class Sec35Row(NamedTuple):
    """A world of the worked posterior example (sec35_posterior.csv).

    Parameters
    ----------
    world : int
        World number, from 1.
    values : str
        The world's values, space-separated.
    mean : float
        The query's value (the mean) on the world.
    scale : float
        The Laplace scale.
    response : float
        The noisy response R.
    likelihood : float
        The Laplace density of R given the world.
    posterior : float
        The adversary's posterior of the world after R.
    """

    world: int
    values: str
    mean: float
    scale: float
    response: float
    likelihood: float
    posterior: float


class Table2Row(NamedTuple):
    """A world of the toy example, the paper's Table 2 (table2_toy_worlds.csv).

    Parameters
    ----------
    world : int
        World number, from 1.
    unknown_value : int
        The value u added to D'.
    world_values : str
        The world's values D' + {u}, sorted, space-separated.
    mean : float
        The world's mean.
    median : float
        The world's median.
    """

    world: int
    unknown_value: int
    world_values: str
    mean: float
    median: float


class ToyPoint(NamedTuple):
    """The toy example at one rho, for one query (fig1_toy_risk.csv, fig_tight_epsilon.csv).

    Parameters
    ----------
    query : str
        ``'mean'`` or ``'median'``.
    rho, rho_percent : float
        The risk bound, and ``100 rho``.
    m : int
        Number of worlds.
    sensitive_range : float
        The query's sensitive range S.
    paper_scale, paper_epsilon : float
        The paper's Laplace scale and epsilon for rho (Theorem 1).
    risk_bound : float
        The paper's risk bound at the paper's scale.
    worst_case_risk : float
        The exact worst-case risk at the paper's scale.
    tight_epsilon, tight_scale : float
        The largest epsilon (smallest scale) whose exact worst-case risk is <= rho.
    worst_case_risk_at_tight_scale : float
        The exact worst-case risk at the tight scale.
    """

    query: str
    rho: float
    rho_percent: float
    m: int
    sensitive_range: float
    paper_scale: float
    paper_epsilon: float
    risk_bound: float
    worst_case_risk: float
    tight_epsilon: float
    tight_scale: float
    worst_case_risk_at_tight_scale: float


class Table4Row(NamedTuple):
    """A cell of the paper's Table 4 (table4.csv, one column per response).

    Parameters
    ----------
    attribute : str
        The Adult column.
    query : str
        ``'mean'`` or ``'std'``.
    rows : str
        Where S comes from: ``'published n'`` (the mean, no data file) or the rows' label.
    lo, hi : int
        The Table 3 domain.
    m, n : int
        Number of worlds (``hi - lo + 1``) and of rows.
    true_value : float
        The query's true value.
    true_value_source : str
        ``'published'`` or the rows' label.
    sensitive_range : float
        The query's sensitive range S.
    rho, epsilon : float
        The risk bound and the paper's epsilon for it.
    scale : float
        The paper's Laplace scale (``inf``: not releasable).
    paper_scale : str
        The paper's printed scale (the mean query only, else empty).
    responses : ndarray
        `experiments.RESPONSES` sampled responses, true value plus Laplace noise.
    """

    attribute: str
    query: str
    rows: str
    lo: int
    hi: int
    m: int
    n: int
    true_value: float
    true_value_source: str
    sensitive_range: float
    rho: float
    epsilon: float
    scale: float
    paper_scale: str
    responses: np.ndarray


class Table4TightRow(NamedTuple):
    """The tight calibration beside a cell of Table 4 (table4_tight.csv).

    Parameters
    ----------
    attribute, query : str
        The Adult column and the query, as in `Table4Row`.
    rows : str
        The rows' label.
    removed_index : int
        The removed individual whose D' attains S(std).
    rho : float
        The risk bound.
    m : int
        Number of worlds.
    sensitive_range : float
        The sensitive range over the worlds of that D'.
    paper_epsilon, paper_scale : float
        The paper's epsilon and Laplace scale for rho.
    worst_case_risk_at_paper_scale : float
        The exact worst-case risk at the paper's scale.
    expected_success_at_paper_scale : float
        The best adversary's expected success at the paper's scale (`expected_risk`).
    tight_epsilon, tight_scale, worst_case_risk_at_tight_scale : float
        The tight calibration for rho and its exact worst-case risk, as in `ToyPoint`.
    paper_scale_over_tight_scale : float
        How much more noise the paper adds (NaN unless both are finite and positive).
    """

    attribute: str
    query: str
    rows: str
    removed_index: int
    rho: float
    m: int
    sensitive_range: float
    paper_epsilon: float
    paper_scale: float
    worst_case_risk_at_paper_scale: float
    expected_success_at_paper_scale: float
    tight_epsilon: float
    tight_scale: float
    worst_case_risk_at_tight_scale: float
    paper_scale_over_tight_scale: float
