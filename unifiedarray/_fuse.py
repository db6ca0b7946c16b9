"""``unifiedarray.fuse``: one decorator that evaluates a function of arrays
as one pass over the data on its device.  One idea, so one module, however
long: tracing, planning and running a fused function.

A fused function is traced once per signature (the arguments' shapes,
dtypes and devices, the kinds of its Python scalars): it runs on tracers,
which stand for the arrays and scalars and record each namespace call and
operator.  What each recorded operation gives is not computed by rules
written here: the tracer calls the dispatch's own entry (``operate``,
``unary``, ``call``, ``reduction``) on small sample arrays of the same
dtypes, on the same device, and takes the result's dtype and device (and
its error, which makes the call run eagerly).  It then calls the device's
function on the same samples and checks that it gives what the dispatch
gave, bit for bit: where the dispatch does more than the device's function
(a rule applied before or after it), the operation is not fused.  So a
fused function gives what the eager one gives, whatever the rules are.

The trace is keyed on the kinds of the Python scalars, not their values:
what the rules (:mod:`unifiedarray._rules`) decide from a value (an int out
of an array's range, a comparison's constant, ``where``'s and ``clip``'s
conversions) is asked again, through the same rules, before each call runs
(:class:`_ScalarRule`); another answer than the trace's runs the call
eagerly.  ``where``, ``clip`` and ``astype`` check their arguments before
the dispatch: they hand a tracer their call first (the dispatch's
``traced_call``), and the tracer records the dispatch calls they make.

Evaluation, per device:

* host: each run of elementwise operations is evaluated block by block
  (``BLOCK`` elements at a time: flat slices of C-ordered operands, else
  NumPy's iterator over the broadcast operands) with the host namespace's
  own functions, so each element is computed by the same ufunc loop as
  eagerly: bit-identical.  Intermediate blocks go into temporaries made
  once per call (``out=``, see :func:`_block_function`); with
  ``fuse(threads=N)`` large runs are split over ``N`` threads.  A reduction
  is computed as eagerly, by the same function on the whole elementwise
  result (so a ``sum`` is NumPy's pairwise sum, bit-identical too); what
  follows a reduction is blocked again.  Arrays of at most ``BLOCK``
  elements run the same calls on whole arrays.
* MLX and CUDA: the backend's compiler (``mx.compile``, ``cupy.fuse``)
  through :meth:`~unifiedarray.backends.Backend.compile`, keyed on the
  signature and on the values of the Python scalars (they are constants of
  the compiled graph); a backend without a compiler (the simulated CUDA
  runtime of the tests) runs the recorded calls one by one.

What cannot be fused (an operation outside elementwise functions,
operators, ``where``, ``clip``, ``astype`` and the reductions ``sum``,
``prod``, ``max``, ``min``, ``mean``; indexing; Python control flow on array values; arrays that are not
arguments) runs eagerly, and the fused function says so once with a
:class:`FuseWarning` naming the operation.

Example
-------
>>> import unifiedarray as xp
>>> @xp.fuse
... def chain(a, b):
...     return (a * 2 + b) / 3 - a * b + 1
>>> a, b = xp.asarray([1.0, 2.0]), xp.asarray([3.0, 4.0])
>>> chain(a, b).tolist() == ((a * 2 + b) / 3 - a * b + 1).tolist()
True
"""

from __future__ import annotations

import functools
import math
import threading
import warnings
import weakref
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Generic, NamedTuple, ParamSpec, TypeVar, overload

import numpy as np

from . import _access, _calls, _interop, _operators, _reductions, _resolve, _results, _rules
from ._array import UnifiedArray
from ._devices import CPU, Device
from ._dtypes import PYTHON_TYPES
from .backends import backend_for, on_change

__all__ = ["BLOCK", "THREADS", "THREAD_MIN", "FuseWarning", "FusedFunction", "fuse"]

P = ParamSpec("P")
R = TypeVar("R")

#: Elements per block of the host's blocked evaluation (float64: 128 KiB per
#: temporary, so that a chain's temporaries stay in the core's cache).
BLOCK = 16384

#: Threads a fused function evaluates large host regions in by default
#: (``fuse(threads=...)`` sets it per function): NumPy releases the GIL in
#: its loops, and the blocks are independent, so the result is the same bit
#: for bit in any number of threads.
THREADS = 1

#: Host regions of fewer elements run in the calling thread.
THREAD_MIN = 16 * BLOCK


#: What fuses: the elementwise functions (the operators end in them), where, clip, astype ...
ELEMENTWISE = frozenset(
    [
        *("abs", "acos", "acosh", "add", "asin", "asinh", "atan", "atan2", "atanh", "bitwise_and"),
        *("bitwise_invert", "bitwise_left_shift", "bitwise_or", "bitwise_right_shift", "bitwise_xor", "ceil"),
        *("conj", "copysign", "cos", "cosh", "divide", "equal", "exp", "expm1", "floor", "floor_divide"),
        *("greater", "greater_equal", "hypot", "imag", "isfinite", "isinf", "isnan", "less", "less_equal"),
        *("log", "log1p", "log2", "log10", "logaddexp", "logical_and", "logical_not", "logical_or"),
        *("logical_xor", "maximum", "minimum", "multiply", "negative", "nextafter", "not_equal", "positive"),
        *("pow", "real", "reciprocal", "remainder", "round", "sign", "signbit", "sin", "sinh", "sqrt"),
        *("square", "subtract", "tan", "tanh", "trunc", "where", "clip", "astype"),
    ]
)
#: ... and these reductions (over all axes or some).
REDUCTIONS = frozenset(["sum", "prod", "max", "min", "mean"])


class FuseWarning(UserWarning):
    """A fused function runs (part of its signatures) eagerly: the message
    names the operation that could not be fused.  Given once per fused
    function and reason."""


# -- tracing ----------------------------------------------------------------------------
# The signals below stop a trace.  They are BaseExceptions so that a
# function's own ``except Exception`` cannot swallow them.


class _Unfusable(BaseException):
    """The trace met something outside what fuses (``operation`` names it)."""

    def __init__(self, operation: str) -> None:
        super().__init__(operation)
        self.operation = operation


class _NeedsValue(BaseException):
    """A Python scalar argument was used as a value (control flow, an axis,
    arithmetic with another scalar): it becomes a constant of the trace."""

    def __init__(self, argument: Any) -> None:
        super().__init__(argument)
        self.argument = argument


class _EagerRaises(BaseException):
    """The eager call raises for this signature (a probe raised), or the
    rules answer this call's scalar values otherwise than their kind's
    usual answer (a comparison's constant): this call runs eagerly, and
    nothing is kept."""


class _Mismatch(Exception):
    """A call's scalar values take another path through the rules than the
    trace's (another dtype, a bound dropped, a comparison's constant): the
    call runs eagerly."""


class _Node(NamedTuple):
    """One recorded operation: ``slot = fn(*slots[operands], **kwargs)``."""

    slot: int
    name: str
    operands: tuple[int, ...]
    kwargs: dict[str, Any]
    shape: tuple[int, ...]
    dtype: np.dtype
    reduction: bool


class _Recording:
    """The graph one trace builds: numbered slots (the array arguments, the
    scalar arguments, constants, then each operation's result)."""

    def __init__(self, dev: Device) -> None:
        self.dev = dev
        self.slots = 0
        self.nodes: list[_Node] = []
        self.consts: dict[int, Any] = {}
        self.shapes: dict[int, tuple[int, ...]] = {}
        self.scalar_index: dict[int, int] = {}  # a scalar argument's slot -> its place among the scalar arguments
        self.rules: list[_ScalarRule] = []  # asked at every call, in this order
        self.derived: list[int] = []  # the slots of the values the rules give, in the rules' order

    def new_slot(self) -> int:
        self.slots += 1
        return self.slots - 1

    def const(self, value: Any) -> int:
        slot = self.new_slot()
        self.consts[slot] = value
        self.shapes[slot] = ()
        return slot

    def record(self, entry: Any, args: tuple) -> ArrayTracer:
        """The call ``entry(*args)`` of the dispatch (or of a namespace
        function that checks its arguments before the dispatch), with
        tracers among ``args``: checked, probed on samples, recorded."""
        if entry not in _DISPATCH_ENTRIES:
            name = getattr(entry, "__name__", repr(entry))
            recorder = _NAMESPACE_RECORDERS.get(name)
            if recorder is None or not getattr(entry, "__module__", "").startswith("unifiedarray."):
                raise _Unfusable(name)
            return recorder(self, entry, args)
        name, operands, kwargs = _call_of(entry, args)
        if name not in ELEMENTWISE and name not in REDUCTIONS:
            raise _Unfusable(name)
        for value in kwargs.values():
            _check_static(value, name)
        self._scalar_rules(entry, name, operands)
        slots = tuple(self._operand(o, name) for o in operands)
        reduction = name in REDUCTIONS
        # The eager answer, for samples of the same dtypes on the same device.
        sample = self.probe(entry, args)
        if type(sample) is not UnifiedArray or sample.device != self.dev:
            raise _Unfusable(f"{name} (its result is not an array on {self.dev})")
        shapes = [self.shapes[s] for s in slots]
        if reduction:
            shape = _reduced_shape(shapes[0], kwargs.get("axis"), bool(kwargs.get("keepdims")))
            expected = _reduced_shape(_sample_shape(shapes[0]), kwargs.get("axis"), bool(kwargs.get("keepdims")))
        else:
            try:
                shape = np.broadcast_shapes(*shapes)
            except ValueError:
                raise _EagerRaises() from None
            expected = np.broadcast_shapes(*[_sample_shape(s) for s in shapes])
        if sample.shape != expected:
            raise _Unfusable(f"{name} (its result's shape is not the broadcast or reduced shape)")
        self._verify_native(name, operands, kwargs, sample)
        slot = self.new_slot()
        self.nodes.append(_Node(slot, name, slots, kwargs, shape, sample.dtype, reduction))
        self.shapes[slot] = shape
        return ArrayTracer(self, slot, shape, sample.dtype, sample)

    def probe(self, entry: Any, args: tuple, kwargs: dict[str, Any] | None = None) -> Any:
        """``entry`` called eagerly on the samples (and the scalars' values
        at this call); its error makes this call run eagerly."""
        try:
            with np.errstate(all="ignore"):
                return entry(*_substitute(args), **(kwargs or {}))
        except Exception as exc:
            raise _EagerRaises() from exc

    def _scalar_rules(self, entry: Any, name: str, operands: tuple) -> None:
        """The rule every call asks for a scalar argument that meets an
        array in an operator or binary function: the dispatch's one gate
        for it (:func:`unifiedarray._intake.check_scalar`, i.e.
        ``_rules.binary_scalar``) must let the value through unchanged, as
        it does for this call's value (a value out of the array's range
        raises; a comparison's constant is answered eagerly).  Elsewhere a
        scalar argument becomes a constant of the trace."""
        for i, o in enumerate(operands):
            other = operands[1 - i] if len(operands) == 2 else None
            if type(o) in _PYTHON_NUMBERS and type(other) is ArrayTracer:
                if entry in (_operators.operate, _operators.binary_function):
                    # A constant of the function: converted as the eager call converts
                    # it; one that warns runs this call eagerly (see _operator_scalar).
                    self.derive((o,), functools.partial(_operator_scalar, name, other.dtype, i == 0))
                continue
            if type(o) is not ScalarTracer or o.trace_slot not in self.scalar_index:
                continue
            if entry in (_operators.operate, _operators.binary_function) and type(other) is ArrayTracer:
                self.derive((o,), functools.partial(_operator_scalar, name, other.dtype, i == 0))
            else:
                raise _NeedsValue(o.trace_argument)

    def derive(self, sources: tuple, convert: Callable[..., tuple]) -> tuple:
        """``convert(*values)``: the rules' check (an empty tuple) or
        conversion of scalar operands, for the values of ``sources``
        (scalar tracers, Python scalars and other constants).  Where a
        source is a scalar argument, ``convert`` becomes a rule asked at
        every call with that call's values (its error, or a
        :class:`_Mismatch`, runs the call eagerly) and its values are
        scalar tracers; else they are constants."""
        try:
            with np.errstate(all="raise"):
                values = convert(*[_value(s) for s in sources])
        except Exception as exc:
            raise _EagerRaises() from exc  # this call's value takes another path: eagerly, nothing kept
        arguments = [s for s in sources if type(s) is ScalarTracer]
        if not arguments:
            return tuple(values)
        picks = [(self.scalar_index[s.trace_slot], None) if type(s) is ScalarTracer else (-1, s) for s in sources]
        self.rules.append(_ScalarRule(convert, picks))
        out = []
        for v in values:
            slot = self.new_slot()
            self.shapes[slot] = ()
            self.derived.append(slot)
            out.append(ScalarTracer(self, slot, v, arguments[0].trace_argument))
        return tuple(out)

    def agrees(self, out: ArrayTracer, sample: UnifiedArray, name: str) -> ArrayTracer:
        """``out``, the recorded steps of the namespace function ``name``,
        if on the samples they gave what the function gave, bit for bit."""
        dev = self.dev
        got = _host_copy(_access.native_on(out.trace_sample, dev, "fuse"), dev)
        if type(sample) is not UnifiedArray or not _same_bits(
            got, _host_copy(_access.native_on(sample, dev, "fuse"), dev)
        ):
            raise _Unfusable(f"{name} (its steps do not give what the namespace's {name} gives)")
        return out

    def _operand(self, obj: Any, name: str) -> int:
        t = type(obj)
        if t is ArrayTracer or t is ScalarTracer:
            if obj.trace_record is not self:
                raise _Unfusable("a tracer of another trace (kept from an earlier call)")
            return int(obj.trace_slot)
        if t in PYTHON_TYPES or obj is None or isinstance(obj, np.dtype | np.generic):
            return self.const(obj)  # a constant of the function, or one the rules made (a dtype, an element)
        if t is UnifiedArray:
            raise _Unfusable(f"{name} of an array that is not an argument of the fused function")
        raise _Unfusable(f"{name} of a {t.__name__}")

    def _verify_native(self, name: str, operands: tuple, kwargs: dict[str, Any], sample: UnifiedArray) -> None:
        """The device's function, called on the samples' native arrays as the
        fused evaluation will call it, must give the dispatch's answer."""
        dev = self.dev
        fn = _resolve.resolve(dev, name)
        if fn is None:
            raise _Unfusable(f"{name} (not a function of {dev}'s namespace: it runs on the host)")
        natives = [
            _access.native_on(o.trace_sample, dev, "fuse") if type(o) is ArrayTracer else _value(o) for o in operands
        ]
        backend = backend_for(dev)
        try:
            with np.errstate(all="ignore"), backend.compute_context(dev):
                native = fn(*natives, **kwargs)
        except Exception:
            raise _Unfusable(f"{name} (the dispatch does more than {dev}'s function)") from None
        if not _same_bits(_host_copy(native, dev), _host_copy(_access.native_on(sample, dev, "fuse"), dev)):
            raise _Unfusable(f"{name} (the dispatch does more than {dev}'s function)")


class _ScalarRule(NamedTuple):
    """A check or conversion of scalar arguments asked at every call:
    ``convert`` of, for each of ``picks``, the scalar argument at that
    place (``(i, None)``) or a constant (``(-1, value)``)."""

    convert: Callable[..., tuple]
    picks: list[tuple[int, Any]]

    def __call__(self, scalars: list[Any]) -> tuple:
        return self.convert(*[scalars[i] if i >= 0 else c for i, c in self.picks])


def _operator_scalar(op: str, dtype: np.dtype, reflected: bool, value: Any) -> tuple:
    """``array <op> value``: the dispatch passes the value as it is where
    the rules say None (raises their error; a constant is another path).
    The value is also converted as the eager call converts it (into the
    array's dtype where it is of the same kind): a lossy conversion (1e6
    into float16) warns eagerly, and under ``derive``'s raising error state
    it sends the call there, so the fused call warns as the eager one does
    (MLX's compiled kernel would convert it silently)."""
    if _rules.binary_scalar(op, dtype, value, reflected) is not None:
        raise _Mismatch(op)
    if type(value) in _PYTHON_NUMBERS:
        target = _rules.result_type(dtype, value)
        if target.kind in "fc":
            _rules.element(target, value, op)
    return ()


_PYTHON_NUMBERS = frozenset([int, float, complex])


# -- the namespace functions that check their arguments before the dispatch -------------------
# Each asks the dispatch's traced_call first; its recorder makes the calls of
# the dispatch the function makes, in its order, with its scalar arguments
# passed through the same rules (as rules asked at every call), and checks on
# the samples that these steps give what the function gives.

_ARRAY_BOUND = object()  # clip's plan: a bound that is an array


def _kind(obj: Any, name: str) -> str:
    """``"array"``, ``"scalar"`` or ``"none"`` for an operand of a
    namespace function in a trace."""
    t = type(obj)
    if t is ArrayTracer:
        return "array"
    if t is ScalarTracer or t in PYTHON_TYPES:
        return "scalar"
    if obj is None:
        return "none"
    if t is UnifiedArray:
        raise _Unfusable(f"{name} of an array that is not an argument of the fused function")
    raise _Unfusable(f"{name} of a {t.__name__}")


def _where_element(array_dtype: np.dtype, dtype: np.dtype, value: Any) -> tuple:
    """``where(c, array, value)``'s rules (as ``xp.where`` asks them)."""
    if _rules.where_scalar(array_dtype, value) != dtype:
        raise _Mismatch("where")
    return (_rules.element(dtype, value, "where"),)


def _where_elements(dtype: np.dtype, x1: Any, x2: Any) -> tuple:
    """``where(c, x1, x2)`` of two Python scalars (as ``xp.where`` asks)."""
    if _rules.where_scalars(x1, x2) != dtype:
        raise _Mismatch("where")
    return _rules.element(dtype, x1, "where"), _rules.element(dtype, x2, "where")


def _record_where(rec: _Recording, entry: Any, args: tuple) -> ArrayTracer:
    condition, x1, x2 = args
    sample = rec.probe(entry, args)
    kinds = (_kind(condition, "where"), _kind(x1, "where"), _kind(x2, "where"))
    if kinds[0] != "array" or "none" in kinds:
        raise _Unfusable("where")  # the probe did not raise: not a case the namespace's where has
    if kinds[1] == kinds[2] == "array":
        values: tuple = (x1, x2)
    elif kinds[1] == kinds[2] == "scalar":
        dt = _rules.where_scalars(_value(x1), _value(x2))
        values = rec.derive((x1, x2), functools.partial(_where_elements, dt))
    else:
        first = kinds[1] == "array"
        arr, value = (x1, x2) if first else (x2, x1)
        dt = _rules.where_scalar(arr.dtype, _value(value))
        (element,) = rec.derive((value,), functools.partial(_where_element, arr.dtype, dt))
        if dt != arr.dtype:
            arr = rec.record(_calls.call, ("astype", (arr, dt), {"copy": False}, None, None))
        values = (arr, element) if first else (element, arr)
    out = rec.record(_calls.call, ("where", (condition, *values), {}, None, None))
    return rec.agrees(out, sample, "where")


def _clip_elements(
    dtype: np.dtype, bound_dtypes: tuple, result: np.dtype, kept: tuple[bool, bool], lo: Any, hi: Any
) -> tuple:
    """``clip(x, lo, hi)``'s rules (as ``xp.clip`` asks them): the plan must
    be the trace's (its dtype, the bounds it keeps); the Python scalar
    bounds it keeps, as elements of its dtype."""
    plan = _rules.clip_plan(dtype, lo, hi, *bound_dtypes)
    if plan.dtype != result or (plan.min is not None, plan.max is not None) != kept:
        raise _Mismatch("clip")
    return tuple(
        _rules.element(result, b, "clip")
        for b, bdt in zip(plan[1:], bound_dtypes, strict=True)
        if b is not None and bdt is None
    )


def _record_clip(rec: _Recording, entry: Any, args: tuple) -> ArrayTracer:
    x, lo, hi = args
    sample = rec.probe(entry, args)
    if _kind(x, "clip") != "array":
        raise _Unfusable("clip")
    kinds = (_kind(lo, "clip"), _kind(hi, "clip"))
    bound_dtypes = tuple(b.dtype if k == "array" else None for b, k in zip((lo, hi), kinds, strict=True))
    sources = tuple(_ARRAY_BOUND if k == "array" else b for b, k in zip((lo, hi), kinds, strict=True))
    plan = _rules.clip_plan(x.dtype, *[_value(s) for s in sources], *bound_dtypes)
    kept = (plan.min is not None, plan.max is not None)
    elements = iter(rec.derive(sources, functools.partial(_clip_elements, x.dtype, bound_dtypes, plan.dtype, kept)))
    if plan.dtype != x.dtype:
        x = rec.record(_calls.call, ("astype", (x, plan.dtype), {"copy": False}, None, None))
    bounds = [
        b if k == "array" else next(elements) if keep and k == "scalar" else None
        for b, k, keep in zip((lo, hi), kinds, kept, strict=True)
    ]
    out = rec.record(_calls.call, ("clip", (x, *bounds), {}, None, None))
    return rec.agrees(out, sample, "clip")


def _record_astype(rec: _Recording, entry: Any, args: tuple) -> ArrayTracer:
    x, dtype, copy, device = args
    for value in (dtype, copy, device):
        _check_static(value, "astype")
    if device is not None and Device.parse(device) != rec.dev:
        raise _Unfusable(f"astype to another device than {rec.dev}")
    sample = rec.probe(entry, (x, dtype), {"copy": copy, "device": device})
    if _kind(x, "astype") != "array":
        raise _Unfusable("astype")
    if sample.dtype == x.dtype and not copy:
        return x  # as eagerly: the argument itself
    if x.dtype.kind in "fc" and sample.dtype.kind in "iu" and not backend_for(rec.dev).compiled_casts_agree:
        # A compiled kernel may cast a float out of the integer's range
        # otherwise than the eager cast (MLX's saturates: inf to int8 gives
        # 127, its eager cast 0); the samples may not show it, so the cast
        # runs eagerly.
        raise _Unfusable(f"astype of floating values to an integer dtype on {rec.dev}")
    out = rec.record(_calls.call, ("astype", (x, sample.dtype), {"copy": True}, None, None))
    return rec.agrees(out, sample, "astype")


#: The namespace functions that check their arguments before the dispatch,
#: by name: what they record (any other that hands a tracer its call is not fused).
_NAMESPACE_RECORDERS: dict[str, Callable[[_Recording, Any, tuple], ArrayTracer]] = {
    "where": _record_where,
    "clip": _record_clip,
    "astype": _record_astype,
}


#: The dispatch's entries a tracer is handed (see :func:`_call_of`).
_DISPATCH_ENTRIES = (
    _operators.operate,
    _operators.unary,
    _operators.binary_function,
    _calls.call,
    _reductions.reduction,
)


def _call_of(entry: Any, args: tuple) -> tuple[str, tuple, dict[str, Any]]:
    """The function name, operands (in the order of the native call) and
    keyword arguments of a call of a dispatch entry."""
    if entry is _operators.operate:
        x, y, name, reflected = (*args, False)[:4]
        return name, ((y, x) if reflected else (x, y)), {}
    if entry is _operators.unary:
        return args[0], (args[1],), {}
    if entry is _operators.binary_function:
        return args[0], (args[1], args[2]), {}
    if entry is _calls.call:
        path, cargs, ckwargs, _reason, device = args
        if device is not None:
            raise _Unfusable(f"{path} with device=")
        return path, tuple(cargs), dict(ckwargs)
    if entry is _reductions.reduction:
        name, x, axis, dtype, keepdims = args
        kwargs: dict[str, Any] = {"axis": axis, "keepdims": keepdims}
        if dtype is not None:
            kwargs["dtype"] = dtype
        return name, (x,), kwargs
    raise _Unfusable(getattr(entry, "__name__", repr(entry)))


def _check_static(value: Any, name: str) -> None:
    """A keyword argument (axis, keepdims, dtype) must be a plain value."""
    t = type(value)
    if t is ScalarTracer:
        raise _NeedsValue(value.trace_argument)
    if t is ArrayTracer or t is UnifiedArray:
        raise _Unfusable(f"{name} with an array as a keyword argument")
    if t is tuple:
        for v in value:
            _check_static(v, name)


def _value(obj: Any) -> Any:
    """A scalar operand's value for the probes (a tracer's trace-time value)."""
    return obj.trace_value if type(obj) is ScalarTracer else obj


def _substitute(obj: Any) -> Any:
    """``obj`` with each tracer replaced by its sample (arrays) or value
    (scalars): the arguments of a probe."""
    t = type(obj)
    if t is ArrayTracer:
        return obj.trace_sample
    if t is ScalarTracer:
        return obj.trace_value
    if t is tuple:
        return tuple(_substitute(o) for o in obj)
    if t is dict:
        return {k: _substitute(v) for k, v in obj.items()}
    return obj


def _sample_shape(shape: tuple[int, ...]) -> tuple[int, ...]:
    """A sample's shape: the same axes, each of length 1 (0 where empty)."""
    return tuple(min(d, 1) for d in shape)


def _reduced_shape(shape: tuple[int, ...], axis: Any, keepdims: bool) -> tuple[int, ...]:
    """The shape a reduction over ``axis`` leaves (the probe has checked
    the axes already)."""
    n = len(shape)
    listed = () if axis is None else axis if type(axis) is tuple else (axis,)
    axes = set(range(n)) if axis is None else {a % n if n else a for a in listed}
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _make_sample(shape: tuple[int, ...], dtype: np.dtype, dev: Device) -> UnifiedArray:
    """A small array of ones standing for an argument in the probes (made
    on its device directly: not a move of the argument's data)."""
    host = np.ones(_sample_shape(shape), dtype)
    if dev is CPU:
        return _results.adopt(host, CPU, dtype)
    return _results.wrap_result(backend_for(dev).upload(host, dev), dev)


def _host_copy(native: Any, dev: Device) -> np.ndarray:
    """A native array's data on the host, for comparing probes (not a move
    of any buffer's data)."""
    if dev is CPU:
        return np.asarray(native)
    backend = backend_for(dev)
    out = np.empty(tuple(native.shape), backend.dtype_of(native))
    backend.download(native, out)
    return out


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and np.ascontiguousarray(a).tobytes() == b.tobytes()


# -- the tracers ------------------------------------------------------------------------


def _binary(name: str, reflected: bool = False) -> Callable[[ArrayTracer, Any], ArrayTracer]:
    def op(self: ArrayTracer, other: Any) -> ArrayTracer:
        return self.trace_record.record(_operators.operate, (self, other, name, reflected))

    op.__name__ = name
    return op


def _unary(name: str) -> Callable[[ArrayTracer], ArrayTracer]:
    def op(self: ArrayTracer) -> ArrayTracer:
        return self.trace_record.record(_operators.unary, (name, self))

    op.__name__ = name
    return op


def _refused(what: str) -> Callable[..., Any]:
    def op(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise _Unfusable(what)

    return op


class ArrayTracer:
    """Stands for an array while a fused function is traced: its shape,
    dtype and device are known, its values are not."""

    __slots__ = ("device", "dtype", "shape", "trace_record", "trace_sample", "trace_slot")

    def __init__(
        self, rec: _Recording, slot: int, shape: tuple[int, ...], dtype: np.dtype, sample: UnifiedArray
    ) -> None:
        self.trace_record = rec
        self.trace_slot = slot
        self.shape = shape
        self.dtype = dtype
        self.device = rec.dev
        self.trace_sample = sample

    def __unifiedarray_trace__(self, entry: Any, args: tuple) -> ArrayTracer:
        return self.trace_record.record(entry, args)

    def __array_namespace__(self, *, api_version: str | None = None) -> Any:
        return self.trace_sample.__array_namespace__(api_version=api_version)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    def __repr__(self) -> str:
        return f"ArrayTracer(shape={self.shape}, dtype={self.dtype.name}, device={str(self.device)!r})"

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)  # protocols NumPy looks for
        raise _Unfusable(f"x.{name}")

    __add__, __radd__ = _binary("add"), _binary("add", True)
    __sub__, __rsub__ = _binary("subtract"), _binary("subtract", True)
    __mul__, __rmul__ = _binary("multiply"), _binary("multiply", True)
    __truediv__, __rtruediv__ = _binary("divide"), _binary("divide", True)
    __floordiv__, __rfloordiv__ = _binary("floor_divide"), _binary("floor_divide", True)
    __mod__, __rmod__ = _binary("remainder"), _binary("remainder", True)
    __pow__, __rpow__ = _binary("pow"), _binary("pow", True)
    __and__, __rand__ = _binary("bitwise_and"), _binary("bitwise_and", True)
    __or__, __ror__ = _binary("bitwise_or"), _binary("bitwise_or", True)
    __xor__, __rxor__ = _binary("bitwise_xor"), _binary("bitwise_xor", True)
    __lshift__, __rlshift__ = _binary("bitwise_left_shift"), _binary("bitwise_left_shift", True)
    __rshift__, __rrshift__ = _binary("bitwise_right_shift"), _binary("bitwise_right_shift", True)
    __lt__, __le__ = _binary("less"), _binary("less_equal")
    __gt__, __ge__ = _binary("greater"), _binary("greater_equal")
    __eq__, __ne__ = _binary("equal"), _binary("not_equal")  # type: ignore[assignment]
    __hash__ = None  # type: ignore[assignment]
    __neg__, __pos__ = _unary("negative"), _unary("positive")
    __abs__, __invert__ = _unary("abs"), _unary("bitwise_invert")

    __matmul__ = __rmatmul__ = _refused("matmul")
    __divmod__ = __rdivmod__ = _refused("divmod")
    __getitem__ = _refused("indexing")
    __setitem__ = _refused("index assignment")
    __iter__ = _refused("iteration")
    __iadd__ = __isub__ = __imul__ = __itruediv__ = __ifloordiv__ = __imod__ = __ipow__ = _refused("in-place operators")
    __iand__ = __ior__ = __ixor__ = __ilshift__ = __irshift__ = __imatmul__ = _refused("in-place operators")
    __bool__ = _refused("bool() of a traced array (Python control flow on array values)")
    __int__ = __index__ = _refused("int() of a traced array (Python control flow on array values)")
    __float__ = _refused("float() of a traced array (Python control flow on array values)")
    __complex__ = _refused("complex() of a traced array (Python control flow on array values)")
    __array__ = _refused("a conversion to NumPy (a NumPy function, or an array that is not an argument)")

    # NumPy's functions of a traced array (``np.exp(x)``) are traced by their
    # rows of the route table, as on a device NumPy cannot run on: the
    # standard's function or a composition of namespace functions, each of
    # whose calls is recorded; any other row cannot be fused.
    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        name = ufunc.__name__ if method == "__call__" else f"{ufunc.__name__}.{method}"
        return _numpy_traced(name, ufunc if method == "__call__" else getattr(ufunc, method), inputs, kwargs)

    def __array_function__(self, func: Any, types: Any, args: tuple, kwargs: dict) -> Any:
        if not all(t in (ArrayTracer, ScalarTracer, UnifiedArray) for t in types):
            return NotImplemented
        return _numpy_traced(_interop.numpy_name(func), func, args, kwargs)


def _numpy_traced(name: str, func: Any, args: tuple, kwargs: dict) -> Any:
    """A NumPy call with tracers among its arguments, by its route's row."""
    result = _interop.routed_for_tracing(name, func, args, dict(kwargs))
    if result is None:
        raise _Unfusable(f"numpy.{name}")
    return result


def _needs_value(self: ScalarTracer, *args: Any) -> Any:
    raise _NeedsValue(self.trace_argument)


def _scalar_operand(self: ScalarTracer, other: Any) -> Any:
    if type(other) is ArrayTracer:
        return NotImplemented  # the array's reflected operator records it
    raise _NeedsValue(self.trace_argument)


class ScalarTracer:
    """Stands for a Python scalar argument while a fused function is traced:
    an operand of array operations, whose value is read at each call.  Used
    any other way (control flow, an axis, arithmetic with other scalars) it
    becomes a constant of the trace, and the trace is keyed on its value."""

    __slots__ = ("trace_argument", "trace_record", "trace_slot", "trace_value")

    def __init__(self, rec: _Recording, slot: int, value: Any, argument: Any) -> None:
        self.trace_record = rec
        self.trace_slot = slot
        self.trace_value = value
        self.trace_argument = argument

    def __repr__(self) -> str:
        return f"ScalarTracer({type(self.trace_value).__name__})"

    def __unifiedarray_trace__(self, entry: Any, args: tuple) -> ArrayTracer:
        return self.trace_record.record(entry, args)  # the probe gives the eager answer (or error) for the scalar

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise _NeedsValue(self.trace_argument)

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _scalar_operand
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _scalar_operand
    __pow__ = __rpow__ = __and__ = __rand__ = __or__ = __ror__ = __xor__ = __rxor__ = _scalar_operand
    __lshift__ = __rlshift__ = __rshift__ = __rrshift__ = _scalar_operand
    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = _scalar_operand
    __hash__ = __bool__ = __int__ = __index__ = __float__ = __complex__ = _needs_value
    __neg__ = __pos__ = __abs__ = __invert__ = __round__ = __array__ = _needs_value


# -- plans: how a trace runs on its device -------------------------------------------------


def _generate(
    name: str, params: list[int], steps: list[_Node], results: list[int], env: dict[str, Any]
) -> Callable[..., Any]:
    """A Python function running ``steps`` on its parameters (slots): the
    same calls in the same order as the eager path, with no dispatch between
    them."""
    lines = [f"def {name}({', '.join(f's{p}' for p in params)}):"]
    for node in steps:
        args = ", ".join(f"s{o}" for o in node.operands)
        if node.kwargs:
            env[f"k{node.slot}"] = node.kwargs
            args += f", **k{node.slot}"
        lines.append(f"    s{node.slot} = f{node.slot}({args})")
    lines.append(f"    return ({''.join(f's{r}, ' for r in results)})")
    namespace = dict(env)
    exec(compile("\n".join(lines), f"<unifiedarray.fuse {name}>", "exec"), namespace)
    fn = namespace[name]
    fn.__source__ = "\n".join(lines)
    return fn


def _block_function(
    leaves: list[int], steps: list[_Node], shape: tuple[int, ...], env: dict[str, Any]
) -> tuple[Callable[..., Any], tuple[np.dtype, ...]]:
    """The function evaluating one block of a region: ``block(*leaves, out,
    *temporaries)``, the last step writing into ``out``; and the dtypes of
    the temporaries it takes.

    A step that is a ufunc of one output (and no keyword arguments) with the
    region's shape writes into a temporary (``out=``) instead of allocating
    its result: the caller makes the temporaries once per evaluation and
    passes them to every block.  A temporary is taken back once the value in
    it has been read for the last time, and the next step of its dtype may
    write into it, even the step that reads it last (an elementwise ufunc
    reads each element before it writes it): so a chain needs few
    temporaries, and they stay in the cache.  The ufunc, its loop and its
    operands are those of the eager call (the output has the dtype the loop
    gives), so each element is computed as eagerly.  Temporaries are never
    an argument's memory nor the output's."""
    last_use: dict[int, int] = {}
    for i, node in enumerate(steps):
        for o in node.operands:
            last_use[o] = i
    temps: list[np.dtype] = []
    free: dict[np.dtype, list[int]] = {}
    held: dict[int, int] = {}  # slot -> the temporary holding its value, while it is read
    assigned: dict[int, int] = {}
    lines = []
    for i, node in enumerate(steps):
        args = ", ".join(f"s{o}" for o in node.operands)
        if node.kwargs:
            env[f"k{node.slot}"] = node.kwargs
            args += f", **k{node.slot}"
        for o in dict.fromkeys(node.operands):
            if last_use[o] == i and o in held:
                t = held.pop(o)
                free.setdefault(temps[t], []).append(t)
        fn = env[f"f{node.slot}"]
        ufunc = isinstance(fn, np.ufunc) and fn.nout == 1 and not node.kwargs
        if i == len(steps) - 1:
            lines.append(f"    f{node.slot}({args}, out=out)" if ufunc else f"    out[...] = f{node.slot}({args})")
        elif ufunc and node.shape == shape:
            spare = free.get(node.dtype)
            if spare:
                t = spare.pop()
            else:
                t = len(temps)
                temps.append(node.dtype)
            held[node.slot] = assigned[node.slot] = t
            lines.append(f"    s{node.slot} = f{node.slot}({args}, out=t{t})")
        else:
            lines.append(f"    s{node.slot} = f{node.slot}({args})")
    params = [*(f"s{p}" for p in leaves), "out", *(f"t{t}" for t in range(len(temps)))]
    source = "\n".join([f"def block({', '.join(params)}):", *lines])
    namespace = dict(env)
    exec(compile(source, "<unifiedarray.fuse block>", "exec"), namespace)
    fn = namespace["block"]
    fn.__source__ = source
    fn.__steps__ = steps
    fn.__held__ = assigned  # slot -> its temporary: what the tests check
    return fn, tuple(temps)


class _Region(NamedTuple):
    """A run of elementwise operations ending in ``root``, evaluated block
    by block: its array leaves are iterated, its scalar leaves passed."""

    root: int
    leaves: list[int]
    arrays: list[int]  # the leaves that are arrays (their indices in leaves)
    shape: tuple[int, ...]
    dtype: np.dtype
    whole: Callable[..., Any]
    block: Callable[..., Any]
    temps: tuple[np.dtype, ...]  # the block function's temporaries

    @property
    def size(self) -> int:
        return math.prod(self.shape)


class _Plan:
    """A trace made runnable on its device: ``direct`` runs the recorded
    calls in order on whole arrays; on the host, ``stages`` run them block
    by block where the arrays are larger than a block."""

    def __init__(self, rec: _Recording, array_params: list[int], scalar_params: list[int], outputs: list[int]) -> None:
        self.dev = dev = rec.dev
        self.outputs = outputs
        self.env: dict[str, Any] = {f"s{slot}": value for slot, value in rec.consts.items()}
        for node in rec.nodes:
            fn = _resolve.resolve(dev, node.name)
            # A 0-d result on the host is a 0-d array, as the eager path's is
            # (the dispatch adopts NumPy's scalar as res[...]): a later call
            # given NumPy's scalar may answer otherwise (clip(int8 x, None,
            # np.int32(0)) is int32, with a 0-d int32 bound int8).
            self.env[f"f{node.slot}"] = _zero_d_result(fn) if dev is CPU and node.shape == () else fn
        self.direct = _generate("fused", array_params + scalar_params, rec.nodes, outputs, self.env)
        self.stages: list[_Node | _Region | _Sum] = []
        largest = max((int(np.prod(n.shape)) for n in rec.nodes), default=0)
        if dev is CPU and largest > BLOCK:
            self._stage(rec, set(array_params))
        self.compiled: OrderedDict[tuple, Callable[..., Any] | None] = OrderedDict()
        self.lock = threading.Lock()

    def _stage(self, rec: _Recording, array_params: set[int]) -> None:
        """Split the graph at its reductions: each reduction's operand and
        each output is a region of elementwise calls, made before what
        reads it."""
        by_slot = {n.slot: n for n in rec.nodes}
        done: set[int] = set()

        def materialise(slot: int) -> None:
            node = by_slot.get(slot)
            if node is None or slot in done:
                return  # an argument, or made already
            done.add(slot)
            if not node.reduction:
                self.stages.append(region_of(node))
                return
            operand = by_slot.get(node.operands[0])
            if _pairwise_applies(node) and operand is not None and not operand.reduction:
                self.stages.append(_Sum(node, region_of(operand)))
                return
            materialise(node.operands[0])
            self.stages.append(node)

        def region_of(node: _Node) -> _Region:
            """The elementwise calls ending in ``node``, their leaves made first."""
            members: set[int] = set()
            leaves: list[int] = []

            def walk(s: int) -> None:
                n = by_slot.get(s)
                if n is None or n.reduction:
                    if s not in leaves and s not in rec.consts:
                        leaves.append(s)
                    materialise(s)
                elif s not in members:
                    members.add(s)
                    for o in n.operands:
                        walk(o)

            walk(node.slot)
            steps = [n for n in rec.nodes if n.slot in members]
            arrays = [i for i, s in enumerate(leaves) if s in array_params or s in by_slot]
            block, temps = _block_function(leaves, steps, node.shape, self.env)
            return _Region(
                node.slot,
                leaves,
                arrays,
                node.shape,
                node.dtype,
                _generate("region", leaves, steps, [node.slot], self.env),
                block,
                temps,
            )

        for slot in self.outputs:
            materialise(slot)

    def run_host(self, values: dict[int, Any], threads: int) -> list[Any]:
        """The stages in order (``values``: the arguments by slot), large
        regions over ``threads`` threads."""
        for stage in self.stages:
            if type(stage) is _Node:
                fn = self.env[f"f{stage.slot}"]
                values[stage.slot] = fn(values[stage.operands[0]], **stage.kwargs)
                continue
            if type(stage) is _Sum:
                node, region = stage
                args = [values[s] for s in region.leaves]
                fn = self.env[f"f{node.slot}"]
                if _flat_in_c_order(region, args):
                    values[node.slot] = _pairwise_sum(region, args, fn, bool(node.kwargs["keepdims"]), threads)
                else:
                    values[node.slot] = fn(_evaluate(region, args, threads), **node.kwargs)
                continue
            assert type(stage) is _Region
            values[stage.root] = _evaluate(stage, [values[s] for s in stage.leaves], threads)
        return [values[s] for s in self.outputs]


def _zero_d(value: Any) -> Any:
    """``value``, a NumPy scalar made a 0-d array (as the dispatch makes
    every result)."""
    return value[...] if isinstance(value, np.generic) else value  # type: ignore[index]  # a scalar is indexable by ...


def _zero_d_result(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` whose NumPy scalar result is a 0-d array (see :func:`_zero_d`)."""

    def zero_d(*args: Any, **kwargs: Any) -> Any:
        return _zero_d(fn(*args, **kwargs))

    return zero_d


class _Sum(NamedTuple):
    """A ``sum`` over every axis of a region, summed block by block in
    NumPy's own pairwise order (see :func:`_pairwise_sum`)."""

    node: _Node
    region: _Region


def _pairwise_applies(node: _Node) -> bool:
    """Whether a reduction is a float ``sum`` over every axis (the case
    :func:`_pairwise_sum` reproduces bit for bit)."""
    kw = node.kwargs
    return node.name == "sum" and kw.get("axis") is None and "dtype" not in kw and node.dtype in _PAIRWISE_DTYPES


_PAIRWISE_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _flat_in_c_order(region: _Region, args: list[Any]) -> bool:
    """Whether the region's array leaves are C-ordered arrays of its whole
    shape (or 0-d): then its eager result is C-ordered, and its flat blocks
    are slices of each leaf."""
    if region.size <= BLOCK:
        return False
    for i in region.arrays:
        a = args[i]
        t = type(a)
        if t is np.ndarray:
            if not (a.ndim == 0 or (a.shape == region.shape and a.flags.c_contiguous)):
                return False
        elif not isinstance(a, np.generic):  # a reduction's result: 0-d
            return False
    return True


def _flat_leaves(region: _Region, args: list[Any]) -> list[tuple[int, np.ndarray]]:
    """The region's array leaves of its whole shape, flattened (views: the
    leaves are C-ordered); 0-d leaves are passed as they are."""
    return [(i, args[i].reshape(-1)) for i in region.arrays if args[i].ndim]


def _temporaries(region: _Region) -> list[np.ndarray]:
    """A fresh set of the block function's temporaries, one block long:
    each evaluation (each thread of one) has its own."""
    return [np.empty(BLOCK, dtype) for dtype in region.temps]


def _raising() -> dict[str, Any]:
    """The caller's floating-point error modes with every warning made to
    raise (``np.errstate`` is per thread: workers are given these)."""
    return {k: ("ignore" if v == "ignore" else "raise") for k, v in np.geterr().items()}


def _blocks_flat(
    region: _Region, args: list[Any], flats: list[tuple[int, np.ndarray]], out: np.ndarray, lo: int, hi: int
) -> None:
    """Elements ``lo:hi`` of a flat region into ``out`` (flat), ``BLOCK`` at
    a time, with one set of temporaries for all its blocks."""
    call = list(args)
    temps = _temporaries(region)
    block = region.block
    for start in range(lo, hi, BLOCK):
        stop = min(start + BLOCK, hi)
        for i, flat in flats:
            call[i] = flat[start:stop]
        n = stop - start
        block(*call, out[start:stop], *(temps if n == BLOCK else [t[:n] for t in temps]))


def _in_threads(n: int, work: Callable[[int, int], None], threads: int) -> None:
    """``work(lo, hi)`` over ``range(n)`` split into ``threads`` contiguous
    parts (one in this thread), in the caller's floating-point error modes
    (each part's errors are raised here, once every part has finished)."""
    raising = _raising()

    def part(lo: int, hi: int) -> None:
        with np.errstate(**raising):
            work(lo, hi)

    threads = max(1, min(threads, n))
    if threads == 1:
        part(0, n)
        return
    bounds = [n * k // threads for k in range(threads + 1)]
    pool = _pool(threads - 1)
    futures = [pool.submit(part, bounds[k], bounds[k + 1]) for k in range(1, threads)]
    try:
        part(bounds[0], bounds[1])
    finally:
        errors = [f.exception() for f in futures]  # waits for every part
    for error in errors:
        if error is not None:
            raise error


_POOL: list[ThreadPoolExecutor] = []  # the pool, once made; its size in _POOL_WORKERS
_POOL_WORKERS: list[int] = [0]
_POOL_LOCK = threading.Lock()


def _pool(workers: int) -> ThreadPoolExecutor:
    """The worker threads of the host's blocked evaluation (made when first
    needed, replaced by a larger one when a call asks for more; the smaller
    one is not shut down, as a call may still be handing it work: its idle
    threads end once it is dropped)."""
    with _POOL_LOCK:
        if _POOL_WORKERS[0] < workers:
            _POOL[:] = [ThreadPoolExecutor(max_workers=workers, thread_name_prefix="unifiedarray.fuse")]
            _POOL_WORKERS[0] = workers
        return _POOL[0]


def _pairwise_sum(region: _Region, args: list[Any], reduce: Callable[..., Any], keepdims: bool, threads: int) -> Any:
    """The sum of the region's values, computed as NumPy's ``add.reduce``
    computes it on the eager (C-ordered) result, without that result: NumPy
    sums a contiguous run pairwise, splitting ``n`` elements at
    ``n2 = n // 2 - (n // 2) % 8`` down to blocks it sums in one loop.  Here
    the same split is followed down to blocks of at most ``BLOCK`` elements,
    each block's values computed and summed by the same ``add.reduce``
    (which takes the same path inside the block), and the partial sums added
    in the same tree: the same additions in the same order, bit for bit.
    The blocks' sums may be computed in several threads; they are added in
    this one, in the tree's order."""
    pieces: list[tuple[int, int]] = []  # the tree's leaves, left to right

    def split(lo: int, n: int) -> None:
        if n <= BLOCK:
            pieces.append((lo, n))
            return
        half = n // 2
        half -= half % 8
        split(lo, half)
        split(lo + half, n - half)

    split(0, region.size)
    flats = _flat_leaves(region, args)
    partial: list[Any] = [None] * len(pieces)

    def work(first: int, last: int) -> None:
        call = list(args)
        temps = _temporaries(region)
        values = np.empty(BLOCK, region.dtype)
        block = region.block
        for k in range(first, last):
            lo, n = pieces[k]
            for i, flat in flats:
                call[i] = flat[lo : lo + n]
            out = values[:n]
            block(*call, out, *(temps if n == BLOCK else [t[:n] for t in temps]))
            partial[k] = reduce(out, axis=None)

    _in_threads(len(pieces), work, threads if region.size >= THREAD_MIN else 1)
    sums = iter(partial)

    def tree(n: int) -> Any:
        if n <= BLOCK:
            return next(sums)
        half = n // 2
        half -= half % 8
        left = tree(half)
        return left + tree(n - half)

    with np.errstate(**_raising()):
        total = tree(region.size)
    # (The partial sums' sum is NumPy's scalar: a 0-d array, as eagerly.)
    return np.asarray(total).reshape((1,) * len(region.shape)) if keepdims else _zero_d(total)


def _evaluate(region: _Region, args: list[Any], threads: int) -> Any:
    """A region's values: whole arrays where small, else block by block
    (flat slices where the leaves are C-ordered, over ``threads`` threads
    where large; NumPy's iterator over the broadcast leaves otherwise)."""
    if region.size <= BLOCK:
        return region.whole(*args)[0]
    if not _flat_in_c_order(region, args):
        return _blocked(region, args)
    result = np.empty(region.shape, region.dtype)
    out = result.reshape(-1)
    flats = _flat_leaves(region, args)
    size = region.size
    if threads <= 1 or size < THREAD_MIN:
        with np.errstate(**_raising()):
            _blocks_flat(region, args, flats, out, 0, size)
        return result
    # Parts of whole blocks, so that every block but the last is full.
    nblocks = -(-size // BLOCK)
    _in_threads(
        nblocks, lambda lo, hi: _blocks_flat(region, args, flats, out, lo * BLOCK, min(hi * BLOCK, size)), threads
    )
    return result


def _blocked(region: _Region, args: list[Any]) -> np.ndarray:
    """``region`` evaluated ``BLOCK`` elements at a time over the broadcast
    of its array leaves (NumPy's iterator: any layout, broadcasting).
    Floating-point errors that would warn are made to raise here, so that
    the caller can run the function eagerly, which warns once per operation
    as NumPy does (blocks would warn once per block)."""
    arrays = [args[i] for i in region.arrays]
    operands = [*arrays, None]
    op_flags: Any = [*(["readonly"] for _ in arrays), ["writeonly", "allocate"]]
    it = np.nditer(
        operands,
        flags=["external_loop", "buffered", "zerosize_ok"],
        op_flags=op_flags,
        op_dtypes=[*(np.asarray(a).dtype for a in arrays), region.dtype],
        buffersize=BLOCK,
    )
    positions = region.arrays
    block = region.block
    temps = _temporaries(region)
    call = list(args)
    with it, np.errstate(**_raising()):
        for chunks in it:
            for i, p in enumerate(positions):
                call[p] = chunks[i]
            out = chunks[-1]
            n = len(out)
            block(*call, out, *(temps if n == BLOCK else [t[:n] for t in temps]))
        return it.operands[-1]


# -- traces and the fused function ----------------------------------------------------------


class _Eager(NamedTuple):
    """A signature that runs eagerly, and why.  ``if_it_succeeds``: tracing
    raised an error of the function's own, which the eager call may raise
    too (then nothing was lost, and nothing is said)."""

    reason: str
    if_it_succeeds: bool = False


class _Trace:
    """One signature's plan: which arguments are arrays and scalars, and
    how the outputs are made."""

    def __init__(
        self, rec: _Recording, array_params: list[int], scalar_params: list[int], outputs: list[int], single: bool
    ) -> None:
        self.dev = rec.dev
        self.array_params = array_params
        self.scalar_params = scalar_params  # the scalar arguments', then the rules' values (rec.derived)
        self.rules = rec.rules
        self.converts = bool(rec.derived)
        self.outputs = outputs
        self.single = single
        self.plan = _Plan(rec, array_params, scalar_params, outputs)
        self.backend = backend_for(rec.dev)
        self.samples: list[UnifiedArray] = []
        self._made = self._results(rec)
        self._last: tuple[tuple | None, Any] = (None, None)  # the kernel compiled last, with its key

    def run(self, arrays: list[UnifiedArray], scalars: list[Any], reason: str, threads: int) -> Any:
        dev = self.dev
        raw = scalars
        if self.rules:
            # The rules, asked for this call's scalar values before anything
            # runs (their error, or another path, is the eager call's).
            try:
                if self.converts:
                    with np.errstate(all="raise"):  # a conversion that warns: eagerly, which warns once
                        scalars = self._convert(raw)
                else:
                    scalars = self._convert(raw)
            except Exception:
                return _EAGER_RERUN
        natives = [_access.native_on(a, dev, reason) for a in arrays]
        plan = self.plan
        try:
            if dev is CPU:
                if plan.stages:
                    values = dict(zip(self.array_params, natives, strict=True))
                    values.update(zip(self.scalar_params, scalars, strict=True))
                    outs = plan.run_host(values, threads)
                else:
                    outs = plan.direct(*natives, *scalars)
            else:
                key = tuple([(type(s), repr(s)) for s in raw]) if raw else ()
                last_key, compiled = self._last
                if last_key != key:
                    compiled = self._compiled(key, scalars)
                with self.backend.compute_context(dev):
                    outs = compiled(*natives) if compiled is not None else plan.direct(*natives, *scalars)
        except Exception:
            return _EAGER_RERUN  # the eager call gives its own error (or warnings), once
        results: list[Any] = []
        for (how, what), out in zip(self._made, outs, strict=True):
            if how == 0:  # a new array: its dtype is the trace's, a device result never aliases an input
                res: Any = _results.adopt(out, dev, what)
            elif how == 1:  # a host result: NumPy's may be a view or a scalar
                res = _results.wrap_result(out, dev, natives)
            elif how == 2:  # eager returns the argument itself
                res = arrays[what]
            else:  # an output given twice: the same array
                res = results[what]
            results.append(res)
        return results[0] if self.single else tuple(results)

    def _convert(self, raw: list[Any]) -> list[Any]:
        scalars = list(raw)
        for rule in self.rules:
            scalars.extend(rule(raw))
        return scalars

    def _results(self, rec: _Recording) -> list[tuple[int, Any]]:
        """How each output becomes a result (see :meth:`run`)."""
        dtypes = {n.slot: n.dtype for n in rec.nodes}
        made: list[tuple[int, Any]] = []
        for i, slot in enumerate(self.outputs):
            if slot in self.outputs[:i]:
                made.append((3, self.outputs.index(slot)))
            elif slot in self.array_params:
                made.append((2, self.array_params.index(slot)))
            elif self.dev is not CPU and not self.backend.results_alias:
                made.append((0, dtypes[slot]))
            else:
                made.append((1, None))
        return made

    def _compiled(self, key: tuple, scalars: list[Any]) -> Callable[..., Any] | None:
        """The backend's compiled kernel for these scalar values (constants of
        the graph, keyed on their type and exact value: ``repr`` tells -0.0
        from 0.0), verified on the samples; None where there is none."""
        plan = self.plan
        with plan.lock:
            found = key in plan.compiled
            if found:
                plan.compiled.move_to_end(key)
                compiled = plan.compiled[key]
        if not found:
            compiled = self._compile(scalars)
            with plan.lock:
                plan.compiled[key] = compiled
                while len(plan.compiled) > _COMPILED_PER_SIGNATURE:
                    plan.compiled.popitem(last=False)
        self._last = (key, compiled)  # one assignment: a reader sees the old pair or the new
        return compiled

    def _compile(self, scalars: list[Any]) -> Callable[..., Any] | None:
        direct = self.plan.direct
        values = tuple(scalars)

        def kernel(*natives: Any) -> Any:
            return direct(*natives, *values)

        compiled = self.backend.compile(kernel)
        if compiled is None:
            return None
        dev = self.dev
        natives = [_access.native_on(s, dev, "fuse") for s in self.samples]
        try:
            with np.errstate(all="ignore"), self.backend.compute_context(dev):
                got = compiled(*natives)
                want = direct(*natives, *values)
            ok = all(_close(_host_copy(g, dev), _host_copy(w, dev)) for g, w in zip(got, want, strict=True))
        except Exception as exc:
            self.refused = f"{self.backend.name}'s compiler refused it ({type(exc).__name__}: {exc})"
            return None
        if not ok:
            self.refused = f"{self.backend.name}'s compiled kernel disagrees with the eager result"
            return None
        return compiled

    refused: str | None = None


def _close(a: np.ndarray, b: np.ndarray) -> bool:
    """A compiled kernel's result against the eager one: the same dtype and
    shape, the same values (to rounding, for inexact dtypes: a compiler may
    contract a * b + c into one fused multiply-add)."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind in "fc":
        return bool(np.allclose(a, b, rtol=1e-5, atol=0, equal_nan=True))
    return bool(np.array_equal(a, b))


_EAGER_RERUN = object()
_COMPILED_PER_SIGNATURE = 16


class FusedFunction(Generic[P, R]):
    """A function evaluated by :func:`fuse`: called like the function it
    wraps, with the same result, dtype, device and errors.

    ``cache_info()`` reports its traces (one per signature, at most
    ``cache_size`` kept, least recently used dropped first).
    """

    def __init__(self, fn: Callable[P, R], cache_size: int = 128, threads: int | None = None) -> None:
        if cache_size < 1:
            raise ValueError(f"fuse: cache_size must be at least 1, not {cache_size}")
        if threads is not None and (type(threads) is not int or threads < 1):
            raise ValueError(f"fuse: threads must be a positive int or None, not {threads!r}")
        self._threads = THREADS if threads is None else threads
        functools.update_wrapper(self, fn)
        self._fn = fn
        self._cache_size = cache_size
        self._cache: OrderedDict[tuple, _Trace | _Eager] = OrderedDict()
        self._lock = threading.Lock()
        self._static: set[Any] = set()  # scalar arguments used as values: keyed on their value
        self._warned: set[str] = set()
        self._reason = f"fuse({getattr(fn, '__qualname__', 'fn')})"
        self._hits = self._traces = 0
        with _LIVE_LOCK:
            _LIVE[self] = (self._cache, self._lock)

    def cache_info(self) -> dict[str, int]:
        """``{"hits", "traces", "size", "maxsize"}`` of the signature cache."""
        return {"hits": self._hits, "traces": self._traces, "size": len(self._cache), "maxsize": self._cache_size}

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        key = self._key(args, kwargs)
        if key is None:
            self._warn("an argument that is neither an array, a Python scalar nor a hashable constant")
            return self._fn(*args, **kwargs)
        with self._lock:
            trace = self._cache.get(key)
            if trace is not None:
                self._cache.move_to_end(key)
                self._hits += 1
        if trace is None:
            generation = _resolve.GENERATION[0]  # a registry change from now on: the trace is not kept
            trace = self._trace(args, kwargs)
            if trace is None:  # the eager call raises for this signature (a probe did)
                return self._fn(*args, **kwargs)
            key = self._key(args, kwargs) or key  # a scalar argument may have become a constant while tracing
            with self._lock:
                self._traces += 1
                if _resolve.GENERATION[0] == generation:
                    self._cache[key] = trace
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
        if isinstance(trace, _Eager):
            if trace.if_it_succeeds:
                result = self._fn(*args, **kwargs)
                self._warn(trace.reason)
                return result
            self._warn(trace.reason)
            return self._fn(*args, **kwargs)
        arrays, scalars = self._split(args, kwargs)
        result = trace.run(arrays, scalars, self._reason, self._threads)
        if result is _EAGER_RERUN:
            return self._fn(*args, **kwargs)
        if trace.refused is not None:
            self._warn(trace.refused, "its calls run one by one, as eagerly")
        return result

    # -- signatures -------------------------------------------------------------------
    def _key(self, args: tuple, kwargs: dict[str, Any]) -> tuple | None:
        parts: list[Any] = []
        items: Any = enumerate(args)
        if kwargs:
            items = [*items, *sorted(kwargs.items())]
        static = self._static
        for where, a in items:
            t = type(a)
            if t is UnifiedArray:
                parts.append((a.extent, a.dtype, a.device))
            elif t in PYTHON_TYPES:
                parts.append((t, a) if where in static else t)
            else:
                try:
                    hash(a)
                except TypeError:
                    return None
                parts.append(("constant", t, a))
        if kwargs:
            parts.append(tuple(kwargs))
        if _rules.ACTIVE[0] and _rules.is_strict():
            parts.append("strict")  # the rules for arrays differ: its own trace
        return tuple(parts)

    def _split(self, args: tuple, kwargs: dict[str, Any]) -> tuple[list[UnifiedArray], list[Any]]:
        arrays: list[UnifiedArray] = []
        scalars: list[Any] = []
        items: Any = enumerate(args)
        if kwargs:
            items = [*items, *sorted(kwargs.items())]
        static = self._static
        for where, a in items:
            t = type(a)
            if t is UnifiedArray:
                arrays.append(a)
            elif t in PYTHON_TYPES and where not in static:
                scalars.append(a)
        return arrays, scalars

    # -- tracing ------------------------------------------------------------------------
    def _trace(self, args: tuple, kwargs: dict[str, Any]) -> _Trace | _Eager | None:
        devices = {a.device for a in [*args, *kwargs.values()] if type(a) is UnifiedArray}
        if not devices:
            return _Eager("no array arguments")
        if len(devices) > 1:
            return _Eager(f"arrays on several devices ({', '.join(sorted(devices))}): the eager rules apply")
        dev = devices.pop()
        for _ in range(len(args) + len(kwargs) + 1):
            try:
                return self._trace_once(args, kwargs, dev)
            except _NeedsValue as exc:
                with self._lock:
                    self._static.add(exc.argument)
                    self._cache.clear()  # the key has changed for every signature
        return _Eager("its scalar arguments")

    def _trace_once(self, args: tuple, kwargs: dict[str, Any], dev: Device) -> _Trace | _Eager | None:
        rec = _Recording(dev)
        array_params: list[int] = []
        scalar_params: list[int] = []
        samples: list[UnifiedArray] = []
        static = self._static

        def stand_in(where: Any, a: Any) -> Any:
            t = type(a)
            if t is UnifiedArray:
                slot = rec.new_slot()
                rec.shapes[slot] = a.extent
                array_params.append(slot)
                sample = _make_sample(a.extent, a.dtype, dev)
                samples.append(sample)
                return ArrayTracer(rec, slot, a.extent, a.dtype, sample)
            if t in PYTHON_TYPES and where not in static:
                slot = rec.new_slot()
                rec.shapes[slot] = ()
                rec.scalar_index[slot] = len(scalar_params)
                scalar_params.append(slot)
                return ScalarTracer(rec, slot, a, where)
            return a

        targs = [stand_in(i, a) for i, a in enumerate(args)]
        tkwargs = {k: stand_in(k, kwargs[k]) for k in sorted(kwargs)}
        try:
            out: Any = self._fn(*targs, **tkwargs)
        except _Unfusable as exc:
            return _Eager(f"{exc.operation!r} cannot be fused")
        except _EagerRaises:
            return None
        except _NeedsValue:
            raise
        except Exception as exc:
            return _Eager(f"tracing raised {type(exc).__name__}: {exc}", if_it_succeeds=True)
        single = type(out) is ArrayTracer
        outs = [out] if single else list(out) if type(out) in (tuple, list) else None
        if not outs or not all(type(o) is ArrayTracer and o.trace_record is rec for o in outs):
            return _Eager("a result that is not an array or a tuple of arrays")
        trace = _Trace(rec, array_params, scalar_params + rec.derived, [o.trace_slot for o in outs], single)
        trace.samples = samples
        return trace

    def _warn(self, reason: str, outcome: str = "this signature runs eagerly") -> None:
        if reason in self._warned:
            return
        with self._lock:
            if reason in self._warned:
                return
            self._warned.add(reason)
        warnings.warn(
            f"unifiedarray.fuse: {self._reason[5:-1]}: {reason}; {outcome}",
            FuseWarning,
            stacklevel=3,
        )


#: Every fused function alive -> its traces and their lock: a registry
#: change drops the traces (:func:`_forget_every_trace`; each holds
#: functions resolved from a backend, and the backend), so that none calls
#: a removed backend.
_LIVE: weakref.WeakKeyDictionary[FusedFunction[Any, Any], tuple[OrderedDict[tuple, Any], threading.Lock]] = (
    weakref.WeakKeyDictionary()
)
_LIVE_LOCK = threading.Lock()


def _forget_every_trace() -> None:
    """Drop every fused function's traces: the registry changed."""
    with _LIVE_LOCK:
        live = list(_LIVE.values())
    for traces, lock in live:
        with lock:
            traces.clear()


on_change(_forget_every_trace)

_DECORATOR: Any = object()  # fuse() called without a function: @fuse(cache_size=...)


@overload
def fuse(fn: Callable[P, R], /, *, cache_size: int = 128, threads: int | None = None) -> FusedFunction[P, R]: ...


@overload
def fuse(*, cache_size: int = 128, threads: int | None = None) -> Callable[[Callable[P, R]], FusedFunction[P, R]]: ...


def fuse(fn: Any = _DECORATOR, /, *, cache_size: int = 128, threads: int | None = None) -> Any:
    """Fuse a function of arrays written against the namespace (``xp.sin``,
    ``xp.where``, ``xp.sum``, the operators, Python scalars): elementwise
    chains run as one pass over the data on the arrays' device, with the
    result, dtype, device and errors of calling ``fn`` eagerly.

    Usable as ``@fuse`` or ``@fuse(cache_size=..., threads=...)``.  ``fn``
    is traced once per signature (shapes, dtypes, devices, kinds of Python
    scalars); the last ``cache_size`` signatures are kept.  Arguments are
    read at each call.  What cannot be fused runs eagerly with a
    :class:`FuseWarning`.  ``threads``: how many threads evaluate a large
    host computation (``THREADS`` by default; the result is the same bit for
    bit in any number).

    Example
    -------
    >>> import unifiedarray as xp
    >>> @xp.fuse
    ... def energy(x, scale):
    ...     return xp.sum(xp.where(x > 0, x * scale, 0.0) ** 2)
    >>> float(energy(xp.asarray([-1.0, 2.0, 3.0]), 0.5))
    3.25
    """
    if fn is _DECORATOR:
        return lambda f: fuse(f, cache_size=cache_size, threads=threads)
    if not callable(fn):
        raise TypeError(f"fuse: expected a function, got {type(fn).__name__}")
    return FusedFunction(fn, cache_size, threads)
