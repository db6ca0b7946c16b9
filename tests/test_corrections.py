"""The corrections in ``unifiedarray.compute`` to what the backends compute,
checked on every device against values worked out by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from array_api_compat import numpy as compat_numpy  # the host clip's reference, independent of ours
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import unifiedarray as xp
from unifiedarray import compute

from .conftest import DEVICES


@pytest.mark.parametrize("device", DEVICES)
def test_sign_of_complex_outside_the_normal_range_is_a_unit(device: str) -> None:
    # NumPy overflows (nan+infj) and MLX flushes (-1+1j) where |x| is subnormal;
    # near the largest float |x| overflows and both gave 0.
    big = float(np.finfo(np.float32).max)
    x = np.array(
        [1e-45j, -1e-45 + 1e-45j, 3e-39 - 4e-39j, 3 + 4j, 0j, complex(big, big), complex(-big, 0)], dtype=np.complex64
    )
    with np.errstate(all="ignore"):
        got = np.asarray(xp.sign(xp.asarray(x, device=device)))
    s = math.sqrt(0.5)
    expected = np.array([1j, -s + s * 1j, 0.6 - 0.8j, 0.6 + 0.8j, 0j, s + s * 1j, -1], dtype=np.complex64)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7)
    assert got.dtype == np.complex64


@pytest.mark.parametrize("device", DEVICES)
# The host's correction computes NumPy's floor_divide (NaN for inf // finite, with NumPy's "invalid
# value" warning) and then replaces the NaN by the standard's infinity: the warning is about a
# value the caller never sees (reported; the values are what this test checks).
@pytest.mark.filterwarnings("ignore:invalid value encountered in floor_divide:RuntimeWarning")
def test_floor_divide_with_infinities_follows_the_standard(device: str) -> None:
    a = xp.asarray([math.inf, -math.inf, 1.0, -1.0, 7.0], device=device)
    b = xp.asarray([2.0, 2.0, -math.inf, math.inf, 2.0], device=device)
    got = np.asarray(a // b)
    assert got[:2].tolist() == [math.inf, -math.inf] and got[4] == 3.0
    assert got[2] == 0.0 and math.copysign(1.0, got[2]) == -1.0  # -0, not NumPy's -1
    assert got[3] == 0.0 and math.copysign(1.0, got[3]) == -1.0


@pytest.mark.parametrize("device", DEVICES)
def test_tanh_at_infinite_real_part_has_a_signed_zero_imaginary_part(device: str) -> None:
    # The standard: tanh(+inf + iy) = 1 + 0j for finite y > 0 (NumPy gives
    # 1 - 0j where sin(2y) < 0); by symmetry the zero takes y's sign.
    inf = math.inf
    x = np.array([complex(inf, 2), complex(inf, -2), complex(-inf, 2), complex(-inf, -2)], dtype=np.complex64)
    got = np.asarray(xp.tanh(xp.asarray(x, device=device)))
    assert got.real.tolist() == [1.0, 1.0, -1.0, -1.0]
    assert (got.imag == 0).all()
    assert [math.copysign(1.0, v) for v in got.imag] == [1.0, -1.0, 1.0, -1.0]


# -- the host's clip: NumPy's own for scalar bounds ------------------------------------------

CLIP_DTYPES = ["int8", "uint8", "int64", "float16", "float32", "float64", "bool"]


@settings(max_examples=200, deadline=None)
@given(data=st.data(), dtype=st.sampled_from(CLIP_DTYPES))
def test_host_clip_with_scalar_bounds_is_array_api_compats(data, dtype):
    """The host namespace's ``clip`` takes NumPy's ``clip`` where both
    bounds are scalars (what the rules hand it) and gives what
    array-api-compat's ``clip`` (the path it replaces, and the one array
    bounds still take) gives: dtype and bits, NaN and ``min > max``
    included; a zero's sign where x is a zero at a zero bound is NumPy's
    and array-api-strict's (x's own: ``clip(-0.0, 0.0, 0.0)`` is -0.0; the
    standard is silent), where array-api-compat gives the bound's."""
    x = data.draw(hnp.arrays(dtype, hnp.array_shapes(min_dims=0, max_dims=2, max_side=4)))
    bound = hnp.from_dtype(np.dtype(dtype)).map(lambda v: np.dtype(dtype).type(v))
    lo = data.draw(st.none() | bound)
    hi = data.draw(st.none() | bound)
    assume(lo is not None or hi is not None)
    with np.errstate(all="ignore"):
        got = compute.host_namespace.clip(x, lo, hi)
        want = compat_numpy.clip(x, lo, hi)
    assert got.dtype == want.dtype and got.shape == want.shape
    zeros = (np.asarray(got) == 0) & (np.asarray(want) == 0)
    assert np.where(zeros, 0, got).tobytes() == np.where(zeros, 0, want).tobytes(), (x, lo, hi, got, want)
    with np.errstate(all="ignore"):
        numpys = np.clip(x, lo, hi) if dtype != "bool" else got
    assert np.asarray(got)[zeros].tobytes() == np.asarray(numpys)[zeros].tobytes()
