"""The one dispatch: every call on a :class:`~unifiedarray.UnifiedArray`
runs through here.

Namespace functions, operators, methods, ``__getitem__``/``__setitem__``,
in-place operators and NumPy-protocol calls all end in the functions of
this module, which keep the promises in one place:

1. **placement**: where the call runs (the device of its arrays; mixed
   devices by :func:`unifiedarray._policy.choose_device`; no arrays: the
   default device);
2. **current data**: each array's copy on that device, synced first if it is
   stale (a counted move), after any non-blocking move still in flight;
3. **context**: the device's compute context (the array's CUDA GPU);
4. **compute**: the backend's Array API function (one cache of resolved
   functions); a function the backend lacks runs on the host, counted;
5. **errors**: a backend's exception becomes the class the host raises
   (:data:`ERRORS`), at the call;
6. **results**: wrapped as new arrays that never share memory with another
   buffer;
7. **writes**: through the buffer, so the written copy becomes the only
   valid one.

A fast path is allowed only here, and each one has a property test that it
gives what the general path gives (``tests/test_fast_paths.py``).

Example
-------
>>> import unifiedarray as xp
>>> from unifiedarray import _dispatch
>>> float(_dispatch.call("sum", (xp.asarray([1.0, 2.0]),)))
3.0
"""

from __future__ import annotations

import math
import operator
import re
import sys
import weakref
from collections.abc import Sequence
from typing import Any, NoReturn

import numpy as np
from numpy.exceptions import AxisError
from numpy.linalg import LinAlgError

from . import _index as index
from . import _rules, compute
from . import _views as views
from ._array import UnifiedArray
from ._buffer import adopt, upload_new
from ._devices import CPU, Device, DeviceLike
from ._policy import choose_device, get_default_device
from .backends import backend_for, backend_of_native

__all__ = [
    "ERRORS",
    "call",
    "call_mixed",
    "getitem",
    "inplace",
    "namespace_for",
    "native_on",
    "operate",
    "placement_of",
    "reduction",
    "setitem",
    "traced_call",
    "unary",
    "wrap",
    "write",
]

PY_SCALARS = (bool, int, float, complex)
_BOOL = np.dtype(np.bool_)
# Whether some thread may be in strict mode (the rules' own count): while it
# is 0 the fast paths skip strict mode's checks of arrays.
_STRICT_ACTIVE = _rules.ACTIVE
# object.__new__, bound once: every result and view is made with it, and the
# attribute lookup is a measurable share of a small call (16 of 390 ns of a[1:3]).
_new = object.__new__

_EMPTY: dict[str, Any] = {}


# -- resolution: one cache ---------------------------------------------------------

# (device, dotted path) -> that device's function (path "" is the namespace
# itself), or None where the backend lacks it.  Resolving costs more than a
# small call, so it is done once per device and name.
_RESOLVED: dict[tuple[Device, str], Any] = {}


def resolve(dev: Device, path: str) -> Any:
    """The function ``path`` (``"sum"``, ``"linalg.solve"``) of ``dev``'s
    compute namespace, or None if the backend lacks it."""
    key = (dev, path)
    try:
        return _RESOLVED[key]
    except KeyError:
        pass
    if path == "":
        backend_for(dev)  # a clear error for a device this machine lacks
        obj: Any = compute.namespace_for(dev)
    else:
        obj = resolve(dev, "")
        for part in path.split("."):
            obj = getattr(obj, part, None)
            if obj is None:
                break
    _RESOLVED[key] = obj
    return obj


def namespace_for(dev: Device) -> Any:
    """The compute namespace of ``dev`` (see :mod:`unifiedarray.compute`)."""
    return resolve(dev, "")


# -- current data --------------------------------------------------------------------


def native_on(x: UnifiedArray, dev: Device, reason: str) -> Any:
    """``x``'s data as a native array of ``dev``, its buffer synced first if
    stale (a counted move) and any move in flight waited for.  For a view,
    the view's chain is applied."""
    buf = x._buf
    if buf._pending is not None:
        buf._wait()  # a non-blocking move is still in flight
    # A writer publishes a new copy with one assignment (MLX's writes make a
    # new handle, see UnifiedBuffer._apply_write), so whichever copy this
    # reads is whole.
    base = buf._copies[dev] if dev in buf._valid else buf._acquire(dev, False, reason)
    key = x._key
    if key is None:
        return base
    if dev is CPU:
        view = x._hostview
        if view is None:
            view = views.follow(resolve(CPU, ""), base, key)
            if views.real_views(key) or (view.size and np.may_share_memory(view, base)):
                x._hostview = view  # a real view of base, which is never replaced (a reshape may copy)
        return view
    with backend_for(dev).compute_context(dev):  # MLX's slices are graph nodes: on the library's stream
        return views.follow(resolve(dev, ""), base, key)


def readonly_host(x: UnifiedArray, reason: str) -> np.ndarray:
    """x's host data, read-only, for a read or an export that must not be
    written (``x.to_numpy()``, pickle and distributed frames): a read that
    marks nothing, ``UnifiedBuffer._export_host``'s read-only view with x's
    view chain applied (a copy where NumPy cannot express the view, also
    read-only)."""
    base = x._buf._export_host(reason, writable=False)
    if x._key is None:
        return base
    view = views.follow(resolve(CPU, ""), base, x._key)
    view.flags.writeable = False  # also where the chain had to copy
    return view


def host_current(x: UnifiedArray) -> Any:
    """The host copy of a whole host-placed array, if it is current and no
    move is in flight (what a fast path may read directly); else None.
    Every fast path asks this one question."""
    buf = x._buf
    if x._key is None and buf._placement is CPU and buf._pending is None and CPU in buf._valid:
        return buf._copies[CPU]
    return None


def host_native(x: UnifiedArray) -> Any:
    """What :func:`host_current` gives, for views too: the host copy of a
    whole array, or the NumPy view a view keeps of it (see ``_hostview``),
    if x is placed on the host, current there, nothing in flight; else None
    (the operators' fast path asks the same, inlined)."""
    buf = x._buf
    if buf._placement is CPU and buf._pending is None and CPU in buf._valid:
        return buf._copies[CPU] if x._key is None else x._hostview
    return None


def writable_native(x: UnifiedArray, dev: Device, reason: str) -> Any:
    """A writable native array over x's data on ``dev`` (a lease: counted as
    a write), for consumers that may write (a raw pointer, a DLPack capsule,
    ``np.asarray``).  On the host, a view of the buffer's exported host copy
    (``UnifiedBuffer._export_host``: the buffer sees every alias derived
    from it).  Raises ``BufferError`` where a link cannot be a view of that
    memory (a reshape of a strided slice), since writes to a copy would be
    lost, and for a device while a host alias may be alive."""
    buf, chain = x._buf, x._key
    ns = resolve(dev, "")
    with buf._lock:
        if chain is None:
            return buf._lease(dev, reason)
        # Check on the current copy first, so that a refusal marks nothing.
        base = buf._copies[dev] if dev in buf._valid else buf._acquire(dev, False, reason)
        view = views.follow(ns, base, chain)
        if view.size and not _memory_overlaps(view, base, dev):
            raise BufferError(
                f"{reason}: this view's data ({chain[-1]!r} of a strided view) is not one block of "
                f"memory on {dev}; export a copy instead (copy=True)"
            )
        return views.follow(ns, buf._lease(dev, reason), chain)


def _memory_overlaps(a: Any, b: Any, dev: Device) -> bool:
    """Whether native ``a`` lies in ``b``'s memory."""
    return backend_for(dev).shares_memory(a, b)


def placement(device: DeviceLike | None) -> Device:
    """The device a call without array arguments runs on: ``device`` if
    given (checked: a clear error for a device this machine lacks), else the
    default device."""
    if device is None:
        return get_default_device()
    dev = Device.parse(device)
    backend_for(dev)
    return dev


def placement_of(arrays: Sequence[UnifiedArray], reason: str = "an operation") -> Device:
    """Where an operation on ``arrays`` runs (see :mod:`unifiedarray._policy`)."""
    dev = arrays[0]._buf._placement
    for a in arrays:
        if a._buf._placement is not dev:
            return choose_device(((a._buf._placement, a.nbytes) for a in arrays), reason)
    return dev


# -- results ---------------------------------------------------------------------------


def adopted(native: Any, dev: Device, dtype: np.dtype) -> UnifiedArray:
    """A new whole array on a new buffer that adopts ``native``, without
    checks: what :func:`wrap` ends in, and what the fast paths call."""
    arr = _new(UnifiedArray)
    buf = arr._buf = adopt(native, dev, dtype)
    arr._key = None
    arr._shape = buf._shape
    arr._hostview = None
    return arr


def wrap(native: Any, dev: Device) -> UnifiedArray:
    """A new array owning ``native`` (already on ``dev``)."""
    if dev is CPU:
        if type(native) is not np.ndarray:
            native = np.asarray(native)  # NumPy returns scalars for 0-d results
        return adopted(native, CPU, native.dtype)
    backend = backend_for(dev)
    return adopted(backend.publish(native), dev, backend.dtype_of(native))


def wrap_result(res: Any, dev: Device, inputs: Sequence[Any] = ()) -> Any:
    """Wrap whatever a backend function returned: arrays, tuples of arrays
    (named tuples keep their type), or plain Python values.  A result that
    shares memory with an input (NumPy's and CuPy's reshape, ``real`` of a
    real array) gets memory of its own: two buffers never share memory
    unseen, or a write to one would leave the other's copies stale."""
    if dev is CPU:
        tres = type(res)
        if tres is np.ndarray:
            if res.base is None:
                for inp in inputs:
                    if res is inp:
                        return adopted(res.copy(), CPU, res.dtype)
            else:
                for inp in inputs:
                    if type(inp) is np.ndarray and np.may_share_memory(res, inp):
                        return adopted(res.copy(), CPU, res.dtype)
            return adopted(res, CPU, res.dtype)
        if isinstance(res, np.generic):
            return adopted(res[...], CPU, res.dtype)  # type: ignore[index]  # a 0-d array from a NumPy scalar
    else:
        backend = backend_for(dev)
        if backend.is_native(res):
            if backend.results_alias:
                for inp in inputs:
                    if res is inp or (backend.is_native(inp) and backend.aliases(res, inp)):
                        res = backend.copy(res)
                        break
            return adopted(res, dev, backend.dtype_of(res))
    if isinstance(res, tuple):
        items = [wrap_result(r, dev, inputs) for r in res]
        return type(res)(*items) if hasattr(res, "_fields") else tuple(items)
    if isinstance(res, list):
        return [wrap_result(r, dev, inputs) for r in res]
    return res


# -- errors: the same class on every device ----------------------------------------------

#: A backend's exception (device kind, class, a pattern of its message) and the
#: class the host raises for the same call.  Checked in order; an exception no
#: row matches passes through unchanged.  The backends' namespaces raise the
#: host's classes themselves where they can (the MLX namespace checks indices,
#: pivots and axes before MLX sees them); this table is the net behind them.
ERRORS: tuple[tuple[str, type[BaseException], re.Pattern[str], type[Exception]], ...] = (
    ("mlx", RuntimeError, re.compile(r"bad_cast|out of range|too large"), OverflowError),
    ("mlx", ValueError, re.compile(r"axis .* (is )?out of bounds|Invalid axis|\[.*\] .*axis"), AxisError),
    ("mlx", RuntimeError, re.compile(r"[Ss]ingular|not positive.definite|LAPACK|lapack"), LinAlgError),
    ("mlx", RuntimeError, re.compile(r"[Ss]hape|broadcast"), ValueError),
    ("cuda", Exception, re.compile(r"[Ss]ingular|not positive.definite"), LinAlgError),
)


def translate(exc: BaseException, dev: Device, path: str) -> BaseException:
    """The exception the host raises for what ``exc`` (raised by ``dev``'s
    backend in ``path``) reports: the same class on every device."""
    if dev is CPU:
        return exc
    message = str(exc)
    for kind, cls, pattern, target in ERRORS:
        if dev.kind == kind and isinstance(exc, cls) and pattern.search(message):
            new = target(f"{path} on {dev}: {message}")
            new.__cause__ = exc
            return new
    return exc


def _reraise(exc: Exception, dev: Device, path: str) -> NoReturn:
    """Raise ``exc`` as the host's class (see :func:`translate`)."""
    new = translate(exc, dev, path)
    if new is exc:
        raise exc
    raise new from exc


# -- the general path ------------------------------------------------------------------


def _gather(obj: Any, found: list[UnifiedArray]) -> None:
    if type(obj) is UnifiedArray:
        found.append(obj)
    elif isinstance(obj, list | tuple):  # named tuples too
        for o in obj:
            if type(o) is UnifiedArray:
                found.append(o)


def _unwrap(obj: Any, dev: Device, reason: str) -> Any:
    if type(obj) is UnifiedArray:
        return native_on(obj, dev, reason)
    if isinstance(obj, list | tuple) and any(type(o) is UnifiedArray for o in obj):
        items = [native_on(o, dev, reason) if type(o) is UnifiedArray else o for o in obj]
        return items if isinstance(obj, list) else tuple(items)  # a named tuple becomes a plain one
    return obj


def call(
    path: str,
    args: tuple,
    kwargs: dict[str, Any] = _EMPTY,
    reason: str | None = None,
    device: Device | None = None,
) -> Any:
    """Run the namespace function ``path`` whose first argument must be an
    array (a ``TypeError`` naming the function otherwise)."""
    x = args[0] if args else None
    if type(x) is UnifiedArray:
        # The fast path: every array argument positional and placed where the
        # first one is (the commonest calls); call_mixed's steps, fewer checks.
        dev = x._buf._placement
        if device is None and _placed_alike(args, kwargs, dev):
            fn = _RESOLVED.get((dev, path))
            if fn is not None:
                why = reason or path
                native = native_on(x, dev, why)
                nat = (native,) if len(args) == 1 else (native, *[_unwrap(a, dev, why) for a in args[1:]])
                return _compute(fn, dev, path, nat, kwargs)
    elif not _array_sequence(x):
        traced = traced_call(call, (path, args, kwargs, reason, device))
        if traced is not NotImplemented:
            return traced
        raise TypeError(f"{path}: expected a UnifiedArray, got {type(x).__name__ if args else 'nothing'}")
    return call_mixed(path, args, kwargs, reason, device)


def traced_call(entry: Any, args: tuple) -> Any:
    """A call of the dispatch's ``entry`` with ``args`` that holds a tracer
    of :func:`unifiedarray.fuse` (an object whose class has
    ``__unifiedarray_trace__``) where an array was expected: the tracer
    records the call (and its eager answer for sample arrays, made by
    calling ``entry`` again).  ``NotImplemented`` where no argument is one,
    so the caller raises its own error.  The dispatch's error paths ask,
    and so does every namespace function that looks at its arguments before
    it reaches the dispatch (``where``, ``clip``, ``astype``), as its first
    statement: a tracer then never meets a check written for arrays."""
    for a in args:
        if type(a) in _NOT_TRACERS:
            continue
        items = a if type(a) is tuple else a.values() if type(a) is dict else (a,)
        for item in items:
            hook = getattr(type(item), "__unifiedarray_trace__", None)
            if hook is not None:
                return hook(item, entry, args)
    return NotImplemented


#: What traced_call passes over at once (the namespace functions ask it first, on every call).
_NOT_TRACERS = frozenset([UnifiedArray, bool, int, float, complex, str, type(None)])


def _placed_alike(args: tuple, kwargs: dict[str, Any], dev: Device) -> bool:
    """After the first argument: every array positional and placed on
    ``dev``, and no list or tuple (which may hold arrays)."""
    for v in args[1:]:
        tv = type(v)
        if tv is UnifiedArray:
            if v._buf._placement is not dev:
                return False
        elif tv is list or tv is tuple:
            return False
    for v in kwargs.values():
        tv = type(v)
        if tv is UnifiedArray or tv is list or tv is tuple:
            return False
    return True


def _array_sequence(obj: Any) -> bool:
    return isinstance(obj, list | tuple) and len(obj) > 0 and all(type(o) is UnifiedArray for o in obj)


def call_mixed(
    path: str,
    args: tuple,
    kwargs: dict[str, Any] = _EMPTY,
    reason: str | None = None,
    device: Device | None = None,
) -> Any:
    """Run the namespace function ``path`` on the backend where its array
    arguments live (or ``device``); wrap what it returns.

    A function the backend lacks runs on the host, its inputs and results
    moved and counted ("host fallback"); a result dtype the backend cannot
    hold stays an error that names backend, dtype and operation.
    """
    found: list[UnifiedArray] = []
    for a in args:
        _gather(a, found)
    for a in kwargs.values():
        _gather(a, found)
    reason = reason or path
    if device is None:
        if not found:
            raise TypeError(f"{path}: expected at least one UnifiedArray argument")
        device = placement_of(found, reason)
    fn = resolve(device, path)
    if fn is None:
        return _host_fallback(path, args, kwargs, device, reason)
    # The arguments' copies first: reading them may take their buffers'
    # locks, which are never taken inside a compute context (MLX's holds the
    # evaluation lock, the innermost).
    nat_args = tuple([_unwrap(a, device, reason) for a in args])
    nat_kwargs = {k: _unwrap(v, device, reason) for k, v in kwargs.items()} if kwargs else kwargs
    return _compute(fn, device, path, nat_args, nat_kwargs)


def _compute(fn: Any, dev: Device, path: str, nat_args: tuple, nat_kwargs: dict[str, Any]) -> Any:
    """``fn`` on native arguments already on ``dev``: inside its compute
    context, the backend's errors raised as the host's classes, the result
    wrapped (on the host: no context, and the host's errors are the host's)."""
    if dev is CPU:
        return wrap_result(fn(*nat_args, **nat_kwargs), CPU, nat_args)
    with backend_for(dev).compute_context(dev):
        try:
            res = fn(*nat_args, **nat_kwargs)
        except Exception as exc:
            _reraise(exc, dev, path)
        return wrap_result(res, dev, nat_args)


def _host_fallback(path: str, args: tuple, kwargs: dict, device: Device, reason: str) -> Any:
    fn = resolve(CPU, path)
    if fn is None:
        raise AttributeError(f"unifiedarray has no function {path!r}")
    why = f"host fallback: {path}"
    nat_args = tuple(_unwrap(a, CPU, why) for a in args)
    nat_kwargs = {k: _unwrap(v, CPU, why) for k, v in kwargs.items()}
    return send_back(wrap_result(fn(*nat_args, **nat_kwargs), CPU, nat_args), device, why)


def send_back(res: Any, device: Device, reason: str) -> Any:
    """A host result moved to ``device`` (counted), as an array there."""
    if device is CPU:
        return res
    if type(res) is UnifiedArray:
        return UnifiedArray._from_buffer(upload_new(res._buf._copies[CPU], device, reason, explicit=False))
    if isinstance(res, tuple):
        items = [send_back(r, device, reason) for r in res]
        return type(res)(*items) if hasattr(res, "_fields") else tuple(items)
    if isinstance(res, list):
        return [send_back(r, device, reason) for r in res]
    return res


def require_arrays(name: str, *arrays: Any) -> None:
    """A ``TypeError`` naming the function unless every one is an array."""
    for a in arrays:
        if type(a) is not UnifiedArray:
            raise TypeError(f"{name}: expected a UnifiedArray, got {type(a).__name__}")


def require_real(name: str, x: UnifiedArray) -> None:
    """A ``TypeError`` for a complex array where the standard orders values
    (``max``, ``min``, ``clip``): complex numbers have no order."""
    if x.dtype.kind == "c":
        raise TypeError(f"{name}: not defined for complex arrays ({x.dtype.name}); complex numbers have no order")


# -- elementwise -------------------------------------------------------------------------


def check_scalar(x: UnifiedArray, value: Any, op: str, reflected: bool = False) -> bool | None:
    """``x <op> value`` (``value <op> x`` when ``reflected``) for a Python
    scalar ``value``: the rules' answer (:func:`unifiedarray._rules.binary_scalar`),
    asked before any backend sees the value.  None: the backend computes it
    from the value as it is; a bool: the answer for every element (a
    comparison with an int outside x's range).  Raises the rules' errors.
    Every path of :func:`operate` (and the in-place operators) calls this,
    and nothing else in the dispatch decides a scalar's fate."""
    return _rules.binary_scalar(op, x._buf._dtype, value, reflected)


def unary(name: str, x: UnifiedArray) -> UnifiedArray:
    """An elementwise function of one array (and the unary operators)."""
    if type(x) is not UnifiedArray:
        traced = traced_call(unary, (name, x))
        if traced is not NotImplemented:
            return traced
        raise TypeError(f"{name}: expected a UnifiedArray, got {type(x).__name__}")
    if _STRICT_ACTIVE[0]:
        _rules.unary(name, x._buf._dtype)
    host = host_current(x)
    if host is not None:
        res = resolve(CPU, name)(host)
        if type(res) is np.ndarray and res is not host and res.base is None:
            return adopted(res, CPU, res.dtype)
    return call(name, (x,))


def _foreign(value: Any) -> UnifiedArray:
    """Foreign data mixed with UnifiedArrays: a CuPy or MLX array is data on
    its own device; anything else (an ndarray, a list) is host data, whatever
    the default device.  The usual mixed-device rules then move it (counted)
    only if the operation needs it.  Always a copy: the library cannot watch
    foreign memory."""
    backend = backend_of_native(value)
    if backend is not None and backend.name != "numpy":
        dev = backend.device_of(value)
        with backend.compute_context(dev):
            return wrap(backend.copy(value), dev)
    return adopted(*host_data(value, "cannot combine a UnifiedArray with"))


def host_data(value: Any, what: str) -> tuple[np.ndarray, Device, np.dtype]:
    """Foreign host data as a new host array of one of the standard's dtypes
    (data in the other byte order comes in as the same dtype in native
    order), and its placement and dtype: ``adopted``'s arguments."""
    host = np.array(value, copy=True)
    if host.dtype.kind not in "biufc":
        raise TypeError(f"{what} {type(value).__name__} of dtype {host.dtype}")
    if not host.dtype.isnative:
        host = host.astype(host.dtype.newbyteorder("="))
    return host, CPU, host.dtype


# name -> the host function, for the operators' fast path.
_HOST_FN: dict[str, Any] = {}


def operate(x: UnifiedArray, y: Any, name: str, reflected: bool = False) -> Any:
    """``x <op> y`` (or ``y <op> x``): every binary operator and binary
    elementwise function.  Returns ``NotImplemented`` for operands Python
    should offer to the other side."""
    ty = type(y)
    buf = x._buf
    if ty is UnifiedArray:
        if _STRICT_ACTIVE[0]:
            _rules.binary_arrays(name, buf._dtype, y._buf._dtype)
    elif ty in PY_SCALARS and check_scalar(x, y, name, reflected) is not None:
        return operate_general(x, y, name, reflected)  # a comparison's constant answer
    # The fast path: arrays on the host, current, nothing in flight, whole or
    # views whose native view is at hand (``A.T @ b``, ``s[:, None] - d``).
    # It is short on purpose: between two BLAS calls, every instruction of
    # the dispatch runs from cold caches and costs several times its
    # standalone time.
    if buf._placement is CPU and buf._pending is None and CPU in buf._valid:
        lhs = buf._copies[CPU] if x._key is None else x._hostview
        if lhs is None:
            rhs = None
        elif ty is UnifiedArray:
            yb = y._buf  # host_native(y), inlined: this is most of a small a + b's cost
            rhs = (
                (yb._copies[CPU] if y._key is None else y._hostview)
                if yb._placement is CPU and yb._pending is None and CPU in yb._valid
                else None
            )
        elif ty in PY_SCALARS:
            rhs = y  # the rules were asked above
        else:
            rhs = None
        if rhs is not None:
            fn = _HOST_FN.get(name)
            if fn is None:
                fn = _HOST_FN[name] = resolve(CPU, name)
            if lhs.nbytes >= ELIDE_BYTES and name in _ELIDABLE and _COUNTS_OWNED_REFERENCES:
                # A large operand that is a temporary nothing else can see
                # ((a + b) in (a + b) * c) lends its memory to the result, as
                # NumPy's own temporaries do: no new allocation to fault in.
                # The reference counts are those of the call from a dunder
                # (the interpreter's stack, the dunder's argument, ours and
                # getrefcount's); any other holder (a name, a view, a lease,
                # a weak reference, another copy) makes them higher.
                target = None
                if sys.getrefcount(x) <= 4 and sys.getrefcount(buf) <= 3 and sys.getrefcount(lhs) <= 3:
                    target = _lendable(x, lhs)
                if (
                    target is None
                    and ty is UnifiedArray
                    and sys.getrefcount(y) <= 4
                    and sys.getrefcount(y._buf) <= 2
                    and sys.getrefcount(rhs) <= 3
                ):
                    target = _lendable(y, rhs)
                if target is not None:
                    res = _into(fn, lhs, rhs, reflected, target)
                    if res is not None:
                        return adopted(res, CPU, res.dtype)
            res = fn(rhs, lhs) if reflected else fn(lhs, rhs)
            if type(res) is np.ndarray:
                return adopted(res, CPU, res.dtype)
            return wrap(res, CPU)
    elif buf._pending is None and buf._placement in buf._valid:
        # The same on a device: arrays whose copies there are current, whole
        # or views (a view's native is its chain applied to the copy: no move)
        # (the device's elementwise results never alias an input).
        dev = buf._placement
        if ty is UnifiedArray:
            yb = y._buf
            rhs = (
                (yb._copies[dev] if y._key is None else native_on(y, dev, name))
                if (yb._placement is dev and yb._pending is None and dev in yb._valid)
                else None
            )
        elif ty in PY_SCALARS:
            rhs = y  # the rules were asked above
        else:
            rhs = None
        fn = (_RESOLVED.get((dev, name)) or resolve(dev, name)) if rhs is not None else None
        if fn is not None:
            backend = backend_for(dev)
            lhs = buf._copies[dev] if x._key is None else native_on(x, dev, name)
            try:
                res = backend.run(dev, fn, rhs, lhs) if reflected else backend.run(dev, fn, lhs, rhs)
            except Exception as exc:
                _reraise(exc, dev, name)
            return adopted(res, dev, backend.dtype_of(res))
    return operate_general(x, y, name, reflected)


def operate_general(x: UnifiedArray, y: Any, name: str, reflected: bool = False) -> Any:
    """:func:`operate` without its fast paths: what they must agree with."""
    ty = type(y)
    if ty in PY_SCALARS:
        constant = check_scalar(x, y, name, reflected)
        if constant is not None:
            return call("full_like", (x, constant), {"dtype": _BOOL})
        if reflected:
            return _reflected_scalar(name, x, y)
    else:
        if ty is not UnifiedArray:
            if name == "matmul" or (backend_of_native(y) is None and not hasattr(y, "__array__")):
                return NotImplemented
            y = _foreign(y)
        _rules.binary_arrays(name, x._buf._dtype, y._buf._dtype)
    return call_mixed(name, (y, x) if reflected else (x, y), _EMPTY, name)


def _reflected_scalar(name: str, x: UnifiedArray, scalar: Any) -> Any:
    """``scalar <op> x``: the backend's function with the scalar first."""
    dev = x._buf._placement
    fn = resolve(dev, name)
    native = native_on(x, dev, name)
    with backend_for(dev).compute_context(dev):
        try:
            res = fn(scalar, native)
        except Exception as exc:
            _reraise(exc, dev, name)
        return wrap_result(res, dev, (native,))


#: Operands of at least this size may lend their memory to a result (NumPy's
#: own threshold for eliding temporaries): below it, an allocation costs less
#: than the checks.
ELIDE_BYTES = 256 * 1024

# The counts below hold where every reference on the interpreter's stack is
# owned (CPython up to 3.13).  CPython 3.14 may leave borrowed references on
# the stack, so a named array could look like a temporary: no lending there.
_COUNTS_OWNED_REFERENCES = sys.implementation.name == "cpython" and sys.version_info < (3, 14)

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
    of its host copy that may be alive (see ``UnifiedBuffer._export_host``)
    and not watched by a weak reference; else None."""
    buf = x._buf
    if x._key is None and len(buf._copies) == 1 and not buf._host_aliased() and not weakref.getweakrefcount(x):
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


def binary_function(name: str, x1: Any, x2: Any) -> UnifiedArray:
    """A binary elementwise function: at least one argument is an array."""
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
    _rules.inplace_operand(name, x._buf._dtype, y)  # the cast into x, checked before anything runs
    if _inplace_on_host(x, y, name):
        return x
    res = operate(x, y, name)
    if res is NotImplemented:
        return NotImplemented
    if res.shape != x._shape:
        raise ValueError(f"in-place {name} would change the shape {x._shape} to {res.shape}")
    if res._buf._dtype != x._buf._dtype:
        _rules.inplace_result(name, x._buf._dtype, res._buf._dtype)
        res = call("astype", (res, x._buf._dtype), {"copy": False})  # NumPy's x += y: computed, then cast
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
    elif ty in PY_SCALARS:
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
    x._buf._apply_write(CPU, lambda base: fn(lhs, rhs, out=lhs), f"in-place {name}")
    return True


# -- reductions ---------------------------------------------------------------------------


def _ufunc_returns_arrays_for_ellipsis() -> bool:
    """Whether NumPy's ufuncs take ``out=...`` (NumPy 2.3 and later): "give
    an array, never a scalar"."""
    try:
        return type(np.add.reduce(np.zeros(1), out=...)) is np.ndarray
    except TypeError:
        return False


_ARRAY_OUT = _ufunc_returns_arrays_for_ellipsis()

#: The reductions that are one NumPy ufunc's ``reduce``, for their fast path.
HOST_REDUCE = {"sum": np.add.reduce, "prod": np.multiply.reduce, "max": np.maximum.reduce, "min": np.minimum.reduce}


def reduction(name: str, x: UnifiedArray, axis: Any, dtype: Any, keepdims: bool) -> UnifiedArray:
    """``sum``, ``prod``, ``max``, ``min``: on a whole current host array
    with no ``dtype=``, the ufunc's ``reduce`` itself (most of a small
    reduction's cost is NumPy's Python wrapper); otherwise the general path."""
    if type(x) is not UnifiedArray:
        traced = traced_call(reduction, (name, x, axis, dtype, keepdims))
        if traced is not NotImplemented:
            return traced
    elif name in ("max", "min"):
        require_real(name, x)
    if _STRICT_ACTIVE[0] and type(x) is UnifiedArray:
        _rules.unary(name, x._buf._dtype)
    if dtype is None and type(x) is UnifiedArray:
        native = host_current(x)
        if native is not None:
            reduce = HOST_REDUCE[name]
            if _ARRAY_OUT:
                # out=... asks for a 0-d array instead of a NumPy scalar.
                if keepdims is False:
                    res = reduce(native, axis, out=...)
                else:
                    res = reduce(native, axis, None, out=..., keepdims=keepdims)
            else:
                res = reduce(native, axis, None, None, keepdims)  # type: ignore[call-overload]
                if type(res) is not np.ndarray:
                    res = res[...]
            return adopted(res, CPU, res.dtype)
    if dtype is None:
        return call(name, (x,), {"axis": axis, "keepdims": keepdims})
    return call(name, (x,), {"axis": axis, "dtype": dtype, "keepdims": keepdims})


# -- indexing and writes ---------------------------------------------------------------------


def getitem(x: UnifiedArray, key: Any) -> UnifiedArray:
    """``x[key]``: a view for basic indices (sharing x's buffer), a new 0-d
    array for an integer per axis, a new array for advanced indices."""
    buf = x._buf
    if x._key is None and buf._placement is CPU and CPU in buf._valid and buf._pending is None:
        # The commonest indices of a whole host array: a slice or an integer
        # of the first axis (a view; a trailing Ellipsis keeps NumPy from
        # giving a scalar), or an integer for every axis (an element).
        tkey = type(key)
        if tkey is slice or (tkey is tuple and index.all_slices(key)):
            # _host_view, inlined: this is most of a small slice's cost.
            native = buf._copies[CPU][key]
            out = _new(UnifiedArray)
            out._buf = buf
            out._key = (key,)
            out._shape = native.shape
            out._hostview = native
            return out
        if index.one_element(key, len(x._shape)):
            return adopted(np.asarray(buf._copies[CPU][key]), CPU, buf._dtype)
        if tkey is int:
            key = (key, Ellipsis)
            return _host_view(x, key, buf._copies[CPU][key])
    if index.is_basic_key(key):
        if index.one_element(key, len(x._shape)):
            return _element(x, key)
        return _view(x, key)
    if type(key) is UnifiedArray:
        # A boolean mask or an integer array, both whole and current on the
        # host: NumPy's advanced indexing directly.
        host, picked = host_current(x), host_current(key)
        if host is not None and picked is not None:
            return wrap_result(host[picked], CPU, (host,))
    return call_mixed("getitem", (x, _key_arrays(key)), reason="UnifiedArray.__getitem__")


def _key_arrays(key: Any) -> Any:
    """Lists and ndarrays in an index are host arrays (as NumPy reads them)."""
    if isinstance(key, list | np.ndarray):
        return _foreign(index.sequence_array(key) if type(key) is list else key)
    if type(key) is tuple:
        return tuple(
            _foreign(index.sequence_array(k) if type(k) is list else k) if isinstance(k, list | np.ndarray) else k
            for k in key
        )
    return key


def _host_view(x: UnifiedArray, key: Any, native: np.ndarray) -> UnifiedArray:
    out = _new(UnifiedArray)
    out._buf = x._buf
    out._key = (key,)
    out._shape = native.shape
    out._hostview = native
    return out


def _element(x: UnifiedArray, key: Any) -> UnifiedArray:
    """One element, selected by an integer per axis, as a new 0-d array: a
    copy, as NumPy gives (a scalar) and array-api-strict does, so that
    ``old = x[i]; x[i] = new`` keeps the old value."""
    reason = "UnifiedArray.__getitem__"
    if x._buf._placement is CPU:
        host = native_on(x, CPU, reason)
        return adopted(np.asarray(host[key]), CPU, host.dtype)
    index.normalise(x._shape, key)  # NumPy's IndexError, at the call: some backends check nothing
    return call("getitem", (x, key), reason=reason)


def _view(x: UnifiedArray, key: Any) -> UnifiedArray:
    key = index.view_key(key)
    buf = x._buf
    out = _new(UnifiedArray)
    out._buf = buf
    parent = x._key
    out._key = (key,) if parent is None else (*parent, key)
    base = buf._copies.get(CPU) if parent is None else x._hostview
    if buf._placement is CPU and buf._pending is None and CPU in buf._valid and base is not None:
        # A current host copy: the native view now (taking a view reads nothing).
        view = base[key]
        out._hostview = view
        out._shape = view.shape
    else:
        out._hostview = None
        out._shape = index.basic_shape(x._shape, key)
    return out


def linked_view(x: UnifiedArray, link: Any, shape: tuple[int, ...]) -> UnifiedArray:
    """A view of ``x`` through ``link`` (a :class:`~unifiedarray._views.Reshape`
    or :class:`~unifiedarray._views.Permute`): it shares x's buffer, so
    writes through either are seen by both, on every backend."""
    buf = x._buf
    out = _new(UnifiedArray)
    out._buf = buf
    out._key = (link,) if x._key is None else (*x._key, link)
    out._shape = shape
    out._hostview = None
    if buf._placement is CPU and buf._pending is None and CPU in buf._valid:
        # The NumPy view of a current host copy, made now, so that the
        # operators' fast path can take ``A.T @ b`` and ``X - m.reshape(1, -1)``:
        # a transpose always is a real view, a reshape of C-ordered memory
        # too (any other reshape is made at its first read, and kept if
        # NumPy made it a view).
        parent = buf._copies[CPU] if x._key is None else x._hostview
        if parent is not None:
            if type(link) is views.Permute:
                out._hostview = parent.transpose(link.axes)
            elif parent.flags.c_contiguous:  # a reshape of C-ordered memory is always a view
                out._hostview = parent.reshape(link.shape)
    return out


def setitem(x: UnifiedArray, key: Any, value: Any) -> None:
    """``x[key] = value``, through the buffer on x's device."""
    dev = x._buf._placement
    reason = "UnifiedArray.__setitem__"
    if type(value) is not UnifiedArray:
        if value is None or isinstance(value, PY_SCALARS):
            value = _rules.store(x._buf._dtype, value, "__setitem__")  # converted: every backend stores it exactly
        else:
            value = _foreign(value)
    if type(value) is UnifiedArray and value._buf._dtype != x._buf._dtype:
        value = cast_value(value, x._buf._dtype, "__setitem__")
    key = _key_arrays(key)
    if type(key) is UnifiedArray:
        key = native_on(key, dev, reason)
    elif type(key) is tuple:
        key = tuple(native_on(k, dev, reason) if type(k) is UnifiedArray else k for k in key)
    write(x, key, value, reason)


def cast_value(value: UnifiedArray, dtype: np.dtype, op: str, casting: str = "unsafe") -> UnifiedArray:
    """``value`` as ``dtype``, to be written into an array of that dtype:
    the rules decide (:func:`unifiedarray._rules.cast_into`: NumPy's cast
    for ``casting``, strict mode's refusal), the cast runs where value
    lives (a complex value into a real array keeps its real part, as NumPy
    does, with its warning)."""
    if _rules.cast_into(value._buf._dtype, dtype, op, casting):
        value = call("real", (value,))
    return call("astype", (value, dtype), {"copy": False})


def scalar_array(value: Any, dtype: np.dtype, dev: Device) -> UnifiedArray:
    """A 0-d array of ``dtype`` on ``dev`` holding ``value`` (a scalar the
    rules have converted to ``dtype``)."""
    return call_mixed("asarray", (value,), {"dtype": dtype}, device=dev)


def write(x: UnifiedArray, key: Any, value: Any, reason: str) -> None:
    """Write ``value`` (an array, a native of x's device, or a scalar) at
    ``key`` (native indices) of x, through the buffer: the written copy
    becomes the only valid one, and the write is seen through every view."""
    buf = x._buf
    dev = buf._placement
    backend = backend_for(dev)
    if type(value) is UnifiedArray:
        value = native_on(value, dev, reason)  # before any lock of x's: value may be a view of x
    ns = resolve(dev, "")
    chain = x._key

    def apply(base: Any) -> None:
        try:
            if chain is None:
                ns.setitem(base, key, value)
            elif dev.kind != "mlx" and views.real_views(chain):
                ns.setitem(views.follow(ns, base, chain), key, value)  # a real view: writes reach the copy
            else:
                views.write_chain(ns, base, chain, key, value, backend.aliases)
        except Exception as exc:
            _reraise(exc, dev, "__setitem__")

    if dev.kind == "mlx":
        buf._apply_write(dev, apply, reason)  # on the library's stream, inside the buffer's lock
    else:
        with backend.compute_context(dev):
            buf._apply_write(dev, apply, reason)


# -- views and moves ---------------------------------------------------------------------


def _new_shape(old: tuple[int, ...], shape: Any) -> tuple[int, ...]:
    """``shape`` checked against ``old``'s size, a single -1 inferred."""
    if isinstance(shape, int | np.integer):
        shape = (shape,)
    if type(shape) is tuple and all(type(d) is int for d in shape):
        dims = shape
    else:
        try:
            dims = tuple(int(operator.index(d)) for d in shape)
        except TypeError:
            raise TypeError(f"reshape: shape must be an int or a tuple of ints, not {shape!r}") from None
    size = math.prod(old)
    if dims.count(-1) > 1 or any(d < -1 for d in dims):
        raise ValueError(f"reshape: invalid shape {dims}")
    if -1 in dims:
        known = math.prod(d for d in dims if d != -1)
        if known == 0 or size % known:
            raise ValueError(f"reshape: cannot reshape an array of size {size} into shape {dims}")
        dims = tuple(size // known if d == -1 else d for d in dims)
    if math.prod(dims) != size:
        raise ValueError(f"reshape: cannot reshape an array of size {size} into shape {dims}")
    return dims


def reshaped(x: UnifiedArray, shape: Any) -> UnifiedArray:
    """``x`` with a new shape: a view sharing x's buffer (no data copied)."""
    if type(x) is not UnifiedArray:
        raise TypeError(f"reshape: expected a UnifiedArray, got {type(x).__name__}")
    dims = _new_shape(x._shape, shape)
    return linked_view(x, views.Reshape(dims), dims)


def permuted(x: UnifiedArray, axes: Any) -> UnifiedArray:
    """``x`` with its axes permuted: a view sharing x's buffer."""
    if type(x) is not UnifiedArray:
        raise TypeError(f"permute_dims: expected a UnifiedArray, got {type(x).__name__}")
    n = x.ndim
    try:
        norm = tuple(int(operator.index(a)) for a in axes)
    except TypeError:
        raise TypeError(f"permute_dims: axes must be a tuple of ints, not {axes!r}") from None
    for a in norm:
        if not -n <= a < n:
            raise AxisError(f"permute_dims: axis {a} is out of bounds for an array of {n} dimensions")
    norm = tuple(a + n if a < 0 else a for a in norm)
    if sorted(norm) != list(range(n)):
        raise ValueError(f"permute_dims: axes {tuple(axes)} are not a permutation of the {n} axes")
    return linked_view(x, views.Permute(norm), tuple(x._shape[a] for a in norm))


def to_device(x: UnifiedArray, dev: Device) -> UnifiedArray:
    """A copy of ``x`` on ``dev`` (``x`` itself if it is there): an explicit
    move, through the host (where every backend meets every other)."""
    buf = x._buf
    if dev is buf._placement:
        return x
    backend_for(dev).check_dtype(x.dtype, dev, "to_device")
    if CPU not in buf._valid:
        buf._acquire(CPU, False, "to_device", explicit=True)
    host = native_on(x, CPU, "to_device")
    if dev is CPU:
        return adopted(np.array(host, order="C", copy=True), CPU, host.dtype)
    return UnifiedArray._from_buffer(upload_new(host, dev, "to_device", explicit=True))
