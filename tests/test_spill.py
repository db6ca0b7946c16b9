"""Device memory limits (``unifiedarray/_spill.py``): under a limit, copies
that the host also holds are dropped first, then device-only copies are
spilled to the host (each spill an explicit, counted move), and every array
still reads back as its model says, on the host and on the device; a lent
copy is never spilled; a parent read through views stays while it is read;
threads evict at once without a deadlock.  The limits on dask workers are
tested with the cluster, in test_distributed.py."""

from __future__ import annotations

import concurrent.futures
import contextvars
import threading
import time
from multiprocessing.pool import ThreadPool

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import unifiedarray as xp
from unifiedarray import _spill

from .conftest import needs_mlx


@pytest.fixture
def mlx_limit():
    yield lambda limit: _spill.set_device_memory_limit("mlx", limit)
    _spill.set_device_memory_limit("mlx", None)


@needs_mlx
def test_spill_workload_larger_than_the_limit(mlx_limit):
    mlx_limit("4 MiB")
    rng = np.random.default_rng(1)
    hosts = [rng.random(131072) for _ in range(12)]  # 12 x 1 MiB: three times the limit
    with xp.track_transfers() as t:
        arrays = [xp.asarray(h, device="mlx") * 2.0 for h in hosts]  # device-only results
        assert _spill.device_memory_usage("mlx") <= 4 * 2**20
        total = sum(float(xp.sum(a)) for a in arrays)
    spills = [r for r in t.records if r.reason == "spill"]
    assert spills and all(r.direction == "device_to_host" and r.explicit for r in spills)
    assert total == pytest.approx(sum(h.sum() * 2 for h in hosts))
    for a, h in zip(arrays, hosts, strict=True):  # never stale: every array reads back right
        assert a.device == "mlx"
        np.testing.assert_array_equal(np.asarray(a), h * 2.0)
    assert _spill.device_memory_usage("mlx") <= 4 * 2**20


@needs_mlx
def test_a_result_under_a_limit_is_counted_when_it_is_made(mlx_limit):
    """A small result that MLX's direct function makes (without a limit, a
    lone result with no buffer: see UnifiedArray.buffer) is in the device's
    usage at once under a limit, and one made before the limit is counted
    when its buffer is made."""
    a = xp.asarray(np.ones(1024, dtype=np.float32), device="mlx")
    _ = a + a  # a signature's first call is judged on the general path
    before_the_limit = a + a
    mlx_limit("1 GiB")
    used = _spill.device_memory_usage("mlx")
    r = a + a
    assert _spill.device_memory_usage("mlx") == used + r.nbytes
    before_the_limit[0] = 3.0  # a write: the buffer is made, and counted
    assert _spill.device_memory_usage("mlx") == used + 2 * r.nbytes
    assert float(xp.sum(before_the_limit)) == 2 * 1023 + 3.0 and float(xp.sum(r)) == 2048.0


@needs_mlx
def test_limit_drops_host_current_copies_first(mlx_limit):
    mlx_limit(3 * 2**20)
    synced = [xp.asarray(np.full(131072, float(i)), device="mlx") for i in range(2)]
    for s in synced:
        np.asarray(s)  # host copy current too: dropping the MLX copy is free
    only = xp.asarray(np.ones(131072), device="mlx") + 1  # device-only
    with xp.track_transfers() as t:
        extra = xp.asarray(np.zeros(131072), device="mlx") + 2  # over the limit: one must go
    assert [r.reason for r in t.records if r.reason == "spill"] == []
    assert "mlx" not in synced[0].buffer.allocated_devices  # the oldest host-current copy was dropped
    assert only.buffer.state.name == "DEVICE_ONLY" and extra.buffer.state.name == "DEVICE_ONLY"
    np.testing.assert_array_equal(np.asarray(synced[0]), np.zeros(131072))
    assert float(xp.sum(synced[0] + 1)) == 131072.0  # read on MLX again: moved back, counted


@needs_mlx
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ops=st.lists(
        st.tuples(st.sampled_from(["new", "write", "host_read", "mlx_read", "drop"]), st.integers(0, 7)),
        min_size=1,
        max_size=30,
    )
)
def test_never_stale_under_a_device_limit(ops):
    # A model: NumPy arrays.  Under a limit of three arrays' worth of MLX
    # memory, every array reads back as the model says, on the host and on MLX.
    n = 4096
    _spill.set_device_memory_limit("mlx", 3 * n * 8)
    try:
        arrays: list = []
        model: list = []
        for op, i in ops:
            if op == "new" or not arrays:
                model.append(np.full(n, float(len(model))))
                arrays.append(xp.asarray(model[-1], device="mlx") + 0.0)  # device-only
                continue
            j = i % len(arrays)
            if op == "write":
                arrays[j][i] = float(100 + i)
                model[j][i] = float(100 + i)
            elif op == "host_read":
                np.testing.assert_array_equal(np.asarray(arrays[j]), model[j])
            elif op == "mlx_read":
                assert float(xp.sum(arrays[j])) == model[j].sum()
            else:
                arrays.pop(j)
                model.pop(j)
            assert _spill.device_memory_usage("mlx") <= 3 * n * 8
        for a, m in zip(arrays, model, strict=True):
            assert a.device == "mlx"
            np.testing.assert_array_equal(np.asarray(a), m)
    finally:
        _spill.set_device_memory_limit("mlx", None)


def test_memory_limit_arguments():
    assert _spill.parse_bytes("2 GiB") == 2 * 2**30 and _spill.parse_bytes("1.5 MB") == 1_500_000
    with pytest.raises(ValueError, match="byte count"):
        _spill.parse_bytes("lots")
    with pytest.raises(TypeError):
        _spill.parse_bytes(1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="host"):
        _spill.set_device_memory_limit("cpu", "1 GiB")
    with pytest.raises(ValueError):
        _spill.set_device_memory_limit("cuda:3", "1 GiB")


@needs_mlx
def test_a_live_lease_is_never_spilled_and_its_writes_reach_the_array(mlx_limit):
    """A copy lent as a writable handle (``buf.mlx``) stays on the device
    under pressure while the handle is held, so a write through it after an
    unrelated allocation over the limit is seen by the array, on MLX and on
    the host; once the handle is gone, the copy is evicted like any other."""
    mlx_limit(3 * 2**20)
    x = xp.asarray(np.zeros(131072), device="mlx") + 1.0  # 1 MiB, device-only
    m = x.buffer.mlx  # a live lease
    with xp.track_transfers() as t:
        others = [xp.asarray(np.ones(131072), device="mlx") + 2.0 for _ in range(4)]  # unrelated, over the limit
    assert [r for r in t.records if r.reason == "spill"]  # the limit did evict (the others)
    assert "mlx" in x.buffer.allocated_devices  # ... but not the lent copy
    m[0] = 5.0  # a write through the handle, after the pressure
    assert float(xp.sum(x)) == 131071.0 + 5.0  # seen on MLX
    assert np.asarray(x)[0] == 5.0 and np.asarray(x)[1] == 1.0  # and on the host
    del m  # the handle is gone: the lease no longer pins the copy
    handle = x.buffer.mlx  # a lease again (the host read above ended the first), dropped at once
    del handle
    for _ in range(4):
        others.append(xp.asarray(np.ones(131072), device="mlx") + 4.0)
    assert "mlx" not in x.buffer.allocated_devices  # a lease no one holds does not pin the copy
    assert float(xp.sum(x)) == 131071.0 + 5.0
    assert _spill.device_memory_usage("mlx") <= 3 * 2**20


@needs_mlx
def test_a_frame_of_a_leased_copy_keeps_it_and_its_data():
    """A pickle-5 frame of MLX's copy refers to the leased copy as a handle
    would: the eviction keeps the copy (dropping it would free nothing) and
    the data written through the lease; with the frame gone, it goes, moved
    to the host first.  (Found by the stateful buffer model: export, write
    through ``.mlx``, evict.)"""
    import pickle

    x = xp.asarray(np.zeros(8), device="mlx") + 0.0  # device-only
    frames: list = []
    pickle.dumps(x, protocol=5, buffer_callback=frames.append)
    kept = [memoryview(f.raw()) for f in frames]
    handle = x.buffer.mlx
    handle[0:2] = 3.0
    del handle
    mlx = xp.Device.parse("mlx")
    with xp.track_transfers() as t:
        assert x.buffer.drop_copy(mlx, spill=True) is False
    assert t.count == 0 and x.buffer.valid_devices == {mlx}
    del kept, frames
    with xp.track_transfers() as t:
        assert x.buffer.drop_copy(mlx, spill=True) is True
    assert [r.reason for r in t.records] == ["spill"]
    assert np.asarray(x).tolist() == [3.0, 3.0] + [0.0] * 6


@needs_mlx
def test_a_lease_written_whole_keeps_memory_of_its_own():
    """``h[:] = 1`` through a lease left MLX a broadcast of one element, so
    a NumPy view of another handle on it (``np.asarray(h)[0] = 0``) wrote
    every element: the buffer read all zeros.  (Found by the stateful
    buffer model.)"""
    import mlx.core as mx

    buf = xp.UnifiedBuffer((6,), dtype="float64", device="cpu")
    kept = buf.mlx  # a live lease, kept
    h = buf.mlx
    h[:] = mx.array(1.0)
    np.asarray(kept)[0] = 0.0
    assert buf.to_numpy().tolist() == [0.0, 1.0, 1.0, 1.0, 1.0, 1.0]


class _DaemonThreads(concurrent.futures.Executor):
    """A pool for dask's threaded scheduler on daemon threads, so that a
    deadlock fails a test instead of hanging the interpreter's exit (dask's
    own pool is joined then); each task runs in its submitter's context, as in
    dask's own pool, so that the ledger counts the workers' moves."""

    def __init__(self, workers: int) -> None:
        self._pool = ThreadPool(workers)
        self._max_workers = workers  # what dask's scheduler reads

    def submit(self, fn, /, *args, **kwargs):  # type: ignore[no-untyped-def]
        future: concurrent.futures.Future = concurrent.futures.Future()
        context = contextvars.copy_context()

        def call() -> None:
            try:
                future.set_result(context.run(fn, *args, **kwargs))
            except BaseException as exc:  # pragma: no cover - handed to dask
                future.set_exception(exc)

        self._pool.apply_async(call)
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._pool.terminate()


def _views_pass(scheduler: str, workers: int, keep_chunks: bool = False, timeout: float = 60.0):
    """``(x * 2 + 1).sum()`` over 8 MiB of chunks that are views of one MLX
    parent (as docs/distributed.md builds them), under a 2 MiB limit, with
    dask's ``scheduler`` (``workers`` threads); with ``keep_chunks``, the
    chunks of ``x * 2 + 1`` are computed too and held (8 MiB of device-only
    results: some must be spilled).  Run in a daemon thread joined with
    ``timeout``: a deadlock fails the test instead of hanging it.  Returns
    (the sum, the chunks, the host's array, the ledger)."""
    import dask
    import dask.array as da

    host = np.random.default_rng(2).random((1024, 1024))  # 8 MiB: four times the limit
    _spill.set_device_memory_limit("mlx", "2 MiB")
    out: dict = {}

    def run() -> None:
        try:
            x = da.from_array(xp.asarray(host, device="mlx"), chunks=(128, 256))  # 32 views of one parent
            y = x * 2 + 1
            wanted = [y.sum(), *(y.to_delayed().ravel() if keep_chunks else ())]
            with xp.track_transfers(max_records=None) as t:
                if scheduler == "threads":
                    pool = _DaemonThreads(workers)
                    try:
                        got = dask.compute(*wanted, scheduler="threads", pool=pool)
                    finally:
                        pool.shutdown()
                else:
                    got = dask.compute(*wanted, scheduler="synchronous")
                out["sum"] = float(got[0])
            out["chunks"], out["ledger"] = got[1:], t
        except BaseException as exc:  # pragma: no cover - raised below
            out["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout)
    assert not thread.is_alive(), f"dask's {scheduler!r} scheduler under a device limit did not finish (a deadlock)"
    if "error" in out:
        raise out["error"]
    return out["sum"], out["chunks"], host, out["ledger"]


@needs_mlx
def test_dask_threads_under_a_device_limit_complete(mlx_limit):
    """Four dask worker threads evicting at once (an eviction evaluates MLX,
    while other threads wrap their results holding the evaluation lock)
    complete a workload larger than the limit, with the right values and
    every spill counted."""
    pytest.importorskip("dask")
    total, chunks, host, t = _views_pass("threads", 4, keep_chunks=True)
    assert total == pytest.approx(float((host * 2 + 1).sum()))
    assert len(chunks) == 32 and all(c.device == "mlx" for c in chunks)
    np.testing.assert_array_equal(
        np.block([[np.asarray(c) for c in chunks[i * 4 : i * 4 + 4]] for i in range(8)]), host * 2 + 1
    )
    spills = [r for r in t.records if r.reason == "spill"]
    assert spills and all(r.direction == "device_to_host" and r.explicit for r in spills)
    assert sum(r.nbytes for r in spills) >= 4 * 2**20  # 8 MiB of results held under 2 MiB: most were spilled
    assert _spill.device_memory_usage("mlx") <= 2 * 2**20 + host.nbytes  # the parent, and the limit's worth


@needs_mlx
@pytest.mark.parametrize("scheduler", ["synchronous", "threads"])
def test_views_of_one_parent_under_a_limit_do_not_bring_it_back_per_chunk(mlx_limit, scheduler):
    """Chunks that are views of one parent each read the parent's copy: a
    use, so the parent (four times the limit here) stays while the chunks are
    computed, and the chunk results go first.  Before, each chunk brought the
    whole parent back and the next result evicted it again (32x the data)."""
    pytest.importorskip("dask")
    total, _, host, t = _views_pass(scheduler, 2)
    assert total == pytest.approx(float((host * 2 + 1).sum()))
    assert t.nbytes < 3 * host.nbytes + 2**20, f"{t.nbytes / host.nbytes:.1f}x the data moved"


@needs_mlx
def test_threads_evicting_at_once_keep_usage_exact_and_data_right(mlx_limit):
    """Six threads make, read (whole and through views) and drop MLX arrays
    under a limit of six arrays' worth, so that several evict at once
    (each eviction evaluates MLX outside the limit's lock, while others note
    results holding the evaluation lock): every read matches its model, and
    afterwards the usage is exactly the bytes of the MLX copies still held."""
    import gc
    import random

    n = 16384
    mlx_limit(6 * n * 8)
    arrays: list = []
    models: list = []
    lock = threading.Lock()
    errors: list = []

    def work(seed: int) -> None:
        rng = random.Random(seed)
        try:
            for _ in range(150):
                op = rng.random()
                with lock:
                    k = len(arrays)
                    j = rng.randrange(k) if k else 0
                    a, m = (arrays[j], models[j]) if k else (None, None)
                if a is None or op < 0.3:
                    v = float(rng.randint(0, 100))
                    b = xp.asarray(np.full(n, v), device="mlx") + 1.0  # device-only
                    with lock:
                        arrays.append(b)
                        models.append(v + 1.0)
                elif op < 0.5:
                    assert float(xp.sum(a[: n // 2])) == m * (n // 2)  # a view's read
                elif op < 0.65:
                    h = np.asarray(a)
                    assert h[0] == m and h[-1] == m
                elif op < 0.8:
                    with lock:
                        if len(arrays) > 8:
                            del arrays[j], models[j]
                else:
                    assert float(xp.sum(a * 1.0)) == m * n
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(6)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 60
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    assert not any(t.is_alive() for t in threads), "threads under a device limit did not finish (a deadlock)"
    if errors:
        raise errors[0]
    gc.collect()
    held = sum(a.nbytes for a in arrays if "mlx" in a.buffer.allocated_devices)
    assert _spill.device_memory_usage("mlx") == held <= 6 * n * 8
    for a, m in zip(arrays, models, strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.full(n, m))


@needs_mlx
def test_a_copy_larger_than_the_limit_goes_once_no_longer_read(mlx_limit):
    """A parent four times the limit, read through views, stays while it is
    read (the limit bounds the other copies meanwhile), and goes first once
    the limit's worth of other copies were made since its last read."""
    mlx_limit(2**20)
    parent = xp.asarray(np.arange(524288.0), device="mlx")  # 4 MiB, device-only
    results = []
    with xp.track_transfers() as t:
        for i in range(16):
            results.append(parent[i * 32768 : (i + 1) * 32768] * 2.0)  # a view's read, then a 256 KiB result
            assert "mlx" in parent.buffer.allocated_devices  # in use: it stays
            assert _spill.device_memory_usage("mlx") <= 2**20 + parent.nbytes  # the limit bounds the rest
    assert not [r for r in t.records if r.reason != "spill"]  # the parent never came back: it never left
    for _ in range(5):  # more than the limit's worth of copies made, none reading the parent
        results.append(xp.asarray(np.ones(32768), device="mlx") + 1.0)
    assert "mlx" not in parent.buffer.allocated_devices  # no longer read: it went
    assert _spill.device_memory_usage("mlx") <= 2**20
    np.testing.assert_array_equal(np.asarray(parent), np.arange(524288.0))
    for i in range(16):
        np.testing.assert_array_equal(np.asarray(results[i]), np.arange(i * 32768, (i + 1) * 32768) * 2.0)
