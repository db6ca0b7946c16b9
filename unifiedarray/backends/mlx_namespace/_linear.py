"""``matmul``, ``tensordot`` and ``vecdot`` (main namespace and ``linalg``).

MLX multiplies matrices of floating dtypes only.  Integer products must
wrap around exactly as NumPy's do, so they are built here: small integers
(8 and 16 bits, and bool) through a float64 product that is exact for them,
wider integers as chunked multiply-and-sum in the integer dtype itself.
"""

from __future__ import annotations

import builtins
import operator
from collections.abc import Sequence

import mlx.core as mx
import numpy as np

from ._core import (
    FLOAT64,
    Array,
    cast,
    check_holdable,
    common_dtype,
    cpu_if,
    normalize_axis,
    require_array,
)

# Largest number of elements a chunk of an integer product may hold.
_CHUNK_ELEMENTS = 1 << 22
# float64 holds every integer below 2**53: products of 16-bit integers are
# below 2**32, so sums of up to 2**20 of them are exact.
_EXACT_F64_K = 1 << 20


def _promote_pair(x1: Array, x2: Array, op: str) -> tuple[Array, Array, np.dtype]:
    require_array(x1, op)
    require_array(x2, op)
    dt = common_dtype(x1, x2)
    check_holdable(op, dt)
    return cast(x1, dt, op), cast(x2, dt, op), dt


def _int_matmul(a: Array, b: Array) -> Array:
    """(..., n, k) @ (..., k, m) for integer or bool arrays, exactly."""
    k = a.shape[-1]
    if a.dtype == mx.bool_:
        with cpu_if(FLOAT64):
            return mx.matmul(a.astype(mx.float32), b.astype(mx.float32)) > 0  # counts < 2**24 are exact
    if a.itemsize <= 2 and k <= _EXACT_F64_K:
        with cpu_if(FLOAT64):
            p = mx.matmul(a.astype(mx.float64), b.astype(mx.float64))
            return p.astype(mx.int64).astype(a.dtype)  # int64 -> narrower wraps, as NumPy's sums do
    n, m = a.shape[-2], b.shape[-1]
    batch = int(np.prod(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]), dtype=np.int64))
    step = builtins.max(1, _CHUNK_ELEMENTS // builtins.max(1, batch * n * m))
    total = None
    for start in range(0, k, step):
        stop = builtins.min(k, start + step)
        part = mx.sum(a[..., :, start:stop, None] * b[..., None, start:stop, :], axis=-2)
        total = part if total is None else total + part
    if total is None:
        shape = (*np.broadcast_shapes(a.shape[:-2], b.shape[:-2]), n, m)
        return mx.zeros(shape, dtype=a.dtype)
    return total.astype(a.dtype) if total.dtype != a.dtype else total


# The dtypes whose 2-D products are MLX's matmul as it is (no promotion, no
# float64 stream, no exact-integer path): the commonest call, checked cheaply.
_PLAIN_MATMUL = frozenset([mx.float16, mx.float32])


def matmul(x1: Array, x2: Array, /) -> Array:
    """Array API ``matmul`` (integer products exact, wrapping as NumPy's)."""
    plain = type(x1) is mx.array and type(x2) is mx.array and x1.ndim == 2 == x2.ndim
    if plain and x1.dtype == x2.dtype and x1.dtype in _PLAIN_MATMUL:
        if x1.shape[1] != x2.shape[0]:
            raise ValueError(f"mlx matmul: inner dimensions differ ({x1.shape[1]} and {x2.shape[0]})")
        return mx.matmul(x1, x2)
    a, b, dt = _promote_pair(x1, x2, "matmul")
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("mlx matmul: operands must have at least one dimension")
    squeeze_first = a.ndim == 1
    squeeze_last = b.ndim == 1
    if squeeze_first:
        a = a.reshape(1, -1)
    if squeeze_last:
        b = b.reshape(-1, 1)
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"mlx matmul: inner dimensions differ ({a.shape[-1]} and {b.shape[-2]})")
    np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    with cpu_if(dt):
        out = mx.matmul(a, b) if dt.kind in "fc" else _int_matmul(a, b)
        if squeeze_first:
            out = mx.squeeze(out, axis=-2)
        if squeeze_last:
            out = mx.squeeze(out, axis=-1)
        return out


def tensordot(x1: Array, x2: Array, /, *, axes: int | tuple[Sequence[int], Sequence[int]] = 2) -> Array:
    """Array API ``tensordot``, as a transpose, a reshape and a ``matmul``."""
    a, b, dt = _promote_pair(x1, x2, "tensordot")
    if isinstance(axes, (int, np.integer)):
        k = operator.index(axes)
        if k < 0 or k > builtins.min(a.ndim, b.ndim):
            raise ValueError("mlx tensordot: axes out of range")
        ax_a = list(range(a.ndim - k, a.ndim))
        ax_b = list(range(k))
    else:
        ax_a = [normalize_axis(i, a.ndim, "tensordot") for i in axes[0]]
        ax_b = [normalize_axis(i, b.ndim, "tensordot") for i in axes[1]]
        if len(ax_a) != len(ax_b):
            raise ValueError("mlx tensordot: axes lists differ in length")
    for i, j in zip(ax_a, ax_b, strict=False):
        if a.shape[i] != b.shape[j]:
            raise ValueError(f"mlx tensordot: contracted dimensions differ ({a.shape[i]} and {b.shape[j]})")
    free_a = [i for i in range(a.ndim) if i not in ax_a]
    free_b = [j for j in range(b.ndim) if j not in ax_b]
    k = int(np.prod([a.shape[i] for i in ax_a], dtype=np.int64))
    with cpu_if(dt):
        am = mx.transpose(a, free_a + ax_a).reshape(int(np.prod([a.shape[i] for i in free_a], dtype=np.int64)), k)
        bm = mx.transpose(b, ax_b + free_b).reshape(k, int(np.prod([b.shape[j] for j in free_b], dtype=np.int64)))
        out = mx.matmul(am, bm) if dt.kind in "fc" else _int_matmul(am, bm)
        return out.reshape([a.shape[i] for i in free_a] + [b.shape[j] for j in free_b])


def vecdot(x1: Array, x2: Array, /, *, axis: int = -1) -> Array:
    """Array API ``vecdot``: ``sum(conj(x1) * x2, axis)`` after broadcasting."""
    a, b, dt = _promote_pair(x1, x2, "vecdot")
    shape = np.broadcast_shapes(a.shape, b.shape)
    if not shape:
        raise ValueError("mlx vecdot: operands must have at least one dimension")
    ax = normalize_axis(axis, len(shape), "vecdot")
    if a.ndim and b.ndim:
        ax_a = ax - (len(shape) - a.ndim)
        ax_b = ax - (len(shape) - b.ndim)
        if ax_a < 0 or ax_b < 0 or a.shape[ax_a] != b.shape[ax_b]:
            raise ValueError("mlx vecdot: the contracted dimensions differ")
    with cpu_if(dt):
        prod = (mx.conj(a) if dt.kind == "c" else a) * b
        if dt.kind == "b":
            return mx.any(mx.broadcast_to(prod, shape), axis=ax)
        out = mx.sum(mx.broadcast_to(prod, shape), axis=ax)
        # MLX sums narrow integers in 32 bits; the wrap back is NumPy's result.
        return out if out.dtype == a.dtype else out.astype(a.dtype)
