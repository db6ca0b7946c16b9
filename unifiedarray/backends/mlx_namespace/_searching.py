"""Searching, sorting and set functions.

``nonzero`` and the ``unique_*`` functions have output shapes that depend on
the data; MLX builds graphs of known shapes, so these run on the host (with
NumPy), their moves counted.  ``nonzero`` moves only ``x != 0`` (one byte an
element), not ``x``.  ``isin`` needs no host: it is a sort and a binary
search in MLX.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, NamedTuple

import mlx.core as mx
import numpy as np

from ... import _rules
from ._core import (
    Array,
    cast,
    check_holdable,
    common_dtype,
    cpu_if,
    dtype_of,
    float64_on_cpu,
    from_host,
    is_array,
    normalize_axes,
    normalize_axis,
    require_array,
    to_host,
)

_MX_INDEX = mx.int64


# -- results --------------------------------------------------------------------------------


class UniqueAllResult(NamedTuple):
    values: Array
    indices: Array
    inverse_indices: Array
    counts: Array


class UniqueCountsResult(NamedTuple):
    values: Array
    counts: Array


class UniqueInverseResult(NamedTuple):
    values: Array
    inverse_indices: Array


# -- helpers --------------------------------------------------------------------------------


def upload_index_arrays(arrays: Sequence[np.ndarray], reason: str) -> list[Array]:
    """Move several int64 host arrays to MLX as one counted move, then split."""
    flat = [np.asarray(a, dtype=np.int64).reshape(-1) for a in arrays]
    if not flat:
        return []
    packed = from_host(np.concatenate(flat) if len(flat) > 1 else flat[0], reason)
    out, start = [], 0
    for a, f in zip(arrays, flat, strict=False):
        out.append(packed[start : start + f.size].reshape(a.shape))
        start += f.size
    return out


def _not_complex(x: Array, op: str) -> None:
    if x.dtype == mx.complex64:
        raise TypeError(f"mlx {op}: complex values are not ordered")


# -- searching ------------------------------------------------------------------------------


def _arg_reduce(fn: Any, x: Array, axis: int | None, keepdims: bool, op: str) -> Array:
    require_array(x, op)
    _not_complex(x, op)
    if x.size == 0:
        ax = None if axis is None else normalize_axis(axis, x.ndim, op)
        if ax is None or x.shape[ax] == 0:
            raise ValueError(f"mlx {op}: attempt to get {op} of an empty sequence")
        # Over a non-empty axis of an empty array: an empty result, as NumPy's.
        shape = [1 if i == ax else n for i, n in enumerate(x.shape) if keepdims or i != ax]
        return mx.zeros(shape, dtype=_MX_INDEX)
    if axis is None:
        r = fn(x.reshape(-1), axis=0)
        if keepdims:
            r = r.reshape((1,) * x.ndim)
    else:
        ax = normalize_axis(axis, x.ndim, op)
        r = fn(x, axis=ax, keepdims=keepdims)
    return r.astype(_MX_INDEX)


@float64_on_cpu
def argmax(x: Array, /, *, axis: int | None = None, keepdims: bool = False) -> Array:
    """Array API ``argmax`` (int64 indices; the first NaN wins, as in NumPy)."""
    return _arg_reduce(mx.argmax, x, axis, keepdims, "argmax")


@float64_on_cpu
def argmin(x: Array, /, *, axis: int | None = None, keepdims: bool = False) -> Array:
    """Array API ``argmin`` (int64 indices; the first NaN wins, as in NumPy)."""
    return _arg_reduce(mx.argmin, x, axis, keepdims, "argmin")


@float64_on_cpu
def count_nonzero(x: Array, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Array:
    """Array API ``count_nonzero`` (int64)."""
    require_array(x, "count_nonzero")
    axes = normalize_axes(axis, x.ndim, "count_nonzero")
    nz = (x != 0).astype(_MX_INDEX)
    if not axes:
        return nz
    return mx.sum(nz, axis=list(axes), keepdims=keepdims)


def nonzero(x: Array, /) -> tuple[Array, ...]:
    """Array API ``nonzero``: host fallback (data-dependent shape).  Moves
    ``x != 0`` down and the int64 indices up: two counted moves."""
    require_array(x, "nonzero")
    if x.ndim == 0:
        raise ValueError("mlx nonzero: x must have at least one dimension")
    mask = x if x.dtype == mx.bool_ else (x != 0)
    host = to_host(mask, "mlx fallback: nonzero")
    return tuple(upload_index_arrays(np.nonzero(host), "mlx fallback: nonzero"))


@float64_on_cpu
def searchsorted(
    x1: Array,
    x2: Any,
    /,
    *,
    side: Literal["left", "right"] = "left",
    sorter: Array | None = None,
) -> Array:
    """Array API ``searchsorted`` (int64; NaNs sort last, as in NumPy)."""
    require_array(x1, "searchsorted")
    if x1.ndim != 1:
        raise ValueError("mlx searchsorted: x1 must be 1-D")
    if side not in ("left", "right"):
        raise ValueError("mlx searchsorted: side must be 'left' or 'right'")
    if sorter is not None:
        sorter = require_array(sorter, "searchsorted")
        if tuple(sorter.shape) != tuple(x1.shape):
            raise ValueError("mlx searchsorted: sorter.size must equal x1.size")
        if sorter.size:
            # MLX's take would clamp; NumPy raises ValueError for a sorter
            # index outside [0, n) (one read of the sorter's min and max).
            lo, hi = mx.min(sorter), mx.max(sorter)
            mx.eval(lo, hi)
            if int(lo.item()) < 0 or int(hi.item()) >= x1.shape[0]:  # type: ignore[arg-type]
                raise ValueError("mlx searchsorted: Sorter index out of range.")
        x1 = mx.take(x1, sorter.astype(_MX_INDEX))
    dt = common_dtype(x1, x2)
    check_holdable("searchsorted", dt)
    with cpu_if(dt):
        a, v = cast(x1, dt, "searchsorted"), cast(x2, dt, "searchsorted")
        if a.size == 0:
            return mx.zeros(v.shape, dtype=_MX_INDEX)
        return mx.searchsorted(a, v, side=side).astype(_MX_INDEX)


@float64_on_cpu
def where(condition: Array, x1: Any, x2: Any, /) -> Array:
    """Array API ``where``; ``x1`` and ``x2`` promote (scalars weakly)."""
    require_array(condition, "where")
    cond = condition if condition.dtype == mx.bool_ else condition != 0
    dt = _where_dtype(x1, x2)
    check_holdable("where", dt)
    with cpu_if(dt):
        return mx.where(cond, cast(x1, dt, "where"), cast(x2, dt, "where"))


def _where_dtype(x1: Any, x2: Any) -> np.dtype:
    """``where``'s dtype, as the rules decide it (:func:`unifiedarray._rules.where_scalar`):
    NumPy's, a Python scalar weak, its kind and range checked.  A NumPy
    scalar counts as a 0-d array of its dtype."""
    d1 = dtype_of(x1) if is_array(x1) else x1.dtype if isinstance(x1, np.generic) else None
    d2 = dtype_of(x2) if is_array(x2) else x2.dtype if isinstance(x2, np.generic) else None
    if d1 is not None and d2 is not None:
        return np.result_type(d1, d2)
    if d1 is not None:
        return _rules.where_scalar(d1, x2)
    if d2 is not None:
        return _rules.where_scalar(d2, x1)
    return _rules.where_scalars(x1, x2)


# -- sorting ---------------------------------------------------------------------------------


@float64_on_cpu
def sort(x: Array, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Array:
    """Array API ``sort`` (MLX's sort is stable; NaNs last, or first when
    descending, as in NumPy)."""
    require_array(x, "sort")
    ax = normalize_axis(axis, x.ndim, "sort")  # AxisError for a 0-d x, as NumPy
    out = mx.sort(x, axis=ax)
    if descending:
        out = _flip(out, ax)
    return out


@float64_on_cpu
def argsort(x: Array, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Array:
    """Array API ``argsort`` (int64; stable, also when descending)."""
    require_array(x, "argsort")
    ax = normalize_axis(axis, x.ndim, "argsort")  # AxisError for a 0-d x, as NumPy
    if not descending:
        return mx.argsort(x, axis=ax).astype(_MX_INDEX)
    # Sorting the reversed array and reversing back keeps equal elements in
    # their original order, which flipping an ascending argsort would not.
    idx = _flip(mx.argsort(_flip(x, ax), axis=ax), ax).astype(_MX_INDEX)
    return (x.shape[ax] - 1) - idx


def _flip(x: Array, axis: int) -> Array:
    key = [slice(None)] * x.ndim
    key[axis] = slice(None, None, -1)
    return x[tuple(key)]


# -- sets ------------------------------------------------------------------------------------


def _unique_host(x: Array, reason: str, **kw: bool) -> tuple[np.ndarray, ...]:
    require_array(x, reason.rsplit(" ", 1)[-1])
    host = to_host(x, reason)
    res = np.unique(host.reshape(-1), equal_nan=False, **kw)  # type: ignore[call-overload]
    return res if isinstance(res, tuple) else (res,)


def unique_all(x: Array, /) -> UniqueAllResult:
    """Array API ``unique_all``: host fallback (data-dependent shape).  NaNs
    are all distinct.  Three counted moves: x down, values up, the three
    index arrays up together."""
    reason = "mlx fallback: unique_all"
    values, indices, inverse, counts = _unique_host(
        x, reason, return_index=True, return_inverse=True, return_counts=True
    )
    vals = from_host(values, reason)
    idx, inv, cnt = upload_index_arrays([indices, inverse.reshape(x.shape), counts], reason)
    return UniqueAllResult(vals, idx, inv, cnt)


def unique_counts(x: Array, /) -> UniqueCountsResult:
    """Array API ``unique_counts``: host fallback (data-dependent shape)."""
    reason = "mlx fallback: unique_counts"
    values, counts = _unique_host(x, reason, return_counts=True)
    return UniqueCountsResult(from_host(values, reason), upload_index_arrays([counts], reason)[0])


def unique_inverse(x: Array, /) -> UniqueInverseResult:
    """Array API ``unique_inverse``: host fallback (data-dependent shape)."""
    reason = "mlx fallback: unique_inverse"
    values, inverse = _unique_host(x, reason, return_inverse=True)
    inv = upload_index_arrays([inverse.reshape(x.shape)], reason)[0]
    return UniqueInverseResult(from_host(values, reason), inv)


def unique_values(x: Array, /) -> Array:
    """Array API ``unique_values``: host fallback (data-dependent shape)."""
    reason = "mlx fallback: unique_values"
    (values,) = _unique_host(x, reason)
    return from_host(values, reason)


@float64_on_cpu
def isin(x1: Any, x2: Any, /, *, invert: bool = False) -> Array:
    """Array API ``isin``, in MLX: sort ``x2``, binary-search each element
    of ``x1``, compare (NaN is never in anything)."""
    if not (is_array(x1) or is_array(x2)):
        raise TypeError("mlx isin: at least one argument must be an mlx array")
    dt = common_dtype(x1, x2)
    check_holdable("isin", dt)
    with cpu_if(dt):
        a = cast(x1, dt, "isin")
        b = cast(x2, dt, "isin").reshape(-1)
        if b.size == 0:
            found = mx.zeros(a.shape, dtype=mx.bool_)
        else:
            s = mx.sort(b)
            idx = mx.minimum(mx.searchsorted(s, a), b.size - 1)
            found = mx.take(s, idx) == a
        return mx.logical_not(found) if invert else found
