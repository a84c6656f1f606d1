"""Kernels of the PLD measures: the upper envelope of the lines that bound a
trade-off curve, and the hockey-stick tails of a privacy loss on an even
grid.
"""

from ._jit import kernel


@kernel
def upper_envelope(slope, intercept, keep):
    """The lines of the upper envelope of ``y = slope x + intercept`` over all x."""
    h = 0
    n = slope.size
    for i in range(n):
        if i + 1 < n and slope[i + 1] == slope[i]:
            continue
        while h >= 2:
            a = keep[h - 2]
            b = keep[h - 1]
            # b is useless if the new line meets a at or left of where b does
            left = (intercept[i] - intercept[a]) * (slope[b] - slope[a])
            if left >= (intercept[b] - intercept[a]) * (slope[i] - slope[a]):
                h -= 1
            else:
                break
        keep[h] = i
        h += 1
    return h


@kernel
def hockey_tails(p, c, one_minus_c, tail, mass):
    """The hockey-stick tails of a privacy loss on an even grid, without cancellation."""
    n = p.size
    above = 0.0
    tail[n - 1] = 0.0
    for j in range(n - 1, 0, -1):
        mass[j] = above + p[j]
        tail[j - 1] = one_minus_c * mass[j] + c * tail[j]
        above = mass[j]
    if n:
        mass[0] = above + p[0]
