"""Shared fixtures: which devices this machine has, for parametrising, and
the CUDA runtime the session runs on.

CUDA: with a usable GPU the real CuPy; without one, the simulated runtime in
``tests/cudasim`` (``--cuda=auto|sim|real`` or ``UNIFIEDARRAY_CUDA`` chooses;
see there).  The choice is made in ``pytest_configure``, before any test
module is imported, so that ``import cupy`` anywhere gives the chosen one.
Under the simulation every test fails that leaves a hazard in its log (an
unordered cross-stream access, a stream of the wrong GPU, a use after free).
"""

from __future__ import annotations

import os
import sys

# SciPy and scikit-learn read this when first imported: set it before anything imports them.
os.environ.setdefault("SCIPY_ARRAY_API", "1")

import pytest

from unifiedarray.backends import registry

from . import cudasim
from .sealed_backend import register_sealed

# The simulated cupy package is not a test module: never collect (or import) it as one.
collect_ignore = ["cudasim"]


def _has(kind: str) -> bool:
    return registry()[kind].available


HAS_MLX = _has("mlx")
HAS_CUDA = False  # set in pytest_configure, once the CUDA runtime is chosen
CUDA_SIMULATED = False
CUDA_COUNT = 0

needs_mlx = pytest.mark.skipif(not HAS_MLX, reason=f"MLX unavailable: {registry()['mlx'].unavailable_reason}")

# The backend written in one file by following CONTRIBUTING's guide: its
# devices ("sealed:0", "sealed:1") are memory spaces of their own, on every
# machine.  Registered here; the test suite's subprocesses find it as a
# plug-in, through the entry point that tests/plugins/ names (on their PYTHONPATH).
SEALED = register_sealed()
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLUGINS = os.path.join(ROOT, "tests", "plugins")
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (PLUGINS, ROOT, os.environ.get("PYTHONPATH")) if p)

#: every device present here, host first (cuda:0 is added in pytest_configure when present)
DEVICES = ["cpu"] + (["mlx"] if HAS_MLX else []) + ["sealed:0"]
#: every memory space, for the stateful models: DEVICES plus a second GPU where there is one
MEMORY_SPACES = list(DEVICES)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--cuda",
        choices=cudasim.CHOICES,
        default=None,
        help="CUDA runtime for the tests: the simulated one (sim), CuPy on a real GPU (real), or "
        "real where a GPU is present and simulated elsewhere (auto; default, or UNIFIEDARRAY_CUDA)",
    )


#: Each test process's address space, in GiB (``UA_TEST_MEMORY_CAP``; 0 for
#: none): a test that allocates past it gets a ``MemoryError`` and fails
#: alone, where it would grow until the kernel killed the whole run (a drawn
#: example once took one to 24 GB).  Address space, not resident memory: an
#: allocation past it fails at once, even inside a C loop.  A process takes
#: about 2 GiB of it before any test (NumPy, MLX, JAX and their threads).
MEMORY_CAP_GIB = float(os.environ.get("UA_TEST_MEMORY_CAP", "9"))


def cap_memory(gib: float) -> None:
    """Bound this process's address space to ``gib`` GiB (Linux; not above
    a hard limit already set)."""
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = int(gib * 2**30)
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))


def pytest_configure(config: pytest.Config) -> None:
    global HAS_CUDA, CUDA_SIMULATED, CUDA_COUNT
    if MEMORY_CAP_GIB > 0 and sys.platform.startswith("linux"):
        cap_memory(MEMORY_CAP_GIB)
    if cudasim.choose(config.getoption("--cuda")) == "sim":
        cudasim.activate()
    HAS_CUDA = _has("cuda")
    CUDA_SIMULATED = cudasim.active()
    if HAS_CUDA:
        CUDA_COUNT = len(registry()["cuda"].devices())
        DEVICES.append("cuda:0")
        MEMORY_SPACES.extend(f"cuda:{i}" for i in range(min(CUDA_COUNT, 2)))


def pytest_report_header(config: pytest.Config) -> str:
    if CUDA_SIMULATED:
        return f"CUDA: simulated runtime (tests/cudasim), {CUDA_COUNT} GPUs"
    if HAS_CUDA:
        return f"CUDA: real CuPy, {CUDA_COUNT} GPU(s)"
    return f"CUDA: none ({registry()['cuda'].unavailable_reason})"


# Tests that fail on the sealed devices, each for the reason given: strict, so
# that an entry fails, and must go, once its reason is gone.
_DLPACK = (
    "the sealed memory space exports no DLPack (its arrays have no __dlpack__, by design: the host cannot "
    "address it): Backend.export_dlpack and dlpack_device raise BufferError, so JAX cannot import from it"
)
SEALED_XFAILS: dict[str, str] = {
    "tests/test_interop.py::test_jax_through_dlpack[": _DLPACK,
}


def _mark_sealed_xfails(items: list[pytest.Item]) -> None:
    for item in items:
        if not item.nodeid.endswith("sealed:0]"):
            continue
        for prefix, reason in SEALED_XFAILS.items():
            if item.nodeid.startswith(prefix):
                item.add_marker(pytest.mark.xfail(strict=True, reason=reason))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    _mark_sealed_xfails(items)
    if HAS_CUDA:
        return
    skip = pytest.mark.skip(reason=f"no usable CUDA GPU: {registry()['cuda'].unavailable_reason}")
    for item in items:
        if "cuda" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _error_state_reported_by_its_test():
    """MLX reports NumPy's floating-point warnings at the next evaluation
    (``mlx_evaluation.check_errors``): whatever a test left waiting is
    reported as it ends, so that the test that divided by zero is the one
    that answers for it, not the next one to read an array."""
    yield
    if "unifiedarray.backends.mlx_evaluation" in sys.modules:
        evaluation = sys.modules["unifiedarray.backends.mlx_evaluation"]
        if evaluation._PENDING:
            evaluation.evaluate()


@pytest.fixture(autouse=True)
def _no_cuda_hazards():
    """Under the simulated runtime: a test fails if it logged a hazard."""
    if not CUDA_SIMULATED:
        yield
        return
    cudasim.clear_hazards()
    yield
    cudasim.settle()
    found = cudasim.hazards()
    cudasim.clear_hazards()
    if found:
        pytest.fail("CUDA hazards in the simulated runtime:\n" + "\n".join(found), pytrace=False)
