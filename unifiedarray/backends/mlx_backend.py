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

How MLX is evaluated (the library's stream, the evaluation lock, failures at
evaluation) is :mod:`unifiedarray.backends.mlx_evaluation`.
"""

from __future__ import annotations

import platform
import re
from collections.abc import Callable
from contextlib import nullcontext
from types import ModuleType
from typing import Any, ClassVar

import numpy as np
from numpy.exceptions import AxisError
from numpy.linalg import LinAlgError

from .._devices import MLX, Device
from ._base import Backend, KeyedSource, RandomSource, canonical, canonical_dtype, host_memory_info
from .mlx_evaluation import (
    NP_TO_MX,
    arrays_in,
    at_risk,
    compiled,
    compute_context,
    direct_call,
    evaluate,
    evaluate_element,
    mx_dtype,
    np_dtype,
    on_first_use,
    poisoned,
    run,
    settle,
    settle_arguments,
    start,
    streams,
    synchronize,
)

_LEASE: Any = None  # the class of leased MLX handles, made by the probe
_MLX_FUNCTION: Any = None  # the class of mlx.core's functions (they take stream=), set by the probe


def _make_lease_class(mx: Any) -> Any:
    """The class of a leased MLX copy (``UnifiedBuffer.mlx``).

    A lease is the buffer's own MLX array object, its class switched to this
    one (no copy: the layout is MLX's).  MLX's in-place writes rebind the
    handle to a new lazy graph on the *caller's* stream; here they are built
    on the library's stream and evaluated at once, so the buffer's copy
    never holds a graph that only the writing thread could evaluate, nor an
    unevaluated graph that user code could evaluate without the lock.

    A write's operands (the value, the indices, an in-place operator's
    other side) are resolved to native arrays first (:func:`_operand`),
    before the evaluation lock is taken: MLX would convert a
    ``UnifiedArray`` itself, through its protocols, which take that array's
    buffer lock, under the evaluation lock (the reverse of the library's
    lock order: see :mod:`~unifiedarray.backends.mlx_evaluation`, "Lock
    order").
    """
    mx_array = mx.array

    def _inplace(name: str) -> Any:
        method = getattr(mx_array, name)

        def op(self: Any, other: Any) -> Any:
            other = _operand(other, mx_array)
            with compute_context():
                _operands_first(self, (other,))
                out = method(self, other)
                evaluate(out)
            return out

        op.__name__ = name
        return op

    def __setitem__(self: Any, key: Any, value: Any) -> None:
        key, value = _operand(key, mx_array, True), _operand(value, mx_array)
        with compute_context():
            _operands_first(self, (value, *(key if type(key) is tuple else (key,))))
            mx_array.__setitem__(self, key, value)
            evaluate(self)
            if not _owns_its_block(self):
                # MLX's setitem of every element (h[:] = 1) leaves a broadcast:
                # a NumPy view of the lease (np.asarray(h)[0] = v) would then
                # write every element.  The lease gets memory of its own, as
                # lease() and write() give it.
                mx_array.__setitem__(self, ..., mx.contiguous(self))
                evaluate(self)

    names = [n for n in dir(mx_array) if n.startswith("__i") and n[3:-2] in _INPLACE]
    body: dict[str, Any] = {"__slots__": (), "__setitem__": __setitem__, "__module__": __name__}
    body.update({n: _inplace(n) for n in names})
    return type("LeasedMLXArray", (mx_array,), body)


def _operands_first(lease: Any, operands: tuple[Any, ...]) -> None:
    """Before a write through ``lease``: its MLX operands evaluated, each
    alone (a failure poisons what failed to evaluate: never the lease, which
    is untouched, nor another operand), and the lease's own failure raised
    where it has one (a lease is evaluated when lent and after every write:
    nothing else of it is left to evaluate)."""
    for native in arrays_in(operands):
        evaluate(native)
    if at_risk():
        settle_arguments((lease,))


def _operand(value: Any, mx_array: Any, index: bool = False) -> Any:
    """An operand of a write through a lease as MLX will read it, resolved
    in the caller's thread before the evaluation lock is taken (see
    :func:`_make_lease_class`).  MLX arrays, scalars and host data pass as
    they are; an object MLX converts through ``__mlx_array__`` (a
    ``UnifiedArray``; MLX asks its ``__dlpack__`` first) is converted here:
    one on MLX to its MLX array (``__mlx_array__``: its buffer's copy,
    evaluated), one elsewhere to its host data, read-only (``to_numpy()``:
    a read, marking nothing, as MLX's own import of its host export read
    it; an MLX array of it where it is an ``index``, as MLX indexes with
    nothing else), an object of another library to its ``__mlx_array__``.
    Tuples and lists (indices, a list of values) are looked into one level."""
    tv = type(value)
    if tv is tuple or tv is list:
        if any(not isinstance(v, mx_array) and hasattr(type(v), "__mlx_array__") for v in value):
            return tv([_operand(v, mx_array, index) for v in value])
        return value
    if isinstance(value, mx_array) or not hasattr(tv, "__mlx_array__"):
        return value
    if getattr(value, "device", None) is not MLX and hasattr(value, "to_numpy"):
        host = value.to_numpy()
        return mx_array(host, dtype=NP_TO_MX[host.dtype]) if index and host.dtype in NP_TO_MX else host
    return value.__mlx_array__()


_INPLACE = {"add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor", "lshift", "rshift"}


class MLXBackend(Backend):
    name = "mlx"
    title = "MLX"
    kind = "mlx"
    device_aliases = ("metal",)
    # MLX arrays are values, with MLX's own allocator cache: not pooled, never
    # uploaded into, written through write(), lent as revocable handles.
    uploads_into = False
    revocable_leases = True
    views_write_through = False
    accelerator_preference = 1
    default_complex = np.dtype(np.complex64)  # MLX holds no complex128
    # mx.compile's kernels saturate a float cast out of an integer's range
    # (inf to int8: 127); MLX's eager cast does not (0).
    compiled_casts_agree = False
    #: The net behind the MLX namespace, which raises the host's classes
    #: itself where it can (it checks indices, pivots and axes before MLX).
    error_translations = (
        (RuntimeError, re.compile(r"bad_cast|out of range|too large"), OverflowError),
        (ValueError, re.compile(r"axis .* (is )?out of bounds|Invalid axis|\[.*\] .*axis"), AxisError),
        (RuntimeError, re.compile(r"[Ss]ingular|not positive.definite|LAPACK|lapack"), LinAlgError),
        (RuntimeError, re.compile(r"[Ss]hape|broadcast"), ValueError),
    )

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
        try:
            self.metal = bool(mx.metal.is_available())
        except Exception:
            self.metal = False
        global _LEASE, _MLX_FUNCTION
        start(mx, self.metal)
        _LEASE = _make_lease_class(mx)
        _MLX_FUNCTION = type(mx.add)
        self.mx = mx
        return None

    def device_from_object(self, obj: Any) -> Device | None:
        """MLX's ``Device`` objects (``mx.cpu``, ``mx.gpu``): its one device."""
        return MLX if (type(obj).__module__ or "").startswith("mlx") else None

    def namespace(self, device: Device) -> ModuleType:
        """:mod:`unifiedarray.backends.mlx_namespace`, written here: none
        exists upstream (it imports MLX, so it loads on first use)."""
        from . import mlx_namespace

        return mlx_namespace

    def random_source(self, device: Device, seed: np.random.SeedSequence) -> RandomSource:
        """MLX's own generator (its counter-based keys), one key per draw."""
        return MlxSource(seed)

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

    def facilities(self) -> dict[str, str | None]:
        return {"metal": self.metal_reason}

    def devices(self) -> list[Device]:
        return [MLX] if self.available else []

    def supports_dtype(self, dtype: np.dtype, device: Device) -> bool:
        self._ensure_probed()
        return np.dtype(dtype) in NP_TO_MX

    def zeros(self, shape: tuple[int, ...], dtype: np.dtype, device: Device, pinned: bool = False) -> Any:
        self.check_dtype(dtype, device, "allocation")
        # Metal has no float64: such arrays are made on MLX's CPU stream.
        stream = streams()[0] if np.dtype(dtype) == np.float64 else streams()[-1]
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
        return self.mx.array(host, dtype=NP_TO_MX[host.dtype])

    def download(self, native: Any, out: np.ndarray) -> None:
        evaluate(native)
        # np.asarray of an evaluated MLX array is a zero-copy view of MLX's
        # memory, so this is one copy, straight into the host buffer.
        np.copyto(out, np.asarray(native))

    def to_host(self, native: Any, dtype: np.dtype) -> np.ndarray:
        # Evaluated by the caller, always (see Backend.to_host): NumPy reading
        # an unevaluated array would evaluate it outside the evaluation lock
        # and hand out a failed kernel's unwritten memory (see
        # mlx_evaluation, "Failures at evaluation").  NumPy reads MLX's memory
        # through the buffer protocol, one copy; a second evaluation of a
        # ready array and a block to copy into cost a tenth of a small read.
        held = np_dtype(native.dtype)
        if held != dtype:  # never a silent cast (a buffer's dtype is its copies')
            raise TypeError(f"mlx: a {held} array read back as {dtype} (copy to the host)")
        # One copy, into NumPy's own dtype of the name (MLX exports int64 as
        # C long long), in C order.
        return np.array(native, dtype=canonical_dtype(dtype), order="C")

    # Evaluated and read in one call under the evaluation lock (MLX's item()
    # evaluates, and of a ready array reads its memory, with no NumPy array).
    element = staticmethod(evaluate_element)

    def is_native(self, obj: Any) -> bool:
        if self.mx is None:
            # MLX not probed yet: an MLX array still is one (taken as host
            # data, np.asarray would evaluate it and swallow its failure).
            if not type(obj).__module__.startswith("mlx"):
                return False
            self._ensure_probed()
            if self.mx is None:
                return False
        return isinstance(obj, self.mx.array)

    def device_of(self, native: Any) -> Device:
        return MLX

    def synchronize(self, device: Device) -> None:
        """Wait for the library's MLX work (see
        :func:`~unifiedarray.backends.mlx_evaluation.synchronize`)."""
        synchronize()

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
        """A copy of ``native`` in MLX memory (:meth:`copy`), evaluated here,
        in the caller's thread (``native`` may be a user's array whose graph
        only this thread can evaluate; a failure poisons it).  Not a new
        handle on the same memory: MLX's arrays export their memory
        writable through the buffer protocol, so ``np.asarray(handle)[0] =
        v`` would write the buffer's copy unseen.  What the buffer hands out
        for reading (``read``, ``__mlx_array__``) and keeps at a lease's end
        is this copy: nothing written through a handle that left the buffer
        reaches it."""
        return self.copy(native)

    def lease(self, native: Any) -> Any:
        """``native`` (the buffer's MLX copy) as a write lease: evaluated,
        its class switched so that writes through it run on the library's
        stream (see :func:`_make_lease_class`).  The same object: writes
        through it reach the buffer."""
        if type(native) is not _LEASE:
            evaluate(native)
            if not _owns_its_block(native):
                # A broadcast (x[...] = 1.0 leaves MLX one element read with
                # stride 0): a NumPy write through the lease would change
                # every element.  The lease gets memory of its own first.
                with compute_context():
                    native = self.mx.contiguous(native)
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
        is never seen half-built.

        A write into a poisoned copy raises its failure (the write would
        keep the unwritten memory around the written elements), unless it
        replaces every element (``write.replaces_all``: ``fill``,
        ``copy_from``), which starts from new memory."""
        with compute_context():
            if at_risk():
                if getattr(write, "replaces_all", False) and poisoned(native) is not None:
                    native = self.mx.zeros(native.shape, dtype=native.dtype)
                else:
                    settle_arguments((native,))
            target = native if in_place else self.mx.reshape(native, native.shape)
            write(target)
        out = settle(target)
        if in_place and not _owns_its_block(out):
            # A live lease stays memory of its own (see lease): MLX's
            # setitem of every element may leave a broadcast behind.
            with compute_context():
                self.mx.array.__setitem__(out, ..., self.mx.contiguous(out))
            out = settle(out)
        return out

    def fill(self, native: Any, value: Any, in_place: bool = False) -> Any:
        return self.write(native, _FillAll(value), in_place)

    def copy_into(self, native: Any, src: Any, in_place: bool = False) -> Any:
        """``src`` (an MLX array, evaluated: see :meth:`detach`) written into
        every element, cast to native's dtype where it differs (the cast is
        built where the write is, on the library's stream).  Without a cast
        the written copy would be ``src``'s memory, which its caller may
        still write (through NumPy): ``src`` is copied first, and so
        settled, in the caller's thread (:meth:`detach`)."""
        cast = np_dtype(src.dtype) != np_dtype(native.dtype)
        return self.write(native, _FillAll(self.detach(src), cast=cast), in_place)

    def copy(self, native: Any) -> Any:
        """A real copy in MLX memory (for exports whose consumer may write)."""
        with compute_context():
            # native first: mx.array(native) evaluates it itself, and swallows its failure.
            evaluate(native)
            out = self.mx.array(native, dtype=native.dtype)  # without dtype= MLX gives float32
            evaluate(out)
        return out

    results_alias = False  # MLX arrays are values: a result never aliases an input

    #: The dtypes MLX's functions narrow when they import a foreign array
    #: through DLPack (``mx.sin(x)`` of a float64 export gives float32):
    #: such an MLX array is not offered to them that way, so that they take
    #: ``__mlx_array__``, the MLX copy with its dtype.
    dlpack_import_narrows = frozenset({np.dtype(np.float64)})
    dlpack_exports_copy = True  # MLX's exports carry no read-only flag

    def view_on_host(self, native: Any) -> np.ndarray:
        """A read-only view of MLX's own memory (host or unified memory),
        evaluated first (serialised with the library's other evaluations)."""
        evaluate(native)
        # Through a read-only memoryview: a view of MLX's writable export,
        # marked read-only, could be marked writable again by its holder.
        return canonical(np.asarray(memoryview(native).toreadonly()))

    def compute_context(self, device: Device) -> Any:
        return compute_context()

    def direct(self, device: Device, name: str, fn: Any, signature: tuple[Any, ...]) -> Any:
        """The namespace's direct function for ``fn`` and ``signature``
        (:func:`~unifiedarray.backends.mlx_namespace.direct_function`: a
        signature its first call judged direct, nothing cast, no float64),
        called through :func:`~unifiedarray.backends.mlx_evaluation.direct_call`
        (the guard's settling, the evaluation lock, the library's stream)."""
        ns = self.namespace(device)
        specs = tuple(NP_TO_MX.get(s) if isinstance(s, np.dtype) else s for s in signature)
        if any(s is None for s in specs):
            return None  # a dtype MLX cannot hold: the general path refuses it
        found = ns.direct_function(name, fn, specs)
        if found is None:
            return NotImplemented
        if found is False:
            return None
        impl, out = found
        arity = 1 if name in ns.DIRECT_REDUCTIONS else len(signature)
        return direct_call(impl, arity, type(impl) is _MLX_FUNCTION, name), np_dtype(out)

    def write_context(self, device: Device) -> Any:
        """None: write() enters the library's stream itself, inside the
        buffer's lock (the stream's lock is never held around a buffer's)."""
        return nullcontext()

    def run(self, device: Device, fn: Callable[..., Any], *args: Any) -> Any:
        return run(fn, *args)

    # The evaluation point itself, no method between (a small read waits
    # through it: every frame there is a share of its time).
    evaluate = staticmethod(evaluate)

    def compile(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """``mx.compile(fn)``: one compiled graph per input shapes and
        dtypes (MLX's own cache, inside the function it returns), with
        NumPy's error state applied to its runs as to eager calls
        (:func:`~unifiedarray.backends.mlx_evaluation.compiled`)."""
        return compiled(self.mx.compile, fn)

    def dtype_of(self, native: Any) -> np.dtype:
        return np_dtype(native.dtype)

    def shares_memory(self, a: Any, b: Any) -> bool:
        evaluate(a)  # apart: a failure of one poisons that one only
        evaluate(b)
        return bool(np.may_share_memory(np.asarray(a), np.asarray(b)))

    def numpy_like(self) -> ModuleType:
        """``mlx.core``: its ``einsum`` has NumPy's meaning."""
        return self.mx


class MlxSource(KeyedSource):
    """Draws by ``mx.random`` with a key per draw (from :class:`KeyedSource`),
    on the library's stream.  Only float32 is MLX's own (its float64 normals
    are float32 values widened): the rest is composed by
    :mod:`unifiedarray.random` on the device."""

    methods: ClassVar[dict[str, frozenset[np.dtype] | None]] = {
        "random": frozenset({np.dtype(np.float32)}),
        "standard_normal": frozenset({np.dtype(np.float32)}),
    }

    def draw(self, method: str, size: tuple[int, ...] | None, dtype: np.dtype | None, params: dict[str, Any]) -> Any:
        import mlx.core as mx

        k = self.next_key()
        key = mx.array([k >> 32, k & 0xFFFFFFFF], dtype=mx.uint32)
        fn = mx.random.uniform if method == "random" else mx.random.normal
        return run(lambda: fn(shape=size or (), dtype=mx.float32, key=key))


def _owns_its_block(native: Any) -> bool:
    """Whether ``native`` is C-ordered memory of its own, with no element
    shared (as a broadcast's are): what a NumPy view of a lease may write
    element by element.  Evaluated first, under the evaluation lock: NumPy's
    view of an unevaluated MLX array evaluates it in this thread, outside
    the lock, racing another thread's evaluation of the library's stream (a
    lease written in place, ``x[...] = v`` with writes kept lazy, crashed
    the process so in ``tests/test_threads.py``'s lock pairs)."""
    if native.size <= 1:
        return True
    evaluate(native)
    return bool(np.asarray(native).flags.c_contiguous)


class _FillAll:
    """A write that sets every element (``native[...] = value``), with
    ``cast``, ``value`` cast to the native's dtype first."""

    __slots__ = ("cast", "value")

    #: it writes every element: write() may start from new memory (where the
    #: copy is poisoned by a failed evaluation)
    replaces_all = True

    def __init__(self, value: Any, cast: bool = False) -> None:
        self.value = value
        self.cast = cast

    def __call__(self, native: Any) -> None:
        native[...] = self.value.astype(native.dtype) if self.cast else self.value


#: The MLX backend (the registry registers it).
BACKEND = MLXBackend()
# Used before MLX was found (an MLX compute context entered first), the
# evaluation module asks the backend's probe, which starts it.
on_first_use(lambda: None if BACKEND.available else BACKEND.unavailable_reason)
