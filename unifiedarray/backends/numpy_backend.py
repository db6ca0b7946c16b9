"""The host backend: NumPy arrays in main memory."""

from __future__ import annotations

import platform
from types import ModuleType
from typing import Any, ClassVar

import array_api_compat.numpy as compat_numpy
import numpy as np

from .._devices import CPU, Device
from . import cupy_backend
from ._base import Backend, RandomSource, host_memory_info
from .cupy_backend import pinned_zeros


class NumPyBackend(Backend):
    name = "numpy"
    title = "host (NumPy)"
    kind = "cpu"
    device_aliases = ("host", "numpy")
    poolable = True

    def _probe(self) -> str | None:
        return None

    def devices(self) -> list[Device]:
        return [CPU]

    def namespace(self, device: Device) -> ModuleType:
        """array-api-compat's NumPy namespace."""
        return compat_numpy

    def random_source(self, device: Device, seed: np.random.SeedSequence) -> RandomSource:
        """NumPy's own ``Generator`` on PCG64, as ``np.random.default_rng(seed)``
        makes it: the host draws NumPy's numbers for the same seed."""
        return NumPySource(seed)

    def zeros(self, shape: tuple[int, ...], dtype: np.dtype, device: Device, pinned: bool = False) -> np.ndarray:
        if pinned:
            out = pinned_zeros(shape, dtype)
            if out is not None:
                return out
        return np.zeros(shape, dtype)

    def upload(self, host: np.ndarray, device: Device, into: Any = None) -> np.ndarray:
        if into is not None:
            np.copyto(into, host)
            return into
        return np.array(host, copy=True)

    def download(self, native: np.ndarray, out: np.ndarray) -> None:
        np.copyto(out, native)

    def element(self, native: np.ndarray) -> Any:
        return native.item()

    def is_native(self, obj: Any) -> bool:
        return isinstance(obj, np.ndarray)

    def device_of(self, native: Any) -> Device:
        return CPU

    def memory_info(self, device: Device) -> tuple[int, int]:
        return host_memory_info()

    def properties(self, device: Device) -> dict[str, Any]:
        return {"name": platform.processor() or platform.machine(), "numpy": np.__version__}

    def aliases(self, a: Any, b: Any) -> bool:
        return bool(np.may_share_memory(a, b))

    # Page-locked host memory is CUDA's (the CUDA backend makes and frees it).
    def is_pinned(self, host: np.ndarray) -> bool:
        return cupy_backend.BACKEND.available and cupy_backend.BACKEND.is_pinned(host)

    def empty_block(self, device: Device, size: int) -> Any:
        """A page-locked host block (a pool's pinned space), from CUDA."""
        return cupy_backend.BACKEND.empty_block(device, size)

    def free_cached(self, device: Device, pinned: bool) -> None:
        if pinned and cupy_backend.BACKEND.available:
            cupy_backend.BACKEND.free_cached(device, pinned)

    def finish_copies_in_flight(self) -> None:
        """CUDA's copies from page-locked host memory still in flight."""
        if cupy_backend.BACKEND.available:
            cupy_backend.BACKEND.finish_copies_in_flight()


#: The host backend (the registry registers it).
BACKEND = NumPyBackend()


class NumPySource(RandomSource):
    """NumPy's ``Generator(PCG64(seed))``: every method drawn by NumPy, so a
    seed gives ``np.random.default_rng(seed)``'s numbers."""

    methods: ClassVar[dict[str, frozenset[np.dtype] | None]] = dict.fromkeys(
        name for name in dir(np.random.Generator) if not name.startswith("_") and name not in ("bit_generator", "spawn")
    )

    def __init__(self, seed: np.random.SeedSequence) -> None:
        self.generator = np.random.Generator(np.random.PCG64(seed))

    def draw(self, method: str, size: tuple[int, ...] | None, dtype: np.dtype | None, params: dict[str, Any]) -> Any:
        if size is not None:
            params = {**params, "size": size}
        if dtype is not None:
            params = {**params, "dtype": dtype}
        return getattr(self.generator, method)(**params)

    def next_key(self) -> int:
        return int(self.generator.integers(0, 2**64, dtype=np.uint64))
