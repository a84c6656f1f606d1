#!/usr/bin/env python
"""Draw the risk-measures figure of the Concepts page: worst case, expected success and the prior.

Usage (from the repository root)::

    python docs/scripts/risk_measures_figure.py [--out docs/img/risk-measures.png]
        [--csv docs/data/risk-measures.csv] [--adult PATH]

Two panels, identification probability against epsilon = S / scale (both
axes logarithmic):

* left, the paper's toy example: the eight worlds' means of D' = {1, 3} and
  one of U \\ D' = {2, 4, ..., 10}; a mean of three integers, so the
  discrete noise lives on the multiples of 1/3;
* right, one Adult column: the mean of hours-per-week over D' = all rows but
  the first, the missing person's hours in 1..99 (99 worlds); the discrete
  noise lives on the multiples of 1/n (n rows), which is integer noise on
  the sum divided by n.

Each panel shows the exact worst case (continuous Laplace; the discrete
Laplace's worst case is the same), the best adversary's expected success
with continuous and with discrete Laplace noise, and the prior 1/m. The
plotted points are written to a tidy CSV file (one row per point).
"""
import argparse
from pathlib import Path

import numpy as np

import diffident as di
from diffident.replicate.data import adult_path, load_adult
from diffident.replicate.report import _write_csv

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_OUT = ROOT / "docs" / "img" / "risk-measures.png"
DEFAULT_CSV = ROOT / "docs" / "data" / "risk-measures.csv"
DPI = 100

TOY_MEANS = np.array([2, 8 / 3, 3, 10 / 3, 11 / 3, 4, 13 / 3, 14 / 3])
EPSILON = np.geomspace(1e-2, 1e3, 61)   # 12 points a decade
COLUMNS = ["panel", "m", "sensitive_range", "granularity", "epsilon", "scale", "measure", "noise",
           "probability"]
# measure -> (noise argument, label); the prior has no noise
MEASURES = {
    "worst_case": ("laplace", "worst case (continuous or discrete Laplace)"),
    "expected": ("laplace", "expected success, continuous Laplace"),
    "expected_discrete": ("discrete_laplace", "expected success, discrete Laplace"),
    "prior": ("", "prior 1/m"),
}


def panels(adult=None):
    """The two panels' worlds: a list of (panel, title, values, granularity).

    ``adult`` is the Adult CSV file (default: ``adult_path``, which honours
    DIFFIDENT_ADULT_CSV).
    """
    hours = load_adult(adult_path(ROOT) if adult is None else adult)["hours-per-week"]
    n = hours.size
    means, counts = di.world_values("mean", known=hours[1:], candidates=di.Domain(1, 99))
    assert np.all(counts == 1)
    return [
        ("toy", "Toy example: mean, m = 8", TOY_MEANS, 1 / 3),
        ("adult_hours", f"Adult hours-per-week: mean, m = {means.size}", means, 1 / n),
    ]


def measures(values, granularity, epsilon=EPSILON):
    """Per measure name, the identification probability at each epsilon."""
    values = np.asarray(values, dtype=float)
    scale = np.ptp(values) / np.asarray(epsilon, dtype=float)
    return {
        "worst_case": di.worst_case_risk(values, scale=scale),
        "expected": di.expected_risk(values, scale=scale),
        "expected_discrete": di.expected_risk(values, scale=scale, noise="discrete_laplace",
                                              granularity=granularity),
        "prior": np.full(scale.shape, 1 / values.size),
    }


def rows(adult=None, epsilon=EPSILON):
    """The tidy rows of the CSV file, in the order of COLUMNS."""
    out = []
    for panel, _, values, g in panels(adult):
        S = float(np.ptp(values))
        for measure, probs in measures(values, g, epsilon).items():
            noise = MEASURES[measure][0]
            for e, p in zip(epsilon, probs, strict=True):
                out.append((panel, values.size, S, g if noise == "discrete_laplace" else "",
                            float(e), S / float(e), measure, noise, float(p)))
    return out


def draw(out, csv=None, adult=None):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    styles = {
        "worst_case": dict(color="black", ls="-", lw=1.8),
        "expected": dict(color="tab:blue", ls="--", lw=1.8),
        "expected_discrete": dict(color="tab:orange", ls=":", lw=2.2),
        "prior": dict(color="gray", ls="-.", lw=1.2),
    }
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), constrained_layout=True, sharey=True)
    for ax, (_, title, values, g) in zip(axes, panels(adult), strict=True):
        for measure, probs in measures(values, g, EPSILON).items():
            ax.plot(EPSILON, probs, label=MEASURES[measure][1], **styles[measure])
        ax.set(xscale="log", yscale="log", xlim=(EPSILON[0], EPSILON[-1]), ylim=(5e-3, 1.3),
               xlabel=r"$\varepsilon = S\,/\,\mathrm{scale}$", title=title)
        ax.grid(alpha=0.3, which="both")
    axes[0].set_ylabel("identification probability")
    axes[0].legend(fontsize=8, loc="lower right")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=DPI)
    plt.close(fig)
    if csv is not None:
        csv = Path(csv)
        csv.parent.mkdir(parents=True, exist_ok=True)
        _write_csv(csv, COLUMNS, rows(adult))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="PNG to write (default: %(default)s)")
    parser.add_argument("--csv", default=str(DEFAULT_CSV), help="CSV to write (default: %(default)s)")
    parser.add_argument("--adult", default=None,
                        help="the Adult CSV file (default: DIFFIDENT_ADULT_CSV, else ../shared/data/adult.csv)")
    args = parser.parse_args(argv)
    print(draw(args.out, args.csv, args.adult))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
