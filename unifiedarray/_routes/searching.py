"""NumPy's searching, sorting and set functions as the namespace's.

Data-dependent shapes (``nonzero``, ``unique``, a mask's selection) are
computed on the device; only their length is read (a counted move of a few
bytes: on MLX, "mlx: data-dependent size").

Example
-------
>>> import unifiedarray as xp
>>> ROUTES["argwhere"].target(xp, xp.asarray([0, 3, 0, 4])).shape
(2, 1)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._common import all_arrays, is_array, numpy_axis
from ._route import Route, compose, host
from .statistics import _flat_by_default

__all__ = ["ROUTES"]


def _where(xp: Any, condition: Any, x: Any = None, y: Any = None) -> Any:
    if x is None and y is None:
        return _nonzero(xp, condition)
    if x is None or y is None:
        return None  # NumPy's error: the host says it
    if not is_array(condition):
        return None
    return xp.where(condition, x, y)


def _nonzero(xp: Any, a: Any) -> Any:
    if not is_array(a):
        return None
    if a.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() instead.")
    return xp.nonzero(a)


def _argwhere(xp: Any, a: Any) -> Any:
    if not is_array(a):
        return None
    if a.ndim == 0:
        return None  # NumPy's (n, 0) answer for a 0-d array: the host
    parts = xp.nonzero(a)
    return xp.stack(parts, axis=1)


def _flatnonzero(xp: Any, a: Any) -> Any:
    return xp.nonzero(xp.reshape(a, (-1,)))[0] if is_array(a) else None


def _extract(xp: Any, condition: Any, arr: Any) -> Any:
    if not all_arrays(condition, arr) or condition.size != arr.size:
        return None
    return xp.reshape(arr, (-1,))[xp.reshape(condition, (-1,)) != 0]


def _compress(xp: Any, condition: Any, a: Any, axis: Any = None, out: Any = None) -> Any:
    if out is not None or not is_array(a):
        return None
    cond = condition if is_array(condition) else None
    if cond is None or cond.ndim != 1:
        return None
    arr = xp.reshape(a, (-1,)) if axis is None else a
    ax = 0 if axis is None else numpy_axis(axis, arr.ndim)
    if cond.shape[0] > arr.shape[ax]:
        return None  # NumPy's IndexError: the host says it
    (idx,) = xp.nonzero(cond)
    return xp.take(arr, idx, axis=ax)


def _rows(xp: Any, a: Any) -> Any:
    """An array given where NumPy takes a sequence: its rows."""
    return [a[i] for i in range(a.shape[0])] if is_array(a) and a.ndim else a


def _select(xp: Any, condlist: Any, choicelist: Any, default: Any = 0) -> Any:
    condlist, choicelist = _rows(xp, condlist), _rows(xp, choicelist)
    if not (isinstance(condlist, list | tuple) and isinstance(choicelist, list | tuple)):
        return None
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if not condlist or not all_arrays(*condlist) or not all(is_array(c) or np.isscalar(c) for c in choicelist):
        return None
    if any(c.dtype != np.bool_ for c in condlist):
        raise TypeError("invalid entry 0 in condlist: should be boolean ndarray")
    dt = np.result_type(*[c.dtype if is_array(c) else c for c in (*choicelist, default)])
    out = xp.astype(default, dt) if is_array(default) else xp.asarray(default, dtype=dt, device=condlist[0].device)
    for cond, choice in zip(reversed(condlist), reversed(choicelist), strict=True):
        out = xp.where(cond, xp.astype(choice, dt) if is_array(choice) else choice, out)
    shape = np.broadcast_shapes(*(c.shape for c in (*condlist, *choicelist, default) if is_array(c)))
    return xp.broadcast_to(out, shape) if tuple(out.shape) != shape else out


def _choose(xp: Any, a: Any, choices: Any, out: Any = None, mode: str = "raise") -> Any:
    choices = _rows(xp, choices)
    if out is not None or mode != "raise" or not is_array(a) or not isinstance(choices, list | tuple):
        return None
    if not all_arrays(*choices):
        return None
    stacked = xp.stack(xp.broadcast_arrays(*choices, xp.astype(a, choices[0].dtype))[:-1], axis=0)
    n = len(choices)
    if a.size and bool(xp.any((a < 0) | (a >= n))):  # one flag read
        raise ValueError("invalid entry in choice array")
    idx = xp.broadcast_to(xp.astype(a, xp.int64), stacked.shape[1:])
    return xp.take_along_axis(stacked, idx[None, ...], axis=0)[0]


def _searchsorted(xp: Any, a: Any, v: Any, side: str = "left", sorter: Any = None) -> Any:
    if not is_array(a):
        return None
    return xp.searchsorted(a, v, side=side, sorter=sorter)


def _sorting(name: str) -> Any:
    flat = _flat_by_default(name)

    def recipe(xp: Any, a: Any, axis: Any = -1, kind: Any = None, order: Any = None, *, stable: Any = None) -> Any:
        if order is not None:
            return None
        if kind == "stable" and stable is None:
            stable = True
        if is_array(a) and a.ndim == 0 and axis is not None:
            return None  # NumPy sorts a 0-d array as 1-d: the host
        return flat(xp, a, axis=axis, **({} if stable is None else {"stable": bool(stable)}))

    return recipe


def _partition(arg: bool) -> Any:
    """NumPy's partition: any arrangement with the k-th element in place
    and nothing larger before it; a full (stable) sort is one."""

    def recipe(xp: Any, a: Any, kth: Any, axis: Any = -1, kind: str = "introselect", order: Any = None) -> Any:
        if order is not None or not is_array(a):
            return None
        arr, ax = (xp.reshape(a, (-1,)), 0) if axis is None else (a, numpy_axis(axis, a.ndim))
        n = arr.shape[ax]
        for k in np.atleast_1d(np.asarray(kth)).tolist():
            if not -n <= int(k) < n:
                raise ValueError(f"kth(={k}) out of bounds ({n})")
        return (xp.argsort if arg else xp.sort)(arr, axis=ax)

    return recipe


def _lexsort(xp: Any, keys: Any, axis: int = -1) -> Any:
    if is_array(keys):
        if keys.ndim < 2:
            return None  # a 1-d array is a sequence of 0-d keys: the host
        keys = [keys[i] for i in range(keys.shape[0])]
    if not isinstance(keys, list | tuple) or not keys or not all_arrays(*keys):
        return None
    # Sort by the last key first; stable sorts by the earlier keys then keep it.
    order = xp.argsort(keys[0], axis=axis, stable=True)
    for k in keys[1:]:
        order = xp.take_along_axis(
            order, xp.argsort(xp.take_along_axis(k, order, axis=axis), axis=axis, stable=True), axis=axis
        )
    return order


def _take(xp: Any, a: Any, indices: Any, axis: Any = None, out: Any = None, mode: str = "raise") -> Any:
    if out is not None or mode != "raise" or not is_array(a):
        return None
    if isinstance(indices, int | np.integer):
        arr = xp.reshape(a, (-1,)) if axis is None else a
        ax = 0 if axis is None else numpy_axis(axis, arr.ndim)
        key: list[Any] = [slice(None)] * arr.ndim
        key[ax] = int(indices)
        return arr[tuple(key)]
    if isinstance(indices, list | tuple):
        indices = xp.asarray(indices, dtype=xp.int64, device=a.device)
    if not is_array(indices):
        return None
    if indices.ndim != 1:
        arr = xp.reshape(a, (-1,)) if axis is None else a
        ax = 0 if axis is None else numpy_axis(axis, arr.ndim)
        taken = xp.take(arr, xp.reshape(indices, (-1,)), axis=ax)
        return xp.reshape(taken, (*arr.shape[:ax], *indices.shape, *arr.shape[ax + 1 :]))
    return _flat_by_default("take")(xp, a, indices, axis=axis)


def _take_along_axis(xp: Any, arr: Any, indices: Any, axis: Any = -1) -> Any:
    if not all_arrays(arr, indices):
        return None
    if axis is None:
        return xp.take_along_axis(xp.reshape(arr, (-1,)), xp.reshape(indices, (-1,)), axis=0)
    return xp.take_along_axis(arr, indices, axis=axis)


def _unique_folded(xp: Any, x: Any) -> Any:
    """``unique_all`` as NumPy 2 answers it: one NaN (``equal_nan``), the
    namespace's own keeping every NaN apart; one scalar read (how many
    values are not NaN) where x is inexact."""
    res = xp.unique_all(x)
    if not xp.isdtype(x.dtype, ("real floating", "complex floating")):
        return res.values, res.indices, xp.reshape(res.inverse_indices, x.shape), res.counts
    k = int(xp.sum(xp.astype(~xp.isnan(res.values), xp.int64)))
    if k >= res.values.shape[0] - 1:
        return res.values, res.indices, xp.reshape(res.inverse_indices, x.shape), res.counts
    counts = xp.concat([res.counts[:k], xp.sum(res.counts[k:], keepdims=True)])
    inverse = xp.minimum(xp.reshape(res.inverse_indices, x.shape), k)
    return res.values[: k + 1], res.indices[: k + 1], inverse, counts


def _unique(xp: Any, ar: Any, return_index: bool = False, return_inverse: bool = False,
            return_counts: bool = False, axis: Any = None, *, equal_nan: bool = True,
            sorted: bool = True) -> Any:  # fmt: skip
    if not is_array(ar) or axis is not None or not equal_nan:
        return None
    values, index, inverse, counts = _unique_folded(xp, ar)
    if not (return_index or return_inverse or return_counts):
        return values
    out = [values]
    if return_index:
        out.append(index)
    if return_inverse:
        out.append(inverse)
    if return_counts:
        out.append(counts)
    return tuple(out)


def _unique_named(name: str) -> Any:
    """NumPy's unique_values, unique_counts, unique_inverse and unique_all:
    the standard's (every NaN a value of its own, as NumPy's are), of a
    0-d array as of its one element."""

    def recipe(xp: Any, x: Any) -> Any:
        if not is_array(x):
            return None
        if x.ndim == 0:
            out = getattr(xp, name)(xp.reshape(x, (1,)))
            if name in ("unique_inverse", "unique_all"):
                out = out._replace(inverse_indices=xp.reshape(out.inverse_indices, ()))
            return out
        return getattr(xp, name)(x)

    return recipe


def _isin(xp: Any, element: Any, test_elements: Any, assume_unique: bool = False, invert: bool = False, *,
          kind: Any = None) -> Any:  # fmt: skip
    if not is_array(element) or not is_array(test_elements):
        return None
    return xp.isin(element, test_elements, invert=invert)


def _set_op(which: str) -> Any:
    def recipe(xp: Any, ar1: Any, ar2: Any, assume_unique: bool = False, **rest: Any) -> Any:
        if rest or not all_arrays(ar1, ar2):
            return None
        a = _unique_folded(xp, ar1)[0] if not assume_unique else xp.reshape(ar1, (-1,))
        b = _unique_folded(xp, ar2)[0] if not assume_unique else xp.reshape(ar2, (-1,))
        if which == "union1d":
            return _unique_folded(xp, xp.concat([a, b]))[0]
        if which == "intersect1d":
            return a[xp.isin(a, b)]
        if which == "setdiff1d":
            return a[xp.isin(a, b, invert=True)]
        both = xp.concat([a[xp.isin(a, b, invert=True)], b[xp.isin(b, a, invert=True)]])
        return xp.sort(both)

    return recipe


ROUTES: dict[str, Route] = {
    "where": compose(_where),
    "nonzero": compose(_nonzero),
    "argwhere": compose(_argwhere),
    "flatnonzero": compose(_flatnonzero),
    "extract": compose(_extract),
    "compress": compose(_compress),
    "select": compose(_select),
    "choose": compose(_choose),
    "searchsorted": compose(_searchsorted),
    "sort": compose(_sorting("sort")),
    "argsort": compose(_sorting("argsort")),
    "partition": compose(_partition(False)),
    "argpartition": compose(_partition(True)),
    "lexsort": compose(_lexsort),
    "sort_complex": host("complex results: sorted as complex128 unless the input is complex64"),
    "take": compose(_take),
    "take_along_axis": compose(_take_along_axis),
    "unique": compose(_unique),
    "unique_values": compose(_unique_named("unique_values")),
    "unique_counts": compose(_unique_named("unique_counts")),
    "unique_inverse": compose(_unique_named("unique_inverse")),
    "unique_all": compose(_unique_named("unique_all")),
    "isin": compose(_isin),
    "intersect1d": compose(_set_op("intersect1d")),
    "setdiff1d": compose(_set_op("setdiff1d")),
    "setxor1d": compose(_set_op("setxor1d")),
    "union1d": compose(_set_op("union1d")),
}
