"""Backends are plug-ins: registering and unregistering one, the names of
its devices, the entry point group ``unifiedarray.backends`` (found in real
subprocesses, from fake distributions on their path), a plug-in that fails,
and the namespace a backend supplies (corrected by ``compute``)."""

from __future__ import annotations

import collections
import gc
import operator
import os
import pickle
import subprocess
import sys
import textwrap
import types
import weakref
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import unifiedarray as xp
from unifiedarray import Device, _devices, compute
from unifiedarray._devices import CPU, MLX, kind_names
from unifiedarray.backends import (
    Backend,
    _registry,
    all_backends,
    backend_for,
    backend_of_native,
    backend_report,
    mlx_backend,
    register,
    registry,
    unregister,
)

from .conftest import SEALED, needs_mlx
from .sealed_backend import SealedArray, SealedBackend

ROOT = Path(__file__).resolve().parent.parent


class Toy(Backend):
    """A backend with nothing behind it: enough to register and name devices."""

    name = "toy"
    indexed = True

    def __init__(self, kind: str, indexed: bool = True, aliases: tuple[str, ...] = (), current: int = 0) -> None:
        super().__init__()
        self.kind = kind
        self.indexed = indexed
        self.device_aliases = aliases
        self._current = current

    def _probe(self) -> str | None:
        return None

    def devices(self) -> list[Device]:
        return [Device(self.kind, i) for i in range(3)] if self.indexed else [Device(self.kind)]

    def current_index(self) -> int:
        return self._current


@pytest.fixture
def toy(request):
    """A Toy backend registered for the test (kind named after the test), then removed."""
    made: list[Backend] = []

    def make(kind: str, **options) -> Backend:
        backend = register(Toy(kind, **options))
        made.append(backend)
        return backend

    yield make
    for backend in made:
        if registry().get(backend.kind) is backend:
            unregister(backend)


# -- device names of a registered kind ------------------------------------------------------


def test_an_indexed_kind_parses_kind_n_and_its_bare_name_means_the_current_device(toy):
    toy("toyidx", aliases=("toybox",), current=2)
    one = Device.parse("toyidx:1")
    assert (one.kind, one.index, str(one)) == ("toyidx", 1, "toyidx:1")
    assert Device.parse("TOYIDX:1") is one is Device("toyidx", 1)  # one object per device, names cached
    assert Device.parse("toyidx") is Device.parse("toybox") is Device("toyidx", 2)
    assert pickle.loads(pickle.dumps(one)) is one
    assert backend_for("toyidx:1").kind == "toyidx"
    for bad in ("toybox:1", "toyidx:x", "toyidx:"):
        with pytest.raises(ValueError, match="unknown device"):
            Device.parse(bad)


def test_a_kind_with_one_device_is_named_by_its_kind_alone(toy):
    toy("toysolo", indexed=False)
    assert Device.parse("toysolo") is Device("toysolo") and Device.parse("toysolo").index == 0
    with pytest.raises(ValueError, match="unknown device"):
        Device.parse("toysolo:0")


def test_an_unregistered_kind_no_longer_parses_and_has_no_backend(toy):
    backend = toy("toygone")
    dev = Device.parse("toygone:0")
    unregister(backend)
    assert "toygone" not in registry()
    with pytest.raises(ValueError, match="unknown device 'toygone:0'"):
        Device.parse("toygone:0")
    with pytest.raises(ValueError, match="no backend is registered"):
        backend_for(dev)  # a Device made before: its kind has no backend now


def test_register_refuses_what_would_make_a_name_ambiguous(toy):
    toy("toytaken", aliases=("toyalias",))
    with pytest.raises(ValueError, match="already has a backend"):
        register(Toy("toytaken"))
    with pytest.raises(ValueError, match="already names the kind 'toytaken'"):
        register(Toy("toyother", aliases=("toyalias",)))
    with pytest.raises(ValueError, match="already names the kind 'cuda'"):
        register(Toy("toygpu", aliases=("gpu",)))
    with pytest.raises(ValueError, match="lower-case"):
        register(Toy("Toy:1"))
    with pytest.raises(ValueError, match="names no device kind"):
        register(Toy(""))
    with pytest.raises(TypeError, match="expected a Backend"):
        register(object())  # type: ignore[arg-type]
    assert "toyother" not in registry() and "toygpu" not in registry()


def test_the_host_backend_cannot_be_removed():
    with pytest.raises(ValueError, match="host backend"):
        unregister("cpu")
    with pytest.raises(ValueError, match="no such backend"):
        unregister("toynever")


def test_the_built_in_names_and_aliases_parse_as_before():
    assert Device.parse("cpu") is Device.parse("host") is Device.parse("numpy") is CPU
    assert Device.parse("mlx") is Device.parse("metal") is MLX
    assert Device.parse("cuda:3") is Device("cuda", 3) and Device.parse("cuda:3").kind == "cuda"
    assert Device.parse("gpu").kind == "cuda" and Device.parse("cuda").kind == "cuda"
    for bad in ("tpu", "cpu:0", "mlx:1", "gpu:1", "cuda:-1"):
        with pytest.raises(ValueError, match="unknown device"):
            Device.parse(bad)


# -- a registered backend is a device like any other -------------------------------------------


def test_a_registered_backend_owns_its_devices_and_native_arrays():
    native = SealedArray(np.arange(3.0), Device.parse("sealed:1"))
    assert backend_for("sealed:1") is SEALED and backend_of_native(native) is SEALED
    assert SEALED in all_backends()
    assert "sealed:1" in xp.__array_namespace_info__().devices()
    row = next(r for r in backend_report() if r["backend"] == "sealed")
    assert row["available"] and [d["device"] for d in row["devices"]] == ["sealed:0", "sealed:1"]
    with xp.track_transfers() as moves:
        x = xp.asarray(native)  # a foreign native: its data read through its backend, onto the default device
    assert x.device == "cpu" and x.tolist() == [0.0, 1.0, 2.0] and moves.count == 1


def test_compute_corrects_the_namespace_a_backend_supplies():
    ns0, ns1 = compute.namespace_for("sealed:0"), compute.namespace_for("sealed:1")
    assert ns0 is compute.namespace_for(Device.parse("sealed:0")) and ns0 is not ns1  # one per namespace object
    raw = SEALED.namespace(Device.parse("sealed:0"))
    assert ns0.floor_divide is not raw.floor_divide  # the correction, not the backend's own function
    # The standard: inf // finite is +-inf, finite // inf of the other sign is -0.0
    # (NumPy's own floor_divide gives nan and -1.0 there).
    a = xp.asarray([np.inf, -np.inf, 1.0], device="sealed:0")
    b = xp.asarray([2.0, 2.0, -np.inf], device="sealed:0")
    with np.errstate(invalid="ignore"):
        got = xp.floor_divide(a, b)
    assert got.device == "sealed:0"
    assert got.tolist() == [np.inf, -np.inf, -0.0] and np.signbit(got.tolist()[2])


def test_a_backend_that_supplies_no_namespace_is_a_clear_error(toy):
    toy("toynons")
    with pytest.raises(NotImplementedError, match="Toy supplies no Array API namespace"):
        xp.zeros(2, device="toynons:0")


# -- plug-ins through the entry point group ---------------------------------------------------------


def fake_distribution(folder: Path, name: str, entry_points: dict[str, str]) -> None:
    """A distribution's metadata, as an installer writes it: what
    ``importlib.metadata`` finds on ``sys.path``."""
    info = folder / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    lines = "".join(f"{key} = {value}\n" for key, value in entry_points.items())
    (info / "entry_points.txt").write_text(f"[unifiedarray.backends]\n{lines}")


def run_python(code: str, path: Path) -> subprocess.CompletedProcess:
    """``code`` in a new interpreter whose path holds ``path`` and this
    repository only (no plug-in the test suite's own environment names)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(path), str(ROOT)]))
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], cwd=path, env=env, capture_output=True, text=True, timeout=300
    )


def test_a_plugin_loads_lazily_once_when_its_device_or_array_is_first_met(tmp_path):
    fake_distribution(tmp_path, "sealed_plugin", {"sealed": "tests.sealed_backend:SealedBackend"})
    done = run_python(
        """
        import sys
        import unifiedarray as xp
        assert "tests.sealed_backend" not in sys.modules  # importing the library loads no plug-in
        x = xp.asarray([1.0, 2.0], device="sealed:1")  # a name no kind knows: the plug-ins load
        assert "tests.sealed_backend" in sys.modules
        from unifiedarray.backends import all_backends, registry
        assert sum(b.kind == "sealed" for b in all_backends()) == 1  # loaded once
        print(x.device, (x + 1).tolist(), type(registry()["sealed"]).__name__)
        """,
        tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["sealed:1", "[2.0,", "3.0]", "SealedBackend"]


def test_a_plugin_array_met_before_its_plugin_loaded_is_recognised(tmp_path):
    fake_distribution(tmp_path, "sealed_plugin", {"sealed": "tests.sealed_backend:SealedBackend"})
    done = run_python(
        """
        import numpy as np
        import unifiedarray as xp
        from unifiedarray import Device
        from tests.sealed_backend import SealedArray
        from unifiedarray._devices import register_kind
        register_kind("sealed", indexed=True)  # only the name, as a pickled array's device would need
        native = SealedArray(np.arange(3.0), Device("sealed", 0))
        x = xp.asarray(native)
        print(x.device, x.tolist())
        """,
        tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["cpu", "[0.0,", "1.0,", "2.0]"]  # recognised, read, placed on the default device


def test_a_failing_plugin_warns_and_the_library_works_without_it(tmp_path):
    (tmp_path / "raising_plugin.py").write_text("def make():\n    raise RuntimeError('no driver here')\n")
    fake_distribution(tmp_path, "missing_plugin", {"missing": "no_such_module:Backend"})
    fake_distribution(tmp_path, "raising_plugin", {"raising": "raising_plugin:make"})
    fake_distribution(tmp_path, "not_a_backend", {"notone": "builtins:dict"})
    fake_distribution(tmp_path, "sealed_plugin", {"sealed": "tests.sealed_backend:SealedBackend"})
    done = run_python(
        """
        import warnings
        warnings.simplefilter("error")  # importing the library warns about nothing: it loads no plug-in
        import unifiedarray as xp
        from unifiedarray.backends import BackendPluginWarning, all_backends
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            kinds = [b.kind for b in all_backends()]
            again = [b.kind for b in all_backends()]  # loaded once: no second round of warnings
        for w in caught:
            assert w.category is BackendPluginWarning, w
            print("WARNING", w.message)
        assert kinds == again and "sealed" in kinds, kinds
        print("works", (xp.asarray([1.0]) + 1).tolist(), xp.asarray([2.0], device="sealed:0").device)
        """,
        tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    warned = [line for line in done.stdout.splitlines() if line.startswith("WARNING")]
    assert len(warned) == 3, done.stdout
    for name, why in [("missing", "ModuleNotFoundError"), ("raising", "no driver here"), ("notone", "TypeError")]:
        assert any(f"plug-in {name!r}" in line and why in line for line in warned), (name, warned)
    assert done.stdout.splitlines()[-1] == "works [2.0] sealed:0"


def test_sealed_backend_is_what_the_guide_describes():
    """The test backend subclasses Backend and overrides the methods the
    guide's step 1 lists (so the guide and the backend cannot drift apart
    unnoticed)."""
    guide = (ROOT / "CONTRIBUTING.md").read_text().split("## How to add a backend")[1].split("\n## ")[0]
    for method in ("_probe", "devices", "zeros", "upload", "download", "is_native", "device_of", "supports_dtype",
                   "memory_info", "properties", "namespace"):  # fmt: skip
        assert f"`{method}" in guide, method
        assert method in SealedBackend.__dict__, method
    assert "register" in guide and "unifiedarray.backends" in guide and "_KINDS" not in guide


class _CountingSealed(SealedBackend):
    """Sealed memory of a kind of its own that counts its element reads."""

    name = kind = "sealedcount"

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    def devices(self) -> list[Device]:
        return [Device(self.kind, 0)]

    def element(self, native: Any) -> Any:
        self.reads += 1
        return super().element(native)


def test_a_backend_registered_anew_for_a_kind_reads_its_devices_elements():
    """What the library derived from the registry per device (a scalar
    read's backend) is forgotten when a backend is registered or
    unregistered: the second backend of the kind reads its own elements."""
    first = register(_CountingSealed())
    try:
        assert float(xp.asarray(2.5, device="sealedcount:0")) == 2.5 and first.reads == 1
    finally:
        unregister(first)
    second = register(_CountingSealed())
    try:
        assert float(xp.asarray(3.5, device="sealedcount:0")) == 3.5
        assert (first.reads, second.reads) == (1, 1)
    finally:
        unregister(second)


# -- a backend registered anew for a kind: every entry point reaches it ----------------------------


class _Recording:
    """A backend whose namespace records the name of each of its functions
    called (``calls``), and its scalar reads (``"element"``): mixed into a
    registered backend's class, an instance of the mixed class is a second
    backend of that kind, to register in the first one's place."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []
        self._recording: dict[Device, types.ModuleType] = {}

    def namespace(self, device: Device) -> types.ModuleType:
        ns = self._recording.get(device)
        if ns is None:
            ns = self._recording[device] = self._recorded(super().namespace(device), "")  # type: ignore[misc]
        return ns

    def _recorded(self, base: Any, prefix: str) -> types.ModuleType:
        ns = types.ModuleType(f"recording.{base.__name__}")
        for attr in dir(base):
            value = getattr(base, attr)
            if attr in ("linalg", "fft") and isinstance(value, types.ModuleType):
                value = self._recorded(value, f"{attr}.")
            elif attr.startswith("__") and attr not in ("__array_api_version__", "__array_namespace_info__"):
                continue
            elif callable(value) and not isinstance(value, type) and not attr.startswith("__"):
                value = self._function(value, prefix + attr)
            setattr(ns, attr, value)
        if not prefix:  # indexing and views through this namespace too (compute's operator.getitem otherwise)
            for attr, default in (("getitem", operator.getitem), ("setitem", operator.setitem)):
                if not hasattr(base, attr):
                    setattr(ns, attr, self._function(default, attr))
            if not hasattr(base, "view_getitem"):
                ns.view_getitem = self._function(operator.getitem, "view_getitem")  # type: ignore[attr-defined]
        return ns

    def _function(self, fn: Any, name: str) -> Any:
        backend = self  # held by each of its functions: a cache that keeps one keeps the backend alive

        def recorded(*args: Any, **kwargs: Any) -> Any:
            backend.calls.append(name)
            return fn(*args, **kwargs)

        recorded.__name__ = recorded.__qualname__ = name.rpartition(".")[2]
        return recorded

    def element(self, native: Any) -> Any:
        self.calls.append("element")
        return super().element(native)  # type: ignore[misc]


class _RecordingSealed(_Recording, SealedBackend):
    """The sealed devices' backend again, recording."""


class _RecordingMLX(_Recording, mlx_backend.MLXBackend):
    """MLX again, recording: MLX as the registered backend found it (a probe
    of its own would start the library's streams anew)."""

    def _probe(self) -> str | None:
        first = mlx_backend.BACKEND
        self.mx, self.metal = first.mx, first.metal
        return first.unavailable_reason


def _sin_times_plus_one(x: Any, y: Any) -> Any:
    return xp.sin(x) * y + 1.0


#: Traced on each device before its backend is replaced, called after.
_FUSED = xp.fuse(_sin_times_plus_one)


def _entry_points(device: str) -> dict[str, tuple[Any, set[str]]]:
    """The library's entry points on ``device``, on new arrays there:
    ``label -> (the call, the namespace functions it must reach)``."""
    a = xp.asarray([1.0, 2.0, 3.0, 4.0], dtype=xp.float32, device=device)
    b = xp.asarray([4.0, 3.0, 2.0, 1.0], dtype=xp.float32, device=device)
    m = xp.asarray([[2.0, 0.0], [0.0, 4.0]], dtype=xp.float32, device=device)

    def write() -> None:
        c = xp.asarray([1.0, 2.0], dtype=xp.float32, device=device)
        c[0] = 5.0
        assert c.tolist() == [5.0, 2.0]

    return {
        "a + b": (lambda: a + b, {"add"}),
        "a * 2.0": (lambda: a * 2.0, {"multiply"}),
        "-a": (lambda: -a, {"negative"}),
        "a[1:3] + 1.0": (lambda: a[1:3] + 1.0, {"view_getitem", "add"}),
        "c[0] = 5.0": (write, {"setitem"}),
        "xp.sin": (lambda: xp.sin(a), {"sin"}),
        "xp.sum": (lambda: xp.sum(a), {"sum"}),
        "xp.sum(axis=0)": (lambda: xp.sum(m, axis=0), {"sum"}),
        "xp.max": (lambda: xp.max(a), {"max"}),
        "a.mean()": (lambda: a.mean(), {"mean"}),
        "xp.linalg.inv": (lambda: xp.linalg.inv(m), {"linalg.inv"}),
        "xp.fft.fft": (lambda: xp.fft.fft(xp.astype(a, xp.complex64)), {"astype", "fft.fft"}),
        "np.sin": (lambda: np.sin(a), {"sin"}),
        "np.concatenate": (lambda: np.concatenate([a, b]), {"concat"}),
        "fuse": (lambda: _FUSED(a, b), {"sin", "multiply", "add"}),
        "float(xp.sum)": (lambda: float(xp.sum(a)), {"sum", "element"}),
    }


def _swap_and_call(kind: str, device: str) -> tuple[weakref.ref, dict[str, tuple[set[str], list[str]]]]:
    """Every entry point called on ``kind``'s registered backend (three
    times: judged, then served from the caches), then on a recording
    backend registered in its place, then the first registered again: a
    weak reference to the recording backend, and per entry point the
    namespace functions it must reach and those it reached."""
    kinds, order = kind_names(), list(registry())
    original = registry()[kind]
    for _ in range(3):
        for call, _names in _entry_points(device).values():
            call()
    recording = _RecordingMLX() if kind == "mlx" else _RecordingSealed()
    reached: dict[str, tuple[set[str], list[str]]] = {}
    unregister(kind)
    try:
        register(recording)
        for label, (call, names) in _entry_points(device).items():
            recording.calls.clear()
            call()
            reached[label] = (names, list(recording.calls))
    finally:
        if registry().get(kind) is recording:
            unregister(recording)
        register(original)
        _put_back_in_order(kinds, order)
    assert (kind_names(), list(registry())) == (kinds, order)
    return weakref.ref(recording), reached


def _put_back_in_order(kinds: list[str], backends: list[str]) -> None:
    """The device kinds (``kind_names()``) and the registered backends
    (``registry()``) put back in these orders: a kind unregistered and
    registered again comes last in both, and the order is what messages,
    reports and the search for an array's backend show (the docs' examples
    among them)."""
    with _registry._LOCK:
        for table, order in ((_devices._KINDS, [k.partition(":")[0] for k in kinds]), (_registry._BACKENDS, backends)):
            entries = dict(table)
            table.clear()
            table.update((k, entries[k]) for k in order)
        _registry._IN_ORDER[0] = tuple(_registry._BACKENDS.values())


@pytest.mark.parametrize(("kind", "device"), [pytest.param("mlx", "mlx", marks=needs_mlx), ("sealed", "sealed:0")])
def test_every_entry_point_reaches_a_backend_registered_anew_for_its_kind(kind, device):
    """A registry change resets every cache of what was resolved from a
    backend (the one hook, ``backends.on_change``): after a kind's backend is
    unregistered and another registered, operators, indexing, namespace
    functions, ``linalg`` and ``fft``, NumPy's protocols, methods,
    reductions, ``fuse`` and scalar reads call the new backend's namespace,
    each served from the caches by the first backend just before; and once
    the first is registered again, nothing in the package keeps the second
    alive (a cache that kept one of its functions would)."""
    gone, reached = _swap_and_call(kind, device)
    missed = {label: calls for label, (names, calls) in reached.items() if not names <= set(calls)}
    assert missed == {}, "entry points that did not reach the backend registered anew (what they reached)"
    gc.collect()
    assert gone() is None, f"the unregistered backend is kept alive by: {_holders(gone())}"
    for label, (call, _names) in _entry_points(device).items():  # the first backend again, as before
        assert call() is not NotImplemented, label


def _holders(target: Any) -> list[str]:
    """Where the package keeps ``target``: paths from its modules' globals
    through what each object refers to (breadth first), for the failure's
    message."""
    modules = {name: m for name, m in list(sys.modules.items()) if m is not None}
    globals_of = {id(m.__dict__): name for name, m in modules.items()}
    queue = collections.deque((m.__dict__, name) for name, m in modules.items() if name.startswith("unifiedarray"))
    seen = {id(d) for d, _ in queue}
    found: list[str] = []
    while queue and len(found) < 5 and len(seen) < 1_000_000:
        obj, path = queue.popleft()
        for ref in gc.get_referents(obj):
            if ref is target:
                found.append(path)
                break
            foreign = (
                not globals_of.get(id(ref), "unifiedarray").startswith("unifiedarray")
                or (isinstance(ref, types.ModuleType) and not ref.__name__.startswith("unifiedarray"))
                or (isinstance(ref, type) and not ref.__module__.startswith("unifiedarray"))
            )
            if foreign or id(ref) in seen or isinstance(ref, (str, bytes, int, float)):
                continue
            seen.add(id(ref))
            name = next((k for k, v in obj.items() if v is ref), None) if id(obj) in globals_of else None
            label = name or getattr(ref, "__qualname__", None) or type(ref).__name__
            queue.append((ref, f"{path}.{label}" if name else f"{path} > {label}"))
    return found
