"""The set functions (Array API chapter "Set Functions").

Each function is the standard's signature, written out, handing its call to
the one dispatch (:mod:`unifiedarray._dispatch`), which runs it on the
device where its arrays live.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from . import _calls, _intake, _rules
from ._array import UnifiedArray


class UniqueAllResult(NamedTuple):
    """What ``unique_all`` returns."""

    values: UnifiedArray
    indices: UnifiedArray
    inverse_indices: UnifiedArray
    counts: UnifiedArray


class UniqueCountsResult(NamedTuple):
    """What ``unique_counts`` returns."""

    values: UnifiedArray
    counts: UnifiedArray


class UniqueInverseResult(NamedTuple):
    """What ``unique_inverse`` returns."""

    values: UnifiedArray
    inverse_indices: UnifiedArray


__all__ = [
    "UniqueAllResult",
    "UniqueCountsResult",
    "UniqueInverseResult",
    "isin",
    "unique_all",
    "unique_counts",
    "unique_inverse",
    "unique_values",
]


def unique_all(x: UnifiedArray, /) -> UniqueAllResult:
    """``unique_all`` (set), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.unique_all.html
    """
    return UniqueAllResult(*_calls.call("unique_all", (x,)))


def unique_counts(x: UnifiedArray, /) -> UniqueCountsResult:
    """``unique_counts`` (set), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.unique_counts.html
    """
    return UniqueCountsResult(*_calls.call("unique_counts", (x,)))


def unique_inverse(x: UnifiedArray, /) -> UniqueInverseResult:
    """``unique_inverse`` (set), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.unique_inverse.html
    """
    return UniqueInverseResult(*_calls.call("unique_inverse", (x,)))


def unique_values(x: UnifiedArray, /) -> UnifiedArray:
    """``unique_values`` (set), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.unique_values.html
    """
    return _calls.call("unique_values", (x,))


_BOOL = np.dtype(np.bool_)


def isin(x1: UnifiedArray | int, x2: UnifiedArray | int, /, *, invert: bool = False) -> UnifiedArray:
    """``isin`` (set), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.isin.html
    """
    dev = x1.device if type(x1) is UnifiedArray else x2.device if type(x2) is UnifiedArray else None
    x1, x2 = _intake.array_or_scalar(x1, "isin", dev), _intake.array_or_scalar(x2, "isin", dev)
    t1, t2 = type(x1) is UnifiedArray, type(x2) is UnifiedArray
    if t1 != t2:
        # One Python scalar: compared by value, as the rules take a scalar in
        # ``equal`` (an int outside the array's range equals no element).
        arr: Any = x1 if t1 else x2
        value: Any = x2 if t1 else x1
        if _rules.is_strict():
            _rules.check_kind("isin", arr.dtype)  # array-api-strict: a scalar only with an integer array
        if _rules.binary_scalar("equal", arr.dtype, value) is not None:
            if t1:
                return _calls.call("full_like", (arr, bool(invert)), {"dtype": _BOOL})
            return _calls.scalar_array(bool(invert), _BOOL, arr.device)
        dt = _rules.result_type(arr.dtype, value)
        if dt != arr.dtype:
            arr = _calls.call("astype", (arr, dt), {"copy": False})
        value = _calls.scalar_array(_rules.element(dt, value, "isin"), dt, arr.device)
        x1, x2 = (arr, value) if t1 else (value, arr)
    return _calls.call_mixed("isin", (x1, x2), {"invert": invert})
