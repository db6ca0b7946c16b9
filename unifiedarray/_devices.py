"""Devices: the memory spaces an array can live in.

A :class:`Device` names one memory space: the host (``"cpu"``), one CUDA GPU
(``"cuda:0"``, ``"cuda:1"``, ...) or MLX (``"mlx"``: Metal on Apple silicon,
the CPU build on Linux).  Devices are small immutable values; they compare
equal to their own name, so ``x.device == "mlx"`` works.

Example
-------
>>> from unifiedarray import Device
>>> Device.parse("cuda:1").index
1
>>> Device.parse("cpu") == "cpu"
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["CPU", "MLX", "Device", "DeviceLike"]

_KINDS = ("cpu", "mlx", "cuda")
_INTERNED: dict[str, Device] = {}  # name -> the one Device of that name
_KIND_OF: dict[str, str] = {}  # name -> kind, filled as devices are made


class Device(str):
    """One memory space.  Build it with :meth:`Device.parse` or take it from
    ``unifiedarray.__array_namespace_info__().devices()``.

    A ``Device`` is its own name (a ``str`` subclass): hashing and comparing
    devices costs what comparing short strings costs, which matters because
    every array operation looks its device up.
    """

    __slots__ = ()

    def __new__(cls, kind: str, index: int = 0) -> Device:
        if kind not in _KINDS:
            raise ValueError(f"unknown device kind {kind!r}; expected one of {_KINDS}")
        name = f"cuda:{int(index)}" if kind == "cuda" else str(kind)
        # One object per device (unpickled and copied ones too), so that the
        # hot paths' `dev is CPU` holds for every host device.
        dev = _INTERNED.get(name)
        if dev is None:
            dev = _INTERNED[name] = str.__new__(cls, name)
            _KIND_OF[name] = str(kind)
        return dev

    @property
    def kind(self) -> str:
        """``"cpu"``, ``"mlx"`` or ``"cuda"`` (a plain ``str``)."""
        return _KIND_OF[self]

    @property
    def index(self) -> int:  # type: ignore[override]  # the standard device index, not str.index
        """The CUDA ordinal; 0 for the host and MLX."""
        _, _, idx = self.partition(":")
        return int(idx) if idx else 0

    @property
    def name(self) -> str:
        return str(self)

    @property
    def is_host(self) -> bool:
        return self == "cpu"

    @staticmethod
    def parse(obj: DeviceLike) -> Device:
        """Turn a device or its name into a :class:`Device`.

        Accepts ``Device`` objects, ``"cpu"``/``"host"``, ``"mlx"``/``"metal"``,
        ``"cuda"`` (the current CUDA device), ``"cuda:N"``, and the device
        objects of CuPy and MLX.  Anything else is a ``ValueError``.
        """
        if type(obj) is Device:
            return obj
        if isinstance(obj, str):
            cached = _PARSED.get(obj)
            if cached is not None:
                return cached
            text = obj.strip().lower()
            if text in ("cuda", "gpu"):
                return Device("cuda", _current_cuda_index())  # not cached: the current GPU can change
            if text in ("cpu", "host", "numpy"):
                dev = CPU
            elif text in ("mlx", "metal"):
                dev = MLX
            elif text.startswith("cuda:") and text[5:].isdigit():
                dev = Device("cuda", int(text[5:]))
            else:
                raise ValueError(f"unknown device {obj!r}: use 'cpu', 'mlx', 'cuda' or 'cuda:N'")
            if len(_PARSED) < 256:
                _PARSED[obj] = dev  # a name means the same device every time
            return dev
        mod = type(obj).__module__ or ""
        if mod.startswith("cupy"):
            return Device("cuda", int(getattr(obj, "id", 0)))
        if mod.startswith("mlx"):
            return MLX
        raise ValueError(f"unknown device {obj!r} of type {type(obj).__name__}")

    def __repr__(self) -> str:
        return f"Device({str(self)!r})"

    def __reduce__(self) -> tuple:
        return (Device, (self.kind, self.index))


def _first_gpu() -> int:
    return 0


# What "cuda" means: the current GPU, as the CUDA backend answers (it sets
# this when it loads); without one, the first GPU.
_current_cuda: list[Callable[[], int]] = [_first_gpu]


def set_current_cuda_query(query: Callable[[], int]) -> None:
    """Let the CUDA backend say which GPU "cuda" names (CuPy's current one)."""
    _current_cuda[0] = query


def _current_cuda_index() -> int:
    return _current_cuda[0]()


DeviceLike = Device | str | Any

CPU = Device("cpu")
MLX = Device("mlx")
_PARSED: dict[str, Device] = {"cpu": CPU, "mlx": MLX}
