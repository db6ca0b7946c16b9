"""A backend written in one file, by following CONTRIBUTING's "How to add a
backend": two *sealed* devices, ``"sealed:0"`` and ``"sealed:1"``.

A sealed device is a memory space of its own: its arrays are
:class:`SealedArray`, NumPy data kept in a wrapper that nothing but this
backend and its namespace opens (no ``__array__``, no DLPack, no buffer
protocol).  An upload copies the host data in, a download copies it out, and
the namespace computes only on sealed arrays of its own device: a NumPy array
or another device's array passed to it is an error.  So a move the library
forgets is a stale read or an error here, never silently right, and the
library's code paths that branch on a device kind (``"cuda"``, ``"mlx"``)
meet a kind they do not know.

Registered by ``tests/conftest.py`` (and, for the differential suite, by
``conformance/conftest.py``); a plug-in would name :class:`SealedBackend` in
the ``unifiedarray.backends`` entry point group instead.

Example
-------
>>> import numpy as np
>>> from unifiedarray.backends import backend_for
>>> sealed = backend_for("sealed:0")
>>> native = sealed.upload(np.arange(3.0), sealed.devices()[0])
>>> out = np.empty(3); sealed.download(native, out); out
array([0., 1., 2.])
"""

from __future__ import annotations

import operator
import threading
import types
from collections.abc import Callable
from typing import Any

import array_api_compat.numpy as compat_numpy
import numpy as np

from unifiedarray import Device
from unifiedarray.backends import Backend, host_memory_info, register, registry

__all__ = ["KIND", "SealedArray", "SealedBackend", "register_sealed"]

#: The device kind; the devices are "sealed:0" and "sealed:1".
KIND = "sealed"
COUNT = 2

#: The standard's dtypes, in native byte order: all a sealed device holds.
DTYPES = frozenset(
    np.dtype(t)
    for t in (
        np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
        np.float32, np.float64, np.complex64, np.complex128,
    )
)  # fmt: skip


class SealedArray:
    """An array in a sealed device's memory: NumPy data that only this
    module reads.  Indexing, operators and ``fill`` work as NumPy's (a basic
    index is a view of the same memory), on arrays of the same device."""

    __slots__ = ("_data", "device")

    def __init__(self, data: np.ndarray, device: Device) -> None:
        self._data = data
        self.device = device

    @property
    def shape(self) -> tuple[int, ...]:
        return self._data.shape

    @property
    def dtype(self) -> np.dtype:
        return self._data.dtype

    @property
    def ndim(self) -> int:
        return self._data.ndim

    @property
    def size(self) -> int:
        return self._data.size

    @property
    def nbytes(self) -> int:
        return self._data.nbytes

    @property
    def T(self) -> SealedArray:
        return SealedArray(self._data.T, self.device)

    @property
    def mT(self) -> SealedArray:
        return SealedArray(np.swapaxes(self._data, -1, -2), self.device)

    def __getitem__(self, key: Any) -> SealedArray:
        return _wrap(self._data[_unwrap(key, self.device)], self.device)

    def __setitem__(self, key: Any, value: Any) -> None:
        self._data[_unwrap(key, self.device)] = _unwrap(value, self.device)

    def fill(self, value: Any) -> None:
        self._data.fill(_unwrap(value, self.device))

    def copy(self) -> SealedArray:
        return SealedArray(self._data.copy(), self.device)

    def astype(self, dtype: Any, copy: bool = True) -> SealedArray:
        return SealedArray(self._data.astype(dtype, copy=copy), self.device)

    def __len__(self) -> int:
        return len(self._data)

    # A device's 0-d array read as a Python value (as CuPy's ``bool(a)``).
    def __bool__(self) -> bool:
        return bool(self._data)

    def __int__(self) -> int:
        return int(self._data)

    def __float__(self) -> float:
        return float(self._data)

    def __complex__(self) -> complex:
        return complex(self._data)

    def __index__(self) -> int:
        return operator.index(self._data)

    def __repr__(self) -> str:
        return f"SealedArray({self._data!r}, device={str(self.device)!r})"


def _binary(op: Callable[[Any, Any], Any], reflected: bool = False) -> Callable[[SealedArray, Any], Any]:
    def method(self: SealedArray, other: Any) -> Any:
        other = _unwrap(other, self.device)
        res = op(other, self._data) if reflected else op(self._data, other)
        return _wrap(res, self.device)

    return method


def _unary(op: Callable[[Any], Any]) -> Callable[[SealedArray], Any]:
    def method(self: SealedArray) -> Any:
        return _wrap(op(self._data), self.device)

    return method


for _name in (
    "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor", "lshift", "rshift",
):  # fmt: skip
    _op = getattr(operator, f"{_name}_" if _name in ("and", "or") else _name)
    setattr(SealedArray, f"__{_name}__", _binary(_op))
    setattr(SealedArray, f"__r{_name}__", _binary(_op, reflected=True))
for _name in ("lt", "le", "gt", "ge", "eq", "ne"):
    setattr(SealedArray, f"__{_name}__", _binary(getattr(operator, _name)))
for _name in ("neg", "pos", "invert", "abs"):
    setattr(SealedArray, f"__{_name}__", _unary(getattr(operator, _name)))
SealedArray.__hash__ = None  # type: ignore[assignment]  # an array, compared elementwise


def _unwrap(obj: Any, device: Device) -> Any:
    """``obj`` with every sealed array of ``device`` opened; a NumPy array
    (host memory) or another device's array is an error: the library must
    have moved it here first, counted."""
    tobj = type(obj)
    if tobj is SealedArray:
        if obj.device is not device:
            raise ValueError(f"a {KIND} array on {obj.device} used on {device}: move it first")
        return obj._data
    if tobj is tuple or tobj is list:
        return tobj(_unwrap(o, device) for o in obj)
    if isinstance(obj, np.ndarray):
        raise TypeError(f"a NumPy array given to {device}'s namespace: host data must be uploaded first")
    return obj


def _wrap(res: Any, device: Device) -> Any:
    """``res`` of a NumPy call with its arrays (and NumPy scalars, as 0-d
    arrays) sealed on ``device``."""
    if isinstance(res, np.ndarray):
        return SealedArray(res, device)
    if isinstance(res, np.generic):
        return SealedArray(np.asarray(res), device)
    if isinstance(res, tuple):
        items = [_wrap(r, device) for r in res]
        return type(res)(*items) if hasattr(res, "_fields") else tuple(items)
    if isinstance(res, list):
        return [_wrap(r, device) for r in res]
    return res


def _sealed_function(fn: Callable[..., Any], device: Device) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        args = tuple(_unwrap(a, device) for a in args)
        kwargs = {k: _unwrap(v, device) for k, v in kwargs.items()}
        return _wrap(fn(*args, **kwargs), device)

    call.__name__ = call.__qualname__ = getattr(fn, "__name__", "function")
    call.__doc__ = getattr(fn, "__doc__", None)
    return call


def _sealed_namespace(base: types.ModuleType, device: Device, name: str) -> types.ModuleType:
    """``base`` (array-api-compat's NumPy namespace) over sealed arrays of
    ``device``: each function opens its arguments and seals its results;
    dtypes and constants stay as they are."""
    ns = types.ModuleType(name, f"{base.__name__} over {KIND} arrays on {device}")
    for attr in dir(base):
        if attr.startswith("__") and attr != "__array_api_version__":
            continue
        value = getattr(base, attr)
        if isinstance(value, types.ModuleType):
            if attr not in ("linalg", "fft"):
                continue
            value = _sealed_namespace(value, device, f"{name}.{attr}")
        elif callable(value) and not isinstance(value, type):
            value = _sealed_function(value, device)
        setattr(ns, attr, value)
    if base is compat_numpy:  # NumPy's extension beyond the standard that compute looks for at the top
        ns.sliding_window_view = _sealed_function(np.lib.stride_tricks.sliding_window_view, device)  # type: ignore[attr-defined]
    return ns


class SealedBackend(Backend):
    """The sealed devices' backend: NumPy data kept apart (see the module)."""

    name = "sealed"
    title = "sealed NumPy memory (a test backend)"
    kind = KIND
    indexed = True

    def __init__(self) -> None:
        super().__init__()
        self._namespaces: dict[Device, types.ModuleType] = {}
        self._namespaces_lock = threading.Lock()

    def _probe(self) -> str | None:
        return None

    def devices(self) -> list[Device]:
        return [Device(KIND, i) for i in range(COUNT)]

    def supports_dtype(self, dtype: np.dtype, device: Device) -> bool:
        return np.dtype(dtype) in DTYPES and np.dtype(dtype).isnative

    def zeros(self, shape: tuple[int, ...], dtype: np.dtype, device: Device, pinned: bool = False) -> SealedArray:
        return SealedArray(np.zeros(shape, dtype), device)

    def upload(self, host: np.ndarray, device: Device, into: Any = None) -> SealedArray:
        if type(into) is SealedArray and into.shape == host.shape and into.dtype == host.dtype:
            np.copyto(into._data, host)
            return into
        return SealedArray(np.array(host, copy=True, order="C"), device)

    def download(self, native: SealedArray, out: np.ndarray) -> None:
        np.copyto(out, native._data)

    def is_native(self, obj: Any) -> bool:
        return type(obj) is SealedArray

    def device_of(self, native: SealedArray) -> Device:
        return native.device

    def memory_info(self, device: Device) -> tuple[int, int]:
        return host_memory_info()

    def properties(self, device: Device) -> dict[str, Any]:
        return {"name": f"sealed NumPy memory {device.index}"}

    def aliases(self, a: Any, b: Any) -> bool:
        return type(a) is SealedArray and type(b) is SealedArray and bool(np.may_share_memory(a._data, b._data))

    def namespace(self, device: Device) -> types.ModuleType:
        with self._namespaces_lock:
            ns = self._namespaces.get(device)
            if ns is None:
                name = f"tests.sealed_backend.namespace_{device.index}"
                ns = self._namespaces[device] = _sealed_namespace(compat_numpy, device, name)
        return ns


def register_sealed() -> SealedBackend:
    """Register the sealed backend once (later calls return the one
    registered)."""
    found = registry().get(KIND)
    if isinstance(found, SealedBackend):
        return found
    return register(SealedBackend())  # type: ignore[return-value]


def open_sealed(native: SealedArray) -> np.ndarray:
    """A host copy of a sealed array, for tests that check what a sealed
    copy holds (the library itself moves data through the backend)."""
    return np.array(native._data, copy=True)
