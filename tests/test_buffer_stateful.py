"""A Hypothesis stateful test of the buffer against a plain NumPy model.

MLX is the real second memory space, and the two devices of the backend
written in one file (``tests/sealed_backend.py``) two more, on every machine
(a move between them goes through the host).  The model keeps the data and which
copies are valid; after every step the buffer must hold the model's data on
every read (never stale), and the step must have moved exactly as many
copies as the model says are needed (never redundant, every move counted).

Host memory handed out is kept across steps (across moves, and written
from another thread at random times) through every export path: ``.host``,
NumPy views derived from it and from ``np.asarray``, ``memoryview``, DLPack,
pickle protocol 5 buffers and distributed frames.  The model knows which
aliases are alive (it holds them), and while one is the host copy is the
authoritative one: each device read is one more move, each device write one
more move back, and a writable MLX handle is refused; a write through an
alias always reaches the buffer.  Read-only exports refuse writes, and the
arrays rebuilt from them are copies that neither see the buffer's writes nor
write into it.  MLX leases are kept too: the model knows when each one ended
(any change of the valid set ends it), and a write through it must then
reach the buffer (live) or not (ended: the handle is detached), also when
written through NumPy's view of the handle's memory.  MLX handles given out
for reading (``read``, ``__mlx_array__``) are written through NumPy too:
never seen.  ``copy.copy`` and ``copy.deepcopy`` of the buffer are written:
never seen by it.  The version (what dask tokens key on) moves after every
write path.
Non-blocking moves are simulated where there is no GPU: the backend's
asynchronous copy leaves garbage in the destination until its event is
synchronised, so any path that reads without waiting for
``UnifiedBuffer._pending`` reads garbage.
"""

from __future__ import annotations

import contextvars
import copy
import importlib.util
import pickle
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

import unifiedarray as ua
from unifiedarray import UnifiedBuffer
from unifiedarray._array import from_buffer
from unifiedarray.backends import backend_for

from .conftest import HAS_MLX
from .sealed_backend import SealedArray, open_sealed

N = 6
DTYPES = st.sampled_from([np.float64, np.int32, np.float32, np.uint8])
INDEX = st.one_of(
    st.integers(0, N - 1),
    st.builds(slice, st.integers(0, N), st.integers(0, N)),
    st.builds(slice, st.none(), st.none(), st.integers(1, 3)),
)
# Without MLX (a GPU machine, say) the rules that need it never run, so that
# the CUDA model built on this one (test_cuda_stateful.py) runs there.
SPACES = st.sampled_from(["cpu", *(["mlx"] if HAS_MLX else []), "sealed:0", "sealed:1"])
HAS_DISTRIBUTED = importlib.util.find_spec("distributed") is not None


def _host_view(buf, key):
    return buf.host[key]


#: Writable aliases of the host copy: how each is taken, and the buffer
#: positions its elements show (element i of the alias is positions[i] of
#: the buffer).
ALIASES = {
    "buf.host": (lambda buf: buf.host, np.arange(N)),
    "buf.host[::-2]": (lambda buf: _host_view(buf, slice(None, None, -2)), np.arange(N)[::-2]),
    "np.asarray(buf.host)[2:5]": (lambda buf: np.asarray(buf.host)[2:5], np.arange(N)[2:5]),
    "np.asarray(array)": (lambda buf: np.asarray(from_buffer(buf)), np.arange(N)),
    "np.asarray(array).reshape(2, -1).T": (
        lambda buf: np.asarray(from_buffer(buf)).reshape(2, -1).T,
        np.arange(N).reshape(2, -1).T,
    ),
    "memoryview(buf.host)": (lambda buf: memoryview(buf.host), np.arange(N)),
    "memoryview(buf.host[1:])": (lambda buf: memoryview(_host_view(buf, slice(1, None))), np.arange(N)[1:]),
    "np.from_dlpack(host array)": (lambda buf: np.from_dlpack(from_buffer(buf)), np.arange(N)),
}


def host_copy(native) -> np.ndarray:
    """What a copy read from the buffer holds, as a host array."""
    return open_sealed(native) if type(native) is SealedArray else np.array(native, copy=True)


#: A second thread, for steps run away from the thread that built the state.
OTHER_THREAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ua-model")


def elsewhere(fn):
    """``fn()`` run in the other thread (in this thread's context, so that
    ``track_transfers`` counts its moves); its result or its exception."""
    return OTHER_THREAD.submit(contextvars.copy_context().run, fn).result(timeout=60)


class LandsLater:
    """The event of a simulated non-blocking copy: the data lands when it is
    synchronised (the destination held garbage until then)."""

    def __init__(self, land):
        self.land = land
        self.synchronized = 0

    def synchronize(self):
        self.synchronized += 1
        if self.synchronized == 1:
            self.land()


class BufferModel(RuleBasedStateMachine):
    @initialize(dtype=DTYPES, placement=SPACES)
    def create(self, dtype, placement):
        self.buf = UnifiedBuffer((N,), dtype=dtype, device=placement)
        self.dtype = np.dtype(dtype)
        self.placement = placement
        self.data = np.zeros(N, dtype)
        self.epoch = 0  # bumped whenever the leases handed out so far end
        self._valid: set[str] = set()
        self.allocated: set[str] = set()
        self.aliases: list = []  # (name, writable alias of the host copy, its buffer positions), kept alive
        self.frames: list = []  # read-only exports (pickle-5 buffers, distributed frames), kept alive
        self.rebuilt: list = []  # (array rebuilt from an export, its own model data)
        self.mlx_leases: list = []
        self.mlx_memory_exported = False  # frames of MLX's copy itself were taken (kept alive in self.frames)

    @property
    def valid(self) -> frozenset[str]:
        return frozenset(self._valid)  # immutable: `self.valid |= ...` goes through the setter

    @valid.setter
    def valid(self, new) -> None:
        # The buffer ends every lease when its valid set changes.
        if set(new) != self._valid:
            self.epoch += 1
        self._valid = set(new)

    # -- the model -----------------------------------------------------------
    @property
    def aliased(self) -> bool:
        """Whether a writable alias of the host copy is alive: the host copy
        is then the only valid one, re-synced to a device on each read."""
        return bool(self.aliases)

    def needed_moves_for_read(self, dev):
        if self.aliased:
            return 0 if dev == "cpu" else 1
        if not self.allocated or dev in self.valid:
            return 0
        return 1 if ("cpu" in self.valid or dev == "cpu") else 2

    def model_read(self, dev):
        n = self.needed_moves_for_read(dev)
        if self.aliased:
            self.allocated.add(dev)  # a device copy for this read only: the host stays the only valid copy
            return n
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

    @precondition(lambda self: HAS_MLX)
    @rule(idx=INDEX, v=st.integers(0, 100))
    def write_through_mlx_handle(self, idx, v):
        import mlx.core as mx

        if self.refuses_device_handle(lambda: self.buf.mlx):
            return
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
        np.testing.assert_array_equal(host_copy(got), self.data)

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
        dev = self.placement if not self.allocated else "cpu" if "cpu" in self.valid else next(iter(self.valid))
        self.allocated.add(dev)
        self.valid = {dev}
        before = self.buf.version
        self.step(0, lambda: self.buf.fill(self.value(v).item()))
        self.data[:] = self.value(v)
        assert self.buf.version > before

    @rule(v=st.integers(0, 100), on=SPACES)
    def copy_from(self, v, on):
        src = (np.arange(N) * v % 5).astype(self.dtype)
        if on == "mlx":
            import mlx.core as mx

            from unifiedarray.backends.mlx_backend import mx_dtype

            src_arr = mx.array(src, dtype=mx_dtype(self.dtype))
        elif on.startswith("sealed"):
            src_arr = SealedArray(src.copy(), ua.Device.parse(on))
        else:
            src_arr = src
        self.copy_in(on, lambda: self.buf.copy_from(src_arr))
        self.data[:] = src

    def copy_in(self, on, write):
        """``write()`` replaces all the data on ``on``: nothing moves, except
        the written copy back to the host while an alias lives."""
        self.allocated.add(on)
        back = self.aliased and on != "cpu"
        if not back:
            self.valid = {on}
        self.step(1 if back else 0, write)

    def refuses_device_handle(self, take):
        """While a host alias lives a writable device handle is refused,
        with nothing moved or marked; True then."""
        if not self.aliased:
            return False
        with pytest.raises(BufferError, match="alias"):
            self.step(0, take)
        return True

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
        self.epoch += 1  # a mark ends the leases even when the valid set stays

    # -- host memory handed out, kept across steps ------------------------------------
    @rule(name=st.sampled_from(sorted(ALIASES)))
    def take_alias(self, name):
        take, positions = ALIASES[name]
        if name == "np.from_dlpack(host array)" and self.placement != "cpu":
            if self.placement != "mlx":
                return  # NumPy takes no CUDA capsule
            # DLPack hands out the copy on the array's own device: a copy of
            # the MLX copy.  (Not kept across steps: NumPy arrays imported
            # from MLX's DLPack, kept alive, have crashed the interpreter in a
            # later garbage collection in this model; see the report of #20.)
            expected = self.model_read("mlx")
            copied = self.step(expected, lambda: take(self.buf))
            np.testing.assert_array_equal(copied, self.data)
            host = self.buf._copies.get(ua.Device.parse("cpu"))
            assert host is None or not np.shares_memory(copied, host)
            return
        expected = self.model_write("cpu")  # an export is a host write
        alias = self.step(expected, lambda: take(self.buf))
        np.testing.assert_array_equal(np.asarray(alias), self.data[positions])
        self.aliases.append((name, alias, positions))

    @precondition(lambda self: self.aliases)
    @rule(pick=st.integers(0, 10), k=st.integers(0, N - 1), v=st.integers(0, 100), other_thread=st.booleans())
    def write_through_alias(self, pick, k, v, other_thread):
        _, alias, positions = self.aliases[pick % len(self.aliases)]
        where = np.unravel_index(k % positions.size, positions.shape)
        value = self.value(v)

        def write():
            if isinstance(alias, memoryview):
                alias[where] = value.item()
            else:
                alias[where] = value

        with ua.track_transfers() as t:
            elsewhere(write) if other_thread else write()
        self.data[positions[where]] = value
        assert t.count == 0 and self.buf.valid_devices == self.valid

    @precondition(lambda self: self.aliases)
    @rule()
    def aliases_see_every_write(self):
        # The host copy is authoritative while they live: device writes reached it.
        with ua.track_transfers() as t:
            for _, alias, positions in self.aliases:
                np.testing.assert_array_equal(np.asarray(alias), self.data[positions])
        assert t.count == 0

    @precondition(lambda self: self.aliases)
    @rule(pick=st.integers(0, 10))
    def drop_alias(self, pick):
        del self.aliases[pick % len(self.aliases)]  # the last one gone, the buffer is as if never exported

    @rule(how=st.sampled_from(["pickle 5 out of band", "distributed"]))
    def export_frames(self, how):
        """Read-only exports: frames of live memory cannot be written (a
        frame that is a copy may be), and the array rebuilt from them in
        this process is a copy."""
        if how == "distributed" and not HAS_DISTRIBUTED:
            return
        array = from_buffer(self.buf)
        if self.placement == "cpu" or "cpu" in self.valid or self.aliased:
            expected = self.model_read("cpu")  # a read-only view of the host copy
        elif self.placement == "mlx":
            expected = self.model_read("mlx")  # MLX's memory itself
            self.mlx_memory_exported = True  # the frames pin MLX's copy (see evict_the_mlx_copy)
        else:
            expected = self.model_read(self.placement) + 1  # a temporary host copy of the GPU's
        expected += self.placement != "cpu"  # the rebuilt array's upload

        def export():
            if how == "distributed":
                from distributed.protocol import deserialize, serialize

                header, frames = serialize(array)
                return frames, deserialize(header, frames)
            frames: list = []
            rebuilt = pickle.loads(pickle.dumps(array, protocol=5, buffer_callback=frames.append), buffers=frames)
            return [f.raw() for f in frames], rebuilt

        frames, rebuilt = self.step(expected, export)
        np.testing.assert_array_equal(np.asarray(rebuilt), self.data)
        assert rebuilt.device == array.device
        self.frames.extend(memoryview(f) for f in frames)
        self.rebuilt.append((rebuilt, self.data.copy()))

    @precondition(lambda self: self.frames)
    @rule(pick=st.integers(0, 10))
    def write_through_a_frame(self, pick):
        frame = self.frames[pick % len(self.frames)].cast("B")
        if frame.nbytes:
            try:
                frame[0] = 0xA5  # live memory refuses this; a frame that is a copy takes it ...
            except TypeError as exc:
                assert "read-only" in str(exc)
            # ... and the buffer must not see it (every later read checks)

    @precondition(lambda self: self.rebuilt)
    @rule(pick=st.integers(0, 10), v=st.integers(0, 100))
    def rebuilt_arrays_are_copies(self, pick, v):
        arr, data = self.rebuilt[pick % len(self.rebuilt)]
        np.testing.assert_array_equal(np.asarray(arr), data)  # the buffer's writes did not reach it
        if getattr(arr, "flags", None) is None or arr.flags.writeable:  # (NumPy imports MLX's DLPack read-only)
            arr[0] = data[0] = self.value(v)  # nor do its writes reach the buffer (checked by every read)

    # -- MLX leases kept across steps ----------------------------------------------------
    @precondition(lambda self: HAS_MLX)
    @rule()
    def take_mlx_lease(self):
        if self.refuses_device_handle(lambda: self.buf.mlx):
            return
        expected = self.model_write("mlx")
        handle = self.step(expected, lambda: self.buf.mlx)
        self.mlx_leases.append((handle, self.epoch))

    @precondition(lambda self: self.mlx_leases)
    @rule(pick=st.integers(0, 10), idx=INDEX, v=st.integers(0, 100), other_thread=st.booleans())
    def write_kept_mlx_lease(self, pick, idx, v, other_thread):
        import mlx.core as mx

        handle, epoch = self.mlx_leases[pick % len(self.mlx_leases)]
        if isinstance(idx, slice) and len(range(*idx.indices(N))) == 0:
            return

        def write():
            handle[idx] = mx.array(self.value(v))

        before = self.buf.version
        with ua.track_transfers() as t:
            elsewhere(write) if other_thread else write()
        if epoch == self.epoch:  # a live lease: the write reaches the buffer
            self.data[idx] = self.value(v)
            assert self.buf.version > before  # and the version (what dask tokens key on) moves
        # an ended lease is detached: the write changed only the handle
        assert t.count == 0 and self.buf.valid_devices == self.valid

    @precondition(lambda self: self.mlx_leases)
    @rule(pick=st.integers(0, 10), k=st.integers(0, N - 1), v=st.integers(0, 100))
    def write_kept_mlx_lease_through_numpy(self, pick, k, v):
        # MLX's arrays export their memory writable through the buffer
        # protocol: a live lease's memory is the buffer's copy (the write
        # is seen), an ended lease's is not (it was detached: a copy).
        handle, epoch = self.mlx_leases[pick % len(self.mlx_leases)]
        before = self.buf.version
        with ua.track_transfers() as t:
            np.asarray(handle)[k] = self.value(v)
        if epoch == self.epoch:
            self.data[k] = self.value(v)
            assert self.buf.version > before  # a live lease may write: the version moves on every read
        assert t.count == 0 and self.buf.valid_devices == self.valid

    @precondition(lambda self: HAS_MLX and "mlx" in self.allocated and not self.aliased)
    @rule()
    def evict_the_mlx_copy(self):
        # What a device memory limit does to make room (UnifiedBuffer.drop_copy,
        # spilling): a copy lent as a live lease stays (its writes must keep
        # reaching the buffer); else a device-only copy moves to the host
        # first (one move), and the copy goes.
        if self.buf._pending is not None:
            return  # a move in flight: never evicted (see drop_copy)
        mlx = ua.Device.parse("mlx")
        live = any(epoch == self.epoch for _, epoch in self.mlx_leases) and self.valid == {"mlx"}
        spill = not live and "mlx" in self.valid and "cpu" not in self.valid
        if live:
            assert self.step(0, lambda: self.buf.drop_copy(mlx, spill=True)) is False
            assert "mlx" in self.buf.allocated_devices
            return
        if self.mlx_memory_exported and self.buf._leased == mlx:
            # A frame of MLX's memory keeps the leased copy referred to, as a
            # handle would: the buffer cannot tell them apart, so it keeps
            # the copy (dropping it would free nothing while the frame
            # lives).  Either way nothing is lost: every later read checks.
            with ua.track_transfers() as t:
                dropped = self.buf.drop_copy(mlx, spill=True)
            if not dropped:
                assert t.count == 0 and self.buf.valid_devices == self.valid
                return
            assert t.count == (1 if spill else 0)
            kept = {"cpu"} if spill else set()
            self.valid = (self.valid | kept) - {"mlx"}
            self.allocated = (self.allocated | kept) - {"mlx"}
            assert self.buf.valid_devices == self.valid
            return
        kept = {"cpu"} if spill else set()
        self.valid = (self.valid | kept) - {"mlx"}
        self.allocated = (self.allocated | kept) - {"mlx"}
        assert self.step(1 if spill else 0, lambda: self.buf.drop_copy(mlx, spill=True)) is True

    @precondition(lambda self: HAS_MLX)
    @rule(how=st.sampled_from(["read", "__mlx_array__"]), k=st.integers(0, N - 1), v=st.integers(0, 100))
    def write_mlx_read_handle_through_numpy(self, how, k, v):
        # A handle given out for reading is a copy: writes through NumPy's
        # view of its memory never reach the buffer.
        if how == "read":
            expected = self.model_read("mlx")
            handle = self.step(expected, lambda: self.buf.read("mlx"))
        else:
            expected = self.model_read("mlx")
            handle = self.step(expected, lambda: from_buffer(self.buf).__mlx_array__())
        np.asarray(handle)[k] = self.value(v + 1)  # never seen: the next reads check the model's data

    @rule(deep=st.booleans(), v=st.integers(0, 100))
    def copy_the_buffer(self, deep, v):
        # copy.copy and copy.deepcopy give a buffer of its own: no move, the
        # same data, and writes to either never reach the other.
        other = self.step(0, lambda: copy.deepcopy(self.buf) if deep else copy.copy(self.buf))
        assert other.shape == self.buf.shape and other.dtype == self.buf.dtype
        if not self.allocated:
            assert not other.valid_devices
            return
        np.testing.assert_array_equal(other.to_numpy(), self.data)
        other.fill(self.value(v + 3).item())
        other.host[0] = self.value(v + 5)  # the original's reads (every later step) must not see these

    # -- steps in another thread -------------------------------------------------------
    @rule(dev=SPACES)
    def read_in_other_thread(self, dev):
        expected = self.model_read(dev)
        got = self.step(expected, lambda: elsewhere(lambda: host_copy(self.buf.read(dev))))
        np.testing.assert_array_equal(got, self.data)

    @rule(v=st.integers(0, 100))
    def fill_in_other_thread(self, v):
        dev = self.placement if not self.allocated else ("cpu" if "cpu" in self.valid else next(iter(self.valid)))
        self.allocated.add(dev)
        self.valid = {dev}
        self.step(0, lambda: elsewhere(lambda: self.buf.fill(self.value(v).item())))
        self.data[:] = self.value(v)

    # -- non-blocking moves, simulated ------------------------------------------------
    @precondition(lambda self: "cpu" not in self.valid and "mlx" in self.valid)
    @rule()
    def sync_to_host_nonblocking(self):
        mlx = backend_for("mlx")

        def download_async(native, out):
            out[...] = 99  # the copy has not landed yet
            return LandsLater(lambda: mlx.download(native, out))

        expected = self.model_read("cpu")
        mlx.download_async = download_async
        try:
            self.step(expected, lambda: self.buf.sync_to_host(blocking=False))
        finally:
            del mlx.download_async
        assert isinstance(self.buf._pending, LandsLater)

    @precondition(lambda self: HAS_MLX and "mlx" not in self.valid and "cpu" in self.valid and not self.aliases)
    @rule()
    def sync_to_mlx_nonblocking(self):
        import mlx.core as mx

        mlx = backend_for("mlx")
        buf = self.buf

        def upload_async(host, device, into=None):
            real = mlx.upload(host, device)

            def land():
                buf._copies[ua.Device.parse("mlx")] = real

            return mx.full(host.shape, 99, dtype=real.dtype), LandsLater(land)

        expected = self.model_read("mlx")
        mlx.upload_async = upload_async
        try:
            self.step(expected, lambda: self.buf.sync_to_device("mlx", blocking=False))
        finally:
            del mlx.upload_async
        assert isinstance(self.buf._pending, LandsLater)

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
