"""Two checkouts of unifiedarray side by side on the whole workloads, in one run.

What a change to the library did to ``bench_workloads.py``'s workloads:
unifiedarray from checkout OLD against unifiedarray from checkout NEW, on the
host (float64) and on MLX (float32).  Two copies of one package cannot live
in one process, so each checkout runs in a worker process of its own
(``PYTHONPATH=<checkout>``), both started at once and kept for the whole run;
this script drives them in interleaved rounds (a balanced order over the four
series: OLD and NEW, host and MLX), so that both halves of a ratio see the
same machine noise.  A worker waits on its pipe while the other one runs.

Every batch is timed on two clocks at once, wall time and the worker's CPU
time (all its threads: MLX's and BLAS's included), the second one to read
through a loaded machine.  A ratio is the median of per-round ratios NEW/OLD,
with their interquartile range.

Run: ``python benchmarks/bench_versions.py OLD NEW [--markdown] [--only PREFIXES] [--rounds N]``,
OLD and NEW the roots of two checkouts (each holding ``unifiedarray/``); the
workloads are those of this checkout's ``bench_workloads.py``.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import _common as C
import bench_workloads as W  # sets SCIPY_ARRAY_API before SciPy loads
import numpy as np
import sklearn

import unifiedarray as ua

HERE = os.path.dirname(os.path.abspath(__file__))
SERIES_OF_SIDE = {"host": "unifiedarray (host)", "mlx": "unifiedarray (mlx)"}


# -- the worker: one checkout, driven over its stdin/stdout -----------------------------------


def _time_batch(call: Callable[[], Any], number: int) -> tuple[float, float]:
    """Seconds per call of ``number`` calls, in wall time and in this process's CPU time."""
    enabled = gc.isenabled()
    gc.disable()  # as timeit does
    try:
        w0, c0 = time.perf_counter(), time.process_time()
        for _ in range(number):
            call()
        w1, c1 = time.perf_counter(), time.process_time()
    finally:
        if enabled:
            gc.enable()
    return (w1 - w0) / number, (c1 - c0) / number


def serve() -> None:
    """Answer the driver's requests, one JSON line each, until stdin closes."""
    sklearn.set_config(array_api_dispatch=True)
    out = sys.stdout
    sys.stdout = sys.stderr  # nothing but answers on the pipe
    calls: dict[str, Callable[[], Any]] = {}
    for line in sys.stdin:
        req = json.loads(line)
        op = req["op"]
        if op == "info":
            ans: Any = {
                "file": os.path.dirname(ua.__file__),
                "git": _git(os.path.dirname(os.path.dirname(ua.__file__))),
            }
        elif op == "setup":
            W.check(req["workload"], 7)
            funcs = W.contenders(req["workload"], np.random.default_rng(0))
            calls = {side: funcs[name][0] for side, name in SERIES_OF_SIDE.items() if name in funcs}
            for call in calls.values():
                call()  # warm-up
            ans = sorted(calls)
        elif op == "calibrate":
            call = calls[req["side"]]
            number = 1
            while True:
                t = _time_batch(call, number)[0] * number
                if t >= req["target_s"] or number >= 1 << 16:
                    break
                number = max(number * 2, int(number * req["target_s"] / max(t, 1e-9) * 0.8))
            ans = number
        elif op == "time":
            ans = _time_batch(calls[req["side"]], req["number"])
        else:
            raise ValueError(op)
        out.write(json.dumps(ans) + "\n")
        out.flush()


def _git(root: str) -> str:
    try:
        return subprocess.run(
            ["git", "-C", root, "log", "-1", "--format=%h %cI"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "not a git checkout"


# -- the driver ----------------------------------------------------------------------------------


class Worker:
    def __init__(self, root: str) -> None:
        env = dict(os.environ, PYTHONPATH=os.path.abspath(root))
        self.proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=HERE,
        )

    def ask(self, **req: Any) -> Any:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"worker for {req} died (exit {self.proc.wait()})")
        return json.loads(line)

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()


def measure(workers: dict[str, Worker], name: str, rounds: int, batch_s: float, budget_s: float) -> dict[str, Any]:
    sides = [w.ask(op="setup", workload=name) for w in workers.values()]
    series = [(v, s) for v in workers for s in sides[0] if all(s in x for x in sides)]
    numbers = {k: workers[k[0]].ask(op="calibrate", side=k[1], target_s=batch_s) for k in series}
    round_s = sum(workers[v].ask(op="time", side=s, number=numbers[v, s])[0] * numbers[v, s] for v, s in series)
    rounds = min(rounds, max(6, int(budget_s / max(round_s, 1e-9))))
    rounds = C.round_multiple(rounds, len(series))
    times: dict[tuple[str, str], list[tuple[float, float]]] = {k: [] for k in series}
    for r in range(rounds):
        for v, s in C.in_round(series, r):
            times[v, s].append(tuple(workers[v].ask(op="time", side=s, number=numbers[v, s])))
    old, new = list(workers)
    res: dict[str, Any] = {"workload": name, "rounds": rounds, "sides": {}}
    for s in sides[0]:
        if (old, s) not in times:
            continue
        entry: dict[str, Any] = {}
        for i, clock in enumerate(("wall", "cpu")):
            o = [t[i] for t in times[old, s]]
            n = [t[i] for t in times[new, s]]
            rs = C.paired_ratios(n, o)
            entry[clock] = {
                "old_us": C.median(o) * 1e6,
                "new_us": C.median(n) * 1e6,
                "ratio": (C.median(rs), C.quantile(rs, 0.25), C.quantile(rs, 0.75)),
            }
        res["sides"][s] = entry
    return res


def render(results: list[dict[str, Any]], labels: tuple[str, str], markdown: bool) -> str:
    table = C.markdown_table if markdown else C.text_table
    old, new = labels
    out = []
    for side, title in (("host", "host, float64"), ("mlx", "MLX, float32")):
        rows = []
        for res in results:
            e = res["sides"].get(side)
            if e is None:
                continue
            row = [f"{res['workload']} [{res['rounds']}]"]
            for clock in ("wall", "cpu"):
                ratio, lo, hi = e[clock]["ratio"]
                row += [
                    C.fmt_time_us(e[clock]["old_us"]),
                    C.fmt_time_us(e[clock]["new_us"]),
                    f"{C.fmt_ratio(ratio)} ({C.fmt_ratio(lo)}–{C.fmt_ratio(hi)})",
                ]
            rows.append(row)
        headers = [f"workload ({title})"]
        for clock in ("wall", "CPU"):
            headers += [f"{old} µs ({clock})", f"{new} µs ({clock})", f"{new} / {old}, {clock} (IQR)"]
        out.append(table(headers, rows))
    return "\n\n".join(out)


def main() -> None:
    if "--serve" in sys.argv[1:]:
        serve()
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", help="root of the first checkout (holding unifiedarray/)")
    parser.add_argument("new", help="root of the second checkout")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--quick", action="store_true", help="a few rounds (a smoke test, not a measurement)")
    parser.add_argument("--rounds", type=int, default=0, help="rounds per workload (default 24; --quick 4)")
    parser.add_argument("--only", help="a comma-separated list of workload name prefixes")
    parser.add_argument("--json", help="also write every measurement here")
    args = parser.parse_args()
    rounds = args.rounds or (4 if args.quick else 24)
    batch_s = 0.005 if args.quick else 0.02
    names = [n for n in W.WORKLOADS if not args.only or n.startswith(tuple(args.only.split(",")))]
    workers = {"old": Worker(args.old), "new": Worker(args.new)}
    try:
        infos = {k: w.ask(op="info") for k, w in workers.items()}
        labels = (infos["old"]["git"].split()[0], infos["new"]["git"].split()[0])
        if labels[0] == labels[1]:
            labels = ("old", "new")
        results = []
        for name in names:
            results.append(measure(workers, name, rounds, batch_s, 5.0 if args.quick else 60.0))
            print(f"measured {name}", file=sys.stderr)
    finally:
        for w in workers.values():
            w.close()
    info = C.machine_info()
    # The workers' libraries, not this driver's own import.
    info["unifiedarray"] = "; ".join(f"{k}: {infos[k]['file']} (git {infos[k]['git']})" for k in ("old", "new"))
    print(C.info_block(args.markdown, info))
    print(
        f"\nrounds per workload: {rounds} (fewer for a slow one: [n] after its name); batches of about "
        f"{batch_s * 1e3:.0f} ms; times are medians over rounds, ratios medians of per-round ratios\n"
    )
    print(render(results, labels, args.markdown))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"infos": infos, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
