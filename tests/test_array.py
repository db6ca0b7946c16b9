"""The array class (``unifiedarray/_array.py``): Python's protocols on an
array (iteration, ``len``, ``bool``, ``int``, ``float``, ``complex``,
``index``), the same on every device, as NumPy answers them."""

from __future__ import annotations

import numpy as np
import pytest

import unifiedarray as xp

from .conftest import DEVICES


@pytest.mark.parametrize("device", DEVICES)
def test_arrays_iterate_over_their_first_axis(device):
    x = xp.reshape(xp.arange(6, device=device), (3, 2))
    rows = list(x)
    assert [r.tolist() for r in rows] == [[0, 1], [2, 3], [4, 5]]
    assert [int(v) for v in xp.arange(3, device=device)] == [0, 1, 2]
    with pytest.raises(TypeError):
        iter(xp.asarray(1.0, device=device))


@pytest.mark.parametrize("device", DEVICES)
def test_python_conversions_of_a_0d_array_are_numpys(device):
    assert bool(xp.asarray(True, device=device)) is True
    assert int(xp.asarray(7, device=device)) == 7
    assert float(xp.asarray(2.5, device=device)) == 2.5
    assert complex(xp.asarray(1.0, device=device)) == 1 + 0j
    assert [0, 1, 2, 3][xp.asarray(2, device=device)] == 2  # __index__
    assert len(xp.zeros((4, 2), device=device)) == 4


@pytest.mark.parametrize("device", DEVICES)
def test_python_conversions_refuse_what_numpy_refuses(device):
    with pytest.raises(TypeError):
        len(xp.asarray(1.0, device=device))  # a 0-d array has no length
    with pytest.raises(ValueError):
        bool(xp.asarray([True, False], device=device))  # ambiguous, as in NumPy
    with pytest.raises(TypeError):
        [0, 1][xp.asarray(1.0, device=device)]  # a float is not an index


@pytest.mark.parametrize("device", DEVICES)
def test_attributes_describe_the_data(device):
    host = np.zeros((2, 3, 4), dtype=np.int8)
    x = xp.asarray(host, device=device)
    assert (x.shape, x.ndim, x.size, x.dtype, x.device) == ((2, 3, 4), 3, 24, xp.int8, device)
    assert x.mT.shape == (2, 4, 3)
    assert x.__array_namespace__() is xp


def test_the_class_is_not_a_constructor():
    """Arrays come from the namespace's creation functions; calling the class
    with data is a TypeError at the call (the class keeps no __init__ so that
    results are made at object.__new__'s cost)."""
    with pytest.raises(TypeError):
        xp.UnifiedArray([1.0, 2.0])  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        xp.UnifiedArray(np.zeros(2), device="cpu")  # type: ignore[call-arg]
