"""Backends: one small module per memory space, all behind :class:`Backend`.

A backend knows how to allocate an array in its memory space, copy a host
array in, copy its array out into a given host array, say which dtypes it can
hold, report memory, and hand out the Array API namespace that computes on
its arrays.  Nothing else in the library imports CuPy or MLX directly.

The interface is :mod:`unifiedarray.backends._base`, the registry (the
built-in backends, :func:`register` for others, and the entry point group
``unifiedarray.backends`` for plug-ins) :mod:`unifiedarray.backends._registry`;
this package only re-exports them.

Example
-------
>>> from unifiedarray.backends import backend_for, backend_report
>>> backend_for("cpu").name
'numpy'
"""

from __future__ import annotations

from ._base import Backend, KeyedSource, RandomSource, contiguous, host_memory_info, largest_host_allocation
from ._registry import (
    ENTRY_POINT_GROUP,
    BackendPluginWarning,
    all_backends,
    backend_for,
    backend_of_native,
    backend_report,
    load_plugins,
    on_change,
    register,
    registry,
    unregister,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "Backend",
    "BackendPluginWarning",
    "KeyedSource",
    "RandomSource",
    "all_backends",
    "backend_for",
    "backend_of_native",
    "backend_report",
    "contiguous",
    "host_memory_info",
    "largest_host_allocation",
    "load_plugins",
    "on_change",
    "register",
    "registry",
    "unregister",
]
