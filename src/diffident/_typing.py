"""The type aliases of the public annotations (``numpy.typing``).

Numeric inputs are `RealArrayLike`: a number, a nested sequence of
numbers or an array of bool, integer or floating dtype (NumPy's own
float-like ``ArrayLike``: unlike ``numpy.typing.ArrayLike`` it refuses a
``str``, so that ``tight_scale("mean", rho=0.1)`` is a type error).
Outputs follow the library's one rule: a Python ``float`` when every
input is a scalar, else a float64 ndarray (`FloatOrArray`).  Indices
(worlds, removed individuals) are an ``int`` or an int64 ndarray
(`IntOrArray`).
"""

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    # NumPy's float-like array-like (numbers, nested sequences, bool/int/float arrays): a private
    # name of numpy's typing package, so read by type checkers only
    from numpy._typing import _ArrayLikeFloat_co

    from ._worlds.sets import Domain  # (a name in CandidatesLike's string only: no import cycle at run time)

    RealArrayLike: TypeAlias = _ArrayLikeFloat_co
else:
    RealArrayLike = npt.ArrayLike

FloatArray: TypeAlias = npt.NDArray[np.float64]
IntArray: TypeAlias = npt.NDArray[np.int64]
FloatOrArray: TypeAlias = float | FloatArray
"""A Python float for all-scalar input, else a float64 ndarray."""
IntOrArray: TypeAlias = int | IntArray
AnyNoise: TypeAlias = Literal["laplace", "gaussian", "discrete_laplace", "discrete_gaussian"]
"""A continuous noise or an integer one (on a lattice: Mathematics page, section 11)."""
GaussianNoise: TypeAlias = Literal["gaussian", "discrete_gaussian"]
QueryLike: TypeAlias = str | Callable[..., Any]
"""A query by name (``"mean"``, ``"median"``, ``"std"``, ...) or a callable of one world's values."""
CandidatesLike: TypeAlias = "RealArrayLike | Domain"
