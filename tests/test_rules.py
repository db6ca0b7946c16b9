"""The array rules (:mod:`unifiedarray._rules`): each example of issue 19, on
every device, against NumPy 2's answer in the default mode and
array-api-strict's error class in strict mode (both computed here, never
written down), and the mode itself.

Property tests over every scalar-taking entry are in
``conformance/test_differential.py`` (``test_scalar_intake_*``).
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable
from typing import Any

import array_api_strict
import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from numpy.exceptions import ComplexWarning

import unifiedarray as xp
from unifiedarray import _rules
from unifiedarray.backends import backend_for

from .conftest import DEVICES


def outcome(call: Callable[[], Any]) -> tuple[str, Any]:
    """("ok", (dtype, values)) or ("raises", the exception class), read in full."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = call()
            if hasattr(out, "dtype") and hasattr(out, "shape"):
                host = np.asarray(out._array if hasattr(out, "_array") else out)
                return "ok", (np.dtype(str(host.dtype)), repr(host.tolist()))  # repr: NaN equals NaN
            return "ok", out
    except Exception as exc:
        return "raises", _standard_class(type(exc))


def _standard_class(cls: type[BaseException]) -> type[BaseException]:
    """NumPy's UFuncTypeError and its kin are TypeErrors: the class compared."""
    for base in (OverflowError, TypeError, ValueError, IndexError, ZeroDivisionError):
        if issubclass(cls, base):
            return base
    return cls


class Lib:
    """One library under the same calls: ours on a device, NumPy, or array-api-strict."""

    def __init__(self, ns: Any, device: str | None = None) -> None:
        self.ns, self.device = ns, device

    def a(self, values: Any, dtype: str) -> Any:
        dt = getattr(self.ns, dtype)
        if self.device is not None:
            return self.ns.asarray(values, dtype=dt, device=self.device)
        return self.ns.asarray(values, dtype=dt)

    def __getattr__(self, name: str) -> Any:
        fn = getattr(self.ns, name)
        if self.device is not None and name in ("arange", "full", "linspace"):
            return lambda *a, **k: fn(*a, device=self.device, **k)
        return fn


def _iadd(a: Any, b: Any) -> Any:
    a += b
    return a


def _imul(a: Any, b: Any) -> Any:
    a *= b
    return a


def _setslice(a: Any, key: Any, v: Any) -> Any:
    a[key] = v
    return a


def _np_clip(lib: Lib, x: Any, lo: Any = None, hi: Any = None) -> Any:
    if lib.ns is np:
        return np.clip(x, lo, hi)
    return lib.clip(x, lo, hi)


#: issue 19's examples, as calls on any of the three libraries.
EXAMPLES: dict[str, Callable[[Lib], Any]] = {
    "int_arange_times_half_is_float64": lambda L: L.arange(4) * 0.5,
    "int16_plus_half_is_float64": lambda L: L.a([1, 2], "int16") + 0.5,
    "bool_times_float_is_float64": lambda L: L.a([True, False], "bool") * 2.0,
    "int32_inplace_plus_int64_stays_int32": lambda L: _iadd(L.a([1, 2], "int32"), L.a([1, 2**40], "int64")),
    "float32_inplace_times_float64_stays_float32": lambda L: _imul(L.a([1, 2], "float32"), L.a([0.1, 3], "float64")),
    "float32_slice_set_from_float64_is_cast": lambda L: _setslice(
        L.a([1, 2, 3], "float32"), slice(1, None), L.a([0.1, 2.5], "float64")
    ),
    "uint8_less_than_minus_one_is_false": lambda L: L.a([1, 2], "uint8") < -1,
    "int8_equal_128_is_false": lambda L: L.a([1, 2], "int8") == 128,
    "minus_one_less_than_uint8_is_true": lambda L: L.a([1, 2], "uint8") > -1,
    "uint8_plus_300_overflows": lambda L: L.a([1, 2], "uint8") + 300,
    "int32_inplace_plus_half_is_type_error": lambda L: _iadd(L.a([1, 2], "int32"), 0.5),
    "where_uint8_with_300_overflows": lambda L: L.where(L.a([True, False], "bool"), L.a([1, 2], "uint8"), 300),
    "where_int16_with_half_is_float64": lambda L: L.where(L.a([True, False], "bool"), L.a([1, 2], "int16"), 0.5),
    "where_bool_with_int_is_int64": lambda L: L.where(L.a([True, False], "bool"), L.a([True, False], "bool"), 2),
    "clip_int8_with_float_bounds_is_float64": lambda L: _np_clip(L, L.a([0, 1, 2, 3], "int8"), 1.5, 2.5),
    "clip_uint8_min_300_overflows": lambda L: _np_clip(L, L.a([1, 2], "uint8"), 300),
    "clip_uint8_min_minus_one_clips_nothing": lambda L: _np_clip(L, L.a([1, 2], "uint8"), -1),
    "result_type_int8_and_float_is_float64": lambda L: L.result_type(L.int8, 1.5),
    "arange_past_2_62_is_exact": lambda L: L.arange(2**62, 2**62 + 3),
    "arange_to_int64_max_is_exact": lambda L: L.arange(2**63 - 3, 2**63 - 1),
    "arange_uint64_top_is_exact": lambda L: L.arange(2**64 - 3, 2**64 - 1, dtype=L.uint64),
    "arange_negative_start_in_uint8_overflows": lambda L: L.arange(-1, 3, dtype=L.uint8),
    "arange_float_step_into_int32_as_numpy": lambda L: L.arange(0, 3, 0.5, dtype=L.int32),
    "full_uint8_300_overflows": lambda L: L.full((2,), 300, dtype=L.uint8),
    "full_int32_from_float_truncates": lambda L: L.full((2,), 1.5, dtype=L.int32),
    "full_uint64_max": lambda L: L.full((2,), 2**64 - 1, dtype=L.uint64),
    "full_like_int16_from_float_truncates": lambda L: L.full_like(L.a([1, 2], "int16"), 2.5),
    "full_like_uint8_300_overflows": lambda L: L.full_like(L.a([1, 2], "uint8"), 300),
    "cumulative_sum_of_0d": lambda L: L.cumulative_sum(L.a(3, "int64")),
    "cumulative_prod_of_0d": lambda L: L.cumulative_prod(L.a(3, "int64")),
    "take_along_axis_indices_that_do_not_broadcast": lambda L: L.take_along_axis(
        L.a([[1, 2], [3, 4]], "int64"), L.a([[0], [1], [0]], "int64"), axis=1
    ),
}

#: Where the default mode deliberately differs from NumPy 2.4: its ``where``
#: alone wraps an out-of-range Python int (300 into uint8 is 44), where every
#: NumPy ufunc, and array-api-strict, raise OverflowError.
NUMPY_DIFFERS = {"where_uint8_with_300_overflows": ("raises", OverflowError)}

#: Where strict mode deliberately differs from array-api-strict 2.6: it
#: wraps an out-of-range bound in clip (a defect; strict mode raises the
#: OverflowError every other entry raises).
STRICT_DIFFERS = {"clip_uint8_min_300_overflows": ("raises", OverflowError)}


def _numpy_answer(name: str) -> tuple[str, Any]:
    if name in NUMPY_DIFFERS:
        return NUMPY_DIFFERS[name]
    lib = Lib(np)
    if name.startswith(("cumulative_", "take_along_axis")):
        lib = Lib(np)
        for k in ("cumulative_sum", "cumulative_prod"):
            if name.startswith(k):
                return outcome(lambda: getattr(np, k)(np.asarray(3)))  # noqa: B023  (called at once)
        return outcome(lambda: np.take_along_axis(np.asarray([[1, 2], [3, 4]]), np.asarray([[0], [1], [0]]), axis=1))
    return outcome(lambda: EXAMPLES[name](lib))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_rule_example_gives_numpys_answer(device: str, name: str) -> None:
    expected = _numpy_answer(name)
    got = outcome(lambda: EXAMPLES[name](Lib(xp, device)))
    assert got == expected, f"{name} on {device}: {got}, NumPy 2 gives {expected}"


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_rule_example_in_strict_mode_is_array_api_strict(device: str, name: str) -> None:
    expected = STRICT_DIFFERS.get(name) or outcome(lambda: EXAMPLES[name](Lib(array_api_strict)))
    with xp.strict():
        got = outcome(lambda: EXAMPLES[name](Lib(xp, device)))
    if expected[0] == "raises":
        assert got == expected, f"{name} on {device} in strict mode: {got}, array-api-strict: {expected}"
    else:
        assert got[0] == "ok", f"{name} on {device} in strict mode: {got}, array-api-strict accepts it"
        assert got[1][1] == expected[1][1] and str(got[1][0]) == str(expected[1][0]).split(".")[-1], (got, expected)


# -- the examples that are not one call of all three libraries -------------------------------------


def _filled(device: str, dtype: str, value: Any) -> Any:
    b = xp.zeros(2, dtype=getattr(xp, dtype), device=device)
    b.buffer.fill(value)
    return b


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "dtype,value",
    [("int32", 1.5), ("bool", 2), ("float64", None), ("uint64", 2**64 - 1), ("int64", 2**63), ("uint8", 300)],
)
def test_buffer_fill_converts_as_numpy_fill(device: str, dtype: str, value: Any) -> None:
    def numpy_fill() -> Any:
        a = np.zeros(2, dtype=dtype)
        a.fill(value)
        return a

    assert outcome(lambda: _filled(device, dtype, value)) == outcome(numpy_fill)


@pytest.mark.parametrize("device", DEVICES)
def test_full_like_complex_into_int16_is_numpys_cast_with_its_warning(device: str) -> None:
    with pytest.warns(ComplexWarning):
        got = xp.full_like(xp.asarray([1, 2], dtype=xp.int16, device=device), 1j)
    with pytest.warns(ComplexWarning):
        expected = np.full_like(np.asarray([1, 2], dtype=np.int16), 1j)
    assert (got.dtype, np.asarray(got).tolist()) == (expected.dtype, expected.tolist())


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("include_initial", [False, True])
@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
def test_cumulative_of_0d_with_include_initial_is_numpys(device: str, include_initial: bool, name: str) -> None:
    expected = outcome(lambda: getattr(np, name)(np.asarray(3), include_initial=include_initial))
    got = outcome(lambda: getattr(xp, name)(xp.asarray(3, device=device), include_initial=include_initial))
    assert got == expected
    with xp.strict():
        strict_got = outcome(lambda: getattr(xp, name)(xp.asarray(3, device=device), include_initial=include_initial))
    ref = outcome(lambda: getattr(array_api_strict, name)(array_api_strict.asarray(3), include_initial=include_initial))
    assert strict_got == ref or (ref[0] == strict_got[0] == "ok"), (strict_got, ref)


@pytest.mark.parametrize("device", DEVICES)
def test_ufunc_out_honours_casting(device: str) -> None:
    o = xp.zeros(2, dtype=xp.int64, device=device)
    np.subtract(xp.asarray([1.5, 2.5], device=device), 1, out=o, casting="unsafe")
    expected = np.zeros(2, dtype=np.int64)
    np.subtract(np.asarray([1.5, 2.5]), 1, out=expected, casting="unsafe")
    assert np.asarray(o).tolist() == expected.tolist()
    with pytest.raises(TypeError):
        np.subtract(xp.asarray([1.5, 2.5], device=device), 1, out=o)  # same_kind, NumPy's default


@pytest.mark.parametrize("device", DEVICES)
def test_sign_of_bool_is_the_same_class_everywhere(device: str) -> None:
    def raised(call: Callable[[], Any]) -> type[BaseException] | None:
        try:
            call()
        except MemoryError:
            raise  # never an answer: a test that allocates hugely must fail, naming its example
        except Exception as exc:
            return type(exc)
        return None

    expected = raised(lambda: np.sign(np.asarray([True])))
    assert expected is not None and issubclass(expected, TypeError)
    assert raised(lambda: xp.sign(xp.asarray([True], device=device))) is expected  # NumPy's own class


@pytest.mark.parametrize("device", DEVICES)
def test_shapes_are_checked_before_a_dtype_the_device_lacks(device: str) -> None:
    a = xp.asarray([1, 2], dtype=xp.complex64, device=device)
    b = xp.asarray([1, 2, 3], dtype=xp.uint64, device=device)
    assert outcome(lambda: a - b) == ("raises", ValueError)


@pytest.mark.parametrize("device", DEVICES)
def test_float64_result_stays_float64_on_every_device(device: str) -> None:
    for got in (
        xp.arange(3, device=device) * 0.1,
        xp.asarray([1, 2], dtype=xp.int16, device=device) + 0.1,
        xp.arange(0, 1, 0.1, device=device),
        xp.where(xp.asarray([True, False], device=device), xp.asarray([1, 2], dtype=xp.int8, device=device), 0.1),
    ):
        assert got.dtype == xp.float64
    assert np.asarray(xp.arange(0, 1, 0.1, device=device)).tolist() == np.arange(0, 1, 0.1).tolist()


# -- the mode ----------------------------------------------------------------------------------


def test_strict_is_per_thread_and_set_strict_returns_the_previous_mode() -> None:
    seen: list[bool] = []
    with xp.strict():
        t = threading.Thread(target=lambda: seen.append(xp.is_strict()))
        t.start()
        t.join()
        assert xp.is_strict()
    assert seen == [False] and not xp.is_strict()
    assert xp.set_strict(True) is False
    try:
        assert xp.is_strict()
        with xp.strict(False):
            assert not xp.is_strict()
        with pytest.raises(TypeError):
            xp.asarray([1, 2], dtype=xp.int16) + 0.5
    finally:
        assert xp.set_strict(False) is True
    assert not xp.is_strict() and _rules.ACTIVE[0] == 0


@pytest.mark.parametrize(
    "call",
    [
        lambda: xp.asarray([1, 2], dtype=xp.int32) + xp.asarray([1.0], dtype=xp.float32),
        lambda: xp.asarray([1, 2], dtype=xp.int8) + xp.asarray([1], dtype=xp.uint64),
        lambda: xp.asarray([True]) * 2,
        lambda: xp.asarray([True]) + xp.asarray([False]),
        lambda: xp.logical_and(xp.asarray([1]), xp.asarray([0])),
        lambda: xp.result_type(xp.int8, xp.uint64),
        lambda: xp.result_type(1, 2.0),
    ],
)
def test_strict_mode_refuses_what_array_api_strict_refuses(call: Callable[[], Any]) -> None:
    assert outcome(call)[0] == "ok"
    with xp.strict(), pytest.raises((TypeError, ValueError)):
        call()


@pytest.mark.parametrize(
    "pair", [("int64", "float64"), ("bool", "int8"), ("int8", "int16"), ("uint64", "int64"), ("float32", "complex64")]
)
def test_can_cast_is_numpys_safe_cast_and_strict_modes_table(pair: tuple[str, str]) -> None:
    a, b = pair
    assert xp.can_cast(getattr(xp, a), getattr(xp, b)) == np.can_cast(a, b, casting="safe")
    with xp.strict():
        got = xp.can_cast(getattr(xp, a), getattr(xp, b))
    assert got == array_api_strict.can_cast(getattr(array_api_strict, a), getattr(array_api_strict, b))


def test_strict_mode_refuses_the_dtypes_array_api_strict_refuses() -> None:
    """Each function with a dtype category (strict mode's refusals), called
    on ours in strict mode and on array-api-strict, dtype by dtype: a
    ``TypeError`` from both or from neither."""
    names = [n for n in _rules.CATEGORIES if n not in ("clip", "matmul", "isin")]
    for name in names:
        nargs = 1 if name in _UNARY_NAMES or name in _ONE_ARRAY else 2
        for dt in ("bool", "int8", "uint8", "int64", "float32", "float64", "complex64"):
            ref = array_api_strict.ones((2,), dtype=getattr(array_api_strict, dt))
            expected = outcome(lambda: getattr(array_api_strict, name)(*([ref] * nargs)))  # noqa: B023
            x = xp.ones((2,), dtype=np.dtype(dt))
            with xp.strict():
                got = outcome(lambda: getattr(xp, name)(*([x] * nargs)))  # noqa: B023
            assert (got == ("raises", TypeError)) == (expected == ("raises", TypeError)), (name, dt, got, expected)
            assert (np.dtype(dt).kind in _rules.CATEGORIES[name]) == (expected != ("raises", TypeError)), (name, dt)


_ONE_ARRAY = {
    "sum", "prod", "cumulative_sum", "cumulative_prod", "mean", "std", "var", "max", "min", "argmax", "argmin",
    "sort", "argsort",
}  # fmt: skip
_UNARY_NAMES = {
    "abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "bitwise_invert", "ceil", "conj", "cos", "cosh",
    "exp", "expm1", "floor", "imag", "isfinite", "isinf", "isnan", "log", "log1p", "log2", "log10", "logical_not",
    "negative", "positive", "real", "reciprocal", "round", "sign", "signbit", "sin", "sinh", "sqrt", "square",
    "tan", "tanh", "trunc",
}  # fmt: skip


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint8", "float32", "complex64"])
@pytest.mark.parametrize("bounds", [(1, -3.3, 11), (-2.5, 2.5, 11), (0.1, 0.9, 7), (-7, 7, 15)])
def test_linspace_is_numpys_on_every_device(device: str, dtype: str, bounds: tuple) -> None:
    """NumPy 2 rounds towards -inf into an integer dtype (MLX's cast
    truncated), and computes complex values in complex128 before rounding."""
    for endpoint in (True, False):
        expected = np.linspace(*bounds, dtype=dtype, endpoint=endpoint)
        got = xp.linspace(*bounds, dtype=np.dtype(dtype), device=device, endpoint=endpoint)
        assert got.dtype == expected.dtype
        assert np.asarray(got).tolist() == expected.tolist(), (bounds, dtype, endpoint)


# -- NumPy scalars and arrays where the standard takes "an array or a Python scalar" ---------------

_REAL_DTYPES = ["bool", "int8", "uint8", "int16", "int32", "int64", "uint64", "float16", "float32", "float64"]

#: the entries typed "array | Python scalar", and the binary operator for reference, with NumPy data
#: ``v`` (a NumPy scalar, 0-d or 1-d array) on the left or the right of an array ``a``.
_ARRAY_OR_SCALAR_CALLS: dict[str, Callable[[Any, Any, Any], Any]] = {
    "where(c, a, v)": lambda ns, a, v: ns.where(_condition(ns, a), a, v),
    "where(c, v, a)": lambda ns, a, v: ns.where(_condition(ns, a), v, a),
    "searchsorted(a, v)": lambda ns, a, v: ns.searchsorted(ns.sort(a), v),
    "isin(a, v)": lambda ns, a, v: ns.isin(a, v),
    "isin(v, a)": lambda ns, a, v: ns.isin(v, a),
    "a + v": lambda ns, a, v: a + v,
}


def _condition(ns: Any, a: Any) -> Any:
    return ns.asarray([True, False, True]) if ns is np else xp.asarray([True, False, True], device=a.device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("call", sorted(_ARRAY_OR_SCALAR_CALLS))
@given(
    adtype=st.sampled_from(_REAL_DTYPES),
    vdtype=st.sampled_from(_REAL_DTYPES),
    value=st.sampled_from([0, 1, 2, -1, 1.5, 300, float("nan")]),
    form=st.sampled_from(["scalar", "0-d", "1-d"]),
)
@example(adtype="float32", vdtype="float32", value=float("nan"), form="scalar")  # xarray's rolling().mean()
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_numpy_data_in_array_or_scalar_arguments_is_numpys(
    device: str, call: str, adtype: str, vdtype: str, value: float, form: str
) -> None:
    """xarray's ``where(cond, data, np.float32(nan))`` raised ``TypeError``
    (a NumPy scalar is no Python scalar) and a NumPy array there leaked
    ``ndarray()``'s own error: in ``where``, ``searchsorted`` and ``isin``,
    NumPy data is data of its own dtype, as the binary operators take it, and
    the answer is NumPy's, dtype and values, on every device."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        v = np.asarray(value).astype(vdtype)
    v = {"scalar": v[()], "0-d": v, "1-d": v.reshape(1)}[form]
    a_np = np.asarray([2, 0, 1]).astype(adtype)
    fn = _ARRAY_OR_SCALAR_CALLS[call]
    expected = outcome(lambda: fn(np, a_np, v))
    got = outcome(lambda: fn(xp, xp.asarray(a_np, device=device), v))
    backend = backend_for(device)
    dev = xp.Device.parse(device)
    if not (backend.supports_dtype(np.dtype(adtype), dev) and backend.supports_dtype(np.dtype(vdtype), dev)):
        # A dtype the device cannot hold is its clear TypeError (promise 3), not NumPy's answer.
        assert (got[0] == "raises" and issubclass(got[1], TypeError)) or got == expected, (call, device, got)
        return
    assert got == expected, f"{call} with {adtype} array and {form} {v!r} on {device}: {got}, NumPy: {expected}"


@pytest.mark.parametrize("device", DEVICES)
def test_where_refuses_what_is_no_array_nor_scalar_naming_itself(device: str) -> None:
    x = xp.asarray([1.0, 2.0], device=device)
    c = xp.asarray([True, False], device=device)
    for bad in ("a", None):
        with pytest.raises(TypeError, match="where: expected an array or a Python scalar"):
            xp.where(c, x, bad)
    # A list is NumPy's array-like: data outside strict mode, refused inside it.
    assert xp.where(c, x, [5.0, 6.0]).tolist() == [1.0, 6.0]
    with xp.strict(), pytest.raises(TypeError, match="where: expected an array or a Python scalar"):
        xp.where(c, x, [1.0, 2.0])


# -- strict mode's dtype categories, over the whole namespace -------------------------------------

#: the dtypes each array is drawn in (every kind of the standard)
STRICT_KINDS = ("bool", "uint8", "int64", "float32", "float64", "complex128")

#: call forms where the first positional parameters are not arrays of the
#: test's (2, 2) shape: name -> args from (array, namespace); None: the
#: function takes no array whose dtype it judges (creation, dtype queries)
STRICT_CALLS: dict[str, Any] = {
    "reshape": lambda a, m: (a, (-1,)),
    "broadcast_to": lambda a, m: (a, (2, 2)),
    "take": lambda a, m: (a, m.asarray([0])),
    "take_along_axis": lambda a, m: (a, m.asarray([[0, 0], [0, 0]])),
    "expand_dims": lambda a, m: (a, 0),
    "tile": lambda a, m: (a, (2,)),
    "repeat": lambda a, m: (a, 2),
    "roll": lambda a, m: (a, 1),
    "moveaxis": lambda a, m: (a, 0, 1),
    "permute_dims": lambda a, m: (a, (1, 0)),
    "astype": lambda a, m: (a, m.float64),
    "full_like": lambda a, m: (a, 1),
    "searchsorted": lambda a, m: (m.reshape(a, (-1,)), m.reshape(a, (-1,))),
    "meshgrid": lambda a, m: (m.reshape(a, (-1,)), m.reshape(a, (-1,))),
    "concat": lambda a, m: ([a, a],),
    "stack": lambda a, m: ([a, a],),
    **dict.fromkeys(
        ("arange", "asarray", "empty", "eye", "from_dlpack", "full", "linspace", "ones", "zeros", "broadcast_shapes",
         "can_cast", "finfo", "iinfo", "isdtype", "result_type"),
    ),
}  # fmt: skip


def _strict_functions() -> list[str]:
    return sorted(
        n
        for n in array_api_strict.__all__
        if n[0].islower() and callable(getattr(array_api_strict, n)) and not n.endswith("array_api_strict_flags")
        and STRICT_CALLS.get(n, ...) is not None
    )  # fmt: skip


def _arity(name: str) -> int:
    import inspect

    params = inspect.signature(getattr(array_api_strict, name)).parameters.values()
    positional = [p for p in params if p.default is inspect.Parameter.empty and p.kind is not p.KEYWORD_ONLY]
    return max(1, len([p for p in positional if p.kind is not p.VAR_POSITIONAL]))


def _refused(fn: Callable[[], Any]) -> bool:
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            fn()
    except TypeError:
        return True
    except Exception:  # another error is not strict mode's refusal
        return False
    return False


def _strict_call(name: str, kinds: tuple[str, ...], module: Any) -> Callable[[], Any]:
    arrays = [module.asarray(np.ones((2, 2), dtype=k)) for k in kinds]
    form = STRICT_CALLS.get(name)
    args = form(*arrays, module) if form is not None else tuple(arrays)
    return lambda: getattr(module, name)(*args)


@pytest.mark.parametrize("name", _strict_functions())
def test_strict_mode_refuses_the_dtypes_array_api_strict_refuses_in_every_function(name: str) -> None:
    """Every function of the standard (array-api-strict's namespace, so a
    function the standard adds is in), each of its arrays in every kind,
    and for two arrays every pair of kinds: strict mode refuses with a
    ``TypeError`` exactly where array-api-strict does
    (``_rules.ARRAY_CATEGORIES``, ``SAME_KIND_ARRAYS`` and the elementwise
    ``CATEGORIES`` are where a refusal is declared)."""
    n = _arity(name) if name not in STRICT_CALLS else 1
    if name in ("searchsorted", "meshgrid", "concat", "stack"):
        n = 1
    combos = [(k,) * n for k in STRICT_KINDS]
    if n == 2:
        combos += [(a, b) for a in STRICT_KINDS for b in STRICT_KINDS if a != b]
    disagree = []
    for kinds in combos:
        theirs = _refused(_strict_call(name, kinds, array_api_strict))
        with xp.strict(True):
            ours = _refused(_strict_call(name, kinds, xp))
        if theirs != ours:
            disagree.append((kinds, "refused" if theirs else "accepted", "refused" if ours else "accepted"))
    assert not disagree, f"{name}: (dtypes, array-api-strict, ours in strict mode): {disagree}"
