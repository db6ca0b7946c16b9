"""Where unifiedarray's per-call time goes on small arrays (a diagnostic, not a
benchmark with targets).

For ``a + b``, ``xp.sum(a)``, ``a[1:3]`` and ``xp.asarray(list)`` on shape (8,)
(and, on 1000×1000, ``sum``, ``a[1:3, :]`` and ``asarray`` of a nested list),
this prints:

1. a *decomposition*: the full call, and the same call cut at successive
   points inside the library (the NumPy work alone, the work plus wrapping
   the result, the internal entry point without the public wrapper ...),
   each timed with ``timeit`` (minimum over repeats, alternated in rounds);
   the difference between two successive rows is the cost of that layer;
2. a ``cProfile`` listing of the full call repeated many times (internal
   time per function; cProfile inflates Python-level costs, so read it for
   proportions only);
3. first, ``A.T @ b`` (A 4000×64) with a little Python after NumPy's BLAS
   call: what Python costs between two BLAS calls, against what it costs
   alone (the ratio a workload of a few large calls pays per call).

It calls private functions of the library (``unifiedarray._dispatch`` ...) to
cut the call into pieces; if they are renamed, the affected rows say so
instead of failing.

Run: ``python benchmarks/profile_overhead.py [--markdown] [--no-cprofile]``.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys
import threading
import timeit
from typing import Any

import _common as C
import numpy as np

import unifiedarray as ua


def _env() -> dict[str, Any]:
    from unifiedarray import (
        _access,
        _buffer,
        _calls,
        _creation,
        _index,
        _operators,
        _resolve,
        _results,
        _subscripts,
        _views,
    )
    from unifiedarray._buffer import UnifiedBuffer
    from unifiedarray._devices import CPU
    from unifiedarray.compute import host_namespace

    rng = np.random.default_rng(2)
    A, B = rng.standard_normal(8), rng.standard_normal(8)
    a, b = ua.asarray(A), ua.asarray(B)
    big = rng.standard_normal((1000, 1000))
    abig = ua.asarray(big)
    al, bl = ua.asarray(rng.standard_normal((4000, 64))), ua.asarray(rng.standard_normal((4000, 1)))
    return {
        "np": np, "ua": ua, "threading": threading, "CPU": CPU, "hn": host_namespace,
        "UnifiedArray": ua.UnifiedArray, "UnifiedBuffer": UnifiedBuffer,
        "_access": _access, "_calls": _calls, "_operators": _operators, "_resolve": _resolve,
        "_results": _results, "_subscripts": _subscripts,
        "_index": _index, "_views": _views, "_buffer": _buffer, "_creation": _creation,
        "a": a, "b": b,
        # the NumPy arrays unifiedarray computes on (its host copies)
        "An": a.buffer._copies[CPU], "Bn": b.buffer._copies[CPU],
        "f64": np.dtype(np.float64),
        "s13": slice(1, 3), "k2": (slice(1, 3), slice(None)),
        "k2e": (slice(1, 3), slice(None), Ellipsis),
        "L": A.tolist(), "LL": big.tolist(),
        "abig": abig, "Abig": abig.buffer._copies[CPU],
        "S": np.float64(1.5),
        # A.T @ b between BLAS calls: Python's cost there (see its block)
        "Al": al, "bl": bl, "Alh": al.buffer._copies[CPU], "blh": bl.buffer._copies[CPU],
        "R": al.buffer._copies[CPU].T @ bl.buffer._copies[CPU], "busy": _busy,
    }  # fmt: skip


def _busy() -> int:
    """A little pure-Python work (about 0.2 µs alone)."""
    return sum(range(12))


# (label, statement): each block is cumulative, top to bottom, ending with the
# full public call; "piece" rows are single internal operations for reference.
BLOCKS: dict[str, list[tuple[str, str]]] = {
    # Python run between two BLAS calls costs several times what it costs
    # alone (the caches the BLAS call used are cold for the interpreter):
    # what a workload of a few large calls pays per call, not the figures of
    # a loop of small ones.
    "A.T @ b (A 4000x64) between BLAS calls": [
        ("NumPy: Alh.T @ blh (the work, on the library's host copies)", "Alh.T @ blh"),
        ("the work, then 0.2 µs of Python: Alh.T @ blh; busy()", "Alh.T @ blh; busy()"),
        ("the work, then a wrapper instead: ...; adopt(R)", "Alh.T @ blh; _results.adopt(R, CPU, f64)"),
        ("full: Al.T @ bl", "Al.T @ bl"),
        ("piece: busy() alone", "busy()"),
        ("piece: _results.adopt(R, CPU, f64) alone", "_results.adopt(R, CPU, f64)"),
        ("piece: Al.T alone", "Al.T"),
    ],
    "a + b (8,)": [
        ("NumPy: An + Bn (the work)", "An + Bn"),
        ("+ wrap the result: _results.adopt(An + Bn, CPU, f64)", "_results.adopt(An + Bn, CPU, f64)"),
        ("+ operate(): _operators.operate(a, b, 'add')", "_operators.operate(a, b, 'add')"),
        ("full: a + b (__add__ → operate)", "a + b"),
        ("piece: _buffer.adopt(An, CPU, f64)", "_buffer.adopt(An, CPU, f64)"),
        ("piece: object.__new__(UnifiedArray)", "object.__new__(UnifiedArray)"),
        ("piece: object.__new__(UnifiedBuffer)", "object.__new__(UnifiedBuffer)"),
        ("piece: {CPU: An} (the copies dict)", "{CPU: An}"),
        ("piece: _resolve.resolve(CPU, 'add')", "_resolve.resolve(CPU, 'add')"),
        ("piece: _access.native_on(a, CPU, 'x')", "_access.native_on(a, CPU, 'x')"),
    ],
    "xp.sum(a) (8,)": [
        ("NumPy: np.sum(An) (the work)", "np.sum(An)"),
        ("+ array-api-compat: hn.sum(An)", "hn.sum(An)"),
        ("+ wrap: _results.wrap_result(hn.sum(An), CPU, (An,))", "_results.wrap_result(hn.sum(An), CPU, (An,))"),
        ("full: ua.sum(a) (the reduction fast path)", "ua.sum(a)"),
        ("piece: np.add.reduce(An) (the reduction without np.sum's Python layer)", "np.add.reduce(An)"),
        ("piece: np.asarray(S) (0-d array from NumPy's scalar)", "np.asarray(S)"),
        ("piece: _results.wrap_result(np.asarray(S), CPU)", "_results.wrap_result(np.asarray(S), CPU)"),
        ("piece: _access.native_on(a, CPU, 'sum')", "_access.native_on(a, CPU, 'sum')"),
        ("piece: _calls.call_mixed('sum', (a,)) (the general path)", "_calls.call_mixed('sum', (a,))"),
    ],
    "xp.sum(a) (1000, 1000)": [
        ("NumPy: np.sum(Abig) (the work)", "np.sum(Abig)"),
        ("+ array-api-compat: hn.sum(Abig)", "hn.sum(Abig)"),
        (
            "+ wrap: _results.wrap_result(hn.sum(Abig), CPU, (Abig,))",
            "_results.wrap_result(hn.sum(Abig), CPU, (Abig,))",
        ),
        ("full: ua.sum(abig)", "ua.sum(abig)"),
    ],
    "a[1:3] (8,)": [
        ("NumPy: An[1:3] (the work)", "An[1:3]"),
        ("full: a[1:3] (__getitem__)", "a[1:3]"),
        ("piece: object.__new__(UnifiedArray)", "object.__new__(UnifiedArray)"),
        ("piece: CPU in a.buffer._valid", "CPU in a.buffer._valid"),
        ("piece: _subscripts._view(a, s13) (the general view path)", "_subscripts._view(a, s13)"),
    ],
    "a[1:3, :] (1000, 1000)": [
        ("NumPy: Abig[1:3, :] (the work)", "Abig[k2]"),
        ("NumPy with unifiedarray's key: Abig[(slice(1, 3), slice(None), ...)]", "Abig[k2e]"),
        ("+ _view: _subscripts._view(abig, k2)", "_subscripts._view(abig, k2)"),
        ("full: abig[1:3, :] (__getitem__ → getitem)", "abig[1:3, :]"),
        ("piece: _index.is_basic_key(k2)", "_index.is_basic_key(k2)"),
        ("piece: _index.view_key(k2)", "_index.view_key(k2)"),
        ("piece: _access.native_on(abig, CPU, 'x')", "_access.native_on(abig, CPU, 'x')"),
    ],
    "xp.asarray(list) (8,)": [
        ("NumPy: np.asarray(L) (the work)", "np.asarray(L)"),
        ("+ _creation._to_host_array(L, None, CPU)", "_creation._to_host_array(L, None, CPU)"),
        ("full: ua.asarray(L)", "ua.asarray(L)"),
        ("piece: _creation._device(None)", "_creation._device(None)"),
        (
            "piece: backend_for(CPU).check_dtype(f64, CPU, 'asarray')",
            "_creation.backend_for(CPU).check_dtype(f64, CPU, 'asarray')",
        ),
        ("piece: _results.wrap_result(An, CPU)", "_results.wrap_result(An, CPU)"),
    ],
    "xp.asarray(list) (1000, 1000)": [
        ("NumPy: np.asarray(LL) (the work)", "np.asarray(LL)"),
        ("+ _creation._to_host_array(LL, None, CPU)", "_creation._to_host_array(LL, None, CPU)"),
        ("full: ua.asarray(LL)", "ua.asarray(LL)"),
    ],
}


def time_block(env: dict[str, Any], rows: list[tuple[str, str]], rounds: int) -> list[tuple[str, float | None]]:
    timers: list[tuple[str, timeit.Timer | None, int]] = []
    for label, stmt in rows:
        try:
            t = timeit.Timer(stmt, globals=env)
            t.timeit(1)
            number = max(1, int(0.004 / max(min(t.repeat(3, 1)), 1e-7)))
            timers.append((label, t, number))
        except Exception as exc:  # a private name changed: say so, go on
            print(f"  ({label}: cannot run: {type(exc).__name__}: {exc})", file=sys.stderr)
            timers.append((label, None, 0))
    best: dict[str, float] = {}
    for r in range(rounds):
        for label, t, number in C.in_round(timers, r):
            if t is None:
                continue
            us = t.timeit(number) / number * 1e6
            best[label] = min(best.get(label, us), us)
    return [(label, best.get(label)) for label, _ in rows]


def render_block(title: str, results: list[tuple[str, float | None]], markdown: bool) -> str:
    rows = []
    prev = None
    for label, us in results:
        if us is None:
            rows.append([label, "n/a", ""])
            continue
        step = ""
        if not label.startswith("piece:"):
            diff = 0.0 if prev is None else us - prev
            step = "" if prev is None else f"{diff:+,.0f}" if abs(diff) >= 100 else f"{diff:+.2f}"
            prev = us
        rows.append([f"`{label}`" if markdown else label, C.fmt_time_us(us), step])
    headers = ["step", "µs per call (min)", "added by this layer"]
    table = C.markdown_table(headers, rows, "lrr") if markdown else C.text_table(headers, rows)
    return f"{'#### ' if markdown else ''}{title}\n\n{table}"


def cprofile_block(env: dict[str, Any], stmt: str, n: int, top: int) -> str:
    code = compile(f"for _ in range({n}):\n    {stmt}", "<bench>", "exec")
    prof = cProfile.Profile()
    prof.enable()
    exec(code, env)
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(top)
    lines = [ln for ln in out.getvalue().splitlines() if ln.strip()]
    start = next(i for i, ln in enumerate(lines) if ln.lstrip().startswith("ncalls"))
    lib_parent = os.path.dirname(os.path.dirname(os.path.abspath(ua.__file__))) + "/"
    body = [ln.replace(lib_parent, "").replace(C.ROOT + "/", "") for ln in lines[start:]]
    return f"cProfile of {n:,} × `{stmt}` (sorted by internal time):\n\n```\n" + "\n".join(body) + "\n```"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--markdown", action="store_true")
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--no-cprofile", action="store_true")
    C.add_plot_option(p, "profile_overhead")
    args = p.parse_args(argv)
    env = _env()
    info = C.machine_info()
    print(C.info_block(args.markdown, info), end="\n\n")
    panels = []
    for title, rows in BLOCKS.items():
        rounds = (
            9 if "asarray" in title and "1000" in title else 31 if "sum" in title and "1000" in title else args.rounds
        )
        results = time_block(env, rows, rounds)
        print(render_block(title, results, args.markdown), end="\n\n", flush=True)
        bars = [(label, us, "piece" if label.startswith("piece:") else "layer") for label, us in results if us]
        panels.append((title, bars, None))
    written = C.plot_bars(
        C.plot_path(args),
        panels,
        xlabel="µs per call (fastest round; log scale)",
        title="Where unifiedarray's per-call time goes, layer by layer",
        log=True,
        info=info,
    )
    if written:
        print(f"plot: {written}", end="\n\n")
    if not args.no_cprofile:
        for stmt, n in (
            ("a + b", 200_000),
            ("ua.sum(a)", 100_000),
            ("a[1:3]", 200_000),
            ("abig[1:3, :]", 200_000),
            ("ua.asarray(L)", 100_000),
        ):
            print(cprofile_block(env, stmt, n, 12), end="\n\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
