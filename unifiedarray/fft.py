"""The ``fft`` extension of Array API 2025.12.

Each function is the standard's signature, written out, handing its call to
the one dispatch (:mod:`unifiedarray._dispatch`), which runs it on the
device where its arrays live.

Example
-------
>>> import unifiedarray as xp
>>> xp.fft.fft(xp.ones(4, dtype=xp.complex128)).shape
(4,)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from . import _calls, _placement
from ._array import UnifiedArray
from ._devices import DeviceLike
from ._dtypes import DType, as_dtype, default_float
from ._index import normalise_axes

__all__ = [
    "fft",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "ifft",
    "ifftn",
    "ifftshift",
    "ihfft",
    "irfft",
    "irfftn",
    "rfft",
    "rfftfreq",
    "rfftn",
]


def fft(
    x: UnifiedArray,
    /,
    *,
    n: int | None = None,
    axis: int = -1,
    norm: Literal["backward", "ortho", "forward"] = "backward",
) -> UnifiedArray:
    """``fft.fft`` (fft extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.fft.fft.html
    """
    return _calls.call("fft.fft", (x,), {"n": n, "axis": _axis(x, axis, "fft.fft"), "norm": norm})


def ifft(
    x: UnifiedArray,
    /,
    *,
    n: int | None = None,
    axis: int = -1,
    norm: Literal["backward", "ortho", "forward"] = "backward",
) -> UnifiedArray:
    """``fft.ifft`` (fft extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.fft.ifft.html
    """
    return _calls.call("fft.ifft", (x,), {"n": n, "axis": _axis(x, axis, "fft.ifft"), "norm": norm})


def fftn(
    x: UnifiedArray,
    /,
    *,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: Literal["backward", "ortho", "forward"] = "backward",
) -> UnifiedArray:
    """``fft.fftn`` (fft extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.fft.fftn.html
    """
    return _calls.call("fft.fftn", (x,), {"s": s, "axes": _axes(x, axes, "fft.fftn"), "norm": norm})


def ifftn(
    x: UnifiedArray,
    /,
    *,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: Literal["backward", "ortho", "forward"] = "backward",
) -> UnifiedArray:
    """``fft.ifftn`` (fft extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.fft.ifftn.html
    """
    return _calls.call("fft.ifftn", (x,), {"s": s, "axes": _axes(x, axes, "fft.ifftn"), "norm": norm})


def rfft(
    x: UnifiedArray,
    /,
    *,
    n: int | None = None,
    axis: int = -1,
    norm: Literal["backward", "ortho", "forward"] = "backward",
) -> UnifiedArray:
    """``fft.rfft`` (fft extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.fft.rfft.html
    """
    return _calls.call("fft.rfft", (x,), {"n": n, "axis": _axis(x, axis, "fft.rfft"), "norm": norm})


def irfft(
    x: UnifiedArray,
    /,
    *,
    n: int | None = None,
    axis: int = -1,
    norm: Literal["backward", "ortho", "forward"] = "backward",
) -> UnifiedArray:
    """``fft.irfft`` (fft extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.fft.irfft.html
    """
    return _calls.call("fft.irfft", (x,), {"n": n, "axis": _axis(x, axis, "fft.irfft"), "norm": norm})


def rfftn(
    x: UnifiedArray,
    /,
    *,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: Literal["backward", "ortho", "forward"] = "backward",
) -> UnifiedArray:
    """``fft.rfftn`` (fft extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.fft.rfftn.html
    """
    return _calls.call("fft.rfftn", (x,), {"s": s, "axes": _axes(x, axes, "fft.rfftn"), "norm": norm})


def irfftn(
    x: UnifiedArray,
    /,
    *,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: Literal["backward", "ortho", "forward"] = "backward",
) -> UnifiedArray:
    """``fft.irfftn`` (fft extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.fft.irfftn.html
    """
    return _calls.call("fft.irfftn", (x,), {"s": s, "axes": _axes(x, axes, "fft.irfftn"), "norm": norm})


def hfft(
    x: UnifiedArray,
    /,
    *,
    n: int | None = None,
    axis: int = -1,
    norm: Literal["backward", "ortho", "forward"] = "backward",
) -> UnifiedArray:
    """``fft.hfft`` (fft extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.fft.hfft.html
    """
    return _calls.call("fft.hfft", (x,), {"n": n, "axis": _axis(x, axis, "fft.hfft"), "norm": norm})


def ihfft(
    x: UnifiedArray,
    /,
    *,
    n: int | None = None,
    axis: int = -1,
    norm: Literal["backward", "ortho", "forward"] = "backward",
) -> UnifiedArray:
    """``fft.ihfft`` (fft extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.fft.ihfft.html
    """
    return _calls.call("fft.ihfft", (x,), {"n": n, "axis": _axis(x, axis, "fft.ihfft"), "norm": norm})


def fftshift(x: UnifiedArray, /, *, axes: int | Sequence[int] | None = None) -> UnifiedArray:
    """``fft.fftshift`` (fft extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.fft.fftshift.html
    """
    return _calls.call("fft.fftshift", (x,), {"axes": _axes(x, axes, "fft.fftshift")})


def ifftshift(x: UnifiedArray, /, *, axes: int | Sequence[int] | None = None) -> UnifiedArray:
    """``fft.ifftshift`` (fft extension), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.fft.ifftshift.html
    """
    return _calls.call("fft.ifftshift", (x,), {"axes": _axes(x, axes, "fft.ifftshift")})


def _axes(x: UnifiedArray, axes: int | Sequence[int] | None, name: str) -> tuple[int, ...] | None:
    """The axes as the one reading of axes checks them, for every device
    (CuPy's transforms raise ``ValueError`` for an axis out of range, where
    NumPy's and the standard's is ``AxisError``, an ``IndexError``); None
    stays None (the transform's default)."""
    _calls.require_arrays(name, x)
    return None if axes is None else normalise_axes(axes, x.ndim, name)


def _axis(x: UnifiedArray, axis: int, name: str) -> int:
    """One axis, checked as :func:`_axes` checks axes."""
    _calls.require_arrays(name, x)
    return normalise_axes(axis, x.ndim, name)[0]


def fftfreq(n: int, /, *, d: float = 1.0, dtype: DType | None = None, device: DeviceLike | None = None) -> UnifiedArray:
    """The sample frequencies of ``fft`` for a signal of ``n`` samples.

    >>> import unifiedarray as xp
    >>> xp.fft.fftfreq(4).tolist()
    [0.0, 0.25, -0.5, -0.25]
    """
    dev = _placement.placement(device)
    dt = default_float(dev) if dtype is None else as_dtype(dtype, dev)
    return _calls.call_mixed("fft.fftfreq", (n,), {"d": d, "dtype": dt}, device=dev)


def rfftfreq(
    n: int, /, *, d: float = 1.0, dtype: DType | None = None, device: DeviceLike | None = None
) -> UnifiedArray:
    """The sample frequencies of ``rfft`` for a signal of ``n`` samples.

    >>> import unifiedarray as xp
    >>> xp.fft.rfftfreq(4).tolist()
    [0.0, 0.25, 0.5]
    """
    dev = _placement.placement(device)
    dt = default_float(dev) if dtype is None else as_dtype(dtype, dev)
    return _calls.call_mixed("fft.rfftfreq", (n,), {"d": d, "dtype": dt}, device=dev)
