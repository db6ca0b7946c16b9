"""The standard's searching functions (``unifiedarray/_searching.py``) give
NumPy's answer on every device: indices of the default index dtype, ties
resolved as NumPy resolves them."""

from __future__ import annotations

import numpy as np
import pytest

import unifiedarray as xp

from .conftest import DEVICES

HOST = np.array([[3.0, 1.0, 4.0, 1.0], [5.0, 9.0, 2.0, 9.0]])


def same(got, expected, device):
    expected = np.asarray(expected)
    assert got.device == device and got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(np.asarray(got), expected)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize(("axis", "keepdims"), [(None, False), (0, False), (1, True)])
def test_argmax_and_argmin_give_numpys_first_index(device, name, axis, keepdims):
    got = getattr(xp, name)(xp.asarray(HOST, device=device), axis=axis, keepdims=keepdims)
    same(got, getattr(np, name)(HOST, axis=axis, keepdims=keepdims), device)


@pytest.mark.parametrize("device", DEVICES)
def test_nonzero_and_count_nonzero_give_numpys_answer(device):
    data = np.array([[0, 2, 0], [3, 0, 4]])
    x = xp.asarray(data, device=device)
    for got, expected in zip(xp.nonzero(x), np.nonzero(data), strict=True):
        same(got, expected, device)
    same(xp.count_nonzero(x, axis=1), np.count_nonzero(data, axis=1), device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_gives_numpys_answer(device, side):
    ordered, values = np.array([1.0, 2.0, 2.0, 5.0]), np.array([0.0, 2.0, 3.0, 9.0])
    got = xp.searchsorted(xp.asarray(ordered, device=device), xp.asarray(values, device=device), side=side)
    same(got, np.searchsorted(ordered, values, side=side), device)


@pytest.mark.parametrize("device", DEVICES)
def test_where_selects_and_broadcasts_as_numpy_does(device):
    cond = HOST > 2.5
    got = xp.where(xp.asarray(cond, device=device), xp.asarray(HOST, device=device), xp.asarray([0.0], device=device))
    same(got, np.where(cond, HOST, [0.0]), device)
