"""Streaming batches to a device while the previous batch computes.

>>> import numpy as np
>>> import unifiedarray as xp
>>> batches = (np.full(4, i, dtype=np.float32) for i in range(3))
>>> [float(xp.sum(b)) for b in xp.prefetch(batches, device="cpu")]
[0.0, 4.0, 8.0]
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any

from ._array import UnifiedArray, from_buffer
from ._buffer import UnifiedBuffer, adopt
from ._devices import Device, DeviceLike
from ._foreign import host_data
from ._policy import get_default_device
from .backends import backend_for

__all__ = ["prefetch"]


def prefetch(batches: Iterable[Any], device: DeviceLike | None = None, *, depth: int = 2) -> Iterator[UnifiedArray]:
    """Yield each host batch as a UnifiedArray on ``device``, with up to
    ``depth - 1`` later batches already on their way.

    On CUDA each batch is copied into page-locked host memory and sent with
    ``sync_to_device(blocking=False)``: the copy runs on a copy stream while
    the caller computes on the batch before it (double buffering with
    ``depth=2``).  A batch is yielded once its copy is done, as its device
    copy alone: the page-locked staging memory goes back to CuPy's pinned
    pool for the next batch, so at most ``depth`` batches are pinned at a
    time however many the caller holds.  On the host nothing is pinned (no
    copy is made asynchronously there); on MLX the copies are made in turn.
    Every move is counted in the transfer ledger as explicit.
    """
    if depth < 1:
        raise ValueError("depth must be at least 1")
    dev = get_default_device() if device is None else Device.parse(device)
    pinned = backend_for(dev).pinned_uploads_async  # only CUDA copies asynchronously from page-locked memory
    queue: deque[UnifiedBuffer] = deque()
    for batch in batches:
        host = host_data(batch)  # a read: a UnifiedArray batch is not taken as written
        buf = UnifiedBuffer(host.shape, host.dtype, device=dev, pinned=pinned)
        buf.copy_from(host)
        if not dev.is_host:
            buf.sync_to_device(dev, blocking=False)
        queue.append(buf)
        if len(queue) >= depth:
            yield _ready(queue.popleft(), dev)
    while queue:
        yield _ready(queue.popleft(), dev)


def _ready(buf: UnifiedBuffer, dev: Device) -> UnifiedArray:
    """The batch in ``buf`` as an array, once its copy is done; on CUDA its
    device copy alone (the pinned host copy is let go, back to the pool)."""
    if not buf.pinned:
        return from_buffer(buf)
    buf.sync_to_device(dev)  # waits for the copy in flight; moves nothing more
    return from_buffer(adopt(buf.read(dev), dev, buf.dtype))
