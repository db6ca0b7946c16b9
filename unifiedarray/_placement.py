"""Placement: the device a call runs on.

Example
-------
>>> import unifiedarray as xp
>>> from unifiedarray._placement import placement, placement_of
>>> placement(None), placement_of([xp.ones(2)])
(Device('cpu'), Device('cpu'))
"""

from __future__ import annotations

from collections.abc import Sequence

from ._array import UnifiedArray
from ._devices import Device, DeviceLike
from ._policy import choose_device, get_default_device
from .backends import backend_for

__all__ = ["placement", "placement_of"]


def placement(device: DeviceLike | None) -> Device:
    """The device a call without array arguments runs on: ``device`` if
    given (checked: a clear error for a device this machine lacks), else the
    default device."""
    if device is None:
        return get_default_device()
    dev = Device.parse(device)
    backend_for(dev)
    return dev


def placement_of(arrays: Sequence[UnifiedArray], reason: str = "an operation") -> Device:
    """Where an operation on ``arrays`` runs (see :mod:`unifiedarray._policy`)."""
    dev = arrays[0]._buf._placement
    for a in arrays:
        if a._buf._placement is not dev:
            return choose_device(((a._buf._placement, a.nbytes) for a in arrays), reason)
    return dev
