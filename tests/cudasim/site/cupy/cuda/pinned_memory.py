"""``cupy.cuda.pinned_memory``: page-locked host memory from a pool, as
CuPy's ``PinnedMemoryPool`` (size classes, no stream awareness), with its
private watch list (kept because the library used it: it holds objects until
an event is done, released only at the next pinned allocation)."""

from __future__ import annotations

import weakref
from collections import defaultdict
from typing import Any

import numpy as np

from .. import _sim
from .._sim import CUDARuntimeError

_UNIT = 512


class PinnedMemoryPointer:
    """Pinned memory lent by the pool, exposed to NumPy through the array
    interface; back to the pool when the last array on it is gone."""

    def __init__(self, block: _sim.Block, pool: PinnedMemoryPool | None) -> None:
        self._block = block
        self._pool = weakref.ref(pool) if pool is not None else None
        self.ptr = block.ptr
        self.size = block.size
        self.__array_interface__ = {
            "shape": (block.size,),
            "typestr": "|u1",
            "data": (block.ptr, False),
            "version": 3,
        }
        self._raw = block.raw  # keeps the host memory alive

    def __del__(self) -> None:
        pool = self._pool() if self._pool is not None else None
        if pool is not None and _sim.LOCK is not None:  # not late in interpreter shutdown
            pool.free_block(self._block)


class _Watcher:
    def __init__(self) -> None:
        self.events: list[tuple[Any, Any]] = []

    def add(self, event: Any, obj: Any) -> None:
        self.check_and_release()
        if event.done:
            return
        self.events.append((event, obj))

    def check_and_release(self) -> None:
        while self.events and self.events[0][0].done:
            del self.events[0]


_watcher = _Watcher()


def _add_to_watch_list(event: Any, obj: Any) -> None:
    _watcher.add(event, obj)


def _new_pinned(size: int) -> _sim.Block:
    with _sim.LOCK:
        if _sim.PINNED_OOM[0] > 0:
            _sim.PINNED_OOM[0] -= 1
            raise CUDARuntimeError(2, "out of memory (injected)")
        raw = np.zeros(size, np.uint8)
        block = _sim.Block("pinned", -1, raw, raw.ctypes.data)
        _sim.register_pinned(block)
        return block


class PinnedMemoryPool:
    def __init__(self, allocator: Any = None) -> None:
        self._free: dict[int, list[_sim.Block]] = defaultdict(list)
        self._in_use = 0

    def malloc(self, size: int) -> PinnedMemoryPointer:
        size = max(_UNIT, -(-size // _UNIT) * _UNIT)
        size = 1 << (size - 1).bit_length()  # CuPy rounds to a power of two
        with _sim.LOCK:
            free = self._free.get(size)
            if free:
                block = free.pop()
                block.freed = False
            else:
                try:
                    block = _new_pinned(size)
                except CUDARuntimeError as exc:
                    if exc.status != 2:
                        raise
                    self.free_all_blocks()
                    block = _new_pinned(size)
            self._in_use += size
        return PinnedMemoryPointer(block, self)

    def free_block(self, block: _sim.Block) -> None:
        with _sim.LOCK:
            if block.live_pending():
                s, _, m = block.pending[0]
                _sim.hazard(
                    "freed in use",
                    f"{block!r} went back to the pinned pool while a copy {'into' if m == 'w' else 'from'} it "
                    f"is still queued on {s}",
                )
            block.freed = True
            self._in_use -= block.size
            self._free[block.size].append(block)

    def free_all_blocks(self) -> None:
        _watcher.check_and_release()
        with _sim.LOCK:
            for blocks in self._free.values():
                for block in blocks:
                    _sim.unregister_pinned(block)
            self._free.clear()

    def n_free_blocks(self) -> int:
        return sum(len(v) for v in self._free.values())

    def used_bytes(self) -> int:  # not in CuPy: for the tests' checks
        return self._in_use


_default_pool = PinnedMemoryPool()


def get_default_pinned_memory_pool() -> PinnedMemoryPool:
    return _default_pool


def alloc_pinned_memory(size: int) -> PinnedMemoryPointer:
    _watcher.check_and_release()
    return _default_pool.malloc(size)


def set_pinned_memory_allocator(allocator: Any = None) -> None:
    """Accepted and ignored."""
