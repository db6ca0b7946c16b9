"""View chains (:mod:`unifiedarray._views`): the shape a basic index selects,
computed without data, is NumPy's, errors included; and a view of an MLX
array read through its chain (``view_getitem``, no second check) gives
NumPy's values."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import unifiedarray as xp
from unifiedarray import _views

from .conftest import DEVICES

BOUNDS = st.none() | st.integers(-7, 7)
SLICES = st.builds(slice, BOUNDS, BOUNDS, st.none() | st.integers(-3, 3))
ITEMS = SLICES | st.none() | st.integers(-6, 6) | st.just(Ellipsis)


def numpy_outcome(fn):
    try:
        return fn()
    except Exception as exc:
        return type(exc)


@settings(max_examples=300, deadline=None)
@given(shape=st.lists(st.integers(0, 5), max_size=3).map(tuple), items=st.lists(ITEMS, max_size=4))
def test_basic_shape_is_numpys_shape_or_error(shape, items):
    key = _views.view_key(tuple(items))
    expected = numpy_outcome(lambda: np.empty(shape)[key].shape)
    assert numpy_outcome(lambda: _views.basic_shape(shape, key)) == expected


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
