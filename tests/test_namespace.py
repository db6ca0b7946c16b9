"""The namespace as seen from below (``unifiedarray/_namespace.py``):
``astype`` follows the standard's casting on every device, as NumPy casts
where the standard allows the cast."""

from __future__ import annotations

import numpy as np
import pytest

import unifiedarray as xp

from .conftest import DEVICES


@pytest.mark.parametrize("device", DEVICES)
def test_astype_complex_to_real_is_refused_on_every_device(device):
    z = xp.asarray([1 + 2j], dtype=xp.complex64, device=device)
    with pytest.raises(TypeError):
        xp.astype(z, xp.float32)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    ("source", "target"),
    [
        ("int64", "float32"),
        ("float64", "int16"),
        ("float32", "bool"),
        ("bool", "uint8"),
        ("int8", "complex64"),
        ("uint8", "int8"),
    ],
)
def test_astype_casts_as_numpy_does(device, source, target):
    host = np.asarray([0, 1, 5, 127], dtype=source) if source != "bool" else np.asarray([True, False])
    got = xp.astype(xp.asarray(host, device=device), getattr(xp, target))
    expected = host.astype(target)
    assert got.device == device and got.dtype == expected.dtype
    np.testing.assert_array_equal(np.asarray(got), expected)


@pytest.mark.parametrize("device", DEVICES)
def test_astype_copies_unless_told_it_need_not(device):
    x = xp.asarray([1.0, 2.0], device=device)
    y = xp.astype(x, xp.float64)
    y[0] = 9.0
    assert x.tolist() == [1.0, 2.0]
    assert xp.astype(x, xp.float64, copy=False) is x
