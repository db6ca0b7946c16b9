"""Intake: foreign data and Python scalars meeting arrays.

Foreign data becomes an array by :func:`intake` (the vocabulary is
:mod:`unifiedarray._results`'): always a copy, since the library cannot
watch foreign memory; host data through :func:`intake_host`, the one path
by which host data from outside comes in.  A Python scalar's fate is the
rules' (:func:`check_scalar`).

Example
-------
>>> import numpy as np
>>> from unifiedarray._intake import intake
>>> intake(np.arange(3)).device
Device('cpu')
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _rules
from ._array import UnifiedArray
from ._calls import call_mixed
from ._devices import CPU, Device
from ._dtypes import PYTHON_TYPES
from ._foreign import host_data
from ._results import adopt, wrap_result
from .backends import backend_of_native

__all__ = [
    "array_or_scalar",
    "check_scalar",
    "intake",
    "intake_host",
    "is_numpy_number",
    "numpy_scalar",
    "standard_host",
]


def check_scalar(x: UnifiedArray, value: Any, op: str, reflected: bool = False) -> bool | None:
    """``x <op> value`` (``value <op> x`` when ``reflected``) for a Python
    scalar ``value``: the rules' answer (:func:`unifiedarray._rules.binary_scalar`),
    asked before any backend sees the value.  None: the backend computes it
    from the value as it is; a bool: the answer for every element (a
    comparison with an int outside x's range).  Raises the rules' errors.
    Every path of :func:`operate` (and the in-place operators) calls this,
    and nothing else in the dispatch decides a scalar's fate (the
    operators' fast path first looks the rules' recorded passes up,
    ``_rules.SCALAR_PASSES``, which only the rules fill)."""
    return _rules.binary_scalar(op, x.dtype, value, reflected)


def array_or_scalar(value: Any, name: str, device: Device | None = None) -> Any:
    """An argument the standard types as "an array or a Python scalar"
    (``where``'s values, ``searchsorted``'s ``x2``, ``isin``'s operands),
    taken as the binary operators take it: a UnifiedArray or a Python scalar
    (its exact type: the rules' weak scalar) as it is; other array data, a
    NumPy scalar (``np.float32(nan)``, as xarray passes) or array, an MLX or
    CuPy array, as data of its own dtype (:func:`intake`, NumPy's strong
    scalar; made on ``device`` where given, :func:`numpy_scalar`); outside
    strict mode a list or tuple as host data (NumPy's array-like); anything
    else a ``TypeError`` naming the function.

    >>> import numpy as np
    >>> array_or_scalar(np.float32(1.5), "where").dtype
    dtype('float32')
    """
    t = type(value)
    if t is UnifiedArray or t in PYTHON_TYPES:
        return value
    if device is not None and is_numpy_number(value):
        return numpy_scalar(value, device)
    if backend_of_native(value) is not None or hasattr(value, "__array__"):
        return intake(value)
    if (t is list or t is tuple) and not _rules.is_strict():
        return intake(value)  # NumPy's array-like (np.where(c, x, [5, 6])): host data, as an operand is
    raise TypeError(f"{name}: expected an array or a Python scalar, got {t.__name__}")


def numpy_scalar(value: np.generic, dev: Device) -> UnifiedArray:
    """A NumPy scalar (``np.sqrt(dt)``, ``np.float32(0.5)``) met by an array
    on ``dev``: a value, as a Python scalar is, made there as a 0-d array
    of its own dtype (NumPy 2's rule: a NumPy scalar is strongly typed).
    Nothing is moved or counted for it, and the transfer guard has nothing
    to refuse; a dtype the device cannot hold is the backend's error.

    >>> import numpy as np
    >>> numpy_scalar(np.float32(1.5), CPU).dtype
    dtype('float32')
    """
    return call_mixed("asarray", (value.item(),), {"dtype": value.dtype}, device=dev)


def is_numpy_number(value: Any) -> bool:
    """Whether ``value`` is a NumPy scalar of one of the standard's kinds."""
    return isinstance(value, np.generic) and value.dtype.kind in "biufc"


def intake(value: Any) -> UnifiedArray:
    """Foreign data mixed with UnifiedArrays: a CuPy or MLX array is data on
    its own device; anything else (an ndarray, a list) is host data, whatever
    the default device.  The usual mixed-device rules then move it (counted)
    only if the operation needs it.  Always a copy: the library cannot watch
    foreign memory."""
    backend = backend_of_native(value)
    if backend is not None and backend.kind != CPU.kind:
        dev = backend.device_of(value)
        with backend.compute_context(dev):
            return wrap_result(backend.copy(value), dev)
    return intake_host(value, "cannot combine a UnifiedArray with")


def intake_host(value: Any, what: str) -> UnifiedArray:
    """Foreign host data as a new host array (a copy) of one of the
    standard's dtypes (data in the other byte order comes in as the same
    dtype in native order); a ``TypeError`` starting with ``what`` for
    data of another kind."""
    host = standard_host(host_data(value, copy=True), f"{what} {type(value).__name__} of dtype {{dtype}}")
    return adopt(host, CPU, host.dtype)


def standard_host(arr: np.ndarray, refusal: str) -> np.ndarray:
    """Host data from outside (``arr``, an ndarray) as one of the standard's
    dtypes, the one rule for every way such data comes in (``asarray`` and
    :func:`intake_host`): a ``TypeError`` (``refusal``, its ``{dtype}``
    filled in) for data of another kind; a dtype's metadata dropped (a dict
    NumPy code may cache things in: scikit-learn caches unique labels
    there, which would go stale after a write); data in the other byte
    order (a FITS file's big-endian floats, say) as the same dtype in native
    order: the same values, a dtype every backend can hold.  A view or a
    new array where something changes; ``arr`` itself otherwise."""
    if arr.dtype.kind not in "biufc":
        raise TypeError(refusal.format(dtype=arr.dtype))
    if arr.dtype.metadata is not None:
        arr = arr.view(np.dtype(arr.dtype.str))
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    return arr
