"""The interface every backend implements: :class:`Backend`.

A backend owns one kind of device (a memory space with its own array type):
it allocates arrays there, copies host arrays in and out, says which dtypes
it can hold, reports memory, and hands out the Array API namespace that
computes on its arrays.  The registry (:mod:`unifiedarray.backends._registry`)
knows every backend, built-in or plug-in.

Example
-------
>>> from unifiedarray.backends import Backend
>>> Backend.kind, Backend.indexed
('', False)
"""

from __future__ import annotations

import os
import re
import sys
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from types import ModuleType
from typing import Any, ClassVar

import numpy as np

if sys.platform != "win32":
    import resource

from .._devices import Device

__all__ = [
    "DONE",
    "Backend",
    "KeyedSource",
    "RandomSource",
    "canonical",
    "canonical_dtype",
    "contiguous",
    "host_memory_info",
    "largest_host_allocation",
]


class Backend:
    """The interface every memory space implements.

    ``native`` below means the backend's own array type (``numpy.ndarray``,
    ``cupy.ndarray``, ``mlx.core.array``).
    """

    #: short name: "numpy", "cupy", "mlx"
    name: str = ""
    #: a human name for reports
    title: str = ""
    #: the kind of device it owns: "cpu", "cuda", "mlx", or a plug-in's own
    kind: str = ""
    #: whether its devices are numbered (named "kind:N"; the bare "kind"
    #: then means :meth:`current_index`), else it has one device named "kind"
    indexed: bool = False
    #: other names of its kind ("gpu" for "cuda")
    device_aliases: tuple[str, ...] = ()
    #: whether a memory pool may lend its copies pooled blocks: it can view a
    #: block of :meth:`empty_block` as an array (NumPy, CuPy); where not
    #: (MLX's arrays are values with MLX's own allocator cache, a plug-in
    #: without ``empty_block``), a pool's buffers get ordinary copies there
    poolable: bool = False
    #: whether :meth:`upload` can write into an existing stale copy
    #: (``into``); where it cannot (MLX), the buffer frees the stale copy
    #: before the upload, so that its memory can be reused
    uploads_into: bool = True
    #: whether a writable handle on a copy (a lease) can be ended: the buffer
    #: then hands out :meth:`lease`'s handle and, when the lease ends,
    #: replaces it by :meth:`detach`'s (MLX); where it cannot (raw CUDA
    #: memory), writes after the lease are the caller's to declare
    revocable_leases: bool = False
    #: whether a host buffer's accelerator copy (``UnifiedBuffer.device``,
    #: ``sync_to_device()`` with no device) lives on this backend's devices
    #: (CUDA's GPUs); the first available backend that says so is used
    host_accelerator: bool = False
    #: how much :func:`unifiedarray.get_accelerator` prefers this backend's
    #: first device when no device is named: the highest present wins
    #: (CUDA 2, MLX 1); 0: never chosen by default
    accelerator_preference: int = 0
    #: whether copies from page-locked host memory to this backend's devices
    #: run asynchronously (CUDA), so that streaming stages through it
    pinned_uploads_async: bool = False
    #: whether :meth:`numpy_like` takes NumPy's call forms function by
    #: function (CuPy): NumPy's functions called on this backend's arrays
    #: (``np.nanmean(x)``) then run as that module's function of the same
    #: name; elsewhere by the function's row of the route table
    #: (:mod:`unifiedarray._routes`), and only where the row says so or does
    #: not take the call form, on the host (counted)
    numpy_compatible: bool = False
    #: whether this backend's compiled kernels (``fuse``) cast floats out of
    #: an integer dtype's range (inf, NaN, too large) as its eager cast does;
    #: where not, fuse runs such casts eagerly
    compiled_casts_agree: bool = True
    #: the complex dtype a complex Python scalar or complex data takes by
    #: default on this backend's devices (MLX holds no complex128)
    default_complex: np.dtype = np.dtype(np.complex128)
    #: how this backend's exceptions map onto the host's classes for the
    #: same call: ``(class, pattern of its message, host's class)``, checked
    #: in order by :func:`unifiedarray._errors.translate`; an exception no
    #: row matches passes through unchanged
    error_translations: tuple[tuple[type[BaseException], re.Pattern[str], type[Exception]], ...] = ()

    def __init__(self) -> None:
        self._probe_lock = threading.Lock()
        self._probed = False
        self._reason: str | None = None

    # -- discovery ---------------------------------------------------------
    def _probe(self) -> str | None:
        """Return None when usable, else why not.  Must never raise."""
        raise NotImplementedError

    def _ensure_probed(self) -> None:
        if not self._probed:
            with self._probe_lock:
                if not self._probed:
                    try:
                        self._reason = self._probe()
                    except Exception as exc:  # discovery must never crash
                        self._reason = f"{type(exc).__name__}: {exc}"
                    self._probed = True

    @property
    def available(self) -> bool:
        self._ensure_probed()
        return self._reason is None

    @property
    def unavailable_reason(self) -> str | None:
        self._ensure_probed()
        return self._reason

    def devices(self) -> list[Device]:
        """The devices of this backend present on this machine."""
        raise NotImplementedError

    # -- device names --------------------------------------------------------
    def current_index(self) -> int:
        """Which device the bare kind name means, for an indexed kind
        (CUDA: CuPy's current GPU).  Must never raise."""
        return 0

    def device_from_object(self, obj: Any) -> Device | None:
        """The :class:`Device` a library's own device object stands for
        (``cupy.cuda.Device(1)``), or None when ``obj`` is not one of this
        backend's."""
        return None

    # -- data --------------------------------------------------------------
    def supports_dtype(self, dtype: np.dtype, device: Device) -> bool:
        return True

    def check_dtype(self, dtype: np.dtype, device: Device, operation: str) -> None:
        """Raise ``TypeError`` naming backend, dtype and operation if the
        backend cannot hold ``dtype``.  Never cast silently."""
        if not self.supports_dtype(dtype, device):
            dt = np.dtype(dtype)
            what = dt.name if dt.isnative else f"{dt.name} in non-native byte order ({dt.str})"
            raise TypeError(
                f"{self.name} on {device} cannot hold dtype {what} "
                f"(in {operation}); keep this array on another device, or convert it "
                f"explicitly with astype first"
            )

    def zeros(self, shape: tuple[int, ...], dtype: np.dtype, device: Device, pinned: bool = False) -> Any:
        raise NotImplementedError

    def upload(self, host: np.ndarray, device: Device, into: Any = None) -> Any:
        """Copy ``host`` into this backend's memory; reuse ``into`` when the
        backend can write into an existing allocation.  Returns the array."""
        raise NotImplementedError

    def download(self, native: Any, out: np.ndarray) -> None:
        """Copy ``native`` into the host array ``out``, directly: no
        intermediate host array."""
        raise NotImplementedError

    def to_host(self, native: Any, dtype: np.dtype) -> np.ndarray:
        """A new host array (C order, its own memory) holding ``native``'s
        data as ``dtype``, its dtype: a first host copy, with no block to
        copy into.  ``native`` is ready: the caller has waited for its
        pending work with :meth:`evaluate` (a buffer's move does, and times
        the wait apart from the copy), so no backend evaluates again here."""
        out = np.empty(tuple(native.shape), dtype)
        self.download(native, out)
        return out

    def element(self, native: Any) -> Any:
        """The one element of ``native`` (an array of size 1) as a Python
        scalar (``bool``, ``int``, ``float`` or ``complex``, as NumPy's
        ``item()`` gives it), copied out alone: what ``float(x)`` reads
        where ``x``'s current copy is here.  The read waits for
        ``native``'s pending work itself (the caller does not: the wait and
        the copy of a few bytes are one call, recorded as the move's wait).
        This default waits with :meth:`evaluate` and copies ``native`` out
        whole (one element) through :meth:`download`; a backend whose
        arrays read their own elements overrides it.

        Example
        -------
        >>> import numpy as np
        >>> from unifiedarray.backends import backend_for
        >>> backend_for("cpu").element(np.array([2.5]))
        2.5
        """
        self.evaluate(native)
        return self.to_host(native, self.dtype_of(native)).item()

    def upload_async(self, host: np.ndarray, device: Device, into: Any = None) -> tuple[Any, Any]:
        """Start copying ``host`` in; returns ``(array, event)`` where
        ``event.synchronize()`` waits for the copy.  Backends without
        asynchronous copies copy now and return a finished event."""
        return self.upload(host, device, into), DONE

    def download_async(self, native: Any, out: np.ndarray) -> Any:
        """Start copying ``native`` into ``out``; returns an event."""
        self.download(native, out)
        return DONE

    def is_native(self, obj: Any) -> bool:
        return False

    def device_of(self, native: Any) -> Device:
        raise NotImplementedError

    def memory_info(self, device: Device) -> tuple[int, int]:
        """``(free, total)`` bytes of ``device``."""
        raise NotImplementedError

    def properties(self, device: Device) -> dict[str, Any]:
        """Static facts about ``device`` for reports."""
        return {}

    def synchronize(self, device: Device) -> None:
        """Wait for outstanding work on ``device``."""

    def writer_stream(self, device: Device) -> Any:
        """Where work on ``device`` is queued now (CUDA: the GPU's current
        stream), kept by a buffer that lends a handle on its copy there;
        ``None`` where work is never queued out of order (the host, MLX's
        one stream per device)."""
        return None

    def follow(self, device: Device, last: Any, leases: list[Any]) -> Any:
        """Before work on a copy on ``device``: make the stream it will run
        on (the current one) follow, on the device, the work queued so far
        on ``last`` (a stream, an event, or ``None`` for the default stream)
        and on each of ``leases`` (streams); returns what the next access
        must follow in turn (the current stream, or ``None`` for the default
        one).  Nothing to do where work is never queued out of order."""
        return None

    # -- compute (what the dispatch asks of every backend) -------------------
    def namespace(self, device: Device) -> Any:
        """The Array API namespace whose functions compute on this backend's
        arrays on ``device`` (array-api-compat's where there is one).
        :mod:`unifiedarray.compute` adds the corrections every namespace
        gets, and ``getitem``/``setitem`` (Python's operators) where the
        namespace has none; it asks once per device."""
        raise NotImplementedError(f"{type(self).__name__} supplies no Array API namespace (Backend.namespace)")

    def compute_context(self, device: Device) -> AbstractContextManager[Any]:
        """The context every call on ``device``'s arrays runs in (the CUDA
        GPU of the data); a no-op where there is none."""
        return nullcontext()

    def run(self, device: Device, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` inside :meth:`compute_context`: what the dispatch's
        fast paths call (a backend may do it more cheaply)."""
        with self.compute_context(device):
            return fn(*args)

    def direct(self, device: Device, name: str, fn: Any, signature: tuple[Any, ...]) -> Any:
        """For the dispatch's fast path on ``device``: ``(call, dtype)``
        where ``fn`` (the compute function ``name`` as the dispatch resolved
        it) is, for arguments of ``signature``, one native function whose
        result has ``dtype`` and which needs nothing of :meth:`run` but
        what ``call`` does itself: ``call(*natives)`` gives what
        ``run(device, fn, *natives)`` gives, the same array, or raises
        (the dispatch then takes its general path, which raises the
        call's error).  ``signature``: for an elementwise function, each
        argument's NumPy dtype (an array) or Python type (a scalar), in
        call order; for ``sum``, ``prod``, ``mean``, ``max`` and ``min``
        of a non-empty array reduced whole without keywords, ``(dtype,
        ndim)``.  None where there is none (the answer is kept);
        ``NotImplemented`` where it is not known yet (asked again at the
        next call).  None here: every call takes :meth:`run`."""
        return None

    def facilities(self) -> dict[str, str | None]:
        """Named facilities of this backend's device that may be missing
        where the backend works (MLX's Metal): name -> why it is missing, or
        None where present (why the backend is missing, where it is).
        ``python -m unifiedarray`` reports each; the buffer's handle of the
        same name (``UnifiedBuffer.metal``) is refused with the reason."""
        return {}

    def write_context(self, device: Device) -> AbstractContextManager[Any]:
        """The context a write through the buffer (``UnifiedBuffer.write``)
        runs in, around the buffer's lock: :meth:`compute_context` (the CUDA
        GPU of the data), unless the backend's :meth:`write` enters its own
        (MLX: the library's stream, inside the buffer's lock)."""
        return self.compute_context(device)

    #: whether a real view of a copy (a basic slice, a transpose) writes
    #: into the copy's memory (NumPy, CuPy); MLX's slices are values, so a
    #: write through a view is made by writing the chain back into the copy
    views_write_through: bool = True

    def compile(self, fn: Callable[..., Any]) -> Callable[..., Any] | None:
        """``fn`` (a function of native arrays, built from this backend's
        namespace functions) compiled into one kernel by the backend's own
        compiler, for :func:`unifiedarray.fuse`; None where the backend has
        none.  The compiled function is called inside :meth:`compute_context`."""
        return None

    def evaluate(self, *natives: Any) -> None:
        """Make lazy natives concrete (MLX), serialised with every other
        evaluation; a no-op where arrays are never lazy."""

    def dtype_of(self, native: Any) -> np.dtype:
        """The NumPy dtype of a native array."""
        return np.dtype(native.dtype)

    #: Whether a result of this backend's functions may be a view of an
    #: input (NumPy's and CuPy's reshape): the dispatch then checks each one.
    results_alias: bool = True

    def aliases(self, a: Any, b: Any) -> bool:
        """Whether writing through native ``a`` can change ``b`` (views of
        the same memory); MLX arrays are values, so never there."""
        return False

    def shares_memory(self, a: Any, b: Any) -> bool:
        """Whether native ``a`` lies in ``b``'s memory (MLX's slices are
        values whose data may still be the parent's)."""
        return self.aliases(a, b)

    def copy(self, native: Any) -> Any:
        """A copy of ``native`` in the same memory space."""
        return native.copy()

    # -- writes and handles (what the buffer asks of every backend) ------------
    def write(self, native: Any, write: Callable[[Any], Any], in_place: bool = False) -> Any:
        """Run ``write(native)`` (in-place writes, ``native[key] = value``) on
        the buffer's copy ``native`` and return the copy that holds the
        result, which the buffer keeps: ``native`` itself for a backend
        whose arrays are mutable memory; a new array where writes make new
        arrays (MLX).  ``in_place``: ``native`` is a live lease (see
        :meth:`lease`), whose writes must reach the buffer."""
        write(native)
        return native

    def fill(self, native: Any, value: Any, in_place: bool = False) -> Any:
        """Set every element of the copy ``native`` to ``value`` (already of
        its dtype); returns the copy that holds the result, as :meth:`write`."""
        native.fill(value)
        return native

    def copy_into(self, native: Any, src: Any, in_place: bool = False) -> Any:
        """``native[...] = src``: ``src``, another of this backend's arrays on
        the same device, copied into the copy ``native`` (cast to its dtype
        under ``same_kind`` rules), for ``UnifiedBuffer.copy_from``; returns
        the copy that holds the result, as :meth:`write`, which shares no
        memory with ``src`` (the caller may go on writing ``src``)."""
        native[...] = src
        return native

    def detach(self, native: Any) -> Any:
        """A handle on ``native``'s data that is safe to give out for
        reading and shares no writable memory with it: what
        ``UnifiedBuffer.read`` hands out on a device, and what the buffer
        keeps at a revocable lease's end.  The default is :meth:`copy`:
        device arrays carry no read-only flag (CuPy's, MLX's), so a handle
        on the same memory could be written unseen.  A backend whose
        arrays can be handed out read-only may return such a view."""
        return self.copy(native)

    def lease(self, native: Any) -> Any:
        """``native`` (the buffer's copy) made ready to be handed out as a
        writable handle (a lease) where :attr:`revocable_leases` (MLX: its
        writes then run on the library's stream); the same object, so that
        writes through it reach the buffer."""
        return native

    def record_event(self, device: Device) -> Any:
        """An event marking the end of the work queued so far on ``device``
        (CUDA: on its current stream), which a pooled block's next owner
        follows; None where work is never queued (the default)."""
        return None

    # -- exports (what the array's protocols ask) ------------------------------
    def export_dlpack(self, native: Any, stream: Any, kwargs: dict[str, Any]) -> Any:
        """A DLPack capsule of ``native`` (``__dlpack__``'s other keywords in
        ``kwargs``): the native's own ``__dlpack__`` (without the 2023.12
        keywords for a producer that predates them); ``BufferError`` where
        the native has none (a device that exports no DLPack)."""
        export = getattr(native, "__dlpack__", None)
        if export is None:
            raise BufferError(f"__dlpack__: {self.name} arrays export no DLPack; move the array to the host first")
        if not kwargs:
            return export(stream=stream) if stream is not None else export()
        try:
            return export(stream=stream, **kwargs)
        except TypeError:  # a producer that predates the 2023.12 keywords
            return export(stream=stream) if stream is not None else export()

    def dlpack_device(self, device: Device, native: Callable[[], Any]) -> tuple[int, int]:
        """``__dlpack_device__`` of an array on ``device``: the answer of its
        native (``native()`` gives it; not called where the device alone
        says, as CUDA's ``(2, index)``); ``BufferError`` where the native has
        none (a device that exports no DLPack)."""
        ask = getattr(native(), "__dlpack_device__", None)
        if ask is None:
            raise BufferError(
                f"__dlpack_device__: {self.name} arrays export no DLPack; move the array to the host first"
            )
        found = ask()
        return (found[0], found[1])

    #: whether a DLPack export that may copy (``copy=None``) exports a copy
    #: (MLX's exports carry no read-only flag: a consumer could write the copy)
    dlpack_exports_copy: bool = False
    #: the dtypes this backend's own functions narrow when they import a
    #: foreign array through DLPack (MLX: float64); an unversioned DLPack
    #: request for an array of these dtypes on its device is refused
    dlpack_import_narrows: frozenset[np.dtype] = frozenset()
    #: whether its arrays are CUDA memory, exported through the CUDA Array
    #: Interface (``__cuda_array_interface__``, ``__cupy_get_ndarray__``)
    #: and sent by distributed's ``cuda`` serializer family
    cuda_memory: bool = False

    def cuda_array_interface(self, native: Any) -> dict[str, Any]:
        """The CUDA Array Interface of ``native`` (where :attr:`cuda_memory`)."""
        raise AttributeError(f"__cuda_array_interface__: {self.name} arrays are not CUDA memory")

    def view_on_host(self, native: Any) -> np.ndarray | None:
        """A read-only NumPy view of ``native``'s memory where the host can
        address it without a copy (MLX's CPU or unified memory, evaluated
        first), for frames sent elsewhere; None where it cannot."""
        return None

    def import_dlpack(self, x: Any, device: Device) -> Any:
        """A native array on ``device`` holding the data of ``x``, a DLPack
        producer whose ``__dlpack_device__`` names one of this backend's
        devices (:attr:`dlpack_device_type`)."""
        raise BufferError(f"{self.name} imports no DLPack")

    #: the DLPack device type number of this backend's devices (kDLCUDA is
    #: 2), where it imports DLPack producers from other libraries
    #: (:meth:`import_dlpack`); None where it does not
    dlpack_device_type: int | None = None

    def empty_block(self, device: Device, size: int) -> Any:
        """``size`` uninitialised bytes on ``device`` for a memory pool's
        block (the host backend's: page-locked, from the CUDA backend)."""
        raise NotImplementedError

    def free_cached(self, device: Device, pinned: bool) -> None:
        """Give this backend's own cached free memory back to the driver."""

    def finish_copies_in_flight(self) -> None:
        """Wait for this backend's asynchronous copies still in flight (so
        their memory can be reused)."""

    def is_pinned(self, host: np.ndarray) -> bool:
        """Whether a host array is page-locked memory (only CUDA makes it)."""
        return False

    def random_source(self, device: Device, seed: np.random.SeedSequence) -> RandomSource:
        """This backend's own random stream on ``device``, seeded by
        ``seed`` (what :mod:`unifiedarray.random` draws from): here one that
        draws nothing natively, so every draw is composed from counter-based
        bits over the namespace on the device, or made on the host (see
        :class:`RandomSource`)."""
        return KeyedSource(seed)

    def numpy_like(self) -> ModuleType | None:
        """The NumPy-like module of this backend: where NumPy calls on its
        arrays run (CuPy, :attr:`numpy_compatible`), or whose functions the
        route table's rows of kind "namesake" name (``einsum``) have NumPy's
        meaning (MLX's); None where there is none."""
        return None


class RandomSource:
    """A device's own random stream: what :mod:`unifiedarray.random` draws
    from in its native mode.

    ``draw`` makes a native array on the device for the NumPy ``Generator``
    methods in :attr:`methods` (NumPy's names and parameters; ``size`` a
    shape, None for NumPy's default; ``dtype`` None for NumPy's default).  What a
    source does not draw, :mod:`unifiedarray.random` composes on the device
    from counter-based bits keyed by :meth:`next_key`, or draws on the host
    from a NumPy generator seeded by :meth:`next_key` (counted).  A source
    pickles (a ``Generator``'s state does), so it holds plain values only.
    """

    #: NumPy Generator methods drawn natively: name -> the dtypes drawn
    #: (None: every dtype NumPy's method takes, or a method without ``dtype=``)
    methods: ClassVar[dict[str, frozenset[np.dtype] | None]] = {}

    def draw(self, method: str, size: tuple[int, ...] | None, dtype: np.dtype | None, params: dict[str, Any]) -> Any:
        """A native array of shape ``size`` drawn by ``method``."""
        raise NotImplementedError(f"{type(self).__name__} draws no {method!r}")

    def next_key(self) -> int:
        """A fresh 64-bit key for one draw, the next in this stream."""
        raise NotImplementedError


def _mix64(z: int) -> int:
    # SplitMix64's finaliser: a bijection of 64-bit words whose outputs for
    # consecutive inputs are statistically independent (Steele et al. 2014)
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9 & 0xFFFFFFFFFFFFFFFF
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB & 0xFFFFFFFFFFFFFFFF
    return z ^ (z >> 31)


class KeyedSource(RandomSource):
    """A stream of 64-bit keys, one per draw: key ``i`` mixes the seed's two
    words with ``i``.  The state is two words and a count, so it pickles
    and a draw costs no generator object; the base of the MLX and CUDA
    sources, which seed each draw's native generator with its key.

    >>> a, b = KeyedSource(np.random.SeedSequence(1)), KeyedSource(np.random.SeedSequence(1))
    >>> a.next_key() == b.next_key() != b.next_key()
    True
    """

    def __init__(self, seed: np.random.SeedSequence) -> None:
        words = seed.generate_state(2, np.uint64)
        self.words = (int(words[0]), int(words[1]))
        self.count = 0
        self._lock = threading.Lock()  # two threads never draw one key (NumPy's generators lock too)

    def next_key(self) -> int:
        with self._lock:
            i = self.count
            self.count = i + 1
        return _mix64(_mix64((self.words[0] + i * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF) ^ self.words[1])

    def __getstate__(self) -> dict[str, Any]:
        state = dict(vars(self))
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        vars(self).update(state)
        self._lock = threading.Lock()


def canonical_dtype(dtype: np.dtype) -> np.dtype:
    """NumPy's own dtype of ``dtype``'s name: a 64-bit integer exported as C
    ``long long`` (``'q'``, as MLX exports int64) is, on platforms whose
    ``int64`` is ``long``, another type to NumPy (printed and pickled as
    such: a repr with ``dtype=int64``).

    >>> canonical_dtype(np.dtype("q")).char == np.dtype("int64").char
    True
    """
    return np.dtype(dtype.name) if dtype.kind in "iu" else dtype


def canonical(host: np.ndarray) -> np.ndarray:
    """``host`` in :func:`canonical_dtype` of its dtype: a view, no copy."""
    canon = canonical_dtype(host.dtype)
    return host if host.dtype.char == canon.char else host.view(canon)


def contiguous(host: np.ndarray) -> np.ndarray:
    """``host`` as a C-contiguous array, copied only if it is not one; unlike
    ``np.ascontiguousarray`` it keeps a 0-d array 0-d."""
    return host if host.flags.c_contiguous else np.array(host, order="C")


class _Done:
    """An event that has already happened."""

    def synchronize(self) -> None:
        return None


DONE = _Done()


def largest_host_allocation() -> int:
    """The most bytes one host allocation can ever get: the host's memory
    and swap, or this process's address-space limit where that is lower
    (``RLIMIT_AS``).  Past it an allocation fails whatever else is free."""
    info = _meminfo()
    largest = host_memory_info(info)[1] + info.get("SwapTotal", 0)
    if sys.platform != "win32":  # (Windows has no resource module)
        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft != resource.RLIM_INFINITY:
            largest = min(largest, soft)
    return largest


def _meminfo() -> dict[str, int]:
    """``/proc/meminfo`` in bytes (Linux), or empty where there is none."""
    try:
        with open("/proc/meminfo") as f:
            return {line.split(":")[0]: int(line.split()[1]) * 1024 for line in f if ":" in line}
    except OSError:
        return {}


def host_memory_info(info: dict[str, int] | None = None) -> tuple[int, int]:
    """``(free, total)`` bytes of host memory (``MemAvailable`` on Linux;
    ``info``: :func:`_meminfo` already read)."""
    info = _meminfo() if info is None else info
    if "MemTotal" in info:
        return info.get("MemAvailable", info.get("MemFree", 0)), info["MemTotal"]
    page = os.sysconf("SC_PAGE_SIZE")
    total = os.sysconf("SC_PHYS_PAGES") * page
    try:
        free = os.sysconf("SC_AVPHYS_PAGES") * page
    except (ValueError, OSError):  # macOS has no SC_AVPHYS_PAGES
        free = total
    return free, total
