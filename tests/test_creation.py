"""The standard's creation functions (``unifiedarray/_creation.py``) give
NumPy's answer on every device: values, dtypes (the device's defaults where
none is given), shapes and the device asked for; foreign data is copied in,
and a buffer of the library's own is taken as it is."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import unifiedarray as xp

from .conftest import DEVICES


def moves(fn):
    with xp.track_transfers() as t:
        out = fn()
    return out, t


def test_asarray_of_a_buffer_wraps_it_without_a_copy():
    buf = xp.UnifiedBuffer((3,), dtype=np.float64)
    buf.fill(2.0)
    x, t = moves(lambda: xp.asarray(buf))
    assert x.buffer is buf and t.count == 0
    x[0] = 5.0
    assert buf.to_numpy().tolist() == [5.0, 2.0, 2.0]
    assert xp.asarray(buf, copy=True).buffer is not buf


def defaults(device):
    return xp.__array_namespace_info__().default_dtypes(device=device)


def check(got, expected, device, dtype=None):
    """``got`` is NumPy's ``expected`` (values, shape, dtype: ``dtype``, else
    NumPy's) on ``device``."""
    assert got.device == device
    assert got.shape == expected.shape
    assert got.dtype == (expected.dtype if dtype is None else dtype)
    np.testing.assert_array_equal(np.asarray(got), expected.astype(got.dtype))


SHAPES = [(), (0,), (3,), (2, 3), (1, 0, 2)]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name", ["zeros", "ones"])
def test_zeros_and_ones_are_numpys_in_the_devices_default_float(device, shape, name):
    check(getattr(xp, name)(shape, device=device), getattr(np, name)(shape), device, defaults(device)["real floating"])
    check(getattr(xp, name)(shape, dtype=xp.int16, device=device), getattr(np, name)(shape, np.int16), device)


@pytest.mark.parametrize("device", DEVICES)
def test_empty_has_the_shape_dtype_and_device_asked_for(device):
    x = xp.empty((2, 3), dtype=xp.uint8, device=device)
    assert (x.shape, x.dtype, x.device) == ((2, 3), xp.uint8, device)
    assert xp.empty(4, device=device).dtype == defaults(device)["real floating"]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    ("fill", "dtype", "default"),
    [
        (2, None, "integral"),
        (2.5, None, "real floating"),
        (True, None, None),
        (7, "int8", None),
        (1.5, "float32", None),
    ],
)
def test_full_takes_its_dtype_from_the_value_or_the_argument(device, fill, dtype, default):
    expected = np.full((2, 2), fill, dtype=dtype)
    want = defaults(device)[default] if default else None
    check(xp.full((2, 2), fill, dtype=dtype, device=device), expected, device, want)


NUMPY_SCALAR_DTYPES = ["bool", "int8", "uint16", "int64", "uint64", "float16", "float32", "float64"]
NUMPY_SCALAR_DTYPES += ["complex64", "complex128"]


@pytest.mark.parametrize("device", DEVICES)
@settings(max_examples=60, deadline=None)
@given(data=st.data(), dtype=st.sampled_from(NUMPY_SCALAR_DTYPES))
def test_a_numpy_scalar_is_data_of_its_own_dtype(device, data, dtype):
    """``full`` and ``asarray`` take a NumPy scalar as NumPy does, as data of
    its own dtype (np.float64 and np.complex128, subclasses of Python's
    float and complex, too): the same dtype and bits on every device, or,
    where the device cannot hold the dtype, a TypeError naming it; never a
    device's default, which could narrow it silently."""
    value = data.draw(hnp.from_dtype(np.dtype(dtype)))
    for make, expected in (
        (lambda: xp.full(3, value, device=device), np.full(3, value)),
        (lambda: xp.asarray(value, device=device), np.asarray(value)),
    ):
        try:
            got = make()
        except TypeError as exc:
            assert device != "cpu" and dtype in str(exc) and str(device) in str(exc)
            continue
        assert got.dtype == expected.dtype
        assert np.asarray(got).tobytes() == expected.tobytes()


def test_strict_full_takes_python_scalars_only():
    # array-api-strict refuses a NumPy scalar that is not a Python one.
    with xp.strict():
        with pytest.raises(TypeError, match="float32"):
            xp.full(2, np.float32(3))
        assert xp.full(2, np.float64(3)).dtype == xp.float64  # a Python float too
    assert xp.full(2, np.float32(3)).dtype == xp.float32


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("n", "m", "k"), [(3, None, 0), (2, 4, 1), (4, 2, -1), (3, 3, 5), (0, 2, 0)])
def test_eye_is_numpys(device, n, m, k):
    check(xp.eye(n, m, k=k, device=device), np.eye(n, m, k=k), device, defaults(device)["real floating"])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "args", [(5,), (2, 9, 3), (5, 0, -2), (0, 1, 0.25), (-1.5, 1.5, 0.5), (3, 3), (10, 0)], ids=str
)
def test_arange_is_numpys(device, args):
    expected = np.arange(*args)
    kind = "integral" if expected.dtype.kind == "i" else "real floating"
    check(xp.arange(*args, device=device), expected, device, defaults(device)[kind])


@pytest.mark.parametrize("device", DEVICES)
@given(
    start=st.integers(-50, 50),
    stop=st.integers(-50, 50),
    step=st.integers(-7, 7).filter(bool),
)
@settings(max_examples=30, deadline=None)
def test_arange_of_integers_is_numpys_for_any_bounds(device, start, stop, step):
    check(
        xp.arange(start, stop, step, device=device), np.arange(start, stop, step), device, defaults(device)["integral"]
    )


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    ("start", "stop", "num", "endpoint"), [(0, 1, 5, True), (0, 1, 5, False), (2, -3, 1, True), (0, 1, 0, True)]
)
def test_linspace_is_numpys(device, start, stop, num, endpoint):
    got = xp.linspace(start, stop, num, endpoint=endpoint, device=device)
    expected = np.linspace(start, stop, num, endpoint=endpoint)
    assert got.device == device and got.shape == expected.shape
    assert got.dtype == defaults(device)["real floating"]
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-12)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", ["zeros_like", "ones_like", "full_like"])
def test_like_functions_keep_the_arrays_shape_dtype_and_device(device, name):
    x = xp.asarray([[1, 2, 3]], dtype=xp.int32, device=device)
    extra = (4,) if name == "full_like" else ()
    expected = getattr(np, name)(np.asarray([[1, 2, 3]], dtype=np.int32), *extra)
    check(getattr(xp, name)(x, *extra), expected, device)
    check(getattr(xp, name)(x, *extra, dtype=xp.float32), expected.astype(np.float32), device)
    e = xp.empty_like(x)
    assert (e.shape, e.dtype, e.device) == (x.shape, x.dtype, x.device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("k", [-2, -1, 0, 1, 3])
def test_tril_and_triu_are_numpys(device, k):
    host = np.arange(24.0).reshape(2, 3, 4)
    x = xp.asarray(host, device=device)
    check(xp.tril(x, k=k), np.tril(host, k=k), device)
    check(xp.triu(x, k=k), np.triu(host, k=k), device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid_is_numpys(device, indexing):
    a, b = np.arange(3.0), np.arange(4, dtype=np.float64) * 2
    got = xp.meshgrid(xp.asarray(a, device=device), xp.asarray(b, device=device), indexing=indexing)
    expected = np.meshgrid(a, b, indexing=indexing)
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        check(g, e, device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "obj", [[1, 2, 3], [[1.5, 2.0]], (True, False), 3, 2.5, 1 + 2j, [], np.arange(4, dtype=np.int16)], ids=repr
)
def test_asarray_reads_python_and_numpy_data_as_numpy_does(device, obj):
    expected = np.asarray(obj)
    got = xp.asarray(obj, device=device)
    want = {"f": "real floating", "c": "complex floating"}.get(expected.dtype.kind)
    check(got, expected, device, defaults(device)[want] if want else None)


@pytest.mark.parametrize("device", DEVICES)
def test_asarray_copies_foreign_data_in(device):
    host = np.arange(4.0)
    x = xp.asarray(host, device=device)
    host[0] = 99.0  # the caller's array is not the buffer's
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="copy=False"):
        xp.asarray(host, copy=False, device=device)


@pytest.mark.parametrize("device", DEVICES)
def test_asarray_of_an_array_copies_only_when_asked_or_needed(device):
    x = xp.asarray([1.0, 2.0], device=device)
    assert xp.asarray(x) is x
    y = xp.asarray(x, copy=True)
    y[0] = 5.0
    assert x.tolist() == [1.0, 2.0]
    z = xp.asarray(x, dtype=xp.float32)
    assert z.dtype == xp.float32 and z.tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match="copy=False"):
        xp.asarray(x, dtype=xp.float32, copy=False)
    moved = xp.asarray(x, device="cpu")
    assert moved.device == "cpu" and moved.tolist() == [1.0, 2.0]


@pytest.mark.parametrize("device", DEVICES)
def test_from_dlpack_copies_a_numpy_array_in(device):
    host = np.arange(6, dtype=np.int32).reshape(2, 3)
    x = xp.from_dlpack(host, device=device)
    host[0, 0] = -1
    check(x, np.arange(6, dtype=np.int32).reshape(2, 3), device)
    with pytest.raises(ValueError, match="copy=False"):
        xp.from_dlpack(host, copy=False)


@pytest.mark.parametrize("device", DEVICES)
def test_asarray_of_a_list_of_arrays_reads_them_and_marks_nothing(device):
    # xp.asarray([x, x]) took x's writable host alias: x's device copy then
    # counted as stale, and its next device use re-uploaded all of x.
    x = xp.asarray(np.ones(100, np.float32), device=device)
    x.buffer.sync_to_host()
    valid = x.buffer.valid_devices
    y = xp.asarray([x, x])
    assert y.shape == (2, 100) and x.buffer.valid_devices == valid and not x.buffer.host_aliased()
    with xp.track_transfers() as moves:
        xp.sum(x)
    assert moves.count == 0
