"""Failing inputs fail the same way on every device.

A differential test of inputs that must fail: for each function and each
such input (out-of-range indices, singular and non-positive-definite
matrices, bad axes, complex-to-real casts, integers to negative powers,
huge indices, wrong argument types), the exception class on MLX is the one
the host (NumPy) raises, and the one array-api-strict raises where it raises
one, and it is raised at the call, not at a later read.  Crashes of MLX
itself (SIGFPE) are run in a child process, which must exit cleanly.

Where the host is wrong today (it accepts a call the standard forbids), the
host half is marked ``xfail(strict=True)``: it flips when the lead's
dispatch makes the host refuse it too.
"""

from __future__ import annotations

import collections
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from typing import Any

import array_api_strict as strict
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.exceptions import AxisError
from numpy.linalg import LinAlgError

import unifiedarray as ua
from tests.conftest import DEVICES, HAS_MLX
from unifiedarray import _errors as ua_errors

pytestmark = pytest.mark.skipif(not HAS_MLX, reason="MLX unavailable")

SETTINGS = settings(
    max_examples=int(os.environ.get("ERRORS_EXAMPLES", "15")),
    deadline=None,
    suppress_health_check=list(HealthCheck),
    database=None,
)

HOST_WRONG = "the host accepts what the standard refuses"

Maker = Callable[..., Any]


def maker(xp: Any, device: str | None) -> Maker:
    """``A(values, dtype_name=None)``: an array of ``xp`` (unifiedarray on
    ``device``, or array-api-strict)."""

    def make(values: Any, dtype: str | None = None) -> Any:
        dt = None if dtype is None else getattr(xp, dtype)
        if xp is strict:
            return strict.asarray(values, dtype=dt)
        return ua.asarray(values, dtype=dt, device=device)

    return make


def outcome(call: Callable[[], Any]) -> type[BaseException] | None:
    """The class ``call`` raises, or None.  A result is read in full (so an
    error that surfaces only on reading counts as no error at the call, and
    then fails ``read`` below)."""
    try:
        result = call()
    except MemoryError:
        raise  # never an answer: a test that allocates hugely must fail, naming its example
    except Exception as exc:
        return type(exc)
    for r in result if isinstance(result, tuple) else (result,):
        if hasattr(r, "shape"):
            np.asarray(r._array if hasattr(r, "_array") else r)  # raises here if MLX deferred a failure
    return None


def same_class(got: type[BaseException] | None, expected: type[BaseException] | None) -> bool:
    """Equal classes; or AxisError where the host raises plain IndexError or
    ValueError (NumPy's fft and tensordot): AxisError subclasses both, so
    code that catches the host's class catches it."""
    if got is expected:
        return True
    return got is AxisError and expected in (IndexError, ValueError)


# -- the table: name -> (the class the standard / NumPy asks for, the call) ------------------

S = [[1.0, 2.0], [2.0, 4.0]]  # singular
NOT_PD = [[1.0, 2.0], [2.0, 1.0]]
M23 = np.arange(6.0).reshape(2, 3)
Pair = collections.namedtuple("Pair", "a b")


def _write(x: Any, key: Any, value: Any) -> Any:
    x[key] = value
    return x


CASES: dict[str, tuple[type[BaseException], Callable[[Any, Maker], Any]]] = {
    # integer-array indices out of range (MLX clamps them)
    "getitem index too big": (IndexError, lambda xp, A: A([1.0, 2, 3])[A([0, 7])]),
    "getitem index too negative": (IndexError, lambda xp, A: A([1.0, 2, 3])[A([-4])]),
    "getitem second axis": (IndexError, lambda xp, A: A(M23)[:, A([3])]),
    "getitem two arrays": (IndexError, lambda xp, A: A(M23)[A([0]), A([3])]),
    "setitem index too big": (IndexError, lambda xp, A: _write(A([1.0, 2, 3]), A([0, 7]), 5.0)),
    "setitem negative": (IndexError, lambda xp, A: _write(A(M23), (slice(None), A([-4])), 5.0)),
    "take too big": (IndexError, lambda xp, A: xp.take(A([1.0, 2, 3]), A([3]))),
    "take too negative": (IndexError, lambda xp, A: xp.take(A([1.0, 2, 3]), A([-4]))),
    "take from an empty axis": (IndexError, lambda xp, A: xp.take(A(np.zeros((2, 0))), A([0]), axis=1)),
    "take_along_axis": (IndexError, lambda xp, A: xp.take_along_axis(A(M23), A([[3]]), axis=1)),
    "take_along_axis negative": (IndexError, lambda xp, A: xp.take_along_axis(A(M23), A([[-4]]), axis=1)),
    "getitem int out of range": (IndexError, lambda xp, A: A([1.0, 2])[2]),
    # linear algebra (MLX: RuntimeError at a later read, or garbage)
    "inv singular float64": (LinAlgError, lambda xp, A: xp.linalg.inv(A(S))),
    "inv singular float32": (LinAlgError, lambda xp, A: xp.linalg.inv(A(S, "float32"))),
    "inv singular in a stack": (LinAlgError, lambda xp, A: xp.linalg.inv(A(np.stack([np.eye(2), np.zeros((2, 2))])))),
    "inv singular complex64": (LinAlgError, lambda xp, A: xp.linalg.inv(A(S, "complex64"))),
    "solve singular": (LinAlgError, lambda xp, A: xp.linalg.solve(A(S), A([[1.0], [1.0]]))),
    "solve singular float32": (
        LinAlgError,
        lambda xp, A: xp.linalg.solve(A(S, "float32"), A([[1.0], [1.0]], "float32")),
    ),
    "cholesky not positive definite": (LinAlgError, lambda xp, A: xp.linalg.cholesky(A(NOT_PD))),
    "cholesky zeros float32": (LinAlgError, lambda xp, A: xp.linalg.cholesky(A(np.zeros((2, 2)), "float32"))),
    "cholesky negative definite": (LinAlgError, lambda xp, A: xp.linalg.cholesky(A(-np.eye(3)))),
    "cholesky upper": (LinAlgError, lambda xp, A: xp.linalg.cholesky(A(NOT_PD), upper=True)),
    "matrix_power singular, negative": (LinAlgError, lambda xp, A: xp.linalg.matrix_power(A(S), -1)),
    "inv not square": (LinAlgError, lambda xp, A: xp.linalg.inv(A(M23))),
    "det of a vector": (LinAlgError, lambda xp, A: xp.linalg.det(A([1.0, 2.0]))),
    "eigh not square": (LinAlgError, lambda xp, A: xp.linalg.eigh(A(M23))),
    "svd of a vector": (LinAlgError, lambda xp, A: xp.linalg.svd(A([1.0, 2.0]))),
    # integers to negative integer powers (MLX gives 0)
    "pow scalar exponent": (ValueError, lambda xp, A: xp.pow(A([1, 2, 3]), -1)),
    "pow array exponent": (ValueError, lambda xp, A: xp.pow(A([1, 2, 3]), A([1, -1, 2]))),
    "pow int8": (ValueError, lambda xp, A: xp.pow(A([1, 2], "int8"), A([-2, 1], "int8"))),
    "pow scalar base": (ValueError, lambda xp, A: xp.pow(2, A([1, -1]))),
    "operator **": (ValueError, lambda xp, A: A([1, 2]) ** -1),
    "operator reflected **": (ValueError, lambda xp, A: 2 ** A([1, -2])),
    # axes out of range (MLX: IndexError)
    "sum axis": (AxisError, lambda xp, A: xp.sum(A([1.0, 2.0]), axis=5)),
    "mean axis tuple": (AxisError, lambda xp, A: xp.mean(A(M23), axis=(0, 5))),
    "max axis negative": (AxisError, lambda xp, A: xp.max(A(M23), axis=-3)),
    "argmax axis": (AxisError, lambda xp, A: xp.argmax(A(M23), axis=2)),
    "cumulative_sum axis": (AxisError, lambda xp, A: xp.cumulative_sum(A(M23), axis=2)),
    "sort axis": (AxisError, lambda xp, A: xp.sort(A(M23), axis=2)),
    "sort of a 0-d array": (AxisError, lambda xp, A: xp.sort(A(1.0))),
    "argsort axis": (AxisError, lambda xp, A: xp.argsort(A(M23), axis=-3)),
    "flip axis": (AxisError, lambda xp, A: xp.flip(A(M23), axis=2)),
    "roll axis": (AxisError, lambda xp, A: xp.roll(A(M23), 1, axis=2)),
    "squeeze axis": (AxisError, lambda xp, A: xp.squeeze(A(M23), axis=2)),
    "expand_dims axis": (AxisError, lambda xp, A: xp.expand_dims(A(M23), axis=5)),
    "moveaxis": (AxisError, lambda xp, A: xp.moveaxis(A(M23), 5, 0)),
    "permute_dims": (AxisError, lambda xp, A: xp.permute_dims(A(M23), (0, 5))),
    "stack axis": (AxisError, lambda xp, A: xp.stack([A(M23), A(M23)], axis=5)),
    "concat axis": (AxisError, lambda xp, A: xp.concat([A(M23), A(M23)], axis=5)),
    "unstack axis": (AxisError, lambda xp, A: xp.unstack(A(M23), axis=2)),
    "take axis": (AxisError, lambda xp, A: xp.take(A(M23), A([0]), axis=2)),
    "take_along_axis axis": (AxisError, lambda xp, A: xp.take_along_axis(A(M23), A([[0]]), axis=2)),
    "repeat axis": (AxisError, lambda xp, A: xp.repeat(A(M23), 2, axis=2)),
    "diff axis": (AxisError, lambda xp, A: xp.diff(A(M23), axis=2)),
    "count_nonzero axis": (AxisError, lambda xp, A: xp.count_nonzero(A(M23), axis=2)),
    "vecdot axis": (AxisError, lambda xp, A: xp.vecdot(A(M23), A(M23), axis=2)),
    "vector_norm axis": (AxisError, lambda xp, A: xp.linalg.vector_norm(A(M23), axis=2)),
    "matrix_norm of a vector": (AxisError, lambda xp, A: xp.linalg.matrix_norm(A([1.0, 2.0]))),
    "cross axis": (AxisError, lambda xp, A: xp.linalg.cross(A(np.ones((2, 3))), A(np.ones((2, 3))), axis=2)),
    "fft axis": (AxisError, lambda xp, A: xp.fft.fft(A(np.ones((2, 3)), "complex64"), axis=2)),
    "fftn axes": (AxisError, lambda xp, A: xp.fft.fftn(A(np.ones((2, 3)), "complex64"), axes=(5,))),
    "fftshift axes": (AxisError, lambda xp, A: xp.fft.fftshift(A(M23), axes=2)),
    "tensordot axes": (IndexError, lambda xp, A: xp.tensordot(A(np.ones((2, 2))), A(np.ones((2, 2))), axes=([5], [0]))),
    # huge Python ints (MLX: RuntimeError: std::bad_cast)
    "take 2**70": (OverflowError, lambda xp, A: xp.take(A([1.0, 2, 3]), 2**70)),
    "take -2**70": (OverflowError, lambda xp, A: xp.take(A([1.0, 2, 3]), -(2**70))),
    "take [2**70]": (OverflowError, lambda xp, A: xp.take(A([1.0, 2, 3]), [2**70])),
    "searchsorted sorter out of range": (
        ValueError,
        lambda xp, A: xp.searchsorted(A([1.0, 2, 3]), A([2.5]), sorter=A([0, 1, 7])),
    ),
    "searchsorted sorter too short": (
        ValueError,
        lambda xp, A: xp.searchsorted(A([1.0, 2, 3]), A([2.5]), sorter=A([0, 1])),
    ),
    "repeat 2**70": (OverflowError, lambda xp, A: xp.repeat(A([1.0, 2]), 2**70)),
    "tile 2**70": (OverflowError, lambda xp, A: xp.tile(A([1.0, 2]), (2**70,))),
    "tril k=2**70": (OverflowError, lambda xp, A: xp.tril(A(np.ones((2, 2))), k=2**70)),
    "diagonal offset=2**70": (OverflowError, lambda xp, A: xp.linalg.diagonal(A(np.ones((2, 2))), offset=2**70)),
    "trace offset=2**70": (OverflowError, lambda xp, A: xp.linalg.trace(A(np.ones((2, 2))), offset=2**70)),
    "zeros 2**70": (ValueError, lambda xp, A: xp.zeros((2**70,), device=A(0).device)),
    "zeros too big": (ValueError, lambda xp, A: xp.zeros((2**40, 2**40), device=A(0).device)),
    "eye 2**70": (ValueError, lambda xp, A: xp.eye(2**70, device=A(0).device)),
    "arange 2**70": (ValueError, lambda xp, A: xp.arange(2**70, device=A(0).device)),
    "linspace num=2**70": (ValueError, lambda xp, A: xp.linspace(0, 1, 2**70, device=A(0).device)),
    "fft n=2**70": (ValueError, lambda xp, A: xp.fft.fft(A([1.0, 2.0], "complex64"), n=2**70)),
    "take [1.5]": (TypeError, lambda xp, A: xp.take(A([1.0, 2, 3]), [1.5])),
    "take list out of range": (IndexError, lambda xp, A: xp.take(A([1.0, 2, 3]), [0, -4])),
    "take int out of range": (IndexError, lambda xp, A: xp.take(A([1.0, 2, 3]), 3)),
    # other shapes and values
    "argmax of nothing": (ValueError, lambda xp, A: xp.argmax(A(np.zeros((3, 0))), axis=1)),
    "mask selects fewer values": (
        ValueError,
        lambda xp, A: _write(A([1.0, 2, 3]), A([True, False, True]), A([1.0, 2, 3])),
    ),
    "empty array, value too long": (ValueError, lambda xp, A: _write(A(np.zeros((2, 0))), A([0, 1]), A([1.0, 2, 3]))),
    "0-d mask, value too long": (ValueError, lambda xp, A: _write(A(1.0), A(False), A([1.0, 2.0]))),
    "arange step 0": (ZeroDivisionError, lambda xp, A: xp.arange(0, 5, 0, device=A(0).device)),
    # complex to real (the standard forbids it; the host only warns today)
    "astype complex64 to float32": (TypeError, lambda xp, A: xp.astype(A([1j], "complex64"), xp.float32)),
    "astype complex64 to int32": (TypeError, lambda xp, A: xp.astype(A([1 + 1j], "complex64"), xp.int32)),
    # forms the standard does not have, which the host accepts today
    "take without axis of a matrix": (ValueError, lambda xp, A: xp.take(A(M23), A([0]))),
    "max of complex": (TypeError, lambda xp, A: xp.max(A([1j], "complex64"))),
    "clip of complex": (TypeError, lambda xp, A: xp.clip(A([1j], "complex64"), 0, 1)),
    "qr mode r": (ValueError, lambda xp, A: xp.linalg.qr(A(M23), mode="r")),
    "outer of matrices": (ValueError, lambda xp, A: xp.linalg.outer(A(M23), A([1.0, 2.0, 3.0]))),
    "cross of 2-vectors": (ValueError, lambda xp, A: xp.linalg.cross(A([1.0, 2.0]), A([3.0, 4.0]))),
    # arguments that are not arrays (a TypeError, not an AttributeError)
    "nonzero(None)": (TypeError, lambda xp, A: xp.nonzero(None)),
    "sum(None)": (TypeError, lambda xp, A: xp.sum(None)),
    "zeros_like(3)": (TypeError, lambda xp, A: xp.zeros_like(3)),
    "take(None, ...)": (TypeError, lambda xp, A: xp.take(None, A([0]))),
    "matmul(x, None)": (TypeError, lambda xp, A: xp.matmul(A(M23), None)),
    "linalg.inv('a')": (TypeError, lambda xp, A: xp.linalg.inv("a")),
}

#: Cases where the host does not raise (none now: a case that regresses goes
#: here only with a reason).
HOST_WRONG_TODAY: set[str] = set()
#: Cases where the array layer in front of the MLX namespace raises another
#: class before the namespace is reached (none now).
ARRAY_LAYER_WRONG_TODAY: set[str] = set()


#: Integer-array writes: array-api-strict refuses them all.
STRICT_HAS_NO_SUCH_FORM = {"setitem index too big", "setitem negative", "empty array, value too long"}


def _param(name: str, wrong: set[str]) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=HOST_WRONG)] if name in wrong else []
    return pytest.param(name, marks=marks, id=name)


@pytest.mark.parametrize("name", [_param(n, ARRAY_LAYER_WRONG_TODAY) for n in CASES])
def test_mlx_raises_the_class_at_the_call(name: str) -> None:
    expected, call = CASES[name]
    got = outcome(lambda: call(ua, maker(ua, "mlx")))
    assert same_class(got, expected), f"{name} on mlx: {got}, expected {expected}"


@pytest.mark.parametrize("name", [_param(n, HOST_WRONG_TODAY) for n in CASES])
def test_host_raises_the_same_class(name: str) -> None:
    expected, call = CASES[name]
    got = outcome(lambda: call(ua, maker(ua, "cpu")))
    assert got is expected, f"{name} on the host: {got}, expected {expected}"


@pytest.mark.parametrize("name", list(CASES))
def test_the_class_is_array_api_strict_s_where_it_raises_one(name: str) -> None:
    expected, call = CASES[name]
    try:
        got = outcome(lambda: call(strict, maker(strict, None)))
    except Exception:  # a form array-api-strict cannot even build (device=)
        pytest.skip("array-api-strict cannot express this call")
    if got is None or got is AttributeError:
        pytest.skip(f"array-api-strict raises {got} here (no class to compare)")
    if name in STRICT_HAS_NO_SUCH_FORM:
        pytest.skip("array-api-strict refuses integer-array setitem whatever the index (IndexError)")
    assert same_class(expected, got) or issubclass(expected, got), f"{name}: strict raises {got}, ours {expected}"


# -- drawn inputs -----------------------------------------------------------------------------


def _both(call: Callable[[Any, Maker], Any]) -> tuple[Any, Any, Any]:
    return (
        outcome(lambda: call(ua, maker(ua, "cpu"))),
        outcome(lambda: call(ua, maker(ua, "mlx"))),
        outcome(lambda: call(strict, maker(strict, None))),
    )


@st.composite
def out_of_range(draw: Any) -> tuple[tuple[int, ...], int, list[int]]:
    """A shape, an axis, and indices for it with at least one out of range."""
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=1, max_size=3)))
    axis = draw(st.integers(0, len(shape) - 1))
    n = shape[axis]
    bad = st.one_of(st.integers(n, n + 1000), st.integers(-n - 1000, -n - 1))
    if n == 0:
        return shape, axis, [draw(bad)]
    ok = st.integers(-n, n - 1)
    idx = [*draw(st.lists(ok, max_size=3)), draw(bad), *draw(st.lists(ok, max_size=3))]
    return shape, axis, idx


@SETTINGS
@given(case=out_of_range(), how=st.sampled_from(["getitem", "setitem", "take", "take_along_axis"]))
def test_drawn_out_of_range_indices(case: tuple, how: str) -> None:
    shape, axis, idx = case
    base = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    key = (slice(None),) * axis

    def call(xp: Any, A: Maker) -> Any:
        x, k = A(base), A(idx)
        if how == "getitem":
            return x[(*key, k)]
        if how == "setitem":
            return _write(x, (*key, k), 1.0)
        if how == "take":
            return xp.take(x, k, axis=axis)
        along = [1] * len(shape)
        along[axis] = len(idx)
        return xp.take_along_axis(x, xp.reshape(k, tuple(along)), axis=axis)

    host, mlx, ref = _both(call)
    assert mlx is host, (host, mlx)
    # take_along_axis broadcasts the index against x's other axes: where one
    # of them is empty, nothing is gathered and nothing is out of range.
    # NumPy's take checks indices once per position on the axes before the
    # one taken from: never when one of those is empty.
    nothing_gathered = (how == "take_along_axis" and 0 in shape[:axis] + shape[axis + 1 :]) or (
        how == "take" and 0 in shape[:axis]
    )
    assert host is (None if nothing_gathered else IndexError), (host, mlx)
    if how != "setitem":  # array-api-strict has no integer-array setitem at all
        assert ref is host


@SETTINGS
@given(
    shape=st.lists(st.integers(1, 3), min_size=1, max_size=3),
    axis=st.integers(3, 6) | st.integers(-9, -4),
    fn=st.sampled_from(["sum", "prod", "max", "min", "mean", "var", "all", "any", "argmax", "sort", "flip"]),
)
def test_drawn_bad_axes(shape: list[int], axis: int, fn: str) -> None:
    x = np.ones(shape)
    host, mlx, ref = _both(lambda xp, A: getattr(xp, fn)(A(x), axis=axis))
    assert host is AxisError and mlx is AxisError, (host, mlx)
    assert ref in (AxisError, IndexError)


@SETTINGS
@given(
    n=st.integers(2, 5),
    rank=st.integers(0, 4),
    dtype=st.sampled_from(["float32", "float64"]),
    seed=st.integers(0, 2**16),
    fn=st.sampled_from(["inv", "solve"]),
)
def test_drawn_singular_matrices(n: int, rank: int, dtype: str, seed: int, fn: str) -> None:
    rng = np.random.default_rng(seed)
    rank = min(rank, n - 1)
    # Rank-deficient with exact zeros: a zero row makes the LU pivot exactly 0 in every LAPACK.
    a = rng.integers(-3, 4, size=(n, n)).astype(dtype)
    a[rank:] = 0
    b = np.ones((n, 1), dtype=dtype)
    call = (lambda xp, A: xp.linalg.inv(A(a))) if fn == "inv" else (lambda xp, A: xp.linalg.solve(A(a), A(b)))
    host, mlx, ref = _both(call)
    assert host is LinAlgError and mlx is LinAlgError and ref is LinAlgError, (host, mlx, ref)


@SETTINGS
@given(n=st.integers(1, 5), dtype=st.sampled_from(["float32", "float64"]), seed=st.integers(0, 2**16))
def test_drawn_matrices_that_are_not_positive_definite(n: int, dtype: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    q, _ = np.linalg.qr(rng.normal(size=(n, n)))
    w = rng.uniform(0.5, 2.0, size=n)
    w[rng.integers(0, n)] = -rng.uniform(0.5, 2.0)  # one clearly negative eigenvalue
    a = ((q * w) @ q.T).astype(dtype)
    host, mlx, ref = _both(lambda xp, A: xp.linalg.cholesky(A(a)))
    assert host is LinAlgError and mlx is LinAlgError and ref is LinAlgError, (host, mlx, ref)
    # ... and a positive definite one passes on both, with the same factor.
    spd = ((q * np.abs(w)) @ q.T).astype(dtype)
    got = np.asarray(ua.linalg.cholesky(ua.asarray(spd, device="mlx")))
    np.testing.assert_allclose(got, np.linalg.cholesky(spd), rtol=1e-3 if dtype == "float32" else 1e-10, atol=1e-5)


@SETTINGS
@given(
    dtype=st.sampled_from(["int8", "int16", "int32", "int64"]),
    exps=st.lists(st.integers(-3, 3), min_size=1, max_size=5),
    scalar=st.booleans(),
)
def test_drawn_integer_powers(dtype: str, exps: list[int], scalar: bool) -> None:
    base = [2] * len(exps)
    if scalar:
        e = exps[0]
        host, mlx, ref = _both(lambda xp, A: xp.pow(A(base, dtype), e))
        negative = e < 0
    else:
        host, mlx, ref = _both(lambda xp, A: xp.pow(A(base, dtype), A(exps, dtype)))
        negative = min(exps) < 0
    assert host is mlx is ref is (ValueError if negative else None), (host, mlx, ref)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize(
    "call",
    [
        lambda b: 0**b,
        lambda b: b**-1,
        lambda b: ua.pow(ua.ones_like(b), b),
        lambda b: ua.where(2, b, 0**b),  # the arguments first: pow's ValueError, not where's TypeError
    ],
    ids=["reflected operator", "scalar exponent", "pow", "inside where"],
)
def test_integers_to_negative_powers_raise_at_the_call_on_every_device(dev: str, call: Callable[[Any], Any]) -> None:
    """On a freshly uploaded exponent too (on the simulated GPU its copy is
    still queued: the kernel there raised only when it ran, so the error came
    at a later synchronisation or not at all, and ``where``'s TypeError came
    first)."""
    for _ in range(3):
        b = ua.asarray(np.array([-3, 2], dtype=np.int8), device=dev)
        with pytest.raises(ValueError, match="negative integer powers"):
            call(b)


# -- at the namespace level (where the lead's array layer does not reach yet) ------------------


def test_namespace_refuses_non_arrays() -> None:
    """Every MLX namespace function given a non-array where it needs an
    array raises TypeError, never AttributeError."""
    import inspect

    mx = pytest.importorskip("mlx.core")
    from unifiedarray.backends import mlx_namespace as ns

    good = mx.array([[1.0, 2.0], [3.0, 4.0]])
    not_arrays = [None, "a", object()]
    skip = {"asarray", "from_dlpack", "broadcast_shapes", "result_type", "can_cast", "finfo", "iinfo", "isdtype"}
    checked = 0
    for mod, prefix in ((ns, ""), (ns.linalg, "linalg."), (ns.fft, "fft.")):
        for name in getattr(mod, "__all__", []):
            fn = getattr(mod, name)
            if name.startswith("_") or name in skip or isinstance(fn, (type, np.dtype)) or not callable(fn):
                continue
            params = [
                p
                for p in inspect.signature(fn).parameters.values()
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
            ]
            if not params or params[0].name not in ("x", "x1", "arrays", "condition"):
                continue  # creation functions take shapes and scalars
            for bad in not_arrays:
                args = [bad] + [good] * (len(params) - 1)
                try:
                    fn(*args)
                except (TypeError, ValueError, IndexError):
                    pass
                except Exception as exc:  # pragma: no cover - the failure message says which
                    raise AssertionError(f"{prefix}{name}({bad!r}, ...) raised {type(exc).__name__}: {exc}") from exc
                checked += 1
            with pytest.raises(TypeError):
                fn(*([None] + [good] * (len(params) - 1)))
    assert checked > 100


def test_namespace_takes_any_sequence_of_arrays() -> None:
    mx = pytest.importorskip("mlx.core")
    from unifiedarray.backends import mlx_namespace as ns

    pair = Pair(mx.array([1.0, 2.0]), mx.array([3.0, 4.0]))
    assert ns.stack(pair).tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert ns.concat(pair).tolist() == [1.0, 2.0, 3.0, 4.0]
    empty = Pair(mx.zeros((0, 2)), mx.zeros((0, 2)))
    assert ns.stack(empty, axis=1).shape == (0, 2, 2)
    assert ns.concat(empty).shape == (0, 2)


def test_namespace_python_complex_with_a_real_floating_array() -> None:
    """The standard: a Python complex with a real floating array gives the
    complex dtype of the same precision (float32 -> complex64).  float64
    would give complex128, which MLX cannot hold: the clear TypeError."""
    mx = pytest.importorskip("mlx.core")
    from unifiedarray.backends import mlx_namespace as ns

    x = mx.array([1.0, -2.0], dtype=mx.float32)
    n = np.array([1.0, -2.0], dtype=np.float32)
    for name in ("add", "subtract", "multiply", "divide", "pow", "equal", "not_equal"):
        fn = getattr(ns, name)
        for args, host_args in (((x, 2 - 1j), (n, 2 - 1j)), ((2 - 1j, x), (2 - 1j, n))):
            got = fn(*args)
            expected = getattr(np, {"pow": "power"}.get(name, name))(*host_args)
            assert np.dtype(str(got.dtype).split(".")[-1]) == expected.dtype, name
            np.testing.assert_allclose(np.array(got), expected, rtol=1e-6)
    with pytest.raises(TypeError, match=r"mlx.*multiply.*complex128"):
        ns.multiply(mx.array([1.0], dtype=mx.float64), 1j)


def test_zero_d_mask_assignment_with_an_empty_selection() -> None:
    for device in ("cpu", "mlx"):
        a = ua.asarray(1.5, device=device)
        m = ua.asarray(False, device=device)
        a[m] = a[m]
        assert float(a) == 1.5
        a[ua.asarray(True, device=device)] = ua.asarray([2.5], device=device)
        assert float(a) == 2.5


def test_writes_into_empty_arrays_do_nothing_and_still_check() -> None:
    for device in ("cpu", "mlx"):
        x = ua.zeros((2, 0), device=device)
        x[ua.asarray([0, 1], device=device)] = ua.zeros((2, 0), device=device)
        x[:, ua.asarray([], dtype=ua.int64, device=device)] = 1.0
        assert x.shape == (2, 0)
        with pytest.raises(IndexError):
            x[ua.asarray([2], device=device)] = 1.0


# -- what used to kill (or hang) the process, each in a child process -------------------------------------

CRASHES = {
    "scatter into a zero-size array (SIGFPE)": """
        x = xp.zeros((1, 0), device="mlx")
        x[xp.asarray([0], device="mlx")] = 1.0
        assert np.asarray(x).shape == (1, 0)
        y = xp.zeros((2, 0, 3), device="mlx")
        y[xp.asarray([1], device="mlx"), :, xp.asarray([2], device="mlx")] = 5.0
        y[xp.asarray([0, 1], device="mlx")] = xp.zeros((2, 0, 3), device="mlx")
        assert np.asarray(y).shape == (2, 0, 3)
        expect(IndexError, lambda: x.__setitem__(xp.asarray([1], device="mlx"), 1.0))
    """,
    "INT_MIN // -1 and INT_MIN % -1, every width": """
        for dt in ("int8", "int16", "int32", "int64"):
            lo = int(np.iinfo(dt).min)
            a = xp.asarray([lo, lo, 7], dtype=getattr(xp, dt), device="mlx")
            b = xp.asarray([-1, -1, -1], dtype=getattr(xp, dt), device="mlx")
            h = np.array([lo, lo, 7], dtype=dt)
            with np.errstate(all="ignore"):
                assert np.asarray(a // b).tolist() == (h // np.array(-1, dtype=dt)).tolist(), dt
                assert np.asarray(a % b).tolist() == [0, 0, 0], dt
                assert np.asarray(a // -1).tolist() == (h // np.array(-1, dtype=dt)).tolist(), dt
                assert np.asarray(a % -1).tolist() == [0, 0, 0], dt
                assert np.asarray(xp.floor_divide(lo, b)).tolist()[0] == lo, dt
                assert np.asarray(xp.remainder(a, xp.zeros_like(b))).tolist() == [0, 0, 0], dt
    """,
    "linalg on empty matrices": """
        for name in ("inv", "cholesky", "det", "slogdet", "eigh", "eigvalsh", "qr", "svd", "svdvals",
                     "pinv", "matrix_norm"):
            for shape in ((0, 0), (3, 0, 0)):
                fn = getattr(xp.linalg, name)
                r = fn(xp.zeros(shape, device="mlx"))
                for part in (r if isinstance(r, tuple) else (r,)):
                    np.asarray(part)
        e = xp.zeros((0, 0), device="mlx")
        assert np.asarray(xp.linalg.solve(e, xp.zeros((0, 2), device="mlx"))).shape == (0, 2)
        assert np.asarray(xp.linalg.matrix_power(xp.zeros((0, 0), device="mlx"), -2)).shape == (0, 0)
    """,
    "gathers from zero-size axes": """
        z = xp.zeros((2, 0), device="mlx")
        assert np.asarray(z[xp.asarray([1], device="mlx")]).shape == (1, 0)
        assert np.asarray(xp.take(z, xp.asarray([1, 0], device="mlx"), axis=0)).shape == (2, 0)
        i = xp.zeros((2, 1), dtype=xp.int64, device="mlx")
        assert np.asarray(xp.take_along_axis(z, i, axis=0)).shape == (2, 0)
        expect(IndexError, lambda: xp.take(z, xp.asarray([0], device="mlx"), axis=1))
        expect(IndexError, lambda: xp.take_along_axis(z, i, axis=1))
        assert np.asarray(xp.argmax(xp.zeros((3, 0), device="mlx"), axis=0)).shape == (0,)
    """,
    "diff with a huge n (looped 2**40 times)": """
        d = xp.diff(xp.asarray([1.0, 2.0, 4.0], device="mlx"), n=2**40)
        assert np.asarray(d).shape == (0,)
        assert np.asarray(xp.diff(xp.asarray([1, 2, 4], device="mlx"), n=2)).tolist() == [1]
    """,
    "singular inv and solve, read later": """
        s = xp.asarray([[1.0, 2.0], [2.0, 4.0]], device="mlx")
        expect(np.linalg.LinAlgError, lambda: xp.linalg.inv(s))
        expect(np.linalg.LinAlgError, lambda: xp.linalg.solve(s, xp.ones((2, 1), device="mlx")))
        assert np.asarray(xp.linalg.inv(xp.eye(2, device="mlx"))).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    """,
}


@pytest.mark.parametrize("name", list(CRASHES))
def test_no_crash_in_a_child_process(name: str) -> None:
    code = "import numpy as np\nimport unifiedarray as xp\n"
    code += "def expect(cls, call):\n    try:\n        call()\n    except cls:\n        return\n"
    code += "    raise AssertionError(f'{cls.__name__} not raised')\n"
    code += textwrap.dedent(CRASHES[name])
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{name}: exit {done.returncode}\n{done.stderr[-2000:]}"


def test_a_refused_write_changes_nothing_on_any_copy() -> None:
    """The index check runs before MLX's scatter: nothing is written, and
    both the MLX copy and the host copy still read the old values."""
    for key in ([0, 7], ua.asarray([0, -4], device="mlx"), (ua.asarray([3], device="mlx"),)):
        x = ua.asarray([1.0, 2.0, 3.0], device="mlx")
        np.asarray(x)  # the host copy is current too
        with pytest.raises(IndexError):
            x[key] = 5.0
        assert np.asarray(x).tolist() == [1.0, 2.0, 3.0]
        assert np.asarray(x.to_device("cpu")).tolist() == [1.0, 2.0, 3.0]
        x[ua.asarray([0, -1], device="mlx")] = 9.0  # and the array still takes writes
        assert np.asarray(x).tolist() == [9.0, 2.0, 9.0]


def test_singular_matrices_never_hang_mlx() -> None:
    """MLX 0.32's inv and solve sometimes never return when LAPACK reports a
    singular matrix (about one run in two of 3,000 calls hung): the library
    finds the zero pivot first, so the call raises LinAlgError every time.
    Run in a child process with a time limit, so a hang fails the test
    instead of CI."""
    code = (
        "import numpy as np, unifiedarray as xp\n"
        "a = xp.asarray(np.array([[1.0, 2.0], [0.0, 0.0]]), device='mlx')\n"
        "b = xp.asarray(np.ones((2, 1)), device='mlx')\n"
        "n = 0\n"
        "for _ in range(400):\n"
        "    calls = (lambda: xp.linalg.inv(a), lambda: xp.linalg.solve(a, b), lambda: xp.linalg.matrix_power(a, -2))\n"
        "    for f in calls:\n"
        "        try:\n"
        "            f()\n"
        "        except np.linalg.LinAlgError:\n"
        "            n += 1\n"
        "print(n)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["1200"]


# -- the translation table (unifiedarray/_errors.py) -------------------------------------------


def test_errors_from_a_device_are_translated_to_the_host_class():
    """The table maps a backend's exception to the class the host raises."""
    mlx_overflow = RuntimeError("[take] std::bad_cast")
    if HAS_MLX:
        dev = ua.Device.parse("mlx")
        assert type(ua_errors.translate(mlx_overflow, dev, "take")) is OverflowError
        singular = RuntimeError("[linalg::inv] Matrix is singular")
        assert type(ua_errors.translate(singular, dev, "linalg.inv")) is np.linalg.LinAlgError
    cpu = ua.Device.parse("cpu")
    assert ua_errors.translate(mlx_overflow, cpu, "take") is mlx_overflow  # the host's own errors pass
