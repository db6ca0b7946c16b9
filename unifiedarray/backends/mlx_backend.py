"""The MLX backend: ``mlx.core.array`` on Apple Metal, or MLX's CPU build on
Linux, as one device named ``"mlx"``.

MLX is a separate memory space with its own allocator, lazy evaluation and
dtype limits.  Two of those limits shape this module:

* ``mx.array(float64_ndarray)`` silently gives float32.  Every upload names
  the dtype explicitly, so a float64 buffer stays float64.
* MLX has no complex128.  A buffer of that dtype cannot have an MLX copy;
  asking for one is a ``TypeError`` naming backend, dtype and operation.

An upload is complete when it returns: ``mx.array`` copies the host data
when it is built (no graph is left to evaluate), so the ledger times the
whole move.

Threads
-------
MLX (0.32) binds a stream to the thread that made it: a lazy graph built on
a thread's default stream can only be evaluated in that thread ("There is no
Stream(cpu, N) in current thread").  A stream made by
``mx.new_thread_unsafe_stream`` can be evaluated in any thread, provided
evaluations on it never overlap.  So all the library's MLX work runs on one
such stream per MLX device type, and three rules keep it safe:

* every graph the library builds is built inside :func:`compute_context`,
  which enters that stream and holds the evaluation lock, so that any
  evaluation inside a compute function (an index check's ``.item()``, a
  host fallback's ``np.asarray``) is serialised too;
* every evaluation outside a compute call goes through :func:`evaluate` (a
  read, a move, a sync, a Python scalar), under the same lock;
* nothing unevaluated is handed to user code (leases, ``read``, exports are
  evaluated first: user code evaluates without the lock), and a user's MLX
  array is evaluated where it enters (:func:`detach`), in the user's thread,
  whose stream it may be bound to.

The evaluation lock is innermost: a buffer's lock may be held when it is
taken, never the reverse (nothing inside :func:`compute_context` or
:func:`evaluate` touches a buffer).

Failures at evaluation
----------------------
What MLX 0.32.4 does when a kernel fails (found by experiment on the CPU
build; MLX's ``scheduler.cpp`` and ``transforms.cpp`` say why):

* a kernel that fails inside its task (LAPACK's ``info != 0`` in ``SVD``,
  ``Inverse``, ``Eigh``, ``Eig``; a ``MaskedScatter`` short of values)
  raises nothing where the graph is built.  The task's exception is kept by
  its stream (the first one only) and raised, once, by the next wait on
  that stream: the evaluation that ran it (``mx.eval``, ``.item()``,
  ``.tolist()``, ``memoryview``), or after ``async_eval`` whichever
  evaluation waits next, maybe another array's, or the next dispatch from
  the main thread;
* every array of that evaluation is marked evaluated all the same, the
  failed node's memory never written: every later read returns it
  (``[0.0, 1.6e-322]``) without an error, and so does every array computed
  from it later.  The array object cannot be evaluated again;
* tasks after the failed one still run: arrays of the same evaluation that
  do not depend on the failed node are right;
* ``np.asarray`` of an unevaluated array that fails swallows the error and
  returns the unwritten memory, so every MLX array is evaluated (here)
  before NumPy reads it;
* LAPACK's ``xerbla`` (an "illegal value", e.g. ``eig`` of a matrix with
  NaN or inf) ends the process;
* a failure evaluated on MLX's main thread (the thread that first used MLX)
  may leave MLX's count of active tasks one too high: that thread's next
  dispatch raises the kept exception after counting a task it never queues.
  After about ten such failures every evaluation waits forever (a hung
  process: what "inv sometimes never returns" was).  Dispatches from other
  threads do not look at the kept exception, so graphs that may fail are
  evaluated on a thread of their own (see :func:`_evaluate_fallible`);
* a failure that reaches another stream (a graph across two streams) is
  copied there, and the waiter raises that stream's copy: the first
  stream still keeps its own, for whichever evaluation comes next.  After
  every failure the library's streams are drained (see :func:`_drain`).

So an evaluation failure must never reach MLX's own reads.  :data:`FAILURES`
is the one table that says, for every namespace function whose kernel can
fail at evaluation, what happens instead; every function of the MLX
namespace is wrapped by :func:`guard`, which applies it; and
:func:`evaluate` is the one place where the library evaluates, which keeps
every failure on the arrays it belongs to (see :func:`evaluate`).
"""

from __future__ import annotations

import _thread
import contextlib
import functools
import platform
import re
import threading
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from types import ModuleType
from typing import Any, NamedTuple

import numpy as np
from numpy.linalg import LinAlgError

from .._devices import MLX, Device
from . import Backend, _registry, host_memory_info

#: Serialises every evaluation of the library's stream (see "Threads" above).
#: Re-entrant: an evaluation inside a compute call takes it again.
EVAL_LOCK = _thread.RLock()

#: Whether MLX writes made through the buffer (fill, copy_from, _apply_write)
#: may stay lazy.  False while any MLX graph of the library is built outside
#: compute_context (on a thread's own stream, evaluated without the lock):
#: such a graph could reach an unscheduled node of the library's stream, so
#: every write is scheduled (``async_eval`` under the lock) before it is
#: published.  The dispatch sets it to True once every MLX call runs inside
#: compute_context and every read evaluates through evaluate().
lazy_writes = True

_MX: Any = None  # mlx.core, set by the probe
_STREAMS: tuple = ()  # the library's thread-unsafe streams: the default device's last
_LEASE: Any = None  # the class of leased MLX handles, made by the probe

_NP_TO_MX: dict[np.dtype, Any] = {}
_MX_TO_NP: dict[Any, np.dtype] = {}


def _build_dtype_tables(mx: Any) -> None:
    for name in (
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float16",
        "float32",
        "float64",
        "complex64",
    ):
        mx_dtype = getattr(mx, "bool_" if name == "bool" else name)
        _NP_TO_MX[np.dtype(name)] = mx_dtype
        _MX_TO_NP[mx_dtype] = np.dtype(name)


def mx_dtype(dtype: np.dtype) -> Any:
    """The MLX dtype for a NumPy dtype; ``TypeError`` where MLX has none."""
    try:
        return _NP_TO_MX[np.dtype(dtype)]
    except KeyError:
        raise TypeError(f"mlx cannot hold dtype {np.dtype(dtype).name}") from None


def np_dtype(dtype: Any) -> np.dtype:
    """The NumPy dtype for an MLX dtype."""
    try:
        return _MX_TO_NP[dtype]
    except KeyError:
        raise TypeError(f"mlx dtype {dtype} has no NumPy equivalent") from None


class _Compute:
    """What :func:`compute_context` returns: the evaluation lock and the
    library's stream(s), entered together."""

    __slots__ = ("_ctx", "_saved")

    def __enter__(self) -> None:
        EVAL_LOCK.acquire()
        try:
            streams = _STREAMS
            if len(streams) > 1:
                # Metal: float64 work names MLX's CPU device, so the CPU
                # stream is made the thread's CPU default too.  MLX's stream
                # context restores only the stream of the device it replaced,
                # so the CPU default is saved and restored here.
                self._saved = [_MX.default_stream(s.device) for s in streams[:-1]]
                for s in streams[:-1]:
                    _MX.set_default_stream(s)
            ctx = self._ctx = _MX.stream(streams[-1])
            ctx.__enter__()
        except BaseException:
            EVAL_LOCK.release()
            raise

    def __exit__(self, *exc: Any) -> None:
        try:
            self._ctx.__exit__(None, None, None)
            if len(_STREAMS) > 1:
                for s in self._saved:
                    _MX.set_default_stream(s)
        finally:
            EVAL_LOCK.release()


def _ready() -> None:
    if _MX is None:
        backend = _registry()["mlx"]
        if not backend.available:
            raise RuntimeError(f"MLX is not available: {backend.unavailable_reason}")


def compute_context() -> Any:
    """A context manager for building MLX graphs: it holds the evaluation
    lock and makes the library's thread-unsafe stream the default, so that
    the graph can be evaluated in any thread, and any evaluation inside is
    serialised.  Enter it around every MLX namespace call.
    Never acquire a buffer's lock inside it.

    Example
    -------
    >>> from unifiedarray.backends import mlx_backend
    >>> import mlx.core as mx
    >>> with mlx_backend.compute_context():
    ...     y = mx.ones(3) * 2
    >>> mlx_backend.evaluate(y); y.tolist()
    [2.0, 2.0, 2.0]
    """
    if _MX is None:
        _ready()
    return _Compute()


def run(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` inside :func:`compute_context`, without the context
    object (the operators' fast path: a context object fewer per call)."""
    if len(_STREAMS) != 1:
        with compute_context():
            return fn(*args)
    EVAL_LOCK.acquire()
    try:
        ctx = _MX.stream(_STREAMS[0])
        ctx.__enter__()
        try:
            return fn(*args)
        finally:
            ctx.__exit__(None, None, None)
    finally:
        EVAL_LOCK.release()


def evaluate(*arrays: Any) -> None:
    """Evaluate MLX arrays (built in any thread inside compute_context, or
    in this thread on its own stream), serialised with every other
    evaluation of the library's stream.  Blocks until the data is there.

    The one place where the library evaluates, and so where an evaluation
    failure is caught: the arrays evaluated are poisoned with it (every
    later evaluation of them raises the same error; MLX itself would hand
    out their unwritten memory), and it is raised.  A poisoned array, or
    one made by a function whose :data:`FAILURES` outcome is ``"poison"``,
    is settled first (see :func:`settle_arguments`)."""
    _evaluate(arrays, False)


def _evaluate(arrays: Any, fallible: bool) -> None:
    """:func:`evaluate`; with ``fallible``, on a thread of its own (see
    :func:`_evaluate_fallible`)."""
    if _MX is None:
        _ready()
    with EVAL_LOCK:
        if _ROOTS:
            settle_arguments(arrays)
        try:
            if fallible:
                _evaluate_fallible(arrays)
            else:
                _MX.eval(*arrays)
        except Exception as exc:
            # No root of ours covers it (the table missed a kernel, or an
            # "at call" row's kernel failed): the arrays of this evaluation
            # now hold unwritten memory.
            _poison(arrays, _FailedRoot("evaluation", exc))
            _drain()
            raise


def schedule(*arrays: Any) -> None:
    """Start evaluating MLX arrays without waiting (``async_eval`` under the
    evaluation lock).  A failure of such an evaluation is raised by whichever
    evaluation of the stream waits next (see "Failures at evaluation"), so
    arrays whose evaluation may fail are settled first, synchronously."""
    if _MX is None:
        _ready()
    with EVAL_LOCK:
        if _ROOTS:
            settle_arguments(arrays)
        _MX.async_eval(*arrays)


def settle(native: Any) -> Any:
    """What the buffer calls on an MLX copy it has just written, before the
    copy is published: schedules it unless writes may stay lazy (see
    :data:`lazy_writes`).  Returns ``native``."""
    if not lazy_writes:
        schedule(native)
    return native


# -- evaluation failures: the table, the guard, the poisoned arrays ---------------------------

_FALLIBLE_POOL: ThreadPoolExecutor | None = None
_FALLIBLE_THREAD: int | None = None


def _on_fallible_thread(fn: Callable[..., Any], *args: Any) -> Any:
    global _FALLIBLE_POOL, _FALLIBLE_THREAD
    if threading.get_ident() == _FALLIBLE_THREAD:
        return fn(*args)
    if _FALLIBLE_POOL is None:
        _FALLIBLE_POOL = ThreadPoolExecutor(1, thread_name_prefix="unifiedarray-mlx-fallible")
        _FALLIBLE_THREAD = _FALLIBLE_POOL.submit(threading.get_ident).result()
    return _FALLIBLE_POOL.submit(fn, *args).result()


def _drain() -> None:
    """Drop a failure the library's streams may still keep (after one was
    raised: see "Failures at evaluation"), so that no later evaluation of
    another array raises it: an evaluation of nothing on each stream, whose
    wait raises what the stream kept.  On the fallible thread."""

    def drain() -> None:
        for stream in _STREAMS:
            with contextlib.suppress(RuntimeError):
                _MX.eval(_MX.zeros((1,), stream=stream))

    _on_fallible_thread(drain)


def _evaluate_fallible(arrays: Any) -> None:
    """``mx.eval(*arrays)`` for a graph whose evaluation may fail, on a
    thread that is not MLX's main thread (see "Failures at evaluation": a
    failure evaluated there can hang every later evaluation).  The caller
    holds the evaluation lock and waits, so evaluations stay serialised.  A
    graph on a thread's own stream (a user's array) can only be evaluated
    in that thread: MLX refuses it elsewhere before running anything, and it
    is evaluated here instead."""
    try:
        _on_fallible_thread(_MX.eval, *arrays)
    except RuntimeError as exc:
        if not str(exc).startswith("There is no Stream"):
            raise
        _MX.eval(*arrays)


AT_CALL = "at call"
POISON = "poison"


class Failure(NamedTuple):
    """How one namespace function's evaluation failure reaches the caller."""

    #: ``"at call"``: the host's class, raised by the call itself (the
    #: result is evaluated at the call where ``evaluate`` says so, else the
    #: function checks its input before MLX sees it); ``"poison"``: the
    #: result stays lazy, is evaluated alone at its first use (a read, or a
    #: call or write that takes it), and if that fails, every use of it
    #: from then on raises the same error.
    outcome: str
    #: the host's (NumPy's) exception class and message for the failure
    error: type[Exception]
    message: str
    #: the MLX kernel whose failure this is: its messages start ``[kernel::``
    kernel: str
    #: whether the guard evaluates the result at the call
    evaluate: bool
    why: str


_SVD = "LAPACK's gesdd fails on NaN (info -4) and when it does not converge; NumPy raises at the call"
_EIGH = "LAPACK's syevd fails when it does not converge (e.g. a matrix of NaN); NumPy raises at the call"
_EIG = (
    "non-finite input is refused first, as NumPy refuses it ('Array must not contain infs or NaNs'): "
    "MLX returns garbage for it or LAPACK ends the process; then evaluated for non-convergence"
)
_INV = (
    "an exact zero pivot is refused first (MLX sometimes never returns from a singular matrix); "
    "then evaluated, for LAPACK's own verdict"
)

#: The one table of MLX's failures at evaluation: every namespace function
#: whose kernel can fail after the call (MLX 0.32's CPU kernels that raise
#: from inside their task on the data: SVD, Inverse, Eigh, Eig, Cholesky's
#: silent failure and MaskedScatter) and what the library does instead.  A
#: function not listed cannot fail at evaluation (MLX's other kernels raise
#: only for dtypes and layouts, which the namespace never hands them) and
#: pays nothing.  Functions built on a listed one (``pinv``,
#: ``matrix_rank``, ``matrix_norm`` with 'nuc', 2 or -2 on ``svd``/
#: ``svdvals``; ``matrix_power`` with a negative power on ``inv``) inherit
#: its outcome through the call.
FAILURES: dict[str, Failure] = {
    "linalg.svd": Failure(AT_CALL, LinAlgError, "SVD did not converge", "SVD", True, _SVD),
    "linalg.svdvals": Failure(AT_CALL, LinAlgError, "SVD did not converge", "SVD", True, _SVD),
    "linalg.eigh": Failure(AT_CALL, LinAlgError, "Eigenvalues did not converge", "Eigh", True, _EIGH),
    "linalg.eigvalsh": Failure(AT_CALL, LinAlgError, "Eigenvalues did not converge", "Eigh", True, _EIGH),
    "linalg.eig": Failure(AT_CALL, LinAlgError, "Eigenvalues did not converge", "Eig", True, _EIG),
    "linalg.eigvals": Failure(AT_CALL, LinAlgError, "Eigenvalues did not converge", "Eig", True, _EIG),
    "linalg.inv": Failure(AT_CALL, LinAlgError, "Singular matrix", "Inverse", True, _INV),
    "linalg.solve": Failure(AT_CALL, LinAlgError, "Singular matrix", "Inverse", True, _INV),
    "linalg.cholesky": Failure(
        AT_CALL,
        LinAlgError,
        "Matrix is not positive definite",
        "Cholesky",
        False,
        "MLX ignores potrf's failure and returns garbage: the factor's diagonal is read at the call",
    ),
    "setitem": Failure(
        AT_CALL,
        ValueError,
        "cannot assign the values to the elements the mask selects",
        "MaskedScatter",
        False,
        "a mask's count is checked against the values at the call (MLX fails at evaluation when they are too few)",
    ),
}


class _FailedRoot:
    """A failure kept for the arrays it belongs to."""

    __slots__ = ("error", "path")

    def __init__(self, path: str, error: BaseException) -> None:
        self.path = path
        self.error = error


class _Root:
    """The results of one call of a function whose outcome is "poison",
    while they are not yet known to evaluate: the ids of its arrays (one
    kernel: evaluating one output evaluates all)."""

    __slots__ = ("failure", "ids", "path")

    def __init__(self, path: str, failure: Failure) -> None:
        self.path = path
        self.failure = failure
        self.ids: list[int] = []


#: id(array) -> (a weak reference to it, its _Root or _FailedRoot), for every
#: MLX array that may fail at evaluation or did.  Empty in a program with no
#: failure and no "poison" outcome: then the guard and evaluate() cost one
#: truth test.
_ROOTS: dict[int, tuple[Any, Any]] = {}


def _forget(key: int, roots: dict[int, tuple[Any, Any]] = _ROOTS) -> Callable[[Any], None]:
    # ``roots`` is bound here: at interpreter exit the module's globals may be gone.
    def drop(ref: Any) -> None:
        entry = roots.get(key)
        if entry is not None and entry[0] is ref:
            del roots[key]

    return drop


def _enter(array: Any, root: Any) -> None:
    key = id(array)
    _ROOTS[key] = (weakref.ref(array, _forget(key)), root)
    if type(root) is _Root:
        root.ids.append(key)


def _poison(arrays: Any, failed: _FailedRoot) -> None:
    for a in arrays:
        if isinstance(a, _MX.array):
            _enter(a, failed)


def _raise(failed: _FailedRoot) -> None:
    """Raise the failure again: a new exception of the same class and
    message, caused by the first one."""
    err = failed.error
    try:
        again = type(err)(*err.args)
    except Exception:  # an exception class whose constructor wants more
        again = RuntimeError(*err.args)
    raise again from err


def poisoned(native: Any) -> BaseException | None:
    """The failure ``native`` is poisoned with, or None."""
    entry = _ROOTS.get(id(native)) if _ROOTS else None
    if entry is None or entry[0]() is not native or type(entry[1]) is not _FailedRoot:
        return None
    return entry[1].error


def _settle_one(array: Any) -> None:
    entry = _ROOTS.get(id(array))
    if entry is None or entry[0]() is not array:
        return
    root = entry[1]
    if type(root) is _FailedRoot:
        _raise(root)
    # A root's graph holds no other root (its call settled its arguments),
    # so evaluating it alone says whether its own kernel fails.
    with EVAL_LOCK:
        try:
            _evaluate_fallible((array,))
        except Exception as exc:
            _drain()
            failed = _FailedRoot(root.path, _host_error(root.path, root.failure, exc))
            for key in root.ids:
                held = _ROOTS.get(key)
                if held is not None and held[1] is root:
                    _ROOTS[key] = (held[0], failed)
            _raise(failed)
    for key in root.ids:
        held = _ROOTS.get(key)
        if held is not None and held[1] is root:
            del _ROOTS[key]


def settle_arguments(args: Any, kwargs: Any = None) -> None:
    """Before MLX arrays are used (read, or taken by a call or a write):
    raise the failure of any that is poisoned, and evaluate alone any that
    may still fail (a "poison" outcome's result), poisoning it if it does.
    Looks one level into lists and tuples (indices, ``concat``'s arrays)."""
    for a in args:
        if type(a) is list or type(a) is tuple:
            for b in a:
                if id(b) in _ROOTS:
                    _settle_one(b)
        elif id(a) in _ROOTS:
            _settle_one(a)
    if kwargs:
        settle_arguments(tuple(kwargs.values()))


def _host_error(path: str, failure: Failure, exc: BaseException) -> BaseException:
    """The host's exception for ``failure``, if ``exc`` is its kernel's; else ``exc``."""
    if re.match(rf"\[{failure.kernel}(::|\])", str(exc)):
        new = failure.error(f"mlx {path}: {failure.message} ({exc})")
        new.__cause__ = exc
        return new
    return exc


def _arrays_in(res: Any) -> list[Any]:
    if isinstance(res, tuple | list):
        return [r for r in res if isinstance(r, _MX.array)]
    return [res] if isinstance(res, _MX.array) else []


def guard(path: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` (the MLX namespace's function ``path``) applying its row of
    :data:`FAILURES`: every call first settles its arguments (only while
    some array may fail or has failed); an "at call" outcome that says
    ``evaluate`` evaluates the result before returning it, raising the
    host's class for its kernel's failure; a "poison" outcome registers the
    result for :func:`settle_arguments`.  Every function of the MLX
    namespace is wrapped by this, so a new one cannot miss its row.

    Example
    -------
    >>> import mlx.core as mx, numpy as np
    >>> from unifiedarray.backends import mlx_backend
    >>> svdvals = mlx_backend.guard("linalg.svdvals", lambda a: mx.linalg.svd(a, compute_uv=False, stream=mx.cpu))
    >>> svdvals(mx.array([[1.0, float("nan")], [0.0, 1.0]]))
    Traceback (most recent call last):
    numpy.linalg.LinAlgError: mlx linalg.svdvals: SVD did not converge ([SVD::eval_cpu] SVD failed with error code -4)
    """
    failure = FAILURES.get(path)
    if failure is not None and failure.outcome == POISON:

        @functools.wraps(fn)
        def lazy(*args: Any, **kwargs: Any) -> Any:
            if _ROOTS:
                settle_arguments(args, kwargs)
            res = fn(*args, **kwargs)
            root = _Root(path, failure)
            for a in _arrays_in(res):
                _enter(a, root)
            return res

        return lazy
    if failure is not None and failure.evaluate:

        @functools.wraps(fn)
        def at_call(*args: Any, **kwargs: Any) -> Any:
            if _ROOTS:
                settle_arguments(args, kwargs)
            res = fn(*args, **kwargs)
            try:
                _evaluate(_arrays_in(res), True)
            except Exception as exc:
                new = _host_error(path, failure, exc)
                if new is exc:
                    raise
                raise new from exc
            return res

        return at_call

    @functools.wraps(fn)
    def plain(*args: Any, **kwargs: Any) -> Any:
        if _ROOTS:
            settle_arguments(args, kwargs)
        return fn(*args, **kwargs)

    return plain


def stream() -> Any:
    """The library's stream on MLX's default device (for ``stream=``)."""
    if _MX is None:
        _ready()
    return _STREAMS[-1]


def _make_lease_class(mx: Any) -> Any:
    """The class of a leased MLX copy (``UnifiedBuffer.mlx``).

    A lease is the buffer's own MLX array object, its class switched to this
    one (no copy: the layout is MLX's).  MLX's in-place writes rebind the
    handle to a new lazy graph on the *caller's* stream; here they are built
    on the library's stream and evaluated at once, so the buffer's copy
    never holds a graph that only the writing thread could evaluate, nor an
    unevaluated graph that user code could evaluate without the lock.
    """

    def _inplace(name: str) -> Any:
        method = getattr(mx.array, name)

        def op(self: Any, other: Any) -> Any:
            with compute_context():
                # The operand first: if its evaluation fails, the lease is untouched.
                evaluate(self, *_arrays_in((other,)))
                out = method(self, other)
                evaluate(out)
            return out

        op.__name__ = name
        return op

    def __setitem__(self: Any, key: Any, value: Any) -> None:
        with compute_context():
            keys = key if type(key) is tuple else (key,)
            evaluate(self, *_arrays_in((value, *keys)))
            mx.array.__setitem__(self, key, value)
            evaluate(self)

    names = [n for n in dir(mx.array) if n.startswith("__i") and n[3:-2] in _INPLACE]
    body: dict[str, Any] = {"__slots__": (), "__setitem__": __setitem__, "__module__": __name__}
    body.update({n: _inplace(n) for n in names})
    return type("LeasedMLXArray", (mx.array,), body)


_INPLACE = {"add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor", "lshift", "rshift"}


class MLXBackend(Backend):
    name = "mlx"
    title = "MLX"

    def __init__(self) -> None:
        super().__init__()
        self.mx: Any = None
        self.metal = False

    def _probe(self) -> str | None:
        try:
            import mlx.core as mx
        except ImportError as exc:
            if "mlx" in str(exc) and "No module" in str(exc):
                return "MLX is not installed (pip install 'unifiedarray[mlx]')"
            return f"MLX is installed but its native library failed to load: {exc}"
        except Exception as exc:
            return f"MLX failed to import: {type(exc).__name__}: {exc}"
        mx.eval(mx.zeros(1))  # the first evaluation is where a broken build shows
        _build_dtype_tables(mx)
        try:
            self.metal = bool(mx.metal.is_available())
        except Exception:
            self.metal = False
        global _MX, _STREAMS, _LEASE
        streams = [mx.new_thread_unsafe_stream(mx.cpu)]
        if self.metal:
            streams.append(mx.new_thread_unsafe_stream(mx.gpu))
        _STREAMS = tuple(streams)
        _LEASE = _make_lease_class(mx)
        _MX = self.mx = mx
        return None

    @property
    def metal_reason(self) -> str | None:
        """Why ``.metal`` is unavailable, or None when MLX runs on Metal."""
        if not self.available:
            return self.unavailable_reason
        if self.metal:
            return None
        if platform.system() != "Darwin":
            return f"Metal exists only on macOS; MLX runs here on the CPU ({platform.system()}), use .mlx"
        return "MLX is installed but Metal is not available on this Mac"

    def devices(self) -> list[Device]:
        return [MLX] if self.available else []

    def supports_dtype(self, dtype: np.dtype, device: Device) -> bool:
        self._ensure_probed()
        return np.dtype(dtype) in _NP_TO_MX

    def zeros(self, shape: tuple[int, ...], dtype: np.dtype, device: Device, pinned: bool = False) -> Any:
        self.check_dtype(dtype, device, "allocation")
        # Metal has no float64: such arrays are made on MLX's CPU stream.
        stream = _STREAMS[0] if np.dtype(dtype) == np.float64 else _STREAMS[-1]
        out = self.mx.zeros(shape, dtype=mx_dtype(dtype), stream=stream)
        evaluate(out)
        return out

    def upload(self, host: np.ndarray, device: Device, into: Any = None) -> Any:
        # MLX arrays are values: a new array replaces the old copy.  The
        # buffer swaps it in under its lock.
        self.check_dtype(host.dtype, device, "copy to mlx")
        if host.size == 0:
            # MLX's reductions misbehave on empty arrays built from NumPy
            # data (prod gives 0, some calls spin): allocate those in MLX.
            return self.zeros(host.shape, host.dtype, device)
        if host.strides and min(host.strides) < 0:
            # MLX refuses negative strides (through DLPack), also for one
            # element, which NumPy calls contiguous: copy it in C order.
            host = np.array(host, order="C")
        # mx.array copies the host data at once: no graph, nothing to evaluate.
        return self.mx.array(host, dtype=_NP_TO_MX[host.dtype])

    def download(self, native: Any, out: np.ndarray) -> None:
        evaluate(native)
        # np.asarray of an evaluated MLX array is a zero-copy view of MLX's
        # memory, so this is one copy, straight into the host buffer.
        np.copyto(out, np.asarray(native))

    def is_native(self, obj: Any) -> bool:
        if self.mx is None:
            # MLX not probed yet: an MLX array still is one (taken as host
            # data, np.asarray would evaluate it and swallow its failure).
            if not type(obj).__module__.startswith("mlx"):
                return False
            self._ensure_probed()
            if self.mx is None:
                return False
        return isinstance(obj, self.mx.array)

    def device_of(self, native: Any) -> Device:
        return MLX

    def memory_info(self, device: Device) -> tuple[int, int]:
        mx = self.mx
        if self.metal:
            info = mx.metal.device_info()
            total = int(info.get("memory_size", 0))
            return max(total - int(mx.get_active_memory()), 0), total
        # The CPU build allocates from host memory.
        return host_memory_info()

    def properties(self, device: Device) -> dict[str, Any]:
        import mlx.core as mx

        props: dict[str, Any] = {"mlx": getattr(mx, "__version__", "?"), "metal": self.metal}
        if self.metal:
            info = mx.metal.device_info()
            props["name"] = info.get("device_name", "Apple GPU")
        else:
            props["name"] = f"MLX CPU build ({platform.machine()})"
        return props

    def detach(self, native: Any) -> Any:
        """A new, evaluated handle on the same data, so that writes through
        the old handle (MLX's in-place ``a[i] = v`` rebinds that handle only)
        no longer reach the buffer's copy.  A same-shape reshape shares the
        memory (no copy); MLX copies on write, so neither handle's writes
        reach the other.  Evaluated here, in the caller's thread: ``native``
        may be a user's array whose graph only this thread can evaluate, and
        the handle may go to user code, which evaluates without the lock."""
        with compute_context():
            # native itself first: a user's array that fails is poisoned
            # (MLX would hand out its unwritten memory the next time).
            evaluate(native)
            out = self.mx.reshape(native, native.shape)
            evaluate(out)
        return out

    def lease(self, native: Any) -> Any:
        """``native`` (the buffer's MLX copy) as a write lease: evaluated,
        its class switched so that writes through it run on the library's
        stream (see :func:`_make_lease_class`).  The same object: writes
        through it reach the buffer."""
        if type(native) is not _LEASE:
            evaluate(native)
            native.__class__ = _LEASE
        return native

    def write(self, native: Any, write: Any, in_place: bool = False) -> Any:
        """Run ``write(target)`` (in-place writes, ``target[key] = value``)
        on the library's stream and return the written array, settled, for
        the buffer to publish as its new MLX copy.

        The target is a new handle on ``native``'s data (a lazy same-shape
        reshape: no copy), so that a thread still holding ``native`` (taken
        under the buffer's lock, used after it) keeps a complete graph: MLX's
        setitem rebinds the object it is called on.  With ``in_place`` (the
        copy is a live lease, whose writes must reach the buffer) the target
        is ``native`` itself; a lease is evaluated after every write, so it
        is never seen half-built.

        A write into a poisoned copy raises its failure (the write would
        keep the unwritten memory around the written elements), unless it
        replaces every element (``write.replaces_all``: ``fill``,
        ``copy_from``), which starts from new memory."""
        with compute_context():
            if _ROOTS:
                if getattr(write, "replaces_all", False) and poisoned(native) is not None:
                    native = self.mx.zeros(native.shape, dtype=native.dtype)
                else:
                    settle_arguments((native,))
            target = native if in_place else self.mx.reshape(native, native.shape)
            write(target)
        return settle(target)

    def copy(self, native: Any) -> Any:
        """A real copy in MLX memory (for exports whose consumer may write)."""
        with compute_context():
            # native first: mx.array(native) evaluates it itself, and swallows its failure.
            evaluate(native)
            out = self.mx.array(native, dtype=native.dtype)  # without dtype= MLX gives float32
            evaluate(out)
        return out

    results_alias = False  # MLX arrays are values: a result never aliases an input

    #: The dtypes MLX's functions narrow when they import a foreign array
    #: through DLPack (``mx.sin(x)`` of a float64 export gives float32):
    #: such an MLX array is not offered to them that way, so that they take
    #: ``__mlx_array__``, the MLX copy with its dtype.
    dlpack_import_narrows = frozenset({np.dtype(np.float64)})

    def compute_context(self, device: Device) -> Any:
        return compute_context()

    def run(self, device: Device, fn: Callable[..., Any], *args: Any) -> Any:
        return run(fn, *args)

    def evaluate(self, *natives: Any) -> None:
        evaluate(*natives)

    def compile(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """``mx.compile(fn)``: one compiled graph per input shapes and
        dtypes (MLX's own cache, inside the function it returns)."""
        return self.mx.compile(fn)

    def dtype_of(self, native: Any) -> np.dtype:
        return np_dtype(native.dtype)

    def shares_memory(self, a: Any, b: Any) -> bool:
        evaluate(a, b)
        return bool(np.may_share_memory(np.asarray(a), np.asarray(b)))

    def numpy_like(self) -> ModuleType:
        """``mlx.core``: its ``einsum`` has NumPy's meaning."""
        return self.mx
