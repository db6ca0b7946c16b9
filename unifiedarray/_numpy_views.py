"""NumPy's functions that return views (``np.reshape``, ``np.transpose``,
``np.squeeze`` ...), answered with views of the buffer, as NumPy's arrays
answer them, on every backend (:data:`NUMPY_VIEWS`).  Each returns None
for what it does not cover (another ``order=``, ``copy=True``), which then
runs as any other NumPy call does: on a copy.

Example
-------
>>> import unifiedarray as xp
>>> NUMPY_VIEWS["transpose"](xp.ones((2, 3))).shape
(3, 2)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._namespace import namespace
from ._view_ops import permuted, reshaped

__all__ = ["NUMPY_VIEWS", "numpy_axis"]


# NumPy's functions that return views, answered with views of the buffer
# (as NumPy's arrays answer them), on every backend.  Each returns None for
# what it does not cover (another order=, copy=True), which then runs as any
# other NumPy call does: on a copy.
def _np_reshape(a: Any, shape: Any = None, order: str = "C", *, newshape: Any = None, copy: Any = None) -> Any:
    if order != "C" or copy:
        return None
    return reshaped(a, shape if shape is not None else newshape)


def _np_ravel(a: Any, order: str = "C") -> Any:
    return reshaped(a, (-1,)) if order == "C" else None


def _np_transpose(a: Any, axes: Any = None) -> Any:
    if axes is None:
        return permuted(a, tuple(range(a.ndim))[::-1])
    axes = (axes,) if isinstance(axes, int | np.integer) else tuple(axes)
    return permuted(a, tuple(numpy_axis(ax, a.ndim) for ax in axes))


def _np_swapaxes(a: Any, axis1: int, axis2: int) -> Any:
    axes = list(range(a.ndim))
    i, j = numpy_axis(axis1, a.ndim), numpy_axis(axis2, a.ndim)
    axes[i], axes[j] = axes[j], axes[i]
    return permuted(a, tuple(axes))


def _np_squeeze(a: Any, axis: Any = None) -> Any:
    if axis is None:  # NumPy's default: every singleton axis
        axis = tuple(i for i, d in enumerate(a.shape) if d == 1)
    return namespace().squeeze(a, axis)


def numpy_axis(axis: Any, ndim: int) -> int:
    """An axis as NumPy checks it (``AxisError``, an IndexError and a ValueError)."""
    ax = int(np.asarray(axis).item()) if not isinstance(axis, int) else axis
    if not -ndim <= ax < ndim:
        raise np.exceptions.AxisError(ax, ndim)
    return ax % ndim if ndim else ax


def _flip_axis(m: Any, axis: int, name: str, min_ndim: int) -> Any:
    if m.ndim < min_ndim:
        raise ValueError(f"{name}: input must be at least {min_ndim}-d")
    return namespace().flip(m, axis=axis)


NUMPY_VIEWS: dict[str, Any] = {
    "reshape": _np_reshape,
    "ravel": _np_ravel,
    "transpose": _np_transpose,
    "permute_dims": _np_transpose,
    "swapaxes": _np_swapaxes,
    "matrix_transpose": lambda x: x.mT,
    "squeeze": _np_squeeze,
    "expand_dims": lambda a, axis: namespace().expand_dims(a, axis=axis),
    "flip": lambda m, axis=None: namespace().flip(m, axis=axis),
    "flipud": lambda m: _flip_axis(m, 0, "flipud", 1),
    "fliplr": lambda m: _flip_axis(m, 1, "fliplr", 2),
}
