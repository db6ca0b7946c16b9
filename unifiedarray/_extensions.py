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
and ``cumprod``), and otherwise runs NumPy's on the host, every move counted
(``gradient``, ``quantile`` and ``median`` on MLX).

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

from . import _calls
from ._array import UnifiedArray
from ._data_types import DType
from ._rules import outside_standard

__all__ = [
    "EXTENSIONS",
    "cross",
    "cumprod",
    "cumsum",
    "einsum",
    "gradient",
    "median",
    "numpy_extension",
    "pad",
    "quantile",
    "sliding_window_view",
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
    return _calls.call("gradient", (f, *varargs), {"axis": axis, "edge_order": edge_order})


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
    return _calls.call("quantile", (a, q), kwargs)


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
    return _calls.call("median", (a,), {"axis": axis, "keepdims": keepdims})


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
