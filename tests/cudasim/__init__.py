"""The simulated CUDA runtime for the tests (never installed for users).

``site/`` holds a package named ``cupy`` (and ``cupyx``) that simulates CuPy
on two GPUs with NumPy (see ``site/cupy/_sim.py`` for the model).  The test
session puts it first on ``sys.path`` before anything imports CuPy, so that
the library's CUDA backend, ``array_api_compat.cupy`` and the tests all get
it; where a real GPU is usable, the real CuPy runs the same tests instead.

Which runtime: ``--cuda=auto|sim|real`` on pytest's command line, or the
environment variable ``UNIFIEDARRAY_CUDA`` (the option wins); ``auto`` (the
default) simulates unless the CUDA driver reports a GPU.
"""

from __future__ import annotations

import ctypes
import os
import sys
from pathlib import Path
from typing import Any

SITE = Path(__file__).resolve().parent / "site"
CHOICES = ("auto", "sim", "real")


def real_gpu_present() -> bool:
    """Whether the CUDA driver reports a GPU (asked without importing CuPy,
    which must not be imported before the choice is made)."""
    for name in ("libcuda.so.1", "libcuda.so", "nvcuda.dll"):
        try:
            lib = ctypes.CDLL(name)
        except OSError:
            continue
        count = ctypes.c_int(0)
        try:
            return lib.cuInit(0) == 0 and lib.cuDeviceGetCount(ctypes.byref(count)) == 0 and count.value > 0
        except AttributeError:
            return False
    return False


def choose(option: str | None = None) -> str:
    """``"sim"`` or ``"real"`` for this session."""
    choice = option or os.environ.get("UNIFIEDARRAY_CUDA", "auto")
    if choice not in CHOICES:
        raise ValueError(f"UNIFIEDARRAY_CUDA / --cuda must be one of {CHOICES}, not {choice!r}")
    if choice == "auto":
        return "real" if real_gpu_present() else "sim"
    return choice


def activate() -> None:
    """Make ``import cupy`` give the simulation in this process and in
    subprocesses started from it (dask workers, say)."""
    mod = sys.modules.get("cupy")
    if mod is not None and not getattr(mod, "_SIMULATED", False):
        raise RuntimeError("cudasim: the real CuPy was imported before the simulation could be put first")
    if str(SITE) not in sys.path:
        sys.path.insert(0, str(SITE))
    path = os.environ.get("PYTHONPATH", "")
    if str(SITE) not in path.split(os.pathsep):
        os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(SITE), path) if p)


def active() -> bool:
    """Whether this process runs on the simulation."""
    mod = sys.modules.get("cupy")
    return mod is not None and bool(getattr(mod, "_SIMULATED", False))


def _sim() -> Any:
    import cupy

    return cupy._sim


def hazards() -> list[str]:
    """The hazards logged so far (always empty on a real GPU)."""
    return _sim().hazards() if active() else []


def clear_hazards() -> None:
    if active():
        _sim().clear_hazards()


def settle() -> None:
    """Run every queued op on every simulated GPU (hazards that only show
    when work runs, such as a host write into a pinned source, are then
    logged)."""
    if active():
        _sim().synchronize_all()


def assert_no_hazards() -> None:
    """Run all queued work and fail on any hazard logged so far (the test
    suite's fixture checks again at the end of each test; this pins a
    hazard to the step that made it)."""
    settle()
    found = hazards()
    clear_hazards()
    assert not found, "\n".join(found)
