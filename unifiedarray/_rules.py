"""The array rules, in one place: where the 2025.12 standard specifies a
behaviour, the standard; where it leaves it to the implementation, NumPy 2's
answer; inside :func:`strict`, what the standard leaves open raises, as
array-api-strict does.  One idea (what an operation's dtypes, scalars and
casts give), so one module.

Every entry that takes a Python scalar or casts into an existing array asks
this module before any backend sees a value, and hands the backend only what
the answer here allows (a value already converted to the target dtype, or a
dtype already decided).  So no backend's own conversion, promotion or error
reaches the user, and every device gives the same dtype, values and
exception class.  The entries:

* :func:`binary_scalar` -- ``array <op> scalar`` (every binary operator and
  elementwise function; :func:`unifiedarray._intake.check_scalar` is its
  only caller in the dispatch): the scalar's kind and range, per operation
  class (arithmetic, comparison, bitwise, selection); an out-of-range Python
  int in a comparison gives a constant;
* :func:`binary_arrays`, :func:`unary` -- strict mode's dtype categories and
  promotion for arrays (the default mode leaves both to NumPy's rules, which
  every backend follows);
* :func:`inplace_result` -- ``x <op>= y``: whether the result may be cast
  into ``x`` (NumPy's ``same_kind``; strict: the same dtype only);
* :func:`cast_into` -- an array written into an existing one
  (``__setitem__``, ``out=`` with its ``casting=``, ``copy_from``);
* :func:`store` and :func:`fill_value` -- a Python scalar as an element of
  a dtype (``__setitem__`` and ``fill``; ``full`` and ``full_like``);
* :func:`where_scalar`, :func:`clip_plan` -- ``where`` and ``clip``;
* :func:`scalar_dtype`, :func:`arange_dtype`, :func:`arange_plan`,
  :func:`linspace_dtype` -- creation from Python scalars;
* :func:`result_type`, :func:`can_cast`.

Decisions that depend only on dtypes and the scalar's type are cached per
signature (a dict lookup per call); only a value that can be out of range
is looked at.

Example
-------
>>> import numpy as np
>>> from unifiedarray import _rules
>>> _rules.is_strict()
False
>>> _rules.result_type(np.dtype("int16"), 0.5)
dtype('float64')
>>> with _rules.strict():
...     _rules.is_strict()
True
"""

from __future__ import annotations

import builtins
import math
import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

import numpy as np
from numpy.exceptions import ComplexWarning

from ._devices import Device
from ._dtypes import PYTHON_TYPES, default_complex, default_float, default_int

__all__ = [
    "StrictModeError",
    "arange_dtype",
    "arange_length",
    "arange_plan",
    "binary_arrays",
    "binary_scalar",
    "can_cast",
    "cast_into",
    "clip_plan",
    "cumulative_of_0d",
    "element",
    "fill_value",
    "inplace_operand",
    "inplace_result",
    "is_strict",
    "linspace_bounds",
    "linspace_dtype",
    "outside_standard",
    "plan_count",
    "result_type",
    "scalar_dtype",
    "set_strict",
    "store",
    "strict",
    "unary",
    "where_scalar",
    "where_scalars",
]


class StrictModeError(TypeError):
    """A call outside the 2025.12 standard (a NumPy extension such as
    ``xp.pad``) made inside :func:`strict`.  A ``TypeError``: strict mode
    refuses what a strictly conforming library does not have."""


# -- the mode ---------------------------------------------------------------------------

# The process-wide mode (set_strict), and a per-thread override (strict()).
_DEFAULT = [False]
_LOCAL = threading.local()
#: How many reasons there are for some thread to be strict (the process-wide
#: flag, and each strict() block open in any thread).  While it is 0 no
#: thread is strict, and the checks below skip the thread-local lookup.
ACTIVE = [0]
_ACTIVE_LOCK = threading.Lock()


def is_strict() -> bool:
    """Whether this thread runs in strict mode: inside :func:`strict`, or
    after ``set_strict(True)`` outside any :func:`strict` block."""
    if not ACTIVE[0]:
        return False
    override = getattr(_LOCAL, "strict", None)
    return _DEFAULT[0] if override is None else override


def set_strict(flag: bool) -> bool:
    """Set the process-wide mode; returns the previous one.  A
    :func:`strict` block overrides it in its own thread.

    >>> import unifiedarray as xp
    >>> previous = xp.set_strict(True)
    >>> xp.set_strict(previous)
    True
    """
    with _ACTIVE_LOCK:
        previous = _DEFAULT[0]
        _DEFAULT[0] = bool(flag)
        ACTIVE[0] += int(_DEFAULT[0]) - int(previous)
    return previous


@contextmanager
def strict(flag: bool = True) -> Iterator[None]:
    """Run a block in strict mode (this thread only): every behaviour the
    standard leaves to the implementation raises the error array-api-strict
    raises there, so a program that runs inside it is portable to any Array
    API library.  ``strict(False)`` runs a block in the default mode.

    >>> import unifiedarray as xp
    >>> with xp.strict():
    ...     xp.is_strict()
    True
    """
    previous = getattr(_LOCAL, "strict", None)
    with _ACTIVE_LOCK:
        ACTIVE[0] += 1
    _LOCAL.strict = bool(flag)
    try:
        yield
    finally:
        _LOCAL.strict = previous
        with _ACTIVE_LOCK:
            ACTIVE[0] -= 1


def outside_standard(name: str) -> None:
    """In strict mode, :class:`StrictModeError` for ``name``, something the
    2025.12 standard does not have (a NumPy extension, ``divmod``)."""
    if ACTIVE[0] and is_strict():
        raise StrictModeError(
            f"{name} is a NumPy extension, not in the 2025.12 standard "
            "(unifiedarray.strict() refuses what a strictly conforming library may lack)"
        )


# -- operation classes and the standard's dtype categories ----------------------------------

COMPARISONS = frozenset(["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"])
BITWISE = frozenset(
    ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "bitwise_invert"]
)

_NUMERIC, _REAL, _INT, _INT_BOOL, _BOOL, _FLOAT, _REAL_FLOAT, _ANY = (
    "iufc", "iuf", "iu", "iub", "b", "fc", "f", "biufc",
)  # fmt: skip
_CATEGORY_NAMES = {
    _NUMERIC: "numeric",
    _REAL: "real numeric",
    _INT: "integer",
    _INT_BOOL: "integer or boolean",
    _BOOL: "boolean",
    _FLOAT: "floating-point",
    _REAL_FLOAT: "real floating-point",
    _ANY: "any",
    "c": "complex floating-point",
}

#: The standard's dtype category of each elementwise function (the dtype
#: kinds its arrays may have).  Outside it the standard specifies nothing:
#: the default mode gives NumPy's answer, strict mode raises TypeError.
CATEGORIES: dict[str, str] = {
    "abs": _NUMERIC, "acos": _FLOAT, "acosh": _FLOAT, "add": _NUMERIC, "asin": _FLOAT, "asinh": _FLOAT,
    "atan": _FLOAT, "atan2": _REAL_FLOAT, "atanh": _FLOAT, "bitwise_and": _INT_BOOL,
    "bitwise_invert": _INT_BOOL, "bitwise_left_shift": _INT, "bitwise_or": _INT_BOOL,
    "bitwise_right_shift": _INT, "bitwise_xor": _INT_BOOL, "ceil": _REAL, "clip": _REAL, "conj": _NUMERIC,
    "copysign": _REAL_FLOAT, "cos": _FLOAT, "cosh": _FLOAT, "divide": _FLOAT, "equal": _ANY, "exp": _FLOAT,
    "expm1": _FLOAT, "floor": _REAL, "floor_divide": _REAL, "greater": _REAL, "greater_equal": _REAL,
    "hypot": _REAL_FLOAT, "imag": "c", "isfinite": _NUMERIC, "isinf": _NUMERIC, "isnan": _NUMERIC,
    "less": _REAL, "less_equal": _REAL, "log": _FLOAT, "log1p": _FLOAT, "log2": _FLOAT, "log10": _FLOAT,
    "logaddexp": _REAL_FLOAT, "logical_and": _BOOL, "logical_not": _BOOL, "logical_or": _BOOL,
    "logical_xor": _BOOL, "maximum": _REAL, "minimum": _REAL, "multiply": _NUMERIC, "negative": _NUMERIC,
    "nextafter": _REAL_FLOAT, "not_equal": _ANY, "positive": _NUMERIC, "pow": _NUMERIC, "real": _NUMERIC,
    "reciprocal": _FLOAT, "remainder": _REAL, "round": _NUMERIC, "sign": _NUMERIC, "signbit": _REAL_FLOAT,
    "sin": _FLOAT, "sinh": _FLOAT, "sqrt": _FLOAT, "square": _NUMERIC, "subtract": _NUMERIC, "tan": _FLOAT,
    "tanh": _FLOAT, "trunc": _REAL, "matmul": _NUMERIC, "isin": _INT,
    # statistical, searching and sorting functions of one array
    "sum": _NUMERIC, "prod": _NUMERIC, "cumulative_sum": _NUMERIC, "cumulative_prod": _NUMERIC, "mean": _FLOAT,
    "std": _REAL_FLOAT, "var": _REAL_FLOAT, "max": _REAL, "min": _REAL, "argmax": _REAL, "argmin": _REAL,
    "sort": _REAL, "argsort": _REAL,
}  # fmt: skip

#: The standard's dtype category of the arrays of the functions the
#: dispatch runs by name (:func:`unifiedarray._calls.call`), beyond the
#: elementwise ones: linear algebra, the FFTs, ``where``'s condition.
#: (name, the category, the position of the one array it applies to, or
#: None for every array.)  Strict mode refuses the rest with
#: array-api-strict's ``TypeError``; the default mode gives NumPy's answer.
ARRAY_CATEGORIES: dict[str, tuple[str, int | None]] = {
    **{f"linalg.{n}": (_FLOAT, None) for n in (
        "cholesky", "det", "eig", "eigh", "eigvals", "eigvalsh", "inv", "matrix_norm", "matrix_power",
        "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "vector_norm",
    )},
    **{n: (_NUMERIC, None) for n in (
        "linalg.cross", "linalg.outer", "linalg.trace", "linalg.matmul", "linalg.tensordot", "linalg.vecdot",
        "matmul", "tensordot", "vecdot", "diff",
    )},
    **{f"fft.{n}": ("c", None) for n in ("fft", "ifft", "fftn", "ifftn", "irfft", "irfftn", "hfft")},
    **{f"fft.{n}": (_REAL_FLOAT, None) for n in ("rfft", "rfftn", "ihfft")},
    "where": (_BOOL, 0),
    "isin": (_INT, None),
    "searchsorted": (_REAL, None),
}  # fmt: skip

#: The functions whose arrays strict mode requires to promote together (the
#: standard's table: no mixed kinds), as an operator's two operands must.
SAME_KIND_ARRAYS = frozenset(["concat", "stack", "where"])


def strict_call(path: str, args: tuple[Any, ...]) -> None:
    """Strict mode, for the call of the namespace function ``path`` with
    ``args`` (arrays, or sequences of them: anything with a NumPy
    ``dtype``): array-api-strict's ``TypeError`` for an array outside the
    function's category (:data:`ARRAY_CATEGORIES`), or arrays that do not
    promote together (:data:`SAME_KIND_ARRAYS`).  The default mode: nothing."""
    if not is_strict():
        return
    entry = ARRAY_CATEGORIES.get(path)
    same_kind = path in SAME_KIND_ARRAYS
    if entry is None and not same_kind:
        return
    dtypes = [d for a in args for d in _dtypes_of(a)]
    if entry is not None:
        cat, only = entry
        for i, d in enumerate(dtypes if only is None else dtypes[only : only + 1]):
            if d.kind not in cat:
                raise TypeError(
                    f"{path}: only {_CATEGORY_NAMES[cat]} dtypes are allowed in strict mode, not {d.name}"
                    + ("" if only is None else f" (argument {only + i})")
                )
    if same_kind:
        operands = dtypes[1:] if path == "where" else dtypes
        for d in operands[1:]:
            _strict_promote(operands[0], d, path)


def _dtypes_of(a: Any) -> list[np.dtype]:
    d = getattr(a, "dtype", None)
    if isinstance(d, np.dtype):
        return [d]
    if isinstance(a, list | tuple):
        return [d for o in a for d in _dtypes_of(o)]
    return []


_INT64 = np.dtype(np.int64)
_UINT64 = np.dtype(np.uint64)
_FLOAT64 = np.dtype(np.float64)
_BOOL_DT = np.dtype(np.bool_)
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_FLOAT_MAX_INT = int(np.finfo(np.float64).max)  # the largest int a float holds


def scalar_kind(value: Any) -> str:
    """``"b"``, ``"i"``, ``"f"`` or ``"c"``: the kind of a Python scalar;
    ``TypeError`` for anything else."""
    if isinstance(value, builtins.bool):
        return "b"
    if isinstance(value, builtins.int):
        return "i"
    if isinstance(value, builtins.float):
        return "f"
    if isinstance(value, builtins.complex):
        return "c"
    raise TypeError(f"expected an array or a Python scalar, got {type(value).__name__}")


def _int_range(dtype: np.dtype) -> tuple[int, int]:
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def _category_error(op: str, dtype: np.dtype) -> TypeError:
    cat = CATEGORIES.get(op, _ANY)
    return TypeError(
        f"{op}: only {_CATEGORY_NAMES[cat]} dtypes are allowed in strict mode, not {dtype.name} "
        f"(the standard does not define {op} for it)"
    )


def _out_of_bounds(value: int, dtype: np.dtype, op: str) -> OverflowError:
    return OverflowError(f"{op}: Python integer {value} out of bounds for {dtype.name}")


# -- Python scalars in binary operations ------------------------------------------------------


class _Range(NamedTuple):
    """A Python int must lie in [lo, hi]; out of it, ``constant`` (a
    comparison's answer for a value above the range; below, its negation
    where it is an order) or an OverflowError for ``dtype``."""

    lo: int
    hi: int
    dtype: np.dtype
    comparison: str | None  # the comparison's name, or None: out of range raises


class _Refuse(NamedTuple):
    """An error the rule gives for every value of this signature."""

    cls: type[Exception]
    message: str


_PASS = None  # the backend takes the value as it is
# [strict][reflected] -> op -> dtype -> scalar type -> _PASS, a _Range or a
# _Refuse.  Nested dicts: three lookups of cheap keys cost about half of one
# lookup of a tuple holding a dtype.
_SCALAR_PLANS: list[list[dict[str, dict[np.dtype, dict[type, Any]]]]] = [[{}, {}], [{}, {}]]
#: The default mode's passes, as :func:`binary_scalar` decides them:
#: ``SCALAR_PASSES[reflected][op][dtype][scalar type]`` is None where
#: ``binary_scalar`` passes every value of the type as it is (answers None
#: for it) outside strict mode, and ``(lo, hi)`` where it passes the values
#: from ``lo`` to ``hi`` (a Python int with a float array: the ints a float
#: holds; outside them it raises, or answers a comparison's constant).  The
#: operators' fast path asks it first while no thread is strict
#: (``ACTIVE[0] == 0``), and ``binary_scalar`` where it has no entry or the
#: value is out of bounds; only ``binary_scalar`` fills it.
SCALAR_PASSES: list[dict[str, dict[np.dtype, dict[type, tuple[float, float] | None]]]] = [{}, {}]


def plan_count() -> int:
    """How many scalar decisions are cached (one per operation, dtype,
    scalar type, mode and side)."""
    return sum(
        len(t) for side in _SCALAR_PLANS for by_op in side for by_dtype in by_op.values() for t in by_dtype.values()
    )


# x <op> v for v above x's range; below it, the value for the mirrored order.
_ABOVE = {"less": True, "less_equal": True, "greater": False, "greater_equal": False, "equal": False, "not_equal": True}
_MIRROR = {"less": "greater", "less_equal": "greater_equal", "greater": "less", "greater_equal": "less_equal"}


def _scalar_plan(op: str, dtype: np.dtype, ptype: type, strict_mode: bool, reflected: bool) -> Any:
    kind = dtype.kind
    skind = scalar_kind(ptype())
    if strict_mode:
        cat = CATEGORIES.get(op)
        if cat is not None and kind not in cat:
            return _Refuse(TypeError, str(_category_error(op, dtype)))
        if skind == "b" and kind != "b":
            return _Refuse(
                TypeError, f"{op}: a Python bool with a {dtype.name} array (strict mode: bool with bool only)"
            )
        if skind == "i" and kind == "b":
            return _Refuse(
                TypeError, f"{op}: a Python int with a bool array (strict mode: not defined by the standard)"
            )
        if skind in "fc" and kind not in "fc":
            return _Refuse(
                TypeError,
                f"{op}: a Python {ptype.__name__} with a {dtype.name} array (strict mode: "
                f"{ptype.__name__} scalars only with floating-point arrays)",
            )
        if skind == "i" and kind in "iu":
            return _Range(*_int_range(dtype), dtype, None)
    else:
        # NumPy 2: the scalar takes the dtype of the loop NumPy picks for
        # the operation (uint8 + int: uint8; atan2(int8, int): float16;
        # bool & int: int64; logical_xor(int8, int): bool), and must fit it.
        loop = _loop_dtype(op, dtype, ptype, reflected)
        if isinstance(loop, _Refuse):
            return loop
        if skind == "i":
            if loop.kind in "iu":
                compares = op in COMPARISONS and kind in "iu"  # NumPy answers these for any int
                return _Range(*_int_range(loop), loop, op if compares else None)
            if loop.kind in "fc":
                return _Range(-_FLOAT_MAX_INT, _FLOAT_MAX_INT, loop, None)
            if loop.kind == "b":  # logical_*: NumPy takes the int as an int64 first, then its truth
                return _Range(_INT64_MIN, _INT64_MAX, _INT64, None)
        return _PASS
    if skind == "i" and kind in "fc":
        return _Range(-_FLOAT_MAX_INT, _FLOAT_MAX_INT, dtype, None)
    return _PASS


def _loop_dtype(op: str, dtype: np.dtype, ptype: type, reflected: bool) -> Any:
    """The dtype NumPy 2 converts a Python scalar of ``ptype`` to when it
    meets an array of ``dtype`` in ``op``: the input dtype of the ufunc's
    loop (a ``_Refuse`` where there is none), or, for what is not a ufunc
    (``where``, ``searchsorted``, ``result_type``), the weak promotion."""
    ufunc = getattr(np, op, None)
    if isinstance(ufunc, np.ufunc) and ufunc.nin == 2:
        try:
            other = _BOOL_DT if ptype is builtins.bool else ptype  # a Python bool is a bool (the lowest kind)
            loop = ufunc.resolve_dtypes((other, dtype, None) if reflected else (dtype, other, None))
        except Exception as exc:  # NumPy's no-loop error
            why = f"{op}: not defined for a {dtype.name} array and a Python {ptype.__name__}: {exc}"
            return _Refuse(TypeError, why)
        return loop[0] if reflected else loop[1]
    return np.result_type(dtype, ptype(0))


def binary_scalar(op: str, dtype: np.dtype, value: Any, reflected: bool = False) -> bool | None:
    """The rule for ``array <op> value`` (``value <op> array`` when
    ``reflected``), ``value`` a Python scalar, the array of ``dtype``.

    Returns None where the backend computes the answer from the value as it
    is (the result dtype is NumPy's, Python scalars weak); a bool where the
    answer is that constant for every element (a comparison with a Python
    int outside the array's range, as NumPy 2 answers it).  Raises the
    rule's error: ``OverflowError`` for a Python int outside the range of
    an integer array (NumPy's and array-api-strict's), ``TypeError`` for a
    kind the operation does not take (in strict mode, every kind the
    standard leaves open).

    >>> import numpy as np
    >>> binary_scalar("less", np.dtype("uint8"), -1)
    False
    >>> binary_scalar("multiply", np.dtype("int64"), 0.5) is None
    True
    """
    strict_mode = 1 if ACTIVE[0] and is_strict() else 0
    try:
        plan = _SCALAR_PLANS[strict_mode][reflected][op][dtype][type(value)]
    except KeyError:
        plan = _scalar_plan(op, dtype, type(value), bool(strict_mode), reflected)
        by_op = _SCALAR_PLANS[strict_mode][reflected]
        by_op.setdefault(op, {}).setdefault(dtype, {})[type(value)] = plan
        if not strict_mode and (plan is _PASS or type(plan) is _Range):
            bounds = _float_bounds(dtype, type(value)) if plan is _PASS else (plan[0], plan[1])
            SCALAR_PASSES[reflected].setdefault(op, {}).setdefault(dtype, {})[type(value)] = bounds
    if plan is _PASS:
        return None
    if type(plan) is _Refuse:
        raise plan.cls(plan.message)
    lo, hi, target, cmp = plan  # unpacked: cheaper than a named tuple's attributes
    if lo <= value <= hi:
        return None
    if cmp is None:
        if target.kind in "fc":
            raise OverflowError(f"{op}: Python int {value} is too large to convert to {target.name}")
        raise _out_of_bounds(value, target, op)
    if reflected:
        cmp = _MIRROR.get(cmp, cmp)
    above = _ABOVE[cmp]
    if value > hi or cmp in ("equal", "not_equal"):
        return above
    return not above


def _float_bounds(dtype: np.dtype, scalar_type: type) -> tuple[float, float] | None:
    """The values of a Python float a float16 or float32 array's operation
    may take as they are (its finite range): beyond them NumPy's conversion
    overflows with its warning, which :func:`weak_float` gives (a device's
    own conversion would be silent).  None (every value) for the other
    pairs."""
    if scalar_type is builtins.float and dtype.kind == "f" and dtype.itemsize < 8:
        top = float(np.finfo(dtype).max)
        return (-top, top)
    return None


def weak_float(dtype: np.dtype, value: float, op: str) -> float:
    """A Python float meeting a float16 or float32 array, as NumPy's weak
    conversion gives it: beyond the dtype's finite range, the infinity it
    overflows to, with NumPy's "overflow encountered in cast" warning (a
    device's own conversion would be silent); else the value itself.  The
    operators' general path asks it for every such pair (their fast path
    sends the values that :func:`overflows` there)."""
    return float(element(dtype, value, op)) if overflows(dtype, value) else value


def overflows(dtype: np.dtype, value: float) -> bool:
    """Whether a Python float overflows in NumPy's conversion to ``dtype``
    (finite, beyond a float16's or float32's finite range)."""
    bounds = _float_bounds(dtype, builtins.float)
    return not (bounds is None or bounds[0] <= value <= bounds[1] or value != value or abs(value) == math.inf)


def check_kind(op: str, dtype: np.dtype) -> None:
    """Strict mode only: ``TypeError`` unless ``dtype`` is in the standard's
    category for ``op``."""
    cat = CATEGORIES.get(op)
    if cat is not None and dtype.kind not in cat:
        raise _category_error(op, dtype)


def unary(op: str, dtype: np.dtype) -> None:
    """The rule for an elementwise function of one array: in strict mode,
    ``TypeError`` outside the standard's dtype category (the default mode
    gives NumPy's answer there)."""
    if ACTIVE[0] and is_strict():
        check_kind(op, dtype)


def _strict_promote(d1: np.dtype, d2: np.dtype, op: str) -> np.dtype:
    """The standard's promotion of two dtypes (array-api-strict's table):
    ``TypeError`` where it has no entry (mixed kinds, uint64 with a signed
    integer)."""
    k1, k2 = d1.kind, d2.kind
    fl = "fc"
    ok = (k1 == k2 == "b") or (k1 in "iu" and k2 in "iu") or (k1 in fl and k2 in fl)
    if ok:
        out = np.promote_types(d1, d2)
        if out.kind == k1 or out.kind == k2:
            return out
    raise TypeError(f"{op}: {d1.name} and {d2.name} cannot be type promoted together (strict mode)")


def binary_arrays(op: str, d1: np.dtype, d2: np.dtype) -> None:
    """The rule for two arrays: the default mode follows NumPy's promotion
    (every backend computes NumPy's result dtype); strict mode refuses what
    the standard does not define (``TypeError``)."""
    if ACTIVE[0] and is_strict():
        check_kind(op, d1)
        check_kind(op, d2)
        _strict_promote(d1, d2, op)


# -- casting into an existing array ------------------------------------------------------------


def inplace_result(op: str, x_dtype: np.dtype, result: np.dtype) -> None:
    """``x <op>= y`` gave ``result`` for x of ``x_dtype``: may it be cast
    into x?  The default mode: NumPy's ``same_kind`` (int32 += int64 and
    float32 *= float64 are cast; int32 += 0.5 is a ``TypeError``); strict
    mode: only the same dtype (array-api-strict)."""
    if result == x_dtype:
        return
    if ACTIVE[0] and is_strict():
        raise TypeError(
            f"in-place {op}: the result is {result.name}, not the array's {x_dtype.name} (strict mode: "
            f"the standard defines in-place operators only where the result keeps the dtype)"
        )
    if not np.can_cast(result, x_dtype, casting="same_kind"):
        raise TypeError(
            f"in-place {op}: cannot cast the {result.name} result into a {x_dtype.name} array with "
            f"casting rule 'same_kind'"
        )


def inplace_operand(op: str, x_dtype: np.dtype, other: Any) -> None:
    """``x <op>= other`` before anything is computed: where the result's
    dtype is known from the dtypes alone (NumPy's ufunc loop for ``op``),
    the cast into x is checked first, as NumPy checks it (``bool_x **= -1``
    is the cast's ``TypeError``, not the negative power's ``ValueError``)."""
    t = type(other)
    if t in PYTHON_TYPES:
        spec: Any = t
    else:
        spec = getattr(other, "dtype", None)
        if not isinstance(spec, np.dtype):
            return
    try:
        out = _INPLACE_RESULTS[op][x_dtype][spec]
    except KeyError:
        out = _INPLACE_RESULTS.setdefault(op, {}).setdefault(x_dtype, {})[spec] = _ufunc_result(op, x_dtype, spec)
    if out is not None and out != x_dtype:
        if t in PYTHON_TYPES:
            binary_scalar(op, x_dtype, other)  # a scalar's own error first: NumPy converts it before the cast
        inplace_result(op, x_dtype, out)


# op -> x's dtype -> the other's dtype or Python type -> the ufunc's result dtype (None: no ufunc or no loop)
_INPLACE_RESULTS: dict[str, dict[np.dtype, dict[Any, np.dtype | None]]] = {}


def _ufunc_result(op: str, x_dtype: np.dtype, spec: Any) -> np.dtype | None:
    ufunc = getattr(np, op, None)
    if not isinstance(ufunc, np.ufunc) or ufunc.nin != 2:
        return None
    try:
        return ufunc.resolve_dtypes((x_dtype, _BOOL_DT if spec is builtins.bool else spec, None))[-1]
    except Exception:
        return None  # no loop: the operation itself gives the error


def cast_into(src: np.dtype, dst: np.dtype, op: str, casting: str = "unsafe") -> bool:
    """An array of ``src`` written into an array of ``dst`` (``__setitem__``:
    NumPy's unsafe cast; ``out=``: its ``casting=``; ``copy_from``:
    ``same_kind``).  Returns whether the value is complex into a real array
    (NumPy keeps the real part, with its ``ComplexWarning``, given here);
    raises ``TypeError`` where the cast is refused, and in strict mode for
    any dtype but ``dst`` (array-api-strict's ``__setitem__``)."""
    if src == dst:
        return False
    if ACTIVE[0] and is_strict():
        raise TypeError(f"{op}: a {src.name} value into a {dst.name} array (strict mode: the dtypes must match)")
    if not np.can_cast(src, dst, casting=casting):  # type: ignore[arg-type]
        raise TypeError(f"{op}: cannot cast {src.name} to {dst.name} with casting rule {casting!r}")
    if src.kind == "c" and dst.kind != "c":
        warnings.warn("Casting complex values to real discards the imaginary part", ComplexWarning, stacklevel=3)
        return True
    return False


def _strict_store(dtype: np.dtype, value: Any, op: str) -> None:  # value: a Python scalar, checked first
    """array-api-strict's rules for a Python scalar stored into an array."""
    if not isinstance(value, PYTHON_TYPES):
        raise TypeError(f"{op}: expected a Python scalar, got {type(value).__name__}")
    kind, skind = dtype.kind, scalar_kind(value)
    if (skind == "b") != (kind == "b"):
        raise TypeError(f"{op}: a Python {type(value).__name__} into a {dtype.name} array (strict mode)")
    if (skind == "f" and kind not in "fc") or (skind == "c" and kind != "c"):
        raise TypeError(f"{op}: a Python {type(value).__name__} into a {dtype.name} array (strict mode)")
    v: Any = value
    if skind == "i" and kind in "iu":
        lo, hi = _int_range(dtype)
        if not lo <= v <= hi:
            raise _out_of_bounds(v, dtype, op)
    if skind == "i" and not _INT64_MIN <= v < 2**64:
        raise OverflowError(f"{op}: Python int {value} is too large for any integer dtype (strict mode)")


def _numpy_element(dtype: np.dtype, value: Any, op: str, how: Callable[[np.dtype, Any], np.ndarray]) -> Any:
    try:
        return how(dtype, value)[()]
    except (TypeError, ValueError, OverflowError) as exc:
        raise type(exc)(f"{op}: {value!r} into {dtype.name}: {exc}") from None


def _setitem_element(dtype: np.dtype, value: Any) -> np.ndarray:
    out = np.empty((), dtype=dtype)
    out[()] = value
    return out


def _copyto_element(dtype: np.dtype, value: Any) -> np.ndarray:
    return np.full((), value, dtype=dtype)


# (dtype, type) pairs a Python scalar converts to exactly, with no check.
_EXACT = {(_FLOAT64, builtins.float), (_BOOL_DT, builtins.bool), (np.dtype(np.complex128), builtins.complex)}


def element(dtype: np.dtype, value: Any, op: str) -> Any:
    """A Python scalar as an element of ``dtype``, where the rules have
    already decided that it meets an array of ``dtype`` (its kind and range
    checked): a NumPy scalar of ``dtype`` (a float too large for float32 is
    inf, with NumPy's warning), which every backend takes exactly.

    >>> import numpy as np
    >>> element(np.dtype("uint64"), 2**64 - 1, "where")
    np.uint64(18446744073709551615)
    """
    if (dtype, type(value)) in _EXACT:
        return value
    return _numpy_element(dtype, value, op, _setitem_element)


def store(dtype: np.dtype, value: Any, op: str) -> Any:
    """A Python scalar (or None) as an element of ``dtype``, for
    ``__setitem__`` and ``fill``: NumPy's element assignment (a float into
    an integer array truncates, NaN there is a ``ValueError``, an int out of
    range an ``OverflowError``, None into a float array NaN), as a NumPy
    scalar of ``dtype`` that every backend stores exactly.  Strict mode:
    array-api-strict's kinds and ranges.

    >>> import numpy as np
    >>> store(np.dtype("int32"), 1.5, "__setitem__")
    np.int32(1)
    """
    if ACTIVE[0] and is_strict():
        _strict_store(dtype, value, op)
    if (dtype, type(value)) in _EXACT:
        return value
    return _numpy_element(dtype, value, op, _setitem_element)


def fill_value(dtype: np.dtype, value: Any, op: str) -> Any:
    """A Python scalar as the fill value of ``full``/``full_like`` of
    ``dtype``: NumPy's conversion there (``copyto`` with ``casting='unsafe'``:
    a float into an integer dtype truncates, complex into real keeps the real
    part with NumPy's ``ComplexWarning``), as a NumPy scalar of ``dtype``.
    Strict mode refuses None, as array-api-strict does.

    >>> import numpy as np
    >>> fill_value(np.dtype("int16"), 2.5, "full")
    np.int16(2)
    """
    if ACTIVE[0] and is_strict() and not isinstance(value, PYTHON_TYPES):
        raise TypeError(f"{op}: expected a Python scalar fill value, got {type(value).__name__}")
    if (dtype, type(value)) in _EXACT:
        return value
    if type(value) is builtins.int and dtype.kind in "iu":
        lo, hi = _int_range(dtype)
        if not lo <= value <= hi:
            # NumPy's message differs past int64 ("too large to convert to C long"); the class is the same.
            raise _out_of_bounds(value, dtype, op)
    return _numpy_element(dtype, value, op, _copyto_element)


# -- where and clip ---------------------------------------------------------------------------


def where_scalars(x1: Any, x2: Any) -> np.dtype:
    """The dtype of ``where(c, x1, x2)`` with two Python scalars: NumPy's
    (``where(c, 1, 2.0)`` is float64); strict mode refuses it
    (array-api-strict's ``TypeError``)."""
    if ACTIVE[0] and is_strict():
        raise TypeError("where: two Python scalars (strict mode: at least one must be an array)")
    scalar_kind(x1), scalar_kind(x2)
    for v in (x1, x2):
        if type(v) is builtins.int and not _INT64_MIN <= v <= _INT64_MAX:
            raise OverflowError(f"where: Python int {v} is too large for int64")
    return np.dtype(np.result_type(x1, x2))


def where_scalar(dtype: np.dtype, value: Any) -> np.dtype:
    """The dtype of ``where(c, array_of_dtype, value)``, ``value`` a Python
    scalar: NumPy's (the scalar weak: ``where(c, int16, 0.5)`` is float64),
    with the operators' kind and range rules: a Python int outside an
    integer array's range is an ``OverflowError`` (NumPy 2.4's ``where``
    alone wraps it); strict mode refuses mixed kinds, as array-api-strict."""
    binary_scalar("where", dtype, value)
    return result_type(dtype, value)


class ClipPlan(NamedTuple):
    """What ``clip`` computes: x cast to ``dtype`` first, then clipped by
    ``min`` and ``max`` (a bound that clips nothing is None)."""

    dtype: np.dtype
    min: Any
    max: Any


def clip_plan(dtype: np.dtype, lo: Any, hi: Any, lo_dtype: np.dtype | None, hi_dtype: np.dtype | None) -> ClipPlan:
    """The rule for ``clip(x, min, max)``, x of ``dtype``; a bound is a
    Python scalar, None, or an array (its dtype given).

    The standard fixes the result's dtype as x's, except where x and a bound
    differ in kind (unspecified): there NumPy's result type
    (``clip(int8, 1.5, 2.5)`` is float64).  A Python int bound outside an
    integer x's range either clips nothing (dropped) or cannot be held
    (``OverflowError``), as NumPy 2 answers.  Strict mode: a float bound of
    an integer x, or an integer array bound of a floating x, is a
    ``TypeError``; ``min > max`` (Python scalars) a ``ValueError``, as
    array-api-strict."""
    strict_mode = bool(ACTIVE[0]) and is_strict()
    kind = dtype.kind
    if strict_mode:
        check_kind("clip", dtype)
    kinds: list[Any] = [dtype]
    for name, bound, bdt in (("min", lo, lo_dtype), ("max", hi, hi_dtype)):
        if bound is None:
            continue
        if bdt is None and isinstance(bound, (np.generic, np.ndarray)):
            bdt = bound.dtype  # a NumPy scalar (one the rules converted) or 0-d array: its own dtype
        if bdt is None and not isinstance(bound, PYTHON_TYPES):
            raise TypeError(f"clip: {name} must be None, a Python scalar or an array, not {type(bound).__name__}")
        bkind = bdt.kind if bdt is not None else scalar_kind(bound)
        if strict_mode:
            if bdt is None and type(bound) not in (builtins.int, builtins.float):
                raise TypeError(f"clip: {name} must be None, an int, a float or an array (strict mode)")
            if bdt is not None:
                check_kind("clip", bdt)
            if kind in "iu" and bkind in "fc":
                raise TypeError(f"clip: {name} must be integral when x is integral (strict mode)")
            if kind in "fc" and bdt is not None and bkind in "iu":
                raise TypeError(f"clip: {name} must be floating-point when x is floating-point (strict mode)")
            if type(bound) is builtins.int and not _INT64_MIN <= bound < 2**64:
                raise OverflowError(f"clip: Python int {bound} is too large for any integer dtype (strict mode)")
        kinds.append(bdt if bdt is not None else bound)
    if (
        strict_mode
        and type(lo) in (builtins.int, builtins.float)
        and type(hi) in (builtins.int, builtins.float)
        and lo > hi
    ):
        raise ValueError("clip: min must be less than or equal to max (strict mode)")
    out = dtype
    mixed = any((k.kind if isinstance(k, np.dtype) else scalar_kind(k)) not in _same_kind(kind) for k in kinds[1:])
    if mixed:
        out = result_type(*kinds)
    if out.kind in "iu":
        rng = _int_range(out)
        if type(lo) is builtins.int:
            if lo > rng[1]:
                raise _out_of_bounds(lo, out, "clip")
            if lo <= rng[0]:
                lo = None
        if type(hi) is builtins.int:
            if hi < rng[0]:
                raise _out_of_bounds(hi, out, "clip")
            if hi >= rng[1]:
                hi = None
    elif out.kind in "fc":
        for bound in (lo, hi):
            if type(bound) is builtins.int and abs(bound) > _FLOAT_MAX_INT:
                raise OverflowError(f"clip: Python int {bound} is too large to convert to {out.name}")
    return ClipPlan(out, lo, hi)


def _same_kind(kind: str) -> str:
    """The kinds a clip bound may have without changing x's dtype: a Python
    bool, or the kind of x (integers of either sign; real floats, and ints,
    with floats)."""
    return {"b": "b", "i": "biu", "u": "biu", "f": "biuf", "c": "biufc"}[kind]


# -- creation from Python scalars ---------------------------------------------------------------


_PYTHON_SCALARS = (builtins.bool, builtins.int, builtins.float, builtins.complex)


def scalar_dtype(value: Any, dev: Device, op: str = "asarray") -> np.dtype:
    """The dtype a Python scalar becomes (``asarray``, ``full`` without
    ``dtype=``): bool, int64, float64, the device's default complex (a NumPy
    scalar: its own dtype); an int
    in [2**63, 2**64) is uint64 (NumPy's answer; strict mode's ``full``:
    an ``OverflowError``, as array-api-strict), further out an
    ``OverflowError``.

    >>> from unifiedarray._devices import CPU
    >>> scalar_dtype(2**63, CPU)
    dtype('uint64')
    """
    if isinstance(value, np.generic) and value.dtype.kind in "biufc":
        # A NumPy scalar is data of its own dtype, np.float64 and np.complex128
        # (subclasses of Python's float and complex) included: NumPy's scalars
        # are strong (NEP 50), and a device's default could narrow one
        # (np.complex128 to MLX's complex64).  Strict mode's full takes only
        # Python scalars, as array-api-strict does.
        if op == "full" and is_strict() and not isinstance(value, _PYTHON_SCALARS):
            raise TypeError(f"full: expected a Python scalar, not {type(value).__name__} (strict mode)")
        return value.dtype
    if isinstance(value, builtins.bool):
        return _BOOL_DT
    if isinstance(value, builtins.int):
        if _INT64_MIN <= value <= _INT64_MAX:
            return default_int(dev)
        if 0 <= value < 2**64 and not (op == "full" and is_strict()):  # array-api-strict: asarray only
            return _UINT64
        raise OverflowError(f"{op}: Python int {value} is too large for the default integer dtype (int64)")
    if isinstance(value, builtins.float):
        return default_float(dev)
    if isinstance(value, builtins.complex):
        return default_complex(dev)
    raise TypeError(f"{op}: expected a Python scalar, not {type(value).__name__}")


def arange_dtype(start: Any, stop: Any, step: Any, dev: Device) -> np.dtype:
    """``arange``'s dtype when none is given: NumPy's (int64 for ints, the
    default float for a float, uint64 or float64 for ints past int64 as
    NumPy gives them); an int NumPy would hold only as an object is an
    ``OverflowError``, and so is any int past int64 in strict mode (after
    the length's errors, as NumPy checks them first)."""
    if stop is None:
        arange_length(0, start, step)
    else:
        arange_length(start, stop, step)
    dts = []
    for v in (start, stop, step):
        if v is None:
            continue
        if not isinstance(v, PYTHON_TYPES):
            raise TypeError(f"arange: expected Python scalars, got {type(v).__name__}")
        if type(v) is builtins.int and not _INT64_MIN <= v <= _INT64_MAX:
            if is_strict() or not 0 <= v < 2**64:
                raise OverflowError(f"arange: Python int {v} is too large for int64")
            dts.append(_UINT64)
        else:
            dts.append(np.asarray(v).dtype)
    out = np.result_type(*dts)
    if out.kind == "b":
        return default_int(dev)
    if out.kind == "f":
        return default_float(dev)
    if out.kind == "c":
        return default_complex(dev)
    return out


class ArangePlan(NamedTuple):
    """``arange`` as NumPy computes it: ``n`` elements of ``dtype``; the
    first two are ``first`` and ``second`` (NumPy scalars of ``dtype``, the
    start and ``start + step`` converted as NumPy's element assignment
    converts them), element i > 1 is ``first + i * (second - first)``
    computed in ``dtype`` (integers wrap as C does; float16 in float32)."""

    n: int
    dtype: np.dtype
    first: Any
    second: Any


def arange_plan(start: Any, stop: Any, step: Any, dtype: np.dtype) -> ArangePlan:
    """The rule for ``arange`` with a dtype decided: the length and the two
    elements every other is computed from, exactly as NumPy 2 gives them
    (its errors too: ``arange(-1, 3, dtype=uint8)`` is an
    ``OverflowError``; a bool result of more than two elements a
    ``TypeError``).  A device computes ``first + i * delta`` in ``dtype``
    from these: exact integers over the whole int64 and uint64 range.

    >>> import numpy as np
    >>> arange_plan(0, 3, 0.5, np.dtype("int32"))
    ArangePlan(n=6, dtype=dtype('int32'), first=np.int32(0), second=np.int32(0))
    """
    if stop is None:
        start, stop = 0, start
    n = arange_length(start, stop, step)
    if dtype.kind == "b" and n > 2:
        raise TypeError("arange() is only supported for booleans when the result has at most length 2.")
    first = _numpy_element(dtype, start, "arange", _setitem_element) if n else dtype.type(0)
    second = _numpy_element(dtype, start + step, "arange", _setitem_element) if n > 1 else first
    return ArangePlan(n, dtype, first, second)


def arange_length(start: Any, stop: Any, step: Any) -> int:
    """``arange``'s length, as NumPy computes it, and its errors (a zero
    step, a NaN or infinite length, more elements than an array holds)."""
    for v in (start, stop, step):
        if not isinstance(v, (*PYTHON_TYPES, np.generic)) or isinstance(v, (builtins.complex, np.complexfloating)):
            raise TypeError(f"arange: expected real Python scalars, got {type(v).__name__}")
    if step == 0:
        raise ZeroDivisionError("arange: step must not be zero")
    # NumPy's length: ceil of the true quotient (a correctly rounded float,
    # for ints too), so arange(0, 2**62 + 1, 2**61) has 2 elements there.
    try:
        q = (stop - start) / step
        q = q.real if isinstance(q, builtins.complex) else float(q)
    except OverflowError:
        raise ValueError("arange: Maximum allowed size exceeded") from None
    if math.isnan(q):
        raise ValueError("arange: cannot compute length")
    if math.isinf(q):
        raise ValueError("arange: Maximum allowed size exceeded")
    n = builtins.max(0, math.ceil(q))
    if n > _INT64_MAX:
        raise ValueError("arange: Maximum allowed size exceeded")
    return n


def cumulative_of_0d(op: str, include_initial: bool) -> None:
    """A cumulative sum or product of a 0-d array: NumPy 2 takes it as the
    1-d array of its one element (``[x]``, ``[0, x]`` with
    ``include_initial``); strict mode refuses a product, and a sum with
    ``include_initial`` (array-api-strict's ``ValueError``)."""
    if (include_initial or op == "cumulative_prod") and ACTIVE[0] and is_strict():
        raise ValueError(f"{op}: include_initial on a 0-d array (strict mode: not defined by the standard)")


def linspace_bounds(start: Any, stop: Any, dtype: np.dtype) -> tuple[Any, Any]:
    """``linspace``'s bounds for a result of ``dtype``: complex bounds with
    a real floating dtype give the real parts, as NumPy does (computed in
    complex, then cast), with NumPy's ``ComplexWarning``; with an integer
    dtype they are NumPy's ``TypeError``."""
    complex_bounds = isinstance(start, builtins.complex) or isinstance(stop, builtins.complex)
    if complex_bounds and dtype.kind in "iu":
        raise TypeError(f"linspace: complex bounds cannot give {dtype.name} values")
    if complex_bounds and dtype.kind == "f":
        warnings.warn("Casting complex values to real discards the imaginary part", ComplexWarning, stacklevel=3)
        return complex(start).real, complex(stop).real
    return start, stop


def linspace_dtype(start: Any, stop: Any, dev: Device) -> np.dtype:
    """``linspace``'s dtype when none is given: the default complex dtype for
    a complex bound, else the default float.  An int bound no NumPy integer
    holds is NumPy's ``TypeError``."""
    for v in (start, stop):
        if not isinstance(v, PYTHON_TYPES):
            raise TypeError(f"linspace: expected Python scalars, got {type(v).__name__}")
        if type(v) is builtins.int and not _INT64_MIN <= v < 2**64:
            raise TypeError(f"linspace: Python int {v} is too large for any integer dtype")
    if isinstance(start, builtins.complex) or isinstance(stop, builtins.complex):
        return default_complex(dev)
    return default_float(dev)


# -- result_type and can_cast ----------------------------------------------------------------


def result_type(*arrays_and_dtypes: Any) -> np.dtype:
    """The dtype of an operation on these dtypes and Python scalars: NumPy 2's
    promotion, Python scalars weak (``result_type(int16, 0.5)`` is float64),
    with the operators' rule for an int outside an integer dtype's range
    (``result_type(uint8, 300)`` is the ``OverflowError`` that ``uint8 +
    300`` raises).  Strict mode: the standard's table, and array-api-strict's
    errors where it has no entry.

    >>> import numpy as np
    >>> result_type(np.dtype("int8"), np.dtype("uint64"))
    dtype('float64')
    """
    strict_mode = bool(ACTIVE[0]) and is_strict()
    dtypes = [a for a in arrays_and_dtypes if isinstance(a, np.dtype)]
    scalars = [a for a in arrays_and_dtypes if not isinstance(a, np.dtype)]
    for s in scalars:
        if not isinstance(s, PYTHON_TYPES):
            raise TypeError(f"result_type: expected dtypes, arrays or Python scalars, got {type(s).__name__}")
    if strict_mode:
        if not dtypes:
            raise ValueError("result_type: at least one array or dtype is required (strict mode)")
        out = dtypes[0]
        for d in dtypes[1:]:
            out = _strict_promote(out, d, "result_type")
    else:
        out = np.result_type(*dtypes) if dtypes else None  # type: ignore[assignment]
    if out is None:
        return np.dtype(np.result_type(*scalars))
    for s in scalars:
        binary_scalar("result_type", out, s)
    return np.result_type(out, *scalars)


def can_cast(from_: np.dtype, to: np.dtype) -> bool:
    """Whether ``from_`` casts to ``to`` without loss: NumPy's ``safe``
    casting (int64 to float64 is True); strict mode: the standard's
    promotion table (no cast across kinds, bool only to bool)."""
    if ACTIVE[0] and is_strict():
        try:
            return _strict_promote(from_, to, "can_cast") == to
        except TypeError:
            return False
    return bool(np.can_cast(from_, to, casting="safe"))
