"""The standard's data type functions (``unifiedarray/_data_types.py``):
``result_type``, ``can_cast``, ``isdtype``, ``finfo``, ``iinfo``,
``broadcast_shapes`` answer as array-api-strict does where the standard
specifies, and as NumPy 2 does where it leaves the choice open."""

from __future__ import annotations

import array_api_strict as strict
import numpy as np
import pytest

import unifiedarray as xp

from .conftest import DEVICES

PAIRS = [("int8", "uint8"), ("int32", "float32"), ("uint64", "int64"), ("float32", "complex64"), ("bool", "bool"),
         ("uint8", "uint16"), ("float64", "complex64")]  # fmt: skip


@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_result_type_of_two_dtypes(a, b):
    try:
        expected = np.dtype(str(strict.result_type(getattr(strict, a), getattr(strict, b))).split(".")[-1])
    except TypeError:  # the standard leaves mixed kinds to the implementation: NumPy 2's answer
        expected = np.result_type(a, b)
    assert xp.result_type(getattr(xp, a), getattr(xp, b)) == expected


@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_can_cast_is_array_api_stricts(a, b):
    assert xp.can_cast(getattr(xp, a), getattr(xp, b)) == strict.can_cast(getattr(strict, a), getattr(strict, b))


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint32", "float32", "complex128"])
@pytest.mark.parametrize(
    "kind", ["bool", "signed integer", "unsigned integer", "integral", "real floating", "complex floating", "numeric"]
)
def test_isdtype_is_array_api_stricts(dtype, kind):
    assert xp.isdtype(getattr(xp, dtype), kind) == strict.isdtype(getattr(strict, dtype), kind)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
def test_finfo_is_numpys(dtype):
    got, expected = xp.finfo(getattr(xp, dtype)), np.finfo(dtype)
    assert (got.bits, got.eps, got.max, got.min, got.smallest_normal) == (
        expected.bits, expected.eps, expected.max, expected.min, expected.smallest_normal
    )  # fmt: skip


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int64", "uint64"])
def test_iinfo_is_numpys(dtype):
    got, expected = xp.iinfo(getattr(xp, dtype)), np.iinfo(dtype)
    assert (got.bits, got.max, got.min) == (expected.bits, expected.max, expected.min)


@pytest.mark.parametrize("device", DEVICES)
def test_result_type_of_arrays_and_python_scalars(device):
    x = xp.asarray([1], dtype=xp.int16, device=device)
    assert xp.result_type(x, 3) == xp.int16
    assert xp.result_type(x, 2.5) == np.result_type(np.int16, 2.5)


def test_broadcast_shapes_is_numpys():
    assert xp.broadcast_shapes((2, 1, 4), (3, 1), ()) == np.broadcast_shapes((2, 1, 4), (3, 1), ())
    with pytest.raises(ValueError):
        xp.broadcast_shapes((2, 3), (4,))
