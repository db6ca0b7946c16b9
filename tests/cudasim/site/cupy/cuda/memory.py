"""``cupy.cuda.memory``: device memory from a stream-aware pool per GPU, as
CuPy's ``MemoryPool`` (blocks are reused only on the stream that freed them;
the pool's methods act on the current GPU's pool)."""

from __future__ import annotations

import gc
import weakref
from collections import defaultdict
from typing import Any

from .. import _sim
from .._sim import OutOfMemoryError  # noqa: F401  (CuPy's name)

_UNIT = 512


class Memory:
    """Device memory that some arrays share (``BaseMemory``)."""

    block: _sim.Block | None

    @property
    def ptr(self) -> int:
        return 0 if self.block is None else self.block.ptr

    @property
    def size(self) -> int:
        return 0 if self.block is None else self.block.size


class PooledMemory(Memory):
    """A block lent by a pool; back to the pool's free list of its stream
    when the last array on it is gone."""

    def __init__(self, block: _sim.Block, pool: _SingleDevicePool, size: int) -> None:
        self.block = block
        self.device_id = block.device
        self._pool = weakref.ref(pool)
        self._size = size

    def free(self) -> None:
        pool = self._pool()
        block, self.block = self.block, None
        if pool is not None and block is not None:
            pool.free(block, self._size)

    def __del__(self) -> None:
        if _sim.LOCK is not None:  # not late in interpreter shutdown
            self.free()


class UnownedMemory(Memory):
    """Memory some other object owns (``UnownedMemory(ptr, size, owner)``);
    the owner is kept alive, and a pointer into freed memory is a hazard on
    every use."""

    def __init__(self, ptr: int, size: int, owner: Any, device_id: int = -1) -> None:
        found = _sim.device_block_at(int(ptr))
        if found is None:
            raise ValueError(f"{ptr:#x} is not a simulated device pointer")
        self.block, self.offset = found
        self.device_id = self.block.device
        self._owner = owner
        if self.block.freed:
            _sim.hazard("use after free", f"a pointer into {self.block!r} was imported after the block was freed")


class MemoryPointer:
    """A pointer into ``mem`` (``mem.ptr + offset``)."""

    def __init__(self, mem: Memory, offset: int) -> None:
        self.mem = mem
        self.offset = offset

    @property
    def ptr(self) -> int:
        return self.mem.ptr + self.offset if self.mem.block is not None else 0

    @property
    def device_id(self) -> int:
        return self.mem.device_id

    @property
    def device(self) -> Any:
        from .device import Device

        return Device(self.device_id)

    def __int__(self) -> int:
        return self.ptr


class _SingleDevicePool:
    def __init__(self, device: int) -> None:
        self.device = device
        self.free_lists: dict[tuple[_sim.StreamState, int], list[_sim.Block]] = defaultdict(list)
        self.used = 0
        self.total = 0
        self.limit = 0  # 0: none

    def malloc(self, nbytes: int) -> PooledMemory:
        size = max(_UNIT, -(-nbytes // _UNIT) * _UNIT)
        stream = _sim.current_stream_state(self.device)
        with _sim.LOCK:
            free = self.free_lists.get((stream, size))
            if free:
                block = free.pop()
                block.freed = False
            else:
                block = self._new(size)
                block.stream = stream
            self.used += size
        return PooledMemory(block, self, size)

    def _new(self, size: int) -> _sim.Block:
        for attempt in range(3):
            try:
                if self.limit and self.total + size > self.limit:
                    raise OutOfMemoryError(size, self.total, self.limit)
                block = _sim.new_device_block(self.device, size)
                self.total += size
                return block
            except OutOfMemoryError:
                if attempt == 2:
                    raise
                # A GPU would have run the queued work long ago, and CuPy's
                # freed blocks with it: the queued ops hold their operands.
                _sim.synchronize_all()
                self.free_all_blocks()
                if attempt == 1:
                    gc.collect()
                    self.free_all_blocks()
        raise AssertionError("unreachable")

    def free(self, block: _sim.Block, size: int) -> None:
        with _sim.LOCK:
            home = block.stream
            for other, seq, _ in block.live_pending():
                if home is not None and other is not home and not home.ordered_after(other, seq):
                    _sim.hazard(
                        "freed in use",
                        f"{block!r} went back to the pool of {home} while work queued on {other} still uses it",
                    )
                    break
            block.freed = True
            self.used -= size
            self.free_lists[(home, size)].append(block)  # type: ignore[index]

    def free_all_blocks(self, stream: Any = None) -> None:
        with _sim.LOCK:
            for key in list(self.free_lists):
                if stream is not None and key[0] is not stream._state:
                    continue
                for block in self.free_lists.pop(key):
                    self.total -= block.size
                    _sim.drop_device_block(block)

    def n_free_blocks(self) -> int:
        return sum(len(v) for v in self.free_lists.values())


class MemoryPool:
    """One pool per GPU; each method acts on the current GPU's pool."""

    def __init__(self, allocator: Any = None) -> None:
        self._pools = [_SingleDevicePool(i) for i in range(_sim.N_DEVICES)]

    def _pool(self) -> _SingleDevicePool:
        return self._pools[_sim.current_device()]

    def malloc(self, size: int) -> MemoryPointer:
        return MemoryPointer(self._pool().malloc(size), 0)

    def free_all_blocks(self, stream: Any = None) -> None:
        self._pool().free_all_blocks(stream)

    def free_all_free(self) -> None:
        self.free_all_blocks()

    def n_free_blocks(self) -> int:
        return self._pool().n_free_blocks()

    def used_bytes(self) -> int:
        return self._pool().used

    def total_bytes(self) -> int:
        return self._pool().total

    def free_bytes(self) -> int:
        p = self._pool()
        return p.total - p.used

    def set_limit(self, size: int | None = None, fraction: float | None = None) -> None:
        if fraction is not None:
            size = int(_sim.DEVICE_MEMORY * fraction)
        self._pool().limit = int(size or 0)

    def get_limit(self) -> int:
        return self._pool().limit


_default_pool = MemoryPool()


def get_default_memory_pool() -> MemoryPool:
    return _default_pool


def alloc(size: int) -> MemoryPointer:
    return _default_pool.malloc(size)


def set_allocator(allocator: Any = None) -> None:
    """Accepted and ignored: the simulation always allocates from its pool."""
