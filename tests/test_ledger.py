"""The bounded transfer ledger: exact totals, a ring of records, timelines."""

from __future__ import annotations

import contextvars
import copy
import json
import logging
import threading
import time
import tracemalloc
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import unifiedarray as ua
from unifiedarray import UnifiedBuffer
from unifiedarray._ledger import TransferLedger, TransferRecord, copy_out, transfer

from .conftest import DEVICES, needs_mlx


def _stale_reads(sizes: list[int]) -> None:
    """One host->MLX move per size (a host write, then an MLX read)."""
    for n in sizes:
        buf = UnifiedBuffer((n,), dtype=np.float32)
        buf.host[:] = 1.0
        buf.read("mlx")


@needs_mlx
def test_ring_keeps_the_last_records_and_totals_stay_exact():
    sizes = list(range(1, 13))
    with ua.track_transfers(max_records=5) as t:
        _stale_reads(sizes)
        buf = UnifiedBuffer((3,), dtype=np.float64)
        buf.fill(1.0)
        buf.sync_to_device("mlx")  # one explicit move, the 13th
    assert t.count == 13
    assert t.nbytes == 4 * sum(sizes) + 24
    assert t.dropped == 8
    assert [r.nbytes for r in t.records] == [4 * n for n in sizes[-4:]] + [24]
    by_reason = t.by_reason()
    assert by_reason[("UnifiedBuffer.read", "host_to_device", False)][:2] == (12, 4 * sum(sizes))
    assert by_reason[("sync_to_device", "host_to_device", True)][:2] == (1, 24)
    assert t.by_direction()["host_to_device"][:2] == (13, 4 * sum(sizes) + 24)
    assert "8 dropped" in t.report()


@needs_mlx
def test_unbounded_and_totals_only_ledgers():
    with ua.track_transfers(max_records=None) as every, ua.track_transfers(max_records=0) as none:
        _stale_reads([2] * 30)
    assert (every.count, len(every.records), every.dropped) == (30, 30, 0)
    assert (none.count, none.nbytes, len(none.records), none.dropped) == (30, 240, 0, 30)


def test_max_records_is_checked():
    with pytest.raises(ValueError, match="max_records"):
        TransferLedger(max_records=-1)
    with pytest.raises(TypeError):
        TransferLedger(max_records=2.5)  # type: ignore[arg-type]


def test_clear_forgets_records_and_totals():
    led = TransferLedger()
    led.add(TransferRecord("cpu", "mlx", 8, 1e-6, "x", False))
    led.clear()
    assert (led.count, led.nbytes, led.seconds, led.records, led.dropped) == (0, 0, 0.0, [], 0)


_records = st.lists(
    st.builds(
        TransferRecord,
        source=st.sampled_from(["cpu", "mlx", "cuda:0"]),
        target=st.sampled_from(["cpu", "mlx", "cuda:0"]),
        nbytes=st.integers(0, 1 << 40),
        seconds=st.floats(0, 1),
        reason=st.sampled_from(["add", "read", "sync_to_host"]),
        explicit=st.booleans(),
    ),
    max_size=60,
)


@given(records=_records, max_records=st.one_of(st.none(), st.integers(0, 20)))
@settings(max_examples=150, deadline=None)
def test_totals_are_exact_and_the_ring_is_the_tail(records, max_records):
    led = TransferLedger(max_records)
    for r in records:
        led.add(r)
    keep = len(records) if max_records is None else min(max_records, len(records))
    assert led.records == records[len(records) - keep :]
    assert (led.count, led.nbytes, led.dropped) == (len(records), sum(r.nbytes for r in records), len(records) - keep)
    expected: dict = {}
    for r in records:
        row = expected.setdefault((r.reason, r.direction, r.explicit), [0, 0])
        row[0] += 1
        row[1] += r.nbytes
    assert {k: v[:2] for k, v in led.by_reason().items()} == {k: tuple(v) for k, v in expected.items()}


def test_memory_stays_bounded_over_many_moves():
    # 200,000 moves through the real recording path: an unbounded ledger
    # would grow by about 30 MB; a ring of 1,000 holds about 150 KB once full
    # and must not grow after that.
    def moves(n: int) -> None:
        for _ in range(n):
            with transfer("cpu", "mlx", 64, "bounded", guarded=False):
                pass

    with ua.track_transfers(max_records=1000) as t:
        tracemalloc.start()
        try:
            base = tracemalloc.get_traced_memory()[0]
            moves(20_000)
            full = tracemalloc.get_traced_memory()[0]
            moves(180_000)
            after = tracemalloc.get_traced_memory()[0]
        finally:
            tracemalloc.stop()
    assert t.count == 200_000 and len(t.records) == 1000 and t.dropped == 199_000
    assert t.nbytes == 64 * 200_000
    assert full - base < 1000 * 300, f"a ring of 1,000 records took {full - base} bytes"
    assert after - full < 16 * 1024, f"the full ledger grew by {after - full} bytes over 180,000 moves"


def test_moves_from_threads_sharing_a_ledger_are_all_counted():
    # Copied contexts carry the ledger into other threads; its totals must
    # still be exact when they record at once.
    per_thread = 5000
    with ua.track_transfers(max_records=100) as t:
        contexts = [contextvars.copy_context() for _ in range(4)]

        def work() -> None:
            for _ in range(per_thread):
                with transfer("cpu", "mlx", 8, "threaded", guarded=False):
                    pass

        threads = [threading.Thread(target=ctx.run, args=(work,)) for ctx in contexts]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
    assert (t.count, t.nbytes, len(t.records)) == (4 * per_thread, 32 * per_thread, 100)
    assert len({r.thread for r in t.records}) >= 1


@needs_mlx
def test_chrome_trace_holds_the_moves(tmp_path):
    with ua.track_transfers() as t:
        _stale_reads([10, 20])
        x = ua.asarray(np.arange(5.0), device="mlx")
        _ = x + ua.asarray(np.arange(5.0))  # one implicit move for the mixed operands
    path = tmp_path / "moves.json"
    returned = t.to_chrome_trace(path)
    trace = json.loads(path.read_text())
    assert trace == returned
    moves = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert len(moves) == t.count == len(t.records)
    for ev, r in zip(moves, t.records, strict=True):
        assert (ev["name"], ev["cat"], ev["args"]["bytes"]) == (r.reason, r.direction, r.nbytes)
        assert ev["dur"] >= 0 and ev["ts"] >= 0
    assert [e["ts"] for e in moves] == sorted(e["ts"] for e in moves)
    assert trace["otherData"]["moves"] == t.count and trace["otherData"]["bytes"] == t.nbytes
    assert any(e["ph"] == "M" and e["name"] == "thread_name" for e in trace["traceEvents"])


@needs_mlx
def test_plot_draws_the_moves(tmp_path):
    pytest.importorskip("matplotlib")
    with ua.track_transfers(max_records=2) as t:
        _stale_reads([4, 8, 16])
    path = tmp_path / "moves.png"
    fig = t.plot(path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    top, bottom = fig.axes
    assert "dropped" in top.get_title()
    assert len(bottom.patches) == 1 and bottom.patches[0].get_width() == 4 * 28


# -- what the ledger charges: copies, not the waits before them; nothing for no bytes --


def _slow_mlx_results(n: int) -> list:
    """``n`` 0-d MLX results of a lazy graph that takes a while to evaluate."""
    a = ua.asarray(np.random.default_rng(0).standard_normal((300, 300)), device="mlx")  # float64: 8-byte reads
    out = []
    for i in range(n):
        b = a
        for _ in range(4):
            b = (b @ a) / 300.0
        out.append(ua.sum(b) + i)
    return out


@needs_mlx
def test_waiting_for_mlx_evaluation_is_recorded_apart_from_the_copy():
    """Issue 20: ten 8-byte ``float()`` reads were charged 232 ms of
    transfer time: the wait for MLX's lazy evaluation was booked as the copy."""
    results = _slow_mlx_results(10)
    with ua.track_transfers() as t:
        values = [float(r) for r in results]
    assert len(values) == 10 and t.count == 10 and t.nbytes == 80
    for r in t.records:
        assert r.nbytes == 8 and r.wait > 0
    assert t.wait_seconds > 0.01  # the graphs' evaluation is there ...
    assert t.seconds < t.wait_seconds / 5  # ... and the copies of 8 bytes are not charged for it
    text = t.report()
    assert "wait ms" in text.splitlines()[0]
    events = t.to_chrome_trace()["traceEvents"]
    waits = [e for e in events if e.get("cat") == "wait"]
    copies = [e for e in events if e.get("cat") == "device_to_host"]
    assert len(waits) == len(copies) == 10
    for w, c in zip(waits, copies, strict=True):
        assert w["ts"] + w["dur"] == pytest.approx(c["ts"], abs=1.0)  # the wait ends where the copy begins


def test_copy_out_is_a_transfer_block_in_one_call():
    """copy_out (a scalar read's move) is judged and recorded as the block
    it stands for: the guard first, before the read; the read, which waits
    for the source itself, timed as the move's wait; a move that raises, or
    moves no byte, unrecorded."""
    calls = []

    def read_first(native):  # waits for the source itself, then copies
        calls.append("read")
        time.sleep(0.01)
        return native[0]

    with ua.track_transfers() as t:
        before = ua.transfer_totals.snapshot()
        assert copy_out("mlx", 8, "float()", read_first, [2.5]) == 2.5
        with ua.transfer_guard(device_to_host="disallow"), pytest.raises(ua.TransferError, match="8 bytes from mlx"):
            copy_out("mlx", 8, "float()", read_first, [2.5])
        with pytest.raises(IndexError):  # a read that fails (an evaluation) moves nothing
            copy_out("mlx", 8, "float()", read_first, [])
        with ua.transfer_guard("disallow"):
            assert copy_out("mlx", 0, "float()", read_first, [1.0]) == 1.0  # nothing to judge
        after = ua.transfer_totals.snapshot()
    assert calls == ["read"] * 3  # the forbidden one never read
    calls.clear()
    (record,) = t.records
    assert (record.source, record.target, record.nbytes, record.reason) == ("mlx", "cpu", 8, "float()")
    assert not record.explicit
    assert record.wait >= 0.01 and record.seconds == 0.0
    assert (after[0] - before[0], after[1] - before[1]) == (1, 8)
    # With no ledger open (no clock read), a move is counted all the same,
    # and still judged first.
    assert copy_out("mlx", 8, "float()", read_first, [3.5]) == 3.5
    with ua.transfer_guard(device_to_host="disallow"), pytest.raises(ua.TransferError):
        copy_out("mlx", 8, "float()", read_first, [3.5])
    with pytest.raises(IndexError):
        copy_out("mlx", 8, "float()", read_first, [])
    assert ua.transfer_totals.snapshot() == (after[0] + 1, after[1] + 8)
    assert calls == ["read"] * 2


def test_copy_out_logs_a_move_the_guard_logs_with_or_without_a_ledger(caplog):
    """The guard is skipped only at its default (every move allowed): a
    level that logs is asked for every move, with no ledger open too."""
    with caplog.at_level(logging.WARNING, logger="unifiedarray.transfers"), ua.transfer_guard(device_to_host="log"):
        assert copy_out("mlx", 8, "float()", lambda native: native[0], [1.5]) == 1.5
        with ua.track_transfers():
            assert copy_out("mlx", 8, "float()", lambda native: native[0], [2.5]) == 2.5
    logged = [r.getMessage() for r in caplog.records if "8 bytes from mlx to cpu in float()" in r.getMessage()]
    assert len(logged) == 2


def test_a_zero_byte_move_is_no_move():
    led = TransferLedger()
    with ua.track_transfers() as t:
        with transfer("mlx", "cpu", 0, "demo"):
            pass
        with ua.transfer_guard("disallow"), transfer("cpu", "mlx", 0, "demo"):
            pass  # the guard has nothing to judge
    assert t.count == 0 and t.records == [] and led.count == 0


_EMPTY_SHAPES = st.sampled_from([(0,), (0, 3), (3, 0), (2, 0, 2)])
_WORKLOADS = {
    "np.real": lambda x: np.real(x),
    "np.imag": lambda x: np.imag(x),
    "np.sort kind=": lambda x: np.sort(x, axis=-1, kind="stable"),
    "np.asarray": lambda x: np.asarray(x),
    "to cpu": lambda x: x.to_device("cpu"),
    "tolist": lambda x: x.tolist(),
    "np.median": lambda x: np.median(x, axis=-1),
    "copy": lambda x: x.copy(),
    "add": lambda x: x + 1,
}


@pytest.mark.parametrize("device", DEVICES)
@given(shape=_EMPTY_SHAPES, names=st.lists(st.sampled_from(sorted(_WORKLOADS)), min_size=1, max_size=4))
@settings(max_examples=40, deadline=None)
def test_no_record_has_zero_bytes(device, shape, names):
    """Issue 20: ``host fallback: numpy.real/imag`` on an xarray-over-dask
    mean recorded 3 moves of 0 B.  Whatever runs on arrays with no elements,
    on whichever device, no record of 0 bytes appears."""
    x = ua.asarray(np.zeros(shape), device=device)
    with ua.track_transfers() as t, warnings.catch_warnings():
        # NumPy warns about the means and variances of empty arrays (NaN): the records are the point here
        warnings.simplefilter("ignore", RuntimeWarning)
        for name in names:
            _WORKLOADS[name](x)
    assert all(r.nbytes > 0 for r in t.records), [(r.reason, r.nbytes) for r in t.records]
    assert t.count == len(t.records)  # every move counted is a kept record, none of 0 B


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "how",
    [copy.copy, copy.deepcopy, np.copy, lambda x: x.copy(), lambda x: copy.deepcopy({"k": [x]})["k"][0]],
    ids=["copy.copy", "copy.deepcopy", "np.copy", "x.copy", "deepcopy nested"],
)
def test_copies_of_an_array_stay_on_its_device(device, how):
    """Issue 20: ``copy.deepcopy(u)`` of an MLX array was a host round trip
    (a 24,576 B move, reason ``unpickle``); ``np.copy(u)`` on MLX too."""
    host = np.arange(3072, dtype=np.float64).reshape(48, 64)
    x = ua.asarray(host, device=device)
    with ua.track_transfers() as t:
        y = how(x)
    assert t.count == 0, [(r.reason, r.nbytes) for r in t.records]
    assert type(y) is ua.UnifiedArray and y is not x and y.device == x.device and y.dtype == x.dtype
    y[0, 0] = -1.0  # a copy: its writes do not reach the original
    assert float(x[0, 0]) == 0.0 and np.array_equal(np.asarray(y)[1:], host[1:])
