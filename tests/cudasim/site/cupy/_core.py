"""The simulated ``cupy.ndarray`` and its kernels.

An array is a NumPy view (``_a``) of a simulated device block.  Every kernel
is NumPy run on those views, queued as an op on the current stream of the
current GPU (see ``_sim``): the result array exists at once, its values only
once the op runs.  Where the inputs have no queued write the values are
computed now and only stored when the op runs; otherwise the op computes
them when it runs, from what the inputs hold then (stream order).  Errors
(shapes, casting) are raised at the call, as CuPy raises them on the host.
Functions whose result shape depends on the data (``nonzero``, boolean
indexing, ``unique``) synchronise the stream first, as CuPy does.
"""

from __future__ import annotations

import contextlib
import ctypes
import itertools
import operator
import warnings
from collections.abc import Iterator
from math import prod
from typing import Any, Callable

import numpy as np

from . import _sim
from .cuda import memory as _memory
from .cuda import stream as _stream

SUPPORTED = frozenset("?bhilqBHILQefdFD")

# functions whose result is metadata, not device data
META = frozenset(
    {"ndim", "size", "shape", "isdtype", "iscomplexobj", "isrealobj", "isfortran", "isscalar", "result_type"}
)
# functions whose result shape depends on the data: CuPy reads a count back first
DATA_SHAPED = frozenset(
    {
        "nonzero", "argwhere", "flatnonzero", "unique", "unique_all", "unique_counts", "unique_inverse",
        "unique_values", "compress", "extract", "trim_zeros", "union1d", "intersect1d", "setdiff1d",
        "setxor1d", "roots", "polydiv", "delete",
        "polymul", "bincount", "ix_", "piecewise",
        "min_scalar_type", "real_if_close",  # a dtype decided by the values
        "eig", "eigvals",  # NumPy's eigenvalues are real or complex by their values: a data-dependent dtype
    }
)  # fmt: skip


def _check_dtype(dtype: np.dtype) -> np.dtype:
    dt = np.dtype(dtype)
    if dt.char not in SUPPORTED or not dt.isnative:
        raise ValueError(f"Unsupported dtype {dt}")
    return dt


class _Flags:
    def __init__(self, a: ndarray) -> None:
        f = a._a.flags
        self.c_contiguous = f.c_contiguous
        self.f_contiguous = f.f_contiguous
        self.owndata = a._base is None

    def __getitem__(self, key: str) -> bool:
        return {"C_CONTIGUOUS": self.c_contiguous, "F_CONTIGUOUS": self.f_contiguous, "OWNDATA": self.owndata}[key]


def _make(a: np.ndarray, mem: Any, dev: int, base: ndarray | None) -> ndarray:
    out = object.__new__(ndarray)
    out._a = a
    out._mem = mem
    out._block = None if mem is None else mem.block
    out._dev = dev
    out._base = base
    return out


def _view(r: np.ndarray, of: ndarray) -> ndarray:
    """``r`` (a NumPy view of ``of``'s memory) as an array sharing it; its
    base is the array that owns the memory, as in CuPy and NumPy."""
    return _make(r, of._mem, of._dev, of if of._base is None else of._base)


def _empty(shape: Any, dtype: Any = float, order: str = "C") -> ndarray:
    dt = _check_dtype(dtype)
    shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)
    dev = _sim.current_device()
    nbytes = prod(shape) * dt.itemsize
    if nbytes == 0:
        return _make(np.empty(shape, dt, order=order), None, dev, None)
    mem = _memory.get_default_memory_pool()._pools[dev].malloc(nbytes)
    a = np.ndarray(shape, dt, buffer=mem.block.raw, order="F" if order == "F" else "C")
    return _make(a, mem, dev, None)


def _stream_state() -> _sim.StreamState:
    return _sim.current_stream_state()


def _blocks(arrays: list[ndarray]) -> list[_sim.Block]:
    seen: dict[int, _sim.Block] = {}
    for x in arrays:
        b = x._block
        if b is not None:
            seen[id(b)] = b
    return list(seen.values())


def _unwrap(obj: Any, found: list[ndarray], *, host_ok: bool = False) -> Any:
    """``obj`` with simulated arrays replaced by their NumPy views (collected
    in ``found``).  Host arrays are refused as CuPy refuses them, except in
    indices (``host_ok``), where they are copied now."""
    t = type(obj)
    if t is ndarray:
        found.append(obj)
        return obj._a
    if t is np.ndarray:
        if host_ok or obj.ndim == 0:
            return obj.copy()
        raise TypeError(f"Unsupported type {t}")
    if t is tuple or t is list:
        return t(_unwrap(o, found, host_ok=host_ok) for o in obj)
    if t is dict:
        return {k: _unwrap(v, found, host_ok=host_ok) for k, v in obj.items()}
    if hasattr(obj, "__cuda_array_interface__") and not isinstance(obj, type):
        from . import asarray

        return _unwrap(asarray(obj), found)
    return obj


def _leaves(res: Any) -> list[Any]:
    if isinstance(res, (tuple, list)):
        return [leaf for r in res for leaf in _leaves(r)]
    return [res]


def _is_data(x: Any) -> bool:
    return isinstance(x, (np.ndarray, np.generic))


@contextlib.contextmanager
def _replaying() -> Iterator[None]:
    """A queued kernel runs NumPy's function again, on the data it sees when
    it runs.  NumPy's warnings were given at the call (as CuPy gives its own,
    at the call); a replay gives none, so that none surfaces later, in
    whichever code happens to wait for the stream."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _call(fn: Callable[..., Any], args: tuple, kwargs: dict, name: str = "", *, peer: bool = False) -> Any:
    """Run NumPy's ``fn`` as a kernel on the current GPU (see the module doc).
    ``peer``: a copy that may read another GPU's memory (CuPy's copy())."""
    if "out" in kwargs and kwargs["out"] is not None:
        out = kwargs.pop("out")
        target = out[0] if isinstance(out, tuple) else out
        if type(target) is not ndarray:
            raise TypeError(f"out must be a cupy.ndarray, not {type(target).__name__}")
        _inplace(lambda t, *a, **k: fn(*a, out=t, **k), target, args, kwargs, name)
        return out
    found: list[ndarray] = []
    np_args = _unwrap(args, found)
    np_kwargs = _unwrap(kwargs, found)
    blocks = _blocks(found)
    stream = _stream_state()
    shaped = name in DATA_SHAPED or (name == "where" and len(args) == 1)  # where(c) is nonzero(c)
    if shaped and not all(b.settled() for b in blocks):
        _host_read(stream, blocks, name)
    try:
        with np.errstate(all="ignore"):
            res = fn(*np_args, **np_kwargs)
    except Exception:
        if all(b.settled() for b in blocks):
            raise
        # The error may come from data still being written (a singular
        # garbage matrix, say): find out on the data the kernel will see.
        _host_read(stream, blocks, name)
        with np.errstate(all="ignore"):
            res = fn(*np_args, **np_kwargs)
    if (not found and not _has_array(res)) or name in META:
        return res
    if any(isinstance(r, str) for r in _leaves(res)) and not all(b.settled() for b in blocks):
        # Text of the values (array2string, array_repr): CuPy reads the data
        # back for it, waiting for what is still being written.
        _host_read(stream, blocks, name)
        with np.errstate(all="ignore"):
            return fn(*np_args, **np_kwargs)
    outs: list[tuple[int, ndarray]] = []  # (leaf index, new array) whose values are still to be stored
    leaves = _leaves(res)
    # Whether res was computed from settled data, asked before the results'
    # memory is allocated: an allocation may run queued work (the pool's
    # retry), which would settle the inputs after res was computed.
    settled = all(b.settled() for b in blocks)
    converted = _convert(res, found, outs, itertools.count())
    if outs:
        if settled:
            values = [(new, np.asarray(leaves[i])) for i, new in outs]

            def run() -> None:
                for dst, v in values:
                    if dst._a.size:
                        dst._a[...] = v
        else:

            def run() -> None:
                with _replaying():
                    again = _leaves(fn(*np_args, **np_kwargs))
                for i, dst in outs:
                    v = np.asarray(again[i])
                    if v.shape != dst._a.shape:
                        raise AssertionError(f"cudasim: {name} gave shape {v.shape} when it ran, {dst.shape} before")
                    if dst._a.size:
                        dst._a[...] = v

        mode = "pr" if peer else "r"
        accesses = [(b, mode) for b in blocks] + [(t._block, "w") for _, t in outs if t._block is not None]
        _sim.enqueue(stream, run, accesses, name or getattr(fn, "__name__", "kernel"))
    return converted


def _convert(r: Any, found: list[ndarray], outs: list, index: Any) -> Any:
    """NumPy's result ``r`` as simulated arrays: views of an input stay views
    of its memory; new data gets a new array (recorded in ``outs`` with its
    leaf index, for the op to store).  A plain function, not a closure: a
    recursive closure is a reference cycle that would keep the inputs alive
    until the next garbage collection (and the pool counts references)."""
    if isinstance(r, tuple) and hasattr(r, "_fields"):
        return type(r)(*[_convert(x, found, outs, index) for x in r])
    if isinstance(r, (tuple, list)):
        return type(r)(_convert(x, found, outs, index) for x in r)
    i = next(index)
    if type(r) is np.ndarray:
        for x in found:
            if x._block is not None and r.size and np.may_share_memory(r, x._block.raw):
                return _view(r, x)
    elif not isinstance(r, (np.generic, bool, int, float, complex)):
        return r
    r = np.asarray(r)
    new = _empty(r.shape, r.dtype)
    outs.append((i, new))
    return new


def _has_array(res: Any) -> bool:
    return any(isinstance(r, np.ndarray) for r in _leaves(res))


def _host_read(stream: _sim.StreamState, blocks: list[_sim.Block], what: str) -> None:
    """The host waits for ``stream`` to read ``blocks`` (a count, a scalar)."""
    seq = _sim.enqueue(stream, None, [(b, "r") for b in blocks], what)
    _sim.run_until(stream, seq)


def _inplace(fn: Callable[..., Any], target: ndarray, args: tuple, kwargs: dict, name: str) -> Any:
    """Run ``fn(target_view, *args)``, which writes into the target, as a
    kernel; errors are found now on a copy of the target."""
    found: list[ndarray] = []
    np_args = _unwrap(args, found, host_ok=True)
    np_kwargs = _unwrap(kwargs, found, host_ok=True)
    probe = target._a.copy()
    try:
        with np.errstate(all="ignore"):
            fn(probe, *np_args, **np_kwargs)
    except Exception:
        blocks = _blocks([*found, target])
        if all(b.settled() for b in blocks):
            raise
        _host_read(_stream_state(), blocks, name)
        probe = target._a.copy()
        with np.errstate(all="ignore"):
            fn(probe, *np_args, **np_kwargs)
    if target._block is None:
        return None
    blocks = [b for b in _blocks(found) if b is not target._block]
    t = target._a

    def run() -> None:
        with _replaying():
            fn(t, *np_args, **np_kwargs)

    accesses = [(b, "r") for b in blocks] + [(target._block, "w")]
    _sim.enqueue(_stream_state(), run, accesses, name or "in-place kernel")
    return None


_capsules: dict[int, ndarray] = {}
_capsule_ids = itertools.count(1)
_PyCapsule_New = ctypes.pythonapi.PyCapsule_New
_PyCapsule_New.restype = ctypes.py_object
_PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_PyCapsule_GetPointer = ctypes.pythonapi.PyCapsule_GetPointer
_PyCapsule_GetPointer.restype = ctypes.c_void_p
_PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_PyCapsule_GetName = ctypes.pythonapi.PyCapsule_GetName
_PyCapsule_GetName.restype = ctypes.c_char_p
_PyCapsule_GetName.argtypes = [ctypes.py_object]
_CAPSULE_NAMES = {b"dltensor": b"dltensor", b"dltensor_versioned": b"dltensor_versioned"}


def _capsule(x: ndarray, versioned: bool) -> Any:
    key = next(_capsule_ids)
    _capsules[key] = x
    return _PyCapsule_New(key, _CAPSULE_NAMES[b"dltensor_versioned" if versioned else b"dltensor"], None)


def _from_capsule(capsule: Any) -> ndarray:
    name = _PyCapsule_GetName(capsule)
    key = _PyCapsule_GetPointer(capsule, name)
    x = _capsules.pop(key, None)
    if x is None:
        raise BufferError("cudasim: this DLPack capsule was not made by the simulated runtime, or was used")
    return x


class ndarray:  # noqa: N801  (CuPy's name)
    """A simulated ``cupy.ndarray``."""

    __array_priority__ = 100
    __hash__ = None  # type: ignore[assignment]
    _a: np.ndarray
    _mem: Any
    _block: _sim.Block | None
    _dev: int
    _base: ndarray | None

    def __init__(
        self, shape: Any, dtype: Any = float, memptr: Any = None, strides: Any = None, order: str = "C"
    ) -> None:
        if memptr is None:
            new = _empty(shape, dtype, order)
        else:
            dt = _check_dtype(dtype)
            shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(shape)
            mem = memptr.mem
            block = mem.block
            offset = memptr.ptr - block.ptr
            a = np.ndarray(shape, dt, buffer=block.raw, offset=offset, strides=strides)
            new = _make(a, mem, block.device, None)
        self._a, self._mem, self._block, self._dev, self._base = new._a, new._mem, new._block, new._dev, None

    # -- facts ----------------------------------------------------------------------------
    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    nbytes = property(lambda self: self._a.nbytes)
    itemsize = property(lambda self: self._a.itemsize)
    strides = property(lambda self: self._a.strides)
    base = property(lambda self: self._base)
    flags = property(lambda self: _Flags(self))

    @property
    def device(self) -> Any:
        from .cuda.device import Device

        return Device(self._dev)

    @property
    def data(self) -> _memory.MemoryPointer:
        if self._mem is None:
            return _memory.MemoryPointer(_NoMemory(self._dev), 0)
        offset = self._a.__array_interface__["data"][0] - self._block.raw.ctypes.data  # type: ignore[union-attr]
        return _memory.MemoryPointer(self._mem, offset)

    @property
    def T(self) -> ndarray:  # noqa: N802
        return _call(lambda a: a.T, (self,), {}, "T")

    @property
    def mT(self) -> ndarray:  # noqa: N802
        return _call(lambda a: a.mT, (self,), {}, "mT")

    @property
    def real(self) -> ndarray:
        return _call(lambda a: a.real, (self,), {}, "real")

    @real.setter
    def real(self, value: Any) -> None:  # CuPy's setter: a kernel writing the real parts
        _inplace(lambda t, v: np.copyto(t.real, v, casting="unsafe"), self, (value,), {}, "real")

    @property
    def imag(self) -> ndarray:
        return _call(lambda a: a.imag, (self,), {}, "imag")

    @imag.setter
    def imag(self, value: Any) -> None:
        _inplace(lambda t, v: np.copyto(t.imag, v, casting="unsafe"), self, (value,), {}, "imag")

    def __len__(self) -> int:
        if not self._a.ndim:
            raise TypeError("len() of unsized object")
        return self._a.shape[0]

    def __iter__(self) -> Any:
        if not self._a.ndim:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self._a.shape[0]))

    # -- host transfers -------------------------------------------------------------------
    def get(self, stream: Any = None, order: str = "C", out: np.ndarray | None = None, blocking: bool = True) -> Any:
        """A host copy, made by a copy queued on ``stream`` (default: the
        current stream of the *current* GPU, as CuPy does)."""
        s = _stream.get_current_stream() if stream is None else stream
        src = self
        if out is not None:
            if not isinstance(out, np.ndarray):
                raise TypeError("Only numpy.ndarray can be obtained from cupy.ndarray")
            if out.dtype != self.dtype:
                raise TypeError(f"{out.dtype} array cannot be obtained from {self.dtype} array")
            if out.shape != self.shape:
                raise ValueError(f"Shape mismatch. Expected shape: {self.shape}, actual shape: {out.shape}")
            dst = out
        else:
            dst = np.empty(self.shape, self.dtype, order="F" if order == "F" else "C")
        if self.size == 0:
            return dst
        if not ((dst.flags.c_contiguous and self._a.flags.c_contiguous) or
                (dst.flags.f_contiguous and self._a.flags.f_contiguous)):  # fmt: skip
            from .cuda.device import Device

            with Device(self._dev), s:
                src = _call(np.ascontiguousarray if dst.flags.c_contiguous else np.asfortranarray, (self,), {})
        pinned = _sim.host_blocks(dst)
        a = src._a

        def run() -> None:
            dst[...] = a

        accesses = [(src._block, "r")] + [(b, "w") for b in pinned]
        seq = _sim.enqueue(s._state, run, accesses, "get()")
        if blocking or not pinned:  # into pageable memory a copy is synchronous
            _sim.run_until(s._state, seq)
        return dst

    def set(self, arr: np.ndarray, stream: Any = None) -> None:
        """Copy host ``arr`` in, queued on ``stream`` (default: the current
        stream of the current GPU).  From pinned memory the copy reads the
        host data when it runs; from pageable memory, now."""
        if not isinstance(arr, np.ndarray):
            raise TypeError("Only numpy.ndarray can be set to cupy.ndarray")
        if self.dtype != arr.dtype:
            raise TypeError(f"{arr.dtype} array cannot be set to {self.dtype} array")
        if self.shape != arr.shape:
            raise ValueError(f"Shape mismatch. Old shape: {arr.shape}, new shape: {self.shape}")
        if self._a.flags.c_contiguous:
            arr = np.ascontiguousarray(arr)
        elif self._a.flags.f_contiguous:
            arr = np.asfortranarray(arr)
        else:
            raise RuntimeError("Cannot set to non-contiguous array")
        if self.size == 0:
            return
        s = _stream.get_current_stream() if stream is None else stream
        pinned = _sim.host_blocks(arr)
        dst = self._a
        if pinned:
            snapshot = arr.copy()

            def run() -> None:
                if not np.array_equal(arr.reshape(-1).view(np.uint8), snapshot.reshape(-1).view(np.uint8)):
                    _sim.hazard(
                        "host write during copy",
                        f"pinned host memory was written while a copy from it to {self._block!r} was queued",
                    )
                dst[...] = arr
        else:
            values = arr.copy()

            def run() -> None:
                dst[...] = values

        accesses = [(self._block, "w")] + [(b, "r") for b in pinned]
        _sim.enqueue(s._state, run, accesses, "set()")

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(
            "Implicit conversion to a NumPy array is not allowed. Please use `.get()` to construct a NumPy "
            "array explicitly."
        )

    def _host(self) -> np.ndarray:
        return self.get()

    def __bool__(self) -> bool:
        if self.size != 1:
            raise ValueError(
                "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()"
            )
        return bool(self._host())

    def __int__(self) -> int:
        return int(self._host())

    def __float__(self) -> float:
        return float(self._host())

    def __complex__(self) -> complex:
        return complex(self._host())

    def __index__(self) -> int:
        if self.ndim or self.dtype.kind not in "iub":
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        return operator.index(self._host()[()])

    def item(self, *args: Any) -> Any:
        return self._host().item(*args)

    def tolist(self) -> Any:
        return self._host().tolist()

    def __repr__(self) -> str:
        return repr(self._host())

    def __str__(self) -> str:
        return str(self._host())

    def __format__(self, spec: str) -> str:
        return format(self._host()[()] if self.ndim == 0 else self._host(), spec)

    # -- protocols ------------------------------------------------------------------------
    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        ptr = _stream.get_current_stream_ptr()  # the current GPU's stream, as CuPy
        return {
            "shape": self.shape,
            "typestr": self.dtype.str,
            "descr": self.dtype.descr,
            "stream": ptr if ptr != 0 else 1,
            "version": 3,
            "strides": None if self._a.flags.c_contiguous else self.strides,
            "data": (self.data.ptr if self.size else 0, False),
        }

    def __dlpack_device__(self) -> tuple[int, int]:
        return (2, self._dev)

    def __dlpack__(
        self, *, stream: Any = None, max_version: tuple | None = None, dl_device: Any = None, copy: Any = None
    ) -> Any:
        if max_version is not None and type(max_version) is not tuple:
            raise TypeError(f"Argument 'max_version' has incorrect type (expected tuple, got {type(max_version)})")
        versioned = max_version is not None and max_version[0] >= 1
        if dl_device is None or tuple(dl_device) == self.__dlpack_device__():
            if copy is True:
                raise BufferError("copy=True only supported for copy to CPU.")
        elif tuple(dl_device) == (1, 0):
            if copy is False:
                raise ValueError("GPU memory cannot be exported to CPU without copy.")
            return self.get().__dlpack__(max_version=max_version, copy=False)
        else:
            raise BufferError("unsupported device requested.")
        if stream is not None and not isinstance(stream, int):
            raise ValueError(f"On CUDA, the valid stream for the DLPack protocol is -1, 1, 2, or larger: {stream}")
        current = _stream.get_current_stream()
        if _sim.current_device() != self._dev:
            _sim.hazard(
                "wrong device",
                f"DLPack export of an array of cuda:{self._dev} ordered on {current._state} (current device "
                f"cuda:{_sim.current_device()})",
            )
        consumer = 1 if stream is None else stream
        if consumer != -1:
            target = _sim.stream_by_ptr(consumer)
            if target is not current._state:  # the consumer's stream waits for ours
                current.record()._state.wait_on(target)
        return _capsule(_view(self._a, self), versioned)

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        import cupy

        fn = getattr(cupy, ufunc.__name__, None)
        if method != "__call__" or fn is None:
            return NotImplemented
        return fn(*inputs, **kwargs)

    def __array_function__(self, func: Any, types: Any, args: tuple, kwargs: dict) -> Any:
        import cupy

        mod: Any = cupy
        for part in func.__module__.split(".")[1:]:
            if part.startswith("_"):
                continue
            mod = getattr(mod, part, None)
            if mod is None:
                return NotImplemented
        fn = getattr(mod, func.__name__, None)
        return NotImplemented if fn is None else fn(*args, **kwargs)

    # -- indexing -------------------------------------------------------------------------
    def __getitem__(self, key: Any) -> Any:
        k = key if isinstance(key, tuple) else (key,)
        found: list[ndarray] = []
        np_key = _unwrap(key, found, host_ok=True)
        if any(type(i) is ndarray and i.dtype == np.bool_ for i in k):  # the count is read back first
            _host_read(_stream_state(), _blocks(found), "boolean indexing")
        return _call(lambda a, *_: a[np_key], (self, *found), {}, "getitem")

    def __setitem__(self, key: Any, value: Any) -> None:
        if type(value) is np.ndarray and value.ndim:
            raise TypeError(f"Unsupported type {type(value)}")  # CuPy refuses host arrays (gh-2079)
        _inplace(lambda t, k, v: t.__setitem__(k, v), self, (key, value), {}, "setitem")

    # -- methods --------------------------------------------------------------------------
    def fill(self, value: Any) -> None:
        _inplace(lambda t, v: t.fill(v), self, (value,), {}, "fill")

    def sort(self, axis: int = -1, kind: Any = None) -> None:
        _inplace(lambda t: t.sort(axis=axis), self, (), {}, "sort")

    def copy(self, order: str = "C") -> ndarray:
        return _call(lambda a: np.array(a, order=order, copy=True), (self,), {}, "copy", peer=True)

    def astype(self, dtype: Any, order: str = "K", casting: Any = None, subok: Any = None, copy: bool = True) -> Any:
        _check_dtype(dtype)
        return _call(lambda a: a.astype(dtype, order=order, copy=copy), (self,), {}, "astype")

    def view(self, dtype: Any = None) -> ndarray:
        if dtype is None:
            return _view(self._a.view(), self)
        _check_dtype(dtype)
        return _view(self._a.view(dtype), self)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        method = getattr(np.ndarray, name, None)
        if not callable(method):
            raise AttributeError(f"'cupy.ndarray' object has no attribute {name!r}")
        if name in ("partition", "put", "resize", "itemset", "setfield", "byteswap", "setflags", "tofile", "dump"):
            if name in ("partition", "put"):
                return lambda *a, **k: _inplace(lambda t, *aa, **kk: getattr(t, name)(*aa, **kk), self, a, k, name)
            raise AttributeError(f"'cupy.ndarray' object has no attribute {name!r}")
        return lambda *a, **k: _call(lambda arr, *aa, **kk: getattr(arr, name)(*aa, **kk), (self, *a), k, name)


class _NoMemory:
    block = None
    ptr = 0
    size = 0

    def __init__(self, dev: int) -> None:
        self.device_id = dev


def _binary(op: Callable[[Any, Any], Any], name: str, reflected: bool = False) -> Callable[..., Any]:
    def method(self: ndarray, other: Any) -> Any:
        if type(other) is np.ndarray and other.ndim:
            return NotImplemented
        args = (other, self) if reflected else (self, other)
        return _call(op, args, {}, name)

    method.__name__ = name
    return method


def _inplace_op(op: Callable[[Any, Any], Any], name: str) -> Callable[..., Any]:
    def method(self: ndarray, other: Any) -> Any:
        if type(other) is np.ndarray and other.ndim:
            return NotImplemented
        _inplace(lambda t, o: op(t, o), self, (other,), {}, name)
        return self

    method.__name__ = name
    return method


for _n in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor", "lshift", "rshift"):
    _op = getattr(operator, _n + "_" if _n in ("and", "or") else _n)
    setattr(ndarray, f"__{_n}__", _binary(_op, f"__{_n}__"))
    setattr(ndarray, f"__r{_n}__", _binary(_op, f"__r{_n}__", reflected=True))
    setattr(ndarray, f"__i{_n}__", _inplace_op(getattr(operator, f"i{_n}"), f"__i{_n}__"))
for _n in ("lt", "le", "gt", "ge", "eq", "ne"):
    setattr(ndarray, f"__{_n}__", _binary(getattr(operator, _n), f"__{_n}__"))
for _n in ("neg", "pos", "abs", "invert"):
    setattr(ndarray, f"__{_n}__", (lambda op, n: lambda self: _call(op, (self,), {}, n))(getattr(operator, _n), _n))
ndarray.__divmod__ = lambda self, other: (self // other, self % other)  # type: ignore[attr-defined]
ndarray.__module__ = "cupy"
