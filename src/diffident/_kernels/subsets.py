"""Exact multiplicities of subset sums (Mathematics page, eq. 8.1)."""

from ._jit import kernel


@kernel
def subset_sums(vals, binom, k, out):
    """k-subsets without repetition: vals are distinct non-negative integer
    offsets (as float64), ``binom[i, a]`` = C(n_i, a); out is (k+1, S+1),
    zero on entry.  out[j, s] = number of j-subsets with offset sum s.
    """
    out[0, 0] = 1.0
    width = out.shape[1]
    for i in range(vals.size):
        v = int(vals[i])
        for j in range(k, 0, -1):  # downwards: layers below still hold the old counts
            dst = out[j]
            for a in range(1, j + 1):
                c = binom[i, a]
                if c == 0.0:
                    break
                shift = a * v
                if shift >= width:
                    break
                src = out[j - a]
                for s in range(width - shift):
                    dst[s + shift] += c * src[s]


@kernel
def multiset_sums(vals, k, out):
    """k-multisets (repetition allowed) of the distinct offsets vals."""
    out[0, 0] = 1.0
    width = out.shape[1]
    for i in range(vals.size):
        v = int(vals[i])
        for j in range(1, k + 1):  # upwards: a value may be taken again
            dst = out[j]
            src = out[j - 1]
            for s in range(width - v):
                dst[s + v] += src[s]
