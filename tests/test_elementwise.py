"""The standard's elementwise functions (``unifiedarray/_elementwise.py``)
give NumPy's answer on every device: values (to the dtype's rounding),
dtypes and shapes, with broadcasting.  (Every function against
array-api-strict, on drawn inputs: conformance/test_differential.py.)"""

from __future__ import annotations

import numpy as np
import pytest

import unifiedarray as xp

from .conftest import DEVICES

RNG = np.random.default_rng(21)
X = RNG.uniform(0.1, 0.9, (3, 4))
Y = RNG.uniform(0.5, 2.0, (4,))
INTS = np.array([[5, -3, 0, 7]], dtype=np.int32)
OTHERS = np.array([2, 1, 3, 1], dtype=np.int32)

UNARY = [
    "abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "exp", "expm1", "floor",
    "log", "log1p", "log2", "log10", "negative", "positive", "round", "sign", "signbit", "sin", "sinh", "square",
    "sqrt", "tan", "tanh", "trunc", "isfinite", "isinf", "isnan",
]  # fmt: skip
NUMPY_NAME = {"acos": "arccos", "acosh": "arccosh", "asin": "arcsin", "asinh": "arcsinh", "atan": "arctan",
              "atanh": "arctanh", "atan2": "arctan2", "pow": "power", "bitwise_invert": "invert",
              "bitwise_left_shift": "left_shift", "bitwise_right_shift": "right_shift"}  # fmt: skip
BINARY = ["add", "subtract", "multiply", "divide", "pow", "atan2", "hypot", "copysign", "maximum", "minimum",
          "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logaddexp"]  # fmt: skip
INTEGER_BINARY = ["floor_divide", "remainder", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
                  "bitwise_right_shift"]  # fmt: skip


def same(got, expected, device):
    assert got.device == device and got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-12)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", UNARY)
def test_unary_function_gives_numpys_answer(device, name):
    data = X + 1 if name == "acosh" else X
    same(getattr(xp, name)(xp.asarray(data, device=device)), getattr(np, NUMPY_NAME.get(name, name))(data), device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", BINARY)
def test_binary_function_broadcasts_and_gives_numpys_answer(device, name):
    x, y = xp.asarray(X, device=device), xp.asarray(Y, device=device)
    same(getattr(xp, name)(x, y), getattr(np, NUMPY_NAME.get(name, name))(X, Y), device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", INTEGER_BINARY)
def test_integer_function_gives_numpys_answer(device, name):
    got = getattr(xp, name)(xp.asarray(INTS, device=device), xp.asarray(OTHERS, device=device))
    same(got, getattr(np, NUMPY_NAME.get(name, name))(INTS, OTHERS), device)


@pytest.mark.parametrize("device", DEVICES)
def test_logical_and_bitwise_invert_give_numpys_answer(device):
    a, b = np.array([True, True, False, False]), np.array([True, False, True, False])
    xa, xb = xp.asarray(a, device=device), xp.asarray(b, device=device)
    for name in ("logical_and", "logical_or", "logical_xor"):
        same(getattr(xp, name)(xa, xb), getattr(np, name)(a, b), device)
    same(xp.logical_not(xa), np.logical_not(a), device)
    same(xp.bitwise_invert(xp.asarray(INTS, device=device)), np.invert(INTS), device)


@pytest.mark.parametrize("device", DEVICES)
def test_a_python_scalar_takes_the_arrays_dtype(device):
    x = xp.asarray(X.astype(np.float32), device=device)
    got = xp.multiply(x, 2.5)
    assert got.dtype == xp.float32
    np.testing.assert_allclose(np.asarray(got), X.astype(np.float32) * np.float32(2.5), rtol=1e-6)


@pytest.mark.parametrize("device", DEVICES)
def test_shapes_that_do_not_broadcast_are_a_value_error(device):
    with pytest.raises(ValueError):
        xp.add(xp.asarray(X, device=device), xp.asarray([1.0, 2.0], device=device))


@pytest.mark.parametrize("device", DEVICES)
def test_integers_to_negative_integer_powers_are_a_value_error(device):
    with pytest.raises(ValueError):
        xp.pow(xp.asarray(INTS, device=device), xp.asarray(INTS, device=device))
