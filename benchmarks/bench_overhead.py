"""Per-call overhead of unifiedarray on the host against NumPy, array-api-compat
and array-api-strict.

Operations (float64):

* ``a + b``, ``sum(a)``, ``a[1:3]``, ``asarray(list)`` on shape (8,) and (1000, 1000);
* ``matmul(a, b)`` on 64×64 (the small case) and 1000×1000 (the large case).

Contenders, each with arrays of its own type over the same memory (see
``operands``):

* NumPy (``numpy``);
* array-api-compat's NumPy namespace (``array_api_compat.numpy``: NumPy
  arrays, wrapped functions);
* array-api-strict (``array_api_strict``);
* unifiedarray on the host (``import unifiedarray as xp``).

Every contender runs the same statement (``a + b``, ``xp.sum(a)``,
``xp.matmul(a, b)``, ``a[1:3]``, ``xp.asarray(L)``) through ``timeit`` with
its own ``xp``.  The list for ``asarray`` is built once, outside timing.
Per case the contenders alternate in rounds, in a balanced order (each runs
in each position, and right after each other one, equally often); a round
measures one ``timeit`` batch per contender, sized to take about 2 ms (calls
that take longer run once).  Times are medians over rounds of the time per
call; each ratio is the median of the per-round ratios, so both halves of a
ratio saw the same machine noise.

Targets (from the project): small arrays: unifiedarray at most 0.25× the
time of array-api-strict and at most 5× NumPy's; large arrays: at most
1.03× NumPy's.

Run: ``python benchmarks/bench_overhead.py [--markdown] [--quick]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import timeit
from typing import Any

import _common as C
import array_api_compat.numpy as compat_np
import array_api_strict
import numpy as np

import unifiedarray as ua

LIBS = {
    "NumPy": np,
    "compat": compat_np,
    "strict": array_api_strict,
    "unifiedarray": ua,
}
OPS = {
    "a + b": "a + b",
    "sum(a)": "xp.sum(a)",
    "matmul": "xp.matmul(a, b)",
    "a[1:3]": "a[1:3]",  # "a[1:3, :]" on 2-D arrays: see statement()
    "asarray(list)": "xp.asarray(L)",
    # Not in the project's list: views that must copy nothing at any size.
    "reshape": "xp.reshape(a, (-1,))",
    "a.mT": "a.mT",  # "a.mT" needs 2-D: see statement()
}
SMALL_TARGETS = {"strict": 0.25, "NumPy": 5.0}
LARGE_TARGETS = {"NumPy": 1.03}


def statement(op: str, shape: tuple[int, ...]) -> str:
    """The timed statement.  On a 2-D array the slice is written ``a[1:3, :]``
    for every contender: array-api-strict refuses ``a[1:3]`` there (the
    standard leaves indexing fewer axes than ``ndim`` unspecified), and the
    same statement must run for all four."""
    if op == "a[1:3]" and len(shape) == 2:
        return "a[1:3, :]"
    if op == "a.mT" and len(shape) == 1:
        return "xp.reshape(a, (2, -1)).mT"
    return OPS[op]


def shape_for(op: str, size: str) -> tuple[int, ...]:
    if size == "small":
        return (64, 64) if op == "matmul" else (8,)
    return (1000, 1000)


def operands(data_a: np.ndarray, data_b: np.ndarray, data_list: list) -> dict[str, dict[str, Any]]:
    """The statement's names for each contender, arrays of its own type.

    All four read the *same memory*: unifiedarray's arrays are made first and
    the others wrap (without copying) read-only views of their host copies.
    On large arrays a memory-bound operation's speed depends on where its
    operands happen to lie (page backing, alignment) by several per cent;
    sharing the operands keeps that out of the comparison, which is about
    per-call overhead.
    """
    ua_a, ua_b = ua.asarray(data_a, copy=True), ua.asarray(data_b, copy=True)
    host_a, host_b = ua_a.buffer.read("cpu"), ua_b.buffer.read("cpu")  # read-only views
    envs = {
        "NumPy": (host_a, host_b),
        "compat": (compat_np.asarray(host_a, copy=False), compat_np.asarray(host_b, copy=False)),
        "strict": (array_api_strict.asarray(host_a, copy=False), array_api_strict.asarray(host_b, copy=False)),
        "unifiedarray": (ua_a, ua_b),
    }
    for lib, (a, _) in envs.items():
        if not np.shares_memory(to_numpy(a), host_a):
            raise AssertionError(f"{lib}: operands do not share unifiedarray's memory")
    return {lib: {"xp": LIBS[lib], "a": a, "b": b, "L": data_list} for lib, (a, b) in envs.items()}


def to_numpy(x: Any) -> np.ndarray:
    if isinstance(x, (np.ndarray, np.generic)):
        return np.asarray(x)
    if type(x) is ua.UnifiedArray:
        return np.asarray(x.to_numpy())
    return np.asarray(x)  # array-api-strict arrays support __array__ / DLPack


def check_results(op: str, stmt: str, envs: dict[str, dict[str, Any]]) -> None:
    """Every contender computes the same thing (once, outside timing)."""
    results = {lib: eval(stmt, {}, env) for lib, env in envs.items()}
    ref = to_numpy(results["NumPy"])
    for lib, res in results.items():
        got = to_numpy(res)
        assert got.shape == ref.shape, f"{op} {lib}: shape {got.shape} != {ref.shape}"
        assert np.allclose(got, ref), f"{op} {lib}: values differ from NumPy's"
    assert type(results["unifiedarray"]) is ua.UnifiedArray, (
        f"{op}: unifiedarray returned {type(results['unifiedarray'])}"
    )
    assert results["unifiedarray"].device == "cpu"


def calibrate(timer: timeit.Timer, target_s: float) -> int:
    """The batch size (calls per measurement) that takes about ``target_s``."""
    number = 1
    while True:
        t = timer.timeit(number)
        if t >= target_s or number >= 1 << 20:
            break
        number = max(number * 2, int(number * target_s / max(t, 1e-9) * 0.8))
    return number


def run_case(op: str, size: str, rounds: int, batch_s: float) -> dict[str, Any]:
    shape = shape_for(op, size)
    rng = np.random.default_rng(1)
    data_a = rng.standard_normal(shape)
    data_b = rng.standard_normal(shape)
    data_list = data_a.tolist()
    envs = operands(data_a, data_b, data_list)
    stmt = statement(op, shape)
    check_results(op, stmt, envs)
    timers = {lib: timeit.Timer(stmt, globals=env) for lib, env in envs.items()}
    numbers = {lib: calibrate(t, batch_s) for lib, t in timers.items()}
    per_call: dict[str, list[float]] = {lib: [] for lib in LIBS}
    libs = list(LIBS)
    for lib in libs:  # a warm-up batch each
        timers[lib].timeit(numbers[lib])
    for r in range(rounds):
        for lib in C.in_round(libs, r):
            per_call[lib].append(timers[lib].timeit(numbers[lib]) / numbers[lib])
    ua_t = per_call["unifiedarray"]
    out: dict[str, Any] = {
        "op": op,
        "stmt": stmt,
        "size": size,
        "shape": "×".join(map(str, shape)),
        "rounds": rounds,
        "calls_per_batch": numbers,
        "us": {lib: C.median(ts) * 1e6 for lib, ts in per_call.items()},
        "us_min": {lib: min(ts) * 1e6 for lib, ts in per_call.items()},
        "ratio": {},
        "ratio_iqr": {},
        "raw_s": per_call,
    }
    for lib in ("strict", "NumPy", "compat"):
        rs = C.paired_ratios(ua_t, per_call[lib])
        out["ratio"][lib] = C.median(rs)
        out["ratio_iqr"][lib] = (C.quantile(rs, 0.25), C.quantile(rs, 0.75))
    targets = SMALL_TARGETS if size == "small" else LARGE_TARGETS
    out["targets"] = {lib: (limit, out["ratio"][lib] <= limit) for lib, limit in targets.items()}
    return out


def verdict(res: dict[str, Any], markdown: bool) -> str:
    missed = [f"{lib} ≤ {limit:g}×" for lib, (limit, ok) in res["targets"].items() if not ok]
    if not missed:
        return "met"
    word = "**missed**" if markdown else "MISSED"
    return f"{word} ({', '.join(missed)})"


def plot(results: list[dict[str, Any]], path: str | None, info: dict[str, str]) -> None:
    """unifiedarray's time over each peer's, small and large, with the targets."""
    panels = []
    for size, peer, target in (("small", "NumPy", 5.0), ("small", "strict", 0.25), ("large", "NumPy", 1.03)):
        bars = [
            (f"{r['stmt']} {r['shape']}", r["ratio"][peer], r["size"])
            for r in results
            if r["size"] == size and peer in r["ratio"]
        ]
        panels.append((f"{size} arrays: unifiedarray / {peer} (target ≤ {target:g}×)", bars, target))
    written = C.plot_bars(
        path,
        panels,
        xlabel="ratio of times (median of per-round ratios; log scale)",
        title="Per-call overhead on the host",
        log=True,
        info=info,
    )
    if written:
        print(f"\nplot: {written}")


def render(results: list[dict[str, Any]], markdown: bool) -> str:
    headers = [
        "size",
        "op",
        "shape",
        "NumPy µs",
        "compat µs",
        "strict µs",
        "unifiedarray µs",
        "ua/strict",
        "ua/NumPy",
        "target",
        "verdict",
    ]
    rows = []
    for res in results:
        us, ratio = res["us"], res["ratio"]
        target = "≤ 0.25× strict, ≤ 5× NumPy" if res["size"] == "small" else "≤ 1.03× NumPy"
        rows.append(
            [
                res["size"],
                f"`{res['stmt']}`" if markdown else res["stmt"],
                res["shape"],
                C.fmt_time_us(us["NumPy"]),
                C.fmt_time_us(us["compat"]),
                C.fmt_time_us(us["strict"]),
                C.fmt_time_us(us["unifiedarray"]),
                C.fmt_ratio(ratio["strict"]),
                C.fmt_ratio(ratio["NumPy"]),
                target,
                verdict(res, markdown),
            ]
        )
    table = C.markdown_table if markdown else C.text_table
    align = "lllrrrrrrll"
    spread_headers = [
        "size",
        "op",
        "rounds",
        "ua/NumPy IQR",
        "ua/strict IQR",
        "NumPy min µs",
        "strict min µs",
        "unifiedarray min µs",
        "ua/NumPy min/min",
        "ua/strict min/min",
    ]
    spread = []
    for res in results:
        lo_n, hi_n = res["ratio_iqr"]["NumPy"]
        lo_s, hi_s = res["ratio_iqr"]["strict"]
        spread.append(
            [
                res["size"],
                f"`{res['stmt']}`" if markdown else res["stmt"],
                str(res["rounds"]),
                f"{lo_n:.2f}–{hi_n:.2f}",
                f"{lo_s:.3f}–{hi_s:.3f}",
                C.fmt_time_us(res["us_min"]["NumPy"]),
                C.fmt_time_us(res["us_min"]["strict"]),
                C.fmt_time_us(res["us_min"]["unifiedarray"]),
                C.fmt_ratio(res["us_min"]["unifiedarray"] / res["us_min"]["NumPy"]),
                C.fmt_ratio(res["us_min"]["unifiedarray"] / res["us_min"]["strict"]),
            ]
        )
    parts = [
        "Per-call time (median over rounds, µs) and unifiedarray's ratio to each contender",
        "(median of per-round ratios).",
        "",
        table(headers, rows, align) if markdown else table(headers, rows),
        "",
        "Spread: interquartile range of the per-round ratios; the fastest round of each contender,",
        "and the ratios of those fastest rounds (a second estimate, less sensitive to other load).",
        "",
        C.markdown_table(spread_headers, spread, "ll" + "r" * (len(spread_headers) - 2))
        if markdown
        else C.text_table(spread_headers, spread),
    ]
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--markdown", action="store_true", help="print Markdown tables (for docs/benchmarks.md)")
    p.add_argument("--quick", action="store_true", help="few rounds: a smoke test, not a measurement")
    p.add_argument(
        "--rounds-small",
        type=int,
        default=200,
        help="rounds per small case (default 200, raised to a whole number of balanced cycles)",
    )
    p.add_argument("--rounds-large", type=int, default=64, help="rounds per large case (default 64, raised likewise)")
    p.add_argument(
        "--batch-ms",
        type=float,
        default=2.0,
        help="target duration of one timeit batch in ms (default 2; calls that take longer run once): "
        "short batches are less often hit by another process's time slice",
    )
    p.add_argument("--sizes", default="small,large", help="which cases: small, large or both (default)")
    p.add_argument("--json", metavar="FILE", help="also write every measurement to FILE")
    p.add_argument("--render", metavar="FILE", help="measure nothing: print the tables of a --json FILE")
    C.add_plot_option(p, "bench_overhead")
    args = p.parse_args(argv)
    if args.render:
        with open(args.render) as f:
            saved = json.load(f)
        print(C.info_block(args.markdown, saved["machine"]), end="\n\n")
        print(render(saved["results"], args.markdown))
        print(f"\n(rendered from {args.render})")
        plot(saved["results"], C.plot_path(args), saved["machine"])
        return 0
    sizes = [x.strip() for x in args.sizes.split(",")]
    if not set(sizes) <= {"small", "large"}:
        p.error("--sizes takes small, large or small,large")
    if args.quick:
        args.rounds_small, args.rounds_large = 5, 3

    info = C.machine_info()
    print(C.info_block(args.markdown, info), end="\n\n", flush=True)
    started = time.perf_counter()
    results = []
    for size, rounds in (("small", args.rounds_small), ("large", args.rounds_large)):
        if size not in sizes:
            continue
        rounds = C.round_multiple(rounds, len(LIBS))
        for op in OPS:
            results.append(run_case(op, size, rounds, args.batch_ms / 1e3))
            print(f"# {size} {op}: done ({time.perf_counter() - started:.0f} s so far)", file=sys.stderr, flush=True)
    print(render(results, args.markdown))
    print(f"\n(wall time {time.perf_counter() - started:.0f} s)")
    plot(results, C.plot_path(args), info)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": info, "results": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
