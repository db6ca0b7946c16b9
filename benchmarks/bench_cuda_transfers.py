"""Host <-> CUDA transfers: unifiedarray's syncs against bare CuPy, side by side.

For each size (1 MB, 64 MB, 1 GB by default) and direction, four contenders
run in balanced orders over the rounds:

* host to device:
  - ``ua pageable``: a buffer whose host copy (ordinary memory) was just
    written (``mark_host_dirty()``), then ``sync_to_device()``: the upload
    into the device copy it already has (large ones staged through pinned
    chunks);
  - ``ua pinned``: the same with ``UnifiedBuffer(..., pinned=True)``;
  - ``cupy pageable``: ``dev.set(host)`` from ordinary memory, synchronised;
  - ``cupy pinned``: ``dev.set(host)`` from ``cupyx.empty_pinned`` memory.
* device to host: the same four with ``mark_device_dirty()`` and
  ``sync_to_host()`` against ``dev.get(out=host)``.

Figures: median GB/s, the per-round ratio of each unifiedarray contender to
bare CuPy's of the same kind (the target: at least 0.90 of bare CuPy's
pinned bandwidth), and the PCIe link's limit where ``nvidia-smi`` reports
the link (generation and width).  Without a usable GPU it says so and exits.

    python benchmarks/bench_cuda_transfers.py [--markdown] [--sizes 1 64 1024] [--rounds N]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import time
from collections.abc import Callable

import numpy as np
from _common import (
    add_plot_option,
    balanced_orders,
    info_block,
    markdown_table,
    median,
    paired_ratios,
    plot_bars,
    plot_path,
    quantile,
    text_table,
)

import unifiedarray as ua

# GB/s per lane after encoding, by PCIe generation.
_LANE_GBPS = {1: 0.25, 2: 0.5, 3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563}


def pcie_limit() -> tuple[str, float] | None:
    """("gen N xW", GB/s per direction) from nvidia-smi, or None."""
    if shutil.which("nvidia-smi") is None:
        return None
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=pcie.link.gen.max,pcie.link.width.max", "--format=csv,noheader,nounits"],
            capture_output=True, text=True, timeout=20, check=True,
        ).stdout.splitlines()[0]  # fmt: skip
        gen, width = (int(v.strip()) for v in out.split(","))
    except Exception:
        return None
    return f"gen {gen} x{width}", _LANE_GBPS.get(gen, float("nan")) * width


class Case:
    """The buffers and arrays of one size, made once and reused by every round."""

    def __init__(self, nbytes: int) -> None:
        import cupy
        import cupyx

        n = nbytes // 4
        self.nbytes = n * 4
        data = np.random.default_rng(0).random(n, dtype=np.float32)
        self.pageable = ua.UnifiedBuffer((n,), dtype=np.float32, device="cuda:0")
        self.pinned = ua.UnifiedBuffer((n,), dtype=np.float32, device="cuda:0", pinned=True)
        for buf in (self.pageable, self.pinned):
            buf.copy_from(data)
            buf.read("cpu")
            buf.read("cuda:0")  # both copies exist from here on: syncs move into them
        self.host = data.copy()
        self.host_pinned = cupyx.empty_pinned((n,), np.float32)
        self.host_pinned[...] = data
        self.dev = cupy.asarray(data)
        self.sync = cupy.cuda.get_current_stream().synchronize

    def contenders(self, direction: str) -> dict[str, tuple[Callable[[], None], Callable[[], None]]]:
        """name -> (untimed preparation, timed transfer)."""
        if direction == "h2d":
            return {
                "ua pageable": (self.pageable.mark_host_dirty, self.pageable.sync_to_device),
                "ua pinned": (self.pinned.mark_host_dirty, self.pinned.sync_to_device),
                "cupy pageable": (self.sync, lambda: (self.dev.set(self.host), self.sync())),
                "cupy pinned": (self.sync, lambda: (self.dev.set(self.host_pinned), self.sync())),
            }
        return {
            "ua pageable": (self.pageable.mark_device_dirty, self.pageable.sync_to_host),
            "ua pinned": (self.pinned.mark_device_dirty, self.pinned.sync_to_host),
            "cupy pageable": (self.sync, lambda: self.dev.get(out=self.host)),
            "cupy pinned": (self.sync, lambda: self.dev.get(out=self.host_pinned)),
        }

    def check(self) -> None:
        """The syncs moved the data intact (a benchmark of a wrong copy is worthless)."""
        for buf in (self.pageable, self.pinned):
            np.testing.assert_array_equal(buf.read("cuda:0").get(), self.host)


def time_direction(case: Case, direction: str, rounds: int) -> dict[str, list[float]]:
    funcs = case.contenders(direction)
    names = list(funcs)
    orders = balanced_orders(len(names))
    times: dict[str, list[float]] = {n: [] for n in names}
    for prepare, run in funcs.values():  # warm-up: staging buffers, pools, streams
        prepare()
        run()
    for r in range(rounds):
        for i in orders[r % len(orders)]:
            prepare, run = funcs[names[i]]
            prepare()
            t0 = time.perf_counter()
            run()
            times[names[i]].append(time.perf_counter() - t0)
    return times


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--sizes", type=int, nargs="+", default=[1, 64, 1024], help="MB")
    ap.add_argument("--rounds", type=int, default=12)
    add_plot_option(ap, "bench_cuda_transfers")
    args = ap.parse_args()
    print(info_block(args.markdown))
    cuda = ua.backends.registry()["cuda"]
    if not cuda.available:
        print(f"\nNot run: no usable CUDA GPU ({cuda.unavailable_reason}).")
        return 0
    link = pcie_limit()
    print(f"\nPCIe link: {link[0]}, {link[1]:.1f} GB/s per direction" if link else "\nPCIe link: not reported")
    rows: list[list[str]] = []
    bars: list[tuple[str, float, str]] = []
    for mb in args.sizes:
        case = Case(mb << 20)
        rounds = args.rounds if mb < 1024 else max(4, args.rounds // 2)
        for direction in ("h2d", "d2h"):
            times = time_direction(case, direction, rounds)
            case.check()
            for name, ts in times.items():
                gbps = [case.nbytes / t / 1e9 for t in ts]
                kind = "pinned" if "pinned" in name else "pageable"
                ratios = paired_ratios(times[f"cupy {kind}"], ts)  # bandwidth ratio = inverse time ratio
                row = [f"{mb} MB", direction, name, f"{median(gbps):.2f}"]
                row.append(f"{median(ratios):.3f} ({quantile(ratios, 0.25):.3f}-{quantile(ratios, 0.75):.3f})")
                row.append(f"{median(gbps) / link[1]:.0%}" if link else "-")
                rows.append(row)
                bars.append((f"{mb} MB {direction} {name}", median(gbps), kind))
        del case
    headers = ["size", "direction", "contender", "GB/s (median)", "vs bare CuPy, same memory (IQR)", "of PCIe limit"]
    print(markdown_table(headers, rows) if args.markdown else text_table(headers, rows))
    print("\nTarget: `ua pinned` at least 0.90 of `cupy pinned`.")
    written = plot_bars(
        plot_path(args),
        [("host ↔ CUDA bandwidth, GB/s", bars, link[1] if link else None)],
        xlabel="GB/s (median over rounds; the line: the PCIe link's limit)",
        title="Host ↔ CUDA transfers",
    )
    if written:
        print(f"\nplot: {written}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
