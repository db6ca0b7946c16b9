"""``UnifiedArray``: an Array API array on the lazy-sync buffer.

An array is a buffer (:class:`~unifiedarray.UnifiedBuffer`) plus, for a
view, the chain of basic indices that selects it from the buffer.  Its
``device`` is the buffer's placement: every operation runs through the
Array API namespace of that device ("compute follows data"), on that
device's copy, which the buffer brings up to date first if it is stale.

Views (basic slicing) share the buffer, so a write through any view is a
write on the buffer and every other view sees it, on every backend: on NumPy
and CuPy the view is a real view of the copy; on MLX, whose slices are
copies, a write through a view is applied to the buffer's MLX copy through
the same chain of indices.

Example
-------
>>> import unifiedarray as xp
>>> x = xp.arange(6.0)
>>> v = x[1:4]
>>> v[0] = 10.0
>>> float(x[1])
10.0
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from ._buffer import UnifiedBuffer, adopt
from ._devices import CPU, MLX, Device, DeviceLike
from ._ledger import transfer
from ._policy import choose_device, get_default_device
from .backends import backend_for, backend_of_native, contiguous

__all__ = ["UnifiedArray"]

_PY_SCALARS = (bool, int, float, complex)
_SCALAR_REASONS = {k: f"UnifiedArray.{k}" for k in ("__bool__", "__int__", "__float__", "__complex__", "__index__")}
_BASIC_TYPES = (int, slice, type(Ellipsis), type(None))

# Per-device compute namespaces, looked up on every operation.
_NS: dict[Device, Any] = {}


def namespace_for(dev: Device) -> Any:
    ns = _NS.get(dev)
    if ns is None:
        ns = _NS[dev] = backend_for(dev).namespace(dev)
    return ns


_MX: list = [None]  # mlx.core, imported on first MLX result


def _mx() -> Any:
    if _MX[0] is None:
        import mlx.core as mx

        _MX[0] = mx
    return _MX[0]


def _dtype_of_native(native: Any, dev: Device) -> np.dtype:
    if dev.kind == "mlx":
        from .backends.mlx_backend import np_dtype

        return np_dtype(native.dtype)
    return native.dtype


def _wrap(native: Any, dev: Device) -> UnifiedArray:
    """A new array owning ``native`` (already on ``dev``)."""
    if dev == CPU:
        if type(native) is not np.ndarray:
            native = np.asarray(native)  # NumPy returns scalars for 0-d results
        dtype = native.dtype
    else:
        dtype = _dtype_of_native(native, dev)
        if dev == MLX:
            # MLX (0.32) evaluates a lazy graph only in the thread that built
            # it, and an array may be read later from any thread (dask's pool,
            # a user's workers).  So each result starts evaluating where it
            # was built, without waiting for it: the caller is not blocked,
            # and no thread-bound graph escapes.
            _mx().async_eval(native)
    return _adopted(native, dev, dtype)


def _adopted(native: Any, dev: Device, dtype: np.dtype) -> UnifiedArray:
    """A new whole array on a new buffer that adopts ``native``, without
    checks: what _wrap ends in, and what the fast paths (operators, host
    reductions) call directly."""
    arr = object.__new__(UnifiedArray)
    buf = arr._buf = adopt(native, dev, dtype)
    arr._key = None
    arr._shape = buf._shape
    arr._hostview = None
    return arr


def _wrap_result(res: Any, dev: Device, inputs: Sequence[Any] = ()) -> Any:
    """Wrap whatever a backend function returned: arrays, tuples of arrays
    (named tuples keep their type), or plain Python values."""
    if dev == CPU:
        tres = type(res)
        if tres is np.ndarray:
            if inputs and (res.base is not None or any(res is inp for inp in inputs)):
                for inp in inputs:
                    if type(inp) is np.ndarray and (res is inp or np.may_share_memory(res, inp)):
                        res = res.copy()  # see below: no two buffers share memory
                        break
            return _wrap(res, dev)
        if isinstance(res, np.generic):
            return _adopted(res[...], CPU, res.dtype)  # a 0-d array from a NumPy scalar
    backend_native = _is_native(res, dev)
    if backend_native:
        if inputs and dev != MLX and (getattr(res, "base", None) is not None or any(res is i for i in inputs)):
            # NumPy and CuPy return views of inputs from reshape, permute_dims
            # and friends.  Two buffers must never share memory unseen (a
            # write to one would leave the other's device copies stale), so
            # such a result gets memory of its own.
            for inp in inputs:
                if _is_native(inp, dev) and (res is inp or _may_share(res, inp, dev)):
                    res = res.copy()
                    break
        return _wrap(res, dev)
    if isinstance(res, tuple):
        items = [_wrap_result(r, dev, inputs) for r in res]
        return type(res)(*items) if hasattr(res, "_fields") else tuple(items)
    if isinstance(res, list):
        return [_wrap_result(r, dev, inputs) for r in res]
    if isinstance(res, np.generic):
        return _wrap(np.asarray(res), CPU) if dev == CPU else res
    return res


def _host_current(x: UnifiedArray) -> np.ndarray | None:
    """The host copy of a whole array placed on the host, if it is current
    and nothing is in flight (what a fast path may read directly); else
    None."""
    buf = x._buf
    if x._key is None and buf._placement is CPU and buf._pending is None and CPU in buf._valid:
        return buf._copies[CPU]
    return None


def _is_native(obj: Any, dev: Device) -> bool:
    if dev == CPU:
        return isinstance(obj, (np.ndarray, np.generic))
    return backend_for(dev).is_native(obj)


def _may_share(a: Any, b: Any, dev: Device) -> bool:
    if dev == CPU:
        return np.may_share_memory(a, b)
    if dev == MLX:
        return False  # MLX arrays are values: a slice or reshape is a new array
    import cupy

    return cupy.may_share_memory(a, b)


def _check_scalar(x: UnifiedArray, value: Any, op: str) -> None:
    """Python scalars in binary operations, as the 2024.12 standard allows:
    ``bool`` with any array, ``int`` with numeric arrays, ``float`` with
    floating arrays, ``complex`` with complex arrays.  Anything else would
    change the array's dtype kind, so it is an error, not a silent cast."""
    kind = x._buf._dtype.kind
    t = type(value)
    if t is bool or isinstance(value, bool):
        return
    if isinstance(value, int):
        if kind == "b":
            raise TypeError(f"{op}: Python int {value!r} with a bool array; the Array API does not define this")
        return
    if isinstance(value, float):
        if kind in "fc":
            return
    elif isinstance(value, complex):
        if kind == "c":
            return
    else:
        raise TypeError(f"{op}: expected an array or a Python scalar, got {type(value).__name__}")
    raise TypeError(
        f"{op}: Python {type(value).__name__} {value!r} with a {x._buf._dtype.name} array would change "
        f"the dtype kind; convert with astype first"
    )


def native_on(x: UnifiedArray, dev: Device, reason: str) -> Any:
    """``x``'s data as a native array of ``dev``, its buffer synced first if
    stale (a counted move).  For a view, the view's chain is applied."""
    buf = x._buf
    if buf._pending is not None:
        buf._wait()  # a non-blocking move is still in flight
    if dev in buf._valid:
        if dev == MLX:
            with buf._lock:  # see _write: a writer publishes under the lock
                base = buf._copies[dev]
        else:
            base = buf._copies[dev]
    else:
        base = buf._acquire(dev, False, reason)
    key = x._key
    if key is None:
        return base
    if dev == CPU:
        view = x._hostview
        if view is None:
            view = _follow(_host_ns(), base, key)
            if _slices_only(key):
                x._hostview = view  # always a real view of base
        return view
    return _follow(namespace_for(dev), base, key)


def _follow(ns: Any, arr: Any, chain: tuple) -> Any:
    """``arr`` (a buffer's native copy) seen through a view's chain."""
    for k in chain:
        arr = k.apply(ns, arr) if type(k) in _LINKS else ns.getitem(arr, k)
    return arr


class Reshape(NamedTuple):
    """A view-chain link: the parent reshaped to ``shape``.  (Links are
    named tuples so that they compare, hash, pickle and tokenize; anything
    in a chain whose type is not in ``_LINKS`` is a basic index.)"""

    shape: tuple[int, ...]

    def apply(self, ns: Any, arr: Any) -> Any:
        return ns.reshape(arr, self.shape)

    def restore(self, ns: Any, sub: Any, parent_shape: tuple[int, ...]) -> Any:
        return ns.reshape(sub, parent_shape)


class Permute(NamedTuple):
    """A view-chain link: the parent's axes permuted."""

    axes: tuple[int, ...]

    def apply(self, ns: Any, arr: Any) -> Any:
        return ns.permute_dims(arr, self.axes)

    def restore(self, ns: Any, sub: Any, parent_shape: tuple[int, ...]) -> Any:
        inverse = tuple(sorted(range(len(self.axes)), key=self.axes.__getitem__))
        return ns.permute_dims(sub, inverse)


_LINKS = (Reshape, Permute)


def _slices_only(chain: tuple) -> bool:
    return not any(type(k) in _LINKS for k in chain)


def _host_ns() -> Any:
    ns = _NS.get(CPU)
    return ns if ns is not None else namespace_for(CPU)


def writable_native(x: UnifiedArray, dev: Device, reason: str) -> Any:
    """A writable native array over x's data on ``dev`` (host or CUDA), for
    exports whose consumer may write (a raw pointer, a legacy DLPack
    capsule): the buffer's copy is leased (counted as a write) and x's chain
    applied to the lease.  Raises ``BufferError`` where a link cannot be a
    view of that memory (a reshape of a strided slice), since writes to a
    copy would be lost."""
    buf, chain = x._buf, x._key
    ns = namespace_for(dev)
    with buf._lock:
        if chain is None:
            return buf._lease(dev, reason)
        # Check on the current copy first, so that a refusal marks nothing.
        base = buf._copies[dev] if dev in buf._valid else buf._acquire(dev, False, reason)
        view = _follow(ns, base, chain)
        if view.size and not _memory_overlaps(view, base, dev):
            raise BufferError(
                f"{reason}: this view's data ({chain[-1]!r} of a strided view) is not one block of "
                f"memory on {dev}; export a copy instead (copy=True)"
            )
        return _follow(ns, buf._lease(dev, reason), chain)


def _memory_overlaps(a: Any, b: Any, dev: Device) -> bool:
    """Whether native ``a`` lies in ``b``'s memory.  Unlike ``_may_share``
    this looks at MLX's memory too: MLX's slices, reshapes and transposes
    are values, but their data is a view of the parent's buffer."""
    if dev == MLX:
        mx = _mx()
        mx.eval(a, b)
        return np.may_share_memory(np.asarray(a), np.asarray(b))
    return _may_share(a, b, dev)


def linked_view(x: UnifiedArray, link: Any, shape: tuple[int, ...]) -> UnifiedArray:
    """A view of ``x`` through ``link`` (a :class:`Reshape` or
    :class:`Permute`): it shares x's buffer, so writes through either are
    seen by both, on every backend, and making it copies nothing."""
    out = object.__new__(UnifiedArray)
    out._buf = x._buf
    out._key = (link,) if x._key is None else x._key + (link,)
    out._shape = shape
    out._hostview = None
    return out


def _write(x: UnifiedArray, key: Any, value: Any, reason: str) -> None:
    """Write ``value`` (native on x's device, or a scalar) at ``key`` of x."""
    buf = x._buf
    dev = buf._placement
    ns = namespace_for(dev)
    chain = x._key

    def write(base: Any) -> None:
        # The buffer calls this under its lock, with its copy on dev made
        # current and the only valid one (on MLX, on the library's stream).
        if chain is None:
            ns.setitem(base, key, value)
        elif (dev == CPU or dev.kind == "cuda") and _slices_only(chain):
            ns.setitem(native_on(x, dev, reason), key, value)  # a real view: writes reach the copy
        else:
            _write_chain(ns, base, chain, key, value, dev)

    buf._apply_write(dev, write, reason)


def _write_chain(ns: Any, arr: Any, chain: tuple, key: Any, value: Any, dev: Device) -> None:
    """Write through a chain of views whose links may give copies (every
    link on MLX; a reshape that NumPy or CuPy cannot express as a view):
    take the link, write into it, and write it back, innermost first.  A
    link that gave a real view needs no write-back: the write is there."""
    if not chain:
        ns.setitem(arr, key, value)
        return
    link = chain[0]
    sub = link.apply(ns, arr) if type(link) in _LINKS else ns.getitem(arr, link)
    _write_chain(ns, sub, chain[1:], key, value, dev)
    if _may_share(sub, arr, dev):
        return
    if type(link) in _LINKS:
        ns.setitem(arr, Ellipsis, link.restore(ns, sub, tuple(arr.shape)))
    else:
        ns.setitem(arr, link, sub)


def _is_basic_key(key: Any) -> bool:
    if type(key) is tuple:
        return all(type(k) in _BASIC_TYPES for k in key)
    return type(key) in _BASIC_TYPES


def _one_element(key: Any, ndim: int) -> bool:
    """Whether a basic index is an integer for every axis (no slice, no
    ``...``, no ``None``): what NumPy answers with a scalar."""
    if type(key) is int:
        return ndim == 1
    if type(key) is not tuple or len(key) != ndim or ndim == 0:
        return False
    for k in key:
        if type(k) is not int:
            return False
    return True


def _view_key(key: Any) -> tuple:
    """A basic index as a tuple that always gives a view (an index of only
    integers gives NumPy a scalar; a trailing Ellipsis gives a 0-d view)."""
    if type(key) is not tuple:
        key = (key,)
    if Ellipsis not in key:
        key = key + (Ellipsis,)
    return key


def _basic_shape(shape: tuple[int, ...], key: tuple) -> tuple[int, ...]:
    """The shape ``key`` selects from ``shape``, with NumPy's checks (an
    ``IndexError`` for out-of-range integers, too many indices, two
    ellipses), without touching any data."""
    return np.broadcast_to(np.empty((), dtype=np.bool_), shape)[key].shape


class UnifiedArray:
    """An Array API array whose data lives in a lazily synchronised buffer.

    Build arrays with the namespace functions (``xp.asarray``, ``xp.zeros``
    ...), not with this class.

    Example
    -------
    >>> import unifiedarray as xp
    >>> a = xp.asarray([1.0, 2.0, 3.0])
    >>> (a * 2).device
    Device('cpu')
    """

    __slots__ = ("__weakref__", "_buf", "_hostview", "_key", "_shape")
    __array_priority__ = 100

    _buf: UnifiedBuffer
    _key: tuple | None
    _shape: tuple[int, ...]
    _hostview: Any

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("create arrays with unifiedarray.asarray, zeros, ... not UnifiedArray(...)")

    @classmethod
    def _from_buffer(cls, buf: UnifiedBuffer) -> UnifiedArray:
        arr = object.__new__(cls)
        arr._buf = buf
        arr._key = None
        arr._shape = buf.shape
        arr._hostview = None
        return arr

    # -- attributes ----------------------------------------------------------
    @property
    def dtype(self) -> np.dtype:
        """The data type, a NumPy ``dtype`` object (``xp.float64 == np.dtype('float64')``)."""
        return self._buf._dtype

    @property
    def device(self) -> Device:
        """The device this array lives on; operations on it run there."""
        return self._buf._placement

    @property
    def shape(self) -> tuple[int, ...]:
        return self._shape

    @property
    def ndim(self) -> int:
        return len(self._shape)

    @property
    def size(self) -> int:
        n = 1
        for s in self._shape:
            n *= s
        return n

    @property
    def nbytes(self) -> int:
        return self.size * self._buf._dtype.itemsize

    @property
    def T(self) -> UnifiedArray:
        """The transpose of a 2-D array."""
        if self.ndim != 2:
            raise ValueError(f"x.T requires a 2-D array (this one is {self.ndim}-D); use permute_dims or mT")
        return linked_view(self, Permute((1, 0)), self._shape[::-1])

    @property
    def mT(self) -> UnifiedArray:
        """The transpose of the last two axes."""
        if self.ndim < 2:
            raise ValueError("x.mT requires at least 2 dimensions")
        n = self.ndim
        axes = tuple(range(n - 2)) + (n - 1, n - 2)
        return linked_view(self, Permute(axes), tuple(self._shape[a] for a in axes))

    @property
    def buffer(self) -> UnifiedBuffer:
        """The buffer holding this array's data (shared with its views)."""
        return self._buf

    @property
    def is_view(self) -> bool:
        """Whether this array is a view of another's buffer (basic indexing,
        ``reshape``, ``permute_dims``, ``matrix_transpose``, ``.T``, ``.mT``)."""
        return self._key is not None

    # -- conversion ----------------------------------------------------------
    def _host(self, reason: str) -> np.ndarray:
        return native_on(self, CPU, reason)

    def to_device(self, device: DeviceLike, /, *, stream: Any = None) -> UnifiedArray:
        """A copy of this array on ``device`` (this array itself if it is
        already there).  An explicit move: allowed under every guard.

        Example
        -------
        >>> import unifiedarray as xp
        >>> xp.ones(2).to_device("cpu").device
        Device('cpu')
        """
        dev = Device.parse(device)
        here = self._buf._placement
        if dev == here:
            return self
        backend = backend_for(dev)
        backend.check_dtype(self.dtype, dev, "to_device")
        buf = self._buf
        if CPU in buf._valid or dev == CPU:
            host = contiguous(native_on(self, CPU, "to_device") if CPU in buf._valid else self._pull_host())
        else:
            host = self._pull_host()
        if dev == CPU:
            return _wrap(np.array(host, copy=True), CPU)
        with transfer("cpu", str(dev), host.nbytes, "to_device", explicit=True):
            native = backend.upload(host, dev)
        return _wrap(native, dev)

    def _pull_host(self) -> np.ndarray:
        """The data on the host by an explicit move (for ``to_device``)."""
        buf = self._buf
        buf._acquire(CPU, False, "to_device", explicit=True)
        return native_on(self, CPU, "to_device")

    def __array_namespace__(self, /, *, api_version: str | None = None) -> Any:
        if api_version is not None and api_version not in _API_VERSIONS:
            raise ValueError(f"unsupported Array API version {api_version!r}; supported: {_API_VERSIONS}")
        import unifiedarray

        return unifiedarray

    def _scalar(self, kind: str) -> Any:
        """The one element as a Python scalar (``item()`` gives one directly:
        no NumPy scalar between)."""
        if self._shape != () and not (kind == "__bool__" and self.size == 1):
            raise ValueError(f"{kind} needs a 0-d array; this one has shape {self._shape}")
        return native_on(self, CPU, _SCALAR_REASONS.get(kind) or f"UnifiedArray.{kind}").item()

    def __bool__(self) -> bool:
        return bool(self._scalar("__bool__"))

    def __int__(self) -> int:
        if self.dtype.kind == "c":
            raise TypeError("int() of a complex array")
        return int(self._scalar("__int__"))

    def __float__(self) -> float:
        if self.dtype.kind == "c":
            raise TypeError("float() of a complex array")
        return float(self._scalar("__float__"))

    def __complex__(self) -> complex:
        return complex(self._scalar("__complex__"))

    def __index__(self) -> int:
        if self.dtype.kind not in "iu":
            raise TypeError(f"only integer arrays can be used as an index, not {self.dtype.name}")
        return int(self._scalar("__index__"))

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of a 0-d array")
        return self._shape[0]

    def __repr__(self) -> str:
        body = np.array2string(self._host("repr"), separator=", ", prefix="UnifiedArray(")
        return f"UnifiedArray({body}, dtype={self.dtype.name}, device={str(self.device)!r})"

    __str__ = __repr__

    # -- indexing --------------------------------------------------------------
    def __getitem__(self, key: Any) -> UnifiedArray:
        buf = self._buf
        if self._key is None and buf._placement is CPU and CPU in buf._valid:
            # The commonest indices of a whole array on the host: a slice or
            # an integer of the first axis (a view; the trailing Ellipsis, as
            # in _view_key, keeps NumPy from giving a scalar), or an integer
            # for every axis (one element: _element's host branch, inlined).
            tkey = type(key)
            if tkey is not slice and not (tkey is tuple and _all_slices(key)):
                one = _one_element(key, len(self._shape))
                if one or tkey is not int:
                    if one and buf._pending is None:
                        return _adopted(np.asarray(buf._copies[CPU][key]), CPU, buf._dtype)
                    return self._getitem(key)
                key = (key, Ellipsis)
            view = buf._copies[CPU][key]
            out = object.__new__(UnifiedArray)
            out._buf = buf
            out._key = (key,)
            out._shape = view.shape
            out._hostview = view
            return out
        return self._getitem(key)

    def _getitem(self, key: Any) -> UnifiedArray:
        if _is_basic_key(key):
            if _one_element(key, len(self._shape)):
                return self._element(key)
            return self._view(key)
        if type(key) is UnifiedArray:
            # A boolean mask or an integer array, both whole and current on
            # the host: NumPy's advanced indexing, without dispatch's search.
            host, index = _host_current(self), _host_current(key)
            if host is not None and index is not None:
                return _wrap_result(host[index], CPU, (host,))
        return dispatch("getitem", (self, key), {}, reason="UnifiedArray.__getitem__")

    def _element(self, key: Any) -> UnifiedArray:
        """One element, selected by an integer per axis, as a new 0-d array:
        a copy, as NumPy gives (a scalar) and array-api-strict does, so that
        ``old = x[i]; x[i] = new`` keeps the old value and a swap
        ``x[i], x[j] = x[j], x[i]`` swaps.  (A trailing ``...`` asks for a
        0-d view instead, as in NumPy.)"""
        reason = "UnifiedArray.__getitem__"
        if self._buf._placement is CPU:
            host = native_on(self, CPU, reason)
            return _adopted(np.asarray(host[key]), CPU, host.dtype)
        _basic_shape(self._shape, _view_key(key))  # NumPy's IndexError for out-of-range: MLX checks nothing
        return dispatch("getitem", (self, key), {}, reason=reason)

    def _view(self, key: Any) -> UnifiedArray:
        key = _view_key(key)
        buf = self._buf
        out = object.__new__(UnifiedArray)
        out._buf = buf
        parent = self._key
        out._key = (key,) if parent is None else parent + (key,)
        if buf._placement == CPU and (parent is None or _slices_only(parent)):
            view = native_on(self, CPU, "UnifiedArray.__getitem__")[key]
            out._hostview = view
            out._shape = view.shape
        else:
            out._hostview = None
            out._shape = _basic_shape(self._shape, key)
        return out

    def __setitem__(self, key: Any, value: Any) -> None:
        dev = self._buf._placement
        key = _unwrap_key(key, dev, self)
        if type(value) is UnifiedArray:
            promoted = np.promote_types(value.dtype, self.dtype)
            if promoted != self.dtype:
                raise TypeError(
                    f"__setitem__: a {value.dtype.name} value into a {self.dtype.name} array would "
                    f"change its dtype; convert with astype first"
                )
            value = native_on(value, dev, "UnifiedArray.__setitem__")
        elif isinstance(value, _PY_SCALARS):
            _check_scalar(self, value, "__setitem__")
        else:
            return self.__setitem__(key, _asarray_foreign(value))
        _write(self, key, value, "UnifiedArray.__setitem__")

    # -- DLPack and NumPy protocols live in _interop; see there. -------------


def _asarray_foreign(value: Any) -> UnifiedArray:
    """Foreign data (an ndarray, a list) mixed with UnifiedArrays is host
    data: it starts on the host whatever the default device, and the usual
    mixed-device rules move it (counted) only if the operation needs it."""
    from ._creation import asarray

    return asarray(value, device=CPU)


def _unwrap_key(key: Any, dev: Device, x: UnifiedArray) -> Any:
    if type(key) is UnifiedArray:
        return native_on(key, dev, "UnifiedArray indexing")
    if type(key) is tuple:
        return tuple(native_on(k, dev, "UnifiedArray indexing") if type(k) is UnifiedArray else k for k in key)
    return key


_API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")


# -- dispatch ----------------------------------------------------------------------


def _gather(obj: Any, found: list) -> None:
    if type(obj) is UnifiedArray:
        found.append(obj)
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            if type(o) is UnifiedArray:
                found.append(o)


def _unwrap(obj: Any, dev: Device, reason: str) -> Any:
    if type(obj) is UnifiedArray:
        return native_on(obj, dev, reason)
    if isinstance(obj, (list, tuple)) and any(type(o) is UnifiedArray for o in obj):
        return type(obj)(native_on(o, dev, reason) if type(o) is UnifiedArray else o for o in obj)
    return obj


def placement_of(arrays: Sequence[UnifiedArray], reason: str = "an operation") -> Device:
    """Where an operation on ``arrays`` runs (see :mod:`unifiedarray._policy`)."""
    dev = arrays[0]._buf._placement
    for a in arrays:
        if a._buf._placement != dev:
            return choose_device(((a._buf._placement, a.nbytes) for a in arrays), reason)
    return dev


def _resolve(ns: Any, path: str) -> Any:
    obj = ns
    for part in path.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def dispatch(path: str, args: tuple, kwargs: dict, reason: str | None = None, device: Device | None = None) -> Any:
    """Run the namespace function ``path`` (``"sum"``, ``"linalg.solve"``)
    on the backend where its array arguments live; wrap what it returns.

    A function the backend lacks runs on the host, its inputs and results
    moved and counted ("host fallback"); a result dtype the backend cannot
    hold stays an error that names backend, dtype and operation.
    """
    found: list[UnifiedArray] = []
    for a in args:
        _gather(a, found)
    if kwargs:
        for a in kwargs.values():
            _gather(a, found)
    reason = reason or path
    if device is None:
        device = placement_of(found, reason) if found else get_default_device()
    fn = _RESOLVED.get((device, path), _UNRESOLVED)
    if fn is _UNRESOLVED:
        fn = _RESOLVED[(device, path)] = _resolve(namespace_for(device), path)
    if fn is None:
        return _host_fallback(path, args, kwargs, device, reason)
    nat_args = tuple([_unwrap(a, device, reason) for a in args])
    nat_kwargs = {k: _unwrap(v, device, reason) for k, v in kwargs.items()} if kwargs else kwargs
    if device is CPU or device.kind != "cuda":
        return _wrap_result(fn(*nat_args, **nat_kwargs), device, nat_args)
    with _device_context(device):
        # The wrapping too: it may copy a result (on CUDA, on the current GPU).
        return _wrap_result(fn(*nat_args, **nat_kwargs), device, nat_args)


# (device, path) -> that device's function, or None where the backend lacks
# it: resolving a dotted path costs more than a small call.
_RESOLVED: dict[tuple[Device, str], Any] = {}
_UNRESOLVED = object()


def _host_fallback(path: str, args: tuple, kwargs: dict, device: Device, reason: str) -> Any:
    fn = _resolve(namespace_for(CPU), path)
    if fn is None:
        raise AttributeError(f"unifiedarray has no function {path!r}")
    why = f"host fallback: {path}"
    nat_args = tuple(_unwrap(a, CPU, why) for a in args)
    nat_kwargs = {k: _unwrap(v, CPU, why) for k, v in kwargs.items()}
    res = _wrap_result(fn(*nat_args, **nat_kwargs), CPU, nat_args)
    return _send_back(res, device, why)


def _send_back(res: Any, device: Device, reason: str) -> Any:
    if type(res) is UnifiedArray:
        backend = backend_for(device)
        host = res._buf._copies[CPU]
        backend.check_dtype(host.dtype, device, reason)
        with transfer("cpu", str(device), host.nbytes, reason):
            native = backend.upload(contiguous(host), device)
        return _wrap(native, device)
    if isinstance(res, tuple):
        items = [_send_back(r, device, reason) for r in res]
        return type(res)(*items) if hasattr(res, "_fields") else tuple(items)
    if isinstance(res, list):
        return [_send_back(r, device, reason) for r in res]
    return res


class _NullContext:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


_NULL = _NullContext()


def _device_context(dev: Device) -> Any:
    if dev.kind == "cuda":
        import cupy

        return cupy.cuda.Device(dev.index)
    return _NULL


# -- operators, from one table ---------------------------------------------------

_BINARY = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide",
    "floordiv": "floor_divide", "mod": "remainder", "pow": "pow", "matmul": "matmul",
    "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
    "lshift": "bitwise_left_shift", "rshift": "bitwise_right_shift",
}  # fmt: skip
_COMPARE = {
    "lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal",
    "eq": "equal", "ne": "not_equal",
}  # fmt: skip
_UNARY = {"neg": "negative", "pos": "positive", "abs": "abs", "invert": "bitwise_invert"}


_FUNCTIONS: dict[tuple[Device, str], Any] = {}


def _all_slices(key: tuple) -> bool:
    # Unrolled for the common 1- and 2-axis keys: a generator costs more than
    # the rest of the view.
    n = len(key)
    if n == 0 or type(key[0]) is not slice:
        return False
    if n == 1:
        return True
    if type(key[1]) is not slice:
        return False
    return n == 2 or all(type(k) is slice for k in key)


def _function(dev: Device, name: str) -> Any:
    fn = _FUNCTIONS.get((dev, name))
    if fn is None:
        fn = _FUNCTIONS[(dev, name)] = getattr(namespace_for(dev), name)
    return fn


def binary(x: UnifiedArray, y: Any, name: str, reflected: bool = False) -> Any:
    """``x <op> y`` (or ``y <op> x``): the path shared by every operator and
    by the binary elementwise functions."""
    ty = type(y)
    buf = x._buf
    dev = buf._placement
    if ty is UnifiedArray:
        if y._buf._placement != dev:
            dev = choose_device(((dev, x.nbytes), (y._buf._placement, y.nbytes)), name)
        other = native_on(y, dev, name)
    elif ty in _PY_SCALARS:
        _check_scalar(x, y, name)
        other = y
    elif name == "matmul" or (backend_of_native(y) is None and not hasattr(y, "__array__")):
        return NotImplemented
    else:
        return binary(x, _asarray_foreign(y), name, reflected)
    mine = buf._copies[dev] if (dev is CPU and dev in buf._valid and x._key is None) else native_on(x, dev, name)
    fn = _function(dev, name)
    if dev is not CPU and dev.kind == "cuda":
        with _device_context(dev):  # cuda:1's kernels run on GPU 1
            return _wrap(fn(other, mine) if reflected else fn(mine, other), dev)
    res = fn(other, mine) if reflected else fn(mine, other)
    return _wrap(res, dev)


def _make_binary(name: str, reflected: bool) -> Any:
    host_fn: list = []  # the host function, looked up on first use

    def op(self: UnifiedArray, other: Any) -> Any:
        # The common case, inlined because it is most of a small array's
        # cost: whole arrays (not views) whose host copies are current, with
        # nothing in flight, or a Python scalar.  It reads exactly what
        # native_on would and builds the result with _adopted, as _wrap does; everything
        # else takes binary().
        a = self._buf
        if a._placement is CPU and self._key is None and a._pending is None and CPU in a._valid:
            kind = type(other)
            if kind is UnifiedArray:
                b = other._buf
                if not (b._placement is CPU and other._key is None and b._pending is None and CPU in b._valid):
                    return binary(self, other, name, reflected)
                rhs = b._copies[CPU]
            elif kind in _PY_SCALARS:
                _check_scalar(self, other, name)
                rhs = other
            else:
                return binary(self, other, name, reflected)
            if not host_fn:
                host_fn.append(_function(CPU, name))
            lhs = a._copies[CPU]
            res = host_fn[0](rhs, lhs) if reflected else host_fn[0](lhs, rhs)
            if type(res) is not np.ndarray:
                return _wrap(res, CPU)
            return _adopted(res, CPU, res.dtype)
        return binary(self, other, name, reflected)

    return op


def _make_inplace(name: str) -> Any:
    def op(self: UnifiedArray, other: Any) -> UnifiedArray:
        res = binary(self, other, name)
        if res is NotImplemented:
            return NotImplemented
        if res.dtype != self.dtype:
            raise TypeError(f"in-place {name} would change the dtype of a {self.dtype.name} array to {res.dtype.name}")
        if res.shape != self._shape:
            raise ValueError(f"in-place {name} would change the shape {self._shape} to {res.shape}")
        _write(self, Ellipsis, native_on(res, self._buf._placement, name), f"in-place {name}")
        return self

    return op


def _make_unary(name: str) -> Any:
    def op(self: UnifiedArray) -> UnifiedArray:
        dev = self._buf._placement
        return _wrap(getattr(namespace_for(dev), name)(native_on(self, dev, name)), dev)

    return op


for _dunder, _fname in _BINARY.items():
    setattr(UnifiedArray, f"__{_dunder}__", _make_binary(_fname, False))
    setattr(UnifiedArray, f"__r{_dunder}__", _make_binary(_fname, True))
    setattr(UnifiedArray, f"__i{_dunder}__", _make_inplace(_fname))
for _dunder, _fname in _COMPARE.items():
    setattr(UnifiedArray, f"__{_dunder}__", _make_binary(_fname, False))
for _dunder, _fname in _UNARY.items():
    setattr(UnifiedArray, f"__{_dunder}__", _make_unary(_fname))
UnifiedArray.__hash__ = None  # type: ignore[assignment]  # == is elementwise
