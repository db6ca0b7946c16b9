"""Creation functions (Array API chapter "Creation Functions").

Placement: an explicit ``device=`` wins, then the device of an input array
(``*_like``, ``tril``/``triu``, ``meshgrid``), then the default device
(:mod:`unifiedarray._policy`).

Default dtypes are decided here, once, and passed to every backend
explicitly, so that ``zeros(3)`` is float64 on every device (MLX would pick
float32 on its own).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import _calls, _intake, _placement, _results, _rules
from ._array import UnifiedArray, from_buffer, python_scalar
from ._buffer import UnifiedBuffer, upload_new
from ._devices import CPU, Device, DeviceLike
from ._dtypes import PYTHON_TYPES, as_dtype, default_complex, default_float
from ._foreign import host_data
from .backends import all_backends, backend_for, backend_of_native

__all__ = [
    "arange", "asarray", "empty", "empty_like", "eye", "from_dlpack", "full", "full_like",
    "linspace", "meshgrid", "ones", "ones_like", "tril", "triu", "zeros", "zeros_like",
]  # fmt: skip


def _device(device: DeviceLike | None, like: UnifiedArray | None = None) -> Device:
    return _placement.placement(device, () if like is None else (like,))


def _dtype_or(dtype: Any, default: np.dtype, dev: Device = CPU) -> np.dtype:
    return default if dtype is None else as_dtype(dtype, dev)


# On the host, the creation functions whose array-api-compat wrapper only
# checks device= (which _device has done) and passes the rest on: NumPy's own,
# without the wrapper's cost on every call.
_HOST_CREATE: dict[str, Callable[..., Any]] = {"zeros": np.zeros, "ones": np.ones, "full": np.full}


def _create(name: str, dev: Device, *args: Any, **kwargs: Any) -> UnifiedArray:
    if dev is CPU:  # every dtype is a host dtype: nothing to check
        fn = _HOST_CREATE.get(name)
        if fn is not None:
            return _results.wrap_result(fn(*args, **kwargs), CPU)
    backend_for(dev).check_dtype(kwargs["dtype"], dev, name)
    return _calls.call_mixed(name, args, kwargs, device=dev)


def zeros(shape: Any, *, dtype: Any = None, device: DeviceLike | None = None) -> UnifiedArray:
    """An array of zeros.

    >>> import unifiedarray as xp
    >>> xp.zeros((2,)).dtype
    dtype('float64')
    """
    dev = _device(device)
    return _create("zeros", dev, shape, dtype=_dtype_or(dtype, default_float(dev), dev))


def ones(shape: Any, *, dtype: Any = None, device: DeviceLike | None = None) -> UnifiedArray:
    """An array of ones.

    >>> import unifiedarray as xp
    >>> xp.ones(2, dtype=xp.int32).tolist()
    [1, 1]
    """
    dev = _device(device)
    return _create("ones", dev, shape, dtype=_dtype_or(dtype, default_float(dev), dev))


def empty(shape: Any, *, dtype: Any = None, device: DeviceLike | None = None) -> UnifiedArray:
    """An array whose contents are unspecified (zeros here: never another
    buffer's leftovers)."""
    dev = _device(device)
    return _create("zeros", dev, shape, dtype=_dtype_or(dtype, default_float(dev), dev))


def full(shape: Any, fill_value: Any, *, dtype: Any = None, device: DeviceLike | None = None) -> UnifiedArray:
    """An array filled with ``fill_value``: a Python scalar (its kind's
    default dtype), a NumPy scalar or a 0-d array (its own dtype, as in
    NumPy), unless ``dtype`` is given.

    >>> import unifiedarray as xp
    >>> xp.full(2, 7).dtype
    dtype('int64')
    >>> xp.full(2, xp.asarray(1.5, dtype=xp.float32)).dtype
    dtype('float32')
    """
    dev = _device(device)
    if type(fill_value) is UnifiedArray:
        # A 0-d array (not the standard's, but common) keeps its dtype, as
        # in NumPy: never a silent float32 -> float64.
        if dtype is None:
            dtype = fill_value.dtype
        fill_value = python_scalar(fill_value, "full")
    dt = _rules.scalar_dtype(fill_value, dev, "full") if dtype is None else as_dtype(dtype, dev)
    if isinstance(fill_value, np.generic) and not _rules.is_strict():
        fill_value = fill_value.item()  # a NumPy scalar's value (NumPy's full takes it), as the rules take values
    return _create("full", dev, shape, _rules.fill_value(dt, fill_value, "full"), dtype=dt)


def eye(
    n_rows: int,
    n_cols: int | None = None,
    /,
    *,
    k: int = 0,
    dtype: Any = None,
    device: DeviceLike | None = None,
) -> UnifiedArray:
    """The identity-like matrix with ones on diagonal ``k``."""
    dev = _device(device)
    return _create("eye", dev, n_rows, n_cols, k=k, dtype=_dtype_or(dtype, default_float(dev), dev))


def arange(
    start: Any,
    /,
    stop: Any = None,
    step: Any = 1,
    *,
    dtype: Any = None,
    device: DeviceLike | None = None,
) -> UnifiedArray:
    """Evenly spaced values in ``[start, stop)``.

    >>> import unifiedarray as xp
    >>> xp.arange(3).tolist()
    [0, 1, 2]
    """
    dev = _device(device)
    start, stop, step = (_bound(v, "arange")[0] for v in (start, stop, step))  # NumPy reads their values alone
    dt = _rules.arange_dtype(start, stop, step, dev) if dtype is None else as_dtype(dtype, dev)
    _rules.arange_plan(start, stop, step, dt)  # the rules' errors, before any backend (each device computes the plan)
    return _create("arange", dev, start, stop, step, dtype=dt)


def linspace(
    start: Any,
    stop: Any,
    /,
    num: int,
    *,
    dtype: Any = None,
    device: DeviceLike | None = None,
    endpoint: bool = True,
) -> UnifiedArray:
    """``num`` evenly spaced values from ``start`` to ``stop``."""
    dev = _device(device)
    (start, start_dtype), (stop, stop_dtype) = _bound(start, "linspace"), _bound(stop, "linspace")
    default = _rules.linspace_dtype(start, stop, dev)  # the bounds checked, given a dtype or not
    if dtype is None and (start_dtype is not None or stop_dtype is not None):
        # NumPy's: the bounds' own dtypes with a float (result_type(start, stop, float(num))).
        dtype = np.result_type(*[d for d in (start_dtype, stop_dtype) if d is not None], 1.0)
    dtype = default if dtype is None else as_dtype(dtype, dev)
    start, stop = _rules.linspace_bounds(start, stop, dtype)
    return _create("linspace", dev, start, stop, num, dtype=as_dtype(dtype, dev), endpoint=endpoint)


def _bound(value: Any, name: str) -> tuple[Any, np.dtype | None]:
    """A bound of ``arange`` or ``linspace`` given in NumPy's forms beyond
    the standard's Python scalars (a NumPy scalar, a 0-d array: refused in
    strict mode, as array-api-strict refuses them), as its Python value and
    its dtype; a Python scalar as it is, with None.  A 0-d array's element
    is read (on a device, a counted read of its bytes)."""
    if isinstance(value, PYTHON_TYPES) or value is None or _rules.is_strict():
        return value, None
    if type(value) is UnifiedArray:
        return python_scalar(value, name), value.dtype
    if _intake.is_numpy_number(value):
        return value.item(), value.dtype
    return value, None


def _like(name: str, x: UnifiedArray, dtype: Any, device: DeviceLike | None, shape: Any, *args: Any) -> UnifiedArray:
    """``zeros_like`` and its kind.  ``shape=`` is NumPy's (the result's
    shape instead of x's): a NumPy extension, not in the 2025.12 standard
    (refused inside ``unifiedarray.strict()``)."""
    if type(x) is not UnifiedArray:
        raise TypeError(f"{name} expects a UnifiedArray, got {type(x).__name__}")
    if shape is not None:
        _rules.outside_standard(f"{name}(shape=...)")
    dev = _device(device, x)
    dt = x.dtype if dtype is None else as_dtype(dtype, dev)
    return _create(name.replace("_like", ""), dev, x.shape if shape is None else shape, *args, dtype=dt)


def zeros_like(
    x: UnifiedArray, /, *, dtype: Any = None, device: DeviceLike | None = None, shape: Any = None
) -> UnifiedArray:
    """Zeros with the shape (and by default dtype and device) of ``x``
    (NumPy's ``shape=`` another shape, outside strict mode).

    >>> import unifiedarray as xp
    >>> xp.zeros_like(xp.ones(2), shape=(3,)).shape
    (3,)
    """
    return _like("zeros_like", x, dtype, device, shape)


def ones_like(
    x: UnifiedArray, /, *, dtype: Any = None, device: DeviceLike | None = None, shape: Any = None
) -> UnifiedArray:
    """Ones with the shape (and by default dtype and device) of ``x``
    (NumPy's ``shape=`` another shape, outside strict mode)."""
    return _like("ones_like", x, dtype, device, shape)


def empty_like(
    x: UnifiedArray, /, *, dtype: Any = None, device: DeviceLike | None = None, shape: Any = None
) -> UnifiedArray:
    """Like ``empty``, shaped like ``x`` (NumPy's ``shape=`` another shape,
    outside strict mode)."""
    return _like("zeros_like", x, dtype, device, shape)


def full_like(
    x: UnifiedArray,
    /,
    fill_value: Any,
    *,
    dtype: Any = None,
    device: DeviceLike | None = None,
    shape: Any = None,
) -> UnifiedArray:
    """``fill_value`` everywhere, shaped like ``x`` (NumPy's ``shape=``
    another shape, outside strict mode), converted to the result's dtype as
    the rules say (:func:`unifiedarray._rules.fill_value`).

    >>> import unifiedarray as xp
    >>> xp.full_like(xp.asarray([1, 2], dtype=xp.int16), 2.5).tolist()
    [2, 2]
    """
    if type(fill_value) is UnifiedArray:
        fill_value = python_scalar(fill_value, "full_like")
    if type(x) is not UnifiedArray:
        raise TypeError(f"full_like expects a UnifiedArray, got {type(x).__name__}")
    dt = x.dtype if dtype is None else as_dtype(dtype, _device(device, x))
    return _like("full_like", x, dt, device, shape, _rules.fill_value(dt, fill_value, "full_like"))


def tril(x: UnifiedArray, /, *, k: int = 0) -> UnifiedArray:
    """The lower triangle of the last two axes."""
    return _calls.call("tril", (x,), {"k": k})


def triu(x: UnifiedArray, /, *, k: int = 0) -> UnifiedArray:
    """The upper triangle of the last two axes."""
    return _calls.call("triu", (x,), {"k": k})


def meshgrid(*arrays: UnifiedArray, indexing: str = "xy") -> tuple[UnifiedArray, ...]:
    """Coordinate matrices from coordinate vectors.  Strict mode refuses
    vectors of different dtypes (array-api-strict's ``ValueError``; the
    default mode promotes them, as NumPy does)."""
    if _rules.is_strict() and len({getattr(a, "dtype", None) for a in arrays}) > 1:
        raise ValueError("meshgrid: inputs must all have the same dtype in strict mode")
    return tuple(_calls.call_mixed("meshgrid", arrays, {"indexing": indexing}))


def asarray(
    obj: Any,
    /,
    *,
    dtype: Any = None,
    device: DeviceLike | None = None,
    copy: bool | None = None,
) -> UnifiedArray:
    """Convert ``obj`` (a UnifiedArray, a NumPy/CuPy/MLX array, a nested
    sequence of scalars, a scalar, or a buffer) to a UnifiedArray.

    Data from outside the library is always copied in: a buffer that shared
    memory with an array the library cannot watch could go stale.  Hence
    ``copy=False`` on such data is a ``ValueError``.  NumPy data in the
    other byte order (``>f8`` on a little-endian machine) comes in as the
    same dtype in native order: the same values, one of the standard's
    dtypes.

    >>> import unifiedarray as xp
    >>> xp.asarray([1, 2]).dtype
    dtype('int64')
    """
    tobj = type(obj)
    if (tobj is list or tobj is tuple) and dtype is None and device is None and copy is not False:
        dev = _placement.placement(None)
        if dev == CPU:
            # The commonest call, kept short: a list of numbers to the host.
            host = host_data(obj)
            if host.dtype.kind in "biuf" or host.dtype == np.complex128:
                return _results.adopt(host, CPU, host.dtype)
    dt = None if dtype is None else as_dtype(dtype)
    if tobj is UnifiedArray:
        return _asarray_own(obj, dt, device, copy)
    if isinstance(obj, UnifiedBuffer):
        # A buffer (one from the pool, say) is this library's own memory: the
        # array is its whole (no copy), and then as for any array.
        return _asarray_own(from_buffer(obj), dt, device, copy)
    if copy is False:
        raise ValueError(
            "asarray(copy=False) on data from outside unifiedarray: sharing memory the library "
            "cannot watch could serve stale data; use copy=None or True"
        )
    dev = _device(device)
    backend = None if tobj in (list, tuple, float, int, bool, complex, np.ndarray) else backend_of_native(obj)
    if backend is not None and backend.kind != CPU.kind and getattr(obj, "ndim", None) is not None:
        src_dev = backend.device_of(obj)
        with backend.compute_context(src_dev):
            out = _results.wrap_result(backend.copy(obj), src_dev)  # MLX arrays are values; CuPy copies on its GPU
        if dt is not None and out.dtype != dt:
            out = _calls.call("astype", (out, dt))
        return out.to_device(dev)
    host = _to_host_array(obj, dt, dev)
    backend_for(dev).check_dtype(host.dtype, dev, "asarray")
    if dev == CPU:
        if tobj is not list and tobj is not tuple and (host is obj or np.may_share_memory(host, obj)):
            host = host.copy()  # never alias memory the library cannot watch
        return _results.adopt(host, CPU, host.dtype)
    return from_buffer(upload_new(host, dev, "asarray", explicit=True))


def _to_host_array(obj: Any, dt: np.dtype | None, dev: Device) -> np.ndarray:
    if isinstance(obj, PYTHON_TYPES):
        if dt is None:
            dt = _rules.scalar_dtype(obj, dev)
            return np.asarray(_rules.element(dt, obj, "asarray"), dtype=dt)
        return np.asarray(obj, dtype=dt)
    if isinstance(obj, (list, tuple)):
        # UnifiedArrays nested in the sequence convert through __array__, read.
        arr = host_data(obj, dtype=dt)
        if dt is None:
            if arr.dtype == np.float64:
                arr = arr.astype(default_float(dev), copy=False)
            elif arr.dtype.kind == "c":
                arr = arr.astype(default_complex(dev), copy=False)
            elif arr.dtype.kind not in "biufc":
                raise TypeError(f"asarray: cannot make an array of {arr.dtype} from {type(obj).__name__}")
        return arr
    return _intake.standard_host(
        host_data(obj, dtype=dt), f"asarray: unsupported input {type(obj).__name__} (dtype {{dtype}})"
    )


def _asarray_own(x: UnifiedArray, dt: np.dtype | None, device: DeviceLike | None, copy: bool | None) -> UnifiedArray:
    dev = x.device if device is None else Device.parse(device)
    needs_copy = dev != x.device or (dt is not None and dt != x.dtype)
    if needs_copy and copy is False:
        raise ValueError("asarray(copy=False): a change of device or dtype needs a copy")
    out = x
    if dt is not None and dt != x.dtype:
        out = _calls.call("astype", (out, dt))
        copy = False if out is not x else copy
    if dev != out.device:
        out = out.to_device(dev)
        copy = False
    if copy:
        out = _calls.call("astype", (out, out.dtype), {"copy": True})
    return out


def from_dlpack(x: Any, /, *, device: DeviceLike | None = None, copy: bool | None = None) -> UnifiedArray:
    """Import an array from any DLPack producer (NumPy, CuPy, MLX, PyTorch,
    JAX).  The data is copied in, for the reason ``asarray`` gives."""
    if type(x) is UnifiedArray:
        return _asarray_own(x, None, device, copy)
    if copy is False:
        raise ValueError("from_dlpack(copy=False): unifiedarray always copies foreign data in")
    if not hasattr(x, "__dlpack__") or not hasattr(x, "__dlpack_device__"):
        raise TypeError(f"from_dlpack: {type(x).__name__} is not a DLPack producer (no __dlpack__)")
    backend = backend_of_native(x)
    if backend is not None:
        return asarray(x, device=device)
    kind, index = x.__dlpack_device__()
    if kind == 1:  # kDLCPU
        try:
            host = np.from_dlpack(x)
        except RuntimeError as exc:
            # NumPy before 2.5 raises RuntimeError for a tensor it cannot
            # import (a dtype, a device); 2.5, as the standard, BufferError.
            raise BufferError(f"from_dlpack: {exc}") from exc
        return asarray(host, device=device)
    for owner in all_backends():
        if owner.dlpack_device_type == kind:  # the backend that imports from its devices (kDLCUDA: CUDA's)
            where = Device(owner.kind, index) if owner.indexed else Device(owner.kind)
            return asarray(backend_for(where).import_dlpack(x, where), device=device)
    raise BufferError(f"from_dlpack: unsupported DLPack device type {kind}")
