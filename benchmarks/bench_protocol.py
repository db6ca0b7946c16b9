"""NumPy's protocol against the namespace's own call, over every function
a plan serves (issue 36): ``np.f(x)`` against ``xp.f(x)``.

The forms: every public NumPy ufunc whose route is the standard's
function (``np.sin(x)``, ``np.add(x, y)``), and every other public NumPy
function whose route is the standard's function and that takes one array
alone (``np.sum(x)``, ``np.argmax(x)``), on 8-element arrays: float64 on
the host, float32 on MLX (int64/int32 where a function takes no floats:
the bitwise ufuncs).  The namespace's call is the standard function the
route names (``np.absolute`` -> ``xp.abs``).  MLX results are left
unevaluated, as raw MLX code leaves them.

Each round times both contenders of a form once (a batch of about a
millisecond, the order alternating from round to round); a form's figure
is the median of its per-round ratios.  Targets (issue 36): ``np.f(x)``
at most 1.8x ``xp.f(x)`` on the host and 1.5x on MLX.

Run: ``python benchmarks/bench_protocol.py [--rounds N] [--markdown]
[--json FILE] [--device cpu|mlx]`` (about a minute).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from typing import Any

import _common as C
import numpy as np

import unifiedarray as xp
from unifiedarray._routes import ROUTES, numpy_public
from unifiedarray.backends import registry

TARGETS = {"cpu": 1.8, "mlx": 1.5}


def _namespace_function(path: str) -> Callable[..., Any]:
    fn: Any = xp
    for part in path.split("."):
        fn = getattr(fn, part)
    return fn


def forms(device: str) -> list[tuple[str, Callable[[], Any], Callable[[], Any]]]:
    """(form, NumPy's call, the namespace's call) for every form served."""
    floating = "float64" if device == "cpu" else "float32"
    integral = "int64" if device == "cpu" else "int32"
    base = np.linspace(0.1, 0.9, 8)
    made = {}
    for dt in (floating, integral):
        made[dt] = (
            xp.asarray((base * (1 if dt == floating else 10)).astype(dt), device=device),
            xp.asarray((base[::-1] * (1 if dt == floating else 10) + 1).astype(dt), device=device),
        )
    out = []
    for name, fn in numpy_public().items():
        route = ROUTES.get(name)
        if "." in name or route is None or route.kind != "standard":
            continue
        target = _namespace_function(route.target)
        ufunc = isinstance(fn, np.ufunc)
        if ufunc and fn.nin not in (1, 2):
            continue
        for dt in (floating, integral):
            x, y = made[dt]
            args = (x, y) if ufunc and fn.nin == 2 else (x,)
            try:
                fn(*args)
                target(*args)
            except Exception:
                continue  # not a form of this dtype (the bitwise ufuncs of floats)
            out.append((f"np.{name}({', '.join('xy'[: len(args)])}) {dt}", _bind(fn, args), _bind(target, args)))
            break
    return out


def _bind(fn: Callable[..., Any], args: tuple) -> Callable[[], Any]:
    if len(args) == 1:
        (a,) = args
        return lambda: fn(a)
    a, b = args
    return lambda: fn(a, b)


def measure(device: str, rounds: int) -> list[dict[str, Any]]:
    rows = []
    for form, np_call, xp_call in forms(device):
        numpy_us, namespace_us, ratio = C.side_by_side(np_call, xp_call, rounds)
        rows.append({"form": form, "numpy_us": numpy_us, "namespace_us": namespace_us, "ratio": ratio})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument("--device", action="append", choices=["cpu", "mlx"])
    args = parser.parse_args(argv)
    devices = args.device or ["cpu", *(["mlx"] if registry()["mlx"].available else [])]
    print(C.info_block(args.markdown))
    report: dict[str, Any] = {"machine": C.machine_info(), "devices": {}}
    for device in devices:
        rows = measure(device, args.rounds)
        geomean = math.exp(sum(math.log(r["ratio"]) for r in rows) / len(rows))
        worst = max(rows, key=lambda r: r["ratio"])
        target = TARGETS[device]
        report["devices"][device] = {"rows": rows, "geomean": geomean, "worst": worst, "target": target}
        table = C.markdown_table if args.markdown else C.text_table
        print(f"\n{device}: np.f(x) against xp.f(x), {len(rows)} forms")
        print(
            table(
                ["form", "np.f(x)", "xp.f(x)", "ratio"],
                [
                    [r["form"], C.fmt_time_us(r["numpy_us"]), C.fmt_time_us(r["namespace_us"]), C.fmt_ratio(r["ratio"])]
                    for r in sorted(rows, key=lambda r: -r["ratio"])
                ],
            )
        )
        over = sum(1 for r in rows if r["ratio"] > target)
        print(
            f"{device}: geometric mean {geomean:.2f}x, worst {worst['ratio']:.2f}x ({worst['form']}); "
            f"{over} of {len(rows)} forms above the target {target}x"
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
