"""The data type functions (Array API chapter "Data Type Functions").

They take dtypes as well as arrays and never touch data, except ``astype``.

Example
-------
>>> import unifiedarray as xp
>>> xp.result_type(xp.int32, xp.float32)
dtype('float64')
"""

from __future__ import annotations

from typing import Any, NamedTuple

import array_api_compat.numpy as _compat
import numpy as np

from . import _access, _calls, _results, _rules
from ._array import UnifiedArray
from ._devices import CPU, Device, DeviceLike
from ._dtypes import PYTHON_TYPES, DType, as_dtype
from .backends import backend_for

__all__ = [
    "DType",
    "astype",
    "broadcast_shapes",
    "can_cast",
    "finfo",
    "finfo_object",
    "iinfo",
    "iinfo_object",
    "isdtype",
    "result_type",
]


def _dtype_arg(x: Any) -> Any:
    return x.dtype if type(x) is UnifiedArray else x


def astype(x: UnifiedArray, dtype: DType, /, *, copy: bool = True, device: DeviceLike | None = None) -> UnifiedArray:
    """``x`` converted to ``dtype`` (and moved to ``device`` if given).  A
    complex array to a real dtype is a ``TypeError``, as the standard says
    (NumPy would drop the imaginary part with a warning); to bool, as the
    standard defines it, ``0+0j`` is False and every other value True.

    >>> import unifiedarray as xp
    >>> xp.astype(xp.asarray([1.5]), xp.int32).tolist()
    [1]
    >>> xp.astype(xp.asarray([0j, 1j]), xp.bool).tolist()
    [False, True]
    """
    if type(x) is not UnifiedArray:
        traced = _calls.traced_call(astype, (x, dtype, copy, device))
        if traced is not NotImplemented:
            return traced  # a tracer of unifiedarray.fuse records the call
        raise TypeError(f"astype: expected a UnifiedArray, got {type(x).__name__}")
    dev = x.device
    if device is not None:
        target = Device.parse(device)
        if target != dev:
            x, dev, copy = x.to_device(target), target, False  # the move made the copy
    dt = as_dtype(dtype, dev)
    if x.dtype.kind == "c" and dt.kind == "b":
        return _calls.call("not_equal", (x, 0))  # NumPy's cast, the standard's rule: nonzero in either part
    if x.dtype.kind == "c" and dt.kind != "c":
        raise TypeError(f"astype: a {x.dtype.name} array to {dt.name} would drop the imaginary part; use real()")
    if not copy and dt == x.dtype:
        return x
    if dev is CPU:
        # NumPy's astype always copies when asked to (what copy=True means),
        # so the result owns its memory; every host dtype is allowed.
        return _results.adopt(_access.native_on(x, CPU, "astype").astype(dt), CPU, dt)
    backend_for(dev).check_dtype(dt, dev, "astype")
    return _calls.call("astype", (x, dt), {"copy": True})


def can_cast(from_: DType | UnifiedArray, to: DType, /) -> bool:
    """Whether ``from_`` (a dtype or array) casts to ``to`` without loss:
    NumPy's safe casting (int64 to float64 is True); in strict mode the
    standard's promotion table (False across kinds).

    >>> import unifiedarray as xp
    >>> xp.can_cast(xp.int8, xp.int16), xp.can_cast(xp.float64, xp.int64)
    (True, False)
    """
    return _rules.can_cast(as_dtype(_dtype_arg(from_)), as_dtype(to))


class finfo_object(NamedTuple):
    """Machine limits of a floating dtype, as Python numbers (the standard's
    fields; NumPy's own ``finfo`` gives NumPy scalars)."""

    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: np.dtype


class iinfo_object(NamedTuple):
    """Machine limits of an integer dtype."""

    bits: int
    max: int
    min: int
    dtype: np.dtype


def finfo(type: DType | UnifiedArray, /) -> finfo_object:
    """Machine limits of a floating dtype (or array).

    >>> import unifiedarray as xp
    >>> xp.finfo(xp.float32).bits
    32
    """
    if type is None:  # NumPy 2.4 gave float64's limits, 2.5 raises TypeError (the standard has no default)
        raise TypeError("finfo: expected a floating-point dtype or array, not None")
    f = np.finfo(_dtype_arg(type))
    return finfo_object(int(f.bits), float(f.eps), float(f.max), float(f.min), float(f.smallest_normal), f.dtype)


def iinfo(type: DType | UnifiedArray, /) -> iinfo_object:
    """Machine limits of an integer dtype (or array).

    >>> import unifiedarray as xp
    >>> xp.iinfo(xp.int8).max
    127
    """
    i = np.iinfo(_dtype_arg(type))
    return iinfo_object(int(i.bits), int(i.max), int(i.min), i.dtype)


def isdtype(dtype: DType, kind: DType | str | tuple[DType | str, ...]) -> bool:
    """Whether ``dtype`` is of ``kind`` (a dtype, a kind name, or a tuple).

    >>> import unifiedarray as xp
    >>> xp.isdtype(xp.float32, "real floating")
    True
    """
    return bool(_compat.isdtype(dtype, kind))  # type: ignore[attr-defined]


def result_type(*arrays_and_dtypes: UnifiedArray | DType | complex) -> np.dtype:
    """The dtype the rules give for the arguments (arrays, dtypes, and
    Python scalars, which are weak): the standard's promotion where it has
    an entry, NumPy 2's elsewhere (strict mode: array-api-strict's errors);
    a Python int outside an integer dtype's range is the ``OverflowError``
    an operation with it raises.

    >>> import unifiedarray as xp
    >>> xp.result_type(xp.int16, 0.5)
    dtype('float64')
    """
    args = [a if isinstance(a, PYTHON_TYPES) else as_dtype(_dtype_arg(a)) for a in arrays_and_dtypes]
    return _rules.result_type(*args)


def broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    """The shape that ``shapes`` broadcast to.

    >>> import unifiedarray as xp
    >>> xp.broadcast_shapes((2, 1), (3,))
    (2, 3)
    """
    return tuple(np.broadcast_shapes(*shapes))
