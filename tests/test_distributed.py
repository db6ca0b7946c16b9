"""UnifiedArray on dask and dask.distributed: tokens, serialization, sizeof,
the ``array.backend`` entry point, device-aware workers, device memory
limits, and xarray on top.

One ``LocalCluster(processes=True, n_workers=2, threads_per_worker=1)`` per
module (a module fixture): starting one costs a few seconds.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import pickle
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import unifiedarray as xp
from unifiedarray import UnifiedArray, _dask, _spill

if sys.version_info >= (3, 11):
    import tomllib
else:
    tomllib = pytest.importorskip("tomli")
dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")
from dask.base import tokenize  # noqa: E402
from dask.sizeof import sizeof  # noqa: E402
from distributed.protocol import deserialize, serialize  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _ensure_entry_points() -> None:
    """Make this checkout's dask entry points visible when the installed
    package metadata predates them (an editable install made earlier): a
    dist-info written from pyproject.toml, on sys.path (and so on the
    workers' path, which the spawned processes inherit)."""
    eps = importlib.metadata.entry_points(group="dask.array.backends")
    if any(ep.name == "unifiedarray" for ep in eps):
        return
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    site = Path(tempfile.mkdtemp(prefix="ua-ep-"))
    info = site / "unifiedarray_entry_points-0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: unifiedarray-entry-points\nVersion: 0.0\n")
    text = ""
    for group, entries in project["entry-points"].items():
        text += f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items()) + "\n"
    (info / "entry_points.txt").write_text(text)
    sys.path.append(str(site))
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), str(site)]))
    importlib.invalidate_caches()
    import dask.backends
    import dask.sizeof

    dask.backends.detect_entrypoints.cache_clear()
    dask.sizeof._register_entry_point_plugins()


_ensure_entry_points()

HAS_MLX = "mlx" in [str(d) for d in xp.__array_namespace_info__().devices()]
DEVICES = ["cpu", "mlx"] if HAS_MLX else ["cpu"]
needs_mlx = pytest.mark.skipif(not HAS_MLX, reason="MLX is not installed")


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    with (
        LocalCluster(
            processes=True, n_workers=2, threads_per_worker=1, dashboard_address=":0", worker_dashboard_address=":0"
        ) as cluster,
        Client(cluster) as c,
    ):
        c.register_plugin(_dask.DevicePlugin())
        yield c


def _chunk_info(x):
    """Run on a worker: what the chunk is there."""
    return type(x).__name__, str(getattr(x, "device", "")), getattr(getattr(x, "buffer", None), "state", None)


# -- tokens ----------------------------------------------------------------------


def test_tokens_of_freed_temporaries_never_collide():
    # id(buffer) was reused by the next temporary: 50 of 50 pairs collided.
    seen = set()
    for i in range(200):
        seen.add(tokenize(xp.asarray(np.full(8, float(i)))))
    assert len(seen) == 200


@pytest.mark.parametrize("device", DEVICES)
def test_token_changes_on_write_and_names_views(device):
    x = xp.asarray(np.arange(6.0), device=device)
    t0 = tokenize(x)
    assert tokenize(x) == t0  # a probe is not a write
    x[1] = 7.0
    t1 = tokenize(x)
    assert t1 != t0
    assert tokenize(x[1:]) != t1 and tokenize(x[1:]) == tokenize(x[1:])
    assert tokenize(x[1:]) != tokenize(x[2:])


def test_submissions_of_different_arrays_get_their_own_results_on_the_cluster(client):
    # Tokens once collided: client.submit(xp.sum, xp.asarray(A)) then the same with B returned A's sum.
    rng = np.random.default_rng(0)
    for _ in range(20):
        a, b = rng.random(100), rng.random(100)
        ra = client.submit(xp.sum, xp.asarray(a)).result()
        rb = client.submit(xp.sum, xp.asarray(b)).result()
        assert float(ra) == pytest.approx(a.sum()) and float(rb) == pytest.approx(b.sum())


# -- serialization -----------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float64", "int32", "bool", "complex128"])
def test_host_chunk_uses_dask_family_with_numpy_bytes(dtype):
    host = (np.arange(1000) % 7).astype(dtype).reshape(20, 50)
    x = xp.asarray(host)
    header, frames = serialize(x, serializers=["cuda", "dask", "pickle"])
    assert header["serializer"] == "dask"  # not pickle; cuda declines a host chunk
    _, np_frames = serialize(host, serializers=["dask", "pickle"])
    assert sum(memoryview(f).nbytes for f in frames) == sum(memoryview(f).nbytes for f in np_frames)
    y = deserialize(header, frames)
    assert type(y) is UnifiedArray and y.device == "cpu" and y.dtype == x.dtype
    np.testing.assert_array_equal(np.asarray(y), host)
    y[0, 0] = host[1, 1]  # a received chunk owns writable memory
    assert np.asarray(y)[0, 0] == host[1, 1]


@needs_mlx
def test_mlx_chunk_travels_without_a_host_copy():
    x = xp.asarray(np.arange(12.0).reshape(3, 4), device="mlx") * 2  # an MLX-only result
    assert x.buffer.state.name == "DEVICE_ONLY"
    with xp.track_transfers() as t:
        header, frames = serialize(x, serializers=["dask", "pickle"])
    assert header["serializer"] == "dask" and t.count == 0
    assert x.buffer.state.name == "DEVICE_ONLY"  # no lasting host copy
    with xp.track_transfers() as t:
        y = deserialize(header, frames)
    assert y.device == "mlx" and y.buffer.state.name == "DEVICE_ONLY"
    assert [r.reason for r in t.records] == ["dask_deserialize"]
    np.testing.assert_array_equal(np.asarray(y), np.arange(12.0).reshape(3, 4) * 2)


@pytest.mark.parametrize("device", DEVICES)
def test_views_send_only_their_data(device):
    x = xp.asarray(np.arange(100.0).reshape(10, 10), device=device)
    v = x[2:5, ::3]
    header, frames = serialize(v, serializers=["dask"])
    assert sum(memoryview(f).nbytes for f in frames) == v.size * 8
    np.testing.assert_array_equal(np.asarray(deserialize(header, frames)), np.asarray(v))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("protocol", [2, 5])
def test_pickle_round_trip(device, protocol):
    x = xp.asarray(np.arange(10, dtype=np.int16), device=device)[::2]
    buffers: list = []
    kw = {"buffer_callback": buffers.append} if protocol == 5 else {}
    data = pickle.dumps(x, protocol=protocol, **kw)
    if protocol == 5:
        assert len(buffers) == 1 and len(data) < 200  # the data went out of band
    y = pickle.loads(data, buffers=buffers)
    assert y.device == device and y.dtype == x.dtype
    np.testing.assert_array_equal(np.asarray(y), np.arange(0, 10, 2, dtype=np.int16))
    if device != "cpu":
        assert x.buffer.state.name == "DEVICE_ONLY"


ROUND_TRIP_DTYPES = ["float64", "float32", "int64", "int16", "uint8", "bool", "complex64"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    dtype=st.sampled_from(ROUND_TRIP_DTYPES),
    shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5),
    device=st.sampled_from(DEVICES),
)
def test_round_trips_keep_values_dtype_shape_and_device(data, dtype, shape, device):
    host = data.draw(hnp.arrays(dtype, shape))
    x = xp.asarray(host, device=device)
    if host.ndim:  # a view through a strided basic index
        step = data.draw(st.integers(1, 2))
        x, host = x[::step], host[::step]
    state = x.buffer.state
    for y in (
        deserialize(*serialize(x, serializers=["dask"])),
        pickle.loads(pickle.dumps(x, protocol=5)),
        pickle.loads(pickle.dumps(x, protocol=2)),
    ):
        assert type(y) is UnifiedArray and y.device == device and y.dtype == x.dtype and y.shape == host.shape
        np.testing.assert_array_equal(np.asarray(y), host)
    assert x.buffer.state == state  # sending changed nothing on the sender


def test_chunk_of_a_missing_device_warns():
    header, frames = serialize(xp.asarray(np.arange(4.0)), serializers=["dask"])
    header["sub-header"]["device"] = "cuda:7"  # as sent by a worker with a GPU
    with pytest.warns(_dask.DeviceUnavailableWarning, match=r"cuda:7.*restored on the host"):
        y = deserialize(header, frames)
    assert y.device == "cpu"
    np.testing.assert_array_equal(np.asarray(y), np.arange(4.0))
    with pytest.warns(_dask.DeviceUnavailableWarning):
        z = _dask._rebuild(np.arange(3), "cuda:7")
    assert z.device == "cpu"


@pytest.mark.parametrize("device", DEVICES)
def test_chunks_on_the_workers(client, device):
    x = xp.asarray(np.arange(64.0), device=device) + 1  # a result: device-only on mlx
    [fut] = client.scatter([x])
    name, dev, state = client.submit(_chunk_info, fut).result()
    assert (name, dev) == ("UnifiedArray", device)
    if device != "cpu":
        assert state.name == "DEVICE_ONLY"
    back = fut.result()
    assert type(back) is UnifiedArray and back.device == device
    np.testing.assert_array_equal(np.asarray(back), np.arange(64.0) + 1)


ORDERS = {
    "distributed first": "import distributed, unifiedarray as xp",
    "unifiedarray first": (
        "import unifiedarray as xp, distributed; from dask.base import tokenize; tokenize(xp.ones(1))"
    ),
}


@pytest.mark.parametrize("order", list(ORDERS))
def test_registration_in_either_import_order(order):
    # A worker imports distributed first; a client tokenizes every array it ships.
    import subprocess

    code = ORDERS[order] + (
        "\nfrom distributed.protocol import serialize"
        "\nprint(serialize(xp.arange(3), serializers=['dask', 'pickle'])[0]['serializer'])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "dask"


# -- sizeof ------------------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
def test_sizeof_counts_every_copy(device):
    x = xp.asarray(np.ones((256, 256)), device=device)
    assert sizeof(x) >= x.nbytes
    if device != "cpu":
        np.asarray(x)  # a host read: now a host copy too
        assert sizeof(x) >= 2 * x.nbytes
    assert sizeof(x[:10]) < sizeof(x)


def test_scheduler_sees_real_sizes(client):
    x = da.from_array(xp.asarray(np.ones((512, 512))), chunks=(128, 512)).persist()
    distributed.wait(x)
    keys = list(dask.core.flatten(x.__dask_keys__()))
    total = client.run_on_scheduler(lambda dask_scheduler, keys=keys: sum(dask_scheduler.tasks[k].nbytes for k in keys))
    assert total >= 512 * 512 * 8  # was 1,152 bytes for 128 MB


# -- the dask.array backend ----------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
def test_backend_entry_point(client, device):
    with dask.config.set({"array.backend": "unifiedarray", "unifiedarray.device": device}):
        arrays = {
            "ones": (da.ones((6, 4), chunks=3), np.ones((6, 4))),
            "zeros": (da.zeros((6, 4), chunks=3, dtype="int32"), np.zeros((6, 4), "int32")),
            "full": (da.full((6, 4), 2.5, chunks=3), np.full((6, 4), 2.5)),
            "arange": (da.arange(10, chunks=4), np.arange(10)),
            "random": (da.random.RandomState(5).random_sample((6, 4), chunks=3), None),
        }
    expected_random = da.random.RandomState(5).random_sample((6, 4), chunks=3).compute()  # NumPy chunks
    for name, (arr, expected) in arrays.items():
        assert type(arr._meta) is UnifiedArray, name
        chunks = client.compute(arr.to_delayed().ravel().tolist())
        infos = client.gather([client.submit(_chunk_info, c) for c in chunks])
        assert {i[:2] for i in infos} == {("UnifiedArray", device)}, name
        out = arr.compute()
        assert type(out) is UnifiedArray and out.device == device, name
        if expected is not None:
            np.testing.assert_array_equal(np.asarray(out), expected)
            assert out.dtype == expected.dtype
    # The same seed gives NumPy's numbers, on the chosen device.
    np.testing.assert_array_equal(np.asarray(arrays["random"][0].compute()), expected_random)


@pytest.mark.parametrize("device", DEVICES)
def test_to_backend_both_ways(client, device):
    host = np.arange(24.0).reshape(4, 6)
    with dask.config.set({"unifiedarray.device": device}):
        x = da.from_array(host, chunks=2).to_backend("unifiedarray")
    assert type(x._meta) is UnifiedArray
    out = x.compute()
    assert type(out) is UnifiedArray and out.device == device
    np.testing.assert_array_equal(np.asarray(out), host)
    other = da.from_array(host, chunks=2).to_backend("unifiedarray", device=device).compute()
    assert type(other) is UnifiedArray and other.device == device
    back = x.to_backend("numpy")
    res = back.compute()
    assert type(res) is np.ndarray
    np.testing.assert_array_equal(res, host)


@pytest.mark.parametrize("device", DEVICES)
def test_from_array_of_a_unified_array(client, device):
    host = np.arange(36.0).reshape(6, 6)
    x = da.from_array(xp.asarray(host, device=device), chunks=3)
    out = (x + 1).sum(axis=0).compute()
    assert type(out) is UnifiedArray and out.device == device
    np.testing.assert_allclose(np.asarray(out), (host + 1).sum(axis=0))


# -- devices as resources ------------------------------------------------------------


@needs_mlx
def test_workers_advertise_their_devices(client):
    resources = client.run_on_scheduler(
        lambda dask_scheduler: {a: dict(ws.resources) for a, ws in dask_scheduler.workers.items()}
    )
    assert len(resources) == 2 and all(r.get("mlx") == 1 for r in resources.values())
    with dask.annotate(resources={"mlx": 1}):
        x = da.from_array(xp.asarray(np.ones((8, 8)), device="mlx"), chunks=4)
        y = (x * 2).sum()
    assert float(y.compute()) == 128.0


# -- xarray --------------------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
def test_xarray_over_dask_over_unifiedarray_skipna(client, device):
    xr = pytest.importorskip("xarray")
    host = np.arange(48.0).reshape(6, 8)
    host[1, 2] = host[4, 7] = np.nan
    chunked = da.from_array(xp.asarray(host, device=device), chunks=(3, 4))
    arr = xr.DataArray(chunked, dims=("t", "x"))
    total = arr.sum(skipna=True).compute()
    mean = arr.mean("t", skipna=True).compute()
    assert float(total) == pytest.approx(np.nansum(host))
    np.testing.assert_allclose(np.asarray(mean.data), np.nanmean(host, axis=0))
    assert type(mean.data) is UnifiedArray and mean.data.device == device


@needs_mlx
def test_dask_workload_under_a_device_limit(client):
    # Each worker may keep 2 MiB on MLX; the data is 8 MiB of MLX chunks.
    client.run(_spill.set_device_memory_limit, "mlx", "2 MiB")
    try:
        host = np.arange(1024 * 1024, dtype=np.float64).reshape(1024, 1024)
        x = da.from_array(xp.asarray(host, device="mlx"), chunks=(256, 256))
        y = (x * 2.0 + 1.0).persist()
        out = float(y.sum().compute())
        used = client.run(_spill.device_memory_usage, "mlx")
        where = client.run(_persisted_chunks)
        np.testing.assert_array_equal(np.asarray(y.compute()), host * 2.0 + 1.0)
    finally:
        client.run(_spill.set_device_memory_limit, "mlx", None)
    assert out == pytest.approx(float((host * 2.0 + 1.0).sum()))
    # Within the limit, besides the 8 MiB parent the chunks have just read: a
    # copy larger than the limit stays while it is in use (_spill's policy).
    assert all(u is not None and u <= 2 * 2**20 + host.nbytes for u in used.values())
    # 16 persisted MLX chunks of 512 KiB: some live on MLX, the rest were spilled to the host.
    on_mlx = sum(w[0] for w in where.values())
    spilled = sum(w[1] for w in where.values())
    assert on_mlx + spilled == 16 and spilled >= 8 and on_mlx >= 1


def _persisted_chunks(dask_worker):
    """Run on a worker: (chunks holding an MLX copy, chunks spilled to the host)."""
    chunks = [
        v for v in dask_worker.data.values() if type(v) is UnifiedArray and v.device == "mlx" and v.shape == (256, 256)
    ]  # the persisted chunks (a worker may also hold the whole input array)
    return (
        sum("mlx" in c.buffer.allocated_devices for c in chunks),
        sum("mlx" not in c.buffer.allocated_devices and "cpu" in c.buffer.valid_devices for c in chunks),
    )


# -- NumPy calls that dask and xarray make on chunks ------------------------------------

_A = np.random.default_rng(2).random((4, 4))
_A[0, 1] = np.nan
_B = np.random.default_rng(3).random((4, 4))

NUMPY_CALLS = {
    "add(dtype=)": lambda np_, a, b: np_.add(a, b, dtype=np.float64),
    "nansum": lambda np_, a, b: np_.nansum(a, axis=0),
    "nanmean": lambda np_, a, b: np_.nanmean(a),
    "nanmax": lambda np_, a, b: np_.nanmax(a, axis=1),
    "nanmin": lambda np_, a, b: np_.nanmin(a),
    "nanprod": lambda np_, a, b: np_.nanprod(a, axis=1),
    "nanvar": lambda np_, a, b: np_.nanvar(a),
    "nanstd": lambda np_, a, b: np_.nanstd(a, axis=0),
    "nanargmax": lambda np_, a, b: np_.nanargmax(a, axis=0),
    "vstack": lambda np_, a, b: np_.vstack([a, b]),
    "dot": lambda np_, a, b: np_.dot(a, b),
    "einsum": lambda np_, a, b: np_.einsum("ij,jk->ik", a, b),
}


# The calls that still run on the host for MLX chunks: remove a name here when
# its call runs on MLX.
STILL_ON_HOST = {"nanargmax"}
_ON_HOST = pytest.mark.xfail(
    strict=True,
    reason="np.nanargmax raises for an all-NaN slice: checking that on MLX reads the data, so it runs on the host",
)


@needs_mlx
@pytest.mark.parametrize("name", [pytest.param(n, marks=[_ON_HOST] if n in STILL_ON_HOST else []) for n in NUMPY_CALLS])
def test_numpy_calls_on_mlx_chunks_stay_on_mlx(name):
    call = NUMPY_CALLS[name]
    a, b = xp.asarray(_A, device="mlx"), xp.asarray(_B, device="mlx")
    with xp.track_transfers() as t:
        out = call(np, a, b)
    expected = call(np, _A, _B)
    assert type(out) is UnifiedArray and out.device == "mlx"
    np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-12)
    assert np.asarray(out).dtype == np.asarray(expected).dtype
    assert t.count == 0, t.by_reason()


@needs_mlx
def test_a_write_through_a_live_mlx_lease_changes_the_token(client):
    # A lease's writes (m[0] = 5, m += 1) reach the MLX copy without the
    # buffer hearing of each: while it lives every token is new, so the
    # cluster never returns a sum computed before the write.
    x = xp.asarray(np.zeros(4, np.float32), device="mlx")
    m = x.buffer.mlx
    before = float(client.submit(xp.sum, x).result())
    t0 = tokenize(x)
    m[0] = 5.0
    assert tokenize(x) != t0
    after = float(client.submit(xp.sum, x).result())
    m += 1
    assert (before, after, float(client.submit(xp.sum, x).result())) == (0.0, 5.0, 9.0)


_FORK_SCRIPT = """
import os
import numpy as np
import dask.array as da
from dask.base import tokenize
import unifiedarray as xp

xp.asarray(np.zeros(2))  # the count has started before the fork
read, write = os.pipe()
pid = os.fork()
x = xp.asarray(np.arange(4.0) + (pid == 0))  # each process's next array, different data
mine = f"{tokenize(x)} {da.from_array(x, chunks=2).name}"
if pid == 0:
    os.write(write, mine.encode())
    os._exit(0)
os.close(write)
with os.fdopen(read) as pipe:
    theirs = pipe.read()
os.waitpid(pid, 0)
print("same" if set(mine.split()) & set(theirs.split()) else "apart")
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork here")
def test_a_forked_child_never_gives_the_parents_tokens_or_dask_names():
    # Parent and child number their buffers from the same count after
    # os.fork(): without a tag of its own, the child's next array got the
    # parent's next array's token (and the same da.from_array name).  In a
    # process of its own: this one runs threads (the cluster), which a fork
    # must not copy.
    import subprocess

    out = subprocess.run([sys.executable, "-c", _FORK_SCRIPT], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "apart"
