"""An Array API 2025.12 namespace over raw ``mlx.core.array`` objects.

None exists upstream; this is the compute namespace the library's dispatch
layer uses for the "mlx" device::

    ns = mlx_namespace
    ns.add(a, b); ns.sum(x, axis=1, dtype=np.dtype("float64"))
    ns.linalg.cholesky(x); ns.fft.fft(x, n=8)

Arguments are ``mx.array`` objects (or Python scalars where the standard
allows them); ``dtype=`` arguments are NumPy dtypes; ``device=`` is accepted
and ignored.  Results are ``mx.array`` objects (or named tuples of them).

The promises kept here:

* **No silent dtype change.**  Result dtypes are the standard's (NumPy's
  where the standard leaves them open), never MLX's own promotion.  What MLX
  cannot compute in the required dtype is either built from primitives that
  can (float64 ``exp``/``sin``/``cos``, integer ``matmul``), computed on the
  host (see :data:`HOST_FALLBACKS`), or refused with a ``TypeError`` naming
  mlx, the dtype and the operation (complex128 anywhere, float64 ``fft``,
  ``eig`` of float64).
* **Laziness.**  Nothing is evaluated except where a value must be
  concrete: host fallbacks and data-dependent shapes.
* **Data-dependent shapes on MLX.**  ``nonzero``, ``unique_*`` and a
  boolean mask's selection run on MLX (a stable sort brings the selected
  positions first); their length is the one value read back, 8 bytes,
  counted as "mlx: data-dependent size".
* **Counted host moves.**  Every host fallback moves data inside
  :func:`unifiedarray._ledger.transfer`, so the transfer guard sees it and
  ``track_transfers`` counts it.
* **float64 on a GPU default device** (Metal has no float64): functions
  that touch float64 build their graph on MLX's CPU stream.

MLX defects this namespace works around (each found by the differential
tests against array-api-strict; the code says why at each place):
float64 ``exp``/``sin``/``cos``/``logaddexp`` and ``linalg.det`` computed in
float32 precision; float32 ``exp`` overflowing above 88; ``floor_divide``
as ``floor(a / b)``; ``sign(nan) == 0``; complex ``0 ** 0`` and division by a
signed complex zero; integer ``INT_MIN // -1`` (SIGFPE) and division by
zero; shift counts past the width; no bounds checks on indices; ``sum`` and
``mean`` promoting to 32-bit types; reductions over empty arrays made from
NumPy data returning garbage or never returning.

Errors are the host's (NumPy's) classes, raised at the call: integer-array
indices and ``searchsorted``'s sorter are checked (MLX clamps them), a
singular ``inv``/``solve`` is ``LinAlgError`` (MLX: ``RuntimeError`` at a
later read), ``cholesky`` of a non-positive-definite matrix is
``LinAlgError`` (MLX: garbage), integers to negative powers are
``ValueError`` (MLX: 0), axes out of range are ``AxisError``, and a scatter
into an array with no elements (SIGFPE in MLX) is checked and skipped.
What each check costs is in docs/design.md ("Errors: the same class on
every device").

Written against MLX 0.32.4 (it uses ``mx.searchsorted`` and ``mx.view``).
"""

from __future__ import annotations

import builtins as _builtins
import math as _math
from typing import Any as _Any

import array_api_compat.numpy as _compat
import mlx.core as _mx
import numpy as _np

from ..mlx_evaluation import FAILURES as _FAILURES
from ..mlx_evaluation import guard as _guard
from . import fft, linalg
from ._core import DEFAULT_COMPLEX as _DEFAULT_COMPLEX
from ._core import DEFAULT_FLOAT as _DEFAULT_FLOAT
from ._core import DEFAULT_INT as _DEFAULT_INT
from ._core import INDEX as _INDEX
from ._core import as_np_dtype as _as_np_dtype
from ._core import check_holdable as _check_holdable
from ._core import cpu_if as _cpu_if
from ._core import dtype_of as _dtype_of
from ._core import empty_safe as _empty_safe
from ._core import fresh as _fresh
from ._core import require_array as _require_array
from ._core import supports_dtype, to_mx_dtype, to_np_dtype
from ._creation import (
    arange,
    asarray,
    empty,
    empty_like,
    eye,
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
from ._elementwise import FUNCTIONS as _ELEMENTWISE
from ._elementwise import clip
from ._elementwise import direct_impl as _direct_impl
from ._extensions import cross, cumprod, cumsum, einsum, pad, sliding_window_view
from ._indexing import getitem, setitem, take, take_along_axis, view_getitem, view_permute
from ._linear import matmul, tensordot, vecdot
from ._manipulation import (
    broadcast_arrays,
    broadcast_shapes,
    broadcast_to,
    concat,
    expand_dims,
    flip,
    matrix_transpose,
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
from ._searching import (
    UniqueAllResult,
    UniqueCountsResult,
    UniqueInverseResult,
    argmax,
    argmin,
    argsort,
    count_nonzero,
    isin,
    nonzero,
    searchsorted,
    sort,
    unique_all,
    unique_counts,
    unique_inverse,
    unique_values,
    where,
)
from ._statistical import (
    all,
    any,
    cumulative_prod,
    cumulative_sum,
    diff,
    max,
    mean,
    min,
    prod,
    std,
    sum,
    var,
)
from ._statistical import direct_reduction as _direct_reduction

__array_api_version__ = "2025.12"

globals().update(_ELEMENTWISE)

#: Where this namespace leaves MLX for the host (NumPy), and why.  Each
#: such move is counted by the transfer ledger.
HOST_FALLBACKS: list[str] = [
    "a 0-d boolean MLX array in an index: its value decides the shape (moves it down)",
    "repeat with an array of repeats: data-dependent shape (moves the repeats down and a gather "
    "index up; the gather runs in MLX)",
    "linalg.cholesky, det, inv, qr, slogdet, solve for complex64: MLX has no complex kernels",
    "indices given as host data (a list or NumPy array in getitem, setitem or take): the index moves to MLX",
]

#: Where this namespace refuses (``TypeError`` naming mlx, dtype and operation).
REFUSALS: list[str] = [
    "complex128 anywhere (inputs, results, dtype=): MLX cannot hold it",
    "fft.* of float64, integer or bool input: the transform would be complex128",
    "linalg.eig, linalg.eigvals of float64 (or integer) input: the result would be complex128",
    "linalg.* of float16: NumPy has no float16 linear algebra either",
    "astype from a complex dtype to a real one: the standard forbids it",
    "max, min, argmax, argmin, clip of complex64: complex numbers are not ordered",
]

e = _math.e
inf = _math.inf
nan = _math.nan
pi = _math.pi
newaxis = None

bool = _np.dtype("bool")
int8 = _np.dtype("int8")
int16 = _np.dtype("int16")
int32 = _np.dtype("int32")
int64 = _np.dtype("int64")
uint8 = _np.dtype("uint8")
uint16 = _np.dtype("uint16")
uint32 = _np.dtype("uint32")
uint64 = _np.dtype("uint64")
float16 = _np.dtype("float16")
float32 = _np.dtype("float32")
float64 = _np.dtype("float64")
complex64 = _np.dtype("complex64")
#: present so that code naming it gets the dtype object; MLX cannot hold it,
#: and every function asked for it raises ``TypeError``.
complex128 = _np.dtype("complex128")


def astype(x: _mx.array, dtype: _Any, /, *, copy: _builtins.bool = True, device: _Any = None) -> _mx.array:
    """Array API ``astype``.  Complex to real is refused (the standard
    forbids it); to bool means ``!= 0`` (NaN is true)."""
    _require_array(x, "astype")
    dt = _as_np_dtype(dtype)
    target = _check_holdable("astype", dt)
    src = _dtype_of(x)
    if src == dt:
        return _fresh(x) if copy else x
    if src.kind == "c" and dt.kind != "c" and dt.kind != "b":
        raise TypeError(
            f"mlx astype: casting {src.name} to {dt.name} would discard the imaginary part; "
            "take real(x) or imag(x) first"
        )
    with _cpu_if(src, dt):
        if dt.kind == "b":
            return x != 0
        return x.astype(target)


def _dtype_arg(x: _Any) -> _Any:
    if isinstance(x, _mx.array):
        return _dtype_of(x)
    if isinstance(x, _mx.Dtype):
        return to_np_dtype(x)
    return x


def result_type(*arrays_and_dtypes: _Any) -> _np.dtype:
    """Array API ``result_type`` over MLX arrays, NumPy dtypes and Python
    scalars (weak)."""
    return _np.dtype(_compat.result_type(*(_dtype_arg(a) for a in arrays_and_dtypes)))  # type: ignore[attr-defined]


def can_cast(from_: _Any, to: _Any, /) -> _builtins.bool:
    """Array API ``can_cast``."""
    return _builtins.bool(_compat.can_cast(_dtype_arg(from_), _dtype_arg(to)))  # type: ignore[attr-defined]


def finfo(type: _Any, /) -> _Any:
    """Array API ``finfo`` (NumPy's)."""
    return _compat.finfo(_dtype_arg(type))  # type: ignore[attr-defined]


def iinfo(type: _Any, /) -> _Any:
    """Array API ``iinfo`` (NumPy's)."""
    return _compat.iinfo(_dtype_arg(type))  # type: ignore[attr-defined]


def isdtype(dtype: _Any, kind: _Any) -> _builtins.bool:
    """Array API ``isdtype``."""
    kind = tuple(_dtype_arg(k) for k in kind) if isinstance(kind, tuple) else _dtype_arg(kind)
    return _builtins.bool(_compat.isdtype(_dtype_arg(dtype), kind))  # type: ignore[attr-defined]


def from_dlpack(x: _Any, /, *, device: _Any = None, copy: _Any = None) -> _mx.array:
    """Array API ``from_dlpack``: an MLX array as is, anything else through
    NumPy (a counted host-to-mlx move)."""
    if isinstance(x, _mx.array):
        return _fresh(x) if copy else x
    return asarray(_np.from_dlpack(x), copy=True)


class _Info:
    """``__array_namespace_info__()`` of this namespace."""

    def capabilities(self) -> dict[str, _Any]:
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": None}

    def default_device(self) -> str:
        return "mlx"

    def devices(self) -> tuple[str, ...]:
        return ("mlx",)

    def default_dtypes(self, *, device: _Any = None) -> dict[str, _np.dtype]:
        return {
            "real floating": _DEFAULT_FLOAT,
            "complex floating": _DEFAULT_COMPLEX,
            "integral": _DEFAULT_INT,
            "indexing": _INDEX,
        }

    def dtypes(self, *, device: _Any = None, kind: _Any = None) -> dict[str, _np.dtype]:
        names = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                 "float32", "float64", "complex64")  # fmt: skip
        out = {n: _np.dtype(n) for n in names}
        if kind is None:
            return out
        return {n: d for n, d in out.items() if isdtype(d, kind)}


def __array_namespace_info__() -> _Info:
    return _Info()


# Empty inputs reach every function that is not elementwise as MLX-allocated
# arrays (see _core.empty_safe).  setitem is left out: it must write into the
# caller's own array.
for _name in list(globals()):
    _fn = globals()[_name]
    if (
        not _name.startswith("_")
        and callable(_fn)
        and getattr(_fn, "__module__", "").startswith(__name__ + ".")
        and _name not in _ELEMENTWISE
        and _name
        not in (
            "setitem",
            "view_getitem",
            "view_permute",
            "to_mx_dtype",
            "to_np_dtype",
            "supports_dtype",
            "broadcast_shapes",
        )
        and not isinstance(_fn, type)
    ):
        globals()[_name] = _empty_safe(_fn)
del _name, _fn

# Every function applies its row of the failure table (see mlx_evaluation.FAILURES
# and mlx_evaluation.guard): the one place that decides how MLX's evaluation
# failures reach the caller.  linalg and fft guard their own functions.
for _name in list(globals()):
    _fn = globals()[_name]
    if (
        not _name.startswith("_")
        and callable(_fn)
        and not isinstance(_fn, type)
        and getattr(_fn, "__module__", "").startswith(__name__)
    ):
        globals()[_name] = _guard(_name, _fn)
del _name, _fn

__all__ = sorted([n for n in globals() if not n.startswith("_") and n not in ("annotations",)])

# The public functions as this module made them (guarded): a function
# replaced later (a test's injected failure) is never taken directly.
_ORIGINALS = {n: globals()[n] for n in __all__}

#: The reductions :func:`direct_function` answers for (whole array, no keyword).
DIRECT_REDUCTIONS = frozenset(["sum", "prod", "mean", "max", "min"])


def direct_function(name: str, fn: _Any, signature: tuple[_Any, ...]) -> _Any:
    """The MLX function (an ``mlx.core`` function or a namespace impl) that
    ``fn``, this namespace's function ``name`` as the dispatch resolved it,
    is for arguments of ``signature``, for the dispatch's fast path:
    elementwise functions, MLX dtypes for arrays and Python types for
    scalars (once the function's own first call with that signature has
    judged it direct: nothing to cast, no float64 stream, MLX's result of
    the required dtype); :data:`DIRECT_REDUCTIONS`, ``(MLX dtype, ndim)``
    of a non-empty array reduced whole without keywords.  False where there
    is none (final): ``fn`` is not this module's own function (a corrected
    or a replaced one), ``name`` has a row in the failure table, or the
    signature was judged not direct; None where no call has judged it yet.
    Nothing is evaluated, nothing checked at the call: the caller calls it
    through :func:`unifiedarray.backends.mlx_evaluation.direct_call`."""
    if fn is not _ORIGINALS.get(name) or name in _FAILURES:
        return False
    if name in DIRECT_REDUCTIONS:
        return _direct_reduction(name, *signature)
    return _direct_impl(name, signature)
