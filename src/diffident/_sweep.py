"""Parameter sweeps: rho x queries x columns x dataset sizes x calibration.

For every (column, dataset size) the data set D is fixed (the first rows, or
a seeded sample); for every query the paper's sensitive range over
D' = D - i* (`dataset_sensitive_range`) gives the paper's bound
calibration, the worlds of the D' that attains it give the exact
worst-case risk at that calibration, and `dataset_tight_scale` gives the
tight calibration that holds for every D'.  Each world set goes through the
batched kernels once for the whole rho grid.
"""

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from . import _validate
from ._closed_form import laplace_epsilon, laplace_scale
from ._columns import InferredDomainWarning, SkippedColumnWarning, as_columns, resolve_domains
from ._neighbours import Problem
from ._possible import dataset_sensitive_range_of, dataset_setup, world_values_of
from ._progress import Progress
from ._table import SweepTable, _status
from ._world_sets import Known
from ._worlds import Worlds
from ._worst_case import Risk

__all__ = ["sweep", "SweepTable", "InferredDomainWarning", "SkippedColumnWarning"]

FIELDS = ("column", "query", "n", "m", "domain_source", "rho", "sensitive_range", "bound_scale", "bound_epsilon",
          "tight_scale", "tight_epsilon", "risk_at_bound", "status")


def sweep(data: Any, *, columns: Sequence[str] | None = None, queries: Sequence[str] = ("mean", "median", "std"),
          rho: ArrayLike | None = None, n_rho: int = 50, sizes: Sequence[int] | None = None,
          domains: Mapping[str, Any] | None = None, calibrations: Sequence[str] = ("bound", "tight"), ddof: int = 1,
          seed: int = 0, rtol: float = 1e-12, progress: bool = False, column_seed: int | None = None,
          dropna: bool = False, infer_domains: bool | None = None, q: float = 0.5) -> SweepTable:
    """Risk and calibration over a grid: rho x queries x columns x sizes.

    For every column and dataset size the data set D is fixed; for every
    query, `dataset_sensitive_range` gives the paper's sensitive range over
    D' = D - i*, the worlds of the attaining D' give the exact worst-case
    risk at the paper's scale, and `dataset_tight_scale` the tight
    calibration that holds for every D', for the whole rho grid at once.

    Parameters
    ----------
    data : str, os.PathLike, data frame, mapping or 2-d array
        A CSV file with a header; a data frame (pandas, polars, pyarrow, or
        anything with ``__dataframe__``) or a named series, whose column
        names are kept; a mapping of column name to values; or a 2-d array
        (columns named "0", "1", ...).
    columns : list of str, optional
        Columns to use (default: every numeric column without missing
        values; the others are named in a `SkippedColumnWarning`).
    queries : sequence of str, optional
        Named queries (see `world_values`; ``"quantile"`` is the ``q``
        quantile); default mean, median, std.
    rho : array_like, optional
        Risk bounds; default ``n_rho`` log-spaced values from just above
        1/m to 0.5 for each column (m its domain size).
    n_rho : int, optional
        Size of the default rho grid (default 50).
    sizes : sequence of int, optional
        Dataset sizes n: the first n rows when n is the full size, else a
        seeded sample of n rows without replacement (default: all rows).
    domains : mapping, optional
        Column name to ``(lo, hi)`` (an integer domain) or a `Domain`,
        integer or stepped (``Domain(12, 60, step=0.1)``; a real interval
        has infinitely many worlds and is refused); every key must be a
        column of the data.  A column without one gets the integer domain
        from its own minimum to its maximum, as ``infer_domains`` says (a
        column that is not integer-valued needs a domain).
    calibrations : sequence of {"bound", "tight"}, optional
        The paper's closed form, and/or the exact tight calibration over
        every D' (default both).
    ddof : {0, 1}, optional
        For var and std (default 1: the sample standard deviation, as the
        paper's Table 4).
    seed : int, optional
        Seed of the dataset samples (default 0): each (column, size) draws
        from its own stream, ``SeedSequence([seed, column number, size
        number])``, so a column gives the same rows whatever else is swept.
    rtol : float, optional
        Relative precision of the tight scales (default 1e-12; 0 bisects to
        adjacent floats, about 40% more passes).  Always conservative.
    progress : bool, optional
        Report progress on standard error (default False: nothing): a bar
        when standard error is a terminal, else (a log, CI) a line such as
        ``diffident: sweep 120/600 cells (20%), 14 s elapsed`` at most
        every 10 seconds, and a last one at the end when any was written.
    column_seed : int, optional
        The column number to use in the sample streams when one column is
        swept on its own (the Dask backend's tasks).
    dropna : bool, optional
        Drop the missing values of a column (NaN, None, pandas' NA, empty
        or ``NA`` cells of a CSV file) instead of refusing it (default
        False: a requested column with missing values is a ValueError, and
        the default selection leaves it out).
    infer_domains : bool, optional
        For columns without a domain: None (default) infers it from the
        column's minimum and maximum with an `InferredDomainWarning`, True
        infers it silently, False makes it an error.  The inferred domain
        leaks the observed extremes into the calibration; the table's
        ``domain_source`` says which domains were inferred.
    q : float, optional
        The quantile of ``"quantile"``, in [0, 1] (default 0.5).

    Returns
    -------
    SweepTable
        Columns ``column, query, n, m, domain_source, rho, sensitive_range,
        bound_scale, bound_epsilon, tight_scale, tight_epsilon,
        risk_at_bound`` (the bound ones NaN when not asked for, likewise
        the tight ones); ``domain_source`` is ``"given"`` or ``"inferred"``;
        ``status`` says which outcome each grid point has, from the tight
        scale where computed, else the bound's: ``"calibrated"``,
        ``"unattainable"`` (no finite noise meets rho: scale inf, epsilon
        0), ``"no noise needed"`` (scale 0, epsilon inf) or ``"zero
        sensitive range"`` (every world has the same value: the risk is the
        same at any noise, and epsilon is reported as 0);
        ``tight_scale`` is `dataset_tight_scale` (it meets rho for every
        D'), ``tight_epsilon`` is ``sensitive_range / tight_scale``, and
        ``risk_at_bound`` is the exact worst-case risk at the paper's scale
        for the D' that attains the sensitive range.

    Raises
    ------
    ValueError
        For an unreadable CSV file, unknown columns or queries, requested
        columns that are not numeric, have missing values (without
        ``dropna``) or infinite values, rho outside [0, 1], ``n_rho < 1``,
        sizes outside 1..(number of rows), unknown calibrations, a key of
        ``domains`` that is not a column, bad domains, a real interval, data
        outside a domain or off its grid,
        a column that is not integer-valued and has no domain, a missing
        domain with ``infer_domains=False``, or a bad ddof.
    TypeError
        For a query that is neither a name nor a callable, a 2-d array that
        is not numeric, domain ends that are not numbers, or an
        ``infer_domains`` that is not True, False or None.

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

    Notes
    -----
    The tight calibration holds for every D' = D - i: the largest tight
    scale over the distinct removed values (for sum and mean over a Domain
    every D' gives the same worlds up to a shift, and one D' suffices; for
    the median, quantiles and the standard deviation another removal than
    the one attaining the sensitive range can need more noise).
    ``risk_at_bound`` is computed on the worlds of the D' that attains the
    paper's sensitive range (the first such individual); the paper's scale
    meets rho for every D' by construction.

    Examples
    --------
    >>> import numpy as np, diffident as di
    >>> hours = np.random.default_rng(0).integers(1, 100, 2000).astype(float)
    >>> t = di.sweep({"hours": hours}, queries=["mean"], rho=[0.015, 0.1],
    ...              domains={"hours": (1, 99)})
    >>> t["m"][0], bool(np.all(t["tight_scale"] < t["bound_scale"]))
    (np.float64(99.0), True)
    >>> t["domain_source"][0]
    'given'

    A pandas DataFrame keeps its column names, and its domains apply:

    >>> import pandas as pd
    >>> df = pd.DataFrame({"age": [17.0, 30.0, 45.0, 90.0]})
    >>> t = di.sweep(df, queries=["mean"], rho=[0.1], domains={"age": (0, 120)})
    >>> t["column"][0], t["m"][0]
    ('age', np.float64(121.0))
    """
    cols, names = as_columns(data, columns, dropna)
    cals = tuple(calibrations)
    for c in cals:
        if c not in ("bound", "tight"):
            raise ValueError(f"calibrations must be 'bound' and/or 'tight', got {c!r}")
    if rho is not None:
        rho_fixed = np.atleast_1d(_validate.probability("rho", rho)).ravel()
    n_rho = int(n_rho)
    if rho is None and n_rho < 1:
        raise ValueError(f"n_rho must be at least 1, got {n_rho}")
    plan = []
    for ci, (name, col) in enumerate(cols.items()):
        full = col.size
        for si, n in enumerate(sizes or [full]):
            n = int(n)
            if not 1 <= n <= full:
                raise ValueError(f"size {n} is outside 1..{full} for column {name!r}")
            cnum = ci if column_seed is None else int(column_seed)
            plan.append((name, n, np.random.default_rng([int(seed), cnum, si])))
    bar = Progress(len(plan) * len(queries), "sweep", "cells", progress)
    out: dict[str, list[Any]] = {k: [] for k in FIELDS}
    domain_of = resolve_domains(cols, names, domains, infer_domains)
    for name, n, rng in plan:
        col = cols[name]
        d = col if n == col.size else rng.choice(col, size=n, replace=False)
        dom, source = domain_of[name]
        if d.min() < dom.lo or d.max() > dom.hi:
            raise ValueError(f"column {name!r} has values outside its domain {dom!r}")
        off = ~dom._on_grid(d)
        if off.any():
            raise ValueError(f"column {name!r} has values off its domain {dom!r}: {float(d[off][0])!r}")
        m = float(dom.size)
        grid = rho_fixed if rho is not None else _default_rho(m, n_rho)
        order = np.argsort(d, kind="stable")  # one sort of the data, shared by every query's range and search
        for q_name in queries:
            bar.step(f"{name} {q_name} n={n}")
            # the cell's query, data and domain validated once, for every computation below
            qy, _, d, cands, _, _ = dataset_setup(q_name, d, dom, 1, ddof, q, True, 10**8)
            S, removed = dataset_sensitive_range_of(qy, 1, d, cands, True, 10**8, order)
            k = grid.size
            row = dict(column=np.full(k, name, dtype=object), query=np.full(k, q_name, dtype=object),
                       n=np.full(k, n, dtype=np.int64), m=np.full(k, m),
                       domain_source=np.full(k, source, dtype=object), rho=grid,
                       sensitive_range=np.full(k, S))
            nan = np.full(k, np.nan)
            row.update(bound_scale=nan, bound_epsilon=nan, tight_scale=nan, tight_epsilon=nan,
                       risk_at_bound=nan)
            prob = Problem(qy, 1, d, cands, 10**8, order) if "tight" in cals else None
            if "bound" in cals:
                lam = laplace_scale(grid, np.float64(m), np.float64(S))
                row["bound_scale"] = lam
                row["bound_epsilon"] = laplace_epsilon(grid, np.float64(m))
                # the exact risk of the D' that attains S (the first such individual)
                ref = prob.ref if prob is not None else None
                if prob is not None and ref is not None and d[removed[0]] == prob.removed(prob.sets[ref][0])[0]:
                    risk = prob.risk(ref)  # the same worlds, grouped and sorted once
                else:
                    known = Known(np.delete(d, removed[0]), cands.lo)
                    risk = Risk(Worlds(*world_values_of(qy, 1, cands, known, 10**8)))
                row["risk_at_bound"] = risk(lam)[0]
            if "tight" in cals:
                # every D' = D - i, not only the one attaining S
                assert prob is not None
                t, _ = prob.solve(np.ascontiguousarray(grid, dtype=np.float64), rtol)
                row["tight_scale"] = t
                with np.errstate(divide="ignore", invalid="ignore"):
                    row["tight_epsilon"] = np.where(S == 0, 0.0, S / t)
            row["status"] = _status(S, row["tight_scale"] if "tight" in cals else row["bound_scale"])
            for key in FIELDS:
                out[key].append(np.asarray(row[key]))
    bar.close()
    table = {k: (np.concatenate(v) if v else np.empty(0)) for k, v in out.items()}
    return SweepTable(table)


def _default_rho(m, n):
    """n log-spaced rho from just above 1/m to 0.5."""
    lo = (1.0 / m) * (1.0 + 1e-3)  # just above min_rho(m)
    hi = 0.5
    if lo >= hi:
        return np.array([hi])
    return np.geomspace(lo, hi, n)
