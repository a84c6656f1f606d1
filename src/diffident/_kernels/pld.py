"""Kernels of the PLD measures: the upper envelope of the lines that bound a
trade-off curve, and the hockey-stick tails of a privacy loss on an even
grid.
"""

from ._jit import kernel


@kernel
def upper_envelope(slope, intercept, keep):
    """The lines of the upper envelope of ``y = slope x + intercept`` over all x.

    The lines sorted by slope, then intercept (ascending).  Writes the
    indices of the envelope's lines into ``keep``, in order of increasing x
    (increasing slope), and returns how many: a line of equal slope to the
    next is dropped (the later has the larger intercept), as is one that is
    nowhere above the two beside it.
    """
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
    """The hockey-stick tails of a privacy loss on an even grid, without cancellation.

    ``p``: probabilities of the losses ``l_j = l_0 + j D`` (ascending),
    ``c = e^-D`` and ``one_minus_c = 1 - c``.  Writes ``tail[j] = sum_{k > j}
    p_k (1 - e^(l_j - l_k))`` and ``mass[j] = sum_{k >= j} p_k`` by the
    recursion from the top, ``tail[j - 1] = (1 - c)(p_j + M) + c tail[j]``
    (M the mass above j): every term is >= 0, so nothing cancels, and the
    relative error stays within about 2 units of roundoff per step.
    """
    n = p.size
    above = 0.0
    tail[n - 1] = 0.0
    for j in range(n - 1, 0, -1):
        mass[j] = above + p[j]
        tail[j - 1] = one_minus_c * mass[j] + c * tail[j]
        above = mass[j]
    if n:
        mass[0] = above + p[0]
