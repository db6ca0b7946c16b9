"""``__array_namespace_info__()``: what the namespace supports, per device.

>>> import unifiedarray as xp
>>> info = xp.__array_namespace_info__()
>>> info.default_dtypes(device="cpu")["real floating"]
dtype('float64')
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._devices import Device, DeviceLike
from ._dtypes import default_complex, default_float
from ._policy import get_default_device
from .backends import all_backends, backend_for

_ALL = {
    "bool": np.dtype("bool"),
    "int8": np.dtype("int8"), "int16": np.dtype("int16"), "int32": np.dtype("int32"), "int64": np.dtype("int64"),
    "uint8": np.dtype("uint8"), "uint16": np.dtype("uint16"),
    "uint32": np.dtype("uint32"), "uint64": np.dtype("uint64"),
    "float32": np.dtype("float32"), "float64": np.dtype("float64"),
    "complex64": np.dtype("complex64"), "complex128": np.dtype("complex128"),
}  # fmt: skip

_KINDS = {
    "bool": ("b",),
    "signed integer": ("i",),
    "unsigned integer": ("u",),
    "integral": ("i", "u"),
    "real floating": ("f",),
    "complex floating": ("c",),
    "numeric": ("i", "u", "f", "c"),
}


class Info:
    """The object ``__array_namespace_info__()`` returns."""

    __module__ = "unifiedarray"

    def capabilities(self) -> dict[str, Any]:
        """Optional features: boolean indexing and data-dependent shapes are
        supported on every device (MLX computes those on the host, counted)."""
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}

    def default_device(self) -> Device:
        """The device new arrays go to when nothing else decides."""
        return get_default_device()

    def devices(self) -> tuple[Device, ...]:
        """Every device present on this machine."""
        return tuple(d for b in all_backends() if b.available for d in b.devices())

    def _device(self, device: DeviceLike | None) -> Device:
        dev = get_default_device() if device is None else Device.parse(device)
        backend_for(dev)
        return dev

    def default_dtypes(self, *, device: DeviceLike | None = None) -> dict[str, np.dtype]:
        """Default dtypes on ``device``.  MLX holds no complex128, so its
        default complex dtype is complex64."""

        dev = self._device(device)
        return {
            "real floating": default_float(dev),
            "complex floating": default_complex(dev),
            "integral": np.dtype("int64"),
            "indexing": np.dtype("int64"),
        }

    def dtypes(self, *, device: DeviceLike | None = None, kind: str | tuple | None = None) -> dict[str, np.dtype]:
        """The dtypes ``device`` can hold, optionally of ``kind``."""
        dev = self._device(device)
        backend = backend_for(dev)
        out = {n: d for n, d in _ALL.items() if backend.supports_dtype(d, dev)}
        if kind is None:
            return out
        kinds = kind if isinstance(kind, tuple) else (kind,)
        letters: set[str] = set()
        for k in kinds:
            if isinstance(k, np.dtype):
                out_k = {n: d for n, d in out.items() if d == k}
                letters.update(d.kind + "=" + n for n, d in out_k.items())
                continue
            if k not in _KINDS:
                raise ValueError(f"unknown dtype kind {k!r}")
            letters.update(_KINDS[k])
        return {n: d for n, d in out.items() if d.kind in letters or f"{d.kind}={n}" in letters}

    def __repr__(self) -> str:
        return "unifiedarray.__array_namespace_info__()"


def __array_namespace_info__() -> Info:
    return Info()
