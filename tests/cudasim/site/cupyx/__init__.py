"""``cupyx`` of the simulated runtime: pinned host arrays."""

from __future__ import annotations

from math import prod
from typing import Any

import numpy as np
from cupy.cuda.pinned_memory import alloc_pinned_memory


def empty_pinned(shape: Any, dtype: Any = float, order: str = "C") -> np.ndarray:
    """A NumPy array in page-locked memory from CuPy's pinned pool; the
    memory goes back to the pool when the array (and its views) are gone."""
    shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(shape)
    dt = np.dtype(dtype)
    nbytes = prod(shape) * dt.itemsize
    mem = alloc_pinned_memory(nbytes)
    raw = np.asarray(mem)  # its base is the pointer object, which frees the memory
    return np.ndarray(shape, dt, buffer=raw, order=order)


def zeros_pinned(shape: Any, dtype: Any = float, order: str = "C") -> np.ndarray:
    out = empty_pinned(shape, dtype, order)
    out.fill(0)
    return out
