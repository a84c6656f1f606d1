"""A Dask backend (extra ``dask``): the in-memory answers on ``dask.array`` world values.

`log_evidence`, `worst_case_risk` and `sweep`, on a scheduler or a ``distributed``
cluster (the RR and Dask algorithms page).
"""

from typing import Any

import numpy as np

from ._kernels import evidence, worstcase
from ._numerics import validate as _validate
from ._numerics.grouping import chunk_groups
from ._numerics.shared_docs import shared_docs
from ._risk.chunked import (
    EvidenceSums,
    chunk_ends,
    points,
    tie_plan,
    validated_chunk,
    worst_case_work,
)
from ._risk.worst_case import inverse_scales, spread_exponent
from ._sweep.table import SweepTable
from ._typing import AnyNoise, RealArrayLike

__all__ = ["log_evidence", "worst_case_risk", "sweep"]


def _dask():
    try:
        import dask
        import dask.array as da
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("diffident.dask needs dask: python -m pip install 'diffident[dask]'") from None
    return dask, da


def _values(values, da):
    """A Dask array of numbers: a Dask array's dtype is checked, other arrays are checked and wrapped."""
    if isinstance(values, da.Array):
        if values.dtype.kind not in "iuf":
            raise TypeError(f"values must be a Dask array of numbers, got dtype {values.dtype}")
        return values
    return da.asarray(_validate.as_float("values", values))


def _block_sums(block, R, lam, gauss, g=None):
    import numba

    st = EvidenceSums(R, lam, gauss)
    if np.size(block) == 0:  # an empty block (a legitimate chunking): the merge identity
        return st.stack()
    f, _ = validated_chunk(np.asarray(block, dtype=np.float64), "values", g)
    st.fold(f, np.empty(0), False, False, np.empty((numba.get_num_threads(), evidence.BUF + 8)))
    return st.stack()


def _merge(a, b, R, lam, gauss):
    st = EvidenceSums.unstack(a, R, lam, gauss)
    st.merge(EvidenceSums.unstack(b, R, lam, gauss))
    return st.stack()


@shared_docs
def log_evidence(values: Any, *, response: RealArrayLike, scale: RealArrayLike, noise: AnyNoise = "laplace",
                 granularity: float = 1.0, compute: bool = True) -> Any:
    """`diffident.log_evidence` over a 1-d ``dask.array`` of world values.

    Parameters
    ----------
    values : dask.array.Array or array_like
        World values, 1-d, any chunking (other arrays are wrapped).
    %(response)s
    scale : array_like
        Noise scale(s) (Laplace scale or Gaussian sigma), finite and > 0, broadcast against R.
    noise : {"laplace", "gaussian", "discrete_laplace", "discrete_gaussian"}, optional
        The noise (default Laplace); integer noise as in Mathematics page, section 11.
    granularity : float, optional
        The lattice spacing of integer noise (default 1; only 1 with continuous noise).
    compute : bool, optional
        Return the result (default), or a ``dask.delayed`` object that computes it.

    Returns
    -------
    float or ndarray or dask.delayed.Delayed
        The log-evidence, shape ``broadcast(response, scale)``, merged up a tree
        (Mathematics page, eq. 8.3): the in-memory one to the rounding of the
        summation order (uniform prior, no counts).

    Raises
    ------
    ValueError
        For bad values, responses, scales, noise or granularity: at the call, or
        for NaN, infinite or off-lattice values when the graph is computed.
    TypeError
        If an argument is not real numbers, or ``compute`` is not a bool.
    ImportError
        If dask is not installed.

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> import diffident as di, diffident.dask as ddask
    >>> v = np.random.default_rng(0).normal(size=10_000)
    >>> chunks = da.from_array(v, chunks=1000)
    >>> a = ddask.log_evidence(chunks, response=0.3, scale=0.5)
    >>> bool(np.isclose(a, di.log_evidence(v, response=0.3, scale=0.5), rtol=1e-13))
    True
    """
    dask, da = _dask()
    shape, Rf, lam, gauss, g = points(response, scale, noise, granularity)
    EvidenceSums(Rf, lam, gauss)  # a scale too small for the responses fails here, at the call
    x = _values(values, da)
    if x.ndim != 1 or x.size == 0:
        raise ValueError(f"values must be a non-empty one-dimensional array, got shape {x.shape}")
    parts = [dask.delayed(_block_sums)(b, Rf, lam, gauss, g) for b in x.to_delayed().ravel()]
    while len(parts) > 1:  # a balanced tree of pairwise merges
        parts = [dask.delayed(_merge)(parts[i], parts[i + 1], Rf, lam, gauss) if i + 1 < len(parts) else parts[i]
                 for i in range(0, len(parts), 2)]
    result = dask.delayed(_finish)(parts[0], Rf, lam, gauss, shape)
    return result.compute() if _validate.flag("compute", compute) else result


def _finish(t, R, lam, gauss, shape):
    logev, _ = EvidenceSums.unstack(t, R, lam, gauss).finish()
    return _validate.ret(logev.reshape(shape), len(shape) == 0)


def _summary(block):
    """The block's ends for the tie plan (None when empty) and its smallest gap; checks its order."""
    if np.size(block) == 0:
        return None, np.inf
    f, _ = validated_chunk(np.asarray(block, dtype=np.float64), "values")
    d = np.diff(f)
    if np.any(d < 0):
        raise ValueError("values must be sorted ascending across the blocks")
    d = d[d > 0]
    return chunk_ends(f, None), (float(d.min()) if d.size else np.inf)


def _plan(summaries):
    """The tie plan of the blocks (see ``_chunked.tie_plan``); checks their order."""
    ends = [s[0] for s in summaries]
    prev = -np.inf
    for e in ends:
        if e is not None:
            if e[0] < prev:
                raise ValueError("values must be sorted ascending across the blocks")
            prev = e[2]
    return tie_plan(ends)


def _inverse(summaries, lam):
    """(2**k, 1/scale in those units): the in-memory scaling, from the blocks' ends and gaps."""
    ends = [s[0] for s in summaries if s[0] is not None]
    k = spread_exponent(ends[0][0], ends[-1][2]) if ends else 0

    def min_gap():
        gaps = [s[1] for s in summaries] + [b[0] - a[2] for a, b in zip(ends, ends[1:], strict=False) if b[0] > a[2]]
        return float(np.ldexp(min(gaps), k)) if gaps else np.inf

    return k, inverse_scales(lam, k, min_gap)


def _block_groups(block, plan, i, k):
    if np.size(block) == 0:
        return np.empty(0), np.empty(0)
    return chunk_groups(np.asarray(block, dtype=np.float64), None, plan[i], k)


def _forward(block, carry, scaling, plan, i):
    """(the forward carry before the block, the carry after it)."""
    k, inv = scaling
    fs, W = _block_groups(block, plan, i, k)
    if fs.size == 0:  # an empty block passes the carry on
        return carry, carry
    g0, F = carry
    F = F.copy()
    worstcase.chunk_forward(fs, W, g0, inv, F, *worst_case_work(fs.size, g0))
    return carry, (g0 + fs.size, F)


def _backward(block, start, right, scaling, plan, i):
    """(smallest S/P in the block per scale, the backward carry before it)."""
    k, inv = scaling
    fs, W = _block_groups(block, plan, i, k)
    if fs.size == 0:  # no world here: nothing to minimise, the carry passes on
        return np.full(inv.size, np.inf), right
    g0, F = start
    Bs, last = right
    Bs = Bs.copy()
    best = np.full(inv.size, np.inf)
    worstcase.chunk_worst(fs, W, np.ones(fs.size), g0, inv, F, Bs, last, best, *worst_case_work(fs.size, g0),
                          np.empty(worstcase.NF))
    return best, (Bs, False)


def worst_case_risk(values: Any, *, scale: RealArrayLike, compute: bool = True) -> Any:
    """`diffident.worst_case_risk` over a *sorted* 1-d ``dask.array`` of world values.

    Parameters
    ----------
    values : dask.array.Array or array_like
        World values, 1-d, sorted ascending across the blocks (other arrays are wrapped).
    scale : array_like
        Laplace scale(s), >= 0 (0 and ``inf`` allowed).
    compute : bool, optional
        Return the result (default), or a ``dask.delayed`` object that computes it.

    Returns
    -------
    float or ndarray or dask.delayed.Delayed
        The worst-case risk, shape of ``scale``: the in-memory one bit for bit,
        for any chunking (uniform prior, no counts).

    Raises
    ------
    ValueError
        For empty or non-1-d values or bad scales at the call; unsorted, NaN
        or infinite values when the graph is computed.
    TypeError
        If an argument is not real numbers, or ``compute`` is not a bool.
    ImportError
        If dask is not installed.

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> import diffident as di, diffident.dask as ddask
    >>> v = np.sort(np.random.default_rng(0).normal(size=10_000))
    >>> bool(ddask.worst_case_risk(da.from_array(v, chunks=999), scale=0.1)
    ...      == di.worst_case_risk(v, scale=0.1))
    True
    """
    dask, da = _dask()
    lam = _validate.scale_or_limit("scale", scale)
    ns = lam.size
    x = _values(values, da)
    if x.ndim != 1 or x.size == 0:
        raise ValueError(f"values must be a non-empty one-dimensional array, got shape {x.shape}")
    blocks = list(x.to_delayed().ravel())
    summaries = [dask.delayed(_summary)(b) for b in blocks]
    plan = dask.delayed(_plan)(summaries)
    scaling = dask.delayed(_inverse)(summaries, lam)
    carry = (0, np.zeros((ns, worstcase.NF)))
    starts = []
    for i, b in enumerate(blocks):  # the forward chain
        step = dask.delayed(_forward, nout=2)(b, carry, scaling, plan, i)
        starts.append(step[0])
        carry = step[1]
    Bs = np.zeros((ns, worstcase.NB))
    Bs[:, 1] = 1.0
    right = (Bs, True)
    bests = []
    for i in range(len(blocks) - 1, -1, -1):  # the backward chain
        step = dask.delayed(_backward, nout=2)(blocks[i], starts[i], right, scaling, plan, i)
        bests.append(step[0])
        right = step[1]
    result = dask.delayed(_reduce_best)(bests, lam.shape)
    return result.compute() if _validate.flag("compute", compute) else result


def _reduce_best(bests, shape):
    q = np.min(np.stack(bests), axis=0)
    out = np.minimum(1.0 / q, 1.0)
    return _validate.ret(out.reshape(shape), len(shape) == 0)


def sweep(data: Any, *, client: Any = None, **kwargs: Any) -> SweepTable:
    """`diffident.sweep` with one Dask task per column.

    Parameters
    ----------
    data : str, os.PathLike, mapping or 2-d array
        The data, as for `diffident.sweep`.
    client : distributed.Client, optional
        The cluster to run on (default: the current Dask scheduler).
    **kwargs
        The keywords of `diffident.sweep` except ``column_seed``; budgets hold per task.

    Returns
    -------
    SweepTable
        The same table as `diffident.sweep`, rows in the same order.

    Raises
    ------
    ValueError
        As for `diffident.sweep`, raised by the task that meets it.
    TypeError
        As for `diffident.sweep`, and for a ``column_seed`` or unknown keyword.
    ImportError
        If dask is not installed.

    Examples
    --------
    >>> import numpy as np, diffident.dask as ddask
    >>> data = {"a": np.arange(1.0, 11.0), "b": np.arange(2.0, 22.0, 2.0)}
    >>> t = ddask.sweep(data, queries=["mean"], rho=[0.2, 0.5], infer_domains=True)
    >>> t["column"].tolist(), t["bound_scale"].round(4).tolist()
    (['a', 'a', 'b', 'b'], [1.1098, 0.4096, 1.1967, 0.6228])
    """
    dask, _ = _dask()
    from ._sweep.columns import as_columns, resolve_domains
    from ._sweep.sweep import sweep as _sweep

    cols, names = as_columns(data, kwargs.pop("columns", None), kwargs.pop("dropna", False))
    # the domains resolved (and an inferred one warned about) here, once;
    # each task gets its column's domain as given
    resolved = resolve_domains(cols, names, kwargs.pop("domains", None), kwargs.pop("infer_domains", None))
    tasks = [dask.delayed(_sweep)({name: col}, domains={name: resolved[name][0]}, column_seed=i, **kwargs)
             for i, (name, col) in enumerate(cols.items())]
    if not tasks:  # no columns: the same empty table as diffident.sweep
        return _sweep({}, **kwargs)
    parts = client.compute(tasks, sync=True) if client is not None else dask.compute(*tasks)
    table = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    table["domain_source"] = np.concatenate([np.full(len(p), resolved[name][1], dtype=object)
                                             for p, name in zip(parts, cols, strict=True)])
    return SweepTable(table)
