"""What the route table's chapters share: reading NumPy's arguments.

Example
-------
>>> numpy_axis(-1, 2)
1
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._array import UnifiedArray

__all__ = ["UNSET", "all_arrays", "is_array", "numpy_axis"]

#: A parameter not given (NumPy's own sentinel is private).
UNSET: Any = type("Unset", (), {"__repr__": lambda self: "<not given>"})()


def is_array(a: Any) -> bool:
    """Whether ``a`` is a UnifiedArray, or a tracer of :func:`unifiedarray.fuse`
    standing for one (the arrays a composition takes)."""
    return type(a) is UnifiedArray or hasattr(type(a), "__unifiedarray_trace__")


def all_arrays(*items: Any) -> bool:
    """Whether every item is an array (:func:`is_array`)."""
    return all(is_array(a) for a in items)


def numpy_axis(axis: Any, ndim: int) -> int:
    """An axis as NumPy checks it (``AxisError``, an IndexError and a ValueError)."""
    ax = int(np.asarray(axis).item()) if not isinstance(axis, int) else axis
    if not -ndim <= ax < ndim:
        raise np.exceptions.AxisError(ax, ndim)
    return ax % ndim if ndim else ax
