"""Results: native arrays made arrays of their own.

The conversion vocabulary (native arrays and UnifiedArrays), one verb per
meaning, used everywhere in the package:

* **adopt** (:func:`adopt`): a native the caller owns, known to alias
  nothing, becomes a new array's only copy: no copy, no checks (the fast
  paths' and every result's last step; :func:`unifiedarray._buffer.adopt`
  is the same one level down, a buffer).
* **wrap a result** (:func:`wrap_result`): whatever a backend function
  returned (an array, a NumPy scalar, a tuple or list of them, a Python
  value) becomes arrays of their own: memory shared with an input is
  copied first.
* **intake** (:func:`unifiedarray._intake.intake`): foreign data (a CuPy
  or MLX array, an ndarray, a list) becomes an array: always a copy, since
  the library cannot watch foreign memory.
* **send back** (:func:`send_back`): a host result (of a host fallback)
  moved to the device the call was placed on: a counted move.

A result never shares memory with another buffer unseen: a write to one
would leave the other's copies stale.

Example
-------
>>> import numpy as np
>>> from unifiedarray._devices import CPU
>>> wrap_result((np.arange(3), np.float64(2.0)), CPU)[1].shape
()
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._array import UnifiedArray, from_buffer
from ._buffer import DEVICE_COPY_HOOK, upload_new
from ._buffer import adopt as _adopt_buffer
from ._devices import CPU, Device
from .backends import backend_for

__all__ = ["adopt", "lone_on_host", "new_result", "send_back", "wrap_result"]

# The last host result's lone_device_dtype, for the next one of its dtype
# (NumPy's dtype of a kind is one object: a result's is most often the last's).
_HOST_SIG: list[tuple[Device, Any]] = [(CPU, None)]


def adopt(native: Any, dev: Device, dtype: np.dtype) -> UnifiedArray:
    """A new whole array whose one copy is ``native`` (a native array of
    ``dev`` holding ``dtype``, which the caller owns and nothing else
    aliases), without checks: what :func:`wrap_result` ends in, and what the
    fast paths call.  A lone result (see :attr:`UnifiedArray.buffer`): its
    buffer is made where it is first asked for, but on a device under a
    memory limit, which must hear of every device copy as it is made."""
    return new_result(native, (dev, dtype), native.shape)


def new_result(native: Any, device_dtype: Any, shape: Any) -> UnifiedArray:
    """:func:`adopt` with ``(device, dtype)`` (shared by the results of one
    signature) and the shape at hand: the one place a result is made, and
    where it is decided whether it is a lone result (a C call from the
    compiled fast paths: see ``_results.pxd``)."""
    arr: UnifiedArray = UnifiedArray()
    arr.extent = shape
    arr.chain = arr.host_view = None
    dev = device_dtype[0]
    if dev is CPU or DEVICE_COPY_HOOK[0] is None:
        arr.buffer_made = None
        arr.lone_copy = native
        arr.lone_device_dtype = device_dtype
    else:
        # A device memory limit hears of every device copy as it is made
        # (the buffer's adopt calls its hook), so this one gets its buffer now.
        arr.buffer_made = _adopt_buffer(native, dev, device_dtype[1], shape)
    return arr


def lone_on_host(native: Any) -> UnifiedArray:
    """:func:`adopt` of a host result (``native``, which the caller owns and
    nothing else aliases), as the host fast paths call it: its
    ``(device, dtype)`` is shared with the last one's of its dtype (a C call
    from the compiled fast paths: see ``_results.pxd``)."""
    dtype = native.dtype
    sig = _HOST_SIG[0]
    if sig[1] is not dtype:
        sig = _HOST_SIG[0] = (CPU, dtype)
    return new_result(native, sig, native.shape)


def wrap_result(res: Any, dev: Device, inputs: Sequence[Any] = ()) -> Any:
    """Wrap whatever a backend function returned: arrays, tuples of arrays
    (named tuples keep their type), or plain Python values.  A result that
    shares memory with an input (NumPy's and CuPy's reshape, ``real`` of a
    real array) gets memory of its own: two buffers never share memory
    unseen, or a write to one would leave the other's copies stale."""
    if dev is CPU:
        tres = type(res)
        if tres is np.ndarray:
            if res.base is None:
                for inp in inputs:
                    if res is inp:
                        return adopt(res.copy(), CPU, res.dtype)
            else:
                for inp in inputs:
                    if type(inp) is np.ndarray and np.may_share_memory(res, inp):
                        return adopt(res.copy(), CPU, res.dtype)
            return adopt(res, CPU, res.dtype)
        if isinstance(res, np.generic):
            return adopt(res[...], CPU, res.dtype)  # type: ignore[index]  # a 0-d array from a NumPy scalar
    else:
        backend = backend_for(dev)
        if backend.is_native(res):
            if backend.results_alias:
                for inp in inputs:
                    if res is inp or (backend.is_native(inp) and backend.aliases(res, inp)):
                        res = backend.copy(res)
                        break
            return adopt(res, dev, backend.dtype_of(res))
    if isinstance(res, tuple):
        items = [wrap_result(r, dev, inputs) for r in res]
        return type(res)(*items) if hasattr(res, "_fields") else tuple(items)
    if isinstance(res, list):
        return [wrap_result(r, dev, inputs) for r in res]
    return res


def send_back(res: Any, device: Device, reason: str) -> Any:
    """A host result moved to ``device`` (counted), as an array there."""
    if device is CPU:
        return res
    if type(res) is UnifiedArray:
        return from_buffer(upload_new(res.buffer.native(CPU, reason), device, reason, explicit=False))
    if isinstance(res, tuple):
        items = [send_back(r, device, reason) for r in res]
        return type(res)(*items) if hasattr(res, "_fields") else tuple(items)
    if isinstance(res, list):
        return [send_back(r, device, reason) for r in res]
    return res
