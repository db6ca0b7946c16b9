"""pytest plugin that runs scikit-learn's, array-api-extra's, SciPy's or xarray's own tests on ``unifiedarray``.

Loaded by ``conformance/run_suites.py`` with ``-p conformance.suite_plugin``; it is not meant to be
loaded by hand, but it can be::

    SCIPY_ARRAY_API=1 PYTHONPATH=. python -m pytest -p conformance.suite_plugin \\
        --ua-suite sklearn --ua-device mlx --pyargs sklearn.utils.tests.test_array_api -k array_api

What it does, before the suite's conftest and test modules are imported:

* **scikit-learn** enumerates array namespaces in ``sklearn.utils._array_api``:
  ``yield_namespaces`` (namespace only), ``yield_namespace_device_dtype_combinations``
  (namespace, device, dtype) and ``yield_mixed_namespace_input_permutations`` (pairs of
  namespace and device). The plugin adds ``"unifiedarray"`` to the first, to the second
  ``("unifiedarray", <device>, "float64")`` and ``("unifiedarray", <device>, "float32")``, and to
  the third unifiedarray to NumPy, NumPy to unifiedarray and array-api-strict to unifiedarray;
  test modules import these functions by name, so they see the extended ones.
* **array-api-extra** parametrizes its ``library``/``xp`` fixtures over the ``Backend`` enum of
  ``array_api_extra._lib._backends``. An ``Enum`` cannot grow, so the plugin replaces it with an
  equal enum plus ``UNIFIEDARRAY = "unifiedarray"``, whose ``xp`` fixture imports ``unifiedarray``.

* **SciPy** parametrizes its ``xp`` fixture (``scipy/conftest.py``) over ``xp_available_backends``.
  Once the conftest is loaded, the plugin parametrizes ``xp`` with ``pytest.param(unifiedarray,
  id="unifiedarray")`` through a ``parametrize`` mark on each test that uses it (pytest's public way:
  a test's own parametrization of a fixture takes precedence over the fixture's parameters) and adds
  ``"unifiedarray"`` to ``xp_known_backends``, so that the suite's
  ``skip_xp_backends``/``xfail_xp_backends(np_only=True)`` marks treat it as a non-NumPy backend; on
  a device other than ``cpu`` it joins ``xp_skip_cpu_only_backends``, as SciPy's conftest does for
  torch on a GPU (``cpu_only=True``: SciPy has no array-agnostic code there).
* **xarray** runs in *data mode*: every numeric ``numpy.ndarray`` that becomes a ``Variable``'s data
  (not an index coordinate's) becomes a UnifiedArray on the device under test, so tests written with
  NumPy data (``test_rolling.py``, ``test_integrate``) run their whole computation on UnifiedArrays;
  tests parametrized with dask are deselected. ``test_duck_array_wrapping.py`` gains
  ``"unifiedarray"`` in its ``NAMESPACES`` (constructor ``asarray``, array type ``UnifiedArray``).
  A reference run (``--ua-namespace numpy``) runs the same selection on NumPy data.

A reference run (``--ua-namespace numpy``) changes nothing in the suite. The device under test is
the default device (``unifiedarray.set_default_device``), so a test that
creates arrays without ``device=`` also runs there. Then only the tests parametrized with the chosen
namespace are kept (``--ua-namespace``, ``unifiedarray`` by default; ``numpy`` and
``array_api_strict`` give the reference counts), and the entries of ``--ua-xfails`` are marked as
non-strict xfails with their reasons.
"""

from __future__ import annotations

import functools
import os
import types
from collections.abc import Iterator
from enum import Enum
from pathlib import Path
from typing import Any

import pytest

SUITES = ("sklearn", "xpx", "scipy", "xarray")
UNIFIEDARRAY = "unifiedarray"
# scikit-learn's dtype names for its (namespace, device, dtype) combinations.
SKLEARN_DTYPES = ("float64", "float32")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("unifiedarray", "unifiedarray: run a library's own suite on unifiedarray")
    group.addoption("--ua-suite", choices=SUITES, help="the suite being run: sklearn, xpx, scipy or xarray")
    group.addoption("--ua-device", default="cpu", help="unifiedarray's default device for the run (default: cpu)")
    group.addoption(
        "--ua-namespace",
        default=UNIFIEDARRAY,
        help="keep only the tests parametrized with this namespace (default: unifiedarray)",
    )
    group.addoption("--ua-xfails", default=None, help="file of '<node id>  # <reason>' lines to mark as xfail")


def _option(config: pytest.Config, name: str) -> Any:
    # In pytest_load_initial_conftests the options are only in known_args_namespace.
    return getattr(config.known_args_namespace, name)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser, args: list[str]) -> None:
    """Extend the suite's backend list before its conftest (and anything it imports) is loaded."""
    suite = _option(early_config, "ua_suite")
    if suite is None:
        raise pytest.UsageError("conformance.suite_plugin needs --ua-suite sklearn|xpx")
    device = _option(early_config, "ua_device")
    if suite in ("sklearn", "scipy") and os.environ.get("SCIPY_ARRAY_API") != "1":
        # Both skip every array API test without it, which would look like a pass.
        raise pytest.UsageError(f"{suite}'s array API tests need SCIPY_ARRAY_API=1 in the environment")
    if _option(early_config, "ua_namespace") != UNIFIEDARRAY:
        # A reference run (numpy, array_api_strict) runs the suite as it ships.
        return
    # Lazy: the plugin module is also imported by the project's doctest collection.
    import unifiedarray

    unifiedarray.set_default_device(device)
    if suite == "sklearn":
        _extend_sklearn(device)
    elif suite == "xpx":
        _extend_array_api_extra()
    elif suite == "xarray":
        _xarray_data_mode(device)
    # SciPy's xp fixture exists only once its conftest is loaded: see pytest_collection.


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session: pytest.Session) -> None:
    config = session.config
    if config.getoption("ua_suite") == "scipy" and config.getoption("ua_namespace") == UNIFIEDARRAY:
        _extend_scipy(session, config.getoption("ua_device"))


def _extend_scipy(session: pytest.Session, device: str) -> None:
    """Make SciPy's conftest treat unifiedarray as a known non-NumPy backend (see the module docstring)."""
    conftest = next((p for p in session.config.pluginmanager.get_plugins() if hasattr(p, "xp_known_backends")), None)
    if conftest is None:
        raise pytest.UsageError("SciPy's conftest (with its xp fixture) was not loaded: run SciPy's tests")
    conftest.xp_known_backends.add(UNIFIEDARRAY)
    if device != "cpu":
        conftest.xp_skip_cpu_only_backends.add(UNIFIEDARRAY)


@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """SciPy's tests that use ``xp`` run on unifiedarray: a ``parametrize`` mark, added before
    pytest reads the marks, takes precedence over the fixture's own parameters."""
    config = metafunc.config
    if (
        config.getoption("ua_suite") == "scipy"
        and config.getoption("ua_namespace") == UNIFIEDARRAY
        and "xp" in metafunc.fixturenames
        and not any("xp" in str(m.args[0]) for m in metafunc.definition.iter_markers("parametrize"))
    ):
        import unifiedarray

        param = pytest.param(unifiedarray, id=UNIFIEDARRAY, marks=pytest.mark.array_api_backends)
        metafunc.definition.add_marker(pytest.mark.parametrize("xp", [param], indirect=True))


def _xarray_data_mode(device: str) -> None:
    """Every numeric ndarray that becomes a (non-index) ``Variable``'s data becomes a UnifiedArray on
    ``device``."""
    import numpy as np
    from xarray.core import variable

    import unifiedarray

    original = variable.Variable.__init__
    if getattr(original, "_unifiedarray", False):
        return

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        data = self._data
        if type(self) is variable.Variable and type(data) is np.ndarray and data.dtype.kind in "biufc":
            self._data = unifiedarray.asarray(data, device=device)

    __init__._unifiedarray = True  # type: ignore[attr-defined]
    variable.Variable.__init__ = __init__  # type: ignore[method-assign]


@pytest.hookimpl(wrapper=True)
def pytest_pycollect_makeitem(collector: pytest.Collector, name: str, obj: object) -> Any:
    module = getattr(collector, "module", None)
    if (
        module is not None
        and module.__name__.endswith("test_duck_array_wrapping")
        and collector.config.getoption("ua_namespace") == UNIFIEDARRAY
        and UNIFIEDARRAY not in module.NAMESPACE_ARRAYS
    ):
        # The classes' parametrize marks hold the NAMESPACES list itself: it grows before they are collected.
        module.NAMESPACE_ARRAYS[UNIFIEDARRAY] = {
            "attrs": {"array": "UnifiedArray", "constructor": "asarray"},
            "xfails": {},
        }
        module.NAMESPACES.append(pytest.param(UNIFIEDARRAY))
    return (yield)


def _extend_sklearn(device: str) -> None:
    """Add unifiedarray to scikit-learn's test namespaces (see the module docstring)."""
    from sklearn.utils import _array_api

    if getattr(_array_api.yield_namespaces, "_unifiedarray", False):
        return
    original_namespaces = _array_api.yield_namespaces
    original_combinations = _array_api.yield_namespace_device_dtype_combinations

    def yield_namespaces(include_numpy_namespaces: bool = True) -> Iterator[str]:
        yield from original_namespaces(include_numpy_namespaces=include_numpy_namespaces)
        yield UNIFIEDARRAY

    def yield_namespace_device_dtype_combinations(
        include_numpy_namespaces: bool = True,
    ) -> Iterator[tuple[str, str | None, str | None]]:
        # The original calls yield_namespaces through the module, so it meets the patched one,
        # and yields (unifiedarray, None, None) from its catch-all branch: replaced here.
        for namespace, device_name, dtype_name in original_combinations(include_numpy_namespaces):
            if namespace == UNIFIEDARRAY:
                for dtype in SKLEARN_DTYPES:
                    yield namespace, device, dtype
            else:
                yield namespace, device_name, dtype_name

    original_mixed = _array_api.yield_mixed_namespace_input_permutations
    pair = _array_api.NamespaceAndDevice

    def yield_mixed_namespace_input_permutations() -> Iterator[tuple[Any, Any, str]]:
        # (from, to, id): our arrays into NumPy and back, and another library's into ours.
        yield from original_mixed()
        ours = pair(UNIFIEDARRAY, device)
        yield ours, pair("numpy", None), f"unifiedarray {device} to numpy"
        yield pair("numpy", None), ours, f"numpy to unifiedarray {device}"
        yield pair("array_api_strict", "device1"), ours, f"array_api_strict to unifiedarray {device}"

    yield_namespaces._unifiedarray = True  # type: ignore[attr-defined]
    _array_api.yield_namespaces = yield_namespaces
    _array_api.yield_namespace_device_dtype_combinations = yield_namespace_device_dtype_combinations
    _array_api.yield_mixed_namespace_input_permutations = yield_mixed_namespace_input_permutations


def _extend_array_api_extra() -> None:
    """Replace array-api-extra's ``Backend`` enum by one with a ``UNIFIEDARRAY`` member."""
    from array_api_extra._lib import _backends

    old = _backends.Backend
    if "UNIFIEDARRAY" in old.__members__:
        return
    members = [(m.name, m.value) for m in old] + [("UNIFIEDARRAY", UNIFIEDARRAY)]
    new = Enum(old.__name__, members, module=old.__module__, qualname=old.__qualname__)  # type: ignore[misc]
    # The methods refer to ``Backend`` through their module's globals, so they see the new enum.
    for name in ("modname", "like", "pytest_param"):
        setattr(new, name, old.__dict__[name])
    new.__doc__ = old.__doc__
    _backends.Backend = new


def _names_namespace(value: object, namespace: str) -> bool:
    """Whether one parameter value selects ``namespace``."""
    if isinstance(value, str):
        return value == namespace
    if isinstance(value, Enum):  # array-api-extra's Backend
        return value.value == namespace
    if isinstance(value, tuple) and hasattr(value, "xp"):  # scikit-learn's NamespaceAndDevice
        return value.xp == namespace
    if isinstance(value, types.ModuleType):  # SciPy's xp fixture: the namespace module
        return value.__name__ == namespace
    if isinstance(value, functools.partial):
        # scikit-learn's check_array_api_input(array_namespace=...), check_array_api_mixed_inputs(
        # X_ns_and_device=NamespaceAndDevice(...), ...)
        return any(_names_namespace(v, namespace) for v in value.keywords.values())
    return False


def selects(item: pytest.Item, namespace: str, suite: str | None = None) -> bool:
    """Whether ``item`` is parametrized with ``namespace`` (xarray: or runs on plain data, not dask)."""
    callspec = getattr(item, "callspec", None)
    params = callspec.params if callspec is not None else {}
    if suite == "xarray" and "namespace" not in params:
        # Data mode: the data is UnifiedArrays (or NumPy's, for the reference run) unless dask is asked for.
        return not any(params.get(k) is True for k in ("use_dask", "dask")) and params.get("backend") != "dask"
    return any(_names_namespace(value, namespace) for value in params.values())


def matches(test_id: str, nodeid: str) -> bool:
    """Whether an xfails entry covers ``nodeid``: the same id, a test (all its parametrizations) or a file."""
    return nodeid == test_id or nodeid.startswith((test_id + "[", test_id + "::"))


def read_xfails(path: Path) -> list[tuple[str, str]]:
    """``(id, reason)`` pairs of an xfails file; the runner has already refused lines without a reason."""
    entries = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        test_id, _, reason = line.partition(" #")
        entries.append((test_id.strip(), reason.strip()))
    return entries


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    namespace = config.getoption("ua_namespace")
    kept, dropped = [], []
    for item in items:
        (kept if selects(item, namespace, config.getoption("ua_suite")) else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
    xfails_file = config.getoption("ua_xfails")
    if not xfails_file:
        return
    entries = read_xfails(Path(xfails_file))
    for item in items:
        for test_id, reason in entries:
            if matches(test_id, item.nodeid):
                # Not strict: an xfail that passes is reported (xpassed), not failed.
                item.add_marker(pytest.mark.xfail(reason=reason, strict=False))
                break
