"""The call path: a namespace function run where its arrays live.

:func:`call` (the first argument an array: the commonest calls, with a
fast path) and :func:`call_mixed` (the general path) run a compute
function on the device of the call's arrays, on their current data, in
the device's compute context; the result is wrapped (:mod:`unifiedarray._results`),
a backend's error raised as the host's class (:mod:`unifiedarray._errors`).
A function the backend lacks runs on the host, its moves counted
(:func:`_host_fallback`).

Example
-------
>>> import unifiedarray as xp
>>> from unifiedarray._calls import call
>>> float(call("sum", (xp.asarray([1.0, 2.0]),)))
3.0
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _rules
from ._access import native_on
from ._array import UnifiedArray
from ._devices import CPU, Device
from ._errors import run_translated
from ._placement import placement
from ._resolve import RESOLVED, resolve
from ._results import send_back, wrap_result
from .backends import backend_for

__all__ = [
    "NO_KWARGS",
    "call",
    "call_mixed",
    "require_arrays",
    "require_real",
    "scalar_array",
    "traced_call",
]

NO_KWARGS: dict[str, Any] = {}  # the calls' default keywords: never written

_STRICT_ACTIVE = _rules.ACTIVE  # whether any thread is strict (then strict_call asks which)

# A constant: ``list | tuple`` in isinstance builds a new union at every call.
_SEQUENCES = (list, tuple)


def _gather(obj: Any, found: list[UnifiedArray]) -> None:
    if type(obj) is UnifiedArray:
        found.append(obj)
    elif isinstance(obj, _SEQUENCES):  # named tuples too
        for o in obj:
            if type(o) is UnifiedArray:
                found.append(o)


def _unwrap(obj: Any, dev: Device, reason: str) -> Any:
    if type(obj) is UnifiedArray:
        return native_on(obj, dev, reason)
    if isinstance(obj, _SEQUENCES) and any(type(o) is UnifiedArray for o in obj):
        items = [native_on(o, dev, reason) if type(o) is UnifiedArray else o for o in obj]
        return items if isinstance(obj, list) else tuple(items)  # a named tuple becomes a plain one
    return obj


def call(
    path: str,
    args: tuple,
    kwargs: dict[str, Any] = NO_KWARGS,
    reason: str | None = None,
    device: Device | None = None,
) -> Any:
    """Run the namespace function ``path`` whose first argument must be an
    array (a ``TypeError`` naming the function otherwise)."""
    if _STRICT_ACTIVE[0]:
        _rules.strict_call(path, args)  # the standard's categories, before any backend
    x = args[0] if args else None
    if type(x) is UnifiedArray:
        # The fast path: every array argument positional and placed where the
        # first one is (the commonest calls); call_mixed's steps, fewer checks.
        dev = x.device
        if device is None and _placed_alike(args, kwargs, dev):
            fn = RESOLVED.get((dev, path))
            if fn is not None:
                why = reason or path
                native = native_on(x, dev, why)
                nat = (native,) if len(args) == 1 else (native, *[_unwrap(a, dev, why) for a in args[1:]])
                return _compute(fn, dev, path, nat, kwargs)
    elif not _array_sequence(x):
        traced = traced_call(call, (path, args, kwargs, reason, device))
        if traced is not NotImplemented:
            return traced
        raise TypeError(_not_an_array(path, x) if args else f"{path}: expected a UnifiedArray, got nothing")
    return call_mixed(path, args, kwargs, reason, device)


def _not_an_array(path: str, x: Any) -> str:
    """What a call whose first argument is not an array (nor a sequence of
    arrays) got: the sequence's first element that is not an array
    (``concat([x, ndarray])``), else the argument itself."""
    if isinstance(x, _SEQUENCES) and x:
        for i, o in enumerate(x):
            if type(o) is not UnifiedArray:
                t = type(o)
                name = t.__name__ if t.__module__ == "builtins" else f"{t.__module__.split('.')[0]}.{t.__name__}"
                return (
                    f"{path}: expected a sequence of UnifiedArrays, got a {name} at position {i} "
                    f"(take it in with unifiedarray.asarray first)"
                )
    return f"{path}: expected a UnifiedArray, got {type(x).__name__}"


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
            if v.device is not dev:
                return False
        elif tv is list or tv is tuple:
            return False
    for v in kwargs.values():
        tv = type(v)
        if tv is UnifiedArray or tv is list or tv is tuple:
            return False
    return True


def _array_sequence(obj: Any) -> bool:
    return isinstance(obj, _SEQUENCES) and len(obj) > 0 and all(type(o) is UnifiedArray for o in obj)


def call_mixed(
    path: str,
    args: tuple,
    kwargs: dict[str, Any] = NO_KWARGS,
    reason: str | None = None,
    device: Device | None = None,
) -> Any:
    """Run the namespace function ``path`` on the backend where its array
    arguments live (or ``device``); wrap what it returns.

    A function the backend lacks runs on the host, its inputs and results
    moved and counted ("host fallback"); a result dtype the backend cannot
    hold stays an error that names backend, dtype and operation.
    """
    if _STRICT_ACTIVE[0]:
        _rules.strict_call(path, args)  # (asked again for a call() that got here: strict mode only)
    found: list[UnifiedArray] = []
    for a in args:
        _gather(a, found)
    for a in kwargs.values():
        _gather(a, found)
    reason = reason or path
    if device is None:
        if not found:
            raise TypeError(f"{path}: expected at least one UnifiedArray argument")
        device = placement(None, found, reason)
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
        return wrap_result(run_translated(dev, path, fn, nat_args, nat_kwargs), dev, nat_args)


def _host_fallback(path: str, args: tuple, kwargs: dict, device: Device, reason: str) -> Any:
    fn = resolve(CPU, path)
    if fn is None:
        raise AttributeError(f"unifiedarray has no function {path!r}")
    why = f"host fallback: {path}"
    nat_args = tuple(_unwrap(a, CPU, why) for a in args)
    nat_kwargs = {k: _unwrap(v, CPU, why) for k, v in kwargs.items()}
    return send_back(wrap_result(fn(*nat_args, **nat_kwargs), CPU, nat_args), device, why)


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


def scalar_array(value: Any, dtype: np.dtype, dev: Device) -> UnifiedArray:
    """A 0-d array of ``dtype`` on ``dev`` holding ``value`` (a scalar the
    rules have converted to ``dtype``)."""
    return call_mixed("asarray", (value,), {"dtype": dtype}, device=dev)
