"""Reading the columns of a sweep: CSV files, data frames, mappings and 2-d
arrays, their missing values, and each column's domain (given or inferred).
"""

import csv
import os
import warnings
from collections.abc import Mapping

import numpy as np

from .._numerics import validate as _validate
from .._worlds.sets import Domain

#: Strings a CSV cell may hold for a missing value (as pandas reads them by default, in part).
MISSING_TOKENS = frozenset({"", "NA", "N/A", "n/a", "NaN", "nan", "NULL", "null", "None", "<NA>"})


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
    """``{column: (Domain, "given" or "inferred")}`` for the columns swept."""
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
        try:
            lo, hi = d
        except (TypeError, ValueError):
            raise ValueError(f"domains[{name!r}] must be a Domain or a pair (lo, hi), got {d!r}") from None
        d = Domain(lo, hi)
    if d.step is None:
        raise ValueError(f"column {name!r}: {d!r} is a real interval, with infinitely many possible worlds, and "
                         "the risk and its calibration need a finite number m; give the grid the values are "
                         f"recorded on, e.g. Domain({d.lo!r}, {d.hi!r}, step=0.1)")
    return d
