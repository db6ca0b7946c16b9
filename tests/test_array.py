"""The array class (``unifiedarray/_array.py``): Python's protocols on an
array (iteration, ``len``, ``bool``, ``int``, ``float``, ``complex``,
``index``), the same on every device, as NumPy answers them; a lone result
(an array with no buffer yet) behaves as one with its buffer, in every use
and in threads."""

from __future__ import annotations

import math
import operator
import pathlib
import pickle
import re
import threading
from concurrent.futures import ThreadPoolExecutor

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import unifiedarray as xp

from .conftest import DEVICES


@pytest.mark.parametrize("device", DEVICES)
def test_arrays_iterate_over_their_first_axis(device):
    x = xp.reshape(xp.arange(6, device=device), (3, 2))
    rows = list(x)
    assert [r.tolist() for r in rows] == [[0, 1], [2, 3], [4, 5]]
    assert [int(v) for v in xp.arange(3, device=device)] == [0, 1, 2]
    with pytest.raises(TypeError):
        iter(xp.asarray(1.0, device=device))


@pytest.mark.parametrize("device", DEVICES)
def test_python_conversions_of_a_0d_array_are_numpys(device):
    assert bool(xp.asarray(True, device=device)) is True
    assert int(xp.asarray(7, device=device)) == 7
    assert float(xp.asarray(2.5, device=device)) == 2.5
    assert complex(xp.asarray(1.0, device=device)) == 1 + 0j
    assert [0, 1, 2, 3][xp.asarray(2, device=device)] == 2  # __index__
    assert len(xp.zeros((4, 2), device=device)) == 4


@pytest.mark.parametrize("device", DEVICES)
def test_python_conversions_refuse_what_numpy_refuses(device):
    with pytest.raises(TypeError):
        len(xp.asarray(1.0, device=device))  # a 0-d array has no length
    with pytest.raises(ValueError):
        bool(xp.asarray([True, False], device=device))  # ambiguous, as in NumPy
    with pytest.raises(TypeError):
        [0, 1][xp.asarray(1.0, device=device)]  # a float is not an index


@pytest.mark.parametrize("device", DEVICES)
def test_attributes_describe_the_data(device):
    host = np.zeros((2, 3, 4), dtype=np.int8)
    x = xp.asarray(host, device=device)
    assert (x.shape, x.ndim, x.size, x.dtype, x.device) == ((2, 3, 4), 3, 24, xp.int8, device)
    assert x.mT.shape == (2, 4, 3)
    assert x.__array_namespace__() is xp


# Every conversion of an array to a Python scalar (python_scalar): the
# dunders, format, round, item() and a 0-d array's tolist().
_SCALAR_READS = {
    "item": lambda x: x.item(),
    "tolist": lambda x: x.tolist(),
    "bool": bool,
    "int": int,
    "float": float,
    "complex": complex,
    "index": operator.index,
    "format": lambda x: format(x, ".4g"),
    "round": lambda x: round(x, 2),
}


def _scalar_read(read, x):
    """``read(x)`` as (its value's type, its value: NaN as the string "nan",
    a float's sign kept) or the exception's class."""
    try:
        got = read(x)
    except Exception as exc:
        return type(exc)
    if isinstance(got, float | complex):
        parts = (got.real, got.imag) if isinstance(got, complex) else (got,)
        return type(got), tuple("nan" if math.isnan(p) else (p, math.copysign(1.0, p)) for p in parts)
    return type(got), got


@pytest.mark.parametrize("device", DEVICES)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_scalar_read_is_the_hosts_and_copies_out_the_element_alone(device, data):
    """Every Python scalar read of an array (any conversion, any dtype the
    device holds, 0-d or of one element, asarray's or a lone result or one
    with its buffer) gives on every device what it gives on the host, the
    same value of the same type or the same exception; on the host that is
    NumPy's own.  Where the array's copy is on a device, a successful read
    is one move of the element's bytes to the host, a failed one that or
    none, and the copies stay as they were: the read makes no buffer and no
    host copy (a second read moves the element again)."""
    dtypes = sorted(xp.__array_namespace_info__().dtypes(device=device))
    dtype = np.dtype(data.draw(st.sampled_from(dtypes), label="dtype"))
    value = data.draw(hnp.from_dtype(dtype), label="value")
    shape = data.draw(st.sampled_from([(), (1,), (1, 1)]), label="shape")
    made = data.draw(st.sampled_from(["asarray", "a result", "a result, its buffer made"]), label="made")
    # (round, format and tolist of an array that is not 0-d are an array, a
    # str and a list: no scalar read)
    reads = sorted(_SCALAR_READS) if shape == () else ["bool", "complex", "float", "index", "int", "item"]
    how = data.draw(st.sampled_from(reads), label="read")
    read = _SCALAR_READS[how]
    ref = np.full(shape, value, dtype)

    def made_on(dev):
        x = xp.asarray(ref, device=dev)
        if made != "asarray":
            x = xp.astype(x, x.dtype, copy=True)
            assert x.buffer_made is None  # the premise: a lone result
            if made == "a result, its buffer made":
                x.buffer  # noqa: B018
        return x

    on_host = _scalar_read(read, made_on("cpu"))
    if shape == ():
        # NumPy's answer (its arrays define no __round__: Python's round of
        # the element, as documented).
        assert on_host == _scalar_read(read, ref.item() if how == "round" else ref)
    x = made_on(device)
    before = None if x.buffer_made is None else (x.buffer.valid_devices, x.buffer.allocated_devices)
    with xp.track_transfers() as t:
        got = _scalar_read(read, x)
        again = _scalar_read(read, x)
    assert got == again == on_host
    moved = [(r.source, r.target, r.nbytes) for r in t.records]
    element_moved = [(device, "cpu", dtype.itemsize)] * 2
    if device == "cpu":
        assert moved == []
    elif isinstance(got, type):
        # Refused before the read (not 0-d) or after it (int of NaN, round
        # of a complex): never more than the element.
        assert moved in ([], element_moved)
    else:
        assert moved == element_moved
    if before is None and device.startswith("cuda"):
        # A device that orders work across streams reads a lone result
        # through its buffer, made now, which orders the read: still no
        # host copy.
        only = frozenset({xp.Device.parse(device)})
        before = (only, only)
    if before is None:
        assert x.buffer_made is None  # no buffer made ...
    else:
        assert (x.buffer.valid_devices, x.buffer.allocated_devices) == before  # ... nor a host copy


def test_the_class_is_not_a_constructor():
    """Arrays come from the namespace's creation functions; calling the class
    with data is a TypeError at the call (the class keeps no __init__ so that
    results are made at object.__new__'s cost)."""
    with pytest.raises(TypeError):
        xp.UnifiedArray([1.0, 2.0])  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        xp.UnifiedArray(np.zeros(2), device="cpu")  # type: ignore[call-arg]


# -- lone results (UnifiedArray.buffer) ------------------------------------------
#
# A result that a device's direct function made has no buffer until something
# asks for one.  Every way of using an array must then behave as on the same
# result with its buffer made at once: the same values, dtype and device, the
# same moves (never more: making the buffer moves nothing), the same errors.


def _lone_and_twin(device, dtype="float32"):
    """A lone result and its twin, the same result with its buffer made."""
    a = xp.asarray(np.arange(1, 9, dtype=dtype), device=device)
    b = xp.asarray(np.arange(8, dtype=dtype)[::-1].copy(), device=device)
    _ = a + b  # on MLX a signature's first call is judged on the general path
    lone, twin = a + b, a + b
    twin.buffer  # noqa: B018  (made now)
    assert lone.buffer_made is None and twin.buffer_made is not None  # the premise
    return lone, twin


def _write_setitem(x):
    x[1] = 40.0
    return np.asarray(x)


def _write_in_place(x):
    x += 1.0
    return np.asarray(x)


def _write_mlx_handle(x):
    import mlx.core as mx

    handle = x.buffer.mlx
    handle[2] = mx.array(-3.0, dtype=handle.dtype)
    return np.asarray(x)


def _write_host_alias(x):
    alias = np.asarray(x)
    alias[0] = 7.0
    return np.asarray(x * 1.0)  # computed on MLX: the alias's write moved there


def _write_through_a_view(x):
    v = x[2:5]
    v[0] = 11.0
    return np.asarray(x)


_LONE_ACCESSES = {
    "float of a sum": lambda x: float(xp.sum(x)),
    "np.asarray": lambda x: np.asarray(x).copy(),
    "an operation's result": lambda x: np.asarray(xp.sin(x) + x * 2.0),
    "a whole reduction": lambda x: float(xp.max(x)),
    "an element": lambda x: float(x[3]),
    "a view": lambda x: np.asarray(x[1:6:2]),
    "a reshape": lambda x: np.asarray(xp.reshape(x, (2, 4))),
    "to_device cpu": lambda x: np.asarray(x.to_device("cpu")),
    "the buffer's read": lambda x: np.array(x.buffer.read("mlx")),
    "pickle": lambda x: np.asarray(pickle.loads(pickle.dumps(x))),
    # (NumPy takes host memory only; the simulated GPU's capsules are not
    # real DLPack tensors, which NumPy would read as one)
    "dlpack": lambda x: np.from_dlpack(x).copy() if x.__dlpack_device__()[0] == 1 else x.__dlpack_device__(),
    "dtype, device, shape": lambda x: (x.dtype, x.device, x.shape, x.nbytes),
    "setitem": _write_setitem,
    "in-place operator": _write_in_place,
    "MLX handle": _write_mlx_handle,
    "host alias": _write_host_alias,
    "write through a view": _write_through_a_view,
    "a bad index": lambda x: x[8],
    "a mismatched shape": lambda x: x + xp.ones(3, device=x.device),
    "astype": lambda x: np.asarray(xp.astype(x, xp.int16)),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("how", sorted(_LONE_ACCESSES))
def test_a_lone_result_behaves_as_one_with_its_buffer(how, device):
    use = _LONE_ACCESSES[how]

    def outcome(x):
        with xp.track_transfers() as t:
            try:
                got = use(x)
            except Exception as exc:
                got = type(exc)
            after = np.asarray(x).copy()  # then read: never stale
        return got, after, [(r.direction, r.nbytes) for r in t.records]

    lone, twin = _lone_and_twin(device)
    got, want = outcome(lone), outcome(twin)
    np.testing.assert_equal(got, want)


@pytest.mark.parametrize("device", DEVICES)
def test_threads_that_ask_a_lone_result_for_its_buffer_get_one_buffer(device):
    for _ in range(20):
        lone, _twin = _lone_and_twin(device)
        start = threading.Barrier(8)

        def ask(x=lone, start=start):
            start.wait()
            return x.buffer

        with ThreadPoolExecutor(8) as pool:
            buffers = list(pool.map(lambda _: ask(), range(8)))
        assert all(b is buffers[0] for b in buffers) and lone.buffer_made is buffers[0]
        lone[0] = 5.0  # a write through the one buffer is what every later read sees
        assert float(lone[0]) == 5.0 and float(xp.sum(lone + 0.0)) == float(np.asarray(lone).sum())


def test_only_the_fast_paths_and_the_array_makers_read_a_lone_results_slots():
    """A lone result's slots are read where None is handled (the fast paths)
    and written where arrays are made; everything else asks ``x.buffer``.
    A new module that reads them is named here on purpose, after review."""
    root = pathlib.Path(xp.__file__).parent
    readers = {
        str(p.relative_to(root))
        for p in root.rglob("*.py")
        if re.search(r"\.(buffer_made|lone_copy|lone_device_dtype)\b", p.read_text(encoding="utf-8"))
    }
    assert readers == {
        "_access.py",  # host_current and host_native: the fast paths' one question
        "_array.py",  # the class, its buffer property, python_scalar
        "_operators.py",  # unary, operate, run_direct
        "_reductions.py",  # the whole reductions' fast paths
        "_results.py",  # adopt
        "_subscripts.py",  # getitem's fast path, views
        "_view_ops.py",  # linked views
    }


class _OtherArray:
    """Another library's array: it answers ``@`` from either side."""

    def __matmul__(self, other):
        return "other @"

    def __rmatmul__(self, other):
        return "@ other"


@pytest.mark.parametrize("device", DEVICES)
def test_binary_operators_take_numpys_operands_alike_in_both_builds(device):
    # The compiled build enforced `other: UnifiedArray` on @ (Cython), so
    # `a @ ndarray` raised "Argument 'other' has incorrect type" where the
    # pure build deferred; lists and None gave Python's identity answers.
    host = np.array([1.0, 2.0])
    x = xp.asarray(host, device=device)
    assert float(x @ np.ones(2)) == float(host @ np.ones(2))
    assert float(np.ones(2) @ x) == float(np.ones(2) @ host)
    assert x @ _OtherArray() == "@ other" and _OtherArray() @ x == "other @"
    assert float(x @ [1, 2]) == float(host @ [1, 2])
    for got, want in [(x == [1, 2], host == [1, 2]), (x != [1, 2], host != [1, 2]), (x + [1, 2], host + [1, 2]),  # noqa: RUF005
                      ([3, 4] - x, [3, 4] - host), (x == None, host == None), (x != None, host != None)]:  # noqa: E711  # fmt: skip
        assert type(got) is xp.UnifiedArray and got.dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(got), want)
    with pytest.raises(TypeError):
        x.sort(axis=0.0)  # NumPy's TypeError, in both builds
    assert x.tobytes(order=None) == host.tobytes(order=None)


def test_strict_mode_refuses_numpys_operands():
    x = xp.asarray([1.0, 2.0])
    with xp.strict(), pytest.raises(TypeError):
        x + [1, 2]  # noqa: RUF005
