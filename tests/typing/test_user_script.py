"""The typed user script runs, and gives the same figures on every device.

mypy checks its types (``.ci/run``); this test keeps it a working program, so
that the types it asserts are the types of a program that runs.
"""

from __future__ import annotations

import math

import pytest

import unifiedarray as xp

from .user_script import run

DEVICES = [str(d) for d in xp.__array_namespace_info__().devices()]


def test_script_on_the_host() -> None:
    got = run("cpu")
    assert got["same_dtype"] == 1.0
    assert got["total"] == pytest.approx(47.0)
    assert got["doubled"] == pytest.approx(2 * got["total"])
    assert got["shifted"] == pytest.approx(got["total"] + 9)
    assert got["qr"] < 1e-12  # q @ r rebuilds x
    assert got["picked"] == pytest.approx(5 + 6.5 + 7.5 + 8 + 10)


@pytest.mark.parametrize("device", [d for d in DEVICES if d != "cpu"])
def test_script_same_figures_on_every_device(device: str) -> None:
    host, other = run("cpu"), run(device)
    assert other.keys() == host.keys()
    for key, value in host.items():
        if key == "qr":  # a residual: small everywhere, not equal
            assert other[key] < 1e-5, key
        else:
            assert math.isclose(other[key], value, rel_tol=1e-5, abs_tol=1e-9), (key, other[key], value)
