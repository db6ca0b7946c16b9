"""The CUDA backend: CuPy arrays, one device per GPU (``cuda:N``).

Probing is careful because CuPy's wheels (``cupy-cuda12x``, ``cupy-cuda13x``)
install and import on machines without a driver; there the first runtime
call raises ``CUDARuntimeError``.
We ask the runtime for the device count and make one tiny allocation inside
the probe, so an unusable CUDA is found here and reported once, and never
half-way through a user's computation.
"""

from __future__ import annotations

import operator
import re
import threading
import warnings
from collections import deque
from collections.abc import Callable
from types import ModuleType
from typing import Any, ClassVar

import numpy as np
from numpy.linalg import LinAlgError

from .. import _rules
from .._devices import CPU, Device
from .._index import normalise
from ._base import DONE, Backend, KeyedSource, RandomSource, contiguous

#: size of each pinned staging chunk for large pageable uploads
STAGING_CHUNK = 8 << 20


#: the type codes CuPy's arrays hold (native byte order only)
CUPY_TYPE_CODES = frozenset("?bhilqBHILQefdFD")


def _finished() -> Any:
    return DONE


class _InFlight:
    """A copy still running on a CUDA stream: its event, and the arrays it
    reads and writes, kept alive until it is done.  If the buffer is dropped
    before anyone waits, the arrays must still outlive the copy (else CuPy's
    pools could hand their memory on while the copy still reads or writes
    it), so every copy in flight is also kept in a module-level list until
    its event completes.  Only public CuPy API: ``Event.done`` and
    ``Event.synchronize`` (not CuPy's private pinned-memory watch list, which
    held the arrays until the next pinned allocation, so that finished copies
    still counted as held in a pool under a limit)."""

    __slots__ = ("event", "keep")

    def __init__(self, event: Any, *keep: Any) -> None:
        self.event = event
        self.keep = keep
        with _IN_FLIGHT_LOCK:
            _reap()
            _IN_FLIGHT.append(self)

    def synchronize(self) -> None:
        self.event.synchronize()
        self.keep = ()

    @property
    def done(self) -> bool:
        if self.keep and self.event.done:
            self.keep = ()
        return not self.keep


#: copies in flight, oldest first (see _InFlight); pruned as their events complete
_IN_FLIGHT: deque[_InFlight] = deque()
_IN_FLIGHT_LOCK = threading.Lock()


def _reap() -> None:
    # Drop the finished copies (oldest first: a stream completes in order).
    while _IN_FLIGHT and _IN_FLIGHT[0].done:
        _IN_FLIGHT.popleft()


def finish_copies_in_flight() -> None:
    """Wait for every asynchronous copy still running and let go of the
    arrays they keep (the pool calls this before it reports out of memory:
    a dropped buffer's copy may still hold a block)."""
    with _IN_FLIGHT_LOCK:
        pending = list(_IN_FLIGHT)
        _IN_FLIGHT.clear()
    for copy in pending:
        copy.synchronize()


def is_pinned(host: np.ndarray) -> bool:
    """Whether ``host``'s memory is page-locked (registered with CUDA)."""
    try:
        import cupy

        attrs = cupy.cuda.runtime.pointerGetAttributes(host.ctypes.data)
        return int(attrs.type) == 1  # cudaMemoryTypeHost
    except Exception:
        return False


class CuPyBackend(Backend):
    name = "cupy"
    title = "CUDA (CuPy)"
    kind = "cuda"
    indexed = True
    device_aliases = ("gpu",)
    poolable = True
    host_accelerator = True
    accelerator_preference = 2
    pinned_uploads_async = True
    error_translations = ((Exception, re.compile(r"[Ss]ingular|not positive.definite"), LinAlgError),)

    def __init__(self) -> None:
        super().__init__()
        self._count = 0
        # Per GPU: two pinned staging chunks and the lock that serialises
        # their use (one GPU's staged upload never waits for another's).
        self._staging: dict[int, list[np.ndarray]] = {}
        self._staging_locks: dict[int, threading.Lock] = {}
        self._lock = threading.Lock()  # guards the two dicts above and _side_streams
        # Per (purpose, device): "copy" for non-blocking uploads, "handoff"
        # for the streams named in exported CUDA Array Interfaces.
        self._side_streams: dict[tuple[str, int], Any] = {}
        self._namespace: ModuleType | None = None  # made on first use: importing CuPy is slow
        self._numpy_like: ModuleType | None = None

    def _probe(self) -> str | None:
        try:
            import cupy
        except ImportError:
            return "CuPy is not installed (pip install 'unifiedarray[cuda]')"
        except Exception as exc:  # a broken install must not break discovery
            return f"CuPy failed to import: {type(exc).__name__}: {exc}"
        try:
            count = cupy.cuda.runtime.getDeviceCount()
        except Exception as exc:
            return f"CuPy {cupy.__version__} is installed but CUDA is unusable (no driver?): {exc}"
        if count < 1:
            return "CuPy is installed but no CUDA GPU was found"
        try:
            with cupy.cuda.Device(0):
                cupy.zeros(1, dtype=np.float32).get()
        except Exception as exc:
            return f"CuPy found {count} GPU(s) but could not allocate: {type(exc).__name__}: {exc}"
        self._count = count
        return None

    def devices(self) -> list[Device]:
        return [Device("cuda", i) for i in range(self._count)] if self.available else []

    def current_index(self) -> int:
        """CuPy's current GPU (what "cuda" names); the first one without a driver."""
        return _current_gpu()

    def device_from_object(self, obj: Any) -> Device | None:
        """CuPy's ``Device`` objects (anything of CuPy's with an ``id``)."""
        if (type(obj).__module__ or "").startswith("cupy"):
            return Device("cuda", int(getattr(obj, "id", 0)))
        return None

    def namespace(self, device: Device) -> ModuleType:
        """array-api-compat's CuPy namespace (the same for every GPU: calls
        run on the current one, see :meth:`compute_context`), with indexing
        that reads each key by the one index reading first, and ``arange``
        as the array rules plan it."""
        ns = self._namespace
        if ns is None:
            import array_api_compat.cupy as compat_cupy

            ns = ModuleType("unifiedarray.backends.cupy_namespace", "array_api_compat.cupy, keys checked")
            public = ("__array_api_version__", "__array_namespace_info__")
            ns.__dict__.update({k: v for k, v in vars(compat_cupy).items() if not k.startswith("__") or k in public})
            ns.getitem, ns.setitem, ns.take = _checked_indexing(compat_cupy)  # type: ignore[attr-defined]
            ns.arange = _planned_arange(compat_cupy)  # type: ignore[attr-defined]
            ns.pow = _checked_pow(compat_cupy)  # type: ignore[attr-defined]
            ns.__dict__.update(_numpy_answers(compat_cupy))
            ns.linalg = _linalg_checked_at_the_call(compat_cupy.linalg, "unifiedarray.backends.cupy_namespace.linalg")  # type: ignore[attr-defined]
            ns.view_getitem = operator.getitem  # type: ignore[attr-defined]  # a view's key, checked when it was taken
            self._namespace = ns
        return ns

    def supports_dtype(self, dtype: np.dtype, device: Device) -> bool:
        d = np.dtype(dtype)
        return d.char in CUPY_TYPE_CODES and d.isnative

    def zeros(self, shape: tuple[int, ...], dtype: np.dtype, device: Device, pinned: bool = False) -> Any:
        import cupy

        with cupy.cuda.Device(device.index):
            return cupy.zeros(shape, dtype)

    def upload(self, host: np.ndarray, device: Device, into: Any = None) -> Any:
        import cupy

        src = contiguous(host)  # ndarray.set needs a C-contiguous source
        with cupy.cuda.Device(device.index):
            target = into
            if into is None or not into.flags.c_contiguous:
                # set() refuses a non-contiguous target (an adopted result
                # can be one, e.g. a flipped sort): the data goes into a
                # contiguous array, then into the target on the GPU, so a
                # non-contiguous copy stays the same object (a leased
                # buf.device handle keeps pointing at the buffer's copy).
                target = cupy.empty(src.shape, src.dtype)
            pinned = is_pinned(src)
            if src.nbytes >= 2 * STAGING_CHUNK and not pinned:
                self._staged_upload(src, target, device.index)
            else:
                target.set(src)
                if pinned:
                    # From pinned memory set() is truly asynchronous; a
                    # blocking move must be complete when it returns (the
                    # caller may write the host copy next).
                    cupy.cuda.get_current_stream().synchronize()
            if into is None or target is into:
                return target
            into[...] = target
            return into

    def _staged_upload(self, src: np.ndarray, dst: Any, index: int) -> None:
        """Pageable host memory cannot be copied asynchronously, and the
        driver stages it through a small pinned buffer one piece at a time.
        Here two pinned chunks alternate: the CPU fills one while the GPU's
        DMA engine drains the other, so the two copies overlap.  Runs with
        ``index``'s GPU current; each GPU has its own chunks and lock."""
        import cupy
        import cupyx

        with self._lock:
            lock = self._staging_locks.setdefault(index, threading.Lock())
        with lock:
            staging = self._staging.get(index)
            if staging is None:
                staging = self._staging[index] = [cupyx.empty_pinned(STAGING_CHUNK, np.uint8) for _ in range(2)]
            stream = cupy.cuda.Stream(non_blocking=True)
            # The side stream does not wait for the current stream by itself:
            # kernels queued there may still read dst (or its pool memory).
            stream.wait_event(cupy.cuda.get_current_stream().record())
            flat_src = src.reshape(-1).view(np.uint8)
            flat_dst = dst.reshape(-1).view(cupy.uint8)
            events: list[Any] = [None, None]
            for i, start in enumerate(range(0, flat_src.size, STAGING_CHUNK)):
                k = i % 2
                if events[k] is not None:
                    events[k].synchronize()  # that chunk's previous DMA is done
                stop = min(start + STAGING_CHUNK, flat_src.size)
                stage = staging[k][: stop - start]
                np.copyto(stage, flat_src[start:stop])
                flat_dst[start:stop].set(stage, stream=stream)
                events[k] = stream.record()
            stream.synchronize()

    def upload_async(self, host: np.ndarray, device: Device, into: Any = None) -> tuple[Any, Any]:
        import cupy

        if not is_pinned(host) or not host.flags.c_contiguous or (into is not None and not into.flags.c_contiguous):
            return self.upload(host, device, into), _finished()  # (upload keeps a non-contiguous copy's identity)
        with cupy.cuda.Device(device.index):
            if into is None:
                into = cupy.empty(host.shape, host.dtype)
            # The copy runs on a stream of its own, so that it overlaps with
            # compute on the current stream (prefetch's double buffering).
            # It first waits for the work already queued there (which may
            # still read the old device copy), and the current stream then
            # waits for it on the GPU, not on the host: work queued after
            # this call sees the data, and the caller is not blocked.
            current = cupy.cuda.get_current_stream()
            stream = self._side_stream("copy", device.index)
            stream.wait_event(current.record())
            into.set(host, stream=stream)  # asynchronous: the source is pinned
            done = stream.record()
            current.wait_event(done)
            return into, _InFlight(done, host, into)

    def _side_stream(self, purpose: str, index: int) -> Any:
        """This backend's own non-blocking stream for ``purpose`` on GPU
        ``index`` (made on first use, with that GPU current)."""
        import cupy

        streams = self._side_streams
        stream = streams.get((purpose, index))
        if stream is None:
            with self._lock:
                stream = streams.get((purpose, index))
                if stream is None:
                    with cupy.cuda.Device(index):
                        stream = streams[(purpose, index)] = cupy.cuda.Stream(non_blocking=True)
        return stream

    def download(self, native: Any, out: np.ndarray) -> None:
        import cupy

        # With the array's GPU current: get() copies on the current GPU's
        # stream, which is then ordered after that GPU's work on the array.
        with cupy.cuda.Device(native.device.id):
            # Lands directly in the host buffer: no intermediate host array.
            if out.flags.c_contiguous and native.flags.c_contiguous:
                native.get(out=out)
            else:
                np.copyto(out, native.get())

    def element(self, native: Any) -> Any:
        import cupy

        # On the array's GPU's current stream, as download: ordered after
        # that GPU's work on the array.
        with cupy.cuda.Device(native.device.id):
            return native.item()

    def fill(self, native: Any, value: Any, in_place: bool = False) -> Any:
        """Fill ``native`` on its own GPU (a kernel runs on the current GPU's
        stream: any other would not be ordered after the array's work)."""
        import cupy

        with cupy.cuda.Device(native.device.id):
            native.fill(value)
        return native

    def copy_into(self, native: Any, src: Any, in_place: bool = False) -> Any:
        """``native[...] = src`` on native's GPU (``src`` is a CuPy array on
        that GPU), ordered after the work ``src``'s producer names: the
        stream in its CUDA Array Interface, asked for and resolved with
        ``src``'s own GPU current (asked with another GPU current, CuPy
        names that GPU's stream, which orders nothing on ``src``'s)."""
        import cupy

        with cupy.cuda.Device(src.device.id):
            producer = self._producer_stream(src.__cuda_array_interface__.get("stream"))
        with cupy.cuda.Device(native.device.id):
            if producer is not None:
                self.order_after(Device("cuda", native.device.id), producer)
            native[...] = src
        return native

    @staticmethod
    def _producer_stream(ptr: int | None) -> Any:
        """The stream a CUDA Array Interface's ``stream`` value names, with
        the data's GPU current (the default-stream handles 1 and 2 mean the
        current GPU's); ``None`` for none (the data is ready)."""
        import cupy

        if ptr is None:
            return None
        if ptr in (1, 2):
            current = cupy.cuda.get_current_stream()
            if current.ptr in (0, ptr):  # the default stream is current: the copy runs on it
                return current
        return cupy.cuda.ExternalStream(int(ptr))

    def cuda_array_interface(self, native: Any) -> dict[str, Any]:
        """Version 3 of the CUDA Array Interface of ``native``, marked
        read-only (the export is a read, not a lease), whose ``stream`` a
        consumer on any GPU can order on: native's GPU's current stream, as
        CuPy names it with that GPU current; but where that is a default
        stream, whose handles (1: legacy, 2: per-thread) a consumer resolves
        on the GPU *it* has current, a stream of native's GPU of its own
        that waits (on the GPU) for the current stream's work."""
        import cupy

        with cupy.cuda.Device(native.device.id):
            cai = dict(native.__cuda_array_interface__)
            if cai.get("stream") in (1, 2):
                handoff = self._side_stream("handoff", native.device.id)
                handoff.wait_event(cupy.cuda.get_current_stream().record())
                cai["stream"] = handoff.ptr
        cai["data"] = (cai["data"][0], True)
        return cai

    dlpack_device_type = 2  # kDLCUDA
    cuda_memory = True
    numpy_compatible = True

    def dlpack_device(self, device: Device, native: Callable[[], Any]) -> tuple[int, int]:
        return (2, device.index)

    def import_dlpack(self, x: Any, device: Device) -> Any:
        """``cupy.from_dlpack(x)`` for a producer on ``device``, with that GPU
        current: CuPy hands the producer the current GPU's current stream to
        order its export on, which must be a stream of the producer's GPU."""
        import cupy

        with cupy.cuda.Device(device.index):
            return cupy.from_dlpack(x)

    def export_dlpack(self, native: Any, stream: Any, kwargs: dict[str, Any]) -> Any:
        """``native.__dlpack__`` with native's GPU current: CuPy orders the
        export after the current stream, which must be that GPU's."""
        import cupy

        with cupy.cuda.Device(native.device.id):
            try:
                return native.__dlpack__(stream=stream, **kwargs)
            except TypeError as exc:
                # CuPy 13.0-13.5 predate the 2023.12 keywords; any other
                # TypeError is a real one.
                if "keyword" not in str(exc):
                    raise
                return native.__dlpack__(stream=stream) if stream is not None else native.__dlpack__()

    def record_event(self, device: Device) -> Any:
        """An event on ``device``'s current stream: where the work queued so
        far on it ends."""
        import cupy

        with cupy.cuda.Device(device.index):
            return cupy.cuda.get_current_stream().record()

    def writer_stream(self, device: Device) -> Any:
        """``device``'s current stream: where a caller's kernels on a handle
        lent now are queued (CuPy keeps a current stream per GPU)."""
        import cupy

        return cupy.cuda.get_current_stream(device.index)

    def follow(self, device: Device, last: Any, leases: list[Any]) -> Any:
        """The current stream of ``device`` waits (on the GPU) for ``last``
        (an event; a stream's work queued so far; ``None``: the legacy
        default stream's, which a non-blocking stream never waits for by
        itself) and for each lease stream, skipping itself; returns it, or
        ``None`` where it is the default stream."""
        import cupy

        with cupy.cuda.Device(device.index):
            current = cupy.cuda.get_current_stream()
            on_default = current.ptr == 0
            if last is None:
                if not on_default:
                    current.wait_event(cupy.cuda.Stream.null.record())
            elif isinstance(last, cupy.cuda.Event):
                current.wait_event(last)
            elif not _same_stream(last, current):
                current.wait_event(last.record())
            for stream in leases:
                if not _same_stream(stream, current) and stream is not last:
                    current.wait_event(stream.record())
            return None if on_default else current

    def order_after(self, device: Device, after: Any) -> None:
        """``device``'s current stream waits (on the GPU) for the work queued
        so far on the stream ``after`` (nothing to do where it is the
        current stream itself)."""
        self.follow(device, after, [])

    def download_async(self, native: Any, out: np.ndarray) -> Any:
        import cupy

        if not (is_pinned(out) and out.flags.c_contiguous and native.flags.c_contiguous):
            self.download(native, out)
            return _finished()
        with cupy.cuda.Device(native.device.id):
            stream = cupy.cuda.get_current_stream()
            native.get(stream=stream, out=out, blocking=False)  # get() blocks by default
            return _InFlight(stream.record(), native, out)

    def is_native(self, obj: Any) -> bool:
        return type(obj).__module__.startswith("cupy") and hasattr(obj, "__cuda_array_interface__")

    def device_of(self, native: Any) -> Device:
        return Device("cuda", native.device.id)

    def memory_info(self, device: Device) -> tuple[int, int]:
        import cupy

        with cupy.cuda.Device(device.index):
            free, total = cupy.cuda.runtime.memGetInfo()
        return int(free), int(total)

    def properties(self, device: Device) -> dict[str, Any]:
        import cupy

        props = cupy.cuda.runtime.getDeviceProperties(device.index)
        name = props.get("name", b"")
        return {
            "name": name.decode() if isinstance(name, bytes) else str(name),
            "compute_capability": f"{props.get('major')}.{props.get('minor')}",
            "multiprocessors": props.get("multiProcessorCount"),
        }

    def synchronize(self, device: Device) -> None:
        import cupy

        cupy.cuda.Device(device.index).synchronize()  # every stream's work, not only the current one

    def compute_context(self, device: Device) -> Any:
        import cupy

        return cupy.cuda.Device(device.index)

    def random_source(self, device: Device, seed: np.random.SeedSequence) -> RandomSource:
        """CuPy's ``Generator`` on cuRAND's Philox, one per draw keyed by
        :class:`KeyedSource` (its state is then plain values)."""
        return CupySource(seed, device.index)

    def is_pinned(self, host: np.ndarray) -> bool:
        return is_pinned(host)

    def compile(self, fn: Any) -> Any:
        """``cupy.fuse(fn)``: one kernel; None where the CuPy in use has no
        ``fuse`` (the simulated runtime of the tests)."""
        import cupy

        fuse = getattr(cupy, "fuse", None)
        return None if fuse is None else fuse(fn)

    def empty_block(self, device: Device, size: int) -> Any:
        import cupy

        if device.kind != "cuda":
            block = pinned_zeros((size,), np.dtype(np.uint8))
            return block if block is not None else np.empty(size, np.uint8)
        with cupy.cuda.Device(device.index):
            return cupy.empty(size, np.uint8)

    def free_cached(self, device: Device, pinned: bool) -> None:
        import cupy

        if pinned:
            cupy.get_default_pinned_memory_pool().free_all_blocks()
        else:
            # CuPy's MemoryPool acts on the current GPU's pool only.
            with cupy.cuda.Device(device.index):
                cupy.get_default_memory_pool().free_all_blocks()

    def finish_copies_in_flight(self) -> None:
        finish_copies_in_flight()

    def numpy_like(self) -> ModuleType:
        """CuPy, its ``linalg`` checking cuSOLVER's status at the call and its
        ufuncs that answer differently from NumPy's replaced (as in the
        namespace, :func:`_numpy_answers`): NumPy's functions on a GPU's data
        give NumPy's answers and raise NumPy's ``LinAlgError``."""
        like = self._numpy_like
        if like is None:
            import cupy

            like = ModuleType("unifiedarray.backends.cupy_numpy_like", "cupy, linalg checked at the call")
            like.__dict__.update(vars(cupy))
            like.take = _numpy_take(cupy, _checked_indexing(cupy)[2])  # type: ignore[attr-defined]
            for name, answer in _numpy_answers(cupy).items():
                for alias in ("abs", "absolute") if name == "abs" else (name,):
                    generated = getattr(cupy, alias)
                    setattr(
                        like,
                        alias,
                        _ufunc_answering(answer, generated) if isinstance(generated, cupy.ufunc) else answer,
                    )
            like.linalg = _linalg_checked_at_the_call(cupy.linalg, "unifiedarray.backends.cupy_numpy_like.linalg")  # type: ignore[attr-defined]
            self._numpy_like = like
        return like

    def aliases(self, a: Any, b: Any) -> bool:
        import cupy

        return bool(cupy.may_share_memory(a, b))

    def copy(self, native: Any) -> Any:
        import cupy

        with cupy.cuda.Device(native.device.id):  # CuPy copies onto the current GPU
            return native.copy()


def _same_stream(a: Any, b: Any) -> bool:
    return bool(a.ptr == b.ptr and a.device_id == b.device_id)


def _current_gpu() -> int:
    """CuPy's current GPU (what "cuda" names); the first one without a driver."""
    try:
        import cupy

        return int(cupy.cuda.runtime.getDevice())
    except Exception:
        return 0


def _checked_indexing(xp: Any) -> tuple[Callable[..., Any], Callable[..., None], Callable[..., Any]]:
    """``getitem``, ``setitem`` and ``take`` that read the key by the one index reading
    (:func:`unifiedarray._index.normalise`) before CuPy indexes: its
    exceptions, in NumPy's order (CuPy checks no integer-array bounds; it
    wraps them), then CuPy's own indexing, whose meaning for a valid key is
    NumPy's.  A mask's positions are found on the device."""

    def kind(k: Any) -> str | None:
        return k.dtype.kind if isinstance(k, xp.ndarray) else None

    def extremes(arrays: list[Any]) -> list[tuple[int, int]]:
        return [(int(a.min()), int(a.max())) for a in arrays]

    def getitem(x: Any, key: Any) -> Any:
        normalise(x.shape, key, kind=kind, nonzero=xp.nonzero, extremes=extremes)
        return x[key]

    def setitem(x: Any, key: Any, value: Any) -> None:
        shape = tuple(getattr(value, "shape", ()))
        normalise(x.shape, key, kind=kind, nonzero=xp.nonzero, extremes=extremes, value=shape)
        x[key] = value

    generated_take = xp.take

    def take(x: Any, indices: Any, /, *, axis: int | None = None) -> Any:
        # take(x, i, axis=a) selects what x[:, ..., i] (i at axis a) does: the
        # one reading checks the indices' bounds (CuPy's take wraps them).
        if isinstance(x, xp.ndarray) and isinstance(indices, xp.ndarray) and (axis is not None or x.ndim == 1):
            ax = 0 if axis is None else axis
            if -x.ndim <= ax < x.ndim:
                key = (slice(None),) * (ax % x.ndim) + (indices,)
                normalise(x.shape, key, kind=kind, nonzero=xp.nonzero, extremes=extremes)
        return generated_take(x, indices, axis=axis)

    take.__doc__ = generated_take.__doc__
    return getitem, setitem, take


def _checked_pow(xp: Any) -> Callable[..., Any]:
    """``pow`` that refuses integers to a negative integer power at the call,
    with NumPy's ``ValueError`` (the host's and MLX's answer).  CuPy's
    kernel has no way to fail: it gives 0 (and the simulated runtime's NumPy
    kernel raised only when it ran, at whatever synchronised next, so the
    error came late or not at all depending on what was still queued).  An
    array exponent costs a read of ``any(x2 < 0)``, asked before the kernel
    is queued."""
    generated = xp.pow

    def pow(x1: Any, x2: Any, /) -> Any:
        if _integer_kind(x1) and _integer_kind(x2):
            if isinstance(x2, xp.ndarray):
                negative = x2.dtype.kind == "i" and x2.size > 0 and bool(xp.any(x2 < 0))
            else:
                negative = not isinstance(x2, bool | np.bool_) and x2 < 0
            if negative:
                raise ValueError("Integers to negative integer powers are not allowed.")
        return generated(x1, x2)

    pow.__doc__ = generated.__doc__
    return pow


def _linalg_checked_at_the_call(linalg: ModuleType, name: str) -> ModuleType:
    """``linalg`` with every function run under ``cupyx.errstate(linalg=
    "raise")``: CuPy's solvers report a singular or indefinite matrix only in
    cuSOLVER's status word, which CuPy reads (one synchronisation) only when
    asked; unasked, ``inv`` and ``cholesky`` return NaN or garbage.  Asked,
    the call raises NumPy's ``LinAlgError``, as the host and MLX do."""
    import cupyx

    checked = ModuleType(name, f"{linalg.__name__}, cuSOLVER's status checked at the call")
    checked.__dict__.update({k: v for k, v in vars(linalg).items() if not k.startswith("__")})
    for attr, fn in vars(linalg).items():
        if not attr.startswith("_") and callable(fn) and not isinstance(fn, type):
            setattr(checked, attr, _raising_linalg(fn, cupyx.errstate))
    return checked


def _raising_linalg(fn: Callable[..., Any], errstate: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        with errstate(linalg="raise"):
            return fn(*args, **kwargs)

    call.__name__ = call.__qualname__ = getattr(fn, "__name__", "linalg")
    call.__doc__ = fn.__doc__
    return call


def _numpy_remainder(xp: Any) -> Callable[..., Any]:
    """``remainder`` as NumPy computes it for floats (``fmod``, moved into
    the divisor's sign; a zero takes the divisor's sign): CuPy's kernel is
    ``x1 - floor(x1 / x2) * x2``, which gives NaN for a finite ``x1`` over an
    infinite ``x2`` (``0 % inf``) where NumPy, Python and the standard give
    ``x1`` or ``x2``.  Integers go to CuPy's kernel unchanged."""
    generated = xp.remainder

    def remainder(x1: Any, x2: Any, /) -> Any:
        if xp.result_type(x1, x2).kind != "f":
            return generated(x1, x2)
        mod = xp.fmod(x1, x2)
        moved = xp.where((mod != 0) & ((x2 < 0) != (mod < 0)), mod + x2, mod)
        return xp.where(moved == 0, xp.copysign(xp.zeros_like(moved), x2), moved)

    remainder.__doc__ = generated.__doc__
    return remainder


def _numpy_take(xp: Any, checked_take: Callable[..., Any]) -> Callable[..., Any]:
    """``numpy.take``'s signature over CuPy's take, whose indices wrap: mode
    "raise" (NumPy's default) checks them first, as the namespace's take
    does; "wrap" is CuPy's own; "clip" clips them."""

    def take(a: Any, indices: Any, axis: int | None = None, out: Any = None, mode: str = "raise") -> Any:
        if mode not in ("raise", "wrap", "clip"):
            raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
        if mode == "raise":
            flat = a.reshape(-1) if axis is None else a
            checked_take(flat, xp.asarray(indices).reshape(-1), axis=None if axis is None else axis)
        elif mode == "clip":
            n = a.size if axis is None else a.shape[axis]
            indices = xp.clip(xp.asarray(indices), 0, max(n - 1, 0))
        return xp.take(a, indices, axis=axis, out=out)

    take.__doc__ = xp.take.__doc__
    return take


def _numpy_answers(xp: Any) -> dict[str, Callable[..., Any]]:
    """The functions whose CuPy kernels answer differently from NumPy's
    (each found by the differential suite on an H200), written over ``xp``
    (array-api-compat's CuPy for the namespace, CuPy for NumPy's calls)."""
    answers = {
        "remainder": _numpy_remainder(xp),
        "log1p": _numpy_log1p(xp),
        "abs": _numpy_abs(xp),
        "median": _numpy_median(xp),
        "sign": _numpy_sign(xp),
    }
    answers.update({base: _numpy_logarithm(xp, base) for base in ("log", "log2", "log10")})
    return answers


def _numpy_sign(xp: Any) -> Callable[..., Any]:
    """``sign`` of complex numbers, ``z / |z|``, with the modulus taken
    without overflow or underflow (:func:`_numpy_abs`): through CuPy's
    ``abs`` (array-api-compat's ``sign`` divides by it) ``sign(1.8e19j)``
    in complex64 was 0 and ``sign(1.2e-38j)`` NaN.  Real arguments go to
    the generated ``sign`` unchanged."""
    generated = xp.sign
    modulus = _numpy_abs(xp)

    def sign(x: Any, /) -> Any:
        if x.dtype.kind != "c":
            return generated(x)
        r = modulus(x)
        return xp.where(x == 0, xp.zeros_like(x), x / xp.where(r == 0, 1, r))

    sign.__doc__ = generated.__doc__
    return sign


def _numpy_median(xp: Any) -> Callable[..., Any]:
    """``median`` over an empty selection as NumPy's: NaN (the mean of
    nothing, in the mean's dtype), with NumPy's warning; CuPy's partition
    refuses it (``kth(=-1) out of bounds 0``).  A bad axis is CuPy's check,
    the rest CuPy's kernel."""
    generated = xp.median

    def median(a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False, keepdims: bool = False) -> Any:
        if isinstance(a, xp.ndarray) and a.size == 0 and out is None:
            try:
                return_nan = xp.mean(a, axis=axis, keepdims=keepdims)
            except (ValueError, IndexError, TypeError):  # a bad axis: CuPy's median says so, below
                return_nan = None
            if return_nan is not None:
                warnings.warn("Mean of empty slice.", RuntimeWarning, stacklevel=2)
                return return_nan
        return generated(a, axis=axis, out=out, overwrite_input=overwrite_input, keepdims=keepdims)

    median.__doc__ = generated.__doc__
    return median


def _ufunc_answering(answer: Callable[..., Any], ufunc: Any) -> Callable[..., Any]:
    """CuPy's ``ufunc`` called as NumPy's is (with ``dtype=`` or
    ``casting=``), giving ``answer``'s values where it is called plainly."""

    def call(*args: Any, **kwargs: Any) -> Any:
        return ufunc(*args, **kwargs) if kwargs else answer(*args)

    call.__name__ = call.__qualname__ = ufunc.__name__
    call.__doc__ = ufunc.__doc__
    return call


def _scaled_modulus(xp: Any, re: Any, im: Any) -> tuple[Any, Any]:
    """``|re + i im|`` as ``big * sqrt(1 + ratio**2)``: ``big`` the larger
    part's magnitude, ``ratio`` the smaller's over it (0 where both are 0),
    so nothing squares a part near the largest float.  CuPy's complex
    kernels take ``sqrt(re**2 + im**2)``, which overflows there (seen on an
    H200: ``abs(1+1.8e308j)`` was ``inf``, ``log2`` of it ``inf+nanj``)."""
    big = xp.fmax(xp.abs(re), xp.abs(im))
    small = xp.fmin(xp.abs(re), xp.abs(im))
    return big, xp.where(big > 0, small / xp.where(big > 0, big, 1), 0)


def _special_modulus(xp: Any, re: Any, im: Any, value: Any) -> Any:
    """A modulus (or its logarithm) as the standard gives it at the special
    values: infinite where a part is infinite (even with a NaN), else NaN
    where a part is NaN."""
    value = xp.where(xp.isnan(re) | xp.isnan(im), xp.nan, value)
    return xp.where(xp.isinf(re) | xp.isinf(im), xp.inf, value)


def _numpy_abs(xp: Any) -> Callable[..., Any]:
    """``abs`` of complex numbers without overflow (:func:`_scaled_modulus`);
    real arguments go to CuPy's kernel unchanged."""
    generated = xp.abs

    def abs(x: Any, /) -> Any:
        if x.dtype.kind != "c":
            return generated(x)
        re, im = xp.real(x), xp.imag(x)
        big, ratio = _scaled_modulus(xp, re, im)
        return _special_modulus(xp, re, im, big * xp.sqrt(1 + ratio * ratio))

    abs.__doc__ = generated.__doc__
    return abs


def _numpy_log1p(xp: Any) -> Callable[..., Any]:
    """``log1p`` of complex numbers as NumPy computes it: CuPy's kernel is
    ``log(1 + z)``, which loses the sign of a zero imaginary part (the branch
    cut: ``log1p(-2-0j)`` is ``-pi j``, not ``+pi j``) and overflows in
    ``|1 + z|`` for parts near the largest float.  Here the real part is
    ``log|1 + z|`` taken without overflow (and through ``log1p`` near 0),
    the imaginary part ``atan2(y, 1 + x)``; real arguments go to CuPy's
    kernel unchanged."""
    generated = xp.log1p

    def log1p(x: Any, /) -> Any:
        if x.dtype.kind != "c":
            return generated(x)
        re, im = xp.real(x), xp.imag(x)
        shifted = re + 1
        big, ratio = _scaled_modulus(xp, shifted, im)
        far = xp.log(big) + 0.5 * xp.log1p(ratio * ratio)
        near = 0.5 * xp.log1p(re * (re + 2) + im * im)
        modulus = _special_modulus(xp, re, im, xp.where(xp.abs(re) + xp.abs(im) < 0.5, near, far))
        return _complex(xp, x, modulus, xp.arctan2(im, shifted))

    log1p.__doc__ = generated.__doc__
    return log1p


#: ln(b) for the logarithms of base b, and the exponent of float32's smallest subnormal
_LN_BASE = {"log": 1.0, "log2": float(np.log(2.0)), "log10": float(np.log(10.0))}
_FLOAT32_SUBNORMAL_EXPONENT = -149


def _numpy_logarithm(xp: Any, name: str) -> Callable[..., Any]:
    """``log``, ``log2`` or ``log10`` as NumPy computes them where CuPy's
    kernels differ (found on an H200): float32 subnormals, which the kernel
    flushes to zero (``log(4e-45)`` gave ``-inf``, NumPy ``-102.18``), are
    read from their bits (``m * 2**-149``, ``m`` the integer significand);
    complex numbers take ``log|z|`` without overflow (``|z|`` scaled by its
    larger part: ``log2(1+1.8e308j)`` gave ``inf+nanj``, NumPy
    ``1024+2.27j``) and ``atan2`` for the angle.  Other arguments go to
    CuPy's kernel unchanged."""
    generated = getattr(xp, name)
    ln_base = _LN_BASE[name]

    def logarithm(x: Any, /) -> Any:
        kind, size = x.dtype.kind, x.dtype.itemsize
        if kind == "c":
            re, im = xp.real(x), xp.imag(x)
            if size == 8:  # complex64: its parts in float64, exactly (float32 subnormals are flushed)
                re, im = _float32_in_float64(xp, re)[1], _float32_in_float64(xp, im)[1]
            big, ratio = _scaled_modulus(xp, re, im)
            modulus = _special_modulus(xp, re, im, xp.log(big) + 0.5 * xp.log1p(ratio * ratio))
            angle = xp.arctan2(im, re)
            if ln_base != 1.0:
                modulus, angle = modulus / ln_base, angle / ln_base
            return _complex(xp, x, modulus, angle)
        result = generated(x)
        if kind == "f" and size == 4:
            # A subnormal's logarithm in float64, where it is not flushed
            # (a negative one's is NaN there too), rounded back.
            subnormal, wide = _float32_in_float64(xp, x)
            result = xp.where(subnormal, generated(wide).astype(xp.float32), result)
        return result

    logarithm.__name__ = logarithm.__qualname__ = name
    logarithm.__doc__ = generated.__doc__
    return logarithm


def _float32_in_float64(xp: Any, a: Any) -> tuple[Any, Any]:
    """Where the float32 array ``a`` holds subnormals, and ``a`` in float64,
    exactly, subnormals included: CuPy's kernels flush float32 subnormals to
    zero (seen on an H200), in conversions, arithmetic and comparisons
    alike, so they are found and rebuilt from the bits (``significand *
    2**-149``, in float64, which is not flushed)."""
    bits = a.view(xp.int32)
    magnitude = bits & 0x7FFFFFFF
    subnormal = (magnitude > 0) & (magnitude < 0x00800000)
    rebuilt = magnitude.astype(xp.float64) * 2.0**_FLOAT32_SUBNORMAL_EXPONENT
    return subnormal, xp.where(subnormal, xp.where(bits < 0, -rebuilt, rebuilt), a.astype(xp.float64))


def _complex(xp: Any, like: Any, re: Any, im: Any) -> Any:
    """A complex array of ``like``'s shape and dtype from its parts (set
    part by part: ``re + 1j * im`` would turn an infinite part into NaN)."""
    out = xp.empty(like.shape, dtype=like.dtype)
    out.real = re
    out.imag = im
    return out


def _integer_kind(x: Any) -> bool:
    """Whether ``x`` (an array, a NumPy or Python scalar) is an integer or a bool."""
    kind = x.dtype.kind if hasattr(x, "dtype") else "b" if isinstance(x, bool) else "i" if isinstance(x, int) else "f"
    return kind in "biu"


def pinned_zeros(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray | None:
    """A zeroed host array in page-locked memory, or None without CUDA.

    Uses CuPy's pinned memory pool, so repeated pinned allocations are cheap.
    """
    if not BACKEND.available:
        return None
    import cupyx

    out = cupyx.zeros_pinned(shape, dtype)
    return out


#: The CUDA backend (the registry registers it).
BACKEND = CuPyBackend()


def _planned_arange(xp: Any) -> Callable[..., Any]:
    """``arange`` on a device as the rules compute it (NumPy's length, first
    two elements and errors; element i > 1 is ``first + i * (second -
    first)`` in the dtype): CuPy's own arange steps differently (``arange(0,
    3, 0.5, dtype=int32)``).  The host's is NumPy's own."""

    def arange(start: Any, /, stop: Any = None, step: Any = 1, *, dtype: Any = None, device: Any = None) -> Any:
        dt = np.dtype(dtype) if dtype is not None else _rules.arange_dtype(start, stop, step, CPU)
        plan = _rules.arange_plan(start, stop, step, dt)
        work = np.dtype(np.float32) if dt == np.float16 else dt
        if plan.n <= 2:
            return xp.asarray([plan.first, plan.second][: plan.n], dtype=dt)
        first, second = xp.full((), plan.first, dtype=work), xp.full((), plan.second, dtype=work)
        idx = xp.arange(plan.n, dtype=xp.int64)
        out = first + xp.astype(idx, work) * (second - first)
        out = xp.where(idx == 0, first, xp.where(idx == 1, second, out))
        return xp.astype(out, dt)

    return arange


_FLOATS: frozenset[np.dtype] = frozenset({np.dtype(np.float32), np.dtype(np.float64)})


class CupySource(KeyedSource):
    """Draws by ``cupy.random.Generator(Philox4x3210(key))``, a key per draw,
    on its GPU.  The methods whose parameters are NumPy's; the rest is
    composed by :mod:`unifiedarray.random` on the GPU."""

    methods: ClassVar[dict[str, frozenset[np.dtype] | None]] = {
        "random": _FLOATS,
        "standard_normal": _FLOATS,
        "integers": frozenset[np.dtype]({np.dtype(np.int32), np.dtype(np.int64)}),
        **dict.fromkeys(("exponential", "gamma", "beta", "binomial", "poisson", "chisquare", "geometric")),
    }

    def __init__(self, seed: np.random.SeedSequence, index: int) -> None:
        super().__init__(seed)
        self.index = index

    def draw(self, method: str, size: tuple[int, ...] | None, dtype: np.dtype | None, params: dict[str, Any]) -> Any:
        import cupy

        with cupy.cuda.Device(self.index):
            fn = getattr(cupy.random.Generator(cupy.random.Philox4x3210(self.next_key())), method)
            return fn(**params, size=size) if dtype is None else fn(**params, size=size, dtype=dtype)
