"""The whole namespace on small arrays, side by side in one run (issue 36):
every namespace function with a one-line form, the operators, indexing and
the methods users call, against the call a user writes without the
library.

* host, float64 (8 elements; 4x4 for linear algebra), against NumPy on
  ndarrays: ``xp.sin(a)`` against ``np.sin(a)``, ``a[idx]`` against the
  same on an ndarray;
* MLX, float32, against raw ``mlx.core`` on ``mx.array``s: results left
  unevaluated on both sides, as raw MLX code leaves them.  A form MLX has
  no function for (``nonzero``, ``unique_values``) has no MLX row.

Each round times the two contenders of a form once (a batch of about a
millisecond each, the order alternating from round to round); a form's
figure is the median of its per-round ratios.  Targets (issue 36): host
geometric mean at most 1.8x NumPy, no form above 3.5x; MLX geometric mean
at most 2.0x raw MLX, no form above 5x.

Run: ``python benchmarks/bench_namespace.py [--rounds N] [--markdown]
[--json FILE] [--device cpu|mlx] [--only TEXT]`` (a few minutes).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

import _common as C
import numpy as np

import unifiedarray as xp
from unifiedarray.backends import registry

TARGETS = {"cpu": (1.8, 3.5), "mlx": (2.0, 5.0)}

UNARY = [
    "abs",
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atanh",
    "ceil",
    "conj",
    "cos",
    "cosh",
    "exp",
    "expm1",
    "floor",
    "imag",
    "isfinite",
    "isinf",
    "isnan",
    "log",
    "log1p",
    "log2",
    "log10",
    "logical_not",
    "negative",
    "positive",
    "real",
    "reciprocal",
    "round",
    "sign",
    "signbit",
    "sin",
    "sinh",
    "square",
    "sqrt",
    "tan",
    "tanh",
    "trunc",
]
BINARY = [
    "add",
    "atan2",
    "copysign",
    "divide",
    "equal",
    "floor_divide",
    "greater",
    "greater_equal",
    "hypot",
    "less",
    "less_equal",
    "logaddexp",
    "logical_and",
    "logical_or",
    "logical_xor",
    "maximum",
    "minimum",
    "multiply",
    "nextafter",
    "not_equal",
    "pow",
    "remainder",
    "subtract",
]
BITWISE = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift"]

#: (form, the library's call, NumPy's, raw MLX's or None); names: ``ns``
#: the library (``xp``) or the reference module, ``a``, ``b`` (8,), ``c``
#: a mask, ``i`` (8,) integers, ``idx`` an index array, ``M``, ``S`` 4x4
#: (S positive definite), ``v`` (4,), ``L`` a Python list.
OTHER: list[tuple[str, str, str, str | None]] = [
    # operators, indexing, methods
    ("a + b", "a + b", "a + b", "a + b"),
    ("a * 2.0", "a * 2.0", "a * 2.0", "a * 2.0"),
    ("a > 1", "a > 1", "a > 1", "a > 1"),
    ("-a", "-a", "-a", "-a"),
    ("a @ b", "a @ b", "a @ b", "a @ b"),
    ("M @ M", "M @ M", "M @ M", "M @ M"),
    ("a[3]", "a[3]", "a[3]", "a[3]"),
    ("a[1:3]", "a[1:3]", "a[1:3]", "a[1:3]"),
    ("a[idx]", "a[idx]", "a[idx]", "a[idx]"),
    ("a[c]", "a[c]", "a[c]", None),
    ("M.T", "M.T", "M.T", "M.T"),
    ("a.astype(float16)", "xp.astype(a, xp.float16)", "a.astype(np.float16)", "a.astype(mx.float16)"),
    ("a[2] = 1.0", "a.__setitem__(2, 1.0)", "a.__setitem__(2, 1.0)", "a.__setitem__(2, 1.0)"),
    # statistics and searching
    ("sum", "xp.sum(a)", "np.sum(a)", "mx.sum(a)"),
    ("prod", "xp.prod(a)", "np.prod(a)", "mx.prod(a)"),
    ("mean", "xp.mean(a)", "np.mean(a)", "mx.mean(a)"),
    ("std", "xp.std(a)", "np.std(a)", "mx.std(a)"),
    ("var", "xp.var(a)", "np.var(a)", "mx.var(a)"),
    ("max", "xp.max(a)", "np.max(a)", "mx.max(a)"),
    ("min", "xp.min(a)", "np.min(a)", "mx.min(a)"),
    ("all", "xp.all(c)", "np.all(c)", "mx.all(c)"),
    ("any", "xp.any(c)", "np.any(c)", "mx.any(c)"),
    ("sum(axis=0)", "xp.sum(M, axis=0)", "np.sum(M, axis=0)", "mx.sum(M, axis=0)"),
    ("cumulative_sum", "xp.cumulative_sum(a)", "np.cumulative_sum(a)", "mx.cumsum(a)"),
    ("cumulative_prod", "xp.cumulative_prod(a)", "np.cumulative_prod(a)", "mx.cumprod(a)"),
    ("argmax", "xp.argmax(a)", "np.argmax(a)", "mx.argmax(a)"),
    ("argmin", "xp.argmin(a)", "np.argmin(a)", "mx.argmin(a)"),
    ("count_nonzero", "xp.count_nonzero(a)", "np.count_nonzero(a)", None),
    ("where(c, a, b)", "xp.where(c, a, b)", "np.where(c, a, b)", "mx.where(c, a, b)"),
    ("where(c, a, 0.0)", "xp.where(c, a, 0.0)", "np.where(c, a, 0.0)", "mx.where(c, a, 0.0)"),
    ("nonzero", "xp.nonzero(c)", "np.nonzero(c)", None),
    ("sort", "xp.sort(a)", "np.sort(a)", "mx.sort(a)"),
    ("argsort", "xp.argsort(a)", "np.argsort(a)", "mx.argsort(a)"),
    ("searchsorted", "xp.searchsorted(a, b)", "np.searchsorted(a, b)", None),
    ("clip", "xp.clip(a, 0.2, 0.8)", "np.clip(a, 0.2, 0.8)", "mx.clip(a, 0.2, 0.8)"),
    ("unique_values", "xp.unique_values(a)", "np.unique_values(a)", None),
    ("diff", "xp.diff(a)", "np.diff(a)", None),
    # manipulation
    ("concat", "xp.concat([a, b])", "np.concatenate([a, b])", "mx.concatenate([a, b])"),
    ("stack", "xp.stack([a, b])", "np.stack([a, b])", "mx.stack([a, b])"),
    ("reshape", "xp.reshape(a, (2, 4))", "np.reshape(a, (2, 4))", "mx.reshape(a, (2, 4))"),
    ("flip", "xp.flip(a)", "np.flip(a)", None),
    ("roll", "xp.roll(a, 1)", "np.roll(a, 1)", "mx.roll(a, 1)"),
    ("expand_dims", "xp.expand_dims(a, axis=0)", "np.expand_dims(a, axis=0)", "mx.expand_dims(a, 0)"),
    ("squeeze", "xp.squeeze(M[:1], axis=0)", "np.squeeze(M[:1], axis=0)", "mx.squeeze(M[:1], axis=0)"),
    ("permute_dims", "xp.permute_dims(M, (1, 0))", "np.permute_dims(M, (1, 0))", "mx.transpose(M, (1, 0))"),
    ("moveaxis", "xp.moveaxis(M, 0, 1)", "np.moveaxis(M, 0, 1)", "mx.moveaxis(M, 0, 1)"),
    ("broadcast_to", "xp.broadcast_to(a, (2, 8))", "np.broadcast_to(a, (2, 8))", "mx.broadcast_to(a, (2, 8))"),
    ("tile", "xp.tile(a, (2,))", "np.tile(a, (2,))", "mx.tile(a, (2,))"),
    ("repeat", "xp.repeat(a, 2)", "np.repeat(a, 2)", "mx.repeat(a, 2)"),
    ("take", "xp.take(a, idx)", "np.take(a, idx)", "mx.take(a, idx)"),
    (
        "take_along_axis",
        "xp.take_along_axis(a, idx)",
        "np.take_along_axis(a, idx, -1)",
        "mx.take_along_axis(a, idx, -1)",
    ),
    # creation
    ("zeros", "xp.zeros(8, device=dev)", "np.zeros(8)", "mx.zeros(8)"),
    ("full", "xp.full(8, 2.0, device=dev)", "np.full(8, 2.0)", "mx.full(8, 2.0)"),
    ("arange", "xp.arange(8, device=dev)", "np.arange(8)", "mx.arange(8)"),
    ("linspace", "xp.linspace(0.0, 1.0, 8, device=dev)", "np.linspace(0.0, 1.0, 8)", "mx.linspace(0.0, 1.0, 8)"),
    ("eye", "xp.eye(4, device=dev)", "np.eye(4)", "mx.eye(4)"),
    ("zeros_like", "xp.zeros_like(a)", "np.zeros_like(a)", "mx.zeros_like(a)"),
    ("full_like", "xp.full_like(a, 3.0)", "np.full_like(a, 3.0)", "mx.full_like(a, 3.0)"),
    ("asarray(list)", "xp.asarray(L, device=dev)", "np.asarray(L)", "mx.array(L)"),
    ("tril", "xp.tril(M)", "np.tril(M)", "mx.tril(M)"),
    ("triu", "xp.triu(M)", "np.triu(M)", "mx.triu(M)"),
    # linear algebra
    ("matmul", "xp.matmul(M, M)", "np.matmul(M, M)", "mx.matmul(M, M)"),
    ("tensordot", "xp.tensordot(M, M, axes=1)", "np.tensordot(M, M, axes=1)", "mx.tensordot(M, M, axes=1)"),
    ("vecdot", "xp.vecdot(a, b)", "np.vecdot(a, b)", None),
    ("outer", "xp.linalg.outer(v, v)", "np.outer(v, v)", "mx.outer(v, v)"),
    ("solve", "xp.linalg.solve(S, v)", "np.linalg.solve(S, v)", "mx.linalg.solve(S, v, stream=mx.cpu)"),
    ("inv", "xp.linalg.inv(S)", "np.linalg.inv(S)", "mx.linalg.inv(S, stream=mx.cpu)"),
    ("cholesky", "xp.linalg.cholesky(S)", "np.linalg.cholesky(S)", "mx.linalg.cholesky(S, stream=mx.cpu)"),
    ("det", "xp.linalg.det(S)", "np.linalg.det(S)", None),
    ("qr", "xp.linalg.qr(S)", "np.linalg.qr(S)", "mx.linalg.qr(S, stream=mx.cpu)"),
    ("eigh", "xp.linalg.eigh(S)", "np.linalg.eigh(S)", "mx.linalg.eigh(S, stream=mx.cpu)"),
    ("vector_norm", "xp.linalg.vector_norm(a)", "np.linalg.vector_norm(a)", "mx.linalg.norm(a)"),
    ("trace", "xp.linalg.trace(S)", "np.linalg.trace(S)", "mx.trace(S)"),
    ("diagonal", "xp.linalg.diagonal(S)", "np.linalg.diagonal(S)", "mx.diagonal(S)"),
    ("cross", "xp.linalg.cross(v[:3], v[1:])", "np.linalg.cross(v[:3], v[1:])", None),
    # fft
    ("fft.fft", "xp.fft.fft(a)", "np.fft.fft(a)", "mx.fft.fft(a)"),
    ("fft.rfft", "xp.fft.rfft(a)", "np.fft.rfft(a)", "mx.fft.rfft(a)"),
]


def all_forms() -> list[tuple[str, str, str, str | None]]:
    forms = [(f"{n}(a)", f"xp.{n}(a)", f"np.{n}(a)", f"mx.{n}(a)") for n in UNARY]
    forms += [(f"{n}(a, b)", f"xp.{n}(a, b)", f"np.{n}(a, b)", f"mx.{n}(a, b)") for n in BINARY]
    forms += [(f"{n}(i, i)", f"xp.{n}(i, i)", f"np.{n}(i, i)", f"mx.{n}(i, i)") for n in BITWISE]
    return forms + OTHER


def operands(lib: str, device: str) -> dict[str, Any]:
    """The operands, as ``lib`` ("xp", "np", "mx") holds them."""
    float_dt = "float64" if device == "cpu" else "float32"
    rng = np.random.default_rng(0)
    host = {
        "a": np.linspace(0.1, 0.9, 8).astype(float_dt),
        "b": np.linspace(0.9, 0.1, 8).astype(float_dt) + 0.05,
        "c": np.array([True, False] * 4),
        "i": np.arange(8, dtype="int32"),
        "idx": np.array([3, 1, 0, 2, 7, 6, 5, 4], dtype="int32"),
        "M": rng.random((4, 4)).astype(float_dt),
        "v": np.linspace(1.0, 2.0, 4).astype(float_dt),
    }
    q = rng.random((4, 4))
    host["S"] = (q @ q.T + 4 * np.eye(4)).astype(float_dt)
    env: dict[str, Any] = {"L": [0.5] * 8, "dev": device}
    if lib == "xp":
        env.update({k: xp.asarray(v, device=device) for k, v in host.items()})
        env["xp"] = xp
    elif lib == "np":
        env.update(host)
        env["np"] = np
    else:
        import mlx.core as mx

        env.update({k: mx.array(v) for k, v in host.items()})
        mx.eval(*[env[k] for k in host])
        env["mx"] = mx
    return env


def measure(device: str, rounds: int, only: str | None) -> tuple[list[dict[str, Any]], list[str]]:
    ref_lib = "np" if device == "cpu" else "mx"
    ours_env, ref_env = operands("xp", device), operands(ref_lib, device)
    rows, skipped = [], []
    for form, ours_src, np_src, mx_src in all_forms():
        if only and only not in form:
            continue
        ref_src = np_src if device == "cpu" else mx_src
        if ref_src is None:
            skipped.append(f"{form} (raw MLX has no such function)")
            continue
        ours = eval(f"lambda: {ours_src}", ours_env)  # the forms above, nothing else
        ref = eval(f"lambda: {ref_src}", ref_env)
        try:
            ours()
            ref()
        except Exception as exc:
            skipped.append(f"{form} ({type(exc).__name__}: {exc})")
            continue
        ours_us, ref_us, ratio = C.side_by_side(ours, ref, rounds)
        rows.append({"form": form, "ours_us": ours_us, "ref_us": ref_us, "ratio": ratio})
    return rows, skipped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument("--only", metavar="TEXT", help="only the forms whose name holds TEXT")
    parser.add_argument("--device", action="append", choices=["cpu", "mlx"])
    args = parser.parse_args(argv)
    devices = args.device or ["cpu", *(["mlx"] if registry()["mlx"].available else [])]
    print(C.info_block(args.markdown))
    report: dict[str, Any] = {"machine": C.machine_info(), "devices": {}}
    table = C.markdown_table if args.markdown else C.text_table
    for device in devices:
        rows, skipped = measure(device, args.rounds, args.only)
        if not rows:
            continue
        geomean = math.exp(sum(math.log(r["ratio"]) for r in rows) / len(rows))
        worst = max(rows, key=lambda r: r["ratio"])
        mean_target, worst_target = TARGETS[device]
        ref = "NumPy" if device == "cpu" else "raw MLX"
        report["devices"][device] = {"rows": rows, "skipped": skipped, "geomean": geomean, "worst": worst}
        print(f"\n{device}: unifiedarray against {ref}, {len(rows)} forms")
        print(
            table(
                ["form", "unifiedarray", ref, "ratio"],
                [
                    [r["form"], C.fmt_time_us(r["ours_us"]), C.fmt_time_us(r["ref_us"]), C.fmt_ratio(r["ratio"])]
                    for r in sorted(rows, key=lambda r: -r["ratio"])
                ],
            )
        )
        over = [r["form"] for r in rows if r["ratio"] > worst_target]
        print(
            f"{device}: geometric mean {geomean:.2f}x (target {mean_target}x), worst {worst['ratio']:.2f}x "
            f"({worst['form']}); {len(over)} of {len(rows)} forms above {worst_target}x"
        )
        for s in skipped:
            print(f"  not timed: {s}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
