"""View chains (:mod:`unifiedarray._views`): a view of an MLX array read
through its chain (``view_getitem``, no second check) gives NumPy's values.
(The shape a basic index selects is tested with the index reading, in
test_index.py.)"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import unifiedarray as xp

from .conftest import DEVICES, needs_mlx

BOUNDS = st.none() | st.integers(-7, 7)
STEPPED = st.builds(slice, BOUNDS, BOUNDS, st.none() | st.sampled_from([-3, -2, -1, 1, 2, 3]))


@pytest.mark.parametrize("device", DEVICES)
@settings(max_examples=100, deadline=None)
@given(
    data=st.data(),
    shape=st.lists(st.integers(1, 4), min_size=2, max_size=3).map(tuple),
)
def test_views_of_views_read_numpys_values_on_every_device(device, data, shape):
    """Slices, new axes and transposes chained: the values NumPy gives."""
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    x = xp.asarray(a, device=device)
    k1 = tuple(data.draw(st.lists(STEPPED, max_size=len(shape))))
    k2 = tuple(data.draw(st.lists(STEPPED | st.none(), max_size=2)))
    np.testing.assert_array_equal(np.asarray(x[k1].mT[k2]), a[k1].swapaxes(-1, -2)[k2])
    np.testing.assert_array_equal(np.asarray(x.mT[k1][k2] + 0), a.swapaxes(-1, -2)[k1][k2] + 0)


def moves(fn):
    with xp.track_transfers() as t:
        out = fn()
    return out, t


@needs_mlx  # a second memory space
@pytest.mark.parametrize("take", [lambda x: x[1:], lambda x: x.T, lambda x: x.mT[::-1]])
def test_taking_a_view_of_a_stale_host_copy_moves_nothing_and_its_read_sees_the_write(take):
    """A view is not a read (promise 2): made while the host copy is stale,
    it moves nothing; its first read moves once and sees the device's write
    (promise 1), through the operators' fast path too."""
    x = xp.reshape(xp.arange(6.0), (2, 3))
    buf = x.buffer
    buf.sync_to_device("mlx")
    buf.write(xp.Device.parse("mlx"), lambda m: m.__setitem__(slice(None), m * 10), "test write")
    view, t = moves(lambda: take(x))
    assert t.count == 0
    expected = take(np.arange(6.0).reshape(2, 3) * 10)
    (total, copy), t = moves(lambda: (view + 0.0, np.asarray(view)))
    assert t.count == 1
    np.testing.assert_array_equal(np.asarray(total), expected)
    np.testing.assert_array_equal(copy, expected)
