"""What every part of the MLX namespace shares: dtype tables, the dtype
oracle, scalar conversion, counted host moves, and the float64 stream rule.

Result dtypes come from one oracle, :func:`result_dtype`: the dtype that
array-api-compat's NumPy namespace (the library's host namespace) gives for
the same function on the same input dtypes.  Where the standard defines a
result dtype, NumPy 2 gives exactly that; where it does not (mixed kinds,
``sqrt`` of an integer), following NumPy keeps a program's dtypes the same on
every device.  The oracle runs once per (function, input dtypes) and is
cached, so it costs a dictionary lookup per call.
"""

from __future__ import annotations

import builtins
import contextlib
import functools
import operator
import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import array_api_compat.numpy as _compat
import mlx.core as mx
import numpy as np
from numpy.exceptions import AxisError

from ... import _rules
from ..._ledger import transfer
from .._base import canonical

_NAMES = (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64",
)  # fmt: skip

_NP_TO_MX: dict[np.dtype, mx.Dtype] = {np.dtype(n): getattr(mx, "bool_" if n == "bool" else n) for n in _NAMES}
_MX_TO_NP: dict[mx.Dtype, np.dtype] = {v: k for k, v in _NP_TO_MX.items()}

BOOL = np.dtype("bool")
INT64 = np.dtype("int64")
FLOAT32 = np.dtype("float32")
FLOAT64 = np.dtype("float64")
COMPLEX64 = np.dtype("complex64")
#: The default dtypes of this namespace; they match the library's defaults on
#: the "mlx" device (complex64, because MLX holds no complex128).
DEFAULT_INT = INT64
DEFAULT_FLOAT = FLOAT64
DEFAULT_COMPLEX = COMPLEX64
INDEX = INT64

Array = mx.array
F = TypeVar("F", bound=Callable[..., Any])


# -- dtypes -----------------------------------------------------------------------------


def to_mx_dtype(dtype: Any) -> mx.Dtype:
    """The MLX dtype for a NumPy dtype (or anything ``np.dtype`` accepts, or
    an MLX dtype); ``TypeError`` naming mlx where MLX has no such dtype."""
    if isinstance(dtype, mx.Dtype):
        return dtype
    try:
        return _NP_TO_MX[np.dtype(dtype)]
    except KeyError:
        raise TypeError(f"mlx cannot hold dtype {np.dtype(dtype).name}") from None


def to_np_dtype(mx_dtype: mx.Dtype) -> np.dtype:
    """The NumPy dtype for an MLX dtype; ``TypeError`` for MLX dtypes NumPy
    lacks (bfloat16)."""
    try:
        return _MX_TO_NP[mx_dtype]
    except KeyError:
        raise TypeError(f"mlx dtype {mx_dtype} has no NumPy equivalent") from None


def supports_dtype(dtype: Any) -> bool:
    """Whether MLX can hold ``dtype`` (False for complex128; True for
    float64, which MLX computes on its CPU stream)."""
    try:
        return np.dtype(dtype) in _NP_TO_MX
    except TypeError:
        return False


def as_np_dtype(dtype: Any) -> np.dtype:
    """A ``dtype=`` argument as a NumPy dtype (NumPy dtypes, their names and
    scalar types, or MLX dtypes)."""
    if isinstance(dtype, np.dtype):
        return dtype
    if isinstance(dtype, mx.Dtype):
        return to_np_dtype(dtype)
    return np.dtype(dtype)


def dtype_of(x: Array) -> np.dtype:
    """The NumPy dtype of an MLX array."""
    return to_np_dtype(x.dtype)


def refuse(op: str, dtype: Any, why: str = "") -> TypeError:
    """The ``TypeError`` for a dtype this backend cannot compute exactly."""
    name = np.dtype(dtype).name if not isinstance(dtype, str) else dtype
    tail = f": {why}" if why else ""
    return TypeError(f"mlx cannot compute {op} for dtype {name}{tail}")


def check_holdable(op: str, dtype: np.dtype) -> mx.Dtype:
    """``to_mx_dtype`` with an error that names the operation."""
    try:
        return _NP_TO_MX[dtype]
    except KeyError:
        raise refuse(
            op,
            dtype,
            "mlx has no such dtype (no complex128); move the data to another device or convert it explicitly first",
        ) from None


# -- the dtype oracle -------------------------------------------------------------------

_REPRESENTATIVE = {builtins.bool: True, builtins.int: 1, builtins.float: 1.0, builtins.complex: 1j}


def spec_of(x: Any) -> Any:
    """The oracle's key for an argument: a NumPy dtype for an array, the
    Python type for a scalar."""
    if isinstance(x, mx.array):
        return dtype_of(x)
    t = type(x)
    if t in _REPRESENTATIVE:
        return t
    if isinstance(x, builtins.bool):
        return builtins.bool
    if isinstance(x, (builtins.int, np.integer)):
        return builtins.int
    if isinstance(x, (builtins.float, np.floating)):
        return builtins.float
    if isinstance(x, (builtins.complex, np.complexfloating)):
        return builtins.complex
    raise TypeError(f"mlx namespace: expected an mlx array or a Python scalar, got {type(x).__name__}")


def _lookup(path: str) -> Callable[..., Any]:
    obj: Any = _compat
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


@functools.lru_cache(maxsize=8192)
def _oracle(path: str, specs: tuple, kwargs: tuple) -> np.dtype:
    args = [np.ones((2,), dtype=s) if isinstance(s, np.dtype) else _REPRESENTATIVE[s] for s in specs]
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = _lookup(path)(*args, **dict(kwargs))
    except TypeError:
        # NumPy's own exception (its UFuncTypeError for a missing loop, which
        # names the function and dtypes): the host raises it for the same
        # call, so MLX raises it too.
        raise
    except Exception as exc:
        names = ", ".join(s.name if isinstance(s, np.dtype) else s.__name__ for s in specs)
        raise TypeError(f"mlx: {path} is not defined for ({names}): {exc}") from None
    return np.dtype(out.dtype)


def result_dtype(path: str, *args: Any, **kwargs: Any) -> np.dtype:
    """The dtype the host namespace gives for ``path`` on arguments of these
    dtypes (arrays) and kinds (Python scalars).  ``TypeError`` where it has
    none."""
    specs = tuple(spec_of(a) for a in args)
    kw = tuple(sorted((k, as_np_dtype(v) if k == "dtype" and v is not None else v) for k, v in kwargs.items()))
    return _oracle(path, specs, kw)


@functools.lru_cache(maxsize=4096)
def _promote(specs: tuple) -> np.dtype:
    try:
        return np.dtype(_compat.result_type(*(_REPRESENTATIVE.get(s, s) for s in specs)))  # type: ignore[attr-defined]
    except Exception as exc:
        raise TypeError(f"mlx: no promoted dtype for {specs}: {exc}") from None


def common_dtype(*args: Any) -> np.dtype:
    """The dtype arrays and Python scalars promote to (scalars are weak)."""
    return _promote(tuple(spec_of(a) for a in args))


# -- converting arguments ---------------------------------------------------------------


def is_array(x: Any) -> bool:
    return isinstance(x, mx.array)


def scalar(value: Any, dtype: np.dtype, op: str = "") -> Array:
    """A 0-d MLX array of ``dtype`` holding a Python (or NumPy) scalar,
    converted as the rules convert it (:func:`unifiedarray._rules.element`):
    an int out of the dtype's range is an ``OverflowError`` (NumPy 2's),
    never a wrapped value, and a float into float16/float32 rounds (and
    overflows) as NumPy's does.  MLX's own conversion never decides."""
    target = check_holdable(op or "scalar", dtype)
    t = type(value)
    if (dtype, t) in _EXACT:
        return mx.array(value, dtype=target)
    if t is builtins.int and dtype.kind in "iu":
        lo, hi = _int_range(dtype)
        if lo <= value <= hi and _INT64_MIN <= value <= _INT64_MAX:
            return mx.array(value, dtype=target)  # MLX converts Python ints through int64
    return mx.array(_rules.element(dtype, value, f"mlx {op}" if op else "mlx"), dtype=target)


_EXACT = frozenset(
    [(FLOAT64, builtins.float), (BOOL, builtins.bool), (INT64, builtins.bool), (FLOAT64, builtins.bool)]
    + [(np.dtype(n), builtins.bool) for n in _NAMES]
)


@functools.lru_cache(maxsize=64)
def _int_range(dtype: np.dtype) -> tuple[int, int]:
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


_INT64_MAX = int(np.iinfo(np.int64).max)
_INT64_MIN = int(np.iinfo(np.int64).min)


def cast(x: Any, dtype: np.dtype, op: str = "") -> Array:
    """``x`` (an MLX array or a Python scalar) as an MLX array of ``dtype``."""
    if isinstance(x, mx.array):
        target = _NP_TO_MX.get(dtype)
        if target is None:
            raise refuse(op or "astype", dtype, "mlx has no such dtype")
        return x if x.dtype == target else x.astype(target)
    return scalar(x, dtype, op)


def in_dtype(res: Array, dtype: mx.Dtype) -> Array:
    """``res`` (a sum, product or scan MLX computed) as ``dtype``, the
    result dtype the rules gave it: MLX widens small integers and bool (a
    uint8 sum is uint32, a bool cumsum int32), and the rules' dtype wins,
    as NumPy's arithmetic in that dtype gives it (integer sums and products
    wrap around: they are exact modulo 2**bits; bool is nonzero, an
    accumulated ``or`` or ``and``)."""
    return res if res.dtype == dtype else res.astype(dtype)


def c_long(value: Any, op: str) -> int:
    """``value`` as a Python int that fits NumPy's C ``long``: a huge one
    is NumPy's ``OverflowError`` (MLX would raise ``TypeError`` or
    ``RuntimeError: std::bad_cast``)."""
    v = operator.index(value)
    if not _INT64_MIN <= v <= _INT64_MAX:
        raise OverflowError(f"mlx {op}: Python int too large to convert to C long")
    return v


def fresh(x: Array) -> Array:
    """A new handle on ``x``'s value: MLX's in-place ``a[k] = v`` rebinds
    one handle only, so a function must never hand back its input object."""
    return mx.array(x)


def require_array(x: Any, op: str) -> Array:
    if not isinstance(x, mx.array):
        raise TypeError(f"mlx {op}: expected an mlx array, got {type(x).__name__}")
    return x


# -- empty arrays -------------------------------------------------------------------------
# MLX mis-reads an empty array made straight from NumPy data (mx.array(np_empty),
# as every upload is): reductions over it give wrong values (prod 0, all False)
# and sometimes never return.  An empty array MLX allocated itself is fine,
# and costs nothing, so empty inputs are replaced by one.


def native_empty(x: Array) -> Array:
    """``x``, or for an empty ``x`` an MLX-allocated empty array like it."""
    return mx.zeros(x.shape, dtype=x.dtype) if x.size == 0 else x


def _clean(a: Any) -> Any:
    if type(a) is mx.array:
        return native_empty(a)
    if isinstance(a, (list, tuple)) and a and builtins.any(type(i) is mx.array for i in a):
        cleaned = [_clean(i) for i in a]
        # Any other sequence (a named tuple of arrays) arrives as a list.
        return tuple(cleaned) if type(a) is tuple else cleaned
    return a


def empty_safe(fn: F) -> F:
    """Wrap ``fn`` so that empty array arguments reach it as MLX-allocated
    empty arrays (see :func:`native_empty`)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if _nothing_to_clean(args) and (not kwargs or _nothing_to_clean(kwargs.values())):
            return fn(*args, **kwargs)  # the common case, without rebuilding the arguments
        return fn(*[_clean(a) for a in args], **{k: _clean(v) for k, v in kwargs.items()})

    return wrapper  # type: ignore[return-value]


def _nothing_to_clean(values: Iterable[Any]) -> bool:
    """No empty MLX array among ``values``, and no sequence that may hold one."""
    for a in values:
        t = type(a)
        if t is mx.array:
            if a.size == 0:
                return False
        elif t is list or t is tuple:
            return False
    return True


# -- host moves -------------------------------------------------------------------------


def to_host(x: Array, reason: str) -> np.ndarray:
    """``x`` as a NumPy array of the same dtype, the move counted."""
    mx.eval(x)
    with transfer("mlx", "cpu", x.nbytes, reason=reason):
        host = np.array(x, copy=True)
    return canonical(host)  # MLX's 'q' as NumPy's int64


def contiguous(host: np.ndarray) -> np.ndarray:
    """``host`` in C order, 0-d arrays kept 0-d (``np.ascontiguousarray``
    makes them 1-d)."""
    return host if host.flags.c_contiguous else np.array(host, order="C")


def from_host(host: np.ndarray, reason: str) -> Array:
    """A NumPy array as an MLX array of the same dtype, the move counted."""
    host = np.asarray(host)
    dt = check_holdable(reason, host.dtype)
    with transfer("cpu", "mlx", host.nbytes, reason=reason):
        out = mx.array(contiguous(host), dtype=dt) if host.size else mx.zeros(host.shape, dtype=dt)
        mx.eval(out)
    return out


# -- streams ------------------------------------------------------------------------------
# MLX has no float64 on the GPU (Metal), and its linear algebra runs only on
# the CPU.  Where the default device is a GPU, functions that touch float64
# (and every linalg function) build their graph on the CPU stream instead.


def default_is_cpu() -> bool:
    return mx.default_device().type == mx.DeviceType.cpu


_NO_STREAM = contextlib.nullcontext()


def cpu_if(*dtypes: Any) -> Any:
    """A context that builds the graph on the CPU stream when one of
    ``dtypes`` (NumPy or MLX dtypes) is float64 and the default device is a
    GPU; otherwise a no-op."""
    for d in dtypes:
        if (d == FLOAT64 or d == mx.float64) and not default_is_cpu():
            return mx.stream(mx.cpu)
    return _NO_STREAM


def _touches_float64(args: Iterable[Any]) -> bool:
    for a in args:
        if isinstance(a, mx.array):
            if a.dtype == mx.float64:
                return True
        elif isinstance(a, (list, tuple)):
            if _touches_float64(a):
                return True
        elif isinstance(a, np.dtype) and a == FLOAT64:
            return True
    return False


def float64_on_cpu(fn: F) -> F:
    """Run ``fn`` on the CPU stream when the default device is a GPU and an
    argument (or the requested dtype) is float64."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if default_is_cpu() or not (_touches_float64(args) or _touches_float64(kwargs.values())):
            return fn(*args, **kwargs)
        with mx.stream(mx.cpu):
            return fn(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def on_cpu(fn: F) -> F:
    """Run ``fn`` on the CPU stream (MLX's linalg exists only there)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if default_is_cpu():
            return fn(*args, **kwargs)
        with mx.stream(mx.cpu):
            return fn(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


# -- axes -----------------------------------------------------------------------------------


def normalize_axis(axis: int, ndim: int, op: str = "") -> int:
    """``axis`` as a non-negative axis of an ``ndim``-dimensional array.

    Out of range is NumPy's ``AxisError`` (a subclass of both ``IndexError``,
    which the standard asks for, and ``ValueError``), so that the same
    program raises the same class on the host and on MLX.
    """
    try:
        axis = operator.index(axis)
    except TypeError:
        raise TypeError(f"mlx {op}: axis must be an integer, got {type(axis).__name__}") from None
    if not -ndim <= axis < ndim:
        raise AxisError(axis, ndim, f"mlx {op}" if op else None)
    return axis % ndim if ndim else 0


def normalize_axes(axis: int | Sequence[int] | None, ndim: int, op: str = "") -> tuple[int, ...]:
    """``axis`` (None, an int, or a tuple) as a sorted tuple of non-negative
    axes; duplicates are an error."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (builtins.int, np.integer)):
        return (normalize_axis(axis, ndim, op),)
    if not isinstance(axis, (tuple, list)):
        raise TypeError(f"mlx {op}: axis must be None, an integer or a tuple of integers, got {type(axis).__name__}")
    out = tuple(normalize_axis(a, ndim, op) for a in axis)
    if len(set(out)) != len(out):
        raise ValueError(f"mlx {op}: repeated axis in {tuple(axis)}")
    return tuple(sorted(out))


# -- index bounds ---------------------------------------------------------------------------
# MLX's gathers and scatters clamp an out-of-range index (a read returns the
# last element, a write lands on it); NumPy raises IndexError at the call.
# The check reads each index array's min and max (one evaluation for all
# index arrays of a call: see docs/design.md, "Errors: the same class on
# every device", for what it costs).


def checked_indices(items: Sequence[tuple[Array, int, int]], op: str) -> list[Array]:
    """Each ``(k, n, axis)``: the integer index array ``k`` for an axis of
    size ``n``, checked (``IndexError`` unless ``-n <= k < n``, NumPy's
    message) and with negative entries counted from the end."""
    extremes = [(mx.min(k), mx.max(k)) for k, _, _ in items if k.size]
    if extremes:
        mx.eval(*(e for pair in extremes for e in pair))
    found = iter(extremes)
    out = []
    for k, n, axis in items:
        if not k.size:
            out.append(k)
            continue
        lo_a, hi_a = next(found)
        lo, hi = builtins.int(lo_a.item()), builtins.int(hi_a.item())  # type: ignore[arg-type]
        for bad in (hi, lo):
            if not -n <= bad < n:
                where = f"mlx {op}: " if op else ""
                raise IndexError(f"{where}index {bad} is out of bounds for axis {axis} with size {n}")
        if lo < 0:
            # In int64: k + n in a narrow dtype could wrap.
            k = k.astype(mx.int64)
            k = mx.where(k < 0, k + n, k)
        out.append(k)
    return out
