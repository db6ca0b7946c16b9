"""The CUDA backend: CuPy arrays, one device per GPU (``cuda:N``).

Probing is careful because ``cupy-cuda12x`` installs and imports on machines
without a driver; there the first runtime call raises ``CUDARuntimeError``.
We ask the runtime for the device count and make one tiny allocation inside
the probe, so an unusable CUDA is found here and reported once, and never
half-way through a user's computation.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Optional

import numpy as np

from .._devices import Device
from . import Backend


class CuPyBackend(Backend):
    name = "cupy"
    title = "CUDA (CuPy)"

    def __init__(self) -> None:
        super().__init__()
        self._count = 0

    def _probe(self) -> Optional[str]:
        try:
            import cupy
        except ImportError:
            return "CuPy is not installed (pip install 'unifiedarray[cuda]')"
        except Exception as exc:  # a broken install must not break discovery
            return f"CuPy failed to import: {type(exc).__name__}: {exc}"
        try:
            count = cupy.cuda.runtime.getDeviceCount()
        except Exception as exc:
            return f"CuPy {cupy.__version__} is installed but CUDA is unusable (no driver?): {exc}"
        if count < 1:
            return "CuPy is installed but no CUDA GPU was found"
        try:
            with cupy.cuda.Device(0):
                cupy.zeros(1, dtype=np.float32).get()
        except Exception as exc:
            return f"CuPy found {count} GPU(s) but could not allocate: {type(exc).__name__}: {exc}"
        self._count = count
        return None

    def devices(self) -> list[Device]:
        return [Device("cuda", i) for i in range(self._count)] if self.available else []

    def namespace(self, device: Device) -> ModuleType:
        from ..compute import cuda_namespace

        return cuda_namespace

    def zeros(self, shape: tuple[int, ...], dtype: np.dtype, device: Device, pinned: bool = False) -> Any:
        import cupy

        with cupy.cuda.Device(device.index):
            return cupy.zeros(shape, dtype)

    def upload(self, host: np.ndarray, device: Device, into: Any = None) -> Any:
        import cupy

        with cupy.cuda.Device(device.index):
            if into is None:
                into = cupy.empty(host.shape, host.dtype)
            # ndarray.set is a single host-to-device copy into the existing
            # allocation; it needs a C-contiguous source.
            into.set(np.ascontiguousarray(host))
            return into

    def download(self, native: Any, out: np.ndarray) -> None:
        # Lands directly in the host buffer: no intermediate host array.
        if out.flags.c_contiguous and native.flags.c_contiguous:
            native.get(out=out)
        else:
            np.copyto(out, native.get())

    def is_native(self, obj: Any) -> bool:
        return type(obj).__module__.startswith("cupy") and hasattr(obj, "__cuda_array_interface__")

    def device_of(self, native: Any) -> Device:
        return Device("cuda", native.device.id)

    def memory_info(self, device: Device) -> tuple[int, int]:
        import cupy

        with cupy.cuda.Device(device.index):
            free, total = cupy.cuda.runtime.memGetInfo()
        return int(free), int(total)

    def properties(self, device: Device) -> dict[str, Any]:
        import cupy

        props = cupy.cuda.runtime.getDeviceProperties(device.index)
        name = props.get("name", b"")
        return {
            "name": name.decode() if isinstance(name, bytes) else str(name),
            "compute_capability": f"{props.get('major')}.{props.get('minor')}",
            "multiprocessors": props.get("multiProcessorCount"),
        }

    def synchronize(self, device: Device) -> None:
        import cupy

        with cupy.cuda.Device(device.index):
            cupy.cuda.get_current_stream().synchronize()


def pinned_zeros(shape: tuple[int, ...], dtype: np.dtype) -> Optional[np.ndarray]:
    """A zeroed host array in page-locked memory, or None without CUDA.

    Uses CuPy's pinned memory pool, so repeated pinned allocations are cheap.
    """
    from . import _registry

    if not _registry()["cuda"].available:
        return None
    import cupyx

    out = cupyx.zeros_pinned(shape, dtype)
    return out
