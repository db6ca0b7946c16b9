"""``unifiedarray.random`` against each device's own generator, side by side.

Cases (the targets of the ``xp.random`` issue): 10**7 float32 standard
normals drawn natively, against NumPy's ``Generator`` on the host
(``standard_normal(n, dtype=float32)``, target ≤ 1.5×) and against
``mx.random.normal`` on MLX, results evaluated (≤ 1.5×).  The portable mode
(Philox4x32-10 over the namespace) is timed against the same references,
with no target: its figures are documented.  Also 10**7 float32 uniforms
and int64 ``integers(0, 1000)``, native and portable.

Each round times every contender of a case once (one draw each, in a
balanced order that changes from round to round); the figure is the median
of the per-round ratios, with the interquartile range as the spread.

Run: ``python benchmarks/bench_random.py [--markdown] [--quick] [--rounds N] [--n N]``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import _common as C
import numpy as np

import unifiedarray as xp
from unifiedarray.backends import backend_for


def _evaluated(a: xp.UnifiedArray) -> xp.UnifiedArray:
    # An MLX result is lazy: wait for its copy, as raw MLX's mx.eval does
    # (public: the buffer's current copy on its device, evaluated).
    native = a.buffer.native(a.device, "benchmark")
    backend_for(a.device).evaluate(native)
    return a


def cases(n: int) -> list[tuple[str, float | None, dict[str, Callable[[], Any]], str]]:
    out: list[tuple[str, float | None, dict[str, Callable[[], Any]], str]] = []
    npg = np.random.default_rng(1)
    native, portable = xp.random.default_rng(1, device="cpu"), xp.random.default_rng(1, device="cpu", portable=True)
    out.append(("host: standard_normal float32", 1.5, {
        "NumPy Generator": lambda: npg.standard_normal(n, dtype=np.float32),
        "xp.random native": lambda: native.standard_normal(n, dtype=np.float32),
        "xp.random portable": lambda: portable.standard_normal(n, dtype=np.float32),
    }, "NumPy Generator"))  # fmt: skip
    out.append(("host: random float32", None, {
        "NumPy Generator": lambda: npg.random(n, dtype=np.float32),
        "xp.random native": lambda: native.random(n, dtype=np.float32),
        "xp.random portable": lambda: portable.random(n, dtype=np.float32),
    }, "NumPy Generator"))  # fmt: skip
    out.append(("host: integers(0, 1000)", None, {
        "NumPy Generator": lambda: npg.integers(0, 1000, n),
        "xp.random native": lambda: native.integers(0, 1000, n),
        "xp.random portable": lambda: portable.integers(0, 1000, n),
    }, "NumPy Generator"))  # fmt: skip
    if backend_for("mlx").available:
        import mlx.core as mx

        key = [mx.random.key(1)]

        def raw(fn: Callable[..., Any], **kw: Any) -> Callable[[], Any]:
            def draw() -> Any:
                key[0], sub = mx.random.split(key[0])
                r = fn(shape=(n,), key=sub, **kw)
                mx.eval(r)
                return r

            return draw

        m_native = xp.random.default_rng(1, device="mlx")
        m_portable = xp.random.default_rng(1, device="mlx", portable=True)
        out.append(("MLX: standard_normal float32", 1.5, {
            "mx.random.normal": raw(mx.random.normal, dtype=mx.float32),
            "xp.random native": lambda: _evaluated(m_native.standard_normal(n, dtype=np.float32)),
            "xp.random portable": lambda: _evaluated(m_portable.standard_normal(n, dtype=np.float32)),
        }, "mx.random.normal"))  # fmt: skip
        out.append(("MLX: random float32", None, {
            "mx.random.uniform": raw(mx.random.uniform, dtype=mx.float32),
            "xp.random native": lambda: _evaluated(m_native.random(n, dtype=np.float32)),
            "xp.random portable": lambda: _evaluated(m_portable.random(n, dtype=np.float32)),
        }, "mx.random.uniform"))  # fmt: skip
        out.append(("MLX: integers(0, 1000)", None, {
            "mx.random.randint": raw(lambda shape, key: mx.random.randint(0, 1000, shape, dtype=mx.int64, key=key)),
            "xp.random native": lambda: _evaluated(m_native.integers(0, 1000, n)),
            "xp.random portable": lambda: _evaluated(m_portable.integers(0, 1000, n)),
        }, "mx.random.randint"))  # fmt: skip
    return out


def measure(contenders: dict[str, Callable[[], Any]], reference: str, rounds: int) -> dict[str, Any]:
    names = list(contenders)
    times: dict[str, list[float]] = {k: [] for k in names}
    for fn in contenders.values():
        fn()  # warm: first calls compile, allocate, import
    for r in range(rounds):
        for k in C.in_round(names, r):
            t = time.perf_counter()
            contenders[k]()
            times[k].append(time.perf_counter() - t)
    res: dict[str, Any] = {"s": {k: C.median(v) for k, v in times.items()}}
    for k in names:
        ratios = C.paired_ratios(times[k], times[reference])
        res[k] = (C.median(ratios), C.quantile(ratios, 0.25), C.quantile(ratios, 0.75))
    return res


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--quick", action="store_true", help="10**5 draws, 2 rounds (a smoke test)")
    parser.add_argument("--rounds", type=int, default=0, help="rounds per case (default 12; --quick 2)")
    parser.add_argument("--n", type=int, default=0, help="draws per call (default 10**7)")
    C.add_plot_option(parser, "bench_random")
    args = parser.parse_args()
    n = args.n or (10**5 if args.quick else 10**7)
    rounds = C.round_multiple(args.rounds or (2 if args.quick else 12), 2, 3)
    info = C.machine_info()
    print(C.info_block(args.markdown, info))
    print(f"\n{n:,} draws per call, {rounds} rounds\n")
    rows, bars = [], []
    for name, target, contenders, reference in cases(n):
        res = measure(contenders, reference, rounds)
        panel = []
        for k in contenders:
            if k == reference:
                continue
            mid, lo, hi = res[k]
            headline = k == "xp.random native"
            rows.append([
                name, k, f"{res['s'][k] * 1e3:.1f} ms", f"{reference}: {res['s'][reference] * 1e3:.1f} ms",
                f"{C.fmt_ratio(mid)} ({C.fmt_ratio(lo)}–{C.fmt_ratio(hi)})",
                f"≤ {target}×" if headline and target else "",
                ("yes" if mid <= target else "no") if headline and target else "",
            ])  # fmt: skip
            panel.append((f"{k} / {reference}", mid, "wall"))
        bars.append((name, panel, target))
    headers = ["case", "contender", "time", "reference", "ratio (IQR)", "target", "met"]
    print(C.markdown_table(headers, rows) if args.markdown else C.text_table(headers, rows))
    written = C.plot_bars(
        C.plot_path(args),
        bars,
        xlabel="time of the contender / time of the device's own generator (median of per-round ratios)",
        title="unifiedarray.random against each device's generator",
        info=info,
    )
    if written:
        print(f"\nplot: {written}")


if __name__ == "__main__":
    main()
