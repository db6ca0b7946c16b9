"""Whole workloads, side by side: what a user would pick instead, against unifiedarray.

Host (float64): NumPy, array-api-compat's NumPy namespace, array-api-strict
and unifiedarray; the peer is NumPy.  MLX (float32): raw ``mlx.core`` and
unifiedarray on the ``"mlx"`` device; the peer is raw MLX.

Workloads (the same array-API code for every contender; raw MLX through a
thin table of its own functions where its names differ):

* ``chain``: ``(a * 2.0 + b) / 3.0 - a * b + 1.0`` on 1000x1000;
* ``a + a + a + a`` on 1000x1000;
* ``k-means step``: distances of 20000x8 points to 16 centres, labels
  (``argmin``), new centres (one-hot matrix product);
* ``least squares``: ``solve(AᵀA, Aᵀb)`` with A 4000x64 (the normal equations);
* ``FFT filter``: ``irfft(rfft(x) * mask)``, float32 on both, 2**20 points;
* ``1000 small ops``: ``x = y - x`` 1000 times on shape (8,);
* ``a + b (8,)``: a single small operation;
* ``PCA fit``: scikit-learn ``PCA(n_components=8, svd_solver="full").fit(X)``,
  X 5000x64, with ``sklearn.set_config(array_api_dispatch=True)`` (NumPy,
  array-api-strict, unifiedarray; raw MLX has no array-API namespace, and
  array-api-compat's NumPy arrays are NumPy's own, so those two are not run).

Every result is made concrete inside the timing (raw MLX: ``mx.eval``;
unifiedarray on MLX: its MLX copy evaluated), and checked once, outside
timing, against NumPy's.  Per workload the contenders alternate in rounds in
a balanced order; a round times one batch per contender (sized to about
20 ms); a ratio is the median of per-round ratios, so both halves saw the
same machine noise.  The host contenders share the input memory (NumPy,
array-api-compat and array-api-strict wrap read-only views of unifiedarray's
host copies), so page placement stays out of the comparison.

Targets (issue 13): host, every workload at most 1.05x NumPy (a single small
call at most 5x); MLX, every workload at most 1.10x raw MLX, a single small
operation at most 1.5x.

Run: ``python benchmarks/bench_workloads.py [--markdown] [--quick] [--rounds N]``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import timeit
import types
from collections.abc import Callable
from typing import Any

import _common as C
import array_api_compat.numpy as compat_np
import array_api_strict
import numpy as np

import unifiedarray as ua

HOST_TARGET, HOST_SMALL_TARGET = 1.05, 5.0
MLX_TARGET, MLX_SMALL_TARGET = 1.10, 1.5
SMALL = {"a + b (8,)"}  # the single small operation, with its own target

try:
    import mlx.core as mx
except ImportError:  # the MLX rows say so
    mx = None

os.environ.setdefault("SCIPY_ARRAY_API", "1")  # scikit-learn's array-API dispatch needs it before SciPy loads


# -- the workloads: array-API code, one function each ---------------------------------------


def chain(xp: Any, a: Any, b: Any) -> Any:
    return (a * 2.0 + b) / 3.0 - a * b + 1.0


def add4(xp: Any, a: Any, b: Any) -> Any:
    return a + a + a + a


def kmeans_step(xp: Any, X: Any, centres: Any, ks: Any) -> Any:
    d = xp.sum(X * X, axis=1)[:, None] - 2.0 * (X @ centres.T) + xp.sum(centres * centres, axis=1)[None, :]
    labels = xp.argmin(d, axis=1)
    onehot = xp.astype(labels[:, None] == ks[None, :], X.dtype)
    counts = xp.sum(onehot, axis=0)
    return (onehot.T @ X) / counts[:, None]


def least_squares(xp: Any, A: Any, b: Any) -> Any:
    return xp.linalg.solve(A.T @ A, A.T @ b)


def fft_filter(xp: Any, x: Any, mask: Any) -> Any:
    return xp.fft.irfft(xp.fft.rfft(x) * mask, n=x.shape[0])


def small_loop(xp: Any, x: Any, y: Any) -> Any:
    for _ in range(1000):
        x = y - x
    return x


def small_add(xp: Any, a: Any, b: Any) -> Any:
    return a + b


def pca_fit(xp: Any, X: Any) -> Any:
    from sklearn.decomposition import PCA  # imported once the environment is set (see main)

    return PCA(n_components=8, svd_solver="full").fit(X).components_


WORKLOADS: dict[str, Callable[..., Any]] = {
    "chain (1000x1000)": chain,
    "a + a + a + a (1000x1000)": add4,
    "k-means step (20000x8, 16 centres)": kmeans_step,
    "least squares (4000x64)": least_squares,
    "FFT filter (2**20, float32)": fft_filter,
    "1000 small ops (8,)": small_loop,
    "a + b (8,)": small_add,
    "PCA fit (5000x64)": pca_fit,
}


def inputs(name: str, rng: np.random.Generator, dtype: Any) -> list[np.ndarray]:
    """The workload's operands, as NumPy arrays of ``dtype``."""
    if name.startswith(("chain", "a + a")):
        return [rng.standard_normal((1000, 1000)).astype(dtype) for _ in range(2)]
    if name.startswith("k-means"):
        X = rng.standard_normal((20000, 8)).astype(dtype)
        return [X, X[rng.choice(20000, 16, replace=False)].copy(), np.arange(16)]
    if name.startswith("least"):
        return [rng.standard_normal((4000, 64)).astype(dtype), rng.standard_normal((4000, 1)).astype(dtype)]
    if name.startswith("FFT"):
        n = 1 << 20
        mask = (np.arange(n // 2 + 1) < n // 8).astype(np.float32)
        return [rng.standard_normal(n).astype(np.float32), mask]
    if name.startswith(("1000 small", "a + b")):
        return [rng.standard_normal(8).astype(dtype) for _ in range(2)]
    if name.startswith("PCA"):
        return [rng.standard_normal((5000, 64)).astype(dtype)]
    raise KeyError(name)


# -- raw MLX: its own names where they differ from the standard's ---------------------------


def _mlx_namespace() -> Any:
    cpu = mx.cpu  # MLX's linalg runs on the CPU stream only
    return types.SimpleNamespace(
        sum=mx.sum,
        argmin=mx.argmin,
        astype=lambda x, dtype: x.astype(dtype),
        fft=types.SimpleNamespace(rfft=mx.fft.rfft, irfft=lambda x, n: mx.fft.irfft(x, n=n)),
        linalg=types.SimpleNamespace(solve=lambda a, b: mx.linalg.solve(a, b, stream=cpu)),
    )


# -- contenders --------------------------------------------------------------------------------


def _finish_ua(out: Any) -> None:
    # A result on MLX is concrete once its MLX copy is evaluated; on the host it already is.
    if type(out) is ua.UnifiedArray and out.device == "mlx":
        mx.eval(out.buffer.read("mlx"))


def _finish_mlx(out: Any) -> None:
    mx.eval(out)


def contenders(name: str, rng: np.random.Generator) -> dict[str, tuple[Callable[[], Any], str]]:
    """``{contender: (call, side)}``: a call runs the workload once, its result concrete."""
    fn = WORKLOADS[name]
    out: dict[str, tuple[Callable[[], Any], str]] = {}
    host_np = inputs(name, rng, np.float64)
    ua_host = [ua.asarray(x, copy=True) for x in host_np]
    views = [x.buffer.read("cpu") for x in ua_host]  # read-only views of unifiedarray's host copies
    out["NumPy"] = (lambda v=views: fn(np, *v), "host")
    if not name.startswith("PCA"):  # the same arrays as NumPy's there
        out["array-api-compat"] = (lambda v=views: fn(compat_np, *v), "host")
    strict = [array_api_strict.asarray(v, copy=False) for v in views]
    out["array-api-strict"] = (lambda s=strict: fn(array_api_strict, *s), "host")
    out["unifiedarray (host)"] = (lambda u=ua_host: fn(ua, *u), "host")
    if mx is not None:
        f32 = [x.astype(np.float32) if x.dtype == np.float64 else x for x in host_np]
        if not name.startswith("PCA"):
            raw = [mx.array(x) for x in f32]
            mxp = _mlx_namespace()
            out["MLX"] = (lambda r=raw: _finish_mlx(fn(mxp, *r)) or None, "mlx")
        ua_mlx = [ua.asarray(x, device="mlx") for x in f32]
        out["unifiedarray (mlx)"] = (lambda u=ua_mlx: _finish_ua(fn(ua, *u)) or None, "mlx")
    return out


def check(name: str, rng_seed: int) -> None:
    """Every contender computes what NumPy computes (float32 tolerance on MLX)."""
    rng = np.random.default_rng(rng_seed)
    fn = WORKLOADS[name]
    host_np = inputs(name, rng, np.float64)
    ref = np.asarray(fn(np, *host_np))
    results = {
        "array-api-strict": np.asarray(fn(array_api_strict, *[array_api_strict.asarray(x) for x in host_np])),
        "unifiedarray (host)": np.asarray(fn(ua, *[ua.asarray(x) for x in host_np]).to_numpy()),
    }
    if mx is not None:
        f32 = [x.astype(np.float32) if x.dtype == np.float64 else x for x in host_np]
        ref32 = np.asarray(fn(np, *f32))
        results["unifiedarray (mlx)"] = np.asarray(fn(ua, *[ua.asarray(x, device="mlx") for x in f32]).to_numpy())
        if not name.startswith("PCA"):
            results["MLX"] = np.asarray(fn(_mlx_namespace(), *[mx.array(x) for x in f32]))
    for who, got in results.items():
        want = ref32 if who in ("MLX", "unifiedarray (mlx)") else ref
        if name.startswith("PCA"):  # components are defined up to sign
            got, want = np.abs(got), np.abs(want)
        tol = 2e-3 if want.dtype == np.float32 or who in ("MLX", "unifiedarray (mlx)") else 1e-9
        if not np.allclose(got, want, rtol=tol, atol=tol * max(1.0, float(np.abs(want).max()))):
            raise AssertionError(f"{name}: {who} differs from NumPy by {np.abs(got - want).max()}")


#: The clock: wall time, or (``--clock cpu``) the CPU time of the whole process,
#: all its threads (MLX's and BLAS's included), which another process's use of
#: the CPU cannot inflate; a second estimate, for a loaded machine.
CLOCK: Callable[[], float] = timeit.default_timer


def _timeit(call: Callable[[], Any], number: int) -> float:
    return timeit.Timer(call, timer=CLOCK).timeit(number)


def calibrate(call: Callable[[], Any], target_s: float) -> int:
    number = 1
    while True:
        t = _timeit(call, number)
        if t >= target_s or number >= 1 << 16:
            return number
        number = max(number * 2, int(number * target_s / max(t, 1e-9) * 0.8))


def measure(name: str, rounds: int, batch_s: float, budget_s: float = 60.0) -> dict[str, Any]:
    funcs = contenders(name, np.random.default_rng(0))
    names = list(funcs)
    numbers = {}
    for n, (call, _) in funcs.items():
        call()  # warm-up: first-call costs (imports, MLX kernels) stay out of the rounds
        numbers[n] = calibrate(call, batch_s)
    # A slow workload (seconds a call) gets fewer rounds: about a minute in all, at least 6.
    round_s = sum(_timeit(call, numbers[n]) for n, (call, _) in funcs.items())
    rounds = min(rounds, max(6, int(budget_s / max(round_s, 1e-9))))
    per_call: dict[str, list[float]] = {n: [] for n in names}
    for r in range(rounds):
        for n in C.in_round(names, r):
            per_call[n].append(_timeit(funcs[n][0], numbers[n]) / numbers[n])
    res: dict[str, Any] = {
        "workload": name,
        "rounds": rounds,
        "us": {n: C.median(v) * 1e6 for n, v in per_call.items()},
        "ratio": {},
    }
    for n in names:
        peer = "NumPy" if funcs[n][1] == "host" else "MLX"
        if peer in per_call and n != peer:
            rs = C.paired_ratios(per_call[n], per_call[peer])
            res["ratio"][n] = (C.median(rs), C.quantile(rs, 0.25), C.quantile(rs, 0.75))
    res["per_round"] = per_call
    return res


def target_for(contender: str, workload: str) -> float | None:
    if contender == "unifiedarray (host)":
        return HOST_SMALL_TARGET if workload in SMALL else HOST_TARGET
    if contender == "unifiedarray (mlx)":
        return MLX_SMALL_TARGET if workload in SMALL else MLX_TARGET
    return None


def render(results: list[dict[str, Any]], markdown: bool) -> str:
    table = C.markdown_table if markdown else C.text_table
    host_cols = ["NumPy", "array-api-compat", "array-api-strict", "unifiedarray (host)"]
    mlx_cols = ["MLX", "unifiedarray (mlx)"]
    out = []
    for side, cols, peer in (("host, float64", host_cols, "NumPy"), ("MLX, float32", mlx_cols, "MLX")):
        rows = []
        for res in results:
            if not any(c in res["us"] for c in cols):
                continue
            row = [f"{res['workload']} [{res['rounds']}]"]
            row += [C.fmt_time_us(res["us"][c]) if c in res["us"] else "—" for c in cols]
            ua_col = cols[-1]
            for c in cols[1:]:
                if c in res["ratio"]:
                    ratio, lo, hi = res["ratio"][c]
                    row.append(f"{C.fmt_ratio(ratio)} ({C.fmt_ratio(lo)}–{C.fmt_ratio(hi)})")
                else:
                    row.append("—")
            target = target_for(ua_col, res["workload"])
            if ua_col in res["ratio"] and target is not None:
                row.append(f"≤ {target:g}×: " + ("met" if res["ratio"][ua_col][0] <= target else "missed"))
            else:
                row.append("—")
            rows.append(row)
        headers = [f"workload ({side})"] + [f"{c} µs" for c in cols]
        headers += [f"{c} / {peer} (IQR)" for c in cols[1:]] + ["target"]
        out.append(table(headers, rows))
    return "\n\n".join(out)


def plot(results: list[dict[str, Any]], path: str | None, info: dict[str, str]) -> str | None:
    host, mlx = [], []
    for res in results:
        for c, (ratio, _, _) in res["ratio"].items():
            label = f"{res['workload']}: {c}"
            (mlx if c == "unifiedarray (mlx)" else host).append((label, ratio, c))
    return C.plot_bars(
        path,
        [
            (f"host: time / NumPy's (target for unifiedarray ≤ {HOST_TARGET}×)", host, HOST_TARGET),
            (f"MLX: unifiedarray's time / raw MLX's (target ≤ {MLX_TARGET}×)", mlx, MLX_TARGET),
        ],
        xlabel="ratio of times (median of per-round ratios; log scale)",
        title="Whole workloads against the peer, one run",
        log=True,
        info=info,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--quick", action="store_true", help="a few rounds (a smoke test, not a measurement)")
    parser.add_argument("--rounds", type=int, default=0, help="rounds per workload (default 24; --quick 4)")
    parser.add_argument("--only", help="a comma-separated list of workload name prefixes")
    parser.add_argument("--json", help="also write every measurement here")
    parser.add_argument(
        "--clock", choices=("wall", "cpu"), default="wall", help="wall time, or the CPU time of the process"
    )
    C.add_plot_option(parser, "bench_workloads")
    args = parser.parse_args()
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else timeit.default_timer
    import sklearn

    sklearn.set_config(array_api_dispatch=True)
    rounds = args.rounds or (4 if args.quick else 24)
    batch_s = 0.005 if args.quick else 0.02
    names = [n for n in WORKLOADS if not args.only or n.startswith(tuple(args.only.split(",")))]
    info = C.machine_info()
    results = []
    for name in names:
        check(name, 7)
        results.append(measure(name, rounds, batch_s, 5.0 if args.quick else 60.0))
        print(f"measured {name}", file=sys.stderr)
    print(C.info_block(args.markdown, info))
    print(f"\nclock: {args.clock}")
    print(
        f"\nrounds per workload: {rounds} (fewer for a slow one: [n] after its name); batches of about "
        f"{batch_s * 1e3:.0f} ms; times are medians over rounds, ratios medians of per-round ratios\n"
    )
    print(render(results, args.markdown))
    written = plot(results, C.plot_path(args), info)
    if written:
        print(f"\nplot: {os.path.relpath(written, C.ROOT)}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"info": info, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
