"""The host reductions (``unifiedarray/_reductions.py``): ``sum``, ``prod``,
``max`` and ``min`` give NumPy's answer, on their fast path (a whole host
array) and on the generic path (a view) alike: the same values, dtypes,
shapes and exception classes, for every dtype, axis and ``keepdims``.  The
reference is NumPy itself, called directly, not either path."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import unifiedarray as xp

DTYPES = st.sampled_from(["bool", "int8", "uint8", "int32", "int64", "uint64", "float32", "float64", "complex64"])


def outcome(fn):
    try:
        out = fn()
    except MemoryError:
        raise  # never an answer: a test that allocates hugely must fail, naming its example
    except Exception as exc:  # the error's type is part of the answer
        return type(exc)
    out = np.asarray(out)  # NumPy's whole reductions give NumPy scalars
    return (out.dtype, out.shape, out.tolist())


@pytest.mark.parametrize("array_out", [True, False], ids=["out=...", "scalar-result"])
@settings(max_examples=150, deadline=None)
@given(data=st.data(), dtype=DTYPES, name=st.sampled_from(["sum", "prod", "max", "min"]))
def test_fast_and_generic_paths_give_numpys_answer(array_out, data, dtype, name):
    """Both ways the fast path asks NumPy for its result are checked:
    ``out=...`` (NumPy 2.3 and later) and the older scalar it converts."""
    import unifiedarray._reductions as functions

    if array_out and not functions._ARRAY_OUT:
        pytest.skip("this NumPy has no out=... for ufuncs")
    saved, functions._ARRAY_OUT = functions._ARRAY_OUT, array_out
    try:
        check_against_numpy(data, dtype, name)
    finally:
        functions._ARRAY_OUT = saved


def check_against_numpy(data, dtype, name):
    if name in ("max", "min") and dtype.startswith("complex"):
        return  # not ordered: the standard has no max/min for complex
    a = data.draw(hnp.arrays(dtype, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)))
    axis = data.draw(st.none() | st.integers(-a.ndim - 1, a.ndim) | st.just(tuple(range(a.ndim))[:1]))
    kwargs = {"keepdims": data.draw(st.booleans())}
    if axis is not None:
        kwargs["axis"] = axis
    whole = xp.asarray(a)  # the fast path
    view = whole[...]  # a view: the generic path
    assert view.is_view
    fn = getattr(xp, name)
    with np.errstate(all="ignore"):
        expected = outcome(lambda: getattr(np, name)(a, **kwargs))
        fast, generic = outcome(lambda: fn(whole, **kwargs)), outcome(lambda: fn(view, **kwargs))
    for got in (fast, generic):
        if isinstance(got, tuple) and isinstance(expected, tuple) and np.dtype(dtype).kind in "fc":
            assert got[:2] == expected[:2]
            np.testing.assert_array_equal(np.asarray(got[2]), np.asarray(expected[2]))  # NaN-aware
        else:
            assert got == expected


def test_fast_path_results_own_their_memory_and_count_no_move():
    x = xp.asarray(np.arange(6.0).reshape(2, 3))
    with xp.track_transfers() as t:
        s = xp.sum(x, axis=())  # NumPy's reduce over no axes still makes a new array
    assert t.count == 0
    x[0, 0] = 100.0
    assert float(s[0, 0]) == 0.0
    with pytest.raises(TypeError):
        xp.sum(x, 0)  # axis is keyword-only, as in the standard
    with pytest.raises(TypeError, match="dtype"):
        xp.max(x, dtype=xp.float32)  # max and min take no dtype=
    assert xp.sum(x, dtype=xp.float32).dtype == xp.float32
