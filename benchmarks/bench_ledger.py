"""What the transfer ledger costs.

Two questions, answered in one run:

1. Does an active ledger change the per-call overhead of the namespace
   benchmark's small cases?  Each of ``a + b``, ``xp.sum(a)``, ``a[1:3]`` and
   ``xp.asarray(L)`` on shape (8,) is timed plainly and inside
   ``track_transfers()`` (entered in a copied ``contextvars`` context, so the
   two timings alternate without the ledger leaking into the plain one).
   The project's limit: at most 3% (a ratio ≤ 1.03).

2. What share of the smallest move is the recording?  One stale read of an
   8-element float64 array from the host to MLX (the host copy written, then
   read on MLX: exactly one counted move per call) is timed, and so is the
   bookkeeping alone (``transfer()`` around no copy: the guard check, the
   clock and the record).  The share is their ratio.

3. Is its memory bounded?  A million moves through the recording path
   (``transfer()`` around no copy) inside ``track_transfers()`` with the
   default ring, under ``tracemalloc``: the memory the ledger holds at the
   end, against what a ledger keeping every record holds after 100,000.

Rounds alternate the two contenders in a balanced order and each ratio is the
median of per-round ratios, as in ``bench_overhead.py``.

Run: ``python benchmarks/bench_ledger.py [--markdown] [--quick]``.
"""

from __future__ import annotations

import argparse
import contextvars
import json
import os
import sys
import time
import timeit
import tracemalloc
from collections.abc import Callable
from typing import Any

import _common as C
import numpy as np

import unifiedarray as ua
from unifiedarray._ledger import transfer

SMALL_OPS = {"a + b": "a + b", "sum(a)": "xp.sum(a)", "a[1:3]": "a[1:3]", "asarray(list)": "xp.asarray(L)"}
LIMIT = 1.03


def calibrate(fn: Callable[[int], float], target_s: float) -> int:
    number = 1
    while True:
        t = fn(number)
        if t >= target_s or number >= 1 << 20:
            return number
        number = max(number * 2, int(number * target_s / max(t, 1e-9) * 0.8))


def paired(timers: dict[str, Callable[[int], float]], rounds: int, batch_s: float) -> dict[str, Any]:
    """Per-call medians and the median per-round ratio of the second contender to the first."""
    names = list(timers)
    numbers = {n: calibrate(t, batch_s) for n, t in timers.items()}
    for n, t in timers.items():
        t(numbers[n])  # warm-up
    per_call: dict[str, list[float]] = {n: [] for n in names}
    for r in range(rounds):
        for n in C.in_round(names, r):
            per_call[n].append(timers[n](numbers[n]) / numbers[n])
    rs = C.paired_ratios(per_call[names[1]], per_call[names[0]])
    return {
        "us": {n: C.median(v) * 1e6 for n, v in per_call.items()},
        "ratio": C.median(rs),
        "ratio_iqr": (C.quantile(rs, 0.25), C.quantile(rs, 0.75)),
    }


#: The clock: wall time (``--clock wall``) or the CPU time of this thread
#: (``--clock cpu``: what another process's use of the CPU cannot inflate).
CLOCK: Callable[[], float] = timeit.default_timer


def ledger_on_small_ops(rounds: int, batch_s: float) -> list[dict[str, Any]]:
    rng = np.random.default_rng(1)
    env = {
        "xp": ua,
        "a": ua.asarray(rng.standard_normal(8)),
        "b": ua.asarray(rng.standard_normal(8)),
        "L": rng.standard_normal(8).tolist(),
    }
    tracked = contextvars.copy_context()
    ledger_cm = ua.track_transfers()
    ledger = tracked.run(ledger_cm.__enter__)  # active in `tracked` only
    out = []
    for op, stmt in SMALL_OPS.items():
        timer = timeit.Timer(stmt, globals=env, timer=CLOCK)
        res = paired({"plain": timer.timeit, "ledger": lambda n, t=timer: tracked.run(t.timeit, n)}, rounds, batch_s)
        res["op"] = op
        out.append(res)
    tracked.run(ledger_cm.__exit__, None, None, None)  # left in the context it was entered in
    if ledger.count:
        raise AssertionError(f"the small operations moved data: {ledger.report()}")
    return out


def recording_share(rounds: int, batch_s: float) -> dict[str, Any] | None:
    try:
        x = ua.asarray(np.arange(8.0), device="mlx")
    except Exception as exc:
        print(f"MLX unavailable, recording share not measured: {exc}", file=sys.stderr)
        return None
    buf = x.buffer
    buf.sync_to_host()

    def stale_read(n: int) -> float:
        # Each call: the host copy is declared written, then MLX is read: one move.
        t = 0.0
        for _ in range(n):
            buf.mark_host_dirty()
            start = CLOCK()
            buf.read("mlx")
            t += CLOCK() - start
        return t

    def bookkeeping(n: int) -> float:
        start = CLOCK()
        for _ in range(n):
            with transfer("cpu", "mlx", 64, "bench_ledger"):
                pass
        return CLOCK() - start

    with ua.track_transfers() as ledger:
        stale_read(10)
    if ledger.count != 10:
        raise AssertionError(f"expected 10 moves, the ledger saw {ledger.count}")
    res = paired({"move": stale_read, "bookkeeping": bookkeeping}, rounds, batch_s)
    res["share"] = res["ratio"]
    return res


def memory_over_moves(moves: int = 1_000_000) -> dict[str, Any]:
    """Traced memory held by a default ledger after ``moves`` moves, and by an
    unbounded one after ``moves // 10`` (its size grows with the moves)."""
    out: dict[str, Any] = {"moves": moves}
    for label, max_records, n in (
        ("default ring", ua._ledger.DEFAULT_MAX_RECORDS, moves),
        ("unbounded", None, moves // 10),
    ):
        tracemalloc.start()
        try:
            base = tracemalloc.get_traced_memory()[0]
            with ua.track_transfers(max_records=max_records) as ledger:
                for _ in range(n):
                    with transfer("cpu", "mlx", 64, "bench_ledger", guarded=False):
                        pass
                held = tracemalloc.get_traced_memory()[0] - base
        finally:
            tracemalloc.stop()
        if ledger.count != n or ledger.nbytes != 64 * n:
            raise AssertionError(f"{label}: the totals are not exact ({ledger.count} moves, {ledger.nbytes} bytes)")
        out[label] = {"moves": n, "bytes": held, "records": len(ledger.records), "dropped": ledger.dropped}
    return out


def example_timeline(path: str | None) -> None:
    """The ledger's own picture of a small mixed host/MLX program (for the
    docs): arrays made on MLX, a host array mixed in, results read back."""
    if path is None:
        return
    rng = np.random.default_rng(0)
    with ua.track_transfers() as ledger:
        w = ua.asarray(rng.standard_normal((2048, 512)).astype(np.float32), device="mlx")
        for _ in range(5):
            x = ua.asarray(rng.standard_normal((256, 2048)).astype(np.float32))  # made on the host
            y = x @ w  # x moves up: the smaller operand moves to the larger one
            _ = float(ua.sum(y))  # a Python scalar: it comes down
            y.buffer.sync_to_host()  # an explicit move down
    ledger.plot(path)
    print(f"example timeline: {path} ({ledger.count} moves)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--quick", action="store_true", help="fewer rounds (a smoke test)")
    parser.add_argument("--json", help="also write the raw results here")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall", help="wall time or this thread's CPU time")
    C.add_plot_option(parser, "bench_ledger")
    parser.add_argument(
        "--example",
        default=os.path.join(C.PLOT_DIR, "ledger_timeline.png"),
        help="also draw the ledger's picture of a small program here (default %(default)s)",
    )
    args = parser.parse_args()
    rounds, batch_s = (4, 0.002) if args.quick else (C.round_multiple(40, 2), 0.002)
    global CLOCK
    CLOCK = time.thread_time if args.clock == "cpu" else timeit.default_timer
    info = C.machine_info()
    print(f"clock: {args.clock}")
    small = ledger_on_small_ops(rounds, batch_s)
    share = recording_share(rounds, batch_s)
    memory = memory_over_moves(100_000 if args.quick else 1_000_000)
    table = C.markdown_table if args.markdown else C.text_table
    rows = [
        [
            f"`{r['op']}`" if args.markdown else r["op"],
            C.fmt_time_us(r["us"]["plain"]),
            C.fmt_time_us(r["us"]["ledger"]),
            C.fmt_ratio(r["ratio"]),
            f"{C.fmt_ratio(r['ratio_iqr'][0])}–{C.fmt_ratio(r['ratio_iqr'][1])}",
            "met" if r["ratio"] <= LIMIT else "missed",
        ]
        for r in small
    ]
    print(C.info_block(args.markdown, info))
    print()
    print(table(["op (8,) float64", "plain µs", "in track_transfers µs", "ratio", "IQR", f"≤ {LIMIT}×"], rows))
    if share is not None:
        print()
        print(
            table(
                ["8-element host→MLX stale read µs", "recording alone µs", "recording share"],
                [
                    [
                        C.fmt_time_us(share["us"]["move"]),
                        C.fmt_time_us(share["us"]["bookkeeping"]),
                        f"{share['share'] * 100:.1f}%",
                    ]
                ],
            )
        )
    print()
    print(
        table(
            ["ledger", "moves", "records kept", "dropped", "memory held (tracemalloc)", "bytes per move"],
            [
                [
                    label,
                    f"{m['moves']:,}",
                    f"{m['records']:,}",
                    f"{m['dropped']:,}",
                    f"{m['bytes'] / 2**20:.2f} MiB",
                    f"{m['bytes'] / m['moves']:.1f}",
                ]
                for label, m in memory.items()
                if label != "moves"
            ],
        )
    )
    written = C.plot_bars(
        C.plot_path(args),
        [
            (
                f"inside track_transfers() / outside (target ≤ {LIMIT}×)",
                [(r["op"], r["ratio"], "ledger") for r in small],
                LIMIT,
            )
        ],
        xlabel="ratio of times (median of per-round ratios)",
        title="What the transfer ledger costs",
        info=info,
    )
    if written:
        print(f"\nplot: {written}")
    if not args.quick and not args.no_plot:
        example_timeline(args.example)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"small": small, "recording": share, "memory": memory}, f, indent=1, default=str)


if __name__ == "__main__":
    main()
