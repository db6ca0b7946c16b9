"""The namespace functions, generated from tables (one table per chapter of
the Array API standard), the way array-api-strict generates its elementwise
functions.

Each generated function finds the device its array arguments live on and
calls the function of the same name in that device's compute namespace
(:mod:`unifiedarray.compute`, or the MLX namespace); see
:func:`unifiedarray._array.dispatch`.  Its signature is copied from
array-api-compat's NumPy namespace, whose signatures follow the standard.

Creation functions are in :mod:`unifiedarray._creation` (they decide
placement and default dtypes); data type functions are below (they take
dtypes as well as arrays and never touch data).
"""

from __future__ import annotations

import inspect
import math
import operator
from collections.abc import Callable
from typing import Any, NamedTuple

import array_api_compat.numpy as _compat
import numpy as np

from ._array import (
    Permute,
    Reshape,
    UnifiedArray,
    _adopted,
    _wrap,
    _wrap_result,
    binary,
    dispatch,
    linked_view,
    namespace_for,
    native_on,
)
from ._creation import _as_dtype
from ._devices import CPU, Device, DeviceLike
from .backends import backend_for
from .compute import HOST_REDUCTIONS

# -- tables --------------------------------------------------------------------------

ELEMENTWISE_UNARY = (
    "abs acos acosh asin asinh atan atanh bitwise_invert ceil conj cos cosh exp expm1 floor imag "
    "isfinite isinf isnan log log1p log2 log10 logical_not negative positive real reciprocal round "
    "sign signbit sin sinh square sqrt tan tanh trunc"
).split()

ELEMENTWISE_BINARY = (
    "add atan2 bitwise_and bitwise_left_shift bitwise_or bitwise_right_shift bitwise_xor copysign "
    "divide equal floor_divide greater greater_equal hypot less less_equal logaddexp logical_and "
    "logical_or logical_xor maximum minimum multiply nextafter not_equal pow remainder subtract"
).split()

GENERIC = {
    "elementwise": "clip",
    "indexing": "take take_along_axis",
    "linear_algebra": "matmul tensordot vecdot",
    "manipulation": ("broadcast_arrays broadcast_to concat moveaxis repeat roll stack tile unstack"),
    "searching": "argmax argmin count_nonzero nonzero searchsorted where",
    "set": "isin unique_all unique_counts unique_inverse unique_values",
    "sorting": "argsort sort",
    "statistical": "cumulative_prod cumulative_sum max mean min prod std sum var",
    "utility": "all any diff",
}

LINALG = (
    "cholesky cross det diagonal eig eigh eigvals eigvalsh inv matmul matrix_norm matrix_power "
    "matrix_rank matrix_transpose outer pinv qr slogdet solve svd svdvals tensordot trace vecdot "
    "vector_norm"
).split()

FFT_ARRAY = "fft ifft fftn ifftn rfft irfft rfftn irfftn hfft ihfft fftshift ifftshift".split()
FFT_CREATION = "fftfreq rfftfreq".split()


# -- generators ---------------------------------------------------------------------


def _signature_of(path: str) -> inspect.Signature | None:
    obj: Any = _compat
    for part in path.split("."):
        obj = getattr(obj, part, None)
    try:
        return inspect.signature(obj) if obj is not None else None
    except (TypeError, ValueError):  # NumPy ufuncs have no inspectable signature
        return None


def _finish(fn: Callable[..., Any], path: str, doc: str) -> Callable[..., Any]:
    fn.__name__ = fn.__qualname__ = path.rsplit(".", 1)[-1]
    fn.__doc__ = doc
    sig = _signature_of(path)
    if sig is not None:
        fn.__signature__ = sig  # type: ignore[attr-defined]
    return fn


def _doc(path: str, chapter: str) -> str:
    return (
        f"Array API ``{path}`` ({chapter}); runs on the device of its array arguments.\n\n"
        f"See https://data-apis.org/array-api/2025.12/ for the specification."
    )


def _bound(path: str) -> Callable[[Device], Any]:
    """``device -> that device's function for path``, cached: the lookup is
    on every call's path."""
    cache: dict[Device, Any] = {}

    def lookup(dev: Device) -> Any:
        fn = cache.get(dev)
        if fn is None:
            fn = namespace_for(dev)
            for part in path.split("."):
                fn = getattr(fn, part, None)
                if fn is None:
                    return None  # the backend lacks it: dispatch falls back to the host
            cache[dev] = fn
        return fn

    return lookup


def _plain(values: Any) -> bool:
    """No arrays among these arguments (so the fast path applies)."""
    for v in values:
        if type(v) is UnifiedArray or type(v) in (list, tuple):
            return False
    return True


def make_generic(path: str, chapter: str) -> Callable[..., Any]:
    lookup = _bound(path)

    def fn(*args: Any, **kwargs: Any) -> Any:
        # Fast path: one array, first, nothing else array-like.
        if (
            args
            and type(args[0]) is UnifiedArray
            and (len(args) == 1 or _plain(args[1:]))
            and (not kwargs or _plain(kwargs.values()))
        ):
            x = args[0]
            dev = x._buf._placement
            f = lookup(dev)
            if f is not None and (dev is CPU or dev.kind != "cuda"):
                native = native_on(x, dev, path)
                return _wrap_result(f(native, *args[1:], **kwargs), dev, (native,))
        return dispatch(path, args, kwargs)  # CUDA: under the array's GPU

    return _finish(fn, path, _doc(path, chapter))


def _ufunc_returns_arrays_for_ellipsis() -> bool:
    """Whether NumPy's ufuncs take ``out=...`` (NumPy 2.3 and later): "give
    an array, never a scalar"."""
    try:
        return type(np.add.reduce(np.zeros(1), out=...)) is np.ndarray
    except TypeError:
        return False


_ARRAY_OUT = _ufunc_returns_arrays_for_ellipsis()


def make_host_reduction(name: str, ufunc: Any, takes_dtype: bool) -> Callable[..., Any]:
    """A generic function with one more fast path, for the reductions that
    are a NumPy ufunc's ``reduce`` (:data:`compute.HOST_REDUCTIONS`): on a
    whole array whose host copy is current, with nothing in flight and no
    ``dtype=``, it calls the ``reduce`` itself and builds the result with
    ``_array._adopted``, as the operators' fast path (``_array._make_binary``)
    does.  (That is most of a small reduction's cost; everything else takes
    the generic path.)  The keywords are the standard's, spelt out: a
    ``**kwargs`` would cost a dictionary on every call."""
    generic = make_generic(name, "statistical")
    reduce = ufunc.reduce

    def fn(x: Any, /, *, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:
        if dtype is None and type(x) is UnifiedArray and x._key is None:
            buf = x._buf
            if buf._placement is CPU and buf._pending is None and CPU in buf._valid:
                native = buf._copies[CPU]
                if _ARRAY_OUT:
                    # out=... asks for a 0-d array instead of a NumPy scalar,
                    # which saves converting one; the shortest call is the
                    # cheapest for NumPy to parse (reduce's own default
                    # axis is 0, so None is always given).
                    if keepdims is False:
                        res = reduce(native, axis, out=...)
                    else:
                        res = reduce(native, axis, None, out=..., keepdims=keepdims)
                else:
                    res = reduce(native, axis, None, None, keepdims)  # axis, dtype, out, keepdims
                    if type(res) is not np.ndarray:
                        res = res[...]  # a 0-d array from a NumPy scalar
                return _adopted(res, CPU, res.dtype)
        if dtype is None:
            return generic(x, axis=axis, keepdims=keepdims)
        if not takes_dtype:
            raise TypeError(f"{name}() got an unexpected keyword argument 'dtype'")
        return generic(x, axis=axis, dtype=dtype, keepdims=keepdims)

    params = [
        inspect.Parameter("x", inspect.Parameter.POSITIONAL_ONLY),
        inspect.Parameter("axis", inspect.Parameter.KEYWORD_ONLY, default=None),
        inspect.Parameter("dtype", inspect.Parameter.KEYWORD_ONLY, default=None),
        inspect.Parameter("keepdims", inspect.Parameter.KEYWORD_ONLY, default=False),
    ]
    _finish(fn, name, _doc(name, "statistical"))
    # The standard's signature (max and min take no dtype=).
    fn.__signature__ = inspect.Signature(params if takes_dtype else params[:1] + params[1:2] + params[3:])  # type: ignore[attr-defined]
    return fn


def make_unary(name: str) -> Callable[..., Any]:
    lookup = _bound(name)

    def fn(x: UnifiedArray, /, **kwargs: Any) -> UnifiedArray:
        if type(x) is not UnifiedArray:
            raise TypeError(f"{name} expects a UnifiedArray, got {type(x).__name__}")
        dev = x._buf._placement
        f = lookup(dev)
        if f is None or (dev is not CPU and dev.kind == "cuda"):
            return dispatch(name, (x,), kwargs)  # CUDA: under the array's GPU
        native = native_on(x, dev, name)
        res = f(native, **kwargs)
        if res is native or (x._key is not None and dev != "mlx"):
            return _wrap_result(res, dev, (native,))  # real(x) of a real x is x itself
        return _wrap(res, dev)

    fn.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter("x", inspect.Parameter.POSITIONAL_ONLY)]
    )
    return _finish(fn, name, _doc(name, "elementwise"))


def make_binary(name: str) -> Callable[..., Any]:
    def fn(x1: Any, x2: Any, /) -> UnifiedArray:
        if type(x1) is UnifiedArray:
            return _checked(binary(x1, x2, name), name, x2)
        if type(x2) is UnifiedArray:
            return _checked(binary(x2, x1, name, reflected=True), name, x1)
        raise TypeError(f"{name}: at least one argument must be a UnifiedArray")

    fn.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(n, inspect.Parameter.POSITIONAL_ONLY) for n in ("x1", "x2")]
    )
    return _finish(fn, name, _doc(name, "elementwise"))


def _checked(res: Any, name: str, other: Any) -> Any:
    if res is NotImplemented:
        raise TypeError(f"{name}: unsupported operand type {type(other).__name__}")
    return res


def build(namespace: dict[str, Any]) -> None:
    """Put every generated main-namespace function into ``namespace``."""
    for name in ELEMENTWISE_UNARY:
        namespace[name] = make_unary(name)
    for name in ELEMENTWISE_BINARY:
        namespace[name] = make_binary(name)
    for chapter, names in GENERIC.items():
        for name in names.split():
            namespace[name] = make_generic(name, chapter)
    for name, (ufunc, takes_dtype) in HOST_REDUCTIONS.items():
        namespace[name] = make_host_reduction(name, ufunc, takes_dtype)
    namespace.update(
        reshape=reshape,
        permute_dims=permute_dims,
        matrix_transpose=matrix_transpose,
        squeeze=squeeze,
        expand_dims=expand_dims,
        flip=flip,
    )


# -- views: reshape, transposes, squeeze, expand_dims, flip -------------------------------
# These return views that share the input's buffer (a link in the view's chain,
# like a slice), on every backend, so they copy nothing, as NumPy's do; see
# _array.linked_view.  (flip is a basic index with negative steps.)


def _require_array(x: Any, name: str) -> None:
    if type(x) is not UnifiedArray:
        raise TypeError(f"{name} expects a UnifiedArray, got {type(x).__name__}")


def _new_shape(old: tuple[int, ...], shape: Any) -> tuple[int, ...]:
    """``shape`` checked against ``old``'s size, a single -1 inferred."""
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    if type(shape) is tuple and all(type(d) is int for d in shape):
        dims = shape
    else:
        try:
            dims = tuple(int(operator.index(d)) for d in shape)
        except TypeError:
            raise TypeError(f"reshape: shape must be an int or a tuple of ints, not {shape!r}") from None
    size = math.prod(old)
    if dims.count(-1) > 1 or any(d < -1 for d in dims):
        raise ValueError(f"reshape: invalid shape {dims}")
    if -1 in dims:
        known = math.prod(d for d in dims if d != -1)
        if known == 0 or size % known:
            raise ValueError(f"reshape: cannot reshape an array of size {size} into shape {dims}")
        dims = tuple(size // known if d == -1 else d for d in dims)
    if math.prod(dims) != size:
        raise ValueError(f"reshape: cannot reshape an array of size {size} into shape {dims}")
    return dims


def reshape(x: UnifiedArray, /, shape: tuple[int, ...], *, copy: bool | None = None) -> UnifiedArray:
    """``x`` with a new shape: a view sharing x's buffer (no data is copied)
    unless ``copy=True``.

    >>> import unifiedarray as xp
    >>> x = xp.asarray([1.0, 2.0, 3.0, 4.0])
    >>> m = xp.reshape(x, (2, 2))
    >>> m[0, 1] = 20.0
    >>> x.tolist()
    [1.0, 20.0, 3.0, 4.0]
    """
    _require_array(x, "reshape")
    dims = _new_shape(x._shape, shape)
    view = linked_view(x, Reshape(dims), dims)
    return _copy_of(view) if copy else view


def permute_dims(x: UnifiedArray, /, axes: tuple[int, ...]) -> UnifiedArray:
    """``x`` with its axes permuted: a view sharing x's buffer.

    >>> import unifiedarray as xp
    >>> xp.permute_dims(xp.zeros((2, 3, 4)), (2, 0, 1)).shape
    (4, 2, 3)
    """
    _require_array(x, "permute_dims")
    n = x.ndim
    try:
        norm = tuple(int(operator.index(a)) for a in axes)
    except TypeError:
        raise TypeError(f"permute_dims: axes must be a tuple of ints, not {axes!r}") from None
    norm = tuple(a + n if a < 0 else a for a in norm)
    if sorted(norm) != list(range(n)):
        raise ValueError(f"permute_dims: axes {tuple(axes)} are not a permutation of the {n} axes")
    return linked_view(x, Permute(norm), tuple(x.shape[a] for a in norm))


def matrix_transpose(x: UnifiedArray, /) -> UnifiedArray:
    """The transpose of the last two axes: a view sharing x's buffer
    (``x.mT``).

    >>> import unifiedarray as xp
    >>> xp.matrix_transpose(xp.zeros((5, 2, 3))).shape
    (5, 3, 2)
    """
    _require_array(x, "matrix_transpose")
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose: x must have at least 2 dimensions (it has {x.ndim})")
    return x.mT


def _axis_tuple(axis: Any, name: str) -> tuple[int, ...]:
    """``axis`` as given (an int, or a tuple of ints; NumPy's callers also
    pass lists) as a tuple, or a ``TypeError``."""
    axes = tuple(axis) if type(axis) in (tuple, list) else (axis,)
    for a in axes:
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
            raise TypeError(f"{name}: axis must be an int or a tuple of ints, not {axis!r}")
    return axes


def _axes(axis: Any, ndim: int, name: str) -> tuple[int, ...]:
    """``axis`` (an int or a tuple of ints) as non-negative positions among
    ``ndim`` axes.  An axis out of range or given twice raises NumPy's
    ``AxisError``, which is both the ``IndexError`` the standard asks for and
    the ``ValueError`` NumPy code expects."""
    from numpy.exceptions import AxisError
    from numpy.lib.array_utils import normalize_axis_tuple

    try:
        return normalize_axis_tuple(_axis_tuple(axis, name), ndim)
    except AxisError as exc:
        raise AxisError(f"{name}: {exc}") from None
    except ValueError:  # NumPy's "repeated axis"
        raise AxisError(f"{name}: axis {axis!r} names an axis twice") from None


def squeeze(x: UnifiedArray, /, axis: int | tuple[int, ...]) -> UnifiedArray:
    """``x`` without the singleton axes ``axis``: a view sharing x's buffer.

    >>> import unifiedarray as xp
    >>> xp.squeeze(xp.zeros((1, 3, 1)), axis=(0, 2)).shape
    (3,)
    """
    _require_array(x, "squeeze")
    axes = _axes(axis, x.ndim, "squeeze")
    for a in axes:
        if x._shape[a] != 1:
            raise ValueError(f"squeeze: axis {a} has size {x._shape[a]}, not 1")
    dims = tuple(d for i, d in enumerate(x._shape) if i not in axes)
    return linked_view(x, Reshape(dims), dims)


def expand_dims(x: UnifiedArray, /, axis: int | tuple[int, ...] = 0) -> UnifiedArray:
    """``x`` with singleton axes inserted at ``axis`` (positions in the
    result): a view sharing x's buffer.

    >>> import unifiedarray as xp
    >>> xp.expand_dims(xp.zeros((2, 3)), axis=(0, -1)).shape
    (1, 2, 3, 1)
    """
    _require_array(x, "expand_dims")
    n = x.ndim + len(_axis_tuple(axis, "expand_dims"))
    axes = _axes(axis, n, "expand_dims")
    rest = iter(x._shape)
    dims = tuple(1 if i in axes else next(rest) for i in range(n))
    return linked_view(x, Reshape(dims), dims)


def flip(x: UnifiedArray, /, *, axis: int | tuple[int, ...] | None = None) -> UnifiedArray:
    """``x`` with the order of its elements reversed along ``axis`` (all
    axes by default): a view sharing x's buffer, as NumPy's is.

    >>> import unifiedarray as xp
    >>> xp.flip(xp.asarray([[1, 2], [3, 4]]), axis=1).tolist()
    [[2, 1], [4, 3]]
    """
    _require_array(x, "flip")
    axes = range(x.ndim) if axis is None else _axes(axis, x.ndim, "flip")
    if not axes:
        return x[...]
    reverse, whole = slice(None, None, -1), slice(None)
    return x[tuple(reverse if i in axes else whole for i in range(x.ndim))]


def _copy_of(x: UnifiedArray) -> UnifiedArray:
    from ._creation import asarray

    return asarray(x, copy=True)


# -- data type functions -------------------------------------------------------------


def _dtype_arg(x: Any) -> Any:
    return x.dtype if type(x) is UnifiedArray else x


def astype(x: UnifiedArray, dtype: Any, /, *, copy: bool = True, device: DeviceLike | None = None) -> UnifiedArray:
    """``x`` converted to ``dtype`` (and moved to ``device`` if given).

    >>> import unifiedarray as xp
    >>> xp.astype(xp.asarray([1.5]), xp.int32).tolist()
    [1]
    """
    if type(x) is not UnifiedArray:
        raise TypeError(f"astype expects a UnifiedArray, got {type(x).__name__}")
    dev = x._buf._placement
    if device is not None:
        target = Device.parse(device)
        if target != dev:
            x, dev, copy = x.to_device(target), target, False  # the move made the copy
    dt = _as_dtype(dtype, dev)
    if not copy and dt == x._buf._dtype:
        return x
    if dev is CPU:
        # NumPy's astype always copies when asked to (what copy=True means),
        # so the result owns its memory; every host dtype is allowed.
        return _wrap(native_on(x, CPU, "astype").astype(dt), CPU)
    backend_for(dev).check_dtype(dt, dev, "astype")
    return dispatch("astype", (x, dt), {"copy": True})


def can_cast(from_: Any, to: Any, /) -> bool:
    """Whether ``from_`` (a dtype or array) casts to ``to`` under the
    standard's promotion rules."""
    return bool(_compat.can_cast(_dtype_arg(from_), to))


class finfo_object(NamedTuple):
    """Machine limits of a floating dtype, as Python numbers (the standard's
    fields; NumPy's own ``finfo`` gives NumPy scalars)."""

    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: np.dtype


class iinfo_object(NamedTuple):
    """Machine limits of an integer dtype."""

    bits: int
    max: int
    min: int
    dtype: np.dtype


def finfo(type: Any, /) -> finfo_object:
    """Machine limits of a floating dtype (or array).

    >>> import unifiedarray as xp
    >>> xp.finfo(xp.float32).bits
    32
    """
    f = np.finfo(_dtype_arg(type))
    real = f.dtype
    return finfo_object(int(f.bits), float(f.eps), float(f.max), float(f.min), float(f.smallest_normal), real)


def iinfo(type: Any, /) -> iinfo_object:
    """Machine limits of an integer dtype (or array)."""
    i = np.iinfo(_dtype_arg(type))
    return iinfo_object(int(i.bits), int(i.max), int(i.min), i.dtype)


def isdtype(dtype: Any, kind: Any) -> bool:
    """Whether ``dtype`` is of ``kind`` (a dtype, a kind name, or a tuple)."""
    return bool(_compat.isdtype(dtype, kind))


def result_type(*arrays_and_dtypes: Any) -> np.dtype:
    """The dtype the standard's promotion rules give for the arguments
    (arrays, dtypes, and Python scalars)."""
    return np.dtype(_compat.result_type(*(_dtype_arg(a) for a in arrays_and_dtypes)))


def broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    """The shape that ``shapes`` broadcast to."""
    return tuple(np.broadcast_shapes(*shapes))
