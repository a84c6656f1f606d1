"""Replication of Lee and Clifton, "Differential Identifiability" (KDD 2012)."""

from pathlib import Path

import numpy as np

from .._numerics.progress import notice
from . import plots
from .data import load_adult, synthetic_rows
from .experiments import DRAWS as DRAWS
from .experiments import RESPONSES as RESPONSES
from .experiments import TOY_REPORT_RHO as TOY_REPORT_RHO
from .experiments import compute
from .paper import *  # noqa: F403  (the paper's facts stay attributes of diffident.replicate)
from .paper import ATTRIBUTES, PAPER_N
from .report import report_text, write_tables

__all__ = ["run", "load_adult", "synthetic_rows", "ATTRIBUTES"]


def _progress(on, msg):
    if on:  # (one line per stage: on a terminal and in a log alike)
        notice(f"diffident replicate: {msg}")


def run(out_dir, data=None, seed=0, progress=False, *, format="png", dpi=plots.DPI):
    """Replicate Lee and Clifton (KDD 2012): figures, tables and a report.

    Parameters
    ----------
    out_dir : str or path-like
        Output directory (created if missing) for the report, CSV and figures.
    data : str or path-like, optional
        An Adult-format CSV file; None (default) uses the published facts.
    seed : int
        Seed (>= 0) of every random draw.
    progress : bool
        Print one line per stage on standard error.
    format : {'png', 'pdf', 'svg'}
        File format of the figures.
    dpi : float
        Resolution of the figures in dots per inch, from 20 to 1200.

    Returns
    -------
    dict
        Paths (``report``, ``figures``, ``tables``), ``plots``, ``source``, ``notes`` and ``summary``.

    Raises
    ------
    ValueError
        For a bad data file, seed, ``format`` or ``dpi``.
    TypeError
        For a ``format`` that is not a string or a ``dpi`` that is not a number.

    Examples
    --------
    >>> from diffident.replicate import run
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     result = run(Path(tmp) / "replication")
    ...     print(Path(result["report"]).name, result["summary"]["equal"] > 0)
    report.md True
    """
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    format, dpi = plots.check_options(format, dpi)
    out = Path(out_dir)
    embedded = data is None
    rows = None if embedded else load_adult(data)  # raises before anything is written
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"cannot create the output directory {out}: {exc.strerror or exc}") from None
    notes = []
    if embedded:
        _progress(progress, "generating the synthetic rows")
        rows = synthetic_rows(int(seed))
        rows_label = "synthetic"
        source = "embedded defaults (synthetic rows)"
        notes.append(f"No data file: the paper's published facts are embedded, and the rows (n = {PAPER_N}) "
                     f"are a seeded synthetic sample (seed {seed}) within the Table 3 domains; every number "
                     "derived from them is labelled 'synthetic'.")
    else:
        rows_label = "adult"
        source = f"Adult data at {data}"
    res = compute(rows, rows_label, embedded, seed, notes, lambda msg: _progress(progress, msg))

    _progress(progress, "writing the tables")
    data_points = plots.figure_data(res)
    tables = write_tables(out, res, data_points)

    _progress(progress, "drawing the figures")
    figures, drawn = {}, False
    why = plots.unavailable()
    if why is None:
        figures = plots.draw_all(out, res, format=format, dpi=dpi, data=data_points)
        drawn = True
    else:
        notes.append(f"matplotlib is not available ({why}): figures skipped; the CSV files hold their data.")

    _progress(progress, "writing the report")
    report = out / "report.md"
    report.write_text(report_text(res, tables, figures, plots=drawn, source=source, seed=seed, notes=notes,
                                  format=format, dpi=dpi))
    return {"report": str(report), "figures": [str(p) for p in figures.values()],
            "tables": [str(p) for p in tables.values()], "plots": drawn, "source": source, "notes": notes,
            "summary": res.checks.counts()}


# documented (mkdocstrings, numpydoc) and doctested as diffident.replicate.*
for _f in (load_adult, synthetic_rows):
    _f.__module__ = __name__
del _f
