"""Pickling, and the frames it shares with distributed's serializers: an
array's data out as one C-contiguous host frame, and back in.

Pickling keeps dtype, shape, data and device (the host on load where the
device does not exist, with a :class:`DeviceUnavailableWarning`).  With
protocol 5 the data goes out of band as a :class:`pickle.PickleBuffer`,
zero-copy; a device-only chunk keeps no host copy (:func:`host_frame`).

Example
-------
>>> import pickle
>>> import unifiedarray as xp
>>> pickle.loads(pickle.dumps(xp.arange(3))).tolist()
[0, 1, 2]
"""

from __future__ import annotations

import pickle
import warnings
from typing import Any

import numpy as np

from ._access import native_on, readonly_host
from ._array import UnifiedArray, from_buffer
from ._buffer import download_new, upload_new
from ._devices import CPU, Device
from ._results import adopt
from .backends import backend_for, contiguous

__all__ = ["DeviceUnavailableWarning", "host_frame", "host_from_bytes", "reduce_ex", "restore"]


class DeviceUnavailableWarning(RuntimeWarning):
    """A chunk arrived in a process that lacks its device: it was restored
    on the host."""


def host_frame(x: UnifiedArray, reason: str) -> np.ndarray:
    """x's data as a C-contiguous host array, without making a lasting host
    copy of a device-only chunk: the host copy if it is current, the device's
    own memory where the host can read it (MLX's: ``Backend.view_on_host``),
    else a temporary (counted) copy (a CUDA chunk).

    Live memory goes out read-only (the host copy through the buffer's one
    export path, ``UnifiedBuffer.export_host``): a frame is sent, never
    written, and whoever rebuilds an array from it in this process copies it
    (:func:`host_from_bytes`), so no rebuilt array shares x's memory."""
    buf = x.buffer
    dev = buf.placement
    if dev is CPU or CPU in buf.valid_devices:
        host = readonly_host(x, reason)
    else:
        native = native_on(x, dev, reason)
        seen = backend_for(dev).view_on_host(native)
        host = download_new(native, dev, reason) if seen is None else seen
    return contiguous(host)


def restore(host: np.ndarray, device: str, reason: str) -> UnifiedArray:
    """A new array from host data received from elsewhere, on ``device`` if
    this process has it, else on the host with a warning."""
    dev = _device_here(device, reason)
    if dev is CPU:
        return adopt(host, CPU, host.dtype)
    return from_buffer(upload_new(host, dev, reason, explicit=False))


def _device_here(device: str, reason: str) -> Device:
    try:
        dev = Device.parse(device)
        backend_for(dev)
        return dev
    except ValueError as exc:
        warnings.warn(
            f"{reason}: an array placed on {device} arrived in a process without that device ({exc}); "
            f"it is restored on the host (cpu). Place device chunks with dask resources "
            f"(see unifiedarray._dask.DevicePlugin).",
            DeviceUnavailableWarning,
            stacklevel=3,
        )
        return CPU


def host_from_bytes(data: Any, dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    """A host array over received bytes: zero-copy when they are writable
    (bytes received from elsewhere, private to the receiver), else a copy
    (read-only bytes: maybe a live array's frame, in this process)."""
    dt = np.dtype(dtype)
    mv = memoryview(data).cast("B") if not isinstance(data, np.ndarray) else data.view(np.uint8).reshape(-1)
    host = np.frombuffer(mv, dtype=np.uint8)
    if not host.flags.writeable:
        host = host.copy()
    return host.view(dt).reshape(shape) if dt.itemsize else np.empty(shape, dt)


def reduce_ex(x: UnifiedArray, protocol: int) -> tuple:
    """Pickling (``__reduce_ex__``): with protocol 5, the data goes out of
    band as a :class:`pickle.PickleBuffer`, zero-copy, from the same frame
    as :func:`dask_serialize` (so a device-only chunk keeps no host copy);
    with older protocols it is a NumPy array inside the pickle."""
    host = host_frame(x, "pickle")
    device = str(x.device)
    if protocol >= 5 and host.dtype.itemsize:
        # The frame wraps the array itself, not its memoryview: a memoryview
        # of a memoryview (what PickleBuffer.raw() gives for one) crashes
        # CPython 3.11's cycle collector where a cycle holds it (CPython
        # gh-122306, fixed in 3.12.7): NumPy's own frames are so made.
        return (
            _rebuild,
            # (NumPy's stubs give ndarray its buffer protocol from Python 3.12 on)
            (pickle.PickleBuffer(host.reshape(-1).view(np.uint8)), device, host.dtype.str, host.shape),  # type: ignore[arg-type]
        )
    return (_rebuild, (np.array(host, copy=True), device))


def _rebuild(data: Any, device: str, dtype: str | None = None, shape: tuple[int, ...] | None = None) -> UnifiedArray:
    """Unpickle: ``(ndarray, device)`` (older pickles too) or ``(buffer,
    device, dtype, shape)``."""
    # An ndarray (older pickles, protocols < 5) is copied: the pickle may share it.
    host = np.array(data, copy=True) if dtype is None else host_from_bytes(data, dtype, tuple(shape))  # type: ignore[arg-type]
    return restore(host, device, "unpickle")
