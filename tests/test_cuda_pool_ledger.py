"""The pool, ledger and transfer-guard behaviours of ``test_pool.py`` and
``test_transfers.py``, on each CUDA GPU (``cuda:0`` and ``cuda:1``): the
simulated runtime in CI, real GPUs where present.  Every step is also
checked for ordering and context hazards by the simulation's fixture.
"""

from __future__ import annotations

import gc

import numpy as np
import pytest

import unifiedarray as ua
from unifiedarray import MemoryPool, OutOfMemoryError, UnifiedBuffer

from . import conftest

pytestmark = pytest.mark.cuda

GPUS = [s for s in conftest.MEMORY_SPACES if s.startswith("cuda")] or ["cuda:0"]


def _gpu(dev: str):
    import cupy

    return cupy.cuda.Device(int(dev.split(":")[1]))


def _host(native, dev: str) -> np.ndarray:
    with _gpu(dev):
        return native.get()


# -- the pool ------------------------------------------------------------------------------------
@pytest.mark.parametrize("dev", GPUS)
def test_release_then_acquire_reuses_the_block_and_never_shows_the_last_owners_data(dev):
    pool = MemoryPool()
    a = pool.acquire((1000,), dtype=np.float32, device=dev)
    a.sync_to_device(dev)  # the copy itself (read gives a copy of it): the pool's block
    ptr = int(a.allocated(ua.Device.parse(dev)).data.ptr)
    a.fill(7.0)
    pool.release(a)
    b = pool.acquire((1000,), dtype=np.float32, device=dev)
    b.sync_to_device(dev)
    d = b.allocated(ua.Device.parse(dev))
    assert int(d.data.ptr) == ptr and pool.stats()["hits"] == 1
    assert not _host(d, dev).any()


@pytest.mark.parametrize("dev", GPUS)
def test_limit_trim_and_out_of_memory_on_a_gpu(dev):
    pool = MemoryPool()
    pool.set_limit(64 * 1024, device=dev)
    held = [pool.acquire((4096,), dtype=np.float32, device=dev) for _ in range(4)]  # 4 x 16 KiB
    with pytest.raises(OutOfMemoryError, match=rf"{dev}: asked for 16384 bytes.*limit=65536"):
        pool.acquire((4096,), dtype=np.float32, device=dev)
    pool.release(held.pop())
    held.append(pool.acquire((4096,), dtype=np.float32, device=dev))
    assert pool.stats()["hits"] == 1
    pool.release(held.pop(0))
    small = pool.acquire((100,), dtype=np.float32, device=dev)  # the pooled 16 KiB block is trimmed
    assert small.nbytes == 400 and pool.stats(dev)["bytes_pooled"] == 0


@pytest.mark.skipif(not conftest.CUDA_SIMULATED, reason="injects out-of-memory in the simulated runtime")
@pytest.mark.parametrize("dev", GPUS)
def test_out_of_memory_from_cuda_frees_the_pools_blocks_and_retries(dev):
    from . import cudasim

    pool = MemoryPool()
    a = pool.acquire((1 << 16,), dtype=np.float32, device=dev)
    pool.release(a)  # pooled
    # The next new device block fails three times: CuPy's own retries (after
    # freeing its cache, then collecting garbage) fail too, so the pool sees it.
    cudasim._sim().inject_oom(device=int(dev[-1]), count=3)
    b = pool.acquire((1 << 17,), dtype=np.float32, device=dev)  # another class: a new block
    assert pool.stats(dev)["bytes_pooled"] == 0  # the pooled block was freed before the retry
    b.fill(1.0)
    assert _host(b.read(dev), dev)[0] == 1.0


@pytest.mark.parametrize("dev", GPUS)
def test_a_device_view_kept_after_release_holds_its_block(dev):
    pool = MemoryPool()
    a = pool.acquire((256,), dtype=np.float64, device=dev)
    a.fill(1.0)
    view = a.device  # the pool's block itself, lent (read gives a copy of it)
    pool.release(a)
    b = pool.acquire((256,), dtype=np.float64, device=dev)
    b.fill(9.0)
    assert (_host(view, dev) == 1.0).all()  # its own data, whoever owns the pool's memory now
    s = pool.stats()
    assert (s["hits"], s["misses"], s["bytes_held"]) == (0, 2, 4096)
    del view
    gc.collect()
    pool.release(b)
    c = pool.acquire((256,), dtype=np.float64, device=dev)
    d = pool.acquire((256,), dtype=np.float64, device=dev)
    assert pool.stats()["bytes_held"] == 0  # a's block reclaimed
    assert not c.to_numpy().any() and not d.to_numpy().any()


# -- the ledger ----------------------------------------------------------------------------------
@pytest.mark.parametrize("dev", GPUS)
def test_ledger_counts_a_gpu_workload_at_the_minimum(dev):
    # write on the host (0), read on the GPU (1 up), again (0), write through
    # the GPU's handle (0), read on the host (1 down), fill (0), GPU (1 up).
    with ua.track_transfers() as t:
        buf = UnifiedBuffer((100,), dtype=np.float64, device=dev)
        buf.host[:] = 1.0
        buf.read(dev)
        buf.read(dev)
        handle = buf.device
        with _gpu(dev):
            handle[0] = 2.0
        assert buf.to_numpy()[0] == 2.0
        buf.fill(3.0)
        buf.read(dev)
    assert t.count == 3 and t.nbytes == 3 * 800
    assert [r.direction for r in t.records] == ["host_to_device", "device_to_host", "host_to_device"]


def test_a_move_between_gpus_goes_through_the_host_and_is_counted_twice():
    if len(GPUS) < 2:
        pytest.skip("needs two CUDA GPUs")
    x = ua.asarray(np.arange(8.0), device="cuda:0")
    with ua.track_transfers() as t:
        y = x.to_device("cuda:1")
    assert y.device == "cuda:1" and y.tolist() == list(np.arange(8.0))
    assert [(r.source, r.target) for r in t.records[:2]] == [("cuda:0", "cpu"), ("cpu", "cuda:1")]


@pytest.mark.parametrize("dev", GPUS)
def test_mixed_devices_move_the_smaller_operand_to_the_gpu(dev):
    big = ua.asarray(np.ones((100, 10)), device=dev)
    small = ua.asarray(np.ones(10))
    with ua.track_transfers() as t:
        out = small * big
    assert out.device == dev
    assert t.count == 1 and t.records[0].nbytes == 80


# -- the guard -----------------------------------------------------------------------------------
@pytest.mark.parametrize("dev", GPUS)
def test_disallow_raises_on_implicit_moves_to_a_gpu_and_leaves_the_buffer_intact(dev):
    buf = UnifiedBuffer((4,), dtype=np.float64)
    buf.fill(1.0)
    with ua.transfer_guard("disallow"):
        with pytest.raises(ua.TransferError, match=rf"host_to_device move of 32 bytes from cpu to {dev}"):
            buf.read(dev)
        assert buf.state is ua.BufferState.HOST_ONLY
        buf.sync_to_device(dev)  # explicit: always allowed
        assert buf.state is ua.BufferState.SYNCHRONIZED
    gpu = UnifiedBuffer((4,), dtype=np.float64, device=dev)
    gpu.fill(5.0)
    with ua.transfer_guard(device_to_host="disallow"), pytest.raises(ua.TransferError):
        gpu.to_numpy()
    assert gpu.state is ua.BufferState.DEVICE_ONLY and gpu.to_numpy()[0] == 5.0


@pytest.mark.parametrize("dev", GPUS)
def test_mixing_a_gpu_and_the_host_under_disallow_raises(dev):
    x = ua.asarray(np.ones(3))
    y = ua.asarray(np.ones(3), device=dev)
    with ua.transfer_guard("disallow"):
        with pytest.raises(ua.TransferError):
            x + y
        assert (y.to_device("cpu") + x).tolist() == [2.0, 2.0, 2.0]
