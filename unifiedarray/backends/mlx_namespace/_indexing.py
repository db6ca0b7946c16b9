"""Indexing: ``getitem``, ``setitem``, ``take`` and ``take_along_axis``.

MLX does not check bounds: ``x[5]`` on a 2-row array reads whatever memory
follows, and an integer-array index out of range is clamped (a read gives
the last element, a write lands on it).  Python integers are therefore
checked here (``IndexError``, as the standard requires), and so are
integer-array indices, whose out-of-bounds behaviour the standard leaves
unspecified: the host (NumPy) raises ``IndexError`` at the call, and so does
this namespace (a read of each index array's min and max; see
``_core.checked_indices``).  Negative entries count from the end.

A scatter into an array with no elements kills the process (SIGFPE in MLX
0.32), so a write into an empty array is checked (bounds, value shape) and
then does nothing, which is what it means.

Boolean-array indices have data-dependent shapes.  ``getitem`` replaces each
one by its ``nonzero`` index arrays (the NumPy rule ``x[m] == x[m.nonzero()]``),
so only the mask moves to the host and only the indices come back; the
gather itself stays in MLX.  ``setitem`` with a sole mask needs no host at
all: it is a ``where`` (and, for a value holding one entry per selected
element, a cumulative-sum gather).
"""

from __future__ import annotations

import builtins
import operator
from typing import Any

import mlx.core as mx
import numpy as np

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
    to_host,
)
from ._searching import upload_index_arrays

_INTEGER_KINDS = "iu"
_INT64_MAX = int(np.iinfo(np.int64).max)
_INT64_MIN = int(np.iinfo(np.int64).min)


def _is_bool_array(k: Any) -> bool:
    return is_array(k) and k.dtype == mx.bool_


def _as_key_tuple(key: Any) -> tuple:
    items = key if isinstance(key, tuple) else (key,)
    out = []
    for k in items:
        if isinstance(k, (list, np.ndarray)):
            host = np.asarray(k)
            if host.size == 0 and host.dtype.kind == "f":
                host = host.astype(np.int64)  # x[[]], as NumPy reads it
            if host.dtype.kind not in "iub":
                # NumPy's class for [1.5] and for [2**70] (an object array).
                raise IndexError("mlx indexing: arrays used as indices must be of integer or boolean type")
            # Integers are checked on the host (no device read) in _prepare,
            # then moved; a boolean mask given as host data moves to MLX now
            # (a counted move too).
            k = host if host.dtype.kind in _INTEGER_KINDS else from_host(host, "mlx indexing: host index array")
        elif isinstance(k, np.generic) and not isinstance(k, np.bool_):
            k = operator.index(k)  # type: ignore[arg-type]
        elif isinstance(k, np.bool_):
            k = builtins.bool(k)
        out.append(k)
    return tuple(out)


def _dims_used(k: Any) -> int:
    if k is None or k is Ellipsis or isinstance(k, builtins.bool):
        return 0
    if _is_bool_array(k):
        return k.ndim
    return 1


def _check_key(shape: tuple[int, ...], key: tuple, op: str) -> list[int | None]:
    """Validate ``key`` against ``shape``; return, for each entry, the axis
    of ``x`` it indexes (None for entries that index no axis)."""
    ndim = len(shape)
    if sum(1 for k in key if k is Ellipsis) > 1:
        raise IndexError(f"mlx {op}: an index can only have a single ellipsis")
    used = sum(_dims_used(k) for k in key)
    if used > ndim:
        raise IndexError(f"mlx {op}: too many indices: array is {ndim}-dimensional, but {used} were indexed")
    axes: list[int | None] = []
    pos = 0
    for k in key:
        if k is Ellipsis:
            axes.append(None)
            pos += ndim - used
            continue
        if k is None or isinstance(k, builtins.bool):
            axes.append(None)
            continue
        axes.append(pos)
        if isinstance(k, builtins.int):
            n = shape[pos]
            if not -n <= k < n:
                raise IndexError(f"mlx {op}: index {k} is out of bounds for axis {pos} with size {n}")
        elif isinstance(k, slice):
            if k.step == 0:
                raise ValueError(f"mlx {op}: slice step cannot be zero")
        elif isinstance(k, np.ndarray):
            pass  # an integer index given as host data: checked in _prepare
        elif is_array(k):
            if k.dtype == mx.bool_:
                # The standard lets a mask dimension be 0 whatever the array's size.
                dims = tuple(shape[pos : pos + k.ndim])
                if any(ks not in (xs, 0) for ks, xs in zip(k.shape, dims, strict=False)):
                    raise IndexError(
                        f"mlx {op}: boolean index of shape {tuple(k.shape)} does not match "
                        f"the indexed dimensions {dims}"
                    )
            elif dtype_of(k).kind not in _INTEGER_KINDS:
                raise IndexError(f"mlx {op}: arrays used as indices must be of integer or boolean type")
        else:
            raise IndexError(f"mlx {op}: unsupported index {k!r}")
        pos += _dims_used(k)
    return axes


def _prepare(x: Array, key: Any, op: str) -> tuple[tuple, list[int | None]]:
    tkey = _as_key_tuple(key)
    axes = _check_key(tuple(x.shape), tkey, op)
    fixed = list(tkey)
    for i, k in enumerate(tkey):
        if isinstance(k, np.ndarray):
            ax = axes[i]
            assert ax is not None
            fixed[i] = _upload_checked(k, x.shape[ax], ax, op)
    arrays = [i for i, k in enumerate(tkey) if is_array(k) and k.dtype != mx.bool_]
    if arrays:
        checked = checked_indices([(tkey[i], x.shape[axes[i]], axes[i]) for i in arrays], op)  # type: ignore[index, misc]
        for i, k in zip(arrays, checked, strict=False):
            fixed[i] = k
    return tuple(fixed), axes


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


def _expand_masks(key: tuple, reason: str) -> tuple:
    """Replace each boolean array in ``key`` by its nonzero index arrays
    (computed on the host: the mask moves down, the indices move up)."""
    masks = [k for k in key if _is_bool_array(k) and k.ndim > 0]
    if not masks:
        return key
    hosts = [np.nonzero(to_host(m, reason)) for m in masks]
    flat = [a for h in hosts for a in h]
    uploaded = iter(upload_index_arrays(flat, reason))
    out: list[Any] = []
    for k in key:
        if _is_bool_array(k) and k.ndim > 0:
            out.extend(next(uploaded) for _ in range(k.ndim))
        else:
            out.append(k)
    return tuple(out)


def _has_scalar_bool(key: tuple) -> bool:
    return builtins.any(isinstance(k, builtins.bool) or (_is_bool_array(k) and k.ndim == 0) for k in key)


@float64_on_cpu
def view_getitem(x: Array, key: tuple) -> Array:
    """``x[key]`` for a view chain's basic index (ints, slices, ``None``,
    ``...``), checked against x's shape when the view was taken: MLX's own
    basic indexing, which has NumPy's meaning for such keys, without
    :func:`getitem`'s checks."""
    out = x[key]
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
    """``x[key]`` with Array API semantics: basic indices (ints checked
    against bounds), integer arrays, and boolean masks (via a counted host
    ``nonzero``)."""
    require_array(x, "getitem")
    tkey, _ = _prepare(x, key, "getitem")
    if _has_scalar_bool(tkey):
        return _getitem_on_host(x, tkey)
    tkey = _expand_masks(tkey, "mlx fallback: boolean index")
    if tkey == ():
        return fresh(x)
    out = x[tkey if len(tkey) != 1 else tkey[0]]
    return fresh(out) if out is x else out


def _getitem_on_host(x: Array, key: tuple) -> Array:
    # Scalar booleans mixed into a key follow NumPy's rules exactly there.
    reason = "mlx fallback: scalar boolean index"
    host_key = tuple(to_host(k, reason) if is_array(k) else k for k in key)
    return from_host(np.asarray(to_host(x, reason)[host_key]), reason)


@float64_on_cpu
def setitem(x: Array, key: Any, value: Any) -> None:
    """``x[key] = value`` in place (MLX rebinds ``x``'s handle).  ``value``
    is cast to ``x``'s dtype; a sole boolean mask needs no host move."""
    require_array(x, "setitem")
    dt = dtype_of(x)
    tkey, _ = _prepare(x, key, "setitem")
    v = cast(value, dt, "setitem") if is_array(value) else scalar(value, dt, "setitem")
    core = tuple(k for k in tkey if k is not Ellipsis)
    if len(core) == 1 and (_is_bool_array(core[0]) or isinstance(core[0], builtins.bool)) and _mask_leads(tkey):
        mask = core[0] if is_array(core[0]) else mx.array(core[0])
        if mask.size == 0:
            return  # a mask with a 0-sized dimension selects nothing
        if mask.ndim == 0:
            # x[m] for a 0-d mask is x[None][m[None]]: a selection of 0 or 1
            # rows, which the 1-d rule below handles (an empty value and a
            # False mask included).
            x[...] = _masked_update(x[None], mask[None], v)[0]
            return
        x[...] = _masked_update(x, mask, v)
        return
    if _has_scalar_bool(tkey):
        raise IndexError("mlx setitem: scalar booleans are supported only as the sole index")
    tkey = _expand_masks(tkey, "mlx fallback: boolean index")
    if tkey == ():
        tkey = (Ellipsis,)
    key1 = tkey if len(tkey) != 1 else tkey[0]
    if x.size == 0:
        # MLX's scatter into an array with no elements dies with SIGFPE.
        # Nothing is written; the value must still fit the selection, as on
        # the host (the selection's shape costs no evaluation).
        _check_value_fits(tuple(v.shape), tuple(x[key1].shape))
        return
    x[key1] = v


def _check_value_fits(value: tuple[int, ...], selection: tuple[int, ...]) -> None:
    # NumPy's assignment rule: leading length-1 axes of the value are
    # dropped, the rest broadcasts to the selection.
    while len(value) > len(selection) and value[0] == 1:
        value = value[1:]
    try:
        ok = np.broadcast_shapes(value, selection) == selection
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"mlx setitem: could not broadcast a value of shape {value} into shape {selection}")


def _mask_leads(key: tuple) -> bool:
    # x[m], x[m, ...]: the mask indexes the leading dimensions.
    return key[0] is not Ellipsis or len(key) == 1


def _masked_update(x: Array, mask: Array, v: Array) -> Array:
    rest = tuple(x.shape[mask.ndim :])
    cond = mask.reshape(tuple(mask.shape) + (1,) * len(rest))
    if v.ndim == len(rest) + 1 and v.shape[0] != 1 and mask.ndim > 0:
        # One value per selected element, in order: element i of the flat
        # mask takes value number (count of Trues before it).
        flat = mask.reshape(-1)
        # As many values as selected elements, or NumPy's ValueError (MLX
        # would clip the slots, or fail on an empty value): the count costs
        # one evaluation, and only here.
        selected = builtins.int(mx.sum(flat).item())  # type: ignore[arg-type]
        if selected != v.shape[0]:
            raise ValueError(
                f"mlx setitem: cannot assign {v.shape[0]} input values to the {selected} elements the mask selects"
            )
        if selected == 0:
            return x
        slot = mx.cumsum(flat.astype(mx.int64)) - 1
        slot = mx.clip(slot, 0, builtins.max(v.shape[0] - 1, 0))
        gathered = mx.take(mx.broadcast_to(v, (v.shape[0], *rest)), slot, axis=0)
        v = gathered.reshape(tuple(mask.shape) + rest)
    return mx.where(cond, v, x)


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
