"""Manipulation functions.

MLX arrays have no observable aliasing (``a[k] = v`` rebinds one handle,
every other handle keeps its value), so ``reshape(copy=False)`` can always
honour its promise of not copying *observably*, and ``copy=True`` needs only
a new handle.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

import mlx.core as mx
import numpy as np

from ._core import (
    Array,
    c_long,
    cast,
    check_holdable,
    common_dtype,
    cpu_if,
    dtype_of,
    float64_on_cpu,
    fresh,
    from_host,
    is_array,
    normalize_axes,
    normalize_axis,
    require_array,
    to_host,
)

Axes = int | Sequence[int]


def _promoted(arrays: Sequence[Array], op: str) -> list[Array]:
    dt = common_dtype(*arrays)
    check_holdable(op, dt)
    return [cast(a, dt, op) for a in arrays]


@float64_on_cpu
def broadcast_arrays(*arrays: Array) -> tuple[Array, ...]:
    """Array API ``broadcast_arrays``."""
    for a in arrays:
        require_array(a, "broadcast_arrays")
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    return tuple(mx.broadcast_to(a, shape) for a in arrays)


def broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    """Array API ``broadcast_shapes``."""
    return tuple(np.broadcast_shapes(*shapes))


@float64_on_cpu
def broadcast_to(x: Array, /, shape: tuple[int, ...]) -> Array:
    """Array API ``broadcast_to``."""
    require_array(x, "broadcast_to")
    shape = tuple(shape)
    np.broadcast_shapes(x.shape, shape)  # a clear error for incompatible shapes
    if len(shape) < x.ndim or np.broadcast_shapes(x.shape, shape) != shape:
        raise ValueError(f"mlx broadcast_to: cannot broadcast {x.shape} to {shape}")
    return mx.broadcast_to(x, shape)


def _check_arrays(arrays: Sequence[Array], op: str) -> None:
    if not arrays:
        raise ValueError(f"mlx {op}: need at least one array")
    for a in arrays:
        require_array(a, op)


def concat(arrays: Sequence[Array], /, *, axis: int | None = 0) -> Array:
    """Array API ``concat``; dtypes promote."""
    arrays = list(arrays)
    _check_arrays(arrays, "concat")
    with cpu_if(common_dtype(*arrays)):
        parts = _promoted(list(arrays), "concat")
        if axis is None:
            return mx.concatenate([p.reshape(-1) for p in parts])
        ndim = parts[0].ndim
        if ndim == 0:
            raise ValueError("mlx concat: zero-dimensional arrays cannot be concatenated")
        return mx.concatenate(parts, axis=normalize_axis(axis, ndim, "concat"))


@float64_on_cpu
def expand_dims(x: Array, /, axis: Axes) -> Array:
    """Array API ``expand_dims``; a tuple of axes names positions in the
    result."""
    require_array(x, "expand_dims")
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    out_ndim = x.ndim + len(axes)
    norm = normalize_axes(axes, out_ndim, "expand_dims")
    return mx.expand_dims(x, list(norm))


@float64_on_cpu
def flip(x: Array, /, *, axis: Axes | None = None) -> Array:
    """Array API ``flip``."""
    require_array(x, "flip")
    axes = normalize_axes(axis, x.ndim, "flip")
    if not axes:
        return fresh(x)
    return x[tuple(slice(None, None, -1) if i in axes else slice(None) for i in range(x.ndim))]


@float64_on_cpu
def moveaxis(x: Array, source: Axes, destination: Axes, /) -> Array:
    """Array API ``moveaxis`` (single axes or tuples)."""
    require_array(x, "moveaxis")
    src = (source,) if isinstance(source, (int, np.integer)) else tuple(source)
    dst = (destination,) if isinstance(destination, (int, np.integer)) else tuple(destination)
    if len(src) != len(dst):
        raise ValueError("mlx moveaxis: source and destination must have the same number of axes")
    src = tuple(normalize_axis(a, x.ndim, "moveaxis") for a in src)
    dst = tuple(normalize_axis(a, x.ndim, "moveaxis") for a in dst)
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ValueError("mlx moveaxis: repeated axis")
    order = [a for a in range(x.ndim) if a not in src]
    for d, s in sorted(zip(dst, src, strict=False)):
        order.insert(d, s)
    return mx.transpose(x, order)


@float64_on_cpu
def permute_dims(x: Array, /, axes: tuple[int, ...]) -> Array:
    """Array API ``permute_dims``."""
    require_array(x, "permute_dims")
    axes = tuple(normalize_axis(a, x.ndim, "permute_dims") for a in axes)
    if sorted(axes) != list(range(x.ndim)):
        raise ValueError(f"mlx permute_dims: {axes} is not a permutation of the axes")
    return mx.transpose(x, axes)


@float64_on_cpu
def repeat(x: Array, repeats: int | Array, /, *, axis: int | None = None) -> Array:
    """Array API ``repeat``.  An array of repeats makes the output size
    depend on data: the repeats are read on the host (counted) to build a
    gather index, and the gather runs in MLX."""
    require_array(x, "repeat")
    if axis is None:
        x = x.reshape(-1)
        axis = 0
    axis = normalize_axis(axis, x.ndim, "repeat")
    if not is_array(repeats):
        r = c_long(repeats, "repeat")
        if r < 0:
            raise ValueError("mlx repeat: repeats must be non-negative")
        if r == 0:
            shape = list(x.shape)
            shape[axis] = 0
            return mx.zeros(shape, dtype=x.dtype)
        return mx.repeat(x, r, axis=axis)
    if dtype_of(repeats).kind not in "iu":  # type: ignore[arg-type]
        raise TypeError("mlx repeat: repeats must have an integer dtype")
    n = x.shape[axis]
    reps = to_host(repeats, "mlx fallback: repeat (array repeats)").astype(np.int64)  # type: ignore[arg-type]
    reps = np.broadcast_to(reps, (n,))
    if (reps < 0).any():
        raise ValueError("mlx repeat: repeats must be non-negative")
    index = np.repeat(np.arange(n, dtype=np.int64), reps)
    return mx.take(x, from_host(index, "mlx fallback: repeat (array repeats)"), axis=axis)


@float64_on_cpu
def reshape(x: Array, /, shape: tuple[int, ...], *, copy: bool | None = None) -> Array:
    """Array API ``reshape``.  ``copy`` is accepted: no MLX array aliases
    another observably, so every result behaves as a copy and none needs one."""
    require_array(x, "reshape")
    shape = tuple(operator.index(s) for s in ((shape,) if isinstance(shape, (int, np.integer)) else shape))
    out = mx.reshape(x, shape)
    return fresh(out) if out is x else out


@float64_on_cpu
def roll(x: Array, /, shift: Axes, *, axis: Axes | None = None) -> Array:
    """Array API ``roll``."""
    require_array(x, "roll")
    if axis is None:
        s = operator.index(shift) if isinstance(shift, (int, np.integer)) else sum(shift)
        flat = x.reshape(-1)
        return _roll_axis(flat, s, 0).reshape(x.shape)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    shifts = (shift,) * len(axes) if isinstance(shift, (int, np.integer)) else tuple(shift)
    if len(shifts) != len(axes):
        raise ValueError("mlx roll: shift and axis must have the same length")
    out = x
    for s, a in zip(shifts, axes, strict=False):
        out = _roll_axis(out, operator.index(s), normalize_axis(a, x.ndim, "roll"))
    return fresh(out) if out is x else out


def _roll_axis(x: Array, shift: int, axis: int) -> Array:
    n = x.shape[axis]
    if n == 0:
        return x
    shift %= n
    if shift == 0:
        return x
    head = [slice(None)] * x.ndim
    tail = [slice(None)] * x.ndim
    head[axis] = slice(n - shift, None)
    tail[axis] = slice(0, n - shift)
    return mx.concatenate([x[tuple(head)], x[tuple(tail)]], axis=axis)


@float64_on_cpu
def squeeze(x: Array, /, axis: Axes) -> Array:
    """Array API ``squeeze``: removing an axis whose size is not 1 is an error."""
    require_array(x, "squeeze")
    axes = normalize_axes(axis, x.ndim, "squeeze")
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(f"mlx squeeze: axis {a} has size {x.shape[a]}, not 1")
    if not axes:
        return fresh(x)
    return mx.squeeze(x, axis=list(axes))


def stack(arrays: Sequence[Array], /, *, axis: int = 0) -> Array:
    """Array API ``stack``; dtypes promote."""
    arrays = list(arrays)
    _check_arrays(arrays, "stack")
    with cpu_if(common_dtype(*arrays)):
        parts = _promoted(list(arrays), "stack")
        shape = parts[0].shape
        if any(p.shape != shape for p in parts):
            raise ValueError("mlx stack: all arrays must have the same shape")
        return mx.stack(parts, axis=normalize_axis(axis, len(shape) + 1, "stack"))


@float64_on_cpu
def tile(x: Array, repetitions: tuple[int, ...], /) -> Array:
    """Array API ``tile``."""
    require_array(x, "tile")
    reps = tuple(c_long(r, "tile") for r in repetitions)
    if any(r < 0 for r in reps):
        raise ValueError("mlx tile: repetitions must be non-negative")
    if 0 in reps or 0 in x.shape:
        nd = max(len(reps), x.ndim)
        shape = (1,) * (nd - x.ndim) + tuple(x.shape)
        full = (1,) * (nd - len(reps)) + reps
        return mx.zeros(tuple(s * r for s, r in zip(shape, full, strict=False)), dtype=x.dtype)
    return mx.tile(x, list(reps)) if reps else fresh(x)


@float64_on_cpu
def unstack(x: Array, /, *, axis: int = 0) -> tuple[Array, ...]:
    """Array API ``unstack``."""
    require_array(x, "unstack")
    if x.ndim == 0:
        raise ValueError("mlx unstack: x must have at least one dimension")
    axis = normalize_axis(axis, x.ndim, "unstack")
    # Basic indexing rather than mx.take: take refuses arrays with zero elements.
    lead = (slice(None),) * axis
    keys = [(*lead, i) for i in range(x.shape[axis])]
    return tuple(x[k] for k in keys)


@float64_on_cpu
def matrix_transpose(x: Array, /) -> Array:
    """Array API ``matrix_transpose``."""
    require_array(x, "matrix_transpose")
    if x.ndim < 2:
        raise ValueError("mlx matrix_transpose: x must have at least 2 dimensions")
    return mx.swapaxes(x, -1, -2)
