"""What NumPy's floating-point error state costs on MLX (issue 35).

The same MLX forms timed side by side in one run under NumPy's default
error state (divide, overflow and invalid warn: each checked call waits
for the next evaluation, which screens its result) and under
``np.errstate(all="ignore")`` (nothing is checked): the difference is the
check.  8-element float32 arrays (and one of 2**20 elements):

* ``a / b`` x200, results dropped unevaluated (raw MLX's lazy loop);
* a chain of 200 ``c = c * 1.0001 + a`` and one read;
* ``(a / b).tolist()``, one call and its read;
* ``(a / b).tolist()`` on 2**20 elements (the screen's one pass).

Each round times both contenders once (a batch of about a millisecond,
the order alternating from round to round); a form's figure is the
median of its per-round ratios.

Run: ``python benchmarks/bench_error_state.py [--rounds N] [--markdown]``
(under a minute).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import numpy as np
from _common import fmt_ratio, fmt_time_us, info_block, markdown_table, side_by_side, text_table

import unifiedarray as xp


def _forms() -> dict[str, Callable[[], Any]]:
    a = xp.asarray(np.arange(8, dtype=np.float32) + 1, device="mlx")
    b = xp.asarray(np.arange(8, dtype=np.float32) + 2, device="mlx")
    big_a = xp.asarray(np.arange(2**20, dtype=np.float32) + 1, device="mlx")
    big_b = big_a + 1.0

    def build() -> None:
        for _ in range(200):
            a / b

    def chain() -> Any:
        c = a
        for _ in range(200):
            c = c * 1.0001 + a
        return c.tolist()

    return {
        "a / b x200 (unread)": build,
        "200-step chain, one read": chain,
        "(a / b).tolist()": lambda: (a / b).tolist(),
        "(a / b).tolist(), 2**20": lambda: np.asarray(big_a / big_b),
    }


def _ignored(fn: Callable[[], Any]) -> Callable[[], Any]:
    def run() -> Any:
        with np.errstate(all="ignore"):
            return fn()

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    rows = []
    for name, fn in _forms().items():
        checked, ignored, ratio = side_by_side(fn, _ignored(fn), args.rounds)
        rows.append([name, fmt_time_us(checked), fmt_time_us(ignored), fmt_ratio(ratio)])
    headers = ["form (MLX, float32)", "default state", "all ignored", "ratio"]
    print(info_block(args.markdown))
    print()
    print(markdown_table(headers, rows) if args.markdown else text_table(headers, rows))


if __name__ == "__main__":
    main()
