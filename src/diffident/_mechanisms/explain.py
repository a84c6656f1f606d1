"""`explain`: an (epsilon, delta) guarantee and the noises that attain it, read as attacks."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .._numerics.validate import in_range, privacy_epsilon, scalar, worlds
from .base import Mechanism
from .calibrate import calibrate
from .guarantees import ApproxDP, PureDP
from .integer import DiscreteGaussian, DiscreteLaplace
from .noise import Gaussian, Laplace

__all__ = ["Explanation", "explain"]

NOISES = ("laplace", "discrete_laplace", "gaussian", "discrete_gaussian")


class Row(NamedTuple):
    """One row of an `Explanation`: a measure, its argument, one value per mechanism, and its reading."""

    measure: str
    argument: str
    values: tuple[float, ...]
    reading: str


def _one_in(p: float) -> str:
    """A probability as odds for a reader: "1 in 37", "certain", "never"."""
    if p >= 1.0:
        return "certain"
    if p <= 0.0:
        return "never"
    n = 1.0 / p
    return f"1 in {n:.3g}" if n < 10 else f"1 in {n:,.0f}"


def _at_most(p: float) -> str:
    """A bound as a reading: "at most 1 in 37", or no bound at all."""
    return "no bound: some outputs reveal it" if p >= 1.0 else f"at most {_one_in(p)}"


def _attaining(kind: str, epsilon: float, delta: float) -> Mechanism:
    """The least noise of one kind whose guarantee is (epsilon, delta)."""
    if kind == "laplace":
        return Laplace.from_epsilon(epsilon)
    if kind == "discrete_laplace":
        return DiscreteLaplace.from_epsilon(epsilon)
    if kind == "gaussian":
        return Gaussian.from_epsilon_delta(epsilon, delta)
    return DiscreteGaussian(float(calibrate(DiscreteGaussian, delta, measure="delta", epsilon=epsilon)))


class Explanation:
    """The table `explain` returns: measures by rows, mechanisms by columns.

    Parameters
    ----------
    epsilon, delta : float
        The guarantee explained.
    mechanisms : sequence of (str, Mechanism)
        The columns.
    rows : sequence of Row
        The measures.

    Attributes
    ----------
    epsilon, delta : float
        The guarantee explained.
    mechanisms : tuple of (str, Mechanism)
        The columns: the guarantee itself, then the noise that attains it.
    rows : tuple of Row
        Each measure: name, argument, one value per mechanism, a reading.

    Raises
    ------
    TypeError
        If an argument is given by position (all are keywords).

    Examples
    --------
    >>> from diffident import explain
    >>> e = explain(1.0, priors=[0.01], m=[10])
    >>> [label for label, _ in e.mechanisms]
    ['guarantee', 'laplace', 'discrete_laplace']
    >>> e.rows[0].reading
    'from 1 in 100 to 1 in 37'
    """

    def __init__(self, *, epsilon: float, delta: float, mechanisms: Any, rows: Any) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.mechanisms = tuple(mechanisms)
        self.rows = tuple(rows)

    def __repr__(self) -> str:
        return f"<Explanation of epsilon={self.epsilon!r}, delta={self.delta!r}: {len(self.rows)} rows>"

    def __str__(self) -> str:
        head = ["measure", "at"] + [label for label, _ in self.mechanisms] + ["what it means (guarantee)"]
        body = [[r.measure, r.argument] + [f"{v + 0.0:.4g}" for v in r.values] + [r.reading] for r in self.rows]
        widths = [max(len(str(x[i])) for x in [head] + body) for i in range(len(head))]
        lines = [f"What epsilon = {self.epsilon:g}, delta = {self.delta:g} means to an attacker", ""]
        for label, mech in self.mechanisms:
            lines.append(f"  {label}: {mech!r}")
        lines.append("")
        lines.append("  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)).rstrip())
        lines.append("  ".join("-" * w for w in widths))
        for b in body:
            lines.append("  ".join(str(x).ljust(w) for x, w in zip(b, widths, strict=True)).rstrip())
        return "\n".join(lines)

    def to_pandas(self) -> Any:
        """The table as a pandas DataFrame (pandas is imported here: not a dependency).

        Returns
        -------
        pandas.DataFrame
            Columns measure, argument, one per mechanism, reading.

        Raises
        ------
        ImportError
            If pandas is not installed.

        Examples
        --------
        >>> from diffident import explain
        >>> explain(1.0).to_pandas().columns[:3].tolist()
        ['measure', 'argument', 'guarantee']
        """
        import pandas as pd

        labels = [label for label, _ in self.mechanisms]
        data = [{"measure": r.measure, "argument": r.argument, **dict(zip(labels, r.values, strict=True)),
                 "reading": r.reading} for r in self.rows]
        return pd.DataFrame(data, columns=["measure", "argument", *labels, "reading"])

    def plot(self, ax: Any = None) -> Any:
        """Draw the trade-off curves of the guarantee and of each noise.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw (default: a new figure's).

        Returns
        -------
        matplotlib Axes
            The axes: FPR against TPR (``1 - tradeoff``).

        Raises
        ------
        ImportError
            If matplotlib (the ``plot`` extra) is not installed.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from diffident import explain
        >>> ax = explain(1.0).plot()
        >>> ax.get_xlabel()
        'false-positive rate (FPR)'
        """
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5.0, 4.5))
        a = np.concatenate((np.geomspace(1e-6, 1e-2, 200), np.linspace(1e-2, 1.0, 400)))
        for label, mech in self.mechanisms:
            ax.plot(a, mech.tpr_at_fpr(a), label=f"{label}", lw=2.0 if label == "guarantee" else 1.3,
                    ls="-" if label == "guarantee" else "--")
        ax.plot([0, 1], [0, 1], color="0.6", lw=0.8, label="blind guess")
        ax.set_xlabel("false-positive rate (FPR)")
        ax.set_ylabel("largest true-positive rate (TPR)")
        ax.set_title(f"ε = {self.epsilon:g}, δ = {self.delta:g}")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.legend(loc="lower right", fontsize="small")
        return ax


def explain(epsilon: float, delta: float = 0.0, *, mechanism: str | None = None,
            m: Any = (10, 100, 1000), priors: Any = (0.001, 0.01, 0.1, 0.5)) -> Explanation:
    """What an (epsilon, delta)-DP guarantee means to an attacker, as a table.

    Parameters
    ----------
    epsilon : float
        The guarantee's epsilon, finite and >= 0 (> 0 when delta is 0).
    delta : float, optional
        The guarantee's delta, in [0, 1) (default 0: pure DP).
    mechanism : {"laplace", "discrete_laplace", "gaussian", "discrete_gaussian"}, optional
        The noise beside the guarantee (default: the continuous and the
        integer noise that attain it).
    m : sequence of int, optional
        Numbers of candidates for the identification rows.
    priors : sequence of float, optional
        The attacker's prior beliefs, in (0, 1), for the posterior rows.

    Returns
    -------
    Explanation
        Rows posterior, identification, success, advantage, TPR at 1% FPR
        and delta at epsilon.

    Raises
    ------
    ValueError
        For an epsilon or delta out of range or NaN, an unknown mechanism,
        one that cannot attain the guarantee, or bad m or priors.

    Examples
    --------
    >>> from diffident import explain
    >>> e = explain(2.0, priors=[0.01], m=[10])
    >>> row = e.rows[0]
    >>> row.measure, row.argument, round(row.values[0], 4), row.reading
    ('posterior', 'prior 0.01', 0.0695, 'from 1 in 100 to 1 in 14')
    """
    e = float(privacy_epsilon("epsilon", epsilon))
    d = scalar("delta", delta)
    if not 0.0 <= d < 1.0:
        raise ValueError(f"delta must lie in [0, 1), got {d!r}")
    if not np.isfinite(e) or (e == 0.0 and d == 0.0):
        raise ValueError(f"epsilon must be finite, and > 0 where delta is 0, got {epsilon!r}")
    if mechanism is not None and mechanism not in NOISES:
        raise ValueError(f"mechanism must be one of {NOISES}, got {mechanism!r}")
    kinds = ([mechanism] if mechanism is not None
             else ["laplace", "discrete_laplace"] if d == 0.0 else ["gaussian", "discrete_gaussian"])
    for kind in kinds:
        if kind.endswith("laplace") and d > 0.0:
            raise ValueError(f"{kind} noise gives pure DP: explain it with delta 0, got delta {d!r}")
        if kind.endswith("gaussian") and d == 0.0:
            raise ValueError(f"{kind} noise needs delta > 0 (no Gaussian noise is pure DP)")
    ms = [int(v) for v in np.atleast_1d(worlds("m", m))]
    ps = [float(v) for v in np.atleast_1d(in_range("priors", priors, 0.0, 1.0, lo_open=True, hi_open=True))]
    guarantee: Mechanism = PureDP(e) if d == 0.0 else ApproxDP(e, delta=d)
    mechs = [("guarantee", guarantee)] + [(k, _attaining(k, e, d)) for k in kinds]
    rows = []
    for p in ps:
        vals = tuple(float(mm.posterior(p)) for _, mm in mechs)
        to = _one_in(vals[0]) if vals[0] < 1.0 else "certain, for some outputs"
        rows.append(Row("posterior", f"prior {p:g}", vals, f"from {_one_in(p)} to {to}"))
    for k in ms:
        vals = tuple(float(mm.identification_bound(k)) for _, mm in mechs)
        rows.append(Row("identification", f"m = {k}", vals,
                        f"names the right one of {k}: {_at_most(vals[0])} (blind: 1 in {k})"))
    for k in ms:
        vals = tuple(float(mm.success_bound(k)) for _, mm in mechs)
        rows.append(Row("success", f"m = {k}", vals, f"guesses right {_at_most(vals[0])} (blind: 1 in {k})"))
    vals = tuple(float(mm.advantage()) for _, mm in mechs)
    rows.append(Row("advantage", "", vals, f"TPR - FPR of any membership test at most {vals[0]:.3g}"))
    vals = tuple(float(mm.tpr_at_fpr(0.01)) for _, mm in mechs)
    rows.append(Row("TPR", "FPR 0.01", vals, f"a test wrong on 1% of non-members finds at most {vals[0]:.1%}"))
    vals = tuple(float(mm.delta(e)) for _, mm in mechs)
    rows.append(Row("delta", f"epsilon {e:g}", vals, "outputs whose privacy loss exceeds epsilon, weighted"))
    return Explanation(epsilon=e, delta=d, mechanisms=mechs, rows=rows)

