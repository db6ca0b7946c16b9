"""The elementwise functions (Array API chapter "Element-wise Functions").

Each function is the standard's signature, written out, handing its call to
the one dispatch (:mod:`unifiedarray._dispatch`), which runs it on the
device where its arrays live.  One chapter, so one module: its length is
the standard's list of functions.

Example
-------
>>> import unifiedarray as xp
>>> xp.sqrt(xp.asarray([4.0, 9.0])).tolist()
[2.0, 3.0]
"""

from __future__ import annotations

from . import _calls, _operators, _rules
from ._array import UnifiedArray

__all__ = [
    "abs",
    "acos",
    "acosh",
    "add",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "bitwise_and",
    "bitwise_invert",
    "bitwise_left_shift",
    "bitwise_or",
    "bitwise_right_shift",
    "bitwise_xor",
    "ceil",
    "clip",
    "conj",
    "copysign",
    "cos",
    "cosh",
    "divide",
    "equal",
    "exp",
    "expm1",
    "floor",
    "floor_divide",
    "greater",
    "greater_equal",
    "hypot",
    "imag",
    "isfinite",
    "isinf",
    "isnan",
    "less",
    "less_equal",
    "log",
    "log1p",
    "log2",
    "log10",
    "logaddexp",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "maximum",
    "minimum",
    "multiply",
    "negative",
    "nextafter",
    "not_equal",
    "positive",
    "pow",
    "real",
    "reciprocal",
    "remainder",
    "round",
    "sign",
    "signbit",
    "sin",
    "sinh",
    "sqrt",
    "square",
    "subtract",
    "tan",
    "tanh",
    "trunc",
]


def abs(x: UnifiedArray, /) -> UnifiedArray:
    """``abs`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.abs.html
    """
    return _operators.unary("abs", x)


def acos(x: UnifiedArray, /) -> UnifiedArray:
    """``acos`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.acos.html
    """
    return _operators.unary("acos", x)


def acosh(x: UnifiedArray, /) -> UnifiedArray:
    """``acosh`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.acosh.html
    """
    return _operators.unary("acosh", x)


def asin(x: UnifiedArray, /) -> UnifiedArray:
    """``asin`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.asin.html
    """
    return _operators.unary("asin", x)


def asinh(x: UnifiedArray, /) -> UnifiedArray:
    """``asinh`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.asinh.html
    """
    return _operators.unary("asinh", x)


def atan(x: UnifiedArray, /) -> UnifiedArray:
    """``atan`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.atan.html
    """
    return _operators.unary("atan", x)


def atanh(x: UnifiedArray, /) -> UnifiedArray:
    """``atanh`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.atanh.html
    """
    return _operators.unary("atanh", x)


def bitwise_invert(x: UnifiedArray, /) -> UnifiedArray:
    """``bitwise_invert`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.bitwise_invert.html
    """
    return _operators.unary("bitwise_invert", x)


def ceil(x: UnifiedArray, /) -> UnifiedArray:
    """``ceil`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.ceil.html
    """
    return _operators.unary("ceil", x)


def conj(x: UnifiedArray, /) -> UnifiedArray:
    """``conj`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.conj.html
    """
    return _operators.unary("conj", x)


def cos(x: UnifiedArray, /) -> UnifiedArray:
    """``cos`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.cos.html
    """
    return _operators.unary("cos", x)


def cosh(x: UnifiedArray, /) -> UnifiedArray:
    """``cosh`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.cosh.html
    """
    return _operators.unary("cosh", x)


def exp(x: UnifiedArray, /) -> UnifiedArray:
    """``exp`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.exp.html
    """
    return _operators.unary("exp", x)


def expm1(x: UnifiedArray, /) -> UnifiedArray:
    """``expm1`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.expm1.html
    """
    return _operators.unary("expm1", x)


def floor(x: UnifiedArray, /) -> UnifiedArray:
    """``floor`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.floor.html
    """
    return _operators.unary("floor", x)


def imag(x: UnifiedArray, /) -> UnifiedArray:
    """``imag`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.imag.html
    """
    return _operators.unary("imag", x)


def isfinite(x: UnifiedArray, /) -> UnifiedArray:
    """``isfinite`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.isfinite.html
    """
    return _operators.unary("isfinite", x)


def isinf(x: UnifiedArray, /) -> UnifiedArray:
    """``isinf`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.isinf.html
    """
    return _operators.unary("isinf", x)


def isnan(x: UnifiedArray, /) -> UnifiedArray:
    """``isnan`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.isnan.html
    """
    return _operators.unary("isnan", x)


def log(x: UnifiedArray, /) -> UnifiedArray:
    """``log`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.log.html
    """
    return _operators.unary("log", x)


def log1p(x: UnifiedArray, /) -> UnifiedArray:
    """``log1p`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.log1p.html
    """
    return _operators.unary("log1p", x)


def log2(x: UnifiedArray, /) -> UnifiedArray:
    """``log2`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.log2.html
    """
    return _operators.unary("log2", x)


def log10(x: UnifiedArray, /) -> UnifiedArray:
    """``log10`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.log10.html
    """
    return _operators.unary("log10", x)


def logical_not(x: UnifiedArray, /) -> UnifiedArray:
    """``logical_not`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.logical_not.html
    """
    return _operators.unary("logical_not", x)


def negative(x: UnifiedArray, /) -> UnifiedArray:
    """``negative`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.negative.html
    """
    return _operators.unary("negative", x)


def positive(x: UnifiedArray, /) -> UnifiedArray:
    """``positive`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.positive.html
    """
    return _operators.unary("positive", x)


def real(x: UnifiedArray, /) -> UnifiedArray:
    """``real`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.real.html
    """
    return _operators.unary("real", x)


def reciprocal(x: UnifiedArray, /) -> UnifiedArray:
    """``reciprocal`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.reciprocal.html
    """
    return _operators.unary("reciprocal", x)


def round(x: UnifiedArray, /) -> UnifiedArray:
    """``round`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.round.html
    """
    return _operators.unary("round", x)


def sign(x: UnifiedArray, /) -> UnifiedArray:
    """``sign`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.sign.html
    """
    return _operators.unary("sign", x)


def signbit(x: UnifiedArray, /) -> UnifiedArray:
    """``signbit`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.signbit.html
    """
    return _operators.unary("signbit", x)


def sin(x: UnifiedArray, /) -> UnifiedArray:
    """``sin`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.sin.html
    """
    return _operators.unary("sin", x)


def sinh(x: UnifiedArray, /) -> UnifiedArray:
    """``sinh`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.sinh.html
    """
    return _operators.unary("sinh", x)


def square(x: UnifiedArray, /) -> UnifiedArray:
    """``square`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.square.html
    """
    return _operators.unary("square", x)


def sqrt(x: UnifiedArray, /) -> UnifiedArray:
    """``sqrt`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.sqrt.html
    """
    return _operators.unary("sqrt", x)


def tan(x: UnifiedArray, /) -> UnifiedArray:
    """``tan`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.tan.html
    """
    return _operators.unary("tan", x)


def tanh(x: UnifiedArray, /) -> UnifiedArray:
    """``tanh`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.tanh.html
    """
    return _operators.unary("tanh", x)


def trunc(x: UnifiedArray, /) -> UnifiedArray:
    """``trunc`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.trunc.html
    """
    return _operators.unary("trunc", x)


def add(x1: complex | UnifiedArray, x2: complex | UnifiedArray, /) -> UnifiedArray:
    """``add`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.add.html
    """
    return _operators.binary_function("add", x1, x2)


def atan2(x1: float | UnifiedArray, x2: float | UnifiedArray, /) -> UnifiedArray:
    """``atan2`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.atan2.html
    """
    return _operators.binary_function("atan2", x1, x2)


def bitwise_and(x1: int | UnifiedArray, x2: int | UnifiedArray, /) -> UnifiedArray:
    """``bitwise_and`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.bitwise_and.html
    """
    return _operators.binary_function("bitwise_and", x1, x2)


def bitwise_left_shift(x1: int | UnifiedArray, x2: int | UnifiedArray, /) -> UnifiedArray:
    """``bitwise_left_shift`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.bitwise_left_shift.html
    """
    return _operators.binary_function("bitwise_left_shift", x1, x2)


def bitwise_or(x1: int | UnifiedArray, x2: int | UnifiedArray, /) -> UnifiedArray:
    """``bitwise_or`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.bitwise_or.html
    """
    return _operators.binary_function("bitwise_or", x1, x2)


def bitwise_right_shift(x1: int | UnifiedArray, x2: int | UnifiedArray, /) -> UnifiedArray:
    """``bitwise_right_shift`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.bitwise_right_shift.html
    """
    return _operators.binary_function("bitwise_right_shift", x1, x2)


def bitwise_xor(x1: int | UnifiedArray, x2: int | UnifiedArray, /) -> UnifiedArray:
    """``bitwise_xor`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.bitwise_xor.html
    """
    return _operators.binary_function("bitwise_xor", x1, x2)


def copysign(x1: float | UnifiedArray, x2: float | UnifiedArray, /) -> UnifiedArray:
    """``copysign`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.copysign.html
    """
    return _operators.binary_function("copysign", x1, x2)


def divide(x1: complex | UnifiedArray, x2: complex | UnifiedArray, /) -> UnifiedArray:
    """``divide`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.divide.html
    """
    return _operators.binary_function("divide", x1, x2)


def equal(x1: complex | UnifiedArray, x2: complex | UnifiedArray, /) -> UnifiedArray:
    """``equal`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.equal.html
    """
    return _operators.binary_function("equal", x1, x2)


def floor_divide(x1: float | UnifiedArray, x2: float | UnifiedArray, /) -> UnifiedArray:
    """``floor_divide`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.floor_divide.html
    """
    return _operators.binary_function("floor_divide", x1, x2)


def greater(x1: float | UnifiedArray, x2: float | UnifiedArray, /) -> UnifiedArray:
    """``greater`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.greater.html
    """
    return _operators.binary_function("greater", x1, x2)


def greater_equal(x1: float | UnifiedArray, x2: float | UnifiedArray, /) -> UnifiedArray:
    """``greater_equal`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.greater_equal.html
    """
    return _operators.binary_function("greater_equal", x1, x2)


def hypot(x1: float | UnifiedArray, x2: float | UnifiedArray, /) -> UnifiedArray:
    """``hypot`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.hypot.html
    """
    return _operators.binary_function("hypot", x1, x2)


def less(x1: float | UnifiedArray, x2: float | UnifiedArray, /) -> UnifiedArray:
    """``less`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.less.html
    """
    return _operators.binary_function("less", x1, x2)


def less_equal(x1: float | UnifiedArray, x2: float | UnifiedArray, /) -> UnifiedArray:
    """``less_equal`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.less_equal.html
    """
    return _operators.binary_function("less_equal", x1, x2)


def logaddexp(x1: float | UnifiedArray, x2: float | UnifiedArray, /) -> UnifiedArray:
    """``logaddexp`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.logaddexp.html
    """
    return _operators.binary_function("logaddexp", x1, x2)


def logical_and(x1: bool | UnifiedArray, x2: bool | UnifiedArray, /) -> UnifiedArray:
    """``logical_and`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.logical_and.html
    """
    return _operators.binary_function("logical_and", x1, x2)


def logical_or(x1: bool | UnifiedArray, x2: bool | UnifiedArray, /) -> UnifiedArray:
    """``logical_or`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.logical_or.html
    """
    return _operators.binary_function("logical_or", x1, x2)


def logical_xor(x1: bool | UnifiedArray, x2: bool | UnifiedArray, /) -> UnifiedArray:
    """``logical_xor`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.logical_xor.html
    """
    return _operators.binary_function("logical_xor", x1, x2)


def maximum(x1: float | UnifiedArray, x2: float | UnifiedArray, /) -> UnifiedArray:
    """``maximum`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.maximum.html
    """
    return _operators.binary_function("maximum", x1, x2)


def minimum(x1: float | UnifiedArray, x2: float | UnifiedArray, /) -> UnifiedArray:
    """``minimum`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.minimum.html
    """
    return _operators.binary_function("minimum", x1, x2)


def multiply(x1: complex | UnifiedArray, x2: complex | UnifiedArray, /) -> UnifiedArray:
    """``multiply`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.multiply.html
    """
    return _operators.binary_function("multiply", x1, x2)


def nextafter(x1: float | UnifiedArray, x2: float | UnifiedArray, /) -> UnifiedArray:
    """``nextafter`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.nextafter.html
    """
    return _operators.binary_function("nextafter", x1, x2)


def not_equal(x1: complex | UnifiedArray, x2: complex | UnifiedArray, /) -> UnifiedArray:
    """``not_equal`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.not_equal.html
    """
    return _operators.binary_function("not_equal", x1, x2)


def pow(x1: complex | UnifiedArray, x2: complex | UnifiedArray, /) -> UnifiedArray:
    """``pow`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.pow.html
    """
    return _operators.binary_function("pow", x1, x2)


def remainder(x1: float | UnifiedArray, x2: float | UnifiedArray, /) -> UnifiedArray:
    """``remainder`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.remainder.html
    """
    return _operators.binary_function("remainder", x1, x2)


def subtract(x1: complex | UnifiedArray, x2: complex | UnifiedArray, /) -> UnifiedArray:
    """``subtract`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.subtract.html
    """
    return _operators.binary_function("subtract", x1, x2)


def clip(
    x: UnifiedArray, /, min: UnifiedArray | float | None = None, max: UnifiedArray | float | None = None
) -> UnifiedArray:
    """``clip`` (elementwise), run where its arrays live.

    Specification: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.clip.html
    """
    traced = _calls.traced_call(clip, (x, min, max))
    if traced is not NotImplemented:
        return traced  # a tracer of unifiedarray.fuse records the call
    _calls.require_arrays("clip", x)
    _calls.require_real("clip", x)
    plan = _rules.clip_plan(
        x.dtype,
        min,
        max,
        min.dtype if type(min) is UnifiedArray else None,
        max.dtype if type(max) is UnifiedArray else None,
    )
    if plan.dtype.kind == "c":
        raise TypeError(f"clip: bounds that make the {x.dtype.name} array complex; complex numbers have no order")
    if plan.dtype != x.dtype:
        x = _calls.call("astype", (x, plan.dtype), {"copy": False})  # mixed kinds: NumPy's result dtype
    lo, hi = (b if type(b) is UnifiedArray or b is None else _rules.element(plan.dtype, b, "clip") for b in plan[1:])
    return _calls.call("clip", (x, lo, hi))
