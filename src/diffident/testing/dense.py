"""Plain float64 definitions and SciPy / dp-accounting baselines."""

from __future__ import annotations

import numpy as np

__all__ = [
    "dense_posterior",
    "dense_log_evidence",
    "dense_worst_case_risk",
    "grid_worst_case_risk",
    "quad_gaussian_delta",
    "scipy_log_evidence",
    "scipy_worst_case_risk",
    "brentq_tight_scale",
    "dp_accounting_sigma",
    "numpy_worst_case_risk",
    "numpy_expected_risk",
    "numpy_discrete_log_evidence",
    "numpy_log_evidence",
]

_NOISES = ("laplace", "gaussian")


def _as_worlds(values, counts=None, prior=None):
    """(F, c, p): values as an (m, q) float array, counts and prior (m,)."""
    F = np.asarray(values, dtype=np.float64)
    F = F.reshape(-1, 1) if F.ndim <= 1 else F
    m = F.shape[0]
    c = np.ones(m) if counts is None else np.asarray(counts, dtype=np.float64).ravel()
    p = np.ones(m) if prior is None else np.asarray(prior, dtype=np.float64).ravel()
    return F, c, p


def _scaled(d, s, noise):
    """The energy of a distance d >= 0 at one scale s (0 and inf: the limits)."""
    if noise == "gaussian":
        return d * d / (2.0 * s * s)
    if s == 0.0:
        return np.where(d == 0.0, 0.0, np.inf)
    return d / s


def _energies(R, F, scales, noise):
    """(n, m) Laplace or Gaussian energies of the worlds F at the responses R."""
    E = _scaled(np.abs(R[:, :1] - F[:, 0]), scales[0], noise)
    for t in range(1, F.shape[1]):
        E = E + _scaled(np.abs(R[:, t:t + 1] - F[:, t]), scales[t], noise)
    return E


def _likelihoods(R, F, w, scales, noise="laplace"):
    """(K, Z, shift): K = exp(shift - E), Z = K @ w, shift the least live energy."""
    if noise not in _NOISES:
        raise ValueError(f"unknown noise {noise!r}")
    E = _energies(R, F, scales, noise)
    live = w > 0
    shift = (E if live.all() else E[:, live]).min(axis=1)
    K = np.exp(shift[:, None] - E)
    return K, K @ w, shift


def _setup(values, response, scale, counts, prior):
    F, c, p = _as_worlds(values, counts, prior)
    R = np.asarray(response, dtype=np.float64).reshape(-1, F.shape[1])
    scales = np.broadcast_to(np.asarray(scale, dtype=np.float64).ravel(), (F.shape[1],))
    return F, c, p, R, scales


def dense_posterior(values, *, response, scale, counts=None, prior=None, noise="laplace"):
    """The (n, m) posterior of one world of each entry at each response, dense."""
    F, c, p, R, scales = _setup(values, response, scale, counts, prior)
    K, Z, _ = _likelihoods(R, F, c * p, scales, noise)
    return p * K / Z[:, None]


def dense_log_evidence(values, *, response, scale, counts=None, prior=None, noise="laplace"):
    """The log-evidence ``log sum_k c_k pi_k L_k(R)`` from the dense formula."""
    F, c, p, R, scales = _setup(values, response, scale, counts, prior)
    _, Z, shift = _likelihoods(R, F, c * p, scales, noise)
    out = np.log(Z) - shift
    return float(out[0]) if np.ndim(response) == 0 else out


def dense_worst_case_risk(values, *, scale, counts=None, prior=None, return_world=False,
                          max_block=1 << 22):
    """The O(m^2) worst-case risk: each world's posterior at its own value.

    Rows in blocks of ``max_block`` entries; 2-d ``values`` are q releases.
    """
    F, c, p = _as_worlds(values, counts, prior)
    scales = np.broadcast_to(np.asarray(scale, dtype=np.float64).ravel(), (F.shape[1],))
    w = c * p
    act = np.flatnonzero(w > 0)
    Fk, wk = F[act], w[act]
    rows = max(1, int(max_block) // max(1, Fk.size))
    best, best_j = -np.inf, -1
    for start in range(0, act.size, rows):
        j = act[start:start + rows]
        K, Z, _ = _likelihoods(F[j], Fk, wk, scales)
        risk = p[j] * K[np.arange(j.size), start + np.arange(j.size)] / Z
        i = int(np.argmax(risk))
        if risk[i] > best:
            best, best_j = float(risk[i]), int(j[i])
    return (best, best_j) if return_world else best


def grid_worst_case_risk(values, *, scale, counts=None, prior=None, points=41, pad=1.0):
    """The largest posterior of any world over a grid of responses (a float)."""
    F, c, p = _as_worlds(values, counts, prior)
    axes = [np.unique(np.concatenate([F[:, t], np.linspace(F[:, t].min() - pad, F[:, t].max() + pad, points)]))
            for t in range(F.shape[1])]
    R = np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, F.shape[1])
    post = dense_posterior(F, response=R, scale=scale, counts=c, prior=p)
    return float(post[:, c * p > 0].max())


def quad_gaussian_delta(values, *, rho, sigma, world, counts=None, prior=None, npts=20001, half_width=None):
    """Gaussian (rho, delta)-identifiability of ``world`` by SciPy quadrature."""
    from scipy import integrate, optimize
    from scipy.stats import norm

    v = np.asarray(values, dtype=np.float64)
    if half_width is None:
        grid = np.linspace(v.min() - 12 * sigma, v.max() + 12 * sigma, npts)
    else:
        grid = np.linspace(v[world] - half_width, v[world] + half_width, npts)
    rows = max(1, (1 << 22) // v.size)
    p = np.concatenate([dense_posterior(v, response=grid[a:a + rows], scale=sigma, counts=counts, prior=prior,
                                        noise="gaussian")[:, world]
                        for a in range(0, grid.size, rows)])
    inside = p > rho
    edges = np.flatnonzero(np.diff(inside.astype(int)))

    def excess(R):
        return dense_posterior(v, response=R, scale=sigma, counts=counts, prior=prior, noise="gaussian")[0, world] - rho

    bounds = [-np.inf if half_width is None else grid[0]]
    bounds += [optimize.brentq(excess, grid[e], grid[e + 1], xtol=1e-15, rtol=1e-15) for e in edges]
    bounds += [np.inf if half_width is None else grid[-1]]
    total, state = 0.0, inside[0]
    for a, b in zip(bounds[:-1], bounds[1:], strict=False):
        if state:
            total += integrate.quad(lambda R: norm.pdf(R, v[world], sigma), a, b, epsabs=1e-13, epsrel=1e-12)[0]
        state = not state
    return total


def scipy_log_evidence(values, *, response, scale, counts=None, prior=None):
    """The Laplace log-evidence at one response by ``scipy.special.logsumexp``."""
    from scipy.special import logsumexp

    F, c, p = _as_worlds(values, counts, prior)
    a = -_energies(np.array([[float(response)]]), F, [float(scale)], "laplace")[0]
    if counts is None and prior is None:
        return float(logsumexp(a))
    return float(logsumexp(a, b=c * p))


def scipy_worst_case_risk(values, *, scale, counts=None, prior=None):
    """The worst-case risk by one ``scipy.special.logsumexp`` per world."""
    from scipy.special import logsumexp

    F, c, p = _as_worlds(values, counts, prior)
    w = c * p
    b = None if counts is None and prior is None else w
    s = [float(scale)]
    return max(p[j] / np.exp(logsumexp(-_energies(F[j:j + 1], F, s, "laplace")[0], b=b))
               for j in np.flatnonzero(w > 0))


def brentq_tight_scale(values, *, rho, risk=None):
    """The tight scale by ``scipy.optimize.brentq`` on the worst-case risk."""
    from scipy.optimize import brentq

    if risk is None:
        from diffident import worst_case_risk as risk
    values = np.asarray(values, dtype=np.float64)
    m = values.size
    hi = 1.01 * float(np.ptp(values)) / np.log((m - 1) * rho / (1.0 - rho))
    t_hi = np.log(hi)

    def g(t):
        return risk(values, scale=np.exp(t)) - rho

    t = brentq(g, t_hi - 40.0, t_hi, xtol=1e-14, rtol=4 * np.finfo(float).eps)
    return np.exp(t)


def dp_accounting_sigma(epsilon, *, delta, sensitivity=1.0):
    """The analytic Gaussian sigma from dp-accounting, one call per point."""
    from dp_accounting import get_sigma_gaussian

    if np.ndim(epsilon) == 0 and np.ndim(delta) == 0:  # the scalar call, as users write it
        return get_sigma_gaussian(float(epsilon), float(delta)) * sensitivity
    e, d = np.broadcast_arrays(np.asarray(epsilon, dtype=np.float64), np.asarray(delta, dtype=np.float64))
    out = np.array([get_sigma_gaussian(float(a), float(b)) for a, b in zip(e.ravel(), d.ravel(), strict=False)])
    out = out.reshape(e.shape) * sensitivity
    return float(out) if out.ndim == 0 else out


# --------------------------------------------------------------------------- the same algorithms in NumPy


def _log_weights(values, counts, prior):
    F, c, p = _as_worlds(values, counts, prior)
    if F.shape[1] != 1:
        raise ValueError("the NumPy O(m log m) baselines take 1-d values")
    with np.errstate(divide="ignore"):
        return F[:, 0], np.log(c * p), np.log(p)


def numpy_worst_case_risk(values, *, scale, counts=None, prior=None):
    """The Laplace worst-case risk by diffident's O(m log m) algorithm, in NumPy."""
    f, logw, logp = _log_weights(values, counts, prior)
    order = np.argsort(f, kind="stable")
    f, logw, logp = f[order], logw[order], logp[order]
    x = (f - f[f.size // 2]) / float(scale)  # centred: smaller cumulative terms
    left = np.logaddexp.accumulate(logw + x) - x  # worlds k <= j
    right = np.empty_like(x)  # worlds k > j
    right[-1] = -np.inf
    right[:-1] = (np.logaddexp.accumulate((logw - x)[::-1])[::-1])[1:] + x[:-1]
    log_risk = logp - np.logaddexp(left, right)
    return float(np.exp(np.max(log_risk[np.isfinite(logw)])))


def numpy_expected_risk(values, *, scale, counts=None, prior=None, noise="laplace", world=None):
    """The expected success at a uniform prior by Voronoi cells, in NumPy."""
    from scipy.special import ndtr

    if prior is not None:
        raise ValueError("numpy_expected_risk takes a uniform prior only")

    f = np.asarray(values, dtype=np.float64)
    c = None if counts is None else np.asarray(counts, dtype=np.float64)
    u = np.unique(f if c is None else f[c > 0])  # a value no world has (count 0) has no cell
    h = np.diff(u) / 2.0
    h_left = np.concatenate(([np.inf], h))
    h_right = np.concatenate((h, [np.inf]))
    s = float(scale)
    if noise == "laplace":
        mass = 1.0 - np.exp(-h_left / s) / 2.0 - np.exp(-h_right / s) / 2.0
    elif noise == "gaussian":
        mass = ndtr(h_right / s) - ndtr(-h_left / s)
    else:
        raise ValueError(f"noise must be 'laplace' or 'gaussian', got {noise!r}")
    if world is not None:
        if c is not None and c[world] == 0:
            return 0.0
        k = np.searchsorted(u, f[world])
        on_value = f == f[world]
        return float(mass[k] / (np.count_nonzero(on_value) if c is None else np.sum(c[on_value])))
    return float(np.sum(mass) / (f.size if c is None else np.sum(c)))


def numpy_discrete_log_evidence(values, *, response, scale):
    """The discrete Laplace log-evidence from the pmf, less ``log N``."""
    q = np.exp(-1.0 / scale)
    log_n = np.log((1.0 - q) / (1.0 + q))
    d = np.abs(response - values)  # integers
    d0 = d.min()
    log_masses = log_n + d0 * np.log(q) + np.log(np.sum(q ** (d - d0)))
    return float(log_masses - log_n)


def numpy_log_evidence(values, *, response, scale, counts=None, prior=None):
    """The Laplace log-evidence at many responses by a sorted sweep, in NumPy."""
    f, logw, _ = _log_weights(values, counts, prior)
    order = np.argsort(f, kind="stable")
    f, logw = f[order], logw[order]
    r = np.asarray(response, dtype=np.float64)
    c = f[f.size // 2]  # centred: smaller cumulative terms
    x = (f - c) / float(scale)
    y = (r.ravel() - c) / float(scale)
    left = np.concatenate(([-np.inf], np.logaddexp.accumulate(logw + x)))  # worlds f_k <= R: first i
    right = np.concatenate((np.logaddexp.accumulate((logw - x)[::-1])[::-1], [-np.inf]))  # from i on
    i = np.searchsorted(f, r.ravel(), side="right")
    out = np.logaddexp(left[i] - y, right[i] + y)
    return out.reshape(r.shape)
