"""The standard's set functions (``unifiedarray/_set.py``) give NumPy's
answer on every device: sorted unique values, their indices, inverse
indices and counts, and membership."""

from __future__ import annotations

import numpy as np
import pytest

import unifiedarray as xp

from .conftest import DEVICES

HOST = np.array([[3, 1, 3], [2, 1, 3]], dtype=np.int32)


@pytest.mark.parametrize("device", DEVICES)
def test_unique_functions_give_numpys_answer(device):
    x = xp.asarray(HOST, device=device)
    values, index, inverse, counts = np.unique(HOST, return_index=True, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(np.asarray(xp.unique_values(x)), values)
    got = xp.unique_all(x)
    assert got._fields == ("values", "indices", "inverse_indices", "counts")
    np.testing.assert_array_equal(np.asarray(got.values), values)
    np.testing.assert_array_equal(np.asarray(got.indices), index)
    np.testing.assert_array_equal(np.asarray(got.inverse_indices), inverse.reshape(HOST.shape))
    np.testing.assert_array_equal(np.asarray(got.counts), counts)
    c = xp.unique_counts(x)
    np.testing.assert_array_equal(np.asarray(c.counts), counts)
    inv = xp.unique_inverse(x)
    np.testing.assert_array_equal(np.asarray(inv.inverse_indices), inverse.reshape(HOST.shape))
    assert got.values.device == device


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("invert", [False, True])
def test_isin_gives_numpys_answer(device, invert):
    test = np.array([1, 2, 4], dtype=np.int32)
    got = xp.isin(xp.asarray(HOST, device=device), xp.asarray(test, device=device), invert=invert)
    assert got.dtype == xp.bool and got.device == device
    np.testing.assert_array_equal(np.asarray(got), np.isin(HOST, test, invert=invert))
