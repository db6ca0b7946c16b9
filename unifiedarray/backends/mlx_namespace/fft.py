"""The ``fft`` extension over MLX arrays (Array API 2025.12, 14 functions).

MLX's transforms work in complex64 only: float64 and int input, whose
transforms are complex128 (or, for the inverse real transforms, computed
through complex128), are refused with a ``TypeError`` rather than computed
in single precision.  ``hfft`` and ``ihfft``, which MLX lacks, are
``irfft`` and ``rfft`` of the conjugate with the normalisation swapped, as
in NumPy.  Normalisation is applied here, after MLX's "backward" transforms.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from typing import Any, Literal

import mlx.core as mx
import numpy as np

from ..mlx_evaluation import guard
from ._core import (
    DEFAULT_FLOAT,
    FLOAT64,
    Array,
    as_np_dtype,
    check_holdable,
    cpu_if,
    dtype_of,
    empty_safe,
    float64_on_cpu,
    normalize_axis,
    refuse,
    require_array,
    result_dtype,
)
from ._manipulation import roll as _roll

_INT64_MAX = int(np.iinfo(np.int64).max)

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
]  # fmt: skip

Norm = Literal["backward", "ortho", "forward"]
_SINGLE = {np.dtype("float16"), np.dtype("float32"), np.dtype("complex64")}
_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _prepare(x: Array, name: str, real_input: bool) -> tuple[Array, np.dtype]:
    """``x`` in the dtype MLX transforms it in, and the result dtype."""
    require_array(x, name)
    out = result_dtype(f"fft.{name}", x)
    src = dtype_of(x)
    if src not in _SINGLE:
        raise refuse(f"fft.{name}", src, "mlx transforms in complex64 only; this dtype's transform needs complex128")
    check_holdable(f"fft.{name}", out)
    return x.astype(mx.float32 if real_input else mx.complex64), out


def _scale(y: Array, n: int, norm: str, inverse: bool) -> Array:
    if norm not in _SWAP:
        raise ValueError(f"mlx fft: norm must be 'backward', 'ortho' or 'forward', not {norm!r}")
    if norm == "backward" or n == 0:
        return y
    f = (math.sqrt(n) if inverse else 1.0 / math.sqrt(n)) if norm == "ortho" else float(n) if inverse else 1.0 / n
    return y * f


def _finish(y: Array, out: np.dtype) -> Array:
    target = check_holdable("fft", out)
    return y if y.dtype == target else y.astype(target)


def _one(name: str, mlx_fn: Callable[..., Array], real_input: bool, inverse: bool, c2r: bool) -> Callable[..., Array]:
    def fn(x: Array, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> Array:
        xc, out = _prepare(x, name, real_input)
        ax = normalize_axis(axis, xc.ndim, name)
        if n is not None and not 1 <= operator.index(n) <= _INT64_MAX:
            raise ValueError(f"mlx fft.{name}: n must be positive (and fit an int64)")
        length = n if n is not None else (2 * (xc.shape[ax] - 1) if c2r else xc.shape[ax])
        y = mlx_fn(xc, n=length, axis=ax)
        return _finish(_scale(y, length, norm, inverse), out)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Array API ``fft.{name}`` (complex64)."
    return fn


def _many(name: str, mlx_fn: Callable[..., Array], real_input: bool, inverse: bool, c2r: bool) -> Callable[..., Array]:
    def fn(
        x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None, norm: Norm = "backward"
    ) -> Array:
        xc, out = _prepare(x, name, real_input)
        if axes is None:
            axes_t = tuple(range(xc.ndim)) if s is None else tuple(range(xc.ndim - len(s), xc.ndim))
        else:
            axes_t = tuple(normalize_axis(a, xc.ndim, name) for a in axes)
        if s is None:
            sizes = [xc.shape[a] for a in axes_t]
            if c2r and sizes:
                sizes[-1] = 2 * (sizes[-1] - 1)
        else:
            sizes = [operator.index(v) for v in s]
            if len(sizes) != len(axes_t):
                raise ValueError(f"mlx fft.{name}: s and axes must have the same length")
        if not axes_t:
            return _finish(xc, out)
        y = mlx_fn(xc, s=sizes, axes=list(axes_t))
        return _finish(_scale(y, math.prod(sizes), norm, inverse), out)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Array API ``fft.{name}`` (complex64)."
    return fn


fft = _one("fft", mx.fft.fft, False, False, False)
ifft = _one("ifft", mx.fft.ifft, False, True, False)
rfft = _one("rfft", mx.fft.rfft, True, False, False)
irfft = _one("irfft", mx.fft.irfft, False, True, True)
fftn = _many("fftn", mx.fft.fftn, False, False, False)
ifftn = _many("ifftn", mx.fft.ifftn, False, True, False)
rfftn = _many("rfftn", mx.fft.rfftn, True, False, False)
irfftn = _many("irfftn", mx.fft.irfftn, False, True, True)


def hfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> Array:
    """Array API ``fft.hfft``: the real spectrum of a Hermitian signal,
    ``irfft(conj(x))`` with the normalisation swapped (as NumPy)."""
    require_array(x, "hfft")
    out = result_dtype("fft.hfft", x)
    xc, _ = _prepare(x, "hfft", False)
    y = irfft(mx.conj(xc), n=n, axis=axis, norm=_SWAP.get(norm, norm))
    return _finish(y, out)


def ihfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> Array:
    """Array API ``fft.ihfft``: ``conj(rfft(x))`` with the normalisation
    swapped (as NumPy)."""
    require_array(x, "ihfft")
    out = result_dtype("fft.ihfft", x)
    xc, _ = _prepare(x, "ihfft", True)
    y = mx.conj(rfft(xc, n=n, axis=axis, norm=_SWAP.get(norm, norm)))
    return _finish(y, out)


def _freq_dtype(dtype: Any) -> tuple[np.dtype, Any]:
    dt = DEFAULT_FLOAT if dtype is None else as_np_dtype(dtype)
    if dt.kind != "f":
        raise TypeError(f"mlx fft frequencies: dtype must be a real floating dtype, not {dt.name}")
    return dt, check_holdable("fftfreq", dt)


def fftfreq(n: int, /, *, d: float = 1.0, dtype: Any = None, device: Any = None) -> Array:
    """Array API ``fft.fftfreq`` (computed in float64, then cast)."""
    n = operator.index(n)
    if n <= 0:
        raise ValueError("mlx fft.fftfreq: n must be positive")
    dt, mdt = _freq_dtype(dtype)
    with cpu_if(dt, FLOAT64):
        k = mx.arange(n, dtype=mx.int64)
        k = mx.where(k < (n + 1) // 2, k, k - n)
        out = k.astype(mx.float64) / (float(d) * n)
        return out if out.dtype == mdt else out.astype(mdt)


def rfftfreq(n: int, /, *, d: float = 1.0, dtype: Any = None, device: Any = None) -> Array:
    """Array API ``fft.rfftfreq`` (computed in float64, then cast)."""
    n = operator.index(n)
    if n <= 0:
        raise ValueError("mlx fft.rfftfreq: n must be positive")
    dt, mdt = _freq_dtype(dtype)
    with cpu_if(dt, FLOAT64):
        out = mx.arange(n // 2 + 1, dtype=mx.int64).astype(mx.float64) / (float(d) * n)
        return out if out.dtype == mdt else out.astype(mdt)


def _shift(x: Array, axes: int | Sequence[int] | None, inverse: bool, name: str) -> Array:
    require_array(x, name)
    if axes is None:
        axes_t = tuple(range(x.ndim))
    elif isinstance(axes, (int, np.integer)):
        axes_t = (normalize_axis(axes, x.ndim, name),)
    else:
        axes_t = tuple(normalize_axis(a, x.ndim, name) for a in axes)
    if not axes_t:
        return mx.array(x)
    shifts = tuple((-(x.shape[a] // 2) if inverse else x.shape[a] // 2) for a in axes_t)
    return _roll(x, shifts, axis=axes_t)


@float64_on_cpu
def fftshift(x: Array, /, *, axes: int | Sequence[int] | None = None) -> Array:
    """Array API ``fft.fftshift``."""
    return _shift(x, axes, False, "fftshift")


@float64_on_cpu
def ifftshift(x: Array, /, *, axes: int | Sequence[int] | None = None) -> Array:
    """Array API ``fft.ifftshift``."""
    return _shift(x, axes, True, "ifftshift")


# Empty inputs reach every function as MLX-allocated arrays (see _core.empty_safe);
# every function applies its row of the failure table (see mlx_evaluation.guard).
for _name in __all__:
    globals()[_name] = guard(f"fft.{_name}", empty_safe(globals()[_name]))
del _name
