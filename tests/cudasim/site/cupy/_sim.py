"""The simulated CUDA runtime's state: devices, streams, events, memory, and
the hazard log.

The model (what a real GPU guarantees and no more):

* Every piece of device work (a kernel, a copy, a fill) is an *op* queued on
  a stream.  An op runs only when something forces it: its stream is
  synchronised, an event recorded after it is synchronised, a later op on a
  stream that waits for it runs, or the host reads through a blocking copy.
  So a value is visible only where CUDA's ordering says it must be.
* Each stream keeps a vector clock: for every other stream, the last op of
  that stream its future work is ordered after (through ``wait_event``, or
  the legacy default stream's implicit synchronisation with blocking
  streams; a stream made with ``non_blocking=True`` never synchronises with
  the default stream, either way).  An access to a block of memory while an op on another stream
  that writes it (or, for a write, reads it) is still queued and not
  ordered before is a *hazard*: on a GPU the two race.
* Also hazards: an array of one GPU used with a stream of another (a CUDA
  Array Interface consumed whose ``stream`` resolves, with the consumer's
  GPU current, to a stream of another GPU than the data's included), memory
  used after it was freed, device memory freed while another stream's work
  on it is queued, pinned host memory returned to its pool (or written by
  the host) while a copy from or into it is queued.

Every hazard is appended to :data:`HAZARDS`; the tests' fixture fails a test
that logged any.  The runtime is one lock: simulated GPUs run one op at a
time, which keeps the simulation deterministic.
"""

from __future__ import annotations

import bisect
import itertools
import os
import threading
import weakref
from collections import deque
from typing import Any, Callable

import numpy as np

N_DEVICES = int(os.environ.get("CUDASIM_DEVICES", "2"))
DEVICE_MEMORY = int(os.environ.get("CUDASIM_DEVICE_MEMORY", str(2 << 30)))
GARBAGE = 0x7F  # new device memory holds this byte pattern: CuPy's empty() is not zeroed
#: queued ops per stream before the simulated GPU catches up by itself
MAX_QUEUE = 4096

LOCK = threading.RLock()
HAZARDS: list[str] = []
_ids = itertools.count(0x1000)


def hazard(kind: str, message: str) -> None:
    HAZARDS.append(f"{kind}: {message}")


class CUDARuntimeError(RuntimeError):
    """As CuPy's ``cupy_backends.cuda.api.runtime.CUDARuntimeError``."""

    def __init__(self, status: int, message: str = "") -> None:
        self.status = status
        super().__init__(f"{_ERROR_NAMES.get(status, 'cudaError')}: {message}")


_ERROR_NAMES = {2: "cudaErrorMemoryAllocation", 101: "cudaErrorInvalidDevice", 400: "cudaErrorInvalidResourceHandle"}


class OutOfMemoryError(MemoryError):
    """As ``cupy.cuda.memory.OutOfMemoryError`` (a MemoryError)."""

    def __init__(self, size: int, total: int, limit: int) -> None:
        super().__init__(f"Out of memory allocating {size:,} bytes (allocated so far: {total:,} bytes, limit {limit:,}).")


# -- threads: the current device, the current stream per device ------------------------------


class _Local(threading.local):
    def __init__(self) -> None:
        self.device = 0
        self.streams: dict[int, list] = {}


LOCAL = _Local()


def check_device(index: Any) -> int:
    i = int(index)
    if not 0 <= i < N_DEVICES:
        raise CUDARuntimeError(101, f"invalid device ordinal {i}")
    return i


def current_device() -> int:
    return LOCAL.device


# -- streams and events -------------------------------------------------------------------------


class Op:
    __slots__ = ("accesses", "deps", "fn", "seq", "what")

    def __init__(self, seq: int, fn: Callable[[], None] | None, deps: list, accesses: list, what: str) -> None:
        self.seq = seq
        self.fn = fn
        self.deps = deps
        self.accesses = accesses
        self.what = what


class StreamState:
    """One simulated CUDA stream's queue and clock."""

    def __init__(self, device: int, *, null: bool = False, blocking: bool = True) -> None:
        self.device = device
        self.null = null
        self.blocking = blocking
        self.ptr = 0 if null else next(_ids)
        self.queue: deque[Op] = deque()
        self.next_seq = 0  # the last op queued
        self.done_seq = 0  # the last op run
        self.clock: dict[StreamState, int] = {}
        self.name = f"cuda:{device} {'null stream' if null else f'stream {self.ptr:#x}'}"

    def __repr__(self) -> str:
        return self.name

    def ordered_after(self, other: StreamState, seq: int) -> bool:
        return other is self or other.done_seq >= seq or self.clock.get(other, 0) >= seq

    def merge(self, other: StreamState, seq: int, clock: dict) -> None:
        for s, k in clock.items():
            if s is not self and self.clock.get(s, 0) < k:
                self.clock[s] = k
        if other is not self and self.clock.get(other, 0) < seq:
            self.clock[other] = seq


class Device:
    """A simulated GPU: its streams and its memory."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.null = StreamState(index, null=True)
        self.streams: weakref.WeakSet[StreamState] = weakref.WeakSet()
        self.streams.add(self.null)
        self.pool: Any = None  # the default MemoryPool's pool for this device (set by memory.py)
        self.allocated = 0  # bytes of device memory taken (pooled or in use)
        self.oom: int = 0  # allocations still to fail (out-of-memory injection)

    def synchronize(self) -> None:
        with LOCK:
            for s in list(self.streams):
                run_until(s, s.next_seq)


DEVICES = [Device(i) for i in range(N_DEVICES)]
STREAMS_BY_PTR: weakref.WeakValueDictionary[int, StreamState] = weakref.WeakValueDictionary()


def new_stream(device: int, blocking: bool) -> StreamState:
    s = StreamState(device, blocking=blocking)
    with LOCK:
        DEVICES[device].streams.add(s)
        STREAMS_BY_PTR[s.ptr] = s
    return s


def current_stream_state(device: int | None = None) -> StreamState:
    dev = LOCAL.device if device is None else device
    stack = LOCAL.streams.get(dev)
    if stack:
        return stack[-1]._state
    return DEVICES[dev].null


def stream_by_ptr(ptr: int) -> StreamState:
    if ptr in (0, 1, 2):  # the legacy and per-thread default streams
        return DEVICES[LOCAL.device].null
    s = STREAMS_BY_PTR.get(ptr)
    if s is None:
        raise CUDARuntimeError(400, f"no stream {ptr:#x}")
    return s


def run_until(stream: StreamState, seq: int) -> None:
    """Run ``stream``'s queued ops up to ``seq`` (and what they wait for)."""
    with LOCK:
        while stream.done_seq < seq and stream.queue:
            op = stream.queue.popleft()
            for other, k in op.deps:
                run_until(other, k)
            if op.fn is not None:
                op.fn()
            stream.done_seq = op.seq


def enqueue(
    stream: StreamState,
    fn: Callable[[], None] | None,
    accesses: list[tuple[Any, str]] = (),  # type: ignore[assignment]
    what: str = "op",
    deps: list | None = None,
) -> int:
    """Queue ``fn`` on ``stream`` after checking its memory ``accesses``
    (``(block, "r" | "w")``) for hazards.  Returns the op's sequence number."""
    with LOCK:
        deps = list(deps or ())
        dev = DEVICES[stream.device]
        # The legacy default stream and blocking streams synchronise with
        # each other implicitly (CUDA's legacy default stream semantics).
        if stream.null:
            for other in list(dev.streams):
                if other is not stream and other.blocking and other.next_seq > other.done_seq:
                    deps.append((other, other.next_seq))
                    stream.merge(other, other.next_seq, other.clock)
        elif stream.blocking and dev.null.next_seq > dev.null.done_seq:
            deps.append((dev.null, dev.null.next_seq))
            stream.merge(dev.null, dev.null.next_seq, dev.null.clock)
        for block, mode in accesses:
            block.check(stream, mode, what)
        seq = stream.next_seq = stream.next_seq + 1
        for block, mode in accesses:
            block.pending.append((stream, seq, "r" if mode == "pr" else mode))
        stream.queue.append(Op(seq, fn, deps, accesses, what))
        if len(stream.queue) > MAX_QUEUE:
            run_until(stream, seq - MAX_QUEUE // 2)
        return seq


def synchronize_all() -> None:
    with LOCK:
        for dev in DEVICES:
            dev.synchronize()


class EventState:
    def __init__(self) -> None:
        self.stream: StreamState | None = None
        self.seq = 0
        self.clock: dict = {}

    def record(self, stream: StreamState) -> None:
        with LOCK:
            self.stream = stream
            self.seq = stream.next_seq
            self.clock = dict(stream.clock)

    @property
    def done(self) -> bool:
        return self.stream is None or self.stream.done_seq >= self.seq

    def synchronize(self) -> None:
        if self.stream is not None:
            run_until(self.stream, self.seq)

    def wait_on(self, waiter: StreamState) -> None:
        """``waiter``'s future work runs after this event."""
        with LOCK:
            src = self.stream
            if src is None or self.done:
                return
            waiter.merge(src, self.seq, self.clock)
            enqueue(waiter, None, (), "wait_event", deps=[(src, self.seq)])


# -- memory -------------------------------------------------------------------------------------


class Block:
    """A piece of simulated memory (device or pinned host) and the queued
    work that uses it."""

    __slots__ = ("__weakref__", "device", "freed", "kind", "pending", "ptr", "raw", "size", "stream")

    def __init__(self, kind: str, device: int, raw: np.ndarray, ptr: int) -> None:
        self.kind = kind  # "device" or "pinned"
        self.device = device
        self.raw = raw
        self.size = raw.nbytes
        self.ptr = ptr
        self.freed = False
        self.pending: list[tuple[StreamState, int, str]] = []
        self.stream: StreamState | None = None  # the stream it was allocated on (device blocks)

    def __repr__(self) -> str:
        where = f"cuda:{self.device}" if self.kind == "device" else "pinned host memory"
        return f"{self.size}-byte block {self.ptr:#x} on {where}"

    def live_pending(self) -> list[tuple[StreamState, int, str]]:
        self.pending = [p for p in self.pending if p[0].done_seq < p[1]]
        return self.pending

    def settled(self) -> bool:
        """No queued write: its contents now are what every later op sees."""
        return not any(m == "w" for _, _, m in self.live_pending())

    def check(self, stream: StreamState, mode: str, what: str) -> None:
        if self.freed:
            hazard("use after free", f"{what} on {stream} used {self!r} after it was freed")
        if mode == "pr":  # a peer copy reads another GPU's memory legitimately
            mode = "r"
        elif self.kind == "device" and self.device != stream.device:
            hazard(
                "wrong device",
                f"{what} on {stream} used {self!r}: an array of cuda:{self.device} with a stream of "
                f"cuda:{stream.device} (not ordered after that GPU's work)",
            )
        for other, seq, m in self.live_pending():
            if other is stream or (mode == "r" and m == "r") or stream.ordered_after(other, seq):
                continue
            hazard(
                "unordered access",
                f"{what} on {stream} {'writes' if mode == 'w' else 'reads'} {self!r} while a "
                f"{'write' if m == 'w' else 'read'} queued on {other} is not waited for",
            )
            return


# device pointers: each GPU's addresses in their own range
_DEVICE_BASE = 0x7F0000000000
_next_ptr = [_DEVICE_BASE + (i << 36) for i in range(N_DEVICES)]
DEVICE_BLOCKS: dict[int, Block] = {}  # ptr -> block (live or pooled)
_device_ptrs: list[int] = []


def new_device_block(device: int, size: int) -> Block:
    with LOCK:
        dev = DEVICES[device]
        if dev.oom > 0:
            dev.oom -= 1
            raise OutOfMemoryError(size, dev.allocated, DEVICE_MEMORY)
        if dev.allocated + size > DEVICE_MEMORY:
            raise OutOfMemoryError(size, dev.allocated, DEVICE_MEMORY)
        raw = np.full(size, GARBAGE, np.uint8)
        ptr = _next_ptr[device]
        _next_ptr[device] += max(size, 512) + 512
        block = Block("device", device, raw, ptr)
        dev.allocated += size
        DEVICE_BLOCKS[ptr] = block
        bisect.insort(_device_ptrs, ptr)
        return block


def drop_device_block(block: Block) -> None:
    with LOCK:
        DEVICES[block.device].allocated -= block.size
        DEVICE_BLOCKS.pop(block.ptr, None)
        i = bisect.bisect_left(_device_ptrs, block.ptr)
        if i < len(_device_ptrs) and _device_ptrs[i] == block.ptr:
            del _device_ptrs[i]


def device_block_at(ptr: int) -> tuple[Block, int] | None:
    """The device block holding address ``ptr`` and the offset in it."""
    with LOCK:
        i = bisect.bisect_right(_device_ptrs, ptr) - 1
        if i < 0:
            return None
        block = DEVICE_BLOCKS[_device_ptrs[i]]
        if ptr < block.ptr + max(block.size, 1):
            return block, ptr - block.ptr
        return None


# pinned host memory: address ranges of the page-locked allocations
PINNED: dict[int, Block] = {}  # host address -> block
_pinned_addrs: list[int] = []
PINNED_OOM = [0]


def register_pinned(block: Block) -> None:
    with LOCK:
        PINNED[block.ptr] = block
        bisect.insort(_pinned_addrs, block.ptr)


def unregister_pinned(block: Block) -> None:
    with LOCK:
        PINNED.pop(block.ptr, None)
        i = bisect.bisect_left(_pinned_addrs, block.ptr)
        if i < len(_pinned_addrs) and _pinned_addrs[i] == block.ptr:
            del _pinned_addrs[i]


def pinned_block_at(addr: int) -> Block | None:
    with LOCK:
        i = bisect.bisect_right(_pinned_addrs, addr) - 1
        if i < 0:
            return None
        block = PINNED[_pinned_addrs[i]]
        return block if addr < block.ptr + block.size else None


def host_blocks(host: np.ndarray) -> list[Block]:
    """The pinned block under a host array (empty for pageable memory)."""
    if host.size == 0:
        return []
    b = pinned_block_at(host.ctypes.data)
    return [b] if b is not None else []


# -- the test-facing API ------------------------------------------------------------------------


def hazards() -> list[str]:
    """The hazards logged so far."""
    return list(HAZARDS)


def clear_hazards() -> None:
    HAZARDS.clear()


def inject_oom(device: int = 0, count: int = 1, *, pinned: bool = False) -> None:
    """Make the next ``count`` allocations of new memory on ``device`` (or of
    pinned host memory) fail as out of memory."""
    with LOCK:
        if pinned:
            PINNED_OOM[0] = count
        else:
            DEVICES[device].oom = count


def pending_ops() -> int:
    """Ops queued and not yet run, over every stream of every GPU."""
    with LOCK:
        return sum(len(s.queue) for d in DEVICES for s in list(d.streams))
