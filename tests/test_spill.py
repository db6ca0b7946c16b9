"""Device memory limits (``unifiedarray/_spill.py``): under a limit, copies
that the host also holds are dropped first, then device-only copies are
spilled to the host (each spill an explicit, counted move), and every array
still reads back as its model says, on the host and on the device.  The
limits on dask workers are tested with the cluster, in test_distributed.py."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import unifiedarray as xp
from unifiedarray import _spill

from .conftest import needs_mlx


@pytest.fixture
def mlx_limit():
    yield lambda limit: _spill.set_device_memory_limit("mlx", limit)
    _spill.set_device_memory_limit("mlx", None)


@needs_mlx
def test_spill_workload_larger_than_the_limit(mlx_limit):
    mlx_limit("4 MiB")
    rng = np.random.default_rng(1)
    hosts = [rng.random(131072) for _ in range(12)]  # 12 x 1 MiB: three times the limit
    with xp.track_transfers() as t:
        arrays = [xp.asarray(h, device="mlx") * 2.0 for h in hosts]  # device-only results
        assert _spill.device_memory_usage("mlx") <= 4 * 2**20
        total = sum(float(xp.sum(a)) for a in arrays)
    spills = [r for r in t.records if r.reason == "spill"]
    assert spills and all(r.direction == "device_to_host" and r.explicit for r in spills)
    assert total == pytest.approx(sum(h.sum() * 2 for h in hosts))
    for a, h in zip(arrays, hosts, strict=True):  # never stale: every array reads back right
        assert a.device == "mlx"
        np.testing.assert_array_equal(np.asarray(a), h * 2.0)
    assert _spill.device_memory_usage("mlx") <= 4 * 2**20


@needs_mlx
def test_a_result_under_a_limit_is_counted_when_it_is_made(mlx_limit):
    """A small result that MLX's direct function makes (without a limit, a
    lone result with no buffer: see UnifiedArray.buffer) is in the device's
    usage at once under a limit, and one made before the limit is counted
    when its buffer is made."""
    a = xp.asarray(np.ones(1024, dtype=np.float32), device="mlx")
    _ = a + a  # a signature's first call is judged on the general path
    before_the_limit = a + a
    mlx_limit("1 GiB")
    used = _spill.device_memory_usage("mlx")
    r = a + a
    assert _spill.device_memory_usage("mlx") == used + r.nbytes
    before_the_limit[0] = 3.0  # a write: the buffer is made, and counted
    assert _spill.device_memory_usage("mlx") == used + 2 * r.nbytes
    assert float(xp.sum(before_the_limit)) == 2 * 1023 + 3.0 and float(xp.sum(r)) == 2048.0


@needs_mlx
def test_limit_drops_host_current_copies_first(mlx_limit):
    mlx_limit(3 * 2**20)
    synced = [xp.asarray(np.full(131072, float(i)), device="mlx") for i in range(2)]
    for s in synced:
        np.asarray(s)  # host copy current too: dropping the MLX copy is free
    only = xp.asarray(np.ones(131072), device="mlx") + 1  # device-only
    with xp.track_transfers() as t:
        extra = xp.asarray(np.zeros(131072), device="mlx") + 2  # over the limit: one must go
    assert [r.reason for r in t.records if r.reason == "spill"] == []
    assert "mlx" not in synced[0].buffer.allocated_devices  # the oldest host-current copy was dropped
    assert only.buffer.state.name == "DEVICE_ONLY" and extra.buffer.state.name == "DEVICE_ONLY"
    np.testing.assert_array_equal(np.asarray(synced[0]), np.zeros(131072))
    assert float(xp.sum(synced[0] + 1)) == 131072.0  # read on MLX again: moved back, counted


@needs_mlx
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ops=st.lists(
        st.tuples(st.sampled_from(["new", "write", "host_read", "mlx_read", "drop"]), st.integers(0, 7)),
        min_size=1,
        max_size=30,
    )
)
def test_never_stale_under_a_device_limit(ops):
    # A model: NumPy arrays.  Under a limit of three arrays' worth of MLX
    # memory, every array reads back as the model says, on the host and on MLX.
    n = 4096
    _spill.set_device_memory_limit("mlx", 3 * n * 8)
    try:
        arrays: list = []
        model: list = []
        for op, i in ops:
            if op == "new" or not arrays:
                model.append(np.full(n, float(len(model))))
                arrays.append(xp.asarray(model[-1], device="mlx") + 0.0)  # device-only
                continue
            j = i % len(arrays)
            if op == "write":
                arrays[j][i] = float(100 + i)
                model[j][i] = float(100 + i)
            elif op == "host_read":
                np.testing.assert_array_equal(np.asarray(arrays[j]), model[j])
            elif op == "mlx_read":
                assert float(xp.sum(arrays[j])) == model[j].sum()
            else:
                arrays.pop(j)
                model.pop(j)
            assert _spill.device_memory_usage("mlx") <= 3 * n * 8
        for a, m in zip(arrays, model, strict=True):
            assert a.device == "mlx"
            np.testing.assert_array_equal(np.asarray(a), m)
    finally:
        _spill.set_device_memory_limit("mlx", None)


def test_memory_limit_arguments():
    assert _spill.parse_bytes("2 GiB") == 2 * 2**30 and _spill.parse_bytes("1.5 MB") == 1_500_000
    with pytest.raises(ValueError, match="byte count"):
        _spill.parse_bytes("lots")
    with pytest.raises(TypeError):
        _spill.parse_bytes(1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="host"):
        _spill.set_device_memory_limit("cpu", "1 GiB")
    with pytest.raises(ValueError):
        _spill.set_device_memory_limit("cuda:3", "1 GiB")
