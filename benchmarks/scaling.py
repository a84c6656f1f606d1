#!/usr/bin/env python
"""Time against the number of worlds m: diffident, SciPy and the dense formula.

This script makes the log-log plot on the performance page and the data
behind it.

Usage (from the repository root)::

    python benchmarks/scaling.py                  # full run, a minute or so
    python benchmarks/scaling.py --quick          # tiny sizes, a few seconds (tests)
    python benchmarks/scaling.py --max-m 100000   # stop the size grid at 1e5
    python benchmarks/scaling.py --out-dir /tmp/scaling

By default it writes ``docs/img/scaling.png`` and ``docs/data/scaling.csv``
relative to the repository root. With ``--out-dir DIR`` both files go in DIR.
The PNG and CSV in ``docs/`` are made by running this script with no options
on the machine named in the figure's caption (CPU, CPU count, Numba threads,
NumPy / Numba / SciPy versions). To update them, run it again; timings from
another machine differ.

What is timed, for m = 10, 20, 50, 100, ..., 1e7 worlds (three sizes per
decade). The values are ``rng.uniform(0, 100, m)`` (distinct almost surely,
unsorted, seed 0; each size takes the first m values of one sample) and the
Laplace scale is 10. At that scale the risk falls from about 0.6 at m = 10 to
about 1e-6 at m = 1e7, so it is never simply 1 or 1/m.

Panel ``worst_case_risk``: the worst-case risk that the library calibrates,
``max_j 1 / sum_k exp(-|f_j - f_k| / scale)``.

* ``diffident``: ``diffident.worst_case_risk(values, scale=scale)``. It is exact
  and O(m log m), and the time includes the sort.
* ``scipy``: one ``scipy.special.logsumexp(-np.abs(values[j] - values) / scale)``
  per world j, then ``max_j 1 / exp(.)``. This is O(m^2).
* ``dense``: the NumPy broadcast formula in row blocks,
  ``diffident.testing.dense.dense_worst_case_risk``. This is O(m^2).

Panel ``log_evidence``: the posterior's normaliser for one response R = 37.5,
``log sum_k exp(-|R - f_k| / scale)``. All three methods are O(m).

* ``diffident``: ``diffident.log_evidence(values, response=R, scale=scale)``.
* ``scipy``: ``scipy.special.logsumexp(-np.abs(R - values) / scale)``.
* ``dense``: ``np.log(np.sum(np.exp(-(E - E.min())))) - E.min()`` with
  ``E = np.abs(R - values) / scale``,
  ``diffident.testing.dense.dense_log_evidence``.

The baselines are the table's: ``diffident.testing.COMPARISONS`` (the
``"scipy"`` and ``"dense"`` references of ``worst_case_risk`` and
``log_evidence``).

How each size is timed:

* ``time.perf_counter``, best of at least 3 and at most 50 runs. It stops
  after 3 runs once 1 s has been spent in timed runs. This follows
  ``diffident.testing.timing.best_time``, with a minimum number of runs added. The number of
  timed runs goes in the CSV column ``repeats``.
* Each diffident call gets one untimed warm-up call first, so Numba
  compilation and loading of the on-disk cache are never timed. The baselines
  get the same warm-up unless the previous size took more than 0.25 s: they
  are plain NumPy / SciPy with nothing to compile, and the warm-up would only
  double the cost of the slowest points.
* An O(m^2) series stops at the last size whose next size would take more
  than about 8 s per run. The stop is predicted by scaling the last
  measurement by (m_next / m)^2. Every point plotted or written is measured;
  nothing is extrapolated.

Correctness: wherever diffident and a baseline both ran, the relative
difference must be below 1e-9. For the risk this is the relative difference
of the risks. For the log-evidence it is the relative difference of the
evidence, ``|exp(a - b) - 1|``, because the log itself can be close to 0. The
largest difference goes in the CSV column ``max_rel_diff``: on a baseline
row it is the difference against diffident, and on a diffident row it is the
largest over the baselines, left empty where no baseline ran. The script
writes its files and then exits with status 1 if any difference is too large.

Output:

* A table on stdout with each baseline's time as a multiple of diffident's
  time at the same m.
* The CSV, with columns ``panel, method, m, seconds, repeats, max_rel_diff``.
* The PNG: two log-log panels, about 10 x 4 inches at 120 dpi.

Threads: diffident runs with Numba's default thread count, which the caption
gives. ``log_evidence`` uses all of those threads on large inputs, while
``worst_case_risk`` and the NumPy / SciPy baselines run on one core. Set
``NUMBA_NUM_THREADS=1`` for a one-core comparison.
"""
import argparse
import csv
import math
import sys
import time
from pathlib import Path

import numpy as np

import diffident as di
from diffident.testing import COMPARISONS
from diffident.testing.timing import fmt_t, machine_info, rel_diff

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PNG = REPO_ROOT / "docs" / "img" / "scaling.png"
DEFAULT_CSV = REPO_ROOT / "docs" / "data" / "scaling.csv"

SCALE = 10.0
RESPONSE = 37.5
SEED = 0
RTOL = 1e-9
CSV_COLUMNS = ["panel", "method", "m", "seconds", "repeats", "max_rel_diff"]

PANELS = ("worst_case_risk", "log_evidence")
METHODS = ("diffident", "scipy", "dense")
QUADRATIC = {("worst_case_risk", "scipy"), ("worst_case_risk", "dense")}

LABELS = {
    ("worst_case_risk", "diffident"): "diffident (exact, O(m log m))",
    ("worst_case_risk", "scipy"): "SciPy logsumexp per world, O(m²)",
    ("worst_case_risk", "dense"): "dense NumPy formula, O(m²)",
    ("log_evidence", "diffident"): "diffident.log_evidence",
    ("log_evidence", "scipy"): "scipy.special.logsumexp",
    ("log_evidence", "dense"): "NumPy log(sum(exp(...)))",
}
TITLES = {
    "worst_case_risk": "Worst-case risk  max_j 1 / Σ_k exp(-|f_j - f_k| / b)",
    "log_evidence": "Log-evidence of one response  log Σ_k exp(-|R - f_k| / b)",
}
STYLE = {"diffident": dict(color="C0", marker="o"),
         "scipy": dict(color="C1", marker="s"),
         "dense": dict(color="C2", marker="^")}


# --------------------------------------------------------------------------- settings


def settings(quick):
    """Timing knobs: full run, or the few-second smoke run for the tests."""
    if quick:
        return dict(max_m=10**4, min_repeat=1, max_repeat=5, budget=0.02,
                    quad_limit=0.05, warm_limit=0.25)
    return dict(max_m=10**7, min_repeat=3, max_repeat=50, budget=1.0,
                quad_limit=8.0, warm_limit=0.25)


def size_grid(max_m):
    """10, 20, 50, 100, ... up to max_m, with max_m added if it is not on the grid."""
    max_m = int(max_m)
    sizes = [d * 10**k for k in range(1, 16) for d in (1, 2, 5) if d * 10**k <= max_m]
    if max_m >= 2 and (not sizes or sizes[-1] < max_m):
        sizes.append(max_m)
    return sizes


# --------------------------------------------------------------------------- methods


# the baselines: one logsumexp per world, the dense formula, for each panel
scipy_worst_case_risk = COMPARISONS["worst_case_risk"].reference("scipy")
dense_worst_case_risk = COMPARISONS["worst_case_risk"].reference("dense")
scipy_log_evidence = COMPARISONS["log_evidence"].reference("scipy")
dense_log_evidence = COMPARISONS["log_evidence"].reference("dense")


def methods(panel, values):
    """The three callables for one panel and one set of values."""
    if panel == "worst_case_risk":
        return {"diffident": lambda: di.worst_case_risk(values, scale=SCALE),
                "scipy": lambda: scipy_worst_case_risk(values, scale=SCALE),
                "dense": lambda: dense_worst_case_risk(values, scale=SCALE)}
    return {"diffident": lambda: di.log_evidence(values, response=RESPONSE, scale=SCALE),
            "scipy": lambda: scipy_log_evidence(values, response=RESPONSE, scale=SCALE),
            "dense": lambda: dense_log_evidence(values, response=RESPONSE, scale=SCALE)}


def discrepancy(panel, ours, ref):
    """Relative difference of the risks, or of the evidences (not of their logs)."""
    if panel == "log_evidence":
        return float(abs(math.expm1(float(ours) - float(ref))))
    return rel_diff(ours, ref)


# --------------------------------------------------------------------------- runs


def timed(fn, cfg, warmup):
    """Best wall time of ``fn()``, in the manner of ``compare.best_time``.

    One untimed warm-up call first if ``warmup``; then at least
    ``min_repeat`` and at most ``max_repeat`` timed runs, stopping once
    ``budget`` seconds have been spent in timed runs. Returns
    (best_seconds, timed_runs, last_result).
    """
    out = fn() if warmup else None
    best = math.inf
    spent = 0.0
    n = 0
    while n < cfg["max_repeat"]:
        t0 = time.perf_counter()
        out = fn()
        dt = time.perf_counter() - t0
        n += 1
        best = min(best, dt)
        spent += dt
        if n >= cfg["min_repeat"] and spent >= cfg["budget"]:
            break
    return best, n, out


def run_panel(panel, sample, sizes, cfg, log=sys.stderr):
    """Time every method of one panel on every size; returns a list of rows."""
    rows = []
    last = {}        # method -> (m, seconds) of its latest measurement
    stopped = set()  # O(m^2) series that have reached their cap
    for m in sizes:
        values = sample[:m]
        fns = methods(panel, values)
        results = {}
        for name in METHODS:
            if name in stopped:
                continue
            if (panel, name) in QUADRATIC and name in last:
                m0, t0 = last[name]
                if t0 * (m / m0) ** 2 > cfg["quad_limit"]:
                    stopped.add(name)
                    print(f"  {panel}/{name}: stopped after m={m0} "
                          f"(m={m} would take ~{t0 * (m / m0) ** 2:.2g} s a run)", file=log)
                    continue
            warm = name == "diffident" or last.get(name, (0, 0.0))[1] <= cfg["warm_limit"]
            seconds, n, out = timed(fns[name], cfg, warm)
            last[name] = (m, seconds)
            results[name] = (seconds, n, out)
        ours = results["diffident"][2]
        diffs = {name: discrepancy(panel, ours, res[2])
                 for name, res in results.items() if name != "diffident"}
        for name, (seconds, n, _) in results.items():
            if name == "diffident":
                d = max(diffs.values()) if diffs else None
            else:
                d = diffs[name]
            rows.append(dict(panel=panel, method=name, m=m, seconds=seconds,
                             repeats=n, max_rel_diff=d))
        print(f"  {panel} m={m}: " + ", ".join(
            f"{k} {fmt_t(v[0])}" for k, v in results.items()), file=log, flush=True)
    return rows


# --------------------------------------------------------------------------- output


def write_csv(rows, path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(CSV_COLUMNS)
        for r in rows:
            d = r["max_rel_diff"]
            w.writerow([r["panel"], r["method"], r["m"], f"{r['seconds']:.6e}",
                        r["repeats"], "" if d is None else f"{d:.3e}"])


def print_table(rows, out=sys.stdout):
    """Per panel: m, each method's time, and baseline / diffident ratios."""
    for panel in PANELS:
        by = {(r["method"], r["m"]): r for r in rows if r["panel"] == panel}
        sizes = sorted({m for (_, m) in by})
        if not sizes:
            continue
        head = ["m", "diffident", "scipy", "scipy/di", "dense", "dense/di", "max rel diff"]
        body = []
        for m in sizes:
            t_di = by[("diffident", m)]["seconds"]
            line = [fmt_m(m), fmt_t(t_di)]
            for name in ("scipy", "dense"):
                r = by.get((name, m))
                line += ["-", "-"] if r is None else [fmt_t(r["seconds"]),
                                                      f"{r['seconds'] / t_di:.3g}x"]
            d = by[("diffident", m)]["max_rel_diff"]
            line.append("-" if d is None else f"{d:.1e}")
            body.append(line)
        widths = [max(len(x[i]) for x in [head] + body) for i in range(len(head))]
        print(f"\n{panel}  (scale {SCALE:g}; ratio = baseline time / diffident time)", file=out)
        print(" | ".join(h.rjust(w) for h, w in zip(head, widths, strict=False)), file=out)
        print("-+-".join("-" * w for w in widths), file=out)
        for b in body:
            print(" | ".join(x.rjust(w) for x, w in zip(b, widths, strict=False)), file=out)


def machine_note(cfg):
    """Two lines for the figure caption: the machine, then the method."""
    info = machine_info()
    threads = info["numba_threads"]
    return (f"{info['cpu']}, {info['cpu_count']} CPUs ({threads} Numba thread"
            f"{'s' if threads != 1 else ''}); Python {info['python']}, "
            f"NumPy {info['numpy']}, Numba {info['numba']}, SciPy {info['scipy']}, "
            f"diffident {info['diffident']}.\n"
            f"Values uniform on [0, 100], Laplace scale b = {SCALE:g}, R = {RESPONSE:g}. "
            f"Best of {cfg['min_repeat']} to {cfg['max_repeat']} runs "
            f"(time budget {cfg['budget']:g} s) after a warm-up call. O(m²) series stop "
            f"where the next size would take more than {cfg['quad_limit']:g} s a run.")


def fmt_m(m):
    """10 -> '10', 20000 -> '2e4'."""
    m = int(m)
    return str(m) if m < 1000 else f"{m:.0e}".replace("e+0", "e").replace("e+", "e")


def plot(rows, path, note):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4.3), constrained_layout=True)
    for ax, panel in zip(axes, PANELS, strict=False):
        for name in METHODS:
            pts = sorted((r["m"], r["seconds"]) for r in rows
                         if r["panel"] == panel and r["method"] == name)
            if not pts:
                continue
            m, t = np.array(pts).T
            ax.loglog(m, t, label=LABELS[(panel, name)], lw=1.6, ms=4.5, **STYLE[name])
        ax.set_title(TITLES[panel], fontsize=9.5)
        ax.set_xlabel("number of worlds m")
        ax.set_ylabel("time (s)")
        ax.grid(True, which="major", alpha=0.35, lw=0.6)
        ax.grid(True, which="minor", alpha=0.12, lw=0.4)
        # the empty corners on the full run: under the O(m log m) curve, and
        # above the flat start of the O(m) curves
        ax.legend(fontsize=7.5, loc="lower right" if panel == "worst_case_risk" else "upper left",
                  framealpha=0.9)
    fig.suptitle("diffident vs SciPy vs the dense formula: time against the number of worlds",
                 fontsize=11)
    fig.text(0.5, -0.01, note, ha="center", va="top", fontsize=7, color="0.35",
             linespacing=1.5)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)


# --------------------------------------------------------------------------- main


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="tiny sizes (m <= 1e4) and few repeats: a few seconds, for tests")
    ap.add_argument("--out-dir", metavar="DIR", default=None,
                    help="write scaling.png and scaling.csv in DIR "
                         "(default: docs/img/scaling.png and docs/data/scaling.csv)")
    ap.add_argument("--max-m", metavar="N", type=float, default=None,
                    help="largest number of worlds (default 1e7, or 1e4 with --quick)")
    args = ap.parse_args(argv)

    cfg = settings(args.quick)
    max_m = int(args.max_m) if args.max_m is not None else cfg["max_m"]
    if max_m < 10:
        ap.error("--max-m must be at least 10")
    if args.out_dir is None:
        png, csv_path = DEFAULT_PNG, DEFAULT_CSV
    else:
        png = Path(args.out_dir) / "scaling.png"
        csv_path = Path(args.out_dir) / "scaling.csv"

    sizes = size_grid(max_m)
    sample = np.random.default_rng(SEED).uniform(0.0, 100.0, sizes[-1])
    t0 = time.perf_counter()
    rows = []
    for panel in PANELS:
        rows += run_panel(panel, sample, sizes, cfg)
    wall = time.perf_counter() - t0

    note = machine_note(cfg)
    print("\nmachine: " + note)
    print(f"mode: {'quick' if args.quick else 'full'}, m = {sizes[0]} .. {sizes[-1]}, "
          f"timing loop {wall:.1f} s")
    print_table(rows)

    write_csv(rows, csv_path)
    plot(rows, png, note)
    print(f"\nwrote {csv_path}\nwrote {png}")

    bad = [r for r in rows if r["max_rel_diff"] is not None and not r["max_rel_diff"] < RTOL]
    if bad:
        for r in bad:
            print(f"MISMATCH {r['panel']} {r['method']} m={r['m']}: "
                  f"relative difference {r['max_rel_diff']:.3e} >= {RTOL:g}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
