"""The CUDA backend: CuPy arrays, one device per GPU (``cuda:N``).

Probing is careful because ``cupy-cuda12x`` installs and imports on machines
without a driver; there the first runtime call raises ``CUDARuntimeError``.
We ask the runtime for the device count and make one tiny allocation inside
the probe, so an unusable CUDA is found here and reported once, and never
half-way through a user's computation.
"""

from __future__ import annotations

import threading
from types import ModuleType
from typing import Any

import numpy as np

from .._devices import Device, set_current_cuda_query
from . import _DONE, Backend, contiguous

#: size of each pinned staging chunk for large pageable uploads
STAGING_CHUNK = 8 << 20


#: the type codes CuPy's arrays hold (native byte order only)
CUPY_TYPE_CODES = frozenset("?bhilqBHILQefdFD")


def _finished() -> Any:
    return _DONE


class _InFlight:
    """A copy still running on a CUDA stream: its event, and the arrays it
    reads and writes, kept alive until it is done.  If the buffer is dropped
    before anyone waits, CuPy's pinned pool must not hand the host memory
    on while the copy still writes into it: the arrays are also put on
    CuPy's own watch list, which holds them until the event completes."""

    __slots__ = ("event", "keep")

    def __init__(self, event: Any, *keep: Any) -> None:
        import cupy

        self.event = event
        self.keep = keep
        watch = getattr(cupy.cuda.pinned_memory, "_add_to_watch_list", None)  # CuPy 13 and 14
        if watch is not None:
            watch(event, keep)

    def synchronize(self) -> None:
        self.event.synchronize()
        self.keep = ()


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

    def __init__(self) -> None:
        super().__init__()
        self._count = 0
        self._staging: list[np.ndarray] | None = None
        self._staging_lock = threading.Lock()
        self._copy_streams: dict[int, Any] = {}  # per device, for non-blocking uploads

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
            if into is None or not into.flags.c_contiguous:
                # set() refuses a non-contiguous target (an adopted result
                # can be one, e.g. a flipped sort), and reshaping one copies.
                into = cupy.empty(src.shape, src.dtype)
            pinned = is_pinned(src)
            if src.nbytes >= 2 * STAGING_CHUNK and not pinned:
                self._staged_upload(src, into)
            else:
                into.set(src)
                if pinned:
                    # From pinned memory set() is truly asynchronous; a
                    # blocking move must be complete when it returns (the
                    # caller may write the host copy next).
                    cupy.cuda.get_current_stream().synchronize()
            return into

    def _staged_upload(self, src: np.ndarray, dst: Any) -> None:
        """Pageable host memory cannot be copied asynchronously, and the
        driver stages it through a small pinned buffer one piece at a time.
        Here two pinned chunks alternate: the CPU fills one while the GPU's
        DMA engine drains the other, so the two copies overlap."""
        import cupy
        import cupyx

        with self._staging_lock:
            if self._staging is None:
                self._staging = [cupyx.empty_pinned(STAGING_CHUNK, np.uint8) for _ in range(2)]
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
                stage = self._staging[k][: stop - start]
                np.copyto(stage, flat_src[start:stop])
                flat_dst[start:stop].set(stage, stream=stream)
                events[k] = stream.record()
            stream.synchronize()

    def upload_async(self, host: np.ndarray, device: Device, into: Any = None) -> tuple[Any, Any]:
        import cupy

        if not is_pinned(host) or not host.flags.c_contiguous:
            return self.upload(host, device, into), _finished()
        with cupy.cuda.Device(device.index):
            if into is None or not into.flags.c_contiguous:
                into = cupy.empty(host.shape, host.dtype)
            # The copy runs on a stream of its own, so that it overlaps with
            # compute on the current stream (prefetch's double buffering).
            # It first waits for the work already queued there (which may
            # still read the old device copy), and the current stream then
            # waits for it on the GPU, not on the host: work queued after
            # this call sees the data, and the caller is not blocked.
            current = cupy.cuda.get_current_stream()
            stream = self._copy_stream(device.index)
            stream.wait_event(current.record())
            into.set(host, stream=stream)  # asynchronous: the source is pinned
            done = stream.record()
            current.wait_event(done)
            return into, _InFlight(done, host, into)

    def _copy_stream(self, index: int) -> Any:
        import cupy

        streams = self._copy_streams
        stream = streams.get(index)
        if stream is None:
            with self._staging_lock:
                stream = streams.get(index)
                if stream is None:
                    stream = streams[index] = cupy.cuda.Stream(non_blocking=True)
        return stream

    def download(self, native: Any, out: np.ndarray) -> None:
        # Lands directly in the host buffer: no intermediate host array.
        if out.flags.c_contiguous and native.flags.c_contiguous:
            native.get(out=out)
        else:
            np.copyto(out, native.get())

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

    def numpy_like(self) -> ModuleType:
        import cupy

        return cupy  # type: ignore[no-any-return]

    def aliases(self, a: Any, b: Any) -> bool:
        import cupy

        return bool(cupy.may_share_memory(a, b))

    def copy(self, native: Any) -> Any:
        import cupy

        with cupy.cuda.Device(native.device.id):  # CuPy copies onto the current GPU
            return native.copy()


def _current_gpu() -> int:
    """CuPy's current GPU (what "cuda" names); the first one without a driver."""
    try:
        import cupy

        return int(cupy.cuda.runtime.getDevice())
    except Exception:
        return 0


set_current_cuda_query(_current_gpu)


def pinned_zeros(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray | None:
    """A zeroed host array in page-locked memory, or None without CUDA.

    Uses CuPy's pinned memory pool, so repeated pinned allocations are cheap.
    """
    from . import _registry

    if not _registry()["cuda"].available:
        return None
    import cupyx

    out = cupyx.zeros_pinned(shape, dtype)
    return out
