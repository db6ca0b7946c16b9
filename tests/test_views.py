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

from .conftest import DEVICES

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
