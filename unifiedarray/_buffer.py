"""The lazy-sync buffer: one logical array, a copy per memory space.

A :class:`UnifiedBuffer` keeps at most one copy of its data per device (the
host, each CUDA GPU, MLX) and the set of copies that are *valid*: that hold
the current data.  The whole state machine is those two things (one idea,
so one module):

* a **read** of device D makes D valid, copying from a valid copy if D was
  stale (a *move*, recorded in the transfer ledger); a read of a valid copy
  moves nothing;
* a **write** on D makes D the only valid copy;
* a write that replaces all the data (``fill``, ``copy_from``) skips the
  read: nothing stale is ever copied only to be overwritten.

One read is not a move of the whole: reading the one element of a buffer of
size 1 as a Python scalar (``float(x)``, ``bool(x)``, :meth:`UnifiedBuffer.element`)
copies that element out of a current copy (counted, as a move of its bytes)
and leaves every copy as it was, as CuPy's and MLX's own ``item()`` do.

Writes are tracked without relying on the user: every public path that can
write marks its copy.  A writable handle (``.host``, ``.device``, ``.mlx``,
``.metal``) counts as a write when it is handed out, because the library
cannot see what the caller does with it.

**Who may write a copy's memory, and how the buffer learns of it**: one
rule for every handle that leaves the buffer.  A handle is

* **read-only** (the host's read exports: ``to_numpy``, ``read("cpu")``,
  pickle and distributed frames; the CUDA Array Interface's read-only flag),
* **a copy** that shares no memory with the buffer's (``read`` on a
  device, ``__mlx_array__``, MLX's DLPack exports: ``Backend.detach``,
  ``Backend.copy``; and what comes in, ``copy_from``, is copied), or
* **a lease** (a host alias from :meth:`UnifiedBuffer.export_host`, a
  device copy from :meth:`UnifiedBuffer.lease`): a write, whose later
  writes the buffer sees, and while it lives :attr:`UnifiedBuffer.version`
  counts every read as a write (what dask tokens key on).  A lease ends
  when another copy becomes valid; a revocable one (MLX's) is detached
  then, so nothing written through it (or a NumPy view of it) afterwards
  reaches the buffer.

Host memory leaves the buffer writable by one path only,
:meth:`UnifiedBuffer.export_host` (behind ``.host``, ``np.asarray``,
DLPack, ...): the array it hands out is a view whose memory is owned by the
buffer's *export anchor*, an object that is not an ndarray, so that NumPy
stops collapsing the bases of every view, memoryview, pickle buffer or
DLPack capsule derived from it there: each keeps the anchor alive.  The
anchor's reference count therefore says whether an alias of the host copy
may still be alive (:meth:`UnifiedBuffer.host_aliased`), whatever the
caller did with it.  While one may be, the host copy is authoritative:

* it stays valid, and counts as possibly written at any time;
* a device read re-syncs the device copy from it first (a counted move,
  reason ``"host alias: ..."``, subject to the transfer guard), and the
  device copy is valid for that access only;
* a device write is copied back to it at once (counted the same way), so
  the alias sees it and a later write through the alias is never unseen;
* a writable device handle (``.mlx``, ``.device`` on a GPU) is refused with
  ``BufferError``: its writes could not be copied back.

When the last alias dies the buffer is as if never exported.  Read-only
exports (``to_numpy``, ``read``, pickle and distributed frames) come from the
same method and mark nothing; whoever rebuilds an array from them copies.

The other handles are *leases* that end when another copy becomes valid:

* revocable handles (``Backend.revocable_leases``: MLX's, whose in-place
  ``a[i] = v`` rebinds only the handle it is called on) are detached
  (``Backend.detach``), so a late write cannot corrupt the buffer (while the
  lease lasts, writes through an MLX handle run on the library's MLX stream
  and are evaluated at once, so any thread can read the buffer after them);
* other handles cannot be revoked (CUDA's are raw device memory): writes
  through them after their lease are the case ``mark_device_dirty()``
  exists for.

A lease ends *before* a move copies anything, so a write through it in
another thread during the copy misses the buffer instead of reaching the
source copy only.  Writes made by the library itself go through
:meth:`UnifiedBuffer.write`, which keeps a live lease on the written
copy valid.

The public :attr:`UnifiedBuffer.state` summarises per-copy validity in the
six states of the design documents; see ``docs/buffer.md``.

The rest of the package asks the buffer questions and never reads its
fields: :attr:`UnifiedBuffer.ready` and ``host_ready`` (the copy on the
placement, current, nothing in flight: kept here at every change of the
state, for the fast paths), ``dtype`` and ``placement`` (set once), :meth:`~UnifiedBuffer.current`,
:meth:`~UnifiedBuffer.native`, :meth:`~UnifiedBuffer.write`, leases, exports
and what the pool and the spill ask (``docs/design.md``, "What the rest of
the package asks the buffer").  What differs between devices the buffer
asks the device's :class:`~unifiedarray.backends.Backend` (how a copy is
written, filled, lent, detached, pooled, uploaded into), never its kind.

Example
-------
>>> import numpy as np
>>> from unifiedarray import UnifiedBuffer, BufferState
>>> buf = UnifiedBuffer((4,), dtype=np.float32)
>>> buf.state
<BufferState.UNINITIALIZED: 'uninitialized'>
>>> buf.host[:] = np.arange(4)
>>> buf.state
<BufferState.HOST_ONLY: 'host_only'>
>>> buf.to_numpy()
array([0., 1., 2., 3.], dtype=float32)
"""

from __future__ import annotations

import _thread
import ctypes
import operator
import sys
import threading
from collections.abc import Callable
from enum import Enum
from math import prod
from typing import Any

import numpy as np

from . import _rules
from ._compiled import BoolArg, DictArg, StrArg
from ._devices import CPU, MLX, Device, DeviceLike
from ._ledger import copy_out, transfer
from .backends import Backend, all_backends, backend_for, backend_of_native, on_change, registry

__all__ = ["BufferState", "UnifiedBuffer"]


class BufferState(Enum):
    """Which copies of a buffer hold the current data.

    Derived from per-copy validity (host versus every device copy):

    ================  ===========================================================
    UNINITIALIZED     no copy allocated yet
    HOST_ONLY         the host copy is valid and no device copy exists
    DEVICE_ONLY       a device copy is valid and no host copy exists
    SYNCHRONIZED      every allocated copy is valid (at least two exist)
    HOST_DIRTY        the host copy is valid, some device copy is stale
    DEVICE_DIRTY      the host copy is stale: a device copy was written
    ================  ===========================================================
    """

    UNINITIALIZED = "uninitialized"
    HOST_ONLY = "host_only"
    DEVICE_ONLY = "device_only"
    SYNCHRONIZED = "synchronized"
    HOST_DIRTY = "host_dirty"
    DEVICE_DIRTY = "device_dirty"


def _normalize_shape(shape: Any) -> tuple[int, ...]:
    if type(shape) is tuple:  # the common case, already normal: no new tuple
        for s in shape:
            if type(s) is not int or s < 0:
                break
        else:
            return shape
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    try:
        out = tuple(operator.index(s) for s in shape)
    except TypeError:
        raise TypeError(f"shape must be an int or a tuple of ints, not {shape!r}") from None
    if any(s < 0 for s in out):
        raise ValueError(f"negative dimension in shape {out}")
    return out


def _anchor_of(native: np.ndarray) -> Any:
    """The export anchor of the host copy ``native``: a ctypes array over
    its memory that keeps ``native`` alive, with the byte offset of
    ``native``'s first element in it.  Not an ndarray, so NumPy's views of
    arrays made over it keep their base there (see ``export_host``)."""
    low, high = np.lib.array_utils.byte_bounds(native)
    anchor: Any = (ctypes.c_char * (high - low)).from_address(low)
    anchor.owner = native  # the memory stays valid while any alias lives
    anchor.offset = native.__array_interface__["data"][0] - low
    return anchor


class _Holder:
    __slots__ = ("anchor",)
    anchor: Any


def _alone_refs() -> int:
    # What sys.getrefcount gives for an anchor that only the buffer's slot
    # holds, measured the way host_aliased measures it (so it holds on any
    # Python version, whatever its reference-counting shortcuts).
    holder = _Holder()
    holder.anchor = _anchor_of(np.zeros(1))
    anchor = holder.anchor
    return sys.getrefcount(anchor)


_ANCHOR_ALONE = _alone_refs()


_MAKE_LOCK = threading.Lock()  # a leaf lock: see backends/mlx_evaluation.py, "Lock order"

# frozenset({device}) per device, shared: "only this copy is valid".
_ONLY: dict[Device, frozenset] = {}


def _orders_streams(dev: Device | None) -> bool:
    """Whether ``dev``'s backend orders work across streams (see
    :func:`_backend_orders_streams`)."""
    return dev is not None and dev is not CPU and _backend_orders_streams(backend_for(dev))


def _backend_orders_streams(backend: Backend) -> bool:
    """Whether ``backend`` orders work across streams: its ``follow`` is its
    own (CuPy's), not the base class's, which does nothing."""
    return type(backend).follow is not Backend.follow


_only_get = _ONLY.get  # bound once: adopt asks it for every device result


def _only(dev: Device) -> frozenset:
    valid = _ONLY.get(dev)
    if valid is None:
        valid = _ONLY[dev] = frozenset((dev,))
    return valid


_ONLY_CPU = _only(CPU)
_NO_COPY: frozenset = frozenset()  # the valid set while a copy is overwritten (see UnifiedBuffer._written)


#: ``[hook]``: ``hook(buffer, device)`` is called where a device copy is made,
#: while a device memory limit is set (:mod:`unifiedarray._spill`, through
#: :func:`set_device_copy_hook`, the one writer); ``[None]`` otherwise.  A
#: cell, so that the dispatch reads it where it decides whether a device
#: result may go without a buffer (a copy no hook would hear of).
DEVICE_COPY_HOOK: list[Any] = [None]


def set_device_copy_hook(hook: Any) -> None:
    """Call ``hook(buffer, device)`` wherever a buffer makes a device copy
    (``None``: nothing is called): how a per-device memory limit
    (:mod:`unifiedarray._spill`) learns of each copy."""
    DEVICE_COPY_HOOK[0] = hook


class UnifiedBuffer:
    """One array's data, with a lazily synchronised copy per memory space.

    Parameters
    ----------
    shape, dtype:
        As for ``numpy.empty``.  The dtype is kept exactly on every backend.
    pinned:
        Allocate the host copy in page-locked memory (CUDA only; elsewhere
        the host copy is ordinary memory and :attr:`is_pinned` says so).
    device:
        The device this buffer belongs to: where :attr:`device` points and
        where a ``UnifiedArray`` on this buffer computes.  ``None`` means the
        host.

    Example
    -------
    >>> import numpy as np
    >>> from unifiedarray import UnifiedBuffer
    >>> buf = UnifiedBuffer((3,), dtype=np.float64)
    >>> buf.fill(2.0)
    >>> buf.to_numpy()
    array([2., 2., 2.])
    """

    __slots__ = (
        "__weakref__",
        "_after",
        "_anchor",
        "_copies_made",
        "_copy_back",
        "_leased",
        "_lock_obj",
        "_pending",
        "_pinned",
        "_pool_allocation",
        "_released",
        "_shape",
        "_solo",
        "_valid",
        "_version",
        "dtype",
        "host_ready",
        "placement",
        "ready",
    )

    _pool_allocation: Any  # the pool's allocation of this buffer's blocks (set by MemoryPool.acquire), or None
    _pending: Any  # what the next access waits for: a move in flight, or an _OrderAfter; None when nothing
    _after: dict[Device, list[Any]] | None  # per device: [last stream or event, lease streams] (_follow_streams)
    # The copies, per device: made on first use (see _copies); until then the
    # one copy an adopted buffer starts with is _solo, on its placement.
    _copies_made: dict[Device, Any] | None
    _solo: Any
    _valid: frozenset[Device]
    _lock_obj: Any
    _anchor: Any  # the export anchor (see export_host), or None: never exported, or no alias left
    _copy_back: Any  # the transfer judged for a write's copy back past a host alias (_acquire_past_alias), or None
    _leased: Device | None  # the device whose copy is lent as a live lease (detached at its end where revocable)
    #: The copy on :attr:`placement` when it is current and no move is in
    #: flight (what may be read there directly, with no lock and no sync),
    #: else None.  Kept by the buffer at every change of its state: read it,
    #: never assign it.
    ready: Any
    #: :attr:`ready` for a buffer placed on the host; None for one placed on
    #: a device (the host fast paths ask this one question).
    host_ready: Any
    #: The data type (a NumPy ``dtype``), kept exactly on every backend.  Set
    #: once, when the buffer is made: read it, never assign it (a field, not
    #: a property: the fast paths read it on every call).
    dtype: np.dtype
    #: The device this buffer belongs to (see ``device=``).  Set once, when
    #: the buffer is made: read it, never assign it.
    placement: Device

    def __init__(
        self,
        shape: Any,
        dtype: Any = np.float32,
        *,
        pinned: BoolArg = False,
        device: DeviceLike | None = None,
    ) -> None:
        shape = _normalize_shape(shape)
        dtype = np.dtype(dtype)
        placement = CPU if device is None else Device.parse(device)
        backend_for(placement).check_dtype(dtype, placement, "UnifiedBuffer")
        self._setup(shape, dtype, placement, bool(pinned))

    def _setup(self, shape: tuple[int, ...], dtype: np.dtype, device: Device, pinned: bool) -> None:
        self._shape = shape
        self.dtype = dtype
        self._pinned = pinned
        self.placement = device
        self._copies_made = {}
        self._solo = None
        self._valid: frozenset[Device] = frozenset()
        self._lock_obj: Any = None  # made on first use: most results never need it
        self._anchor = None
        self._leased = None
        self._released = False
        self._version = 0
        self._pool_allocation = None  # set by MemoryPool.acquire
        self._pending = None
        self._after = None
        self._copy_back = None
        self.ready = None
        self.host_ready = None

    @property
    def _copies(self) -> dict[Device, Any]:
        """The copies, per device.  A buffer that adopted its one copy
        (:func:`adopt`: every result) makes the dict on first use, under a
        global lock so that two threads never make two: most results are
        only ever read through :attr:`ready`.

        Until the dict is made, the one copy is ``_solo``, on the placement
        (the only device that can be valid then): :meth:`current` and
        :meth:`native` read it without making the dict, ``_solo`` first and
        ``_copies_made`` second, so that a dict made in between (which
        clears ``_solo`` after it is stored) is seen."""
        copies = self._copies_made
        if copies is None:
            with _MAKE_LOCK:
                copies = self._copies_made
                if copies is None:
                    copies = self._copies_made = {self.placement: self._solo}
                    self._solo = None  # the dict holds it now (and may drop it)
        return copies

    @_copies.setter
    def _copies(self, copies: dict[Device, Any]) -> None:
        with _MAKE_LOCK:  # never between another thread's making and its store
            self._copies_made = copies
            self._solo = None

    def _refresh(self) -> None:
        """Recompute :attr:`ready` and :attr:`host_ready` from the state:
        called, under the lock, after every change of the valid set, of the
        move in flight, or of a copy."""
        home = self.placement
        ready = self._copies.get(home) if self._pending is None and home in self._valid else None
        self.ready = ready
        self.host_ready = ready if home is CPU else None

    @property
    def lock(self) -> threading.RLock:
        """This buffer's (reentrant) lock: every access holds it; hold it
        around several calls to make them one step (a check, then a lease)."""
        return self._lock

    @property
    def _lock(self) -> threading.RLock:
        """This buffer's lock, made on first use (under a global lock, so two
        threads never make two)."""
        lock = self._lock_obj
        if lock is None:
            with _MAKE_LOCK:
                lock = self._lock_obj
                if lock is None:
                    # threading.RLock is a Python function around this.  Second
                    # in the library's lock order (backends/mlx_evaluation.py,
                    # "Lock order"): one at a time; the evaluation lock is taken
                    # under it, never the reverse.
                    lock = self._lock_obj = _thread.RLock()
        return lock

    # -- facts -------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return self._shape

    @property
    def nbytes(self) -> int:
        return prod(self._shape) * self.dtype.itemsize

    @property
    def pinned(self) -> bool:
        """Whether page-locked host memory was asked for."""
        return self._pinned

    @property
    def is_pinned(self) -> bool:
        """Whether the host copy really is page-locked (needs CUDA)."""
        host = self._copies.get(CPU)
        if host is None or not self._pinned:
            return False
        return bool(backend_for(CPU).is_pinned(host))

    @property
    def valid_devices(self) -> frozenset[Device]:
        """The devices whose copies hold the current data."""
        return self._valid

    @property
    def allocated_devices(self) -> frozenset[Device]:
        """The devices that have a copy, valid or stale."""
        return frozenset(self._copies)

    @property
    def state(self) -> BufferState:
        """The six-state summary of per-copy validity (see :class:`BufferState`)."""
        with self._lock:
            copies, valid = self._copies, self._valid
            if not valid:
                return BufferState.UNINITIALIZED
            has_host = CPU in copies
            devices = [d for d in copies if d != CPU]
            if not has_host:
                return BufferState.DEVICE_ONLY
            if CPU not in valid:
                return BufferState.DEVICE_DIRTY
            if not devices:
                return BufferState.HOST_ONLY
            if len(valid) == len(copies):
                return BufferState.SYNCHRONIZED
            return BufferState.HOST_DIRTY

    @property
    def version(self) -> int:
        """How many writes this buffer has seen (what dask tokens and caches
        key on): it changes whenever the data may have, so each read of it
        while a writable handle may write unseen counts as a write: an alias
        of the host copy (see :meth:`export_host`) or a live lease of a
        device copy (``.mlx``, ``.device``: its writes, ``m[0] = 5``, reach
        the copy without the buffer hearing of each).

        Example
        -------
        >>> from unifiedarray import UnifiedBuffer
        >>> b = UnifiedBuffer((2,)); b.fill(0.0); v = b.version
        >>> h = b.host; b.version > v   # an alias may write at any time
        True
        """
        if self._leased is not None or (self._anchor is not None and self.host_aliased()):
            self._version += 1
        return self._version

    @property
    def pool_allocation(self) -> Any:
        """The memory pool's allocation of this buffer's blocks (see
        :func:`pooled`), or None for a buffer no pool made."""
        return self._pool_allocation

    # -- queries: what the rest of the package asks -----------------------------
    def current(self, dev: Device) -> Any:
        """The copy on ``dev`` if it is current and no move is in flight (what
        may be read directly, moving nothing), else None.  :attr:`ready` is
        this question's answer for the buffer's own placement, kept at hand.

        Example
        -------
        >>> from unifiedarray import UnifiedBuffer
        >>> from unifiedarray._devices import CPU
        >>> b = UnifiedBuffer((2,)); b.fill(1.0); b.current(CPU).tolist()
        [1.0, 1.0]
        """
        if self._pending is None and dev in self._valid:
            solo = self._solo  # read first: see _copies
            copies = self._copies_made
            return solo if copies is None else copies[dev]
        return None

    def native(self, dev: Device, reason: StrArg, explicit: BoolArg = False) -> Any:
        """The copy on ``dev`` for reading, made current first if it is stale
        (a move, counted in the ledger for ``reason``; ``explicit`` for a move
        the user asked for); a move in flight is waited for.  Marks nothing.

        Example
        -------
        >>> from unifiedarray import UnifiedBuffer
        >>> from unifiedarray._devices import CPU
        >>> b = UnifiedBuffer((2,)); b.fill(3.0); b.native(CPU, "example").tolist()
        [3.0, 3.0]
        """
        if self._pending is not None:
            self.wait()
        # A writer publishes a new copy with one assignment (MLX's writes make
        # a new handle, see write), so whichever copy this reads is whole.
        if dev in self._valid:
            solo = self._solo  # read first: see _copies
            copies = self._copies_made
            return solo if copies is None else copies[dev]
        return self._acquire(dev, False, reason, explicit)

    def element(self, reason: StrArg) -> Any:
        """The one element of this buffer (of size 1) as a Python scalar,
        for ``float(x)``, ``bool(x)`` and the like: read from the host copy
        where it is current, else copied out alone from a current device
        copy (:func:`download_element`: counted for ``reason``, judged by
        the transfer guard), leaving every copy as it was.  A second read
        copies it out again.

        Example
        -------
        >>> from unifiedarray import UnifiedBuffer
        >>> b = UnifiedBuffer(()); b.fill(2.5); b.element("example")
        2.5
        """
        with self._lock:
            if self._pending is not None:
                self._wait()
            valid = self._valid
            # The host where it is current (or where there is no data yet:
            # the read makes the zeros there, as native's would).
            dev = CPU if CPU in valid or not valid else next(iter(valid))
            native = self._acquire(dev, False, reason)  # the device's stream follows its work, as for a move
            if dev is CPU:
                return native.item()
            # Under the lock, as a move's copy: a writer (another thread,
            # another stream) orders its work after this read's.
            return download_element(native, dev, self.dtype.itemsize, reason)

    def allocated(self, dev: Device) -> Any:
        """The copy on ``dev``, current or stale, or None: for what a copy
        says about itself (its device, its type), never for its data."""
        return self._copies.get(dev)

    def host_private(self) -> bool:
        """Whether the host copy is this buffer's only copy and nothing
        outside the buffer may alias it (no export alive): a temporary whose
        memory a result may reuse.

        Example
        -------
        >>> from unifiedarray import UnifiedBuffer
        >>> b = UnifiedBuffer((2,)); b.fill(0.0); b.host_private()
        True
        """
        return len(self._copies) == 1 and CPU in self._copies and not self.host_aliased()

    # -- the state machine --------------------------------------------------
    def _check_alive(self) -> None:
        if self._released:
            raise RuntimeError(
                "this buffer was released to its memory pool; acquire a new one instead of using it after release()"
            )

    def _acquire(
        self,
        dev: Device,
        write: bool,
        reason: str,
        explicit: bool = False,
        overwrite: bool = False,
        blocking: bool = True,
    ) -> Any:
        """The copy on ``dev``, made valid; with ``write``, the only valid one.

        ``overwrite`` says the caller replaces all the data, so a stale copy
        needs no move first; no copy is valid then until the caller has
        written it (:meth:`_written`, the one caller that overwrites, says
        so).  Runs under the buffer's lock, so concurrent readers never move
        a copy twice.
        """
        with self._lock:
            if self._released:
                self._check_alive()
            if self._pending is not None:
                self._wait()
            copies = self._copies_made  # None: one copy, on the placement (see _copies)
            if dev is not CPU or (
                self.placement is not CPU if copies is None else len(copies) > 1 or (copies and CPU not in copies)
            ):
                self._follow_streams(dev)  # this access's work goes after what it must follow, and is recorded
            if self._anchor is not None and dev is not CPU and self.host_aliased():
                return self._acquire_past_alias(dev, write, reason, explicit, overwrite)
            if dev not in self._valid:
                if not self._valid or overwrite:
                    # No data yet (or all of it about to be replaced): nothing to move.
                    native = self._copies.get(dev)
                    if native is None:
                        self._copies[dev] = self._allocate(dev, zero=not overwrite)
                        hook = DEVICE_COPY_HOOK[0]
                        if hook is not None and dev is not CPU:
                            hook(self, dev)
                    elif not self._valid and not overwrite:
                        # A pooled block: never show a previous owner's data.
                        self._copies[dev] = backend_for(dev).fill(native, 0)
                    # Overwritten, its old data is nobody's: no copy is current
                    # until the caller (_written) has written it and says so.
                    self._set_valid(_NO_COPY if overwrite else frozenset((dev,)))
                else:
                    self._move_to(dev, reason, explicit, blocking)
            if overwrite:
                self._version += 1  # what dask tokens and caches key on
                if self._valid:
                    # A current copy overwritten in place: hidden as well, its
                    # lease (if lent) kept, as a write keeps it (see write).
                    self._valid = _NO_COPY
                    self._refresh()
            elif write:
                self._version += 1
                only = _ONLY.get(dev) or _only(dev)
                if self._valid != only:
                    self._set_valid(only)
            solo = self._solo  # read first: see _copies
            copies = self._copies_made
            return solo if copies is None else copies[dev]

    def _acquire_past_alias(self, dev: Device, write: bool, reason: str, explicit: bool, overwrite: bool) -> Any:
        """:meth:`_acquire` of a device copy while a host alias may be alive.

        The host copy is then authoritative and the only valid copy (the
        export was a host write, and every access below leaves it so): the
        alias may have written it since any device copy was made.  The
        device copy is re-synced from it (a counted move, unless all of it
        is about to be overwritten) and is valid for this access only: a
        read leaves the host the only valid copy at once; a write leaves the
        device copy the only valid one until the writer calls
        :meth:`_write_back_past_alias`, which copies it back.  That copy
        back is checked against the transfer guard here, before anything is
        written, so a forbidden one fails with nothing changed."""
        why = f"host alias: {reason}"
        if write or overwrite:
            # The copy back, judged by the guard now (a transfer is judged
            # when it is made) and made by _write_back_past_alias.
            self._copy_back = transfer(str(dev), "cpu", self.nbytes, why, explicit)
        if overwrite:
            if dev not in self._copies:
                self._copies[dev] = self._allocate(dev, zero=False)
                hook = DEVICE_COPY_HOOK[0]
                if hook is not None:
                    hook(self, dev)
        elif dev not in self._valid:
            self._move_to(dev, why, explicit)
        if write or overwrite:
            self._version += 1
            self._set_valid(_NO_COPY if overwrite else frozenset((dev,)))  # overwrite: see _acquire
        else:
            self._set_valid(_only(CPU))
        return self._copies[dev]

    def _write_back_past_alias(self, dev: Device, reason: str) -> None:
        """After a write on ``dev``'s copy: while a host alias may be alive,
        the written copy goes back to the host at once (counted; the guard
        was asked in :meth:`_acquire_past_alias`) and the host is again the
        only valid copy, so the alias sees the write and its own later
        writes are not missed by the next device read."""
        judged, self._copy_back = self._copy_back, None
        if dev is CPU or dev not in self._valid or CPU in self._valid or not self.host_aliased():
            return
        if judged is None:  # never so (a write past an alias is judged when it acquires): recorded all the same
            judged = transfer(str(dev), "cpu", self.nbytes, f"host alias: {reason}", False, False)
        with judged:
            backend_for(dev).download(self._copies[dev], self._copies[CPU])
        self._set_valid(_only(CPU))

    def host_aliased(self) -> bool:
        """Whether an alias of the host copy handed out by
        :meth:`export_host` may still be alive: the export anchor is
        referred to by more than this buffer.  Where none is, the anchor is
        dropped: the buffer is again as if never exported."""
        anchor = self._anchor
        if anchor is None:
            return False
        if sys.getrefcount(anchor) > _ANCHOR_ALONE:
            return True
        self._anchor = None
        return False

    def export_host(self, reason: StrArg, writable: BoolArg = True) -> np.ndarray:
        """The host copy handed out of the library: the one way every path
        that gives out host memory takes (``.host``, ``np.asarray``, DLPack,
        the CPU ``.device``, pickle and distributed frames, ``read``).

        Writable: a host write (the host copy becomes the only valid one,
        synced first if stale) and a view over the export anchor, so that
        the buffer knows, from the anchor's references, while any alias
        derived from it may be alive (see the module docstring for what
        happens then).  Read-only: a read (marks nothing) and a read-only
        view; whoever needs to write into it copies first.

        Example
        -------
        >>> import numpy as np
        >>> from unifiedarray import UnifiedBuffer
        >>> b = UnifiedBuffer((2,)); b.fill(1)
        >>> alias = b.export_host("example")
        >>> alias[0] = 5.0; b.host_aliased(), b.to_numpy().tolist()
        (True, [5.0, 1.0])
        >>> del alias; b.host_aliased()
        False
        """
        with self._lock:
            native = self._acquire(CPU, writable, reason)
            if not writable:
                view = native.view()
                view.flags.writeable = False
                return view
            anchor = self._anchor
            if anchor is None:
                anchor = self._anchor = _anchor_of(native)
            return np.ndarray(native.shape, native.dtype, anchor, anchor.offset, native.strides)

    def _allocate(self, dev: Device, zero: bool) -> Any:
        """A new copy on ``dev``: from this buffer's memory pool if it has
        one and ``dev``'s backend pools its copies (``Backend.poolable``)."""
        backend = backend_for(dev)
        if self._pool_allocation is not None and backend.poolable:
            return self._pool_allocation.pool.allocate_copy(self, dev, zero)
        return backend.zeros(self._shape, self.dtype, dev, self._pinned)

    def wait(self) -> None:
        """Wait for a move still in flight (see :meth:`sync_to_device`), if
        any; every access does this first.

        Example
        -------
        >>> from unifiedarray import UnifiedBuffer
        >>> b = UnifiedBuffer((2,)); b.sync_to_host(blocking=False); b.wait()
        >>> b.ready is not None
        True
        """
        with self._lock:
            pending, self._pending = self._pending, None
            if pending is not None:
                pending.synchronize()
            self._refresh()

    _wait = wait

    def _move_to(self, dev: Device, reason: str, explicit: bool, blocking: bool = True) -> None:
        """Make the stale copy on ``dev`` valid, counting every move."""
        backend = backend_for(dev)
        backend.check_dtype(self.dtype, dev, reason)
        # The leases end before anything is copied: a write through a lease
        # while the copy runs (other threads run while it does) would reach
        # the source only, yet both copies would then be marked valid.
        self._revoke_leases()
        nbytes = self.nbytes
        guarded = True
        if CPU not in self._valid:
            # Device to host first: every path between memory spaces goes
            # through the host, where every backend can meet every other.
            # Device to device, the guard judges the move as a whole at its
            # first hop (a transfer is judged when it is made, before the
            # host copy is taken), and the second is not judged again.
            source = next(iter(self._valid))
            hop = transfer(str(source), "cpu", nbytes, reason, explicit, route=None if dev is CPU else str(dev))
            guarded = dev is CPU
            copies = self._copies
            native = copies[source]
            host = copies.get(CPU)
            if host is None and (self._pool_allocation is not None or self._pinned or not blocking):
                host = self._allocate(CPU, zero=False)  # pooled or pinned memory, or an asynchronous copy's target
            source_backend = backend_for(source)
            with hop as move:
                # The source's pending work (MLX's lazy graph) is waited for
                # apart: the ledger charges the copy with the copy only.
                move.wait_for(source_backend.evaluate, native)
                if host is None:
                    # A first host copy, neither pooled nor pinned, made now:
                    # the backend's own copy out, with no block to copy into.
                    host = source_backend.to_host(native, self.dtype)
                elif not blocking and dev == CPU:
                    self._pending = source_backend.download_async(native, host)
                else:
                    source_backend.download(native, host)
            copies[CPU] = host
            self._set_valid(self._valid | {CPU})
        if dev != CPU:
            with transfer("cpu", str(dev), nbytes, reason, explicit, guarded):
                if not backend.uploads_into:
                    # The stale copy cannot be written into (MLX's arrays are
                    # values): free it first, so its memory can be reused.
                    self._copies.pop(dev, None)
                if blocking:
                    self._copies[dev] = backend.upload(self._copies[CPU], dev, into=self._copies.get(dev))
                else:
                    self._copies[dev], self._pending = backend.upload_async(
                        self._copies[CPU], dev, into=self._copies.get(dev)
                    )
            self._set_valid(self._valid | {dev})
            hook = DEVICE_COPY_HOOK[0]
            if hook is not None:
                hook(self, dev)

    def _set_valid(self, valid: frozenset[Device]) -> None:
        # Any change of the valid set ends the leases handed out so far: a
        # handle written after this point would be written unseen.
        if self._leased is not None:
            self._revoke_leases()
        if self._after is not None and valid != self._valid and any(rec[1] for rec in self._after.values()):
            # The leases end: their streams' work so far goes before what
            # comes next (writes after this are the caller's to declare).
            self._follow_streams()
            for rec in self._after.values():
                rec[1] = []
        self._valid = valid
        self._refresh()

    # -- streams (CUDA): every access follows the work it must follow ----------------------
    def _follow_streams(self, extra: Device | None = None) -> None:
        """Before work on this buffer's device copies (and on ``extra``'s,
        about to be made): each device's current stream follows (on the
        GPU, the host does not wait) the work recorded there, which then
        becomes its record (see ``Backend.follow``).  The record per device
        is ``[last, leases]``: the stream (or a pooled block's event) the
        last work was queued on (``None``: the default stream), and the
        streams of the handles lent and still live, whose writes may go on
        after any access.  A non-blocking stream and the legacy default
        stream never wait for each other, so a buffer written through a
        handle lent under ``with stream:`` and read with none current (or
        the reverse) must order the two itself.  While anything is recorded
        ``_pending`` holds an ``_OrderAfter``, which every access (the
        dispatch's fast paths included) waits for."""
        after = self._after
        if after is None and not _orders_streams(extra):
            made = self._copies_made  # None: one copy, on the placement (see _copies)
            if not (_orders_streams(self.placement) if made is None else any(map(_orders_streams, made))):
                return  # nothing recorded, and no backend here queues work out of order (nor _pending an _OrderAfter)
        copies = self._copies
        devices = copies if extra is None or extra in copies else [*copies, extra]
        for dev in devices:
            if dev is CPU:
                continue
            rec = after.get(dev) if after is not None else None
            leases = rec[1] if rec is not None else []
            last = backend_for(dev).follow(dev, None if rec is None else rec[0], leases)
            if last is None and not leases:
                if rec is not None:
                    del after[dev]  # type: ignore[union-attr]
            elif rec is not None:
                rec[0] = last
            else:
                if after is None:
                    after = self._after = {}
                after[dev] = [last, leases]
        if not after:
            self._after = None
            if type(self._pending) is _OrderAfter:
                self._pending = None
                self._refresh()
        elif self._pending is None:
            self._pending = _OrderAfter(self._follow_streams)
            self._refresh()

    def _record_lease(self, dev: Device) -> None:
        """Record the stream current on ``dev`` as a live lease's (a handle
        lent, or an outside write declared): its writes may go on there."""
        stream = backend_for(dev).writer_stream(dev)
        if stream is None:
            return
        after = self._after
        if after is None:
            after = self._after = {}
        rec = after.setdefault(dev, [stream, []])
        if not any(s == stream for s in rec[1]):
            rec[1].append(stream)
        if self._pending is None:
            self._pending = _OrderAfter(self._follow_streams)
            self._refresh()

    def follow_event(self, dev: Device, event: Any, now: BoolArg = False) -> None:
        """Make ``event`` (the end of a pooled block's last owner's work, or
        None: nothing) the work the next access on ``dev`` follows: ``dev``'s
        copy is that block, just lent (by :mod:`unifiedarray._pool`), so
        nothing else is recorded for it.  With ``now``, the current stream
        follows it at once (the copy is used now).

        Example
        -------
        >>> from unifiedarray import UnifiedBuffer
        >>> from unifiedarray._devices import CPU
        >>> b = UnifiedBuffer((2,)); b.follow_event(CPU, None); b.ready is None
        True
        """
        if event is None:
            return
        with self._lock:
            after = self._after
            if after is None:
                after = self._after = {}
            after[dev] = [event, []]
            if self._pending is None:
                self._pending = _OrderAfter(self._follow_streams)
                self._refresh()
            if now:
                self._follow_streams()

    def _revoke_leases(self) -> None:
        """End the lease handed out, if any.  A revocable one
        (``Backend.revocable_leases``) is detached: the buffer keeps a copy
        of the data that shares no memory with the handle
        (``Backend.detach``), so no write through the handle, or through a
        NumPy view or memoryview taken of it, reaches the buffer after its
        lease.  Other handles cannot be revoked (CUDA's are raw device
        memory): writes through them after their lease are the case
        ``mark_device_dirty()`` exists for.  Host memory needs no revoking:
        its aliases are seen (see :meth:`export_host`)."""
        dev = self._leased
        if dev is not None:
            self._leased = None
            backend = backend_for(dev)
            if backend.revocable_leases and dev in self._copies:
                self._copies[dev] = backend.detach(self._copies[dev])
            self._refresh()

    def lease(self, dev: Device, reason: StrArg) -> Any:
        """A writable handle on ``dev``'s copy, counted as a write.  On the
        host, an alias from :meth:`export_host`; on a device, refused
        while a host alias may be alive (its writes could not be copied
        back to the authoritative host copy)."""
        if dev == CPU:
            return self.export_host(reason)
        with self._lock:
            if self._anchor is not None and self.host_aliased():
                raise BufferError(
                    f"{reason}: a writable handle on the {dev} copy is refused while a NumPy alias of this "
                    f"buffer's host copy may be alive (np.asarray, .host, a DLPack export, or a view or "
                    f"memoryview of one): the host copy is authoritative then, and writes through a device "
                    f"handle could go unseen. Delete the alias, or write through the array"
                )
            native = self._acquire(dev, True, reason)
            backend = backend_for(dev)
            if backend.revocable_leases:
                # The same object (writes through it reach the buffer), made
                # ready to be written by the caller (MLX: on the library's
                # stream), and detached when the lease ends.
                native = self._copies[dev] = backend.lease(native)
                self._refresh()
            # Lent until the valid set next changes: the version counts each
            # read meanwhile as a write, and a spill keeps the copy.
            self._leased = dev
            self._record_lease(dev)  # where the caller's writes will queue
            return native

    def write(self, dev: Device, write: Any, reason: StrArg) -> None:
        """Write in place into the copy on ``dev``: a counted write.

        ``write(native)`` performs the in-place writes on the native copy
        (``native[key] = value`` on NumPy, CuPy and MLX; MLX's setitem
        rebinds that same Python object), through ``Backend.write``.  The
        buffer does the rest, under its lock: it makes the copy on ``dev``
        current (a move if stale), the only valid one, and bumps the version;
        the leases of other copies end, and a lease on ``dev``'s own copy
        stays valid (writes through it keep reaching the buffer); on MLX the
        write runs on the library's stream and is settled before any other
        thread can see the copy.

        Example
        -------
        >>> from unifiedarray import UnifiedBuffer
        >>> from unifiedarray._devices import CPU
        >>> b = UnifiedBuffer((3,)); b.fill(0)
        >>> b.write(CPU, lambda native: native.__setitem__(1, 5.0), "example")
        >>> b.to_numpy()
        array([0., 5., 0.], dtype=float32)
        """
        if dev is CPU:
            self._written(CPU, reason, False, write, True)  # the host's step takes the copy alone
        else:
            backend = backend_for(dev)
            self._written(dev, reason, False, lambda native, in_place: backend.write(native, write, in_place=in_place))

    def _written(
        self, dev: Device, reason: str, overwrite: bool, step: Callable[..., Any], copy_only: bool = False
    ) -> None:
        """The one way data is written through the buffer (:meth:`write`,
        :meth:`fill`, :meth:`copy_from`): ``step(native, in_place)`` writes
        the copy on ``dev``, made current (all of it about to be replaced
        with ``overwrite``: no move) and the only valid one, and returns the
        copy that holds the result (a device's, published; a host copy is
        written in place).  ``in_place``: that copy is a live lease.  With
        ``copy_only``, ``step(native)``: a host write's, called as it is
        (a small ``x[i] = v`` on the host is most of its cost).

        All of it under the buffer's lock: a write made after the lock is
        released lets another thread move the half-written copy to another
        device, whose copy is then marked current and stale.  And while all
        of a copy is overwritten no copy is current (``_acquire``): a
        reader that takes no lock (:meth:`native`, the dispatch's fast
        paths on :attr:`ready` and :attr:`host_ready`) would read the stale
        copy's old data, older than what was current before the write; it
        takes the lock instead, and waits for the write.
        """
        with self._lock:
            native = self._acquire(dev, True, reason, overwrite=overwrite)
            if not overwrite:
                written = step(native) if copy_only else step(native, self._leased is dev)
                if dev is not CPU:
                    self._publish(dev, written)
            else:
                try:
                    written = step(native, self._leased is dev)
                    if dev is not CPU:
                        self._publish(dev, written)
                finally:
                    # Not _set_valid: a lease on this copy stays lent (see write).
                    self._valid = _ONLY.get(dev) or _only(dev)
                    self._refresh()
            if self._anchor is not None:
                self._write_back_past_alias(dev, reason)

    def _publish(self, dev: Device, native: Any) -> None:
        """Make ``native`` (what a backend's write returned: the written copy
        itself, or a new array holding the written data) the copy on ``dev``
        (under the lock)."""
        self._copies[dev] = native
        self._refresh()

    def drop_copy(self, dev: Device, spill: BoolArg) -> bool:
        """Free the copy on ``dev`` (a per-device memory limit's eviction):
        at once where another copy is current; with ``spill``, after moving
        a device-only copy to the host (counted, reason "spill").  False
        where it cannot be done now: the buffer is in use by another thread
        (never waited for: no lock-order deadlock), a move is in flight, the
        copy is a pooled block (freeing it would free nothing), or it is lent
        as a live lease (a handle from :meth:`lease` still held, or anything
        else referring to that copy: a pickle-5 frame of MLX's memory cannot
        be told apart from a handle, and keeps the copy alive anyway)."""
        lock = self._lock
        if not lock.acquire(blocking=False):
            return False
        try:
            if dev not in self._copies:
                return True  # already gone
            if self._pending is not None or self._released or self._pool_allocation is not None:
                return False
            if self._leased is dev:
                # A live lease is never ended by an eviction: writes through
                # the handle must keep reaching this copy (and dropping a copy
                # a handle holds frees nothing).  Live: referred to beyond
                # this buffer's slots (the copies and ready) and this local.
                native = self._copies[dev]
                if sys.getrefcount(native) > _ANCHOR_ALONE + (native is self.ready):
                    return False
                del native
            if dev in self._valid and CPU not in self._valid:
                if not spill:
                    return False
                host = self._copies.get(CPU)
                if host is None:
                    host = backend_for(CPU).zeros(self._shape, self.dtype, CPU, self._pinned)
                with transfer(str(dev), "cpu", self.nbytes, "spill", explicit=True):
                    backend_for(dev).download(self._copies[dev], host)
                self._copies[CPU] = host
                self._set_valid(self._valid | {CPU})
            # _set_valid first: it ends leases, and detaching a lease reads the copy.
            self._set_valid(self._valid - {dev})
            del self._copies[dev]
            self._refresh()
            return True
        finally:
            lock.release()

    def retire(self) -> Any:
        """End this buffer for its memory pool (``MemoryPool.release``): a
        move in flight is waited for, the streams' work is followed (so the
        event recorded next ends all the work on its blocks), the leases end,
        and every copy is dropped; any later use raises ``RuntimeError``.
        Returns the pool's allocation, whose blocks the pool takes back.
        Aliases of the host copy still alive keep its block through the
        export anchor: the pool then holds that block, never lending it."""
        with self._lock:
            if self._released:
                raise RuntimeError("release: this buffer was already released")
            if self._pending is not None:
                self.wait()  # a non-blocking move may still be writing into a block
            self._follow_streams()
            self._set_valid(_NO_COPIES)  # ends a lease
            self._released = True
            self._copies = {}
            self._anchor = None
            self._refresh()
            return self._pool_allocation

    def read(self, device: DeviceLike = CPU) -> Any:
        """The current data on ``device``, for reading: syncs a stale copy,
        marks nothing.  On the host the result is a read-only view; on a
        device, whose arrays carry no read-only flag (CuPy's, MLX's), a copy
        there (``Backend.detach``) that shares no memory with the buffer's,
        so a write through it, or through a NumPy view of it, is never an
        unseen write.  For zero-copy device access take a lease
        (:attr:`mlx`, :attr:`device`: counted as a write).

        Example
        -------
        >>> from unifiedarray import UnifiedBuffer
        >>> b = UnifiedBuffer((2,)); b.fill(1)
        >>> b.read("cpu").flags.writeable
        False
        """
        dev = Device.parse(device)
        if dev == CPU:
            return self.export_host("UnifiedBuffer.read", writable=False)
        with self._lock:  # the copy is taken before another thread can write
            return backend_for(dev).detach(self._acquire(dev, False, "UnifiedBuffer.read"))

    # -- documented properties -----------------------------------------------
    @property
    def host(self) -> np.ndarray:
        """A writable NumPy view of the host copy (synced first if stale).

        Handing it out counts as a host write: the device copies become stale.
        While it (or any view, memoryview or export of it) is alive, the host
        copy is authoritative: a device read re-syncs from it and a device
        write is copied back to it (both counted, reason ``"host alias:
        ..."``), so a write through it is never missed and it never reads
        stale data.  To read without marking anything, use :meth:`to_numpy`.
        """
        return self.lease(CPU, "UnifiedBuffer.host")

    def _accelerator(self) -> Device:
        if self.placement != CPU:
            return self.placement
        backend = host_accelerator()
        if backend is None:
            return CPU
        # A host buffer's accelerator copy: the device of that backend that
        # holds a current copy, else one that holds a copy, else its first.
        kind = backend.kind
        gpus = [d for d in self._valid if d.kind == kind] or [d for d in self._copies if d.kind == kind]
        return min(gpus, key=lambda d: d.index) if gpus else backend.devices()[0]

    @property
    def device(self) -> Any:
        """A writable handle on the accelerator copy (synced first if stale).

        The accelerator is this buffer's ``device=`` if one was given, else
        the CUDA GPU that holds its copy (the first GPU before any does); on
        a machine without CUDA it is the host, and this is the same NumPy
        data as :attr:`host`.  Handing it out counts as a
        write on that copy.
        """
        return self.lease(self._accelerator(), "UnifiedBuffer.device")

    @property
    def mlx(self) -> Any:
        """A writable MLX array holding this buffer's data (synced first if
        stale); counts as an MLX write.  Works wherever MLX is installed."""
        return self.lease(MLX, "UnifiedBuffer.mlx")

    @property
    def metal(self) -> Any:
        """The MLX copy where MLX runs on Apple Metal; elsewhere a
        ``RuntimeError`` saying why (use :attr:`mlx` there)."""
        reason = registry()[MLX.kind].facilities()["metal"]
        if reason is not None:
            raise RuntimeError(f"UnifiedBuffer.metal: {reason}")
        return self.lease(MLX, "UnifiedBuffer.metal")

    # -- documented methods ----------------------------------------------------
    def sync_to_device(self, device: DeviceLike | None = None, *, blocking: BoolArg = True) -> None:
        """Make the accelerator copy (or ``device``'s) current; an explicit
        move, allowed under every transfer guard.  Marks nothing dirty.

        With ``blocking=False`` on CUDA (and a pinned host copy) this returns
        at once: the copy runs on a copy stream that the current stream waits
        for on the GPU, so work queued after it on the current stream sees
        the data, and any later access to this buffer from Python (a host
        write included) first waits for the copy to finish.  Elsewhere the
        move is made before returning.
        """
        dev = self._accelerator() if device is None else Device.parse(device)
        self._acquire(dev, False, "sync_to_device", explicit=True, blocking=blocking)

    def sync_to_host(self, *, blocking: BoolArg = True) -> None:
        """Make the host copy current; an explicit move.  Marks nothing dirty.
        ``blocking=False`` as for :meth:`sync_to_device`."""
        self._acquire(CPU, False, "sync_to_host", explicit=True, blocking=blocking)

    def _mark(self, dev: Device) -> None:
        with self._lock:
            self._check_alive()
            if dev not in self._copies:
                raise RuntimeError(f"mark_*_dirty: this buffer has no copy on {dev} to mark")
            if dev is not CPU and self._anchor is not None and self.host_aliased():
                # The host stays authoritative: the declared write (the copy as
                # the outside code left it) goes back to it.
                self._written(dev, "mark_dirty", True, lambda native, in_place: native)
                return
            self._version += 1
            self._follow_streams()  # the outside write, on the current stream, is the last work now
            self._set_valid(frozenset((dev,)))
            self._record_lease(dev)  # and its stream may write on

    def mark_host_dirty(self) -> None:
        """Declare the host copy written by code the library cannot see
        (a raw pointer, a C extension): it becomes the only valid copy."""
        self._mark(CPU)

    def mark_device_dirty(self) -> None:
        """Declare the accelerator copy written by an outside kernel."""
        self._mark(self._accelerator())

    def mark_mlx_dirty(self) -> None:
        """Declare the MLX copy written outside the library."""
        self._mark(MLX)

    mark_metal_dirty = mark_mlx_dirty

    def fill(self, value: Any) -> None:
        """Set every element to ``value``, on the copy that is current (no
        move: the old data is not needed).

        Example
        -------
        >>> from unifiedarray import UnifiedBuffer
        >>> b = UnifiedBuffer((2,), dtype="int32"); b.fill(7); b.to_numpy()
        array([7, 7], dtype=int32)
        """
        value = _rules.store(self.dtype, value, "UnifiedBuffer.fill")  # converted: every backend stores it exactly
        with self._lock:  # the copy chosen is the one written
            dev = self.placement if not self._valid else (CPU if CPU in self._valid else next(iter(self._valid)))
            backend = backend_for(dev)
            self._written(
                dev, "UnifiedBuffer.fill", True, lambda native, in_place: backend.fill(native, value, in_place=in_place)
            )

    def copy_from(self, array: Any) -> None:
        """Replace the data with ``array`` (same shape; cast to this dtype
        under ``same_kind`` rules).  A NumPy or CuPy or MLX array is copied
        into the copy on its own memory space: one copy, no detour.

        Example
        -------
        >>> import numpy as np
        >>> from unifiedarray import UnifiedBuffer
        >>> b = UnifiedBuffer((3,)); b.copy_from(np.arange(3)); b.to_numpy()
        array([0., 1., 2.], dtype=float32)
        """
        backend = backend_of_native(array)
        dev = CPU if backend is None else backend.device_of(array)
        if dev is CPU:
            src = np.asarray(array)
            self._check_copy(src.shape, src.dtype)
            self._written(
                CPU, "UnifiedBuffer.copy_from", True, lambda host, in_place: np.copyto(host, src, casting="same_kind")
            )
            return
        assert backend is not None
        self._check_copy(tuple(array.shape), backend.dtype_of(array))
        # Backend.copy_into copies: the buffer's copy never shares memory
        # with the caller's array, whose later writes (MLX's through NumPy
        # too) must not reach it.
        device_backend = backend  # (a name the closure below sees as a Backend, not an Optional)
        self._written(
            dev,
            "UnifiedBuffer.copy_from",
            True,
            lambda native, in_place: device_backend.copy_into(native, array, in_place=in_place),
        )

    def _check_copy(self, shape: tuple[int, ...], dtype: np.dtype) -> None:
        if tuple(shape) != self._shape:
            raise ValueError(f"copy_from: shape {tuple(shape)} does not match buffer shape {self._shape}")
        if _rules.cast_into(np.dtype(dtype), self.dtype, "copy_from", casting="same_kind"):
            raise TypeError(f"copy_from: a {dtype} array into a {self.dtype} buffer would drop the imaginary part")

    def __copy__(self) -> UnifiedBuffer:
        """A new buffer holding a copy of this one's current data (on the
        device where it is current; no move), with its shape, dtype,
        placement and pinning: ``copy.copy`` and ``copy.deepcopy`` give
        buffers that share nothing, so a write to either is never seen by
        the other, and neither's copies are marked current by the other.

        Example
        -------
        >>> import copy
        >>> from unifiedarray import UnifiedBuffer
        >>> a = UnifiedBuffer((2,)); a.fill(1.0)
        >>> b = copy.copy(a); b.fill(2.0); a.to_numpy().tolist(), b.to_numpy().tolist()
        ([1.0, 1.0], [2.0, 2.0])
        """
        with self._lock:
            valid = self._valid
            if not valid:
                return _copy_holding(self, None, None)
            # The placement where it is current, else the host, else a device.
            dev = self.placement if self.placement in valid else CPU if CPU in valid else next(iter(valid))
            native = self._acquire(dev, False, "copy")
            return _copy_holding(self, dev, backend_for(dev).copy(native))

    def __deepcopy__(self, memo: DictArg) -> UnifiedBuffer:
        """:meth:`__copy__`: a buffer's data holds no Python objects."""
        return self.__copy__()

    def to_numpy(self) -> np.ndarray:
        """The data on the host as a read-only NumPy view (synced first if
        stale; marks nothing).  Use ``.copy()`` for an array you own."""
        return self.read(CPU)

    def __repr__(self) -> str:
        return (
            f"UnifiedBuffer(shape={self._shape}, dtype={self.dtype.name}, placement={self.placement}, "
            f"state={self.state.name}, valid={sorted(self._valid)})"
        )


def _copy_holding(like: UnifiedBuffer, dev: Device | None, data: Any) -> UnifiedBuffer:
    """A new buffer of ``like``'s shape, dtype, placement and pinning whose
    only copy is ``data`` on ``dev`` (None: no data yet), for
    :meth:`UnifiedBuffer.__copy__`."""
    self: UnifiedBuffer = UnifiedBuffer.__new__(UnifiedBuffer)
    self._setup(like.shape, like.dtype, like.placement, like.pinned)
    if dev is not None:
        self._copies = {dev: data}
        with self._lock:
            self._set_valid(_only(dev))
        hook = DEVICE_COPY_HOOK[0]
        if hook is not None and dev is not CPU:
            hook(self, dev)
    return self


class _OrderAfter:
    """A buffer's ``_pending`` while stream work is recorded for it (see
    ``UnifiedBuffer._follow_streams``, which it holds): waiting for it makes
    each device's current stream follow that work, on the GPU (the host
    does not wait), and stays armed while anything is still recorded."""

    __slots__ = ("synchronize",)

    def __init__(self, follow_streams: Any) -> None:
        self.synchronize = follow_streams


def host_accelerator() -> Backend | None:
    """The backend whose device a host buffer's accelerator copy lives on
    (:attr:`UnifiedBuffer.device`): the first available backend that says
    so (``Backend.host_accelerator``: CUDA's), or None."""
    for backend in all_backends():
        if backend.host_accelerator and backend.available:
            return backend
    return None


def adopt(native: Any, device: Device, dtype: np.dtype, shape: Any = None) -> UnifiedBuffer:
    """A buffer that adopts ``native`` (already on ``device``) as its only
    copy; ``shape`` is ``native.shape`` where the caller has it at hand.
    The caller guarantees nothing else aliases ``native``.

    Every operation's result comes through here, so it is a plain function
    that sets the fields itself (a classmethod and :meth:`_setup` cost a
    measurable share of a small array's ``a + b``).
    """
    self: UnifiedBuffer = UnifiedBuffer.__new__(UnifiedBuffer)
    self._shape = native.shape if shape is None else shape
    self.dtype = dtype
    self._pinned = False
    self.placement = device
    self._copies_made = None  # made on first use: {device: native} (see UnifiedBuffer._copies)
    self._solo = native
    self._valid = _ONLY_CPU if device is CPU else (_only_get(device) or _only(device))  # _only, inlined
    self._lock_obj = None
    self._anchor = None
    self._leased = None
    self._released = False
    self._version = 0
    self._pool_allocation = None
    self._pending = None
    self._after = None
    self._copy_back = None
    self.ready = native
    if device is CPU:
        self.host_ready = native
    else:
        self.host_ready = None
        hook = DEVICE_COPY_HOOK[0]
        if hook is not None:
            hook(self, device)
    return self


_NO_COPIES: frozenset[Device] = frozenset()


def pooled(
    native: Any,
    shape: tuple[int, ...],
    dtype: np.dtype,
    device: Device,
    pinned: bool,
    allocation: Any,
    after: Any = None,
) -> UnifiedBuffer:
    """A buffer made by a memory pool (:mod:`unifiedarray._pool`) for
    ``allocation``: ``native`` (a view of a pooled block on ``device``, or
    None where ``device``'s backend pools nothing) is its copy there, and no
    copy is valid yet (reads see zeros, never an old owner's data).  Its
    first use follows ``after``, the end of the block's last owner's work
    (see :meth:`UnifiedBuffer.follow_event`)."""
    if native is None:
        self: UnifiedBuffer = UnifiedBuffer.__new__(UnifiedBuffer)
        self._setup(shape, dtype, device, pinned)
    else:
        self = adopt(native, device, dtype)
        self._valid = _NO_COPIES  # uninitialised until used
        self._pinned = pinned
        self._refresh()
        self.follow_event(device, after)
    self._pool_allocation = allocation
    return self


def upload_new(host: np.ndarray, device: Device, reason: str, explicit: bool) -> UnifiedBuffer:
    """A new buffer on ``device`` whose only copy is ``host``'s data copied
    there: a counted move (``explicit`` for ``to_device`` and ``asarray``,
    implicit for a host fallback's result).  ``host`` is not kept."""
    backend = backend_for(device)
    backend.check_dtype(host.dtype, device, reason)
    if host.base is not None or not host.flags.c_contiguous:
        # A view may have negative or zero strides even where NumPy calls it
        # contiguous (one element): a backend gets plain C-ordered memory.
        host = np.array(host, order="C")
    with transfer("cpu", str(device), host.nbytes, reason, explicit):
        native = backend.upload(host, device)
    return adopt(native, device, np.dtype(host.dtype))


def download_new(native: Any, device: Device, reason: str) -> np.ndarray:
    """A new host array holding the data of ``native`` (a native array of
    ``device``: a buffer's copy, or a view of one): a counted move whose
    result no buffer keeps (a frame sent elsewhere); :func:`upload_new` is
    the other way."""
    backend = backend_for(device)
    dtype = backend.dtype_of(native)
    with transfer(str(device), "cpu", dtype.itemsize * prod(native.shape), reason) as move:
        move.wait_for(backend.evaluate, native)
        return backend.to_host(native, dtype)


def download_element(native: Any, device: Device, itemsize: int, reason: str) -> Any:
    """The one element of ``native`` (a current copy on ``device``, of size
    1, its dtype ``itemsize`` bytes) as a Python scalar: a counted move of
    those bytes, judged by the transfer guard, whose result no buffer keeps.
    What a scalar read of an array whose only current copies are on devices
    makes (:meth:`UnifiedBuffer.element`, and a lone result's read in
    ``_array.python_scalar``)."""
    try:
        reader = _ELEMENT_READERS[device]
    except KeyError:
        reader = _element_reader(device)
    return copy_out(reader[0], itemsize, reason, reader[1], native)


def lone_element(native: Any, device: Device, itemsize: int, reason: str) -> Any:
    """:func:`download_element` of a lone result's copy (an array with no
    buffer yet, see ``UnifiedArray.buffer``), or ``NotImplemented`` where
    ``device``'s backend orders work across streams (CUDA): a read there
    goes after the work it must follow, which the array's buffer orders
    (:meth:`UnifiedBuffer.element`), so the caller reads through it."""
    try:
        reader = _ELEMENT_READERS[device]
    except KeyError:
        reader = _element_reader(device)
    if reader[2]:
        return NotImplemented
    return copy_out(reader[0], itemsize, reason, reader[1], native)


#: device -> ``(its name, its backend's element, whether the backend orders
#: work across streams)``: what a scalar read there needs, asked of the
#: backend once per device (as ``backend_for`` keeps its answer, and
#: forgotten with it where a backend is registered or unregistered).
_ELEMENT_READERS: dict[Device, tuple[str, Callable[[Any], Any], bool]] = {}


# Guards _ELEMENT_READERS' entries against a registry change in between
# (its count of forgettings, _READERS_FORGOTTEN, says whether one came).
_READERS_LOCK = threading.Lock()  # a leaf lock: see backends/mlx_evaluation.py, "Lock order"
_READERS_FORGOTTEN = [0]


def _element_reader(device: Device) -> tuple[str, Callable[[Any], Any], bool]:
    """``device``'s entry of :data:`_ELEMENT_READERS`, made (and kept unless
    the registry changed while it was made)."""
    with _READERS_LOCK:
        forgotten = _READERS_FORGOTTEN[0]
    backend = backend_for(device)
    reader = (str(device), backend.element, _backend_orders_streams(backend))
    with _READERS_LOCK:
        if _READERS_FORGOTTEN[0] == forgotten:
            _ELEMENT_READERS[device] = reader
    return reader


def _forget_element_readers() -> None:
    """Forget every device's scalar-read backend: the registry changed."""
    with _READERS_LOCK:
        _ELEMENT_READERS.clear()
        _READERS_FORGOTTEN[0] += 1


on_change(_forget_element_readers)
