#!/usr/bin/env python
"""Check log_evidence's choice between its direct and sweep strategies.

For each number of worlds m and of responses n, times ``log_evidence`` with
the direct strategy forced, the sweep forced, and the automatic choice
(``diffident._risk.posterior``'s cost model), and prints the automatic time over
the better of the two: about 1 where the model chooses well.  Run from the
repository root: ``python benchmarks/crossover.py`` (about a minute).
"""
import numpy as np

import diffident as di
from diffident._risk import posterior as _posterior
from diffident.testing.timing import best_time

MODES = {"direct": (None, 1e30), "sweep": (1e9, 0.0), "auto": (None, None)}  # (_DIRECT_NS, _SORT_NS)


def measure_modes(values, responses):
    direct_ns, sort_ns = _posterior._DIRECT_NS, _posterior._SORT_NS
    out = {}
    try:
        for mode, (d, s) in MODES.items():
            _posterior._DIRECT_NS = direct_ns if d is None else d
            _posterior._SORT_NS = sort_ns if s is None else s
            out[mode], _ = best_time(lambda: di.log_evidence(values, response=responses, scale=2.0), repeat=5)
    finally:
        _posterior._DIRECT_NS, _posterior._SORT_NS = direct_ns, sort_ns
    return out


def main():
    rng = np.random.default_rng(0)
    worst = 1.0
    for m in (10**4, 10**5, 10**6, 4 * 10**6):
        values = rng.standard_normal(m) * 10.0
        for n in (17, 24, 32, 40, 48, 64, 100, 200, 1000):
            t = measure_modes(values, rng.uniform(-40, 40, n))
            ratio = t["auto"] / min(t["direct"], t["sweep"])
            worst = max(worst, ratio)
            print(f"m={m:.0e} n={n:5d}  " + "  ".join(f"{k} {v * 1e3:8.2f} ms" for k, v in t.items())
                  + f"  auto/best {ratio:.2f}", flush=True)
    print("worst auto/best", round(worst, 2))  # 1.8 at m = 1e4 and n about 40 (0.1 ms)


if __name__ == "__main__":
    main()
