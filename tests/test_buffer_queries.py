"""The buffer's query API: what the rest of the package asks the buffer
(``ready``, ``host_ready``, ``current``, ``native``, ``write``,
``host_private``, ``allocated``, ``version``, ``retire``), answered from the
state machine itself.

``ready`` and ``host_ready`` are kept by the buffer at every change of its
state (the fast paths read them instead of four fields): the property test
below runs random sequences of every kind of access on every device and
checks, after each step, that they are exactly what the state says
(:meth:`UnifiedBuffer.current`, computed afresh) and that they hold the
data a NumPy model holds.
"""

from __future__ import annotations

import gc

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import unifiedarray as xp
from unifiedarray import MemoryPool, UnifiedBuffer
from unifiedarray._devices import CPU, Device
from unifiedarray.backends import backend_for

from .conftest import DEVICES

N = 6
SPACES = [Device.parse(d) for d in DEVICES if not d.startswith("cuda")]


def _host_data(buf: UnifiedBuffer, native: object, dev: Device) -> np.ndarray:
    out = np.empty(buf.shape, buf.dtype)
    backend_for(dev).download(native, out)
    return out


def _check(buf: UnifiedBuffer, model: np.ndarray) -> None:
    """ready/host_ready are what the state says; what they hold is the data."""
    home = buf.placement
    assert buf.ready is buf.current(home)
    assert buf.host_ready is (buf.ready if home is CPU else None)
    if buf.ready is not None:
        np.testing.assert_array_equal(_host_data(buf, buf.ready, home), model)
    np.testing.assert_array_equal(buf.to_numpy(), model)


def _step(buf: UnifiedBuffer, model: np.ndarray, op: tuple, aliases: list) -> None:  # noqa: C901  # one branch per kind of access: the model's table
    kind, dev, value = op
    if kind == "fill":
        buf.fill(value)
        model[...] = value
    elif kind == "copy_from":
        buf.copy_from(np.full(N, value, np.float32))
        model[...] = value
    elif kind == "write":
        buf.write(dev, lambda native: native.__setitem__(1, value), "test write")
        model[1] = value
    elif kind == "read":
        buf.read(dev)
    elif kind == "native":
        buf.native(dev, "test read")
    elif kind == "sync":
        if dev is CPU:
            buf.sync_to_host()
        else:
            buf.sync_to_device(dev, blocking=value > 0)  # a move that may be in flight: ready waits for it
    elif kind == "wait":
        buf.wait()
    elif kind == "host alias":
        alias = buf.host
        alias[2] = value
        model[2] = value
        aliases.append(alias)
    elif kind == "drop aliases":
        aliases.clear()
    elif kind == "lease" and dev is not CPU and not aliases:
        handle = buf.lease(dev, "test lease")
        if hasattr(handle, "__setitem__"):
            handle[3] = value
            model[3] = value
    elif kind == "mark":
        if dev in buf.allocated_devices and not aliases:
            buf.write(dev, lambda native: None, "test mark")
    elif kind == "drop copy" and dev is not CPU:
        buf.drop_copy(dev, spill=True)


_OPS = st.tuples(
    st.sampled_from(
        [
            "fill",
            "copy_from",
            "write",
            "read",
            "native",
            "sync",
            "wait",
            "host alias",
            "drop aliases",
            "lease",
            "mark",
            "drop copy",
        ]
    ),
    st.sampled_from(SPACES),
    st.integers(0, 9),
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(placement=st.sampled_from(SPACES), ops=st.lists(_OPS, max_size=14), pooled=st.booleans())
def test_ready_is_what_the_state_says_after_every_access(placement, ops, pooled):
    pool = MemoryPool() if pooled else None
    buf = (
        pool.acquire((N,), np.float32, device=placement) if pool else UnifiedBuffer((N,), np.float32, device=placement)
    )
    model = np.zeros(N, np.float32)
    aliases: list = []
    assert buf.ready is None or buf.current(placement) is buf.ready
    buf.fill(0)
    _check(buf, model)
    for op in ops:
        _step(buf, model, op, aliases)
        _check(buf, model)
    aliases.clear()
    if pool is not None:
        pool.release(buf)
        assert buf.ready is None and buf.host_ready is None
        with pytest.raises(RuntimeError, match="released"):
            buf.native(CPU, "after release")


def test_current_is_none_for_a_stale_copy_and_native_moves_it_once():
    if len(SPACES) < 2:
        pytest.skip("one memory space")
    dev = SPACES[1]
    buf = UnifiedBuffer((3,), np.float64)
    buf.fill(2.0)
    assert buf.current(dev) is None and buf.allocated(dev) is None
    with xp.track_transfers() as t:
        first = buf.native(dev, "test")
        again = buf.native(dev, "test")
    assert t.count == 1 and first is again is buf.current(dev)
    buf.write(CPU, lambda native: native.__setitem__(0, 5.0), "test")
    assert buf.current(dev) is None and buf.allocated(dev) is not None  # stale, still allocated
    assert buf.ready is buf.host_ready is buf.current(CPU)


def test_host_private_while_no_alias_and_no_other_copy():
    buf = UnifiedBuffer((4,), np.float64)
    buf.fill(1.0)
    assert buf.host_private()
    alias = buf.host
    assert not buf.host_private() and buf.host_aliased()
    del alias
    gc.collect()
    assert buf.host_private()
    if len(SPACES) > 1:
        buf.sync_to_device(SPACES[1])
        assert not buf.host_private()  # another copy: not the host's alone


def test_version_counts_writes_and_reads_past_a_live_alias():
    buf = UnifiedBuffer((2,), np.float64)
    buf.fill(0.0)
    v = buf.version
    assert buf.version == v  # a read of it is not a write
    buf.write(CPU, lambda native: native.__setitem__(0, 1.0), "test")
    assert buf.version > v
    alias = buf.host
    v = buf.version
    assert buf.version > v  # the alias may have written since
    del alias


def test_a_write_in_flight_is_waited_for_before_ready_is_given():
    if len(SPACES) < 2:
        pytest.skip("one memory space")
    dev = SPACES[1]
    buf = UnifiedBuffer((3,), np.float64, device=dev)
    buf.copy_from(np.arange(3.0))
    buf.sync_to_host(blocking=False)
    buf.wait()
    assert buf.ready is buf.current(dev) and buf.host_ready is None
