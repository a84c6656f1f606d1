"""The ``diffident`` command.

* ``diffident replicate`` (also plain ``diffident``): the main job, every
  table and figure of Lee and Clifton (KDD 2012) with the exact calibration
  beside them, on embedded defaults or ``--data adult.csv``.
* ``diffident sweep --data FILE --out OUT.csv``: risk and calibration over a
  grid of rho x queries x columns x dataset sizes.
* ``diffident calibrate --worlds M --range S``: the paper's Laplace
  calibration (Theorem 1) for risk bounds, a number of worlds and a
  sensitive range.
* ``diffident explain --epsilon E [--delta D]``: what a DP guarantee means
  to an attacker (posteriors, identification, advantage, TPR at FPR), for
  the guarantee and the noise that attains it.

Bad arguments give a one-line error and exit status 2.
"""

import argparse
import contextlib
import decimal
import math
import os
import sys
import tempfile
import warnings
from collections.abc import Sequence

import numpy as np

import diffident as di

from . import __version__
from ._numerics import progress as _progress
from ._numerics import validate as _validate
from ._risk.closed_form import laplace_epsilon, laplace_risk, laplace_scale

__all__ = ["main", "build_parser"]

_DEFAULT_RHO = (0.5, 0.1, 0.015, 0.001)


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors and exit status 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


def _fmt(x, rounding=decimal.ROUND_HALF_EVEN):
    """x to 10 significant digits, rounded as ``rounding`` says (from the
    exact binary value): a printed scale or risk bound is rounded up and a
    printed epsilon down, so that copying the table errs on the private
    side.
    """
    x = float(x)
    if math.isinf(x) or x == 0.0:
        return "inf" if math.isinf(x) else "0"
    d = decimal.Decimal(x)
    with decimal.localcontext() as ctx:
        ctx.prec = 400
        d = d.quantize(decimal.Decimal(1).scaleb(d.adjusted() - 9), rounding=rounding)
    d = d.normalize()  # as %.10g: no trailing zeros, fixed notation for exponents -4..9
    if -4 <= d.adjusted() < 10:
        return f"{d:f}"
    mant, _, exp = f"{d:e}".partition("e")
    return f"{mant}e{exp[0]}{exp[1:].zfill(2)}"


_UP, _DOWN = decimal.ROUND_CEILING, decimal.ROUND_FLOOR


def _table(headers, rows):
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    line = "  ".join(h.rjust(w) for h, w in zip(headers, widths, strict=True))
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join(out)


def _calibrate(args, out):
    # validated here, once, under the options' names; the cores take them as they are
    rho = _validate.probability("rho", args.rho)
    m = _validate.worlds("worlds", args.worlds).item()
    s = _validate.non_negative("range", args.range).item()
    eps = laplace_epsilon(rho, np.float64(m))
    lam = laplace_scale(rho, np.float64(m), np.float64(s))
    bound = laplace_risk(lam, np.float64(m), np.float64(s))
    if args.json:
        _calibrate_json(rho, eps, lam, bound, m, s, out)
        return 0
    rows = [
        (_fmt(r), _fmt(e, _DOWN), _fmt(x, _UP), _fmt(b, _UP),
         "unattainable" if math.isinf(x) else ("no noise" if x == 0 else ""))
        for r, e, x, b in zip(rho, eps, lam, bound, strict=True)
    ]
    print("Laplace calibration for differential identifiability (Lee and Clifton, KDD 2012, Theorem 1)", file=out)
    print(f"worlds m = {_fmt(m)}, sensitive range S = {_fmt(s)}, lowest reachable risk 1/m = {_fmt(1.0 / m)}", file=out)
    print(file=out)
    print(_table(["rho", "epsilon", "scale", "risk bound", "note"], rows), file=out)
    print(file=out)
    print("epsilon = ln((m-1) rho / (1-rho)), scale = S / epsilon; the risk bound is", file=out)
    print("1 / (1 + (m-1) exp(-S/scale)) at the returned scale (<= rho by construction).", file=out)
    print("Printed to 10 significant digits: scales and risk bounds rounded up, epsilons down.", file=out)
    return 0


def _explain(args, out):
    e = di.explain(args.epsilon, args.delta, mechanism=args.mechanism, m=args.m, priors=args.prior)
    if args.plot:
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            raise ValueError('--plot needs matplotlib: pip install "diffident[plot]"') from None
        fig, ax = plt.subplots(figsize=(5.0, 4.5))
        e.plot(ax)
        fig.tight_layout()
        fig.savefig(args.plot)
        plt.close(fig)
    print(e, file=out)
    if args.plot:
        print(f"\ntrade-off curves written to {args.plot}", file=out)
    return 0


def _calibrate_json(rho, eps, lam, bound, m, s, out):
    """The calibration as one JSON object: the full floats (not the table's
    10 digits), infinities as the strings "inf" and "-inf".
    """
    import json

    from ._sweep.table import json_value as num  # (finite floats as they are, infinities as strings)

    rows = [{"rho": num(r), "epsilon": num(e), "scale": num(x), "risk_bound": num(b),
             "status": "unattainable" if math.isinf(x) else ("no noise needed" if x == 0 else "calibrated")}
            for r, e, x, b in zip(rho, eps, lam, bound, strict=True)]
    json.dump({"worlds": num(m), "sensitive_range": num(s), "min_rho": num(1.0 / m), "rows": rows}, out,
              allow_nan=False)
    out.write("\n")


_TABLE_FORMATS = (".csv", ".json", ".parquet")


def _sweep(args, out):
    ext = _check_out(args.out)
    domains = dict(_domain(spec) for spec in args.domain or [])
    progress = not args.quiet  # (a bar on a terminal, else a line every 10 s)
    table = di.sweep(args.data, columns=args.columns, queries=args.queries, rho=args.rho, n_rho=args.n_rho,
                     sizes=args.sizes, domains=domains, calibrations=args.calibration, ddof=args.ddof,
                     seed=args.seed, progress=progress, dropna=args.dropna, q=args.q,
                     infer_domains=True if args.infer_domains else None, noise=args.noise, risk=args.risk,
                     max_memory=args.max_memory, max_seconds=args.max_seconds or None,
                     skip_expensive=args.skip_expensive)
    _write_whole(table, ext, args.out)
    if not args.quiet:
        cols = sorted(set(table["column"]))
        print(f"wrote {len(table)} rows ({len(cols)} columns x {len(args.queries)} queries) to {args.out}", file=out)
    return 0


def _check_out(path):
    """The format of ``--out`` (its extension), checked before any work: a
    known extension, and a folder that exists and can be written to.
    """
    ext = os.path.splitext(path)[1].lower()
    if ext not in _TABLE_FORMATS:
        raise ValueError(f"--out must end in {', '.join(_TABLE_FORMATS)} (the format), got {path!r}")
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise ValueError(f"--out {path!r} is a directory: name a file in it")
    if not os.path.isdir(folder):
        raise ValueError(f"--out {path!r}: the folder {folder!r} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise ValueError(f"--out {path!r}: cannot write there (permission denied)")
    if ext == ".parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise ValueError("--out .parquet needs pyarrow: python -m pip install pyarrow, or write .csv") from None
    return ext


def _write_whole(table, ext, path):
    """Write the table to a temporary file beside ``path``, then rename it
    into place: ``path`` is either the whole table or as it was before.
    """
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".diffident-", suffix=ext, dir=folder)
    os.close(fd)
    try:
        {".csv": table.to_csv, ".json": table.to_json, ".parquet": table.to_parquet}[ext](tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # (mkstemp's 0600: the mode a plain open would give)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise


_DOMAIN_FORMS = "COLUMN=LO:HI (integers), COLUMN=LO:HI:STEP or COLUMN=LO:HI:real"


def _domain(spec):
    """``(column, Domain)`` of a ``--domain`` text: ``COLUMN=LO:HI`` (integer
    ends), ``COLUMN=LO:HI:STEP`` (a grid, read as decimals: 0.1 is one
    tenth) or ``COLUMN=LO:HI:real`` (a real interval, which the sweep
    refuses with the reason); a ValueError naming the option and the text.
    """
    name, sep, rng = spec.rpartition("=")
    parts = rng.split(":")
    if not (sep and name) or len(parts) not in (2, 3):
        raise ValueError(f"--domain must look like {_DOMAIN_FORMS}, got {spec!r}")
    real = len(parts) == 3 and parts[2].strip().lower() == "real"
    nums = []
    for part in parts[:2] if real else parts:
        try:
            x = decimal.Decimal(part.strip())
        except decimal.InvalidOperation:
            x = None
        if x is None or not x.is_finite():
            raise ValueError(f"--domain {spec!r}: {part!r} is not a finite number (the forms: {_DOMAIN_FORMS})")
        nums.append(x)
    if real:
        raise ValueError(f"--domain {spec!r}: a real interval has infinitely many possible worlds, and the sweep's "
                         f"risk and calibration need a finite number m: give the grid the values are recorded on, "
                         f"COLUMN=LO:HI:STEP (e.g. {name}={parts[0]}:{parts[1]}:0.1)")
    if len(nums) == 2 and any(x != x.to_integral_value() for x in nums):
        raise ValueError(f"--domain {spec!r}: COLUMN=LO:HI is an integer domain and {rng!r} has a non-integer end; "
                         f"give a step for a grid, e.g. {name}={parts[0]}:{parts[1]}:0.1")
    try:
        if len(nums) == 2:
            return name, di.Domain(int(nums[0]), int(nums[1]))
        return name, di.Domain(nums[0], nums[1], step=nums[2])
    except ValueError as exc:
        raise ValueError(f"--domain {spec!r}: {exc}") from None


def _replicate(args, out):
    from .replicate import run

    result = run(args.out, data=args.data, seed=args.seed, progress=not args.quiet,
                 format=args.format, dpi=args.dpi)
    print(f"replication of Lee and Clifton (KDD 2012) from {result['source']}", file=out)
    print(f"outputs in {os.path.abspath(args.out)}", file=out)
    print(f"report:  {os.path.abspath(result['report'])}", file=out)
    for kind in ("tables", "figures"):
        for path in result.get(kind, []):
            print(f"{kind[:-1]:7s}: {os.path.abspath(path)}", file=out)
    for note in result.get("notes", []):
        print(f"note: {note}", file=out)
    return 0


def _number(name):
    """An argparse type: a float, else a one-line error (its range is checked
    once, where the numbers are used).
    """

    def parse(text):
        try:
            return float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number, got {text!r}") from None

    return parse


def build_parser():
    """The ``diffident`` argument parser, with its four subcommands."""
    p = _Parser(prog="diffident",
                description="Differential identifiability: re-identification risk and noise calibration.")
    p.add_argument("--version", action="version", version=f"diffident {__version__}")
    sub = p.add_subparsers(dest="command", parser_class=_Parser)
    c = sub.add_parser(
        "calibrate",
        help="the paper's Laplace scale and epsilon for a risk bound rho",
        description="The paper's Laplace calibration (Theorem 1) for the number of possible worlds and the "
        "query's sensitive range, at each risk bound (default rho = "
        f"{', '.join(map(str, _DEFAULT_RHO))}). The paper's Adult hours-per-week example: "
        "--worlds 99 --range 0.002006469841529831 (98/48842).",
    )
    c.add_argument("--rho", type=_number("rho"), nargs="+", default=list(_DEFAULT_RHO), help="risk bound(s) in [0, 1]")
    c.add_argument("--worlds", "-m", type=_number("worlds"), required=True,
                   help="number of possible worlds m (>= 1; required)")
    c.add_argument("--range", "-s", type=_number("range"), required=True,
                   help="sensitive range S of the query (>= 0; required)")
    c.add_argument("--json", action="store_true",
                   help="print one JSON object with the full floats instead of the table")
    c.set_defaults(func=_calibrate)

    w = sub.add_parser(
        "sweep",
        help="risk and calibration over a grid of rho x queries x columns x sizes, as CSV",
        description="Sweep a grid of rho x queries x columns x dataset sizes x noises x risks x calibration "
        "(the paper's bound and the exact tight one, which holds for every D' = D - i) over the numeric columns "
        "of a CSV file; write a tidy CSV table.",
    )
    w.add_argument("--data", required=True, help="CSV file with a header row")
    w.add_argument("--out", required=True, help="output file: .csv, .json (records) or .parquet (needs pyarrow)")
    w.add_argument("--columns", nargs="+", default=None, help="columns (default: every numeric column)")
    w.add_argument("--queries", nargs="+", default=["mean", "median", "std"],
                   choices=["sum", "mean", "median", "quantile", "min", "max", "var", "std", "count"],
                   help="named queries (default: mean median std; quantile is the --q quantile)")
    w.add_argument("--q", type=_number("q"), default=0.5, help="the quantile of --queries quantile (default 0.5)")
    w.add_argument("--rho", type=_number("rho"), nargs="+", default=None,
                   help="risk bounds (default: --n-rho log-spaced values from just above 1/m to 0.5)")
    w.add_argument("--n-rho", type=int, default=50, help="size of the default rho grid (default 50)")
    w.add_argument("--sizes", type=int, nargs="+", default=None, help="dataset sizes (seeded samples of rows)")
    w.add_argument("--domain", nargs="+", metavar="COLUMN=LO:HI[:STEP]",
                   help="domain of a column: COLUMN=LO:HI, the integers LO..HI (bmi=12:60); COLUMN=LO:HI:STEP, "
                   "the grid LO, LO+STEP, ..., HI read as decimals (bmi=12:60:0.1); COLUMN=LO:HI:real names a "
                   "real interval, which is refused (infinitely many worlds)")
    w.add_argument("--infer-domains", action="store_true",
                   help="accept domains inferred from a column's own minimum and maximum without a warning")
    w.add_argument("--dropna", action="store_true", help="drop missing values (empty or NA cells) from the columns")
    w.add_argument("--calibration", nargs="+", default=["bound", "tight"], choices=["bound", "tight"],
                   help="bound (the paper's), tight (exact, for every D' = D - i), or both (default)")
    w.add_argument("--noise", nargs="+", default=["laplace"], choices=["laplace", "discrete_laplace", "gaussian"],
                   help="noise to calibrate (default laplace): discrete_laplace is added on the lattice of the "
                   "query's values (column granularity); gaussian takes --risk expected and --calibration tight")
    w.add_argument("--risk", nargs="+", default=["worst"], choices=["worst", "expected"],
                   help="risk measure (default worst): worst, the largest posterior over every response; "
                   "expected, the probability that the best adversary names the true world")
    w.add_argument("--ddof", type=int, default=1, choices=[0, 1], help="for var and std (default 1)")
    w.add_argument("--max-memory", default="2G", metavar="SIZE",
                   help="memory a cell may take, e.g. 4G or 512M (default 2G); a cell estimated above it is "
                   "refused before any work")
    w.add_argument("--max-seconds", type=_number("max-seconds"), default=600.0,
                   help="estimated seconds a cell may take (default 600; 0: no limit)")
    w.add_argument("--skip-expensive", action="store_true",
                   help="write cells over --max-memory or --max-seconds as rows with status 'over budget' "
                   "instead of refusing the sweep")
    w.add_argument("--seed", type=int, default=0, help="seed of the dataset samples (default 0)")
    w.add_argument("--quiet", action="store_true",
                   help="no progress, compile notice or summary (warnings and errors still print)")
    w.set_defaults(func=_sweep)

    x = sub.add_parser(
        "explain",
        help="what an (epsilon, delta) guarantee means to an attacker",
        description="What an (epsilon, delta)-DP guarantee means to an attacker: the largest posterior at several "
        "priors (as odds), the bounds on naming one of m candidates, the membership advantage and the TPR at a 1%% "
        "FPR, for the guarantee and for the continuous and integer noise that attain it.",
    )
    x.add_argument("--epsilon", type=_number("epsilon"), required=True, help="the guarantee's epsilon (required)")
    x.add_argument("--delta", type=_number("delta"), default=0.0, help="the guarantee's delta (default 0)")
    x.add_argument("--mechanism", default=None,
                   choices=["laplace", "gaussian", "discrete_laplace", "discrete_gaussian"],
                   help="the noise to show (default: Laplace and discrete Laplace for delta 0, else the Gaussians)")
    x.add_argument("--m", type=_number("m"), nargs="+", default=[10, 100, 1000],
                   help="numbers of candidates (default 10 100 1000)")
    x.add_argument("--prior", type=_number("prior"), nargs="+", default=[0.001, 0.01, 0.1, 0.5],
                   help="the attacker's priors, in (0, 1) (default 0.001 0.01 0.1 0.5)")
    x.add_argument("--plot", metavar="FILE", default=None,
                   help="also draw the trade-off curves into FILE (.png, .pdf, .svg; needs the plot extra)")
    x.set_defaults(func=_explain)

    r = sub.add_parser(
        "replicate",
        help="reproduce the paper's tables and figures (with the exact calibration beside them)",
        description="Reproduce every table and figure of Lee and Clifton (KDD 2012): figures (PNG, PDF or SVG, "
        "with the plot extra), the CSV data behind them and a markdown report comparing each number with the paper's.",
    )
    r.add_argument("--out", default="diffident-replication", help="output directory (default ./diffident-replication)")
    r.add_argument("--data", default=None, help="the UCI Adult CSV (default: embedded facts and a synthetic sample)")
    r.add_argument("--seed", type=int, default=0, help="seed of the synthetic sample and the draws (default 0)")
    r.add_argument("--format", default="png", choices=["png", "pdf", "svg"],
                   help="file format of the figures (default png)")
    r.add_argument("--dpi", type=_number("dpi"), default=100,
                   help="resolution of the figures, dots per inch (from 20 to 1200; default 100)")
    r.add_argument("--quiet", action="store_true", help="no progress lines")
    r.set_defaults(func=_replicate)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``diffident`` command on ``argv`` (default: the process's arguments); its exit status."""
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version")):
        argv = ["replicate"] + argv  # the main job
    args = parser.parse_args(argv)
    quiet = getattr(args, "quiet", False)
    # warnings are held back until the command succeeds, then printed one
    # line each: an error stays the one line on standard error.  --quiet
    # keeps them (each says something about the result, and each has its
    # own option to accept it); it drops progress and the compile notice
    with warnings.catch_warnings(record=True) as caught, \
            (contextlib.nullcontext() if quiet else _progress.compile_notice()):
        warnings.simplefilter("always")
        try:
            status: int = args.func(args, sys.stdout)
        except BrokenPipeError:  # output piped into a reader that stopped (| head)
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
        except (ValueError, TypeError) as exc:
            print(f"diffident: error: {exc}", file=sys.stderr)
            return 2
        except MemoryError as exc:  # beyond the budgets' estimates: one line, nothing half-written
            print(f"diffident: error: out of memory: {exc or 'no message'}", file=sys.stderr)
            return 2
        except OSError as exc:  # an unwritable output, a directory where a file is expected, ...
            where = f"{exc.filename}: " if exc.filename else ""
            print(f"diffident: error: {where}{exc.strerror or exc}", file=sys.stderr)
            return 2
    for w in caught:
        print(f"diffident: warning: {w.message}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
