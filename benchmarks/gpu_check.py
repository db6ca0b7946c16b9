"""The GPU check: one command that tells what the library does on a real GPU.

Made for a short loan of a GPU machine (one run of at most 8 minutes, no
network): it needs nothing but this checkout, NumPy, CuPy, pytest and
Hypothesis.  The pure-Python packages such a machine lacks travel as wheels
in ``.whl/`` (git-ignored; the README's development section says how to
bring them): the check installs them into a temporary folder first.

Steps, each with its own time budget (a step that fails or runs out of time
is reported and the check goes on):

1. ``facts``: the GPU, its driver, CUDA (runtime and driver), CuPy, NumPy,
   Python, the commit, and which build of the library ran (compiled, or
   pure Python where nothing was compiled for that Python);
2. ``main``: ``python -m unifiedarray``;
3. ``differential``: the differential suite (every namespace function against
   array-api-strict), its cuda:0 parametrizations;
4. ``official``: the official array-api-tests on cuda:0 (``conformance.run``,
   few examples), where the suite travels in ``.suites/array-api-tests``
   (git-ignored; skipped, and not a failure, where it is absent);
5. ``transfers``: ``bench_cuda_transfers.py`` (pageable and pinned, both
   directions, 1 MB, 64 MB, 1 GB, against bare CuPy and the PCIe limit);
6. ``workloads``: ``bench_cuda_workloads.py`` (the chained expression, the
   k-means step, one small operation, reading a scalar; against raw CuPy);
   ``overhead``: ``bench_cuda_overhead.py`` (the library's own Python time
   per call, beside the CuPy calls it makes);
7. ``tests``: the CUDA tests and the buffer, ledger, pool and transfer tests
   on the real runtime (``--cuda=real``; the tests that need MLX skip for its
   absence);
8. ``routes``: the route table's test of NumPy's API, its cuda:0 cases;
9. ``random``: ``unifiedarray.random``'s tests, their cuda:0 cases.

The steps run in this order, the most wanted first; a step the deadline
leaves no time for is reported as skipped, and a second call with
``--only`` runs it.

It writes ``report.md`` (the facts, each step's outcome and its tables),
``summary.json`` and one log per step into ``--out DIR``, and prints a
summary.  ``--sim`` runs the same steps on the simulated CUDA runtime
(``tests/cudasim``) with small sizes, with MLX hidden as on the GPU machine:
that is how the check itself is tested, here and in CI.

    python3 benchmarks/gpu_check.py --out DIR            # on the GPU machine
    python benchmarks/gpu_check.py --sim --out DIR       # anywhere
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIM_SITE = ROOT / "tests" / "cudasim" / "site"
WHEELS = ROOT / ".whl"
#: the official array-api-tests, travelling with the tree (git-ignored, as .whl/)
SUITE = ROOT / ".suites" / "array-api-tests"
MAX_LOG = 4 << 20  # bytes kept of a step's log (its head and tail): the report's files stay small

#: The tests run on the GPU (the differential suite is a step of its own).
TESTS = [
    "tests/test_cuda.py",
    "tests/test_cupy_backend.py",
    "tests/test_exports.py",
    "tests/test_streaming.py",
    "tests/test_creation.py",
    "tests/test_linalg.py",
    "tests/test_fft.py",
    "tests/test_cuda_pool_ledger.py",
    "tests/test_cuda_stateful.py",
    "tests/test_cuda_streams.py",
    "tests/test_buffer.py",
    "tests/test_buffer_stateful.py",
    "tests/test_ledger.py",
    "tests/test_pool.py",
    "tests/test_pool_stateful.py",
    "tests/test_transfers.py",
]

FACTS = r"""
import json, platform, subprocess, sys
import numpy as np
facts = {"Python": platform.python_version(), "NumPy": np.__version__}
try:
    import cupy
    rt = cupy.cuda.runtime
    facts["CuPy"] = cupy.__version__ + (" (simulated: tests/cudasim)" if getattr(cupy, "_SIMULATED", False) else "")
    v = rt.runtimeGetVersion(); facts["CUDA runtime"] = f"{v // 1000}.{v % 1000 // 10}"
    v = rt.driverGetVersion(); facts["CUDA driver API"] = f"{v // 1000}.{v % 1000 // 10}"
    for i in range(rt.getDeviceCount()):
        p = rt.getDeviceProperties(i)
        name = p["name"].decode() if isinstance(p["name"], bytes) else p["name"]
        gib = p["totalGlobalMem"] / 2**30
        facts[f"GPU {i}"] = f"{name}, compute capability {p['major']}.{p['minor']}, {gib:.1f} GiB"
except Exception as exc:
    facts["CuPy"] = f"unusable: {type(exc).__name__}: {exc}"
try:
    from unifiedarray import _compiled
    built = _compiled.compiled_modules()
    pure = "pure Python (no compiled modules for this Python)"
    facts["unifiedarray build"] = f"compiled ({len(built)} modules)" if built else pure
except Exception as exc:
    facts["unifiedarray build"] = f"unknown ({type(exc).__name__}: {exc})"
for mod in ("array_api_compat", "array_api_strict", "hypothesis", "pytest", "mlx.core"):
    try:
        facts[mod.split(".")[0]] = __import__(mod, fromlist=["x"]).__version__
    except Exception as exc:
        facts[mod.split(".")[0]] = f"not available ({type(exc).__name__})"
print(json.dumps(facts))
"""


class Step:
    def __init__(self, name: str, title: str, budget: float, argv: list[str]) -> None:
        self.name = name
        self.title = title
        self.budget = budget
        self.argv = argv
        self.status = "not run"
        self.seconds = 0.0
        self.output = ""
        self.detail = ""


def steps(sim: bool, out_dir: Path) -> list[Step]:
    """The steps, most wanted first: a step the deadline leaves no time for
    is skipped and reported (``--only`` runs it in a second call)."""
    py = sys.executable
    cuda = "sim" if sim else "real"
    pytest = [py, "-m", "pytest", "-v", "-p", "no:cacheprovider", "-rfEs", f"--cuda={cuda}", "-o", "addopts="]
    sizes = ["--sizes", "1", "4", "--rounds", "2"] if sim else ["--sizes", "1", "64", "1024", "--rounds", "8"]
    official = [py, "-m", "conformance.run", "--suite", str(SUITE), "--device", "cuda:0", "--xfail-mark", "skip"]
    official += ["--max-examples", "2" if sim else "10", "--json", str(out_dir / "official.json"), "--no-hypothesis-db"]
    return [
        Step("facts", "GPU, driver, CUDA, CuPy, NumPy", 30, [py, "-c", FACTS]),
        Step("main", "python -m unifiedarray", 45, [py, "-m", "unifiedarray"]),
        # The suite lives outside tests/: the --cuda option and the runtime's choice come from tests/conftest.py.
        # Only the GPU's parametrizations: CI runs the others, and CuPy compiles each kernel on its first
        # call on a fresh machine (about 90 s went to a third of the suite on an H200), so the time goes there.
        Step(
            "differential",
            "differential suite on the GPU (cuda:0)",
            240,
            [*pytest, "-p", "tests.conftest", "-k", "cuda", "conformance/test_differential.py"],
        ),
        # The official array-api-tests on cuda:0, where the suite travels in .suites/ (the README says how).
        Step("official", "official array-api-tests on cuda:0", 150, official if SUITE.is_dir() else []),
        Step(
            "transfers",
            "host <-> GPU transfers against bare CuPy",
            60,
            [py, "benchmarks/bench_cuda_transfers.py", "--markdown", "--no-plot", *sizes],
        ),
        Step(
            "workloads",
            "GPU workloads against raw CuPy",
            45,
            [py, "benchmarks/bench_cuda_workloads.py", "--markdown", *(["--quick"] if sim else [])],
        ),
        Step(
            "overhead",
            "the library's own Python time per CUDA call",
            30,
            [py, "benchmarks/bench_cuda_overhead.py", "--markdown", *(["--sim", "--number", "200"] if sim else [])],
        ),
        Step("tests", "CUDA, buffer, ledger, pool and transfer tests", 120, [*pytest, *TESTS]),
        Step(
            "routes", "the route table's NumPy functions on cuda:0", 90, [*pytest, "-k", "cuda", "tests/test_routes.py"]
        ),
        Step("random", "unifiedarray.random on cuda:0", 60, [*pytest, "-k", "cuda", "tests/test_random.py"]),
    ]


def install_wheels(log: list[str]) -> str | None:
    """Install ``.whl/*.whl`` into a temporary folder; its path, or None."""
    wheels = sorted(WHEELS.glob("*.whl"))
    if not wheels:
        log.append("no wheels in .whl/: nothing installed")
        return None
    target = tempfile.mkdtemp(prefix="gpu-check-site-")
    cmd = [sys.executable, "-m", "pip", "install", "-q", "--no-index", "--no-deps", "--no-compile"]
    cmd += ["--no-cache-dir", "--upgrade", "--target", target, *map(str, wheels)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    log.append(f"installed {len(wheels)} wheels into {target}: " + " ".join(w.name for w in wheels))
    if proc.returncode:
        log.append(f"pip failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return target


def hide_modules(names: list[str]) -> str:
    """A folder of stand-ins that fail to import as an absent module does."""
    folder = tempfile.mkdtemp(prefix="gpu-check-hidden-")
    for name in names:
        os.makedirs(os.path.join(folder, name))
        with open(os.path.join(folder, name, "__init__.py"), "w") as f:
            f.write(f"raise ModuleNotFoundError(\"No module named '{name}'\", name={name!r})\n")
    return folder


def run_step(step: Step, env: dict[str, str], budget: float) -> None:
    t0 = time.monotonic()
    with tempfile.TemporaryFile() as out:
        try:
            proc = subprocess.Popen(
                step.argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        except OSError as exc:
            step.status, step.output = "failed", f"could not start: {exc}"
            return
        try:
            rc = proc.wait(timeout=max(budget, 1))
            step.status = "ok" if rc == 0 else f"failed (exit {rc})"
        except subprocess.TimeoutExpired:
            # pytest prints its summary on an interrupt: ask first, then kill.
            os.killpg(proc.pid, signal.SIGINT)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            step.status = f"timed out after {budget:.0f} s"
        step.seconds = time.monotonic() - t0
        out.seek(0)
        data = out.read()
    if len(data) > MAX_LOG:
        cut = len(data) - MAX_LOG
        data = data[: MAX_LOG // 2] + f"\n[... {cut} bytes cut ...]\n".encode() + data[-MAX_LOG // 2 :]
    step.output = data.decode(errors="replace")


_COUNT = re.compile(r"(\d+) (passed|failed|skipped|errors?|xfailed|xpassed)")


def pytest_counts(output: str) -> dict[str, int]:
    """The counts of pytest's closing line, or, where the run was cut short,
    of its per-test lines (``-v``)."""
    for line in reversed(output.splitlines()):
        if line.startswith("=") and (" passed" in line or " failed" in line or " error" in line):
            return {k.rstrip("s") if k.startswith("error") else k: int(n) for n, k in _COUNT.findall(line)}
    counts: dict[str, int] = {}
    for word in re.findall(r" (PASSED|FAILED|SKIPPED|ERROR|XFAIL|XPASS)\b", output):
        key = {"XFAIL": "xfailed", "XPASS": "xpassed", "ERROR": "error"}.get(word, word.lower())
        counts[key] = counts.get(key, 0) + 1
    return counts


def markdown_section(output: str) -> str:
    """The Markdown a benchmark printed: its table lines and the text after its machine facts."""
    lines = output.splitlines()
    keep = [ln for ln in lines if not ln.startswith("- **") and not ln.startswith("measured ")]
    return "\n".join(keep).strip()


def git_commit() -> str:
    """The checkout's commit; ``GPU_CHECK_COMMIT`` where the caller knows
    better (a copy of a working tree sent to a GPU machine can carry another
    repository's history: its HEAD is not the tree's commit)."""
    given = os.environ.get("GPU_CHECK_COMMIT")
    if given:
        return f"{given} (as given by GPU_CHECK_COMMIT)"
    try:
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, timeout=10).stdout.strip()  # fmt: skip
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--", "unifiedarray"],
                               capture_output=True, text=True, timeout=10).stdout.strip()  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return "not a git checkout"
    return (head or "not a git checkout") + (" + uncommitted changes in unifiedarray/" if dirty else "")


def nvidia_smi() -> str:
    if shutil.which("nvidia-smi") is None:
        return "nvidia-smi: not found"
    query = "name,driver_version,pcie.link.gen.max,pcie.link.width.max,memory.total,clocks.max.sm"
    try:
        return subprocess.run(["nvidia-smi", f"--query-gpu={query}", "--format=csv"], capture_output=True,
                              text=True, timeout=30).stdout.strip()  # fmt: skip
    except (OSError, subprocess.SubprocessError) as exc:
        return f"nvidia-smi failed: {exc}"


def report(args: argparse.Namespace, all_steps: list[Step], facts: dict[str, str], notes: list[str]) -> str:
    mode = "simulated CUDA runtime (tests/cudasim), reduced sizes" if args.sim else "real GPU"
    out = [
        "# GPU check",
        "",
        f"- **date**: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}",
        f"- **commit**: {git_commit()}",
        f"- **mode**: {mode}",
    ]
    out += [f"- **{k}**: {v}" for k, v in facts.items()]
    out += ["", "## Steps", "", "| step | what | outcome | seconds | detail |", "| :--- | :--- | :--- | ---: | :--- |"]
    out += [f"| {s.name} | {s.title} | {s.status} | {s.seconds:.0f} | {s.detail} |" for s in all_steps]
    if notes:
        out += ["", "## Setup", ""] + [f"- {n}" for n in notes]
    for s in all_steps:
        out += ["", f"## {s.name}: {s.title}", "", f"{s.status}, {s.seconds:.0f} s; log: `{s.name}.log`", ""]
        if s.name == "facts":
            out += ["```text", nvidia_smi() if not args.sim else "(simulated: no nvidia-smi)", "```"]
        elif s.name in ("tests", "differential"):
            tail = [ln for ln in s.output.splitlines() if ln.startswith(("FAILED", "ERROR"))][:40]
            skips = [ln for ln in s.output.splitlines() if ln.startswith("SKIPPED")][:40]
            out += ["Failures:" if tail else "No failures.", ""]
            out += ["```text", *tail, "```"] if tail else []
            if skips:
                out += ["", "Skipped (reasons):", "", "```text", *skips, "```"]
        elif s.name == "main":
            out += ["```text", s.output.strip()[-6000:], "```"]
        else:
            out += [markdown_section(s.output)[-12000:]]
    return "\n".join(out) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="folder for report.md, summary.json and the logs")
    ap.add_argument("--sim", action="store_true", help="the simulated CUDA runtime, reduced sizes")
    ap.add_argument("--only", help="comma-separated step names (default: all)")
    ap.add_argument("--deadline", type=float, default=450.0, help="seconds for all steps together (default 450)")
    ap.add_argument(
        "--hide",
        default=None,
        help="comma-separated modules made unimportable, as on the GPU machine "
        "(default with --sim: mlx, and ndindex unless its wheel is in .whl/)",
    )
    args = ap.parse_args()
    start = time.monotonic()
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)

    notes: list[str] = []
    paths = [str(ROOT)]
    if args.sim:
        paths.insert(0, str(SIM_SITE))
    site = install_wheels(notes)
    if site:
        paths.append(site)
    # On the GPU machine ndindex is there only where its wheel travels in .whl/ (for the official suite).
    travels = any(WHEELS.glob("ndindex-*.whl"))
    hide = args.hide if args.hide is not None else (("mlx" if travels else "mlx,ndindex") if args.sim else "")
    hidden = [h for h in hide.split(",") if h]
    if hidden:
        paths.insert(0, hide_modules(hidden))
        notes.append("made unimportable, as on the GPU machine: " + ", ".join(hidden))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*paths, *filter(None, [env.get("PYTHONPATH")])])
    env["UNIFIEDARRAY_CUDA"] = "sim" if args.sim else "real"
    env.setdefault("UNIFIEDARRAY_DIFF_EXAMPLES", "4" if args.sim else "8")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["MPLBACKEND"] = "Agg"

    all_steps = steps(args.sim, out_dir)
    if args.only:
        wanted = set(args.only.split(","))
        all_steps = [s for s in all_steps if s.name in wanted]
    facts: dict[str, str] = {}
    for i, step in enumerate(all_steps):
        left = args.deadline - (time.monotonic() - start)
        reserve = 5.0 * (len(all_steps) - i - 1)  # each later step gets at least a few seconds
        budget = min(step.budget, left - reserve)
        if budget < 5:
            step.status = "skipped: the check's deadline"
            continue
        if not step.argv:
            step.status = f"skipped: no suite at {SUITE.relative_to(ROOT)} (README: the GPU check)"
            continue
        print(f"[gpu_check] {step.name}: {step.title} (budget {budget:.0f} s)", flush=True)
        run_step(step, env, budget)
        if step.name == "facts" and step.status == "ok":
            try:
                facts = json.loads(step.output.strip().splitlines()[-1])
            except (ValueError, IndexError):
                step.status = "failed (unreadable facts)"
        if step.name in ("tests", "differential", "routes", "random", "official"):
            counts = pytest_counts(step.output)
            step.detail = ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or "no count"
            if step.status == "failed (exit 1)" and counts.get("failed", 0) + counts.get("error", 0) == 0:
                step.detail += " (pytest failed without failing tests: see the log)"
        print(f"[gpu_check] {step.name}: {step.status} in {step.seconds:.0f} s {step.detail}", flush=True)
        (out_dir / f"{step.name}.log").write_text(step.output)

    (out_dir / "report.md").write_text(report(args, all_steps, facts, notes))
    summary = {
        "mode": "sim" if args.sim else "real",
        "commit": git_commit(),
        "facts": facts,
        "steps": [
            {"name": s.name, "status": s.status, "seconds": round(s.seconds, 1), "detail": s.detail} for s in all_steps
        ],
        "seconds": round(time.monotonic() - start, 1),
    }
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(f"\n[gpu_check] summary ({summary['seconds']:.0f} s, {summary['mode']}), report: {out_dir / 'report.md'}")
    for s in all_steps:
        print(f"  {s.name:<13} {s.status:<32} {s.seconds:6.0f} s  {s.detail}")
    # A suite that did not travel is the run's choice, not a failure.
    return 0 if all(s.status == "ok" or s.status.startswith("skipped: no suite") for s in all_steps) else 1


if __name__ == "__main__":
    raise SystemExit(main())
