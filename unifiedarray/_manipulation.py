"""The manipulation functions (Array API chapter "Manipulation Functions").

Each function is the standard's signature, written out, handing its call to
the one dispatch (:mod:`unifiedarray._dispatch`), which runs it on the
device where its arrays live.
"""

from __future__ import annotations

from typing import Any

from . import _calls, _rules, _view_ops
from ._array import UnifiedArray
from ._data_types import astype
from ._index import axis_tuple, normalise_axes
from ._views import Reshape

__all__ = [
    "broadcast_arrays", "broadcast_to", "concat", "expand_dims", "flip", "moveaxis", "permute_dims", "repeat",
    "reshape", "roll", "squeeze", "stack", "tile", "unstack",
]  # fmt: skip


def broadcast_arrays(*arrays: UnifiedArray) -> tuple[UnifiedArray, ...]:
    """``broadcast_arrays`` (manipulation), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.broadcast_arrays.html
    """
    return tuple(_calls.call_mixed("broadcast_arrays", arrays))


def broadcast_to(x: UnifiedArray, /, shape: tuple[int, ...]) -> UnifiedArray:
    """``broadcast_to`` (manipulation), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.broadcast_to.html
    """
    return _calls.call("broadcast_to", (x, shape))


def concat(arrays: tuple[UnifiedArray, ...] | list[UnifiedArray], /, *, axis: int | None = 0) -> UnifiedArray:
    """``concat`` (manipulation), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.concat.html
    """
    return _calls.call("concat", (arrays,), {"axis": axis})


def moveaxis(x: UnifiedArray, source: int | tuple[int, ...], destination: int | tuple[int, ...], /) -> UnifiedArray:
    """``moveaxis`` (manipulation), run where its arrays live.

    A view sharing x's buffer (as NumPy's): a write through it reaches ``x``.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.moveaxis.html
    """
    traced = _calls.traced_call(moveaxis, (x, source, destination))
    if traced is not NotImplemented:
        return traced  # a tracer of unifiedarray.fuse records the call
    return _view_ops.moved(x, source, destination)


def repeat(x: UnifiedArray, repeats: int | UnifiedArray, /, *, axis: int | None = None) -> UnifiedArray:
    """``repeat`` (manipulation), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.repeat.html
    """
    return _calls.call("repeat", (x, repeats), {"axis": axis})


def roll(
    x: UnifiedArray, /, shift: int | tuple[int, ...], *, axis: int | tuple[int, ...] | None = None
) -> UnifiedArray:
    """``roll`` (manipulation), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.roll.html
    """
    return _calls.call("roll", (x, shift), {"axis": axis})


def stack(arrays: tuple[UnifiedArray, ...] | list[UnifiedArray], /, *, axis: int = 0) -> UnifiedArray:
    """``stack`` (manipulation), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.stack.html
    """
    return _calls.call("stack", (arrays,), {"axis": axis})


def tile(x: UnifiedArray, repetitions: tuple[int, ...], /) -> UnifiedArray:
    """``tile`` (manipulation), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.tile.html
    """
    return _calls.call("tile", (x, repetitions))


def unstack(x: UnifiedArray, /, *, axis: int = 0) -> tuple[UnifiedArray, ...]:
    """``unstack`` (manipulation), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.unstack.html
    """
    return tuple(_calls.call("unstack", (x,), {"axis": axis}))


# -- views: reshape, permute_dims, squeeze, expand_dims, flip -------------------------
# These return views that share the input's buffer (a link in the view's chain,
# like a slice), on every backend, so they copy nothing, as NumPy's do; see
# _view_ops.linked_view.  (flip is a basic index with negative steps.)


def reshape(x: UnifiedArray, /, shape: tuple[int, ...], *, copy: bool | None = None) -> UnifiedArray:
    """``x`` with a new shape: a view sharing x's buffer (no data is copied)
    unless ``copy=True``.

    >>> import unifiedarray as xp
    >>> x = xp.asarray([1.0, 2.0, 3.0, 4.0])
    >>> m = xp.reshape(x, (2, 2))
    >>> m[0, 1] = 20.0
    >>> x.tolist()
    [1.0, 20.0, 3.0, 4.0]
    """
    view = _view_ops.reshaped(x, shape)
    return astype(view, view.dtype, copy=True) if copy else view


def permute_dims(x: UnifiedArray, /, axes: tuple[int, ...]) -> UnifiedArray:
    """``x`` with its axes permuted: a view sharing x's buffer.

    >>> import unifiedarray as xp
    >>> xp.permute_dims(xp.zeros((2, 3, 4)), (2, 0, 1)).shape
    (4, 2, 3)
    """
    return _view_ops.permuted(x, axes)


def _require_array(x: Any, name: str) -> None:
    if type(x) is not UnifiedArray:
        raise TypeError(f"{name}: expected a UnifiedArray, got {type(x).__name__}")


def squeeze(x: UnifiedArray, /, axis: int | tuple[int, ...] | None = None) -> UnifiedArray:
    """``x`` without the singleton axes ``axis``: a view sharing x's buffer.
    With no ``axis``, every singleton axis goes, as in NumPy (a NumPy
    extension: the 2025.12 standard requires ``axis``, and
    ``unifiedarray.strict()`` refuses the call without it).

    >>> import unifiedarray as xp
    >>> xp.squeeze(xp.zeros((1, 3, 1)), axis=(0, 2)).shape
    (3,)
    >>> xp.squeeze(xp.zeros((1, 3, 1))).shape
    (3,)
    """
    _require_array(x, "squeeze")
    if axis is None:
        _rules.outside_standard("squeeze(x) without axis")
        axis = tuple(i for i, d in enumerate(x.shape) if d == 1)
    axes = normalise_axes(axis, x.ndim, "squeeze")
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(f"squeeze: axis {a} has size {x.shape[a]}, not 1")
    dims = tuple(d for i, d in enumerate(x.shape) if i not in axes)
    return _view_ops.linked_view(x, Reshape(dims), dims)


def expand_dims(x: UnifiedArray, /, axis: int | tuple[int, ...]) -> UnifiedArray:
    """``x`` with singleton axes inserted at ``axis`` (positions in the
    result): a view sharing x's buffer.

    >>> import unifiedarray as xp
    >>> xp.expand_dims(xp.zeros((2, 3)), axis=(0, -1)).shape
    (1, 2, 3, 1)
    """
    _require_array(x, "expand_dims")
    n = x.ndim + len(axis_tuple(axis, "expand_dims"))
    axes = normalise_axes(axis, n, "expand_dims")
    rest = iter(x.shape)
    dims = tuple(1 if i in axes else next(rest) for i in range(n))
    return _view_ops.linked_view(x, Reshape(dims), dims)


def flip(x: UnifiedArray, /, *, axis: int | tuple[int, ...] | None = None) -> UnifiedArray:
    """``x`` with the order of its elements reversed along ``axis`` (all
    axes by default): a view sharing x's buffer, as NumPy's is.

    >>> import unifiedarray as xp
    >>> xp.flip(xp.asarray([[1, 2], [3, 4]]), axis=1).tolist()
    [[2, 1], [4, 3]]
    """
    _require_array(x, "flip")
    axes = range(x.ndim) if axis is None else normalise_axes(axis, x.ndim, "flip")
    if not axes:
        return x[...]
    reverse, whole = slice(None, None, -1), slice(None)
    return x[tuple(reverse if i in axes else whole for i in range(x.ndim))]
