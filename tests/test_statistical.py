"""The standard's statistical functions (``unifiedarray/_statistical.py``)
give NumPy's answer on every device for every axis, ``keepdims`` and
``correction``; the dtypes follow the standard (a sum of int8 is int64)."""

from __future__ import annotations

import numpy as np
import pytest

import unifiedarray as xp

from .conftest import DEVICES

HOST = np.arange(1.0, 25.0).reshape(2, 3, 4) / 7


def same(got, expected, device):
    expected = np.asarray(expected)
    assert got.device == device and got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-12)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "mean", "std", "var"])
@pytest.mark.parametrize(("axis", "keepdims"), [(None, False), (0, True), (-1, False), ((0, 2), False), ((), False)])
def test_reduction_gives_numpys_answer(device, name, axis, keepdims):
    got = getattr(xp, name)(xp.asarray(HOST, device=device), axis=axis, keepdims=keepdims)
    same(got, getattr(np, name)(HOST, axis=axis, keepdims=keepdims), device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", ["std", "var"])
@pytest.mark.parametrize("correction", [0, 1, 1.5])
def test_correction_is_numpys_ddof(device, name, correction):
    got = getattr(xp, name)(xp.asarray(HOST, device=device), axis=1, correction=correction)
    same(got, getattr(np, name)(HOST, axis=1, ddof=correction), device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
@pytest.mark.parametrize("include_initial", [False, True])
def test_cumulative_functions_give_numpys_answer(device, name, include_initial):
    got = getattr(xp, name)(xp.asarray(HOST, device=device), axis=1, include_initial=include_initial)
    expected = getattr(np, name)(HOST, axis=1, include_initial=include_initial)
    same(got, expected, device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    ("dtype", "expected"), [("int8", "int64"), ("uint8", "uint64"), ("bool", "int64"), ("float32", "float32")]
)
def test_sum_and_prod_of_small_dtypes_use_the_standards_accumulator(device, dtype, expected):
    x = xp.asarray(np.ones(5, dtype=dtype), device=device)
    assert xp.sum(x).dtype == np.dtype(expected) and xp.prod(x).dtype == np.dtype(expected)
    assert int(xp.sum(x)) == 5


@pytest.mark.parametrize("device", DEVICES)
def test_max_of_nothing_is_a_value_error(device):
    with pytest.raises(ValueError):
        xp.max(xp.zeros((0,), device=device))
