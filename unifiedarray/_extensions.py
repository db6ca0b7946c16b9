"""NumPy's functions that generic libraries call on the namespace, beyond the
2025.12 standard: ``pad``, ``einsum``, ``cross``, ``gradient``, ``quantile``,
``median``, ``cumsum`` and ``cumprod`` (and the ``ddof=`` keyword of ``std``
and ``var``, in :mod:`unifiedarray._statistical`).

xarray's duck-array code calls them on an array's namespace
(``DataArray.rolling(...).mean()`` pads, ``cumulative_integrate`` pads and
sums, ``differentiate`` takes the gradient), and so does code ported from
NumPy.  Each has NumPy's signature and gives NumPy's answer (values, dtypes,
errors) on every device: each hands its call to the one dispatch, which runs
the device's own function where its compute namespace has one (NumPy's and
CuPy's, and the MLX namespace's ``pad``, ``einsum``, ``cross``, ``cumsum``
and ``cumprod``), or (``gradient``, ``quantile``, ``median`` and the NumPy
names of :data:`NUMPY_NAMES`) calls NumPy's own function, which reaches the
arrays through ``__array_function__`` and runs by its row of the route table
(:mod:`unifiedarray._routes`).

Every function here is made by :func:`numpy_extension`, the one place that
marks a function as outside the standard: inside :func:`unifiedarray.strict`
a call raises :class:`~unifiedarray.StrictModeError` naming it.

Example
-------
>>> import unifiedarray as xp
>>> xp.pad(xp.asarray([1.0, 2.0]), 1).tolist()
[0.0, 1.0, 2.0, 0.0]
>>> with xp.strict():
...     xp.pad(xp.asarray([1.0, 2.0]), 1)
Traceback (most recent call last):
    ...
unifiedarray._rules.StrictModeError: pad is a NumPy extension, not in the 2025.12 standard ...
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from . import _calls
from ._array import UnifiedArray
from ._creation import asarray
from ._data_types import DType
from ._rules import outside_standard

__all__ = [
    "EXTENSIONS",
    "NUMPY_NAMES",
    "allclose",
    "amax",
    "amin",
    "append",
    "argpartition",
    "argwhere",
    "around",
    "array",
    "array_equal",
    "array_split",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "average",
    "bincount",
    "cbrt",
    "choose",
    "column_stack",
    "compress",
    "convolve",
    "corrcoef",
    "cov",
    "cross",
    "cumprod",
    "cumsum",
    "deg2rad",
    "diag",
    "diagonal",
    "digitize",
    "dot",
    "dstack",
    "ediff1d",
    "einsum",
    "extract",
    "flatnonzero",
    "fmax",
    "fmin",
    "fmod",
    "gradient",
    "histogram",
    "hstack",
    "inner",
    "interp",
    "intersect1d",
    "isclose",
    "kron",
    "lexsort",
    "median",
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
    "numpy_extension",
    "outer",
    "pad",
    "partition",
    "percentile",
    "ptp",
    "quantile",
    "rad2deg",
    "ravel",
    "rint",
    "rollaxis",
    "select",
    "setdiff1d",
    "sliding_window_view",
    "split",
    "swapaxes",
    "trace",
    "transpose",
    "union1d",
    "unique",
    "vdot",
    "vstack",
]

F = TypeVar("F", bound=Callable[..., Any])

#: name -> function, for every NumPy extension of the namespace (the docs'
#: list and the strict-mode tests iterate over it).
EXTENSIONS: dict[str, Callable[..., Any]] = {}

_NOTE = "NumPy extension, not in the 2025.12 standard: refused inside ``unifiedarray.strict()``."


def numpy_extension(fn: F) -> F:
    """Mark ``fn`` as a NumPy extension of the namespace: registered in
    :data:`EXTENSIONS`, documented as such, refused in strict mode."""
    name = fn.__name__

    @functools.wraps(fn)
    def extension(*args: Any, **kwargs: Any) -> Any:
        outside_standard(name)
        return fn(*args, **kwargs)

    extension.__doc__ = f"{fn.__doc__.rstrip() if fn.__doc__ else name}\n\n    {_NOTE}\n"
    EXTENSIONS[name] = extension
    return extension  # type: ignore[return-value]


@numpy_extension
def pad(array: UnifiedArray, pad_width: Any, mode: Any = "constant", **kwargs: Any) -> UnifiedArray:
    """NumPy's ``pad``: every mode and keyword of ``numpy.pad``.

    >>> import unifiedarray as xp
    >>> xp.pad(xp.asarray([[1, 2]]), ((0, 0), (1, 2)), mode="edge").tolist()
    [[1, 1, 2, 2, 2]]
    """
    _calls.require_arrays("pad", array)
    return _calls.call("pad", (array, pad_width), {"mode": mode, **kwargs})


@numpy_extension
def einsum(*operands: Any, out: None = None, optimize: Any = False, **kwargs: Any) -> UnifiedArray:
    """NumPy's ``einsum`` (subscripts and operands, or the sublist form).

    >>> import unifiedarray as xp
    >>> a = xp.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> xp.einsum("ij,ij->i", a, a).tolist()
    [5.0, 25.0]
    """
    _no_out("einsum", out)
    if optimize is not False:
        kwargs["optimize"] = optimize
    return _calls.call_mixed("einsum", operands, kwargs)


@numpy_extension
def cross(
    a: UnifiedArray,
    b: UnifiedArray,
    axisa: int = -1,
    axisb: int = -1,
    axisc: int = -1,
    axis: int | None = None,
) -> UnifiedArray:
    """NumPy's ``cross`` (the standard has ``linalg.cross``).

    >>> import unifiedarray as xp
    >>> xp.cross(xp.asarray([1, 0, 0]), xp.asarray([0, 1, 0])).tolist()
    [0, 0, 1]
    """
    _calls.require_arrays("cross", a, b)
    axes = {"axisa": axisa, "axisb": axisb, "axisc": axisc}
    kwargs: dict[str, Any] = {k: v for k, v in axes.items() if v != -1}
    if axis is not None:
        kwargs["axis"] = axis
    return _calls.call("cross", (a, b), kwargs)


@numpy_extension
def gradient(f: UnifiedArray, *varargs: Any, axis: Any = None, edge_order: int = 1) -> Any:
    """NumPy's ``gradient``: one array, or a tuple of arrays for several axes.

    >>> import unifiedarray as xp
    >>> xp.gradient(xp.asarray([1.0, 2.0, 4.0, 7.0])).tolist()
    [1.0, 1.5, 2.5, 3.0]
    """
    _calls.require_arrays("gradient", f)
    # NumPy's own function, through the route table: on every device.
    return np.gradient(f, *varargs, axis=axis, edge_order=edge_order)  # type: ignore[call-overload]


@numpy_extension
def quantile(
    a: UnifiedArray,
    q: Any,
    axis: int | tuple[int, ...] | None = None,
    out: None = None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = False,
    *,
    weights: UnifiedArray | None = None,
) -> UnifiedArray:
    """NumPy's ``quantile``.  ``overwrite_input`` is accepted and ignored (it
    only permits NumPy to sort its input in place).

    >>> import unifiedarray as xp
    >>> float(xp.quantile(xp.asarray([1.0, 2.0, 3.0, 4.0]), 0.5))
    2.5
    """
    _calls.require_arrays("quantile", a)
    _no_out("quantile", out)
    kwargs: dict[str, Any] = {"axis": axis, "keepdims": keepdims}
    if method != "linear":
        kwargs["method"] = method
    if weights is not None:
        kwargs["weights"] = weights
    return np.quantile(a, q, **kwargs)  # NumPy's own function, through the route table


@numpy_extension
def median(
    a: UnifiedArray,
    axis: int | tuple[int, ...] | None = None,
    out: None = None,
    overwrite_input: bool = False,
    keepdims: bool = False,
) -> UnifiedArray:
    """NumPy's ``median``.  ``overwrite_input`` is accepted and ignored.

    >>> import unifiedarray as xp
    >>> float(xp.median(xp.asarray([3, 1, 2])))
    2.0
    """
    _calls.require_arrays("median", a)
    _no_out("median", out)
    result: UnifiedArray = np.median(a, axis=axis, keepdims=keepdims)  # type: ignore[assignment]  # the route table's
    return result


@numpy_extension
def cumsum(a: UnifiedArray, axis: int | None = None, dtype: DType | None = None, out: None = None) -> UnifiedArray:
    """NumPy's ``cumsum``: over the flattened array when ``axis`` is None
    (the standard has ``cumulative_sum``).

    >>> import unifiedarray as xp
    >>> xp.cumsum(xp.asarray([[1, 2], [3, 4]])).tolist()
    [1, 3, 6, 10]
    """
    _calls.require_arrays("cumsum", a)
    _no_out("cumsum", out)
    return _calls.call("cumsum", (a,), {"axis": axis, "dtype": dtype})


@numpy_extension
def cumprod(a: UnifiedArray, axis: int | None = None, dtype: DType | None = None, out: None = None) -> UnifiedArray:
    """NumPy's ``cumprod``: over the flattened array when ``axis`` is None
    (the standard has ``cumulative_prod``).

    >>> import unifiedarray as xp
    >>> xp.cumprod(xp.asarray([1, 2, 3])).tolist()
    [1, 2, 6]
    """
    _calls.require_arrays("cumprod", a)
    _no_out("cumprod", out)
    return _calls.call("cumprod", (a,), {"axis": axis, "dtype": dtype})


def _no_out(name: str, out: Any) -> None:
    if out is not None:
        raise TypeError(f"{name}: out= is not supported; use the returned array")


@numpy_extension
def sliding_window_view(
    x: UnifiedArray, window_shape: int | tuple[int, ...], axis: int | tuple[int, ...] | None = None
) -> UnifiedArray:
    """NumPy's ``lib.stride_tricks.sliding_window_view`` (reached as
    ``xp.lib.stride_tricks.sliding_window_view``, as xarray's rolling windows
    do), as a new array: NumPy's is a read-only view, and writes to either
    could not be seen by the other here, so the windows are a copy.

    >>> import unifiedarray as xp
    >>> xp.lib.stride_tricks.sliding_window_view(xp.asarray([1, 2, 3, 4]), 3).tolist()
    [[1, 2, 3], [2, 3, 4]]
    """
    _calls.require_arrays("sliding_window_view", x)
    return _calls.call("sliding_window_view", (x, window_shape), {"axis": axis})


# NumPy's functions generic libraries call on an array's namespace that the
# standard lacks (xarray's transpose and nan-reductions, scikit-learn's
# argpartition, code ported from NumPy): each is NumPy's own function, which
# reaches the arrays through ``__array_function__`` and so runs by its row of
# the route table (:mod:`unifiedarray._routes`) where the arrays live, with
# NumPy's signature and answer.  Refused in strict mode, as every extension.
_NUMPY_NAMED: list[str] = []  # filled by _numpy_named, as each is made


def _numpy_named(name: str) -> Callable[..., Any]:
    function = getattr(np, name)

    def forward(*args: Any, **kwargs: Any) -> Any:
        return function(*args, **kwargs)

    _NUMPY_NAMED.append(name)
    forward.__name__ = forward.__qualname__ = name
    forward.__doc__ = (
        f"NumPy's ``{name}``, run where its arrays live by its row of the route table "
        f"(``unifiedarray._routes.ROUTES[{name!r}]``): NumPy's signature and answer."
    )
    return numpy_extension(forward)


transpose: Callable[..., Any] = _numpy_named("transpose")
swapaxes: Callable[..., Any] = _numpy_named("swapaxes")
rollaxis: Callable[..., Any] = _numpy_named("rollaxis")
atleast_1d: Callable[..., Any] = _numpy_named("atleast_1d")
atleast_2d: Callable[..., Any] = _numpy_named("atleast_2d")
atleast_3d: Callable[..., Any] = _numpy_named("atleast_3d")
ravel: Callable[..., Any] = _numpy_named("ravel")
partition: Callable[..., Any] = _numpy_named("partition")
argpartition: Callable[..., Any] = _numpy_named("argpartition")
nansum: Callable[..., Any] = _numpy_named("nansum")
nanprod: Callable[..., Any] = _numpy_named("nanprod")
nanmean: Callable[..., Any] = _numpy_named("nanmean")
nanvar: Callable[..., Any] = _numpy_named("nanvar")
nanstd: Callable[..., Any] = _numpy_named("nanstd")
nanmax: Callable[..., Any] = _numpy_named("nanmax")
nanmin: Callable[..., Any] = _numpy_named("nanmin")
nanargmax: Callable[..., Any] = _numpy_named("nanargmax")
nanargmin: Callable[..., Any] = _numpy_named("nanargmin")
nancumsum: Callable[..., Any] = _numpy_named("nancumsum")
nancumprod: Callable[..., Any] = _numpy_named("nancumprod")
nanmedian: Callable[..., Any] = _numpy_named("nanmedian")
nanquantile: Callable[..., Any] = _numpy_named("nanquantile")
nanpercentile: Callable[..., Any] = _numpy_named("nanpercentile")
percentile: Callable[..., Any] = _numpy_named("percentile")
average: Callable[..., Any] = _numpy_named("average")
cov: Callable[..., Any] = _numpy_named("cov")
corrcoef: Callable[..., Any] = _numpy_named("corrcoef")
ptp: Callable[..., Any] = _numpy_named("ptp")
histogram: Callable[..., Any] = _numpy_named("histogram")
bincount: Callable[..., Any] = _numpy_named("bincount")
digitize: Callable[..., Any] = _numpy_named("digitize")
interp: Callable[..., Any] = _numpy_named("interp")
convolve: Callable[..., Any] = _numpy_named("convolve")
diagonal: Callable[..., Any] = _numpy_named("diagonal")
trace: Callable[..., Any] = _numpy_named("trace")
diag: Callable[..., Any] = _numpy_named("diag")
dot: Callable[..., Any] = _numpy_named("dot")
vdot: Callable[..., Any] = _numpy_named("vdot")
inner: Callable[..., Any] = _numpy_named("inner")
outer: Callable[..., Any] = _numpy_named("outer")
kron: Callable[..., Any] = _numpy_named("kron")
vstack: Callable[..., Any] = _numpy_named("vstack")
hstack: Callable[..., Any] = _numpy_named("hstack")
dstack: Callable[..., Any] = _numpy_named("dstack")
column_stack: Callable[..., Any] = _numpy_named("column_stack")
split: Callable[..., Any] = _numpy_named("split")
array_split: Callable[..., Any] = _numpy_named("array_split")
append: Callable[..., Any] = _numpy_named("append")
argwhere: Callable[..., Any] = _numpy_named("argwhere")
flatnonzero: Callable[..., Any] = _numpy_named("flatnonzero")
nan_to_num: Callable[..., Any] = _numpy_named("nan_to_num")
isclose: Callable[..., Any] = _numpy_named("isclose")
allclose: Callable[..., Any] = _numpy_named("allclose")
array_equal: Callable[..., Any] = _numpy_named("array_equal")
around: Callable[..., Any] = _numpy_named("around")
rint: Callable[..., Any] = _numpy_named("rint")
fmax: Callable[..., Any] = _numpy_named("fmax")
fmin: Callable[..., Any] = _numpy_named("fmin")
fmod: Callable[..., Any] = _numpy_named("fmod")
cbrt: Callable[..., Any] = _numpy_named("cbrt")
deg2rad: Callable[..., Any] = _numpy_named("deg2rad")
rad2deg: Callable[..., Any] = _numpy_named("rad2deg")
amax: Callable[..., Any] = _numpy_named("amax")
amin: Callable[..., Any] = _numpy_named("amin")
ediff1d: Callable[..., Any] = _numpy_named("ediff1d")
unique: Callable[..., Any] = _numpy_named("unique")
intersect1d: Callable[..., Any] = _numpy_named("intersect1d")
setdiff1d: Callable[..., Any] = _numpy_named("setdiff1d")
union1d: Callable[..., Any] = _numpy_named("union1d")
lexsort: Callable[..., Any] = _numpy_named("lexsort")
select: Callable[..., Any] = _numpy_named("select")
choose: Callable[..., Any] = _numpy_named("choose")
compress: Callable[..., Any] = _numpy_named("compress")
extract: Callable[..., Any] = _numpy_named("extract")

#: The NumPy functions made above, in order (the docs' list and the tests iterate over it).
NUMPY_NAMES: tuple[str, ...] = tuple(_NUMPY_NAMED)


@numpy_extension
def array(obj: Any, dtype: Any = None, *, copy: bool | None = True, device: Any = None) -> UnifiedArray:
    """NumPy's ``array``: the standard's ``asarray`` that copies by default.

    >>> import unifiedarray as xp
    >>> xp.array([1, 2]).tolist()
    [1, 2]
    """
    return asarray(obj, dtype=dtype, copy=copy, device=device)
