"""Host <-> MLX synchronisation of a ``UnifiedBuffer`` against the bare conversion.

For each size (8 MB, 256 MB) and dtype (float32, float64) this measures, side
by side in the same run:

host -> MLX
    *sync*: the host copy is made the only valid one (``buf.mark_host_dirty()``,
    or a real host write ``buf.host[...] = a`` with ``--dirty write``; outside
    the timed region), then ``buf.read("mlx")`` is timed: it uploads once.
    *bare*: ``mx.array(h, dtype=...)`` + ``mx.eval``, where ``h`` is the
    buffer's own host copy (the same memory the sync reads).  For reference,
    *bare+free* is the same conversion that also drops an earlier MLX array
    of the same size inside the timed region, as a sync must drop the stale
    MLX copy it replaces.

MLX -> host
    *sync*: the MLX copy is made the only valid one (``buf.mark_mlx_dirty()``,
    or taking the ``buf.mlx`` handle, which counts as an MLX write, with
    ``--dirty write``), then ``buf.to_numpy()`` is timed: it downloads once,
    into the host copy that already exists.
    *bare*: ``np.array(m)`` (a new host array) where ``m`` is the buffer's own
    MLX copy.  For reference, ``np.copyto(out, np.asarray(m))`` into an
    existing array (the least work a download can do) is measured as well.

The contenders alternate in rounds, in a balanced order (each runs in each
position, and right after each other one, equally often); the figure for
each is the median over rounds, and the ratio is the median of the
per-round ratios sync/bare, so that both halves of a ratio saw the same
machine noise.  Before the rounds, ``track_transfers()`` checks that each
timed sync moves exactly once; during the rounds the process-wide move
counter checks that every timed sync moved exactly once and every bare
conversion moved nothing through the library.

Target (from the project): a sync costs at most 1.1x the bare conversion.

Run: ``python benchmarks/bench_sync.py [--markdown] [--quick] [--dirty write]``.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from collections.abc import Callable
from typing import Any

import _common as C
import numpy as np

import unifiedarray as ua

try:
    import mlx.core as mx
except ImportError:  # pragma: no cover - the benchmark needs MLX
    sys.exit("bench_sync.py needs MLX (pip install 'mlx[cpu]' on Linux)")

MB = 1 << 20
TARGET = 1.10
_MX = {np.dtype(np.float32): mx.float32, np.dtype(np.float64): mx.float64}


class Case:
    """One size and dtype: a buffer with both copies, and the contenders."""

    def __init__(self, nbytes: int, dtype: Any, dirty: str) -> None:
        self.dtype = np.dtype(dtype)
        self.n = nbytes // self.dtype.itemsize
        self.nbytes = self.n * self.dtype.itemsize
        self.dirty = dirty
        rng = np.random.default_rng(0)
        self.a = rng.standard_normal(self.n).astype(self.dtype)
        self.buf = ua.UnifiedBuffer((self.n,), dtype=self.dtype)
        self.buf.copy_from(self.a)
        self.buf.read("mlx")  # both copies now exist and are valid
        self.out = np.empty_like(self.a)
        self.out.fill(0)  # touch every page: a download target that exists
        self.mxdt = _MX[self.dtype]
        self.src: Any = None  # the bare conversion's source, set outside timing
        self.keep: Any = None  # a bare result, dropped outside timing
        self.old: Any = None  # an MLX array the "bare+free" contender drops while timed

    # -- what happens before a timed call (never timed) -----------------------
    def host_written(self) -> None:
        if self.dirty == "mark":
            self.buf.mark_host_dirty()
        else:
            self.buf.host[...] = self.a

    def mlx_written(self) -> None:
        if self.dirty == "mark":
            self.buf.mark_mlx_dirty()
        else:
            handle = self.buf.mlx  # handing out the MLX handle is an MLX write
            mx.eval(handle)  # whatever MLX work is pending happens here, untimed

    def pre_h2d_bare(self) -> None:
        self.host_written()
        self.src = self.buf.read("cpu")  # host copy is valid: no move

    def pre_h2d_bare_free(self) -> None:
        self.pre_h2d_bare()
        self.old = mx.array(self.src, dtype=self.mxdt)  # stands for the stale copy a sync replaces
        mx.eval(self.old)

    def pre_d2h_bare(self) -> None:
        self.mlx_written()
        self.src = self.buf.read("mlx")  # MLX copy is valid: no move
        mx.eval(self.src)

    # -- the timed calls ---------------------------------------------------------
    def h2d_sync(self) -> None:
        self.buf.read("mlx")

    def h2d_bare(self) -> None:
        m = mx.array(self.src, dtype=self.mxdt)
        mx.eval(m)
        self.keep = m

    def h2d_bare_free(self) -> None:
        m = mx.array(self.src, dtype=self.mxdt)
        mx.eval(m)
        self.old = None  # freed here, inside the timed region, as the sync frees its stale copy
        self.keep = m

    def d2h_sync(self) -> None:
        self.buf.to_numpy()

    def d2h_bare(self) -> None:
        self.keep = np.array(self.src)

    def d2h_copyto(self) -> None:
        np.copyto(self.out, np.asarray(self.src))

    def post(self) -> None:
        self.keep = None
        self.src = None

    def contenders(self) -> dict[str, list[tuple[str, Callable[[], None], Callable[[], None], int]]]:
        """direction -> [(name, before, timed call, moves it must make)]."""
        return {
            "host→MLX": [
                ("sync", self.host_written, self.h2d_sync, 1),
                ("bare", self.pre_h2d_bare, self.h2d_bare, 0),
                ("bare+free", self.pre_h2d_bare_free, self.h2d_bare_free, 0),
            ],
            "MLX→host": [
                ("sync", self.mlx_written, self.d2h_sync, 1),
                ("bare", self.pre_d2h_bare, self.d2h_bare, 0),
                ("copyto", self.pre_d2h_bare, self.d2h_copyto, 0),
            ],
        }

    # -- checks ---------------------------------------------------------------------
    def check_one_move(self) -> None:
        """Each timed sync moves exactly once, the whole buffer, the right way."""
        for before, call, source, target in (
            (self.host_written, self.h2d_sync, "cpu", "mlx"),
            (self.mlx_written, self.d2h_sync, "mlx", "cpu"),
        ):
            before()
            with ua.track_transfers() as moves:
                call()
            assert moves.count == 1, f"{source}->{target}: expected exactly one move, got {moves.records}"
            rec = moves.records[0]
            assert (rec.source, rec.target, rec.nbytes) == (source, target, self.nbytes), rec

    def check_data(self) -> None:
        assert np.array_equal(self.buf.to_numpy(), self.a), "host copy differs from the data written"
        assert np.array_equal(np.array(self.buf.read("mlx")), self.a), "MLX copy differs from the data written"


def time_case(case: Case, rounds: int, warmup: int) -> dict[str, dict[str, list[float]]]:
    """Seconds per timed call: {direction: {contender: [one per round]}}."""
    groups = case.contenders()
    times: dict[str, dict[str, list[float]]] = {d: {name: [] for name, *_ in cs} for d, cs in groups.items()}
    directions = list(groups)
    for r in range(warmup + rounds):
        for direction in C.in_round(directions, r):
            for name, before, call, moves in C.in_round(groups[direction], r):
                before()
                count0 = ua.transfer_totals.snapshot()[0]
                gc.disable()
                t0 = time.perf_counter_ns()
                call()
                t1 = time.perf_counter_ns()
                gc.enable()
                moved = ua.transfer_totals.snapshot()[0] - count0
                case.post()
                if moved != moves:
                    raise AssertionError(f"{direction} {name}: expected {moves} move(s) in the timed call, saw {moved}")
                if r >= warmup:
                    times[direction][name].append((t1 - t0) * 1e-9)
    return times


def summarise(label: dict[str, str], times: dict[str, dict[str, list[float]]]) -> list[dict[str, Any]]:
    rows = []
    for direction, by in times.items():
        sync, bare = by["sync"], by["bare"]
        ratios = C.paired_ratios(sync, bare)
        row: dict[str, Any] = {
            **label,
            "direction": direction,
            "rounds": len(sync),
            "sync_ms": C.median(sync) * 1e3,
            "bare_ms": C.median(bare) * 1e3,
            "sync_min_ms": min(sync) * 1e3,
            "bare_min_ms": min(bare) * 1e3,
            "ratio": C.median(ratios),
            "ratio_p25": C.quantile(ratios, 0.25),
            "ratio_p75": C.quantile(ratios, 0.75),
            "ratio_of_mins": min(sync) / min(bare),
        }
        for ref_name in ("copyto", "bare+free"):
            if ref_name in by:
                ref = by[ref_name]
                row["ref_name"] = ref_name
                row["ref_ms"] = C.median(ref) * 1e3
                row["ratio_vs_ref"] = C.median(C.paired_ratios(sync, ref))
        row["met"] = row["ratio"] <= TARGET
        rows.append(row)
    return rows


def plot(rows: list[dict[str, Any]], path: str | None, info: dict[str, str]) -> None:
    """sync / bare per case, with the target."""
    bars = [(f"{r['size_mb']} MB {r['dtype']} {r['direction']}", r["ratio"], r["direction"]) for r in rows]
    written = C.plot_bars(
        path,
        [(f"UnifiedBuffer sync / bare conversion (target ≤ {TARGET:g}×)", bars, TARGET)],
        xlabel="ratio of times (median of per-round ratios)",
        title="Host ↔ MLX synchronisation against the bare conversion",
        info=info,
    )
    if written:
        print(f"\nplot: {written}")


def render(rows: list[dict[str, Any]], markdown: bool, dirty: str) -> str:
    headers = [
        "size",
        "dtype",
        "direction",
        "rounds",
        "bare ms",
        "sync ms",
        "sync/bare",
        "IQR of ratio",
        "min/min",
        f"≤ {TARGET:.2f}×?",
    ]
    body = []
    for r in rows:
        body.append(
            [
                f"{r['size_mb']} MB",
                r["dtype"],
                r["direction"],
                str(r["rounds"]),
                f"{r['bare_ms']:.2f}",
                f"{r['sync_ms']:.2f}",
                C.fmt_ratio(r["ratio"]),
                f"{r['ratio_p25']:.2f}–{r['ratio_p75']:.2f}",
                C.fmt_ratio(r["ratio_of_mins"]),
                "met" if r["met"] else "**missed**" if markdown else "MISSED",
            ]
        )
    ref_headers = ["size", "dtype", "direction", "reference", "reference ms", "sync ms", "sync/reference"]
    ref = [
        [
            f"{r['size_mb']} MB",
            r["dtype"],
            r["direction"],
            r["ref_name"],
            f"{r['ref_ms']:.2f}",
            f"{r['sync_ms']:.2f}",
            C.fmt_ratio(r["ratio_vs_ref"]),
        ]
        for r in rows
        if "ref_ms" in r
    ]

    def table(h: list[str], b: list[list[str]]) -> str:
        n_text = 4 if "reference" in h else 3  # text columns left, figures right
        return C.markdown_table(h, b, "l" * n_text + "r" * (len(h) - n_text)) if markdown else C.text_table(h, b)

    how = "mark_host_dirty() / mark_mlx_dirty()" if dirty == "mark" else "buf.host[...] = a / taking buf.mlx"
    parts = [
        f"Buffer sync vs bare conversion (copies made stale by {how}, outside the timed region).",
        "Times are medians over rounds; sync/bare is the median of per-round ratios.",
        "",
        table(headers, body),
        "",
        "References: the least work each sync has to do. host→MLX *bare+free*: the bare conversion that",
        "also drops an earlier MLX array of the same size inside the timed region, as a sync must drop",
        "the stale copy it replaces. MLX→host *copyto*: np.copyto(out, np.asarray(m)), a download into",
        "an existing array, which is what a sync does (the bare np.array(m) allocates a new one).",
        "",
        table(ref_headers, ref),
    ]
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--markdown", action="store_true", help="print Markdown tables (for docs/benchmarks.md)")
    p.add_argument("--quick", action="store_true", help="few rounds: a smoke test, not a measurement")
    p.add_argument(
        "--dirty",
        choices=("mark", "write"),
        default="mark",
        help="how a copy is made stale before a timed sync (default: mark_*_dirty)",
    )
    p.add_argument("--sizes", default="8,256", help="sizes in MB, comma separated (default: 8,256)")
    p.add_argument(
        "--rounds-small",
        type=int,
        default=120,
        help="rounds for sizes under 64 MB (default 120, raised to a whole number of balanced cycles)",
    )
    p.add_argument(
        "--rounds-large", type=int, default=21, help="rounds for sizes of 64 MB and more (default 21, raised likewise)"
    )
    p.add_argument("--json", metavar="FILE", help="also write every measurement to FILE")
    p.add_argument("--render", metavar="FILE", help="measure nothing: print the tables of a --json FILE")
    C.add_plot_option(p, "bench_sync")
    args = p.parse_args(argv)

    if args.render:
        with open(args.render) as f:
            saved = json.load(f)
        print(C.info_block(args.markdown, saved["machine"]), end="\n\n")
        print(render(saved["rows"], args.markdown, saved["dirty"]))
        print(f"\n(dirty mode: {saved['dirty']}; rendered from {args.render})")
        plot(saved["rows"], C.plot_path(args), saved["machine"])
        return 0

    if args.quick:
        args.rounds_small, args.rounds_large = 5, 3
    sizes = [int(s) for s in args.sizes.split(",")]
    info = C.machine_info()
    print(C.info_block(args.markdown, info), end="\n\n", flush=True)

    started = time.perf_counter()
    rows: list[dict[str, Any]] = []
    raw: list[dict[str, Any]] = []
    for size in sizes:
        for dtype in ("float32", "float64"):
            large = size >= 64
            rounds = C.round_multiple(args.rounds_large if large else args.rounds_small, 2, 3)
            warmup = 2 if large else 3
            case = Case(size * MB, dtype, args.dirty)
            case.check_one_move()
            times = time_case(case, rounds, warmup)
            case.check_data()
            label = {"size_mb": size, "dtype": dtype}
            rows += summarise(label, times)
            raw.append({**label, "seconds": times})
            print(
                f"# {size} MB {dtype}: done ({time.perf_counter() - started:.0f} s so far)", file=sys.stderr, flush=True
            )
            del case
            gc.collect()

    print(render(rows, args.markdown, args.dirty))
    print(f"\n(dirty mode: {args.dirty}; wall time {time.perf_counter() - started:.0f} s)")
    plot(rows, C.plot_path(args), info)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": info, "dirty": args.dirty, "rows": rows, "raw": raw}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
