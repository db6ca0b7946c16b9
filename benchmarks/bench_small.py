"""Small arrays as users meet them: unifiedarray against NumPy and raw MLX,
side by side in one run (issue 23).

Cases, 8-element arrays (the target in brackets):

* host, float64, against NumPy: ``a + b`` (≤ 2×), ``sin(a)`` (≤ 2×),
  ``sum(a)`` (≤ 2×), the view ``a[1:3]`` (≤ 2.5×), and a loop of 200 mixed
  small operations (``+ sin * [1:3] - sum abs /``, 25 times; ≤ 2×);
* MLX, float32, against raw ``mlx.core`` on the same data: building
  ``sum(a + b)`` without evaluating it (≤ 2×); reading a small result,
  ``float(xp.sum(a + b))`` against ``mx.sum(a + b).item()`` (≤ 1.3×); the
  same 200-operation loop with one read at the end, ``float(xp.sum(x))``
  against ``mx.sum(x).item()`` (≤ 1.3×).

Each round times every contender of a case once (a batch of calls of
about a millisecond, the order alternating from round to round); the figures are the median of the
per-round ratios, with the interquartile range as the spread, in wall time
and in CPU time of the process (all its threads: MLX evaluates on a thread
of its own), and the ratio of the two contenders' fastest batches (wall).

On a loaded machine a batch of a few milliseconds is either not preempted
at all or loses a whole time slice of tens of milliseconds to other
processes, so the per-round wall ratios scatter widely; CPU time does not
count the time slices lost, and the fastest batches are the ones nobody
interrupted.  CPU time does not count MLX's thread wake-ups either (the
reading thread sleeps while MLX's stream thread computes), which the
fastest wall batches do.

Run: ``python benchmarks/bench_small.py [--markdown] [--quick] [--rounds N]
[--json FILE] [--verbose] [--pin] [--no-plot] [--floor]`` (under a minute;
``--quick`` a few seconds, not a measurement).  ``--floor`` times only where a
small MLX read's time goes (see :func:`read_floor`): what a read costs with
no bookkeeping at all, against raw MLX's own.

``--pin`` runs every thread of the process on the one CPU where a raw MLX
read is fastest (see ``_common.pin_to_one_cpu``): unpinned, raw MLX's own
small read took about 16 or about 85 µs depending on the CPU its caller
ran on, so that the MLX read's ratio ranged from 0.6× to 8× between runs.
The host cases are unaffected.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from typing import Any

import _common as C
import numpy as np

import unifiedarray as xp

Case = tuple[str, float, dict[str, Callable[[], Any]], int]


def mixed_loop(ns: Any, a: Any, b: Any) -> Any:
    """200 small operations of the kinds an optimiser step or an ODE
    right-hand side makes (``ns`` is the namespace: NumPy, unifiedarray or
    ``mlx.core``)."""
    x = a
    for _ in range(25):
        x = x + b
        x = ns.sin(x)
        x = x * 2.0
        x[1:3]
        x = x - b
        ns.sum(x)
        x = ns.abs(x)
        x = x / 3.0
    return x


def host_cases() -> list[Case]:
    rng = np.random.default_rng(0)
    na, nb = rng.random(8), rng.random(8)
    a, b = xp.asarray(na), xp.asarray(nb)
    return [
        ("host a + b", 2.0, {"unifiedarray": lambda: a + b, "NumPy": lambda: na + nb}, 1000),
        ("host sin(a)", 2.0, {"unifiedarray": lambda: xp.sin(a), "NumPy": lambda: np.sin(na)}, 1000),
        ("host sum(a)", 2.0, {"unifiedarray": lambda: xp.sum(a), "NumPy": lambda: np.sum(na)}, 500),
        ("host a[1:3]", 2.5, {"unifiedarray": lambda: a[1:3], "NumPy": lambda: na[1:3]}, 2000),
        (
            "host loop of 200 operations",
            2.0,
            {"unifiedarray": lambda: mixed_loop(xp, a, b), "NumPy": lambda: mixed_loop(np, na, nb)},
            4,
        ),
    ]


def _mlx_inputs(mx: Any) -> tuple[Any, Any, Any, Any]:
    """The MLX cases' operands, 8 float32 elements each: the library's
    ``a`` and ``b`` on MLX and raw MLX's ``ra`` and ``rb`` (evaluated), the
    same data."""
    rng = np.random.default_rng(0)
    na, nb = rng.random(8).astype(np.float32), rng.random(8).astype(np.float32)
    ra, rb = mx.array(na), mx.array(nb)
    mx.eval(ra, rb)
    return xp.asarray(na, device="mlx"), xp.asarray(nb, device="mlx"), ra, rb


def mlx_cases() -> list[Case]:
    try:
        import mlx.core as mx
    except ImportError:
        print("MLX is not installed: no MLX case", file=sys.stderr)
        return []
    a, b, ra, rb = _mlx_inputs(mx)

    def lib_loop() -> float:
        return float(xp.sum(mixed_loop(xp, a, b)))

    def raw_loop() -> float:
        return mx.sum(mixed_loop(mx, ra, rb)).item()  # type: ignore[no-any-return]

    return [
        (
            "MLX build sum(a + b)",
            2.0,
            {"unifiedarray": lambda: xp.sum(a + b), "raw MLX": lambda: mx.sum(ra + rb)},
            200,
        ),
        (
            "MLX read float(sum(a + b))",
            1.3,
            {"unifiedarray": lambda: float(xp.sum(a + b)), "raw MLX": lambda: mx.sum(ra + rb).item()},
            50,
        ),
        ("MLX loop of 200 operations, one read", 1.3, {"unifiedarray": lib_loop, "raw MLX": raw_loop}, 2),
    ]


def _raw_mlx_read() -> Callable[[], Any] | None:
    """Raw MLX's small read (``--pin``'s probe), or None without MLX."""
    try:
        import mlx.core as mx
    except ImportError:
        return None
    ra = mx.array(np.arange(8, dtype=np.float32))
    return lambda: mx.sum(ra + ra).item()


def _python_between(n: int = 10) -> int:
    """A little Python (about a quarter of a microsecond here): what any
    library does between two of MLX's evaluations."""
    total = 0
    for i in range(n):
        total += i
    return total


def read_floor(rounds: int) -> list[list[str]]:
    """``--floor``: where a small MLX read's time goes, each contender timed
    in the same interleaved rounds (batches of 50 reads, medians): raw MLX's
    read in a tight loop; the same with a little Python between two reads;
    the library's graph of ``sum(a + b)`` evaluated through its evaluation
    point and read with ``.item()`` (the build and the evaluation, without
    the read's bookkeeping: no buffer, no guard, no ledger); and the
    library's whole ``float(xp.sum(a + b))``.  Uses the library's private
    evaluation point (``backends.mlx_evaluation``)."""
    import mlx.core as mx

    from unifiedarray.backends import mlx_evaluation

    a, b, ra, rb = _mlx_inputs(mx)

    def graph_only() -> float:
        result = xp.sum(a + b)
        # A lone result's copy (asking for .buffer would make its buffer).
        native = result.lone_copy if result.buffer_made is None else result.buffer.ready
        mlx_evaluation.evaluate(native)
        return native.item()  # type: ignore[no-any-return]

    contenders: dict[str, Callable[[], Any]] = {
        "raw MLX, mx.sum(a + b).item(), a tight loop": lambda: mx.sum(ra + rb).item(),
        "raw MLX, the same with 0.25 µs of Python between reads": lambda: (
            _python_between(),
            mx.sum(ra + rb).item(),
        ),
        "unifiedarray's graph, evaluated and read with .item() (no buffer)": graph_only,
        "unifiedarray, float(xp.sum(a + b))": lambda: float(xp.sum(a + b)),
    }
    names = list(contenders)
    times: dict[str, list[float]] = {k: [] for k in names}
    for fn in contenders.values():
        for _ in range(20):
            fn()
    for r in range(rounds):
        for k in C.in_round(names, r):
            fn = contenders[k]
            t0 = time.perf_counter()
            for _ in range(50):
                fn()
            times[k].append((time.perf_counter() - t0) / 50)
    raw = C.median(times[names[0]])
    return [[k, f"{C.fmt_time_us(C.median(v) * 1e6)} µs", C.fmt_ratio(C.median(v) / raw)] for k, v in times.items()]


def measure(contenders: dict[str, Callable[[], Any]], calls: int, rounds: int) -> dict[str, Any]:
    names = list(contenders)
    for fn in contenders.values():  # warm: resolved functions, caches
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
    first, second = names
    res: dict[str, Any] = {
        "min_ratio": min(wall[first]) / min(wall[second]),
        "us": {k: C.median(v) * 1e6 for k, v in wall.items()},
        "min_us": {k: min(v) * 1e6 for k, v in wall.items()},
        "cpu_us": {k: C.median(v) * 1e6 for k, v in cpu.items()},
        "rounds": {"wall": wall, "cpu": cpu},
    }
    for what, series in (("wall", wall), ("cpu", cpu)):
        rs = C.paired_ratios(series[first], series[second])
        res[what] = (C.median(rs), C.quantile(rs, 0.25), C.quantile(rs, 0.75))
    return res


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--quick", action="store_true", help="a few rounds (a smoke test, not a measurement)")
    parser.add_argument("--rounds", type=int, default=0, help="rounds per case (default 100; --quick 4)")
    parser.add_argument("--json", metavar="FILE", help="write every measurement, per round, to FILE")
    parser.add_argument("--verbose", action="store_true", help="also print median CPU and minimum wall times")
    parser.add_argument("--pin", action="store_true", help="run every thread on one CPU (see the docstring)")
    parser.add_argument("--floor", action="store_true", help="only where a small MLX read's time goes")
    C.add_plot_option(parser, "bench_small")
    args = parser.parse_args()
    if args.pin and C.pin_to_one_cpu(_raw_mlx_read()) is None:
        parser.error("--pin needs Linux's sched_setaffinity")
    rounds = C.round_multiple(args.rounds or (4 if args.quick else 100), 2)
    info = C.machine_info()
    print(C.info_block(args.markdown, info))
    print()
    if args.floor:
        if _raw_mlx_read() is None:
            parser.error("--floor needs MLX")
        headers = ["a small MLX read", "time (median)", "against the first"]
        rows = read_floor(rounds)
        print(C.markdown_table(headers, rows) if args.markdown else C.text_table(headers, rows))
        return
    rows, bars, dump = [], [], {}
    for name, target, contenders, calls in host_cases() + mlx_cases():
        res = measure(contenders, calls, rounds)
        dump[name] = res
        first, second = list(contenders)
        wall, cpu = res["wall"], res["cpu"]
        row = [
            name,
            f"{C.fmt_time_us(res['us'][first])} µs",
            f"{second}: {C.fmt_time_us(res['us'][second])} µs",
            f"{C.fmt_ratio(wall[0])} ({C.fmt_ratio(wall[1])}–{C.fmt_ratio(wall[2])})",
            f"{C.fmt_ratio(cpu[0])} ({C.fmt_ratio(cpu[1])}–{C.fmt_ratio(cpu[2])})",
            C.fmt_ratio(res["min_ratio"]),
            f"≤ {target}×",
            " / ".join("yes" if r <= target else "no" for r in (wall[0], cpu[0], res["min_ratio"])),
        ]
        if args.verbose:
            row[3:3] = [
                f"{C.fmt_time_us(res['cpu_us'][first])} / {C.fmt_time_us(res['cpu_us'][second])} µs",
                f"{C.fmt_time_us(res['min_us'][first])} / {C.fmt_time_us(res['min_us'][second])} µs",
            ]
        rows.append(row)
        bars.append(
            (
                name,
                [
                    ("unifiedarray / peer (wall)", wall[0], "wall"),
                    ("(CPU)", cpu[0], "cpu"),
                    ("(fastest batches, wall)", res["min_ratio"], "fastest"),
                ],
                target,
            )
        )
    headers = [
        "case",
        "unifiedarray",
        "peer",
        "ratio, wall (IQR)",
        "ratio, CPU (IQR)",
        "ratio of fastest",
        "target",
        "met (wall / CPU / fastest)",
    ]
    if args.verbose:
        headers[3:3] = ["CPU, median", "wall, minimum"]
    print(C.markdown_table(headers, rows) if args.markdown else C.text_table(headers, rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"info": info, "cases": dump}, f, indent=1)
    written = C.plot_bars(
        C.plot_path(args),
        bars,
        xlabel="time of unifiedarray / time of the peer (median of per-round ratios)",
        title="Small arrays: unifiedarray against NumPy and raw MLX",
        info=info,
    )
    if written:
        print(f"\nplot: {written}")


if __name__ == "__main__":
    main()
