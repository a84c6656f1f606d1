"""Docstring text that many public names share, written once."""

import re
from typing import TypeVar

T = TypeVar("T")

SHARED: dict[str, str] = {
    "query": """query : str or callable
    A named query ("sum", "mean", "median", "quantile", "min", "max", "var",
    "std", "count") or a function of the world returning a number.""",
    "known": """known : array_like
    The known part D'.""",
    "data": """data : array_like
    The data set D (1-d, non-empty).""",
    "k_unknown": """k : int, optional
    Number of unknown individuals (>= 1, default 1).""",
    "ddof": """ddof : {0, 1}, optional
    Delta degrees of freedom of ``var`` and ``std`` (default 0).""",
    "q": """q : float, optional
    The quantile of ``"quantile"``, in [0, 1] (default 0.5).""",
    'values': """values : array_like, shape (m,)
    Query values f(w) of the possible worlds (repeats allowed).""",
    'counts': """counts : array_like, shape (m,), optional
    Multiplicity of each entry: whole numbers >= 0.""",
    'prior': """prior : array_like, shape (m,), optional
    Unnormalised per-world prior weights (>= 0).""",
    'response': """response : array_like
    Released value(s) R.""",
    'scale': """scale : array_like
    Noise scale(s) (Laplace scale or Gaussian sigma), finite and > 0.""",
    'noise': """noise : {"laplace", "gaussian", "discrete_laplace", "discrete_gaussian"}, optional
    The noise distribution (default Laplace); integer noise: Mathematics page, sec. 11.""",
    'granularity': """granularity : float, optional
    Lattice spacing of integer noise (default 1; only 1 for continuous).""",
    'flip': """flip : array_like
    The probability p of not keeping the true bit, in [0, 1].""",
    'zero': """zero : array_like
    The probability k that a report is 0 when the bit is not kept, in [0, 1].""",
    'lattice_sensitivity': """sensitivity : int, keyword-only
    Delta, a whole number of lattice steps (default 1).""",
    'm_worlds': """m : array_like
    Number of possible worlds (>= 1).""",
    'raises_range': """ValueError
    For an argument outside its range or NaN, or inputs that do not broadcast.
TypeError
    If an argument is not real numbers.""",
    'raises_positive': """ValueError
    For an argument that is NaN, infinite, zero or negative, or inputs that do not broadcast.
TypeError
    If an argument is not real numbers.""",
    'raises_axis': """ValueError
    For an argument outside its range or NaN, shapes that do not broadcast, or a bad axis.
TypeError
    If an argument is not real numbers.""",
    'raises_flip_zero': """ValueError
    If flip or zero is outside [0, 1] or NaN.
TypeError
    If an argument is not real numbers (a string, a bool, complex values).""",
    'raises_as_log_evidence': """ValueError
    As for `log_evidence`: bad values, responses, scales, counts or prior.
TypeError
    If an argument is not real numbers (a string, a bool, complex values).""",
    'returns_path': """str, os.PathLike or file-like
    The ``path`` given, unchanged.""",
}
SHARED["evidence_inputs"] = "\n".join(SHARED[name] for name in (
    "values", "response", "scale", "counts", "prior", "noise", "granularity"))

_LINE = re.compile(r"^(?P<indent>[ \t]*)%\((?P<name>\w+)\)s[ \t]*$", re.M)


def expand(doc: str) -> str:
    """The docstring with each ``%(name)s`` line replaced by its shared text."""

    def entry(match: re.Match[str]) -> str:
        text = SHARED[match["name"]]
        return "\n".join(match["indent"] + line if line else line for line in text.split("\n"))

    return _LINE.sub(entry, doc)


def shared_docs(obj: T) -> T:
    """Decorator: expand the shared text in a function's or class's docstring."""
    if obj.__doc__:
        obj.__doc__ = expand(obj.__doc__)
    return obj
