"""The standard's linear algebra functions in the main namespace
(``unifiedarray/_linear_algebra.py``: ``matmul``, ``tensordot``,
``vecdot``, ``matrix_transpose``) give NumPy's answer on every device,
with batching and broadcasting; the ``linalg`` extension is in
test_linalg.py."""

from __future__ import annotations

import numpy as np
import pytest

import unifiedarray as xp

from .conftest import DEVICES

RNG = np.random.default_rng(21)
A = RNG.standard_normal((2, 3, 4))
B = RNG.standard_normal((4, 5))
V = RNG.standard_normal((2, 3, 4))


def same(got, expected, device):
    assert got.device == device and got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("device", DEVICES)
def test_matmul_batches_and_broadcasts(device):
    same(xp.matmul(xp.asarray(A, device=device), xp.asarray(B, device=device)), A @ B, device)
    same(xp.asarray(A, device=device) @ xp.asarray(B, device=device), A @ B, device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("axes", [1, 2, ((1, 2), (0, 1))], ids=str)
def test_tensordot_gives_numpys_answer(device, axes):
    other = RNG.standard_normal((3, 4, 2)) if axes != 1 else RNG.standard_normal((4, 2))
    got = xp.tensordot(xp.asarray(A, device=device), xp.asarray(other, device=device), axes=axes)
    same(got, np.tensordot(A, other, axes=axes), device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("axis", [-1, 1])
def test_vecdot_is_the_conjugated_dot_along_an_axis(device, axis):
    w = RNG.standard_normal(V.shape) + 1j * RNG.standard_normal(V.shape)
    got = xp.vecdot(
        xp.asarray(w.astype(np.complex64), device=device), xp.asarray(V.astype(np.complex64), device=device), axis=axis
    )
    expected = np.sum(np.conj(w.astype(np.complex64)) * V.astype(np.complex64), axis=axis)
    assert got.dtype == xp.complex64 and got.shape == expected.shape
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-5)


@pytest.mark.parametrize("device", DEVICES)
def test_matrix_transpose_swaps_the_last_two_axes(device):
    same(xp.matrix_transpose(xp.asarray(A, device=device)), np.swapaxes(A, -1, -2), device)
    with pytest.raises(ValueError):
        xp.matrix_transpose(xp.asarray([1.0, 2.0], device=device))


@pytest.mark.parametrize("device", DEVICES)
def test_matmul_of_mismatched_shapes_is_a_value_error(device):
    with pytest.raises(ValueError):
        xp.matmul(xp.asarray(A, device=device), xp.asarray(A, device=device))
