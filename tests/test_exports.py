"""Host memory handed out of a buffer (``np.asarray``, ``.host``, NumPy views
of them, ``memoryview``, DLPack, pickle protocol 5, distributed frames).

Every export either is a copy or a view of the host copy whose owner (the
buffer's export anchor) tells the buffer that an alias may be alive; while
one may be, the host copy is authoritative: a device read re-syncs from it
(counted, reason ``"host alias: ..."``) and a device write is copied back to
it at once (see docs/buffer.md, "Host memory handed out").
"""

from __future__ import annotations

import copy
import gc
import pickle
import subprocess
import sys

import numpy as np
import pytest

import unifiedarray as xp
from unifiedarray import TransferError, UnifiedBuffer, _operators

from . import conftest, cudasim
from .conftest import DEVICES, HAS_MLX, needs_mlx

OTHER = "mlx" if HAS_MLX else None


def second_copy(x):
    """Give x's buffer a second valid copy (the host for a device array,
    MLX for a host array): the state in which an unseen write goes stale."""
    buf = x.buffer
    if x.device == "cpu":
        if OTHER is None:
            pytest.skip("needs a second memory space")
        buf.read(OTHER)
    else:
        buf.sync_to_host()
    assert len(buf.valid_devices) == 2


def reads_everywhere(x):
    """x's data read on the host and computed on its device, and every
    valid copy of its buffer."""
    out = [np.asarray(x).tolist(), np.asarray(x * 1).tolist()]
    buf = x.buffer
    for dev in sorted(buf.allocated_devices, key=str):
        native = buf.read(dev)
        out.append((native.get() if str(dev).startswith("cuda") else np.asarray(native)).tolist())
    return out


# -- the examples (#20, section 1) -------------------------------------------

#: Aliases of the host copy that the buffer once never tracked: plain views,
#: NumPy views derived from them, and the buffer protocol.
ALIASES = {
    "np.asarray(buf.host)": lambda x: np.asarray(x.buffer.host),
    "a slice of np.asarray(x)": lambda x: np.asarray(x)[1:],
    "memoryview(buf.host)": lambda x: memoryview(x.buffer.host),
    "a reshape of buf.host, as a plain array": lambda x: buf_host_reshaped(x),
}


def buf_host_reshaped(x):
    return np.asarray(x.buffer.host.reshape(2, 2)).view(np.ndarray)


def write_alias(name, alias, value):
    """Write ``value`` into element 1 of the array through ``alias``."""
    if name == "a slice of np.asarray(x)":
        alias[0] = value
    elif name == "a reshape of buf.host, as a plain array":
        alias[0, 1] = value
    else:
        alias[1] = value


@needs_mlx
@pytest.mark.parametrize("name", ALIASES)
def test_a_kept_alias_written_after_another_copy_is_made_is_seen_everywhere(name):
    x = xp.asarray(np.arange(4.0))
    alias = ALIASES[name](x)
    x.buffer.read("mlx")  # a second copy: the host lease of old ended here, its plain aliases stayed writable
    write_alias(name, alias, 42.0)
    expected = [0.0, 42.0, 2.0, 3.0]
    assert x.buffer.to_numpy().tolist() == expected
    assert np.asarray(x.buffer.read("mlx")).tolist() == expected  # was [0, 1, 2, 3]: stale


@pytest.mark.parametrize("device", DEVICES)
def test_pickle5_out_of_band_round_trip_shares_no_live_memory(device):
    x = xp.asarray(np.arange(4.0), device=device)
    second_copy(x)
    bufs: list = []
    y = pickle.loads(pickle.dumps(x, protocol=5, buffer_callback=bufs.append), buffers=bufs)
    assert y.tolist() == [0.0, 1.0, 2.0, 3.0] and y.device == x.device
    y[0] = 42.0
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0]  # was 42: y aliased x's host copy
    assert all(row == [0.0, 1.0, 2.0, 3.0] for row in reads_everywhere(x))
    for b in bufs:  # the out-of-band buffers are read-only views: nothing writes x through them
        with pytest.raises(TypeError):
            b.raw()[0] = 1


_A_FRAME_IN_A_CYCLE = """
import gc, pickle, sys
import unifiedarray as xp
frames = []
pickle.dumps(xp.asarray([1.0, 2.0, 3.0], device=sys.argv[1]), protocol=5, buffer_callback=frames.append)
raw = frames[0].raw()
assert type(raw.obj) is not memoryview, type(raw.obj)  # a view of a view: CPython 3.11's collector crashes on it
cycle = [raw, frames]
cycle.append(cycle)
del raw, frames, cycle
gc.collect()
"""


@pytest.mark.parametrize("device", DEVICES)
def test_a_pickle_frame_kept_in_a_reference_cycle_is_collected(device):
    """A protocol-5 frame is a view of the host array itself, as NumPy's
    are: a memoryview of a memoryview, held in a reference cycle, crashed
    CPython 3.11's cycle collector (gh-122306) when the cycle was freed.
    In a process of its own: a crash must fail this test, not end the run."""
    done = subprocess.run([sys.executable, "-c", _A_FRAME_IN_A_CYCLE, device], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.mark.parametrize("device", DEVICES)
def test_distributed_round_trip_in_process_shares_no_live_memory(device):
    protocol = pytest.importorskip("distributed.protocol")
    x = xp.asarray(np.arange(4.0), device=device)
    second_copy(x)
    header, frames = protocol.serialize(x)
    y = protocol.deserialize(header, frames)
    y[0] = 42.0
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert all(row == [0.0, 1.0, 2.0, 3.0] for row in reads_everywhere(x))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("how", ["plain pickle", "deepcopy", "pickle 5 in band"])
def test_other_copies_share_no_memory(device, how):
    x = xp.asarray(np.arange(4.0), device=device)
    if how == "plain pickle":
        y = pickle.loads(pickle.dumps(x))
    elif how == "deepcopy":
        y = copy.deepcopy(x)
    else:
        y = pickle.loads(pickle.dumps(x, protocol=5))
    y[0] = 42.0
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0] and y.tolist() == [42.0, 1.0, 2.0, 3.0]


@pytest.mark.parametrize("device", DEVICES)
def test_numpy_alias_is_writable_and_writes_through_on_every_device(device):
    """np.asarray(x) is the same on every device: a writable view whose
    writes reach x, and which sees x's writes, on any device."""
    x = xp.asarray(np.arange(4.0), device=device)
    a = np.asarray(x)
    assert a.flags.writeable and type(a) is np.ndarray  # was read-only on MLX
    a[1] = 42.0
    assert (x * 1).tolist() == [0.0, 42.0, 2.0, 3.0]  # computed on x's device
    x[2] = 7.0  # a write on x's device
    assert a.tolist() == [0.0, 42.0, 7.0, 3.0]  # seen through the alias
    a[3] += 1.0
    assert (x + 0).tolist() == [0.0, 42.0, 7.0, 4.0] and x.device == device


# -- the mechanism ----------------------------------------------------------------------


@pytest.mark.parametrize("device", [d for d in DEVICES if d != "cpu"])
def test_a_device_read_while_an_alias_lives_is_a_counted_guarded_resync(device):
    x = xp.asarray(np.arange(4.0), device=device)
    a = np.asarray(x)
    with xp.track_transfers() as t:
        x * 1
        x * 1
    assert t.count == 2  # each device read re-syncs: the alias may have written in between
    assert all(r.reason.startswith("host alias: ") and r.target == device for r in t.records)
    with xp.transfer_guard("disallow"), pytest.raises(TransferError, match="host alias"):
        x * 1
    with xp.track_transfers() as t:
        x[0] = 5.0  # a device write goes back to the host at once, counted
    assert a[0] == 5.0 and [r.target for r in t.records] == [device, "cpu"]
    del a
    gc.collect()
    with xp.track_transfers() as t:
        x * 1
        x * 1
    assert t.count == 1  # the alias is gone: one re-sync, then the device copy stays valid
    assert x.buffer.valid_devices == {device, "cpu"}


@pytest.mark.parametrize("device", DEVICES)
def test_an_array_never_exported_pays_nothing(device):
    x = xp.asarray(np.arange(4.0), device=device)
    x.buffer.sync_to_host()
    with xp.track_transfers() as t:
        for _ in range(3):
            x * 1
            x.buffer.to_numpy()
    assert t.count == 0 and x.buffer._anchor is None


def test_the_alias_keeps_the_anchor_alive_through_every_derived_object():
    """NumPy collapses a view's base to the first owner that is not an
    ndarray: the anchor's arrays.  Every derived view, memoryview, pickle
    buffer and DLPack capsule keeps one of them, hence the anchor, alive."""
    x = xp.asarray(np.arange(6.0))
    derived = [
        lambda a: a[1:],
        lambda a: a.reshape(2, 3).T[::-1],
        lambda a: memoryview(a),
        lambda a: memoryview(a[2:]).cast("B"),
        lambda a: pickle.PickleBuffer(a),
        lambda a: np.frombuffer(memoryview(a), dtype=np.uint8),
        lambda a: a.__dlpack__(),
        lambda a: a.view(np.int64),
        lambda a: a[None],
    ]
    for make in derived:
        a = np.asarray(x)
        kept = make(a)
        del a
        gc.collect()
        assert x.buffer.host_aliased(), make
        del kept
        gc.collect()
        assert not x.buffer.host_aliased(), make


@needs_mlx
def test_a_writable_device_handle_is_refused_while_a_host_alias_lives():
    x = xp.asarray(np.arange(4.0), device="mlx")
    a = np.asarray(x)
    with pytest.raises(BufferError, match="alias"):
        _ = x.buffer.mlx
    a[0] = 9.0
    del a
    gc.collect()
    h = x.buffer.mlx  # the alias is gone: a lease again
    assert np.asarray(h).tolist() == [9.0, 1.0, 2.0, 3.0]


def test_lending_refuses_a_buffer_with_a_live_alias():
    x = xp.asarray(np.zeros(4))
    native = x.buffer._copies[xp.Device.parse("cpu")]
    assert _operators._lendable(x, native) is native
    a = np.asarray(x)
    assert _operators._lendable(x, native) is None
    del a
    gc.collect()
    assert _operators._lendable(x, native) is native


def test_a_released_pool_buffer_never_hands_its_aliased_memory_to_the_next_owner():
    pool = xp.MemoryPool()
    b = pool.acquire((4,), dtype=np.float64)
    b.fill(1.0)
    h = b.host
    pool.release(b)
    c = pool.acquire((4,), dtype=np.float64)
    c.fill(2.0)
    h[0] = 5.0  # the old handle writes memory no one else owns
    assert not np.shares_memory(h, c.to_numpy()) and c.to_numpy().tolist() == [2.0] * 4


def test_buffer_handles_stay_write_through_after_other_copies_are_made():
    buf = UnifiedBuffer((3,), dtype=np.float64)
    h = buf.host
    h[0] = 1.0
    if HAS_MLX:
        buf.read("mlx")
    h[1] = 2.0  # still reaches the buffer (the host copy is authoritative while h lives)
    assert buf.to_numpy().tolist() == [1.0, 2.0, 0.0]
    if HAS_MLX:
        assert np.asarray(buf.read("mlx")).tolist() == [1.0, 2.0, 0.0]


# -- CUDA exports: __cuda_array_interface__, __cupy_get_ndarray__, DLPack on the array's GPU -------

cuda_two_gpus = pytest.mark.skipif(conftest.CUDA_COUNT < 2, reason="needs two CUDA GPUs")
cuda_simulated = pytest.mark.skipif(not conftest.CUDA_SIMULATED, reason="patches the simulated runtime's classes")


@pytest.mark.cuda
def test_a_cuda_array_interface_probe_or_read_is_not_a_write():
    import cupy

    x = xp.asarray(np.arange(4.0), device="cuda:0")
    x.to_numpy()  # the host copy is current too
    with xp.track_transfers() as t:
        assert hasattr(x, "__cuda_array_interface__")  # CuPy, Numba and PyTorch probe like this
        c = cupy.asarray(x)  # a read: CuPy takes the interface
        assert c.get().tolist() == [0.0, 1.0, 2.0, 3.0]
        assert x.to_numpy().tolist() == [0.0, 1.0, 2.0, 3.0]
    assert t.count == 0, t.records
    assert x.__cuda_array_interface__["data"][1] is True  # exported read-only
    y = xp.asarray(np.arange(4.0), device="cuda:0")
    cupy.asarray(y.__cupy_get_ndarray__())[0] = 9.0  # the writable export is a write
    assert y.tolist()[0] == 9.0


@pytest.mark.cuda
@cuda_two_gpus
def test_the_cuda_array_interface_names_the_stream_of_the_arrays_gpu():
    import cupy

    with cupy.cuda.Device(1):
        s = cupy.cuda.Stream(non_blocking=True)
        with s:  # the producer's work runs on s
            x = xp.asarray(np.arange(4.0), device="cuda:1")
            with cupy.cuda.Device(0):
                cai = x.__cuda_array_interface__
            c = cupy.asarray(x)  # synchronises the stream the interface names, then copies to GPU 0
            assert c.get().tolist() == [0.0, 1.0, 2.0, 3.0]
    assert cai["stream"] == s.ptr
    cudasim.assert_no_hazards()


@pytest.mark.cuda
@cuda_two_gpus
def test_dlpack_exports_on_the_arrays_gpu():
    import cupy

    x = xp.asarray(np.arange(4.0), device="cuda:1")
    with cupy.cuda.Device(0):
        capsule = x.__dlpack__(max_version=(1, 0))
    cudasim.assert_no_hazards()
    with cupy.cuda.Device(1):
        assert cupy.from_dlpack(capsule).get().tolist() == [0.0, 1.0, 2.0, 3.0]


@pytest.mark.cuda
@cuda_simulated
def test_a_real_error_from_cupys_dlpack_exporter_is_not_swallowed(monkeypatch):
    import cupy

    original = cupy.ndarray.__dlpack__

    def exporter(self, **kwargs):
        if kwargs:  # an exporter that understands the keywords and fails for a real reason
            raise TypeError("DLPack: this array's dtype cannot be exported")
        return original(self)

    monkeypatch.setattr(cupy.ndarray, "__dlpack__", exporter)
    x = xp.asarray(np.arange(4.0), device="cuda:0")
    with pytest.raises(TypeError, match="cannot be exported"):
        x.__dlpack__(max_version=(1, 0), copy=False)


# -- the library's own reads and questions move and mark nothing ---------------------------
@needs_mlx
def test_mlx_array_export_is_a_copy_that_numpy_writes_never_reach():
    x = xp.asarray(np.zeros(3, np.float32), device="mlx")
    second_copy(x)
    handle = x.__mlx_array__()
    np.asarray(handle)[0] = 99.0
    assert x.buffer.to_numpy().tolist() == [0.0, 0.0, 0.0] and float(xp.sum(x)) == 0.0


@pytest.mark.parametrize("device", DEVICES)
def test_asarray_copy_false_of_a_view_numpy_cannot_express_raises_value_error(device):
    # NumPy 2's protocol: copy=False raises where only a copy would do (a
    # reshape of a strided slice); it returned a read-only copy.
    x = xp.reshape(xp.asarray(np.arange(12.0).reshape(3, 4), device=device)[:, :2], (6,))
    with pytest.raises(ValueError, match="copy"):
        np.asarray(x, copy=False)
    assert np.asarray(x).tolist() == [0.0, 1.0, 4.0, 5.0, 8.0, 9.0]  # copy=None still answers


@needs_mlx
def test_asking_the_dlpack_device_moves_nothing():
    # With no MLX copy made yet, __dlpack_device__ uploaded the whole array.
    x = xp.asarray(np.ones(1000, np.float32), device="mlx")
    x.buffer.sync_to_host()
    x.buffer.drop_copy(x.device, spill=False)  # the host copy alone is current and allocated
    with xp.track_transfers() as moves, xp.transfer_guard("disallow"):
        assert x.__dlpack_device__() == (1, 0)
    assert moves.count == 0


@needs_mlx
def test_from_dlpack_to_the_cpu_of_a_host_current_array_uploads_nothing():
    x = xp.asarray(np.arange(4, dtype=np.float32), device="mlx")
    x.buffer.sync_to_host()
    x.buffer.drop_copy(x.device, spill=False)
    with xp.track_transfers() as moves:
        out = np.from_dlpack(x, device="cpu")
    assert moves.count == 0 and out.tolist() == [0.0, 1.0, 2.0, 3.0]
