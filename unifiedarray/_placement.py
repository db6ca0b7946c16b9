"""Placement: the device a call runs on.

Example
-------
>>> import unifiedarray as xp
>>> from unifiedarray._placement import placement
>>> placement(None), placement(None, [xp.ones(2)])
(Device('cpu'), Device('cpu'))
"""

from __future__ import annotations

from collections.abc import Sequence

from ._array import UnifiedArray
from ._devices import Device, DeviceLike
from ._policy import choose_device, get_default_device
from .backends import backend_for

__all__ = ["placement"]


def placement(device: DeviceLike | None, arrays: Sequence[UnifiedArray] = (), reason: str = "an operation") -> Device:
    """Where a call runs, in the order of :mod:`unifiedarray._policy`:
    ``device`` if given (checked: a clear error for a device this machine
    lacks); else the device of ``arrays`` (on several devices, the one
    :func:`~unifiedarray._policy.choose_device` chooses); else the default
    device.  Every call's placement is decided here (the call path's fast
    path only checks that its arrays are all where the first one is, which
    this function would answer with that device)."""
    if device is not None:
        dev = Device.parse(device)
        backend_for(dev)
        return dev
    if not arrays:
        return get_default_device()
    dev = arrays[0].device
    for a in arrays:
        if a.device is not dev:
            return choose_device(((a.device, a.nbytes) for a in arrays), reason)
    return dev
