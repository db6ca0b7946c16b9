"""The dispatch assembled (``unifiedarray/_dispatch.py``): the array class's
dunders and methods reach the dispatch's modules through one table of
operations, the one ``_dispatch`` builds and installs; each entry of the
table is reached from the array's public face.  (What each entry does is
tested with the module that holds it: test_access.py, test_exports.py,
test_fast_paths.py, ...)"""

from __future__ import annotations

import copy
import dataclasses
import pickle

import numpy as np
import pytest

import unifiedarray as xp
from unifiedarray import _array, _dispatch

from . import conftest

#: for each entry of the table, code on an array ``x`` that reaches it
REACHED_BY = {
    "call": lambda x: 2.0 in x,
    "unary": lambda x: -x,
    "operate": lambda x: x + 1,
    "inplace": lambda x: x.__iadd__(1),
    "getitem": lambda x: x[0],
    "setitem": lambda x: x.__setitem__(0, 1.0),
    "native_on": lambda x: x.tolist(),
    "readonly_host": lambda x: x.to_numpy(),
    "linked_view": lambda x: x[None].T,
    "reshaped": lambda x: x.flatten(),
    "to_device": lambda x: x.to_device("cpu"),
    "namespace": lambda x: x.__array_namespace__(),
    "astype": lambda x: x.astype(xp.float32),
    "copy_of": lambda x: copy.copy(x),
    "imag": lambda x: x.imag,
    "array": lambda x: np.asarray(x),
    "array_ufunc": lambda x: np.add(x, 1),
    "array_function": lambda x: np.mean(x),
    "dlpack": lambda x: x.__dlpack__(),
    "dlpack_device": lambda x: x.__dlpack_device__(),
    "cuda_array_interface": lambda x: getattr(x, "__cuda_array_interface__", None),
    "cupy_get_ndarray": lambda x: x.__cupy_get_ndarray__(),
    "mlx_array": lambda x: x.__mlx_array__(),
    "reduce_ex": lambda x: pickle.dumps(x),
    "dask_token": lambda x: x.__dask_tokenize__(),
}

#: entries whose trigger needs a device this machine may lack, and the device
NEEDS = {"cuda_array_interface": "cuda:0", "cupy_get_ndarray": "cuda:0", "mlx_array": "mlx"}


def test_the_table_installed_is_the_one_assembled():
    assert _array._ops is _dispatch.OPERATIONS
    for field in dataclasses.fields(_array.Operations):
        entry = getattr(_dispatch.OPERATIONS, field.name)
        assert callable(entry) and entry.__module__.startswith("unifiedarray._"), field.name


def test_every_entry_has_a_way_in():
    assert sorted(REACHED_BY) == sorted(f.name for f in dataclasses.fields(_array.Operations))


@pytest.mark.parametrize("entry", sorted(REACHED_BY))
def test_each_entry_is_reached_from_the_array(entry, monkeypatch):
    device = NEEDS.get(entry, "cpu")
    if device == "mlx" and not conftest.HAS_MLX:
        pytest.skip("needs MLX")
    if device.startswith("cuda") and not conftest.HAS_CUDA:
        pytest.skip("needs CUDA (a GPU, or the simulated runtime)")
    x = xp.asarray([1.0, 2.0, 3.0], device=device)
    original = getattr(_dispatch.OPERATIONS, entry)
    calls = []

    def spy(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    table = dataclasses.replace(_dispatch.OPERATIONS, **{entry: spy})
    monkeypatch.setattr(_array, "_ops", table)
    REACHED_BY[entry](x)
    assert calls, f"{entry} was not reached"
