"""Helpers shared by the benchmark scripts: statistics, tables, machine facts.

Not a benchmark itself.  The scripts import it as ``_common`` (Python puts
the script's own folder, ``benchmarks/``, first on ``sys.path``).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
try:
    import unifiedarray as _ua  # noqa: F401  (installed, or on PYTHONPATH, e.g. a frozen copy)
except ImportError:
    # Not installed: benchmark the checkout this script lives in.
    sys.path.insert(0, ROOT)


# -- statistics -------------------------------------------------------------------


def median(xs: Sequence[float]) -> float:
    return statistics.median(xs)


def quantile(xs: Sequence[float], q: float) -> float:
    """The ``q`` quantile by linear interpolation (``q`` in [0, 1])."""
    s = sorted(xs)
    if len(s) == 1:
        return s[0]
    pos = q * (len(s) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def paired_ratios(num: Sequence[float], den: Sequence[float]) -> list[float]:
    """Per-round ratios ``num[i] / den[i]`` of two contenders measured in the
    same round (side by side, so both saw the same machine noise)."""
    return [n / d for n, d in zip(num, den, strict=True)]


def batch_time(fn: Any, n: int) -> float:
    """Seconds per call of ``fn()`` over a batch of ``n`` calls."""
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - start) / n


def side_by_side(ours: Any, ref: Any, rounds: int, batch_s: float = 1e-3) -> tuple[float, float, float]:
    """Two contenders timed side by side: each round times both once (a
    batch of about ``batch_s`` seconds of ``ref``, the order alternating
    from round to round); the medians of ``ours``' and ``ref``'s time per
    call (microseconds) and of the per-round ratio ours/ref."""
    n = max(1, int(batch_s / max(batch_time(ref, 10), 1e-8)))
    ours_t, ref_t, ratios = [], [], []
    for r in range(rounds):
        if r % 2:
            a, b = batch_time(ours, n), batch_time(ref, n)
        else:
            b, a = batch_time(ref, n), batch_time(ours, n)
        ours_t.append(a)
        ref_t.append(b)
        ratios.append(a / b)
    return median(ours_t) * 1e6, median(ref_t) * 1e6, median(ratios)


def balanced_orders(n: int) -> list[list[int]]:
    """Orders of ``n`` contenders for successive rounds, a Williams design:
    over ``len(result)`` rounds each contender runs in each position equally
    often and runs right after each other contender equally often, so that
    neither a position nor a neighbour's after-effects (a warm cache, memory
    just freed) favour one contender.  ``n`` orders for even ``n``, ``2n`` for
    odd ``n``."""
    if n == 1:
        return [[0]]
    first = [0]
    lo, hi = 1, n - 1
    while len(first) < n:
        first.append(lo)
        lo += 1
        if len(first) < n:
            first.append(hi)
            hi -= 1
    rows = [[(x + i) % n for x in first] for i in range(n)]
    if n % 2:
        rows += [list(reversed(r)) for r in rows]
    return rows


def in_round(items: Sequence[Any], r: int) -> list[Any]:
    """``items`` in the order of round ``r`` of :func:`balanced_orders`."""
    orders = balanced_orders(len(items))
    return [items[i] for i in orders[r % len(orders)]]


def round_multiple(rounds: int, *ns: int) -> int:
    """``rounds`` raised to a whole number of balanced cycles for every ``n``."""
    import math

    cycle = 1
    for n in ns:
        m = len(balanced_orders(n))
        cycle = cycle * m // math.gcd(cycle, m)
    return -(-rounds // cycle) * cycle


# -- machine facts ----------------------------------------------------------------


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _version(module: str) -> str:
    try:
        mod = __import__(module, fromlist=["__version__"])
    except Exception as exc:  # a missing optional package is a fact to report
        return f"not available ({type(exc).__name__})"
    return str(getattr(mod, "__version__", "?"))


def git_state() -> str:
    """The checkout's commit, and whether its library sources have
    uncommitted changes (the figures are for the tree as it was); for a copy
    of the library outside this checkout, where it was imported from."""
    import subprocess

    import unifiedarray

    here = os.path.dirname(os.path.dirname(os.path.abspath(unifiedarray.__file__)))
    if os.path.realpath(here) != os.path.realpath(ROOT):
        return f"imported from {here}"
    try:
        head = subprocess.run(
            ["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=10
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", ROOT, "status", "--porcelain", "--", "unifiedarray"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "not a git checkout"
    if not head:
        return "not a git checkout"
    return f"git {head}" + (" + uncommitted changes in unifiedarray/" if dirty else "")


def _uname_a(uname: Any) -> str:
    import subprocess

    try:
        out = subprocess.run(["uname", "-a"], capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        out = ""
    return out or " ".join([uname.system, uname.node, uname.release, uname.version, uname.machine])


def pin_to_one_cpu(probe: Callable[[], Any] | None = None) -> int | None:
    """Run every thread of this process, and every thread it starts later,
    on one CPU; returns it, or None where the platform cannot pin (not
    Linux).  With ``probe``, the CPU where ``probe()`` runs fastest (each
    allowed CPU tried in turn), else the one the calling thread is on.

    Why: MLX evaluates on a thread of its own and its caller sleeps until
    that thread is done, so a small read is two thread wake-ups.  On the
    2-core VM, raw MLX's read of a small result took about 16 µs or about
    85 µs depending on which CPU the waiting thread was on, and which CPU
    was the slow one changed within minutes (pure Python ran at the same
    speed on both).  Unpinned, the two contenders of a round can meet
    different modes; pinned to the CPU where a raw MLX read is fastest,
    both meet the same, cheapest hand-off, the one where the library's own
    cost weighs most.
    """
    if not hasattr(os, "sched_setaffinity"):
        return None
    allowed = sorted(os.sched_getaffinity(0))

    def pin(cpu: int) -> None:
        for tid in os.listdir("/proc/self/task"):
            with contextlib.suppress(OSError):
                os.sched_setaffinity(int(tid), {cpu})

    if probe is None:
        here = _current_cpu()
        best = here if here in allowed else allowed[0]
    else:
        timings = {}
        for cpu in allowed:
            pin(cpu)
            for _ in range(50):
                probe()
            t0 = time.perf_counter()
            for _ in range(200):
                probe()
            timings[cpu] = time.perf_counter() - t0
        best = min(timings, key=timings.__getitem__)
    pin(best)
    return best


def _current_cpu() -> int:
    """The CPU the calling thread runs on (Linux: field 39 of its stat)."""
    try:
        with open("/proc/thread-self/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[36])
    except (OSError, ValueError, IndexError):
        return -1


def machine_info() -> dict[str, str]:
    """The facts a reader needs to judge the figures."""
    uname = platform.uname()
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:
        affinity = os.cpu_count() or 0
    return {
        "date": _dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "uname -a": _uname_a(uname),
        "nproc": str(affinity)
        + (f" (pinned to CPU {_current_cpu()})" if affinity == 1 and (os.cpu_count() or 1) > 1 else ""),
        "CPU": cpu_model(),
        "Python": platform.python_version(),
        "NumPy": _version("numpy"),
        "MLX": _version("mlx.core"),
        "array-api-compat": _version("array_api_compat"),
        "array-api-strict": _version("array_api_strict"),
        "unifiedarray": f"{_version('unifiedarray')} ({git_state()})",
        "load average (1, 5, 15 min)": " ".join(f"{x:.2f}" for x in os.getloadavg()),
    }


# -- tables -----------------------------------------------------------------------


def text_table(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    rows = [list(map(str, r)) for r in rows]
    widths = [len(h) for h in headers]
    for r in rows:
        for i, cell in enumerate(r):
            widths[i] = max(widths[i], len(cell))

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=False))
        )

    out = [line(headers), "  ".join("-" * w for w in widths)]
    out += [line(r) for r in rows]
    return "\n".join(out)


def markdown_table(headers: Sequence[str], rows: Iterable[Sequence[str]], align: str = "") -> str:
    """A GitHub-flavoured Markdown table; ``align`` gives one of ``l``/``r``
    per column (default: first left, the rest right)."""
    rows = [list(map(str, r)) for r in rows]
    if not align:
        align = "l" + "r" * (len(headers) - 1)
    sep = [":---" if a == "l" else "---:" for a in align]
    out = ["| " + " | ".join(headers) + " |", "| " + " | ".join(sep) + " |"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def info_block(markdown: bool, info: dict[str, str] | None = None) -> str:
    """The machine facts as a list (``info``: facts recorded earlier)."""
    info = machine_info() if info is None else info
    if markdown:
        return "\n".join(f"- **{k}**: `{v}`" for k, v in info.items())
    return "\n".join(f"{k:<28}{v}" for k, v in info.items())


def fmt_ratio(x: float) -> str:
    """Three decimals up to 1.15× (the targets, 0.25×, 1.03×, 1.1×, sit
    there, and a rounded 1.10× must not hide a 1.104×); two above."""
    return f"{x:.3f}×" if x < 1.15 else f"{x:.2f}×"


def fmt_time_us(x: float) -> str:
    if x >= 1000:
        return f"{x:,.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


# -- plots ------------------------------------------------------------------------

#: Where the scripts write their plots unless told otherwise: beside the
#: benchmarks page, which shows them.
PLOT_DIR = os.path.join(ROOT, "docs", "img")


def add_plot_option(parser: Any, name: str) -> None:
    """``--plot PATH`` (default ``docs/img/<name>.png``) and ``--no-plot``."""
    parser.add_argument(
        "--plot",
        default=os.path.join(PLOT_DIR, f"{name}.png"),
        help="write the plot here (PNG; default %(default)s)",
    )
    parser.add_argument("--no-plot", action="store_true", help="draw no plot")


def plot_path(args: Any) -> str | None:
    """Where to draw, or ``None``; a ``--quick`` run (a smoke test, not a
    measurement) never overwrites the default plot: it draws into a
    temporary directory."""
    if getattr(args, "no_plot", False):
        return None
    path = args.plot
    if getattr(args, "quick", False) and os.path.dirname(os.path.abspath(path)) == PLOT_DIR:
        import tempfile

        path = os.path.join(tempfile.gettempdir(), os.path.basename(path))
    return path


def plot_bars(
    path: str | None,
    panels: Sequence[tuple[str, Sequence[tuple[str, float, str]], float | None]],
    *,
    xlabel: str,
    title: str,
    log: bool = False,
    info: dict[str, str] | None = None,
    line_label: str = "target",
) -> str | None:
    """Draw horizontal bars, one panel per ``(panel title, bars, target)``;
    a bar is ``(label, value, colour group)`` and the target, if any, a
    dashed line labelled ``line_label``.  The machine, date and commit go in the footer, so a plot
    read alone still says what it measured.  Returns the path written, or
    ``None`` (no path, or no matplotlib: said on stderr)."""
    if path is None:
        return None
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        print("matplotlib is not installed: no plot (pip install matplotlib)", file=sys.stderr)
        return None
    panels = [p for p in panels if p[1]]
    heights = [max(1.2, 0.32 * len(bars) + 0.8) for _, bars, _ in panels]
    fig, axes = plt.subplots(
        len(panels),
        1,
        figsize=(9, sum(heights) + 0.9),
        gridspec_kw={"height_ratios": heights},
        constrained_layout=True,
        squeeze=False,
    )
    palette = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown", "tab:gray"]
    groups: dict[str, str] = {}
    for ax, (name, bars, target) in zip(axes[:, 0], panels, strict=True):
        labels = [b[0] for b in bars][::-1]
        values = [b[1] for b in bars][::-1]
        colours = [groups.setdefault(b[2], palette[len(groups) % len(palette)]) for b in bars][::-1]
        ax.barh(range(len(bars)), values, color=colours)
        ax.set_yticks(range(len(bars)), labels, fontsize=8)
        for i, v in enumerate(values):
            ax.annotate(f"{v:.3g}", (v, i), xytext=(3, 0), textcoords="offset points", va="center", fontsize=7)
        if target is not None:
            ax.axvline(target, color="black", linestyle="--", linewidth=1)
            ax.annotate(
                f" {line_label} {target:g}", (target, 1.0), xycoords=("data", "axes fraction"), fontsize=7, va="bottom"
            )
        if log:
            ax.set_xscale("log")
            ax.xaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
            ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_title(name, fontsize=10)
        ax.set_xlabel(xlabel, fontsize=8)
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in groups.values()]
    if len(groups) > 1:
        axes[0, 0].legend(handles, list(groups), loc="best", fontsize=7, framealpha=0.8)
    info = machine_info() if info is None else info
    fig.suptitle(title, fontsize=11)
    foot = f"{info['date']} · {info['CPU']} · {info['nproc']} cores · unifiedarray {info['unifiedarray']}"
    fig.supxlabel(foot, fontsize=6, color="gray")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
