"""Figures of the replication (`diffident.replicate`)."""

import math
from pathlib import Path

import numpy as np

from .paper import FIG3_ATTRIBUTES, PAPER_FIG3_EPS

__all__ = ["DPI", "FORMATS", "STATISTICS", "FIGURES", "STRIP_LABEL", "check_options", "unavailable", "figure_data",
           "figures", "draw_all"]

#: The default resolution of the figures, in dots per inch.
DPI = 100
#: The smallest and largest resolution (see `check_options`).
_DPI_RANGE = (20, 1200)
#: The file formats the figures can be saved in.
FORMATS = ("png", "pdf", "svg")
#: The statistics drawn as a box: whiskers (5th and 95th percentiles),
#: quartiles and the median.
STATISTICS = ("p5", "q1", "median", "q3", "p95")
#: The file name (without extension) of each figure, by key, in the report's order.
FIGURES = {"fig1": "fig1_toy_risk", "tight": "fig_tight_epsilon", "fig2": "fig2_noise_ratio",
           "fig3": "fig3_noise_ratio_epsilon", "fig4": "fig4_db_size"}

_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd")
_RHO = r"$\rho$"
_EPS = r"$\epsilon$"
_PAPER_EPS = r"$\epsilon = \ln((m-1)\rho\,/\,(1-\rho))$"
#: Height of a panel's not-releasable strip, relative to the panel.
_STRIP = 0.09
#: The label (matplotlib artist label) of every not-releasable strip.
STRIP_LABEL = "not releasable"


def check_options(format, dpi):
    """Check the file format and resolution of the figures.

    Parameters
    ----------
    format : str
        One of `FORMATS`: ``'png'``, ``'pdf'`` or ``'svg'``.
    dpi : float
        Dots per inch, from 20 (readable labels) to 1200 (print resolution).

    Returns
    -------
    tuple
        (format, dpi as a float).

    Raises
    ------
    TypeError
        If ``format`` is not a string or ``dpi`` not a number.
    ValueError
        If ``format`` is not one of `FORMATS` or ``dpi`` is not from 20 to 1200.
    """
    if not isinstance(format, str):
        raise TypeError(f"format must be one of {', '.join(map(repr, FORMATS))}, got {format!r}")
    if format not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(map(repr, FORMATS))}, got {format!r}")
    if isinstance(dpi, (bool, np.bool_)) or not isinstance(dpi, (int, float, np.integer, np.floating)):
        raise TypeError(f"dpi must be a number from {_DPI_RANGE[0]} to {_DPI_RANGE[1]}, got {dpi!r}")
    if not (math.isfinite(dpi) and _DPI_RANGE[0] <= dpi <= _DPI_RANGE[1]):
        raise ValueError(f"dpi must be a number from {_DPI_RANGE[0]} to {_DPI_RANGE[1]}, got {dpi!r}")
    return format, float(dpi)


def unavailable():
    """Whether matplotlib can draw the figures.

    Returns
    -------
    str or None
        None when matplotlib imports, else the reason it cannot (one line).
    """
    try:
        import matplotlib  # noqa: F401
        from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: F401
        from matplotlib.figure import Figure  # noqa: F401
    except Exception as exc:  # ImportError, or a broken installation
        return f"{type(exc).__name__}: {exc}".splitlines()[0]
    return None


# ---------------------------------------------------------------------------
# The data behind the figures: one tidy table each

_LINE_HEAD = ["figure", "panel", "series", "x", "y", "releasable"]
_BOX_HEAD = ["figure", "panel", "series", "x", "statistic", "y", "releasable"]
_TOY_PARAMS = {"fig1": ["query", "rho", "m", "sensitive_range", "paper_scale", "paper_epsilon"],
               "tight": ["query", "rho", "m", "sensitive_range", "paper_scale", "tight_scale"]}
_TOY_SERIES = {"fig1": ("worst_case_risk", "risk_bound"), "tight": ("tight_epsilon", "paper_epsilon")}
_BOX_PARAMS = {"fig2": ["attribute", "k", "rho", "m", "n", "sensitive_range", "epsilon", "scale", "true_value",
                        "draws"],
               "fig3": ["attribute", "k", "rho", "m", "n", "sensitive_range", "epsilon", "scale", "true_value",
                        "draws", "paper_epsilon"],
               "fig4": ["attribute", "query", "size", "k", "rho", "m", "sensitive_range", "epsilon", "scale",
                        "true_value", "draws"]}


def _toy_rows(name, points):
    rows = []
    for p in points:
        releasable = math.isfinite(p.paper_scale)
        params = {c: getattr(p, c) for c in _TOY_PARAMS[name]}
        for series in _TOY_SERIES[name]:
            rows.append({"figure": name, "panel": p.query, "series": series, "x": p.rho,
                         "y": getattr(p, series) if releasable else math.nan, "releasable": releasable, **params})
    return rows


def _box_rows(name, cells, panel, series, x, extra=None):
    rows = []
    for c in cells:
        releasable = c["ratio"] is not None
        stats = np.percentile(c["ratio"], [5, 25, 50, 75, 95]).tolist() if releasable else [math.nan] * 5
        params = {"attribute": c["attribute"], "query": c.get("query", "mean"), "size": c.get("size"),
                  "k": c["k"], "rho": c["rho"], "m": c["m"], "n": c.get("n"), "sensitive_range": c["s"],
                  "epsilon": c["epsilon"], "scale": c["scale"], "true_value": c["true"],
                  "draws": c["ratio"].size if releasable else 0, **(extra(c) if extra else {})}
        params = {k: params[k] for k in _BOX_PARAMS[name]}
        for stat, y in zip(STATISTICS, stats, strict=True):
            rows.append({"figure": name, "panel": panel(c), "series": series(c), "x": x(c), "statistic": stat,
                         "y": y, "releasable": releasable, **params})
    return rows


def figure_data(res):
    """The data behind each figure, one tidy table per figure.

    One row per plotted point; a value that is not releasable has ``y`` NaN.

    Parameters
    ----------
    res : Results
        The replication's results (`experiments.compute`).

    Returns
    -------
    dict of str to tuple
        Figure key (as in `FIGURES`) -> (column names, one dict per row).
    """
    data = {}
    for name in ("fig1", "tight"):
        data[name] = (_LINE_HEAD + _TOY_PARAMS[name], _toy_rows(name, res.toy["points"]))
    data["fig2"] = (_BOX_HEAD + _BOX_PARAMS["fig2"],
                    _box_rows("fig2", res.fig2, lambda c: "mean", lambda c: c["attribute"], lambda c: c["rho"]))
    fig3 = [c for c in res.fig2 if c["attribute"] in FIG3_ATTRIBUTES]
    data["fig3"] = (_BOX_HEAD + _BOX_PARAMS["fig3"],
                    _box_rows("fig3", fig3, lambda c: c["attribute"], lambda c: c["attribute"],
                              lambda c: c["epsilon"],
                              lambda c: {"paper_epsilon": PAPER_FIG3_EPS[c["k"]]
                                         if c["attribute"] == "capital-gain" else ""}))
    if res.fig4:
        data["fig4"] = (_BOX_HEAD + _BOX_PARAMS["fig4"],
                        _box_rows("fig4", res.fig4, lambda c: c["attribute"],
                                  lambda c: f"{c['query']}, {c['size']} rows", lambda c: c["rho"]))
    return data


def _boxes(rows):
    """The boxes of a tidy table, in its order: {(panel, series, x, rho): {statistic: y}}."""
    out: dict = {}
    for r in rows:
        out.setdefault((r["panel"], r["series"], r["x"], r["rho"]), {})[r["statistic"]] = r["y"]
    return out


# ---------------------------------------------------------------------------
# Drawing


def _figure(w, h, nrows=1, ncols=1, sharey=False):
    """A figure of panels and a list of (axes, not-releasable strip) pairs, row by row."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(w, h), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    gs = fig.add_gridspec(2 * nrows, ncols, height_ratios=[1, _STRIP] * nrows)
    panels, first = [], None
    for r in range(nrows):
        for c in range(ncols):
            ax = fig.add_subplot(gs[2 * r, c], sharey=first if sharey else None)
            if first is None:
                first = ax
            elif sharey and c > 0:
                ax.tick_params(axis="y", which="both", labelleft=False)
            strip = fig.add_subplot(gs[2 * r + 1, c], sharex=ax)
            strip.set_label(STRIP_LABEL)
            strip.set_ylim(0, 1)
            strip.set_yticks([])
            strip.set_facecolor("0.95")
            for side in ("top", "left", "right"):
                strip.spines[side].set_visible(False)
            strip.set_ylabel("not\nreleasable", rotation=0, ha="right", va="center", fontsize=8)
            ax.tick_params(axis="x", which="both", labelbottom=False)
            panels.append((ax, strip))
    return fig, panels


def _percent_axis(axis, ticks=None):
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    if ticks is not None:
        axis.set_major_locator(FixedLocator(ticks))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:.4g}%"))
    axis.set_minor_formatter(NullFormatter())


def _toy_risk(rows, toy):
    fig, panels = _figure(11, 4.8, 1, 2)
    lo = 100 * toy["min_rho"]
    for (ax, strip), q, tag in zip(panels, ("mean", "median"), ("a", "b"), strict=True):
        rs = [r for r in rows if r["panel"] == q]
        styles = {"worst_case_risk": dict(ls="-", color=_COLORS[0], lw=2.5,
                                          label="exact worst-case risk at the paper's scale"),
                  "risk_bound": dict(ls="--", color="0.2", lw=1.5, label=f"paper's bound (risk = {_RHO})")}
        for series, style in styles.items():
            pts = [r for r in rs if r["series"] == series and r["releasable"]]
            ax.plot([100 * r["x"] for r in pts], [100 * r["y"] for r in pts], **style)
        ax.axhline(lo, color="0.6", lw=1, ls=":", label=f"1/m = {lo:.4g}% (random guess)")
        y3 = toy["wc_mean"] if q == "mean" else toy["wc_median"]
        ax.plot([100 / 3], [100 * y3], "o", color=_COLORS[3], label=f"{_RHO} = 1/3: risk {100 * y3:.2f}%")
        _rug(strip, rs, f"{_RHO} $\\leq$ 1/m = {lo:.4g}%: no finite scale")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ticks = [lo, 20, 30, 50, 70, 100]
        _percent_axis(ax.xaxis, ticks)
        _percent_axis(ax.yaxis, ticks)
        ax.set_xlim(9.5, 105)
        ax.set_ylabel("identification risk (%, log scale)")
        _toy_labels(ax, strip, toy, q, f"({tag}) ")
    fig.suptitle("Worst-case identification risk of the toy example at the paper's Laplace scale")
    return fig


def _rug(strip, rows, text):
    """Mark the not-releasable x of a line panel in its strip, with a note."""
    xs = sorted({100 * r["x"] for r in rows if not r["releasable"]})
    if xs:
        strip.plot(xs, [0.5] * len(xs), "|", color="0.3", ms=9, mew=1.5)
        strip.annotate(text, (xs[-1], 0.5), textcoords="offset points", xytext=(8, 0), va="center", fontsize=8)


def _toy_tight(rows, toy):
    fig, panels = _figure(11, 4.8, 1, 2)
    lo = 100 * toy["min_rho"]
    for (ax, strip), q, tag in zip(panels, ("mean", "median"), ("a", "b"), strict=True):
        rs = [r for r in rows if r["panel"] == q]
        styles = {"tight_epsilon": dict(ls="-", color=_COLORS[2], lw=2.5,
                                        label=f"tight {_EPS} (exact worst case = {_RHO})"),
                  "paper_epsilon": dict(ls="--", color="0.2", lw=1.5, label=f"paper: {_PAPER_EPS}")}
        for series, style in styles.items():
            pts = [r for r in rs if r["series"] == series and r["releasable"]]
            ax.plot([100 * r["x"] for r in pts], [r["y"] for r in pts], **style)
        _rug(strip, rs, f"{_RHO} $\\leq$ 1/m = {lo:.4g}%: {_EPS} = 0, infinite scale")
        ax.set_xscale("log")
        _percent_axis(ax.xaxis, [lo, 20, 30, 50, 70, 100])
        ax.set_xlim(9.5, 105)
        ax.set_ylabel(f"{_EPS} (Laplace scale = S / {_EPS})")
        _toy_labels(ax, strip, toy, q, f"({tag}) ")
    fig.suptitle(f"Tight {_EPS} against the paper's {_EPS}, toy example (beyond the paper)")
    return fig


def _toy_labels(ax, strip, toy, q, tag):
    """Labels, title, grid and legend of a toy-example panel against rho."""
    strip.set_xlabel(f"risk bound {_RHO} (%, log scale)")
    ax.set_title(f"{tag}{q} (m = {toy['m']}, S = {toy['s_' + q]:.4g})")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")


def _draw_boxes(ax, strip, boxes, series, position, width):
    """Draw boxes from their statistics; mark the not-releasable ones in the strip."""
    for name, (color, hatch) in series.items():
        good, bad = [], []
        for (_, s, x, _), st in boxes.items():
            if s != name:
                continue
            p = position(name, x)
            if math.isnan(st["median"]):
                bad.append(p)
            else:
                good.append((p, st))
        if good:
            stats = [{"med": st["median"], "q1": st["q1"], "q3": st["q3"], "whislo": st["p5"], "whishi": st["p95"],
                      "fliers": []} for _, st in good]
            pos = [p for p, _ in good]
            bp = ax.bxp(stats, positions=pos, widths=[width(p) for p in pos], showfliers=False, patch_artist=True,
                        manage_ticks=False, medianprops={"color": "black", "lw": 1})
            for b in bp["boxes"]:
                b.set_facecolor(color)
                b.set_alpha(0.8)
                if hatch:
                    b.set_hatch(hatch)
        if bad:  # one mark per position (Figure 3 has every one at epsilon 0)
            bad = sorted(set(bad))
            strip.plot(bad, [0.5] * len(bad), "x", color=color, ms=6, mew=1.8)


def _rho_axis(ax, strip, rhos, xlabel=True):
    from matplotlib.ticker import LogLocator, NullLocator

    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks([100 * r for r in rhos], [f"{100 * r:.3g}%" for r in rhos])
    ax.xaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_minor_locator(LogLocator(subs="auto"))
    ax.set_xlim(100 * min(rhos) / 2.5, 100 * max(rhos) * 2.5)
    if xlabel:
        strip.set_xlabel(f"risk bound {_RHO} (%, log scale); {_RHO} = 0.5 / $8^k$")
    ax.grid(True, axis="y", which="major", alpha=0.3)


def _log_offset(names, spread):
    """Box positions around x (in percent, log axis): one offset per series."""
    g = len(names)
    off = {n: (i - (g - 1) / 2) * spread for i, n in enumerate(names)}
    return lambda name, x: 100 * x * 10 ** off[name]


def _log_width(width):
    return lambda p: p * (10 ** (width / 2) - 10 ** (-width / 2))


def _noise_ratio_rho(rows, attrs, res):
    fig, [(ax, strip)] = _figure(11, 5.4)
    boxes = _boxes(rows)
    series = {a: (_COLORS[i % len(_COLORS)], None) for i, a in enumerate(attrs)}
    _draw_boxes(ax, strip, boxes, series, _log_offset(attrs, 0.11), _log_width(0.09))
    for a, (color, _) in series.items():
        ax.plot([], [], "s", color=color, label=a)
    _rho_axis(ax, strip, sorted({r["x"] for r in rows}))
    true = "published mean" if res.embedded else "mean"
    ax.set_ylabel(f"noise ratio |noise| / {true} (log scale)")
    ax.set_title(f"Noise ratio of the mean query at the paper's scale (n = {res.fig2[0]['n']})")
    ax.legend(fontsize=8, loc="upper right", ncols=2)
    return fig


def _noise_ratio_eps(rows, attrs):
    fig, panels = _figure(11, 5.0, 1, len(attrs))
    for (ax, strip), col, i in zip(panels, attrs, range(len(attrs)), strict=True):
        rs = [r for r in rows if r["panel"] == col]
        boxes = _boxes(rs)
        _draw_boxes(ax, strip, boxes, {col: (_COLORS[2 + i], None)}, lambda name, x: x, lambda p: 0.45)
        rho = {r["x"]: r["rho"] for r in rs}
        good = sorted({r["x"] for r in rs if r["releasable"]})
        for x in good:
            p95 = next(st["p95"] for (_, _, bx, _), st in boxes.items() if bx == x)
            ax.annotate(f"{_RHO} = {100 * rho[x]:.3g}%", (x, p95), textcoords="offset points", xytext=(0, 4),
                        ha="center", fontsize=7)
        bad = sorted({r["rho"] for r in rs if not r["releasable"]}, reverse=True)
        if bad:
            strip.annotate(f"{_EPS} = 0 at {_RHO} = " + ", ".join(f"{100 * b:.3g}%" for b in bad) + " < 1/m",
                           (0.0, 0.5), textcoords="offset points", xytext=(8, 0), va="center", fontsize=8)
        ax.set_yscale("log")
        y0, y1 = ax.get_ylim()
        ax.set_ylim(y0, y1 * 2.0)
        ax.set_xlim(-0.7, max(rho) + 0.9)
        ax.set_xticks(good, [f"{x:.3f}" for x in good])
        ax.tick_params(axis="x", labelsize=9)
        strip.set_xlabel(f"paper's {_PAPER_EPS}")
        ax.set_ylabel("noise ratio |noise| / mean (log scale)")
        ax.set_title(f"{col} (m = {rs[0]['m']})")
        ax.grid(True, axis="y", alpha=0.3)
    fig.suptitle(f"Noise ratio of the mean query against the paper's {_EPS}")
    return fig


def _db_size(rows, attrs, rows_label):
    ncols = 3
    nrows = -(-(len(attrs) + 1) // ncols)
    fig, panels = _figure(13, 4.1 * nrows, nrows, ncols, sharey=True)
    names = list(dict.fromkeys(r["series"] for r in rows))
    sizes = list(dict.fromkeys(r["size"] for r in rows))
    series = {n: (_COLORS[sizes.index(r["size"]) % len(_COLORS)], "///" if r["query"] == "sum" else None)
              for n in names for r in rows if r["series"] == n}
    rhos = sorted({r["x"] for r in rows})
    for (ax, strip), col in zip(panels, attrs, strict=False):
        rs = [r for r in rows if r["panel"] == col]
        _draw_boxes(ax, strip, _boxes(rs), series, _log_offset(names, 0.1), _log_width(0.085))
        _rho_axis(ax, strip, rhos, xlabel=False)
        ax.set_title(f"{col} (m = {rs[0]['m']})")
        strip.set_xlabel(f"risk bound {_RHO} (%, log scale)")
        strip.tick_params(axis="x", labelsize=8)
    for ax, _ in panels[: len(attrs)]:
        if ax.get_subplotspec().is_first_col():
            ax.set_ylabel("|noise| / true value (log scale)")
    # the spare panel holds the legend
    ax, strip = panels[len(attrs)]
    from matplotlib.patches import Patch

    handles = [Patch(facecolor=c, alpha=0.8, hatch=h, edgecolor="black", label=n) for n, (c, h) in series.items()]
    ax.legend(handles=handles, loc="center", fontsize=10, title=f"query, {rows_label} rows sampled",
              frameon=False)
    ax.axis("off")
    strip.axis("off")
    for ax, _ in panels[len(attrs) + 1:]:
        ax.axis("off")
    fig.suptitle("Noise ratio of the mean and sum queries by database size, at the paper's scale")
    return fig


def figures(res, data=None):
    """Draw every figure of the replication.

    Parameters
    ----------
    res : Results
        The replication's results (`experiments.compute`).
    data : dict, optional
        `figure_data` of ``res`` (computed when None).

    Returns
    -------
    dict of str to matplotlib.figure.Figure
        The figures by key (as in `FIGURES`; Figure 4 only if sampled).
    """
    data = figure_data(res) if data is None else data
    attrs = list(dict.fromkeys(c["attribute"] for c in res.fig2))
    figs = {"fig1": _toy_risk(data["fig1"][1], res.toy), "tight": _toy_tight(data["tight"][1], res.toy),
            "fig2": _noise_ratio_rho(data["fig2"][1], attrs, res),
            "fig3": _noise_ratio_eps(data["fig3"][1], [a for a in attrs if a in FIG3_ATTRIBUTES])}
    if "fig4" in data:
        figs["fig4"] = _db_size(data["fig4"][1], attrs, res.rows_label)
    return figs


def draw_all(out, res, *, format="png", dpi=DPI, data=None):
    """Draw every figure of the replication into files.

    Parameters
    ----------
    out : str or path-like
        Where the files go (an existing directory).
    res : Results
        The replication's results (`experiments.compute`).
    format : str
        ``'png'``, ``'pdf'`` or ``'svg'`` (`FORMATS`).
    dpi : float
        Resolution, dots per inch.
    data : dict, optional
        `figure_data` of ``res`` (computed when None).

    Returns
    -------
    dict of str to pathlib.Path
        The files written, by figure key (Figure 4 only if sampled).

    Raises
    ------
    TypeError, ValueError
        For a bad ``format`` or ``dpi`` (`check_options`).
    """
    import matplotlib

    format, dpi = check_options(format, dpi)
    out = Path(out)
    paths = {}
    # no creation date and no random SVG ids: the same run writes the same bytes;
    # TrueType (Type 42) fonts in a PDF, as publishers ask (no Type 3 fonts)
    metadata = {"pdf": {"CreationDate": None}, "svg": {"Date": None}}.get(format)
    with matplotlib.rc_context({"svg.hashsalt": "diffident", "pdf.fonttype": 42}):
        for key, fig in figures(res, data).items():
            path = out / f"{FIGURES[key]}.{format}"
            fig.savefig(path, format=format, dpi=dpi, metadata=metadata)
            paths[key] = path
    return paths
