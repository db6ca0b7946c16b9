"""Devices: the memory spaces an array can live in.

A :class:`Device` names one memory space: the host (``"cpu"``), one CUDA GPU
(``"cuda:0"``, ``"cuda:1"``, ...), MLX (``"mlx"``: Metal on Apple silicon,
the CPU build on Linux), or a device of a backend plug-in.  Devices are small
immutable values; they compare equal to their own name, so
``x.device == "mlx"`` works.

A device's *kind* (``"cpu"``, ``"cuda"``, ...) is registered with the rules
for its names (:func:`register_kind`): a kind with one device is named by
its kind (``"mlx"``); a kind with several is *indexed* (``"cuda:1"``), and
its bare name means the current one (``"cuda"``: CuPy's current GPU).
The backends register their kinds (:func:`unifiedarray.backends.register`);
the three built-in kinds are known from the start, so that their names parse
before any backend has loaded.

Example
-------
>>> from unifiedarray import Device
>>> Device.parse("cuda:1").index
1
>>> Device.parse("cpu") == "cpu"
True
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

__all__ = ["CPU", "MLX", "Device", "DeviceLike", "register_kind", "unregister_kind"]


class _Kind(NamedTuple):
    """How the devices of one kind are named and found."""

    indexed: bool  # named "kind:N" (several devices), else "kind" (one)
    aliases: tuple[str, ...]  # other names of the kind ("host" for "cpu")
    current: Callable[[], int] | None  # which device the bare name means (indexed kinds); None: the first
    from_object: Callable[[Any], Device | None] | None  # a library's device object -> its Device, or None


_KINDS: dict[str, _Kind] = {}  # kind -> its naming rules
_NAMES: dict[str, str] = {}  # kind or alias -> kind
_INTERNED: dict[str, Device] = {}  # name -> the one Device of that name
_KIND_OF: dict[str, str] = {}  # name -> kind, filled as devices are made
_REGISTER_LOCK = threading.Lock()
_KIND_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")

# Called once, the first time a name of no registered kind is parsed: it
# loads the backend plug-ins (see unifiedarray.backends), which may register
# the kind.  Set by the backends' registry.
_on_unknown_name: list[Callable[[], None] | None] = [None]


def register_kind(
    kind: str,
    *,
    indexed: bool = False,
    aliases: Iterable[str] = (),
    current: Callable[[], int] | None = None,
    from_object: Callable[[Any], Device | None] | None = None,
) -> None:
    """Make ``kind``'s device names parse: ``"kind"`` and each alias, and
    with ``indexed`` ``"kind:N"`` (the bare name then means device
    ``current()``, or the first without ``current``).  ``from_object`` turns
    a library's device object (CuPy's ``Device``) into a :class:`Device`, or
    returns None for objects that are not its own.  Registering a kind again
    replaces its rules; a name another kind uses is a ``ValueError``.

    Backends call this through :func:`unifiedarray.backends.register`.

    Example
    -------
    >>> from unifiedarray._devices import Device, register_kind, unregister_kind
    >>> register_kind("demo", indexed=True, aliases=("demo_gpu",))
    >>> Device.parse("demo:2").kind, Device.parse("demo_gpu").index
    ('demo', 0)
    >>> unregister_kind("demo")
    """
    aliases = tuple(a.strip().lower() for a in aliases)
    for name in (kind, *aliases):
        if not _KIND_NAME.match(name):
            raise ValueError(f"device kind or alias {name!r}: use lower-case letters, digits and '_', letter first")
        owner = _NAMES.get(name)
        if owner is not None and owner != kind:
            raise ValueError(f"device name {name!r} already names the kind {owner!r}")
    with _REGISTER_LOCK:
        _forget(kind, keep_place=True)
        _KINDS[kind] = _Kind(bool(indexed), aliases, current, from_object)
        for name in (kind, *aliases):
            _NAMES[name] = kind


def unregister_kind(kind: str) -> None:
    """Forget ``kind``'s names: they no longer parse (devices already made
    stay what they are).

    Example
    -------
    >>> from unifiedarray._devices import register_kind, unregister_kind, Device
    >>> register_kind("gone"); unregister_kind("gone")
    >>> Device.parse("gone")
    Traceback (most recent call last):
    ...
    ValueError: unknown device 'gone': ...
    """
    with _REGISTER_LOCK:
        _forget(kind)


def _forget(kind: str, keep_place: bool = False) -> None:
    """Drop ``kind``'s names and parsed names, and unless ``keep_place`` its
    rules (a kind registered again keeps its place in messages)."""
    if not keep_place:
        _KINDS.pop(kind, None)
    for name in [n for n, k in _NAMES.items() if k == kind]:
        del _NAMES[name]
    for text in [t for t, dev in _PARSED.items() if _KIND_OF[dev] == kind]:
        del _PARSED[text]


def kind_names() -> list[str]:
    """Every registered kind, with ``:N`` where it is indexed (for messages).

    >>> from unifiedarray._devices import kind_names
    >>> "cuda:N" in kind_names()
    True
    """
    return [f"{k}:N" if spec.indexed else k for k, spec in _KINDS.items()]


class Device(str):
    """One memory space.  Build it with :meth:`Device.parse` or take it from
    ``unifiedarray.__array_namespace_info__().devices()``.

    A ``Device`` is its own name (a ``str`` subclass): hashing and comparing
    devices costs what comparing short strings costs, which matters because
    every array operation looks its device up.
    """

    __slots__ = ()

    def __new__(cls, kind: str, index: int = 0) -> Device:
        spec = _KINDS.get(kind)
        if spec is None:
            raise ValueError(f"unknown device kind {kind!r}; registered kinds: {', '.join(_KINDS)}")
        name = f"{kind}:{int(index)}" if spec.indexed else str(kind)
        # One object per device (unpickled and copied ones too), so that the
        # hot paths' `dev is CPU` holds for every host device.
        dev = _INTERNED.get(name)
        if dev is None:
            dev = _INTERNED[name] = str.__new__(cls, name)
            _KIND_OF[name] = str(kind)
        return dev

    @property
    def kind(self) -> str:
        """The device's kind: ``"cpu"``, ``"mlx"``, ``"cuda"`` or a plug-in's
        (a plain ``str``)."""
        return _KIND_OF[self]

    @property
    def index(self) -> int:  # type: ignore[override]  # the standard device index, not str.index
        """The device's number within its kind (``cuda:1`` is 1); 0 where
        the kind has one device."""
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

        Accepts ``Device`` objects, the names of every registered kind
        (``"cpu"``/``"host"``, ``"mlx"``/``"metal"``, ``"cuda"``/``"gpu"``
        (the current CUDA device), ``"cuda:N"``, and a plug-in's), and the
        device objects of the backends' libraries (CuPy's, MLX's).  Anything
        else is a ``ValueError``.
        """
        if type(obj) is Device:
            return obj
        if isinstance(obj, str):
            cached = _PARSED.get(obj)
            if cached is not None:
                return cached
            dev, cacheable = _parse_name(obj)
            if cacheable and len(_PARSED) < 256:
                _PARSED[obj] = dev  # a name means the same device every time
            return dev
        for spec in list(_KINDS.values()):
            if spec.from_object is not None:
                found = spec.from_object(obj)
                if found is not None:
                    return found
        raise ValueError(f"unknown device {obj!r} of type {type(obj).__name__}")

    def __repr__(self) -> str:
        return f"Device({str(self)!r})"

    def __reduce__(self) -> tuple:
        return (Device, (self.kind, self.index))


def _parse_name(obj: str) -> tuple[Device, bool]:
    """The device ``obj`` names, and whether it always names that one (a
    bare indexed name means the current device, which can change)."""
    text = obj.strip().lower()
    head, sep, number = text.partition(":")
    kind = _NAMES.get(head)
    if kind is None:
        load = _on_unknown_name[0]
        if load is not None:
            _on_unknown_name[0] = None  # once: the plug-ins are loaded or have failed
            load()
            kind = _NAMES.get(head)
    spec = _KINDS.get(kind) if kind is not None else None
    if kind is None or spec is None:
        raise ValueError(f"unknown device {obj!r}: use {', '.join(repr(k) for k in kind_names())}")
    if not sep:
        if spec.indexed:
            return Device(kind, spec.current() if spec.current is not None else 0), False
        return Device(kind), True
    if spec.indexed and head == kind and number.isdigit():
        return Device(kind, int(number)), True
    raise ValueError(f"unknown device {obj!r}: use {', '.join(repr(k) for k in kind_names())}")


def set_unknown_name_hook(hook: Callable[[], None] | None) -> None:
    """Call ``hook`` once, the first time a name of no registered kind is
    parsed (the backends' registry loads its plug-ins there)."""
    _on_unknown_name[0] = hook


DeviceLike = Device | str | Any

# The built-in kinds, known before any backend loads (the backends register
# them again with their hooks: CuPy's current GPU, the libraries' device objects).
_PARSED: dict[str, Device] = {}
register_kind("cpu", aliases=("host", "numpy"))
register_kind("mlx", aliases=("metal",))
register_kind("cuda", indexed=True, aliases=("gpu",))

CPU = Device("cpu")
MLX = Device("mlx")
_PARSED.update(cpu=CPU, mlx=MLX)
