"""The standard's sorting functions (``unifiedarray/_sorting.py``) give
NumPy's answer on every device, stable where asked, descending too."""

from __future__ import annotations

import numpy as np
import pytest

import unifiedarray as xp

from .conftest import DEVICES

HOST = np.array([[3, 1, 4, 1, 5], [9, 2, 6, 5, 3]], dtype=np.int64)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("axis", [0, -1])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_gives_numpys_order(device, axis, descending):
    got = xp.sort(xp.asarray(HOST, device=device), axis=axis, descending=descending)
    expected = np.sort(HOST, axis=axis)
    expected = np.flip(expected, axis=axis) if descending else expected
    assert got.device == device and got.dtype == expected.dtype
    np.testing.assert_array_equal(np.asarray(got), expected)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("descending", [False, True])
def test_stable_argsort_keeps_the_order_of_equal_elements(device, descending):
    data = np.array([2, 1, 2, 1, 2], dtype=np.int64)
    got = np.asarray(xp.argsort(xp.asarray(data, device=device), stable=True, descending=descending))
    expected = np.argsort(-data if descending else data, kind="stable")
    np.testing.assert_array_equal(got, expected)
