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
    c[0] = 9.0  # exported pointer: counted as a device write
    assert x.tolist()[0] == 9.0


def test_numpy_functions_run_on_cuda():
    x = xp.asarray(np.arange(4.0), device="cuda:0")
    y = np.sin(x)
    assert y.device == "cuda:0"
    np.testing.assert_allclose(np.asarray(y), np.sin(np.arange(4.0)))


def test_pool_on_cuda_reuses_blocks():
    pool = xp.MemoryPool()
    a = pool.acquire((1000,), dtype=np.float32, device="cuda:0")
    ptr = int(a.read("cuda:0").data.ptr)
    pool.release(a)
    b = pool.acquire((1000,), dtype=np.float32, device="cuda:0")
    assert int(b.read("cuda:0").data.ptr) == ptr
    assert pool.stats()["hits"] == 1
    assert not b.to_numpy().any()


def test_memory_info_is_real():
    acc = xp.get_accelerator("cuda:0")
    free, total = acc.get_memory_info()
    assert 0 < free <= total
