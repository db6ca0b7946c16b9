"""Accelerators: which devices this machine has, and their memory.

>>> import unifiedarray as ua
>>> acc = ua.get_accelerator("cpu")
>>> free, total = acc.get_memory_info()
>>> 0 < free <= total
True
"""

from __future__ import annotations

from typing import Any

from ._devices import CPU, Device, DeviceLike
from .backends import all_backends, backend_for

__all__ = ["Accelerator", "get_accelerator", "list_devices"]


class Accelerator:
    """One device, with the facts a user asks about it."""

    def __init__(self, device: Device) -> None:
        self.device = device
        self._backend = backend_for(device)

    @property
    def backend(self) -> str:
        return self._backend.name

    def get_memory_info(self) -> tuple[int, int]:
        """``(free, total)`` bytes of this device's memory."""
        return self._backend.memory_info(self.device)

    @property
    def properties(self) -> dict[str, Any]:
        return self._backend.properties(self.device)

    def synchronize(self) -> None:
        """Wait for the device's outstanding work."""
        self._backend.synchronize(self.device)

    def __repr__(self) -> str:
        return f"Accelerator({str(self.device)!r}, backend={self.backend!r})"


def _best_device() -> Device:
    """The first device of the available backend that
    ``Backend.accelerator_preference`` prefers most (CUDA, then MLX); the
    host where none is preferred at all."""
    ranked = sorted(all_backends(), key=lambda b: -b.accelerator_preference)
    for backend in ranked:
        if backend.accelerator_preference > 0 and backend.available and backend.devices():
            return backend.devices()[0]
    return CPU


def get_accelerator(device: DeviceLike | None = None) -> Accelerator:
    """The accelerator for ``device``; by default the best one present
    (the first CUDA GPU, else MLX, else the host)."""
    return Accelerator(_best_device() if device is None else Device.parse(device))


def list_devices() -> list[dict[str, Any]]:
    """Every device present, with backend, memory and properties."""
    rows = []
    for backend in all_backends():
        if not backend.available:
            continue
        for dev in backend.devices():
            free, total = backend.memory_info(dev)
            rows.append(
                {"device": dev, "backend": backend.name, "free": free, "total": total, **backend.properties(dev)}
            )
    return rows
