"""NumPy's functions held to NumPy parameter by parameter.

The breadth (every row of the route table, in its simplest form and over
NumPy's dtypes) is ``tests/test_routes.py``'s; this module goes deep for
the rows with a strategy below (the standard's equivalents, the views, the
commonest compositions).  For each, a strategy names the arrays it takes; every parameter of
NumPy's signature (every keyword of a ufunc) gets values from
:data:`VALUES`, each alone and in the combinations that interact
(``axis`` with ``keepdims``, ``ord`` with ``axis``), over the strategy's
dtypes.  Each call runs with NumPy on host arrays and through the library
on every device; the answer must be NumPy's: dtype, shape and values, or an
exception of the same class.  A parameter with no values, or a strategy
for a function the table no longer translates, fails the test.
"""

from __future__ import annotations

import inspect
import itertools
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

import unifiedarray as xp
from unifiedarray import Device, UnifiedArray, _interop
from unifiedarray.backends import backend_for

from .conftest import DEVICES

TRANSLATED = _interop.translated()


def numpy_function(name: str) -> Any:
    fn: Any = np
    for part in name.split("."):
        fn = getattr(fn, part)
    return fn


# -- inputs ----------------------------------------------------------------------------


def data(dtype: Any, shape: tuple[int, ...] = (3, 4), seed: int = 0, low: float = -2.0, nonzero: bool = False) -> Any:
    """Host data of a dtype: distinct values (so that sorts and arg-reductions
    have one answer), nonzero where a divisor needs it."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    if dtype.kind == "b":
        return (rng.permutation(n) % 2 == 0).reshape(shape)
    if dtype.kind in "iu":
        lo = 1 if nonzero or dtype.kind == "u" else -n // 2
        vals = rng.permutation(np.arange(lo, lo + n + (1 if nonzero and lo <= 0 else 0)))[:n]
        if nonzero:
            vals = vals[vals != 0][:n] if np.count_nonzero(vals) >= n else vals + (vals == 0)
        return vals.reshape(shape).astype(dtype)
    vals = rng.permutation(np.linspace(low, 2.0, n)) + 0.0625
    if dtype.kind == "c":
        vals = vals + 1j * rng.permutation(np.linspace(-1.0, 1.0, n))
    return vals.reshape(shape).astype(dtype)


def spd(dtype: Any, n: int = 4) -> Any:
    a = data(np.float64, (n, n), seed=3)
    return (a @ a.T + n * np.eye(n)).astype(dtype)


def shifts(dtype: Any) -> Any:
    return (np.arange(12).reshape(3, 4) % 5).astype(dtype)


FLOATS = (np.float32, np.float64)
NUMBERS = (np.float32, np.float64, np.int32, np.int64)
ALL = (np.float32, np.float64, np.int32, np.int64, np.bool_)
INTEGERS = (np.int32, np.int64, np.uint8, np.bool_)


@dataclass
class Strategy:
    """How to call one NumPy function: ``inputs(dtype)`` gives its
    positional arguments (host data), for each dtype in ``dtypes``;
    ``values`` overrides :data:`VALUES` per parameter; ``together`` lists
    the parameters whose values are taken as a product; ``not_alone`` the
    ones only tried with others (a ufunc's ``where=`` needs ``out=``);
    ``compare`` the way results are compared (``"abs"``: decompositions
    whose vectors have a free sign)."""

    inputs: Callable[[Any], tuple]
    dtypes: tuple = FLOATS
    values: dict[str, list] = field(default_factory=dict)
    together: tuple[tuple[str, ...], ...] = ()
    not_alone: frozenset[str] = frozenset()
    compare: str = "exact"


# Stand-ins resolved per call: an output array of the reference result's
# shape and dtype; a mask of the first input's shape; the mean over the
# call's axes (std and var take one).
OUT, WHERE, MEAN = "<out>", "<where>", "<mean>"

#: Values for NumPy's parameters, by name (a strategy may override them).
VALUES: dict[str, list] = {
    "axis": [None, 0, 1, -1, (0, 1), 2],
    "keepdims": [False, True],
    "dtype": [np.float32, np.float64, np.int64],
    "out": [OUT],
    "where": [WHERE],
    "initial": [0.5],
    "ddof": [1],
    "correction": [1],
    "mean": [MEAN],
    "kind": ["stable", "quicksort"],
    "order": [None],
    "stable": [True],
    "casting": ["same_kind", "unsafe"],
}

#: The keywords a ufunc call takes (a ufunc has no signature to read them from).
UFUNC_KEYWORDS = ("dtype", "casting", "out", "where", "order", "subok")
UFUNC_VALUES: dict[str, list] = {"order": ["K", "C"], "subok": [True]}


def unary(dtypes: tuple = ALL, **kw: Any) -> Strategy:
    return Strategy(lambda d: (data(d),), dtypes, **kw)


def binary(dtypes: tuple = ALL, nonzero: bool = False, **kw: Any) -> Strategy:
    return Strategy(lambda d: (data(d), data(d, seed=1, nonzero=nonzero)), dtypes, **kw)


def ufunc_strategy(s: Strategy) -> Strategy:
    s.values = {**UFUNC_VALUES, **s.values}
    s.together = (*s.together, ("where", "out"))
    s.not_alone = s.not_alone | {"where"}
    return s


REDUCTION = {"together": (("axis", "keepdims"),)}

STRATEGIES: dict[str, Strategy] = {
    # elementwise, one argument
    **{
        n: ufunc_strategy(unary())
        for n in [
            "absolute",
            "negative",
            "positive",
            "sign",
            "square",
            "exp",
            "expm1",
            "log",
            "log1p",
            "log2",
            "log10",
            "sqrt",
            "sin",
            "cos",
            "tan",
            "sinh",
            "cosh",
            "tanh",
            "arcsin",
            "arccos",
            "arctan",
            "arcsinh",
            "arccosh",
            "arctanh",
            "floor",
            "ceil",
            "trunc",
            "isnan",
            "isinf",
            "isfinite",
            "logical_not",
            "conjugate",
        ]
    },
    **{n: ufunc_strategy(unary(INTEGERS)) for n in ("invert", "bitwise_not")},
    # elementwise, two arguments
    **{
        n: ufunc_strategy(binary())
        for n in [
            "add",
            "subtract",
            "multiply",
            "maximum",
            "minimum",
            "equal",
            "not_equal",
            "less",
            "less_equal",
            "greater",
            "greater_equal",
            "logical_and",
            "logical_or",
            "logical_xor",
            "hypot",
            "copysign",
            "logaddexp",
            "arctan2",
        ]
    },
    **{
        n: ufunc_strategy(binary(nonzero=True))
        for n in (["divide", "true_divide", "floor_divide", "remainder", "mod", "power"])
    },
    **{n: ufunc_strategy(binary(INTEGERS)) for n in ("bitwise_and", "bitwise_or", "bitwise_xor")},
    **{
        n: ufunc_strategy(Strategy(lambda d: (data(d), shifts(d)), (np.int32, np.int64, np.uint8)))
        for n in ("left_shift", "right_shift")
    },
    "matmul": ufunc_strategy(Strategy(lambda d: (data(d), data(d, (4, 2), seed=1)), NUMBERS)),
    "where": Strategy(lambda d: (data(np.bool_), data(d), data(d, seed=1)), ALL),
    # reductions
    **{n: unary(ALL, **REDUCTION) for n in (["sum", "prod", "max", "min", "amax", "amin", "all", "any"])},
    "mean": unary(ALL, **REDUCTION),
    **{n: unary(ALL, values={"axis": [None, 0, -1, (0, 1)]}, **REDUCTION) for n in ("std", "var")},
    **{n: unary(ALL, values={"axis": [None, 0, -1, 2]}, **REDUCTION) for n in ("argmax", "argmin")},
    "count_nonzero": unary(ALL, **REDUCTION),
    **{n: unary(ALL, values={"axis": [None, 0, -1, 2]}) for n in ("cumsum", "cumprod")},
    # NaN-ignoring reductions (recipes)
    **{
        n: Strategy(lambda d: (nan_data(d),), (*FLOATS, np.int64), **REDUCTION)
        for n in ["nansum", "nanprod", "nanmax", "nanmin", "nanmean", "nanvar", "nanstd"]
    },
    # sorting, manipulation
    **{n: unary(NUMBERS, values={"axis": [None, 0, -1, 2]}) for n in ("sort", "argsort")},
    "roll": Strategy(lambda d: (data(d), 1), NUMBERS, values={"axis": [None, 0, -1, (0, 1)]}),
    "tile": Strategy(lambda d: (data(d), (2, 1)), NUMBERS),
    "repeat": Strategy(lambda d: (data(d), 2), NUMBERS, values={"axis": [None, 0, -1]}),
    "clip": Strategy(
        lambda d: (data(d),),
        NUMBERS,
        values={"a_min": [-1, None], "a_max": [1], "min": [-1], "max": [1]},
        together=(("a_min", "a_max"),),
    ),
    "take": Strategy(
        lambda d: (data(d), np.array([2, 0, 1])),
        NUMBERS,
        values={"axis": [None, 0, 1, -1], "mode": ["raise", "wrap", "clip"]},
        together=(("axis", "mode"),),
    ),
    "nonzero": unary(ALL),
    "copy": unary(ALL, values={"order": ["K", "C", "F", "A"], "subok": [False, True]}),
    "stack": Strategy(lambda d: ([data(d), data(d, seed=1)],), NUMBERS, values={"axis": [0, 1, -1, 3]}),
    "concatenate": Strategy(lambda d: ([data(d), data(d, seed=1)],), NUMBERS, values={"axis": [0, 1, -1, None, 2]}),
    "vstack": Strategy(lambda d: ([data(d), data(d, (4,), seed=1)],), NUMBERS),
    "hstack": Strategy(lambda d: ([data(d), data(d, seed=1)],), NUMBERS),
    "dot": Strategy(lambda d: (data(d), data(d, (4, 2), seed=1)), NUMBERS),
    "einsum": Strategy(lambda d: ("ij,kj->ik", data(d), data(d, seed=1)), NUMBERS, values={"optimize": [True]}),
    # views
    "reshape": Strategy(
        lambda d: (data(d), (4, 3)),
        ALL,
        values={"order": ["C", "F"], "copy": [None, True, False]},
    ),
    "ravel": unary(ALL, values={"order": ["C", "F"]}),
    **{n: unary(ALL, values={"axes": [None, (1, 0), (0, 1), (0, 0)]}) for n in ("transpose", "permute_dims")},
    "swapaxes": Strategy(lambda d: (data(d), 0, 1), ALL),
    "matrix_transpose": unary(ALL),
    "squeeze": Strategy(lambda d: (data(d, (3, 1, 4)),), ALL, values={"axis": [None, 1, (1,), 0]}),
    "expand_dims": Strategy(lambda d: (data(d), 1), ALL),
    "flip": unary(ALL, values={"axis": [None, 0, -1, (0, 1), 2]}),
    "flipud": unary(ALL),
    "fliplr": unary(ALL),
    # linear algebra
    "linalg.norm": Strategy(
        lambda d: (data(d, (5, 6)),),
        (*FLOATS, np.int64),
        values={
            "ord": [None, 1, -1, 2, -2, np.inf, -np.inf, "fro", "nuc", 0, 3, "f"],
            "axis": [None, 0, 1, -1, (0, 1), (1, 0), (0, 0), (0, 1, 2)],
        },
        together=(("ord", "axis", "keepdims"),),
    ),
    "linalg.solve": Strategy(lambda d: (spd(d), data(d, (4, 2))), FLOATS),
    "linalg.inv": Strategy(lambda d: (spd(d),), FLOATS),
    "linalg.det": Strategy(lambda d: (spd(d),), FLOATS),
    "linalg.cholesky": Strategy(lambda d: (spd(d),), FLOATS, values={"upper": [False, True]}),
    "linalg.qr": Strategy(
        lambda d: (data(d, (4, 3)),), FLOATS, values={"mode": ["reduced", "complete", "r"]}, compare="abs"
    ),
    "linalg.eigh": Strategy(lambda d: (spd(d),), FLOATS, values={"UPLO": ["L", "U"]}, compare="abs"),
    "linalg.svd": Strategy(
        lambda d: (data(d, (4, 3)),),
        FLOATS,
        values={"full_matrices": [True, False], "compute_uv": [True, False], "hermitian": [False]},
        compare="abs",
    ),
    # FFT
    **{
        n: Strategy(
            lambda d: (data(d, (3, 8)),),
            FLOATS,
            values={"n": [None, 6, 10], "axis": [-1, 0], "norm": [None, "ortho", "forward"]},
        )
        for n in ("fft.fft", "fft.ifft", "fft.rfft")
    },
    "fft.irfft": Strategy(
        lambda d: (np.fft.rfft(data(np.float64, (3, 8))).astype(np.complex64 if d == np.float32 else np.complex128),),
        FLOATS,
        values={"n": [None, 8, 6], "axis": [-1, 0], "norm": [None, "ortho", "forward"]},
    ),
}


def nan_data(dtype: Any) -> Any:
    a = data(dtype)
    if a.dtype.kind == "f":
        a[0, 1] = a[2, 3] = np.nan
    return a


# -- running a call both ways --------------------------------------------------------


def to_device(obj: Any, device: str) -> Any:
    if isinstance(obj, np.ndarray):
        return xp.asarray(obj, device=device)
    if isinstance(obj, list | tuple) and any(isinstance(o, np.ndarray) for o in obj):
        return type(obj)(to_device(o, device) for o in obj)
    return obj


def outcome(fn: Callable[[], Any]) -> tuple[str, Any]:
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return "value", fn()
    except Exception as exc:
        return "error", exc


def error_class(exc: BaseException) -> type:
    """The first built-in class of an exception (NumPy's AxisError is a
    ValueError, its UFuncTypeError a TypeError, LinAlgError a ValueError)."""
    for cls in type(exc).__mro__:
        if cls.__module__ == "builtins":
            return cls
    return Exception


def leaves(res: Any) -> list:
    if isinstance(res, tuple):  # nonzero, and the named tuples of qr, eigh, svd
        return list(res)
    return [res]


def host_value(r: Any, device: str, where: str) -> Any:
    if type(r) is UnifiedArray:
        assert r.device == device, f"{where}: result on {r.device}, not {device}"
        return np.asarray(r)
    return np.asarray(r)


def same(want: Any, got: Any, how: str, where: str) -> None:
    assert got.dtype == want.dtype, f"{where}: dtype {got.dtype}, NumPy {want.dtype}"
    assert got.shape == want.shape, f"{where}: shape {got.shape}, NumPy {want.shape}"
    if how == "abs":
        want, got = np.abs(want), np.abs(got)
    if want.dtype.kind in "fc":
        low = want.dtype in (np.float32, np.complex64, np.float16)
        rtol, atol = (2e-4, 2e-5) if low else (1e-9, 1e-11)
        close = np.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
    else:
        close = np.array_equal(got, want)
    assert close, f"{where}: values {got.ravel()[:4]}..., NumPy {want.ravel()[:4]}..."


def resolve(kwargs: dict, inputs: tuple, fn: Any, device: str | None) -> tuple[dict, Any]:
    """The stand-ins of ``kwargs`` made real, on ``device`` (None: NumPy's)."""
    out: dict = {}
    first = next((a for a in inputs if isinstance(a, np.ndarray)), None)
    made = None
    for k, v in kwargs.items():
        if v is WHERE:
            v = data(np.bool_, first.shape, seed=5)
            v[0] = True  # every column keeps an element: max/min need one
        elif v is MEAN:
            axis = kwargs.get("axis")
            v = np.mean(first, axis=axis, keepdims=True)
        elif v is OUT:
            ref = outcome(lambda: fn(*inputs, **{kk: vv for kk, vv in kwargs.items() if vv is not OUT}))
            if ref[0] == "error" or not isinstance(ref[1], np.ndarray | np.generic):
                v = np.zeros(1)
            else:
                v = np.zeros_like(ref[1])
            made = v = v if device is None else xp.asarray(v, device=device)
            out[k] = v
            continue
        out[k] = v if device is None else to_device(v, device)
    return out, made


def calls(name: str, s: Strategy) -> list[dict]:
    """Every keyword form tried for ``name``: none, each parameter's values
    alone, and the products in ``together``."""
    params = parameters(name, s)
    forms: list[dict] = [{}]
    grouped = {p for g in s.together for p in g}
    for p in params:
        if p in s.not_alone or p in grouped:
            continue
        forms.extend({p: v} for v in values_of(p, s))
    for group in s.together:
        for combo in itertools.product(*(values_of(p, s) for p in group)):
            forms.append(dict(zip(group, combo, strict=True)))
    return forms


def values_of(param: str, s: Strategy) -> list:
    if param in s.values:
        return s.values[param]
    return VALUES[param]


def parameters(name: str, s: Strategy) -> list[str]:
    """The parameters of NumPy's function that a test must give values: all
    but those the strategy's inputs fill, by position (or as ``*operands``)."""
    fn = numpy_function(name)
    if isinstance(fn, np.ufunc):
        return list(UFUNC_KEYWORDS)
    params = [p for p in inspect.signature(fn).parameters.values() if p.kind is not p.VAR_KEYWORD]
    star = [i for i, p in enumerate(params) if p.kind is p.VAR_POSITIONAL]
    skip = star[0] + 1 if star else len(s.inputs(np.float64))
    return [p.name for p in params[skip:]]


# -- the tests ---------------------------------------------------------------------------


def test_every_translation_has_a_strategy_and_every_parameter_values():
    """The guard on the strategies: each names a translated function, and
    each parameter of it has values to try."""
    stale = sorted(set(STRATEGIES) - set(TRANSLATED))
    assert not stale, f"strategies for functions the library no longer translates: {stale}"
    unvalued = {
        name: [p for p in parameters(name, s) if p not in s.values and p not in VALUES]
        for name, s in STRATEGIES.items()
    }
    unvalued = {k: v for k, v in unvalued.items() if v}
    assert not unvalued, f"parameters with no values to test: {unvalued}"


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_translated_numpy_function_gives_numpys_answer(name, device):
    s = STRATEGIES.get(name)
    if s is None:
        pytest.fail(f"no strategy for {name} (see test_every_translation_has_a_strategy...)")
    fn = numpy_function(name)
    failures: list[str] = []
    for dtype in s.dtypes:
        inputs = s.inputs(dtype)
        for kwargs in calls(name, s):
            where = f"np.{name}({np.dtype(dtype).name}, **{kwargs}) on {device}"
            host_kw, _ = resolve(kwargs, inputs, fn, None)
            want = outcome(lambda: fn(*inputs, **host_kw))  # noqa: B023
            if not holds(device, want, inputs):
                continue  # a dtype the device cannot hold (complex128 on MLX), in or out
            dev_inputs = tuple(to_device(a, device) for a in inputs)
            dev_kw, made_out = resolve(kwargs, inputs, fn, device)
            with xp.track_transfers() as moved:
                got = outcome(lambda: fn(*dev_inputs, **dev_kw))  # noqa: B023
            try:
                check(want, got, s.compare, where, made_out)
                # A dtype error is decided before any data moves (from the
                # signature and the dtypes): no host detour to fail there.
                failed_on_types = got[0] == "error" and isinstance(got[1], TypeError)
                assert not failed_on_types or moved.count == 0, f"{where}: {moved.count} moves before the TypeError"
            except AssertionError as exc:
                failures.append(str(exc).strip().splitlines()[0] if str(exc).strip() else where)
    assert not failures, f"{len(failures)} call forms differ from NumPy:\n" + "\n".join(failures)


def holds(device: str, want: tuple[str, Any], inputs: tuple) -> bool:
    """Whether ``device`` can hold every dtype of the inputs and of NumPy's answer."""
    arrays: list = [a for a in inputs if isinstance(a, np.ndarray)]
    arrays += [a for a in inputs if isinstance(a, list) for a in a]
    if want[0] == "value":
        arrays += [np.asarray(w) for w in leaves(want[1])]
    backend, dev = backend_for(device), Device.parse(device)
    return all(backend.supports_dtype(a.dtype, dev) for a in arrays)


def check(want: tuple[str, Any], got: tuple[str, Any], how: str, where: str, made_out: Any) -> None:
    if want[0] == "error":
        assert got[0] == "error", f"{where}: NumPy raises {type(want[1]).__name__}, the library returns"
        assert error_class(got[1]) is error_class(want[1]), (
            f"{where}: {type(got[1]).__name__}({got[1]}), NumPy {type(want[1]).__name__}({want[1]})"
        )
        return
    if got[0] == "error":
        raise AssertionError(f"{where}: raises {type(got[1]).__name__}({got[1]}); NumPy answers")
    if made_out is not None:
        assert got[1] is made_out, f"{where}: out= is not what comes back"
    wants, gots = leaves(want[1]), leaves(got[1])
    assert len(wants) == len(gots), f"{where}: {len(gots)} results, NumPy {len(wants)}"
    for w, g in zip(wants, gots, strict=True):
        same(np.asarray(w), host_value(g, where.rsplit(" on ", 1)[1], where), how, where)


# -- the reported examples ---------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("ord", [None, 2, 1, np.inf, -2, -1, -np.inf, "fro", "nuc"])
def test_linalg_norm_of_a_matrix_is_numpys_matrix_norm(device, ord):
    """Issue 20: on MLX, ``ord=2`` gave the Frobenius value, ``1``, ``inf``
    and ``-2`` other wrong numbers, and ``'fro'``/``'nuc'`` raised."""
    host = np.random.default_rng(0).standard_normal((48, 64))
    u = xp.asarray(host, device=device)
    with xp.track_transfers() as t:
        got = np.linalg.norm(u, ord)
    np.testing.assert_allclose(float(got), np.linalg.norm(host, ord), rtol=1e-10)
    assert t.count == 0


@pytest.mark.parametrize("device", DEVICES)
def test_a_dtype_error_moves_nothing(device):
    """Issue 20: ``np.bitwise_and`` of floats moved them to the host before
    failing there: the dtypes decide the error, before anything moves."""
    u = xp.asarray([1.0, 2.0], device=device)
    with xp.track_transfers() as t, pytest.raises(TypeError):
        np.bitwise_and(u, u)
    assert t.count == 0
