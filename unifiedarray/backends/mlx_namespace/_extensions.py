"""NumPy's functions beyond the standard that the library's namespace offers
(``unifiedarray._extensions``), on MLX arrays, with NumPy's answers.

What MLX computes natively: ``pad`` with a scalar fill or ``mode="edge"``,
``einsum`` of one inexact dtype, ``cross`` of 3-vectors, ``cumsum`` and
``cumprod``.  The rest of each function's range (other pad modes, integer
``einsum``, 2-vectors) runs NumPy's function on the host, every move counted.
Arguments are checked as NumPy checks them, before MLX sees them, so the
errors are NumPy's.  ``gradient``, ``quantile`` and ``median`` are not here:
the dispatch runs them on the host (counted), as it does every function a
backend lacks.
"""

from __future__ import annotations

import builtins
import operator
from collections.abc import Callable
from typing import Any

import mlx.core as mx
import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from ..._dtypes import PYTHON_TYPES
from ._core import (
    COMPLEX64,
    FLOAT32,
    FLOAT64,
    Array,
    check_holdable,
    cpu_if,
    dtype_of,
    float64_on_cpu,
    from_host,
    require_array,
    to_host,
)
from ._manipulation import reshape
from ._statistical import cumulative_prod, cumulative_sum
from .linalg import cross as _linalg_cross

__all__ = ["cross", "cumprod", "cumsum", "einsum", "pad", "sliding_window_view"]

_EINSUM_DTYPES = (FLOAT32, FLOAT64, COMPLEX64)  # MLX's einsum (its matmul) takes inexact types only


def _to_host(obj: Any, reason: str) -> Any:
    if isinstance(obj, mx.array):
        return to_host(obj, reason)
    if isinstance(obj, (list, tuple)) and builtins.any(isinstance(o, mx.array) for o in obj):
        return type(obj)(_to_host(o, reason) for o in obj)
    return obj


def _on_host(op: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """NumPy's ``fn`` on the host copies of the MLX arrays among the
    arguments; the result back on MLX.  Every move counted."""
    reason = f"mlx fallback: {op}"
    res = fn(*[_to_host(a, reason) for a in args], **{k: _to_host(v, reason) for k, v in kwargs.items()})
    return from_host(np.asarray(res), reason)


def _pad_pairs(pad_width: Any, ndim: int) -> list[tuple[int, int]]:
    """NumPy's reading of ``pad_width`` (``numpy.pad``'s checks and errors):
    an int, a ``(before, after)`` pair, or one pair per axis."""
    width = np.asarray(pad_width)
    if width.dtype.kind != "i":
        raise TypeError("`pad_width` must be of integral type.")
    if width.ndim < 3 and width.size in (1, 2) and not (width.size == 2 and width.shape == (2, 1)):
        flat = width.ravel()
        before, after = int(flat[0]), int(flat[-1])
        if before < 0 or after < 0:
            raise ValueError("index can't contain negative values")
        return [(before, after)] * ndim
    if width.size and width.min() < 0:
        raise ValueError("index can't contain negative values")
    return [(int(b), int(a)) for b, a in np.broadcast_to(width, (ndim, 2)).tolist()]


def _fill_value(value: Any, dtype: np.dtype) -> Any:
    """``value`` converted into ``dtype`` as ``numpy.pad`` converts it (its
    value and its errors): NumPy pads a one-element array with it."""
    return np.pad(np.zeros(1, dtype=dtype), 1, constant_values=value)[:1]


def pad(x: Array, pad_width: Any, mode: Any = "constant", **kwargs: Any) -> Array:
    """NumPy's ``pad``: ``mode="constant"`` with one fill value and
    ``mode="edge"`` in MLX, every other mode on the host."""
    require_array(x, "pad")
    dt = dtype_of(x)
    native = False
    if mode == "constant" and set(kwargs) <= {"constant_values"}:
        fill = kwargs.get("constant_values", 0)
        native = isinstance(fill, PYTHON_TYPES) or (isinstance(fill, np.ndarray | np.generic) and np.ndim(fill) == 0)
    elif mode == "edge" and not kwargs:
        native = x.size > 0  # NumPy refuses to extend an empty axis by its edge
    if not native:
        return _on_host("pad", np.pad, x, pad_width, mode=mode, **kwargs)
    pairs = _pad_pairs(pad_width, x.ndim)
    if x.ndim == 0:
        return mx.array(x)  # NumPy pads no axis, and converts no fill value
    # NumPy converts the fill value even where nothing is padded (300 into int8 raises).
    fill = _fill_value(kwargs.get("constant_values", 0), dt) if mode == "constant" else None
    if not builtins.any(b or a for b, a in pairs):
        return mx.array(x)
    with cpu_if(dt):
        if fill is None:
            return mx.pad(x, pairs, mode="edge")
        value = mx.array(fill, dtype=check_holdable("pad", dt))
        return mx.pad(x, pairs, mode="constant", constant_values=value.reshape(()))


def einsum(*operands: Any, **kwargs: Any) -> Array:
    """NumPy's ``einsum``: in MLX for operands of one inexact dtype, on the
    host otherwise (MLX's einsum has no integer or bool kernels)."""
    if not operands or not isinstance(operands[0], str):
        return _on_host("einsum", np.einsum, *operands, **kwargs)
    subscripts, arrays = operands[0], operands[1:]
    dtypes = {dtype_of(a) for a in arrays if isinstance(a, mx.array)}
    if kwargs or not arrays or len(dtypes) != 1 or not builtins.all(isinstance(a, mx.array) for a in arrays):
        return _on_host("einsum", np.einsum, *operands, **kwargs)
    (dt,) = dtypes
    if dt not in _EINSUM_DTYPES:
        return _on_host("einsum", np.einsum, *operands, **kwargs)
    # NumPy's checks of subscripts against shapes (and its errors), on
    # zero-stride stand-ins that hold no data.
    np.einsum_path(subscripts, *[np.broadcast_to(np.zeros((), dt), a.shape) for a in arrays], optimize=False)
    with cpu_if(dt):
        return mx.einsum(subscripts, *arrays)


def cross(x1: Array, x2: Array, /, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: int | None = None) -> Array:
    """NumPy's ``cross``: 3-vectors in MLX (through ``linalg.cross``), 2-vectors
    and bool on the host (NumPy's deprecation warning and error)."""
    a, b = require_array(x1, "cross"), require_array(x2, "cross")
    if axis is not None:
        axisa = axisb = axisc = axis
    if a.ndim < 1 or b.ndim < 1:
        raise ValueError("At least one array has zero dimension")
    axisa = normalize_axis_index(operator.index(axisa), a.ndim, msg_prefix="axisa")
    axisb = normalize_axis_index(operator.index(axisb), b.ndim, msg_prefix="axisb")
    if a.shape[axisa] not in (2, 3) or b.shape[axisb] not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n(dimension must be 2 or 3)")
    if a.shape[axisa] != 3 or b.shape[axisb] != 3 or a.dtype == mx.bool_ or b.dtype == mx.bool_:
        return _on_host("cross", np.cross, a, b, axisa=axisa, axisb=axisb, axisc=axisc)
    a, b = mx.moveaxis(a, axisa, -1), mx.moveaxis(b, axisb, -1)
    shape = np.broadcast_shapes(a.shape[:-1], b.shape[:-1])
    axisc = normalize_axis_index(operator.index(axisc), len(shape) + 1, msg_prefix="axisc")
    return mx.moveaxis(_linalg_cross(a, b, axis=-1), -1, axisc)


def _cumulative(
    op: str, scan: Callable[..., Array], x: Array, axis: int | None, dtype: Any
) -> Array:  # fmt: skip
    require_array(x, op)
    if axis is None or x.ndim == 0:
        # NumPy scans the flattened array; a 0-d array is one element, whose
        # axis is 0 (or -1).
        return scan(reshape(x, (-1,)), axis=0 if axis is None else axis, dtype=dtype)
    return scan(x, axis=axis, dtype=dtype)


@float64_on_cpu
def cumsum(x: Array, /, axis: int | None = None, dtype: Any = None) -> Array:
    """NumPy's ``cumsum`` (the standard's ``cumulative_sum``, over the
    flattened array when ``axis`` is None)."""
    return _cumulative("cumsum", cumulative_sum, x, axis, dtype)


@float64_on_cpu
def cumprod(x: Array, /, axis: int | None = None, dtype: Any = None) -> Array:
    """NumPy's ``cumprod`` (the standard's ``cumulative_prod``, over the
    flattened array when ``axis`` is None)."""
    return _cumulative("cumprod", cumulative_prod, x, axis, dtype)


def sliding_window_view(x: Array, window_shape: Any, axis: Any = None) -> Array:
    """NumPy's ``lib.stride_tricks.sliding_window_view``, as a new array
    (MLX arrays are values): the windows of each axis in turn, stacked on a
    new last axis."""
    require_array(x, "sliding_window_view")
    # NumPy's checks (and its errors) and the axes it windows, on a
    # zero-stride stand-in that holds no data.
    stand_in = np.broadcast_to(np.zeros((), dtype_of(x)), x.shape)
    np.lib.stride_tricks.sliding_window_view(stand_in, window_shape, axis=axis)
    windows = tuple(window_shape) if np.iterable(window_shape) else (window_shape,)
    axes = tuple(range(x.ndim)) if axis is None else tuple(axis) if np.iterable(axis) else (axis,)
    if 0 in windows:  # an empty window: nothing to stack
        return _on_host("sliding_window_view", np.lib.stride_tricks.sliding_window_view, x, window_shape, axis=axis)
    out = x
    for ax, size in zip(axes, windows, strict=True):
        ax = normalize_axis_index(operator.index(ax), x.ndim)
        count = out.shape[ax] - size + 1
        lead = (slice(None),) * ax
        keys = [(*lead, slice(start, start + count)) for start in range(size)]
        out = mx.stack([out[key] for key in keys], axis=-1)
    return out if out is not x else mx.array(x)
