"""``cupy.cuda.runtime`` as the library uses it, over the simulated GPUs."""

from __future__ import annotations

from typing import Any

from .. import _sim
from .._sim import CUDARuntimeError  # noqa: F401  (CuPy's name for runtime errors)

errorMemoryAllocation = 2
errorInvalidDevice = 101
streamLegacy = 1
streamPerThread = 2
memoryTypeUnregistered = 0
memoryTypeHost = 1
memoryTypeDevice = 2
is_hip = False
_is_hip_environment = False


def getDeviceCount() -> int:
    return _sim.N_DEVICES


def getDevice() -> int:
    return _sim.current_device()


def setDevice(index: int) -> None:
    _sim.LOCAL.device = _sim.check_device(index)


def deviceSynchronize() -> None:
    _sim.DEVICES[_sim.current_device()].synchronize()


def streamSynchronize(ptr: int) -> None:
    s = _sim.stream_by_ptr(int(ptr))
    _sim.run_until(s, s.next_seq)


def memGetInfo() -> tuple[int, int]:
    """``(free, total)`` of the current GPU: what its pools have not taken."""
    dev = _sim.DEVICES[_sim.current_device()]
    return _sim.DEVICE_MEMORY - dev.allocated, _sim.DEVICE_MEMORY


def getDeviceProperties(index: int) -> dict[str, Any]:
    i = _sim.check_device(index)
    return {
        "name": f"Simulated CUDA GPU {i}".encode(),
        "major": 8,
        "minor": 0,
        "multiProcessorCount": 1,
        "totalGlobalMem": _sim.DEVICE_MEMORY,
    }


def runtimeGetVersion() -> int:
    return 12080


def driverGetVersion() -> int:
    return 12080


class PointerAttributes:
    def __init__(self, type_: int, device: int, ptr: int) -> None:
        self.type = type_
        self.device = device
        self.devicePointer = ptr if type_ == memoryTypeDevice else 0
        self.hostPointer = ptr if type_ == memoryTypeHost else 0


def pointerGetAttributes(ptr: int) -> PointerAttributes:
    ptr = int(ptr)
    if _sim.pinned_block_at(ptr) is not None:
        return PointerAttributes(memoryTypeHost, -2, ptr)
    found = _sim.device_block_at(ptr)
    if found is not None:
        return PointerAttributes(memoryTypeDevice, found[0].device, ptr)
    return PointerAttributes(memoryTypeUnregistered, -2, ptr)
