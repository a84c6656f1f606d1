"""Parameter sweeps: rho x queries x columns x dataset sizes x calibration."""

import math
import warnings
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._calibrate.every_expected import expected_every, on_lattice
from .._calibrate.neighbours import Problem
from .._kernels import queries as _codes
from .._numerics import budget as _budget
from .._numerics import validate as _validate
from .._numerics.budget import DEFAULT_MAX_MEMORY, DEFAULT_MAX_SECONDS, OverBudget, OverBudgetWarning
from .._numerics.progress import Progress
from .._risk.closed_form import laplace_epsilon, laplace_scale
from .._risk.expected import Success
from .._risk.worst_case import Risk
from .._worlds.dataset import dataset_sensitive_range_of, query_setup
from .._worlds.possible import world_values_of
from .._worlds.sets import Candidates, Known, Query
from .._worlds.spaced import SpacedRisk
from .._worlds.values import Worlds
from .columns import InferredDomainWarning, SkippedColumnWarning, as_columns, resolve_domains
from .table import STATUSES, SweepTable, _status

__all__ = ["sweep", "SweepTable", "InferredDomainWarning", "SkippedColumnWarning", "OverBudget",
           "OverBudgetWarning"]

FIELDS = ("column", "query", "n", "m", "domain_source", "noise", "risk", "rho", "sensitive_range", "granularity",
          "bound_scale", "bound_epsilon", "tight_scale", "tight_epsilon", "risk_at_bound", "status")

#: The noises a sweep calibrates (the discrete Gaussian has no calibration:
#: its worst case is 1, and its expected success is not monotone in sigma).
SWEEP_NOISES = ("laplace", "discrete_laplace", "gaussian")
RISKS = ("worst", "expected")


def sweep(data: Any, *, columns: Sequence[str] | None = None, queries: str | Sequence[str] = ("mean", "median", "std"),
          rho: ArrayLike | None = None, n_rho: int = 50, sizes: Sequence[int] | None = None,
          domains: Mapping[str, Any] | None = None, calibrations: str | Sequence[str] = ("bound", "tight"),
          ddof: int = 1,
          seed: int = 0, rtol: float = 1e-12, progress: bool = False, column_seed: int | None = None,
          dropna: bool = False, infer_domains: bool | None = None, q: float = 0.5,
          noise: str | Sequence[str] = "laplace", risk: str | Sequence[str] = "worst",
          max_memory: int | str = DEFAULT_MAX_MEMORY, max_seconds: float | None = DEFAULT_MAX_SECONDS,
          skip_expensive: bool = False) -> SweepTable:
    """Risk and calibration over a grid: rho x queries x columns x sizes x noises x risks.

    Parameters
    ----------
    data : str, os.PathLike, data frame, mapping or 2-d array
        A CSV file with a header, a data frame or named series, a mapping of
        column name to values, or a 2-d array (columns "0", "1", ...).
    columns : list of str, optional
        Columns to use (default: every numeric column without missing values).
    queries : str or sequence of str, optional
        Named queries (see `world_values`); default mean, median, std.
    rho : array_like, optional
        Risk bounds; default ``n_rho`` log-spaced values from 1/m to 0.5.
    n_rho : int, optional
        Size of the default rho grid (default 50).
    sizes : sequence of int, optional
        Dataset sizes n: a seeded sample of n rows (default: all rows).
    domains : mapping, optional
        Column name to ``(lo, hi)`` or a `Domain` (integer or stepped).
    calibrations : {"bound", "tight"} or a sequence of them, optional
        The paper's closed form and/or the tight calibration (default both).
    ddof : {0, 1}, optional
        For var and std (default 1, as the paper's Table 4).
    seed : int, optional
        Seed of the dataset samples (default 0), one stream per column and size.
    rtol : float, optional
        Relative precision of the tight scales (default 1e-12), conservative.
    progress : bool, optional
        Report progress on standard error (default False).
    column_seed : int, optional
        The column number of the sample streams when one column is swept alone.
    dropna : bool, optional
        Drop a column's missing values instead of refusing it (default False).
    infer_domains : bool, optional
        Without a domain: None (default) infers it with a warning, True
        silently, False refuses.
    q : float, optional
        The quantile of ``"quantile"``, in [0, 1] (default 0.5).
    noise : str or sequence of str, optional
        "laplace" (default), "discrete_laplace" or "gaussian" (expected risk).
    risk : str or sequence of str, optional
        "worst" (default, the paper's) or "expected" (`expected_risk`).
    max_memory : int or str, optional
        The memory a cell may take, such as ``"4G"`` (default 2 GiB).
    max_seconds : float or None, optional
        The estimated time a cell may take (default 600 s; None: no limit).
    skip_expensive : bool, optional
        Write cells over a budget as rows "over budget" instead of refusing.

    Returns
    -------
    SweepTable
        One row per grid point: ``column, query, n, m, domain_source, noise,
        risk, rho, sensitive_range, granularity, bound_scale, bound_epsilon,
        tight_scale, tight_epsilon, risk_at_bound, status``.

    Raises
    ------
    ValueError
        For unreadable or bad data, unknown names, arguments out of range,
        bad domains, a noise and risk without a calibration, or cells over
        budget (`OverBudget`), before any work.
    MemoryError
        Naming the cell, where memory ran out all the same.
    TypeError
        For a query that is neither a name nor a callable, or arguments of
        the wrong type.

    Warns
    -----
    InferredDomainWarning
        When a domain is inferred from the data (``infer_domains=None``).
    SkippedColumnWarning
        When the default selection leaves columns out.

    See Also
    --------
    diffident.dask.sweep : The same grid with one Dask task per column.
    dataset_sensitive_range : The sensitive range of each cell.
    dataset_tight_scale : The tight calibration of each cell.

    Examples
    --------
    >>> import numpy as np, diffident as di
    >>> hours = np.random.default_rng(0).integers(1, 100, 2000).astype(float)
    >>> t = di.sweep({"hours": hours}, queries=["mean"], rho=[0.015, 0.1],
    ...              domains={"hours": (1, 99)})
    >>> t["m"][0], bool(np.all(t["tight_scale"] < t["bound_scale"]))
    (np.float64(99.0), True)
    """
    cols, names = as_columns(data, columns, dropna)
    queries = (queries,) if isinstance(queries, str) else tuple(queries)
    if not queries:
        raise ValueError("queries must name at least one query, got none")
    seed = _validate.integer("seed", seed, minimum=0)
    if column_seed is not None:
        column_seed = _validate.integer("column_seed", column_seed, minimum=0)
    cals = (calibrations,) if isinstance(calibrations, str) else tuple(calibrations)
    for c in cals:
        if c not in ("bound", "tight"):
            raise ValueError(f"calibrations must be 'bound' and/or 'tight', got {c!r}")
    pairs = _pairs(noise, risk, cals)
    if rho is not None:
        rho_fixed = np.atleast_1d(_validate.probability("rho", rho)).ravel()
    n_rho = _validate.integer("n_rho", n_rho)
    memory = _budget.parse_memory("max_memory", max_memory)
    seconds = _budget.parse_seconds("max_seconds", max_seconds)
    skip_expensive = _validate.flag("skip_expensive", skip_expensive)
    domain_of = resolve_domains(cols, names, domains, infer_domains)
    plan = []
    for ci, (name, col) in enumerate(cols.items()):
        full = col.size
        dom = domain_of[name][0]
        if col.min() < dom.lo or col.max() > dom.hi:
            raise ValueError(f"column {name!r} has values outside its domain {dom!r}")
        off = ~dom._on_grid(col)
        if off.any():
            raise ValueError(f"column {name!r} has values off its domain {dom!r}: {float(col[off][0])!r}")
        for si, n in enumerate(sizes or [full]):
            n = _validate.integer("sizes", n)
            if not 1 <= n <= full:
                raise ValueError(f"size {n} is outside 1..{full} for column {name!r}")
            cnum = ci if column_seed is None else column_seed
            rng = np.random.default_rng([seed, cnum, si])
            plan.append((name, n, col if n == full else rng.choice(col, size=n, replace=False)))
    # every cell's cost before any work: a refusal now, not after hours
    over = {}
    for name, n, d in plan:
        m = float(domain_of[name][0].size)
        k = rho_fixed.size if rho is not None else _default_rho(m, n_rho).size
        distinct = np.unique(d).size
        for q_name in queries:
            est = _budget.cell_estimate(q_name, distinct, m, k, pairs, "tight" in cals)
            if est.memory > memory or est.seconds > seconds:
                over[(name, n, q_name)] = est
    if over and not skip_expensive:
        raise OverBudget(_budget.over_text(over, domain_of, memory, seconds, True))
    if over:
        warnings.warn(_budget.over_text(over, domain_of, memory, seconds, False), OverBudgetWarning, stacklevel=2)
    bar = Progress(len(plan) * len(queries), "sweep", "cells", progress)
    out: dict[str, list[Any]] = {k: [] for k in FIELDS}
    try:
        with bar.active():
            for name, n, d in plan:
                dom, source = domain_of[name]
                m = float(dom.size)
                grid = rho_fixed if rho is not None else _default_rho(m, n_rho)
                order = np.argsort(d, kind="stable")  # one sort of the data, shared by every query's range and search
                cands = Candidates(dom, allow_empty=True)  # (the column was checked on its domain above)
                for q_name in queries:
                    bar.step(f"{name} {q_name} n={n}")
                    if (name, n, q_name) in over:
                        rows = _skipped_rows(name, q_name, n, m, source, pairs, grid)
                    else:
                        try:
                            rows = _cell_rows(name, q_name, n, m, source, pairs, cals, grid, d, dom, cands, order,
                                              ddof, q, rtol, memory)
                        except MemoryError as exc:
                            raise MemoryError(f"sweep: memory ran out in the cell column {name!r}, query "
                                              f"{q_name!r}, n={n} ({m:,.0f} worlds): lower max_memory, "
                                              f"declare a smaller domain or skip the cell ({exc})") from None
                    for row in rows:
                        for key in FIELDS:
                            out[key].append(np.asarray(row[key]))
    finally:
        bar.close()
    table = {k: (np.concatenate(v) if v else np.empty(0)) for k, v in out.items()}
    return SweepTable(table)


def _cell_rows(name, q_name, n, m, source, pairs, cals, grid, d, dom, cands, order, ddof, q, rtol, memory):
    """The rows of one (column, size, query) cell, one per (noise, risk)."""
    # the cell's query, data and domain validated once, for every computation below
    qy = Query(q_name, q, ddof)
    query_setup(qy, 1, d, cands)
    S, removed = dataset_sensitive_range_of(qy, 1, d, cands, True, 10**8, order)
    cell = _Cell(qy, d, cands, removed, grid, rtol, order if "tight" in cals else None, memory)
    spacing = _spacing(qy, dom, n)
    rows = []
    for nz, rk in pairs:
        row = _row(name, q_name, n, m, source, nz, rk, grid, S)
        g = spacing if nz.startswith("discrete") else None
        if nz.startswith("discrete") and g is None:
            # the query's values lie on no lattice: no integer release of it
            row["status"] = np.full(grid.size, STATUSES[4], dtype=object)
        else:
            _calibrate_row(row, cell, cals, rk, nz == "gaussian", g, grid, m, S)
        rows.append(row)
    return rows


def _row(name, q_name, n, m, source, nz, rk, grid, S):
    """One (noise, risk) row of a cell, its numbers NaN."""
    k = grid.size
    nan = np.full(k, np.nan)
    return dict(column=np.full(k, name, dtype=object), query=np.full(k, q_name, dtype=object),
                n=np.full(k, n, dtype=np.int64), m=np.full(k, m), domain_source=np.full(k, source, dtype=object),
                noise=np.full(k, nz, dtype=object), risk=np.full(k, rk, dtype=object), rho=grid,
                sensitive_range=np.full(k, S), granularity=nan, bound_scale=nan, bound_epsilon=nan,
                tight_scale=nan, tight_epsilon=nan, risk_at_bound=nan)


def _skipped_rows(name, q_name, n, m, source, pairs, grid):
    """The rows of a cell over its budget: status "over budget", every number NaN."""
    rows = [_row(name, q_name, n, m, source, nz, rk, grid, np.nan) for nz, rk in pairs]
    for row in rows:
        row["status"] = np.full(grid.size, STATUSES[5], dtype=object)
    return rows


def _calibrate_row(row, cell, cals, risk, gauss, g, grid, m, S):
    """Fill one (noise, risk) row of a cell: the bound's scale, epsilon and
    risk (Laplace noises), the tight scale and epsilon (epsilon for the
    pure-DP noises only), the lattice spacing and the status.
    """
    if g is not None:
        row["granularity"] = np.full(grid.size, g)
    if "bound" in cals and not gauss:
        lam = laplace_scale(grid, np.float64(m), np.float64(S))
        row["bound_scale"] = lam
        row["bound_epsilon"] = laplace_epsilon(grid, np.float64(m))
        row["risk_at_bound"] = cell.at_bound(risk, g, lam)
    if "tight" in cals:
        t = cell.tight(risk, gauss, g)
        row["tight_scale"] = t
        if not gauss:  # (Gaussian noise is not pure DP: no epsilon)
            with np.errstate(divide="ignore", invalid="ignore"):
                row["tight_epsilon"] = np.where(S == 0, 0.0, S / t)
    row["status"] = _status(S, row["tight_scale"] if "tight" in cals else row["bound_scale"])


def _pairs(noise, risk, cals):
    """The (noise, risk) pairs of a sweep, every noise with every risk, each
    one that has the calibrations asked for (a ValueError for one that has
    not, before any work).
    """
    noises = (noise,) if isinstance(noise, str) else tuple(noise)
    risks = (risk,) if isinstance(risk, str) else tuple(risk)
    if not noises or not risks:
        raise ValueError(f"noise and risk must each name at least one choice, got noise={noise!r}, risk={risk!r}")
    for nz in noises:
        if nz == "discrete_gaussian":
            raise ValueError("noise='discrete_gaussian' has no calibration to sweep: its worst-case risk is 1 at "
                             "every sigma, and its expected success does not always fall as sigma grows; "
                             "evaluate expected_risk or gaussian_delta on the sigmas you consider")
        _validate.choice("noise", nz, SWEEP_NOISES)
    for rk in risks:
        _validate.choice("risk", rk, RISKS)
    if "gaussian" in noises:
        if "worst" in risks:
            raise ValueError("noise='gaussian' with risk='worst': the worst-case risk of Gaussian noise is 1 at "
                             "every sigma; sweep Gaussian noise with risk='expected' (and the worst case with "
                             "Laplace noise in a sweep of its own)")
        if "tight" not in cals:
            raise ValueError("noise='gaussian' has no closed-form bound: ask for calibrations=['tight']")
    return [(nz, rk) for nz in noises for rk in risks]


def _spacing(qy, dom, n):
    """The spacing of the lattice the query's values lie on, up to a common
    offset, for the worlds of n values on the domain's grid (None where
    there is none): the grid's step for sums and order statistics, a
    count's 1, the step over n for the mean, over 2 for a median of an even
    number of values, over the denominator of the interpolation weight for
    a quantile between two values.  The variance, standard deviation and
    callables lie on no lattice an integer release uses.
    """
    step = Fraction(1) if dom.integer else dom._grid[1] if dom._grid is not None else None
    code = qy.code if qy.named else -1
    if step is None:
        return None
    if code == _codes.COUNT:
        return 1.0
    if code in (_codes.SUM, _codes.MIN, _codes.MAX):
        return float(step)
    if code == _codes.MEAN:
        return float(step / n)
    if code == _codes.MEDIAN:
        return float(step if n % 2 else step / 2)
    if code == _codes.QUANTILE:
        vi = float(n - 1) * qy.q
        den = Fraction(vi - math.floor(vi)).denominator
        return float(step / den) if den <= 1024 else None
    return None


class _Cell:
    """The world sets of one (column, size, query) cell, shared by its noise
    and risk choices: the every-D' problem, the worlds of the D' that
    attains the sensitive range, and the calibrations already computed.
    """

    def __init__(self, qy, d, cands, removed, grid, rtol, order, memory):
        self.qy, self.d, self.cands, self.removed, self.grid, self.rtol = qy, d, cands, removed, grid, rtol
        self.prob = Problem(qy, 1, d, cands, 10**8, order, memory) if order is not None else None
        self._worst_risk = None
        self._done = {}

    def _ref_removal(self):
        """The reference's removal where the D' that attains the sensitive
        range has the reference's worlds, else None.
        """
        prob = self.prob
        if prob is None or prob.ref is None:
            return None
        i = prob.sets[prob.ref][0]
        return i if self.d[self.removed[0]] == prob.removed(i)[0] else None

    def _attaining(self):
        """(values, counts) of the worlds of the D' that attains the sensitive
        range (the first such individual).
        """
        i = self._ref_removal()
        if self.prob is not None and i is not None:
            return self.prob.grouped(i)  # the same worlds, grouped and sorted once
        known = Known.checked(np.delete(self.d, self.removed[0]), self.cands.lo)
        return world_values_of(self.qy, 1, self.cands, known, 10**8)

    def at_bound(self, risk, g, lam):
        """The risk of the attaining D' at the bound's scales."""
        fs, c = self._attaining()
        if risk == "worst":
            # integer noise: the worst response (a world's value) is a lattice
            # point, where its posterior is Laplace noise's
            if g is not None:
                on_lattice(fs, g)
            if self._worst_risk is None:  # (the reference's evaluator where the worlds are its)
                prob = self.prob
                self._worst_risk = prob.risk(prob.ref) if prob is not None and self._ref_removal() is not None \
                    else Risk(Worlds.checked(fs, c))
            return self._worst_upper(lam)
        return Success(Worlds.checked(on_lattice(fs, g), c) if g is not None else Worlds.checked(fs, c), False, g)(lam)

    def _worst_upper(self, lam):
        """The attaining D''s worst-case risk at the scales ``lam``: where its
        worlds have exact structure (equally spaced: the every-D' bound of
        sum and mean, `Problem.shift_bound`, in closed form; or one world
        that attains the worst case at every scale: `Risk.enclosure`), an
        upper bound on its evaluator's value and on the exact risk, without
        a pass; else the evaluator's value.
        """
        risk, prob = self._worst_risk, self.prob
        assert risk is not None  # (made by at_bound)
        up = np.full(lam.size, np.nan)
        some = np.flatnonzero((lam > 0) & np.isfinite(lam))  # (0 and inf: exact, and cheap)
        if some.size and prob is not None:
            if prob.shift:
                bound = prob.shift_bound()
                if isinstance(bound.risk, SpacedRisk):
                    up[some] = bound(lam[some])[0]
            elif self._ref_removal() is not None and (enc := risk.enclosure()) is not None:
                up[some] = enc.risks(risk, lam[some])[1]
        rest = np.flatnonzero(~(up <= 1.0))
        if rest.size:
            up[rest] = risk(lam[rest])[0]
        return up

    def tight(self, risk, gauss, g):
        """The every-D' calibration of the grid (computed once per risk and
        noise; the worst case is the same for both Laplace noises).
        """
        key = ("worst",) if risk == "worst" else ("expected", gauss, g)
        if key not in self._done:
            prob = self.prob
            assert prob is not None  # (built when the tight calibration is asked for)
            if risk == "worst":
                if g is not None:  # (the worst case is Laplace noise's on the lattice)
                    on_lattice(self._attaining()[0], g)
                self._done[key] = prob.solve(np.ascontiguousarray(self.grid, dtype=np.float64), self.rtol)[0]
            else:
                self._done[key] = expected_every(prob, self.grid, self.rtol, gauss, g)[0]
        return self._done[key]


def _default_rho(m, n):
    """n log-spaced rho from just above 1/m to 0.5."""
    lo = (1.0 / m) * (1.0 + 1e-3)  # just above min_rho(m)
    hi = 0.5
    if lo >= hi:
        return np.array([hi])
    return np.geomspace(lo, hi, n)
