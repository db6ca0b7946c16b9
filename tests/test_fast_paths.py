"""The host fast paths (``astype``, boolean-mask and integer-array indexing,
``zeros``/``ones``/``full``, the operators, the one-call and unary paths)
give what the general path gives: the same values, dtypes, shapes and
errors, results that own their memory, and no moves.  The general path is
reached through a view (``x[...]``) where no fast path takes views, and with
the dispatch's fast entry points swapped for its general ones
(:func:`general_path`) where they do; the reductions' fast path has its own
test (test_reductions.py)."""

from __future__ import annotations

import contextlib
import sys
import warnings
from unittest import mock

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import unifiedarray as xp
from unifiedarray import _array, _calls, _operators, _reductions, _resolve, _rules

from .conftest import DEVICES

DTYPES = ["bool", "int8", "uint8", "int32", "int64", "uint64", "float32", "float64", "complex64", "complex128"]


def outcome(fn):
    try:
        out = fn()
    except MemoryError:
        raise  # never an answer: a test that allocates hugely must fail, naming its example
    except Exception as exc:  # the error's type is part of the answer
        return type(exc)
    return (out.dtype, out.shape, np.asarray(out).tobytes())


@settings(max_examples=100, deadline=None)
@given(data=st.data(), src=st.sampled_from(DTYPES), dst=st.sampled_from(DTYPES), copy=st.booleans())
def test_astype_fast_path_matches_the_general_path(data, src, dst, copy):
    a = data.draw(hnp.arrays(src, hnp.array_shapes(min_dims=0, max_dims=2, max_side=4)))
    whole = xp.asarray(a)
    view = whole[...]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # complex to real warns in NumPy, on both paths alike
        fast = outcome(lambda: xp.astype(whole, np.dtype(dst), copy=copy))
        general = outcome(lambda: xp.astype(view, np.dtype(dst), copy=copy))
    assert fast == general


def test_astype_result_owns_its_memory_and_copy_false_returns_the_array():
    x = xp.asarray([1.0, 2.0, 3.0])
    with xp.track_transfers() as t:
        y = xp.astype(x, xp.float64)  # copy=True: a copy, even of the same dtype
        z = xp.astype(x, xp.float32)
    assert t.count == 0
    x[0] = 100.0
    assert y.tolist() == [1.0, 2.0, 3.0] and z.tolist() == [1.0, 2.0, 3.0]
    assert xp.astype(x, xp.float64, copy=False) is x
    assert xp.astype(x, int).dtype == xp.int64  # Python types mean the default dtype of their kind


@settings(max_examples=100, deadline=None)
@given(data=st.data(), dtype=st.sampled_from(DTYPES))
def test_array_index_fast_path_matches_the_general_path(data, dtype):
    a = data.draw(hnp.arrays(dtype, hnp.array_shapes(min_dims=1, max_dims=2, max_side=4)))
    if data.draw(st.booleans()):
        index = data.draw(hnp.arrays("bool", a.shape if data.draw(st.booleans()) else a.shape[:1]))
    else:
        index = data.draw(hnp.arrays("int64", st.integers(0, 5), elements=st.integers(-a.shape[0] - 1, a.shape[0])))
    whole, idx = xp.asarray(a), xp.asarray(index)
    fast = outcome(lambda: whole[idx])
    general = outcome(lambda: whole[...][idx])
    assert fast == general


def test_mask_result_owns_its_memory():
    x = xp.asarray([1.0, 2.0, 3.0, 4.0])
    with xp.track_transfers() as t:
        y = x[x > 2.0]
        z = x[xp.asarray([0, 0, 3])]
    assert t.count == 0
    y[0] = -1.0
    z[0] = -1.0
    assert x.tolist() == [1.0, 2.0, 3.0, 4.0]
    x[...] = 0.0
    assert y.tolist() == [-1.0, 4.0] and z.tolist() == [-1.0, 1.0, 4.0]


@pytest.mark.parametrize(
    "name, args", [("zeros", ()), ("ones", ()), ("full", (7,)), ("full", (2.5,)), ("full", (True,))]
)
def test_host_creation_gives_the_standards_dtypes(name, args):
    fn = getattr(xp, name)
    out = fn((2, 3), *args)
    expected = np.asarray(args[0]).dtype if args else np.dtype("float64")
    assert out.dtype == expected and out.shape == (2, 3) and out.device == "cpu"
    with xp.default_device("cpu"):
        assert fn(4, *args, dtype=xp.float32).dtype == xp.float32
    with pytest.raises((TypeError, ValueError)):
        fn((2, -1), *args)


@pytest.mark.parametrize("device", ["cpu", "mlx"])
def test_full_with_a_0d_array_keeps_its_dtype(device):
    if device not in xp.__array_namespace_info__().devices():
        pytest.skip("no MLX")
    fill = xp.asarray(1.5, dtype=xp.float32, device=device)
    assert xp.full(3, fill).dtype == xp.float32  # never a silent float64
    assert xp.full(3, xp.asarray(7, dtype=xp.uint8)).dtype == xp.uint8
    assert xp.full(2, fill, dtype=xp.float64).tolist() == [1.5, 1.5]


@settings(max_examples=100, deadline=None)
@given(a=hnp.arrays(st.sampled_from(DTYPES), (), elements={"allow_nan": False}))
def test_python_scalar_conversions_match_numpy(a):
    x = xp.asarray(a)
    assert bool(x) == bool(a)
    assert complex(x) == complex(a)
    if a.dtype.kind != "c":
        assert float(x) == float(a)
        if np.isfinite(a):
            assert int(x) == int(a) and type(int(x)) is int
    if a.dtype.kind in "iu":
        assert x.__index__() == int(a)
    elif a.dtype.kind in "fc":
        with pytest.raises(TypeError):
            x.__index__()


@pytest.mark.parametrize("device", ["cpu", "mlx"])
@pytest.mark.parametrize("shape", [(5,), (2, 3), (2, 2, 2)])
def test_integer_indices_give_views_of_sub_arrays_and_copies_of_elements(device, shape):
    # As in NumPy: x[i] of a matrix is a view (both ways); an integer for
    # every axis gives the element as a copy (NumPy's scalar), so that
    # "old = x[i]; x[i] = new" keeps the old value and swaps swap; a
    # trailing ... asks for a 0-d view.
    if device not in xp.__array_namespace_info__().devices():
        pytest.skip("no MLX")
    x = xp.asarray(np.arange(np.prod(shape), dtype=np.float64).reshape(shape), device=device)
    first = (1,) * len(shape)
    old, view0 = x[first], x[(*first, Ellipsis)]
    assert not old.is_view and old.shape == () and view0.is_view
    x[first] = 42.0
    assert float(old) != 42.0 and float(view0) == 42.0
    if len(shape) > 1:
        v = x[1]
        assert v.is_view and v.shape == shape[1:]
        x[1] = 7.0
        assert np.all(np.asarray(v) == 7.0)
        v[...] = -1.0
        assert np.all(np.asarray(x[1]) == -1.0) and np.asarray(x).reshape(-1)[0] == 0.0
    y = xp.asarray([1.0, 2.0, 3.0], device=device)
    y[0], y[2] = y[2], y[0]
    assert y.tolist() == [3.0, 2.0, 1.0]
    with pytest.raises(IndexError):
        x[shape[0]]
    with pytest.raises(IndexError):
        x[(0,) * (len(shape) - 1) + (shape[-1],)]


def test_element_index_is_a_copy_while_a_move_is_in_flight():
    if "mlx" not in xp.__array_namespace_info__().devices():
        pytest.skip("no MLX")
    x = xp.asarray(np.arange(5.0))
    x.buffer.sync_to_device("mlx", blocking=False)
    assert x.buffer._pending is not None  # the fast path steps aside
    e = x[2]
    x[2] = 40.0
    assert not e.is_view and float(e) == 2.0 and float(x[2]) == 40.0


def _general_call(path, args, kwargs=_calls.NO_KWARGS, reason=None, device=None):
    return _calls.call_mixed(path, args, kwargs, reason, device)


@contextlib.contextmanager
def general_path():
    """The dispatch without its operator, one-call and unary fast paths:
    each of the three entry functions swapped for its general path wherever
    the package holds it (the array class's table of operations, and every
    module that imported it), and without the reductions' direct path on a
    device."""
    general = {
        _operators.operate: _operators.operate_general,
        _calls.call: _general_call,
        _operators.unary: lambda name, x: _general_call(name, (x,)),
    }
    holders = [_array._ops] + [m for name, m in sys.modules.items() if name.startswith("unifiedarray.") and m]
    with contextlib.ExitStack() as stack:
        for holder in holders:
            for attr in ("operate", "call", "unary"):
                fast = getattr(holder, attr, None)
                if fast in general:
                    stack.enter_context(mock.patch.object(holder, attr, general[fast]))
        # The reductions' direct path on a device.
        stack.enter_context(mock.patch.object(_reductions, "on_device", lambda name, x: None))
        yield


ONE_ARRAY_CALLS = {
    "mean": lambda x, ax: xp.mean(x, axis=ax),
    "std": lambda x, ax: xp.std(x, axis=ax, correction=1),
    "argmax": lambda x, ax: xp.argmax(x, axis=ax),
    "cumulative_sum": lambda x, ax: xp.cumulative_sum(x, axis=ax),
    "sort": lambda x, ax: xp.sort(x, axis=-1 if ax is None else ax),
    "roll": lambda x, ax: xp.roll(x, 1, axis=ax),
    "sin": lambda x, ax: xp.sin(x),
    "negative": lambda x, ax: -x,
    "add scalar": lambda x, ax: x + 2,
    "radd scalar": lambda x, ax: 2 - x,
    "matmul": lambda x, ax: x @ x,
}


@pytest.mark.parametrize("device", DEVICES)
@settings(max_examples=100, deadline=None)
@given(
    data=st.data(),
    dtype=st.sampled_from(["int8", "int64", "float32", "float64", "complex64", "complex128"]),
    name=st.sampled_from(sorted(ONE_ARRAY_CALLS)),
    other=st.sampled_from(["scalar", "array"]),
)
def test_one_array_fast_paths_match_the_general_path(device, data, dtype, name, other):
    """``_calls.call``'s host path, ``unary`` and ``operate`` (on the
    host and on a device; whole arrays, slices, transposes and reshapes)
    give what the general path gives: values, dtypes, shapes and errors."""
    if device == "mlx" and dtype == "complex128":
        dtype = "complex64"  # MLX holds no complex128
    a = data.draw(hnp.arrays(dtype, hnp.array_shapes(min_dims=1, max_dims=2, max_side=4)))
    axis = data.draw(st.none() | st.integers(-3, 2))
    form = data.draw(st.sampled_from(["whole", "slice", "transpose", "reshape", "reshape of a transpose"]))
    whole = xp.asarray(a, device=device)
    x = {
        "whole": whole,
        "slice": whole[::-1],
        "transpose": whole.mT if a.ndim == 2 else whole[...],
        "reshape": xp.reshape(whole, (-1,)),  # a real view: NumPy's reshape of contiguous memory
        "reshape of a transpose": xp.reshape(whole.mT if a.ndim == 2 else whole[::-1], (-1,)),  # a copy in NumPy
    }[form]
    fn = ONE_ARRAY_CALLS[name]
    if other == "array" and name in ("add scalar", "radd scalar", "matmul"):
        b = xp.asarray(np.asarray(x).copy(), device=device)
        if name == "matmul":
            b = b.mT if b.ndim == 2 else b
        with_b = {"add scalar": lambda x, ax: x + b, "radd scalar": lambda x, ax: b - x, "matmul": lambda x, ax: x @ b}
        fn = with_b[name]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast = outcome(lambda: fn(x, axis))
        with general_path():
            general = outcome(lambda: fn(x, axis))
    assert fast == general


IN_PLACE = {
    "add": lambda x, y: x.__iadd__(y),
    "subtract": lambda x, y: x.__isub__(y),
    "multiply": lambda x, y: x.__imul__(y),
    "divide": lambda x, y: x.__itruediv__(y),
    "pow": lambda x, y: x.__ipow__(y),
    "remainder": lambda x, y: x.__imod__(y),
    "bitwise_and": lambda x, y: x.__iand__(y),
    "bitwise_left_shift": lambda x, y: x.__ilshift__(y),
}


@settings(max_examples=150, deadline=None)
@given(
    data=st.data(),
    dtype=st.sampled_from(["bool", "int8", "uint8", "int64", "float32", "float64", "complex128"]),
    name=st.sampled_from(sorted(IN_PLACE)),
    form=st.sampled_from(["whole", "slice", "transpose"]),
    other=st.sampled_from(["array", "row", "scalar", "self"]),
    raising=st.booleans(),
)
def test_in_place_operators_on_the_host_match_the_general_path(data, dtype, name, form, other, raising):
    """``x <op>= y`` written into x's host memory (the fast path, here for
    arrays of any size) leaves x, its parent and its views as the general
    path (compute, then write) leaves them, and raises the same error
    without writing anything, with ``np.errstate`` set to raise too."""
    a = data.draw(hnp.arrays(dtype, hnp.array_shapes(min_dims=2, max_dims=2, max_side=4)))
    if other == "scalar":
        b = data.draw(st.sampled_from([0, 1, -3, 2.5, True, 1j, 300]))
    elif other == "row":
        b = data.draw(hnp.arrays(data.draw(st.sampled_from(["int8", "int64", "float64", "bool"])), a.shape[-1:]))
    else:
        b = data.draw(hnp.arrays(dtype, a.shape))

    def run():
        whole = xp.asarray(a)
        x = {"whole": whole, "slice": whole[::-1], "transpose": whole.mT}[form]
        y = x if other == "self" else (xp.asarray(b).mT if form == "transpose" and other == "array" else xp.asarray(b))
        if other == "scalar":
            y = b
        errors = {"all": "raise"} if raising else {"all": "ignore"}
        with np.errstate(**errors), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                IN_PLACE[name](x, y)
                error = None
            except MemoryError:
                raise  # never an answer: a test that allocates hugely must fail, naming its example
            except Exception as exc:
                error = type(exc)
        return error, whole.dtype, np.asarray(whole).tobytes(), np.asarray(x).tobytes()

    with mock.patch.object(_operators, "ELIDE_BYTES", 0):
        fast = run()
    with mock.patch.object(_operators, "_inplace_on_host", lambda x, y, name: False):
        general = run()
    assert fast == general


SCALAR_OPS = ["add", "subtract", "multiply", "divide", "floor_divide", "pow", "remainder", "maximum", "atan2"]
SCALAR_OPS += ["equal", "less", "greater_equal", "bitwise_and", "bitwise_left_shift", "logical_xor"]
SCALARS = st.one_of(
    st.booleans(),
    st.sampled_from([0, 1, -1, 7, 127, 128, 255, 256, -129, 300, 2**31, 2**63 - 1, 2**63, -(2**63) - 1, 2**70]),
    st.sampled_from([2**1100, -(2**1100)]),  # beyond every float: outside the bounds the rules record
    st.sampled_from([0.5, -2.0, float("inf"), float("nan"), 1e300]),
    st.sampled_from([1j, 2.5 - 1j]),
)


@settings(max_examples=200, deadline=None)
@given(
    data=st.data(),
    dtype=st.sampled_from(DTYPES),
    name=st.sampled_from(SCALAR_OPS),
    values=st.lists(SCALARS, min_size=1, max_size=6),
    reflected=st.booleans(),
    strict=st.booleans(),
)
def test_scalar_operands_fast_path_matches_the_general_path(data, dtype, name, values, reflected, strict):
    """``x <op> scalar`` through the operators' fast path, which takes the
    rules' recorded passes (``_rules.SCALAR_PASSES``) where it may, gives
    what the general path gives (which asks the rules every time), value
    after value of each type (so that later ones meet what earlier ones
    recorded): values, dtypes, errors (an int out of range after a float
    passed for the same operation and dtype still raises), in both modes."""
    a = data.draw(hnp.arrays(dtype, hnp.array_shapes(min_dims=1, max_dims=2, max_side=3)))
    x = xp.asarray(a)
    with np.errstate(all="ignore"), warnings.catch_warnings(), xp.strict(strict):
        warnings.simplefilter("ignore")
        for v in values:
            fast = outcome(lambda: _operators.operate(x, v, name, reflected))  # noqa: B023
            general = outcome(lambda: _operators.operate_general(x, v, name, reflected))  # noqa: B023
            assert fast == general, (v, type(v))


ZERO_D_UNARY = ["sin", "negative", "abs", "isnan", "sqrt", "floor", "logical_not"]


@settings(max_examples=100, deadline=None)
@given(
    data=st.data(),
    dtype=st.sampled_from(DTYPES),
    name=st.sampled_from(SCALAR_OPS + ZERO_D_UNARY),
    operand=st.sampled_from(["scalar", "0-d", "1-d"]),
)
def test_0d_arrays_take_the_fast_path_alone(data, dtype, name, operand):
    """A 0-d host array (a reduction's result, a convergence check's
    value) goes through the operators' host fast path once, although
    NumPy's ufunc gives a scalar for it, and never on to the general path
    as well (which computed it a second time); what it gives is what the
    general path gives."""
    x = xp.asarray(data.draw(hnp.arrays(dtype, ())))
    if name in ZERO_D_UNARY:
        args: tuple = (name, x)
        fast_path, general_path = _operators.unary, lambda name, x: _calls.call(name, (x,))
    else:
        if operand == "scalar":
            y = data.draw(SCALARS)
        else:
            y = xp.asarray(data.draw(hnp.arrays(dtype, () if operand == "0-d" else (2,))))
        args = (x, y, name)
        fast_path, general_path = _operators.operate, _operators.operate_general
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast = outcome(lambda: fast_path(*args))
        assert fast == outcome(lambda: general_path(*args))
        scalar = operand == "scalar" and name not in ZERO_D_UNARY
        # The general path by design: a comparison's constant answer, and a
        # float past float16's or float32's range (converted with NumPy's warning).
        if isinstance(fast, tuple) and not (
            scalar
            and (_operators.check_scalar(x, y, name) is not None or (type(y) is float and _rules.overflows(x.dtype, y)))
        ):
            # A success that the rules did not answer as a constant: the fast path's own.
            never = mock.Mock(side_effect=AssertionError("the general path was taken"))
            with mock.patch.object(_operators, "call", never), mock.patch.object(_operators, "operate_general", never):
                fast_path(*args)


# -- the direct functions on a device (Backend.direct: MLX's kernel alone) ------------------------

DEVICE_DTYPES = ["bool", "int8", "uint8", "int32", "int64", "uint64", "float16", "float32", "float64", "complex64"]
DIRECT_BINARY = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "atan2", "equal", "less"]
DIRECT_BINARY += ["greater_equal", "logical_and", "bitwise_and", "floor_divide", "pow", "remainder", "hypot"]
DIRECT_UNARY = ["sin", "cos", "abs", "negative", "positive", "exp", "sqrt", "floor", "logical_not", "sign"]
DIRECT_UNARY += ["bitwise_invert", "isnan", "round", "square", "tanh", "real"]
DIRECT_SCALARS = st.one_of(
    st.booleans(),
    st.sampled_from([0, 1, -1, 3, 127, 128, 255, 300, 2**31, 2**63 - 1, -(2**63) - 1]),
    st.sampled_from([0.5, -2.0, 3.0, float("inf"), float("nan"), 1e300, 1e-45]),
    st.sampled_from([1j, 2.5 - 1j]),
)


def on_device(a, device):
    """``a`` on ``device``; the example is passed over where the device
    cannot hold its dtype."""
    try:
        return xp.asarray(a, device=device)
    except TypeError:
        assume(False)


def device_outcome(fn):
    """What a call gives, with where its result lives and whether its
    buffer holds it as its one current copy."""
    try:
        out = fn()
    except MemoryError:
        raise  # never an answer: a test that allocates hugely must fail, naming its example
    except Exception as exc:
        return type(exc)
    buf = out.buffer
    return (out.dtype, out.shape, out.device, buf.ready is not None, _bits(np.asarray(out)))


def _bits(a):
    """``a``'s bytes with every NaN made NumPy's one NaN: bit for bit
    otherwise (signed zeros included), but a NaN's payload is no value
    (MLX's float16 minimum gave a NaN of another payload on one path, once
    in many runs)."""
    if a.dtype.kind == "f":
        a = np.where(np.isnan(a), np.array(np.nan, a.dtype), a)
    elif a.dtype.kind == "c":
        parts = np.empty_like(a)
        for part in ("real", "imag"):
            p = getattr(a, part)
            setattr(parts, part, np.where(np.isnan(p), np.array(np.nan, p.dtype), p))
        a = parts
    return a.tobytes()


@pytest.mark.parametrize("device", DEVICES)
@settings(max_examples=150, deadline=None)
@given(
    data=st.data(),
    dtype=st.sampled_from(DEVICE_DTYPES),
    name=st.sampled_from(DIRECT_BINARY),
    others=st.lists(st.sampled_from(DEVICE_DTYPES) | DIRECT_SCALARS, min_size=1, max_size=4),
    reflected=st.booleans(),
    strict=st.booleans(),
)
def test_device_direct_binary_matches_the_general_path(device, data, dtype, name, others, reflected, strict):
    """``operate`` on arrays current on a device (whole or views), with an
    array of any dtype or a Python scalar of any kind, gives what
    ``operate_general`` gives (values, dtypes, errors, where the result
    lives), each operand twice: the first call of a signature judges it,
    the second may take the backend's direct function."""
    a = data.draw(hnp.arrays(dtype, hnp.array_shapes(min_dims=1, max_dims=2, max_side=3)))
    x = on_device(a, device)
    if data.draw(st.booleans()):
        x = x[::-1]
    with np.errstate(all="ignore"), warnings.catch_warnings(), xp.strict(strict):
        warnings.simplefilter("ignore")
        for other in others:
            if isinstance(other, str):
                shape = data.draw(st.sampled_from([a.shape, a.shape[-1:], (1,), (5,)]))
                other = on_device(data.draw(hnp.arrays(other, shape)), device)
            for _ in range(2):
                fast = device_outcome(lambda: _operators.operate(x, other, name, reflected))  # noqa: B023
                general = device_outcome(lambda: _operators.operate_general(x, other, name, reflected))  # noqa: B023
                assert fast == general, (other, type(other))


@pytest.mark.parametrize("device", DEVICES)
@settings(max_examples=100, deadline=None)
@given(data=st.data(), dtype=st.sampled_from(DEVICE_DTYPES), name=st.sampled_from(DIRECT_UNARY + ["reductions"] * 8))
def test_device_direct_unary_and_reductions_match_the_general_path(device, data, dtype, name):
    """``unary`` and the whole-array reductions without keywords on a
    device give what the general path gives, twice (judged, then direct)."""
    a = data.draw(hnp.arrays(dtype, hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3)))
    x = on_device(a, device)
    calls = (
        [lambda: xp.sum(x), lambda: xp.prod(x), lambda: xp.mean(x), lambda: xp.max(x), lambda: xp.min(x)]
        if name == "reductions"
        else [lambda: getattr(xp, name)(x)]
    )
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for fn in calls:
            for _ in range(2):
                fast = device_outcome(fn)
                with general_path():
                    general = device_outcome(fn)
                assert fast == general


@pytest.mark.skipif("mlx" not in DEVICES, reason="no MLX")
def test_a_reset_of_the_resolution_cache_stales_the_remembered_direct_signatures():
    """The direct path remembers the signature each name served last; a
    function resolved anew after ``_resolve.reset`` (a namespace function
    replaced) is what the next call runs, not the remembered kernel."""
    x = xp.asarray([1.0, 2.0], dtype=xp.float32, device="mlx")
    for _ in range(3):
        x + x, xp.sin(x), xp.sum(x)  # judged, then served directly (and remembered)
    assert {"add", "sin", "sum"} <= set(_operators._LAST)
    seen = []
    saved = dict(_resolve.RESOLVED)

    def replaced(native_fn):
        def fn(*args, **kwargs):
            seen.append(native_fn.__name__)
            return native_fn(*args, **kwargs)

        fn.__name__ = native_fn.__name__
        return fn

    entries = {k: (replaced(v) if k[0] == "mlx" and k[1] in ("add", "sin", "sum") else v) for k, v in saved.items()}
    try:
        _resolve.reset(entries)
        assert (x + x).tolist() == [2.0, 4.0] and xp.sin(x).tolist() == pytest.approx(np.sin([1.0, 2.0]))
        assert float(xp.sum(x)) == 3.0
        assert sorted(set(seen)) == sorted({entries[("mlx", n)].__name__ for n in ("add", "sin", "sum")})
    finally:
        _resolve.reset(saved)
    seen.clear()
    for _ in range(3):
        x + x, xp.sin(x), xp.sum(x)
    assert not seen  # the first functions again, and nothing remembered of the replaced ones


@pytest.mark.skipif("mlx" not in DEVICES, reason="no MLX")
def test_device_direct_path_is_taken_and_sees_writes_through_a_lease():
    """The direct path is taken for float32 operands once judged, and a
    write through the buffer's ``.mlx`` lease reaches the next result."""
    x = xp.asarray([1.0, 2.0], dtype=xp.float32, device="mlx")
    y = xp.asarray([10.0, 20.0], dtype=xp.float32, device="mlx")
    for _ in range(2):
        (x + y, x * 2.0, xp.sin(x), xp.sum(x))
    taken = [v for k, v in _operators.DIRECT.items() if v[0] is not None and k[1:] == (xp.float32, xp.float32)]
    assert taken
    lease = x.buffer.mlx
    lease[0] = 5.0
    assert (x + y).tolist() == [15.0, 22.0] and float(xp.sum(x)) == 7.0 and (x * 2.0).tolist() == [10.0, 4.0]
    z = x + y
    assert z.buffer.ready is not None and z.device == "mlx"
