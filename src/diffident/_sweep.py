"""Parameter sweeps: rho x queries x columns x dataset sizes x calibration.

For every (column, dataset size) the data set D is fixed (the first rows, or
a seeded sample); for every query the paper's sensitive range over
D' = D - i* (`dataset_sensitive_range`) gives the paper's bound
calibration, the worlds of the D' that attains it give the exact
worst-case risk at that calibration, and `dataset_tight_scale` gives the
tight calibration that holds for every D'.  Each world set goes through the
batched kernels once for the whole rho grid.
"""

import contextlib
import csv
import math
import os
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, NoReturn, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _validate
from ._closed_form import laplace_epsilon, laplace_scale
from ._neighbours import Problem
from ._possible import dataset_sensitive_range_of, dataset_setup, world_values_of
from ._progress import Progress
from ._world_sets import Domain, Known
from ._worlds import Worlds
from ._worst_case import Risk

__all__ = ["sweep", "SweepTable", "InferredDomainWarning", "SkippedColumnWarning"]

FIELDS = ("column", "query", "n", "m", "domain_source", "rho", "sensitive_range", "bound_scale", "bound_epsilon",
          "tight_scale", "tight_epsilon", "risk_at_bound", "status")

#: The outcomes of a grid point (the ``status`` column of a sweep).
STATUSES = ("calibrated", "unattainable", "no noise needed", "zero sensitive range")

#: Strings a CSV cell may hold for a missing value (as pandas reads them by default, in part).
MISSING_TOKENS = frozenset({"", "NA", "N/A", "n/a", "NaN", "nan", "NULL", "null", "None", "<NA>"})


# a file path, or an open text buffer (anything with ``write``): returned as given
PathOrBuffer = TypeVar("PathOrBuffer")

class InferredDomainWarning(UserWarning):
    """A column's domain was taken from the column's own minimum and maximum.

    The adversary's worlds then range over the values the data happen to
    hold: the calibration depends on (and the released noise reveals
    something about) the observed extremes, and m changes with them.  Give
    the domain (``domains={column: (lo, hi)}``) to calibrate on the public
    range of the attribute, or pass ``infer_domains=True`` to accept the
    inferred one without this warning.

    Examples
    --------
    >>> import diffident as di
    >>> issubclass(di.InferredDomainWarning, UserWarning)
    True
    """


class SkippedColumnWarning(UserWarning):
    """Columns left out of `sweep`'s default selection, each with the reason.

    With ``columns`` not given, `sweep` uses every numeric column without
    missing values and names the others in this warning (not numeric, or
    holding missing values, which ``dropna=True`` drops).

    Examples
    --------
    >>> import diffident as di
    >>> issubclass(di.SkippedColumnWarning, UserWarning)
    True
    """


class SweepTable(dict[str, NDArray[Any]]):
    """The tidy result of `sweep`: one row per grid point.

    A read-only dict of column name to a 1-d NumPy array (``column``,
    ``query`` and ``domain_source`` hold strings), so that
    ``pandas.DataFrame(table)`` is the table; ``len(table)`` is the number
    of rows.  It writes itself with `to_csv`, `to_json` and `to_parquet`,
    converts with `to_pandas` and `to_xarray` (named dimensions), and shows as an HTML table in notebooks.
    `sweep` builds it; build one yourself from columns of equal length.

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
        If columns is not a mapping; or on any attempt to change the table.

    See Also
    --------
    sweep : The function that returns a SweepTable.

    Examples
    --------
    >>> import numpy as np, diffident as di
    >>> t = di.sweep({"x": np.arange(1.0, 11.0)}, queries=["mean"], rho=[0.2, 0.5],
    ...              domains={"x": (1, 10)})
    >>> len(t), t["bound_scale"].round(4).tolist()
    (2, [1.1098, 0.4096])
    >>> di.SweepTable({"rho": [0.1, 0.2], "scale": [3.0, 1.5]})
    SweepTable(2 rows: rho, scale)
    >>> import pandas as pd
    >>> pd.DataFrame(di.SweepTable({"rho": [0.1, 0.2], "scale": [3.0, 1.5]})).shape
    (2, 2)
    """

    def __init__(self, columns: Mapping[str, ArrayLike]) -> None:
        if not isinstance(columns, Mapping):
            raise TypeError(f"columns must be a mapping of name to 1-d array, got {type(columns).__name__}")
        cols = {k: np.asarray(v) for k, v in columns.items()}
        for k, v in cols.items():
            if v.ndim != 1:
                raise ValueError(f"column {k!r} must be one-dimensional, got shape {v.shape}")
        lengths = {v.shape[0] for v in cols.values()}
        if len(lengths) > 1:
            raise ValueError(f"columns of unequal length: {lengths}")
        super().__init__(cols)
        self._cols = cols

    def _read_only(self, *args: Any, **kwargs: Any) -> NoReturn:
        """Refuse to change the table: a SweepTable is read-only.

        ``clear``, ``pop``, ``popitem``, ``setdefault``, ``update`` and
        item assignment or deletion all raise.

        Parameters
        ----------
        *args, **kwargs
            Ignored.

        Returns
        -------
        None
            Never returns.

        Raises
        ------
        TypeError
            Always: build a new SweepTable from the columns instead.

        Examples
        --------
        >>> import diffident as di
        >>> di.SweepTable({"rho": [0.1]}).pop("rho")
        Traceback (most recent call last):
        ...
        TypeError: a SweepTable is read-only: build a new one from its columns
        """
        raise TypeError("a SweepTable is read-only: build a new one from its columns")

    __setitem__ = __delitem__ = __ior__ = _read_only
    clear = pop = popitem = setdefault = update = _read_only

    def __reduce__(self) -> tuple[type["SweepTable"], tuple[dict[str, NDArray[Any]]]]:
        # (rebuilt from its columns: pickle would otherwise fill the dict item by item)
        return (type(self), (dict(self._cols),))

    def __len__(self) -> int:
        return next(iter(self._cols.values())).shape[0] if self._cols else 0

    @property
    def rows(self) -> int:
        """Number of rows, the same as ``len(table)``.

        Examples
        --------
        >>> import diffident as di
        >>> di.SweepTable({"rho": [0.1, 0.2, 0.3]}).rows
        3
        """
        return len(self)

    def to_pandas(self) -> Any:
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

    def to_csv(self, path: PathOrBuffer) -> PathOrBuffer:
        """Write the table as CSV (floats with 17 significant digits).

        A header row of the column names, then one row per grid point; floats
        are written by ``repr`` (enough digits to read back the same float),
        infinities as ``inf`` and ``-inf``, NaN as ``nan``.

        Parameters
        ----------
        path : str, os.PathLike or file-like
            The file to write (overwritten if it exists), or an open text
            buffer (anything with ``write``).

        Returns
        -------
        str, os.PathLike or file-like
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
        with _text_out(path) as fh:
            self._write_csv(fh)
        return path

    def _write_csv(self, fh):
        keys = list(self._cols)
        w = csv.writer(fh)
        w.writerow(keys)
        cols = [self._cols[k] for k in keys]
        for i in range(len(self)):
            w.writerow([_fmt(c[i]) for c in cols])

    def to_json(self, path: PathOrBuffer) -> PathOrBuffer:
        """Write the table as JSON: a list of records, one per row.

        Floats are written with enough digits to read back the same float;
        infinities and NaN, which JSON cannot hold, as the strings
        ``"inf"``, ``"-inf"`` and ``"nan"`` (as in `to_csv`).

        Parameters
        ----------
        path : str, os.PathLike or file-like
            The file to write (overwritten if it exists), or an open text
            buffer.

        Returns
        -------
        str, os.PathLike or file-like
            The ``path`` given, unchanged.

        Raises
        ------
        OSError
            If the file cannot be opened for writing.

        Examples
        --------
        >>> import io, diffident as di
        >>> table = di.SweepTable({"rho": [0.1, 0.2], "scale": [3.0, float("inf")]})
        >>> buf = table.to_json(io.StringIO())
        >>> buf.getvalue()
        '[{"rho": 0.1, "scale": 3.0}, {"rho": 0.2, "scale": "inf"}]'
        """
        import json

        keys = list(self._cols)
        records = [{k: json_value(self._cols[k][i]) for k in keys} for i in range(len(self))]
        with _text_out(path) as fh:
            json.dump(records, fh, allow_nan=False)
        return path

    def to_parquet(self, path: PathOrBuffer) -> PathOrBuffer:
        """Write the table as Parquet (through pandas and pyarrow).

        Parameters
        ----------
        path : str, os.PathLike or file-like
            The file to write, or a binary buffer.

        Returns
        -------
        str, os.PathLike or file-like
            The ``path`` given, unchanged.

        Raises
        ------
        ImportError
            If pandas or pyarrow is not installed.

        Examples
        --------
        >>> import io, pandas as pd, diffident as di
        >>> t = di.SweepTable({"rho": [0.1, 0.2], "scale": [3.0, float("inf")]})
        >>> pd.read_parquet(t.to_parquet(io.BytesIO()))["scale"].tolist()
        [3.0, inf]
        """
        try:
            import pyarrow  # noqa: F401  (pandas' Parquet engine)
        except ImportError:  # pragma: no cover - depends on the environment
            raise ImportError("to_parquet needs pyarrow: python -m pip install pyarrow") from None
        self.to_pandas().to_parquet(path, index=False)
        if hasattr(path, "seek"):
            path.seek(0)
        return path

    def to_xarray(self) -> Any:
        """The table as an xarray Dataset with named dimensions.

        The dimensions are ``column``, ``query``, ``n``, ``rho`` and
        ``calibration`` (``bound`` and/or ``tight``, those the sweep
        computed), each in the table's order.  ``scale``, ``epsilon`` and
        ``status`` have every dimension (``status`` is that of each
        calibration); ``sensitive_range`` and ``risk_at_bound`` have all but
        ``calibration``; ``m`` and ``domain_source`` are coordinates of
        ``column``.

        The default rho grid of `sweep` depends on each column's m, so the
        ``rho`` dimension is the union of the columns' grids and a column has
        NaN (``status`` too) at the rho of the others: pass one ``rho`` to
        `sweep` for a dense array.

        Returns
        -------
        xarray.Dataset
            A new Dataset with the table's values.

        Raises
        ------
        ImportError
            If xarray (or pandas) is not installed.
        ValueError
            If the table lacks a grid column, or two rows share a grid point
            (a rho listed twice).

        Examples
        --------
        >>> import numpy as np, diffident as di
        >>> t = di.sweep({"x": np.arange(1.0, 11.0)}, queries=["mean", "median"],
        ...              rho=[0.2, 0.5],
        ...              domains={"x": (1, 10)})
        >>> ds = t.to_xarray()
        >>> dict(ds.sizes)
        {'column': 1, 'query': 2, 'n': 1, 'rho': 2, 'calibration': 2}
        >>> cell = ds["scale"].sel(column="x", query="mean", n=10, rho=0.2,
        ...                        calibration="bound")
        >>> bool(cell == t["bound_scale"][0])
        True
        """
        try:
            import pandas as pd
            import xarray  # noqa: F401  (pandas builds the Dataset with it)
        except ImportError:  # pragma: no cover - depends on the environment
            raise ImportError("to_xarray needs xarray and pandas: python -m pip install xarray") from None
        grid = ["column", "query", "n", "rho"]
        missing = [k for k in (*grid, "m", "domain_source", "sensitive_range") if k not in self._cols]
        if missing:
            raise ValueError(f"to_xarray needs the columns of a sweep; missing {missing}")
        df = self.to_pandas()
        if df.duplicated(grid).any():
            raise ValueError("to_xarray needs one row per (column, query, n, rho): the table repeats a grid point")
        cals = [c for c in ("bound", "tight") if f"{c}_scale" in df and not df[f"{c}_scale"].isna().all()]
        long = pd.concat([df[grid].assign(calibration=c, scale=df[f"{c}_scale"], epsilon=df[f"{c}_epsilon"],
                                          status=_status(df["sensitive_range"].to_numpy(),
                                                         df[f"{c}_scale"].to_numpy()))
                          for c in cals], ignore_index=True)
        ds = long.set_index([*grid, "calibration"]).to_xarray()
        cells = df.set_index(grid)[["sensitive_range"] + (["risk_at_bound"] if "risk_at_bound" in df else [])]
        ds = ds.merge(cells.to_xarray())
        per_column = df.drop_duplicates("column").set_index("column")
        order = {k: pd.unique(df[k]) for k in ("column", "query", "n")}
        ds = ds.reindex(column=order["column"], query=order["query"], n=order["n"], calibration=cals)
        return ds.assign_coords(m=("column", per_column["m"].reindex(order["column"]).to_numpy()),
                                domain_source=("column", per_column["domain_source"]
                                               .reindex(order["column"]).to_numpy()))

    def _repr_html_(self) -> str:
        """An HTML table of the first and last rows, for notebooks."""
        import html

        keys = list(self._cols)
        n = len(self)
        shown = list(range(n)) if n <= 20 else [*range(10), None, *range(n - 10, n)]
        head = "".join(f"<th>{html.escape(str(k))}</th>" for k in keys)
        rows = []
        for i in shown:
            if i is None:
                rows.append("<tr>" + "".join("<td>...</td>" for _ in keys) + "</tr>")
            else:
                rows.append("<tr>" + "".join(f"<td>{html.escape(_fmt(self._cols[k][i]))}</td>" for k in keys)
                            + "</tr>")
        return (f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
                f"<p>SweepTable, {n} rows</p>")

    def __repr__(self) -> str:
        return f"SweepTable({len(self)} rows: {', '.join(self._cols)})"


@contextlib.contextmanager
def _text_out(path):
    """An open text buffer as it is, or a path opened for writing (and closed after)."""
    if hasattr(path, "write"):
        yield path
    else:
        with open(path, "w", newline="") as fh:
            yield fh


def json_value(x):
    """A JSON-ready value: strings and whole numbers as they are, finite
    floats as floats, non-finite floats as the strings of `_fmt`.
    """
    if isinstance(x, (str, np.str_)):
        return str(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    x = float(x)
    return x if math.isfinite(x) else _fmt(x)


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


def _read_csv(path):
    """``{header name: list of cell strings}`` of a CSV file with a header row."""
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
    return {name: [r[j].strip() if j < len(r) else "" for r in body] for j, name in enumerate(header)}


def _numeric_values(values):
    """``(float64 array with NaN where missing, number missing)``, or None
    when the values are not numbers (strings that do not parse, booleans,
    dates, ...).
    """
    a = np.asarray(values)
    if a.dtype.kind in "iuf":
        a = a.astype(np.float64)
        return a, int(np.count_nonzero(np.isnan(a)))
    if a.dtype.kind not in "OUS":
        return None
    out = np.empty(a.shape[0])
    missing = 0
    for i, v in enumerate(a.tolist()):
        if v is None or (isinstance(v, str) and v.strip() in MISSING_TOKENS) or (isinstance(v, float) and v != v):
            out[i] = np.nan
            missing += 1
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float, str, np.number)):
            if type(v).__name__ in ("NAType", "NaTType"):  # pandas' missing markers
                out[i] = np.nan
                missing += 1
                continue
            return None
        try:
            out[i] = float(v)
        except ValueError:
            return None
    return out, missing


def _numeric_columns(raw, columns, dropna, where):
    """The float64 columns to sweep, from ``raw`` (name -> 1-d values), and
    every name ``raw`` has.  Requested columns that cannot be used raise;
    the default selection skips them and names them in one warning.
    """
    names = [str(k) for k in raw]
    want = names if columns is None else [str(c) for c in columns]
    by_name = {str(k): v for k, v in raw.items()}
    out, skipped = {}, []
    for name in want:
        if name not in by_name:
            raise ValueError(f"unknown column {name!r}; {where} has {', '.join(names)}")
        values = by_name[name]
        if np.ndim(values) != 1:
            raise ValueError(f"column {name!r} must be one-dimensional, got shape {np.shape(values)}")
        parsed = _numeric_values(values)
        if parsed is None:
            if columns is None:
                skipped.append(f"{name!r} (not numeric)")
                continue
            raise ValueError(f"column {name!r} is not numeric")
        col, missing = parsed
        if missing:
            if dropna:
                col = col[~np.isnan(col)]
            elif columns is None:
                skipped.append(f"{name!r} (has {missing} missing values; dropna=True drops them)")
                continue
            else:
                raise ValueError(f"column {name!r} has {missing} missing values; pass dropna=True to drop them")
        if col.size == 0:
            raise ValueError(f"column {name!r} has no values")
        if not np.all(np.isfinite(col)):
            if columns is None:
                skipped.append(f"{name!r} (has infinite values)")
                continue
            raise ValueError(f"column {name!r} has non-finite values")
        out[name] = np.ascontiguousarray(col)
    if skipped:
        warnings.warn(f"columns left out of the sweep: {', '.join(skipped)}", SkippedColumnWarning, stacklevel=4)
    if not out and want:
        raise ValueError(f"{where} has no numeric column")
    return out, names


def _frame_columns(data):
    """``{name: 1-d values}`` of a data frame or a named series (pandas,
    polars, pyarrow, anything with the Arrow stream interface
    ``__arrow_c_stream__`` or the dataframe interchange protocol
    ``__dataframe__``), or None for other objects.
    """
    if hasattr(data, "name") and hasattr(data, "to_numpy") and np.ndim(data) == 1:  # a (named) series
        return {str(data.name if data.name is not None else 0): _to_numpy(data)}
    frame_like = hasattr(data, "columns") or hasattr(data, "column_names")
    if not frame_like and hasattr(data, "__arrow_c_stream__"):
        try:
            import pyarrow as pa
        except ImportError:
            pa = None
        if pa is not None:
            data = pa.table(data)
    if not (hasattr(data, "columns") or hasattr(data, "column_names")) and hasattr(data, "__dataframe__"):
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - depends on the environment
            raise TypeError("data with only __dataframe__ needs pandas (or pyarrow) to be read") from None
        with warnings.catch_warnings():  # (pandas deprecates the protocol it reads here)
            warnings.simplefilter("ignore", DeprecationWarning)
            warnings.simplefilter("ignore", FutureWarning)
            data = pd.api.interchange.from_dataframe(data)
    if hasattr(data, "column_names") and hasattr(data, "column"):  # pyarrow.Table
        return {str(n): data.column(n).to_numpy(zero_copy_only=False) for n in data.column_names}
    if hasattr(data, "columns") and hasattr(data, "__getitem__") and not isinstance(data, np.ndarray):
        cols = list(data.columns)
        if len(set(map(str, cols))) < len(cols):
            raise ValueError(f"data has repeated column names: {cols}")
        return {str(n): _to_numpy(data[n]) for n in cols}
    return None


def _to_numpy(column):
    """A frame column as a NumPy array, missing values as NaN where numeric."""
    if hasattr(column, "to_numpy"):
        try:
            return column.to_numpy(dtype=np.float64, na_value=np.nan)  # pandas: NA -> NaN
        except (TypeError, ValueError):
            return column.to_numpy()
    return np.asarray(column)


def as_columns(data, columns, dropna=False):
    """The float64 columns of ``data`` to sweep, and every column name it has."""
    if isinstance(data, (str, os.PathLike)):
        return _numeric_columns(_read_csv(data), columns, dropna, f"the file {os.fspath(data)!r}")
    frame = _frame_columns(data)
    if frame is not None:
        return _numeric_columns(frame, columns, dropna, "the data")
    if isinstance(data, Mapping):
        return _numeric_columns(dict(data), columns, dropna, "the data")
    a = _validate.as_float("data", data)
    if a.ndim == 1:
        a = a[:, None]
    if a.ndim != 2:
        raise ValueError(f"data must be a CSV path, a data frame, a mapping of columns or a 2-d array, "
                         f"got shape {a.shape}")
    return _numeric_columns({str(j): a[:, j] for j in range(a.shape[1])}, columns, dropna, "the data")


def resolve_domains(cols, names, domains, infer_domains):
    """``{column: (Domain, "given" or "inferred")}`` for the columns swept.

    Keys of ``domains`` must be columns of the data (``names``).  A column
    without a domain gets the integer domain from its minimum to its
    maximum, with an `InferredDomainWarning` unless ``infer_domains`` is
    True; ``infer_domains=False`` makes a missing domain an error.
    """
    domains = dict(domains or {})
    unknown = [k for k in domains if str(k) not in names]
    if unknown:
        raise ValueError(f"domains names unknown column(s) {', '.join(map(repr, unknown))}; "
                         f"the data has {', '.join(names)}")
    domains = {str(k): v for k, v in domains.items()}
    if infer_domains is not None and not isinstance(infer_domains, (bool, np.bool_)):
        raise TypeError(f"infer_domains must be True, False or None, got {infer_domains!r}")
    out, inferred = {}, []
    for name, col in cols.items():
        if name in domains:
            out[name] = (_domain(name, col, domains), "given")
            continue
        if infer_domains is False:
            raise ValueError(f"column {name!r} has no domain: give domains={{{name!r}: (lo, hi)}} "
                             "(or infer_domains=True to use its minimum and maximum)")
        dom = _domain(name, col, None)
        out[name] = (dom, "inferred")
        inferred.append(f"{name!r}: {dom.lo:g}..{dom.hi:g}")
    if inferred and infer_domains is None:
        warnings.warn(f"domains inferred from the data's own minimum and maximum ({'; '.join(inferred)}): the "
                      "calibration then depends on the observed extremes; give domains={column: (lo, hi)}, or "
                      "infer_domains=True to accept them", InferredDomainWarning, stacklevel=3)
    return out


def _domain(name, col, domains):
    d = (domains or {}).get(name)
    if d is None:
        if not np.all(col == np.floor(col)):
            raise ValueError(
                f"column {name!r} is not integer-valued: give its domain, e.g. a grid of the step its values "
                f"are recorded to, domains={{{name!r}: Domain(lo, hi, step=0.1)}}"
            )
        return Domain(col.min(), col.max())
    if not isinstance(d, Domain):
        lo, hi = d
        d = Domain(lo, hi)
    if d.step is None:
        raise ValueError(f"column {name!r}: {d!r} is a real interval, with infinitely many possible worlds, and "
                         "the risk and its calibration need a finite number m; give the grid the values are "
                         f"recorded on, e.g. Domain({d.lo!r}, {d.hi!r}, step=0.1)")
    return d


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


def _status(S, scale):
    """The outcome of each grid point, from the sensitive range and the scale
    (the tight one where computed): a zero range (the risk is the same at
    any noise), an unattainable rho (scale inf), no noise needed (scale 0),
    or calibrated.  ``S`` and ``scale`` broadcast together.
    """
    S, scale = np.broadcast_arrays(S, scale)
    out = np.full(scale.shape, STATUSES[0], dtype=object)
    out[np.isinf(scale)] = STATUSES[1]
    out[scale == 0] = STATUSES[2]
    out[S == 0] = STATUSES[3]
    return out


def _default_rho(m, n):
    """n log-spaced rho from just above 1/m to 0.5."""
    lo = (1.0 / m) * (1.0 + 1e-3)  # just above min_rho(m)
    hi = 0.5
    if lo >= hi:
        return np.array([hi])
    return np.geomspace(lo, hi, n)
