"""The searching functions (Array API chapter "Searching Functions").

Each function is the standard's signature, written out, handing its call to
the one dispatch (:mod:`unifiedarray._dispatch`), which runs it on the
device where its arrays live.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from . import _calls, _intake, _rules
from ._array import UnifiedArray

_INDEX = np.dtype(np.int64)

__all__ = ["argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where"]


def argmax(x: UnifiedArray, /, *, axis: int | None = None, keepdims: bool = False) -> UnifiedArray:
    """``argmax`` (searching), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.argmax.html
    """
    if type(x) is UnifiedArray:
        _rules.unary("argmax", x.dtype)
    return _calls.call("argmax", (x,), {"axis": axis, "keepdims": keepdims})


def argmin(x: UnifiedArray, /, *, axis: int | None = None, keepdims: bool = False) -> UnifiedArray:
    """``argmin`` (searching), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.argmin.html
    """
    if type(x) is UnifiedArray:
        _rules.unary("argmin", x.dtype)
    return _calls.call("argmin", (x,), {"axis": axis, "keepdims": keepdims})


def count_nonzero(
    x: UnifiedArray, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False
) -> UnifiedArray:
    """``count_nonzero`` (searching), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.count_nonzero.html
    """
    return _calls.call("count_nonzero", (x,), {"axis": axis, "keepdims": keepdims})


def nonzero(x: UnifiedArray, /) -> tuple[UnifiedArray, ...]:
    """``nonzero`` (searching), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.nonzero.html
    """
    return tuple(_calls.call("nonzero", (x,)))


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
    x2 = _intake.array_or_scalar(x2, "searchsorted", x1.device if type(x1) is UnifiedArray else None)
    if type(x2) is not UnifiedArray and type(x1) is UnifiedArray:
        # A Python scalar: the rules' kind and range (one outside an integer
        # x1's range sorts before or after every element).
        constant = _rules.binary_scalar("less", x1.dtype, x2)
        if constant is not None:
            place = x1.shape[-1] if constant and x1.ndim else 0
            return _calls.scalar_array(place, _INDEX, x1.device)
        dt = _rules.result_type(x1.dtype, x2)
        if dt != x1.dtype:
            x1 = _calls.call("astype", (x1, dt), {"copy": False})
        x2 = _calls.scalar_array(_rules.element(dt, x2, "searchsorted"), dt, x1.device)
    return _calls.call("searchsorted", (x1, x2), {"side": side, "sorter": sorter})


def where(condition: UnifiedArray, x1: UnifiedArray | complex, x2: UnifiedArray | complex, /) -> UnifiedArray:
    """``where`` (searching), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.where.html
    """
    traced = _calls.traced_call(where, (condition, x1, x2))
    if traced is not NotImplemented:
        return traced  # a tracer of unifiedarray.fuse records the call
    _calls.require_arrays("where", condition)
    dev = condition.device
    x1, x2 = _intake.array_or_scalar(x1, "where", dev), _intake.array_or_scalar(x2, "where", dev)
    t1, t2 = type(x1) is UnifiedArray, type(x2) is UnifiedArray
    arr: Any = x1 if t1 else x2
    value: Any = x2 if t1 else x1
    if t1 and t2:
        _rules.binary_arrays("where", arr.dtype, value.dtype)
    elif t1 or t2:
        dt = _rules.where_scalar(arr.dtype, value)
        if dt != arr.dtype:
            arr = _calls.call("astype", (arr, dt), {"copy": False})
        value = _rules.element(dt, value, "where")
        x1, x2 = (arr, value) if t1 else (value, arr)
    else:
        dt = _rules.where_scalars(x1, x2)
        x1 = _calls.scalar_array(_rules.element(dt, x1, "where"), dt, dev)
        x2 = _calls.scalar_array(_rules.element(dt, x2, "where"), dt, dev)
    return _calls.call("where", (condition, x1, x2))
