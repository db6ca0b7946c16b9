"""Writes: a value written into an array through its buffer, so that the
written copy becomes the only valid one and every view sees the write.

Example
-------
>>> import unifiedarray as xp
>>> from unifiedarray._writes import write
>>> x = xp.zeros(3)
>>> write(x, Ellipsis, 1.0, "example")
>>> x.tolist()
[1.0, 1.0, 1.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _rules
from . import _views as views
from ._access import native_on
from ._array import UnifiedArray
from ._calls import call
from ._devices import CPU
from ._errors import run_translated
from ._resolve import resolve
from .backends import backend_for

__all__ = ["cast_value", "write"]


def cast_value(value: UnifiedArray, dtype: np.dtype, op: str, casting: str = "unsafe") -> UnifiedArray:
    """``value`` as ``dtype``, to be written into an array of that dtype:
    the rules decide (:func:`unifiedarray._rules.cast_into`: NumPy's cast
    for ``casting``, strict mode's refusal), the cast runs where value
    lives (a complex value into a real array keeps its real part, as NumPy
    does, with its warning)."""
    if _rules.cast_into(value.dtype, dtype, op, casting):
        value = call("real", (value,))
    return call("astype", (value, dtype), {"copy": False})


def write(x: UnifiedArray, key: Any, value: Any, reason: str) -> None:
    """Write ``value`` (an array, a native of x's device, or a scalar) at
    ``key`` (native indices) of x, through the buffer: the written copy
    becomes the only valid one, and the write is seen through every view."""
    buf = x.buffer
    dev = buf.placement
    backend = backend_for(dev)
    if type(value) is UnifiedArray:
        value = native_on(value, dev, reason)  # before any lock of x's: value may be a view of x
    ns = resolve(dev, "")
    chain = x.chain

    def write_into(base: Any) -> None:
        if chain is None:
            ns.setitem(base, key, value)
        elif backend.views_write_through and views.real_views(chain):
            ns.setitem(views.follow(ns, base, chain), key, value)  # a real view: writes reach the copy
        else:
            views.write_chain(ns, base, chain, key, value, backend.aliases)

    if dev is CPU:
        buf.write(dev, write_into, reason)  # on the host: the host's errors are the host's own, no context
        return

    def apply(base: Any) -> None:
        run_translated(dev, "__setitem__", write_into, (base,))

    with backend.write_context(dev):
        buf.write(dev, apply, reason)
