"""The rows of the replication: the Adult file, or a synthetic stand-in."""

import os
from pathlib import Path

import numpy as np

from .paper import ADULT_N, ATTRIBUTES, DOMAINS, PAPER_MEAN, PAPER_STD

__all__ = ["ADULT_ENV", "ADULT_DEFAULT", "adult_path", "load_adult", "synthetic_rows"]

#: The environment variable naming the Adult CSV file.
ADULT_ENV = "DIFFIDENT_ADULT_CSV"
#: Where the Adult CSV file is expected without ``DIFFIDENT_ADULT_CSV``,
#: relative to the repository root.
ADULT_DEFAULT = Path("..") / "shared" / "data" / "adult.csv"


def adult_path(root=None):
    """Where the Adult CSV file is expected.

    Parameters
    ----------
    root : str or path-like, optional
        The directory the default is relative to; default the current one.

    Returns
    -------
    pathlib.Path
        ``DIFFIDENT_ADULT_CSV`` if set, else ``root/../shared/data/adult.csv``.

    Raises
    ------
    TypeError
        For a ``root`` that is not a path (raised by `os.path`).

    Examples
    --------
    >>> from diffident.replicate.data import adult_path
    >>> adult_path("/work/diffident")  # doctest: +SKIP
    PosixPath('/work/shared/data/adult.csv')
    """
    default = os.path.normpath(Path(os.curdir if root is None else root) / ADULT_DEFAULT)
    return Path(os.environ.get(ADULT_ENV, default))


def load_adult(path):
    """The five numeric Adult columns of an Adult-format CSV file.

    Parameters
    ----------
    path : str or path-like
        A CSV file with columns ``age``, ``educational-num``, ``capital-gain``, ``capital-loss``, ``hours-per-week``.

    Returns
    -------
    dict of str to ndarray
        One float64 array per attribute, in the file's row order.

    Raises
    ------
    ValueError
        For an unreadable file, a missing column, a bad value or under two rows.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from diffident.replicate import load_adult
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp) / "adult.csv"
    ...     rows = ["age,educational-num,capital-gain,capital-loss,hours-per-week",
    ...             "25,7,0,0,40", "38,9,0,0,50"]
    ...     _ = path.write_text(chr(10).join(rows))
    ...     columns = load_adult(path)
    >>> columns["hours-per-week"]
    array([40., 50.])
    """
    path = Path(path)
    try:
        with open(path, newline="") as fh:
            first = fh.readline()
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
        raise ValueError(f"cannot read the data file {path}: {why}") from None
    header = [h.strip().strip('"').strip() for h in first.rstrip("\r\n").split(",")]
    missing = [c for c in ATTRIBUTES if c not in header]
    if missing:
        raise ValueError(f"the data file {path} lacks the column(s) {', '.join(missing)}; "
                         f"an Adult-format CSV needs {', '.join(ATTRIBUTES)}")
    idx = [header.index(c) for c in ATTRIBUTES]
    try:
        table = _loadtxt(path, idx)
    except ValueError:
        for col, i in zip(ATTRIBUTES, idx, strict=True):  # say which column is at fault
            try:
                _loadtxt(path, [i])
            except ValueError as exc:
                raise ValueError(f"column {col!r} of {path} is not numeric: "
                                 f"{str(exc).splitlines()[0]}") from None
        raise ValueError(f"the data file {path} is not a well-formed CSV file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read the data file {path}: {type(exc).__name__}") from None
    if table.shape[0] < 2:
        raise ValueError(f"the data file {path} has {table.shape[0]} data row(s); at least 2 are needed")
    out = {}
    for j, col in enumerate(ATTRIBUTES):
        x = np.ascontiguousarray(table[:, j])
        lo, hi = DOMAINS[col]
        bad = ~np.isfinite(x) | (x != np.floor(x)) | (x < lo) | (x > hi)
        if bad.any():
            r = int(np.flatnonzero(bad)[0])
            raise ValueError(f"column {col!r} of {path} must hold whole numbers in the paper's domain "
                             f"{lo}..{hi}; data row {r + 1} has {x[r]!r}")
        out[col] = x
    return out


def _loadtxt(path, idx):
    return np.loadtxt(path, delimiter=",", skiprows=1, usecols=idx, dtype=np.float64, ndmin=2,
                      quotechar='"')


def synthetic_rows(seed=0, *, n=None):
    """A seeded synthetic stand-in for the Adult columns, within Table 3.

    Integer columns with about the published means and standard deviations;
    how they are drawn: docs/algorithms/replicate-testing.md.

    Parameters
    ----------
    seed : int or numpy.random.SeedSequence
        Seed of the generator.
    n : int, optional
        Number of rows (default the paper's 48,842).

    Returns
    -------
    dict of str to ndarray
        One float64 array per attribute.

    Raises
    ------
    ValueError
        For a negative seed or a negative ``n`` (raised by NumPy).
    TypeError
        For a seed that is neither an integer nor a SeedSequence.

    Examples
    --------
    >>> from diffident.replicate import synthetic_rows
    >>> rows = synthetic_rows(0, n=1000)
    >>> sorted(rows), rows["age"].shape
    (['age', 'capital-gain', 'capital-loss', 'educational-num',
      'hours-per-week'], (1000,))
    >>> bool(rows["age"].min() >= 17 and rows["age"].max() <= 90)
    True
    """
    n = ADULT_N if n is None else int(n)
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    rng = np.random.default_rng(ss)
    out = {}
    for col in ATTRIBUTES:
        lo, hi = DOMAINS[col]
        d, s = float(PAPER_MEAN[col]) - lo, float(PAPER_STD[col])
        if s <= d:
            x = lo + d + s * rng.standard_normal(n)
        else:
            p = 2.0 * d * d / (s * s + d * d)
            mu = d / p
            x = np.where(rng.random(n) < p, lo + mu + mu * rng.standard_normal(n), lo)
        out[col] = np.clip(np.rint(x), lo, hi).astype(np.float64)
    return out
