"""The standard's ``fft`` extension (``unifiedarray/fft.py``) gives NumPy's
answer on every device: values (to float32's tolerance), dtypes (single
precision stays single: NumPy 2's rule, and MLX holds no complex128) and
shapes, for every ``n``/``s``, ``axis``/``axes`` and ``norm``."""

from __future__ import annotations

import numpy as np
import pytest

import unifiedarray as xp

from .conftest import DEVICES

RNG = np.random.default_rng(21)
REAL = RNG.standard_normal((4, 6)).astype(np.float32)
COMPLEX = (RNG.standard_normal((4, 6)) + 1j * RNG.standard_normal((4, 6))).astype(np.complex64)
NORMS = ["backward", "ortho", "forward"]


def close(got, expected, device):
    assert got.device == device
    assert got.shape == expected.shape and got.dtype == expected.dtype
    np.testing.assert_allclose(np.asarray(got), expected, rtol=2e-4, atol=2e-5)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize(
    ("name", "data", "kwargs"),
    [
        ("fft", COMPLEX, {}),
        ("fft", COMPLEX, {"n": 4, "axis": 0}),
        ("fft", COMPLEX, {"n": 9}),
        ("ifft", COMPLEX, {"axis": -2}),
        ("rfft", REAL, {}),
        ("rfft", REAL, {"n": 5, "axis": 0}),
        ("irfft", COMPLEX, {}),
        ("irfft", COMPLEX, {"n": 7}),
        ("hfft", COMPLEX, {}),
        ("ihfft", REAL, {"n": 4}),
        ("fftn", COMPLEX, {}),
        ("fftn", COMPLEX, {"s": (2, 3), "axes": (0, 1)}),
        ("ifftn", COMPLEX, {"axes": (1,)}),
        ("rfftn", REAL, {}),
        ("irfftn", COMPLEX, {"s": (4, 8), "axes": (0, 1)}),
    ],
    ids=lambda v: {id(REAL): "real", id(COMPLEX): "complex"}.get(id(v), repr(v) if isinstance(v, dict) else None),
)
def test_transform_gives_numpys_answer(device, norm, name, data, kwargs):
    got = getattr(xp.fft, name)(xp.asarray(data, device=device), norm=norm, **kwargs)
    close(got, getattr(np.fft, name)(data, norm=norm, **kwargs), device)


@pytest.mark.parametrize("device", DEVICES)
def test_a_transform_and_its_inverse_give_the_data_back(device):
    x = xp.asarray(COMPLEX, device=device)
    close(xp.fft.ifft(xp.fft.fft(x)), COMPLEX, device)
    r = xp.asarray(REAL, device=device)
    close(xp.fft.irfftn(xp.fft.rfftn(r), s=REAL.shape, axes=(0, 1)), REAL, device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("axes", [None, 0, (1,), (0, 1)])
def test_shifts_are_numpys(device, axes):
    data = np.arange(20.0).reshape(4, 5)
    x = xp.asarray(data, device=device)
    close(xp.fft.fftshift(x, axes=axes), np.fft.fftshift(data, axes=axes), device)
    close(xp.fft.ifftshift(x, axes=axes), np.fft.ifftshift(data, axes=axes), device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("n", "d"), [(1, 1.0), (8, 0.1), (9, 2.0)])
def test_sample_frequencies_are_numpys_on_the_device_asked_for(device, n, d):
    close(xp.fft.fftfreq(n, d=d, device=device), np.fft.fftfreq(n, d=d), device)
    close(xp.fft.rfftfreq(n, d=d, device=device), np.fft.rfftfreq(n, d=d), device)
    single = xp.fft.fftfreq(n, d=d, dtype=xp.float32, device=device)
    close(single, np.fft.fftfreq(n, d=d).astype(np.float32), device)


@pytest.mark.parametrize("device", DEVICES)
def test_bad_arguments_raise_numpys_class(device):
    x = xp.asarray(COMPLEX, device=device)
    with pytest.raises(ValueError):
        xp.fft.fft(x, n=0)
    with pytest.raises(ValueError):
        xp.fft.fft(x, norm="sideways")
    with pytest.raises(IndexError):  # NumPy's AxisError is an IndexError too
        xp.fft.fft(x, axis=2)
    with pytest.raises(TypeError):
        xp.fft.fft(COMPLEX)  # an ndarray is not an array of the namespace's
