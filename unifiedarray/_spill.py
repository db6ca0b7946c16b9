"""Per-device memory limits, and what the library does under them.

``set_device_memory_limit("mlx", "2 GiB")`` caps the bytes that buffers may
hold in device copies on that device.  When a new device copy would go over
the cap, the library makes room, oldest copies first:

1. it **drops** device copies whose host copy is current (free: nothing
   moves, the data is still on the host and comes back on the next read);
2. then it **spills** device-only copies to the host: each spill is a move,
   recorded in the transfer ledger with reason ``"spill"`` (an explicit move:
   the user asked for it by setting the limit), after which the device copy
   is dropped.

"Oldest" is the order in which copies were last made on the device (allocated,
moved in, or adopted as an operation's result); reading a copy that is
already current does not reorder it (the read path stays untouched).  A
buffer in use by another thread at that moment is skipped, never waited for.
Buffers from a memory pool are not evicted (their blocks stay allocated until
``release``).  A single copy larger than the limit is still made (after everything else
was evicted): the limit bounds what the library keeps, it does not refuse
work.  Data stays correct throughout: a dropped or spilled copy is a stale
copy, and the next read on the device moves it back, counted.

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


class _Tracker:
    """The copies one limited device holds: buffer -> bytes, oldest first."""

    def __init__(self, device: Device, limit: int) -> None:
        self.device = device
        self.limit = limit
        self.used = 0
        self.copies: OrderedDict[int, tuple[weakref.ref, int]] = OrderedDict()
        self.lock = threading.RLock()

    def gone(self, key: int) -> None:
        # The buffer was collected: its copies went with it.
        with self.lock:
            entry = self.copies.pop(key, None)
            if entry is not None:
                self.used -= entry[1]

    def note(self, buf: Any) -> None:
        """``buf`` has just made (or remade) a copy on this device."""
        key = id(buf)
        nbytes = buf.nbytes
        with self.lock:
            entry = self.copies.get(key)
            if entry is not None and entry[0]() is buf:
                self.copies.move_to_end(key)
                return
            if entry is not None:  # a dead buffer's id, reused before its callback ran
                self.used -= entry[1]
            self.copies[key] = (weakref.ref(buf, partial(_gone, weakref.ref(self), key)), nbytes)
            self.used += nbytes
            if self.used > self.limit:
                self.make_room(buf)

    def _forget(self, key: int) -> None:
        entry = self.copies.pop(key, None)
        if entry is not None:
            self.used -= entry[1]

    def make_room(self, keep: Any) -> None:
        # Pass 1 drops copies the host already holds (free); pass 2 spills.
        for spill in (False, True):
            for key, (ref, _) in list(self.copies.items()):
                if self.used <= self.limit:
                    return
                buf = ref()
                if buf is None or buf is keep:
                    continue
                if self._evict(buf, spill):
                    self._forget(key)

    def _evict(self, buf: Any, spill: bool) -> bool:
        """Drop ``buf``'s copy on this device (spilling it first when the host
        copy is stale and ``spill``); False if it cannot be done now."""
        return bool(buf.drop_copy(self.device, spill))


def _gone(tracker_ref: weakref.ref, key: int, _: Any) -> None:
    tracker = tracker_ref()  # a limit removed since: nothing to update
    if tracker is not None:
        tracker.gone(key)


_TRACKERS: dict[Device, _Tracker] = {}
_LOCK = threading.Lock()


def _on_device_copy(buf: Any, dev: Device) -> None:
    """The buffer's hook: called where a device copy is made."""
    tracker = _TRACKERS.get(dev)
    if tracker is not None:
        tracker.note(buf)


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
                with tracker.lock:
                    tracker.limit = n
                    if tracker.used > n:
                        tracker.make_room(None)
        _buffer.set_device_copy_hook(_on_device_copy if _TRACKERS else None)


def get_device_memory_limit(device: DeviceLike) -> int | None:
    """The cap set on ``device`` in bytes, or ``None``."""
    tracker = _TRACKERS.get(Device.parse(device))
    return None if tracker is None else tracker.limit


def device_memory_usage(device: DeviceLike) -> int | None:
    """Bytes of device copies the limit on ``device`` counts now (``None``
    without a limit)."""
    tracker = _TRACKERS.get(Device.parse(device))
    return None if tracker is None else tracker.used
