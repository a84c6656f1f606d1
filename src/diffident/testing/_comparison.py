"""The two types of the comparison table and the adapters its entries share."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field
from typing import Any

import numpy as np

from .tolerances import KERNEL

__all__ = ["Reference", "Comparison"]


@dataclass(frozen=True)
class Reference:
    """One reference implementation of a computation."""

    kind: str
    func: Callable[..., Any]
    _: KW_ONLY
    rtol: float = KERNEL
    atol: float = 0.0
    requires: str | tuple[str, ...] | None = None
    applies: Callable[[dict[str, Any]], bool] | None = None

    def __call__(self, *args, **kwargs):
        """Evaluate the reference: ``func(*args, **kwargs)``."""
        return self.func(*args, **kwargs)

    def covers(self, case):
        """Whether the reference computes this case (its ``applies`` predicate)."""
        return self.applies is None or bool(self.applies(case))

    def available(self):
        """Whether the modules the reference ``requires`` can be imported."""
        names = () if self.requires is None else (
            (self.requires,) if isinstance(self.requires, str) else self.requires)
        try:
            for name in names:
                __import__(name)
        except ImportError:
            return False
        return True


@dataclass(frozen=True)
class Comparison:
    """A public computation, its references and inputs that exercise it."""

    function: Callable[..., Any]
    references: tuple[Reference, ...]
    inputs: Callable[[int], dict[str, Any]]
    call: Callable[..., Any] | None = None
    seeds: int = 4
    name: str = field(default="")

    def __post_init__(self):
        """Default the name to the function's and the call to the function itself."""
        if not self.name:
            object.__setattr__(self, "name", getattr(self.function, "__name__", ""))
        if self.call is None:
            object.__setattr__(self, "call", self.function)

    def reference(self, kind):
        """The `Reference` of one kind, e.g. ``"dense"`` (KeyError if none)."""
        for ref in self.references:
            if ref.kind == kind:
                return ref
        raise KeyError(f"{self.name} has no {kind!r} reference")

    def cases(self, n=None):
        """The seeded cases ``inputs(0)`` .. ``inputs(n - 1)`` (``n`` default ``seeds``)."""
        return [self.inputs(seed) for seed in range(self.seeds if n is None else n)]


# --------------------------------------------------------------------------- adapters


def _floats(x):
    """mpf, Fraction, lists and tuples of them, as floats or a float array."""
    if isinstance(x, (list, tuple)):
        return np.array([_floats(v) for v in x], dtype=np.float64)
    if type(x).__module__.startswith("mpmath"):
        from .mpmath_reference import to_float

        return to_float(x)
    return float(x)


def _mp(name, pick=None, module="mpmath_reference", **fixed):
    """A function of a reference module, its result as floats (lazy import)."""

    def func(*args, **kwargs):
        import importlib

        ref = importlib.import_module(f"{__package__}.{module}")
        out = getattr(ref, name)(*args, **kwargs, **fixed)
        return _floats(out if pick is None else pick(out))

    func.__name__ = f"{module}.{name}"
    return func


def _mpmath(name, rtol=KERNEL, atol=0.0, pick=None, kind="mpmath", **fixed):
    return Reference(kind, _mp(name, pick, **fixed), rtol=rtol, atol=atol, requires="mpmath")


def _rr_exact(name, rtol=KERNEL, pick=None):
    return Reference("exact", _mp(name, pick, module="rr_reference"), rtol=rtol, atol=0.0, requires="mpmath")


def _scipy(func, rtol=KERNEL, atol=0.0):
    return Reference("scipy", func, rtol=rtol, atol=atol, requires="scipy")


# --------------------------------------------------------------------------- inputs


def _rng(seed, salt):
    return np.random.default_rng([salt, seed])
