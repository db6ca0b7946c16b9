"""NumPy's functions the standard lacks, written once in the standard's
terms (as array-api-compat writes its aliases), so that on MLX they run
where the data is: a chapter of the namespace for NumPy's callers
(:data:`NUMPY_RECIPES`).  dask and xarray call them on every chunk
(``np.nansum`` is xarray's default ``skipna``).  Each takes the namespace
first and returns None for a call form it does not cover, which then runs
on the host, counted.

Example
-------
>>> import unifiedarray as xp
>>> float(NUMPY_RECIPES["nansum"](xp, xp.asarray([1.0, xp.nan, 2.0])))
3.0
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._array import UnifiedArray
from ._namespace import copy_of
from ._numpy_views import numpy_axis

__all__ = ["NUMPY_RECIPES"]


# NumPy functions the standard lacks, written once in the standard's terms
# (as array-api-compat writes its aliases), so that on MLX they run where the
# data is; dask and xarray call them on every chunk (``np.nansum`` is
# xarray's default ``skipna``).  Each returns None for a call form it does
# not cover, which then runs on the host, counted.
def _nan_reduction(reduce: str, fill: float) -> Any:
    def recipe(xp: Any, a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False, **rest: Any) -> Any:
        if rest or type(a) is not UnifiedArray:
            return None
        filled = xp.where(xp.isnan(a), fill, a) if a.dtype.kind in "fc" else a
        kwargs: dict[str, Any] = {"axis": axis, "keepdims": keepdims}
        if dtype is not None:
            kwargs["dtype"] = np.dtype(dtype)
        return getattr(xp, reduce)(filled, **kwargs)

    return recipe


def _nan_extremum(reduce: str, fill: float) -> Any:
    def recipe(xp: Any, a: Any, axis: Any = None, keepdims: bool = False, **rest: Any) -> Any:
        if rest or type(a) is not UnifiedArray:
            return None
        if a.dtype.kind not in "f":
            return getattr(xp, reduce)(a, axis=axis, keepdims=keepdims)
        nan = xp.isnan(a)
        out = getattr(xp, reduce)(xp.where(nan, fill, a), axis=axis, keepdims=keepdims)
        return xp.where(xp.all(nan, axis=axis, keepdims=keepdims), xp.nan, out)  # NumPy: nan for all-NaN

    return recipe


def _inexact_dtype(a: Any, dtype: Any) -> None:
    """NumPy's nanmean, nanvar and nanstd: an inexact array keeps an inexact dtype."""
    if dtype is not None and a.dtype.kind in "fc" and np.dtype(dtype).kind not in "fc":
        raise TypeError("If a is inexact, then dtype must be inexact")


def _nanmean(xp: Any, a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False, **rest: Any) -> Any:
    if type(a) is UnifiedArray:
        _inexact_dtype(a, dtype)
    if rest or dtype is not None or type(a) is not UnifiedArray or a.dtype.kind not in "fc":
        return None
    nan = xp.isnan(a)
    total = xp.sum(xp.where(nan, 0.0, a), axis=axis, keepdims=keepdims)
    count = xp.sum(xp.astype(~nan, a.dtype if a.dtype.kind == "f" else xp.float32), axis=axis, keepdims=keepdims)
    return total / count


def _nanvar(
    xp: Any, a: Any, axis: Any = None, dtype: Any = None, ddof: float = 0, keepdims: bool = False, **rest: Any
) -> Any:
    if type(a) is UnifiedArray:
        _inexact_dtype(a, dtype)
    if rest or dtype is not None or type(a) is not UnifiedArray or a.dtype.kind != "f":
        return None
    nan = xp.isnan(a)
    count = xp.sum(xp.astype(~nan, a.dtype), axis=axis, keepdims=True)
    mean = xp.sum(xp.where(nan, 0.0, a), axis=axis, keepdims=True) / count
    dev = xp.where(nan, 0.0, a - mean)
    dof = count - ddof
    var = xp.where(dof > 0, xp.sum(dev * dev, axis=axis, keepdims=True) / dof, xp.nan)  # NumPy: nan, not a sign flip
    if not keepdims:
        var = xp.squeeze(var, axis=tuple(range(a.ndim)) if axis is None else axis)
    return var


def _nanstd(xp: Any, a: Any, **kwargs: Any) -> Any:
    var = _nanvar(xp, a, **kwargs)
    return None if var is None else xp.sqrt(var)


def _atleast_2d(xp: Any, t: Any) -> Any:
    return xp.reshape(t, (1, -1)) if t.ndim < 2 else t


def _vstack(xp: Any, tup: Any, **rest: Any) -> Any:
    if rest or not all(type(t) is UnifiedArray for t in tup):
        return None
    return xp.concat([_atleast_2d(xp, t) for t in tup], axis=0)


def _hstack(xp: Any, tup: Any, **rest: Any) -> Any:
    if rest or not all(type(t) is UnifiedArray for t in tup):
        return None
    arrays = [xp.reshape(t, (1,)) if t.ndim == 0 else t for t in tup]
    return xp.concat(arrays, axis=0 if arrays[0].ndim == 1 else 1)


def _dot(xp: Any, a: Any, b: Any, **rest: Any) -> Any:
    if rest or type(a) is not UnifiedArray or type(b) is not UnifiedArray:
        return None
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    # NumPy's dot sums over a's last axis and b's second-to-last (its only
    # axis for a vector): a tensordot.
    return xp.tensordot(a, b, axes=([a.ndim - 1], [max(b.ndim - 2, 0)]))


def _norm(xp: Any, x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:
    """``np.linalg.norm``: a vector norm over one axis, a matrix norm over
    two (a 2-D array's ``ord`` without ``axis`` names a matrix norm), the
    Frobenius norm of all elements with neither."""
    if type(x) is not UnifiedArray:
        return None
    if x.dtype.kind not in "fc":
        x = xp.astype(x, xp.float64)  # NumPy: anything but floats is taken as float64
    nd = x.ndim
    if axis is None:
        if ord is None or (nd == 2 and isinstance(ord, str) and ord in ("f", "fro")) or (nd == 1 and ord == 2):
            out = xp.linalg.vector_norm(x)  # every element
            return xp.reshape(out, (1,) * nd) if keepdims else out
        axes: tuple[int, ...] = tuple(range(nd))
    elif isinstance(axis, tuple):
        axes = axis
    else:
        try:
            axes = (int(axis),)
        except TypeError:
            raise TypeError("'axis' must be None, an integer or a tuple of integers") from None
    if len(axes) == 1:
        if isinstance(ord, str):
            raise ValueError(f"Invalid norm order '{ord}' for vectors")
        return xp.linalg.vector_norm(x, axis=numpy_axis(axes[0], nd), keepdims=keepdims, ord=2 if ord is None else ord)
    if len(axes) != 2:
        raise ValueError("Improper number of dimensions to norm.")
    row, col = numpy_axis(axes[0], nd), numpy_axis(axes[1], nd)
    if row == col:
        raise ValueError("Duplicate axes given.")
    if ord is None or (isinstance(ord, str) and ord == "f"):
        ord = "fro"
    if not (ord in ("fro", "nuc") if isinstance(ord, str) else ord in (1, -1, 2, -2, np.inf, -np.inf)):
        raise ValueError("Invalid norm order for matrices.")
    rest = [i for i in range(nd) if i not in (row, col)]
    out = xp.linalg.matrix_norm(xp.permute_dims(x, (*rest, row, col)), ord=ord)
    if keepdims:
        out = xp.reshape(out, tuple(1 if i in (row, col) else n for i, n in enumerate(x.shape)))
    return out


def _flat_by_default(reduce: str) -> Any:
    """NumPy's cumsum, cumprod, take, sort and argsort: ``axis=None`` takes
    the flattened array (the standard's function wants an axis)."""

    def recipe(xp: Any, a: Any, *args: Any, axis: Any = None, **kwargs: Any) -> Any:
        if type(a) is not UnifiedArray:
            return None
        if axis is None:
            a, axis = xp.reshape(a, (-1,)), 0
        return getattr(xp, reduce)(a, *args, axis=axis, **kwargs)

    return recipe


def _cumulative(reduce: str) -> Any:
    flat = _flat_by_default(reduce)

    def recipe(xp: Any, a: Any, axis: Any = None, dtype: Any = None) -> Any:
        return flat(xp, a, axis=axis, **({} if dtype is None else {"dtype": np.dtype(dtype)}))

    return recipe


def _take(xp: Any, a: Any, indices: Any, axis: Any = None) -> Any:
    if type(indices) is not UnifiedArray:
        return None  # a list or a scalar: the standard's take wants an array
    return _flat_by_default("take")(xp, a, indices, axis=axis)


def _sorting(name: str) -> Any:
    flat = _flat_by_default(name)

    def recipe(xp: Any, a: Any, axis: Any = -1, *, stable: Any = None) -> Any:
        return flat(xp, a, axis=axis, **({} if stable is None else {"stable": bool(stable)}))

    return recipe


def _qr(xp: Any, a: Any, mode: str = "reduced") -> Any:
    if type(a) is not UnifiedArray or mode not in ("reduced", "complete", "r"):
        return None  # "raw" (LAPACK's own layout), or NumPy's error for another mode
    return xp.linalg.qr(a).R if mode == "r" else xp.linalg.qr(a, mode=mode)


def _copy(xp: Any, a: Any, order: str = "K", subok: bool = False) -> Any:
    """``np.copy``: a copy on the array's device, as ``x.copy()`` (the
    library's arrays are C-ordered: only ``order='F'`` asks for more)."""
    if type(a) is not UnifiedArray or order == "F":
        return None
    return copy_of(a)


NUMPY_RECIPES: dict[str, Any] = {
    "linalg.norm": _norm,
    "copy": _copy,
    "linalg.qr": _qr,
    "cumsum": _cumulative("cumulative_sum"),
    "cumprod": _cumulative("cumulative_prod"),
    "take": _take,
    "sort": _sorting("sort"),
    "argsort": _sorting("argsort"),
    "nansum": _nan_reduction("sum", 0.0),
    "nanprod": _nan_reduction("prod", 1.0),
    "nanmax": _nan_extremum("max", -np.inf),
    "nanmin": _nan_extremum("min", np.inf),
    "nanmean": _nanmean,
    "nanvar": _nanvar,
    "nanstd": _nanstd,
    "vstack": _vstack,
    "hstack": _hstack,
    "dot": _dot,
}
