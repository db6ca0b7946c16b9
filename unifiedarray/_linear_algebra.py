"""The linear algebra functions (Array API chapter "Linear Algebra Functions").

Each function is the standard's signature, written out, handing its call to
the one dispatch (:mod:`unifiedarray._dispatch`), which runs it on the
device where its arrays live.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import _calls
from ._array import UnifiedArray

__all__ = ["matmul", "matrix_transpose", "tensordot", "vecdot"]


def matmul(x1: UnifiedArray, x2: UnifiedArray, /) -> UnifiedArray:
    """``matmul`` (linear algebra), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.matmul.html
    """
    _calls.require_arrays("matmul", x1, x2)
    return _calls.call("matmul", (x1, x2))


def tensordot(
    x1: UnifiedArray,
    x2: UnifiedArray,
    /,
    *,
    axes: int | tuple[Sequence[int], Sequence[int]] = 2,
) -> UnifiedArray:
    """``tensordot`` (linear algebra), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.tensordot.html
    """
    return _calls.call("tensordot", (x1, x2), {"axes": axes})


def vecdot(x1: UnifiedArray, x2: UnifiedArray, /, *, axis: int = -1) -> UnifiedArray:
    """``vecdot`` (linear algebra), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.vecdot.html
    """
    return _calls.call("vecdot", (x1, x2), {"axis": axis})


def matrix_transpose(x: UnifiedArray, /) -> UnifiedArray:
    """The transpose of the last two axes: a view sharing x's buffer
    (``x.mT``).

    >>> import unifiedarray as xp
    >>> xp.matrix_transpose(xp.zeros((5, 2, 3))).shape
    (5, 3, 2)
    """
    if type(x) is not UnifiedArray:
        raise TypeError(f"matrix_transpose: expected a UnifiedArray, got {type(x).__name__}")
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose: x must have at least 2 dimensions (it has {x.ndim})")
    return x.mT
