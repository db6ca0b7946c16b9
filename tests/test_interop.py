"""Protocols (NumPy, DLPack, MLX, pickle, dask tokens) and the ecosystem
(array-api-compat, array-api-extra, scikit-learn, SciPy, xarray, dask),
tested with the real libraries, on every device present."""

from __future__ import annotations

import contextlib
import os
import pickle
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import unifiedarray as xp
from unifiedarray import UnifiedArray, _interop

from .conftest import DEVICES, HAS_MLX, needs_mlx

os.environ.setdefault("SCIPY_ARRAY_API", "1")

RNG = np.random.default_rng(0)


def moves(fn):
    with xp.track_transfers() as t:
        out = fn()
    return out, t


# -- __array__ -------------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
def test_array_protocol_syncs_once_and_is_the_same_writable_alias_everywhere(device):
    if "mlx" not in DEVICES:
        pytest.skip("needs a second memory space")
    x = xp.asarray([1.0, 2.0, 3.0], device=device)
    other = "mlx" if device == "cpu" else "cpu"
    x.buffer.sync_to_device(other) if other != "cpu" else x.buffer.sync_to_host()  # two copies
    a, t = moves(lambda: np.asarray(x))
    assert a.tolist() == [1.0, 2.0, 3.0]
    assert a.flags.writeable and type(a) is np.ndarray  # as NumPy's own arrays give it, on every device
    assert t.count == 0
    assert x.buffer.valid_devices == {"cpu"}  # a host write: the other copy is stale
    _, t2 = moves(lambda: np.asarray(x))
    assert t2.count == 0  # repeated reads move nothing
    c = np.array(x)  # a copy is writable and independent
    c[0] = 99.0
    assert float(x[0]) == 1.0
    a[0] = 5.0  # the alias writes through
    assert float(x[0]) == 5.0 and float(xp.sum(x)) == 10.0


def test_array_protocol_aliases_a_host_array_as_numpy_does():
    """np.asarray(x) is a writable alias (what SciPy's output= and in-place
    filters expect); handing it out is a counted write, and while it lives
    the host copy is authoritative, so it never goes stale."""
    x = xp.asarray([1.0, 2.0, 3.0])
    version = x.buffer._version
    a = np.asarray(x)
    assert a.flags.writeable and type(a) is np.ndarray
    a[0] = 10.0
    assert float(x[0]) == 10.0 and x.buffer._version > version
    v = np.asarray(x[1:])  # a view aliases the same memory
    v[0] = 20.0
    assert x.tolist() == [10.0, 20.0, 3.0]
    if "mlx" in DEVICES:
        x.buffer.sync_to_device("mlx")  # a copy for this access only: a may write again
        a[0] = 1.0
        assert np.asarray(x.buffer.read("mlx")).tolist() == [1.0, 20.0, 3.0]
        b = np.asarray(x)
        assert b.flags.writeable and np.shares_memory(a, b)


def test_array_protocol_dtype_and_copy_false():
    x = xp.asarray([1, 2], dtype=xp.int32)
    assert np.asarray(x, dtype=np.float64).dtype == np.float64
    with pytest.raises(ValueError):
        x.__array__(dtype=np.float64, copy=False)


# -- NumPy functions run where the data is ---------------------------------------


@pytest.mark.parametrize("device", DEVICES)
def test_numpy_functions_return_unified_arrays_on_the_same_device(device):
    x = xp.asarray(RNG.normal(size=(4, 3)), device=device)
    for result in (np.sin(x), np.mean(x, axis=0), np.concatenate([x, x]), x + np.ones(3)):
        assert type(result) is UnifiedArray
        assert result.device == device
    np.testing.assert_allclose(np.asarray(np.sin(x)), np.sin(np.asarray(x)))
    np.testing.assert_allclose(np.asarray(np.mean(x, axis=0)), np.asarray(x).mean(axis=0))
    a = xp.asarray(RNG.normal(size=(3, 3)) + 3 * np.eye(3), device=device)
    b = xp.asarray(RNG.normal(size=3), device=device)
    sol = np.linalg.solve(a, b)
    assert type(sol) is UnifiedArray and sol.device == device
    np.testing.assert_allclose(np.asarray(a) @ np.asarray(sol), np.asarray(b), rtol=1e-6, atol=1e-9)


@needs_mlx
def test_numpy_function_mlx_lacks_runs_on_host_counted_and_comes_back():
    x = xp.asarray(np.arange(10.0), device="mlx")
    out, t = moves(lambda: np.percentile(x, 50, method="weibull"))  # a method no composition covers
    assert type(out) is UnifiedArray and out.device == "mlx"
    assert float(out) == np.percentile(np.arange(10.0), 50, method="weibull")
    assert any(r.reason == "host fallback: numpy.percentile" for r in t.records)


@pytest.mark.parametrize("device", DEVICES)
def test_numpy_out_argument_writes_through_the_buffer(device):
    x = xp.asarray([1.0, 2.0], device=device)
    out = xp.zeros(2, device=device)
    res = np.add(x, x, out=out)
    assert res is out
    assert out.tolist() == [2.0, 4.0]


IN_PLACE = {
    # name: (call, what the 3x3 arange becomes)
    "fill_diagonal": (lambda y: np.fill_diagonal(y, -1.0), lambda e: np.fill_diagonal(e, -1.0)),
    "put": (lambda y: np.put(y, [0, 4], [-5.0, -6.0]), lambda e: np.put(e, [0, 4], [-5.0, -6.0])),
    "put_along_axis": (
        lambda y: np.put_along_axis(y, np.array([[0], [1], [2]]), -2.0, axis=1),
        lambda e: np.put_along_axis(e, np.array([[0], [1], [2]]), -2.0, axis=1),
    ),
    "copyto": (lambda y: np.copyto(y, np.full((3, 3), 7.0)), lambda e: np.copyto(e, np.full((3, 3), 7.0))),
    "place": (lambda y: np.place(y, np.asarray(y) > 4, [0.0]), lambda e: np.place(e, e > 4, [0.0])),
    "putmask": (lambda y: np.putmask(y, np.asarray(y) > 4, -y), lambda e: np.putmask(e, e > 4, -e)),
    "add.at": (
        lambda y: np.add.at(y, ([0, 0, 2], [1, 1, 2]), 1.0),
        lambda e: np.add.at(e, ([0, 0, 2], [1, 1, 2]), 1.0),
    ),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(IN_PLACE))
def test_numpy_functions_that_write_in_place_write_through_the_buffer(device, name):
    # NumPy functions that write into their first argument: every backend,
    # and every copy, must see the write (before, on MLX the host copy took
    # it while the MLX copy stayed "current").
    call, expect = IN_PLACE[name]
    y = xp.asarray(np.arange(9.0).reshape(3, 3), device=device)
    _ = y * 1  # y's device copy is current
    if "mlx" in DEVICES:
        y.buffer.sync_to_device("mlx")  # a second current copy, for a host-placed y
    token = y.__dask_tokenize__()
    call(y)
    expected = np.arange(9.0).reshape(3, 3)
    expect(expected)
    np.testing.assert_array_equal(np.asarray(y), expected)
    assert float(xp.sum(y)) == expected.sum()  # computed where y lives
    if "mlx" in DEVICES:
        np.testing.assert_array_equal(np.asarray(y.buffer.read("mlx")), expected)
    assert y.__dask_tokenize__() != token


@pytest.mark.parametrize("device", DEVICES)
def test_in_place_numpy_function_on_a_view_writes_the_base(device):
    x = xp.asarray(np.arange(16.0).reshape(4, 4), device=device)
    v = x[1:, ::2]
    np.fill_diagonal(v, 0.0)
    expected = np.arange(16.0).reshape(4, 4)
    np.fill_diagonal(expected[1:, ::2], 0.0)
    np.testing.assert_array_equal(np.asarray(x), expected)
    assert float(xp.sum(x)) == expected.sum()
    r = xp.reshape(x[:, ::2], (8,))  # no host view expresses this: the copy path
    np.put(r, [0], [-1.0])
    assert float(x[0, 0]) == -1.0


@pytest.mark.parametrize("device", DEVICES)
def test_nan_to_num_without_copy_writes_and_returns_its_argument(device):
    with np.errstate(all="ignore"):
        z = xp.asarray([-1.0, 0.0, 1.0], device=device) / xp.asarray(0.0, device=device)
    _ = z * 1
    res = np.nan_to_num(z, copy=False, posinf=9.0, neginf=-9.0)
    assert res is z
    assert z.tolist() == [-9.0, 0.0, 9.0] and float(xp.sum(z)) == 0.0 and float(xp.max(z)) == 9.0


@pytest.mark.parametrize("device", DEVICES)
def test_in_place_numpy_function_with_an_ndarray_target_writes_the_ndarray(device):
    # The UnifiedArray is only the source: NumPy's own array is written.
    d = np.zeros(3)
    np.copyto(d, xp.asarray([1.0, 2.0, 3.0], device=device))
    assert d.tolist() == [1.0, 2.0, 3.0]
    np.add.at(d, [0, 0], xp.asarray([1.0, 1.0], device=device))
    assert d.tolist() == [3.0, 2.0, 3.0]
    np.putmask(d, xp.asarray([True, False, True], device=device), 0.0)
    assert d.tolist() == [0.0, 2.0, 0.0]


def test_numpy_calls_get_read_only_data():
    # A NumPy-level function that writes into an argument it is not known to
    # write cannot go around the buffer: it gets read-only data and fails.
    x = xp.asarray([1.0, 2.0])

    def sneaky(a):
        a[0] = 100.0

    with pytest.raises(ValueError, match="read-only"):
        x.__array_function__(sneaky, (UnifiedArray,), (x,), {})
    assert x.tolist() == [1.0, 2.0]


@needs_mlx
def test_ndarray_is_host_data_whatever_the_default_device():
    x = xp.asarray([1.0, 2.0])
    with xp.default_device("mlx"):
        y, t = moves(lambda: x + np.ones(2))
    assert y.device == "cpu" and t.count == 0  # no trip to MLX and back


@pytest.mark.parametrize("device", DEVICES)
def test_ndarrays_in_the_other_byte_order_come_in_native(device):
    # Big-endian data (FITS files, say) keeps its values and becomes the
    # standard's dtype in native order, on every device alike.
    for dtype, native in ((">f8", xp.float64), (">i4", xp.int32), (">c8", xp.complex64)):
        data = np.arange(3).astype(dtype)
        x = xp.asarray(data, device=device)
        assert x.dtype == native and x.tolist() == data.tolist()
    y = xp.asarray([1.0, 2.0, 3.0], device=device) + np.arange(3).astype(">f8")
    assert y.dtype == xp.float64 and y.tolist() == [1.0, 3.0, 5.0]


def test_ndarray_mixed_with_unified_array_is_host_data():
    x = xp.asarray([1.0, 2.0])
    for res in (x + np.array([1.0, 1.0]), np.array([1.0, 1.0]) + x, np.maximum(np.zeros(2), x)):
        assert type(res) is UnifiedArray
        assert res.device == "cpu"


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


@pytest.mark.parametrize("device", DEVICES)
def test_numpy_call_forms_still_work_through_numpy_where_the_data_lives(device):
    A = xp.reshape(xp.arange(6.0, device=device), (2, 3))
    (m, s, i), t = moves(lambda: (np.mean(A, 0), np.std(A, axis=1, ddof=1), np.argmin(A, 1)))
    assert m.tolist() == [1.5, 2.5, 3.5] and i.tolist() == [0, 0]
    np.testing.assert_allclose(np.asarray(s), [1.0, 1.0])
    assert {m.device, s.device, i.device} == {A.device}
    assert t.count == 0  # no host detour


# -- DLPack ------------------------------------------------------------------------------


def test_dlpack_host_export_is_the_numpy_alias_unless_copied():
    x = xp.asarray([1.0, 2.0])
    y = np.from_dlpack(x)
    assert y.tolist() == [1.0, 2.0] and y.flags.writeable
    y[1] = 3.0  # as np.asarray's alias: the buffer sees the write
    assert x.tolist() == [1.0, 3.0] and x.buffer.host_aliased()
    z = np.from_dlpack(x, copy=True)
    assert z.flags.writeable
    z[0] = 5.0
    assert float(x[0]) == 1.0


def test_legacy_dlpack_export_is_the_alias_and_a_write():
    x = xp.asarray([1.0, 2.0])
    if HAS_MLX:
        x.buffer.read("mlx")
    assert x.__dlpack__() is not None  # legacy consumer, copy=None: the alias, a write
    assert x.buffer.valid_devices == {"cpu"}
    assert x.__dlpack__(copy=True) is not None


@needs_mlx
def test_mlx_functions_do_not_mark_the_array_written():
    import mlx.core as mx

    x = xp.asarray(np.arange(4, dtype=np.float32), device="mlx")
    np.asarray(x)
    mx.sin(x)
    assert x.buffer.state is xp.BufferState.SYNCHRONIZED
    _, t = moves(lambda: np.asarray(x))
    assert t.count == 0


@needs_mlx
def test_mlx_results_can_be_read_from_another_thread():
    import threading

    y = xp.asarray([1.0, 2.0], device="mlx") * 2
    out = {}
    t = threading.Thread(target=lambda: out.update(v=(y + 0).tolist()))
    t.start()
    t.join()
    assert out == {"v": [2.0, 4.0]}


@needs_mlx
@pytest.mark.parametrize("how", ["whole", "slice", "T", "reshape", "in-place"])
def test_mlx_writes_from_other_threads_are_seen_and_lose_nothing(how):
    import threading

    x = xp.zeros((8, 16), device="mlx")
    errors = []

    def worker(i):
        try:
            for _ in range(20):
                if how == "whole":
                    x[i, :] = x[i, :] + 1.0
                elif how == "slice":
                    v = x[i]
                    v[...] = v + 1.0
                elif how == "T":
                    v = x.T[:, i]
                    v += 1.0
                elif how == "reshape":
                    v = xp.reshape(x, (8, 4, 4))[i]
                    v += 1.0
                else:
                    v = x[i]
                    v += 1.0
        except Exception as exc:
            errors.append(repr(exc))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert np.asarray(x).tolist() == [[20.0] * 16] * 8  # each thread its own row: no update lost


@needs_mlx
def test_dlpack_from_mlx_array_and_to_cpu():
    x = xp.asarray(np.arange(4, dtype=np.float32), device="mlx")
    assert x.__dlpack_device__() == (1, 0)  # MLX's CPU build
    y = np.from_dlpack(x, device="cpu")
    assert y.tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize("device", DEVICES)
def test_from_dlpack_imports_and_copies(device):
    src = np.arange(6, dtype=np.int32)
    x = xp.from_dlpack(src, device=device)
    src[0] = 100
    assert x.tolist() == [0, 1, 2, 3, 4, 5] and x.device == device
    with pytest.raises(ValueError):
        xp.from_dlpack(src, copy=False)


@needs_mlx
def test_from_dlpack_of_mlx_array():
    import mlx.core as mx

    x = xp.from_dlpack(mx.array([1.0, 2.0], dtype=mx.float64))
    assert x.dtype == xp.float64 and x.tolist() == [1.0, 2.0]


@pytest.mark.parametrize("device", DEVICES)
def test_torch_through_dlpack(device):
    torch = pytest.importorskip("torch")
    if device.startswith("cuda") and not torch.cuda.is_available():
        pytest.skip("this PyTorch build has no CUDA")
    x = xp.asarray([1.0, 2.0, 3.0], device=device)
    t = torch.from_dlpack(x)
    assert t.dtype == torch.float64 and t.tolist() == [1.0, 2.0, 3.0]
    back = xp.from_dlpack(torch.arange(3, dtype=torch.int32), device=device)
    assert back.dtype == xp.int32 and back.device == device and back.tolist() == [0, 1, 2]


@needs_mlx
def test_torch_write_through_a_host_export_is_declared_with_mark_host_dirty():
    # PyTorch has no read-only tensors: it ignores DLPack's read-only flag
    # and shares the host memory.  The buffer cannot see such a write; the
    # documented remedy is mark_host_dirty(), after which no copy is stale.
    torch = pytest.importorskip("torch")
    x = xp.asarray([1.0, 2.0, 3.0])
    x.buffer.sync_to_device("mlx")
    t = torch.from_dlpack(x)
    t[0] = 99.0
    x.buffer.mark_host_dirty()
    with xp.track_transfers() as ledger:
        on_mlx = xp.asarray(x, device="mlx", copy=True)
    assert ledger.count == 1  # the stale MLX copy was refreshed from the host
    assert on_mlx.tolist() == [99.0, 2.0, 3.0]


def _jax_has_gpu(jax) -> bool:
    try:
        return bool(jax.devices("gpu"))
    except RuntimeError:
        return False


@pytest.mark.parametrize("device", DEVICES)
def test_jax_through_dlpack(device):
    jax = pytest.importorskip("jax")
    if device.startswith("cuda") and not _jax_has_gpu(jax):
        pytest.skip("this JAX build has no GPU backend")
    jnp = jax.numpy
    x = xp.asarray([1.0, 2.0], dtype=xp.float32, device=device)
    j = jnp.from_dlpack(x)
    assert j.dtype == jnp.float32 and j.tolist() == [1.0, 2.0]
    back = xp.from_dlpack(jnp.asarray([3, 4], dtype=jnp.int32), device=device)
    assert back.dtype == xp.int32 and back.device == device and back.tolist() == [3, 4]
    # Whether JAX copies or shares host memory is JAX's choice (JAX 0.12
    # shares 64-byte aligned host buffers, even with copy=True; 0.10 copies),
    # so a later write to x may show through j.  Exporting a copy gives a
    # snapshot on every version.
    snapshot = jnp.from_dlpack(xp.asarray(x, copy=True))
    x[0] = 7.0
    assert snapshot.tolist() == [1.0, 2.0] and x.tolist() == [7.0, 2.0]


# -- MLX takes the MLX copy ---------------------------------------------------------


@needs_mlx
def test_mlx_functions_take_the_mlx_copy_without_a_host_detour():
    import mlx.core as mx

    x = xp.asarray(np.arange(4, dtype=np.float32), device="mlx")
    x.buffer._copies.pop(xp.Device.parse("cpu"), None)  # no host copy at all
    (arr, _sinx), t = moves(lambda: (mx.array(x), mx.sin(x)))
    assert t.count == 0
    assert np.asarray(arr).tolist() == [0, 1, 2, 3]
    arr[0] = 50  # the consumer's handle cannot write into the buffer
    assert x.tolist() == [0, 1, 2, 3]


@needs_mlx
def test_mlx_array_keeps_float64_through_mlx_array_protocol():
    import mlx.core as mx

    x = xp.asarray([1.0 + 2**-40], device="mlx")
    m = mx.array(x.__mlx_array__())
    assert m.dtype == mx.float64


# -- conversions, pickling, dask tokens ------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
def test_tolist_to_numpy_and_pickle_keep_dtype_shape_data_device(device):
    x = xp.asarray([[1, 2], [3, 4]], dtype=xp.int16, device=device)
    assert x.tolist() == [[1, 2], [3, 4]]
    assert x.to_numpy().dtype == np.int16
    y = pickle.loads(pickle.dumps(x))
    assert (y.dtype, y.shape, y.device, y.tolist()) == (x.dtype, x.shape, x.device, x.tolist())


@pytest.mark.parametrize("name", ["cpu", "mlx", "cuda:0", "cuda:3"])
def test_devices_pickle_and_copy_to_the_same_object(name):
    # A device is one object per name, also through pickle and copy (kept in
    # a dict, say, or sent to a worker process), and its kind a plain str.
    import copy

    dev = xp.Device.parse(name)
    assert pickle.loads(pickle.dumps(dev)) is dev
    assert copy.copy(dev) is dev and copy.deepcopy({"d": dev})["d"] is dev
    assert type(dev.kind) is str and dev.kind == name.split(":")[0]


def test_unpickling_where_the_device_is_missing_restores_on_host():
    from unifiedarray._interop import _rebuild

    with pytest.warns(xp.DeviceUnavailableWarning, match="cuda:7"):
        y = _rebuild(np.arange(3), "cuda:7")
    assert y.device == "cpu" and y.tolist() == [0, 1, 2]


def test_dask_token_names_data_without_touching_it(monkeypatch):
    pytest.importorskip("dask")
    from dask.base import tokenize

    from unifiedarray import _array

    x = xp.asarray(np.arange(1000.0))
    t1 = tokenize(x)
    assert tokenize(x) == t1
    x[0] = 5.0
    assert tokenize(x) != t1  # a write changes the token
    # Every pickle of an array goes through the table's reduce_ex (__reduce__
    # and __reduce_ex__ alike; the class itself is immutable where compiled).
    monkeypatch.setattr(_array._ops, "reduce_ex", lambda *args: pytest.fail("pickled for a token"))
    tokenize(x)
    with pytest.raises(pytest.fail.Exception):  # the patch is what pickling calls
        pickle.dumps(x)


# -- the ecosystem --------------------------------------------------------------------


def test_array_api_compat_recognises_the_namespace():
    import array_api_compat

    x = xp.ones(2)
    assert array_api_compat.is_array_api_obj(x)
    assert array_api_compat.array_namespace(x) is xp
    assert xp.get_namespace(x) is xp


@pytest.mark.parametrize("device", DEVICES)
def test_array_api_extra(device):
    xpx = pytest.importorskip("array_api_extra")
    x = xp.asarray(RNG.normal(size=(5, 3)), device=device)
    c = xpx.cov(x.T)
    np.testing.assert_allclose(np.asarray(c), np.cov(np.asarray(x).T), rtol=1e-10)
    assert c.device == device
    assert xpx.atleast_nd(xp.asarray(1.0, device=device), ndim=3).shape == (1, 1, 1)
    out = xpx.at(x)[0, 0].set(7.0, copy=True)
    assert float(out[0, 0]) == 7.0 and float(x[0, 0]) != 7.0
    # isclose assigns through a mask that may select nothing (apply_where).
    a = xp.asarray([1.0, np.inf, np.nan, 2.0], device=device)
    b = xp.asarray([1.0, np.inf, np.nan, 2.5], device=device)
    assert xpx.isclose(a, b).tolist() == [True, True, False, False]
    assert xpx.isclose(a, b, equal_nan=True).tolist() == [True, True, True, False]
    assert xpx.isclose(xp.ones(2, device=device), xp.ones(2, device=device)).tolist() == [True, True]


SKLEARN_CASES = ["pca", "lda", "ridge"]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", SKLEARN_CASES)
def test_scikit_learn_estimators_match_numpy(device, case):
    sklearn = pytest.importorskip("sklearn")
    from sklearn.decomposition import PCA
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.linear_model import Ridge

    X = RNG.normal(size=(60, 5))
    y = (X[:, 0] + 0.1 * RNG.normal(size=60) > 0).astype(np.float64)
    make = {
        "pca": lambda: PCA(n_components=2, svd_solver="full"),
        "lda": lambda: LinearDiscriminantAnalysis(),
        "ridge": lambda: Ridge(alpha=1.0, solver="svd"),
    }[case]
    expected = make().fit(X, y)
    expected = expected.predict(X) if case == "ridge" else expected.transform(X)
    Xu, yu = xp.asarray(X, device=device), xp.asarray(y, device=device)
    with sklearn.config_context(array_api_dispatch=True):
        est = make().fit(Xu, yu)
        got = est.predict(Xu) if case == "ridge" else est.transform(Xu)
    assert type(got) is UnifiedArray and got.device == device
    g = np.asarray(got)
    if case in ("pca", "lda"):  # SVD-based directions are defined up to sign
        g, e = np.abs(g), np.abs(expected)
    else:
        e = expected
    np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("device", DEVICES)
def test_python_types_as_dtypes_are_the_device_defaults(device):
    # As NumPy's and CuPy's namespaces take them; scikit-learn 1.7 calls
    # xp.astype(y, int) while checking labels.
    x = xp.asarray([1.5, -2.0], device=device)
    assert xp.astype(x, int).dtype == xp.int64 and xp.astype(x, int).tolist() == [1, -2]
    assert xp.astype(x, bool).dtype == xp.bool and xp.zeros(2, dtype=float, device=device).dtype == xp.float64
    complex_default = xp.__array_namespace_info__().default_dtypes(device=device)["complex floating"]
    assert xp.full(2, 1.0, dtype=complex, device=device).dtype == complex_default
    assert xp.asarray([1, 2], dtype=float, device=device).dtype == xp.float64
    with pytest.raises(TypeError):
        xp.astype(x, "not a dtype")


@pytest.mark.parametrize("device", DEVICES)
def test_scipy_array_api_functions(device):
    pytest.importorskip("scipy")
    import scipy.fft
    import scipy.signal
    import scipy.special
    import scipy.stats

    xn = RNG.normal(size=(16,))
    x = xp.asarray(xn, device=device)
    if device == "mlx":
        # float64 in, complex128 out: MLX cannot hold it, and says so.
        with pytest.raises(TypeError, match="complex128"):
            scipy.fft.fft(x)
        fx, fxn = scipy.fft.fft(xp.astype(x, xp.float32)), np.fft.fft(xn.astype(np.float32))
    else:
        fx, fxn = scipy.fft.fft(x), np.fft.fft(xn)
    np.testing.assert_allclose(np.asarray(fx), fxn, rtol=1e-5, atol=1e-5)
    cases = [
        (scipy.special.erf(x), __import__("scipy.special").special.erf(xn)),
        (scipy.stats.zscore(x), scipy.stats.zscore(xn)),
        (scipy.stats.moment(x, order=3), scipy.stats.moment(xn, order=3)),
    ]
    if tuple(int(p) for p in scipy.__version__.split(".")[:2]) >= (1, 17):
        # Array API support for these came after SciPy 1.15 (the last for
        # Python 3.10), which converts their input to NumPy; seen in 1.17.
        cases += [
            (scipy.special.log_softmax(x), scipy.special.log_softmax(xn)),
            (scipy.signal.convolve(x, x), np.convolve(xn, xn)),
        ]
    for got, exp in cases:
        assert type(got) is UnifiedArray, type(got)
        np.testing.assert_allclose(np.asarray(got), exp, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("device", DEVICES)
def test_xarray_keeps_the_unified_array(device):
    xr = pytest.importorskip("xarray")
    x = xp.asarray(RNG.normal(size=(3, 4)), device=device)
    da = xr.DataArray(x, dims=("t", "s"))
    assert type(da.data) is UnifiedArray
    out = (da * 2 + 1).mean("t")
    assert type(out.data) is UnifiedArray and out.data.device == device
    np.testing.assert_allclose(out.values, (np.asarray(x) * 2 + 1).mean(axis=0))


@pytest.mark.parametrize("device", DEVICES)
def test_dask_keeps_the_chunk_type(device):
    da = pytest.importorskip("dask.array")
    xn = RNG.normal(size=(8, 8))
    x = xp.asarray(xn, device=device)
    import dask

    d = da.from_array(x, chunks=(4, 4), asarray=False)
    assert type(d._meta) is UnifiedArray
    scheduler = "threads"  # MLX results are evaluated where built: threads work on MLX too
    for expr, expected in (
        ((d * 2 + 1), xn * 2 + 1),
        (d.sum(axis=0), xn.sum(axis=0)),
        (d @ d, xn @ xn),
    ):
        assert type(expr._meta) is UnifiedArray
        with dask.config.set(scheduler=scheduler):
            got = expr.compute()
        assert type(got) is UnifiedArray and got.device == device
        np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-10)


@needs_mlx
def test_numpy_view_functions_give_views_that_stay_in_sync():
    m = xp.zeros((100, 2, 2), device="mlx")
    x = xp.asarray([1.0, 2.0, 3.0, 4.0])
    views = [
        np.reshape(x, (2, 2)), x.reshape(2, 2), np.transpose(x.reshape(2, 2)), np.ravel(x), x.reshape(4),
        np.squeeze(np.expand_dims(x, 0)), np.flip(np.flip(x)), np.flipud(x), np.fliplr(x.reshape(2, 2)),
    ]  # fmt: skip
    for y in views:
        assert type(y) is UnifiedArray and y.is_view and y.buffer is x.buffer
        float((m[:1] + xp.reshape(y, (1, -1))[..., :4].reshape(1, 2, 2))[0, 0, 0])  # the buffer has an MLX copy now
        x[0] = 100.0
        assert np.asarray(y).max() == 100.0  # the host view sees the write ...
        assert float(xp.max(y.to_device("mlx"))) == 100.0  # ... and so does the MLX copy
        x[0] = 1.0
    # What NumPy would not answer with a view is an array of its own.
    for y in (xp.real(x), np.reshape(x, (2, 2), order="F"), np.broadcast_to(x, (2, 4))):
        assert not y.is_view
        before = np.asarray(y).copy()
        x[1] = -7.0
        np.testing.assert_array_equal(np.asarray(y), before)
        x[1] = 2.0


def test_legacy_zero_copy_export_of_a_view_exports_the_view():
    x = xp.asarray(np.arange(6.0).reshape(2, 3))
    v = x[1, 1:]

    class Legacy:  # a consumer that asks for no DLPack version and no copy
        def __dlpack__(self, **kwargs):
            return v.__dlpack__(copy=False)

        def __dlpack_device__(self):
            return (1, 0)

    assert np.from_dlpack(Legacy()).tolist() == [4.0, 5.0]  # the view, not the whole buffer
    strided = xp.reshape(x[:, :2], (4,))  # no single block of memory holds it
    state = x.buffer.state
    with pytest.raises(BufferError, match="copy=True"):
        strided.__dlpack__(copy=False)
    assert x.buffer.state == state  # the refusal marked nothing
    assert np.from_dlpack(strided).tolist() == [0.0, 1.0, 3.0, 4.0]


def test_numpy_transpose_and_swapaxes_check_axes_as_numpy_does():
    x = xp.asarray([1.0, 2.0, 3.0])
    assert np.transpose(x, 0).tolist() == [1.0, 2.0, 3.0]
    m = xp.zeros((2, 3))
    assert np.swapaxes(m, 0, -1).shape == (3, 2)
    with pytest.raises(np.exceptions.AxisError):
        np.swapaxes(m, 0, 5)
    with pytest.raises(np.exceptions.AxisError):
        np.transpose(m, (0, 2))


@pytest.mark.parametrize("device", DEVICES)
def test_python_protocols_numpy_arrays_answer(device):
    # `in`, format(), round() and divmod() as on NumPy arrays: code written
    # for NumPy prints `f"{loss:.4f}"` of a 0-d result, say.
    x = xp.asarray(np.arange(6.0).reshape(2, 3), device=device)
    assert 4.0 in x and 7.0 not in x
    loss = xp.sum(x) / 7
    assert f"{loss:.4f}" == f"{15 / 7:.4f}" and f"{x}" == str(x)
    with pytest.raises(TypeError):
        f"{x:.2f}"
    assert round(xp.asarray(2.5, device=device)) == 2 and type(round(loss)) is int
    assert round(xp.asarray(2.567, device=device), 2) == 2.57
    r = round(x / 4)
    assert (
        type(r) is UnifiedArray
        and r.dtype == x.dtype
        and r.tolist() == np.round(np.arange(6.0).reshape(2, 3) / 4).tolist()
    )
    q, m = divmod(x, 4)
    assert q.tolist() == [[0, 0, 0], [0, 1, 1]] and m.tolist() == [[0, 1, 2], [3, 0, 1]] and q.device == device
    q, m = divmod(7, xp.asarray([2, 3], device=device))
    assert (q.tolist(), m.tolist()) == ([3, 2], [1, 1])


@pytest.mark.parametrize("device", DEVICES)
def test_numpy_in_place_methods_and_attributes(device):
    # ndarray.sort/fill/partition/put write in place, through the buffer;
    # flatten copies; real/imag/itemsize/tobytes read, as on NumPy arrays.
    data = np.array([[3.0, 1.0, 2.0], [9.0, 7.0, 8.0]])
    x = xp.asarray(data, device=device)
    y = xp.asarray(x, copy=True)
    _ = y * 1  # a current device copy
    with xp.track_transfers() as t:
        assert y.sort() is None
    assert t.count == 0  # sorted where y lives (MLX sorts; kind= would send it to the host)
    assert y.tolist() == np.sort(data).tolist()
    assert float(xp.sum(y[:, 0])) == 8.0  # computed where y lives: the sort is there
    y.fill(2.0)
    assert float(xp.sum(y)) == 12.0
    z = xp.asarray(x, copy=True)
    z.partition(1)
    assert z.tolist() == np.sort(data).tolist()
    z.put([0], [100.0])
    assert float(xp.sum(z)) == np.sort(data).sum() - 1.0 + 100.0
    f = x.flatten()
    f[0] = -1.0
    assert not f.is_view and x.tolist() == data.tolist() and f.shape == (6,)
    assert x.tobytes() == data.tobytes() and x.itemsize == 8
    assert x.real.tolist() == data.tolist() and x.imag.tolist() == np.zeros_like(data).tolist()
    c = xp.asarray([1 + 2j], dtype=xp.complex64, device=device)
    assert c.real.dtype == xp.float32 and c.imag.tolist() == [2.0] and c.conjugate().tolist() == [1 - 2j]


RECIPE_CALLS = {
    "nansum": lambda a: np.nansum(a),
    "nansum axis": lambda a: np.nansum(a, axis=0, keepdims=True),
    "nanprod": lambda a: np.nanprod(a, axis=1),
    "nanmax": lambda a: np.nanmax(a, axis=0),
    "nanmin": lambda a: np.nanmin(a),
    "nanmean": lambda a: np.nanmean(a, axis=1),
    "nanvar": lambda a: np.nanvar(a, axis=0),
    "nanstd ddof": lambda a: np.nanstd(a, axis=1, ddof=1, keepdims=True),
    "vstack": lambda a: np.vstack([a, a[0]]),
    "hstack": lambda a: np.hstack([a, a]),
    "dot": lambda a: np.dot(a, a.T),
    "dot vector": lambda a: np.dot(a, a[0]),
    "einsum": lambda a: np.einsum("ij,kj->ik", a, a),
    "add dtype=": lambda a: np.add(a, a, dtype=np.float32),
    "mean positional axis": lambda a: np.mean(a, 0),
    "std ddof": lambda a: np.std(a, axis=0, ddof=1),
}


@needs_mlx
@pytest.mark.parametrize("name", sorted(RECIPE_CALLS))
def test_numpy_calls_dask_and_xarray_make_run_on_mlx(name):
    """``np.nansum`` (xarray's skipna), ``np.add(..., dtype=)`` (dask's
    matmul reduction), ``np.vstack``, ``np.dot``, ``np.einsum`` ... on MLX
    data run on MLX (no move) and give NumPy's answer."""
    host = np.array([[1.0, np.nan, 2.0], [3.0, 4.0, np.nan], [5.0, 6.0, 7.0]])
    if name in ("dot", "dot vector", "einsum", "add dtype=", "mean positional axis", "std ddof"):
        host = np.nan_to_num(host, nan=0.5)
    x = xp.asarray(host, device="mlx")
    with xp.track_transfers() as t:
        out = RECIPE_CALLS[name](x)
    assert t.count == 0, [r.reason for r in t.records]
    assert type(out) is xp.UnifiedArray and out.device == "mlx"
    want = RECIPE_CALLS[name](host)
    assert out.dtype == want.dtype and out.shape == want.shape
    np.testing.assert_allclose(np.asarray(out), want, rtol=1e-6)


@pytest.mark.parametrize("device", DEVICES)
def test_numpy_memory_questions_are_asked_of_the_memory_itself(device):
    """``np.may_share_memory(np.asarray(x), x)`` is what scikit-learn's
    check_array(copy=True) asks before it copies: a conversion on the way
    would answer False and let it write into the caller's array."""
    x = xp.asarray([1.0, 2.0, 3.0], device=device)
    alias = np.asarray(x)
    assert np.may_share_memory(alias, x) and np.shares_memory(alias, x)
    assert not np.may_share_memory(np.ones(3), x)
    assert not np.shares_memory(np.array(x), x)  # a copy is not an alias


def test_numpy_dtype_metadata_does_not_come_in():
    """A dtype's metadata is a dict NumPy code caches things in (scikit-learn
    caches unique labels there); kept, it would go stale after a write."""
    a = np.arange(3)
    a = a.view(np.dtype(a.dtype, metadata={"cached": [0, 1, 2]}))
    for x in (xp.asarray(a), xp.from_dlpack(a)):
        assert x.dtype == np.dtype(np.int64) and x.dtype.metadata is None


@needs_mlx
@pytest.mark.parametrize("name", ["sin", "exp", "abs", "log", "sqrt", "negative", "square"])
def test_mlx_functions_get_the_mlx_copy_with_its_dtype(name):
    """Issue 20: ``mx.sin(u)``, ``mx.exp(u)``, ``mx.abs(u)`` of a float64
    array on MLX gave float32 (MLX took DLPack before ``__mlx_array__``)."""
    import mlx.core as mx

    fn = getattr(mx, name)
    x = xp.asarray([0.5, 1.0 + 2**-40, 2.0], device="mlx")
    x.buffer._copies.pop(xp.Device.parse("cpu"), None)  # no host copy: the MLX copy is the data
    with xp.track_transfers() as t:
        got = fn(x)
    assert t.count == 0
    assert got.dtype == mx.float64
    assert np.array_equal(np.asarray(got), np.asarray(fn(x.__mlx_array__())))


@needs_mlx
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_mlx_functions_never_narrow_a_dtype_silently(dtype):
    """Where MLX's binding cannot take the MLX copy (``mx.array(u)``, the
    functions of two arguments, for float64), it fails; it never hands back
    another dtype.  ``u.__mlx_array__()`` always works (docs/interop.md)."""
    import mlx.core as mx

    x = xp.asarray(np.array([1.0, 2.0, 3.0]).astype(dtype), device="mlx")
    floating = dtype != np.int64
    want = mx.array(x.__mlx_array__()).dtype
    assert want == {np.float32: mx.float32, np.float64: mx.float64, np.int64: mx.int64}[dtype]
    for call in (mx.array, lambda a: mx.add(a, a), lambda a: mx.maximum(a, a), mx.sin):
        try:
            got = call(x)
        except (RuntimeError, TypeError):
            continue
        assert got.dtype == (mx.float32 if call is mx.sin and dtype == np.int64 else want)
    for only in (mx.sum, mx.mean, mx.transpose):
        with pytest.raises(TypeError):
            only(x)  # MLX binds these to mx.array only
        assert only(x.__mlx_array__()).dtype == (want if only is not mx.mean or floating else mx.float32)


@pytest.mark.parametrize("device", DEVICES)
def test_numpy_functions_answer_where_the_device_library_refuses(device):
    """NumPy is the reference for its own functions: np.median over an empty
    axis is NaN (with NumPy's warning) on every device, though CuPy's
    partition refuses it; NumPy's own refusal stays NumPy's error."""
    a = np.zeros((3, 0))
    x = xp.asarray(a, device=device)
    with pytest.warns(RuntimeWarning):
        expected = np.median(a, axis=-1)
    with pytest.warns(RuntimeWarning):
        got = np.median(x, axis=-1)
    assert type(got) is xp.UnifiedArray and got.device == device
    np.testing.assert_array_equal(np.asarray(got), expected)
    with pytest.raises(np.exceptions.AxisError):
        np.median(x, axis=2)


# -- NumPy's calls on host-current arrays: the host fast path ---------------------------------

HOST_CALLS = {
    "sin": lambda a, b: np.sin(a),
    "add scalar": lambda a, b: np.add(a, 2),
    "multiply": lambda a, b: np.multiply(a, b),
    "floor_divide": lambda a, b: np.floor_divide(a, b),
    "dot": lambda a, b: np.dot(a, b),
    "clip": lambda a, b: np.clip(a, 0.25, 0.75),
    "sum axis": lambda a, b: np.sum(a, axis=-1),
    "mean keepdims": lambda a, b: np.mean(a, axis=0, keepdims=True),
    "argmax": lambda a, b: np.argmax(a),
    "sort": lambda a, b: np.sort(a),
    "cumsum": lambda a, b: np.cumsum(a),
    "where": lambda a, b: np.where(a > 0.5, a, b),
    "outer": lambda a, b: np.outer(a, b),
    "round": lambda a, b: np.round(a, 2),
    "isclose": lambda a, b: np.isclose(a, b),
    "linalg.norm": lambda a, b: np.linalg.norm(a),
    "diff": lambda a, b: np.diff(a),
    "modf": lambda a, b: np.modf(a),
    "bitwise_and": lambda a, b: np.bitwise_and(a, b),  # no loop for floats: NumPy's TypeError
}


def _numpy_outcome(fn):
    """What a NumPy call gives: each result's dtype, shape and bytes (a
    tuple for several), or the error's class."""
    try:
        with np.errstate(all="ignore"):
            res = fn()
    except MemoryError:
        raise
    except Exception as exc:  # the error's class is part of the answer
        return type(exc)
    items = res if isinstance(res, tuple) else (res,)
    return tuple((np.asarray(r).dtype, np.shape(r), np.asarray(r).tobytes()) for r in items)


@settings(max_examples=150, deadline=None)
@given(
    data=st.data(),
    dtype=st.sampled_from(["float64", "float32", "int64", "int8", "bool", "complex128"]),
    name=st.sampled_from(sorted(HOST_CALLS)),
    form=st.sampled_from(["whole", "slice", "0-d"]),
)
def test_numpy_calls_on_host_arrays_match_numpy_and_the_general_path(data, dtype, name, form):
    """A NumPy function or ufunc called with UnifiedArrays current on the
    host (whole, views, 0-d) takes the host fast path, which gives what
    NumPy gives for the same data as ndarrays and what the general path
    gives (values, dtypes, shapes, error classes); its results never share
    memory with the arrays."""
    shape = () if form == "0-d" else (data.draw(st.integers(2, 5)),)
    na = data.draw(hnp.arrays(dtype, shape))
    nb = data.draw(hnp.arrays(dtype, shape))
    a, b = xp.asarray(na), xp.asarray(nb)
    if form == "slice":
        a, b, na, nb = a[::-1], b[::-1], na[::-1], nb[::-1]
    fn = HOST_CALLS[name]
    expected = _numpy_outcome(lambda: fn(na, nb))
    fast = _numpy_outcome(lambda: fn(a, b))
    with mock.patch.object(_interop, "_host_natives", lambda *args, **kwargs: None):
        general = _numpy_outcome(lambda: fn(a, b))
    assert fast == general
    if isinstance(fast, type) or isinstance(expected, type):
        assert fast == expected  # NumPy's own error, raised by NumPy on the same data
    else:
        assert len(fast) == len(expected)
        for got, want in zip(fast, expected, strict=True):
            assert got[:2] == want[:2]
            np.testing.assert_array_equal(np.frombuffer(got[2], want[0]), np.frombuffer(want[2], want[0]))
    before = (np.asarray(a).tobytes(), np.asarray(b).tobytes())
    with np.errstate(all="ignore"), contextlib.suppress(Exception):
        res = fn(a, b)
        for r in res if isinstance(res, tuple) else (res,):
            if type(r) is UnifiedArray:
                r[...] = 0  # a result of its own: writing it reaches neither argument
    assert (np.asarray(a).tobytes(), np.asarray(b).tobytes()) == before


def test_numpy_calls_on_host_arrays_take_the_fast_path_alone():
    # Where the fast path applies, the general path (which asks where every
    # argument lives and converts each) is not taken at all.
    a, b = xp.asarray([1.0, 2.0, 3.0]), xp.asarray([0.5, 0.5, 0.5])
    with mock.patch.object(_interop, "_intake_ndarrays", side_effect=AssertionError("general path")):
        assert np.sin(a).tolist() == np.sin([1.0, 2.0, 3.0]).tolist()
        assert float(np.dot(a, b)) == 3.0
        assert np.clip(a, 1.5, 2.5).tolist() == [1.5, 2.0, 2.5]

        def sneaky(x):
            x[0] = 100.0

        # A function that writes into an argument it is not known to write
        # gets read-only data on the fast path too, and fails loudly.
        with pytest.raises(ValueError, match="read-only"):
            a.__array_function__(sneaky, (UnifiedArray,), (a,), {})
    assert a.tolist() == [1.0, 2.0, 3.0]


# -- plans: one per call signature ------------------------------------------------------------


def _one_array_forms() -> list[str]:
    """Every public NumPy function whose row is a standard function or a
    composition, and every ufunc of one or two inputs: the forms a plan
    serves (``np.f(x)``, ``np.f(x, y)``, ``np.f(x, 2.0)``)."""
    from unifiedarray._routes import ROUTES, numpy_public

    return sorted(
        name
        for name, fn in numpy_public().items()
        if "." not in name
        and ROUTES.get(name) is not None
        and ROUTES[name].kind in ("standard", "compose")
        and (not isinstance(fn, np.ufunc) or fn.nin in (1, 2))
    )


def _outcome(fn):
    """What a call gives: its answer (values as bytes: NaN is NaN), its
    exception class, its warnings' classes, and the moves it made."""
    import warnings

    with xp.track_transfers() as moves, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            answer = _answer(fn())  # read back too: a lazy device may raise there
        except Exception as exc:  # the class is the answer
            return ("raises", type(exc)), moves.count, [w.category for w in caught]
    return answer, moves.count, [w.category for w in caught]


def _answer(res) -> tuple:
    if isinstance(res, (tuple, list)):
        return (type(res), *[_answer(r) for r in res])
    if type(res) is UnifiedArray:
        return ("array", res.device, res.dtype, res.shape, np.asarray(res).tobytes())
    return ("value", type(res), repr(res))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float16", "float32", "complex64", "int8", "uint8", "int64", "bool"])
@pytest.mark.parametrize("shape", [(), (2, 3)])
def test_a_planned_numpy_call_gives_what_the_general_path_gives(device, dtype, shape, monkeypatch):
    """``np.f(x)`` (and a ufunc's ``np.f(x, y)``, ``np.f(x, 2)``) off the
    host runs its signature's plan once one is made: the same value,
    dtype, device, exception class and moves as numpy_call's steps give
    with no plan, for every function a plan can serve, on its first call
    (the plan made) and later ones (the plan looked up)."""
    forms = _one_array_forms()

    def arrays():  # new ones for each call: a call's moves depend on where its arrays are current
        size = int(np.prod(shape))
        x = np.array([3, 0, -2, 1, 5, -4])[:size].reshape(shape).astype(dtype)
        y = np.array([1, 2, 0, -1, 1, 3])[:size].reshape(shape).astype(dtype)
        return xp.asarray(x, device=device), xp.asarray(y, device=device)

    try:
        arrays()
    except TypeError as exc:
        pytest.skip(f"{device} holds no {dtype}: {exc}")

    def calls(name):
        fn = getattr(np, name)
        if isinstance(fn, np.ufunc) and fn.nin == 2:
            return [lambda: fn(*arrays()), lambda: fn(arrays()[0], 2)]
        return [lambda: fn(arrays()[0])]

    planned = {}
    _interop._UFUNC_PLANS.clear()
    _interop._FUNCTION_PLANS.clear()
    for name in forms:
        for i, c in enumerate(calls(name)):
            planned[name, i] = [_outcome(c), _outcome(c)]  # the plan made, then looked up
    planned_count = [sum(p is not None for p in (*_interop._UFUNC_PLANS.values(), *_interop._FUNCTION_PLANS.values()))]
    _interop._UFUNC_PLANS.clear()
    _interop._FUNCTION_PLANS.clear()
    # No plan made, none kept: every call takes numpy_call's steps.
    monkeypatch.setattr(_interop, "_plan_ufunc", lambda key, ufunc, inputs: None)
    monkeypatch.setattr(_interop, "_plan_function", lambda key, func, x: None)
    made = []
    monkeypatch.setattr(_interop, "_remember", lambda plans, key, plan: made.append(key))
    for (name, i), (first, again) in planned.items():
        general = _outcome(calls(name)[i])
        assert first == general, f"np.{name} form {i}, first call"
        assert again == general, f"np.{name} form {i}, planned call"
    assert not made and not _interop._UFUNC_PLANS and not _interop._FUNCTION_PLANS  # the general path ran
    from unifiedarray.backends import backend_for

    if device != "cpu" and not backend_for(xp.Device.parse(device)).numpy_compatible:
        assert planned_count[0], "no form was planned"  # (CuPy runs NumPy's own API: no plans there)
