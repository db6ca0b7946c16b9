"""Threads: writes in one thread, reads in another, never stale and never failing.

MLX (0.32) binds a lazy graph to the stream of the thread that built it;
the library builds its MLX work on one thread-unsafe stream and serialises
evaluations (see ``unifiedarray/backends/mlx_evaluation.py``).  These tests run
a writer and a reader at the same time for a bounded time: about 2 s each by
default (``UA_THREAD_SECONDS`` sets it), 10 s in the ``slow`` soak.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Callable

import numpy as np
import pytest

import unifiedarray as xp
from unifiedarray import UnifiedBuffer

from .conftest import needs_mlx

pytestmark = needs_mlx

SECONDS = float(os.environ.get("UA_THREAD_SECONDS", "2"))
#: The 10-second soaks run when UA_SOAK is set (CI runs the 2-second forms).
soak = pytest.mark.skipif(not os.environ.get("UA_SOAK"), reason="the 10-second soak: set UA_SOAK=1 to run it")


def run_together(seconds: float, *loops: Callable[[Callable[[], bool]], None]) -> None:
    """Run each ``loop(running)`` in its own thread until ``seconds`` have
    passed (``running()`` turns False) or one of them fails; re-raise the
    first failure."""
    deadline = time.monotonic() + seconds
    failures: list[BaseException] = []

    def running() -> bool:
        return not failures and time.monotonic() < deadline

    def guard(loop: Callable[[Callable[[], bool]], None]) -> None:
        try:
            loop(running)
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=guard, args=(loop,), daemon=True) for loop in loops]
    for t in threads:
        t.start()
    for t in threads:
        t.join(seconds + 60)
        assert not t.is_alive(), "a thread hung"
    if failures:
        raise failures[0]


def in_thread(fn: Callable[[], object]) -> object:
    """``fn()`` run in a new thread; its result, or its exception re-raised."""
    out: list = []

    def run() -> None:
        try:
            out.append(("ok", fn()))
        except BaseException as exc:
            out.append(("err", exc))

    t = threading.Thread(target=run)
    t.start()
    t.join(60)
    kind, value = out[0]
    if kind == "err":
        raise value
    return value


def mlx_values(native) -> np.ndarray:
    return np.array(native, copy=True)


# -- (a) a host alias written while another thread reads on MLX ----------------------------


def host_lease_against_mlx_reads(seconds: float) -> None:
    buf = UnifiedBuffer((4,), dtype=np.int64)
    buf.fill(0)
    done = [0]  # increments that reached the buffer (the writer's count)

    def writer(running):
        h = buf.host  # an alias: the host copy is authoritative while it lives
        while running():
            h += 1  # four elements: NumPy keeps the GIL, the write is never half done
            done[0] += 1

    def reader(running):
        while running():
            # A read on MLX re-syncs from the host (the alias may have
            # written): it sees data at least as new as the host before it.
            before = buf.to_numpy().copy()
            on_mlx = mlx_values(buf.read("mlx"))
            after = buf.to_numpy().copy()
            assert (before <= on_mlx).all() and (on_mlx <= after).all(), f"stale: MLX {on_mlx}, host {before}"

    run_together(seconds, writer, reader)
    assert buf.to_numpy().tolist() == [done[0]] * 4
    assert mlx_values(buf.read("mlx")).tolist() == [done[0]] * 4


def test_host_lease_writes_against_mlx_reads():
    host_lease_against_mlx_reads(SECONDS)


@pytest.mark.slow
@soak
def test_host_lease_writes_against_mlx_reads_soak():
    host_lease_against_mlx_reads(10.0)


# -- (b) reads in another thread after fill, copy_from and lease writes --------------------


def _fill(buf, i):
    buf.fill(i)


def _copy_from_mlx(buf, i):
    import mlx.core as mx

    # A lazy graph on this thread's own stream: only this thread could evaluate it.
    buf.copy_from(mx.full(buf.shape, float(i), dtype=mx.float32) * 1.0)


def _copy_from_mlx_cast(buf, i):
    import mlx.core as mx

    # float32 into a float64 buffer: the cast is built by the buffer.
    buf.copy_from(mx.full(buf.shape, i, dtype=mx.int32) + 0)


def _mlx_lease(buf, i):
    h = buf.mlx
    h[...] = i


def _mlx_lease_inplace(buf, i):
    h = buf.mlx
    h *= 0
    h += i


def _array_write(arr, i):
    arr[...] = float(i)


WRITES = {
    "fill": _fill,
    "copy_from(mlx)": _copy_from_mlx,
    "copy_from(mlx, cast)": _copy_from_mlx_cast,
    "buf.mlx[...] = v": _mlx_lease,
    "buf.mlx *= 0; += v": _mlx_lease_inplace,
}


def fresh(dtype=np.float32) -> UnifiedBuffer:
    buf = UnifiedBuffer((3,), dtype=dtype, device="mlx")
    buf.fill(0)
    return buf


@pytest.mark.parametrize("name", list(WRITES))
@pytest.mark.parametrize("read_on", ["cpu", "mlx"])
def test_write_then_read_in_another_thread(name, read_on):
    buf = fresh(np.float64 if "cast" in name else np.float32)
    WRITES[name](buf, 7)
    got = in_thread(lambda: mlx_values(buf.read(read_on)))
    assert got.tolist() == [7.0] * 3
    # ... and the writer's thread sees it too, after the other thread's move
    assert mlx_values(buf.read("mlx")).tolist() == [7.0] * 3


def test_array_write_then_read_in_another_thread():
    x = xp.zeros(3, device="mlx")
    x[1] = 5.0
    assert in_thread(lambda: np.asarray(x).tolist()) == [0.0, 5.0, 0.0]
    y = xp.zeros((2, 3), device="mlx")
    y.T[1:, 0] = 4.0  # a write through a chain of views (copies on MLX)
    assert in_thread(lambda: np.asarray(y).tolist()) == [[0.0, 4.0, 4.0], [0.0, 0.0, 0.0]]


def writes_against_reads(name: str, seconds: float) -> None:
    buf = fresh(np.float64 if "cast" in name else np.float32)
    write = WRITES[name]
    started, done = [0], [0]

    def writer(running):
        i = 0
        while running():
            i += 1
            started[0] = i
            write(buf, i)
            done[0] = i

    def reader(running):
        k = 0
        last = 0.0
        while running():
            k += 1
            before = done[0]
            got = mlx_values(buf.read("mlx" if k % 2 else "cpu"))
            after = started[0]
            assert len(set(got.tolist())) == 1, f"torn read {got}"
            v = got[0]
            assert v <= after, f"read {v}, never written (last started {after})"
            if not name.startswith("buf.mlx"):
                # A lease write can be lost if its lease ends first (documented);
                # every other write reaches the buffer once it has returned.
                assert v >= before, f"stale: read {v} after write {before} returned"
                assert v >= last, f"went back from {last} to {v}"
            last = v

    run_together(seconds, writer, reader)
    write(buf, done[0] + 1)
    expected = [float(done[0] + 1)] * 3
    assert in_thread(lambda: mlx_values(buf.read("cpu")).tolist()) == expected
    assert in_thread(lambda: mlx_values(buf.read("mlx")).tolist()) == expected


@pytest.mark.parametrize("name", list(WRITES))
def test_writes_against_reads_in_another_thread(name):
    writes_against_reads(name, SECONDS / 2)


@pytest.mark.slow
@soak
def test_writes_against_reads_in_another_thread_soak():
    for name in WRITES:
        writes_against_reads(name, 10.0 / len(WRITES))


def test_array_writes_against_reads_and_a_live_lease():
    """Array writes on MLX keep a live ``buf.mlx`` lease valid (they used to
    detach it); a reader in another thread sees every write."""
    x = xp.zeros(4, device="mlx")
    started, done = [0], [0]

    def writer(running):
        i = 0
        while running():
            i += 1
            started[0] = i
            x[0] = float(i)
            x[1:] = float(i)
            done[0] = i

    def reader(running):
        while running():
            before = done[0]
            got = np.asarray(x)
            after = started[0]
            assert before <= got[1] <= after, f"read {got} between writes {before} and {after}"

    run_together(SECONDS / 2, writer, reader)


# -- (c) results built in one thread, read in another -------------------------------------


def test_results_built_in_one_thread_read_in_another():
    rng = np.random.default_rng(0)
    an, bn = rng.normal(size=(64, 64)).astype(np.float32), rng.normal(size=(64, 64)).astype(np.float32)
    a, b = xp.asarray(an, device="mlx"), xp.asarray(bn, device="mlx")
    expected = (an * 2.0 + bn) / 3.0 - an * bn + 1.0
    handoff: queue.Queue = queue.Queue(maxsize=8)
    built = [0]

    def builder(running):
        while running():
            c = (a * 2.0 + b) / 3.0 - a * b + 1.0
            s = xp.sum(c)
            handoff.put((c, s))
            built[0] += 1

    def reader(running):
        while running() or not handoff.empty():
            try:
                c, s = handoff.get(timeout=0.1)
            except queue.Empty:
                continue
            np.testing.assert_allclose(np.asarray(c), expected, rtol=1e-5, atol=1e-5)
            assert abs(float(s) - float(expected.sum())) < 1e-2

    run_together(SECONDS / 2, builder, reader)
    assert built[0] > 0


def test_lazy_graph_built_in_one_thread_evaluated_in_another():
    """The execution model itself: a graph built inside compute_context is
    evaluated in another thread through evaluate()."""
    import mlx.core as mx

    from unifiedarray.backends import mlx_evaluation

    a = mx.arange(1000, dtype=mx.float32)
    mx.eval(a)  # a user's array enters evaluated (as the library's entry points do)
    with mlx_evaluation.compute_context():
        y = (a * 2.0 + 1.0).sum()
    assert in_thread(lambda: (mlx_evaluation.evaluate(y), y.item())[1]) == float((np.arange(1000) * 2.0 + 1.0).sum())
    # The same graph built on this thread's own stream fails elsewhere: what the model avoids.
    z = (a * 3.0).sum()
    with pytest.raises(RuntimeError, match="no Stream"):
        in_thread(lambda: mx.eval(z))
    mx.eval(z)


def test_many_threads_build_and_evaluate_on_one_stream():
    """Several threads build graphs inside compute_context and evaluate each
    other's: the evaluation lock serialises them."""
    import mlx.core as mx

    from unifiedarray.backends import mlx_evaluation

    graphs: queue.Queue = queue.Queue()
    checked = [0]
    base = mx.arange(256, dtype=mx.float32)
    mx.eval(base)

    def builder(running):
        k = 0
        while running():
            k += 1
            with mlx_evaluation.compute_context():
                g = ((base + k) * 2.0).sum()
            graphs.put((k, g))

    def evaluator(running):
        while running():
            try:
                k, g = graphs.get(timeout=0.05)
            except queue.Empty:
                continue
            mlx_evaluation.evaluate(g)
            assert g.item() == float(((np.arange(256) + k) * 2.0).sum())
            checked[0] += 1

    run_together(SECONDS / 2, builder, builder, evaluator, evaluator)
    assert checked[0] > 0


def test_dask_threads_on_mlx():
    da = pytest.importorskip("dask.array")
    import dask

    xn = np.random.default_rng(1).normal(size=(64, 64)).astype(np.float32)
    x = xp.asarray(xn, device="mlx")
    d = da.from_array(x, chunks=(16, 16), asarray=False)
    with dask.config.set(scheduler="threads", num_workers=4):
        for _ in range(3):
            got = ((d * 2 + 1) @ d).sum(axis=0).compute()
            np.testing.assert_allclose(np.asarray(got), ((xn * 2 + 1) @ xn).sum(axis=0), rtol=1e-4, atol=1e-3)


def test_compute_context_restores_the_thread_streams(monkeypatch):
    """compute_context leaves the thread's default streams as it found them,
    also with two library streams (as on Metal: a CPU one for float64 and a
    GPU one), where MLX's own stream context would leave the CPU one set."""
    import mlx.core as mx

    from unifiedarray.backends import mlx_evaluation

    mine = mx.default_stream(mx.cpu)
    with mlx_evaluation.compute_context():
        assert mx.default_stream(mx.cpu) == mlx_evaluation.stream()
    assert mx.default_stream(mx.cpu) == mine
    extra = mx.new_thread_unsafe_stream(mx.cpu)
    monkeypatch.setattr(mlx_evaluation, "_STREAMS", (mlx_evaluation._STREAMS[0], extra))
    with mlx_evaluation.compute_context():
        assert mx.default_stream(mx.cpu) == extra  # the last one is the default device's
        y = mx.ones(3) + 1
    assert mx.default_stream(mx.cpu) == mine
    assert in_thread(lambda: (mlx_evaluation.evaluate(y), y.tolist())[1]) == [2.0, 2.0, 2.0]
    assert not mlx_evaluation.EVAL_LOCK._is_owned()
