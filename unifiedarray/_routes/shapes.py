"""NumPy's shape functions: views where NumPy gives views (``reshape``,
``transpose``, ``moveaxis``, ``atleast_2d`` ...: views of the buffer on
every device, whose writes reach the base), joins, splits and the rest as
compositions of the namespace's functions.

Example
-------
>>> import unifiedarray as xp
>>> ROUTES["moveaxis"].target(xp.ones((2, 3, 4)), 0, -1).shape
(3, 4, 2)
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from .._array import UnifiedArray
from .._namespace import copy_of, namespace
from .._view_ops import moved, permuted, reshaped
from .._writes import write_where
from ._common import all_arrays, is_array, numpy_axis
from ._route import Route, compose, host, standard, view, writes

__all__ = ["ROUTES", "trim_zeros"]


# -- views -------------------------------------------------------------------------------


def _np_reshape(a: Any, shape: Any = None, order: str = "C", *, newshape: Any = None, copy: Any = None) -> Any:
    if order != "C" or copy:
        return None
    return reshaped(a, shape if shape is not None else newshape)


def _np_ravel(a: Any, order: str = "C") -> Any:
    return reshaped(a, (-1,)) if order == "C" else None


def _np_transpose(a: Any, axes: Any = None) -> Any:
    if axes is None:
        return permuted(a, tuple(range(a.ndim))[::-1])
    axes = (axes,) if isinstance(axes, int | np.integer) else tuple(axes)
    return permuted(a, tuple(numpy_axis(ax, a.ndim) for ax in axes))


def _np_swapaxes(a: Any, axis1: int, axis2: int) -> Any:
    axes = list(range(a.ndim))
    i, j = numpy_axis(axis1, a.ndim), numpy_axis(axis2, a.ndim)
    axes[i], axes[j] = axes[j], axes[i]
    return permuted(a, tuple(axes))


def _np_squeeze(a: Any, axis: Any = None) -> Any:
    if axis is None:  # NumPy's default: every singleton axis
        axis = tuple(i for i, d in enumerate(a.shape) if d == 1)
    return namespace().squeeze(a, axis)


def _rollaxis(a: Any, axis: int, start: int = 0) -> Any:
    n = a.ndim
    axis = numpy_axis(axis, n)
    if start < 0:
        start += n
    if not 0 <= start < n + 1:
        raise np.exceptions.AxisError(f"'start' arg requires {-n} <= start < {n + 1}, but {start} was passed in")
    if axis < start:
        start -= 1
    if axis == start:
        return a[...]
    axes = list(range(n))
    axes.remove(axis)
    axes.insert(start, axis)
    return permuted(a, tuple(axes))


def _at_least(ndim: int) -> Any:
    def one(a: Any) -> Any:
        if not is_array(a):
            return None
        if a.ndim >= ndim:
            return a
        if ndim == 3 and a.ndim == 2:
            return reshaped(a, (*a.shape, 1))
        if ndim == 3 and a.ndim == 1:
            return reshaped(a, (1, a.shape[0], 1))
        return reshaped(a, (1,) * (ndim - a.ndim) + tuple(a.shape))

    def recipe(*arys: Any) -> Any:
        outs = [one(a) for a in arys]
        if any(o is None for o in outs):
            return None
        return outs[0] if len(outs) == 1 else tuple(outs)

    return recipe


def _flip_axis(m: Any, axis: int, name: str, min_ndim: int) -> Any:
    if m.ndim < min_ndim:
        raise ValueError(f"{name}: input must be at least {min_ndim}-d")
    return namespace().flip(m, axis=axis)


def _broadcast_to(array: Any, shape: Any, subok: bool = False) -> Any:
    return namespace().broadcast_to(array, tuple(shape) if not isinstance(shape, int) else (shape,))


# -- joins and splits ------------------------------------------------------------------


def _vstack(xp: Any, tup: Any, *, dtype: Any = None, casting: str = "same_kind") -> Any:
    if dtype is not None or not all_arrays(*tup):
        return None
    return xp.concat([xp.reshape(t, (1, -1)) if t.ndim < 2 else t for t in tup], axis=0)


def _hstack(xp: Any, tup: Any, *, dtype: Any = None, casting: str = "same_kind") -> Any:
    if dtype is not None or not all_arrays(*tup):
        return None
    arrays = [xp.reshape(t, (1,)) if t.ndim == 0 else t for t in tup]
    return xp.concat(arrays, axis=0 if arrays[0].ndim == 1 else 1)


def _dstack(xp: Any, tup: Any) -> Any:
    if not all_arrays(*tup):
        return None
    return xp.concat([_at_least(3)(t) for t in tup], axis=2)


def _column_stack(xp: Any, tup: Any) -> Any:
    if not all_arrays(*tup):
        return None
    return xp.concat([xp.reshape(t, (-1, 1)) if t.ndim < 2 else t for t in tup], axis=1)


def _block(xp: Any, arrays: Any) -> Any:
    def depth(obj: Any) -> int:
        return 1 + max((depth(o) for o in obj), default=0) if isinstance(obj, list) else 0

    leaves: list[Any] = []

    def gather(obj: Any) -> None:
        if isinstance(obj, list):
            for o in obj:
                gather(o)
        else:
            leaves.append(obj)

    gather(arrays)
    if not leaves or not all_arrays(*leaves):
        return None
    d = depth(arrays)
    nd = max(d, *(leaf.ndim for leaf in leaves))

    def build(obj: Any, level: int) -> Any:
        if not isinstance(obj, list):
            return xp.reshape(obj, (1,) * (nd - obj.ndim) + tuple(obj.shape)) if obj.ndim < nd else obj
        return xp.concat([build(o, level + 1) for o in obj], axis=-(d - level))

    return build(arrays, 0)


def _append(xp: Any, arr: Any, values: Any, axis: Any = None) -> Any:
    if not all_arrays(arr, values):
        return None
    if axis is None:
        return xp.concat([xp.reshape(arr, (-1,)), xp.reshape(values, (-1,))])
    return xp.concat([arr, values], axis=axis)


def _split_points(n: int, sections: Any, even: bool) -> list[int] | None:
    if isinstance(sections, int | np.integer):
        k = int(sections)
        if k <= 0:
            raise ValueError("number sections must be larger than 0.")
        if even and n % k:
            raise ValueError("array split does not result in an equal division")
        each, extra = divmod(n, k)
        sizes = [each + 1] * extra + [each] * (k - extra)
        points = [0]
        for s in sizes:
            points.append(points[-1] + s)
        return points
    if isinstance(sections, list | tuple):
        return [0, *(int(s) for s in sections), n]
    return None


def _splitter(even: bool, axis_of: Any = None) -> Any:
    def recipe(xp: Any, ary: Any, indices_or_sections: Any, axis: int = 0) -> Any:
        if not is_array(ary):
            return None
        ax = axis if axis_of is None else axis_of(ary)
        if ax is None:
            return None
        ax = numpy_axis(ax, ary.ndim)
        n = ary.shape[ax]
        points = _split_points(n, indices_or_sections, even)
        if points is None:
            return None
        out = []
        for lo, hi in itertools.pairwise(points):
            key = [slice(None)] * ary.ndim
            lo_c, hi_c = max(min(lo if lo >= 0 else lo + n, n), 0), max(min(hi if hi >= 0 else hi + n, n), 0)
            key[ax] = slice(lo_c, max(hi_c, lo_c))
            out.append(ary[tuple(key)])
        return out

    return recipe


def _split_dim(need: int, ax: int) -> Any:
    def axis_of(a: Any) -> int | None:
        if a.ndim < need:
            raise ValueError(
                f"{['', 'hsplit', 'vsplit', 'dsplit'][need]} only works on arrays of {need} or more dimensions"
            )
        return 1 if (ax == 1 and a.ndim > 1) else 0 if ax == 1 else ax

    return axis_of


def _hsplit_axis(a: Any) -> int:
    if a.ndim == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    return 1 if a.ndim > 1 else 0


def _unstack(xp: Any, x: Any, /, *, axis: int = 0) -> Any:
    return xp.unstack(x, axis=axis) if is_array(x) else None


# -- rearranging -------------------------------------------------------------------------


def _tile(xp: Any, A: Any, reps: Any) -> Any:
    if not is_array(A):
        return None
    reps = (int(reps),) if isinstance(reps, int | np.integer) else tuple(int(r) for r in reps)
    return xp.tile(A, reps)


def _repeat(xp: Any, a: Any, repeats: Any, axis: Any = None) -> Any:
    if not is_array(a):
        return None
    if isinstance(repeats, list | tuple):
        return None
    return xp.repeat(a, repeats, axis=axis)


def _roll(xp: Any, a: Any, shift: Any, axis: Any = None) -> Any:
    if not is_array(a) or is_array(shift) or is_array(axis):
        return None
    if isinstance(shift, list):
        shift = tuple(shift)
    if isinstance(axis, list):
        axis = tuple(axis)
    if isinstance(shift, tuple) and isinstance(axis, tuple) and len(shift) != len(axis):
        if len(shift) == 1:
            shift = shift * len(axis)
        elif len(axis) == 1:
            axis = axis * len(shift)
        else:
            raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    elif isinstance(shift, tuple) and isinstance(axis, int):
        axis = (axis,) * len(shift)
    elif isinstance(axis, tuple) and not isinstance(shift, tuple):
        shift = (shift,) * len(axis)
    elif isinstance(shift, tuple) and axis is None:
        return None
    return xp.roll(a, shift, axis=axis)


def _rot90(xp: Any, m: Any, k: int = 1, axes: Any = (0, 1)) -> Any:
    if not is_array(m):
        return None
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    if m.ndim < 2:
        raise ValueError(f"Axes={axes} out of range for array of ndim={m.ndim}.")
    a0, a1 = numpy_axis(axes[0], m.ndim), numpy_axis(axes[1], m.ndim)
    if a0 == a1:
        raise ValueError("Axes must be different.")
    k %= 4
    if k == 0:
        return m[...]
    if k == 2:
        return xp.flip(xp.flip(m, axis=a0), axis=a1)
    perm = list(range(m.ndim))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    return (
        xp.permute_dims(xp.flip(m, axis=a1), tuple(perm))
        if k == 1
        else xp.flip(xp.permute_dims(m, tuple(perm)), axis=a1)
    )


def _resize(xp: Any, a: Any, new_shape: Any) -> Any:
    if not is_array(a):
        return None
    shape = (int(new_shape),) if isinstance(new_shape, int | np.integer) else tuple(int(s) for s in new_shape)
    if any(s < 0 for s in shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    total = int(np.prod(shape))
    flat = xp.reshape(a, (-1,))
    if flat.size == 0 or total == 0:
        return xp.zeros(shape, dtype=a.dtype, device=a.device)
    reps = -(-total // flat.size)
    return xp.reshape(xp.tile(flat, (reps,))[:total], shape)


def _pad(xp: Any, array: Any, pad_width: Any, mode: str = "constant", **kwargs: Any) -> Any:
    return xp.pad(array, pad_width, mode, **kwargs) if is_array(array) else None


def trim_zeros(xp: Any, filt: Any, trim: str = "fb", axis: Any = None) -> Any:
    """NumPy's trim_zeros: along each axis, the span from the first to the
    last slice holding a nonzero (two scalars read per axis)."""
    if not is_array(filt) or filt.ndim == 0:
        return None
    trim = trim.lower()
    if trim not in ("f", "b", "fb", "bf"):
        raise ValueError(f"unexpected character(s) in `trim`: {trim!r}")
    axes = (
        tuple(range(filt.ndim))
        if axis is None
        else (numpy_axis(axis, filt.ndim),)
        if isinstance(axis, int | np.integer)
        else tuple(numpy_axis(a, filt.ndim) for a in axis)
    )
    nz = filt != 0
    key = [slice(None)] * filt.ndim
    for ax in axes:
        others = tuple(i for i in range(filt.ndim) if i != ax)
        hit = xp.any(nz, axis=others) if others else nz
        n = filt.shape[ax]
        pos = xp.arange(n, device=filt.device)
        first = int(xp.min(xp.where(hit, pos, n)))
        if first == n:  # all zeros: NumPy keeps nothing along every axis
            return filt[tuple(slice(0, 0) if i in axes else slice(None) for i in range(filt.ndim))]
        last = int(xp.max(xp.where(hit, pos, -1)))
        key[ax] = slice(first if "f" in trim else 0, last + 1 if "b" in trim else n)
    return filt[tuple(key)]


def _delete(xp: Any, arr: Any, obj: Any, axis: Any = None) -> Any:
    if not is_array(arr):
        return None
    a = xp.reshape(arr, (-1,)) if axis is None else arr
    ax = 0 if axis is None else numpy_axis(axis, a.ndim)
    n = a.shape[ax]
    if isinstance(obj, slice):
        drop = set(range(n)[obj])
    elif isinstance(obj, int | np.integer):
        i = int(obj)
        if not -n <= i < n:
            raise IndexError(f"index {i} is out of bounds for axis {ax} with size {n}")
        drop = {i % n}
    elif isinstance(obj, list | tuple) and all(isinstance(i, int) for i in obj):
        drop = {i % n for i in obj}
    else:
        return None
    idx = xp.arange(n, device=a.device)
    keep = xp.ones((n,), dtype=xp.bool, device=a.device)
    for i in drop:
        keep = keep & (idx != i)
    return xp.take(a, known_positions(xp, keep, n - len(drop)), axis=ax)


def _insert(xp: Any, arr: Any, obj: Any, values: Any, axis: Any = None) -> Any:
    if not is_array(arr) or not isinstance(obj, int | np.integer):
        return None
    a = xp.reshape(arr, (-1,)) if axis is None else arr
    ax = 0 if axis is None else numpy_axis(axis, a.ndim)
    n = a.shape[ax]
    i = int(obj)
    if not -n <= i <= n:
        raise IndexError(f"index {i} is out of bounds for axis {ax} with size {n}")
    if i < 0:
        i += n  # NumPy counts a negative position from the end of the axis
    shape = list(a.shape)
    shape[ax] = 1
    if is_array(values):
        vals = xp.astype(values, a.dtype)
    elif np.isscalar(values):
        vals = xp.full((), values, dtype=a.dtype, device=a.device)  # a value, not data to move
    else:
        vals = xp.asarray(values, dtype=a.dtype, device=a.device)
    if vals.ndim > 0 and axis is None:
        vals = xp.reshape(vals, (-1,))
        shape[ax] = vals.shape[0]
    vals = xp.broadcast_to(xp.moveaxis(vals, 0, ax) if vals.ndim == a.ndim and axis is not None else vals, tuple(shape))
    key_lo, key_hi = [slice(None)] * a.ndim, [slice(None)] * a.ndim
    key_lo[ax], key_hi[ax] = slice(0, i), slice(i, n)
    return xp.concat([a[tuple(key_lo)], vals, a[tuple(key_hi)]], axis=ax)


def known_positions(xp: Any, mask: Any, count: int) -> Any:
    """The positions of a 1-D mask's true elements when their number is
    known from shapes alone: a stable sort brings them first, and nothing
    is read."""
    return xp.argsort(xp.astype(~mask, xp.int8), stable=True)[:count]


# -- diagonals and triangles --------------------------------------------------------------


def _diag(xp: Any, v: Any, k: int = 0) -> Any:
    if not is_array(v):
        return None
    if v.ndim == 1:
        m = v.shape[0]
        n = m + abs(k)
        rows = xp.arange(n, device=v.device)[:, None]
        cols = xp.arange(n, device=v.device)[None, :]
        if m == 0:
            return xp.zeros((n, n), dtype=v.dtype, device=v.device)
        at = xp.clip(rows - max(-k, 0), 0, m - 1)
        vals = xp.take(v, xp.reshape(at, (-1,)))[:, None]
        return xp.where(cols - rows == k, vals, xp.zeros((), dtype=v.dtype, device=v.device))
    if v.ndim == 2:
        return xp.linalg.diagonal(v, offset=k)
    raise ValueError("Input must be 1- or 2-d.")


def _diagflat(xp: Any, v: Any, k: int = 0) -> Any:
    return _diag(xp, xp.reshape(v, (-1,)), k) if is_array(v) else None


def _diagonal(xp: Any, a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    if not is_array(a) or a.ndim < 2:
        return None
    i, j = numpy_axis(axis1, a.ndim), numpy_axis(axis2, a.ndim)
    if i == j:
        raise ValueError("axis1 and axis2 cannot be the same")
    rest = [n for n in range(a.ndim) if n not in (i, j)]
    return xp.linalg.diagonal(xp.permute_dims(a, (*rest, i, j)), offset=offset)


def _trace(xp: Any, a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None, out: Any = None) -> Any:
    if out is not None or dtype is not None:
        return None
    d = _diagonal(xp, a, offset, axis1, axis2)
    return None if d is None else xp.sum(d, axis=-1)


def _triangle(which: str) -> Any:
    def recipe(xp: Any, m: Any, k: int = 0) -> Any:
        if not is_array(m):
            return None
        if m.ndim < 2:
            return None  # NumPy's 1-d form: a broadcast to 2-d, on the host
        return getattr(xp, which)(m, k=int(k))

    return recipe


def _indices_from(which: str) -> Any:
    def recipe(xp: Any, arr: Any, k: int = 0) -> Any:
        if not is_array(arr):
            return None
        if arr.ndim != 2:
            raise ValueError("input array must be 2-d")
        rows, cols = arr.shape
        count = int(np.count_nonzero(getattr(np, which)(np.ones((rows, cols), dtype=bool), k=k)))
        r = xp.arange(rows, device=arr.device)[:, None]
        c = xp.arange(cols, device=arr.device)[None, :]
        mask = (c - r >= k) if which == "triu" else (c - r <= k)
        flat = known_positions(xp, xp.reshape(mask, (-1,)), count)
        return (flat // cols, flat % cols)

    return recipe


def _diag_indices_from(xp: Any, arr: Any) -> Any:
    if not is_array(arr):
        return None
    if arr.ndim < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(arr.shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    idx = xp.arange(arr.shape[0], device=arr.device)
    return (idx,) * arr.ndim


def _vander(xp: Any, x: Any, N: Any = None, increasing: bool = False) -> Any:
    if not is_array(x) or x.ndim != 1:
        return None
    n = x.shape[0] if N is None else int(N)
    powers = xp.arange(n, device=x.device)
    if not increasing:
        powers = xp.flip(powers)
    dt = np.result_type(x.dtype, np.int64)
    return xp.pow(xp.astype(x, dt)[:, None], xp.astype(powers, dt)[None, :])


def _meshgrid(xp: Any, *xi: Any, copy: bool = True, sparse: bool = False, indexing: str = "xy") -> Any:
    if not all_arrays(*xi) or sparse:
        return None
    return tuple(xp.meshgrid(*(xp.reshape(x, (-1,)) for x in xi), indexing=indexing))


def _ix(xp: Any, *args: Any) -> Any:
    if not all_arrays(*args):
        return None
    n = len(args)
    out = []
    for k, a in enumerate(args):
        if a.ndim != 1:
            raise ValueError("Cross index must be 1 dimensional")
        if a.dtype == np.bool_:
            return None  # a mask's positions: the host's nonzero
        out.append(xp.reshape(a, (1,) * k + (-1,) + (1,) * (n - k - 1)))
    return tuple(out)


def _copy(xp: Any, a: Any, order: str = "K", subok: bool = False) -> Any:
    """``np.copy``: a copy on the array's device, as ``x.copy()`` (the
    library's arrays are C-ordered: only ``order='F'`` asks for more)."""
    if not is_array(a) or order == "F":
        return None
    return copy_of(a)


ROUTES: dict[str, Route] = {
    "reshape": view(_np_reshape),
    "ravel": view(_np_ravel),
    "transpose": view(_np_transpose),
    "permute_dims": view(_np_transpose),
    "swapaxes": view(_np_swapaxes),
    "matrix_transpose": view(lambda x: x.mT),
    "linalg.matrix_transpose": view(lambda x: x.mT),
    "squeeze": view(_np_squeeze),
    "expand_dims": view(lambda a, axis: namespace().expand_dims(a, axis=axis)),
    "flip": view(lambda m, axis=None: namespace().flip(m, axis=axis)),
    "flipud": view(lambda m: _flip_axis(m, 0, "flipud", 1)),
    "fliplr": view(lambda m: _flip_axis(m, 1, "fliplr", 2)),
    "moveaxis": view(moved),
    "rollaxis": view(_rollaxis),
    "atleast_1d": view(_at_least(1)),
    "atleast_2d": view(_at_least(2)),
    "atleast_3d": view(_at_least(3)),
    "broadcast_to": view(_broadcast_to),
    "broadcast_arrays": compose(
        lambda xp, *args, subok=False: tuple(xp.broadcast_arrays(*args)) if all_arrays(*args) else None
    ),
    "concatenate": standard("concat"),
    "concat": standard("concat"),
    "stack": standard("stack"),
    "vstack": compose(_vstack),
    "hstack": compose(_hstack),
    "dstack": compose(_dstack),
    "column_stack": compose(_column_stack),
    "block": compose(_block),
    "append": compose(_append),
    "split": compose(_splitter(True)),
    "array_split": compose(_splitter(False)),
    "hsplit": compose(_splitter(True, _hsplit_axis)),
    "vsplit": compose(_splitter(True, _split_dim(2, 0))),
    "dsplit": compose(_splitter(True, _split_dim(3, 2))),
    "unstack": compose(_unstack),
    "tile": compose(_tile),
    "repeat": compose(_repeat),
    "roll": compose(_roll),
    "rot90": compose(_rot90),
    "resize": compose(_resize),
    "pad": compose(_pad),
    "trim_zeros": compose(trim_zeros),
    "delete": compose(_delete),
    "insert": compose(_insert),
    "diag": compose(_diag),
    "diagflat": compose(_diagflat),
    "diagonal": compose(_diagonal),
    "trace": compose(_trace),
    "triu": compose(_triangle("triu")),
    "tril": compose(_triangle("tril")),
    "triu_indices_from": compose(_indices_from("triu")),
    "tril_indices_from": compose(_indices_from("tril")),
    "diag_indices_from": compose(_diag_indices_from),
    "vander": compose(_vander),
    "meshgrid": compose(_meshgrid),
    "ix_": compose(_ix),
    "copy": compose(_copy),
    "apply_along_axis": host("calls a Python function on each slice: NumPy's loop runs on the host"),
    "apply_over_axes": host("calls a Python function per axis: NumPy's loop runs on the host"),
}


# -- writes into the first argument, on its device --------------------------------------
# Each writes through the namespace's own ``x[key] = value`` (a tracked
# write of the buffer on x's device) and returns True, or None for a form it
# does not cover, which then writes a host copy (counted) that goes back
# through the buffer.


def _copyto(xp: Any, dst: Any, src: Any, casting: str = "same_kind", where: Any = True) -> Any:
    if where is not True:
        return None
    src_dtype = src.dtype if is_array(src) else np.asarray(src).dtype if not np.isscalar(src) else type(src)
    if is_array(src) or np.isscalar(src):
        if not np.can_cast(src_dtype, dst.dtype, casting=casting):  # type: ignore[arg-type]
            raise TypeError(
                f"Cannot cast scalar from {np.dtype(src_dtype)!r} to {dst.dtype!r} according to the rule {casting!r}"
            )
        dst[...] = xp.astype(src, dst.dtype) if is_array(src) else src
        return True
    return None


def _put(xp: Any, a: Any, ind: Any, v: Any, mode: str = "raise") -> Any:
    if mode != "raise" or not (is_array(ind) or isinstance(ind, int | list | tuple)):
        return None
    if isinstance(ind, int):
        idx = xp.full((1,), ind, dtype=xp.int64, device=a.device)  # a value, not data to move
    else:
        idx = ind if is_array(ind) else xp.asarray(ind, dtype=xp.int64, device=a.device)
    idx = xp.reshape(idx, (-1,))
    if is_array(v):
        vals = v
    elif np.isscalar(v):
        vals = xp.full((1,), v, dtype=a.dtype, device=a.device)
    else:
        vals = xp.asarray(v, dtype=a.dtype, device=a.device)
    if vals.size == 0 or idx.shape[0] == 0:
        return True
    vals = _resize(xp, vals, (idx.shape[0],))
    reshaped(a, (-1,))[idx] = xp.astype(vals, a.dtype)
    return True


def _putmask(xp: Any, a: Any, mask: Any, values: Any) -> Any:
    if not is_array(mask) or mask.shape != a.shape:
        return None
    vals = values if is_array(values) else xp.asarray(values, dtype=a.dtype, device=a.device)
    try:
        np.broadcast_shapes(vals.shape, a.shape)
    except ValueError:
        return None  # NumPy repeats values cyclically: the host
    if vals.ndim and vals.shape != a.shape and vals.size != 1:
        return None
    if type(a) is not UnifiedArray:
        return None  # a tracer: the host
    if vals.ndim and vals.size == 1:
        vals = xp.reshape(vals, ())
    write_where(a, xp.astype(mask, xp.bool), xp.astype(vals, a.dtype), "numpy.putmask")
    return True


def _place(xp: Any, arr: Any, mask: Any, vals: Any) -> Any:
    if not is_array(mask) or mask.size != arr.size:
        return None
    flat_mask = xp.reshape(mask, (-1,)) != 0
    v = vals if is_array(vals) else xp.asarray(vals, dtype=arr.dtype, device=arr.device)
    n = int(xp.sum(xp.astype(flat_mask, xp.int64)))
    if n == 0:
        return True
    if v.size == 0:
        raise ValueError("Cannot insert from an empty array!")
    reshaped(arr, (-1,))[flat_mask] = xp.astype(_resize(xp, xp.reshape(v, (-1,)), (n,)), arr.dtype)
    return True


def _fill_diagonal(xp: Any, a: Any, val: Any, wrap: bool = False) -> Any:
    if a.ndim < 2 or not (is_array(val) or np.isscalar(val)):
        return None
    if a.ndim > 2 and len(set(a.shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    if a.ndim == 2 and wrap and a.shape[0] > a.shape[1] + 1:
        return None  # NumPy's wrapped diagonal: the host
    n = min(a.shape)
    idx = xp.arange(n, device=a.device)
    if is_array(val):
        if val.size == 0:
            return True
        val = xp.astype(_resize(xp, xp.reshape(val, (-1,)), (n,)), a.dtype)  # NumPy cycles the values
    a[(idx,) * a.ndim] = val
    return True


def _put_along_axis(xp: Any, arr: Any, indices: Any, values: Any, axis: Any) -> Any:
    if not is_array(indices) or axis is None or indices.ndim != arr.ndim:
        return None
    ax = numpy_axis(axis, arr.ndim)
    shape = np.broadcast_shapes(
        tuple(d if i != ax else 1 for i, d in enumerate(arr.shape)),
        tuple(d if i != ax else 1 for i, d in enumerate(indices.shape)),
    )
    key = []
    for i in range(arr.ndim):
        if i == ax:
            key.append(indices)
        else:
            key.append(
                xp.reshape(xp.arange(shape[i], device=arr.device), tuple(-1 if j == i else 1 for j in range(arr.ndim)))
            )
    vals = values if is_array(values) else xp.asarray(values, dtype=arr.dtype, device=arr.device)
    arr[tuple(key)] = xp.astype(vals, arr.dtype)
    return True


ROUTES.update({
    "copyto": writes(_copyto),
    "put": writes(_put),
    "putmask": writes(_putmask),
    "place": writes(_place),
    "fill_diagonal": writes(_fill_diagonal),
    "put_along_axis": writes(_put_along_axis),
})  # fmt: skip
