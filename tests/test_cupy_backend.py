"""The CuPy backend (``unifiedarray/backends/cupy_backend.py``) runs each
operation on the GPU that holds the data and orders it on the right stream,
whichever GPU or stream is current: downloads, uploads (staged or
asynchronous), fills of reused pool blocks, copies from CuPy arrays,
writes, leases and trims.

Each test is a regression test of a fault found by review, which it failed
before the fix on the simulated runtime (``tests/cudasim``); the ordering
faults would have raced on a real GPU.  They run unchanged on real CuPy
(marked ``cuda``); the few that need the simulation itself (its patchable
classes) say so and skip elsewhere.  The exports' CUDA tests are in
test_exports.py, prefetch's in test_streaming.py, the simulation's own in
test_cudasim.py.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import unifiedarray as xp
from unifiedarray import UnifiedBuffer
from unifiedarray._buffer import adopt
from unifiedarray._devices import Device

from . import conftest
from .cudasim import assert_no_hazards

pytestmark = pytest.mark.cuda

two_gpus = pytest.mark.skipif(conftest.CUDA_COUNT < 2, reason="needs two CUDA GPUs")
simulated = pytest.mark.skipif(not conftest.CUDA_SIMULATED, reason="checks the simulated runtime's hazard log")


@two_gpus
def test_a_download_runs_on_the_arrays_gpu_whichever_gpu_is_current():
    import cupy

    buf = UnifiedBuffer((8,), dtype=np.float64, device="cuda:1")
    buf.fill(3.0)  # queued on GPU 1
    with cupy.cuda.Device(0):
        host = buf.to_numpy()  # an implicit device-to-host move with GPU 0 current
    assert_no_hazards()
    assert host.tolist() == [3.0] * 8


@two_gpus
def test_the_zero_fill_of_a_reused_pool_block_runs_on_its_gpu():
    import cupy

    pool = xp.MemoryPool()
    a = pool.acquire((256,), dtype=np.float32, device="cuda:1")
    a.fill(7.0)
    pool.release(a)
    b = pool.acquire((256,), dtype=np.float32, device="cuda:1")
    assert pool.stats()["hits"] == 1
    with cupy.cuda.Device(0):
        d = b.read("cuda:1")  # zero-fills the reused block
    c = pool.acquire((256,), dtype=np.float32)  # on the host ...
    with cupy.cuda.Device(0):
        e = c.read("cuda:1")  # ... then a zeroed copy made on GPU 1
    assert_no_hazards()
    with cupy.cuda.Device(1):
        assert not d.get().any() and not e.get().any()


@two_gpus
def test_copy_from_a_cupy_array_on_another_gpu_runs_on_the_buffers_gpu():
    import cupy

    with cupy.cuda.Device(1):
        src = cupy.arange(4.0)
    buf = UnifiedBuffer((4,), dtype=np.float64, device="cuda:1")
    with cupy.cuda.Device(0):
        buf.copy_from(src)
    assert_no_hazards()
    with cupy.cuda.Device(1):
        assert buf.read("cuda:1").get().tolist() == [0.0, 1.0, 2.0, 3.0]


@two_gpus
def test_writes_run_on_the_arrays_gpu():
    x = xp.zeros(4, device="cuda:1")
    assert_no_hazards()
    x[1] = 5.0
    x += 1.0
    np.add(x, 1.0, out=x)
    assert_no_hazards()
    assert x.tolist() == [2.0, 7.0, 2.0, 2.0]


@two_gpus
def test_trim_gives_every_gpus_memory_back_to_cuda():
    acc = xp.get_accelerator("cuda:1")
    pool = xp.MemoryPool()
    free_before = acc.get_memory_info()[0]
    a = pool.acquire((1 << 20,), dtype=np.float32, device="cuda:1")  # 4 MiB
    a.fill(1.0)
    pool.release(a)
    assert pool.trim() == 4 << 20
    assert acc.get_memory_info()[0] >= free_before  # CuPy's pool on GPU 1 kept nothing


def test_a_reused_pool_block_waits_for_the_stream_that_last_used_it():
    import cupy

    pool = xp.MemoryPool()
    s1 = cupy.cuda.Stream(non_blocking=True)
    s2 = cupy.cuda.Stream(non_blocking=True)
    with s1:
        a = pool.acquire((1 << 14,), dtype=np.float32, device="cuda:0")
        a.fill(1.0)
        d = a.read("cuda:0")
        doubled = d * 2  # queued on s1, reads the block
        del d
        pool.release(a)
    with s2:  # another stream (another thread's, say) takes the block
        b = pool.acquire((1 << 14,), dtype=np.float32, device="cuda:0")
        b.fill(5.0)
    assert pool.stats()["hits"] == 1
    assert_no_hazards()
    with s1:
        assert bool((doubled == 2.0).all())
    with s2:
        assert float(b.read("cuda:0")[0].get()) == 5.0


def test_finished_asynchronous_copies_keep_no_pool_blocks():
    n = 1 << 16  # 256 KiB of float32: one block per space
    pool = xp.MemoryPool()
    pool.set_limit(n * 4, device="cpu")
    pool.set_limit(n * 4, device="cuda:0")
    for i in range(3):
        buf = pool.acquire((n,), dtype=np.float32, device="cuda:0", pinned=True)
        buf.host[:] = float(i)
        buf.sync_to_device(blocking=False)
        assert float(buf.read("cuda:0")[-1].get()) == float(i)  # waits for the copy
        pool.release(buf)
    stats = pool.stats()
    assert stats["hits"] == 4 and stats["bytes_held"] == 0, stats


def test_a_buffer_dropped_during_an_asynchronous_copy_keeps_its_memory_until_the_copy_is_done():
    import cupy

    for _ in range(3):
        buf = UnifiedBuffer((1 << 16,), dtype=np.float32, pinned=True, device="cuda:0")
        buf.host[:] = 1.0
        buf.sync_to_device(blocking=False)
        del buf  # nobody waits: the copy still reads the pinned host copy
    cupy.cuda.Device(0).synchronize()
    assert_no_hazards()


@two_gpus
def test_the_device_handle_and_mark_device_dirty_mean_the_gpu_that_holds_the_copy():
    import cupy

    buf = UnifiedBuffer((4,), dtype=np.float64)  # a host buffer
    buf.host[:] = 1.0
    buf.sync_to_device("cuda:1")
    handle = buf.device
    assert handle.device.id == 1
    with cupy.cuda.Device(1):
        handle[0] = 9.0  # a write the library cannot see
    buf.mark_device_dirty()
    assert buf.to_numpy().tolist() == [9.0, 1.0, 1.0, 1.0]


def test_a_leased_non_contiguous_device_copy_stays_the_buffers_copy():
    import cupy

    src = cupy.arange(8.0)[::-1]  # an adopted result can be non-contiguous (a flip)
    assert not src.flags.c_contiguous
    buf = adopt(src, Device("cuda", 0), np.dtype(np.float64))
    handle = buf.device  # a lease on that copy
    buf.host[:] = 1.0
    buf.read("cuda:0")  # the upload goes into the same copy ...
    handle[0] = 5.0  # ... so a raw write through the old handle ...
    buf.mark_device_dirty()  # ... declared afterwards, is what the buffer holds
    assert buf.to_numpy().tolist() == [5.0] + [1.0] * 7


@simulated
@two_gpus
def test_staged_uploads_to_two_gpus_do_not_wait_for_each_other(monkeypatch):
    import cupy

    from unifiedarray.backends.cupy_backend import STAGING_CHUNK

    gate, entered = threading.Event(), threading.Event()
    original = cupy.ndarray.set

    def slow_set(self, arr, stream=None):
        if self.device.id == 0:  # GPU 0's staged upload stops half-way
            entered.set()
            gate.wait(10)
        return original(self, arr, stream)

    monkeypatch.setattr(cupy.ndarray, "set", slow_set)
    data = np.ones(2 * STAGING_CHUNK // 8, np.float64)  # pageable and large: staged

    def upload(device: str) -> None:
        buf = UnifiedBuffer(data.shape, dtype=np.float64, device=device)
        buf.copy_from(data)
        buf.read(device)

    first = threading.Thread(target=upload, args=("cuda:0",))
    first.start()
    try:
        assert entered.wait(10)
        second = threading.Thread(target=upload, args=("cuda:1",))
        second.start()
        second.join(5)
        assert not second.is_alive(), "the upload to GPU 1 waited for GPU 0's staging"
    finally:
        gate.set()
        first.join(10)
