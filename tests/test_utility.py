"""The standard's utility functions (``unifiedarray/_utility.py``: ``all``,
``any``, ``diff``) give NumPy's answer on every device."""

from __future__ import annotations

import time

import numpy as np
import pytest

import unifiedarray as xp

from .conftest import DEVICES


@pytest.mark.parametrize("device", DEVICES)
def test_diff_with_a_huge_n_returns_at_once(device):
    x = xp.arange(5.0, device=device)
    start = time.perf_counter()
    out = xp.diff(x, n=2**40)
    assert time.perf_counter() - start < 5
    assert out.shape == (0,)
    assert xp.diff(x, n=2).tolist() == np.diff(np.arange(5.0), n=2).tolist()


HOST = np.array([[0, 1, 3], [0, 0, 0], [2, 2, 5]], dtype=np.int16)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", ["all", "any"])
@pytest.mark.parametrize(("axis", "keepdims"), [(None, False), (0, False), (1, True), ((0, 1), False), ((), False)])
def test_all_and_any_are_numpys(device, name, axis, keepdims):
    got = getattr(xp, name)(xp.asarray(HOST, device=device), axis=axis, keepdims=keepdims)
    expected = getattr(np, name)(HOST, axis=axis, keepdims=keepdims)
    assert got.device == device and got.dtype == xp.bool and got.shape == np.shape(expected)
    np.testing.assert_array_equal(np.asarray(got), expected)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("n", "axis"), [(1, -1), (2, 0), (0, 1), (3, 1)])
def test_diff_is_numpys(device, n, axis):
    got = xp.diff(xp.asarray(HOST, device=device), n=n, axis=axis)
    expected = np.diff(HOST, n=n, axis=axis)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(np.asarray(got), expected)


@pytest.mark.parametrize("device", DEVICES)
def test_diff_with_prepend_and_append_is_numpys(device):
    x = xp.asarray(HOST, device=device)
    pre, post = (
        xp.asarray([[9, 9, 9]], dtype=xp.int16, device=device),
        xp.asarray([[1, 1, 1]], dtype=xp.int16, device=device),
    )
    got = xp.diff(x, axis=0, prepend=pre, append=post)
    np.testing.assert_array_equal(np.asarray(got), np.diff(HOST, axis=0, prepend=[[9, 9, 9]], append=[[1, 1, 1]]))
    with pytest.raises(ValueError):
        xp.diff(x, n=-1)
