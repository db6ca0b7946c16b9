"""The statistical functions (Array API chapter "Statistical Functions").

Each function is the standard's signature, written out, handing its call to
the one dispatch (:mod:`unifiedarray._dispatch`), which runs it on the
device where its arrays live.
"""

from __future__ import annotations

from . import _calls, _reductions, _rules, _view_ops
from ._array import UnifiedArray
from ._data_types import DType, astype
from ._dtypes import as_dtype

__all__ = ["cumulative_prod", "cumulative_sum", "max", "mean", "min", "prod", "std", "sum", "var"]


def _strict_kind(name: str, x: UnifiedArray) -> None:
    if type(x) is UnifiedArray:
        _rules.unary(name, x.dtype)  # strict mode: the standard's dtype category


def _cumulative(
    name: str, x: UnifiedArray, axis: int | None, dtype: DType | None, include_initial: bool
) -> UnifiedArray:
    _strict_kind(name, x)
    if type(x) is UnifiedArray and x.ndim == 0 and axis is None:
        # The rules' answer for a 0-d array: the 1-d array of its element, on every device.
        _rules.cumulative_of_0d(name, include_initial)
        x, axis = _view_ops.reshaped(x, (1,)), 0
    return _calls.call(name, (x,), {"axis": axis, "dtype": dtype, "include_initial": include_initial})


def cumulative_prod(
    x: UnifiedArray, /, *, axis: int | None = None, dtype: DType | None = None, include_initial: bool = False
) -> UnifiedArray:
    """``cumulative_prod`` (statistical), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.cumulative_prod.html
    """
    return _cumulative("cumulative_prod", x, axis, dtype, include_initial)


def cumulative_sum(
    x: UnifiedArray, /, *, axis: int | None = None, dtype: DType | None = None, include_initial: bool = False
) -> UnifiedArray:
    """``cumulative_sum`` (statistical), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.cumulative_sum.html
    """
    return _cumulative("cumulative_sum", x, axis, dtype, include_initial)


def max(x: UnifiedArray, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> UnifiedArray:
    """``max`` (statistical), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.max.html
    """
    return _reductions.reduction("max", x, axis, None, keepdims)


def mean(
    x: UnifiedArray,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    keepdims: bool = False,
    dtype: DType | None = None,
) -> UnifiedArray:
    """``mean`` (statistical), run where its arrays live.

    ``dtype=`` is NumPy's: the elements are taken as ``dtype`` and the mean
    computed and returned in it (``mean(ints, dtype=float32)``).  A NumPy
    extension, not in the 2025.12 standard (refused inside
    ``unifiedarray.strict()``).

    >>> import unifiedarray as xp
    >>> xp.mean(xp.asarray([1, 2]), dtype=xp.float32).dtype
    dtype('float32')

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.mean.html
    """
    if dtype is not None:
        _rules.outside_standard("mean(dtype=...)")
        if type(x) is UnifiedArray:
            want = as_dtype(dtype, x.device)
            taken = mean(astype(x, want, copy=False), axis=axis, keepdims=keepdims)
            # NumPy's: an integer dtype= truncates the mean into it, as its division into out= does.
            return taken if taken.dtype == want else astype(taken, want, copy=False)
    _strict_kind("mean", x)
    if axis is None and keepdims is False and type(x) is UnifiedArray:
        res = _reductions.on_device("mean", x)
        if res is not None:
            return res
    return _calls.call("mean", (x,), {"axis": axis, "keepdims": keepdims})


def min(x: UnifiedArray, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> UnifiedArray:
    """``min`` (statistical), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.min.html
    """
    return _reductions.reduction("min", x, axis, None, keepdims)


def prod(
    x: UnifiedArray, /, *, axis: int | tuple[int, ...] | None = None, dtype: DType | None = None, keepdims: bool = False
) -> UnifiedArray:
    """``prod`` (statistical), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.prod.html
    """
    return _reductions.reduction("prod", x, axis, dtype, keepdims)


def std(
    x: UnifiedArray,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    correction: float | None = None,
    keepdims: bool = False,
    ddof: float | None = None,
) -> UnifiedArray:
    """``std`` (statistical), run where its arrays live.  ``correction``
    None is the standard's default, 0.

    ``ddof=`` is NumPy's name for ``correction``: a NumPy extension, not in
    the 2025.12 standard (refused inside ``unifiedarray.strict()``).  As in
    NumPy, a non-zero ``ddof`` with ``correction`` is a ``ValueError``.

    >>> import unifiedarray as xp
    >>> float(xp.std(xp.asarray([1.0, 3.0]), ddof=1)) == float(xp.std(xp.asarray([1.0, 3.0]), correction=1))
    True

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.std.html
    """
    _strict_kind("std", x)
    return _calls.call(
        "std", (x,), {"axis": axis, "correction": _correction("std", correction, ddof), "keepdims": keepdims}
    )


def sum(
    x: UnifiedArray, /, *, axis: int | tuple[int, ...] | None = None, dtype: DType | None = None, keepdims: bool = False
) -> UnifiedArray:
    """``sum`` (statistical), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.sum.html
    """
    return _reductions.reduction("sum", x, axis, dtype, keepdims)


def var(
    x: UnifiedArray,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    correction: float | None = None,
    keepdims: bool = False,
    ddof: float | None = None,
) -> UnifiedArray:
    """``var`` (statistical), run where its arrays live.  ``correction``
    None is the standard's default, 0.

    ``ddof=`` is NumPy's name for ``correction``: a NumPy extension, not in
    the 2025.12 standard (refused inside ``unifiedarray.strict()``).  As in
    NumPy, a non-zero ``ddof`` with ``correction`` is a ``ValueError``.

    >>> import unifiedarray as xp
    >>> float(xp.var(xp.asarray([1.0, 3.0]), ddof=1)) == float(xp.var(xp.asarray([1.0, 3.0]), correction=1))
    True

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.var.html
    """
    _strict_kind("var", x)
    return _calls.call(
        "var", (x,), {"axis": axis, "correction": _correction("var", correction, ddof), "keepdims": keepdims}
    )


def _correction(name: str, correction: float | None, ddof: float | None) -> float:
    """The correction ``std``/``var`` apply, from the standard's
    ``correction`` and NumPy's ``ddof`` (NumPy's rule for both)."""
    if ddof is not None:
        _rules.outside_standard(f"{name}(ddof=...)")
        if correction is not None:
            if ddof != 0:
                raise ValueError(f"{name}: ddof and correction can't be provided simultaneously.")
            return correction
        return ddof
    return 0.0 if correction is None else correction
