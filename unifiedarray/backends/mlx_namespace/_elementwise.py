"""Elementwise functions, generated from two tables.

Each table maps a function name to the MLX implementation that computes it
on arrays already cast to one *compute dtype*.  The generated wrapper asks
the dtype oracle for the result dtype, picks the compute dtype, casts the
arguments (Python scalars become 0-d arrays of that dtype, range-checked),
calls the implementation, and checks that MLX produced exactly the result
dtype: MLX's own promotion (``int64 + uint64 -> float32``, ``sqrt(int) ->
float32``) never reaches the caller.

The compute dtype is the result dtype, except for functions that return
bool (comparisons, ``isnan``, ``signbit``) or a real result from complex
input (``abs``, ``real``, ``imag``): those compute in the inputs' common
dtype.

Where MLX's kernel is not what the standard asks, the table points at a
replacement built from MLX primitives; the comment at each says why.

The tables hold no dtype-category column (as array-api-strict's do): which
dtypes a function accepts, and what it returns for them, is the oracle's
answer (:func:`._core.result_dtype`), so that inputs outside the standard's
categories (``sqrt`` of an integer, float16) behave as on the host rather
than by a second, possibly disagreeing, rule written here.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable
from typing import Any, NamedTuple

import mlx.core as mx
import numpy as np

from ... import _rules
from ._core import (
    BOOL,
    FLOAT64,
    Array,
    cast,
    check_holdable,
    common_dtype,
    cpu_if,
    dtype_of,
    fresh,
    is_array,
    require_array,
    result_dtype,
    scalar,
)

# -- bit-level helpers ---------------------------------------------------------------------

_SAME_WIDTH_INT = {mx.float64: mx.int64, mx.float32: mx.int32, mx.float16: mx.int16, mx.bfloat16: mx.int16}


def _signbit_float(x: Array) -> Array:
    # Reading the sign bit sees -0.0 and negative NaNs, which x < 0 misses.
    return mx.view(x, _SAME_WIDTH_INT[x.dtype]) < 0


def _copysign_float(mag: Array, sign: Array) -> Array:
    m = mx.abs(mag)
    return mx.where(_signbit_float(sign), -m, m)


def _signed_zero_like(x: Array, sign_of: Array) -> Array:
    return _copysign_float(mx.zeros_like(x), sign_of)


# -- float64 functions MLX computes in float32 -------------------------------------------------
# MLX's CPU kernels for exp, sin and cos (and logaddexp, built on exp) convert
# float64 input to float32, compute, and convert back: a float64 result with
# float32 accuracy (exp(1) is off by 8e-8, exp(700) overflows).  Its expm1 and
# tan are the C library's, accurate to an ulp, so the float64 versions here
# are built from those (checked to within 3 ulp of NumPy over the whole range).
# MLX's float32 exp is also off: relative error up to |x| ulp, and inf for
# any x > 88 although exp(88.7) is finite; the same construction fixes it.

# exp(x) below -shift is exp(x + shift) * exp(-shift), keeping 1 / exp(-x) normal.
_EXP_SHIFT = {mx.float64: 700.0, mx.float32: 80.0}


def _exp(x: Array) -> Array:
    shift = _EXP_SHIFT.get(x.dtype)
    if shift is None:
        return mx.exp(x)
    # One expm1 for both signs: y = exp(|x|) as expm1(|x|) + 1, then exp(x)
    # is y for x >= 0 and 1 / y for x < 0, where expm1(x) + 1 would cancel.
    # Below -shift, 1 / exp(-x) would be 1 / inf: exp(x + shift) * exp(-shift)
    # keeps the subnormal results.  (The same values as two expm1 calls, one
    # per sign, at half the transcendental work.)
    deep = x < -shift
    y = mx.expm1(mx.abs(mx.where(deep, x + shift, x))) + 1.0
    one = mx.array(1.0, dtype=x.dtype)
    neg = mx.where(deep, mx.array(math.exp(-shift), dtype=x.dtype), one) / y  # one rounding, deep or not
    return mx.where(x >= 0, y, neg)


def _sin_of_half_tan(t: Array) -> Array:
    # Half-angle identity on the accurate tan: sin x = 2t / (1 + t^2), t = tan(x / 2).
    return mx.where(mx.abs(t) <= 1.0, 2.0 * t / (1.0 + t * t), 2.0 / (t + 1.0 / t))


def _sin(x: Array) -> Array:
    if x.dtype != mx.float64:
        return mx.sin(x)
    s = _sin_of_half_tan(mx.tan(x * 0.5))
    return mx.where(mx.isinf(x), mx.array(math.nan, dtype=mx.float64), s)


def _cos(x: Array) -> Array:
    if x.dtype != mx.float64:
        return mx.cos(x)
    t = mx.tan(x * 0.5)
    at = mx.abs(t)
    t2 = t * t
    near_even = (1.0 - t2) / (1.0 + t2)  # |cos x| near 1, t small
    it = 1.0 / t
    it2 = it * it
    near_odd = (it2 - 1.0) / (it2 + 1.0)  # |cos x| near 1, t large
    # Around cos x = 0, 1 - t^2 cancels; sin x / tan x does not (sin x from
    # the same t: one tan fewer than calling _sin; infinite x gives nan
    # through tan(inf) here as there).
    middle = _sin_of_half_tan(t) / mx.tan(x)
    return mx.where(at < 0.5, near_even, mx.where(at > 2.0, near_odd, middle))


def _logaddexp(a: Array, b: Array) -> Array:
    big = mx.maximum(a, b)
    out = big + mx.log1p(_exp(-mx.abs(a - b)))
    # Equal infinities would give inf - inf = nan above.
    return mx.where(a == b, a + math.log(2.0), out)


# -- functions whose MLX kernel differs from the standard ------------------------------------


def _sign(x: Array) -> Array:
    if x.dtype == mx.complex64:
        mag = mx.abs(x)
        unit = _complex(mx.real(x) / mag, mx.imag(x) / mag)
        return mx.where(mag == 0, mx.zeros_like(x), unit)
    s = mx.sign(x)
    if mx.issubdtype(x.dtype, mx.floating):
        # MLX gives sign(nan) = 0; the standard says nan.
        s = mx.where(mx.isnan(x), x, s)
    return s


def _signbit(x: Array) -> Array:
    if mx.issubdtype(x.dtype, mx.floating):
        return _signbit_float(x)
    if x.dtype == mx.bool_ or mx.issubdtype(x.dtype, mx.unsignedinteger):
        return mx.zeros(x.shape, dtype=mx.bool_)
    return x < 0


def _copysign(a: Array, b: Array) -> Array:
    return _copysign_float(a, b)


def _hypot(a: Array, b: Array) -> Array:
    # sqrt(a^2 + b^2) overflows and underflows long before the result does;
    # scaling by the larger magnitude does not.
    a, b = mx.abs(a), mx.abs(b)
    big = mx.maximum(a, b)
    small = mx.minimum(a, b)
    r = small / big
    h = big * mx.sqrt(1.0 + r * r)
    h = mx.where(big == 0, mx.zeros_like(h), h)
    inf = mx.array(math.inf, dtype=h.dtype)
    return mx.where(mx.isinf(a) | mx.isinf(b), inf, h)


def _nextafter(a: Array, b: Array) -> Array:
    itype = _SAME_WIDTH_INT[a.dtype]
    bits = mx.view(a, itype)
    # IEEE floats are sign-magnitude: one more in the bit pattern is one ulp
    # further from zero, whatever the sign.
    away = (b > a) == (a > 0)
    one = mx.array(1, dtype=itype)
    step = mx.view(mx.where(away, bits + one, bits - one), a.dtype)
    tiniest = mx.view(mx.ones(a.shape, dtype=itype), a.dtype)
    step = mx.where(a == 0, _copysign_float(tiniest, b), step)
    step = mx.where(a == b, b, step)
    nan = mx.array(math.nan, dtype=a.dtype)
    return mx.where(mx.isnan(a) | mx.isnan(b), nan, step)


def _fmod(a: Array, b: Array) -> Array:
    # MLX's remainder is exact when both operands are positive (it is then
    # C's fmod); fmod is odd in a and even in b.
    return _copysign_float(mx.remainder(mx.abs(a), mx.abs(b)), a)


def _remainder(a: Array, b: Array) -> Array:
    if not mx.issubdtype(a.dtype, mx.floating):
        return _int_divmod(a, b)[1]
    # NumPy's npy_divmod, so results (signed zeros included) match the host.
    mod = _fmod(a, b)
    adjust = (mod != 0) & ((b < 0) != (mod < 0))
    mod = mx.where(adjust, mod + b, mod)
    return mx.where(mod == 0, _signed_zero_like(mod, b), mod)


def _floor_divide(a: Array, b: Array) -> Array:
    if not mx.issubdtype(a.dtype, mx.floating):
        return _int_divmod(a, b)[0]
    # MLX computes floor(a / b), which is wrong whenever a / b rounds up to an
    # integer (1 // 0.1 must be 9).  This is NumPy's npy_divmod.
    mod = _fmod(a, b)
    div = (a - mod) / b
    adjust = (mod != 0) & ((b < 0) != (mod < 0))
    div = mx.where(adjust, div - 1.0, div)
    fl = mx.floor(div)
    fl = mx.where(div - fl > 0.5, fl + 1.0, fl)
    quotient = a / b
    fl = mx.where(div == 0, _signed_zero_like(div, quotient), fl)
    return mx.where(b == 0, quotient, fl)


def _int_divmod(a: Array, b: Array) -> tuple[Array, Array]:
    # Integer division by zero, and INT_MIN // -1, are undefined behaviour in
    # MLX's C++ kernels (the latter kills the process with SIGFPE on x86).
    # NumPy gives 0 for both quotient and remainder on a zero divisor.
    zero = mx.zeros_like(b)
    if mx.issubdtype(b.dtype, mx.signedinteger):
        minus_one = b == -1
        unsafe = (b == 0) | minus_one
        safe_b = mx.where(unsafe, mx.ones_like(b), b)
        q = mx.where(minus_one, -a, mx.floor_divide(a, safe_b))
        r = mx.remainder(a, safe_b)
        q = mx.where(b == 0, zero, q)
        r = mx.where(unsafe, zero, r)
        return q, r
    unsafe = b == 0
    safe_b = mx.where(unsafe, mx.ones_like(b), b)
    return mx.where(unsafe, zero, mx.floor_divide(a, safe_b)), mx.where(unsafe, zero, mx.remainder(a, safe_b))


def _width(x: Array) -> int:
    return x.itemsize * 8


def _left_shift(a: Array, b: Array) -> Array:
    # C shifts by >= the width are undefined (MLX wraps the count); NumPy
    # gives 0.  Negative counts also give 0 in NumPy.
    out_of_range = (b >= _width(a)) | (b < 0) if mx.issubdtype(b.dtype, mx.signedinteger) else b >= _width(a)
    safe = mx.where(out_of_range, mx.zeros_like(b), b)
    return mx.where(out_of_range, mx.zeros_like(a), mx.left_shift(a, safe))


def _right_shift(a: Array, b: Array) -> Array:
    out_of_range = (b >= _width(a)) | (b < 0) if mx.issubdtype(b.dtype, mx.signedinteger) else b >= _width(a)
    safe = mx.where(out_of_range, mx.zeros_like(b), b)
    if mx.issubdtype(a.dtype, mx.signedinteger):
        fill = mx.where(a < 0, mx.full(a.shape, -1, dtype=a.dtype), mx.zeros_like(a))
    else:
        fill = mx.zeros_like(a)
    return mx.where(out_of_range, fill, mx.right_shift(a, safe))


def _reciprocal(x: Array) -> Array:
    if mx.issubdtype(x.dtype, mx.inexact):
        return mx.reciprocal(x)
    # NumPy's integer reciprocal is the truncated 1 / x (0 for a zero divisor here).
    one = mx.ones_like(x)
    out = mx.where(x == one, one, mx.zeros_like(x))
    if mx.issubdtype(x.dtype, mx.signedinteger):
        out = mx.where(x == -one, -one, out)
    return out


def _expm1(x: Array) -> Array:
    if x.dtype != mx.complex64:
        return mx.expm1(x)
    # MLX has no complex expm1.  exp(z) - 1 would cancel near 0; this does not:
    # Re = expm1(a) cos(b) - 2 sin^2(b/2),  Im = exp(a) sin(b).
    a, b = mx.real(x), mx.imag(x)
    half = mx.sin(b * 0.5)
    re = mx.expm1(a) * mx.cos(b) - 2.0 * half * half
    im = mx.exp(a) * mx.sin(b)
    return _complex(re, im)


def _as_bool(x: Array) -> Array:
    return x if x.dtype == mx.bool_ else x != 0


def _logical(fn: Callable[[Array, Array], Array]) -> Callable[[Array, Array], Array]:
    return lambda a, b: fn(_as_bool(a), _as_bool(b))


def _bitwise(
    fn: Callable[[Array, Array], Array], logical: Callable[[Array, Array], Array]
) -> Callable[[Array, Array], Array]:
    return lambda a, b: logical(a, b) if a.dtype == mx.bool_ else fn(a, b)


def _complex(re: Array, im: Array) -> Array:
    """A complex64 array from float32 parts, exactly (re + 1j * im would
    turn an infinite part into nan)."""
    return mx.view(mx.stack([re, im], axis=-1), mx.complex64).squeeze(-1)


def _divide(a: Array, b: Array) -> Array:
    out = mx.divide(a, b)
    if out.dtype != mx.complex64:  # (a may be a Python float: see _PLAIN_MLX)
        return out
    # NumPy's complex division (Smith's method, scaled by the reciprocal of
    # the denominator, as its CFLOAT_divide loop computes it), where MLX's
    # differs at the edges: 1 / (-0 + 0j) (MLX divides by the signed parts,
    # NumPy each part by |b| = +0), and a subnormal divisor, whose
    # reciprocal overflows (NumPy: inf + inf j).
    ar, ai, br, bi = mx.real(a), mx.imag(a), mx.real(b), mx.imag(b)
    real_larger = mx.abs(br) >= mx.abs(bi)
    zero = (br == 0) & (bi == 0)
    one = mx.array(1.0, dtype=mx.float32)
    rat1 = bi / mx.where(zero, one, br)
    scl1 = one / (br + bi * rat1)
    rat2 = br / mx.where(real_larger, one, bi)
    scl2 = one / (bi + br * rat2)
    re = mx.where(real_larger, (ar + ai * rat1) * scl1, (ar * rat2 + ai) * scl2)
    im = mx.where(real_larger, (ai - ar * rat1) * scl1, (ai * rat2 - ar) * scl2)
    by_zero = mx.abs(br)
    re = mx.where(zero, ar / by_zero, re)
    im = mx.where(zero, ai / by_zero, im)
    return _complex(re, im)


def _pow(a: Array, b: Array) -> Array:
    out = mx.power(a, b)
    if a.dtype == mx.complex64:
        # MLX gives 0j ** 0j = nan; x ** 0 is 1 for every x.
        out = mx.where(b == 0, mx.ones_like(out), out)
    return out


# -- the tables ---------------------------------------------------------------------------------

UNARY: dict[str, Callable[[Array], Array]] = {
    "abs": mx.abs,
    "acos": mx.arccos,
    "acosh": mx.arccosh,
    "asin": mx.arcsin,
    "asinh": mx.arcsinh,
    "atan": mx.arctan,
    "atanh": mx.arctanh,
    "bitwise_invert": lambda x: mx.logical_not(x) if x.dtype == mx.bool_ else mx.bitwise_invert(x),
    "ceil": mx.ceil,
    "conj": mx.conj,
    "cos": _cos,
    "cosh": mx.cosh,
    "exp": _exp,
    "expm1": _expm1,
    "floor": mx.floor,
    "imag": mx.imag,
    "isfinite": mx.isfinite,
    "isinf": mx.isinf,
    "isnan": mx.isnan,
    "log": mx.log,
    "log1p": mx.log1p,
    "log2": mx.log2,
    "log10": mx.log10,
    "logical_not": lambda x: mx.logical_not(_as_bool(x)),
    "negative": mx.negative,
    "positive": lambda x: x,
    "real": mx.real,
    "reciprocal": _reciprocal,
    "round": mx.round,  # MLX rounds half to even, as the standard asks
    "sign": _sign,
    "signbit": _signbit,
    "sin": _sin,
    "sinh": mx.sinh,
    "square": mx.square,
    "sqrt": mx.sqrt,
    "tan": mx.tan,
    "tanh": mx.tanh,
    "trunc": mx.trunc,
}

BINARY: dict[str, Callable[[Array, Array], Array]] = {
    "add": mx.add,
    "atan2": mx.arctan2,
    "bitwise_and": _bitwise(mx.bitwise_and, mx.logical_and),
    "bitwise_left_shift": _left_shift,
    "bitwise_or": _bitwise(mx.bitwise_or, mx.logical_or),
    "bitwise_right_shift": _right_shift,
    "bitwise_xor": _bitwise(mx.bitwise_xor, mx.not_equal),
    "copysign": _copysign,
    "divide": _divide,
    "equal": mx.equal,
    "floor_divide": _floor_divide,
    "greater": mx.greater,
    "greater_equal": mx.greater_equal,
    "hypot": _hypot,
    "less": mx.less,
    "less_equal": mx.less_equal,
    "logaddexp": lambda a, b: _logaddexp(a, b) if a.dtype == mx.float64 else mx.logaddexp(a, b),
    "logical_and": _logical(mx.logical_and),
    "logical_or": _logical(mx.logical_or),
    "logical_xor": _logical(mx.not_equal),
    "maximum": mx.maximum,
    "minimum": mx.minimum,
    "multiply": mx.multiply,
    "nextafter": _nextafter,
    "not_equal": mx.not_equal,
    "pow": _pow,
    "remainder": _remainder,
    "subtract": mx.subtract,
}


# -- the generated functions ---------------------------------------------------------------


def _compute_dtype(out: np.dtype, common: np.dtype) -> np.dtype:
    if out == BOOL or (common.kind == "c" and out.kind != "c"):
        return common
    return out


class _Plan(NamedTuple):
    """What one input signature of one function needs, worked out once."""

    out: mx.Dtype  # the result dtype
    compute: np.dtype  # the dtype arguments are cast to
    float64: bool  # whether float64 is involved (the CPU stream on a GPU device)
    special: bool  # float64 == complex64: compared on the parts


def _signature(x: Any) -> Any:
    return x.dtype if type(x) is mx.array else type(x)


def _plan(name: str, args: tuple) -> _Plan:
    out = result_dtype(name, *args)
    out_mx = check_holdable(name, out)
    if name.startswith("logical_"):
        compute = BOOL  # NumPy's loop: every argument as a truth value (logical_and(int8, 128) is True there)
    elif len(args) == 1:
        compute = _compute_dtype(out, dtype_of(args[0]))
    else:
        compute = out if out != BOOL else common_dtype(*args)
    special = compute == _COMPLEX128 and name in _BOOL_OF_COMPLEX128
    dtypes = [out, compute] + [dtype_of(a) for a in args if is_array(a)]
    return _Plan(out_mx, compute, FLOAT64 in dtypes, special)


def _finish(res: Array, plan: _Plan, name: str, inputs: tuple) -> Array:
    if res.dtype != plan.out:
        # A guard, not a cast: a mismatch is a bug in a table entry.
        raise TypeError(f"mlx computed {name} as {res.dtype} where {plan.out} is required")
    for x in inputs:
        if res is x:
            return fresh(res)
    return res


# A signature is "direct" once a call has shown that its arrays need no cast,
# no float64 stream and no special case, and that ``impl`` gives the required
# dtype: every later call with it is ``impl`` alone (MLX's result dtype
# depends on its arguments' dtypes only).  This is most of a small call's cost.
# The verdict is the same for every call of a signature, so it is reached once
# (at the first call that succeeds) and kept, either way.


def _is_direct(plan: _Plan, args: tuple, computed: tuple) -> bool:
    return not plan.float64 and not plan.special and all(a is c for a, c in zip(args, computed, strict=True))


# The binary functions that are MLX's own, and the dtypes into which MLX
# converts a Python float exactly as ``scalar`` does (its weak scalars: the
# array's dtype, round to nearest, overflow to inf, -0.0 kept): with these,
# a Python float may reach MLX as it is.
_PLAIN_MLX = frozenset([mx.add, mx.subtract, mx.multiply, mx.maximum, mx.minimum, mx.arctan2]) | frozenset(
    [mx.equal, mx.not_equal, mx.less, mx.less_equal, mx.greater, mx.greater_equal, _divide]
)  # _divide: mx.divide for every real dtype
_WEAK_FLOAT_TARGETS = frozenset([mx.float16, mx.float32])


def _is_weak_float_pair(impl: Callable[..., Array], plan: _Plan, x1: Any, x2: Any) -> bool:
    """A Python float with a float16 or float32 array of the compute dtype,
    for one of MLX's own functions: MLX's weak scalar is what the cast would
    give."""
    if impl not in _PLAIN_MLX or plan.float64 or plan.special:
        return False
    arr = x2 if type(x1) is float else x1 if type(x2) is float else None
    return type(arr) is mx.array and arr.dtype in _WEAK_FLOAT_TARGETS and dtype_of(arr) == plan.compute


#: name -> (impl, the signatures judged direct, the signatures judged) of
#: every generated function: what :func:`direct_impl` reads (the
#: dispatch's fast path on MLX takes a signature only once its function's
#: own first call has judged it direct).
VERDICTS: dict[str, tuple[Callable[..., Array], set[Any], set[Any], dict[Any, _Plan]]] = {}


def direct_impl(name: str, signature: tuple) -> tuple[Callable[..., Array], mx.Dtype] | bool | None:
    """What the generated function ``name`` is for arguments of
    ``signature`` (MLX dtypes for arrays, Python types for scalars): its
    ``impl`` alone, with the result's MLX dtype, where a call has judged the
    signature direct (the impl may return its argument, ``positive``: the
    caller makes a fresh handle of it, as the generated function does),
    False where a call
    has judged it not direct or there is no such function (final), None
    where no call has judged it yet."""
    entry = VERDICTS.get(name)
    if entry is None:
        return False
    impl, direct, judged, plans = entry
    key = signature[0] if len(signature) == 1 else signature
    if key in direct:
        plain = _MLX_EXCEPT.get(impl)
        if plain is not None and not any(s is plain[1] for s in signature):
            impl = plain[0]
        return impl, plans[key].out
    return False if key in judged else None


def _make_unary(name: str, impl: Callable[[Array], Array]) -> Callable[[Array], Array]:
    plans: dict[Any, _Plan] = {}
    direct: set[Any] = set()
    judged: set[Any] = set()
    VERDICTS[name] = (impl, direct, judged, plans)

    def fn(x: Array, /) -> Array:
        sig = _signature(x)
        if sig in direct:
            res = impl(x)
            return fresh(res) if res is x else res
        plan = plans.get(sig)
        if plan is None:
            require_array(x, name)
            plan = plans[sig] = _plan(name, (x,))
        with cpu_if(FLOAT64) if plan.float64 else _NO_CONTEXT:
            c = cast(x, plan.compute, name)
            res = _finish(impl(c), plan, name, (x,))
        if sig not in judged:
            judged.add(sig)
            if _is_direct(plan, (x,), (c,)):
                direct.add(sig)
        return res

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Array API ``{name}`` on MLX arrays."
    return fn


def _make_binary(name: str, impl: Callable[[Array, Array], Array]) -> Callable[[Any, Any], Array]:
    plans: dict[Any, _Plan] = {}
    direct: set[Any] = set()
    judged: set[Any] = set()
    if name not in _CHECKED_AFTER:
        VERDICTS[name] = (impl, direct, judged, plans)

    compares = name in _rules.COMPARISONS

    def fn(x1: Any, x2: Any, /) -> Array:
        key = (_signature(x1), _signature(x2))
        if key in direct:
            res = impl(x1, x2)
            return fresh(res) if res is x1 or res is x2 else res
        if compares and (type(x1) is int or type(x2) is int):
            constant = _int_comparison(name, x1, x2)
            if constant is not None:
                return constant
        plan = plans.get(key)
        if plan is None:
            if not (is_array(x1) or is_array(x2)):
                raise TypeError(f"mlx {name}: at least one argument must be an mlx array")
            try:
                plan = plans[key] = _plan(name, (x1, x2))
            except TypeError:
                if is_array(x1) and is_array(x2):
                    np.broadcast_shapes(x1.shape, x2.shape)  # shapes first, as the host checks them
                raise
        if plan.special:
            with cpu_if(FLOAT64):
                return _BOOL_OF_COMPLEX128[name](_parts64(x1), _parts64(x2))
        with cpu_if(FLOAT64) if plan.float64 else _NO_CONTEXT:
            c1, c2 = cast(x1, plan.compute, name), cast(x2, plan.compute, name)
            res = _finish(impl(c1, c2), plan, name, (x1, x2))
        if key not in judged:
            judged.add(key)
            if _is_direct(plan, (x1, x2), (c1, c2)) or _is_weak_float_pair(impl, plan, x1, x2):
                direct.add(key)
        return res

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Array API ``{name}`` on MLX arrays (Python scalars allowed, weakly typed)."
    return fn


def _int_comparison(name: str, x1: Any, x2: Any) -> Array | None:
    """An array compared with a Python int: the rules' answer
    (:func:`unifiedarray._rules.binary_scalar`) where it is a constant (an
    int outside the array's range), else None."""
    arr, value, reflected = (x1, x2, False) if is_array(x1) else (x2, x1, True)
    if not is_array(arr):
        return None
    constant = _rules.binary_scalar(name, dtype_of(arr), value, reflected)
    return None if constant is None else mx.full(arr.shape, constant, dtype=mx.bool_)


_NO_CONTEXT = contextlib.nullcontext()
_COMPLEX128 = np.dtype("complex128")


def _parts64(x: Any) -> tuple[Array, Array]:
    """Real and imaginary parts of ``x`` as float64 (exact for float64,
    complex64 and every narrower dtype's values)."""
    if not is_array(x):
        z = complex(x)
        return scalar(z.real, np.dtype("float64")), scalar(z.imag, np.dtype("float64"))
    if x.dtype == mx.complex64:
        return mx.real(x).astype(mx.float64), mx.imag(x).astype(mx.float64)
    re = x.astype(mx.float64)
    return re, mx.zeros_like(re)


# Functions with a bool result whose arguments promote to complex128 (float64
# with complex64), which MLX cannot hold: computed exactly on float64 parts.
# Ordering is NumPy's (lexicographic); the standard leaves complex unordered.
Parts = tuple[Array, Array]


def _lex_less(a: Parts, b: Parts) -> Array:
    return (a[0] < b[0]) | ((a[0] == b[0]) & (a[1] < b[1]))


def _same(a: Parts, b: Parts) -> Array:
    return (a[0] == b[0]) & (a[1] == b[1])


def _truth(a: Parts) -> Array:
    return (a[0] != 0) | (a[1] != 0)


_BOOL_OF_COMPLEX128: dict[str, Callable[[Parts, Parts], Array]] = {
    "equal": _same,
    "not_equal": lambda a, b: mx.logical_not(_same(a, b)),
    "less": _lex_less,
    "greater": lambda a, b: _lex_less(b, a),
    "less_equal": lambda a, b: _lex_less(a, b) | _same(a, b),
    "greater_equal": lambda a, b: _lex_less(b, a) | _same(a, b),
    "logical_and": lambda a, b: _truth(a) & _truth(b),
    "logical_or": lambda a, b: _truth(a) | _truth(b),
    "logical_xor": lambda a, b: _truth(a) != _truth(b),
}


# Impls that are one MLX function (which takes stream=) for arguments of
# every dtype but one: what direct_impl gives for a direct signature without it.
_MLX_EXCEPT: dict[Callable[..., Array], tuple[Callable[..., Array], Any]] = {
    _sin: (mx.sin, mx.float64),
    _cos: (mx.cos, mx.float64),
    _divide: (mx.divide, mx.complex64),
}

# Generated functions that check more than their impl (pow: integers to
# negative powers, wrapped below): never direct.
_CHECKED_AFTER = frozenset(["pow"])

#: The compositions MLX compiles into one kernel (``mx.compile``) once a
#: signature recurs: those whose graph of many small operations costs more
#: to build than a compiled call.  On (8,) float32 on the 2-core VM
#: (2026-12-02) building ``floor_divide`` took 41 µs eager and 6 µs
#: compiled, ``remainder`` 29 and 3.5, ``nextafter`` 25 and 5, ``hypot`` 21
#: and 3, ``exp`` 15 and 2.3; a one- or two-operation impl is faster eager
#: (a compiled call costs about 1.5 µs).  The compiled kernel computes the
#: same operations: ``tests/test_mlx_namespace.py`` holds every one to its
#: eager impl, bit for bit, over six dtypes (every kind an impl is given)
#: and every pairing of the special values.
COMPILED = frozenset(
    [
        "bitwise_left_shift",
        "bitwise_right_shift",
        "copysign",
        "exp",
        "floor_divide",
        "hypot",
        "logical_and",
        "logical_or",
        "logical_xor",
        "nextafter",
        "remainder",
        "sign",
    ]
)

#: A kernel's signatures kept: past it, a new signature runs eager (MLX
#: keeps every compiled graph, so a program of ever new shapes would grow
#: without bound).
_MAX_SIGNATURES = 64


class Kernel:
    """A composition's impl, compiled by MLX for an input signature (each
    array's shape and dtype) met before: the first call of a signature runs
    eager (a shape seen once would pay the trace for nothing), later ones
    run the kernel.  A signature the trace refuses runs eager from then on.
    Called under the evaluation lock (inside ``compute_context``), as every
    namespace function."""

    __slots__ = ("compiled", "impl", "seen")

    def __init__(self, impl: Callable[..., Array]) -> None:
        self.impl = impl
        self.compiled = mx.compile(impl)
        self.seen: dict[tuple, bool] = {}  # signature -> whether the kernel takes it

    def __call__(self, *args: Any) -> Array:
        key = tuple([(a.shape, a.dtype) if type(a) is mx.array else None for a in args])
        use = self.seen.get(key)
        if use:
            try:
                return self.compiled(*args)
            except Exception:
                self.seen[key] = False  # eager from now on; eager raises the call's own error, if it has one
        elif use is None and None not in key and len(self.seen) < _MAX_SIGNATURES:
            self.seen[key] = True
        return self.impl(*args)


FUNCTIONS: dict[str, Callable[..., Array]] = {}
for _name, _impl in UNARY.items():
    FUNCTIONS[_name] = _make_unary(_name, Kernel(_impl) if _name in COMPILED else _impl)
for _name, _impl2 in BINARY.items():
    FUNCTIONS[_name] = _make_binary(_name, Kernel(_impl2) if _name in COMPILED else _impl2)
del _name, _impl, _impl2

_INTEGER_RESULTS = (mx.int8, mx.int16, mx.int32, mx.int64, mx.uint8, mx.uint16, mx.uint32, mx.uint64)


def _integer_pow(generated: Callable[[Any, Any], Array]) -> Callable[[Any, Any], Array]:
    def pow(x1: Any, x2: Any, /) -> Array:
        out = generated(x1, x2)
        if out.dtype in _INTEGER_RESULTS:
            # MLX gives 0 (or garbage) for an integer to a negative integer
            # power; NumPy raises ValueError at the call.  A Python int costs
            # nothing to check; an array exponent costs a read of any(x2 < 0).
            negative = x2.size and dtype_of(x2).kind == "i" and bool(mx.any(x2 < 0).item()) if is_array(x2) else x2 < 0
            if negative:
                raise ValueError("mlx pow: Integers to negative integer powers are not allowed.")
        return out

    pow.__doc__ = generated.__doc__
    return pow


FUNCTIONS["pow"] = _integer_pow(FUNCTIONS["pow"])


def clip(x: Array, /, min: Any | None = None, max: Any | None = None) -> Array:
    """Array API ``clip``: the result keeps ``x``'s dtype, except where the
    rules say otherwise (:func:`unifiedarray._rules.clip_plan`: bounds of
    another kind give NumPy's dtype; a Python int bound outside x's range
    clips nothing or cannot be held); NaN in ``x``, ``min`` or ``max``
    gives NaN."""
    require_array(x, "clip")
    lo_dtype = dtype_of(min) if is_array(min) else None  # type: ignore[arg-type]
    hi_dtype = dtype_of(max) if is_array(max) else None  # type: ignore[arg-type]
    plan = _rules.clip_plan(dtype_of(x), min, max, lo_dtype, hi_dtype)
    if plan.dtype.kind == "c":
        raise TypeError("mlx clip: complex input is not ordered")
    x = cast(x, plan.dtype, "clip")
    min, max = plan.min, plan.max
    bounds = [b.dtype for b in (min, max) if is_array(b)]
    with cpu_if(x.dtype, *bounds, *(common_dtype(x, b) for b in (min, max) if is_array(b))):
        return _clip(x, min, max)


def _clip(x: Array, min: Any | None, max: Any | None) -> Array:
    dt = dtype_of(x)
    if dt.kind == "c":
        raise TypeError("mlx clip: complex input is not ordered")
    out = x
    for bound, pick in ((min, mx.maximum), (max, mx.minimum)):
        if bound is None:
            continue
        if is_array(bound):
            # Compare in the common dtype, then come back to x's dtype (the
            # standard leaves bounds outside x's range unspecified).
            common = common_dtype(out, bound)
            check_holdable("clip", common)
            out = pick(cast(out, common, "clip"), cast(bound, common, "clip"))
            continue
        # The rules' plan made the bound x's kind, in x's range.
        out = pick(out, scalar(bound, dtype_of(out), "clip"))
    if dtype_of(out) != dt:
        out = out.astype(x.dtype)
    return fresh(out) if out is x else out
