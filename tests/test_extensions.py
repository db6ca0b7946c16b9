"""The namespace's NumPy extensions (``pad``, ``einsum``, ``cross``,
``gradient``, ``quantile``, ``median``, ``cumsum``, ``cumprod``,
``lib.stride_tricks.sliding_window_view``, ``std``/``var`` with ``ddof=``)
give NumPy's answers on every device: the same values, dtypes, shapes and
exception classes as NumPy's functions on the same data (the reference),
over Hypothesis-drawn shapes, dtypes and arguments.  Strict mode refuses
each of them; xarray's rolling windows, integrals and derivatives run on
UnifiedArray-backed DataArrays."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import unifiedarray as xp
from unifiedarray._extensions import EXTENSIONS

from .conftest import DEVICES

# complex128 is left out: MLX cannot hold it (a refusal tested elsewhere).
DTYPES = ["bool", "int8", "uint8", "int16", "int32", "int64", "uint64", "float32", "float64", "complex64"]
SCALARS = [0, 1, -1, 2, 300, 2**63, 0.5, -1.5, 1e300, float("nan"), True, 1j]
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def arrays(draw: Any, dtypes: list[str] = DTYPES, min_dims: int = 0, max_dims: int = 3, min_side: int = 0) -> Any:
    dtype = draw(st.sampled_from(dtypes))
    shape = draw(hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=4))
    elements = None
    if np.dtype(dtype).kind == "f":
        elements = {"min_value": -100, "max_value": 100, "allow_nan": False, "allow_infinity": False}
    elif np.dtype(dtype).kind == "c":
        elements = {"max_magnitude": 100, "allow_nan": False, "allow_infinity": False}
    return draw(hnp.arrays(dtype, shape, elements=elements))


def small(dtype: str) -> Any:
    """Small values of ``dtype`` (exact products and sums in every dtype)."""
    kind = np.dtype(dtype).kind
    if kind in "iuf":
        return hnp.from_dtype(np.dtype(dtype), min_value=0 if kind == "u" else -9, max_value=9)
    return None


def outcome(fn: Callable[[], Any]) -> Any:
    """What a call gives: its result as host arrays, or its exception's class."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            out = fn()
    except MemoryError:
        raise  # never an answer: a test that allocates hugely must fail, naming its example
    except Exception as exc:  # the error's class is part of the answer
        return type(exc)
    if isinstance(out, list | tuple):
        return [np.asarray(o) for o in out]
    return np.asarray(out)


def to_device(obj: Any, device: str) -> Any:
    if isinstance(obj, np.ndarray):
        return xp.asarray(obj, device=device)
    if isinstance(obj, list | tuple) and any(isinstance(o, np.ndarray) for o in obj):
        return type(obj)(to_device(o, device) for o in obj)
    return obj


def check(device: str, name: str, args: tuple, kwargs: dict[str, Any] | None = None, exact: bool = True) -> None:
    """``xp.<name>`` on ``device`` against ``np.<name>`` on the host, for
    the same arguments (host arrays becoming arrays on ``device``)."""
    kwargs = kwargs or {}
    np_fn = np.lib.stride_tricks.sliding_window_view if name == "sliding_window_view" else getattr(np, name)
    ours_fn = xp.lib.stride_tricks.sliding_window_view if name == "sliding_window_view" else getattr(xp, name)
    expected = outcome(lambda: np_fn(*args, **kwargs))
    ours_args = tuple(to_device(a, device) for a in args)
    ours_kwargs = {k: to_device(v, device) for k, v in kwargs.items()}
    got = outcome(lambda: ours_fn(*ours_args, **ours_kwargs))
    results = expected if isinstance(expected, list) else [expected]
    if device == "mlx" and any(getattr(r, "dtype", None) == np.complex128 for r in results):
        # MLX holds no complex128: a TypeError naming mlx and the dtype, by design.
        with pytest.raises(TypeError, match=r"mlx.*complex128"):
            ours_fn(*ours_args, **ours_kwargs)
        return
    if isinstance(expected, type) or isinstance(got, type):
        assert got is expected, f"{name}{args!r} {kwargs!r} on {device}: {got!r}, NumPy {expected!r}"
        return
    if isinstance(expected, list):
        assert isinstance(got, list) and len(got) == len(expected)
        for g, e in zip(got, expected, strict=True):
            same(g, e, exact or device == "cpu")
        return
    same(got, expected, exact or device == "cpu")


def same(got: np.ndarray, expected: np.ndarray, exact: bool) -> None:
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    if exact or expected.dtype.kind not in "fc":
        np.testing.assert_array_equal(got, expected)
    else:
        rtol = 1e-5 if expected.dtype in (np.float32, np.complex64) else 1e-12
        if expected.dtype.kind == "c":
            # A complex product with an infinite part is inf or nan by the C99
            # rules NumPy follows and nan in a device's plain (a+bi)(c+di): the
            # same value up to floating point is "not finite" in both.
            finite = np.isfinite(expected)
            np.testing.assert_array_equal(np.isfinite(got), finite)
            got, expected = got[finite], expected[finite]
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol * 100)


devices = pytest.mark.parametrize("device", DEVICES)


@st.composite
def pad_widths(draw: Any, ndim: int) -> Any:
    width = st.integers(-1, 3)
    return draw(
        st.one_of(
            width,
            st.tuples(width, width),
            st.lists(st.tuples(width, width), min_size=ndim, max_size=ndim).map(tuple),
            st.just(1.5),
        )
    )


@devices
def test_pad_converts_the_fill_value_even_where_nothing_is_padded(device):
    """Found by the property test below: NumPy refuses 300 for int8 with a zero pad width too."""
    check(device, "pad", (np.zeros(0, dtype=np.int8), 0), {"constant_values": 300})
    check(device, "pad", (np.zeros(2, dtype=np.uint8), 0), {"constant_values": -1})
    check(device, "pad", (np.zeros((), dtype=np.int8), 0), {"constant_values": 300})  # 0-d: no axis, no conversion


@devices
@SETTINGS
@given(data=st.data())
def test_pad_matches_numpy(device, data):
    a = arrays(data.draw)
    width = data.draw(pad_widths(a.ndim))
    mode = data.draw(st.sampled_from(["constant", "edge", "reflect", "wrap", "symmetric", "maximum", "mean"]))
    kwargs: dict[str, Any] = {}
    if mode == "constant" and data.draw(st.booleans()):
        kwargs["constant_values"] = data.draw(st.sampled_from(SCALARS))
    check(device, "pad", (a, width), {"mode": mode, **kwargs})


EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 2)]),
    ("ij->ji", [(2, 3)]),
    ("ii->i", [(3, 3)]),
    ("ij->", [(2, 3)]),
    ("i,i->", [(4,), (4,)]),
    ("i,j->ij", [(2,), (3,)]),
    ("...i,...i->...", [(2, 3), (2, 3)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 1)]),
    ("ij,jk->ik", [(2, 3), (4, 4)]),  # mismatched: NumPy's ValueError
    ("ij,jk->iz", [(2, 3), (3, 4)]),  # an output label not in the inputs
]


@devices
@SETTINGS
@given(data=st.data())
def test_einsum_matches_numpy(device, data):
    subscripts, shapes = data.draw(st.sampled_from(EINSUM_CASES))
    dtype = data.draw(st.sampled_from(DTYPES))
    dtypes = [dtype] + [data.draw(st.sampled_from([dtype, *DTYPES])) for _ in shapes[1:]]
    ops = [data.draw(hnp.arrays(d, s, elements=small(d))) for d, s in zip(dtypes, shapes, strict=True)]
    check(device, "einsum", (subscripts, *ops), exact=False)


@devices
@SETTINGS
@given(data=st.data())
def test_cross_matches_numpy(device, data):
    dtype = data.draw(st.sampled_from(["bool", "int8", "int32", "int64", "uint8", "float32", "float64", "complex64"]))
    n = data.draw(st.sampled_from([3, 3, 2, 4]))
    lead = data.draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3))
    m = data.draw(st.sampled_from([n, 3]))
    a = data.draw(hnp.arrays(dtype, (*lead, n), elements=small(dtype)))
    b = data.draw(hnp.arrays(dtype, (m, *lead[::-1]), elements=small(dtype)))
    kwargs = data.draw(
        st.sampled_from([{"axisb": 0}, {"axisb": 0, "axisc": 0}, {"axisa": -1, "axisb": 0, "axisc": -2}, {"axisb": 5}])
    )
    check(device, "cross", (a, b), kwargs, exact=False)  # MLX rounds complex products its own way


@devices
@SETTINGS
@given(data=st.data())
def test_gradient_matches_numpy(device, data):
    a = arrays(data.draw, ["int32", "int64", "float32", "float64", "complex64"], min_dims=1, max_dims=2)
    axis = data.draw(st.sampled_from([None, 0, -1, 2]))
    spacing: tuple = ()
    if data.draw(st.booleans()) and axis is not None:
        spacing = (data.draw(st.sampled_from([0.5, 2])),)
    check(device, "gradient", (a, *spacing), {"axis": axis, "edge_order": data.draw(st.sampled_from([1, 2]))})


@devices
@SETTINGS
@given(data=st.data())
def test_quantile_and_median_match_numpy(device, data):
    a = arrays(data.draw, ["bool", "int8", "int64", "uint8", "float32", "float64", "complex64"], max_dims=2)
    axis = data.draw(st.sampled_from([None, 0, -1, 3]))
    keepdims = data.draw(st.booleans())
    if data.draw(st.booleans()):
        check(device, "median", (a,), {"axis": axis, "keepdims": keepdims})
        return
    q = data.draw(st.sampled_from([0.5, 0.0, 1.0, 0.25, [0.1, 0.9], 1.5, np.asarray([0.3, 0.6])]))
    method = data.draw(st.sampled_from(["linear", "lower", "higher", "nearest", "midpoint"]))
    check(device, "quantile", (a, q), {"axis": axis, "keepdims": keepdims, "method": method})


@devices
@SETTINGS
@given(data=st.data())
def test_cumsum_and_cumprod_match_numpy(device, data):
    a = arrays(data.draw)
    name = data.draw(st.sampled_from(["cumsum", "cumprod"]))
    axis = data.draw(st.sampled_from([None, 0, -1, 1, 3]))
    dtype = data.draw(st.sampled_from([None, None, "int64", "float64", "float32"]))
    check(device, name, (a,), {"axis": axis, "dtype": dtype}, exact=False)


@devices
@SETTINGS
@given(data=st.data())
def test_std_and_var_ddof_match_numpy(device, data):
    a = arrays(data.draw, ["int32", "int64", "float32", "float64", "complex64"], min_dims=1)
    name = data.draw(st.sampled_from(["std", "var"]))
    axis = data.draw(st.sampled_from([None, 0, -1]))
    kwargs: dict[str, Any] = {"axis": axis, "ddof": data.draw(st.sampled_from([0, 1, 2, 0.5]))}
    if data.draw(st.booleans()):
        kwargs["correction"] = 1  # NumPy: a ValueError with a non-zero ddof, else the correction
    check(device, name, (a,), kwargs, exact=False)


@devices
@SETTINGS
@given(data=st.data())
def test_sliding_window_view_matches_numpy(device, data):
    a = arrays(data.draw, max_dims=2)
    axis = data.draw(st.sampled_from([None, 0, -1, (0, 0), 2]))
    count = a.ndim if axis is None else len(axis) if isinstance(axis, tuple) else 1
    windows = tuple(data.draw(st.integers(0, 3)) for _ in range(count))
    check(device, "sliding_window_view", (a, windows if count != 1 else windows[0]), {"axis": axis})


@devices
def test_extensions_keep_the_data_on_its_device(device):
    """Where the device's namespace has the function, no move is made."""
    a = xp.asarray(np.arange(12.0).reshape(3, 4), device=device)
    b = xp.asarray(np.ones((3, 3)), device=device)
    calls = [
        lambda: xp.pad(a, 1),
        lambda: xp.pad(a, ((0, 0), (2, 1)), mode="edge"),
        lambda: xp.einsum("ij,ik->jk", a, a),
        lambda: xp.cross(b, b[::-1]),
        lambda: xp.cumsum(a),
        lambda: xp.cumprod(a, axis=1),
        lambda: xp.std(a, ddof=1),
        lambda: xp.lib.stride_tricks.sliding_window_view(a, 2, axis=1),
    ]
    for call in calls:
        with xp.track_transfers() as moves:
            out = call()
        assert out.device == a.device
        assert moves.count == 0, moves


def test_numpys_statistics_run_on_mlx_by_their_routes():
    if "mlx" not in DEVICES:
        pytest.skip("MLX unavailable")
    a = xp.asarray([1.0, 3.0, 2.0], device="mlx")
    with xp.track_transfers() as moves:
        med, q, g = xp.median(a), xp.quantile(a, 0.25), xp.gradient(a)
    assert med.device == a.device and float(med) == 2.0 and float(q) == 1.5
    assert g.tolist() == np.gradient(np.asarray([1.0, 3.0, 2.0])).tolist()
    assert moves.count == 0


def test_a_form_no_route_covers_runs_on_the_host_counted():
    if "mlx" not in DEVICES:
        pytest.skip("MLX unavailable")
    a = xp.asarray([1.0, 3.0, 2.0], device="mlx")
    with xp.track_transfers() as moves:
        out = xp.quantile(a, 0.5, method="weibull")
    assert out.device == a.device and float(out) == np.quantile([1.0, 3.0, 2.0], 0.5, method="weibull")
    assert moves.count == 2  # the input down, the result up


@pytest.mark.parametrize("name", sorted(EXTENSIONS))
def test_strict_mode_refuses_each_extension_naming_it(name):
    fn = getattr(xp, name) if hasattr(xp, name) else xp.lib.stride_tricks.sliding_window_view
    assert fn is EXTENSIONS[name]
    x = xp.asarray([[1.0, 2.0, 3.0]])
    with xp.strict(), pytest.raises(xp.StrictModeError, match=f"{name} is a NumPy extension, not in the 2025.12"):
        fn(x, x) if name in ("cross", "einsum") else fn(x, 1)
    assert "NumPy extension, not in the 2025.12 standard" in (fn.__doc__ or "")


def test_every_extension_is_exported_and_registered():
    from unifiedarray._extensions import NUMPY_NAMES

    exported = {"pad", "einsum", "cross", "gradient", "quantile", "median", "cumsum", "cumprod", "array"}
    exported |= set(NUMPY_NAMES)
    assert exported | {"sliding_window_view"} == set(EXTENSIONS)
    assert exported <= set(xp.__all__)


@pytest.mark.parametrize("device", DEVICES)
def test_numpy_names_on_the_namespace_give_numpys_answer(device):
    from unifiedarray._extensions import NUMPY_NAMES

    host = np.arange(1.0, 13.0).reshape(3, 4)
    x = xp.asarray(host, device=device)
    one = {"transpose", "ravel", "atleast_1d", "atleast_2d", "atleast_3d", "nansum", "nanprod", "nanmean", "nanvar",
           "nanstd", "nanmax", "nanmin", "nanargmax", "nanargmin", "nancumsum", "nancumprod", "nanmedian", "average",
           "cov", "corrcoef", "ptp", "diagonal", "trace", "nan_to_num", "around", "rint", "cbrt", "deg2rad",
           "rad2deg", "amax", "amin", "ediff1d", "unique", "argwhere", "flatnonzero", "vstack", "hstack", "dstack",
           "column_stack"}  # fmt: skip
    for name in sorted(set(NUMPY_NAMES) & one):
        stacks = name in ("vstack", "hstack", "dstack", "column_stack")
        want = getattr(np, name)([host] if stacks else host)
        got = getattr(xp, name)([x] if stacks else x)
        got = got if not isinstance(got, xp.UnifiedArray) else np.asarray(got.to_device("cpu"))
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), err_msg=name)


@pytest.mark.parametrize("name", ["std", "var"])
def test_strict_mode_refuses_ddof_but_not_the_standard_call(name):
    fn = getattr(xp, name)
    x = xp.asarray([1.0, 2.0, 4.0])
    with xp.strict():
        assert float(fn(x, correction=1)) == pytest.approx(float(getattr(np, name)(np.asarray([1.0, 2, 4]), ddof=1)))
        with pytest.raises(xp.StrictModeError, match=rf"{name}\(ddof=\.\.\.\) is a NumPy extension"):
            fn(x, ddof=1)


def test_strict_mode_is_per_call_not_sticky():
    x = xp.asarray([1.0, 2.0])
    with xp.strict(), pytest.raises(xp.StrictModeError):
        xp.pad(x, 1)
    assert xp.pad(x, 1).tolist() == [0.0, 1.0, 2.0, 0.0]


# -- xarray: the duck-array code paths that call these -------------------------------------

xr = pytest.importorskip("xarray")


def _pair(device: str, values: np.ndarray, coord: np.ndarray) -> tuple[Any, Any]:
    ours = xr.DataArray(xp.asarray(values, device=device), dims="x", coords={"x": coord})
    ref = xr.DataArray(values, dims="x", coords={"x": coord})
    return ours, ref


@pytest.mark.parametrize("device", [d for d in DEVICES if d != "cuda:0"])
@pytest.mark.parametrize(
    "operation",
    [
        pytest.param(lambda d: d.rolling(x=3).mean(), id="rolling-mean"),
        pytest.param(lambda d: d.rolling(x=3, center=True, min_periods=1).sum(), id="rolling-center-sum"),
        pytest.param(lambda d: d.rolling(x=2).std(), id="rolling-std"),
        pytest.param(lambda d: d.rolling(x=2).construct("window"), id="rolling-construct"),
        pytest.param(lambda d: d.integrate("x"), id="integrate"),
        pytest.param(lambda d: d.cumulative_integrate("x"), id="cumulative-integrate"),
        pytest.param(lambda d: d.differentiate("x"), id="differentiate"),
        pytest.param(lambda d: d.std(ddof=1), id="std-ddof"),
        pytest.param(lambda d: d.quantile(0.25, skipna=False), id="quantile"),
    ],
)
def test_xarray_rolling_integrate_differentiate_on_unified_arrays(device, operation):
    values = np.array([1.0, 2.0, 4.0, np.nan, 5.0, 7.0, 8.0])
    ours, ref = _pair(device, values, np.array([0.0, 1.0, 1.5, 3.0, 4.0, 6.0, 7.0]))
    got, expected = operation(ours), operation(ref)
    assert type(got.data) is xp.UnifiedArray
    np.testing.assert_allclose(np.asarray(got.data), expected.values, rtol=1e-12, equal_nan=True)


@pytest.mark.parametrize("device", [d for d in DEVICES if d != "cuda:0"])
def test_xarray_rolling_mean_stays_on_the_device(device):
    ours, ref = _pair(device, np.arange(6.0), np.arange(6.0))
    got = ours.rolling(x=3).mean()
    assert got.data.device == ours.data.device
    np.testing.assert_allclose(np.asarray(got.data), ref.rolling(x=3).mean().values, equal_nan=True)
