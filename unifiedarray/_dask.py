"""dask and dask.distributed integration: tokens, serialization, sizeof, the
``array.backend = "unifiedarray"`` backend and device-aware workers.

Nothing here imports dask or distributed at module level: ``import
unifiedarray`` never imports them.  Registrations with dask and distributed
are made when those libraries are present in the process, at the first of:

* ``import unifiedarray`` in a process that has already imported them (a
  dask worker: distributed is always imported first there);
* dask's ``dask.sizeof`` entry point (runs when dask is imported);
* the first ``tokenize``, ``sizeof`` or pickling of a UnifiedArray (the
  client: every path that ships an array to a cluster tokenizes it first);
* :class:`DevicePlugin`'s setup on a worker, or :func:`register` called
  directly.

Each is a cheap check of ``sys.modules`` and is idempotent.

Tokens
------
``tokenize(x)`` names *this buffer, in this process, at this write version*:
a serial drawn once per buffer from a process-wide counter that never goes
back (ids are reused when memory is, serials are not), a random tag of the
process, the buffer's write version, and the view's chain, dtype and shape.
Two different arrays therefore never share a token, and an array's token
changes whenever it is written.  A token is not a hash of the data: the same
values in two buffers (or the same chunk after a trip to a worker, which is
a new buffer there) have different tokens.  Hashing would read every byte
of every chunk, on the device, on every ``tokenize``.

Serialization
-------------
``dask`` family: one frame, the bytes of the chunk's current copy, with no
pickle.  A host-current chunk sends its host copy zero-copy (the same bytes
NumPy's serializer sends); an MLX-only chunk sends MLX's memory itself, with
no host copy made; a CUDA-only chunk is copied to a temporary host frame
(counted, reason ``"dask_serialize"``) that the buffer does not keep.  The
receiver restores the chunk on the same kind of device (counted as
``"dask_deserialize"`` for devices), or on the host with a
:class:`DeviceUnavailableWarning` when it has no such device.
``cuda`` family: a CUDA-current chunk is sent as device memory (UCX), as
``distributed.protocol.cupy`` does for CuPy; anything else falls through to
the ``dask`` family.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import sys
import threading
import weakref
from typing import Any

import numpy as np

from . import _pickling
from ._access import native_on
from ._array import UnifiedArray, from_buffer
from ._buffer import upload_new
from ._devices import CPU, Device, DeviceLike
from ._foreign import host_data
from ._pickling import DeviceUnavailableWarning, host_frame, host_from_bytes, restore
from ._pickling import _rebuild as _rebuild  # older pickles name unifiedarray._dask._rebuild
from ._policy import get_default_device
from ._resolve import namespace_for
from ._results import adopt, wrap_result
from .backends import all_backends, backend_for, registry

__all__ = [
    "DevicePlugin",
    "DeviceUnavailableWarning",
    "RandomState",
    "array_backend",
    "reduce_ex",
    "register",
    "register_sizeof",
    "sizeof",
    "token",
    "worker_resources",
]


# -- tokens ------------------------------------------------------------------------

_PROCESS_TAG = os.urandom(8).hex()  # tells this process's serials from another's
_SERIAL = itertools.count(1)  # never goes back: a serial is never reused
_SERIALS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_SERIAL_LOCK = threading.Lock()


def _new_process() -> None:
    """After ``os.fork()``, in the child: a tag of its own, so that the
    arrays parent and child go on to make and write (each numbering its
    buffers from the same count) never share a token, nor a dask name."""
    global _PROCESS_TAG, _SERIAL_LOCK
    _PROCESS_TAG = os.urandom(8).hex()
    _SERIAL_LOCK = threading.Lock()  # the parent's may have been held by a thread the child lacks


os.register_at_fork(after_in_child=_new_process)


def _serial(buf: Any) -> int:
    serial = _SERIALS.get(buf)
    if serial is None:
        with _SERIAL_LOCK:
            serial = _SERIALS.get(buf)
            if serial is None:
                serial = _SERIALS[buf] = next(_SERIAL)
    return serial


def token(x: UnifiedArray) -> tuple:
    """What ``dask.base.tokenize`` hashes for ``x`` (``__dask_tokenize__``).

    >>> import unifiedarray as xp
    >>> a = xp.ones(3)
    >>> t = token(a)
    >>> a[0] = 2.0
    >>> token(a) != t
    True
    """
    if not _REGISTERED[0]:
        _maybe_register()
    buf = x.buffer
    return ("unifiedarray", _PROCESS_TAG, _serial(buf), buf.version, x.chain, x.dtype.str, x.extent)


# -- data out and in ---------------------------------------------------------------


def _frame(host: np.ndarray) -> memoryview:
    return host.reshape(-1).view(np.uint8).data if host.dtype.itemsize else memoryview(b"")


def dask_serialize(x: UnifiedArray) -> tuple[dict, list]:
    """distributed's ``dask`` family: a header and one frame of raw bytes."""
    host = host_frame(x, "dask_serialize")
    header = {"device": str(x.device), "dtype": host.dtype.str, "shape": host.shape}
    return header, [_frame(host)]


def dask_deserialize(header: dict, frames: list) -> UnifiedArray:
    (frame,) = frames
    host = host_from_bytes(frame, header["dtype"], tuple(header["shape"]))
    return restore(host, header["device"], "dask_deserialize")


def cuda_serialize(x: UnifiedArray) -> tuple[dict, list]:
    """distributed's ``cuda`` family (UCX): CUDA memory sent as it is.  Any
    chunk whose CUDA copy is not current goes to the next family."""
    buf = x.buffer
    dev = buf.placement
    if not backend_for(dev).cuda_memory or dev not in buf.valid_devices:
        raise NotImplementedError("not a CUDA-current chunk")
    native = native_on(x, dev, "cuda_serialize")
    with native.device:  # CuPy's Device: work on the chunk's own GPU
        if not native.flags.c_contiguous:
            native = native.copy()
        frame = native.reshape(-1).view(np.uint8)  # the chunk's device memory, as bytes
    header = {"device": str(dev), "dtype": native.dtype.str, "shape": native.shape}
    return header, [frame]


def cuda_deserialize(header: dict, frames: list) -> UnifiedArray:
    (frame,) = frames
    backend = next(b for b in all_backends() if b.cuda_memory and b.available)
    dev = Device.parse(backend.kind)  # UCX receives on the current GPU
    raw = namespace_for(dev).asarray(frame)  # CuPy, Numba and RMM device buffers alike
    native = raw.view(np.dtype(header["dtype"])).reshape(tuple(header["shape"]))
    return wrap_result(native, backend.device_of(native))


def reduce_ex(x: UnifiedArray, protocol: int) -> tuple:
    """``x.__reduce_ex__``: registers with dask and distributed first where
    they are imported (a client pickles what it ships), then pickles
    (:func:`unifiedarray._pickling.reduce_ex`)."""
    if not _REGISTERED[0]:
        _maybe_register()
    return _pickling.reduce_ex(x, protocol)


# -- sizeof ------------------------------------------------------------------------


def sizeof(x: UnifiedArray) -> int:
    """Bytes ``x`` holds: its size once per allocated copy (host and each
    device), as the scheduler should count it.  For a view, the view's size.

    >>> import unifiedarray as xp
    >>> sizeof(xp.ones(1000)) >= 8000
    True
    """
    if not _REGISTERED[0]:
        _maybe_register()
    buf = x.buffer
    nbytes = buf.nbytes if x.chain is None else x.size * buf.dtype.itemsize
    return 64 + nbytes * max(len(buf.allocated_devices), 1)


def register_sizeof(sizeof_dispatch: Any) -> None:
    """The ``dask.sizeof`` entry point: teach ``dask.sizeof`` UnifiedArray.

    It runs while dask is being imported, which is usually while distributed
    is (a worker imports distributed first, and this entry point imports
    unifiedarray before distributed's serializers exist): so it also asks to
    be told when distributed's serializers are loaded."""
    sizeof_dispatch.register(UnifiedArray, sizeof)
    _maybe_register()
    if not _REGISTERED[0] and not any(isinstance(f, _AfterImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport())


class _AfterImport:
    """A one-shot import hook: registers UnifiedArray with distributed right
    after ``distributed.protocol.cuda`` (which loads the serializers) is
    executed, then removes itself.  Every other import is passed over."""

    TARGET = "distributed.protocol.cuda"

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != self.TARGET:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        spec.loader = _RegisteringLoader(spec.loader)  # type: ignore[assignment]
        return spec


class _RegisteringLoader:
    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def create_module(self, spec: Any) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self._loader.exec_module(module)
        register()


# -- registration ------------------------------------------------------------------

_REGISTERED = [False]  # distributed's families registered in this process
_DASK_ARRAY_REGISTERED = [False]
_REGISTER_LOCK = threading.RLock()


def _maybe_register() -> None:
    """Register with whatever of dask and distributed is imported already."""
    if not _DASK_ARRAY_REGISTERED[0] and "dask.array.dispatch" in sys.modules:
        _register_dask_array()
    if not _REGISTERED[0] and "distributed.protocol.cuda" in sys.modules:
        register()


def register() -> None:
    """Register UnifiedArray with distributed's ``dask`` and ``cuda``
    serialization families (imports distributed).  Idempotent."""
    with _REGISTER_LOCK:
        if _REGISTERED[0]:
            return
        from distributed.protocol.cuda import cuda_deserialize as cuda_loads
        from distributed.protocol.cuda import cuda_serialize as cuda_dumps
        from distributed.protocol.serialize import dask_deserialize as dask_loads
        from distributed.protocol.serialize import dask_serialize as dask_dumps

        dask_dumps.register(UnifiedArray, dask_serialize)
        dask_loads.register(UnifiedArray, dask_deserialize)
        cuda_dumps.register(UnifiedArray, cuda_serialize)
        cuda_loads.register(UnifiedArray, cuda_deserialize)
        _REGISTERED[0] = True
    if "dask.sizeof" in sys.modules:
        from dask.sizeof import sizeof as dask_sizeof

        dask_sizeof.register(UnifiedArray, sizeof)


def _to_numpy(x: UnifiedArray, **kwargs: Any) -> np.ndarray:
    return np.array(native_on(x, CPU, "to_backend('numpy')"), copy=True)


def _register_dask_array() -> None:
    with _REGISTER_LOCK:
        if _DASK_ARRAY_REGISTERED[0]:
            return
        from dask.array.dispatch import to_numpy_dispatch

        to_numpy_dispatch.register(UnifiedArray, _to_numpy)
        _DASK_ARRAY_REGISTERED[0] = True


# -- the dask.array backend ----------------------------------------------------------

#: dask config key naming the device of ``array.backend = "unifiedarray"``
#: chunks; unset, the default device (``unifiedarray.get_default_device()``).
DEVICE_CONFIG_KEY = "unifiedarray.device"

#: ``unifiedarray.random.BitGenerator.on``: the seeds dask's ``default_rng``
#: gives each chunk under this backend (set by that module, which sits above
#: this one)
BIT_GENERATOR: list[Any] = [None]


def backend_device() -> Device:
    """The device new chunks go to under ``array.backend = "unifiedarray"``."""
    import dask

    dev = dask.config.get(DEVICE_CONFIG_KEY, None)
    return get_default_device() if dev is None else Device.parse(dev)


class RandomState:
    """``numpy.random.RandomState`` whose results are UnifiedArrays on one
    device: what ``da.random`` uses under this backend.  The numbers are
    NumPy's (drawn on the host, then moved: counted, reason ``"random"``),
    so a seed gives the same values as NumPy chunks.  Subclasses per device
    (``RandomState.on("mlx")``) carry the device into the task graph."""

    device: Device = CPU

    def __init__(self, seed: Any = None) -> None:
        self._state = np.random.RandomState(seed)

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._state, name)
        if not callable(attr):
            return attr
        dev = type(self).device

        def draw(*args: Any, **kwargs: Any) -> Any:
            out = attr(*args, **kwargs)
            if not isinstance(out, np.ndarray):
                return out
            if dev is CPU:
                return adopt(out, CPU, out.dtype)
            return from_buffer(upload_new(out, dev, "random", explicit=True))

        return draw

    @staticmethod
    def on(device: DeviceLike) -> type[RandomState]:
        """The RandomState class for ``device`` (a module attribute, so it
        pickles by name)."""
        dev = Device.parse(device)
        return _random_state_class(dev.replace(":", "_"))


_RANDOM_CLASSES: dict[str, type] = {}


def _random_state_class(tag: str) -> type:
    cls = _RANDOM_CLASSES.get(tag)
    if cls is None:
        name = f"RandomState_{tag}"
        dev = Device.parse(tag.replace("_", ":"))
        cls = type(name, (RandomState,), {"device": dev, "__module__": __name__, "__qualname__": name})
        _RANDOM_CLASSES[tag] = cls
    return cls


def __getattr__(name: str) -> Any:
    # RandomState_mlx, RandomState_cuda_0, ...: made on demand, so that a
    # worker unpickling a graph finds the class of the device it names.
    if name.startswith("RandomState_"):
        return _random_state_class(name[len("RandomState_") :])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def array_backend() -> Any:
    """The ``dask.array.backends`` entry point: an ``ArrayBackendEntrypoint``
    whose creation functions make UnifiedArray chunks on
    :func:`backend_device`.

    Example (with dask installed)
    -----------------------------
    >>> import dask, dask.array as da
    >>> with dask.config.set({"array.backend": "unifiedarray"}):  # doctest: +SKIP
    ...     x = da.ones((4, 4), chunks=2)
    """
    import dask
    import dask.array as da
    from dask.array.backends import ArrayBackendEntrypoint
    from dask.array.dispatch import to_numpy_dispatch

    _maybe_register()

    def meta(device: Device | None = None) -> UnifiedArray:
        dev = backend_device() if device is None else device
        return wrap_result(backend_for(dev).zeros((0,), np.dtype(np.float64), dev), dev)

    def with_meta(name: str, *args: Any, meta_: Any = None, **kwargs: Any) -> Any:
        kwargs.pop("like", None)
        m = meta() if meta_ is None else meta_
        with dask.config.set({"array.backend": "numpy"}):
            out = getattr(da, name)(*args, meta=m, **kwargs)
        return _on_device(out, m.device)

    class UnifiedArrayBackend(ArrayBackendEntrypoint):
        @classmethod
        def to_backend_dispatch(cls) -> Any:
            return intake_chunk

        @classmethod
        def to_backend(cls, data: Any, **kwargs: Any) -> Any:
            dev = Device.parse(kwargs.pop("device", None) or backend_device())
            if type(data._meta) is UnifiedArray and data._meta.device == dev:  # noqa: SLF001  # dask's meta array (dask has no public accessor)
                return data
            return data.map_blocks(intake_chunk, device=str(dev), meta=meta(dev), **kwargs)

        @property
        def RandomState(self) -> Any:
            return RandomState.on(backend_device())

        @property
        def default_bit_generator(self) -> Any:
            # dask builds a chunk's Generator with the bit generator's own
            # library (unifiedarray.random.default_rng): chunks drawn on
            # their device, by unifiedarray.random's native streams.
            return BIT_GENERATOR[0](backend_device())

        @staticmethod
        def ones(*args: Any, meta: Any = None, **kwargs: Any) -> Any:
            return with_meta("ones", *args, meta_=meta, **kwargs)

        @staticmethod
        def zeros(*args: Any, meta: Any = None, **kwargs: Any) -> Any:
            return with_meta("zeros", *args, meta_=meta, **kwargs)

        @staticmethod
        def empty(*args: Any, meta: Any = None, **kwargs: Any) -> Any:
            return with_meta("empty", *args, meta_=meta, **kwargs)

        @staticmethod
        def full(*args: Any, meta: Any = None, **kwargs: Any) -> Any:
            return with_meta("full", *args, meta_=meta, **kwargs)

        @staticmethod
        def arange(*args: Any, like: Any = None, meta: Any = None, **kwargs: Any) -> Any:
            m = meta if meta is not None else like if like is not None else globals_meta()
            with dask.config.set({"array.backend": "numpy"}):
                out = da.arange(*args, like=m, **kwargs)
            return _on_device(out, m.device)

    def globals_meta() -> UnifiedArray:
        return meta()

    to_numpy_dispatch.register(UnifiedArray, _to_numpy)
    return UnifiedArrayBackend()


def intake_chunk(data: Any, device: str | None = None, **kwargs: Any) -> UnifiedArray:
    """A chunk as a UnifiedArray on ``device`` (``to_backend``'s map)."""
    dev = backend_device() if device is None else Device.parse(device)
    if type(data) is UnifiedArray:
        return data if data.device == dev else data.to_device(dev)
    host = host_data(data, copy=True)  # a copy the new array owns (the chunk may be shared)
    if dev is CPU:
        return adopt(host, CPU, host.dtype)
    return from_buffer(upload_new(host, dev, "to_backend", explicit=True))


def _on_device(arr: Any, dev: Device) -> Any:
    """Make sure every chunk of a freshly created dask array is a
    UnifiedArray on ``dev``: dask's creation functions build chunks from the
    meta, and the ones that do not (or land elsewhere) are converted, so the
    graph's output never depends on how NumPy's ``like=`` was dispatched."""
    m = arr._meta  # noqa: SLF001  # dask's meta array (dask has no public accessor)
    if type(m) is UnifiedArray and m.device == dev:
        return arr.map_blocks(_ensure_on, device=str(dev), meta=m, dtype=arr.dtype)
    return arr.map_blocks(intake_chunk, device=str(dev), dtype=arr.dtype)


def _ensure_on(chunk: Any, device: str) -> Any:
    if type(chunk) is UnifiedArray and chunk.device == device:
        return chunk
    return intake_chunk(chunk, device)


# -- device-aware workers ----------------------------------------------------------


def worker_resources() -> dict[str, int]:
    """This process's devices as dask resources: ``{"mlx": 1}`` where MLX
    runs, ``{"cuda": N}`` for N CUDA GPUs.

    >>> isinstance(worker_resources(), dict)
    True
    """
    out: dict[str, int] = {}
    for kind, backend in registry().items():
        if kind != CPU.kind and backend.available and backend.devices():
            out[kind] = len(backend.devices())
    return out


def DevicePlugin(**kwargs: Any) -> Any:
    """A distributed ``WorkerPlugin`` that, on each worker, registers
    UnifiedArray's serialization and advertises the worker's devices as
    resources (:func:`worker_resources`), so that
    ``dask.annotate(resources={"mlx": 1})`` places device chunks on workers
    that have the device.  ``client.register_plugin(DevicePlugin())``."""
    from distributed import WorkerPlugin

    class _DevicePlugin(WorkerPlugin):
        name = "unifiedarray-devices"
        idempotent = True

        async def setup(self, worker: Any) -> None:
            register()
            resources = worker_resources()
            if resources:
                await worker.set_resources(**{k: float(v) for k, v in resources.items()})

    return _DevicePlugin(**kwargs)


_maybe_register()
