"""The backend owns its device: what the rest of the package asks of a
device, it asks its :class:`~unifiedarray.backends.Backend` (writes,
fills, leases, exports, its errors, its default complex dtype, NumPy
calls, the accelerator), never the device's kind.

The defaults are those of an ordinary mutable-array backend; the sealed
test backend (``tests/sealed_backend.py``, written by CONTRIBUTING's guide)
overrides none of these and works; a source scan keeps device-kind
decisions out of every module outside ``unifiedarray/backends/``.
"""

from __future__ import annotations

import ast
import pickle
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import unifiedarray as xp
from unifiedarray import Device
from unifiedarray._accelerator import get_accelerator
from unifiedarray._dtypes import default_complex
from unifiedarray._errors import translate
from unifiedarray.backends import Backend, backend_for, register, unregister

from .conftest import DEVICES, SEALED, needs_mlx

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "unifiedarray"


class Mutable:
    """An ordinary mutable array without DLPack."""

    def __init__(self) -> None:
        self.data = np.zeros(3)

    def fill(self, value: float) -> None:
        self.data.fill(value)

    def __setitem__(self, key: object, value: object) -> None:
        self.data[key] = value  # type: ignore[index]

    def copy(self) -> Mutable:
        out = Mutable()
        out.data = self.data.copy()
        return out


def test_the_defaults_write_into_the_copy_itself():
    backend = Backend()
    native = Mutable()
    assert backend.write(native, lambda n: n.__setitem__(0, 2.0)) is native
    assert backend.fill(native, 3.0) is native and native.data.tolist() == [3.0, 3.0, 3.0]
    assert backend.copy_into(native, np.arange(3.0)) is native and native.data.tolist() == [0.0, 1.0, 2.0]
    assert backend.lease(native) is native  # a lease is the copy itself: its writes reach the buffer
    # A handle given out for reading is a copy: a write through it is never unseen.
    handle = backend.detach(native)
    handle[0] = 9.0
    assert handle is not native and native.data.tolist() == [0.0, 1.0, 2.0]
    assert backend.record_event(Device("cpu")) is None and backend.view_on_host(native) is None
    assert not backend.poolable and not backend.revocable_leases and backend.uploads_into


_ALL_DTYPES = [np.dtype(t) for t in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")]
_ALL_DTYPES += [np.dtype(t) for t in ("float16", "float32", "float64", "complex64", "complex128")]


@pytest.mark.parametrize("device", [d for d in DEVICES if d != "cpu"])
@settings(max_examples=30, deadline=None)
@given(dtype=st.sampled_from(_ALL_DTYPES), data=st.binary(min_size=12 * 16, max_size=12 * 16))
def test_a_first_host_copy_holds_every_bit_of_the_device_copy(device, dtype, data):
    # A device-only array read on the host for the first time gets its host
    # copy from Backend.to_host (no block to copy into, no second
    # evaluation): every bit (NaN payloads, -0.0, subnormals) arrives, and
    # the move is counted once, as is a frame sent elsewhere (pickle).
    dev = Device.parse(device)
    backend = backend_for(dev)
    if not backend.supports_dtype(dtype, dev):
        return
    boolean = dtype.kind == "b"
    host = np.frombuffer(data[: 12 * dtype.itemsize], dtype=np.uint8 if boolean else dtype).reshape(3, 4)
    host = (host % 2).astype(bool) if boolean else host.copy()
    x = xp.asarray(host, device=device)
    with xp.track_transfers() as moves:
        got, again = np.asarray(x), np.asarray(x)
    assert got.dtype == dtype and got.tobytes() == host.tobytes() and again.tobytes() == host.tobytes()
    assert [(r.source, r.target, r.nbytes) for r in moves.records] == [(device, "cpu", host.nbytes)]
    y = xp.asarray(host, device=device)
    # (Memory the host can read, MLX's, is sent as it is: no move.)
    readable = backend.view_on_host(y.buffer.current(dev)) is not None
    with xp.track_transfers() as moves:
        frame = pickle.dumps(y)
    expected = [] if readable else [(device, "cpu", host.nbytes)]
    assert [(r.source, r.target, r.nbytes) for r in moves.records] == expected
    assert np.asarray(pickle.loads(frame)).tobytes() == host.tobytes()
    # A strided native (MLX's transpose is a view of its input) comes out C-ordered, in its own memory.
    native = xp.asarray(host, device=device).buffer.current(dev)
    with backend.compute_context(dev):
        strided = backend.namespace(dev).permute_dims(native, (1, 0))
    backend.evaluate(strided)
    out = backend.to_host(strided, dtype)
    assert out.flags.c_contiguous and out.flags.owndata and out.tobytes() == np.ascontiguousarray(host.T).tobytes()


@pytest.mark.parametrize("device", DEVICES)
@settings(max_examples=40, deadline=None)
@given(dtype=st.sampled_from(_ALL_DTYPES), data=st.binary(min_size=16, max_size=16))
def test_an_element_read_is_numpys_item_of_the_same_bits(device, dtype, data):
    # Backend.element (float(x) of an array whose copy is on the device):
    # the Python scalar NumPy's item() gives for the same bits, of the same
    # type (the largest integers, -0.0, infinities, NaN), from every
    # backend: the default (the sealed one) copies out, the others read.
    dev = Device.parse(device)
    backend = backend_for(dev)
    if not backend.supports_dtype(dtype, dev):
        return
    host = np.frombuffer(data[: dtype.itemsize], dtype=np.uint8 if dtype.kind == "b" else dtype).reshape(())
    host = (host % 2).astype(bool) if dtype.kind == "b" else host.copy()
    native = xp.asarray(host, device=device).buffer.current(dev)
    backend.evaluate(native)
    got, want = backend.element(native), host.item()
    assert type(got) is type(want)
    assert np.array_equal(np.asarray(got), np.asarray(want), equal_nan=True)
    if isinstance(want, float):
        assert np.signbit(got) == np.signbit(want)


def test_a_native_without_dlpack_is_a_buffer_error():
    backend = Backend()
    with pytest.raises(BufferError, match="no DLPack"):
        backend.export_dlpack(Mutable(), None, {})
    with pytest.raises(BufferError, match="no DLPack"):
        backend.dlpack_device(Device("cpu"), Mutable)


def test_dlpack_of_a_device_that_exports_none_is_a_buffer_error():
    """The standard's class for an export that cannot be made (was an
    AttributeError from the sealed array)."""
    x = xp.asarray([1.0, 2.0], device="sealed:0")
    with pytest.raises(BufferError):
        x.__dlpack_device__()
    with pytest.raises(BufferError):
        x.__dlpack__()
    with pytest.raises(BufferError):
        np.from_dlpack(x)


def test_numpy_calls_on_a_plug_in_device_run_there():
    """NumPy's functions of a plug-in's arrays run on its device (its Array
    API namespace, or a recipe in the standard's terms): no move."""
    host = np.array([1.0, np.nan, 3.0, 4.0])
    x = xp.asarray(host, device="sealed:0")
    with xp.track_transfers() as t:
        got = np.nanmean(x)
        total = np.sum(x)
    assert t.count == 0 and got.device == "sealed:0" and total.device == "sealed:0"
    assert float(got) == np.nanmean(host) and np.isnan(float(total))


class Rigid(Backend):
    """A plug-in with its own error table, default complex dtype and a
    preference as an accelerator."""

    name, kind, title = "rigid", "rigid", "a test backend"
    default_complex = np.dtype(np.complex64)
    accelerator_preference = 9
    error_translations = ((RuntimeError, re.compile("no such axis"), np.exceptions.AxisError),)

    def _probe(self) -> str | None:
        return None

    def devices(self) -> list[Device]:
        return [Device("rigid")]

    def memory_info(self, device: Device) -> tuple[int, int]:
        return 0, 0


@pytest.fixture
def rigid():
    backend = register(Rigid())
    try:
        yield backend
    finally:
        unregister("rigid")


def test_errors_dtypes_and_the_accelerator_come_from_the_backend(rigid):
    dev = Device("rigid")
    err = translate(RuntimeError("[sum] no such axis 3"), dev, "sum")
    assert type(err) is np.exceptions.AxisError and "sum on rigid" in str(err)
    untouched = RuntimeError("something else")
    assert translate(untouched, dev, "sum") is untouched
    assert default_complex(dev) == np.complex64 and default_complex(Device("cpu")) == np.complex128
    assert get_accelerator().device == dev  # preferred above every built-in
    unregister("rigid")
    register(rigid)  # the fixture unregisters it
    assert default_complex(Device("cpu")) == np.complex128


def test_the_sealed_backend_overrides_none_of_the_device_decisions():
    """CONTRIBUTING's guide writes a backend without these: the defaults
    must serve an ordinary mutable-array backend."""
    decisions = {
        "write",
        "fill",
        "copy_into",
        "detach",
        "lease",
        "export_dlpack",
        "dlpack_device",
        "write_context",
        "poolable",
        "revocable_leases",
    }
    assert not decisions & set(vars(type(SEALED)))
    assert backend_for("sealed:0") is SEALED


# -- no device-kind decisions outside backends/ ---------------------------------------------

_KINDS = {"cpu", "cuda", "mlx", "gpu", "metal", "numpy", "cupy", "sealed"}


def _kind_decisions(tree: ast.AST) -> list[int]:
    """Lines comparing a ``.kind`` or ``.name`` (or a device) with a device
    kind's or backend's literal name, comparing with the ``MLX`` device, or
    looking a backend up by a literal kind."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            literal = any(isinstance(s, ast.Constant) and s.value in _KINDS for s in sides)
            literal |= any(
                isinstance(s, ast.Tuple | ast.Set | ast.List)
                and any(isinstance(e, ast.Constant) and e.value in _KINDS for e in s.elts)
                for s in sides
            )
            named = any(isinstance(s, ast.Attribute) and s.attr in ("kind", "name") for s in sides)
            mlx = any(isinstance(s, ast.Name) and s.id == "MLX" for s in sides)
            if (literal and named) or mlx:
                found.append(node.lineno)
        elif (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Call)
            and getattr(node.value.func, "id", None) == "registry"
            and isinstance(node.slice, ast.Constant)
        ) or (
            isinstance(node, ast.For)
            and isinstance(node.iter, ast.Tuple)
            and any(isinstance(e, ast.Constant) and e.value in _KINDS for e in node.iter.elts)
        ):
            found.append(node.lineno)
    return found


def test_no_module_outside_the_backends_decides_by_device_kind():
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if "backends" in path.relative_to(PACKAGE).parts:
            continue
        lines = _kind_decisions(ast.parse(path.read_text()))
        if lines:
            found[str(path.relative_to(ROOT))] = lines
    assert found == {}


def test_the_scan_finds_a_device_kind_decision():
    """The scan above can fail: each form it looks for is found."""
    source = """
if dev.kind == "cuda": pass
if backend.name != "numpy": pass
if dev == MLX: pass
x = registry()["mlx"]
for kind in ("cuda", "mlx"): pass
if dtype.kind == "c": pass
"""
    assert sorted(_kind_decisions(ast.parse(source))) == [2, 3, 4, 5, 6]


@needs_mlx
def test_an_mlx_copy_seen_on_the_host_cannot_be_made_writable():
    # A pickle or distributed frame of an MLX chunk is MLX's own memory: a
    # read-only view of MLX's writable export could be marked writable
    # again by whoever held it, and then write the buffer's copy unseen.
    import mlx.core as mx

    native = mx.arange(4, dtype=mx.float32)
    seen = backend_for(Device.parse("mlx")).view_on_host(native)
    assert seen.tolist() == [0.0, 1.0, 2.0, 3.0] and not seen.flags.writeable
    with pytest.raises(ValueError, match="WRITEABLE"):
        seen.flags.writeable = True
