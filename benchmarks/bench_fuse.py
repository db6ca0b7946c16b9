"""``unifiedarray.fuse`` against eager evaluation, side by side in one run.

Cases (the targets of issue 24):

* host: the 1000×1000 float64 chain ``(a*2 + b)/3 - a*b + 1``, fused, against
  NumPy eager on the same data (target ≤ 0.5×), and the same chain with a
  final ``sum`` (≤ 0.5×);
* MLX: the same chain in float32, fused, against eager raw MLX (``mx``
  operators, the result evaluated in the timing; ≤ 0.3×);
* small arrays: the chain on (8,) float64, the fused call against the eager
  unifiedarray call (≤ 1.2×).

Yardsticks in the same rounds, for a machine whose load moves the ratios:
the host chain written by hand block by block with two temporaries (what
``fuse`` should approach), the fused function in ``--threads`` threads, and
raw ``mx.compile`` of the chain on MLX (what ``fuse`` adds to it).

Each round times every contender of a case once (a batch of calls, in a
balanced order that changes from round to round); the figure is the median
of the per-round ratios, with the interquartile range as the spread, in
wall time and in CPU time of the process.

Run: ``python benchmarks/bench_fuse.py [--markdown] [--quick] [--rounds N] [--threads N]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any

import _common as C
import numpy as np

import unifiedarray as xp


def chain(a: Any, b: Any) -> Any:
    return (a * 2 + b) / 3 - a * b + 1


def chain_sum(a: Any, b: Any) -> Any:
    return xp.sum((a * 2 + b) / 3 - a * b + 1)


def numpy_chain_sum(a: np.ndarray, b: np.ndarray) -> Any:
    return np.sum((a * 2 + b) / 3 - a * b + 1)


BLOCK = 16384


def hand_blocked_chain(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The yardstick: the chain written by hand, block by block with two
    temporaries (what ``fuse``'s host evaluation should approach)."""
    out = np.empty_like(a)
    fa, fb, fo = a.reshape(-1), b.reshape(-1), out.reshape(-1)
    t, u = np.empty(BLOCK), np.empty(BLOCK)
    for lo in range(0, fa.size, BLOCK):
        hi = min(lo + BLOCK, fa.size)
        x, y, v, w = fa[lo:hi], fb[lo:hi], t[: hi - lo], u[: hi - lo]
        np.multiply(x, 2, out=v)
        np.add(v, y, out=v)
        np.divide(v, 3, out=v)
        np.multiply(x, y, out=w)
        np.subtract(v, w, out=w)
        np.add(w, 1, out=fo[lo:hi])
    return out


def hand_blocked_chain_sum(a: np.ndarray, b: np.ndarray) -> Any:
    """The yardstick for the sum: block sums of the hand-written blocks (not
    NumPy's order of additions; ``fuse`` keeps that order)."""
    fa, fb = a.reshape(-1), b.reshape(-1)
    t, u = np.empty(BLOCK), np.empty(BLOCK)
    total = 0.0
    for lo in range(0, fa.size, BLOCK):
        hi = min(lo + BLOCK, fa.size)
        x, y, v, w = fa[lo:hi], fb[lo:hi], t[: hi - lo], u[: hi - lo]
        np.multiply(x, 2, out=v)
        np.add(v, y, out=v)
        np.divide(v, 3, out=v)
        np.multiply(x, y, out=w)
        np.subtract(v, w, out=w)
        np.add(w, 1, out=w)
        total += np.sum(w)
    return total


Case = tuple[str, float, dict[str, Callable[[], Any]], str, int]


def cases(quick: bool, threads: int) -> list[Case]:
    """(name, target, contenders (the first is the one the target is for),
    the reference every contender is compared with, calls per batch)."""
    rng = np.random.default_rng(0)
    a, b = rng.random((1000, 1000)), rng.random((1000, 1000))
    ua, ub = xp.asarray(a), xp.asarray(b)
    fused, fused_sum = xp.fuse(chain, threads=1), xp.fuse(chain_sum, threads=1)
    fused_t, fused_sum_t = xp.fuse(chain, threads=threads), xp.fuse(chain_sum, threads=threads)
    sa, sb = xp.asarray(rng.random(8)), xp.asarray(rng.random(8))
    out: list[Case] = [
        (
            "host chain 1000×1000 float64",
            0.5,
            {
                "fused": lambda: fused(ua, ub),
                f"fused, {threads} threads": lambda: fused_t(ua, ub),
                "hand-blocked NumPy": lambda: hand_blocked_chain(a, b),
                "NumPy": lambda: chain(a, b),
            },
            "NumPy",
            3,
        ),
        (
            "host chain + sum 1000×1000 float64",
            0.5,
            {
                "fused": lambda: fused_sum(ua, ub),
                f"fused, {threads} threads": lambda: fused_sum_t(ua, ub),
                "hand-blocked NumPy": lambda: hand_blocked_chain_sum(a, b),
                "NumPy": lambda: numpy_chain_sum(a, b),
            },
            "NumPy",
            3,
        ),
        (
            "small chain (8,) float64",
            1.2,
            {"fused": lambda: fused(sa, sb), "eager": lambda: chain(sa, sb)},
            "eager",
            2000,
        ),
    ]
    try:
        import mlx.core as mx
    except ImportError:
        print("MLX is not installed: no MLX case", file=sys.stderr)
        return out
    ma, mb = a.astype(np.float32), b.astype(np.float32)
    xa, xb = xp.asarray(ma, device="mlx"), xp.asarray(mb, device="mlx")
    raw_a, raw_b = mx.array(ma), mx.array(mb)
    mx.eval(raw_a, raw_b)
    compiled = mx.compile(chain)

    def fused_mlx() -> None:
        mx.eval(fused(xa, xb).buffer.read("mlx"))  # the result's MLX copy, evaluated

    def compiled_mlx() -> None:
        mx.eval(compiled(raw_a, raw_b))

    def eager_mlx() -> None:
        mx.eval(chain(raw_a, raw_b))

    out.append(
        (
            "MLX chain 1000×1000 float32",
            0.3,
            {"fused": fused_mlx, "raw mx.compile": compiled_mlx, "raw MLX": eager_mlx},
            "raw MLX",
            # Batches of ten: the library evaluates on its own MLX stream and raw
            # MLX on the default one, and the first call after the other stream
            # ran pays for the switch (a cost of interleaving, not of fusing).
            10,
        )
    )
    return out


def measure(contenders: dict[str, Callable[[], Any]], reference: str, calls: int, rounds: int) -> dict[str, Any]:
    """Per contender: its median time, and the median (and quartiles) of its
    per-round ratios to the reference, in wall and CPU time."""
    names = list(contenders)
    for fn in contenders.values():  # warm: traces, compiles, caches
        for _ in range(3):
            fn()
    wall: dict[str, list[float]] = {k: [] for k in names}
    cpu: dict[str, list[float]] = {k: [] for k in names}
    for r in range(rounds):
        for k in C.in_round(names, r):
            fn = contenders[k]
            w0, c0 = time.perf_counter(), time.process_time()
            for _ in range(calls):
                fn()
            wall[k].append((time.perf_counter() - w0) / calls)
            cpu[k].append((time.process_time() - c0) / calls)
    res: dict[str, Any] = {"us": {k: C.median(v) * 1e6 for k, v in wall.items()}}
    for k in names:
        for what, series in (("wall", wall), ("cpu", cpu)):
            rs = C.paired_ratios(series[k], series[reference])
            res[k, what] = (C.median(rs), C.quantile(rs, 0.25), C.quantile(rs, 0.75))
    return res


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--quick", action="store_true", help="a few rounds (a smoke test, not a measurement)")
    parser.add_argument("--rounds", type=int, default=0, help="rounds per case (default 20; --quick 2)")
    parser.add_argument("--threads", type=int, default=2, help="threads of the threaded host contender (default 2)")
    C.add_plot_option(parser, "bench_fuse")
    args = parser.parse_args()
    rounds = args.rounds or (2 if args.quick else 20)
    rounds = C.round_multiple(rounds, 2, 3, 4)
    info = C.machine_info()
    print(C.info_block(args.markdown, info))
    print()
    rows, bars = [], []
    for name, target, contenders, reference, calls in cases(args.quick, args.threads):
        res = measure(contenders, reference, max(1, calls // (10 if args.quick else 1)), rounds)
        panel = []
        for k in contenders:
            if k == reference:
                continue
            wall, cpu = res[k, "wall"], res[k, "cpu"]
            first = k == next(iter(contenders))
            rows.append(
                [
                    name if first else "",
                    k,
                    f"{C.fmt_time_us(res['us'][k])} µs",
                    f"{reference}: {C.fmt_time_us(res['us'][reference])} µs",
                    f"{C.fmt_ratio(wall[0])} ({C.fmt_ratio(wall[1])}–{C.fmt_ratio(wall[2])})",
                    f"{C.fmt_ratio(cpu[0])} ({C.fmt_ratio(cpu[1])}–{C.fmt_ratio(cpu[2])})",
                    f"≤ {target}×" if first else "",
                    ("yes" if wall[0] <= target else "no") if first else "",
                ]
            )
            panel += [(f"{k} / {reference} (wall)", wall[0], "wall"), ("(CPU)", cpu[0], "cpu")]
        bars.append((name, panel, target))
    headers = ["case", "contender", "time", "reference", "ratio, wall (IQR)", "ratio, CPU (IQR)", "target", "met"]
    print(C.markdown_table(headers, rows) if args.markdown else C.text_table(headers, rows))
    written = C.plot_bars(
        C.plot_path(args),
        bars,
        xlabel="time of the contender / time of the reference (median of per-round ratios)",
        title="unifiedarray.fuse against eager evaluation",
        info=info,
    )
    if written:
        print(f"\nplot: {written}")


if __name__ == "__main__":
    main()
