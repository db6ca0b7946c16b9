"""The standard's elementwise functions (``unifiedarray/_elementwise.py``)
give NumPy's answer on every device: values (to the dtype's rounding),
dtypes and shapes, with broadcasting.  (Every function against
array-api-strict, on drawn inputs: conformance/test_differential.py.)"""

from __future__ import annotations

import math

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


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_remainder_by_an_infinity_is_pythons_on_every_device(device, dtype):
    """Python's ``%`` (NumPy's too): a finite number over an infinity is the
    number, or the infinity where the signs differ; a zero takes the
    divisor's sign.  CuPy's kernel (``x1 - floor(x1 / x2) * x2``) gave NaN."""
    x1 = [0.0, -1.0, 1.0, 5.0, -0.0, 7.0, 2.5]
    x2 = [math.inf, math.inf, -math.inf, 3.0, 3.0, -3.0, -math.inf]
    a, b = xp.asarray(x1, dtype=dtype, device=device), xp.asarray(x2, dtype=dtype, device=device)
    expected = [p % q for p, q in zip(x1, x2, strict=True)]
    for got in (xp.remainder(a, b), a % b, np.remainder(a, b)):  # the namespace, the operator, NumPy's ufunc
        assert got.dtype == getattr(xp, dtype)
        assert got.tolist() == expected
        assert [math.copysign(1, v) for v in got.tolist()] == [math.copysign(1, v) for v in expected]


def _log1p_reference(value: complex) -> complex:
    """``log1p`` in double precision from Python's ``math``: the 1 added to
    the real part only, the modulus scaled to stay in range (``cmath`` and
    NumPy before 2.5 overflow for parts near the largest float)."""
    if math.hypot(value.real, value.imag) < 1e-5:
        return value - value * value / 2
    w = complex(1 + value.real, value.imag)
    return complex(math.log(math.hypot(w.real / 4, w.imag / 4)) + math.log(4), math.atan2(w.imag, w.real))


def _check_log1p(device: str, dtype: str, z: list[complex], rel: float) -> None:
    if dtype == "complex128" and not xp.__array_namespace_info__().dtypes(device=device).get("complex128"):
        pytest.skip(f"{device} holds no complex128")
    got = xp.log1p(xp.asarray(z, dtype=getattr(xp, dtype), device=device)).tolist()
    for value, g in zip(z, got, strict=True):
        e = _log1p_reference(value)
        assert math.isclose(g.real, e.real, rel_tol=rel, abs_tol=1e-30), (device, value, g, e)
        assert math.isclose(g.imag, e.imag, rel_tol=rel, abs_tol=1e-30), (device, value, g, e)
        assert math.copysign(1, g.imag) == math.copysign(1, e.imag), (device, value, g, e)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_log1p_keeps_the_branch_cut_on_every_device(device, dtype):
    """Below -1 the sign of a zero imaginary part picks the side of the cut."""
    z = [complex(-2, -0.0), complex(-2, 0.0), complex(-0.5, -0.0), complex(3, -4), complex(-3, 0.5)]
    _check_log1p(device, dtype, z, 1e-5 if dtype == "complex64" else 1e-12)


@pytest.mark.cuda
@pytest.mark.parametrize("dtype,big,rel", [("complex64", 1.2e38, 1e-5), ("complex128", 1.27116101e308, 1e-12)])
def test_on_cuda_complex_log1p_does_not_overflow_and_keeps_small_arguments(dtype, big, rel):
    """CuPy's kernel, ``log(1 + z)``, overflowed in the modulus for parts near
    the largest float and rounded ``1 + z`` near 0; the corrected one gives
    the true value (NumPy 2.5's; NumPy 2.4, the host here, overflows too)."""
    _check_log1p("cuda:0", dtype, [complex(big, big), complex(0, big), complex(1e-10, 1e-10)], rel)


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning", "ignore:invalid value:RuntimeWarning")
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", ["log", "log2", "log10"])
def test_logarithms_of_subnormals_and_huge_complex_numbers_are_numpys(device, name):
    """float32 subnormals (a GPU kernel flushes them to zero: -inf) and
    complex numbers with a part near the largest float (a modulus taken as
    sqrt(re**2 + im**2) overflows) get NumPy's logarithms on every device."""
    fn = getattr(xp, name)
    reals = np.array([4e-45, 1e-40, 1.1754942e-38, -1e-40, 0.0, 1.0, 3.0], dtype=np.float32)
    with np.errstate(all="ignore"):
        expected = getattr(np, name)(reals)
    x = xp.asarray(reals, device=device)
    for got in (fn(x), getattr(np, name)(x)):  # the namespace, NumPy's ufunc
        np.testing.assert_allclose(got.tolist(), expected, rtol=1e-6)
    info = xp.__array_namespace_info__().dtypes(device=device)
    for dtype, big in [("complex64", 1.2e38), ("complex128", 1.79769313e308)]:
        if dtype not in info:
            continue
        tiny = 1e-45 if dtype == "complex64" else 5e-324  # subnormal parts
        z = np.array(
            [
                complex(1, big),
                complex(big, -big),
                complex(-2, -0.5),
                complex(3, 4),
                complex(0, tiny),
                complex(-tiny, 3e-40),
            ],
            dtype=dtype,
        )
        with np.errstate(all="ignore"):
            expected_z = getattr(np, name)(z.astype(np.complex128) if dtype == "complex64" else z)
        got = np.asarray(fn(xp.asarray(z, device=device)).tolist(), dtype=np.complex128)
        np.testing.assert_allclose(got, expected_z, rtol=1e-5 if dtype == "complex64" else 1e-12, err_msg=dtype)


@pytest.mark.parametrize("device", DEVICES)
def test_abs_of_a_huge_complex_number_is_finite_where_numpys_is(device):
    """|1 + 1.8e308j| is 1.8e308, not inf (a modulus taken as
    sqrt(re**2 + im**2) overflows); the special values stay the standard's."""
    info = xp.__array_namespace_info__().dtypes(device=device)
    for dtype, big in [("complex64", 3e38), ("complex128", 1.79769313e308)]:
        if dtype not in info:
            continue
        z = np.array(
            [complex(1, big), complex(-big, 1), complex(3, -4), complex(np.inf, np.nan), complex(np.nan, 1)], dtype
        )
        x = xp.asarray(z, device=device)
        for got in (xp.abs(x), abs(x), np.abs(x)):  # the namespace, the operator, NumPy's ufunc
            assert got.dtype == getattr(xp, "float32" if dtype == "complex64" else "float64")
            np.testing.assert_allclose(got.tolist(), np.abs(z), rtol=1e-6)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy's sign on the host warns at 0j and near the ends
@pytest.mark.parametrize("device", DEVICES)
def test_sign_of_complex_numbers_near_the_ends_of_the_range_is_numpys(device):
    """sign(z) = z / |z|, the modulus taken without overflow or underflow:
    a modulus through squares made sign(1.8e19j) 0 and sign(1.2e-38j) NaN
    in complex64."""
    z = np.array([1.8446744e19j, 1.1754944e-38j, 3 - 4j, 0j, -2.5e38 + 1j], dtype=np.complex64)
    got = xp.sign(xp.asarray(z, device=device))
    assert got.dtype == xp.complex64
    np.testing.assert_allclose(np.asarray(got.tolist()), np.sign(z), rtol=1e-6)


def test_floor_divide_on_the_host_warns_what_numpy_warns():
    """The standard's special cases (``inf // finite``) are corrected after
    NumPy's floor_divide without a floating-point operation NumPy would not
    make: the host warns exactly NumPy's warnings (a correction once
    divided every element, and warned of a division by zero NumPy's call
    does not report)."""
    import warnings

    a = np.array([1.0, -2.0, 0.0, np.inf, -np.inf, 5.0, 7.0])
    b = np.array([0.0, 0.0, 0.0, 2.0, 3.0, np.inf, 2.0])

    def caught(fn):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            fn()
        return sorted(str(w.message) for w in seen)

    assert caught(lambda: xp.floor_divide(xp.asarray(a), xp.asarray(b))) == caught(lambda: np.floor_divide(a, b))
    c, d = a[5:], b[5:]  # finite over inf and finite: no warning from NumPy
    assert caught(lambda: xp.floor_divide(xp.asarray(c), xp.asarray(d))) == caught(lambda: np.floor_divide(c, d)) == []
