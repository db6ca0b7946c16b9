"""The registry: every backend, by the kind of device it owns.

The built-in backends (NumPy for the host, CuPy for CUDA, MLX) are
registered when the package loads; loading one imports no library: each
probes for CuPy or MLX on first use.  Other backends are plug-ins: a package
registers its backend with :func:`register`, or names it in the entry point
group ``unifiedarray.backends`` (:data:`ENTRY_POINT_GROUP`) so that the
library finds it when it is first needed: when a device name no registered
kind knows is parsed, when every backend is listed, or when an array no
registered backend owns is met.  Plug-ins load once; one that fails to load
is a :class:`BackendPluginWarning` naming it, and the library goes on
without it.

Discovery never raises: a backend whose library is missing, or whose library
is present without a driver (CuPy without CUDA, MLX without its native
library), reports itself unavailable with the reason, once.

Example
-------
>>> from unifiedarray.backends import backend_for, registry
>>> backend_for("cpu").name
'numpy'
>>> sorted(registry())[:3]
['cpu', 'cuda', 'mlx']
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable, Mapping
from importlib import metadata
from types import MappingProxyType
from typing import Any

import numpy as np

from .._devices import Device, DeviceLike, register_kind, set_unknown_name_hook, unregister_kind
from .._dtypes import set_default_complex
from .._policy import set_device_check
from . import cupy_backend, mlx_backend, numpy_backend
from ._base import Backend

__all__ = [
    "ENTRY_POINT_GROUP",
    "BackendPluginWarning",
    "all_backends",
    "backend_for",
    "backend_of_native",
    "backend_report",
    "load_plugins",
    "register",
    "registry",
    "unregister",
]

#: The entry point group where packages name their backends: each entry
#: point names a :class:`Backend` instance, or a callable (a ``Backend``
#: subclass, say) that returns one when called with no arguments.
ENTRY_POINT_GROUP = "unifiedarray.backends"


class BackendPluginWarning(RuntimeWarning):
    """A backend plug-in of the ``unifiedarray.backends`` entry point group
    failed to load: its devices are unavailable, everything else works."""


_LOCK = threading.RLock()
_BACKENDS: dict[str, Backend] = {}  # kind -> its backend
_IN_ORDER: list[tuple[Backend, ...]] = [()]  # the backends, as a tuple that registering replaces (safe to iterate)
_FOR_DEVICE: dict[str, Backend] = {}  # device (or its name) -> its backend, once checked present
_PLUGINS_LOADED = [False]
_ON_CHANGE: list[Callable[[], None]] = []  # called where _FOR_DEVICE is cleared


def on_change(callback: Callable[[], None]) -> None:
    """Call ``callback()`` whenever a backend is registered or unregistered
    (under the registry's lock): for a layer above that keeps answers it
    derived from :func:`backend_for` per device, which go stale then.

    The one hook every such cache resets through, at registry changes only
    (the hot paths check nothing per call): a cache of anything resolved
    from a backend (the backend, one of its methods, its namespace, a
    namespace function, a decision made on them) registers its reset here,
    or keys on ``unifiedarray._resolve.GENERATION``, which
    ``_resolve.reset`` (registered here) counts.  ``tests/test_backends.py``
    swaps a backend and holds every entry point to it, and fails where a
    cache keeps the removed backend alive.

    Example
    -------
    >>> from unifiedarray.backends import on_change
    >>> kept = {"cpu": "an answer"}
    >>> on_change(kept.clear)
    """
    with _LOCK:
        _ON_CHANGE.append(callback)


def register(backend: Backend) -> Backend:
    """Make ``backend`` the owner of its kind of device (``backend.kind``):
    its device names parse (``"kind"``, its ``device_aliases``, and
    ``"kind:N"`` where it is ``indexed``), and every array call on its
    devices goes to it.  A kind that already has a backend is a
    ``ValueError`` (unregister it first).  Returns ``backend``.

    Example
    -------
    >>> from unifiedarray.backends import Backend, register, unregister, registry
    >>> class Nowhere(Backend):
    ...     name, kind = "nowhere", "nowhere"
    ...     def _probe(self): return "a documentation example"
    ...     def devices(self): return []
    >>> register(Nowhere()).name
    'nowhere'
    >>> registry()["nowhere"].available
    False
    >>> unregister("nowhere")
    """
    if not isinstance(backend, Backend):
        raise TypeError(f"register: expected a Backend instance, got {type(backend).__name__}")
    kind = backend.kind
    if not kind:
        raise ValueError(f"register: backend {type(backend).__name__} names no device kind (set its `kind`)")
    with _LOCK:
        old = _BACKENDS.get(kind)
        if old is not None and old is not backend:
            raise ValueError(
                f"register: device kind {kind!r} already has a backend ({old.name or type(old).__name__}); "
                f"unregister it first"
            )
        register_kind(
            kind,
            indexed=backend.indexed,
            aliases=backend.device_aliases,
            current=backend.current_index,
            from_object=backend.device_from_object,
        )
        set_default_complex(kind, backend.default_complex)
        _BACKENDS[kind] = backend
        _IN_ORDER[0] = tuple(_BACKENDS.values())
        _FOR_DEVICE.clear()
        for callback in _ON_CHANGE:
            callback()
    return backend


def unregister(backend: Backend | str) -> None:
    """Remove a backend (or the backend of a kind): its device names no
    longer parse.  Arrays still on its devices must be gone first.  The host
    backend cannot be removed.

    Example
    -------
    >>> from unifiedarray.backends import unregister
    >>> unregister("cpu")
    Traceback (most recent call last):
    ...
    ValueError: unregister: the host backend cannot be removed
    """
    kind = backend if isinstance(backend, str) else backend.kind
    if kind == "cpu":
        raise ValueError("unregister: the host backend cannot be removed")
    with _LOCK:
        found = _BACKENDS.get(kind)
        if found is None or (not isinstance(backend, str) and found is not backend):
            raise ValueError(f"unregister: no such backend registered for device kind {kind!r}")
        del _BACKENDS[kind]
        set_default_complex(kind, None)
        _IN_ORDER[0] = tuple(_BACKENDS.values())
        unregister_kind(kind)
        _FOR_DEVICE.clear()
        for callback in _ON_CHANGE:
            callback()


def load_plugins() -> None:
    """Load the backends named in the ``unifiedarray.backends`` entry point
    group, once (later calls do nothing).  A plug-in that fails to load or
    to register is a :class:`BackendPluginWarning`; the others load."""
    if _PLUGINS_LOADED[0]:
        return
    with _LOCK:
        if _PLUGINS_LOADED[0]:
            return
        _PLUGINS_LOADED[0] = True  # first: a plug-in that parses a device name while loading must not come back here
        try:
            entry_points = list(metadata.entry_points(group=ENTRY_POINT_GROUP))
        except Exception as exc:  # broken installed metadata must not break the library
            warnings.warn(
                f"unifiedarray: could not list the {ENTRY_POINT_GROUP!r} entry points, so no backend plug-in "
                f"is loaded: {type(exc).__name__}: {exc}",
                BackendPluginWarning,
                stacklevel=2,
            )
            return
        for entry_point in entry_points:
            try:
                found = entry_point.load()
                backend = found if isinstance(found, Backend) else found()
                register(backend)
            except Exception as exc:  # a broken plug-in costs its own devices, nothing else
                warnings.warn(
                    f"unifiedarray: the backend plug-in {entry_point.name!r} ({entry_point.value}) failed to "
                    f"load; its devices are unavailable: {type(exc).__name__}: {exc}",
                    BackendPluginWarning,
                    stacklevel=2,
                )


def registry() -> Mapping[str, Backend]:
    """Every backend, by the kind of device it owns (a read-only view;
    the plug-ins loaded first)."""
    load_plugins()
    return MappingProxyType(_BACKENDS)


def all_backends() -> list[Backend]:
    """Every backend the library knows, available or not."""
    return list(registry().values())


def backend_for(device: DeviceLike) -> Backend:
    """The backend that owns ``device``; a clear ``ValueError`` if this
    machine does not have it."""
    found = _FOR_DEVICE.get(device) if isinstance(device, str) else None
    if found is not None:
        return found
    dev = Device.parse(device)
    backend = _BACKENDS.get(dev.kind)
    if backend is None:
        raise ValueError(f"device {dev}: no backend is registered for device kind {dev.kind!r}")
    if not backend.available:
        raise ValueError(f"device {dev} is not available: {backend.unavailable_reason}")
    if dev not in backend.devices():
        present = ", ".join(backend.devices()) or "none"
        raise ValueError(f"device {dev} is not present (present: {present})")
    _FOR_DEVICE[dev] = backend
    return backend


def backend_of_native(obj: Any) -> Backend | None:
    """The backend whose native array type ``obj`` is, or None."""
    if type(obj) is np.ndarray:
        return _BACKENDS["cpu"]
    for backend in _IN_ORDER[0]:
        if backend.is_native(obj):
            return backend
    if not _PLUGINS_LOADED[0]:
        load_plugins()  # a plug-in's array met before anything loaded the plug-ins
        return backend_of_native(obj)
    return None


def backend_report() -> list[dict[str, Any]]:
    """One entry per backend: name, available, reason, devices with memory."""
    rows = []
    for backend in all_backends():
        row: dict[str, Any] = {
            "backend": backend.name,
            "title": backend.title,
            "available": backend.available,
            "reason": backend.unavailable_reason,
            "devices": [],
        }
        if backend.available:
            for dev in backend.devices():
                entry: dict[str, Any] = {"device": str(dev)}
                try:
                    entry["free"], entry["total"] = backend.memory_info(dev)
                except Exception as exc:  # a report must not crash on a driver hiccup
                    entry["memory_error"] = f"{type(exc).__name__}: {exc}"
                entry.update(backend.properties(dev))
                row["devices"].append(entry)
        rows.append(row)
    return rows


for _builtin in (numpy_backend.BACKEND, cupy_backend.BACKEND, mlx_backend.BACKEND):
    register(_builtin)
set_unknown_name_hook(load_plugins)
set_device_check(backend_for)  # a default device must exist here
