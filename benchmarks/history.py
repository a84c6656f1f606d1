#!/usr/bin/env python
"""Run the asv suites over the last N commits of main from a clean clone, and publish.

Usage (from the repository root, with the ``bench`` extra installed)::

    python benchmarks/history.py 10            # the last 10 commits, full profile
    python benchmarks/history.py 3 --fast      # the fast profile (smaller sizes)
    python benchmarks/history.py 10 --publish  # then asv publish: .asv/history/html
    python benchmarks/history.py 10 --table    # print the headline rows as Markdown
                                               # (with --fast: the fast profile's)

The clone lives in ``.asv/history/repo`` (ignored by git) and is refreshed
from this repository's ``main`` on every run, so uncommitted work never
enters a timing; asv keeps its environments and results under
``.asv/history``, and commits already measured on this machine are skipped
(``--skip-existing-commits``), so a later run adds only the new ones.  Each
profile keeps its own results and report (``results``, ``html``; with
``--fast``, ``results-fast``, ``html-fast``).  The HTML report
(``--publish``) is a static site: open ``.asv/history/html/index.html``, or
serve it with ``asv preview``.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(cmd, cwd, env=None):
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, cwd=cwd, env=env, check=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n", type=int, help="how many of main's last commits to measure")
    ap.add_argument("--fast", action="store_true", help="the fast profile (DIFFIDENT_ASV_PROFILE=fast)")
    ap.add_argument("--publish", action="store_true", help="then build the HTML report (asv publish)")
    ap.add_argument("--branch", default="main", help="the branch to measure (default main)")
    ap.add_argument("--table", action="store_true",
                    help="only print the headline benchmarks over the last n commits measured (Markdown)")
    args = ap.parse_args(argv)
    if args.n < 1:
        ap.error(f"n must be at least 1, got {args.n}")
    home = ROOT / ".asv" / "history"
    # each profile keeps its own results (the same names at other sizes) and report
    tag = "-fast" if args.fast else ""
    results, html = home / f"results{tag}", home / f"html{tag}"
    if args.table:
        print(table(results, args.branch, args.n))
        return 0

    repo = home / "repo"
    if repo.exists():
        shutil.rmtree(repo)
    home.mkdir(parents=True, exist_ok=True)
    run(["git", "clone", "--quiet", "--branch", args.branch, str(ROOT), str(repo)], cwd=home)
    # asv's directories outside the clone: they survive the next refresh
    from asv.util import load_json  # (asv reads its configuration with // comments)

    conf = load_json(repo / "asv.conf.json", js_comments=True)
    conf.update(env_dir=str(home / "env"), results_dir=str(results), html_dir=str(html))
    (repo / "asv.history.json").write_text(json.dumps(conf, indent=2))
    env = dict(os.environ, DIFFIDENT_ASV_PROFILE="fast" if args.fast else "full")
    asv = [sys.executable, "-m", "asv"]
    cfg = ["--config", "asv.history.json"]
    run(asv + ["machine", "--yes"] + cfg, cwd=repo, env=env)
    run(asv + ["run", *cfg, "--skip-existing-commits", f"{args.branch}~{args.n}..{args.branch}"], cwd=repo, env=env)
    if args.publish:
        run(asv + ["publish", *cfg], cwd=repo, env=env)
        print(f"report: {html / 'index.html'}")
    return 0


#: (benchmark, parameters) rows of `table`: the fast profile's sizes
HEADLINE = [
    ("bench_core.LogEvidence.time_diffident", ("100000",)),
    ("bench_core.WorstCaseRisk.time_worst_case_risk", ("100000",)),
    ("bench_core.TightScale.time_tight_scale", ("10000", "100", "0.0")),
    ("bench_core.TightScale.time_tight_scale", ("10000", "100", "1e-06")),
    ("bench_expected.ExpectedRisk.time_expected_risk", ("100000", "'uniform'", "'laplace'")),
    ("bench_worlds.Sweep.time_sweep", ("100",)),
]


def table(results, branch, n):
    """The `HEADLINE` timings over ``branch``'s last ``n`` commits that have
    results (oldest first), as a Markdown table."""
    import itertools

    revs = subprocess.run(["git", "rev-list", f"--max-count={n}", branch], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout.split()[::-1]
    runs = {}
    for f in results.glob("*/*.json"):
        if f.name != "machine.json":
            d = json.loads(f.read_text())
            runs[d["commit_hash"]] = d
    commits = [c for c in revs if c in runs]
    head = "| benchmark | " + " | ".join(c[:8] for c in commits) + " |"
    lines = [head, "|" + " --- |" * (len(commits) + 1)]
    for name, want in HEADLINE:
        cells = []
        for c in commits:
            res = runs[c]["results"].get(name)
            value = None
            if res is not None:
                combos = list(itertools.product(*res[1]))
                if want in combos and res[0] is not None:
                    value = res[0][combos.index(want)]
            cells.append("-" if value is None else _fmt(value))
        label = f"`{name.split('.', 1)[1]}({', '.join(w.strip(chr(39)) for w in want)})`"
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _fmt(t):
    return f"{t * 1e3:.3g} ms" if t < 1 else f"{t:.3g} s"


if __name__ == "__main__":
    sys.exit(main())
