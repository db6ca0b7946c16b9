"""The buffer's state machine: transitions, leases, dtypes, errors, threads."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import unifiedarray as ua
from unifiedarray import BufferState, UnifiedBuffer, _buffer
from unifiedarray._devices import Device

from .conftest import DEVICES, needs_mlx

S = BufferState


def moves(fn):
    with ua.track_transfers() as t:
        fn()
    return t.count


# -- the documented transition table (device = MLX, the real second space) ----


@needs_mlx
class TestTransitions:
    def test_fresh_buffer_is_uninitialized(self):
        assert UnifiedBuffer((3,)).state is S.UNINITIALIZED

    def test_host_access_gives_host_only(self):
        buf = UnifiedBuffer((3,))
        _ = buf.host  # taking the handle is the write
        assert buf.state is S.HOST_ONLY

    def test_first_host_write_of_fresh_buffer_is_host_only(self):
        # The design documents disagree (table: HOST_ONLY; one example:
        # HOST_DIRTY).  We chose HOST_ONLY: nothing else exists to be stale.
        buf = UnifiedBuffer((3,))
        buf.host[:] = 1.0
        assert buf.state is S.HOST_ONLY

    def test_device_read_from_host_only_synchronizes(self):
        buf = UnifiedBuffer((3,))
        buf.host[:] = 1.0
        assert moves(lambda: buf.read("mlx")) == 1
        assert buf.state is S.SYNCHRONIZED

    def test_host_modified_gives_host_dirty(self):
        buf = UnifiedBuffer((3,))
        buf.host[:] = 1.0
        buf.sync_to_device("mlx")
        buf.host[0] = 5.0
        assert buf.state is S.HOST_DIRTY

    def test_device_read_from_host_dirty_synchronizes(self):
        buf = UnifiedBuffer((3,))
        buf.read("mlx")
        buf.host[:] = 2.0
        assert buf.state is S.HOST_DIRTY
        assert moves(lambda: buf.sync_to_device("mlx")) == 1
        assert buf.state is S.SYNCHRONIZED
        assert np.asarray(buf.read("mlx")).tolist() == [2.0, 2.0, 2.0]

    def test_device_modified_gives_device_dirty(self):
        buf = UnifiedBuffer((3,))
        buf.host[:] = 1.0
        m = buf.mlx  # a writable handle counts as a device write
        m[0] = 9.0
        assert buf.state is S.DEVICE_DIRTY

    def test_host_read_from_device_dirty_synchronizes(self):
        buf = UnifiedBuffer((3,))
        buf.host[:] = 1.0
        buf.mlx[1] = 7.0
        assert moves(lambda: buf.to_numpy()) == 1
        assert buf.state is S.SYNCHRONIZED
        assert buf.to_numpy().tolist() == [1.0, 7.0, 1.0]

    def test_device_only(self):
        buf = UnifiedBuffer((2,), device="mlx")
        buf.fill(3.0)
        assert buf.state is S.DEVICE_ONLY
        assert buf.allocated_devices == {"mlx"}

    def test_repeated_reads_move_nothing(self):
        buf = UnifiedBuffer((4,))
        buf.host[:] = 1.0
        buf.read("mlx")
        assert moves(lambda: [buf.read("mlx"), buf.to_numpy(), buf.read("mlx"), buf.to_numpy()]) == 0


# -- writes are tracked without the user ---------------------------------------


@needs_mlx
class TestLeases:
    def test_forgotten_mark_host_dirty_is_not_stale(self):
        # The original code served stale data here.
        buf = UnifiedBuffer((3,))
        buf.host[:] = 1.0
        buf.read("mlx")
        buf.host[:] = 2.0  # no mark_host_dirty()
        assert np.asarray(buf.read("mlx")).tolist() == [2.0, 2.0, 2.0]

    def test_mlx_write_reaches_host(self):
        # The original code kept one state for all copies: an MLX write never
        # reached the host.
        buf = UnifiedBuffer((3,))
        buf.host[:] = 1.0
        m = buf.mlx
        m[2] = 5.0
        assert buf.to_numpy().tolist() == [1.0, 1.0, 5.0]

    def test_kept_host_handle_stays_write_through(self):
        # (It used to turn read-only here; its plain NumPy views did not.)
        buf = UnifiedBuffer((3,))
        h = buf.host
        h[0] = 1.0
        buf.read("mlx")  # the MLX read re-syncs from the host: h may write at any time
        h[0] = 2.0
        assert np.asarray(buf.read("mlx")).tolist() == [2.0, 0.0, 0.0]
        assert buf.valid_devices == {"cpu"}  # while h lives the host is the authoritative copy

    def test_expired_mlx_handle_is_detached(self):
        buf = UnifiedBuffer((3,))
        m = buf.mlx
        m[0] = 1.0
        buf.to_numpy()  # the lease ends
        m[1] = 99.0  # too late: must not reach the buffer, nor make it inconsistent
        assert buf.to_numpy().tolist() == [1.0, 0.0, 0.0]
        assert np.asarray(buf.read("mlx")).tolist() == [1.0, 0.0, 0.0]

    def test_to_numpy_is_read_only_and_marks_nothing(self):
        buf = UnifiedBuffer((2,))
        buf.read("mlx")
        view = buf.to_numpy()
        assert not view.flags.writeable
        assert buf.state is S.SYNCHRONIZED

    def test_fill_and_copy_from_move_nothing(self):
        buf = UnifiedBuffer((3,))
        buf.mlx[0] = 1.0  # MLX holds the only valid copy
        assert moves(lambda: buf.fill(4.0)) == 0
        assert moves(lambda: buf.copy_from(np.arange(3))) == 0
        assert buf.to_numpy().tolist() == [0.0, 1.0, 2.0]

    def test_copy_from_mlx_array_stays_on_mlx(self):
        import mlx.core as mx

        buf = UnifiedBuffer((3,), dtype=np.float64)
        buf.host[:] = 1.0
        assert moves(lambda: buf.copy_from(mx.array([1.0, 2.0, 3.0], dtype=mx.float64))) == 0
        assert buf.valid_devices == {"mlx"}
        assert buf.to_numpy().tolist() == [1.0, 2.0, 3.0]

    def test_mark_device_dirty_for_outside_writes(self):
        buf = UnifiedBuffer((2,), device="mlx")
        buf.host[:] = 1.0
        buf.sync_to_device()
        buf.mark_device_dirty()
        assert buf.state is S.DEVICE_DIRTY
        buf.mark_host_dirty()
        assert buf.state is S.HOST_DIRTY

    def test_mark_without_copy_is_an_error(self):
        buf = UnifiedBuffer((2,))
        buf.fill(0)
        with pytest.raises(RuntimeError, match="no copy on mlx"):
            buf.mark_mlx_dirty()


# -- dtypes are kept exactly ---------------------------------------------------


@needs_mlx
@pytest.mark.parametrize(
    "dtype", ["bool", "int8", "uint16", "int64", "uint64", "float16", "float32", "float64", "complex64"]
)
def test_dtype_round_trip_through_mlx(dtype):
    buf = UnifiedBuffer((5,), dtype=dtype)
    data = (np.arange(5) * 3 - 4).astype(dtype)
    buf.copy_from(data)
    m = buf.mlx
    from unifiedarray.backends.mlx_backend import np_dtype

    assert np_dtype(m.dtype) == np.dtype(dtype)
    out = buf.to_numpy()
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out, data)


@needs_mlx
def test_float64_is_not_silently_float32():
    buf = UnifiedBuffer((1,), dtype=np.float64)
    buf.host[0] = 1.0 + 2**-40  # not representable in float32
    buf.read("mlx")
    buf.mark_mlx_dirty()
    assert buf.to_numpy()[0] == 1.0 + 2**-40


@needs_mlx
def test_complex128_on_mlx_is_a_clear_error():
    buf = UnifiedBuffer((2,), dtype=np.complex128)
    buf.host[:] = 1j
    with pytest.raises(TypeError, match=r"mlx.*complex128.*UnifiedBuffer\.read"):
        buf.read("mlx")
    assert buf.state is S.HOST_ONLY  # nothing corrupted
    with pytest.raises(TypeError, match="complex128"):
        UnifiedBuffer((2,), dtype=np.complex128, device="mlx")


# -- errors and facts -------------------------------------------------------------


def test_bad_shape_and_copy_errors():
    with pytest.raises(ValueError):
        UnifiedBuffer((-1,))
    with pytest.raises(TypeError):
        UnifiedBuffer("abc")  # type: ignore[arg-type]
    buf = UnifiedBuffer((3,), dtype=np.int32)
    with pytest.raises(ValueError, match="shape"):
        buf.copy_from(np.zeros(4))
    with pytest.raises(TypeError, match="cast"):
        buf.copy_from(np.zeros(3))  # float into int: a change of kind
    assert buf.state is S.UNINITIALIZED


def test_unknown_device_is_a_value_error():
    with pytest.raises(ValueError, match="unknown device"):
        UnifiedBuffer((1,), device="tpu")


def test_missing_cuda_is_a_clear_value_error():
    if ua.backends.registry()["cuda"].available:
        pytest.skip("CUDA present")
    with pytest.raises(ValueError, match="cuda:0 is not available"):
        UnifiedBuffer((1,), device="cuda:0")


def test_metal_off_macos_is_a_clear_error():
    import platform

    if platform.system() == "Darwin":
        pytest.skip("this is a Mac")
    with pytest.raises(RuntimeError, match=r"Metal|MLX is not installed"):  # without MLX, that is the reason
        _ = UnifiedBuffer((1,)).metal


def test_device_without_accelerator_is_the_host_data():
    if ua.backends.registry()["cuda"].available:
        pytest.skip("CUDA present: .device is the GPU copy")
    buf = UnifiedBuffer((3,))
    buf.device[:] = 4.0
    assert buf.to_numpy().tolist() == [4.0, 4.0, 4.0]
    assert buf.state is S.HOST_ONLY


def test_facts():
    buf = UnifiedBuffer((2, 3), dtype=np.float64)
    assert buf.shape == (2, 3) and buf.dtype == np.float64 and buf.nbytes == 48
    assert not buf.is_pinned
    assert UnifiedBuffer((1,), pinned=True).pinned


# -- threads -------------------------------------------------------------------------


@needs_mlx
def test_concurrent_readers_move_once():
    buf = UnifiedBuffer((1 << 16,), dtype=np.float64)
    buf.host[:] = np.arange(1 << 16)
    barrier = threading.Barrier(8)
    errors = []

    def reader():
        barrier.wait()
        try:
            out = np.asarray(buf.read("mlx"))
            assert out[-1] == (1 << 16) - 1
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    with ua.track_transfers():
        before = ua.transfer_totals.snapshot()[0]
        threads = [threading.Thread(target=reader) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        after = ua.transfer_totals.snapshot()[0]
    assert not errors
    assert after - before == 1


@needs_mlx
def test_concurrent_writers_and_readers_never_corrupt():
    buf = UnifiedBuffer((1000,), dtype=np.int64)
    buf.fill(0)

    def writer(value):
        for _ in range(50):
            buf.fill(value)
            buf.read("mlx")

    threads = [threading.Thread(target=writer, args=(v,)) for v in (1, 2, 3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    host = buf.to_numpy()
    # Whole-buffer fills are atomic under the buffer's lock: never a mixture.
    assert len(set(host.tolist())) == 1
    assert np.array_equal(np.asarray(buf.read("mlx")), host)


# -- regressions found in review ---------------------------------------------------


@needs_mlx
def test_views_derived_from_a_host_handle_keep_writing_through():
    buf = UnifiedBuffer((4,), dtype=np.float32)
    buf.fill(1.0)
    h = buf.host
    derived = [h[1:], h.reshape(2, 2), h[::2], h.reshape(2, 2).T, np.asarray(h)]
    del h
    buf.read("mlx")
    for i, v in enumerate(derived):
        v[...] = float(i)  # each write reaches the buffer: seen by the next MLX read
        assert np.asarray(buf.read("mlx")).tolist() == buf.to_numpy().tolist()
    assert buf.to_numpy().tolist() == [4.0, 4.0, 4.0, 4.0]


@needs_mlx
def test_read_on_mlx_hands_out_a_detached_handle():
    buf = UnifiedBuffer((3,), dtype=np.float32)
    buf.fill(1.0)
    r = buf.read("mlx")
    r[0] = 42.0
    assert buf.state is S.SYNCHRONIZED
    assert np.asarray(buf.read("mlx")).tolist() == [1.0, 1.0, 1.0]


def test_host_handles_taken_and_dropped_leave_nothing_behind():
    buf = UnifiedBuffer((4,))
    for i in range(1000):
        buf.host[i % 4] = i
    assert not buf.host_aliased() and buf._anchor is None


@needs_mlx
def test_in_place_operator_on_a_host_handle_keeps_writing_through():
    buf = UnifiedBuffer((2,), dtype=np.int64)
    buf.fill(0)
    h = buf.host
    h += 1
    buf.read("mlx")
    h += 1
    assert buf.to_numpy().tolist() == [2, 2]
    assert np.asarray(buf.read("mlx")).tolist() == [2, 2]


@needs_mlx
def test_a_move_never_marks_a_copy_valid_that_an_alias_wrote_during_it(monkeypatch):
    # A write through a host alias while a move copies (other threads run
    # then) lands in the host copy only: the MLX copy must not stay valid
    # with the data from before it.
    from unifiedarray.backends import backend_for

    buf = UnifiedBuffer((2,), dtype=np.float32)
    buf.fill(1.0)
    h = buf.host
    mlx = backend_for("mlx")
    upload = mlx.upload

    def racing_upload(host, device, into=None):
        out = upload(host, device, into)
        h[0] = 5.0  # what another thread could do right after the copy
        return out

    monkeypatch.setattr(mlx, "upload", racing_upload)
    buf.read("mlx")
    monkeypatch.undo()
    assert buf.to_numpy().tolist() == np.asarray(buf.read("mlx")).tolist() == [5.0, 1.0]


@needs_mlx
def test_array_writes_keep_a_live_mlx_lease():
    import unifiedarray as xp

    x = xp.zeros(3, device="mlx")
    h = x.buffer.mlx
    x[1] = 1.0  # an MLX write: MLX stays the only valid copy, the lease stays valid
    h[2] = 5.0
    x[0] = 2.0
    assert np.asarray(x).tolist() == [2.0, 1.0, 5.0]


@needs_mlx
def test_apply_write_counts_a_write_and_keeps_other_devices_stale():
    from unifiedarray._devices import CPU, MLX

    buf = UnifiedBuffer((3,), dtype=np.float32)
    buf.fill(1.0)
    buf.read("mlx")
    version = buf._version
    assert moves(lambda: buf.write(MLX, lambda n: n.__setitem__(0, 4.0), "test")) == 0
    assert buf.valid_devices == {"mlx"} and buf._version == version + 1
    assert moves(lambda: buf.write(CPU, lambda n: n.__setitem__(1, 6.0), "test")) == 1
    assert buf.valid_devices == {"cpu"}
    assert np.asarray(buf.read("mlx")).tolist() == [4.0, 6.0, 1.0]


@needs_mlx
def test_one_element_negative_stride_view_moves_to_mlx():
    import unifiedarray as xp

    x = xp.arange(6.0)
    for view, expected in ((x[2::-3], [2.0]), (x[::-2], [5.0, 3.0, 1.0]), (x[5:4:-1], [5.0])):
        assert np.asarray(view.to_device("mlx")).tolist() == expected
    from unifiedarray.backends import backend_for

    out = backend_for("mlx").upload(np.arange(6.0)[2::-3], ua.Device.parse("mlx"))
    assert np.asarray(out).tolist() == [2.0]


def test_an_adopted_buffer_makes_one_copies_dict_whatever_the_threads():
    """A result's buffer (``_buffer.adopt``) makes its dict of copies on
    first use: threads that first touch it at once all get the same dict,
    holding the adopted copy, and a copy added through one is seen by all."""
    from unifiedarray import _buffer
    from unifiedarray._devices import CPU

    for _ in range(50):
        native = np.arange(4.0)
        buf = _buffer.adopt(native, CPU, native.dtype)
        assert buf.ready is native and buf.host_ready is native
        barrier = threading.Barrier(4)
        seen = []

        def touch(buf=buf, barrier=barrier, seen=seen):
            barrier.wait()
            seen.append(buf._copies)

        threads = [threading.Thread(target=touch) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert all(d is seen[0] for d in seen) and seen[0] == {CPU: native}
        assert buf.state is BufferState.HOST_ONLY and buf.to_numpy().tolist() == [0.0, 1.0, 2.0, 3.0]
        buf.retire()  # every copy dropped: the adopted one too
        assert buf._copies == {} and buf.ready is None and buf.host_ready is None


# -- a scalar read (UnifiedBuffer.element): the element alone ----------------------


def test_a_registry_change_while_a_devices_scalar_reader_is_made_leaves_it_unkept(monkeypatch):
    """The backend a device's scalar reads use is kept per device and
    forgotten when the registry changes; one asked for while it changes is
    used once and not kept (it may be the backend just replaced)."""
    device = Device.parse("sealed:0")
    asked_for = _buffer.backend_for

    def asked_while_the_registry_changes(dev):
        found = asked_for(dev)
        _buffer._forget_element_readers()  # what a register() in another thread does meanwhile
        return found

    monkeypatch.setattr(_buffer, "backend_for", asked_while_the_registry_changes)
    _buffer._forget_element_readers()
    reader = _buffer._element_reader(device)
    assert reader[0] == "sealed:0" and device not in _buffer._ELEMENT_READERS
    monkeypatch.setattr(_buffer, "backend_for", asked_for)
    assert _buffer._element_reader(device) == reader and device in _buffer._ELEMENT_READERS


@pytest.mark.parametrize("device", DEVICES)
def test_a_scalar_read_copies_the_element_out_of_a_current_copy_and_changes_nothing(device):
    buf = ua.asarray(np.float32(2.5), device=device).buffer
    before = buf.valid_devices
    with ua.track_transfers() as t:
        assert buf.element("float()") == 2.5 and buf.element("float()") == 2.5
    moved = [(r.source, r.target, r.nbytes, r.reason) for r in t.records]
    assert moved == ([] if device == "cpu" else [(device, "cpu", 4, "float()")] * 2)
    assert buf.valid_devices == before  # no host copy made
    if device != "cpu":
        assert moves(buf.to_numpy) == 1  # the array's first host copy is a move of its own
        assert moves(lambda: buf.element("float()")) == 0  # then read there


@pytest.mark.parametrize("device", [d for d in DEVICES if d != "cpu"])
def test_a_scalar_read_of_a_stale_host_copy_reads_the_device_and_leaves_the_host_stale(device):
    x = ua.asarray(np.float32(1.0), device=device)
    buf = x.buffer
    np.asarray(x)  # a host copy, current
    x[...] = 4.0  # a write on the device: the host copy is stale (DEVICE_DIRTY)
    dev = ua.Device.parse(device)
    assert buf.valid_devices == {dev} and buf.allocated_devices == {dev, ua.Device.parse("cpu")}
    with ua.track_transfers() as t:
        assert float(x) == 4.0
    assert [(r.source, r.nbytes) for r in t.records] == [(device, 4)]
    assert buf.valid_devices == {dev}  # the host copy stays stale ...
    assert moves(lambda: np.testing.assert_array_equal(np.asarray(x), 4.0)) == 1  # ... until the array is read there


@pytest.mark.parametrize("device", [d for d in DEVICES if d != "cpu"])
def test_a_forbidden_scalar_read_raises_and_changes_nothing(device):
    buf = ua.asarray(np.int16(7), device=device).buffer
    forbidden = pytest.raises(ua.TransferError, match=r"device_to_host move of 2 bytes .* in float\(\)")
    with ua.transfer_guard(device_to_host="disallow"), ua.track_transfers() as t, forbidden:
        buf.element("float()")
    assert t.count == 0 and buf.valid_devices == frozenset({ua.Device.parse(device)})
    buf.host  # noqa: B018  (a host write: the host copy is current, and the only one)
    with ua.transfer_guard(device_to_host="disallow"):
        assert buf.element("float()") == 7  # read there: nothing to judge


@pytest.mark.parametrize("device", DEVICES)
def test_a_scalar_read_while_a_host_alias_lives_reads_the_host(device):
    buf = ua.asarray(np.float64(1.0), device=device).buffer
    alias = buf.export_host("test")
    alias[...] = 9.0  # a write the buffer cannot see, but knows may happen
    assert moves(lambda: buf.element("float()")) == 0 and buf.element("float()") == 9.0
    assert buf.host_aliased()
    del alias


# -- who may write a copy's memory: read handles are copies, leases are seen ---------------
def _both_current(buf: UnifiedBuffer) -> None:
    buf.read("mlx")
    buf.sync_to_host()
    assert buf.state is BufferState.SYNCHRONIZED  # the state in which an unseen write goes stale


@needs_mlx
@pytest.mark.parametrize("take", ["read", "ended lease"])
def test_an_mlx_handle_written_through_numpy_never_changes_the_buffer(take):
    # MLX's arrays export their memory writable through the buffer protocol:
    # a handle on the buffer's own memory let np.asarray(h)[0] = 99 rewrite
    # the MLX copy while the host copy still counted as current.
    buf = UnifiedBuffer((3,), dtype=np.float32, device="mlx")
    buf.fill(0.0)
    if take == "read":
        _both_current(buf)
        handle = buf.read("mlx")
    else:
        handle = buf.mlx
        _both_current(buf)  # the lease ends: the host copy became valid
    np.asarray(handle)[0] = 99.0
    assert buf.to_numpy().tolist() == [0.0, 0.0, 0.0]
    assert np.asarray(buf.read("mlx")).tolist() == [0.0, 0.0, 0.0]


@needs_mlx
def test_a_live_mlx_lease_written_through_numpy_is_seen_element_by_element():
    # A fill leaves MLX one element read with stride 0 (a broadcast): a
    # NumPy write through the lease changed every element.
    buf = UnifiedBuffer((4,), dtype=np.float32, device="mlx")
    lease = buf.mlx
    buf.fill(1.0)
    np.asarray(lease)[0] = 0.0
    assert buf.to_numpy().tolist() == [0.0, 1.0, 1.0, 1.0]


@needs_mlx
def test_copy_from_an_mlx_array_keeps_none_of_its_memory():
    import mlx.core as mx

    buf = UnifiedBuffer((3,), dtype=np.float32, device="mlx")
    src = mx.zeros((3,))
    buf.copy_from(src)
    np.asarray(src)[0] = 7.0  # the caller's array, written after the copy
    assert np.asarray(buf.read("mlx")).tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("how", ["copy", "deepcopy"])
def test_a_copied_buffer_shares_nothing_with_the_original(device, how):
    # copy.copy once shared the original's copies with a validity set of its
    # own: a write through the copy left the original's host and MLX copies
    # different, still marked synchronised.
    import copy

    buf = UnifiedBuffer((3,), dtype=np.float32, device=device)
    buf.fill(1.0)
    buf.sync_to_host()
    before = buf.valid_devices
    other = copy.copy(buf) if how == "copy" else copy.deepcopy(buf)
    assert other.placement == buf.placement and buf.valid_devices == before
    other.host[0] = 42.0
    other.write(Device.parse(device), lambda n: n.__setitem__(1, 7.0), "test")  # on its device copy too
    assert buf.valid_devices == before and buf.to_numpy().tolist() == [1.0, 1.0, 1.0]
    buf.sync_to_host()
    if device != "cpu":
        buf.mark_device_dirty()  # read the device copy back: it never changed
    assert buf.to_numpy().tolist() == [1.0, 1.0, 1.0]


@needs_mlx
def test_the_version_moves_while_a_device_lease_lives():
    # A write through a live lease (m[0] = 5) reaches the copy without the
    # buffer hearing of it: the version (what dask tokens key on) stood still.
    buf = UnifiedBuffer((3,), dtype=np.float32, device="mlx")
    lease = buf.mlx
    v = buf.version
    lease[0] = 5.0
    assert buf.version > v
    buf.sync_to_host()  # the lease ends
    v = buf.version
    assert buf.version == v  # and with it the counting of reads as writes


# -- one write path -------------------------------------------------------------------------


def test_every_write_into_a_copy_goes_through_the_one_locked_write_step():
    """A write acquires its copy (the state then says that copy alone is
    current) and writes it in one step under the buffer's lock:
    ``UnifiedBuffer._written``.  ``copy_from`` of a NumPy array once wrote
    after the lock was released, and a move in another thread copied the
    half-written data to MLX and marked it current (stale there; see
    tests/test_threads.py).  The only other callers that acquire a copy for
    writing hand out a handle, tracked as a lease or a host alias: ``lease``
    and ``export_host``.  A new write method must call ``_written``."""
    import ast
    import pathlib

    # The source, which the compiled build's module (a shared object) is made from.
    tree = ast.parse((pathlib.Path(ua.__file__).parent / "_buffer.py").read_text())
    writers: set[str] = set()
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef):
            continue
        for call in ast.walk(fn):
            if not (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Attribute)
                and call.func.attr in ("_acquire", "_acquire_past_alias")
            ):
                continue

            def false(node) -> bool:
                return isinstance(node, ast.Constant) and node.value is False

            write = call.args[1] if len(call.args) > 1 else None
            overwrite = [k.value for k in call.keywords if k.arg == "overwrite"] + call.args[4:5]
            if not false(write) or any(not false(o) for o in overwrite):
                writers.add(fn.name)
    # (_acquire hands its write on to _acquire_past_alias while a host alias may be alive.)
    assert writers == {"_written", "lease", "export_host", "_acquire"}
