"""``__array_namespace_info__()`` (``unifiedarray/_info.py``): the devices
present, each device's default dtypes (float64 everywhere; complex64 on
MLX, which holds no complex128) and the dtypes it holds, by kind."""

from __future__ import annotations

import numpy as np
import pytest

import unifiedarray as xp

from .conftest import DEVICES


def test_the_devices_are_the_ones_present_host_first():
    devices = xp.__array_namespace_info__().devices()
    assert devices[0] == "cpu"
    for name in DEVICES:
        assert xp.Device.parse(name) in devices


@pytest.mark.parametrize("device", DEVICES)
def test_default_dtypes_are_the_ones_new_arrays_get(device):
    defaults = xp.__array_namespace_info__().default_dtypes(device=device)
    assert xp.zeros(1, device=device).dtype == defaults["real floating"]
    assert xp.asarray([1j], device=device).dtype == defaults["complex floating"]
    assert xp.arange(3, device=device).dtype == defaults["integral"]
    assert xp.nonzero(xp.ones(2, device=device))[0].dtype == defaults["indexing"]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "kind",
    [None, "bool", "signed integer", "unsigned integer", "integral", "real floating", "complex floating", "numeric"],
)
def test_dtypes_of_a_kind_are_the_ones_the_device_holds(device, kind):
    dtypes = xp.__array_namespace_info__().dtypes(device=device, kind=kind)
    for name, dtype in dtypes.items():
        assert np.dtype(name) == dtype
        assert kind is None or xp.isdtype(dtype, kind)
        assert xp.zeros(1, dtype=dtype, device=device).dtype == dtype  # each one is held there


def test_capabilities_and_the_default_device():
    info = xp.__array_namespace_info__()
    assert info.capabilities()["boolean indexing"] is True
    assert info.default_device() == xp.get_default_device()
    with pytest.raises(ValueError):
        info.default_dtypes(device="no_such_device")
