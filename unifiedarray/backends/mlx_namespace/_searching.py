"""Searching, sorting and set functions.

``nonzero`` and the ``unique_*`` functions have output shapes that depend on
the data; MLX builds graphs of known shapes, so these run on the host (with
NumPy), their moves counted.  ``nonzero`` moves only ``x != 0`` (one byte an
element), not ``x``.  ``isin`` needs no host: it is a sort and a binary
search in MLX.
"""

from __future__ import annotations

import functools
import math
from builtins import int as builtins_int
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


# -- searching ------------------------------------------------------------------------------


def _arg_reduce(fn: Any, x: Array, axis: int | None, keepdims: bool, op: str) -> Array:
    require_array(x, op)
    if x.size == 0:
        ax = None if axis is None else normalize_axis(axis, x.ndim, op)
        if ax is None or x.shape[ax] == 0:
            raise ValueError(f"mlx {op}: attempt to get {op} of an empty sequence")
        # Over a non-empty axis of an empty array: an empty result, as NumPy's.
        shape = [1 if i == ax else n for i, n in enumerate(x.shape) if keepdims or i != ax]
        return mx.zeros(shape, dtype=_MX_INDEX)
    if x.dtype == mx.complex64:
        fn = functools.partial(_lexicographic, fn is mx.argmax)
    if axis is None:
        r = fn(x.reshape(-1), axis=0)
        if keepdims:
            r = r.reshape((1,) * x.ndim)
    else:
        ax = normalize_axis(axis, x.ndim, op)
        r = fn(x, axis=ax, keepdims=keepdims)
    return r.astype(_MX_INDEX)


def _lexicographic(largest: bool, x: Array, axis: int, keepdims: bool = False) -> Array:
    """``argmax`` (``largest``) or ``argmin`` of complex values in NumPy's
    order: by the real part, then the imaginary part, the first of equals;
    a NaN in either part wins, the first one (MLX's own refuse complex
    input).  Composed of MLX's real reductions, on the device."""
    re, im = mx.real(x), mx.imag(x)
    nan = mx.isnan(re) | mx.isnan(im)
    extreme = mx.max if largest else mx.min
    best_re = extreme(mx.where(nan, 0.0, re), axis=axis, keepdims=True)
    candidate = (re == best_re) & ~nan
    best_im = extreme(mx.where(candidate, im, -math.inf if largest else math.inf), axis=axis, keepdims=True)
    pick = mx.where(mx.any(nan, axis=axis, keepdims=True), nan, candidate & (im == best_im))
    return mx.argmax(pick, axis=axis, keepdims=keepdims)  # the first True


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


#: The reason of the one scalar a data-dependent shape reads: its length.
SIZE_REASON = "mlx: data-dependent size"


def read_size(count: Array) -> int:
    """A data-dependent length (a 0-d count on MLX), read: one counted move
    of its bytes, the only data that leaves the device for it."""
    return builtins_int(to_host(count, SIZE_REASON).item())


def mask_positions(mask: Array) -> Array:
    """The flat C-order positions of ``mask``'s true elements, ascending,
    int64, computed on MLX: a stable sort brings them first, and their
    count (read once, :func:`read_size`) says how many to keep."""
    flat = mask.reshape(-1)
    if flat.size == 0:
        return mx.zeros((0,), dtype=_MX_INDEX)
    n = read_size(mx.sum(flat.astype(mx.int64)))
    order = mx.argsort(mx.logical_not(flat).astype(mx.uint8))  # MLX's sort is stable
    return order[:n].astype(_MX_INDEX)


def unravel(flat: Array, shape: Sequence[int]) -> tuple[Array, ...]:
    """Flat C-order positions as one index array per axis of ``shape``."""
    out, stride = [], 1
    strides = []
    for d in reversed(shape):
        strides.append(stride)
        stride *= d
    for d, st in zip(shape, reversed(strides), strict=True):
        out.append((flat // st) % d if d else flat)
    return tuple(out)


def nonzero(x: Array, /) -> tuple[Array, ...]:
    """Array API ``nonzero`` on MLX: the positions from a stable sort, their
    count read once (:func:`mask_positions`)."""
    require_array(x, "nonzero")
    if x.ndim == 0:
        raise ValueError("mlx nonzero: x must have at least one dimension")
    mask = x if x.dtype == mx.bool_ else (x != 0)
    return unravel(mask_positions(mask), tuple(x.shape))


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


def _unique_sorted(x: Array, equal_nan: bool = False) -> tuple[Array, Array, Array, Array]:
    """``x`` flattened and sorted (stably), with its permutation, each
    element's group in the sorted order, and the groups' starts: the
    standard's unique (every NaN its own value) unless ``equal_nan``.  One
    scalar read: the number of groups."""
    flat = x.reshape(-1)
    perm = mx.argsort(flat).astype(_MX_INDEX)  # NaNs last, stable
    s = mx.take(flat, perm)
    if s.size == 0:
        empty = mx.zeros((0,), dtype=_MX_INDEX)
        return s, perm, empty, empty
    new = s[1:] != s[:-1]
    if equal_nan and mx.issubdtype(s.dtype, mx.inexact):
        both_nan = mx.isnan(s[1:]) & mx.isnan(s[:-1])
        new = new & mx.logical_not(both_nan)
    first = mx.concatenate([mx.array([True]), new])
    starts = mask_positions(first)
    group = mx.cumsum(first.astype(_MX_INDEX)) - 1
    return s, perm, group, starts


def _inverse(perm: Array, group: Array, shape: Sequence[int]) -> Array:
    # group is in sorted order; element i of x sits at rank argsort(perm)[i].
    return mx.take(group, mx.argsort(perm)).reshape(tuple(shape)).astype(_MX_INDEX)


def _counts(starts: Array, n: int) -> Array:
    return mx.concatenate([starts[1:], mx.array([n], dtype=_MX_INDEX)]) - starts


def unique_all(x: Array, /, *, equal_nan: bool = False) -> UniqueAllResult:
    """Array API ``unique_all`` on MLX, from one stable sort (NaNs are all
    distinct); one scalar read, the number of values."""
    require_array(x, "unique_all")
    s, perm, group, starts = _unique_sorted(x, equal_nan)
    return UniqueAllResult(
        mx.take(s, starts), mx.take(perm, starts), _inverse(perm, group, x.shape), _counts(starts, s.size)
    )


def unique_counts(x: Array, /, *, equal_nan: bool = False) -> UniqueCountsResult:
    """Array API ``unique_counts`` on MLX (see :func:`unique_all`)."""
    require_array(x, "unique_counts")
    s, _, _, starts = _unique_sorted(x, equal_nan)
    return UniqueCountsResult(mx.take(s, starts), _counts(starts, s.size))


def unique_inverse(x: Array, /, *, equal_nan: bool = False) -> UniqueInverseResult:
    """Array API ``unique_inverse`` on MLX (see :func:`unique_all`)."""
    require_array(x, "unique_inverse")
    s, perm, group, starts = _unique_sorted(x, equal_nan)
    return UniqueInverseResult(mx.take(s, starts), _inverse(perm, group, x.shape))


def unique_values(x: Array, /, *, equal_nan: bool = False) -> Array:
    """Array API ``unique_values`` on MLX (see :func:`unique_all`)."""
    require_array(x, "unique_values")
    s, _, _, starts = _unique_sorted(x, equal_nan)
    return mx.take(s, starts)


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
