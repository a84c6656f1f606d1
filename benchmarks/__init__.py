"""asv benchmarks for diffident (see ``asv.conf.json`` at the repository root).

Modules here import only ``diffident``, ``numpy`` and ``scipy``.  Every suite's
``setup`` builds its (seeded) data and calls each timed function once, so Numba
compilation or cache loading is never part of a timing.

``benchmarks/compare.py`` is a separate plain script (not an asv suite) that
times diffident against NumPy/SciPy baselines in one process and checks the
performance targets.
"""
