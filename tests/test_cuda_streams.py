"""CUDA streams: every access of a buffer follows the work it must follow,
whatever stream is current when it runs.

* A CUDA handle lent under ``with stream:`` (``buf.device``) is written on
  that stream, and an outside write declared by ``mark_device_dirty()`` was
  queued on the stream current then: the buffer's next access follows that
  work on whatever stream it runs (a non-blocking stream and the legacy
  default stream never wait for each other).
* A pooled block's next owner follows its last owner's work, on whatever
  stream it first uses it.
* A consumer orders on the producer's stream of the producer's GPU: the CUDA
  Array Interface the library exports names a stream of the data's GPU that
  a consumer with any GPU current can wait for, and the library, as a
  consumer (``copy_from``, ``from_dlpack``), asks with the producer's GPU
  current.

On the simulated runtime every step is checked for hazards (tests/cudasim);
on a real GPU the values are checked (a race shows there only sometimes).
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import unifiedarray as xp
from unifiedarray import UnifiedBuffer

from . import conftest, cudasim
from .cudasim import assert_no_hazards

pytestmark = pytest.mark.cuda

two_gpus = pytest.mark.skipif(conftest.CUDA_COUNT < 2, reason="needs two CUDA GPUs")
simulated = pytest.mark.skipif(not conftest.CUDA_SIMULATED, reason="checks the simulated runtime's hazard log")
N = 1000


def streams():
    import cupy

    return cupy.cuda.Stream(non_blocking=True), cupy.cuda.Stream(non_blocking=True)


# -- writes through a lent handle, on the stream current when it was lent ------------------------


def test_a_pooled_block_written_on_two_non_blocking_streams_reads_the_last_write():
    # The reported case: released after a write under stream_a, acquired again
    # and written under stream_b, then read with no stream current.
    stream_a, stream_b = streams()
    pool = xp.MemoryPool()
    with stream_a:
        a = pool.acquire((N,), dtype=np.float32, device="cuda:0")
        a.device.fill(1.0)
    pool.release(a)
    with stream_b:
        c = pool.acquire((N,), dtype=np.float32, device="cuda:0")
        c.device.fill(2.0)
    assert pool.stats()["hits"] == 1
    np.testing.assert_array_equal(c.to_numpy(), np.full(N, 2.0, np.float32))
    assert_no_hazards()


def test_a_handle_written_under_a_non_blocking_stream_is_read_after_the_write():
    _, stream_b = streams()
    buf = UnifiedBuffer((N,), dtype=np.float32, device="cuda:0")
    buf.fill(0.0)
    with stream_b:
        buf.device.fill(3.0)
    np.testing.assert_array_equal(buf.to_numpy(), np.full(N, 3.0, np.float32))
    assert_no_hazards()


def test_a_live_handle_written_again_on_its_stream_is_read_after_each_write():
    # A read of the GPU copy itself leaves the valid set (and the lease) as
    # they are: the next write through the same handle must be followed too.
    _, stream_b = streams()
    buf = UnifiedBuffer((N,), dtype=np.float32, device="cuda:0")
    with stream_b:
        handle = buf.device
        handle.fill(1.0)
    assert float(buf.read("cuda:0").sum()) == N  # on the default stream
    with stream_b:
        handle.fill(2.0)
    assert float(buf.read("cuda:0").sum()) == 2 * N
    np.testing.assert_array_equal(buf.to_numpy(), np.full(N, 2.0, np.float32))
    assert_no_hazards()


def test_a_block_acquired_on_one_stream_and_first_written_on_another_follows_its_last_owner():
    stream_a, stream_b = streams()
    pool = xp.MemoryPool()
    with stream_a:
        a = pool.acquire((N,), dtype=np.float32, device="cuda:0")
        a.device.fill(1.0)
        pool.release(a)
    c = pool.acquire((N,), dtype=np.float32, device="cuda:0")  # on the default stream
    with stream_b:
        c.device.fill(2.0)  # the first use, on another stream than the acquire's
    np.testing.assert_array_equal(c.to_numpy(), np.full(N, 2.0, np.float32))
    assert_no_hazards()


def test_mark_device_dirty_orders_after_the_stream_current_when_marked():
    _, stream_b = streams()
    buf = UnifiedBuffer((N,), dtype=np.float32, device="cuda:0")
    buf.fill(0.0)
    with stream_b:
        # The copy's memory as an outside kernel's raw pointer sees it (a
        # read, ordered on this stream): the library cannot see what the
        # caller writes there.
        raw = buf._acquire(xp.Device.parse("cuda:0"), False, "an outside kernel's pointer")
        raw.fill(4.0)
        buf.mark_device_dirty()
    np.testing.assert_array_equal(buf.to_numpy(), np.full(N, 4.0, np.float32))
    assert_no_hazards()


OPS = st.lists(
    st.tuples(
        st.sampled_from(["lease_fill", "host_write", "to_numpy", "read_device", "release_acquire", "fill"]),
        st.sampled_from(["default", "a", "b", "blocking"]),
        st.integers(1, 9),
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=40, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(ops=OPS)
def test_any_program_of_writes_and_reads_on_any_streams_reads_the_last_write(ops):
    # The class of the cases above: leases taken and written, host writes,
    # reads on the host and on the GPU, fills, blocks passed on through a
    # pool, each under the default stream, a blocking or a non-blocking one.
    import cupy

    stream_a, stream_b = streams()
    on = {"a": stream_a, "b": stream_b, "blocking": cupy.cuda.Stream(), "default": cupy.cuda.Stream.null}
    pool = xp.MemoryPool()
    buf = pool.acquire((N,), dtype=np.float32, device="cuda:0")
    buf.fill(0.0)
    model = np.zeros(N, np.float32)
    for op, where, v in ops:
        with on[where]:
            if op == "lease_fill":
                buf.device.fill(float(v))
                model[:] = v
            elif op == "host_write":
                buf.host[v] = v
                model[v] = v
            elif op == "to_numpy":
                np.testing.assert_array_equal(buf.to_numpy(), model)
            elif op == "read_device":
                assert float(buf.read("cuda:0").sum()) == float(model.sum())
            elif op == "fill":
                buf.fill(float(v))
                model[:] = v
            else:
                pool.release(buf)
                buf = pool.acquire((N,), dtype=np.float32, device="cuda:0")
                buf.device.fill(float(v))
                model[:] = v
    np.testing.assert_array_equal(buf.to_numpy(), model)
    assert_no_hazards()


# -- the producer's stream of the producer's GPU ---------------------------------------------------


@two_gpus
def test_the_interface_of_an_array_on_one_gpu_is_ordered_for_a_consumer_on_another():
    # The default stream's handle (1) in an interface names the default
    # stream of the GPU the consumer has current, not the data's.
    import cupy

    u = xp.asarray(np.arange(N, dtype=np.float32), device="cuda:1")  # its upload still queued on cuda:1
    s0, _ = streams()
    with cupy.cuda.Device(0), s0:
        consumed = cupy.asarray(u)
        np.testing.assert_array_equal(consumed.get(), np.arange(N, dtype=np.float32))
    assert_no_hazards()


@two_gpus
@pytest.mark.parametrize("producer_stream", ["default", "non-blocking"])
def test_copy_from_a_cupy_array_of_one_gpu_while_another_gpus_stream_is_current(producer_stream):
    # The reported case: src made on cuda:1 while cuda:0 is current with a
    # non-default stream of cuda:0 current.
    import cupy

    with cupy.cuda.Device(1):
        p1 = cupy.cuda.Stream(non_blocking=True) if producer_stream == "non-blocking" else cupy.cuda.Stream.null
    s0, _ = streams()
    # cuda:1 with its current stream p1 (the producer's), then cuda:0 current with s0
    with cupy.cuda.Device(1), p1, cupy.cuda.Device(0), s0:
        with cupy.cuda.Device(1):
            src = cupy.arange(N, dtype=cupy.float32) * 3
        buf = UnifiedBuffer((N,), dtype=np.float32, device="cuda:1")
        buf.copy_from(src)
        np.testing.assert_array_equal(buf.to_numpy(), np.arange(N, dtype=np.float32) * 3)
    assert_no_hazards()


class _DLPackProducer:
    """A foreign DLPack producer (only the protocol) over a CuPy array."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


@two_gpus
def test_from_dlpack_of_a_producer_on_one_gpu_while_another_is_current():
    import cupy

    with cupy.cuda.Device(1):
        src = cupy.arange(N, dtype=cupy.float32) + 1
    s0, _ = streams()
    with cupy.cuda.Device(0), s0:
        x = xp.from_dlpack(_DLPackProducer(src), device="cuda:1")
    assert x.device == "cuda:1"
    np.testing.assert_array_equal(x.to_numpy(), np.arange(N, dtype=np.float32) + 1)
    assert_no_hazards()


# -- the simulator's rules ----------------------------------------------------------------------------


class _InterfaceNaming:
    """A CUDA Array Interface producer naming ``stream`` (any, even a wrong one)."""

    def __init__(self, array, stream_ptr):
        self.array = array
        self.stream_ptr = stream_ptr

    @property
    def __cuda_array_interface__(self):
        import cupy

        with cupy.cuda.Device(self.array.device.id):
            cai = dict(self.array.__cuda_array_interface__)
        cai["stream"] = self.stream_ptr
        return cai


@simulated
@two_gpus
def test_the_simulation_logs_an_interface_naming_a_stream_of_another_gpu():
    import cupy

    with cupy.cuda.Device(1):
        a = cupy.ones(3)
        right = cupy.cuda.get_current_stream()
    s0, _ = streams()
    with cupy.cuda.Device(0):
        cupy.asarray(_InterfaceNaming(a, s0.ptr))
    found = cudasim.hazards()
    cudasim.clear_hazards()
    assert any("wrong device" in h and "CUDA Array Interface" in h for h in found), found
    with cupy.cuda.Device(1):
        cupy.asarray(_InterfaceNaming(a, right.ptr or 1))  # the data's own GPU's stream: nothing to log
    assert not [h for h in cudasim.hazards() if "CUDA Array Interface" in h]
    cudasim.clear_hazards()


@simulated
@pytest.mark.parametrize("non_blocking", [True, False])
def test_the_simulation_knows_non_blocking_streams_never_wait_for_the_default_stream(non_blocking):
    import cupy

    s = cupy.cuda.Stream(non_blocking=non_blocking)
    with s:
        a = cupy.zeros(4)
        a += 1.0  # queued on s
    a.get()  # on the default stream: ordered after s only where s is a blocking stream
    found = cudasim.hazards()
    cudasim.clear_hazards()
    assert any("unordered access" in h for h in found) == non_blocking, found


# -- scalar reads (float(x)): the element copied out after the work it follows ----------------------


_MADE_AND_READ_ON = [("default", "a"), ("default", "default"), ("a", "a"), ("blocking", "blocking")]


@pytest.mark.parametrize("made", ["asarray", "a result", "a result, its buffer made"])
@pytest.mark.parametrize("made_on, read_on", _MADE_AND_READ_ON)
def test_a_scalar_read_on_any_stream_follows_the_work_that_made_the_value(made, made_on, read_on):
    # The value is made on one stream and read as float() under another (a
    # non-blocking stream never waits for the default stream by itself); a
    # result made with no buffer (a lone result) is read as its twin with a
    # buffer is. Moving a computation between two non-default streams is
    # the caller's to order, as in CuPy, and is not among the cases.
    import cupy

    stream_a, _ = streams()
    on = {"a": stream_a, "blocking": cupy.cuda.Stream(), "default": cupy.cuda.Stream.null}
    with on[made_on]:
        x = xp.asarray(np.float64(1.0), device="cuda:0")
        if made != "asarray":
            x = x * 2.0 + 1.0
            if made == "a result, its buffer made":
                x.buffer  # noqa: B018
    with on[read_on]:
        got = float(x), bool(x), x.item()
    assert got == ((3.0, True, 3.0) if made != "asarray" else (1.0, True, 1.0))
    assert_no_hazards()


@simulated
def test_a_scalar_read_and_a_write_in_two_threads_each_on_its_own_stream_are_ordered():
    # The read's copy runs under the buffer's lock, as a move's: a write in
    # another thread, on another stream, is ordered after it, never races it.
    import threading

    x = xp.asarray(np.complex128(0.0), device="cuda:0")
    x.buffer  # noqa: B018  (one buffer, made before the threads start)
    start = threading.Barrier(2)
    seen: list[complex] = []

    def reader():
        with streams()[0]:
            start.wait()
            seen.extend(complex(x) for _ in range(300))

    def writer():
        with streams()[1]:
            start.wait()
            for i in range(1, 301):
                x[...] = complex(i, -i)

    threads = [threading.Thread(target=reader), threading.Thread(target=writer)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch between any two steps, the read's lock and copy among them
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert_no_hazards()
    assert all(v.real == -v.imag and v.real in range(301) for v in seen)  # never half of one write
    assert complex(x) == 300 - 300j
