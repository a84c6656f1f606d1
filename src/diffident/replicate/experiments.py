"""The computations of the replication, on diffident's public API."""

import math
from typing import NamedTuple

import numpy as np

import diffident as di

from .checks import DIFFERENT, EMBEDDED, EQUAL, NOT_REPRODUCIBLE, Checks, fmt, pct
from .paper import (
    ADULT_N,
    ATTRIBUTES,
    DOMAINS,
    ENGINE_STD_RANGE,
    FIG4_SIZES,
    FIGURE_RHO,
    PAPER_FIG3_EPS,
    PAPER_MEAN,
    PAPER_MEAN_SCALE,
    PAPER_N,
    PAPER_STD,
    PAPER_STD_RANGE,
    SEC35_EPS,
    SEC35_LIKELIHOODS,
    SEC35_POSTERIOR,
    SEC35_RESPONSE,
    SEC35_WORLDS,
    TABLE4_RHO,
    TOY_CHECK_EPS,
    TOY_CHECK_RISK1,
    TOY_CHECK_SCALE,
    TOY_CHECK_TIGHT_EPS,
    TOY_KNOWN,
    TOY_PAPER_MEANS,
    TOY_PAPER_MEDIANS,
    TOY_PAPER_RISK1,
    TOY_PAPER_S_MEAN,
    TOY_PAPER_S_MEDIAN,
    TOY_RHO,
    TOY_UNIVERSE,
)
from .rows import Sec35Row, Table2Row, Table4Row, Table4TightRow, ToyPoint

__all__ = ["DRAWS", "RESPONSES", "TOY_REPORT_RHO", "sec35", "toy", "adult_facts", "table4", "noise_ratio", "figure2",
           "figure4", "Results", "compute"]

#: Noise draws per box of Figures 2 to 4.
DRAWS = 1000
#: Sampled responses per cell of Table 4.
RESPONSES = 3
#: The rows of the report's tight-calibration table (also in the rho grid).
TOY_REPORT_RHO = (0.15, 0.2, 1 / 3, 0.5, 0.9)


class _Calibration(NamedTuple):
    """The paper's and the tight calibration of one set of worlds over rho."""

    paper_scale: np.ndarray
    worst_case_at_paper: np.ndarray
    expected_at_paper: np.ndarray
    tight_scale: np.ndarray
    tight_epsilon: np.ndarray
    worst_case_at_tight: np.ndarray


def _calibrate(values, counts, rho, m, s):
    """The paper's and the tight scale, their worst cases and the expected success."""
    lam = di.scale_for_rho(rho, m=m, sensitive_range=s)
    tight = di.tight_scale(values, rho=rho, counts=counts)
    return _Calibration(lam, di.worst_case_risk(values, scale=lam, counts=counts),
                        di.expected_risk(values, scale=lam, counts=counts), tight,
                        di.tight_epsilon(values, rho=rho, counts=counts),
                        di.worst_case_risk(values, scale=tight, counts=counts))


# ---------------------------------------------------------------------------
# The worked posterior and the toy example


def sec35(checks):
    """The worked posterior example of paper sec. 3.5.

    Parameters
    ----------
    checks : Checks
        Receives the comparisons with the paper.

    Returns
    -------
    dict
        ``means``, ``scale``, ``likelihoods`` and ``posterior`` of the
        worlds, and their ``rows`` (`Sec35Row`).
    """
    means = np.array([np.mean(w) for w in SEC35_WORLDS])
    # the paper's S for a mean of |D| = 4 values from U = {1..10}: (10 - 1) / 4
    s = (max(TOY_UNIVERSE) - min(TOY_UNIVERSE)) / len(SEC35_WORLDS[0])
    lam = s / SEC35_EPS
    like = np.exp([float(di.log_evidence([f], response=SEC35_RESPONSE, scale=lam)) for f in means]) / (2.0 * lam)
    post = di.posterior(means, response=SEC35_RESPONSE, scale=lam)
    src = "paper sec. 3.5"
    for j, p in enumerate(SEC35_LIKELIHOODS):
        checks.add(f"sec. 3.5 Laplace likelihood of world {j + 1} at R = {SEC35_RESPONSE}", src, p, like[j])
    checks.add("sec. 3.5 posterior of world 3", src, SEC35_POSTERIOR, post[2])
    rows = [Sec35Row(j + 1, " ".join(map(str, w)), means[j], lam, SEC35_RESPONSE, like[j], post[j])
            for j, w in enumerate(SEC35_WORLDS)]
    return {"means": means, "scale": lam, "likelihoods": like, "posterior": post, "rows": rows}


def toy(checks):
    """Table 2, Figure 1 and the tight calibration of the toy example.

    Parameters
    ----------
    checks : Checks
        Receives the comparisons with the paper and the Mathematics page.

    Returns
    -------
    dict
        The worlds, ranges, calibrations and risks, and the rows ``table2`` and ``points``.

    Raises
    ------
    AssertionError
        If the toy example does not have the paper's number of worlds.
    """
    known = np.array(TOY_KNOWN, dtype=float)
    cands = np.array([u for u in TOY_UNIVERSE if u not in TOY_KNOWN], dtype=float)
    m = cands.size
    # one world per candidate: D' + {u}
    worlds = [np.sort(np.append(known, u)) for u in cands]
    means = np.array([w.mean() for w in worlds])
    medians = np.array([np.median(w) for w in worlds])
    s_mean = di.sensitive_range("mean", known=known, candidates=cands)
    s_median = di.sensitive_range("median", known=known, candidates=cands)
    mv, mc = di.world_values("mean", known=known, candidates=cands)
    dv, dc = di.world_values("median", known=known, candidates=cands)
    rho = float(TOY_RHO)
    lam = float(di.scale_for_rho(rho, m=m, sensitive_range=s_mean))
    eps = float(di.epsilon_for_rho(rho, m=m))
    risk1 = float(di.disclosure_risk(means, response=means[0], scale=lam, world=0))
    wc_mean, wc_world = di.worst_case_risk(mv, scale=lam, counts=mc, return_world=True)
    lam_med = float(di.scale_for_rho(rho, m=m, sensitive_range=s_median))
    wc_median = float(di.worst_case_risk(dv, scale=lam_med, counts=dc))
    teps_mean = float(di.tight_epsilon(mv, rho=rho, counts=mc))
    out = {"m": m, "cands": cands, "worlds": worlds, "means": means, "medians": medians,
           "s_mean": s_mean, "s_median": s_median, "lam": lam, "eps": eps, "risk1": risk1,
           "wc_mean": float(wc_mean), "wc_median": wc_median, "teps_mean": teps_mean}
    _check_toy(checks, out, int(wc_world))

    table2 = [Table2Row(j + 1, int(cands[j]), " ".join(str(int(v)) for v in worlds[j]), means[j], medians[j])
              for j in range(m)]
    # Figure 1 and the tight-epsilon figure: a grid of rho, log-spaced
    grid = np.unique(np.concatenate([np.geomspace(0.1, 0.99, 121), TOY_REPORT_RHO]))
    points = []
    for name, vals, cnt, s in (("mean", mv, mc, s_mean), ("median", dv, dc, s_median)):
        cal = _calibrate(vals, cnt, grid, m, s)
        bound = di.risk_bound(cal.paper_scale, m=m, sensitive_range=s)
        eps_paper = np.asarray(di.epsilon_for_rho(grid, m=m))
        points += [ToyPoint(name, r, 100.0 * r, m, s, cal.paper_scale[i], eps_paper[i], bound[i],
                            cal.worst_case_at_paper[i], cal.tight_epsilon[i], cal.tight_scale[i],
                            cal.worst_case_at_tight[i]) for i, r in enumerate(grid)]
    out.update(table2=table2, points=points, min_rho=float(di.min_rho(m)))
    return out


def _check_toy(checks, toy, wc_world):
    """The toy example's numbers beside the paper's and the Mathematics page's."""
    m, cands, means, medians = toy["m"], toy["cands"], toy["means"], toy["medians"]
    src4 = "paper sec. 4 (toy)"
    if m != len(TOY_PAPER_MEANS):
        raise AssertionError(f"the toy example has {m} worlds, the paper {len(TOY_PAPER_MEANS)}")
    known_txt = ", ".join(str(v) for v in TOY_KNOWN)
    for j in range(m):
        checks.add(f"toy world {j + 1} {{{known_txt}, {int(cands[j])}}}: mean", src4, TOY_PAPER_MEANS[j], means[j])
    same = [float(p) for p in TOY_PAPER_MEDIANS] == medians.tolist()
    checks.add(f"toy medians of worlds 1-{m}", src4, ", ".join(TOY_PAPER_MEDIANS),
               ", ".join(fmt(x) for x in medians), status=EQUAL if same else DIFFERENT,
               note="" if same else "the worlds' medians differ")
    checks.add("toy S(mean)", src4, TOY_PAPER_S_MEAN, toy["s_mean"])
    checks.add("toy S(median)", src4, TOY_PAPER_S_MEDIAN, toy["s_median"])
    src3 = "Mathematics page, section 3 (check value)"
    checks.add("toy scale of the mean at rho = 1/3", src3, TOY_CHECK_SCALE, toy["lam"])
    checks.add("toy epsilon at rho = 1/3, ln(7/2)", src3, TOY_CHECK_EPS, toy["eps"])
    checks.add("toy risk of world 1 at R = 2 (< 1/3)", src4, TOY_PAPER_RISK1, toy["risk1"])
    checks.add("toy risk of world 1 at R = 2, full precision", src3, TOY_CHECK_RISK1, toy["risk1"])
    checks.add("toy mean: exact worst-case risk at the paper's scale (world 1 at R = 2)",
               "Mathematics page, section 4 (beyond the paper)", TOY_CHECK_RISK1, toy["wc_mean"],
               note=f"attained by world {wc_world + 1}")
    checks.add("toy median: the bound is attained, worst-case risk = rho", "Mathematics page, section 3",
               "1/3", toy["wc_median"])
    # the tight calibration asks the computed risk to meet rho by its
    # rounding error bound (so that the exact risk does): its epsilon is
    # below the exact root by at most that relative bound, never above it
    teps_mean = toy["teps_mean"]
    exact_teps = float(TOY_CHECK_TIGHT_EPS)
    rel = (exact_teps - teps_mean) / exact_teps
    conservative = 0.0 <= rel <= 1e-13
    checks.add("toy mean: tight epsilon at rho = 1/3", "Mathematics page, section 5 (beyond the paper)",
               TOY_CHECK_TIGHT_EPS, teps_mean, status=EQUAL if conservative else None,
               printed=repr(teps_mean) if conservative else None,
               note=(f"below the exact root by a relative {rel:.1g}: the calibration's margin for rounding, "
                     "on the private side") if conservative else "")


# ---------------------------------------------------------------------------
# Table 4


def adult_facts(rows, embedded):
    """The number of rows, true means and standard deviations of Table 4.

    Parameters
    ----------
    rows : dict of str to ndarray
        The rows (used unless ``embedded``).
    embedded : bool
        Use the paper's published values instead of the rows'.

    Returns
    -------
    tuple
        (n, {attribute: mean}, {attribute: sample standard deviation}).
    """
    n = ADULT_N if embedded else int(rows[ATTRIBUTES[0]].size)
    if embedded:
        mean = {c: float(PAPER_MEAN[c]) for c in ATTRIBUTES}
        std = {c: float(PAPER_STD[c]) for c in ATTRIBUTES}
    else:
        mean = {c: float(rows[c].mean()) for c in ATTRIBUTES}
        std = {c: float(rows[c].std(ddof=1)) for c in ATTRIBUTES}
    return n, mean, std


def table4(checks, rows, embedded, rows_label, rng):
    """Table 4 (mean and std rows) and its tight-calibration extension.

    Parameters
    ----------
    checks : Checks
        Receives the comparisons with the paper.
    rows : dict of str to ndarray
        The Adult (or synthetic) rows.
    embedded : bool
        Whether the published facts stand in for the data file.
    rows_label : str
        ``'adult'`` or ``'synthetic'``.
    rng : numpy.random.Generator
        Draws the sampled responses.

    Returns
    -------
    dict
        ``n``, ``facts`` per attribute, ``table`` (`Table4Row`) and ``tight`` (`Table4TightRow`).
    """
    n, mean, std = adult_facts(rows, embedded)
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
        dom = di.Domain(lo, hi)
        _check_column(checks, col, x, mean[col], std[col], embedded)
        s_std, removed = di.dataset_sensitive_range("std", data=x, candidates=dom, ddof=1, return_removed=True)
        f = facts[col] = {"lo": lo, "hi": hi, "m": m, "n": n, "mean": mean[col], "std": std[col],
                          "s_mean": (hi - lo) / n, "s_mean_rows": di.dataset_sensitive_range("mean", data=x,
                                                                                             candidates=dom),
                          "s_std": s_std, "removed": int(removed[0]), "scales": {}}
        checks.add(f"{col}: S(std), max over D' = D - i*", "paper Table 4", PAPER_STD_RANGE[col], s_std,
                   status=NOT_REPRODUCIBLE, printed=fmt(s_std, 6),
                   note=("exact value on the " + ("synthetic rows" if embedded else "Adult rows")
                         + " (k = 1, the Table 3 integer domain, ddof = 1); see 'The standard-deviation column'"))
        if not embedded:
            checks.add(f"{col}: S(std) exact on the Adult rows",
                       "Mathematics page, section 6 / docs/worlds.md (check value)",
                       ENGINE_STD_RANGE[col], s_std)
        for rho in TABLE4_RHO:
            table += _table4_cells(checks, f, col, rho, rows_label, embedded, rng)
        tight += _table4_tight(f, col, np.delete(x, f["removed"]), dom, rows_label)
    return {"n": n, "facts": facts, "table": table, "tight": tight}


def _check_column(checks, col, x, mean, std, embedded):
    """A column's domain, mean and standard deviation beside Tables 3 and 4."""
    lo, hi = DOMAINS[col]
    if embedded:
        checks.add(f"{col}: domain (Table 3)", "paper Table 3", f"{lo}..{hi}", f"{lo}..{hi}", status=EMBEDDED,
                   printed=f"{lo}..{hi}", note="embedded; the synthetic rows are clipped to it")
        checks.add(f"{col}: mean", "paper Table 4", PAPER_MEAN[col], mean, status=EMBEDDED,
                   printed=PAPER_MEAN[col], note="the published value, embedded")
        checks.add(f"{col}: sample std", "paper Table 4", PAPER_STD[col], std, status=EMBEDDED,
                   printed=PAPER_STD[col], note="the published value, embedded")
        return
    seen = f"{int(x.min())}..{int(x.max())}"
    checks.add(f"{col}: domain (Table 3) against the data's min..max", "paper Table 3", f"{lo}..{hi}", seen,
               status=EQUAL if seen == f"{lo}..{hi}" else DIFFERENT, printed=seen,
               note="" if seen == f"{lo}..{hi}" else "the data do not reach an end of the domain "
               "(the domain, not the data, sets m and S)")
    checks.add(f"{col}: mean", "paper Table 4", PAPER_MEAN[col], mean)
    checks.add(f"{col}: sample std (ddof = 1)", "paper Table 4", PAPER_STD[col], std)


def _table4_cells(checks, f, col, rho, rows_label, embedded, rng):
    """The mean and std cells of one column at one rho, with their responses."""
    m = f["m"]
    eps = float(di.epsilon_for_rho(rho, m=m))
    cells = []
    for query, s, true in (("mean", f["s_mean"], f["mean"]), ("std", f["s_std"], f["std"])):
        lam = float(di.scale_for_rho(rho, m=m, sensitive_range=s))
        resp = true + rng.laplace(0.0, lam, RESPONSES) if math.isfinite(lam) else np.full(RESPONSES, math.inf)
        paper = PAPER_MEAN_SCALE[rho][col] if query == "mean" else ""
        rows = rows_label if query == "std" or not embedded else "published n"
        cells.append(Table4Row(col, query, rows, f["lo"], f["hi"], m, f["n"], true,
                               "published" if embedded else rows_label, s, rho, eps, lam, paper, resp))
        f["scales"][(query, rho)] = (lam, resp)
        if query == "mean":
            note = ""
            if math.isfinite(lam) and "e" in paper:
                raw = s / math.log((m - 1) * rho / (1 - rho))
                if raw != lam:
                    note = (f"the plain formula S / ln((m-1) rho / (1-rho)) gives {raw!r}; diffident "
                            f"rounds the scale up so that risk_bound(scale) <= rho holds in floating point")
            if not math.isfinite(lam):
                note = f"rho = {rho} < 1/m = {1 / m:.4g}: not releasable"
            checks.add(f"{col}: scale of the mean at rho = {rho}", "paper Table 4", paper, lam, note=note)
    return cells


def _table4_tight(f, col, known, dom, rows_label):
    """Beyond the paper: the tight scale over the worlds of the D' attaining S(std)."""
    m = f["m"]
    rhos = np.array(TABLE4_RHO)
    rows = []
    for query in ("mean", "std"):
        vals, cnt = di.world_values(query, known=known, candidates=dom, ddof=1 if query == "std" else 0)
        s_here = float(vals[-1] - vals[0])
        cal = _calibrate(vals, cnt, rhos, m, s_here)
        lam_p, t_lam = cal.paper_scale, cal.tight_scale
        for i, rho in enumerate(TABLE4_RHO):
            finite = math.isfinite(lam_p[i]) and t_lam[i] > 0
            rows.append(Table4TightRow(col, query, rows_label, f["removed"], rho, m, s_here,
                                       float(di.epsilon_for_rho(rho, m=m)), lam_p[i], cal.worst_case_at_paper[i],
                                       cal.expected_at_paper[i],
                                       cal.tight_epsilon[i], t_lam[i], cal.worst_case_at_tight[i],
                                       lam_p[i] / t_lam[i] if finite else math.nan))
    return rows


# ---------------------------------------------------------------------------
# Figures 2 to 4


def noise_ratio(rng, scale, true):
    """|Laplace noise| / |true value| for `DRAWS` draws.

    Parameters
    ----------
    rng : numpy.random.Generator
        Draws the noise.
    scale : float
        The Laplace scale.
    true : float
        The query's true value.

    Returns
    -------
    ndarray or None
        `DRAWS` ratios; None where the scale is infinite or the true value 0.
    """
    if not math.isfinite(scale) or true == 0:
        return None
    return np.abs(rng.laplace(0.0, scale, DRAWS)) / abs(true)


def figure2(checks, n, mean, rows_label, embedded, rng):
    """The noise ratio of the mean query at the paper's scale: Figures 2 and 3.

    Parameters
    ----------
    checks : Checks
        Receives Figure 3's epsilons beside the paper's.
    n : int
        Number of rows.
    mean : dict of str to float
        The true mean of each attribute.
    rows_label : str
        ``'adult'`` or ``'synthetic'``.
    embedded : bool
        Whether the means are the published ones.
    rng : numpy.random.Generator
        Draws the noise.

    Returns
    -------
    list of dict
        One box per attribute and rho, with its parameters and ``ratio`` (`noise_ratio`).
    """
    cells = []
    for col in ATTRIBUTES:
        lo, hi = DOMAINS[col]
        m = hi - lo + 1
        s = (hi - lo) / n
        for k, rho in enumerate(FIGURE_RHO):
            eps = float(di.epsilon_for_rho(rho, m=m))
            lam = float(di.scale_for_rho(rho, m=m, sensitive_range=s))
            r = noise_ratio(rng, lam, mean[col])
            cells.append({"attribute": col, "k": k, "rho": rho, "m": m, "n": n, "s": s, "epsilon": eps,
                          "scale": lam, "true": mean[col], "ratio": r,
                          "source": "published mean" if embedded else rows_label})
    for k, rho in enumerate(FIGURE_RHO):
        c = next(c for c in cells if c["attribute"] == "capital-gain" and c["k"] == k)
        checks.add(f"Figure 3: capital-gain epsilon at rho = 0.5/8^{k} = {pct(rho)}", "paper Figure 3",
                   PAPER_FIG3_EPS[k], c["epsilon"])
    return cells


def figure4(rows, rows_label, rng_sample, rng_draws, notes):
    """Figure 4: mean and sum queries on sampled databases of `FIG4_SIZES` rows.

    Parameters
    ----------
    rows : dict of str to ndarray
        The rows sampled from.
    rows_label : str
        ``'adult'`` or ``'synthetic'``.
    rng_sample : numpy.random.Generator
        Samples the databases.
    rng_draws : numpy.random.Generator
        Draws the noise.
    notes : list of str
        Receives a note for each size larger than the rows.

    Returns
    -------
    tuple
        (boxes as in `figure2`, the largest relative mean/sum scale difference).
    """
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
            pair: dict[int, list[float]] = {}
            for query, s, true in (("mean", (hi - lo) / size, float(x.mean())),
                                   ("sum", float(hi - lo), float(x.sum()))):
                for k, rho in enumerate(FIGURE_RHO):
                    lam = float(di.scale_for_rho(rho, m=m, sensitive_range=s))
                    r = noise_ratio(rng_draws, lam, true)
                    cells.append({"attribute": col, "query": query, "size": size, "k": k, "rho": rho, "m": m,
                                  "s": s, "epsilon": float(di.epsilon_for_rho(rho, m=m)), "scale": lam, "true": true,
                                  "ratio": r, "source": rows_label, "sample": pick})
                    if math.isfinite(lam) and true != 0:
                        pair.setdefault(k, []).append(lam / abs(true))
            for v in pair.values():
                if len(v) == 2:
                    identity = max(identity, abs(v[1] / v[0] - 1.0))
    return cells, identity


# ---------------------------------------------------------------------------
# All of them


class Results(NamedTuple):
    """Everything the replication computed, for the tables, figures and report.

    Parameters
    ----------
    checks : Checks
        Every number beside the paper's, in the report's order.
    sec35, toy, table4 : dict
        See `sec35`, `toy` and `table4`.
    fig2, fig4 : list of dict
        The boxes of Figures 2 and 3 and of Figure 4 (`figure2`, `figure4`).
    identity : float
        Figure 4's largest relative difference between the mean and the sum.
    rows_label : str
        ``'adult'`` or ``'synthetic'``.
    embedded : bool
        Whether the published facts stand in for the data file.
    """

    checks: Checks
    sec35: dict
    toy: dict
    table4: dict
    fig2: list
    fig4: list
    identity: float
    rows_label: str
    embedded: bool


def compute(rows, rows_label, embedded, seed, notes, say):
    """Every part of the replication, in the report's order.

    Parameters
    ----------
    rows : dict of str to ndarray
        The Adult (or synthetic) rows.
    rows_label : str
        ``'adult'`` or ``'synthetic'``.
    embedded : bool
        Whether the published facts stand in for the data file.
    seed : int
        Seed (>= 0) of `SeedSequence`, whose children draw every random part.
    notes : list of str
        Receives the notes of the report.
    say : callable
        Called with a one-line message at each stage.

    Returns
    -------
    Results
        The comparisons and the data behind every table and figure.
    """
    ss = np.random.SeedSequence(int(seed)).spawn(4)
    checks = Checks()
    say("sec. 3.5 and the toy example (Table 2, Figure 1)")
    s35 = sec35(checks)
    toy_ = toy(checks)
    say("Table 4")
    t4 = table4(checks, rows, embedded, rows_label, np.random.default_rng(ss[0]))
    mean = {c: t4["facts"][c]["mean"] for c in ATTRIBUTES}
    say("Figures 2 and 3")
    fig2 = figure2(checks, t4["n"], mean, rows_label, embedded, np.random.default_rng(ss[1]))
    say("Figure 4")
    fig4, identity = figure4(rows, rows_label, np.random.default_rng(ss[2]), np.random.default_rng(ss[3]), notes)
    return Results(checks, s35, toy_, t4, fig2, fig4, identity, rows_label, embedded)
