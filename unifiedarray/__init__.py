"""unifiedarray: one array type for the CPU and accelerators.

``unifiedarray`` is itself an Array API 2025.12 namespace.  Its arrays live
on a lazy-sync buffer that keeps a host copy and device copies (CuPy on
CUDA, MLX on Apple Metal or Linux), knows which copy is current, and moves
data only when a stale copy is read.

Every public name below is a real definition in one of the namespace's
chapters (``_elementwise``, ``_statistical``, ...), so editors and type
checkers see the whole namespace.

Example
-------
>>> import unifiedarray as xp
>>> x = xp.linspace(0.0, 1.0, 5)
>>> float(xp.sum(x))
2.5
>>> xp.get_namespace(x) is xp
True
"""

from __future__ import annotations

import builtins as _builtins
import math as _math
import sys as _sys
import warnings as _warnings
from typing import Any

import array_api_compat as _array_api_compat
import numpy as _np

from . import _compiled

# Before any compiled module is imported: the pure-Python modules where asked
# for, or where only some modules were built (never a mix of the two).
if _compiled.pure_python_requested() or _compiled.partial_build():
    _compiled.use_pure_python()
if _stray := _compiled.stray_modules():
    _compiled.use_sources(_stray)
    _warnings.warn(
        f"unifiedarray: compiled modules that no build makes now (left by an older one): {', '.join(_stray)}; "
        "their sources run; delete the compiled files (git clean -fX unifiedarray) and build again "
        "(python -m pip install -e . --no-deps)",
        RuntimeWarning,
        stacklevel=2,
    )

from . import _dispatch, _namespace, fft, lib, linalg, random
from ._accelerator import Accelerator, get_accelerator, list_devices
from ._array import UnifiedArray
from ._buffer import BufferState, UnifiedBuffer
from ._creation import (
    arange,
    asarray,
    empty,
    empty_like,
    eye,
    from_dlpack,
    full,
    full_like,
    linspace,
    meshgrid,
    ones,
    ones_like,
    tril,
    triu,
    zeros,
    zeros_like,
)
from ._dask import DevicePlugin, DeviceUnavailableWarning
from ._data_types import astype, broadcast_shapes, can_cast, finfo, iinfo, isdtype, result_type
from ._devices import Device
from ._elementwise import (
    abs,
    acos,
    acosh,
    add,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    bitwise_and,
    bitwise_invert,
    bitwise_left_shift,
    bitwise_or,
    bitwise_right_shift,
    bitwise_xor,
    ceil,
    clip,
    conj,
    copysign,
    cos,
    cosh,
    divide,
    equal,
    exp,
    expm1,
    floor,
    floor_divide,
    greater,
    greater_equal,
    hypot,
    imag,
    isfinite,
    isinf,
    isnan,
    less,
    less_equal,
    log,
    log1p,
    log2,
    log10,
    logaddexp,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    maximum,
    minimum,
    multiply,
    negative,
    nextafter,
    not_equal,
    positive,
    pow,
    real,
    reciprocal,
    remainder,
    round,
    sign,
    signbit,
    sin,
    sinh,
    sqrt,
    square,
    subtract,
    tan,
    tanh,
    trunc,
)
from ._extensions import (
    allclose,
    amax,
    amin,
    append,
    argpartition,
    argwhere,
    around,
    array,
    array_equal,
    array_split,
    atleast_1d,
    atleast_2d,
    atleast_3d,
    average,
    bincount,
    cbrt,
    choose,
    column_stack,
    compress,
    convolve,
    corrcoef,
    cov,
    cross,
    cumprod,
    cumsum,
    deg2rad,
    diag,
    diagonal,
    digitize,
    dot,
    dstack,
    ediff1d,
    einsum,
    extract,
    flatnonzero,
    fmax,
    fmin,
    fmod,
    gradient,
    histogram,
    hstack,
    inner,
    interp,
    intersect1d,
    isclose,
    kron,
    lexsort,
    median,
    nan_to_num,
    nanargmax,
    nanargmin,
    nancumprod,
    nancumsum,
    nanmax,
    nanmean,
    nanmedian,
    nanmin,
    nanpercentile,
    nanprod,
    nanquantile,
    nanstd,
    nansum,
    nanvar,
    outer,
    pad,
    partition,
    percentile,
    ptp,
    quantile,
    rad2deg,
    ravel,
    rint,
    rollaxis,
    select,
    setdiff1d,
    split,
    swapaxes,
    trace,
    transpose,
    union1d,
    unique,
    vdot,
    vstack,
)
from ._fuse import FusedFunction, FuseWarning, fuse
from ._indexing import (
    take,
    take_along_axis,
)
from ._info import __array_namespace_info__
from ._ledger import TransferLedger, TransferRecord, track_transfers
from ._ledger import totals as transfer_totals
from ._linear_algebra import (
    matmul,
    matrix_transpose,
    tensordot,
    vecdot,
)
from ._manipulation import (
    broadcast_arrays,
    broadcast_to,
    concat,
    expand_dims,
    flip,
    moveaxis,
    permute_dims,
    repeat,
    reshape,
    roll,
    squeeze,
    stack,
    tile,
    unstack,
)
from ._policy import TransferError, default_device, get_default_device, set_default_device, transfer_guard
from ._pool import MemoryPool, OutOfMemoryError, get_memory_pool
from ._rules import StrictModeError, is_strict, set_strict, strict
from ._searching import (
    argmax,
    argmin,
    count_nonzero,
    nonzero,
    searchsorted,
    where,
)
from ._set import (
    UniqueAllResult,
    UniqueCountsResult,
    UniqueInverseResult,
    isin,
    unique_all,
    unique_counts,
    unique_inverse,
    unique_values,
)
from ._sorting import (
    argsort,
    sort,
)
from ._spill import device_memory_usage, get_device_memory_limit, set_device_memory_limit
from ._statistical import (
    cumulative_prod,
    cumulative_sum,
    max,
    mean,
    min,
    prod,
    std,
    sum,
    var,
)
from ._streaming import prefetch
from ._utility import (
    all,
    any,
    diff,
)
from ._version import __version__

# The dispatch works below this namespace and reaches it only through what
# the namespace installs there: itself (``x.__array_namespace__()``, the
# NumPy protocol's translations).  _dispatch has installed its table into
# the array class on import.
_namespace.install(_sys.modules[__name__])
del _dispatch

if _stale := _compiled.stale_modules():
    # A checkout's source edited after its build: the compiled modules run
    # the old code until it is built again.
    _warnings.warn(
        f"unifiedarray: compiled modules older than their sources: {', '.join(_stale)}; build them again "
        f"(python -m pip install -e . --no-deps) or run the sources ({_compiled.ENV}=1)",
        RuntimeWarning,
        stacklevel=2,
    )
del _stale, _stray

__array_api_version__ = "2025.12"

# -- data types: NumPy's dtype objects, so that dtype.kind and np.dtype(x.dtype) work
bool = _np.dtype("bool")  # the standard's name
int8 = _np.dtype("int8")
int16 = _np.dtype("int16")
int32 = _np.dtype("int32")
int64 = _np.dtype("int64")
uint8 = _np.dtype("uint8")
uint16 = _np.dtype("uint16")
uint32 = _np.dtype("uint32")
uint64 = _np.dtype("uint64")
float32 = _np.dtype("float32")
float64 = _np.dtype("float64")
complex64 = _np.dtype("complex64")
complex128 = _np.dtype("complex128")
# NumPy's, beyond the standard (xarray and code ported from NumPy name it):
# the host, CUDA and MLX hold it; a device that cannot refuses it by name.
float16 = _np.dtype("float16")

# -- constants
e = _math.e  # NumPy's stubs make mypy misread np.e
pi = _np.pi
inf = _np.inf
nan = _np.nan
newaxis = None


def get_namespace(*arrays: Any) -> Any:
    """The Array API namespace of ``arrays``: this module for UnifiedArrays.

    For generic code: ``xp = get_namespace(x)``; with mixed inputs, defer to
    ``array_api_compat.array_namespace``.

    >>> import unifiedarray as xp
    >>> xp.get_namespace(xp.ones(1)) is xp
    True
    """
    if arrays and _builtins.all(type(a) is UnifiedArray for a in arrays):
        return arrays[0].__array_namespace__()
    return _array_api_compat.array_namespace(*arrays)


__all__ = [
    "Accelerator",
    "BufferState",
    "Device",
    "DevicePlugin",
    "DeviceUnavailableWarning",
    "FuseWarning",
    "FusedFunction",
    "MemoryPool",
    "OutOfMemoryError",
    "StrictModeError",
    "TransferError",
    "TransferLedger",
    "TransferRecord",
    "UnifiedArray",
    "UnifiedBuffer",
    "UniqueAllResult",
    "UniqueCountsResult",
    "UniqueInverseResult",
    "__array_api_version__",
    "__array_namespace_info__",
    "__version__",
    "abs",
    "acos",
    "acosh",
    "add",
    "all",
    "allclose",
    "amax",
    "amin",
    "any",
    "append",
    "arange",
    "argmax",
    "argmin",
    "argpartition",
    "argsort",
    "argwhere",
    "around",
    "array",
    "array_equal",
    "array_split",
    "asarray",
    "asin",
    "asinh",
    "astype",
    "atan",
    "atan2",
    "atanh",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "average",
    "bincount",
    "bitwise_and",
    "bitwise_invert",
    "bitwise_left_shift",
    "bitwise_or",
    "bitwise_right_shift",
    "bitwise_xor",
    "bool",
    "broadcast_arrays",
    "broadcast_shapes",
    "broadcast_to",
    "can_cast",
    "cbrt",
    "ceil",
    "choose",
    "clip",
    "column_stack",
    "complex64",
    "complex128",
    "compress",
    "concat",
    "conj",
    "convolve",
    "copysign",
    "corrcoef",
    "cos",
    "cosh",
    "count_nonzero",
    "cov",
    "cross",
    "cumprod",
    "cumsum",
    "cumulative_prod",
    "cumulative_sum",
    "default_device",
    "deg2rad",
    "device_memory_usage",
    "diag",
    "diagonal",
    "diff",
    "digitize",
    "divide",
    "dot",
    "dstack",
    "e",
    "ediff1d",
    "einsum",
    "empty",
    "empty_like",
    "equal",
    "exp",
    "expand_dims",
    "expm1",
    "extract",
    "eye",
    "fft",
    "finfo",
    "flatnonzero",
    "flip",
    "float16",
    "float32",
    "float64",
    "floor",
    "floor_divide",
    "fmax",
    "fmin",
    "fmod",
    "from_dlpack",
    "full",
    "full_like",
    "fuse",
    "get_accelerator",
    "get_default_device",
    "get_device_memory_limit",
    "get_memory_pool",
    "get_namespace",
    "gradient",
    "greater",
    "greater_equal",
    "histogram",
    "hstack",
    "hypot",
    "iinfo",
    "imag",
    "inf",
    "inner",
    "int8",
    "int16",
    "int32",
    "int64",
    "interp",
    "intersect1d",
    "is_strict",
    "isclose",
    "isdtype",
    "isfinite",
    "isin",
    "isinf",
    "isnan",
    "kron",
    "less",
    "less_equal",
    "lexsort",
    "lib",
    "linalg",
    "linspace",
    "list_devices",
    "log",
    "log1p",
    "log2",
    "log10",
    "logaddexp",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "matmul",
    "matrix_transpose",
    "max",
    "maximum",
    "mean",
    "median",
    "meshgrid",
    "min",
    "minimum",
    "moveaxis",
    "multiply",
    "nan",
    "nan_to_num",
    "nanargmax",
    "nanargmin",
    "nancumprod",
    "nancumsum",
    "nanmax",
    "nanmean",
    "nanmedian",
    "nanmin",
    "nanpercentile",
    "nanprod",
    "nanquantile",
    "nanstd",
    "nansum",
    "nanvar",
    "negative",
    "newaxis",
    "nextafter",
    "nonzero",
    "not_equal",
    "ones",
    "ones_like",
    "outer",
    "pad",
    "partition",
    "percentile",
    "permute_dims",
    "pi",
    "positive",
    "pow",
    "prefetch",
    "prod",
    "ptp",
    "quantile",
    "rad2deg",
    "random",
    "ravel",
    "real",
    "reciprocal",
    "remainder",
    "repeat",
    "reshape",
    "result_type",
    "rint",
    "roll",
    "rollaxis",
    "round",
    "searchsorted",
    "select",
    "set_default_device",
    "set_device_memory_limit",
    "set_strict",
    "setdiff1d",
    "sign",
    "signbit",
    "sin",
    "sinh",
    "sort",
    "split",
    "sqrt",
    "square",
    "squeeze",
    "stack",
    "std",
    "strict",
    "subtract",
    "sum",
    "swapaxes",
    "take",
    "take_along_axis",
    "tan",
    "tanh",
    "tensordot",
    "tile",
    "trace",
    "track_transfers",
    "transfer_guard",
    "transfer_totals",
    "transpose",
    "tril",
    "triu",
    "trunc",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "union1d",
    "unique",
    "unique_all",
    "unique_counts",
    "unique_inverse",
    "unique_values",
    "unstack",
    "var",
    "vdot",
    "vecdot",
    "vstack",
    "where",
    "zeros",
    "zeros_like",
]
