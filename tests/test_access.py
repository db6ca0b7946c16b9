"""An array's current data on a device (``unifiedarray/_access.py``): every
read, the fast paths' included, waits for a move still in flight before it
touches the copy."""

from __future__ import annotations

import numpy as np
import pytest

import unifiedarray as xp


class _Pending:
    """A move still in flight: the host copy must not be read before it lands."""

    def __init__(self, land):
        self.land = land
        self.waited = False

    def synchronize(self):
        self.land()
        self.waited = True


@pytest.mark.parametrize(
    "op",
    [
        lambda x: x + 1,
        lambda x: 1 + x,
        lambda x: x * x,
        lambda x: -x,
        lambda x: xp.sin(x),
        lambda x: xp.sum(x),
        lambda x: x[1:],
        lambda x: x[0],
        lambda x: x[xp.asarray([0, 1])],
        lambda x: np.add(x, 1),
    ],
)
def test_every_fast_path_waits_for_a_move_in_flight(op):
    """A non-blocking move sets ``_pending``; every read (the operators'
    fast path once forgot) waits for it first, so nothing reads host memory
    before the copy lands.  Taking a view (``x[1:]``) reads nothing: its
    first read waits."""
    x = xp.zeros(3)
    host = x.buffer._copies[xp.Device.parse("cpu")]
    pending = _Pending(lambda: host.__setitem__(slice(None), 7.0))
    x.buffer._pending = pending
    x.buffer._refresh()  # as the buffer does whenever it sets a move in flight
    res = op(x)
    assert pending.waited or (res.is_view and x.buffer._pending is pending)
    assert np.all(np.asarray(res) == np.asarray(op(xp.full(3, 7.0))))
    assert pending.waited
