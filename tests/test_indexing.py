"""The standard's indexing functions (``unifiedarray/_indexing.py``:
``take``, ``take_along_axis``) give NumPy's answer on every device, and an
index out of range is NumPy's IndexError.  (``x[key]`` is in test_index.py.)"""

from __future__ import annotations

import contextlib

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


@pytest.mark.cuda
@pytest.mark.xfail(
    strict=True,
    reason="on CUDA, take with an index out of range returns: CuPy's take wraps indices (its default mode), and "
    "the CuPy namespace checks the bounds for x[key] (unifiedarray/_index.py) but not for take; the simulated "
    "runtime raises IndexError only when the kernel runs",
)
def test_on_cuda_an_index_out_of_range_is_an_index_error_at_the_call():
    try:
        result = xp.take(xp.asarray(HOST, device="cuda:0"), xp.asarray([4], device="cuda:0"), axis=1)
    except IndexError:
        return
    with contextlib.suppress(IndexError):  # where it is reported late, let it be reported here
        result.tolist()
    pytest.fail("take with an index out of range on CUDA returned instead of raising IndexError")
