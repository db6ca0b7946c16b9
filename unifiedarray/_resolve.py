"""Resolution: a device's compute function by name, resolved once.

One cache (:data:`RESOLVED`) of ``(device, dotted path)`` to that device's
function of the compute namespace (:mod:`unifiedarray.compute`): resolving
costs more than a small call, so it is done once per device and name.

A backend registered or unregistered resets it (:func:`reset`, registered
with :func:`unifiedarray.backends.on_change`): every function is resolved
anew, from the backends registered now.  Every other cache of something
resolved from a backend (a function, a backend's method, a namespace, a
decision made on them) is reset by that hook too: it registers itself with
``on_change`` or keys on :data:`GENERATION` (``tests/test_backends.py``
swaps a backend and holds every entry point to it).

Example
-------
>>> from unifiedarray import _resolve
>>> from unifiedarray._devices import CPU
>>> _resolve.resolve(CPU, "linalg.solve") is not None
True
"""

from __future__ import annotations

import threading
from typing import Any

from . import compute
from ._devices import Device
from .backends import backend_for, on_change

__all__ = ["GENERATION", "RESOLVED", "namespace_for", "reset", "resolve", "resolved"]

# (device, dotted path) -> that device's function (path "" is the namespace
# itself), or None where the backend lacks it.
RESOLVED: dict[tuple[Device, str], Any] = {}

#: ``RESOLVED.get``, bound once: the fast paths' lookup of a function already
#: resolved (None where not yet: then :func:`resolve`); a method looked up per
#: call is a measurable share of a small one.
resolved = RESOLVED.get

#: How many times :data:`RESOLVED` has had an entry replaced or dropped
#: (:func:`reset`, which every registry change calls): what a cache of
#: decisions that depend on resolved functions (``_operators``' last direct
#: signatures) keeps, to know it is stale.  A list, so that importers read
#: the one count.  :func:`resolve` only adds entries, which stales nothing.
GENERATION = [0]

# Held where RESOLVED is reset and where resolve() stores what it found: a
# function resolved from the backends as they were before a reset is never
# stored after it.
_LOCK = threading.Lock()


def reset(entries: dict[tuple[Device, str], Any] | None = None) -> None:
    """Replace the resolution cache's contents with ``entries`` (none: every
    function is resolved anew, from namespaces that may have been replaced
    since); the one way its entries change, so that every cache built on
    them is staled (:data:`GENERATION`).

    Example
    -------
    >>> from unifiedarray import _resolve
    >>> before = _resolve.GENERATION[0]
    >>> _resolve.reset(dict(_resolve.RESOLVED)); _resolve.GENERATION[0] == before + 1
    True
    """
    with _LOCK:
        RESOLVED.clear()
        if entries:
            RESOLVED.update(entries)
        # After the change: a cache entry made before it, or during it (from
        # half-changed contents), holds an older count.
        GENERATION[0] += 1


def resolve(dev: Device, path: str) -> Any:
    """The function ``path`` (``"sum"``, ``"linalg.solve"``) of ``dev``'s
    compute namespace, or None if the backend lacks it."""
    key = (dev, path)
    try:
        return RESOLVED[key]
    except KeyError:
        pass
    generation = GENERATION[0]  # read first: a reset from now on stales what is found below
    if path == "":
        backend_for(dev)  # a clear error for a device this machine lacks
        obj: Any = compute.namespace_for(dev)
    else:
        obj = resolve(dev, "")
        for part in path.split("."):
            obj = getattr(obj, part, None)
            if obj is None:
                break
    with _LOCK:
        if GENERATION[0] == generation:
            RESOLVED[key] = obj
    return obj


def namespace_for(dev: Device) -> Any:
    """The compute namespace of ``dev`` (see :mod:`unifiedarray.compute`)."""
    return resolve(dev, "")


# Every registry change resolves every function anew (the one hook: see the
# module's docstring).
on_change(reset)
