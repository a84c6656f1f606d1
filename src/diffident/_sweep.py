"""Parameter sweeps: rho x queries x columns x dataset sizes x calibration.

For every (column, dataset size) the data set D is fixed (the first rows, or
a seeded sample); for every query the paper's sensitive range over
D' = D - i* (`dataset_sensitive_range`) gives the paper's bound
calibration, the worlds of the D' that attains it give the exact
worst-case risk at that calibration, and `dataset_tight_scale` gives the
tight calibration that holds for every D'.  Each world set goes through the
batched kernels once for the whole rho grid.
"""

import csv
import math
import os
import sys
from collections.abc import Mapping

import numpy as np

from . import _validate
from ._closed_form import laplace_epsilon, laplace_scale
from ._neighbours import Problem
from ._possible import dataset_sensitive_range_of, dataset_setup, world_values_of
from ._world_sets import Domain, Known
from ._worlds import Worlds
from ._worst_case import Risk

__all__ = ["sweep", "SweepTable", "read_csv_columns"]

FIELDS = ("column", "query", "n", "m", "rho", "sensitive_range", "bound_scale", "bound_epsilon",
          "tight_scale", "tight_epsilon", "risk_at_bound")


class SweepTable(Mapping):
    """The tidy result of `sweep`: one row per grid point.

    A read-only mapping of column name to a 1-d NumPy array (``column`` and
    ``query`` hold strings), with `to_csv` and `to_pandas`.  `sweep` builds
    it; build one yourself from columns of equal length.

    The columns of a sweep: the grid point (``column``, ``query``, ``n``,
    ``m``, ``rho``); ``sensitive_range``, the paper's S(f) over every
    D' = D - i (`dataset_sensitive_range`); the paper's calibration
    ``bound_scale`` and ``bound_epsilon``; ``tight_scale``, the smallest
    Laplace scale whose exact worst-case risk is at most rho for every D'
    (`dataset_tight_scale`), and ``tight_epsilon`` = ``sensitive_range /
    tight_scale``; ``risk_at_bound``, the exact worst-case risk at
    ``bound_scale`` of the D' that attains the sensitive range.

    Parameters
    ----------
    columns : mapping of str to array_like
        The columns, each 1-d and all of the same length.

    Raises
    ------
    ValueError
        If a column is not one-dimensional, or the columns have unequal
        lengths.
    TypeError
        If columns is not a mapping.

    See Also
    --------
    sweep : The function that returns a SweepTable.

    Examples
    --------
    >>> import numpy as np, diffident as di
    >>> t = di.sweep({"x": np.arange(1.0, 11.0)}, queries=["mean"], rho=[0.2, 0.5])
    >>> len(t), t["bound_scale"].round(4).tolist()
    (2, [1.1098, 0.4096])
    >>> di.SweepTable({"rho": [0.1, 0.2], "scale": [3.0, 1.5]})
    SweepTable(2 rows: rho, scale)
    """

    def __init__(self, columns):
        if not isinstance(columns, Mapping):
            raise TypeError(f"columns must be a mapping of name to 1-d array, got {type(columns).__name__}")
        self._cols = {k: np.asarray(v) for k, v in columns.items()}
        for k, v in self._cols.items():
            if v.ndim != 1:
                raise ValueError(f"column {k!r} must be one-dimensional, got shape {v.shape}")
        lengths = {v.shape[0] for v in self._cols.values()}
        if len(lengths) > 1:
            raise ValueError(f"columns of unequal length: {lengths}")

    def __getitem__(self, key):
        return self._cols[key]

    def __iter__(self):
        return iter(self._cols)

    def __len__(self):
        return next(iter(self._cols.values())).shape[0] if self._cols else 0

    @property
    def rows(self):
        """Number of rows, the same as ``len(table)``.

        Examples
        --------
        >>> import diffident as di
        >>> di.SweepTable({"rho": [0.1, 0.2, 0.3]}).rows
        3
        """
        return len(self)

    def to_pandas(self):
        """The table as a pandas DataFrame, one column per key, in order.

        Returns
        -------
        pandas.DataFrame
            A new DataFrame with the table's columns.

        Raises
        ------
        ImportError
            If pandas is not installed.

        Examples
        --------
        >>> import diffident as di
        >>> df = di.SweepTable({"rho": [0.1, 0.2], "scale": [3.0, 1.5]}).to_pandas()
        >>> df.shape, df.columns.tolist()
        ((2, 2), ['rho', 'scale'])
        """
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - depends on the environment
            raise ImportError("to_pandas needs pandas: python -m pip install pandas") from None
        return pd.DataFrame(dict(self._cols))

    def to_csv(self, path):
        """Write the table as CSV (floats with 17 significant digits).

        A header row of the column names, then one row per grid point; floats
        are written by ``repr`` (enough digits to read back the same float),
        infinities as ``inf`` and ``-inf``, NaN as ``nan``.

        Parameters
        ----------
        path : str or os.PathLike
            The file to write (overwritten if it exists).

        Returns
        -------
        str or os.PathLike
            The ``path`` given, unchanged.

        Raises
        ------
        OSError
            If the file cannot be opened for writing.

        Examples
        --------
        >>> import os, tempfile, diffident as di
        >>> t = di.SweepTable({"rho": [0.1, 0.2], "scale": [3.0, float("inf")]})
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     path = t.to_csv(os.path.join(tmp, "sweep.csv"))
        ...     with open(path) as fh:
        ...         text = fh.read()
        >>> print(text, end="")
        rho,scale
        0.1,3.0
        0.2,inf
        """
        keys = list(self._cols)
        with open(path, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(keys)
            cols = [self._cols[k] for k in keys]
            for i in range(len(self)):
                w.writerow([_fmt(c[i]) for c in cols])
        return path

    def __repr__(self):
        return f"SweepTable({len(self)} rows: {', '.join(self._cols)})"


def _fmt(x):
    if isinstance(x, (str, np.str_)):
        return str(x)
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(x)


def read_csv_columns(path, columns=None):
    """Numeric columns of a CSV file with a header row.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    columns : list of str, optional
        Columns to read (default: every column whose values all parse as
        numbers).

    Returns
    -------
    dict of str to ndarray of float64

    Raises
    ------
    ValueError
        For an unreadable or empty file, an unknown column, or a requested
        column that is not numeric.
    """
    try:
        with open(path, newline="") as fh:
            rows = list(csv.reader(fh))
    except OSError as exc:
        raise ValueError(f"cannot read data file {os.fspath(path)!r}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ValueError(f"cannot read data file {os.fspath(path)!r}: not a text CSV file") from None
    if len(rows) < 2:
        raise ValueError(f"data file {os.fspath(path)!r} has no data rows")
    header = [h.strip() for h in rows[0]]
    body = [r for r in rows[1:] if r]
    want = header if columns is None else list(columns)
    out = {}
    for name in want:
        if name not in header:
            raise ValueError(f"unknown column {name!r}; the file has {', '.join(header)}")
        j = header.index(name)
        try:
            col = np.array([float(r[j]) for r in body])
        except (ValueError, IndexError):
            if columns is None:
                continue
            raise ValueError(f"column {name!r} is not numeric") from None
        if not np.all(np.isfinite(col)):
            if columns is None:
                continue
            raise ValueError(f"column {name!r} has non-finite values")
        out[name] = col
    if not out:
        raise ValueError(f"data file {os.fspath(path)!r} has no numeric column")
    return out


def as_columns(data, columns):
    if isinstance(data, (str, os.PathLike)):
        return read_csv_columns(data, columns)
    if isinstance(data, Mapping):
        names = list(data) if columns is None else list(columns)
        out = {}
        for name in names:
            if name not in data:
                raise ValueError(f"unknown column {name!r}; the data has {', '.join(map(str, data))}")
            try:
                out[str(name)] = _validate.finite(f"data[{name!r}]", data[name])
            except TypeError:
                raise ValueError(f"column {name!r} is not numeric") from None
        return out
    a = _validate.finite("data", data)
    if a.ndim == 1:
        a = a[:, None]
    if a.ndim != 2:
        raise ValueError(f"data must be a CSV path, a mapping of columns or a 2-d array, got shape {a.shape}")
    cols = {str(j): a[:, j] for j in range(a.shape[1])}
    return as_columns(cols, columns)


def _domain(name, col, domains):
    d = (domains or {}).get(name)
    if d is None:
        if not np.all(col == np.floor(col)):
            raise ValueError(
                f"column {name!r} is not integer-valued: give its domain, e.g. domains={{{name!r}: (lo, hi)}}"
            )
        return Domain(col.min(), col.max())
    if isinstance(d, Domain):
        return d
    lo, hi = d
    return Domain(lo, hi)


class _Progress:
    def __init__(self, total, enabled):
        self.total, self.done, self.enabled = total, 0, enabled and total > 0

    def step(self, label):
        self.done += 1
        if not self.enabled:
            return
        width = 30
        fill = int(width * self.done / self.total)
        sys.stderr.write(f"\r[{'#' * fill}{'.' * (width - fill)}] {self.done}/{self.total} {label[:40]:40s}")
        if self.done == self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def sweep(data, *, columns=None, queries=("mean", "median", "std"), rho=None, n_rho=50, sizes=None,
          domains=None, calibrations=("bound", "tight"), ddof=1, seed=0, rtol=1e-12, progress=False,
          column_seed=None):
    """Risk and calibration over a grid: rho x queries x columns x sizes.

    For every column and dataset size the data set D is fixed; for every
    query, `dataset_sensitive_range` gives the paper's sensitive range over
    D' = D - i*, the worlds of the attaining D' give the exact worst-case
    risk at the paper's scale, and `dataset_tight_scale` the tight
    calibration that holds for every D', for the whole rho grid at once.

    Parameters
    ----------
    data : str, os.PathLike, mapping or 2-d array
        A CSV file with a header, a mapping of column name to values, or a
        2-d array (columns named "0", "1", ...).
    columns : list of str, optional
        Columns to use (default: every numeric column).
    queries : sequence of str, optional
        Named queries (see `world_values`); default mean, median, std.
    rho : array_like, optional
        Risk bounds; default ``n_rho`` log-spaced values from just above
        1/m to 0.5 for each column (m its domain size).
    n_rho : int, optional
        Size of the default rho grid (default 50).
    sizes : sequence of int, optional
        Dataset sizes n: the first n rows when n is the full size, else a
        seeded sample of n rows without replacement (default: all rows).
    domains : mapping, optional
        Column name to ``(lo, hi)`` or a `Domain`; default the integer
        domain from the column's minimum to its maximum (a column that is not
        integer-valued needs one).
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
        Show a progress bar on standard error (default False).
    column_seed : int, optional
        The column number to use in the sample streams when one column is
        swept on its own (the Dask backend's tasks).

    Returns
    -------
    SweepTable
        Columns ``column, query, n, m, rho, sensitive_range, bound_scale,
        bound_epsilon, tight_scale, tight_epsilon, risk_at_bound`` (the
        bound ones NaN when not asked for, likewise the tight ones):
        ``tight_scale`` is `dataset_tight_scale` (it meets rho for every
        D'), ``tight_epsilon`` is ``sensitive_range / tight_scale``, and
        ``risk_at_bound`` is the exact worst-case risk at the paper's scale
        for the D' that attains the sensitive range.

    Raises
    ------
    ValueError
        For an unreadable CSV file, unknown columns or queries, non-numeric
        or non-finite columns, rho outside [0, 1], ``n_rho < 1``, sizes
        outside 1..(number of rows), unknown calibrations, bad domains or
        data outside them, a column that is not integer-valued and has no
        domain, or a bad ddof.
    TypeError
        For a query that is neither a name nor a callable, a 2-d array that
        is not numeric, or domain ends that are not numbers.

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
    >>> t = di.sweep({"hours": hours}, queries=["mean"], rho=[0.015, 0.1])
    >>> t["m"][0], bool(np.all(t["tight_scale"] < t["bound_scale"]))
    (np.float64(99.0), True)
    """
    cols = as_columns(data, columns)
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
    bar = _Progress(len(plan) * len(queries), progress)
    out: dict[str, list] = {k: [] for k in FIELDS}
    domain_of = {name: _domain(name, col, domains) for name, col in cols.items()}
    for name, n, rng in plan:
        col = cols[name]
        d = col if n == col.size else rng.choice(col, size=n, replace=False)
        dom = domain_of[name]
        if d.min() < dom.lo or d.max() > dom.hi:
            raise ValueError(f"column {name!r} has values outside its domain {dom!r}")
        m = float(dom.size)
        grid = rho_fixed if rho is not None else _default_rho(m, n_rho)
        for q in queries:
            bar.step(f"{name} {q} n={n}")
            # the cell's query, data and domain validated once, for every computation below
            qy, _, d, cands, _, _ = dataset_setup(q, d, dom, 1, ddof, 0.5, True, 10**8)
            S, removed = dataset_sensitive_range_of(qy, 1, d, cands, True, 10**8)
            k = grid.size
            row = dict(column=np.full(k, name, dtype=object), query=np.full(k, q, dtype=object),
                       n=np.full(k, n, dtype=np.int64), m=np.full(k, m), rho=grid,
                       sensitive_range=np.full(k, S))
            nan = np.full(k, np.nan)
            row.update(bound_scale=nan, bound_epsilon=nan, tight_scale=nan, tight_epsilon=nan,
                       risk_at_bound=nan)
            prob = Problem(qy, 1, d, cands, 10**8) if "tight" in cals else None
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
            for key in FIELDS:
                out[key].append(np.asarray(row[key]))
    table = {k: (np.concatenate(v) if v else np.empty(0)) for k, v in out.items()}
    return SweepTable(table)


def _default_rho(m, n):
    """n log-spaced rho from just above 1/m to 0.5."""
    lo = (1.0 / m) * (1.0 + 1e-3)  # just above min_rho(m)
    hi = 0.5
    if lo >= hi:
        return np.array([hi])
    return np.geomspace(lo, hi, n)
