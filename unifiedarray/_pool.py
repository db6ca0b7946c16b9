"""Memory pools: buffers from size-classed blocks, reused after release.

``get_memory_pool()`` returns the process's pool.  ``acquire(shape, dtype)``
returns a new :class:`~unifiedarray.UnifiedBuffer` whose copies are carved
from pooled blocks; ``release(buf)`` gives the blocks back for the next
``acquire`` that fits.  The *memory* is reused, not the buffer object: the
released buffer is dead, and any use of it raises.  A block is reused only
once nothing outside the pool still refers to it (as CuPy's pool frees a
block only when its last array is gone): a view taken from a released buffer
(a read-only handle, say) keeps its block out of circulation until it is
dropped, so an old handle never reads its next owner's data.

Underneath is one block pool per memory space (host, pinned host, each CUDA
device).  Blocks come in 20 power-of-two size classes from 4 KiB to 2 GiB
(the class is the smallest that holds the request); larger requests are
rounded up to 2 MiB and reused only for an exact fit.  Host blocks come from
NumPy, pinned blocks from CuPy's ``PinnedMemoryPool`` and CUDA blocks from
CuPy's ``MemoryPool`` (so CuPy's own caching stays underneath).  MLX arrays
are values with MLX's own allocator cache, so MLX copies are not pooled.

Out of memory (the pool's limit, or the allocator underneath): free the
pooled blocks of that space, collect garbage, retry once, then raise
:class:`OutOfMemoryError` naming device, bytes and the pool's statistics.

Example
-------
>>> import unifiedarray as ua
>>> pool = ua.MemoryPool()
>>> buf = pool.acquire((1000,), dtype="float32")
>>> pool.release(buf)
>>> buf2 = pool.acquire((1000,), dtype="float32")
>>> pool.stats()["hits"]
1
"""

from __future__ import annotations

import gc
import sys
import threading
from collections import defaultdict, deque
from math import prod
from typing import Any

import numpy as np

from ._buffer import UnifiedBuffer, _normalize_shape, pooled
from ._devices import CPU, Device, DeviceLike
from ._dtypes import as_dtype
from .backends import backend_for

__all__ = ["MemoryPool", "OutOfMemoryError", "get_memory_pool", "size_class"]

_MIN_CLASS = 4096
_CLASSES = 20  # 4 KiB .. 2 GiB
_HUGE_ROUND = 2 << 20


class OutOfMemoryError(MemoryError):
    """A pool could not provide the memory asked for, even after freeing its
    cached blocks and collecting garbage."""


# The size class of each request size seen (bounded): a dict lookup is a
# fifth of size_class() on acquire's hot path.
_SIZES: dict[int, int] = {}


def size_class(nbytes: int) -> int:
    """The block size that serves a request of ``nbytes``.

    >>> size_class(1), size_class(4097), size_class(3 << 30) == 3 << 30
    (4096, 8192, True)
    """
    if nbytes <= _MIN_CLASS:
        size = _MIN_CLASS
    else:
        size = 1 << (int(nbytes) - 1).bit_length()
        if size > _MIN_CLASS << (_CLASSES - 1):
            size = -(-int(nbytes) // _HUGE_ROUND) * _HUGE_ROUND
    if len(_SIZES) < 1024:
        _SIZES[nbytes] = size
    return size


class _Block:
    """One pooled block: its memory, and the view of it last lent out.

    The view is kept with the block, so a hit for the same shape and dtype
    lends the same view object again instead of building one (that is a
    third of a hit on the host, more with CuPy's arrays).
    """

    __slots__ = ("event", "memory", "size", "view")

    def __init__(self, memory: Any) -> None:
        self.memory = memory
        self.size: int = memory.nbytes
        self.view: Any = None
        # A released CUDA block: the event that ends the work queued on it
        # (on the stream current at release); its next owner's stream waits
        # for it, as CuPy's own pool reuses a block only on its stream.
        self.event: Any = None

    def lend(self, shape: tuple[int, ...], dtype: np.dtype, nbytes: int) -> Any:
        """A view of the block's memory with ``shape`` and ``dtype``."""
        view = self.view
        if view is None or view.shape != shape or view.dtype is not dtype:
            memory = self.memory
            if type(memory) is np.ndarray:
                # A view whose base is the memory, so the check below sees
                # every view taken from it (NumPy and CuPy point a view of a
                # view at the array that owns the memory).
                view = np.ndarray(shape, dtype, buffer=memory)
            else:
                view = memory[:nbytes].view(dtype).reshape(shape)
            self.view = view
        return view

    def referred_outside(self) -> bool:
        """Whether anything outside the pool still refers to the memory (a
        view kept from its last owner, say): reusing it then would let that
        view read the next owner's data.  As CuPy's pool frees a block only
        when its last array is gone, this counts references."""
        if self.view is None:
            return sys.getrefcount(self.memory) > _REFS_MEMORY
        return sys.getrefcount(self.view) > _REFS_VIEW or sys.getrefcount(self.memory) > _REFS_MEMORY_VIEWED


def _baseline_refs() -> tuple[int, int, int]:
    # The counts referred_outside sees when nothing outside the pool refers
    # to a block, measured the way it measures them (so they hold on any
    # Python version, whatever its reference-counting shortcuts).
    block = _Block(np.empty(8, np.uint8))
    memory_alone = sys.getrefcount(block.memory)
    block.lend((8,), np.dtype(np.uint8), 8)
    return memory_alone, sys.getrefcount(block.view), sys.getrefcount(block.memory)


_REFS_MEMORY, _REFS_VIEW, _REFS_MEMORY_VIEWED = _baseline_refs()


class _SpacePool:
    """The blocks of one memory space: free lists per size class, counts."""

    def __init__(self, device: Device, pinned: bool) -> None:
        self.device = device
        self.pinned = pinned
        self.free: dict[int, deque] = defaultdict(deque)
        self.pooled_bytes = 0
        self.in_use_bytes = 0
        self.requested_bytes = 0
        self.peak_bytes = 0
        self.hits = 0
        self.misses = 0
        self.in_use_by_class: dict[int, int] = defaultdict(int)
        self.limit: int | None = None
        # Released blocks that views from their old owner still refer to,
        # reused once those views are gone.
        self.held: list[_Block] = []
        self.held_bytes = 0

    def reclaim(self) -> int:
        """Move held blocks that nothing outside refers to any more to the
        free lists; returns how many moved."""
        moved = 0
        still = []
        for block in self.held:
            if block.referred_outside():
                still.append(block)
                continue
            self.free[block.size].append(block)
            self.pooled_bytes += block.size
            self.held_bytes -= block.size
            moved += 1
        self.held = still
        return moved

    def new_block(self, size: int) -> Any:
        dev = self.device
        if dev == CPU and not self.pinned:
            return np.empty(size, np.uint8)
        return backend_for(dev).empty_block(dev, size)  # the host's: page-locked

    def trim(self, keep: int = 0) -> int:
        """Free pooled blocks, largest first, until at most ``keep`` bytes
        stay pooled; returns the bytes freed."""
        freed = 0
        for size in sorted(self.free, reverse=True):
            blocks = self.free[size]
            while blocks and self.pooled_bytes > keep:
                blocks.pop()
                self.pooled_bytes -= size
                freed += size
        if freed and (self.device is not CPU or self.pinned):
            # The dropped blocks may have gone back to the backend's own pool
            # (CuPy's keeps them): give them back to the driver too.
            backend_for(self.device).free_cached(self.device, self.pinned)
        return freed

    def stats(self) -> dict[str, Any]:
        classes = sorted(set(self.free) | set(self.in_use_by_class))
        return {
            "hits": self.hits,
            "misses": self.misses,
            "bytes_in_use": self.in_use_bytes,
            "bytes_requested": self.requested_bytes,
            "bytes_pooled": self.pooled_bytes,
            "bytes_held": self.held_bytes,
            "peak_bytes": self.peak_bytes,
            "limit": self.limit,
            "size_classes": {
                c: {"in_use": self.in_use_by_class.get(c, 0), "free": len(self.free.get(c, ()))} for c in classes
            },
        }


class _Allocation:
    """What the pool lent one buffer: its blocks.  Only that buffer refers to
    its allocation, so the allocation dies with it; a buffer dropped without release()
    thereby gives its bytes back to the accounting (not its blocks to reuse:
    views of it may still exist)."""

    __slots__ = ("blocks", "nbytes", "pool")

    def __init__(self, pool: MemoryPool, nbytes: int, blocks: list[tuple[_SpacePool, Any]] | None = None) -> None:
        self.pool = pool
        self.nbytes = nbytes
        self.blocks: list[tuple[_SpacePool, Any]] = [] if blocks is None else blocks  # emptied by release()

    def __del__(self) -> None:
        if self.blocks:
            # Runs whenever the buffer's last reference goes, possibly in the
            # middle of the pool's own bookkeeping in this thread (a garbage
            # collection can start at any allocation), so it only queues what
            # to give back (sizes, not blocks, so the memory is freed now):
            # deque.append is atomic, and the pool settles the queue under
            # its lock when it next needs exact figures.
            dropped = getattr(self.pool, "_dropped", None)  # None late in interpreter shutdown
            if dropped is not None:
                dropped.append((self.nbytes, [(space, block.size) for space, block in self.blocks]))


class MemoryPool:
    """A pool of buffers for every memory space.

    Parameters
    ----------
    trim_threshold:
        Pooled (free) bytes kept per memory space; a release that pools more
        trims the excess.  ``None``: keep everything until :meth:`trim`.
    """

    def __init__(self, *, trim_threshold: int | None = None) -> None:
        # A leaf lock (bookkeeping only): see mlx_evaluation's "Lock order".
        self._lock = threading.RLock()
        self._spaces: dict[tuple[Device, bool], _SpacePool] = {}
        self._acquires = 0
        self._checked: set[tuple[Device, np.dtype]] = set()
        self._dropped: deque = deque()  # see _Allocation.__del__
        self._host: _SpacePool | None = None  # the (CPU, not pinned) space, once made
        self.trim_threshold = trim_threshold

    def _space(self, device: Device, pinned: bool) -> _SpacePool:
        key = (device, pinned and device == CPU)
        space = self._spaces.get(key)
        if space is None:
            space = self._spaces[key] = _SpacePool(*key)
            if key == (CPU, False):
                self._host = space  # the common case, then found without a dict lookup
        return space

    # -- the documented API ----------------------------------------------------
    def acquire(
        self,
        shape: Any,
        dtype: Any = np.float32,
        *,
        device: DeviceLike | None = None,
        pinned: bool = False,
    ) -> UnifiedBuffer:
        """A buffer of ``shape`` and ``dtype`` on ``device`` (default: the
        host), made from a pooled block when one fits.  Its contents are
        unspecified until written (reads see zeros, never an old owner's
        data)."""
        host = self._host
        on_host = device is None or device is CPU or (type(device) is str and device == "cpu")
        if on_host and not pinned and host is not None:
            # The host fast path: a hit on the host, the pool's common case,
            # with the checks of the general path below (dtype, shape) and
            # its accounting, but no device parsing and one lock hold.  A
            # miss, or anything else, takes the general path.
            dt = as_dtype(dtype, CPU)
            shape = _normalize_shape(shape)
            nbytes = prod(shape) * dt.itemsize
            size = _SIZES.get(nbytes) or size_class(nbytes)
            block = None
            lock = self._lock
            lock.acquire()  # acquire/release: cheaper than `with` on the hot path
            try:
                free = host.free.get(size)
                if free:
                    if self._dropped:
                        self._settle()  # exact figures for the peak below
                    block = free.pop()
                    host.pooled_bytes -= size
                    host.hits += 1
                    host.in_use_bytes += size
                    host.requested_bytes += nbytes
                    host.in_use_by_class[size] += 1
                    if host.in_use_bytes > host.peak_bytes:
                        host.peak_bytes = host.in_use_bytes
                    self._acquires += 1
            finally:
                lock.release()
            if block is not None:
                view = block.lend(shape, dt, nbytes)
                return pooled(view, shape, dt, CPU, False, _Allocation(self, nbytes, [(host, block)]))
        dev = CPU if device is None else Device.parse(device)
        dt = as_dtype(dtype, dev)
        if dev is not CPU:  # the host holds every dtype
            key = (dev, dt)
            if key not in self._checked:
                backend_for(dev).check_dtype(dt, dev, "MemoryPool.acquire")
                self._checked.add(key)
        shape = _normalize_shape(shape)
        nbytes = prod(shape) * dt.itemsize
        allocation = _Allocation(self, nbytes)
        self._acquires += 1
        pinned = bool(pinned)
        if backend_for(dev).poolable:
            # Take the placement's block now, so that acquire is where a hit
            # or a miss happens; the copy stays uninitialised until used
            # (no copy is valid); its first use, on whatever stream, follows
            # the last owner's work.
            view, after = self._lend(allocation, dev, pinned, shape, dt, nbytes)
            return pooled(view, shape, dt, dev, pinned, allocation, after)
        return pooled(None, shape, dt, dev, pinned, allocation)

    def release(self, buf: UnifiedBuffer) -> None:
        """Return ``buf``'s memory to the pool.  ``buf`` is dead afterwards:
        any use of it raises ``RuntimeError``."""
        if not isinstance(buf, UnifiedBuffer):
            raise TypeError(f"release expects a UnifiedBuffer, got {type(buf).__name__}")
        allocation = buf.pool_allocation
        if allocation is None or allocation.pool is not self:
            raise ValueError("release: this buffer does not come from this pool")
        with buf.lock:
            buf.retire()  # the event recorded below then ends all the work on the blocks
            blocks, allocation.blocks = allocation.blocks, []
        nbytes = allocation.nbytes
        for space, block in blocks:
            if space.device is not CPU:
                # Work queued on the device (kernels on CUDA's current stream)
                # may still use the block: its next owner (maybe on another
                # stream) waits for this event (None where nothing is queued).
                block.event = backend_for(space.device).record_event(space.device)
        with self._lock:
            for space, block in blocks:
                size = block.size
                space.in_use_bytes -= size
                space.requested_bytes -= nbytes
                space.in_use_by_class[size] -= 1
                if block.referred_outside():
                    space.held.append(block)
                    space.held_bytes += size
                    continue
                space.free[size].append(block)
                space.pooled_bytes += size
                if self.trim_threshold is not None and space.pooled_bytes > self.trim_threshold:
                    space.trim(self.trim_threshold)

    def _settle(self) -> None:
        """Take the buffers dropped without release() out of the accounting
        (see _Allocation.__del__).  Called under the pool's lock."""
        dropped = self._dropped
        while dropped:
            nbytes, sizes = dropped.popleft()
            for space, size in sizes:
                space.in_use_bytes -= size
                space.requested_bytes -= nbytes
                space.in_use_by_class[size] -= 1

    def stats(self, device: DeviceLike | None = None) -> dict[str, Any]:
        """Acquires, hits, misses, hit rate, bytes in use and pooled, peak,
        per size class, and fragmentation (the share of in-use block bytes
        that rounding to size classes wastes), over all spaces or one."""
        with self._lock:
            self._settle()
            spaces = [s for (d, _), s in self._spaces.items() if device is None or d == Device.parse(device)]
            for s in spaces:
                s.reclaim()  # so that bytes_held counts only blocks still referred to
            per = {f"{s.device}{' (pinned)' if s.pinned else ''}": s.stats() for s in spaces}
            hits = sum(s.hits for s in spaces)
            misses = sum(s.misses for s in spaces)
            in_use = sum(s.in_use_bytes for s in spaces)
            requested = sum(s.requested_bytes for s in spaces)
            return {
                "acquires": self._acquires,
                "hits": hits,
                "misses": misses,
                "hit_rate": hits / (hits + misses) if hits + misses else 0.0,
                "bytes_in_use": in_use,
                "bytes_pooled": sum(s.pooled_bytes for s in spaces),
                "bytes_held": sum(s.held_bytes for s in spaces),
                "peak_bytes": sum(s.peak_bytes for s in spaces),
                "fragmentation": 1.0 - requested / in_use if in_use else 0.0,
                "spaces": per,
            }

    def set_limit(
        self, nbytes: int | None = None, *, fraction: float | None = None, device: DeviceLike = "cpu"
    ) -> None:
        """Cap the bytes (in use plus pooled) of ``device``'s space, in bytes
        or as a fraction of the device's total memory; ``None`` lifts it."""
        dev = Device.parse(device)
        if fraction is not None:
            if not 0 < fraction <= 1:
                raise ValueError("fraction must be in (0, 1]")
            nbytes = int(backend_for(dev).memory_info(dev)[1] * fraction)
        with self._lock:
            for pinned in (False, True):
                self._space(dev, pinned).limit = nbytes

    def trim(self, keep: int = 0, *, device: DeviceLike | None = None) -> int:
        """Free pooled blocks until at most ``keep`` bytes stay pooled per
        space; returns the bytes freed."""
        with self._lock:
            self._settle()
            spaces = [s for (d, _), s in self._spaces.items() if device is None or d == Device.parse(device)]
            for s in spaces:
                s.reclaim()  # held blocks whose views are gone can be freed too
            return sum(s.trim(keep) for s in spaces)

    # -- used by UnifiedBuffer ----------------------------------------------------------
    def allocate_copy(self, buf: UnifiedBuffer, dev: Device, zero: bool) -> Any:
        """A pooled copy of ``buf`` on ``dev`` (one the buffer makes after
        acquire: a copy on another device, made when it is first synced),
        zeroed with ``zero`` (by its backend: CUDA's on the block's GPU)."""
        allocation = buf.pool_allocation
        view, after = self._lend(allocation, dev, buf.pinned, buf.shape, buf.dtype, allocation.nbytes)
        buf.follow_event(dev, after, now=True)  # the copy is used now, on the current stream
        if zero:
            view = backend_for(dev).fill(view, 0)
        return view

    def _lend(
        self, allocation: _Allocation, dev: Device, pinned: bool, shape: tuple[int, ...], dtype: np.dtype, nbytes: int
    ) -> tuple[Any, Any]:
        """Take a block for ``allocation`` on ``dev`` (a pooled one if one fits);
        a view of it, and the event that ends its last owner's work (a
        reused CUDA block), which every use of it must follow, else None."""
        size = _SIZES.get(nbytes) or size_class(nbytes)
        after = None
        with self._lock:
            if self._dropped:
                self._settle()  # exact figures for the peak below
            space = self._host if dev is CPU and not pinned and self._host else self._space(dev, pinned)
            free = space.free.get(size)
            if not free and space.held and space.reclaim():
                free = space.free.get(size)
            if free:
                block = free.pop()
                space.pooled_bytes -= size
                space.hits += 1
                after, block.event = block.event, None
            else:
                block = _Block(self._new_block(space, size, nbytes))
                space.misses += 1
            space.in_use_bytes += size
            space.requested_bytes += nbytes
            space.in_use_by_class[size] += 1
            if space.in_use_bytes > space.peak_bytes:
                space.peak_bytes = space.in_use_bytes
        allocation.blocks.append((space, block))
        return block.lend(shape, dtype, nbytes), after

    def _new_block(self, space: _SpacePool, size: int, nbytes: int) -> Any:
        self._settle()  # a miss checks the limit, which needs exact figures
        for attempt in (0, 1):
            # Held blocks count against the limit: their memory is still taken.
            taken = space.in_use_bytes + space.held_bytes
            over = space.limit is not None and taken + space.pooled_bytes + size > space.limit
            if over:
                space.trim(max(0, space.limit - taken - size))  # type: ignore[operator]
                over = taken + space.pooled_bytes + size > space.limit  # type: ignore[operator]
            if not over:
                try:
                    return space.new_block(size)
                except Exception as exc:
                    if not _is_oom(exc):
                        raise
            # Free what the pool caches and what Python still holds, once.
            space.trim(0)
            if attempt == 0 and (space.pinned or space.device is not CPU):
                # A dropped buffer's asynchronous copy may still hold a block.
                backend_for(space.device).finish_copies_in_flight()
            if attempt == 0:
                self._lock.release()
                try:
                    gc.collect()
                finally:
                    self._lock.acquire()
                self._settle()  # buffers that were only garbage are gone now ...
                space.reclaim()  # ... and so are views that were
                space.trim(0)
        raise OutOfMemoryError(
            f"out of memory on {space.device}{' (pinned)' if space.pinned else ''}: asked for {nbytes} bytes "
            f"(block {size}); limit={space.limit}, in use={space.in_use_bytes}, pooled={space.pooled_bytes}; "
            f"stats={space.stats()}"
        )


def _is_oom(exc: BaseException) -> bool:
    # CuPy's device OutOfMemoryError is a MemoryError; its pinned pool lets
    # cudaErrorMemoryAllocation (2) through as a CUDARuntimeError.
    if isinstance(exc, MemoryError) or type(exc).__name__ == "OutOfMemoryError":
        return True
    return type(exc).__name__ == "CUDARuntimeError" and getattr(exc, "status", None) == 2


_default_pool: MemoryPool | None = None
_default_lock = threading.Lock()


def get_memory_pool() -> MemoryPool:
    """The process's memory pool.

    >>> import unifiedarray as ua
    >>> ua.get_memory_pool() is ua.get_memory_pool()
    True
    """
    global _default_pool
    if _default_pool is None:
        with _default_lock:
            if _default_pool is None:
                _default_pool = MemoryPool()
    return _default_pool
