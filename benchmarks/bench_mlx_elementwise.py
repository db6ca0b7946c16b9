"""The MLX functions rebuilt for accuracy, against MLX's own kernels.

Where MLX's kernel is less accurate than the standard asks (``exp``,
``sin``, ``cos`` and ``logaddexp`` in float64 compute in float32; float32
``exp`` loses up to |x| ulp and overflows early; ``remainder`` and
``floor_divide`` round wrongly; complex ``expm1`` and ``sign`` are missing or
wrong), unifiedarray's MLX namespace builds the function from several MLX
primitives (``unifiedarray/backends/mlx_namespace/_elementwise.py``).  This
measures what that costs: each function of the namespace against the raw MLX
call a user would write instead (the kernel itself, or the obvious formula
where MLX has none), on (8,) and (2**20,) arrays, the result evaluated
(``mx.eval``) inside the timing.  Rounds alternate the two in a balanced
order; each ratio is the median of per-round ratios.

Run: ``python benchmarks/bench_mlx_elementwise.py [--markdown] [--quick]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import timeit
from collections.abc import Callable
from typing import Any

import _common as C
import numpy as np

try:
    import mlx.core as mx
except ImportError:
    print("MLX is not installed: nothing to measure", file=sys.stderr)
    raise SystemExit(0) from None

from unifiedarray.backends.mlx_namespace import _elementwise as E

SIZES = {"(8,)": 8, "(2**20,)": 1 << 20}

# (function, dtype, the raw MLX a user would write, how many arguments)
CASES: list[tuple[str, str, Callable[..., Any], int]] = [
    ("exp", "float32", mx.exp, 1),
    ("exp", "float64", mx.exp, 1),
    ("sin", "float64", mx.sin, 1),
    ("cos", "float64", mx.cos, 1),
    ("expm1", "complex64", lambda z: mx.exp(z) - 1, 1),
    ("sign", "complex64", lambda z: z / mx.abs(z), 1),
    ("logaddexp", "float64", mx.logaddexp, 2),
    ("hypot", "float32", lambda a, b: mx.sqrt(a * a + b * b), 2),
    ("hypot", "float64", lambda a, b: mx.sqrt(a * a + b * b), 2),
    ("remainder", "float32", mx.remainder, 2),
    ("floor_divide", "float32", mx.floor_divide, 2),
    ("floor_divide", "int32", mx.floor_divide, 2),
    ("copysign", "float32", lambda a, b: mx.where(b < 0, -mx.abs(a), mx.abs(a)), 2),
    ("nextafter", "float32", None, 2),  # MLX has none: listed with its own time only
]


def operands(dtype: str, n: int, nargs: int, rng: np.random.Generator) -> list[Any]:
    out = []
    for _ in range(nargs):
        if dtype.startswith("complex"):
            x = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
        elif dtype.startswith("int"):
            x = rng.integers(-1000, 1000, n).astype(dtype)
            x[x == 0] = 7
        else:
            x = (rng.standard_normal(n) * 10).astype(dtype)
        out.append(mx.array(x, dtype=getattr(mx, dtype)))  # mx.array would make float64 float32
    return out


#: The clock: wall time, or (``--clock cpu``) the CPU time of the whole process,
#: MLX's threads included, which another process's use of the CPU cannot inflate.
CLOCK: Callable[[], float] = timeit.default_timer


def timer(fn: Callable[..., Any], args: list[Any]) -> Callable[[int], float]:
    def run(number: int) -> float:
        start = CLOCK()
        for _ in range(number):
            mx.eval(fn(*args))
        return CLOCK() - start

    return run


def calibrate(run: Callable[[int], float], target_s: float) -> int:
    number = 1
    while True:
        t = run(number)
        if t >= target_s or number >= 1 << 14:
            return number
        number = max(number * 2, int(number * target_s / max(t, 1e-9) * 0.8))


def measure(rounds: int, batch_s: float, only: set[str] | None = None) -> list[dict[str, Any]]:
    rng = np.random.default_rng(0)
    results = []
    for name, dtype, raw, nargs in CASES:
        if only and name not in only:
            continue
        for size, n in SIZES.items():
            args = operands(dtype, n, nargs, rng)
            ours = E.FUNCTIONS[name]
            timers = {"unifiedarray": timer(ours, args)}
            if raw is not None:
                timers["raw MLX"] = timer(raw, args)
            names = list(timers)
            numbers = {k: calibrate(t, batch_s) for k, t in timers.items()}
            per_call: dict[str, list[float]] = {k: [] for k in names}
            for r in range(rounds):
                for k in C.in_round(names, r):
                    per_call[k].append(timers[k](numbers[k]) / numbers[k])
            res: dict[str, Any] = {
                "function": name,
                "dtype": dtype,
                "size": size,
                "us": {k: C.median(v) * 1e6 for k, v in per_call.items()},
            }
            if raw is not None:
                rs = C.paired_ratios(per_call["unifiedarray"], per_call["raw MLX"])
                res["ratio"] = (C.median(rs), C.quantile(rs, 0.25), C.quantile(rs, 0.75))
            results.append(res)
            print(f"measured {name} {dtype} {size}", file=sys.stderr)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--quick", action="store_true", help="a few rounds (a smoke test, not a measurement)")
    parser.add_argument("--rounds", type=int, default=0, help="rounds per case (default 16; --quick 2)")
    parser.add_argument("--json", help="also write every measurement here")
    parser.add_argument("--only", help="a comma-separated list of function names")
    parser.add_argument(
        "--clock", choices=("wall", "cpu"), default="wall", help="wall time, or the CPU time of the process"
    )
    C.add_plot_option(parser, "bench_mlx_elementwise")
    args = parser.parse_args()
    rounds = args.rounds or (2 if args.quick else 16)
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else timeit.default_timer
    info = C.machine_info()
    results = measure(rounds, 0.002 if args.quick else 0.01, set(args.only.split(",")) if args.only else None)
    print(C.info_block(args.markdown, info))
    print(f"\nclock: {args.clock}\n")
    rows = []
    for r in results:
        ratio = r.get("ratio")
        rows.append(
            [
                f"`{r['function']}`" if args.markdown else r["function"],
                r["dtype"],
                r["size"],
                C.fmt_time_us(r["us"]["unifiedarray"]),
                C.fmt_time_us(r["us"]["raw MLX"]) if "raw MLX" in r["us"] else "—",
                f"{C.fmt_ratio(ratio[0])} ({C.fmt_ratio(ratio[1])}–{C.fmt_ratio(ratio[2])})" if ratio else "—",
            ]
        )
    table = C.markdown_table if args.markdown else C.text_table
    print(table(["function", "dtype", "shape", "unifiedarray µs", "raw MLX µs", "ratio (IQR)"], rows))
    panels = []
    for size in SIZES:
        bars = [
            (f"{r['function']} {r['dtype']}", r["ratio"][0], size)
            for r in results
            if r["size"] == size and "ratio" in r
        ]
        panels.append((f"{size}: unifiedarray's time / raw MLX's", bars, 1.0))
    written = C.plot_bars(
        C.plot_path(args),
        panels,
        xlabel="ratio of times, result evaluated (median of per-round ratios; log scale)",
        title="MLX functions rebuilt for accuracy, against MLX's kernels",
        log=True,
        info=info,
        line_label="parity",
    )
    if written:
        print(f"\nplot: {written}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"info": info, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
