"""Reductions: ``sum``, ``prod``, ``max`` and ``min``, with their host fast
path (the ufunc's ``reduce`` itself).

Example
-------
>>> import unifiedarray as xp
>>> from unifiedarray._reductions import reduction
>>> float(reduction("sum", xp.arange(4.0), None, None, False))
6.0
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _rules, compute
from ._array import UnifiedArray
from ._buffer import UnifiedBuffer
from ._calls import call, require_real, traced_call
from ._devices import CPU
from ._operators import run_direct
from ._results import adopt

__all__ = ["HOST_REDUCE", "on_device", "reduction"]

# Whether some thread may be in strict mode (see unifiedarray._rules.ACTIVE).
_STRICT_ACTIVE = _rules.ACTIVE


def _ufunc_returns_arrays_for_ellipsis() -> bool:
    """Whether NumPy's ufuncs take ``out=...`` (NumPy 2.3 and later): "give
    an array, never a scalar"."""
    try:
        return type(np.add.reduce(np.zeros(1), out=...)) is np.ndarray
    except TypeError:
        return False


_ARRAY_OUT = _ufunc_returns_arrays_for_ellipsis()

#: The reductions that are one NumPy ufunc's ``reduce``, for their fast path:
#: the host namespace's table (:data:`unifiedarray.compute.HOST_REDUCTIONS`),
#: the one place that says which ufunc each one is.
HOST_REDUCE = {name: ufunc.reduce for name, (ufunc, _) in compute.HOST_REDUCTIONS.items()}


def on_device(name: str, x: UnifiedArray) -> UnifiedArray | None:
    """``name`` (``sum``, ``prod``, ``mean``, ``max``, ``min``) of the whole
    of ``x`` without keywords, where x is a whole non-empty array current
    on a device whose backend has a direct function for it
    (``Backend.direct``, as the operators' fast path asks); None where
    not: the caller takes its general path."""
    buf: UnifiedBuffer | None = x.buffer_made  # typed: compiled, its fields are read directly
    if buf is None:  # a lone result (see UnifiedArray.buffer): one copy, current on a device
        dev, dtype = x.lone_device_dtype
        base = x.lone_copy
    else:
        dev = buf.placement
        dtype = buf.dtype
        base = buf.ready
    shape = x.extent
    if base is None or x.chain is not None or not shape or 0 in shape:
        return None
    return run_direct(dev, name, dtype, len(shape), (), base)  # the whole of x: a 0-d result


def reduction(name: str, x: Any, axis: Any, dtype: Any, keepdims: bool) -> Any:
    """``sum``, ``prod``, ``max``, ``min``: on a whole current host array
    with no ``dtype=``, the ufunc's ``reduce`` itself (most of a small
    reduction's cost is NumPy's Python wrapper); otherwise the general path
    (inside :func:`unifiedarray.fuse`'s tracing, ``x`` and the result are
    tracers)."""
    if type(x) is not UnifiedArray:
        traced = traced_call(reduction, (name, x, axis, dtype, keepdims))
        if traced is not NotImplemented:
            return traced
    elif name in ("max", "min"):
        require_real(name, x)
    if _STRICT_ACTIVE[0] and type(x) is UnifiedArray:
        _rules.unary(name, x.dtype)
    if dtype is None and type(x) is UnifiedArray:
        arr: UnifiedArray = x  # typed: compiled, its fields are read directly
        buf: UnifiedBuffer | None = arr.buffer_made
        # host_current(x), inlined
        if buf is None:  # a lone result (see UnifiedArray.buffer)
            native = arr.lone_copy if arr.lone_device_dtype[0] is CPU else None
        else:
            native = buf.host_ready if arr.chain is None else None
        if native is not None:
            reduce = HOST_REDUCE[name]
            if _ARRAY_OUT:
                # out=... asks for a 0-d array instead of a NumPy scalar.
                if keepdims is False:
                    res = reduce(native, axis, out=...)
                else:
                    res = reduce(native, axis, None, out=..., keepdims=keepdims)
            else:
                res = reduce(native, axis, None, None, keepdims)
                if type(res) is not np.ndarray:
                    res = res[...]
            return adopt(res, CPU, res.dtype)
        if axis is None and keepdims is False:
            res = on_device(name, x)
            if res is not None:
                return res
    if dtype is None:
        return call(name, (x,), {"axis": axis, "keepdims": keepdims})
    return call(name, (x,), {"axis": axis, "dtype": dtype, "keepdims": keepdims})
