"""NumPy's argument forms beyond the standard give NumPy's answer on every
device, in both builds (the suite runs on each), and strict mode refuses
the namespace's additions.

Each test draws from a class of forms over the whole domain NumPy users
live in (every binary ufunc with a list operand, every reduction with an
int ``keepdims``, every function NumPy writes ``out=`` for with another
dtype, every narrow ``dtype=`` of the sums, products and scans, complex
``argmax``/``argmin``, ``range`` in keys, NumPy scalars and 0-d arrays as
creation bounds) and compares values, dtypes and exception classes with
NumPy's own answer for the same host data.
"""

from __future__ import annotations

import itertools
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import unifiedarray as xp
from unifiedarray._routes import OUT_CASTING

from .conftest import DEVICES, HAS_MLX

#: Devices whose arrays hold every dtype drawn below (MLX holds no complex128 nor float64 on Metal,
#: but its CPU build, which CI runs, holds float64).
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
DTYPES = ["float16", "float32", "float64", "int8", "int32", "int64", "uint8", "bool"]


def _answer(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)``'s result on the host (a NumPy array, or a
    tuple of them), or the exception it raised, at the call or at the read
    (a lazy device's error comes where the value is first read)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            r = fn(*args, **kwargs)
            if isinstance(r, tuple):
                return tuple(np.asarray(v) for v in r)
            return np.asarray(r)
        except Exception as e:
            return e


def _agree(expected: Any, got: Any, what: str) -> None:
    if isinstance(expected, Exception):
        assert isinstance(got, Exception), f"{what}: NumPy raised {expected!r}, got {got!r}"
        assert isinstance(got, type(expected)) or isinstance(expected, type(got)), (
            f"{what}: NumPy raised {expected!r}, got {got!r}"
        )
        return
    if isinstance(got, TypeError) and "cannot hold dtype" in str(got):
        return  # a dtype this device cannot hold: its own clear error (the sealed space's float16)
    assert not isinstance(got, Exception), f"{what}: NumPy gave {expected!r}, got {got!r}"
    if isinstance(expected, tuple):
        for e, g in zip(expected, got, strict=True):
            _agree(e, g, what)
        return
    assert got.dtype == expected.dtype, f"{what}: dtype {got.dtype}, NumPy's {expected.dtype}"
    assert got.shape == expected.shape, f"{what}: shape {got.shape}, NumPy's {expected.shape}"
    tol = {"float16": 1e-2, "float32": 1e-5, "complex64": 1e-5}.get(expected.dtype.name, 1e-12)
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol, equal_nan=True, err_msg=what)


def _data(draw: Any, dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    if dtype == "bool":
        return np.asarray(draw(st.lists(st.booleans(), min_size=int(np.prod(shape)), max_size=int(np.prod(shape)))),
                          dtype=bool).reshape(shape)  # fmt: skip
    if dtype.startswith(("int", "uint")):
        lo, hi = (0, 9) if dtype.startswith("u") else (-9, 9)
        values = draw(st.lists(st.integers(lo, hi), min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))
    else:
        values = draw(
            st.lists(
                st.sampled_from([0.0, -0.0, 0.5, -1.5, 2.0, 3.25, np.inf, -np.inf, np.nan]),
                min_size=int(np.prod(shape)),
                max_size=int(np.prod(shape)),
            )
        )
    return np.asarray(values, dtype=dtype).reshape(shape)


def _holds(device: str, dtype: np.dtype) -> bool:
    """Whether arrays of ``dtype`` can be made on ``device`` (the sealed
    test space holds no float16, MLX no complex128)."""
    try:
        xp.asarray(np.zeros(1, dtype), device=device)
    except TypeError:
        return False
    return True


SHAPES = st.sampled_from([(), (1,), (3,), (2, 3)])

# -- lists and tuples as operands of NumPy's functions ---------------------------------------

BINARY_UFUNCS = sorted(
    name for name in dir(np) if isinstance(getattr(np, name), np.ufunc) and getattr(np, name).nin == 2
    and getattr(np, name).nout == 1 and name not in ("ldexp", "matmul", "vecdot", "matvec", "vecmat")
)  # fmt: skip


@pytest.mark.parametrize("device", DEVICES)
@SETTINGS
@given(data=st.data())
def test_a_list_operand_of_a_binary_ufunc_is_numpys_array_like(device: str, data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(BINARY_UFUNCS), label="ufunc")
    dtype = data.draw(st.sampled_from(DTYPES), label="dtype")
    host = _data(data.draw, dtype, (3,))
    values = data.draw(st.lists(st.sampled_from([0, 1, 2, 2.5, -1.0, True]), min_size=3, max_size=3), label="list")
    operand: Any = tuple(values) if data.draw(st.booleans(), label="tuple") else values
    first = data.draw(st.booleans(), label="list first")
    fn = getattr(np, name)

    def call(a: Any) -> Any:
        return fn(operand, a) if first else fn(a, operand)

    expected = _answer(lambda: call(host))
    got = _answer(lambda: call(xp.asarray(host, device=device)))
    _agree(expected, got, f"np.{name}({'list, x' if first else 'x, list'}) of {dtype} on {device}")


#: NumPy functions with array parameters the standard's function takes, each with a list in one.
LIST_FORMS = {
    "where": lambda a: np.where(a > 0, a, [5, 6, 7]),
    "concatenate": lambda a: np.concatenate([a, [2.0]]),
    "stack": lambda a: np.stack([a, [1, 2, 3]]),
    "linalg.solve": lambda a: np.linalg.solve(np.diag(a + 4.0), [1.0, 2.0, 3.0]),
    "searchsorted": lambda a: np.searchsorted(np.sort(a), [0, 1]),
    "isin": lambda a: np.isin(a, [0.5, 2.0]),
    "clip": lambda a: np.clip(a, [0, 0, 0], [1, 2, 3]),
    "take": lambda a: np.take(a, [0, 2]),
    "tile": lambda a: np.tile(a, [2, 1]),
    "repeat": lambda a: np.repeat(a, [1, 0, 2]),
    "roll": lambda a: np.roll(np.stack([a, a]), (1, 1), axis=(0, 1)),
    "diff": lambda a: np.diff(a, append=10),
    "matmul": lambda a: np.matmul(a, [1.0, 2.0, 3.0]),
    "dot": lambda a: np.dot(a, [1.0, 0.0, 1.0]),
    "tensordot": lambda a: np.tensordot(np.stack([a, a]), np.ones((3, 2)), 1),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(LIST_FORMS))
def test_numpys_functions_take_lists_where_they_take_arrays(name: str, device: str) -> None:
    host = np.array([0.5, -1.5, 2.0])
    _agree(_answer(lambda: LIST_FORMS[name](host)), _answer(lambda: LIST_FORMS[name](xp.asarray(host, device=device))),
           f"np.{name} with a list on {device}")  # fmt: skip


# -- flags NumPy reads by their truth -------------------------------------------------------

REDUCTIONS = [
    "sum",
    "prod",
    "mean",
    "max",
    "min",
    "std",
    "var",
    "all",
    "any",
    "amax",
    "amin",
    "nansum",
    "count_nonzero",
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("flag", [1, 0, np.int64(1), np.asarray(1)])
def test_keepdims_may_be_any_truth_value_as_numpy_reads_it(name: str, flag: Any, device: str) -> None:
    host = np.array([[1.0, 2.0, 0.0], [3.0, 4.0, 5.0]])
    fn = getattr(np, name)
    for axis in (None, 0):
        _agree(_answer(fn, host, axis=axis, keepdims=flag),
               _answer(fn, xp.asarray(host, device=device), axis=axis, keepdims=flag),
               f"np.{name}(keepdims={flag!r}, axis={axis}) on {device}")  # fmt: skip


# -- out= of another dtype ------------------------------------------------------------------


#: A call of each function NumPy writes ``out=`` for, on a float matrix, giving a result of a known shape.
def _over_axis_0(f: Any, a: Any, o: Any) -> Any:
    return f(a, axis=0, out=o)


def _of_a_row(f: Any, a: Any, o: Any) -> Any:
    return f(a[0], out=o)


OUT_CALLS = {
    **dict.fromkeys(
        [
            "amax",
            "amin",
            "max",
            "min",
            "sum",
            "prod",
            "mean",
            "var",
            "std",
            "median",
            "nanmax",
            "nanmin",
            "nansum",
            "nanprod",
            "nanmean",
            "nanmedian",
            "nanvar",
            "nanstd",
            "ptp",
            "all",
            "any",
            "argmax",
            "argmin",
            "nanargmax",
            "nanargmin",
        ],
        _over_axis_0,
    ),
    **dict.fromkeys(
        [
            "cumsum",
            "cumprod",
            "nancumsum",
            "nancumprod",
            "cumulative_sum",
            "cumulative_prod",
            "round",
            "fix",
            "isneginf",
            "isposinf",
        ],
        _of_a_row,
    ),
    "quantile": lambda f, a, o: f(a, 0.5, axis=0, out=o),
    "nanquantile": lambda f, a, o: f(a, 0.5, axis=0, out=o),
    "percentile": lambda f, a, o: f(a, 50, axis=0, out=o),
    "nanpercentile": lambda f, a, o: f(a, 50, axis=0, out=o),
    "take": lambda f, a, o: f(a[0], [0, 2, 1], out=o),
    "compress": lambda f, a, o: f([True, False, True], a[0], out=o),
    "choose": lambda f, a, o: f(np.array([0, 1, 0]), [a[0], a[1]], out=o),
    "trace": lambda f, a, o: f(a[:, :2], out=o),
    "around": lambda f, a, o: f(a[0], 1, out=o),
    "clip": lambda f, a, o: f(a[0], 0, 2, out=o),
    "concatenate": lambda f, a, o: f([a[0, :1], a[1, :2]], out=o),
    "concat": lambda f, a, o: f([a[0, :1], a[1, :2]], out=o),
    "stack": lambda f, a, o: f([a[0], a[1]], out=o),
    "dot": lambda f, a, o: f(a[0], a[1], out=o),
    "outer": lambda f, a, o: f(a[0], a[1], out=o),
    "einsum": lambda f, a, o: f("ij->j", a, out=o),
    "linalg.multi_dot": lambda f, a, o: f([a[:, :2], a[:2]], out=o),
}

#: NumPy's functions with ``out=`` that no call above takes, and why.
OUT_EXEMPT = {
    "busday_count": "datetimes: host only",
    "busday_offset": "datetimes: host only",
    "is_busday": "datetimes: host only",
    **dict.fromkeys(
        [f"fft.{n}" for n in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "fftn", "ifftn",
                              "rfft2", "rfftn", "irfft2", "irfftn")],
        "NumPy's FFTs write an out= of another dtype inconsistently (hfft's int64 out stays zeros, ifft2's "
        "takes a same_kind cast): not a rule to copy; the library casts same_kind",
    ),
}  # fmt: skip


def test_every_numpy_function_with_out_has_a_call_here() -> None:
    """The class is NumPy's whole ``out=``: every public function of the
    installed NumPy that takes it (ufuncs aside: their rule is the ufunc's)
    is drawn below, or exempt with its reason."""
    import inspect

    from unifiedarray._routes import numpy_public

    with_out = set()
    for name, fn in numpy_public().items():
        try:
            if not isinstance(fn, np.ufunc) and "out" in inspect.signature(fn).parameters:
                with_out.add(name)
        except (TypeError, ValueError):
            continue
    assert sorted(with_out - set(OUT_CALLS) - set(OUT_EXEMPT)) == []
    assert sorted(set(OUT_CASTING) - set(OUT_CALLS)) == []


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(OUT_CALLS))
@pytest.mark.parametrize("out_dtype", ["int64", "int8", "float32", "bool"])
def test_out_of_another_dtype_is_cast_as_numpy_casts_it(name: str, out_dtype: str, device: str) -> None:
    """NumPy casts unsafely into the ``out=`` of its reductions, scans and
    copies (``np.sum(floats, out=ints)`` truncates), and ``same_kind``
    elsewhere: the library asks ``OUT_CASTING``, held here to NumPy."""
    host = np.array([[1.5, 2.5, 0.5], [3.5, 4.5, 5.5]])
    fn = np.linalg.multi_dot if name == "linalg.multi_dot" else getattr(np.fft, name[4:]) if name.startswith("fft.") \
        else getattr(np, name)  # fmt: skip
    shape = np.shape(OUT_CALLS[name](fn, host, None))  # the result's, for an out= of its shape

    def run(a: Any, make: Any) -> Any:
        o = make(np.zeros(shape, dtype=out_dtype))
        OUT_CALLS[name](fn, a, o)
        return o

    expected = _answer(lambda: run(host, lambda o: o))
    got = _answer(lambda: run(xp.asarray(host, device=device), lambda o: xp.asarray(o, device=device)))
    _agree(expected, got, f"np.{name}(float64, out={out_dtype}) on {device}")


# -- narrow dtype= and float16 accumulators -------------------------------------------------

NARROW = {
    "sum": (lambda a, d: xp.sum(a, dtype=d), lambda a, d: np.sum(a, dtype=d)),
    "prod": (lambda a, d: xp.prod(a, dtype=d), lambda a, d: np.prod(a, dtype=d)),
    "cumulative_sum": (lambda a, d: xp.cumulative_sum(a, dtype=d), lambda a, d: np.cumulative_sum(a, dtype=d)),
    "cumulative_prod": (lambda a, d: xp.cumulative_prod(a, dtype=d), lambda a, d: np.cumulative_prod(a, dtype=d)),
    "linalg.trace": (
        lambda a, d: xp.linalg.trace(xp.reshape(xp.concat([a, a, a]), (3, 3)), dtype=d),
        lambda a, d: np.trace(np.concatenate([a, a, a]).reshape(3, 3), dtype=d),
    ),
}
NARROW_DATA = {
    "int8": [100, 100, 27],
    "uint8": [200, 100, 3],
    "int16": [30000, 30000, 1],
    "bool": [True, False, True],
    "float16": [60000.0, 60000.0, 1.0],
    "float32": [1e38, 1e38, 1.0],
    "int64": [2**62, 2**62, 1],
}
NARROW_DTYPES = [None, "int8", "uint8", "int16", "int32", "int64", "bool", "float16", "float32", "float64"]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(NARROW))
def test_a_narrow_dtype_gives_numpys_wrapped_result(name: str, device: str) -> None:
    """``linalg.trace(int8s, dtype=int8)`` gave int32 with unwrapped sums
    on MLX, and ``cumulative_sum(x, dtype=bool)`` int32 counts: the rules'
    dtype wins on every device, wrapping as NumPy's arithmetic in it does."""
    ours, numpys = NARROW[name]
    for (src, values), out in itertools.product(NARROW_DATA.items(), NARROW_DTYPES):
        host = np.asarray(values, dtype=src)
        if not _holds(device, host.dtype):
            continue
        expected = _answer(numpys, host, None if out is None else np.dtype(out))
        got = _answer(ours, xp.asarray(host, device=device), None if out is None else getattr(xp, out))
        _agree(expected, got, f"{name}({src}, dtype={out}) on {device}")


@pytest.mark.parametrize("device", DEVICES)
def test_the_mean_of_float16_accumulates_in_float32_as_numpys(device: str) -> None:
    host = np.array([[60000.0, 60000.0, 1.0], [-60000.0, 3.0, 2.0]], dtype=np.float16)
    if not _holds(device, host.dtype):
        pytest.skip(f"{device} holds no float16")
    for axis in (None, 0, 1):
        _agree(_answer(np.mean, host, axis=axis),
               _answer(xp.mean, xp.asarray(host, device=device), axis=axis),
               f"mean(float16, axis={axis}) on {device}")  # fmt: skip


# -- complex argmax and argmin --------------------------------------------------------------

_COMPLEX = [0, 1, -1, 1j, -1j, 1 + 1j, 1 - 1j, np.nan, complex(0, np.nan), np.inf, -np.inf, complex(1, np.inf)]


@pytest.mark.parametrize("device", DEVICES)
@SETTINGS
@given(data=st.data())
def test_argmax_and_argmin_of_complex_values_take_numpys_order(device: str, data: st.DataObject) -> None:
    """Lexicographic (real part, then imaginary), the first of equals, the
    first NaN winning: MLX refused complex input."""
    shape = data.draw(st.sampled_from([(4,), (2, 3), (2, 2, 2)]), label="shape")
    host = np.asarray(data.draw(st.lists(st.sampled_from(_COMPLEX), min_size=int(np.prod(shape)),
                                         max_size=int(np.prod(shape)))), dtype=np.complex64).reshape(shape)  # fmt: skip
    axis = data.draw(st.sampled_from([None, *range(len(shape))]), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    for name in ("argmax", "argmin"):
        _agree(_answer(getattr(np, name), host, axis=axis, keepdims=keepdims),
               _answer(getattr(xp, name), xp.asarray(host, device=device), axis=axis, keepdims=keepdims),
               f"{name}({host.tolist()}, axis={axis}) on {device}")  # fmt: skip


# -- quantiles: NumPy's bits --------------------------------------------------------------

QUANTILE_DATA = {
    "int64 past 2**53": np.array([-1, 9007199254740993]),
    "int8 wrapping": np.array([-128, 127], np.int8),
    "float32": np.array([[-39.607338, 22.747904, 3.25], [1.5, -2.75, 8.0]], np.float32),
    "float32 with NaN": np.array([[np.nan, 1.0, 2.5], [1.5, -2.75, np.nan]], np.float32),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("data", sorted(QUANTILE_DATA))
def test_quantiles_give_numpys_bits(data: str, device: str) -> None:
    """NumPy's lerp subtracts integers in their dtype (exact past 2**53, and
    wrapping in int8), weighs a Python-scalar q in the data's dtype and a
    list q in float64; its median is the mean of the two middle values."""
    host = QUANTILE_DATA[data]
    if not _holds(device, host.dtype):
        pytest.skip(f"{device} holds no {host.dtype}")
    calls = [
        ("quantile", (0.3,)), ("quantile", (0.5,)), ("quantile", ([0.1, 0.9],)), ("percentile", (30,)),
        ("median", ()), ("nanquantile", (0.3,)), ("nanquantile", ([0.2, 0.7],)), ("nanmedian", ()),
    ]  # fmt: skip
    for name, q in calls:
        fn = getattr(np, name)
        for axis in (None, -1):
            expected = _answer(fn, host, *q, axis=axis)
            got = _answer(fn, xp.asarray(host, device=device), *q, axis=axis)
            assert got.dtype == expected.dtype and np.array_equal(got, expected, equal_nan=True), (
                f"np.{name}({data}, {q}, axis={axis}) on {device}: {got!r}, NumPy's {expected!r}"
            )


# -- NumPy's floor division on every device -------------------------------------------------

_SPECIAL = [np.inf, -np.inf, 2.5, -2.5, 0.0, -0.0, np.nan, 1.0, -1.0]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", ["floor_divide", "divmod", "remainder", "fmod"])
def test_numpys_floor_division_keeps_numpys_special_cases(name: str, device: str) -> None:
    """``np.floor_divide(inf, 2.5)`` is NaN in NumPy (the standard's
    ``xp.floor_divide`` gives inf, on every device); MLX gave the
    standard's answer for NumPy's function."""
    a = np.array([p for p, _ in itertools.product(_SPECIAL, _SPECIAL)])
    b = np.array([q for _, q in itertools.product(_SPECIAL, _SPECIAL)])
    fn = getattr(np, name)
    for dt in ("float32", "float64"):
        ha, hb = a.astype(dt), b.astype(dt)
        _agree(_answer(fn, ha, hb),
               _answer(fn, xp.asarray(ha, device=device), xp.asarray(hb, device=device)),
               f"np.{name}({dt}) on {device}")  # fmt: skip


# -- range in keys --------------------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "key",
    [
        (range(3), [1, 0, 2]),
        range(2),
        range(0),
        (slice(None), range(1, 3)),
        range(2, -1, -1),
        (range(3), range(3)),
        2**63,
        -(2**63) - 1,
        (0, 2**63),
    ],
    ids=repr,
)
def test_keys_read_and_write_as_numpys(key: Any, device: str) -> None:
    """``probs[range(n), y]`` and ``d[range(n), y] -= 1`` (a softmax's
    gradient) were refused on MLX; an index past int64 is NumPy's
    OverflowError above it and IndexError below it."""
    host = np.arange(9.0).reshape(3, 3)
    x = xp.asarray(host, device=device)
    _agree(_answer(lambda: host[key]), _answer(lambda: x[key]), f"x[{key!r}] on {device}")

    def write(a: Any) -> Any:
        a[key] -= 1
        return a

    _agree(_answer(lambda: write(host.copy())), _answer(lambda: write(xp.asarray(host, device=device))),
           f"x[{key!r}] -= 1 on {device}")  # fmt: skip


# -- the namespace's NumPy-only forms, refused in strict mode -------------------------------

#: (the namespace's call, NumPy's): forms generic code passes to ``xp`` that the standard lacks.
NAMESPACE_FORMS = {
    "linspace(0-d, 0-d)": (
        lambda d: xp.linspace(xp.asarray(0.0, device=d), xp.asarray(1.0, device=d), 3, device=d),
        lambda: np.linspace(np.asarray(0.0), np.asarray(1.0), 3),
    ),
    "linspace(float32 scalar)": (
        lambda d: xp.linspace(np.float32(0), 1, 3, device=d),
        lambda: np.linspace(np.float32(0), 1, 3),
    ),
    "linspace(int8 scalar)": (lambda d: xp.linspace(np.int8(0), 4, 3, device=d), lambda: np.linspace(np.int8(0), 4, 3)),
    "arange(int64 scalar)": (lambda d: xp.arange(np.int64(3), device=d), lambda: np.arange(np.int64(3))),
    "arange(int16 0-d, float)": (
        lambda d: xp.arange(xp.asarray(1, dtype=xp.int16, device=d), 2.5, device=d),
        lambda: np.arange(np.asarray(1, np.int16), 2.5),
    ),
    "full(float32 scalar)": (lambda d: xp.full(2, np.float32(3), device=d), lambda: np.full(2, np.float32(3))),
    "mean(dtype=)": (
        lambda d: xp.mean(xp.asarray([1, 2, 4], device=d), dtype=xp.float32),
        lambda: np.mean(np.asarray([1, 2, 4]), dtype=np.float32),
    ),
    "full_like(shape=)": (
        lambda d: xp.full_like(xp.ones(2, device=d), 7, shape=(3, 1)),
        lambda: np.full_like(np.ones(2), 7, shape=(3, 1)),
    ),
    "zeros_like(shape=)": (
        lambda d: xp.zeros_like(xp.ones(2, device=d), shape=(2, 2)),
        lambda: np.zeros_like(np.ones(2), shape=(2, 2)),
    ),
    "squeeze(x)": (lambda d: xp.squeeze(xp.ones((1, 3, 1), device=d)), lambda: np.squeeze(np.ones((1, 3, 1)))),
    "astype(complex, bool)": (
        lambda d: xp.astype(xp.asarray([0j, 1j, 2 + 0j], dtype=xp.complex64, device=d), xp.bool),
        lambda: np.asarray([0j, 1j, 2 + 0j], np.complex64).astype(bool),
    ),
}

#: The forms above that are the standard's own (strict mode takes them too).
STANDARD_FORMS = {"astype(complex, bool)"}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("form", sorted(NAMESPACE_FORMS))
def test_the_namespace_takes_numpys_forms_and_strict_mode_refuses_them(form: str, device: str) -> None:
    ours, numpys = NAMESPACE_FORMS[form]
    _agree(_answer(numpys), _answer(lambda: ours(device)), f"{form} on {device}")
    with xp.strict():
        got = _answer(lambda: ours(device))
    if form in STANDARD_FORMS:
        _agree(_answer(numpys), got, f"{form} on {device}, strict")
    else:
        assert isinstance(got, TypeError), f"{form} in strict mode on {device}: {got!r}"


def test_a_sequence_with_a_foreign_element_is_blamed_on_that_element() -> None:
    with pytest.raises(TypeError, match=r"concat: .* numpy\.ndarray at position 1"):
        xp.concat([xp.ones(2), np.ones(1)])


@pytest.mark.skipif(not HAS_MLX, reason="MLX is not installed")
def test_numpys_list_forms_on_mlx_stay_on_mlx() -> None:
    x = xp.asarray([1.0, 2.0], device="mlx")
    c = xp.asarray([True, False], device="mlx")
    out = np.where(c, x, [5.0, 6.0])
    assert out.device == x.device and out.tolist() == [1.0, 6.0]


# -- strict mode refuses what array-api-strict refuses --------------------------------------


def _square(X: Any, d: str) -> Any:
    return X.asarray([[1, 2], [3, 4]], dtype=getattr(X, d))


def _strict_calls() -> dict[str, Any]:
    calls: dict[str, Any] = {}
    one = ("cholesky", "det", "eigh", "eigvalsh", "inv", "matrix_norm", "qr", "slogdet", "svd", "svdvals", "trace",
           "diagonal", "pinv", "vector_norm")  # fmt: skip
    for d in ("int64", "bool", "float64"):
        for fn in one:
            calls[f"linalg.{fn}({d})"] = lambda X, fn=fn, d=d: getattr(X.linalg, fn)(_square(X, d))
        for fn in ("solve", "matmul", "tensordot", "vecdot"):
            calls[f"linalg.{fn}({d})"] = lambda X, fn=fn, d=d: getattr(X.linalg, fn)(_square(X, d), _square(X, d))
        calls[f"linalg.matrix_power({d})"] = lambda X, d=d: X.linalg.matrix_power(_square(X, d), 2)
        calls[f"linalg.cross({d})"] = lambda X, d=d: X.linalg.cross(
            X.asarray([1, 0, 1], dtype=getattr(X, d)), X.asarray([0, 1, 1], dtype=getattr(X, d))
        )
        for fn in ("matmul", "tensordot", "vecdot"):
            calls[f"{fn}({d})"] = lambda X, fn=fn, d=d: getattr(X, fn)(_square(X, d), _square(X, d))
        calls[f"diff({d})"] = lambda X, d=d: X.diff(X.asarray([1, 0, 1], dtype=getattr(X, d)))
    for fn in ("fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft"):
        for d in ("float32", "complex64", "int64"):
            calls[f"fft.{fn}({d})"] = lambda X, fn=fn, d=d: getattr(X.fft, fn)(
                X.asarray([1, 2, 3, 4], dtype=getattr(X, d))
            )
    calls |= {
        "concat(int, float)": lambda X: X.concat([X.asarray([1]), X.asarray([1.0])]),
        "stack(int, float)": lambda X: X.stack([X.asarray([1]), X.asarray([1.0])]),
        "concat(int8, uint64)": lambda X: X.concat([X.asarray([1], dtype=X.int8), X.asarray([1], dtype=X.uint64)]),
        "concat(int8, int16)": lambda X: X.concat([X.asarray([1], dtype=X.int8), X.asarray([1], dtype=X.int16)]),
        "where(int condition)": lambda X: X.where(X.asarray([1, 0]), X.asarray([1.0, 2.0]), X.asarray([3.0, 4.0])),
        "where(int, float)": lambda X: X.where(X.asarray([True, False]), X.asarray([1, 2]), X.asarray([3.0, 4.0])),
        "isin(float, float)": lambda X: X.isin(X.asarray([1.0, 2.5]), X.asarray([2.5])),
        "isin(int, int)": lambda X: X.isin(X.asarray([1, 2]), X.asarray([2])),
        "meshgrid(int, float)": lambda X: X.meshgrid(X.asarray([1]), X.asarray([1.0])),
        "meshgrid(int, int)": lambda X: X.meshgrid(X.asarray([1]), X.asarray([2])),
    }
    return calls


STRICT_CALLS = _strict_calls()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("call", sorted(STRICT_CALLS))
def test_strict_mode_refuses_what_array_api_strict_refuses(call: str, device: str) -> None:
    """Linear algebra and ``matmul`` of bools and integers, FFTs of the
    wrong kind, ``concat``/``stack`` across kinds, an integer ``where``
    condition, ``isin`` of floats: array-api-strict refuses them, and so
    does strict mode, on every device; what it answers, strict mode answers."""
    import array_api_strict

    reference = _answer(lambda: STRICT_CALLS[call](array_api_strict))

    def ours() -> Any:
        with xp.strict(), xp.default_device(device):
            return STRICT_CALLS[call](xp)

    got = _answer(ours)
    if isinstance(reference, Exception):
        assert isinstance(got, Exception), (
            f"{call} on {device}: array-api-strict refused ({reference!r}), we gave {got!r}"
        )
        assert isinstance(got, type(reference)), f"{call} on {device}: {got!r}, array-api-strict's {reference!r}"
    elif isinstance(got, Exception):
        assert isinstance(got, TypeError) and "cannot hold dtype" in str(got), f"{call} on {device}: {got!r}"
