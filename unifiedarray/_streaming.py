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

import numpy as np

from ._array import UnifiedArray
from ._buffer import UnifiedBuffer
from ._devices import Device, DeviceLike
from ._policy import get_default_device

__all__ = ["prefetch"]


def prefetch(batches: Iterable[Any], device: DeviceLike | None = None, *, depth: int = 2) -> Iterator[UnifiedArray]:
    """Yield each host batch as a UnifiedArray on ``device``, with up to
    ``depth - 1`` later batches already on their way.

    Each batch is copied into a pinned host buffer and sent with
    ``sync_to_device(blocking=False)``: on CUDA the copy runs on the stream
    while the caller computes on the batch before it (double buffering with
    ``depth=2``).  Without CUDA the copies are made in turn; the code is the
    same.  Every move is counted in the transfer ledger as explicit.
    """
    if depth < 1:
        raise ValueError("depth must be at least 1")
    dev = get_default_device() if device is None else Device.parse(device)
    queue: deque[UnifiedBuffer] = deque()
    for batch in batches:
        host = np.asarray(batch)
        buf = UnifiedBuffer(host.shape, host.dtype, device=dev, pinned=True)
        buf.copy_from(host)
        if not dev.is_host:
            buf.sync_to_device(dev, blocking=False)
        queue.append(buf)
        if len(queue) >= depth:
            yield UnifiedArray._from_buffer(queue.popleft())
    while queue:
        yield UnifiedArray._from_buffer(queue.popleft())
