"""A Hypothesis stateful test of the memory pool against a plain model.

Buffers are acquired in a few shapes and dtypes (so hits reuse blocks of
other shapes and dtypes), written on the host and through MLX, released,
dropped without release, and views of them are kept across their release.
After every step:

* every live buffer reads exactly what was last written to it (zeros if
  nothing was), whoever owned its block before;
* every view kept from a released buffer still reads what that buffer held
  at its release, whoever owns the pool's memory now;
* the pool's figures agree with the model: acquires, hits plus misses,
  bytes in use (the size classes of the live buffers), the peak of that,
  and no block held once no kept view refers to it.
"""

from __future__ import annotations

import gc

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, consumes, invariant, rule

import unifiedarray as ua
from unifiedarray._pool import size_class

from .conftest import HAS_MLX

# 3 size classes: 4 KiB (up to 4096 bytes), 8 KiB and 16 KiB.
SHAPES = st.sampled_from([(16,), (4, 8), (512,), (1000,), (32, 40), (2000,)])
DTYPES = st.sampled_from([np.float64, np.float32, np.int32, np.uint8])
VIEWS = st.sampled_from(["read", "host", "to_numpy", "host_slice"])


class PoolModel(RuleBasedStateMachine):
    buffers = Bundle("buffers")

    def __init__(self) -> None:
        super().__init__()
        self.pool = ua.MemoryPool()
        self.live: dict[int, tuple[ua.UnifiedBuffer, np.ndarray]] = {}  # key -> (buffer, its data)
        self.kept: list[tuple[np.ndarray, np.ndarray]] = []  # (view of a released buffer, its data then)
        self.next_key = 0
        self.acquires = 0
        self.dropped = False  # since the last check of the figures
        self.peak = 0

    @rule(target=buffers, shape=SHAPES, dtype=DTYPES)
    def acquire(self, shape, dtype):
        buf = self.pool.acquire(shape, dtype=dtype)
        assert buf.shape == shape and buf.dtype == np.dtype(dtype)
        key = self.next_key
        self.next_key += 1
        self.acquires += 1
        self.live[key] = (buf, np.zeros(shape, dtype))
        self.peak = max(self.peak, self.in_use())
        return key

    def in_use(self) -> int:
        return sum(size_class(buf.nbytes) for buf, _ in self.live.values())

    @rule(key=buffers, value=st.integers(0, 100), how=st.sampled_from(["fill", "host", "copy_from"]))
    def write(self, key, value, how):
        if key not in self.live:
            return
        buf, data = self.live[key]
        if how == "fill":
            buf.fill(value)
            data[...] = value
        elif how == "host":
            h = buf.host
            h.reshape(-1)[::3] = value  # a strided part
            data.reshape(-1)[::3] = value
        else:
            new = (np.arange(data.size).reshape(data.shape) + value).astype(data.dtype)
            buf.copy_from(new)
            data[...] = new

    @rule(key=buffers, value=st.integers(0, 100))
    def write_on_mlx(self, key, value):
        if not HAS_MLX or key not in self.live:
            return
        import mlx.core as mx

        buf, data = self.live[key]
        if data.dtype == np.float64:
            return  # MLX holds no float64 arrays of its own
        h = buf.mlx  # a write lease: the host block goes stale
        h[(0,) * h.ndim] = mx.array(value, dtype=h.dtype)  # the first element
        data.reshape(-1)[0] = value

    @rule(key=consumes(buffers), view=VIEWS)
    def release_keeping_a_view(self, key, view):
        if key not in self.live:
            return
        buf, data = self.live.pop(key)
        kept = {
            "read": lambda: buf.read("cpu"),
            "host": lambda: buf.host,
            "to_numpy": lambda: buf.to_numpy(),
            "host_slice": lambda: buf.host.reshape(-1)[1:][::2],
        }[view]()
        expected = np.asarray(kept).copy()
        np.testing.assert_array_equal(
            expected.reshape(-1), (data.reshape(-1)[1:][::2] if view == "host_slice" else data.reshape(-1))
        )
        self.pool.release(buf)
        self.kept.append((kept, expected))

    @rule(key=consumes(buffers))
    def release(self, key):
        if key not in self.live:
            return
        buf, _ = self.live.pop(key)
        self.pool.release(buf)

    @rule(key=consumes(buffers), collect=st.booleans())
    def drop_without_release(self, key, collect):
        if key not in self.live:
            return
        del self.live[key]
        self.dropped = True
        if collect:
            gc.collect()

    @rule(target=buffers, key=consumes(buffers), shape=SHAPES, dtype=DTYPES)
    def drop_and_acquire(self, key, shape, dtype):
        # Within one step, so that no check of the figures comes in between.
        if key in self.live:
            del self.live[key]
        return self.acquire(shape, dtype)

    @rule(data=st.data())
    def forget_a_kept_view(self, data):
        if self.kept:
            self.kept.pop(data.draw(st.integers(0, len(self.kept) - 1)))

    @rule()
    def trim(self):
        self.pool.trim()

    @invariant()
    def live_buffers_read_their_own_data(self):
        for buf, data in self.live.values():
            np.testing.assert_array_equal(buf.to_numpy(), data)

    @invariant()
    def kept_views_read_their_old_owners_data(self):
        for view, expected in self.kept:
            np.testing.assert_array_equal(np.asarray(view), expected)

    @invariant()
    def figures_agree_with_the_model(self):
        if self.dropped:
            gc.collect()  # a buffer dropped in a cycle leaves the accounting on collection
            self.dropped = False
        s = self.pool.stats()
        assert s["acquires"] == self.acquires == s["hits"] + s["misses"]
        assert s["bytes_in_use"] == self.in_use()
        assert s["peak_bytes"] == self.peak
        if not self.kept:
            assert s["bytes_held"] == 0  # stats() reclaims blocks nothing refers to any more


PoolModel.TestCase.settings = settings(
    max_examples=40, stateful_step_count=25, deadline=None, suppress_health_check=list(HealthCheck)
)
TestPoolModel = PoolModel.TestCase
