"""The transfer ledger and the transfer guard."""

from __future__ import annotations

import asyncio
import logging
import threading

import numpy as np
import pytest

import unifiedarray as ua
from unifiedarray import UnifiedBuffer

from .conftest import needs_mlx

pytestmark = needs_mlx


def test_ledger_counts_a_workload_at_the_minimum():
    # By hand: write on the host (0), read on MLX (1 up), read again (0),
    # write through MLX (0: MLX was current), read on the host (1 down),
    # fill (0), read on MLX (1 up).  Three moves, 3 * 800 bytes.
    with ua.track_transfers() as t:
        buf = UnifiedBuffer((100,), dtype=np.float64)
        buf.host[:] = 1.0
        buf.read("mlx")
        buf.read("mlx")
        buf.mlx[0] = 2.0
        buf.to_numpy()
        buf.fill(3.0)
        buf.read("mlx")
    assert t.count == 3
    assert t.nbytes == 3 * 800
    directions = [r.direction for r in t.records]
    assert directions == ["host_to_device", "device_to_host", "host_to_device"]
    assert all(r.seconds >= 0 and not r.explicit for r in t.records)


def test_explicit_moves_are_marked_and_reasons_named():
    buf = UnifiedBuffer((10,), dtype=np.float32)
    buf.fill(1.0)
    with ua.track_transfers() as t:
        buf.sync_to_device("mlx")
        _ = buf.mlx  # a lease: counted as a write, moves nothing
        buf.sync_to_host()
    assert [(r.reason, r.explicit) for r in t.records] == [("sync_to_device", True), ("sync_to_host", True)]
    text = t.report()
    assert "sync_to_device" in text and "explicit" in text and "total" in text


def test_nested_ledgers_and_process_totals():
    before = ua.transfer_totals.snapshot()
    buf = UnifiedBuffer((8,))
    buf.fill(1.0)
    with ua.track_transfers() as outer:
        buf.read("mlx")
        with ua.track_transfers() as inner:
            buf.host[0] = 2.0
            buf.read("mlx")
    assert (outer.count, inner.count) == (2, 1)
    assert ua.transfer_totals.snapshot()[0] - before[0] == 2


def test_array_operations_count_their_moves():
    x = ua.asarray(np.arange(4.0))
    y = ua.asarray(np.arange(4.0), device="mlx")
    with ua.track_transfers() as t:
        z = x + y  # equal sizes: the first operand's device wins; y moves down
    assert z.device == "cpu"
    assert t.count == 1 and t.records[0].direction == "device_to_host"
    assert t.records[0].reason == "add"


def test_mixed_devices_move_the_smaller_operand():
    big = ua.asarray(np.ones((100, 10)), device="mlx")
    small = ua.asarray(np.ones(10))
    with ua.track_transfers() as t:
        out = small * big
    assert out.device == "mlx"
    assert t.count == 1 and t.records[0].nbytes == 80


# -- the guard ---------------------------------------------------------------


def test_disallow_raises_on_implicit_moves_naming_what_and_how_much():
    buf = UnifiedBuffer((4,), dtype=np.float64)
    buf.fill(1.0)
    with ua.transfer_guard("disallow"):
        with pytest.raises(ua.TransferError, match=r"host_to_device move of 32 bytes.*UnifiedBuffer\.read"):
            buf.read("mlx")
        buf.sync_to_device("mlx")  # explicit: always allowed
        assert buf.state is ua.BufferState.SYNCHRONIZED


def test_disallowed_move_leaves_buffer_intact():
    buf = UnifiedBuffer((4,))
    buf.mlx[0] = 5.0
    with ua.transfer_guard(device_to_host="disallow"), pytest.raises(ua.TransferError):
        buf.to_numpy()
    assert buf.state is ua.BufferState.DEVICE_ONLY  # no half-made host copy left behind
    assert buf.to_numpy()[0] == 5.0


def test_mixing_devices_under_disallow_raises():
    x = ua.asarray(np.ones(3))
    y = ua.asarray(np.ones(3), device="mlx")
    with ua.transfer_guard("disallow"):
        with pytest.raises(ua.TransferError):
            x + y
        (y.to_device("cpu") + x)  # explicit to_device, then same-device work: fine


def test_mixing_devices_under_disallow_raises_even_when_nothing_would_move():
    big = ua.ones(100, device="mlx")
    small = ua.asarray(np.ones(1))
    _ = big + small  # small now has a current MLX copy too
    with ua.track_transfers() as t, ua.transfer_guard("disallow"):
        for mixed in (lambda: big + small, lambda: ua.where(big > 0, big, small), lambda: np.add(big, small)):
            with pytest.raises(ua.TransferError, match="host_to_device move of 8 bytes from cpu to mlx"):
                mixed()
    assert t.count == 0
    # Only the direction the smaller operand would move in is asked.
    with ua.transfer_guard(device_to_host="disallow"):
        assert (big + small).device == "mlx"
    with ua.transfer_guard(host_to_device="disallow"), pytest.raises(ua.TransferError):
        big + small


def test_per_direction_setting():
    buf = UnifiedBuffer((4,))
    buf.fill(0.0)
    with ua.transfer_guard("disallow", host_to_device="allow"):
        buf.read("mlx")
        _ = buf.mlx
        with pytest.raises(ua.TransferError):
            buf.to_numpy()


def test_log_level_logs(caplog):
    buf = UnifiedBuffer((4,))
    buf.fill(0.0)
    with caplog.at_level(logging.WARNING, logger="unifiedarray.transfers"), ua.transfer_guard("log"):
        buf.read("mlx")
    assert "implicit host_to_device move of 16 bytes" in caplog.text


def test_bad_level_is_value_error():
    with pytest.raises(ValueError), ua.transfer_guard("maybe"):
        pass


def test_guard_is_per_thread():
    seen = {}
    ready = threading.Event()
    done = threading.Event()

    def other():
        ready.wait()
        buf = UnifiedBuffer((2,))
        buf.fill(1.0)
        buf.read("mlx")  # this thread has no guard
        seen["other"] = "ok"
        done.set()

    t = threading.Thread(target=other)
    t.start()
    with ua.transfer_guard("disallow"):
        ready.set()
        done.wait(10)
        buf = UnifiedBuffer((2,))
        buf.fill(1.0)
        with pytest.raises(ua.TransferError):
            buf.read("mlx")
    t.join()
    assert seen == {"other": "ok"}


def test_guard_and_ledger_are_per_asyncio_task():
    async def guarded():
        with ua.transfer_guard("disallow"):
            await asyncio.sleep(0.01)
            buf = UnifiedBuffer((2,))
            buf.fill(1.0)
            with pytest.raises(ua.TransferError):
                buf.read("mlx")
            await asyncio.sleep(0.01)

    async def free():
        with ua.track_transfers() as t:
            await asyncio.sleep(0.005)
            buf = UnifiedBuffer((2,))
            buf.fill(1.0)
            buf.read("mlx")
            await asyncio.sleep(0.01)
        return t.count

    async def main():
        _, count = await asyncio.gather(guarded(), free())
        return count

    assert asyncio.run(main()) == 1


def test_default_device_context_and_global():
    assert ua.get_default_device() == "cpu"
    with ua.default_device("mlx"):
        assert ua.zeros(2).device == "mlx"
        assert ua.zeros(2, device="cpu").device == "cpu"  # explicit device= wins
    assert ua.zeros(2).device == "cpu"
    ua.set_default_device("mlx")
    try:
        assert ua.ones(1).device == "mlx"
    finally:
        ua.set_default_device("cpu")
    with pytest.raises(ValueError):
        ua.set_default_device("cuda:7")
