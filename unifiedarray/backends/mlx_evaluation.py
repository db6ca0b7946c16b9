"""The one place where the library evaluates MLX: its stream, its
evaluation lock, and what happens when an evaluation fails.

The MLX namespace (:mod:`unifiedarray.backends.mlx_namespace`) wraps each of
its functions with :func:`guard`; the MLX backend
(:mod:`unifiedarray.backends.mlx_backend`) starts it when it finds MLX
(:func:`start`) and evaluates through :func:`evaluate`.

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
  read, a move, a sync) or, for a Python scalar, :func:`evaluate_element`
  (MLX's ``item()``, which evaluates), under the same lock;
* nothing unevaluated is handed to user code (leases, ``read``, exports are
  evaluated first: user code evaluates without the lock), and a user's MLX
  array is evaluated where it enters (:func:`detach`), in the user's thread,
  whose stream it may be bound to.  Handed to another thread unevaluated,
  it is refused there: MLX checks the graph's streams before it runs any
  of it, so the refusal (a ``RuntimeError`` naming dtype and operation)
  poisons nothing, and the thread that built it still evaluates it
  (:func:`refused`, the one rule that tells a refusal from a failure).

Lock order
----------
The one order of every lock the library takes (outermost first).  A thread
holding a lock waits only for locks below it; a lock above may only be
*tried* (``acquire(blocking=False)``, which cannot deadlock).  Each lock's
definition points here.

1. ``_array._LONE_LOCK``: held while a lone result's buffer is made
   (``_array._own_buffer``), whose device-copy hook (a memory limit's,
   ``_buffer.DEVICE_COPY_HOOK``) may evict other buffers.  Never taken
   under a buffer's lock or the evaluation lock.
2. A buffer's lock (``UnifiedBuffer.lock``), one at a time: no thread
   waits for a second buffer's lock while it holds one (a memory limit's
   eviction only tries the evicted buffer's, ``UnifiedBuffer.drop_copy``;
   a buffer being made, which no other thread can hold yet, aside:
   ``UnifiedBuffer.__copy__``).  The backends' evaluations run under it.
3. :data:`EVAL_LOCK`, the evaluation lock: its holder never waits for a
   buffer's lock or ``_LONE_LOCK``, so nothing that reads a
   ``UnifiedArray`` runs under it.  What MLX would convert itself through
   a UnifiedArray's protocols (``__dlpack__``, ``__mlx_array__``, which read
   its buffer), the operands of a write through a lease, is resolved to
   native arrays before it is taken (``mlx_backend._operand``), as the
   dispatch resolves every argument before its compute context
   (``_calls.call``).  A device result made inside a compute context under a
   memory limit calls the device-copy hook under it: its evictions only try
   buffers' locks and evaluate re-entrantly, in the same thread.
4. The leaves, held for bookkeeping only, never while evaluating or
   waiting for a lock above: a memory limit's (``_spill._LOCK``, then its
   tracker's, ``_spill._Tracker``'s ``lock``: its evictions run with
   neither held), each memory pool's (``MemoryPool``'s ``_lock``, whose
   out-of-memory path collects garbage with it released), the ledger's,
   ``_buffer._MAKE_LOCK`` (a buffer's lock being made), the backend
   registry's (``backends._registry._LOCK``, whose change callbacks take
   the caches' locks: ``_resolve._LOCK``, ``_buffer._READERS_LOCK``,
   ``compute._DERIVE_LOCK``, the fused functions'), and every other lock of
   the package (the fuse caches', dask's, the rules', the device names').

``tests/test_threads.py`` (``test_every_pair_of_the_librarys_locks_...``)
drives every pair of two buffers' locks, the evaluation lock, a pool's and
a spill tracker's in threads.

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
:func:`evaluate` (and :func:`evaluate_element`, its twin for a Python
scalar) is the one place where the library evaluates, which keeps every
failure on the arrays it belongs to (see :func:`evaluate`).
"""

from __future__ import annotations

import _thread
import contextlib
import functools
import math
import re
import threading
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple

import numpy as np
from numpy.linalg import LinAlgError

from . import _error_state
from ._base import largest_host_allocation

#: Serialises every evaluation of the library's stream (see "Threads" above).
#: Re-entrant: an evaluation inside a compute call takes it again.  Its
#: place among the library's locks: "Lock order" above (no buffer's lock is
#: waited for under it).
EVAL_LOCK = _thread.RLock()
# Its methods bound once: compiled, a call of a method looked up each time
# costs as much again as the lock itself.
_acquire = EVAL_LOCK.acquire
_release = EVAL_LOCK.release

#: Whether MLX writes made through the buffer (fill, copy_from, _apply_write)
#: may stay lazy.  False while any MLX graph of the library is built outside
#: compute_context (on a thread's own stream, evaluated without the lock):
#: such a graph could reach an unscheduled node of the library's stream, so
#: every write is scheduled (``async_eval`` under the lock) before it is
#: published.  The dispatch sets it to True once every MLX call runs inside
#: compute_context and every read evaluates through evaluate() (or
#: evaluate_element).
lazy_writes = True

_MX: Any = None  # mlx.core, set by the probe
_STREAMS: tuple = ()  # the library's thread-unsafe streams: the default device's last

NP_TO_MX: dict[np.dtype, Any] = {}
MX_TO_NP: dict[Any, np.dtype] = {}


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
        NP_TO_MX[np.dtype(name)] = mx_dtype
        MX_TO_NP[mx_dtype] = np.dtype(name)
        if name.startswith(("float", "complex")):
            _INEXACT.add(mx_dtype)


def mx_dtype(dtype: np.dtype) -> Any:
    """The MLX dtype for a NumPy dtype; ``TypeError`` where MLX has none."""
    try:
        return NP_TO_MX[np.dtype(dtype)]
    except KeyError:
        raise TypeError(f"mlx cannot hold dtype {np.dtype(dtype).name}") from None


def np_dtype(dtype: Any) -> np.dtype:
    """The NumPy dtype for an MLX dtype."""
    try:
        return MX_TO_NP[dtype]
    except KeyError:
        raise TypeError(f"mlx dtype {dtype} has no NumPy equivalent") from None


class _Compute:
    """What :func:`compute_context` returns: the evaluation lock and the
    library's stream(s), entered together."""

    __slots__ = ("_ctx", "_saved")

    def __enter__(self) -> None:
        _acquire()
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
            _release()
            raise

    def __exit__(self, *exc: Any) -> None:
        try:
            self._ctx.__exit__(None, None, None)
            if len(_STREAMS) > 1:
                for s in self._saved:
                    _MX.set_default_stream(s)
        finally:
            _release()


#: Finds MLX and calls :func:`start`; returns why MLX is unusable, or None
#: (the MLX backend's probe, set by :func:`on_first_use`).
_FIRST_USE: list[Callable[[], str | None]] = []


def on_first_use(find: Callable[[], str | None]) -> None:
    """Set what finds MLX (and calls :func:`start`) when this module is used
    before MLX was found: the MLX backend's probe."""
    _FIRST_USE[:] = [find]


def start(mx: Any, metal: bool) -> None:
    """Begin evaluating with ``mx`` (``mlx.core``, found and working): the
    library's thread-unsafe streams (the CPU's, and Metal's where it runs)
    and the dtype tables."""
    global _MX, _STREAMS
    _build_dtype_tables(mx)
    streams = [mx.new_thread_unsafe_stream(mx.cpu)]
    if metal:
        streams.append(mx.new_thread_unsafe_stream(mx.gpu))
    _STREAMS = tuple(streams)
    _MX = mx
    _LARGEST[0] = largest_host_allocation()


def streams() -> tuple:
    """The library's streams: the CPU's first, the default device's last."""
    if _MX is None:
        _ready()
    return _STREAMS


def _ready() -> None:
    why = _FIRST_USE[0]() if _MX is None and _FIRST_USE else None
    if _MX is None:
        raise RuntimeError(f"MLX is not available: {why or 'MLX was not found'}")


def compute_context() -> Any:
    """A context manager for building MLX graphs: it holds the evaluation
    lock and makes the library's thread-unsafe stream the default, so that
    the graph can be evaluated in any thread, and any evaluation inside is
    serialised.  Enter it around every MLX namespace call.
    Never acquire a buffer's lock inside it.

    Example
    -------
    >>> from unifiedarray.backends import mlx_evaluation
    >>> import mlx.core as mx
    >>> with mlx_evaluation.compute_context():
    ...     y = mx.ones(3) * 2
    >>> mlx_evaluation.evaluate(y); y.tolist()
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
    _acquire()
    try:
        ctx = _MX.stream(_STREAMS[0])
        ctx.__enter__()
        try:
            return fn(*args)
        finally:
            ctx.__exit__(None, None, None)
    finally:
        _release()


def direct_call(fn: Callable[..., Any], arity: int, mlx_function: bool, name: str = "") -> Callable[..., Any]:
    """``fn`` (what the namespace's ``direct_function`` gave: an
    ``mlx.core`` function where ``mlx_function``, else a namespace impl)
    as the dispatch's fast path calls it with ``arity`` arguments: what the
    namespace function's guard and :func:`compute_context` do around it,
    no more.  Its arguments are settled first while any array may fail or
    has failed (the guard's rule: a poisoned argument raises its failure),
    and its graph is built under the evaluation lock on the library's
    stream of the default device (a direct signature never involves
    float64): an MLX function is given that stream (``stream=``, which
    costs less than entering it); an impl runs inside it, and where it
    hands back its argument (``positive``) the caller gets a new handle,
    as from the namespace function.  Never evaluates.  ``name``, the
    namespace function's, gives its floating-point rule (see
    :func:`check_errors`), applied as the guard applies it."""
    if _MX is None:
        _ready()
    rule = _ERROR_RULES.get(name)
    # acquire/release in try/finally, not ``with lock``: half the cost of
    # the context protocol, a measurable share of a small call's.
    acquire, release = _acquire, _release
    lock = EVAL_LOCK
    stream = _STREAMS[-1]
    mx_array = _MX.array
    if mlx_function and arity == 1:

        def one(a: Any) -> Any:
            acquire()
            try:
                if _ROOTS:
                    settle_arguments((a,))
                res = fn(a, stream=stream)
                if rule is not None:
                    check_errors(rule, (a,), res)
                return res
            finally:
                release()

        return one
    if mlx_function and arity == 2:

        def two(a: Any, b: Any) -> Any:
            acquire()
            try:
                if _ROOTS:
                    settle_arguments((a, b))
                res = fn(a, b, stream=stream)
                if rule is not None:
                    check_errors(rule, (a, b), res)
                return res
            finally:
                release()

        return two

    def impl(*args: Any) -> Any:
        with lock:
            if _ROOTS:
                settle_arguments(args)
            with _MX.stream(stream):
                res = fn(*args)
            if rule is not None:
                check_errors(rule, args, res)
        for a in args:
            if res is a:
                return mx_array(a)
        return res

    return impl


def evaluate(*arrays: Any) -> None:
    """Evaluate MLX arrays (built in any thread inside compute_context, or
    in this thread on its own stream), serialised with every other
    evaluation of the library's stream.  Blocks until the data is there.

    The one place where the library evaluates (with
    :func:`evaluate_element`, its twin for a Python scalar), and so where an
    evaluation failure is caught: the arrays evaluated are poisoned with it (every
    later evaluation of them raises the same error; MLX itself would hand
    out their unwritten memory), and it is raised.  MLX does not say which
    of them failed, so a call evaluates together only arrays that fail
    together (one call's results, an array and a view of it): independent
    arrays are evaluated apart, and a failure poisons only what it failed
    to evaluate.  MLX's refusal to evaluate (:func:`refused`) ran nothing
    and poisons nothing.  A poisoned array, or
    one made by a function whose :data:`FAILURES` outcome is ``"poison"``,
    is settled first (see :func:`settle_arguments`)."""
    _evaluate(arrays, False)


def _evaluate(arrays: Any, fallible: bool, operation: str = "evaluation") -> None:
    """:func:`evaluate`; with ``fallible``, on a thread of its own (see
    :func:`_evaluate_fallible`); ``operation`` is what a refusal names."""
    if _MX is None:
        _ready()
    found = None
    _acquire()  # (not ``with``: see direct_call)
    try:
        if _ROOTS:
            settle_arguments(arrays)
        try:
            if fallible:
                _evaluate_fallible(arrays)
            else:
                _MX.eval(*arrays)
        except Exception as exc:
            err = _evaluation_failed(arrays, exc, operation)
            if err is exc:
                raise
            raise err from exc
        if _PENDING:
            found = _pending_errors()
    finally:
        _release()
    if found:
        _report(found)


#: How MLX's refusal of an array whose graph is bound to another thread's
#: stream starts (MLX 0.32: ``mx.eval``, ``async_eval`` and ``item()`` check
#: every stream of the graph before they run any of it).
_NO_STREAM = "There is no Stream"
_ITEM = "scalar read (item)"


def refused(exc: BaseException, arrays: Any = (), operation: str = "evaluation") -> bool:
    """Whether ``exc`` is MLX's refusal of ``operation`` on ``arrays``,
    raised before it ran any of it, rather than a failure while it ran: the
    one rule that tells the two apart.  A refusal evaluated nothing and
    wrote nothing (found by experiment, MLX 0.32.4: every array of a
    refused evaluation, and everything computed from it, evaluates right
    later where it may), so it poisons nothing; a failure while running
    leaves unwritten memory, which is poisoned (:func:`_evaluation_failed`).

    MLX's refusals: a graph bound to another thread's stream ("There is no
    Stream(cpu, N) in current thread": MLX evaluates a thread's own stream
    only in that thread, see "Threads"), and ``item()`` of an array of
    another size than one (a ``ValueError``)."""
    if isinstance(exc, RuntimeError) and str(exc).startswith(_NO_STREAM):
        return True
    return operation == _ITEM and any(getattr(a, "size", 1) != 1 for a in arrays)


def _refusal(arrays: Any, exc: BaseException, operation: str) -> BaseException:
    """What a refusal (:func:`refused`) raises: ``item()``'s refusal of an
    array's size as MLX raised it; a graph bound to another thread's stream
    as a ``RuntimeError`` naming the backend, the dtype, the operation and
    what to do."""
    if not str(exc).startswith(_NO_STREAM):
        return exc
    mine = [a for a in arrays if isinstance(a, _MX.array)]
    dtypes = "/".join(sorted({np_dtype(a.dtype).name for a in mine}))
    shapes = ", ".join(str(tuple(a.shape)) for a in mine)
    what = f"a {dtypes} array of shape {shapes}" if len(mine) == 1 else f"{dtypes} arrays of shapes {shapes}"
    return RuntimeError(
        f"mlx: {operation} of {what} refused in thread {threading.current_thread().name!r}: "
        f"its lazy graph is bound to a stream of the thread that built it, which MLX evaluates only there "
        f"({exc}). MLX refused before running it, so nothing is changed: evaluate it (mx.eval) in that "
        "thread before handing it to another one"
    )


def _evaluation_failed(arrays: Any, exc: Exception, operation: str = "evaluation") -> BaseException:
    """What :func:`evaluate` and :func:`evaluate_element` do where MLX's
    evaluation of ``arrays`` raised ``exc``; returns what to raise.  A
    refusal (:func:`refused`: nothing ran) poisons nothing, and raises its
    :func:`_refusal`.  A failure while running that no root of ours covers
    (the table missed a kernel, or an "at call" row's kernel failed) left
    the arrays holding unwritten memory: they are poisoned with it, the
    library's streams drained, and ``exc`` raised."""
    if refused(exc, arrays, operation):
        return _refusal(arrays, exc, operation)
    _poison(arrays, _FailedRoot("evaluation", exc))
    _drain()
    return exc


def evaluate_element(native: Any) -> Any:
    """The one element of the MLX array ``native`` (of size 1) as a Python
    scalar: :func:`evaluate` and MLX's ``item()`` as one call (``item()``
    evaluates), under the evaluation lock, a failure of the evaluation caught
    as :func:`evaluate` catches it (``item()``'s refusal of an array of
    another size evaluates nothing, and poisons nothing: :func:`refused`).
    A scalar read's wait and copy (the MLX backend's ``element``): a second
    call into MLX and its lock cost a tenth of a small read."""
    if _MX is None:
        _ready()
    found = None
    _acquire()  # (not ``with``: see direct_call)
    try:
        if _ROOTS:
            settle_arguments((native,))
        try:
            value = native.item()
        except Exception as exc:
            err = _evaluation_failed((native,), exc, _ITEM)
            if err is exc:
                raise
            raise err from exc
        if _PENDING:
            found = _pending_errors()
    finally:
        _release()
    if found:
        _report(found)
    return value


def synchronize() -> None:
    """Wait for the library's streams (work :func:`schedule` started), then
    report every floating-point check still waiting (see
    :func:`check_errors`): a program's point where MLX's warnings are due."""
    _evaluate((), False)
    _acquire()
    try:
        for s in _STREAMS:
            _MX.synchronize(s)
    finally:
        _release()


def schedule(*arrays: Any) -> None:
    """Start evaluating MLX arrays without waiting (``async_eval`` under the
    evaluation lock).  A failure of such an evaluation is raised by whichever
    evaluation of the stream waits next (see "Failures at evaluation"), so
    arrays whose evaluation may fail are settled first, synchronously."""
    if _MX is None:
        _ready()
    _acquire()
    try:
        if _ROOTS:
            settle_arguments(arrays)
        _MX.async_eval(*arrays)
    finally:
        _release()


def settle(native: Any) -> Any:
    """What the buffer calls on an MLX copy it has just written, before the
    copy is published: schedules it unless writes may stay lazy (see
    :data:`lazy_writes`).  Returns ``native``."""
    if not lazy_writes:
        schedule(native)
    return native


# -- NumPy's floating-point error state ------------------------------------------------------

#: Namespace function -> its floating-point rule (see :mod:`._error_state`).
_ERROR_RULES = _error_state.RULES
_modes = _error_state.modes

#: The calls whose flags wait for the next evaluation: (rule, operands,
#: result, the call's modes), in call order.  Appended and taken under the
#: evaluation lock.  Bounded (:data:`_MAX_PENDING` calls, or
#: :data:`_MAX_PENDING_BYTES` of results): the operands and results it holds
#: would otherwise outlive the program's own references.
_PENDING: list[tuple[Any, tuple[Any, ...], Any, tuple[str, str, str]]] = []
_MAX_PENDING = 1024
#: ``[bytes]`` of the results waiting, and the most they may hold
_PENDING_BYTES = [0]
_MAX_PENDING_BYTES = 64 * 2**20

#: The checks of the functions MLX is tracing (``mx.compile``, see
#: :func:`compiled`), innermost last: while it traces, its arrays are
#: placeholders, so a call's operands and result become the compiled
#: function's extra outputs instead.  Changed and read under the evaluation
#: lock (a trace runs inside ``compute_context``).
_TRACING: list[list[tuple[Any, tuple[Any, ...], Any]]] = []

#: The MLX dtypes of floating results (filled with the dtype tables): an
#: integer or bool result is checked only where its rule says it can flag.
_INEXACT: set[Any] = set()


def check_errors(rule: Any, args: tuple[Any, ...], res: Any) -> None:
    """Apply NumPy's error state to one call's MLX result ``res`` of a
    function with floating-point ``rule``: where the call's context says
    "raise" for any flag, the call's flags are found now and acted on
    (``FloatingPointError`` at the call, as NumPy raises); otherwise the
    check waits for the next evaluation of anything (:func:`evaluate`,
    :func:`evaluate_element`, :func:`synchronize`), which warns (or calls,
    logs, prints) then, in the evaluating thread.  Nothing where all three
    modes are "ignore" (a context variable's read), or for an integer
    result that cannot flag.  Inside a function MLX traces, the call joins
    the trace (:func:`compiled`).  Under the evaluation lock (the guard's
    and :func:`direct_call`'s caller holds it)."""
    if type(res) is not _MX.array or (res.dtype not in _INEXACT and not rule.integer_flags):
        return
    if _TRACING:
        _TRACING[-1].append((rule, args[: rule.arity], res))
        return
    found_modes = _modes()
    if found_modes is None:
        return
    _checked_call((rule, args[: rule.arity], res, found_modes))


def _checked_call(call: tuple[Any, Any, Any, tuple[str, str, str]]) -> None:
    """One call's check, made or left waiting (see :func:`check_errors`)."""
    if _error_state.eager(call[3]):
        found = _found_flags([call])[0]
        if found is not None:
            _report([(call[0], call[3], found)])
        return
    _PENDING.append(call)
    _PENDING_BYTES[0] += call[2].nbytes
    if len(_PENDING) >= _MAX_PENDING or _PENDING_BYTES[0] > _MAX_PENDING_BYTES:
        found_all = _pending_errors()
        if found_all:
            _report(found_all)


def compiled(compile: Callable[[Any], Any], fn: Callable[..., Any]) -> Callable[..., Any]:
    """``compile(fn)`` (``mx.compile``) with NumPy's error state applied
    as an eager call applies it: the operands and result of every call the
    trace checks are the compiled function's extra outputs, and each run
    hands them to :func:`check_errors`'s rule under the run's own modes.  A
    run under "raise" checks them at the run (the fused call then falls
    back to its eager calls, which raise at the call that flags)."""
    layout: list[Any] = []  # per traced check: (rule, operand slots, result slot)

    def traced(*args: Any) -> Any:
        collected: list[tuple[Any, tuple[Any, ...], Any]] = []
        _TRACING.append(collected)
        try:
            out = fn(*args)
        finally:
            _TRACING.pop()
        arrays: list[Any] = []
        calls = []
        for rule, operands, res in collected:
            slots = []
            for o in operands:  # an array's slot among the outputs, or a constant of the trace
                slots.append(("array", len(arrays)) if type(o) is _MX.array else ("constant", o))
                if type(o) is _MX.array:
                    arrays.append(o)
            calls.append((rule, tuple(slots), len(arrays)))
            arrays.append(res)
        layout[:] = calls
        return out, tuple(arrays)

    kernel = compile(traced)

    def run(*args: Any) -> Any:
        out, arrays = kernel(*args)
        found_modes = _modes() if layout and not _TRACING else None
        if found_modes is not None:
            for rule, slots, res in layout:
                operands = tuple(arrays[i] if kind == "array" else i for kind, i in slots)
                _checked_call((rule, operands, arrays[res], found_modes))
        return out

    return run


def _host(a: Any) -> Any:
    """An evaluated MLX array's memory as a NumPy array (no copy: the CPU's
    memory, or Metal's unified memory; only read); anything else as it is."""
    if type(a) is _MX.array:
        return np.asarray(memoryview(a))
    return a


def _found_flags(calls: list[Any]) -> list[list[bool] | None]:
    """Every call's three flags (None: none set), found on the host: the
    calls' results and operands evaluated together (one wait: a read
    evaluates them anyway), then each result's one pass, and NumPy's rule
    only for a result that holds a NaN or an infinity
    (:func:`~unifiedarray.backends._error_state.host_flags`).  MLX's own
    reductions cost tens of microseconds a call on the CPU."""
    arrays = [c[2] for c in calls]
    arrays += [o for c in calls for o in c[1] if type(o) is _MX.array]
    _MX.eval(*arrays)
    return [
        None
        if res.dtype in _INEXACT and _finite(res)
        else _error_state.host_flags(rule, tuple(_host(o) for o in operands), _host(res))
        for rule, operands, res, _ in calls
    ]


def _finite(res: Any) -> bool:
    """Whether an evaluated floating MLX array holds no NaN or infinity:
    the clean call's one pass.  A small real array is read through its
    buffer by Python (a microsecond: NumPy's ufunc costs three)."""
    view = memoryview(res)
    if not view.nbytes:  # an empty result (no element to flag; a view of it cannot be cast)
        return True
    if view.format in _REAL_FORMATS and view.nbytes <= 512 and view.c_contiguous:
        return all(map(math.isfinite, view if view.ndim == 1 else view.cast("B").cast(view.format)))  # type: ignore[call-overload]
    return bool(np.isfinite(np.asarray(view)).all())


_REAL_FORMATS = frozenset("efd")


def _pending_errors() -> list[tuple[Any, tuple[str, str, str], list[bool]]]:
    """Take the waiting checks (:data:`_PENDING`) and evaluate their flags:
    those that found any, to :func:`_report` once the lock is released."""
    calls = _PENDING[:]
    _PENDING.clear()
    _PENDING_BYTES[0] = 0
    if _ROOTS:  # a result whose evaluation failed is poisoned: its reads raise that instead
        calls = [c for c in calls if poisoned(c[2]) is None]
        if not calls:
            return []
    try:
        flags = _found_flags(calls)
    except Exception as exc:
        # A kernel failed that the failure table misses (see "Failures at
        # evaluation"), in the graph of a result waiting for its check: MLX
        # does not say which, so every such result is poisoned with it (a
        # false error at worst, never unwritten memory read as data).
        _poison([c[2] for c in calls], _FailedRoot("evaluation", exc))
        _drain()
        return []
    return [(rule, m, f) for (rule, _, _, m), f in zip(calls, flags, strict=True) if f is not None and any(f)]


def _report(found: list[tuple[Any, tuple[str, str, str], list[bool]]]) -> None:
    """Act on found flags as NumPy would have at each call (see
    :func:`unifiedarray.backends._error_state.report`)."""
    for rule, found_modes, flags in found:
        _error_state.report(rule, found_modes, flags)


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
        if not refused(exc):
            raise
        _MX.eval(*arrays)  # where refused again (another thread's graph), the caller's rule applies


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


def at_risk() -> bool:
    """Whether any MLX array may still fail or has failed (so that users of
    an array must settle it first: :func:`settle_arguments`)."""
    return bool(_ROOTS)


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
            if refused(exc):
                raise _refusal((array,), exc, f"{root.path}'s evaluation") from exc
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


def arrays_in(res: Any) -> list[Any]:
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
    >>> from unifiedarray.backends import mlx_evaluation
    >>> svdvals = mlx_evaluation.guard("linalg.svdvals", lambda a: mx.linalg.svd(a, compute_uv=False, stream=mx.cpu))
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
            for a in arrays_in(res):
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
                _evaluate(arrays_in(res), True, f"{path}'s evaluation")
            except Exception as exc:
                new = _host_error(path, failure, exc)
                if new is exc:
                    raise
                raise new from exc
            return res

        return at_call

    largest = [2**63] if path in _VIEWS else _LARGEST
    rule = _ERROR_RULES.get(path)
    if rule is not None:
        return _checked(path, fn, rule, largest)

    @functools.wraps(fn)
    def plain(*args: Any, **kwargs: Any) -> Any:
        if _ROOTS:
            settle_arguments(args, kwargs)
        res = fn(*args, **kwargs)
        if getattr(res, "nbytes", 0) > largest[0]:  # an MLX array (MLX may not have been started: not _MX.array)
            raise _too_large(path, res)
        return res

    return plain


def _checked(path: str, fn: Callable[..., Any], rule: Any, largest: list[int]) -> Callable[..., Any]:
    """The guard's wrapper of a function with a floating-point rule (see
    :func:`check_errors`): settled arguments, the size bound, the check."""

    @functools.wraps(fn)
    def checked(*args: Any, **kwargs: Any) -> Any:
        if _ROOTS:
            settle_arguments(args, kwargs)
        res = fn(*args, **kwargs)
        if getattr(res, "nbytes", 0) > largest[0]:
            raise _too_large(path, res)
        check_errors(rule, args, res)
        return res

    return checked


#: ``[bytes]``: the largest array a namespace function may make on MLX
#: (``_base.largest_host_allocation``, read at :func:`start`).  MLX 0.32's
#: CPU allocator does not survive a failed allocation: evaluating
#: ``mx.ones((2**30, 16))`` on a 24 GB machine ends the process (SIGSEGV).
#: So a namespace function's result larger than any allocation can be is
#: refused where it is built, NumPy's ``MemoryError`` (``xp.ones``,
#: ``tile``, ``outer``...; a view, :data:`_VIEWS`, never is).  Not caught: an array that is
#: smaller but still does not fit in what is free, and a broadcasting
#: operator's result on the operators' fast path.
_LARGEST = [2**63]


#: The functions whose result is a view of its input's memory (MLX
#: evaluates a broadcast as strides, as NumPy does): never too large.
_VIEWS = frozenset(
    [
        "broadcast_to",
        "broadcast_arrays",
        "expand_dims",
        "reshape",
        "permute_dims",
        "squeeze",
        "view_getitem",  # a view's basic index (b[::2], b[:, None])
        "view_permute",  # a view's transpose (b.T)
    ]
)


def _too_large(path: str, res: Any) -> MemoryError:
    return MemoryError(
        f"mlx {path}: unable to allocate {res.nbytes / 2**30:.1f} GiB for an array with shape "
        f"{tuple(res.shape)} and data type {MX_TO_NP.get(res.dtype, res.dtype)}"
    )


def stream() -> Any:
    """The library's stream on MLX's default device (for ``stream=``)."""
    if _MX is None:
        _ready()
    return _STREAMS[-1]
