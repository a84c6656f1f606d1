"""Grouping kernels: equal values merged into one group."""

from ._jit import kernel
from .dd import add, two_prod
from .sort import order_run


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
def count_runs(vs, out_counts):
    """Run-length encode sorted values in place: the distinct values to the
    head of ``vs`` (each written at or before where it is read) and the
    length of each run, as a float, to ``out_counts``.  Returns the number
    of runs.
    """
    n = vs.size
    u = 0
    for i in range(n):
        if i == 0 or vs[i] != vs[u - 1]:
            vs[u] = vs[i]
            out_counts[u] = 1.0
            u += 1
        else:
            out_counts[u - 1] += 1.0
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


#: entries gathered at a time by `packed_groups`: a loop that only gathers
#: keeps more of its random reads in flight than one that also groups
BLOCK = 1024


@kernel
def packed_groups(packed, shift, rec, full, scale, sv, sc, sp, si, svf, scf, spf, keys, tmp, hist, fs, W, P, rep):
    """`group_weights` of the entries in the order of the sorted packed keys
    of ``sort.pack`` (positions in their low ``shift`` bits, records in
    ``rec``, four entries each with ``full``, else two, each count x
    ``scale`` being ``scale``), fused with the gather.  The records are gathered a block at a
    time (`BLOCK` entries, and to the end of a run of keys that share their
    high bits) into ``sv``, ``sc``, ``sp``, ``si`` (float views ``svf``,
    ``scf``, ``spf``; ``BLOCK`` + the longest run entries), each run put in
    order by ``sort.order_run`` (``keys``, ``tmp``, ``hist``: its work
    space), and
    grouped by value (equal values, -0.0 and 0.0 among them, may span runs
    and blocks).  Fills ``fs``, ``W`` (sums of count x prior in that order,
    as `group_weights`), ``P`` and ``rep``; returns the number of groups.
    """
    n = packed.size
    low = (1 << shift) - 1
    u = 0
    v = 0.0
    w = 0.0
    p = -1.0
    r = -1
    a = 0
    while a < n:
        e = min(a + BLOCK, n)
        while e < n and (packed[e] & ~low) == (packed[e - 1] & ~low):
            e += 1
        m = e - a
        if full:
            for t in range(m):
                k = packed[a + t] & low
                sv[t] = rec[4 * k]
                sc[t] = rec[4 * k + 1]
                sp[t] = rec[4 * k + 2]
                si[t] = rec[4 * k + 3]
        else:
            for t in range(m):
                k = packed[a + t] & low
                sv[t] = rec[2 * k]
                sp[t] = rec[2 * k + 1]
                scf[t] = scale
                si[t] = k
        t = 0
        while t < m:
            hi = packed[a + t] & ~low
            b = t + 1
            while b < m and (packed[a + b] & ~low) == hi:
                b += 1
            if b - t > 1:
                order_run(sv[t:b], sc[t:b], sp[t:b], si[t:b], b - t, shift, keys, tmp, hist)
            t = b
        for t in range(m):
            x = svf[t]
            if u == 0 or x != v:
                if u > 0:
                    W[u - 1] = w
                    P[u - 1] = p
                    rep[u - 1] = r
                fs[u] = x
                v = x
                u += 1
                w = 0.0
                p = -1.0
                r = si[t]
            q = spf[t]
            w += scf[t] * q
            if q > p or (q == p and si[t] < r):
                p = q
                r = si[t]
        a = e
    if u > 0:
        W[u - 1] = w
        P[u - 1] = p
        rep[u - 1] = r
    return u


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
