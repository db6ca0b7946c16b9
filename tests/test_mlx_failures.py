"""Failures that MLX reports late: never swallowed, never read as data.

MLX (0.32) builds graphs lazily; a kernel that fails (LAPACK's SVD of NaN,
a singular inverse, an eigensolver that does not converge) raises nothing
at the call, raises once at the first read, and then hands out unwritten
memory to every later read and to everything computed from it.  The one
table ``mlx_evaluation.FAILURES`` decides, per namespace function, whether
the failure is raised at the call (the host's class) or the result is
poisoned (every later use raises the same error); ``mlx_evaluation.evaluate``
is where the library evaluates and keeps a failure on its arrays.

The comparisons here are against NumPy and the host device; the injection
tests are MLX's own (they replace namespace functions by ones whose result
fails at evaluation).
"""

from __future__ import annotations

import inspect
import math
import re
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import array_api_strict as strict
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.linalg import LinAlgError

import unifiedarray as xp
from unifiedarray import _resolve, compute

from .conftest import DEVICES, HAS_MLX, needs_mlx

if HAS_MLX:
    import mlx.core as mx

    from unifiedarray.backends import mlx_evaluation
    from unifiedarray.backends import mlx_namespace as mlx_ns

NAN_MATRIX = np.array([[1.0, np.nan], [0.0, 1.0]])

#: The host and MLX (CUDA's late failures are not this file's subject).
HOST_AND_MLX = [d for d in DEVICES if not d.startswith("cuda")]


def outcome(call: Callable[[], Any]) -> tuple[str, Any]:
    """("ok", values) or ("raised", the exception's class)."""
    try:
        res = call()
    except Exception as exc:
        return "raised", type(exc)
    res = res if isinstance(res, tuple) else (res,)
    return "ok", [np.asarray(r).tolist() for r in res]


# -- the reported examples, against the host -----------------------------------------------------


SVD_FAMILY: dict[str, Callable[[Any], Any]] = {
    "svd": lambda a: xp.linalg.svd(a),
    "svd reduced": lambda a: xp.linalg.svd(a, full_matrices=False),
    "svdvals": lambda a: xp.linalg.svdvals(a),
    "pinv": lambda a: xp.linalg.pinv(a),
    "matrix_rank": lambda a: xp.linalg.matrix_rank(a),
    "matrix_norm nuc": lambda a: xp.linalg.matrix_norm(a, ord="nuc"),
    "matrix_norm 2": lambda a: xp.linalg.matrix_norm(a, ord=2),
    "matrix_norm -2": lambda a: xp.linalg.matrix_norm(a, ord=-2),
}


@pytest.mark.parametrize("device", HOST_AND_MLX)
@pytest.mark.parametrize("name", sorted(SVD_FAMILY))
def test_svd_family_of_nan_raises_linalg_error_at_the_call(device: str, name: str) -> None:
    """The host raises LinAlgError at the call (NumPy: "SVD did not
    converge"); MLX raised RuntimeError at the first read."""
    a = xp.asarray(NAN_MATRIX, device=device)
    with pytest.raises(LinAlgError):
        SVD_FAMILY[name](a)
    with pytest.raises(LinAlgError):
        np.linalg.svd(NAN_MATRIX)


@pytest.mark.parametrize("device", HOST_AND_MLX)
def test_svdvals_of_nan_leaves_nothing_to_read_and_nothing_to_consume(device: str) -> None:
    """The issue's sequence: no array is made, so no read gives garbage and
    ``z += s`` / ``y[...] = s`` cannot take one; z and y keep their data."""
    a = xp.asarray(NAN_MATRIX, device=device)
    with pytest.raises(LinAlgError):
        xp.linalg.svdvals(a)
    z = xp.ones(2, device=device)
    y = xp.zeros(2, device=device)
    assert z.tolist() == [1.0, 1.0] and y.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("device", HOST_AND_MLX)
@pytest.mark.parametrize("ord", [math.inf, -math.inf])
@pytest.mark.parametrize(("shape", "axis"), [((0,), None), ((2, 0), 1), ((0, 3), (0, 1)), ((2, 0), 0)])
def test_vector_norm_of_empty_with_infinite_ord_is_numpys(device: str, ord: float, shape: tuple, axis: Any) -> None:
    """0.0 for inf (array-api-strict and the host), ValueError for -inf; MLX
    raised AxisError for both."""
    got = outcome(lambda: xp.linalg.vector_norm(xp.zeros(shape, device=device), axis=axis, ord=ord))
    want = outcome(lambda: strict.linalg.vector_norm(strict.zeros(shape), axis=axis, ord=ord).__array__())
    assert got == want


@pytest.mark.parametrize("device", HOST_AND_MLX)
@pytest.mark.parametrize("name", ["eig", "eigvals"])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_eig_of_non_finite_input_is_refused_as_numpy_refuses_it(device: str, name: str, bad: float) -> None:
    """NumPy: LinAlgError ("Array must not contain infs or NaNs"); MLX gave
    garbage eigenvalues for one NaN (and ends the process for a matrix of
    NaN, which is why that case is not run here on unfixed code)."""
    m = np.array([[1.0, 0.0], [bad, 1.0]], dtype=np.float32)
    with pytest.raises(LinAlgError):
        getattr(np.linalg, name)(m)
    with pytest.raises(LinAlgError):
        getattr(xp.linalg, name)(xp.asarray(m, device=device))


@pytest.mark.parametrize("device", HOST_AND_MLX)
@pytest.mark.parametrize("name", ["eigh", "eigvalsh"])
def test_eigh_that_does_not_converge_raises_at_the_call(device: str, name: str) -> None:
    m = np.full((3, 3), np.nan)
    with pytest.raises(LinAlgError):
        getattr(np.linalg, name)(m)
    with pytest.raises(LinAlgError):
        getattr(xp.linalg, name)(xp.asarray(m, device=device))


# -- every row of the table: a real failing input, the host's class at the call -------------------

#: For each row of mlx_evaluation.FAILURES, an input whose kernel fails on MLX,
#: and the call; the host must raise the same class.  A new row needs one.
ROW_EXAMPLES: dict[str, Callable[[str], Any]] = {
    "linalg.svd": lambda d: xp.linalg.svd(xp.asarray(NAN_MATRIX, device=d)),
    "linalg.svdvals": lambda d: xp.linalg.svdvals(xp.asarray(NAN_MATRIX, device=d)),
    "linalg.eigh": lambda d: xp.linalg.eigh(xp.asarray(np.full((3, 3), np.nan), device=d)),
    "linalg.eigvalsh": lambda d: xp.linalg.eigvalsh(xp.asarray(np.full((3, 3), np.nan), device=d)),
    "linalg.eig": lambda d: xp.linalg.eig(xp.asarray(np.full((3, 3), np.nan, dtype=np.float32), device=d)),
    "linalg.eigvals": lambda d: xp.linalg.eigvals(xp.asarray(np.full((3, 3), np.inf, dtype=np.float32), device=d)),
    "linalg.inv": lambda d: xp.linalg.inv(xp.asarray([[1.0, 2.0], [2.0, 4.0]], device=d)),
    "linalg.solve": lambda d: xp.linalg.solve(xp.asarray([[1.0, 2.0], [2.0, 4.0]], device=d), xp.ones(2, device=d)),
    "linalg.cholesky": lambda d: xp.linalg.cholesky(xp.asarray([[1.0, 2.0], [2.0, 1.0]], device=d)),
    "setitem": lambda d: xp.zeros(4, device=d).__setitem__(
        xp.asarray([True, False, True, True], device=d), xp.asarray([1.0, 2.0], device=d)
    ),
}


@needs_mlx
def test_every_row_of_the_failure_table_has_an_example() -> None:
    assert set(ROW_EXAMPLES) == set(mlx_evaluation.FAILURES)


@needs_mlx
@pytest.mark.parametrize("path", sorted(ROW_EXAMPLES))
def test_each_row_raises_the_hosts_class_at_the_call(path: str) -> None:
    row = mlx_evaluation.FAILURES[path]
    assert row.outcome == mlx_evaluation.AT_CALL  # MLX 0.32's kernels all have an exact check at the call
    host = outcome(lambda: ROW_EXAMPLES[path]("cpu"))
    on_mlx = outcome(lambda: ROW_EXAMPLES[path]("mlx"))
    assert host == ("raised", host[1]) and issubclass(host[1], row.error)
    assert on_mlx == host


#: MLX's linear algebra kernels that can fail when their result is evaluated.
_FALLIBLE_KERNELS = re.compile(r"\bmx\.linalg\.(svd|inv|solve|eigh|eigvalsh|eig|eigvals|cholesky)\(")


@needs_mlx
def test_every_function_calling_a_fallible_kernel_has_a_row() -> None:
    """A namespace function that calls one of MLX's failing kernels itself
    must be in the table (functions built on another namespace function
    inherit that function's row through the call)."""
    missing = []
    for module in (mlx_ns.linalg, mlx_ns.fft):
        for name in module.__all__:
            source = inspect.getsource(inspect.unwrap(getattr(module, name)))
            if _FALLIBLE_KERNELS.search(source) and f"{module.__name__.rsplit('.', 1)[1]}.{name}" not in (
                mlx_evaluation.FAILURES
            ):
                missing.append(name)
    assert not missing


# -- injection: every operation class, both outcomes --------------------------------------------


#: Where a test evaluates a failing graph the library does not expect to fail
#: (a table miss, a user's array): not on MLX's main thread, where a failure
#: may leave MLX's task count high and, after a few, hang the test process
#: (see mlx_evaluation, "Failures at evaluation").
_ELSEWHERE = ThreadPoolExecutor(1, thread_name_prefix="test-mlx-failures")


def off_the_main_thread(body: Callable[[], None]) -> None:
    _ELSEWHERE.submit(body).result()


def _failing_svd() -> Any:
    """An MLX array whose evaluation fails (LAPACK's SVD of NaN)."""
    return mx.linalg.svd(mx.array(NAN_MATRIX, dtype=mx.float32), compute_uv=False, stream=mx.cpu)


def failing(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` whose result has its values and dtype but fails at evaluation."""

    def injected(*args: Any, **kwargs: Any) -> Any:
        res = fn(*args, **kwargs)
        with mlx_evaluation.compute_context():
            return mx.where(mx.sum(_failing_svd()) == 0, res, res)

    return injected


#: One function of each class of the MLX namespace, and a call of it through
#: the library that makes a (3,) float64 array from ``a`` and ``b``.
OPERATION_CLASSES: dict[str, tuple[str, Callable[[Any, Any], Any]]] = {
    "unary elementwise": ("sin", lambda a, b: xp.sin(a)),
    "binary elementwise (operator)": ("add", lambda a, b: a + b),
    "binary elementwise (reflected scalar)": ("subtract", lambda a, b: 1.0 - a),
    "reduction": ("sum", lambda a, b: xp.sum(xp.stack([a, b]), axis=0)),
    "statistics": ("mean", lambda a, b: xp.mean(xp.stack([a, b]), axis=0)),
    "manipulation": ("concat", lambda a, b: xp.concat([a[:1], b[1:]])),
    "indexing": ("getitem", lambda a, b: a[xp.asarray([2, 1, 0], device="mlx")]),
    "sorting": ("sort", lambda a, b: xp.sort(a)),
    "searching": ("where", lambda a, b: xp.where(a > 1, a, b)),
    "creation": ("linspace", lambda a, b: xp.linspace(0.0, 1.0, 3, device="mlx")),
    "triangles": ("tril", lambda a, b: xp.tril(xp.stack([a, b, a]))[0]),
    "linalg": ("linalg.vecdot", lambda a, b: xp.linalg.vecdot(xp.stack([a, b]).T, xp.ones((3, 2), device="mlx"))),
    "matmul": ("matmul", lambda a, b: xp.stack([a, b, a]) @ xp.ones(3, device="mlx")),
    "fft": ("fft.fftshift", lambda a, b: xp.fft.fftshift(a)),
}


class _ResolutionCache:
    """The dispatch's one cache of resolved functions, for monkeypatch:
    setting ``entries`` replaces the cache's contents in place (every module
    of the dispatch holds the same dict) through ``_resolve.reset``, which
    stales what was decided from them, so monkeypatch's undo puts the old
    contents back."""

    @property
    def entries(self) -> dict:
        return dict(_resolve.RESOLVED)

    @entries.setter
    def entries(self, value: dict) -> None:
        _resolve.reset(value)


def _fresh_resolution(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every function resolved anew (the patched namespace's) until the test ends."""
    monkeypatch.setattr(_ResolutionCache(), "entries", {})


def _namespace_of(path: str) -> tuple[Any, str]:
    ns = compute.namespace_for("mlx")
    *parents, name = path.split(".")
    for p in parents:
        ns = getattr(ns, p)
    return ns, name


def inject(monkeypatch: pytest.MonkeyPatch, path: str, row: Any) -> None:
    """Make ``path`` fail at evaluation, with ``row`` as its table entry
    (None: no entry, as if the table missed it)."""
    ns, name = _namespace_of(path)
    original = inspect.unwrap(getattr(ns, name))
    if row is None:
        monkeypatch.delitem(mlx_evaluation.FAILURES, path, raising=False)
    else:
        monkeypatch.setitem(mlx_evaluation.FAILURES, path, row)
    monkeypatch.setattr(ns, name, mlx_evaluation.guard(path, failing(original)))
    _fresh_resolution(monkeypatch)


POISON_ROW = (
    mlx_evaluation.Failure(mlx_evaluation.POISON, LinAlgError, "SVD did not converge", "SVD", False, "injected")
    if HAS_MLX
    else None
)
AT_CALL_ROW = (
    mlx_evaluation.Failure(mlx_evaluation.AT_CALL, LinAlgError, "SVD did not converge", "SVD", True, "injected")
    if HAS_MLX
    else None
)


def _operands() -> tuple[Any, Any]:
    return xp.asarray([1.0, 2.0, 3.0], device="mlx"), xp.asarray([4.0, 5.0, 6.0], device="mlx")


def assert_poisoned(s: Any, error: type[BaseException]) -> None:
    """Every use of s raises ``error``: reads (twice), a view's read, a
    result computed from it, in-place operations and setitem with it (whose
    targets keep their data), NumPy's read, an export."""
    for _ in range(2):
        with pytest.raises(error):
            s.tolist()
    with pytest.raises(error):
        np.asarray(s)
    with pytest.raises(error):
        float(s[0])
    with pytest.raises(error):
        s[1:].tolist()
    with pytest.raises(error):
        (s * 2).tolist()
    with pytest.raises(error):
        xp.sum(s).tolist()
    z = xp.ones(3, device="mlx")
    with pytest.raises(error):
        z += s
    y = xp.zeros(3, device="mlx")
    with pytest.raises(error):
        y[...] = s
    with pytest.raises(error):
        y[1] = s[0]
    assert z.tolist() == [1.0, 1.0, 1.0] and y.tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(error):
        s += 1.0
    with pytest.raises(error):
        s.__mlx_array__()
    with pytest.raises(error):
        s.to_device("cpu")


@needs_mlx
@pytest.mark.parametrize("op_class", sorted(OPERATION_CLASSES))
def test_injected_failure_with_a_poison_row_poisons_the_result(monkeypatch: pytest.MonkeyPatch, op_class: str) -> None:
    path, call = OPERATION_CLASSES[op_class]
    inject(monkeypatch, path, POISON_ROW)
    a, b = _operands()
    s = call(a, b)  # lazy: nothing raised at the call
    assert s.shape == (3,)
    assert_poisoned(s, LinAlgError)
    assert a.tolist() == [1.0, 2.0, 3.0] and b.tolist() == [4.0, 5.0, 6.0]


@needs_mlx
@pytest.mark.parametrize("op_class", sorted(OPERATION_CLASSES))
def test_injected_failure_with_a_poison_row_poisons_the_consumer_read_first(
    monkeypatch: pytest.MonkeyPatch, op_class: str
) -> None:
    """A result computed from the lazy failing one, read before it: the
    failing node is evaluated alone first, so both raise."""
    path, call = OPERATION_CLASSES[op_class]
    inject(monkeypatch, path, POISON_ROW)
    a, b = _operands()
    s = call(a, b)
    with pytest.raises(LinAlgError):
        (s + 1).tolist()
    assert_poisoned(s, LinAlgError)


@needs_mlx
@pytest.mark.parametrize("op_class", sorted(OPERATION_CLASSES))
def test_injected_failure_with_an_at_call_row_raises_the_hosts_class_at_the_call(
    monkeypatch: pytest.MonkeyPatch, op_class: str
) -> None:
    path, call = OPERATION_CLASSES[op_class]
    inject(monkeypatch, path, AT_CALL_ROW)
    a, b = _operands()
    with pytest.raises(LinAlgError):
        call(a, b)
    assert a.tolist() == [1.0, 2.0, 3.0] and b.tolist() == [4.0, 5.0, 6.0]


@needs_mlx
@pytest.mark.parametrize("op_class", sorted(OPERATION_CLASSES))
def test_injected_failure_the_table_misses_is_never_read_as_data(
    monkeypatch: pytest.MonkeyPatch, op_class: str
) -> None:
    """No row: the evaluation point still keeps the failure on the array it
    evaluated, so the first read raises MLX's error and so does every later
    one (MLX alone hands out unwritten memory from the second read on)."""
    path, call = OPERATION_CLASSES[op_class]
    inject(monkeypatch, path, None)

    def body() -> None:
        a, b = _operands()
        s = call(a, b)
        assert_poisoned(s, RuntimeError)

    off_the_main_thread(body)


@needs_mlx
@pytest.mark.parametrize("op_class", sorted(OPERATION_CLASSES))
def test_a_scalar_read_of_a_failing_lone_result_raises_every_time(
    monkeypatch: pytest.MonkeyPatch, op_class: str
) -> None:
    """``float()`` of a lazy lone result (no buffer) whose graph fails, no
    row of the table covering it: the scalar read (MLX's ``item()``, the
    evaluation and the copy in one call) is an evaluation point, so the
    failure stays on the array it evaluated: every later read of it raises
    (MLX alone hands out its unwritten memory from the second read on), and
    nothing is counted as moved."""
    path, call = OPERATION_CLASSES[op_class]
    inject(monkeypatch, path, None)

    def body() -> None:
        a, b = _operands()
        s = call(a, b)
        total = xp.sum(s)  # 0-d, lazy, a lone result
        assert total.buffer_made is None
        with xp.track_transfers() as t:
            for _ in range(2):
                with pytest.raises(RuntimeError):
                    float(total)
        assert t.count == 0
        assert total.buffer_made is None  # the read made no buffer
        with pytest.raises(RuntimeError):
            total.tolist()
        with pytest.raises(RuntimeError):
            bool(total + 1.0)

    off_the_main_thread(body)


@needs_mlx
def test_an_element_read_refused_for_its_size_poisons_nothing() -> None:
    """MLX's item() refuses an array of two elements (a ValueError, nothing
    evaluated): the scalar read's evaluation point raises it and keeps no
    failure on the array, which still reads."""
    pair = mx.zeros((2,))
    mx.eval(pair)
    with pytest.raises(ValueError):
        mlx_evaluation.evaluate_element(pair)
    assert mlx_evaluation.poisoned(pair) is None
    mlx_evaluation.evaluate(pair)  # raises nothing
    assert mlx_evaluation.evaluate_element(pair[1]) == 0.0


def _lazy_in(owner: ThreadPoolExecutor, stream: str) -> Any:
    """``arange(4) * 2``, lazy, built in ``owner``'s thread on its default
    stream or on a stream it made: a graph only that thread can evaluate."""

    def build() -> Any:
        if stream == "default":
            return mx.arange(4, dtype=mx.float32) * 2
        with mx.stream(mx.new_stream(mx.cpu)):
            return mx.arange(4, dtype=mx.float32) * 2

    return owner.submit(build).result()


@needs_mlx
@pytest.mark.parametrize("stream", ["default", "new_stream"])
def test_another_threads_lazy_array_is_refused_and_stays_usable_in_its_own_thread(stream: str) -> None:
    """Issue 33, item 7: a user's lazy array built in one thread, handed to
    another: MLX refuses to evaluate it there ("There is no Stream in
    current thread") before running anything.  That refusal was taken for
    a failure and poisoned the array: even the thread that owns it then got
    RuntimeError from ``xp.asarray(a)``.  A refusal poisons nothing now; it
    is a RuntimeError naming the backend, the dtype and the operation."""
    with ThreadPoolExecutor(1, thread_name_prefix="test-owner") as owner:
        a = _lazy_in(owner, stream)
        refusals = []
        for refused_here in (
            lambda: xp.asarray(a),
            lambda: xp.asarray(a, device="cpu"),
            lambda: xp.ones(4, device="mlx") + a,
        ):
            with pytest.raises(RuntimeError) as info:
                refused_here()
            refusals.append(info.value)
            assert mlx_evaluation.poisoned(a) is None
        assert owner.submit(lambda: xp.asarray(a).tolist()).result() == [0.0, 2.0, 4.0, 6.0]
        assert owner.submit(lambda: np.asarray(xp.asarray(a, device="cpu")).tolist()).result() == [0.0, 2.0, 4.0, 6.0]
        # ... and, evaluated there, anywhere.
        assert xp.asarray(a).tolist() == [0.0, 2.0, 4.0, 6.0]
    for exc in refusals:
        message = str(exc)
        assert message.startswith("mlx: evaluation of a float32 array of shape (4,) refused"), message
        assert f"in thread {threading.current_thread().name!r}" in message and "There is no Stream" in message
        assert isinstance(exc.__cause__, RuntimeError)


@needs_mlx
def test_a_refused_evaluation_poisons_nothing_it_was_asked_to_evaluate() -> None:
    """A failed evaluation poisons only what it failed to evaluate; a
    refusal evaluated nothing and poisons nothing: neither the other
    thread's array nor the library's lazy array evaluated with it, which
    still evaluates right, also read as a scalar (``item()``'s refusal)."""
    with ThreadPoolExecutor(1, thread_name_prefix="test-owner") as owner:
        a = _lazy_in(owner, "default")
        with mlx_evaluation.compute_context():
            ours = mx.ones(3) * 5
        with pytest.raises(RuntimeError, match=r"^mlx: evaluation of float32 arrays of shapes \(3,\), \(4,\) refused"):
            mlx_evaluation.evaluate(ours, a)
        with pytest.raises(RuntimeError, match=r"^mlx: scalar read \(item\) of a float32 array of shape \(\) refused"):
            mlx_evaluation.evaluate_element(owner.submit(lambda: mx.sum(a)).result())
        assert mlx_evaluation.poisoned(a) is None and mlx_evaluation.poisoned(ours) is None
        mlx_evaluation.evaluate(ours)
        assert ours.tolist() == [5.0, 5.0, 5.0]
        assert owner.submit(lambda: (mlx_evaluation.evaluate(a), a.tolist())[1]).result() == [0.0, 2.0, 4.0, 6.0]


@needs_mlx
def test_refused_tells_a_refusal_from_a_failure_while_running() -> None:
    """The one rule (``mlx_evaluation.refused``): MLX's refusals (another
    thread's stream; ``item()`` of an array of another size) against a
    kernel's failure while it ran (LAPACK's SVD of NaN)."""
    with ThreadPoolExecutor(1) as owner:
        a = _lazy_in(owner, "default")
        with pytest.raises(RuntimeError) as no_stream:
            mx.eval(a)
    failed: list[BaseException] = []

    def fail() -> None:
        try:
            mx.eval(_failing_svd())
        except RuntimeError as exc:
            failed.append(exc)

    off_the_main_thread(fail)
    with pytest.raises(ValueError) as size:
        mx.zeros((2,)).item()
    assert mlx_evaluation.refused(no_stream.value)
    assert not mlx_evaluation.refused(failed[0])
    assert mlx_evaluation.refused(size.value, (mx.zeros((2,)),), "scalar read (item)")
    assert not mlx_evaluation.refused(failed[0], (mx.zeros(()),), "scalar read (item)")


@needs_mlx
def test_two_lazy_failing_candidates_only_the_failing_one_is_poisoned(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each lazy result of a "poison" row is evaluated alone before anything
    takes it, so a failure is pinned on its own array: the good one reads."""
    ns, _ = _namespace_of("sin")
    good_sin = inspect.unwrap(ns.sin)
    monkeypatch.setitem(mlx_evaluation.FAILURES, "sin", POISON_ROW)
    monkeypatch.setitem(mlx_evaluation.FAILURES, "cos", POISON_ROW)
    monkeypatch.setattr(ns, "sin", mlx_evaluation.guard("sin", good_sin))
    monkeypatch.setattr(ns, "cos", mlx_evaluation.guard("cos", failing(inspect.unwrap(ns.cos))))
    _fresh_resolution(monkeypatch)
    a, _ = _operands()
    good, bad = xp.sin(a), xp.cos(a)
    with pytest.raises(LinAlgError):
        good + bad
    assert good.tolist() == np.sin([1.0, 2.0, 3.0]).tolist()
    assert_poisoned(bad, LinAlgError)


@needs_mlx
def test_a_users_failing_mlx_array_raises_at_every_entry() -> None:
    """MLX evaluates a foreign array where it enters; its failure stays on
    it: a second asarray raised nothing and read unwritten memory."""

    def body() -> None:
        with mlx_evaluation.compute_context():  # on the library's stream: any thread may evaluate it
            f, g = _failing_svd(), _failing_svd()
        for _ in range(2):
            with pytest.raises(RuntimeError, match="SVD"):
                xp.asarray(f)
        z = xp.ones(2, device="mlx")
        for _ in range(2):
            with pytest.raises(RuntimeError, match="SVD"):
                z += g
        assert z.tolist() == [1.0, 1.0]

    off_the_main_thread(body)


@needs_mlx
def test_a_failing_operand_of_a_write_through_a_lease_poisons_the_operand_only() -> None:
    """A failed evaluation poisons only what it failed to evaluate: the
    operand of a write through an MLX lease is evaluated alone (it was
    evaluated with the lease, and poisoned the lease, the buffer's own
    copy, with it), so the lease's array keeps its data and reads."""

    def body() -> None:
        z = xp.ones(2, device="mlx")
        h = z.buffer.mlx
        with mlx_evaluation.compute_context():  # on the library's stream: any thread may evaluate it
            f, g = _failing_svd(), _failing_svd()
        with pytest.raises(RuntimeError, match="SVD"):
            h += f
        with pytest.raises(RuntimeError, match="SVD"):
            h[...] = g
        assert mlx_evaluation.poisoned(h) is None
        assert z.tolist() == [1.0, 1.0]
        assert mlx_evaluation.poisoned(f) is not None and mlx_evaluation.poisoned(g) is not None

    off_the_main_thread(body)


@needs_mlx
def test_a_full_overwrite_clears_a_poisoned_buffer(monkeypatch: pytest.MonkeyPatch) -> None:
    inject(monkeypatch, "sin", POISON_ROW)
    a, _ = _operands()
    s = xp.sin(a)
    with pytest.raises(LinAlgError):
        s.tolist()
    s.buffer.fill(7.0)
    assert s.tolist() == [7.0, 7.0, 7.0]
    s2 = xp.sin(a)
    with pytest.raises(LinAlgError):
        s2.tolist()
    s2.buffer.copy_from(np.arange(3.0))
    assert s2.tolist() == [0.0, 1.0, 2.0]


@needs_mlx
def test_functions_without_failures_register_nothing() -> None:
    """The hot path: functions that cannot fail register nothing (with no
    failed array alive, each guard costs one truth test, and no evaluation)."""
    before = set(mlx_evaluation._ROOTS)
    a, b = _operands()
    c = xp.sin(a) * b + xp.sum(a)
    assert c.tolist() == (np.sin([1.0, 2.0, 3.0]) * [4.0, 5.0, 6.0] + 6.0).tolist()
    assert not set(mlx_evaluation._ROOTS) - before


@needs_mlx
def test_every_namespace_function_is_guarded() -> None:
    """A new function of the MLX namespace cannot miss its row: every public
    function (and linalg's and fft's) is wrapped by the guard."""
    ns = compute.namespace_for("mlx")
    unguarded = []
    for prefix, module in (("", mlx_ns), ("linalg.", mlx_ns.linalg), ("fft.", mlx_ns.fft)):
        for name in getattr(module, "__all__", []):
            fn = getattr(module, name)
            ours = callable(fn) and not isinstance(fn, type) and fn.__module__.startswith(mlx_ns.__name__)
            if ours and fn.__code__.co_name not in ("plain", "checked", "at_call", "lazy"):
                unguarded.append(prefix + name)
    assert not unguarded
    assert ns.linalg.svdvals is mlx_ns.linalg.svdvals


@needs_mlx
@settings(max_examples=30, deadline=None)
@given(
    rows=st.integers(1, 4),
    cols=st.integers(1, 4),
    where=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.just(np.nan)), max_size=3),
    fn=st.sampled_from(sorted(SVD_FAMILY)),
)
def test_drawn_non_finite_matrices_give_the_hosts_answer_or_class(rows: int, cols: int, where: list, fn: str) -> None:
    """The SVD family on matrices with NaN drawn anywhere: MLX gives the
    host's class at the call, or the host's values.  (No infinities: LAPACK's
    gesdd never returns for some, on the host as on MLX, e.g. a 3 x 3 matrix
    with one inf.)"""
    m = np.arange(1.0, rows * cols + 1).reshape(rows, cols)
    for i, j, v in where:
        m[i % rows, j % cols] = v
    host = outcome(lambda: SVD_FAMILY[fn](xp.asarray(m)))
    on_mlx = outcome(lambda: SVD_FAMILY[fn](xp.asarray(m, device="mlx")))
    if host[0] == "raised":
        assert on_mlx == host
    else:
        assert on_mlx[0] == "ok"
        # svd's singular vectors are unique only up to sign: its S is compared.
        vectors = fn.startswith("svd ") or fn == "svd"
        pairs = [(host[1][1], on_mlx[1][1])] if vectors else list(zip(host[1], on_mlx[1], strict=True))
        for h, g in pairs:
            np.testing.assert_allclose(np.asarray(g), np.asarray(h), rtol=1e-6, atol=1e-8, equal_nan=True)


@pytest.mark.parametrize(
    "make",
    [
        lambda d: xp.ones((2**30, 16), device=d),
        lambda d: xp.zeros((2**30, 16), dtype=xp.float32, device=d),
        lambda d: xp.full((2**29, 64), 1.5, device=d),
        lambda d: xp.linalg.outer(xp.ones(2**18, device=d), xp.ones(2**18, device=d)),
    ],
    ids=["ones", "zeros", "full", "outer"],
)
@pytest.mark.parametrize("device", HOST_AND_MLX)
def test_an_array_larger_than_memory_is_a_memory_error_not_the_end_of_the_process(make, device):
    """64 GiB or more on a machine with less: NumPy's ``MemoryError`` on
    every device.  MLX's CPU allocator ends the process when an allocation
    fails (SIGSEGV), so the MLX namespace refuses a result larger than any
    allocation can be where it is built (``mlx_evaluation._LARGEST``)."""
    from unifiedarray.backends import largest_host_allocation

    if largest_host_allocation() >= 2**36:
        pytest.skip("this machine could hold 64 GiB")
    with pytest.raises(MemoryError):
        make(device)
    assert float(xp.sum(xp.ones(3, device=device))) == 3.0  # and the process goes on


@needs_mlx
def test_views_of_a_broadcast_larger_than_memory_are_never_refused_on_mlx():
    """A broadcast of 2**36 elements is strides on MLX: its transpose and
    basic indices are views too, and reading one element allocates nothing
    (the size check once refused ``b.T`` and ``b[:, None]``).  (The host
    gives a broadcast memory of its own, a copy: a ``MemoryError`` there.)"""
    b = xp.broadcast_to(xp.ones(1, device="mlx"), (2**18, 2**18))
    assert float(b.T[0, 0]) == 1.0
    assert float(b[:, None][0, 0, 0]) == 1.0
    assert float(b[::2][3, 5]) == 1.0
