"""Operators: the elementwise functions of one and two arrays, the binary
and unary operators, temporary elision and the in-place operators.

:func:`operate` is every binary operator and binary elementwise function;
its fast paths (arrays current where they are placed, on the host or a
device) give what :func:`operate_general` gives
(``tests/test_fast_paths.py``).  A large host temporary nothing else can
see lends its memory to the result (:data:`ELIDE_BYTES`); ``x <op>= y``
on a large host array is computed into x's memory (:func:`_inplace_on_host`).

Example
-------
>>> import unifiedarray as xp
>>> from unifiedarray._operators import operate
>>> operate(xp.ones(2), 2.0, "add").tolist()
[3.0, 3.0]
"""

from __future__ import annotations

import sys
import weakref
from typing import Any

import numpy as np

from . import _rules
from ._access import host_native, native_on
from ._array import UnifiedArray
from ._buffer import UnifiedBuffer
from ._calls import NO_KWARGS, call, call_mixed, traced_call
from ._compiled import compiled_modules
from ._devices import CPU, Device
from ._dtypes import PYTHON_TYPES
from ._errors import run_translated
from ._intake import check_scalar, intake, is_numpy_number, numpy_scalar
from ._resolve import GENERATION, resolve, resolved
from ._results import adopt, lone_on_host, new_result, wrap_result
from ._writes import write
from .backends import backend_for, backend_of_native, on_change

__all__ = [
    "DIRECT",
    "ELIDE_BYTES",
    "binary_function",
    "direct_for",
    "inplace",
    "operate",
    "operate_general",
    "run_direct",
    "unary",
]

_BOOL = np.dtype(np.bool_)
_FLOAT16, _FLOAT32 = np.dtype(np.float16), np.dtype(np.float32)  # (singletons: compared by identity)
_NDARRAY = np.ndarray
_NP_SCALAR = np.generic
# Whether some thread may be in strict mode (the rules' own count): while it
# is 0 the fast paths skip strict mode's checks of arrays.
_STRICT_ACTIVE = _rules.ACTIVE
_SCALAR_PASSES = _rules.SCALAR_PASSES
_UNJUDGED = (1, 0)  # a type the rules have not judged: no value is within these bounds
# PYTHON_TYPES as a set: a type's membership is one hash, where the tuple
# compares it with each of its members in turn.
_SCALAR_TYPES = frozenset(PYTHON_TYPES)


def unary(name: str, x: Any) -> Any:
    """An elementwise function of one array (and the unary operators); inside
    :func:`unifiedarray.fuse`'s tracing, ``x`` and the result are tracers."""
    if type(x) is not UnifiedArray:
        traced = traced_call(unary, (name, x))
        if traced is not NotImplemented:
            return traced
        raise TypeError(f"{name}: expected a UnifiedArray, got {type(x).__name__}")
    arr: UnifiedArray = x  # typed: compiled, its fields are read directly
    buf: UnifiedBuffer | None = arr.buffer_made
    if buf is None:
        # A lone result (see UnifiedArray.buffer): one copy, current where
        # it is; its buffer is made only where the general path needs it.
        dev, dtype = arr.lone_device_dtype
        base = arr.lone_copy
        host = base if dev is CPU else None
    else:
        dtype = buf.dtype
        host = buf.host_ready if arr.chain is None else None  # host_current(x), inlined
    if _STRICT_ACTIVE[0]:
        _rules.unary(name, dtype)
    if host is not None:
        try:
            fn = _HOST_FN[name]
        except KeyError:
            fn = _HOST_FN[name] = resolve(CPU, name)
        res = fn(host)
        if type(res) is _NDARRAY:
            if res is not host and res.base is None:
                return lone_on_host(res)
        elif isinstance(res, _NP_SCALAR):
            return adopt(res[...], CPU, res.dtype)  # type: ignore[index]  # a 0-d input: NumPy gives a scalar
    else:
        if buf is not None:
            dev = buf.placement
            base = buf.ready if arr.chain is None else None
        if base is not None:
            # On a device, current: the backend's direct function (see operate).
            direct = run_direct(dev, name, dtype, None, arr.extent, base)  # elementwise: x's shape
            if direct is not None:
                return direct
    return call(name, (x,))


# name -> the host function, for the operators' fast path.
_HOST_FN: dict[str, Any] = {}


def operate(x: UnifiedArray, y: Any, name: str, reflected: bool = False) -> Any:
    """``x <op> y`` (or ``y <op> x``): every binary operator and binary
    elementwise function.  Returns ``NotImplemented`` for operands Python
    should offer to the other side."""
    ty = type(y)
    buf: UnifiedBuffer | None = x.buffer_made
    if buf is None:
        # A lone result (see UnifiedArray.buffer): one copy, current where
        # it is; its buffer is made only where the general path needs it.
        dev, dtype = x.lone_device_dtype
        base = x.lone_copy
        if dev is CPU:
            lhs = base
            base = None
        else:
            lhs = None
    else:
        dtype = buf.dtype
        lhs = buf.host_ready
        base = None
    if ty is UnifiedArray:
        if _STRICT_ACTIVE[0]:
            _rules.binary_arrays(name, dtype, y.dtype)
    elif ty in _SCALAR_TYPES:
        # The rules' answer: from the passes they recorded (outside strict
        # mode: every value of the type, or those within bounds), else asked.
        try:  # (not .get: a bound method made per call is a measurable share of a small one)
            bounds = _SCALAR_PASSES[reflected][name][dtype][ty]
        except KeyError:  # not judged yet, or not a pass (the general path, which raises or answers)
            bounds = _UNJUDGED
        if _STRICT_ACTIVE[0] or (bounds is not None and (bounds is _UNJUDGED or not bounds[0] <= y <= bounds[1])):
            if check_scalar(x, y, name, reflected) is not None:
                return operate_general(x, y, name, reflected)  # a comparison's constant answer
            if ty is float and bounds is not None and bounds is not _UNJUDGED and _rules.overflows(dtype, y):
                # A float beyond float16's range: the general path converts it as
                # NumPy does, to inf with its warning.  (Not y reassigned here: the
                # compiled build would then hold a reference of its own to every y,
                # and no temporary would lend its memory.)
                return operate_general(x, y, name, reflected)
    # The fast path: arrays on the host, current, nothing in flight, whole or
    # views whose native view is at hand (``A.T @ b``, ``s[:, None] - d``).
    # It is short on purpose: between two BLAS calls, every instruction of
    # the dispatch runs from cold caches and costs several times its
    # standalone time.
    if lhs is not None:
        if x.chain is not None:
            lhs = x.host_view
        if lhs is None:
            rhs = None
        elif ty is UnifiedArray:
            ybuf: UnifiedBuffer | None = y.buffer_made
            # host_native(y), inlined: this is most of a small a + b's cost.
            if ybuf is None:  # a lone result (see UnifiedArray.buffer)
                rhs = y.lone_copy if y.lone_device_dtype[0] is CPU else None
            else:
                rhs = ybuf.host_ready
                if rhs is not None and y.chain is not None:
                    rhs = y.host_view
        elif ty in _SCALAR_TYPES:
            rhs = y  # the rules were asked above
        else:
            rhs = None
        if rhs is not None:
            try:
                fn = _HOST_FN[name]
            except KeyError:
                fn = _HOST_FN[name] = resolve(CPU, name)
            if lhs.nbytes >= ELIDE_BYTES and name in _ELIDABLE and _COUNTS_OWNED_REFERENCES:
                # A large operand that is a temporary nothing else can see
                # ((a + b) in (a + b) * c) lends its memory to the result, as
                # NumPy's own temporaries do: no new allocation to fault in.
                # A temporary's reference counts are _TEMPORARY_REFS; any
                # other holder (a name, a view, a lease, a weak reference,
                # another copy) makes them higher.
                target = None
                if sys.getrefcount(x) <= _REFS_ARRAY and (
                    sys.getrefcount(lhs) <= _REFS_LONE_COPY
                    if buf is None
                    else sys.getrefcount(buf) <= _REFS_BUFFER and sys.getrefcount(lhs) <= _REFS_COPY
                ):
                    target = _lendable(x, lhs)
                if (
                    target is None
                    and ty is UnifiedArray
                    and sys.getrefcount(y) <= _REFS_ARRAY
                    and (
                        sys.getrefcount(rhs) <= _REFS_LONE_COPY
                        if ybuf is None
                        else sys.getrefcount(ybuf) <= _REFS_OTHER_BUFFER and sys.getrefcount(rhs) <= _REFS_COPY
                    )
                ):
                    target = _lendable(y, rhs)
                if target is not None:
                    res = _into(fn, lhs, rhs, reflected, target)
                    if res is not None:
                        return adopt(res, CPU, res.dtype)
            res = fn(rhs, lhs) if reflected else fn(lhs, rhs)
            if type(res) is _NDARRAY:
                return lone_on_host(res)
            if isinstance(res, _NP_SCALAR):
                return adopt(res[...], CPU, res.dtype)  # type: ignore[index]  # 0-d operands: NumPy gives a scalar
            return wrap_result(res, CPU)
    elif buf is not None:
        dev = buf.placement
        base = buf.ready
    if base is not None:
        # The same on a device: arrays whose copies there are current, whole
        # or views (a view's native is its chain applied to the copy: no move)
        # (the device's elementwise results never alias an input).
        if ty is UnifiedArray:
            # Typed locals: compiled, their fields are read directly.
            yarr: UnifiedArray = y
            ybuf = yarr.buffer_made
            other: Any  # y's dtype, or the scalar's type
            if ybuf is None:  # a lone result
                ydev, other = yarr.lone_device_dtype
                rhs = yarr.lone_copy if ydev is dev else None
            else:
                other = ybuf.dtype
                rhs = ybuf.ready if ybuf.placement is dev else None
            if rhs is not None and yarr.chain is not None:
                rhs = native_on(y, dev, name)
        elif ty in _SCALAR_TYPES:
            rhs = y  # the rules were asked above
        else:
            rhs = None
        if rhs is not None:
            lhs = base if x.chain is None else native_on(x, dev, name)
            # The backend's direct function for this signature, where it has
            # one (MLX: the namespace's own kernel alone, once its first call
            # judged the signature direct): the compute context, the
            # namespace's checks and wrap_result are what it needs none of.
            if ty is not UnifiedArray:
                other = ty
            # Elementwise: x's shape where y is a scalar or has that shape too.
            result_shape = None if ty is UnifiedArray and yarr.extent != x.extent else x.extent
            if reflected:
                direct = run_direct(dev, name, other, dtype, result_shape, rhs, lhs)
            else:
                direct = run_direct(dev, name, dtype, other, result_shape, lhs, rhs)
            if direct is not None:
                return direct
            fn = resolved((dev, name)) or resolve(dev, name)
            if fn is not None:
                backend = backend_for(dev)
                res = run_translated(dev, name, backend.run, (dev, fn, rhs, lhs) if reflected else (dev, fn, lhs, rhs))
                return adopt(res, dev, backend.dtype_of(res))
    return operate_general(x, y, name, reflected)


# (resolved function, the arguments' dtypes or scalar types in call order)
# -> (the backend's direct function, its result's dtype), or _NONE where the
# backend has none.  Keyed by the function the dispatch resolved, so that a
# namespace function resolved anew (replaced) is judged anew.
DIRECT: dict[tuple[Any, ...], tuple[Any, Any]] = {}
_direct = DIRECT.get  # bound once: a method looked up per call is a measurable share of a small one
_NONE: tuple[Any, Any] = (None, None)


#: name -> the signature last served directly under that name, and how:
#: ``(device, first, second, generation, direct function, (device, result
#: dtype))``, the last a lone result's ``lone_device_dtype``.
#: A small call's signature is most often the one its name served last (a
#: loop), and then the decision costs identity tests only: no resolution,
#: no key to build, no DIRECT lookup (a dtype's hash is computed anew each
#: time).  Staled by a change of the resolution cache (its GENERATION).
_LAST: dict[str, tuple[Any, ...]] = {}
_ONE: Any = object()  # run_direct's second native when there is none


def _forget_resolved() -> None:
    """Forget the host functions, the backends' direct functions and the
    signatures served last: the registry changed (a backend registered
    anew for a kind answers for itself; ``_LAST`` is staled by
    :data:`~unifiedarray._resolve.GENERATION` too, and emptied here so that
    nothing of a removed backend stays alive)."""
    _HOST_FN.clear()
    DIRECT.clear()
    _LAST.clear()


on_change(_forget_resolved)


def run_direct(dev: Device, name: str, first: Any, second: Any, shape: Any, a: Any, b: Any = _ONE) -> Any:
    """The result of ``dev``'s direct function for ``name`` on the native
    arrays (or scalar) ``a`` and ``b`` (``_ONE``: a function of one array),
    in call order (the one way the fast paths call one): a new array, or None
    where the backend has none for the signature, or it raised or gave
    nothing (the caller's general path then raises the call's own error).

    The signature is the arguments' dtypes or scalar types in call order,
    ``first`` and ``second`` (None for a function of one array; a whole
    reduction's is its input's dtype and ndim); the decision for it is
    :data:`DIRECT`'s entry for ``(resolved function, first[, second])``,
    remembered per name (:data:`_LAST`).  ``shape`` is the result's where the
    caller knows it (an elementwise function of operands of one shape, a
    whole reduction's ``()``): asking an MLX array its shape costs a tenth
    of a small call."""
    try:  # (not .get: a bound method made per call is a measurable share of a small one)
        known = _LAST[name]
    except KeyError:
        known = None
    if known is not None and known[0] is dev and known[1] is first and known[2] is second and known[3] == GENERATION[0]:
        call_direct = known[4]
        sig = known[5]
    else:
        generation = GENERATION[0]  # read first: a reset from now on stales what is remembered below
        fn = resolved((dev, name)) or resolve(dev, name)
        if fn is None:
            return None
        key = (fn, first) if second is None else (fn, first, second)
        call_direct, dtype = _direct(key) or direct_for(key, dev, name)
        if call_direct is None:
            return None
        sig = (dev, dtype)
        _LAST[name] = (dev, first, second, generation, call_direct, sig)
    try:
        # Each arity called as such: a call with an argument tuple costs more.
        res = call_direct(a) if b is _ONE else call_direct(a, b)
    except Exception:
        return None
    if res is None:
        return None
    return new_result(res, sig, res.shape if shape is None else shape)


def direct_for(key: tuple[Any, ...], dev: Device, name: str) -> tuple[Any, Any]:
    """The entry of :data:`DIRECT` for ``key`` (``(fn, *signature)``), asked
    of ``dev``'s backend (``Backend.direct``) and kept once it is final
    (and the registry unchanged meanwhile: a removed backend's answer is
    never kept)."""
    generation = GENERATION[0]
    found = backend_for(dev).direct(dev, name, key[0], key[1:])
    if found is NotImplemented:
        return _NONE
    entry = _NONE if found is None else found
    if GENERATION[0] == generation:
        DIRECT[key] = entry
    return entry


def operate_general(x: UnifiedArray, y: Any, name: str, reflected: bool = False) -> Any:
    """:func:`operate` without its fast paths: what they must agree with."""
    ty = type(y)
    if ty in PYTHON_TYPES:
        constant = check_scalar(x, y, name, reflected)
        if constant is not None:
            return call("full_like", (x, constant), {"dtype": _BOOL})
        if ty is float:
            dt = x.dtype
            if dt is _FLOAT32 or dt is _FLOAT16:
                y = _rules.weak_float(dt, y, name)  # NumPy's overflow to inf, with its warning, on every device
        if reflected:
            return _reflected_scalar(name, x, y)
    else:
        if ty is not UnifiedArray:
            if not _rules.is_strict():
                # NumPy's operands beyond the standard's (refused in strict
                # mode, as array-api-strict refuses them): None compares
                # elementwise, equal to nothing; a list or tuple is data.
                if y is None and name in ("equal", "not_equal"):
                    return call("full_like", (x, name == "not_equal"), {"dtype": _BOOL})
                if ty is list or ty is tuple:
                    y = intake(y)
                    _rules.binary_arrays(name, x.dtype, y.dtype)
                    return call_mixed(name, (y, x) if reflected else (x, y), NO_KWARGS, name)
            if name == "matmul" or (backend_of_native(y) is None and not hasattr(y, "__array__")):
                return NotImplemented
            # A NumPy scalar is a value (made on x's device, nothing moved);
            # other foreign data is data (taken in, moved where needed, counted).
            y = numpy_scalar(y, x.device) if is_numpy_number(y) else intake(y)
        _rules.binary_arrays(name, x.dtype, y.dtype)
    return call_mixed(name, (y, x) if reflected else (x, y), NO_KWARGS, name)


def _reflected_scalar(name: str, x: UnifiedArray, scalar: Any) -> Any:
    """``scalar <op> x``: the backend's function with the scalar first."""
    dev = x.device
    fn = resolve(dev, name)
    native = native_on(x, dev, name)
    with backend_for(dev).compute_context(dev):
        return wrap_result(run_translated(dev, name, fn, (scalar, native)), dev, (native,))


#: Operands of at least this size may lend their memory to a result (NumPy's
#: own threshold for eliding temporaries): below it, an allocation costs less
#: than the checks.
ELIDE_BYTES = 256 * 1024

# The counts below hold where every reference on the interpreter's stack is
# owned (CPython up to 3.13).  CPython 3.14 may leave borrowed references on
# the stack, so a named array could look like a temporary: no lending there.
_COUNTS_OWNED_REFERENCES = sys.implementation.name == "cpython" and sys.version_info < (3, 14)

# What sys.getrefcount gives in operate for a temporary operand called from
# a dunder: (the array, x's buffer, the operand's host copy, y's buffer, a
# lone result's copy).
# Interpreted: the interpreter's stack, the dunder's argument, operate's and
# getrefcount's own for the array; for x's buffer, the array's slot, the
# local and getrefcount's; for a host copy, the buffer's three (its copy,
# ready and host_ready), the local and getrefcount's; for y's buffer, the
# array's slot, the local and getrefcount's; for a lone result's copy, its
# slot, the local and getrefcount's.  Compiled (unifiedarray/_compiled.py), a
# call passes its arguments borrowed, so the counts are lower (measured).
# Where only one of the dunders and operate is compiled, the counts are
# neither: nothing is lent.  tests/test_temporaries.py holds each build to
# both sides: a temporary is lent, a named array never.
_TEMPORARY_REFS = {
    frozenset(): (4, 3, 5, 3, 3),
    frozenset(("_array", "_operators")): (2, 2, 4, 2, 2),
}.get(frozenset(compiled_modules()) & {"_array", "_operators"})
if _TEMPORARY_REFS is None:
    _COUNTS_OWNED_REFERENCES = False
    _TEMPORARY_REFS = (0, 0, 0, 0, 0)
_REFS_ARRAY, _REFS_BUFFER, _REFS_COPY, _REFS_OTHER_BUFFER, _REFS_LONE_COPY = _TEMPORARY_REFS

# The operators whose host function is a plain NumPy ufunc: they can write
# their result into an operand of the result's dtype and shape.
_ELIDABLE = frozenset(
    [
        "add",
        "subtract",
        "multiply",
        "divide",
        "maximum",
        "minimum",
        "pow",
        "remainder",
        "hypot",
        "atan2",
        "copysign",
        "logaddexp",
    ]
)


def _lendable(x: UnifiedArray, native: np.ndarray) -> np.ndarray | None:
    """``native`` (x's host copy) if x's buffer is host-only, with no alias
    of its host copy that may be alive (see ``UnifiedBuffer.export_host``)
    and not watched by a weak reference; else None.  A lone result has
    none of those: every export, lease and copy goes through its buffer."""
    buf = x.buffer_made
    if x.chain is None and (buf is None or buf.host_private()) and not weakref.getweakrefcount(x):
        return native
    return None


def _broadcasts_to(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    """Whether ``shape`` broadcasts to ``target`` (and not beyond it)."""
    try:
        return np.broadcast_shapes(shape, target) == target
    except ValueError:
        return False


def _ufunc_result_dtype(fn: Any, lhs: np.ndarray, rhs: Any, reflected: bool = False) -> np.dtype | None:
    """The dtype the ufunc ``fn`` gives for ``fn(lhs, rhs)`` (its own type
    resolution: ``divide`` of integers is float64, which ``result_type``
    does not know), Python scalars weak; None where it has no loop."""
    t = type(rhs)
    other = rhs.dtype if t is np.ndarray else np.dtype(bool) if t is bool else t
    try:
        return fn.resolve_dtypes((other, lhs.dtype, None) if reflected else (lhs.dtype, other, None))[-1]
    except Exception:  # no loop for these dtypes: the general path gives the error
        return None


def _into(fn: Any, lhs: np.ndarray, rhs: Any, reflected: bool, target: np.ndarray) -> np.ndarray | None:
    """``fn(lhs, rhs)`` written into ``target`` (an operand), if the result
    has target's dtype and shape (NumPy's promotion rules, Python scalars
    weak); else None."""
    if _ufunc_result_dtype(fn, lhs, rhs, reflected) != target.dtype:
        return None
    if (
        type(rhs) is np.ndarray
        and rhs.shape != lhs.shape
        and not (_broadcasts_to(lhs.shape, target.shape) and _broadcasts_to(rhs.shape, target.shape))
    ):
        return None
    return fn(rhs, lhs, out=target) if reflected else fn(lhs, rhs, out=target)


def binary_function(name: str, x1: Any, x2: Any) -> Any:
    """A binary elementwise function: at least one argument is an array (or,
    inside :func:`unifiedarray.fuse`'s tracing, a tracer)."""
    if type(x1) is UnifiedArray:
        res = operate(x1, x2, name)
        other = x2
    elif type(x2) is UnifiedArray:
        res = operate(x2, x1, name, reflected=True)
        other = x1
    else:
        traced = traced_call(binary_function, (name, x1, x2))
        if traced is not NotImplemented:
            return traced
        raise TypeError(f"{name}: at least one argument must be a UnifiedArray")
    if res is NotImplemented:
        raise TypeError(f"{name}: unsupported operand type {type(other).__name__}")
    return res


def inplace(x: UnifiedArray, y: Any, name: str) -> Any:
    """``x <op>= y``: computed as ``x <op> y``, written into x through the
    buffer.  The dtype and shape must stay x's."""
    dtype = x.dtype
    _rules.inplace_operand(name, dtype, y)  # the cast into x, checked before anything runs
    if _inplace_on_host(x, y, name):
        return x
    res = operate(x, y, name)
    if res is NotImplemented:
        return NotImplemented
    if res.extent != x.extent:
        raise ValueError(f"in-place {name} would change the shape {x.extent} to {res.extent}")
    if res.dtype != dtype:
        _rules.inplace_result(name, dtype, res.dtype)
        res = call("astype", (res, dtype), {"copy": False})  # NumPy's x += y: computed, then cast
    lhs, rhs = host_native(x), host_native(res)
    if lhs is not None and rhs is not None:
        # Both on the host (x whole or a real view of its copy): the result
        # copied into x's memory through the buffer's write, what write()
        # below comes to for them without its dispatch.
        x.buffer.write(CPU, lambda base: np.copyto(lhs, rhs), f"in-place {name}")
        return x
    write(x, Ellipsis, res, f"in-place {name}")
    return x


#: The in-place operators whose host function is a NumPy ufunc that can write
#: into its first operand.
_IN_PLACE_UFUNCS = frozenset(
    [
        "add",
        "subtract",
        "multiply",
        "divide",
        "pow",
        "remainder",
        "bitwise_and",
        "bitwise_or",
        "bitwise_xor",
        "bitwise_left_shift",
        "bitwise_right_shift",
    ]
)


def _inplace_on_host(x: UnifiedArray, y: Any, name: str) -> bool:
    """``x <op>= y`` computed into x's host memory (one pass, no temporary,
    as NumPy's ``X -= mean``), through the buffer's write, where that gives
    what the general path gives: a large x current on the host (a whole
    array or a real view), y a Python scalar or a current host array, the
    result of x's dtype and shape, and no error possible after the first
    element is written (no integer ``**``, no ``np.errstate`` set to raise).
    False where it does not apply; nothing is written then."""
    if name not in _IN_PLACE_UFUNCS:
        return False
    lhs = host_native(x)
    if lhs is None or lhs.nbytes < ELIDE_BYTES:
        return False  # small: the general path's copy costs less than these checks
    ty = type(y)
    if ty is UnifiedArray:
        rhs = host_native(y)
        if rhs is None or not _broadcasts_to(rhs.shape, lhs.shape):
            return False
    elif ty in PYTHON_TYPES:
        check_scalar(x, y, name)  # never a constant: no in-place operator compares
        rhs = y
    else:
        return False
    if (name == "pow" and lhs.dtype.kind in "iu") or "raise" in np.geterr().values():
        return False
    fn = _HOST_FN.get(name)
    if fn is None:
        fn = _HOST_FN[name] = resolve(CPU, name)
    if _ufunc_result_dtype(fn, lhs, rhs) != lhs.dtype:
        return False
    x.buffer.write(CPU, lambda base: fn(lhs, rhs, out=lhs), f"in-place {name}")
    return True
