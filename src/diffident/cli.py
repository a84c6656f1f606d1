"""The ``diffident`` command.

``diffident calibrate`` prints the paper's Laplace calibration (Lee and
Clifton, Theorem 1) for a risk bound rho, a number of possible worlds and a
sensitive range.  With no options it runs the paper's Adult example
(hours-per-week: 99 worlds, sensitive range 98/48842) at the risk bounds of
its Table 4 and the 1.5% HIPAA reading.
"""

import argparse
import math
import sys

import numpy as np

from . import __version__
from ._closed_form import epsilon_for_rho, min_rho, risk_bound, scale_for_rho

# The paper's Adult example (Table 3 domain of hours-per-week, n = 48,842).
_ADULT_N = 48842
_HOURS_WORLDS = 99
_HOURS_RANGE = 98 / _ADULT_N
_DEFAULT_RHO = (0.5, 0.1, 0.015, 0.001)


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors and exit status 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


def _fmt(x):
    if math.isinf(x):
        return "inf"
    return f"{x:.10g}"


def _table(headers, rows):
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    line = "  ".join(h.rjust(w) for h, w in zip(headers, widths))
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in rows]
    return "\n".join(out)


def _calibrate(args, out):
    rho = np.asarray(args.rho, dtype=float)
    m, s = args.worlds, args.range
    eps = np.atleast_1d(epsilon_for_rho(rho, m))
    lam = np.atleast_1d(scale_for_rho(rho, m, s))
    bound = np.atleast_1d(risk_bound(lam, m, s))
    rows = [
        (_fmt(r), _fmt(e), _fmt(l), _fmt(b), "unattainable" if math.isinf(l) else ("no noise" if l == 0 else ""))
        for r, e, l, b in zip(rho, eps, lam, bound)
    ]
    print(f"Laplace calibration for differential identifiability (Lee and Clifton, KDD 2012, Theorem 1)", file=out)
    print(f"worlds m = {_fmt(m)}, sensitive range S = {_fmt(s)}, lowest reachable risk 1/m = {_fmt(min_rho(m))}", file=out)
    print(file=out)
    print(_table(["rho", "epsilon", "scale", "risk bound", "note"], rows), file=out)
    print(file=out)
    print("epsilon = ln((m-1) rho / (1-rho)), scale = S / epsilon; the risk bound is", file=out)
    print("1 / (1 + (m-1) exp(-S/scale)) at the returned scale (<= rho by construction).", file=out)
    return 0


def _rho_arg(text):
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"rho must be a number, got {text!r}") from None
    if not 0.0 <= x <= 1.0:
        raise argparse.ArgumentTypeError(f"rho must lie in [0, 1], got {text}")
    return x


def _worlds_arg(text):
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"worlds must be a number, got {text!r}") from None
    if not (math.isfinite(x) and x >= 1):
        raise argparse.ArgumentTypeError(f"worlds must be a finite number >= 1, got {text}")
    return x


def _range_arg(text):
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"range must be a number, got {text!r}") from None
    if not (math.isfinite(x) and x >= 0):
        raise argparse.ArgumentTypeError(f"range must be a finite number >= 0, got {text}")
    return x


def build_parser():
    p = _Parser(prog="diffident", description="Differential identifiability: re-identification risk and noise calibration.")
    p.add_argument("--version", action="version", version=f"diffident {__version__}")
    sub = p.add_subparsers(dest="command", parser_class=_Parser)
    c = sub.add_parser(
        "calibrate",
        help="the paper's Laplace scale and epsilon for a risk bound rho",
        description="The paper's Laplace calibration (Theorem 1). Defaults: the Adult hours-per-week example "
        f"(m = {_HOURS_WORLDS}, S = 98/{_ADULT_N}) at rho = {', '.join(map(str, _DEFAULT_RHO))}.",
    )
    c.add_argument("--rho", type=_rho_arg, nargs="+", default=list(_DEFAULT_RHO), help="risk bound(s) in [0, 1]")
    c.add_argument("--worlds", "-m", type=_worlds_arg, default=float(_HOURS_WORLDS), help="number of possible worlds m (>= 1)")
    c.add_argument("--range", "-s", type=_range_arg, default=_HOURS_RANGE, help="sensitive range S of the query (>= 0)")
    c.set_defaults(func=_calibrate)
    return p


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        args = parser.parse_args(["calibrate"] + list(argv if argv is not None else sys.argv[1:]))
    try:
        return args.func(args, sys.stdout)
    except (ValueError, TypeError) as exc:
        print(f"diffident: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
