"""Accelerators (``unifiedarray/_accelerator.py``): ``list_devices`` names
every device present with its backend and memory; ``get_accelerator``
gives one device's facts, and refuses a device that is not present."""

from __future__ import annotations

import pytest

import unifiedarray as xp

from .conftest import DEVICES


def test_every_device_present_is_listed_with_its_memory():
    listed = {str(d["device"]): d for d in xp.list_devices()}
    for name in DEVICES:
        if name.startswith("sealed"):
            continue  # the test plug-in: listed by the registry, not a built-in accelerator
        assert xp.Device.parse(name) == listed[str(xp.Device.parse(name))]["device"]
    for facts in listed.values():
        assert 0 < facts["free"] <= facts["total"]


@pytest.mark.parametrize("device", DEVICES)
def test_an_accelerator_knows_its_device_backend_and_memory(device):
    acc = xp.get_accelerator(device)
    assert acc.device == device
    free, total = acc.get_memory_info()
    assert 0 <= free <= total
    acc.synchronize()  # waits for nothing outstanding: returns
    assert isinstance(acc.properties, dict)


def test_a_device_not_present_is_a_value_error():
    with pytest.raises(ValueError):
        xp.get_accelerator("cuda:9")
