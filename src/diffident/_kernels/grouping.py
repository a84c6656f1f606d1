"""Grouping kernels: equal values merged into one group.

Every risk computation works on the sorted distinct values of the world
set with their summed weights (a world's value repeated c times is one
group of weight c).  These kernels run-length encode sorted values and sum
the weights of each run; ``diffident._grouping`` calls them.
"""

from ._jit import kernel
from .dd import add, two_prod


@kernel
def group_sorted(vs, out_values, out_first):
    """Run-length encode sorted values: distinct values and the index of the
    first element of each run.  Returns the number of runs.
    """
    n = vs.size
    u = 0
    for i in range(n):
        if i == 0 or vs[i] != vs[i - 1]:
            out_values[u] = vs[i]
            out_first[u] = i
            u += 1
    return u


@kernel
def group_weights(first, n, cs, ps, order, out_W, out_P, out_rep):
    """Per run: the sum of count x prior, the largest per-world prior, and the
    original index of the world that holds it (the first such world).
    """
    u = first.size
    for g in range(u):
        a = first[g]
        b = first[g + 1] if g + 1 < u else n
        w = 0.0
        p = -1.0
        rep = order[a]
        for i in range(a, b):
            w += cs[i] * ps[i]
            if ps[i] > p or (ps[i] == p and order[i] < rep):
                p = ps[i]
                rep = order[i]
        out_W[g] = w
        out_P[g] = p
        out_rep[g] = rep


@kernel
def group_sums(cs, ps, starts, n, Gh, Gl):
    """Double-double sums of count x prior over each group: the entries
    starts[g] .. starts[g+1]-1 of the value-sorted arrays (n entries).
    """
    u = starts.size
    for g in range(u):
        end = starts[g + 1] if g + 1 < u else n
        sh = 0.0
        sl = 0.0
        for k in range(starts[g], end):
            ph, pl = two_prod(cs[k], ps[k])
            sh, sl = add(sh, sl, ph, pl)
        Gh[g] = sh
        Gl[g] = sl
