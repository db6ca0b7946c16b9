"""The stateful buffer and view models with CUDA GPUs as extra memory spaces.

The models of ``test_buffer_stateful.py`` and ``test_array_stateful.py``, with
``cuda:0`` and ``cuda:1`` added (on the simulated runtime in CI, where every
step is also checked for ordering and context hazards; on real GPUs where
present).  The buffer model gains rules that read, write through ``.device``,
copy in from a CuPy array and declare raw writes on each GPU; every step must
move exactly the copies the model says, and every read must see the model's
data.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import initialize, invariant, precondition, rule

from unifiedarray import UnifiedBuffer
from unifiedarray._devices import Device

from . import conftest, cudasim
from .test_array_stateful import SHAPES, ViewModel
from .test_buffer_stateful import DTYPES, BufferModel, N

pytestmark = pytest.mark.cuda  # without MLX the base model's MLX rules do not run

GPUS = [s for s in conftest.MEMORY_SPACES if s.startswith("cuda")] or ["cuda:0"]
SPACES = st.sampled_from(conftest.MEMORY_SPACES or ["cpu"])


def _gpu(dev: str):
    import cupy

    return cupy.cuda.Device(Device.parse(dev).index)


class CudaBufferModel(BufferModel):
    @initialize(dtype=DTYPES, placement=SPACES)
    def create(self, dtype, placement):
        BufferModel.create(self, dtype, placement)

    @invariant()
    def no_hazard(self):
        # Checked after every step (not only at the end), so that Hypothesis
        # shrinks a hazard to the shortest program that makes it.
        cudasim.settle()
        assert not cudasim.hazards(), cudasim.hazards()

    @rule(dev=st.sampled_from(GPUS))
    def read_gpu(self, dev):
        expected = self.model_read(dev)
        got = self.step(expected, lambda: self.buf.read(dev))
        with _gpu(dev):
            np.testing.assert_array_equal(got.get(), self.data)

    @rule(dev=st.sampled_from(GPUS))
    def sync_to_gpu(self, dev):
        self.step(self.model_read(dev), lambda: self.buf.sync_to_device(dev))

    @rule(v=st.integers(0, 100))
    def write_through_device_handle(self, v):
        acc = str(self.buf._accelerator())
        if self.refuses_device_handle(lambda: self.buf.device):
            return
        expected = self.model_write(acc)
        handle = self.step(expected, lambda: self.buf.device)
        with _gpu(acc) if acc.startswith("cuda") else _NoContext():
            handle[1:3] = self.value(v).item()
        self.data[1:3] = self.value(v)

    @rule(v=st.integers(0, 100), on=st.sampled_from(GPUS))
    def copy_from_gpu(self, v, on):
        import cupy

        src = (np.arange(N) * v % 5).astype(self.dtype)
        with _gpu(on):
            src_arr = cupy.asarray(src)
        self.copy_in(on, lambda: self.buf.copy_from(src_arr))
        self.data[:] = src

    @precondition(lambda self: any(d.startswith("cuda") for d in self.allocated))
    @rule(v=st.integers(0, 100))
    def raw_device_write_then_mark(self, v):
        acc = str(self.buf._accelerator())
        if acc not in self.allocated or not acc.startswith("cuda"):
            return  # (an MLX placement's accelerator is MLX: a raw MLX write is lazy, on this thread's stream)
        expected = self.model_read(acc)
        raw = self.step(expected, lambda: self.buf._acquire(Device.parse(acc), False, "test raw"))
        with _gpu(acc):
            raw[0] = self.value(v).item()  # a write the library cannot see ...
        self.data[0] = self.value(v)
        # ... declared by the user (while a host alias lives, copied back to the host at once)
        if not self.aliased:
            self.valid = {acc}
        self.step(1 if self.aliased else 0, self.buf.mark_device_dirty)
        self.epoch += 1  # a mark ends the MLX lease even when the valid set stays


class _NoContext:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return None


CudaBufferModel.TestCase.settings = settings(
    max_examples=40, stateful_step_count=20, deadline=None, suppress_health_check=list(HealthCheck), database=None
)
TestCudaBufferModel = CudaBufferModel.TestCase


class ViewModelOnTheSecondGPU(ViewModel):
    """The view model on ``cuda:1`` (``cuda:0`` is in DEVICES, which the view
    model itself samples)."""

    @initialize(
        target=ViewModel.views,
        device=st.just(GPUS[-1]),
        dtype=st.sampled_from(["float64", "int32", "float32"]),
        shape=st.sampled_from(SHAPES),
        made_by=st.sampled_from(["asarray", "asarray, its buffer made", "an operation"]),
    )
    def create(self, device, dtype, shape, made_by):
        return ViewModel.create(self, device, dtype, shape, made_by)


ViewModelOnTheSecondGPU.TestCase.settings = settings(
    max_examples=25,
    stateful_step_count=10,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    database=None,
    derandomize=True,
    phases=[Phase.explicit, Phase.generate],  # an expected failure: no time spent shrinking it
)
TestViewModelOnTheSecondGPU = pytest.mark.skipif(conftest.CUDA_COUNT < 2, reason="needs two CUDA GPUs")(
    ViewModelOnTheSecondGPU.TestCase
)


def test_a_host_buffer_follows_its_gpu_copy():
    # The buffer model's accelerator rules rely on this (issue 14, item 10).
    buf = UnifiedBuffer((2,), dtype=np.float32)
    buf.fill(1.0)
    assert str(buf._accelerator()) == "cuda:0"
    buf.sync_to_device(GPUS[-1])
    assert str(buf._accelerator()) == GPUS[-1]
