"""Figures of the replication (`diffident.replicate`).

matplotlib is optional: nothing here imports it at module level.  The
figures use the object-oriented API (``Figure`` with an Agg canvas), so no
display and no global pyplot state are touched.
"""

from pathlib import Path

import numpy as np

from .paper import FIG3_ATTRIBUTES

DPI = 100
_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd")


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


def _figure(w, h, nrows=1, ncols=1, **kw):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(w, h), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, squeeze=False, **kw)
    return fig, axes


def _percent_axis(ax, which="x", ticks=None):
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    axis = ax.xaxis if which == "x" else ax.yaxis
    if ticks is not None:
        axis.set_major_locator(FixedLocator(ticks))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:.4g}%"))
    axis.set_minor_formatter(NullFormatter())


def _save(fig, path):
    fig.savefig(path, dpi=DPI)
    return path


def _toy_risk(path, toy):
    fig, axes = _figure(11, 4.6, 1, 2)
    for ax, q, tag in zip(axes[0], ("mean", "median"), ("a", "b"), strict=True):
        rows = [r for r in toy["points"] if r.query == q]
        rho = np.array([r.rho for r in rows])
        wc = np.array([r.worst_case_risk for r in rows])
        bound = np.array([r.risk_bound for r in rows])
        ax.plot(100 * rho, 100 * wc, "-", color=_COLORS[0], lw=2.5, label="exact worst-case risk at the paper's scale")
        ax.plot(100 * rho, 100 * bound, "--", color="0.2", lw=1.5, label="paper's bound (risk = rho)")
        lo = 100 * toy["min_rho"]
        ax.axvspan(100 * rho.min(), lo, color="0.9", label=f"rho < 1/m = {lo:.4g}%: unattainable")
        ax.axhline(lo, color="0.6", lw=1, ls=":", label="1/m (random guess)")
        r3 = 1 / 3
        y3 = toy["wc_mean"] if q == "mean" else toy["wc_median"]
        ax.plot([100 * r3], [100 * y3], "o", color=_COLORS[3], label=f"rho = 1/3: risk {100 * y3:.2f}%")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ticks = [10, lo, 20, 30, 50, 70, 100]
        _percent_axis(ax, "x", ticks)
        _percent_axis(ax, "y", ticks[1:])
        _toy_labels(ax, toy, q, "identification risk (%, log scale)", f"({tag}) ")
    fig.suptitle("Figure 1: worst-case identification risk at the paper's Laplace scale")
    return _save(fig, path)


def _toy_tight(path, toy):
    fig, axes = _figure(11, 4.6, 1, 2)
    for ax, q in zip(axes[0], ("mean", "median"), strict=True):
        rows = [r for r in toy["points"] if r.query == q and r.paper_epsilon > 0]
        rho = np.array([r.rho for r in rows])
        ax.plot(100 * rho, [r.tight_epsilon for r in rows], "-", color=_COLORS[2], lw=2.5,
                label="tight epsilon (exact worst case = rho)")
        ax.plot(100 * rho, [r.paper_epsilon for r in rows], "--", color="0.2", lw=1.5,
                label="paper: epsilon = ln((m-1) rho / (1-rho))")
        ax.set_xscale("log")
        _percent_axis(ax, "x", [100 * toy["min_rho"], 20, 30, 50, 70, 100])
        _toy_labels(ax, toy, q, "epsilon (Laplace scale = S / epsilon)")
    fig.suptitle("Tight epsilon against the paper's epsilon (beyond the paper)")
    return _save(fig, path)


def _toy_labels(ax, toy, q, ylabel, tag=""):
    """Labels, title, grid and legend of a toy-example panel against rho."""
    ax.set_xlabel("risk bound rho (%, log scale)")
    ax.set_ylabel(ylabel)
    ax.set_title(f"{tag}toy example, {q} (m = {toy['m']}, S = {toy['s_' + q]:.4g})")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")


def _boxes(ax, cells, groups, key, base_pos, log=True, spread=0.11, width=0.09):
    """Grouped box plots: one box per cell.

    Grouped by ``base_pos(cell)``, coloured by ``groups`` (the values of
    ``cell[key]``).
    """
    from matplotlib.transforms import blended_transform_factory

    trans = blended_transform_factory(ax.transData, ax.transAxes)
    g = len(groups)
    marked = False
    for i, name in enumerate(groups):
        cs = [c for c in cells if c[key] == name]
        off = (i - (g - 1) / 2) * spread
        pos, data, bad = [], [], []
        for c in cs:
            p = base_pos(c)
            p = p * 10 ** off if log else p + off
            if c["ratio"] is not None:
                data.append(c["ratio"])
                pos.append(p)
            else:
                bad.append(p)
        if data:
            widths = [p * (10 ** (width / 2) - 10 ** (-width / 2)) for p in pos] if log else width
            bp = ax.boxplot(data, positions=pos, widths=widths, whis=(5, 95), showfliers=False, patch_artist=True,
                            manage_ticks=False, medianprops={"color": "black", "lw": 1})
            for b in bp["boxes"]:
                b.set_facecolor(_COLORS[i % len(_COLORS)])
                b.set_alpha(0.8)
        ax.plot([], [], "s", color=_COLORS[i % len(_COLORS)], label=str(name))
        if bad:
            ax.plot(bad, [0.04] * len(bad), "x", color=_COLORS[i % len(_COLORS)], ms=7, mew=2, transform=trans,
                    clip_on=False)
            marked = True
    if marked:
        ax.plot([], [], "x", color="0.3", ms=7, mew=2, label="not releasable (rho < 1/m)")


def _noise_ratio_rho(path, cells, attrs, title, true_label):
    fig, axes = _figure(11, 5.2)
    ax = axes[0, 0]
    _boxes(ax, cells, attrs, "attribute", lambda c: 100 * c["rho"])
    _finish_rho_axis(ax, cells)
    ax.set_ylabel(f"noise ratio |noise| / {true_label} (log scale)")
    draws = max((c["ratio"].size for c in cells if c["ratio"] is not None), default=0)
    ax.set_title(title + f"\nboxes: quartiles and median; whiskers: 5th and 95th percentiles of {draws} draws")
    ax.legend(fontsize=8, loc="upper right", ncols=2)
    return _save(fig, path)


def _finish_rho_axis(ax, cells):
    from matplotlib.ticker import LogLocator

    rhos = sorted({c["rho"] for c in cells})
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks([100 * r for r in rhos])
    ax.set_xticklabels([f"{100 * r:.3g}%" for r in rhos])
    ax.minorticks_off()
    ax.yaxis.set_minor_locator(LogLocator(subs="auto"))
    ax.set_xlim(100 * min(rhos) / 2.5, 100 * max(rhos) * 2.5)
    ax.set_xlabel("risk bound rho (%, log scale); rho = 0.5 / 8^k")
    ax.grid(True, axis="y", which="major", alpha=0.3)


def _noise_ratio_eps(path, cells, attrs):
    fig, axes = _figure(11, 4.8, 1, len(attrs))
    for ax, col, i in zip(axes[0], attrs, range(len(attrs)), strict=True):
        cs = sorted((c for c in cells if c["attribute"] == col), key=lambda c: c["epsilon"])
        good = [c for c in cs if c["ratio"] is not None]
        bad = [c for c in cs if c["ratio"] is None]
        if good:
            bp = ax.boxplot([c["ratio"] for c in good], positions=[c["epsilon"] for c in good], widths=0.45,
                            whis=(5, 95), showfliers=False, patch_artist=True, manage_ticks=False,
                            medianprops={"color": "black", "lw": 1})
            for b in bp["boxes"]:
                b.set_facecolor(_COLORS[2 + i])
                b.set_alpha(0.8)
            for c in good:
                ax.annotate(f"rho {100 * c['rho']:.3g}%", (c["epsilon"], float(np.percentile(c["ratio"], 95))),
                            textcoords="offset points", xytext=(0, 4), ha="center", fontsize=7)
        if bad:
            from matplotlib.transforms import blended_transform_factory

            tr = blended_transform_factory(ax.transData, ax.transAxes)
            ax.plot([0.0] * len(bad), [0.04] * len(bad), "x", color="0.3", ms=8, mew=2, transform=tr,
                    label=f"not releasable at {len(bad)} of the rho (rho < 1/m, epsilon 0)")
            ax.legend(fontsize=8, loc="upper right")
        ax.set_yscale("log")
        y0, y1 = ax.get_ylim()
        ax.set_ylim(y0, y1 * 2.0)
        ax.set_xlim(-0.7, max(c["epsilon"] for c in cs) + 0.9)
        ax.set_xticks([c["epsilon"] for c in good])
        ax.set_xticklabels([f"{c['epsilon']:.3f}" for c in good], rotation=45, fontsize=8)
        ax.set_xlabel("paper's epsilon = ln((m-1) rho / (1-rho))")
        ax.set_ylabel("noise ratio |noise| / mean (log scale)")
        ax.set_title(f"{col} (m = {cs[0]['m']})")
        ax.grid(True, axis="y", alpha=0.3)
    fig.suptitle("Figure 3: noise ratio of the mean query against the paper's epsilon\n"
                 "boxes: quartiles and median; whiskers: 5th and 95th percentiles")
    return _save(fig, path)


def _db_size(path, cells, attrs, rows_label):
    sizes = sorted({c["size"] for c in cells})
    fig, axes = _figure(12, 4.2 * len(sizes), len(sizes), 2, sharey=True)
    for r, size in enumerate(sizes):
        for j, q in enumerate(("mean", "sum")):
            ax = axes[r, j]
            cs = [c for c in cells if c["size"] == size and c["query"] == q]
            _boxes(ax, cs, attrs, "attribute", lambda c: 100 * c["rho"])
            _finish_rho_axis(ax, cs)
            ax.set_ylabel(f"|noise| / true {q} (log scale)")
            ax.set_title(f"{q} query, database of {size} {rows_label} rows")
            if r == 0 and j == 0:
                ax.legend(fontsize=8, loc="upper right", ncols=2)
    fig.suptitle("Figure 4: noise ratio of mean and sum queries by database size (paper's scale)\n"
                 "boxes: quartiles and median; whiskers: 5th and 95th percentiles")
    return _save(fig, path)


def draw_all(out, res):
    """Draw every figure of the replication as PNG.

    Parameters
    ----------
    out : str or path-like
        Where the PNG files go (an existing directory).
    res : Results
        The replication's results (`experiments.compute`).

    Returns
    -------
    dict of str to pathlib.Path
        The figures drawn, by name (Figure 4 only where a database could be
        sampled).
    """
    out = Path(out)
    toy, fig2, fig4 = res.toy, res.fig2, res.fig4
    rows_label, embedded = res.rows_label, res.embedded
    attrs = list(dict.fromkeys(c["attribute"] for c in fig2))
    true_label = "published mean" if embedded else "mean"
    figs = {
        "fig1": _toy_risk(out / "fig1_toy_risk.png", toy),
        "tight": _toy_tight(out / "fig_tight_epsilon.png", toy),
        "fig2": _noise_ratio_rho(out / "fig2_noise_ratio.png", fig2, attrs,
                                 f"Figure 2: noise ratio of the mean query (n = {fig2[0]['n']}, paper's scale)",
                                 true_label),
        "fig3": _noise_ratio_eps(out / "fig3_noise_ratio_epsilon.png",
                                 [c for c in fig2 if c["attribute"] in FIG3_ATTRIBUTES],
                                 [a for a in attrs if a in FIG3_ATTRIBUTES]),
    }
    if fig4:
        figs["fig4"] = _db_size(out / "fig4_db_size.png", fig4, attrs, rows_label)
    return figs
