"""A simulated CuPy, for the tests only: NumPy-backed kernels on simulated
GPUs whose streams run their work only when something waits for it, with a
log of every ordering, context and lifetime hazard (see ``_sim``).

It offers the part of CuPy's API that unifiedarray and
``array_api_compat.cupy`` use, with CuPy's semantics where the library
relies on them (read from CuPy 14's source): the current device and stream
per thread, stream-aware device pools, a pinned pool, ``get``/``set``,
events, ``__cuda_array_interface__`` v3, DLPack.  It is not CuPy: no real
kernels, no timing, and anything not listed here is absent.
"""

from __future__ import annotations

import builtins
import sys
import types
from typing import Any

import numpy as np

from . import _sim, cuda
from ._core import _call, _check_dtype, _empty, _from_capsule, _inplace, _make, _view, ndarray
from .cuda.memory import get_default_memory_pool
from .cuda.pinned_memory import get_default_pinned_memory_pool

_SIMULATED = True
__version__ = "14.0.0+cudasim"

_OWN = {
    "ndarray", "asarray", "array", "asanyarray", "empty", "empty_like", "from_dlpack", "may_share_memory",
    "shares_memory", "asnumpy", "get_array_module", "copyto", "put", "place", "putmask", "fill_diagonal",
    "put_along_axis", "linalg", "fft", "random", "testing", "ascontiguousarray", "asfortranarray", "ufunc",
}  # fmt: skip
_IN_PLACE = ("copyto", "put", "place", "putmask", "fill_diagonal", "put_along_axis")


class ufunc:  # noqa: N801  (CuPy's name)
    """A NumPy ufunc run as a simulated kernel."""

    def __init__(self, base: np.ufunc) -> None:
        self._base = base
        self.__name__ = base.__name__
        self.nin, self.nout, self.nargs = base.nin, base.nout, base.nargs
        self.types = base.types
        self.identity = base.identity

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _call(self._base, args, kwargs, self.__name__)

    def __repr__(self) -> str:
        return f"<ufunc '{self.__name__}'>"


def _wrap(fn: Any, name: str) -> Any:
    def kernel(*args: Any, **kwargs: Any) -> Any:
        return _call(fn, args, kwargs, name)

    kernel.__name__ = kernel.__qualname__ = name
    kernel.__doc__ = getattr(fn, "__doc__", None)
    return kernel


def _in_place(fn: Any, name: str) -> Any:
    def kernel(target: Any, *args: Any, **kwargs: Any) -> None:
        if type(target) is not ndarray:
            raise TypeError(f"{name}: the target must be a cupy.ndarray, not {type(target).__name__}")
        _inplace(lambda t, *a, **k: fn(t, *a, **k), target, args, kwargs, name)

    kernel.__name__ = name
    return kernel


def _populate(ns: dict[str, Any], source: types.ModuleType, skip: set[str]) -> list[str]:
    names = []
    for name in dir(source):
        if name.startswith("_") or name in skip:
            continue
        obj = getattr(source, name)
        if isinstance(obj, types.ModuleType):
            continue
        if isinstance(obj, np.ufunc):
            ns[name] = ufunc(obj)
        elif isinstance(obj, type) or not callable(obj):
            ns[name] = obj  # dtypes, scalar types, constants: CuPy shares NumPy's
        else:
            ns[name] = _wrap(obj, name)
        names.append(name)
    return names


__all__ = _populate(globals(), np, _OWN)
for _name in _IN_PLACE:
    globals()[_name] = _in_place(getattr(np, _name), _name)
bool_ = np.bool_


class _cuda_kernel_ufunc(ufunc):  # noqa: N801
    """A ufunc whose CUDA kernel computes differently from NumPy's loop on
    some inputs: NumPy's ufunc for its metadata, ``kernel`` for its values."""

    def __init__(self, base: np.ufunc, kernel: Any) -> None:
        super().__init__(base)
        self._kernel = kernel

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _call(self._kernel, args, kwargs, self.__name__)


def _cuda_remainder(x1: Any, x2: Any, **kwargs: Any) -> Any:
    """CuPy's float kernel, ``x1 - floor(x1 / x2) * x2``: NaN for a finite
    ``x1`` over an infinite ``x2``, where NumPy gives ``x1`` or ``x2``."""
    if np.result_type(x1, x2).kind != "f":
        return np.remainder(x1, x2, **kwargs)
    return np.subtract(x1, np.floor(np.divide(x1, x2)) * x2, **kwargs)


def _cuda_log1p(x: Any, **kwargs: Any) -> Any:
    """CuPy's complex kernel, ``log(1 + z)`` with a complex 1 and a modulus
    ``sqrt(re**2 + im**2)``: the sign of a zero imaginary part is lost, and
    the modulus overflows for parts near the largest float."""
    z = np.asarray(x)
    if z.dtype.kind != "c":
        return np.log1p(x, **kwargs)
    w = z.dtype.type(1) + z
    out = np.empty(z.shape, z.dtype)
    out.real = np.log(np.sqrt(w.real * w.real + w.imag * w.imag))
    out.imag = np.arctan2(w.imag, w.real)
    return out[()] if np.ndim(x) == 0 and not isinstance(x, np.ndarray) else out


remainder = _cuda_kernel_ufunc(np.remainder, _cuda_remainder)


def _cuda_logarithm(base: np.ufunc) -> Any:
    """CuPy's kernels for log, log2, log10 as seen on an H200: a float32
    subnormal is flushed to zero (``-inf``), and a complex modulus is
    ``sqrt(re**2 + im**2)``, which overflows for parts near the largest float."""

    def kernel(x: Any, **kwargs: Any) -> Any:
        a = np.asarray(x)
        if a.dtype == np.float32:
            return base(np.where(np.abs(a) < np.finfo(np.float32).tiny, np.float32(0), a), **kwargs)
        if a.dtype.kind == "c":
            if a.dtype == np.complex64:  # subnormal parts flushed too
                tiny = np.finfo(np.float32).tiny
                a = np.where(np.abs(a.real) < tiny, 0, a.real) + 1j * np.where(np.abs(a.imag) < tiny, 0, a.imag)
                a = a.astype(np.complex64)
            out = np.empty(a.shape, a.dtype)
            out.real = base(np.sqrt(a.real * a.real + a.imag * a.imag))
            out.imag = np.arctan2(a.imag, a.real) / (base(np.e) if base is not np.log else 1)
            return out
        return base(x, **kwargs)

    return kernel


def _cuda_absolute(x: Any, **kwargs: Any) -> Any:
    """CuPy's complex kernel: ``sqrt(re**2 + im**2)``, which overflows for
    parts near the largest float."""
    a = np.asarray(x)
    if a.dtype.kind != "c":
        return np.absolute(x, **kwargs)
    return np.sqrt(a.real * a.real + a.imag * a.imag)


absolute = abs = _cuda_kernel_ufunc(np.absolute, _cuda_absolute)  # noqa: A001  (CuPy's names)
log, log2, log10 = (_cuda_kernel_ufunc(f, _cuda_logarithm(f)) for f in (np.log, np.log2, np.log10))


def _cuda_median(
    a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False, keepdims: bool = False
) -> Any:
    """CuPy's median: a partition at the middle, which refuses an empty
    axis (``kth(=-1) out of bounds 0``) where NumPy answers NaN."""
    arr = np.asarray(a)
    try:
        axes = range(arr.ndim) if axis is None else np.lib.array_utils.normalize_axis_tuple(axis, arr.ndim)
    except (np.exceptions.AxisError, ValueError, TypeError):
        axes = None  # a bad axis: NumPy's error, below
    if axes is not None and arr.size == 0 and np.prod([arr.shape[i] for i in axes]) == 0:
        raise ValueError("kth(=-1) out of bounds 0")
    return np.median(arr, axis=axis, out=out, overwrite_input=overwrite_input, keepdims=keepdims)


median = _wrap(_cuda_median, "median")


def _cuda_take(a: Any, indices: Any, axis: Any = None, out: Any = None) -> Any:
    """CuPy's take: indices out of range wrap around (CuPy checks no
    bounds).  By a modulo, as CuPy's kernel: NumPy's own mode="wrap" steps
    one length at a time, which never ends for an index near 2**63."""
    n = np.size(a) if axis is None else np.shape(a)[axis]
    wrapped = np.mod(np.asarray(indices), n) if n else indices
    return np.take(a, wrapped, axis=axis, out=out)


take = _wrap(_cuda_take, "take")
log1p = _cuda_kernel_ufunc(np.log1p, _cuda_log1p)


def _host_to_device(obj: Any, dtype: Any, order: str = "C") -> ndarray:
    host = np.asarray(obj, dtype=dtype)
    if host.dtype.kind not in "biufc":
        raise ValueError(f"Unsupported dtype {host.dtype}")
    if dtype is None and host.dtype.char not in "?bhilqBHILQefdFD":
        host = host.astype(host.dtype.newbyteorder("="))
    out = _empty(host.shape, host.dtype, "F" if order == "F" else "C")
    if host.size:
        out.set(np.array(host, order="F" if order == "F" else "C"))
    return out


def _from_cuda_array_interface(obj: Any) -> ndarray:
    desc = obj.__cuda_array_interface__
    shape = tuple(desc["shape"])
    dt = np.dtype(desc["typestr"])
    strides = desc.get("strides")
    ptr = desc["data"][0]
    if not ptr:
        return _empty(shape, dt)
    mem = cuda.memory.UnownedMemory(ptr, 0, obj)
    a = np.ndarray(shape, dt, buffer=mem.block.raw, offset=mem.offset, strides=strides)
    stream_ptr = desc.get("stream")
    if stream_ptr is not None:  # CAI v3: the consumer synchronises the producer's stream
        # The default-stream handles (1, 2) name the default stream of the GPU
        # the consumer has current, as CUDA resolves them: the stream named
        # must be one of the data's GPU, else the consumer orders on a stream
        # that has nothing to do with the data.
        named = _sim.stream_by_ptr(int(stream_ptr))
        if named.device != mem.block.device:
            _sim.hazard(
                "wrong device",
                f"a CUDA Array Interface of {mem.block!r} names {named} (stream value {stream_ptr}, resolved "
                f"with cuda:{_sim.current_device()} current): not a stream of the data's GPU, so waiting for "
                "it orders nothing there",
            )
        if named is not _sim.current_stream_state():  # as CuPy: no wait on the current stream itself
            cuda.runtime.streamSynchronize(stream_ptr)
    return _make(a, mem, mem.block.device, None)


def _cupy_like(obj: Any) -> ndarray | None:
    if type(obj) is ndarray:
        return obj
    if hasattr(obj, "__cuda_array_interface__"):
        return _from_cuda_array_interface(obj)
    if hasattr(obj, "__cupy_get_ndarray__"):
        return obj.__cupy_get_ndarray__()
    return None


def array(obj: Any, dtype: Any = None, copy: Any = True, order: str = "K", subok: bool = False, ndmin: int = 0) -> Any:
    src = _cupy_like(obj)
    if src is not None:
        dt = src.dtype if dtype is None else _check_dtype(dtype)
        if src._dev != _sim.current_device():
            out = src.copy()
            return out if dt == out.dtype else out.astype(dt)
        if not copy and dt == src.dtype:
            return src
        return src.astype(dt, copy=True) if copy else src.astype(dt, copy=False)
    if isinstance(obj, (list, tuple)) and builtins.any(type(o) is ndarray for o in obj):
        return stack([asarray(o, dtype) for o in obj])  # type: ignore[name-defined]  # noqa: F821
    return _host_to_device(obj, dtype, order)


def asarray(a: Any, dtype: Any = None, order: Any = None, *, blocking: bool = False) -> Any:
    return array(a, dtype, copy=False, order=order or "K")


asanyarray = asarray


def ascontiguousarray(a: Any, dtype: Any = None) -> Any:
    return _call(lambda x: np.ascontiguousarray(x, dtype=dtype), (asarray(a),), {}, "ascontiguousarray")


def asfortranarray(a: Any, dtype: Any = None) -> Any:
    return _call(lambda x: np.asfortranarray(x, dtype=dtype), (asarray(a),), {}, "asfortranarray")


def empty(shape: Any, dtype: Any = float, order: str = "C") -> ndarray:
    """Uninitialised device memory (a pooled block shows its last data)."""
    return _empty(shape, dtype, order)


def empty_like(prototype: Any, dtype: Any = None, order: str = "K", subok: Any = None, shape: Any = None) -> ndarray:
    return _empty(prototype.shape if shape is None else shape, prototype.dtype if dtype is None else dtype)


def asnumpy(a: Any, stream: Any = None, order: str = "C", out: Any = None, *, blocking: bool = True) -> np.ndarray:
    if type(a) is ndarray:
        return a.get(stream=stream, order=order, out=out, blocking=blocking)
    if hasattr(a, "__cuda_array_interface__"):
        return asarray(a).get(stream=stream, order=order, out=out, blocking=blocking)
    return np.asarray(a, order=order)


def get_array_module(*args: Any) -> types.ModuleType:
    import sys

    return sys.modules[__name__] if builtins.any(type(a) is ndarray for a in args) else np


def may_share_memory(a: Any, b: Any, max_work: Any = None) -> bool:
    if type(a) is not ndarray or type(b) is not ndarray:
        return False
    return a._block is not None and a._block is b._block and np.may_share_memory(a._a, b._a)


def shares_memory(a: Any, b: Any, max_work: Any = None) -> bool:
    if type(a) is not ndarray or type(b) is not ndarray:
        return False
    return a._block is not None and a._block is b._block and np.shares_memory(a._a, b._a)


def from_dlpack(x: Any, *, device: Any = None, copy: Any = None) -> ndarray:
    """Import through DLPack: the producer is asked for an export ordered
    on the current stream."""
    if type(x).__name__ == "PyCapsule":
        return _from_capsule(x)
    kind, index = x.__dlpack_device__()
    if kind != 2:
        raise BufferError(f"cudasim: from_dlpack of DLPack device type {kind} is not supported")
    ptr = cuda.get_current_stream().ptr or 1
    try:
        capsule = x.__dlpack__(stream=ptr, max_version=(1, 0))
    except TypeError:
        capsule = x.__dlpack__(stream=ptr)
    return _from_capsule(capsule)


fromDlpack = from_dlpack  # noqa: N816


def _submodule(name: str, source: types.ModuleType) -> types.ModuleType:
    import sys

    mod = types.ModuleType(f"{__name__}.{name}")
    _populate(mod.__dict__, source, set())
    sys.modules[mod.__name__] = mod
    return mod


linalg = _submodule("linalg", np.linalg)


def _status_checked(solver: Any, name: str) -> Any:
    """A solver as CuPy's: a singular or indefinite matrix is reported only
    in cuSOLVER's status word, which CuPy reads (raising NumPy's
    ``LinAlgError``) only under ``cupyx.errstate(linalg="raise")``; else the
    result is NaN."""

    def kernel(a: Any, *args: Any, **kwargs: Any) -> Any:
        import cupyx

        checked = cupyx.geterr()["linalg"] == "raise"
        if checked:
            # Reading the status word waits for the stream: the solver then
            # sees the data as it is, not what is still queued to write it.
            cuda.get_current_stream().synchronize()
        try:
            return solver(a, *args, **kwargs)
        except np.linalg.LinAlgError:
            if checked:
                raise
        # A solvable matrix of a's shape and dtype gives the result's.
        stand_in = _call(lambda m: np.broadcast_to(np.eye(m.shape[-1], dtype=m.dtype), m.shape), (a,), {}, "eye")
        result = solver(stand_in, *args, **kwargs)
        result[...] = np.nan
        return result

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


for _solver in ("cholesky", "inv", "solve"):
    setattr(linalg, _solver, _status_checked(getattr(linalg, _solver), _solver))
fft = _submodule("fft", np.fft)


def _cupy_axis_error(transform: Any, name: str) -> Any:
    """A transform as CuPy's: an axis out of range is a plain ``ValueError``
    ("Axis out of range"), not NumPy's ``AxisError`` (also an IndexError)."""

    def kernel(*args: Any, **kwargs: Any) -> Any:
        try:
            return transform(*args, **kwargs)
        except (np.exceptions.AxisError, IndexError):  # NumPy's: AxisError, or IndexError from its shape lookup
            raise ValueError("Axis out of range") from None

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


for _name, _transform in list(vars(fft).items()):
    if not _name.startswith("_") and callable(_transform) and "fft" in _name and "freq" not in _name:
        setattr(fft, _name, _cupy_axis_error(_transform, _name))
# CuPy's cupy.random: its Generator's methods over cuRAND's Philox, drawn
# here by NumPy's Generator on NumPy's Philox (other numbers, same API).
random = types.ModuleType(f"{__name__}.random")
_GENERATOR_METHODS = (
    "beta", "binomial", "chisquare", "dirichlet", "exponential", "f", "gamma", "geometric", "hypergeometric",
    "integers", "logseries", "poisson", "power", "random", "standard_exponential", "standard_gamma",
    "standard_normal", "uniform",
)  # fmt: skip


class _Philox4x3210:
    def __init__(self, seed: Any = None, *, size: int = -1) -> None:
        self._seed = seed


class _Generator:
    def __init__(self, bit_generator: _Philox4x3210) -> None:
        self._numpy = np.random.Generator(np.random.Philox(bit_generator._seed))

    def __getattr__(self, name: str) -> Any:
        if name not in _GENERATOR_METHODS:
            raise AttributeError(f"cupy.random.Generator has no {name!r}")
        return _wrap(getattr(self._numpy, name), name)


random.Philox4x3210 = _Philox4x3210  # type: ignore[attr-defined]
random.Generator = _Generator  # type: ignore[attr-defined]
sys.modules[random.__name__] = random
# CuPy's cupy.lib.stride_tricks (sliding_window_view, as_strided).
lib = types.ModuleType(f"{__name__}.lib")
lib.stride_tricks = _submodule("lib.stride_tricks", np.lib.stride_tricks)  # type: ignore[attr-defined]

__all__ += [
    "ndarray", "asarray", "array", "asanyarray", "empty", "empty_like", "from_dlpack", "may_share_memory",
    "shares_memory", "asnumpy", "get_array_module", *_IN_PLACE, "cuda", "linalg", "fft", "lib", "random", "ufunc", "bool_",
    "get_default_memory_pool", "get_default_pinned_memory_pool", "ascontiguousarray", "asfortranarray",
]  # fmt: skip
_ = (_view,)
