"""The standard's indexing functions (``unifiedarray/_indexing.py``:
``take``, ``take_along_axis``) give NumPy's answer on every device, and an
index out of range is NumPy's IndexError.  (``x[key]`` is in test_index.py.)"""

from __future__ import annotations

import numpy as np
import pytest

import unifiedarray as xp

from .conftest import DEVICES

HOST = np.arange(12.0).reshape(3, 4)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("indices", "axis"), [([0, 2, 2], 0), ([3, -1], 1), ([], 1)])
def test_take_gives_numpys_answer(device, indices, axis):
    idx = np.asarray(indices, dtype=np.int64)
    got = xp.take(xp.asarray(HOST, device=device), xp.asarray(idx, device=device), axis=axis)
    expected = np.take(HOST, idx, axis=axis)
    assert got.device == device and got.shape == expected.shape
    np.testing.assert_array_equal(np.asarray(got), expected)


@pytest.mark.parametrize("device", DEVICES)
def test_take_along_axis_gives_numpys_answer(device):
    idx = np.argsort(-HOST, axis=1)
    got = xp.take_along_axis(xp.asarray(HOST, device=device), xp.asarray(idx, device=device), axis=1)
    np.testing.assert_array_equal(np.asarray(got), np.take_along_axis(HOST, idx, axis=1))


@pytest.mark.parametrize("device", [d for d in DEVICES if not d.startswith("cuda")])
def test_an_index_out_of_range_is_an_index_error(device):
    with pytest.raises(IndexError):
        xp.take(xp.asarray(HOST, device=device), xp.asarray([4], device=device), axis=1)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("index,axis", [(4, 1), (-5, 1), (3, 0), (-4, 0)])
def test_take_out_of_range_is_numpys_index_error_at_the_call(device, index, axis):
    """At the call, in NumPy's words, on every device: CuPy's take wraps
    indices (the simulated runtime's does too), so the CuPy namespace reads
    them by the one index reading first."""
    with pytest.raises(IndexError) as expected:
        np.take(np.asarray(HOST), [index], axis=axis)
    with pytest.raises(IndexError) as got:
        xp.take(xp.asarray(HOST, device=device), xp.asarray([index], device=device), axis=axis)
    assert str(got.value).endswith(str(expected.value))  # a backend may name itself first
