"""NumPy's ufuncs: the standard's function where it has one, else a
composition of namespace functions.

A ufunc's composition receives its arguments already cast to the dtypes of
the loop NumPy would choose (``np.cbrt`` of int16 computes in float32):
the dispatcher casts them (:func:`unifiedarray._interop.numpy_call`), so
the compositions below are written for the loop's dtypes only.

Example
-------
>>> import unifiedarray as xp
>>> float(ROUTES["cbrt"].target(xp, xp.asarray(-8.0)))
-2.0
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._common import is_array
from ._route import Route, compose, host, standard

__all__ = ["ROUTES"]

# The standard's functions of the same meaning, by NumPy's name.
_SAME = [
    "add",
    "subtract",
    "multiply",
    "divide",
    "negative",
    "positive",
    "exp",
    "expm1",
    "log",
    "log1p",
    "log2",
    "log10",
    "sqrt",
    "square",
    "sin",
    "cos",
    "tan",
    "sinh",
    "cosh",
    "tanh",
    "floor",
    "ceil",
    "trunc",
    "sign",
    "isnan",
    "isinf",
    "isfinite",
    "maximum",
    "minimum",
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "logical_and",
    "logical_or",
    "logical_xor",
    "logical_not",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "bitwise_invert",
    "bitwise_left_shift",
    "bitwise_right_shift",
    "hypot",
    "copysign",
    "logaddexp",
    "matmul",
    "remainder",
    "nextafter",
    "signbit",
    "real",
    "imag",
    "vecdot",
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "pow",
    "abs",
    "conj",
]
_RENAMED = {
    "true_divide": "divide", "absolute": "abs", "arccos": "acos", "arcsin": "asin", "arctan": "atan",
    "arccosh": "acosh", "arcsinh": "asinh", "arctanh": "atanh", "arctan2": "atan2", "power": "pow",
    "invert": "bitwise_invert", "bitwise_not": "bitwise_invert", "left_shift": "bitwise_left_shift",
    "right_shift": "bitwise_right_shift", "mod": "remainder", "conjugate": "conj",
}  # fmt: skip


def _cbrt(xp: Any, x: Any) -> Any:
    return xp.sign(x) * xp.pow(xp.abs(x), 1.0 / 3.0)


def _scaled(factor: float) -> Any:
    def recipe(xp: Any, x: Any) -> Any:
        return x * factor

    return recipe


def _exp2(xp: Any, x: Any) -> Any:
    return xp.pow(2.0, x)


def _fmax(xp: Any, a: Any, b: Any) -> Any:
    return _nan_ignoring(xp, xp.maximum, a, b)


def _fmin(xp: Any, a: Any, b: Any) -> Any:
    return _nan_ignoring(xp, xp.minimum, a, b)


def _nan_ignoring(xp: Any, pick: Any, a: Any, b: Any) -> Any:
    out = pick(a, b)
    if xp.isdtype(out.dtype, ("real floating", "complex floating")):
        if is_array(a):
            out = xp.where(xp.isnan(a), b, out)
        if is_array(b):
            out = xp.where(xp.isnan(b), a, out)
    return out


def _fmod(xp: Any, a: Any, b: Any) -> Any:
    """C's fmod: the remainder takes the dividend's sign."""
    r = xp.remainder(a, b)
    if not xp.isdtype(r.dtype, "real floating"):
        fixed = xp.where((r != 0) & ((r < 0) != (a < 0)), r - b, r)
        return xp.where(b == 0, 0, fixed) if is_array(b) or b == 0 else fixed
    fixed = xp.where((r != 0) & (xp.signbit(r) != xp.signbit(a)), r - b, r)
    fixed = xp.where(xp.isinf(b) & xp.isfinite(a), a, fixed) if is_array(b) or math.isinf(b) else fixed
    return xp.where(fixed == 0, xp.copysign(0.0, a), fixed) if is_array(a) else fixed


def _floor_divide(xp: Any, a: Any, b: Any) -> Any:
    """NumPy's floor division of floats (``npy_divmod``), where it differs
    from the standard's special cases that ``xp.floor_divide`` follows: an
    infinite dividend over a finite divisor is NaN (the standard: an
    infinity), and a nonzero finite dividend over an infinite divisor of
    the other sign is -1 (the standard: -0.0)."""
    q = xp.floor_divide(a, b)
    if not xp.isdtype(q.dtype, "real floating"):
        return q
    a, b = (v if is_array(v) else xp.full_like(q, v) for v in (a, b))
    q = xp.where(xp.isinf(a) & xp.isfinite(b) & (b != 0), math.nan, q)
    return xp.where(xp.isfinite(a) & (a != 0) & xp.isinf(b) & (xp.signbit(a) != xp.signbit(b)), -1.0, q)


def _divmod(xp: Any, a: Any, b: Any) -> Any:
    return _floor_divide(xp, a, b), xp.remainder(a, b)


def _modf(xp: Any, x: Any) -> Any:
    whole = xp.trunc(x)
    frac = xp.where(xp.isinf(x), xp.copysign(0.0, x), x - whole)
    return xp.copysign(frac, x), whole


def _frexp(xp: Any, x: Any) -> Any:
    """NumPy's frexp: ``x = m * 2**e`` with ``0.5 <= |m| < 1`` (m = x, e = 0
    for zeros, infinities and NaN)."""
    finite = xp.isfinite(x) & (x != 0)
    mag = xp.where(finite, xp.abs(x), 1.0)
    e = xp.floor(xp.log2(mag)) + 1
    m = mag / xp.pow(2.0, e)
    # log2 rounds near powers of two: one step either way corrects it.
    low, high = m < 0.5, m >= 1.0
    m = xp.where(low, m * 2, xp.where(high, m / 2, m))
    e = xp.where(low, e - 1, xp.where(high, e + 1, e))
    m = xp.where(finite, xp.copysign(m, x), x)
    return m, xp.astype(xp.where(finite, e, 0), np.dtype(np.int32))


def _ldexp(xp: Any, x: Any, e: Any) -> Any:
    if not is_array(x):
        return None
    if is_array(e):
        return x * xp.pow(2.0, xp.astype(e, x.dtype))  # 2.0 weak: the power in x's dtype
    return x * 2.0 ** float(e)


def _logaddexp2(xp: Any, a: Any, b: Any) -> Any:
    big = xp.maximum(a, b)
    gap = -xp.abs(a - b)
    out = big + xp.log1p(xp.pow(2.0, gap)) / math.log(2.0)
    return xp.where(a == b, a + 1.0, out)


def _heaviside(xp: Any, x: Any, h0: Any) -> Any:
    out = xp.where(x < 0, 0.0, xp.where(x > 0, 1.0, h0))
    return xp.where(xp.isnan(x), xp.nan, xp.astype(out, x.dtype))


def _spacing(xp: Any, x: Any) -> Any:
    return xp.nextafter(x, xp.copysign(xp.inf, x)) - x


def _reciprocal(xp: Any, x: Any) -> Any:
    if xp.isdtype(x.dtype, ("integral", "bool")):
        # C's integer division 1 / x: 1 and -1 keep their value, the rest
        # truncate to 0 (NumPy's integer loop).
        # (and 0 gives the dtype's minimum, as NumPy's loop does).
        if x.dtype == np.bool_:
            return x
        info = np.iinfo(x.dtype)
        low = int(info.min) if info.kind == "i" and info.bits >= 32 else 0  # what NumPy's loop gives for 1 / 0
        return xp.where(xp.abs(x) == 1, x, xp.where(x == 0, low, xp.zeros_like(x)))
    return 1.0 / x


def _round(xp: Any, a: Any, decimals: int = 0, out: Any = None) -> Any:
    if not is_array(a) or out is not None:
        return None
    decimals = int(decimals)
    if a.dtype == np.bool_:
        a = xp.astype(a, np.dtype(np.float16))  # NumPy rounds bools in float16
    elif xp.isdtype(a.dtype, "integral"):
        return a if decimals >= 0 else None
    if decimals == 0:
        return xp.round(a)
    # NumPy's own rounding to decimals: scale, round half to even, unscale.
    scale = 10.0**decimals if decimals >= 0 else 10.0 ** (-decimals)
    return xp.round(a * scale) / scale if decimals >= 0 else xp.round(a / scale) * scale


def _euclid_steps(dtype: Any) -> int:
    # Euclid's algorithm takes at most log_phi(2**bits) steps (Lamé).
    return int(np.iinfo(dtype).bits * 1.45) + 2


def _gcd(xp: Any, a: Any, b: Any) -> Any:
    x, y = xp.abs(a), xp.abs(b)
    x, y = xp.broadcast_arrays(x, y) if is_array(x) and is_array(y) else (x, y)
    dt = x.dtype if is_array(x) else y.dtype
    for _ in range(_euclid_steps(dt)):
        nz = y != 0
        x, y = xp.where(nz, y, x), xp.where(nz, xp.remainder(x, xp.where(nz, y, 1)), 0)
    return x


def _lcm(xp: Any, a: Any, b: Any) -> Any:
    g = _gcd(xp, a, b)
    return xp.where(g == 0, 0, xp.abs(xp.floor_divide(a, xp.where(g == 0, 1, g)) * b))


def _bools_as_bools(out: Any, *inputs: Any) -> Any:
    """NumPy's matmul of bools is a bool (an or of ands)."""
    return out != 0 if all(getattr(i, "dtype", None) == np.bool_ for i in inputs) else out


def _matvec(xp: Any, a: Any, v: Any) -> Any:
    if not is_array(a) or not is_array(v) or a.ndim < 2 or v.ndim < 1:
        return None  # NumPy's error for a matrix of fewer than two axes: the host says it
    return _bools_as_bools(xp.matmul(a, v[..., None])[..., 0], a, v)


def _vecmat(xp: Any, v: Any, a: Any) -> Any:
    if not is_array(a) or not is_array(v) or a.ndim < 2 or v.ndim < 1:
        return None
    return _bools_as_bools(xp.matmul(xp.conj(v)[..., None, :], a)[..., 0, :], a, v)


ROUTES: dict[str, Route] = {
    **{name: standard(name) for name in _SAME},
    **{name: standard(to) for name, to in _RENAMED.items()},
    "cbrt": compose(_cbrt),
    "deg2rad": compose(_scaled(math.pi / 180)),
    "radians": compose(_scaled(math.pi / 180)),
    "rad2deg": compose(_scaled(180 / math.pi)),
    "degrees": compose(_scaled(180 / math.pi)),
    "exp2": compose(_exp2),
    # Ufuncs whose loops cast (fabs and rint of integers compute in floats,
    # float_power in float64): the loop's dtypes, then the standard's function.
    "float_power": compose(lambda xp, a, b: xp.pow(a, b)),
    "fabs": compose(lambda xp, x: xp.abs(x)),
    "rint": compose(lambda xp, x: xp.round(x)),
    "reciprocal": compose(_reciprocal),
    "fmax": compose(_fmax),
    "fmin": compose(_fmin),
    "fmod": compose(_fmod),
    "floor_divide": compose(_floor_divide),
    "divmod": compose(_divmod),
    "modf": compose(_modf),
    "frexp": compose(_frexp),
    "ldexp": compose(_ldexp),
    "logaddexp2": compose(_logaddexp2),
    "heaviside": compose(_heaviside),
    "spacing": compose(_spacing),
    "gcd": compose(_gcd),
    "lcm": compose(_lcm),
    "matvec": compose(_matvec),
    "vecmat": compose(_vecmat),
    "isnat": host("datetime64 and timedelta64 only: no device holds them"),
    "clip": standard("clip"),
    "fix": compose(lambda xp, x, out=None: xp.trunc(x) if out is None and is_array(x) else None),
    "round": compose(_round),
    "around": compose(_round),
}

#: The ufuncs whose composition takes the loop's dtypes (every ufunc here).
LOOP_CAST = frozenset(
    name for name, r in ROUTES.items() if r.kind == "compose" and name not in ("round", "around", "fix")
)
