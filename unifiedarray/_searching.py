"""The searching functions (Array API chapter "Searching Functions").

Each function is the standard's signature, written out, handing its call to
the one dispatch (:mod:`unifiedarray._dispatch`), which runs it on the
device where its arrays live.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from . import _dispatch
from ._array import UnifiedArray

__all__ = ["argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where"]


def argmax(x: UnifiedArray, /, *, axis: int | None = None, keepdims: bool = False) -> UnifiedArray:
    """``argmax`` (searching), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.argmax.html
    """
    return _dispatch.call("argmax", (x,), {"axis": axis, "keepdims": keepdims})


def argmin(x: UnifiedArray, /, *, axis: int | None = None, keepdims: bool = False) -> UnifiedArray:
    """``argmin`` (searching), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.argmin.html
    """
    return _dispatch.call("argmin", (x,), {"axis": axis, "keepdims": keepdims})


def count_nonzero(
    x: UnifiedArray, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False
) -> UnifiedArray:
    """``count_nonzero`` (searching), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.count_nonzero.html
    """
    return _dispatch.call("count_nonzero", (x,), {"axis": axis, "keepdims": keepdims})


def nonzero(x: UnifiedArray, /) -> tuple[UnifiedArray, ...]:
    """``nonzero`` (searching), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.nonzero.html
    """
    return tuple(_dispatch.call("nonzero", (x,)))


def searchsorted(
    x1: UnifiedArray,
    x2: UnifiedArray | int | float,
    /,
    *,
    side: Literal["left", "right"] = "left",
    sorter: UnifiedArray | None = None,
) -> UnifiedArray:
    """``searchsorted`` (searching), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.searchsorted.html
    """
    return _dispatch.call("searchsorted", (x1, x2), {"side": side, "sorter": sorter})


def where(condition: UnifiedArray, x1: UnifiedArray | complex, x2: UnifiedArray | complex, /) -> UnifiedArray:
    """``where`` (searching), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.where.html
    """
    for value, other in ((x1, x2), (x2, x1)):
        # A Python int out of the integer array's range: NumPy 2.5 raises
        # OverflowError, as the operators do; NumPy 2.4 wrapped it silently.
        if type(value) is int and type(other) is UnifiedArray and other.dtype.kind in "iu":
            info = np.iinfo(other.dtype)
            if not info.min <= value <= info.max:
                raise OverflowError(f"where: Python integer {value} out of bounds for {other.dtype}")
    return _dispatch.call("where", (condition, x1, x2))
