"""Evaluate every example of the hardening issue and print a Markdown table.

One row per example (a few examples have several rows): a short label,
diffident's value (or the exception's type and the start of its message),
the independent 60-digit reference value (diffident.testing.mpmath_reference,
which does not call diffident) or the expected behaviour, the relative error
where one applies, and a verdict:

* OK      -- the value agrees with the reference (or the expected error is
             raised, naming the argument);
* ERROR   -- a wrong value, NaN, an unexpected exception, a message that
             does not name the argument, or a bad input silently accepted;
* UNSAFE  -- a calibration on the non-private side: the exact risk (delta,
             bound) at the returned scale exceeds the target.

The script imports whatever ``diffident`` is first on the path, so the same
script gives the before and after columns:

    PYTHONPATH=/path/to/src python benchmarks/edge_cases.py > table.md

(the reference comes with that diffident, from ``diffident.testing``: a
version older than that package has no reference to compare with).

It runs in a few seconds (the million-value worst case dominates).
"""

import math
import os
import time
import warnings

import numpy as np
from mpmath import mp, mpf

import diffident as di
from diffident.testing import mpmath_reference as ref

RTOL = 1e-12
ROWS = []


# ---------------------------------------------------------------------------
# formatting
# ---------------------------------------------------------------------------

def _fmt(x):
    if isinstance(x, BaseException):
        msg = str(x).replace("\n", " ").replace("|", "\\|")
        return f"{type(x).__name__}: {msg[:60]}{'...' if len(msg) > 60 else ''}"
    if isinstance(x, mpf):
        return mp.nstr(x, 17)
    if isinstance(x, (float, np.floating)):
        return repr(float(x))
    if isinstance(x, np.ndarray):
        return np.array2string(x, precision=17, max_line_width=200, threshold=6).replace("\n", " ")
    return str(x).replace("|", "\\|")


def _rel(v, x):
    """Relative error of float v against mpf x (None if not meaningful)."""
    try:
        v = float(v)
    except (TypeError, ValueError):
        return None
    if math.isnan(v):
        return None
    xf = ref.to_float(x)
    if xf == 0.0:
        return None if v == 0.0 else math.inf
    if math.isinf(xf):
        return 0.0 if v == xf else math.inf
    with mp.workdps(30):
        return float(abs(mpf(v) - mpf(x)) / abs(mpf(x)))


def _call(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(), None
    except Exception as exc:  # noqa: BLE001 - the table reports every exception
        return None, exc


def row(label, lib, exact, err, status):
    ROWS.append((label, _fmt(lib), _fmt(exact), "" if err is None else f"{err:.2g}", status))


# ---------------------------------------------------------------------------
# kinds of rows
# ---------------------------------------------------------------------------

def value_row(label, fn, exact, rtol=RTOL, prob=False):
    """A number that must equal the reference (within rtol)."""
    out, exc = _call(fn)
    if exc is not None:
        return row(label, exc, exact, None, "ERROR")
    err = _rel(out, exact)
    v = float(out)
    ok = err is not None and err <= rtol
    xf = ref.to_float(exact)
    if xf == -math.inf:  # below the float range: -inf expected
        ok = v == -math.inf
    if prob and not 0.0 <= v <= 1.0:
        ok = False
    row(label, out, exact, err, "OK" if ok else "ERROR")


def error_row(label, fn, name, kinds=(ValueError, TypeError)):
    """Bad input: must raise one of ``kinds`` naming ``name``."""
    out, exc = _call(fn)
    expected = f"{'/'.join(k.__name__ for k in kinds)} naming {name!r}"
    if exc is None:
        return row(label, out, expected, None, "ERROR")
    ok = isinstance(exc, kinds) and name in str(exc)
    row(label, exc, expected, None, "OK" if ok else "ERROR")


def calib_row(label, fn, exact_risk_at, target, tight_at=None, fmt_value=None, what="risk"):
    """A calibration: UNSAFE if the exact risk at the result exceeds the
    target; ERROR if not tight (tight_at(result) must exceed the target)."""
    out, exc = _call(fn)
    if exc is not None:
        return row(label, exc, f"exact {what} <= {target!r}", None, "ERROR")
    r = exact_risk_at(out)
    status = "OK"
    if not r <= mpf(target):
        status = "UNSAFE"
    elif tight_at is not None and not tight_at(out) > mpf(target):
        status = "ERROR"
    shown = fmt_value(out, r) if fmt_value else f"{_fmt(out)} (exact risk {mp.nstr(r, 22)})"
    row(label, shown, f"exact {what} <= {target!r}", None, status)


def ulps_row(label, fn, exact, conservative, direction):
    """A closed form: conservative at 60 digits and within 8 ulps."""
    out, exc = _call(fn)
    if exc is not None:
        return row(label, exc, exact, None, "ERROR")
    v = float(out)
    xf = ref.to_float(exact)
    if not math.isfinite(v):
        ok = v == xf
        return row(label, out, exact, None, "OK" if ok else ("UNSAFE" if not conservative(v) else "ERROR"))
    with mp.workdps(ref.DPS):
        ulps = float((mpf(v) - exact) / mpf(float(np.spacing(abs(xf)))))
    if not conservative(v):
        status = "UNSAFE"
    else:
        status = "OK" if abs(ulps) <= 8 else "ERROR"
    row(label, f"{v!r} ({ulps:+.3g} ulp)", exact, _rel(v, exact), status)


# ---------------------------------------------------------------------------
# the examples
# ---------------------------------------------------------------------------

def ex1():
    rng = np.random.default_rng(11)
    v = np.column_stack([rng.uniform(0.0, 100.0, 9), np.round(rng.uniform(0.0, 100.0, 9))])
    for rho in (0.15, 0.9):
        calib_row(f"1 multi_tight_scale, columns span 100, spread [1, 1], rho={rho}",
                  lambda rho=rho: di.multi_tight_scale(v, rho=rho, spread=[1.0, 1.0]),
                  lambda s: ref.multi_worst_case_risk(v, scales=s), rho,
                  lambda s: ref.multi_worst_case_risk(v, scales=s * (1 - 1e-9)))
    v2 = np.column_stack([np.linspace(1e45, 2e45, 6), np.linspace(-1e45, 1e45, 6)[::-1]])
    calib_row("1 multi_tight_scale, values ~1e45, spread [1, 1], rho=0.5",
              lambda: di.multi_tight_scale(v2, rho=0.5, spread=[1.0, 1.0]),
              lambda s: ref.multi_worst_case_risk(v2, scales=s), 0.5,
              lambda s: ref.multi_worst_case_risk(v2, scales=s * (1 - 1e-9)))


def ex2():
    rng = np.random.default_rng(2)
    v = rng.normal(size=(40, 1))
    rhos = rng.uniform(1.0 / 40 + 1e-3, 0.995, 400)
    out, exc = _call(lambda: di.multi_tight_scale(v, rho=rhos))
    if exc is not None:
        row("2 multi_tight_scale, 1 query, 400 targets: float risk > rho", exc, "0 of 400", None, "ERROR")
    else:
        n = int(np.sum(~(di.multi_worst_case_risk(v, scale=out) <= rhos)))
        row("2 multi_tight_scale, 1 query, 400 targets: float risk > rho", f"{n} of 400", "0 of 400", None,
            "OK" if n == 0 else "UNSAFE")
    for q in (1, 2):
        rng = np.random.default_rng(20 + q)
        v = rng.normal(size=(12, q))
        rhos = np.concatenate([rng.uniform(1.0 / 12 + 1e-3, 0.99, 14), [1.0 / 12 * (1 + 1e-6), 1 - 1e-9]])
        out, exc = _call(lambda v=v, rhos=rhos: di.multi_tight_scale(v, rho=rhos))
        label = f"2 multi_tight_scale, {q} quer{'y' if q == 1 else 'ies'}, 16 targets: exact risk > rho / not tight"
        if exc is not None:
            row(label, exc, "0 / 0", None, "ERROR")
            continue
        s = np.asarray(out).reshape(rhos.size, q)
        unsafe = sum(not ref.multi_worst_case_risk(v, scales=si) <= mpf(r) for r, si in zip(rhos.tolist(), s,
                                                                                            strict=False))
        # tight to 1e-9 of the scale, or to 1e-12 of the risk where the risk
        # is flat in the scale (the calibration's rounding margin is worth
        # more than 1e-9 of the scale there)
        loose = sum(not ref.multi_worst_case_risk(v, scales=si * (1 - 1e-9)) > mpf(r) * (1 - mpf(1e-12))
                    for r, si in zip(rhos.tolist(), s, strict=False))
        row(label, f"{unsafe} / {loose}", "0 / 0", None, "UNSAFE" if unsafe else ("OK" if not loose else "ERROR"))


def ex3():
    v = [0.0, 1.0, 2.0]
    out, exc = _call(lambda: di.gaussian_sigma_for(v, rho=1.0 / 3, delta=0.1))
    row("3 gaussian_sigma_for, 3 worlds, rho = fl(1/3) < 1/3", exc or out, "inf (unattainable)", None,
        "OK" if exc is None and out == np.inf else ("UNSAFE" if exc is None else "ERROR"))
    calib_row("3 gaussian_sigma_for, 3 worlds, rho = 1/3 + 1e-9, delta 0.1",
              lambda: di.gaussian_sigma_for(v, rho=1.0 / 3 + 1e-9, delta=0.1),
              lambda s: ref.gaussian_delta(v, rho=1.0 / 3 + 1e-9, sigma=s), 0.1,
              fmt_value=lambda s, d: f"{s!r} (exact delta {mp.nstr(d, 12)})", what="delta")
    for ratio in (1e8, 1e16):
        rho = float(min(0.5 - 0.125 / ratio, np.nextafter(0.5, 0.0)))
        value_row(f"3 gaussian_delta([0, 1], rho={rho!r}, sigma={ratio:g})",
                  lambda rho=rho, ratio=ratio: di.gaussian_delta([0.0, 1.0], rho=rho, sigma=ratio, world=0),
                  ref.gaussian_delta([0.0, 1.0], rho=rho, sigma=ratio, world=0), rtol=1e-10, prob=True)


def ex4():
    ulps_row("4 epsilon_for_rho(0.9, 1.7e308)", lambda: di.epsilon_for_rho(0.9, m=1.7e308),
             ref.epsilon_for_rho(0.9, m=1.7e308), lambda e: ref.rho_for_epsilon(e, m=1.7e308) <= mpf(0.9), -1)
    rho = 1 - 1e-9
    ulps_row("4 scale_for_rho(1 - 1e-9, 1e300, 1)", lambda: di.scale_for_rho(rho, m=1e300, sensitive_range=1),
             ref.scale_for_rho(rho, m=1e300, sensitive_range=1),
             lambda s: ref.risk_bound(s, m=1e300, sensitive_range=1) <= mpf(rho), 1)
    out, exc = _call(lambda: di.risk_bound(di.scale_for_rho(rho, m=1e300, sensitive_range=1), m=1e300,
                                           sensitive_range=1))
    row("4 risk_bound(scale_for_rho(1 - 1e-9, 1e300, 1), 1e300, 1)", exc or out, f"<= {rho!r}", None,
        "OK" if exc is None and out <= rho else ("UNSAFE" if exc is None else "ERROR"))
    r = 0.1 * (1 + 1e-9)
    ulps_row(f"4 epsilon_for_rho({r!r}, 10) (near 1/m)", lambda: di.epsilon_for_rho(r, m=10),
             ref.epsilon_for_rho(r, m=10), lambda e: ref.rho_for_epsilon(e, m=10) <= mpf(r), -1)
    ulps_row("4 epsilon_for_rho(0.999, 2)", lambda: di.epsilon_for_rho(0.999, m=2),
             ref.epsilon_for_rho(0.999, m=2), lambda e: ref.rho_for_epsilon(e, m=2) <= mpf(0.999), -1)
    q = 0.9999999999999991
    ulps_row(f"4 epsilon_for_posterior({q!r}, 0.1) (near 1)", lambda: di.epsilon_for_posterior(q, prior=0.1),
             ref.epsilon_for_posterior(q, prior=0.1), lambda e: ref.posterior_bound(e, prior=0.1) <= mpf(q), -1)
    ulps_row("4 scale_for_rho(0.5, 10, 5e-324) (subnormal range)", lambda: di.scale_for_rho(0.5, m=10,
                                                                                            sensitive_range=5e-324),
             ref.scale_for_rho(0.5, m=10, sensitive_range=5e-324),
             lambda s: ref.risk_bound(s, m=10, sensitive_range=5e-324) <= mpf(0.5), 1)


def ex5():
    v = [0.0, 1.0, 2.0]
    value_row("5 posterior world 2, gaussian, R=1e100, sigma=1",
              lambda: di.posterior(v, response=1e100, scale=1.0, noise="gaussian")[2],
              ref.posterior(v, response=1e100, scale=1.0, noise="gaussian")[2], prob=True)
    value_row("5 posterior world 2, laplace, R=1e300, scale=1e-12", lambda: di.posterior(v, response=1e300,
                                                                                         scale=1e-12)[2],
              ref.posterior(v, response=1e300, scale=1e-12)[2], prob=True)
    value_row("5 disclosure_risk world 2, gaussian, R=1e300, 1e-12, counts [1,2,3]",
              lambda: di.disclosure_risk(v, response=1e300, scale=1e-12, world=2, counts=[1, 2, 3], noise="gaussian"),
              ref.disclosure_risk(v, response=1e300, scale=1e-12, world=2, counts=[1, 2, 3], prior=None,
                                  noise="gaussian"), prob=True)
    value_row("5 log_evidence, gaussian, R=1e300, sigma=1e-12 (below float range)",
              lambda: di.log_evidence(v, response=1e300, scale=1e-12, noise="gaussian"),
              ref.log_evidence(v, response=1e300, scale=1e-12, noise="gaussian"))
    value_row("5 log_evidence, gaussian, R=1e6, sigma=1e-12",
              lambda: di.log_evidence(v, response=1e6, scale=1e-12, noise="gaussian"),
              ref.log_evidence(v, response=1e6, scale=1e-12, noise="gaussian"))
    value_row("5 log_evidence, laplace, R=1e300, scale=1e-12",
              lambda: di.log_evidence(v, response=1e300, scale=1e-12), ref.log_evidence(v, response=1e300, scale=1e-12))


def ex6():
    value_row("6 posterior, values [1, 1] counts [2, 2], gaussian R=1e20 sigma=1",
              lambda: di.posterior([1.0, 1.0], response=1e20, scale=1.0, counts=[2, 2], noise="gaussian")[0],
              ref.posterior([1.0, 1.0], response=1e20, scale=1.0, counts=[2, 2], noise="gaussian")[0], prob=True)
    value_row("6 posterior, values [1, 1] counts [2, 2], laplace R=1e20 scale=1e-12",
              lambda: di.posterior([1.0, 1.0], response=1e20, scale=1e-12, counts=[2, 2])[0],
              ref.posterior([1.0, 1.0], response=1e20, scale=1e-12, counts=[2, 2])[0], prob=True)
    value_row("6 disclosure_risk world 0, values [1, 1], prior [3, 1], gaussian R=1e20",
              lambda: di.disclosure_risk([1.0, 1.0], response=1e20, scale=1.0, prior=[3, 1], noise="gaussian"),
              ref.disclosure_risk([1.0, 1.0], response=1e20, scale=1.0, world=0, counts=None, prior=[3, 1],
                                  noise="gaussian"), prob=True)


def ex7():
    v, c, p = [0.0, 1.0, 2.0], [1e200, 1.0, 1e200], [1e200, 1e200, 1.0]
    value_row("7 log_evidence, counts and prior 1e200", lambda: di.log_evidence(v, response=0.5, scale=1.0, counts=c,
                                                                                prior=p),
              ref.log_evidence(v, response=0.5, scale=1.0, counts=c, prior=p))
    value_row("7 disclosure_risk world 0, counts and prior 1e200",
              lambda: di.disclosure_risk(v, response=0.5, scale=1.0, counts=c, prior=p),
              ref.disclosure_risk(v, response=0.5, scale=1.0, world=0, counts=c, prior=p),
              prob=True)
    F = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]])
    value_row("7 multi_worst_case_risk, counts and prior 1e200",
              lambda: di.multi_worst_case_risk(F, scale=[1.0, 1.0], counts=c, prior=p),
              ref.multi_worst_case_risk(F, scales=[1.0, 1.0], counts=c, prior=p), prob=True)


def ex8():
    value_row("8 disclosure_risk, scale 1e-310, R=0.25", lambda: di.disclosure_risk([0.0, 1.0], response=0.25,
                                                                                    scale=1e-310),
              ref.disclosure_risk([0.0, 1.0], response=0.25, scale=1e-310), prob=True)
    value_row("8 posterior world 0, scale 5e-324, R=0.5 (tie)", lambda: di.posterior([0.0, 1.0], response=0.5,
                                                                                     scale=5e-324)[0],
              ref.posterior([0.0, 1.0], response=0.5, scale=5e-324)[0], prob=True)
    value_row("8 worst_case_risk([-1.5e308, 1.5e308], 1e308)", lambda: di.worst_case_risk([-1.5e308, 1.5e308],
                                                                                          scale=1e308),
              ref.worst_case_risk([-1.5e308, 1.5e308], scale=1e308)[0], prob=True)
    value_row("8 posterior world 0, values [-1.5e308, 1.5e308], R=1e308, 1e308",
              lambda: di.posterior([-1.5e308, 1.5e308], response=1e308, scale=1e308)[0],
              ref.posterior([-1.5e308, 1.5e308], response=1e308, scale=1e308)[0], prob=True)


def ex9():
    values = np.concatenate([[0.0, 1.0, 100.0], np.linspace(0.0, 1.0, 9997)])
    prior = np.concatenate([[1.0, 1.0, 0.0], np.ones(9997)])
    R = np.linspace(-500.0, 1500.0, 10000)
    out, exc = _call(lambda: di.disclosure_risk(values, response=R, scale=0.1, world=2, prior=prior))
    if exc is not None:
        return row("9 10,000 responses x 10,000 worlds, zero-weight world outside", exc, "all 0", None, "ERROR")
    n = int(np.isnan(out).sum())
    nz = int(np.sum((out != 0) & ~np.isnan(out)))
    row("9 10,000 responses x 10,000 worlds, zero-weight world outside", f"{n} NaN, {nz} other non-zero", "all 0",
        None, "OK" if n == 0 and nz == 0 else "ERROR")


def ex10():
    v = np.array([0.0, 1.0, 2.0])
    value_row("10 chunked_disclosure_risk world 2, gaussian R=1e100 sigma=1",
              lambda: di.chunked_disclosure_risk(di.iter_chunks(v, chunk_size=1), response=1e100, scale=1.0,
                                                 world_value=2.0, noise="gaussian"),
              ref.disclosure_risk(v, response=1e100, scale=1.0, world=2, noise="gaussian"), prob=True)
    value_row("10 chunked_disclosure_risk world 2, laplace R=1e250 scale=0.01",
              lambda: di.chunked_disclosure_risk(di.iter_chunks(v, chunk_size=1), response=1e250, scale=0.01,
                                                 world_value=2.0),
              ref.disclosure_risk(v, response=1e250, scale=0.01, world=2), prob=True)
    value_row("10 chunked_disclosure_risk world 2, laplace R=1e200 scale=1e-100",
              lambda: di.chunked_disclosure_risk(di.iter_chunks(v, chunk_size=1), response=1e200, scale=1e-100,
                                                 world_value=2.0),
              ref.disclosure_risk(v, response=1e200, scale=1e-100, world=2), prob=True)
    value_row("10 chunked_log_evidence, gaussian R=1e300 sigma=1e-12",
              lambda: di.chunked_log_evidence(di.iter_chunks(v, chunk_size=2), response=1e300, scale=1e-12,
                                              noise="gaussian"),
              ref.log_evidence(v, response=1e300, scale=1e-12, noise="gaussian"))
    try:
        import dask
        import dask.array as da

        import diffident.dask as ddk
    except ImportError as exc:  # pragma: no cover
        return row("10 dask.log_evidence, gaussian R=1e300 sigma=1e-12", exc, "", None, "ERROR")
    with dask.config.set(scheduler="synchronous"):
        value_row("10 dask.log_evidence, gaussian R=1e300 sigma=1e-12",
                  lambda: ddk.log_evidence(da.from_array(v, chunks=1), response=1e300, scale=1e-12, noise="gaussian"),
                  ref.log_evidence(v, response=1e300, scale=1e-12, noise="gaussian"))
        value_row("10 dask.log_evidence, laplace R=1e300 scale=1e-12",
                  lambda: ddk.log_evidence(da.from_array(v, chunks=1), response=1e300, scale=1e-12),
                  ref.log_evidence(v, response=1e300, scale=1e-12))


def ex11():
    value_row("11 chunked_disclosure_risk of the only world", lambda: di.chunked_disclosure_risk(
        [np.array([2.0])], response=1.9375650264464654, scale=0.04149430023115977, world_value=2.0), mpf(1), rtol=0.0,
              prob=True)


def ex12():
    v = np.random.default_rng(0).uniform(0.0, 1.0, 10 ** 6)
    scale = 1e9 * float(np.ptp(v))
    value_row("12 worst_case_risk, 1e6 values, scale 1e9 x spread (target 1e-13)",
              lambda: di.worst_case_risk(v, scale=scale), ref.sweep_worst_case_risk(v, scale=scale), rtol=1e-13,
              prob=True)


def ex13():
    big = 10 ** 400
    error_row("13 epsilon_for_rho(10**400, 10)", lambda: di.epsilon_for_rho(big, m=10), "rho", (ValueError,))
    error_row("13 log_evidence(values, 0, scale=10**400)", lambda: di.log_evidence([0.0, 1.0], response=0.0,
                                                                                   scale=big), "scale",
              (ValueError,))
    error_row("13 log_evidence(counts=[1, 10**400])", lambda: di.log_evidence([0.0, 1.0], response=0.0, scale=1.0,
                                                                              counts=[1, big]),
              "counts", (ValueError,))


def ex14():
    error_row("14 epsilon_for_rho(ragged rho, 10)", lambda: di.epsilon_for_rho([[0.5], [0.5, 0.6]], m=10), "rho")
    error_row("14 disclosure_risk(world=None)", lambda: di.disclosure_risk([0.0, 1.0], response=0.0, scale=1.0,
                                                                           world=None), "world")
    error_row("14 disclosure_risk(world=[]) (empty)", lambda: di.disclosure_risk([0.0, 1.0], response=0.0, scale=1.0,
                                                                                 world=[]),
              "world")
    error_row("14 tight_scale(rtol=[])", lambda: di.tight_scale([0.0, 1.0], rho=0.7, rtol=[]), "rtol")
    error_row("14 effective_worlds(axis=0.0)", lambda: di.effective_worlds([1, 2, 3], axis=0.0), "axis")
    error_row("14 world_values(max_worlds=None)",
              lambda: di.world_values("sum", known=[1.0, 2.0], candidates=[1.0, 2.0, 3.0], max_worlds=None),
              "max_worlds")
    error_row("14 log_evidence(noise=np.array(['laplace']))",
              lambda: di.log_evidence([0.0, 1.0], response=0.0, scale=1.0, noise=np.array(["laplace"])), "noise")
    error_row("14 iter_chunks(chunk_size=inf)", lambda: list(di.iter_chunks(np.arange(5.0), chunk_size=float("inf"))),
              "chunk_size")

    def dask_obj():
        import dask.array  # noqa: F401

        import diffident.dask as ddk
        return ddk.log_evidence(np.array([0.0, "a"], dtype=object), response=0.0, scale=1.0)
    error_row("14 dask.log_evidence(object array)", dask_obj, "values")


def ex15():
    error_row("15 worst_case_risk(return_world='no')",
              lambda: di.worst_case_risk([0.0, 1.0], scale=1.0, return_world="no"), "return_world")
    error_row("15 dataset_sensitive_range(return_removed='no')",
              lambda: di.dataset_sensitive_range("median", data=[1.0, 2.0, 3.0], candidates=[1.0, 4.0],
                                                 return_removed="no"),
              "return_removed")
    error_row("15 Domain(0, 9, integer='yes')", lambda: di.Domain(0, 9, integer="yes"), "integer")
    error_row("15 log_evidence(scale=True)", lambda: di.log_evidence([0.0, 1.0], response=0.0, scale=True), "scale")
    error_row("15 epsilon_for_rho(rho=True, 10)", lambda: di.epsilon_for_rho(True, m=10), "rho")
    error_row("15 log_evidence(values=np.array(['1', '2']))",
              lambda: di.log_evidence(np.array(["1", "2"]), response=0.0, scale=1.0), "values", (TypeError,))


def ex16():
    rng = np.random.default_rng(0)
    cands = np.round(rng.uniform(0, 5, 12), 2)
    known = np.round(rng.uniform(0, 5, 3), 2)
    import math

    # the callable sums exactly and rounds once, as the named query does (a
    # naive float sum rounds each world its own way)
    out, exc = _call(lambda: (di.world_values("sum", known=known, candidates=cands, k=2),
                              di.world_values(lambda w: math.fsum(w), known=known, candidates=cands, k=2)))
    if exc is not None:
        row("16 world_values('sum') on cents, k=2: groups named / exact callable", exc, "equal", None, "ERROR")
    else:
        (v1, c1), (v2, c2) = out
        same = len(v1) == len(v2) and np.array_equal(np.asarray(c1, float), np.asarray(c2, float))
        row("16 world_values('sum') on cents, k=2: groups named / exact callable", f"{len(v1)} / {len(v2)}",
            "equal", None, "OK" if same else "ERROR")
    data, cand = [0.7, 0.9, 0.0, 0.1], [1.2, 0.0, 0.1]
    exact = ref.removal_ranges_exact("median", data=data, candidates=cand)
    tied = [i for i, x in enumerate(exact) if x == max(exact)]
    out, exc = _call(lambda: di.dataset_sensitive_range("median", data=data, candidates=cand,
                                                        return_removed=True)[1].tolist())
    row("16 dataset_sensitive_range median, return_removed (exact ties)", exc or out, tied, None,
        "OK" if exc is None and set(tied) <= set(out) else "ERROR")
    out, exc = _call(lambda: di.dataset_sensitive_range("median", data=[1.0, 2.0, 4.0], candidates=[]))
    row("16 dataset_sensitive_range, no other candidates", exc or out, 0.0, None,
        "OK" if exc is None and out == 0.0 else "ERROR")


def main():
    t0 = time.perf_counter()
    for ex in (ex1, ex2, ex3, ex4, ex5, ex6, ex7, ex8, ex9, ex10, ex11, ex12, ex13, ex14, ex15, ex16):
        try:
            ex()
        except Exception as exc:  # noqa: BLE001 - a crashing example is a row, not the end
            row(f"{ex.__name__}: the script itself failed", exc, "", None, "ERROR")
    src = os.path.dirname(os.path.dirname(os.path.abspath(di.__file__)))
    counts = {s: sum(r[4] == s for r in ROWS) for s in ("OK", "ERROR", "UNSAFE")}
    print(f"Edge cases of the hardening issue: diffident {di.__version__} from `{src}`, "
          f"reference {ref.DPS} digits; {len(ROWS)} rows: {counts['OK']} OK, {counts['ERROR']} ERROR, "
          f"{counts['UNSAFE']} UNSAFE ({time.perf_counter() - t0:.0f} s).")
    print()
    print("| case | diffident | reference / expected | rel. error | status |")
    print("|---|---|---|---|---|")
    for label, lib, exact, err, status in ROWS:
        print(f"| {label} | {lib} | {exact} | {err} | {status} |")


if __name__ == "__main__":
    main()
