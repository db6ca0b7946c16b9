"""The MLX backend: ``mlx.core.array`` on Apple Metal, or MLX's CPU build on
Linux, as one device named ``"mlx"``.

MLX is a separate memory space with its own allocator, lazy evaluation and
dtype limits.  Two of those limits shape this module:

* ``mx.array(float64_ndarray)`` silently gives float32.  Every upload names
  the dtype explicitly, so a float64 buffer stays float64.
* MLX has no complex128.  A buffer of that dtype cannot have an MLX copy;
  asking for one is a ``TypeError`` naming backend, dtype and operation.

An upload is complete when it returns: ``mx.array`` copies the host data
when it is built (no graph is left to evaluate), so the ledger times the
whole move.

Threads
-------
MLX (0.32) binds a stream to the thread that made it: a lazy graph built on
a thread's default stream can only be evaluated in that thread ("There is no
Stream(cpu, N) in current thread").  A stream made by
``mx.new_thread_unsafe_stream`` can be evaluated in any thread, provided
evaluations on it never overlap.  So all the library's MLX work runs on one
such stream per MLX device type, and three rules keep it safe:

* every graph the library builds is built inside :func:`compute_context`,
  which enters that stream and holds the evaluation lock, so that any
  evaluation inside a compute function (an index check's ``.item()``, a
  host fallback's ``np.asarray``) is serialised too;
* every evaluation outside a compute call goes through :func:`evaluate` (a
  read, a move, a sync, a Python scalar), under the same lock;
* nothing unevaluated is handed to user code (leases, ``read``, exports are
  evaluated first: user code evaluates without the lock), and a user's MLX
  array is evaluated where it enters (:func:`detach`), in the user's thread,
  whose stream it may be bound to.

The evaluation lock is innermost: a buffer's lock may be held when it is
taken, never the reverse (nothing inside :func:`compute_context` or
:func:`evaluate` touches a buffer).
"""

from __future__ import annotations

import _thread
import platform
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from .._devices import MLX, Device
from ._base import Backend, host_memory_info

#: Serialises every evaluation of the library's stream (see "Threads" above).
#: Re-entrant: an evaluation inside a compute call takes it again.
EVAL_LOCK = _thread.RLock()

#: Whether MLX writes made through the buffer (fill, copy_from, _apply_write)
#: may stay lazy.  False while any MLX graph of the library is built outside
#: compute_context (on a thread's own stream, evaluated without the lock):
#: such a graph could reach an unscheduled node of the library's stream, so
#: every write is scheduled (``async_eval`` under the lock) before it is
#: published.  The dispatch sets it to True once every MLX call runs inside
#: compute_context and every read evaluates through evaluate().
lazy_writes = True

_MX: Any = None  # mlx.core, set by the probe
_STREAMS: tuple = ()  # the library's thread-unsafe streams: the default device's last
_LEASE: Any = None  # the class of leased MLX handles, made by the probe

_NP_TO_MX: dict[np.dtype, Any] = {}
_MX_TO_NP: dict[Any, np.dtype] = {}


def _build_dtype_tables(mx: Any) -> None:
    for name in (
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float16",
        "float32",
        "float64",
        "complex64",
    ):
        mx_dtype = getattr(mx, "bool_" if name == "bool" else name)
        _NP_TO_MX[np.dtype(name)] = mx_dtype
        _MX_TO_NP[mx_dtype] = np.dtype(name)


def mx_dtype(dtype: np.dtype) -> Any:
    """The MLX dtype for a NumPy dtype; ``TypeError`` where MLX has none."""
    try:
        return _NP_TO_MX[np.dtype(dtype)]
    except KeyError:
        raise TypeError(f"mlx cannot hold dtype {np.dtype(dtype).name}") from None


def np_dtype(dtype: Any) -> np.dtype:
    """The NumPy dtype for an MLX dtype."""
    try:
        return _MX_TO_NP[dtype]
    except KeyError:
        raise TypeError(f"mlx dtype {dtype} has no NumPy equivalent") from None


class _Compute:
    """What :func:`compute_context` returns: the evaluation lock and the
    library's stream(s), entered together."""

    __slots__ = ("_ctx", "_saved")

    def __enter__(self) -> None:
        EVAL_LOCK.acquire()
        try:
            streams = _STREAMS
            if len(streams) > 1:
                # Metal: float64 work names MLX's CPU device, so the CPU
                # stream is made the thread's CPU default too.  MLX's stream
                # context restores only the stream of the device it replaced,
                # so the CPU default is saved and restored here.
                self._saved = [_MX.default_stream(s.device) for s in streams[:-1]]
                for s in streams[:-1]:
                    _MX.set_default_stream(s)
            ctx = self._ctx = _MX.stream(streams[-1])
            ctx.__enter__()
        except BaseException:
            EVAL_LOCK.release()
            raise

    def __exit__(self, *exc: Any) -> None:
        try:
            self._ctx.__exit__(None, None, None)
            if len(_STREAMS) > 1:
                for s in self._saved:
                    _MX.set_default_stream(s)
        finally:
            EVAL_LOCK.release()


def _ready() -> None:
    if _MX is None and not BACKEND.available:
        raise RuntimeError(f"MLX is not available: {BACKEND.unavailable_reason}")


def compute_context() -> Any:
    """A context manager for building MLX graphs: it holds the evaluation
    lock and makes the library's thread-unsafe stream the default, so that
    the graph can be evaluated in any thread, and any evaluation inside is
    serialised.  Enter it around every MLX namespace call (about 1 µs).
    Never acquire a buffer's lock inside it.

    Example
    -------
    >>> from unifiedarray.backends import mlx_backend
    >>> import mlx.core as mx
    >>> with mlx_backend.compute_context():
    ...     y = mx.ones(3) * 2
    >>> mlx_backend.evaluate(y); y.tolist()
    [2.0, 2.0, 2.0]
    """
    if _MX is None:
        _ready()
    return _Compute()


def run(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` inside :func:`compute_context`, without the context
    object (the operators' fast path: about 0.3 µs less a call)."""
    if len(_STREAMS) != 1:
        with compute_context():
            return fn(*args)
    EVAL_LOCK.acquire()
    try:
        ctx = _MX.stream(_STREAMS[0])
        ctx.__enter__()
        try:
            return fn(*args)
        finally:
            ctx.__exit__(None, None, None)
    finally:
        EVAL_LOCK.release()


def evaluate(*arrays: Any) -> None:
    """Evaluate MLX arrays (built in any thread inside compute_context, or
    in this thread on its own stream), serialised with every other
    evaluation of the library's stream.  Blocks until the data is there."""
    if _MX is None:
        _ready()
    with EVAL_LOCK:
        _MX.eval(*arrays)


def schedule(*arrays: Any) -> None:
    """Start evaluating MLX arrays without waiting (``async_eval`` under the
    evaluation lock)."""
    if _MX is None:
        _ready()
    with EVAL_LOCK:
        _MX.async_eval(*arrays)


def settle(native: Any) -> Any:
    """What the buffer calls on an MLX copy it has just written, before the
    copy is published: schedules it unless writes may stay lazy (see
    :data:`lazy_writes`).  Returns ``native``."""
    if not lazy_writes:
        schedule(native)
    return native


def stream() -> Any:
    """The library's stream on MLX's default device (for ``stream=``)."""
    if _MX is None:
        _ready()
    return _STREAMS[-1]


def _make_lease_class(mx: Any) -> Any:
    """The class of a leased MLX copy (``UnifiedBuffer.mlx``).

    A lease is the buffer's own MLX array object, its class switched to this
    one (no copy: the layout is MLX's).  MLX's in-place writes rebind the
    handle to a new lazy graph on the *caller's* stream; here they are built
    on the library's stream and evaluated at once, so the buffer's copy
    never holds a graph that only the writing thread could evaluate, nor an
    unevaluated graph that user code could evaluate without the lock.
    """

    def _inplace(name: str) -> Any:
        method = getattr(mx.array, name)

        def op(self: Any, other: Any) -> Any:
            with compute_context():
                out = method(self, other)
                _MX.eval(out)
            return out

        op.__name__ = name
        return op

    def __setitem__(self: Any, key: Any, value: Any) -> None:
        with compute_context():
            mx.array.__setitem__(self, key, value)
            _MX.eval(self)

    names = [n for n in dir(mx.array) if n.startswith("__i") and n[3:-2] in _INPLACE]
    body: dict[str, Any] = {"__slots__": (), "__setitem__": __setitem__, "__module__": __name__}
    body.update({n: _inplace(n) for n in names})
    return type("LeasedMLXArray", (mx.array,), body)


_INPLACE = {"add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor", "lshift", "rshift"}


class MLXBackend(Backend):
    name = "mlx"
    title = "MLX"
    kind = "mlx"
    device_aliases = ("metal",)

    def __init__(self) -> None:
        super().__init__()
        self.mx: Any = None
        self.metal = False

    def _probe(self) -> str | None:
        try:
            import mlx.core as mx
        except ImportError as exc:
            if "mlx" in str(exc) and "No module" in str(exc):
                return "MLX is not installed (pip install 'unifiedarray[mlx]')"
            return f"MLX is installed but its native library failed to load: {exc}"
        except Exception as exc:
            return f"MLX failed to import: {type(exc).__name__}: {exc}"
        mx.eval(mx.zeros(1))  # the first evaluation is where a broken build shows
        _build_dtype_tables(mx)
        try:
            self.metal = bool(mx.metal.is_available())
        except Exception:
            self.metal = False
        global _MX, _STREAMS, _LEASE
        streams = [mx.new_thread_unsafe_stream(mx.cpu)]
        if self.metal:
            streams.append(mx.new_thread_unsafe_stream(mx.gpu))
        _STREAMS = tuple(streams)
        _LEASE = _make_lease_class(mx)
        _MX = self.mx = mx
        return None

    def device_from_object(self, obj: Any) -> Device | None:
        """MLX's ``Device`` objects (``mx.cpu``, ``mx.gpu``): its one device."""
        return MLX if (type(obj).__module__ or "").startswith("mlx") else None

    def namespace(self, device: Device) -> ModuleType:
        """:mod:`unifiedarray.backends.mlx_namespace`, written here: none
        exists upstream (it imports MLX, so it loads on first use)."""
        from . import mlx_namespace

        return mlx_namespace

    @property
    def metal_reason(self) -> str | None:
        """Why ``.metal`` is unavailable, or None when MLX runs on Metal."""
        if not self.available:
            return self.unavailable_reason
        if self.metal:
            return None
        if platform.system() != "Darwin":
            return f"Metal exists only on macOS; MLX runs here on the CPU ({platform.system()}), use .mlx"
        return "MLX is installed but Metal is not available on this Mac"

    def devices(self) -> list[Device]:
        return [MLX] if self.available else []

    def supports_dtype(self, dtype: np.dtype, device: Device) -> bool:
        self._ensure_probed()
        return np.dtype(dtype) in _NP_TO_MX

    def zeros(self, shape: tuple[int, ...], dtype: np.dtype, device: Device, pinned: bool = False) -> Any:
        self.check_dtype(dtype, device, "allocation")
        # Metal has no float64: such arrays are made on MLX's CPU stream.
        stream = _STREAMS[0] if np.dtype(dtype) == np.float64 else _STREAMS[-1]
        out = self.mx.zeros(shape, dtype=mx_dtype(dtype), stream=stream)
        evaluate(out)
        return out

    def upload(self, host: np.ndarray, device: Device, into: Any = None) -> Any:
        # MLX arrays are values: a new array replaces the old copy.  The
        # buffer swaps it in under its lock.
        self.check_dtype(host.dtype, device, "copy to mlx")
        if host.size == 0:
            # MLX's reductions misbehave on empty arrays built from NumPy
            # data (prod gives 0, some calls spin): allocate those in MLX.
            return self.zeros(host.shape, host.dtype, device)
        if host.strides and min(host.strides) < 0:
            # MLX refuses negative strides (through DLPack), also for one
            # element, which NumPy calls contiguous: copy it in C order.
            host = np.array(host, order="C")
        # mx.array copies the host data at once: no graph, nothing to evaluate.
        return self.mx.array(host, dtype=_NP_TO_MX[host.dtype])

    def download(self, native: Any, out: np.ndarray) -> None:
        evaluate(native)
        # np.asarray of an evaluated MLX array is a zero-copy view of MLX's
        # memory, so this is one copy, straight into the host buffer.
        np.copyto(out, np.asarray(native))

    def is_native(self, obj: Any) -> bool:
        return self.mx is not None and isinstance(obj, self.mx.array)

    def device_of(self, native: Any) -> Device:
        return MLX

    def memory_info(self, device: Device) -> tuple[int, int]:
        mx = self.mx
        if self.metal:
            info = mx.metal.device_info()
            total = int(info.get("memory_size", 0))
            return max(total - int(mx.get_active_memory()), 0), total
        # The CPU build allocates from host memory.
        return host_memory_info()

    def properties(self, device: Device) -> dict[str, Any]:
        import mlx.core as mx

        props: dict[str, Any] = {"mlx": getattr(mx, "__version__", "?"), "metal": self.metal}
        if self.metal:
            info = mx.metal.device_info()
            props["name"] = info.get("device_name", "Apple GPU")
        else:
            props["name"] = f"MLX CPU build ({platform.machine()})"
        return props

    def detach(self, native: Any) -> Any:
        """A new, evaluated handle on the same data, so that writes through
        the old handle (MLX's in-place ``a[i] = v`` rebinds that handle only)
        no longer reach the buffer's copy.  A same-shape reshape shares the
        memory (no copy); MLX copies on write, so neither handle's writes
        reach the other.  Evaluated here, in the caller's thread: ``native``
        may be a user's array whose graph only this thread can evaluate, and
        the handle may go to user code, which evaluates without the lock."""
        with compute_context():
            out = self.mx.reshape(native, native.shape)
            self.mx.eval(out)
        return out

    def lease(self, native: Any) -> Any:
        """``native`` (the buffer's MLX copy) as a write lease: evaluated,
        its class switched so that writes through it run on the library's
        stream (see :func:`_make_lease_class`).  The same object: writes
        through it reach the buffer."""
        if type(native) is not _LEASE:
            evaluate(native)
            native.__class__ = _LEASE
        return native

    def write(self, native: Any, write: Any, in_place: bool = False) -> Any:
        """Run ``write(target)`` (in-place writes, ``target[key] = value``)
        on the library's stream and return the written array, settled, for
        the buffer to publish as its new MLX copy.

        The target is a new handle on ``native``'s data (a lazy same-shape
        reshape: no copy), so that a thread still holding ``native`` (taken
        under the buffer's lock, used after it) keeps a complete graph: MLX's
        setitem rebinds the object it is called on.  With ``in_place`` (the
        copy is a live lease, whose writes must reach the buffer) the target
        is ``native`` itself; a lease is evaluated after every write, so it
        is never seen half-built."""
        with compute_context():
            target = native if in_place else self.mx.reshape(native, native.shape)
            write(target)
        return settle(target)

    def copy(self, native: Any) -> Any:
        """A real copy in MLX memory (for exports whose consumer may write)."""
        with compute_context():
            out = self.mx.array(native, dtype=native.dtype)  # without dtype= MLX gives float32
            self.mx.eval(out)
        return out

    results_alias = False  # MLX arrays are values: a result never aliases an input

    #: The dtypes MLX's functions narrow when they import a foreign array
    #: through DLPack (``mx.sin(x)`` of a float64 export gives float32):
    #: such an MLX array is not offered to them that way, so that they take
    #: ``__mlx_array__``, the MLX copy with its dtype.
    dlpack_import_narrows = frozenset({np.dtype(np.float64)})

    def compute_context(self, device: Device) -> Any:
        return compute_context()

    def run(self, device: Device, fn: Callable[..., Any], *args: Any) -> Any:
        return run(fn, *args)

    def evaluate(self, *natives: Any) -> None:
        evaluate(*natives)

    def compile(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """``mx.compile(fn)``: one compiled graph per input shapes and
        dtypes (MLX's own cache, inside the function it returns)."""
        return self.mx.compile(fn)

    def dtype_of(self, native: Any) -> np.dtype:
        return np_dtype(native.dtype)

    def shares_memory(self, a: Any, b: Any) -> bool:
        evaluate(a, b)
        return bool(np.may_share_memory(np.asarray(a), np.asarray(b)))

    def numpy_like(self) -> ModuleType:
        """``mlx.core``: its ``einsum`` has NumPy's meaning."""
        return self.mx


#: The MLX backend (the registry registers it).
BACKEND = MLXBackend()
