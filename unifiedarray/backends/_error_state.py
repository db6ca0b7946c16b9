"""NumPy's floating-point error state (``np.errstate``, ``np.seterr``) for
a device whose kernels raise no floating-point flags (MLX; CuPy too).

NumPy's ufuncs read the processor's flags after each call and act on them as
the error state of the calling context says: warn (the default for divide by
zero, overflow and invalid values), raise ``FloatingPointError``, call or log
through ``np.seterrcall``, print, or ignore.  A device's kernels set no flag
the library can read, so the flags are derived from the values, in one rule
for every function (:func:`flags`), written once against the device's array
namespace (``xp``):

* **invalid value**: the result holds a NaN where no operand holds one
  (``0/0``, ``inf - inf``, ``sqrt(-1)``, ``sin(inf)``);
* **divide by zero**: the result holds an infinity where every operand is
  finite, at the function's pole (a zero divisor, ``log(0)``, ``atanh(1)``,
  ``0 ** -1``); for an integer result, any zero divisor (NumPy's integer
  ``//`` and ``%`` give 0 and flag it);
* **overflow**: an infinity from finite operands anywhere else (``exp(1000)``,
  ``3e38 * 10`` in float32, a sum past the largest float, a cast to a
  narrower float).

For an elementwise function the operands are compared element by element
(broadcast to the result); for a reduction and a scan, as a whole.  These
are NumPy's flags for every call whose result's special values come from the
operation itself; where NumPy's own kernel flags an intermediate its result
does not show, the device does not: ``floor_divide`` of a huge value by a
tiny one (NumPy's ``fmod`` flags "invalid" on the way), and ``matmul`` and
``vecdot`` with a non-finite operand, where NumPy flags a product's
overflow or ``0 * inf`` that a NaN or infinity elsewhere in the operands
masks here.  A cast of a finite float out of an integer's range (NumPy:
"invalid value encountered in cast") is not derived either.
Underflow is not derived (NumPy ignores it by default):
``under="raise"`` raises on the host only.

:data:`RULES` names, for each namespace function whose result can carry a
flag, NumPy's name for the operation (what its messages say: ``divide``,
``power``, ``reduce``) and its pole; a function not listed (comparisons,
``abs``, ``floor``, ``clip``, ``maximum``...) cannot raise a flag from finite
operands and pays nothing.  :func:`modes` reads the calling context's error
state (a context variable's identity, cached: a small fraction of a call) and
:func:`report` acts on found flags as NumPy's ufuncs do, in NumPy's order
(divide, over, invalid).  The backend decides *when* it checks (MLX: at the
call under "raise", at the next evaluation otherwise; see
:mod:`unifiedarray.backends.mlx_evaluation`).

Example
-------
>>> import numpy as np
>>> from unifiedarray.backends import _error_state
>>> rule = _error_state.RULES["divide"]
>>> x, zero = np.array([1.0, 0.0]), np.array([0.0, 0.0])
>>> with np.errstate(all="ignore"):
...     found = _error_state.flags(np, rule, (x, zero), x / zero)
>>> [bool(f) for f in found]
[True, False, True]
>>> with np.errstate(divide="raise"):
...     _error_state.report(rule, _error_state.modes(), [bool(f) for f in found])
Traceback (most recent call last):
FloatingPointError: divide by zero encountered in divide
"""

from __future__ import annotations

import inspect
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

try:  # NumPy's module for the error state: private, so it may move
    from numpy._core import _ufunc_config
except ImportError:  # pragma: no cover - a NumPy without it
    _ufunc_config = None  # type: ignore[assignment]

#: What NumPy's messages call each flag, in NumPy's order of handling
#: (underflow, which is not derived, sits between overflow and invalid).
KINDS = ("divide by zero", "overflow", "invalid value")
#: The keys of ``np.geterr()`` for :data:`KINDS`, and NumPy's flag bits
#: (what a ``np.seterrcall`` function is given).
_KEYS = ("divide", "over", "invalid")
_BITS = (1, 2, 8)

ELEMENTWISE = "elementwise"
WHOLE = "whole"  # a reduction or a scan: operands and result compared as a whole
CAST = "cast"  # a cast: an infinity from a finite element overflows; NaN or inf to an integer is invalid


class Rule(NamedTuple):
    """How one function's result shows NumPy's flags."""

    #: NumPy's name for the operation, as its messages give it
    numpy_name: str
    #: how many leading positional arguments are operands
    arity: int
    #: :data:`ELEMENTWISE`, :data:`WHOLE` or :data:`CAST`
    shape: str
    #: where an infinity from finite operands is a division by zero, from
    #: the operands (``xp`` and the operands); None: nowhere (overflow)
    pole: Callable[..., Any] | None = None
    #: whether a NaN operand flags "invalid" too (NumPy's kernel compares
    #: its operands, and a comparison with NaN raises the flag)
    nan_compared: bool = False

    @property
    def integer_flags(self) -> bool:
        """Whether an integer result can carry a flag: a zero divisor's
        (``//``, ``%``), a non-finite float cast to an integer."""
        return self.pole is _zero_divisor or self.shape == CAST


def _zero_divisor(xp: Any, a: Any, b: Any) -> Any:
    return b == 0


def _zero(xp: Any, a: Any) -> Any:
    return a == 0


def _minus_one(xp: Any, a: Any) -> Any:
    return a == -1


def _unit(xp: Any, a: Any) -> Any:
    return xp.abs(a) == 1


def _zero_to_negative(xp: Any, a: Any, b: Any) -> Any:
    return (a == 0) & (b < 0)


def _elementwise(name: str, arity: int, pole: Callable[..., Any] | None = None) -> Rule:
    return Rule(name, arity, ELEMENTWISE, pole)


#: Namespace function -> its :class:`Rule`: every function whose result can
#: carry a floating-point flag from operands that carry none.
RULES: dict[str, Rule] = {
    "add": _elementwise("add", 2),
    "subtract": _elementwise("subtract", 2),
    "multiply": _elementwise("multiply", 2),
    "divide": _elementwise("divide", 2, _zero_divisor),
    "floor_divide": _elementwise("floor_divide", 2, _zero_divisor),
    "remainder": _elementwise("remainder", 2, _zero_divisor),
    "pow": _elementwise("power", 2, _zero_to_negative),
    "hypot": _elementwise("hypot", 2),
    "logaddexp": Rule("logaddexp", 2, ELEMENTWISE, nan_compared=True),
    "reciprocal": _elementwise("reciprocal", 1, _zero),
    "square": _elementwise("square", 1),
    "exp": _elementwise("exp", 1),
    "expm1": _elementwise("expm1", 1),
    "log": _elementwise("log", 1, _zero),
    "log2": _elementwise("log2", 1, _zero),
    "log10": _elementwise("log10", 1, _zero),
    "log1p": _elementwise("log1p", 1, _minus_one),
    "sqrt": _elementwise("sqrt", 1),
    "sin": _elementwise("sin", 1),
    "cos": _elementwise("cos", 1),
    "tan": _elementwise("tan", 1),
    "asin": _elementwise("arcsin", 1),
    "acos": _elementwise("arccos", 1),
    "acosh": _elementwise("arccosh", 1),
    "atanh": _elementwise("arctanh", 1, _unit),
    "sinh": _elementwise("sinh", 1),
    "cosh": _elementwise("cosh", 1),
    "sum": Rule("reduce", 1, WHOLE),
    "prod": Rule("reduce", 1, WHOLE),
    "mean": Rule("reduce", 1, WHOLE),
    "cumulative_sum": Rule("accumulate", 1, WHOLE),
    "cumulative_prod": Rule("accumulate", 1, WHOLE),
    "matmul": Rule("matmul", 2, WHOLE),
    "vecdot": Rule("vecdot", 2, WHOLE),
    "astype": Rule("cast", 1, CAST),  # elementwise: each element against its source
}


def _operands(xp: Any, rule: Rule, args: Sequence[Any]) -> list[Any]:
    """The rule's operands among ``args``, Python scalars made 0-d arrays."""
    operands = []
    for a in args[: rule.arity]:
        if isinstance(a, bool | int | float | complex):
            try:
                a = xp.array(a)
            except (OverflowError, ValueError):  # an int past the device's widest: never a pole
                continue
        elif not hasattr(a, "dtype"):
            continue
        operands.append(a)
    return operands


def flags(xp: Any, rule: Rule, args: Sequence[Any], result: Any) -> list[Any]:
    """NumPy's flags for ``result`` of a call with ``args`` under ``rule``:
    three boolean arrays of ``xp`` (divide by zero, overflow, invalid
    value), each of one element, unevaluated where ``xp`` is lazy.
    Operands are the rule's leading positional arguments (arrays or Python
    scalars).  ``xp`` is NumPy or ``mlx.core``: what both spell alike."""
    operands = _operands(xp, rule, args)
    no = xp.array(False)
    if not xp.issubdtype(result.dtype, xp.inexact):
        if rule.shape == CAST and operands and xp.issubdtype(operands[0].dtype, xp.inexact):
            # NaN or an infinity cast to an integer: "invalid value" (a finite
            # value out of the integer's range, which NumPy flags too, is not
            # derived)
            return [no, no, xp.any(~xp.isfinite(operands[0]))]
        # An integer result: only a zero divisor flags (``//`` and ``%``).
        if rule.pole is _zero_divisor and len(operands) == 2:
            return [xp.any(operands[1] == 0), no, no]
        return [no, no, no]
    if rule.shape == CAST:
        return [no, xp.any(xp.isinf(result) & xp.isfinite(operands[0])), no]
    if rule.shape == ELEMENTWISE:
        finite = _all([xp.isfinite(a) for a in operands])
        nan_free = _all([~xp.isnan(a) for a in operands])
        new_inf = xp.isinf(result) & finite
        new_nan = xp.isnan(result) if rule.nan_compared else xp.isnan(result) & nan_free
        if rule.pole is None:
            return [no, xp.any(new_inf), xp.any(new_nan)]
        at_pole = rule.pole(xp, *operands)
        return [xp.any(new_inf & at_pole), xp.any(new_inf & ~at_pole), xp.any(new_nan)]
    # A reduction or a scan: the result against its operands whole.
    finite = _all([xp.all(xp.isfinite(a)) for a in operands])
    nan_free = _all([~xp.any(xp.isnan(a)) for a in operands])
    over = xp.any(xp.isinf(result)) & finite
    return [no, over, xp.any(xp.isnan(result)) & nan_free]


def host_flags(rule: Rule, operands: Sequence[Any], result: np.ndarray) -> list[bool] | None:
    """:func:`flags` over host copies (NumPy arrays or Python scalars) of a
    call's operands and result, as Python bools; None where none can be
    set, found by one pass over the result (a float result with no NaN or
    infinity flags nothing), so that a clean call costs that pass only."""
    if result.dtype.kind in "fc":
        if np.isfinite(result).all():
            return None
    elif rule.pole is _zero_divisor and len(operands) == 2:
        if not np.any(np.asarray(operands[1]) == 0):
            return None
    elif rule.shape == CAST and operands and np.asarray(operands[0]).dtype.kind in "fc":
        if np.isfinite(operands[0]).all():
            return None
    else:
        return None
    with np.errstate(all="ignore"):
        return [bool(f) for f in flags(np, rule, operands, result)]


def _all(masks: list[Any]) -> Any:
    out: Any = True
    for m in masks:
        out = m if out is True else out & m
    return out


#: The error state of a context -> (divide, over, invalid) modes, or None
#: where all three are "ignore" (nothing to check).  Keyed by NumPy's own
#: object for the state (a context variable's value, which ``np.errstate``
#: and ``np.seterr`` replace), held here so that its identity is never reused.
_MODES: dict[Any, tuple[str, str, str] | None] = {}


def _context_key() -> Callable[[], Any]:
    """What identifies the calling context's error state: NumPy 2's context
    variable where this NumPy has it (a read costs about 30 ns); otherwise
    :func:`numpy.geterr` itself, read afresh at each call."""
    # NumPy's own object for the context's state: no public API names it,
    # and np.geterr() builds a dict (1.4 us, several times a small call).
    contextvar = getattr(_ufunc_config, "_extobj_contextvar", None)
    if contextvar is None:  # pragma: no cover - a NumPy without it
        return lambda: tuple(sorted(np.geterr().items()))
    return contextvar.get  # type: ignore[no-any-return]


_KEY = _context_key()


def modes() -> tuple[str, str, str] | None:
    """The calling context's modes for divide by zero, overflow and invalid
    values (``np.geterr()``'s), or None where all three are "ignore"."""
    key = _KEY()
    try:
        return _MODES[key]
    except KeyError:
        pass
    state: Any = np.geterr()
    found = (state["divide"], state["over"], state["invalid"])
    result = None if all(m == "ignore" for m in found) else found
    if len(_MODES) > 256:
        _MODES.clear()
    _MODES[key] = result
    return result


def eager(found_modes: tuple[str, str, str]) -> bool:
    """Whether a flag must be acted on at the call: NumPy's "raise" stops
    the call, so it is checked there; every other mode may wait for the
    device's next evaluation."""
    return "raise" in found_modes


def report(rule: Rule, found_modes: tuple[str, str, str] | None, found: Sequence[bool]) -> None:
    """Act on ``found`` flags (divide by zero, overflow, invalid) of one call
    of ``rule``'s function as NumPy does under ``found_modes``: in NumPy's
    order, warn (``RuntimeWarning``), raise ``FloatingPointError``, call
    ``np.geterrcall()``'s function with the kind and the call's flag bits, write
    to its ``write`` ("log"), or print to standard error ("print").  A
    warning names the line of the user's program (the first frame outside
    this package), as NumPy's do."""
    if found_modes is None:
        return
    flags = sum(bit for bit, hit in zip(_BITS, found, strict=True) if hit)  # what NumPy gives a callback
    for kind, mode, hit in zip(KINDS, found_modes, found, strict=True):
        if not hit or mode == "ignore":
            continue
        message = f"{kind} encountered in {rule.numpy_name}"
        if mode == "warn":
            warnings.warn(message, RuntimeWarning, stacklevel=_user_stacklevel())
        elif mode == "raise":
            raise FloatingPointError(message)
        elif mode == "call":
            np.geterrcall()(kind, flags)  # type: ignore[misc,operator]
        elif mode == "log":
            np.geterrcall().write(f"Warning: {message}\n")  # type: ignore[union-attr]
        else:  # "print"
            sys.stderr.write(f"Warning: {message}\n")


def _user_stacklevel() -> int:
    """``warnings.warn``'s ``stacklevel``, from :func:`report`, of the first
    frame outside this package.  Counted in Python frames, as ``warn``
    counts them: a compiled module's function has none."""
    frame = inspect.currentframe()  # this function's
    level = 0
    while frame is not None and frame.f_globals.get("__name__", "").startswith("unifiedarray"):
        frame = frame.f_back
        level += 1
    return level
