"""Our numbers beside the paper's printed ones: statuses and number text."""

import math
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal, InvalidOperation
from fractions import Fraction
from typing import NamedTuple

import numpy as np

__all__ = ["EQUAL", "DIFFERENT", "NOT_REPRODUCIBLE", "EMBEDDED", "exact_text", "fmt", "pct", "compare", "Check",
           "Checks"]

EQUAL, DIFFERENT, NOT_REPRODUCIBLE, EMBEDDED = "equal", "different", "not reproducible", "embedded"


def exact_text(x):
    """The shortest text that reads back as the float ``x``.

    Parameters
    ----------
    x : float
        A number.

    Returns
    -------
    str
        ``repr(float(x))``, or ``'inf'`` / ``'-inf'`` for an infinity.
    """
    x = float(x)
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(x)


def fmt(x, digits=4):
    """A number for the report's prose tables.

    Parameters
    ----------
    x : float
        A number.
    digits : int
        Digits after the point (significant digits below 1 and beyond 1e6).

    Returns
    -------
    str
        ``'inf'``, ``'0'``, fixed notation without trailing zeros, or ``%g``.
    """
    x = float(x)
    if math.isinf(x):
        return "inf"
    if x == 0:
        return "0"
    if abs(x) >= 1e-3 and abs(x) < 1e6:
        return f"{x:.{digits}f}".rstrip("0").rstrip(".") if abs(x) >= 1 else f"{x:.{digits}g}"
    return f"{x:.{digits}g}"


def pct(rho):
    """A risk bound as a percentage, e.g. ``'1.563%'``.

    Parameters
    ----------
    rho : float
        A probability.

    Returns
    -------
    str
        ``100 rho`` to 4 significant digits and a percent sign.
    """
    return f"{100.0 * rho:.4g}%"


def _as_printed(paper, ours):
    """Ours rounded as the paper printed its value (a decimal string, 'inf' or a fraction 'a/b')."""
    if paper == "inf" or not math.isfinite(ours):
        return exact_text(ours)
    if "/" in paper:
        return f"{ours:.4f}"
    return str(Decimal(ours).quantize(_last_digit(Decimal(paper)), rounding=ROUND_HALF_UP))


def _last_digit(d):
    """The value of the last printed digit of a finite decimal (0.0001 for 0.0007)."""
    return Decimal(1).scaleb(int(d.as_tuple().exponent))


def compare(paper, ours):
    """The status of ours against a value printed by the paper.

    Parameters
    ----------
    paper : str
        The printed value: a decimal, ``'inf'`` or a fraction ``'a/b'``.
    ours : float
        Our value.

    Returns
    -------
    tuple of str
        (status `EQUAL` or `DIFFERENT`, ours rounded as printed, a note on why).

    Raises
    ------
    ValueError
        For a printed value that is not a number.
    """
    ours = float(ours)
    if paper == "inf":
        return (EQUAL, exact_text(ours), "") if math.isinf(ours) and ours > 0 else \
            (DIFFERENT, exact_text(ours), "the paper prints infinity (not releasable); ours is finite")
    if not math.isfinite(ours):
        return DIFFERENT, exact_text(ours), "ours is not finite"
    printed = _as_printed(paper, ours)
    if "/" in paper:
        num, den = paper.split("/")
        exact = Fraction(int(num), int(den))
        ok = abs(Fraction(ours) - exact) <= abs(exact) * Fraction(1, 2 ** 50)
        return (EQUAL if ok else DIFFERENT), printed, ("to double precision" if ok else "")
    try:
        target = Decimal(paper)
    except InvalidOperation:
        raise ValueError(f"bad paper value {paper!r}") from None
    if Decimal(printed) == target:
        return EQUAL, printed, ""
    # a full double printed to 16-17 digits: its last digit is representation
    ulps = abs(ours - float(paper)) / math.ulp(float(paper))
    if len(target.as_tuple().digits) >= 15 and ulps <= 2:
        return EQUAL, printed, (f"to {len(target.as_tuple().digits) - 1} significant digits; the last "
                                f"printed digit differs by {ulps:.0f} ulp of the double")
    truncated = Decimal(ours).quantize(_last_digit(target), rounding=ROUND_DOWN)
    if truncated == target:
        return DIFFERENT, printed, (f"in the last printed digit only: ours is {ours!r}, which rounds to {printed}; "
                                    f"the paper's {paper} is ours truncated, not rounded")
    rel = abs(ours - float(paper)) / abs(float(paper)) if float(paper) != 0 else math.inf
    return DIFFERENT, printed, f"ours is {ours!r}, relative difference {rel:.2g}"


class Check(NamedTuple):
    """One row of the report's comparison table (and of comparison.csv).

    Parameters
    ----------
    item : str
        What is compared.
    source : str
        Where the paper's value is printed (or the Mathematics page's check value).
    paper : str
        The paper's value as printed.
    ours : str
        Ours, rounded as the paper printed its value.
    ours_full : str
        Ours at full precision.
    status : str
        `EQUAL`, `DIFFERENT`, `NOT_REPRODUCIBLE` or `EMBEDDED`.
    note : str
        Why it differs, or a remark; may be empty.
    """

    item: str
    source: str
    paper: str
    ours: str
    ours_full: str
    status: str
    note: str


class Checks:
    """The rows of the report's comparison table, in the order added."""

    def __init__(self):
        self.rows = []

    def add(self, item, source, paper, ours, status=None, note="", printed=None):
        """Compare ours with the paper's printed value and keep the row.

        Parameters
        ----------
        item : str
            What is compared.
        source : str
            Where the paper's value is printed.
        paper : str
            The paper's value as printed.
        ours : float or str
            Our value.
        status : str, optional
            The status; default the one `compare` decides.
        note : str
            A remark, joined to the one `compare` makes.
        printed : str, optional
            Ours as shown; default ours rounded as the paper printed its value.

        Returns
        -------
        str
            The status.
        """
        if status is None:
            status, auto_printed, auto_note = compare(paper, ours)
            printed = auto_printed if printed is None else printed
            note = "; ".join(x for x in (auto_note, note) if x)
        if printed is None:
            printed = exact_text(ours) if isinstance(ours, (float, np.floating)) else str(ours)
        full = exact_text(ours) if isinstance(ours, (float, int, np.floating)) else str(ours)
        self.rows.append(Check(item, source, paper, printed, full, status, note))
        return status

    def counts(self):
        """The number of rows of each status.

        Returns
        -------
        dict of str to int
            Status -> number of rows, in the order the statuses first occur.
        """
        out: dict[str, int] = {}
        for r in self.rows:
            out[r.status] = out.get(r.status, 0) + 1
        return out
