"""The namespace as seen from below it: the package root, which installs
itself here when it is imported (:func:`install`), and the array methods
that are calls of its functions (``x.astype``, ``x.copy()``, ``x.imag``).

The namespace's modules (the chapters) sit above the dispatch and the
protocols, which reach the namespace only through :func:`namespace`.

Example
-------
>>> import unifiedarray as xp
>>> from unifiedarray._namespace import namespace
>>> namespace() is xp
True
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from ._array import UnifiedArray
from ._calls import call

__all__ = ["astype", "copy_of", "imag", "install", "namespace"]

_NAMESPACE: list[ModuleType] = []  # the package root, once it has installed itself


def install(root: ModuleType) -> None:
    """Make ``root`` (the package's root module) the namespace of every
    array: done once, by the root itself, as its import begins."""
    _NAMESPACE[:] = [root]


def namespace() -> Any:
    """The ``unifiedarray`` module: the namespace of every UnifiedArray."""
    return _NAMESPACE[0]


def astype(x: UnifiedArray, dtype: Any, copy: bool = True) -> UnifiedArray:
    """``x.astype(dtype)``: the namespace's ``astype``."""
    return namespace().astype(x, np.dtype(dtype), copy=copy)


def copy_of(x: UnifiedArray) -> UnifiedArray:
    """A copy of ``x`` on its device."""
    return namespace().astype(x, x.dtype, copy=True)


def imag(x: UnifiedArray) -> UnifiedArray:
    """The imaginary part; zeros of x's dtype for a real array (``np.imag``)."""
    if x.dtype.kind == "c":
        return call("imag", (x,))
    return call("zeros_like", (x,))
