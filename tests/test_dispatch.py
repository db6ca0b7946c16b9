"""The one dispatch: the reproducers of the issue "One dispatch path" that
concern it, each a regression test, on every device this machine has."""

from __future__ import annotations

import inspect
import time
from collections import namedtuple

import numpy as np
import pytest

import unifiedarray as xp
from unifiedarray import _errors

from .conftest import DEVICES


def moves(fn):
    with xp.track_transfers() as t:
        out = fn()
    return out, t


# -- out=: the namespace refuses it; NumPy's is a tracked write -------------------------

OUT_CALLS = {
    "clip": lambda a, c: xp.clip(a, 0.0, 2.0, out=c),
    "concat": lambda a, c: xp.concat([a], out=c),
    "stack": lambda a, c: xp.stack([a], out=c),
    "cumulative_sum": lambda a, c: xp.cumulative_sum(a, out=c),
    "cumulative_prod": lambda a, c: xp.cumulative_prod(a, out=c),
    "matmul": lambda a, c: xp.matmul(a, a, out=c),
    "mean": lambda a, c: xp.mean(a, out=c),
    "std": lambda a, c: xp.std(a, out=c),
    "var": lambda a, c: xp.var(a, out=c),
    "take": lambda a, c: xp.take(a, xp.asarray([0]), out=c),
    "vecdot": lambda a, c: xp.vecdot(a, a, c),
    "linalg.matmul": lambda a, c: xp.linalg.matmul(a, a, out=c),
    "linalg.outer": lambda a, c: xp.linalg.outer(a, a, out=c),
    "linalg.trace": lambda a, c: xp.linalg.trace(a, out=c),
    "linalg.vecdot": lambda a, c: xp.linalg.vecdot(a, a, out=c),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(OUT_CALLS))
def test_namespace_functions_refuse_out_and_leave_the_target_untouched(device, name):
    """``xp.clip(a, 0, 2, out=c)`` used to write c's host copy unseen (MLX
    kept [0, 0, 0] while the state said SYNCHRONIZED); the standard has no
    ``out=``, so it is a TypeError naming the argument, on every device."""
    a = xp.asarray([1.0, 2.0, 3.0], device=device)
    c = xp.zeros(3, device=device)
    with pytest.raises(TypeError):
        OUT_CALLS[name](a, c)
    assert c.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("device", DEVICES)
def test_numpy_out_is_a_tracked_write_seen_on_every_device(device):
    a = xp.asarray([1.0, 2.0, 3.0])
    c = xp.zeros(3, device=device)
    res = np.clip(a, 0.0, 2.0, out=c)
    assert res is c
    assert xp.sum(c).item() == 5.0  # computed where c lives: the write is there
    assert c.tolist() == [1.0, 2.0, 2.0]
    d = xp.zeros(3, device=device)
    np.clip(a, 0.0, 2.0, d)  # positional out
    assert float(xp.sum(d)) == 5.0
    e = xp.zeros(3, device=device)
    np.add(a, 1.0, out=e)
    assert float(xp.max(e)) == 4.0
    m = xp.asarray([True, False, True])
    f = xp.full(3, 7.0, device=device)
    np.add(a, 1.0, out=f, where=m)  # out= with where=: unmasked elements keep their value
    assert f.tolist() == [2.0, 7.0, 4.0] and float(xp.sum(f)) == 13.0


# -- the standard's signatures, exactly -------------------------------------------------------

NUMPY_FORMS = {
    "mean(A, 0)": lambda A: xp.mean(A, 0),
    "argmin(A, 1)": lambda A: xp.argmin(A, 1),
    "where(A > 2)": lambda A: xp.where(A > 2),
    "sum(where=)": lambda A: xp.sum(A, where=A > 2),
    "clip(dtype='foo')": lambda A: xp.clip(A, 0, 1, dtype="foo"),
    "made-up keyword": lambda A: xp.max(A, frobnicate=True),
    "sin(A, A)": lambda A: xp.sin(A, A),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("form", sorted(NUMPY_FORMS))
def test_numpy_only_call_forms_are_type_errors_on_every_device(device, form):
    A = xp.reshape(xp.arange(6.0, device=device), (2, 3))
    with pytest.raises(TypeError):
        NUMPY_FORMS[form](A)


@pytest.mark.parametrize("device", DEVICES)
def test_numpy_call_forms_still_work_through_numpy_where_the_data_lives(device):
    A = xp.reshape(xp.arange(6.0, device=device), (2, 3))
    (m, s, i), t = moves(lambda: (np.mean(A, 0), np.std(A, axis=1, ddof=1), np.argmin(A, 1)))
    assert m.tolist() == [1.5, 2.5, 3.5] and i.tolist() == [0, 0]
    np.testing.assert_allclose(np.asarray(s), [1.0, 1.0])
    assert {m.device, s.device, i.device} == {A.device}
    assert t.count == 0  # no host detour


def _public_functions():
    for name in xp.__all__:
        fn = getattr(xp, name)
        if inspect.isfunction(fn) and fn.__module__.startswith("unifiedarray._") and name not in ("get_namespace",):
            params = list(inspect.signature(fn).parameters.values())
            if params and params[0].kind is inspect.Parameter.POSITIONAL_ONLY:
                yield name


@pytest.mark.parametrize("name", sorted(_public_functions()))
def test_non_array_arguments_are_type_errors(name):
    """``xp.nonzero(None)`` was an AttributeError in 24 functions."""
    fn = getattr(xp, name)
    n = sum(p.default is inspect.Parameter.empty for p in inspect.signature(fn).parameters.values())
    if name in ("arange", "eye", "linspace", "full", "zeros", "ones", "empty", "asarray", "broadcast_shapes"):
        pytest.skip("takes numbers and shapes")
    if name in ("result_type", "can_cast", "isdtype", "finfo", "iinfo"):
        pytest.skip("takes dtypes")
    with pytest.raises(TypeError):
        fn(*([None] * max(n, 1)))


def test_from_dlpack_of_a_non_producer_is_a_type_error():
    with pytest.raises(TypeError):
        xp.from_dlpack(3)


# -- same answer, same error --------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
def test_complex_python_scalar_with_a_real_floating_array(device):
    dt = xp.float32 if device == "mlx" else xp.float64
    x = xp.asarray([1.0, 2.0], dtype=dt, device=device)
    y = x * 1j
    assert y.dtype == (xp.complex64 if dt == xp.float32 else xp.complex128)
    assert y.tolist() == [1j, 2j]
    assert (1j + x).tolist() == [1 + 1j, 2 + 1j]


@pytest.mark.parametrize("device", DEVICES)
def test_astype_complex_to_real_is_refused_on_every_device(device):
    z = xp.asarray([1 + 2j], dtype=xp.complex64, device=device)
    with pytest.raises(TypeError):
        xp.astype(z, xp.float32)


@pytest.mark.parametrize("device", DEVICES)
def test_stack_and_concat_take_any_sequence_of_arrays(device):
    Pair = namedtuple("Pair", "a b")
    p = Pair(xp.asarray([1.0], device=device), xp.asarray([2.0], device=device))
    assert xp.stack(p).tolist() == [[1.0], [2.0]]
    assert xp.concat(p).tolist() == [1.0, 2.0]


@pytest.mark.parametrize("device", DEVICES)
def test_diff_with_a_huge_n_returns_at_once(device):
    x = xp.arange(5.0, device=device)
    start = time.perf_counter()
    out = xp.diff(x, n=2**40)
    assert time.perf_counter() - start < 5
    assert out.shape == (0,)
    assert xp.diff(x, n=2).tolist() == np.diff(np.arange(5.0), n=2).tolist()


@pytest.mark.parametrize("device", DEVICES)
def test_arrays_iterate_over_their_first_axis(device):
    x = xp.reshape(xp.arange(6, device=device), (3, 2))
    rows = list(x)
    assert [r.tolist() for r in rows] == [[0, 1], [2, 3], [4, 5]]
    assert [int(v) for v in xp.arange(3, device=device)] == [0, 1, 2]
    with pytest.raises(TypeError):
        iter(xp.asarray(1.0, device=device))


# -- buffers and fast paths ------------------------------------------------------------------


def test_asarray_of_a_buffer_wraps_it_without_a_copy():
    buf = xp.UnifiedBuffer((3,), dtype=np.float64)
    buf.fill(2.0)
    x, t = moves(lambda: xp.asarray(buf))
    assert x.buffer is buf and t.count == 0
    x[0] = 5.0
    assert buf.to_numpy().tolist() == [5.0, 2.0, 2.0]
    assert xp.asarray(buf, copy=True).buffer is not buf


class _Pending:
    """A move still in flight: the host copy must not be read before it lands."""

    def __init__(self, land):
        self.land = land
        self.waited = False

    def synchronize(self):
        self.land()
        self.waited = True


@pytest.mark.parametrize(
    "op",
    [
        lambda x: x + 1,
        lambda x: 1 + x,
        lambda x: x * x,
        lambda x: -x,
        lambda x: xp.sin(x),
        lambda x: xp.sum(x),
        lambda x: x[1:],
        lambda x: x[0],
        lambda x: x[xp.asarray([0, 1])],
        lambda x: np.add(x, 1),
    ],
)
def test_every_fast_path_waits_for_a_move_in_flight(op):
    """A non-blocking move sets ``_pending``; every read (the operators'
    fast path once forgot) waits for it first, so nothing reads host memory
    before the copy lands.  Taking a view (``x[1:]``) reads nothing: its
    first read waits."""
    x = xp.zeros(3)
    host = x.buffer._copies[xp.Device.parse("cpu")]
    pending = _Pending(lambda: host.__setitem__(slice(None), 7.0))
    x.buffer._pending = pending
    x.buffer._refresh()  # as the buffer does whenever it sets a move in flight
    res = op(x)
    assert pending.waited or (res.is_view and x.buffer._pending is pending)
    assert np.all(np.asarray(res) == np.asarray(op(xp.full(3, 7.0))))
    assert pending.waited


def test_errors_from_a_device_are_translated_to_the_host_class():
    """The table maps a backend's exception to the class the host raises."""
    mlx_overflow = RuntimeError("[take] std::bad_cast")
    if "mlx" in DEVICES:
        dev = xp.Device.parse("mlx")
        assert type(_errors.translate(mlx_overflow, dev, "take")) is OverflowError
        singular = RuntimeError("[linalg::inv] Matrix is singular")
        assert type(_errors.translate(singular, dev, "linalg.inv")) is np.linalg.LinAlgError
    cpu = xp.Device.parse("cpu")
    assert _errors.translate(mlx_overflow, cpu, "take") is mlx_overflow  # the host's own errors pass


@pytest.mark.skipif("mlx" not in DEVICES, reason="needs a second memory space")
@pytest.mark.parametrize("take", [lambda x: x[1:], lambda x: x.T, lambda x: x.mT[::-1]])
def test_taking_a_view_of_a_stale_host_copy_moves_nothing_and_its_read_sees_the_write(take):
    """A view is not a read (promise 2): made while the host copy is stale,
    it moves nothing; its first read moves once and sees the device's write
    (promise 1), through the operators' fast path too."""
    x = xp.reshape(xp.arange(6.0), (2, 3))
    buf = x.buffer
    buf.sync_to_device("mlx")
    buf.write(xp.Device.parse("mlx"), lambda m: m.__setitem__(slice(None), m * 10), "test write")
    view, t = moves(lambda: take(x))
    assert t.count == 0
    expected = take(np.arange(6.0).reshape(2, 3) * 10)
    (total, copy), t = moves(lambda: (view + 0.0, np.asarray(view)))
    assert t.count == 1
    np.testing.assert_array_equal(np.asarray(total), expected)
    np.testing.assert_array_equal(copy, expected)
