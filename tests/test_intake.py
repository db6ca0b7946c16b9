"""Host data from outside comes in one way (``unifiedarray._intake``):
whichever path takes it (``asarray``, an operator, NumPy's protocols), it
comes in as a copy under one of the standard's dtypes: no dtype metadata
(a cache that would go stale after a write), native byte order, NumPy's
values."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import unifiedarray as xp

from .conftest import DEVICES

# Each path takes the foreign ndarray ``a`` next to the array ``x`` (ones of
# a's plain dtype) and gives an array holding a's data (times one).
PATHS = {
    "asarray": lambda x, a: xp.asarray(a),
    "x * a": lambda x, a: x * a,
    "a * x (NumPy's protocol)": lambda x, a: a * x,
    "np.multiply(x, a)": lambda x, a: np.multiply(x, a),
    "xp.multiply(a, x)": lambda x, a: xp.multiply(a, x),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("path", sorted(PATHS))
@settings(max_examples=25, deadline=None)
@given(
    data=st.data(),
    dtype=st.sampled_from(["int16", "int64", "uint32", "float32", "float64"]),
    order=st.sampled_from(["<", ">"]),
    metadata=st.booleans(),
)
def test_foreign_host_data_comes_in_under_the_plain_dtype(device, path, data, dtype, order, metadata):
    plain = np.dtype(dtype)
    values = data.draw(hnp.arrays(plain, st.integers(1, 5), elements={"min_value": 0, "max_value": 100}))
    foreign_dtype = plain.newbyteorder(order)
    if metadata:
        foreign_dtype = np.dtype(foreign_dtype, metadata={"cached": "labels"})
    a = values.astype(foreign_dtype)
    x = xp.ones(values.shape, dtype=plain, device=device)
    with xp.default_device(device):
        out = PATHS[path](x, a)
    assert out.dtype == plain and out.dtype.metadata is None and out.dtype.isnative
    assert np.asarray(out).tolist() == values.tolist()


# -- Python scalars -----------------------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
def test_complex_python_scalar_with_a_real_floating_array(device):
    dt = xp.float32 if device == "mlx" else xp.float64
    x = xp.asarray([1.0, 2.0], dtype=dt, device=device)
    y = x * 1j
    assert y.dtype == (xp.complex64 if dt == xp.float32 else xp.complex128)
    assert y.tolist() == [1j, 2j]
    assert (1j + x).tolist() == [1 + 1j, 2 + 1j]
