"""Docstring text that many public names share, written once.

A docstring line that holds only ``%(name)s`` becomes the entry ``name`` of
`SHARED`, indented as the line was: at import for the runtime docstrings
(`shared_docs`), and in the API reference by the docs' griffe extension.
"""

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
}

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
