"""Foreign data read through NumPy: the one way the library converts it.

A list, a tuple or an array-like that a user hands the library (``xp.asarray
([x, y])``, an index ``a[[i, j]]``, a batch to stream) may hold
UnifiedArrays.  NumPy converts each through its ``__array__``, which for a
user's ``np.asarray(x)`` is a writable alias of the host copy: a host write,
after which the device copies count as stale.  The library's own
conversions are reads, so they go through :func:`host_data`, under which
(:data:`READING`, per thread) ``__array__`` gives read-only host data and
marks nothing.  ``tests/test_foreign.py`` holds every conversion of foreign
data in the package to it.

Example
-------
>>> import unifiedarray as xp
>>> from unifiedarray._foreign import host_data
>>> x = xp.asarray([1.0, 2.0])
>>> host_data([x, x]).tolist(), x.buffer.host_aliased()
([[1.0, 2.0], [1.0, 2.0]], False)
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

__all__ = ["READING", "host_data"]


class _Reading(threading.local):
    active = False


#: Set, per thread, while the library itself converts foreign data through
#: NumPy (:func:`host_data`): ``UnifiedArray.__array__`` then gives
#: read-only host data (a read, marking nothing), not the writable alias a
#: user's ``np.asarray`` gets.
READING = _Reading()


def host_data(obj: Any, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
    """``np.array(obj, dtype=dtype, copy=copy)`` of foreign data (a nested
    list, an array-like), as a read: UnifiedArrays nested in it are read,
    never taken as writable aliases (see :data:`READING`)."""
    reading = READING
    if reading.active:
        return np.array(obj, dtype=dtype, copy=copy)
    reading.active = True
    try:
        return np.array(obj, dtype=dtype, copy=copy)
    finally:
        reading.active = False
