"""The indexing functions (Array API chapter "Indexing Functions").

Each function is the standard's signature, written out, handing its call to
the one dispatch (:mod:`unifiedarray._dispatch`), which runs it on the
device where its arrays live.
"""

from __future__ import annotations

import numpy as np

from . import _calls
from ._array import UnifiedArray
from ._foreign import host_data

__all__ = ["take", "take_along_axis"]

# A constant: ``float | list | tuple | np.ndarray`` builds a new union at every call.
_INDEX_CONTAINERS = (float, list, tuple, np.ndarray)


def take(x: UnifiedArray, indices: UnifiedArray, /, *, axis: int | None = None) -> UnifiedArray:
    """``take`` (indexing), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.take.html
    """
    _calls.require_arrays("take", x)
    if axis is None and x.ndim > 1:
        raise ValueError(f"take: axis is required for an array of {x.ndim} dimensions")
    kind = indices.dtype.kind if type(indices) is UnifiedArray else None
    if kind is None and isinstance(indices, _INDEX_CONTAINERS):
        kind = host_data(indices).dtype.kind
        if kind == "O":  # Python ints past int64 (2**70): NumPy's own OverflowError, below
            kind = None
    if kind is not None and kind not in "iu":
        raise TypeError(f"take: indices must be integers, not {np.dtype(kind).name if kind != 'O' else 'objects'}")
    return _calls.call("take", (x, indices), {"axis": axis})


def take_along_axis(x: UnifiedArray, indices: UnifiedArray, /, *, axis: int = -1) -> UnifiedArray:
    """``take_along_axis`` (indexing), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.take_along_axis.html
    """
    return _calls.call("take_along_axis", (x, indices), {"axis": axis})
