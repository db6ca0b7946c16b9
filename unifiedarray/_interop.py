"""Protocols through which NumPy, CuPy, MLX, DLPack consumers, pickle and
dask take a :class:`~unifiedarray.UnifiedArray`.

What moves, and what is handed out:

* ``__array__`` (``np.asarray(x)``): the host copy, synced first if stale
  (counted), as a writable alias of ``x`` on every device, as NumPy users
  expect: a host write handed out through ``UnifiedBuffer._export_host``,
  so the buffer knows while it (or anything derived from it) is alive and
  keeps the host copy authoritative meanwhile (device reads re-sync from
  it, device writes are copied back to it: counted, ``"host alias: ..."``).
  Read-only only for a view NumPy cannot express (a copy of its data).
* ``__array_ufunc__`` / ``__array_function__``: NumPy functions run through
  the one dispatch (:mod:`unifiedarray._dispatch`) on the device where the
  array lives: NumPy on the host, CuPy on CUDA, and on MLX the standard's
  function of the same meaning (:data:`MLX_EQUIVALENTS`, NumPy's arguments
  mapped onto the standard's signature); anything else runs on the host, its
  moves counted, and its results are sent back.  ``out=`` is a tracked
  write.  An ``np.ndarray`` mixed with UnifiedArrays is taken as host data.
* ``__dlpack__``: the copy on the array's own device.  A host export is
  the alias ``np.asarray`` gives (writable; the buffer sees it) unless the
  consumer asks for a copy.  A zero-copy device export is a lease (a
  write); while a host alias may be alive it is refused (``copy=False``) or
  a copy (``copy=None``).
* ``__cuda_array_interface__`` / ``__cupy_get_ndarray__``: the CUDA copy.
* ``__mlx_array__``: the MLX copy, as a new handle (MLX's in-place writes
  rebind a handle, so the consumer cannot write into the buffer).
* pickling keeps dtype, shape, data and device (the host on load where the
  device does not exist); ``__dask_tokenize__`` names the buffer and its
  write version without touching data.
"""

from __future__ import annotations

import inspect
import sys
from typing import Any

import numpy as np

from . import _dask, _dispatch
from ._array import UnifiedArray
from ._devices import CPU, MLX, Device
from .backends import backend_for

# NumPy names whose meaning the standard's function of (maybe) another name
# shares; on MLX these run there, NumPy's arguments mapped onto the
# standard's signature.  (On CUDA, CuPy's function of the NumPy name runs.)
MLX_EQUIVALENTS: dict[str, str] = {
    **{n: n for n in (  # noqa: SIM905  # a table to read, not a list to scan
        "add subtract multiply divide floor_divide negative positive exp expm1 log log1p log2 log10 sqrt "
        "square sin cos tan sinh cosh tanh floor ceil trunc sign isnan isinf isfinite maximum minimum equal "
        "not_equal less less_equal greater greater_equal logical_and logical_or logical_xor logical_not "
        "bitwise_and bitwise_or bitwise_xor hypot copysign logaddexp matmul where sum prod mean std var max "
        "min argmax argmin stack all any roll tile repeat clip count_nonzero nonzero"
    ).split()},
    "true_divide": "divide", "absolute": "abs", "arccos": "acos", "arcsin": "asin", "arctan": "atan",
    "arccosh": "acosh", "arcsinh": "asinh", "arctanh": "atanh", "arctan2": "atan2", "power": "pow",
    "invert": "bitwise_invert", "bitwise_not": "bitwise_invert", "left_shift": "bitwise_left_shift",
    "right_shift": "bitwise_right_shift", "remainder": "remainder", "mod": "remainder",
    "conjugate": "conj", "concatenate": "concat", "amax": "max", "amin": "min",
    "linalg.solve": "linalg.solve", "linalg.inv": "linalg.inv", "linalg.det": "linalg.det",
    "linalg.cholesky": "linalg.cholesky", "linalg.eigh": "linalg.eigh",
    "linalg.svd": "linalg.svd",
    "fft.fft": "fft.fft", "fft.ifft": "fft.ifft", "fft.rfft": "fft.rfft", "fft.irfft": "fft.irfft",
}  # fmt: skip

# NumPy's parameter names that the standard spells otherwise.
_RENAMES = {"a_min": "min", "a_max": "max", "ddof": "correction", "tup": "arrays", "reps": "repetitions"}


def namespace() -> Any:
    """The ``unifiedarray`` module: the namespace of every UnifiedArray."""
    return sys.modules["unifiedarray"]


# -- NumPy -----------------------------------------------------------------------


def array(x: UnifiedArray, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
    """``x.__array__``: see the module's docstring."""
    if dtype is not None and np.dtype(dtype) != x.dtype:
        if copy is False:
            raise ValueError("__array__(copy=False) with a different dtype needs a copy")
        return _dispatch.native_on(x, CPU, "__array__").astype(dtype)
    if copy:
        return np.array(_dispatch.native_on(x, CPU, "__array__"), copy=True)
    try:
        # On every device the same: a writable alias whose writes reach x
        # and which sees x's writes (the buffer knows it may be alive).
        return _dispatch.writable_native(x, CPU, "__array__")
    except BufferError:
        pass  # a view NumPy cannot express (a reshape of a strided slice): read-only below
    view = _dispatch.native_on(x, CPU, "__array__").view()
    view.flags.writeable = False
    return view


def astype(x: UnifiedArray, dtype: Any, copy: bool = True) -> UnifiedArray:
    """``x.astype(dtype)``: the namespace's ``astype``."""
    return namespace().astype(x, np.dtype(dtype), copy=copy)


def copy_of(x: UnifiedArray) -> UnifiedArray:
    """A copy of ``x`` on its device."""
    return namespace().astype(x, x.dtype, copy=True)


def imag(x: UnifiedArray) -> UnifiedArray:
    """The imaginary part; zeros of x's dtype for a real array (``np.imag``)."""
    if x.dtype.kind == "c":
        return _dispatch.call("imag", (x,))
    return _dispatch.call("zeros_like", (x,))


def _numpy_name(func: Any) -> str:
    mod = getattr(func, "__module__", "") or ""
    name = getattr(func, "__name__", "")
    for sub in ("linalg", "fft"):
        if mod.endswith(sub) or mod.endswith(f"{sub}._linalg") or f".{sub}" in mod:
            return f"{sub}.{name}"
    return name


def _to_unified(obj: Any) -> Any:
    """ndarrays among the arguments are host data: make them UnifiedArrays."""
    if type(obj) is np.ndarray and obj.dtype.kind in "biufc":
        return _dispatch.adopted(*_dispatch.host_data(obj, "NumPy data"))
    if isinstance(obj, list | tuple):
        return type(obj)(_to_unified(o) for o in obj)
    if isinstance(obj, dict):
        return {k: _to_unified(v) for k, v in obj.items()}
    return obj


def _leaves(obj: Any, keep: Any, out: list) -> None:
    """Append to ``out`` the leaves of nested lists, tuples and dicts for
    which ``keep(leaf)`` is true."""
    if isinstance(obj, list | tuple):
        for o in obj:
            _leaves(o, keep, out)
    elif isinstance(obj, dict):
        for o in obj.values():
            _leaves(o, keep, out)
    elif keep(obj):
        out.append(obj)


def _natives(obj: Any, dev: Device, reason: str) -> Any:
    if type(obj) is UnifiedArray:
        native = _dispatch.native_on(obj, dev, reason)
        if dev is CPU:
            # Read-only: a NumPy function that writes into an argument it was
            # not known to write (those are in _WRITES_FIRST) fails loudly
            # instead of leaving the buffer's other copies stale.
            native = native.view()
            native.flags.writeable = False
        return native
    if isinstance(obj, list | tuple):
        return type(obj)(_natives(o, dev, reason) for o in obj)
    if isinstance(obj, dict):
        return {k: _natives(v, dev, reason) for k, v in obj.items()}
    return obj


def _wrap_any(res: Any, dev: Device, inputs: Any) -> Any:
    """Wrap a NumPy-level result; results that are views of the inputs get
    memory of their own, as everywhere."""
    flat: list = []
    _leaves(inputs, lambda o: hasattr(o, "shape"), flat)
    return _dispatch.wrap_result(res, dev, flat)


# NumPy functions that write into their first argument (and return None, or
# that argument).  Run on a UnifiedArray, they write through its buffer: any
# other way would leave the buffer's other copies stale.
_WRITES_FIRST = frozenset(["copyto", "fill_diagonal", "put", "put_along_axis", "place", "putmask"])


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
    back through the buffer, its moves counted."""
    target = args[0]
    dev = target._buf._placement if type(target) is UnifiedArray else CPU
    why = reason if dev is CPU else f"host fallback: {reason}"
    nat_rest, nat_kw = _natives(_to_unified(args[1:]), CPU, why), _natives(_to_unified(kwargs), CPU, why)
    if type(target) is not UnifiedArray:
        return host_call(target, *nat_rest, **nat_kw)
    if dev is CPU:
        try:
            handle = _dispatch.writable_native(target, CPU, reason)
        except BufferError:
            pass  # a strided reshape: no host view of it to write into
        else:
            res = host_call(handle, *nat_rest, **nat_kw)
            return target if res is handle else res
    work = np.array(_dispatch.native_on(target, CPU, why), copy=True)
    res = host_call(work, *nat_rest, **nat_kw)
    _dispatch.write(target, Ellipsis, _dispatch.send_back(_dispatch.wrap(work, CPU), dev, why), why)
    return target if res is work else res


_SIGNATURES: dict[Any, inspect.Signature | None] = {}


def _signature(fn: Any) -> inspect.Signature | None:
    try:
        return _SIGNATURES[fn]
    except KeyError:
        pass
    except TypeError:  # unhashable
        return None
    try:
        sig: inspect.Signature | None = inspect.signature(fn)
    except (TypeError, ValueError):
        sig = None
    _SIGNATURES[fn] = sig
    return sig


def _pop_out(func: Any, args: tuple, kwargs: dict) -> tuple[tuple, dict, Any]:
    """``out=`` taken out of a NumPy call (given by keyword, or by position
    as ``np.clip(a, 0, 1, y)`` and ``np.vecdot(a, b, c)`` allow); the
    arguments after a positional ``out`` become keywords."""
    out = kwargs.pop("out", None)
    if out is not None or isinstance(func, np.ufunc):
        return args, kwargs, out  # ufuncs: NumPy already moved a positional out into kwargs
    sig = _signature(func)
    if sig is None or "out" not in sig.parameters:
        return args, kwargs, None
    names = list(sig.parameters)
    i = names.index("out")
    kinds = [p.kind for p in sig.parameters.values()]
    if len(args) <= i or inspect.Parameter.VAR_POSITIONAL in kinds[:i]:
        return args, kwargs, None  # out= comes after *operands (einsum): keyword only
    for j in range(i + 1, len(args)):
        kwargs[names[j]] = args[j]
    return args[:i], kwargs, args[i]


def _standard_call(name: str, func: Any, args: tuple, kwargs: dict) -> tuple[Any, tuple, dict] | None:
    """A NumPy call as the standard's function of the same meaning
    (``np.mean(x, 0)`` -> ``xp.mean(x, axis=0)``), or None where the call
    uses what the standard lacks (``where=``, ``kind=``, ...)."""
    path = MLX_EQUIVALENTS.get(name)
    if path is None:
        return None
    target: Any = namespace()
    for part in path.split("."):
        target = getattr(target, part)
    if isinstance(func, np.ufunc):
        extra = set(kwargs) - {"dtype"}
        if extra or len(args) != func.nin:
            return None
        dtype = kwargs.get("dtype")
        if dtype is not None:
            cast = _ufunc_loop_inputs(func, args, np.dtype(dtype))
            if cast is None:
                return None
            args = cast
        return target, args, {}
    np_sig, std_sig = _signature(func), _signature(target)
    if np_sig is None or std_sig is None:
        return None
    try:
        bound = np_sig.bind(*args, **kwargs)
    except TypeError:
        return None
    std_params = std_sig.parameters
    positional = [p for p in std_params.values() if p.kind is inspect.Parameter.POSITIONAL_ONLY]
    call_args: list[Any] = []
    call_kwargs: dict[str, Any] = {}
    for i, (pname, param) in enumerate(np_sig.parameters.items()):
        if pname not in bound.arguments:
            continue
        value = bound.arguments[pname]
        if param.kind is inspect.Parameter.VAR_KEYWORD:
            if value:
                return None
            continue
        if param.kind is inspect.Parameter.VAR_POSITIONAL:
            return None
        if i < len(positional):
            if i != len(call_args):
                return None
            call_args.append(value)
            continue
        if value is param.default or (param.default is None and value is None):
            continue
        std_name = _RENAMES.get(pname, pname)
        std_param = std_params.get(std_name)
        if std_param is None or std_param.kind is inspect.Parameter.POSITIONAL_ONLY:
            return None
        call_kwargs[std_name] = value
    try:
        std_sig.bind(*call_args, **call_kwargs)
    except TypeError:
        return None  # a call form the standard's function does not take
    return target, tuple(call_args), call_kwargs


def _check_ufunc_types(func: np.ufunc, args: tuple, kwargs: dict, out: Any) -> None:
    """NumPy's ``TypeError`` for a ufunc call whose dtypes NumPy has no loop
    for (``np.bitwise_and`` of floats, a float result into an integer
    ``out=``), raised before anything runs or moves, on every device: the
    dtypes alone decide it, as they do in NumPy."""
    if len(args) != func.nin:
        return
    dtypes: list[Any] = []
    for a in args:
        if type(a) is UnifiedArray or isinstance(a, np.ndarray):
            dtypes.append(a.dtype)
        elif type(a) in (bool, int, float, complex):
            dtypes.append(type(a))  # NumPy's weak Python scalars
        else:
            return  # a list or another array type: NumPy converts it first
    outs = out if isinstance(out, tuple) else (out,) * func.nout
    dtypes.extend(getattr(o, "dtype", None) for o in outs)
    signature = kwargs.get("signature")
    if signature is None and kwargs.get("dtype") is not None:
        signature = (*(None,) * func.nin, *(np.dtype(kwargs["dtype"]),) * func.nout)
    judge: dict[str, Any] = {"casting": kwargs.get("casting", "same_kind")}
    if signature is not None:
        judge["signature"] = signature
    try:
        func.resolve_dtypes(tuple(dtypes), **judge)
    except TypeError:
        raise
    except Exception:
        return  # a form resolve_dtypes does not judge (the call itself does)


def _check_casting(func: Any, args: tuple, kwargs: dict) -> None:
    """NumPy's ``TypeError`` for a function that casts its arrays to
    ``dtype=`` under ``casting=`` (``np.concatenate``, ``np.stack``, ...)
    where the rule forbids a cast: decided from the dtypes, before anything
    runs or moves."""
    sig = _signature(func)
    if sig is None or "casting" not in sig.parameters:
        return
    dtype, casting = np.dtype(kwargs["dtype"]), kwargs.get("casting", sig.parameters["casting"].default)
    arrays: list = []
    _leaves(args, lambda o: type(o) is UnifiedArray or isinstance(o, np.ndarray), arrays)
    for a in arrays:
        if not np.can_cast(a.dtype, dtype, casting=casting):
            raise TypeError(f"Cannot cast array data from {a.dtype!r} to {dtype!r} according to the rule {casting!r}")


def _ufunc_loop_inputs(func: np.ufunc, args: tuple, dtype: np.dtype) -> tuple | None:
    """``ufunc(*args, dtype=dtype)``'s arguments cast to the dtypes of the
    loop NumPy chooses, as NumPy chooses it (from the dtypes alone, before
    any data is touched): NumPy's error where it has no such loop
    (``np.sin(x, dtype=np.int64)``); None for arguments whose dtype
    cannot be known without converting them."""
    dtypes: list[Any] = []
    for a in args:
        if type(a) is UnifiedArray:
            dtypes.append(a.dtype)
        elif type(a) in (bool, int, float, complex):
            dtypes.append(type(a))  # NumPy's weak Python scalars
        else:
            return None
    loop = func.resolve_dtypes((*dtypes, *(None,) * func.nout), signature=(*(None,) * func.nin, *(dtype,) * func.nout))
    cast = namespace().astype
    return tuple(cast(a, loop[i]) if type(a) is UnifiedArray else a for i, a in enumerate(args))


# NumPy functions the standard lacks, written once in the standard's terms
# (as array-api-compat writes its aliases), so that on MLX they run where the
# data is; dask and xarray call them on every chunk (``np.nansum`` is
# xarray's default ``skipna``).  Each returns None for a call form it does
# not cover, which then runs on the host, counted.
def _nan_reduction(reduce: str, fill: float) -> Any:
    def recipe(xp: Any, a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False, **rest: Any) -> Any:
        if rest or type(a) is not UnifiedArray:
            return None
        filled = xp.where(xp.isnan(a), fill, a) if a.dtype.kind in "fc" else a
        kwargs: dict[str, Any] = {"axis": axis, "keepdims": keepdims}
        if dtype is not None:
            kwargs["dtype"] = np.dtype(dtype)
        return getattr(xp, reduce)(filled, **kwargs)

    return recipe


def _nan_extremum(reduce: str, fill: float) -> Any:
    def recipe(xp: Any, a: Any, axis: Any = None, keepdims: bool = False, **rest: Any) -> Any:
        if rest or type(a) is not UnifiedArray:
            return None
        if a.dtype.kind not in "f":
            return getattr(xp, reduce)(a, axis=axis, keepdims=keepdims)
        nan = xp.isnan(a)
        out = getattr(xp, reduce)(xp.where(nan, fill, a), axis=axis, keepdims=keepdims)
        return xp.where(xp.all(nan, axis=axis, keepdims=keepdims), xp.nan, out)  # NumPy: nan for all-NaN

    return recipe


def _inexact_dtype(a: Any, dtype: Any) -> None:
    """NumPy's nanmean, nanvar and nanstd: an inexact array keeps an inexact dtype."""
    if dtype is not None and a.dtype.kind in "fc" and np.dtype(dtype).kind not in "fc":
        raise TypeError("If a is inexact, then dtype must be inexact")


def _nanmean(xp: Any, a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False, **rest: Any) -> Any:
    if type(a) is UnifiedArray:
        _inexact_dtype(a, dtype)
    if rest or dtype is not None or type(a) is not UnifiedArray or a.dtype.kind not in "fc":
        return None
    nan = xp.isnan(a)
    total = xp.sum(xp.where(nan, 0.0, a), axis=axis, keepdims=keepdims)
    count = xp.sum(xp.astype(~nan, a.dtype if a.dtype.kind == "f" else xp.float32), axis=axis, keepdims=keepdims)
    return total / count


def _nanvar(
    xp: Any, a: Any, axis: Any = None, dtype: Any = None, ddof: float = 0, keepdims: bool = False, **rest: Any
) -> Any:
    if type(a) is UnifiedArray:
        _inexact_dtype(a, dtype)
    if rest or dtype is not None or type(a) is not UnifiedArray or a.dtype.kind != "f":
        return None
    nan = xp.isnan(a)
    count = xp.sum(xp.astype(~nan, a.dtype), axis=axis, keepdims=True)
    mean = xp.sum(xp.where(nan, 0.0, a), axis=axis, keepdims=True) / count
    dev = xp.where(nan, 0.0, a - mean)
    dof = count - ddof
    var = xp.where(dof > 0, xp.sum(dev * dev, axis=axis, keepdims=True) / dof, xp.nan)  # NumPy: nan, not a sign flip
    if not keepdims:
        var = xp.squeeze(var, axis=tuple(range(a.ndim)) if axis is None else axis)
    return var


def _nanstd(xp: Any, a: Any, **kwargs: Any) -> Any:
    var = _nanvar(xp, a, **kwargs)
    return None if var is None else xp.sqrt(var)


def _atleast_2d(xp: Any, t: Any) -> Any:
    return xp.reshape(t, (1, -1)) if t.ndim < 2 else t


def _vstack(xp: Any, tup: Any, **rest: Any) -> Any:
    if rest or not all(type(t) is UnifiedArray for t in tup):
        return None
    return xp.concat([_atleast_2d(xp, t) for t in tup], axis=0)


def _hstack(xp: Any, tup: Any, **rest: Any) -> Any:
    if rest or not all(type(t) is UnifiedArray for t in tup):
        return None
    arrays = [xp.reshape(t, (1,)) if t.ndim == 0 else t for t in tup]
    return xp.concat(arrays, axis=0 if arrays[0].ndim == 1 else 1)


def _dot(xp: Any, a: Any, b: Any, **rest: Any) -> Any:
    if rest or type(a) is not UnifiedArray or type(b) is not UnifiedArray:
        return None
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    # NumPy's dot sums over a's last axis and b's second-to-last (its only
    # axis for a vector): a tensordot.
    return xp.tensordot(a, b, axes=([a.ndim - 1], [max(b.ndim - 2, 0)]))


def _norm(xp: Any, x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:
    """``np.linalg.norm``: a vector norm over one axis, a matrix norm over
    two (a 2-D array's ``ord`` without ``axis`` names a matrix norm), the
    Frobenius norm of all elements with neither."""
    if type(x) is not UnifiedArray:
        return None
    if x.dtype.kind not in "fc":
        x = xp.astype(x, xp.float64)  # NumPy: anything but floats is taken as float64
    nd = x.ndim
    if axis is None:
        if ord is None or (nd == 2 and isinstance(ord, str) and ord in ("f", "fro")) or (nd == 1 and ord == 2):
            out = xp.linalg.vector_norm(x)  # every element
            return xp.reshape(out, (1,) * nd) if keepdims else out
        axes: tuple[int, ...] = tuple(range(nd))
    elif isinstance(axis, tuple):
        axes = axis
    else:
        try:
            axes = (int(axis),)
        except TypeError:
            raise TypeError("'axis' must be None, an integer or a tuple of integers") from None
    if len(axes) == 1:
        if isinstance(ord, str):
            raise ValueError(f"Invalid norm order '{ord}' for vectors")
        return xp.linalg.vector_norm(x, axis=_np_axis(axes[0], nd), keepdims=keepdims, ord=2 if ord is None else ord)
    if len(axes) != 2:
        raise ValueError("Improper number of dimensions to norm.")
    row, col = _np_axis(axes[0], nd), _np_axis(axes[1], nd)
    if row == col:
        raise ValueError("Duplicate axes given.")
    if ord is None or (isinstance(ord, str) and ord == "f"):
        ord = "fro"
    if not (ord in ("fro", "nuc") if isinstance(ord, str) else ord in (1, -1, 2, -2, np.inf, -np.inf)):
        raise ValueError("Invalid norm order for matrices.")
    rest = [i for i in range(nd) if i not in (row, col)]
    out = xp.linalg.matrix_norm(xp.permute_dims(x, (*rest, row, col)), ord=ord)
    if keepdims:
        out = xp.reshape(out, tuple(1 if i in (row, col) else n for i, n in enumerate(x.shape)))
    return out


def _flat_by_default(reduce: str) -> Any:
    """NumPy's cumsum, cumprod, take, sort and argsort: ``axis=None`` takes
    the flattened array (the standard's function wants an axis)."""

    def recipe(xp: Any, a: Any, *args: Any, axis: Any = None, **kwargs: Any) -> Any:
        if type(a) is not UnifiedArray:
            return None
        if axis is None:
            a, axis = xp.reshape(a, (-1,)), 0
        return getattr(xp, reduce)(a, *args, axis=axis, **kwargs)

    return recipe


def _cumulative(reduce: str) -> Any:
    flat = _flat_by_default(reduce)

    def recipe(xp: Any, a: Any, axis: Any = None, dtype: Any = None) -> Any:
        return flat(xp, a, axis=axis, **({} if dtype is None else {"dtype": np.dtype(dtype)}))

    return recipe


def _take(xp: Any, a: Any, indices: Any, axis: Any = None) -> Any:
    if type(indices) is not UnifiedArray:
        return None  # a list or a scalar: the standard's take wants an array
    return _flat_by_default("take")(xp, a, indices, axis=axis)


def _sorting(name: str) -> Any:
    flat = _flat_by_default(name)

    def recipe(xp: Any, a: Any, axis: Any = -1, *, stable: Any = None) -> Any:
        return flat(xp, a, axis=axis, **({} if stable is None else {"stable": bool(stable)}))

    return recipe


def _qr(xp: Any, a: Any, mode: str = "reduced") -> Any:
    if type(a) is not UnifiedArray or mode not in ("reduced", "complete", "r"):
        return None  # "raw" (LAPACK's own layout), or NumPy's error for another mode
    return xp.linalg.qr(a).R if mode == "r" else xp.linalg.qr(a, mode=mode)


def _copy(xp: Any, a: Any, order: str = "K", subok: bool = False) -> Any:
    """``np.copy``: a copy on the array's device, as ``x.copy()`` (the
    library's arrays are C-ordered: only ``order='F'`` asks for more)."""
    if type(a) is not UnifiedArray or order == "F":
        return None
    return copy_of(a)


NUMPY_RECIPES: dict[str, Any] = {
    "linalg.norm": _norm,
    "copy": _copy,
    "linalg.qr": _qr,
    "cumsum": _cumulative("cumulative_sum"),
    "cumprod": _cumulative("cumulative_prod"),
    "take": _take,
    "sort": _sorting("sort"),
    "argsort": _sorting("argsort"),
    "nansum": _nan_reduction("sum", 0.0),
    "nanprod": _nan_reduction("prod", 1.0),
    "nanmax": _nan_extremum("max", -np.inf),
    "nanmin": _nan_extremum("min", np.inf),
    "nanmean": _nanmean,
    "nanvar": _nanvar,
    "nanstd": _nanstd,
    "vstack": _vstack,
    "hstack": _hstack,
    "dot": _dot,
}

# NumPy functions whose namesake in the device's own NumPy-like module has
# NumPy's meaning (MLX's einsum), run there on the device's copies.
NATIVE_EQUIVALENTS = frozenset({"einsum"})


def translated() -> dict[str, str]:
    """Every NumPy function the library runs on a device by a translation of
    its own, by NumPy name (``"linalg.norm"``), with how: ``"standard"``
    (:data:`MLX_EQUIVALENTS`), ``"recipe"`` (:data:`NUMPY_RECIPES`),
    ``"native"`` (:data:`NATIVE_EQUIVALENTS`) or ``"view"`` (NumPy's view
    functions, answered with views of the buffer).  A new translation goes
    into one of these tables, and so into this list, which the differential
    test against NumPy enumerates (``tests/test_numpy_translations.py``): a
    translation it has no strategy for fails it.  (On CUDA, CuPy's function
    of the NumPy name runs; the same test runs every entry there.)

    >>> translated()["linalg.norm"], translated()["absolute"]
    ('recipe', 'standard')
    """
    out = dict.fromkeys(MLX_EQUIVALENTS, "standard")
    out.update(dict.fromkeys(NUMPY_RECIPES, "recipe"))
    out.update(dict.fromkeys(NATIVE_EQUIVALENTS, "native"))
    out.update(dict.fromkeys(_NUMPY_VIEWS, "view"))
    return out


def _without_defaults(func: Any, kwargs: dict) -> dict:
    """The keywords of a NumPy call that differ from the function's defaults
    (NumPy's wrappers pass their own defaults on: ``vstack`` its
    ``casting='same_kind'``)."""
    sig = _signature(func)
    if sig is None:
        return kwargs
    params = sig.parameters
    return {
        k: v
        for k, v in kwargs.items()
        if k not in params or type(v) is UnifiedArray or not (v is params[k].default or v == params[k].default)
    }


def _recipe_call(name: str, args: tuple, kwargs: dict) -> Any:
    recipe = NUMPY_RECIPES.get(name)
    if recipe is None:
        return None
    sig = _signature(recipe)
    try:
        if sig is not None:
            sig.bind(namespace(), *args, **kwargs)
    except TypeError:
        return None  # a call form the recipe does not take: the host does it
    return recipe(namespace(), *args, **kwargs)


def _native_call(name: str, args: tuple, kwargs: dict, dev: Device, reason: str) -> Any:
    """``einsum`` and its kind: the backend's own function, on its copies."""
    if name not in NATIVE_EQUIVALENTS or kwargs:
        return None
    if not all(a.dtype.kind in "fc" for a in args if type(a) is UnifiedArray):
        return None  # MLX's einsum contracts floating data only (its matmul's limit)
    backend = backend_for(dev)
    fn = getattr(backend.numpy_like(), name, None)
    if fn is None:
        return None
    natives = tuple(_dispatch.native_on(a, dev, reason) if type(a) is UnifiedArray else a for a in args)
    with backend.compute_context(dev):
        return _dispatch.wrap_result(fn(*natives), dev, natives)


def numpy_call(name: str, func: Any, args: tuple, kwargs: dict, reason: str) -> Any:
    """Run a NumPy-level call where its UnifiedArray arguments live."""
    if (
        args
        and (type(args[0]) is UnifiedArray or isinstance(args[0], np.ndarray))
        and _writes_first(name, args, kwargs)
    ):
        return _run_in_place(name, func, args, kwargs, reason)
    args, kwargs, out = _pop_out(func, args, kwargs)
    if isinstance(func, np.ufunc):
        _check_ufunc_types(func, args, kwargs, out)
    elif kwargs.get("dtype") is not None:
        _check_casting(func, args, kwargs)
    if out is not None and kwargs.get("where") is not None:
        return _masked_into(func, args, kwargs, out, reason)
    args, kwargs = _to_unified(args), _to_unified(kwargs)
    found: list[UnifiedArray] = []
    _leaves((args, kwargs), lambda o: type(o) is UnifiedArray, found)
    dev = _dispatch.placement_of(found, reason) if found else CPU
    result: Any = None
    if dev.kind == "cuda":
        result = _run_on_cuda(name, func, args, kwargs, dev, reason)
    elif dev.kind == "mlx":
        standard = _standard_call(name, func, args, kwargs)
        if standard is not None:
            target, std_args, std_kwargs = standard
            result = target(*std_args, **std_kwargs)
        else:
            given = _without_defaults(func, kwargs)
            result = _recipe_call(name, args, given)
            if result is None:
                result = _native_call(name, args, given, dev, reason)
    if result is None:
        why = reason if dev is CPU else f"host fallback: numpy.{name}"
        nat_args, nat_kwargs = _natives(args, CPU, why), _natives(kwargs, CPU, why)
        result = _wrap_any(func(*nat_args, **nat_kwargs), CPU, (nat_args, nat_kwargs))
        result = _dispatch.send_back(result, dev, why)
    return result if out is None else _into(out, result, reason, kwargs.get("casting", "same_kind"))


# The keywords a CuPy ufunc takes besides out= (NumPy's where=, order=,
# subok=, signature= it does not).
_CUPY_UFUNC_KEYWORDS = frozenset({"dtype", "casting"})


def _run_on_cuda(name: str, func: Any, args: tuple, kwargs: dict, dev: Device, reason: str) -> Any:
    """CuPy's function of the NumPy name, or None (the host does it) where
    CuPy lacks it or its signature does not take the call.  The decision
    comes from the signature, before anything runs: an error CuPy raises
    then (a dtype the function does not take) is the call's error, as
    NumPy's is on the host, and no data moves for it."""
    backend = backend_for(dev)
    fn: Any = backend.numpy_like()
    for part in name.split("."):
        fn = getattr(fn, part, None)
        if fn is None:
            return None
    if isinstance(func, np.ufunc):
        if not _CUPY_UFUNC_KEYWORDS.issuperset(kwargs):
            return None
    else:
        sig = _signature(fn)
        if sig is None:
            if kwargs:
                return None  # a compiled function whose keywords cannot be known
        else:
            try:
                sig.bind(*args, **kwargs)
            except TypeError:
                return None  # NumPy-only keywords (where=, initial=, ...)
    nat_args, nat_kwargs = _natives(args, dev, reason), _natives(kwargs, dev, reason)
    with backend.compute_context(dev):
        try:
            return _wrap_any(fn(*nat_args, **nat_kwargs), dev, (nat_args, nat_kwargs))
        except NotImplementedError:
            return None  # an argument value CuPy has not implemented (CuPy's way of saying so)


def _into(out: Any, result: Any, reason: str, casting: str = "same_kind") -> Any:
    """Write ``result`` into ``out`` (a tracked write for UnifiedArrays),
    cast under the call's ``casting=`` as the rules say."""
    outs = out if isinstance(out, tuple) else (out,)
    results = result if isinstance(result, tuple) else (result,)
    for o, r in zip(outs, results, strict=False):
        if type(o) is UnifiedArray:
            if type(r) is UnifiedArray and r.dtype != o.dtype:
                r = _dispatch.cast_value(r, o.dtype, f"{reason} out=", casting)
            _dispatch.write(o, Ellipsis, r, reason)
        elif o is not None:
            np.copyto(o, np.asarray(r), casting=casting)  # type: ignore[arg-type]
    return out if isinstance(out, tuple) and len(outs) > 1 else outs[0]


def _masked_into(func: Any, args: tuple, kwargs: dict, out: Any, reason: str) -> Any:
    """``out=`` with ``where=``: the elements where the mask is false keep
    out's values, so NumPy writes into a host copy of out, which goes back
    through the buffer (its moves counted)."""
    outs = out if isinstance(out, tuple) else (out,)
    works = tuple(
        np.array(_dispatch.native_on(o, CPU, reason), copy=True) if type(o) is UnifiedArray else o for o in outs
    )
    nat_args, nat_kwargs = _natives(_to_unified(args), CPU, reason), _natives(_to_unified(kwargs), CPU, reason)
    func(*nat_args, out=works if isinstance(func, np.ufunc) else works[0], **nat_kwargs)
    for o, w in zip(outs, works, strict=True):
        if type(o) is UnifiedArray:
            _dispatch.write(o, Ellipsis, _dispatch.send_back(_dispatch.wrap(w, CPU), o.device, reason), reason)
    return out if len(outs) > 1 else outs[0]  # a ufunc's out= comes as a tuple


def array_ufunc(ufunc: Any, method: str, inputs: tuple, kwargs: dict) -> Any:
    """``__array_ufunc__``: a ufunc call (or its ``reduce``, ``at``, ...)."""
    if method == "__call__":
        return numpy_call(ufunc.__name__, ufunc, inputs, dict(kwargs), f"numpy.{ufunc.__name__}")
    name = f"{ufunc.__name__}.{method}"
    return numpy_call(name, getattr(ufunc, method), inputs, dict(kwargs), f"numpy.{name}")


def array_function(func: Any, types: Any, args: tuple, kwargs: dict) -> Any:
    """``__array_function__``: a NumPy function called with UnifiedArrays."""
    if not all(issubclass(t, UnifiedArray | np.ndarray) for t in types):
        return NotImplemented
    name = _numpy_name(func)
    if name in _ASKS_ABOUT_MEMORY:
        # np.may_share_memory(np.asarray(x), x): asked of the memory itself,
        # so the arrays are never converted or copied on the way.
        return func(*(_host_memory(a) for a in args), **kwargs)
    view = _NUMPY_VIEWS.get(name)
    if view is not None and args and type(args[0]) is UnifiedArray:
        res = view(*args, **kwargs)
        if res is not None:
            return res
    return numpy_call(name, func, args, dict(kwargs), f"numpy.{name}")


# NumPy's questions about memory: answered on the arrays' host copies as they
# are (a UnifiedArray's, synced if stale; an ndarray itself).
_ASKS_ABOUT_MEMORY = frozenset({"may_share_memory", "shares_memory"})


def _host_memory(a: Any) -> Any:
    return _dispatch.native_on(a, CPU, "numpy.may_share_memory") if type(a) is UnifiedArray else a


# NumPy's functions that return views, answered with views of the buffer
# (as NumPy's arrays answer them), on every backend.  Each returns None for
# what it does not cover (another order=, copy=True), which then runs as any
# other NumPy call does: on a copy.
def _np_reshape(a: Any, shape: Any = None, order: str = "C", *, newshape: Any = None, copy: Any = None) -> Any:
    if order != "C" or copy:
        return None
    return _dispatch.reshaped(a, shape if shape is not None else newshape)


def _np_ravel(a: Any, order: str = "C") -> Any:
    return _dispatch.reshaped(a, (-1,)) if order == "C" else None


def _np_transpose(a: Any, axes: Any = None) -> Any:
    if axes is None:
        return _dispatch.permuted(a, tuple(range(a.ndim))[::-1])
    axes = (axes,) if isinstance(axes, int | np.integer) else tuple(axes)
    return _dispatch.permuted(a, tuple(_np_axis(ax, a.ndim) for ax in axes))


def _np_swapaxes(a: Any, axis1: int, axis2: int) -> Any:
    axes = list(range(a.ndim))
    i, j = _np_axis(axis1, a.ndim), _np_axis(axis2, a.ndim)
    axes[i], axes[j] = axes[j], axes[i]
    return _dispatch.permuted(a, tuple(axes))


def _np_squeeze(a: Any, axis: Any = None) -> Any:
    if axis is None:  # NumPy's default: every singleton axis
        axis = tuple(i for i, d in enumerate(a.shape) if d == 1)
    return namespace().squeeze(a, axis)


def _np_axis(axis: Any, ndim: int) -> int:
    """An axis as NumPy checks it (``AxisError``, an IndexError and a ValueError)."""
    ax = int(np.asarray(axis).item()) if not isinstance(axis, int) else axis
    if not -ndim <= ax < ndim:
        raise np.exceptions.AxisError(ax, ndim)
    return ax % ndim if ndim else ax


def _flip_axis(m: Any, axis: int, name: str, min_ndim: int) -> Any:
    if m.ndim < min_ndim:
        raise ValueError(f"{name}: input must be at least {min_ndim}-d")
    return namespace().flip(m, axis=axis)


_NUMPY_VIEWS: dict[str, Any] = {
    "reshape": _np_reshape,
    "ravel": _np_ravel,
    "transpose": _np_transpose,
    "permute_dims": _np_transpose,
    "swapaxes": _np_swapaxes,
    "matrix_transpose": lambda x: x.mT,
    "squeeze": _np_squeeze,
    "expand_dims": lambda a, axis: namespace().expand_dims(a, axis=axis),
    "flip": lambda m, axis=None: namespace().flip(m, axis=axis),
    "flipud": lambda m: _flip_axis(m, 0, "flipud", 1),
    "fliplr": lambda m: _flip_axis(m, 1, "fliplr", 2),
}


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
    if max_version is None and dev == MLX and self.dtype in backend_for(MLX).dlpack_import_narrows:  # type: ignore[attr-defined]
        # An unversioned request, as MLX's own functions make first: refused,
        # they take __mlx_array__ (the MLX copy, its dtype) instead of a
        # DLPack import that would narrow the dtype (see docs/interop.md).
        # Not a BufferError: on that, MLX's importer asks again with
        # max_version and narrows the versioned export.
        raise ValueError(
            f"__dlpack__: a {self.dtype} array on {dev} is exported to DLPack 1.x consumers only "
            "(max_version=...); MLX functions take it through __mlx_array__"
        )
    kwargs: dict[str, Any] = {"max_version": max_version, "dl_device": dl_device, "copy": copy}
    versioned = max_version is not None and tuple(max_version) >= (1, 0)
    if dl_device is not None and tuple(dl_device) == tuple(__dlpack_device__(self)):
        dl_device = None  # already there (MLX's CPU build lives in host memory)
    if dl_device is not None and dl_device[0] == 1 and dev != CPU:
        # The consumer wants the data on the CPU: that is a copy.
        if copy is False:
            raise BufferError(f"__dlpack__: data lives on {dev}; a CPU export needs copy=True or None")
        host = np.array(_dispatch.native_on(self, CPU, "__dlpack__"), copy=True)
        return host.__dlpack__(max_version=max_version, copy=False)
    if dev == CPU:
        if not copy:
            try:
                # The alias np.asarray gives: the consumer may write, the buffer sees it.
                alias = _dispatch.writable_native(self, CPU, "__dlpack__")
            except BufferError:
                if copy is False:
                    raise
            else:
                return alias.__dlpack__(stream=stream, **_legacy_safe(kwargs, versioned))
        host = _dispatch.native_on(self, CPU, "__dlpack__")
        return np.array(host, copy=True).__dlpack__(stream=stream, **_legacy_safe(kwargs, versioned))
    if dev == MLX and copy is not False:
        # MLX's exports carry no read-only flag; a copy keeps the buffer safe
        # from a consumer that writes, and MLX's own import copies anyway.
        native = backend_for(MLX).copy(_dispatch.native_on(self, MLX, "__dlpack__"))
        return native.__dlpack__()
    if max_version is not None:
        kwargs["max_version"] = tuple(max_version)  # CuPy declares a tuple
    if copy:
        native = backend_for(dev).copy(_dispatch.native_on(self, dev, "__dlpack__"))  # on the array's GPU
        # Our copy is exported as it is: CuPy refuses copy=True for a same-
        # device export ("only supported for copy to CPU").
        kwargs["copy"] = None
    else:
        try:
            native = _dispatch.writable_native(self, dev, "__dlpack__")  # zero-copy on CUDA: the consumer may write
        except BufferError:
            if copy is False:
                raise
            # A host alias may be alive (or the view is not one block): copy=None allows a copy.
            native = backend_for(dev).copy(_dispatch.native_on(self, dev, "__dlpack__"))
            kwargs["copy"] = None
    if dev.kind == "cuda":
        return backend_for(dev).export_dlpack(native, stream, kwargs)  # type: ignore[attr-defined]
    try:
        return native.__dlpack__(stream=stream, **kwargs)
    except TypeError:  # producers that predate the 2023.12 keywords
        return native.__dlpack__(stream=stream) if stream is not None else native.__dlpack__()


def _legacy_safe(kwargs: dict[str, Any], versioned: bool) -> dict[str, Any]:
    """NumPy's exporter takes the 2023.12 keywords; what it exports (our
    alias or our copy) needs no copy of its own."""
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
        native = _dispatch.native_on(self, dev, "__dlpack_device__")
    return tuple(native.__dlpack_device__())


# -- CUDA and MLX --------------------------------------------------------------------


def _cuda_native(self: UnifiedArray, reason: str) -> Any:
    if self.device.kind != "cuda":
        raise AttributeError(f"{reason}: this array lives on {self.device}, not on a CUDA device")
    return _dispatch.writable_native(self, self.device, reason)  # a raw pointer goes out: presume a write


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
    native = _dispatch.native_on(self, dev, "__cuda_array_interface__")
    return backend_for(dev).cuda_array_interface(native)  # type: ignore[attr-defined]


def __cupy_get_ndarray__(self: UnifiedArray) -> Any:
    return _cuda_native(self, "__cupy_get_ndarray__")


def __mlx_array__(self: UnifiedArray) -> Any:
    native = _dispatch.native_on(self, MLX, "__mlx_array__")
    return backend_for(MLX).detach(native)  # type: ignore[attr-defined]


# -- conversions, pickling, dask -----------------------------------------------------


def _rebuild(data: Any, device: str, *rest: Any) -> UnifiedArray:
    # Pickling and dask live in _dask; this name stays for older pickles.
    return _dask._rebuild(data, device, *rest)


def __reduce__(self: UnifiedArray) -> tuple:
    return _dask.reduce_ex(self, 2)


def __reduce_ex__(self: UnifiedArray, protocol: int) -> tuple:
    return _dask.reduce_ex(self, protocol)


def __dask_tokenize__(self: UnifiedArray) -> tuple:
    return _dask.token(self)
