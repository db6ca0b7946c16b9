"""The standard's manipulation functions (``unifiedarray/_manipulation.py``)
give NumPy's answer on every device (values, dtypes, shapes) and take what
the standard's signatures take."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
import pytest

import unifiedarray as xp

from .conftest import DEVICES


@pytest.mark.parametrize("device", DEVICES)
def test_stack_and_concat_take_any_sequence_of_arrays(device):
    Pair = namedtuple("Pair", "a b")
    p = Pair(xp.asarray([1.0], device=device), xp.asarray([2.0], device=device))
    assert xp.stack(p).tolist() == [[1.0], [2.0]]
    assert xp.concat(p).tolist() == [1.0, 2.0]


HOST = np.arange(24, dtype=np.int32).reshape(2, 3, 4)

CASES = {
    "broadcast_to": (lambda L, x: L.broadcast_to(x[:, :1, :], (2, 3, 4)), None),
    "concat axis=1": (lambda L, x: L.concat([x, x], axis=1), None),
    "concat axis=None": (lambda L, x: L.concat([x, x], axis=None), lambda x: np.concatenate([x, x], axis=None)),
    "stack axis=-1": (lambda L, x: L.stack([x, x + 1], axis=-1), None),
    "moveaxis": (lambda L, x: L.moveaxis(x, 0, -1), None),
    "repeat": (lambda L, x: L.repeat(x, 2, axis=1), None),
    "repeat flat": (lambda L, x: L.repeat(x, 3), None),
    "roll": (lambda L, x: L.roll(x, 2, axis=2), None),
    "roll flat": (lambda L, x: L.roll(x, -5), None),
    "roll axes": (lambda L, x: L.roll(x, (1, -1), axis=(0, 2)), None),
    "tile": (lambda L, x: L.tile(x, (2, 1, 1)), None),
    "reshape": (lambda L, x: L.reshape(x, (4, -1)), None),
    "permute_dims": (lambda L, x: L.permute_dims(x, (2, 0, 1)), lambda x: np.transpose(x, (2, 0, 1))),
    "squeeze": (lambda L, x: L.squeeze(x[:1], axis=0), None),
    "expand_dims": (lambda L, x: L.expand_dims(x, axis=1), None),
    "flip": (lambda L, x: L.flip(x, axis=(0, 2)), None),
    "flip all": (lambda L, x: L.flip(x), None),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", sorted(CASES))
def test_manipulation_gives_numpys_answer(device, case):
    fn, numpy = CASES[case]
    got = fn(xp, xp.asarray(HOST, device=device))
    expected = numpy(HOST) if numpy else fn(np, HOST)
    assert got.device == device and got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(np.asarray(got), expected)


@pytest.mark.parametrize("device", DEVICES)
def test_unstack_and_broadcast_arrays_give_numpys_parts(device):
    x = xp.asarray(HOST, device=device)
    parts = xp.unstack(x, axis=1)
    assert len(parts) == 3
    for got, expected in zip(parts, np.unstack(HOST, axis=1), strict=True):
        np.testing.assert_array_equal(np.asarray(got), expected)
    a, b = xp.broadcast_arrays(x[:, :1, :], xp.asarray([1, 2, 3, 4], device=device))
    assert a.shape == b.shape == (2, 1, 4)
    np.testing.assert_array_equal(np.asarray(b), np.broadcast_to([1, 2, 3, 4], (2, 1, 4)))


@pytest.mark.parametrize("device", DEVICES)
def test_bad_shapes_and_axes_raise_numpys_class(device):
    x = xp.asarray(HOST, device=device)
    with pytest.raises(ValueError):
        xp.reshape(x, (5, 5))
    with pytest.raises(ValueError):
        xp.squeeze(x, axis=0)  # not of length 1
    with pytest.raises(ValueError):
        xp.concat([x, x[:, :2]], axis=0)
    with pytest.raises(ValueError):
        xp.broadcast_to(x, (3, 3, 4))
    with pytest.raises(IndexError):  # NumPy's AxisError is an IndexError too
        xp.flip(x, axis=3)
