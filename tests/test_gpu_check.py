"""The GPU check (``benchmarks/gpu_check.py``), run on the simulated CUDA
runtime: it writes its report and logs within the limits a GPU machine's
output folder sets, and reads pytest's counts, even from a run cut short.

The whole check (every step, the test suites included) runs in CI
(``.ci/run``); here the quick steps run, so the suite stays fast.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "gpu_check.py"


@pytest.fixture(scope="module")
def check_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("gpu-check")
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--sim", "--only", "facts,main,transfers,workloads", "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return proc, out


def test_the_quick_steps_pass_on_the_simulated_runtime_and_say_so(check_run):
    proc, out = check_run
    assert proc.returncode == 0, proc.stdout + proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["mode"] == "sim"
    assert [s["name"] for s in summary["steps"]] == ["facts", "main", "transfers", "workloads"]
    assert all(s["status"] == "ok" for s in summary["steps"]), summary
    assert "simulated" in summary["facts"]["CuPy"]
    assert summary["facts"]["mlx"].startswith("not available")  # hidden, as on the GPU machine
    assert "[gpu_check] summary" in proc.stdout


def test_the_report_holds_the_facts_and_every_steps_tables(check_run):
    _, out = check_run
    report = (out / "report.md").read_text()
    assert "- **mode**: simulated CUDA runtime" in report
    assert "- **GPU 0**: Simulated CUDA GPU 0" in report
    assert "| transfers | host <-> GPU transfers against bare CuPy | ok |" in report
    assert re.search(r"\| 1 MB \| h2d \| ua pinned \| [\d.]+ \|", report)  # the transfer table
    assert re.search(r"\| a \+ b \(8,\) \| [\d,.]+ \| [\d,.]+ \|", report)  # the workload table
    assert "cuda:0" in (out / "main.log").read_text()  # python -m unifiedarray saw the (simulated) GPU


def test_the_output_folder_keeps_to_what_comes_back_from_a_gpu_machine(check_run):
    _, out = check_run
    files = [p for p in out.rglob("*") if p.is_file()]
    assert 0 < len(files) <= 8
    for p in files:
        assert re.fullmatch(r"[A-Za-z0-9._-]+", p.name), p.name
        assert p.stat().st_size < 16 << 20
        assert len(p.relative_to(out).parts) <= 3


def test_pytest_counts_come_from_the_closing_line_or_from_a_run_cut_short():
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import gpu_check
    finally:
        sys.path.remove(str(SCRIPT.parent))
    closing = "tests/a.py::t PASSED\n===== 3 passed, 1 failed, 2 skipped, 1 error in 4.2s =====\n"
    assert gpu_check.pytest_counts(closing) == {"passed": 3, "failed": 1, "skipped": 2, "error": 1}
    cut = "tests/a.py::t1 PASSED [ 10%]\ntests/a.py::t2 FAILED [ 20%]\ntests/a.py::t3 PASSED [ 30%]\n"
    assert gpu_check.pytest_counts(cut) == {"passed": 2, "failed": 1}
