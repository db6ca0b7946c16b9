"""View chains: how a view selects its data from its buffer.

A view of a :class:`~unifiedarray.UnifiedArray` shares its parent's buffer
and keeps the chain of links that select it: basic indices (ints, slices,
``...``, ``None``) and the two links below, :class:`Reshape` and
:class:`Permute`.  Reading a view applies its chain to the buffer's copy on
the device it is read on; writing through a view writes through the chain.
What a key means (its shape, its checks) is :mod:`unifiedarray._index`'s.

Nothing here knows about arrays or devices: the functions take a compute
namespace (``getitem``, ``setitem``, ``reshape``, ``permute_dims``) and
native arrays, so the same code serves every backend.

Example
-------
>>> import numpy as np
>>> from unifiedarray._views import Permute, follow
>>> from unifiedarray.compute import host_namespace
>>> follow(host_namespace, np.arange(6).reshape(2, 3), (Permute((1, 0)), (0, Ellipsis))).tolist()
[0, 3]
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ._buffer import DEVICE_COPY_HOOK
from ._spill import touch

__all__ = [
    "LINKS",
    "Permute",
    "Reshape",
    "follow",
    "real_views",
    "write_chain",
]


class Reshape(NamedTuple):
    """A view-chain link: the parent reshaped to ``shape``.  (Links are
    named tuples so that they compare, hash, pickle and tokenize; anything
    in a chain whose type is not in ``LINKS`` is a basic index.)"""

    shape: tuple[int, ...]

    def apply(self, ns: Any, arr: Any) -> Any:
        return ns.reshape(arr, self.shape)

    def restore(self, ns: Any, sub: Any, parent_shape: tuple[int, ...]) -> Any:
        return ns.reshape(sub, parent_shape)


class Permute(NamedTuple):
    """A view-chain link: the parent's axes permuted."""

    axes: tuple[int, ...]

    def apply(self, ns: Any, arr: Any) -> Any:
        return ns.view_permute(arr, self.axes)

    def restore(self, ns: Any, sub: Any, parent_shape: tuple[int, ...]) -> Any:
        inverse = tuple(sorted(range(len(self.axes)), key=self.axes.__getitem__))
        return ns.permute_dims(sub, inverse)


LINKS = (Reshape, Permute)


def follow(ns: Any, arr: Any, chain: tuple) -> Any:
    """``arr`` (a buffer's native copy) seen through a view's chain."""
    if DEVICE_COPY_HOOK[0] is not None:
        # Under a device memory limit a view's read is a use of the copy
        # (chunks of one parent each read all of it): it keeps it on its device.
        touch(arr)
    for k in chain:
        arr = k.apply(ns, arr) if type(k) in LINKS else ns.view_getitem(arr, k)
    return arr


def real_views(chain: tuple) -> bool:
    """Whether every link of a chain is a basic index or a permutation:
    on NumPy and CuPy always a real view of the copy (a reshape may copy)."""
    return all(type(k) is not Reshape for k in chain)


def write_chain(ns: Any, arr: Any, chain: tuple, key: Any, value: Any, shares: Any) -> None:
    """Write ``value`` at ``key`` of the view ``chain`` selects from
    ``arr``, where links may give copies (every link on MLX; a reshape that
    NumPy or CuPy cannot express as a view): take the link, write into it,
    and write it back, innermost first.  A link that gave a real view
    (``shares(sub, arr)``) needs no write-back: the write is there."""
    if not chain:
        ns.setitem(arr, key, value)
        return
    link = chain[0]
    sub = link.apply(ns, arr) if type(link) in LINKS else ns.getitem(arr, link)
    write_chain(ns, sub, chain[1:], key, value, shares)
    if shares(sub, arr):
        return
    if type(link) in LINKS:
        ns.setitem(arr, Ellipsis, link.restore(ns, sub, tuple(arr.shape)))
    else:
        ns.setitem(arr, link, sub)
