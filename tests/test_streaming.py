"""``prefetch`` (``unifiedarray/_streaming.py``): host batches come out as
arrays on the device, in order, with their values, dtypes and shapes, up to
``depth - 1`` batches ahead; every move is explicit and counted; nothing is
pinned for the host, and no pinned copy is kept on CUDA."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

import unifiedarray as xp

from .conftest import DEVICES

BATCHES = [
    np.arange(6, dtype=np.float32).reshape(2, 3),
    np.full((2, 3), -1.5, dtype=np.float32),
    np.zeros((2, 3), dtype=np.float32),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("depth", [1, 2, 5])
def test_batches_come_out_on_the_device_in_order_with_their_data(device, depth):
    out = list(xp.prefetch(iter(BATCHES), device=device, depth=depth))
    assert len(out) == len(BATCHES)
    for got, batch in zip(out, BATCHES, strict=True):
        assert got.device == device
        assert got.dtype == batch.dtype and got.shape == batch.shape
        np.testing.assert_array_equal(np.asarray(got), batch)


@pytest.mark.parametrize("device", DEVICES)
def test_prefetch_takes_other_host_data_as_numpy_reads_it(device):
    batches = [[1, 2, 3], (4.0, 5.0), np.int16(7)]
    out = list(xp.prefetch(batches, device=device))
    for got, batch in zip(out, batches, strict=True):
        expected = np.asarray(batch)
        assert got.dtype == expected.dtype and got.shape == expected.shape
        assert got.tolist() == expected.tolist()


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_prefetch_reads_at_most_depth_batches_ahead(depth):
    taken: list[int] = []

    def batches() -> Iterator[np.ndarray]:
        for i in range(6):
            taken.append(i)
            yield np.full(2, float(i))

    stream = xp.prefetch(batches(), device="cpu", depth=depth)
    for i, batch in enumerate(stream):
        # when batch i is handed over, batches i .. i + depth - 1 have been read (where there are so many)
        assert len(taken) == min(i + depth, 6)
        assert batch.tolist() == [float(i)] * 2


def test_nothing_is_read_before_the_first_batch_is_asked_for():
    taken: list[int] = []

    def batches() -> Iterator[np.ndarray]:
        taken.append(0)
        yield np.zeros(2)

    stream = xp.prefetch(batches(), device="cpu")
    assert taken == []
    assert [b.tolist() for b in stream] == [[0.0, 0.0]]


@pytest.mark.parametrize("device", DEVICES)
def test_every_move_is_explicit_and_counted_once_per_batch(device):
    with xp.track_transfers() as t:
        out = list(xp.prefetch(iter(BATCHES), device=device))
        for x in out:
            xp.sum(x)  # computing on the device moves nothing more
    if xp.Device.parse(device).is_host:
        assert t.count == 0
    else:
        assert t.count == len(BATCHES)
        assert all(r.explicit and r.direction == "host_to_device" for r in t.records)


@pytest.mark.parametrize("depth", [0, -1])
def test_depth_below_one_is_a_value_error(depth):
    with pytest.raises(ValueError, match="depth"):
        next(xp.prefetch(iter(BATCHES), device="cpu", depth=depth))


def test_an_empty_stream_gives_nothing():
    assert list(xp.prefetch(iter([]), device="cpu")) == []


def test_the_default_device_is_the_current_default():
    with xp.default_device(DEVICES[-1]):
        (x,) = xp.prefetch([np.ones(2)])
    assert x.device == DEVICES[-1]


@pytest.mark.cuda
def test_prefetch_pins_nothing_for_the_host_and_keeps_no_pinned_copy():
    batches = [np.full(1024, i, np.float32) for i in range(4)]
    on_host = list(xp.prefetch(iter(batches), device="cpu"))
    assert [float(b[0]) for b in on_host] == [0.0, 1.0, 2.0, 3.0]
    assert not any(b.buffer.pinned for b in on_host)
    on_gpu = list(xp.prefetch(iter(batches), device="cuda:0"))  # all held at once
    with xp.track_transfers() as t:
        assert [float(b[-1]) for b in on_gpu] == [0.0, 1.0, 2.0, 3.0]
    assert not any(b.buffer.is_pinned for b in on_gpu)
    assert all(b.device == "cuda:0" for b in on_gpu) and t.count == 4  # each scalar read back once
