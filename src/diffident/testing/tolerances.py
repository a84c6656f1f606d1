"""The one tolerance policy of the tests and of `COMPARISONS`.

Each tolerance names the agreement that a kind of computation promises
against an independent reference (the references are exact or carry 40 to
60 digits), so that a test states which promise it checks, never a number
picked to pass.  Relative unless named otherwise.
"""

#: The same quantity through two APIs, or exact arithmetic on exact inputs
#: (brute-force world values, integer multiplicities): bit for bit.
EXACT = 0.0

#: A closed form evaluated in double-double and rounded once or twice.
ROUNDED = 2.0**-51

#: A posterior kernel, privacy profile or sum of many terms (log-sum-exp
#: shifted to its largest term; compensated sums): proven errors of about
#: 1e-14, checked with a hundredfold margin.
KERNEL = 1e-12

#: An inverse found by search (an epsilon for a delta) where the function
#: inverted is flat: the kernel's error divided by the slope.
INVERSE = 1e-10

#: A search stopped at calibrate's default rtol (1e-9), or dp-accounting's
#: own root finding.
SEARCH = 1e-9

#: Measures read from a privacy-loss distribution discretised at 1e-4
#: (dp-accounting), against the exact composition.
PLD = 1e-5


def ulps(n: float) -> float:
    """The relative tolerance of ``n`` units in the last place of a double."""
    return n * 2.0**-52
