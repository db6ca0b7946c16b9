"""Exports: the protocols that hand an array's memory to another library.

* ``__array__`` (``np.asarray(x)``): the host copy, synced first if stale
  (counted), as a writable alias of ``x`` on every device, as NumPy users
  expect: a host write handed out through ``UnifiedBuffer.export_host``,
  so the buffer knows while it (or anything derived from it) is alive and
  keeps the host copy authoritative meanwhile (device reads re-sync from
  it, device writes are copied back to it: counted, ``"host alias: ..."``).
  Read-only only for a view NumPy cannot express (a copy of its data;
  ``copy=False`` raises ``ValueError`` there, as NumPy 2's protocol asks).
* ``__dlpack__``: the copy on the array's own device.  A host export is
  the alias ``np.asarray`` gives (writable; the buffer sees it) unless the
  consumer asks for a copy.  A zero-copy device export is a lease (a
  write); while a host alias may be alive it is refused (``copy=False``) or
  a copy (``copy=None``).
* ``__cuda_array_interface__`` / ``__cupy_get_ndarray__``: the CUDA copy.
* ``__mlx_array__``: the MLX copy, as a new handle (MLX's in-place writes
  rebind a handle, so the consumer cannot write into the buffer).

Example
-------
>>> import numpy as np
>>> import unifiedarray as xp
>>> np.from_dlpack(xp.arange(3)).tolist()
[0, 1, 2]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._access import native_on, readonly_host, writable_native
from ._array import UnifiedArray
from ._devices import CPU, MLX
from ._foreign import READING
from .backends import backend_for

__all__ = ["array", "cuda_array_interface", "cupy_get_ndarray", "dlpack", "dlpack_device", "mlx_array"]


def array(x: UnifiedArray, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
    """``x.__array__``: see the module's docstring."""
    if READING.active:
        # The library's own read of foreign data holding x (xp.asarray([x, x])):
        # read-only host data, marking nothing (_foreign.host_data).
        host = readonly_host(x, "__array__")
        return host if dtype is None or np.dtype(dtype) == x.dtype else host.astype(dtype)
    if dtype is not None and np.dtype(dtype) != x.dtype:
        if copy is False:
            raise ValueError("__array__(copy=False) with a different dtype needs a copy")
        return native_on(x, CPU, "__array__").astype(dtype)
    if copy:
        return np.array(native_on(x, CPU, "__array__"), copy=True)
    try:
        # On every device the same: a writable alias whose writes reach x
        # and which sees x's writes (the buffer knows it may be alive).
        return writable_native(x, CPU, "__array__")
    except BufferError as refused:
        # A view NumPy cannot express (a reshape of a strided slice): NumPy 2's
        # protocol asks copy=False to raise where only a copy would do.
        if copy is False:
            raise ValueError(
                "__array__(copy=False): this view of a UnifiedArray is not one block of host memory "
                "(a reshape of a strided view), so it cannot be returned without a copy"
            ) from refused
    view = native_on(x, CPU, "__array__").view()
    view.flags.writeable = False
    return view


def dlpack(
    self: UnifiedArray,
    *,
    stream: Any = None,
    max_version: tuple[int, int] | None = None,
    dl_device: tuple[int, int] | None = None,
    copy: bool | None = None,
) -> Any:
    dev = self.device
    backend = backend_for(dev)
    if max_version is None and self.dtype in backend.dlpack_import_narrows:
        # An unversioned request, as MLX's own functions make first: refused,
        # they take __mlx_array__ (the MLX copy, its dtype) instead of a
        # DLPack import that would narrow the dtype (see docs/interop.md).
        # Not a BufferError: on that, MLX's importer asks again with
        # max_version and narrows the versioned export.
        raise ValueError(
            f"__dlpack__: a {self.dtype} array on {dev} is exported to DLPack 1.x consumers only "
            "(max_version=...); MLX functions take it through __mlx_array__"
        )
    kwargs: dict[str, Any] = {"max_version": max_version, "dl_device": dl_device, "copy": copy}
    versioned = max_version is not None and tuple(max_version) >= (1, 0)
    to_host = dl_device is not None and dl_device[0] == 1 and dev != CPU  # the consumer wants host memory
    if to_host and tuple(dl_device) == tuple(dlpack_device(self)):  # type: ignore[arg-type]
        # Already there (MLX's CPU build lives in host memory): the device's
        # own export, unless the host copy is current and a copy is allowed,
        # which then nothing uploads first.
        to_host = copy is not False and CPU in self.buffer.valid_devices
    if to_host:
        # The consumer wants the data on the CPU: that is a copy.
        if copy is False:
            raise BufferError(f"__dlpack__: data lives on {dev}; a CPU export needs copy=True or None")
        host = np.array(native_on(self, CPU, "__dlpack__"), copy=True)
        return host.__dlpack__(max_version=max_version, copy=False)
    if dev == CPU:
        if not copy:
            try:
                # The alias np.asarray gives: the consumer may write, the buffer sees it.
                alias = writable_native(self, CPU, "__dlpack__")
            except BufferError:
                if copy is False:
                    raise
            else:
                return alias.__dlpack__(stream=stream, **_legacy_safe(kwargs, versioned))
        host = native_on(self, CPU, "__dlpack__")
        return np.array(host, copy=True).__dlpack__(stream=stream, **_legacy_safe(kwargs, versioned))
    if backend.dlpack_exports_copy and copy is not False:
        # Exports that carry no read-only flag (MLX's): a copy keeps the
        # buffer safe from a consumer that writes (MLX's own import copies anyway).
        return backend.export_dlpack(backend.copy(native_on(self, dev, "__dlpack__")), None, {})
    if max_version is not None:
        kwargs["max_version"] = tuple(max_version)  # CuPy declares a tuple
    if copy:
        native = backend.copy(native_on(self, dev, "__dlpack__"))  # on the array's GPU
        # Our copy is exported as it is: CuPy refuses copy=True for a same-
        # device export ("only supported for copy to CPU").
        kwargs["copy"] = None
    else:
        try:
            native = writable_native(self, dev, "__dlpack__")  # zero-copy on CUDA: the consumer may write
        except BufferError:
            if copy is False:
                raise
            # A host alias may be alive (or the view is not one block): copy=None allows a copy.
            native = backend.copy(native_on(self, dev, "__dlpack__"))
            kwargs["copy"] = None
    return backend.export_dlpack(native, stream, kwargs)


def _legacy_safe(kwargs: dict[str, Any], versioned: bool) -> dict[str, Any]:
    """NumPy's exporter takes the 2023.12 keywords; what it exports (our
    alias or our copy) needs no copy of its own."""
    out = dict(kwargs)
    out["copy"] = None
    return out if versioned else {}


def dlpack_device(self: UnifiedArray) -> tuple[int, int]:
    dev = self.device
    if dev == CPU:
        return (1, 0)

    backend = backend_for(dev)

    def native() -> Any:
        # Any copy on dev, current or stale, tells its device; where none is
        # made yet, an empty array there does: asking where data lives
        # moves nothing.
        found = self.buffer.allocated(dev)
        return backend.zeros((0,), self.dtype, dev) if found is None else found

    return backend.dlpack_device(dev, native)


def _cuda_native(self: UnifiedArray, reason: str) -> Any:
    if not backend_for(self.device).cuda_memory:
        raise AttributeError(f"{reason}: this array lives on {self.device}, not on a CUDA device")
    return writable_native(self, self.device, reason)  # a raw pointer goes out: presume a write


def cuda_array_interface(self: UnifiedArray) -> dict[str, Any]:
    """Version 3 of the CUDA Array Interface, from CuPy's own export (made on
    the array's GPU, so its ``stream`` key names that GPU's stream).

    A read, not a write: CuPy, Numba and PyTorch probe for the attribute
    with ``hasattr`` and take it for read-only use, and a probe is not a
    write.  The export says so (the read-only flag in ``data``); to write
    through a raw pointer, take ``__cupy_get_ndarray__()`` (a write) or
    declare the write with ``mark_device_dirty()``."""
    dev = self.device
    backend = backend_for(dev)
    if not backend.cuda_memory:
        raise AttributeError(f"__cuda_array_interface__: this array lives on {dev}, not on a CUDA device")
    return backend.cuda_array_interface(native_on(self, dev, "__cuda_array_interface__"))


def cupy_get_ndarray(self: UnifiedArray) -> Any:
    return _cuda_native(self, "__cupy_get_ndarray__")


def mlx_array(self: UnifiedArray) -> Any:
    native = native_on(self, MLX, "__mlx_array__")
    return backend_for(MLX).detach(native)
