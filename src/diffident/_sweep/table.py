"""The tidy table a sweep returns, and how it writes itself out."""

import contextlib
import csv
import math
from collections.abc import Mapping
from typing import Any, NoReturn, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._numerics.shared_docs import shared_docs

#: The outcomes of a grid point (the ``status`` column of a sweep).
STATUSES = ("calibrated", "unattainable", "no noise needed", "zero sensitive range", "no lattice", "over budget")

# a file path, or an open text buffer (anything with ``write``): returned as given
PathOrBuffer = TypeVar("PathOrBuffer")


class SweepTable(dict[str, NDArray[Any]]):
    """The tidy result of `sweep`: a read-only dict of column name to a 1-d array, one row per grid point.

    Parameters
    ----------
    columns : mapping of str to array_like
        The columns, each 1-d and all of the same length.

    Raises
    ------
    ValueError
        If a column is not one-dimensional, or the columns' lengths differ.
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

    @shared_docs
    def to_csv(self, path: PathOrBuffer) -> PathOrBuffer:
        """Write the table as CSV: a header row, floats that read back exactly, ``inf``, ``nan``.

        Parameters
        ----------
        path : str, os.PathLike or file-like
            The file to write (overwritten), or an open text buffer.

        Returns
        -------
        %(returns_path)s

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

    @shared_docs
    def to_json(self, path: PathOrBuffer) -> PathOrBuffer:
        """Write the table as JSON records; infinities and NaN as the strings "inf", "-inf", "nan".

        Parameters
        ----------
        path : str, os.PathLike or file-like
            The file to write (overwritten), or an open text buffer.

        Returns
        -------
        %(returns_path)s

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

    @shared_docs
    def to_parquet(self, path: PathOrBuffer) -> PathOrBuffer:
        """Write the table as Parquet (through pandas and pyarrow).

        Parameters
        ----------
        path : str, os.PathLike or file-like
            The file to write, or a binary buffer.

        Returns
        -------
        %(returns_path)s

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
        """The table as an xarray Dataset with named dimensions (column, query, n, noise, risk, rho, calibration).

        Returns
        -------
        xarray.Dataset
            A new Dataset with the table's values.

        Raises
        ------
        ImportError
            If xarray (or pandas) is not installed.
        ValueError
            If the table lacks a grid column, or two rows share a grid point.

        Examples
        --------
        >>> import numpy as np, diffident as di
        >>> t = di.sweep({"x": np.arange(1.0, 11.0)}, queries=["mean", "median"],
        ...              rho=[0.2, 0.5],
        ...              domains={"x": (1, 10)})
        >>> ds = t.to_xarray()
        >>> dict(ds.sizes)
        {'column': 1, 'query': 2, 'n': 1, 'noise': 1, 'risk': 1, 'rho': 2,
         'calibration': 2}
        """
        try:
            import pandas as pd
            import xarray  # noqa: F401  (pandas builds the Dataset with it)
        except ImportError:  # pragma: no cover - depends on the environment
            raise ImportError("to_xarray needs xarray and pandas: python -m pip install xarray") from None
        grid = ["column", "query", "n", *(k for k in ("noise", "risk") if k in self._cols), "rho"]
        missing = [k for k in (*grid, "m", "domain_source", "sensitive_range") if k not in self._cols]
        if missing:
            raise ValueError(f"to_xarray needs the columns of a sweep; missing {missing}")
        df = self.to_pandas()
        if df.duplicated(grid).any():
            raise ValueError(f"to_xarray needs one row per ({', '.join(grid)}): the table repeats a grid point")
        cals = [c for c in ("bound", "tight") if f"{c}_scale" in df and not df[f"{c}_scale"].isna().all()]
        long = pd.concat([df[grid].assign(calibration=c, scale=df[f"{c}_scale"], epsilon=df[f"{c}_epsilon"],
                                          status=_status(df["sensitive_range"].to_numpy(),
                                                         df[f"{c}_scale"].to_numpy()))
                          for c in cals], ignore_index=True)
        ds = long.set_index([*grid, "calibration"]).to_xarray()
        cells = df.set_index(grid)[["sensitive_range"] + [k for k in ("granularity", "risk_at_bound") if k in df]]
        ds = ds.merge(cells.to_xarray())
        per_column = df.drop_duplicates("column").set_index("column")
        order = {k: pd.unique(df[k]) for k in grid if k != "rho"}
        ds = ds.reindex(**order, calibration=cals)
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
