"""Threads: writes in one thread, reads in another, never stale and never failing.

MLX (0.32) binds a lazy graph to the stream of the thread that built it;
the library builds its MLX work on one thread-unsafe stream and serialises
evaluations (see ``unifiedarray/backends/mlx_evaluation.py``).  These tests run
a writer and a reader at the same time for a bounded time: about 2 s each by
default (``UA_THREAD_SECONDS`` sets it), 10 s in the ``slow`` soak.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import queue
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from typing import Any

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
    first failure (:func:`finish_together`, a minute's grace for a hang)."""
    finish_together(seconds, *loops, limit=60.0)


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


# -- (b') every write form, against a reader moving the copy to the other device --------


def _writes() -> dict[str, tuple[str, Callable[[Any, int], None]]]:
    """Every way data is written into a buffer (its write methods, its
    handles) and into an array (an operator, ``__setitem__``, a NumPy
    function with ``out=``): ``name: (target, write)``, the target a
    ``"buffer"`` or an ``"array"``; ``write(target, i)`` leaves every
    element ``i``."""
    import mlx.core as mx

    cpu, on_mlx = xp.Device.parse("cpu"), xp.Device.parse("mlx")
    return {
        "fill": ("buffer", lambda buf, i: buf.fill(i)),
        "copy_from(numpy)": ("buffer", lambda buf, i: buf.copy_from(np.full(buf.shape, i, buf.dtype))),
        "copy_from(mlx)": ("buffer", lambda buf, i: buf.copy_from(mx.full(buf.shape, i, dtype=mx.float32))),
        "write(cpu)": ("buffer", lambda buf, i: buf.write(cpu, lambda h: h.fill(i), "test")),
        "write(mlx)": ("buffer", lambda buf, i: buf.write(on_mlx, lambda m: m.__setitem__(Ellipsis, i), "test")),
        "buf.host[...] = v": ("buffer", lambda buf, i: buf.host.__setitem__(Ellipsis, i)),
        "buf.mlx[...] = v": ("buffer", lambda buf, i: buf.mlx.__setitem__(Ellipsis, float(i))),
        "x[...] = v": ("array", lambda x, i: x.__setitem__(Ellipsis, float(i))),
        "x *= 0; x += v": ("array", lambda x, i: (x.__imul__(0.0), x.__iadd__(float(i)))),
        "np.multiply(x, 0, out=x); np.add(x, v, out=x)": (
            "array",
            lambda x, i: (np.multiply(x, 0.0, out=x), np.add(x, float(i), out=x)),
        ),
        "np.copyto(x, v)": ("array", lambda x, i: np.copyto(x, np.full(x.shape, i, np.float32))),
    }


#: 8 MiB: NumPy lets go of the GIL while it copies that much, so the
#: reader's move runs in the middle of a write made outside the lock.
LARGE = 1 << 21


@pytest.mark.parametrize("placement", ["cpu", "mlx"])
@pytest.mark.parametrize("name", list(_writes()))
def test_a_write_is_never_moved_to_another_device_half_done(name, placement):
    """The reader keeps moving the copy to the device the writer does not
    write: a write whose data lands after the buffer's lock is released
    (``copy_from`` of a NumPy array did so) lets that move copy the old
    data and mark it current, and the next read there is stale."""
    target, write = _writes()[name]
    other = "mlx" if placement == "cpu" else "cpu"
    x = xp.zeros(LARGE, dtype=xp.float32, device=placement)
    buf = x.buffer
    of = buf if target == "buffer" else x
    stop = threading.Event()

    def reader() -> None:
        while not stop.is_set():
            buf.read(other)

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    try:
        stale = []
        for i in range(1, 13):
            write(of, i)
            got = mlx_values(buf.read(other))
            if got.min() != i or got.max() != i:
                stale.append((i, float(got.min()), float(got.max())))
    finally:
        stop.set()
        thread.join(60)
    assert not stale, f"{name}: read back on {other} (written, min, max): {stale}"


@pytest.mark.parametrize("placement", ["cpu", "mlx"])
def test_a_reader_taking_no_lock_never_sees_data_older_than_the_last_write(placement):
    """``copy_from`` of a whole array into the placement's stale copy: the
    buffer once marked that copy current (``ready``, ``host_ready``, the
    valid set) before the data was there, so ``float(x[-1])`` (the fast
    path, which takes no lock) in another thread read its old data, older
    than the write that had returned before (found by a fresh hunt)."""
    import mlx.core as mx

    x = xp.zeros(LARGE, dtype=xp.float32, device=placement)
    buf = x.buffer

    def elsewhere(v):  # a write that leaves the placement's copy stale
        return mx.full((LARGE,), v, dtype=mx.float32) if placement == "cpu" else np.full(LARGE, v, np.float32)

    def at_home(v):  # then all of the placement's stale copy overwritten
        return np.full(LARGE, v, np.float32) if placement == "cpu" else mx.full((LARGE,), v, dtype=mx.float32)

    allowed: list = [None]
    stop = threading.Event()
    stale: list = []

    def reader() -> None:
        while not stop.is_set():
            now = allowed[0]
            if now is None:
                continue
            v = float(x[-1])
            if allowed[0] is now and v not in now:
                stale.append((now, v))

    thread = threading.Thread(target=reader, daemon=True)
    with switching_often():
        thread.start()
        try:
            for i in range(1, 31):
                old, new = 10.0 * i + 1, 10.0 * i + 2
                buf.copy_from(elsewhere(old))  # returned: old is the data everywhere
                src = at_home(new)
                allowed[0] = (old, new)  # a read meanwhile sees either, never older
                buf.copy_from(src)
                allowed[0] = None
        finally:
            stop.set()
            thread.join(60)
    assert not stale, f"read (allowed, got): {stale[:4]}"


@pytest.mark.parametrize("placement", ["cpu", "mlx"])
@pytest.mark.parametrize(
    "form", ["np.add(x, 0.0, out=x, where=mask)", "np.copyto(x, src, where=mask)", "np.putmask(x, mask, src)"]
)
def test_a_numpy_write_never_undoes_another_threads_write_to_an_element_it_leaves_alone(form, placement):
    """A NumPy call that writes part of x (a mask) is run on a host copy of
    x, copied back whole: a write by another thread to an element outside
    the mask, made between the copy and the copy back, was undone (found by
    a fresh hunt).  NumPy never touches those elements."""
    x = xp.zeros(LARGE, dtype=xp.float32, device=placement)
    mask = np.zeros(LARGE, bool)
    mask[: LARGE // 2] = True  # never the last element
    src = np.ones(LARGE, np.float32)
    call = eval(f"lambda: {form}", {"np": np, "x": x, "mask": mask, "src": src})
    stop = threading.Event()

    def masked() -> None:
        while not stop.is_set():
            call()

    thread = threading.Thread(target=masked, daemon=True)
    thread.start()
    lost = []
    try:
        for i in range(1, 21):
            x[-1] = float(i)
            time.sleep(0.02)  # a masked call that began after the write has ended
            if float(x[-1]) != i:
                lost.append(i)
    finally:
        stop.set()
        thread.join(60)
    assert not lost, f"{form}: writes to x[-1] undone: {lost}"


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


# -- (d) the lock order: no two threads ever wait for each other ----------------------------------


@contextlib.contextmanager
def switching_often() -> Iterator[None]:
    """Threads switched every 10 us (Python's default is 5 ms): a window
    between two lock acquisitions is met within a fraction of a second."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def finish_together(seconds: float, *loops: Callable[[Callable[[], bool]], None], limit: float = 20.0) -> None:
    """:func:`run_together`, failing (not hanging) within ``limit`` seconds
    where threads wait for each other: the hung threads' stacks in the
    message.  A deadlock ends the session (``pytest.exit``): the hung
    threads keep the library's locks (the evaluation lock among them), so
    every later MLX test would hang."""
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
    end = time.monotonic() + seconds + limit
    for t in threads:
        t.join(max(0.0, end - time.monotonic()))
    hung = [t for t in threads if t.is_alive()]
    if hung:
        frames = sys._current_frames()
        stacks = "\n".join(
            f"{t.name}:\n{''.join(traceback.format_stack(frames[t.ident]))}" for t in hung if t.ident in frames
        )
        pytest.exit(f"{len(hung)} of {len(threads)} threads never finished (a deadlock):\n{stacks}", returncode=1)
    if failures:
        raise failures[0]


def test_a_lease_write_of_an_array_never_deadlocks_with_that_arrays_lease_in_another_thread():
    """Issue 33, item 6: ``m[0:2] = u`` through an MLX lease, ``u`` a
    UnifiedArray, against ``u.buffer.mlx`` in another thread.  MLX converted
    ``u`` itself (its ``__dlpack__``, taking u's buffer lock) under the
    evaluation lock; the lease took u's buffer lock, then the evaluation
    lock: each thread waited for the other's (within 0.2 s at this switch
    interval).  The operand is resolved first now."""
    x = xp.zeros(4, device="mlx")
    u = xp.asarray(np.ones(2, np.float32), device="mlx")
    w = xp.asarray(np.ones(4, np.float32), device="mlx")
    m = x.buffer.mlx

    def writer(running):
        while running():
            m[0:2] = u  # u's MLX copy may be stale: reading it takes u's lock
            assert m.__imul__(w) is m  # m *= w: an in-place operator's operand, the same

    def leaser(running):
        while running():
            for v in (u, w):
                v.buffer.copy_from(np.ones(v.shape, np.float32))  # the host copy the only current one
                assert v.buffer.mlx.tolist() == [1.0] * v.size  # v's lock, then the evaluation lock

    with switching_often():
        finish_together(min(SECONDS, 1.0), writer, leaser)
    assert np.asarray(x).tolist() == [1.0, 1.0, 0.0, 0.0]


class _Shared:
    """What the lock-pair workloads share: two MLX arrays (every write
    writes every element, so a read of either is uniform), a memory pool."""

    def __init__(self) -> None:
        self.a = xp.zeros(8, device="mlx")
        self.b = xp.ones(8, device="mlx")
        self.pool = xp.MemoryPool()


def uniform(values) -> float:
    """The one value of every element (a read that makes no host alias,
    which would refuse the other threads' leases)."""
    got = (values.to_numpy() if isinstance(values, xp.UnifiedArray) else np.asarray(values)).tolist()
    assert len(set(got)) == 1, f"torn: {got}"
    return got[0]


def _buffer_lock_of(mine: str, other: str) -> Callable[[_Shared], Callable[[Callable[[], bool]], None]]:
    """Writes into one shared array (its buffer's lock, then the evaluation
    lock): through a lease, with the other array as the value (its buffer's
    lock, taken before the evaluation lock), through the array, and on the
    host (so that the other's lease write of it moves it, under its lock);
    reads of both."""

    def make(s: _Shared) -> Callable[[Callable[[], bool]], None]:
        def loop(running):
            k = 0
            x, y = getattr(s, mine), getattr(s, other)
            while running():
                k += 1
                h = x.buffer.mlx
                h[...] = y
                h += 1.0
                h[...] = float(k)
                del h
                x[...] = float(k)
                x.buffer.copy_from(np.full(8, float(k), np.float32))  # on the host: the other's lease write uploads it
                uniform(y)
                uniform(x)

        return loop

    return make


def _evaluation(s: _Shared) -> Callable[[Callable[[], bool]], None]:
    """MLX evaluations (the evaluation lock) of an array of this thread's:
    lease writes, reads, ``float()``, reductions, a graph built inside the
    compute context; and reads of the shared arrays."""
    import mlx.core as mx

    from unifiedarray.backends import mlx_evaluation

    base = mx.arange(8, dtype=mx.float32)
    mx.eval(base)

    def loop(running):
        c = xp.zeros(8, device="mlx")
        k = 0
        while running():
            k += 1
            c[...] = float(k)
            h = c.buffer.mlx
            h += 1.0  # lost where the lease ends first (a memory limit's spill): k or k + 1
            del h
            assert uniform(c) in (k, k + 1)
            c[...] = float(k)
            assert float(c[3]) == k
            assert float(xp.sum(c * 0.5)) == 4.0 * k
            with mlx_evaluation.compute_context():
                g = (base + k).sum()
            mlx_evaluation.evaluate(g)
            assert g.item() == float((np.arange(8) + k).sum())
            uniform(s.a + 0.0)
            uniform(s.b)

    return loop


def _pool_lock(s: _Shared) -> Callable[[Callable[[], bool]], None]:
    """A memory pool's acquire and release (its lock, under a buffer's),
    host and MLX buffers read on MLX (the evaluation lock)."""

    def loop(running):
        k = 0
        while running():
            k += 1
            for device in ("cpu", "mlx"):
                buf = s.pool.acquire((8,), np.float32, device=device)
                buf.fill(float(k))
                assert np.array(buf.read("mlx")).tolist() == [float(k)] * 8
                buf.copy_from(s.a.to_numpy())
                uniform(buf.to_numpy())
                s.pool.release(buf)
            assert s.pool.stats()["acquires"] >= k

    return loop


def _spill_tracker(s: _Shared) -> Callable[[Callable[[], bool]], None]:
    """Device copies made under a memory limit (the spill tracker's lock;
    its evictions spill other buffers: their locks tried, the evaluation
    lock taken), the shared arrays' among them."""

    def loop(running):
        k = 0
        while running():
            k += 1
            made = [xp.asarray(np.full(8, float(k + j), np.float32), device="mlx") * 1.0 for j in range(4)]
            for j, r in enumerate(made):
                assert float(xp.sum(r)) == 8.0 * (k + j)
            uniform(s.a * 1.0)
            uniform(s.b)

    return loop


#: One workload per lock of the library (see mlx_evaluation, "Lock order"),
#: each taking it as the library does, with the others it is taken with.
LOCK_WORKLOADS: dict[str, Callable[[_Shared], Callable[[Callable[[], bool]], None]]] = {
    "buffer lock of a": _buffer_lock_of("a", "b"),
    "buffer lock of b": _buffer_lock_of("b", "a"),
    "evaluation lock": _evaluation,
    "pool lock": _pool_lock,
    "spill tracker lock": _spill_tracker,
}


@pytest.mark.parametrize(("first", "second"), list(itertools.combinations(LOCK_WORKLOADS, 2)))
def test_every_pair_of_the_librarys_locks_in_threads_finishes_with_right_values(first, second):
    """Two threads per lock of the pair (four in all), for a bounded time,
    switched often: every thread finishes (no two wait for each other) and
    every value read is right (uniform, and each thread's own exact)."""
    from unifiedarray import _spill
    from unifiedarray.backends import mlx_evaluation

    s = _Shared()
    loops = [LOCK_WORKLOADS[name](s) for name in (first, second) for _ in range(2)]
    limited = "spill tracker lock" in (first, second)
    try:
        if limited:
            _spill.set_device_memory_limit("mlx", 3 * 8 * 4)  # three arrays of eight float32s
        with switching_often():
            finish_together(min(SECONDS, 2.0) / 4, *loops)
    finally:
        _spill.set_device_memory_limit("mlx", None)
    s.a[...] = 5.0
    s.b.buffer.mlx[...] = 6.0
    assert in_thread(lambda: (s.a.tolist(), np.asarray(s.b).tolist())) == ([5.0] * 8, [6.0] * 8)
    assert s.pool.stats()["bytes_in_use"] == 0
    assert not mlx_evaluation.EVAL_LOCK._is_owned()
