"""The utility functions (Array API chapter "Utility Functions").

Each function is the standard's signature, written out, handing its call to
the one dispatch (:mod:`unifiedarray._dispatch`), which runs it on the
device where its arrays live.
"""

from __future__ import annotations

from typing import Any

from . import _calls
from ._array import UnifiedArray

__all__ = ["all", "any", "diff"]


def all(x: UnifiedArray, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> UnifiedArray:
    """``all`` (utility), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.all.html
    """
    return _calls.call("all", (x,), {"axis": axis, "keepdims": keepdims})


def any(x: UnifiedArray, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> UnifiedArray:
    """``any`` (utility), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.any.html
    """
    return _calls.call("any", (x,), {"axis": axis, "keepdims": keepdims})


def diff(
    x: UnifiedArray,
    /,
    *,
    axis: int = -1,
    n: int = 1,
    prepend: UnifiedArray | None = None,
    append: UnifiedArray | None = None,
) -> UnifiedArray:
    """``diff`` (utility), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.diff.html
    """
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"diff: n must be an int, not {type(n).__name__}")
    if n < 0:
        raise ValueError(f"diff: n must be non-negative, got {n}")
    if type(x) is UnifiedArray and isinstance(axis, int) and -x.ndim <= axis < x.ndim:
        # n past the length gives an empty result; NumPy would loop n times.
        length = sum(
            a.shape[axis] if type(a) is UnifiedArray and a.ndim else 1 for a in (prepend, append) if a is not None
        )
        n = min(n, x.shape[axis] + length)
    kwargs: dict[str, Any] = {"axis": axis, "n": n}
    if prepend is not None:  # NumPy takes an explicit None as a value to prepend
        kwargs["prepend"] = prepend
    if append is not None:
        kwargs["append"] = append
    return _calls.call("diff", (x,), kwargs)
