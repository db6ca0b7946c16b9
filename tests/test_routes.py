"""The route table: every public NumPy function has one row, and every row
gives NumPy's answer on every device.

The function list comes from the installed NumPy
(:func:`unifiedarray._routes.numpy_public`), not from the table, so a
function the table misses fails here.  Each function is called in its
simplest form (the census' forms: ``benchmarks/numpy_census.py``), on every
device, and held to NumPy's own answer on host data: dtype, shape and
values, or an exception of the same class; on a device NumPy's functions
cannot run on, a row that is not "host" must move nothing but a scalar it
reads (a length, a flag).  A Hypothesis sweep then redraws each form's
arrays over NumPy's dtypes and small shapes (0-d and 1-d included).
"""

from __future__ import annotations

import copy
import importlib.util
import os
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import unifiedarray as xp
from unifiedarray import _routes
from unifiedarray._routes import KINDS, ROUTES, numpy_public, route_counts, unclassified
from unifiedarray.backends import backend_for

from .conftest import DEVICES, ROOT, needs_mlx

_SPEC = importlib.util.spec_from_file_location("numpy_census", os.path.join(ROOT, "benchmarks", "numpy_census.py"))
assert _SPEC is not None and _SPEC.loader is not None
census = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(census)

#: The NumPy releases whose public API the table was checked against: on
#: these an unrouted function fails; on a newer one it is reported and runs
#: on the host, counted, until it is classified.
CHECKED_NUMPY = ("2.0", "2.1", "2.2", "2.3", "2.4")

PUBLIC = numpy_public()
# (Functions that write files are not called: their rows are the host's.)
FORMS = {name: census._form(fn) for name, fn in PUBLIC.items() if name not in census._WRITES_FILES}
CALLED = sorted(name for name, form in FORMS.items() if form is not None)


def test_every_public_numpy_function_has_a_route() -> None:
    missing = unclassified()
    if ".".join(np.__version__.split(".")[:2]) in CHECKED_NUMPY:
        assert missing == [], f"public NumPy functions without a route: {missing}"
    elif missing:
        warnings.warn(f"NumPy {np.__version__}: unclassified, on the host until classified: {missing}", stacklevel=1)


def test_every_row_names_a_public_function_and_a_known_kind() -> None:
    stale = sorted(set(ROUTES) - set(PUBLIC))
    # Rows for names NumPy does not have here are allowed only for names
    # of other NumPy releases; a typo would show here.
    assert all(r.kind in KINDS for r in ROUTES.values())
    assert len(stale) <= 8, f"rows naming no public NumPy function: {stale}"


def test_host_rows_give_their_reason() -> None:
    assert all(r.reason for r in ROUTES.values() if r.kind == "host")


def test_route_counts_cover_the_installed_numpy() -> None:
    counts = route_counts()
    assert sum(counts.values()) == len(PUBLIC)
    assert counts["host"] <= 23  # docs/interop.md's table of them
    if np.__version__.startswith("2.4."):  # the figures docs/interop.md gives
        assert counts == {"standard": 117, "compose": 192, "view": 18, "metadata": 12, "namesake": 1, "writes": 6,
                          "host": 23, "unclassified": 0}  # fmt: skip


def _run(name: str, device: str, form: tuple) -> tuple[Any, Any, list]:
    fn = PUBLIC[name]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            expected: Any = fn(*copy.deepcopy(census._numpy_args(form)))
        except Exception as e:  # NumPy's error is the reference
            expected = e
        args = census._device_args(form, xp.Device.parse(device))
        with xp.track_transfers() as ledger:
            try:
                got: Any = fn(*args)
            except Exception as e:
                got = e
        moves = [(r.reason, r.nbytes) for r in ledger.records]
        if not isinstance(got, Exception):
            try:
                census._host(got)  # a lazy device's error comes at the first read
            except Exception as e:
                got = e
        return expected, got, moves


def _holds(device: str, expected: Any) -> bool:
    outs = expected if isinstance(expected, tuple) else (expected,)
    dev = xp.Device.parse(device)
    return all(backend_for(dev).supports_dtype(np.dtype(o.dtype), dev) for o in outs if hasattr(o, "dtype"))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", CALLED)
def test_each_function_gives_numpys_answer_on_every_device(name: str, device: str) -> None:
    expected, got, moves = _run(name, device, FORMS[name])
    if isinstance(expected, Exception):
        assert isinstance(got, type(expected)), f"{name}: NumPy raised {expected!r}, got {got!r}"
        return
    if isinstance(got, Exception):
        if not _holds(device, expected) or "complex128" in str(got):
            return  # a dtype the device cannot hold (complex128 on MLX): refused by design
        raise AssertionError(f"numpy.{name} on {device}: {got!r}")
    assert census._same(expected, census._host(got), name), f"numpy.{name} on {device}: {got!r} != {expected!r}"
    route = ROUTES[name]
    backend = backend_for(xp.Device.parse(device))
    if route.kind == "namesake" and not hasattr(backend.numpy_like(), name):
        return  # no namesake on this device (the sealed test backend): the host's
    if device != "cpu" and route.kind != "host" and not backend.numpy_compatible:
        big = [m for m in moves if "fallback" in m[0] or m[1] > 8]
        assert not big, f"numpy.{name} on {device} moved data: {big}"


@needs_mlx
def test_a_function_without_a_row_runs_on_the_host_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    from unifiedarray import _interop

    monkeypatch.delitem(_routes.ROUTES, "triu")
    monkeypatch.setattr(_interop, "_FUNCTION_PLANS", {})  # plans made from the table as it was
    x = xp.asarray(np.arange(9.0).reshape(3, 3), device="mlx")
    with xp.track_transfers() as ledger:
        out = np.triu(x)
    assert out.device == x.device
    np.testing.assert_array_equal(np.asarray(out), np.triu(np.arange(9.0).reshape(3, 3)))
    assert any(r.reason == "host fallback: numpy.triu" for r in ledger.records)


# -- the sweep: each form's arrays redrawn over NumPy's dtypes and small shapes --------

_DTYPES = (np.float32, np.float64, np.int32, np.int64, np.uint8, np.bool_, np.float16)
_SHAPES = ((4, 4), (4,), (), (2, 4), (1, 4))


def _redrawn(form: tuple, dtype: Any, shape: tuple, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    out = {}
    for key, arr in census._ARRAYS.items():
        a = rng.standard_normal(shape if arr.ndim == 2 else shape[-1:] if shape else ()) * 3
        if np.dtype(dtype).kind == "b":
            a = a > 0
        elif np.dtype(dtype).kind in "iu":
            a = np.abs(a).astype(dtype) if np.dtype(dtype).kind == "u" else np.round(a).astype(dtype)
        a = np.asarray(a, dtype=dtype)
        out[key] = np.sort(a) if key == "V" and a.ndim else a  # V is the sorted vector (searchsorted, interp)
    return out


# Sweep-only differences from NumPy, by function and dtype, each with its
# reason (the simplest forms above hold every function exactly).
SWEEP_EXCUSED: dict[tuple[str, str], str] = {
    ("clip", "bool"): "NumPy refuses integer limits for bools (its ufunc loop); the namespace's clip takes them",
    ("spacing", "float16"): "NumPy's float16 spacing of negatives is positive (npy_half_spacing)",
    ("interp", "int32"): "integer samples repeat: NumPy's slope at repeated points is its C loop's",
    ("interp", "int64"): "integer samples repeat: NumPy's slope at repeated points is its C loop's",
    ("interp", "uint8"): "integer samples repeat: NumPy's slope at repeated points is its C loop's",
    ("interp", "bool"): "bool samples repeat: NumPy's slope at repeated points is its C loop's",
}
#: Functions the sweep cannot redraw (their arguments are not numbers).
SWEEP_SKIPPED = frozenset({"is_busday", "busday_count", "busday_offset", "datetime_as_string"})


@pytest.mark.parametrize("device", [d for d in DEVICES if d != "cpu"])
@settings(
    max_examples=int(os.environ.get("UNIFIEDARRAY_SWEEP", "40")),
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize="UNIFIEDARRAY_SWEEP" not in os.environ,
)
@given(data=st.data())
def test_sweep_of_dtypes_and_shapes_matches_numpy(device: str, data: st.DataObject) -> None:
    name = data.draw(st.sampled_from([n for n in CALLED if n not in SWEEP_SKIPPED]), label="function")
    dtype = data.draw(st.sampled_from(_DTYPES), label="dtype")
    if (name, np.dtype(dtype).name) in SWEEP_EXCUSED:
        return
    shape = data.draw(st.sampled_from(_SHAPES), label="shape")
    dev = xp.Device.parse(device)
    if not backend_for(dev).supports_dtype(np.dtype(dtype), dev):
        return  # a dtype the device does not hold (float16 on the sealed test backend)
    saved = dict(census._ARRAYS)
    census._ARRAYS.update(_redrawn(FORMS[name], dtype, shape, 0))
    try:
        expected, got, _ = _run(name, device, FORMS[name])
    finally:
        census._ARRAYS.update(saved)
    if isinstance(expected, Exception):
        assert isinstance(got, Exception), (
            f"numpy.{name}({dtype}, {shape}) on {device}: NumPy raised {expected!r}, got a result"
        )
        return
    if isinstance(got, Exception):
        if not _holds(device, expected) or "complex128" in str(got) or "cannot hold" in str(got):
            return
        raise AssertionError(f"numpy.{name}({np.dtype(dtype)}, {shape}) on {device}: {got!r}")
    assert census._same(expected, census._host(got), name), f"numpy.{name}({np.dtype(dtype)}, {shape}) on {device}"


# -- programs ported from NumPy (issue 34's examples): on MLX they move only
# their inputs, their results and, for a boolean mask, its length ----------------


def _moves_of(fn: Any) -> tuple[Any, list]:
    with xp.track_transfers() as ledger:
        out = fn()
    return out, [(r.reason, r.nbytes) for r in ledger.records]


def nbody_energy(np_: Any, pos: Any, mass: Any) -> Any:
    """The potential energy of point masses, NumPy style: pairwise distances,
    the upper triangle by ``np.triu``, the pairs picked by a mask."""
    diff = pos[:, None, :] - pos[None, :, :]
    dist = np_.sqrt(np_.sum(diff**2, axis=-1))
    upper = np_.triu(dist, 1)
    pair = np_.outer(mass, mass)
    mask = upper > 0
    return -np_.sum(pair[mask] / upper[mask])


def tv_denoise(np_: Any, f: Any, steps: int = 20, lam: float = 0.2, dt: float = 0.1) -> Any:
    """Total-variation denoising by explicit steps, NumPy style (``np.diff``,
    ``np.zeros_like``)."""
    u = f + np_.zeros_like(f)
    for _ in range(steps):
        ux = np_.diff(u, axis=1, append=u[:, -1:])
        uy = np_.diff(u, axis=0, append=u[-1:, :])
        norm = np_.sqrt(ux**2 + uy**2 + 1e-8)
        px, py = ux / norm, uy / norm
        div = np_.diff(px, axis=1, prepend=px[:, :1] * 0) + np_.diff(py, axis=0, prepend=py[:1, :] * 0)
        u = u + dt * (div + lam * (f - u))
    return u


def knn_predict(np_: Any, train: Any, labels: Any, test: Any, k: int = 3) -> Any:
    """k-nearest neighbours by ``np.argpartition`` and ``np.take_along_axis``."""
    d = np_.sum((test[:, None, :] - train[None, :, :]) ** 2, axis=-1)
    idx = np_.argpartition(d, k, axis=1)[:, :k]
    near = np_.take_along_axis(d, idx, axis=1)
    order = np_.argsort(near, axis=1)
    nearest = np_.take_along_axis(idx, order, axis=1)
    votes = np_.mean(labels[nearest], axis=1)
    return votes > 0.5


@needs_mlx
def test_ported_programs_move_only_inputs_and_results_on_mlx() -> None:
    rng = np.random.default_rng(1)
    pos, mass = rng.standard_normal((64, 3)), rng.uniform(1, 2, 64)
    f = rng.standard_normal((32, 32))
    train, labels, test = (
        rng.standard_normal((50, 4)),
        (rng.uniform(size=50) > 0.5).astype(np.float64),
        rng.standard_normal((10, 4)),
    )
    cases = [
        (nbody_energy, (pos, mass), 2),  # two selections by a mask: the length of each is read
        (tv_denoise, (f,), 0),
        (knn_predict, (train, labels, test), 0),
    ]
    for program, host_args, masks in cases:
        expected = program(np, *host_args)
        on_mlx = [xp.asarray(a, device="mlx") for a in host_args]
        got, moves = _moves_of(lambda program=program, on_mlx=on_mlx: program(np, *on_mlx))
        assert all("fallback" not in reason for reason, _ in moves), (program.__name__, moves)
        assert sum(n for _, n in moves) <= 8 * masks, (program.__name__, moves)
        np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-10, atol=1e-12)
        assert got.device == xp.Device("mlx")


@needs_mlx
def test_numpy_scalars_are_values_not_moves() -> None:
    x = xp.asarray([1.0, 2.0], device="mlx")
    c = x > 1.5
    with xp.track_transfers() as ledger, xp.transfer_guard("disallow"):
        out = [
            x * np.sqrt(2.0),
            np.float64(2) * x,
            x + np.float32(1),
            xp.where(c, np.float32(0), x),
            np.add(x, np.int64(3)),
        ]
    assert ledger.count == 0
    host = np.asarray([1.0, 2.0])
    for got, want in zip(
        out,
        [
            host * np.sqrt(2.0),
            np.float64(2) * host,
            host + np.float32(1),
            np.where(host > 1.5, np.float32(0), host),
            host + np.int64(3),
        ],
        strict=True,
    ):
        assert got.dtype == want.dtype
        np.testing.assert_allclose(np.asarray(got), want)
    f32 = xp.asarray([1.0], dtype=xp.float32, device="mlx")
    assert (f32 * np.float64(2)).dtype == (np.ones(1, np.float32) * np.float64(2)).dtype  # NumPy 2: a strong scalar
    assert (f32 * np.float32(2)).dtype == np.float32


@pytest.mark.parametrize("device", DEVICES)
def test_metadata_questions_move_nothing(device: str) -> None:
    x = xp.asarray(np.arange(12.0).reshape(3, 4), device=device)
    x2 = x + 1.0
    with xp.track_transfers() as ledger:
        answers = (np.shape(x), np.ndim(x), np.size(x), np.size(x, 1), np.result_type(x, np.float32),
                   np.iscomplexobj(x), np.isrealobj(x), np.min_scalar_type(x), np.may_share_memory(x, x2),
                   np.can_cast(x, np.float32))  # fmt: skip
    assert ledger.count == 0 or device == "cpu"
    assert answers == ((3, 4), 2, 12, 4, np.dtype(np.float64), False, True, np.dtype(np.float64), False, False)


@pytest.mark.parametrize("device", DEVICES)
def test_creation_like_a_device_array_stays_on_its_device(device: str) -> None:
    x = xp.asarray(np.arange(6.0).reshape(2, 3), device=device)
    with xp.track_transfers() as ledger:
        made = [np.zeros_like(x), np.ones_like(x), np.empty_like(x), np.full_like(x, 7.0),
                np.zeros_like(x, shape=(4,)), np.zeros(3, like=x), np.arange(5, like=x),
                np.full(2, 3.0, like=x), np.ones((2, 2), like=x)]  # fmt: skip
    for m in made:
        assert type(m) is xp.UnifiedArray and m.device == x.device
    assert all(r.direction != "device_to_host" for r in ledger.records)
    np.testing.assert_array_equal(np.asarray(made[3]), np.full((2, 3), 7.0))
    np.testing.assert_array_equal(np.asarray(made[6]), np.arange(5))
    assert np.asarray(np.asarray([1, 2], like=x)).tolist() == [1, 2]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "view",
    [
        lambda a: np.moveaxis(a, 0, -1),
        lambda a: np.rollaxis(a, 2),
        lambda a: np.swapaxes(a, 0, 2),
        lambda a: np.atleast_3d(a[0, 0]),
        lambda a: np.expand_dims(a, 0),
        lambda a: np.squeeze(a[:1]),
        lambda a: np.transpose(a),
        lambda a: np.reshape(a, (4, 6)),
    ],
)
def test_numpys_views_are_views_whose_writes_reach_the_base(device: str, view: Any) -> None:
    host = np.arange(24.0).reshape(2, 3, 4)
    base = xp.asarray(host, device=device)
    v = view(base)
    v -= 1.0  # an in-place centring, as through np.moveaxis(x, 0, -1)
    w = view(host)
    w -= 1.0  # what NumPy's view does to its base
    np.testing.assert_array_equal(np.asarray(base), host)


@pytest.mark.parametrize("device", DEVICES)
def test_the_namespaces_moveaxis_is_a_view(device: str) -> None:
    base = xp.asarray(np.zeros((2, 3)), device=device)
    v = xp.moveaxis(base, 0, 1)
    v[0, 1] = 5.0
    assert float(base[1, 0]) == 5.0


@needs_mlx
def test_fuse_traces_numpys_functions_by_their_routes() -> None:
    @xp.fuse
    def step(x: Any, y: Any) -> Any:
        return np.exp(x) * np.sin(y) + np.cbrt(x) + np.fmax(x, y)

    hx, hy = np.linspace(0, 1, 5), np.linspace(1, 2, 5)
    with warnings.catch_warnings():
        warnings.simplefilter("error", xp.FuseWarning)
        got = step(xp.asarray(hx, device="mlx"), xp.asarray(hy, device="mlx"))
    np.testing.assert_allclose(np.asarray(got), np.exp(hx) * np.sin(hy) + np.cbrt(hx) + np.fmax(hx, hy))


# -- NumPy's argument forms: each composition's forms beyond the simplest -----------

_RNG = np.random.default_rng(7)
_M = _RNG.standard_normal((4, 5))
_SQ = _RNG.standard_normal((4, 4)) + 4 * np.eye(4)
_V = np.sort(_RNG.standard_normal(6))
_I = np.array([3, 0, 2, 2, 5, 1])
_NAN = np.where(_M > 1.0, np.nan, _M)

#: (function, arguments, keywords): NumPy's forms the compositions take, or
#: refuse with NumPy's exception; arrays here are host data, given to the
#: library on each device.
NUMPY_FORMS: list[tuple[str, tuple, dict]] = [
    ("diff", (_M,), {"n": 2, "axis": 0}),
    ("diff", (_M,), {"prepend": _M[:, :1], "append": _M[:, -1:]}),
    ("diff", (_M,), {"n": 0}),
    ("diff", (np.float64(1.0),), {}),
    ("percentile", (_M, 75), {"axis": 1, "keepdims": True}),
    ("quantile", (_M, [0.1, 0.9]), {"axis": 0}),
    ("quantile", (_M, 1.5), {}),
    ("quantile", (_I, 0), {}),
    ("median", (_NAN,), {"axis": 1}),
    ("nanmedian", (_NAN,), {"axis": 0}),
    ("nanquantile", (_NAN, 0.3), {"axis": 1, "keepdims": True}),
    ("nanpercentile", (_NAN, 30), {}),
    ("nanargmax", (_NAN,), {"axis": 1}),
    ("nanargmin", (np.full((2, 2), np.nan),), {}),
    ("nancumsum", (_NAN,), {"axis": 0}),
    ("average", (_M,), {"axis": 1, "weights": np.arange(1.0, 6.0), "returned": True}),
    ("average", (_M,), {"returned": True}),
    ("cov", (_M,), {"rowvar": False, "bias": True}),
    ("cov", (_M[0], _M[1]), {"ddof": 2}),
    ("corrcoef", (_M,), {}),
    ("corrcoef", (_M[0],), {}),
    ("ptp", (_M,), {"axis": 0, "keepdims": True}),
    ("histogram", (_V,), {"bins": 3, "range": (-1.0, 1.0)}),
    ("histogram", (_V,), {"bins": 4, "density": True}),
    ("histogram", (_V,), {"bins": 4, "weights": np.arange(6.0)}),
    ("histogram", (np.array([np.nan, 1.0]),), {}),
    ("histogram_bin_edges", (np.ones(3),), {"bins": 2}),
    ("histogram2d", (_V, _V[::-1]), {"bins": 3}),
    ("bincount", (_I,), {"minlength": 8}),
    ("bincount", (_I,), {"weights": np.arange(6.0)}),
    ("bincount", (np.array([-1, 2]),), {}),
    ("digitize", (_M, _V), {"right": True}),
    ("digitize", (_M, _V[::-1]), {}),
    ("digitize", (_M, np.array([0.0, 2.0, 1.0])), {}),
    ("trapezoid", (_M,), {"dx": 0.5, "axis": 0}),
    ("trapezoid", (_M, np.arange(5.0)), {}),
    ("gradient", (_M,), {}),
    ("gradient", (_M, 2.0), {"axis": 1, "edge_order": 2}),
    ("convolve", (_V, _V[:3]), {"mode": "same"}),
    ("convolve", (_V[:2], _V), {"mode": "valid"}),
    ("correlate", (_V, _V[:3]), {"mode": "full"}),
    ("round", (_M, 2), {}),
    ("round", (_M, -1), {}),
    ("round", (_I, 1), {}),
    ("fmod", (_M, 0.7), {}),
    ("fmod", (_I, np.array([2, -3, 0, 4, 1, 2])), {}),
    ("frexp", (np.array([0.0, -3.5, np.inf, 1e-3, 2.0**60]),), {}),
    ("ldexp", (_M, 3), {}),
    ("gcd", (_I, np.array([6, 4, 8, 0, 10, 3])), {}),
    ("lcm", (_I, np.array([6, 4, 8, 0, 10, 3])), {}),
    ("heaviside", (np.array([-1.0, 0.0, 2.0, np.nan]), 0.5), {}),
    ("nan_to_num", (np.array([np.nan, np.inf, -np.inf, 1.0]),), {"nan": 9.0, "posinf": 7.0}),
    ("nan_to_num", (np.array([1 + 1j, np.nan * 1j]).astype(np.complex64),), {}),
    ("isclose", (_M, _M + 1e-9), {"equal_nan": True}),
    ("isclose", (np.array([np.inf, np.nan]), np.array([np.inf, np.nan])), {"equal_nan": True}),
    ("allclose", (_M, _M * 2), {}),
    ("array_equal", (_NAN, _NAN), {"equal_nan": True}),
    ("array_equal", (_M, _M[:2]), {}),
    ("array_equiv", (_M, _M[:1]), {}),
    ("unwrap", (np.linspace(0, 20, 12),), {}),
    ("unwrap", (np.arange(12.0).reshape(3, 4),), {"axis": 0, "period": 4.0}),
    ("interp", (_M, _V, _V**2), {"left": -1.0, "right": 9.0}),
    ("polyval", (_V[:3], _M), {}),
    ("polyadd", (_V[:2], _V), {}),
    ("polysub", (_V, _V[:4]), {}),
    ("polymul", (np.array([0.0, 1.0, 2.0]), _V[:3]), {}),
    ("polyder", (_V,), {"m": 2}),
    ("polyint", (_V,), {"m": 2}),
    ("i0", (np.array([0.0, 1.0, 10.0, 40.0, -50.0]),), {}),
    ("sinc", (_I,), {}),
    ("angle", (_M,), {"deg": True}),
    ("real_if_close", (np.array([1 + 1e-20j, 2.0 + 0j]).astype(np.complex64),), {}),
    ("isposinf", (np.array([1 + 0j]).astype(np.complex64),), {}),
    ("split", (_M, [1, 3]), {"axis": 1}),
    ("array_split", (_M, 3), {}),
    ("split", (_M, 3), {}),
    ("hsplit", (_M[0], 2), {}),
    ("vsplit", (_M[0], 2), {}),
    ("dsplit", (_M.reshape(2, 2, 5), 5), {}),
    ("block", ([[_SQ, _SQ], [_SQ, _SQ]],), {}),
    ("append", (_M, _M), {"axis": 0}),
    ("insert", (_M, 2, 7.0), {"axis": 1}),
    ("insert", (_V, -1, _V[:2]), {}),
    ("insert", (_V, 9, 1.0), {}),
    (
        "delete",
        (
            _M,
            slice(1, 4, 2),
        ),
        {"axis": 1},
    ),
    ("delete", (_M, [0, 2]), {"axis": 0}),
    ("delete", (_V, 7), {}),
    ("rot90", (_M,), {"k": 2}),
    ("rot90", (_M,), {"k": 3, "axes": (1, 0)}),
    ("rot90", (_V,), {}),
    ("resize", (_V, (3, 5)), {}),
    ("trim_zeros", (np.array([0.0, 0.0, 1.0, 2.0, 0.0]),), {"trim": "f"}),
    ("trim_zeros", (np.zeros(3),), {}),
    ("tile", (_V, 2), {}),
    ("roll", (_M, (1, 2), (0, 1)), {}),
    ("roll", (_M, 1), {"axis": (0, 1)}),
    ("roll", (_M, (1, 2)), {"axis": 1}),
    ("repeat", (_M, 2), {"axis": 0}),
    ("diag", (_V,), {"k": -2}),
    ("diag", (_V,), {"k": 1}),
    ("diagflat", (_M[:2, :2],), {}),
    ("diagonal", (_M.reshape(2, 2, 5),), {"offset": 1, "axis1": 2, "axis2": 0}),
    ("trace", (_M,), {"offset": -1}),
    ("tril", (_M,), {"k": -1}),
    ("tril_indices_from", (_M,), {"k": 1}),
    ("triu_indices_from", (_SQ,), {}),
    ("diag_indices_from", (_SQ,), {}),
    ("vander", (_V,), {"N": 3, "increasing": True}),
    ("meshgrid", (_V, _V[:3]), {"indexing": "ij"}),
    ("ix_", (_I, np.arange(3)), {}),
    ("take", (_M, 3), {"axis": 1}),
    ("take", (_M, [[0, 1], [2, 3]]), {"axis": 0}),
    ("take", (_M, [1, 4]), {}),
    ("take_along_axis", (_M, np.argsort(_M, axis=None)), {"axis": None}),
    ("select", ([_M > 0, _M < -1], [_M, -_M]), {"default": 9.0}),
    ("choose", (np.array([0, 1, 1, 0]), [_V[:4], -_V[:4]]), {}),
    ("choose", (np.array([0, 3]), [_V[:2], _V[:2]]), {}),
    ("compress", (np.array([True, False, True]), _M), {"axis": 0}),
    ("extract", (_M > 0, _M), {}),
    ("lexsort", ((_I, _I[::-1]),), {}),
    ("lexsort", (np.stack([_I, _I[::-1]]),), {}),
    ("partition", (_M, 2), {"axis": None}),
    ("partition", (_M, 9), {"axis": 1}),
    ("sort", (_M,), {"axis": None, "kind": "stable"}),
    ("argsort", (_M,), {"axis": 0, "stable": True}),
    ("unique", (_I,), {"return_index": True, "return_inverse": True, "return_counts": True}),
    ("unique", (np.array([np.nan, 1.0, np.nan]),), {"return_counts": True}),
    ("unique_counts", (np.array([np.nan, 1.0, np.nan, 1.0]),), {}),
    ("isin", (_I, [2, 5]), {"invert": True}),
    ("intersect1d", (_I, np.array([2, 5, 9])), {"assume_unique": False}),
    ("setdiff1d", (_I, np.array([2, 5])), {}),
    ("setxor1d", (_I, np.array([2, 9])), {}),
    ("union1d", (_I, np.array([2, 9])), {}),
    ("searchsorted", (_V, _M), {"side": "right"}),
    ("where", (_M > 0,), {}),
    ("where", (np.array(1.0),), {}),
    ("argwhere", (_M > 0,), {}),
    ("nonzero", (np.array(2.0),), {}),
    ("atleast_2d", (_V, _M), {}),
    ("atleast_3d", (_M,), {}),
    ("rollaxis", (_M.reshape(2, 2, 5), 2, 1), {}),
    ("rollaxis", (_M, 1, 5), {}),
    ("moveaxis", (_M.reshape(2, 2, 5), [0, 1], [2, 0]), {}),
    ("moveaxis", (_M, 0, 0), {}),
    ("moveaxis", (_M, [0, 0], [1, 0]), {}),
    ("swapaxes", (_M, 0, -1), {}),
    ("transpose", (_M.reshape(2, 2, 5), (2, 0, 1)), {}),
    ("squeeze", (_M[:1],), {"axis": 0}),
    ("broadcast_to", (_V, (2, 6)), {}),
    ("broadcast_arrays", (_V, _M[:, :1]), {}),
    ("column_stack", ((_V, _V),), {}),
    ("dstack", ((_M, _M),), {}),
    ("hstack", ((_V, _V),), {}),
    ("vstack", ((_V, _V),), {}),
    ("linspace", (_V[:2], _V[2:4], 4), {"endpoint": False}),
    ("linspace", (_V[:2], 3.0, 5), {"retstep": True}),
    ("logspace", (_V[:2], _V[2:4], 4), {"base": 2.0}),
    ("geomspace", (np.array([-1.0, 2.0]), np.array([-8.0, 16.0]), 4), {}),
    ("geomspace", (np.array([0.0]), np.array([2.0]), 4), {}),
    ("zeros_like", (_M,), {"dtype": np.int32}),
    ("full_like", (_M, _V[:5]), {}),
    ("ones_like", (_M,), {"shape": (2, 2)}),
    ("cross", (_M[:, :3], _M[:, 1:4]), {"axis": 1}),
    ("kron", (_V[:2], _SQ[:2, :2]), {}),
    ("tensordot", (_SQ, _SQ), {"axes": (1, 0)}),
    ("tensordot", (_SQ, _SQ), {"axes": 1}),
    ("inner", (_SQ, _SQ), {}),
    ("inner", (_SQ, 2.0), {}),
    ("vdot", (_SQ, _SQ), {}),
    ("outer", (_V, _V[:2]), {}),
    ("dot", (_SQ, _V[:4]), {}),
    ("dot", (_SQ, 3.0), {}),
    ("matvec", (_SQ, _V[:4]), {}),
    ("vecmat", (_V[:4], _SQ), {}),
    ("linalg.multi_dot", ([_V[:4], _SQ, _SQ, _V[:4]],), {}),
    ("linalg.multi_dot", ([_SQ, _SQ, _V[:4]],), {}),
    ("linalg.tensorinv", (np.eye(4).reshape(4, 2, 2) * 2,), {"ind": 1}),
    ("linalg.tensorsolve", (np.eye(6).reshape(2, 3, 6), np.arange(6.0).reshape(2, 3)), {}),
    ("linalg.lstsq", (_M.T, _V[:5]), {}),
    ("linalg.lstsq", (_M.T, _M.T[:, :2]), {"rcond": None}),
    ("linalg.cond", (_SQ,), {"p": 1}),
    ("linalg.cond", (_SQ,), {"p": -2}),
    ("linalg.matrix_rank", (_V,), {}),
    ("linalg.pinv", (_I.reshape(2, 3),), {}),
    ("linalg.pinv", (_SQ,), {"rcond": 1e-10}),
    ("linalg.svd", (_SQ,), {"compute_uv": False}),
    ("linalg.qr", (_SQ,), {"mode": "r"}),
    ("linalg.norm", (_M.astype(np.float16),), {}),
    ("linalg.vector_norm", (_M,), {"axis": 1, "ord": 1}),
    ("fft.fft2", (_SQ.astype(np.float32),), {"s": (4, 4)}),
    ("fft.irfft", (_SQ.astype(np.float16),), {}),
    ("fft.fftshift", (_SQ,), {"axes": 0}),
    ("unravel_index", (_I, (2, 3)), {}),
    ("unravel_index", (_I, (2, 2)), {}),
    ("ravel_multi_index", ((_I % 2, _I % 3), (2, 3)), {}),
    ("ravel_multi_index", ((_I, _I), (2, 3)), {}),
    ("bitwise_count", (_I,), {}),
    ("reciprocal", (_I,), {}),
    ("float_power", (_I, 2), {}),
    ("shares_memory", (_M, _V), {}),
    ("may_share_memory", (_M, _V), {}),
    ("einsum_path", ("ij,jk->ik", _SQ, _SQ), {}),
]


def _library_form(value: Any, device: str) -> Any:
    if isinstance(value, np.ndarray):
        return xp.asarray(value, device=device)
    if isinstance(value, list):
        return [_library_form(v, device) for v in value]
    if isinstance(value, tuple):
        return tuple(_library_form(v, device) for v in value)
    return value


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    ("name", "args", "kwargs"), NUMPY_FORMS, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(NUMPY_FORMS)]
)
def test_numpys_argument_forms_give_numpys_answer(name: str, args: tuple, kwargs: dict, device: str) -> None:
    fn = PUBLIC[name]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            expected: Any = fn(*copy.deepcopy(args), **kwargs)
        except Exception as e:  # NumPy's error is the reference
            expected = e
        try:
            got: Any = fn(*_library_form(args, device), **kwargs)
            census._host(got)
        except Exception as e:
            got = e
    if isinstance(expected, Exception):
        assert isinstance(got, type(expected)) or (
            isinstance(got, Exception) and isinstance(expected, ValueError) and isinstance(got, ValueError)
        ), f"{name}: NumPy raised {expected!r}, got {got!r}"
        return
    if isinstance(got, Exception):
        if not _holds(device, expected) or "complex128" in str(got) or "cannot hold" in str(got):
            return
        raise AssertionError(f"numpy.{name}({kwargs}) on {device}: {got!r}")
    assert census._same(expected, census._host(got), name), (
        f"numpy.{name}({kwargs}) on {device}: {census._host(got)!r} != {expected!r}"
    )


@pytest.mark.parametrize("device", DEVICES)
def test_numpys_in_place_functions_write_through_the_buffer(device: str) -> None:
    host = np.array([[np.nan, 1.0, 2.0], [3.0, np.inf, 5.0]])
    calls = [
        lambda a: np.nan_to_num(a, copy=False),
        lambda a: np.add.at(a, (0, [0, 0]), 1.0),
        lambda a: np.copyto(a, 7.0),
        lambda a: np.put(a, [0, 5], [-1.0, -2.0]),
        lambda a: np.putmask(a, a > 2.0, 0.0),
        lambda a: np.place(a, a > 2.0, [8.0, 9.0]),
        lambda a: np.fill_diagonal(a, 4.0),
        lambda a: np.put_along_axis(a, np.array([[1], [2]]), 6.0, axis=1),
    ]
    for call in calls:
        x, want = xp.asarray(host, device=device), host.copy()
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            call(x)
            call(want)
        np.testing.assert_array_equal(np.asarray(x), want)
        assert x.device == xp.Device.parse(device)
