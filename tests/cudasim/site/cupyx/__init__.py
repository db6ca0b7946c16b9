"""``cupyx`` of the simulated runtime: pinned host arrays, and CuPy's error
state (``errstate(linalg="raise")``: whether the solvers read cuSOLVER's
status at the call; CuPy's default is ``"ignore"``)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
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


_config = threading.local()  # per thread, as CuPy's


def geterr() -> dict[str, Any]:
    return {"divide": None, "over": None, "under": None, "invalid": None, "linalg": getattr(_config, "linalg", "ignore")}


def seterr(*, divide: Any = None, over: Any = None, under: Any = None, invalid: Any = None, linalg: Any = None) -> dict:
    old = geterr()
    if linalg is not None:
        if linalg not in ("ignore", "raise"):
            raise NotImplementedError(f"linalg={linalg!r}")
        _config.linalg = linalg
    return old


@contextlib.contextmanager
def errstate(
    *, divide: Any = None, over: Any = None, under: Any = None, invalid: Any = None, linalg: Any = None
) -> Iterator[None]:
    old = seterr(divide=divide, over=over, under=under, invalid=invalid, linalg=linalg)
    try:
        yield
    finally:
        seterr(**old)
