"""The comparison table's entries for the calibrations, dp and randomized response."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

import diffident as di
from diffident import rr

from . import brute_force, dense
from ._comparison import Comparison, Reference, _floats, _mp, _rng, _rr_exact
from .tolerances import EXACT, INVERSE, KERNEL, ROUNDED, SEARCH, ulps

__all__ = ["ENTRIES"]


def _mpmath():
    """The mpmath reference (imported on first use: needs mpmath)."""
    from . import mpmath_reference

    return mpmath_reference


def _smallest(passes, lo, hi):
    """The smallest float in (lo, hi] at which monotone ``passes`` holds, by bisection."""
    while np.nextafter(lo, np.inf) < hi:
        mid = math.sqrt(lo * hi) if lo > 0 else hi / 2
        mid = min(max(mid, np.nextafter(lo, np.inf)), np.nextafter(hi, 0.0))
        lo, hi = (lo, mid) if passes(mid) else (mid, hi)
    return hi


def _bracketed(passes):
    """The smallest scale that passes: 0 if 1e-200 does, inf if 1e300 fails."""
    if passes(1e-200):
        return 0.0
    if not passes(1e300):
        return math.inf
    lo, hi = 1.0, 1.0
    while passes(lo):
        lo /= 2.0
    while not passes(hi):
        hi *= 2.0
    return _smallest(passes, lo, hi)


# --------------------------------------------------------------------------- tight calibrations


def _tight_case(seed):
    rng = _rng(seed, 50)
    m = int(rng.integers(3, 9))
    return dict(values=np.sort(rng.normal(size=m)) * 3.0, rho=float((1.0 / m) ** rng.uniform(0.2, 0.8)),
                counts=rng.integers(1, 4, m).astype(np.float64) if seed % 2 else None)


def _mp_tight_epsilon(values, rho, counts=None):
    ref = _mpmath()
    with ref.mp.workdps(60):
        spread = ref.mpf(float(np.max(values))) - ref.mpf(float(np.min(values)))
        return _floats(spread / ref.tight_scale(values, rho=rho, counts=counts, iterations=60))


def _multi_case(seed):
    rng = _rng(seed, 51)
    m = int(rng.integers(3, 7))
    return dict(values=np.round(rng.normal(size=(m, 2)) * 2, 1), rho=np.sort(rng.uniform(1.0 / m, 1.0, 2)),
                counts=rng.integers(1, 3, m).astype(np.float64) if seed % 2 else None,
                prior=rng.uniform(0.5, 2.0, m) if seed % 3 == 1 else None)


def _mp_multi_tight_scale(values, rho, counts=None, prior=None):
    """The scales ``u * spread`` at the least u whose 60-digit risk is <= rho."""
    ref = _mpmath()
    spread = np.ptp(values, axis=0)
    spread = np.where(spread > 0, spread, 1.0)

    def risk(u):
        return ref.multi_worst_case_risk(values, scales=u * spread, counts=counts, prior=prior)

    return np.array([_bracketed(lambda u, r=r: risk(u) <= r) * spread for r in np.ravel(rho)])


def _membership_case(seed):
    rng = _rng(seed, 52)
    k = int(rng.integers(1, 4))
    n = int(rng.integers(k + 1, 8))
    return dict(query=("sum", "mean")[seed % 2], known=rng.integers(0, 10, int(rng.integers(0, 4))).astype(float),
                candidates=rng.integers(0, 8, n).astype(float), k=k,
                rho=k / n + (1.0 - k / n) * np.sort(rng.uniform(0.2, 0.8, 2)))


def _brute_membership_tight(query, known, candidates, rho, k=1):
    """The least scale with every brute-force membership posterior <= rho."""
    def risk(s):
        return brute_force.membership_risk(query, known=known, candidates=candidates, scale=s, k=k).max()

    return np.array([_bracketed(lambda s, r=r: risk(s) <= r) for r in np.ravel(rho)])


def _sigma_case(seed):
    rng = _rng(seed, 53)
    m = int(rng.integers(3, 5))
    return dict(values=np.sort(rng.normal(size=m) * 2), rho=float(rng.uniform(0.45, 0.9)),
                delta=float(10.0 ** rng.uniform(-4, -1)), world=None if seed == 2 else int(rng.integers(0, m)),
                counts=rng.integers(1, 3, m).astype(np.float64) if seed % 2 else None)


def _sigma_meets_target(values, rho, delta, world=None, counts=None):
    """The sigma `gaussian_sigma_for` returns where it just meets the target."""
    ref = _mpmath()
    s = float(di.gaussian_sigma_for(values, rho=rho, delta=delta, world=world, counts=counts))

    def meets(sigma):
        return ref.gaussian_delta(values, rho=rho, sigma=sigma, counts=counts, world=world) <= delta

    return s if meets(s) and not meets(s * (1.0 - 1e-8)) else float("nan")


_DATASET = (("mean", False), ("max", True), ("sum", False), ("median", True), ("mean", True))


def _dataset_case(seed):
    """Explicit candidates or an integer Domain 0..hi, by turns (`_DATASET`)."""
    rng = _rng(seed, 54)
    query, domain = _DATASET[seed % len(_DATASET)]
    n, rho = int(rng.integers(3, 6)), np.sort(rng.uniform(0.55, 0.95, 2))
    if domain:
        hi = int(rng.integers(3, 6))
        return dict(query=query, data=rng.integers(0, hi + 1, n).astype(float), candidates=(0, hi), rho=rho)
    return dict(query=query, data=rng.integers(-6, 7, n) * 0.5,
                candidates=rng.integers(-6, 7, int(rng.integers(1, 4))) * 0.5, rho=rho)


def _shifted(case):
    """Sum or mean over a Domain: the result raised by its documented margin."""
    domain = "hi" in case or isinstance(case["candidates"], tuple)  # (a sweep's domain is 0..hi)
    return domain and all(q in ("sum", "mean") for q in case.get("queries", (case.get("query"),)))


def _domain(candidates):
    return di.Domain(*candidates) if isinstance(candidates, tuple) else candidates


def _dataset_tight_scale(query, data, candidates, rho):
    return di.dataset_tight_scale(query, data=data, candidates=_domain(candidates), rho=rho)


def _brute_tight(query, data, candidates, rho):
    """The largest brute-force tight scale over every D' = data minus one."""
    first = sorted({float(x): i for i, x in enumerate(data)}.values())  # (equal values remove alike)
    groups = [np.unique(brute_force.all_values(query, known=np.delete(data, i),
                                               candidates=brute_force.candidates_for(candidates, data=data,
                                                                                     removed=(i,))),
                        return_counts=True) for i in first]

    def tight(values, counts, r):
        return _bracketed(lambda s: dense.dense_worst_case_risk(values, scale=s, counts=counts) <= r)

    return np.array([max(tight(v, c.astype(np.float64), r) for v, c in groups) for r in np.ravel(rho)])


def _sweep_case(seed):
    rng = _rng(seed, 55)
    hi = int(rng.integers(4, 8))
    return dict(data=rng.integers(0, hi + 1, int(rng.integers(4, 6))).astype(float), hi=hi,
                queries=(("median", "max"), ("mean", "sum"))[seed % 2], rho=np.sort(rng.uniform(0.3, 0.8, 2)))


_SWEPT = ("sensitive_range", "bound_scale", "tight_scale", "tight_epsilon")


def _sweep(data, hi, queries, rho):
    """`sweep` of one column over 0..hi as one array."""
    table = di.sweep({"x": data}, queries=queries, rho=rho, domains={"x": (0, hi)}, ddof=0, rtol=EXACT)
    return np.concatenate([np.asarray(table[c], dtype=np.float64) for c in _SWEPT])


def _brute_sweep(data, hi, queries, rho):
    """The same columns by brute force (`_brute_tight`)."""
    ref = _mpmath()
    cols: dict[str, list[float]] = {c: [] for c in _SWEPT}
    for query in queries:
        S = brute_force.dataset_sensitive_range(query, data=data, candidates=(0, hi))[0]
        tight = _brute_tight(query, data, (0, hi), rho)
        for r, t in zip(np.ravel(rho), tight, strict=True):
            cols["sensitive_range"].append(S)
            cols["bound_scale"].append(float(ref.scale_for_rho(r, m=hi + 1, sensitive_range=S)))
            cols["tight_scale"].append(t)
            cols["tight_epsilon"].append(S / t)
    return np.concatenate([np.array(cols[c], dtype=np.float64) for c in _SWEPT])


# --------------------------------------------------------------------------- out of core


def _chunked_case(seed):
    rng = _rng(seed, 56)
    m = int(rng.integers(2, 30))
    values = np.round(rng.normal(size=m) * 3.0, int(rng.integers(0, 3)))
    return dict(values=values, counts=rng.integers(1, 4, m).astype(np.float64) if seed % 2 else None,
                response=float(rng.uniform(values.min() - 2.0, values.max() + 2.0)),
                scale=float(np.ptp(values) + 1.0) * 10.0 ** rng.uniform(-1.5, 0.5),
                world=int(rng.integers(0, m)), noise=("laplace", "gaussian")[seed // 2 % 2])


def _chunked_disclosure(values, response, scale, world, counts=None, noise="laplace"):
    return di.chunked_disclosure_risk(di.iter_chunks(values, chunk_size=7, counts=counts), response=response,
                                      scale=scale, world_value=values[world], noise=noise)


def _dense_disclosure(values, response, scale, world, counts=None, noise="laplace"):
    return float(dense.dense_posterior(values, response=response, scale=scale, counts=counts, noise=noise)[0, world])


def _chunks_case(seed):
    rng = _rng(seed, 57)
    n = int(rng.integers(1, 40))
    return dict(values=rng.normal(size=n), chunk_size=int(rng.integers(1, 12)),
                counts=rng.integers(0, 5, n).astype(np.float64) if seed % 2 else None)


def _iter_chunks(values, chunk_size, counts=None):
    """The chunks, concatenated, then each chunk's length."""
    chunks = list(di.iter_chunks(values, chunk_size=chunk_size, counts=counts))
    parts = [v for v, _ in chunks] + ([c for _, c in chunks] if counts is not None else [])
    return np.concatenate(parts + [[len(v) for v, _ in chunks]]).astype(np.float64)


def _brute_chunks(values, chunk_size, counts=None):
    """Values, counts and the lengths ``chunk_size``, ..., the rest."""
    n = len(values)
    lengths = [min(chunk_size, n - a) for a in range(0, n, chunk_size)]
    return np.concatenate([values] + ([counts] if counts is not None else []) + [lengths]).astype(np.float64)


# --------------------------------------------------------------------------- diffident.dp


def _composition_case(seed):
    rng = _rng(seed, 58)
    k = int(rng.integers(1, 12))
    return dict(epsilons=10.0 ** rng.uniform(-3, 1, k), deltas=10.0 ** rng.uniform(-9, -1, k) if seed % 2 else None)


def _exact_sequential(epsilons, deltas=None):
    """The exact sums (Fractions) rounded up; delta capped at 1."""
    from ._mpmath_mechanisms import round_up

    eps = round_up(sum((Fraction(float(e)) for e in epsilons), Fraction(0)))
    if deltas is None:
        return eps
    return eps, min(round_up(sum((Fraction(float(d)) for d in deltas), Fraction(0))), 1.0)


def _exact_parallel(epsilons, deltas=None):
    return max(epsilons) if deltas is None else (max(epsilons), max(deltas))


def _releases_case(seed):
    rng = _rng(seed, 59)
    m = float(np.floor(10.0 ** rng.uniform(0.5, 5)))
    return dict(epsilons=10.0 ** rng.uniform(-3, 0.5, int(rng.integers(1, 8))), m=m,
                rho=float(1.0 / m + (1.0 - 1.0 / m) * rng.uniform(0.05, 0.95)), k=int(rng.integers(1, 20)))


def _mp_rho_after(epsilons, m):
    """``1 / (1 + (m - 1) e^-eps)`` at 60 digits at the rounded-up sum, rounded up."""
    from ._mpmath_mechanisms import round_up

    ref = _mpmath()
    total = round_up(sum((Fraction(float(e)) for e in epsilons), Fraction(0)))
    with ref.mp.workdps(60):
        return round_up(1 / (1 + (ref.mpf(m) - 1) * ref.mp.exp(-ref.mpf(total))))


def _mp_epsilon_per_release(rho, m, k):
    ref = _mpmath()
    with ref.mp.workdps(60):
        return _floats(ref.epsilon_for_rho(rho, m=m) / k)


def _noise_case(seed):
    rng = _rng(seed, 60)
    return dict(x=float(10.0 ** rng.uniform(-3, 3)), sensitivity=float(rng.integers(1, 5)) if seed % 2 else 1.0,
                p=float(10.0 ** rng.uniform(-6, -0.01)), granularity=(1.0, 0.25, 0.1, 3.0)[seed % 4])


def _noise(*names, rename=None):
    def inputs(seed):
        case = _noise_case(seed)
        out = {n: case[n] for n in names}
        if rename:
            out[rename] = out.pop("x")
        return out

    return inputs


def _exact_up(func):
    """An exact rational function of the case's floats, rounded up to the float."""

    def ref(**case):
        from ._mpmath_mechanisms import round_up

        return round_up(func(**{k: Fraction(float(v)) for k, v in case.items()}))

    ref.__name__ = f"round_up({func.__name__})"
    return ref


def _geometric_scale(p, granularity=1.0):
    ref = _mpmath()
    with ref.mp.workdps(60):
        return _floats(-ref.mpf(granularity) / ref.mp.log1p(-ref.mpf(p)))


def _geometric_p(scale, granularity=1.0):
    ref = _mpmath()
    with ref.mp.workdps(60):
        return _floats(-ref.mp.expm1(-ref.mpf(granularity) / ref.mpf(scale)))


def _laplace_epsilon(scale, sensitivity):
    return sensitivity / scale


def _laplace_scale(epsilon, sensitivity):
    return sensitivity / epsilon


def _zcdp(sigma, sensitivity):
    return sensitivity**2 / (2 * sigma**2)


def _sigma_up(zcdp_rho, sensitivity=1.0):
    from ._mpmath_mechanisms import sigma_round_up

    return sigma_round_up(sensitivity, zcdp_rho)


# --------------------------------------------------------------------------- diffident.rr


def _rr_case(seed):
    rng = _rng(seed, 61)
    n = float(rng.integers(1, 10**6))
    return dict(q=float(rng.uniform(0.0, 1.0)), p=float(rng.uniform(0.01, 0.99)), k=float(rng.uniform(0.01, 0.99)),
                n=n, t=float(rng.uniform(0.5, 1.0)), n_yes=float(np.floor(rng.uniform(0.0, 1.0) * n)))


def _rr(*names, **renames):
    def inputs(seed):
        case = _rr_case(seed)
        out = {n: case[n] for n in names}
        out.update({new: case[old] for new, old in renames.items()})
        return out

    return inputs


def _kary_case(seed):
    rng = _rng(seed, 62)
    return dict(counts=rng.integers(0, 1000, int(rng.integers(2, 8))).astype(np.float64),
                epsilon=float(10.0 ** rng.uniform(-2, 1.5)))


def _kary_estimate(counts, epsilon):
    """The estimates over the scale of their error, ``|c_j| + |(d c_j - n) / (e^eps - 1)|``."""
    d, n = counts.size, counts.sum()
    return rr.kary_estimate(counts, epsilon=epsilon) / (np.abs(counts) + np.abs((d * counts - n) / np.expm1(epsilon)))


def _exact_kary_estimate(counts, epsilon):
    from mpmath import mp

    from . import rr_reference

    with mp.workdps(60):
        return _floats([est / scale for est, scale in rr_reference.kary_estimate(counts, epsilon=epsilon)])


_DRAWS = 200_000
_SIX_SD = 6.0 * 0.5 / math.sqrt(_DRAWS)  # six standard deviations of a share of _DRAWS draws, at most


def _sample_case(seed):
    rng = _rng(seed, 63)
    return dict(p=float(rng.uniform(0.2, 0.9)), k=float((rng.uniform(0.05, 0.35), rng.uniform(0.65, 0.95))[seed % 2]),
                seed=seed)


def _sample_shares(p, k, seed):
    """The shares of reported ones among _DRAWS ones and _DRAWS zeros."""
    x = np.repeat([1, 0], _DRAWS)
    reports = np.asarray(rr.sample(x, flip=p, zero=k, rng=np.random.default_rng(seed)))
    return np.array([reports[:_DRAWS].mean(), reports[_DRAWS:].mean()])


def _report_probabilities(p, k, seed):
    """P(report 1 | x = 1) = 1 - p k and P(report 1 | x = 0) = p (1 - k)."""
    return _floats([1 - Fraction(p) * Fraction(k), Fraction(p) * (1 - Fraction(k))])


def _kary_sample_case(seed):
    rng = _rng(seed, 64)
    return dict(epsilon=float(rng.uniform(0.2, 3.0)), d=int(rng.integers(2, 7)), seed=seed)


def _kary_shares(epsilon, d, seed):
    """The share of each category among _DRAWS reports of category 0."""
    reports = rr.kary_sample(np.zeros(_DRAWS, dtype=np.int64), epsilon=epsilon, d=d, rng=np.random.default_rng(seed))
    return np.bincount(reports, minlength=d) / _DRAWS


def _kary_probabilities(epsilon, d, seed):
    """e^eps / (e^eps + d - 1) for the truth, 1 / (e^eps + d - 1) for the others."""
    ref = _mpmath()
    with ref.mp.workdps(60):
        x = ref.mp.exp(ref.mpf(epsilon))
        return _floats([x / (x + d - 1)] + [1 / (x + d - 1)] * (d - 1))


def _statistical(func):
    return Reference("statistical", func, rtol=EXACT, atol=_SIX_SD)


# --------------------------------------------------------------------------- the entries

ENTRIES = [
    Comparison(di.tight_epsilon, (Reference("mpmath", _mp_tight_epsilon, requires="mpmath"),), _tight_case),
    Comparison(di.multi_tight_scale, (Reference("mpmath", _mp_multi_tight_scale, rtol=KERNEL, requires="mpmath"),),
               _multi_case),
    Comparison(di.membership_tight_scale, (Reference("brute", _brute_membership_tight, rtol=INVERSE),),
               _membership_case),
    Comparison(di.gaussian_sigma_for, (Reference("roundtrip", _sigma_meets_target, rtol=EXACT, requires="mpmath"),),
               _sigma_case, seeds=3),
    Comparison(di.dataset_tight_scale, (
        Reference("brute", _brute_tight, rtol=KERNEL, requires="mpmath", applies=lambda c: not _shifted(c)),
        Reference("brute_margin", _brute_tight, rtol=SEARCH, requires="mpmath", applies=_shifted),
    ), _dataset_case, call=_dataset_tight_scale, seeds=5),
    Comparison(di.sweep, (
        Reference("brute", _brute_sweep, rtol=KERNEL, requires="mpmath", applies=lambda c: not _shifted(c)),
        Reference("brute_margin", _brute_sweep, rtol=SEARCH, requires="mpmath", applies=_shifted),
    ), _sweep_case, call=_sweep, seeds=2),
    Comparison(di.chunked_disclosure_risk, (
        Reference("dense", _dense_disclosure, rtol=KERNEL, atol=1e-300),
        Reference("mpmath", _mp("disclosure_risk"), rtol=KERNEL, atol=1e-300, requires="mpmath"),
    ), _chunked_case, call=_chunked_disclosure),
    Comparison(di.iter_chunks, (Reference("brute", _brute_chunks, rtol=EXACT),), _chunks_case, call=_iter_chunks),
    Comparison(di.compose_sequential, (Reference("exact", _exact_sequential, rtol=EXACT),), _composition_case),
    Comparison(di.compose_parallel, (Reference("exact", _exact_parallel, rtol=EXACT),), _composition_case),
    Comparison(di.rho_after_composition, (Reference("mpmath", _mp_rho_after, rtol=EXACT, requires="mpmath"),),
               lambda seed: {k: _releases_case(seed)[k] for k in ("epsilons", "m")}),
    Comparison(di.epsilon_per_release, (Reference("mpmath", _mp_epsilon_per_release, rtol=ulps(4),
                                                  requires="mpmath"),),
               lambda seed: {k: _releases_case(seed)[k] for k in ("rho", "m", "k")}),
    Comparison(di.discrete_laplace_epsilon, (Reference("exact", _exact_up(_laplace_epsilon), rtol=EXACT),),
               _noise("sensitivity", "x", rename="scale")),
    Comparison(di.discrete_laplace_scale, (Reference("exact", _exact_up(_laplace_scale), rtol=EXACT),),
               _noise("sensitivity", "x", rename="epsilon")),
    Comparison(di.discrete_gaussian_zcdp, (Reference("exact", _exact_up(_zcdp), rtol=EXACT),),
               _noise("sensitivity", "x", rename="sigma")),
    Comparison(di.discrete_gaussian_sigma, (Reference("exact", _sigma_up, rtol=EXACT, requires="mpmath"),),
               _noise("sensitivity", "x", rename="zcdp_rho")),
    # "within two ulps": 2 ulps of x are at most 2**-51 |x|
    Comparison(di.geometric_scale, (Reference("mpmath", _geometric_scale, rtol=ROUNDED, requires="mpmath"),),
               _noise("p", "granularity")),
    Comparison(di.geometric_p, (Reference("mpmath", _geometric_p, rtol=ROUNDED, requires="mpmath"),),
               _noise("granularity", "x", rename="scale")),
    Comparison(rr.estimate, (_rr_exact("estimate"),), _rr("q", flip="p", zero="k"), name="rr.estimate"),
    Comparison(rr.variance, (_rr_exact("variance"),), _rr("q", "n", flip="p", zero="k"), name="rr.variance"),
    Comparison(rr.warner_epsilon, (_rr_exact("warner_epsilon"),), _rr(p="t"), name="rr.warner_epsilon"),
    Comparison(rr.warner_estimate, (_rr_exact("warner_estimate"),), _rr("n_yes", "n", p="t"),
               name="rr.warner_estimate"),
    # relative to the size of the two terms the estimate adds, as documented
    Comparison(rr.kary_estimate, (Reference("exact", _exact_kary_estimate, rtol=KERNEL, atol=1e-14,
                                            requires="mpmath"),), _kary_case, call=_kary_estimate,
               name="rr.kary_estimate"),
    Comparison(rr.sample, (_statistical(_report_probabilities),), _sample_case, call=_sample_shares,
               name="rr.sample"),
    Comparison(rr.kary_sample, (_statistical(_kary_probabilities),), _kary_sample_case, call=_kary_shares,
               name="rr.kary_sample"),
]
