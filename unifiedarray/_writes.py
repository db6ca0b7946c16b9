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

__all__ = ["FromTarget", "cast_value", "write", "write_where"]


def cast_value(value: UnifiedArray, dtype: np.dtype, op: str, casting: str = "unsafe") -> UnifiedArray:
    """``value`` as ``dtype``, to be written into an array of that dtype:
    the rules decide (:func:`unifiedarray._rules.cast_into`: NumPy's cast
    for ``casting``, strict mode's refusal), the cast runs where value
    lives (a complex value into a real array keeps its real part, as NumPy
    does, with its warning)."""
    if _rules.cast_into(value.dtype, dtype, op, casting):
        value = call("real", (value,))
    return call("astype", (value, dtype), {"copy": False})


class FromTarget:
    """A value :func:`write` computes from the written array's own data, as
    the write finds it (``compute(native)``, ``native`` x's data on its
    device): a read-modify-write of x as one write, under x's buffer lock,
    so that another thread's write in between is never undone (a write of
    a value computed before reads x first, and writes that old data back
    over whatever came between)."""

    __slots__ = ("compute",)

    def __init__(self, compute: Any) -> None:
        self.compute = compute


def write_where(x: UnifiedArray, mask: Any, value: Any, reason: str) -> None:
    """``x[mask] = value`` (``mask`` an array of x's shape on x's device,
    ``value`` an array or scalar of x's dtype that broadcasts to it), as
    NumPy's ``putmask`` writes it: the elements outside the mask are never
    written back (one write: see :class:`FromTarget`), and nothing is read
    back to the host (a boolean index's count would be)."""
    dev = x.buffer.placement
    where = resolve(dev, "where")
    cond = native_on(mask, dev, reason)  # before x's lock: reading an array takes its own
    val = native_on(value, dev, reason) if type(value) is UnifiedArray else value
    write(x, Ellipsis, FromTarget(lambda current: where(cond, val, current)), reason)


def write(x: UnifiedArray, key: Any, value: Any, reason: str) -> None:
    """Write ``value`` (an array, a native of x's device, a scalar, or a
    :class:`FromTarget`) at ``key`` (native indices) of x, through the
    buffer: the written copy becomes the only valid one, and the write is
    seen through every view."""
    buf = x.buffer
    dev = buf.placement
    backend = backend_for(dev)
    if type(value) is UnifiedArray:
        value = native_on(value, dev, reason)  # before any lock of x's: value may be a view of x
    ns = resolve(dev, "")
    chain = x.chain

    def write_into(base: Any) -> None:
        value_now = value
        if type(value_now) is FromTarget:
            # Computed from x's data as the write finds it: under the lock.
            value_now = value_now.compute(base if chain is None else views.follow(ns, base, chain))
        if chain is None:
            ns.setitem(base, key, value_now)
        elif backend.views_write_through and views.real_views(chain):
            ns.setitem(views.follow(ns, base, chain), key, value_now)  # a real view: writes reach the copy
        else:
            views.write_chain(ns, base, chain, key, value_now, backend.aliases)

    if dev is CPU:
        buf.write(dev, write_into, reason)  # on the host: the host's errors are the host's own, no context
        return

    def apply(base: Any) -> None:
        run_translated(dev, "__setitem__", write_into, (base,))

    with backend.write_context(dev):
        buf.write(dev, apply, reason)
