"""The namespace's functions have the standard's signatures, exactly, on
every device: a call form the standard lacks (``out=``, ``where=``, NumPy's
positional axis, a made-up keyword, a non-array where an array belongs) is
a ``TypeError`` at the call, and leaves its arguments untouched."""

from __future__ import annotations

import inspect

import pytest

import unifiedarray as xp

from .conftest import DEVICES

# -- out=: the namespace refuses it (NumPy's, a tracked write, is in test_interop.py) ------

OUT_CALLS = {
    "clip": lambda a, c: xp.clip(a, 0.0, 2.0, out=c),
    "concat": lambda a, c: xp.concat([a], out=c),
    "stack": lambda a, c: xp.stack([a], out=c),
    "cumulative_sum": lambda a, c: xp.cumulative_sum(a, out=c),
    "cumulative_prod": lambda a, c: xp.cumulative_prod(a, out=c),
    "matmul": lambda a, c: xp.matmul(a, a, out=c),
    "mean": lambda a, c: xp.mean(a, out=c),
    "std": lambda a, c: xp.std(a, out=c),
    "var": lambda a, c: xp.var(a, out=c),
    "take": lambda a, c: xp.take(a, xp.asarray([0]), out=c),
    "vecdot": lambda a, c: xp.vecdot(a, a, c),
    "linalg.matmul": lambda a, c: xp.linalg.matmul(a, a, out=c),
    "linalg.outer": lambda a, c: xp.linalg.outer(a, a, out=c),
    "linalg.trace": lambda a, c: xp.linalg.trace(a, out=c),
    "linalg.vecdot": lambda a, c: xp.linalg.vecdot(a, a, out=c),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(OUT_CALLS))
def test_namespace_functions_refuse_out_and_leave_the_target_untouched(device, name):
    """``xp.clip(a, 0, 2, out=c)`` used to write c's host copy unseen (MLX
    kept [0, 0, 0] while the state said SYNCHRONIZED); the standard has no
    ``out=``, so it is a TypeError naming the argument, on every device."""
    a = xp.asarray([1.0, 2.0, 3.0], device=device)
    c = xp.zeros(3, device=device)
    with pytest.raises(TypeError):
        OUT_CALLS[name](a, c)
    assert c.tolist() == [0.0, 0.0, 0.0]


# -- the standard's signatures, exactly -------------------------------------------------------

NUMPY_FORMS = {
    "mean(A, 0)": lambda A: xp.mean(A, 0),
    "argmin(A, 1)": lambda A: xp.argmin(A, 1),
    "where(A > 2)": lambda A: xp.where(A > 2),
    "sum(where=)": lambda A: xp.sum(A, where=A > 2),
    "clip(dtype='foo')": lambda A: xp.clip(A, 0, 1, dtype="foo"),
    "made-up keyword": lambda A: xp.max(A, frobnicate=True),
    "sin(A, A)": lambda A: xp.sin(A, A),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("form", sorted(NUMPY_FORMS))
def test_numpy_only_call_forms_are_type_errors_on_every_device(device, form):
    A = xp.reshape(xp.arange(6.0, device=device), (2, 3))
    with pytest.raises(TypeError):
        NUMPY_FORMS[form](A)


def _public_functions():
    for name in xp.__all__:
        fn = getattr(xp, name)
        if inspect.isfunction(fn) and fn.__module__.startswith("unifiedarray._") and name not in ("get_namespace",):
            params = list(inspect.signature(fn).parameters.values())
            if params and params[0].kind is inspect.Parameter.POSITIONAL_ONLY:
                yield name


@pytest.mark.parametrize("name", sorted(_public_functions()))
def test_non_array_arguments_are_type_errors(name):
    """``xp.nonzero(None)`` was an AttributeError in 24 functions."""
    fn = getattr(xp, name)
    n = sum(p.default is inspect.Parameter.empty for p in inspect.signature(fn).parameters.values())
    if name in ("arange", "eye", "linspace", "full", "zeros", "ones", "empty", "asarray", "broadcast_shapes"):
        pytest.skip("takes numbers and shapes")
    if name in ("result_type", "can_cast", "isdtype", "finfo", "iinfo"):
        pytest.skip("takes dtypes")
    with pytest.raises(TypeError):
        fn(*([None] * max(n, 1)))


def test_from_dlpack_of_a_non_producer_is_a_type_error():
    with pytest.raises(TypeError):
        xp.from_dlpack(3)
