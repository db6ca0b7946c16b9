"""Creation functions.

Default dtypes are the library's defaults on the "mlx" device: int64,
float64 and complex64 (MLX holds no complex128).  Every MLX constructor gets
an explicit dtype: ``mx.array(float64_ndarray)`` alone gives float32.
"""

from __future__ import annotations

import builtins
import math
import operator
from collections.abc import Sequence
from typing import Any

import mlx.core as mx
import numpy as np

from ... import _rules
from ..._devices import MLX as _MLX
from ..._dtypes import PYTHON_TYPES
from ._core import (
    BOOL,
    DEFAULT_COMPLEX,
    DEFAULT_FLOAT,
    DEFAULT_INT,
    FLOAT32,
    FLOAT64,
    Array,
    as_np_dtype,
    c_long,
    cast,
    check_holdable,
    common_dtype,
    contiguous,
    cpu_if,
    dtype_of,
    float64_on_cpu,
    fresh,
    is_array,
    require_array,
    scalar,
    transfer,
)

Shape = int | Sequence[int]
_INT64_MAX = int(np.iinfo(np.int64).max)


def _shape(shape: Shape) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)):
        shape = (operator.index(shape),)
    out = tuple(operator.index(s) for s in shape)
    if any(s < 0 for s in out):
        raise ValueError(f"mlx: negative dimensions are not allowed: {out}")
    if any(s > _INT64_MAX for s in out) or math.prod(out) > _INT64_MAX:
        raise ValueError(f"mlx: array is too big: {out}")  # NumPy's class (MLX: std::bad_cast)
    return out


def _dtype(dtype: Any, default: np.dtype, op: str) -> tuple[np.dtype, mx.Dtype]:
    dt = default if dtype is None else as_np_dtype(dtype)
    return dt, check_holdable(op, dt)


def _scalar_default(value: Any) -> np.dtype:
    if isinstance(value, (builtins.bool, np.bool_)):
        return BOOL
    if isinstance(value, (builtins.int, np.integer)):
        return DEFAULT_INT
    if isinstance(value, (builtins.float, np.floating)):
        return DEFAULT_FLOAT
    if isinstance(value, (builtins.complex, np.complexfloating)):
        return DEFAULT_COMPLEX
    raise TypeError(f"mlx: expected a Python scalar, got {type(value).__name__}")


def zeros(shape: Shape, *, dtype: Any = None, device: Any = None) -> Array:
    """Array API ``zeros``."""
    dt, mdt = _dtype(dtype, DEFAULT_FLOAT, "zeros")
    with cpu_if(dt):
        return mx.zeros(_shape(shape), dtype=mdt)


def ones(shape: Shape, *, dtype: Any = None, device: Any = None) -> Array:
    """Array API ``ones``."""
    dt, mdt = _dtype(dtype, DEFAULT_FLOAT, "ones")
    with cpu_if(dt):
        return mx.ones(_shape(shape), dtype=mdt)


def empty(shape: Shape, *, dtype: Any = None, device: Any = None) -> Array:
    """Array API ``empty`` (zero-filled: never another buffer's leftovers)."""
    return zeros(shape, dtype=dtype)


def full(shape: Shape, fill_value: Any, *, dtype: Any = None, device: Any = None) -> Array:
    """Array API ``full``; the default dtype follows ``fill_value``'s kind
    (bool, int64, float64, complex64)."""
    if is_array(fill_value):
        if fill_value.ndim != 0:
            raise ValueError("mlx full: fill_value must be a scalar")
        dt = dtype_of(fill_value) if dtype is None else as_np_dtype(dtype)
        value = cast(fill_value, dt, "full")
    else:
        dt = _scalar_default(fill_value) if dtype is None else as_np_dtype(dtype)
        value = scalar(fill_value, dt, "full")
    with cpu_if(dt):
        return mx.full(_shape(shape), value)


def _like_dtype(x: Array, dtype: Any, op: str) -> Any:
    require_array(x, op)  # TypeError for anything else, whatever dtype says
    return dtype_of(x) if dtype is None else dtype


def zeros_like(x: Array, /, *, dtype: Any = None, device: Any = None) -> Array:
    """Array API ``zeros_like``."""
    dt = _like_dtype(x, dtype, "zeros_like")
    return zeros(x.shape, dtype=dt)


def ones_like(x: Array, /, *, dtype: Any = None, device: Any = None) -> Array:
    """Array API ``ones_like``."""
    dt = _like_dtype(x, dtype, "ones_like")
    return ones(x.shape, dtype=dt)


def empty_like(x: Array, /, *, dtype: Any = None, device: Any = None) -> Array:
    """Array API ``empty_like``."""
    dt = _like_dtype(x, dtype, "empty_like")
    return zeros(x.shape, dtype=dt)


def full_like(x: Array, /, fill_value: Any, *, dtype: Any = None, device: Any = None) -> Array:
    """Array API ``full_like``."""
    dt = _like_dtype(x, dtype, "full_like")
    return full(x.shape, fill_value, dtype=dt)


def eye(n_rows: int, n_cols: int | None = None, /, *, k: int = 0, dtype: Any = None, device: Any = None) -> Array:
    """Array API ``eye``."""
    dt, mdt = _dtype(dtype, DEFAULT_FLOAT, "eye")
    n, m = _shape((n_rows, n_rows if n_cols is None else n_cols))
    k = operator.index(k)  # a huge k selects no diagonal: zeros below, as on the host
    with cpu_if(dt):
        if n == 0 or m == 0 or k >= m or -k >= n:
            # No diagonal inside the matrix (and MLX's k is a C int: a huge k
            # would not even reach it).
            return mx.zeros((n, m), dtype=mdt)
        return mx.eye(n, m, k=k, dtype=mdt)


_FLOAT16 = np.dtype(np.float16)


def arange(
    start: int | float,
    /,
    stop: int | float | None = None,
    step: int | float = 1,
    *,
    dtype: Any = None,
    device: Any = None,
) -> Array:
    """Array API ``arange``, as the rules compute it
    (:func:`unifiedarray._rules.arange_plan`: NumPy's length, first two
    elements and errors): element i > 1 is ``first + i * (second - first)``
    in the result's dtype, so integers are exact over the whole int64 and
    uint64 range (float16 is computed in float32, as NumPy does)."""
    dt = _rules.arange_dtype(start, stop, step, _MLX) if dtype is None else as_np_dtype(dtype)
    mdt = check_holdable("arange", dt)
    plan = _rules.arange_plan(start, stop, step, dt)
    n = plan.n
    work = FLOAT32 if dt == _FLOAT16 else dt
    with cpu_if(dt):
        if n == 0:
            return mx.zeros((0,), dtype=mdt)
        # From NumPy arrays of the exact dtype (MLX would take a NumPy float64 scalar as float32).
        wdt = check_holdable("arange", work)
        first = mx.array(np.asarray(plan.first, dtype=work), dtype=wdt)
        if n == 1:
            return first.reshape(1).astype(mdt)
        second = mx.array(np.asarray(plan.second, dtype=work), dtype=wdt)
        if dt.kind == "b":
            return mx.concatenate([first.reshape(1), second.reshape(1)]).astype(mdt)
        idx = mx.arange(n, dtype=mx.int64)
        out = first + idx.astype(first.dtype) * (second - first)
        # Elements 0 and 1 are the converted start and start + step, exactly (inf - inf is no step).
        out = mx.where(idx == 0, first, mx.where(idx == 1, second, out))
        return out if out.dtype == mdt else out.astype(mdt)


def linspace(
    start: int | float | complex,
    stop: int | float | complex,
    /,
    num: int,
    *,
    dtype: Any = None,
    device: Any = None,
    endpoint: bool = True,
) -> Array:
    """Array API ``linspace``, computed as NumPy does (``start + i * step``
    in float64, the last element set to ``stop`` when ``endpoint``), then
    cast to ``dtype``; complex values as NumPy's complex128 gives them, its
    real and imaginary parts each computed so in float64 (MLX holds no
    complex128), then rounded to complex64."""
    num = operator.index(num)
    if num > _INT64_MAX:
        raise ValueError("mlx linspace: num is too large")  # NumPy's class
    if num < 0:
        raise ValueError("mlx linspace: num must be non-negative")
    is_complex = isinstance(start, (complex, np.complexfloating)) or isinstance(stop, (complex, np.complexfloating))
    dt, mdt = _dtype(dtype, DEFAULT_COMPLEX if is_complex else DEFAULT_FLOAT, "linspace")
    if is_complex and dt.kind != "c":
        raise TypeError(f"mlx linspace: complex bounds need a complex dtype, not {dt.name}")
    if dt.kind == "c":
        z0, z1 = complex(start), complex(stop)
        kw = {"dtype": FLOAT64, "endpoint": endpoint}
        re = linspace(z0.real, z1.real, num, **kw)  # type: ignore[arg-type]
        im = linspace(z0.imag, z1.imag, num, **kw)  # type: ignore[arg-type]
        with cpu_if(FLOAT64):
            # (a + 0j) * 1j is exact: the parts are rounded once, to complex64.
            return re.astype(mdt) + im.astype(mdt) * mx.array(1j, dtype=mdt)
    work = FLOAT64
    with cpu_if(dt, work):
        if num == 0:
            return mx.zeros((0,), dtype=mdt)
        start_a = scalar(start, work, "linspace")
        stop_a = scalar(stop, work, "linspace")
        div = (num - 1) if endpoint else num
        if div > 0:
            idx = mx.arange(num, dtype=mx.int64).astype(start_a.dtype)
            out = start_a + idx * ((stop_a - start_a) / div)
            if endpoint:
                out = mx.concatenate([out[:-1], stop_a.reshape(1)])
        else:
            out = mx.broadcast_to(start_a, (num,))
        if dt.kind in "iu":
            out = mx.floor(out)  # NumPy 2 rounds towards -inf for an integer dtype (a cast would truncate)
        return out if out.dtype == mdt else out.astype(mdt)


@float64_on_cpu
def tril(x: Array, /, *, k: int = 0) -> Array:
    """Array API ``tril`` (stacks of matrices too)."""
    return _tri(x, k, lower=True)


@float64_on_cpu
def triu(x: Array, /, *, k: int = 0) -> Array:
    """Array API ``triu`` (stacks of matrices too)."""
    return _tri(x, k, lower=False)


def _tri(x: Array, k: int, lower: bool) -> Array:
    require_array(x, "tril" if lower else "triu")
    k = c_long(k, "tril" if lower else "triu")
    if x.ndim < 2:
        raise ValueError("mlx tril/triu: x must have at least 2 dimensions")
    n, m = x.shape[-2:]
    rows = mx.arange(n).reshape(n, 1)
    cols = mx.arange(m).reshape(1, m)
    keep = (cols - rows <= k) if lower else (cols - rows >= k)
    return mx.where(keep, x, mx.zeros((), dtype=x.dtype))


def meshgrid(*arrays: Array, indexing: str = "xy") -> tuple[Array, ...]:
    """Array API ``meshgrid``; each output keeps its input's dtype."""
    if indexing not in ("xy", "ij"):
        raise ValueError("mlx meshgrid: indexing must be 'xy' or 'ij'")
    for a in arrays:
        require_array(a, "meshgrid")
        if a.ndim != 1:
            raise ValueError("mlx meshgrid: every array must be 1-D")
    if not arrays:
        return ()
    shape = [a.shape[0] for a in arrays]
    if indexing == "xy" and len(arrays) >= 2:
        shape[0], shape[1] = shape[1], shape[0]
    out = []
    for i, a in enumerate(arrays):
        axis = i
        if indexing == "xy" and len(arrays) >= 2 and i < 2:
            axis = 1 - i
        view = [1] * len(arrays)
        view[axis] = a.shape[0]
        out.append(mx.broadcast_to(a.reshape(view), shape))
    return tuple(out)


def asarray(obj: Any, /, *, dtype: Any = None, device: Any = None, copy: bool | None = None) -> Array:
    """Array API ``asarray``.

    An MLX array comes back as is (``copy=None`` or ``False``) or as a new
    handle (``copy=True``).  Host data (NumPy arrays, buffers, nested
    sequences) is copied in with its dtype kept exactly, counted as an
    explicit move.  Python scalars, and sequences of them, take the default
    dtypes (bool, int64, float64, complex64).
    """
    dt = None if dtype is None else as_np_dtype(dtype)
    if is_array(obj):
        src = dtype_of(obj)
        if dt is None or dt == src:
            return fresh(obj) if copy else obj
        if copy is False:
            raise ValueError("mlx asarray: copy=False, but converting the dtype needs a copy")
        with cpu_if(src, dt):
            return cast(obj, dt, "asarray")
    if copy is False:
        raise ValueError("mlx asarray: copy=False on data outside MLX, which must be copied in")
    if isinstance(obj, PYTHON_TYPES):
        return scalar(obj, dt or _scalar_default(obj), "asarray")
    if isinstance(obj, (list, tuple)) and _has_mx(obj):
        return _stack_nested(obj, dt)
    host = np.asarray(obj, dtype=dt)
    if dt is None and isinstance(obj, (list, tuple)) and host.dtype == np.dtype("complex128"):
        host = host.astype(DEFAULT_COMPLEX)  # this namespace's default complex dtype
    mdt = check_holdable("asarray", host.dtype)
    with transfer("cpu", "mlx", host.nbytes, reason="mlx asarray", explicit=True):
        out = mx.array(contiguous(host), dtype=mdt) if host.size else mx.zeros(host.shape, dtype=mdt)
        mx.eval(out)
    return out


def _has_mx(obj: Any) -> bool:
    if is_array(obj):
        return True
    return isinstance(obj, (list, tuple)) and builtins.any(_has_mx(o) for o in obj)


def _stack_nested(obj: Any, dt: np.dtype | None) -> Array:
    parts = [_stack_nested(o, None) if isinstance(o, (list, tuple)) else asarray(o) for o in obj]
    target = dt or common_dtype(*parts)
    with cpu_if(target):
        return mx.stack([cast(p, target, "asarray") for p in parts])
