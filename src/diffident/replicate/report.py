"""The replication's files: one CSV per table and figure, and report.md."""

import csv
import math
from pathlib import Path

import numpy as np

import diffident as di

from .checks import (
    DIFFERENT,
    EMBEDDED,
    EQUAL,
    NOT_REPRODUCIBLE,
    Check,
    exact_text,
    fmt,
    pct,
)
from .experiments import DRAWS, RESPONSES, TOY_REPORT_RHO
from .paper import (
    ATTRIBUTES,
    ENGINE_STD_RANGE,
    FIG3_ATTRIBUTES,
    FIGURE_RHO,
    PAPER_FIG3_EPS,
    PAPER_MEAN_SCALE,
    PAPER_STD_RANGE,
    SEC35_EPS,
    SEC35_RESPONSE,
    SEC35_WORLDS,
    TABLE4_RHO,
    TOY_KNOWN,
)
from .plots import DPI, FIGURES, figure_data
from .rows import Sec35Row, Table2Row, Table4Row, Table4TightRow

__all__ = ["write_tables", "report_text"]

#: The columns of fig1_toy_risk.csv and fig_tight_epsilon.csv.
_FIG1_COLUMNS = ["query", "rho", "rho_percent", "m", "sensitive_range", "paper_scale", "paper_epsilon", "risk_bound",
                 "worst_case_risk"]
_TIGHT_COLUMNS = ["query", "rho", "rho_percent", "m", "sensitive_range", "paper_epsilon", "paper_scale",
                  "tight_epsilon", "tight_scale", "worst_case_risk_at_tight_scale"]
_STATS = ["p5", "q1", "median", "q3", "p95", "mean_ratio"]
_RATIO_HEAD = ["rho_percent", "m", "sensitive_range", "epsilon", "scale", "true_value", "true_value_source", "draws",
               "releasable"] + _STATS


# ---------------------------------------------------------------------------
# CSV files


def _cell(x):
    if isinstance(x, (bool, np.bool_)):
        return "true" if x else "false"
    if isinstance(x, (float, np.floating)):
        return exact_text(x)
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


def _select(rows, columns):
    """The named columns of named rows."""
    return [[getattr(r, c) for c in columns] for r in rows]


def _ratio_stats(r):
    """5th, 25th, 50th, 75th, 95th percentiles and mean of a ratio sample (NaN if none)."""
    if r is None:
        return [math.nan] * 6
    return [*np.percentile(r, [5, 25, 50, 75, 95]).tolist(), float(r.mean())]


def _ratio_tables(cells, keys):
    """The summary (header, rows) and every draw (header, rows) of noise-ratio boxes."""
    summary, draws = [], []
    for c in cells:
        key = [c[k] for k in keys]
        releasable = c["ratio"] is not None
        summary.append((*key, 100.0 * c["rho"], c["m"], c["s"], c["epsilon"], c["scale"], c["true"], c["source"],
                        DRAWS if releasable else 0, releasable, *_ratio_stats(c["ratio"])))
        if releasable:
            draws.append((*key, *c["ratio"].tolist()))
    return keys + _RATIO_HEAD, summary, keys + [f"r{i}" for i in range(DRAWS)], draws


def write_tables(out, res, data=None):
    """Write the CSV file behind every table and figure.

    Parameters
    ----------
    out : pathlib.Path
        The output directory (existing).
    res : Results
        What the replication computed.
    data : dict, optional
        `figure_data` of ``res`` (computed when None).

    Returns
    -------
    dict of str to pathlib.Path
        Name -> path of each file written, in the report's order.
    """
    toy, t4 = res.toy, res.table4
    tables = {
        "table2": _write_csv(out / "table2_toy_worlds.csv", Table2Row._fields, toy["table2"]),
        "sec35": _write_csv(out / "sec35_posterior.csv", Sec35Row._fields, res.sec35["rows"]),
        "fig1": _write_csv(out / "fig1_toy_risk.csv", _FIG1_COLUMNS, _select(toy["points"], _FIG1_COLUMNS)),
        "tight": _write_csv(out / "fig_tight_epsilon.csv", _TIGHT_COLUMNS, _select(toy["points"], _TIGHT_COLUMNS)),
        "table4": _write_csv(out / "table4.csv",
                             [*Table4Row._fields[:-1], *(f"response_{i + 1}" for i in range(RESPONSES))],
                             [(*r[:-1], *r.responses) for r in t4["table"]]),
        "table4_tight": _write_csv(out / "table4_tight.csv", Table4TightRow._fields, t4["tight"]),
    }
    keys = ["attribute", "k", "rho"]
    head, summary, draws_head, draws = _ratio_tables(res.fig2, keys)
    tables["fig2"] = _write_csv(out / "fig2_noise_ratio.csv", head, summary)
    tables["fig2_draws"] = _write_csv(out / "fig2_noise_ratio_draws.csv", draws_head, draws)
    head, summary, _, _ = _ratio_tables([c for c in res.fig2 if c["attribute"] in FIG3_ATTRIBUTES], keys)
    summary = [(*r, PAPER_FIG3_EPS[r[1]] if r[0] == "capital-gain" else "") for r in summary]
    tables["fig3"] = _write_csv(out / "fig3_noise_ratio_epsilon.csv", head + ["paper_epsilon"], summary)
    head, summary, draws_head, draws = _ratio_tables(res.fig4, ["attribute", "query", "size", "k", "rho"])
    tables["fig4"] = _write_csv(out / "fig4_db_size.csv", head, summary)
    tables["fig4_draws"] = _write_csv(out / "fig4_db_size_draws.csv", draws_head, draws)
    tables["comparison"] = _write_csv(out / "comparison.csv", Check._fields, res.checks.rows)
    # the tidy table behind each figure, after the figure's own files
    data = figure_data(res) if data is None else data
    ordered = {}
    for name, path in tables.items():
        ordered[name] = path
        if name in data and name not in ("fig2", "fig4"):
            ordered.update(_points(out, data, name))
        elif name in ("fig2_draws", "fig4_draws") and name[:4] in data:
            ordered.update(_points(out, data, name[:4]))
    return ordered


def _points(out, data, key):
    """Write a figure's tidy table: {key_points: path}."""
    head, rows = data[key]
    return {f"{key}_points": _write_csv(out / f"{FIGURES[key]}_points.csv", head,
                                        [[r[c] for c in head] for r in rows])}


# ---------------------------------------------------------------------------
# report.md


def _md_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    out += ["| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |" for r in rows]
    return "\n".join(out)


def _link(path):
    return f"[{Path(path).name}]({Path(path).name})"


def _figure(figures, tables, key, number, caption, alt):
    """A figure (its image, or a link to a PDF) and its numbered caption, which links its tidy data."""
    points = tables.get(f"{key}_points")
    if points is None and key not in figures:
        return []
    out = []
    if key in figures:
        name = Path(figures[key]).name
        out += [f"[Figure {number} (PDF)]({name})" if name.endswith(".pdf") else f"![Figure {number}: {alt}]({name})",
                ""]
    drawn = "" if key in figures else " (not drawn)"
    data = f" Plotted points: {_link(points)}." if points is not None else ""
    return out + [f"**Figure {number}{drawn}.** {caption}{data}", ""]


def _data(*paths):
    """The line naming a section's data files (a path, or a path and what it holds)."""
    names = (_link(p) if isinstance(p, (str, Path)) else f"{_link(p[0])} ({p[1]})" for p in paths)
    return [f"Data: {', '.join(names)}.", ""]


def _median_ratio(c):
    return fmt(np.median(c["ratio"]), 3) if c["ratio"] is not None else "not releasable"


def report_text(res, tables, figures, *, plots, source, seed, notes, format="png", dpi=DPI):
    """The markdown report: every number of the paper beside ours.

    Parameters
    ----------
    res : Results
        What the replication computed.
    tables : dict of str to path
        The CSV files (`write_tables`).
    figures : dict of str to path
        The figures drawn (empty without matplotlib).
    plots : bool
        Whether the figures were drawn.
    source : str
        Where the rows came from.
    seed : int
        The seed of the run.
    notes : list of str
        The notes of the run.
    format : str
        The figures' file format.
    dpi : float
        The figures' resolution, dots per inch.

    Returns
    -------
    str
        The report, markdown.
    """
    parts = (_summary(res.checks, res.embedded, plots, source, seed, format, dpi), _sec35(res.sec35, tables),
             _toy(res.toy, tables, figures), _tight(res.toy, tables, figures), _table4(res, tables),
             _noise_ratio(res, tables, figures), _files_and_notes(tables, figures, notes))
    return "\n".join(line for part in parts for line in part)


def _summary(checks, embedded, plots, source, seed, format, dpi):
    L: list[str] = []
    add = L.append
    counts = checks.counts()
    add('# Replication of Lee and Clifton, "Differential Identifiability" (KDD 2012)')
    add("")
    add(f"Produced by `diffident.replicate.run` (diffident {di.__version__}) with seed {seed}.")
    add("")
    add(f"* **Rows:** {source}." + (" The paper's published facts (Table 3 domains, n, means and standard "
                                     "deviations) and the toy example are embedded; whatever needs raw rows "
                                     "(standard-deviation ranges, Figure 4's sampled databases, the tight "
                                     "calibration on data) uses a seeded synthetic sample, labelled *synthetic*."
                                     if embedded else " Every number derived from rows uses these rows."))
    add(f"* **Seed:** {seed} (numpy `SeedSequence({seed})` for the synthetic rows, `synthetic_rows({seed})`; its "
        "spawned children for Table 4's responses, Figures 2-3 and Figure 4's sampling and draws).")
    add("* **Figures:** " + (f"drawn with matplotlib (Agg) as {format.upper()}, {dpi:g} dpi" if plots else
                             "not drawn (matplotlib is not available)")
        + "; each has a numbered caption, and its plotted points in a tidy CSV file (`*_points.csv`: one row "
        "per point of a line or statistic of a box, with its parameters).")
    add("")
    add("## Summary")
    add("")
    parts = [f"{counts.get(k, 0)} {k}" for k in (EQUAL, DIFFERENT, NOT_REPRODUCIBLE)]
    if counts.get(EMBEDDED):
        parts.append(f"{counts[EMBEDDED]} {EMBEDDED} (the published value is an input here, not recomputed)")
    add(f"{len(checks.rows)} values of the paper (and the check values of the Mathematics page) compared: "
        + ", ".join(parts) + ".")
    add("")
    for status in (DIFFERENT, NOT_REPRODUCIBLE):
        rows = [r for r in checks.rows if r.status == status]
        if rows:
            add(f"**{status.capitalize()}:**")
            add("")
            for r in rows:
                add(f"* {r.item}: paper {r.paper}, ours {r.ours}" + (f" ({r.note})" if r.note else ""))
            add("")
    qualified = [r for r in checks.rows if r.status == EQUAL and "ulp" in r.note]
    if qualified:
        add("**Equal, with a remark** (a full double printed by the source, whose last digit is representation):")
        add("")
    for r in qualified:
        add(f"* {r.item}: paper {r.paper}, ours {r.ours_full}: {r.note}.")
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
                  [(r.item, r.source, r.paper, r.ours, r.status, r.note) for r in checks.rows]))
    add("")
    return L


def _sec35(sec35, tables):
    L: list[str] = []
    add = L.append
    add("## 1. The worked posterior (paper sec. 3.5)")
    add("")
    add(f"Worlds {', '.join('{' + ', '.join(map(str, w)) + '}' for w in SEC35_WORLDS)}, f = mean, epsilon = "
        f"{SEC35_EPS:g}, Laplace scale {fmt(sec35['scale'])}, response R = {SEC35_RESPONSE}.")
    add("")
    add(_md_table(["world", "mean", "Laplace density at R", "posterior"],
                  [(j + 1, fmt(sec35["means"][j]), fmt(sec35["likelihoods"][j]), fmt(sec35["posterior"][j]))
                   for j in range(len(SEC35_WORLDS))]))
    add("")
    return L + _data(tables["sec35"])


def _toy(toy, tables, figures):
    L: list[str] = []
    add = L.append
    m = toy["m"]
    add("## 2. The toy example: Table 2 and Figure 1 (paper sec. 4)")
    add("")
    add(f"U = {{1..10}}, D' = {{{', '.join(map(str, TOY_KNOWN))}}}, candidates "
        f"{', '.join(str(int(c)) for c in toy['cands'])}: m = {m} worlds.")
    add("")
    add(_md_table(["world", "D' + {u}", "mean", "median"],
                  [(r.world, r.world_values, fmt(r.mean), fmt(r.median)) for r in toy["table2"]]))
    add("")
    add(f"S(mean) = {fmt(toy['s_mean'])} (8/3), S(median) = {fmt(toy['s_median'])}. At rho = 1/3 the paper's "
        f"scale for the mean is {fmt(toy['lam'])} (epsilon = ln(7/2) = {fmt(toy['eps'])}), and world 1's risk at "
        f"R = 2 is {fmt(toy['risk1'])} < 1/3. That is also the exact worst case over every response and world "
        f"({fmt(toy['wc_mean'])}): the bound over-calibrates the mean. For the median the bound is attained "
        f"(worst-case risk {fmt(toy['wc_median'])} = 1/3).")
    add("")
    gap = {}
    for q in ("mean", "median"):
        rr = [r for r in toy["points"] if r.query == q and math.isfinite(r.paper_scale)]
        gap[q] = max(r.risk_bound - r.worst_case_risk for r in rr)
    add(f"Figure 1 plots the exact worst-case risk at the paper's scale against rho, with the bound (risk = rho). "
        f"Largest gap bound minus exact risk over the plotted grid: {fmt(gap['mean'])} for the mean, "
        f"{fmt(gap['median'], 3)} for the median. Below rho = 1/m = {fmt(toy['min_rho'])} no finite scale works "
        f"(shaded).")
    add("")
    lo = pct(toy["min_rho"])
    caption = (f"Exact worst-case identification risk of the toy example (m = {m} worlds) at the paper's Laplace "
               "scale against the risk bound ρ, for (a) the mean and (b) the median: the dashed line is the "
               f"paper's bound (risk = ρ), the dotted one 1/m = {lo} (a random guess), the dot ρ = 1/3. The strip "
               f"below each panel marks the ρ of the grid at or below 1/m = {lo}, where no finite scale exists "
               "(not releasable).")
    return (L + _figure(figures, tables, "fig1", "1", caption,
                        "exact worst-case risk of the toy example at the paper's scale")
            + _data(tables["table2"], tables["fig1"]))


def _tight(toy, tables, figures):
    L: list[str] = []
    add = L.append
    add("## 3. Tight calibration (the notebook extension, beyond the paper)")
    add("")
    add("The tight epsilon (`tight_epsilon`: the largest epsilon, i.e. the least noise, whose *exact* worst-case "
        "risk is <= rho) beside the paper's epsilon = ln((m - 1) rho / (1 - rho)), toy example.")
    add("")
    trows = []
    for r in toy["points"]:
        if any(abs(r.rho - x) <= 1e-15 for x in TOY_REPORT_RHO):
            trows.append((r.query, pct(r.rho), fmt(r.paper_epsilon), fmt(r.tight_epsilon),
                          fmt(r.tight_epsilon / r.paper_epsilon, 3) if r.paper_epsilon > 0 else "",
                          fmt(r.worst_case_risk_at_tight_scale)))
    add(_md_table(["query", "rho", "paper epsilon", "tight epsilon", "tight / paper", "exact risk at tight scale"],
                  trows))
    add("")
    caption = ("(beyond the paper) The tight ε (the largest ε, i.e. the least noise, whose exact worst-case risk is "
               "<= ρ) and the paper's ε = ln((m - 1) ρ / (1 - ρ)) of the toy example against ρ, for (a) the mean "
               "and (b) the median; the Laplace scale is S / ε. The strip below each panel marks the ρ at or "
               f"below 1/m = {pct(toy['min_rho'])}, where both are 0 (infinite scale: not releasable).")
    return (L + _figure(figures, tables, "tight", "1b", caption, "tight epsilon against the paper's epsilon")
            + _data(tables["tight"]))


def _table4(res, tables):
    L: list[str] = []
    add = L.append
    embedded, t4 = res.embedded, res.table4
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
            row = [col, f"{f['lo']}..{f['hi']}", f["m"], fmt(f[query]), fmt(f["s_" + query], 6)]
            if query == "std":
                row.append(PAPER_STD_RANGE[col])
            for rho in TABLE4_RHO:
                lam, resp = f["scales"][(query, rho)]
                row.append(fmt(lam, 6))
                if query == "mean":
                    row.append(PAPER_MEAN_SCALE[rho][col])
                row.append("not releasable" if not math.isfinite(lam) else ", ".join(fmt(x, 6) for x in resp))
            body.append(row)
        add(f"**{query} query**" + (" (S(std) on the synthetic rows)" if (query == "std" and embedded) else ""))
        add("")
        add(_md_table(hdr, body))
        add("")
    add("**Beyond the paper: tight scales.** The worlds D' + {v}, v in lo..hi, for the D' that attains S "
        "(the removed individual in `removed_index`); the exact worst-case risk at the paper's scale, the "
        "adversary's expected success there (`expected_risk`: how often the best adversary names the true "
        "world, on average; the worst case is its single most revealing response), and the tight scale "
        "(`tight_scale`) that meets rho exactly.")
    add("")
    tight = [(r.attribute, r.query, r.rho, fmt(r.paper_scale, 6), fmt(r.worst_case_risk_at_paper_scale, 6),
              fmt(r.expected_success_at_paper_scale, 6), fmt(r.tight_scale, 6),
              fmt(r.worst_case_risk_at_tight_scale, 6),
              fmt(r.paper_scale_over_tight_scale, 4) if math.isfinite(r.paper_scale_over_tight_scale) else "-")
             for r in t4["tight"]]
    add(_md_table(["attribute", "query", "rho", "paper scale", "exact risk at paper scale",
                   "expected success at paper scale", "tight scale", "exact risk at tight scale", "paper / tight"],
                  tight))
    add("")
    L += _data(tables["table4"], tables["table4_tight"])
    add("### The standard-deviation column (not reproducible)")
    add("")
    add("The paper's Table 4 lists S(std) as " + ", ".join(PAPER_STD_RANGE[c] for c in ATTRIBUTES)
        + f" ({', '.join(ATTRIBUTES)}). The definition (Mathematics page, section 6: S(f) = max over "
        "D' = D - i* of the largest difference of f between two possible worlds), computed exactly with k = 1, "
        "the integer domains of Table 3 and the sample standard deviation, gives on the Adult data "
        + ", ".join(ENGINE_STD_RANGE[c] for c in ATTRIBUTES)
        + " (Mathematics page, section 6; docs/worlds.md): three of the five differ by factors of about 2 to 77, "
        "and no convention tried (ddof 0 or 1, which individual is removed, the domain or the observed range) "
        "reproduces them; the public re-implementation of the paper could not either. This run's values: "
        + ", ".join(f"{c} {fmt(facts[c]['s_std'], 6)}" for c in ATTRIBUTES)
        + (" (on the synthetic rows, so they match neither column; run with the Adult data for the exact values)."
           if embedded else "."))
    add("")
    return L


def _noise_ratio(res, tables, figures):
    L: list[str] = []
    add = L.append
    embedded, fig2, fig4 = res.embedded, res.fig2, res.fig4
    add("## 5. Noise ratio: Figures 2, 3 and 4")
    add("")
    add(f"Noise ratio = |Laplace noise| / true value, {DRAWS} draws per cell, at the paper's scale for rho = "
        "0.5/8^k, k = 0..5 (" + ", ".join(pct(r) for r in FIGURE_RHO) + "). Boxes: quartiles and median; "
        "whiskers: 5th and 95th percentiles. Cells with rho < 1/m are not releasable (infinite scale) and are "
        "marked, not drawn.")
    add("")
    add("**Figure 2** (mean query, n = " + str(res.table4["n"]) + ", true value: " +
        ("the published mean" if embedded else "the rows' mean") + "): median noise ratio")
    add("")
    body = [[col] + [_median_ratio(c) for c in fig2 if c["attribute"] == col] for col in ATTRIBUTES]
    add(_md_table(["attribute"] + [pct(r) for r in FIGURE_RHO], body))
    add("")
    box = (f"Boxes span the quartiles, with the median; whiskers the 5th and 95th percentiles of the {DRAWS} "
           "draws.")
    L += _figure(figures, tables, "fig2", "2",
                 f"Noise ratio |noise| / true mean of the mean query (n = {res.table4['n']}, true value: "
                 + ("the published mean" if embedded else "the rows' mean") + ") at the paper's scale against "
                 "ρ = 0.5/8^k, one box per attribute. " + box + " The strip below the axes marks, in the "
                 "attribute's colour, each cell with ρ < 1/m (infinite scale: not releasable).",
                 "noise ratio of the mean query against rho")
    L += _data((tables["fig2"], "summary"), (tables["fig2_draws"], "every draw"))
    add("**Figure 3**: the same draws against the paper's epsilon = ln((m - 1) rho / (1 - rho)).")
    add("")
    body = []
    for k, rho in enumerate(FIGURE_RHO):
        row = [pct(rho)]
        for col in FIG3_ATTRIBUTES:
            c = next(c for c in fig2 if c["attribute"] == col and c["k"] == k)
            row.append(f"{c['epsilon']:.3f}" if c["epsilon"] > 0 else "0 (not releasable)")
            if col == "capital-gain":
                row.append(PAPER_FIG3_EPS[k])
        body.append(row)
    add(_md_table(["rho", "capital-gain epsilon", "paper", "capital-loss epsilon"], body))
    add("")
    L += _figure(figures, tables, "fig3", "3",
                 "The draws of Figure 2 for " + " and ".join(FIG3_ATTRIBUTES) + " against the paper's "
                 "ε = ln((m - 1) ρ / (1 - ρ)), each box labelled with its ρ. " + box + " The strip below a panel "
                 "marks ε = 0 and lists the ρ < 1/m, which are not releasable.", "noise ratio against epsilon")
    L += _data(tables["fig3"])
    sizes = sorted({c["size"] for c in fig4})
    add(f"**Figure 4**: mean and sum queries on databases of {' and '.join(str(s) for s in sizes)} rows sampled "
        f"(seeded, without replacement) from the {res.rows_label} rows; S(mean) = (hi - lo)/size, S(sum) = hi - lo, "
        "m = hi - lo + 1. Median noise ratio of the mean query:")
    add("")
    body = [[size, col] + [_median_ratio(c) for c in _fig4_means(fig4, col, size)]
            for size in sizes for col in ATTRIBUTES]
    add(_md_table(["rows", "attribute"] + [pct(r) for r in FIGURE_RHO], body))
    add("")
    add(f"The sum's scale is `size` times the mean's and so is its true value, so the two queries have the same "
        f"noise-ratio distribution (largest relative difference of scale / true value between them: "
        f"{res.identity:.2g}); their boxes differ only by sampling.")
    if len(sizes) == 2:
        q = []
        for col in ATTRIBUTES:
            for x, y in zip(_fig4_means(fig4, col, sizes[0]), _fig4_means(fig4, col, sizes[1]), strict=True):
                if x["ratio"] is not None and y["ratio"] is not None:
                    q.append(np.median(x["ratio"]) / np.median(y["ratio"]))
        if q:
            add(f" Ten times the rows gives about a tenth of the noise ratio: the median ratio at {sizes[0]} rows "
                f"over that at {sizes[1]} rows is {fmt(min(q), 3)} to {fmt(max(q), 3)} over the releasable "
                "cells.")
    add("")
    L += _figure(figures, tables, "fig4", "4",
                 f"Noise ratio of the mean and the sum query on databases of {' and '.join(map(str, sizes))} rows "
                 f"sampled from the {res.rows_label} rows, at the paper's scale against ρ = 0.5/8^k: one panel "
                 "per attribute, one box per query (the sum hatched) and database size (colour). " + box
                 + " Within a panel the mean's and the sum's boxes agree up to sampling (their noise ratios have "
                 "the same distribution), and ten times the rows moves the boxes down by a factor of about ten. "
                 "The strip below a panel marks the ρ < 1/m (not releasable).",
                 "noise ratio of mean and sum queries by database size")
    return L + _data((tables["fig4"], "summary"), (tables["fig4_draws"], "every draw"))


def _fig4_means(fig4, col, size):
    return [c for c in fig4 if c["attribute"] == col and c["size"] == size and c["query"] == "mean"]


def _files_and_notes(tables, figures, notes):
    L = ["## Files", ""]
    L += [f"* {_link(p)}" for p in [*tables.values(), *figures.values()]]
    L += ["", "## Notes", ""]
    L += [f"* {note}" for note in notes]
    L.append("* Scales and epsilons are diffident's closed forms (`scale_for_rho`, `epsilon_for_rho`), which round "
             "toward the private side by at most a few ulps; worst-case risks and tight calibrations are exact "
             "(Mathematics page, sections 4-5).")
    L.append("* Status rules: a value is *equal* when ours, rounded half-up to the paper's printed digits, reads "
             "the same (a full double printed to 16-17 digits may differ by 2 ulps); fractions such as 8/3 are "
             "compared to double precision.")
    L.append("")
    return L
