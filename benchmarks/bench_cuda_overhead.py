"""The library's own Python time per CUDA call: what a call through
unifiedarray costs beyond the CuPy calls it makes.

Every function of the ``cupy`` module (its ufuncs and functions, what
array-api-compat's CuPy namespace and the CUDA backend call) and the GPU
context's entry and exit are wrapped, before the library is imported, by a
timer that adds up the time spent inside them.  A call's own time is its
wall time less that, less the wrappers' own cost outside the timed region
(calibrated on a wrapped no-op).  Run on the simulated runtime (``--sim``)
the CuPy calls are the simulation's, whose times mean nothing, but the
library's own time is the library's own Python: the figure the call-path
issue's target speaks of (CuPy's own call plus at most 1.5 µs).  On a GPU
it measures the same thing against the real CuPy.

    python benchmarks/bench_cuda_overhead.py --sim [--markdown] [--number N]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from typing import Any

import _common as C
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_inside = [0.0, 0]  # seconds inside CuPy, CuPy calls (the outermost only)
_depth = [0]  # CuPy calls in progress: a call CuPy makes of its own is inside one


def _timed(fn: Callable[..., Any]) -> Callable[..., Any]:
    clock = time.perf_counter

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if _depth[0]:
            return fn(*args, **kwargs)
        _depth[0] = 1
        t = clock()
        try:
            return fn(*args, **kwargs)
        finally:
            _inside[0] += clock() - t
            _inside[1] += 1
            _depth[0] = 0

    wrapper.__wrapped__ = fn  # type: ignore[attr-defined]
    return wrapper


def instrument(cupy: Any) -> None:
    """Wrap CuPy's module-level callables and the GPU context."""
    for name in dir(cupy):
        obj = getattr(cupy, name)
        if name.startswith("_") or isinstance(obj, type) or type(obj).__name__ == "module" or not callable(obj):
            continue
        setattr(cupy, name, _timed(obj))
    device = cupy.cuda.Device
    device.__enter__ = _timed(device.__enter__)
    device.__exit__ = _timed(device.__exit__)
    device.synchronize = _timed(device.synchronize)
    if getattr(cupy, "_SIMULATED", False):
        # The simulation's frees scan its queues (in Python, where CuPy's are
        # C): theirs, not the library's.
        memory = cupy.cuda.memory
        for cls in (getattr(memory, n) for n in dir(memory)):
            if isinstance(cls, type) and "free" in vars(cls):
                cls.free = _timed(cls.free)
        # Its array's methods and properties are Python too (CuPy's are C).
        for name, attr in list(vars(cupy.ndarray).items()):
            if isinstance(attr, property):
                setattr(cupy.ndarray, name, property(_timed(attr.fget), attr.fset and _timed(attr.fset)))
            elif callable(attr) and name not in ("__init__", "__new__", "__class_getitem__"):
                setattr(cupy.ndarray, name, _timed(attr))


def calibrate() -> float:
    """The wrapper's cost outside its timed region, per call (seconds): a
    wrapped no-op's wall time, less its time inside, less a bare no-op's."""
    n = 200_000

    def nothing() -> None:
        return None

    noop = _timed(nothing)
    _inside[0], _inside[1] = 0.0, 0
    t = time.perf_counter()
    for _ in range(n):
        noop()
    wrapped = time.perf_counter() - t - _inside[0]
    t = time.perf_counter()
    for _ in range(n):
        nothing()
    bare = time.perf_counter() - t
    _inside[0], _inside[1] = 0.0, 0
    return max(0.0, (wrapped - bare) / n)


def workloads(xp: Any) -> dict[str, Callable[[], Any]]:
    a = xp.asarray(np.arange(8, dtype=np.float32), device="cuda:0")
    b = xp.asarray(np.ones(8, dtype=np.float32), device="cuda:0")
    m = xp.asarray(np.ones((4, 4), dtype=np.float32), device="cuda:0")
    return {
        "a + b (8,)": lambda: a + b,
        "a + 1.0": lambda: a + 1.0,
        "xp.sin(a)": lambda: xp.sin(a),
        "xp.sum(a)": lambda: xp.sum(a),
        "a[1:3]": lambda: a[1:3],
        "m @ m (4x4)": lambda: m @ m,
        "xp.where(a > 1, a, 0.0)": lambda: xp.where(a > 1, a, 0.0),
        "float(xp.sum(a + b))": lambda: float(xp.sum(a + b)),
    }


def measure(fn: Callable[[], Any], number: int, overhead: float, sync: Callable[[], Any]) -> tuple[float, float, float]:
    """(own µs per call, CuPy µs per call, CuPy calls per call), medians of
    5 batches; each call is followed by the GPU's synchronisation (counted
    as CuPy's, one call), so that no queue grows."""

    def call(work: Callable[[], Any] = fn) -> None:
        work()
        sync()

    for _ in range(50):
        call()
    rows = []
    for _ in range(5):
        _inside[0], _inside[1] = 0.0, 0
        t = time.perf_counter()
        for _ in range(number):
            call()
        wall = time.perf_counter() - t
        calls = _inside[1] / number
        own = (wall - _inside[0]) / number - calls * overhead
        rows.append((own * 1e6, _inside[0] / number * 1e6, calls))
    rows.sort()
    return rows[len(rows) // 2]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sim", action="store_true", help="the simulated CUDA runtime (tests/cudasim)")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--number", type=int, default=2000, help="calls per batch (default 2000)")
    args = parser.parse_args()
    if args.sim:
        sys.path.insert(0, os.path.join(ROOT, "tests", "cudasim", "site"))
    import cupy

    instrument(cupy)
    import unifiedarray as xp

    print(C.info_block(args.markdown))
    cuda = xp.backends.registry()["cuda"]
    if not cuda.available:
        print(f"\nNot run: no usable CUDA runtime ({cuda.unavailable_reason}).")
        return 0
    overhead = calibrate()
    runtime = "simulated" if getattr(cupy, "_SIMULATED", False) else "real"
    print(f"\nCuPy: {cupy.__version__} ({runtime}); wrapper cost outside its timer {overhead * 1e9:.0f} ns a call\n")
    rows = []
    for name, fn in workloads(xp).items():
        own, inside, calls = measure(fn, args.number, overhead, cupy.cuda.Device(0).synchronize)
        calls -= 1  # the synchronisation
        rows.append([name, f"{own:.2f}", f"{calls:.1f}", f"{inside:.1f}", "yes" if own <= 1.5 else "no"])
    headers = ["call (float32, cuda:0)", "library's own µs", "CuPy calls", "µs inside CuPy", "own ≤ 1.5 µs"]
    print(C.markdown_table(headers, rows) if args.markdown else C.text_table(headers, rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
