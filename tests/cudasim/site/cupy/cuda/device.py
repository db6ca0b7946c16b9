"""``cupy.cuda.Device``: a context manager that makes a GPU current for this
thread (CuPy keeps the current device per thread, as CUDA does)."""

from __future__ import annotations

from typing import Any

from .. import _sim


class Device:
    """``Device(i)``; ``Device()`` is the current one."""

    __module__ = "cupy.cuda.device"

    def __init__(self, device: Any = None) -> None:
        if device is None:
            self.id = _sim.current_device()
        else:
            self.id = _sim.check_device(int(device))
        self._prev: list[int] = []

    def __enter__(self) -> Device:
        self._prev.append(_sim.current_device())
        _sim.LOCAL.device = self.id
        return self

    def __exit__(self, *exc: Any) -> None:
        _sim.LOCAL.device = self._prev.pop()

    def use(self) -> None:
        _sim.LOCAL.device = self.id

    def synchronize(self) -> None:
        """Every stream's work on this GPU (cudaDeviceSynchronize)."""
        _sim.DEVICES[self.id].synchronize()

    @property
    def compute_capability(self) -> str:
        return "80"

    def __int__(self) -> int:
        return self.id

    __index__ = __int__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self) -> int:
        return hash(("cuda", self.id))

    def __repr__(self) -> str:
        return f"<CUDA Device {self.id}>"


def get_device_id() -> int:
    return _sim.current_device()
