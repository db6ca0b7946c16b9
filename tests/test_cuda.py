"""CUDA: the same promises on a real GPU.  Marked ``cuda``: skipped with the
reason where no usable GPU exists (CuPy installed without a driver included).
"""

from __future__ import annotations

import numpy as np
import pytest

import unifiedarray as xp
from unifiedarray import BufferState, UnifiedBuffer

pytestmark = pytest.mark.cuda


def moves(fn):
    with xp.track_transfers() as t:
        out = fn()
    return out, t.count


def test_device_is_a_cupy_array_and_syncs_once():
    import cupy

    buf = UnifiedBuffer((1000,), dtype=np.float64)
    buf.host[:] = np.arange(1000.0)
    d, n = moves(lambda: buf.device)
    assert isinstance(d, cupy.ndarray) and n == 1
    assert buf.state is BufferState.DEVICE_DIRTY  # a writable device handle counts as a write
    d[0] = -1.0
    host, n = moves(buf.to_numpy)
    assert n == 1 and host[0] == -1.0
    _, n = moves(buf.to_numpy)
    assert n == 0


def test_read_then_host_write_then_device_read_is_never_stale():
    buf = UnifiedBuffer((4,), dtype=np.float32, device="cuda:0")
    buf.fill(1.0)
    buf.read("cpu")
    buf.host[1] = 5.0
    assert buf.read("cuda:0").get().tolist() == [1.0, 5.0, 1.0, 1.0]


def test_pinned_host_memory_is_page_locked():
    buf = UnifiedBuffer((1 << 20,), dtype=np.float32, pinned=True)
    buf.fill(0.0)
    assert buf.is_pinned


def test_non_blocking_sync_waits_before_the_next_access():
    buf = UnifiedBuffer((1 << 22,), dtype=np.float32, pinned=True, device="cuda:0")
    buf.host[:] = 3.0
    buf.sync_to_device(blocking=False)
    h = buf.host  # a host write while the copy may be in flight waits first
    h[:] = 4.0
    assert float(buf.read("cuda:0")[0].get()) == 4.0
    buf.mark_device_dirty()
    buf.sync_to_host(blocking=False)
    assert buf.to_numpy()[0] == 4.0


def test_large_pageable_upload_goes_through_staging_intact():
    data = np.random.default_rng(0).random(5_000_000)  # 40 MB, pageable
    buf = UnifiedBuffer(data.shape, dtype=np.float64, device="cuda:0")
    buf.copy_from(data)
    np.testing.assert_array_equal(buf.read("cuda:0").get(), data)


def test_namespace_on_cuda_matches_host():
    a = np.random.default_rng(1).normal(size=(64, 64))
    x = xp.asarray(a, device="cuda:0")
    y = xp.linalg.inv(x) @ x
    assert y.device == "cuda:0"
    np.testing.assert_allclose(np.asarray(y), np.eye(64), atol=1e-8)
    assert xp.sum(x).dtype == xp.float64


def test_cuda_array_interface_and_cupy_asarray_take_the_device_copy():
    import cupy

    x = xp.asarray(np.arange(4.0), device="cuda:0")
    cai = x.__cuda_array_interface__
    assert cai["version"] >= 3 and cai["shape"] == (4,)
    c, n = moves(lambda: cupy.asarray(x))
    assert n == 0 and int(c.data.ptr) == cai["data"][0]
    assert cai["data"][1] is True  # the interface is a read-only export (a probe is not a write)
    w = cupy.asarray(x.__cupy_get_ndarray__())  # the writable export: counted as a device write
    w[0] = 9.0
    assert x.tolist()[0] == 9.0


def test_numpy_functions_run_on_cuda():
    x = xp.asarray(np.arange(4.0), device="cuda:0")
    y = np.sin(x)
    assert y.device == "cuda:0"
    np.testing.assert_allclose(np.asarray(y), np.sin(np.arange(4.0)))


def _gpu_copy(buf, dev):
    """The buffer's own copy on ``dev``, made current (``read`` gives a copy of it)."""
    buf.sync_to_device(dev)
    return buf.allocated(xp.Device.parse(dev))


def test_pool_on_cuda_reuses_blocks_and_never_shows_the_last_owners_data():
    pool = xp.MemoryPool()
    a = pool.acquire((1000,), dtype=np.float32, device="cuda:0")
    # The copy itself (read gives a copy of it): the pool's block.
    ptr = int(_gpu_copy(a, "cuda:0").data.ptr)
    a.fill(7.0)  # on the device: a is placed there
    pool.release(a)
    b = pool.acquire((1000,), dtype=np.float32, device="cuda:0")
    assert int(_gpu_copy(b, "cuda:0").data.ptr) == ptr
    assert pool.stats()["hits"] == 1
    assert not b.read("cuda:0").get().any()  # the device block, not only a host copy
    assert not b.to_numpy().any()


def test_a_blocking_upload_from_pinned_memory_is_complete_when_it_returns():
    # From pinned memory CuPy's set() is asynchronous; a host write right
    # after a blocking read must not reach the device copy already made.
    buf = UnifiedBuffer((1 << 24,), dtype=np.float32, pinned=True)  # 64 MB
    buf.host[:] = 1.0
    assert buf.is_pinned  # the host copy exists once written
    d = buf.read("cuda:0")
    buf.host[:] = 2.0
    assert bool((d == 1.0).all())
    assert float(buf.read("cuda:0")[-1].get()) == 2.0  # and the new data moves on the next read


def test_dlpack_copy_export_on_cuda():
    import cupy

    x = xp.asarray(np.arange(4.0), device="cuda:0")
    capsule = x.__dlpack__(copy=True, max_version=(1, 0))
    assert type(capsule).__name__ == "PyCapsule"  # CuPy itself refuses copy=True on one device
    c = cupy.from_dlpack(x)
    assert c.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_dtypes_cupy_cannot_hold_are_refused_with_a_clear_error():
    with pytest.raises(TypeError, match="cupy"):
        UnifiedBuffer((3,), dtype=np.dtype(">f8"), device="cuda:0")


def test_numpy_keywords_cupy_lacks_run_on_the_host():
    x = xp.asarray(np.arange(4.0), device="cuda:0")
    with xp.track_transfers() as t:
        y = np.add.reduce(x, initial=10.0)  # CuPy's reduce has no initial=
    assert float(y) == 16.0 and t.count >= 1 and y.device == "cuda:0"


def test_memory_info_is_real():
    acc = xp.get_accelerator("cuda:0")
    free, total = acc.get_memory_info()
    assert 0 < free <= total
