"""The simulated CUDA runtime (``tests/cudasim``) that the CUDA tests run on
without a GPU: it logs what would race or fault on a real GPU (an
unordered cross-stream access, a stream of the wrong GPU), runs queued work
only when it is waited for, and injects out-of-memory on request.  The
tests of the library's CUDA code rely on each of these."""

from __future__ import annotations

import numpy as np
import pytest

import unifiedarray as xp

from . import conftest, cudasim

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not conftest.CUDA_SIMULATED, reason="tests the simulated runtime itself"),
]
two_gpus = pytest.mark.skipif(conftest.CUDA_COUNT < 2, reason="needs two CUDA GPUs")


def test_the_simulation_logs_an_unordered_cross_stream_access():
    import cupy

    s1 = cupy.cuda.Stream(non_blocking=True)
    s2 = cupy.cuda.Stream(non_blocking=True)
    with s1:
        a = cupy.zeros(4)
        a += 1.0  # queued on s1, not run
    with s2:
        b = a * 2  # s2 reads what s1 still writes: no wait
    found = cudasim.hazards()
    cudasim.clear_hazards()
    assert any("unordered access" in h for h in found), found
    with s1:
        e = s1.record()
    s2.wait_event(e)
    with s2:
        c = a * 2  # ordered now
    assert not cudasim.hazards()
    with s2:
        assert c.get().tolist() == [2.0] * 4
    del b


@two_gpus
def test_the_simulation_logs_a_stream_of_the_wrong_gpu_and_runs_work_only_when_waited_for():
    import cupy

    with cupy.cuda.Device(1):
        a = cupy.ones(3)
    assert cudasim._sim().pending_ops() >= 1  # the fill has not run
    with cupy.cuda.Device(0):
        a.get()  # GPU 0's stream for GPU 1's array
    found = cudasim.hazards()
    cudasim.clear_hazards()
    assert any("wrong device" in h for h in found), found


def test_the_simulation_injects_out_of_memory_and_the_pool_reports_it():
    import cupy

    pool = xp.MemoryPool()
    cudasim._sim().inject_oom(device=0, count=10)
    try:
        with pytest.raises(xp.OutOfMemoryError, match="cuda:0"):
            pool.acquire((1 << 20,), dtype=np.float32, device="cuda:0")
    finally:
        cudasim._sim().inject_oom(device=0, count=0)
    assert isinstance(cupy.cuda.memory.OutOfMemoryError(1, 1, 1), MemoryError)
