"""The indexing functions (Array API chapter "Indexing Functions").

Each function is the standard's signature, written out, handing its call to
the one dispatch (:mod:`unifiedarray._dispatch`), which runs it on the
device where its arrays live.
"""

from __future__ import annotations

from collections.abc import Sequence  # noqa: F401
from typing import Literal  # noqa: F401

from . import _dispatch
from ._array import UnifiedArray
from ._data_types import DType  # noqa: F401

__all__ = ["take", "take_along_axis"]


def take(x: UnifiedArray, indices: UnifiedArray, /, *, axis: int | None = None) -> UnifiedArray:
    """``take`` (indexing), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.take.html
    """
    return _dispatch.call("take", (x, indices), {"axis": axis})


def take_along_axis(x: UnifiedArray, indices: UnifiedArray, /, *, axis: int = -1) -> UnifiedArray:
    """``take_along_axis`` (indexing), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.take_along_axis.html
    """
    return _dispatch.call("take_along_axis", (x, indices), {"axis": axis})
