"""A Hypothesis stateful test of the buffer against a plain NumPy model.

MLX is the real second memory space.  The model keeps the data and which
copies are valid; after every step the buffer must hold the model's data on
every read (never stale), and the step must have moved exactly as many
copies as the model says are needed (never redundant, every move counted).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

import unifiedarray as ua
from unifiedarray import UnifiedBuffer

from .conftest import HAS_MLX

pytestmark = pytest.mark.skipif(not HAS_MLX, reason="MLX is the second memory space of this test")

N = 6
DTYPES = st.sampled_from([np.float64, np.int32, np.float32, np.uint8])
INDEX = st.one_of(
    st.integers(0, N - 1),
    st.builds(slice, st.integers(0, N), st.integers(0, N)),
    st.builds(slice, st.none(), st.none(), st.integers(1, 3)),
)
SPACES = st.sampled_from(["cpu", "mlx"])


class BufferModel(RuleBasedStateMachine):
    @initialize(dtype=DTYPES, placement=SPACES)
    def create(self, dtype, placement):
        self.buf = UnifiedBuffer((N,), dtype=dtype, device=placement)
        self.dtype = np.dtype(dtype)
        self.placement = placement
        self.data = np.zeros(N, dtype)
        self.valid: set[str] = set()
        self.allocated: set[str] = set()

    # -- the model -----------------------------------------------------------
    def needed_moves_for_read(self, dev):
        if not self.allocated or dev in self.valid:
            return 0
        return 1 if ("cpu" in self.valid or dev == "cpu") else 2

    def model_read(self, dev):
        n = self.needed_moves_for_read(dev)
        if not self.allocated:
            self.allocated.add(dev)
            self.valid = {dev}
        elif n:
            self.allocated |= {dev, "cpu"}
            self.valid |= {dev, "cpu"}
        return n

    def model_write(self, dev):
        n = self.model_read(dev)
        self.valid = {dev}
        return n

    def step(self, expected, fn):
        with ua.track_transfers() as t:
            out = fn()
        assert t.count == expected, f"moved {t.count}, needed {expected}: {t.records}"
        assert self.buf.valid_devices == self.valid
        return out

    def value(self, draw_int):
        return np.array(draw_int % 7, dtype=self.dtype)

    # -- rules -----------------------------------------------------------------
    @rule(idx=INDEX, v=st.integers(0, 100))
    def write_through_host_handle(self, idx, v):
        expected = self.model_write("cpu")
        handle = self.step(expected, lambda: self.buf.host)
        handle[idx] = self.value(v)
        self.data[idx] = self.value(v)

    @rule(idx=INDEX, v=st.integers(0, 100))
    def write_through_mlx_handle(self, idx, v):
        import mlx.core as mx

        expected = self.model_write("mlx")
        handle = self.step(expected, lambda: self.buf.mlx)
        if isinstance(idx, slice) and len(range(*idx.indices(N))) == 0:
            return
        handle[idx] = mx.array(self.value(v))
        self.data[idx] = self.value(v)

    @rule(dev=SPACES)
    def read(self, dev):
        expected = self.model_read(dev)
        got = self.step(expected, lambda: self.buf.read(dev))
        np.testing.assert_array_equal(np.asarray(got), self.data)

    @rule()
    def to_numpy(self):
        expected = self.model_read("cpu")
        got = self.step(expected, self.buf.to_numpy)
        np.testing.assert_array_equal(got, self.data)
        assert not got.flags.writeable

    @rule()
    def sync_to_device(self):
        expected = self.model_read(str(self.buf._accelerator()))  # the placement, or a GPU for a host buffer
        self.step(expected, self.buf.sync_to_device)

    @rule()
    def sync_to_host(self):
        expected = self.model_read("cpu")
        self.step(expected, self.buf.sync_to_host)

    @rule(v=st.integers(0, 100))
    def fill(self, v):
        if not self.allocated:
            dev = self.placement
        else:
            dev = "cpu" if "cpu" in self.valid else next(iter(self.valid))
        self.allocated.add(dev)
        self.valid = {dev}
        self.step(0, lambda: self.buf.fill(self.value(v).item()))
        self.data[:] = self.value(v)

    @rule(v=st.integers(0, 100), on=SPACES)
    def copy_from(self, v, on):
        src = (np.arange(N) * v % 5).astype(self.dtype)
        if on == "mlx":
            import mlx.core as mx

            from unifiedarray.backends.mlx_backend import mx_dtype

            src_arr = mx.array(src, dtype=mx_dtype(self.dtype))
        else:
            src_arr = src
        self.allocated.add(on)
        self.valid = {on}
        self.step(0, lambda: self.buf.copy_from(src_arr))
        self.data[:] = src

    @precondition(lambda self: "cpu" in self.allocated)
    @rule(v=st.integers(0, 100))
    def raw_host_write_then_mark(self, v):
        # a write the library cannot see (as through a raw pointer) ...
        expected = self.model_read("cpu")
        raw = self.step(expected, lambda: self.buf._acquire(ua.Device.parse("cpu"), False, "test raw"))
        raw[0] = self.value(v)
        self.data[0] = self.value(v)
        # ... declared by the user
        self.buf.mark_host_dirty()
        self.valid = {"cpu"}

    @invariant()
    def state_summarises_validity(self):
        if not hasattr(self, "buf"):
            return
        state = self.buf.state
        if not self.allocated:
            assert state is ua.BufferState.UNINITIALIZED
        elif "cpu" not in self.allocated:
            assert state is ua.BufferState.DEVICE_ONLY
        elif "cpu" not in self.valid:
            assert state is ua.BufferState.DEVICE_DIRTY
        elif self.allocated == {"cpu"}:
            assert state is ua.BufferState.HOST_ONLY
        elif self.valid == self.allocated:
            assert state is ua.BufferState.SYNCHRONIZED
        else:
            assert state is ua.BufferState.HOST_DIRTY


BufferModel.TestCase.settings = settings(
    max_examples=60, stateful_step_count=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TestBufferModel = BufferModel.TestCase
