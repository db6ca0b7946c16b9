"""The sorting functions (Array API chapter "Sorting Functions").

Each function is the standard's signature, written out, handing its call to
the one dispatch (:mod:`unifiedarray._dispatch`), which runs it on the
device where its arrays live.
"""

from __future__ import annotations

from . import _calls, _rules
from ._array import UnifiedArray

__all__ = ["argsort", "sort"]


def argsort(x: UnifiedArray, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> UnifiedArray:
    """``argsort`` (sorting), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.argsort.html
    """
    if type(x) is UnifiedArray:
        _rules.unary("argsort", x.dtype)
    return _calls.call("argsort", (x,), {"axis": axis, "descending": descending, "stable": stable})


def sort(x: UnifiedArray, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> UnifiedArray:
    """``sort`` (sorting), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.sort.html
    """
    if type(x) is UnifiedArray:
        _rules.unary("sort", x.dtype)
    return _calls.call("sort", (x,), {"axis": axis, "descending": descending, "stable": stable})
