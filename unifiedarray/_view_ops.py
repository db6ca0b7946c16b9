"""Views made by link (reshape, permutation, transposes) and moves
(``to_device``).

A linked view shares its array's buffer (:mod:`unifiedarray._views` holds
the links), so writes through either are seen by both, on every backend.

Example
-------
>>> import unifiedarray as xp
>>> from unifiedarray._view_ops import reshaped
>>> reshaped(xp.arange(6), (2, 3)).is_view
True
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np
from numpy.exceptions import AxisError

from . import _views as views
from ._access import native_on
from ._array import UnifiedArray, from_buffer
from ._buffer import upload_new
from ._devices import CPU, Device
from ._results import adopt
from .backends import backend_for

__all__ = ["linked_view", "permuted", "reshaped", "to_device"]

# A constant: ``int | np.integer`` in isinstance builds a new union at every call.
_INTEGERS = (int, np.integer)


def linked_view(x: UnifiedArray, link: Any, shape: tuple[int, ...]) -> UnifiedArray:
    """A view of ``x`` through ``link`` (a :class:`~unifiedarray._views.Reshape`
    or :class:`~unifiedarray._views.Permute`): it shares x's buffer, so
    writes through either are seen by both, on every backend."""
    buf = x.buffer  # (a lone result's is made now: a view shares its array's buffer)
    out = UnifiedArray()
    out.buffer_made = buf
    out.chain = (link,) if x.chain is None else (*x.chain, link)
    out.extent = shape
    out.host_view = None
    parent = buf.host_ready
    if parent is not None:
        # The NumPy view of a current host copy, made now, so that the
        # operators' fast path can take ``A.T @ b`` and ``X - m.reshape(1, -1)``:
        # a transpose always is a real view, a reshape of C-ordered memory
        # too (any other reshape is made at its first read, and kept if
        # NumPy made it a view).
        if x.chain is not None:
            parent = x.host_view
        if parent is not None:
            if type(link) is views.Permute:
                out.host_view = parent.transpose(link.axes)
            elif parent.flags.c_contiguous:  # a reshape of C-ordered memory is always a view
                out.host_view = parent.reshape(link.shape)
    return out


def _new_shape(old: tuple[int, ...], shape: Any) -> tuple[int, ...]:
    """``shape`` checked against ``old``'s size, a single -1 inferred."""
    if isinstance(shape, _INTEGERS):
        shape = (shape,)
    if type(shape) is tuple and all(type(d) is int for d in shape):
        dims = shape
    else:
        try:
            dims = tuple(int(operator.index(d)) for d in shape)
        except TypeError:
            raise TypeError(f"reshape: shape must be an int or a tuple of ints, not {shape!r}") from None
    size = math.prod(old)
    if dims.count(-1) > 1 or any(d < -1 for d in dims):
        raise ValueError(f"reshape: invalid shape {dims}")
    if -1 in dims:
        known = math.prod(d for d in dims if d != -1)
        if known == 0 or size % known:
            raise ValueError(f"reshape: cannot reshape an array of size {size} into shape {dims}")
        dims = tuple(size // known if d == -1 else d for d in dims)
    if math.prod(dims) != size:
        raise ValueError(f"reshape: cannot reshape an array of size {size} into shape {dims}")
    return dims


def reshaped(x: UnifiedArray, shape: Any) -> UnifiedArray:
    """``x`` with a new shape: a view sharing x's buffer (no data copied)."""
    if type(x) is not UnifiedArray:
        raise TypeError(f"reshape: expected a UnifiedArray, got {type(x).__name__}")
    dims = _new_shape(x.extent, shape)
    return linked_view(x, views.Reshape(dims), dims)


def permuted(x: UnifiedArray, axes: Any) -> UnifiedArray:
    """``x`` with its axes permuted: a view sharing x's buffer."""
    if type(x) is not UnifiedArray:
        raise TypeError(f"permute_dims: expected a UnifiedArray, got {type(x).__name__}")
    n = x.ndim
    try:
        norm = tuple(int(operator.index(a)) for a in axes)
    except TypeError:
        raise TypeError(f"permute_dims: axes must be a tuple of ints, not {axes!r}") from None
    for a in norm:
        if not -n <= a < n:
            raise AxisError(f"permute_dims: axis {a} is out of bounds for an array of {n} dimensions")
    norm = tuple(a + n if a < 0 else a for a in norm)
    if sorted(norm) != list(range(n)):
        raise ValueError(f"permute_dims: axes {tuple(axes)} are not a permutation of the {n} axes")
    return linked_view(x, views.Permute(norm), tuple(x.extent[a] for a in norm))


def moved(x: UnifiedArray, source: Any, destination: Any) -> UnifiedArray:
    """``x`` with the axes ``source`` moved to ``destination`` (NumPy's and
    the standard's ``moveaxis``): a view sharing x's buffer.

    >>> import unifiedarray as xp
    >>> moved(xp.zeros((2, 3, 4)), 0, -1).shape
    (3, 4, 2)
    """
    if type(x) is not UnifiedArray:
        raise TypeError(f"moveaxis: expected a UnifiedArray, got {type(x).__name__}")
    n = x.ndim
    src, dst = _axes_list(source, n, "source"), _axes_list(destination, n, "destination")
    if len(src) != len(dst):
        raise ValueError("moveaxis: `source` and `destination` arguments must have the same number of elements")
    order = [a for a in range(n) if a not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        order.insert(d, s)
    return permuted(x, tuple(order))


def _axes_list(axes: Any, n: int, name: str) -> list[int]:
    try:
        items = [operator.index(axes)] if not isinstance(axes, tuple | list) else [operator.index(a) for a in axes]
    except TypeError:
        raise TypeError(f"moveaxis: {name} must be an int or a tuple of ints, not {axes!r}") from None
    for a in items:
        if not -n <= a < n:
            raise AxisError(f"moveaxis: {name} axis {a} is out of bounds for an array of {n} dimensions")
    out = [a + n if a < 0 else a for a in items]
    if len(set(out)) != len(out):
        raise ValueError(f"moveaxis: repeated axis in `{name}` argument")
    return out


def to_device(x: UnifiedArray, dev: Device) -> UnifiedArray:
    """A copy of ``x`` on ``dev`` (``x`` itself if it is there): an explicit
    move, through the host (where every backend meets every other)."""
    buf = x.buffer
    if dev is buf.placement:
        return x
    backend_for(dev).check_dtype(x.dtype, dev, "to_device")
    buf.native(CPU, "to_device", explicit=True)  # an explicit move, where the host copy is stale
    host = native_on(x, CPU, "to_device")
    if dev is CPU:
        return adopt(np.array(host, order="C", copy=True), CPU, host.dtype)
    return from_buffer(upload_new(host, dev, "to_device", explicit=True))
