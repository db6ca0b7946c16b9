"""Behaviours NumPy 2.5 changed, the same on NumPy 2.4 and 2.5.

The package has no NumPy version checks; where NumPy's answer changed with
2.5 (its release notes' compatibility notes and expired deprecations), the
library gives one answer on both: the standard's, or NumPy 2.5's where the
standard leaves it open.  These run on whichever NumPy is installed (2.4 on
the development machines, 2.5 on the GPU machine: see benchmarks/gpu_check.py).
"""

from __future__ import annotations

import numpy as np
import pytest

import unifiedarray as xp

from .conftest import DEVICES


def test_from_dlpack_of_a_tensor_numpy_cannot_import_raises_buffer_error():
    jnp = pytest.importorskip("jax.numpy")
    producer = jnp.ones(3, dtype=jnp.bfloat16)  # a dtype NumPy's DLPack import does not support
    with pytest.raises(BufferError, match="from_dlpack"):
        xp.from_dlpack(producer)


@pytest.mark.parametrize("name", ["eig", "eigvals"])
def test_eig_and_eigvals_are_complex_even_where_every_eigenvalue_is_real(name):
    a = xp.asarray([[2.0, 0.0], [0.0, 3.0]])
    out = getattr(xp.linalg, name)(a)
    values = out.eigenvalues if name == "eig" else out
    assert values.dtype == xp.complex128
    np.testing.assert_allclose(np.sort(values.to_numpy().real), [2.0, 3.0])


@pytest.mark.parametrize("device", DEVICES)
def test_descending_sorts_match_array_api_strict_nans_included(device):
    strict = pytest.importorskip("array_api_strict")
    values = [3.0, np.nan, 1.0, 3.0, -0.0, 0.0, 2.0]
    x = xp.asarray(values, device=device)
    ref = strict.asarray(values)
    np.testing.assert_array_equal(xp.sort(x, descending=True).to_numpy(), np.asarray(strict.sort(ref, descending=True)))
    np.testing.assert_array_equal(
        xp.argsort(x, descending=True).to_numpy(), np.asarray(strict.argsort(ref, descending=True))
    )


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("dtype", "value"), [("int8", 300), ("int8", -129), ("uint8", -1), ("int16", 1 << 15)])
def test_where_with_a_python_int_out_of_the_arrays_range_raises_overflow_error(device, dtype, value):
    cond = xp.asarray([True, False], device=device)
    x = xp.asarray([1, 2], dtype=getattr(xp, dtype), device=device)
    with pytest.raises(OverflowError, match="out of bounds"):
        xp.where(cond, x, value)
    with pytest.raises(OverflowError, match="out of bounds"):
        xp.where(cond, value, x)
    assert xp.where(cond, x, 7).to_numpy().tolist() == [1, 7]  # in range: as before


def test_finfo_of_none_is_a_type_error():
    with pytest.raises(TypeError, match="finfo"):
        xp.finfo(None)
