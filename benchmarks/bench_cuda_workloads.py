"""GPU workloads, side by side: raw CuPy against unifiedarray on ``cuda:0``.

The workloads are ``bench_workloads.py``'s (the same array-API code for both
contenders), on the GPU in float32:

* ``chain``: ``(a * 2.0 + b) / 3.0 - a * b + 1.0`` on 1000x1000 (and 4000x4000);
* ``k-means step``: 20000x8 points, 16 centres;
* ``a + b (8,)``: one small operation;
* ``read a scalar``: ``float(sum(a + b))`` on (8,): build the result and read
  it back to Python (what a loop's convergence test does).

CuPy queues work and returns: a timed batch of calls ends with a device
synchronisation, so both contenders are timed to the end of their GPU work.
Per workload the contenders alternate in rounds in a balanced order; a ratio
is the median of per-round ratios.  Every result is checked once, outside
timing, against NumPy's (float32 tolerance).  Without a usable GPU it says
so and exits; on the simulated runtime (``PYTHONPATH=tests/cudasim/site``)
it runs, but its times mean nothing.

    python benchmarks/bench_cuda_workloads.py [--markdown] [--quick] [--rounds N]
"""

from __future__ import annotations

import argparse
import sys
import timeit
import types
from collections.abc import Callable
from typing import Any

import _common as C
import numpy as np
from bench_workloads import chain, kmeans_step, small_add

import unifiedarray as ua


def read_scalar(xp: Any, a: Any, b: Any) -> float:
    return float(xp.sum(a + b))


#: name -> (function, operand shapes); sizes shrink with --quick
WORKLOADS: dict[str, Callable[..., Any]] = {
    "chain (1000x1000)": chain,
    "chain (4000x4000)": chain,
    "k-means step (20000x8, 16 centres)": kmeans_step,
    "a + b (8,)": small_add,
    "read a scalar: float(sum(a + b)) (8,)": read_scalar,
}


def inputs(name: str, rng: np.random.Generator, quick: bool) -> list[np.ndarray]:
    f32 = np.float32
    if name.startswith("chain"):
        n = 1000 if "1000" in name else 4000
        n = min(n, 256) if quick else n
        return [rng.standard_normal((n, n)).astype(f32) for _ in range(2)]
    if name.startswith("k-means"):
        m = 2000 if quick else 20000
        X = rng.standard_normal((m, 8)).astype(f32)
        return [X, X[rng.choice(m, 16, replace=False)].copy(), np.arange(16)]
    return [rng.standard_normal(8).astype(f32) for _ in range(2)]


def _cupy_namespace(cupy: Any) -> Any:
    # CuPy's names where the workloads use the standard's.
    return types.SimpleNamespace(
        sum=cupy.sum, argmin=cupy.argmin, astype=lambda x, dtype: x.astype(dtype), float32=cupy.float32
    )


def contenders(name: str, quick: bool) -> tuple[dict[str, Callable[[], Any]], list[np.ndarray]]:
    import cupy

    fn = WORKLOADS[name]
    host = inputs(name, np.random.default_rng(0), quick)
    raw = [cupy.asarray(x) for x in host]
    on_gpu = [ua.asarray(x, device="cuda:0") for x in host]
    cp = _cupy_namespace(cupy)
    return {"CuPy": lambda: fn(cp, *raw), "unifiedarray (cuda:0)": lambda: fn(ua, *on_gpu)}, host


def check(name: str, quick: bool) -> None:
    """Both contenders compute what NumPy computes (float32 tolerance)."""
    funcs, host = contenders(name, quick)
    want = np.asarray(WORKLOADS[name](np, *host), dtype=np.float64)
    for who, call in funcs.items():
        out = call()
        got = out if isinstance(out, float) else (out.to_numpy() if isinstance(out, ua.UnifiedArray) else out.get())
        got = np.asarray(got, dtype=np.float64)
        tol = 2e-3 * max(1.0, float(np.abs(want).max()))
        if not np.allclose(got, want, rtol=2e-3, atol=tol):
            raise AssertionError(f"{name}: {who} differs from NumPy by {np.abs(got - want).max()}")


def measure(name: str, rounds: int, batch_s: float, quick: bool) -> dict[str, Any]:
    import cupy

    funcs, _ = contenders(name, quick)
    device = cupy.cuda.Device(0)

    def batch(call: Callable[[], Any], number: int) -> float:
        def run() -> None:
            for _ in range(number):
                call()
            device.synchronize()  # the batch ends when its GPU work does

        return timeit.timeit(run, number=1)

    numbers = {}
    for who, call in funcs.items():
        call()  # warm-up: CuPy compiles each kernel on first use
        device.synchronize()
        number = 1
        while batch(call, number) < batch_s and number < 1 << 14:
            number *= 2
        numbers[who] = number
    names = list(funcs)
    per_call: dict[str, list[float]] = {n: [] for n in names}
    for r in range(rounds):
        for who in C.in_round(names, r):
            per_call[who].append(batch(funcs[who], numbers[who]) / numbers[who])
    ratios = C.paired_ratios(per_call["unifiedarray (cuda:0)"], per_call["CuPy"])
    return {
        "workload": name,
        "rounds": rounds,
        "us": {n: C.median(v) * 1e6 for n, v in per_call.items()},
        "ratio": (C.median(ratios), C.quantile(ratios, 0.25), C.quantile(ratios, 0.75)),
    }


def render(results: list[dict[str, Any]], markdown: bool) -> str:
    rows = []
    for res in results:
        ratio, lo, hi = res["ratio"]
        rows.append(
            [
                res["workload"],
                C.fmt_time_us(res["us"]["CuPy"]),
                C.fmt_time_us(res["us"]["unifiedarray (cuda:0)"]),
                f"{C.fmt_ratio(ratio)} ({C.fmt_ratio(lo)}–{C.fmt_ratio(hi)})",
            ]
        )
    headers = ["workload (float32, cuda:0)", "CuPy µs", "unifiedarray µs", "unifiedarray / CuPy (IQR)"]
    return (C.markdown_table if markdown else C.text_table)(headers, rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--quick", action="store_true", help="small sizes, a few rounds (a smoke test)")
    parser.add_argument("--rounds", type=int, default=0, help="rounds per workload (default 12; --quick 2)")
    args = parser.parse_args()
    print(C.info_block(args.markdown))
    cuda = ua.backends.registry()["cuda"]
    if not cuda.available:
        print(f"\nNot run: no usable CUDA GPU ({cuda.unavailable_reason}).")
        return 0
    rounds = args.rounds or (2 if args.quick else 12)
    batch_s = 0.002 if args.quick else 0.02
    results = []
    for name in WORKLOADS:
        check(name, args.quick)
        results.append(measure(name, rounds, batch_s, args.quick))
        print(f"measured {name}", file=sys.stderr, flush=True)
    print(f"\nrounds per workload: {rounds}; batches of about {batch_s * 1e3:.0f} ms, each ended by a device "
          "synchronisation; times are medians over rounds, ratios medians of per-round ratios\n")  # fmt: skip
    print(render(results, args.markdown))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
