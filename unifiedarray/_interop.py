"""Protocols through which NumPy, CuPy, MLX, DLPack consumers, pickle and
dask take a :class:`~unifiedarray.UnifiedArray`.

What moves, and what is handed out:

* ``__array__``: the host copy (synced first if stale, counted) as a
  *read-only* view; a writable array only as a copy.  ``np.asarray(x)``
  therefore works on an array that lives on a device (CuPy refuses), and
  nothing handed out can go stale unnoticed.
* ``__array_ufunc__`` / ``__array_function__``: NumPy functions run on the
  device where the array lives (NumPy on the host, CuPy on CUDA, the MLX
  namespace on MLX for the functions in :data:`MLX_EQUIVALENTS`); anything
  else runs on the host, its moves counted, and its results are sent back.
  ``out=`` arguments that are UnifiedArrays are written through the buffer.
  An ``np.ndarray`` mixed with UnifiedArrays is taken as host data.
* ``__dlpack__``: the copy on the array's own device.  Host exports are
  read-only (the DLPack 1.x flag) unless the consumer asks for a copy; a
  legacy (pre-1.0) consumer, which cannot be told "read-only", gets a
  writable export that counts as a write (a lease, as ``buf.host`` is).
* ``__cuda_array_interface__`` / ``__cupy_get_ndarray__``: the CUDA copy;
  counts as a device write, because the consumer gets a raw pointer.
* ``__mlx_array__``: the MLX copy, as a new handle (MLX's in-place writes
  rebind a handle, so the consumer cannot write into the buffer).
* pickling keeps dtype, shape, data and device (the host on load where the
  device does not exist); ``__dask_tokenize__`` names the buffer and its
  write version without touching data.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ._array import UnifiedArray, _send_back, _wrap, _write, native_on, placement_of, writable_native
from ._devices import CPU, MLX, Device
from .backends import backend_for

# NumPy names whose semantics the Array API function of (maybe) another name
# shares exactly; only these run on MLX when called through NumPy.
MLX_EQUIVALENTS: dict[str, str] = {
    **{n: n for n in (
        "add subtract multiply divide floor_divide negative positive exp expm1 log log1p log2 log10 "
        "sqrt square sin cos tan sinh cosh tanh floor ceil trunc sign isnan isinf isfinite maximum "
        "minimum equal not_equal less less_equal greater greater_equal logical_and logical_or "
        "logical_xor logical_not bitwise_and bitwise_or bitwise_xor hypot copysign logaddexp "
        "matmul where sum prod mean max min argmax argmin stack sort argsort all any "
        "reshape roll tile repeat clip"
    ).split()},
    "true_divide": "divide", "absolute": "abs", "arccos": "acos", "arcsin": "asin", "arctan": "atan",
    "arccosh": "acosh", "arcsinh": "asinh", "arctanh": "atanh", "arctan2": "atan2", "power": "pow",
    "invert": "bitwise_invert", "bitwise_not": "bitwise_invert", "left_shift": "bitwise_left_shift",
    "right_shift": "bitwise_right_shift", "remainder": "remainder", "mod": "remainder",
    "conjugate": "conj", "concatenate": "concat", "amax": "max", "amin": "min",
    "linalg.solve": "linalg.solve", "linalg.inv": "linalg.inv", "linalg.det": "linalg.det",
    "linalg.cholesky": "linalg.cholesky", "linalg.qr": "linalg.qr", "linalg.eigh": "linalg.eigh",
    "fft.fft": "fft.fft", "fft.ifft": "fft.ifft", "fft.rfft": "fft.rfft", "fft.irfft": "fft.irfft",
}  # fmt: skip


# -- NumPy -----------------------------------------------------------------------


def __array__(self: UnifiedArray, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
    host = native_on(self, CPU, "__array__")
    if dtype is not None and np.dtype(dtype) != host.dtype:
        if copy is False:
            raise ValueError("__array__(copy=False) with a different dtype needs a copy")
        return host.astype(dtype)
    if copy:
        return np.array(host, copy=True)
    view = host.view()
    view.flags.writeable = False
    return view


def _numpy_name(func: Any) -> str:
    mod = getattr(func, "__module__", "") or ""
    name = getattr(func, "__name__", "")
    for sub in ("linalg", "fft"):
        if mod.endswith(sub) or mod.endswith(f"{sub}._linalg") or f".{sub}" in mod:
            return f"{sub}.{name}"
    return name


def _to_unified(obj: Any) -> Any:
    """ndarrays among the arguments are host data: make them UnifiedArrays."""
    if type(obj) is np.ndarray:
        return _wrap(np.array(obj, copy=True), CPU)
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to_unified(o) for o in obj)
    return obj


def _leaves(obj: Any, keep: Any, out: list) -> None:
    """Append to ``out`` the leaves of nested lists, tuples and dicts for
    which ``keep(leaf)`` is true."""
    if isinstance(obj, (list, tuple)):
        for o in obj:
            _leaves(o, keep, out)
    elif isinstance(obj, dict):
        for o in obj.values():
            _leaves(o, keep, out)
    elif keep(obj):
        out.append(obj)


def _collect(obj: Any, found: list) -> None:
    _leaves(obj, lambda o: type(o) is UnifiedArray, found)


def _natives(obj: Any, dev: Device, reason: str) -> Any:
    if type(obj) is UnifiedArray:
        native = native_on(obj, dev, reason)
        if dev == CPU:
            # Read-only, as __array__ hands out: a NumPy function that writes
            # into an argument it was not known to write (those are in
            # _WRITES_FIRST) fails loudly instead of leaving the buffer's
            # other copies stale.
            native = native.view()
            native.flags.writeable = False
        return native
    if isinstance(obj, (list, tuple)):
        return type(obj)(_natives(o, dev, reason) for o in obj)
    if isinstance(obj, dict):
        return {k: _natives(v, dev, reason) for k, v in obj.items()}
    return obj


def _wrap_any(res: Any, dev: Device, inputs: Any) -> Any:
    """Wrap a NumPy-level result; results that are views of the inputs
    (np.reshape, np.transpose, ...) get memory of their own, as everywhere."""
    from ._array import _wrap_result

    flat: list = []
    _leaves(inputs, lambda o: hasattr(o, "shape"), flat)
    return _wrap_result(res, dev, flat)


# NumPy functions that write into their first argument (and return None, or
# that argument).  Run on a UnifiedArray, they write through its buffer: any
# other way would leave the buffer's other copies stale.
_WRITES_FIRST = frozenset("copyto fill_diagonal put put_along_axis place putmask".split())


def _writes_first(name: str, args: tuple, kwargs: dict) -> bool:
    if name in _WRITES_FIRST or name.endswith(".at"):  # ufunc.at(a, indices, b) writes into a
        return True
    if name == "nan_to_num":  # nan_to_num(x, copy=True, ...) writes into x when copy is false
        return not kwargs.get("copy", args[1] if len(args) > 1 else True)
    return False


def _run_in_place(name: str, host_call: Any, args: tuple, kwargs: dict, reason: str) -> Any:
    """Run a NumPy function that writes into ``args[0]`` on the host.  NumPy's
    own array as the target is written itself.  A host-placed UnifiedArray is
    written in place, through a lease of its host copy (a counted write:
    every other copy becomes stale); any other (on a device, or a view NumPy
    cannot express) is written on a host copy of its data, which then goes
    back through the buffer, its moves counted.  The other arguments are
    host data."""
    target = args[0]
    dev = target._buf._placement if type(target) is UnifiedArray else CPU
    why = reason if dev == CPU else f"host fallback: {reason}"
    nat_rest, nat_kw = _natives(_to_unified(args[1:]), CPU, why), _natives(_to_unified(kwargs), CPU, why)
    if type(target) is not UnifiedArray:
        return host_call(target, *nat_rest, **nat_kw)
    if dev == CPU:
        try:
            handle = writable_native(target, CPU, reason)
        except BufferError:
            pass  # a strided reshape: no host view of it to write into
        else:
            res = host_call(handle, *nat_rest, **nat_kw)
            return target if res is handle else res
    work = np.array(native_on(target, CPU, why), copy=True)
    res = host_call(work, *nat_rest, **nat_kw)
    _write(target, Ellipsis, native_on(_wrap(work, CPU), dev, why), why)
    return target if res is work else res


def _run_numpy_call(name: str, host_call: Any, args: tuple, kwargs: dict, reason: str) -> Any:
    """Run a NumPy-level call where its UnifiedArray arguments live."""
    if (
        args
        and (type(args[0]) is UnifiedArray or isinstance(args[0], np.ndarray))
        and _writes_first(name, args, kwargs)
    ):
        return _run_in_place(name, host_call, args, kwargs, reason)
    out = kwargs.pop("out", None)
    args, kwargs = _to_unified(args), _to_unified(kwargs)
    found: list[UnifiedArray] = []
    _collect(args, found)
    _collect(kwargs, found)
    dev = placement_of(found, reason) if found else CPU
    result: Any = None
    if dev.kind == "cuda":
        import cupy

        fn: Any = cupy
        for part in name.split("."):
            fn = getattr(fn, part, None)
            if fn is None:
                break
        if fn is not None:
            with cupy.cuda.Device(dev.index):
                nat_args, nat_kwargs = _natives(args, dev, reason), _natives(kwargs, dev, reason)
                try:
                    result = _wrap_any(fn(*nat_args, **nat_kwargs), dev, (nat_args, nat_kwargs))
                except (TypeError, NotImplementedError):
                    # NumPy-only keywords CuPy refuses (where=, initial=, ...):
                    # the host does it, as on MLX.
                    result = None
    elif dev.kind == "mlx" and name in MLX_EQUIVALENTS:
        from . import _array

        target = MLX_EQUIVALENTS[name]
        try:
            result = _array.dispatch(target, args, kwargs, reason=reason)
        except TypeError:
            result = None  # NumPy-only keywords (ddof=, ...): the host does it
    if result is None:
        why = reason if dev == CPU else f"host fallback: numpy.{name}"
        nat_args, nat_kwargs = _natives(args, CPU, why), _natives(kwargs, CPU, why)
        result = _wrap_any(host_call(*nat_args, **nat_kwargs), CPU, (nat_args, nat_kwargs))
        if dev != CPU:
            result = _send_back(result, dev, why)
    if out is None:
        return result
    outs = out if isinstance(out, tuple) else (out,)
    results = result if isinstance(result, tuple) else (result,)
    for o, r in zip(outs, results):
        if type(o) is UnifiedArray:
            _write(o, Ellipsis, native_on(r, o.device, reason) if type(r) is UnifiedArray else r, reason)
        else:
            np.copyto(o, np.asarray(r))
    return out if isinstance(out, tuple) and len(outs) > 1 else outs[0]


def __array_ufunc__(self: UnifiedArray, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
    if method != "__call__" or kwargs.get("where") is not None:
        # reduce/accumulate/at and masked calls: NumPy on the host, counted.
        host_call = getattr(ufunc, method)
        name = f"{ufunc.__name__}.{method}"
        return _run_numpy_call(name, host_call, inputs, kwargs, f"numpy.{name}")
    return _run_numpy_call(ufunc.__name__, ufunc, inputs, kwargs, f"numpy.{ufunc.__name__}")


def __array_function__(self: UnifiedArray, func: Any, types: Any, args: tuple, kwargs: dict) -> Any:
    if not all(issubclass(t, (UnifiedArray, np.ndarray)) for t in types):
        return NotImplemented
    name = _numpy_name(func)
    if name in _NUMPY_VIEWS and args and type(args[0]) is UnifiedArray:
        view = _NUMPY_VIEWS[name](*args, **kwargs)
        if view is not None:
            return view
    return _run_numpy_call(name, func, args, dict(kwargs), f"numpy.{name}")


# NumPy's functions that return views, answered with views of the buffer
# (as NumPy's arrays answer them), on every backend.  Each returns None for
# what it does not cover (another order=, copy=True), which then runs as any
# other NumPy call does: on a copy.
def _np_reshape(a: Any, shape: Any = None, order: str = "C", *, newshape: Any = None, copy: Any = None) -> Any:
    if order != "C" or copy:
        return None
    return _functions().reshape(a, shape if shape is not None else newshape)


def _np_ravel(a: Any, order: str = "C") -> Any:
    return _functions().reshape(a, (-1,)) if order == "C" else None


def _np_transpose(a: Any, axes: Any = None) -> Any:
    if axes is None:
        return _functions().permute_dims(a, tuple(range(a.ndim))[::-1])
    axes = (axes,) if isinstance(axes, (int, np.integer)) else tuple(axes)
    return _functions().permute_dims(a, tuple(_np_axis(ax, a.ndim) for ax in axes))


def _np_swapaxes(a: Any, axis1: int, axis2: int) -> Any:
    axes = list(range(a.ndim))
    i, j = _np_axis(axis1, a.ndim), _np_axis(axis2, a.ndim)
    axes[i], axes[j] = axes[j], axes[i]
    return _functions().permute_dims(a, tuple(axes))


def _np_squeeze(a: Any, axis: Any = None) -> Any:
    if axis is None:  # NumPy's default: every singleton axis
        axis = tuple(i for i, d in enumerate(a.shape) if d == 1)
    return _functions().squeeze(a, axis)


def _np_axis(axis: Any, ndim: int) -> int:
    """An axis as NumPy checks it (``AxisError``, an IndexError and a ValueError)."""
    ax = operator.index(axis)
    if not -ndim <= ax < ndim:
        raise np.exceptions.AxisError(ax, ndim)
    return ax % ndim if ndim else ax


def _functions() -> Any:
    from . import _functions as f

    return f


_NUMPY_VIEWS: dict[str, Any] = {
    "reshape": _np_reshape,
    "ravel": _np_ravel,
    "transpose": _np_transpose,
    "permute_dims": _np_transpose,
    "swapaxes": _np_swapaxes,
    "matrix_transpose": lambda x: x.mT,
    "squeeze": _np_squeeze,
    "expand_dims": lambda a, axis: _functions().expand_dims(a, axis),
    "flip": lambda m, axis=None: _functions().flip(m, axis=axis),
    "flipud": lambda m: _flip_axis(m, 0, "flipud", 1),
    "fliplr": lambda m: _flip_axis(m, 1, "fliplr", 2),
}


def _flip_axis(m: Any, axis: int, name: str, min_ndim: int) -> Any:
    if m.ndim < min_ndim:
        raise ValueError(f"{name}: input must be at least {min_ndim}-d")
    return _functions().flip(m, axis=axis)


# -- DLPack ------------------------------------------------------------------------


def __dlpack__(
    self: UnifiedArray,
    *,
    stream: Any = None,
    max_version: tuple[int, int] | None = None,
    dl_device: tuple[int, int] | None = None,
    copy: bool | None = None,
) -> Any:
    dev = self.device
    kwargs: dict[str, Any] = {"max_version": max_version, "dl_device": dl_device, "copy": copy}
    versioned = max_version is not None and tuple(max_version) >= (1, 0)
    if dl_device is not None and tuple(dl_device) == tuple(__dlpack_device__(self)):
        dl_device = None  # already there (MLX's CPU build lives in host memory)
    if dl_device is not None and dl_device[0] == 1 and dev != CPU:
        # The consumer wants the data on the CPU: that is a copy.
        if copy is False:
            raise BufferError(f"__dlpack__: data lives on {dev}; a CPU export needs copy=True or None")
        host = np.array(native_on(self, CPU, "__dlpack__"), copy=True)
        return host.__dlpack__(max_version=max_version, copy=False)
    if dev == CPU:
        host = native_on(self, CPU, "__dlpack__")
        if copy or (copy is None and not versioned):
            # A copy (asked for, or the standard's choice under copy=None for a
            # legacy consumer, which cannot be told "read-only").
            return np.array(host, copy=True).__dlpack__(stream=stream, **_legacy_safe(kwargs, versioned))
        if versioned:
            view = host.view()
            view.flags.writeable = False  # exported with DLPack's read-only flag
            return view.__dlpack__(stream=stream, **kwargs)
        # copy=False from a legacy consumer: the export is a lease (a write).
        return writable_native(self, CPU, "__dlpack__").__dlpack__(stream=stream)
    if dev == MLX and copy is not False:
        # MLX's exports carry no read-only flag; a copy keeps the buffer safe
        # from a consumer that writes, and MLX's own import copies anyway.
        native = backend_for(MLX).copy(native_on(self, MLX, "__dlpack__"))  # type: ignore[attr-defined]
        return native.__dlpack__()
    if max_version is not None:
        kwargs["max_version"] = tuple(max_version)  # CuPy declares a tuple
    if copy:
        import cupy

        with cupy.cuda.Device(dev.index):
            native = native_on(self, dev, "__dlpack__").copy()
        # Our copy is exported as it is: CuPy refuses copy=True for a same-
        # device export ("only supported for copy to CPU").
        kwargs["copy"] = None
    else:
        native = writable_native(self, dev, "__dlpack__")  # zero-copy on CUDA: the consumer may write
    if dev.kind == "cuda":
        return backend_for(dev).export_dlpack(native, stream, kwargs)  # type: ignore[attr-defined]
    try:
        return native.__dlpack__(stream=stream, **kwargs)
    except TypeError:  # producers that predate the 2023.12 keywords
        return native.__dlpack__(stream=stream) if stream is not None else native.__dlpack__()


def _legacy_safe(kwargs: dict[str, Any], versioned: bool) -> dict[str, Any]:
    """NumPy's exporter takes the 2023.12 keywords; a copy needs no copy=."""
    out = dict(kwargs)
    out["copy"] = None
    return out if versioned else {}


def __dlpack_device__(self: UnifiedArray) -> tuple[int, int]:
    dev = self.device
    if dev == CPU:
        return (1, 0)
    if dev.kind == "cuda":
        return (2, dev.index)
    buf = self._buf
    native = buf._copies.get(dev)
    if native is None:
        native = native_on(self, dev, "__dlpack_device__")
    return tuple(native.__dlpack_device__())  # type: ignore[return-value]


# -- CUDA and MLX --------------------------------------------------------------------


def _cuda_native(self: UnifiedArray, reason: str) -> Any:
    if self.device.kind != "cuda":
        raise AttributeError(f"{reason}: this array lives on {self.device}, not on a CUDA device")
    return writable_native(self, self.device, reason)  # a raw pointer goes out: presume a write


def _cuda_array_interface(self: UnifiedArray) -> dict[str, Any]:
    """Version 3 of the CUDA Array Interface, from CuPy's own export (made on
    the array's GPU, so its ``stream`` key names that GPU's stream).

    A read, not a write: CuPy, Numba and PyTorch probe for the attribute
    with ``hasattr`` and take it for read-only use, and a probe is not a
    write.  The export says so (the read-only flag in ``data``); to write
    through a raw pointer, take ``__cupy_get_ndarray__()`` (a write) or
    declare the write with ``mark_device_dirty()``."""
    dev = self.device
    if dev.kind != "cuda":
        raise AttributeError(f"__cuda_array_interface__: this array lives on {dev}, not on a CUDA device")
    native = native_on(self, dev, "__cuda_array_interface__")
    return backend_for(dev).cuda_array_interface(native)  # type: ignore[attr-defined]


def __cupy_get_ndarray__(self: UnifiedArray) -> Any:
    return _cuda_native(self, "__cupy_get_ndarray__")


def __mlx_array__(self: UnifiedArray) -> Any:
    native = native_on(self, MLX, "__mlx_array__")
    return backend_for(MLX).detach(native)  # type: ignore[attr-defined]


# -- conversions, pickling, dask -----------------------------------------------------


def to_numpy(self: UnifiedArray) -> np.ndarray:
    """The data on the host, as a read-only NumPy view (synced if stale).

    >>> import unifiedarray as xp
    >>> xp.arange(3).to_numpy()
    array([0, 1, 2])
    """
    return __array__(self)


def tolist(self: UnifiedArray) -> Any:
    """The data as nested Python lists (scalars for a 0-d array)."""
    return native_on(self, CPU, "tolist").tolist()


def _rebuild(data: np.ndarray, device: str) -> UnifiedArray:
    from ._creation import asarray

    try:
        backend_for(device)
    except ValueError:
        device = "cpu"  # the device is not on this machine: restore on the host
    return asarray(data, device=device)


def __reduce__(self: UnifiedArray) -> tuple:
    return (_rebuild, (np.array(native_on(self, CPU, "pickle"), copy=True), str(self.device)))


def __dask_tokenize__(self: UnifiedArray) -> tuple:
    buf = self._buf
    return ("unifiedarray", id(buf), buf._version, self._key, str(self.dtype), self._shape)


# NumPy-style methods (``x.sum()``, ``x.reshape(...)``), as CuPy's arrays have
# them: each calls the NumPy function of that name, which dispatches through
# __array_function__, so it runs on the device where the array lives.
NUMPY_METHODS = (
    "all any argmax argmin argpartition argsort clip conj conjugate cumprod cumsum diagonal dot max "
    "mean min nonzero prod put ravel repeat reshape round searchsorted squeeze std sum swapaxes take "
    "trace transpose var"
).split()


# NumPy's in-place methods and the attributes NumPy code reads (CuPy's arrays
# have them too).  The in-place ones write through __setitem__, so through
# the buffer.
def fill(self: UnifiedArray, value: Any) -> None:
    """Set every element to ``value``, in place (``ndarray.fill``)."""
    self[...] = value


def sort(self: UnifiedArray, axis: int = -1, kind: str | None = None) -> None:
    """Sort in place along ``axis`` (``ndarray.sort``), where ``x`` lives
    (``kind=``, which only NumPy takes, sends the sort to the host)."""
    self[...] = np.sort(self, axis=axis) if kind is None else np.sort(self, axis=axis, kind=kind)


def partition(self: UnifiedArray, kth: Any, axis: int = -1) -> None:
    """Partition in place (``ndarray.partition``)."""
    self[...] = np.partition(self, kth, axis=axis)


def flatten(self: UnifiedArray) -> UnifiedArray:
    """A flat copy (``ndarray.flatten``; ``ravel`` and ``reshape`` give views)."""
    from ._functions import astype, reshape

    return astype(reshape(self, (-1,)), self.dtype, copy=True)


def tobytes(self: UnifiedArray, order: str = "C") -> bytes:
    """The data's bytes, from the host copy (synced if stale)."""
    return native_on(self, CPU, "tobytes").tobytes(order)


_NUMPY_ATTRIBUTES = {
    "real": property(lambda self: np.real(self), doc="The real part (a new array), as ``np.real``."),
    "imag": property(lambda self: np.imag(self), doc="The imaginary part (zeros for real dtypes), as ``np.imag``."),
    "itemsize": property(lambda self: self.dtype.itemsize, doc="Bytes per element."),
}


def _numpy_method(name: str) -> Any:
    func = getattr(np, name)

    def method(self: UnifiedArray, *args: Any, **kwargs: Any) -> Any:
        if name in ("reshape", "transpose") and len(args) > 1:
            args = (args,)  # x.reshape(2, 3) as NumPy allows
        return func(self, *args, **kwargs)

    method.__name__ = name
    method.__doc__ = f"``numpy.{name}(x, ...)``, run where ``x`` lives."
    return method


def astype_method(self: UnifiedArray, dtype: Any, copy: bool = True, **_: Any) -> UnifiedArray:
    """``x.astype(dtype)``, as NumPy and CuPy arrays have it."""
    from ._functions import astype

    return astype(self, np.dtype(dtype), copy=copy)


def copy_method(self: UnifiedArray) -> UnifiedArray:
    """A copy of ``x`` on the same device."""
    from ._functions import astype

    return astype(self, self.dtype, copy=True)


def item(self: UnifiedArray, *args: Any) -> Any:
    """One element as a Python scalar (like ``ndarray.item``)."""
    return native_on(self, CPU, "item").item(*args)


# Python protocols NumPy's arrays answer and the standard does not name:
# without them `1.0 in x`, `f"{loss:.4f}"`, `round(x)` and `divmod(x, 2)`
# fail on code written for NumPy.
def __contains__(self: UnifiedArray, value: Any) -> bool:
    """``value in x``: whether any element equals ``value`` (as NumPy)."""
    import unifiedarray

    return bool(unifiedarray.any(self == value))


def __format__(self: UnifiedArray, spec: str) -> str:
    """A 0-d array formats as its element (``f"{loss:.4f}"``); any array
    formats as its ``str`` with an empty spec."""
    if not self._shape:
        return format(self._scalar("__format__"), spec)
    if spec:
        raise TypeError(f"unsupported format string {spec!r} for a {self.ndim}-d UnifiedArray")
    return str(self)


def __round__(self: UnifiedArray, ndigits: int | None = None) -> Any:
    """``round(x)``: a Python number for a 0-d array (as Python's round of
    its element), else the array rounded elementwise (NumPy's rules)."""
    if not self._shape:
        return round(self._scalar("__round__"), ndigits)
    return np.round(self, 0 if ndigits is None else ndigits)


def __divmod__(self: UnifiedArray, other: Any) -> Any:
    return self // other, self % other


def __rdivmod__(self: UnifiedArray, other: Any) -> Any:
    return other // self, other % self


def install() -> None:
    for name, fn in {
        "__array__": __array__,
        "__array_ufunc__": __array_ufunc__,
        "__array_function__": __array_function__,
        "__dlpack__": __dlpack__,
        "__dlpack_device__": __dlpack_device__,
        "__cupy_get_ndarray__": __cupy_get_ndarray__,
        "__mlx_array__": __mlx_array__,
        "to_numpy": to_numpy,
        "tolist": tolist,
        "__reduce__": __reduce__,
        "__dask_tokenize__": __dask_tokenize__,
        "astype": astype_method,
        "copy": copy_method,
        "item": item,
        "fill": fill,
        "sort": sort,
        "partition": partition,
        "flatten": flatten,
        "tobytes": tobytes,
        **_NUMPY_ATTRIBUTES,
        "__contains__": __contains__,
        "__format__": __format__,
        "__round__": __round__,
        "__divmod__": __divmod__,
        "__rdivmod__": __rdivmod__,
        **{n: _numpy_method(n) for n in NUMPY_METHODS},
    }.items():
        setattr(UnifiedArray, name, fn)
    UnifiedArray.__cuda_array_interface__ = property(_cuda_array_interface)  # type: ignore[attr-defined]


install()
