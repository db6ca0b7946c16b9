"""Pool acquire + release against plain allocation, side by side.

Host: ``MemoryPool.acquire`` + ``release`` (a hit after the first round)
against ``np.empty`` of the same size (the allocation a pool replaces) and
against constructing a fresh ``UnifiedBuffer`` and taking its host copy.
CUDA (where a GPU is present): against ``cupy.empty`` through CuPy's own
pool.

    python benchmarks/bench_pool.py [--markdown] [--rounds N]
"""

from __future__ import annotations

import argparse
import timeit

import numpy as np
from _common import balanced_orders, info_block, markdown_table, median, paired_ratios, quantile, text_table

import unifiedarray as ua

SIZES = {"4 KiB": (1024,), "1 MiB": (262144,), "64 MiB": (16 * 1024 * 1024,)}


def contenders(shape: tuple[int, ...]) -> dict[str, object]:
    pool = ua.MemoryPool()
    pool.release(pool.acquire(shape, dtype=np.float32))  # warm: later acquires hit

    def pooled() -> None:
        pool.release(pool.acquire(shape, dtype=np.float32))

    def empty() -> None:
        np.empty(shape, np.float32)

    def fresh_buffer() -> None:
        ua.UnifiedBuffer(shape, dtype=np.float32).fill(0)

    out = {"pool acquire+release": pooled, "np.empty": empty, "new UnifiedBuffer + fill": fresh_buffer}
    if ua.backends._registry()["cuda"].available:
        import cupy

        dpool = ua.MemoryPool()
        dpool.release(dpool.acquire(shape, dtype=np.float32, device="cuda:0"))

        def pooled_cuda() -> None:
            dpool.release(dpool.acquire(shape, dtype=np.float32, device="cuda:0"))

        def cupy_empty() -> None:
            cupy.empty(shape, np.float32)

        out.update({"pool acquire+release (cuda)": pooled_cuda, "cupy.empty (CuPy pool)": cupy_empty})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--rounds", type=int, default=12)
    args = ap.parse_args()
    print(info_block(args.markdown))
    rows = []
    for label, shape in SIZES.items():
        funcs = contenders(shape)
        names = list(funcs)
        times: dict[str, list[float]] = {n: [] for n in names}
        orders = balanced_orders(len(names))
        for r in range(args.rounds):
            for name in [names[i] for i in orders[r % len(orders)]]:
                fn = funcs[name]
                number = 2000 if "64 MiB" not in label else 200
                times[name].append(timeit.timeit(fn, number=number) / number * 1e6)
        base = times["np.empty"]
        for name in names:
            ratios = paired_ratios(times[name], base)
            rows.append(
                [
                    label,
                    name,
                    f"{median(times[name]):.2f}",
                    f"{median(ratios):.2f}x ({quantile(ratios, 0.25):.2f}-{quantile(ratios, 0.75):.2f})",
                ]
            )
    headers = ["size", "contender", "µs per call (median)", "vs np.empty (IQR)"]
    print(markdown_table(headers, rows) if args.markdown else text_table(headers, rows))
    if not ua.backends._registry()["cuda"].available:
        print("\nCUDA rows: not run, no usable CUDA GPU on this machine.")


if __name__ == "__main__":
    main()
