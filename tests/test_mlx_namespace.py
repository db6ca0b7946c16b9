"""The MLX Array API namespace, differentially against array-api-strict.

Every function is run on MLX arrays and on array-api-strict arrays holding
the same values; results must agree in dtype, shape and values (NaNs equal;
tolerances by dtype).  Inputs are drawn with Hypothesis' Array API
strategies over array-api-strict, for every dtype array-api-strict accepts
for the function, float64 and the integer dtypes included (complex128,
which MLX cannot hold, is left out; refusing it is tested separately).

Plain tests cover what a differential test cannot: that host fallbacks are
counted by the transfer ledger, that refusals name mlx, the dtype and the
operation, and MLX-specific hazards (float64 accuracy, integer division
traps, unchecked bounds).
"""

from __future__ import annotations

import math
import os
import warnings
import zlib
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np
import pytest

mx = pytest.importorskip("mlx.core")

import array_api_strict as xp  # noqa: E402
from hypothesis import HealthCheck, assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra.array_api import make_strategies_namespace  # noqa: E402

from unifiedarray._ledger import track_transfers  # noqa: E402
from unifiedarray._policy import TransferError, transfer_guard  # noqa: E402
from unifiedarray.backends import mlx_namespace as ns  # noqa: E402
from unifiedarray.backends.mlx_namespace import _core, _elementwise  # noqa: E402

xps = make_strategies_namespace(xp)

# A thorough run: MLX_NAMESPACE_EXAMPLES=500 pytest tests/test_mlx_namespace.py
SETTINGS = settings(
    max_examples=int(os.environ.get("MLX_NAMESPACE_EXAMPLES", "25")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)

DTYPE_NAMES = (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "complex64",
)  # fmt: skip
STRICT_DTYPES = [getattr(xp, n) for n in DTYPE_NAMES]


# -- helpers ------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _no_error_state() -> Any:
    """These tests hold the namespace's values to NumPy's over every float
    (NaN, inf, huge): NumPy's error state is ignored for the namespace's
    calls as ``call_strict`` ignores it for the reference's (the warnings
    themselves: tests/test_error_state.py)."""
    with np.errstate(all="ignore"):
        yield


def np_dtype(strict_dtype: Any) -> np.dtype:
    return np.dtype(str(strict_dtype).rsplit(".", 1)[-1])


def to_mx(a: Any) -> Any:
    """A strict array (or Python scalar) as the same values in MLX."""
    if not hasattr(a, "dtype"):
        return a
    host = np.asarray(a)
    return mx.array(host, dtype=_core.to_mx_dtype(host.dtype))


def host(a: Any) -> np.ndarray:
    if isinstance(a, mx.array):
        return np.array(a)
    return np.asarray(a)


def tolerance(dtype: np.dtype, name: str = "") -> tuple[float, float]:
    if dtype == np.float64:
        return 1e-12, 1e-300
    if dtype == np.complex64:
        return 2e-5, 2e-5
    if name in ("sin", "cos", "tan"):
        return 2e-5, 1e-6  # near a zero, compare absolutely
    return 2e-5, 1e-37


def assert_same(got: Any, expected: Any, name: str = "", rtol: float | None = None, atol: float | None = None) -> None:
    assert isinstance(got, mx.array), f"{name}: got {type(got).__name__}, not an mlx array"
    g, e = host(got), host(expected)
    assert g.dtype == e.dtype, f"{name}: dtype {g.dtype} != {e.dtype}"
    assert g.shape == e.shape, f"{name}: shape {g.shape} != {e.shape}"
    if e.dtype.kind in "biu":
        np.testing.assert_array_equal(g, e, err_msg=name)
        return
    r, a = tolerance(e.dtype, name)
    np.testing.assert_allclose(
        g, e, rtol=rtol if rtol is not None else r, atol=atol if atol is not None else a, equal_nan=True, err_msg=name
    )


def call_strict(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def elements(dtype: Any, *, bound: float | None = None, complex_bound: float = 20.0) -> Any:
    """Values for ``dtype``: every float (NaN, inf, subnormals, huge) unless
    ``bound``; complex values finite, moderate and without subnormal parts
    (there NumPy's and MLX's complex kernels legitimately differ, e.g.
    0 / (1e-41 + 0j) is nan in NumPy and 0 in MLX)."""
    nd = np_dtype(dtype)
    if nd.kind == "c":
        part = st.floats(-complex_bound, complex_bound, allow_subnormal=False, width=32)
        return st.builds(complex, part, part)
    if nd.kind == "f" and bound is not None:
        return xps.from_dtype(dtype, min_value=-bound, max_value=bound, allow_nan=False)
    return xps.from_dtype(dtype)


SHAPES = xps.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)


# -- elementwise ---------------------------------------------------------------------------

UNARY = sorted(ns._elementwise.UNARY)
BINARY = sorted(ns._elementwise.BINARY)


@cache
def accepted_unary(name: str) -> tuple[Any, ...]:
    ok = []
    for d in STRICT_DTYPES:
        try:
            call_strict(getattr(xp, name), xp.ones((2,), dtype=d))
            ok.append(d)
        except TypeError:
            pass
    return tuple(ok)


@cache
def accepted_pairs(name: str) -> tuple[tuple[Any, Any], ...]:
    ok = []
    for d1 in STRICT_DTYPES:
        for d2 in STRICT_DTYPES:
            try:
                r = call_strict(getattr(xp, name), xp.ones((2,), dtype=d1), xp.ones((2,), dtype=d2))
            except TypeError:
                continue
            if r.dtype != xp.complex128:
                ok.append((d1, d2))
    return tuple(ok)


def test_tables_cover_the_standard() -> None:
    assert len(UNARY) == 38 and len(BINARY) == 28
    for name in UNARY + BINARY + ["clip"]:
        assert callable(getattr(ns, name)), name


@pytest.mark.parametrize("name", UNARY)
@SETTINGS
@given(data=st.data())
def test_unary(name: str, data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from(accepted_unary(name)), label="dtype")
    x = data.draw(xps.arrays(dtype, SHAPES, elements=elements(dtype)), label="x")
    expected = call_strict(getattr(xp, name), x)
    assert_same(getattr(ns, name)(to_mx(x)), expected, name)


def _binary_elements(name: str, dtype: Any, which: int) -> Any:
    nd = np_dtype(dtype)
    if name == "pow" and nd.kind in "iu" and which == 2:
        return xps.from_dtype(dtype, min_value=0, max_value=min(8, np.iinfo(nd).max))
    if name in ("bitwise_left_shift", "bitwise_right_shift") and which == 2:
        return xps.from_dtype(dtype, min_value=0, max_value=nd.itemsize * 8 + 2)
    if name == "pow" and nd.kind == "c":
        return elements(dtype, complex_bound=3.0)
    return elements(dtype)


@pytest.mark.parametrize("name", BINARY)
@SETTINGS
@given(data=st.data())
def test_binary(name: str, data: st.DataObject) -> None:
    d1, d2 = data.draw(st.sampled_from(accepted_pairs(name)), label="dtypes")
    shapes = data.draw(xps.mutually_broadcastable_shapes(2, min_dims=0, max_dims=3, max_side=4), label="shapes")
    s1, s2 = shapes.input_shapes
    x1 = data.draw(xps.arrays(d1, s1, elements=_binary_elements(name, d1, 1)), label="x1")
    x2 = data.draw(xps.arrays(d2, s2, elements=_binary_elements(name, d2, 2)), label="x2")
    expected = call_strict(getattr(xp, name), x1, x2)
    assert_same(getattr(ns, name)(to_mx(x1), to_mx(x2)), expected, name)


@pytest.mark.parametrize("name", BINARY)
@SETTINGS
@given(data=st.data())
def test_binary_with_scalar(name: str, data: st.DataObject) -> None:
    d1, _ = data.draw(st.sampled_from([p for p in accepted_pairs(name) if p[0] == p[1]]), label="dtype")
    x = data.draw(xps.arrays(d1, SHAPES, elements=_binary_elements(name, d1, 1)), label="x")
    s = data.draw(_binary_elements(name, d1, 2), label="scalar")
    if np_dtype(d1).kind == "f":
        s = float(s)
    left = data.draw(st.booleans(), label="scalar on the left")
    if left and name in ("pow", "bitwise_left_shift", "bitwise_right_shift") and np_dtype(d1).kind in "iu":
        assume(False)  # the array would be the exponent or shift count: no negative ones
    args = (s, x) if left else (x, s)
    try:
        expected = call_strict(getattr(xp, name), *args)
    except (TypeError, OverflowError, ValueError):
        assume(False)
    got = getattr(ns, name)(*(to_mx(a) for a in args))
    assert_same(got, expected, name)


@SETTINGS
@given(data=st.data())
def test_clip(data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from([d for d in STRICT_DTYPES if np_dtype(d).kind in "iuf"]), label="dtype")
    x = data.draw(xps.arrays(dtype, SHAPES, elements=elements(dtype)), label="x")
    lo = data.draw(st.none() | xps.from_dtype(dtype), label="min")
    hi = data.draw(st.none() | xps.from_dtype(dtype), label="max")
    if lo is not None and hi is not None and not (lo <= hi):
        lo, hi = hi, lo
    as_array = data.draw(st.booleans(), label="bounds as arrays")
    if as_array:
        lo_s = None if lo is None else xp.asarray(lo, dtype=dtype)
        hi_s = None if hi is None else xp.asarray(hi, dtype=dtype)
    else:
        lo_s, hi_s = lo, hi
    expected = call_strict(xp.clip, x, lo_s, hi_s)
    assert_same(ns.clip(to_mx(x), min=to_mx(lo_s), max=to_mx(hi_s)), expected, "clip")


def test_clip_integer_bounds_above_2_to_53_stay_exact() -> None:
    # Found by the differential suite at 1000 examples: an integer bound
    # given as a NumPy scalar or a 0-d array went through float.
    big = 18014398509481011  # 2**54 + 3: no float64 holds it
    x = mx.array([big, 5], dtype=mx.int64)
    for bound in (big, np.int64(big), np.array(big)):
        assert np.array(ns.clip(x, min=bound)).tolist() == [big, big]
    # The rules (issue 19): a float bound of an integer x gives NumPy's
    # float64, and a Python int min above x's range cannot be held.
    expected = np.clip(np.array([big, 5]), None, 2.5)
    got = ns.clip(x, max=2.5)
    assert (got.dtype, np.array(got).tolist()) == (mx.float64, expected.tolist())
    with pytest.raises(OverflowError):
        ns.clip(x, min=2**70)
    assert np.array(ns.clip(x, max=2**70)).tolist() == [big, 5]  # a max above the range clips nothing


def test_mixed_kinds_follow_numpy() -> None:
    # The standard leaves these open; the host namespace (NumPy) decides.
    i32 = mx.array([1, 2, 3], dtype=mx.int32)
    f32 = mx.array([0.5, 1.5, 2.5], dtype=mx.float32)
    assert ns.add(i32, f32).dtype == mx.float64
    assert ns.add(mx.array([1], dtype=mx.int64), mx.array([1], dtype=mx.uint64)).dtype == mx.float64
    assert ns.sqrt(i32).dtype == mx.float64
    assert ns.divide(i32, i32).dtype == mx.float64
    assert ns.multiply(i32, 2.5).dtype == mx.float64
    assert ns.add(f32, 1).dtype == mx.float32
    assert ns.add(mx.array([1], dtype=mx.float64), 1.5).dtype == mx.float64
    np.testing.assert_allclose(np.array(ns.add(i32, f32)), [1.5, 3.5, 5.5])


ALL_NP = [np.dtype(n) for n in (*DTYPE_NAMES, "float16")]


def _sample(dtype: np.dtype, rng: np.random.Generator, nonnegative: bool = False) -> np.ndarray:
    if dtype.kind == "b":
        return rng.integers(0, 2, 6).astype(bool)
    if dtype.kind in "iu":
        return rng.integers(0 if nonnegative or dtype.kind == "u" else -5, 6, 6).astype(dtype)
    if dtype.kind == "f":
        return (rng.standard_normal(6) * 3).astype(dtype)
    return (rng.standard_normal(6) + 1j * rng.standard_normal(6)).astype(dtype)


@pytest.mark.parametrize("name", UNARY + BINARY)
def test_every_dtype_combination_follows_numpy(name: str) -> None:
    # Where the standard is silent (mixed kinds, sqrt of an integer, float16,
    # bool arithmetic), results follow the host namespace, NumPy through
    # array-api-compat, so a program keeps its dtypes on every device.  Where
    # NumPy's result would be complex128, MLX must refuse instead.
    import array_api_compat.numpy as cnp

    rng = np.random.default_rng(zlib.crc32(name.encode()))  # the same samples every run
    combos = [(d,) for d in ALL_NP] if name in UNARY else [(a, b) for a in ALL_NP for b in ALL_NP]
    for combo in combos:
        nonneg = name in ("pow", "bitwise_left_shift", "bitwise_right_shift")
        args = [_sample(d, rng, nonnegative=nonneg and i == 1) for i, d in enumerate(combo)]
        try:
            expected = call_strict(getattr(cnp, name), *args)
        except Exception:
            with pytest.raises(TypeError):
                getattr(ns, name)(*(mx.array(a, dtype=ns.to_mx_dtype(a.dtype)) for a in args))
            continue
        margs = [mx.array(a, dtype=ns.to_mx_dtype(a.dtype)) for a in args]
        if expected.dtype == np.complex128:
            with pytest.raises(TypeError, match="mlx"):
                getattr(ns, name)(*margs)
            continue
        got = np.array(getattr(ns, name)(*margs))
        assert got.dtype == expected.dtype, (name, combo)
        if name == "reciprocal" and combo[0].kind in "biu":
            continue  # NumPy's integer reciprocal of 0 is platform garbage
        np.testing.assert_allclose(got, expected, rtol=3e-3, atol=3e-3, equal_nan=True, err_msg=f"{name}{combo}")


# -- special cases and MLX hazards ----------------------------------------------------------


def f64(values: Any) -> Any:
    return mx.array(np.asarray(values, dtype=np.float64), dtype=mx.float64)


@pytest.mark.parametrize(
    "name, ref", [("exp", np.exp), ("sin", np.sin), ("cos", np.cos), ("expm1", np.expm1), ("tan", np.tan)]
)
def test_float64_transcendentals_are_float64_accurate(name: str, ref: Any) -> None:
    # MLX computes exp, sin and cos of float64 in float32; these must not.
    rng = np.random.default_rng(0)
    x = np.concatenate(
        [
            rng.uniform(-1, 1, 20000),
            rng.uniform(-740, 705, 20000),
            rng.uniform(-1e6, 1e6, 20000),
            rng.choice([-1, 1], 5000) * 10.0 ** rng.uniform(-300, 300, 5000),
            [0.0, -0.0, math.pi, math.pi / 2, 1e-310, 709.7, -745.0],
        ]
    )
    with np.errstate(all="ignore"):
        expected = ref(x)
    got = np.array(getattr(ns, name)(f64(x)))
    finite = np.isfinite(expected)
    ulps = np.abs(got[finite] - expected[finite]) / np.spacing(np.maximum(np.abs(expected[finite]), 1e-300))
    assert ulps.max() <= 4, f"{name}: {ulps.max()} ulp"
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(expected))
    assert ns.exp(f64(1.0)).item() == pytest.approx(math.e, rel=1e-15)


def test_float32_exp_does_not_overflow_early() -> None:
    got = np.array(ns.exp(mx.array([88.5, 88.7, 89.0], dtype=mx.float32)))
    np.testing.assert_allclose(got[:2], np.exp(np.float32([88.5, 88.7])), rtol=1e-6)
    assert np.isinf(got[2])


def test_logaddexp_float64() -> None:
    a = f64([0.0, 1e-20, -1000.0, 700.0, -np.inf, np.inf, np.nan])
    b = f64([0.0, 1e-20, -1000.5, 699.0, -np.inf, np.inf, 1.0])
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(np.array(ns.logaddexp(a, b)), np.logaddexp(np.array(a), np.array(b)), rtol=1e-15)


def test_floor_divide_and_remainder_special_cases() -> None:
    a = f64([1.0, -1.0, 0.0, -0.0, 5.0, -5.0, np.inf, 1.0, -1.0, 1.0, 7.5])
    b = f64([0.1, 0.1, 3.0, 3.0, -3.0, 3.0, 2.0, np.inf, np.inf, 0.0, -2.0])
    with np.errstate(all="ignore"):
        fd, rm = np.floor_divide(np.array(a), np.array(b)), np.remainder(np.array(a), np.array(b))
    got_fd, got_rm = np.array(ns.floor_divide(a, b)), np.array(ns.remainder(a, b))
    np.testing.assert_array_equal(got_fd, fd)
    np.testing.assert_array_equal(got_rm, rm)
    for got, exp in ((got_fd, fd), (got_rm, rm)):  # signed zeros too (a NaN's sign means nothing)
        np.testing.assert_array_equal(np.signbit(got)[~np.isnan(exp)], np.signbit(exp)[~np.isnan(exp)])
    assert got_fd[0] == 9.0  # 1 // 0.1: floor(1 / 0.1) would be 10


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint32", "uint64"])
def test_integer_division_traps(dtype: str) -> None:
    # INT_MIN // -1 and division by zero are undefined in C: MLX would kill
    # the process (SIGFPE) or give garbage.  NumPy gives 0 for a zero divisor.
    info = np.iinfo(dtype)
    a = np.array([info.min, 7, info.max, 0] if info.min < 0 else [7, info.max, 0, 3], dtype=dtype)
    b = np.array([-1, 0, -1, 0] if info.min < 0 else [0, 0, 0, 2], dtype=dtype)
    ma, mb = mx.array(a), mx.array(b)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(np.array(ns.floor_divide(ma, mb)), np.floor_divide(a, b))
        np.testing.assert_array_equal(np.array(ns.remainder(ma, mb)), np.remainder(a, b))


def test_shift_counts_at_or_beyond_the_width() -> None:
    x = mx.array([1, -128, 5], dtype=mx.int8)
    s = mx.array([8, 9, 70], dtype=mx.int8)
    np.testing.assert_array_equal(np.array(ns.bitwise_left_shift(x, s)), [0, 0, 0])
    np.testing.assert_array_equal(np.array(ns.bitwise_right_shift(x, s)), [0, -1, 0])


def test_elementwise_special_values() -> None:
    nan, inf = math.nan, math.inf
    np.testing.assert_array_equal(np.array(ns.round(f64([0.5, 1.5, 2.5, -0.5, -2.5]))), [0.0, 2.0, 2.0, -0.0, -2.0])
    assert np.isnan(np.array(ns.sign(f64([nan])))).all()
    np.testing.assert_array_equal(np.array(ns.sign(f64([-3.0, 0.0, 2.0]))), [-1.0, 0.0, 1.0])
    z = mx.array(np.array([3 + 4j, 0j, -2j], dtype=np.complex64))
    np.testing.assert_allclose(np.array(ns.sign(z)), [0.6 + 0.8j, 0, -1j], rtol=1e-6)
    assert np.isnan(np.array(ns.sqrt(f64([-1.0])))).all()
    np.testing.assert_array_equal(
        np.array(ns.signbit(f64([-0.0, 0.0, -nan, nan, -inf]))), [True, False, True, False, True]
    )
    np.testing.assert_array_equal(
        np.array(ns.copysign(f64([1.0, 2.0, 3.0]), f64([-0.0, 0.0, -nan]))), [-1.0, 2.0, -3.0]
    )
    np.testing.assert_allclose(
        np.array(ns.hypot(f64([inf, nan, 3e200, 0.0, 3e-320]), f64([nan, 1.0, 4e200, -0.0, 4e-320]))),
        [inf, nan, 5e200, 0.0, 5e-320],
        rtol=4e-16,
    )
    tiny = np.nextafter(0.0, 1.0)
    np.testing.assert_array_equal(
        np.array(ns.nextafter(f64([0.0, 1.0, 1.0, -0.0]), f64([1.0, 2.0, 0.0, 0.0]))),
        [tiny, np.nextafter(1.0, 2.0), np.nextafter(1.0, 0.0), 0.0],
    )
    assert not np.signbit(np.array(ns.nextafter(f64([-0.0]), f64([0.0])))[0])
    np.testing.assert_array_equal(np.array(ns.maximum(f64([nan, 1.0]), f64([1.0, nan]))), [nan, nan])
    np.testing.assert_array_equal(np.array(ns.max(f64([1.0, nan, 3.0]))), nan)


def test_python_scalars_are_weak_and_range_checked() -> None:
    u8 = mx.array([1, 2], dtype=mx.uint8)
    assert ns.add(u8, 3).dtype == mx.uint8
    with pytest.raises(OverflowError, match="mlx"):
        ns.add(u8, 300)
    big = mx.array([1], dtype=mx.uint64)
    assert ns.add(big, 2**64 - 2).item() == 2**64 - 1
    assert ns.multiply(mx.array([1.0], dtype=mx.float64), 0.1).item() == 0.1


# -- statistical and utility ----------------------------------------------------------------


def reduction_case(data: st.DataObject, kinds: str, bound: float = 1e3) -> tuple[Any, Any, bool]:
    dtype = data.draw(st.sampled_from([d for d in STRICT_DTYPES if np_dtype(d).kind in kinds]), label="dtype")
    x = data.draw(xps.arrays(dtype, SHAPES, elements=elements(dtype, bound=bound)), label="x")
    axis = data.draw(st.none() | xps.valid_tuple_axes(x.ndim), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    return x, axis, keepdims


@pytest.mark.parametrize("name", ["sum", "prod"])
@SETTINGS
@given(data=st.data())
def test_sum_prod(name: str, data: st.DataObject) -> None:
    x, axis, keepdims = reduction_case(data, "biufc", bound=4.0)
    dtype = data.draw(st.none() | st.sampled_from([xp.int64, xp.float64, xp.float32, xp.uint64]), label="dtype=")
    try:
        expected = call_strict(getattr(xp, name), x, axis=axis, keepdims=keepdims, dtype=dtype)
    except TypeError:
        assume(False)
    got = getattr(ns, name)(to_mx(x), axis=axis, keepdims=keepdims, dtype=None if dtype is None else np_dtype(dtype))
    assert_same(got, expected, name, rtol=1e-4 if np_dtype(expected.dtype) != np.float64 else 1e-10, atol=1e-4)


@pytest.mark.parametrize("name", ["mean", "std", "var", "max", "min"])
@SETTINGS
@given(data=st.data())
def test_statistics(name: str, data: st.DataObject) -> None:
    kinds = "fc" if name == "mean" else "f" if name in ("std", "var") else "iuf"
    x, axis, keepdims = reduction_case(data, kinds)
    kwargs: dict[str, Any] = {"axis": axis, "keepdims": keepdims}
    if name in ("std", "var"):
        kwargs["correction"] = data.draw(st.sampled_from([0, 1, 0.5]), label="correction")
    try:
        expected = call_strict(getattr(xp, name), x, **kwargs)
    except ValueError:  # max/min of nothing
        with pytest.raises(ValueError):
            getattr(ns, name)(to_mx(x), **kwargs)
        return
    got = getattr(ns, name)(to_mx(x), **kwargs)
    f64_ = np_dtype(expected.dtype) == np.float64
    assert_same(got, expected, name, rtol=1e-9 if f64_ else 1e-4, atol=1e-9 if f64_ else 1e-3)


@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
@SETTINGS
@given(data=st.data())
def test_cumulative(name: str, data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from([d for d in STRICT_DTYPES if np_dtype(d).kind in "biufc"]), label="dtype")
    x = data.draw(
        xps.arrays(dtype, xps.array_shapes(min_dims=1, max_dims=3, max_side=4), elements=elements(dtype, bound=3.0))
    )
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1), label="axis")
    include_initial = data.draw(st.booleans(), label="include_initial")
    dt = data.draw(st.none() | st.sampled_from([xp.int64, xp.float64]), label="dtype=")
    try:
        expected = call_strict(getattr(xp, name), x, axis=axis, include_initial=include_initial, dtype=dt)
    except TypeError:
        assume(False)
    got = getattr(ns, name)(
        to_mx(x), axis=axis, include_initial=include_initial, dtype=None if dt is None else np_dtype(dt)
    )
    assert_same(got, expected, name, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", ["all", "any", "count_nonzero"])
@SETTINGS
@given(data=st.data())
def test_truth_reductions(name: str, data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from(STRICT_DTYPES), label="dtype")
    x = data.draw(xps.arrays(dtype, SHAPES, elements=elements(dtype)), label="x")
    axis = data.draw(st.none() | xps.valid_tuple_axes(x.ndim), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    expected = call_strict(getattr(xp, name), x, axis=axis, keepdims=keepdims)
    assert_same(getattr(ns, name)(to_mx(x), axis=axis, keepdims=keepdims), expected, name)


@SETTINGS
@given(data=st.data())
def test_diff(data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from(STRICT_DTYPES), label="dtype")
    x = data.draw(xps.arrays(dtype, xps.array_shapes(min_dims=1, max_dims=3, max_side=5), elements=elements(dtype)))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1), label="axis")
    n = data.draw(st.integers(0, 3), label="n")
    kw: dict[str, Any] = {}
    if data.draw(st.booleans(), label="prepend"):
        shape = list(x.shape)
        shape[axis] = 1
        kw["prepend"] = data.draw(xps.arrays(dtype, tuple(shape), elements=elements(dtype)))
    try:
        expected = call_strict(xp.diff, x, axis=axis, n=n, **kw)
    except TypeError:
        assume(False)
    got = ns.diff(to_mx(x), axis=axis, n=n, **{k: to_mx(v) for k, v in kw.items()})
    assert_same(got, expected, "diff")


# -- searching, sorting, sets ----------------------------------------------------------------

REAL = [d for d in STRICT_DTYPES if np_dtype(d).kind in "iuf"]


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@SETTINGS
@given(data=st.data())
def test_argmax_argmin(name: str, data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from(REAL), label="dtype")
    x = data.draw(
        xps.arrays(dtype, xps.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4), elements=elements(dtype))
    )
    axis = data.draw(st.none() | st.integers(-x.ndim, x.ndim - 1), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    expected = call_strict(getattr(xp, name), x, axis=axis, keepdims=keepdims)
    assert_same(getattr(ns, name)(to_mx(x), axis=axis, keepdims=keepdims), expected, name)


@pytest.mark.parametrize("name", ["sort", "argsort"])
@SETTINGS
@given(data=st.data())
def test_sort_argsort(name: str, data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from(REAL), label="dtype")
    # Few distinct values, so that stability is exercised.
    if np_dtype(dtype).kind in "iu":
        elems = st.sampled_from([0, 1, 2])
    else:
        elems = st.sampled_from([0.0, -0.0, 1.5, math.nan, -math.inf, 2.0])
    x = data.draw(xps.arrays(dtype, xps.array_shapes(min_dims=1, max_dims=3, max_side=5), elements=elems))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1), label="axis")
    descending = data.draw(st.booleans(), label="descending")
    expected = call_strict(getattr(xp, name), x, axis=axis, descending=descending, stable=True)
    got = getattr(ns, name)(to_mx(x), axis=axis, descending=descending, stable=True)
    assert_same(got, expected, name)


@SETTINGS
@given(data=st.data())
def test_searchsorted(data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from(REAL), label="dtype")
    x1 = data.draw(xps.arrays(dtype, st.integers(0, 6).map(lambda n: (n,)), elements=elements(dtype, bound=100)))
    x1 = xp.sort(x1)
    x2 = data.draw(xps.arrays(dtype, SHAPES, elements=elements(dtype, bound=100)))
    side = data.draw(st.sampled_from(["left", "right"]), label="side")
    expected = call_strict(xp.searchsorted, x1, x2, side=side)
    assert_same(ns.searchsorted(to_mx(x1), to_mx(x2), side=side), expected, "searchsorted")


@SETTINGS
@given(data=st.data())
def test_where(data: st.DataObject) -> None:
    d1, d2 = data.draw(st.sampled_from((*accepted_pairs("add"), (xp.bool, xp.bool))), label="dtypes")
    shapes = data.draw(xps.mutually_broadcastable_shapes(3, max_dims=3, max_side=4)).input_shapes
    cond = data.draw(xps.arrays(xp.bool, shapes[0]))
    x1 = data.draw(xps.arrays(d1, shapes[1], elements=elements(d1)))
    x2 = data.draw(xps.arrays(d2, shapes[2], elements=elements(d2)))
    assert_same(ns.where(to_mx(cond), to_mx(x1), to_mx(x2)), call_strict(xp.where, cond, x1, x2), "where")


@SETTINGS
@given(data=st.data())
def test_nonzero(data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from(STRICT_DTYPES), label="dtype")
    x = data.draw(xps.arrays(dtype, xps.array_shapes(min_dims=1, max_dims=3, max_side=4), elements=elements(dtype)))
    expected = call_strict(xp.nonzero, x)
    got = ns.nonzero(to_mx(x))
    assert isinstance(got, tuple) and len(got) == len(expected)
    for g, e in zip(got, expected, strict=False):
        assert_same(g, e, "nonzero")


@pytest.mark.parametrize("name", ["unique_all", "unique_counts", "unique_inverse", "unique_values"])
@SETTINGS
@given(data=st.data())
def test_unique(name: str, data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from(STRICT_DTYPES), label="dtype")
    elems = elements(dtype) if np_dtype(dtype).kind != "f" else st.sampled_from([0.0, 1.0, -2.5, math.nan, math.inf])
    x = data.draw(xps.arrays(dtype, SHAPES, elements=elems), label="x")
    expected = call_strict(getattr(xp, name), x)
    got = getattr(ns, name)(to_mx(x))
    if name == "unique_values":
        assert_same(got, expected, name)
        return
    assert type(got).__name__ == type(expected).__name__ and got._fields == expected._fields
    values = np.asarray(expected.values)
    for field in expected._fields:
        if field in ("inverse_indices", "indices") and np.isnan(values).any() if values.dtype.kind == "f" else False:
            # NaNs are distinct: which of them an index names is the sort's
            # choice (NumPy's is not stable), so each index must name a NaN
            # where NumPy's does, and be NumPy's elsewhere.
            want, have = np.asarray(getattr(expected, field)), np.array(getattr(got, field))
            flat_x = np.asarray(x).reshape(-1)
            names = values[want] if field == "inverse_indices" else flat_x[want]
            got_names = values[have] if field == "inverse_indices" else flat_x[have]
            nan = np.isnan(names)
            assert np.isnan(got_names[nan]).all() and np.array_equal(have[~nan], want[~nan]), f"{name}.{field}"
            continue
        assert_same(getattr(got, field), getattr(expected, field), f"{name}.{field}")


@SETTINGS
@given(data=st.data())
def test_isin(data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from([d for d in STRICT_DTYPES if np_dtype(d).kind in "iu"]), label="dtype")
    small = xps.from_dtype(dtype, min_value=0, max_value=6)
    x1 = data.draw(xps.arrays(dtype, SHAPES, elements=small))
    x2 = data.draw(xps.arrays(dtype, SHAPES, elements=small))
    assert_same(ns.isin(to_mx(x1), to_mx(x2)), call_strict(xp.isin, x1, x2), "isin")
    # array-api-strict 2.6.1 ignores invert=; NumPy is the reference for it.
    np.testing.assert_array_equal(
        np.array(ns.isin(to_mx(x1), to_mx(x2), invert=True)), np.isin(np.asarray(x1), np.asarray(x2), invert=True)
    )


def test_isin_nan_is_never_in() -> None:
    x = f64([1.0, math.nan, 2.0])
    np.testing.assert_array_equal(np.array(ns.isin(x, f64([math.nan, 2.0]))), [False, False, True])
    assert ns.isin(mx.array([1, 2], dtype=mx.int32), 2).tolist() == [False, True]


# -- manipulation -------------------------------------------------------------------------------


@SETTINGS
@given(data=st.data())
def test_manipulation(data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from(STRICT_DTYPES), label="dtype")
    x = data.draw(
        xps.arrays(dtype, xps.array_shapes(min_dims=1, max_dims=3, max_side=4), elements=elements(dtype)), label="x"
    )
    m = to_mx(x)
    nd = x.ndim
    ax = data.draw(st.integers(-nd, nd - 1), label="axis")
    axes = data.draw(xps.valid_tuple_axes(nd), label="axes")
    perm = tuple(data.draw(st.permutations(range(nd)), label="perm"))
    cases: list[tuple[str, Any, Any]] = [
        ("flip", ns.flip(m, axis=axes), xp.flip(x, axis=axes)),
        ("flip None", ns.flip(m), xp.flip(x)),
        ("permute_dims", ns.permute_dims(m, perm), xp.permute_dims(x, perm)),
        ("moveaxis", ns.moveaxis(m, ax, 0), xp.moveaxis(x, ax, 0)),
        ("moveaxis tuple", ns.moveaxis(m, tuple(range(nd)), perm), xp.moveaxis(x, tuple(range(nd)), perm)),
        ("expand_dims", ns.expand_dims(m, axis=ax), xp.expand_dims(x, axis=ax)),
        ("expand_dims tuple", ns.expand_dims(m, axis=(0, -1)), xp.expand_dims(x, axis=(0, -1))),
        ("reshape", ns.reshape(m, (-1,)), xp.reshape(x, (-1,))),
        (
            "reshape copy",
            ns.reshape(m, tuple(reversed(x.shape)), copy=True),
            xp.reshape(x, tuple(reversed(x.shape)), copy=True),
        ),
        ("roll", ns.roll(m, 2, axis=ax), xp.roll(x, 2, axis=ax)),
        ("roll flat", ns.roll(m, -3), xp.roll(x, -3)),
        ("roll tuple", ns.roll(m, (1, -1), axis=(0, -1)), xp.roll(x, (1, -1), axis=(0, -1))),
        ("tile", ns.tile(m, (2, 1)), xp.tile(x, (2, 1))),
        ("repeat", ns.repeat(m, 2, axis=ax), xp.repeat(x, 2, axis=ax)),
        ("repeat flat", ns.repeat(m, 3), xp.repeat(x, 3)),
        ("broadcast_to", ns.broadcast_to(m, (2, *tuple(x.shape))), xp.broadcast_to(x, (2, *tuple(x.shape)))),
        ("concat", ns.concat([m, m], axis=ax), xp.concat([x, x], axis=ax)),
        ("concat None", ns.concat([m, m], axis=None), xp.concat([x, x], axis=None)),
        ("stack", ns.stack([m, m], axis=ax), xp.stack([x, x], axis=ax)),
        ("squeeze", ns.squeeze(ns.expand_dims(m, axis=ax), axis=ax), xp.squeeze(xp.expand_dims(x, axis=ax), axis=ax)),
        ("matrix_transpose", *((ns.matrix_transpose(m), xp.matrix_transpose(x)) if nd >= 2 else (m, x))),
    ]
    for label, got, expected in cases:
        assert_same(got, expected, label)
    got_u, exp_u = ns.unstack(m, axis=ax), xp.unstack(x, axis=ax)
    assert isinstance(got_u, tuple) and len(got_u) == len(exp_u)
    for g, e in zip(got_u, exp_u, strict=False):
        assert_same(g, e, "unstack")
    for g, e in zip(
        ns.broadcast_arrays(m, ns.expand_dims(m, axis=0)),
        xp.broadcast_arrays(x, xp.expand_dims(x, axis=0)),
        strict=False,
    ):
        assert_same(g, e, "broadcast_arrays")


def test_manipulation_promotes_and_checks() -> None:
    a, b = mx.array([1], dtype=mx.int8), mx.array([2], dtype=mx.int16)
    assert ns.concat([a, b]).dtype == mx.int16
    assert ns.stack([a, mx.array([1.0], dtype=mx.float64)]).dtype == mx.float64
    with pytest.raises(ValueError):
        ns.squeeze(mx.zeros((2, 3)), axis=0)
    assert ns.broadcast_shapes((2, 1), (3,)) == (2, 3)


def test_repeat_with_array_repeats_is_a_counted_fallback() -> None:
    x = mx.array([[1, 2], [3, 4]], dtype=mx.int64)
    with track_transfers() as t:
        got = ns.repeat(x, mx.array([2, 0], dtype=mx.int64), axis=0)
    assert t.count == 2
    np.testing.assert_array_equal(np.array(got), np.repeat(np.array(x), [2, 0], axis=0))


# -- creation ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, kwargs",
    [
        ((5,), {}),
        ((1, 7, 2), {}),
        ((0.5, 3.0, 0.25), {}),
        ((10, 0, -3), {}),
        ((3,), {"dtype": "float32"}),
        ((0, 1, 0.1), {"dtype": "float64"}),
        ((2, 2), {}),
        ((-5, 5, 1.5), {"dtype": "float32"}),
        ((255,), {"dtype": "uint8"}),
    ],
)
def test_arange(args: tuple, kwargs: dict) -> None:
    expected = xp.arange(*args, **{k: getattr(xp, v) for k, v in kwargs.items()})
    got = ns.arange(*args, **{k: np.dtype(v) for k, v in kwargs.items()})
    assert_same(got, expected, "arange", rtol=1e-15, atol=1e-15)


@pytest.mark.parametrize(
    "args, kwargs",
    [
        ((0, 1, 5), {}),
        ((0, 1, 5), {"endpoint": False}),
        ((-3.5, 2.25, 7), {"dtype": "float32"}),
        ((1, 1, 1), {}),
        ((2, 5, 0), {}),
        ((0, 1e-3, 33), {"dtype": "float64"}),
        ((1 + 1j, 2 - 3j, 4), {"dtype": "complex64"}),
    ],
)
def test_linspace(args: tuple, kwargs: dict) -> None:
    expected = xp.linspace(*args, **{k: getattr(xp, v) if k == "dtype" else v for k, v in kwargs.items()})
    got = ns.linspace(*args, **{k: np.dtype(v) if k == "dtype" else v for k, v in kwargs.items()})
    assert_same(
        got,
        expected,
        "linspace",
        rtol=1e-6 if "float32" in str(kwargs) or "complex" in str(kwargs) else 1e-15,
        atol=1e-15,
    )


def test_creation_functions() -> None:
    cases = [
        (ns.zeros((2, 3)), xp.zeros((2, 3))),
        (ns.ones(4, dtype=np.dtype("int8")), xp.ones(4, dtype=xp.int8)),
        (ns.empty((0, 2)), xp.zeros((0, 2))),
        (ns.full((2,), 7), xp.full((2,), 7)),
        (ns.full((2,), 0.1), xp.full((2,), 0.1)),
        (ns.full((2,), True), xp.full((2,), True)),
        (ns.full((2,), 2**64 - 1, dtype=np.dtype("uint64")), xp.full((2,), 2**64 - 1, dtype=xp.uint64)),
        (ns.eye(3, 4, k=1), xp.eye(3, 4, k=1)),
        (ns.eye(2, dtype=np.dtype("int32")), xp.eye(2, dtype=xp.int32)),
        (ns.eye(0), xp.eye(0)),
        (ns.tril(ns.ones((2, 3, 3)), k=-1), xp.tril(xp.ones((2, 3, 3)), k=-1)),
        (ns.triu(ns.ones((3, 4), dtype=np.dtype("int64")), k=1), xp.triu(xp.ones((3, 4), dtype=xp.int64), k=1)),
        (ns.zeros_like(mx.array([1, 2], dtype=mx.uint16)), xp.zeros_like(xp.asarray([1, 2], dtype=xp.uint16))),
        (ns.ones_like(f64([1.0])), xp.ones_like(xp.asarray([1.0]))),
        (ns.empty_like(f64([1.0]), dtype=np.dtype("float32")), xp.zeros((1,), dtype=xp.float32)),
        (ns.full_like(mx.array([1, 2], dtype=mx.int16), 5), xp.full_like(xp.asarray([1, 2], dtype=xp.int16), 5)),
        (ns.asarray([1, 2, 3]), xp.asarray([1, 2, 3])),
        (ns.asarray([[1.5, 2.0]]), xp.asarray([[1.5, 2.0]])),
        (ns.asarray(np.arange(3, dtype=np.float64)), xp.asarray(np.arange(3, dtype=np.float64))),
        (ns.asarray(True), xp.asarray(True)),
        (ns.asarray(f64([1.0]), dtype=np.dtype("float32")), xp.asarray([1.0], dtype=xp.float32)),
        (ns.asarray([f64(1.0), f64(2.0)]), xp.asarray([1.0, 2.0])),
    ]
    for i, (got, expected) in enumerate(cases):
        assert_same(got, expected, f"creation case {i}")
    assert ns.asarray([1j]).dtype == mx.complex64  # the namespace's default complex dtype
    for got, expected in zip(
        ns.meshgrid(mx.arange(3), mx.arange(2)),
        xp.meshgrid(xp.arange(3, dtype=xp.int32), xp.arange(2, dtype=xp.int32)),
        strict=False,
    ):
        assert_same(got, expected, "meshgrid xy")
    for got, expected in zip(
        ns.meshgrid(f64([1.0, 2.0]), f64([3.0]), indexing="ij"),
        xp.meshgrid(xp.asarray([1.0, 2.0]), xp.asarray([3.0]), indexing="ij"),
        strict=False,
    ):
        assert_same(got, expected, "meshgrid ij")


def test_asarray_copies_and_counts_host_data() -> None:
    a = f64([1.0, 2.0])
    assert ns.asarray(a) is a
    assert ns.asarray(a, copy=True) is not a
    with pytest.raises(ValueError):
        ns.asarray(a, dtype=np.dtype("float32"), copy=False)
    with track_transfers() as t:
        out = ns.asarray(np.array([0.1, 0.2]))
    assert out.dtype == mx.float64 and out.tolist() == [0.1, 0.2]
    assert t.count == 1 and t.records[0].explicit


def test_device_keyword_is_accepted() -> None:
    assert ns.zeros(2, device="mlx").shape == (2,)
    assert ns.arange(3, device=object()).shape == (3,)
    assert ns.astype(f64([1.0]), np.dtype("float32"), device="mlx").dtype == mx.float32
    assert ns.fft.fftfreq(4, device="mlx").dtype == mx.float64


# -- indexing ----------------------------------------------------------------------------------


@SETTINGS
@given(data=st.data())
def test_getitem_basic(data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from(STRICT_DTYPES), label="dtype")
    x = data.draw(xps.arrays(dtype, xps.array_shapes(min_dims=0, max_dims=3, max_side=4), elements=elements(dtype)))
    key = data.draw(xps.indices(x.shape, allow_newaxis=True, allow_ellipsis=True), label="key")
    assert_same(ns.getitem(to_mx(x), key), x[key], f"x[{key}]")


@SETTINGS
@given(data=st.data())
def test_getitem_integer_arrays(data: st.DataObject) -> None:
    # array-api-strict allows integer arrays only together with integers and
    # with every axis indexed; NumPy, whose rules the standard follows, is
    # the reference for the rest.
    x = data.draw(xps.arrays(xp.int64, xps.array_shapes(min_dims=2, max_dims=3, min_side=1, max_side=4)))
    n = np.asarray(x)

    def index(axis: int, dtype: Any = xp.int64) -> Any:
        k = x.shape[axis]
        return data.draw(xps.arrays(dtype, (3,), elements=st.integers(-k, k - 1)), label=f"index for axis {axis}")

    i0, i1 = index(0), index(1, xp.int32)
    m, j0, j1 = to_mx(x), to_mx(i0), to_mx(i1)
    a0, a1 = np.asarray(i0), np.asarray(i1)
    assert_same(ns.getitem(m, (j0, j1)), n[a0, a1], "x[i0, i1]")
    assert_same(ns.getitem(m, (j0, Ellipsis)), n[a0, ...], "x[i0, ...]")
    assert_same(ns.getitem(m, (slice(None), j1)), n[:, a1], "x[:, i1]")
    assert_same(ns.getitem(m, (0, j1)), n[0, a1], "x[0, i1]")
    assert_same(ns.getitem(m, (None, j0, slice(None, None, -1))), n[None, a0, ::-1], "x[None, i0, ::-1]")
    if x.ndim == 3:
        i2 = index(2)
        assert_same(ns.getitem(m, (j0, slice(None), to_mx(i2))), n[a0, :, np.asarray(i2)], "x[i0, :, i2]")


@SETTINGS
@given(data=st.data())
def test_getitem_boolean_mask(data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from(STRICT_DTYPES), label="dtype")
    x = data.draw(xps.arrays(dtype, xps.array_shapes(min_dims=1, max_dims=3, max_side=4), elements=elements(dtype)))
    k = data.draw(st.integers(1, x.ndim), label="mask dims")
    # The standard lets any mask dimension be 0 instead of the array's size.
    zeroed = data.draw(st.lists(st.booleans(), min_size=k, max_size=k), label="zeroed dims")
    mask_shape = tuple(0 if z else s for s, z in zip(x.shape[:k], zeroed, strict=False))
    mask = data.draw(xps.arrays(xp.bool, mask_shape), label="mask")
    assert_same(ns.getitem(to_mx(x), to_mx(mask)), x[mask], "x[mask]")
    # array-api-strict allows a mask only as the sole index; NumPy decides the rest.
    n, nm = np.asarray(x), np.asarray(mask)
    assert_same(ns.getitem(to_mx(x), (to_mx(mask), Ellipsis)), n[nm, ...], "x[mask, ...]")
    if x.ndim > k:
        assert_same(ns.getitem(to_mx(x), (to_mx(mask), 0)), n[nm, 0], "x[mask, 0]")
        assert_same(
            ns.getitem(to_mx(x), (Ellipsis, to_mx(np.asarray(x)[(0,) * k] != 0))),
            n[..., n[(0,) * k] != 0],
            "x[..., trailing mask]",
        )


def test_getitem_scalar_booleans_and_bounds() -> None:
    x = mx.arange(6).reshape(2, 3)
    n = np.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(np.array(ns.getitem(x, True)), n[True])
    assert ns.getitem(x, False).shape == (0, 2, 3)
    np.testing.assert_array_equal(np.array(ns.getitem(x, (0, True))), n[0, True])
    with pytest.raises(IndexError):
        ns.getitem(x, 2)  # MLX itself would read past the end
    with pytest.raises(IndexError):
        ns.getitem(x, (0, -4))
    with pytest.raises(IndexError):
        ns.getitem(x, (0, 0, 0))
    out = ns.getitem(x, ())
    assert out is not x and out.shape == (2, 3)


def test_setitem() -> None:
    x = mx.zeros((3, 4), dtype=mx.float64)
    alias = x
    ns.setitem(x, (0, slice(None)), 1.5)
    ns.setitem(x, (Ellipsis, -1), f64([7.0, 8.0, 9.0]))
    ns.setitem(x, (mx.array([1, 2]), mx.array([0, 1])), 2)
    expected = np.zeros((3, 4))
    expected[0, :] = 1.5
    expected[..., -1] = [7.0, 8.0, 9.0]
    expected[[1, 2], [0, 1]] = 2
    np.testing.assert_array_equal(np.array(x), expected)
    assert alias is x and x.dtype == mx.float64
    with pytest.raises(IndexError):
        ns.setitem(x, 3, 1.0)
    with pytest.raises(OverflowError):
        ns.setitem(mx.zeros(2, dtype=mx.uint8), 0, 256)


def test_setitem_boolean_mask_stays_in_mlx() -> None:
    x = mx.arange(12, dtype=mx.int32).reshape(3, 4)
    n = np.arange(12, dtype=np.int32).reshape(3, 4)
    mask = mx.array(np.array(n) % 3 == 0)
    with track_transfers() as t:
        ns.setitem(x, mask, -1)
        rows = mx.array([True, False, True])
        ns.setitem(x, rows, mx.array([100, 101, 102, 103], dtype=mx.int32))
        ns.setitem(x, mx.array([False, True, False]), mx.array([[5, 6, 7, 8]], dtype=mx.int32))
        mx.eval(x)
    assert t.count == 0
    n[n % 3 == 0] = -1
    n[[True, False, True]] = [100, 101, 102, 103]
    n[[False, True, False]] = [[5, 6, 7, 8]]
    np.testing.assert_array_equal(np.array(x), n)
    # One value per selected element, in order.
    y = mx.zeros(5, dtype=mx.float64)
    ns.setitem(y, mx.array([True, False, True, True, False]), f64([1.0, 2.0, 3.0]))
    assert y.tolist() == [1.0, 0.0, 2.0, 3.0, 0.0]


def test_setitem_with_a_mask_of_zero_size_changes_nothing() -> None:
    x = mx.ones((2, 3), dtype=mx.float32)
    for shape in [(0,), (0, 3), (2, 0)]:
        ns.setitem(x, mx.zeros(shape, dtype=mx.bool_), 5.0)
    assert x.tolist() == [[1.0] * 3] * 2
    with pytest.raises(IndexError):
        ns.setitem(x, mx.zeros((1, 3), dtype=mx.bool_), 5.0)


def test_setitem_mask_takes_exactly_one_value_per_selected_element() -> None:
    # As NumPy: as many values as the mask selects (or one, broadcast), else
    # a ValueError; an empty value for a mask that selects nothing is a no-op
    # (array-api-extra's apply_where does this; MLX's take failed on it).
    y = mx.zeros(4, dtype=mx.float64)
    ns.setitem(y, mx.array([False] * 4), f64([]))
    assert y.tolist() == [0.0] * 4
    for values in ([1.0, 2.0], [1.0, 2.0, 3.0, 4.0], []):
        with pytest.raises(ValueError, match="where the mask is true"):
            ns.setitem(y, mx.array([True, False, True, True]), f64(values))
    assert y.tolist() == [0.0] * 4
    n = np.zeros(4)
    with pytest.raises(ValueError):
        n[[True, False, True, True]] = [1.0, 2.0]  # the reference behaves alike


def test_setitem_mask_mixed_with_other_indices_reads_only_its_size() -> None:
    x = mx.zeros((2, 3), dtype=mx.int64)
    with track_transfers() as t:
        ns.setitem(x, (1, mx.array([True, False, True])), 4)
    # The mask's positions are found on MLX; only how many leaves it.
    assert t.count == 1 and t.records[0].reason == "mlx: data-dependent size" and t.records[0].nbytes == 8
    assert x.tolist() == [[0, 0, 0], [4, 0, 4]]


@SETTINGS
@given(data=st.data())
def test_take(data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from(STRICT_DTYPES), label="dtype")
    x = data.draw(
        xps.arrays(dtype, xps.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4), elements=elements(dtype))
    )
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1), label="axis")
    n = x.shape[axis]
    idx = data.draw(xps.arrays(xp.int64, st.integers(0, 5).map(lambda k: (k,)), elements=st.integers(-n, n - 1)))
    assert_same(ns.take(to_mx(x), to_mx(idx), axis=axis), xp.take(x, idx, axis=axis), "take")
    along = data.draw(xps.arrays(xp.int64, tuple(x.shape), elements=st.integers(-n, n - 1)))
    assert_same(
        ns.take_along_axis(to_mx(x), to_mx(along), axis=axis),
        xp.take_along_axis(x, along, axis=axis),
        "take_along_axis",
    )


def test_integer_array_indices_are_checked_as_numpy_checks_them() -> None:
    # MLX clamps an out-of-range gather or scatter index (a read gives the
    # last element, a write lands on it); NumPy raises IndexError at the call.
    x = mx.array([1, 2, 3])
    n = np.array([1, 2, 3])
    for bad in ([5], [-4], [0, 3], [-7, 5]):
        for call in (
            lambda k: ns.take(x, k),
            lambda k: ns.getitem(x, k),
            lambda k: ns.setitem(x, k, 9),
            lambda k: ns.take_along_axis(x, k, axis=0),
        ):
            with pytest.raises(IndexError):
                call(mx.array(bad))
            with pytest.raises(IndexError):
                n[np.array(bad)]
    assert x.tolist() == [1, 2, 3]  # nothing written by a refused scatter
    # In range, negatives count from the end, in every index dtype.
    for dt in (mx.int8, mx.int16, mx.int32, mx.int64, mx.uint8, mx.uint64):
        k = mx.array([2, 0] if dt in (mx.uint8, mx.uint64) else [-1, -3, 2], dtype=dt)
        expected = n[np.array(k)].tolist()
        assert ns.take(x, k).tolist() == expected
        assert ns.getitem(x, k).tolist() == expected
    # -1 + 300 in int8 would wrap: the wrap is computed in int64.
    long = mx.arange(300)
    assert ns.getitem(long, mx.array([-1, -128], dtype=mx.int8)).tolist() == [299, 172]
    with pytest.raises(IndexError):
        ns.getitem(x, mx.array([2**40], dtype=mx.uint64))
    with pytest.raises(IndexError):
        ns.getitem(mx.zeros((2, 3)), (slice(None), mx.array([3])))
    with pytest.raises(IndexError):
        ns.take(mx.zeros((2, 0)), mx.array([0]), axis=1)
    with pytest.raises(IndexError):
        ns.take_along_axis(mx.zeros((2, 0)), mx.zeros((2, 1), dtype=mx.int64), axis=1)
    # The index is read once, whatever its size; empty indices are not read.
    assert ns.take(x, mx.array([], dtype=mx.int64)).shape == (0,)
    assert ns.getitem(mx.zeros((2, 0)), mx.array([1])).shape == (1, 0)
    assert ns.take(x, 2).item() == 3 and ns.take(x, -3).item() == 1
    # Indices given as host data are checked on the host (no device read).
    assert ns.take(x, [-1, 0]).tolist() == [3, 1]
    assert ns.getitem(x, [-1, -3]).tolist() == [3, 1]
    assert ns.getitem(long, np.array([-1, -128], dtype=np.int8)).tolist() == [299, 172]
    for bad in ([3], [-4], np.array([0, 5])):
        with pytest.raises(IndexError):
            ns.getitem(x, bad)
        with pytest.raises(IndexError):
            ns.take(x, bad)
        with pytest.raises(IndexError):
            ns.setitem(x, bad, 0)
    for bad in (3, -4):
        with pytest.raises(IndexError):
            ns.take(x, bad)
    with pytest.raises(IndexError):
        ns.getitem(x, [1.5])  # NumPy's class; [2**70] (an object array) too
    with pytest.raises(IndexError):
        ns.getitem(x, [2**70])
    assert x.tolist() == [1, 2, 3]


def test_take_of_a_huge_python_int_is_numpys_overflow_error() -> None:
    x = mx.array([1, 2, 3])
    for big in (2**70, -(2**70)):
        with pytest.raises(OverflowError):
            np.take(np.array([1, 2, 3]), big)
        with pytest.raises(OverflowError):  # MLX itself raises RuntimeError: std::bad_cast
            ns.take(x, big)
    with pytest.raises(IndexError):
        ns.take(x, 2**40)


# -- linear algebra ----------------------------------------------------------------------------


@SETTINGS
@given(data=st.data())
def test_matmul_tensordot_vecdot(data: st.DataObject) -> None:
    d1, d2 = data.draw(st.sampled_from([p for p in accepted_pairs("multiply") if "bool" not in str(p)]), label="dtypes")
    n, k, m = data.draw(st.tuples(st.integers(1, 4), st.integers(1, 4), st.integers(1, 4)), label="n, k, m")
    batch = data.draw(st.sampled_from([(), (2,)]), label="batch")
    a = data.draw(xps.arrays(d1, (*batch, n, k), elements=elements(d1, bound=8.0)))
    b = data.draw(xps.arrays(d2, (k, m), elements=elements(d2, bound=8.0)))
    assert_same(ns.matmul(to_mx(a), to_mx(b)), call_strict(xp.matmul, a, b), "matmul", rtol=1e-4, atol=1e-4)
    assert_same(
        ns.linalg.matmul(to_mx(a), to_mx(b)), call_strict(xp.matmul, a, b), "linalg.matmul", rtol=1e-4, atol=1e-4
    )
    v = a[..., 0, :]
    w = b[:, 0]
    assert_same(ns.matmul(to_mx(v), to_mx(b)), call_strict(xp.matmul, v, b), "matmul 1-D @ 2-D", rtol=1e-4, atol=1e-4)
    assert_same(ns.matmul(to_mx(a), to_mx(w)), call_strict(xp.matmul, a, w), "matmul 2-D @ 1-D", rtol=1e-4, atol=1e-4)
    assert_same(
        ns.tensordot(to_mx(a), to_mx(b), axes=1),
        call_strict(xp.tensordot, a, b, axes=1),
        "tensordot",
        rtol=1e-4,
        atol=1e-4,
    )
    assert_same(
        ns.tensordot(to_mx(a), to_mx(b), axes=((-1,), (0,))),
        call_strict(xp.tensordot, a, b, axes=((-1,), (0,))),
        "tensordot axes",
        rtol=1e-4,
        atol=1e-4,
    )
    c = data.draw(xps.arrays(d2, (k,), elements=elements(d2, bound=8.0)))
    assert_same(ns.vecdot(to_mx(a), to_mx(c)), call_strict(xp.vecdot, a, c), "vecdot", rtol=1e-4, atol=1e-4)


def test_integer_matmul_is_exact_and_wraps() -> None:
    rng = np.random.default_rng(0)
    for dtype in ["int8", "uint16", "int32", "int64", "uint64"]:
        info = np.iinfo(dtype)
        a = rng.integers(info.min, info.max, (3, 5, 4), dtype=dtype, endpoint=True)
        b = rng.integers(info.min, info.max, (4, 2), dtype=dtype, endpoint=True)
        with np.errstate(all="ignore"):
            expected = a @ b
        got = ns.matmul(mx.array(a), mx.array(b))
        assert got.dtype == mx.array(a).dtype
        np.testing.assert_array_equal(np.array(got), expected, err_msg=dtype)


def _well_conditioned(data: st.DataObject, dtype: Any, shape: tuple[int, ...], spd: bool = False) -> Any:
    x = data.draw(xps.arrays(dtype, shape, elements=elements(dtype, bound=1.0, complex_bound=1.0)))
    n = shape[-1]
    if spd:
        x = xp.matmul(
            x, xp.conj(xp.matrix_transpose(x)) if xp.isdtype(dtype, "complex floating") else xp.matrix_transpose(x)
        )
    # A dominant (rectangular) diagonal keeps the matrix far from singular.
    return x + 3 * n * xp.eye(shape[-2], n, dtype=dtype)


LINALG_DTYPES = [xp.float32, xp.float64, xp.complex64]


@SETTINGS
@given(data=st.data())
def test_linalg_square(data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from(LINALG_DTYPES), label="dtype")
    n = data.draw(st.integers(1, 4), label="n")
    batch = data.draw(st.sampled_from([(), (2,)]), label="batch")
    x = _well_conditioned(data, dtype, (*batch, n, n))
    spd = _well_conditioned(data, dtype, (*batch, n, n), spd=True)
    b = data.draw(xps.arrays(dtype, (*batch, n, 2), elements=elements(dtype, bound=1.0, complex_bound=1.0)))
    tol = {"rtol": 1e-3, "atol": 1e-4} if dtype != xp.float64 else {"rtol": 1e-9, "atol": 1e-10}
    L = xp.linalg
    assert_same(ns.linalg.cholesky(to_mx(spd)), L.cholesky(spd), "cholesky", **tol)
    assert_same(ns.linalg.cholesky(to_mx(spd), upper=True), L.cholesky(spd, upper=True), "cholesky upper", **tol)
    assert_same(ns.linalg.det(to_mx(x)), L.det(x), "det", **tol)
    assert_same(ns.linalg.inv(to_mx(x)), L.inv(x), "inv", **tol)
    assert_same(ns.linalg.solve(to_mx(x), to_mx(b)), L.solve(x, b), "solve", **tol)
    if not batch:
        v = b[:, 0]
        assert_same(ns.linalg.solve(to_mx(x), to_mx(v)), L.solve(x, v), "solve vector", **tol)
    sign, logabs = ns.linalg.slogdet(to_mx(x))
    esign, elogabs = L.slogdet(x)
    assert_same(sign, esign, "slogdet sign", **tol)
    assert_same(logabs, elogabs, "slogdet logabsdet", **tol)
    assert_same(ns.linalg.eigvalsh(to_mx(spd)), L.eigvalsh(spd), "eigvalsh", **tol)
    w, v = ns.linalg.eigh(to_mx(spd))
    assert_same(w, L.eigh(spd).eigenvalues, "eigh values", **tol)
    # Eigenvectors are unique only up to phase: check the decomposition.
    recon = ns.matmul(ns.multiply(v, ns.expand_dims(w, axis=-2).astype(v.dtype)), ns.conj(ns.matrix_transpose(v)))
    assert_same(recon, spd, "eigh reconstruction", **{**tol, "atol": 1e-3 if dtype != xp.float64 else 1e-9})
    assert_same(
        ns.linalg.matrix_power(to_mx(x), 3),
        L.matrix_power(x, 3),
        "matrix_power",
        rtol=1e-3 if dtype != xp.float64 else 1e-9,
        atol=1e-3,
    )
    assert_same(ns.linalg.matrix_power(to_mx(x), 0), L.matrix_power(x, 0), "matrix_power 0")
    assert_same(ns.linalg.matrix_power(to_mx(x), -2), L.matrix_power(x, -2), "matrix_power -2", **tol)
    assert_same(ns.linalg.trace(to_mx(x), offset=0), L.trace(x), "trace", **tol)


@SETTINGS
@given(data=st.data())
def test_linalg_rectangular(data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from(LINALG_DTYPES), label="dtype")
    m, n = data.draw(st.tuples(st.integers(1, 4), st.integers(1, 4)), label="m, n")
    x = _well_conditioned(data, dtype, (m, n))
    tol = {"rtol": 1e-3, "atol": 1e-4} if dtype != xp.float64 else {"rtol": 1e-9, "atol": 1e-10}
    L = xp.linalg
    assert_same(ns.linalg.svdvals(to_mx(x)), L.svdvals(x), "svdvals", **tol)
    for full in (True, False):
        u, s, vh = ns.linalg.svd(to_mx(x), full_matrices=full)
        eu, _es, evh = L.svd(x, full_matrices=full)
        assert u.shape == eu.shape and vh.shape == evh.shape
        k = min(m, n)
        recon = ns.matmul(ns.multiply(u[..., :k], ns.astype(s, _core.dtype_of(u))[None, :]), vh[:k])
        assert_same(
            recon, x, f"svd reconstruction full={full}", **{**tol, "atol": 1e-4 if dtype != xp.float64 else 1e-9}
        )
    for mode in ("reduced", "complete"):
        q, r = ns.linalg.qr(to_mx(x), mode=mode)
        eq, er = L.qr(x, mode=mode)
        assert q.shape == eq.shape and r.shape == er.shape and q.dtype == to_mx(eq).dtype
        assert_same(ns.matmul(q, r), x, f"qr {mode}", **{**tol, "atol": 1e-4 if dtype != xp.float64 else 1e-9})
        qh = np.array(q)
        np.testing.assert_allclose(qh.conj().T @ qh, np.eye(qh.shape[-1]), atol=1e-5)
        assert np.array_equal(np.array(r), np.triu(np.array(r)))
    assert_same(ns.linalg.pinv(to_mx(x)), L.pinv(x), "pinv", **tol)
    assert_same(ns.linalg.matrix_rank(to_mx(x)), L.matrix_rank(x), "matrix_rank")
    low_rank = xp.ones((m, n), dtype=dtype)
    assert_same(ns.linalg.matrix_rank(to_mx(low_rank)), L.matrix_rank(low_rank), "matrix_rank of ones")
    for ord_ in ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf):
        assert_same(ns.linalg.matrix_norm(to_mx(x), ord=ord_), L.matrix_norm(x, ord=ord_), f"matrix_norm {ord_}", **tol)
    assert_same(
        ns.linalg.matrix_norm(to_mx(x), keepdims=True), L.matrix_norm(x, keepdims=True), "matrix_norm keepdims", **tol
    )
    for ord_ in (2, 1, 0, math.inf, -math.inf, 3, 0.5):
        assert_same(ns.linalg.vector_norm(to_mx(x), ord=ord_), L.vector_norm(x, ord=ord_), f"vector_norm {ord_}", **tol)
    assert_same(
        ns.linalg.vector_norm(to_mx(x), axis=0, keepdims=True),
        L.vector_norm(x, axis=0, keepdims=True),
        "vector_norm axis",
        **tol,
    )
    assert_same(ns.linalg.diagonal(to_mx(x), offset=1), L.diagonal(x, offset=1), "diagonal")
    assert_same(ns.linalg.matrix_transpose(to_mx(x)), L.matrix_transpose(x), "matrix_transpose")
    assert_same(ns.linalg.outer(to_mx(x[0, :]), to_mx(x[:, 0])), L.outer(x[0, :], x[:, 0]), "outer", **tol)


def test_linalg_cross_and_integers() -> None:
    a = mx.array([[1, 2, 3], [4, 5, 6]], dtype=mx.int64)
    b = mx.array([7, 8, 10], dtype=mx.int64)
    assert_same(ns.linalg.cross(a, b), xp.linalg.cross(xp.asarray(np.array(a)), xp.asarray(np.array(b))), "cross")
    i = mx.array([[2, 1], [1, 3]], dtype=mx.int32)
    assert ns.linalg.det(i).dtype == mx.float64 and ns.linalg.det(i).item() == pytest.approx(5.0)
    assert ns.linalg.matrix_power(i, 2).dtype == mx.int32
    assert ns.linalg.trace(i).dtype == mx.int64


@pytest.mark.parametrize("shape", [(0, 3), (3, 0, 3), (0, 0, 3)])
def test_cross_and_unstack_of_empty_arrays(shape: tuple[int, ...]) -> None:
    # mx.take refuses arrays with zero elements; both must still answer.
    x = np.zeros(shape, dtype=np.float32)
    assert_same(ns.linalg.cross(to_mx(x), to_mx(x)), xp.linalg.cross(xp.asarray(x), xp.asarray(x)), "cross")
    for axis in range(len(shape)):
        got, exp = ns.unstack(to_mx(x), axis=axis), xp.unstack(xp.asarray(x), axis=axis)
        assert len(got) == len(exp)
        for g, e in zip(got, exp, strict=False):
            assert_same(g, e, "unstack")


def test_linalg_eig() -> None:
    x = mx.array([[2.0, 1.0], [0.0, 3.0]], dtype=mx.float32)
    w, v = ns.linalg.eig(x)
    assert w.dtype == mx.complex64 and v.dtype == mx.complex64
    np.testing.assert_allclose(np.sort(np.array(w).real), [2.0, 3.0], rtol=1e-6)
    np.testing.assert_allclose(np.array(ns.matmul(x.astype(mx.complex64), v)), np.array(v * w[None, :]), atol=1e-5)
    assert ns.linalg.eigvals(x).dtype == mx.complex64


def test_complex_linalg_fallbacks_are_counted() -> None:
    z = mx.array(np.array([[2 + 1j, 1], [0.5j, 3]], dtype=np.complex64))
    spd = ns.add(ns.matmul(z, ns.conj(ns.matrix_transpose(z))), 1)
    for fn, moves in [
        (ns.linalg.inv, 2),
        (ns.linalg.det, 2),
        (ns.linalg.slogdet, 3),
        (ns.linalg.qr, 3),
        (lambda a: ns.linalg.cholesky(spd), 2),
    ]:
        with track_transfers() as t:
            out = fn(z)
        assert t.count == moves, fn.__name__
        assert all(r.reason.startswith("mlx fallback: linalg.") for r in t.records)
        for o in out if isinstance(out, tuple) else (out,):
            assert o.dtype in (mx.complex64, mx.float32)
    with track_transfers() as t:
        ns.linalg.solve(z, z)
    assert t.count == 3
    with track_transfers() as t:
        ns.linalg.eigh(z)  # MLX has complex eigh: no move
        ns.linalg.svdvals(z)
    assert t.count == 0


# -- fft ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
@SETTINGS
@given(data=st.data())
def test_fft_one_axis(name: str, data: st.DataObject) -> None:
    real_in = name in ("rfft", "ihfft")
    dtype = xp.float32 if real_in else xp.complex64
    x = data.draw(
        xps.arrays(
            dtype, xps.array_shapes(min_dims=1, max_dims=2, min_side=2, max_side=6), elements=elements(dtype, bound=10)
        )
    )
    n = data.draw(st.none() | st.integers(2, 8), label="n")
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1), label="axis")
    norm = data.draw(st.sampled_from(["backward", "ortho", "forward"]), label="norm")
    expected = call_strict(getattr(xp.fft, name), x, n=n, axis=axis, norm=norm)
    assert_same(getattr(ns.fft, name)(to_mx(x), n=n, axis=axis, norm=norm), expected, name, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn"])
@SETTINGS
@given(data=st.data())
def test_fft_many_axes(name: str, data: st.DataObject) -> None:
    dtype = xp.float32 if name == "rfftn" else xp.complex64
    x = data.draw(
        xps.arrays(
            dtype, xps.array_shapes(min_dims=2, max_dims=3, min_side=2, max_side=5), elements=elements(dtype, bound=10)
        )
    )
    axes = data.draw(st.none() | st.just((0, -1)), label="axes")
    s = data.draw(st.none() | st.tuples(st.integers(2, 6), st.integers(2, 6)), label="s")
    if s is not None and axes is None:
        axes = (-2, -1)
    norm = data.draw(st.sampled_from(["backward", "ortho", "forward"]), label="norm")
    expected = call_strict(getattr(xp.fft, name), x, s=s, axes=axes, norm=norm)
    assert_same(getattr(ns.fft, name)(to_mx(x), s=s, axes=axes, norm=norm), expected, name, rtol=1e-4, atol=1e-4)


def test_fft_helpers() -> None:
    for n in (1, 4, 5):
        assert_same(ns.fft.fftfreq(n, d=0.5), xp.fft.fftfreq(n, d=0.5), "fftfreq", rtol=1e-15)
        assert_same(ns.fft.rfftfreq(n, dtype=np.dtype("float32")), xp.fft.rfftfreq(n, dtype=xp.float32), "rfftfreq")
    x = mx.arange(12, dtype=mx.float32).reshape(3, 4)
    sx = xp.reshape(xp.arange(12, dtype=xp.float32), (3, 4))
    assert_same(ns.fft.fftshift(x), xp.fft.fftshift(sx), "fftshift")
    assert_same(ns.fft.ifftshift(x, axes=1), xp.fft.ifftshift(sx, axes=1), "ifftshift")
    assert_same(ns.fft.fftshift(f64([1.0, 2.0, 3.0])), xp.fft.fftshift(xp.asarray([1.0, 2.0, 3.0])), "fftshift f64")


# -- dtypes and refusals ------------------------------------------------------------------------


def test_dtype_helpers() -> None:
    for name in (*DTYPE_NAMES, "float16"):
        d = np.dtype(name)
        assert ns.to_np_dtype(ns.to_mx_dtype(d)) == d
        assert ns.supports_dtype(d)
    assert ns.to_mx_dtype(np.dtype("float64")) == mx.float64
    assert ns.to_mx_dtype("int8") == mx.int8
    assert not ns.supports_dtype(np.dtype("complex128"))
    with pytest.raises(TypeError, match=r"mlx.*complex128"):
        ns.to_mx_dtype(np.dtype("complex128"))
    with pytest.raises(TypeError, match="mlx"):
        ns.to_np_dtype(mx.bfloat16)
    assert ns.result_type(mx.array([1], dtype=mx.int8), np.dtype("uint8")) == np.dtype("int16")
    assert ns.can_cast(np.dtype("int8"), np.dtype("int16"))
    assert ns.isdtype(np.dtype("float64"), "real floating")
    assert ns.finfo(f64([1.0])).eps == np.finfo(np.float64).eps
    assert ns.iinfo(np.dtype("uint8")).max == 255
    assert ns.__array_api_version__ == "2025.12"
    assert ns.__array_namespace_info__().default_dtypes()["complex floating"] == np.dtype("complex64")


@SETTINGS
@given(data=st.data())
def test_astype(data: st.DataObject) -> None:
    d1 = data.draw(st.sampled_from(STRICT_DTYPES), label="from")
    d2 = data.draw(st.sampled_from(STRICT_DTYPES), label="to")
    # Complex to real is refused by both; complex to bool, which the standard
    # allows, array-api-strict refuses (tested on its own below).
    assume(not (np_dtype(d1).kind == "c" and np_dtype(d2).kind != "c"))
    elems = elements(d1) if np_dtype(d1).kind not in "fc" else elements(d1, bound=100.0, complex_bound=100.0)
    if np_dtype(d1).kind in "fc" and np_dtype(d2).kind in "iu":
        elems = xps.from_dtype(d1, min_value=0, max_value=100) if np_dtype(d1).kind == "f" else st.just(complex(3, 0))
    x = data.draw(xps.arrays(d1, SHAPES, elements=elems))
    expected = call_strict(xp.astype, x, d2)
    got = ns.astype(to_mx(x), np_dtype(d2))
    assert_same(got, expected, "astype")
    assert ns.astype(to_mx(x), np_dtype(d1), copy=False).dtype == to_mx(x).dtype


@pytest.mark.parametrize(
    "call, op",
    [
        (lambda: ns.add(mx.array([1j], dtype=mx.complex64), f64([1.0])), "add"),
        (lambda: ns.multiply(f64([1.0]), 1j), "multiply"),
        (lambda: ns.zeros(2, dtype=np.dtype("complex128")), "zeros"),
        (lambda: ns.astype(f64([1.0]), np.dtype("complex128")), "astype"),
        (lambda: ns.fft.fft(f64([1.0, 2.0])), "fft.fft"),
        (lambda: ns.fft.rfft(f64([1.0, 2.0])), "fft.rfft"),
        (lambda: ns.fft.irfft(f64([1.0, 2.0])), "fft.irfft"),
        (lambda: ns.fft.fft(mx.array([1, 2])), "fft.fft"),
        (lambda: ns.linalg.eig(f64([[1.0, 0.0], [0.0, 1.0]])), "linalg.eig"),
        (lambda: ns.linalg.eigvals(f64([[1.0, 0.0], [0.0, 1.0]])), "linalg.eigvals"),
        (lambda: ns.linalg.inv(mx.eye(2, dtype=mx.float16)), "linalg.inv"),
    ],
)
def test_refusals_name_backend_dtype_and_operation(call: Callable[[], Any], op: str) -> None:
    with pytest.raises(TypeError) as info:
        call()
    msg = str(info.value)
    assert "mlx" in msg and op in msg, msg
    assert any(d in msg for d in ("complex128", "float64", "int", "float16")), msg


def test_complex_to_real_astype_is_refused() -> None:
    z = mx.array([1 + 2j], dtype=mx.complex64)
    with pytest.raises(TypeError, match="mlx astype"):
        ns.astype(z, np.dtype("float32"))
    assert ns.astype(z, np.dtype("bool")).tolist() == [True]


def test_no_result_is_downcast() -> None:
    # Every float64 input gives a float64 result; nothing goes through float32.
    x = f64([0.1, 0.2, 0.3])
    for name in ["exp", "sin", "cos", "sqrt", "log", "tanh", "expm1", "negative"]:
        assert getattr(ns, name)(x).dtype == mx.float64, name
    for fn in [ns.sum, ns.mean, ns.std, ns.var, ns.prod, ns.max, ns.cumulative_sum]:
        assert fn(x).dtype == mx.float64, fn.__name__
    assert ns.sum(mx.array([1, 2], dtype=mx.int8)).dtype == mx.int64
    assert ns.mean(mx.array([1, 2], dtype=mx.int8)).dtype == mx.float64
    assert ns.matmul(ns.reshape(x, (1, 3)), ns.reshape(x, (3, 1))).dtype == mx.float64
    assert ns.linalg.inv(f64([[2.0]])).item() == 0.5 and ns.linalg.inv(f64([[2.0]])).dtype == mx.float64
    assert ns.sum(x, dtype=np.dtype("float32")).dtype == mx.float32  # asked for explicitly


# -- host fallbacks: counted, and guarded -----------------------------------------------------


def test_data_dependent_shapes_read_only_their_size() -> None:
    """nonzero, unique_* and a mask's selection run on MLX; the one thing
    that leaves the device is their length (8 bytes, counted, implicit)."""
    x = mx.array([[0, 3], [5, 0]], dtype=mx.int32)
    calls = {
        "nonzero": lambda: ns.nonzero(x),
        **{
            name: (lambda name=name: getattr(ns, name)(x))
            for name in ("unique_all", "unique_counts", "unique_inverse", "unique_values")
        },
        "mask": lambda: ns.getitem(x, x > 0),
    }
    for name, call in calls.items():
        with track_transfers() as t:
            call()
        assert [(r.reason, r.nbytes, r.explicit) for r in t.records] == [("mlx: data-dependent size", 8, False)], name
    with track_transfers() as t, pytest.raises(TransferError, match="data-dependent size"), transfer_guard("disallow"):
        ns.nonzero(x)
    with track_transfers() as t:
        got = ns.getitem(x, (0, True))  # a 0-d boolean is a new axis: no data, no host
    assert t.count == 0 and got.tolist() == np.asarray(x)[0, True].tolist()
    with track_transfers() as t:
        got = ns.getitem(x, [1, 0])  # an index given as host data
        taken = ns.take(x, [1], axis=1)
    assert t.count == 2 and got.tolist() == [[5, 0], [0, 3]] and taken.tolist() == [[3], [0]]


def test_ordinary_functions_move_nothing() -> None:
    x = f64([[1.0, -2.0], [3.0, 4.0]])
    with track_transfers() as t:
        out = [
            ns.add(x, 1),
            ns.exp(x),
            ns.sum(x, axis=0),
            ns.sort(x),
            ns.getitem(x, (0, slice(None))),
            ns.getitem(x, mx.array([1, 0])),
            ns.isin(x, f64([1.0])),
            ns.linalg.inv(x),
            ns.searchsorted(f64([0.0, 2.0]), x),
            ns.argmax(x),
            ns.where(x > 0, x, 0.0),
            ns.matmul(x, x),
            ns.cumulative_sum(x, axis=1),
        ]
        mx.eval(out)
    assert t.count == 0


def test_transfer_guard_stops_host_fallbacks() -> None:
    from unifiedarray._policy import TransferError, transfer_guard

    x = mx.array([0, 1, 2])
    with transfer_guard("disallow"):
        with pytest.raises(TransferError):
            ns.nonzero(x)
        with pytest.raises(TransferError):
            ns.unique_values(x)
        ns.add(x, 1)  # no move, no error
    assert len(ns.HOST_FALLBACKS) >= 3 and all(isinstance(s, str) for s in ns.HOST_FALLBACKS)


def test_empty_arrays_made_from_numpy() -> None:
    # mx.array(empty NumPy array), which is what every upload of an empty
    # array is, makes MLX reductions read garbage (prod 0, all False) and
    # sometimes spin forever.  The namespace must hand MLX its own empties.
    for _ in range(30):
        e = mx.array(np.zeros((0, 2), dtype=np.int64), dtype=mx.int64)
        assert ns.prod(e, axis=0).tolist() == [1, 1]
        assert ns.prod(e).item() == 1
        assert ns.all(e, axis=0).tolist() == [True, True]
        assert ns.all(e).item() is True
        assert ns.count_nonzero(e, axis=0).tolist() == [0, 0]
        assert np.isnan(np.array(ns.var(ns.astype(e, np.dtype("float64")), axis=0))).all()
        assert ns.cumulative_prod(e, axis=0).shape == (0, 2)
        assert ns.linalg.vector_norm(ns.astype(e, np.dtype("float32")), axis=0).tolist() == [0.0, 0.0]
        assert ns.matmul(ns.astype(e, np.dtype("float32")).T, mx.zeros((0, 3))).tolist() == [[0.0] * 3] * 2
    with track_transfers():
        nz = ns.nonzero(mx.zeros((2, 2), dtype=mx.int32))  # empty results come back as MLX's own
    assert ns.prod(nz[0]).item() == 1


def test_float64_uses_the_cpu_stream_when_the_default_device_is_a_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    # On a Mac the default device is the GPU, which has no float64.  Pretend
    # so here: every function given, or producing, float64 must build its
    # graph inside the CPU stream (and still give the right answer).
    entered: list[Any] = []
    real_stream = mx.stream

    def spy(s: Any) -> Any:
        entered.append(s)
        return real_stream(s)

    monkeypatch.setattr(_core, "default_is_cpu", lambda: False)
    monkeypatch.setattr(_core.mx, "stream", spy)
    x = f64([[1.0, 4.0], [9.0, 16.0]])
    i = mx.array([[1, 2], [3, 4]], dtype=mx.int32)
    calls: list[tuple[str, Callable[[], Any]]] = [
        ("sqrt", lambda: ns.sqrt(x)),
        ("sqrt of int", lambda: ns.sqrt(i)),
        ("add int + float", lambda: ns.add(i, 0.5)),
        ("equal f64 c64", lambda: ns.equal(x, mx.array([[1j, 0j], [0j, 0j]], dtype=mx.complex64))),
        ("sum dtype", lambda: ns.sum(i, dtype=np.dtype("float64"))),
        ("mean of int", lambda: ns.mean(i)),
        ("var", lambda: ns.var(x)),
        ("cumulative_sum", lambda: ns.cumulative_sum(x, axis=0)),
        ("max", lambda: ns.max(x)),
        ("argsort", lambda: ns.argsort(x)),
        ("zeros", lambda: ns.zeros(2)),
        ("arange", lambda: ns.arange(0.0, 1.0, 0.25)),
        ("linspace", lambda: ns.linspace(0, 1, 3)),
        ("full", lambda: ns.full(2, 0.5)),
        ("asarray cast", lambda: ns.asarray(i, dtype=np.dtype("float64"))),
        ("astype", lambda: ns.astype(i, np.dtype("float64"))),
        ("concat", lambda: ns.concat([x, ns.astype(i, np.dtype("float32"))])),
        ("stack", lambda: ns.stack([i, ns.astype(i, np.dtype("float32"))])),
        ("where", lambda: ns.where(i > 2, x, 0.0)),
        ("clip", lambda: ns.clip(x, 2.0, 5.0)),
        ("getitem", lambda: ns.getitem(x, (0, slice(None)))),
        ("take", lambda: ns.take(x, mx.array([1]), axis=0)),
        ("isin", lambda: ns.isin(i, 2.5)),
        ("searchsorted", lambda: ns.searchsorted(f64([1.0, 3.0]), x)),
        ("matmul", lambda: ns.matmul(x, x)),
        ("matmul of int8", lambda: ns.matmul(ns.astype(i, np.dtype("int8")), ns.astype(i, np.dtype("int8")))),
        ("vecdot", lambda: ns.vecdot(x, x)),
        ("linalg.inv", lambda: ns.linalg.inv(x)),
        ("linalg.det of int", lambda: ns.linalg.det(i)),
        ("fft.fftfreq", lambda: ns.fft.fftfreq(4)),
        ("fft.fftshift", lambda: ns.fft.fftshift(x)),
        ("diff", lambda: ns.diff(x)),
        ("exp", lambda: ns.exp(x)),
    ]
    for label, call in calls:
        entered.clear()
        mx.eval(call())
        assert entered and all(s == mx.cpu for s in entered), label
    y = mx.zeros((2,), dtype=mx.float64)
    entered.clear()
    ns.setitem(y, mx.array([True, False]), 3.0)
    assert entered and y.tolist() == [3.0, 0.0]
    entered.clear()
    ns.add(mx.array([1.0], dtype=mx.float32), 1.0)  # no float64: the default device is fine
    assert not entered


@pytest.mark.parametrize("dtype", [mx.float32, mx.float64])
def test_variance_of_constant_data_is_exactly_zero(dtype: Any) -> None:
    # MLX's mean is often an ulp off (it multiplies by 1/n); the corrected
    # two-pass formula cancels that error instead of squaring it.
    for n in range(2, 13):
        x = mx.full((n, 3), 5.0279383e16, dtype=dtype)
        assert ns.var(x, axis=0).tolist() == [0.0] * 3
        assert ns.std(x, correction=1).item() == 0.0


def test_variance_matches_numpy_and_keeps_overflow_infinite() -> None:
    r = np.random.default_rng(3).standard_normal((5, 7)) * 1e3 + 1e4
    for axis in (None, 0, 1):
        for correction in (0, 1):
            np.testing.assert_allclose(
                np.array(ns.var(f64(r), axis=axis, correction=correction)),
                np.var(r, axis=axis, ddof=correction),
                rtol=1e-12,
            )
    c = (r + 1j * r[::-1]).astype(np.complex64)
    np.testing.assert_allclose(np.array(ns.var(mx.array(c), axis=0)), np.var(c, axis=0), rtol=1e-5)
    assert ns.var(f64([6e293, 0.0, 1.0])).item() == math.inf
    assert math.isnan(ns.var(f64([math.nan, 1.0])).item())


def test_trace_of_empty_diagonals_in_a_stack_returns() -> None:
    # MLX 0.32 spins forever summing an empty diagonal of a stack of
    # matrices; run in a child process so a regression fails instead of hanging.
    import subprocess
    import sys

    code = (
        "import numpy as np, mlx.core as mx\n"
        "from unifiedarray.backends import mlx_namespace as ns\n"
        "for shape, off in [((2, 3, 4), -200), ((3, 1, 2, 2), 2), ((2, 2, 0), 2), ((2, 0, 3), 0)]:\n"
        "    r = ns.linalg.trace(mx.ones(shape, dtype=mx.uint64), offset=off)\n"
        "    assert r.shape == shape[:-2] and r.dtype == mx.uint64 and not np.array(r).any(), (shape, off)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], timeout=120, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


# -- the calls that skip the planning once a signature has shown it may ------------------

FLOATS = [0.1, -0.0, 0.0, 2.5, -3.0, 1e300, -1e300, 1e-50, math.inf, -math.inf, math.nan]
PLAIN_BINARY = ["add", "subtract", "multiply", "maximum", "minimum", "atan2", "equal", "less", "greater_equal"]


def same_bits(a: Any, b: Any) -> bool:
    """Equal values, NaNs equal, and the same signs of zero."""
    x, y = np.array(a), np.array(b)
    return (
        x.dtype == y.dtype
        and x.shape == y.shape
        and np.array_equal(x, y, equal_nan=True)
        and (x.dtype.kind != "f" or np.array_equal(np.signbit(x), np.signbit(y)))
    )


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("name", PLAIN_BINARY)
@pytest.mark.parametrize("scalar_first", [False, True])
def test_a_python_float_reaching_mlx_as_it_is_gives_the_cast_result(dtype, name, scalar_first):
    """After the first call of a signature (a float32 array with a Python
    float, say), MLX's own function takes the float as it is: every value
    (signed zeros, infinities, NaN, overflow) must give what the float cast
    to the array's dtype gives, on the first call and on the direct ones."""
    fn = getattr(ns, name)
    x = mx.array(np.array([1.5, -2.0, 0.0, -0.0, 3e4, np.inf, np.nan], dtype=dtype))
    for v in FLOATS * 2:  # the second pass runs on the direct path
        cast = mx.array(v, dtype=x.dtype)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            got = fn(v, x) if scalar_first else fn(x, v)
            want = fn(cast, x) if scalar_first else fn(x, cast)
        assert same_bits(got, want), (name, v)


@pytest.mark.parametrize("name", ["sum", "prod", "mean"])
@pytest.mark.parametrize("dtype", ["float32", "int8", "uint8", "int32"])
def test_reductions_give_the_same_dtype_and_values_on_every_call(name, dtype):
    """A reduction's signature that needs no cast runs MLX's reduction alone
    after its first call; one that does (small integers sum in int64) never
    does: both give NumPy's dtype and values on every call."""
    a = np.arange(1, 25, dtype=dtype).reshape(2, 3, 4) % 7
    x = mx.array(a)
    first = {}
    for axis in [1, (0, 2), -1, 1, (0, 2), -1]:
        got = getattr(ns, name)(x, axis=axis)
        if name != "mean":
            assert _core.dtype_of(got) == getattr(np, name)(a, axis=axis).dtype
        np.testing.assert_allclose(np.array(got), getattr(np, name)(a, axis=axis), rtol=1e-6)
        assert same_bits(got, first.setdefault(axis, got))


def test_matmul_of_two_float32_matrices_checks_the_inner_dimension():
    a = mx.array(np.ones((3, 4), np.float32))
    with pytest.raises(ValueError, match="inner dimensions"):
        ns.matmul(a, a)
    np.testing.assert_array_equal(np.array(ns.matmul(a, a.T)), np.full((3, 3), 4.0, np.float32))


# -- compiled compositions -------------------------------------------------------------------


def _special_values(dtype: str) -> np.ndarray:
    """Every value class a composition branches on, with both operand orders
    met when paired with its reverse: signed zeros, subnormals, the largest
    and smallest finite values, infinities, NaN (floats); the extremes, -1
    and 0 (integers); both truth values."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return np.array([True, False, True, True, False, False, True, False])
    if dt.kind in "iu":
        info = np.iinfo(dt)
        base = [0, 1, 2, 3, 7, info.max, info.min, info.max - 1]
        if dt.kind == "i":
            base[1:4] = [-1, -2, 5]
        return np.array(base, dtype=dt)
    info = np.finfo(dt)
    vals = [0.0, -0.0, 1.0, -1.5, 2.5, info.smallest_subnormal, -info.smallest_normal, info.max, -info.max]
    vals += [np.inf, -np.inf, np.nan, 0.1, 7.0, -3.0, 1e-3]
    return np.array(vals, dtype=dt)


@pytest.mark.parametrize("name", sorted(_elementwise.COMPILED))
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8", "uint64", "bool"])
def test_a_compiled_composition_computes_what_its_eager_impl_computes(name, dtype):
    """MLX's kernel of a composition (``_elementwise.Kernel``, which runs
    once a signature recurs) gives its eager impl's result bit for bit,
    for every pairing of the special values, and the same dtype."""
    from unifiedarray.backends import mlx_evaluation

    binary = name in _elementwise.BINARY
    table_impl = (_elementwise.BINARY if binary else _elementwise.UNARY)[name]
    host = _special_values(dtype)
    a_host = np.repeat(host, host.size) if binary else host
    b_host = np.tile(host[::-1], host.size)
    with mlx_evaluation.compute_context():
        a, b = mx.array(a_host), mx.array(b_host)
        args = (a, b) if binary else (a,)
        try:
            eager = table_impl(*args)
            mx.eval(eager)
        except (ValueError, TypeError, RuntimeError, KeyError):
            pytest.skip(f"{name}'s impl is never given {dtype} (the generated function casts or refuses it first)")
        compiled = mx.compile(table_impl)(*args)
        mx.eval(compiled)
    assert compiled.dtype == eager.dtype
    assert np.array(compiled).tobytes() == np.array(eager).tobytes(), f"{name} {dtype}"


def test_a_kernel_runs_eager_first_then_compiled_and_falls_back_where_the_trace_fails():
    """A signature's first call runs eager, later ones the kernel; one the
    trace refuses (a Python branch on the data) runs eager from then on."""
    k = _elementwise.Kernel(lambda x: x * 2)
    x = mx.array([1.0, 2.0])
    signature = (((2,), mx.float32),)
    assert np.array(k(x)).tolist() == [2.0, 4.0]
    assert k.seen[signature] is True  # met once: compiled from the next call
    for _ in range(2):
        assert np.array(k(x)).tolist() == [2.0, 4.0]
    k2 = _elementwise.Kernel(lambda x: x * 2 if float(x.sum().item()) > 0 else x)
    for _ in range(3):
        assert np.array(k2(x)).tolist() == [2.0, 4.0]
    assert k2.seen[signature] is False


def test_complex_division_is_numpys_at_every_edge():
    """complex64 division over every pair of parts drawn from the special
    values (signed zeros, a subnormal, the largest float, infinities, NaN):
    NumPy's answer, to float32 rounding.  MLX gave ``inf + 2e22j`` for
    ``(1 + 1.2e-20j) / 5.7e-43`` where NumPy's reciprocal overflows
    (``inf + inf j``: a draw of the differential test found it)."""
    vals = [0.0, -0.0, 1.0, -2.5, 5.73e-43, 3e38, math.inf, -math.inf, math.nan, 1.1664494e-20]
    cs = np.array([complex(r, i) for r in vals for i in vals], dtype=np.complex64)
    a, b = np.repeat(cs, cs.size), np.tile(cs, cs.size)
    with np.errstate(all="ignore"):
        want = a / b
    got = np.array(ns.divide(mx.array(a), mx.array(b)))
    np.testing.assert_allclose(got.real, want.real, rtol=2e-6, equal_nan=True)
    np.testing.assert_allclose(got.imag, want.imag, rtol=2e-6, equal_nan=True)
