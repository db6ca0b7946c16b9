"""dask's threaded scheduler on MLX chunks under a device memory limit, against NumPy chunks.

The data is ``--factor`` times (4 by default) a device memory limit
(``set_device_memory_limit("mlx", ...)``): a float64 array of ``--mib`` MiB
in 1 MiB chunks, run by dask's threaded scheduler with ``--workers`` threads
(4 by default).  Two workloads:

* ``views``: ``(x * 2 + 1).sum()`` where the chunks are views of one parent,
  ``da.from_array(xp.asarray(a, device="mlx"), chunks=...)`` (the way
  docs/distributed.md builds them): every chunk reads the parent's copy;
* ``held``: the chunks of ``x * 2 + 1`` computed and held at once (the
  results alone are ``--factor`` times the limit: most must be spilled), then
  their sum.

Contenders, each in each round (rounds in a balanced order): NumPy chunks
(``da.from_array(a)``), MLX chunks under the limit, and MLX chunks with no
limit.  The MLX parent is made before the clock starts (under the limit for
the limited contender, so the limit counts it).  Reported: median seconds,
the per-round ratio to NumPy chunks (median), the bytes moved between host
and device during the computation (``track_transfers``, every worker thread
included), that figure over the data's size, and how many spills it held.

    python benchmarks/bench_spill_dask.py [--markdown] [--rounds N] [--workers N] [--mib N] [--factor F] [--quick]

About 20 seconds with the defaults (twelve rounds) on the project's 2-core VM.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _common import (
    add_plot_option,
    balanced_orders,
    info_block,
    machine_info,
    markdown_table,
    median,
    paired_ratios,
    plot_bars,
    plot_path,
    text_table,
)

import unifiedarray as xp
from unifiedarray import _spill

COLUMNS = 4096  # the data is (N, 4096) float64, in chunks of (256, 512): 1 MiB each
CHUNK_ROWS, CHUNK_COLUMNS = 256, 512


def make_parent(kind: str, host: np.ndarray, limit: int) -> object:
    """What ``da.from_array`` is given: the host array, or its MLX copy (made
    under the limit, for the limited contender, so that the limit counts it)."""
    if kind == "numpy":
        return host
    _spill.set_device_memory_limit("mlx", limit if kind == "mlx, limit" else None)
    return xp.asarray(host, device="mlx")


def run(workload: str, parent: object, workers: int) -> tuple[float, float, int, int]:
    """One timed computation: (seconds, the result, bytes moved, spills)."""
    import dask
    import dask.array as da

    x = da.from_array(parent, chunks=(CHUNK_ROWS, CHUNK_COLUMNS))
    y = x * 2 + 1
    with xp.track_transfers(max_records=None) as t:
        t0 = time.perf_counter()
        if workload == "views":
            out = float(y.sum().compute(scheduler="threads", num_workers=workers))
        else:
            chunks = dask.compute(*y.to_delayed().ravel(), scheduler="threads", num_workers=workers)
            out = float(sum(float(c.sum()) for c in chunks))
        seconds = time.perf_counter() - t0
    return seconds, out, t.nbytes, sum(r.reason == "spill" for r in t.records)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--rounds", type=int, default=12)
    ap.add_argument("--workers", type=int, default=4, help="threads of dask's threaded scheduler")
    ap.add_argument("--mib", type=int, default=64, help="the data's size in MiB")
    ap.add_argument("--factor", type=float, default=4.0, help="the data's size over the device limit")
    ap.add_argument("--workloads", default="views,held", help="of views, held")
    ap.add_argument("--quick", action="store_true", help="2 rounds (a smoke test, not a measurement)")
    add_plot_option(ap, "bench_spill_dask")
    args = ap.parse_args()
    if args.quick:
        args.rounds = 2
    if "mlx" not in xp.__array_namespace_info__().devices():
        raise SystemExit("MLX is not available on this machine: nothing to measure")

    host = np.random.default_rng(0).random((args.mib * 2**20 // (8 * COLUMNS), COLUMNS))
    limit = int(host.nbytes / args.factor)
    expected = {"views": float((host * 2 + 1).sum())}
    expected["held"] = expected["views"]
    kinds = ["numpy", "mlx, limit", "mlx, no limit"]
    workloads = args.workloads.split(",")
    times: dict[tuple[str, str], list[float]] = {}
    moved: dict[tuple[str, str], list[int]] = {}
    spills: dict[tuple[str, str], list[int]] = {}
    orders = balanced_orders(len(kinds))
    info = machine_info()
    try:
        for r in range(args.rounds):
            for workload in workloads:
                for i in orders[r % len(orders)]:
                    kind = kinds[i]
                    parent = make_parent(kind, host, limit)
                    seconds, out, nbytes, n_spills = run(workload, parent, args.workers)
                    del parent
                    _spill.set_device_memory_limit("mlx", None)
                    if not np.isclose(out, expected[workload], rtol=1e-9):
                        raise SystemExit(f"{workload}, {kind}: {out!r}, expected {expected[workload]!r}")
                    times.setdefault((workload, kind), []).append(seconds)
                    moved.setdefault((workload, kind), []).append(nbytes)
                    spills.setdefault((workload, kind), []).append(n_spills)
    finally:
        _spill.set_device_memory_limit("mlx", None)

    headers = [
        "workload",
        "chunks",
        "median s",
        "ratio to NumPy chunks",
        "bytes moved host/device",
        "x the data",
        "spills",
    ]
    rows = []
    panels = []
    for workload in workloads:
        base = times[(workload, "numpy")]
        bars = []
        for kind in kinds:
            t = times[(workload, kind)]
            nbytes = int(median(moved[(workload, kind)]))
            rows.append(
                [
                    workload,
                    "NumPy" if kind == "numpy" else f"UnifiedArray {kind}",
                    f"{median(t):.3f}",
                    f"{median(paired_ratios(t, base)):.2f}x",
                    f"{nbytes:,}",
                    f"{nbytes / host.nbytes:.2f}",
                    f"{int(median(spills[(workload, kind)])):,}",
                ]
            )
            bars.append((kind, median(t), kind))
        panels.append((f"{workload}: median s", bars, None))
    print(info_block(args.markdown, info))
    print()
    print(
        f"data: {host.nbytes / 2**20:.0f} MiB float64 in {host.nbytes // 2**20} chunks of 1 MiB; MLX limit "
        f"{limit / 2**20:.0f} MiB ({args.factor:g}x less); dask threaded scheduler, {args.workers} workers; "
        f"{args.rounds} rounds"
    )
    print()
    print(markdown_table(headers, rows) if args.markdown else text_table(headers, rows))
    written = plot_bars(
        plot_path(args), panels, xlabel="seconds (median over rounds)", title=__doc__.splitlines()[0], info=info
    )
    if written:
        print(f"\nplot: {written}")


if __name__ == "__main__":
    main()
