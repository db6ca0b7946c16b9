"""NumPy's protocols: ``__array_ufunc__`` and ``__array_function__``.

NumPy functions run through the one dispatch on the device where the
array lives: NumPy on the host, CuPy on CUDA, and elsewhere (MLX) by the
function's row of the route table (:mod:`unifiedarray._routes`): the
standard's function of the same meaning (NumPy's arguments mapped onto the
standard's signature), a composition of namespace functions, a view of the
buffer, an answer from metadata, or the backend's namesake.  A row that
says "host", or a call form a composition does not cover, runs on the
host, its moves counted, and its results are sent back.  ``out=`` is a
tracked write.  An ``np.ndarray`` mixed with UnifiedArrays is taken as
host data.

Example
-------
>>> import numpy as np
>>> import unifiedarray as xp
>>> np.sum(xp.ones(3)).device
Device('cpu')
"""

from __future__ import annotations

import contextlib
import inspect
import operator
from typing import Any

import numpy as np

from . import _rules
from ._access import host_native, native_on, writable_native
from ._array import UnifiedArray
from ._devices import CPU, Device
from ._intake import intake, intake_host
from ._namespace import namespace
from ._pickling import _rebuild  # noqa: F401  # older pickles name unifiedarray._interop._rebuild
from ._placement import placement
from ._results import adopt, send_back, wrap_result
from ._routes import LOOP_CAST, OUT_CASTING, ROUTES, Route
from ._writes import cast_value, write
from .backends import backend_for, on_change

__all__ = ["array_function", "array_ufunc", "numpy_call", "numpy_name", "routed_for_tracing", "translated"]

# NumPy's parameter names that the standard spells otherwise.
_RENAMES = {"a_min": "min", "a_max": "max", "ddof": "correction", "tup": "arrays", "reps": "repetitions"}

# A constant: ``list | tuple`` in isinstance builds a new union at every call.
_SEQUENCES = (list, tuple)


def numpy_name(func: Any) -> str:
    """The name a NumPy function is known by here (``"dot"``,
    ``"linalg.solve"``), worked out once per function."""
    try:
        return _NUMPY_NAMES[func]
    except (KeyError, TypeError):  # TypeError: an unhashable callable, named each time
        pass
    mod = getattr(func, "__module__", "") or ""
    name = getattr(func, "__name__", "")
    for sub in ("linalg", "fft"):
        if mod.endswith(sub) or mod.endswith(f"{sub}._linalg") or f".{sub}" in mod:
            name = f"{sub}.{name}"
            break
    with contextlib.suppress(TypeError):
        _NUMPY_NAMES[func] = name
    return name


_NUMPY_NAMES: dict[Any, str] = {}


def _intake_ndarrays(obj: Any) -> Any:
    """ndarrays among the arguments are host data: each taken in (a copy,
    :func:`unifiedarray._intake.intake_host`)."""
    if type(obj) is np.ndarray and obj.dtype.kind in "biufc":
        return intake_host(obj, "NumPy data")
    if isinstance(obj, _SEQUENCES):
        return type(obj)(_intake_ndarrays(o) for o in obj)
    if isinstance(obj, dict):
        return {k: _intake_ndarrays(v) for k, v in obj.items()}
    return obj


def _leaves(obj: Any, keep: Any, out: list) -> None:
    """Append to ``out`` the leaves of nested lists, tuples and dicts for
    which ``keep(leaf)`` is true."""
    if isinstance(obj, _SEQUENCES):
        for o in obj:
            _leaves(o, keep, out)
    elif isinstance(obj, dict):
        for o in obj.values():
            _leaves(o, keep, out)
    elif keep(obj):
        out.append(obj)


def _natives(obj: Any, dev: Device, reason: str) -> Any:
    if type(obj) is UnifiedArray:
        native = native_on(obj, dev, reason)
        if dev is CPU:
            # Read-only: a NumPy function that writes into an argument it was
            # not known to write (rows of kind "writes") fails loudly
            # instead of leaving the buffer's other copies stale.
            native = native.view()
            native.flags.writeable = False
        return native
    if isinstance(obj, _SEQUENCES):
        return type(obj)(_natives(o, dev, reason) for o in obj)
    if isinstance(obj, dict):
        return {k: _natives(v, dev, reason) for k, v in obj.items()}
    return obj


def _native_leaves(args: Any) -> list:
    """The native arrays among nested arguments: the inputs a result must
    not share memory with (:func:`unifiedarray._results.wrap_result`)."""
    flat: list = []
    _leaves(args, lambda o: hasattr(o, "shape"), flat)
    return flat


#: The rows of kind "writes", by name, with their writes on a device (None:
#: the host's only), derived once from the route table.
_WRITERS: dict[str, Any] = {name: route.target for name, route in ROUTES.items() if route.kind == "writes"}


def _writes_first(name: str, args: tuple, kwargs: dict) -> bool:
    """Whether the call writes into ``args[0]``: a row of kind "writes"
    (NumPy functions that write into their first argument), a ufunc's
    ``at``, or ``nan_to_num(copy=False)``.  Run on a UnifiedArray, they
    write through its buffer: any other way would leave the buffer's other
    copies stale."""
    if name in _WRITERS or name.endswith(".at"):  # ufunc.at(a, indices, b) writes into a
        return True
    if name == "nan_to_num":  # nan_to_num(x, copy=True, ...) writes into x when copy is false
        return not kwargs.get("copy", args[1] if len(args) > 1 else True)
    return False


def _run_in_place(name: str, host_call: Any, args: tuple, kwargs: dict, reason: str) -> Any:
    """Run a NumPy function that writes into ``args[0]`` on the host.  NumPy's
    own array as the target is written itself.  A host-placed UnifiedArray is
    written in place, through a lease of its host copy (a counted write:
    every other copy becomes stale); any other (on a device, or a view NumPy
    cannot express) is written on a host copy of its data, which then goes
    back through the buffer, its moves counted."""
    target = args[0]
    dev = target.device if type(target) is UnifiedArray else CPU
    why = reason if dev is CPU else f"host fallback: {reason}"
    rest, kw = _intake_ndarrays(args[1:]), _intake_ndarrays(kwargs)
    on_device = _WRITERS.get(name) if dev is not CPU else None
    if on_device is not None and on_device(namespace(), target, *rest, **kw):
        return None  # NumPy's in-place functions return None
    nat_rest, nat_kw = _natives(rest, CPU, why), _natives(kw, CPU, why)
    if type(target) is not UnifiedArray:
        return host_call(target, *nat_rest, **nat_kw)
    if dev is CPU:
        try:
            handle = writable_native(target, CPU, reason)
        except BufferError:
            pass  # a strided reshape: no host view of it to write into
        else:
            res = host_call(handle, *nat_rest, **nat_kw)
            return target if res is handle else res
    # Copied out, written and copied back as one write (under the target's
    # lock: its arguments were read first, as a lock is taken one at a time):
    # another thread's write between the copy and the copy back, to an
    # element NumPy leaves alone, would otherwise be undone.
    with target.buffer.lock:
        work = np.array(native_on(target, CPU, why), copy=True)
        res = host_call(work, *nat_rest, **nat_kw)
        write(target, Ellipsis, send_back(adopt(work, CPU, work.dtype), dev, why), why)
    return target if res is work else res


_SIGNATURES: dict[Any, inspect.Signature | None] = {}


def _signature(fn: Any) -> inspect.Signature | None:
    try:
        return _SIGNATURES[fn]
    except KeyError:
        pass
    except TypeError:  # unhashable
        return None
    try:
        sig: inspect.Signature | None = inspect.signature(fn)
    except (TypeError, ValueError):
        sig = None
    _SIGNATURES[fn] = sig
    return sig


def _pop_out(func: Any, args: tuple, kwargs: dict) -> tuple[tuple, dict, Any]:
    """``out=`` taken out of a NumPy call (given by keyword, or by position
    as ``np.clip(a, 0, 1, y)`` and ``np.vecdot(a, b, c)`` allow); the
    arguments after a positional ``out`` become keywords."""
    out = kwargs.pop("out", None)
    if out is not None or isinstance(func, np.ufunc):
        return args, kwargs, out  # ufuncs: NumPy already moved a positional out into kwargs
    position = _out_position(func)
    if position is None or len(args) <= position[0]:
        return args, kwargs, None
    i, names = position
    for j in range(i + 1, len(args)):
        kwargs[names[j]] = args[j]
    return args[:i], kwargs, args[i]


def _out_position(func: Any) -> tuple[int, tuple[str, ...]] | None:
    """Where ``func`` takes ``out`` by position, with its parameters'
    names; None where it cannot (no ``out``, an unknown signature, or
    ``out`` after ``*operands``, as einsum's).  Read once per function."""
    try:
        return _OUT_POSITIONS[func]
    except KeyError:
        pass
    except TypeError:  # unhashable: read each time
        return _read_out_position(func)
    position = _OUT_POSITIONS[func] = _read_out_position(func)
    return position


def _read_out_position(func: Any) -> tuple[int, tuple[str, ...]] | None:
    sig = _signature(func)
    if sig is None or "out" not in sig.parameters:
        return None
    names = tuple(sig.parameters)
    i = names.index("out")
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in list(sig.parameters.values())[:i]):
        return None  # out= comes after *operands (einsum): keyword only
    return i, names


_OUT_POSITIONS: dict[Any, tuple[int, tuple[str, ...]] | None] = {}


def _standard_call(path: str, func: Any, args: tuple, kwargs: dict) -> tuple[Any, tuple, dict] | None:
    """A NumPy call as the standard's function of the same meaning
    (``np.mean(x, 0)`` -> ``xp.mean(x, axis=0)``), or None where the call
    uses what the standard lacks (``where=``, ``kind=``, ...)."""
    target: Any = namespace()
    for part in path.split("."):
        target = getattr(target, part)
    if isinstance(func, np.ufunc):
        extra = set(kwargs) - {"dtype"}
        if extra or len(args) != func.nin:
            return None
        dtype = kwargs.get("dtype")
        if dtype is not None:
            cast = _ufunc_loop_inputs(func, args, np.dtype(dtype))
            if cast is None:
                return None
            args = cast
        return target, _ufunc_operands(args), {}
    np_sig, std_sig = _signature(func), _signature(target)
    if np_sig is None or std_sig is None:
        return None
    try:
        bound = np_sig.bind(*args, **kwargs)
    except TypeError:
        return None
    std_params = std_sig.parameters
    positional = [p for p in std_params.values() if p.kind is inspect.Parameter.POSITIONAL_ONLY]
    call_args: list[Any] = []
    call_kwargs: dict[str, Any] = {}
    for i, (pname, param) in enumerate(np_sig.parameters.items()):
        if pname not in bound.arguments:
            continue
        value = bound.arguments[pname]
        if param.kind is inspect.Parameter.VAR_KEYWORD:
            if value:
                return None
            continue
        if param.kind is inspect.Parameter.VAR_POSITIONAL:
            return None
        if i < len(positional):
            if i != len(call_args):
                return None
            call_args.append(value)
            continue
        if value is param.default or (param.default is None and value is None):
            continue
        std_name = _RENAMES.get(pname, pname)
        std_param = std_params.get(std_name)
        if std_param is None or std_param.kind is inspect.Parameter.POSITIONAL_ONLY:
            return None
        call_kwargs[std_name] = value
    try:
        std_sig.bind(*call_args, **call_kwargs)
    except TypeError:
        return None  # a call form the standard's function does not take
    return target, *_array_likes_taken_in(target, std_sig, call_args, call_kwargs)


def _ufunc_operands(args: tuple) -> tuple:
    """A ufunc's operands with NumPy's array-likes (lists and tuples) taken
    in as host data, as :func:`_array_likes_taken_in` takes them for the
    standard's functions (``np.matmul(A, [1.0, 2.0])``)."""
    if not any(isinstance(a, _SEQUENCES) for a in args):
        return args
    return tuple(_taken_in("array", a) for a in args)


def _array_likes_taken_in(target: Any, sig: inspect.Signature, args: list, kwargs: dict) -> tuple[tuple, dict]:
    """NumPy's argument forms, as the standard's function ``target`` takes
    them, so that the namespace never meets a list where its signature
    says array, nor an int where it says bool:

    * array-likes (lists and tuples of numbers) where it takes arrays,
      taken in as host data (:func:`unifiedarray._intake.intake`, as the
      operators take a list operand: moved where the call runs, counted):
      ``np.where(c, x, [5, 6])``, ``np.concatenate([x, [2.0]])``,
      ``np.linalg.solve(A, [1, 2])``;
    * a flag NumPy reads by its truth (``np.sum(x, keepdims=1)``) as a bool.

    Which parameters are which is read from the signature's annotations
    (:func:`_parameter_kinds`)."""
    kinds = _parameter_kinds(target, sig)
    if not kinds:
        return tuple(args), kwargs
    names = list(sig.parameters)
    out_args = [_taken_in(kinds.get(names[i]) if i < len(names) else None, v) for i, v in enumerate(args)]
    out_kwargs = {k: _taken_in(kinds.get(k), v) for k, v in kwargs.items()}
    return tuple(out_args), out_kwargs


def _taken_in(kind: str | None, value: Any) -> Any:
    if kind is None:
        return value
    if kind == "bool":
        return numpy_flag(value)
    if kind == "array":
        return intake(value) if isinstance(value, _SEQUENCES) else value
    # "arrays": a sequence of arrays (concat's, stack's)
    if isinstance(value, _SEQUENCES) and any(isinstance(v, _SEQUENCES) for v in value):
        return type(value)(intake(v) if isinstance(v, _SEQUENCES) else v for v in value)
    return value


def numpy_flag(value: Any) -> Any:
    """A flag (``keepdims``) as NumPy's reductions read it: an integer
    (``1``, ``np.int64(0)``, a 0-d integer array) as the bool it means;
    anything else as it is, for the function to judge."""
    if type(value) is bool:
        return value
    try:
        return bool(operator.index(value))
    except TypeError:
        return value


def _parameter_kinds(target: Any, sig: inspect.Signature) -> dict[str, str]:
    """The parameters of a namespace function that NumPy's callers may give
    in NumPy's forms, by the function's annotations: ``"array"`` (one
    array, maybe or a scalar: ``x2: UnifiedArray | complex``), ``"arrays"``
    (a sequence of them: ``arrays: tuple[UnifiedArray, ...] |
    list[UnifiedArray]``) and ``"bool"`` (a flag: ``keepdims: bool``).
    Read once per function."""
    try:
        return _PARAMETER_KINDS[target]
    except KeyError:
        pass
    kinds: dict[str, str] = {}
    for name, param in sig.parameters.items():
        text = str(param.annotation)
        if param.kind is inspect.Parameter.VAR_POSITIONAL:
            continue  # (*arrays: meshgrid's, broadcast_arrays': NumPy's wrappers pass them as they are)
        if text == "bool":
            kinds[name] = "bool"
        elif "UnifiedArray" in text:
            kinds[name] = "arrays" if ("tuple[UnifiedArray" in text or "list[UnifiedArray" in text) else "array"
    _PARAMETER_KINDS[target] = kinds
    return kinds


_PARAMETER_KINDS: dict[Any, dict[str, str]] = {}


def _check_ufunc_types(func: np.ufunc, args: tuple, kwargs: dict, out: Any) -> None:
    """NumPy's ``TypeError`` for a ufunc call whose dtypes NumPy has no loop
    for (``np.bitwise_and`` of floats, a float result into an integer
    ``out=``), raised before anything runs or moves, on every device: the
    dtypes alone decide it, as they do in NumPy."""
    if len(args) != func.nin:
        return
    dtypes: list[Any] = []
    for a in args:
        if type(a) is UnifiedArray or isinstance(a, np.ndarray):
            dtypes.append(a.dtype)
        elif type(a) in (bool, int, float, complex):
            dtypes.append(type(a))  # NumPy's weak Python scalars
        else:
            return  # a list or another array type: NumPy converts it first
    outs = out if isinstance(out, tuple) else (out,) * func.nout
    dtypes.extend(getattr(o, "dtype", None) for o in outs)
    signature = kwargs.get("signature")
    if signature is None and kwargs.get("dtype") is not None:
        signature = (*(None,) * func.nin, *(np.dtype(kwargs["dtype"]),) * func.nout)
    judge: dict[str, Any] = {"casting": kwargs.get("casting", "same_kind")}
    if signature is not None:
        judge["signature"] = signature
    try:
        func.resolve_dtypes(tuple(dtypes), **judge)
    except TypeError:
        raise
    except Exception:
        return  # a form resolve_dtypes does not judge (the call itself does)


def _check_casting(func: Any, args: tuple, kwargs: dict) -> None:
    """NumPy's ``TypeError`` for a function that casts its arrays to
    ``dtype=`` under ``casting=`` (``np.concatenate``, ``np.stack``, ...)
    where the rule forbids a cast: decided from the dtypes, before anything
    runs or moves."""
    sig = _signature(func)
    if sig is None or "casting" not in sig.parameters:
        return
    dtype, casting = np.dtype(kwargs["dtype"]), kwargs.get("casting", sig.parameters["casting"].default)
    arrays: list = []
    _leaves(args, lambda o: type(o) is UnifiedArray or isinstance(o, np.ndarray), arrays)
    for a in arrays:
        if not np.can_cast(a.dtype, dtype, casting=casting):
            raise TypeError(f"Cannot cast array data from {a.dtype!r} to {dtype!r} according to the rule {casting!r}")


def _ufunc_loop_inputs(func: np.ufunc, args: tuple, dtype: np.dtype | None) -> tuple | None:
    """``ufunc(*args, dtype=dtype)``'s arguments cast to the dtypes of the
    loop NumPy chooses, as NumPy chooses it (from the dtypes alone, before
    any data is touched): NumPy's error where it has no such loop
    (``np.sin(x, dtype=np.int64)``); None for arguments whose dtype
    cannot be known without converting them."""
    dtypes: list[Any] = []
    for a in args:
        if type(a) is UnifiedArray or hasattr(type(a), "__unifiedarray_trace__"):  # an array, or fuse's tracer of one
            dtypes.append(a.dtype)
        elif type(a) in (bool, int, float, complex):
            dtypes.append(type(a))  # NumPy's weak Python scalars
        else:
            return None
    operands = (*dtypes, *(None,) * func.nout)
    if dtype is None:
        loop = func.resolve_dtypes(operands)
    else:
        loop = func.resolve_dtypes(operands, signature=(*(None,) * func.nin, *(dtype,) * func.nout))
    cast = namespace().astype
    return tuple(cast(a, loop[i]) if hasattr(a, "dtype") and a.dtype != loop[i] else a for i, a in enumerate(args))


def translated() -> dict[str, str]:
    """Every NumPy function the library runs on a device by a row of the
    route table (:data:`unifiedarray._routes.ROUTES`), by NumPy name
    (``"linalg.norm"``), with the row's kind: ``"standard"``,
    ``"compose"``, ``"view"``, ``"metadata"``, ``"namesake"`` or ``"writes"``
    (rows that say "host" are left out).  (On CUDA, CuPy's function of the
    NumPy name runs first.)

    >>> translated()["linalg.norm"], translated()["absolute"]
    ('compose', 'standard')
    """
    return {name: r.kind for name, r in ROUTES.items() if r.kind != "host"}


def _without_defaults(func: Any, kwargs: dict) -> dict:
    """The keywords of a NumPy call that differ from the function's defaults
    (NumPy's wrappers pass their own defaults on: ``vstack`` its
    ``casting='same_kind'``)."""
    sig = _signature(func)
    if sig is None:
        return kwargs
    params = sig.parameters
    return {
        k: v
        for k, v in kwargs.items()
        if k not in params or type(v) is UnifiedArray or not (v is params[k].default or v == params[k].default)
    }


def _composed_call(route: Route, name: str, func: Any, args: tuple, kwargs: dict) -> Any:
    """A composition's answer, or None for a call form it does not take
    (the host does it).  A ufunc's composition takes its arguments cast to
    the dtypes of the loop NumPy would choose, and no keywords but
    ``dtype=``."""
    if isinstance(func, np.ufunc) and name in LOOP_CAST:
        if set(kwargs) - {"dtype"} or len(args) != func.nin:
            return None
        dtype = kwargs.get("dtype")
        cast = _ufunc_loop_inputs(func, args, None if dtype is None else np.dtype(dtype))
        if cast is None:
            return None
        args, kwargs = cast, {}
    recipe = route.target
    sig = _signature(recipe)
    try:
        if sig is not None:
            sig.bind(namespace(), *args, **kwargs)
    except TypeError:
        return None  # a call form the composition does not take: the host does it
    return recipe(namespace(), *args, **kwargs)


def _native_call(name: str, args: tuple, kwargs: dict, dev: Device, reason: str) -> Any:
    """``einsum`` and its kind: the backend's own function, on its copies."""
    if kwargs or not args or not isinstance(args[0], str):
        return None  # einsum's interleaved form (operand, sublist, ...): the host
    if not all(a.dtype.kind in "fc" for a in args if type(a) is UnifiedArray):
        return None  # MLX's einsum contracts floating data only (its matmul's limit)
    backend = backend_for(dev)
    fn = getattr(backend.numpy_like(), name, None)
    if fn is None:
        return None
    natives = tuple(native_on(a, dev, reason) if type(a) is UnifiedArray else a for a in args)
    with backend.compute_context(dev):
        return wrap_result(fn(*natives), dev, natives)


def routed_for_tracing(name: str, func: Any, args: tuple, kwargs: dict) -> Any:
    """A NumPy call whose arguments hold tracers of :func:`unifiedarray.fuse`
    by its row of the route table (a standard function or a composition,
    whose namespace calls the tracers record); None for any other row or a
    form the row does not cover."""
    route = ROUTES.get(name)
    if route is None or route.kind not in ("standard", "compose"):
        return None
    return _routed(name, func, args, kwargs, CPU, f"numpy.{name}")


def _routed(name: str, func: Any, args: tuple, kwargs: dict, dev: Device, reason: str) -> Any:
    """The call by its row of the route table on a device NumPy's own
    functions cannot run on; None where the row says "host" (or the call's
    form is one the row does not cover)."""
    route = ROUTES.get(name)
    if route is None:
        return None  # a function newer than the table: the host, counted
    kind = route.kind
    if kind == "standard":
        standard = _standard_call(route.target, func, args, kwargs)
        if standard is None:
            return None
        target, std_args, std_kwargs = standard
        return target(*std_args, **std_kwargs)
    if "keepdims" in kwargs:
        kwargs = {**kwargs, "keepdims": numpy_flag(kwargs["keepdims"])}  # np.nansum(x, keepdims=1)
    if kind == "compose":
        return _composed_call(route, name, func, args, _without_defaults(func, kwargs))
    if kind == "namesake":
        return _native_call(name, args, _without_defaults(func, kwargs), dev, reason)
    return None


def numpy_call(name: str, func: Any, args: tuple, kwargs: dict, reason: str) -> Any:
    """Run a NumPy-level call where its UnifiedArray arguments live."""
    if _rules.ACTIVE[0] and _rules.is_strict():
        _strict_numpy_call(name, args)
    if (
        args
        and (type(args[0]) is UnifiedArray or isinstance(args[0], np.ndarray))
        and _writes_first(name, args, kwargs)
    ):
        return _run_in_place(name, func, args, kwargs, reason)
    args, kwargs, out = _pop_out(func, args, kwargs)
    host_args = None if out is not None else _host_natives(args, kwargs)
    if host_args is not None:
        # Every array argument current on the host: what the general path
        # below comes to for them (NumPy's call on read-only views of the
        # host copies), without its questions, whose answers are known
        # (nothing to take in, move, place, cast or write into; NumPy raises
        # its own errors).
        return wrap_result(func(*host_args, **kwargs), CPU, host_args)
    if isinstance(func, np.ufunc):
        _check_ufunc_types(func, args, kwargs, out)
    elif kwargs.get("dtype") is not None:
        _check_casting(func, args, kwargs)
    if out is not None and kwargs.get("where") is not None:
        return _masked_into(func, args, kwargs, out, reason)
    args, kwargs = _intake_ndarrays(args), _intake_ndarrays(kwargs)
    found: list[UnifiedArray] = []
    _leaves((args, kwargs), lambda o: type(o) is UnifiedArray, found)
    dev = placement(None, found, reason) if found else CPU  # NumPy's own calls run on the host
    result: Any = None
    if dev is not CPU and backend_for(dev).numpy_compatible:
        result = _run_numpy_like(name, func, args, kwargs, dev, reason)
    if result is None and dev is not CPU:
        result = _routed(name, func, args, kwargs, dev, reason)
    if result is None:
        why = reason if dev is CPU else f"host fallback: numpy.{name}"
        nat_args, nat_kwargs = _natives(args, CPU, why), _natives(kwargs, CPU, why)
        result = wrap_result(func(*nat_args, **nat_kwargs), CPU, _native_leaves((nat_args, nat_kwargs)))
        result = send_back(result, dev, why)
    if out is None:
        return result
    casting = kwargs.get("casting") or OUT_CASTING.get(name, "same_kind")
    if casting in ("exact", "index"):
        _check_out(name, out, result, casting)
        casting = "unsafe"
    return _into(out, result, reason, casting)


def _strict_numpy_call(name: str, args: tuple) -> None:
    """Strict mode for a NumPy function whose row is the standard's
    function: that function's categories and promotion
    (:func:`unifiedarray._rules.strict_call`, the elementwise ones' for a
    ufunc), on every device (on the host NumPy itself would answer)."""
    route = ROUTES.get(name)
    if route is None or route.kind != "standard":
        return
    path = route.target
    dtypes = [a.dtype for a in args if type(a) is UnifiedArray]
    if path in _rules.CATEGORIES and len(dtypes) == len(args):
        if len(dtypes) == 1:
            _rules.unary(path, dtypes[0])
        elif len(dtypes) == 2:
            _rules.binary_arrays(path, dtypes[0], dtypes[1])
    _rules.strict_call(path, args)


# What a NumPy call's plain arguments may be for its host fast path (not
# arrays, not containers that may hold them), and the keywords that need the
# general path (a target to write, a mask, a cast to judge).
_PLAIN = frozenset({int, float, bool, complex, str, type(None)})
_GENERAL_KEYWORDS = frozenset({"out", "where", "dtype", "casting", "signature"})


def _host_natives(args: tuple, kwargs: dict, read_only: bool = True) -> list[Any] | None:
    """``args`` with each UnifiedArray replaced by its host copy, where
    every one is current on the host with nothing in flight (the operators'
    fast path's test) and the rest are plain values (numbers, strings,
    None, tuples of them), and no keyword needs the general path; None
    otherwise.  Read-only views of the copies, as :func:`_natives` gives,
    unless the caller knows the function writes into no argument (a ufunc's
    call without ``out=``)."""
    if not _GENERAL_KEYWORDS.isdisjoint(kwargs):
        return None
    natives: list[Any] = []
    for a in args:
        if type(a) is UnifiedArray:
            host = host_native(a)
            if host is None:
                return None
            if read_only:
                host = host.view()
                host.flags.writeable = False
            natives.append(host)
        elif _plain(a):
            natives.append(a)
        else:
            return None
    if not all(map(_plain, kwargs.values())):
        return None
    return natives


def _plain(value: Any) -> bool:
    """Whether ``value`` is a plain argument: a number, a string, None, or a
    tuple of them (never an array, never a container that may hold one)."""
    t = type(value)
    return t in _PLAIN or (t is tuple and _PLAIN.issuperset(map(type, value)))


# The keywords a CuPy ufunc takes besides out= (NumPy's where=, order=,
# subok=, signature= it does not).
_CUPY_UFUNC_KEYWORDS = frozenset({"dtype", "casting"})


def _run_numpy_like(name: str, func: Any, args: tuple, kwargs: dict, dev: Device, reason: str) -> Any:
    """The function of the NumPy name in the backend's NumPy-compatible
    module (CuPy's), or None (the host does it) where it lacks it, its
    signature does not take the call, or it refuses the arguments' values.
    The signature is read before anything runs.  A ``TypeError`` CuPy raises
    then (a dtype the function does not take) is the call's error, as
    NumPy's is on the host, and no data moves for it.  A ``ValueError`` or
    ``IndexError`` hands the call to NumPy, which is the reference for its
    own functions: CuPy refuses some values NumPy takes (``median`` over an
    empty axis: CuPy's partition raises, NumPy answers NaN), so the host
    answers, a counted host fallback, or raises NumPy's own error."""
    backend = backend_for(dev)
    fn: Any = backend.numpy_like()
    for part in name.split("."):
        fn = getattr(fn, part, None)
        if fn is None:
            return None
    if isinstance(func, np.ufunc):
        if not _CUPY_UFUNC_KEYWORDS.issuperset(kwargs):
            return None
        args = _ufunc_operands(args)  # CuPy's ufuncs take no lists
    else:
        sig = _signature(fn)
        if sig is None:
            if kwargs:
                return None  # a compiled function whose keywords cannot be known
        else:
            try:
                sig.bind(*args, **kwargs)
            except TypeError:
                return None  # NumPy-only keywords (where=, initial=, ...)
    nat_args, nat_kwargs = _natives(args, dev, reason), _natives(kwargs, dev, reason)
    with backend.compute_context(dev):
        try:
            return wrap_result(fn(*nat_args, **nat_kwargs), dev, _native_leaves((nat_args, nat_kwargs)))
        except (NotImplementedError, ValueError, IndexError):
            return None  # an argument value CuPy has not implemented or refuses: NumPy decides
        except TypeError:
            if _holds_numbers(args, kwargs):
                return None  # NumPy's array-likes CuPy refuses (lists of numbers): the route takes them in
            raise


def _check_out(name: str, out: Any, result: Any, casting: str) -> None:
    """NumPy's error for an ``out=`` its function refuses
    (:data:`unifiedarray._routes.OUT_CASTING`): ``"exact"``, another dtype
    than the result's (``np.dot``'s ``ValueError``); ``"index"``, a dtype
    that does not cast safely to the indices' (``np.argmax``'s
    ``TypeError``)."""
    if type(out) is not UnifiedArray or type(result) is not UnifiedArray or out.dtype == result.dtype:
        return
    if casting == "exact":
        raise ValueError(
            f"numpy.{name} out=: output array is not acceptable (must have the right datatype, "
            f"{result.dtype.name}, not {out.dtype.name})"
        )
    if not np.can_cast(out.dtype, result.dtype, "safe"):
        raise TypeError(
            f"numpy.{name} out=: cannot cast array data from {out.dtype.name} to {result.dtype.name} "
            f"according to the rule 'safe'"
        )


def _holds_numbers(args: tuple, kwargs: dict) -> bool:
    """Whether a list or tuple among the arguments holds a number (an
    array-like, not only a sequence of arrays)."""
    found: list = []
    for v in (*args, *kwargs.values()):
        if isinstance(v, _SEQUENCES):
            _leaves(v, lambda o: type(o) in _PLAIN and o is not None and type(o) is not str, found)
    return bool(found)


def _into(out: Any, result: Any, reason: str, casting: str = "same_kind") -> Any:
    """Write ``result`` into ``out`` (a tracked write for UnifiedArrays),
    cast under the call's ``casting=`` as the rules say."""
    outs = out if isinstance(out, tuple) else (out,)
    results = result if isinstance(result, tuple) else (result,)
    for o, r in zip(outs, results, strict=False):
        if type(o) is UnifiedArray:
            if type(r) is UnifiedArray and r.dtype != o.dtype:
                r = cast_value(r, o.dtype, f"{reason} out=", casting)
            write(o, Ellipsis, r, reason)
        elif o is not None:
            np.copyto(o, np.asarray(r), casting=casting)  # type: ignore[arg-type]
    return out if isinstance(out, tuple) and len(outs) > 1 else outs[0]


def _masked_into(func: Any, args: tuple, kwargs: dict, out: Any, reason: str) -> Any:
    """``out=`` with ``where=``: the elements where the mask is false keep
    out's values, so NumPy writes into a host copy of out, which goes back
    through the buffer (its moves counted)."""
    outs = out if isinstance(out, tuple) else (out,)
    nat_args, nat_kwargs = (
        _natives(_intake_ndarrays(args), CPU, reason),
        _natives(_intake_ndarrays(kwargs), CPU, reason),
    )
    targets = [o for o in outs if type(o) is UnifiedArray]
    # One out (the commonest): copied out, written and copied back under its
    # lock, the arguments read first (see _run_in_place).  Several are never
    # locked together (one buffer's lock at a time).
    with targets[0].buffer.lock if len(targets) == 1 else contextlib.nullcontext():
        works = tuple(np.array(native_on(o, CPU, reason), copy=True) if type(o) is UnifiedArray else o for o in outs)
        func(*nat_args, out=works if isinstance(func, np.ufunc) else works[0], **nat_kwargs)
        for o, w in zip(outs, works, strict=True):
            if type(o) is UnifiedArray:
                write(o, Ellipsis, send_back(adopt(w, CPU, w.dtype), o.device, reason), reason)
    return out if len(outs) > 1 else outs[0]  # a ufunc's out= comes as a tuple


def array_ufunc(ufunc: Any, method: str, inputs: tuple, kwargs: dict) -> Any:
    """``__array_ufunc__``: a ufunc call (or its ``reduce``, ``at``, ...)."""
    if method == "__call__":
        if _rules.ACTIVE[0] and _rules.is_strict():
            _strict_numpy_call(ufunc.__name__, inputs)  # before the host's fast path: every device alike
        if not kwargs:
            key = _ufunc_signature(ufunc, inputs)
            if key is not None:
                plan = _UFUNC_PLANS.get(key, _UNPLANNED)
                if plan is _UNPLANNED:
                    plan = _plan_ufunc(key, ufunc, inputs)
                if plan is not None:
                    return plan(*inputs)
        host_args = _host_natives(inputs, kwargs, read_only=False)
        if host_args is not None:
            # numpy_call's host fast path, taken first: a ufunc's call never
            # writes into its inputs without out=, which takes the general path.
            return wrap_result(ufunc(*host_args, **kwargs), CPU, host_args)
        return numpy_call(ufunc.__name__, ufunc, inputs, dict(kwargs), f"numpy.{ufunc.__name__}")
    name = f"{ufunc.__name__}.{method}"
    return numpy_call(name, getattr(ufunc, method), inputs, dict(kwargs), f"numpy.{name}")


#: One plan per ufunc call signature off the host, ``np.sin(x)`` with x on
#: MLX: the signature (the ufunc; each input's dtype and device, or a Python
#: scalar's type) -> the namespace function :func:`numpy_call` comes to for
#: it, called with the inputs as they are (on the host numpy_call runs
#: NumPy's own ufunc, whose answers, warnings and errors are NumPy's, where
#: the namespace's are the standard's); None where the call needs
#: numpy_call's steps (a route other than the standard's, inputs on several
#: devices, a backend that runs NumPy's own API, a loop NumPy lacks: the
#: general path raises it).  What decides the plan is the signature alone:
#: ``_check_ufunc_types`` judges dtypes and scalar types, ``placement`` the
#: devices.  Cleared when the backend registry changes.
_UFUNC_PLANS: dict[tuple, Any] = {}
_UNPLANNED = object()
_SCALAR_INPUTS = (bool, int, float, complex)


def _ufunc_signature(ufunc: np.ufunc, inputs: tuple) -> tuple | None:
    """The plan's key for a ufunc call without keywords, or None for an
    input that is neither a UnifiedArray nor a Python scalar."""
    key: list[Any] = [ufunc]
    for a in inputs:
        t = type(a)
        if t is UnifiedArray:
            key.append(a.dtype)
            key.append(a.device)
        elif t in _SCALAR_INPUTS:
            key.append(t)
        else:
            return None
    return tuple(key)


def _plan_ufunc(key: tuple, ufunc: np.ufunc, inputs: tuple) -> Any:
    """The plan for ``key`` (see :data:`_UFUNC_PLANS`), recorded."""
    plan: Any = None
    devices = {a.device for a in inputs if type(a) is UnifiedArray}
    route = ROUTES.get(ufunc.__name__)
    if len(devices) == 1 and len(inputs) == ufunc.nin and route is not None and route.kind == "standard":
        (dev,) = devices
        if dev is not CPU and not backend_for(dev).numpy_compatible:  # the host runs NumPy's own ufunc
            try:
                _check_ufunc_types(ufunc, inputs, {}, None)
            except TypeError:
                pass  # the general path raises it, every time
            else:
                plan = namespace()
                for part in route.target.split("."):
                    plan = getattr(plan, part)
    _remember(_UFUNC_PLANS, key, plan)
    return plan


#: One plan per call signature of a NumPy function given one array and
#: nothing else off the host, ``np.sum(x)`` with x on MLX: (the function,
#: x's dtype and device) -> the namespace function its standard row maps
#: the call onto (:func:`_standard_call`, asked once), called with x; None
#: where the call needs :func:`array_function`'s steps (a row of another
#: kind, a backend that runs NumPy's own API).  Cleared as the ufuncs'.
_FUNCTION_PLANS: dict[tuple, Any] = {}


def _plan_function(key: tuple, func: Any, x: UnifiedArray) -> Any:
    """The plan for ``key`` (see :data:`_FUNCTION_PLANS`), recorded."""
    plan: Any = None
    name = numpy_name(func)
    route = ROUTES.get(name)
    dev = x.device
    if route is None or dev is CPU or backend_for(dev).numpy_compatible or name in _ASKS_ABOUT_MEMORY:
        pass  # no row; the host runs NumPy's own function; CuPy runs NumPy's API; asked of memory itself
    elif route.kind == "standard" and not _writes_first(name, (x,), {}):
        standard = _standard_call(route.target, func, (x,), {})
        if standard is not None and len(standard[1]) == 1 and standard[1][0] is x and not standard[2]:
            plan = standard[0]
    elif route.kind == "compose" and not isinstance(func, np.ufunc):
        recipe = route.target
        sig = _signature(recipe)
        try:
            if sig is not None:
                sig.bind(namespace(), x)
        except TypeError:
            pass  # a form the composition does not take: the general path's host
        else:
            plan = _Composed(recipe, func)
    _remember(_FUNCTION_PLANS, key, plan)
    return plan


class _Composed:
    """A composition's plan, ``np.triu(x)``: the recipe on x, or, for a
    value it does not cover (it returns None: a 0-d sort), the general
    path, which takes the host."""

    __slots__ = ("func", "recipe")

    def __init__(self, recipe: Any, func: Any) -> None:
        self.recipe = recipe
        self.func = func

    def __call__(self, x: UnifiedArray) -> Any:
        res = self.recipe(namespace(), x)
        if res is not None:
            return res
        name = numpy_name(self.func)
        return numpy_call(name, self.func, (x,), {}, f"numpy.{name}")


def _remember(plans: dict[tuple, Any], key: tuple, plan: Any) -> None:
    if len(plans) >= _MAX_PLANS:
        plans.clear()  # bounded: a program's signatures are few, a fuzz's many
    plans[key] = plan


def forget_plans() -> None:
    """Drop every plan: they are derived from the route table and the
    backends when first asked, so a change to either (the registry's
    calls this; a test that edits the table calls it) is seen by the
    next call."""
    _UFUNC_PLANS.clear()
    _FUNCTION_PLANS.clear()


_MAX_PLANS = 4096
on_change(forget_plans)


def array_function(func: Any, types: Any, args: tuple, kwargs: dict, like: Any = None) -> Any:
    """``__array_function__``: a NumPy function called with UnifiedArrays
    (``like``: the array whose method NumPy called, which for NEP 35's
    ``like=`` is among no argument)."""
    for t in types:
        if t is not UnifiedArray and not issubclass(t, _ARRAY_CLASSES):
            return NotImplemented
    if not kwargs and len(args) == 1 and type(args[0]) is UnifiedArray and not _rules.ACTIVE[0]:
        # np.sum(x): its plan, where the signature has one (see _FUNCTION_PLANS;
        # strict mode, in any thread, asks numpy_call's questions).
        x = args[0]
        key = (func, x.dtype, x.device)
        plan = _FUNCTION_PLANS.get(key, _UNPLANNED)
        if plan is _UNPLANNED:
            plan = _plan_function(key, func, x)
        if plan is not None:
            return plan(x)
    name = numpy_name(func)
    early = _ANSWERED_FIRST.get(name)
    if early is not None:
        kind, target = early
        if kind == "metadata" or (args and type(args[0]) is UnifiedArray):
            res = target(*args, **kwargs)
            if res is not None:
                return res
    elif name in _CREATION and type(like) is UnifiedArray and not _has_array(args, kwargs):
        return _created_like(name, func, args, kwargs, like)
    if name in _ASKS_ABOUT_MEMORY:
        # np.may_share_memory(np.asarray(x), x): asked of the memory itself,
        # so the arrays are never converted or copied on the way.
        return func(*(_host_memory(a) for a in args), **kwargs)
    return numpy_call(name, func, args, dict(kwargs), f"numpy.{name}")


# The rows answered before the call path, on every device: views of the
# buffer and answers from metadata (derived once from the route table).
_ANSWERED_FIRST: dict[str, tuple[str, Any]] = {
    name: (route.kind, route.target) for name, route in ROUTES.items() if route.kind in ("view", "metadata")
}

# NEP 35's creation functions (``np.zeros(3, like=x)``): the namespace's of
# the same name makes the array on x's device; the rest are made by NumPy
# and moved there, counted.
_CREATION = frozenset(
    [
        "zeros",
        "ones",
        "empty",
        "full",
        "arange",
        "eye",
        "identity",
        "asarray",
        "array",
        "asanyarray",
        "ascontiguousarray",
        "asfortranarray",
        "frombuffer",
        "fromiter",
        "fromstring",
        "fromfunction",
        "fromfile",
        "loadtxt",
        "genfromtxt",
        "require",
        "tri",
    ]
)
_ON_DEVICE = {"zeros": "zeros", "ones": "ones", "empty": "empty", "full": "full", "arange": "arange", "eye": "eye"}


def _has_array(args: tuple, kwargs: dict) -> bool:
    found: list = []
    _leaves((args, kwargs), lambda o: type(o) is UnifiedArray, found)
    return bool(found)


def _created_like(name: str, func: Any, args: tuple, kwargs: dict, like: UnifiedArray) -> Any:
    dev = like.device
    target = _ON_DEVICE.get(name)
    given = {k: v for k, v in kwargs.items() if not (k in ("order", "device") and v in ("C", None))}
    if target is not None:
        if name == "eye" and given.get("M", 0) is None:
            given.pop("M")
        if "dtype" in given:
            given["dtype"] = None if given["dtype"] is None else np.dtype(given["dtype"])
        if name == "eye" and given.get("k") == 0:
            given.pop("k")
        with contextlib.suppress(TypeError):
            return getattr(namespace(), target)(*args, **given, device=dev)
    host = func(*args, **kwargs)
    return namespace().asarray(host, device=dev)


_ARRAY_CLASSES = (UnifiedArray, np.ndarray)

# NumPy's questions about memory: answered on the arrays' host copies as they
# are (a UnifiedArray's, synced if stale; an ndarray itself).
_ASKS_ABOUT_MEMORY = frozenset({"may_share_memory", "shares_memory"})


def _host_memory(a: Any) -> Any:
    return native_on(a, CPU, "numpy.may_share_memory") if type(a) is UnifiedArray else a
