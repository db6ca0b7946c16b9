"""``unifiedarray.fuse``: a fused function gives what the eager one gives
(result, dtype, shape, device, error class, warnings) on every device, reads
its arguments at each call, traces once per signature, and says when it
runs eagerly.

The reference is the eager call of the same function on the same arrays:
the rules (promotion, Python scalars) are not restated here, so these tests
hold whatever the rules become.
"""

from __future__ import annotations

import inspect
import math
import operator
import threading
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

import unifiedarray as xp
from unifiedarray import _fuse

from .conftest import DEVICES, needs_mlx

# -- random expression trees -------------------------------------------------------------------

UNARY = ["negative", "abs", "sin", "exp", "sqrt", "square", "floor", "log", "isnan", "logical_not", "sign", "positive"]
UNARY += ["bitwise_invert", "round", "trunc", "expm1", "tanh"]


def _power(base: Any, exponent: Any) -> Any:
    """``base ** exponent``, as the trees write it.  Between two Python ints
    Python's own power is exact and unbounded: ``2 ** t`` with the drawn
    scalar ``t = 2**70`` filled 24 GB and the kernel killed CI.  A power of
    more than 100,000 bits is an ``OverflowError`` here instead (a float's
    answer), in the eager and the fused call alike (both call this)."""
    ints = type(base) in (int, bool) and type(exponent) in (int, bool)
    if ints and abs(base) > 1 and exponent > 0 and exponent * abs(base).bit_length() > 100_000:
        raise OverflowError(f"{base} ** {exponent}: too large an int for this test")
    return base**exponent


OPERATORS = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
    "**": _power,
    "<": operator.lt,
    "==": operator.eq,
    "&": operator.and_,
    "|": operator.or_,
}
BINARY = ["maximum", "minimum", "atan2", "logaddexp", "hypot", "copysign", "add", "multiply", "floor_divide"]
REDUCTIONS = ["sum", "prod", "max", "min", "mean"]
DTYPES = ["bool", "int8", "int32", "int64", "uint8", "float32", "float64", "complex64", "float64", "float32"]
ASTYPES = ["bool", "int8", "uint8", "int64", "float32", "float64", "complex128"]
#: Python scalars: of each kind, and ints out of the small integer dtypes' ranges
#: (the rules' value checks: OverflowError, a comparison's constant)
SCALARS = [2, -1, 0.5, 3.0, True, 2j, 300, -200, 1e300]
N_ARRAYS, N_SCALARS = 3, 2


def _leaves() -> st.SearchStrategy[Any]:
    arrays = st.tuples(st.just("array"), st.integers(0, N_ARRAYS - 1))
    return st.one_of(
        arrays,
        arrays,
        arrays,
        st.tuples(st.just("scalar"), st.integers(0, N_SCALARS - 1)),
        st.tuples(st.just("literal"), st.sampled_from([0, 1, 2, -1, 0.5, 2.5, 0.5, 2.5, True, 1j])),
    )


def _extend(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    bound = st.one_of(st.none(), children)
    return st.one_of(
        st.tuples(st.just("unary"), st.sampled_from(UNARY), children),
        st.tuples(st.just("operator"), st.sampled_from(sorted(OPERATORS)), children, children),
        st.tuples(st.just("function"), st.sampled_from(BINARY), children, children),
        st.tuples(st.just("where"), children, children, children),
        st.tuples(st.just("clip"), children, bound, bound),
        st.tuples(st.just("astype"), st.sampled_from(ASTYPES), st.booleans(), children),
    )


def _trees() -> st.SearchStrategy[Any]:
    body = st.recursive(_leaves(), _extend, max_leaves=8)
    axes = st.sampled_from([None, 0, -1, (0,), (0, 1)])
    reduced = st.tuples(st.just("reduce"), st.sampled_from(REDUCTIONS), axes, st.booleans(), body)
    return st.one_of(body, reduced)


def evaluate(tree: Any, arrays: tuple, scalars: tuple) -> Any:
    """The tree, written against the namespace as a user would."""
    kind = tree[0]
    if kind == "array":
        return arrays[tree[1]]
    if kind == "scalar":
        return scalars[tree[1]]
    if kind == "literal":
        return tree[1]
    if kind == "unary":
        return getattr(xp, tree[1])(evaluate(tree[2], arrays, scalars))
    if kind == "operator":
        return OPERATORS[tree[1]](evaluate(tree[2], arrays, scalars), evaluate(tree[3], arrays, scalars))
    if kind == "function":
        return getattr(xp, tree[1])(evaluate(tree[2], arrays, scalars), evaluate(tree[3], arrays, scalars))
    if kind == "where":
        return xp.where(*(evaluate(t, arrays, scalars) for t in tree[1:]))
    if kind == "clip":
        x, lo, hi = (None if t is None else evaluate(t, arrays, scalars) for t in tree[1:])
        return xp.clip(x, lo, hi)
    if kind == "astype":
        return xp.astype(evaluate(tree[3], arrays, scalars), getattr(xp, tree[1]), copy=tree[2])
    _, name, axis, keepdims, body = tree
    return getattr(xp, name)(evaluate(body, arrays, scalars), axis=axis, keepdims=keepdims)


def function_of(tree: Any) -> Any:
    def fn(a: Any, b: Any, c: Any, s: Any, t: Any) -> Any:
        return evaluate(tree, (a, b, c), (s, t))

    return fn


# -- arrays: shapes that broadcast (or not), views and strided layouts ------------------------

VALUES = {
    "b": [False, True],
    "i": [-3, -1, 0, 1, 2, 5],
    "u": [0, 1, 2, 7],
    "f": [-2.0, -0.5, -0.0, 0.0, 0.5, 1.0, 3.0, np.nan, np.inf],
    "c": [0j, 1 + 1j, -0.5j, 2.0, complex(np.nan, 1)],
}
SHAPES = [(), (0,), (3,), (1, 3), (2, 3), (2, 1), (4, 3)]
LARGE = (130, 257)  # more than one block on the host (_fuse.BLOCK elements), with a partial last block


@st.composite
def arguments(draw: Any, dev: str, large: bool = False) -> tuple:
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    arrays = []
    for _ in range(N_ARRAYS):
        dtype = np.dtype(draw(st.sampled_from(DTYPES)))
        if large:
            shape = draw(st.sampled_from([LARGE, (LARGE[1],), (LARGE[0], 1), ()]))
        else:
            shape = draw(st.sampled_from(SHAPES))
        layout = draw(st.sampled_from(["whole", "strided", "transposed", "offset"])) if shape else "whole"
        arrays.append(_array(rng, shape, dtype, dev, layout))
    scalars = tuple(draw(st.sampled_from(SCALARS)) for _ in range(N_SCALARS))
    return (*arrays, *scalars)


def _array(rng: np.random.Generator, shape: tuple, dtype: np.dtype, dev: str, layout: str) -> xp.UnifiedArray:
    """An array of ``shape``, whole or a view of a larger one."""

    def data(s: tuple) -> np.ndarray:
        return rng.choice(np.asarray(VALUES[dtype.kind], dtype=dtype), size=s)

    if layout == "strided":  # every other element of the last axis
        return xp.asarray(data((*shape[:-1], 2 * shape[-1])), device=dev)[..., ::2]
    if layout == "transposed":
        return xp.permute_dims(xp.asarray(data(shape[::-1]), device=dev), tuple(range(len(shape)))[::-1])
    if layout == "offset":  # a slice starting after the first row
        return xp.asarray(data((shape[0] + 1, *shape[1:])), device=dev)[1:]
    return xp.asarray(data(shape), device=dev)


def outcome(fn: Any, args: tuple) -> tuple:
    """What a call gives: the result (dtype, shape, device, host data) or
    the exception's class, and the warnings other than FuseWarning."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            res = fn(*args)
        except MemoryError:
            raise  # never an answer: a test that allocates hugely must fail, naming its example
        except Exception as exc:
            got: tuple = ("raises", type(exc))
        else:
            got = _describe(res)
        # A lazy device reports NumPy's floating-point warnings by the first
        # read or sync: a call that raised after a flagging step read nothing.
        for dev in DEVICES:
            xp.get_accelerator(dev).synchronize()
    # NumPy words a floating-point warning "... in scalar divide" where its
    # operands are NumPy scalars (a 0-d intermediate) and "... in divide"
    # for arrays: the same warning, whichever form a path computed with.
    seen = {
        (w.category, str(w.message).replace(" in scalar ", " in "))
        for w in caught
        if not issubclass(w.category, xp.FuseWarning)
    }
    return got, seen


def _describe(res: Any) -> tuple:
    if isinstance(res, tuple):
        return ("tuple", *map(_describe, res))
    if type(res) is not xp.UnifiedArray:
        return ("value", type(res), res)
    return ("array", res.dtype, res.shape, res.device, np.asarray(res))


def assert_same(fused: tuple, eager: tuple, dev: str) -> None:
    (f, fw), (e, ew) = fused, eager
    assert f[:4] == e[:4], (f, e)
    if f[0] == "array":
        a, b = f[4], e[4]
        if dev == "mlx" and a.dtype.kind in "fc":
            # MLX's compiler may contract a * b + c into a fused multiply-add.
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True)
        else:
            assert a.tobytes() == b.tobytes(), (a, b)  # bit-identical (NaNs included)
    elif f[0] == "value":
        assert f == e or (f[2] != f[2] and e[2] != e[2])
    if dev == "cpu":
        assert fw == ew


def _check_tree(tree: Any, args: tuple, dev: str) -> None:
    fn = function_of(tree)
    eager = outcome(fn, args)
    fused_fn = xp.fuse(fn)
    assert_same(outcome(fused_fn, args), eager, dev)
    assert_same(outcome(fused_fn, args), eager, dev)  # the cached trace gives it too


_SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


@pytest.mark.parametrize("dev", DEVICES)
@_SETTINGS
@given(data=st.data(), tree=_trees())
def test_fused_gives_what_eager_gives(dev: str, data: Any, tree: Any) -> None:
    args = data.draw(arguments(dev))
    if dev == "mlx" and any(getattr(a, "dtype", None) == np.complex128 for a in args):
        return
    _check_tree(tree, args, dev)


#: Python scalars by type: a trace is keyed on the type, never on the value
SAME_KIND = {
    int: [2, -1, 0, 300, -200, 2**70],
    float: [0.5, 3.0, -0.0, 1e300],
    bool: [True, False],
    complex: [2j, 1 + 1j],
}


@pytest.mark.parametrize("dev", DEVICES)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data(), tree=_trees())
def test_every_call_asks_the_rules_for_its_scalar_values(dev: str, data: Any, tree: Any) -> None:
    """One fused function called with scalar values of the same kinds, one
    after another (one trace): each call gives what the eager call with its
    values gives (the rules' range checks and comparison constants depend on
    the value, so a trace cannot keep the first value's answer)."""
    args = data.draw(arguments(dev))
    if dev == "mlx" and any(getattr(a, "dtype", None) == np.complex128 for a in args):
        return
    fn = function_of(tree)
    fused = xp.fuse(fn)
    for _ in range(3):
        eager = outcome(fn, args)
        assert_same(outcome(fused, args), eager, dev)
        scalars = tuple(data.draw(st.sampled_from(SAME_KIND[type(v)])) for v in args[N_ARRAYS:])
        args = (*args[:N_ARRAYS], *scalars)


#: Functions of an array and Python scalars, for every path a scalar takes
#: through the rules: the operators' gate, where (one scalar, two), clip.
SCALAR_FUNCTIONS = {
    "a + s": lambda a, s, t: a + s,
    "s - a": lambda a, s, t: s - a,
    "a < s": lambda a, s, t: a < s,
    "s == a": lambda a, s, t: s == a,
    "maximum(a, s)": lambda a, s, t: xp.maximum(a, s),
    "where(a > 1, a, s)": lambda a, s, t: xp.where(a > 1, a, s),
    "where(a > 1, s, a * 2)": lambda a, s, t: xp.where(a > 1, s, a * 2),
    "where(a > 1, s, t)": lambda a, s, t: xp.where(a > 1, s, t),
    "where(a > 1, s, 7)": lambda a, s, t: xp.where(a > 1, s, 7),
    "clip(a, s, t)": lambda a, s, t: xp.clip(a, s, t),
    "clip(a, None, s) + t": lambda a, s, t: xp.clip(a, None, s) + t,
    "clip(a, s, a)": lambda a, s, t: xp.clip(a, s, a),
    "astype(a, float32) * s": lambda a, s, t: xp.astype(a, xp.float32) * s,
}


@pytest.mark.parametrize("dev", DEVICES)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(sorted(SCALAR_FUNCTIONS)),
    dtype=st.sampled_from(["uint8", "int8", "int16", "float32", "float64", "bool"]),
    kinds=st.tuples(st.sampled_from(sorted(SAME_KIND, key=str)), st.sampled_from(sorted(SAME_KIND, key=str))),
    data=st.data(),
)
def test_scalar_values_meet_the_rules_at_every_call(dev: str, name: str, dtype: str, kinds: tuple, data: Any) -> None:
    """Scalar values of one kind, one call after another (one trace): each
    call's value is checked and converted by the rules as eagerly (an int
    out of the array's range raises; a comparison's constant; where's and
    clip's conversions), never the first call's answer."""
    fn = SCALAR_FUNCTIONS[name]
    fused = xp.fuse(fn)
    a = xp.asarray(np.array([0, 1, 2, 5], dtype=dtype), device=dev)
    for _ in range(4):
        s, t = (data.draw(st.sampled_from(SAME_KIND[k])) for k in kinds)
        assert_same(outcome(fused, (a, s, t)), outcome(fn, (a, s, t)), dev)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("size", [5, 257, 3 * _fuse.BLOCK + 7])
@pytest.mark.parametrize("bound", ["s % s", "sum(s % s)", "max(x)"])
def test_a_0d_step_reaches_the_next_call_as_a_0d_array(dev: str, size: int, bound: str) -> None:
    """A step of a fused function whose result is 0-d reaches the next call
    as the eager path's 0-d array: on the host NumPy's own answer is a
    scalar, which clip takes otherwise (``clip(int8, None, np.int32(0))`` is
    int32; with a 0-d int32 bound, int8 as the standard says).  Found by
    the blocked evaluation's fuzz (``clip(a0, None, a1 % a1)``)."""
    x = xp.asarray(np.arange(size) % 7 - 3, dtype=xp.int8, device=dev)
    s = xp.asarray(-3, dtype=xp.int32, device=dev)

    def fn(x: Any, s: Any) -> Any:
        top = {"s % s": lambda: s % s, "sum(s % s)": lambda: xp.sum(s % s), "max(x)": lambda: xp.max(x)}[bound]()
        return xp.clip(x, None, top)  # x's dtype, int8, whatever the bound's (same kind)

    assert_same(outcome(xp.fuse(fn), (x, s)), outcome(fn, (x, s)), dev)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data(), tree=_trees())
def test_blocked_host_evaluation_is_bit_identical(data: Any, tree: Any) -> None:
    """Arrays larger than a block: the blocked evaluation (and reductions
    of its result) against eager, bit for bit, with the same warnings."""
    _check_tree(tree, data.draw(arguments("cpu", large=True)), "cpu")


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
@pytest.mark.parametrize("name", REDUCTIONS)
def test_reductions_of_a_chain(dev: str, name: str, axis: Any) -> None:
    rng = np.random.default_rng(0)
    a = xp.asarray(rng.random((300, 200)), device=dev)
    b = xp.asarray(rng.random((300, 200))[::-1], device=dev)

    def fn(a: Any, b: Any) -> Any:
        return getattr(xp, name)((a * 2 + b) / 3 - a * b + 1, axis=axis)

    assert_same(outcome(xp.fuse(fn), (a, b)), outcome(fn, (a, b)), dev)


# -- semantics ------------------------------------------------------------------------------


def chain(a: Any, b: Any) -> Any:
    return (a * 2 + b) / 3 - a * b + 1


@pytest.mark.parametrize("dev", DEVICES)
def test_traced_once_per_signature(dev: str) -> None:
    fused = xp.fuse(lambda x, k: x * k + 1)
    x = xp.ones(4, device=dev)
    for k in (1.0, 2.0, 3.0):
        assert np.array_equal(np.asarray(fused(x, k)), np.full(4, k + 1))
    assert fused.cache_info()["traces"] == 1  # scalar values are inputs
    fused(x, 2)  # another scalar kind
    fused(xp.ones(5, device=dev), 2.0)  # another shape
    fused(xp.ones(4, dtype=xp.float32, device=dev), 2.0)  # another dtype
    assert fused.cache_info()["traces"] == 4


def _arguments_of(name: str, dev: str) -> tuple:
    """Arguments a namespace function of the fused set takes: arrays of a
    dtype it is defined for."""
    dtype = "bool" if name.startswith("logical") else "int64" if name.startswith("bitwise") else "float64"
    x = xp.asarray(np.array([[0.5, 2.0, 3.0], [1.0, -1.0, 4.0]]).astype(dtype), device=dev)
    if name == "where":
        return (x > 1, x, -x)
    if name == "astype":
        return (x, xp.float32)
    if name == "clip":
        return (x, -x, x * 0.5 + 1)
    arity = len([p for p in inspect.signature(getattr(xp, name)).parameters.values() if p.default is p.empty])
    return (x, x * 2 + 1)[:arity]


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("name", sorted(_fuse.ELEMENTWISE | _fuse.REDUCTIONS))
def test_every_function_of_the_fused_set_reaches_the_tracer(dev: str, name: str) -> None:
    """Each namespace function that fuses hands its call to the tracer
    (through the dispatch, or through the dispatch's ``traced_call`` as its
    first statement where it checks its arguments before the dispatch): a
    check written for arrays never sees a tracer, so nothing of the fused
    set runs eagerly for want of it.  A function that gains such a check
    without the hook fails here."""
    fn = getattr(xp, name)
    args = _arguments_of(name, dev)
    fused = xp.fuse(fn)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = outcome(fused, args)
    eager = outcome(fn, args)
    assert_same(got, eager, dev)
    refused = [str(w.message) for w in caught if issubclass(w.category, xp.FuseWarning)]
    assert not [m for m in refused if "runs eagerly" in m], refused
    assert all(isinstance(t, _fuse._Trace) for t in fused._cache.values()) and fused._cache


@pytest.mark.parametrize("dev", DEVICES)
def test_the_rules_value_checks_run_at_every_fused_call(dev: str) -> None:
    """The examples of the rules: traced with an in-range value, called with
    one out of range (and back): the eager error or value every time."""
    a = xp.asarray(np.array([0, 7, 200], dtype=np.uint8), device=dev)
    cases = [
        (lambda a, s: xp.where(a > 5, a, s), [3, 300, 4, -1], [None, OverflowError, None, OverflowError]),
        (lambda a, s: a + s, [1, 300, 2], [None, OverflowError, None]),
        (lambda a, s: a < s, [8, -1, 256, 8], [None, None, None, None]),
        (lambda a, s: xp.clip(a, s, 100), [1, -5, 300, 2], [None, None, OverflowError, None]),
    ]
    for fn, values, errors in cases:
        fused = xp.fuse(fn)
        for s, error in zip(values, errors, strict=True):
            if error is not None:
                with pytest.raises(error):
                    fn(a, s)
                with pytest.raises(error):
                    fused(a, s)
            else:
                assert_same(outcome(fused, (a, s)), outcome(fn, (a, s)), dev)
        assert fused.cache_info()["traces"] == 1  # one trace: the values were asked, not the signature
    assert xp.fuse(lambda a, s: a < s)(a, -1).tolist() == [False] * 3


def test_strict_mode_has_traces_of_its_own() -> None:
    """A trace made outside strict mode is not used inside it, where the
    rules for arrays differ (int8 + float32 is a TypeError there)."""
    fused = xp.fuse(lambda a, b: a + b)
    a, b = xp.ones(3, dtype=xp.int8), xp.ones(3, dtype=xp.float32)
    assert fused(a, b).dtype == xp.float32
    with xp.strict():
        with pytest.raises(TypeError):
            a + b
        with pytest.raises(TypeError):
            fused(a, b)
    assert fused(a, b).dtype == xp.float32


def test_the_cache_is_bounded() -> None:
    fused = xp.fuse(cache_size=2)(lambda x: x + 1)
    for n in (1, 2, 3, 1):
        fused(xp.ones(n))
    info = fused.cache_info()
    assert info["size"] == 2 and info["traces"] == 4  # n=1 was dropped (least recently used), traced again


def test_a_scalar_used_as_a_value_is_keyed_on_its_value() -> None:
    def fn(x: Any, n: Any) -> Any:
        return x * 2 if n > 1 else x - 1

    fused = xp.fuse(fn)
    x = xp.arange(3.0)
    for n in (0, 2, 0, 5):
        assert np.array_equal(np.asarray(fused(x, n)), np.asarray(fn(x, n)))
    assert fused.cache_info()["traces"] == 3  # n = 0, 2, 5


@pytest.mark.parametrize("dev", DEVICES)
def test_an_argument_written_between_calls_is_seen(dev: str) -> None:
    fused = xp.fuse(chain)
    a, b = xp.ones((3, 4), device=dev), xp.ones((3, 4), device=dev)
    first = fused(a, b)
    a[1, 2] = 5.0
    b[...] = 2.0
    second = fused(a, b)
    assert np.array_equal(np.asarray(second), np.asarray(chain(a, b)))
    assert not np.array_equal(np.asarray(first), np.asarray(second))


@pytest.mark.parametrize("dev", DEVICES)
def test_results_are_new_arrays_on_the_device(dev: str) -> None:
    a = xp.ones((2, 3), device=dev)
    res = xp.fuse(lambda x: x + 0)(a)
    assert res.device == dev and res.buffer is not a.buffer
    res[...] = 7.0
    assert np.array_equal(np.asarray(a), np.ones((2, 3)))
    assert xp.fuse(lambda x: x)(a) is a  # as eagerly: the argument itself


@pytest.mark.parametrize("dev", DEVICES)
def test_errors_are_the_eager_errors_at_the_call(dev: str) -> None:
    fused = xp.fuse(chain)
    with pytest.raises(ValueError):
        chain(xp.ones(3, device=dev), xp.ones(4, device=dev))
    with pytest.raises(ValueError):
        fused(xp.ones(3, device=dev), xp.ones(4, device=dev))
    bad = xp.fuse(lambda x: xp.max(x * 1j))
    with pytest.raises(TypeError):
        xp.max(xp.ones(2, device=dev) * 1j)
    with pytest.raises(TypeError):
        bad(xp.ones(2, device=dev))


@needs_mlx
def test_arrays_on_two_devices_run_eagerly() -> None:
    a, b = xp.ones(3), xp.ones(3, device="mlx")
    fused = xp.fuse(chain)
    with pytest.warns(xp.FuseWarning, match="several devices"):
        fused(a, b)
    assert_same(outcome(fused, (a, b)), outcome(chain, (a, b)), "cpu")
    with xp.transfer_guard("disallow"), pytest.raises(xp.TransferError):
        chain(a, b)
    with xp.transfer_guard("disallow"), pytest.raises(xp.TransferError):
        fused(a, b)


@pytest.mark.parametrize(
    ("fn", "operation"),
    [
        (lambda x: x @ x, "matmul"),
        (lambda x: xp.cumulative_sum(x, axis=0) + 1, "cumulative_sum"),
        (lambda x: x[1:] * 2, "indexing"),
        (lambda x: x * 2 if xp.any(x > 1) else x, "any"),
        (lambda x: x * 2 if bool(x[0, 0] > 1) else x, "indexing"),
        (lambda x: x * 2 if bool(xp.sum(x) > 1) else x, "bool()"),
        (lambda x: x * float(xp.sum(x)), "float()"),
    ],
)
def test_what_cannot_be_fused_runs_eagerly_and_warns_once(fn: Any, operation: str) -> None:
    fused = xp.fuse(fn)
    x = xp.asarray([[1.0, 2.0], [3.0, 4.0]])
    with pytest.warns(xp.FuseWarning, match=operation.replace("(", r"\(").replace(")", r"\)")):
        res = fused(x)
    assert np.array_equal(np.asarray(res), np.asarray(fn(x)))
    with warnings.catch_warnings():
        warnings.simplefilter("error", xp.FuseWarning)
        fused(x)  # once


def test_an_array_that_is_not_an_argument_is_not_fused() -> None:
    w = xp.asarray([1.0, 2.0])
    fused = xp.fuse(lambda x: x * w)
    with pytest.warns(xp.FuseWarning, match="not an argument"):
        res = fused(xp.ones(2))
    assert res.tolist() == [1.0, 2.0]


def test_floating_point_warnings_are_the_eager_ones() -> None:
    x = xp.asarray(np.linspace(-1.0, 1.0, 3 * _fuse.BLOCK + 1))
    fn = lambda x: xp.log(x) * 2 + xp.sqrt(x)  # noqa: E731
    eager, fused = outcome(fn, (x,)), outcome(xp.fuse(fn), (x,))
    assert fused == (fused[0], eager[1]) and len(eager[1]) == 3
    assert fused[0][4].tobytes() == eager[0][4].tobytes()
    with np.errstate(all="raise"), pytest.raises(FloatingPointError):
        xp.fuse(fn)(x)


@pytest.mark.parametrize("dev", DEVICES)
def test_a_lossy_float_constant_warns_at_every_call_as_numpy_does(dev: str) -> None:
    """``x16 * 1e6`` overflows in NumPy's conversion with its warning, at
    every call: MLX's direct paths and its compiled kernel converted the
    constant silently after the first call."""
    if not _holds_float16(dev):
        pytest.skip(f"{dev} holds no float16")
    x = xp.asarray(np.ones(3, np.float16), device=dev)
    fn = lambda a: a * 1e6  # noqa: E731
    fused = xp.fuse(fn)
    for i, call in enumerate((fn, fn, fused, fused, fused)):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            out = call(x)
        said = [str(w.message) for w in seen if w.category is RuntimeWarning]
        assert said == ["overflow encountered in cast"], f"call {i} on {dev}: {said}"
        assert out.dtype == xp.float16 and np.asarray(out).tolist() == [math.inf] * 3


def _holds_float16(dev: str) -> bool:
    try:
        xp.asarray(np.ones(1, np.float16), device=dev)
    except TypeError:
        return False
    return True


@pytest.mark.parametrize("dev", DEVICES)
def test_reads_go_through_the_buffer(dev: str) -> None:
    """A fused call reads the current copy: no move where eager makes none,
    a counted one where the copy on the device is stale."""
    a, b = xp.ones((50, 50), device=dev), xp.ones((50, 50), device=dev)
    fused = xp.fuse(chain)
    fused(a, b)  # traced
    with xp.track_transfers() as ledger:
        fused(a, b)
    assert ledger.count == 0


def test_python_scalars_keep_their_weak_kind() -> None:
    """Scalars are read at each call, as Python scalars (the dtype of
    float32 * 2.0 stays float32)."""
    fused = xp.fuse(lambda x, s: x * s)
    x = xp.ones(3, dtype=xp.float32)
    for s in (2.0, 3.5):
        res = fused(x, s)
        assert res.dtype == xp.float32 and res.tolist() == [s] * 3


# -- a stateful test: arguments written between calls ------------------------------------


class FusedCallsModel(RuleBasedStateMachine):
    """Arrays on every device, written in place (whole, one element, through
    a view) between calls of fused functions; each call must give what the
    eager call gives on the arrays as they are now."""

    @initialize(dev=st.sampled_from(DEVICES), large=st.booleans())
    def make(self, dev: str, large: bool) -> None:
        self.dev = dev
        shape = (3, 2 * _fuse.BLOCK // 3) if large and dev == "cpu" else (3, 5)
        self.a = xp.ones(shape, device=dev)
        self.b = xp.full(shape, 2.0, device=dev)
        self.view = self.a[:, 1::2]
        self.fns = [xp.fuse(chain), xp.fuse(lambda a, b: xp.sum(xp.where(a > b, a, b * 0.5), axis=1))]

    @rule(value=st.floats(-4, 4), i=st.integers(0, 2), j=st.integers(0, 4))
    def write_element(self, value: float, i: int, j: int) -> None:
        self.a[i, j] = value

    @rule(value=st.floats(-4, 4))
    def write_whole(self, value: float) -> None:
        self.b[...] = value

    @rule(value=st.floats(-4, 4))
    def write_through_a_view(self, value: float) -> None:
        self.view[...] = value

    @rule()
    def write_with_an_operator(self) -> None:
        self.b += 1.0

    @invariant()
    def fused_is_eager(self) -> None:
        if not hasattr(self, "fns"):
            return
        for fn in self.fns:
            for args in ((self.a, self.b), (self.view, self.view)):
                assert_same(outcome(fn, args), outcome(fn.__wrapped__, args), self.dev)


FusedCallsModel.TestCase.settings = settings(
    max_examples=25, stateful_step_count=8, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TestFusedCalls = FusedCallsModel.TestCase


@pytest.mark.filterwarnings("ignore::unifiedarray.FuseWarning")  # whether it fuses: the test below
def test_exact_mathematics_of_the_example() -> None:
    """The docstring's example, against NumPy."""
    x = np.array([-1.0, 2.0, 3.0])
    fused = xp.fuse(lambda x, k: xp.sum(xp.where(x > 0, x * k, 0.0) ** 2))
    assert math.isclose(float(fused(xp.asarray(x), 0.5)), float(np.sum(np.where(x > 0, x * 0.5, 0.0) ** 2)))


def test_the_example_fuses() -> None:
    fused = xp.fuse(lambda x, k: xp.sum(xp.where(x > 0, x * k, 0.0) ** 2))
    fused(xp.asarray([-1.0, 2.0, 3.0]), 0.5)  # a FuseWarning, an error here, says it ran eagerly


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(1000, 1000), (7, 12345), (3 * _fuse.BLOCK + 9,), (2, 1, 40000)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_a_sum_over_every_axis_is_numpys_pairwise_sum(dtype: str, shape: tuple, keepdims: bool) -> None:
    """Summed block by block without the elementwise result, in NumPy's
    pairwise order: the eager sum, bit for bit."""
    rng = np.random.default_rng(7)
    a = xp.asarray(rng.standard_normal(shape).astype(dtype))
    b = xp.asarray(rng.standard_normal(shape[-1:]).astype(dtype) * 1e3)  # broadcast: summed as eager would

    def fn(a: Any, b: Any, s: Any) -> Any:
        return xp.sum(xp.sin(a) * s + a * a - 1.0, keepdims=keepdims) + xp.sum(a * b)

    for s in (0.5, 3.0):
        assert_same(outcome(xp.fuse(fn), (a, b, s)), outcome(fn, (a, b, s)), "cpu")


# -- the host's blocks: temporaries reused, threads ------------------------------------------


def _regions(fused: Any) -> list[Any]:
    """The blocked regions of a fused function's traces."""
    stages = [s for trace in fused._cache.values() if isinstance(trace, _fuse._Trace) for s in trace.plan.stages]
    return [s.region if type(s) is _fuse._Sum else s for s in stages if type(s) is not _fuse._Node]


def _assert_temporaries_hold_live_values_only(region: Any) -> None:
    """A model of the block function's temporaries: a value lives from the
    step that makes it to the last step that reads it; two values in one
    temporary never live at once (the last reader may write over it)."""
    steps, held = region.block.__steps__, region.block.__held__
    made = {n.slot: i for i, n in enumerate(steps)}
    last = {n.slot: max([j for j, m in enumerate(steps) if n.slot in m.operands], default=len(steps)) for n in steps}
    for x, tx in held.items():
        assert steps[made[x]].dtype == region.temps[tx]
        for y, ty in held.items():
            if x != y and tx == ty:
                assert last[x] <= made[y] or last[y] <= made[x], (x, y, region.block.__source__)
    assert steps[-1].slot not in held  # the last step writes into the output


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data(), tree=_trees())
def test_block_temporaries_hold_live_values_only(data: Any, tree: Any) -> None:
    fused = xp.fuse(function_of(tree))
    outcome(fused, data.draw(arguments("cpu", large=True)))  # traced (a call may raise, as eagerly)
    for region in _regions(fused):
        _assert_temporaries_hold_live_values_only(region)


def test_a_chain_reuses_two_temporaries() -> None:
    fused = xp.fuse(chain)
    a, b = xp.ones((400, 300)), xp.ones((400, 300))
    fused(a, b)
    [region] = _regions(fused)
    assert region.temps == (np.dtype(np.float64),) * 2  # six operations, two temporaries
    _assert_temporaries_hold_live_values_only(region)


@pytest.mark.parametrize("threads", [1, 2])
def test_results_never_share_memory_with_arguments_or_earlier_results(threads: int) -> None:
    """The temporaries and the output are the call's own: the arguments
    (the same array twice, overlapping views) are read, never written."""
    rng = np.random.default_rng(3)
    base = xp.asarray(rng.random(5 * _fuse.BLOCK + 3))
    a, b = base[1:], base[:-1]  # overlapping views
    before = np.asarray(base).copy()
    fn = lambda a, b: xp.sqrt(a * 2 + b) * (a - b) + a * a  # noqa: E731
    fused = xp.fuse(threads=threads)(fn)
    first, second = fused(a, b), fused(a, a)
    assert np.array_equal(np.asarray(base), before)
    for res in (first, second):
        assert not np.shares_memory(np.asarray(res), np.asarray(base))
    assert not np.shares_memory(np.asarray(first), np.asarray(second))
    assert np.asarray(first).tobytes() == np.asarray(fn(a, b)).tobytes()
    assert np.asarray(second).tobytes() == np.asarray(fn(a, a)).tobytes()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data(), tree=_trees(), threads=st.sampled_from([2, 3]))
def test_threads_give_the_same_bits(data: Any, tree: Any, threads: int) -> None:
    """Blocks evaluated (and a sum's blocks summed) in several threads: the
    eager result bit for bit, with the eager warnings."""
    args = data.draw(arguments("cpu", large=True))
    fn = function_of(tree)
    eager = outcome(fn, args)
    fused = xp.fuse(fn, threads=threads)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_fuse, "THREAD_MIN", _fuse.BLOCK + 1)  # the test's arrays are threaded
        assert_same(outcome(fused, args), eager, "cpu")
        assert_same(outcome(fused, args), eager, "cpu")


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_threaded_chain_and_sum_are_bit_identical(threads: int) -> None:
    rng = np.random.default_rng(11)
    a, b = xp.asarray(rng.standard_normal((700, 700))), xp.asarray(rng.standard_normal((700, 700)))
    fn = lambda a, b: (a * 2 + b) / 3 - a * b + 1  # noqa: E731
    fn_sum = lambda a, b: xp.sum((a * 2 + b) / 3 - a * b + 1)  # noqa: E731
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_fuse, "THREAD_MIN", _fuse.BLOCK + 1)
        assert np.asarray(xp.fuse(fn, threads=threads)(a, b)).tobytes() == np.asarray(fn(a, b)).tobytes()
        assert np.asarray(xp.fuse(fn_sum, threads=threads)(a, b)).tobytes() == np.asarray(fn_sum(a, b)).tobytes()


def test_threads_see_the_callers_floating_point_modes() -> None:
    x = xp.asarray(np.linspace(-1.0, 1.0, 40 * _fuse.BLOCK + 1))
    fn = lambda x: xp.log(x) * 2 + xp.sqrt(x)  # noqa: E731
    fused = xp.fuse(fn, threads=2)
    assert outcome(fused, (x,))[1] == outcome(fn, (x,))[1]  # one warning per operation, as eagerly
    with np.errstate(all="raise"), pytest.raises(FloatingPointError):
        fused(x)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.asarray(fused(x)).tobytes() == np.asarray(fn(x)).tobytes()


@pytest.mark.parametrize("threads", [0, -1, 1.5, "2"])
def test_threads_must_be_a_positive_int(threads: Any) -> None:
    with pytest.raises(ValueError, match="threads"):
        xp.fuse(chain, threads=threads)


@needs_mlx
@pytest.mark.filterwarnings("ignore::unifiedarray.FuseWarning")  # whether it compiles: the test below
def test_a_compiled_kernel_is_keyed_on_the_exact_value_of_a_scalar() -> None:
    """0.0 and -0.0 are equal and hash alike, but are different constants of
    a compiled graph."""
    fused = xp.fuse(lambda x, s: 1 / (x * s))
    x = xp.ones(3, device="mlx")
    for s in (0.0, -0.0, 0.0):
        with np.errstate(divide="ignore"):  # 1/0, as NumPy's
            assert np.array_equal(np.asarray(fused(x, s)), np.asarray(1 / (x * s)))


@needs_mlx
@pytest.mark.xfail(
    strict=True,
    raises=xp.FuseWarning,
    reason="MLX's compiled kernel for 1 / (x * s) disagrees with the eager result for one of 0.0 and -0.0, so "
    "fuse's check runs that signature's calls one by one, with a FuseWarning: the kernel is not keyed as the "
    "test above expects, or MLX folds the constant's sign",
)
def test_a_compiled_kernel_of_a_signed_zero_agrees_with_the_eager_result() -> None:
    fused = xp.fuse(lambda x, s: 1 / (x * s))
    x = xp.ones(3, device="mlx")
    for s in (0.0, -0.0, 0.0):
        with np.errstate(divide="ignore"):  # 1/0, as NumPy's
            fused(x, s)  # a FuseWarning, an error here, says the compiled kernel was not used


def test_threaded_calls_from_several_threads_at_once() -> None:
    """Fused calls with different thread counts, made concurrently from
    several threads (the workers' pool grows meanwhile): every result is
    the eager one, bit for bit."""
    rng = np.random.default_rng(5)
    a, b = xp.asarray(rng.standard_normal((300, 300))), xp.asarray(rng.standard_normal((300, 300)))
    want = np.asarray(chain(a, b)).tobytes()
    want_sum = np.asarray(xp.sum(chain(a, b))).tobytes()
    eager_calls: list[int] = []

    def counted(a: Any, b: Any) -> Any:
        if type(a) is xp.UnifiedArray:  # not a trace: a call run eagerly
            eager_calls.append(1)
        return chain(a, b)

    fns = [xp.fuse(counted, threads=n) for n in (2, 3, 4)]
    sums = [xp.fuse(lambda a, b: xp.sum(counted(a, b)), threads=n) for n in (2, 3, 4)]
    got: list[bool] = []

    def worker(k: int) -> None:
        for i in range(6):
            got.append(np.asarray(fns[(k + i) % 3](a, b)).tobytes() == want)
            got.append(np.asarray(sums[(k + i) % 3](a, b)).tobytes() == want_sum)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_fuse, "THREAD_MIN", _fuse.BLOCK + 1)
        threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert len(got) == 48 and all(got)
    assert not eager_calls  # no call fell back to eager


@needs_mlx
def test_a_cast_of_non_finite_floats_to_integers_gives_the_eager_answer_on_mlx() -> None:
    # Found by test_fused_gives_what_eager_gives: hypot(b, log(0)) is inf,
    # which MLX's compiled kernel casts to int8 as 127 and its eager cast as 0.
    @xp.fuse
    def f(x: Any, b: Any) -> Any:
        return xp.astype(xp.hypot(b, xp.log(x)), xp.int8)

    x, b = xp.asarray([0.0, 1.0, 2.0], device="mlx"), xp.asarray([False, True, False], device="mlx")
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):  # log(0) and its cast, as NumPy's
        warnings.simplefilter("ignore", xp.FuseWarning)
        got = f(x, b)
        assert np.asarray(got).tolist() == np.asarray(xp.astype(xp.hypot(b, xp.log(x)), xp.int8)).tolist()
