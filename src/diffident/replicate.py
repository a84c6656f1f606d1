"""Replication of Lee and Clifton, "Differential Identifiability" (KDD 2012).

`run` recomputes the paper's toy example (Table 2, Figure 1), its
Adult Table 4, the noise-ratio Figures 2 to 4 and the tight calibration that
goes beyond the paper, writes the data behind every table and figure as CSV,
the figures as PNG (when matplotlib is installed) and ``report.md``, which
sets every number of the paper given in MATH.md beside ours and marks it
"equal", "different" (with why) or "not reproducible".

Without a data file the paper's published facts (domains, n, means and
standard deviations) are used, and whatever needs raw rows (standard
deviation ranges, Figure 4's sampled databases, the tight calibration on
data) comes from a seeded synthetic sample matching the published marginals;
everything so derived is labelled "synthetic".
"""

import csv
import math
import sys
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path

import numpy as np

from . import __version__
from ._closed_form import epsilon_for_rho, min_rho, risk_bound, scale_for_rho
from ._possible import Domain, dataset_sensitive_range, sensitive_range, world_values
from ._posterior import disclosure_risk, log_evidence, posterior
from ._worst_case import tight_epsilon, tight_scale, worst_case_risk

__all__ = ["run", "load_adult", "synthetic_rows", "ATTRIBUTES"]

# ---------------------------------------------------------------------------
# The paper's published facts (Lee and Clifton 2012; MATH.md sections 2-6).
# Strings keep the printed precision: comparisons round ours to it.

ATTRIBUTES = ("age", "educational-num", "capital-gain", "capital-loss", "hours-per-week")
#: Table 3 domains (integers lo..hi).
DOMAINS = {"age": (17, 90), "educational-num": (1, 16), "capital-gain": (0, 99999),
           "capital-loss": (0, 4356), "hours-per-week": (1, 99)}
PAPER_N = "48842"
PAPER_MEAN = {"age": "38.6436", "educational-num": "10.0781", "capital-gain": "1079.0676",
              "capital-loss": "87.5023", "hours-per-week": "40.4224"}
PAPER_STD = {"age": "13.7105", "educational-num": "2.5709", "capital-gain": "7452.019",
             "capital-loss": "403.0045", "hours-per-week": "12.3914"}
#: Table 4, scale of the mean query at rho = 0.1 and rho = 0.001.
PAPER_MEAN_SCALE = {
    0.1: {"age": "0.0007", "educational-num": "0.0006", "capital-gain": "0.2198",
          "capital-loss": "0.0144", "hours-per-week": "8.403207231434116e-4"},
    0.001: {"age": "inf", "educational-num": "inf", "capital-gain": "0.4445",
            "capital-loss": "0.0606", "hours-per-week": "inf"},
}
#: Table 4, sensitive range of the standard deviation (not reproducible, MATH.md s. 6).
PAPER_STD_RANGE = {"age": "0.0019", "educational-num": "0.0251", "capital-gain": "26.8833",
                   "capital-loss": "0.4623", "hours-per-week": "0.0056"}
#: The exact values on the Adult data (docs/worlds.md, MATH.md s. 6): check values.
ENGINE_STD_RANGE = {"age": "0.001969", "educational-num": "0.000328", "capital-gain": "13.4549",
                    "capital-loss": "0.4631", "hours-per-week": "0.002835"}
TABLE4_RHO = (0.1, 0.001)
#: Figures 2-4: rho = 0.5 / 8^k, k = 0..5.
FIGURE_RHO = tuple(0.5 / 8.0 ** k for k in range(6))
#: Figure 3, epsilon of capital-gain at FIGURE_RHO.
PAPER_FIG3_EPS = ("11.513", "8.805", "6.669", "4.582", "2.502", "0.423")
FIG3_ATTRIBUTES = ("capital-gain", "capital-loss")
FIG4_SIZES = (1000, 10000)
DRAWS = 1000
RESPONSES = 3

# The toy example (paper sec. 4): U = {1..10}, D' = {1, 3}.
TOY_UNIVERSE = tuple(range(1, 11))
TOY_KNOWN = (1, 3)
TOY_RHO = Fraction(1, 3)
#: The paper's world means and medians of the toy example (MATH.md s. 3).
TOY_PAPER_MEANS = ("2", "8/3", "3", "10/3", "11/3", "4", "13/3", "14/3")
TOY_PAPER_MEDIANS = ("2", "3", "3", "3", "3", "3", "3", "3")
TOY_REPORT_RHO = (0.15, 0.2, 1 / 3, 0.5, 0.9)  # rows of the report's tight-calibration table
# The worked posterior example (paper sec. 3.5): worlds {1,2,3,4}, {1,2,3,5}, {1,2,3,10}.
SEC35_WORLDS = ((1, 2, 3, 4), (1, 2, 3, 5), (1, 2, 3, 10))
SEC35_EPS = 2.0
SEC35_RESPONSE = 5.041
SEC35_LIKELIHOODS = ("0.0464", "0.0580", "0.1762")
SEC35_POSTERIOR = "0.6278"

EQUAL, DIFFERENT, NOT_REPRODUCIBLE, EMBEDDED = "equal", "different", "not reproducible", "embedded"


# ---------------------------------------------------------------------------
# Data


def load_adult(path):
    """The five numeric Adult columns of an Adult-format CSV file.

    Parameters
    ----------
    path : str or path-like
        A comma-separated file with a header row naming (at least) the
        columns ``age``, ``educational-num``, ``capital-gain``,
        ``capital-loss`` and ``hours-per-week``.

    Returns
    -------
    dict of str to ndarray
        One float64 array per attribute, in the file's row order.

    Raises
    ------
    ValueError
        With a one-line message when the file cannot be read, lacks a column,
        holds a non-numeric, non-finite or non-integer value, a value outside
        the paper's Table 3 domain, or fewer than two rows.

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
        for col, i in zip(ATTRIBUTES, idx):  # say which column is at fault
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


def synthetic_rows(seed=0, n=None):
    """A seeded synthetic stand-in for the Adult columns, within Table 3.

    Each column is integer-valued in its domain with roughly the published
    mean and sample standard deviation.  Where the published standard
    deviation is at most the distance of the mean from the lower end (age,
    educational-num, hours-per-week) the values are a normal around the
    published mean with the published standard deviation, rounded and
    clipped to the domain.  The heavily skewed columns (capital-gain,
    capital-loss) are zero-inflated: a share ``p = 2 d^2 / (s^2 + d^2)``
    (``d`` = mean minus lo, ``s`` = std) of the rows is lo plus a normal
    whose mean and standard deviation are both ``d / p`` (so that mixture
    matches d and s before clipping), the rest lo.

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
        For a seed that is neither an integer nor a SeedSequence (raised by
        NumPy).

    Examples
    --------
    >>> from diffident.replicate import synthetic_rows
    >>> rows = synthetic_rows(0, n=1000)
    >>> sorted(rows), rows["age"].shape
    (['age', 'capital-gain', 'capital-loss', 'educational-num', 'hours-per-week'], (1000,))
    >>> bool(rows["age"].min() >= 17 and rows["age"].max() <= 90)
    True
    """
    n = int(PAPER_N) if n is None else int(n)
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


# ---------------------------------------------------------------------------
# Comparison with printed values


def _exact_text(x):
    """Shortest repr of a float ('inf' for infinity)."""
    x = float(x)
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(x)


def _as_printed(paper, ours):
    """Ours rounded as the paper printed its value (a decimal string, 'inf'
    or a fraction 'a/b')."""
    if paper == "inf" or not math.isfinite(ours):
        return _exact_text(ours)
    if "/" in paper:
        return f"{ours:.4f}"
    d = Decimal(paper)
    return str(Decimal(ours).quantize(Decimal(1).scaleb(d.as_tuple().exponent), rounding=ROUND_HALF_UP))


def _compare(paper, ours):
    """Status of ours against a printed paper value: (status, ours as printed, note)."""
    ours = float(ours)
    if paper == "inf":
        return (EQUAL, _exact_text(ours), "") if math.isinf(ours) and ours > 0 else \
            (DIFFERENT, _exact_text(ours), "the paper prints infinity (not releasable); ours is finite")
    if not math.isfinite(ours):
        return DIFFERENT, _exact_text(ours), "ours is not finite"
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
    step = Decimal(1).scaleb(target.as_tuple().exponent)
    truncated = Decimal(ours).quantize(step, rounding=ROUND_DOWN)
    if truncated == target:
        return DIFFERENT, printed, (f"in the last printed digit only: ours is {ours!r}, which rounds to {printed}; "
                                    f"the paper's {paper} is ours truncated, not rounded")
    rel = abs(ours - float(paper)) / abs(float(paper)) if float(paper) != 0 else math.inf
    return DIFFERENT, printed, f"ours is {ours!r}, relative difference {rel:.2g}"


class _Checks:
    """The rows of the report's comparison table."""

    def __init__(self):
        self.rows = []

    def add(self, item, source, paper, ours, status=None, note="", printed=None):
        if status is None:
            status, auto_printed, auto_note = _compare(paper, ours)
            printed = auto_printed if printed is None else printed
            note = "; ".join(x for x in (auto_note, note) if x)
        if printed is None:
            printed = _exact_text(ours) if isinstance(ours, (float, np.floating)) else str(ours)
        self.rows.append({"item": item, "source": source, "paper": paper, "ours": printed,
                          "ours_full": _exact_text(ours) if isinstance(ours, (float, int, np.floating)) else str(ours),
                          "status": status, "note": note})
        return status

    def counts(self):
        out = {}
        for r in self.rows:
            out[r["status"]] = out.get(r["status"], 0) + 1
        return out


# ---------------------------------------------------------------------------
# Output helpers


def _cell(x):
    if isinstance(x, (bool, np.bool_)):
        return "true" if x else "false"
    if isinstance(x, (float, np.floating)):
        return _exact_text(x)
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    return str(x)


def _write_csv(path, header, rows):
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(header)
        for r in rows:
            w.writerow([_cell(x) for x in r])
    return path


def _fmt(x, digits=4):
    """A number for the report's prose tables."""
    x = float(x)
    if math.isinf(x):
        return "inf"
    if x == 0:
        return "0"
    if abs(x) >= 1e-3 and abs(x) < 1e6:
        return f"{x:.{digits}f}".rstrip("0").rstrip(".") if abs(x) >= 1 else f"{x:.{digits}g}"
    return f"{x:.{digits}g}"


def _pct(rho):
    return f"{100.0 * rho:.4g}%"


def _md_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    out += ["| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |" for r in rows]
    return "\n".join(out)


def _ratio_stats(r):
    """5th, 25th, 50th, 75th, 95th percentiles and mean of a ratio sample (NaN if none)."""
    if r is None:
        return [math.nan] * 6
    return [*np.percentile(r, [5, 25, 50, 75, 95]).tolist(), float(r.mean())]


# ---------------------------------------------------------------------------
# The parts of the replication


def _toy(checks):
    """Table 2, Figure 1 and the tight calibration of the toy example."""
    known = np.array(TOY_KNOWN, dtype=float)
    cands = np.array([u for u in TOY_UNIVERSE if u not in TOY_KNOWN], dtype=float)
    m = cands.size
    # one world per candidate: D' + {u}
    worlds = [np.sort(np.append(known, u)) for u in cands]
    means = np.array([w.mean() for w in worlds])
    medians = np.array([np.median(w) for w in worlds])
    s_mean = sensitive_range("mean", known, cands)
    s_median = sensitive_range("median", known, cands)
    mv, mc = world_values("mean", known, cands)
    dv, dc = world_values("median", known, cands)
    rho = float(TOY_RHO)
    lam = float(scale_for_rho(rho, m, s_mean))
    eps = float(epsilon_for_rho(rho, m))
    risk1 = float(disclosure_risk(means, means[0], lam, world=0))
    wc_mean, wc_world = worst_case_risk(mv, lam, counts=mc, return_world=True)
    lam_med = float(scale_for_rho(rho, m, s_median))
    wc_median = float(worst_case_risk(dv, lam_med, counts=dc))
    teps_mean = float(tight_epsilon(mv, rho, counts=mc))

    src4 = "paper sec. 4 (toy)"
    if m != len(TOY_PAPER_MEANS):
        raise AssertionError(f"the toy example has {m} worlds, the paper {len(TOY_PAPER_MEANS)}")
    known_txt = ", ".join(str(v) for v in TOY_KNOWN)
    for j in range(m):
        checks.add(f"toy world {j + 1} {{{known_txt}, {int(cands[j])}}}: mean", src4, TOY_PAPER_MEANS[j], means[j])
    same = [float(p) for p in TOY_PAPER_MEDIANS] == medians.tolist()
    checks.add(f"toy medians of worlds 1-{m}", src4, ", ".join(TOY_PAPER_MEDIANS),
               ", ".join(_fmt(x) for x in medians), status=EQUAL if same else DIFFERENT,
               note="" if same else "the worlds' medians differ")
    checks.add("toy S(mean)", src4, "8/3", s_mean)
    checks.add("toy S(median)", src4, "1", s_median)
    checks.add("toy scale of the mean at rho = 1/3", "MATH.md s. 3 check value",
               "2.128628267061142", lam)
    checks.add("toy epsilon at rho = 1/3, ln(7/2)", "MATH.md s. 3 check value", "1.2527629684953678", eps)
    checks.add("toy risk of world 1 at R = 2 (< 1/3)", src4, "0.2294", risk1)
    checks.add("toy risk of world 1 at R = 2, full precision", "MATH.md s. 3 check value",
               "0.22943826951692214", risk1)
    checks.add("toy mean: exact worst-case risk at the paper's scale (world 1 at R = 2)",
               "MATH.md s. 4 (beyond the paper)", "0.22943826951692214", float(wc_mean),
               note=f"attained by world {int(wc_world) + 1}")
    checks.add("toy median: the bound is attained, worst-case risk = rho", "MATH.md s. 3",
               "1/3", wc_median)
    # the tight calibration asks the computed risk to meet rho by its
    # rounding error bound (so that the exact risk does): its epsilon is
    # below the exact root by at most that relative bound, never above it
    exact_teps = 2.249596594583695
    rel = (exact_teps - teps_mean) / exact_teps
    conservative = 0.0 <= rel <= 1e-13
    checks.add("toy mean: tight epsilon at rho = 1/3", "MATH.md s. 4 (beyond the paper)",
               "2.249596594583695", teps_mean, status=EQUAL if conservative else None,
               printed=repr(teps_mean) if conservative else None,
               note=(f"below the exact root by a relative {rel:.1g}: the calibration's margin for rounding, "
                     "on the private side") if conservative else "")

    table2 = [(j + 1, int(cands[j]), " ".join(str(int(v)) for v in worlds[j]), means[j], medians[j])
              for j in range(m)]
    # Figure 1 and the tight-epsilon figure: a grid of rho, log-spaced
    grid = np.unique(np.concatenate([np.geomspace(0.1, 0.99, 121), TOY_REPORT_RHO]))
    rows_fig1, rows_tight = [], []
    for name, vals, cnt, s in (("mean", mv, mc, s_mean), ("median", dv, dc, s_median)):
        lam_g = scale_for_rho(grid, m, s)
        wc = worst_case_risk(vals, lam_g, counts=cnt)
        bound = risk_bound(lam_g, m, s)
        eps_paper = epsilon_for_rho(grid, m)
        t_lam = tight_scale(vals, grid, counts=cnt)
        t_eps = tight_epsilon(vals, grid, counts=cnt)
        wc_t = worst_case_risk(vals, t_lam, counts=cnt)
        for i, r in enumerate(grid):
            rows_fig1.append((name, r, 100.0 * r, m, s, lam_g[i], eps_paper[i], bound[i], wc[i]))
            rows_tight.append((name, r, 100.0 * r, m, s, eps_paper[i], lam_g[i], t_eps[i], t_lam[i], wc_t[i]))
    return {"m": m, "cands": cands, "worlds": worlds, "means": means, "medians": medians,
            "s_mean": s_mean, "s_median": s_median, "lam": lam, "eps": eps, "risk1": risk1,
            "wc_mean": float(wc_mean), "wc_median": wc_median, "teps_mean": teps_mean,
            "table2": table2, "fig1": rows_fig1, "tight": rows_tight, "min_rho": float(min_rho(m))}


def _sec35(checks):
    """The worked posterior example of paper sec. 3.5."""
    means = np.array([np.mean(w) for w in SEC35_WORLDS])
    # the paper's S for a mean of |D| = 4 values from U = {1..10}: (10 - 1) / 4
    s = (max(TOY_UNIVERSE) - min(TOY_UNIVERSE)) / len(SEC35_WORLDS[0])
    lam = s / SEC35_EPS
    like = np.exp([float(log_evidence([f], SEC35_RESPONSE, lam)) for f in means]) / (2.0 * lam)
    post = posterior(means, SEC35_RESPONSE, lam)
    src = "paper sec. 3.5"
    for j, p in enumerate(SEC35_LIKELIHOODS):
        checks.add(f"sec. 3.5 Laplace likelihood of world {j + 1} at R = 5.041", src, p, like[j])
    checks.add("sec. 3.5 posterior of world 3", src, SEC35_POSTERIOR, post[2])
    return {"means": means, "scale": lam, "likelihoods": like, "posterior": post}


def _adult_facts(rows, embedded):
    """n, true means and standard deviations: published (embedded) or of the rows."""
    n = int(PAPER_N) if embedded else int(rows[ATTRIBUTES[0]].size)
    if embedded:
        mean = {c: float(PAPER_MEAN[c]) for c in ATTRIBUTES}
        std = {c: float(PAPER_STD[c]) for c in ATTRIBUTES}
    else:
        mean = {c: float(rows[c].mean()) for c in ATTRIBUTES}
        std = {c: float(rows[c].std(ddof=1)) for c in ATTRIBUTES}
    return n, mean, std


def _table4(checks, rows, embedded, rows_label, rng):
    """Table 4 (mean and std rows) and its tight-calibration extension."""
    n, mean, std = _adult_facts(rows, embedded)
    src = "paper Table 4"
    if embedded:
        checks.add("Adult n", "paper sec. 5", PAPER_N, n, status=EMBEDDED, printed=str(n),
                   note="the published value, embedded (no data file)")
    else:
        checks.add("Adult n (data rows)", "paper sec. 5", PAPER_N, n)
    table, tight, facts = [], [], {}
    for col in ATTRIBUTES:
        lo, hi = DOMAINS[col]
        x = rows[col]
        m = hi - lo + 1
        dom = Domain(lo, hi)
        if embedded:
            checks.add(f"{col}: domain (Table 3)", "paper Table 3", f"{lo}..{hi}", f"{lo}..{hi}", status=EMBEDDED,
                       printed=f"{lo}..{hi}", note="embedded; the synthetic rows are clipped to it")
            checks.add(f"{col}: mean", "paper Table 4", PAPER_MEAN[col], mean[col], status=EMBEDDED,
                       printed=PAPER_MEAN[col], note="the published value, embedded")
            checks.add(f"{col}: sample std", "paper Table 4", PAPER_STD[col], std[col], status=EMBEDDED,
                       printed=PAPER_STD[col], note="the published value, embedded")
        else:
            seen = f"{int(x.min())}..{int(x.max())}"
            checks.add(f"{col}: domain (Table 3) against the data's min..max", "paper Table 3", f"{lo}..{hi}", seen,
                       status=EQUAL if seen == f"{lo}..{hi}" else DIFFERENT, printed=seen,
                       note="" if seen == f"{lo}..{hi}" else "the data do not reach an end of the domain "
                       "(the domain, not the data, sets m and S)")
            checks.add(f"{col}: mean", "paper Table 4", PAPER_MEAN[col], mean[col])
            checks.add(f"{col}: sample std (ddof = 1)", "paper Table 4", PAPER_STD[col], std[col])
        s_mean = (hi - lo) / n
        s_mean_rows = dataset_sensitive_range("mean", x, dom)
        s_std, removed = dataset_sensitive_range("std", x, dom, ddof=1, return_removed=True)
        facts[col] = {"lo": lo, "hi": hi, "m": m, "n": n, "mean": mean[col], "std": std[col],
                      "s_mean": s_mean, "s_mean_rows": s_mean_rows, "s_std": s_std,
                      "removed": int(removed[0]), "scales": {}}
        checks.add(f"{col}: S(std), max over D' = D - i*", src, PAPER_STD_RANGE[col], s_std,
                   status=NOT_REPRODUCIBLE, printed=_fmt(s_std, 6),
                   note=("exact value on the " + ("synthetic rows" if embedded else "Adult rows")
                         + " (k = 1, the Table 3 integer domain, ddof = 1); see 'The standard-deviation column'"))
        if not embedded:
            checks.add(f"{col}: S(std) exact on the Adult rows", "MATH.md s. 6 / docs/worlds.md check value",
                       ENGINE_STD_RANGE[col], s_std)
        for rho in TABLE4_RHO:
            eps = float(epsilon_for_rho(rho, m))
            for query, s, true in (("mean", s_mean, mean[col]), ("std", s_std, std[col])):
                lam = float(scale_for_rho(rho, m, s))
                resp = true + rng.laplace(0.0, lam, RESPONSES) if math.isfinite(lam) else np.full(RESPONSES, math.inf)
                paper = PAPER_MEAN_SCALE[rho][col] if query == "mean" else ""
                table.append((col, query, rows_label if query == "std" else ("published n" if embedded else rows_label),
                              lo, hi, m, n, true, "published" if embedded else rows_label, s, rho, eps, lam, paper,
                              *resp))
                facts[col]["scales"][(query, rho)] = (lam, resp)
                if query == "mean":
                    note = ""
                    if math.isfinite(lam) and "e" in paper:
                        raw = s / math.log((m - 1) * rho / (1 - rho))
                        if raw != lam:
                            note = (f"the plain formula S / ln((m-1) rho / (1-rho)) gives {raw!r}; diffident "
                                    f"rounds the scale up so that risk_bound(scale) <= rho holds in floating point")
                    if not math.isfinite(lam):
                        note = f"rho = {rho} < 1/m = {1 / m:.4g}: not releasable"
                    checks.add(f"{col}: scale of the mean at rho = {rho}", src, paper, lam, note=note)
        # beyond the paper: the tight scale over the worlds of the D' attaining S(std)
        keep_out = facts[col]["removed"]
        known = np.delete(x, keep_out)
        rhos = np.array(TABLE4_RHO)
        for query in ("mean", "std"):
            vals, cnt = world_values(query, known, dom, ddof=1 if query == "std" else 0)
            s_here = float(vals[-1] - vals[0])
            lam_p = scale_for_rho(rhos, m, s_here)
            t_lam = tight_scale(vals, rhos, counts=cnt)
            t_eps = tight_epsilon(vals, rhos, counts=cnt)
            wc_p = worst_case_risk(vals, lam_p, counts=cnt)
            wc_t = worst_case_risk(vals, t_lam, counts=cnt)
            for i, rho in enumerate(TABLE4_RHO):
                finite = math.isfinite(lam_p[i]) and t_lam[i] > 0
                tight.append((col, query, rows_label, keep_out, rho, m, s_here, float(epsilon_for_rho(rho, m)),
                              lam_p[i], wc_p[i], t_eps[i], t_lam[i], wc_t[i],
                              lam_p[i] / t_lam[i] if finite else math.nan))
    return {"n": n, "facts": facts, "table": table, "tight": tight}


def _noise_ratio_cell(rng, scale, true):
    """|Laplace noise| / |true value| for DRAWS draws; None where the scale is infinite."""
    if not math.isfinite(scale) or true == 0:
        return None
    return np.abs(rng.laplace(0.0, scale, DRAWS)) / abs(true)


def _figure2(checks, n, mean, rows_label, embedded, rng):
    """Figures 2 and 3: noise ratio of the mean query at the paper's scale."""
    cells = []
    for col in ATTRIBUTES:
        lo, hi = DOMAINS[col]
        m = hi - lo + 1
        s = (hi - lo) / n
        for k, rho in enumerate(FIGURE_RHO):
            eps = float(epsilon_for_rho(rho, m))
            lam = float(scale_for_rho(rho, m, s))
            r = _noise_ratio_cell(rng, lam, mean[col])
            cells.append({"attribute": col, "k": k, "rho": rho, "m": m, "n": n, "s": s, "epsilon": eps,
                          "scale": lam, "true": mean[col], "ratio": r,
                          "source": "published mean" if embedded else rows_label})
    for k, rho in enumerate(FIGURE_RHO):
        c = next(c for c in cells if c["attribute"] == "capital-gain" and c["k"] == k)
        checks.add(f"Figure 3: capital-gain epsilon at rho = 0.5/8^{k} = {_pct(rho)}", "paper Figure 3",
                   PAPER_FIG3_EPS[k], c["epsilon"])
    return cells


def _figure4(rows, rows_label, rng_sample, rng_draws, notes):
    """Figure 4: mean and sum queries on sampled databases of FIG4_SIZES rows."""
    n_all = rows[ATTRIBUTES[0]].size
    cells, identity = [], 0.0
    for size in FIG4_SIZES:
        if size > n_all:
            notes.append(f"Figure 4: a database of {size} rows cannot be sampled from {n_all} rows: skipped")
            continue
        pick = np.sort(rng_sample.choice(n_all, size=size, replace=False))
        for col in ATTRIBUTES:
            lo, hi = DOMAINS[col]
            m = hi - lo + 1
            x = rows[col][pick]
            pair = {}
            for query, s, true in (("mean", (hi - lo) / size, float(x.mean())),
                                   ("sum", float(hi - lo), float(x.sum()))):
                for k, rho in enumerate(FIGURE_RHO):
                    lam = float(scale_for_rho(rho, m, s))
                    r = _noise_ratio_cell(rng_draws, lam, true)
                    cells.append({"attribute": col, "query": query, "size": size, "k": k, "rho": rho, "m": m,
                                  "s": s, "epsilon": float(epsilon_for_rho(rho, m)), "scale": lam, "true": true,
                                  "ratio": r, "source": rows_label, "sample": pick})
                    if math.isfinite(lam) and true != 0:
                        pair.setdefault(k, []).append(lam / abs(true))
            for v in pair.values():
                if len(v) == 2:
                    identity = max(identity, abs(v[1] / v[0] - 1.0))
    return cells, identity


# ---------------------------------------------------------------------------
# Writing


def _ratio_rows(cells, keys):
    summary, draws = [], []
    for c in cells:
        key = [c[k] for k in keys]
        releasable = c["ratio"] is not None
        summary.append((*key, 100.0 * c["rho"], c["m"], c["s"], c["epsilon"], c["scale"], c["true"], c["source"],
                        DRAWS if releasable else 0, releasable, *_ratio_stats(c["ratio"])))
        if releasable:
            draws.append((*key, *c["ratio"].tolist()))
    return summary, draws


_STATS = ["p5", "q1", "median", "q3", "p95", "mean_ratio"]


def _progress(on, msg):
    if on:
        print(f"diffident replicate: {msg}", file=sys.stderr, flush=True)


def run(out_dir, data=None, seed=0, progress=False):
    """Replicate Lee and Clifton (KDD 2012): figures, tables and a report.

    Parameters
    ----------
    out_dir : str or path-like
        Output directory (created if missing).  Receives ``report.md``, one
        CSV per table and figure, and PNG figures when matplotlib is
        installed.
    data : str or path-like, optional
        An Adult-format CSV file (header naming ``age``,
        ``educational-num``, ``capital-gain``, ``capital-loss``,
        ``hours-per-week``).  ``None`` (default) uses the paper's published
        facts and a seeded synthetic sample (`synthetic_rows`) for
        whatever needs raw rows.
    seed : int
        Seed (>= 0) of every random draw: synthetic rows, sampled responses,
        noise draws and Figure 4's sampled databases.
    progress : bool
        Print one line per stage on standard error.

    Returns
    -------
    dict
        ``report`` (path of report.md), ``figures`` and ``tables`` (lists of
        paths), ``plots`` (whether figures were drawn), ``source`` (where the
        rows came from), ``notes`` (list of str), ``summary`` (status ->
        number of compared values).

    Raises
    ------
    ValueError
        For an unreadable data file, a missing, non-numeric or out-of-domain
        column (one-line message), or a bad seed.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from diffident.replicate import run
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     result = run(Path(tmp) / "replication")
    ...     print(Path(result["report"]).name, result["summary"]["equal"] > 0)
    report.md True
    """
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    out = Path(out_dir)
    embedded = data is None
    rows = None if embedded else load_adult(data)  # raises before anything is written
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"cannot create the output directory {out}: {exc.strerror or exc}") from None
    # the synthetic rows use SeedSequence(seed) itself; the draws its children
    ss = np.random.SeedSequence(int(seed)).spawn(4)
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
    checks = _Checks()
    _progress(progress, "sec. 3.5 and the toy example (Table 2, Figure 1)")
    sec35 = _sec35(checks)
    toy = _toy(checks)
    _progress(progress, "Table 4")
    t4 = _table4(checks, rows, embedded, rows_label, np.random.default_rng(ss[0]))
    n = t4["n"]
    mean = {c: t4["facts"][c]["mean"] for c in ATTRIBUTES}
    _progress(progress, "Figures 2 and 3")
    fig2 = _figure2(checks, n, mean, rows_label, embedded, np.random.default_rng(ss[1]))
    _progress(progress, "Figure 4")
    fig4, identity = _figure4(rows, rows_label, np.random.default_rng(ss[2]), np.random.default_rng(ss[3]), notes)

    _progress(progress, "writing the tables")
    tables = {}
    tables["table2"] = _write_csv(out / "table2_toy_worlds.csv",
                                  ["world", "unknown_value", "world_values", "mean", "median"], toy["table2"])
    tables["sec35"] = _write_csv(out / "sec35_posterior.csv", ["world", "values", "mean", "scale", "response",
                                                               "likelihood", "posterior"],
                                 [(j + 1, " ".join(map(str, w)), sec35["means"][j], sec35["scale"], SEC35_RESPONSE,
                                   sec35["likelihoods"][j], sec35["posterior"][j]) for j, w in enumerate(SEC35_WORLDS)])
    tables["fig1"] = _write_csv(out / "fig1_toy_risk.csv", ["query", "rho", "rho_percent", "m", "sensitive_range",
                                                            "paper_scale", "paper_epsilon", "risk_bound",
                                                            "worst_case_risk"], toy["fig1"])
    tables["tight"] = _write_csv(out / "fig_tight_epsilon.csv", ["query", "rho", "rho_percent", "m", "sensitive_range",
                                                                 "paper_epsilon", "paper_scale", "tight_epsilon",
                                                                 "tight_scale", "worst_case_risk_at_tight_scale"],
                                 toy["tight"])
    tables["table4"] = _write_csv(out / "table4.csv", ["attribute", "query", "rows", "lo", "hi", "m", "n", "true_value",
                                                       "true_value_source", "sensitive_range", "rho", "epsilon",
                                                       "scale", "paper_scale"]
                                  + [f"response_{i + 1}" for i in range(RESPONSES)], t4["table"])
    tables["table4_tight"] = _write_csv(out / "table4_tight.csv", [
        "attribute", "query", "rows", "removed_index", "rho", "m", "sensitive_range", "paper_epsilon", "paper_scale",
        "worst_case_risk_at_paper_scale", "tight_epsilon", "tight_scale", "worst_case_risk_at_tight_scale",
        "paper_scale_over_tight_scale"], t4["tight"])
    head = ["rho_percent", "m", "sensitive_range", "epsilon", "scale", "true_value", "true_value_source", "draws",
            "releasable"] + _STATS
    s2, d2 = _ratio_rows(fig2, ["attribute", "k", "rho"])
    tables["fig2"] = _write_csv(out / "fig2_noise_ratio.csv", ["attribute", "k", "rho"] + head, s2)
    tables["fig2_draws"] = _write_csv(out / "fig2_noise_ratio_draws.csv",
                                      ["attribute", "k", "rho"] + [f"r{i}" for i in range(DRAWS)], d2)
    fig3_cells = [c for c in fig2 if c["attribute"] in FIG3_ATTRIBUTES]
    s3, _ = _ratio_rows(fig3_cells, ["attribute", "k", "rho"])
    s3 = [(*r, PAPER_FIG3_EPS[r[1]] if r[0] == "capital-gain" else "") for r in s3]
    tables["fig3"] = _write_csv(out / "fig3_noise_ratio_epsilon.csv", ["attribute", "k", "rho"] + head
                                + ["paper_epsilon"], s3)
    s4, d4 = _ratio_rows(fig4, ["attribute", "query", "size", "k", "rho"])
    tables["fig4"] = _write_csv(out / "fig4_db_size.csv", ["attribute", "query", "size", "k", "rho"] + head, s4)
    tables["fig4_draws"] = _write_csv(out / "fig4_db_size_draws.csv", ["attribute", "query", "size", "k", "rho"]
                                      + [f"r{i}" for i in range(DRAWS)], d4)
    checks_csv = _write_csv(out / "comparison.csv", ["item", "source", "paper", "ours", "ours_full", "status", "note"],
                            [(r["item"], r["source"], r["paper"], r["ours"], r["ours_full"], r["status"], r["note"])
                             for r in checks.rows])
    tables["comparison"] = checks_csv

    _progress(progress, "drawing the figures")
    figures, plots = {}, False
    try:
        from . import _plots
        why = _plots.unavailable()
    except ImportError as exc:  # pragma: no cover - _plots itself imports nothing optional
        why = str(exc)
    if why is None:
        figures = _plots.draw_all(out, toy=toy, fig2=fig2, fig4=fig4, rows_label=rows_label, embedded=embedded)
        plots = True
    else:
        notes.append(f"matplotlib is not available ({why}): figures skipped; the CSV files hold their data.")

    _progress(progress, "writing the report")
    report = out / "report.md"
    report.write_text(_report(checks, toy, sec35, t4, fig2, fig4, identity, tables, figures, plots, source,
                              rows_label, embedded, seed, notes, data))
    return {"report": str(report), "figures": [str(p) for p in figures.values()],
            "tables": [str(p) for p in tables.values()], "plots": plots, "source": source, "notes": notes,
            "summary": checks.counts()}


# ---------------------------------------------------------------------------
# The report


def _link(path):
    return f"[{Path(path).name}]({Path(path).name})"


def _report(checks, toy, sec35, t4, fig2, fig4, identity, tables, figures, plots, source, rows_label, embedded, seed,
            notes, data):
    L = []
    add = L.append
    counts = checks.counts()
    add('# Replication of Lee and Clifton, "Differential Identifiability" (KDD 2012)')
    add("")
    add(f"Produced by `diffident.replicate.run` (diffident {__version__}) with seed {seed}.")
    add("")
    add(f"* **Rows:** {source}." + (" The paper's published facts (Table 3 domains, n, means and standard "
                                     "deviations) and the toy example are embedded; whatever needs raw rows "
                                     "(standard-deviation ranges, Figure 4's sampled databases, the tight "
                                     "calibration on data) uses a seeded synthetic sample, labelled *synthetic*."
                                     if embedded else " Every number derived from rows uses these rows."))
    add(f"* **Seed:** {seed} (numpy `SeedSequence({seed})` for the synthetic rows, `synthetic_rows({seed})`; its "
        "spawned children for Table 4's responses, Figures 2-3 and Figure 4's sampling and draws).")
    add("* **Figures:** " + ("drawn with matplotlib (Agg), 100 dpi." if plots else
                             "not drawn (matplotlib is not available); the CSV files hold their data."))
    add("")
    add("## Summary")
    add("")
    parts = [f"{counts.get(k, 0)} {k}" for k in (EQUAL, DIFFERENT, NOT_REPRODUCIBLE)]
    if counts.get(EMBEDDED):
        parts.append(f"{counts[EMBEDDED]} {EMBEDDED} (the published value is an input here, not recomputed)")
    add(f"{len(checks.rows)} values of the paper (and the check values of MATH.md) compared: " + ", ".join(parts) + ".")
    add("")
    for status in (DIFFERENT, NOT_REPRODUCIBLE):
        rows = [r for r in checks.rows if r["status"] == status]
        if rows:
            add(f"**{status.capitalize()}:**")
            add("")
            for r in rows:
                add(f"* {r['item']}: paper {r['paper']}, ours {r['ours']}" + (f" ({r['note']})" if r["note"] else ""))
            add("")
    qualified = [r for r in checks.rows if r["status"] == EQUAL and "ulp" in r["note"]]
    if qualified:
        add("**Equal, with a remark** (a full double printed by the source, whose last digit is representation):")
        add("")
    for r in qualified:
        add(f"* {r['item']}: paper {r['paper']}, ours {r['ours_full']}: {r['note']}.")
    if qualified:
        add("")
    add("## Comparison with the paper")
    add("")
    add("`ours` is rounded as the paper printed its value; `comparison.csv` has the full-precision value. Status: "
        "*equal* to the paper's printed precision, *different* (with why), *not reproducible* (see the "
        "standard-deviation column below)" + (", *embedded* (the published value is used as an input)."
                                              if embedded else "."))
    add("")
    add(_md_table(["item", "source", "paper", "ours", "status", "note"],
                  [(r["item"], r["source"], r["paper"], r["ours"], r["status"], r["note"]) for r in checks.rows]))
    add("")

    # sec. 3.5
    add("## 1. The worked posterior (paper sec. 3.5)")
    add("")
    add(f"Worlds {', '.join('{' + ', '.join(map(str, w)) + '}' for w in SEC35_WORLDS)}, f = mean, epsilon = "
        f"{SEC35_EPS:g}, Laplace scale {_fmt(sec35['scale'])}, response R = {SEC35_RESPONSE}.")
    add("")
    add(_md_table(["world", "mean", "Laplace density at R", "posterior"],
                  [(j + 1, _fmt(sec35["means"][j]), _fmt(sec35["likelihoods"][j]), _fmt(sec35["posterior"][j]))
                   for j in range(len(SEC35_WORLDS))]))
    add("")
    add(f"Data: {_link(tables['sec35'])}.")
    add("")

    # toy
    m = toy["m"]
    add("## 2. The toy example: Table 2 and Figure 1 (paper sec. 4)")
    add("")
    add(f"U = {{1..10}}, D' = {{{', '.join(map(str, TOY_KNOWN))}}}, candidates "
        f"{', '.join(str(int(c)) for c in toy['cands'])}: m = {m} worlds.")
    add("")
    add(_md_table(["world", "D' + {u}", "mean", "median"],
                  [(w, v, _fmt(mu), _fmt(md)) for w, _, v, mu, md in toy["table2"]]))
    add("")
    add(f"S(mean) = {_fmt(toy['s_mean'])} (8/3), S(median) = {_fmt(toy['s_median'])}. At rho = 1/3 the paper's "
        f"scale for the mean is {_fmt(toy['lam'])} (epsilon = ln(7/2) = {_fmt(toy['eps'])}), and world 1's risk at "
        f"R = 2 is {_fmt(toy['risk1'])} < 1/3. That is also the exact worst case over every response and world "
        f"({_fmt(toy['wc_mean'])}): the bound over-calibrates the mean. For the median the bound is attained "
        f"(worst-case risk {_fmt(toy['wc_median'])} = 1/3).")
    add("")
    gap = {}
    for q in ("mean", "median"):
        rr = [r for r in toy["fig1"] if r[0] == q and math.isfinite(r[5])]
        gap[q] = max(r[7] - r[8] for r in rr)
    add(f"Figure 1 plots the exact worst-case risk at the paper's scale against rho, with the bound (risk = rho). "
        f"Largest gap bound minus exact risk over the plotted grid: {_fmt(gap['mean'])} for the mean, "
        f"{_fmt(gap['median'], 3)} for the median. Below rho = 1/m = {_fmt(toy['min_rho'])} no finite scale works "
        f"(shaded).")
    add("")
    if "fig1" in figures:
        add(f"![Figure 1: exact worst-case risk of the toy example at the paper's scale]({Path(figures['fig1']).name})")
        add("")
    add(f"Data: {_link(tables['table2'])}, {_link(tables['fig1'])}.")
    add("")

    add("## 3. Tight calibration (the notebook extension, beyond the paper)")
    add("")
    add("The tight epsilon (`tight_epsilon`: the largest epsilon, i.e. the least noise, whose *exact* worst-case "
        "risk is <= rho) beside the paper's epsilon = ln((m - 1) rho / (1 - rho)), toy example.")
    add("")
    trows = []
    for r in toy["tight"]:
        if any(abs(r[1] - x) <= 1e-15 for x in TOY_REPORT_RHO):
            trows.append((r[0], _pct(r[1]), _fmt(r[5]), _fmt(r[7]), _fmt(r[7] / r[5], 3) if r[5] > 0 else "",
                          _fmt(r[9])))
    add(_md_table(["query", "rho", "paper epsilon", "tight epsilon", "tight / paper", "exact risk at tight scale"],
                  trows))
    add("")
    if "tight" in figures:
        add(f"![Tight epsilon against the paper's epsilon]({Path(figures['tight']).name})")
        add("")
    add(f"Data: {_link(tables['tight'])}.")
    add("")

    # Table 4
    add("## 4. Table 4 (paper sec. 5, Adult)")
    add("")
    n = t4["n"]
    facts = t4["facts"]
    add(f"n = {n}, k = 1, m = hi - lo + 1 (Table 3 domains), S(mean) = (hi - lo)/n, S(std) = "
        "`dataset_sensitive_range('std', column, Domain(lo, hi), ddof=1)` (the maximum over D' = D - i*) on the "
        + ("synthetic rows" if embedded else "Adult rows") + ". "
        f"Responses: true value + Laplace noise at the scale, {RESPONSES} seeded draws per cell; *inf* = not "
        "releasable (rho < 1/m). True values: " + ("the published means and standard deviations."
                                                   if embedded else "the rows' means and sample standard deviations."))
    add("")
    for query in ("mean", "std"):
        hdr = ["attribute", "lo..hi", "m", query, f"S({query})"]
        for rho in TABLE4_RHO:
            hdr += [f"scale, rho = {rho}"] + (["paper"] if query == "mean" else []) + [f"responses, rho = {rho}"]
        if query == "std":
            hdr.insert(5, "paper S(std)")
        body = []
        for col in ATTRIBUTES:
            f = facts[col]
            row = [col, f"{f['lo']}..{f['hi']}", f["m"], _fmt(f[query]), _fmt(f["s_" + query], 6)]
            if query == "std":
                row.append(PAPER_STD_RANGE[col])
            for rho in TABLE4_RHO:
                lam, resp = f["scales"][(query, rho)]
                row.append(_fmt(lam, 6))
                if query == "mean":
                    row.append(PAPER_MEAN_SCALE[rho][col])
                row.append("not releasable" if not math.isfinite(lam) else ", ".join(_fmt(x, 6) for x in resp))
            body.append(row)
        add(f"**{query} query**" + (" (S(std) on the synthetic rows)" if (query == "std" and embedded) else ""))
        add("")
        add(_md_table(hdr, body))
        add("")
    add("**Beyond the paper: tight scales.** The worlds D' + {v}, v in lo..hi, for the D' that attains S "
        "(the removed individual in `removed_index`); the exact worst-case risk at the paper's scale, and the "
        "tight scale (`tight_scale`) that meets rho exactly.")
    add("")
    body = []
    for r in t4["tight"]:
        col, query, _, removed, rho, mm, s, eps_p, lam_p, wc_p, t_eps, t_lam, wc_t, factor = r
        body.append((col, query, rho, _fmt(lam_p, 6), _fmt(wc_p, 6), _fmt(t_lam, 6), _fmt(wc_t, 6),
                     _fmt(factor, 4) if math.isfinite(factor) else "-"))
    add(_md_table(["attribute", "query", "rho", "paper scale", "exact risk at paper scale", "tight scale",
                   "exact risk at tight scale", "paper / tight"], body))
    add("")
    add(f"Data: {_link(tables['table4'])}, {_link(tables['table4_tight'])}.")
    add("")
    add("### The standard-deviation column (not reproducible)")
    add("")
    add("The paper's Table 4 lists S(std) as " + ", ".join(PAPER_STD_RANGE[c] for c in ATTRIBUTES)
        + f" ({', '.join(ATTRIBUTES)}). The definition (MATH.md s. 6: S(f) = max over D' = D - i* of the largest "
        "difference of f between two possible worlds), computed exactly with k = 1, the integer domains of "
        "Table 3 and the sample standard deviation, gives on the Adult data "
        + ", ".join(ENGINE_STD_RANGE[c] for c in ATTRIBUTES)
        + " (MATH.md s. 6, docs/worlds.md): three of the five differ by factors of about 2 to 77, and no "
        "convention tried (ddof 0 or 1, which individual is removed, the domain or the observed range) "
        "reproduces them; the public re-implementation of the paper could not either. This run's values: "
        + ", ".join(f"{c} {_fmt(facts[c]['s_std'], 6)}" for c in ATTRIBUTES)
        + (" (on the synthetic rows, so they match neither column; run with the Adult data for the exact values)."
           if embedded else "."))
    add("")

    # Figures 2-4
    add("## 5. Noise ratio: Figures 2, 3 and 4")
    add("")
    add(f"Noise ratio = |Laplace noise| / true value, {DRAWS} draws per cell, at the paper's scale for rho = "
        "0.5/8^k, k = 0..5 (" + ", ".join(_pct(r) for r in FIGURE_RHO) + "). Boxes: quartiles and median; "
        "whiskers: 5th and 95th percentiles. Cells with rho < 1/m are not releasable (infinite scale) and are "
        "marked, not drawn.")
    add("")
    add("**Figure 2** (mean query, n = " + str(n) + ", true value: " +
        ("the published mean" if embedded else "the rows' mean") + "): median noise ratio")
    add("")
    body = []
    for col in ATTRIBUTES:
        cs = [c for c in fig2 if c["attribute"] == col]
        body.append([col] + [_fmt(np.median(c["ratio"]), 3) if c["ratio"] is not None else "not releasable"
                             for c in cs])
    add(_md_table(["attribute"] + [_pct(r) for r in FIGURE_RHO], body))
    add("")
    if "fig2" in figures:
        add(f"![Figure 2: noise ratio of the mean query against rho]({Path(figures['fig2']).name})")
        add("")
    add(f"Data: {_link(tables['fig2'])} (summary), {_link(tables['fig2_draws'])} (every draw).")
    add("")
    add("**Figure 3**: the same draws against the paper's epsilon = ln((m - 1) rho / (1 - rho)).")
    add("")
    body = []
    for k, rho in enumerate(FIGURE_RHO):
        row = [_pct(rho)]
        for col in FIG3_ATTRIBUTES:
            c = next(c for c in fig2 if c["attribute"] == col and c["k"] == k)
            row.append(f"{c['epsilon']:.3f}" if c["epsilon"] > 0 else "0 (not releasable)")
            if col == "capital-gain":
                row.append(PAPER_FIG3_EPS[k])
        body.append(row)
    add(_md_table(["rho", "capital-gain epsilon", "paper", "capital-loss epsilon"], body))
    add("")
    if "fig3" in figures:
        add(f"![Figure 3: noise ratio against epsilon]({Path(figures['fig3']).name})")
        add("")
    add(f"Data: {_link(tables['fig3'])}.")
    add("")
    sizes = sorted({c["size"] for c in fig4})
    add(f"**Figure 4**: mean and sum queries on databases of {' and '.join(str(s) for s in sizes)} rows sampled "
        f"(seeded, without replacement) from the {rows_label} rows; S(mean) = (hi - lo)/size, S(sum) = hi - lo, "
        "m = hi - lo + 1. Median noise ratio of the mean query:")
    add("")
    body = []
    for size in sizes:
        for col in ATTRIBUTES:
            cs = [c for c in fig4 if c["attribute"] == col and c["size"] == size and c["query"] == "mean"]
            body.append([size, col] + [_fmt(np.median(c["ratio"]), 3) if c["ratio"] is not None
                                       else "not releasable" for c in cs])
    add(_md_table(["rows", "attribute"] + [_pct(r) for r in FIGURE_RHO], body))
    add("")
    add(f"The sum's scale is `size` times the mean's and so is its true value, so the two queries have the same "
        f"noise-ratio distribution (largest relative difference of scale / true value between them: "
        f"{identity:.2g}); their boxes differ only by sampling.")
    if len(sizes) == 2:
        q = []
        for col in ATTRIBUTES:
            a = [c for c in fig4 if c["attribute"] == col and c["size"] == sizes[0] and c["query"] == "mean"]
            b = [c for c in fig4 if c["attribute"] == col and c["size"] == sizes[1] and c["query"] == "mean"]
            for x, y in zip(a, b):
                if x["ratio"] is not None and y["ratio"] is not None:
                    q.append(np.median(x["ratio"]) / np.median(y["ratio"]))
        if q:
            add(f" Ten times the rows gives about a tenth of the noise ratio: the median ratio at {sizes[0]} rows "
                f"over that at {sizes[1]} rows is {_fmt(min(q), 3)} to {_fmt(max(q), 3)} over the releasable "
                "cells.")
    add("")
    if "fig4" in figures:
        add(f"![Figure 4: noise ratio of mean and sum queries by database size]({Path(figures['fig4']).name})")
        add("")
    add(f"Data: {_link(tables['fig4'])} (summary), {_link(tables['fig4_draws'])} (every draw).")
    add("")

    add("## Files")
    add("")
    for key, p in tables.items():
        add(f"* {_link(p)}")
    for key, p in figures.items():
        add(f"* {_link(p)}")
    add("")
    add("## Notes")
    add("")
    for note in notes:
        add(f"* {note}")
    add("* Scales and epsilons are diffident's closed forms (`scale_for_rho`, `epsilon_for_rho`), which round "
        "toward the private side by at most a few ulps; worst-case risks and tight calibrations are exact "
        "(MATH.md s. 4-5).")
    add("* Status rules: a value is *equal* when ours, rounded half-up to the paper's printed digits, reads the "
        "same (a full double printed to 16-17 digits may differ by 2 ulps); fractions such as 8/3 are compared to "
        "double precision.")
    add("")
    return "\n".join(L)
