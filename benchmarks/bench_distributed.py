"""dask.distributed with NumPy chunks against UnifiedArray chunks (cpu, mlx).

A 4000x4000 float64 array in 1000x1000 chunks (16 chunks of 8 MB), made on
the workers and persisted (creation is not timed), on one
``LocalCluster(processes=True, n_workers=2, threads_per_worker=1)``; then
``(x + 1).sum()`` and ``(x @ x.T).sum()``, each contender in each round
(rounds in a balanced order, so that no contender always runs first).
Reported: median seconds, the per-round ratio to NumPy chunks (median), the
bytes the workers sent each other (``transfer_outgoing_bytes_total``) and the
moves between memory spaces the workers recorded, per computation.

    python benchmarks/bench_distributed.py [--markdown] [--rounds N] [--kinds numpy,cpu,mlx] [--cases sum,matmul]

About 10 minutes with two rounds: MLX's CPU build multiplies float64
matrices without BLAS (5 s for one 1000x1000 product against NumPy's 0.1 s),
so the MLX matmul rows dominate.
"""

from __future__ import annotations

import argparse
import time

from _common import balanced_orders, info_block, markdown_table, median, paired_ratios, text_table

import unifiedarray as xp
from unifiedarray import _dask

N, CHUNK = 4000, 1000


def _worker_bytes(dask_worker) -> int:  # runs on each worker
    return dask_worker.transfer_outgoing_bytes_total


def _moves() -> tuple[int, int]:  # runs on each worker
    return xp.transfer_totals.snapshot()


def make(kind: str):
    import dask.array as da

    x = da.random.RandomState(0).random_sample((N, N), chunks=CHUNK)
    if kind != "numpy":
        x = x.map_blocks(_dask.intake_chunk, device=kind, meta=xp.empty((0, 0), device=kind))
    return x


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--kinds", default="numpy,cpu,mlx", help="chunk kinds, of numpy, cpu, mlx")
    parser.add_argument("--cases", default="sum,matmul", help="of sum, matmul (matmul on mlx takes minutes)")
    args = parser.parse_args()

    import dask
    from distributed import Client, LocalCluster, wait

    present = ["numpy", "cpu"] + (["mlx"] if "mlx" in xp.__array_namespace_info__().devices() else [])
    kinds = [k for k in args.kinds.split(",") if k in present]
    all_cases = {
        "sum": ("(x + 1).sum()", lambda x: (x + 1).sum()),
        "matmul": ("(x @ x.T).sum()", lambda x: (x @ x.T).sum()),
    }
    cases = dict(all_cases[c] for c in args.cases.split(","))
    with (
        LocalCluster(processes=True, n_workers=2, threads_per_worker=1, dashboard_address=":0") as cluster,
        Client(cluster) as client,
        dask.config.set({"distributed.worker.memory.target": False, "distributed.worker.memory.spill": False}),
    ):
        client.register_plugin(_dask.DevicePlugin())
        data = {k: make(k).persist() for k in kinds}
        wait(list(data.values()))
        times: dict[tuple[str, str], list[float]] = {}
        sent: dict[tuple[str, str], list[int]] = {}
        moved: dict[tuple[str, str], list[int]] = {}
        results: dict[tuple[str, str], float] = {}
        orders = balanced_orders(len(kinds))
        for case, fn in cases.items():
            for r in range(args.rounds):
                for i in orders[r % len(orders)]:
                    kind = kinds[i]
                    expr = fn(data[kind])
                    b0 = sum(client.run(_worker_bytes).values())
                    m0 = sum(nb for _, nb in client.run(_moves).values())
                    t0 = time.perf_counter()
                    out = expr.compute()
                    t = time.perf_counter() - t0
                    times.setdefault((case, kind), []).append(t)
                    sent.setdefault((case, kind), []).append(sum(client.run(_worker_bytes).values()) - b0)
                    moved.setdefault((case, kind), []).append(sum(nb for _, nb in client.run(_moves).values()) - m0)
                    results[(case, kind)] = float(out)

    headers = [
        "computation",
        "chunks",
        "median s",
        "ratio to NumPy chunks",
        "bytes between workers",
        "bytes moved host/device",
        "result",
    ]
    rows = []
    for case in cases:
        base = times[(case, "numpy")]
        for kind in kinds:
            t = times[(case, kind)]
            ratio = median(paired_ratios(t, base))
            rows.append(
                [
                    case,
                    "NumPy" if kind == "numpy" else f"UnifiedArray {kind}",
                    f"{median(t):.3f}",
                    f"{ratio:.2f}x",
                    f"{int(median(sent[(case, kind)])):,}",
                    f"{int(median(moved[(case, kind)])):,}",
                    f"{results[(case, kind)]:.6g}",
                ]
            )
    print(info_block(args.markdown))
    print()
    print(markdown_table(headers, rows) if args.markdown else text_table(headers, rows))


if __name__ == "__main__":
    main()
