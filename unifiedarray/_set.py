"""The set functions (Array API chapter "Set Functions").

Each function is the standard's signature, written out, handing its call to
the one dispatch (:mod:`unifiedarray._dispatch`), which runs it on the
device where its arrays live.
"""

from __future__ import annotations

from typing import NamedTuple

from . import _dispatch
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
    return UniqueAllResult(*_dispatch.call("unique_all", (x,)))


def unique_counts(x: UnifiedArray, /) -> UniqueCountsResult:
    """``unique_counts`` (set), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.unique_counts.html
    """
    return UniqueCountsResult(*_dispatch.call("unique_counts", (x,)))


def unique_inverse(x: UnifiedArray, /) -> UniqueInverseResult:
    """``unique_inverse`` (set), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.unique_inverse.html
    """
    return UniqueInverseResult(*_dispatch.call("unique_inverse", (x,)))


def unique_values(x: UnifiedArray, /) -> UnifiedArray:
    """``unique_values`` (set), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.unique_values.html
    """
    return _dispatch.call("unique_values", (x,))


def isin(x1: UnifiedArray | int, x2: UnifiedArray | int, /, *, invert: bool = False) -> UnifiedArray:
    """``isin`` (set), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.isin.html
    """
    return _dispatch.call_mixed("isin", (x1, x2), {"invert": invert})
