"""Memory pools: reuse, statistics, limits, trimming, out of memory, use
after release, and a soak."""

from __future__ import annotations

import gc
import resource

import numpy as np
import pytest

import unifiedarray as ua
from unifiedarray import MemoryPool, OutOfMemoryError
from unifiedarray._pool import size_class


def test_size_classes():
    assert size_class(0) == 4096 and size_class(4096) == 4096
    assert size_class(4097) == 8192
    assert size_class(2 << 30) == 2 << 30
    assert size_class((2 << 30) + 1) == (2 << 30) + (2 << 20)


def test_release_then_acquire_reuses_the_memory():
    pool = MemoryPool()
    a = pool.acquire((1000,), dtype=np.float32)
    a.host[:] = 7.0
    ptr = a.to_numpy().ctypes.data
    pool.release(a)
    b = pool.acquire((1000,), dtype=np.float32)
    assert b.to_numpy().ctypes.data == ptr  # same block ...
    assert not b.to_numpy().any()  # ... never the previous owner's data
    s = pool.stats()
    assert (s["acquires"], s["hits"], s["misses"]) == (2, 1, 1)
    assert s["hit_rate"] == 0.5


def test_a_smaller_request_fits_a_larger_class_block():
    pool = MemoryPool()
    pool.release(pool.acquire((2000,), dtype=np.float32))  # 8000 B -> 8 KiB block
    b = pool.acquire((1500,), dtype=np.float32)  # 6000 B -> the same class
    assert pool.stats()["hits"] == 1
    assert b.shape == (1500,)
    assert pool.stats()["fragmentation"] == pytest.approx(1 - 6000 / 8192)


def test_a_hit_of_another_shape_or_dtype_gets_its_own_shape_and_dtype():
    pool = MemoryPool()
    pool.release(pool.acquire((1000,), dtype=np.float32))
    for shape, dtype in [((1000,), np.int32), ((10, 100), np.int32), ((10, 100), np.float32), ((500,), np.float64)]:
        b = pool.acquire(shape, dtype=dtype)
        out = b.to_numpy()
        assert (out.shape, out.dtype) == (shape, np.dtype(dtype)) and not out.any()
        b.fill(3)
        del out  # else it holds the block (see below)
        pool.release(b)
    assert pool.stats()["hits"] == 4


def test_use_after_release_raises_and_kept_handles_keep_their_block():
    pool = MemoryPool()
    a = pool.acquire((16,), dtype=np.int64)
    h = a.host
    pool.release(a)
    with pytest.raises(RuntimeError, match="released"):
        a.to_numpy()
    with pytest.raises(RuntimeError, match="released"):
        a.fill(1)
    b = pool.acquire((16,), dtype=np.int64)
    b.fill(2)
    h[0] = 1  # an old handle keeps its block: it never writes the next owner's memory
    assert not np.shares_memory(h, b.to_numpy()) and b.to_numpy().tolist() == [2] * 16
    with pytest.raises(RuntimeError, match="already released"):
        pool.release(a)


def test_release_checks_its_argument():
    pool = MemoryPool()
    with pytest.raises(TypeError):
        pool.release(np.zeros(3))
    with pytest.raises(ValueError):
        pool.release(ua.UnifiedBuffer((3,)))


def test_limit_trim_and_out_of_memory():
    pool = MemoryPool()
    pool.set_limit(64 * 1024)
    held = [pool.acquire((4096,), dtype=np.float32) for _ in range(4)]  # 4 x 16 KiB
    with pytest.raises(OutOfMemoryError, match=r"cpu: asked for 16384 bytes.*limit=65536") as info:
        pool.acquire((4096,), dtype=np.float32)
    assert isinstance(info.value, MemoryError)
    pool.release(held.pop())
    # The freed block is reused, and a different class fits after trimming.
    held.append(pool.acquire((4096,), dtype=np.float32))
    assert pool.stats()["hits"] == 1
    pool.release(held.pop(0))
    small = pool.acquire((100,), dtype=np.float32)  # needs a 4 KiB block: the pooled 16 KiB is trimmed
    assert small.nbytes == 400
    assert pool.stats()["bytes_pooled"] == 0


def test_out_of_memory_collects_garbage_and_retries():
    pool = MemoryPool()
    pool.set_limit(32 * 1024)
    held = pool.acquire((4096,), dtype=np.float32)
    pool.acquire((4096,), dtype=np.float32)  # dropped at once, never released
    # The limit is reached; collecting the dropped buffer frees its bytes.
    third = pool.acquire((4096,), dtype=np.float32)
    assert pool.stats()["bytes_in_use"] == 2 * 16384
    with pytest.raises(OutOfMemoryError):
        pool.acquire((4096,), dtype=np.float32)  # two live buffers: truly full
    del held, third


def test_out_of_memory_retry_counts_buffers_that_only_garbage_collection_frees():
    gc.disable()  # so that only the pool's own collection frees the cycle
    try:
        pool = MemoryPool()
        pool.set_limit(8192)
        a = pool.acquire((1024,), dtype=np.float64)  # the whole limit
        cycle = [a, None]
        cycle[1] = cycle
        del a, cycle  # garbage, but only a collection can free it
        b = pool.acquire((1024,), dtype=np.float64)
        assert pool.stats()["bytes_in_use"] == 8192 and b.shape == (1024,)
    finally:
        gc.enable()


def test_peak_counts_only_what_was_in_use_at_once():
    pool = MemoryPool()
    pool.release(pool.acquire((1000,), dtype=np.float32))  # a free 4 KiB block
    b = pool.acquire((2000,), dtype=np.float32)  # an 8 KiB block
    del b  # dropped without release
    gc.collect()
    c = pool.acquire((1000,), dtype=np.float32)  # a hit
    s = pool.stats()
    assert (s["bytes_in_use"], s["peak_bytes"]) == (4096, 8192)
    del c


def test_dropped_buffers_leave_the_accounting_but_their_blocks_are_not_reused():
    pool = MemoryPool()
    a = pool.acquire((1000,), dtype=np.float32)
    view = a.host
    del a
    gc.collect()
    assert pool.stats()["bytes_in_use"] == 0
    b = pool.acquire((1000,), dtype=np.float32)
    assert b.to_numpy().ctypes.data != view.ctypes.data  # the old view's memory is not handed on


@pytest.mark.parametrize("take_view", ["read", "host", "to_numpy", "host_slice", "native"])
def test_a_view_kept_after_release_holds_its_block_and_never_reads_the_next_owner(take_view):
    pool = MemoryPool()
    a = pool.acquire((256,), dtype=np.float64)
    a.fill(1.0)
    view = {
        "read": lambda: a.read("cpu"),
        "host": lambda: a.host,
        "to_numpy": lambda: a.to_numpy(),
        "host_slice": lambda: a.host[10:20][::2],  # a view of a view
        # The very array the pool lent (which it lends again on a hit of the
        # same shape and dtype), kept by code that reached the buffer's copy.
        "native": lambda: a._copies["cpu"],
    }[take_view]()
    pool.release(a)
    b = pool.acquire((256,), dtype=np.float64)
    b.fill(9.0)
    assert (view == 1.0).all()  # its own data, whoever owns the pool's memory now
    s = pool.stats()
    assert (s["hits"], s["misses"], s["bytes_held"]) == (0, 2, 4096)
    del view
    pool.release(b)
    c, d = pool.acquire((256,), dtype=np.float64), pool.acquire((256,), dtype=np.float64)
    s = pool.stats()
    assert (s["hits"], s["misses"], s["bytes_held"]) == (2, 2, 0)  # d reclaimed a's block
    assert not c.to_numpy().any() and not d.to_numpy().any()


def test_held_blocks_count_against_the_limit():
    pool = MemoryPool()
    pool.set_limit(8192)
    a = pool.acquire((512,), dtype=np.float64)  # 4 KiB
    keep = a.read("cpu")
    pool.release(a)
    b = pool.acquire((512,), dtype=np.float64)  # the second 4 KiB: at the limit
    with pytest.raises(OutOfMemoryError):
        pool.acquire((512,), dtype=np.float64)
    del keep
    pool.release(b)
    pool.acquire((512,), dtype=np.float64)
    pool.acquire((512,), dtype=np.float64)  # the held block, reclaimed
    assert pool.stats()["misses"] == 2


def test_fraction_limit_and_trim_threshold():
    pool = MemoryPool(trim_threshold=16 * 1024)
    for _ in range(4):
        pool.release(pool.acquire((16 * 1024,), dtype=np.uint8))
    bufs = [pool.acquire((16 * 1024,), dtype=np.uint8) for _ in range(3)]
    for b in bufs:
        pool.release(b)
    assert pool.stats()["bytes_pooled"] <= 16 * 1024
    assert pool.trim() == 16 * 1024
    pool.set_limit(fraction=0.5)
    with pytest.raises(ValueError):
        pool.set_limit(fraction=2.0)


def test_per_size_class_statistics():
    pool = MemoryPool()
    a = pool.acquire((10,), dtype=np.float64)
    b = pool.acquire((10_000,), dtype=np.float64)
    pool.release(b)
    classes = pool.stats()["spaces"]["cpu"]["size_classes"]
    assert classes[4096] == {"in_use": 1, "free": 0}
    assert classes[131072] == {"in_use": 0, "free": 1}
    assert pool.stats()["peak_bytes"] == 4096 + 131072
    del a


def test_pooled_buffers_sync_like_any_other():
    from .conftest import HAS_MLX

    if not HAS_MLX:
        pytest.skip("needs MLX")
    pool = MemoryPool()
    a = pool.acquire((4,), dtype=np.float64)
    a.host[:] = [1, 2, 3, 4]
    a.mlx[0] = 10.0
    assert a.to_numpy().tolist() == [10.0, 2.0, 3.0, 4.0]
    pool.release(a)


def test_default_pool_is_shared():
    assert ua.get_memory_pool() is ua.get_memory_pool()


def test_soak_100k_cycles_with_flat_memory():
    pool = MemoryPool()
    sizes = [(64,), (1000,), (4096,), (10,)]
    for i in range(1000):  # warm up every class
        pool.release(pool.acquire(sizes[i % 4], dtype=np.float32))
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for i in range(100_000):
        buf = pool.acquire(sizes[i % 4], dtype=np.float32)
        pool.release(buf)
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    s = pool.stats()
    assert s["misses"] == 2  # 64, 1000 and 10 float32 share the 4 KiB class; 4096 takes 16 KiB
    assert s["bytes_in_use"] == 0
    assert rss1 - rss0 < 20_000  # KiB: flat, not growing with cycles


def test_trim_and_stats_reclaim_held_blocks_whose_views_are_gone():
    pool = MemoryPool()
    b = pool.acquire((1000,), dtype=np.float64)  # an 8 KiB block
    b.fill(1.0)
    view = b.to_numpy()
    pool.release(b)
    assert pool.stats()["bytes_held"] == 8192
    del view
    assert pool.stats()["bytes_held"] == 0 and pool.stats()["bytes_pooled"] == 8192
    assert pool.trim() == 8192


@pytest.mark.parametrize("device", [None, "cpu", ua.Device.parse("cpu")])
def test_a_host_hit_checks_its_arguments_and_counts_like_any_acquire(device):
    # The host hit has its own fast path: the same checks and accounting as
    # the general one, whichever way the host is named.
    pool = ua.MemoryPool()
    kw = {} if device is None else {"device": device}
    pool.release(pool.acquire((1024,), dtype="float32", **kw))
    with pytest.raises(TypeError):
        pool.acquire((1024.0,), dtype="float32", **kw)  # hashes and compares equal to (1024,)
    with pytest.raises(ValueError):
        pool.acquire((-1024,), dtype="float32", **kw)
    with pytest.raises(TypeError):
        pool.acquire((1024,), dtype="not a dtype", **kw)
    buf = pool.acquire((32, 32), dtype=np.int32, **kw)
    assert (buf.shape, buf.dtype, buf.placement) == ((32, 32), np.dtype(np.int32), "cpu")
    assert not buf.valid_devices  # uninitialised until written
    s = pool.stats()
    assert (s["acquires"], s["hits"], s["misses"], s["bytes_in_use"]) == (2, 1, 1, 4096)
    buf.host[:] = 7
    pool.release(buf)
    again = pool.acquire((1024,), dtype=np.float32, **kw)
    assert pool.stats()["hits"] == 2 and pool.stats()["bytes_in_use"] == 4096
    assert not again.valid_devices and np.all(again.to_numpy() == 0)  # never the old owner's data
