"""unifiedarray: one array type for the CPU and accelerators.

``unifiedarray`` is itself an Array API 2025.12 namespace.  Its arrays live
on a lazy-sync buffer that keeps a host copy and device copies (CuPy on
CUDA, MLX on Apple Metal or Linux), knows which copy is current, and moves
data only when a stale copy is read.

Example
-------
>>> import unifiedarray as xp
>>> x = xp.linspace(0.0, 1.0, 5)
>>> float(xp.sum(x))
2.5
>>> xp.get_namespace(x) is xp
True
"""

from __future__ import annotations

from typing import Any

import numpy as _np

from . import fft, linalg
from ._accelerator import Accelerator, get_accelerator, list_devices
from ._array import UnifiedArray
from ._buffer import BufferState, UnifiedBuffer
from ._creation import (
    arange,
    asarray,
    empty,
    empty_like,
    eye,
    from_dlpack,
    full,
    full_like,
    linspace,
    meshgrid,
    ones,
    ones_like,
    tril,
    triu,
    zeros,
    zeros_like,
)
from ._devices import Device
from ._functions import astype, broadcast_shapes, can_cast, finfo, iinfo, isdtype, result_type
from ._functions import build as _build
from ._info import __array_namespace_info__
from ._ledger import TransferLedger, TransferRecord, track_transfers
from ._ledger import totals as transfer_totals
from ._policy import TransferError, default_device, get_default_device, set_default_device, transfer_guard
from ._pool import MemoryPool, OutOfMemoryError, get_memory_pool
from ._streaming import prefetch

__version__ = "0.1.0"
__array_api_version__ = "2025.12"

_build(globals())

# -- data types: NumPy's dtype objects, so that dtype.kind and np.dtype(x.dtype) work
bool = _np.dtype("bool")  # the standard's name
int8 = _np.dtype("int8")
int16 = _np.dtype("int16")
int32 = _np.dtype("int32")
int64 = _np.dtype("int64")
uint8 = _np.dtype("uint8")
uint16 = _np.dtype("uint16")
uint32 = _np.dtype("uint32")
uint64 = _np.dtype("uint64")
float32 = _np.dtype("float32")
float64 = _np.dtype("float64")
complex64 = _np.dtype("complex64")
complex128 = _np.dtype("complex128")

# -- constants
e = _np.e
pi = _np.pi
inf = _np.inf
nan = _np.nan
newaxis = None


def get_namespace(*arrays: Any) -> Any:
    """The Array API namespace of ``arrays``: this module for UnifiedArrays.

    For generic code: ``xp = get_namespace(x)``; with mixed inputs, defer to
    ``array_api_compat.array_namespace``.

    >>> import unifiedarray as xp
    >>> xp.get_namespace(xp.ones(1)) is xp
    True
    """
    if arrays and all(type(a) is UnifiedArray for a in arrays):
        return arrays[0].__array_namespace__()
    import array_api_compat

    return array_api_compat.array_namespace(*arrays)


__all__ = sorted(n for n, v in list(globals().items()) if not n.startswith("_") and n not in ("annotations", "Any"))
from . import _interop  # noqa: F401  (installs the protocols on UnifiedArray)
