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
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from types import ModuleType
from typing import Any

import numpy as np

from .._devices import Device

__all__ = ["DONE", "Backend", "contiguous", "host_memory_info"]


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

    def compile(self, fn: Callable[..., Any]) -> Callable[..., Any] | None:
        """``fn`` (a function of native arrays, built from this backend's
        namespace functions) compiled into one kernel by the backend's own
        compiler, for :func:`unifiedarray.fuse`; None where the backend has
        none.  The compiled function is called inside :meth:`compute_context`."""
        return None

    def publish(self, native: Any) -> Any:
        """``native``, a new result, made ready to be kept as a buffer's copy
        (nothing to do on every backend now: MLX's results stay lazy, on a
        stream any thread may evaluate)."""
        return native

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

    def copy_into(self, native: Any, src: Any) -> None:
        """``native[...] = src``: ``src``, another of this backend's arrays on
        the same device, copied into the copy ``native`` (cast to its dtype
        under ``same_kind`` rules), for ``UnifiedBuffer.copy_from``."""
        native[...] = src

    def empty_block(self, device: Device, size: int) -> Any:
        """``size`` uninitialised bytes on ``device`` for a memory pool's
        block (pinned host memory from the CUDA backend with ``device`` the
        host)."""
        raise NotImplementedError

    def free_cached(self, device: Device, pinned: bool) -> None:
        """Give this backend's own cached free memory back to the driver."""

    def finish_copies_in_flight(self) -> None:
        """Wait for this backend's asynchronous copies still in flight (so
        their memory can be reused)."""

    def is_pinned(self, host: np.ndarray) -> bool:
        """Whether a host array is page-locked memory (only CUDA makes it)."""
        return False

    def numpy_like(self) -> ModuleType | None:
        """The NumPy-compatible module of this backend (CuPy), where NumPy
        calls on its arrays run; None where there is none."""
        return None


def contiguous(host: np.ndarray) -> np.ndarray:
    """``host`` as a C-contiguous array, copied only if it is not one; unlike
    ``np.ascontiguousarray`` it keeps a 0-d array 0-d."""
    return host if host.flags.c_contiguous else np.array(host, order="C")


class _Done:
    """An event that has already happened."""

    def synchronize(self) -> None:
        return None


DONE = _Done()


def host_memory_info() -> tuple[int, int]:
    """``(free, total)`` bytes of host memory (``MemAvailable`` on Linux)."""
    try:
        with open("/proc/meminfo") as f:
            info = {line.split(":")[0]: int(line.split()[1]) * 1024 for line in f if ":" in line}
        return info.get("MemAvailable", info.get("MemFree", 0)), info["MemTotal"]
    except OSError:
        page = os.sysconf("SC_PAGE_SIZE")
        total = os.sysconf("SC_PHYS_PAGES") * page
        try:
            free = os.sysconf("SC_AVPHYS_PAGES") * page
        except (ValueError, OSError):  # macOS has no SC_AVPHYS_PAGES
            free = total
        return free, total
