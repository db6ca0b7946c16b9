"""Statistical and utility functions.

Accumulating functions cast to the result dtype first and reduce there:
MLX's own choices (``sum(int8) -> int32``, ``mean(int) -> float32``) never
reach the caller.  ``var`` and ``std`` are written out (two passes, as NumPy
does) because MLX's ``ddof`` is an integer and the standard's
``correction`` may be a float.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable
from typing import Any

import mlx.core as mx

from ... import _rules
from ._core import (
    FLOAT64,
    Array,
    cast,
    check_holdable,
    common_dtype,
    cpu_if,
    dtype_of,
    float64_on_cpu,
    fresh,
    in_dtype,
    normalize_axes,
    normalize_axis,
    require_array,
    result_dtype,
    scalar,
)

Axis = int | tuple[int, ...] | None


def _reduced_shape(shape: tuple[int, ...], axes: tuple[int, ...], keepdims: bool) -> tuple[int, ...]:
    if keepdims:
        return tuple(1 if i in axes else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in axes)


# What a reduction over nothing gives.  MLX's reductions of empty arrays
# that came from NumPy read uninitialised data (prod gives 0, all False).
_EMPTY = {"sum": 0, "prod": 1, "mean": math.nan, "all": True, "any": False}


def _empty_result(name: str, shape: tuple[int, ...], axes: tuple[int, ...], keepdims: bool, dtype: Any) -> Array:
    # mx.full(shape, nan, dtype=complex64) gives float32: pass a typed value.
    value = scalar(_EMPTY[name], dtype_of(mx.zeros((), dtype=dtype)))
    return mx.full(_reduced_shape(shape, axes, keepdims), value)


# (name, dtype, ndim, axis, dtype=, keepdims) -> the axes to reduce, for the
# calls that need no cast, no float64 stream and no special case: what a
# call with that signature did once, MLX's reduction alone after that.
_DIRECT: dict[tuple, list[int]] = {}
# The signatures a call has found not direct (the verdict is the same for
# every call of a signature).
_JUDGED: set[tuple] = set()


def _accumulate(name: str, reduce: Callable[..., Array], x: Array, axis: Axis, dtype: Any, keepdims: bool) -> Array:
    key = None
    if type(x) is mx.array and x.size:
        try:
            key = (name, x.dtype, x.ndim, axis, dtype, keepdims)
            axes_list = _DIRECT.get(key)
        except TypeError:  # an unhashable axis (a list): the checks below say what it is
            key = axes_list = None
        if axes_list is not None:
            return reduce(x, axis=axes_list, keepdims=keepdims)
    require_array(x, name)
    out = result_dtype(name, x, dtype=dtype)
    mdt = check_holdable(name, out)
    axes = normalize_axes(axis, x.ndim, name)
    if key is not None and axes and mdt == x.dtype and FLOAT64 not in (out, dtype_of(x)) and not _wider_mean(name, x):
        # The general path below with nothing to cast, no stream to enter and
        # nothing empty: when MLX's reduction keeps the dtype, later calls skip
        # the checks above.
        res = reduce(x, axis=list(axes), keepdims=keepdims)
        if res.dtype != mdt:
            _JUDGED.add(key)
            return res.astype(mdt)
        _DIRECT[key] = list(axes)
        return res
    if key is not None:
        _JUDGED.add(key)
    with cpu_if(out, x.dtype):
        if x.size == 0 and axes:
            return _empty_result(name, tuple(x.shape), axes, keepdims, mdt)
        xc = cast(x, out, name)
        if not axes:
            return fresh(xc) if xc is x else xc
        if _wider_mean(name, xc):
            return in_dtype(reduce(xc.astype(mx.float32), axis=list(axes), keepdims=keepdims), mdt)
        return in_dtype(reduce(xc, axis=list(axes), keepdims=keepdims), mdt)


def _wider_mean(name: str, x: Array) -> bool:
    # NumPy's mean of float16 accumulates in float32 (a sum of large
    # float16 values would overflow to inf first).
    return name == "mean" and x.dtype == mx.float16


_REDUCE = {"sum": mx.sum, "prod": mx.prod, "mean": mx.mean, "max": mx.max, "min": mx.min}


def direct_reduction(name: str, dtype: Any, ndim: int) -> tuple[Callable[..., Array], Any] | bool | None:
    """What ``name`` (``sum``, ``prod``, ``mean``, ``max``, ``min``) with no
    keyword is for a non-empty array of MLX dtype ``dtype`` with ``ndim``
    dimensions: MLX's reduction over every axis alone (``reduce(x)``), and
    the result's dtype (``dtype``: it is kept), where
    that is what the function does (for ``sum``, ``prod`` and ``mean``, once
    a call has judged the signature direct); False where it is not (final);
    None where no call has judged it yet."""
    reduce = _REDUCE.get(name)
    if reduce is None:
        return False
    if name == "max" or name == "min":
        # _extreme: MLX's reduction alone for every real dtype but float64
        # (its stream on a GPU device) over at least one axis.
        return (reduce, dtype) if ndim and dtype != mx.complex64 and dtype != mx.float64 else False
    if name == "mean" and dtype == mx.float16:
        return False  # accumulated in float32 (_wider_mean)
    key = (name, dtype, ndim, None, None, False)
    if key in _DIRECT:
        return reduce, dtype
    return False if key in _JUDGED else None


def sum(x: Array, /, *, axis: Axis = None, dtype: Any = None, keepdims: bool = False) -> Array:
    """Array API ``sum`` (integers sum in int64/uint64 unless ``dtype``)."""
    return _accumulate("sum", mx.sum, x, axis, dtype, keepdims)


def prod(x: Array, /, *, axis: Axis = None, dtype: Any = None, keepdims: bool = False) -> Array:
    """Array API ``prod``."""
    return _accumulate("prod", mx.prod, x, axis, dtype, keepdims)


def mean(x: Array, /, *, axis: Axis = None, keepdims: bool = False) -> Array:
    """Array API ``mean`` (NaN for an empty reduction)."""
    return _accumulate("mean", mx.mean, x, axis, None, keepdims)


def _variance(name: str, x: Array, axis: Axis, correction: int | float, keepdims: bool) -> Array:
    require_array(x, name)
    out = result_dtype(name, x)
    check_holdable(name, out)
    axes = normalize_axes(axis, x.ndim, name)
    work = dtype_of(x) if x.dtype == mx.complex64 else out
    with cpu_if(out, x.dtype):
        xc = cast(x, work, name)
        n = 1
        for a in axes:
            n *= x.shape[a]
        if not axes:
            d = xc - xc
            total = mx.real(d) if d.dtype == mx.complex64 else d
        else:
            # The corrected two-pass algorithm (Chan, Golub and LeVeque):
            # sum(d**2) - sum(d)**2 / n removes the rounding error of the
            # mean, so constant data gives exactly 0 (MLX's mean multiplies by
            # 1/n and is often an ulp off, which plain sum(d**2) magnifies).
            ax = list(axes)
            d = xc - mx.sum(xc, axis=ax, keepdims=True) / n
            s = mx.sum(d, axis=ax, keepdims=keepdims)
            if d.dtype == mx.complex64:
                sq = mx.sum(mx.real(d * mx.conj(d)), axis=ax, keepdims=keepdims)
                corr = mx.real(s * mx.conj(s / n))
            else:
                sq = mx.sum(d * d, axis=ax, keepdims=keepdims)
                corr = s * (s / n)
            # corr <= sq mathematically, so it is finite wherever sq is; an
            # infinite sq (overflow) stays infinite, as NumPy's does.
            total = mx.where(mx.isinf(sq), sq, mx.maximum(sq - corr, mx.array(0, dtype=sq.dtype)))
        denom = builtins.max(n - correction, 0)
        v = total / mx.array(denom, dtype=total.dtype)
        return mx.sqrt(v) if name == "std" else v


def var(x: Array, /, *, axis: Axis = None, correction: int | float = 0.0, keepdims: bool = False) -> Array:
    """Array API ``var`` (divides by ``max(N - correction, 0)``)."""
    return _variance("var", x, axis, correction, keepdims)


def std(x: Array, /, *, axis: Axis = None, correction: int | float = 0.0, keepdims: bool = False) -> Array:
    """Array API ``std``."""
    return _variance("std", x, axis, correction, keepdims)


def _extreme(name: str, reduce: Callable[..., Array], x: Array, axis: Axis, keepdims: bool) -> Array:
    require_array(x, name)
    if x.dtype == mx.complex64:
        raise TypeError(f"mlx {name}: complex values are not ordered")
    axes = normalize_axes(axis, x.ndim, name)
    if not axes:
        return fresh(x)
    if x.size == 0:
        if builtins.any(x.shape[a] == 0 for a in axes):
            raise ValueError(f"mlx {name}: a reduction over an empty axis has no identity")
        return mx.zeros(_reduced_shape(tuple(x.shape), axes, keepdims), dtype=x.dtype)
    with cpu_if(x.dtype):
        return reduce(x, axis=list(axes), keepdims=keepdims)


def max(x: Array, /, *, axis: Axis = None, keepdims: bool = False) -> Array:
    """Array API ``max`` (NaN propagates)."""
    return _extreme("max", mx.max, x, axis, keepdims)


def min(x: Array, /, *, axis: Axis = None, keepdims: bool = False) -> Array:
    """Array API ``min`` (NaN propagates)."""
    return _extreme("min", mx.min, x, axis, keepdims)


def _cumulative(
    name: str, scan: Callable[..., Array], identity: int, x: Array, axis: int | None, dtype: Any, include_initial: bool
) -> Array:
    require_array(x, name)
    if axis is None and x.ndim == 0:
        _rules.cumulative_of_0d(name, include_initial)  # the rules: the 1-d array of its element
        x = x.reshape(1)
    if axis is None:
        if x.ndim != 1:
            raise ValueError(f"mlx {name}: axis is required for arrays of other than one dimension")
        axis = 0
    ax = normalize_axis(axis, x.ndim, name)
    out = result_dtype(name, x, dtype=dtype)
    mdt = check_holdable(name, out)
    with cpu_if(out, x.dtype):
        xc = cast(x, out, name)
        r = in_dtype(scan(xc, axis=ax), mdt) if x.shape[ax] else xc
        if include_initial:
            shape = list(x.shape)
            shape[ax] = 1
            init = (mx.zeros if identity == 0 else mx.ones)(shape, dtype=r.dtype)
            r = mx.concatenate([init, r], axis=ax)
        return fresh(r) if r is x else r


@float64_on_cpu
def cumulative_sum(x: Array, /, *, axis: int | None = None, dtype: Any = None, include_initial: bool = False) -> Array:
    """Array API ``cumulative_sum``."""
    return _cumulative("cumulative_sum", mx.cumsum, 0, x, axis, dtype, include_initial)


@float64_on_cpu
def cumulative_prod(x: Array, /, *, axis: int | None = None, dtype: Any = None, include_initial: bool = False) -> Array:
    """Array API ``cumulative_prod``."""
    return _cumulative("cumulative_prod", mx.cumprod, 1, x, axis, dtype, include_initial)


def _truth(name: str, reduce: Callable[..., Array], x: Array, axis: Axis, keepdims: bool) -> Array:
    require_array(x, name)
    axes = normalize_axes(axis, x.ndim, name)
    if x.size == 0 and axes:
        return _empty_result(name, tuple(x.shape), axes, keepdims, mx.bool_)
    b = x if x.dtype == mx.bool_ else x != 0
    if not axes:
        return fresh(b) if b is x else b
    return reduce(b, axis=list(axes), keepdims=keepdims)


@float64_on_cpu
def all(x: Array, /, *, axis: Axis = None, keepdims: bool = False) -> Array:
    """Array API ``all`` (NaN counts as true)."""
    return _truth("all", mx.all, x, axis, keepdims)


@float64_on_cpu
def any(x: Array, /, *, axis: Axis = None, keepdims: bool = False) -> Array:
    """Array API ``any`` (NaN counts as true)."""
    return _truth("any", mx.any, x, axis, keepdims)


@float64_on_cpu
def diff(
    x: Array, /, *, axis: int = -1, n: int = 1, prepend: Array | None = None, append: Array | None = None
) -> Array:
    """Array API ``diff`` (booleans differ by ``!=``, as in NumPy)."""
    require_array(x, "diff")
    if n < 0:
        raise ValueError("mlx diff: n must be non-negative")
    if x.ndim == 0:
        raise ValueError("mlx diff: x must have at least one dimension")
    ax = normalize_axis(axis, x.ndim, "diff")
    if n == 0:
        return fresh(x)  # NumPy ignores prepend and append then
    parts = [p for p in (prepend, x, append) if p is not None]
    dt = common_dtype(*parts)
    check_holdable("diff", dt)
    with cpu_if(dt):
        a = mx.concatenate([cast(p, dt, "diff") for p in parts], axis=ax) if len(parts) > 1 else x
        # After as many differences as the axis is long it is empty, and
        # stays so: a huge n (2**40) must not loop that many times.
        return _differences(a, ax, builtins.min(n, a.shape[ax]))


def _differences(a: Array, ax: int, n: int) -> Array:
    lo = [slice(None)] * a.ndim
    hi = [slice(None)] * a.ndim
    for _ in range(n):
        m = a.shape[ax]
        lo[ax] = slice(0, builtins.max(m - 1, 0))
        hi[ax] = slice(1, builtins.max(m, 1))
        a = mx.not_equal(a[tuple(hi)], a[tuple(lo)]) if a.dtype == mx.bool_ else a[tuple(hi)] - a[tuple(lo)]
    return a
