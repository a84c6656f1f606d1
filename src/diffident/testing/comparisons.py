"""One table of diffident's computations and their reference implementations."""

from __future__ import annotations

import numpy as np

import diffident as di
from diffident import rr

from . import _comparisons_mechanisms, _comparisons_more, brute_force, dense
from ._comparison import Comparison, Reference, _mp, _mpmath, _rng, _rr_exact, _scipy
from .tolerances import EXACT, KERNEL, SEARCH

__all__ = ["Reference", "Comparison", "COMPARISONS", "comparison"]

# --------------------------------------------------------------------------- inputs


def _worlds(rng, m_hi=30):
    """Values with repeats (rounded), and counts and/or prior by turns."""
    m = int(rng.integers(2, m_hi))
    values = np.round(rng.normal(size=m) * 3.0, int(rng.integers(0, 3)))
    kind = int(rng.integers(0, 4))
    counts = rng.integers(1, 4, m).astype(np.float64) if kind in (1, 3) else None
    prior = rng.uniform(0.1, 2.0, m) if kind in (2, 3) else None
    return dict(values=values, counts=counts, prior=prior)


def _at_response(seed, salt, noise=True):
    rng = _rng(seed, salt)
    case = _worlds(rng)
    v = case["values"]
    case["response"] = float(rng.uniform(v.min() - 2.0, v.max() + 2.0))
    case["scale"] = float(np.ptp(v) + 1.0) * 10.0 ** rng.uniform(-1.5, 0.5)
    if noise:
        case["noise"] = "gaussian" if seed % 2 else "laplace"
    return case


def _posterior_case(seed):
    return _at_response(seed, 1)


def _disclosure_case(seed):
    case = _at_response(seed, 2)
    case["world"] = int(_rng(seed, 20).integers(0, case["values"].size))
    return case


def _log_evidence_case(seed):
    return _at_response(seed, 3, noise=False)


def _worst_case_case(seed):
    rng = _rng(seed, 4)
    case = _worlds(rng)
    case["scale"] = float(np.ptp(case["values"]) + 1.0) * 10.0 ** rng.uniform(-2.0, 0.5)
    return case


def _expected_case(seed):
    rng = _rng(seed, 21)
    case = _worlds(rng, m_hi=8)  # (the reference integrates O(m^2) pieces)
    case["scale"] = float(np.ptp(case["values"]) + 1.0) * 10.0 ** rng.uniform(-1.5, 0.5)
    case["noise"] = "gaussian" if seed % 2 else "laplace"
    if seed % 3 == 2:
        case["world"] = int(rng.integers(0, case["values"].size))
    return case


def _tight_scale_case(seed):
    rng = _rng(seed, 5)
    m = int(rng.integers(3, 10))
    values = np.sort(rng.normal(size=m)) * 3.0
    return dict(values=values, rho=float((1.0 / m) ** rng.uniform(0.2, 0.8)))


def _closed_form_case(seed):
    rng = _rng(seed, 6)
    m = float(np.floor(10.0 ** rng.uniform(0.31, 6)))
    eps = 10.0 ** rng.uniform(-2, 1.5)
    return dict(m=m, eps=eps, rho=1.0 / (1.0 + (m - 1) * np.exp(-eps)),
                S=10.0 ** rng.uniform(-3, 3), scale=10.0 ** rng.uniform(-3, 3))


def _pick(*names, **renames):
    """A generator that takes some entries of `_closed_form_case`, renamed."""

    def inputs(seed):
        case = _closed_form_case(seed)
        out = {n: case[n] for n in names}
        out.update({new: case[old] for new, old in renames.items()})
        return out

    return inputs


def _prior_case(seed):
    rng = _rng(seed, 7)
    return dict(prior=rng.uniform(0.0, 2.0, int(rng.integers(1, 40))))


_EXACT_QUERIES = ("sum", "mean", "median", "min", "max")  # exact world values on a dyadic grid


def _worlds_case(seed, queries=_EXACT_QUERIES + ("var", "std")):
    """Dyadic known values and candidates: the exact queries' world values are exact."""
    rng = _rng(seed, 8)
    k = int(rng.integers(1, 4))
    return dict(query=queries[seed % len(queries)], known=rng.integers(-12, 13, int(rng.integers(1, 5))) * 0.25,
                candidates=rng.integers(-6, 7, int(rng.integers(k, 8))) * 0.5, k=k)


def _world_values_case(seed):
    return _worlds_case(seed, _EXACT_QUERIES)


def _contributions_case(seed):
    case = _worlds_case(seed)
    del case["k"]
    return case


def _dataset_case(seed):
    rng = _rng(seed, 9)
    queries = ("sum", "mean", "median", "var", "min", "max")
    return dict(query=queries[seed % len(queries)], data=rng.integers(-6, 7, int(rng.integers(3, 6))) * 0.5,
                candidates=rng.integers(-6, 7, int(rng.integers(1, 4))) * 0.5)


def _gaussian_delta_case(seed):
    rng = _rng(seed, 10)
    m = int(rng.integers(3, 8))
    return dict(values=np.sort(rng.normal(size=m) * 2), rho=float(rng.uniform(0.3, 0.9)),
                sigma=float(rng.uniform(0.3, 2.0)), world=int(rng.integers(0, m)),
                counts=rng.integers(1, 3, m).astype(np.float64) if seed % 2 else None)


def _analytic_sigma_case(seed):
    rng = _rng(seed, 11)
    return dict(epsilon=float(10.0 ** rng.uniform(-3, 1.7)), delta=float(10.0 ** rng.uniform(-12, -0.3)))


def _analytic_delta_case(seed):
    rng = _rng(seed, 12)
    return dict(sigma=float(10.0 ** rng.uniform(-0.7, 1.7)), epsilon=float(10.0 ** rng.uniform(-2, 1)))


def _multi_case(seed):
    rng = _rng(seed, 13)
    case = _worlds(rng, m_hi=12)
    m = case["values"].size
    case["values"] = np.round(rng.normal(size=(m, 2)) * 2, 1)
    case["scale"] = rng.uniform(0.3, 2.0, 2)
    return case


def _membership_case(seed):
    rng = _rng(seed, 14)
    k = int(rng.integers(1, 4))
    return dict(query=("sum", "mean")[seed % 2], known=rng.integers(0, 10, int(rng.integers(0, 5))).astype(float),
                candidates=rng.integers(0, 8, int(rng.integers(k + 1, 9))).astype(float),
                scale=(0.3, 2.0)[seed // 2 % 2], k=k)


def _bayes_case(seed):
    rng = _rng(seed, 15)
    prior = float(rng.uniform(0.01, 0.9))
    return dict(epsilon=float(10.0 ** rng.uniform(-3, 1)), prior=prior,
                posterior=float(prior + (1 - prior) * rng.uniform(0.01, 0.99)))


def _rr_case(seed):
    rng = _rng(seed, 16)
    return dict(p=float(rng.uniform(0.01, 0.99)), k=float(rng.uniform(0.01, 0.99)),
                prior=float(rng.uniform(0.01, 0.99)), epsilon=float(10.0 ** rng.uniform(-3, 1.5)),
                d=int(rng.integers(2, 20)))


def _kary_epsilon_case(seed):
    """p from 1/d to (1 + 1/d) / 2: the range where the epsilon is positive."""
    case = _rr_case(seed)
    d = case["d"]
    return dict(p=1.0 / d + 0.5 * case["p"] * (1.0 - 1.0 / d), d=d)


def _rr(*names, **renames):
    """A generator that takes some entries of `_rr_case` (``new="old"``: under a new name)."""

    def inputs(seed):
        case = _rr_case(seed)
        return {**{n: case[n] for n in names}, **{new: case[old] for new, old in renames.items()}}

    return inputs


# --------------------------------------------------------------------------- adapters of the functions


def _dense_posterior_row(values, response, scale, counts=None, prior=None, noise="laplace"):
    return dense.dense_posterior(values, response=response, scale=scale, counts=counts, prior=prior, noise=noise)[0]


def _dense_disclosure(values, response, scale, world=0, counts=None, prior=None, noise="laplace"):
    return float(dense.dense_posterior(values, response=response, scale=scale, counts=counts, prior=prior,
                                       noise=noise)[0, world])


def _chunks(values, counts=None):
    return di.iter_chunks(values, chunk_size=7, counts=counts)


def _chunked_log_evidence(values, response, scale, counts=None):
    return di.chunked_log_evidence(_chunks(values, counts), response=response, scale=scale)


def _chunked_worst_case(values, scale, counts=None):
    order = np.argsort(values, kind="stable")  # the chunks must be sorted
    return di.chunked_worst_case_risk(_chunks(values[order], None if counts is None else counts[order]), scale=scale)


def _with_counts(case):
    """The case without a prior (the chunked functions take counts only)."""
    return {k: v for k, v in case.items() if k != "prior"}


def _membership_each(query, known, candidates, scale, k=1):
    return di.membership_risk(query, known=known, candidates=candidates, scale=scale, k=k,
                              individual=np.arange(len(candidates)))


def _brute_dataset_range(query, data, candidates):
    return brute_force.dataset_sensitive_range(query, data=data, candidates=candidates)[0]


def _exact_dataset_range(query, data, candidates):
    from .mpmath_reference import removal_ranges_exact

    return float(max(removal_ranges_exact(query, data=data, candidates=candidates)))


def _mp_analytic_sigma(epsilon, delta):
    from .mpmath_reference import analytic_gaussian_sigma

    # the 50-digit root, found from a start within 1e-6 of it
    return analytic_gaussian_sigma(epsilon, delta=delta, start=di.analytic_gaussian_sigma(epsilon, delta=delta))


def _multi_mpmath(values, scale, counts=None, prior=None):
    return _mp("multi_worst_case_risk")(values, scales=scale, counts=counts, prior=prior)


# --------------------------------------------------------------------------- the table

_FIRST = lambda out: out[0]  # noqa: E731  (the mpmath worst_case_risk returns (rho*, argmax))

_ENTRIES = [
    Comparison(di.log_evidence, (
        Reference("dense", dense.dense_log_evidence, rtol=KERNEL, atol=1e-12),
        _scipy(dense.scipy_log_evidence, 1e-12, 1e-12),
        Reference("numpy", dense.numpy_log_evidence, rtol=KERNEL, atol=1e-12),
        _mpmath("log_evidence", 1e-12, 1e-12),
    ), _log_evidence_case),
    Comparison(di.log_posterior, (_mpmath("log_posterior", 1e-15, 1e-9),), _posterior_case),
    Comparison(di.posterior, (
        Reference("dense", _dense_posterior_row, rtol=KERNEL, atol=1e-300),
        _mpmath("posterior", 1e-12, 1e-300),
    ), _posterior_case),
    Comparison(di.disclosure_risk, (
        Reference("dense", _dense_disclosure, rtol=KERNEL, atol=1e-300),
        _mpmath("disclosure_risk", 1e-12, 1e-300),
    ), _disclosure_case),
    Comparison(di.worst_case_risk, (
        Reference("dense", dense.dense_worst_case_risk),
        Reference("brute", dense.grid_worst_case_risk),
        _scipy(dense.scipy_worst_case_risk),
        Reference("numpy", dense.numpy_worst_case_risk, rtol=KERNEL),
        _mpmath("worst_case_risk", pick=_FIRST),
        _mpmath("sweep_worst_case_risk", kind="mpmath_sweep"),
    ), _worst_case_case),
    Comparison(di.expected_risk, (
        _mpmath("expected_success", 1e-10, 1e-300),
        Reference("numpy", dense.numpy_expected_risk, rtol=KERNEL, atol=1e-300,
                  applies=lambda case: case.get("prior") is None),
    ), _expected_case),
    Comparison(di.tight_scale, (
        _scipy(dense.brentq_tight_scale),
        _mpmath("tight_scale", iterations=120),
    ), _tight_scale_case),
    Comparison(di.epsilon_for_rho, (_mpmath("epsilon_for_rho"),), _pick("rho", "m")),
    Comparison(di.rho_for_epsilon, (_mpmath("rho_for_epsilon"),), _pick("m", epsilon="eps")),
    Comparison(di.scale_for_rho, (_mpmath("scale_for_rho"),), _pick("rho", "m", sensitive_range="S")),
    Comparison(di.risk_bound, (_mpmath("risk_bound"),), _pick("scale", "m", sensitive_range="S")),
    Comparison(di.min_rho, (_mpmath("min_rho"),), _pick("m")),
    Comparison(di.effective_worlds, (_mpmath("effective_worlds"),), _prior_case),
    Comparison(di.world_values, (Reference("brute", brute_force.world_values, rtol=EXACT),), _world_values_case,
               seeds=5),
    Comparison(di.sensitive_range, (Reference("brute", brute_force.sensitive_range),), _worlds_case, seeds=7),
    Comparison(di.contributions, (Reference("brute", brute_force.contributions, rtol=KERNEL, atol=1e-12),),
               _contributions_case,
               seeds=7),
    Comparison(di.dataset_sensitive_range, (
        Reference("brute", _brute_dataset_range),
        Reference("exact", _exact_dataset_range, requires="mpmath"),
    ), _dataset_case, seeds=6),
    Comparison(di.gaussian_delta, (
        _scipy(dense.quad_gaussian_delta, 0.0, 1e-11),
        _mpmath("gaussian_delta", 1e-10, 1e-13),
    ), _gaussian_delta_case),
    Comparison(di.analytic_gaussian_sigma, (
        Reference("dp_accounting", dense.dp_accounting_sigma, rtol=SEARCH, atol=0.0, requires="dp_accounting"),
        Reference("mpmath", _mp_analytic_sigma, rtol=1e-13, atol=0.0, requires="mpmath"),
    ), _analytic_sigma_case),
    Comparison(di.analytic_gaussian_delta, (_mpmath("analytic_gaussian_delta", 1e-13),), _analytic_delta_case),
    Comparison(di.classic_gaussian_sigma, (_mpmath("classic_gaussian_sigma", 4e-16),),
               lambda seed: dict(_analytic_sigma_case(seed), epsilon=float(_rng(seed, 17).uniform(0.01, 0.99)))),
    Comparison(di.multi_worst_case_risk, (
        Reference("dense", dense.dense_worst_case_risk),
        Reference("brute", dense.grid_worst_case_risk),
        Reference("mpmath", _multi_mpmath, requires="mpmath"),
    ), _multi_case),
    Comparison(di.membership_risk, (Reference("brute", brute_force.membership_risk),), _membership_case,
               call=_membership_each),
    Comparison(di.posterior_bound, (_mpmath("posterior_bound"),),
               lambda seed: {k: _bayes_case(seed)[k] for k in ("epsilon", "prior")}),
    Comparison(di.epsilon_for_posterior, (_mpmath("epsilon_for_posterior"),),
               lambda seed: {k: _bayes_case(seed)[k] for k in ("posterior", "prior")}),
    Comparison(di.chunked_log_evidence, (
        Reference("dense", dense.dense_log_evidence, rtol=KERNEL, atol=1e-12),
        _mpmath("log_evidence", 1e-12, 1e-12),
    ), lambda seed: _with_counts(_log_evidence_case(seed)), call=_chunked_log_evidence),
    Comparison(di.chunked_worst_case_risk, (
        Reference("dense", dense.dense_worst_case_risk),
        _mpmath("worst_case_risk", pick=_FIRST),
    ), lambda seed: _with_counts(_worst_case_case(seed)), call=_chunked_worst_case),
    Comparison(rr.epsilon, (_rr_exact("epsilon"),), _rr(flip="p", zero="k"), name="rr.epsilon"),
    Comparison(rr.epsilon_bound, (_rr_exact("epsilon_bound"),), _rr(flip="p", zero="k"), name="rr.epsilon_bound"),
    Comparison(rr.posterior, (_rr_exact("posterior"),),
               lambda seed: dict(_rr("prior", flip="p", zero="k")(seed), report=seed % 2), name="rr.posterior"),
    Comparison(rr.identification_risk, (_rr_exact("risk"),),
               lambda seed: dict(_rr("prior", flip="p", zero="k")(seed), value=seed % 2),
               name="rr.identification_risk"),
    Comparison(rr.rho, (_rr_exact("rho"),), _rr("prior", flip="p", zero="k"), name="rr.rho"),
    Comparison(rr.warner_p, (_rr_exact("warner_p"),), _rr("epsilon"), name="rr.warner_p"),
    Comparison(rr.kary_p, (_rr_exact("kary_p"),), _rr("epsilon", "d"), name="rr.kary_p"),
    Comparison(rr.kary_epsilon, (_rr_exact("kary_epsilon"),), _kary_epsilon_case, name="rr.kary_epsilon"),
]

_ENTRIES += _comparisons_mechanisms.ENTRIES + _comparisons_more.ENTRIES

#: {name: `Comparison`} for every public computation with a reference.
COMPARISONS = {c.name: c for c in _ENTRIES}


def comparison(name):
    """The table's `Comparison` for a name such as ``"worst_case_risk"`` or ``"rr.rho"``."""
    return COMPARISONS[name]
