"""``cupy.cuda`` of the simulated runtime."""

from __future__ import annotations

from . import device, memory, pinned_memory, runtime, stream  # noqa: F401
from .device import Device, get_device_id  # noqa: F401
from .memory import (  # noqa: F401
    MemoryPointer,
    MemoryPool,
    OutOfMemoryError,
    PooledMemory,
    UnownedMemory,
    alloc,
    set_allocator,
)
from .pinned_memory import PinnedMemoryPointer, PinnedMemoryPool, alloc_pinned_memory  # noqa: F401
from .stream import Event, ExternalStream, Stream, get_current_stream, get_elapsed_time  # noqa: F401


def is_available() -> bool:
    return True
