"""Pool acquire + release against plain allocation, side by side.

Host: ``MemoryPool.acquire`` + ``release`` (a hit after the first round),
and each of the two alone (timed over a batch of hits, then a batch of
releases), against ``np.empty`` of the same size (the allocation a pool
replaces) and against constructing a fresh ``UnifiedBuffer`` and taking its
host copy.
CUDA (where a GPU is present): against ``cupy.empty`` through CuPy's own
pool.

    python benchmarks/bench_pool.py [--markdown] [--rounds N]
"""

from __future__ import annotations

import argparse
import time
import timeit

import numpy as np
from _common import balanced_orders, info_block, markdown_table, median, paired_ratios, quantile, text_table

import unifiedarray as ua

SIZES = {"4 KiB": (1024,), "1 MiB": (262144,), "64 MiB": (16 * 1024 * 1024,)}


def split_timers(pool: ua.MemoryPool, shape: tuple[int, ...], device: str = "cpu") -> tuple[object, object]:
    """Self-timed contenders: ``number`` acquires that all hit (the pool holds
    that many released blocks first), then ``number`` releases; each returns
    its own µs per call, so the other half stays out of its time."""
    last: dict[str, float] = {}

    def batch(number: int) -> None:
        pool.trim()
        for b in [pool.acquire(shape, dtype=np.float32, device=device) for _ in range(number)]:
            pool.release(b)  # now `number` blocks of this size wait in the pool
        t0 = time.perf_counter()
        bufs = [pool.acquire(shape, dtype=np.float32, device=device) for _ in range(number)]
        t1 = time.perf_counter()
        for b in bufs:
            pool.release(b)
        t2 = time.perf_counter()
        del bufs
        last["acquire"], last["release"] = (t1 - t0) / number * 1e6, (t2 - t1) / number * 1e6

    # At most 256 MiB in one batch (4 blocks of 64 MiB), at least 4 calls.
    cap = max(4, min(64, (256 << 20) // (int(np.prod(shape)) * 4)))

    def acquire(number: int) -> float:
        batch(min(number, cap))
        return last["acquire"]

    def release(number: int) -> float:
        batch(min(number, cap))
        return last["release"]

    return acquire, release


def contenders(shape: tuple[int, ...]) -> dict[str, object]:
    pool = ua.MemoryPool()
    pool.release(pool.acquire(shape, dtype=np.float32))  # warm: later acquires hit

    def pooled() -> None:
        pool.release(pool.acquire(shape, dtype=np.float32))

    def empty() -> None:
        np.empty(shape, np.float32)

    def fresh_buffer() -> None:
        ua.UnifiedBuffer(shape, dtype=np.float32).fill(0)

    hit, release = split_timers(ua.MemoryPool(), shape)
    out = {
        "pool acquire+release": pooled,
        "pool acquire alone (a hit)": SelfTimed(hit),
        "pool release alone": SelfTimed(release),
        "np.empty": empty,
        "new UnifiedBuffer + fill": fresh_buffer,
    }
    if ua.backends._registry()["cuda"].available:
        import cupy

        dpool = ua.MemoryPool()
        dpool.release(dpool.acquire(shape, dtype=np.float32, device="cuda:0"))

        def pooled_cuda() -> None:
            dpool.release(dpool.acquire(shape, dtype=np.float32, device="cuda:0"))

        def cupy_empty() -> None:
            cupy.empty(shape, np.float32)

        hit_cuda, release_cuda = split_timers(ua.MemoryPool(), shape, "cuda:0")
        out.update(
            {
                "pool acquire+release (cuda)": pooled_cuda,
                "pool acquire alone, a hit (cuda)": SelfTimed(hit_cuda),
                "pool release alone (cuda)": SelfTimed(release_cuda),
                "cupy.empty (CuPy pool)": cupy_empty,
            }
        )
    return out


class SelfTimed:
    """A contender that times itself (see split_timers)."""

    def __init__(self, measure: object) -> None:
        self.measure = measure


def time_one(fn: object, number: int) -> float:
    if isinstance(fn, SelfTimed):
        return fn.measure(number)  # type: ignore[operator]
    return timeit.timeit(fn, number=number) / number * 1e6  # type: ignore[arg-type]


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
                times[name].append(time_one(fn, number))
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
