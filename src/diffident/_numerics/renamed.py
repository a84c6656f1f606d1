"""Keyword arguments renamed: the old name keeps working for a while, with a warning."""

import functools
import warnings
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


def renamed(since: str, **old_to_new: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Accept each old keyword name for its new one, with a `DeprecationWarning`.

    Giving both names is a `TypeError`; the signature shown is the new one.
    """

    def decorate(func: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(func)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            for old, new in old_to_new.items():
                if old in kwargs:
                    if new in kwargs:
                        raise TypeError(f"{func.__name__}() got both {old}= (its old name) and {new}=")
                    warnings.warn(f"{func.__name__}(): {old}= is deprecated since diffident {since}; "
                                  f"use {new}= (same meaning)", DeprecationWarning, stacklevel=2)
                    kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)

        return wrapper

    return decorate
