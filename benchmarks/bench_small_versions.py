"""Two checkouts of unifiedarray side by side on small calls, in one run.

What a change did to the small calls of ``bench_small.py`` that the dispatch's
fast paths serve (8-element arrays): host ``a + b``, ``a[1:3]``,
``sin(a)``, ``xp.sum(a)``, a Python int operand, a comparison, and a 0-d
array's arithmetic, function and truth, a column view, an element write, an
in-place ``+=``, NumPy's ``np.sin`` and ``np.dot`` on UnifiedArrays (float64),
and MLX ``a + b``, ``sin(a)``, ``a[1:3]``, building ``sum(a + b)``, reading
``float(sum(a + b))`` and ``bench_small.py``'s loop of 200 operations with one
read (float32) where MLX is present.  Each checkout runs in a worker process
of its own (``PYTHONPATH=<checkout>``), both kept for the whole run; this script asks
them for one batch each in turn, the order alternating from round to round,
so that both halves of a ratio see the same machine noise.  A batch is timed
in the worker's CPU time (a loaded machine's lost time slices are not
counted); a ratio is the median of the per-round ratios NEW/OLD, with their
interquartile range.

Run: ``python benchmarks/bench_small_versions.py OLD NEW [--rounds N] [--pin
CPU] [--only TEXT]``, OLD and NEW the roots of two checkouts (each holding
``unifiedarray/``, built: for the compiled modules, an unpacked wheel or an
in-place build); about a minute with the default rounds.  ``--pin`` runs
both workers on one CPU, as ``bench_small.py --pin`` does.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from typing import Any

_WORKER = r"""
import gc, json, sys, time
import numpy as np
import unifiedarray as xp

rng = np.random.default_rng(0)
na, nb = rng.random(8), rng.random(8)
a, b = xp.asarray(na), xp.asarray(nb)
s = xp.sum(a)  # a 0-d array, as a reduction gives (a convergence check's value)
m = xp.reshape(xp.arange(16.0), (4, 4))
c = xp.zeros(8)  # written in place: c += b grows it, which costs the same each time
cases = {
    "host a + b": (lambda: a + b, 2000),
    "host a[1:3]": (lambda: a[1:3], 4000),
    "host sin(a)": (lambda: xp.sin(a), 2000),
    "host xp.sum(a)": (lambda: xp.sum(a), 1000),
    "host a + 1 (a Python int)": (lambda: a + 1, 2000),
    "host a > 0": (lambda: a > 0, 2000),
    "host s + 1.0 (s 0-d)": (lambda: s + 1.0, 2000),
    "host sin(s) (s 0-d)": (lambda: xp.sin(s), 2000),
    "host bool(s > 0.5)": (lambda: bool(s > 0.5), 2000),
    "host m[:, 1] (m 4x4)": (lambda: m[:, 1], 2000),
    "host a[2] = 0.5": (lambda: a.__setitem__(2, 0.5), 2000),
    "host c += b": (lambda: c.__iadd__(b), 1000),
    "NumPy np.sin(a)": (lambda: np.sin(a), 1000),
    "NumPy np.dot(a, b)": (lambda: np.dot(a, b), 1000),
}
if "mlx" in xp.__array_namespace_info__().devices():
    ma = xp.asarray(na.astype(np.float32), device="mlx")
    mb = xp.asarray(nb.astype(np.float32), device="mlx")
    cases["MLX a + b"] = (lambda: ma + mb, 300)
    cases["MLX sin(a)"] = (lambda: xp.sin(ma), 300)
    cases["MLX a[1:3]"] = (lambda: ma[1:3], 300)
    cases["MLX sum(a + b)"] = (lambda: xp.sum(ma + mb), 300)
    cases["MLX float(sum(a + b))"] = (lambda: float(xp.sum(ma + mb)), 100)

    sys.path.insert(1, sys.argv[1])  # this folder, after the checkout (the working directory): bench_small's loop
    from bench_small import mixed_loop

    cases["MLX loop of 200, one read"] = (lambda: float(xp.sum(mixed_loop(xp, ma, mb))), 4)
print(json.dumps(list(cases)), flush=True)
for line in sys.stdin:
    fn, n = cases[json.loads(line)]
    gc.disable()
    c0 = time.process_time()
    for _ in range(n):
        fn()
    c1 = time.process_time()
    gc.enable()
    print(json.dumps((c1 - c0) / n), flush=True)
"""


def _start(root: str, cpu: int | None = None) -> tuple[subprocess.Popen, list[str]]:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(root))
    worker = subprocess.Popen(
        [sys.executable, "-c", _WORKER, os.path.dirname(os.path.abspath(__file__))],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        cwd=os.path.abspath(root),  # "-c" puts the working directory first on the path: the checkout's own
        # Pinned before it starts, so that MLX's threads are pinned too (see
        # bench_small.py's --pin: a small MLX read's cost depends on the CPU).
        preexec_fn=None if cpu is None else (lambda: os.sched_setaffinity(0, {cpu})),
    )
    assert worker.stdout is not None
    return worker, json.loads(worker.stdout.readline())


def _batch(worker: subprocess.Popen, name: str) -> float:
    assert worker.stdin is not None and worker.stdout is not None
    worker.stdin.write(json.dumps(name) + "\n")
    worker.stdin.flush()
    seconds: float = json.loads(worker.stdout.readline())
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", help="root of the checkout to compare against")
    parser.add_argument("new", help="root of the checkout to measure")
    parser.add_argument("--rounds", type=int, default=80)
    parser.add_argument("--pin", type=int, metavar="CPU", help="run both workers, all their threads, on this CPU")
    parser.add_argument("--only", help="the cases whose names contain this text")
    args = parser.parse_args()
    if args.pin is not None and not hasattr(os, "sched_setaffinity"):
        parser.error("--pin needs os.sched_setaffinity (Linux)")
    old, names = _start(args.old, args.pin)
    new, _ = _start(args.new, args.pin)
    if args.only:
        names = [n for n in names if args.only in n]
    for name in names:  # warm up both
        for _ in range(3):
            _batch(old, name)
            _batch(new, name)
    times: dict[str, tuple[list[float], list[float]]] = {n: ([], []) for n in names}
    for r in range(args.rounds):
        for name in names:
            first, second = (new, old) if r % 2 else (old, new)
            a, b = _batch(first, name), _batch(second, name)
            t_old, t_new = (b, a) if r % 2 else (a, b)
            times[name][0].append(t_old)
            times[name][1].append(t_new)
    old.kill()
    new.kill()
    print(f"{'case':<28} {'OLD µs':>8} {'NEW µs':>8}  NEW/OLD, CPU time (IQR)")
    for name, (t_old, t_new) in times.items():
        ratios: list[Any] = [n / o for o, n in zip(t_old, t_new, strict=True)]
        q1, _, q3 = statistics.quantiles(ratios, n=4)
        print(
            f"{name:<28} {statistics.median(t_old) * 1e6:>8.3f} {statistics.median(t_new) * 1e6:>8.3f}  "
            f"{statistics.median(ratios):.3f} ({q1:.3f}–{q3:.3f})"
        )


if __name__ == "__main__":
    main()
