"""Current data and access: an array's data on a device, synced first.

Every read of an array's data goes through :func:`native_on` (synced if
stale, a counted move; a view's chain applied); a fast path asks
:func:`host_current` or :func:`host_native` whether the host copy may be
read directly; exports that may write take :func:`writable_native` (a
lease of the buffer's copy: counted as a write), read-only exports
:func:`readonly_host`.

Example
-------
>>> import unifiedarray as xp
>>> from unifiedarray._access import native_on
>>> from unifiedarray._devices import CPU
>>> native_on(xp.arange(3)[1:], CPU, "example").tolist()
[1, 2]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _views as views
from ._array import UnifiedArray
from ._devices import CPU, Device
from ._resolve import resolve
from .backends import backend_for

__all__ = ["host_current", "host_native", "native_on", "readonly_host", "writable_native"]


def native_on(x: UnifiedArray, dev: Device, reason: str) -> Any:
    """``x``'s data as a native array of ``dev``, its buffer synced first if
    stale (a counted move) and any move in flight waited for.  For a view,
    the view's chain is applied."""
    if dev is CPU:
        host = host_native(x)  # current on the host, nothing in flight: what native() would give
        if host is not None:
            return host
    base = x.buffer.native(dev, reason)
    chain = x.chain
    if chain is None:
        return base
    if dev is CPU:
        view = x.host_view
        if view is None:
            view = views.follow(resolve(CPU, ""), base, chain)
            if views.real_views(chain) or (view.size and np.may_share_memory(view, base)):
                x.host_view = view  # a real view of base, which is never replaced (a reshape may copy)
        return view
    with backend_for(dev).compute_context(dev):  # MLX's slices are graph nodes: on the library's stream
        return views.follow(resolve(dev, ""), base, chain)


def readonly_host(x: UnifiedArray, reason: str) -> np.ndarray:
    """x's host data, read-only, for a read or an export that must not be
    written (``x.to_numpy()``, pickle and distributed frames): a read that
    marks nothing, ``UnifiedBuffer.export_host``'s read-only view with x's
    view chain applied (a copy where NumPy cannot express the view, also
    read-only)."""
    base = x.buffer.export_host(reason, writable=False)
    if x.chain is None:
        return base
    view = views.follow(resolve(CPU, ""), base, x.chain)
    view.flags.writeable = False  # also where the chain had to copy
    return view


def host_current(x: UnifiedArray) -> Any:
    """The host copy of a whole host-placed array, if it is current and no
    move is in flight (what a fast path may read directly); else None.
    Every fast path asks this one question.  A lone result on the host
    answers with its copy, and keeps no buffer (see
    :attr:`UnifiedArray.buffer`)."""
    buf = x.buffer_made
    if buf is None:
        # (None where another thread made its buffer since: then the caller
        # takes its way through the buffer)
        return x.lone_copy if x.lone_device_dtype[0] is CPU else None
    return buf.host_ready if x.chain is None else None


def host_native(x: UnifiedArray) -> Any:
    """What :func:`host_current` gives, for views too: the host copy of a
    whole array, or the NumPy view a view keeps of it (see ``UnifiedArray.host_view``),
    if x is placed on the host, current there, nothing in flight; else None
    (the operators' fast path asks the same, inlined)."""
    buf = x.buffer_made
    if buf is None:  # a lone result: see host_current
        return x.lone_copy if x.lone_device_dtype[0] is CPU else None
    host = buf.host_ready
    if host is None or x.chain is None:
        return host
    return x.host_view


def writable_native(x: UnifiedArray, dev: Device, reason: str) -> Any:
    """A writable native array over x's data on ``dev`` (a lease: counted as
    a write), for consumers that may write (a raw pointer, a DLPack capsule,
    ``np.asarray``).  On the host, a view of the buffer's exported host copy
    (``UnifiedBuffer.export_host``: the buffer sees every alias derived
    from it).  Raises ``BufferError`` where a link cannot be a view of that
    memory (a reshape of a strided slice), since writes to a copy would be
    lost, and for a device while a host alias may be alive."""
    buf, chain = x.buffer, x.chain
    ns = resolve(dev, "")
    with buf.lock:
        if chain is None:
            return buf.lease(dev, reason)
        # Check on the current copy first, so that a refusal marks nothing.
        base = buf.native(dev, reason)
        view = views.follow(ns, base, chain)
        if view.size and not _memory_overlaps(view, base, dev):
            raise BufferError(
                f"{reason}: this view's data ({chain[-1]!r} of a strided view) is not one block of "
                f"memory on {dev}; export a copy instead (copy=True)"
            )
        return views.follow(ns, buf.lease(dev, reason), chain)


def _memory_overlaps(a: Any, b: Any, dev: Device) -> bool:
    """Whether native ``a`` lies in ``b``'s memory."""
    return backend_for(dev).shares_memory(a, b)
