"""The comparison table's entries for the mechanisms and what is built on them."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

import diffident as di

from ._comparison import Comparison, Reference, _floats, _rng
from .tolerances import EXACT, INVERSE, KERNEL, PLD, ulps

__all__ = ["ENTRIES"]

_CLASSES = {
    "laplace": di.Laplace,
    "gaussian": di.Gaussian,
    "discrete_laplace": di.DiscreteLaplace,
    "discrete_gaussian": di.DiscreteGaussian,
    "randomized_response": di.RandomizedResponse,
    "pure_dp": di.PureDP,
    "approx_dp": di.ApproxDP,
    "subsampled_gaussian": di.SubsampledGaussian,
}

#: the measure `calibrate` takes -> the keyword of its argument
_ARGUMENT = {"advantage": None, "tpr_at_fpr": "fpr", "posterior": "prior", "identification": "m", "success": "m",
             "delta": "epsilon", "epsilon": "delta"}


def _ref():
    """The mechanisms' mpmath reference (imported on first use: needs mpmath)."""
    from . import _mpmath_mechanisms

    return _mpmath_mechanisms


def _profile(case):
    return case["measure"] == "profile"


def _inverse(case):
    return case["measure"] == "epsilon"


# --------------------------------------------------------------------------- one mechanism


def _read(m, measure, epsilons, alphas, prior, deltas):
    """A mechanism's measures as one float array."""
    if measure == "epsilon":
        return np.asarray(m.epsilon(np.asarray(deltas, dtype=np.float64)), dtype=np.float64)
    parts = [m.delta(np.asarray(epsilons, dtype=np.float64))]
    if len(alphas):
        parts.append(m.tradeoff(np.asarray(alphas, dtype=np.float64)))
    parts.append([m.advantage(), m.posterior(prior)])
    return np.concatenate([np.ravel(np.asarray(p, dtype=np.float64)) for p in parts])


def _read_pair(pair, measure, epsilons, alphas, prior, deltas):
    """The same measures of a reference pair, as floats."""
    if measure == "epsilon":
        return _floats([pair.epsilon(d) for d in deltas])
    return _floats([pair.delta(e) for e in epsilons] + [pair.tradeoff(a) for a in alphas]
                   + [pair.advantage(), pair.posterior(prior)])


def _measured(family):
    """The call of a mechanism's entry: build it from the case, read its measures."""

    def call(param, *, measure, epsilons=(), alphas=(), prior=0.5, deltas=(), **fixed):
        return _read(_CLASSES[family](param, **fixed), measure, epsilons, alphas, prior, deltas)

    call.__name__ = f"measures of {_CLASSES[family].__name__}"
    return call


def _pair_reference(family):
    def ref(param, *, measure, epsilons=(), alphas=(), prior=0.5, deltas=(), **fixed):
        return _read_pair(_ref().pair(family, param, **fixed), measure, epsilons, alphas, prior, deltas)

    ref.__name__ = f"_mpmath_mechanisms.pair({family!r})"
    return ref


def _draw_param(family, rng):
    """A mechanism's parameter and constructor keywords."""
    if family == "laplace":
        return float(10.0 ** rng.uniform(-1, 1)), dict(sensitivity=float(10.0 ** rng.uniform(-0.5, 0.5)))
    if family == "gaussian":
        return float(10.0 ** rng.uniform(-0.7, 0.7)), dict(sensitivity=float(10.0 ** rng.uniform(-0.3, 0.3)))
    if family == "discrete_laplace":
        return float(10.0 ** rng.uniform(-0.5, 1)), dict(sensitivity=int(rng.integers(1, 4)))
    if family == "discrete_gaussian":
        return float(10.0 ** rng.uniform(-0.3, 0.8)), dict(sensitivity=int(rng.integers(1, 4)))
    if family == "randomized_response":
        d = int(rng.integers(2, 7))
        return float(1.0 / d + (1.0 - 1.0 / d) * rng.uniform(0.05, 0.95)), dict(d=d)
    if family == "pure_dp":
        return float(10.0 ** rng.uniform(-1.5, 1)), {}
    if family == "approx_dp":
        return float(10.0 ** rng.uniform(-1.5, 1)), dict(delta=float(10.0 ** rng.uniform(-6, -1)))
    return float(rng.uniform(1.5, 3.0)), dict(sampling_rate=float(rng.uniform(0.2, 0.6)), steps=1)


def _mechanism_case(family, salt, profiles=4):
    """Seeds below ``profiles`` read the profile, the others its inverse."""

    def inputs(seed):
        rng = _rng(seed, salt)
        param, fixed = _draw_param(family, rng)
        case = dict(param=param, **fixed, prior=float(rng.uniform(0.01, 0.99)))
        if seed >= profiles:
            deltas = np.sort(10.0 ** rng.uniform(-6, -1, 2))
            if family == "approx_dp":  # between its own delta D and delta(0) = D + (1 - D) tanh(eps / 2)
                D = fixed["delta"]
                deltas = D + (1.0 - D) * np.tanh(param / 2.0) * np.sort(rng.uniform(0.05, 0.95, 2))
            case.update(measure="epsilon", deltas=deltas)
            return case
        case.update(measure="profile", epsilons=np.sort(10.0 ** rng.uniform(-2, 0.7, 3)),
                    alphas=np.array([10.0 ** rng.uniform(-4, -1.5), rng.uniform(0.05, 0.5), rng.uniform(0.5, 0.95)]))
        if family == "subsampled_gaussian":  # (its tails past the PLD's truncation, 1e-24, are not compared)
            case.update(epsilons=np.sort(rng.uniform(0.0, 1.0, 3)), alphas=np.zeros(0))
        return case

    return inputs


def _mechanism_entry(family, salt, *, rtol, inverse_rtol, atol=0.0, requires=("mpmath",), seeds=6, profiles=4):
    return Comparison(_CLASSES[family], (
        Reference("mpmath", _pair_reference(family), rtol=rtol, atol=atol, requires=requires, applies=_profile),
        Reference("mpmath_epsilon", _pair_reference(family), rtol=inverse_rtol, atol=atol, requires=requires,
                  applies=_inverse),
    ), _mechanism_case(family, salt, profiles), call=_measured(family), seeds=seeds)


# --------------------------------------------------------------------------- compositions

_WIDTH = 1e-5  # the PLD's grid of losses in the composition cases
_MOST = 4  # releases per composition case


def _parts_case(seed):
    """Finite parts (family, parameter, d or delta, count); seed 3 reads the inverse."""
    rng = _rng(seed, 40)
    families = ("randomized_response", "pure_dp", "approx_dp")[: 1 + seed % 3]
    parts = []
    for i, family in enumerate(families):
        param, fixed = _draw_param(family, rng)
        k = int(rng.integers(2 if len(families) == 1 else 1, _MOST - len(families) + 2)) if i == 0 else 1
        parts.append((family, param, float(fixed.get("d", fixed.get("delta", 0.0))), k))
    return dict(parts=parts, measure="epsilon" if seed == 3 else "profile",
                epsilons=np.sort(rng.uniform(0.05, 2.0, 3)), alphas=np.array([0.01, rng.uniform(0.1, 0.4), 0.6]),
                prior=float(rng.uniform(0.05, 0.95)), deltas=np.sort(10.0 ** rng.uniform(-3, -1, 2)))


def _gaussians_case(seed):
    """Gaussians only (even seeds; seed 4 reads the inverse), else finite parts."""
    if seed % 2:
        return _parts_case(seed)
    rng = _rng(seed, 41)
    parts = [("gaussian", float(10.0 ** rng.uniform(-0.3, 0.5)), float(rng.uniform(0.5, 2.0)), 1)
             for _ in range(int(rng.integers(2, 4)))]
    return dict(parts=parts, measure="epsilon" if seed == 4 else "profile",
                epsilons=np.sort(10.0 ** rng.uniform(-2, 0.7, 3)),
                alphas=np.array([10.0 ** rng.uniform(-4, -1.5), rng.uniform(0.05, 0.5), rng.uniform(0.5, 0.95)]),
                prior=float(rng.uniform(0.01, 0.99)), deltas=np.sort(10.0 ** rng.uniform(-6, -1, 2)))


def _mechanism(family, param, extra):
    key = {"randomized_response": "d", "approx_dp": "delta", "gaussian": "sensitivity"}.get(family)
    if family == "randomized_response":
        extra = int(extra)
    return _CLASSES[family](param, **({key: extra} if key else {}))


def _composed(kind):
    def call(parts, *, measure, epsilons=(), alphas=(), prior=0.5, deltas=()):
        if kind == "Composition":
            m = di.Composition(tuple((_mechanism(f, p, x), k) for f, p, x, k in parts), discretization=_WIDTH)
        else:
            m = di.compose(*[_mechanism(f, p, x) for f, p, x, k in parts for _ in range(k)], discretization=_WIDTH)
        return _read(m, measure, epsilons, alphas, prior, deltas)

    call.__name__ = f"measures of {kind}"
    return call


def _product(parts, *, measure, epsilons=(), alphas=(), prior=0.5, deltas=()):
    """The finite parts' product pair, enumerated."""
    M = _ref()
    pairs = [M.pair(f, p, d=int(x) if f == "randomized_response" else 2, delta=x) for f, p, x, k in parts
             for _ in range(k)]
    return _read_pair(M.compose_pairs(pairs), measure, epsilons, alphas, prior, deltas)


def _gaussian_sum(parts, *, measure, epsilons=(), alphas=(), prior=0.5, deltas=()):
    """Gaussians compose to the Gaussian of mu^2 = sum (Delta_i / sigma_i)^2."""
    from mpmath import mp, mpf

    with mp.workdps(60):
        mu = mp.sqrt(mp.fsum((mpf(x) / mpf(p)) ** 2 for f, p, x, k in parts for _ in range(k)))
        pair = _ref().pair("gaussian", 1.0, sensitivity=float(mu))
    return _read_pair(pair, measure, epsilons, alphas, prior, deltas)


def _is_gaussian(case):
    return case["parts"][0][0] == "gaussian"


def _brute(applies=None):
    """The enumerated product: within `_MOST` PLD grid widths of the composition."""
    return Reference("brute", _product, rtol=EXACT, atol=_MOST * _WIDTH, requires=("mpmath", "dp_accounting"),
                     applies=applies)


# --------------------------------------------------------------------------- calibrate

_CALIBRATIONS = [  # family, measure, argument, constructor keywords, log10 range of the target
    ("laplace", "advantage", None, dict(sensitivity=1.7), (-2, -0.3)),
    ("laplace", "delta", 0.5, {}, (-4, -1)),
    ("laplace", "tpr_at_fpr", 0.05, {}, (-1, -0.3)),
    ("laplace", "identification", 10.0, {}, (-0.9, -0.2)),
    ("gaussian", "delta", 1.0, dict(sensitivity=2.0), (-8, -2)),
    ("gaussian", "advantage", None, {}, (-2, -0.3)),
    ("gaussian", "success", 10.0, {}, (-0.9, -0.3)),
    ("discrete_laplace", "posterior", 0.1, {}, (-0.9, -0.2)),
    ("discrete_laplace", "advantage", None, dict(sensitivity=2), (-2, -0.3)),
    ("discrete_gaussian", "delta", 1.0, {}, (-8, -2)),
    ("randomized_response", "advantage", None, dict(d=3), (-2, -0.3)),
]


def _calibration_case(seed):
    family, measure, arg, fixed, (lo, hi) = _CALIBRATIONS[seed % len(_CALIBRATIONS)]
    rng = _rng(seed, 43)
    return dict(family=family, target=float(10.0 ** rng.uniform(lo, hi)), measure=measure, arg=arg, **fixed)


def _calibrate(family, target, *, measure, arg=None, **fixed):
    """`calibrate` on a case, its bisections run to 1e-12."""
    name = _ARGUMENT[measure]
    return di.calibrate(family, target, measure=measure, rtol=KERNEL, **({name: arg} if name else {}), **fixed)


def _exact_noise(family, target, *, measure, arg=None, **fixed):
    """The exact noise at which the 50-digit measure meets the target."""
    start = _calibrate(family, target, measure=measure, arg=arg, **fixed)  # (where the bracket begins)
    return _floats(_ref().calibrated(family, target, measure=measure, start=start, arg=arg, **fixed))


def _passes(family, value, measure, arg, fixed):
    m = _CLASSES[family](value, **fixed)
    return {"advantage": lambda: m.advantage(), "tpr_at_fpr": lambda: m.tpr_at_fpr(arg),
            "posterior": lambda: m.posterior(arg), "identification": lambda: m.identification_bound(arg),
            "success": lambda: m.success_bound(arg), "delta": lambda: m.delta(arg),
            "epsilon": lambda: m.epsilon(arg)}[measure]()


def _meets_target(family, target, *, measure, arg=None, **fixed):
    """The noise `calibrate` returns where its own method says it just meets the target."""
    x = float(_calibrate(family, target, measure=measure, arg=arg, **fixed))
    less = 1.0 - (1.0 - x) * (1.0 - 1e-9) if family == "randomized_response" else x * (1.0 - 1e-9)
    ok = _passes(family, x, measure, arg, fixed) <= target < _passes(family, less, measure, arg, fixed)
    return x if ok else float("nan")


# --------------------------------------------------------------------------- explain


def _explain_case(seed):
    rng = _rng(seed, 44)
    epsilon = float(10.0 ** rng.uniform(-1, 0.7))
    pure = seed % 2 == 0
    return dict(epsilon=epsilon, delta=0.0 if pure else float(10.0 ** rng.uniform(-8, -3)),
                mechanism=None if pure else "gaussian", m=(10, int(rng.integers(20, 2000))),
                priors=(float(10.0 ** rng.uniform(-3, -1)), float(rng.uniform(0.1, 0.9))))


def _explain(epsilon, delta=0.0, *, mechanism=None, m=(), priors=()):
    e = di.explain(epsilon, delta, mechanism=mechanism, m=list(m), priors=list(priors))
    return np.array([v for row in e.rows for v in row.values], dtype=np.float64)


def _explain_reference(epsilon, delta=0.0, *, mechanism=None, m=(), priors=()):
    """The `explain` table from exact pairs (finite, Laplace, analytic Gaussian)."""
    from .mpmath_reference import analytic_gaussian_sigma

    M = _ref()
    cols = [M.pair("pure_dp" if delta == 0.0 else "approx_dp", epsilon, delta=delta)]
    for kind in [mechanism] if mechanism else ["laplace", "discrete_laplace"]:
        if kind == "gaussian":
            start = di.analytic_gaussian_sigma(epsilon, delta=delta)  # (where the root's search begins)
            cols.append(M.pair("gaussian", analytic_gaussian_sigma(epsilon, delta=delta, start=start)))
        else:
            cols.append(M.pair(kind, M.round_up(1 / Fraction(epsilon))))
    rows = [[c.posterior(p) for c in cols] for p in priors] + [[c.identification(k) for c in cols] for k in m]
    rows += [[c.success(k) for c in cols] for k in m]
    rows += [[c.advantage() for c in cols], [c.tpr(0.01) for c in cols], [c.delta(epsilon) for c in cols]]
    return _floats([v for row in rows for v in row])


# --------------------------------------------------------------------------- Kazan and Reiter's profiles


def _ratio_case(seed):
    rng = _rng(seed, 45)
    return dict(a=float(rng.uniform(0.05, 0.9)), r=float(rng.uniform(1.0, 10.0)),
                p=10.0 ** rng.uniform(-4, 0, 5))


def _ratio_reference(a, r, p):
    from mpmath import mp, mpf

    with mp.workdps(50):
        return _floats([max(mpf(a) / mpf(float(x)), mpf(r)) for x in p])


def _profile_case(seed):
    """A `RatioProfile`, or the same profile as a callable of p (or p and q)."""
    case = _ratio_case(seed)
    rng = _rng(seed, 46)
    del case["p"]
    return dict(case, q=np.array([1.0, float(rng.uniform(0.1, 1.0))]),
                form=("ratio", "callable", "callable2")[seed % 3])


def _profile_epsilon(a, r, q, form):
    def of_p(p):
        return np.maximum(a / p, r)

    def of_p_and_q(p, q):  # (q unused: the bound need not depend on it)
        return np.maximum(a / p, r)

    if form == "ratio":
        return di.profile_epsilon(di.RatioProfile(a, r), q=q)
    return di.profile_epsilon(of_p if form == "callable" else of_p_and_q, q=q)


def _profile_reference(a, r, q, form):
    return _floats([_ref().ratio_profile_epsilon(a, r, x) for x in q])


# --------------------------------------------------------------------------- the entries

ENTRIES = [
    _mechanism_entry("laplace", 30, rtol=KERNEL, inverse_rtol=KERNEL),
    _mechanism_entry("gaussian", 31, rtol=KERNEL, inverse_rtol=INVERSE),
    _mechanism_entry("discrete_laplace", 32, rtol=KERNEL, inverse_rtol=1e-11),
    _mechanism_entry("discrete_gaussian", 33, rtol=KERNEL, inverse_rtol=INVERSE),
    _mechanism_entry("randomized_response", 34, rtol=KERNEL, inverse_rtol=KERNEL),
    _mechanism_entry("pure_dp", 35, rtol=KERNEL, inverse_rtol=KERNEL),
    _mechanism_entry("approx_dp", 36, rtol=KERNEL, inverse_rtol=KERNEL),
    # one step of DP-SGD: the PLD (grid 1e-4) is exact at its grid's losses and
    # interpolates pessimistically between them (measured below 2e-6 relative);
    # its tails past the truncation (about 1e-24) are left out by the cases
    _mechanism_entry("subsampled_gaussian", 37, rtol=PLD, inverse_rtol=PLD, atol=1e-20,
                     requires=("mpmath", "dp_accounting"), seeds=2, profiles=1),
    Comparison(di.Composition, (_brute(),), _parts_case, call=_composed("Composition")),
    Comparison(di.compose, (
        Reference("mpmath", _gaussian_sum, rtol=KERNEL, requires="mpmath",
                  applies=lambda c: _is_gaussian(c) and _profile(c)),
        Reference("mpmath_epsilon", _gaussian_sum, rtol=1e-7, requires="mpmath",
                  applies=lambda c: _is_gaussian(c) and _inverse(c)),
        _brute(applies=lambda c: not _is_gaussian(c)),
    ), _gaussians_case, call=_composed("compose"), seeds=5),
    Comparison(di.calibrate, (
        Reference("mpmath", _exact_noise, rtol=INVERSE, requires="mpmath"),
        Reference("roundtrip", _meets_target, rtol=EXACT),
    ), _calibration_case, call=_calibrate, seeds=len(_CALIBRATIONS)),
    Comparison(di.explain, (Reference("mpmath", _explain_reference, rtol=KERNEL, requires="mpmath"),),
               _explain_case, call=_explain),
    Comparison(di.RatioProfile, (Reference("mpmath", _ratio_reference, rtol=ulps(1), requires="mpmath"),),
               _ratio_case, call=lambda a, r, p: di.RatioProfile(a, r)(p)),
    Comparison(di.profile_epsilon, (Reference("brute", _profile_reference, rtol=KERNEL, requires="mpmath"),),
               _profile_case, call=_profile_epsilon, seeds=6),
]
