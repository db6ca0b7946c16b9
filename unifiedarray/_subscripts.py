"""Subscripts: ``x[key]`` (views for basic indices, copies for elements and
advanced indices) and ``x[key] = value`` (through the buffer).

Example
-------
>>> import unifiedarray as xp
>>> from unifiedarray._subscripts import getitem, setitem
>>> x = xp.arange(4)
>>> setitem(x, 0, 7)
>>> getitem(x, slice(0, 2)).tolist()
[7, 1]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _index as index
from . import _rules
from ._access import host_current, native_on
from ._array import UnifiedArray
from ._buffer import UnifiedBuffer
from ._calls import call, call_mixed
from ._devices import CPU
from ._dtypes import PYTHON_TYPES
from ._intake import intake
from ._results import adopt, wrap_result
from ._writes import cast_value, write

__all__ = ["getitem", "setitem"]


def getitem(x: UnifiedArray, key: Any) -> UnifiedArray:
    """``x[key]``: a view for basic indices (sharing x's buffer), a new 0-d
    array for an integer per axis, a new array for advanced indices."""
    buf: UnifiedBuffer | None = x.buffer_made  # typed: compiled, its fields are read directly
    if buf is None:
        buf = x.buffer  # a lone result's, made now: a view shares its array's buffer
    host = buf.host_ready
    if host is not None and x.chain is None:
        # The commonest indices of a whole host array: a slice or an integer
        # of the first axis (a view; a trailing Ellipsis keeps NumPy from
        # giving a scalar), or an integer for every axis (an element).
        tkey = type(key)
        if tkey is slice or (tkey is tuple and index.all_slices(key)):
            # _host_view, inlined: this is most of a small slice's cost.
            native = host[key]
            out: UnifiedArray = UnifiedArray()
            out.buffer_made = buf
            out.chain = (key,)
            out.extent = native.shape
            out.host_view = native
            return out
        if index.one_element(key, len(x.extent)):
            return adopt(np.asarray(host[key]), CPU, host.dtype)
        if tkey is int:
            key = (key, Ellipsis)
            return _host_view(x, key, host[key])
    if index.is_basic_key(key):
        if index.one_element(key, len(x.extent)):
            return _element(x, key)
        return _view(x, key)
    if type(key) is UnifiedArray:
        # A boolean mask or an integer array, both whole and current on the
        # host: NumPy's advanced indexing directly.
        host, picked = host_current(x), host_current(key)
        if host is not None and picked is not None:
            return wrap_result(host[picked], CPU, (host,))
    return call_mixed("getitem", (x, _key_arrays(key)), reason="UnifiedArray.__getitem__")


_SEQUENCES = (list, np.ndarray)  # a constant: ``list | np.ndarray`` builds a new union at every call


def _key_arrays(key: Any) -> Any:
    """Lists and ndarrays in an index are host arrays (as NumPy reads them)."""
    tkey = type(key)
    if tkey is int or tkey is slice:
        return key  # the commonest keys: nothing to take in
    if isinstance(key, _SEQUENCES):
        return intake(index.sequence_array(key) if type(key) is list else key)
    if type(key) is tuple:
        return tuple(
            intake(index.sequence_array(k) if type(k) is list else k) if isinstance(k, _SEQUENCES) else k for k in key
        )
    return key


def _host_view(x: UnifiedArray, key: Any, native: np.ndarray) -> UnifiedArray:
    out = UnifiedArray()
    out.buffer_made = x.buffer  # (getitem made a lone result's)
    out.chain = (key,)
    out.extent = native.shape
    out.host_view = native
    return out


def _element(x: UnifiedArray, key: Any) -> UnifiedArray:
    """One element, selected by an integer per axis, as a new 0-d array: a
    copy, as NumPy gives (a scalar) and array-api-strict does, so that
    ``old = x[i]; x[i] = new`` keeps the old value."""
    reason = "UnifiedArray.__getitem__"
    if x.device is CPU:
        host = native_on(x, CPU, reason)
        return adopt(np.asarray(host[key]), CPU, host.dtype)
    index.normalise(x.extent, key)  # NumPy's IndexError, at the call: some backends check nothing
    return call("getitem", (x, key), reason=reason)


def _view(x: UnifiedArray, key: Any) -> UnifiedArray:
    key = index.view_key(key)
    buf: UnifiedBuffer | None = x.buffer_made
    if buf is None:
        buf = x.buffer  # a lone result's, made now: a view shares its array's buffer
    out: UnifiedArray = UnifiedArray()
    out.buffer_made = buf
    parent = x.chain
    out.chain = (key,) if parent is None else (*parent, key)
    base = buf.host_ready
    if base is not None and parent is not None:
        base = x.host_view
    if base is not None:
        # A current host copy: the native view now (taking a view reads nothing).
        view = base[key]
        out.host_view = view
        out.extent = view.shape
    else:
        out.host_view = None
        out.extent = index.basic_shape(x.extent, key)
    return out


def setitem(x: UnifiedArray, key: Any, value: Any) -> None:
    """``x[key] = value``, through the buffer on x's device."""
    dev = x.device
    reason = "UnifiedArray.__setitem__"
    if type(value) is not UnifiedArray:
        if value is None or isinstance(value, PYTHON_TYPES):
            value = _rules.store(x.dtype, value, "__setitem__")  # converted: every backend stores it exactly
        else:
            value = intake(value)
    if type(value) is UnifiedArray and value.dtype != x.dtype:
        value = cast_value(value, x.dtype, "__setitem__")
    key = _key_arrays(key)
    if type(key) is UnifiedArray:
        key = native_on(key, dev, reason)
    elif type(key) is tuple:
        key = tuple(native_on(k, dev, reason) if type(k) is UnifiedArray else k for k in key)
    write(x, key, value, reason)
