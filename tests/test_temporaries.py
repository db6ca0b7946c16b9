"""Host temporaries lend their memory to results (as NumPy's own do), and a
lent temporary is never observable: every array a program can still reach
keeps its value.  Checked with random expressions whose intermediates are
sometimes kept by a name, a view, an ``np.asarray`` alias, a weak reference
or a copy on another device."""

from __future__ import annotations

import contextlib
import weakref

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import unifiedarray as xp
from unifiedarray import _operators

from .conftest import HAS_MLX

SHAPE = (256, 128)  # 256 KiB of float64: large enough to lend
OPS = {
    "+": (lambda p, q: p + q),
    "-": (lambda p, q: p - q),
    "*": (lambda p, q: p * q),
    "/": (lambda p, q: p / q),
    "max": (lambda p, q: np.maximum(p, q) if isinstance(p, np.ndarray) else xp.maximum(p, q)),
}
HOLDERS = ["none", "name", "view", "alias", "weakref"] + (["mlx copy"] if HAS_MLX else [])


@st.composite
def programs(draw):
    steps = draw(
        st.lists(
            st.tuples(
                st.sampled_from(sorted(OPS)),
                st.integers(0, 9),
                st.integers(0, 9),
                st.sampled_from(HOLDERS),
                st.booleans(),
            ),
            min_size=1,
            max_size=6,
        )
    )
    return steps


def run(steps, a, b, unified):
    values = [a, b]
    kept = []  # (what, object) that the program can still reach
    for op, i, j, holder, scalar_rhs in steps:
        p = values[i % len(values)]
        q = 1.5 if scalar_rhs else values[j % len(values)]
        r = OPS[op](p, q)
        if unified:
            if holder == "view":
                kept.append(("view", r[1:]))
            elif holder == "alias":
                kept.append(("alias", np.asarray(r)))
            elif holder == "weakref":
                kept.append(("weakref", weakref.ref(r)))
            elif holder == "mlx copy":
                r.buffer.sync_to_device("mlx")
        values.append(r)
        if holder == "none" and unified:
            values[-1] = OPS["+"](r, 0.0)  # r itself becomes an unnamed temporary of the next step
    return values, kept


@pytest.mark.skipif(not _operators._COUNTS_OWNED_REFERENCES, reason="lending is off on this Python")
@settings(max_examples=60, deadline=None)
@given(steps=programs(), seed=st.integers(0, 2**16))
def test_lent_temporaries_are_never_observable(steps, seed):
    rng = np.random.default_rng(seed)
    A, B = rng.random(SHAPE) + 0.5, rng.random(SHAPE) + 0.5
    a, b = xp.asarray(A), xp.asarray(B)
    with np.errstate(all="ignore"):  # a drawn program may divide by an exact zero (x - x), in both runs alike
        want, _ = run(steps, A, B, unified=False)
        got, kept = run(steps, a, b, unified=True)
    assert np.array_equal(np.asarray(a), A) and np.array_equal(np.asarray(b), B)  # inputs untouched
    for w, g in zip(want, got, strict=True):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-12)
    for what, obj in kept:
        if what == "weakref":
            obj = obj()
            if obj is None:
                continue
        # A view or an alias of an intermediate still shows that intermediate.
        assert any(
            np.shares_memory(np.asarray(obj), np.asarray(g)) or np.array_equal(np.asarray(obj), np.asarray(g)[1:])
            for g in got
            if isinstance(g, xp.UnifiedArray)
        )


@contextlib.contextmanager
def _lending_recorded():
    """A list that records, for each large operation in the block, whether
    an operand lent its memory to the result."""
    lent: list[bool] = []
    original = _operators._into

    def spy(*args):
        out = original(*args)
        lent.append(out is not None)
        return out

    _operators._into = spy
    try:
        yield lent
    finally:
        _operators._into = original


def test_a_chain_of_temporaries_reuses_one_block():
    """``a + a + a + a`` allocates once after the first sum, as NumPy does."""
    a = xp.asarray(np.ones(SHAPE))
    with _lending_recorded() as lent:
        r = a + a + a + a
        named = a + a
        r2 = named + a  # named: not lent
    if _operators._COUNTS_OWNED_REFERENCES:
        assert lent == [True, True]
    assert float(r[0, 0]) == 4.0 and float(r2[0, 0]) == 3.0 and float(named[0, 0]) == 2.0


def test_a_temporary_on_the_right_lends_its_memory_and_a_named_one_never():
    """``a * (a + a)``: the right operand is the temporary, and lends; a
    named right operand never does (the counts of y's references)."""
    a = xp.asarray(np.ones(SHAPE))
    with _lending_recorded() as lent:
        r = a * (a + a)
        named = a + a
        r2 = a * named  # named: not lent
    if _operators._COUNTS_OWNED_REFERENCES:
        assert lent == [True]
    assert float(r[0, 0]) == 2.0 and float(r2[0, 0]) == 2.0 and float(named[0, 0]) == 2.0


@pytest.mark.parametrize("dtype", ["bool", "int8", "int64", "uint8", "float32", "complex64"])
@pytest.mark.parametrize("name", sorted(_operators._ELIDABLE))
@pytest.mark.parametrize("scalar", [False, True])
def test_a_temporary_lends_only_where_the_result_has_its_dtype(dtype, name, scalar):
    """``(a | b) / c`` on large integers is float64: the integer temporary
    cannot hold it and is not lent (the ufunc's own type resolution decides,
    not ``result_type``); every elidable function gives NumPy's dtype, value
    and error class on a lendable temporary of every dtype."""
    rng = np.random.default_rng(0)
    a = (rng.integers(0, 3, SHAPE) > 0) if dtype == "bool" else rng.integers(1, 5, SHAPE).astype(dtype)
    c = (True if dtype == "bool" else 2) if scalar else a[::-1].copy()  # the standard refuses bool with int
    fn = getattr(np, {"pow": "power", "atan2": "arctan2"}.get(name, name))

    def outcome(f):
        try:
            with np.errstate(all="ignore"):
                r = f()
        except MemoryError:
            raise  # never an answer: a test that allocates hugely must fail, naming its example
        except Exception as exc:
            return type(exc)
        return np.asarray(r).dtype, np.asarray(r).tobytes()

    ua = xp.asarray(a)
    expected = outcome(lambda: fn(a + a, c))
    uc = c if scalar else xp.asarray(c)
    got = outcome(lambda: getattr(xp, name)(ua + ua, uc))
    assert got == expected


@pytest.mark.parametrize("order", ["temporary first", "temporary second"])
def test_a_temporary_smaller_than_the_result_is_not_lent(order):
    """A lendable temporary that broadcasts up to the result (``(a + a) + b``
    with ``a`` (1, n), ``b`` (8, n)) cannot hold it; shapes that do not
    broadcast give NumPy's ValueError."""
    a = np.arange(40000.0).reshape(1, -1)
    b = np.ones((8, 40000))
    ua, ub = xp.asarray(a), xp.asarray(b)
    got = (ua + ua) + ub if order == "temporary first" else ub + (ua + ua)
    np.testing.assert_array_equal(np.asarray(got), (a + a) + b)
    with pytest.raises(ValueError):
        (ua + ua) + xp.asarray(np.ones(7)) if order == "temporary first" else xp.asarray(np.ones(7)) + (ua + ua)
