"""asv benchmarks for diffident (see ``asv.conf.json`` at the repository root).

Modules here import ``diffident``, ``numpy`` and ``scipy``; their baselines
(NumPy, SciPy, dp-accounting) come from ``diffident.testing.COMPARISONS``.
Every suite's ``setup`` builds its (seeded) data and calls each timed function
once (`warm_up`), so Numba compilation or cache loading is never part of a
timing.

``benchmarks/compare.py`` is a separate plain script (not an asv suite) that
times diffident against the same baselines in one process and checks the
performance targets.

Two profiles, chosen by the environment variable ``DIFFIDENT_ASV_PROFILE``
when asv discovers and runs the suites:

* ``full`` (the default): every size, for the history (``asv run``,
  ``asv publish``);
* ``fast``: each suite at its smallest size or two, one round of seven
  samples per benchmark (`tune`), for checking a change against main
  (``DIFFIDENT_ASV_PROFILE=fast asv continuous main HEAD --factor 1.25``).
"""

import os

PROFILE = os.environ.get("DIFFIDENT_ASV_PROFILE", "full")
if PROFILE not in ("full", "fast"):
    raise ValueError(f"DIFFIDENT_ASV_PROFILE must be 'full' or 'fast', got {PROFILE!r}")


def sizes(full, fast):
    """A suite's size list: ``full`` in the full profile, ``fast`` in the fast one."""
    return list(fast) if PROFILE == "fast" else list(full)


def tune(namespace):
    """In the fast profile, one round of seven samples for every suite of a
    module (``tune(globals())`` at its end) that sets neither itself.

    asv's default (two rounds, up to ten samples each) doubles the time of
    ``asv continuous``; on a 2-core machine one round of seven samples at
    the fast sizes flagged no unchanged benchmark at ``--factor 1.25`` and
    found the changes of 1.5x and more.
    """
    if PROFILE != "fast":
        return
    for obj in list(namespace.values()):
        if isinstance(obj, type) and obj.__module__ == namespace["__name__"]:
            if "rounds" not in vars(obj):
                obj.rounds = 1
            if "repeat" not in vars(obj):
                obj.repeat = 7


def warm_up(suite, *params, skip=()):
    """Call every ``time_*`` method of an asv suite once, with its params.

    For ``setup``: Numba compilation and loading of the on-disk cache then
    happen outside the timings.  ``skip`` names methods not to call (an
    O(m^2) baseline with nothing to compile).
    """
    for name in dir(suite):
        if name.startswith("time_") and name not in skip:
            getattr(suite, name)(*params)
