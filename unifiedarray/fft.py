"""The ``fft`` extension (14 functions of Array API 2025.12), generated from
the tables in :mod:`unifiedarray._functions`.

>>> import unifiedarray as xp
>>> xp.fft.fft(xp.ones(4, dtype=xp.complex128)).shape
(4,)
"""

from typing import Any

from ._devices import DeviceLike
from ._functions import FFT_ARRAY, FFT_CREATION, make_generic

__all__ = list(FFT_ARRAY) + list(FFT_CREATION)

for _name in FFT_ARRAY:
    globals()[_name] = make_generic(f"fft.{_name}", "fft extension")
del _name


def _freq(name: str, n: int, d: float, dtype: Any, device: DeviceLike | None) -> Any:
    from ._array import dispatch
    from ._creation import _as_dtype, _device, default_float

    dev = _device(device)
    dt = default_float(dev) if dtype is None else _as_dtype(dtype, dev)
    return dispatch(f"fft.{name}", (n,), {"d": d, "dtype": dt}, device=dev)


def fftfreq(n: int, /, *, d: float = 1.0, dtype: Any = None, device: DeviceLike | None = None) -> Any:
    """The sample frequencies of ``fft`` for a signal of ``n`` samples.

    >>> import unifiedarray as xp
    >>> xp.fft.fftfreq(4).tolist()
    [0.0, 0.25, -0.5, -0.25]
    """
    return _freq("fftfreq", n, d, dtype, device)


def rfftfreq(n: int, /, *, d: float = 1.0, dtype: Any = None, device: DeviceLike | None = None) -> Any:
    """The sample frequencies of ``rfft`` for a signal of ``n`` samples."""
    return _freq("rfftfreq", n, d, dtype, device)
