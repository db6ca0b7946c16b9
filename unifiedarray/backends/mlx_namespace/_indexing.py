"""Indexing: ``getitem``, ``setitem``, ``take`` and ``take_along_axis``.

MLX's own indexing differs from NumPy's in ways that write into the wrong
elements or kill the process: it checks no bounds (``x[5]`` of a 2-row
array reads whatever memory follows; an integer-array index out of range is
clamped), it places the dimensions of advanced indices separated by a slice
or ``None`` elsewhere, it refuses values NumPy broadcasts, and some scatters
with an empty target die with SIGFPE (MLX 0.32).  So no key reaches MLX as
the caller wrote it: every key is read by the one index reading,
:func:`unifiedarray._index.normalise` (NumPy's rules, NumPy's exceptions,
at the call), and MLX gets either a basic key's canonical form (in-range
non-negative integers and slice bounds: MLX's slicing) or flat element
positions (one ``take``, or one scatter of each position once).  Nothing
with no elements reaches MLX's indexing: an empty selection reads as
zeros of its shape and writes nothing (after the value's shape is checked).

Integer index arrays stay on MLX: their bounds cost one ``min`` and one
``max`` each, all in one evaluation, and the positions are computed in MLX;
an empty broadcast of the index arrays is not read (NumPy checks no bounds
then).  Index arrays given as host data (a list, a NumPy array) are checked
on the host and move to MLX (counted).  A boolean-array index is data: its
``nonzero`` positions are computed on the host (the mask moves down, the
positions up, both counted), except for a sole mask in ``setitem``, which
is a ``where`` in MLX (and, for a value holding one entry per selected
element, a cumulative-sum gather).
"""

from __future__ import annotations

import builtins
import operator
from typing import Any

import mlx.core as mx
import numpy as np

from ..._index import Index, fit_value, fits, normalise
from ._core import (
    Array,
    cast,
    checked_indices,
    dtype_of,
    float64_on_cpu,
    fresh,
    from_host,
    is_array,
    normalize_axis,
    require_array,
    scalar,
)
from ._searching import mask_positions, unravel, upload_index_arrays

_INTEGER_KINDS = "iu"
_INT64_MAX = int(np.iinfo(np.int64).max)
_INT64_MIN = int(np.iinfo(np.int64).min)
_MASK_REASON = "mlx fallback: boolean index"
_HOST_INDEX_REASON = "mlx indexing: host index array"


def _kind(k: Any) -> str | None:
    return dtype_of(k).kind if is_array(k) else None


def _mask_nonzero(k: Array) -> tuple[Array, ...]:
    # The mask's positions, found on MLX (one read: how many).
    return unravel(mask_positions(k), tuple(k.shape))


def _extremes(arrays: list[Array]) -> list[tuple[int, int]]:
    # One evaluation for every index array of the call.
    pairs = [(mx.min(k), mx.max(k)) for k in arrays]
    mx.eval(*(e for pair in pairs for e in pair))
    return [(builtins.int(lo.item()), builtins.int(hi.item())) for lo, hi in pairs]  # type: ignore[arg-type]


def read_key(x: Array, key: Any, value: tuple[int, ...] | None = None) -> Index:
    """``key`` read against ``x``'s shape by the one index reading
    (:func:`unifiedarray._index.normalise`), with the shape of a value to
    write there: NumPy's exception for a bad key or value, raised before
    MLX sees it."""
    return normalise(tuple(x.shape), key, kind=_kind, nonzero=_mask_nonzero, extremes=_extremes, value=value)


def _positions(ix: Index) -> Array:
    reason = _MASK_REASON if ix.masked else _HOST_INDEX_REASON
    return ix.positions(mx, lambda host: upload_index_arrays(host, reason))


@float64_on_cpu
def view_getitem(x: Array, key: tuple) -> Array:
    """``x[key]`` for a view chain's basic index (ints, slices, ``None``,
    ``...``), checked against x's shape when the view was taken: MLX's own
    basic indexing of the key's canonical form (no negative or out-of-range
    bound reaches MLX), without :func:`getitem`'s array handling."""
    require_array(x, "view_getitem")
    ix = normalise(tuple(x.shape), key)
    if ix.size == 0:
        return mx.zeros(ix.shape, dtype=x.dtype)
    out = x[ix.basic]
    return fresh(out) if out is x else out


@float64_on_cpu
def view_permute(x: Array, axes: tuple[int, ...]) -> Array:
    """``x`` with its axes permuted, for a view chain's link (a permutation
    checked when the view was taken): MLX's ``transpose`` without
    :func:`permute_dims`'s checks."""
    out = mx.transpose(x, axes)
    return fresh(out) if out is x else out


@float64_on_cpu
def getitem(x: Array, key: Any) -> Array:
    """``x[key]`` with NumPy's meaning, read by the one index reading: a
    basic key as its canonical form (MLX's slicing), any other as a gather
    of flat positions; nothing empty reaches MLX's indexing."""
    require_array(x, "getitem")
    ix = read_key(x, key)
    if ix.size == 0 or x.size == 0:
        return mx.zeros(ix.shape, dtype=x.dtype)
    if ix.basic is not None:
        out = x[ix.basic]
        return fresh(out) if out is x else out
    return mx.take(x.reshape(-1), _positions(ix))


@float64_on_cpu
def setitem(x: Array, key: Any, value: Any) -> None:
    """``x[key] = value`` in place (MLX rebinds ``x``'s handle), with
    NumPy's meaning: ``value`` is cast to ``x``'s dtype and broadcast to the
    selection as NumPy broadcasts it; a basic key writes through its
    canonical form, any other through a scatter of flat positions, each
    position written once, with the value of its last occurrence (NumPy's
    answer for repeated indices).  Nothing is written, and no MLX scatter
    runs, where the selection is empty (MLX 0.32 dies with SIGFPE on some
    empty scatters).  A sole boolean mask of x's device needs no host: it
    is a ``where``."""
    require_array(x, "setitem")
    dt = dtype_of(x)
    found = _sole_device_mask(x, key)
    v = cast(value, dt, "setitem") if is_array(value) else scalar(value, dt, "setitem")
    if found is not None:
        mask, ix = found
        updated = _masked_update(x, mask, v, "mask" if ix.sole_mask else "advanced")
        if updated is not None:
            x[...] = updated
        return
    ix = read_key(x, key, tuple(v.shape))
    if ix.size == 0:
        return
    assert ix.value is not None
    v = mx.broadcast_to(v.reshape(ix.value), ix.shape)
    if ix.basic is not None:
        v = v.reshape(ix.target)
        if ix.basic_target:
            x[ix.basic_target] = v
        else:
            x[...] = v
        return
    pos = _positions(ix).reshape(-1)
    vals = v.reshape(-1)
    if pos.size > 1:
        # Each occurrence of a position takes the value of its last one, so
        # that the scatter's order cannot matter.
        order = mx.arange(pos.size, dtype=mx.int64)
        last = mx.full((x.size,), -1, dtype=mx.int64).at[pos].maximum(order)
        vals = mx.take(vals, mx.take(last, pos))
    flat = x.reshape(-1)
    flat[pos] = vals
    x[...] = flat.reshape(x.shape)


def _sole_device_mask(x: Array, key: Any) -> tuple[Array, Index] | None:
    """A boolean MLX array of at least one dimension that is the whole key
    (``x[m]``, ``x[m, ...]``), with the one reading of that key (which needs
    only the mask's shape: it checks the shape and decides whether NumPy
    writes through its boolean assignment); else None."""
    items = key if type(key) is tuple else (key,)
    ellipsis = bool(items) and items[-1] is Ellipsis
    if ellipsis:
        items = items[:-1]
    if len(items) != 1 or not (is_array(items[0]) and items[0].dtype == mx.bool_ and items[0].ndim > 0):
        return None
    mask = items[0]
    stand_in = np.broadcast_to(np.zeros((), dtype=np.bool_), tuple(mask.shape))  # no data: nothing selected
    return mask, normalise(tuple(x.shape), (stand_in, Ellipsis) if ellipsis else stand_in)


def _masked_update(x: Array, mask: Array, v: Array, how: str) -> Array | None:
    """``where(mask, v, x)`` with ``v`` laid out as NumPy lays a value out
    over a mask's selection (``how``: "mask" where the reading found NumPy's
    boolean assignment, else "advanced"); None where nothing is selected."""
    rest = tuple(x.shape[mask.ndim :])
    given = tuple(v.shape)
    if how == "mask" and len(given) > 1:
        fit_value(given, (0, *rest), how)  # NumPy's TypeError
    stripped = given
    while len(stripped) > len(rest) + 1 and stripped[0] == 1:
        stripped = stripped[1:]
    per_element = len(stripped) == len(rest) + 1 and stripped[0] != 1
    if per_element or fits(given, (1, *rest)) is None:
        # The count costs one evaluation, and only here.
        selected = builtins.int(mx.sum(mask).item()) if mask.size else 0  # type: ignore[arg-type]
        fit_value(given, (selected, *rest), how)
    if mask.size == 0 or x.size == 0:
        return None
    cond = mask.reshape(tuple(mask.shape) + (1,) * len(rest))
    if per_element:
        # One value per selected element, in order: element i of the flat
        # mask takes value number (count of Trues before it).
        if stripped[0] == 0:
            return None
        flat = mask.reshape(-1)
        slot = mx.cumsum(flat.astype(mx.int64)) - 1
        slot = mx.clip(slot, 0, stripped[0] - 1)
        v = mx.take(v.reshape(stripped), slot, axis=0).reshape(tuple(mask.shape) + rest)
    else:
        v = v.reshape(stripped[1:] if len(stripped) == len(rest) + 1 else stripped)
    return mx.where(cond, v, x)


def _upload_checked(host: np.ndarray, n: int, axis: int, op: str) -> Array:
    """An integer index given as host data: checked there (no device read),
    negatives counted from the end, then moved to MLX (counted)."""
    if host.size:
        lo, hi = int(host.min()), int(host.max())
        for bad in (hi, lo):
            if not -n <= bad < n:
                raise IndexError(f"mlx {op}: index {bad} is out of bounds for axis {axis} with size {n}")
        if lo < 0:
            host = np.where(host < 0, host.astype(np.int64) + n, host)
    return from_host(host, "mlx indexing: host index array")


@float64_on_cpu
def take(x: Array, indices: Any, /, *, axis: int | None = None) -> Array:
    """Array API ``take`` (negative indices count from the end)."""
    require_array(x, "take")
    if axis is None:
        if x.ndim > 1:
            raise ValueError("mlx take: axis is required for arrays of more than one dimension")
        axis = 0
        x = x.reshape(-1)
    ax = normalize_axis(axis, x.ndim, "take")
    n = x.shape[ax]
    checked = False
    if isinstance(indices, (list, tuple, np.ndarray)):
        host = np.asarray(indices)
        if host.dtype.kind == "f" and host.size:
            raise TypeError(f"mlx take: indices must be integers, got {host.dtype.name}")  # NumPy's class
        if host.dtype.kind not in _INTEGER_KINDS:
            host = np.asarray(indices, dtype=np.int64)  # [], [True] and [2**70] (OverflowError) as NumPy reads them
        reason = "mlx indexing: host index array"
        indices = _upload_checked(host, n, ax, "take") if all(x.shape[:ax]) else from_host(host, reason)
        checked = True
    elif not is_array(indices):
        try:
            i = operator.index(indices)
        except TypeError:
            raise TypeError(f"mlx take: indices must be an integer array, got {type(indices).__name__}") from None
        if not _INT64_MIN <= i <= _INT64_MAX:
            # What NumPy raises for the same call (MLX: std::bad_cast).
            raise OverflowError(f"mlx take: Python int {i} too large to convert to an index")
        if all(x.shape[:ax]) and not -n <= i < n:
            raise IndexError(f"mlx take: index {i} is out of bounds for axis {ax} with size {n}")
        indices = mx.array(i + n if i < 0 else i, dtype=mx.int64)
        checked = True
    if dtype_of(indices).kind not in _INTEGER_KINDS:
        raise TypeError("mlx take: indices must have an integer dtype")
    if all(x.shape[:ax]) and not checked:
        # NumPy's take checks the indices once per position on the axes
        # before ``axis``: never when one of those is empty.
        (indices,) = checked_indices([(indices, n, ax)], "take")
    if x.size == 0 or indices.size == 0:
        shape = list(x.shape)
        shape[ax : ax + 1] = list(indices.shape)
        return mx.zeros(shape, dtype=x.dtype)
    return mx.take(x, indices, axis=ax)


@float64_on_cpu
def take_along_axis(x: Array, indices: Array, /, *, axis: int = -1) -> Array:
    """Array API ``take_along_axis`` (broadcasting over the other axes)."""
    require_array(x, "take_along_axis")
    require_array(indices, "take_along_axis")
    if dtype_of(indices).kind not in _INTEGER_KINDS:
        raise TypeError("mlx take_along_axis: indices must have an integer dtype")
    if indices.ndim != x.ndim:
        raise ValueError("mlx take_along_axis: indices must have as many dimensions as x")
    ax = normalize_axis(axis, x.ndim, "take_along_axis")
    xs, js = list(x.shape), list(indices.shape)
    try:
        others = np.broadcast_shapes(tuple([*xs[:ax], 1, *xs[ax + 1 :]]), tuple([*js[:ax], 1, *js[ax + 1 :]]))
    except ValueError as exc:
        raise IndexError(f"mlx take_along_axis: shape mismatch: {exc}") from None  # the host's class
    xshape = list(others)
    xshape[ax] = xs[ax]
    jshape = list(others)
    jshape[ax] = js[ax]
    (idx,) = checked_indices([(mx.broadcast_to(indices, jshape), xs[ax], ax)], "take_along_axis")
    if xs[ax] == 0 or idx.size == 0:
        return mx.zeros(jshape, dtype=x.dtype)
    return mx.take_along_axis(mx.broadcast_to(x, xshape), idx, axis=ax)
