"""NumPy's functions of numbers beyond the ufuncs (comparisons with
tolerance, ``nan_to_num``, ``sinc``, ``angle``, ``unwrap``, ``interp``,
polynomials, ``i0``), and creation from an array (``zeros_like``,
``linspace`` of arrays), written once against the namespace.

Example
-------
>>> import unifiedarray as xp
>>> bool(ROUTES["allclose"].target(xp, xp.asarray([1.0]), xp.asarray([1.0 + 1e-9])))
True
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._common import all_arrays, is_array
from ._route import Route, compose, host
from .shapes import trim_zeros
from .statistics import convolve

__all__ = ["ROUTES"]


def _isclose(xp: Any, a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Any:
    if not (is_array(a) or is_array(b)):
        return None
    like = a if is_array(a) else b
    dt = np.result_type(*(x.dtype if is_array(x) else x for x in (a, b)), 1.0)
    x = xp.astype(a, dt) if is_array(a) else xp.asarray(a, dtype=dt, device=like.device)
    y = xp.astype(b, dt) if is_array(b) else xp.asarray(b, dtype=dt, device=like.device)
    finite = xp.isfinite(x) & xp.isfinite(y)
    close = xp.abs(x - y) <= atol + rtol * xp.abs(y)
    out = xp.where(finite, close, x == y)
    if equal_nan:
        out = out | (xp.isnan(x) & xp.isnan(y))
    return out


def _allclose(xp: Any, a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Any:
    close = _isclose(xp, a, b, rtol, atol, equal_nan)
    return None if close is None else bool(xp.all(close))


def _array_equal(xp: Any, a1: Any, a2: Any, equal_nan: bool = False) -> Any:
    if not all_arrays(a1, a2):
        return None
    if a1.shape != a2.shape:
        return False
    same = a1 == a2
    if equal_nan and a1.dtype.kind in "fc" and a2.dtype.kind in "fc":
        same = same | (xp.isnan(a1) & xp.isnan(a2))
    return bool(xp.all(same))


def _array_equiv(xp: Any, a1: Any, a2: Any) -> Any:
    if not all_arrays(a1, a2):
        return None
    try:
        np.broadcast_shapes(a1.shape, a2.shape)
    except ValueError:
        return False
    return bool(xp.all(a1 == a2))


def _nan_to_num(xp: Any, x: Any, copy: bool = True, nan: float = 0.0, posinf: Any = None, neginf: Any = None) -> Any:
    if not is_array(x) or not copy:
        return None
    if not xp.isdtype(x.dtype, ("real floating", "complex floating")):
        return x
    if xp.isdtype(x.dtype, "complex floating"):
        re = _nan_to_num(xp, xp.real(x), True, nan, posinf, neginf)
        im = _nan_to_num(xp, xp.imag(x), True, nan, posinf, neginf)
        return xp.astype(re, x.dtype) + xp.astype(im, x.dtype) * 1j
    big = float(np.finfo(x.dtype).max)
    hi = big if posinf is None else posinf
    lo = -big if neginf is None else neginf
    out = xp.where(xp.isnan(x), nan, x)
    out = xp.where(xp.isinf(out) & (out > 0), hi, out)
    return xp.where(xp.isinf(out) & (out < 0), lo, out)


def _sinc(xp: Any, x: Any) -> Any:
    if not is_array(x):
        return None
    y = math.pi * xp.where(
        x == 0, 1.0e-20, x if xp.isdtype(x.dtype, ("real floating", "complex floating")) else xp.astype(x, xp.float64)
    )
    return xp.sin(y) / y


def _angle(xp: Any, z: Any, deg: bool = False) -> Any:
    if not is_array(z):
        return None
    if xp.isdtype(z.dtype, "complex floating"):
        out = xp.atan2(xp.imag(z), xp.real(z))
    else:
        loop = np.arctan2.resolve_dtypes((int, z.dtype, None))[0]  # NumPy's arctan2(0, z): uint8 in float16
        zf = xp.astype(z, loop)
        out = xp.atan2(xp.zeros_like(zf), zf)
    return out * (180 / math.pi) if deg else out


def _iscomplex(xp: Any, x: Any) -> Any:
    if not is_array(x):
        return None
    if xp.isdtype(x.dtype, "complex floating"):
        return xp.imag(x) != 0
    return xp.zeros(x.shape, dtype=xp.bool, device=x.device)


def _isreal(xp: Any, x: Any) -> Any:
    out = _iscomplex(xp, x)
    return None if out is None else ~out


def _signed_inf(positive: bool) -> Any:
    def recipe(xp: Any, x: Any, out: Any = None) -> Any:
        if out is not None or not is_array(x):
            return None
        if xp.isdtype(x.dtype, "complex floating"):
            raise TypeError("This operation is not supported for complex values because it would be ambiguous.")
        if not xp.isdtype(x.dtype, "real floating"):
            return xp.zeros(x.shape, dtype=xp.bool, device=x.device)
        return xp.isinf(x) & ((x > 0) if positive else (x < 0))

    return recipe


def _real_if_close(xp: Any, a: Any, tol: float = 100) -> Any:
    if not is_array(a):
        return None
    if not xp.isdtype(a.dtype, "complex floating"):
        return a
    t = tol * np.finfo(a.dtype).eps if tol > 1 else tol
    return xp.real(a) if bool(xp.all(xp.abs(xp.imag(a)) < t)) else a


def _unwrap(xp: Any, p: Any, discont: Any = None, axis: int = -1, *, period: float = 2 * math.pi) -> Any:
    if not is_array(p):
        return None
    # NumPy differences p in its own dtype (integers wrap), then computes in
    # the dtype of the differences and the period.
    dt = np.result_type(p.dtype if p.dtype != np.bool_ else np.int8, period)
    pf = xp.astype(p, dt)
    half = period / 2
    discont = half if discont is None else max(discont, half)
    dd = xp.astype(xp.diff(p, axis=axis), dt) if p.dtype != np.bool_ else xp.diff(pf, axis=axis)
    ddmod = xp.remainder(dd + half, period) - half
    ddmod = xp.where((ddmod == -half) & (dd > 0), half, ddmod)
    correct = xp.where(xp.abs(dd) < discont, 0.0, ddmod - dd)
    ax = axis % p.ndim
    head = [slice(None)] * p.ndim
    head[ax] = slice(0, 1)
    rest = [slice(None)] * p.ndim
    rest[ax] = slice(1, None)
    return xp.concat([pf[tuple(head)], pf[tuple(rest)] + xp.cumulative_sum(correct, axis=ax)], axis=ax)


def _interp(xp: Any, x: Any, xp_: Any, fp: Any, left: Any = None, right: Any = None, period: Any = None) -> Any:
    if not all_arrays(x, xp_, fp) or period is not None or xp_.ndim != 1 or fp.ndim != 1:
        return None
    if xp.isdtype(fp.dtype, "complex floating"):
        return None
    dt = np.dtype(np.float64)
    xs, xv, fv = xp.astype(x, dt), xp.astype(xp_, dt), xp.astype(fp, dt)
    n = xv.shape[0]
    if n == 0:
        raise ValueError("array of sample points is empty")
    j = xp.clip(xp.searchsorted(xv, xs, side="right") - 1, 0, max(n - 2, 0))
    x0, x1 = xp.take(xv, j), xp.take(xv, xp.clip(j + 1, 0, n - 1))
    f0, f1 = xp.take(fv, j), xp.take(fv, xp.clip(j + 1, 0, n - 1))
    slope = xp.where(x1 == x0, 0.0, (f1 - f0) / xp.where(x1 == x0, 1.0, x1 - x0))
    out = f0 + slope * (xs - x0)
    out = xp.where(xs == xv[-1], fv[-1], out)
    out = xp.where(xs < xv[0], fv[0] if left is None else left, out)
    return xp.where(xs > xv[-1], fv[-1] if right is None else right, out)


def _polyval(xp: Any, p: Any, x: Any) -> Any:
    if not all_arrays(p, x) or p.ndim == 0:
        return None
    dt = np.result_type(p.dtype, x.dtype)
    y = xp.zeros(np.broadcast_shapes(x.shape, p.shape[1:]), dtype=dt, device=x.device)
    for i in range(p.shape[0]):
        y = y * x + p[i]
    return y


def _poly_pad(xp: Any, a: Any, n: int) -> Any:
    return xp.concat([xp.zeros((n - a.shape[0],), dtype=a.dtype, device=a.device), a]) if a.shape[0] < n else a


def _poly_pair(xp: Any, a1: Any, a2: Any) -> Any:
    """Two coefficient arrays padded to one length along axis 0 (NumPy's
    polyadd and polysub), or None for forms the host answers."""
    if not all_arrays(a1, a2) or a1.ndim == 0 or a2.ndim == 0:
        return None
    if a1.shape == a2.shape:
        return a1, a2
    if a1.ndim != 1 or a2.ndim != 1:
        return None
    n = max(a1.shape[0], a2.shape[0])
    return _poly_pad(xp, a1, n), _poly_pad(xp, a2, n)


def _polyadd(xp: Any, a1: Any, a2: Any) -> Any:
    pair = _poly_pair(xp, a1, a2)
    return None if pair is None else pair[0] + pair[1]


def _polysub(xp: Any, a1: Any, a2: Any) -> Any:
    pair = _poly_pair(xp, a1, a2)
    return None if pair is None else pair[0] - pair[1]


def _polymul(xp: Any, a1: Any, a2: Any) -> Any:

    if not all_arrays(a1, a2) or a1.ndim != 1 or a2.ndim != 1:
        return None
    # NumPy multiplies poly1d's, which drop leading zeros (all zeros: [0]).
    t1, t2 = trim_zeros(xp, a1, "f"), trim_zeros(xp, a2, "f")
    t1 = t1 if t1.shape[0] else xp.zeros((1,), dtype=a1.dtype, device=a1.device)
    t2 = t2 if t2.shape[0] else xp.zeros((1,), dtype=a2.dtype, device=a2.device)
    return convolve(xp, t1, t2)


def _polyder(xp: Any, p: Any, m: int = 1) -> Any:
    if not is_array(p) or p.ndim != 1 or m < 0:
        return None
    # NumPy: p[:-1] * arange(n, 0, -1), in NumPy's promotion of p's dtype with int64.
    out = xp.astype(p, np.result_type(p.dtype, np.int64))
    for _ in range(m):
        n = out.shape[0] - 1
        if n <= 0:
            return xp.zeros((1,), dtype=out.dtype, device=p.device)
        out = out[:-1] * xp.astype(xp.arange(n, 0, -1, device=p.device), out.dtype)
    return out


def _polyint(xp: Any, p: Any, m: int = 1, k: Any = None) -> Any:
    if not is_array(p) or p.ndim != 1 or m < 0 or k is not None:
        return None
    out = xp.astype(p, np.result_type(p.dtype, np.float64))  # NumPy divides by an int64 arange
    for _ in range(m):
        n = out.shape[0]
        out = xp.concat(
            [
                out / xp.astype(xp.arange(n, 0, -1, device=p.device), out.dtype),
                xp.zeros((1,), dtype=out.dtype, device=p.device),
            ]
        )
    return out


def _i0(xp: Any, x: Any) -> Any:
    """The modified Bessel function of order 0, by its power series
    (``sum((x/2)**(2k) / k!**2)``), summed until its terms vanish in float64
    for the arguments NumPy's Chebyshev expansion serves; large ``|x|`` by
    the asymptotic expansion."""
    if not is_array(x) or xp.isdtype(x.dtype, "complex floating"):
        return None
    xf = xp.abs(x if xp.isdtype(x.dtype, "real floating") else xp.astype(x, xp.float64))
    q = (xf / 2) ** 2
    term = xp.ones_like(xf)
    total = xp.ones_like(xf)
    for k in range(1, 60):
        term = term * q / (k * k)
        total = total + term
    small = total
    # Asymptotic: e^x / sqrt(2 pi x) * sum((2k-1)!!^2 / (k! 8^k x^k)).
    safe = xp.where(xf > 30, xf, 30.0)
    series = xp.ones_like(xf)
    t = xp.ones_like(xf)
    for k in range(1, 20):
        t = t * ((2 * k - 1) ** 2) / (k * 8 * safe)
        series = series + t
    large = xp.exp(safe) / xp.sqrt(2 * math.pi * safe) * series
    return xp.where(xf > 30, large, small)


def _like(kind: str) -> Any:
    def recipe(xp: Any, prototype: Any, *args: Any, dtype: Any = None, order: str = "K", subok: bool = True,
               shape: Any = None, device: Any = None) -> Any:  # fmt: skip
        if not is_array(prototype) or order not in ("K", "C", "A"):
            return None
        if device not in (None, "cpu") and not hasattr(device, "kind"):
            return None
        dt = prototype.dtype if dtype is None else np.dtype(dtype)
        shp = prototype.shape if shape is None else ((shape,) if isinstance(shape, int) else tuple(shape))
        dev = prototype.device if device is None else device
        if kind == "full":
            (fill,) = args
            if is_array(fill):
                return xp.astype(xp.broadcast_to(fill, shp), dt, copy=True)
            return xp.full(shp, fill, dtype=dt, device=dev)
        return getattr(xp, kind)(shp, dtype=dt, device=dev)

    return recipe


def _spaced(kind: str) -> Any:
    """NumPy's linspace (and logspace, geomspace) of arrays or scalars:
    ``start + arange(num) * step`` along a new axis, the endpoint exact."""

    def recipe(xp: Any, start: Any, stop: Any, num: int = 50, endpoint: bool = True, *rest: Any, **kwargs: Any) -> Any:
        like = start if is_array(start) else stop if is_array(stop) else None
        if like is None or rest:
            return None
        base = kwargs.pop("base", 10.0)
        retstep = kwargs.pop("retstep", False)
        dtype = kwargs.pop("dtype", None)
        axis = kwargs.pop("axis", 0)
        kwargs.pop("device", None)
        if kwargs or axis != 0 or not isinstance(num, int) or num < 0 or (retstep and kind != "lin"):
            return None
        dt = np.result_type(*(v.dtype if is_array(v) else v for v in (start, stop)), 1.0)
        if kind == "geom":
            dt = np.result_type(dt, np.float64)  # NumPy's geomspace promotes with a float64 0-d array
        s = xp.astype(start, dt) if is_array(start) else xp.asarray(start, dtype=dt, device=like.device)
        e = xp.astype(stop, dt) if is_array(stop) else xp.asarray(stop, dtype=dt, device=like.device)
        s, e = xp.broadcast_arrays(s, e)
        if kind == "geom":
            if bool(xp.any((s == 0) | (e == 0))):
                raise ValueError("Geometric sequence cannot include zero")
            # NumPy: two negative ends give the negated sequence of their
            # magnitudes; ends of mixed signs give NaN inside.
            flip = (s < 0) & (e < 0)
            ls, le = xp.log10(xp.where(flip, -s, s)), xp.log10(xp.where(flip, -e, e))
        else:
            ls, le = s, e
        div = (num - 1) if endpoint else num
        shape = (num,) + (1,) * s.ndim
        steps = xp.reshape(xp.astype(xp.arange(num, device=like.device), dt), shape)
        delta = le - ls
        step = delta / div if div > 0 else delta * xp.nan
        y = steps * step + ls if div > 0 else steps * delta + ls
        if endpoint and num > 1:
            y = xp.concat([y[:-1], xp.expand_dims(le, axis=0)], axis=0)
        if kind == "log":
            y = xp.pow(base, y)
        elif kind == "geom":
            y = xp.where(flip, -1.0, 1.0) * xp.pow(10.0, y)
            if num > 0:
                y = xp.concat([xp.expand_dims(s, axis=0), y[1:]], axis=0)
            if endpoint and num > 1:
                y = xp.concat([y[:-1], xp.expand_dims(e, axis=0)], axis=0)
        if dtype is not None:
            y = xp.astype(y, np.dtype(dtype))
        return (y, step) if retstep else y

    return recipe


def _bitwise_count(xp: Any, x: Any) -> Any:
    if not is_array(x) or not xp.isdtype(x.dtype, ("integral", "bool")):
        return None
    v = xp.abs(x) if xp.isdtype(x.dtype, "signed integer") else x
    if v.dtype == np.bool_:
        return xp.astype(v, xp.uint8)
    bits = np.iinfo(x.dtype).bits
    total = xp.zeros(x.shape, dtype=xp.uint8, device=x.device)
    for i in range(bits):
        total = total + xp.astype(xp.bitwise_and(xp.bitwise_right_shift(v, i), 1), xp.uint8)
    return total


def _dims(shape: Any) -> tuple[int, ...]:
    return (int(shape),) if isinstance(shape, int | np.integer) else tuple(int(d) for d in shape)


def _unravel_index(xp: Any, indices: Any, shape: Any, order: str = "C") -> Any:
    if not is_array(indices) or order != "C" or not xp.isdtype(indices.dtype, "integral"):
        return None
    dims = _dims(shape)
    total = int(np.prod(dims))
    if indices.size and not bool(xp.all((indices >= 0) & (indices < total))):  # one flag read
        raise ValueError(f"index out of bounds for array with size {total}")
    out, stride = [], total
    for d in dims:
        stride //= d if d else 1
        out.append(xp.astype((indices // stride) % d if d else indices, xp.int64))
    return tuple(out)


def _ravel_multi_index(xp: Any, multi_index: Any, dims: Any, mode: str = "raise", order: str = "C") -> Any:
    if not isinstance(multi_index, list | tuple) or not all_arrays(*multi_index) or mode != "raise" or order != "C":
        return None
    shape = _dims(dims)
    if len(multi_index) != len(shape):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(shape)}")
    ok = None
    flat: Any = 0
    stride = int(np.prod(shape))
    for idx, d in zip(multi_index, shape, strict=True):
        stride //= d if d else 1
        inside = (idx >= 0) & (idx < d)
        ok = inside if ok is None else ok & inside
        flat = flat + xp.astype(idx, xp.int64) * stride
    if ok is not None and ok.size and not bool(xp.all(ok)):  # one flag read
        raise ValueError("invalid entry in coordinates array")
    return flat


_HOST = {
    "array2string": "formats the values as text on the host",
    "array_repr": "formats the values as text on the host",
    "array_str": "formats the values as text on the host",
    "save": "writes a file from the host",
    "savetxt": "writes a file from the host",
    "savez": "writes a file from the host",
    "savez_compressed": "writes a file from the host",
    "busday_count": "datetime64 only: no device holds it",
    "busday_offset": "datetime64 only: no device holds it",
    "is_busday": "datetime64 only: no device holds it",
    "datetime_as_string": "datetime64 only: no device holds it",
    "packbits": "packs bits into bytes: NumPy's own layout, on the host",
    "unpackbits": "unpacks bytes into bits: NumPy's own layout, on the host",
    "piecewise": "calls Python functions on masked selections: NumPy's loop, on the host",
    "polyfit": "least squares with NumPy's scaling and warnings, on the host",
    "polydiv": "polynomial long division: a loop of data-dependent steps, on the host",
    "poly": "roots' products in complex: NumPy's own, on the host",
}

ROUTES: dict[str, Route] = {
    "isclose": compose(_isclose),
    "allclose": compose(_allclose),
    "array_equal": compose(_array_equal),
    "array_equiv": compose(_array_equiv),
    "nan_to_num": compose(_nan_to_num),
    "sinc": compose(_sinc),
    "angle": compose(_angle),
    "iscomplex": compose(_iscomplex),
    "isreal": compose(_isreal),
    "isposinf": compose(_signed_inf(True)),
    "isneginf": compose(_signed_inf(False)),
    "real_if_close": compose(_real_if_close),
    "unwrap": compose(_unwrap),
    "interp": compose(_interp),
    "polyval": compose(_polyval),
    "polyadd": compose(_polyadd),
    "polysub": compose(_polysub),
    "polymul": compose(_polymul),
    "polyder": compose(_polyder),
    "polyint": compose(_polyint),
    "i0": compose(_i0),
    "bitwise_count": compose(_bitwise_count),
    "unravel_index": compose(_unravel_index),
    "ravel_multi_index": compose(_ravel_multi_index),
    "zeros_like": compose(_like("zeros")),
    "ones_like": compose(_like("ones")),
    "empty_like": compose(_like("empty")),
    "full_like": compose(_like("full")),
    "linspace": compose(_spaced("lin")),
    "logspace": compose(_spaced("log")),
    "geomspace": compose(_spaced("geom")),
    "astype": compose(
        lambda xp, x, dtype, /, *, copy=True, device=None: (
            xp.astype(x, np.dtype(dtype), copy=copy, **({} if device is None else {"device": device}))
            if is_array(x)
            else None
        )
    ),
    **{name: host(reason) for name, reason in _HOST.items()},
}
