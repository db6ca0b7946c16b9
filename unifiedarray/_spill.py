"""Per-device memory limits, and what the library does under them.

``set_device_memory_limit("mlx", "2 GiB")`` caps the bytes that buffers may
hold in device copies on that device.  When a new device copy would go over
the cap, the library makes room, least recently used copies first:

1. it **drops** device copies whose host copy is current (free: nothing
   moves, the data is still on the host and comes back on the next read);
2. then it **spills** device-only copies to the host: each spill is a move,
   recorded in the transfer ledger with reason ``"spill"`` (an explicit move:
   the user asked for it by setting the limit), after which the device copy
   is dropped.

A copy is *used* when it is made on the device (allocated, moved in, or
adopted as an operation's result) and when it is read there through a view
(:func:`touch`, from :func:`unifiedarray._views.follow`): each chunk of
``da.from_array(parent)`` is a view that reads the whole parent's copy, so
the parent stays while the chunks are computed and the chunk results, read
once, go first.  A whole array's read of a copy already current is not seen
(the read paths stay as they are; the views' path checks the buffer's hook,
nothing more, without a limit).

A copy larger than the limit on its own is still made: the limit bounds what
the library keeps, it does not refuse work.  While it is *in use* (used
since fewer than the limit's worth of bytes of other copies were made: the
time any copy the limit can hold would have stayed) it stays, and the limit
bounds the other copies: the device holds at most the limit plus that one
copy.  Once not in use, it goes first.  Empty copies (dask's metadata
arrays) are not counted.

Skipped, never waited for: a buffer in use by another thread at that moment;
buffers from a memory pool (their blocks stay allocated until ``release``);
a copy lent as a live lease (the writable handle ``buf.mlx`` gives, while
something outside the buffer holds it), whose writes must keep reaching the
array; once nothing holds the handle, it goes as any other.  Data stays correct
throughout: a dropped or spilled copy is a stale copy, and the next read on
the device moves it back, counted.

Threads.  The tracker's lock is a leaf lock (the library's order: buffer
locks, then MLX's evaluation lock, then leaf locks): held only around its
own bookkeeping, never while calling into a buffer to evict or while
evaluating, since another thread may hold the evaluation lock and wait for
it to note a result.  Victims are chosen under it and marked as being
evicted, then evicted outside it (an eviction only tries a buffer's lock,
never waits for it); two threads evicting at once evict different copies, a
copy's bytes leave the usage only once it is gone, and a copy made again
while it was being evicted stays counted.

Without a limit nothing here runs: the buffer's hook is ``None``.

Example
-------
>>> import unifiedarray as xp
>>> from unifiedarray._spill import set_device_memory_limit, get_device_memory_limit
>>> set_device_memory_limit("cpu", "1 GiB")
Traceback (most recent call last):
...
ValueError: set_device_memory_limit: the host has no device copies to limit; give a device ('mlx', 'cuda:N')
>>> get_device_memory_limit("mlx") is None
True
"""

from __future__ import annotations

import re
import threading
import weakref
from collections import OrderedDict
from functools import partial
from typing import Any

from . import _buffer
from ._devices import CPU, Device, DeviceLike
from .backends import backend_for

__all__ = ["device_memory_usage", "get_device_memory_limit", "parse_bytes", "set_device_memory_limit"]

_UNITS = {
    "": 1,
    "b": 1,
    "k": 10**3,
    "kb": 10**3,
    "m": 10**6,
    "mb": 10**6,
    "g": 10**9,
    "gb": 10**9,
    "t": 10**12,
    "tb": 10**12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
}


def parse_bytes(value: int | str) -> int:
    """A byte count from an int or a string such as ``"512 MiB"`` or ``"2GB"``.

    >>> parse_bytes("2 GiB"), parse_bytes("1.5kB"), parse_bytes(10)
    (2147483648, 1500, 10)
    """
    if isinstance(value, bool):
        raise TypeError("a memory limit is a byte count or a string like '2 GiB', not a bool")
    if isinstance(value, int):
        n = value
    elif isinstance(value, str):
        m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([a-zA-Z]*)\s*", value)
        if m is None or m.group(2).lower() not in _UNITS:
            raise ValueError(f"cannot read a byte count from {value!r} (examples: 1000000, '512 MiB', '2 GB')")
        n = int(float(m.group(1)) * _UNITS[m.group(2).lower()])
    else:
        raise TypeError(f"a memory limit is a byte count or a string like '2 GiB', not {type(value).__name__}")
    if n < 0:
        raise ValueError(f"a memory limit cannot be negative ({value!r})")
    return n


class _Entry:
    """One buffer's copy on a limited device, as the tracker counts it."""

    __slots__ = ("evicting", "native", "nbytes", "notes", "ref", "used_at")

    def __init__(self, ref: weakref.ref, nbytes: int) -> None:
        self.ref = ref
        self.nbytes = nbytes
        self.used_at = 0  # the tracker's clock at the copy's last use
        self.notes = 0  # how many times the copy was made (an eviction in flight checks it)
        self.native: int | None = None  # id() of the copy as last seen, for the views' reads (touch)
        self.evicting = False  # a thread is evicting it now, outside the lock


class _Tracker:
    """The copies one limited device holds, least recently used first.

    Its lock is a leaf lock: held only around its own bookkeeping, never
    while calling into a buffer or evaluating (another thread may hold the
    evaluation lock and wait for it, to note a result).  Victims are chosen
    under it and marked as being evicted; they are evicted outside it, and
    their bytes leave ``used`` only once the copy is gone."""

    def __init__(self, device: Device, limit: int) -> None:
        self.device = device
        self.limit = limit
        self.used = 0  # bytes of the copies counted (those being evicted included)
        self.evicting = 0  # bytes of the copies being evicted now
        self.clock = 0  # bytes of the copies made so far: the time a use is dated in
        self.copies: OrderedDict[int, _Entry] = OrderedDict()
        self.big: set[int] = set()  # the keys of the copies larger than the limit
        self.natives: dict[int, int] = {}  # id() of a copy -> its buffer's key (see touch)
        self.lock = threading.RLock()  # re-entrant: a buffer's weakref callback may run while it is held

    def gone(self, key: int, ref: weakref.ref) -> None:
        # The buffer was collected: its copies went with it.
        with self.lock:
            entry = self.copies.get(key)
            if entry is not None and entry.ref is ref:
                self._forget(key)

    def note(self, buf: Any) -> None:
        """``buf`` has just made (or remade) a copy on this device: a use."""
        nbytes = buf.nbytes
        if not nbytes:
            return  # an empty copy holds nothing (dask's metadata arrays): not counted
        key = id(buf)
        native = buf.current(self.device)  # the copy (for touch), where it is current: no lock taken
        with self.lock:
            self.clock += nbytes
            entry = self.copies.get(key)
            if entry is None or entry.ref() is not buf:
                if entry is not None:  # a dead buffer's id, reused before its callback ran
                    self._forget(key)
                entry = self.copies[key] = _Entry(weakref.ref(buf, partial(_gone, weakref.ref(self), key)), nbytes)
                self.used += nbytes
                if nbytes > self.limit:
                    self.big.add(key)
            else:
                self.copies.move_to_end(key)
            entry.notes += 1
            entry.used_at = self.clock
            if native is not None and entry.native != id(native):
                if entry.native is not None and self.natives.get(entry.native) == key:
                    del self.natives[entry.native]
                entry.native = id(native)
                self.natives[entry.native] = key
            if self.used - self.evicting <= self.limit:
                return
        self.make_room(buf)

    def touch(self, native: Any) -> None:
        """``native`` was read through a view: if it is a tracked buffer's
        copy, that copy was used now (it moves to the end of the order)."""
        key = self.natives.get(id(native))
        if key is None:
            return
        entry = self.copies.get(key)
        if entry is None:
            return
        buf = entry.ref()
        if buf is None or (buf.current(self.device) is not native and buf.allocated(self.device) is not native):
            return  # an id reused: another array
        with self.lock:
            if self.copies.get(key) is entry:
                entry.used_at = self.clock
                self.copies.move_to_end(key)

    def _forget(self, key: int) -> None:
        entry = self.copies.pop(key, None)
        if entry is not None:
            self.used -= entry.nbytes
            self.big.discard(key)
            if entry.native is not None and self.natives.get(entry.native) == key:
                del self.natives[entry.native]

    def set_limit(self, limit: int) -> None:
        with self.lock:
            self.limit = limit
            self.big = {key for key, entry in self.copies.items() if entry.nbytes > limit}

    def _oversized(self) -> tuple[_Entry | None, list[int]]:
        """The copy larger than the limit that is in use, if any, and the
        keys of those that are not (they go first: each alone is over the
        limit).  In use: the most recently used one, used since fewer than
        ``limit`` bytes of copies were made (the time any copy the limit can
        hold would have stayed).  The chunks of ``da.from_array(parent)``
        each read the parent's copy: it stays while they are computed."""
        if not self.big:
            return None, []
        entries = sorted(((self.copies[k], k) for k in self.big), key=lambda e: e[0].used_at)
        entry, _ = entries[-1]
        if entry.evicting or self.clock - entry.used_at >= self.limit:
            return None, [k for _, k in entries]
        return entry, [k for _, k in entries[:-1]]

    def _choose(self, keep: Any, spill: bool, tried: set[int]) -> list[tuple[int, _Entry, Any]] | None:
        """Under the lock: victims, least recently used first, enough to bring
        the copies within the limit (counting those other threads are
        evicting as gone), each marked as being evicted; None where the
        copies are within it."""
        big, unused = self._oversized()
        excess = self.used - self.evicting - self.limit - (0 if big is None else big.nbytes)
        if excess <= 0:
            return None
        victims: list[tuple[int, _Entry, Any]] = []
        # An unused copy larger than the limit first: it alone is over it.
        for key, entry in [*((k, self.copies[k]) for k in unused), *self.copies.items()]:
            if excess <= 0:
                break
            if entry.evicting or entry is big or key in tried:  # (evicting: also chosen just before)
                continue
            buf = entry.ref()
            if buf is None or buf is keep:
                continue
            if not spill:  # the first pass drops only what the host holds (reads two fields, takes no lock)
                valid = buf.valid_devices
                if self.device in valid and CPU not in valid:
                    continue
            entry.evicting = True
            self.evicting += entry.nbytes
            excess -= entry.nbytes
            victims.append((key, entry, buf))
        return victims

    def make_room(self, keep: Any) -> None:
        """Evict until the copies are within the limit (or nothing more can
        go now): pass 1 drops copies the host already holds (free), pass 2
        spills.  Called with no lock of the tracker's held."""
        tried: set[int] = set()
        for spill in (False, True):
            while True:
                with self.lock:
                    victims = self._choose(keep, spill, tried)
                if victims is None:
                    return
                if not victims:
                    break
                self._evict(victims, spill, tried)
            tried.clear()

    def _evict(self, victims: list[tuple[int, _Entry, Any]], spill: bool, tried: set[int]) -> None:
        """Outside the lock: drop each victim's copy on this device (spilling
        it first when the host copy is stale and ``spill``), then settle its
        entry, even where an eviction raised."""
        try:
            while victims:
                key, _, buf = victims[0]
                tried.add(key)
                buf.drop_copy(self.device, spill)  # False where it cannot be done now: the copy stays
                self._settle(victims.pop(0))
        finally:
            for victim in victims:
                self._settle(victim)

    def _settle(self, victim: tuple[int, _Entry, Any]) -> None:
        key, entry, buf = victim
        notes = entry.notes  # read before the copy is looked for: a copy made after, it notes itself again
        held = self.device in buf.allocated_devices
        with self.lock:
            entry.evicting = False
            self.evicting -= entry.nbytes
            if not held and entry.notes == notes and self.copies.get(key) is entry:
                self._forget(key)


def _gone(tracker_ref: weakref.ref, key: int, ref: weakref.ref) -> None:
    tracker = tracker_ref()  # a limit removed since: nothing to update
    if tracker is not None:
        tracker.gone(key, ref)


_TRACKERS: dict[Device, _Tracker] = {}
_LOCK = threading.Lock()


def _on_device_copy(buf: Any, dev: Device) -> None:
    """The buffer's hook: called where a device copy is made."""
    tracker = _TRACKERS.get(dev)
    if tracker is not None:
        tracker.note(buf)


def touch(native: Any) -> None:
    """``native``, a buffer's copy, was read through a view (called by
    :func:`unifiedarray._views.follow` while a limit is set): a use, which
    keeps the copy on its device ahead of copies not used since.  A view's
    read is the read that matters: each chunk of ``da.from_array(parent)`` is
    a view that reads the whole parent's copy."""
    for tracker in tuple(_TRACKERS.values()):
        tracker.touch(native)


def set_device_memory_limit(device: DeviceLike, limit: int | str | None) -> None:
    """Cap the bytes of device copies on ``device`` (``None`` removes the cap).

    Over the cap the library first drops device copies whose host copy is
    current, then spills the oldest device-only copies to the host (ledger
    reason ``"spill"``), so a workload larger than the device completes.

    Example
    -------
    >>> import unifiedarray as xp
    >>> from unifiedarray._spill import set_device_memory_limit
    >>> set_device_memory_limit("mlx", "64 MiB")
    >>> set_device_memory_limit("mlx", None)
    """
    dev = Device.parse(device)
    if dev == CPU:
        raise ValueError(
            "set_device_memory_limit: the host has no device copies to limit; give a device ('mlx', 'cuda:N')"
        )
    lowered = None
    with _LOCK:
        if limit is None:
            _TRACKERS.pop(dev, None)
        else:
            n = parse_bytes(limit)
            backend_for(dev)  # a clear error for a device this machine lacks
            tracker = _TRACKERS.get(dev)
            if tracker is None:
                # Copies made before the limit are not known; only new ones count.
                _TRACKERS[dev] = _Tracker(dev, n)
            else:
                tracker.set_limit(n)
                lowered = tracker
        _buffer.set_device_copy_hook(_on_device_copy if _TRACKERS else None)
    if lowered is not None:
        lowered.make_room(None)  # with no lock held: evicting evaluates


def get_device_memory_limit(device: DeviceLike) -> int | None:
    """The cap set on ``device`` in bytes, or ``None``."""
    tracker = _TRACKERS.get(Device.parse(device))
    return None if tracker is None else tracker.limit


def device_memory_usage(device: DeviceLike) -> int | None:
    """Bytes of device copies the limit on ``device`` counts now (``None``
    without a limit)."""
    tracker = _TRACKERS.get(Device.parse(device))
    return None if tracker is None else tracker.used
